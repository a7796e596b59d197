/**
 * @file hs_partition_rows.h
 * @brief A block of consecutive rows of the node graph built from the elements that touch them
 * (global 64-bit vertices): private to parallel/ (partition.c defines it; hs_partition_rows_dist's
 * "nonzeros" counts each row's nonzeros with it, partition_scotch.c builds PT-Scotch's graph block).
 */
#ifndef HS_PARTITION_ROWS_H
#define HS_PARTITION_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "hs_status.h"

/**
 * @brief Rows lo <= i < hi of the node graph of a P1 mesh: row i's neighbours are the other vertices
 * of the elements with vertex i, sorted and each once (the row hs_csr_from_tets makes, less its
 * diagonal). @p tets [n_elems][4] global vertices, each element once; elements without a vertex in
 * the range are passed over. OpenMP threads share the rows; the result is the same for any count.
 * @param[out] deg [hi - lo] (caller's) each row's neighbours (its nonzeros are deg + 1);
 * @param[in] adj_width 4 or 8: the adjacency's integers, int32_t (every vertex < 2^31: the caller's
 * duty) or int64_t; @param[out] adj NULL: the degrees alone; else a new array [sum of deg] (free)
 * of the rows' neighbours one row after the other. hi - lo <= INT32_MAX (the caller's duty).
 */
hs_status hs_partition_block_rows(int64_t lo, int64_t hi, int32_t n_elems, const int64_t *tets, int32_t *deg,
                                  size_t adj_width, void **adj);

#endif
