/**
 * @file hs_test_matrix.h
 * @brief Test matrices for the SpMV tests: a fixed-seed generator and a CSR matrix with given row
 * lengths whose columns are spread over [0, n_cols) (one per equal stride, so sorted and distinct)
 * and whose values are uniform in [-1, 1). Header-only, for tests.
 */
#ifndef HS_TEST_MATRIX_H
#define HS_TEST_MATRIX_H

#include <stdint.h>

#include "hs_csr.h"

/** Uniform in [0, 1) from a linear congruential generator (reproducible across platforms). */
static double urand(unsigned *s) { *s = *s * 1664525u + 1013904223u; return (*s >> 8) / 16777216.0; }

/** Rows of lengths len[0..n-1] (each <= n_cols); NULL if the allocation fails. */
static hs_csr *matrix_from_lengths(int n, int n_cols, const int *len, unsigned seed)
{
    int64_t nnz = 0;
    for (int i = 0; i < n; ++i) nnz += len[i];
    hs_csr *a = NULL;
    if (hs_csr_create(n, n_cols, (int32_t)nnz, &a) != HS_OK) return NULL;
    int k = 0;
    for (int i = 0; i < n; ++i) {
        a->row_ptr[i] = k;
        for (int j = 0; j < len[i]; ++j) {
            int64_t lo = (int64_t)j * n_cols / len[i], hi = (int64_t)(j + 1) * n_cols / len[i];
            a->col[k] = (int32_t)(lo + (int64_t)(urand(&seed) * (double)(hi - lo)));
            a->val[k++] = 2.0 * urand(&seed) - 1.0;
        }
    }
    a->row_ptr[n] = k;
    return a;
}

#endif
