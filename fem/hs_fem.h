/**
 * @file hs_fem.h
 * @brief Host-side discretisation data shared by every backend: per-element geometry and
 * diffusion stiffness, and the "K_elem . 1" gather maps that assemble K and R without atomics.
 */
#ifndef HS_FEM_H
#define HS_FEM_H

#include <stdint.h>

#include "hs_csr.h"
#include "hs_mesh.h"
#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Per-element constants (do not change during a run). */
typedef struct hs_fem_geom {
    int32_t n_elems, n_nodes;
    double *vol;         /**< [n_elems] volume, mm^3 */
    double *kd;          /**< [n_elems][10] V grad N_a . D grad N_b, packed upper triangle (hs_sym4_index);
                              NULL in a problem of the split assembly, which keeps K_D instead (hs_problem_create) */
    double *lumped_mass; /**< [n_nodes] sum over incident elements of V/4 (residual scaling) */
} hs_fem_geom;

/**
 * @brief Volumes and diffusion stiffness of every element.
 * @param[in] m mesh with fibres; @param[in] d_iso,d_ani diffusion in mm^2 per MODEL time unit
 * (D = d_iso I + d_ani n n^T, n the element's fibre). Degenerate elements are an error.
 */
hs_status hs_fem_geom_create(const hs_mesh *m, double d_iso, double d_ani, hs_fem_geom **out);
/** @brief As hs_fem_geom_create with per-element conductivities @p d_elem [n_elems][2] (d_iso,
 *  d_ani per MODEL time unit; NULL: the uniform @p d_iso, @p d_ani). Heterogeneous tissue, hs_region.h. */
hs_status hs_fem_geom_create_het(const hs_mesh *m, double d_iso, double d_ani, const double *d_elem,
                                 hs_fem_geom **out);
/** @brief As hs_fem_geom_create_het; @p with_kd 0 leaves kd NULL (80 bytes per element not held:
 *  the split assembly computes the matrices in chunks where it sums K_D, hs_fem_geom_kd). */
hs_status hs_fem_geom_create_opt(const hs_mesh *m, double d_iso, double d_ani, const double *d_elem, int with_kd,
                                 hs_fem_geom **out);

/** Where the element diffusion matrices come from: a stored array, or computed from the mesh. */
typedef struct hs_kd_source {
    const double *kd;     /**< [n_elems][10] (hs_fem_geom.kd), borrowed; NULL: computed (hs_fem_geom_kd) */
    double d_iso, d_ani;  /**< as hs_fem_geom_create_het's, when kd is NULL */
    const double *d_elem; /**< likewise; NULL for uniform tissue */
} hs_kd_source;

/** @brief kd [e1 - e0][10] of elements e0 .. e1-1, the same bits as hs_fem_geom_create_het's (OpenMP).
 *  The elements were checked (positive volumes) by the geometry's creation. */
void hs_fem_geom_kd(const hs_mesh *m, const hs_kd_source *src, int64_t e0, int64_t e1, double *kd);
void hs_fem_geom_destroy(hs_fem_geom **p);

/**
 * The gather maps of the "K_elem . 1" assembly (seed 002 sec. 4): global nonzero k of K is
 * sum_{j = k_ptr[k]}^{k_ptr[k+1]-1} Ke_flat[k_src[j]], with Ke_flat = [n_elems][16] row-major; node i
 * of R is sum_{j = r_ptr[i]}^{r_ptr[i+1]-1} Re_flat[r_src[j]], Re_flat = [n_elems][4]. Each output
 * is owned by one reader, so assembly needs no atomics and sums in a fixed order (deterministic).
 * Contributions are listed in increasing element order.
 */
typedef struct hs_assembly_map {
    int32_t n_nodes, nnz, n_elems;
    int32_t *k_ptr; /**< [nnz+1]; NULL in a map of the R lists only (hs_assembly_map_create_r) */
    int32_t *k_src; /**< [16 n_elems] index into Ke_flat; NULL likewise */
    int32_t *r_ptr; /**< [n_nodes+1] */
    int32_t *r_src; /**< [4 n_elems] index into Re_flat */
    int32_t *diag;  /**< [n_nodes] CSR position of (i,i) */
} hs_assembly_map;

/**
 * Index bounds of the gather maps, in elements of one mesh (a rank's local mesh in a distributed run).
 * The maps store 32-bit entries where that provably suffices, which halves their bytes against 64-bit:
 * the K lists' entries 16 e + 4 a + b (and so their pointers) up to 16 n_elems, the R lists' 4 e + a up
 * to 4 n_elems, the split map's element ids up to n_elems (its pointers are 64-bit on the host,
 * fem/hs_assembly.h). A mesh beyond a bound is refused by hs_assembly_map_check with the bound.
 */
#define HS_ASSEMBLY_MAX_ELEMS_K ((int64_t)INT32_MAX / 16) /**< the K lists (solver.assembly = "full"): 134,217,727 */
#define HS_ASSEMBLY_MAX_ELEMS_R ((int64_t)INT32_MAX / 4)  /**< the R lists (every Newton assembly): 536,870,911 */

/**
 * @brief Whether a mesh of @p n_elems elements fits the gather maps' 32-bit entries (the R lists, and
 * with @p with_k the K lists); HS_ERR_MESH naming the bound and what lifts it otherwise. Reads no mesh.
 */
hs_status hs_assembly_map_check(int64_t n_elems, int with_k);

/**
 * The gathers of K and R (hs_assemble_k/r, hs_split_assemble_k/r) run on OpenMP threads from this
 * many elements, serial below: the work is a few additions per element, so below it starting the
 * threads costs more than they save. Measured on the 2-core development machine (issue 30,
 * docs/benchmarks.md "OpenMP thresholds"): two threads first beat one at 624-780 elements (split and
 * full). Decided by the mesh's elements, the unit of the gathers' work (16 + 4 terms per element full,
 * 10 + 4 split), not by a node or nonzero count. (The cpu backend runs them on one thread below
 * HS_OMP_MIN elements when the machine's cores are busy: backends/cpu/cpu_backend.h.)
 */
#define HS_OMP_MIN_ASSEMBLY_ELEMS 1024

/** @brief Build the gather maps of @p m against its CSR @p pattern. */
hs_status hs_assembly_map_create(const hs_mesh *m, const hs_csr *pattern, hs_assembly_map **out);
/**
 * @brief The R lists and the diagonal positions only (k_ptr, k_src NULL): what the split assembly
 * reads (its K lists are its own, hs_split_map_create_mesh). Saves the K lists' 4 (16 n_elems + nnz)
 * bytes and lifts their bound (HS_ASSEMBLY_MAX_ELEMS_K).
 */
hs_status hs_assembly_map_create_r(const hs_mesh *m, const hs_csr *pattern, hs_assembly_map **out);
void hs_assembly_map_destroy(hs_assembly_map **p);

/**
 * @brief K values from element matrices through the gather map (OpenMP): nonzero k is written to
 * kval[slot[k]] (slot = an SpMV format's slot map, so assembly fills the format directly; NULL means
 * CSR order).
 */
void hs_assemble_k(const hs_assembly_map *map, const double *ke, const int64_t *slot, double *kval);
/** @brief R from element residuals through the gather map (OpenMP). */
void hs_assemble_r(const hs_assembly_map *map, const double *re, double *r);

#ifdef __cplusplus
}
#endif
#endif
