/*
 * The operator-splitting scheme on the CUDA backend (issue 28; fem/hs_splitting.h, the ops react and
 * diffuse of fem/hs_backend.h; the cpu backend's backends/cpu/split_cpu.c is the reference).
 *
 * react: the node current stim_i = sum_k amp_k w_ki (the same sums as hs_nodal_stimulus, in site
 * order, each product and sum rounded as the host rounds them, so the current is the host's bit for
 * bit), then the nodal ODE kernel (nodal.cu) over the reaction's substeps; its failure flag copied
 * to pinned memory, read at once, or (the caller passes HS_REACT_DEFER: hs_split_step's first
 * reaction) by react_check after the diffusion's synchronisation: one host round trip per Godunov
 * step.
 *
 * diffuse: (M + theta dt K) u = (M - (1-theta) dt K) u* =: B u*, warm-started from u*. The matrices
 * are hs_split_matrices' (the CPU reference, computed once on the host per dt and scattered into the
 * SpMV format's slots on the device: the device-side assembly would need the full gather map, 64
 * bytes per element, more than the matrices themselves). The solve is in correction form: with
 * C = B - A (double), r0 = C u* = B u* - A u* is the warm start's residual (one SpMV; a consistent
 * mass or theta < 1 adds the SpMV B u* for the norm the test is relative to, with B in the CG's value
 * precision, only the threshold depends on it); the device CG solves A d = r0 from d = 0 to
 * ||r0 - A d|| <= cg_tol ||B u*|| (the CG's tolerance cg_tol ||B u*|| / ||r0||, formed on the device
 * through hs_gpu_cg_tol's d_res, so no host round trip), and u = u* + d when it converged. A is the
 * tangent's value array (c->kval or c->kval32: float32 values round A only, so the fixed point moves
 * by |A32 - A| |d|, a rounding of the correction, not of u), the CG is c->cg as the Newton scheme
 * uses it: every SpMV format, classic, Chronopoulos-Gear (fused or not), the persistent kernel, the
 * s-step kernel, the CG loop as a WHILE node. With solver.graph (the default) the whole solve -
 * SpMVs, norms, CG, update, the scalars to pinned memory - is one CUDA graph: one synchronisation.
 * The general Krylov methods and preconditioners (c->gpc) run their host-driven loop.
 */
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "cuda_backend.cuh"
#include "hs_gpu_reduce.cuh"
#include "hs_nodal.cuh"
#include "hs_split.cuh"
#include "hs_split_rows.cuh"
#include "hs_problem.h"
#include "hs_splitting.h"
#include "hs_util.h"


namespace {

template <typename V>
__global__ void k_scatter(int32_t nnz, const int64_t *__restrict__ slot, const double *__restrict__ src,
                          V *__restrict__ dst)
{
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += (int64_t)gridDim.x * blockDim.x)
        dst[slot[k]] = (V)src[k];
}

/* the Jacobi inverse of the CG matrix as stored (float32 values: of the rounded diagonal, as the cpu) */
template <typename V>
__global__ void k_diag_inv(int32_t n, const int32_t *__restrict__ diag, const int64_t *__restrict__ slot,
                           const V *__restrict__ val, double *__restrict__ dinv)
{
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        dinv[i] = 1.0 / (double)val[slot[diag[i]]];
}

/* stim[node] += amp w for one site's nodes (distinct within a site; sites run one after another) */
__global__ void k_stim_site(int32_t cnt, const int32_t *__restrict__ node, const double *__restrict__ w, double amp,
                            double *stim)
{
    for (int32_t j = blockIdx.x * blockDim.x + threadIdx.x; j < cnt; j += gridDim.x * blockDim.x)
        stim[node[j]] = __dadd_rn(stim[node[j]], __dmul_rn(amp, w[j])); /* no contraction: the host's bits */
}

/* g = w0 d_1 + w1 d_2 (hs_split_guess_at; the weights from the device: the host sets them before each
 * solve, 0 without a history) */
__global__ void k_split_guess(int32_t n, const double *__restrict__ gs, const double *__restrict__ d1,
                              const double *__restrict__ d2, double *__restrict__ g)
{
    const double w0 = gs[0], w1 = gs[1];
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        g[i] = w0 != 0.0 ? hs_split_guess_at(w0, w1, d1[i], w1 != 0.0 ? d2[i] : 0.0) : 0.0;
}

/* block partials of ||r0||^2 and ||B u*||^2, r0 = C u* - A g written back when there is a guess;
 * B u* from bu, or m_i u_i (u_i at a frozen node) */
__global__ void k_split_norms(int32_t n, double *__restrict__ r0, const double *__restrict__ ag,
                              const double *__restrict__ bu, const double *__restrict__ mass,
                              const uint8_t *__restrict__ frozen, const double *__restrict__ u, double *part)
{
    __shared__ double sh[HS_RED_THREADS];
    double rr = 0.0, bb = 0.0;
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        double r = r0[i];
        if (ag) r0[i] = r = r - ag[i];
        const double v = bu ? bu[i] : (frozen && frozen[i]) ? u[i] : __dmul_rn(mass[i], u[i]);
        rr += r * r;
        bb += v * v;
    }
    rr = hs_block_sum(rr, sh);
    bb = hs_block_sum(bb, sh);
    if (threadIdx.x == 0) {
        part[blockIdx.x] = rr;
        part[HS_RED_BLOCKS + blockIdx.x] = bb;
    }
}

__global__ void k_split_norms_final(const double *part, double *norms)
{
    __shared__ double sh[HS_RED_THREADS];
    const double rr = hs_sum_partials(HS_RED_BLOCKS, part, sh);
    const double bb = hs_sum_partials(HS_RED_BLOCKS, part + HS_RED_BLOCKS, sh);
    if (threadIdx.x == 0) {
        norms[0] = rr;
        norms[1] = bb;
        norms[2] = sqrt(rr) / sqrt(bb); /* the CG's "residual": its tolerance is cg_tol / this */
    }
}

/* u = u* + g + d when the CG converged on finite norms (else u stays u*, as the cpu leaves phi); g
 * becomes the step's correction g + d (the next step's history) */
__global__ void k_split_apply(int32_t n, const hs_gpu_cg_scalars *cg, int conv, const double *norms,
                              const double *__restrict__ d, double *__restrict__ g, double *__restrict__ u)
{
    const int apply = (cg ? cg->status == HS_GPU_CG_CONV : conv) && isfinite(norms[0]) && isfinite(norms[1]);
    if (!apply) return;
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const double dd = g ? d[i] + g[i] : d[i];
        u[i] += dd;
        if (g) g[i] = dd;
    }
}

/* The warm start's tolerance through hs_cg_forcing_tol (hs_cg.h): with cg_tol = 0 (no floor), forcing
 * = 1e300 (no cap) and tol_res = 10 solver.cg_tol it is 0.1 tol_res / res = cg_tol ||B u*|| / ||r0||
 * with res = norms[2] = ||r0|| / ||B u*||, evaluated where the CG starts, on the device. */
} // namespace

hs_gpu_cg_tol hs_cu_split_tol(const hs_backend *b)
{
    const cuda_impl *c = (const cuda_impl *)b->impl;
    const hs_problem_opts *o = &b->prob->opt;
    hs_gpu_cg_tol t = {0.0, 1e300, 10.0 * o->cg.tol, &c->sp->norms[2], o->cg.max_iter};
    return t;
}

/* r0 = C u*, B u*, the norms (the diffusion's start, before its CG); the guess's weights at gs; the
 * norms over rows [0, rows) (a partition's owned rows: dist_split.cu; -1: every node) */
hs_status hs_cu_split_start(cuda_impl *c, const double *gs, int32_t rows)
{
    hs_cu_split *sp = c->sp;
    HS_CALL(hs_gpu_spmv_apply(sp->spmv_c, c->phi, c->rhs, c->s));
    if (!sp->lumped_b) HS_CALL(hs_gpu_spmv_apply(sp->spmv_b, c->phi, sp->bu, c->s));
    if (sp->guess) { /* r0 = C u* - A g: the residual of u* + g */
        k_split_guess<<<nblocks(c->nn, 256), 256, 0, c->s>>>(c->nn, gs, c->ph1, c->ph2, sp->g);
        HS_CUDA_LAUNCH_CHECK("k_split_guess");
        HS_CALL(hs_gpu_spmv_apply(c->spmv, sp->g, sp->ag, c->s));
    }
    const int32_t n = rows < 0 ? c->nn : rows;
    k_split_norms<<<HS_RED_BLOCKS, HS_RED_THREADS, 0, c->s>>>(n, c->rhs, sp->guess ? sp->ag : nullptr,
                                                              sp->lumped_b ? nullptr : sp->bu, sp->mass, sp->frozen,
                                                              c->phi, sp->part);
    HS_CUDA_LAUNCH_CHECK("k_split_norms");
    k_split_norms_final<<<1, HS_RED_THREADS, 0, c->s>>>(sp->part, sp->norms);
    HS_CUDA_LAUNCH_CHECK("k_split_norms_final");
    return HS_OK;
}

/* rows as hs_cu_split_start's */
hs_status hs_cu_split_apply(cuda_impl *c, const hs_gpu_cg_scalars *cg, int conv, int32_t rows)
{
    const int32_t n = rows < 0 ? c->nn : rows;
    k_split_apply<<<nblocks(n, 256), 256, 0, c->s>>>(n, cg, conv, c->sp->norms, c->du,
                                                     c->sp->guess ? c->sp->g : nullptr, c->phi);
    HS_CUDA_LAUNCH_CHECK("k_split_apply");
    return HS_OK;
}

namespace {

/* The whole solve as one graph: start, CG (init + WHILE node, or the persistent kernel), update, the
 * scalars to pinned memory. Its kernels read the matrices' values where they are stored, so a new dt
 * (values rewritten in place) needs no new capture. */
hs_status capture_solve(hs_backend *b)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    hs_cu_split *sp = c->sp;
    HS_CUDA_CALL(cudaStreamBeginCapture(c->s, cudaStreamCaptureModeThreadLocal));
    hs_gpu_cg_tol t = hs_cu_split_tol(b);
    hs_status st = hs_cu_split_start(c, sp->gs);
    if (st == HS_OK) st = hs_gpu_cg_capture_solve(c->cg, c->rhs, c->du, &t, c->s);
    if (st == HS_OK) st = hs_cu_split_apply(c, c->cg->d_sc, 0);
    if (st == HS_OK && (cudaMemcpyAsync(c->h_cg, c->cg->d_sc, sizeof(hs_gpu_cg_scalars), cudaMemcpyDeviceToHost,
                                        c->s) != cudaSuccess ||
                        cudaMemcpyAsync(sp->h_norms, sp->norms, 3 * sizeof(double), cudaMemcpyDeviceToHost, c->s) !=
                            cudaSuccess))
        st = HS_FAIL(HS_ERR_DEVICE, "capturing the diffusion solve's scalar copies failed");
    cudaGraph_t g = nullptr;
    cudaError_t e = cudaStreamEndCapture(c->s, &g);
    if (st == HS_OK && e != cudaSuccess)
        st = HS_FAIL(HS_ERR_DEVICE, "CUDA graph capture of the diffusion solve failed: %s", cudaGetErrorString(e));
    if (st == HS_OK) {
        e = cudaGraphInstantiate(&sp->exec, g, 0);
        if (e != cudaSuccess) {
            sp->exec = nullptr;
            st = HS_FAIL(HS_ERR_DEVICE, "CUDA graph instantiation of the diffusion solve failed: %s",
                         cudaGetErrorString(e));
        }
    }
    if (g) cudaGraphDestroy(g);
    return st;
}

} // namespace

/* A, C (and B) for dt into the slots, D^-1; the preconditioner of the general solvers (host, once per dt) */
hs_status hs_cu_split_assemble(hs_backend *b, double dt)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    hs_cu_split *sp = c->sp;
    const hs_problem *p = b->prob;
    const int32_t nnz = c->nnz;
    double *a = nullptr, *bm = nullptr, *d_tmp = nullptr;
    hs_status st = HS_ALLOC(a, (size_t)nnz, "diffusion matrix");
    if (st == HS_OK) st = HS_ALLOC(bm, (size_t)nnz, "diffusion right-hand-side matrix");
    if (st == HS_OK) st = hs_split_matrices(p, dt, a, bm);
    if (st == HS_OK) st = HS_CUDA_ALLOC(d_tmp, (size_t)nnz, "diffusion matrix staging");
    const int nb = nblocks(nnz, 256);
    /* A into the CG's value array, its diagonal's inverse; the preconditioner from A in CSR order */
    if (st == HS_OK && cudaMemcpyAsync(d_tmp, a, sizeof(double) * nnz, cudaMemcpyHostToDevice, c->s) != cudaSuccess)
        st = HS_FAIL(HS_ERR_DEVICE, "uploading the diffusion matrix failed");
    if (st == HS_OK) {
        if (c->f32) k_scatter<float><<<nb, 256, 0, c->s>>>(nnz, c->slot, d_tmp, c->kval32);
        else k_scatter<double><<<nb, 256, 0, c->s>>>(nnz, c->slot, d_tmp, c->kval);
        if (c->f32) k_diag_inv<float><<<nblocks(c->nn, 256), 256, 0, c->s>>>(c->nn, c->diag, c->slot, c->kval32, c->dinv);
        else k_diag_inv<double><<<nblocks(c->nn, 256), 256, 0, c->s>>>(c->nn, c->diag, c->slot, c->kval, c->dinv);
        if (cudaGetLastError() != cudaSuccess) st = HS_FAIL(HS_ERR_DEVICE, "the diffusion matrix's scatter failed");
    }
    if (st == HS_OK && c->gpc) {
        if (cudaMemcpyAsync(c->kcsr, d_tmp, sizeof(double) * nnz, cudaMemcpyDeviceToDevice, c->s) != cudaSuccess)
            st = HS_FAIL(HS_ERR_DEVICE, "copying the diffusion matrix failed");
        if (st == HS_OK) {
            st = hs_gpu_precond_compute(c->gpc, c->kcsr, c->s); /* synchronises */
            if (st != HS_OK) hs_error_prefix("the splitting scheme's diffusion matrix: ");
        }
    }
    /* B (for ||B u*||) in the CG's precision, then C = B - A in double (the host's difference) */
    if (st == HS_OK && !sp->lumped_b) {
        if (cudaStreamSynchronize(c->s) != cudaSuccess ||
            cudaMemcpyAsync(d_tmp, bm, sizeof(double) * nnz, cudaMemcpyHostToDevice, c->s) != cudaSuccess)
            st = HS_FAIL(HS_ERR_DEVICE, "uploading the diffusion's right-hand-side matrix failed");
        if (st == HS_OK) {
            if (c->f32) k_scatter<float><<<nb, 256, 0, c->s>>>(nnz, c->slot, d_tmp, (float *)sp->bval);
            else k_scatter<double><<<nb, 256, 0, c->s>>>(nnz, c->slot, d_tmp, (double *)sp->bval);
            if (cudaGetLastError() != cudaSuccess) st = HS_FAIL(HS_ERR_DEVICE, "the B matrix's scatter failed");
        }
    }
    if (st == HS_OK) {
        for (int32_t k = 0; k < nnz; ++k) bm[k] -= a[k];
        if (cudaStreamSynchronize(c->s) != cudaSuccess ||
            cudaMemcpyAsync(d_tmp, bm, sizeof(double) * nnz, cudaMemcpyHostToDevice, c->s) != cudaSuccess)
            st = HS_FAIL(HS_ERR_DEVICE, "uploading the difference B - A failed");
        if (st == HS_OK) {
            k_scatter<double><<<nb, 256, 0, c->s>>>(nnz, c->slot, d_tmp, sp->cval);
            if (cudaGetLastError() != cudaSuccess) st = HS_FAIL(HS_ERR_DEVICE, "the C matrix's scatter failed");
        }
    }
    if (st == HS_OK && cudaStreamSynchronize(c->s) != cudaSuccess)
        st = HS_FAIL(HS_ERR_DEVICE, "assembling the diffusion matrices failed: %s", cudaGetErrorString(cudaGetLastError()));
    cudaFree(d_tmp);
    free(a);
    free(bm);
    HS_CALL(st);
    sp->dt = dt;
    return HS_OK;
}

namespace {

hs_status kval_spmv(void *ctx, const double *x, double *y, cudaStream_t s)
{
    return hs_gpu_spmv_apply((hs_gpu_spmv *)ctx, x, y, s);
}

/* The general Krylov methods and preconditioners: the norms to the host, the host-driven loop. */
hs_status diffuse_general(hs_backend *b, hs_cg_result *cg)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    hs_cu_split *sp = c->sp;
    const hs_problem_opts *o = &b->prob->opt;
    HS_CALL(hs_cu_split_start(c, sp->gs));
    HS_CUDA_CALL(cudaMemcpyAsync(sp->h_norms, sp->norms, 3 * sizeof(double), cudaMemcpyDeviceToHost, c->s));
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    const double rnorm = sqrt(sp->h_norms[0]), bnorm = sqrt(sp->h_norms[1]);
    if (!isfinite(rnorm) || !isfinite(bnorm)) {
        cg->outcome = HS_CG_NONFINITE;
        cg->rel_res = rnorm;
        return HS_OK;
    }
    if (rnorm <= o->cg.tol * bnorm) { /* u* + g solves it already: u = u* + g, as the cpu */
        cg->outcome = HS_CG_CONVERGED;
        cg->rel_res = bnorm > 0.0 ? rnorm / bnorm : 0.0;
        HS_CUDA_CALL(cudaMemsetAsync(c->du, 0, sizeof(double) * c->nn, c->s));
        HS_CALL(hs_cu_split_apply(c, nullptr, 1));
        HS_CUDA_CALL(cudaStreamSynchronize(c->s));
        return HS_OK;
    }
    hs_cg_opts co = o->cg;
    co.tol = o->cg.tol * bnorm / rnorm;
    HS_CALL(hs_gpu_krylov_solve(o->pc.krylov, c->gkw, kval_spmv, c->spmv, hs_gpu_precond_apply_cb, c->gpc, c->rhs,
                                c->du, &co, cg));
    cg->rel_res *= rnorm / (bnorm > 0.0 ? bnorm : 1.0);
    HS_CALL(hs_cu_split_apply(c, nullptr, cg->outcome == HS_CG_CONVERGED));
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    return HS_OK;
}

} // namespace

hs_status hs_cu_split_enqueue_start(cuda_impl *c, int32_t rows) { return hs_cu_split_start(c, c->sp->gs, rows); }

hs_status hs_cu_split_enqueue_react(hs_backend *b, double h, int n_sub)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    hs_cu_split *sp = c->sp;
    HS_CHECK(sp && n_sub >= 1, HS_ERR_INTERNAL, "reaction bench: not the splitting scheme");
    hs_nodal_launch a = {c->nn,    c->nn,      &b->prob->opt.model_prm, sp->ntab ? c->rtab : nullptr,
                         sp->ntab, sp->frozen, h / n_sub,               n_sub,
                         c->phi,   c->ipv,     nullptr,                 nullptr,
                         nullptr,  nullptr,    nullptr,                 nullptr};
    return hs_cu_launch_nodal(&a, c->s);
}

double hs_cu_split_bytes(const hs_backend *b, int phase)
{
    const cuda_impl *c = (const cuda_impl *)b->impl;
    const hs_cu_split *sp = c->sp;
    const double nn = c->nn, ns = (double)c->lay->n_slots, vb = c->f32 ? 4.0 : 8.0;
    if (!sp) return 0.0;
    if (phase == 0) /* the reaction: u and the variables read and written once; node rows, frozen flags */
        return nn * hs_nodal_bytes_per_node(c->nv, 0, 0) + (sp->ntab ? 2.0 * nn : 0.0) + (sp->frozen ? nn : 0.0);
    /* the diffusion's start: C u* (double values and a 4-byte column per slot, row pointers, u* and r0),
     * B u* the same in the CG's precision unless B is the lumped diagonal, the guess and A g
     * (solver.extrapolate >= 1), the norms (r0, B u* or m, u*) */
    double bytes = ns * (8.0 + 4.0) + (nn + 1) * 4.0 + nn * 16.0;
    if (!sp->lumped_b) bytes += ns * (vb + 4.0) + (nn + 1) * 4.0 + nn * 16.0;
    if (sp->guess) /* g = w0 d_1 + w1 d_2 (24 bytes per node), A g as B u*, the norms read A g and write r0 */
        bytes += nn * 24.0 + ns * (vb + 4.0) + (nn + 1) * 4.0 + nn * 16.0 + nn * 16.0;
    return bytes + nn * 24.0;
}

hs_status hs_cu_split_setup(hs_backend *b)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    const hs_problem *p = b->prob;
    const hs_nodal *nd = p->nodal;
    const hs_scheme_opts *so = &p->opt.scheme;
    HS_CHECK(nd && nd->n_nodes == c->nn, HS_ERR_INTERNAL, "splitting: the problem has no node data");
    HS_CHECK(c->nv == 0 || c->nvs == c->nn, HS_ERR_INTERNAL, "splitting: the model's variables are not at the nodes");
    hs_cu_split *sp = (hs_cu_split *)calloc(1, sizeof(hs_cu_split));
    HS_CHECK(sp, HS_ERR_MEMORY, "splitting: out of memory");
    c->sp = sp;
    sp->dt = NAN;
    sp->lumped_b = so->mass == HS_MASS_LUMPED && so->theta == 1.0;
    HS_CALL(upload(&sp->mass, nd->mass_lumped, (size_t)c->nn, "lumped mass"));
    if (nd->frozen) HS_CALL(upload(&sp->frozen, nd->frozen, (size_t)c->nn, "frozen nodes"));
    if (nd->node_tab) {
        HS_CHECK(c->rtab, HS_ERR_INTERNAL, "splitting: node region rows without a region table");
        HS_CALL(upload(&sp->ntab, nd->node_tab, (size_t)c->nn, "node region rows"));
    }
    const int32_t n_stim = nd->stim_ptr[nd->n_sites];
    if (n_stim > 0) {
        HS_CALL(upload(&sp->snode, nd->stim_node, (size_t)n_stim, "stimulated nodes"));
        HS_CALL(upload(&sp->sw, nd->stim_w, (size_t)n_stim, "stimulus node shares"));
    }
    HS_CALL(HS_CUDA_ALLOC(sp->stim, c->nn, "node stimulus"));
    HS_CUDA_CALL(cudaMemset(sp->stim, 0, sizeof(double) * c->nn));
    if (!c->diag) HS_CALL(upload(&c->diag, p->map->diag, (size_t)c->nn, "diagonal positions"));
    HS_CALL(HS_CUDA_ALLOC(sp->cval, c->lay->n_slots, "diffusion matrix B - A"));
    HS_CUDA_CALL(cudaMemset(sp->cval, 0, sizeof(double) * c->lay->n_slots)); /* padding slots read as zero */
    HS_CALL(hs_gpu_spmv_create_values(c->lay, p->pattern, sp->cval, HS_VALUES_F64, &sp->spmv_c));
    if (!sp->lumped_b) {
        const size_t w = c->f32 ? sizeof(float) : sizeof(double);
        HS_CALL(hs_cuda_alloc_(&sp->bval, w * c->lay->n_slots, "diffusion right-hand-side matrix", __FILE__, __LINE__));
        HS_CUDA_CALL(cudaMemset(sp->bval, 0, w * c->lay->n_slots));
        HS_CALL(hs_gpu_spmv_create_values(c->lay, p->pattern, sp->bval, c->f32 ? HS_VALUES_F32 : HS_VALUES_F64,
                                          &sp->spmv_b));
        HS_CALL(HS_CUDA_ALLOC(sp->bu, c->nn, "B u*"));
    }
    HS_CALL(HS_CUDA_ALLOC(sp->norms, 3, "diffusion norms"));
    HS_CUDA_CALL(cudaMemset(sp->norms, 0, 3 * sizeof(double)));
    HS_CALL(HS_CUDA_ALLOC(sp->part, 2 * HS_RED_BLOCKS, "diffusion norm partials"));
    HS_CALL(HS_CUDA_ALLOC(sp->bad, 1, "reaction failure flag"));
    HS_CALL(HS_CUDA_ALLOC(sp->gs, 2, "guess weights"));
    HS_CUDA_CALL(cudaMemset(sp->gs, 0, 2 * sizeof(double)));
    HS_CUDA_CALL(cudaMallocHost((void **)&sp->h_gs, 2 * sizeof(double)));
    sp->h_gs[0] = sp->h_gs[1] = 0.0;
    sp->guess = c->ph1 != nullptr; /* solver.extrapolate >= 1 (backend.cu allocates the history) */
    if (sp->guess) {
        HS_CALL(HS_CUDA_ALLOC(sp->g, c->nn, "diffusion guess"));
        HS_CALL(HS_CUDA_ALLOC(sp->ag, c->nn, "A times the diffusion guess"));
        HS_CUDA_CALL(cudaMemset(sp->g, 0, sizeof(double) * c->nn));
    }
    HS_CUDA_CALL(cudaMallocHost((void **)&sp->h_norms, 3 * sizeof(double)));
    HS_CUDA_CALL(cudaMallocHost((void **)&sp->h_bad, sizeof(int)));
    HS_CUDA_CALL(cudaEventCreate(&sp->ev0));
    HS_CUDA_CALL(cudaEventCreate(&sp->ev1));
    HS_CUDA_CALL(cudaDeviceSynchronize()); /* the cudaMemsets above (legacy stream) before c->s's work */
    return HS_OK;
}

void hs_cu_split_free(cuda_impl *c)
{
    hs_cu_split *sp = c->sp;
    if (!sp) return;
    hs_cu_split_launch_free(sp);
    hs_cu_split_persist_free(sp);
    if (sp->exec) cudaGraphExecDestroy(sp->exec);
    hs_gpu_spmv_destroy(&sp->spmv_c);
    hs_gpu_spmv_destroy(&sp->spmv_b);
    void *dev[] = {sp->cval, sp->bval, sp->bu, sp->mass, sp->frozen, sp->ntab, sp->stim, sp->snode, sp->sw,
                   sp->norms, sp->part, sp->bad, sp->g, sp->ag, sp->gs};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; ++i) cudaFree(dev[i]);
    cudaFreeHost(sp->h_norms);
    cudaFreeHost(sp->h_bad);
    cudaFreeHost(sp->h_gs);
    if (sp->ev0) cudaEventDestroy(sp->ev0);
    if (sp->ev1) cudaEventDestroy(sp->ev1);
    free(sp);
    c->sp = nullptr;
}

hs_status hs_cu_react(hs_backend *b, double h, int n_sub, const double *site_amp, int32_t *bad_node)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    hs_cu_split *sp = c->sp;
    const hs_problem *p = b->prob;
    const hs_nodal *nd = p->nodal;
    const int defer = *bad_node == HS_REACT_DEFER;
    *bad_node = -1;
    HS_CHECK(sp && n_sub >= 1 && h > 0.0, HS_ERR_INTERNAL, "reaction over %g in %d substeps", h, n_sub);
    HS_CHECK(!sp->react_pending, HS_ERR_INTERNAL, "a reaction while the last one's failure flag is unread");
    HS_CUDA_CALL(cudaEventRecord(sp->ev0, c->s));
    int on = 0;
    for (int k = 0; k < nd->n_sites; ++k) on |= site_amp[k] != 0.0;
    if (on) { /* hs_nodal_stimulus: zero, then each site's shares in site order */
        HS_CUDA_CALL(cudaMemsetAsync(sp->stim, 0, sizeof(double) * c->nn, c->s));
        for (int k = 0; k < nd->n_sites; ++k) {
            const int32_t j0 = nd->stim_ptr[k], cnt = nd->stim_ptr[k + 1] - j0;
            if (site_amp[k] == 0.0 || cnt == 0) continue;
            k_stim_site<<<nblocks(cnt, 256), 256, 0, c->s>>>(cnt, sp->snode + j0, sp->sw + j0, site_amp[k], sp->stim);
            HS_CUDA_LAUNCH_CHECK("k_stim_site");
        }
    }
    HS_CUDA_CALL(cudaMemsetAsync(sp->bad, 0x7f, sizeof(int), c->s));
    const double hs = h / n_sub; /* hs_split_react_node's substep, the same bits */
    /* the step's first reaction saves its start (begin_step's phi_n and variables) as it reads them */
    const int save = c->start_pending;
    c->start_pending = 0;
    hs_nodal_launch a = {c->nn,    c->nn,      &p->opt.model_prm,      sp->ntab ? c->rtab : nullptr,
                         sp->ntab, sp->frozen, hs,                     n_sub,
                         c->phi,   c->ipv,     on ? sp->stim : nullptr, save ? c->phin : nullptr,
                         save && c->nv > 0 ? c->ipv_n : nullptr,        sp->bad, nullptr, nullptr};
    HS_CALL(hs_cu_launch_nodal(&a, c->s));
    HS_CUDA_CALL(cudaMemcpyAsync(sp->h_bad, sp->bad, sizeof(int), cudaMemcpyDeviceToHost, c->s));
    HS_CUDA_CALL(cudaEventRecord(sp->ev1, c->s));
    sp->react_pending = 1;
    if (defer) { /* the caller reads the flag with react_check, after a synchronisation it makes anyway */
        *bad_node = HS_REACT_DEFER;
        return HS_OK;
    }
    return hs_cu_react_check(b, bad_node);
}

hs_status hs_cu_react_check(hs_backend *b, int32_t *bad_node)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    hs_cu_split *sp = c->sp;
    *bad_node = -1;
    HS_CHECK(sp, HS_ERR_INTERNAL, "react_check: the backend does not run the splitting scheme");
    if (!sp->react_pending) return HS_OK;
    HS_CUDA_CALL(cudaEventSynchronize(sp->ev1)); /* returns at once after the diffusion's synchronisation */
    sp->react_pending = 0;
    c->t.element += 1e-3 * elapsed_ms(sp->ev0, sp->ev1); /* the reaction is the splitting's element phase */
    if (*sp->h_bad != 0x7f7f7f7f) *bad_node = *sp->h_bad;
    return HS_OK;
}

hs_status hs_cu_diffuse(hs_backend *b, double dt, hs_cg_result *cg)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    hs_cu_split *sp = c->sp;
    memset(cg, 0, sizeof *cg);
    HS_CALL(hs_cu_split_prepare(b, dt));
    HS_CUDA_CALL(cudaEventRecord(c->ev_s0, c->s));
    if (c->gpc) {
        HS_CALL(diffuse_general(b, cg));
    } else {
        if (b->prob->opt.graph) {
            if (!sp->exec) HS_CALL(capture_solve(b));
            HS_CUDA_CALL(cudaGraphLaunch(sp->exec, c->s));
        } else {
            hs_gpu_cg_tol t = hs_cu_split_tol(b);
            HS_CALL(hs_cu_split_start(c, sp->gs));
            HS_CALL(hs_gpu_cg_solve_stream(c->cg, c->rhs, c->du, &t, HS_CG_POLL, c->s, c->h_cg));
            HS_CALL(hs_cu_split_enqueue_finish_rows(c, -1));
        }
        HS_CUDA_CALL(cudaEventRecord(c->ev_s1, c->s));
        HS_CUDA_CALL(cudaStreamSynchronize(c->s));
        hs_cu_split_result(c, cg);
        c->t.solve += 1e-3 * elapsed_ms(c->ev_s0, c->ev_s1);
        return HS_OK;
    }
    HS_CUDA_CALL(cudaEventRecord(c->ev_s1, c->s));
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    c->t.solve += 1e-3 * elapsed_ms(c->ev_s0, c->ev_s1);
    return HS_OK;
}

double *hs_cu_split_correction(cuda_impl *c) { return c->sp && c->sp->guess ? c->sp->g : nullptr; }

/* ---- the pieces a partition's diffusion reuses (hs_split_rows.cuh, dist_split.cu) --------------- */

hs_status hs_cu_split_react_rows(hs_backend *b, int32_t n)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    hs_cu_split *sp = c->sp;
    const uint8_t *fr = b->prob->nodal->frozen;
    HS_CHECK(sp && n >= 0 && n <= c->nn && !sp->exec, HS_ERR_INTERNAL,
             "reaction rows %d of %d (before the diffusion's graph holds the mask's address)", n, c->nn);
    if (n == c->nn && !fr) { /* every node reacts: no mask */
        cudaFree(sp->frozen);
        sp->frozen = nullptr;
        return HS_OK;
    }
    if (!sp->frozen) HS_CALL(HS_CUDA_ALLOC(sp->frozen, c->nn, "frozen nodes"));
    if (fr) HS_CUDA_CALL(cudaMemcpy(sp->frozen, fr, (size_t)c->nn, cudaMemcpyHostToDevice));
    else HS_CUDA_CALL(cudaMemset(sp->frozen, 0, (size_t)c->nn));
    if (n < c->nn) HS_CUDA_CALL(cudaMemset(sp->frozen + n, 1, (size_t)(c->nn - n)));
    HS_CUDA_CALL(cudaDeviceSynchronize()); /* the mask (legacy stream) before the reactions on c->s */
    return HS_OK;
}

hs_status hs_cu_split_prepare(hs_backend *b, double dt)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    hs_cu_split *sp = c->sp;
    HS_CHECK(sp, HS_ERR_INTERNAL, "diffuse: the backend does not run the splitting scheme");
    if (!(sp->dt == dt)) {
        const double t0 = hs_wtime();
        HS_CALL(hs_cu_split_assemble(b, dt));
        c->t.assembly += hs_wtime() - t0;
    }
    if (sp->guess) { /* the guess's weights for this dt (the previous solve synchronised: h_gs is free) */
        hs_split_guess_weights(&c->ex, dt, sp->h_gs);
        HS_CUDA_CALL(cudaMemcpyAsync(sp->gs, sp->h_gs, 2 * sizeof(double), cudaMemcpyHostToDevice, c->s));
    }
    return HS_OK;
}

double *hs_cu_split_norms(cuda_impl *c) { return c->sp->norms; }

hs_status hs_cu_split_enqueue_finish_rows(cuda_impl *c, int32_t rows)
{
    HS_CALL(hs_cu_split_apply(c, c->cg->d_sc, 0, rows));
    HS_CUDA_CALL(cudaMemcpyAsync(c->sp->h_norms, c->sp->norms, 3 * sizeof(double), cudaMemcpyDeviceToHost, c->s));
    return HS_OK;
}

void hs_cu_split_result(const cuda_impl *c, hs_cg_result *cg)
{
    const hs_cu_split *sp = c->sp;
    hs_gpu_cg_result_of(c->h_cg, cg);
    const double rr = sp->h_norms[0], bb = sp->h_norms[1];
    if (!isfinite(rr) || !isfinite(bb)) { /* as the cpu: the warm start's residual or B u* is not finite */
        cg->outcome = HS_CG_NONFINITE;
        cg->rel_res = sqrt(rr);
    } else { /* relative to ||B u*||, the test's norm */
        cg->rel_res *= sqrt(rr) / (bb > 0.0 ? sqrt(bb) : 1.0);
    }
}
