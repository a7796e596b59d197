/**
 * @file hs_partition_rows.h
 * @brief A block of consecutive rows of the node graph built from the elements that touch them
 * (global 64-bit vertices): private to parallel/ (partition.c defines it; hs_partition_rows_dist's
 * "nonzeros" counts each row's nonzeros with it, partition_scotch.c builds PT-Scotch's graph block).
 */
#ifndef HS_PARTITION_ROWS_H
#define HS_PARTITION_ROWS_H

#include <stdint.h>

#include "hs_status.h"

/** Called once per row r of the block, in order: @p nb [n_nb] the row's neighbours (global, sorted,
 *  each once, the row itself left out: the pattern's row without its diagonal). */
typedef hs_status (*hs_block_row_fn)(void *ctx, int32_t r, const int64_t *nb, int32_t n_nb);

/**
 * @brief Rows lo <= i < hi of the node graph of a P1 mesh: row i's neighbours are the other vertices
 * of the elements with vertex i, sorted and each once (the row hs_csr_from_tets makes, less its
 * diagonal). @p tets [n_elems][4] global vertices, each element once; elements without a vertex in
 * the range are passed over. @p fn gets each row (hi - lo <= INT32_MAX, the caller's duty).
 */
hs_status hs_partition_block_rows(int64_t lo, int64_t hi, int32_t n_elems, const int64_t *tets, hs_block_row_fn fn,
                                  void *ctx);

#endif
