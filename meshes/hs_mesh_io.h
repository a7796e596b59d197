/**
 * @file hs_mesh_io.h
 * @brief Volume meshes users bring: legacy VTK unstructured grids, Gmsh .msh (v2 and v4 ASCII),
 * openCARP .pts/.elem/.lon, TetGen .node/.ele (hs_mesh_read_tetgen in hs_mesh.h).
 *
 * Coordinates are returned as in the file (apply mesh.scale afterwards: openCARP files are in um,
 * so scale 0.001 gives mm). Only tetrahedra become elements; lower-dimensional cells (vertices,
 * lines, triangles) are skipped except triangles carrying a label (Gmsh physical group, VTK cell
 * data), which become boundary faces. Other 3-D cells (hexahedra, prisms, pyramids) are refused,
 * naming the first one. Quadratic (10-node) tetrahedra are linearised (corner nodes kept, unused
 * mid-edge nodes dropped) when @p linearize is set, and refused with a message that says how to
 * accept them otherwise. Orientation is left as read; hs_mesh_check reports inverted elements
 * (readers may fix a consistently negative orientation and must say so via hs_log).
 * Errors (HS_ERR_MESH) name the file and line.
 */
#ifndef HS_MESH_IO_H
#define HS_MESH_IO_H

#include "hs_mesh.h"
#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Options shared by the volume readers. */
typedef struct hs_mesh_read_opts {
    int linearize; /**< 1: accept 10-node tets by dropping mid-edge nodes; 0: refuse them */
} hs_mesh_read_opts;

/**
 * @brief Legacy VTK (`# vtk DataFile Version` 2.0-5.1), DATASET UNSTRUCTURED_GRID, ASCII or BINARY
 * (big-endian), POINTS float/double; CELLS in the classic layout and in 5.1's OFFSETS/CONNECTIVITY
 * layout; cell types 10 (tet) and 24 (quadratic tet); CELL_DATA arrays kept: an integer scalar
 * named region/regions/tag/material/elemTag (region markers) and a 3-component vector named
 * fiber/fibers/fibre/fibres (fibres).
 */
hs_status hs_mesh_read_vtk(const char *path, const hs_mesh_read_opts *o, hs_mesh **out);

/**
 * @brief Gmsh .msh ASCII, format 2.2 and 4.1 (4.0 too): $Nodes, $Elements, $PhysicalNames.
 * Tetrahedra (type 4; 11 = 10-node) become elements with their physical tag as region; triangles
 * (type 2) with a physical tag become boundary faces labelled by it, named by $PhysicalNames.
 * Binary .msh is refused with a message to save as ASCII.
 */
hs_status hs_mesh_read_gmsh(const char *path, const hs_mesh_read_opts *o, hs_mesh **out);

/**
 * @brief openCARP mesh PREFIX.pts (count, then x y z per line, um), PREFIX.elem (count, then
 * `Tt n0 n1 n2 n3 [region]` per line; other element types refused by name), PREFIX.lon (optional:
 * first line 1 or 2 = fibre only / fibre and sheet, then per element 3 or 6 numbers) -> fibres.
 * A missing .lon leaves fibres NULL.
 */
hs_status hs_mesh_read_opencarp(const char *prefix, const hs_mesh_read_opts *o, hs_mesh **out);

/**
 * @brief Read by extension: .vtk, .msh, .pts/.elem/.lon (or a prefix with PREFIX.elem present),
 * .node/.ele (or a prefix with PREFIX.ele present). Unknown extensions are an error listing these.
 */
hs_status hs_mesh_read_file(const char *path, const hs_mesh_read_opts *o, hs_mesh **out);

#ifdef __cplusplus
}
#endif
#endif
