/*
 * A Newton iteration on the CUDA backend: Jacobi-PCG (backends/cuda/cg.cu, solver.cg: classic or
 * Chronopoulos-Gear, every scalar on the device), the phi update, and the assembly at the new phi.
 * Two ways to run it (solver.graph):
 *   graph            solve + phi update + element + assembly captured once as a CUDA graph, the CG
 *                    loop a WHILE conditional node stopped by the device's own convergence test: one
 *                    graph launch and one host synchronisation per Newton iteration, no extra CG
 *                    iterations. Re-captured when dt changes (dt is a kernel argument).
 *   stream           the same kernels launched one by one; the host reads the CG status every
 *                    HS_CG_POLL iterations (up to HS_CG_POLL-1 SpMVs run after convergence).
 * Only a handful of scalars cross to the host per Newton iteration.
 */
#include "cuda_backend.cuh"
#include "hs_util.h"

static hs_gpu_cg_tol solve_tol(const hs_backend *b)
{
    const cuda_impl *c = (const cuda_impl *)b->impl;
    const hs_problem_opts *o = &b->prob->opt;
    hs_gpu_cg_tol t = {o->cg.tol, o->cg_forcing, o->newton_tol_residual, &c->d_sc->res, o->cg.max_iter};
    return t;
}

/* solver.cg = sstep: the basis broke down and classic CG finished the solve (said as the cpu solver says it). */
static void warn_fallback(const hs_backend *b, const hs_cg_result *cg)
{
    if (cg->fallback_iter > 0)
        hs_warn("s-step CG (solver.cg_s = %d): the Krylov basis lost its rank after %d iterations; the solve "
                "continued with Chronopoulos-Gear CG from the current iterate, and the next solve estimates the "
                "Chebyshev interval again",
                b->prob->opt.cg.s, cg->fallback_iter);
}

/* Stream mode: kernels launched one by one, CG status polled every HS_CG_POLL iterations. */
hs_status hs_cu_solve(hs_backend *b, hs_cg_result *cg, double *upd_norm)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    if (c->k_stale) HS_CALL(hs_cu_enqueue_tangent(c, 0));
    if (c->gpc) return hs_cu_solve_general(b, cg, upd_norm);
    HS_CUDA_CALL(cudaEventRecord(c->ev_s0, c->s));
    hs_gpu_cg_tol t = solve_tol(b);
    HS_CALL(hs_gpu_cg_solve_stream(c->cg, c->rhs, c->du, &t, HS_CG_POLL, c->s, c->h_cg));
    HS_CALL(hs_cu_enqueue_update(c));
    HS_CUDA_CALL(cudaEventRecord(c->ev_s1, c->s));
    HS_CUDA_CALL(cudaMemcpyAsync(&c->h_sc->upd, &c->d_sc->upd, sizeof(double), cudaMemcpyDeviceToHost, c->s));
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    c->t.solve += 1e-3 * elapsed_ms(c->ev_s0, c->ev_s1);
    hs_cu_finish_tangent(c);
    hs_gpu_cg_result_of(c->h_cg, cg);
    warn_fallback(b, cg);
    *upd_norm = c->h_sc->upd;
    return HS_OK;
}

/* K in CSR order from the format's slots (double, or float with solver.matrix_values = float32: the
 * preconditioner is then built from the rounded values the SpMV uses) */
template <typename T>
__global__ static void k_gather_csr(int32_t nnz, const int64_t *slot, const T *kval, double *kcsr)
{
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += (int64_t)gridDim.x * blockDim.x)
        kcsr[k] = (double)kval[slot[k]];
}

static hs_status kval_spmv(void *ctx, const double *x, double *y, cudaStream_t s)
{
    return hs_gpu_spmv_apply((hs_gpu_spmv *)ctx, x, y, s);
}

hs_status hs_cu_solve_general(hs_backend *b, hs_cg_result *cg, double *upd_norm)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    const hs_problem_opts *o = &b->prob->opt;
    HS_CUDA_CALL(cudaEventRecord(c->ev_s0, c->s)); /* the tangent is enqueued (hs_cu_solve) */
    if (c->pc_age % o->pc.reuse == 0 || o->pc.precond == HS_PRECOND_JACOBI) {
        double t0 = hs_wtime();
        if (c->f32) k_gather_csr<<<nblocks(c->nnz, 256), 256, 0, c->s>>>(c->nnz, c->slot, c->kval32, c->kcsr);
        else k_gather_csr<<<nblocks(c->nnz, 256), 256, 0, c->s>>>(c->nnz, c->slot, c->kval, c->kcsr);
        HS_CUDA_LAUNCH_CHECK("k_gather_csr");
        hs_status ps = hs_gpu_precond_compute(c->gpc, c->kcsr, c->s); /* synchronises */
        if (ps != HS_OK) {
            hs_error_prefix("the tangent of this Newton iteration: ");
            return ps;
        }
        c->t.precond += hs_wtime() - t0;
    }
    c->pc_age++;
    hs_cg_opts co = o->cg;
    co.tol = hs_cg_forcing_tol(o->cg.tol, o->cg_forcing, o->newton_tol_residual, c->h_sc->res);
    HS_CALL(hs_gpu_krylov_solve(o->pc.krylov, c->gkw, kval_spmv, c->spmv, hs_gpu_precond_apply_cb, c->gpc, c->rhs, c->du,
                                &co, cg));
    /* k_update_phi applies du when the device CG status says converged: give it this solve's outcome */
    c->h_cg->status = cg->outcome == HS_CG_CONVERGED ? HS_GPU_CG_CONV : HS_GPU_CG_BREAK;
    HS_CUDA_CALL(cudaMemcpyAsync(&c->cg->d_sc->status, &c->h_cg->status, sizeof(int), cudaMemcpyHostToDevice, c->s));
    HS_CALL(hs_cu_enqueue_update(c));
    HS_CUDA_CALL(cudaEventRecord(c->ev_s1, c->s));
    HS_CUDA_CALL(cudaMemcpyAsync(&c->h_sc->upd, &c->d_sc->upd, sizeof(double), cudaMemcpyDeviceToHost, c->s));
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    c->t.solve += 1e-3 * elapsed_ms(c->ev_s0, c->ev_s1);
    hs_cu_finish_tangent(c);
    *upd_norm = c->h_sc->upd;
    return HS_OK;
}

/* Capture one Newton iteration after the first assembly: the tangent (split), solve (init + WHILE
 * loop), update, element, assembly, scalars to the host. */
static hs_status capture_iteration(hs_backend *b)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    if (c->gexec) {
        cudaGraphExecDestroy(c->gexec);
        c->gexec = NULL;
    }
    HS_CUDA_CALL(cudaStreamBeginCapture(c->s, cudaStreamCaptureModeThreadLocal));
    hs_gpu_cg_tol t = solve_tol(b);
    hs_status st = hs_cu_enqueue_tangent(c, 1);
    if (st == HS_OK) st = rec(c->ev_s0, c->s, 1);
    if (st == HS_OK) st = hs_gpu_cg_capture_solve(c->cg, c->rhs, c->du, &t, c->s);
    if (st == HS_OK) st = hs_cu_enqueue_update(c);
    if (st == HS_OK) st = rec(c->ev_s1, c->s, 1);
    if (st == HS_OK) st = hs_cu_enqueue_assemble(b, 1);
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
hs_status hs_cu_iterate(hs_backend *b, hs_cg_result *cg, double *upd_norm, double *res_norm, int32_t *res_node)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    if (!b->prob->opt.graph || c->gpc) { /* stream mode; the general solvers have no graph form */
        HS_CALL(hs_cu_solve(b, cg, upd_norm));
        if (cg->outcome != HS_CG_CONVERGED) return HS_OK;
        return hs_cu_assemble(b, res_norm, res_node);
    }
    if (!c->gexec || c->graph_dt != c->dt) HS_CALL(capture_iteration(b));
    HS_CUDA_CALL(cudaGraphLaunch(c->gexec, c->s));
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    c->t.solve += 1e-3 * elapsed_ms(c->ev_s0, c->ev_s1);
    if (c->split) c->t.assembly += 1e-3 * elapsed_ms(c->ev_k0, c->ev_k1); /* the graph's tangent */
    c->k_stale = c->split; /* the graph ends with an assembly */
    c->k_timed = 0;
    hs_gpu_cg_result_of(c->h_cg, cg);
    warn_fallback(b, cg);
    *upd_norm = c->h_sc->upd;
    if (cg->outcome != HS_CG_CONVERGED) return HS_OK;
    return hs_cu_finish_assemble(b, res_norm, res_node);
}
