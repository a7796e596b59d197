/**
 * @file hs_lv.h
 * @brief The built-in left ventricle (`mesh.source = "ellipsoid_lv"`): the truncated prolate
 * ellipsoid of the Land et al. 2015 cardiac mechanics benchmark (Proc. R. Soc. A 471:20150641,
 * problem 2/3 geometry), meshed by TetGen, with rule-based fibres and surface labels.
 *
 * Geometry (mm), long axis along z, apex at negative z, base plane z = z_base:
 *   endocardium  x^2/rs_endo^2 + y^2/rs_endo^2 + z^2/rl_endo^2 = 1   (rs 7, rl 17)
 *   epicardium   same with rs_epi, rl_epi                             (rs 10, rl 20)
 *   base         the annulus in the plane z = z_base between the two  (z_base 5)
 * Labels: 1 "endo", 2 "epi", 3 "base" on the boundary triangles.
 * Fibres (per element, at the centroid): transmural depth t in [0, 1] (0 endocardium, 1 epicardium)
 * from the confocal-free family rs(t) = rs_endo + t (rs_epi - rs_endo), rl(t) likewise, on which the
 * centroid lies; helix angle alpha(t) = helix_endo + t (helix_epi - helix_endo); fibre
 * f = cos(alpha) e_circ + sin(alpha) e_long, with e_circ the circumferential and e_long the
 * apex-to-base meridional unit tangents of that ellipsoid at the point (Land et al.'s rule).
 */
#ifndef HS_LV_H
#define HS_LV_H

#include "hs_mesh.h"
#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { HS_LV_ENDO = 1, HS_LV_EPI = 2, HS_LV_BASE = 3 };

typedef struct hs_lv_params {
    double rs_endo, rl_endo;   /**< endocardial short / long radius, mm (7, 17) */
    double rs_epi, rl_epi;     /**< epicardial short / long radius, mm (10, 20) */
    double z_base;             /**< base plane, mm (5) */
    double h;                  /**< target edge length, mm */
    double radius_edge;        /**< TetGen quality bound (1.414) */
    double min_dihedral_deg;   /**< TetGen dihedral bound, degrees (<= 0: default) */
    double helix_endo_deg;     /**< fibre helix angle at the endocardium (+60) */
    double helix_epi_deg;      /**< at the epicardium (-60) */
} hs_lv_params;

/** @brief The benchmark's values with edge length h. */
void hs_lv_params_default(hs_lv_params *p, double h);

/**
 * @brief Build the LV: surface with labels -> TetGen (edge length h) -> mesh with fibres set by the
 * rule above and labels endo/epi/base named. @param[out] out new mesh.
 */
hs_status hs_mesh_create_ellipsoid_lv(const hs_lv_params *p, hs_mesh **out);

/** @brief Analytic volume of the wall (epi half-ellipsoid cap minus endo cap, truncated at z_base). */
double hs_lv_wall_volume(const hs_lv_params *p);

/** @brief Assign the rule-based fibres to every element of @p m (any mesh of that geometry). */
hs_status hs_lv_set_fibers(hs_mesh *m, const hs_lv_params *p);

/** @brief Transmural depth t in [0,1] of point x (clamped), as used by the fibre rule. */
double hs_lv_transmural(const hs_lv_params *p, const double x[3]);

#ifdef __cplusplus
}
#endif
#endif
