/**
 * @file mitchell_schaeffer.h
 * @brief The Mitchell-Schaeffer model (C. C. Mitchell, D. G. Schaeffer, "A two-current model for the
 * dynamics of cardiac membrane", Bull. Math. Biol. 65 (2003) 767-793): a normalised potential
 * v in [0, 1] (V_mV = 100 v - 80 here, as for Aliev-Panfilov) and one gate h at the integration
 * point, time in ms:
 *   dv/dt = h v^2 (1 - v) / tau_in - v / tau_out + stim
 *   dh/dt = (1 - h) / tau_open   if v < v_gate,     - h / tau_close   otherwise.
 * The paper's values: tau_in 0.3, tau_out 6, tau_open 120, tau_close 150 ms, v_gate 0.13; its
 * estimate of the longest action potential is APD_max = tau_close ln(tau_out / (4 tau_in)) (241 ms).
 *
 * In the implicit scheme: the gate's backward-Euler step is linear in h, so the local update is
 * closed-form (model.gates = "newton"; "rush_larsen" takes the exponential update instead). The
 * gate's right-hand side switches at v_gate (a Heaviside function of v). The switch is evaluated at
 * the step's starting potential v_n, as in bueno_orovio.h: within a step the branch is fixed, the
 * residual is smooth in v and dh/dv = 0 exactly, so the tangent df/dv = h (2v - 3v^2)/tau_in -
 * 1/tau_out is exact and Newton quadratic. (Evaluated at the Newton iterate instead, the O(dt) jump of
 * h between the branches can leave a step without a root: in a 2D slab at dt = 0.2 ms, tau_open =
 * tau_close = 30 ms, Newton stalled at |R| = 3.25e-6.) The switch then acts up to one step late, an
 * O(dt) shift of the gate's switching time, the order of backward Euler itself.
 */
#ifndef HS_MODEL_MITCHELL_SCHAEFFER_H
#define HS_MODEL_MITCHELL_SCHAEFFER_H

#include <math.h>

#include "hs_hd.h"
#include "hs_model.h"

/** Integration-point variables of this model (its descriptor's n_vars; the CUDA element kernel is
 *  compiled per model with it: backends/cuda/element.cu). */
#define HS_MODEL_NVARS_mitchell_schaeffer 1

/** Positions of the parameters in hs_model_params.v (the order of the table below). */
enum { HS_MS_TAU_IN, HS_MS_TAU_OUT, HS_MS_TAU_OPEN, HS_MS_TAU_CLOSE, HS_MS_V_GATE, HS_MS_N_PARAMS };
/** Its parameter count (the CUDA kernels take this many values by value). */
#define HS_MODEL_NPARAMS_mitchell_schaeffer HS_MS_N_PARAMS

/** The ionic term: inward h v^2 (1 - v) / tau_in plus outward -v / tau_out. */
HS_HD double hs_ms_f(const double *p, double v, double h)
{
    return h * v * v * (1.0 - v) / p[HS_MS_TAU_IN] - v / p[HS_MS_TAU_OUT];
}

/** d f / d v at fixed h. */
HS_HD double hs_ms_df_dv(const double *p, double v, double h)
{
    return h * (2.0 * v - 3.0 * v * v) / p[HS_MS_TAU_IN] - 1.0 / p[HS_MS_TAU_OUT];
}

/** The gate over dt: dh/dt = (h_inf - h)/tau with (h_inf, tau) = (1, tau_open) when @p v is below
 *  v_gate, (0, tau_close) at or above (the caller passes the step's starting potential); backward Euler (exact solution of the linear local problem)
 *  or Rush-Larsen. Neither branch depends on v, so dh/dv = 0 (see the file comment). */
HS_HD double hs_ms_gate(const double *p, int gates, double v, double h_n, double dt)
{
    const int open = v < p[HS_MS_V_GATE];
    const double h_inf = open ? 1.0 : 0.0, tau = open ? p[HS_MS_TAU_OPEN] : p[HS_MS_TAU_CLOSE];
    if (gates == HS_GATES_RUSH_LARSEN) return h_inf + (h_n - h_inf) * exp(-dt / tau);
    return (h_n + dt * h_inf / tau) / (1.0 + dt / tau);
}

/** The model interface's local update (hs_model_point): s = {h}; dh/dv = 0 (see the file comment). */
HS_HD int hs_model_point_mitchell_schaeffer(const double *p, int gates, double u_n, double u, double dt,
                                            const double *s_n, double *s, double *f, double *dfdu)
{
    s[0] = hs_ms_gate(p, gates, u_n, s_n[0], dt); /* the switch at the step's start (file comment) */
    *f = hs_ms_f(p, u, s[0]);
    *dfdu = hs_ms_df_dv(p, u, s[0]);
    return isfinite(s[0]) && isfinite(*f) ? 1 : -1;
}

/** The nodal form (fem/models/hs_model_ode.h), for the splitting scheme: s = {h}, a gate whose
 *  (h_inf, tau) switch at v_gate (evaluated at the substep's starting v). */
HS_HD void hs_model_rhs_mitchell_schaeffer(const double *p, double u, const double *s, double *f, double *a,
                                           double *tau)
{
    const int open = u < p[HS_MS_V_GATE];
    *f = hs_ms_f(p, u, s[0]);
    a[0] = open ? 1.0 : 0.0;
    tau[0] = open ? p[HS_MS_TAU_OPEN] : p[HS_MS_TAU_CLOSE];
}

/**
 * @brief Largest dt (model units, ms) for which 1/dt - df/dv > 0 for every v and h in [0, 1]:
 * 2v - 3v^2 peaks at v = 1/3 with 1/3, so df/dv <= 1/(3 tau_in) - 1/tau_out.
 */
static inline double hs_ms_dt_max(const double *p)
{
    double fmax_ = 1.0 / (3.0 * p[HS_MS_TAU_IN]) - 1.0 / p[HS_MS_TAU_OUT];
    return fmax_ > 0.0 ? 1.0 / fmax_ : INFINITY;
}

#ifdef HS_MODEL_DEFINE
static const hs_model_param hs_ms_params[HS_MS_N_PARAMS] = {
    {"tau_in", HS_PARAM_REAL, "ms", 0.3, HS_PARAM_MIN_OPEN, 0, 0,
     "time constant of the inward current h v^2 (1 - v) / tau_in (Mitchell & Schaeffer 2003)"},
    {"tau_out", HS_PARAM_REAL, "ms", 6.0, HS_PARAM_MIN_OPEN, 0, 0,
     "time constant of the outward current -v / tau_out (Mitchell & Schaeffer 2003)"},
    {"tau_open", HS_PARAM_REAL, "ms", 120.0, HS_PARAM_MIN_OPEN, 0, 0,
     "gate opening time constant, v < v_gate (Mitchell & Schaeffer 2003)"},
    {"tau_close", HS_PARAM_REAL, "ms", 150.0, HS_PARAM_MIN_OPEN, 0, 0,
     "gate closing time constant, v >= v_gate (Mitchell & Schaeffer 2003)"},
    {"v_gate", HS_PARAM_REAL, "1", 0.13, HS_PARAM_MIN_OPEN | HS_PARAM_MAX_OPEN, 0, 1,
     "gate switch potential (normalised; Mitchell & Schaeffer 2003)"},
};
static const hs_model_var hs_ms_vars[] = {
    {"h", "1", HS_AT_IP, 1.0, "gate of the inward current (1: open, at rest)", 1},
};
const hs_model hs_model_mitchell_schaeffer = {
    .name = "mitchell_schaeffer",
    .summary = "two-current model: normalised potential v, one gate h (Heaviside switch at v_gate)",
    .reference = "Mitchell & Schaeffer 2003, Bull. Math. Biol. 65:767-793",
    .id = HS_MODEL_ID_mitchell_schaeffer,
    .n_params = HS_MS_N_PARAMS,
    .params = hs_ms_params,
    .n_vars = HS_MODEL_NVARS_mitchell_schaeffer,
    .vars = hs_ms_vars,
    .potential_name = "phi",
    .potential_unit = "1",
    .potential_rest = 0.0,
    .mv_scale = 100.0,
    .mv_offset = -80.0,
    .time_unit_default = 1.0,
    .d_default = {0.06169, 0.2173}, /* 0.6 / 0.3 m/s at h = 0.5 mm, dt = 0.1 ms (tune-cv; docs/config.md) */
    .d_default_split = {0.07367, 0.2410}, /* the same under splitting (tune-cv; docs/config.md) */
    .dt_max = hs_ms_dt_max,
    .has_gates = 1,
    .schemes = HS_MODEL_SCHEME_NEWTON | HS_MODEL_SCHEME_SPLITTING,
};
#endif

#endif
