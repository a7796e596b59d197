/**
 * @file hs_tetgen.h
 * @brief C API of the TetGen bridge (meshes/tetgen_bridge.cpp, the only C++ in heartsim).
 */
#ifndef HS_TETGEN_H
#define HS_TETGEN_H

#include <stdint.h>

#include "hs_mesh.h"
#include "hs_surface.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A piecewise linear complex with triangular or quadrilateral facets, one polygon each. */
typedef struct hs_plc {
    int32_t n_points;
    const double *xyz;        /**< [n_points][3], borrowed */
    int32_t n_facets;
    const int32_t *facet_ptr; /**< [n_facets+1] offsets into facet_idx, borrowed */
    const int32_t *facet_idx; /**< 0-based point indices of each facet polygon, borrowed */
} hs_plc;

/**
 * @brief Tetrahedralise a closed PLC with TetGen ("p" + quality "q<ratio>" + max volume "a<vol>").
 * @param[in] plc surface; @param[in] radius_edge quality bound (<= 0: none);
 * @param[in] max_volume largest tet volume in mm^3 (<= 0: none); @param[out] out new mesh.
 * TetGen's own failures (self-intersections, open surface) come back as HS_ERR_MESH with its reason.
 */
hs_status hs_tetgen_mesh_plc(const hs_plc *plc, double radius_edge, double max_volume,
                             hs_mesh **out);

/** Quality and size bounds for hs_tetgen_mesh_surface (TetGen switches -q<ratio>/<angle>, -a<vol>). */
typedef struct hs_tetgen_opts {
    double radius_edge;      /**< radius-edge ratio bound (TetGen -q), <= 0: no quality refinement */
    double min_dihedral_deg; /**< minimum dihedral angle bound in degrees (second -q value), <= 0: TetGen's default */
    double max_volume;       /**< largest tet volume, mm^3 (-a), <= 0: none; regions may set their own */
    int verbose;             /**< 0: TetGen quiet (-Q) */
} hs_tetgen_opts;

/**
 * @brief Tetrahedralise a checked closed surface (hs_surface_check first) with TetGen: "p" (PLC),
 * "q" quality, "a" volume, "A" region attributes (elements get the attribute of their region
 * seed; 0 without seeds), facet markers kept: the boundary triangles of the result carry the facet
 * marker of the surface facet they lie on (mesh->bface, bface_label). Holes are honoured.
 * Self-intersecting input and TetGen's other refusals come back as HS_ERR_MESH with TetGen's reason
 * and, for intersections, the two facets' indices and a point of each when TetGen names them;
 * never a crash or hang. @param[out] out new mesh with positively oriented tets.
 */
hs_status hs_tetgen_mesh_surface(const hs_surface *s, const hs_tetgen_opts *o, hs_mesh **out);

/** @brief Regular-tetrahedron volume for edge length h: h^3 / (6 sqrt 2) (for -a from mesh.h). */
double hs_tetgen_volume_for_edge(double h);

#ifdef __cplusplus
}
#endif
#endif
