/**
 * @file hs_conductivity.h
 * @brief Conductivities in S/m (as openCARP and Chaste take them) and the monodomain diffusion
 * coefficient D in mm^2/ms that heartsim solves with.
 *
 * The monodomain equation chi C_m dV/dt = div(sigma_m grad V) - chi I_ion, divided by chi C_m, is
 * dV/dt = div(D grad V) - I_ion/C_m with D = sigma_m / (chi C_m). With sigma in S/m, chi in 1/cm and
 * C_m in uF/cm^2:
 *   chi [1/cm] = 100 chi m^-1,  C_m [uF/cm^2] = 1e-6 F / 1e-4 m^2 = 1e-2 C_m F/m^2,
 *   so chi C_m (the numbers in those units) is chi C_m F/m^3 in SI, and
 *   D = sigma / (chi C_m) S m^2 / F = m^2/s (S/F = 1/s);
 *   1 m^2/s = 1e6 mm^2 / 1e3 ms = 1e3 mm^2/ms, so
 *   D [mm^2/ms] = 1000 sigma [S/m] / (chi [1/cm] C_m [uF/cm^2]).
 * Check: sigma = 0.17 S/m, chi = 1400/cm, C_m = 1 uF/cm^2: chi C_m = 140000 m^-1 x 0.01 F/m^2 =
 * 1400 F/m^3, D = 0.17/1400 m^2/s = 1.214e-4 m^2/s = 0.1214 mm^2/ms (docs/config.md).
 *
 * Monodomain from the bidomain's two media, per direction: the harmonic mean
 * sigma_m = sigma_i sigma_e / (sigma_i + sigma_e) (equal speeds of a plane wave along that axis).
 * Header-only.
 */
#ifndef HS_CONDUCTIVITY_H
#define HS_CONDUCTIVITY_H

/** mm^2/ms per S/m at chi = 1/cm and C_m = 1 uF/cm^2 (see the file comment). */
#define HS_COND_D_PER_SIGMA 1000.0

/** @brief D in mm^2/ms of a monodomain conductivity @p sigma (S/m), @p chi (1/cm), @p c_m (uF/cm^2). */
static inline double hs_cond_d_from_sigma(double sigma, double chi, double c_m)
{
    return HS_COND_D_PER_SIGMA * sigma / (chi * c_m);
}

/** @brief The monodomain conductivity (S/m) of diffusion @p d (mm^2/ms): the inverse of hs_cond_d_from_sigma. */
static inline double hs_cond_sigma_from_d(double d, double chi, double c_m)
{
    return d * chi * c_m / HS_COND_D_PER_SIGMA;
}

/** @brief Monodomain conductivity of intracellular @p si and extracellular @p se (S/m): their harmonic
 *  mean si se / (si + se); @p se <= 0 means no extracellular value: @p si itself. */
static inline double hs_cond_monodomain(double si, double se)
{
    return se > 0.0 ? si * se / (si + se) : si;
}

#endif
