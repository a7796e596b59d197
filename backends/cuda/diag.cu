/*
 * Benchmarks and diagnostics of the CUDA backend (hs_backend_diag_ops, b->diag): the assembled
 * system in CSR order, phase medians for `heartsim bench step`, and the CG comparison of
 * `heartsim bench cg` (naive cuSPARSE + cuBLAS, classic, Chronopoulos-Gear, persistent; on a stream
 * and as a CUDA graph). None of it is needed to run a simulation.
 */
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cuda_backend.cuh"
#include "hs_naive_cg.cuh"
#include "hs_splitting.h"
#include "hs_util.h"

static hs_status cu_get_system(hs_backend *b, double *kval_csr, double *rhs)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    if (kval_csr) HS_CALL(hs_cu_tangent(b));
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    if (kval_csr) {
        /* float32 values are widened: the matrix the CG uses, exactly */
        const size_t w = c->f32 ? sizeof(float) : sizeof(double);
        unsigned char *all = NULL;
        HS_CALL(HS_ALLOC(all, w * c->lay->n_slots, "K copy"));
        cudaError_t e = cudaMemcpy(all, hs_cu_kvals(c), w * c->lay->n_slots, cudaMemcpyDeviceToHost);
        for (int32_t k = 0; e == cudaSuccess && k < c->nnz; ++k) {
            const int64_t q = c->lay->slot_of_nnz[k];
            kval_csr[k] = c->f32 ? (double)((const float *)all)[q] : ((const double *)all)[q];
        }
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

/* Median seconds of `reps` enqueues of @p fn on c->s after 3 warm-up ones (CUDA events). */
template <typename F>
static hs_status time_phase(cuda_impl *c, int reps, double *t, F fn)
{
    cudaEvent_t e0, e1;
    HS_CUDA_CALL(cudaEventCreate(&e0));
    HS_CUDA_CALL(cudaEventCreate(&e1));
    hs_status st = HS_OK;
    for (int r = -3; r < reps && st == HS_OK; ++r) {
        cudaEventRecord(e0, c->s);
        st = fn();
        cudaEventRecord(e1, c->s);
        if (cudaEventSynchronize(e1) != cudaSuccess && st == HS_OK) st = HS_FAIL(HS_ERR_DEVICE, "phase benchmark failed");
        if (r >= 0) t[r] = 1e-3 * elapsed_ms(e0, e1);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return st;
}

/*
 * The splitting scheme's phases (solver.scheme = "splitting"), each alone on the current state, which
 * is put back afterwards: the reaction (the nodal ODE kernel over one dt in its solver.dt_ode
 * substeps, no stimulus) in the "element" slot, the diffusion's start (r0 = (B - A) u*, B u*, the
 * norms) in the "assembly" slot (the matrices themselves are assembled once per dt), one SpMV of A,
 * one CG iteration on r0; the bytes of the first two are the backend's (hs_cu_split_bytes).
 */
static hs_status cu_bench_split(hs_backend *b, int reps, hs_phase_bench *out)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    const hs_problem *p = b->prob;
    const int CGI = 10;
    HS_CHECK(c->dt > 0.0, HS_ERR_INTERNAL, "splitting phase benchmark before any step");
    double *te = NULL, *ta = NULL, *ts = NULL, *tc = NULL, *save = NULL;
    const size_t nstate = (size_t)c->nn * (1 + c->nv);
    HS_CALL(HS_ALLOC(te, reps, "bench timings"));
    HS_CALL(HS_ALLOC(ta, reps, "bench timings"));
    HS_CALL(HS_ALLOC(ts, reps, "bench timings"));
    HS_CALL(HS_ALLOC(tc, reps, "bench timings"));
    HS_CALL(HS_CUDA_ALLOC(save, nstate, "bench state copy"));
    HS_CUDA_CALL(cudaMemcpyAsync(save, c->phi, sizeof(double) * c->nn, cudaMemcpyDeviceToDevice, c->s));
    if (c->nv > 0)
        HS_CUDA_CALL(cudaMemcpyAsync(save + c->nn, c->ipv, sizeof(double) * c->nn * c->nv, cudaMemcpyDeviceToDevice, c->s));
    const int nsub = hs_split_substeps(&p->opt.scheme, c->dt * p->opt.time_unit);
    hs_status st = time_phase(c, reps, te, [&] { return hs_cu_split_enqueue_react(b, c->dt, nsub); });
    HS_CUDA_CALL(cudaMemcpyAsync(c->phi, save, sizeof(double) * c->nn, cudaMemcpyDeviceToDevice, c->s));
    if (c->nv > 0)
        HS_CUDA_CALL(cudaMemcpyAsync(c->ipv, save + c->nn, sizeof(double) * c->nn * c->nv, cudaMemcpyDeviceToDevice, c->s));
    if (st == HS_OK) st = time_phase(c, reps, ta, [&] { return hs_cu_split_enqueue_start(c); });
    if (st == HS_OK) st = time_phase(c, reps, ts, [&] { return hs_gpu_spmv_apply(c->spmv, c->phi, c->cg->w, c->s); });
    /* CG iterations on r0 (tolerance 0), as the Newton scheme's bench times them */
    hs_gpu_cg_tol tol0 = {0.0, 0.0, 0.0, NULL, INT_MAX};
    if (st == HS_OK) st = hs_gpu_cg_enqueue_fixed(c->cg, c->rhs, c->du, &tol0, CGI, 1, c->s);
    if (st == HS_OK)
        st = time_phase(c, reps, tc, [&] { return hs_gpu_cg_enqueue_fixed(c->cg, c->rhs, c->du, &tol0, CGI, 0, c->s); });
    for (int r = 0; st == HS_OK && r < reps; ++r) tc[r] /= CGI;
    if (st == HS_OK) st = bench_naive(b, CGI, reps, &out->naive_cg_iter);
    double bw = 0.0;
    if (st == HS_OK) st = copy_bandwidth(c, reps, &bw);
    if (st == HS_OK) {
        out->element = hs_median(te, reps);
        out->assembly = hs_median(ta, reps);
        out->spmv = hs_median(ts, reps);
        out->cg_iter = hs_median(tc, reps);
        out->copy_bw = bw;
        out->reps = reps;
        hs_phase_bytes(p, c->lay->n_slots, out); /* SpMV and CG iteration; the two phases of the scheme: */
        out->bytes_element = hs_cu_split_bytes(b, 0);
        out->bytes_assembly = hs_cu_split_bytes(b, 1);
    }
    free(te); free(ta); free(ts); free(tc);
    cudaStreamSynchronize(c->s);
    cudaFree(save);
    return st;
}

/*
 * Phase medians from CUDA events after a warm-up, each phase alone on the current state:
 * element kernel, assembly (R, norm and the tangent K, D^-1), one SpMV, one CG iteration (timed over 10
 * iterations with the convergence test disabled), and the device-to-device copy bandwidth
 * (cudaMemcpy of a 256 MiB buffer, read + write counted).
 */
static hs_status cu_bench(hs_backend *b, int reps, hs_phase_bench *out)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    if (c->sp) return cu_bench_split(b, reps, out);
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
    for (int w = 0; w < 3; ++w) { /* warm-up */
        HS_CALL(hs_cu_assemble(b, &res, &node));
        HS_CALL(hs_cu_tangent(b));
    }
    for (int r = 0; r < reps; ++r) { /* the assembly of a Newton iteration that solves: R and the tangent */
        hs_phase_times t0 = c->t;
        HS_CALL(hs_cu_assemble(b, &res, &node));
        HS_CALL(hs_cu_tangent(b));
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

/* Median seconds per iteration of `reps` solves to tol (after two warm-up solves), stream path; the
 * iterations and the breakdown iteration (s-step) of the last solve. */
static hs_status time_solves_tol(cuda_impl *c, hs_gpu_cg *cg, double tol, int reps, double *out, int *iters,
                                 int *fallback)
{
    hs_gpu_cg_tol t = {tol, 0.0, 0.0, NULL, 100000};
    double *tm = NULL;
    HS_CALL(HS_ALLOC(tm, reps, "bench timings"));
    hs_status st = HS_OK;
    *fallback = 0;
    for (int r = -2; r < reps && st == HS_OK; ++r) {
        double w0 = hs_wtime();
        st = hs_gpu_cg_solve_stream(cg, c->rhs, c->du, &t, HS_CG_POLL, c->s, c->h_cg);
        double w1 = hs_wtime();
        if (st == HS_OK && c->h_cg->status != HS_GPU_CG_CONV)
            st = HS_FAIL(HS_ERR_NUMERIC, "CG benchmark: the solve to %.0e did not converge (status %d)", tol,
                         c->h_cg->status);
        if (st == HS_OK && c->h_cg->fallback_iter > 0) *fallback = c->h_cg->fallback_iter;
        if (r >= 0 && st == HS_OK) tm[r] = (w1 - w0) / (c->h_cg->iters > 0 ? c->h_cg->iters : 1);
    }
    if (st == HS_OK) *iters = c->h_cg->iters;
    *out = st == HS_OK ? hs_median(tm, reps) : -1.0;
    free(tm);
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

/* bench_cg: Jacobi-PCG iterations on the current tangent (assembled once here): the naive baseline,
 * classic and Chronopoulos-Gear, each launched on a stream (status polled every 4 iterations) and
 * as a CUDA graph (WHILE node), then the persistent kernel; medians of reps solves of iters
 * iterations after two warm-up solves, CUDA events. Also solves to 1e-8 and compares. */
static hs_status cu_bench_cg(hs_backend *b, int iters, int reps, hs_cg_bench *out)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    const hs_problem *p = b->prob;
    memset(out, 0, sizeof *out);
    double res;
    int32_t node;
    if (c->sp) { /* splitting: the diffusion's A (assembled by the steps so far) and its warm start's r0 */
        HS_CHECK(c->dt > 0.0, HS_ERR_INTERNAL, "bench cg under the splitting scheme before any step");
        HS_CALL(hs_cu_split_enqueue_start(c));
        HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    } else {
        HS_CALL(hs_cu_assemble(b, &res, &node)); /* K, D^-1 and R at the current state */
        HS_CALL(hs_cu_tangent(b));
    }
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
        if (st == HS_OK) st = hs_gpu_cg_set_persistent(cg, d_rp, d_col, c->slot, hs_cu_kvals(c), c->f32);
        if (st == HS_OK) st = hs_gpu_cg_set_persistent_kind(cg, 2, 0); /* the two-barrier kernel */
        if (st == HS_OK) st = time_solves(c, cg, 0, iters, reps, &out->t_persistent[0]);
        if (st == HS_OK) st = time_solves(c, cg, 1, iters, reps, &out->t_persistent[1]);
        if (st == HS_OK) st = solve_to(c, cg, 1e-8, &out->iters_persistent, xb);
        int it_tol = 0, fb = 0;
        if (st == HS_OK) st = time_solves_tol(c, cg, 1e-8, reps, &out->t_tol_persistent, &it_tol, &fb);
        hs_gpu_cg_destroy(&cg);
    }
    /* the one-barrier persistent kernel: each threads-per-row choice, then the run's choice to 1e-8 */
    for (int q = 0; q < 4; ++q) out->t_p1[q] = -1.0;
    out->t_tol_p1 = -1.0;
    if (st == HS_OK) {
        hs_gpu_cg *cg = NULL;
        double *xs = NULL;
        st = HS_ALLOC(xs, c->nn, "bench solution");
        if (st == HS_OK) st = hs_gpu_cg_create(c->nn, HS_CG_CHRONOPOULOS, c->spmv, c->dinv, &cg);
        if (st == HS_OK) st = hs_gpu_cg_set_persistent(cg, d_rp, d_col, c->slot, hs_cu_kvals(c), c->f32);
        if (st == HS_OK) out->p1_tpr_auto = cg->p_tpr;
        for (int q = 0; q < 4 && st == HS_OK; ++q) {
            out->p1_tpr[q] = 1 << q;
            st = hs_gpu_cg_set_persistent_kind(cg, 1, 1 << q);
            if (st == HS_OK) st = time_solves(c, cg, 0, iters, reps, &out->t_p1[q]);
        }
        if (st == HS_OK) st = hs_gpu_cg_set_persistent_kind(cg, 1, 0);
        double fl[2] = {-1.0, -1.0};
        if (st == HS_OK) st = hs_gpu_cg1_floor(cg, iters, reps, fl);
        out->p1_grid = cg->p_grid1;
        out->p1_block = cg->p_block1;
        out->t_p1_barrier = fl[0];
        out->t_p1_reduce = fl[1];
        int fb = 0;
        if (st == HS_OK) st = time_solves_tol(c, cg, 1e-8, reps, &out->t_tol_p1, &out->iters_p1, &fb);
        if (st == HS_OK) st = solve_to(c, cg, 1e-8, &out->iters_p1, xs);
        if (st == HS_OK) {
            double dd = 0.0, nx = 0.0;
            for (int32_t i = 0; i < c->nn; ++i) {
                dd += (xs[i] - xa[i]) * (xs[i] - xa[i]);
                nx += xa[i] * xa[i];
            }
            out->x_rel_diff_p1 = nx > 0 ? sqrt(dd / nx) : 0.0;
        }
        hs_gpu_cg_destroy(&cg);
        free(xs);
    }
    /* s-step, s = 2, 4, 8: its persistent kernel, the interval kept across solves (as in a run) */
    for (int q = 0; q < 3 && st == HS_OK; ++q) {
        const int sv = 2 << q;
        out->sstep_s[q] = sv;
        out->t_sstep[q] = out->t_tol_sstep[q] = -1.0;
        double *xs = NULL;
        hs_gpu_cg *cg = NULL;
        st = HS_ALLOC(xs, c->nn, "bench solution");
        if (st == HS_OK) st = hs_gpu_cg_create(c->nn, HS_CG_SSTEP, c->spmv, c->dinv, &cg);
        if (st == HS_OK) st = hs_gpu_cg_set_sstep(cg, sv, d_rp, d_col, c->slot, hs_cu_kvals(c), c->f32);
        if (st == HS_OK) {
            cg->sstep_reuse = 1;
            int fb = 0;
            st = time_solves_tol(c, cg, 1e-8, reps, &out->t_tol_sstep[q], &out->iters_sstep[q], &fb);
            if (st == HS_OK) st = solve_to(c, cg, 1e-8, &out->iters_sstep[q], xs);
            if (st == HS_OK) {
                double dd = 0.0, nx = 0.0;
                for (int32_t i = 0; i < c->nn; ++i) {
                    dd += (xs[i] - xa[i]) * (xs[i] - xa[i]);
                    nx += xa[i] * xa[i];
                }
                out->x_rel_diff_sstep[q] = nx > 0 ? sqrt(dd / nx) : 0.0;
            }
            if (st == HS_OK) st = time_solves(c, cg, 0, iters, reps, &out->t_sstep[q]);
            if (st == HS_OK) out->fallback_sstep[q] = c->h_cg->fallback_iter;
        }
        hs_gpu_cg_destroy(&cg);
        free(xs);
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

const hs_backend_diag_ops hs_cu_diag_ops = {cu_get_system, cu_bench, cu_bench_cg};
