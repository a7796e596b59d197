/**
 * @file hs_mesh_block.h
 * @brief A volume mesh file read in blocks, each part of a run (an MPI rank) reading its own byte
 * range of each file (issue 26: no rank holds the whole mesh). Line-based formats only: openCARP
 * (.pts/.elem/.lon) and TetGen (.node/.ele). MPI-free: the caller numbers the blocks (an exclusive
 * prefix sum of the counts of phase 1 over the parts) and gives phase 2 the first global index of
 * each; phase 2 then names errors by file and line as the whole-file readers do.
 *
 * What a block holds is the file's data as the whole-file reader (hs_mesh_read_file) reads it,
 * before hs_mesh_parts_finish: node indices 0-based in file order (the file's index base removed),
 * coordinates in the file's units (mesh.scale is the caller's), no node dropped, no orientation
 * swapped. The whole mesh is the concatenation of the parts' blocks in part order.
 */
#ifndef HS_MESH_BLOCK_H
#define HS_MESH_BLOCK_H

#include <stdint.h>

#include "hs_mesh_io.h"
#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One part's block of a mesh file (hs_mesh_block_read; free with hs_mesh_block_free). */
typedef struct hs_mesh_block {
    int64_t n_nodes, n_elems; /**< the whole file's counts (its header lines) */
    int64_t node0;            /**< global index (0-based, file order) of this block's first node */
    int32_t nb_nodes;         /**< nodes in this block */
    double *xyz;              /**< [3 nb_nodes] coordinates, file units */
    int64_t elem0;            /**< global index of this block's first element */
    int32_t nb_elems;         /**< elements in this block */
    int64_t *tets;            /**< [4 nb_elems] 0-based global node indices, file order */
    int32_t *region;          /**< [nb_elems] element labels (0 where the file has none) */
    int64_t fiber0;           /**< global element index of this block's first fibre line */
    int32_t nb_fibers;        /**< fibre lines in this block (0 without a fibre file) */
    double *fiber;            /**< [3 nb_fibers] fibre directions as the whole reader keeps them; NULL
                                   when the mesh has no fibre file */
    int has_fibers;           /**< 1 when the mesh has a fibre file (every part says the same) */
} hs_mesh_block;

typedef struct hs_mesh_block_reader hs_mesh_block_reader;

/** Entries of the counts phase 1 gives and of the first indices phase 2 takes: the items (nodes,
 *  elements, fibre lines) and the lines (every line of the range, blank and comment lines included:
 *  error messages name lines) of the node, element and fibre files. */
enum { HS_MB_NODES, HS_MB_ELEMS, HS_MB_FIBERS, HS_MB_NODE_LINES, HS_MB_ELEM_LINES, HS_MB_FIBER_LINES,
       HS_MESH_BLOCK_COUNTS };

/** @brief 1 when @p path (mesh.file as hs_mesh_read_file takes it) is in a format read in blocks. */
int hs_mesh_block_supports(const char *path);

/**
 * @brief Phase 1: open @p path's files, read their headers, find part @p part of @p n_parts's byte
 * range of each file's data (split at line starts, so that the parts' ranges tile the data) and
 * count the items and lines in it (@p counts, indexed HS_MB_*). Reads the headers and this part's
 * range only, in bounded chunks.
 */
hs_status hs_mesh_block_open(const char *path, const hs_mesh_read_opts *o, int part, int n_parts,
                             hs_mesh_block_reader **r, int64_t counts[HS_MESH_BLOCK_COUNTS]);

/**
 * @brief Phase 2: parse this part's items; @p first = the sums of the counts of the parts before
 * this one (an exclusive prefix sum over the parts, indexed HS_MB_*). Errors name the file and line.
 * The last part (part n_parts - 1) also checks the totals against the headers (a file that ends
 * early, or goes on after its count), as the whole-file readers do.
 */
hs_status hs_mesh_block_read(hs_mesh_block_reader *r, const int64_t first[HS_MESH_BLOCK_COUNTS], hs_mesh_block *out);

/** @brief Close; accepts NULL and sets *r = NULL. */
void hs_mesh_block_reader_close(hs_mesh_block_reader **r);

/** @brief Free @p b's arrays and zero it. */
void hs_mesh_block_free(hs_mesh_block *b);

#ifdef __cplusplus
}
#endif
#endif
