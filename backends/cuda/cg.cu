// Jacobi-PCG on the device: classic and Chronopoulos-Gear (hs_gpu_cg.cuh). CPU references:
// hs_cg_jacobi and hs_cg_chronopoulos in solvers/cg.c, with the same recurrences, the same
// convergence test at the same place, and tests that compare them (tests/backends/cuda/test_gpu_cg.cu).
//
// Kernels per iteration
//   classic       SpMV q = A p | dot (p,q) | alpha (1 block) | x, r, z update + (r,r), (r,z) |
//                 beta + test (1 block) | p = z + beta p                          6 kernels, 2 syncs
//   chronopoulos  SpMV w = A u fused with (w,u) partials | vector kernel          2 kernels, 1 sync
//                 (each block sums the SpMV's partials itself in the same fixed order, so every
//                 block has the same alpha and beta; the last block to finish sums the (r,u) and
//                 (r,r) partials, runs the convergence test and sets the loop condition)
//                 A format without a fused SpMV gets a separate dot pass: 3 kernels.
//   on a partition (hs_gpu_cg_set_dist): coef | vector | halo (spmv) | SpMV | dot pass | sums (1 block) |
//                 all-reduce | test: the sums of (r,u), (r,r), (A u, u) in one all-reduce; with
//                 dist->spmv_dot (apply_dot_rows) the SpMV forms (A u, u) over the owned rows itself
//                 (no dot pass; k_dist_final2 sums the other two); dist->iteration fuses the transport
// Chronopoulos-Gear (seed 004 ch. 4; Chronopoulos & Gear, J. Comput. Appl. Math. 25, 1989):
//   beta = gamma/gamma_old, alpha = gamma/(delta - beta gamma/alpha_old), delta = (A u, u)
//   p = u + beta p, s = w + beta s, x += alpha p, r -= alpha s, u = D^-1 r
// Bytes per iteration (vector part): classic 13 vectors, chronopoulos 12 (7 read, 5 written).
#include <climits>
#include <cmath>
#include <cstdlib>

#include "hs_cuda_check.cuh"
#include "hs_dist_pcg.cuh"
#include "hs_gpu_cg.cuh"
#include "hs_gpu_reduce.cuh"
#include "hs_util.h"

namespace {

constexpr int kT = HS_RED_THREADS; // threads of every CG kernel

__device__ inline void set_cond(cudaGraphConditionalHandle h, int use, unsigned v)
{
    if (use) cudaGraphSetConditional(h, v);
}

__device__ inline double forcing_tol(double cg_tol, double forcing, double tol_res, const double *d_res)
{
    return d_res ? hs_cg_forcing_tol(cg_tol, forcing, tol_res, *d_res) : cg_tol;
}

// ---- shared: init -------------------------------------------------------------------------------

// x = 0, r = b, u = D^-1 b, p = s = 0; partials of (r,u) and (b,b).
__global__ void k_init(int32_t n, const double *__restrict__ b, const double *__restrict__ dinv,
                       double *__restrict__ x, double *__restrict__ r, double *__restrict__ u,
                       double *__restrict__ p, double *__restrict__ s, double *partA, double *partB)
{
    __shared__ double sh[kT];
    double g = 0.0, bb = 0.0;
    for (int32_t i = blockIdx.x * kT + threadIdx.x; i < n; i += gridDim.x * kT)
        hs_cg_init_row(i, b, dinv, x, r, u, p, s, g, bb); // hs_dist_pcg.cuh: dist_pcg.cu's init runs it too
    g = hs_block_sum(g, sh);
    bb = hs_block_sum(bb, sh);
    if (threadIdx.x == 0) { partA[blockIdx.x] = g; partB[blockIdx.x] = bb; }
}

__global__ void k_init_final(int nparts, const double *partA, const double *partB, hs_gpu_cg_scalars *sc,
                             double cg_tol, double forcing, double tol_res, const double *d_res, int max_iter,
                             cudaGraphConditionalHandle cond, int use_cond)
{
    __shared__ double sh[kT];
    double g = hs_sum_partials(nparts, partA, sh);
    double bb = hs_sum_partials(nparts, partB, sh);
    if (threadIdx.x == 0) {
        double tol = forcing_tol(cg_tol, forcing, tol_res, d_res);
        sc->gamma = g;
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
        set_cond(cond, use_cond, sc->status == HS_GPU_CG_RUNNING);
    }
}

// Separate dot pass for formats whose SpMV does not fuse it: partials of (a, b).
__global__ void k_dot(int32_t n, const double *__restrict__ a, const double *__restrict__ b, double *part,
                      const hs_gpu_cg_scalars *sc)
{
    __shared__ double sh[kT];
    if (sc && sc->status != HS_GPU_CG_RUNNING) return; // uniform across the grid
    double s = 0.0;
    for (int32_t i = blockIdx.x * kT + threadIdx.x; i < n; i += gridDim.x * kT) s += a[i] * b[i];
    s = hs_block_sum(s, sh);
    if (threadIdx.x == 0) part[blockIdx.x] = s;
}

// ---- classic --------------------------------------------------------------------------------------

__global__ void k_classic_alpha(int nparts, const double *part, hs_gpu_cg_scalars *sc,
                                cudaGraphConditionalHandle cond, int use_cond)
{
    __shared__ double sh[kT];
    if (sc->status != HS_GPU_CG_RUNNING) {
        if (threadIdx.x == 0) set_cond(cond, use_cond, 0);
        return;
    }
    double pq = hs_sum_partials(nparts, part, sh);
    if (threadIdx.x == 0) {
        sc->pq = pq;
        if (!isfinite(pq)) sc->status = HS_GPU_CG_NONFINITE;
        else if (pq <= 0.0 || sc->gamma <= 0.0) sc->status = HS_GPU_CG_BREAK;
        else sc->alpha = sc->gamma / pq;
        if (sc->status != HS_GPU_CG_RUNNING) {
            sc->fail_iter = sc->iters + 1;
            set_cond(cond, use_cond, 0);
        }
    }
}

// x += alpha p, r -= alpha q, z = D^-1 r; partials of (r,r) and (r,z)
__global__ void k_classic_update(int32_t n, const hs_gpu_cg_scalars *sc, double *__restrict__ x,
                                 double *__restrict__ r, double *__restrict__ z, const double *__restrict__ p,
                                 const double *__restrict__ q, const double *__restrict__ dinv, double *partA,
                                 double *partB)
{
    __shared__ double sh[kT];
    if (sc->status != HS_GPU_CG_RUNNING) return;
    double alpha = sc->alpha, rr = 0.0, rz = 0.0;
    for (int32_t i = blockIdx.x * kT + threadIdx.x; i < n; i += gridDim.x * kT) {
        x[i] += alpha * p[i];
        double ri = r[i] - alpha * q[i];
        double zi = dinv[i] * ri;
        r[i] = ri;
        z[i] = zi;
        rr += ri * ri;
        rz += ri * zi;
    }
    rr = hs_block_sum(rr, sh);
    rz = hs_block_sum(rz, sh);
    if (threadIdx.x == 0) { partA[blockIdx.x] = rr; partB[blockIdx.x] = rz; }
}

__global__ void k_classic_beta(int nparts, const double *partA, const double *partB, hs_gpu_cg_scalars *sc,
                               cudaGraphConditionalHandle cond, int use_cond)
{
    __shared__ double sh[kT];
    if (sc->status != HS_GPU_CG_RUNNING) {
        if (threadIdx.x == 0) set_cond(cond, use_cond, 0);
        return;
    }
    double rr = hs_sum_partials(nparts, partA, sh);
    double rz = hs_sum_partials(nparts, partB, sh);
    if (threadIdx.x == 0) {
        sc->iters++;
        sc->rr = rr;
        if (!isfinite(rr)) sc->status = HS_GPU_CG_NONFINITE;
        else if (rr <= sc->tol2 * sc->bb) sc->status = HS_GPU_CG_CONV;
        else if (sc->iters >= sc->max_iter) sc->status = HS_GPU_CG_MAXIT;
        else {
            sc->beta = rz / sc->gamma;
            sc->gamma_old = sc->gamma;
            sc->gamma = rz;
        }
        set_cond(cond, use_cond, sc->status == HS_GPU_CG_RUNNING);
    }
}

// p = z + beta p (the first iteration's p = 0 and beta = 0, set at init, give p = z)
__global__ void k_classic_p(int32_t n, const hs_gpu_cg_scalars *sc, const double *__restrict__ z,
                            double *__restrict__ p)
{
    if (sc->status != HS_GPU_CG_RUNNING) return;
    double beta = sc->beta;
    for (int32_t i = blockIdx.x * kT + threadIdx.x; i < n; i += gridDim.x * kT) p[i] = z[i] + beta * p[i];
}

// ---- Chronopoulos-Gear ----------------------------------------------------------------------------

__global__ void k_cgc_vector(int32_t n, int n_dparts, const double *dpart, hs_gpu_cg_scalars *sc,
                             double *__restrict__ x, double *__restrict__ r, double *__restrict__ u,
                             double *__restrict__ p, double *__restrict__ s, const double *__restrict__ w,
                             const double *__restrict__ dinv, double *partA, double *partB,
                             cudaGraphConditionalHandle cond, int use_cond)
{
    __shared__ double sh[kT];
    __shared__ int last;
    if (sc->status != HS_GPU_CG_RUNNING) {
        if (blockIdx.x == 0 && threadIdx.x == 0) set_cond(cond, use_cond, 0);
        return;
    }
    // every block: delta from the SpMV's partials in one fixed order -> identical alpha, beta
    const double delta = hs_sum_partials(n_dparts, dpart, sh);
    const int it = sc->iters;
    const double g = sc->gamma;
    const double beta = it == 0 ? 0.0 : g / sc->gamma_old;
    const double denom = it == 0 ? delta : delta - beta * g / sc->alpha; // = (p, A p)
    if (!(denom > 0.0) || !(g > 0.0)) {
        // every block reaches the same verdict from the same numbers; only status is written, and
        // with the same value by whoever writes it, so the race is benign
        if (threadIdx.x == 0) {
            sc->status = isfinite(denom) && isfinite(g) ? HS_GPU_CG_BREAK : HS_GPU_CG_NONFINITE;
            if (blockIdx.x == 0) {
                sc->fail_iter = it + 1;
                set_cond(cond, use_cond, 0);
            }
        }
        return;
    }
    const double alpha = g / denom;
    double gg = 0.0, rr = 0.0;
    for (int32_t i = blockIdx.x * kT + threadIdx.x; i < n; i += gridDim.x * kT)
        hs_cgc_update_row(i, alpha, beta, x, r, u, p, s, w, dinv, gg, rr);
    gg = hs_block_sum(gg, sh);
    rr = hs_block_sum(rr, sh);
    if (threadIdx.x == 0) {
        partA[blockIdx.x] = gg;
        partB[blockIdx.x] = rr;
        __threadfence(); // partials visible before the ticket says so
        last = atomicAdd(&sc->ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    // the last block: every other block has read sc and written its partials
    __threadfence();
    const double G = hs_sum_partials(gridDim.x, partA, sh);
    const double R = hs_sum_partials(gridDim.x, partB, sh);
    if (threadIdx.x == 0) {
        sc->gamma_old = g;
        sc->gamma = G;
        sc->alpha = alpha;
        sc->beta = beta;
        sc->pq = denom;
        sc->rr = R;
        sc->iters = it + 1;
        sc->ticket = 0;
        if (!isfinite(R)) sc->status = HS_GPU_CG_NONFINITE;
        else if (R <= sc->tol2 * sc->bb) sc->status = HS_GPU_CG_CONV;
        else if (it + 1 >= sc->max_iter) sc->status = HS_GPU_CG_MAXIT;
        set_cond(cond, use_cond, sc->status == HS_GPU_CG_RUNNING);
    }
}


// ---- on a partition (hs_gpu_cg_set_dist): one all-reduce of three sums per iteration ---------------

// red[k] = the partials of k summed in a fixed order (one block); nothing once the solve stopped
__global__ void k_dist_final3(int nparts, const double *pa, const double *pb, const double *pc, double *red,
                              const hs_gpu_cg_scalars *sc)
{
    __shared__ double sh[kT];
    if (sc && sc->status != HS_GPU_CG_RUNNING) return;
    double a, b, c;
    hs_dist_sum3(nparts, pa, pb, pc, sh, a, b, c); // dist_pcg.cu's dot kernels sum so too: the same bits
    if (threadIdx.x == 0) { red[0] = a; red[1] = b; red[2] = c; }
}

// *ra, *rb = the partials of pa, pb summed in a fixed order (one block; hs_dist_sums<2>: k_dist_final3's
// bits for these two, and those of dist_pcg.cu's vector kernels' last blocks); nothing once the solve
// stopped. With spmv_dot the product leaves the third sum, the dot, itself.
__global__ void k_dist_final2(int nparts, const double *pa, const double *pb, double *ra, double *rb,
                              const hs_gpu_cg_scalars *sc)
{
    __shared__ double sh[kT];
    if (sc && sc->status != HS_GPU_CG_RUNNING) return;
    const double *const p[2] = {pa, pb};
    double o[2];
    hs_dist_sums<2>(nparts, p, sh, o);
    if (threadIdx.x == 0) { *ra = o[0]; *rb = o[1]; }
}

// after init's all-reduce: red = (r,u), (A u, u), (b,b) over the ranks
__global__ void k_dist_init_final(const double *red, hs_gpu_cg_scalars *sc, double cg_tol, double forcing,
                                  double tol_res, const double *d_res, int max_iter, cudaGraphConditionalHandle cond,
                                  int use_cond)
{
    hs_dist_cg_init_final(red, sc, forcing_tol(cg_tol, forcing, tol_res, d_res), max_iter);
    set_cond(cond, use_cond, sc->status == HS_GPU_CG_RUNNING);
}

// alpha and beta of the iteration from the reduced gamma, gamma_old, delta (hs_cg_chronopoulos's;
// hs_dist_cg_coef, which dist_pcg.cu's fused kernel runs too)
__global__ void k_dist_coef(hs_gpu_cg_scalars *sc)
{
    if (sc->status != HS_GPU_CG_RUNNING) return;
    double alpha, beta, denom;
    int verdict;
    if (!hs_dist_cg_coef(sc, &alpha, &beta, &denom, &verdict)) {
        sc->status = verdict;
        sc->fail_iter = sc->iters + 1;
        return;
    }
    sc->alpha = alpha;
    sc->beta = beta;
    sc->pq = denom;
}

// the rows' update (hs_cgc_update_row) and the partials of (r,u), (r,r)
__global__ void k_dist_vector(int32_t n, const hs_gpu_cg_scalars *sc, double *__restrict__ x, double *__restrict__ r,
                              double *__restrict__ u, double *__restrict__ p, double *__restrict__ s,
                              const double *__restrict__ w, const double *__restrict__ dinv, double *partA,
                              double *partB)
{
    __shared__ double sh[kT];
    if (sc->status != HS_GPU_CG_RUNNING) return;
    const double alpha = sc->alpha, beta = sc->beta;
    double gg = 0.0, rr = 0.0;
    for (int32_t i = blockIdx.x * kT + threadIdx.x; i < n; i += gridDim.x * kT)
        hs_cgc_update_row(i, alpha, beta, x, r, u, p, s, w, dinv, gg, rr);
    gg = hs_block_sum(gg, sh);
    rr = hs_block_sum(rr, sh);
    if (threadIdx.x == 0) { partA[blockIdx.x] = gg; partB[blockIdx.x] = rr; }
}

// the test after the all-reduce of (r,u), (r,r), (A u, u) (hs_dist_cg_test)
__global__ void k_dist_test(const double *red, hs_gpu_cg_scalars *sc) { hs_dist_cg_test(red, sc); }

// ---- enqueueing -----------------------------------------------------------------------------------

hs_status enqueue_init_dist(hs_gpu_cg *cg, const double *b, double *x, const hs_gpu_cg_tol *t, cudaStream_t s,
                            cudaGraphConditionalHandle cond, int use_cond)
{
    const hs_gpu_cg_dist *d = cg->dist;
    if (d->init) return d->init(d->ctx, cg, b, x, t, s, cond, use_cond); /* the transport fused in (dist_pcg.cu) */
    k_init<<<cg->vblocks, kT, 0, s>>>(cg->n, b, cg->dinv, x, cg->r, cg->u, cg->p, cg->s, cg->partA, cg->partB);
    HS_CUDA_LAUNCH_CHECK("k_init");
    if (d->spmv_dot) { /* red[1] = (A u, u) from the product's own pass; red[0], red[2] from the partials */
        HS_CALL(d->spmv_dot(d->ctx, cg->u, cg->w, cg->partD, cg->dparts_cap, &cg->d_sc->ticket_spmv, cg->d_red + 1, s));
        k_dist_final2<<<1, kT, 0, s>>>(cg->vblocks, cg->partA, cg->partB, cg->d_red, cg->d_red + 2, nullptr);
        HS_CUDA_LAUNCH_CHECK("k_dist_final2");
    } else {
        HS_CALL(d->spmv(d->ctx, cg->u, cg->w, s));
        HS_CALL(hs_gpu_dot_pass(cg->n, cg->w, cg->u, cg->partD, nullptr, s));
        k_dist_final3<<<1, kT, 0, s>>>(cg->vblocks, cg->partA, cg->partD, cg->partB, cg->d_red, nullptr);
        HS_CUDA_LAUNCH_CHECK("k_dist_final3");
    }
    HS_CALL(d->sum(d->ctx, cg->d_red, 3, s));
    k_dist_init_final<<<1, 1, 0, s>>>(cg->d_red, cg->d_sc, t->cg_tol, t->forcing, t->tol_res, t->d_res, t->max_iter,
                                      cond, use_cond);
    HS_CUDA_LAUNCH_CHECK("k_dist_init_final");
    return HS_OK;
}

// One iteration; every rank enqueues the same ones (its status is the others': the same sums), so the
// exchange and the all-reduce run on all ranks alike, also after the solve stopped (then as no-ops
// on stale values: the kernels around them return at once).
hs_status enqueue_iteration_dist(hs_gpu_cg *cg, double *x, cudaStream_t s, cudaGraphConditionalHandle cond = {},
                                 int use_cond = 0)
{
    const hs_gpu_cg_dist *d = cg->dist;
    if (d->iteration) return d->iteration(d->ctx, cg, x, s, cond, use_cond); /* the transport fused in (dist_pcg.cu) */
    HS_CHECK(!use_cond, HS_ERR_INTERNAL, "the CG's kernel sequence on a partition sets no loop condition");
    const int VB = cg->vblocks;
    k_dist_coef<<<1, 1, 0, s>>>(cg->d_sc);
    HS_CUDA_LAUNCH_CHECK("k_dist_coef");
    k_dist_vector<<<VB, kT, 0, s>>>(cg->n, cg->d_sc, x, cg->r, cg->u, cg->p, cg->s, cg->w, cg->dinv, cg->partA,
                                    cg->partB);
    HS_CUDA_LAUNCH_CHECK("k_dist_vector");
    if (d->spmv_dot) { /* red[2] = (w, u) from the product's own pass (also once stopped: stale, unread) */
        HS_CALL(d->spmv_dot(d->ctx, cg->u, cg->w, cg->partD, cg->dparts_cap, &cg->d_sc->ticket_spmv, cg->d_red + 2, s));
        k_dist_final2<<<1, kT, 0, s>>>(VB, cg->partA, cg->partB, cg->d_red, cg->d_red + 1, cg->d_sc);
        HS_CUDA_LAUNCH_CHECK("k_dist_final2");
    } else {
        HS_CALL(d->spmv(d->ctx, cg->u, cg->w, s));
        HS_CALL(hs_gpu_dot_pass(cg->n, cg->w, cg->u, cg->partD, cg->d_sc, s));
        k_dist_final3<<<1, kT, 0, s>>>(VB, cg->partA, cg->partB, cg->partD, cg->d_red, cg->d_sc);
        HS_CUDA_LAUNCH_CHECK("k_dist_final3");
    }
    HS_CALL(d->sum(d->ctx, cg->d_red, 3, s));
    k_dist_test<<<1, 1, 0, s>>>(cg->d_red, cg->d_sc);
    HS_CUDA_LAUNCH_CHECK("k_dist_test");
    return HS_OK;
}

hs_status enqueue_init(hs_gpu_cg *cg, const double *b, double *x, const hs_gpu_cg_tol *t, cudaStream_t s,
                       cudaGraphConditionalHandle cond, int use_cond)
{
    if (cg->dist) return enqueue_init_dist(cg, b, x, t, s, cond, use_cond);
    HS_CHECK(cg->variant != HS_CG_SSTEP, HS_ERR_INTERNAL,
             "the s-step CG runs only as its persistent kernel (hs_gpu_cg_set_sstep first)");
    k_init<<<cg->vblocks, kT, 0, s>>>(cg->n, b, cg->dinv, x, cg->r, cg->u, cg->p,
                                      cg->variant == HS_CG_CHRONOPOULOS ? cg->s : nullptr, cg->partA, cg->partB);
    HS_CUDA_LAUNCH_CHECK("k_init");
    k_init_final<<<1, kT, 0, s>>>(cg->vblocks, cg->partA, cg->partB, cg->d_sc, t->cg_tol, t->forcing, t->tol_res,
                                   t->d_res, t->max_iter, cond, use_cond);
    HS_CUDA_LAUNCH_CHECK("k_init_final");
    return HS_OK;
}

// One iteration. In a graph body every iteration is the same node sequence; classic's first p = z
// comes from p = 0 and beta = 0 set at init. @p gated: the fused SpMV reads the status first and does
// nothing once the solve stopped (a body's iterations after its first; the first runs only while the
// WHILE node's condition says the solve runs, and the read costs ~1 us, so it goes without).
hs_status enqueue_iteration(hs_gpu_cg *cg, double *x, cudaStream_t s, cudaGraphConditionalHandle cond,
                            int use_cond, int gated = 1)
{
    if (cg->dist) return enqueue_iteration_dist(cg, x, s, cond, use_cond);
    const int VB = cg->vblocks;
    if (cg->variant == HS_CG_CHRONOPOULOS) {
        int n_dparts = 1; // fused: the SpMV's last block leaves delta itself in d_sc->delta
        const double *dpart = &cg->d_sc->delta;
        if (cg->fused) {
            HS_CALL(cg->spmv->ops->apply_dot(cg->spmv->impl, cg->u, cg->w, cg->partD, cg->dparts_cap,
                                             &cg->d_sc->ticket_spmv, &cg->d_sc->delta,
                                             gated ? &cg->d_sc->status : nullptr, s));
        } else {
            HS_CALL(hs_gpu_spmv_apply(cg->spmv, cg->u, cg->w, s));
            HS_CALL(hs_gpu_dot_pass(cg->n, cg->w, cg->u, cg->partD, cg->d_sc, s));
            n_dparts = VB;
            dpart = cg->partD;
        }
        k_cgc_vector<<<VB, kT, 0, s>>>(cg->n, n_dparts, dpart, cg->d_sc, x, cg->r, cg->u, cg->p, cg->s,
                                        cg->w, cg->dinv, cg->partA, cg->partB, cond, use_cond);
        HS_CUDA_LAUNCH_CHECK("k_cgc_vector");
        return HS_OK;
    }
    // classic: p = z + beta p first (beta of the previous iteration; 0 in the first), then q = A p
    k_classic_p<<<VB, kT, 0, s>>>(cg->n, cg->d_sc, cg->u, cg->p);
    HS_CALL(hs_gpu_spmv_apply(cg->spmv, cg->p, cg->w, s));
    HS_CALL(hs_gpu_dot_pass(cg->n, cg->p, cg->w, cg->partD, cg->d_sc, s));
    k_classic_alpha<<<1, kT, 0, s>>>(VB, cg->partD, cg->d_sc, cond, use_cond);
    k_classic_update<<<VB, kT, 0, s>>>(cg->n, cg->d_sc, x, cg->r, cg->u, cg->p, cg->w, cg->dinv, cg->partA,
                                       cg->partB);
    k_classic_beta<<<1, kT, 0, s>>>(VB, cg->partA, cg->partB, cg->d_sc, cond, use_cond);
    HS_CUDA_LAUNCH_CHECK("classic CG iteration kernels");
    return HS_OK;
}

// Iterations in the body of a solve's WHILE node: each pass of the node costs ~3.5 us on an H200
// (docs/parallel.md), so a body of k iterations pays it once per k. The iterations after the solve
// stopped return at once: every kernel of an iteration reads the status first (the fused SpMV through
// its gate), so the bits and the iteration count are the body of one's. Only where the SpMV is fused
// (Chronopoulos-Gear with a format's apply_dot): an unfused SpMV (classic CG, or a format without
// apply_dot) has no gate and would run in full in every iteration past the stop, up to k - 1 SpMVs a
// solve that were never measured against the passes saved. On one partition only: a distributed
// iteration still exchanges its halo after the solve stopped (dist_pcg.cu), which costs more than the
// pass it saves (measured: docs/benchmarks.md). HS_CG_BODY_ITERS (1..16) overrides the default for
// benchmarks.
constexpr int kBodyIters = 4;
int body_iters_default()
{
    const char *e = getenv("HS_CG_BODY_ITERS");
    if (e) {
        char *end = nullptr;
        long k = strtol(e, &end, 10);
        if (end != e && *end == '\0' && k >= 1 && k <= HS_GPU_CG_MAX_BODY_ITERS) return (int)k;
    }
    return kBodyIters;
}

} // namespace

hs_status hs_gpu_cg_create(int32_t n, hs_cg_variant variant, hs_gpu_spmv *spmv, const double *d_dinv,
                           hs_gpu_cg **out)
{
    *out = nullptr;
    hs_gpu_cg *cg = nullptr;
    HS_CALL(HS_ALLOC(cg, 1, "device CG"));
    cg->variant = variant;
    cg->n = n;
    cg->spmv = spmv;
    cg->dinv = d_dinv;
    cg->fused = variant == HS_CG_CHRONOPOULOS && spmv->ops->apply_dot != nullptr;
    cg->vblocks = hs_gpu_cg_vblocks(n);
    cg->body_iters = body_iters_default();
    hs_status st = HS_OK;
    double **vecs[] = {&cg->r, &cg->u, &cg->p, &cg->w, &cg->s};
    for (size_t i = 0; st == HS_OK && i < sizeof vecs / sizeof vecs[0]; ++i) {
        st = HS_CUDA_ALLOC(*vecs[i], n > 0 ? n : 1, "CG vectors");
        if (st == HS_OK && cudaMemset(*vecs[i], 0, sizeof(double) * (n > 0 ? n : 1)) != cudaSuccess)
            st = HS_FAIL(HS_ERR_DEVICE, "cudaMemset of CG vectors failed");
    }
    if (st == HS_OK) st = HS_CUDA_ALLOC(cg->partA, HS_DOT_MAX_PARTS, "CG reduction partials");
    if (st == HS_OK) st = HS_CUDA_ALLOC(cg->partB, HS_DOT_MAX_PARTS, "CG reduction partials");
    cg->dparts_cap = hs_gpu_cg_dparts_cap(n);
    if (st == HS_OK) st = HS_CUDA_ALLOC(cg->partD, (size_t)cg->dparts_cap, "CG reduction partials");
    if (st == HS_OK) st = HS_CUDA_ALLOC(cg->d_sc, 1, "CG scalars");
    if (st == HS_OK && cudaMemset(cg->d_sc, 0, sizeof(hs_gpu_cg_scalars)) != cudaSuccess)
        st = HS_FAIL(HS_ERR_DEVICE, "cudaMemset of CG scalars failed");
    if (st == HS_OK && cudaStreamCreateWithFlags(&cg->s_body, cudaStreamNonBlocking) != cudaSuccess)
        st = HS_FAIL(HS_ERR_DEVICE, "cannot create the CG capture stream");
    /* cudaMemset runs on the legacy default stream, which the callers' non-blocking streams do not wait
     * for: without this a solve enqueued at once could start before the zeroing and have its scalars
     * wiped (seen on an H200 with four test_gpu_cg processes sharing the GPU: a breakdown at iteration 0) */
    if (st == HS_OK && cudaDeviceSynchronize() != cudaSuccess)
        st = HS_FAIL(HS_ERR_DEVICE, "the CG's zeroing did not complete: %s", cudaGetErrorString(cudaGetLastError()));
    if (st != HS_OK) {
        hs_gpu_cg_destroy(&cg);
        return st;
    }
    *out = cg;
    return HS_OK;
}

void hs_gpu_cg_destroy(hs_gpu_cg **p)
{
    if (!p || !*p) return;
    hs_gpu_cg *cg = *p;
    void *dev[] = {cg->r, cg->u, cg->p, cg->w, cg->s, cg->partA, cg->partB, cg->partD, cg->d_sc,
                   cg->sstep_Y, cg->sstep_partG, cg->sstep_gtot, cg->sstep_cheb, cg->p_q, cg->p_part, cg->d_red};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; ++i) cudaFree(dev[i]);
    if (cg->s_body) cudaStreamDestroy(cg->s_body);
    if (cg->dist_exec) cudaGraphExecDestroy(cg->dist_exec);
    free(cg);
    *p = nullptr;
}

hs_status hs_gpu_cg_set_dist(hs_gpu_cg *cg, int32_t n_owned, const hs_gpu_cg_dist *dist)
{
    HS_CHECK(cg->variant == HS_CG_CHRONOPOULOS && !cg->persistent, HS_ERR_INTERNAL,
             "the CG on a partition is Chronopoulos-Gear as a kernel sequence");
    HS_CHECK(n_owned <= cg->n, HS_ERR_INTERNAL, "%d owned rows in a CG of %d", n_owned, cg->n);
    if (!cg->d_red) HS_CALL(HS_CUDA_ALLOC(cg->d_red, 3, "CG sums"));
    hs_gpu_cg_clear_dist(cg, n_owned);
    cg->dist = dist;
    return HS_OK;
}

void hs_gpu_cg_clear_dist(hs_gpu_cg *cg, int32_t n)
{
    if (cg->dist_exec) cudaGraphExecDestroy(cg->dist_exec);
    cg->dist_exec = nullptr;
    cg->dist_x = nullptr;
    cg->dist_k = 0;
    cg->dist = nullptr;
    cg->n = n;
    cg->vblocks = hs_gpu_cg_vblocks(n);
}

int hs_gpu_cg_vblocks(int32_t n)
{
    // enough blocks to stream the vectors at full bandwidth, never more than rows need; the count
    // depends on n only, so the reductions' order is fixed for a given system
    int64_t vb = ((int64_t)n + kT - 1) / kT;
    return (int)(vb < 1 ? 1 : vb > HS_DOT_MAX_PARTS ? HS_DOT_MAX_PARTS : vb);
}

int hs_gpu_cg_dparts_cap(int32_t n)
{
    // a fused SpMV may use one block per 8 rows at most (ELL-WARP K2 with one row per lane group);
    // capping its grid here only makes it grid-stride
    int64_t dcap = (int64_t)n / 8 + HS_DOT_MAX_PARTS;
    return (int)(dcap > (1 << 22) ? (1 << 22) : dcap);
}

hs_status hs_gpu_dot_pass(int32_t n, const double *a, const double *b, double *part, const hs_gpu_cg_scalars *sc,
                          cudaStream_t s)
{
    k_dot<<<hs_gpu_cg_vblocks(n), kT, 0, s>>>(n, a, b, part, sc);
    HS_CUDA_LAUNCH_CHECK("k_dot");
    return HS_OK;
}

namespace {

// dist->graph: k iterations on x captured from stream s (which may have work pending: the graph's
// launches are ordered after it) into cg->dist_exec. The halo exchange forks onto the comm's side
// stream through an event and joins back before the capture ends (hs_cuda_comm.h). Relaxed mode:
// NCCL's own calls during its capture are its to order.
hs_status capture_dist_chunk(hs_gpu_cg *cg, double *x, int k, cudaStream_t s)
{
    const hs_gpu_cg_dist *d = cg->dist;
    if (cg->dist_exec) cudaGraphExecDestroy(cg->dist_exec);
    cg->dist_exec = nullptr;
    cg->dist_x = nullptr;
    if (d->note) d->note(d->ctx, HS_GPU_CG_NOTE_CAPTURE);
    HS_CUDA_CALL(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    hs_status st = HS_OK;
    for (int q = 0; st == HS_OK && q < k; ++q) st = enqueue_iteration_dist(cg, x, s);
    cudaGraph_t graph = nullptr;
    cudaError_t e = cudaStreamEndCapture(s, &graph);
    if (d->note) d->note(d->ctx, HS_GPU_CG_NOTE_CAPTURED);
    if (st == HS_OK && e != cudaSuccess)
        st = HS_FAIL(HS_ERR_DEVICE, "CUDA graph capture of %d distributed CG iterations failed: %s", k,
                     cudaGetErrorString(e));
    if (st == HS_OK) {
        e = cudaGraphInstantiate(&cg->dist_exec, graph, 0);
        if (e != cudaSuccess) {
            cg->dist_exec = nullptr;
            st = HS_FAIL(HS_ERR_DEVICE, "instantiating the distributed CG's graph failed: %s", cudaGetErrorString(e));
        }
    }
    if (graph) cudaGraphDestroy(graph);
    if (st != HS_OK) return st;
    cg->dist_x = x;
    cg->dist_k = k;
    return HS_OK;
}

// chunk iterations on s: from the graph when it holds them (dist->graph, a full chunk), else one by one
hs_status enqueue_chunk(hs_gpu_cg *cg, double *x, int chunk, int poll, cudaStream_t s)
{
    const hs_gpu_cg_dist *d = cg->dist;
    if (d && d->graph && chunk == poll) {
        if (!cg->dist_exec || cg->dist_x != x || cg->dist_k != poll) HS_CALL(capture_dist_chunk(cg, x, poll, s));
        HS_CUDA_CALL(cudaGraphLaunch(cg->dist_exec, s));
        if (d->note) d->note(d->ctx, HS_GPU_CG_NOTE_REPLAY);
        return HS_OK;
    }
    for (int q = 0; q < chunk; ++q) HS_CALL(enqueue_iteration(cg, x, s, cudaGraphConditionalHandle{}, 0));
    return HS_OK;
}

} // namespace

hs_status hs_gpu_cg_solve_stream(hs_gpu_cg *cg, const double *b, double *x, const hs_gpu_cg_tol *t,
                                 int poll, cudaStream_t s, hs_gpu_cg_scalars *h_sc)
{
    if (cg->persistent) { /* one kernel runs the whole solve: one synchronisation */
        HS_CALL(hs_gpu_cg_launch_persistent(cg, b, x, t, s));
        HS_CUDA_CALL(cudaMemcpyAsync(h_sc, cg->d_sc, sizeof(hs_gpu_cg_scalars), cudaMemcpyDeviceToHost, s));
        HS_CUDA_CALL(cudaStreamSynchronize(s));
        return HS_OK;
    }
    HS_CALL(enqueue_init(cg, b, x, t, s, cudaGraphConditionalHandle{}, 0));
    if (poll < 1) poll = 1;
    int launched = 0;
    for (;;) {
        int chunk = poll;
        if (launched + chunk > t->max_iter) chunk = t->max_iter - launched;
        HS_CALL(enqueue_chunk(cg, x, chunk, poll, s));
        launched += chunk;
        HS_CUDA_CALL(cudaMemcpyAsync(h_sc, cg->d_sc, sizeof(hs_gpu_cg_scalars), cudaMemcpyDeviceToHost, s));
        HS_CUDA_CALL(cudaStreamSynchronize(s));
        if (h_sc->status != HS_GPU_CG_RUNNING || launched >= t->max_iter) break;
    }
    return HS_OK;
}

hs_status hs_gpu_cg_enqueue_fixed(hs_gpu_cg *cg, const double *b, double *x, const hs_gpu_cg_tol *t, int k,
                                  int init, cudaStream_t s)
{
    if (cg->persistent) { /* a whole solve of k iterations (tolerance 0) in one kernel */
        hs_gpu_cg_tol tk = *t;
        tk.max_iter = k;
        (void)init;
        return hs_gpu_cg_launch_persistent(cg, b, x, &tk, s);
    }
    if (init) HS_CALL(enqueue_init(cg, b, x, t, s, cudaGraphConditionalHandle{}, 0));
    for (int q = 0; q < k; ++q) HS_CALL(enqueue_iteration(cg, x, s, cudaGraphConditionalHandle{}, 0));
    return HS_OK;
}

hs_status hs_gpu_cg_capture_solve(hs_gpu_cg *cg, const double *b, double *x, const hs_gpu_cg_tol *t,
                                  cudaStream_t s)
{
    if (cg->persistent) return hs_gpu_cg_launch_persistent(cg, b, x, t, s); /* one cooperative kernel node */
    /* on a partition: only where the transport is fused into the iteration's kernels (the ipc transport,
     * dist_pcg.cu), whose last kernel sets the loop condition; NCCL's calls cannot live in a WHILE body */
    HS_CHECK(!cg->dist || cg->dist->iteration, HS_ERR_INTERNAL,
             "the CG on a partition is captured with its loop only when the transport is fused into its kernels");
    cudaStreamCaptureStatus cs;
    cudaGraph_t graph = nullptr;
    HS_CUDA_CALL(cudaStreamGetCaptureInfo(s, &cs, nullptr, &graph));
    HS_CHECK(cs == cudaStreamCaptureStatusActive, HS_ERR_INTERNAL, "CG capture: the stream is not capturing");
    cudaGraphConditionalHandle cond;
    HS_CUDA_CALL(cudaGraphConditionalHandleCreate(&cond, graph, 0, 0));
    HS_CALL(enqueue_init(cg, b, x, t, s, cond, 1));
    const cudaGraphNode_t *deps = nullptr;
    size_t n_deps = 0;
    HS_CUDA_CALL(cudaStreamGetCaptureInfo(s, &cs, nullptr, &graph, &deps, nullptr, &n_deps));
    cudaGraphNodeParams np = {};
    np.type = cudaGraphNodeTypeConditional;
    np.conditional.handle = cond;
    np.conditional.type = cudaGraphCondTypeWhile;
    np.conditional.size = 1;
    cudaGraphNode_t node;
    HS_CUDA_CALL(cudaGraphAddNode(&node, graph, deps, nullptr, n_deps, &np));
    cudaGraph_t body = np.conditional.phGraph_out[0];
    HS_CUDA_CALL(cudaStreamUpdateCaptureDependencies(s, &node, nullptr, 1, cudaStreamSetCaptureDependencies));
    // the body: body_iters iterations (one on a partition, and one where the SpMV is not fused: it has
    // no gate), captured on the side stream into the WHILE node's graph
    HS_CUDA_CALL(cudaStreamBeginCaptureToGraph(cg->s_body, body, nullptr, nullptr, 0,
                                               cudaStreamCaptureModeThreadLocal));
    hs_status st = HS_OK;
    const int k = cg->dist || !cg->fused ? 1 : cg->body_iters;
    for (int q = 0; st == HS_OK && q < k; ++q) st = enqueue_iteration(cg, x, cg->s_body, cond, 1, q > 0);
    cudaGraph_t out = nullptr;
    cudaError_t e = cudaStreamEndCapture(cg->s_body, &out);
    HS_CALL(st);
    HS_CUDA_CALL(e);
    return HS_OK;
}

hs_status hs_gpu_cg_set_body_iters(hs_gpu_cg *cg, int k)
{
    HS_CHECK(k >= 1 && k <= HS_GPU_CG_MAX_BODY_ITERS, HS_ERR_INTERNAL, "CG iterations per graph body: %d, not in [1, %d]",
             k, HS_GPU_CG_MAX_BODY_ITERS);
    cg->body_iters = k;
    return HS_OK;
}

void hs_gpu_cg_result_of(const hs_gpu_cg_scalars *h, hs_cg_result *res)
{
    res->iters = h->status == HS_GPU_CG_BREAK || h->status == HS_GPU_CG_NONFINITE
                     ? (h->fail_iter > h->iters ? h->fail_iter : h->iters)
                     : h->iters;
    res->rel_res = h->bb > 0 ? sqrt(h->rr / h->bb) : 0.0;
    res->fallback_iter = h->fallback_iter;
    res->outcome = h->status == HS_GPU_CG_CONV ? HS_CG_CONVERGED
                 : h->status == HS_GPU_CG_BREAK ? HS_CG_BREAKDOWN
                 : h->status == HS_GPU_CG_NONFINITE ? HS_CG_NONFINITE : HS_CG_MAX_ITER;
}
