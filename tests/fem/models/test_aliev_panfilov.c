/*
 * The local problem for r and the element tangent:
 *  1. Backward Euler with the local Newton converges to an accurate (RK4, tiny step) integration of
 *     dr/dt = f_r(phi(t), r) at first order in dt, with phi following an action-potential-like path.
 *  2. dr/dphi from the implicit function theorem equals a central finite difference.
 *  3. The element tangent is the derivative of the element residual (central differences, r re-solved
 *     from r_n for each perturbed phi: the consistent global-local linearisation).
 */
#include <math.h>
#include <string.h>

#include "aliev_panfilov.h"
#include "hs_element.h"
#include "hs_models.h"
#include "hs_test.h"

/* Goktepe & Kuhl 2009: c, alpha, gamma, b, mu1, mu2, recovery on */
static const double P[HS_AP_N_PARAMS] = {8.0, 0.01, 0.002, 0.15, 0.2, 0.3, 1};

static double phi_of_t(double t) { return 0.9 * exp(-0.02 * t) * (1.0 - exp(-2.0 * t)) + 0.05; }

static double rk4(double T, int n)
{
    double r = 0.0, h = T / n;
    for (int i = 0; i < n; ++i) {
        double t = i * h;
        double k1 = hs_ap_fr(P, phi_of_t(t), r);
        double k2 = hs_ap_fr(P, phi_of_t(t + h / 2), r + h / 2 * k1);
        double k3 = hs_ap_fr(P, phi_of_t(t + h / 2), r + h / 2 * k2);
        double k4 = hs_ap_fr(P, phi_of_t(t + h), r + h * k3);
        r += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
    }
    return r;
}

static double backward_euler(double T, int n, int *max_it)
{
    double r = 0.0, h = T / n, drdphi;
    *max_it = 0;
    for (int i = 1; i <= n; ++i) {
        double rn = r;
        int it = hs_ap_local_newton(P, phi_of_t(i * h), rn, h, &r, &drdphi);
        if (it < 0) return NAN;
        if (it > *max_it) *max_it = it;
    }
    return r;
}

int main(void)
{
    const double T = 20.0; /* model time units: upstroke, plateau and part of recovery */
    double ref = rk4(T, 200000);
    HS_TEST_CHECK(ref > 0.1, "reference r(T) = %g should show recovery", ref);
    double err_prev = 0.0;
    for (int n = 200, lev = 0; n <= 3200; n *= 2, ++lev) {
        int mit;
        double r = backward_euler(T, n, &mit);
        double err = fabs(r - ref);
        HS_TEST_CHECK(mit <= 8, "local Newton took %d iterations", mit);
        if (lev > 0) {
            double rate = log2(err_prev / err);
            HS_TEST_CHECK(rate > 0.85 && rate < 1.15, "n=%d: observed order %.3f, expected 1", n, rate);
        }
        err_prev = err;
    }
    HS_TEST_CHECK(err_prev < 2e-3 * fabs(ref), "error %g at dt = T/3200 too large", err_prev);

    /* dr/dphi against central differences */
    double phis[] = {0.02, 0.3, 0.6, 0.95};
    for (int i = 0; i < 4; ++i) {
        double dt = 0.05, rn = 0.4, r0 = rn, d = 0, rp = rn, rm = rn, dd;
        hs_ap_local_newton(P, phis[i], rn, dt, &r0, &d);
        double hph = 1e-6;
        hs_ap_local_newton(P, phis[i] + hph, rn, dt, &rp, &dd);
        hs_ap_local_newton(P, phis[i] - hph, rn, dt, &rm, &dd);
        double fd = (rp - rm) / (2 * hph);
        HS_TEST_NEAR(d, fd, 1e-7 * (1.0 + fabs(fd)), "dr/dphi");
    }

    /* Element tangent = d(element residual)/d(phi), r re-solved each time. */
    double kd[10];
    double g[4][3], x[4][3] = {{0, 0, 0}, {0.3, 0.05, 0}, {0.02, 0.25, 0.01}, {0.04, 0.03, 0.28}};
    double vol = hs_p1_gradients(x, g);
    for (int a = 0; a < 4; ++a)
        for (int b = a; b < 4; ++b) kd[hs_sym4_index(a, b)] = vol * 1.5 * (g[a][0] * g[b][0] + g[a][1] * g[b][1] + g[a][2] * g[b][2]);
    double phi[4] = {0.1, 0.5, 0.7, 0.35}, phin[4] = {0.05, 0.45, 0.6, 0.3};
    double rn[HS_MODEL_MAX_VARS] = {0.2}, dt = 0.01, s = 0.5; /* sized for any model: run-time dispatch */
    double ke[16], re[4], r[HS_MODEL_MAX_VARS] = {rn[0]};
    hs_model_params mp = {.id = HS_MODEL_ID_aliev_panfilov, .n_vars = 1};
    memcpy(mp.v, P, sizeof P);
    HS_TEST_CHECK(hs_element_eval(&mp, dt, vol, kd, phi, phin, s, rn, r, ke, re) >= 0, "element eval failed");
    for (int b = 0; b < 4; ++b) {
        double hph = 1e-6, rp_[4], rm_[4], kt[16], rr[HS_MODEL_MAX_VARS];
        double pp[4], pm[4];
        for (int q = 0; q < 4; ++q) { pp[q] = phi[q]; pm[q] = phi[q]; }
        pp[b] += hph; pm[b] -= hph;
        memcpy(rr, rn, sizeof rr); hs_element_eval(&mp, dt, vol, kd, pp, phin, s, rn, rr, kt, rp_);
        memcpy(rr, rn, sizeof rr); hs_element_eval(&mp, dt, vol, kd, pm, phin, s, rn, rr, kt, rm_);
        for (int a = 0; a < 4; ++a) {
            double fd = (rp_[a] - rm_[a]) / (2 * hph);
            HS_TEST_NEAR(ke[4 * a + b], fd, 1e-6 * (fabs(fd) + fabs(ke[4 * a + a])), "tangent entry");
        }
    }
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) HS_TEST_CHECK(ke[4 * a + b] == ke[4 * b + a], "Ke not symmetric at %d,%d", a, b);

    /* recovery off: r stays 0 */
    double q[HS_AP_N_PARAMS];
    memcpy(q, P, sizeof q);
    q[HS_AP_RECOVERY] = 0.0;
    double r2 = 0.7, d2;
    HS_TEST_CHECK(hs_ap_local_newton(q, 0.5, 0.0, 0.1, &r2, &d2) == 0 && r2 == 0.0 && d2 == 0.0, "recovery off");
    HS_TEST_RETURN();
}
