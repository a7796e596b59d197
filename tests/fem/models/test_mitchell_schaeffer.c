/*
 * The Mitchell-Schaeffer model (fem/models/mitchell_schaeffer.h) at one point (0D):
 *  1. the gate's local update is the exact backward-Euler step: its residual is zero to round-off on
 *     both branches of the switch;
 *  2. an action potential from rest, integrated as the tissue scheme does (backward Euler for v with
 *     the model's consistent df/dv in a scalar Newton, the gate by hs_model_point) at dt = 0.01 ms,
 *     against RK4 at dt = 0.001 ms: the upstroke and the APD (downward crossing of v = 0.1) agree within
 *     first-order error bounds (0.5 ms);
 *  3. the plateau ends where the paper's analysis puts it: the plateau exists while h > h_min =
 *     4 tau_in / tau_out, and h closes from 1 at the rate 1/tau_close from the upstroke, so the time
 *     from the upstroke to h = h_min is APD_max = tau_close ln(tau_out / (4 tau_in)) = 241 ms
 *     (Mitchell & Schaeffer 2003); within 1 ms. The downstroke to v = 0.1 follows it (287 ms).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hs_model_point.h"
#include "hs_models.h"
#include "hs_test.h"

static const double P[HS_MS_N_PARAMS] = {0.3, 6.0, 120.0, 150.0, 0.13};
#define STIM 1.0    /* 1/ms for the first STIM_T ms */
#define STIM_T 1.0
#define T_END 400.0

/* RK4 of (v, h) with the switch evaluated at each stage; returns the time of the upstroke (v > 0.5)
 * and of the downward crossing of 0.1 after it. */
static void rk4(double dt, double *t_up, double *t_down, double *t_hmin)
{
    double v = 0.0, h = 1.0;
    const double h_min = 4.0 * P[HS_MS_TAU_IN] / P[HS_MS_TAU_OUT];
    *t_up = *t_down = *t_hmin = -1.0;
    for (long k = 0; k * dt < T_END; ++k) {
        double t = k * dt, y[2] = {v, h}, kk[4][2];
        for (int s = 0; s < 4; ++s) {
            double c = s == 0 ? 0 : s == 3 ? 1 : 0.5, ts = t + c * dt;
            double yv = s ? y[0] + c * dt * kk[s - 1][0] : y[0], yh = s ? y[1] + c * dt * kk[s - 1][1] : y[1];
            kk[s][0] = hs_ms_f(P, yv, yh) + (ts < STIM_T ? STIM : 0.0);
            kk[s][1] = yv < P[HS_MS_V_GATE] ? (1.0 - yh) / P[HS_MS_TAU_OPEN] : -yh / P[HS_MS_TAU_CLOSE];
        }
        double vn = v + dt / 6 * (kk[0][0] + 2 * kk[1][0] + 2 * kk[2][0] + kk[3][0]);
        double hn = h + dt / 6 * (kk[0][1] + 2 * kk[1][1] + 2 * kk[2][1] + kk[3][1]);
        if (*t_up >= 0 && *t_hmin < 0 && h >= h_min && hn < h_min) *t_hmin = t + dt * (h - h_min) / (h - hn);
        h = hn;
        if (*t_up < 0 && vn > 0.5) *t_up = t + dt * (0.5 - v) / (vn - v);
        if (*t_up >= 0 && *t_down < 0 && v >= 0.1 && vn < 0.1) *t_down = t + dt * (v - 0.1) / (v - vn);
        v = vn;
    }
}

/* The tissue scheme at a point: backward Euler, Newton on v with the consistent derivative. */
static int implicit(double dt, double *t_up, double *t_down, int *max_newton)
{
    hs_model_params mp = {.id = HS_MODEL_ID_mitchell_schaeffer, .n_vars = 1};
    memcpy(mp.v, P, sizeof P);
    double v = 0.0, h = 1.0;
    *t_up = *t_down = -1.0;
    *max_newton = 0;
    for (long k = 0; k * dt < T_END; ++k) {
        double t = k * dt, s = (t < STIM_T ? STIM : 0.0), u = v, hn = h, hh = h, f = 0, df = 0;
        int it;
        for (it = 0; it < 30; ++it) { /* R(u) = (u - v)/dt - f(u, h(u)) - s */
            hh = hn;
            if (hs_model_point(&mp, v, u, dt, &hn, &hh, &f, &df) < 0) return 0;
            double r = (u - v) / dt - f - s, du = r / (1.0 / dt - df);
            u -= du;
            if (fabs(du) <= 1e-13) break;
        }
        hh = hn;
        hs_model_point(&mp, v, u, dt, &hn, &hh, &f, &df);
        if (it + 1 > *max_newton) *max_newton = it + 1;
        if (*t_up < 0 && u > 0.5) *t_up = t + dt * (0.5 - v) / (u - v);
        if (*t_up >= 0 && *t_down < 0 && v >= 0.1 && u < 0.1) *t_down = t + dt * (v - 0.1) / (v - u);
        v = u;
        h = hh;
    }
    return 1;
}

int main(void)
{
    /* 1. the gate update solves its backward-Euler equation exactly, on both sides of v_gate */
    const double dt = 0.05;
    const double vs[] = {0.0, 0.1, 0.2, 0.9}, hns[] = {0.0, 0.3, 1.0};
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; ++i)
        for (size_t j = 0; j < sizeof hns / sizeof hns[0]; ++j) {
            double h = hs_ms_gate(P, HS_GATES_NEWTON, vs[i], hns[j], dt);
            double g = vs[i] < P[HS_MS_V_GATE] ? (1.0 - h) / P[HS_MS_TAU_OPEN] : -h / P[HS_MS_TAU_CLOSE];
            HS_TEST_CHECK(fabs((h - hns[j]) / dt - g) <= 1e-14, "gate residual at v = %g, h_n = %g", vs[i], hns[j]);
        }
    HS_TEST_CHECK(fabs(hs_ms_dt_max(P) - 1.0 / (1.0 / 0.9 - 1.0 / 6.0)) <= 1e-12, "dt_max");

    /* 2. an action potential against RK4 */
    double up_r, down_r, hmin_r, up_i, down_i;
    int max_newton;
    rk4(0.001, &up_r, &down_r, &hmin_r);
    HS_TEST_CHECK(implicit(0.01, &up_i, &down_i, &max_newton), "implicit integration failed");
    printf("RK4 (dt 0.001 ms): upstroke %.4f ms, APD(v = 0.1) %.3f ms; implicit (dt 0.01 ms): %.4f ms, %.3f ms, "
           "at most %d Newton iterations\n", up_r, down_r - up_r, up_i, down_i - up_i, max_newton);
    HS_TEST_CHECK(up_r > 0 && down_r > up_r && up_i > 0 && down_i > up_i, "an action potential in both");
    HS_TEST_CHECK(fabs(up_i - up_r) <= 0.05 && fabs((down_i - up_i) - (down_r - up_r)) <= 0.5,
                  "implicit vs RK4: upstroke %.4f vs %.4f, APD %.3f vs %.3f", up_i, up_r, down_i - up_i, down_r - up_r);
    HS_TEST_CHECK(max_newton <= 8, "Newton iterations %d", max_newton);

    /* 3. the paper's APD_max: the end of the plateau */
    const double apd_max = P[HS_MS_TAU_CLOSE] * log(P[HS_MS_TAU_OUT] / (4.0 * P[HS_MS_TAU_IN]));
    printf("h falls to h_min %.3f ms after the upstroke; tau_close ln(tau_out/(4 tau_in)) = %.3f ms\n", hmin_r - up_r,
           apd_max);
    HS_TEST_CHECK(hmin_r > up_r && fabs((hmin_r - up_r) - apd_max) <= 1.0 && down_r > hmin_r,
                  "end of plateau %.2f ms after the upstroke vs APD_max %.2f", hmin_r - up_r, apd_max);
    HS_TEST_RETURN();
}
