/**
 * @file hs_assembly.h
 * @brief The assembly methods (solver.assembly) and the gather maps of the "split" one.
 *
 * With one integration point the element tangent is K_e = Kd_e + km_e 11^T and the residual
 * R_e = Kd_e u_e + rm_e 1 (fem/hs_element.h, hs_element_point). So
 *   K_ij = (K_D)_ij + sum_{e containing i and j} km_e,    R_i = (K_D u)_i + sum_{e containing i} rm_e,
 * with K_D = sum_e Kd_e assembled once per run (it depends on the geometry and the conductivities
 * only: the system is in model time units, dt enters through km alone). Per Newton iteration an
 * element writes two numbers instead of a 4x4 matrix and a 4-vector.
 *
 * The split gather map lists, for every pair {i, j} of the symmetric pattern (i <= j, diagonal
 * included), the elements containing both nodes in increasing order: one reader per pair writes
 * K_ij and K_ji, so the assembly needs no atomics and sums in a fixed order (deterministic), like
 * the "full" one. K is symmetric, so the pair's two entries are equal bit for bit.
 *
 * The pairs are in the order the devices read them: the off-diagonal pairs {i, j}, i < j, row by
 * row (j increasing), then the diagonal pair of node i at n_off + i. Sizes: 10 list entries per
 * element (6 edges and 4 vertices), so the list pointers reach 10 n_elems, past 2^31 from 214.7M
 * elements: they are 64-bit (8 bytes per pair); the entries, element ids, stay 32-bit.
 */
#ifndef HS_ASSEMBLY_H
#define HS_ASSEMBLY_H

#include <stdint.h>

#include "hs_csr.h"
#include "hs_fem.h"
#include "hs_mesh.h"
#include "hs_registry.h"
#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hs_assembly_kind {
#define HS_ASSEMBLY(enumerator, name, summary, ref) enumerator,
#include "hs_assembly_list.h"
#undef HS_ASSEMBLY
} hs_assembly_kind;

typedef struct hs_assembly_info {
    const char *name;      /**< config name (solver.assembly); first member (hs_registry) */
    hs_assembly_kind kind;
    const char *summary;
    const char *ref;
} hs_assembly_info;

/** @brief The table of methods (entries hs_assembly_info). Static storage. */
const hs_registry *hs_assemblies(void);
/** @brief Name of @p k. */
const char *hs_assembly_name(hs_assembly_kind k);
/** @brief Method by name; an unknown name is HS_ERR_CONFIG naming @p key and the choices. */
hs_status hs_assembly_lookup(const char *key, const char *name, hs_assembly_kind *out);

/** The split assembly's maps and constant diffusion matrix (see the file comment). */
typedef struct hs_split_map {
    int32_t n_pairs;  /**< (nnz + n_nodes) / 2 */
    int32_t n_off;    /**< off-diagonal pairs, (nnz - n_nodes) / 2: pair n_off + i is node i's diagonal */
    int64_t *p_ptr;   /**< [n_pairs+1] */
    int32_t *p_elem;  /**< [10 n_elems]: elements of each pair, increasing */
    int32_t *p_pos;   /**< [2 n_pairs]: CSR positions of (i,j) and (j,i) (equal on the diagonal) */
    double *kd_pair;  /**< [n_pairs] (K_D)_ij */
    double *kd_csr;   /**< [nnz] K_D in CSR order (R = K_D u + ...) */
} hs_split_map;

/** Sizes of a split map, from the counts alone (hs_split_map_sizes): what it allocates. */
typedef struct hs_split_sizes {
    int64_t n_pairs, n_off; /**< pairs, off-diagonal pairs */
    int64_t n_entries;      /**< list entries, 10 n_elems: the last list pointer */
    int ptr64;              /**< 1: the list pointers exceed 32 bits (a device keeping 32-bit ones cannot) */
    int64_t host_bytes;     /**< the map's host arrays (p_ptr, p_elem, p_pos, kd_pair, kd_csr) */
} hs_split_sizes;

/**
 * @brief The sizes of the split map of a pattern of @p n_nodes rows and @p nnz nonzeros (symmetric,
 * full diagonal) over @p n_elems elements, in 64-bit arithmetic; HS_ERR_MESH when a count the map
 * keeps in 32 bits (pairs, positions, element ids) would not fit. Allocates nothing.
 */
hs_status hs_split_map_sizes(int64_t n_nodes, int64_t nnz, int64_t n_elems, hs_split_sizes *out);

/**
 * @brief Build the split map from the "full" gather map of the same pattern and the elements'
 * packed diffusion matrices @p kd [n_elems][10] (hs_fem_geom.kd). K_D sums the element entries in
 * the full map's order, so the K_D of both methods is the same bit for bit. The reference of
 * hs_split_map_create_mesh (same map, bit for bit), bounded by the full map's element count.
 */
hs_status hs_split_map_create(const hs_csr *pattern, const hs_assembly_map *map, const double *kd,
                              hs_split_map **out);
/**
 * @brief The same map from the mesh and the R lists of @p rmap (hs_assembly_map_create_r; a full map
 * serves too), without the full map's K lists: each row walks its node's elements in increasing
 * order, so K_D and the pair lists equal hs_split_map_create's bit for bit. Up to
 * HS_ASSEMBLY_MAX_ELEMS_R elements. The element matrices come from @p kd: a stored array, or computed
 * in 8 chunks of elements (in increasing order, so each sum keeps its order) where none is stored.
 * Transient memory: 4 bytes per pair (fill cursors), per node (row cursors) and, computed, 10 bytes
 * per element (a chunk of matrices).
 */
hs_status hs_split_map_create_mesh(const hs_mesh *m, const hs_csr *pattern, const hs_assembly_map *rmap,
                                   const hs_kd_source *kd, hs_split_map **out);
void hs_split_map_destroy(hs_split_map **p);

/**
 * @brief K values of the split method (OpenMP): pair p writes (K_D)_p + sum km over its elements
 * into kval[slot[p_pos[2p]]] and kval[slot[p_pos[2p+1]]] (slot = an SpMV format's slot map; NULL:
 * CSR order).
 */
void hs_split_assemble_k(const hs_split_map *sm, const double *km, const int64_t *slot, double *kval);
/**
 * @brief R of the split method (OpenMP): R_i = sum_k (K_D)_ik u_k (row order) + sum rm over the
 * elements of node i (the full map's R list, increasing element order).
 */
void hs_split_assemble_r(const hs_split_map *sm, const hs_csr *pattern, const hs_assembly_map *map,
                         const double *phi, const double *rm, double *r);

#ifdef __cplusplus
}
#endif
#endif
