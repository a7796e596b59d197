/**
 * @file hs_tetgen.h
 * @brief C API of the TetGen bridge (meshes/tetgen_bridge.cpp, the only C++ in heartsim).
 */
#ifndef HS_TETGEN_H
#define HS_TETGEN_H

#include <stdint.h>

#include "hs_mesh.h"

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

#ifdef __cplusplus
}
#endif
#endif
