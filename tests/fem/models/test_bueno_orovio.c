/*
 * The Bueno-Orovio minimal model (fem/models/bueno_orovio.h) at one point (0D), every preset of
 * Table 1 (EPI, ENDO, M, PB, TNNP) and both gate schemes:
 *  1. the presets are the paper's table (a few spot values typed again here from Table 1) and the
 *     defaults equal "epi";
 *  2. an action potential stepped as the tissue does (hs_cell_step: backward Euler, gates by the
 *     scheme, Newton on u with the consistent df/du) at dt = 0.02 ms and 0.01 ms, against an RK4
 *     integration at dt = 0.001 ms of the paper's equations written out independently here. Peak V and
 *     APD90 agree within a tolerance derived from the first-order scheme: the error at dt is
 *     estimated by Richardson from the two runs, err(dt) ~ 2 |X(dt) - X(dt/2)|, and the check is
 *     |X(dt) - X_rk4| <= 2 * 2 |X(dt) - X(dt/2)| + 0.01 ms (or mV: the RK4 and interpolation floor);
 *     the error also shrinks with dt (|X(dt/2) - X_rk4| < |X(dt) - X_rk4| + that floor);
 *  3. properties of the published sets: the upstroke overshoots (peak V above the 1.7 mV of u = 1)
 *     but stays below 85.7 u_u - 84 mV, the zero of the fast inward current that drives it; and the
 *     transmural order of the APDs the sets were fitted to (Bueno-Orovio et al. 2008, sec. 3): M cells
 *     longest, then ENDO, then EPI, each between 200 and 500 ms at the first beat from rest (the RK4
 *     values here: EPI 273.0, ENDO 277.6, M 460.7, PB 400.1, TNNP 293.7 ms; the paper's own tables
 *     were not at hand to compare digit by digit, so these are bounds, not its numbers);
 *  4. the Newton iteration of every step converges quadratically: wherever the residual is in
 *     [1e-12, 1e-2], r_{k+1} <= C r_k^2 with C <= 1 (R = dt-scaled residual, R' = 1 - dt df/du >= 0.77
 *     at dt = 0.02 ms since df/du <= (u_u - th_v)/tau_fi = 11.4/ms, |R''| = dt |f''| <= dt 2/tau_fi = 0.36,
 *     so C = |R''|/(2 R'^2) <= 0.31 from the fast current; measured 0.29-0.39 with the gates' terms). No iteration may miss the bound: the switches are fixed within a step
 *     (evaluated at u_n, see bueno_orovio.h), so no update crosses a discontinuity.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_cell.h"
#include "hs_model_point.h"
#include "hs_models.h"
#include "hs_test.h"

#define STIM 0.8 /* u per ms, for the first STIM_T ms: u to 0.4, above th_v, then the model's own upstroke */
#define STIM_T 0.5
#define T_END 600.0

typedef struct trace {
    long n;
    double t[60001], v[60001];
} trace;

static int H(double x) { return x > 0.0; }

/* The paper's right-hand side (eqs. 1-13), written out again: y = {u, v, w, s}. */
static void rhs(const double *p, double t, const double *y, double *dy)
{
    double u = y[0], v = y[1], w = y[2], s = y[3];
    double tau_vm = H(u - p[HS_BO_TH_VM]) ? p[HS_BO_TAU_V2M] : p[HS_BO_TAU_V1M];
    double tau_wm = p[HS_BO_TAU_W1M] +
                    (p[HS_BO_TAU_W2M] - p[HS_BO_TAU_W1M]) * (1.0 + tanh(p[HS_BO_K_WM] * (u - p[HS_BO_U_WM]))) / 2.0;
    double tau_so = p[HS_BO_TAU_SO1] +
                    (p[HS_BO_TAU_SO2] - p[HS_BO_TAU_SO1]) * (1.0 + tanh(p[HS_BO_K_SO] * (u - p[HS_BO_U_SO]))) / 2.0;
    double tau_s = H(u - p[HS_BO_TH_W]) ? p[HS_BO_TAU_S2] : p[HS_BO_TAU_S1];
    double tau_o = H(u - p[HS_BO_TH_O]) ? p[HS_BO_TAU_O2] : p[HS_BO_TAU_O1];
    double v_inf = H(u - p[HS_BO_TH_VM]) ? 0.0 : 1.0;
    double w_inf = H(u - p[HS_BO_TH_O]) ? p[HS_BO_W_INF_STAR] : 1.0 - u / p[HS_BO_TAU_WINF];
    double j_fi = -v * H(u - p[HS_BO_TH_V]) * (u - p[HS_BO_TH_V]) * (p[HS_BO_U_U] - u) / p[HS_BO_TAU_FI];
    double j_so = (u - p[HS_BO_U_O]) * (1 - H(u - p[HS_BO_TH_W])) / tau_o + H(u - p[HS_BO_TH_W]) / tau_so;
    double j_si = -H(u - p[HS_BO_TH_W]) * w * s / p[HS_BO_TAU_SI];
    dy[0] = -(j_fi + j_so + j_si) + (t < STIM_T ? STIM : 0.0);
    dy[1] = (1 - H(u - p[HS_BO_TH_V])) * (v_inf - v) / tau_vm - H(u - p[HS_BO_TH_V]) * v / p[HS_BO_TAU_VP];
    dy[2] = (1 - H(u - p[HS_BO_TH_W])) * (w_inf - w) / tau_wm - H(u - p[HS_BO_TH_W]) * w / p[HS_BO_TAU_WP];
    dy[3] = ((1 + tanh(p[HS_BO_K_S] * (u - p[HS_BO_U_S]))) / 2 - s) / tau_s;
}

static void rk4(const double *p, double dt, trace *tr)
{
    double y[4] = {0.0, 1.0, 1.0, 0.0};
    long keep = (long)lround(0.01 / dt); /* store every 0.01 ms */
    tr->n = 0;
    for (long k = 0; k * dt < T_END; ++k) {
        double t = k * dt, k1[4], k2[4], k3[4], k4[4], z[4];
        if (k % keep == 0 && tr->n < 60001) tr->t[tr->n] = t, tr->v[tr->n++] = 85.7 * y[0] - 84.0;
        rhs(p, t, y, k1);
        for (int i = 0; i < 4; ++i) z[i] = y[i] + 0.5 * dt * k1[i];
        rhs(p, t + 0.5 * dt, z, k2);
        for (int i = 0; i < 4; ++i) z[i] = y[i] + 0.5 * dt * k2[i];
        rhs(p, t + 0.5 * dt, z, k3);
        for (int i = 0; i < 4; ++i) z[i] = y[i] + dt * k3[i];
        rhs(p, t + dt, z, k4);
        for (int i = 0; i < 4; ++i) y[i] += dt / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    }
}

/* The tissue scheme at a point. Counts the Newton iterations outside the quadratic bound. */
static int implicit(const hs_model_params *mp, double dt, trace *tr, double *c_max, int *flips, int *steps_flip)
{
    double u = 0.0, s[HS_MODEL_MAX_VARS] = {1.0, 1.0, 0.0};
    long keep = (long)lround(0.01 / dt);
    tr->n = 0;
    *c_max = 0.0;
    *flips = *steps_flip = 0;
    for (long k = 0; k * dt < T_END; ++k) {
        double t = k * dt;
        if (k % keep == 0 && tr->n < 60001) tr->t[tr->n] = t, tr->v[tr->n++] = 85.7 * u - 84.0;
        /* the step's stimulus: the time average over [t, t + dt] */
        double on = fmin(t + dt, STIM_T) - t, stim = on > 0 ? STIM * on / dt : 0.0;
        hs_cell_newton nw = {.tol_residual = 1e-13, .tol_update = 1e-12, .max_iter = 30};
        if (hs_cell_step(mp, dt, stim, &u, s, &nw) != 0) return 0;
        int flipped = 0;
        for (int i = 0; i + 1 < nw.n_hist; ++i) {
            double a = nw.res_hist[i], b = nw.res_hist[i + 1];
            if (a < 1e-12 || a > 1e-2 || b < 1e-14) continue;
            double c = b / (a * a);
            if (c > 1.0) ++*flips, flipped = 1;
            else if (c > *c_max) *c_max = c;
        }
        *steps_flip += flipped;
    }
    return 1;
}

static void ap_of(const trace *tr, double *peak, double *apd)
{
    double start = 0.0;
    hs_cell_beat b;
    hs_cell_beats(tr->t, tr->v, tr->n, &start, 1, 30.0, &b);
    *peak = b.peak;
    *apd = b.apd90;
}

static trace tr_rk, tr_1, tr_2;

int main(void)
{
    const hs_model *m = hs_models_find("bueno_orovio");
    HS_TEST_CHECK(m && m->n_presets == 5 && m->has_gates, "bueno_orovio with 5 presets");
    if (!m) HS_TEST_RETURN();
    /* 1. spot values of Table 1 and the defaults */
    hs_model_params def;
    hs_model_params_defaults(m, &def);
    for (int k = 0; k < m->n_params; ++k)
        HS_TEST_CHECK(def.v[k] == m->presets[0].v[k], "default %s differs from epi", m->params[k].name);
    struct { const char *preset, *param; double value; } spot[] = {
        {"epi", "tau_so1", 30.0181}, {"endo", "tau_v2_minus", 10.0}, {"mid", "tau_fi", 0.078},
        {"mid", "tau_so1", 91.0},    {"pb", "u_u", 1.45},            {"pb", "tau_w_plus", 326.0},
        {"tnnp", "theta_w", 0.015},  {"endo", "w_inf_star", 0.78},   {"mid", "tau_w_inf", 0.01},
    };
    for (size_t i = 0; i < sizeof spot / sizeof spot[0]; ++i) {
        const hs_model_preset *ps = NULL;
        for (int q = 0; q < m->n_presets; ++q)
            if (!strcmp(m->presets[q].name, spot[i].preset)) ps = &m->presets[q];
        int k = hs_model_param_index(m, spot[i].param);
        HS_TEST_CHECK(ps && k >= 0 && ps->v[k] == spot[i].value, "%s.%s", spot[i].preset, spot[i].param);
    }
    /* 2-4. */
    double apd_of[5] = {0};
    for (int q = 0; q < m->n_presets; ++q) {
        hs_model_params mp;
        hs_model_params_defaults(m, &mp);
        memcpy(mp.v, m->presets[q].v, sizeof(double) * (size_t)m->n_params);
        double pk_rk, apd_rk;
        rk4(mp.v, 0.001, &tr_rk);
        ap_of(&tr_rk, &pk_rk, &apd_rk);
        HS_TEST_CHECK(apd_rk > 0, "%s: RK4 gives no action potential", m->presets[q].name);
        apd_of[q] = apd_rk;
        for (int g = 0; g < 2; ++g) {
            mp.gates = g ? HS_GATES_RUSH_LARSEN : HS_GATES_NEWTON;
            double c1, c2, pk1, pk2, apd1, apd2;
            int fl1, fl2, sf1, sf2;
            int ok = implicit(&mp, 0.02, &tr_1, &c1, &fl1, &sf1) && implicit(&mp, 0.01, &tr_2, &c2, &fl2, &sf2);
            HS_TEST_CHECK(ok, "%s/%d: a step failed", m->presets[q].name, g);
            if (!ok) continue;
            ap_of(&tr_1, &pk1, &apd1);
            ap_of(&tr_2, &pk2, &apd2);
            double tol_apd = 4.0 * fabs(apd1 - apd2) + 0.01, tol_pk = 4.0 * fabs(pk1 - pk2) + 0.01;
            if (getenv("HS_VERBOSE")) printf("%-5s %-11s APD90 rk4 %.3f, dt 0.02 %.3f, dt 0.01 %.3f (tol %.3f) ms; peak %.3f, %.3f, %.3f "
                   "(tol %.3f) mV; Newton C <= %.3g, %d crossing iterations in %d steps\n",
                   m->presets[q].name, g ? "rush_larsen" : "newton", apd_rk, apd1, apd2, tol_apd, pk_rk, pk1, pk2,
                   tol_pk, fmax(c1, c2), fl1, sf1);
            HS_TEST_NEAR(apd1, apd_rk, tol_apd, "APD90 at dt 0.02");
            HS_TEST_NEAR(pk1, pk_rk, tol_pk, "peak at dt 0.02");
            /* 0.05 ms: below that the 0.01-ms trace sampling, not dt, decides */
            HS_TEST_CHECK(fabs(apd2 - apd_rk) < fabs(apd1 - apd_rk) + 0.05, "%s: APD error does not shrink with dt",
                          m->presets[q].name);
            HS_TEST_CHECK(c1 <= 1.0 && c2 <= 1.0, "Newton constant %g %g", c1, c2);
            HS_TEST_CHECK(fl1 == 0 && fl2 == 0, "%s: %d + %d iterations off the quadratic bound", m->presets[q].name,
                          fl1, fl2);
        }
        /* 3. the overshoot */
        double v_uu = 85.7 * mp.v[HS_BO_U_U] - 84.0;
        HS_TEST_CHECK(pk_rk > 85.7 - 84.0 && pk_rk < v_uu, "%s: peak %.2f mV, u_u at %.2f mV", m->presets[q].name, pk_rk,
                      v_uu);
    }
    /* the transmural order: epi (0) < endo (1) < mid (2) */
    HS_TEST_CHECK(apd_of[0] < apd_of[1] && apd_of[1] < apd_of[2], "APD90 epi %.1f, endo %.1f, mid %.1f ms", apd_of[0],
                  apd_of[1], apd_of[2]);
    for (int q = 0; q < 3; ++q)
        HS_TEST_CHECK(apd_of[q] > 200.0 && apd_of[q] < 500.0, "%s: APD90 %.1f ms", m->presets[q].name, apd_of[q]);
    HS_TEST_RETURN();
}
