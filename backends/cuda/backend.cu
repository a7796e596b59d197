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
 *   Jacobi-PCG       backends/cuda/cg.cu (solver.cg: classic or Chronopoulos-Gear) with the SpMV kernel chosen
 *                    by solver.spmv; every scalar stays on the device.
 * Two ways to run a Newton iteration (solver.graph):
 *   graph            solve + phi update + element + assembly captured once as a CUDA graph, the CG
 *                    loop a WHILE conditional node stopped by the device's own convergence test: one
 *                    graph launch and one host synchronisation per Newton iteration, no extra CG
 *                    iterations. Re-captured when dt changes (dt is a kernel argument).
 *   stream           the same kernels launched one by one; the host reads the CG status every
 *                    HS_CG_POLL iterations (up to HS_CG_POLL-1 SpMVs run after convergence).
 * Only a handful of scalars cross to the host per Newton iteration.
 * The first Newton iterate is extrapolated from the last steps (fem/hs_extrapolate.h).
 */
#include <climits>
#include <cstdlib>
#include <cstdio>
#include <cstring>

#include "hs_cuda_check.cuh"
#include "hs_element.h"
#include "hs_extrapolate.h"
#include "hs_gpu_cg.cuh"
#include "hs_cuda.h"
#include "hs_gpu_reduce.cuh"
#include "hs_gpu_spmv.cuh"
#include "hs_naive_cg.cuh"
#include "hs_util.h"

#define HS_CG_POLL 4 /* CG iterations launched between two reads of the device status word */

/* Newton scalars that live on the device; copied to pinned host memory as one block when needed
 * (the CG's own scalars are in hs_gpu_cg_scalars). */
struct dev_scalars {
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
    double *ph1, *ph2;      /* phi_{n-1}, phi_{n-2}: extrapolation history (NULL when off) */
    int32_t *csr_rp, *csr_col; /* CSR pattern, only for the persistent CG */
    double *partA;
    int *parti;
    dev_scalars *d_sc, *h_sc; /* h_sc pinned */
    hs_gpu_cg *cg;
    hs_gpu_cg_scalars *h_cg;  /* pinned */
    double *h_phi, *h_r, *h_act; /* pinned frame buffers */
    double dt;
    int stim_was_on;
    hs_extrap ex;
    /* frames: device snapshots [2][2 nn + ne] and their copies to the host on s_copy */
    double *snap[2];
    cudaEvent_t ev_snap[2], ev_done[2];
    /* graph mode: one Newton iteration (solve, update, element, assembly) as a graph */
    cudaGraphExec_t gexec;
    double graph_dt;
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

/* phi -= du when the CG converged (read on the device), block maxima of |du| */
__global__ void k_update_phi(int32_t n, const hs_gpu_cg_scalars *cg, double *__restrict__ phi,
                             const double *__restrict__ du, double *partv, int *parti)
{
    __shared__ double shv[HS_RED_THREADS];
    __shared__ int shi[HS_RED_THREADS];
    const int apply = cg->status == HS_GPU_CG_CONV;
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

/* phi = w0 phi_n + w1 phi_{n-1} + w2 phi_{n-2} (hs_extrap_weights) */
__global__ void k_extrapolate(int32_t n, double w0, double w1, double w2, const double *__restrict__ phin,
                              const double *__restrict__ h1, const double *__restrict__ h2, double *__restrict__ phi)
{
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        phi[i] = w0 * phin[i] + w1 * h1[i] + (w2 != 0.0 ? w2 * h2[i] : 0.0);
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
    double w[3];
    int used = c->ph1 ? hs_extrap_weights(&c->ex, dt, w) : 0;
    if (used > 0) {
        k_extrapolate<<<nblocks(c->nn, 256), 256, 0, c->s>>>(c->nn, w[0], w[1], used > 1 ? w[2] : 0.0, c->phin,
                                                             c->ph1, c->ph2, c->phi);
        HS_CUDA_LAUNCH_CHECK("k_extrapolate");
    }
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

/* Events inside a captured graph must be external event-record nodes. */
static hs_status rec(cudaEvent_t ev, cudaStream_t s, int in_graph)
{
    HS_CUDA_CALL(in_graph ? cudaEventRecordWithFlags(ev, s, cudaEventRecordExternal) : cudaEventRecord(ev, s));
    return HS_OK;
}

/* Element pass, assembly, residual norm; ends with the scalars copied to pinned memory. */
static hs_status enqueue_assemble(hs_backend *b, int in_graph)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    const hs_problem *p = b->prob;
    HS_CUDA_CALL(cudaMemsetAsync(&c->d_sc->bad_elem, 0x7f, sizeof(int), c->s));
    HS_CALL(rec(c->ev_e0, c->s, in_graph));
    k_element<<<nblocks(c->ne, 128), 128, 0, c->s>>>(c->ne, p->opt.ap, c->dt, c->tets, c->vol, c->kd, c->phi,
                                                    c->phin, c->stim_e, c->rn, c->r, c->ke, c->re, c->d_sc);
    HS_CUDA_LAUNCH_CHECK("k_element");
    HS_CALL(rec(c->ev_e1, c->s, in_graph));
    k_assemble_k<<<nblocks(c->nnz, 256), 256, 0, c->s>>>(c->nnz, c->kptr, c->ksrc, c->slot, c->ke, c->kval);
    HS_CUDA_LAUNCH_CHECK("k_assemble_k");
    k_assemble_r<<<HS_RED_BLOCKS, HS_RED_THREADS, 0, c->s>>>(c->nn, c->rptr, c->rsrc, c->re, c->diag, c->slot,
                                                              c->kval, c->inv_mass, c->dt, c->rhs, c->dinv,
                                                              c->partA, c->parti);
    HS_CUDA_LAUNCH_CHECK("k_assemble_r");
    k_final_maxloc<<<1, HS_RED_THREADS, 0, c->s>>>(HS_RED_BLOCKS, c->partA, c->parti, &c->d_sc->res, &c->d_sc->res_node);
    HS_CUDA_LAUNCH_CHECK("k_final_maxloc");
    HS_CALL(rec(c->ev_a1, c->s, in_graph));
    HS_CUDA_CALL(cudaMemcpyAsync(c->h_sc, c->d_sc, sizeof(dev_scalars), cudaMemcpyDeviceToHost, c->s));
    return HS_OK;
}

/* After the stream synchronised: element failures, residual, phase times. */
static hs_status finish_assemble(cuda_impl *c, double *res_norm, int32_t *res_node)
{
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

static hs_status cu_assemble(hs_backend *b, double *res_norm, int32_t *res_node)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    HS_CALL(enqueue_assemble(b, 0));
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    return finish_assemble(c, res_norm, res_node);
}

static hs_gpu_cg_tol solve_tol(const hs_backend *b)
{
    const cuda_impl *c = (const cuda_impl *)b->impl;
    const hs_problem_opts *o = &b->prob->opt;
    hs_gpu_cg_tol t = {o->cg.tol, o->cg_forcing, o->newton_tol_residual, &c->d_sc->res, o->cg.max_iter};
    return t;
}

/* phi -= du (if CG converged) and max |du| into d_sc->upd. */
static hs_status enqueue_update(cuda_impl *c)
{
    const int RB = HS_RED_BLOCKS, RT = HS_RED_THREADS;
    k_update_phi<<<RB, RT, 0, c->s>>>(c->nn, c->cg->d_sc, c->phi, c->du, c->partA, c->parti);
    HS_CUDA_LAUNCH_CHECK("k_update_phi");
    k_final_maxloc<<<1, RT, 0, c->s>>>(RB, c->partA, c->parti, &c->d_sc->upd, &c->d_sc->upd_node);
    HS_CUDA_LAUNCH_CHECK("k_final_maxloc");
    return HS_OK;
}

/* Stream mode: kernels launched one by one, CG status polled every HS_CG_POLL iterations. */
static hs_status cu_solve(hs_backend *b, hs_cg_result *cg, double *upd_norm)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    HS_CUDA_CALL(cudaEventRecord(c->ev_s0, c->s));
    hs_gpu_cg_tol t = solve_tol(b);
    HS_CALL(hs_gpu_cg_solve_stream(c->cg, c->rhs, c->du, &t, HS_CG_POLL, c->s, c->h_cg));
    HS_CALL(enqueue_update(c));
    HS_CUDA_CALL(cudaEventRecord(c->ev_s1, c->s));
    HS_CUDA_CALL(cudaMemcpyAsync(&c->h_sc->upd, &c->d_sc->upd, sizeof(double), cudaMemcpyDeviceToHost, c->s));
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    c->t.solve += 1e-3 * elapsed_ms(c->ev_s0, c->ev_s1);
    hs_gpu_cg_result_of(c->h_cg, cg);
    *upd_norm = c->h_sc->upd;
    return HS_OK;
}

/* Capture one Newton iteration after the first assembly: solve (init + WHILE loop), update,
 * element, assembly, scalars to the host. */
static hs_status capture_iteration(hs_backend *b)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    if (c->gexec) {
        cudaGraphExecDestroy(c->gexec);
        c->gexec = NULL;
    }
    HS_CUDA_CALL(cudaStreamBeginCapture(c->s, cudaStreamCaptureModeThreadLocal));
    hs_gpu_cg_tol t = solve_tol(b);
    hs_status st = rec(c->ev_s0, c->s, 1);
    if (st == HS_OK) st = hs_gpu_cg_capture_solve(c->cg, c->rhs, c->du, &t, c->s);
    if (st == HS_OK) st = enqueue_update(c);
    if (st == HS_OK) st = rec(c->ev_s1, c->s, 1);
    if (st == HS_OK) st = enqueue_assemble(b, 1);
    if (st == HS_OK && cudaMemcpyAsync(c->h_cg, c->cg->d_sc, sizeof(hs_gpu_cg_scalars), cudaMemcpyDeviceToHost,
                                       c->s) != cudaSuccess)
        st = HS_FAIL(HS_ERR_DEVICE, "capturing the CG scalars copy failed");
    cudaGraph_t g = NULL;
    cudaError_t e = cudaStreamEndCapture(c->s, &g);
    if (st == HS_OK && e != cudaSuccess)
        st = HS_FAIL(HS_ERR_DEVICE, "CUDA graph capture of the Newton iteration failed: %s", cudaGetErrorString(e));
    if (st == HS_OK) {
        e = cudaGraphInstantiate(&c->gexec, g, 0);
        if (e != cudaSuccess) {
            c->gexec = NULL;
            st = HS_FAIL(HS_ERR_DEVICE, "CUDA graph instantiation failed: %s", cudaGetErrorString(e));
        }
    }
    if (g) cudaGraphDestroy(g);
    c->graph_dt = c->dt;
    return st;
}

/* One Newton iteration: solve, phi update, assembly at the new phi; one host synchronisation. */
static hs_status cu_iterate(hs_backend *b, hs_cg_result *cg, double *upd_norm, double *res_norm,
                            int32_t *res_node)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    if (!b->prob->opt.graph) { /* stream mode */
        HS_CALL(cu_solve(b, cg, upd_norm));
        if (cg->outcome != HS_CG_CONVERGED) return HS_OK;
        return cu_assemble(b, res_norm, res_node);
    }
    if (!c->gexec || c->graph_dt != c->dt) HS_CALL(capture_iteration(b));
    HS_CUDA_CALL(cudaGraphLaunch(c->gexec, c->s));
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    c->t.solve += 1e-3 * elapsed_ms(c->ev_s0, c->ev_s1);
    hs_gpu_cg_result_of(c->h_cg, cg);
    *upd_norm = c->h_sc->upd;
    if (cg->outcome != HS_CG_CONVERGED) return HS_OK;
    return finish_assemble(c, res_norm, res_node);
}

static hs_status cu_end_step(hs_backend *b, double t_prev, double dt_ms)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    k_activation<<<nblocks(c->nn, 256), 256, 0, c->s>>>(c->nn, c->phin, c->phi, c->act, b->prob->opt.activation_phi,
                                                        t_prev, dt_ms);
    HS_CUDA_LAUNCH_CHECK("k_activation");
    if (c->ph1) { /* history for the next first iterate: phi_{n-1} becomes phi_{n-2} by a pointer swap
                   * (only k_extrapolate, launched outside the graphs, reads ph1 and ph2), phi_n is
                   * copied (phin's address is in the captured graph) */
        double *t = c->ph2;
        c->ph2 = c->ph1;
        c->ph1 = t;
        HS_CUDA_CALL(cudaMemcpyAsync(c->ph1, c->phin, sizeof(double) * c->nn, cudaMemcpyDeviceToDevice, c->s));
        hs_extrap_accept(&c->ex, c->dt);
    }
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

static hs_status cu_get_history(hs_backend *b, hs_extrap *ex, double *phi1, double *phi2)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    *ex = c->ex;
    if (!c->ph1) ex->n_valid = 0;
    if (phi1 && ex->n_valid > 0) HS_CUDA_CALL(cudaMemcpy(phi1, c->ph1, sizeof(double) * c->nn, cudaMemcpyDeviceToHost));
    if (phi2 && ex->n_valid > 1) HS_CUDA_CALL(cudaMemcpy(phi2, c->ph2, sizeof(double) * c->nn, cudaMemcpyDeviceToHost));
    return HS_OK;
}

static hs_status cu_set_history(hs_backend *b, const hs_extrap *ex, const double *phi1, const double *phi2)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    hs_extrap_reset(&c->ex);
    if (!c->ph1) return HS_OK; /* extrapolation off in this run */
    int n = ex->n_valid < 0 ? 0 : ex->n_valid > 2 ? 2 : ex->n_valid;
    if ((n > 0 && !phi1) || (n > 1 && !phi2)) return HS_OK;
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    if (n > 0) HS_CUDA_CALL(cudaMemcpy(c->ph1, phi1, sizeof(double) * c->nn, cudaMemcpyHostToDevice));
    if (n > 1) HS_CUDA_CALL(cudaMemcpy(c->ph2, phi2, sizeof(double) * c->nn, cudaMemcpyHostToDevice));
    c->ex.n_valid = n;
    c->ex.h[0] = ex->h[0];
    c->ex.h[1] = ex->h[1];
    return HS_OK;
}

/* Frames without stalling the device: a device-to-device snapshot on the compute stream (tens of
 * microseconds), then the device-to-host copy of the snapshot on the copy stream, overlapping the
 * next steps. The caller's buffers are pinned (cu_host_alloc), so the copy runs at full PCIe speed
 * and the frame writer thread reads them directly once state_copy_wait says so. */
static hs_status cu_state_copy_start(hs_backend *b, int slot, double *phi, double *r, double *act)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    HS_CHECK(slot == 0 || slot == 1, HS_ERR_INTERNAL, "state copy slot %d", slot);
    if (!c->snap[slot]) {
        HS_CALL(HS_CUDA_ALLOC(c->snap[slot], 2 * (size_t)c->nn + c->ne, "frame snapshot"));
        HS_CUDA_CALL(cudaEventCreateWithFlags(&c->ev_snap[slot], cudaEventDisableTiming));
        HS_CUDA_CALL(cudaEventCreateWithFlags(&c->ev_done[slot], cudaEventDisableTiming));
        HS_CUDA_CALL(cudaEventRecord(c->ev_done[slot], c->s_copy));
    }
    double *sp = c->snap[slot], *sr = sp + c->nn, *sa = sr + c->ne;
    HS_CUDA_CALL(cudaStreamWaitEvent(c->s, c->ev_done[slot], 0)); /* the slot's last copy has left */
    if (phi) HS_CUDA_CALL(cudaMemcpyAsync(sp, c->phi, sizeof(double) * c->nn, cudaMemcpyDeviceToDevice, c->s));
    if (r) HS_CUDA_CALL(cudaMemcpyAsync(sr, c->r, sizeof(double) * c->ne, cudaMemcpyDeviceToDevice, c->s));
    if (act) HS_CUDA_CALL(cudaMemcpyAsync(sa, c->act, sizeof(double) * c->nn, cudaMemcpyDeviceToDevice, c->s));
    HS_CUDA_CALL(cudaEventRecord(c->ev_snap[slot], c->s));
    HS_CUDA_CALL(cudaStreamWaitEvent(c->s_copy, c->ev_snap[slot], 0));
    if (phi) HS_CUDA_CALL(cudaMemcpyAsync(phi, sp, sizeof(double) * c->nn, cudaMemcpyDeviceToHost, c->s_copy));
    if (r) HS_CUDA_CALL(cudaMemcpyAsync(r, sr, sizeof(double) * c->ne, cudaMemcpyDeviceToHost, c->s_copy));
    if (act) HS_CUDA_CALL(cudaMemcpyAsync(act, sa, sizeof(double) * c->nn, cudaMemcpyDeviceToHost, c->s_copy));
    HS_CUDA_CALL(cudaEventRecord(c->ev_done[slot], c->s_copy));
    return HS_OK;
}

static hs_status cu_state_copy_wait(hs_backend *b, int slot)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    if (slot < 0 || slot > 1 || !c->snap[slot]) return HS_OK;
    HS_CUDA_CALL(cudaEventSynchronize(c->ev_done[slot]));
    return HS_OK;
}

static void *cu_host_alloc(size_t bytes)
{
    void *p = NULL;
    return cudaMallocHost(&p, bytes) == cudaSuccess ? p : NULL;
}

static void cu_host_free(void *p)
{
    if (p) cudaFreeHost(p);
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

/* The naive cuSPARSE + cuBLAS Jacobi-PCG (backends/cuda/naive_cg.cu) on the backend's matrix in CSR order,
 * its preconditioner and right-hand side: seconds per iteration, median of reps. */
static hs_status bench_naive(hs_backend *b, int iters, int reps, double *sec_per_iter)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    const hs_problem *p = b->prob;
    int32_t *d_rp = NULL, *d_col = NULL;
    double *d_v = NULL, *h_v = NULL;
    hs_status st = upload(&d_rp, p->pattern->row_ptr, (size_t)c->nn + 1, "naive CG row pointers");
    if (st == HS_OK) st = upload(&d_col, p->pattern->col, (size_t)c->nnz, "naive CG columns");
    if (st == HS_OK) st = HS_ALLOC(h_v, c->nnz, "naive CG values");
    if (st == HS_OK) st = cu_get_system(b, h_v, NULL);
    if (st == HS_OK) st = upload(&d_v, h_v, (size_t)c->nnz, "naive CG values");
    if (st == HS_OK)
        st = hs_naive_cg_bench(c->nn, c->nnz, d_rp, d_col, d_v, c->dinv, c->rhs, iters, reps, sec_per_iter);
    free(h_v);
    cudaFree(d_rp);
    cudaFree(d_col);
    cudaFree(d_v);
    return st;
}

/* Device-to-device copy bandwidth: cudaMemcpy of 256 MiB, read + write counted, median of reps
 * after 3 warm-up copies (bytes/s). */
static hs_status copy_bandwidth(cuda_impl *c, int reps, double *bw)
{
    const size_t bytes = 256u << 20;
    char *src = NULL, *dst = NULL;
    double *t = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    hs_status st = hs_cuda_alloc_((void **)&src, bytes, "bandwidth probe", __FILE__, __LINE__);
    if (st == HS_OK) st = hs_cuda_alloc_((void **)&dst, bytes, "bandwidth probe", __FILE__, __LINE__);
    if (st == HS_OK) st = HS_ALLOC(t, reps, "bench timings");
    if (st == HS_OK && (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess))
        st = HS_FAIL(HS_ERR_DEVICE, "cannot create CUDA events");
    for (int w = 0; st == HS_OK && w < 3; ++w) cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, c->s);
    for (int r = 0; st == HS_OK && r < reps; ++r) {
        cudaEventRecord(e0, c->s);
        cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, c->s);
        cudaEventRecord(e1, c->s);
        cudaEventSynchronize(e1);
        t[r] = 1e-3 * elapsed_ms(e0, e1);
    }
    if (st == HS_OK) *bw = 2.0 * bytes / hs_median(t, reps);
    free(t);
    cudaFree(src);
    cudaFree(dst);
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    if (st == HS_OK) HS_CUDA_CALL(cudaGetLastError());
    return st;
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
    double *te = NULL, *ta = NULL, *ts = NULL, *tc = NULL;
    HS_CALL(HS_ALLOC(te, reps, "bench timings"));
    HS_CALL(HS_ALLOC(ta, reps, "bench timings"));
    HS_CALL(HS_ALLOC(ts, reps, "bench timings"));
    HS_CALL(HS_ALLOC(tc, reps, "bench timings"));
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
    for (int w = 0; w < 3; ++w) HS_CALL(hs_gpu_spmv_apply(c->spmv, c->rhs, c->cg->w, c->s));
    for (int r = 0; r < reps; ++r) {
        HS_CUDA_CALL(cudaEventRecord(e0, c->s));
        HS_CALL(hs_gpu_spmv_apply(c->spmv, c->rhs, c->cg->w, c->s));
        HS_CUDA_CALL(cudaEventRecord(e1, c->s));
        HS_CUDA_CALL(cudaEventSynchronize(e1));
        ts[r] = 1e-3 * elapsed_ms(e0, e1);
    }
    /* CG iterations of the configured variant: start a solve and keep it running (tolerance 0, no
     * iteration limit in reach), launched on the stream */
    hs_gpu_cg_tol tol0 = {0.0, 0.0, 0.0, NULL, INT_MAX};
    HS_CALL(hs_gpu_cg_enqueue_fixed(c->cg, c->rhs, c->du, &tol0, CGI, 1, c->s));
    for (int r = 0; r < reps; ++r) {
        HS_CUDA_CALL(cudaEventRecord(e0, c->s));
        HS_CALL(hs_gpu_cg_enqueue_fixed(c->cg, c->rhs, c->du, &tol0, CGI, 0, c->s));
        HS_CUDA_CALL(cudaEventRecord(e1, c->s));
        HS_CUDA_CALL(cudaEventSynchronize(e1));
        tc[r] = 1e-3 * elapsed_ms(e0, e1) / CGI;
    }
    HS_CUDA_CALL(cudaMemcpy(c->h_cg, c->cg->d_sc, sizeof(hs_gpu_cg_scalars), cudaMemcpyDeviceToHost));
    int still_running = c->h_cg->status == HS_GPU_CG_RUNNING ||
                        (c->cg->persistent && c->h_cg->status == HS_GPU_CG_MAXIT && c->h_cg->iters == CGI);
    /* the naive baseline on the same matrix (CSR order), preconditioner and right-hand side */
    HS_CALL(bench_naive(b, CGI, reps, &out->naive_cg_iter));
    /* copy bandwidth */
    double bw = 0.0;
    HS_CALL(copy_bandwidth(c, reps, &bw));
    c->t = save;
    out->element = hs_median(te, reps);
    out->assembly = hs_median(ta, reps);
    out->spmv = hs_median(ts, reps);
    out->cg_iter = hs_median(tc, reps);
    out->copy_bw = bw;
    out->reps = reps;
    hs_phase_bytes(p, c->lay->n_slots, out);
    free(te); free(ta); free(ts); free(tc);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    HS_CHECK(still_running, HS_ERR_INTERNAL, "CG benchmark stopped early (status %d): timings invalid", c->h_cg->status);
    /* the bench ran extra assemblies; leave the state as the last assembly left it */
    return HS_OK;
}

/* Median seconds per iteration of `reps` solves of exactly `iters` iterations (tolerance 0). */
static hs_status time_solves(cuda_impl *c, hs_gpu_cg *cg, int graph, int iters, int reps, double *out)
{
    hs_gpu_cg_tol tk = {0.0, 0.0, 0.0, NULL, iters};
    cudaGraphExec_t ge = NULL;
    if (graph) {
        HS_CUDA_CALL(cudaStreamBeginCapture(c->s, cudaStreamCaptureModeThreadLocal));
        hs_status st = hs_gpu_cg_capture_solve(cg, c->rhs, c->du, &tk, c->s);
        cudaGraph_t g = NULL;
        cudaError_t e = cudaStreamEndCapture(c->s, &g);
        HS_CALL(st);
        HS_CUDA_CALL(e);
        e = cudaGraphInstantiate(&ge, g, 0);
        cudaGraphDestroy(g);
        HS_CUDA_CALL(e);
    }
    double *t = NULL;
    HS_CALL(HS_ALLOC(t, reps, "bench timings"));
    cudaEvent_t e0, e1;
    HS_CUDA_CALL(cudaEventCreate(&e0));
    HS_CUDA_CALL(cudaEventCreate(&e1));
    hs_status st = HS_OK;
    for (int r = -2; r < reps && st == HS_OK; ++r) { /* two warm-up solves */
        cudaEventRecord(e0, c->s);
        if (graph) st = cudaGraphLaunch(ge, c->s) == cudaSuccess ? HS_OK : HS_FAIL(HS_ERR_DEVICE, "graph launch failed");
        else st = hs_gpu_cg_solve_stream(cg, c->rhs, c->du, &tk, HS_CG_POLL, c->s, c->h_cg);
        cudaEventRecord(e1, c->s);
        if (cudaEventSynchronize(e1) != cudaSuccess && st == HS_OK) st = HS_FAIL(HS_ERR_DEVICE, "CG benchmark failed");
        if (r >= 0) t[r] = 1e-3 * elapsed_ms(e0, e1) / iters;
    }
    if (st == HS_OK) {
        HS_CUDA_CALL(cudaMemcpy(c->h_cg, cg->d_sc, sizeof(hs_gpu_cg_scalars), cudaMemcpyDeviceToHost));
        if (c->h_cg->iters != iters)
            st = HS_FAIL(HS_ERR_INTERNAL, "CG benchmark: %d iterations ran instead of %d (status %d)",
                         c->h_cg->iters, iters, c->h_cg->status);
    }
    *out = hs_median(t, reps);
    free(t);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    if (ge) cudaGraphExecDestroy(ge);
    return st;
}

/* Solve to tol with the graph path; iterations and the solution (du) left on the device. */
static hs_status solve_to(cuda_impl *c, hs_gpu_cg *cg, double tol, int *iters, double *x_host)
{
    hs_gpu_cg_tol t = {tol, 0.0, 0.0, NULL, 100000};
    HS_CALL(hs_gpu_cg_solve_stream(cg, c->rhs, c->du, &t, 1, c->s, c->h_cg));
    HS_CHECK(c->h_cg->status == HS_GPU_CG_CONV, HS_ERR_NUMERIC, "CG benchmark: the solve did not converge (status %d)",
             c->h_cg->status);
    *iters = c->h_cg->iters;
    HS_CUDA_CALL(cudaMemcpy(x_host, c->du, sizeof(double) * c->nn, cudaMemcpyDeviceToHost));
    return HS_OK;
}

extern "C" hs_status hs_backend_cuda_bench_cg(hs_backend *b, int iters, int reps, hs_cg_bench *out)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    const hs_problem *p = b->prob;
    memset(out, 0, sizeof *out);
    double res;
    int32_t node;
    HS_CALL(cu_assemble(b, &res, &node)); /* K, D^-1 and R at the current state */
    hs_phase_bench pb;
    memset(&pb, 0, sizeof pb);
    hs_phase_bytes(p, c->lay->n_slots, &pb);
    out->n = c->nn;
    out->nnz = c->nnz;
    out->bytes_spmv = pb.bytes_spmv;
    out->iters = iters;
    /* naive baseline: cuSPARSE CSR SpMV + cuBLAS, scalars through the host (NVIDIA's sample) */
    HS_CALL(bench_naive(b, iters, reps, &out->t_naive));
    double *xa = NULL, *xb = NULL;
    HS_CALL(HS_ALLOC(xa, c->nn, "bench solution"));
    HS_CALL(HS_ALLOC(xb, c->nn, "bench solution"));
    hs_status st = HS_OK;
    for (int v = 0; v < 2 && st == HS_OK; ++v) {
        hs_gpu_cg *cg = NULL;
        st = hs_gpu_cg_create(c->nn, v ? HS_CG_CHRONOPOULOS : HS_CG_CLASSIC, c->spmv, c->dinv, &cg);
        if (st != HS_OK) break;
        if (v) out->fused = cg->fused;
        if (st == HS_OK) st = time_solves(c, cg, 0, iters, reps, &out->t_iter[v][0]);
        if (st == HS_OK) st = time_solves(c, cg, 1, iters, reps, &out->t_iter[v][1]);
        if (st == HS_OK) st = solve_to(c, cg, 1e-8, &out->iters_to_tol[v], v ? xb : xa);
        hs_gpu_cg_destroy(&cg);
    }
    /* the persistent kernel (Chronopoulos, CSR through the slot map) */
    int32_t *d_rp = NULL, *d_col = NULL;
    out->t_persistent[0] = out->t_persistent[1] = -1.0;
    if (st == HS_OK) st = upload(&d_rp, p->pattern->row_ptr, (size_t)c->nn + 1, "CSR row pointers");
    if (st == HS_OK) st = upload(&d_col, p->pattern->col, (size_t)c->nnz, "CSR columns");
    if (st == HS_OK) {
        hs_gpu_cg *cg = NULL;
        st = hs_gpu_cg_create(c->nn, HS_CG_CHRONOPOULOS, c->spmv, c->dinv, &cg);
        if (st == HS_OK) st = hs_gpu_cg_set_persistent(cg, d_rp, d_col, c->slot, c->kval);
        if (st == HS_OK) st = time_solves(c, cg, 0, iters, reps, &out->t_persistent[0]);
        if (st == HS_OK) st = time_solves(c, cg, 1, iters, reps, &out->t_persistent[1]);
        if (st == HS_OK) st = solve_to(c, cg, 1e-8, &out->iters_persistent, xb);
        hs_gpu_cg_destroy(&cg);
    }
    cudaFree(d_rp);
    cudaFree(d_col);
    if (st == HS_OK) {
        double d = 0.0, nx = 0.0;
        for (int32_t i = 0; i < c->nn; ++i) {
            d += (xa[i] - xb[i]) * (xa[i] - xb[i]);
            nx += xa[i] * xa[i];
        }
        out->x_rel_diff = nx > 0 ? sqrt(d / nx) : 0.0;
    }
    free(xa);
    free(xb);
    HS_CALL(st);
    HS_CALL(copy_bandwidth(c, reps, &out->copy_bw));
    snprintf(out->device, sizeof out->device, "%s", b->description);
    return st;
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
    if (c->s_copy) cudaStreamSynchronize(c->s_copy);
    if (c->gexec) cudaGraphExecDestroy(c->gexec);
    for (int k = 0; k < 2; ++k) {
        cudaFree(c->snap[k]);
        if (c->ev_snap[k]) cudaEventDestroy(c->ev_snap[k]);
        if (c->ev_done[k]) cudaEventDestroy(c->ev_done[k]);
    }
    hs_gpu_cg_destroy(&c->cg);
    hs_gpu_spmv_destroy(&c->spmv);
    hs_spmv_layout_destroy(&c->lay);
    void *dev[] = {c->tets, c->vol, c->kd, c->inv_mass, c->kptr, c->ksrc, c->rptr, c->rsrc, c->diag, c->slot,
                   c->stim_elem, c->phi, c->phin, c->r, c->rn, c->act, c->ke, c->re, c->kval, c->rhs, c->du,
                   c->dinv, c->stim_e, c->ph1, c->ph2, c->csr_rp, c->csr_col, c->partA, c->parti, c->d_sc};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; ++i) cudaFree(dev[i]);
    cudaFreeHost(c->h_sc);
    cudaFreeHost(c->h_cg);
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
    "cuda", cu_begin_step, cu_assemble, cu_solve, cu_iterate, cu_end_step, cu_restore_step,
    cu_get_state, cu_set_state, cu_get_history, cu_set_history, cu_state_copy_start, cu_state_copy_wait, cu_host_alloc, cu_host_free,
    cu_get_times, cu_get_system, cu_bench, cu_destroy,
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
        {&c->partA, (size_t)HS_RED_BLOCKS, "reduction partials"},
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
    if (p->opt.extrapolate > 0) {
        HS_CALL(HS_CUDA_ALLOC(c->ph1, c->nn, "phi history"));
        HS_CALL(HS_CUDA_ALLOC(c->ph2, c->nn, "phi history"));
    }
    c->ex.order = p->opt.extrapolate;
    hs_extrap_reset(&c->ex);
    HS_CALL(hs_gpu_cg_create(c->nn, p->opt.cg.variant, c->spmv, c->dinv, &c->cg));
    if (p->opt.cg.variant == HS_CG_CHRONOPOULOS &&
        (p->opt.persistent > 0 || (p->opt.persistent < 0 && c->nn <= HS_CG_PERSISTENT_AUTO_ROWS))) {
        HS_CALL(upload(&c->csr_rp, p->pattern->row_ptr, (size_t)c->nn + 1, "CSR row pointers (persistent CG)"));
        HS_CALL(upload(&c->csr_col, p->pattern->col, (size_t)c->nnz, "CSR columns (persistent CG)"));
        HS_CALL(hs_gpu_cg_set_persistent(c->cg, c->csr_rp, c->csr_col, c->slot, c->kval));
    }
    HS_CUDA_CALL(cudaMallocHost((void **)&c->h_cg, sizeof(hs_gpu_cg_scalars)));
    HS_CUDA_CALL(cudaMallocHost((void **)&c->h_sc, sizeof(dev_scalars)));
    HS_CUDA_CALL(cudaMallocHost((void **)&c->h_phi, sizeof(double) * c->nn));
    HS_CUDA_CALL(cudaMallocHost((void **)&c->h_r, sizeof(double) * c->ne));
    HS_CUDA_CALL(cudaMallocHost((void **)&c->h_act, sizeof(double) * c->nn));
    HS_CUDA_CALL(cudaDeviceSynchronize());
    cudaDeviceProp prop;
    HS_CUDA_CALL(cudaGetDeviceProperties(&prop, 0));
    snprintf(b->description, sizeof b->description, "cuda (%.120s, sm_%d%d, spmv %.40s, cg %s%s, %s)", prop.name,
             prop.major, prop.minor, p->opt.spmv->name, hs_cg_variant_name(p->opt.cg.variant),
             p->opt.cg.variant == HS_CG_CHRONOPOULOS ? (c->cg->fused ? " fused with the SpMV" : " with a separate dot pass")
                                                     : "",
             p->opt.graph ? "CUDA graph per Newton iteration" : "stream launches");
    if (c->cg->persistent) {
        size_t l = strlen(b->description);
        if (l > 1 && l < sizeof b->description - 40)
            snprintf(b->description + l - 1, sizeof b->description - l + 1, ", persistent CG kernel)");
    }
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
