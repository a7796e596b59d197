/**
 * @file hs_dist_gpu.h
 * @brief The cuda backend on one rank's partition (backends/cuda/dist_gpu.cu, built with CUDA and
 * MPI): the rank's device, the Newton residual of the owned rows, and the solve. One rank solves with
 * the serial backend's own code (the comm has nothing to do); several run the serial device CG
 * (backends/cuda/cg.cu, Chronopoulos-Gear, every scalar on the device) over the owned rows, with the
 * halo exchange and the one all-reduce per iteration of the device comm (hs_cuda_comm.h: NCCL, or MPI
 * through pinned host buffers where NCCL is absent or ranks share a device). The host path (the cpu
 * backend's solve on a partition, solvers/cg.c over parallel/dist.c's comm) is the reference: the
 * same recurrences, sums and stopping test.
 */
#ifndef HS_DIST_GPU_H
#define HS_DIST_GPU_H

#include "hs_build_config.h"

#if HS_HAS_MPI && HS_HAS_CUDA
#include "hs_backend.h"
#include "hs_cg.h"
#include "hs_dist.h"
#include "hs_partition.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Choose this rank's device: its rank among the ranks of its node
 * (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)) modulo the node's device count; sets it for the cuda
 * backend (hs_gpu_set_device). Collective over @p comm (every rank calls it, with or without a
 * device: a rank without one returns HS_ERR_DEVICE after the collectives). @param[out] shared 1 on
 * every rank when two ranks of some node hold the same device (same PCI address).
 * @param[out] desc one line.
 */
hs_status hs_dist_gpu_select_device(MPI_Comm comm, int *shared, char *desc, size_t desc_len);


typedef struct hs_dist_gpu hs_dist_gpu;

/**
 * @brief The distributed solver over the inner cuda backend @p cuda (created on the local problem of
 * view @p l, its options adjusted by hs_cuda_part_ops.local_opts) on @p comm; @p transport: an hs_transport
 * (parallel.transport: auto, nccl, ipc, mpi; resolved by hs_cuda_comm_create). On several ranks it makes the
 * backend's CG solve over the owned rows (hs_gpu_cg_set_dist) until destroyed. All borrowed.
 * Collective. @p one_rank_serial 1: on a comm of one rank, solve with the serial backend's hs_cu_solve
 * (every serial path) and leave its CG alone; 0: the distributed CG on any comm (tests).
 */
hs_status hs_dist_gpu_create(hs_backend *cuda, const hs_part_local *l, MPI_Comm comm, int transport,
                             int one_rank_serial, hs_dist_gpu **out);
/** @brief 1 when the owned rows are multiplied in two blocks (csr_scalar: interior rows while the
 *  halo travels), 0 when the format's kernel multiplies the local matrix after the halo. */
int hs_dist_gpu_split(const hs_dist_gpu *g);
/**
 * @brief @p on 1: the CG replays its iterations from a CUDA graph of HS_CG_POLL of them where the comm
 * allows the capture (hs_cuda_comm_capturable: one rank, ipc, or NCCL >= 2.9), else launches them one by
 * one; 0: one by one. Returns 1 when the graph is used from now on. hs_dist_gpu_create sets it from
 * the inner backend's plan (solver.step = "graph"). Not with one_rank_serial on one rank (returns 0).
 * @p why (may be NULL): why not, when on and it returns 0.
 */
int hs_dist_gpu_set_graph(hs_dist_gpu *g, int on, char *why, size_t why_len);
/** @brief d_y[0..n_owned) = A d_x on the owned rows, the ghosts of d_x [n_local] exchanged first (what the
 *  distributed CG multiplies with; synchronous, for tests). Not with one_rank_serial on one rank.
 *  Collective. */
hs_status hs_dist_gpu_spmv(hs_dist_gpu *g, double *d_x, double *d_y);
/** @brief The comm's exchanges and all-reduces so far (t->spmv = -1: not timed apart). */
void hs_dist_gpu_times(const hs_dist_gpu *g, hs_dist_times *t);
/** @brief "NCCL 2.x.y", "MPI via host buffers" or "none (one rank)". */
const char *hs_dist_gpu_transport(const hs_dist_gpu *g);
/** @brief After the inner assemble: max over the owned rows of dt |R_i| / m_i (NaN: +inf) and its
 *  local row (this rank only). */
hs_status hs_dist_gpu_residual(hs_dist_gpu *g, double *v, int32_t *i_local);
/**
 * @brief Solve K du = R by the distributed CG from du = 0 (opts: tolerance already forced), then,
 * when it converged, phi -= du on the owned rows and the ghosts of phi refreshed from their owners.
 * @param[out] upd_local max |du| over the owned rows (this rank). Collective.
 */
hs_status hs_dist_gpu_solve(hs_dist_gpu *g, const hs_cg_opts *opts, hs_cg_result *res, double *upd_local);
void hs_dist_gpu_destroy(hs_dist_gpu **g);

/** The cuda backend on one rank's partition (hs_backend.h), over the functions above: prepare picks
 *  the device and the transport, local_opts (several ranks) refuses what the partition's CG does not
 *  run and turns off the graph and persistent paths. hs_backend_cuda.part points here. */
extern const hs_backend_part_ops hs_cuda_part_ops;

#ifdef __cplusplus
}
#endif
#endif
#endif
