// Chronopoulos-Gear Jacobi-PCG as one persistent cooperative kernel (hs_gpu_cg_set_persistent).
//
// For small systems (about 50K rows: the matrix and the vectors sit in L2) an iteration is a few
// microseconds of work and launch latency dominates: two kernels per iteration in a CUDA graph still
// pay two launch-and-drain gaps. Here the whole solve is one kernel whose blocks are all resident;
// an iteration is the SpMV (with the partial sums of (A u, u)), a grid barrier, the vector update
// (with those of (r, u) and (r, r)), a grid barrier. Every block sums the partials itself in one fixed
// order, so all blocks take the same alpha, beta and the same convergence decision, and the result
// is deterministic. Chronopoulos-Gear's single reduction per iteration is what makes two barriers
// enough (the textbook CG would need three).
//
// The SpMV is CSR, one thread per row, reading the values through the format's slot map
// (val[slot[k]]), so it works whatever format solver.spmv assembles into: the indirection costs
// bytes, but at this size the data are in L2 and latency, not bandwidth, bounds the iteration.
// Vectors that other blocks write during the solve are read with __ldcg (L2, not the incoherent L1).
//
// That is the two-barrier kernel (k_cgc_persistent), kept for `bench cg`'s comparison. Runs use the
// one-barrier kernel (k_cg1_persistent, hs_gpu_cg1.cuh): the SpMV of the next iteration in the same
// phase as the vector update, the neighbours' new u recomputed instead of waited for.
#include <cooperative_groups.h>

#include <climits>
#include <cmath>

#include "hs_cuda_check.cuh"
#include "hs_gpu_cg.cuh"
#include "hs_gpu_cg1.cuh"
#include "hs_gpu_reduce.cuh"
#include "hs_util.h"

namespace cgrp = cooperative_groups;

namespace {

// 256 threads per block (one row per thread at 50K rows: ~200 blocks over 132 SMs). Measured on an
// H100 at 50K rows: 1024 threads (50 blocks, fewer barrier arrivals) 20.0 us per iteration, 128
// threads 13.3 us, 256 threads 11.0-12.1 us; two threads per row in the SpMV (twice the blocks)
// 15.8 us. More blocks make the grid barrier dearer faster than they shorten the rows.
constexpr int kT = HS_RED_THREADS;

// V: the stored matrix value type (float for solver.matrix_values = float32, widened per product)
template <typename V>
__global__ void __launch_bounds__(kT)
k_cgc_persistent(int32_t n, const int32_t *__restrict__ rp, const int32_t *__restrict__ col,
                 const int64_t *__restrict__ slot, const V *__restrict__ val, const double *__restrict__ dinv,
                 const double *__restrict__ b, double *x, double *r, double *u, double *p, double *s, double *w,
                 double *partA, double *partB, double *partD, hs_gpu_cg_scalars *sc, double cg_tol, double forcing,
                 double tol_res, const double *d_res, int max_iter)
{
    cgrp::grid_group grid = cgrp::this_grid();
    __shared__ double sh[kT];
    const int G = gridDim.x;
    const int64_t first = (int64_t)blockIdx.x * kT + threadIdx.x, stride = (int64_t)G * kT;

    double g = 0.0, bb = 0.0;
    for (int64_t i = first; i < n; i += stride) {
        double bi = b[i], ui = dinv[i] * bi;
        x[i] = 0.0;
        r[i] = bi;
        u[i] = ui;
        p[i] = 0.0;
        s[i] = 0.0;
        g += bi * ui;
        bb += bi * bi;
    }
    g = hs_block_sum(g, sh);
    bb = hs_block_sum(bb, sh);
    if (threadIdx.x == 0) { partA[blockIdx.x] = g; partB[blockIdx.x] = bb; }
    grid.sync();
    double gamma = hs_sum_partials(G, partA, sh), bbt = hs_sum_partials(G, partB, sh);
    const double tol = d_res ? hs_cg_forcing_tol(cg_tol, forcing, tol_res, *d_res) : cg_tol;
    const double tol2 = tol * tol;
    int status = !isfinite(bbt) ? HS_GPU_CG_NONFINITE : bbt == 0.0 ? HS_GPU_CG_CONV
               : max_iter <= 0 ? HS_GPU_CG_MAXIT : HS_GPU_CG_RUNNING;
    double gamma_old = 0.0, alpha = 0.0, beta = 0.0, denom = 0.0, rr = bbt;
    int it = 0, fail_iter = 0;
    while (status == HS_GPU_CG_RUNNING) {
        // w = A u and the partials of (w, u)
        double d = 0.0;
        for (int64_t i = first; i < n; i += stride) {
            const int32_t k0 = __ldg(rp + i), k1 = __ldg(rp + i + 1);
            double acc = 0.0;
            // tried on an H100 at 50K rows: a 4-wide batch of these loads together with warp-shuffle
            // reductions in place of hs_block_sum measured slower (13.7 against 11.0 us): reverted
            int32_t k = k0;
            for (; k < k1; ++k)
                acc += (double)__ldg(val + (slot ? __ldg(slot + k) : k)) * __ldcg(u + __ldg(col + k));
            w[i] = acc;
            d += acc * u[i];
        }
        d = hs_block_sum(d, sh);
        if (threadIdx.x == 0) partD[blockIdx.x] = d;
        grid.sync();
        const double delta = hs_sum_partials(G, partD, sh);
        beta = it == 0 ? 0.0 : gamma / gamma_old;
        denom = it == 0 ? delta : delta - beta * gamma / alpha; // = (p, A p)
        if (!(denom > 0.0) || !(gamma > 0.0)) {                  // the same verdict in every block
            status = isfinite(denom) && isfinite(gamma) ? HS_GPU_CG_BREAK : HS_GPU_CG_NONFINITE;
            fail_iter = it + 1;
            break;
        }
        alpha = gamma / denom;
        double gg = 0.0, rl = 0.0;
        for (int64_t i = first; i < n; i += stride) // the rows this thread owns in the SpMV too
            hs_cgc_update_row(i, alpha, beta, x, r, u, p, s, w, dinv, gg, rl);
        gg = hs_block_sum(gg, sh);
        rl = hs_block_sum(rl, sh);
        if (threadIdx.x == 0) { partA[blockIdx.x] = gg; partB[blockIdx.x] = rl; }
        grid.sync();
        gamma_old = gamma;
        gamma = hs_sum_partials(G, partA, sh);
        rr = hs_sum_partials(G, partB, sh);
        ++it;
        if (!isfinite(rr)) status = HS_GPU_CG_NONFINITE;
        else if (rr <= tol2 * bbt) status = HS_GPU_CG_CONV;
        else if (it >= max_iter) status = HS_GPU_CG_MAXIT;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        sc->bb = bbt;
        sc->rr = rr;
        sc->tol = tol;
        sc->tol2 = tol2;
        sc->gamma = gamma;
        sc->gamma_old = gamma_old;
        sc->alpha = alpha;
        sc->beta = beta;
        sc->pq = denom;
        sc->iters = it;
        sc->fail_iter = fail_iter;
        sc->max_iter = max_iter;
        sc->ticket = 0;
        sc->status = status;
    }
}

// The one-barrier kernel: hs_cg1_solve on the whole grid, then the scalars for the host. Its block
// size is chosen at set-up (256..1024, hs_gpu_cg_set_persistent_kind): one block per SM when the rows
// fit, so that the barrier and the partial sums have as few blocks as can cover the rows at once, and
// 1024-thread blocks beyond (at 1M rows on an H100: 181 us per iteration against 254 with 512).
constexpr int kT1 = 1024;

template <typename V, int TPR>
__global__ void __launch_bounds__(kT1)
k_cg1_persistent(hs_cg1_ctx a, hs_gpu_cg_scalars *sc, double cg_tol, double forcing, double tol_res,
                 const double *d_res, int max_iter)
{
    cgrp::grid_group grid = cgrp::this_grid();
    __shared__ double sh[99];
    const double tol = d_res ? hs_cg_forcing_tol(cg_tol, forcing, tol_res, *d_res) : cg_tol;
    hs_cg1_out o;
    hs_cg1_solve<V, TPR>(a, tol, max_iter, grid, sh, &o);
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        sc->bb = o.bb;
        sc->rr = o.rr;
        sc->tol = tol;
        sc->tol2 = tol * tol;
        sc->gamma = o.gamma;
        sc->gamma_old = o.gamma_old;
        sc->alpha = o.alpha;
        sc->beta = o.beta;
        sc->pq = o.denom;
        sc->iters = o.iters;
        sc->fail_iter = o.fail_iter;
        sc->max_iter = max_iter;
        sc->ticket = 0;
        sc->status = o.status;
    }
}

template <typename V>
const void *cg1_fn(int tpr)
{
    switch (tpr) {
    case 1: return (const void *)k_cg1_persistent<V, 1>;
    case 2: return (const void *)k_cg1_persistent<V, 2>;
    case 4: return (const void *)k_cg1_persistent<V, 4>;
    default: return (const void *)k_cg1_persistent<V, 8>;
    }
}

// What bounds an iteration of the one-barrier kernel (bench cg): `iters` phases of the grid barrier
// alone (mode 0), and of the barrier with the phase's reductions (totals of the last phase's partials,
// this phase's block partials; mode 1), on the kernel's grid.
template <int MODE>
__global__ void __launch_bounds__(kT1) k_cg1_floor(int iters, double *part)
{
    cgrp::grid_group grid = cgrp::this_grid();
    __shared__ double sh[99];
    double acc = 0.0;
    for (int m = 0; m < iters; ++m) {
        if (MODE == 1) {
            double a, b, c;
            hs_cg1_totals3(part + (size_t)(m & 1) * 3 * gridDim.x, a, b, c, sh);
            acc += a + b + c;
            hs_cg1_put3(acc, 1.0, 2.0, part + (size_t)((m + 1) & 1) * 3 * gridDim.x, sh);
        }
        grid.sync();
    }
}

} // namespace

hs_status hs_gpu_cg1_floor(hs_gpu_cg *cg, int iters, int reps, double out[2])
{
    HS_CHECK(cg->persistent && cg->p_barriers == 1, HS_ERR_INTERNAL, "cg1 floor: not the one-barrier kernel");
    cudaEvent_t e0, e1;
    HS_CUDA_CALL(cudaEventCreate(&e0));
    HS_CUDA_CALL(cudaEventCreate(&e1));
    hs_status st = HS_OK;
    double *t = NULL;
    st = HS_ALLOC(t, reps, "bench timings");
    for (int mode = 0; mode < 2 && st == HS_OK; ++mode) {
        const void *fn = mode ? (const void *)k_cg1_floor<1> : (const void *)k_cg1_floor<0>;
        void *args[] = {&iters, &cg->p_part};
        HS_CUDA_CALL(cudaMemset(cg->p_part, 0, sizeof(double) * 6 * HS_DOT_MAX_PARTS));
        for (int r = -2; r < reps && st == HS_OK; ++r) {
            cudaEventRecord(e0, 0);
            if (cudaLaunchCooperativeKernel(fn, dim3(cg->p_grid1), dim3(cg->p_block1), args, 0, 0) != cudaSuccess)
                st = HS_FAIL(HS_ERR_DEVICE, "cg1 floor: launch failed");
            cudaEventRecord(e1, 0);
            if (cudaEventSynchronize(e1) != cudaSuccess && st == HS_OK) st = HS_FAIL(HS_ERR_DEVICE, "cg1 floor failed");
            float ms = 0.0f;
            cudaEventElapsedTime(&ms, e0, e1);
            if (r >= 0) t[r] = 1e-3 * ms / iters;
        }
        if (st == HS_OK) out[mode] = hs_median(t, reps);
    }
    free(t);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return st;
}

hs_status hs_gpu_cg_set_persistent_kind(hs_gpu_cg *cg, int barriers, int tpr)
{
    HS_CHECK(cg->persistent && cg->variant == HS_CG_CHRONOPOULOS, HS_ERR_INTERNAL,
             "persistent kernel kind: not a persistent Chronopoulos CG");
    HS_CHECK(barriers == 1 || barriers == 2, HS_ERR_INTERNAL, "persistent kernel: %d barriers", barriers);
    HS_CHECK(tpr == 0 || tpr == 1 || tpr == 2 || tpr == 4 || tpr == 8, HS_ERR_INTERNAL, "persistent kernel: %d threads "
             "per row", tpr);
    cg->p_barriers = barriers;
    if (barriers == 2) return HS_OK;
    int dev = 0, sms = 0, per_sm = 0;
    HS_CUDA_CALL(cudaGetDevice(&dev));
    HS_CUDA_CALL(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    /* tpr 0: one thread per row, which beat 2, 4 and 8 on an H100 (bench cg) at 50K rows (8.97 against
     * 9.6-13.2 us per iteration) and at 1M rows (181 against 202-278 us) */
    if (tpr == 0) tpr = 1;
    /* the block: the rows' threads spread over one block per SM (a multiple of 32, at least 256), or
     * kT1-thread blocks, as many as are resident, when they do not fit */
    const int64_t T = (int64_t)cg->n * tpr;
    int64_t bd = (T + sms - 1) / sms;
    bd = (bd + 31) / 32 * 32;
    if (bd < 256) bd = 256;
    if (bd > kT1) bd = kT1;
    HS_CUDA_CALL(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, cg->p_f32 ? cg1_fn<float>(tpr) : cg1_fn<double>(tpr), (int)bd, 0));
    HS_CHECK(per_sm > 0, HS_ERR_DEVICE, "persistent CG: the kernel cannot be resident");
    int64_t want = (T + bd - 1) / bd, cap = (int64_t)sms * per_sm;
    if (cap > HS_CG1_MAXG) cap = HS_CG1_MAXG;
    cg->p_tpr = tpr;
    cg->p_block1 = (int)bd;
    cg->p_grid1 = (int)(want < 1 ? 1 : want > cap ? cap : want);
    if (!cg->p_q) HS_CALL(HS_CUDA_ALLOC(cg->p_q, 2 * (size_t)(cg->n > 0 ? cg->n : 1), "persistent CG records"));
    if (!cg->p_part) HS_CALL(HS_CUDA_ALLOC(cg->p_part, 6 * HS_DOT_MAX_PARTS, "persistent CG partials"));
    return HS_OK;
}

int64_t hs_gpu_cg_one_pass_rows(void)
{
    int dev = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    int64_t rows = 0;
    for (int f32 = 0; f32 < 2; ++f32) { /* the smaller of the two value types' kernels */
        int per_sm = 0;
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f32 ? cg1_fn<float>(1) : cg1_fn<double>(1), kT1, 0) !=
            cudaSuccess) {
            (void)cudaGetLastError();
            return 0;
        }
        int64_t g = (int64_t)sms * per_sm; /* hs_gpu_cg_set_persistent_kind's grid cap */
        if (g > HS_CG1_MAXG) g = HS_CG1_MAXG;
        if (f32 == 0 || g * kT1 < rows) rows = g * kT1;
    }
    return rows;
}

hs_status hs_gpu_cg_set_persistent(hs_gpu_cg *cg, const int32_t *d_row_ptr, const int32_t *d_col,
                                   const int64_t *d_slot, const void *d_vals, int f32)
{
    HS_CHECK(cg->variant == HS_CG_CHRONOPOULOS, HS_ERR_INTERNAL, "the persistent CG is Chronopoulos-Gear only");
    int dev = 0, sms = 0, per_sm = 0;
    HS_CUDA_CALL(cudaGetDevice(&dev));
    HS_CUDA_CALL(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    int coop = 0;
    HS_CUDA_CALL(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    HS_CHECK(coop, HS_ERR_DEVICE, "this GPU does not support cooperative launches (persistent CG)");
    HS_CUDA_CALL(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, f32 ? (const void *)k_cgc_persistent<float> : (const void *)k_cgc_persistent<double>, kT, 0));
    HS_CHECK(per_sm > 0, HS_ERR_DEVICE, "persistent CG: the kernel cannot be resident");
    // one block per 256 rows, never more than can be resident at once (a grid barrier needs every
    // block running) nor than the partial buffers hold; a function of n and the device only
    int64_t want = ((int64_t)cg->n + kT - 1) / kT;
    int64_t cap = (int64_t)sms * per_sm;
    if (cap > HS_DOT_MAX_PARTS) cap = HS_DOT_MAX_PARTS;
    cg->pgrid = (int)(want < 1 ? 1 : want > cap ? cap : want);
    cg->p_rowptr = d_row_ptr;
    cg->p_col = d_col;
    cg->p_slot = d_slot;
    cg->p_vals = d_vals;
    cg->p_f32 = f32;
    cg->persistent = 1;
    return hs_gpu_cg_set_persistent_kind(cg, 1, 0);
}

hs_status hs_gpu_cg_launch_persistent(hs_gpu_cg *cg, const double *b, double *x, const hs_gpu_cg_tol *t,
                                      cudaStream_t s)
{
    if (cg->variant == HS_CG_SSTEP) return hs_gpu_cg_launch_sstep(cg, b, x, t, s);
    int32_t n = cg->n;
    const int32_t *rp = cg->p_rowptr, *col = cg->p_col;
    const int64_t *slot = cg->p_slot;
    const void *val = cg->p_vals;
    const double *dinv = cg->dinv;
    double cg_tol = t->cg_tol, forcing = t->forcing, tol_res = t->tol_res;
    const double *d_res = t->d_res;
    int max_iter = t->max_iter;
    if (cg->p_barriers == 1) {
        hs_cg1_ctx a = {n, rp, col, slot, val, dinv, b, x, cg->p, {cg->p_q, cg->p_q + n}, cg->p_part};
        void *args1[] = {&a, &cg->d_sc, &cg_tol, &forcing, &tol_res, (void *)&d_res, &max_iter};
        const void *fn1 = cg->p_f32 ? cg1_fn<float>(cg->p_tpr) : cg1_fn<double>(cg->p_tpr);
        HS_CUDA_CALL(cudaLaunchCooperativeKernel(fn1, dim3(cg->p_grid1), dim3(cg->p_block1), args1, 0, s));
        HS_CUDA_LAUNCH_CHECK("k_cg1_persistent");
        return HS_OK;
    }
    void *args[] = {&n, (void *)&rp, (void *)&col, (void *)&slot, (void *)&val, (void *)&dinv, (void *)&b, &x,
                    &cg->r, &cg->u, &cg->p, &cg->s, &cg->w, &cg->partA, &cg->partB, &cg->partD, &cg->d_sc,
                    &cg_tol, &forcing, &tol_res, (void *)&d_res, &max_iter};
    const void *fn = cg->p_f32 ? (const void *)k_cgc_persistent<float> : (const void *)k_cgc_persistent<double>;
    HS_CUDA_CALL(cudaLaunchCooperativeKernel(fn, dim3(cg->pgrid), dim3(kT), args, 0, s));
    HS_CUDA_LAUNCH_CHECK("k_cgc_persistent");
    return HS_OK;
}
