/*
 * The splitting scheme (solver.scheme = "splitting", issue 28) on the CUDA backend against the cpu
 * backend, the reference (backends/cpu/split_cpu.c), on the same host-built problem: a front crossing
 * a slab (6 x 2 x 1 mm, h = 0.2 mm, stimulated at x = 0), N = 60 steps of dt = 0.1 ms.
 *  1. Godunov, theta = 1, consistent mass (the defaults), float64 values, csr_scalar: phi, the
 *     model's variables at the nodes and the activation times node by node, and the CG iterations of
 *     every step; on the graph path and on the stream path (solver.graph = off), with the kernel CG
 *     and with the persistent one;
 *  2. Strang with theta = 1/2 and a lumped mass (B = diag(m): no SpMV for ||B u*||), reaction
 *     substeps (solver.dt_ode); regions (test_gpu_backend part 7's: another threshold, a slower
 *     region, a scar whose inner nodes are frozen, identity rows in A and B);
 *  3. every registered SpMV kernel (nodes matched by coordinates: a format may renumber the mesh),
 *     float64, and with float32 matrix values where the kernel has them;
 *  4. every ionic model of the list (its defaults, solver.dt_ode = 0.02 ms).
 * Exit 77 without a CUDA device.
 *
 * A failing reaction (a stimulus of 1e200): both backends report the same node and time, and the
 * state goes back to the failed step's start (the cuda backend checks the first reaction's flag after
 * the diffusion: react_check).
 * Tolerances, from the arithmetic. Both backends solve every diffusion to ||B u* - A u|| <= tol ||B u*||
 * (tol = solver.cg_tol = 1e-12 here), so each solution lies within tol ||A^-1||_2 ||B u*||_2 <=
 * tol kappa_2(A) ||u*||_2 of the exact one (||B||_2 <= ||A||_2 for theta >= 1/2), and the two backends
 * within twice that; kappa_2(A) is computed here (power iterations on the host's A). The reactions
 * differ by a few ulp per substep (test_gpu_nodal), far below. A step's difference is carried to the
 * next by the diffusion (a contraction in the A-norm) and the reaction, which contracts at rest and on
 * the plateau (df/du < 0) and amplifies only across the threshold, for the few steps a node spends
 * there; the norm conversions above (kappa_2 and sqrt(n) turn a 2-norm bound into a max-norm one) are
 * worst cases by orders of magnitude for a front, which covers that transient. So, as test_gpu_backend
 * argues for the Newton scheme, the differences add up at most linearly over the N steps:
 *   ||phi_gpu - phi_cpu||_inf <= N 2 tol kappa_2(A) sqrt(n) ||phi||_inf,
 * and the model's variables, driven by phi, within the same bound relative to max(1, ||phi||_inf).
 * Activation times differ by that over the upstroke's slope at the threshold (>= 0.05 potential units
 * per ms for these models' fronts): we allow the phi bound / 0.05 ms. CG iteration counts may differ
 * by one (a residual within round-off of the tolerance; the device CG also runs one iteration where
 * the warm start meets the tolerance already and the cpu runs none). Float32 matrix values round A
 * (not the right-hand side, which is C = B - A in float64): the fixed point moves by about
 * 2^-24 kappa |d| per step, d the diffusion's correction, which this bound does not cover; for them
 * part 3 checks the activation times to within one step, dt.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_cuda.h"
#include "hs_models.h"
#include "hs_sim.h"
#include "hs_splitting.h"
#include "hs_spmv.h"
#include "hs_test.h"
#include "hs_test_sim.h"
#include "hs_test_spec.h"
#include "hs_util.h"

#define NSTEPS 60

static void setup(hs_sim_spec *s, const char *backend)
{
    hs_test_spec_defaults(s);
    s->mesh.box = (hs_box_params){.lx = 6.0, .ly = 2.0, .lz = 1.0, .h = 0.2};
    s->backend = hs_backends_find(backend);
    s->spmv = hs_spmv_find("csr_scalar");
    s->matrix_values = HS_VALUES_F64;
    s->n_stimuli = 1;
    s->stimuli[0] = (hs_stimulus_cfg){.shape = HS_STIM_BOX, .min = {-1, -1, -1}, .max = {1.5, 1e3, 1e3},
                                      .start = 0.0, .duration = 2.0, .strength = 2.0};
    s->dt = 0.1;
    s->cg.tol = 1e-12;
    s->output_enabled = 0;
    s->step = HS_STEP_AUTO;
    s->scheme = hs_scheme_opts_newton();
    s->scheme.kind = HS_SCHEME_SPLITTING;
}

typedef struct run_out {
    int32_t n;
    int nv;
    double *phi, *vars, *act; /* [n], [nv][n], [n] in mesh order */
    int cg[NSTEPS];
    double phi_max;           /* max |phi| over the run */
    double kappa;             /* kappa_2(A) of the diffusion matrix (cpu runs only) */
} run_out;

static void run_out_free(run_out *r)
{
    free(r->phi);
    free(r->vars);
    free(r->act);
    memset(r, 0, sizeof *r);
}

/* kappa_2 of the symmetric positive definite A (CSR) by power iterations: lambda_max of A, then
 * lambda_max of (lambda_max I - A) = lambda_max - lambda_min */
static double spd_kappa(const hs_csr *pat, const double *a)
{
    const int32_t n = pat->n_rows;
    double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n), lmax = 0.0, mu = 0.0;
    for (int pass = 0; pass < 2; ++pass) {
        for (int32_t i = 0; i < n; ++i) x[i] = 1.0 + 0.37 * sin(0.91 * i);
        double lam = 0.0;
        for (int it = 0; it < 3000; ++it) {
            double nx = 0.0;
            for (int32_t i = 0; i < n; ++i) {
                double s = 0.0;
                for (int32_t k = pat->row_ptr[i]; k < pat->row_ptr[i + 1]; ++k) s += a[k] * x[pat->col[k]];
                y[i] = pass ? lmax * x[i] - s : s;
            }
            double xy = 0.0, xx = 0.0;
            for (int32_t i = 0; i < n; ++i) xy += x[i] * y[i], xx += x[i] * x[i], nx += y[i] * y[i];
            lam = xy / xx;
            nx = sqrt(nx);
            for (int32_t i = 0; i < n; ++i) x[i] = y[i] / nx;
        }
        if (pass == 0) lmax = lam;
        else mu = lam;
    }
    free(x);
    free(y);
    const double lmin = lmax - mu;
    return lmin > 0.0 ? lmax / lmin : INFINITY;
}

/* A reaction that goes non-finite (a stimulus of 1e200 per ms: u ~ 1e199 after the first step, the
 * cubic current overflows in the next): the step that fails, its message (node and time) and the
 * state after it (restore_step: the step's start, bit for bit). The cuda backend reads the first
 * reaction's flag after the diffusion (react_check): the report must still be the reaction's. */
typedef struct fail_out {
    int step;
    char msg[1024];
    double *phi_before, *phi_after;
    int32_t n;
} fail_out;

static int run_failing(const hs_sim_spec *s0, fail_out *f)
{
    memset(f, 0, sizeof *f);
    f->step = -1;
    hs_sim_spec s = *s0;
    /* an infinite current: the reaction's potential is non-finite at the stimulated nodes (a large
     * finite one, 1e200, stays finite through one reaction and overflows in the diffusion's CG) */
    s.stimuli[0].strength = INFINITY;
    hs_sim sim;
    if (hs_sim_create(&s, &sim) != HS_OK) {
        hs_error_clear();
        return -1;
    }
    hs_state st;
    int rc = hs_state_create(&sim.backend->state, &st) == HS_OK ? 0 : -1;
    f->n = sim.mesh->n_nodes;
    f->phi_before = calloc((size_t)f->n, sizeof(double));
    f->phi_after = calloc((size_t)f->n, sizeof(double));
    for (int k = 0; rc == 0 && k < 5 && f->step < 0; ++k) {
        hs_step_stats ss;
        if (sim.backend->ops->get_state(sim.backend, &st) != HS_OK) rc = -1;
        if (rc == 0) memcpy(f->phi_before, st.field[HS_STATE_POTENTIAL], sizeof(double) * f->n);
        if (rc == 0 && hs_sim_step(&sim, k * s.dt, s.dt, &ss) != HS_OK) {
            f->step = k;
            snprintf(f->msg, sizeof f->msg, "%s", hs_error_message());
            hs_error_clear();
            if (sim.backend->ops->get_state(sim.backend, &st) != HS_OK) rc = -1;
            if (rc == 0) memcpy(f->phi_after, st.field[HS_STATE_POTENTIAL], sizeof(double) * f->n);
        }
    }
    hs_state_destroy(&st);
    hs_sim_destroy(&sim);
    return rc;
}

static void check_failure(void)
{
    static hs_sim_spec s;
    fail_out c, g;
    setup(&s, "cpu");
    HS_TEST_CHECK(run_failing(&s, &c) == 0 && c.step >= 0, "cpu: the non-finite reaction was not reported");
    setup(&s, "cuda");
    HS_TEST_CHECK(run_failing(&s, &g) == 0 && g.step >= 0, "cuda: the non-finite reaction was not reported");
    if (c.step >= 0 && g.step >= 0) {
        HS_TEST_CHECK(c.step == g.step && !strcmp(c.msg, g.msg), "failure: cpu at step %d: %s; cuda at step %d: %s",
                      c.step, c.msg, g.step, g.msg);
        HS_TEST_CHECK(strstr(g.msg, "non-finite at node") != NULL, "cuda: not the reaction's report: %s", g.msg);
        HS_TEST_CHECK(!memcmp(g.phi_before, g.phi_after, sizeof(double) * g.n),
                      "cuda: phi after the failed step is not the step's start");
        HS_TEST_CHECK(!memcmp(c.phi_before, c.phi_after, sizeof(double) * c.n),
                      "cpu: phi after the failed step is not the step's start");
    }
    free(c.phi_before), free(c.phi_after), free(g.phi_before), free(g.phi_after);
}

static int run(const hs_sim_spec *s, run_out *r)
{
    memset(r, 0, sizeof *r);
    hs_sim sim;
    if (hs_sim_create(s, &sim) != HS_OK) {
        fprintf(stderr, "%s: set-up failed: %s\n", s->backend->name, hs_error_message());
        hs_error_clear();
        return -1;
    }
    const int32_t n = sim.mesh->n_nodes;
    hs_state st;
    int rc = hs_state_create(&sim.backend->state, &st) == HS_OK ? 0 : -1;
    for (int k = 0; rc == 0 && k < NSTEPS; ++k) {
        hs_step_stats ss;
        if (hs_sim_step(&sim, k * s->dt, s->dt, &ss) != HS_OK) {
            fprintf(stderr, "%s: step %d failed: %s\n", s->backend->name, k, hs_error_message());
            hs_error_clear();
            rc = -1;
            break;
        }
        r->cg[k] = ss.cg_iters;
        if (sim.backend->ops->get_state(sim.backend, &st) != HS_OK) rc = -1;
        for (int32_t i = 0; rc == 0 && i < n; ++i) r->phi_max = fmax(r->phi_max, fabs(st.field[HS_STATE_POTENTIAL][i]));
    }
    if (rc == 0) {
        const hs_state_desc *d = &sim.backend->state;
        r->n = n;
        r->nv = d->activation - 1;
        r->phi = malloc(sizeof(double) * n);
        r->act = malloc(sizeof(double) * n);
        r->vars = malloc(sizeof(double) * n * (r->nv > 0 ? r->nv : 1));
        memcpy(r->phi, st.field[HS_STATE_POTENTIAL], sizeof(double) * n);
        memcpy(r->act, st.field[d->activation], sizeof(double) * n);
        for (int k = 0; k < r->nv; ++k) memcpy(r->vars + (size_t)k * n, st.field[1 + k], sizeof(double) * n);
        if (!strcmp(s->backend->name, "cpu")) {
            double *a = malloc(sizeof(double) * sim.prob->pattern->nnz);
            if (hs_split_matrices(sim.prob, s->dt / s->time_unit, a, NULL) == HS_OK)
                r->kappa = spd_kappa(sim.prob->pattern, a);
            free(a);
        }
    }
    hs_state_destroy(&st);
    hs_sim_destroy(&sim);
    return rc;
}

/* the bound of the header comment for the cpu run @p c */
static double phi_bound(const hs_sim_spec *s, const run_out *c)
{
    return NSTEPS * 2.0 * s->cg.tol * c->kappa * sqrt((double)c->n) * c->phi_max;
}

static void compare(const char *what, const hs_sim_spec *s, const run_out *c, const run_out *g, int with_vars)
{
    HS_TEST_CHECK(c->n == g->n && c->nv == g->nv, "%s: %d / %d nodes", what, c->n, g->n);
    if (c->n != g->n || c->nv != g->nv) return;
    HS_TEST_CHECK(isfinite(c->kappa) && c->kappa >= 1.0, "%s: kappa %g", what, c->kappa);
    const double tol = phi_bound(s, c), tol_act = tol / 0.05;
    double dphi = 0.0, dact = 0.0, dvar = 0.0;
    int fired = 0;
    for (int32_t i = 0; i < c->n; ++i) {
        dphi = fmax(dphi, fabs(c->phi[i] - g->phi[i]));
        if ((c->act[i] < 0.0) != (g->act[i] < 0.0)) dact = INFINITY;
        else if (c->act[i] >= 0.0) dact = fmax(dact, fabs(c->act[i] - g->act[i])), ++fired;
    }
    for (size_t k = 0; with_vars && k < (size_t)c->nv * c->n; ++k) {
        /* a variable moves with phi through the reaction: the same bound relative to its own size */
        dvar = fmax(dvar, fabs(c->vars[k] - g->vars[k]) / fmax(1.0, fabs(c->vars[k])));
    }
    HS_TEST_CHECK(dphi <= tol, "%s: max |phi_gpu - phi_cpu| %.3g > %.3g", what, dphi, tol);
    HS_TEST_CHECK(dact <= tol_act, "%s: max |act_gpu - act_cpu| %.3g ms > %.3g", what, dact, tol_act);
    if (with_vars)
        HS_TEST_CHECK(dvar <= tol / fmax(1.0, c->phi_max), "%s: the variables differ by %.3g of max(1, |s|) > %.3g",
                      what, dvar, tol / fmax(1.0, c->phi_max));
    for (int k = 0; k < NSTEPS; ++k)
        HS_TEST_CHECK(abs(c->cg[k] - g->cg[k]) <= 1, "%s: step %d: CG %d iterations on cpu, %d on cuda", what, k,
                      c->cg[k], g->cg[k]);
    if (hs_verbosity > 1)
        printf("%-44s kappa %.1f, |dphi| %.3g (bound %.3g), |dact| %.3g ms, %d nodes activated\n", what, c->kappa, dphi,
               tol, dact, fired);
}

static void pair(const char *what, hs_sim_spec *s, int with_vars)
{
    run_out c, g;
    s->backend = hs_backends_find("cpu");
    const int pers = s->persistent, graph = s->graph;
    const hs_spmv_ops *k = s->spmv;
    const hs_matrix_values mv = s->matrix_values;
    s->persistent = 0;
    s->spmv = hs_spmv_find("csr_scalar");
    s->matrix_values = HS_VALUES_F64;
    if (run(s, &c) != 0) {
        HS_TEST_CHECK(0, "%s: the cpu run failed", what);
        return;
    }
    s->backend = hs_backends_find("cuda");
    s->persistent = pers;
    s->graph = graph;
    s->spmv = k;
    s->matrix_values = mv;
    if (run(s, &g) != 0) HS_TEST_CHECK(0, "%s: the cuda run failed", what);
    else compare(what, s, &c, &g, with_vars);
    run_out_free(&c);
    run_out_free(&g);
}

/* regions (as test_gpu_backend part 7): another excitation threshold, a slower region overlapping it,
 * a scar (non-conducting: its inner nodes frozen, identity rows in A and B); node rows, frozen nodes */
static void add_regions(hs_sim_spec *s)
{
    hs_region_cfg *r = s->regions;
    memset(r, 0, 3 * sizeof *r);
    for (int j = 0; j < 3; ++j) {
        r[j].select = HS_REGION_BOX;
        r[j].min[1] = r[j].min[2] = -1e3, r[j].max[1] = r[j].max[2] = 1e3;
        r[j].d_iso = r[j].d_ani = -1.0;
    }
    r[0].min[0] = 1.6, r[0].max[0] = 2.6;
    r[0].n_params = 1, r[0].param_index[0] = hs_model_param_index(s->model, "alpha");
    r[0].param_value[0] = 0.05;
    r[1].min[0] = 2.4, r[1].max[0] = 6.1;
    r[1].d_iso = 0.15, r[1].d_ani = 0.3;
    r[2].min[0] = 4.0, r[2].max[0] = 4.6;
    r[2].d_iso = r[2].d_ani = 0.0;
    s->n_regions = 3;
}

/* 3. a kernel's run against the cpu's, nodes matched by coordinates */
static void kernel_check(const hs_spmv_ops *k, hs_matrix_values mv, const hs_test_node *ref, int32_t nref, double tol,
                         double tol_act)
{
    static hs_sim_spec s;
    setup(&s, "cuda");
    s.spmv = k;
    s.matrix_values = mv;
    int32_t n = 0;
    hs_test_node *v = hs_test_run_sorted(&s, NSTEPS, &n);
    HS_TEST_CHECK(v && n == nref, "%s (%s): run failed or %d nodes", k->name, hs_matrix_values_name(mv), n);
    if (!v || n != nref) {
        free(v);
        return;
    }
    double dphi = 0.0, dact = 0.0;
    for (int32_t i = 0; i < n; ++i) {
        dphi = fmax(dphi, fabs(v[i].phi - ref[i].phi));
        if ((v[i].act < 0.0) != (ref[i].act < 0.0)) dact = INFINITY;
        else if (v[i].act >= 0.0) dact = fmax(dact, fabs(v[i].act - ref[i].act));
    }
    if (mv == HS_VALUES_F64) {
        HS_TEST_CHECK(dphi <= tol && dact <= tol_act, "%s: |dphi| %.3g (bound %.3g), |dact| %.3g ms (bound %.3g)",
                      k->name, dphi, tol, dact, tol_act);
    } else {
        HS_TEST_CHECK(dact <= s.dt, "%s float32 values: activation times differ by %.3g ms, more than a step", k->name,
                      dact);
    }
    if (hs_verbosity > 1) printf("%-20s %s: |dphi| %.3g, |dact| %.3g ms\n", k->name, hs_matrix_values_name(mv), dphi, dact);
    free(v);
}

int main(int argc, char **argv)
{
    hs_verbosity = argc > 1 && !strcmp(argv[1], "-v") ? 2 : 0;
    char name[256], why[256];
    if (hs_gpu_probe(name, sizeof name, why, sizeof why) < 1) {
        fprintf(stderr, "test_gpu_split: skipped: %s\n", why);
        return HS_TEST_SKIP;
    }
    static hs_sim_spec s;
    /* 1. the defaults: graph and stream paths, kernel and persistent CG */
    const struct { int graph, persistent; const char *what; } paths[] = {
        {1, 0, "godunov, consistent: graph, kernel CG"},
        {1, 1, "godunov, consistent: graph, persistent CG"},
        {0, 0, "godunov, consistent: stream, kernel CG"},
    };
    for (size_t q = 0; q < sizeof paths / sizeof paths[0]; ++q) {
        setup(&s, "cpu");
        s.graph = paths[q].graph;
        s.persistent = paths[q].persistent;
        pair(paths[q].what, &s, 1);
    }
    /* 2. Strang, Crank-Nicolson, lumped mass, reaction substeps */
    setup(&s, "cpu");
    s.scheme.order = HS_SPLIT_STRANG;
    s.scheme.theta = 0.5;
    s.scheme.mass = HS_MASS_LUMPED;
    s.scheme.dt_ode_ms = 0.02;
    pair("strang, theta 1/2, lumped, dt_ode 0.02", &s, 1);
    setup(&s, "cpu");
    s.scheme.mass = HS_MASS_LUMPED;
    pair("godunov, theta 1, lumped (B diagonal)", &s, 1);
    setup(&s, "cpu");
    add_regions(&s);
    pair("regions: node rows, a scar (frozen nodes)", &s, 1);
    /* 3. every kernel against the cpu run (bound of the defaults' run) */
    run_out c;
    setup(&s, "cpu");
    if (run(&s, &c) == 0) {
        const double tol = phi_bound(&s, &c), tol_act = tol / 0.05;
        run_out_free(&c);
        int32_t nref = 0;
        hs_test_node *ref = hs_test_run_sorted(&s, NSTEPS, &nref);
        HS_TEST_CHECK(ref != NULL, "the cpu reference run failed");
        for (int f = 0; ref && f < hs_spmv_count(); ++f) {
            const hs_spmv_ops *k = hs_spmv_get(f);
            kernel_check(k, HS_VALUES_F64, ref, nref, tol, tol_act);
            if (k->apply_ref_f32) kernel_check(k, HS_VALUES_F32, ref, nref, tol, tol_act);
        }
        free(ref);
    } else {
        HS_TEST_CHECK(0, "the cpu reference run failed");
    }
    /* 4. every model */
    for (int i = 0; i < hs_models_count(); ++i) {
        const hs_model *m = hs_models_at(i);
        setup(&s, "cpu");
        s.model = m;
        hs_model_params_defaults(m, &s.model_prm);
        s.time_unit = m->time_unit_default;
        s.scheme.dt_ode_ms = 0.02;
        char what[96];
        snprintf(what, sizeof what, "model %s", m->name);
        pair(what, &s, 1);
    }
    /* 5. a non-finite reaction: the same report (node, time) on both, the state back at the step's start */
    check_failure();
    HS_TEST_RETURN();
}
