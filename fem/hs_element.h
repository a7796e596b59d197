/**
 * @file hs_element.h
 * @brief Element residual and consistent tangent of the Aliev-Panfilov monodomain P1 element with
 * one integration point (seed 002 eq. (8), Table 1). Shared verbatim by the CPU reference and the
 * GPU element kernel.
 *
 * With N_a = 1/4 at the centroid, weight V, phi_c = mean of the nodal phi, in model units:
 *   R_a = V/4 [ (phi_c - phi_n,c)/dt - f_phi(phi_c, r) - s ] + sum_b Kd_ab phi_b
 *   K_ab = Kd_ab + V/16 [ 1/dt - df_phi/dphi - (df_phi/dr)(dr/dphi) ]
 * where Kd_ab = V grad N_a . D grad N_b (D in mm^2 per model time unit) and r solves the local
 * backward-Euler problem at phi_c (hs_ap_local_newton). K is symmetric by construction.
 */
#ifndef HS_ELEMENT_H
#define HS_ELEMENT_H

#include "hs_ap_model.h"
#include "hs_p1.h"

/**
 * @brief Evaluate one element.
 * @param[in] p model; @param[in] dt step (model units); @param[in] vol volume; @param[in] kd [10]
 * packed diffusion stiffness; @param[in] phi,phin [4] nodal potentials now / previous step;
 * @param[in] s stimulus current (per model time unit); @param[in] r_n converged r of the previous
 * step; @param[in,out] r iterate in, updated r out; @param[out] ke [4][4] row-major; @param[out] re [4].
 * @return local Newton iterations, or -1 when the local problem failed.
 */
HS_HD int hs_element_eval(const hs_ap_params *p, double dt, double vol, const double kd[10],
                          const double phi[4], const double phin[4], double s, double r_n,
                          double *r, double ke[16], double re[4])
{
    double phic = 0.25 * (phi[0] + phi[1] + phi[2] + phi[3]);
    double phinc = 0.25 * (phin[0] + phin[1] + phin[2] + phin[3]);
    double drdphi = 0.0;
    int it = hs_ap_local_newton(p, phic, r_n, dt, r, &drdphi);
    double f = hs_ap_fphi(p, phic, *r);
    double df = hs_ap_dfphi_dphi(p, phic, *r) - phic * drdphi; /* df_phi/dr = -phi */
    double rm = 0.25 * vol * ((phic - phinc) / dt - f - s);
    double km = vol / 16.0 * (1.0 / dt - df);
    for (int a = 0; a < 4; ++a) {
        double acc = rm;
        for (int b = 0; b < 4; ++b) {
            double kab = kd[hs_sym4_index(a, b)];
            acc += kab * phi[b];
            ke[4 * a + b] = kab + km;
        }
        re[a] = acc;
    }
    return it;
}

#endif
