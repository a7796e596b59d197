/**
 * @file hs_cuda_comm.h
 * @brief The device side of solvers/hs_comm.h for the cuda backend on a partition
 * (backends/cuda/cuda_comm.cu, built with CUDA and MPI): the halo exchange of a device vector (start,
 * finish) and the sum of a few device doubles over the ranks, all enqueued on the caller's stream so
 * that a CG iteration needs no host synchronisation. Three transports (parallel.transport,
 * fem/hs_transport_list.h; "auto" resolved at create), the same numbers up to the sums' order:
 *  - NCCL (HS_HAS_NCCL, libnccl.so.2 loadable on every rank, every rank on its own device): the
 *    send buffer packed on the compute stream, ncclSend/ncclRecv grouped on a side stream ordered by
 *    events (the interior rows multiply meanwhile), ncclAllReduce on the compute stream;
 *  - CUDA IPC peer memory (every rank on one node; backends/cuda/ipc_comm.cu): a kernel stores the
 *    boundary values straight into each neighbour's landing buffer and raises its device flag, the
 *    finish kernel waits for the flags and copies the ghosts in; a sum kernel stores the partials into
 *    every rank's slots, raises flags, waits, adds the slots in rank order (the same bits on every
 *    rank). No host wait, capturable; a wait that times out (20 s) is reported by hs_cuda_comm_check;
 *  - MPI through pinned host buffers (no NCCL, or ranks sharing a device): the stream is synchronised,
 *    the values copied down, MPI_Isend/Irecv or MPI_Allreduce, copied up.
 * The exchanges of one comm run one at a time, start then finish, enqueued on one stream (the ipc
 * transport's reuse of its buffers relies on it).
 * A NULL comm (a serial run) and a comm of one rank do nothing: the serial code path.
 * Plain C, no CUDA type: a stream is passed as `struct CUstream_st *` (what cudaStream_t is), so fem/,
 * sim/ and the MPI wrapper may include it.
 */
#ifndef HS_CUDA_COMM_H
#define HS_CUDA_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "hs_build_config.h"
#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct CUstream_st;                  /* cudaStream_t is struct CUstream_st * */
typedef struct hs_part_local hs_part_local; /* parallel/hs_partition.h */
typedef struct hs_dist_times hs_dist_times; /* parallel/hs_dist.h */
typedef struct hs_cuda_comm hs_cuda_comm;

/**
 * @brief The comm of rank view @p l (borrowed, outlives it) over the MPI communicator at @p mpi_comm
 * (an MPI_Comm passed by address; duplicated), on the current device. @p transport: an hs_transport
 * (fem/hs_exec_plan.h, parallel.transport): HS_TRANSPORT_AUTO chooses (ipc on one node with a device
 * per rank, else NCCL, else MPI; rank 0 logs the choice and why); a named one that cannot run here is
 * HS_ERR_CONFIG naming the key (NCCL whose communicator cannot be made falls back to MPI, rank 0 says
 * so). Every rank reaches the same choice. Collective.
 */
hs_status hs_cuda_comm_create(const hs_part_local *l, const void *mpi_comm, int transport, hs_cuda_comm **out);
/** @brief Free; accepts NULL, sets *c = NULL. */
void hs_cuda_comm_destroy(hs_cuda_comm **c);

/** @brief Ranks of the comm (1 for NULL). */
int hs_cuda_comm_size(const hs_cuda_comm *c);
/** @brief "NCCL 2.x.y", "CUDA IPC peer memory", "MPI via host buffers" or "none (one rank)". */
const char *hs_cuda_comm_transport(const hs_cuda_comm *c);
/** @brief The exchanges and all-reduces so far, and the host's waits for them (MPI transport). */
void hs_cuda_comm_times(const hs_cuda_comm *c, hs_dist_times *t);
/** @brief Add @p exchanges and @p allreduces (either sign) to the counts: a CUDA graph's capture counted
 *  calls that ran nothing, each of its launches runs them (backends/cuda/dist_gpu.cu). */
void hs_cuda_comm_count(hs_cuda_comm *c, long exchanges, long allreduces);
/**
 * @brief 1 when what hs_cuda_comm_sum_dev and the halo exchange enqueue may be captured into a CUDA
 * graph: one rank (nothing is exchanged or summed), the ipc transport (kernels whose sequence numbers
 * live on the device), or the NCCL transport with NCCL >= 2.9 loaded (ncclGetVersion; NCCL calls are
 * capturable since 2.9). The MPI transport waits on the host: 0. @p why (may be NULL) says which.
 */
int hs_cuda_comm_capturable(const hs_cuda_comm *c, char *why, size_t why_len);

/**
 * @brief After the host waited for the streams that ran this comm's work: HS_OK, or (ipc transport)
 * HS_ERR_DEVICE when a device-side wait gave up on a peer (silent for the timeout), naming it. Other
 * transports and NULL: HS_OK. Local (not collective): the caller's error agreement spreads it.
 */
hs_status hs_cuda_comm_check(const hs_cuda_comm *c);
/** @brief The ipc transport's timeout of a device-side wait (default 20 s); others: nothing. For tests. */
void hs_cuda_comm_set_timeout(hs_cuda_comm *c, double seconds);

/**
 * @brief d_v[0..n) (device) summed over the ranks in place, after whatever @p s has enqueued and
 * before what it enqueues next (NCCL: ncclAllReduce on @p s, no host wait; MPI: @p s synchronised).
 * Serial or one rank: nothing. Collective: every rank calls it as often, in the same order.
 */
hs_status hs_cuda_comm_sum_dev(hs_cuda_comm *c, double *d_v, int n, struct CUstream_st *s);

/**
 * @brief Post the exchange of d_x's ghosts: d_x [n_owned + n_ghost] on the device, its owned part read
 * as @p s has it now (packed on @p s), its ghost part filled once hs_cuda_comm_halo_finish has been
 * enqueued. One exchange in flight; the owned values may not change until then. Collective.
 */
hs_status hs_cuda_comm_halo_start(hs_cuda_comm *c, double *d_x, struct CUstream_st *s);
/** @brief What @p s enqueues next sees the ghosts of the vector of hs_cuda_comm_halo_start. */
hs_status hs_cuda_comm_halo_finish(hs_cuda_comm *c, double *d_x, struct CUstream_st *s);

/** @brief The ipc transport's state (backends/cuda/hs_ipc_comm.cuh), for kernels that fuse it with their
 *  own work (dist_pcg.cu); NULL with another transport, one rank or a NULL comm. */
struct hs_ipc *hs_cuda_comm_ipc(const hs_cuda_comm *c);

/**
 * @brief 1 when this process can use NCCL: the build has it (HS_HAS_NCCL) and libnccl.so.2 loads
 * (dlopen: the binary does not link it, so it starts where NCCL is absent); else 0 and @p why.
 */
int hs_cuda_nccl_available(char *why, size_t why_len);

#ifdef __cplusplus
}
#endif
#endif
