// solver.step = "graph": the Newton iteration of a time step as one CUDA graph with device-side control
// (hs_backend_ops.newton_device, called by hs_time_step in fem/newton.c after begin_step).
//
//   first assembly -> k_newton_check(first) -> WHILE (cond) { tangent (split: K, D^-1), CG solve (its
//   own WHILE node, or the persistent kernel), phi -= du, element + assembly, k_newton_check } ->
//   control block to the host
//
// k_newton_check is the host loop's Newton test (fem/newton.c) on one thread: CG failure, element
// failure, non-finite residual, convergence (res <= tol_res and, after the first iteration, upd <=
// tol_upd), the iteration limit; it sets the loop condition, so the step runs with no host round
// trip and one synchronisation at the end (against one per Newton iteration with solver.graph). The
// kernels are those of the per-iteration graph in the same order, so the simulation is the same bit
// for bit. Conditional bodies may hold only kernels, memsets, copies and conditionals: the body's
// assembly records no phase events (the whole step is timed as "solve") and copies nothing to the
// host. dt is a kernel argument: the graph is captured again when it changes.
#include <cmath>

#include "hs_step_trace.cuh"
#include "cuda_backend.cuh"
#include "hs_util.h"

struct hs_newton_ctl {
    int k, stop, solves, cg_iters, cg_iters_max, n_hist;
    int res_node, node_before, bad_elem;
    double res, upd, res_before;
    double hist[32];
    hs_gpu_cg_scalars cg; /* the last solve's */
};

namespace {

__global__ void k_newton_check(hs_newton_ctl *ctl, const dev_scalars *sc, const hs_gpu_cg_scalars *cgs, double tol_res,
                               double tol_upd, int max_iter, int first, cudaGraphConditionalHandle h)
{
    if (first) {
        ctl->k = 0;
        ctl->stop = HS_NEWTON_CONVERGED;
        ctl->solves = ctl->cg_iters = ctl->cg_iters_max = ctl->n_hist = 0;
        ctl->upd = INFINITY;
        ctl->res_before = 0.0;
        ctl->node_before = 0;
        ctl->bad_elem = 0;
    } else { /* a solve, the update and an assembly ran */
        ctl->solves++;
        const int it = cgs->status == HS_GPU_CG_BREAK || cgs->status == HS_GPU_CG_NONFINITE
                           ? (cgs->fail_iter > cgs->iters ? cgs->fail_iter : cgs->iters)
                           : cgs->iters; /* as hs_gpu_cg_result_of */
        ctl->cg_iters += it;
        if (it > ctl->cg_iters_max) ctl->cg_iters_max = it;
        ctl->cg = *cgs;
        if (cgs->status != HS_GPU_CG_CONV) { /* the assembly after a failed solve means nothing */
            ctl->stop = HS_NEWTON_CG;
            ctl->res_before = ctl->res;
            ctl->node_before = ctl->res_node;
            cudaGraphSetConditional(h, 0);
            return;
        }
        ctl->upd = sc->upd;
        ctl->k++;
    }
    int go = 0;
    if (sc->bad_elem != 0x7f7f7f7f) {
        ctl->stop = HS_NEWTON_ELEMENT;
        ctl->bad_elem = sc->bad_elem;
    } else {
        const double res = sc->res;
        ctl->res = res;
        ctl->res_node = sc->res_node;
        if (ctl->n_hist < 32) ctl->hist[ctl->n_hist++] = res;
        if (!isfinite(res)) ctl->stop = HS_NEWTON_NONFINITE;
        else if (res <= tol_res && (ctl->k == 0 || ctl->upd <= tol_upd)) ctl->stop = HS_NEWTON_CONVERGED;
        else if (ctl->k == max_iter) ctl->stop = HS_NEWTON_MAXIT;
        else go = 1;
    }
    cudaGraphSetConditional(h, go);
}

hs_status launch_check(cuda_impl *c, const hs_problem *p, int first, cudaGraphConditionalHandle h)
{
    k_newton_check<<<1, 1, 0, c->s>>>(c->step_ctl, c->d_sc, c->cg->d_sc, p->opt.newton_tol_residual,
                                      p->opt.newton_tol_update, p->opt.newton_max_iter, first, h);
    HS_CUDA_LAUNCH_CHECK("k_newton_check");
    return HS_OK;
}

hs_status capture_step(hs_backend *b)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    const hs_problem *p = b->prob;
    const hs_problem_opts *o = &p->opt;
    if (c->step_exec) {
        cudaGraphExecDestroy(c->step_exec);
        c->step_exec = NULL;
    }
    hs_gpu_cg_tol t = {o->cg.tol, o->cg_forcing, o->newton_tol_residual, &c->d_sc->res, o->cg.max_iter};
    if (!c->trace_checked) {
        c->trace_checked = 1;
        c->trace = hs_step_trace_from_env("serial step graph");
    }
    hs_step_trace *tr = c->trace;
    cudaGraph_t g = NULL;
    HS_CUDA_CALL(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle h;
    hs_status st = HS_OK;
    if (cudaGraphConditionalHandleCreate(&h, g, 0, 0) != cudaSuccess)
        st = HS_FAIL(HS_ERR_DEVICE, "solver.step = graph: cannot create the Newton loop's condition");
    /* 1. the first assembly, the first test, the WHILE node, the copy of the control block */
    cudaGraph_t body = NULL;
    if (st == HS_OK &&
        cudaStreamBeginCaptureToGraph(c->s, g, NULL, NULL, 0, cudaStreamCaptureModeThreadLocal) != cudaSuccess)
        st = HS_FAIL(HS_ERR_DEVICE, "solver.step = graph: cannot capture the step");
    if (st == HS_OK) {
        if (st == HS_OK) st = hs_step_trace_stamp(tr, c->s, HS_TR_STEP0, NULL);
        if (st == HS_OK) st = hs_cu_enqueue_assemble(b, 2);
        if (st == HS_OK) st = hs_step_trace_stamp(tr, c->s, HS_TR_FIRST_ASM, NULL);
        if (st == HS_OK) st = launch_check(c, p, 1, h);
        if (st == HS_OK) st = hs_step_trace_stamp(tr, c->s, HS_TR_FIRST_TEST, NULL);
        cudaStreamCaptureStatus cs;
        const cudaGraphNode_t *deps = NULL;
        size_t n_deps = 0;
        cudaGraphNode_t node;
        cudaGraphNodeParams np = {};
        if (st == HS_OK && cudaStreamGetCaptureInfo(c->s, &cs, NULL, NULL, &deps, NULL, &n_deps) != cudaSuccess)
            st = HS_FAIL(HS_ERR_DEVICE, "solver.step = graph: capture info");
        if (st == HS_OK) {
            np.type = cudaGraphNodeTypeConditional;
            np.conditional.handle = h;
            np.conditional.type = cudaGraphCondTypeWhile;
            np.conditional.size = 1;
            cudaError_t e = cudaGraphAddNode(&node, g, deps, NULL, n_deps, &np);
            if (e == cudaSuccess) e = cudaStreamUpdateCaptureDependencies(c->s, &node, NULL, 1,
                                                                          cudaStreamSetCaptureDependencies);
            if (e != cudaSuccess)
                st = HS_FAIL(HS_ERR_DEVICE, "solver.step = graph: the Newton WHILE node: %s", cudaGetErrorString(e));
            else body = np.conditional.phGraph_out[0];
        }
        if (st == HS_OK) st = hs_step_trace_stamp(tr, c->s, HS_TR_STEP_END, NULL);
        if (st == HS_OK && cudaMemcpyAsync(c->h_step_ctl, c->step_ctl, sizeof(hs_newton_ctl), cudaMemcpyDeviceToHost,
                                           c->s) != cudaSuccess)
            st = HS_FAIL(HS_ERR_DEVICE, "solver.step = graph: capturing the control block copy failed");
        cudaGraph_t out = NULL;
        cudaError_t e = cudaStreamEndCapture(c->s, &out);
        if (st == HS_OK && e != cudaSuccess)
            st = HS_FAIL(HS_ERR_DEVICE, "solver.step = graph: capture failed: %s", cudaGetErrorString(e));
    }
    /* 2. the body (the stream is free again): solve, update, assembly, test */
    if (st == HS_OK &&
        cudaStreamBeginCaptureToGraph(c->s, body, NULL, NULL, 0, cudaStreamCaptureModeThreadLocal) != cudaSuccess)
        st = HS_FAIL(HS_ERR_DEVICE, "solver.step = graph: cannot capture the Newton iteration");
    else if (st == HS_OK) {
        if (st == HS_OK) st = hs_step_trace_stamp(tr, c->s, HS_TR_BODY0, NULL);
        if (st == HS_OK) st = hs_cu_enqueue_tangent(c, 2);
        if (st == HS_OK) st = hs_step_trace_stamp(tr, c->s, HS_TR_TANGENT, NULL);
        if (st == HS_OK) st = hs_gpu_cg_capture_solve(c->cg, c->rhs, c->du, &t, c->s);
        if (st == HS_OK) st = hs_step_trace_stamp(tr, c->s, HS_TR_CG, &c->cg->d_sc->iters);
        if (st == HS_OK) st = hs_cu_enqueue_update(c);
        if (st == HS_OK) st = hs_step_trace_stamp(tr, c->s, HS_TR_UPDATE, NULL);
        if (st == HS_OK) st = hs_cu_enqueue_assemble(b, 2);
        if (st == HS_OK) st = hs_step_trace_stamp(tr, c->s, HS_TR_ASM, NULL);
        if (st == HS_OK) st = launch_check(c, p, 0, h);
        if (st == HS_OK) st = hs_step_trace_stamp(tr, c->s, HS_TR_TEST, NULL);
        cudaGraph_t out = NULL;
        cudaError_t e = cudaStreamEndCapture(c->s, &out);
        if (st == HS_OK && e != cudaSuccess)
            st = HS_FAIL(HS_ERR_DEVICE, "solver.step = graph: capture of the Newton iteration failed: %s",
                         cudaGetErrorString(e));
    }
    if (st == HS_OK) {
        cudaError_t e = cudaGraphInstantiate(&c->step_exec, g, 0);
        if (e != cudaSuccess) {
            c->step_exec = NULL;
            st = HS_FAIL(HS_ERR_DEVICE, "solver.step = graph: instantiation failed: %s", cudaGetErrorString(e));
        }
    }
    cudaGraphDestroy(g);
    c->step_dt = c->dt;
    return st;
}

} // namespace

hs_status hs_cu_newton_device(hs_backend *b, hs_newton_out *out)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    HS_CHECK(!c->gpc, HS_ERR_CONFIG, "solver.step = \"%s\" runs Jacobi-CG inside the device's Newton loop, not "
             "solver.precond = \"%s\" with solver.krylov = \"%s\"; use solver.step = \"kernels\"",
             hs_step_mode_name(b->prob->opt.exec.step), hs_precond_name(b->prob->opt.pc.precond),
             hs_krylov_name(b->prob->opt.pc.krylov));
    if (b->prob->opt.exec.step == HS_STEP_PERSISTENT) return hs_cu_pstep_newton(b, out); /* its own kernel */
    if (!c->step_ctl) {
        HS_CALL(HS_CUDA_ALLOC(c->step_ctl, 1, "Newton control block"));
        HS_CUDA_CALL(cudaMallocHost((void **)&c->h_step_ctl, sizeof(hs_newton_ctl)));
    }
    if (!c->step_exec || c->step_dt != c->dt) HS_CALL(capture_step(b));
    HS_CUDA_CALL(cudaEventRecord(c->ev_s0, c->s));
    HS_CALL(hs_step_trace_launch(c->trace, c->s));
    HS_CUDA_CALL(cudaGraphLaunch(c->step_exec, c->s));
    HS_CUDA_CALL(cudaEventRecord(c->ev_s1, c->s));
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    HS_CALL(hs_step_trace_collect(c->trace, c->s));
    c->t.solve += 1e-3 * elapsed_ms(c->ev_s0, c->ev_s1); /* the whole Newton loop: not split by phase */
    c->k_stale = c->split; /* the loop ends with an assembly (its tangent formed only if a solve followed) */
    const hs_newton_ctl *h = c->h_step_ctl;
    out->stop = h->stop;
    out->k = h->k;
    out->solves = h->solves;
    out->cg_iters = h->cg_iters;
    out->cg_iters_max = h->cg_iters_max;
    out->res = h->res;
    out->upd = h->upd;
    out->res_node = h->res_node;
    out->res_before = h->res_before;
    out->node_before = h->node_before;
    out->n_hist = h->n_hist;
    for (int k = 0; k < h->n_hist && k < 32; ++k) out->res_hist[k] = h->hist[k];
    if (h->solves > 0) hs_gpu_cg_result_of(&h->cg, &out->cg);
    if (h->solves > 0 && out->cg.fallback_iter > 0) /* the last solve's; as graph.cu says it */
        hs_warn("s-step CG (solver.cg_s = %d): the Krylov basis lost its rank after %d iterations; the solve "
                "continued with Chronopoulos-Gear CG from the current iterate",
                b->prob->opt.cg.s, out->cg.fallback_iter);
    if (h->stop == HS_NEWTON_ELEMENT) return hs_cu_element_error(b, h->bad_elem);
    return HS_OK;
}
