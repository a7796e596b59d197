/**
 * @file hs_dist_gpu.h
 * @brief The device half of a distributed run with the cuda backend on each rank (issue 14, layer
 * 3; backends/cuda/dist_gpu.cu, built with CUDA and MPI): the rank's device, the Newton residual of
 * the owned rows, and the distributed Chronopoulos-Gear Jacobi-PCG on the device over the inner
 * cuda backend's local system (its K, R, Jacobi diagonal, du and phi stay on the device). The
 * halo exchange and the one all-reduce per CG iteration go through a transport:
 *  - NCCL (HS_HAS_NCCL, every rank of a node on its own device): ncclSend/ncclRecv of device
 *    buffers in one group on a second stream, ncclAllReduce of the three CG scalars; the
 *    communicator from ncclGetUniqueId on rank 0, broadcast with MPI_Bcast; libnccl.so.2 loaded
 *    at run time (dlopen), so the binary starts where NCCL is not installed;
 *  - MPI through pinned host buffers (a build without NCCL, libnccl not loadable on some rank, or
 *    ranks sharing a device, which one NCCL communicator does not allow): the send buffer packed on the device and copied down, the
 *    ghosts copied up.
 * Both overlap the exchange with the SpMV of the interior rows. The host path (parallel/dist.c,
 * the cpu backend) is the reference: the same recurrences, scalars and stopping test.
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

/**
 * @brief 1 when this process can use NCCL: the build has it (HS_HAS_NCCL) and libnccl.so.2 loads
 * (dlopen: the binary does not link it, so it starts where NCCL is absent); else 0 and @p why.
 */
int hs_dist_gpu_nccl_available(char *why, size_t why_len);

typedef struct hs_dist_gpu hs_dist_gpu;

/**
 * @brief The distributed solver over the inner cuda backend @p cuda (created on the local problem
 * of view @p l, with solver.spmv csr_scalar and float64 values: its slots are the CSR nonzeros) on
 * @p comm; @p use_nccl 1: NCCL transport (HS_ERR_CONFIG when not built), 0: MPI through the host.
 * All borrowed. Collective. @p t: where times accumulate (borrowed).
 */
hs_status hs_dist_gpu_create(hs_backend *cuda, const hs_part_local *l, MPI_Comm comm, int use_nccl,
                             hs_dist_times *t, hs_dist_gpu **out);
/** @brief "NCCL 2.x.y" or "MPI via host buffers". */
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
 *  the device and the transport, local_opts refuses float32 values and turns off the solver paths
 *  the distributed CG replaces. hs_backend_cuda.part points here. */
extern const hs_backend_part_ops hs_cuda_part_ops;

#ifdef __cplusplus
}
#endif
#endif
#endif
