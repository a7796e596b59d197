/**
 * @file hs_backend_mpi.h
 * @brief The distributed backend: one simulation over the ranks of MPI_COMM_WORLD. Every rank
 * holds the global mesh (sim/ builds it, and on rank 0 the global pattern for a partitioner that
 * reads it, but not the global element geometry and gather maps), rank 0 partitions the nodes
 * (parallel.partition) and sends the partition, each rank cuts its view from the elements
 * (hs_part_local_create_elems) and runs an inner backend (any with partition ops, hs_backend_entry.part:
 * cpu, or cuda on the rank's device) on its local mesh: the elements touching its owned nodes
 * (with their regions), whose other nodes are ghosts. The inner backend is reached through its ops
 * only (hs_backend_ops, hs_backend_part_ops), never its fields. Its element pass and "K_elem . 1"
 * assembly give complete owned rows; this wrapper makes every decision global: the Newton residual
 * (max over owned rows with a 64-bit global node), the update norm, errors (the first failing
 * rank's message goes to all), and solves through the inner backend's partition ops (solve: the
 * cpu backend's own solve over the rank's comm, hs_comm_mpi_create of parallel/hs_dist.h, or the
 * cuda backend's device CG of backends/cuda/hs_dist_gpu.h), which refreshes the ghosts of phi. An
 * inner backend whose partition ops run the Newton loop themselves (hs_backend_part_ops.newton: the
 * cuda backend, its decisions on the device) gets it whole when the plan's step is not "kernels": this
 * backend's newton_device then only agrees on its errors.
 * Probes and ECG: each rank applies the sample sets' entries of its owned nodes, the fetch sums the
 * ranks' rows on every rank. Its state is the global one: get_state gathers every field onto every
 * rank (dst's NULL fields land in a scratch buffer), set_state takes the global state on every rank.
 * Every op is collective: all ranks call them in the same order (sim/'s protocol scheduler and step
 * driver do).
 * No MPI type here; built when HS_HAS_MPI.
 */
#ifndef HS_BACKEND_MPI_H
#define HS_BACKEND_MPI_H

#include "hs_backend.h"
#include "hs_backends.h"
#include "hs_partition.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Distributed time per phase beyond hs_phase_times (seconds, this rank). */
typedef struct hs_mpi_times {
    double halo_wait, allreduce, spmv;
    long exchanges, allreduces;
    long host_waits; /**< the host's waits for the device or the other ranks: the wrapper's collectives
                          (error agreement, residual and update norms), the inner backend's synchronisations
                          (assembly, tangent, CG polls, the device Newton loop's reads of its test) */
} hs_mpi_times;

/** This rank's set-up phases (seconds) in hs_backend_mpi_create. */
typedef struct hs_mpi_setup_times {
    double partition; /**< the partition (rank 0's partitioner, broadcast) and the rank's local view */
    double scatter;   /**< the local mesh, stimulus sites and regions cut from the global ones */
    double maps;      /**< the local problem: pattern, element geometry, gather maps, K_D */
    double upload;    /**< the inner backend on the local problem (allocation, upload) and its binding */
} hs_mpi_setup_times;

/**
 * @brief The distributed backend over @p global (borrowed, must outlive it; its pattern is read
 * on rank 0 only, by a partitioner that needs it, and may be NULL elsewhere) with the nodes
 * partitioned by @p part; the inner backend is @p inner ("cpu", or "cuda" in a build with CUDA: each
 * rank's device chosen from its node-local rank, hs_dist_gpu_select_device). Prints the per-rank
 * partition report on rank 0 when hs_verbosity >= 1. Collective.
 */
hs_status hs_backend_mpi_create(const hs_problem *global, const hs_partitioner *part, const hs_backend_entry *inner,
                                hs_backend **out);

/** @brief This rank's set-up phases of a backend made by hs_backend_mpi_create. */
void hs_backend_mpi_setup_times(const hs_backend *b, hs_mpi_setup_times *t);

/** @brief This rank's halo and all-reduce times of a backend made by hs_backend_mpi_create. */
void hs_backend_mpi_times(const hs_backend *b, hs_mpi_times *t);

/** @brief The ranks a distributed backend created now would run on (the current communicator:
 *  hs_par_subset_begin's in `heartsim bench scale`). */
int hs_backend_mpi_ranks(void);

/** A rank's own share of the run, for output written without a gather (sim/run_output.c): each node
 *  by its owner, each element by the owner of its first node (as get_state reports them). Borrowed
 *  from the backend. */
typedef struct hs_backend_mpi_view {
    const void *comm;               /**< the backend's MPI_Comm, as a pointer to it */
    const hs_part_local *part;      /**< the rank's view: n_owned, l2g (owned nodes first), n_global */
    const hs_mesh *lmesh;           /**< the rank's mesh: local nodes (owned first), local elements */
    int32_t n_elems_mine;           /**< elements this rank reports */
    const int32_t *elem_mine_local; /**< [n_elems_mine] their index in lmesh */
    const int64_t *elem_mine_global; /**< [n_elems_mine] their global index, increasing */
} hs_backend_mpi_view;

/** @brief The view of a backend made by hs_backend_mpi_create. */
void hs_backend_mpi_view_get(const hs_backend *b, hs_backend_mpi_view *v);

/**
 * @brief This rank's values of the non-NULL fields of @p dst, a state of n_owned nodes and
 * n_elems_mine elements (hs_backend_mpi_view): node fields in owned order, element fields in
 * elem_mine order. No gather; collective only in agreeing on errors.
 */
hs_status hs_backend_mpi_get_owned(hs_backend *b, hs_state *dst);

/** @brief The extrapolation history (hs_backend_ops.get_history) at this rank's owned nodes:
 *  @p phi1, @p phi2 [n_owned] (each may be NULL), filled as ex->n_valid says. No gather. */
hs_status hs_backend_mpi_get_owned_history(hs_backend *b, hs_extrap *ex, double *phi1, double *phi2);

#ifdef __cplusplus
}
#endif
#endif
