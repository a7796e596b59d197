/**
 * @file mesh_read_internal.h
 * @brief Private to the volume readers (mesh_read_vtk.c, mesh_read_gmsh.c, mesh_read_opencarp.c,
 * mesh_tetgen_io.c): the listed readers' declarations, the pieces of a mesh as a file delivers them,
 * and the one place that turns them into an hs_mesh (implemented in mesh_read_file.c).
 *
 * Every reader appends nodes in file order and tetrahedra as it meets them, so node k of the parts
 * is the k-th node of the file (0-based). hs_mesh_parts_finish then does, identically for every
 * format:
 *  - drop nodes no tetrahedron uses (Gmsh geometry points, mid-edge nodes of linearised 10-node
 *    tets, nodes of skipped lines/triangles): an unused node would give the FEM system an empty
 *    row. mesh->node_orig[i] is then the file position of node i, so node lists from files can
 *    still be mapped;
 *  - turn a file whose EVERY tetrahedron is negatively oriented (the other node-order convention)
 *    around by swapping nodes 2 and 3 of each, with a note via hs_log; mixed orientations are
 *    left for hs_mesh_check to report;
 *  - check boundary faces only use nodes of tetrahedra;
 *  - record how the file numbers elements and nodes (mesh->src_*), so hs_mesh_check names them as
 *    the file does; the count of dropped nodes is logged (level 1).
 */
#ifndef HS_MESH_READ_INTERNAL_H
#define HS_MESH_READ_INTERNAL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "hs_mesh.h"
#include "hs_mesh_io.h"
#include "hs_status.h"

/* Every listed reader (meshes/hs_mesh_reader_list.h), each defined in its format's file; the VTK and
 * Gmsh ones are public too (hs_mesh_io.h). The openCARP and TetGen entries take any of their
 * files' names and derive the others from it (PREFIX.pts/.elem/.lon, PREFIX.node/.ele). */
#define HS_MESH_READER(ext, read, prefix_probe, summary) hs_mesh_reader_fn read;
#include "hs_mesh_reader_list.h"
#undef HS_MESH_READER

/** A mesh being read; all arrays grow with hs_grow_array. Zero-initialise before use. */
typedef struct hs_mesh_parts {
    const char *path;      /**< borrowed: the file named in notes and messages */
    size_t n_nodes, cap_nodes;
    double *xyz;           /**< [n_nodes][3], file order */
    size_t n_elems, cap_tets, cap_region;
    int32_t *tets;         /**< [n_elems][4] indices into xyz */
    int32_t *region;       /**< [n_elems] */
    double *fiber;         /**< [n_elems][3] unit vectors, or NULL; filled by the reader */
    size_t n_bfaces, cap_bface, cap_blabel, cap_bline;
    int32_t *bface;        /**< [n_bfaces][3] indices into xyz */
    int32_t *bface_label;  /**< [n_bfaces] marker, != 0 */
    long *bface_line;      /**< [n_bfaces] line of the face in path, for messages (0: unknown) */
    /* The file's own numbering, for messages (hs_mesh.h: src_*): */
    const char *numbering;     /**< borrowed: "VTK cell index, 0-based", ... (NULL: "0-based") */
    const char *numbering_path;/**< borrowed: the file whose numbers these are (NULL: path) */
    int node_base, elem_base;  /**< file number of node/tet k when no id is set: k + base */
    int64_t *node_id;          /**< [n_nodes] the file's number of each node, or NULL (k + base) */
    int64_t *elem_id;          /**< [n_elems] the file's number of each tetrahedron, or NULL */
    size_t n_node_id, n_elem_id, cap_node_id, cap_elem_id; /* entries filled so far */
    size_t n_linearized;       /**< quadratic (10-node) tetrahedra read as their 4 corners
                                    (mesh.quadratic = "linearize"): the note on unused nodes says
                                    they are the mid-edge nodes, not a defect of the file */
} hs_mesh_parts;

/** @brief Append a node (file order). */
hs_status hs_mesh_parts_add_node(hs_mesh_parts *p, const double x[3]);

/** @brief Append a tetrahedron with node indices into the parts' nodes (not checked here). */
hs_status hs_mesh_parts_add_tet(hs_mesh_parts *p, const int32_t v[4], int32_t region);

/** @brief The file's number of the tetrahedron just added (when it is not its position + elem_base:
 *  skipped cells before it, Gmsh tags). Call right after hs_mesh_parts_add_tet. */
hs_status hs_mesh_parts_tet_id(hs_mesh_parts *p, int64_t id);

/** @brief The file's number of the node just added (Gmsh tags). */
hs_status hs_mesh_parts_node_id(hs_mesh_parts *p, int64_t id);

/** @brief Append a labelled boundary triangle found at @p line of the file. */
hs_status hs_mesh_parts_add_bface(hs_mesh_parts *p, const int32_t v[3], int32_t label, long line);

/**
 * @brief Make the mesh (see the file comment for what is done on the way). The arrays are handed
 * over to the mesh, so a large mesh is not held twice; @p p is emptied whether or not it succeeds.
 * Fails when there is no tetrahedron. @param[out] out new mesh.
 */
hs_status hs_mesh_parts_finish(hs_mesh_parts *p, hs_mesh **out);

/** @brief Free whatever @p p still holds (safe after finish). */
void hs_mesh_parts_free(hs_mesh_parts *p);

/** @brief Normalise @p f in place; 0 when it is zero or not finite (the caller names the line). */
static inline int hs_unit_vector(double f[3])
{
    const double n = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    if (!(n > 0.0) || !isfinite(n)) return 0;
    for (int k = 0; k < 3; ++k) f[k] /= n;
    return 1;
}

#endif
