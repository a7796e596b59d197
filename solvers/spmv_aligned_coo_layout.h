/*
 * Private to aligned_coo (solvers/spmv_aligned_coo.c, gpu/spmv_aligned_coo.cu and its test): the
 * ALIGNED_COO layout of Shah & Patel (seed 003 sec. IV), a builder with the mode forced or chosen
 * by the paper's cost model, the model's two cost functions, and the CPU reference. Not part of
 * the public registry interface.
 *
 * Value slots: [0, n_seg_slots) the segments, [n_seg_slots, n_seg_slots + n_flat) the flat part.
 *
 * Segment part (Algorithms 1 and 2): n_seg segments of seg_size entries, stored column-major:
 * slot s*seg_size + t is entry t of segment s and is processed by thread t. The rows of the segment
 * part are packed whole and in order into threads (next fit, at most n_seg entries per thread), so
 * thread t holds a run of consecutive rows, its entries in slots s = 0, 1, ... of its column; a row
 * is never split between threads, hence a segment holds at most one entry of any row. A thread's
 * unused tail slots are padding: value 0 (never in the slot map), row = the thread's last row,
 * column = that row's last column, so no two threads of a segment (indeed of the whole part) touch
 * the same row and a padding slot fetches nothing new.
 *
 * Flat part (ALIGNED_COO_flat): entries in row order; in hybrid mode each row contributes its
 * first (len - len mod 32) entries, so every 32-entry chunk lies in one row; in flat mode each row
 * contributes all its entries. One warp per 32-entry chunk computes the sum of each (chunk, row)
 * run, a "piece", by a segmented Hillis-Steele scan; pieces are numbered in flat order. Rows with
 * flat entries, and empty rows, are the "aux" rows: their y is finished by a second pass,
 * y[r] = (has_seg ? y[r] from the segment pass : 0.0) + piece_0 + piece_1 + ... in order.
 */
#ifndef HS_SPMV_ALIGNED_COO_LAYOUT_H
#define HS_SPMV_ALIGNED_COO_LAYOUT_H

#include <stdint.h>

#include "hs_spmv.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Which parts hold the matrix (Algorithm 3's three candidates). */
enum {
    HS_ACOO_MODEL = -1, /**< builder argument: let the cost model choose */
    HS_ACOO_SEG = 0,    /**< everything in segments */
    HS_ACOO_HYBRID = 1, /**< trailing len mod 32 entries of each row in segments, the rest flat */
    HS_ACOO_FLAT = 2    /**< everything in the flat part */
};

/** Cost-model constants: MAX_THREADS = resident threads of an H100/H200 (132 SMs x 2048); the
 *  paper gives no value for WARP_SCHEDULE_TIME, 1 counts a warp like one segment step. */
#define HS_ACOO_MAX_THREADS (132 * 2048)
#define HS_ACOO_WARP_SCHEDULE_TIME 1.0

typedef struct hs_acoo {
    int mode;               /**< HS_ACOO_SEG, _HYBRID or _FLAT */
    double cost[3];         /**< model cost of each mode (what the model compared) */
    int32_t n_rows;
    /* segment part */
    int32_t n_seg;          /**< segments = longest row of the segment part (Algorithm 1); 0 if none */
    int32_t seg_size;       /**< entries per segment = threads */
    int32_t min_rl;         /**< shortest row of the segment part (Algorithm 2's min_rl) */
    int64_t n_seg_slots;    /**< n_seg * seg_size */
    int32_t *seg_row;       /**< [n_seg_slots] row of slot s*seg_size + t */
    int32_t *seg_col;       /**< [n_seg_slots] column of that slot */
    /* flat part */
    int32_t n_flat;         /**< entries */
    int32_t *flat_col;      /**< [n_flat] */
    int32_t n_chunks;       /**< ceil(n_flat / 32) */
    uint32_t *chunk_head;   /**< [n_chunks] bit l: lane l starts a piece (bit 0 always set) */
    int32_t *chunk_piece;   /**< [n_chunks] piece of lane 0 */
    int32_t n_pieces;
    /* rows finished by the combine pass: rows with flat entries, and empty rows */
    int32_t n_aux;
    int32_t *aux_row;       /**< [n_aux], increasing */
    uint8_t *aux_has_seg;   /**< [n_aux] 1: the row also has segment entries */
    int32_t *aux_piece_ptr; /**< [n_aux+1] pieces of aux row m: aux_piece_ptr[m] .. [m+1]-1 */
    int32_t *aux_flat_ptr;  /**< [n_aux+1] flat entries of aux row m (host reference) */
} hs_acoo;

/** @brief Cost of the segment kernel (sec. IV-D): threads_required = seg_size,
 *  active = min(seg_size, MAX_THREADS), T = ceil(seg_size/active) * segments
 *  + ceil(active/32) * WARP_SCHEDULE_TIME; 0 for an empty part. */
double hs_acoo_cost_seg(int64_t seg_size, int64_t n_seg);
/** @brief Cost of the COO_flat kernel (sec. IV-D) on @p nnz entries with blocks of @p block_size:
 *  T = ceil(nnz/active) * log2(32) + nnz mod 32 + ceil(nnz/block_size) * log2(block_size)
 *  + ceil(nnz/32) * WARP_SCHEDULE_TIME, active = min(MAX_THREADS, nnz); 0 for an empty part. */
double hs_acoo_cost_flat(int64_t nnz, int block_size);

/**
 * @brief Build the ALIGNED_COO layout of @p pat.
 * @param[in] pat CSR pattern; @param[in] block_size threads per block (cost model);
 * @param[in] mode HS_ACOO_MODEL, or a mode to force (tests);
 * @param[out] out the layout (hs_acoo_free); @param[out] slot_of_nnz [nnz] slot of each nonzero;
 * @param[out] n_slots total slots.
 */
hs_status hs_acoo_build(const hs_csr *pat, int block_size, int mode, hs_acoo **out,
                        int64_t *slot_of_nnz, int64_t *n_slots);
/** @brief Free; accepts NULL. */
void hs_acoo_free(hs_acoo *a);
/** @brief CPU reference, y = A x with vals [n_slots], in the device kernels' order of summation. */
void hs_acoo_apply(const hs_acoo *a, const double *vals, const double *x, double *y);
/** @brief The layout of an aligned_coo hs_spmv_layout, or NULL for another format. */
const hs_acoo *hs_acoo_of(const hs_spmv_layout *lay);

#ifdef __cplusplus
}
#endif
#endif
