/**
 * @file hs_spmv.h
 * @brief The registry of SpMV formats, selected by name (`solver.spmv`).
 *
 * Formats are listed once in solvers/hs_spmv_list.h (an X-macro) and expanded into a table of
 * ops. Each format has a host layout builder from the CSR pattern, a slot map from CSR nonzero k
 * to the position of that nonzero in the format's own value array (assembly writes there directly,
 * padding stays zero), and a CPU reference apply that uses the layout. Device kernels live in gpu/
 * behind the same name. An unknown name is an error that lists the available ones.
 */
#ifndef HS_SPMV_H
#define HS_SPMV_H

#include <stddef.h>
#include <stdint.h>

#include "hs_csr.h"
#include "hs_registry.h"
#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Tunables of the formats (config section `spmv`); hs_spmv_params_default gives the defaults. */
typedef struct hs_spmv_params {
    int block_size;       /**< threads per block where a format lets it be chosen (spmv.block_size, 256) */
    int ellwarp_threshold;/**< ELL-WARP K2: rows longer than this are split over several threads (spmv.ellwarp_threshold) */
    int pcsr_padding;     /**< PCSR (Dehnavi): rows padded to a multiple of this (spmv.pcsr_padding, 4) */
    int pcsr_prefetch;    /**< PCSR (Dehnavi): partitions per block (spmv.pcsr_prefetch, 4) */
} hs_spmv_params;

/** @brief The defaults of every tunable. */
hs_spmv_params hs_spmv_params_default(void);

/** A format's host layout: value slots and whatever index arrays the format needs. */
typedef struct hs_spmv_layout {
    const struct hs_spmv_ops *ops;
    hs_spmv_params params; /**< copied at creation; setup reads it */
    int32_t n_rows;
    int64_t n_slots;       /**< length of the format's value array (>= nnz, padding included) */
    int64_t *slot_of_nnz;  /**< [nnz]: CSR nonzero k lives at value slot slot_of_nnz[k] */
    void *impl;            /**< format-specific arrays, owned */
} hs_spmv_layout;

typedef struct hs_spmv_ops {
    const char *name;     /**< config name, e.g. "csr_scalar" */
    const char *summary;  /**< one line */
    const char *seed;     /**< seed reference, e.g. "seed 000 sec. IV-A (Bell & Garland CSR-vector)" */
    int needs_device;     /**< 1: only the cuda backend can run it */
    /** Build the layout from the CSR pattern (values ignored); lay->params holds the tunables. */
    hs_status (*setup)(const hs_csr *pattern, hs_spmv_layout *lay);
    /** Optional (NULL when not needed): a node numbering under which the format needs no scatter
     *  (ELL-WARP "r" variants: rows sorted by length). new_to_old [n_rows]: new row k is old row
     *  new_to_old[k]. The run renumbers the mesh with it before building the problem, so the whole
     *  simulation runs in that numbering. */
    hs_status (*node_order)(const hs_csr *pattern, const hs_spmv_params *prm, int32_t *new_to_old);
    /** CPU reference: y = A x with A's values in the format's slots [n_slots]. */
    void (*apply_ref)(const hs_spmv_layout *lay, const double *vals, const double *x, double *y);
    /** Optional (NULL: the format serves float64 values only): the same with float32 values, each
     *  product formed in double ((double)v * x), in the same order as apply_ref. */
    void (*apply_ref_f32)(const hs_spmv_layout *lay, const float *vals, const double *x, double *y);
    /** Optional (NULL: the format multiplies whole matrices only, so it cannot run on a partition with
     *  ghosts): rows [lo, hi) of y = A x, each row summed exactly as apply_ref sums it. A partition
     *  multiplies its interior rows while the halo travels, then its boundary rows (hs_comm.h). */
    void (*apply_rows_ref)(const hs_spmv_layout *lay, const double *vals, int32_t lo, int32_t hi, const double *x,
                           double *y);
    void (*apply_rows_ref_f32)(const hs_spmv_layout *lay, const float *vals, int32_t lo, int32_t hi,
                               const double *x, double *y);
    /** Free impl. */
    void (*destroy)(hs_spmv_layout *lay);
} hs_spmv_ops;

/** The precisions of the matrix values (solver.matrix_values; solvers/hs_matrix_values_list.h). */
typedef enum hs_matrix_values {
#define HS_MATRIX_VALUES(enumerator, name, bytes, summary) enumerator,
#include "hs_matrix_values_list.h"
#undef HS_MATRIX_VALUES
} hs_matrix_values;

/** solver.matrix_values = "auto" (the default): resolved at set-up (sim/sim_build.c): float32 on a
 *  device backend when the SpMV kernel (given, or chosen by "auto" among those with a float32
 *  variant) has a float32 variant; float64 otherwise and on the cpu backend (the reference). */
#define HS_VALUES_AUTO ((hs_matrix_values)-1)

typedef struct hs_matrix_values_info {
    const char *name; /**< config name; first member (hs_registry) */
    hs_matrix_values kind;
    int bytes;        /**< bytes per stored value */
    const char *summary;
} hs_matrix_values_info;

/** @brief The table of precisions (entries hs_matrix_values_info). Static storage. */
const hs_registry *hs_matrix_values_kinds(void);
/** @brief Name of @p v ("float64"). */
const char *hs_matrix_values_name(hs_matrix_values v);
/** @brief Bytes per stored value of @p v (8 or 4). */
int hs_matrix_values_bytes(hs_matrix_values v);
/** @brief Precision by name, or HS_VALUES_AUTO for "auto"; an unknown name is HS_ERR_CONFIG naming
 *  @p key and the choices. */
hs_status hs_matrix_values_lookup(const char *key, const char *name, hs_matrix_values *out);
/** @brief 1 when @p ops runs with values stored as @p v (float32: apply_ref_f32 exists). */
int hs_spmv_serves(const hs_spmv_ops *ops, hs_matrix_values v);
/** @brief HS_OK when @p ops serves @p v; else HS_ERR_CONFIG naming @p key, the kernel and the kernels
 *  that do serve it. */
hs_status hs_spmv_check_values(const char *key, const hs_spmv_ops *ops, hs_matrix_values v);
/** @brief out[k] = (float)v[k], k < n (round to nearest; OpenMP). */
void hs_spmv_round_values(int64_t n, const double *v, float *out);

/** @brief Number of registered formats. */
int hs_spmv_count(void);
/** @brief i-th registered format (0 <= i < hs_spmv_count()), in list order. */
const hs_spmv_ops *hs_spmv_get(int i);
/** The CSR reference kernel (solvers/spmv_csr.c), an entry of every build's registry: what "auto"
 *  resolves to where the rows are read in CSR order (the cpu backend, the persistent CG, a
 *  distributed run); code that means this kernel names the entry, not its name. */
extern const hs_spmv_ops hs_spmv_ops_csr_scalar;
/** @brief Position of @p ops in the list (hs_spmv_get(i) == ops), or -1 when it is no registered entry:
 *  what tables expanded from the same list (the device kernels) are indexed by. */
int hs_spmv_index(const hs_spmv_ops *ops);
/** @brief Format by name (exact match), or NULL; no error recorded. "auto" is no format: each
 *  backend resolves it itself (cpu: csr_scalar; cuda: a timed trial). */
const hs_spmv_ops *hs_spmv_find(const char *name);
/** @brief Comma-separated list of names ("csr_scalar, csr_vector, ..."), static storage. */
const char *hs_spmv_names(void);
/**
 * @brief Format by name; an unknown one is HS_ERR_CONFIG reading
 * `<key>: unknown kernel "<name>"; available: [<extra>, ]csr_scalar, csr_vector, ...`.
 * @param[in] key what the name came from (e.g. "solver.spmv"); @param[in] name the name;
 * @param[in] extra NULL, or names the caller accepts besides the formats, listed first (e.g. "auto");
 * @param[out] out the format (NULL on error).
 */
hs_status hs_spmv_lookup(const char *key, const char *name, const char *extra, const hs_spmv_ops **out);

/** @brief Build the layout of @p ops for @p pattern with tunables @p prm (NULL: defaults).
 *  @param[out] out (hs_spmv_layout_destroy). */
hs_status hs_spmv_layout_create(const hs_spmv_ops *ops, const hs_csr *pattern, const hs_spmv_params *prm,
                                hs_spmv_layout **out);
/** @brief Scatter CSR values into the format's slots (padding zero). vals_fmt: [n_slots]. */
void hs_spmv_layout_scatter(const hs_spmv_layout *lay, int32_t nnz, const double *csr_val,
                            double *vals_fmt);
/** @brief Free; accepts NULL and sets *p = NULL. */
void hs_spmv_layout_destroy(hs_spmv_layout **p);

#ifdef __cplusplus
}
#endif
#endif
