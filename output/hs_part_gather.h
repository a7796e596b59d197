/**
 * @file hs_part_gather.h
 * @brief The rows of a distributed data set (hs_series_part: every rank its nodes and elements, each
 * by its global index) streamed to rank 0 in global order, one bounded chunk of global indices at a
 * time, for an encoder on rank 0 that writes each chunk before the next comes: no rank holds an array
 * over the whole mesh (rank 0 holds one chunk of rows and each rank its own rows' order). Used by the
 * legacy formats' part series and "xdmf_h5" with a serial HDF5 (output/format_vtk.c, output/format_xdmf.c,
 * output/format_xdmf_h5.c: hs_series_format_ops create_stream), the maps and per-beat maps of a
 * distributed run (hs_vtk_write_dataset_part), and the series' whole-mesh gather of a format without a
 * streaming writer (output/series.c). Internal to output/; built with MPI only (HS_HAS_MPI).
 *
 * Each message carries a rank's rows of one chunk with where they go: runs (start, length) of
 * consecutive global indices when the rank's rows make few runs (a partition into ranges: one run
 * per chunk), else each row's offset in the chunk (int32); rank 0 places them, and its own rows
 * straight from its arrays, and hands the chunk on.
 */
#ifndef HS_PART_GATHER_H
#define HS_PART_GATHER_H

#include <stddef.h>
#include <stdint.h>

#include "hs_series.h"
#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hs_part_gather hs_part_gather;

/** The widest row a gather carries (bytes): a tetrahedron's four 64-bit node indices. */
enum { HS_PART_GATHER_ROW_MAX = 32 };

/**
 * @brief Set up the gather of @p part (kept, borrowed until destroy): every rank sorts its rows by
 * global index, and rank 0 checks that the ranks' indices partition [0, n_global) of nodes and of
 * elements (HS_ERR_INTERNAL naming the first chunk that does not). Collective over part->comm
 * (duplicated); the status is agreed (every rank returns the first failing rank's). Refuses counts
 * beyond 2^31 - 1 (HS_ERR_CONFIG: the legacy files hold 32-bit node indices).
 */
hs_status hs_part_gather_create(const hs_series_part *part, hs_part_gather **out);

/** @brief Free; accepts NULL and sets *g = NULL. Collective (frees the duplicated communicator). */
void hs_part_gather_destroy(hs_part_gather **g);

/** @brief This rank in the part's communicator (0 writes). */
int hs_part_gather_rank(const hs_part_gather *g);

/** @brief The part the gather was made for (borrowed). */
const hs_series_part *hs_part_gather_part(const hs_part_gather *g);

/** @brief 1 when some rank has fibres (part->fiber non-NULL): the data set has a fibre array. */
int hs_part_gather_has_fiber(const hs_part_gather *g);

/** @brief The HS_MESH_FIELD_* bits of @p frame the part's data set has arrays for (hs_frame_mesh_arrays
 * of the whole mesh gathered from the part: region always, zeros where the part has none; fibre when
 * some rank has fibres). */
int hs_part_gather_mesh_arrays(const hs_part_gather *g, const hs_frame *frame);

/** @brief Rank 0's @p st and message on every rank (rank 0 alone wrote). Collective. */
hs_status hs_part_gather_agree_root(hs_part_gather *g, hs_status st);

/** @brief The first failing rank's @p st and message on every rank (hs_mpi_agree). Collective. */
hs_status hs_part_gather_agree_any(hs_part_gather *g, hs_status st);

/** @brief Rank 0's @p bytes at @p buf onto every rank: a choice that rank 0 alone can make, such as which
 * arrays its file lacks, so that every rank gathers the same arrays. Collective. */
void hs_part_gather_bcast(hs_part_gather *g, void *buf, int bytes);

/**
 * What rank 0 does with a chunk: rows [first, first + n) of global index, @p n rows back to back in
 * global order (the row size of the hs_part_gather_rows call), borrowed for the call.
 */
typedef hs_status (*hs_part_gather_put)(void *ctx, int64_t first, int64_t n, const void *rows);

/**
 * @brief One array over the nodes (@p cell 0) or the elements (@p cell 1): this rank's rows @p src
 * ([part->n_nodes or n_elems][row] bytes in the part's order; NULL: rows of zeros) to rank 0 in
 * global order, one chunk at a time; rank 0 calls @p put with each chunk before the next is received.
 * Collective: every rank calls it alike, and every rank goes through every chunk also after @p put
 * failed on rank 0 (which then is not called again). @p row at most HS_PART_GATHER_ROW_MAX.
 * @return on rank 0 @p put's first failure, HS_OK elsewhere (not agreed: the caller agrees).
 */
hs_status hs_part_gather_rows(hs_part_gather *g, int cell, const void *src, size_t row, hs_part_gather_put put,
                              void *ctx);

/**
 * @brief hs_part_gather_rows of rows of @p width 64-bit integers (@p src [n][width]; NULL: zeros),
 * sent and handed to @p put as int32 (rows of 4 @p width bytes): connectivity in global node indices,
 * which the legacy files hold in 32 bits (half the bytes on the way). A value outside [0, 2^31)
 * arrives as -1, for the encoder's range check to name.
 */
hs_status hs_part_gather_rows_i32(hs_part_gather *g, int cell, const int64_t *src, int width, hs_part_gather_put put,
                                  void *ctx);

/**
 * @brief The gather of @p s (a part series streamed or gathered through rank 0) when it was made
 * for @p part; NULL otherwise (a plain or collective series, another part, NULL). For one data set
 * beside a series (the maps), so that the set-up is done once. Defined in output/series.c.
 */
hs_part_gather *hs_series_part_gather(hs_series *s, const hs_series_part *part);

#ifdef __cplusplus
}
#endif
#endif
