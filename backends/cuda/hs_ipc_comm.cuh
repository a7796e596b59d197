/**
 * @file hs_ipc_comm.cuh
 * @brief Private to backends/cuda/ (CUDA and MPI): the intra-node transport of the device comm
 * (hs_cuda_comm.h, parallel.transport = "ipc"; backends/cuda/ipc_comm.cu). Every rank exports one
 * device allocation (its ghosts' landing buffers, the sums' slots, the flag words) as a CUDA IPC
 * handle; every rank maps every other's. The halo and the sums are then kernels on the caller's
 * stream that store straight into the peers' memory (NVLink, PCIe, or the same device) and signal
 * device flags that the receivers' kernels wait on: no NCCL kernel, no host round trip, capturable
 * into a CUDA graph (the sequence numbers live on the device and advance in the kernels).
 */
#ifndef HS_IPC_COMM_CUH
#define HS_IPC_COMM_CUH

#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cuda_runtime.h>

#include "hs_status.h"

typedef struct hs_part_local hs_part_local; /* parallel/hs_partition.h */
struct hs_ipc;

/** Doubles one sum carries at most (the CG sends 3), and ranks at most (one thread each in the sum's
 *  block; one node holds far fewer GPUs). */
#define HS_IPC_SUM_MAX 64
#define HS_IPC_MAX_RANKS 64

/**
 * @brief Map the ranks' memory for the halo of view @p l (borrowed, outlives it) and the sums over
 * @p comm, on the current device. Collective over @p comm; every rank returns the same verdict (a
 * failure on one rank, e.g. cudaIpcOpenMemHandle refused, fails every rank, naming the first failing
 * one). The ranks must be on one node (the caller checks).
 */
hs_status hs_ipc_create(const hs_part_local *l, MPI_Comm comm, hs_ipc **out);
/** @brief Unmap the peers and free; accepts NULL, sets *p = NULL. The streams that used it must be idle. */
void hs_ipc_destroy(hs_ipc **p);

/** @brief Store d_x's boundary values (owned part, as @p s has it) into each neighbour's landing
 *  buffer and signal it: one kernel on @p s, no wait. */
hs_status hs_ipc_halo_start(hs_ipc *p, const double *d_x, cudaStream_t s);
/** @brief Wait (on the device, after what @p s has enqueued) for every neighbour's values of this
 *  exchange and copy them into d_x's ghosts [n_owned, n_owned + n_ghost): one kernel on @p s. */
hs_status hs_ipc_halo_finish(hs_ipc *p, double *d_x, cudaStream_t s);
/** @brief d_v[0..n) summed over the ranks in place (n <= HS_IPC_SUM_MAX), in rank order on every rank:
 *  every rank gets the same bits, run after run. One kernel on @p s. */
hs_status hs_ipc_sum(hs_ipc *p, double *d_v, int n, cudaStream_t s);
/** @brief After the streams' work was waited for: HS_OK, or the error of a wait that gave up (a
 *  peer silent for the timeout), naming the peer rank. */
hs_status hs_ipc_check(const hs_ipc *p);
/** @brief The longest a device wait spins before it gives up (default 20 s; tests shorten it). */
void hs_ipc_set_timeout(hs_ipc *p, double seconds);

#endif
