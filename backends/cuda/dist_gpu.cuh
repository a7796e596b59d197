/**
 * @file dist_gpu.cuh
 * @brief Private to backends/cuda/ (CUDA-only header): the state of the cuda backend on one rank's
 * partition (hs_dist_gpu, hs_dist_gpu.h), shared by its files:
 *   dist_gpu.cu     the device choice, the partition's SpMV and sums (what the CG calls), the owned
 *                   rows' residual, the host-driven solve, set-up, the part ops table
 *   dist_newton.cu  the Newton loop of a step on the partition with every decision on the device
 *                   (hs_dist_gpu_newton), launched one by one or replayed from CUDA graphs
 */
#ifndef HS_DIST_GPU_CUH
#define HS_DIST_GPU_CUH

#include <climits>

#include "cuda_backend.cuh"
#include "hs_cuda_comm.h"
#include "hs_dist_gpu.h"
#include "hs_gpu_reduce.cuh"

struct hs_dist_newton; /* dist_newton.cu */

struct hs_dist_gpu {
    hs_backend *b;            /* borrowed: the inner cuda backend */
    cuda_impl *c;             /* its device state */
    const hs_part_local *l;   /* borrowed */
    hs_cuda_comm *comm;       /* owned */
    int size, rank;           /* ranks, this one */
    int split;                /* 1: csr_scalar's interior/boundary rows with the halo in flight */
    int32_t n_int, n_own;
    int32_t *d_rp, *d_col;    /* the owned rows' CSR pattern (split) */
    hs_gpu_cg_dist dist;      /* what c->cg calls on the partition */
    double *part, *h_part;    /* |du| block maxima (device, pinned) */
    double *d_resv, *h_resv;
    int *d_resi, *h_resi;
    int serial;               /* one rank, solved by the serial backend (hs_cu_solve) */
    hs_dist_times cap0;       /* the comm's counts when the CG's graph capture began */
    long cap_ex, cap_ar;      /* exchanges and all-reduces one launch of that graph runs */
    long waits;               /* the host's synchronisations with the device so far (hs_dist_times.host_waits) */
    char why_graph[160];      /* solver.step = graph, yet iterations launched one by one: why */
    struct hs_dist_newton *nt; /* the device Newton loop's data (dist_newton.cu), NULL until first used */
    const double *u_bound;    /* the ipc transport: the CG vector its neighbours map (hs_ipc_bind_vector) */
};

/** One block's share of the owned rows' max of dt |R_i| / m_i (NaN largest) and its row, into partv/parti
 *  [blockIdx.x] as k_assemble_r forms its block maxima (a grid of HS_RED_BLOCKS x HS_RED_THREADS): the
 *  kernel of hs_dist_gpu_enqueue_residual and the device Newton loop's fused test (dist_newton.cu) both
 *  run it, so both give the same pairs. Every thread of the block calls it. */
__device__ __forceinline__ void hs_res_owned_block(int32_t n, const double *__restrict__ rhs,
                                                   const double *__restrict__ inv_mass, double dt, double *partv,
                                                   int *parti, double *shv, int *shi)
{
    double best = 0.0;
    int bi = INT_MAX;
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        double w = fabs(rhs[i]) * dt * inv_mass[i];
        if (w > best || (isnan(w) && !isnan(best))) {
            best = w;
            bi = i;
        }
    }
    hs_block_maxloc(best, bi, shv, shi);
    if (threadIdx.x == 0) {
        partv[blockIdx.x] = best;
        parti[blockIdx.x] = bi;
    }
}

/** Enqueue on c->s the owned rows' max of dt |R_i| / m_i and its local row into g->d_resv, g->d_resi
 *  (dist_gpu.cu; NaN stays NaN: the largest). */
hs_status hs_dist_gpu_enqueue_residual(hs_dist_gpu *g);
/** One Newton test's verdict (hs_dist_newton_probe_test). */
struct hs_dist_newton_probe {
    int go, stop, k;
    long long res_node; /**< global */
    double res, upd;
};
/** For the GPU tests: one Newton test of the device loop (dist_newton.cu: the owned rows' residual of
 *  c->rhs, every rank's slots summed over the ranks, the test on the CG's device scalars and the |du|
 *  block maxima in g->part; @p first: after the first assembly), enqueued as the loop enqueues it, with
 *  the ipc transport as one fused kernel (@p fused, the loop's default) or as the kernel sequence,
 *  synchronised; its verdict. Collective. */
hs_status hs_dist_newton_probe_test(hs_dist_gpu *g, int fused, int first, hs_dist_newton_probe *out);
/** For the GPU tests: the device loop's update after a solve (phi -= du on the owned rows where the CG's
 *  device status says converged, the |du| block maxima into g->part, the ghosts of phi from their owners),
 *  with the ipc transport's halo start fused into the update (@p fused, the loop's default) or as the
 *  kernels k_update_phi, the comm's halo start and finish; synchronised. Collective. */
hs_status hs_dist_newton_probe_update(hs_dist_gpu *g, int fused);
/** For the GPU tests: the median microseconds of the Newton test (us[0]: residual, sum over the ranks,
 *  test, copy of the verdict to the host) and of the update with the ghosts of phi (us[1]), each replayed
 *  @p reps times from a CUDA graph of @p K, fused (@p fused: the ipc transport's single kernels) or as the
 *  kernel sequences. Collective. The comm's exchange and sum counts are left inexact. */
hs_status hs_dist_newton_time(hs_dist_gpu *g, int fused, int K, int reps, double us[2]);
/** Free the device Newton loop's data (dist_newton.cu); g->nt NULL after. */
void hs_dist_newton_free(hs_dist_gpu *g);

#endif
