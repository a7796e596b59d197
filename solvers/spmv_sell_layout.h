/*
 * Private to solvers/ and gpu/: the sliced-ELL (SELL-32) layout of cusparse_sell, built on the host
 * by solvers/spmv_cusparse_sell.c and uploaded as it is by gpu/spmv_cusparse_sell.cu. Not part of
 * the public registry interface.
 *
 * Rows are cut into slices of HS_SELL_SLICE consecutive rows (the last slice is padded with empty
 * rows). Slice s is stored column-major from slice_off[s]: entry j of row 32 s + r sits at
 * slice_off[s] + 32 j + r, for j < w_s = (slice_off[s+1] - slice_off[s]) / 32, the slice's longest
 * row. Entry j of a row is its CSR entry row_ptr[i] + j (the CSR order is kept). Slots beyond a
 * row's length are padding: column -1 (cuSPARSE's padding mark, as in NVIDIA's spmv_sell example
 * of CUDALibrarySamples) and value 0 (never written).
 */
#ifndef HS_SPMV_SELL_LAYOUT_H
#define HS_SPMV_SELL_LAYOUT_H

#include <stdint.h>

#include "hs_spmv.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Rows per slice: one warp, the slice size cuSPARSE's SELL kernels are compared at. */
#define HS_SELL_SLICE 32

typedef struct hs_sell_layout {
    int32_t n_slices;   /**< ceil(n_rows / 32) */
    int32_t *slice_off; /**< [n_slices+1], slot offset of each slice (a multiple of 32), int32 for cuSPARSE */
    int32_t *col;       /**< [n_slots], column of each slot, -1 in padding */
    int32_t max_width;  /**< longest row (widest slice) */
} hs_sell_layout;

#ifdef __cplusplus
}
#endif
#endif
