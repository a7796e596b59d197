/*
 * The splitting scheme's host references (fem/hs_splitting.h), checked independently:
 *  - hs_split_matrices: A = M + theta dt K and B = M - (1-theta) dt K against a dense assembly of
 *    the element matrices written here from the geometry (V/20 (1 + delta_ab), V/4 lumped; kd), both
 *    symmetric, A 1 = B 1 = the lumped mass (K 1 = 0), the consistent mass summing to the volume;
 *  - the stimulus shares: 1 inside a site, in (0, 1) on its border, and the charge sum_i w_i m_i equal
 *    to the volume the site's elements hold (the Newton scheme's V/4 per element node);
 *  - hs_split_react_node: one and several substeps equal the nodal form stepped by hand (u by
 *    forward Euler, gates by Rush-Larsen), bit for bit: the reference a device kernel is checked
 *    against;
 *  - heartsim cell in 0D: every model with both schemes paced once, the splitting reaction and the
 *    Newton cell step agree in activation time and APD90 within their dt error, which halves with dt.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_cell.h"
#include "hs_mesh.h"
#include "hs_models.h"
#include "hs_p1.h"
#include "hs_problem.h"
#include "hs_splitting.h"
#include "hs_stimulus.h"
#include "hs_test.h"

static hs_problem *make_problem(hs_mesh **mesh, hs_stim_set **stim, double theta, hs_mass_kind mass)
{
    hs_box_params bp = {2.0, 1.0, 1.0, 0.5, 0, 1.414};
    HS_TEST_OK(hs_mesh_create_box(&bp, mesh));
    hs_mesh *m = *mesh;
    m->fiber = calloc(3 * (size_t)m->n_elems, sizeof(double));
    for (int32_t e = 0; e < m->n_elems; ++e) m->fiber[3 * e] = 1.0;
    hs_stimulus_cfg site = {.shape = HS_STIM_BOX, .min = {-1, -1, -1}, .max = {1.0, 2, 2}, .duration = 1,
                            .strength = 1};
    HS_TEST_OK(hs_stim_set_create(m, &site, 1, stim));
    hs_problem_opts o;
    memset(&o, 0, sizeof o);
    o.model = hs_models_find("aliev_panfilov");
    hs_model_params_defaults(o.model, &o.model_prm);
    o.time_unit = 12.9;
    o.d_iso = 0.3, o.d_ani = 0.6;
    o.assembly = HS_ASSEMBLY_SPLIT;
    o.scheme = (hs_scheme_opts){HS_SCHEME_SPLITTING, HS_SPLIT_GODUNOV, theta, mass, 0.0};
    hs_problem *p = NULL;
    HS_TEST_OK(hs_problem_create(m, *stim, &o, NULL, &p));
    return p;
}

static void check_matrices(double theta, hs_mass_kind mass)
{
    hs_mesh *m = NULL;
    hs_stim_set *stim = NULL;
    hs_problem *p = make_problem(&m, &stim, theta, mass);
    if (!p) return;
    const int32_t n = m->n_nodes, nnz = p->pattern->nnz;
    const double dt = 0.37;
    double *a = calloc((size_t)nnz, sizeof(double)), *b = calloc((size_t)nnz, sizeof(double));
    double *ad = calloc((size_t)n * n, sizeof(double)), *bd = calloc((size_t)n * n, sizeof(double));
    HS_TEST_OK(hs_split_matrices(p, dt, a, b));
    double vol = 0.0, amax = 0.0;
    for (int32_t e = 0; e < m->n_elems; ++e) {
        const double v = p->geom->vol[e];
        vol += v;
        for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 4; ++c) {
                const double mm = mass == HS_MASS_LUMPED ? (r == c ? v / 4 : 0.0) : v / 20 * (r == c ? 2.0 : 1.0);
                const double k = p->geom->kd[10 * e + hs_sym4_index(r, c)];
                const int32_t i = m->tets[4 * e + r], j = m->tets[4 * e + c];
                ad[(size_t)i * n + j] += mm + theta * dt * k;
                bd[(size_t)i * n + j] += mm - (1 - theta) * dt * k;
                amax = fmax(amax, fabs(mm) + dt * fabs(k));
            }
    }
    const double tol = 64 * 2.2e-16 * amax; /* a few dozen terms per entry, each rounded once */
    double msum = 0.0;
    for (int32_t i = 0; i < n; ++i) {
        double ra = 0.0, rb = 0.0;
        for (int32_t k = p->pattern->row_ptr[i]; k < p->pattern->row_ptr[i + 1]; ++k) {
            const int32_t j = p->pattern->col[k];
            HS_TEST_CHECK(fabs(a[k] - ad[(size_t)i * n + j]) <= tol && fabs(b[k] - bd[(size_t)i * n + j]) <= tol,
                          "theta %g %s: (%d, %d): a %.17g b %.17g, dense %.17g %.17g", theta, hs_mass_name(mass), i, j,
                          a[k], b[k], ad[(size_t)i * n + j], bd[(size_t)i * n + j]);
            HS_TEST_CHECK(fabs(a[k] - ad[(size_t)j * n + i]) <= tol, "A not symmetric at (%d, %d)", i, j);
            ra += a[k], rb += b[k];
        }
        const double mi = p->nodal->mass_lumped[i];
        HS_TEST_CHECK(fabs(ra - mi) <= tol * 30 && fabs(rb - mi) <= tol * 30, "row %d: A 1 = %.17g, B 1 = %.17g, m = %.17g",
                      i, ra, rb, mi);
        msum += mi;
    }
    HS_TEST_NEAR(msum, 2.0, 1e-12, "lumped mass total = the box's volume");
    HS_TEST_NEAR(vol, 2.0, 1e-12, "element volumes");
    free(a), free(b), free(ad), free(bd);
    hs_problem_destroy(&p);
    hs_stim_set_destroy(&stim);
    hs_mesh_destroy(&m);
}

static void check_stimulus(void)
{
    hs_mesh *m = NULL;
    hs_stim_set *stim = NULL;
    hs_problem *p = make_problem(&m, &stim, 1.0, HS_MASS_CONSISTENT);
    if (!p) return;
    const hs_nodal *nd = p->nodal;
    double site_vol = 0.0, charge = 0.0;
    for (int32_t j = stim->elem_ptr[0]; j < stim->elem_ptr[1]; ++j) site_vol += p->geom->vol[stim->elem[j]];
    int inside = 0, border = 0;
    for (int32_t j = nd->stim_ptr[0]; j < nd->stim_ptr[1]; ++j) {
        const int32_t i = nd->stim_node[j];
        const double x = m->xyz[3 * i], w = nd->stim_w[j];
        charge += w * nd->mass_lumped[i];
        HS_TEST_CHECK(w > 0.0 && w <= 1.0, "node %d: share %g", i, w);
        if (x < 1.0 - 1e-9) {
            HS_TEST_NEAR(w, 1.0, 1e-14, "a node inside the site");
            ++inside;
        } else {
            HS_TEST_CHECK(w < 1.0, "node %d at x = %g on the site's border has share %g", i, x, w);
            ++border;
        }
        HS_TEST_CHECK(j == nd->stim_ptr[0] || nd->stim_node[j - 1] < i, "nodes of a site not increasing");
    }
    HS_TEST_CHECK(inside > 0 && border > 0, "inside %d, border %d nodes", inside, border);
    HS_TEST_NEAR(charge, site_vol / 1.0, 1e-13 * site_vol, "sum_i w_i m_i = the site's volume");
    double amp = 0.7, *s = calloc((size_t)m->n_nodes, sizeof(double));
    hs_nodal_stimulus(nd, &amp, s);
    double q = 0.0;
    for (int32_t i = 0; i < m->n_nodes; ++i) q += s[i] * nd->mass_lumped[i];
    HS_TEST_NEAR(q, 0.7 * site_vol, 1e-13 * site_vol, "the node currents' charge");
    free(s);
    hs_problem_destroy(&p);
    hs_stim_set_destroy(&stim);
    hs_mesh_destroy(&m);
}

/* hs_split_react_node against the nodal form stepped here, for every model, 1 and 3 substeps */
static void check_react_node(void)
{
    for (int mi = 0; mi < hs_models_count(); ++mi) {
        const hs_model *model = hs_models_at(mi);
        hs_model_params prm;
        hs_model_params_defaults(model, &prm);
        const int nv = model->n_vars;
        for (int n_sub = 1; n_sub <= 3; n_sub += 2) {
            double u = 0.3 * model->mv_scale > 0 ? 0.3 : -0.3, s[HS_MODEL_MAX_VARS], u2 = u, s2[HS_MODEL_MAX_VARS];
            for (int k = 0; k < nv; ++k) s[k] = s2[k] = 0.5 * model->vars[k].initial + 0.1;
            const double h = 0.2, stim = 0.05;
            HS_TEST_CHECK(hs_split_react_node(&prm, h, n_sub, stim, &u, s) == 0, "%s: reaction failed", model->name);
            for (int q = 0; q < n_sub; ++q) {
                double f, a[HS_MODEL_MAX_VARS], tau[HS_MODEL_MAX_VARS];
                hs_model_rhs(&prm, u2, s2, &f, a, tau);
                const double hs = h / n_sub;
                u2 = u2 + hs * (f + stim);
                for (int k = 0; k < nv; ++k)
                    s2[k] = model->vars[k].gate ? a[k] + (s2[k] - a[k]) * exp(-hs / tau[k]) : s2[k] + hs * a[k];
            }
            HS_TEST_CHECK(u == u2, "%s, %d substeps: u %.17g, by hand %.17g", model->name, n_sub, u, u2);
            for (int k = 0; k < nv; ++k)
                HS_TEST_CHECK(s[k] == s2[k], "%s, %d substeps: %s %.17g, by hand %.17g", model->name, n_sub,
                              model->vars[k].name, s[k], s2[k]);
        }
    }
}

/* One paced beat in 0D: activation time and APD90 (ms) of the Newton cell step or the splitting
 * reaction (Godunov, one substep per step) at dt ms. */
static int beat(const hs_model *model, int split, double dt, double *t_act, double *apd)
{
    hs_model_params prm;
    hs_model_params_defaults(model, &prm);
    const double T = model->time_unit_default, t_end = 800.0, start = 5.0, dur = 1.0, strength = 1.0;
    const long n = (long)ceil(t_end / dt - 1e-9);
    double *t = malloc(sizeof(double) * (size_t)(n + 1)), *v = malloc(sizeof(double) * (size_t)(n + 1));
    double u = model->potential_rest, s[HS_MODEL_MAX_VARS];
    for (int k = 0; k < model->n_vars; ++k) s[k] = model->vars[k].initial;
    hs_stimulus_cfg q = {.start = start, .duration = dur, .strength = strength};
    int ok = 1;
    for (long k = 0; k <= n && ok; ++k) {
        t[k] = k * dt, v[k] = model->mv_scale * u + model->mv_offset;
        if (k == n) break;
        const double amp = hs_stim_site_amplitude(&q, k * dt, (k + 1) * dt) * T;
        if (split) ok = hs_cell_react(&prm, dt / T, 1, amp, &u, s) == 0;
        else {
            hs_cell_newton nw = {.tol_residual = 1e-10, .tol_update = 1e-10, .max_iter = 20};
            ok = hs_cell_step(&prm, dt / T, amp, &u, s, &nw) == 0;
        }
    }
    hs_cell_beat b;
    const double st0 = start;
    if (ok) hs_cell_beats(t, v, n + 1, &st0, 1, 0.1 * model->mv_scale, &b);
    free(t), free(v);
    if (!ok || b.apd90 < 0) return -1;
    *t_act = b.t_act, *apd = b.apd90;
    return 0;
}

static void check_cell(void)
{
    const double dts[3] = {0.04, 0.02, 0.01};
    for (int mi = 0; mi < hs_models_count(); ++mi) {
        const hs_model *model = hs_models_at(mi);
        if (!(model->schemes & HS_MODEL_SCHEME_NEWTON)) continue;
        double da[3], dp[3];
        for (int l = 0; l < 3; ++l) {
            double tn, an, ts, as;
            HS_TEST_CHECK(beat(model, 0, dts[l], &tn, &an) == 0 && beat(model, 1, dts[l], &ts, &as) == 0,
                          "%s dt %g: no beat", model->name, dts[l]);
            da[l] = ts - tn, dp[l] = as - an;
            if (getenv("HS_TEST_VERBOSE"))
                printf("%s dt %g: activation newton %.4f split %.4f; APD90 newton %.3f split %.3f\n", model->name,
                       dts[l], tn, ts, an, as);
        }
        if (hs_test_failures) return;
        /* both first order in dt: the APD90 difference falls at least by 1/4 with each halving of dt
         * (about half for Aliev-Panfilov and Mitchell-Schaeffer; faster and irregular for Bueno-Orovio,
         * whose switches flip at slightly different steps), and is within 0.1% of the APD at dt = 0.01 ms */
        for (int l = 0; l < 2; ++l)
            HS_TEST_CHECK(fabs(dp[l + 1]) <= 0.75 * fabs(dp[l]), "%s: APD90 differences %.4g, %.4g ms at dt %g, %g: not converging",
                          model->name, dp[l], dp[l + 1], dts[l], dts[l + 1]);
        HS_TEST_CHECK(fabs(dp[2]) <= 1e-3 * 250.0, "%s: APD90s differ by %.4g ms at dt 0.01", model->name, dp[2]);
        HS_TEST_CHECK(fabs(da[2]) <= 0.05, "%s: activation times differ by %.4g ms at dt 0.01", model->name, da[2]);
    }
}

int main(void)
{
    check_matrices(1.0, HS_MASS_CONSISTENT);
    check_matrices(0.5, HS_MASS_CONSISTENT);
    check_matrices(1.0, HS_MASS_LUMPED);
    check_matrices(0.5, HS_MASS_LUMPED);
    check_stimulus();
    check_react_node();
    check_cell();
    HS_TEST_RETURN();
}
