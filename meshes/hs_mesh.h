/**
 * @file hs_mesh.h
 * @brief The tetrahedral mesh shared by every backend, and how to make one.
 *
 * Units: millimetres. Connectivity is 0-based. Every element has positive volume
 * (nodes ordered so that (x1-x0) . ((x2-x0) x (x3-x0)) > 0); hs_mesh_check enforces it.
 */
#ifndef HS_MESH_H
#define HS_MESH_H

#include <stdint.h>

#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HS_MESH_MAX_LABELS 64
#define HS_MESH_LABEL_LEN 48

/** A named surface label: boundary triangles with marker `id` are called `name` ("endo"). */
typedef struct hs_mesh_label {
    int32_t id;
    char name[HS_MESH_LABEL_LEN];
} hs_mesh_label;

typedef struct hs_mesh {
    int32_t n_nodes;
    int32_t n_elems;
    double *xyz;     /**< [n_nodes][3] node coordinates, mm */
    int32_t *tets;   /**< [n_elems][4] node indices, positively oriented */
    int32_t *region; /**< [n_elems] region marker (TetGen attribute), 0 when the source has none */
    double *fiber;   /**< [n_elems][3] unit fibre direction; NULL until fibres are assigned. Per-element
                          fibre files are in the source element order, so they are read before any
                          reordering (app/mesh_build.c does) */
    int32_t *node_orig; /**< [n_nodes] index of each node in the source numbering (0-based, as
                          read or generated); kept up to date by every renumbering, so node
                          lists from files (stimulus, per-node fibres) can be mapped. NULL only
                          on meshes built by hand: hs_mesh_alloc sets it to the identity. */
    /* Labelled boundary surface (may be empty): triangles of the boundary that carry a marker
     * (TetGen facet markers, Gmsh physical groups of triangles, the LV's endo/epi/base), ordered to
     * face out of the solid; triangles on internal facets are not included. */
    int32_t n_bfaces;
    int32_t *bface;       /**< [n_bfaces][3] node indices */
    int32_t *bface_label; /**< [n_bfaces] marker (a label id; 0 = unlabelled) */
    int n_labels;
    hs_mesh_label label[HS_MESH_MAX_LABELS]; /**< names of marker ids, when the source has them */
    /* How the file the mesh was read from numbers its elements and nodes, so that messages
     * (hs_mesh_check) name them as the file does (TetGen's base 0 or 1, Gmsh tags, VTK's 0-based
     * cell index counting skipped cells). Empty on generated meshes (0-based indices are used). */
    char src_path[256];     /**< the file ("" : none) */
    char src_numbering[64]; /**< how its numbers read: "TetGen, 1-based", "Gmsh tags", ... */
    int64_t *elem_src;      /**< [n_elems] the element's number in the file; moved by every element
                                 renumbering; NULL: none */
    int64_t *node_src;      /**< [n_node_src] the file's number of the node at file position k
                                 (indexed through node_orig); NULL: none */
    int32_t n_node_src;
    /* A distributed run whose ranks make their own parts (parallel.partition = "box") keeps the
     * whole mesh's counts only: n_nodes, n_elems, every array NULL, and here its checkpoint
     * fingerprint (computed without the mesh; 0 when not needed). */
    uint64_t fingerprint;
} hs_mesh;

/** @brief Element @p e as the source file numbers it (its index when the mesh has no file). */
long long hs_mesh_elem_name(const hs_mesh *m, int32_t e);
/** @brief Node @p v as the source file numbers it (its index when the mesh has no file). */
long long hs_mesh_node_name(const hs_mesh *m, int32_t v);

/** Parameters of the built-in slab (`mesh.source = "box"`). */
typedef struct hs_box_params {
    double lx, ly, lz; /**< extent in mm along x, y, z; the box spans [0,lx]x[0,ly]x[0,lz] */
    double h;          /**< target edge length in mm */
    int use_tetgen;    /**< 0: structured 6-tets-per-cube split; 1: TetGen with quality bounds */
    double tetgen_radius_edge; /**< TetGen -q radius-edge bound (e.g. 1.414); used when use_tetgen */
} hs_box_params;

/**
 * @brief Make the slab mesh. Structured: nx = max(1, round(lx/h)) cells along x (likewise y, z),
 * each cube split into 6 tets sharing the cube's main diagonal (conforming, all same volume).
 * @param[in] p parameters; @param[out] out new mesh (free with hs_mesh_destroy).
 */
hs_status hs_mesh_create_box(const hs_box_params *p, hs_mesh **out);

/** @brief The structured box's cells along x, y, z (as hs_mesh_create_box makes them; its
 *  nodes are (cells + 1) per axis, numbered x fastest). Checks the lengths. */
hs_status hs_mesh_box_cells(const hs_box_params *p, int64_t cells[3]);

/**
 * @brief One rank's part of the structured box without the rest (a distributed run's "box"
 * partition): the tetrahedra with a vertex among the lattice nodes lo[a] <= index_a < hi[a] (a =
 * x, y, z), in the order of hs_mesh_create_box, and their vertices, in lattice order. Coordinates,
 * vertex order and numbers are those of hs_mesh_create_box (bit for bit).
 * @param[out] out the part (local node indices in tets); @param[out] node_gid [n_nodes] each node's
 * number in the whole box, increasing; @param[out] elem_gid [n_elems] each element's, increasing
 * (both 64-bit, caller frees).
 */
hs_status hs_mesh_create_box_part(const hs_box_params *p, const int64_t lo[3], const int64_t hi[3], hs_mesh **out,
                                  int64_t **node_gid, int64_t **elem_gid);

/**
 * @brief Read a TetGen .node/.ele pair (0- or 1-based, point attributes and boundary markers
 * skipped, the first element attribute kept as region marker, '#' comments).
 * @param[in] node_path path of the .node file; @param[in] ele_path path of the .ele file.
 * Errors name the file and line. 10-node elements are refused saying how to linearise them
 * (hs_mesh_read_tetgen_opts). Nodes no tetrahedron uses are dropped with a note (node_orig keeps
 * the file positions), as by the other readers.
 */
hs_status hs_mesh_read_tetgen(const char *node_path, const char *ele_path, hs_mesh **out);

struct hs_mesh_read_opts;
/**
 * @brief hs_mesh_read_tetgen with options: 10-node tetrahedra (tetgen -o2) are linearised (the 4
 * corners kept, mid-edge nodes dropped) when @p o->linearize, refused otherwise. @p o may be NULL.
 */
hs_status hs_mesh_read_tetgen_opts(const char *node_path, const char *ele_path,
                                   const struct hs_mesh_read_opts *o, hs_mesh **out);

/**
 * @brief Check every element: a degenerate (|6V| <= 1e-12 * (longest edge)^3) or inverted (V < 0)
 * element is an error naming the element (0-based index), its nodes and its signed volume.
 * Also checks that every node index is in range.
 */
hs_status hs_mesh_check(const hs_mesh *m);

/** @brief 6 x the signed volume of the tetrahedron @p t [4] of the coordinates @p xyz [n][3]:
 *  (b-a) . ((c-a) x (d-a)); the readers' orientation test and hs_mesh_elem_volume share it. */
double hs_tet_det6(const double *xyz, const int32_t *t);

/** @brief Signed volume of element e (mm^3). */
double hs_mesh_elem_volume(const hs_mesh *m, int32_t e);

/** @brief Assign the same unit fibre direction to every element (normalises dir; zero is an error). */
hs_status hs_mesh_set_fibers_constant(hs_mesh *m, const double dir[3]);

/** Renumbering for locality: RCM (bandwidth) or a Hilbert space-filling curve over node
 * coordinates (locality without a bandwidth bound). */
typedef enum hs_reorder_kind {
    HS_REORDER_NONE = 0,
    HS_REORDER_RCM = 1,
    HS_REORDER_SFC = 2
} hs_reorder_kind;

/** What hs_mesh_reorder did. */
typedef struct hs_reorder_report {
    int64_t bandwidth_before; /**< max |i - j| over mesh edges before */
    int64_t bandwidth_after;
    double profile_before;    /**< mean over nodes of (i - min neighbour index) */
    double profile_after;
} hs_reorder_report;

/**
 * @brief Renumber nodes (reverse Cuthill-McKee from a pseudo-peripheral node, per connected
 * component) and sort elements by their smallest new node index, in place.
 * @param[in,out] m mesh; @param[in] kind method; @param[out] rep report (may be NULL).
 */
hs_status hs_mesh_reorder(hs_mesh *m, hs_reorder_kind kind, hs_reorder_report *rep);

/**
 * @brief Renumber nodes: new node k is old node new_to_old[k] (a permutation, checked); elements
 * are then sorted by their smallest new node. Used when an SpMV format wants its own numbering.
 */
hs_status hs_mesh_renumber(hs_mesh *m, const int32_t *new_to_old);

/** @brief Node bandwidth max |i-j| over element edges. */
int64_t hs_mesh_bandwidth(const hs_mesh *m);

/** @brief Total volume (mm^3) and min/mean/max edge length (mm). */
void hs_mesh_stats(const hs_mesh *m, double *volume, double *h_min, double *h_mean, double *h_max);

/** Where a point lies with respect to a mesh (hs_mesh_point_depth). */
typedef struct hs_mesh_point_place {
    int32_t elem;     /**< 0-based element containing the point (on its faces included); -1: outside */
    double depth;     /**< inside: distance to the nearest boundary face of the mesh, mm; 0 outside */
    double elem_size; /**< inside: the longest edge of that element, mm */
} hs_mesh_point_place;

/**
 * @brief Whether @p x lies in the mesh and, if so, how deep: the containing element (brute force,
 * O(n_elems)) and the distance to the nearest boundary face (faces of one element only, O(n_elems
 * log n_elems)). A point on the boundary is inside at depth 0. @param[out] out its place.
 */
hs_status hs_mesh_point_depth(const hs_mesh *m, const double x[3], hs_mesh_point_place *out);

/** @brief The first part of hs_mesh_point_depth: the first element containing @p x (elem, elem_size;
 *  depth 0), or elem -1. */
hs_status hs_mesh_point_locate(const hs_mesh *m, const double x[3], hs_mesh_point_place *out);

/**
 * @brief The second part: the distance from @p x to the nearest boundary face (a face of one
 * element) having a vertex below @p n_owned (INFINITY: none). For a rank's part of a mesh (every
 * element touching its owned nodes, which come first) these are exactly the whole mesh's boundary
 * faces with an owned vertex, so the minimum over the ranks is the whole mesh's. @p gid [n_nodes]
 * (NULL: the local numbers) orders each face's vertices as the whole mesh numbers them, so that the
 * distance is computed with the same operations as on the whole mesh. n_owned = n_nodes, gid NULL:
 * the whole mesh.
 */
hs_status hs_mesh_boundary_distance(const hs_mesh *m, const double x[3], int32_t n_owned, const int64_t *gid,
                                    double *out);

/** @brief Free the mesh; accepts NULL and sets *m = NULL. */
void hs_mesh_destroy(hs_mesh **m);

/** @brief Allocate an empty mesh with room for n_nodes / n_elems (fiber left NULL, no boundary
 * faces, node_orig = identity, region = 0). */
hs_status hs_mesh_alloc(int32_t n_nodes, int32_t n_elems, hs_mesh **out);

/** @brief The most nodes of any mesh hs_mesh_alloc made or hs_mesh_check checked in this process so
 *  far (the generators, the mesh cache and the gathers allocate theirs with the first, every mesh
 *  built is checked): a distributed run's summary counts the ranks that held the whole mesh during
 *  set-up with it. */
int32_t hs_mesh_alloc_peak_nodes(void);

/** @brief Give the mesh n boundary faces (bface, bface_label allocated, zeroed; replaces any). */
hs_status hs_mesh_alloc_bfaces(hs_mesh *m, int32_t n);

/** @brief Name label @p id (adds or renames; at most HS_MESH_MAX_LABELS). */
hs_status hs_mesh_add_label(hs_mesh *m, int32_t id, const char *name);

/** @brief Id of the label called @p name, or of the marker written as a number ("3"); -1 if none. */
int32_t hs_mesh_find_label(const hs_mesh *m, const char *name);

#ifdef __cplusplus
}
#endif
#endif
