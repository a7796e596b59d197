/**
 * @file hs_ap_model.h
 * @brief Aliev-Panfilov source terms, their derivatives, and the local Newton iteration for r.
 *
 * Seed 002 (Wong, Kuhl, Darve), section 2, eqs. (4), (5), (7) and Table 1. Everything here is in
 * model units: phi dimensionless (V_mV = 100 phi - 80), time in units of hs_ap_params.time_unit ms.
 *   f_phi = c phi (phi - alpha)(1 - phi) - r phi
 *   f_r   = (gamma + mu1 r / (mu2 + phi)) (-r - c phi (phi - b - 1))
 * The local problem at an integration point is backward Euler for r with phi fixed:
 *   R_r(r) = (r - r_n)/dt - f_r(phi, r) = 0,   K_r = dR_r/dr = 1/dt - df_r/dr,
 * and the implicit function theorem gives dr/dphi = (df_r/dphi) / K_r, which enters the consistent
 * global tangent d f_phi/d phi = df_phi/dphi + df_phi/dr * dr/dphi (the global-local split).
 */
#ifndef HS_AP_MODEL_H
#define HS_AP_MODEL_H

#include <math.h>

#include "hs_hd.h"

/** Aliev-Panfilov parameters (Goktepe & Kuhl 2009 defaults in docs/config.md). */
typedef struct hs_ap_params {
    double c, alpha, gamma, b, mu1, mu2;
    int recovery; /**< 0: r is held at 0 (pure cubic reaction front, analytic speed known) */
} hs_ap_params;

/** Largest local Newton iterations; quadratic convergence needs 3-5 from the previous iterate. */
#define HS_AP_LOCAL_MAX_ITER 25

HS_HD double hs_ap_fphi(const hs_ap_params *p, double phi, double r)
{
    return p->c * phi * (phi - p->alpha) * (1.0 - phi) - r * phi;
}

/** d f_phi / d phi at fixed r. */
HS_HD double hs_ap_dfphi_dphi(const hs_ap_params *p, double phi, double r)
{
    return p->c * (-3.0 * phi * phi + 2.0 * (1.0 + p->alpha) * phi - p->alpha) - r;
}

HS_HD double hs_ap_fr(const hs_ap_params *p, double phi, double r)
{
    double eps = p->gamma + p->mu1 * r / (p->mu2 + phi);
    return eps * (-r - p->c * phi * (phi - p->b - 1.0));
}

HS_HD double hs_ap_dfr_dr(const hs_ap_params *p, double phi, double r)
{
    double q = p->mu2 + phi;
    double eps = p->gamma + p->mu1 * r / q;
    double g = -r - p->c * phi * (phi - p->b - 1.0);
    return (p->mu1 / q) * g - eps;
}

HS_HD double hs_ap_dfr_dphi(const hs_ap_params *p, double phi, double r)
{
    double q = p->mu2 + phi;
    double eps = p->gamma + p->mu1 * r / q;
    double g = -r - p->c * phi * (phi - p->b - 1.0);
    return (-p->mu1 * r / (q * q)) * g + eps * (-p->c * (2.0 * phi - p->b - 1.0));
}

/**
 * @brief Local Newton for r at one integration point (seed 002 Table 1, inner loop).
 * @param[in] p parameters; @param[in] phi potential at the point; @param[in] r_n converged r of the
 * previous step; @param[in] dt step in model units; @param[in,out] r initial guess in, solution out;
 * @param[out] drdphi dr/dphi for the consistent tangent.
 * @return iterations used, or -1 when it did not converge (non-finite or HS_AP_LOCAL_MAX_ITER hit).
 * Converged when |dt * R_r| <= 1e-14 * max(1, |r|), i.e. r is exact to round-off.
 */
HS_HD int hs_ap_local_newton(const hs_ap_params *p, double phi, double r_n, double dt, double *r,
                             double *drdphi)
{
    if (!p->recovery) {
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

/**
 * @brief Largest dt (model units) for which 1/dt - d f_phi/d phi > 0 for every phi at r = 0:
 * d f_phi/d phi peaks at phi = (1 + alpha)/3 with value c((1 + alpha)^2/3 - alpha), so the
 * one-point element tangent V/16 (1/dt - f') 1 1^T stays positive semi-definite.
 */
HS_HD double hs_ap_dt_max(const hs_ap_params *p)
{
    double fmax_ = p->c * ((1.0 + p->alpha) * (1.0 + p->alpha) / 3.0 - p->alpha);
    return fmax_ > 0.0 ? 1.0 / fmax_ : INFINITY;
}

#endif
