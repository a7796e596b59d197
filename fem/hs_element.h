/**
 * @file hs_element.h
 * @brief Element residual and consistent tangent of the monodomain P1 element with one
 * integration point (seed 002 eq. (8), Table 1), for any ionic model (fem/models/). Shared
 * verbatim by the CPU reference and the GPU element kernel.
 *
 * With N_a = 1/4 at the centroid, weight V, u_c = mean of the nodal potentials, in model units:
 *   R_a = V/4 [ (u_c - u_n,c)/dt - f(u_c, s) - stim ] + sum_b Kd_ab u_b
 *   K_ab = Kd_ab + V/16 [ 1/dt - df/du ]
 * where Kd_ab = V grad N_a . D grad N_b (D in mm^2 per model time unit), s are the model's
 * variables at the point, updated by the model's local backward-Euler problem at u_c, and
 * df/du = ∂f/∂u + ∂f/∂s ds/du is the model's consistent derivative (hs_model_point). K is
 * symmetric by construction.
 */
#ifndef HS_ELEMENT_H
#define HS_ELEMENT_H

#include "hs_model_point.h"
#include "hs_p1.h"

/** The potential at the centroid, the element's one integration point: the mean of its nodes. */
HS_HD double hs_element_centroid(const double v[4]) { return 0.25 * (v[0] + v[1] + v[2] + v[3]); }

/** The element's two scalars from the model's ionic term f and its consistent derivative df at the
 *  centroid (u = phic, u_n = phinc): rm = V/4 ((u - u_n)/dt - f - stim), km = V/16 (1/dt - df). */
HS_HD void hs_element_scalars(double dt, double vol, double phic, double phinc, double stim, double f, double df,
                              double *km, double *rm)
{
    *rm = 0.25 * vol * ((phic - phinc) / dt - f - stim);
    *km = vol / 16.0 * (1.0 / dt - df);
}

/**
 * @brief The element's two scalars (the "split" form, issue 17): with one integration point the
 * tangent is K_e = Kd_e + km 11^T and the residual R_e = Kd_e u_e + rm 1, so an element contributes
 *   km = V/16 [1/dt - df/du],   rm = V/4 [(u_c - u_n,c)/dt - f - stim]
 * besides its constant diffusion part. Runs the model's local update at the centroid.
 * @param[in] p model; @param[in] dt step (model units); @param[in] vol volume; @param[in] phi,phin
 * [4] nodal potentials now / previous step; @param[in] stim stimulus current (per model time unit);
 * @param[in] s_n [n_vars] converged variables of the previous step; @param[in,out] s [n_vars]
 * iterate in, updated out; @param[out] km,rm the scalars.
 * @return local iterations, or -1 when the local problem failed.
 */
HS_HD int hs_element_point(const hs_model_params *p, double dt, double vol, const double phi[4],
                           const double phin[4], double stim, const double *s_n, double *s, double *km,
                           double *rm)
{
    double phic = hs_element_centroid(phi), phinc = hs_element_centroid(phin);
    double f = 0.0, df = 0.0;
    int it = hs_model_point(p, phinc, phic, dt, s_n, s, &f, &df);
    hs_element_scalars(dt, vol, phic, phinc, stim, f, df, km, rm);
    return it;
}

/** The full element from its two scalars: Ke = Kd_e + km 11^T, Re = Kd_e phi + rm 1.
 *  @param[in] kd [10] packed; @param[in] phi [4]; @param[out] ke [4][4] row-major; @param[out] re [4]. */
HS_HD void hs_element_full(double km, double rm, const double kd[10], const double phi[4], double ke[16], double re[4])
{
    for (int a = 0; a < 4; ++a) {
        double acc = rm;
        for (int b = 0; b < 4; ++b) {
            double kab = kd[hs_sym4_index(a, b)];
            acc += kab * phi[b];
            ke[4 * a + b] = kab + km;
        }
        re[a] = acc;
    }
}

/**
 * @brief Evaluate one element: its full matrix and residual (the "full" assembly, seed 002).
 * @param[in] kd [10] packed diffusion stiffness; @param[out] ke [4][4] row-major; @param[out] re
 * [4]; the other parameters as hs_element_point.
 * @return local iterations, or -1 when the local problem failed.
 */
HS_HD int hs_element_eval(const hs_model_params *p, double dt, double vol, const double kd[10],
                          const double phi[4], const double phin[4], double stim, const double *s_n,
                          double *s, double ke[16], double re[4])
{
    double km = 0.0, rm = 0.0;
    int it = hs_element_point(p, dt, vol, phi, phin, stim, s_n, s, &km, &rm);
    hs_element_full(km, rm, kd, phi, ke, re);
    return it;
}

#endif
