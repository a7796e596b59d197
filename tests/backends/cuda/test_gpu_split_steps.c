/*
 * The splitting scheme's steps as one CUDA graph launch (issue 28; backends/cuda/split_step.cu, the
 * cuda backend's steps_device under solver.scheme = "splitting") against the same steps one at a time
 * (hs_split_step and the ops react and diffuse: split.cu), on one device, the same problem:
 * a slab (4 x 2 x 1 mm, h = 0.25 mm) paced by a train of pulses at x = 0 (3 pulses, 12 ms apart) and a
 * second site overlapping it (a node in both sums two shares, in site order), NSTEPS = 300 steps of
 * 0.1 ms (two activations cross the slab), the launches of CHUNK steps (not a divisor of the pulses'
 * periods: launches start and end inside pulses).
 *  1. Godunov, consistent mass, the persistent CG and the kernel CG (its own WHILE node inside the
 *     step loop's); Godunov, lumped mass (B diagonal); Strang, theta = 1/2, reaction substeps
 *     (solver.dt_ode), consistent and lumped mass; without the guess; another SpMV format with float32
 *     values; regions with a scar (frozen nodes). csr_scalar with float64 values unless named (a
 *     run's "auto" would time a trial and might choose another kernel in each run).
 *     Expected: the same bits. Every kernel of a launched step is the one-step path's kernel on the same
 *     inputs in the same order (the per-step numbers - substeps, currents, guess weights, the start
 *     time - come from the same host functions: hs_split_reaction_inputs, hs_split_guess_weights);
 *     the one difference, the reaction reading a zero node current while every site is off where the
 *     one-step path reads none, adds h * 0 to u, which changes at most the sign of a zero: values are
 *     compared with ==, so a difference in any bit of a nonzero value fails. Compared: phi, the model's
 *     variables, the read-outs (activation), the guess's history (get_history: its vectors and steps)
 *     and the CG iterations of every step.
 *  2. A failing step inside a launch: a second site switched on at t = 5 ms with an infinite strength
 *     (the reaction goes non-finite), and a CG that cannot converge (solver.cg_max_iter = 2 with the
 *     stimulus starting at 3 ms: the steps at rest need no iteration). The launch stops at that step
 *     with the backend at its start (the same bits as the one-step path's state after its failure),
 *     and the step run again by hs_sim_step reports the one-step path's error, word for word.
 * Exit 77 without a CUDA device.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_cuda.h"
#include "hs_sim.h"
#include "hs_spmv.h"
#include "hs_test.h"
#include "hs_test_spec.h"
#include "hs_util.h"

#define NSTEPS 300
#define CHUNK 37

static void setup(hs_sim_spec *s)
{
    hs_test_spec_defaults(s);
    s->mesh.box = (hs_box_params){.lx = 4.0, .ly = 2.0, .lz = 1.0, .h = 0.25};
    s->backend = hs_backends_find("cuda");
    s->spmv = hs_spmv_find("csr_scalar"); /* named: "auto" would time a trial in each run */
    s->matrix_values = HS_VALUES_F64;
    s->n_stimuli = 2;
    s->stimuli[0] = (hs_stimulus_cfg){.shape = HS_STIM_BOX, .min = {-1, -1, -1}, .max = {0.6, 1e3, 1e3},
                                      .start = 0.05, .duration = 1.0, .strength = 2.0, .period = 12.0, .count = 3};
    s->stimuli[1] = (hs_stimulus_cfg){.shape = HS_STIM_BOX, .min = {0.3, -1, -1}, .max = {0.9, 1.2, 1e3},
                                      .start = 0.5, .duration = 0.73, .strength = 1.5};
    s->dt = 0.1;
    s->cg.tol = 1e-9;
    s->output_enabled = 0;
    s->step = HS_STEP_GRAPH; /* named: "auto" takes the persistent kernel on this mesh (test_gpu_split_persist) */
    s->scheme = hs_scheme_opts_newton();
    s->scheme.kind = HS_SCHEME_SPLITTING;
}

/* what a run leaves: every field of the state, the history, the CG iterations per step */
typedef struct run_out {
    hs_state_desc desc; /* the backend's (which the state borrows) */
    hs_state st;
    hs_extrap ex;
    double *h1, *h2;
    int32_t n;
    int cg[NSTEPS];
    int fail_step;      /* the step that failed (run_failing), -1: none */
    char msg[1024];
} run_out;

static void run_out_free(run_out *r)
{
    hs_state_destroy(&r->st);
    free(r->h1);
    free(r->h2);
    memset(r, 0, sizeof *r);
}

/* @p chunk 0: one step at a time (hs_sim_step); else launches of up to chunk steps (hs_sim_steps), a
 * step that stops a launch run again by hs_sim_step, as the step driver does. Stops at the first
 * failure (r->fail_step, r->msg). Returns 0, or -1 when the run could not be made. */
static int run(const hs_sim_spec *s, int chunk, run_out *r)
{
    memset(r, 0, sizeof *r);
    r->fail_step = -1;
    hs_sim sim;
    if (hs_sim_create(s, &sim) != HS_OK) {
        fprintf(stderr, "set-up failed: %s\n", hs_error_message());
        hs_error_clear();
        return -1;
    }
    hs_backend *b = sim.backend;
    HS_TEST_CHECK(sim.prob->opt.exec.step == HS_STEP_GRAPH && b->ops->steps_device,
                  "solver.step = graph under splitting became %s", hs_step_mode_name(sim.prob->opt.exec.step));
    int rc = 0;
    static hs_step_stats many[CHUNK];
    for (int k = 0; k < NSTEPS && r->fail_step < 0;) {
        int done = 0;
        if (chunk > 0) {
            const int n = NSTEPS - k < chunk ? NSTEPS - k : chunk;
            if (hs_sim_steps(&sim, k, s->dt, n, &done, many) != HS_OK) {
                fprintf(stderr, "launch from step %d: %s\n", k, hs_error_message());
                hs_error_clear();
                rc = -1;
                break;
            }
            for (int j = 0; j < done; ++j) r->cg[k + j] = many[j].cg_iters;
            k += done;
            if (done == n) continue;
        }
        hs_step_stats ss;
        if (hs_sim_step(&sim, k * s->dt, s->dt, &ss) != HS_OK) {
            r->fail_step = k;
            snprintf(r->msg, sizeof r->msg, "%s", hs_error_message());
            hs_error_clear();
            break;
        }
        r->cg[k] = ss.cg_iters;
        ++k;
    }
    r->n = sim.mesh->n_nodes;
    r->desc = b->state;
    if (rc == 0 && hs_state_create(&r->desc, &r->st) != HS_OK) rc = -1;
    if (rc == 0 && b->ops->get_state(b, &r->st) != HS_OK) rc = -1;
    r->h1 = calloc((size_t)r->n, sizeof(double));
    r->h2 = calloc((size_t)r->n, sizeof(double));
    if (rc == 0 && b->ops->get_history(b, &r->ex, r->h1, r->h2) != HS_OK) rc = -1;
    if (rc != 0) hs_error_clear();
    hs_sim_destroy(&sim);
    return rc;
}

/* the count of values of @p a and @p b (n each) that differ (== false), and the largest difference */
static long differ(const double *a, const double *b, size_t n, double *dmax)
{
    long bad = 0;
    for (size_t i = 0; i < n; ++i)
        if (!(a[i] == b[i]) && !(isnan(a[i]) && isnan(b[i]))) {
            ++bad;
            *dmax = fmax(*dmax, fabs(a[i] - b[i]));
        }
    return bad;
}

static void compare(const char *what, const run_out *one, const run_out *many)
{
    HS_TEST_CHECK(one->n == many->n && one->n > 0, "%s: %d / %d nodes", what, one->n, many->n);
    if (one->n != many->n || one->n == 0) return;
    const hs_state_desc *d = one->st.desc;
    for (int f = 0; f < d->n_fields; ++f) {
        const size_t len = (size_t)hs_state_field_len(d, f);
        double dmax = 0.0;
        const long bad = differ(one->st.field[f], many->st.field[f], len, &dmax);
        HS_TEST_CHECK(bad == 0, "%s: field %s differs at %ld of %zu values (max %.3g)", what, d->f[f].name, bad, len,
                      dmax);
    }
    double dmax = 0.0;
    HS_TEST_CHECK(one->ex.n_valid == many->ex.n_valid && one->ex.h[0] == many->ex.h[0] && one->ex.h[1] == many->ex.h[1],
                  "%s: the history's steps: %d (%g, %g) against %d (%g, %g)", what, one->ex.n_valid, one->ex.h[0],
                  one->ex.h[1], many->ex.n_valid, many->ex.h[0], many->ex.h[1]);
    HS_TEST_CHECK(differ(one->h1, many->h1, (size_t)one->n, &dmax) == 0 &&
                      differ(one->h2, many->h2, (size_t)one->n, &dmax) == 0,
                  "%s: the guess's history vectors differ (max %.3g)", what, dmax);
    int cg_bad = -1;
    for (int k = 0; k < NSTEPS && cg_bad < 0; ++k)
        if (one->cg[k] != many->cg[k]) cg_bad = k;
    HS_TEST_CHECK(cg_bad < 0, "%s: step %d: %d CG iterations one at a time, %d in a launch", what, cg_bad,
                  cg_bad < 0 ? 0 : one->cg[cg_bad], cg_bad < 0 ? 0 : many->cg[cg_bad]);
    HS_TEST_CHECK(one->fail_step == many->fail_step && !strcmp(one->msg, many->msg),
                  "%s: one at a time failed at step %d (%s), launched at step %d (%s)", what, one->fail_step, one->msg,
                  many->fail_step, many->msg);
    if (hs_verbosity > 1) {
        long cg = 0;
        for (int k = 0; k < NSTEPS; ++k) cg += one->cg[k];
        printf("%-48s %d nodes, %ld CG iterations, failed at %d\n", what, one->n, cg, one->fail_step);
    }
}

static void pair(const char *what, const hs_sim_spec *s)
{
    run_out one, many;
    const int r1 = run(s, 0, &one), r2 = run(s, CHUNK, &many);
    HS_TEST_CHECK(r1 == 0 && r2 == 0, "%s: a run could not be made", what);
    if (r1 == 0 && r2 == 0) compare(what, &one, &many);
    run_out_free(&one);
    run_out_free(&many);
}

int main(int argc, char **argv)
{
    hs_verbosity = argc > 1 && !strcmp(argv[1], "-v") ? 2 : 0;
    char name[256], why[256];
    if (hs_gpu_probe(name, sizeof name, why, sizeof why) < 1) {
        fprintf(stderr, "test_gpu_split_steps: skipped: %s\n", why);
        return HS_TEST_SKIP;
    }
    static hs_sim_spec s;
    /* 1. the same bits */
    setup(&s);
    pair("godunov, consistent, persistent CG", &s);
    setup(&s);
    s.persistent = 0;
    pair("godunov, consistent, kernel CG (nested WHILE)", &s);
    setup(&s);
    s.scheme.mass = HS_MASS_LUMPED;
    pair("godunov, lumped (B diagonal)", &s);
    setup(&s);
    s.scheme.order = HS_SPLIT_STRANG;
    s.scheme.theta = 0.5;
    s.scheme.dt_ode_ms = 0.03;
    pair("strang, theta 1/2, consistent, dt_ode 0.03", &s);
    setup(&s);
    s.scheme.order = HS_SPLIT_STRANG;
    s.scheme.mass = HS_MASS_LUMPED;
    s.extrapolate = 1;
    pair("strang, lumped, extrapolate 1", &s);
    setup(&s);
    s.extrapolate = 0;
    pair("godunov, no guess (extrapolate 0)", &s);
    setup(&s);
    s.spmv = hs_spmv_find("ellwarp_k1");
    s.matrix_values = HS_VALUES_F32;
    if (s.spmv && hs_spmv_serves(s.spmv, HS_VALUES_F32)) pair("godunov, ellwarp_k1, float32 values", &s);
    setup(&s);
    hs_region_cfg *r = s.regions; /* a scar: its inner nodes frozen, identity rows in A and B */
    memset(r, 0, sizeof *r);
    r->select = HS_REGION_BOX;
    r->min[0] = 2.0, r->max[0] = 2.6;
    r->min[1] = r->min[2] = -1e3, r->max[1] = r->max[2] = 1e3;
    r->d_iso = r->d_ani = 0.0;
    s.n_regions = 1;
    pair("regions: a scar (frozen nodes)", &s);
    /* 2. a failing step inside a launch: the reaction, the CG */
    setup(&s);
    s.stimuli[1].start = 5.0;
    s.stimuli[1].strength = INFINITY;
    pair("failure: a non-finite reaction at 5 ms", &s);
    setup(&s);
    s.stimuli[0].start = 3.0;
    s.stimuli[1].start = 3.0;
    s.cg.max_iter = 2;
    s.dt_retry = 0;
    pair("failure: CG at its iteration limit at 3 ms", &s);
    HS_TEST_RETURN();
}
