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

#include "cuda_backend.cuh"
#include "hs_cuda_comm.h"
#include "hs_dist_gpu.h"

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

/** Enqueue on c->s the owned rows' max of dt |R_i| / m_i and its local row into g->d_resv, g->d_resi
 *  (dist_gpu.cu; NaN stays NaN: the largest). */
hs_status hs_dist_gpu_enqueue_residual(hs_dist_gpu *g);
/** Free the device Newton loop's data (dist_newton.cu); g->nt NULL after. */
void hs_dist_newton_free(hs_dist_gpu *g);

#endif
