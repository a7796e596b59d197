/**
 * @file hs_partition_scotch.h
 * @brief parallel.partition = "ptscotch" (parallel/partition_scotch.c, built with HS_HAS_PTSCOTCH):
 * PT-Scotch's parallel k-way partition of the node graph, every rank of the run holding a block of
 * consecutive rows. Private to parallel/: partition.c lists it (hs_partition_list.h) and calls it
 * through hs_partition_nodes_root (rank 0 holds the mesh) and hs_partition_rows_dist (every rank
 * holds the elements of its block of rows).
 */
#ifndef HS_PARTITION_SCOTCH_H
#define HS_PARTITION_SCOTCH_H

#include <stdint.h>

#include "hs_csr.h"
#include "hs_status.h"

/**
 * @brief The core. Collective over the run's communicator (hs_par_comm; MPI started): this rank holds
 * rows vtxdist[rank] .. vtxdist[rank+1]-1 of the node graph (@p vtxdist [size+1], alike on every rank,
 * checked by the caller: hs_partition_rows_dist) and the elements @p row_tets [n_row_elems][4] with a
 * vertex among them (global vertices in [0, vtxdist[size])); it builds its rows from them (the nodes
 * sharing an element, as hs_csr_from_tets), and SCOTCH_dgraphPart partitions the distributed graph
 * into @p n_parts (vertex weight = row nonzeros, 3 % imbalance, deterministic context). @p owner
 * [vtxdist[rank+1] - vtxdist[rank]] receives the block's owners. Every part owns a node (HS_ERR_CONFIG
 * otherwise); a graph whose node numbers or edge count exceed SCOTCH_Num is HS_ERR_CONFIG. Errors are
 * agreed.
 */
hs_status hs_ptscotch_partition_rows(const int64_t *vtxdist, int32_t n_row_elems, const int64_t *row_tets,
                                     int n_parts, int32_t *owner);

/**
 * @brief The root entry, around the core. Collective over the run's communicator (hs_par_comm; MPI
 * started): rank 0 passes the symmetric pattern @p a, or NULL and the mesh's elements @p tets
 * [n_elems][4], and receives @p part [n_nodes]; the other ranks pass NULL for all three. The blocks
 * are [q n / P, (q+1) n / P). With the pattern rank 0 sends each rank its block of rows; without it,
 * the elements with a vertex among the block's rows, from which the rank builds those rows itself
 * (the same rows: the nodes sharing an element), so no rank builds the whole pattern. As in the
 * core, SCOTCH_dgraphPart partitions the distributed graph into @p n_parts; rank 0 gathers the
 * owners. Every rank owns a node (HS_ERR_CONFIG otherwise). Errors are agreed: every rank returns the
 * first failing rank's.
 */
hs_status hs_ptscotch_partition_root(const hs_csr *a, int32_t n_nodes, int32_t n_elems, const int32_t *tets,
                                     int n_parts, int32_t *part);

#endif
