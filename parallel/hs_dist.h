/**
 * @file hs_dist.h
 * @brief The MPI layer over a rank's local view (hs_partition.h): the rank's comm (solvers/hs_comm.h:
 * the halo exchange, posted before and awaited after the interior rows of an SpMV, and the sums and
 * maxima over the ranks) that a backend's own solver calls on a partition, gathers of owned values
 * to rank 0, and the per-rank partition report. Built only with MPI (HS_HAS_MPI); with
 * parallel/par.c, the backends' partition ops (backends/cpu/part_cpu.c, backends/cuda/dist_gpu.cu)
 * and backends/mpi the only code that includes mpi.h.
 *
 * Vectors: "local" vectors have n_owned + n_ghost entries (owned first, ghosts after, the view's
 * numbering); "owned" vectors have n_owned.
 */
#ifndef HS_DIST_H
#define HS_DIST_H

#include "hs_build_config.h"

#if HS_HAS_MPI
#include <mpi.h>
#include <stdio.h>

#include "hs_cg.h"
#include "hs_comm.h"
#include "hs_partition.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Call an MPI function; on failure return HS_FAIL (hs_util.h) with MPI's own message. */
#define HS_MPI_CALL(expr)                                                                          \
    do {                                                                                           \
        int hs_mpi_rc_ = (expr);                                                                   \
        if (hs_mpi_rc_ != MPI_SUCCESS) {                                                           \
            char hs_mpi_msg_[MPI_MAX_ERROR_STRING];                                                \
            int hs_mpi_len_ = 0;                                                                   \
            MPI_Error_string(hs_mpi_rc_, hs_mpi_msg_, &hs_mpi_len_);                               \
            return HS_FAIL(HS_ERR_INTERNAL, "%s failed: %s", #expr, hs_mpi_msg_);                  \
        }                                                                                          \
    } while (0)

/** @brief The communicator distributed objects are made on: MPI_COMM_WORLD, or the ranks of
 *  hs_par_subset_begin (hs_par.h). */
MPI_Comm hs_par_comm(void);

/** Time spent, seconds, accumulated since creation (a comm, a distributed solver). */
typedef struct hs_dist_times {
    double spmv;      /**< local products (interior + boundary rows) */
    double halo_wait; /**< waiting for the halo after the interior rows (exposed exchange time) */
    double allreduce; /**< MPI_Allreduce of the sums and maxima */
    long exchanges, allreduces;
    long host_waits;  /**< the host's synchronisations with a device (a device backend's partition: stream
                           synchronisations, CG polls; 0 for the host comm) */
} hs_dist_times;

/**
 * @brief The comm of rank view @p l on @p comm (both borrowed, must outlive it; solvers/hs_comm.h):
 * n_owned, n_interior and n_local from the view, the halo exchange (MPI_Isend/Irecv of the send lists,
 * ghosts grouped by owner land in place), sums and maxima by MPI_Allreduce. What a backend's solver
 * calls on a partition; its times in hs_comm_mpi_times. Free with hs_comm_mpi_destroy.
 */
hs_status hs_comm_mpi_create(const hs_part_local *l, MPI_Comm comm, hs_comm **out);
/** @brief Free a comm of hs_comm_mpi_create; accepts NULL, sets *c = NULL. */
void hs_comm_mpi_destroy(hs_comm **c);
/** @brief The halo wait and all-reduce times and counts of @p c so far (spmv: 0, the operator's). */
void hs_comm_mpi_times(const hs_comm *c, hs_dist_times *t);

/**
 * @brief Gather an owned vector into global numbering on @p root: out[l2g[i]] = v[i] over all
 * ranks (out [n_global], used on root only, may be NULL elsewhere). Collective.
 */
hs_status hs_dist_gather(const hs_part_local *l, MPI_Comm comm, int root, const double *v, double *out);

/**
 * @brief Gather values held once over the ranks into global numbering on @p root: out[idx_mine[k]]
 * = v[k]; the ranks' index sets must partition [0, n_global) (checked on root). Collective.
 * Global indices travel as int64; what one rank receives is limited by MPI's int counts (2^31 - 1
 * values: HS_ERR_CONFIG beyond).
 * root < 0: on every rank (gathered on 0, then broadcast); out [n_global] on every rank then.
 */
hs_status hs_dist_gather_idx(MPI_Comm comm, int root, int32_t n_mine, const int64_t *idx_mine, const double *v,
                             int64_t n_global, double *out);

/**
 * @brief The per-rank partition report, printed by rank 0 on @p f: owned, interior, ghost,
 * elements, nonzeros, neighbours, halo bytes per exchange of one vector, then the edge cut and the
 * imbalance. Collective. @param bal the balance of the whole partition (every rank has it);
 * @param f where rank 0 prints (NULL: nothing printed).
 */
hs_status hs_dist_report(const hs_part_local *l, MPI_Comm comm, const char *partitioner, const hs_part_balance *bal,
                         FILE *f);

#ifdef __cplusplus
}
#endif
#endif /* HS_HAS_MPI */
#endif
