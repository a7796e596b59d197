/**
 * @file bueno_orovio.h
 * @brief The minimal ventricular model of A. Bueno-Orovio, E. M. Cherry, F. H. Fenton, "Minimal
 * model for human ventricular action potentials in tissue", J. Theor. Biol. 253 (2008) 544-560,
 * eqs. (1)-(13) and Table 1. A normalised potential u (V_mV = 85.7 u - 84, the paper's scaling),
 * three variables at the integration point, time in ms:
 *   du/dt = -(J_fi + J_so + J_si) + stim
 *   J_fi = -v H(u - th_v)(u - th_v)(u_u - u)/tau_fi
 *   J_so = (u - u_o)(1 - H(u - th_w))/tau_o + H(u - th_w)/tau_so
 *   J_si = -H(u - th_w) w s/tau_si
 *   dv/dt = (1 - H(u - th_v))(v_inf - v)/tau_v-  - H(u - th_v) v/tau_v+
 *   dw/dt = (1 - H(u - th_w))(w_inf - w)/tau_w-  - H(u - th_w) w/tau_w+
 *   ds/dt = ((1 + tanh(k_s (u - u_s)))/2 - s)/tau_s
 *   tau_v- = (1 - H(u - th_v-)) tau_v1- + H(u - th_v-) tau_v2-
 *   tau_w- = tau_w1- + (tau_w2- - tau_w1-)(1 + tanh(k_w- (u - u_w-)))/2
 *   tau_so = tau_so1 + (tau_so2 - tau_so1)(1 + tanh(k_so (u - u_so)))/2
 *   tau_s  = (1 - H(u - th_w)) tau_s1 + H(u - th_w) tau_s2
 *   tau_o  = (1 - H(u - th_o)) tau_o1 + H(u - th_o) tau_o2
 *   v_inf  = 1 - H(u - th_v-),   w_inf = (1 - H(u - th_o))(1 - u/tau_w_inf) + H(u - th_o) w_inf*
 * with H(x) = 1 for x > 0, else 0. The parameter sets of Table 1 (EPI, ENDO, M, PB, TNNP) are the
 * presets below; the defaults are EPI.
 *
 * In the implicit scheme: each of v, w, s has the form dx/dt = (x_inf(u) - x)/tau_x(u), linear in
 * x at fixed u, so its local problem is solved in closed form, by backward Euler (model.gates =
 * "newton": the local Newton converges in one step) or by the Rush-Larsen exponential. Either is a
 * function x(u; x_n, dt) whose derivative dx/du enters the consistent tangent:
 *   df/du = df/du|_(v,w,s) + df/dv dv/du + df/dw dw/du + df/ds ds/du.
 * The smooth dependencies (tau_w- and tau_so through tanh, s_inf, w_inf = 1 - u/tau_w_inf) are
 * differentiated exactly.
 *
 * The Heaviside switches (H at th_v, th_v-, th_w, th_o) are not smoothed; they are evaluated at the
 * step's starting potential u_n (the integration point's converged value of the previous step), so
 * within a step every branch is fixed, the residual is a smooth function of u and the tangent above
 * is its exact derivative: Newton is quadratic in every step. Evaluating them at the current Newton
 * iterate instead (derivative of H taken as 0) was tried first and fails: f jumps at th_o (tau_o from
 * tau_o1 to tau_o2) and at th_w (J_so, J_si, and the O(dt) jumps of the w and s updates), and a
 * step whose solution would lie at such a threshold has no root of the discontinuous residual
 * (R(th-) and R(th+) have opposite signs), so Newton cycles between the two branches forever
 * (EPI, dt = 0.02 ms, u_n = 0.00602: |dt R| alternates 1.970e-5, 1.976e-5; the repolarisation tail
 * crosses th_o that way in every beat). Lagging the switch by one step is an O(dt) change in the
 * time at which a branch changes, the order of backward Euler itself (test_bueno_orovio.c compares
 * with RK4, which switches at the exact crossing).
 */
#ifndef HS_MODEL_BUENO_OROVIO_H
#define HS_MODEL_BUENO_OROVIO_H

#include <math.h>

#include "hs_hd.h"
#include "hs_model.h"

/** Integration-point variables of this model (its descriptor's n_vars; the CUDA element kernel is
 *  compiled per model with it: backends/cuda/element.cu). */
#define HS_MODEL_NVARS_bueno_orovio 3

/** Positions of the parameters in hs_model_params.v (the order of the table below). */
enum {
    HS_BO_U_O, HS_BO_U_U, HS_BO_TH_V, HS_BO_TH_W, HS_BO_TH_VM, HS_BO_TH_O,
    HS_BO_TAU_V1M, HS_BO_TAU_V2M, HS_BO_TAU_VP, HS_BO_TAU_W1M, HS_BO_TAU_W2M, HS_BO_K_WM, HS_BO_U_WM,
    HS_BO_TAU_WP, HS_BO_TAU_FI, HS_BO_TAU_O1, HS_BO_TAU_O2, HS_BO_TAU_SO1, HS_BO_TAU_SO2, HS_BO_K_SO,
    HS_BO_U_SO, HS_BO_TAU_S1, HS_BO_TAU_S2, HS_BO_K_S, HS_BO_U_S, HS_BO_TAU_SI, HS_BO_TAU_WINF,
    HS_BO_W_INF_STAR, HS_BO_N_PARAMS
};
/** Its parameter count (the CUDA kernels take this many values by value). */
#define HS_MODEL_NPARAMS_bueno_orovio HS_BO_N_PARAMS

/** One gate's step over dt at fixed u: dx/dt = (a - x)/tau with a, tau and their u-derivatives
 *  da, dtau given; returns x and *dx = dx/du. Backward Euler or Rush-Larsen (hs_gate_scheme). */
HS_HD double hs_bo_gate(int gates, double x_n, double dt, double a, double da, double tau, double dtau,
                        double *dx)
{
    if (gates == HS_GATES_RUSH_LARSEN) {
        double e = exp(-dt / tau);
        *dx = da * (1.0 - e) + (x_n - a) * e * dt * dtau / (tau * tau);
        return a + (x_n - a) * e;
    }
    double q = tau + dt;
    *dx = dt * (da * q + dtau * (x_n - a)) / (q * q);
    return (tau * x_n + dt * a) / q;
}

/** The switches of one step: H(u_n - threshold), evaluated at the step's starting potential. */
typedef struct hs_bo_switch {
    int hv, hw, hvm, ho;
} hs_bo_switch;

HS_HD hs_bo_switch hs_bo_switches(const double *p, double u_n)
{
    hs_bo_switch h;
    h.hv = u_n > p[HS_BO_TH_V];
    h.hw = u_n > p[HS_BO_TH_W];
    h.hvm = u_n > p[HS_BO_TH_VM];
    h.ho = u_n > p[HS_BO_TH_O];
    return h;
}

/** The ionic term f = -(J_fi + J_so + J_si) with the switches @p h, and its partial derivatives at
 *  fixed (v, w, s). */
HS_HD double hs_bo_f(const double *p, hs_bo_switch h, double u, double v, double w, double s, double *df_du,
                     double *df_dv, double *df_dw, double *df_ds)
{
    double f = 0.0, fu = 0.0, fv = 0.0, fw = 0.0, fs = 0.0;
    if (h.hv) { /* -J_fi */
        double g = (u - p[HS_BO_TH_V]) * (p[HS_BO_U_U] - u) / p[HS_BO_TAU_FI];
        f += v * g;
        fu += v * (p[HS_BO_U_U] + p[HS_BO_TH_V] - 2.0 * u) / p[HS_BO_TAU_FI];
        fv = g;
    }
    if (h.hw) { /* -J_so above th_w: -1/tau_so(u); -J_si */
        double t = tanh(p[HS_BO_K_SO] * (u - p[HS_BO_U_SO]));
        double tau_so = p[HS_BO_TAU_SO1] + (p[HS_BO_TAU_SO2] - p[HS_BO_TAU_SO1]) * 0.5 * (1.0 + t);
        double dtau_so = (p[HS_BO_TAU_SO2] - p[HS_BO_TAU_SO1]) * 0.5 * p[HS_BO_K_SO] * (1.0 - t * t);
        f += -1.0 / tau_so + w * s / p[HS_BO_TAU_SI];
        fu += dtau_so / (tau_so * tau_so);
        fw = s / p[HS_BO_TAU_SI];
        fs = w / p[HS_BO_TAU_SI];
    } else { /* -J_so below th_w: -(u - u_o)/tau_o */
        double tau_o = h.ho ? p[HS_BO_TAU_O2] : p[HS_BO_TAU_O1];
        f += -(u - p[HS_BO_U_O]) / tau_o;
        fu += -1.0 / tau_o;
    }
    *df_du = fu, *df_dv = fv, *df_dw = fw, *df_ds = fs;
    return f;
}

/** The model interface's local update (hs_model_point): s = {v, w, s}, the switches at @p u_n, each
 *  gate in closed form by the scheme @p gates, then f and its consistent derivative (file comment). */
HS_HD int hs_model_point_bueno_orovio(const double *p, int gates, double u_n, double u, double dt,
                                      const double *s_n, double *st, double *f, double *dfdu)
{
    const hs_bo_switch h = hs_bo_switches(p, u_n);
    double dv, dw, ds;
    /* v: (v_inf, tau_v-) below th_v, (0, tau_v+) above; both piecewise constant in u */
    st[0] = h.hv ? hs_bo_gate(gates, s_n[0], dt, 0.0, 0.0, p[HS_BO_TAU_VP], 0.0, &dv)
                 : hs_bo_gate(gates, s_n[0], dt, h.hvm ? 0.0 : 1.0, 0.0,
                              h.hvm ? p[HS_BO_TAU_V2M] : p[HS_BO_TAU_V1M], 0.0, &dv);
    /* w: (w_inf(u), tau_w-(u)) below th_w, (0, tau_w+) above */
    if (h.hw) {
        st[1] = hs_bo_gate(gates, s_n[1], dt, 0.0, 0.0, p[HS_BO_TAU_WP], 0.0, &dw);
    } else {
        double t = tanh(p[HS_BO_K_WM] * (u - p[HS_BO_U_WM]));
        double tau = p[HS_BO_TAU_W1M] + (p[HS_BO_TAU_W2M] - p[HS_BO_TAU_W1M]) * 0.5 * (1.0 + t);
        double dtau = (p[HS_BO_TAU_W2M] - p[HS_BO_TAU_W1M]) * 0.5 * p[HS_BO_K_WM] * (1.0 - t * t);
        double a = h.ho ? p[HS_BO_W_INF_STAR] : 1.0 - u / p[HS_BO_TAU_WINF];
        double da = h.ho ? 0.0 : -1.0 / p[HS_BO_TAU_WINF];
        st[1] = hs_bo_gate(gates, s_n[1], dt, a, da, tau, dtau, &dw);
    }
    /* s: (s_inf(u), tau_s) with tau_s switching at th_w */
    {
        double t = tanh(p[HS_BO_K_S] * (u - p[HS_BO_U_S]));
        st[2] = hs_bo_gate(gates, s_n[2], dt, 0.5 * (1.0 + t), 0.5 * p[HS_BO_K_S] * (1.0 - t * t),
                           h.hw ? p[HS_BO_TAU_S2] : p[HS_BO_TAU_S1], 0.0, &ds);
    }
    double fu, fv, fw, fs;
    *f = hs_bo_f(p, h, u, st[0], st[1], st[2], &fu, &fv, &fw, &fs);
    *dfdu = fu + fv * dv + fw * dw + fs * ds;
    return isfinite(*f) && isfinite(*dfdu) ? 1 : -1;
}

/** The nodal form (fem/models/hs_model_ode.h), for the splitting scheme: s = {v, w, s}, three gates
 *  with the (x_inf, tau_x) of the file comment, the switches at the substep's starting u. */
HS_HD void hs_model_rhs_bueno_orovio(const double *p, double u, const double *st, double *f, double *a, double *tau)
{
    const hs_bo_switch h = hs_bo_switches(p, u);
    double fu, fv, fw, fs;
    *f = hs_bo_f(p, h, u, st[0], st[1], st[2], &fu, &fv, &fw, &fs);
    /* v: (v_inf, tau_v-) below th_v, (0, tau_v+) above */
    a[0] = h.hv || h.hvm ? 0.0 : 1.0;
    tau[0] = h.hv ? p[HS_BO_TAU_VP] : h.hvm ? p[HS_BO_TAU_V2M] : p[HS_BO_TAU_V1M];
    /* w: (w_inf(u), tau_w-(u)) below th_w, (0, tau_w+) above */
    if (h.hw) {
        a[1] = 0.0;
        tau[1] = p[HS_BO_TAU_WP];
    } else {
        double t = tanh(p[HS_BO_K_WM] * (u - p[HS_BO_U_WM]));
        tau[1] = p[HS_BO_TAU_W1M] + (p[HS_BO_TAU_W2M] - p[HS_BO_TAU_W1M]) * 0.5 * (1.0 + t);
        a[1] = h.ho ? p[HS_BO_W_INF_STAR] : 1.0 - u / p[HS_BO_TAU_WINF];
    }
    /* s: (s_inf(u), tau_s) with tau_s switching at th_w */
    a[2] = 0.5 * (1.0 + tanh(p[HS_BO_K_S] * (u - p[HS_BO_U_S])));
    tau[2] = h.hw ? p[HS_BO_TAU_S2] : p[HS_BO_TAU_S1];
}

/**
 * @brief Largest dt (ms) for which 1/dt - df/du > 0: the only positive part of df/du at fixed
 * variables is the fast inward current's, v (u_u + th_v - 2u)/tau_fi for u > th_v, at most
 * (u_u - th_v)/tau_fi with v <= 1 (0.088 ms for EPI). The slow-inward consistent term
 * (w/tau_si) ds/du <= dt k_s / (2 tau_si (tau_s + dt)) is below 1% of that for the published sets and
 * is not covered, as for the other models' consistent terms.
 */
static inline double hs_bo_dt_max(const double *p)
{
    double fmax_ = (p[HS_BO_U_U] - p[HS_BO_TH_V]) / p[HS_BO_TAU_FI];
    return fmax_ > 0.0 ? 1.0 / fmax_ : INFINITY;
}

#ifdef HS_MODEL_DEFINE
#define HS_BO_SRC " (Bueno-Orovio et al. 2008, Table 1)"
static const hs_model_param hs_bo_params[HS_BO_N_PARAMS] = {
    {"u_o", HS_PARAM_REAL, "1", 0.0, 0, 0, 0, "bueno_orovio: potential of the outward current's zero, (u - u_o)/tau_o" HS_BO_SRC},
    {"u_u", HS_PARAM_REAL, "1", 1.55, HS_PARAM_MIN_OPEN, 0, 0, "bueno_orovio: upper potential of the fast inward current (u - th_v)(u_u - u)" HS_BO_SRC},
    {"theta_v", HS_PARAM_REAL, "1", 0.3, HS_PARAM_MIN_OPEN, 0, 0, "bueno_orovio: threshold th_v of the fast inward current and the v gate" HS_BO_SRC},
    {"theta_w", HS_PARAM_REAL, "1", 0.13, HS_PARAM_MIN_OPEN, 0, 0, "bueno_orovio: threshold th_w of the slow currents and the w gate" HS_BO_SRC},
    {"theta_v_minus", HS_PARAM_REAL, "1", 0.006, HS_PARAM_MIN_OPEN, 0, 0, "bueno_orovio: threshold th_v- of v_inf and tau_v-" HS_BO_SRC},
    {"theta_o", HS_PARAM_REAL, "1", 0.006, HS_PARAM_MIN_OPEN, 0, 0, "bueno_orovio: threshold th_o of tau_o and w_inf" HS_BO_SRC},
    {"tau_v1_minus", HS_PARAM_REAL, "ms", 60.0, HS_PARAM_MIN_OPEN, 0, 0, "bueno_orovio: v gate opening time constant for u below th_v-" HS_BO_SRC},
    {"tau_v2_minus", HS_PARAM_REAL, "ms", 1150.0, HS_PARAM_MIN_OPEN, 0, 0, "bueno_orovio: v gate opening time constant for th_v- < u < th_v" HS_BO_SRC},
    {"tau_v_plus", HS_PARAM_REAL, "ms", 1.4506, HS_PARAM_MIN_OPEN, 0, 0, "bueno_orovio: v gate closing time constant above th_v" HS_BO_SRC},
    {"tau_w1_minus", HS_PARAM_REAL, "ms", 60.0, HS_PARAM_MIN_OPEN, 0, 0, "bueno_orovio: w gate opening time constant, low-u limit of tau_w-" HS_BO_SRC},
    {"tau_w2_minus", HS_PARAM_REAL, "ms", 15.0, HS_PARAM_MIN_OPEN, 0, 0, "bueno_orovio: w gate opening time constant, high-u limit of tau_w-" HS_BO_SRC},
    {"k_w_minus", HS_PARAM_REAL, "1", 65.0, HS_PARAM_MIN_CLOSED, 0, 0, "bueno_orovio: steepness k_w- of the tanh in tau_w-" HS_BO_SRC},
    {"u_w_minus", HS_PARAM_REAL, "1", 0.03, 0, 0, 0, "bueno_orovio: midpoint u_w- of the tanh in tau_w-" HS_BO_SRC},
    {"tau_w_plus", HS_PARAM_REAL, "ms", 200.0, HS_PARAM_MIN_OPEN, 0, 0, "bueno_orovio: w gate closing time constant above th_w" HS_BO_SRC},
    {"tau_fi", HS_PARAM_REAL, "ms", 0.11, HS_PARAM_MIN_OPEN, 0, 0, "bueno_orovio: time constant of the fast inward current J_fi" HS_BO_SRC},
    {"tau_o1", HS_PARAM_REAL, "ms", 400.0, HS_PARAM_MIN_OPEN, 0, 0, "bueno_orovio: outward current time constant tau_o below th_o" HS_BO_SRC},
    {"tau_o2", HS_PARAM_REAL, "ms", 6.0, HS_PARAM_MIN_OPEN, 0, 0, "bueno_orovio: outward current time constant tau_o between th_o and th_w" HS_BO_SRC},
    {"tau_so1", HS_PARAM_REAL, "ms", 30.0181, HS_PARAM_MIN_OPEN, 0, 0, "bueno_orovio: slow outward time constant tau_so, low-u limit" HS_BO_SRC},
    {"tau_so2", HS_PARAM_REAL, "ms", 0.9957, HS_PARAM_MIN_OPEN, 0, 0, "bueno_orovio: slow outward time constant tau_so, high-u limit" HS_BO_SRC},
    {"k_so", HS_PARAM_REAL, "1", 2.0458, HS_PARAM_MIN_CLOSED, 0, 0, "bueno_orovio: steepness k_so of the tanh in tau_so" HS_BO_SRC},
    {"u_so", HS_PARAM_REAL, "1", 0.65, 0, 0, 0, "bueno_orovio: midpoint u_so of the tanh in tau_so" HS_BO_SRC},
    {"tau_s1", HS_PARAM_REAL, "ms", 2.7342, HS_PARAM_MIN_OPEN, 0, 0, "bueno_orovio: s time constant below th_w" HS_BO_SRC},
    {"tau_s2", HS_PARAM_REAL, "ms", 16.0, HS_PARAM_MIN_OPEN, 0, 0, "bueno_orovio: s time constant above th_w" HS_BO_SRC},
    {"k_s", HS_PARAM_REAL, "1", 2.0994, HS_PARAM_MIN_CLOSED, 0, 0, "bueno_orovio: steepness k_s of s_inf = (1 + tanh(k_s (u - u_s)))/2" HS_BO_SRC},
    {"u_s", HS_PARAM_REAL, "1", 0.9087, 0, 0, 0, "bueno_orovio: midpoint u_s of s_inf" HS_BO_SRC},
    {"tau_si", HS_PARAM_REAL, "ms", 1.8875, HS_PARAM_MIN_OPEN, 0, 0, "bueno_orovio: time constant of the slow inward current J_si" HS_BO_SRC},
    {"tau_w_inf", HS_PARAM_REAL, "1", 0.07, HS_PARAM_MIN_OPEN, 0, 0, "bueno_orovio: slope scale of w_inf = 1 - u/tau_w_inf below th_o (dimensionless, named tau in the paper)" HS_BO_SRC},
    {"w_inf_star", HS_PARAM_REAL, "1", 0.94, HS_PARAM_MIN_CLOSED | HS_PARAM_MAX_CLOSED, 0, 1, "bueno_orovio: w_inf above th_o" HS_BO_SRC},
};
/* Table 1 of Bueno-Orovio et al. 2008, in the order of hs_bo_params. */
static const double hs_bo_epi[HS_BO_N_PARAMS] = {0, 1.55, 0.3, 0.13, 0.006, 0.006, 60, 1150, 1.4506, 60, 15, 65, 0.03,
                                                 200, 0.11, 400, 6, 30.0181, 0.9957, 2.0458, 0.65, 2.7342, 16, 2.0994,
                                                 0.9087, 1.8875, 0.07, 0.94};
static const double hs_bo_endo[HS_BO_N_PARAMS] = {0, 1.56, 0.3, 0.13, 0.2, 0.006, 75, 10, 1.4506, 6, 140, 200, 0.016,
                                                  280, 0.1, 470, 6, 40, 1.2, 2, 0.65, 2.7342, 2, 2.0994, 0.9087,
                                                  2.9013, 0.0273, 0.78};
static const double hs_bo_mid[HS_BO_N_PARAMS] = {0, 1.61, 0.3, 0.13, 0.1, 0.005, 80, 1.4506, 1.4506, 70, 8, 200, 0.016,
                                                 280, 0.078, 410, 7, 91, 0.8, 2.1, 0.6, 2.7342, 4, 2.0994, 0.9087,
                                                 3.3849, 0.01, 0.5};
static const double hs_bo_pb[HS_BO_N_PARAMS] = {0, 1.45, 0.35, 0.13, 0.175, 0.006, 10, 1150, 1.4506, 140, 6.25, 65,
                                                0.015, 326, 0.105, 400, 6, 30.0181, 0.9957, 2.0458, 0.65, 2.7342, 16,
                                                2.0994, 0.9087, 1.8875, 0.175, 0.9};
static const double hs_bo_tnnp[HS_BO_N_PARAMS] = {0, 1.58, 0.3, 0.015, 0.015, 0.006, 60, 1150, 1.4506, 70, 20, 65, 0.03,
                                                  280, 0.11, 6, 6, 43, 0.2, 2, 0.65, 2.7342, 3, 2.0994, 0.9087,
                                                  2.8723, 0.07, 0.94};
static const hs_model_preset hs_bo_presets[] = {
    {"epi", "human epicardium (Table 1, EPI; the defaults)", hs_bo_epi},
    {"endo", "human endocardium (Table 1, ENDO)", hs_bo_endo},
    {"mid", "human midmyocardium, M cells (Table 1, M)", hs_bo_mid},
    {"pb", "fit to the Priebe-Beuckelmann model (Table 1, PB)", hs_bo_pb},
    {"tnnp", "fit to the ten Tusscher-Noble-Noble-Panfilov model (Table 1, TNNP)", hs_bo_tnnp},
};
static const hs_model_var hs_bo_vars[] = {
    {"v", "1", HS_AT_IP, 1.0, "fast inward current gate (1: open, at rest)", 1},
    {"w", "1", HS_AT_IP, 1.0, "slow inward current gate (1: open, at rest)", 1},
    {"s", "1", HS_AT_IP, 0.0, "slow inward current activation", 1},
};
const hs_model hs_model_bueno_orovio = {
    .name = "bueno_orovio",
    .summary = "minimal ventricular model: potential u, gates v, w, s; presets epi, endo, mid, pb, tnnp",
    .reference = "Bueno-Orovio, Cherry & Fenton 2008, J. Theor. Biol. 253:544-560 (eqs. 1-13, Table 1)",
    .id = HS_MODEL_ID_bueno_orovio,
    .n_params = HS_BO_N_PARAMS,
    .params = hs_bo_params,
    .n_vars = HS_MODEL_NVARS_bueno_orovio,
    .vars = hs_bo_vars,
    .potential_name = "u",
    .potential_unit = "1",
    .potential_rest = 0.0,
    .mv_scale = 85.7,
    .mv_offset = -84.0,
    .time_unit_default = 1.0,
    .d_default = {0.005133, 0.02488}, /* 0.6 / 0.3 m/s at h = 0.5 mm, dt = 0.05 ms (tune-cv; docs/config.md) */
    .d_default_split = {0.03101, 0.05273}, /* the same under splitting (tune-cv; docs/config.md) */
    .dt_max = hs_bo_dt_max,
    .has_gates = 1,
    .n_presets = (int)(sizeof hs_bo_presets / sizeof hs_bo_presets[0]),
    .presets = hs_bo_presets,
    .schemes = HS_MODEL_SCHEME_NEWTON | HS_MODEL_SCHEME_SPLITTING,
};
#undef HS_BO_SRC
#endif

#endif
