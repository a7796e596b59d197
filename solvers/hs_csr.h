/**
 * @file hs_csr.h
 * @brief Compressed sparse row matrix (0-based, sorted column indices) and its pattern builder.
 */
#ifndef HS_CSR_H
#define HS_CSR_H

#include <stdint.h>

#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hs_csr {
    int32_t n_rows, n_cols;
    int32_t nnz;
    int32_t *row_ptr; /**< [n_rows+1] */
    int32_t *col;     /**< [nnz], sorted within each row */
    double *val;      /**< [nnz] (may be NULL for a pattern only) */
} hs_csr;

/** @brief Allocate an n_rows x n_cols matrix with nnz entries (zeroed; val allocated). */
hs_status hs_csr_create(int32_t n_rows, int32_t n_cols, int32_t nnz, hs_csr **out);

/**
 * @brief Symmetric pattern of a P1 tetrahedral mesh: (i,j) present when nodes i and j share an
 * element, diagonal included. @param[in] tets [n_elems][4]; @param[out] out pattern with val zeroed.
 */
hs_status hs_csr_from_tets(int32_t n_nodes, int32_t n_elems, const int32_t *tets, hs_csr **out);

/**
 * @brief B = P A P^T for a symmetric renumbering: row/column k of B is row/column new_to_old[k] of
 * A; columns sorted within rows; values carried along when A has them.
 */
hs_status hs_csr_permute(const hs_csr *a, const int32_t *new_to_old, hs_csr **out);

/** @brief Position k of (i,j) in the pattern, or -1. Binary search in row i. Inline: the set-up's
 *  maps (assembly, split, pairs) call it for every element entry, from other files. */
static inline int32_t hs_csr_find(const hs_csr *a, int32_t i, int32_t j)
{
    int32_t lo = a->row_ptr[i], hi = a->row_ptr[i + 1] - 1;
    while (lo <= hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (a->col[mid] < j) lo = mid + 1;
        else if (a->col[mid] > j) hi = mid - 1;
        else return mid;
    }
    return -1;
}

/**
 * @brief The symmetric pairs {i, j} of a structurally symmetric pattern (i <= j, the diagonal
 * included), upper entries row by row: pos[2p], pos[2p+1] are the CSR positions of (i,j) and (j,i)
 * (equal on the diagonal). *n_pairs = (nnz + n_rows) / 2. A pattern lacking a transpose entry is
 * HS_ERR_INTERNAL. @param[out] pos malloc'd [2 n_pairs].
 */
hs_status hs_csr_symmetric_pairs(const hs_csr *a, int32_t **pos, int32_t *n_pairs);

/** @brief y = A x (plain CSR, OpenMP over rows): the reference every SpMV kernel is checked against. */
void hs_csr_spmv(const hs_csr *a, const double *x, double *y);

/** @brief y = |A| |x| (for arithmetic-derived tolerances of SpMV checks). */
void hs_csr_spmv_abs(const hs_csr *a, const double *x, double *y);

/** @brief Free; accepts NULL and sets *a = NULL. */
void hs_csr_destroy(hs_csr **a);

#ifdef __cplusplus
}
#endif
#endif
