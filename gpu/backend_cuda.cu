/*
 * The CUDA backend: mesh data, state (phi, phi_n, r per element), matrix values, preconditioner and
 * CG vectors live on the device for the whole run (seed 002 sections 2 and 4, Table 1).
 *
 * Per Newton iteration:
 *   element kernel   one thread per element: local Newton for r, Ke, Re (hs_element_eval, the same
 *                    inline function as the CPU reference). One thread per element because the
 *                    local Newton is sequential per integration point and an element's work (~300
 *                    flops, 200 bytes) is too small to split; neighbouring threads read neighbouring
 *                    element arrays, coalesced.
 *   assembly         "K_elem . 1": one thread per nonzero of K sums its element entries through the
 *                    gather map and writes the SpMV format's slot; one thread per node sums R, takes
 *                    the Jacobi diagonal and the weighted residual norm. No atomics, fixed order.
 *   Jacobi-PCG       the SpMV kernel chosen by solver.spmv; alpha, beta and the convergence test are
 *                    computed on the device (a status word stops further work once converged); the
 *                    host reads the status every HS_CG_POLL iterations.
 * Only a handful of scalars cross to the host per Newton iteration.
 */
#include <climits>
#include <cstdlib>
#include <cstdio>
#include <cstring>

#include "hs_cuda_check.cuh"
#include "hs_element.h"
#include "hs_gpu.h"
#include "hs_gpu_reduce.cuh"
#include "hs_gpu_spmv.cuh"
#include "hs_naive_cg.cuh"
#include "hs_util.h"

#define HS_CG_POLL 4 /* CG iterations launched between two reads of the device status word */

enum { CG_RUNNING = 0, CG_CONV = 1, CG_BREAK = 2, CG_NONFINITE = 3, CG_MAXIT = 4 };

/* Scalars that live on the device; copied to pinned host memory as one block when needed. */
struct dev_scalars {
    double rz, bb, rr, alpha, beta, pq, tol2;
    int status, iters, max_iter;
    double res, upd;   /* Newton: weighted residual norm, max |du| */
    int res_node, upd_node;
    int bad_elem;      /* smallest element whose local Newton failed, 0x7f7f7f7f when none */
};

struct cuda_impl {
    cudaStream_t s, s_copy;
    cudaEvent_t ev_e0, ev_e1, ev_a1, ev_s0, ev_s1, ev_state;
    hs_spmv_layout *lay;
    hs_gpu_spmv *spmv;
    int32_t nn, ne, nnz;
    /* mesh and discretisation (constant) */
    int32_t *tets;
    double *vol, *kd, *inv_mass;
    int32_t *kptr, *ksrc, *rptr, *rsrc, *diag;
    int64_t *slot;
    int32_t *stim_elem;
    /* state and per-iteration arrays */
    double *phi, *phin, *r, *rn, *act, *ke, *re, *kval, *rhs, *du, *dinv, *stim_e;
    double *cr, *cz, *cp, *cq;
    double *partA, *partB;
    int *parti;
    dev_scalars *d_sc, *h_sc; /* h_sc pinned */
    double *h_phi, *h_r, *h_act; /* pinned frame buffers */
    double dt;
    int stim_was_on;
    hs_phase_times t;
};

/* Blocks for n items; kernels launched with it are grid-stride, so the cap never drops work. */
static int nblocks(int64_t n, int threads)
{
    int64_t b = (n + threads - 1) / threads;
    return (int)(b < 1 ? 1 : b > 65535 * 16 ? 65535 * 16 : b);
}

/* ---- kernels ------------------------------------------------------------------------------ */

/* Device layouts are structure-of-arrays so neighbouring threads touch neighbouring addresses:
 * kd [10][ne], ke [10][ne] (K_e is symmetric: the 10 entries a <= b, hs_sym4_index), re [4][ne].
 * The gather maps are re-encoded for these layouts at upload (remap_gather_maps). */
__global__ void k_element(int32_t ne, hs_ap_params ap, double dt, const int32_t *__restrict__ tets,
                          const double *__restrict__ vol, const double *__restrict__ kd,
                          const double *__restrict__ phi, const double *__restrict__ phin,
                          const double *__restrict__ stim_e, const double *__restrict__ rn,
                          double *__restrict__ r, double *__restrict__ ke, double *__restrict__ re,
                          dev_scalars *sc)
{
    for (int32_t e = blockIdx.x * blockDim.x + threadIdx.x; e < ne; e += gridDim.x * blockDim.x) {
    int4 t = reinterpret_cast<const int4 *>(tets)[e];
    double ph[4] = {phi[t.x], phi[t.y], phi[t.z], phi[t.w]};
    double pn[4] = {phin[t.x], phin[t.y], phin[t.z], phin[t.w]};
    double kde[10], kel[16], rel[4];
#pragma unroll
    for (int q = 0; q < 10; ++q) kde[q] = kd[(int64_t)q * ne + e];
    double rr = r[e];
    int it = hs_element_eval(&ap, dt, vol[e], kde, ph, pn, stim_e[e], rn[e], &rr, kel, rel);
    if (it < 0) atomicMin(&sc->bad_elem, (int)e); /* error flag only: the result is order-free */
    r[e] = rr;
#pragma unroll
    for (int a = 0; a < 4; ++a)
#pragma unroll
        for (int b = a; b < 4; ++b) ke[(int64_t)hs_sym4_index(a, b) * ne + e] = kel[4 * a + b];
#pragma unroll
    for (int a = 0; a < 4; ++a) re[(int64_t)a * ne + e] = rel[a];
    }
}

__global__ void k_assemble_k(int32_t nnz, const int32_t *__restrict__ kptr, const int32_t *__restrict__ ksrc,
                             const int64_t *__restrict__ slot, const double *__restrict__ ke,
                             double *__restrict__ kval)
{
    for (int32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += gridDim.x * blockDim.x) {
        double s = 0.0;
        for (int32_t j = kptr[k]; j < kptr[k + 1]; ++j) s += ke[ksrc[j]];
        kval[slot[k]] = s;
    }
}

/* R, Jacobi diagonal and the block maxima of dt |R_i| / m_i */
__global__ void k_assemble_r(int32_t nn, const int32_t *__restrict__ rptr, const int32_t *__restrict__ rsrc,
                             const double *__restrict__ re, const int32_t *__restrict__ diag,
                             const int64_t *__restrict__ slot, const double *__restrict__ kval,
                             const double *__restrict__ inv_mass, double dt, double *__restrict__ rhs,
                             double *__restrict__ dinv, double *partv, int *parti)
{
    __shared__ double shv[HS_RED_THREADS];
    __shared__ int shi[HS_RED_THREADS];
    double best = 0.0;
    int bi = INT_MAX;
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < nn; i += gridDim.x * blockDim.x) {
        double s = 0.0;
        for (int32_t j = rptr[i]; j < rptr[i + 1]; ++j) s += re[rsrc[j]];
        rhs[i] = s;
        dinv[i] = 1.0 / kval[slot[diag[i]]];
        double w = fabs(s) * dt * inv_mass[i];
        if (w > best || (isnan(w) && !isnan(best))) { best = w; bi = i; }
    }
    hs_block_maxloc(best, bi, shv, shi);
    if (threadIdx.x == 0) { partv[blockIdx.x] = best; parti[blockIdx.x] = bi; }
}

/* Final max-location over the block partials into (*v, *i). One block. */
__global__ void k_final_maxloc(int nparts, const double *partv, const int *parti, double *v, int *i)
{
    __shared__ double shv[HS_RED_THREADS];
    __shared__ int shi[HS_RED_THREADS];
    double best = 0.0;
    int bi = INT_MAX;
    for (int p = threadIdx.x; p < nparts; p += blockDim.x) {
        double w = partv[p];
        int wi = parti[p];
        if (w > best || (w == best && wi < bi) || (isnan(w) && !isnan(best))) { best = w; bi = wi; }
    }
    hs_block_maxloc(best, bi, shv, shi);
    if (threadIdx.x == 0) { *v = best; *i = bi == INT_MAX ? 0 : bi; }
}

/* Fixed-order sum of the partials: thread t adds partials t, t+256, ..., then the block tree. */
__device__ inline double final_sum(int nparts, const double *part, double *sh)
{
    double s = 0.0;
    for (int p = threadIdx.x; p < nparts; p += blockDim.x) s += part[p];
    return hs_block_sum(s, sh);
}

__global__ void k_cg_init(int32_t n, const double *__restrict__ b, const double *__restrict__ dinv,
                          double *__restrict__ x, double *__restrict__ r, double *__restrict__ z,
                          double *__restrict__ p, double *partA, double *partB)
{
    __shared__ double sh[HS_RED_THREADS];
    double rz = 0.0, bb = 0.0;
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        double bi = b[i], zi = dinv[i] * bi;
        x[i] = 0.0;
        r[i] = bi;
        z[i] = zi;
        p[i] = zi;
        rz += bi * zi;
        bb += bi * bi;
    }
    rz = hs_block_sum(rz, sh);
    bb = hs_block_sum(bb, sh);
    if (threadIdx.x == 0) { partA[blockIdx.x] = rz; partB[blockIdx.x] = bb; }
}

__global__ void k_cg_init_final(int nparts, const double *partA, const double *partB, dev_scalars *sc,
                                double tol, int max_iter)
{
    __shared__ double sh[HS_RED_THREADS];
    double rz = final_sum(nparts, partA, sh);
    double bb = final_sum(nparts, partB, sh);
    if (threadIdx.x == 0) {
        sc->rz = rz;
        sc->bb = bb;
        sc->rr = bb;
        sc->tol2 = tol * tol;
        sc->iters = 0;
        sc->max_iter = max_iter;
        sc->status = !isfinite(bb) ? CG_NONFINITE : bb == 0.0 ? CG_CONV : CG_RUNNING;
    }
}

__global__ void k_dot(int32_t n, const double *__restrict__ a, const double *__restrict__ b, double *part,
                      const dev_scalars *sc)
{
    __shared__ double sh[HS_RED_THREADS];
    if (sc->status != CG_RUNNING) return; /* uniform across the grid */
    double s = 0.0;
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += a[i] * b[i];
    s = hs_block_sum(s, sh);
    if (threadIdx.x == 0) part[blockIdx.x] = s;
}

__global__ void k_cg_alpha(int nparts, const double *part, dev_scalars *sc)
{
    __shared__ double sh[HS_RED_THREADS];
    if (sc->status != CG_RUNNING) return;
    double pq = final_sum(nparts, part, sh);
    if (threadIdx.x == 0) {
        sc->pq = pq;
        if (!isfinite(pq)) sc->status = CG_NONFINITE;
        else if (pq <= 0.0 || sc->rz <= 0.0) sc->status = CG_BREAK;
        else sc->alpha = sc->rz / pq;
        if (sc->status != CG_RUNNING) sc->iters++;
    }
}

/* x += alpha p, r -= alpha q, z = D^-1 r, and the partials of r.r and r.z */
__global__ void k_cg_update(int32_t n, const dev_scalars *sc, double *__restrict__ x, double *__restrict__ r,
                            double *__restrict__ z, const double *__restrict__ p, const double *__restrict__ q,
                            const double *__restrict__ dinv, double *partA, double *partB)
{
    __shared__ double sh[HS_RED_THREADS];
    if (sc->status != CG_RUNNING) return;
    double alpha = sc->alpha, rr = 0.0, rz = 0.0;
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
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

__global__ void k_cg_beta(int nparts, const double *partA, const double *partB, dev_scalars *sc)
{
    __shared__ double sh[HS_RED_THREADS];
    if (sc->status != CG_RUNNING) return;
    double rr = final_sum(nparts, partA, sh);
    double rz = final_sum(nparts, partB, sh);
    if (threadIdx.x == 0) {
        sc->iters++;
        sc->rr = rr;
        if (!isfinite(rr)) sc->status = CG_NONFINITE;
        else if (rr <= sc->tol2 * sc->bb) sc->status = CG_CONV;
        else if (sc->iters >= sc->max_iter) sc->status = CG_MAXIT;
        else {
            sc->beta = rz / sc->rz;
            sc->rz = rz;
        }
    }
}

__global__ void k_cg_p(int32_t n, const dev_scalars *sc, const double *__restrict__ z, double *__restrict__ p)
{
    if (sc->status != CG_RUNNING) return;
    double beta = sc->beta;
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        p[i] = z[i] + beta * p[i];
}

/* phi -= du (when apply), block maxima of |du| */
__global__ void k_update_phi(int32_t n, int apply, double *__restrict__ phi, const double *__restrict__ du,
                             double *partv, int *parti)
{
    __shared__ double shv[HS_RED_THREADS];
    __shared__ int shi[HS_RED_THREADS];
    double best = 0.0;
    int bi = INT_MAX;
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        double d = du[i];
        if (apply) phi[i] -= d;
        double a = fabs(d);
        if (a > best || (isnan(a) && !isnan(best))) { best = a; bi = i; }
    }
    hs_block_maxloc(best, bi, shv, shi);
    if (threadIdx.x == 0) { partv[blockIdx.x] = best; parti[blockIdx.x] = bi; }
}

__global__ void k_stim_add(int32_t count, const int32_t *__restrict__ elem, double amp, double *stim_e)
{
    /* elements of one site are distinct: no race */
    for (int32_t j = blockIdx.x * blockDim.x + threadIdx.x; j < count; j += gridDim.x * blockDim.x)
        stim_e[elem[j]] += amp;
}

__global__ void k_activation(int32_t n, const double *__restrict__ phin, const double *__restrict__ phi,
                             double *__restrict__ act, double thr, double t_prev, double dt_ms)
{
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        double a = phin[i], z = phi[i];
        if (act[i] < 0.0 && a < thr && z >= thr) act[i] = t_prev + dt_ms * (thr - a) / (z - a);
    }
}

__global__ void k_fill(int64_t n, double v, double *x)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        x[i] = v;
}

template <typename T>
static hs_status upload(T **d, const T *h, size_t count, const char *what)
{
    HS_CALL(hs_cuda_alloc_((void **)d, sizeof(T) * count, what, __FILE__, __LINE__));
    if (count) HS_CUDA_CALL(cudaMemcpy(*d, h, sizeof(T) * count, cudaMemcpyHostToDevice));
    return HS_OK;
}

/* ---- backend ops -------------------------------------------------------------------------- */

static float elapsed_ms(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, a, b);
    return ms;
}

static hs_status cu_begin_step(hs_backend *b, double dt, const double *amp)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    const hs_stim_set *st = b->prob->stim;
    c->dt = dt;
    HS_CUDA_CALL(cudaMemcpyAsync(c->phin, c->phi, sizeof(double) * c->nn, cudaMemcpyDeviceToDevice, c->s));
    HS_CUDA_CALL(cudaMemcpyAsync(c->rn, c->r, sizeof(double) * c->ne, cudaMemcpyDeviceToDevice, c->s));
    int on = 0;
    for (int k = 0; st && k < st->n_sites; ++k) on |= amp[k] != 0.0;
    if (on || c->stim_was_on) { /* the element current array changes only while a site is active */
        HS_CUDA_CALL(cudaMemsetAsync(c->stim_e, 0, sizeof(double) * c->ne, c->s));
        for (int k = 0; st && k < st->n_sites; ++k) {
            int32_t cnt = st->elem_ptr[k + 1] - st->elem_ptr[k];
            if (amp[k] == 0.0 || cnt == 0) continue;
            k_stim_add<<<nblocks(cnt, 256), 256, 0, c->s>>>(cnt, c->stim_elem + st->elem_ptr[k], amp[k], c->stim_e);
            HS_CUDA_LAUNCH_CHECK("k_stim_add");
        }
    }
    c->stim_was_on = on;
    return HS_OK;
}

static hs_status cu_assemble(hs_backend *b, double *res_norm, int32_t *res_node)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    const hs_problem *p = b->prob;
    HS_CUDA_CALL(cudaMemsetAsync(&c->d_sc->bad_elem, 0x7f, sizeof(int), c->s));
    HS_CUDA_CALL(cudaEventRecord(c->ev_e0, c->s));
    k_element<<<nblocks(c->ne, 128), 128, 0, c->s>>>(c->ne, p->opt.ap, c->dt, c->tets, c->vol, c->kd, c->phi,
                                                    c->phin, c->stim_e, c->rn, c->r, c->ke, c->re, c->d_sc);
    HS_CUDA_LAUNCH_CHECK("k_element");
    HS_CUDA_CALL(cudaEventRecord(c->ev_e1, c->s));
    k_assemble_k<<<nblocks(c->nnz, 256), 256, 0, c->s>>>(c->nnz, c->kptr, c->ksrc, c->slot, c->ke, c->kval);
    HS_CUDA_LAUNCH_CHECK("k_assemble_k");
    k_assemble_r<<<HS_RED_BLOCKS, HS_RED_THREADS, 0, c->s>>>(c->nn, c->rptr, c->rsrc, c->re, c->diag, c->slot,
                                                              c->kval, c->inv_mass, c->dt, c->rhs, c->dinv,
                                                              c->partA, c->parti);
    HS_CUDA_LAUNCH_CHECK("k_assemble_r");
    k_final_maxloc<<<1, HS_RED_THREADS, 0, c->s>>>(HS_RED_BLOCKS, c->partA, c->parti, &c->d_sc->res, &c->d_sc->res_node);
    HS_CUDA_LAUNCH_CHECK("k_final_maxloc");
    HS_CUDA_CALL(cudaEventRecord(c->ev_a1, c->s));
    HS_CUDA_CALL(cudaMemcpyAsync(c->h_sc, c->d_sc, sizeof(dev_scalars), cudaMemcpyDeviceToHost, c->s));
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    c->t.element += 1e-3 * elapsed_ms(c->ev_e0, c->ev_e1);
    c->t.assembly += 1e-3 * elapsed_ms(c->ev_e1, c->ev_a1);
    if (c->h_sc->bad_elem != 0x7f7f7f7f) {
        int e = c->h_sc->bad_elem;
        return HS_FAIL(HS_ERR_NUMERIC, "the local Newton iteration for r failed in element %d (on the GPU)", e);
    }
    *res_norm = c->h_sc->res;
    *res_node = c->h_sc->res_node;
    return HS_OK;
}

/* Launch the iterations of one solve; the host reads the status word every HS_CG_POLL iterations. */
static hs_status cu_solve(hs_backend *b, hs_cg_result *cg, double *upd_norm)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    const hs_problem *p = b->prob;
    const int32_t n = c->nn;
    const int RB = HS_RED_BLOCKS, RT = HS_RED_THREADS;
    HS_CUDA_CALL(cudaEventRecord(c->ev_s0, c->s));
    k_cg_init<<<RB, RT, 0, c->s>>>(n, c->rhs, c->dinv, c->du, c->cr, c->cz, c->cp, c->partA, c->partB);
    HS_CUDA_LAUNCH_CHECK("k_cg_init");
    k_cg_init_final<<<1, RT, 0, c->s>>>(RB, c->partA, c->partB, c->d_sc, p->opt.cg.tol, p->opt.cg.max_iter);
    HS_CUDA_LAUNCH_CHECK("k_cg_init_final");
    int launched = 0;
    for (;;) {
        int chunk = HS_CG_POLL;
        if (launched + chunk > p->opt.cg.max_iter) chunk = p->opt.cg.max_iter - launched;
        for (int q = 0; q < chunk; ++q) {
            HS_CALL(hs_gpu_spmv_apply(c->spmv, c->cp, c->cq, c->s));
            k_dot<<<RB, RT, 0, c->s>>>(n, c->cp, c->cq, c->partA, c->d_sc);
            k_cg_alpha<<<1, RT, 0, c->s>>>(RB, c->partA, c->d_sc);
            k_cg_update<<<RB, RT, 0, c->s>>>(n, c->d_sc, c->du, c->cr, c->cz, c->cp, c->cq, c->dinv, c->partA, c->partB);
            k_cg_beta<<<1, RT, 0, c->s>>>(RB, c->partA, c->partB, c->d_sc);
            k_cg_p<<<RB, RT, 0, c->s>>>(n, c->d_sc, c->cz, c->cp);
            HS_CUDA_LAUNCH_CHECK("CG iteration kernels");
        }
        launched += chunk;
        HS_CUDA_CALL(cudaMemcpyAsync(c->h_sc, c->d_sc, sizeof(dev_scalars), cudaMemcpyDeviceToHost, c->s));
        HS_CUDA_CALL(cudaStreamSynchronize(c->s));
        if (c->h_sc->status != CG_RUNNING || launched >= p->opt.cg.max_iter) break;
    }
    const dev_scalars *h = c->h_sc;
    cg->iters = h->iters;
    cg->rel_res = h->bb > 0 ? sqrt(h->rr / h->bb) : 0.0;
    cg->outcome = h->status == CG_CONV ? HS_CG_CONVERGED
                : h->status == CG_BREAK ? HS_CG_BREAKDOWN
                : h->status == CG_NONFINITE ? HS_CG_NONFINITE : HS_CG_MAX_ITER;
    k_update_phi<<<RB, RT, 0, c->s>>>(n, cg->outcome == HS_CG_CONVERGED, c->phi, c->du, c->partA, c->parti);
    HS_CUDA_LAUNCH_CHECK("k_update_phi");
    k_final_maxloc<<<1, RT, 0, c->s>>>(RB, c->partA, c->parti, &c->d_sc->upd, &c->d_sc->upd_node);
    HS_CUDA_LAUNCH_CHECK("k_final_maxloc");
    HS_CUDA_CALL(cudaEventRecord(c->ev_s1, c->s));
    HS_CUDA_CALL(cudaMemcpyAsync(&c->h_sc->upd, &c->d_sc->upd, sizeof(double), cudaMemcpyDeviceToHost, c->s));
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    c->t.solve += 1e-3 * elapsed_ms(c->ev_s0, c->ev_s1);
    *upd_norm = c->h_sc->upd;
    return HS_OK;
}

static hs_status cu_end_step(hs_backend *b, double t_prev, double dt_ms)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    k_activation<<<nblocks(c->nn, 256), 256, 0, c->s>>>(c->nn, c->phin, c->phi, c->act, b->prob->opt.activation_phi,
                                                        t_prev, dt_ms);
    HS_CUDA_LAUNCH_CHECK("k_activation");
    return HS_OK;
}

static hs_status cu_restore_step(hs_backend *b)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    HS_CUDA_CALL(cudaMemcpyAsync(c->phi, c->phin, sizeof(double) * c->nn, cudaMemcpyDeviceToDevice, c->s));
    HS_CUDA_CALL(cudaMemcpyAsync(c->r, c->rn, sizeof(double) * c->ne, cudaMemcpyDeviceToDevice, c->s));
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    return HS_OK;
}

/* Frames: the copy runs on its own stream into pinned buffers once the compute stream reaches
 * this point; the compute stream is not blocked by it. */
static hs_status cu_get_state(hs_backend *b, double *phi, double *r, double *act)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    HS_CUDA_CALL(cudaEventRecord(c->ev_state, c->s));
    HS_CUDA_CALL(cudaStreamWaitEvent(c->s_copy, c->ev_state, 0));
    if (phi) HS_CUDA_CALL(cudaMemcpyAsync(c->h_phi, c->phi, sizeof(double) * c->nn, cudaMemcpyDeviceToHost, c->s_copy));
    if (r) HS_CUDA_CALL(cudaMemcpyAsync(c->h_r, c->r, sizeof(double) * c->ne, cudaMemcpyDeviceToHost, c->s_copy));
    if (act) HS_CUDA_CALL(cudaMemcpyAsync(c->h_act, c->act, sizeof(double) * c->nn, cudaMemcpyDeviceToHost, c->s_copy));
    HS_CUDA_CALL(cudaStreamSynchronize(c->s_copy));
    if (phi) memcpy(phi, c->h_phi, sizeof(double) * c->nn);
    if (r) memcpy(r, c->h_r, sizeof(double) * c->ne);
    if (act) memcpy(act, c->h_act, sizeof(double) * c->nn);
    return HS_OK;
}

static hs_status cu_set_state(hs_backend *b, const double *phi, const double *r, const double *act)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    if (phi) HS_CUDA_CALL(cudaMemcpy(c->phi, phi, sizeof(double) * c->nn, cudaMemcpyHostToDevice));
    if (r) HS_CUDA_CALL(cudaMemcpy(c->r, r, sizeof(double) * c->ne, cudaMemcpyHostToDevice));
    if (act) HS_CUDA_CALL(cudaMemcpy(c->act, act, sizeof(double) * c->nn, cudaMemcpyHostToDevice));
    return HS_OK;
}

static hs_status cu_get_system(hs_backend *b, double *kval_csr, double *rhs)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    if (kval_csr) {
        double *all = NULL;
        HS_CALL(HS_ALLOC(all, c->lay->n_slots, "K copy"));
        cudaError_t e = cudaMemcpy(all, c->kval, sizeof(double) * c->lay->n_slots, cudaMemcpyDeviceToHost);
        for (int32_t k = 0; e == cudaSuccess && k < c->nnz; ++k) kval_csr[k] = all[c->lay->slot_of_nnz[k]];
        free(all);
        HS_CUDA_CALL(e);
    }
    if (rhs) HS_CUDA_CALL(cudaMemcpy(rhs, c->rhs, sizeof(double) * c->nn, cudaMemcpyDeviceToHost));
    return HS_OK;
}

/* One CG iteration body, exactly as cu_solve launches it. */
static hs_status cg_iteration(cuda_impl *c)
{
    const int RB = HS_RED_BLOCKS, RT = HS_RED_THREADS;
    HS_CALL(hs_gpu_spmv_apply(c->spmv, c->cp, c->cq, c->s));
    k_dot<<<RB, RT, 0, c->s>>>(c->nn, c->cp, c->cq, c->partA, c->d_sc);
    k_cg_alpha<<<1, RT, 0, c->s>>>(RB, c->partA, c->d_sc);
    k_cg_update<<<RB, RT, 0, c->s>>>(c->nn, c->d_sc, c->du, c->cr, c->cz, c->cp, c->cq, c->dinv, c->partA, c->partB);
    k_cg_beta<<<1, RT, 0, c->s>>>(RB, c->partA, c->partB, c->d_sc);
    k_cg_p<<<RB, RT, 0, c->s>>>(c->nn, c->d_sc, c->cz, c->cp);
    HS_CUDA_LAUNCH_CHECK("CG iteration kernels");
    return HS_OK;
}

/*
 * Phase medians from CUDA events after a warm-up, each phase alone on the current state:
 * element kernel, assembly (K, R, diagonal, norm), one SpMV, one CG iteration (timed over 10
 * iterations with the convergence test disabled), and the device-to-device copy bandwidth
 * (cudaMemcpy of a 256 MiB buffer, read + write counted).
 */
static hs_status cu_bench(hs_backend *b, int reps, hs_phase_bench *out)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    const hs_problem *p = b->prob;
    const int CGI = 10;
    double *te = NULL, *ta = NULL, *ts = NULL, *tc = NULL, *tb = NULL;
    HS_CALL(HS_ALLOC(te, reps, "bench timings"));
    HS_CALL(HS_ALLOC(ta, reps, "bench timings"));
    HS_CALL(HS_ALLOC(ts, reps, "bench timings"));
    HS_CALL(HS_ALLOC(tc, reps, "bench timings"));
    HS_CALL(HS_ALLOC(tb, reps, "bench timings"));
    cudaEvent_t e0, e1;
    HS_CUDA_CALL(cudaEventCreate(&e0));
    HS_CUDA_CALL(cudaEventCreate(&e1));
    hs_phase_times save = c->t;
    double res;
    int32_t node;
    for (int w = 0; w < 3; ++w) HS_CALL(cu_assemble(b, &res, &node)); /* warm-up */
    for (int r = 0; r < reps; ++r) {
        hs_phase_times t0 = c->t;
        HS_CALL(cu_assemble(b, &res, &node));
        te[r] = c->t.element - t0.element;
        ta[r] = c->t.assembly - t0.assembly;
    }
    /* SpMV on the CG direction */
    for (int w = 0; w < 3; ++w) HS_CALL(hs_gpu_spmv_apply(c->spmv, c->rhs, c->cq, c->s));
    for (int r = 0; r < reps; ++r) {
        HS_CUDA_CALL(cudaEventRecord(e0, c->s));
        HS_CALL(hs_gpu_spmv_apply(c->spmv, c->rhs, c->cq, c->s));
        HS_CUDA_CALL(cudaEventRecord(e1, c->s));
        HS_CUDA_CALL(cudaEventSynchronize(e1));
        ts[r] = 1e-3 * elapsed_ms(e0, e1);
    }
    /* CG iterations: start a solve, keep it running (tolerance 0, no iteration limit in reach) */
    const int RB = HS_RED_BLOCKS, RT = HS_RED_THREADS;
    k_cg_init<<<RB, RT, 0, c->s>>>(c->nn, c->rhs, c->dinv, c->du, c->cr, c->cz, c->cp, c->partA, c->partB);
    k_cg_init_final<<<1, RT, 0, c->s>>>(RB, c->partA, c->partB, c->d_sc, 0.0, INT_MAX);
    HS_CUDA_LAUNCH_CHECK("k_cg_init");
    for (int w = 0; w < CGI; ++w) HS_CALL(cg_iteration(c));
    for (int r = 0; r < reps; ++r) {
        HS_CUDA_CALL(cudaEventRecord(e0, c->s));
        for (int q = 0; q < CGI; ++q) HS_CALL(cg_iteration(c));
        HS_CUDA_CALL(cudaEventRecord(e1, c->s));
        HS_CUDA_CALL(cudaEventSynchronize(e1));
        tc[r] = 1e-3 * elapsed_ms(e0, e1) / CGI;
    }
    HS_CUDA_CALL(cudaMemcpy(c->h_sc, c->d_sc, sizeof(dev_scalars), cudaMemcpyDeviceToHost));
    int still_running = c->h_sc->status == CG_RUNNING;
    /* the naive baseline on the same matrix (CSR order), preconditioner and right-hand side */
    {
        int32_t *d_rp = NULL, *d_col = NULL;
        double *d_v = NULL, *h_v = NULL;
        HS_CALL(upload(&d_rp, p->pattern->row_ptr, (size_t)c->nn + 1, "naive CG row pointers"));
        HS_CALL(upload(&d_col, p->pattern->col, (size_t)c->nnz, "naive CG columns"));
        HS_CALL(HS_ALLOC(h_v, c->nnz, "naive CG values"));
        HS_CALL(cu_get_system(b, h_v, NULL));
        HS_CALL(upload(&d_v, h_v, (size_t)c->nnz, "naive CG values"));
        free(h_v);
        hs_status st = hs_naive_cg_bench(c->nn, c->nnz, d_rp, d_col, d_v, c->dinv, c->rhs, CGI, reps, &out->naive_cg_iter);
        cudaFree(d_rp);
        cudaFree(d_col);
        cudaFree(d_v);
        HS_CALL(st);
    }
    /* copy bandwidth */
    size_t bytes = 256u << 20;
    char *src = NULL, *dst = NULL;
    HS_CALL(hs_cuda_alloc_((void **)&src, bytes, "bandwidth probe", __FILE__, __LINE__));
    hs_status st = hs_cuda_alloc_((void **)&dst, bytes, "bandwidth probe", __FILE__, __LINE__);
    if (st != HS_OK) { cudaFree(src); return st; }
    for (int w = 0; w < 3; ++w) cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, c->s);
    for (int r = 0; r < reps; ++r) {
        cudaEventRecord(e0, c->s);
        cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, c->s);
        cudaEventRecord(e1, c->s);
        cudaEventSynchronize(e1);
        tb[r] = 1e-3 * elapsed_ms(e0, e1);
    }
    cudaFree(src);
    cudaFree(dst);
    HS_CUDA_CALL(cudaGetLastError());
    c->t = save;
    out->element = hs_median(te, reps);
    out->assembly = hs_median(ta, reps);
    out->spmv = hs_median(ts, reps);
    out->cg_iter = hs_median(tc, reps);
    out->copy_bw = 2.0 * bytes / hs_median(tb, reps);
    out->reps = reps;
    hs_phase_bytes(p, c->lay->n_slots, out);
    free(te); free(ta); free(ts); free(tc); free(tb);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    HS_CHECK(still_running, HS_ERR_INTERNAL, "CG benchmark stopped early (status %d): timings invalid", c->h_sc->status);
    /* the bench ran extra assemblies; leave the state as the last assembly left it */
    return HS_OK;
}

/* SpMV time inside CG is not timed per call on the GPU (events around every SpMV would cost more
 * than they measure): reported as -1, "not measured"; `heartsim bench step` times it alone. */
static void cu_get_times(const hs_backend *b, hs_phase_times *t)
{
    *t = ((const cuda_impl *)b->impl)->t;
    t->spmv = -1.0;
}

static void cu_destroy(hs_backend *b)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    if (!c) return;
    if (c->s) cudaStreamSynchronize(c->s);
    hs_gpu_spmv_destroy(&c->spmv);
    hs_spmv_layout_destroy(&c->lay);
    void *dev[] = {c->tets, c->vol, c->kd, c->inv_mass, c->kptr, c->ksrc, c->rptr, c->rsrc, c->diag, c->slot,
                   c->stim_elem, c->phi, c->phin, c->r, c->rn, c->act, c->ke, c->re, c->kval, c->rhs, c->du,
                   c->dinv, c->stim_e, c->cr, c->cz, c->cp, c->cq, c->partA, c->partB, c->parti, c->d_sc};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; ++i) cudaFree(dev[i]);
    cudaFreeHost(c->h_sc);
    cudaFreeHost(c->h_phi);
    cudaFreeHost(c->h_r);
    cudaFreeHost(c->h_act);
    cudaEvent_t evs[] = {c->ev_e0, c->ev_e1, c->ev_a1, c->ev_s0, c->ev_s1, c->ev_state};
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; ++i)
        if (evs[i]) cudaEventDestroy(evs[i]);
    if (c->s) cudaStreamDestroy(c->s);
    if (c->s_copy) cudaStreamDestroy(c->s_copy);
    free(c);
    b->impl = NULL;
}

static const hs_backend_ops cuda_ops = {
    "cuda", cu_begin_step, cu_assemble, cu_solve, cu_end_step, cu_restore_step,
    cu_get_state, cu_set_state, cu_get_times, cu_get_system, cu_bench, cu_destroy,
};


/* host [n][w] -> device [w][n] */
static hs_status upload_soa(double **d, const double *h, int32_t n, int w, const char *what)
{
    double *t = NULL;
    HS_CALL(HS_ALLOC(t, (size_t)n * w, what));
    for (int32_t e = 0; e < n; ++e)
        for (int q = 0; q < w; ++q) t[(size_t)q * n + e] = h[(size_t)e * w + q];
    hs_status st = upload(d, t, (size_t)n * w, what);
    free(t);
    return st;
}

/* The host maps index Ke as [ne][16] (16e + 4a + b) and Re as [ne][4] (4e + a); the device arrays
 * are [10][ne] (symmetric entries) and [4][ne]. The contributions keep their order. */
static hs_status remap_gather_maps(cuda_impl *c, const hs_assembly_map *map)
{
    int32_t *t = NULL;
    int64_t nk = (int64_t)c->ne * 16, nr = (int64_t)c->ne * 4;
    HS_CALL(HS_ALLOC(t, nk, "K gather map"));
    for (int64_t j = 0; j < nk; ++j) {
        int32_t src = map->k_src[j], e = src / 16, a = (src % 16) / 4, b = src % 4;
        t[j] = (int32_t)((int64_t)hs_sym4_index(a, b) * c->ne + e);
    }
    hs_status st = upload(&c->ksrc, t, nk, "K gather map");
    for (int64_t j = 0; st == HS_OK && j < nr; ++j) {
        int32_t src = map->r_src[j];
        t[j] = (int32_t)((int64_t)(src % 4) * c->ne + src / 4);
    }
    if (st == HS_OK) st = upload(&c->rsrc, t, nr, "R gather map");
    free(t);
    return st;
}

static hs_status cuda_setup(hs_backend *b)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    const hs_problem *p = b->prob;
    const hs_mesh *m = p->mesh;
    c->nn = m->n_nodes;
    c->ne = m->n_elems;
    c->nnz = p->pattern->nnz;
    const hs_gpu_spmv_ops *gops = hs_gpu_spmv_find(p->opt.spmv->name);
    HS_CHECK(gops != NULL, HS_ERR_CONFIG, "solver.spmv: kernel \"%s\" has no GPU implementation", p->opt.spmv->name);
    HS_CUDA_CALL(cudaSetDevice(0));
    HS_CUDA_CALL(cudaStreamCreateWithFlags(&c->s, cudaStreamNonBlocking));
    HS_CUDA_CALL(cudaStreamCreateWithFlags(&c->s_copy, cudaStreamNonBlocking));
    cudaEvent_t *evs[] = {&c->ev_e0, &c->ev_e1, &c->ev_a1, &c->ev_s0, &c->ev_s1, &c->ev_state};
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; ++i) HS_CUDA_CALL(cudaEventCreate(evs[i]));

    HS_CALL(upload(&c->tets, m->tets, (size_t)c->ne * 4, "element connectivity"));
    HS_CALL(upload(&c->vol, p->geom->vol, c->ne, "element volumes"));
    HS_CALL(upload_soa(&c->kd, p->geom->kd, c->ne, 10, "element diffusion matrices"));
    {
        double *im = NULL;
        HS_CALL(HS_ALLOC(im, c->nn, "inverse lumped mass"));
        for (int32_t i = 0; i < c->nn; ++i) im[i] = 1.0 / p->geom->lumped_mass[i];
        hs_status st = upload(&c->inv_mass, im, c->nn, "inverse lumped mass");
        free(im);
        HS_CALL(st);
    }
    HS_CALL(upload(&c->kptr, p->map->k_ptr, (size_t)c->nnz + 1, "K gather map pointers"));
    HS_CALL(upload(&c->rptr, p->map->r_ptr, (size_t)c->nn + 1, "R gather map pointers"));
    HS_CALL(remap_gather_maps(c, p->map));
    HS_CALL(upload(&c->diag, p->map->diag, c->nn, "diagonal positions"));
    const hs_stim_set *st = p->stim;
    int32_t nstim = st ? st->elem_ptr[st->n_sites] : 0;
    HS_CALL(upload(&c->stim_elem, st ? st->elem : (const int32_t *)NULL, nstim, "stimulus element lists"));

    HS_CALL(hs_spmv_layout_create(p->opt.spmv, p->pattern, &p->opt.spmv_params, &c->lay));
    HS_CALL(upload(&c->slot, c->lay->slot_of_nnz, c->nnz, "SpMV slot map"));
    HS_CALL(HS_CUDA_ALLOC(c->kval, c->lay->n_slots, "tangent matrix values"));
    /* padding slots must read as zero: clear once, assembly only writes real slots */
    HS_CUDA_CALL(cudaMemset(c->kval, 0, sizeof(double) * c->lay->n_slots));
    HS_CALL(hs_gpu_spmv_create(c->lay, p->pattern, c->kval, &c->spmv));

    struct { double **p; size_t n; const char *what; } arrs[] = {
        {&c->phi, (size_t)c->nn, "phi"}, {&c->phin, (size_t)c->nn, "phi_n"}, {&c->r, (size_t)c->ne, "r"},
        {&c->rn, (size_t)c->ne, "r_n"}, {&c->act, (size_t)c->nn, "activation times"},
        {&c->ke, (size_t)c->ne * 10, "element matrices"}, {&c->re, (size_t)c->ne * 4, "element residuals"},
        {&c->rhs, (size_t)c->nn, "residual"}, {&c->du, (size_t)c->nn, "Newton update"},
        {&c->dinv, (size_t)c->nn, "Jacobi preconditioner"}, {&c->stim_e, (size_t)c->ne, "element stimulus"},
        {&c->cr, (size_t)c->nn, "CG residual"}, {&c->cz, (size_t)c->nn, "CG preconditioned residual"},
        {&c->cp, (size_t)c->nn, "CG direction"}, {&c->cq, (size_t)c->nn, "CG product"},
        {&c->partA, (size_t)HS_RED_BLOCKS, "reduction partials"}, {&c->partB, (size_t)HS_RED_BLOCKS, "reduction partials"},
    };
    for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; ++i) {
        HS_CALL(hs_cuda_alloc_((void **)arrs[i].p, sizeof(double) * arrs[i].n, arrs[i].what, __FILE__, __LINE__));
        HS_CUDA_CALL(cudaMemset(*arrs[i].p, 0, sizeof(double) * arrs[i].n));
    }
    HS_CALL(HS_CUDA_ALLOC(c->parti, HS_RED_BLOCKS, "reduction partials"));
    HS_CALL(HS_CUDA_ALLOC(c->d_sc, 1, "solver scalars"));
    HS_CUDA_CALL(cudaMemset(c->d_sc, 0, sizeof(dev_scalars)));
    k_fill<<<nblocks(c->nn, 256), 256>>>(c->nn, -1.0, c->act);
    HS_CUDA_LAUNCH_CHECK("k_fill");
    HS_CUDA_CALL(cudaMallocHost((void **)&c->h_sc, sizeof(dev_scalars)));
    HS_CUDA_CALL(cudaMallocHost((void **)&c->h_phi, sizeof(double) * c->nn));
    HS_CUDA_CALL(cudaMallocHost((void **)&c->h_r, sizeof(double) * c->ne));
    HS_CUDA_CALL(cudaMallocHost((void **)&c->h_act, sizeof(double) * c->nn));
    HS_CUDA_CALL(cudaDeviceSynchronize());
    cudaDeviceProp prop;
    HS_CUDA_CALL(cudaGetDeviceProperties(&prop, 0));
    snprintf(b->description, sizeof b->description, "cuda (%.160s, sm_%d%d, spmv %.60s)", prop.name, prop.major,
             prop.minor, p->opt.spmv->name);
    return HS_OK;
}

extern "C" hs_status hs_backend_cuda_create(const hs_problem *prob, hs_backend **out)
{
    *out = NULL;
    hs_backend *b = NULL;
    HS_CALL(HS_ALLOC(b, 1, "backend"));
    b->ops = &cuda_ops;
    b->prob = prob;
    cuda_impl *c = NULL;
    hs_status st = HS_ALLOC(c, 1, "cuda backend");
    if (st == HS_OK) {
        b->impl = c;
        st = cuda_setup(b);
    }
    if (st != HS_OK) {
        hs_backend_destroy(&b);
        return st;
    }
    *out = b;
    return HS_OK;
}
