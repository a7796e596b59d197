/**
 * @file hs_mesh_io.h
 * @brief Volume meshes users bring: legacy and XML (.vtu) VTK unstructured grids, Gmsh .msh (v2 and v4 ASCII),
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
 *
 * What every volume reader shares (VTK legacy and XML, Gmsh, openCARP, TetGen;
 * meshes/mesh_read_internal.h):
 *  - nodes no tetrahedron uses are dropped (Gmsh geometry points, mid-edge nodes, nodes of
 *    skipped cells, points TetGen kept), keeping the file's order, and the count is logged;
 *    mesh->node_orig[i] is the 0-based position in the file of node i (for Gmsh: the position of
 *    its line in $Nodes, not its tag);
 *  - the file's own numbers are kept (mesh->src_path, src_numbering, elem_src, node_src), so
 *    hs_mesh_check names elements and nodes as the file does (TetGen's base, Gmsh tags, VTK's
 *    0-based cell index);
 *  - when EVERY tetrahedron is negatively oriented (a file in the other convention), nodes 2 and 3
 *    of each are swapped and a note is logged; a mix is left for hs_mesh_check;
 *  - region is 0 where the file has none; fiber is NULL unless the file has fibres (normalised; a
 *    zero vector is an error naming the line);
 *  - arrays grow as data is read, so a count larger than the data ends in "file ended after ...".
 */
#ifndef HS_MESH_IO_H
#define HS_MESH_IO_H

#include "hs_mesh.h"
#include "hs_registry.h"
#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Options shared by the volume readers; a NULL pointer means all fields 0. */
typedef struct hs_mesh_read_opts {
    int linearize; /**< 1: accept 10-node tets by dropping mid-edge nodes; 0: refuse them */
} hs_mesh_read_opts;

/**
 * @brief Legacy VTK (`# vtk DataFile Version` 1.0-5.1), DATASET UNSTRUCTURED_GRID, ASCII or BINARY
 * (big-endian), POINTS float/double; CELLS in the classic layout and in 5.1's OFFSETS/CONNECTIVITY
 * layout; cell types 10 (tet) and 24 (quadratic tet); types 1, 3, 5 (vertex, line, triangle)
 * skipped, any other refused naming the first such cell. CELL_DATA arrays kept (SCALARS, VECTORS
 * or FIELD arrays; names case-insensitive): a 1-component integral array named region, regions,
 * tag, material, elemTag, gmsh:physical or CellEntityIds (region markers; triangles with a
 * non-zero marker become labelled boundary faces) and a 3-component array named fiber, fibers,
 * fibre or fibres (fibres). Every other array, POINT_DATA, field data and METADATA are skipped.
 * heartsim's own frames (output/format_vtk.c) read back with their regions and fibres.
 */
hs_status hs_mesh_read_vtk(const char *path, const hs_mesh_read_opts *o, hs_mesh **out);

/**
 * @brief XML VTK unstructured grid (.vtu): DataArrays ascii, binary (base64) or appended (raw or
 * base64), header UInt32/UInt64, either byte order, vtkZLibDataCompressor; Int8..UInt64, Float32,
 * Float64. Cells and CellData kept as hs_mesh_read_vtk keeps them (tetrahedra, type 24 when
 * linearising, region and fibre arrays by the same names, labelled triangles); other cell types
 * refused naming the cell (0-based) and its VTK type. One Piece.
 */
hs_status hs_mesh_read_vtu(const char *path, const hs_mesh_read_opts *o, hs_mesh **out);

/**
 * @brief Gmsh .msh ASCII, format 2.2 (2.0, 2.1) and 4.1 (4.0 too): $Nodes, $Elements,
 * $PhysicalNames, and in 4.x $Entities. Tetrahedra (type 4; 11 = 10-node) become elements with
 * their physical tag as region (2.x: the first element tag; 4.x: the first physical tag of their
 * volume entity; 0 without one); triangles (type 2; corners of type 9) with a physical tag become
 * boundary faces labelled by it, and dim-2 $PhysicalNames name those labels (dim-3 names are
 * logged). Points, lines and untagged triangles are skipped; other 3-D elements are refused naming
 * the element. Node tags may be sparse and unordered. Other sections are skipped; binary and
 * partitioned files are refused with a message saying how to save them.
 */
hs_status hs_mesh_read_gmsh(const char *path, const hs_mesh_read_opts *o, hs_mesh **out);

/**
 * @brief openCARP mesh PREFIX.pts (count, then x y z per line, um), PREFIX.elem (count, then
 * `Tt n0 n1 n2 n3 [region]` per line, 0-based; other element types refused by name),
 * PREFIX.lon (optional: first line 1 or 2 = fibre only / fibre and sheet, then per element 3 or
 * 6 numbers; old files without the header line are read as 1) -> fibres (sheets are not kept).
 * A missing .lon leaves fibres NULL. @p prefix is the path without extension.
 */
hs_status hs_mesh_read_opencarp(const char *prefix, const hs_mesh_read_opts *o, hs_mesh **out);

/**
 * @brief Read by extension (case-insensitive), with the reader listed for it in
 * meshes/hs_mesh_reader_list.h: .vtk, .vtu, .msh, .pts/.elem/.lon (or a prefix with PREFIX.elem present),
 * .node/.ele (or a prefix with PREFIX.ele present; hs_mesh_read_tetgen_opts).
 * Unknown extensions are an error naming the file and listing the extensions with their formats;
 * a surface extension (.vtp, .stl, ...) says to use mesh.source = "surface". @p o may be NULL (no linearisation).
 */
hs_status hs_mesh_read_file(const char *path, const hs_mesh_read_opts *o, hs_mesh **out);

/** A volume reader as listed: reads @p path (a file name with the reader's extension). */
typedef hs_status hs_mesh_reader_fn(const char *path, const hs_mesh_read_opts *o, hs_mesh **out);

/** An entry of the reader table (one per line of meshes/hs_mesh_reader_list.h, in list order). */
typedef struct hs_mesh_reader {
    const char *name;       /**< extension with its dot, lower case: ".vtk" (first member: hs_registry) */
    hs_mesh_reader_fn *read;
    int prefix_probe;       /**< 1: a bare PREFIX is this format when PREFIX<name> exists (.elem, .ele) */
    const char *summary;    /**< the format, as messages name it: "legacy VTK unstructured grid" */
} hs_mesh_reader;

/** @brief The table of volume readers by extension (entries hs_mesh_reader), static storage; look
 *  names up with hs_registry_find (exact, lower case) or list them with hs_registry_names. */
const hs_registry *hs_mesh_readers(void);

#ifdef __cplusplus
}
#endif
#endif
