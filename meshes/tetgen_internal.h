/* Bridge entry points used inside meshes/ only (the public API is hs_tetgen.h). */
#ifndef HS_TETGEN_INTERNAL_H
#define HS_TETGEN_INTERNAL_H

#include "hs_tetgen.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief hs_tetgen_mesh_surface, but the surface triangles are the boundary faces of the result
 * (TetGen -Y: no Steiner points on the surface), for surfaces already triangulated at the target
 * edge length (the built-in LV). Without it TetGen treats every triangle edge of a curved surface
 * as a segment to protect and splits them again and again: the LV at h = 2 came out with 10x the
 * boundary triangles and 7x the volume elements asked for.
 */
hs_status hs_tetgen_mesh_surface_keep(const hs_surface *s, const hs_tetgen_opts *o,
                                      hs_mesh **out);

#ifdef __cplusplus
}
#endif
#endif
