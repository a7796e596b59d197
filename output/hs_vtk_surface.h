/**
 * @file hs_vtk_surface.h
 * @brief A mesh on its own, as `heartsim mesh` writes it: the volume with its region, fibre and
 * per-node label arrays (legacy VTK unstructured grid), and the labelled boundary triangles
 * (legacy VTK polydata). Binary, big-endian, written to a temporary name and renamed into place.
 */
#ifndef HS_VTK_SURFACE_H
#define HS_VTK_SURFACE_H

#include <stdint.h>

#include "hs_mesh.h"
#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Per-node label: the largest marker among the labelled boundary triangles touching the
 * node (so a rim where endo meets base reads as base), 0 for nodes on no labelled triangle.
 * @param[in] m mesh; @param[out] label [n_nodes].
 */
void hs_mesh_node_labels(const hs_mesh *m, int32_t *label);

/**
 * @brief Write the volume mesh: POINTS, tetrahedra; CELL_DATA "region" (int) and "fiber" (vectors,
 * when the mesh has fibres); POINT_DATA "label" (int, when @p node_label is given) and
 * "node_orig" (int: the node's index in the source file, the numbering node-list stimuli use).
 * @param[in] path file; @param[in] m mesh; @param[in] node_label [n_nodes] or NULL.
 */
hs_status hs_vtk_write_mesh(const char *path, const hs_mesh *m, const int32_t *node_label);

/**
 * @brief Write the boundary triangles (mesh->bface) as polydata: the points they use, POLYGONS,
 * CELL_DATA "label" (int marker) and POINT_DATA "node_orig" (source numbering).
 * @param[in] path file; @param[in] m mesh (n_bfaces may be 0: an empty polydata is written).
 */
hs_status hs_vtk_write_surface(const char *path, const hs_mesh *m);

#ifdef __cplusplus
}
#endif
#endif
