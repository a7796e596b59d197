/**
 * @file hs_dist.h
 * @brief The MPI layer over a rank's local view (hs_partition.h): halo exchange, the distributed
 * SpMV that overlaps the exchange with the interior rows, distributed Chronopoulos-Gear Jacobi-PCG
 * with one all-reduce per iteration, gathers of owned values to rank 0, and the per-rank partition
 * report. Built only with MPI (HS_HAS_MPI); the only part of heartsim that includes mpi.h.
 *
 * Vectors: "local" vectors have n_owned + n_ghost entries (owned first, ghosts after, the view's
 * numbering); "owned" vectors have n_owned. The CPU code is the reference of a later NCCL path.
 */
#ifndef HS_DIST_H
#define HS_DIST_H

#include "hs_build_config.h"

#if HS_HAS_MPI
#include <mpi.h>
#include <stdio.h>

#include "hs_cg.h"
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

/** Time spent, seconds, accumulated since creation (hs_dist_matrix). */
typedef struct hs_dist_times {
    double spmv;      /**< local products (interior + boundary rows) */
    double halo_wait; /**< waiting for the halo after the interior rows (exposed exchange time) */
    double allreduce; /**< MPI_Allreduce in the CG */
    long exchanges, allreduces;
} hs_dist_times;

/** Halo exchange of one local vector: post (start), overlap, wait (finish). */
typedef struct hs_halo hs_halo;

/** @brief Halo of view @p l on @p comm (both borrowed, must outlive it). */
hs_status hs_halo_create(const hs_part_local *l, MPI_Comm comm, hs_halo **out);
/** @brief Post the receives of x's ghosts and send the owned values neighbours hold as ghosts.
 *  x [n_owned + n_ghost] must not be touched in its ghost part until hs_halo_finish. */
hs_status hs_halo_start(hs_halo *h, double *x);
/** @brief Wait until the ghosts of the vector given to hs_halo_start have arrived. */
hs_status hs_halo_finish(hs_halo *h);
void hs_halo_destroy(hs_halo **h);

/** A distributed matrix: the view's local pattern (owned rows, local columns) with values. */
typedef struct hs_dist_matrix {
    const hs_part_local *l; /**< borrowed */
    MPI_Comm comm;
    const double *val;      /**< [l->pattern->nnz] borrowed values in the local pattern's order */
    hs_halo *halo;          /**< owned */
    hs_dist_times t;
} hs_dist_matrix;

/** @brief Matrix over view @p l with values @p val (both borrowed). */
hs_status hs_dist_matrix_create(const hs_part_local *l, MPI_Comm comm, const double *val, hs_dist_matrix **out);
void hs_dist_matrix_destroy(hs_dist_matrix **m);

/**
 * @brief y = A x on the owned rows: the halo of x is posted, the interior rows (no ghost column) are
 * computed while it travels, then the boundary rows after it arrived.
 * @param x [n_owned + n_ghost]: its owned part is read, its ghost part is filled; @param y [n_owned].
 */
hs_status hs_dist_spmv(hs_dist_matrix *a, double *x, double *y);

/** Work vectors of the distributed CG (owned length, u with ghosts). */
typedef struct hs_dist_cg_work hs_dist_cg_work;
hs_status hs_dist_cg_work_create(const hs_part_local *l, hs_dist_cg_work **out);
void hs_dist_cg_work_destroy(hs_dist_cg_work **w);

/**
 * @brief Chronopoulos-Gear Jacobi-PCG (seed 004 ch. 4) over the ranks, from x = 0: the same
 * recurrences as hs_cg_chronopoulos, arranged so that the three inner products of an iteration,
 * gamma = (r,u), delta = (Au,u) and (r,r), are formed after the SpMV and summed by a single
 * MPI_Allreduce. The stopping test ||r||_2 <= tol ||b||_2 is the serial one (global norms), so
 * every rank takes the same decisions. Same contract as hs_cg_jacobi: HS_OK whatever the outcome
 * (res says it), an error only for MPI failures.
 * @param inv_diag, b, x [n_owned].
 */
hs_status hs_dist_cg(hs_dist_matrix *a, const double *inv_diag, const double *b, double *x, const hs_cg_opts *opts,
                     hs_dist_cg_work *w, hs_cg_result *res);

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
