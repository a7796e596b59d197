/*
 * Private to the ELL-WARP formats (solvers/spmv_ellwarp.c builds it, gpu/spmv_ellwarp.cu uploads it,
 * tests/solvers/test_spmv_ellwarp.c checks it): the layout of seed 002 sec. 5.1-5.5, shared by the six
 * variants ellwarp_k1, _k1r, _k1rs, _k2, _k2r, _k2rs. Not part of the public registry interface.
 *
 * Layout. The rows are put in order of decreasing length (stable: ties keep the pattern's order);
 * position p holds pattern row row_of_pos[p]. Consecutive positions are packed into warps of 32
 * lanes. In warp w, t = 1 << shift lanes work on one row (K1: t = 1 always; K2: the smallest power
 * of two with ceil(len/t) <= threshold, at most 32), so the warp holds positions row0 .. row0+32/t-1.
 * Lane l works on position row0 + (l >> shift) and takes entries e = (l & (t-1)) + t*s of that row,
 * s = 0 .. steps-1, from slot
 *
 *     slot32 * 32 + s * 32 + l          ("column-major inside the warp": step s of the 32 lanes is
 *                                          32 consecutive slots)
 *
 * with steps = ceil(len(first row of the warp) / t): the first row is the warp's longest, so the warp
 * is padded to its own longest row. Every warp owns 32 * steps slots; padding slots hold value 0
 * (never written) and a column the same row already reads (its last real one; for an empty row or a
 * lane past the last row, the warp's first row's), so padding adds exact zeros for finite x and
 * touches no cache line the warp does not already read.
 *
 * Entry order within a row: the pattern's stored order, except for the "rs" variants, which sort the
 * entries of each row by column (seed 002 sec. 5.3). y store: y[row_of_pos[p]] when remap_store (K1,
 * K2, and the r/rs variants on a pattern that is not in their node order), else y[p].
 */
#ifndef HS_SPMV_ELLWARP_LAYOUT_H
#define HS_SPMV_ELLWARP_LAYOUT_H

#include <stdint.h>

#include "hs_spmv.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Which of the six: the variant is a parameter of one builder, one reference and one kernel. */
typedef struct hs_ellwarp_variant {
    int k2;          /**< 1: K2, rows longer than spmv.ellwarp_threshold split over 2..32 lanes (sec. 5.4) */
    int renumbered;  /**< 1: "r", the run uses node_order's numbering, y is stored without remap (sec. 5.2) */
    int sorted_cols; /**< 1: "rs", entries of each row in increasing column order (sec. 5.3) */
} hs_ellwarp_variant;

/** One warp of the layout; 16 bytes, read on the device as one int4 (broadcast to the 32 lanes). */
typedef struct hs_ellwarp_warp {
    int32_t slot32; /**< first slot of the warp / 32 (the warp owns slots [32 slot32, 32 (slot32+steps))) */
    int32_t steps;  /**< entries per lane (the warp's padded row length / lanes per row) */
    int32_t row0;   /**< first position (sorted order) handled by the warp */
    int32_t shift;  /**< log2 of the lanes per row: 0 (K1, and K2 rows within the threshold) .. 5 */
} hs_ellwarp_warp;

/** lay->impl of the six ELL-WARP formats. */
typedef struct hs_ellwarp_layout {
    hs_ellwarp_variant var;
    int32_t n_rows, n_cols;
    int32_t n_warps;
    int32_t threshold;      /**< K2: spmv.ellwarp_threshold used; K1: 0 */
    int32_t max_len;        /**< longest row */
    int32_t remap_store;    /**< 1: y[row_of_pos[p]]; 0: y[p] (row_of_pos is the identity) */
    hs_ellwarp_warp *warp;  /**< [n_warps] */
    int32_t *col;           /**< [n_slots]: column of each slot (padding: see the file comment) */
    int32_t *row_of_pos;    /**< [n_rows]: position p holds pattern row row_of_pos[p] */
} hs_ellwarp_layout;

/**
 * @brief Rows in order of decreasing length, ties in increasing row index (a stable counting sort).
 * This is the node_order of the r/rs variants and the row order of every ELL-WARP layout.
 * @param[in] pat pattern (only row_ptr is read)
 * @param[out] new_to_old [n_rows]: position k holds row new_to_old[k]
 */
hs_status hs_ellwarp_sort_rows(const hs_csr *pat, int32_t *new_to_old);

/** @brief The ELL-WARP impl of @p lay, or NULL if @p lay is not one of the six formats. */
const hs_ellwarp_layout *hs_ellwarp_layout_of(const hs_spmv_layout *lay);

#ifdef __cplusplus
}
#endif
#endif
