/**
 * @file hs_partition.h
 * @brief Node partitions of a P1 mesh over ranks and each rank's local view (host C, no MPI).
 *
 * A partitioner assigns every node (a row of the symmetric CSR pattern) to one rank. A rank owns
 * its nodes and holds every element that touches one of them, so the "K_elem . 1" gather of its
 * owned rows of K and R is complete on the rank (no assembly communication); the other nodes of
 * those elements are its ghosts, whose values arrive by the halo exchange. Local numbering:
 *
 *   [0, n_interior)            owned rows with no ghost column (SpMV while the halo is in flight)
 *   [n_interior, n_owned)      owned rows with a ghost column (SpMV after the halo arrived)
 *   [n_owned, n_owned+n_ghost) ghosts, grouped by owning rank (increasing), by global index within
 *
 * Within each of the first two groups nodes keep their global order, or, in a view made with a key
 * (hs_part_local_create_part_keyed: local RCM), the key's order; the ghosts keep the global order
 * either way. The send list to a neighbour q is the owned nodes that are ghosts of q, in increasing
 * global index (not local index, when keyed): the order q numbers them among its ghosts from this
 * rank, so a message is a plain array on both sides.
 *
 * Elements: in increasing global index, or, in a keyed view, by their smallest local node (ties:
 * global index), as mesh.reorder sorts a whole mesh's elements after renumbering its nodes, so that
 * the element pass reads and writes node data in step with the local order.
 */
#ifndef HS_PARTITION_H
#define HS_PARTITION_H

#include <stdint.h>

#include "hs_csr.h"
#include "hs_registry.h"
#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A partitioner (one line of hs_partition_list.h). */
typedef struct hs_partitioner {
    const char *name;    /**< config name (parallel.partition); first member (hs_registry) */
    const char *summary; /**< one line */
    const char *seed;    /**< reference */
    int available;       /**< 0: not built here (metis without METIS) */
    int needs_pattern;   /**< 0: assign reads pattern->n_rows only (hs_partition_nodes_n takes NULL) */
    /** part[i] in [0, n_parts) for each row i of the symmetric pattern; deterministic (every rank
     *  computes the same partition from the same pattern). */
    hs_status (*assign)(const hs_csr *pattern, int n_parts, int32_t *part);
    int box;             /**< 1: the structured box's blocks (hs_box_blocks): each rank generates its part
                              of the box, no rank the whole mesh; assign refuses (no pattern defines it) */
    int parallel;        /**< 1: partitions on every rank of a distributed run at once (ptscotch):
                              hs_partition_nodes_root runs it, assign refuses (one process alone) */
    /** the parallel partition (parallel = 1; NULL otherwise): hs_partition_nodes_root's contract */
    hs_status (*assign_root)(const hs_csr *pattern, int32_t n_nodes, int32_t n_elems, const int32_t *tets,
                             int n_parts, int32_t *part);
    int rows_dist;       /**< 1: partitions rows the ranks hold in blocks, no rank the whole graph
                              (hs_partition_rows_dist: ptscotch, rows, nonzeros; parallel.read = "ranks") */
} hs_partitioner;

/** The "box" partition: the lattice of the structured box's nodes, (cells + 1) per axis and
 *  numbered x fastest (hs_mesh_create_box), cut into parts[0] x parts[1] x parts[2] blocks. */
typedef struct hs_box_blocks {
    int64_t nodes[3]; /**< lattice nodes along x, y, z */
    int parts[3];     /**< blocks along x, y, z; their product is the rank count */
} hs_box_blocks;

/**
 * @brief The blocks of @p n_parts ranks over a box of @p cells cells per axis: of the
 * factorisations parts[0] parts[1] parts[2] = n_parts with at most one block per node along each
 * axis, the one with the fewest cut lattice faces (sum over axes of (parts - 1) x the face's nodes;
 * ties: the split along z, the slowest axis, whose blocks are contiguous global ranges). Along an
 * axis block b holds nodes [b N / p, (b+1) N / p): balanced in nodes to within one layer.
 * HS_ERR_CONFIG when no factorisation fits (more ranks than nodes).
 */
hs_status hs_box_blocks_make(const int64_t cells[3], int n_parts, hs_box_blocks *b);

/** @brief Rank @p rank's block: nodes lo[a] <= index_a < hi[a]. Rank = bx + px (by + py bz). */
void hs_box_blocks_range(const hs_box_blocks *b, int rank, int64_t lo[3], int64_t hi[3]);

/** @brief The rank owning lattice node @p gid (= i + nx (j + ny k)). */
int hs_box_blocks_owner(const hs_box_blocks *b, int64_t gid);

/** @brief The table of partitioners (entries hs_partitioner). Static storage. */
const hs_registry *hs_partitioners(void);

/**
 * @brief The partitioner called @p name; an unknown name is HS_ERR_CONFIG listing the names, a
 * listed one this build lacks is HS_ERR_CONFIG saying how to get it.
 * @param[in] key for messages ("parallel.partition"); @param[out] out the entry.
 */
hs_status hs_partitioner_lookup(const char *key, const char *name, const hs_partitioner **out);

/**
 * @brief Partition the nodes: part[i] = owning rank of row i. n_parts >= 1 and n_parts <= n_rows
 * (every rank owns at least one node: HS_ERR_CONFIG otherwise).
 * @param[in] pattern symmetric pattern (borrowed); @param[out] part [n_rows], caller's.
 */
hs_status hs_partition_nodes(const hs_partitioner *p, const hs_csr *pattern, int n_parts, int32_t *part);

/**
 * @brief hs_partition_nodes for @p n_nodes nodes, where @p pattern may be NULL when the
 * partitioner does not read it (needs_pattern = 0: "rows"); HS_ERR_INTERNAL otherwise.
 */
hs_status hs_partition_nodes_n(const hs_partitioner *p, const hs_csr *pattern, int32_t n_nodes, int n_parts,
                               int32_t *part);

/**
 * @brief The partition of a distributed run, called alike by every rank of its communicator
 * (hs_par_comm): rank 0 (@p root = 1) passes the pattern (NULL when the partitioner needs none) and
 * the mesh's elements @p tets [n_elems][4], and receives @p part [n_nodes]; the other ranks' pattern,
 * elements and part are not read. A partitioner of one process (metis, rows, nonzeros) runs on rank 0
 * alone, its errors rank 0's (the caller agrees on them); a parallel one (ptscotch) on every rank,
 * each with a block of the graph's rows (sent by rank 0 from the pattern, or built by the rank from
 * the elements rank 0 sends when there is no pattern), its errors agreed among the ranks. The result
 * is what hs_partition_nodes_n gives: owners, every rank owning a node.
 */
hs_status hs_partition_nodes_root(const hs_partitioner *p, const hs_csr *pattern, int32_t n_nodes, int32_t n_elems,
                                  const int32_t *tets, int n_parts, int root, int32_t *part);

/** @brief Edges {i, j}, i < j, of the pattern's graph whose ends are on different ranks. */
int64_t hs_partition_edge_cut(const hs_csr *pattern, const int32_t *part);

/** One rank's view of a partitioned mesh. */
typedef struct hs_part_local {
    int rank, n_ranks;
    int64_t n_global;   /**< nodes of the whole mesh */
    int32_t n_interior; /**< owned rows without ghost columns */
    int32_t n_owned;    /**< owned rows (interior first, then boundary) */
    int32_t n_ghost;    /**< ghost nodes, after the owned ones */
    int64_t *l2g;       /**< [n_owned + n_ghost] global index of each local node (64-bit: global ids
                             cross ranks; local indices, what the kernels read, stay 32-bit) */
    int32_t *ghost_owner; /**< [n_ghost] rank owning each ghost */
    int32_t n_elems;    /**< elements touching an owned node */
    int64_t *elems;     /**< [n_elems] their global indices (64-bit): increasing, or in a keyed view
                             ordered by smallest local node (hs_part_local_elem_order) */
    int32_t *tets;      /**< [n_elems][4] their nodes in local numbering */
    hs_csr *pattern;    /**< n_owned rows x (n_owned + n_ghost) columns, local column indices sorted
                             within rows; values zeroed */
    hs_csr *local_pattern; /**< (n_owned + n_ghost) square: the local elements' pattern, whose first
                             n_owned rows are @c pattern's; built by the views made from elements
                             (hs_part_local_create_elems, _part) for the rank's local problem to take
                             over (NULL once taken, or when the view did not build it) */
    int n_nbrs;         /**< neighbour ranks (own a ghost of this rank, or hold an owned node as ghost) */
    int32_t *nbr;       /**< [n_nbrs] their ranks, increasing */
    int32_t *send_ptr;  /**< [n_nbrs+1] into send_idx */
    int32_t *send_idx;  /**< local indices (owned, boundary) sent to nbr[k]: send_ptr[k] .. send_ptr[k+1]-1 */
    int32_t *recv_ptr;  /**< [n_nbrs+1] ghosts from nbr[k] are local n_owned + recv_ptr[k] .. n_owned + recv_ptr[k+1]-1 */
} hs_part_local;

/**
 * @brief Rank @p rank's view of partition @p part.
 * @param[in] pattern global symmetric pattern of the mesh (borrowed);
 * @param[in] n_elems, tets global elements [n_elems][4] (borrowed);
 * @param[in] part [n_rows] owner of each node; @param[out] out new view (hs_part_local_destroy).
 */
hs_status hs_part_local_create(const hs_csr *pattern, int32_t n_elems, const int32_t *tets, const int32_t *part,
                               int n_ranks, int rank, hs_part_local **out);
/**
 * @brief The same view as hs_part_local_create, from the elements alone: no global pattern (the
 * pattern of a P1 mesh is the node adjacency through its elements, so the owned rows, ghosts,
 * send lists and local pattern all follow from the elements touching owned nodes). One pass over
 * the global elements and one [n_global] index map; the local pattern is built from the local
 * elements. A distributed run uses it so that no rank builds the global pattern unless its
 * partitioner reads it.
 * @param[in] n_global nodes of the mesh; @param[in] n_elems, tets global elements [n_elems][4]
 * (borrowed); @param[in] part [n_global] owner of each node; @param[out] out new view.
 */
hs_status hs_part_local_create_elems(int64_t n_global, int32_t n_elems, const int32_t *tets, const int32_t *part,
                                     int n_ranks, int rank, hs_part_local **out);
/**
 * @brief The same view as hs_part_local_create_elems, from the rank's part of the mesh alone (no
 * global array): the elements touching its owned nodes and their nodes, each with its global
 * number and owner. Owned nodes are those with owner[i] == rank; every element of an owned node
 * must be among @p elem_gid (the caller's duty: a rank that generated or received its part).
 * @param[in] n_global nodes of the whole mesh; @param[in] n_nodes, node_gid, owner the part's nodes
 * [n_nodes] (any order; global numbers distinct); @param[in] n_elems, elem_gid, tets its elements
 * [n_elems] (global numbers increasing), [n_elems][4] in the part's node indices (vertex order kept);
 * elements without an owned node are dropped.
 * @param[out] out new view; @param[out] node_local [n_nodes] each part node's local index in the
 * view (-1: in no element kept); @param[out] elem_local [n_elems] each element's (-1: dropped).
 */
hs_status hs_part_local_create_part(int64_t n_global, int32_t n_nodes, const int64_t *node_gid, const int32_t *owner,
                                    int32_t n_elems, const int64_t *elem_gid, const int32_t *tets, int n_ranks,
                                    int rank, hs_part_local **out, int32_t *node_local, int32_t *elem_local);

/**
 * @brief The partition of a distributed run whose ranks each hold a block of consecutive rows and
 * no rank the whole graph (parallel.read = "ranks", issue 26). Collective over hs_par_comm().
 * @param[in] vtxdist [size + 1] the blocks: this rank holds rows vtxdist[rank] .. vtxdist[rank+1]-1
 * (alike on every rank); @param[in] n_row_elems, row_tets [n_row_elems][4] global node indices of the
 * elements with a vertex among this rank's rows (each such element once; other ranks hold it too);
 * the rows' columns are the other vertices of their elements.
 * @param[out] owner [vtxdist[rank+1] - vtxdist[rank]] the owning rank of each row of the block.
 * ptscotch: PT-Scotch on the distributed graph (vertex weight = row nonzeros, as hs_partition_nodes_root);
 * rows: equal blocks of consecutive rows over the whole graph (as hs_partition_nodes_n); nonzeros:
 * consecutive rows with equal nonzeros (as "nonzeros"); a partitioner of one process that reads the
 * whole graph (metis) is HS_ERR_CONFIG naming parallel.partition, and so is box. Every rank owns a
 * node. Errors agreed. The owners of rows and nonzeros are hs_partition_nodes_n's on the whole
 * graph, node for node; those of ptscotch on the blocks [q n / P, (q+1) n / P) are
 * hs_partition_nodes_root's. Outside a distributed run (one process, vtxdist = {0, n}) rows and
 * nonzeros give every node to rank 0; ptscotch is refused.
 */
hs_status hs_partition_rows_dist(const hs_partitioner *p, const int64_t *vtxdist, int32_t n_row_elems,
                                 const int64_t *row_tets, int32_t *owner);

/**
 * @brief The order of a part's nodes for locality (local RCM; issue 26): @p key [n_nodes] receives
 * ranks of the part's nodes in reverse Cuthill-McKee order of the graph of the part's elements @p tets
 * [n_elems][4] (part indices), starting from a pseudo-peripheral node of each connected piece: a
 * permutation of [0, n_nodes), deterministic (common/hs_rcm.h, the code mesh.reorder = "rcm" runs on a
 * whole mesh). hs_part_local_create_part_keyed orders each bucket of a view by it.
 */
hs_status hs_part_local_rcm_key(int32_t n_nodes, int32_t n_elems, const int32_t *tets, int64_t *key);

/**
 * @brief hs_part_local_create_part, with the owned nodes of each bucket (interior, boundary) in
 * increasing @p key [n_nodes] instead of increasing global number (NULL: the global number, and
 * hs_part_local_create_part's view); ties in global order. The ghosts and the halo lists keep the
 * order every rank agrees on (send lists in global order). The elements (given in increasing global
 * number, as for hs_part_local_create_part) are then ordered by their smallest local node, ties in
 * global order (hs_part_local_elem_order; @p elem_local follows them): the order mesh.reorder gives a
 * whole mesh whose nodes it numbered so. Writers and checkpoints sort rows by global number
 * themselves, so output is unchanged. Keys in [0, n_nodes) sort in linear time.
 */
hs_status hs_part_local_create_part_keyed(int64_t n_global, int32_t n_nodes, const int64_t *node_gid,
                                          const int32_t *owner, int32_t n_elems, const int64_t *elem_gid,
                                          const int32_t *tets, const int64_t *key, int n_ranks, int rank,
                                          hs_part_local **out, int32_t *node_local, int32_t *elem_local);

/**
 * @brief A view stored in its local order, read back (the partitioned mesh cache): the part's nodes
 * and elements as a view listed them (l2g with each node's owner; elems, in any order, each once;
 * tets in those indices), rebuilt into the same view, keyed or not: each bucket's nodes and the
 * elements keep the given order. Parameters as hs_part_local_create_part.
 */
hs_status hs_part_local_create_part_stored(int64_t n_global, int32_t n_nodes, const int64_t *node_gid,
                                           const int32_t *owner, int32_t n_elems, const int64_t *elem_gid,
                                           const int32_t *tets, int n_ranks, int rank, hs_part_local **out,
                                           int32_t *node_local, int32_t *elem_local);

/**
 * @brief The element order of a keyed view: @p pos [n_elems] receives the place of each of @p n_elems
 * elements, given in the view's element set and in increasing global number, in the order of their
 * smallest local node (a counting sort, stable: ties keep the given order, so independent of thread
 * count). @p tets [n_elems][4]: local node indices, or (with @p node_local) indices into
 * @p node_local, which maps them to local ones. Every element must have an owned vertex (local index
 * below @p n_owned): HS_ERR_INTERNAL otherwise. hs_part_local_create_part_keyed orders its elements
 * by it; a caller holding the part's elements in the given order finds their places in the view.
 */
hs_status hs_part_local_elem_order(int32_t n_owned, int32_t n_elems, const int32_t *tets, const int32_t *node_local,
                                   int32_t *pos);

/** @brief Free; accepts NULL and sets *p = NULL. */
void hs_part_local_destroy(hs_part_local **p);

/** What a rank holds and exchanges (the run's per-rank report). */
typedef struct hs_part_stats {
    int32_t owned, interior, ghost, elems, nbrs;
    int64_t nnz;        /**< nonzeros of the owned rows (SpMV work) */
    int64_t halo_bytes; /**< bytes sent plus received per halo exchange of one double vector */
} hs_part_stats;

/** @brief The stats of one rank's view. */
hs_part_stats hs_part_local_stats(const hs_part_local *l);

/** Balance of a partition over all ranks. */
typedef struct hs_part_balance {
    int64_t edge_cut;
    double imbalance_nodes; /**< max over ranks of owned nodes / mean */
    double imbalance_nnz;   /**< max over ranks of owned-row nonzeros / mean */
} hs_part_balance;

/** @brief Edge cut and imbalance of @p part (n_parts ranks) on @p pattern. */
hs_part_balance hs_partition_balance(const hs_csr *pattern, const int32_t *part, int n_parts);

#ifdef __cplusplus
}
#endif
#endif
