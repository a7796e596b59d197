/**
 * @file hs_dist_gpu.h
 * @brief The cuda backend on one rank's partition (backends/cuda/dist_gpu.cu, dist_newton.cu, built
 * with CUDA and MPI): the rank's device, the Newton residual of the owned rows, the solve, and the
 * Newton loop of a step with its decisions on the device (hs_dist_gpu_newton). One rank solves with
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
/** @brief 1 when the CG's products multiply the owned rows in two blocks (csr_scalar: interior rows
 *  while the halo travels), 0 when after the halo: the format's kernel over the local matrix, or
 *  csr_scalar's rows within the ipc transport's fused iteration (whose vector kernel ends the halo). */
int hs_dist_gpu_split(const hs_dist_gpu *g);
/**
 * @brief @p on 1: the CG replays its iterations from a CUDA graph of HS_CG_POLL of them, and the device
 * Newton loop (hs_dist_gpu_newton) its sequences from CUDA graphs, where the comm allows the capture
 * (hs_cuda_comm_capturable: one rank, ipc, or NCCL >= 2.9), else they are launched one by one; 0: one
 * by one. Returns 1 when the graphs are used from now on. hs_dist_gpu_create sets it from the inner
 * backend's plan (solver.step = "graph"). Not with one_rank_serial on one rank (returns 0).
 * @p why (may be NULL): why not, when on and it returns 0.
 */
int hs_dist_gpu_set_graph(hs_dist_gpu *g, int on, char *why, size_t why_len);
/**
 * @brief @p on 1 (what hs_dist_gpu_create sets): with the ipc transport, each CG iteration runs the
 * transport inside its own kernels (backends/cuda/dist_pcg.cu, three kernels; the solve's init too);
 * 0: cg.cu's kernel sequence over the comm's halo and sum (nine), the same bits. Returns 1 when the fused iteration is used from
 * now on (never with another transport or on one rank). For tests and measurements; the graphs
 * captured so far are dropped.
 */
int hs_dist_gpu_set_fused(hs_dist_gpu *g, int on);
/**
 * @brief @p on 1 (what hs_dist_gpu_create sets): where the format's kernel offers apply_dot_rows
 * (ellwarp_*) and multiplies after the halo (not csr_scalar's split rows), the CG's product also forms
 * (A u, u) over the owned rows in the same pass, in the sequence and in the fused iteration alike (no
 * separate dot pass: backends/cuda/hs_dist_pcg.cuh); 0: the product, then the dot pass. The two
 * settings sum (A u, u) in different orders (the same bits within each: the fused iteration equals the
 * sequence). Returns 1 when the product forms the dot from now on. For tests and measurements; the
 * graphs captured so far are dropped.
 */
int hs_dist_gpu_set_spmv_dot(hs_dist_gpu *g, int on);
/**
 * @brief Where a fused CG iteration's time goes (the ipc transport only; HS_ERR_INTERNAL otherwise): the
 * microseconds per call of each phase replayed alone from a graph of @p K, the median of @p reps, in
 * @p us [n] (backends/cuda/hs_dist_pcg.cuh, HS_PCG_T_*: the iteration, the vector kernel with and
 * without its halo, the product, the dot kernel with the sums, the dot pass, the sum, the halo alone;
 * where the format can form the dot in the product, whatever hs_dist_gpu_set_spmv_dot says, the
 * iteration so, its vector kernel, its product and its one-block sum; else those -1).
 * Overwrites the CG's vectors (not within a solve). Collective. For tests and measurements.
 */
hs_status hs_dist_gpu_phase_times(hs_dist_gpu *g, int K, int reps, double *us, int n);
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
/**
 * @brief After the inner backend's begin_step: the Newton loop of the step on the partition with every
 * decision on the device (backends/cuda/dist_newton.cu): per Newton iteration the CG (the host polling
 * its status every HS_CG_POLL iterations), the update, the ghosts of phi, the element pass and assembly,
 * the owned rows' residual and update norms summed over the ranks as one vector (exact: each rank fills
 * only its own entries) and the test of fem/newton.c on one thread; the host reads the test once per
 * iteration. Replayed from CUDA graphs where hs_dist_gpu_set_graph says so, else launched one by one
 * (the same numbers, those of the host loop over hs_dist_gpu_residual and hs_dist_gpu_solve).
 * hs_backend_part_ops.newton's contract: @p out as hs_backend_ops.newton_device fills it, nodes global;
 * an element failure is returned only by the ranks that found it. Not with one_rank_serial on one rank.
 * Collective.
 */
hs_status hs_dist_gpu_newton(hs_dist_gpu *g, hs_newton_out *out);
void hs_dist_gpu_destroy(hs_dist_gpu **g);

/** The cuda backend on one rank's partition (hs_backend.h), over the functions above: prepare picks
 *  the device and the transport, local_opts (several ranks) refuses what the partition's CG does not
 *  run and turns off the serial graph and persistent paths, newton is hs_dist_gpu_newton.
 *  hs_backend_cuda.part points here. */
extern const hs_backend_part_ops hs_cuda_part_ops;

#ifdef __cplusplus
}
#endif
#endif
#endif
