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
#include <cooperative_groups.h>

#include <climits>
#include <cmath>

#include "hs_cuda_check.cuh"
#include "hs_gpu_cg.cuh"
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

} // namespace

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
    return HS_OK;
}

hs_status hs_gpu_cg_launch_persistent(hs_gpu_cg *cg, const double *b, double *x, const hs_gpu_cg_tol *t,
                                      cudaStream_t s)
{
    int32_t n = cg->n;
    const int32_t *rp = cg->p_rowptr, *col = cg->p_col;
    const int64_t *slot = cg->p_slot;
    const void *val = cg->p_vals;
    const double *dinv = cg->dinv;
    double cg_tol = t->cg_tol, forcing = t->forcing, tol_res = t->tol_res;
    const double *d_res = t->d_res;
    int max_iter = t->max_iter;
    void *args[] = {&n, (void *)&rp, (void *)&col, (void *)&slot, (void *)&val, (void *)&dinv, (void *)&b, &x,
                    &cg->r, &cg->u, &cg->p, &cg->s, &cg->w, &cg->partA, &cg->partB, &cg->partD, &cg->d_sc,
                    &cg_tol, &forcing, &tol_res, (void *)&d_res, &max_iter};
    const void *fn = cg->p_f32 ? (const void *)k_cgc_persistent<float> : (const void *)k_cgc_persistent<double>;
    HS_CUDA_CALL(cudaLaunchCooperativeKernel(fn, dim3(cg->pgrid), dim3(kT), args, 0, s));
    HS_CUDA_LAUNCH_CHECK("k_cgc_persistent");
    return HS_OK;
}
