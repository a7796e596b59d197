/**
 * @file hs_gpu_cg1.cuh
 * @brief Jacobi-PCG (Chronopoulos-Gear) with ONE grid barrier per iteration, as device code run by every
 * thread of a cooperative grid (CUDA-only header). Used by the persistent CG kernel
 * (backends/cuda/cg_persistent.cu) and by the persistent time step (backends/cuda/step_persistent.cu).
 *
 * Chronopoulos-Gear needs (w, u) right after w = A u and a barrier before the next SpMV, which reads u
 * of other blocks' rows: two barriers per iteration (cg_persistent.cu's two-barrier kernel). Here the
 * SpMV of iteration m+1 runs in the same phase as the vector update of iteration m: the thread group
 * of row i does not wait for its neighbours j to publish u_{m+1,j}, it recomputes it from what they
 * published one phase earlier,
 *     u_{m+1,j} = D_j (r_{m,j} - alpha_m (w_{m,j} + beta_m s_{m-1,j})),
 * with the same fused operations as row j's owner (hs_cg1_r_next), so the value is the owner's bit
 * for bit. This is the matrix powers kernel of seed 004 ch. 6 at depth one: a little redundant
 * arithmetic on the ghost rows (here: every column of a row) buys away a synchronisation. A phase
 * reads buffer m & 1 of {r, s, w, D} (one 32-byte record per row, so a neighbour costs one sector)
 * and writes buffer (m+1) & 1; x and p are read and written by their owner only.
 *
 * A phase: every warp sums the previous phase's block partials of (r, u), (r, r), (w, u) in a fixed
 * order (the same totals, bit for bit, in every block: all blocks take the same alpha, beta and
 * convergence verdict), tests convergence as solvers/cg.c does (||r|| <= tol ||b|| after the update),
 * then updates its rows and forms the next SpMV and the block's partials, then the grid barrier.
 * Rows are served by groups of TPR lanes (1, 2, 4 or 8): a row's nonzeros are split across the group
 * and summed by a shuffle butterfly (commutative: every lane gets the same bits).
 */
#ifndef HS_GPU_CG1_CUH
#define HS_GPU_CG1_CUH

#include <cooperative_groups.h>

#include <cmath>

#include "hs_gpu_cg.cuh"

/** What one solve works on; every pointer is device memory. */
struct hs_cg1_ctx {
    int32_t n;
    const int32_t *rp, *col; /**< CSR pattern */
    const int64_t *slot;     /**< slot of each CSR nonzero in val (NULL: CSR order) */
    const void *val;         /**< matrix values, double or float (template V) */
    const double *dinv, *b;  /**< Jacobi D^-1, right-hand side */
    double *x, *p;           /**< [n] solution (written from 0), direction */
    double4_32a *q[2];           /**< [n] each: {r, s, w, D^-1} of two consecutive phases */
    double *part;            /**< [2][3][gridDim.x] block partials */
};

/** What a solve ends with (identical in every thread). */
struct hs_cg1_out {
    int status, iters, fail_iter;
    double bb, rr, gamma, gamma_old, alpha, beta, denom;
};

/** r_{m+1} = r_m - alpha (w_m + beta s_{m-1}), exactly as the row's owner forms it. */
__device__ __forceinline__ double hs_cg1_r_next(double r, double s, double w, double alpha, double beta)
{
    return __fma_rn(-alpha, __fma_rn(beta, s, w), r);
}

/* A load of data written before the last grid barrier (whose acquire makes it visible, L1 included):
 * a plain load, which caches in L1 (ld.global's default) and which the compiler may schedule with the
 * others, unlike __ldca's volatile asm (H100, the persistent step: bench_50k 1 s 1.12 against 1.19 s,
 * the ventricle 0.52 against 0.63; the standalone CG 8.9 us either way). Not __ldg: the non-coherent
 * path may serve values from before the barrier. */
template <typename T>
__device__ __forceinline__ T hs_ld_l1(const T *p)
{
    return *p;
}

/* Through L1 (hs_ld_l1): the records a phase reads were written before the grid barrier that opened it
 * and are not written during it, and a row's record is read by ~15 rows, mostly of the same block. */
__device__ __forceinline__ double4_32a hs_cg1_load(const double4_32a *q, int64_t i)
{
    const double2 *a = reinterpret_cast<const double2 *>(q + i);
    const double2 lo = hs_ld_l1(a), hi = hs_ld_l1(a + 1);
    return make_double4_32a(lo.x, lo.y, hi.x, hi.y);
}

template <int TPR>
__device__ __forceinline__ double hs_cg1_group_sum(double v)
{
    const unsigned lane = threadIdx.x & 31u;
    const unsigned mask = TPR == 32 ? 0xffffffffu : ((1u << TPR) - 1u) << (lane & ~(unsigned)(TPR - 1));
#pragma unroll
    for (int off = TPR / 2; off > 0; off >>= 1) v += __shfl_xor_sync(mask, v, off);
    return v;
}

/* hs_cg1_put3 and hs_cg1_totals3 each spell out the same warp and block trees: one shared helper
 * measured 11.2 against 9.0 us per iteration at 50K rows on an H100 (same registers, no spills), so
 * the two copies stay. */

/** The block's sums of a, b, c into part[0], part[G], part[2G] at blockIdx.x (fixed order).
 *  @p sh: 96 doubles of shared memory. Every thread of the block calls it. */
__device__ __forceinline__ void hs_cg1_put3(double a, double b, double c, double *part, double *sh)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    const int G = gridDim.x;
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        a += __shfl_xor_sync(0xffffffffu, a, off);
        b += __shfl_xor_sync(0xffffffffu, b, off);
        c += __shfl_xor_sync(0xffffffffu, c, off);
    }
    if (lane == 0) { sh[warp] = a; sh[32 + warp] = b; sh[64 + warp] = c; }
    __syncthreads();
    if (warp == 0) {
        a = lane < nw ? sh[lane] : 0.0;
        b = lane < nw ? sh[32 + lane] : 0.0;
        c = lane < nw ? sh[64 + lane] : 0.0;
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            a += __shfl_xor_sync(0xffffffffu, a, off);
            b += __shfl_xor_sync(0xffffffffu, b, off);
            c += __shfl_xor_sync(0xffffffffu, c, off);
        }
        if (lane == 0) { part[blockIdx.x] = a; part[G + blockIdx.x] = b; part[2 * G + blockIdx.x] = c; }
    }
    // no trailing __syncthreads: the grid barrier that follows every call has one
}

/** The totals of the three partial arrays (G = gridDim.x each), the same bits in every thread of every
 *  block. Every thread of the block reads at most HS_CG1_MAXG / blockDim.x partials of each, all
 *  loads issued before the first add (one L2 round trip, not one per partial: a loop of dependent
 *  loads over ~400 partials on one warp measured 4.6 us per phase on an H100), then a fixed shuffle
 *  tree per warp and warp 0 over the warps; handed out through @p sh. Every thread calls it. */
#define HS_CG1_MAXG 512
__device__ __forceinline__ void hs_cg1_totals3(const double *part, double &a, double &b, double &c, double *sh)
{
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5, nw = blockDim.x >> 5, G = gridDim.x;
    constexpr int K = HS_CG1_MAXG / 256; // blockDim.x >= 256 (hs_gpu_cg_set_persistent_kind)
    double va[K], vb[K], vc[K];
#pragma unroll
    for (int q = 0; q < K; ++q) {
        const int p = t + q * (int)blockDim.x;
        const bool in = p < G;
        va[q] = in ? __ldcg(part + p) : 0.0;
        vb[q] = in ? __ldcg(part + G + p) : 0.0;
        vc[q] = in ? __ldcg(part + 2 * G + p) : 0.0;
    }
    a = b = c = 0.0;
#pragma unroll
    for (int q = 0; q < K; ++q) { a += va[q]; b += vb[q]; c += vc[q]; }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        a += __shfl_xor_sync(0xffffffffu, a, off);
        b += __shfl_xor_sync(0xffffffffu, b, off);
        c += __shfl_xor_sync(0xffffffffu, c, off);
    }
    if (lane == 0) { sh[warp] = a; sh[32 + warp] = b; sh[64 + warp] = c; }
    __syncthreads();
    if (warp == 0) {
        a = lane < nw ? sh[lane] : 0.0;
        b = lane < nw ? sh[32 + lane] : 0.0;
        c = lane < nw ? sh[64 + lane] : 0.0;
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            a += __shfl_xor_sync(0xffffffffu, a, off);
            b += __shfl_xor_sync(0xffffffffu, b, off);
            c += __shfl_xor_sync(0xffffffffu, c, off);
        }
        if (lane == 0) { sh[96] = a; sh[97] = b; sh[98] = c; }
    }
    __syncthreads();
    a = sh[96];
    b = sh[97];
    c = sh[98];
    // sh[0..95] is free again (hs_cg1_put3 of this phase), sh[96..98] is written again only after a barrier
}

/* The values with hs_ld_l1, not __ldg's non-coherent path: inside the persistent time step the
 * assembly rewrites them between solves of one kernel, and the non-coherent path may then serve the
 * previous values. */
template <typename V>
__device__ __forceinline__ double hs_cg1_val(const hs_cg1_ctx &a, int32_t k)
{
    return (double)hs_ld_l1(static_cast<const V *>(a.val) + (a.slot ? __ldg(a.slot + k) : (int64_t)k));
}

/**
 * One whole solve from x = 0: returns the outcome (o). @p tol: the relative tolerance; @p max_iter the
 * iteration limit. Every thread of the cooperative grid must call it; @p sh is 99 doubles of shared
 * memory. The caller's data (b, dinv, the matrix) must be complete, for all rows, before the call
 * (behind a grid barrier); x is complete for all rows when it returns (it ends after a barrier).
 */
template <typename V, int TPR, bool SHARES = false>
__device__ void hs_cg1_solve(const hs_cg1_ctx &a, double tol, int max_iter, cooperative_groups::grid_group &grid,
                             double *sh, hs_cg1_out *o)
{
    const int G = gridDim.x;
    const int lane = threadIdx.x % TPR;
    const int32_t n = a.n;
    // SHARES (the persistent step, whose grid is not sized to the rows): when the grid has a lane for
    // every row, each block takes its own contiguous share of the rows, so that all blocks work.
    // Handed out blockDim at a time, 50,653 rows filled 99 of the step's 132 blocks of 512 threads and
    // left 33 SMs idle in every CG phase (H100, 1 s of bench_50k: 1.06 against 1.11 s). The standalone
    // kernel sizes its blocks to the rows and keeps the grid-stride loop: the shares there, even
    // decided at run time, measured 10.2 against 9.1 us per iteration at 50K and 205 against 180 at 1M.
    const bool shares = SHARES && (int64_t)n * TPR <= (int64_t)G * blockDim.x;
    const int64_t share = ((int64_t)n + G - 1) / G, s0 = (int64_t)blockIdx.x * share;
    const int64_t r_end = !shares ? n : s0 + share < n ? s0 + share : n;
    const int64_t g0 = shares ? s0 + threadIdx.x / TPR : ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / TPR;
    const int64_t gs = shares ? blockDim.x / TPR : (int64_t)G * blockDim.x / TPR;
    // init: x = 0, p = 0, {r, s, w} = {b, 0, A D^-1 b}; partials of (r,u), (r,r), (w,u)
    {
        double g = 0.0, rr = 0.0, d = 0.0;
        for (int64_t i = g0; i < r_end; i += gs) {
            const int32_t k0 = __ldg(a.rp + i), k1 = __ldg(a.rp + i + 1);
            double acc = 0.0;
            for (int32_t k = k0 + lane; k < k1; k += TPR) {
                const int32_t j = __ldg(a.col + k);
                acc += hs_cg1_val<V>(a, k) * __dmul_rn(__ldcg(a.dinv + j), __ldcg(a.b + j));
            }
            acc = hs_cg1_group_sum<TPR>(acc);
            if (lane == 0) {
                const double bi = __ldcg(a.b + i), di = __ldcg(a.dinv + i), ui = __dmul_rn(di, bi);
                a.x[i] = 0.0;
                a.p[i] = 0.0;
                a.q[0][i] = make_double4_32a(bi, 0.0, acc, di);
                g += bi * ui;
                rr += bi * bi;
                d += acc * ui;
            }
        }
        hs_cg1_put3(g, rr, d, a.part, sh);
        grid.sync();
    }
    int status = HS_GPU_CG_RUNNING, it = 0, fail_iter = 0;
    double bb = 0.0, rr = 0.0, gamma = 0.0, gamma_old = 0.0, alpha = 0.0, beta = 0.0, denom = 0.0;
    const double tol2 = tol * tol;
    for (int m = 0;; ++m) {
        double g, r2, delta;
        hs_cg1_totals3(a.part + (size_t)(m & 1) * 3 * G, g, r2, delta, sh);
        gamma_old = gamma;
        gamma = g;
        rr = r2;
        if (m == 0) {
            bb = r2;
            status = !isfinite(bb) ? HS_GPU_CG_NONFINITE : bb == 0.0 ? HS_GPU_CG_CONV
                   : max_iter <= 0 ? HS_GPU_CG_MAXIT : HS_GPU_CG_RUNNING;
        } else {
            it = m;
            if (!isfinite(rr)) status = HS_GPU_CG_NONFINITE;
            else if (rr <= tol2 * bb) status = HS_GPU_CG_CONV;
            else if (it >= max_iter) status = HS_GPU_CG_MAXIT;
        }
        if (status != HS_GPU_CG_RUNNING) break;
        beta = m == 0 ? 0.0 : gamma / gamma_old;
        denom = m == 0 ? delta : delta - beta * gamma / alpha; // = (p, A p)
        if (!(denom > 0.0) || !(gamma > 0.0)) {               // the same verdict in every block
            status = isfinite(denom) && isfinite(gamma) ? HS_GPU_CG_BREAK : HS_GPU_CG_NONFINITE;
            fail_iter = m + 1;
            break;
        }
        alpha = gamma / denom;
        const double4_32a *cur = a.q[m & 1];
        double4_32a *nxt = a.q[(m + 1) & 1];
        double gg = 0.0, rl = 0.0, dl = 0.0;
        for (int64_t i = g0; i < r_end; i += gs) {
            const int32_t k0 = __ldg(a.rp + i), k1 = __ldg(a.rp + i + 1);
            double acc = 0.0;
            // tried on an H100 at 50K rows: the gather in explicit batches of 4 columns (all loads in
            // flight before the first add) measured 10.5 against 9.2 us per iteration: reverted
            for (int32_t k = k0 + lane; k < k1; k += TPR) {
                const int32_t j = __ldg(a.col + k);
                const double4_32a qj = hs_cg1_load(cur, j);
                acc += hs_cg1_val<V>(a, k) * __dmul_rn(qj.w, hs_cg1_r_next(qj.x, qj.y, qj.z, alpha, beta));
            }
            acc = hs_cg1_group_sum<TPR>(acc); // w_{m+1,i} = (A u_{m+1})_i
            if (lane == 0) {
                const double4_32a qi = hs_cg1_load(cur, i);
                const double ui = __dmul_rn(qi.w, qi.x);
                const double si = __fma_rn(beta, qi.y, qi.z);
                const double pi = __fma_rn(beta, a.p[i], ui);
                a.x[i] = __fma_rn(alpha, pi, a.x[i]);
                const double ri = __fma_rn(-alpha, si, qi.x);
                const double un = __dmul_rn(qi.w, ri);
                a.p[i] = pi;
                nxt[i] = make_double4_32a(ri, si, acc, qi.w);
                gg += ri * un;
                rl += ri * ri;
                dl += acc * un;
            }
        }
        hs_cg1_put3(gg, rl, dl, a.part + (size_t)((m + 1) & 1) * 3 * G, sh);
        grid.sync();
    }
    o->status = status;
    o->iters = it;
    o->fail_iter = fail_iter;
    o->bb = bb;
    o->rr = rr;
    o->gamma = gamma;
    o->gamma_old = gamma_old;
    o->alpha = alpha;
    o->beta = beta;
    o->denom = denom;
}

#endif
