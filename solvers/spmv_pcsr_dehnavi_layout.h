/*
 * Private to solvers/, gpu/spmv_pcsr_dehnavi.cu and its tests: the host layout of the PCSR format
 * of Dehnavi, Fernandez & Giannacopoulos (seed 000 sec. IV; seed 004 ch. 3 and the atomic-free
 * update of ch. 4 sec. 4.4-A). Not part of the public registry interface (solvers/hs_spmv.h).
 *
 * Layout. Each row's nonzeros keep their CSR order; the row is zero-padded to a multiple of the
 * padding factor n (spmv.pcsr_padding), and the padded rows are laid end to end in one value/column
 * vector, itself padded with zeros to a multiple of the 256-entry partition. Partition p holds
 * slots [256 p, 256 p + 256) and is handled by 256 threads, one slot each; a block handles
 * spmv.pcsr_prefetch consecutive partitions. n divides 256, so a group of n slots never straddles
 * a partition and never holds two rows. A row whose slots lie in more than one partition is a
 * split row; the split vector lists it with the partitions it spreads over (seed 000 Fig. 3).
 *
 * Summation order (device kernel and CPU reference alike):
 *   product   q_k = val_k * x[col_k] (padding: 0.0, x not read)
 *   group     of n consecutive slots: a halving tree inside chunks of w = min(n, 32) slots
 *             (offsets w/2 .. 1), then a halving tree over the n/w chunk sums (offsets n/2w .. 1)
 *   piece     of a row in one partition: 0.0 + g_first + ... + g_last, its groups in order
 *   row       0.0 + piece_first_partition + ... + piece_last_partition, in partition order
 * so y_i = piece for a row inside one partition.
 */
#ifndef HS_SPMV_PCSR_DEHNAVI_LAYOUT_H
#define HS_SPMV_PCSR_DEHNAVI_LAYOUT_H

#include <stdint.h>

#include "hs_spmv.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Nonzeros per partition = threads per block (seed 000 sec. IV-B: "blocks of 256 elements"). */
#define HS_PCSR_PART 256

typedef struct hs_pcsr_layout {
    int32_t pad;          /**< padding factor n, a power of two dividing HS_PCSR_PART */
    int32_t prefetch;     /**< partitions per block (>= 1) */
    int32_t n_parts;      /**< number of partitions = n_slots / HS_PCSR_PART */
    int32_t n_split;      /**< entries of the split vector */
    int64_t nnz_padded;   /**< slots taken by the padded rows; the rest up to n_slots is tail padding */
    int32_t *prow_ptr;    /**< [n_rows+1] row i occupies slots [prow_ptr[i], prow_ptr[i+1]), multiples of pad */
    int32_t *col;         /**< [n_slots] column of each slot; -1 marks padding (x is not read there) */
    int32_t *part_row;    /**< [n_parts+1] first row touching partition p: the smallest i with
                               prow_ptr[i+1] > 256 p or prow_ptr[i] >= 256 p; part_row[n_parts] = n_rows */
    int32_t *split_row;   /**< [n_split] the split vector: a row that spreads over several partitions, */
    int32_t *split_first; /**< [n_split] the partition holding its first slot */
    int32_t *split_last;  /**< [n_split] and the one holding its last slot (> split_first) */
} hs_pcsr_layout;

/*
 * The partial sums of split rows ("pieces", seed 004 ch. 4: written by the SpMV kernel instead of
 * atomic updates of y, then combined by the y-update kernel): two per partition,
 *   [2p]   the piece of partition p's first row when that row began in an earlier partition,
 *   [2p+1] the piece of partition p's last row when it began in p and continues after p.
 * A partition lying wholly inside one row stores its piece in [2p]. Split row r over partitions
 * p0 < p1 therefore sums [2 p0 + 1], [2 (p0+1)], ..., [2 p1].
 */
#define HS_PCSR_PIECE_HEAD(p) (2 * (int64_t)(p))
#define HS_PCSR_PIECE_TAIL(p) (2 * (int64_t)(p) + 1)

/** @brief The PCSR arrays of a layout built by the pcsr_dehnavi format (borrowed; NULL for another format). */
const hs_pcsr_layout *hs_pcsr_layout_of(const hs_spmv_layout *lay);

/** @brief Sum of the group of lay->pad slots starting at slot s, in the order documented above. */
double hs_pcsr_group_sum(const hs_pcsr_layout *pl, const double *vals, const double *x, int64_t s);

#ifdef __cplusplus
}
#endif
#endif
