/**
 * @file hs_dist_pcg.cuh
 * @brief Private to backends/cuda/: the distributed Chronopoulos-Gear iteration with the ipc transport
 * fused into its kernels (backends/cuda/dist_pcg.cu), and the device arithmetic it shares with the
 * kernel sequence of cg.cu (hs_gpu_cg_set_dist), so that the two give the same bits.
 *
 * The kernel sequence of an iteration on a partition (cg.cu): alpha and beta (1 thread), the vector
 * update, the halo's store kernel, its wait-and-copy kernel, the SpMV, the dot pass, the partials'
 * sums (1 block), the all-reduce (ipc: 1 block), the stopping test (1 thread): nine kernels, each a
 * launch-and-drain gap in a CUDA graph. Fused (hs_dist_pcg_enqueue):
 *   1. vector: every block forms alpha and beta from the scalars (the same numbers, the same bits),
 *      updates its rows, and stores the new u of each row another rank holds as a ghost straight into
 *      that rank's u (hs_ipc_bind_vector: the neighbours' CG vectors mapped; hs_ipc_dev_store_row);
 *      the last block (a ticket) raises the halo flags, waits for the neighbours' flags (their rows
 *      are then in this rank's ghosts of u) and writes the scalars;
 *   2. the SpMV w = A u (the format's own kernel; csr_scalar's two row blocks);
 *   3. dot: the partials of (w, u); the last block sums the three partial arrays in cg.cu's order,
 *      sums them over the ranks in rank order (hs_ipc_dev_block_sum) and runs the stopping test
 *      (and sets a WHILE node's condition: every rank has the same bits, so every rank stops alike).
 * Three kernels; the comm counts one exchange and one all-reduce per iteration, as the sequence. The
 * init likewise (hs_dist_pcg_enqueue_init: three kernels instead of eight).
 * With the dot in the product (spmv_dot: the format's apply_dot_rows, ellwarp_*; the serial CG's
 * "chronopoulos fused with the SpMV" on the owned rows), still three kernels but no separate dot pass:
 *   1. vector as above; its last block also sums the partials of (r,u), (r,r) into red[0], red[1]
 *      (hs_dist_sums<2>, between raising its flags and waiting for the neighbours');
 *   2. the product w = A u with (w, u) over the owned rows into red[2] (the format's kernel, its own
 *      partials and last-block sum in its fixed order);
 *   3. one block: the sum of red over the ranks, the test, the WHILE node's condition.
 * cg.cu's sequence with the same spmv_dot (hs_gpu_cg_dist.spmv_dot) computes the same numbers in the
 * same order (k_dist_final2 for red[0], red[1]; the same product kernel): the same bits. A format
 * without apply_dot_rows (cusparse_*, pcsr_*, csr_vector) and csr_scalar (its sequence multiplies the
 * interior rows while the halo travels, two kernels) keep the dot pass.
 * Reuse of u's ghosts without acknowledgement: a neighbour writes them for iteration m+1 in its vector
 * kernel, after its dot kernel (or, with spmv_dot, its one-block sum) of m saw this rank's sum flag of m,
 * which this rank raised after its SpMV of m had read them; and this rank's vector kernel of m waited for the neighbour's flag of m,
 * raised after the neighbour's stores of m, so no store of one solve lands after the next solve's
 * init (whose exchange goes through the landing buffers and copies into the ghosts).
 */
#ifndef HS_DIST_PCG_CUH
#define HS_DIST_PCG_CUH

#include <cuda_runtime.h>

#include <cmath>

#include "hs_gpu_cg.cuh"
#include "hs_status.h"

struct hs_ipc;

/** The totals of N partial arrays p[0..N) of @p n entries each (n <= 4 blockDim.x, blockDim.x a multiple of
 *  32) into out[0..N), the same bits in every thread: each thread issues all its loads (through L2: other
 *  blocks wrote them) before the first add, adds them in a fixed order, then a xor-shuffle tree per warp
 *  and warp 0 over the warps, the N sums interleaved (one L2 round trip and one tree for all, where N
 *  hs_sum_partials take N of each). Each total depends only on its own array and n, by the same adds in
 *  the same order whatever N: hs_dist_sums<2> over (A, B) gives hs_dist_sum3's bits for A and B (the
 *  fused iteration's vector kernel sums its two arrays so, cg.cu's k_dist_final2 likewise). Every thread
 *  of the block calls it; @p sh: 33 N doubles of shared memory. */
template <int N>
__device__ __forceinline__ void hs_dist_sums(int n, const double *const (&p)[N], double *sh, double (&out)[N])
{
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5, nw = blockDim.x >> 5;
    double v[N][4];
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        const int i = t + q * (int)blockDim.x;
        const bool in = i < n;
#pragma unroll
        for (int k = 0; k < N; ++k) v[k][q] = in ? __ldcg(p[k] + i) : 0.0;
    }
    double a[N];
#pragma unroll
    for (int k = 0; k < N; ++k) a[k] = (v[k][0] + v[k][1]) + (v[k][2] + v[k][3]);
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
#pragma unroll
        for (int k = 0; k < N; ++k) a[k] += __shfl_xor_sync(0xffffffffu, a[k], off);
    __syncthreads(); /* sh free (the caller's earlier use of it ended) */
    if (lane == 0)
#pragma unroll
        for (int k = 0; k < N; ++k) sh[32 * k + warp] = a[k];
    __syncthreads();
    if (warp == 0) {
#pragma unroll
        for (int k = 0; k < N; ++k) a[k] = lane < nw ? sh[32 * k + lane] : 0.0;
#pragma unroll
        for (int off = 16; off > 0; off >>= 1)
#pragma unroll
            for (int k = 0; k < N; ++k) a[k] += __shfl_xor_sync(0xffffffffu, a[k], off);
        if (lane == 0)
#pragma unroll
            for (int k = 0; k < N; ++k) sh[32 * N + k] = a[k];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < N; ++k) out[k] = sh[32 * N + k];
    __syncthreads(); /* sh free again */
}

/** hs_dist_sums over three arrays (cg.cu's k_dist_final3, the fused iteration's dot kernels); @p sh: 99
 *  doubles. */
__device__ __forceinline__ void hs_dist_sum3(int n, const double *pa, const double *pb, const double *pc, double *sh,
                                             double &a, double &b, double &c)
{
    const double *const p[3] = {pa, pb, pc};
    double o[3];
    hs_dist_sums<3>(n, p, sh, o);
    a = o[0];
    b = o[1];
    c = o[2];
}

/** One row of the CG's init (cg.cu's k_init, the fused init of dist_pcg.cu): x = 0, r = b, u = D^-1 b,
 *  p = 0, s = 0 (s may be NULL); adds the row's (r, u) to g and (b, b) to bb. */
__device__ __forceinline__ void hs_cg_init_row(int64_t i, const double *b, const double *dinv, double *x, double *r,
                                               double *u, double *p, double *s, double &g, double &bb)
{
    const double bi = b[i], ui = dinv[i] * bi;
    x[i] = 0.0;
    r[i] = bi;
    u[i] = ui;
    p[i] = 0.0; // classic sets p = z in its first iteration through beta = 0 as well
    if (s) s[i] = 0.0;
    g += bi * ui;
    bb += bi * bi;
}

/** The scalars after the init's sum over the ranks: red = (r,u), (A u, u), (b,b); @p tol the solve's
 *  relative tolerance (one thread). */
__device__ __forceinline__ void hs_dist_cg_init_final(const double *red, hs_gpu_cg_scalars *sc, double tol, int max_iter)
{
    const double bb = red[2];
    sc->gamma = red[0];
    sc->delta = red[1];
    sc->gamma_old = 0.0;
    sc->alpha = 0.0;
    sc->beta = 0.0;
    sc->bb = bb;
    sc->rr = bb;
    sc->tol = tol;
    sc->tol2 = tol * tol;
    sc->iters = 0;
    sc->fail_iter = 0;
    sc->max_iter = max_iter;
    sc->ticket = 0;
    sc->ticket_spmv = 0;
    sc->status = !isfinite(bb) ? HS_GPU_CG_NONFINITE : bb == 0.0 ? HS_GPU_CG_CONV
               : max_iter <= 0 ? HS_GPU_CG_MAXIT : HS_GPU_CG_RUNNING;
}

/** alpha, beta and (p, A p) of a distributed iteration from the reduced gamma, gamma_old, delta and the
 *  last alpha (hs_cg_chronopoulos's); 0 and the verdict in *status when the iteration breaks down. */
__device__ __forceinline__ int hs_dist_cg_coef(const hs_gpu_cg_scalars *sc, double *alpha, double *beta, double *denom,
                                               int *status)
{
    const int it = sc->iters;
    const double g = sc->gamma;
    const double b = it == 0 ? 0.0 : g / sc->gamma_old;
    const double d = it == 0 ? sc->delta : sc->delta - b * g / sc->alpha; // = (p, A p)
    if (!(d > 0.0) || !(g > 0.0)) {
        *status = isfinite(d) && isfinite(g) ? HS_GPU_CG_BREAK : HS_GPU_CG_NONFINITE;
        return 0;
    }
    *alpha = g / d;
    *beta = b;
    *denom = d;
    return 1;
}

/** The test after the all-reduce of (r,u), (r,r), (A u, u) in red: ||r|| <= tol ||b|| as solvers/cg.c
 *  (one thread; nothing once the solve stopped). */
__device__ __forceinline__ void hs_dist_cg_test(const double *red, hs_gpu_cg_scalars *sc)
{
    if (sc->status != HS_GPU_CG_RUNNING) return;
    const int it = sc->iters + 1;
    sc->gamma_old = sc->gamma;
    sc->gamma = red[0];
    sc->rr = red[1];
    sc->delta = red[2];
    sc->iters = it;
    if (!isfinite(red[1])) sc->status = HS_GPU_CG_NONFINITE;
    else if (red[1] <= sc->tol2 * sc->bb) sc->status = HS_GPU_CG_CONV;
    else if (it >= sc->max_iter) sc->status = HS_GPU_CG_MAXIT;
}

/** y[0..n_owned) = A x, x's ghosts in place (dist_gpu.cu's part_spmv_ready). */
typedef hs_status (*hs_dist_spmv_started_fn)(void *ctx, double *x, double *y, cudaStream_t s);
/** y[0..n_owned) = A x and (y, x) over the owned rows into *result in the same kernel (the format's
 *  apply_dot_rows: partials @p part [max_parts], @p ticket 0 between launches), x's ghosts in place
 *  (dist_gpu.cu's part_spmv_dot_ready). */
typedef hs_status (*hs_dist_spmv_dot_fn)(void *ctx, double *x, double *y, double *part, int max_parts, unsigned *ticket,
                                         double *result, cudaStream_t s);

/**
 * @brief Enqueue one iteration of @p cg (on a partition: hs_gpu_cg_set_dist, cg->n the owned rows) on
 * @p s with the ipc transport @p ipc fused into its kernels (the comment above); @p spmv_started, @p ctx:
 * the rest of the product; @p spmv_dot (NULL: the product then a dot pass) the product with the dot
 * (the comment above). The same bits as cg.cu's kernel sequence over the same transport with the same
 * spmv_dot (NULL or not). With @p use_cond the last kernel sets @p cond to "still running" after the
 * test (the body of hs_gpu_cg_capture_solve's WHILE node: a whole solve without a host poll).
 */
hs_status hs_dist_pcg_enqueue(hs_gpu_cg *cg, double *x, struct hs_ipc *ipc, hs_dist_spmv_started_fn spmv_started,
                              hs_dist_spmv_dot_fn spmv_dot, void *ctx, cudaStream_t s, cudaGraphConditionalHandle cond,
                              int use_cond);
/**
 * @brief Enqueue the init of a solve of @p cg (as hs_dist_pcg_enqueue: on a partition, the ipc transport
 * fused in, u bound) from x = 0 with tolerance @p t: three kernels (the rows' init storing u's sent
 * rows into the neighbours' ghosts, the product, the dot with the sums over the ranks and the
 * scalars) instead of cg.cu's eight, the same bits; with @p spmv_dot the product forms (A u, u) and one
 * block sums over the ranks; with @p use_cond the last sets @p cond.
 */
hs_status hs_dist_pcg_enqueue_init(hs_gpu_cg *cg, const double *b, double *x, const hs_gpu_cg_tol *t, struct hs_ipc *ipc,
                                   hs_dist_spmv_started_fn spmv, hs_dist_spmv_dot_fn spmv_dot, void *ctx,
                                   cudaStream_t s, cudaGraphConditionalHandle cond, int use_cond);

/** The phases hs_dist_pcg_phase_times measures (microseconds per call, each replayed alone from a graph). */
enum {
    HS_PCG_T_ITER,       /**< a whole fused iteration (vector + product + dot) */
    HS_PCG_T_VECTOR,     /**< the vector kernel with its halo (stores, flags, the wait) */
    HS_PCG_T_VECTOR_LOC, /**< the same kernel without the halo (no stores, no flags) */
    HS_PCG_T_SPMV,       /**< the product (the format's kernel) */
    HS_PCG_T_DOT_SUM,    /**< the dot kernel with the sums over the ranks and the test */
    HS_PCG_T_DOT,        /**< the dot pass alone (hs_gpu_dot_pass) */
    HS_PCG_T_SUM,        /**< the transport's sum of 3 doubles alone (hs_ipc_sum) */
    HS_PCG_T_HALO,       /**< the transport's halo of u alone (hs_ipc_halo_start + finish, landing buffers) */
    /* with the dot in the product (spmv_dot; -1 when the format has none) */
    HS_PCG_T_ITER_DOT,   /**< a whole fused iteration (vector with its two sums + product with the dot + one block) */
    HS_PCG_T_VECTOR_RED, /**< the vector kernel with its halo and its last block's two sums */
    HS_PCG_T_SPMV_DOT,   /**< the product with the dot over the owned rows (apply_dot_rows) */
    HS_PCG_T_SUM_TEST,   /**< the one block: the sum of 3 doubles over the ranks and the test */
    HS_PCG_T_N
};

/**
 * @brief Time each phase of the fused iteration on its own (bench and tests: where an iteration's time
 * goes): each is captured K times into a graph, replayed @p reps times after one warm launch, the median
 * per call in @p us [HS_PCG_T_N] (the HS_PCG_T_*_DOT, _RED, _SUM_TEST ones only with @p spmv_dot, else
 * -1). Runs the CG's init first and between phases (the vectors and scalars are
 * overwritten: not within a solve). Collective: every rank calls it with the same K and reps.
 */
hs_status hs_dist_pcg_phase_times(hs_gpu_cg *cg, const double *b, double *x, struct hs_ipc *ipc, hs_dist_spmv_started_fn spmv,
                                  hs_dist_spmv_dot_fn spmv_dot, void *ctx, cudaStream_t s, int K, int reps,
                                  double *us);

#endif
