/**
 * @file aliev_panfilov.h
 * @brief The Aliev-Panfilov model (Aliev & Panfilov 1996, in the form of Goktepe & Kuhl 2009):
 * seed 002 (Wong, Kuhl, Darve) section 2, eqs. (4), (5), (7) and Table 1.
 *
 * The potential phi is dimensionless (V_mV = 100 phi - 80), time in units of model.time_unit
 * (12.9 ms by default). One state variable, the recovery r, at the integration point:
 *   f_phi = c phi (phi - alpha)(1 - phi) - r phi
 *   f_r   = (gamma + mu1 r / (mu2 + phi)) (-r - c phi (phi - b - 1))
 * The local problem is backward Euler for r with phi fixed:
 *   R_r(r) = (r - r_n)/dt - f_r(phi, r) = 0,   K_r = dR_r/dr = 1/dt - df_r/dr,
 * solved by Newton; the implicit function theorem gives dr/dphi = (df_r/dphi) / K_r, which enters
 * the consistent tangent d f_phi/d phi = df_phi/dphi + df_phi/dr * dr/dphi (the global-local split).
 */
#ifndef HS_MODEL_ALIEV_PANFILOV_H
#define HS_MODEL_ALIEV_PANFILOV_H

#include <math.h>

#include "hs_hd.h"
#include "hs_model.h"

/** Integration-point variables of this model (its descriptor's n_vars; the CUDA element kernel is
 *  compiled per model with it: backends/cuda/element.cu). */
#define HS_MODEL_NVARS_aliev_panfilov 1

/** Positions of the parameters in hs_model_params.v (the order of the table below). */
enum { HS_AP_C, HS_AP_ALPHA, HS_AP_GAMMA, HS_AP_B, HS_AP_MU1, HS_AP_MU2, HS_AP_RECOVERY, HS_AP_N_PARAMS };
/** Its parameter count (the CUDA kernels take this many values by value). */
#define HS_MODEL_NPARAMS_aliev_panfilov HS_AP_N_PARAMS

/** Largest local Newton iterations; quadratic convergence needs 3-5 from the previous iterate. */
#define HS_AP_LOCAL_MAX_ITER 25

HS_HD double hs_ap_fphi(const double *p, double phi, double r)
{
    return p[HS_AP_C] * phi * (phi - p[HS_AP_ALPHA]) * (1.0 - phi) - r * phi;
}

/** d f_phi / d phi at fixed r. */
HS_HD double hs_ap_dfphi_dphi(const double *p, double phi, double r)
{
    return p[HS_AP_C] * (-3.0 * phi * phi + 2.0 * (1.0 + p[HS_AP_ALPHA]) * phi - p[HS_AP_ALPHA]) - r;
}

HS_HD double hs_ap_fr(const double *p, double phi, double r)
{
    double eps = p[HS_AP_GAMMA] + p[HS_AP_MU1] * r / (p[HS_AP_MU2] + phi);
    return eps * (-r - p[HS_AP_C] * phi * (phi - p[HS_AP_B] - 1.0));
}

HS_HD double hs_ap_dfr_dr(const double *p, double phi, double r)
{
    double q = p[HS_AP_MU2] + phi;
    double eps = p[HS_AP_GAMMA] + p[HS_AP_MU1] * r / q;
    double g = -r - p[HS_AP_C] * phi * (phi - p[HS_AP_B] - 1.0);
    return (p[HS_AP_MU1] / q) * g - eps;
}

HS_HD double hs_ap_dfr_dphi(const double *p, double phi, double r)
{
    double q = p[HS_AP_MU2] + phi;
    double eps = p[HS_AP_GAMMA] + p[HS_AP_MU1] * r / q;
    double g = -r - p[HS_AP_C] * phi * (phi - p[HS_AP_B] - 1.0);
    return (-p[HS_AP_MU1] * r / (q * q)) * g + eps * (-p[HS_AP_C] * (2.0 * phi - p[HS_AP_B] - 1.0));
}

/**
 * @brief Local Newton for r at one integration point (seed 002 Table 1, inner loop).
 * @param[in] p parameters; @param[in] phi potential at the point; @param[in] r_n converged r of the
 * previous step; @param[in] dt step in model units; @param[in,out] r initial guess in, solution out;
 * @param[out] drdphi dr/dphi for the consistent tangent.
 * @return iterations used, or -1 when it did not converge (non-finite or HS_AP_LOCAL_MAX_ITER hit).
 * Converged when |dt * R_r| <= 1e-14 * max(1, |r|), i.e. r is exact to round-off.
 */
HS_HD int hs_ap_local_newton(const double *p, double phi, double r_n, double dt, double *r, double *drdphi)
{
    if (p[HS_AP_RECOVERY] == 0.0) {
        *r = 0.0;
        *drdphi = 0.0;
        return 0;
    }
    double rr = *r;
    int it;
    for (it = 0; it < HS_AP_LOCAL_MAX_ITER; ++it) {
        double res = (rr - r_n) - dt * hs_ap_fr(p, phi, rr); /* dt * R_r */
        double tol = 1e-14 * fmax(1.0, fabs(rr));
        if (fabs(res) <= tol) break;
        double kr = 1.0 - dt * hs_ap_dfr_dr(p, phi, rr); /* dt * K_r */
        double d = res / kr;
        rr -= d;
        if (!isfinite(rr)) return -1;
        if (fabs(d) <= 1e-16 * fmax(1.0, fabs(rr))) { ++it; break; }
    }
    if (it == HS_AP_LOCAL_MAX_ITER) return -1;
    *r = rr;
    *drdphi = dt * hs_ap_dfr_dphi(p, phi, rr) / (1.0 - dt * hs_ap_dfr_dr(p, phi, rr));
    return it;
}

/** The model interface's local update (hs_model_point): s = {r}. df_phi/dr = -phi. r is no gate (its
 *  equation is nonlinear in r), so the gate scheme does not apply: always the local Newton. */
HS_HD int hs_model_point_aliev_panfilov(const double *p, int gates, double u_n, double u, double dt,
                                        const double *s_n, double *s, double *f, double *dfdu)
{
    (void)gates, (void)u_n;
    double drdphi = 0.0;
    int it = hs_ap_local_newton(p, u, s_n[0], dt, &s[0], &drdphi);
    *f = hs_ap_fphi(p, u, s[0]);
    *dfdu = hs_ap_dfphi_dphi(p, u, s[0]) - u * drdphi;
    return it;
}

/** The nodal form (fem/models/hs_model_ode.h), for the splitting scheme: s = {r}; r is no gate
 *  (its equation is nonlinear in r), so a[0] is dr/dt (0 with model.recovery = false: r stays 0). */
HS_HD void hs_model_rhs_aliev_panfilov(const double *p, double u, const double *s, double *f, double *a, double *tau)
{
    *f = hs_ap_fphi(p, u, s[0]);
    a[0] = p[HS_AP_RECOVERY] != 0.0 ? hs_ap_fr(p, u, s[0]) : 0.0;
    tau[0] = 0.0;
}

/**
 * @brief Largest dt (model units) for which 1/dt - d f_phi/d phi > 0 for every phi at r = 0:
 * d f_phi/d phi peaks at phi = (1 + alpha)/3 with value c((1 + alpha)^2/3 - alpha), so the
 * one-point element tangent V/16 (1/dt - f') 1 1^T stays positive semi-definite. For r >= 0 the
 * -r term only lowers df_phi/dphi; the consistent term phi dr/dphi is not covered by the bound.
 */
static inline double hs_ap_dt_max(const double *p)
{
    double fmax_ = p[HS_AP_C] * ((1.0 + p[HS_AP_ALPHA]) * (1.0 + p[HS_AP_ALPHA]) / 3.0 - p[HS_AP_ALPHA]);
    return fmax_ > 0.0 ? 1.0 / fmax_ : INFINITY;
}

#ifdef HS_MODEL_DEFINE
static const hs_model_param hs_ap_params[HS_AP_N_PARAMS] = {
    {"c", HS_PARAM_REAL, "1", 8.0, HS_PARAM_MIN_OPEN, 0, 0,
     "excitation rate c of f_phi = c phi (phi - alpha)(1 - phi) - r phi"},
    {"alpha", HS_PARAM_REAL, "1", 0.01, HS_PARAM_MIN_OPEN | HS_PARAM_MAX_OPEN, 0, 1,
     "excitation threshold alpha (normalised potential)"},
    {"gamma", HS_PARAM_REAL, "1", 0.002, HS_PARAM_MIN_CLOSED, 0, 0, "recovery rate at rest gamma"},
    {"b", HS_PARAM_REAL, "1", 0.15, HS_PARAM_MIN_CLOSED, 0, 0, "recovery parameter b of f_r"},
    {"mu1", HS_PARAM_REAL, "1", 0.2, HS_PARAM_MIN_CLOSED, 0, 0,
     "recovery parameter mu1 (gamma + mu1 r / (mu2 + phi))"},
    {"mu2", HS_PARAM_REAL, "1", 0.3, HS_PARAM_MIN_OPEN, 0, 0, "recovery parameter mu2"},
    {"recovery", HS_PARAM_SWITCH, "-", 1.0, 0, 0, 0,
     "evolve the recovery variable r (false: r = 0, pure cubic reaction front)"},
};
static const hs_model_var hs_ap_vars[] = {
    {"r", "1", HS_AT_IP, 0.0, "recovery variable", 0},
};
const hs_model hs_model_aliev_panfilov = {
    .name = "aliev_panfilov",
    .summary = "two-variable phenomenological model: normalised potential phi, recovery r",
    .reference = "Aliev & Panfilov 1996; Goktepe & Kuhl 2009; seed 002 sec. 2 (eqs. 4-7, Table 1)",
    .id = HS_MODEL_ID_aliev_panfilov,
    .n_params = HS_AP_N_PARAMS,
    .params = hs_ap_params,
    .n_vars = HS_MODEL_NVARS_aliev_panfilov,
    .vars = hs_ap_vars,
    .potential_name = "phi",
    .potential_unit = "1",
    .potential_rest = 0.0,
    .mv_scale = 100.0,
    .mv_offset = -80.0,
    .time_unit_default = 12.9,
    .d_default = {0.3, 0.9}, /* 0.598 and 0.299 m/s: the cubic front's speed (docs/config.md) */
    .d_default_split = {0.3047, 0.9429}, /* 0.6 / 0.3 m/s under splitting at h = 0.5 mm, dt = 0.1 ms (tune-cv) */
    .dt_max = hs_ap_dt_max,
    .schemes = HS_MODEL_SCHEME_NEWTON | HS_MODEL_SCHEME_SPLITTING,
};
#endif

#endif
