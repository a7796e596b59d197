/**
 * @file hs_naive_cg.cuh
 * @brief The textbook GPU Jacobi-PCG that heartsim's solver is measured against (CUDA-only header):
 * cusparseSpMV for A p, cuBLAS for the dot products and vector updates with host-side scalars (each
 * dot product returns to the host, as in NVIDIA's conjugateGradientPrecond sample), and one kernel
 * for z = D^-1 r.
 */
#ifndef HS_NAIVE_CG_CUH
#define HS_NAIVE_CG_CUH

#include <stdint.h>

#include "hs_status.h"

/**
 * @brief Median time of one naive iteration, over @p reps runs of @p iters iterations (after one
 * warm-up run). The CSR arrays are device pointers (borrowed); b and dinv have n entries.
 */
hs_status hs_naive_cg_bench(int32_t n, int32_t nnz, const int32_t *d_row_ptr, const int32_t *d_col,
                            const double *d_val, const double *d_dinv, const double *d_b, int iters,
                            int reps, double *sec_per_iter);

#endif
