/**
 * @file hs_comm.h
 * @brief What a Krylov solve and its operator need from the ranks of a run, with a serial no-op:
 * the shape of the rank's partition (owned rows, interior rows, local length) and its two kinds of
 * communication, the halo exchange of a vector (start, finish) and global sums.
 *
 * A serial run is one partition with no ghosts: hs_comm_serial(n) gives n owned rows, all interior,
 * and ops = NULL, so every call below does nothing and the solver runs the arithmetic it always ran.
 * A distributed run's comm (parallel/hs_dist.h, hs_comm_mpi_create) exchanges the ghosts of a local
 * vector with the neighbour ranks and sums over the ranks. This header has no MPI type: solvers/,
 * fem/ and backends/cpu include it (the layering: the interface lives with the solver that calls it,
 * the MPI implementation in parallel/ above it, as PETSc's PetscSF sits below its KSP).
 *
 * The cuda backend's device twin is backends/cuda/hs_cuda_comm.h (the same halo start/finish and
 * sums, of device vectors, enqueued on a stream): its CG on a partition (hs_gpu_cg_set_dist) has the
 * shape of hs_cg_chronopoulos over this comm.
 *
 * Local vectors: [0, n_interior) owned rows with no ghost column, [n_interior, n_owned) owned rows
 * with one, [n_owned, n_local) ghosts grouped by owner (parallel/hs_partition.h's numbering).
 */
#ifndef HS_COMM_H
#define HS_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The communication of a distributed comm (NULL in hs_comm: serial). Each returns HS_OK or the
 *  transport's error; every rank calls them in the same order (collective over the comm). */
typedef struct hs_comm_ops {
    /** Post the exchange of x's ghosts: x [n_local]'s owned part is read (sent to the ranks that
     *  hold those nodes as ghosts), its ghost part is filled by halo_finish; neither may change until
     *  then. One exchange in flight at a time. */
    hs_status (*halo_start)(void *impl, double *x);
    hs_status (*halo_finish)(void *impl);
    /** v[0..n) summed over the ranks, in place (one message for all n). */
    hs_status (*sum)(void *impl, double *v, int n);
} hs_comm_ops;

/** A rank's partition as the solver sees it, and its communication. */
typedef struct hs_comm {
    const hs_comm_ops *ops; /**< NULL: serial, every operation a no-op */
    void *impl;             /**< the implementation's (MPI communicator, halo lists, buffers) */
    int32_t n_owned;        /**< rows this rank solves for: a solver's vectors have this length */
    int32_t n_interior;     /**< owned rows with no ghost column (multiplied while the halo travels) */
    int32_t n_local;        /**< n_owned + ghosts: the length of an operator's input vector */
    hs_status err;          /**< first error of a halo exchange inside an operator (which returns void),
                                 reported by the next reduction */
} hs_comm;

/** @brief The serial comm of @p n rows: one partition, all rows owned and interior, no ghost. */
static inline hs_comm hs_comm_serial(int32_t n)
{
    hs_comm c = {NULL, NULL, n, n, n, HS_OK};
    return c;
}

/** @brief 1 when @p c has other ranks to talk to (not serial). */
static inline int hs_comm_distributed(const hs_comm *c) { return c && c->ops; }

/** @brief Start the halo exchange of @p x [n_local] (serial: nothing). */
static inline hs_status hs_comm_halo_start(hs_comm *c, double *x)
{
    return c && c->ops ? c->ops->halo_start(c->impl, x) : HS_OK;
}
/** @brief Wait for the ghosts of the vector of hs_comm_halo_start (serial: nothing). */
static inline hs_status hs_comm_halo_finish(hs_comm *c) { return c && c->ops ? c->ops->halo_finish(c->impl) : HS_OK; }
/** @brief Fill the ghosts of @p x from their owners (start then finish; serial: nothing). */
static inline hs_status hs_comm_halo(hs_comm *c, double *x)
{
    HS_CALL(hs_comm_halo_start(c, x));
    return hs_comm_halo_finish(c);
}
/** @brief v[0..n) summed over the ranks in place (serial: nothing); a halo error recorded in
 *  c->err since the last reduction is returned first. */
static inline hs_status hs_comm_sum(hs_comm *c, double *v, int n)
{
    if (!c || !c->ops) return HS_OK;
    if (c->err != HS_OK) return c->err;
    return c->ops->sum(c->impl, v, n);
}

#ifdef __cplusplus
}
#endif
#endif
