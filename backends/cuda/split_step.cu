/*
 * The splitting scheme's steps up to the next output event as one CUDA graph (issue 28;
 * hs_backend_ops.steps_device under solver.scheme = "splitting", solver.step = "graph"): the steps the
 * step driver (sim/step_driver.c) asks for, with no host synchronisation between them.
 *
 *   init (j = 0, no failure, the reaction flag cleared)
 *   WHILE (the condition k_split_end sets) {
 *     [node current (k_split_stim)], reaction (nodal.cu, saving the step's start), the diffusion's
 *     start (split.cu: r0 = C u* - A g, B u*, the norms), the CG (its own WHILE node, or the
 *     persistent kernel), [Strang: u = u* + g + d, node current, second reaction], k_split_end
 *     (Godunov: u = u* + g + d in it)
 *   }
 *   the control block (steps done, failure, CG iterations per step) to pinned memory
 *
 * What changes from step to step is read from the device, not baked into the graph: the host fills one
 * row per step before the launch (the step's start time, the guess's weights hs_split_guess_weights
 * as the history will be then, each reaction's substep length and count and its sites' currents:
 * hs_split_reaction_inputs, the function hs_split_step itself calls), row 0 is the current step's,
 * and k_split_end's last block copies the next step's row there. So every kernel sees the numbers
 * the one-step path (split.cu's ops from fem/splitting.c's hs_split_step) passes as arguments, and
 * the arithmetic is the same, kernel for kernel: the same bits. Two graphs: a launch in which every
 * site is off (most of a run) takes the one without the node current, as hs_cu_react does then; in
 * the other one kernel over the stimulated nodes writes each of them every step (the sums of
 * hs_nodal_stimulus in site order, 0 while no site is on) and the reaction reads it, where the
 * one-step path reads none in a step with every site off: u += h (f + 0) is u += h f.
 *
 * k_split_end is the one-step path's failure test (the reactions' flag, the CG's status, the norms'
 * finiteness: hs_split_step's) and its end_step (read-outs, the guess's history d_2 = d_1,
 * d_1 = the step's correction); a failed step leaves both alone, stops the loop and keeps its index,
 * and the host puts the backend back at that step's start (restore_step: phi_n and the variables the
 * step's first reaction saved), so the step driver runs it again on the one-step path, which fails
 * the same way and names it (or retries it: solver.dt_retry).
 *
 * Latency (docs/benchmarks.md, "N splitting steps per launch"): a graph's kernel node costs ~2-3 us
 * of launch latency at 50K nodes, where every kernel's work is ~1-5 us; a Godunov step is 8 nodes
 * (reaction, 2-3 SpMVs and a guess for the diffusion's start, 2 norm kernels, end) plus the CG (1.5
 * iterations at cg_tol 1e-5: one persistent-CG node of ~15-20 us), ~35-45 us, against ~107 us with
 * a host synchronisation per step. A persistent cooperative kernel for the whole
 * step would need ~6 grid barriers (~2-3 us each) plus the CG's, ~30-40 us, but holds the model's ODEs
 * in the same registers as the CG (ORd's reaction takes 255) and only CSR: not built.
 */
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "hs_nodal.cuh"
#include "hs_readout.h"
#include "hs_split.cuh"
#include "hs_splitting.h"
#include "hs_util.h"

namespace {

constexpr int kNone = 0x7f7f7f7f; /* the reaction flag's "no node" (split.cu) */

struct hs_split_ctl {
    int j;           /* the current step: the steps done when the loop stops */
    int n;           /* the steps asked */
    int failed;      /* 1: step j failed */
    unsigned ticket; /* k_split_end's last-block counter (0 between kernels) */
    int iters[HS_STEPS_DEVICE_MAX]; /* CG iterations of each step */
    double res[HS_STEPS_DEVICE_MAX]; /* its final residual relative to ||B u*|| (hs_cu_split_result's) */
};

} // namespace

struct hs_cu_split_launch {
    hs_cu_split_rows r;  /* the steps' rows and the stimulated nodes (hs_split.cuh) */
    hs_split_ctl *ctl, *h_ctl; /* h_ pinned */
    double *vdev;        /* the model's parameters (hs_nodal_launch.vdev): the substep loop reads them here */
    cudaGraphExec_t exec[2]; /* [with the node current]: a launch in which every site is off reads none */
};

namespace {

/* stim[node] = sum over the node's sites (in site order) of amp_k w_k, the sums of hs_nodal_stimulus
 * (0 + a w is a w: the host's bits), for every stimulated node */
__global__ void k_split_stim(int32_t m, const int32_t *__restrict__ unode, const int32_t *__restrict__ uptr,
                             const int32_t *__restrict__ usite, const double *__restrict__ uw,
                             const double *__restrict__ amp, double *__restrict__ stim)
{
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < m; i += gridDim.x * blockDim.x) {
        double s = 0.0;
        for (int32_t q = uptr[i]; q < uptr[i + 1]; ++q) {
            const double a = amp[usite[q]];
            if (a != 0.0) s = __dadd_rn(s, __dmul_rn(a, uw[q])); /* no contraction: the host's bits */
        }
        stim[unode[i]] = s;
    }
}

__global__ void k_split_launch_init(hs_split_ctl *ctl, int *bad)
{
    ctl->j = 0;
    ctl->failed = 0;
    ctl->ticket = 0;
    *bad = kNone;
}

/* The end of step j = ctl->j: hs_split_step's failure test, then (passed) the update u = u* + g + d
 * when @p du is given (Godunov: k_split_apply's arithmetic, fused here; Strang applied it before its
 * second reaction), end_step's read-outs and the guess's history (d_2 = d_1, d_1 = the step's
 * correction g + d); the last block to finish records the step, moves to the next (its row into row
 * 0, the reaction flag cleared) and sets the loop's condition. A failed step changes nothing here: the
 * host restores its start. */
__global__ void k_split_end(int32_t n, hs_split_ctl *ctl, double *__restrict__ cur, const double *__restrict__ rows,
                            int stride, int *bad, const hs_gpu_cg_scalars *cg, const double *norms,
                            const double *__restrict__ du, const double *__restrict__ g, const double *__restrict__ phin,
                            double *__restrict__ phi, double *__restrict__ act, double thr, double thr_rep,
                            double *__restrict__ d1, double *__restrict__ d2, cudaGraphConditionalHandle h)
{
    __shared__ int last, next;
    const int ok = *bad == kNone && cg->status == HS_GPU_CG_CONV && isfinite(norms[0]) && isfinite(norms[1]);
    if (ok) {
        const double t_prev = cur[HS_SROW_TPREV], dt_ms = cur[HS_SROW_DTMS];
        for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
            double z = phi[i], corr = g ? g[i] : 0.0;
            if (du) { /* k_split_apply: u += dd, the correction dd = d (+ g) */
                corr = g ? du[i] + g[i] : du[i];
                z += corr;
                phi[i] = z;
            }
            hs_readout_update(phin[i], z, thr, thr_rep, t_prev, dt_ms, act + i, act + n + i, act + 2 * (int64_t)n + i,
                              act + 3 * (int64_t)n + i);
            if (d1) { /* end_step: d_1 -> d_2, the step's correction -> d_1 */
                d2[i] = d1[i];
                d1[i] = corr;
            }
        }
    }
    __syncthreads(); /* this block is done with row 0 */
    if (threadIdx.x == 0) {
        __threadfence();
        last = atomicAdd(&ctl->ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    if (threadIdx.x == 0) {
        ctl->ticket = 0;
        const int j = ctl->j;
        int go = 0;
        if (ok) {
            ctl->iters[j] = cg->iters;
            ctl->res[j] = (cg->bb > 0 ? sqrt(cg->rr / cg->bb) : 0.0) * sqrt(norms[0]) /
                          (norms[1] > 0.0 ? sqrt(norms[1]) : 1.0);
            ctl->j = j + 1;
            go = j + 1 < ctl->n;
            *bad = kNone;
        } else {
            ctl->failed = 1;
        }
        next = go ? j + 1 : -1;
        cudaGraphSetConditional(h, go);
    }
    __syncthreads();
    if (next >= 0)
        for (int q = threadIdx.x; q < stride; q += blockDim.x) cur[q] = rows[(size_t)(1 + next) * stride + q];
}

/* the stimulated nodes and their (site, share) entries in site order, from hs_nodal's per-site lists;
 * each node's index among them (sidx: the persistent kernel's reaction forms a node's current itself) */
hs_status build_stim(cuda_impl *c, const hs_nodal *nd, hs_cu_split_launch *L)
{
    const int32_t n_ent = nd->stim_ptr[nd->n_sites], nn = c->nn;
    L->r.m = 0;
    if (n_ent == 0) return HS_OK;
    int32_t *cnt = (int32_t *)calloc((size_t)nn + 1, sizeof(int32_t));
    int32_t *unode = (int32_t *)malloc(sizeof(int32_t) * (size_t)n_ent);
    int32_t *uptr = (int32_t *)malloc(sizeof(int32_t) * ((size_t)n_ent + 1));
    int32_t *usite = (int32_t *)malloc(sizeof(int32_t) * (size_t)n_ent);
    double *uw = (double *)malloc(sizeof(double) * (size_t)n_ent);
    int32_t *pos = (int32_t *)malloc(sizeof(int32_t) * (size_t)nn);
    hs_status st = HS_OK;
    if (!cnt || !unode || !uptr || !usite || !uw || !pos) st = HS_FAIL(HS_ERR_MEMORY, "splitting launch: out of memory");
    if (st == HS_OK) {
        for (int32_t q = 0; q < n_ent; ++q) cnt[nd->stim_node[q]]++;
        int32_t m = 0;
        uptr[0] = 0;
        for (int32_t i = 0; i < nn; ++i) /* distinct nodes in increasing order; pos: the next free entry */
            if (cnt[i] > 0) {
                unode[m] = i;
                pos[i] = uptr[m];
                uptr[m + 1] = uptr[m] + cnt[i];
                ++m;
            }
        for (int k = 0; k < nd->n_sites; ++k) /* site order within each node */
            for (int32_t q = nd->stim_ptr[k]; q < nd->stim_ptr[k + 1]; ++q) {
                const int32_t e = pos[nd->stim_node[q]]++;
                usite[e] = k;
                uw[e] = nd->stim_w[q];
            }
        L->r.m = m;
        for (int32_t i = 0; i < nn; ++i) pos[i] = -1; /* now each node's index in unode */
        for (int32_t u = 0; u < m; ++u) pos[unode[u]] = u;
        st = upload(&L->r.unode, unode, (size_t)m, "stimulated nodes");
        if (st == HS_OK) st = upload(&L->r.sidx, pos, (size_t)nn, "stimulated nodes' indices");
        if (st == HS_OK) st = upload(&L->r.uptr, uptr, (size_t)m + 1, "stimulated nodes' entries");
        if (st == HS_OK) st = upload(&L->r.usite, usite, (size_t)n_ent, "stimulated nodes' sites");
        if (st == HS_OK) st = upload(&L->r.uw, uw, (size_t)n_ent, "stimulated nodes' shares");
    }
    free(cnt), free(unode), free(uptr), free(usite), free(uw), free(pos);
    return st;
}

hs_status launch_setup(hs_backend *b)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    hs_cu_split *sp = c->sp;
    hs_cu_split_launch *L = (hs_cu_split_launch *)calloc(1, sizeof *L);
    HS_CHECK(L, HS_ERR_MEMORY, "splitting launch: out of memory");
    sp->launch = L;
    L->r.ns = b->prob->nodal->n_sites;
    L->r.stride = HS_SROW_AMP + 2 * L->r.ns;
    HS_CALL(build_stim(c, b->prob->nodal, L));
    HS_CALL(upload(&L->vdev, b->prob->opt.model_prm.v, (size_t)HS_MODEL_MAX_PARAMS, "the model's parameters"));
    const size_t rows = (size_t)(HS_STEPS_DEVICE_MAX + 1) * L->r.stride;
    HS_CALL(HS_CUDA_ALLOC(L->r.rows, rows, "splitting steps' rows"));
    HS_CUDA_CALL(cudaMallocHost((void **)&L->r.h_rows, sizeof(double) * rows));
    memset(L->r.h_rows, 0, sizeof(double) * rows);
    HS_CALL(hs_cuda_alloc_((void **)&L->ctl, sizeof(hs_split_ctl), "splitting launch control", __FILE__, __LINE__));
    HS_CUDA_CALL(cudaMallocHost((void **)&L->h_ctl, sizeof(hs_split_ctl)));
    memset(L->h_ctl, 0, sizeof(hs_split_ctl));
    /* the uploads above (cudaMemcpy from pageable memory: staged, not necessarily landed, when it returns)
     * are read by the launches on the non-blocking c->s, which does not wait for the legacy stream */
    HS_CUDA_CALL(cudaDeviceSynchronize());
    return HS_OK;
}

/* one reaction inside the graph: the node current from the row's currents at @p amp (@p stim: else
 * none, as hs_cu_react while every site is off), the substep from @p hn; @p save: the step's first
 * (it saves phi_n and the variables, as hs_cu_react does) */
hs_status enqueue_react(hs_backend *b, int stim, const double *amp, const double *hn, int save)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    hs_cu_split *sp = c->sp;
    hs_cu_split_launch *L = sp->launch;
    stim = stim && L->r.m > 0;
    if (stim) {
        const hs_cu_split_rows *R = &L->r;
        k_split_stim<<<nblocks(R->m, 256), 256, 0, c->s>>>(R->m, R->unode, R->uptr, R->usite, R->uw, amp, sp->stim);
        HS_CUDA_LAUNCH_CHECK("k_split_stim");
    }
    hs_nodal_launch a = {c->nn,    c->nn,      &b->prob->opt.model_prm,  sp->ntab ? c->rtab : nullptr,
                         sp->ntab, sp->frozen, 0.0,                      1,
                         c->phi,   c->ipv,     stim ? sp->stim : nullptr,  save ? c->phin : nullptr,
                         save && c->nv > 0 ? c->ipv_n : nullptr,           sp->bad, hn,
                         L->vdev};
    return hs_cu_launch_nodal(&a, c->s);
}

/* the body of the WHILE node: one whole step */
hs_status enqueue_step(hs_backend *b, int stim, cudaGraphConditionalHandle h)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    hs_cu_split *sp = c->sp;
    hs_cu_split_launch *L = sp->launch;
    const hs_problem_opts *o = &b->prob->opt;
    double *cur = L->r.rows;
    HS_CALL(enqueue_react(b, stim, cur + HS_SROW_AMP, cur + HS_SROW_H1, 1));
    HS_CALL(hs_cu_split_start(c, cur + HS_SROW_W0));
    hs_gpu_cg_tol t = hs_cu_split_tol(b);
    HS_CALL(hs_gpu_cg_capture_solve(c->cg, c->rhs, c->du, &t, c->s));
    const int strang = o->scheme.order == HS_SPLIT_STRANG;
    if (strang) { /* the update before the second reaction; Godunov's is k_split_end's */
        HS_CALL(hs_cu_split_apply(c, c->cg->d_sc, 0));
        HS_CALL(enqueue_react(b, stim, cur + HS_SROW_AMP + L->r.ns, cur + HS_SROW_H2, 0));
    }
    const int nb = nblocks(c->nn, 256);
    k_split_end<<<nb, 256, 0, c->s>>>(c->nn, L->ctl, cur, L->r.rows, L->r.stride, sp->bad, c->cg->d_sc, sp->norms,
                                      strang ? nullptr : c->du, sp->guess ? sp->g : nullptr, c->phin, c->phi, c->act,
                                      o->activation_phi, o->repol_phi, sp->guess ? c->ph1 : nullptr,
                                      sp->guess ? c->ph2 : nullptr, h);
    HS_CUDA_LAUNCH_CHECK("k_split_end");
    return HS_OK;
}

/* init -> WHILE { step } -> the control block to the host, as step_graph.cu builds its Newton loop;
 * @p stim: with the node current (L->exec[stim]) */
hs_status capture(hs_backend *b, int stim)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    hs_cu_split_launch *L = c->sp->launch;
    cudaGraph_t g = nullptr, body = nullptr;
    HS_CUDA_CALL(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle h;
    hs_status st = HS_OK;
    if (cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault) != cudaSuccess)
        st = HS_FAIL(HS_ERR_DEVICE, "splitting steps as one graph: cannot create the loop's condition");
    if (st == HS_OK &&
        cudaStreamBeginCaptureToGraph(c->s, g, nullptr, nullptr, 0, cudaStreamCaptureModeThreadLocal) != cudaSuccess)
        st = HS_FAIL(HS_ERR_DEVICE, "splitting steps as one graph: cannot capture");
    else if (st == HS_OK) {
        k_split_launch_init<<<1, 1, 0, c->s>>>(L->ctl, c->sp->bad);
        if (cudaGetLastError() != cudaSuccess) st = HS_FAIL(HS_ERR_DEVICE, "splitting steps: k_split_launch_init");
        cudaStreamCaptureStatus cs;
        const cudaGraphNode_t *deps = nullptr;
        size_t n_deps = 0;
        if (st == HS_OK && cudaStreamGetCaptureInfo(c->s, &cs, nullptr, nullptr, &deps, nullptr, &n_deps) != cudaSuccess)
            st = HS_FAIL(HS_ERR_DEVICE, "splitting steps as one graph: capture info");
        if (st == HS_OK) {
            cudaGraphNodeParams np = {};
            np.type = cudaGraphNodeTypeConditional;
            np.conditional.handle = h;
            np.conditional.type = cudaGraphCondTypeWhile;
            np.conditional.size = 1;
            cudaGraphNode_t node;
            cudaError_t e = cudaGraphAddNode(&node, g, deps, nullptr, n_deps, &np);
            if (e == cudaSuccess)
                e = cudaStreamUpdateCaptureDependencies(c->s, &node, nullptr, 1, cudaStreamSetCaptureDependencies);
            if (e != cudaSuccess)
                st = HS_FAIL(HS_ERR_DEVICE, "splitting steps as one graph: the WHILE node: %s", cudaGetErrorString(e));
            else body = np.conditional.phGraph_out[0];
        }
        if (st == HS_OK && cudaMemcpyAsync(L->h_ctl, L->ctl, sizeof(hs_split_ctl), cudaMemcpyDeviceToHost, c->s) !=
                               cudaSuccess)
            st = HS_FAIL(HS_ERR_DEVICE, "splitting steps as one graph: capturing the control block's copy failed");
        cudaGraph_t out = nullptr;
        cudaError_t e = cudaStreamEndCapture(c->s, &out);
        if (st == HS_OK && e != cudaSuccess)
            st = HS_FAIL(HS_ERR_DEVICE, "splitting steps as one graph: capture failed: %s", cudaGetErrorString(e));
    }
    if (st == HS_OK &&
        cudaStreamBeginCaptureToGraph(c->s, body, nullptr, nullptr, 0, cudaStreamCaptureModeThreadLocal) != cudaSuccess)
        st = HS_FAIL(HS_ERR_DEVICE, "splitting steps as one graph: cannot capture the step");
    else if (st == HS_OK) {
        st = enqueue_step(b, stim, h);
        cudaGraph_t out = nullptr;
        cudaError_t e = cudaStreamEndCapture(c->s, &out);
        if (st == HS_OK && e != cudaSuccess)
            st = HS_FAIL(HS_ERR_DEVICE, "splitting steps as one graph: capture of the step failed: %s",
                         cudaGetErrorString(e));
    }
    if (st == HS_OK) {
        cudaError_t e = cudaGraphInstantiate(&L->exec[stim], g, 0);
        if (e != cudaSuccess) {
            L->exec[stim] = nullptr;
            st = HS_FAIL(HS_ERR_DEVICE, "splitting steps as one graph: instantiation failed: %s", cudaGetErrorString(e));
        }
    }
    cudaGraphDestroy(g);
    return st;
}

/* the rows of steps k0 .. k0+n-1 (row 1 + j; row 0 = step k0's): the numbers hs_split_step would pass;
 * returns whether a site is on in any of them */
int fill_rows(hs_backend *b, long k0, double dt_ms, int n)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    hs_cu_split_launch *L = c->sp->launch;
    const hs_problem *p = b->prob;
    const hs_scheme_opts *so = &p->opt.scheme;
    const double dt = dt_ms / p->opt.time_unit; /* as hs_split_step passes it to diffuse and begin_step */
    hs_extrap ex = c->ex;                      /* the history as end_step will advance it */
    int on = 0;
    for (int j = 0; j < n; ++j) {
        double *r = L->r.h_rows + (size_t)(1 + j) * L->r.stride;
        const double t = (k0 + j) * dt_ms, t_half = hs_split_t_half(so, t, dt_ms);
        double h = 0.0;
        r[HS_SROW_TPREV] = t;
        r[HS_SROW_DTMS] = dt_ms;
        const int n1 = hs_split_reaction_inputs(p, t, t_half, r + HS_SROW_AMP, &h);
        r[HS_SROW_H1] = h / n1; /* hs_cu_react's substep */
        r[HS_SROW_N1] = n1;
        r[HS_SROW_H2] = r[HS_SROW_N2] = 0.0;
        if (so->order == HS_SPLIT_STRANG) {
            const int n2 = hs_split_reaction_inputs(p, t_half, t + dt_ms, r + HS_SROW_AMP + L->r.ns, &h);
            r[HS_SROW_H2] = h / n2;
            r[HS_SROW_N2] = n2;
        }
        r[HS_SROW_W0] = r[HS_SROW_W1] = 0.0;
        if (c->sp->guess) {
            hs_split_guess_weights(&ex, dt, r + HS_SROW_W0);
            hs_extrap_accept(&ex, dt);
        }
        for (int k = 0; k < 2 * L->r.ns; ++k) on |= r[HS_SROW_AMP + k] != 0.0;
    }
    memcpy(L->r.h_rows, L->r.h_rows + L->r.stride, sizeof(double) * (size_t)L->r.stride);
    return on;
}

} // namespace

void hs_cu_split_launch_free(hs_cu_split *sp)
{
    hs_cu_split_launch *L = sp->launch;
    if (!L) return;
    for (int q = 0; q < 2; ++q)
        if (L->exec[q]) cudaGraphExecDestroy(L->exec[q]);
    cudaFree(L->r.unode);
    cudaFree(L->r.uptr);
    cudaFree(L->r.usite);
    cudaFree(L->r.uw);
    cudaFree(L->r.sidx);
    cudaFree(L->r.rows);
    cudaFree(L->ctl);
    cudaFree(L->vdev);
    cudaFreeHost(L->r.h_rows);
    cudaFreeHost(L->h_ctl);
    free(L);
    sp->launch = nullptr;
}

hs_status hs_cu_split_launch_begin(hs_backend *b, long k0, double dt_ms, int n, const hs_cu_split_rows **rows,
                                   int *stim)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    hs_cu_split *sp = c->sp;
    const hs_problem_opts *o = &b->prob->opt;
    HS_CHECK(sp && n >= 1 && n <= HS_STEPS_DEVICE_MAX, HS_ERR_INTERNAL, "splitting steps: %d steps per launch", n);
    HS_CHECK(!c->gpc, HS_ERR_CONFIG, "solver.step = \"%s\" under solver.scheme = \"splitting\" runs Jacobi-CG "
             "on the device, not solver.precond = \"%s\" with solver.krylov = \"%s\"; use solver.step = \"kernels\"",
             hs_step_mode_name(o->exec.step), hs_precond_name(o->pc.precond), hs_krylov_name(o->pc.krylov));
    HS_CHECK(!sp->react_pending && !c->start_pending, HS_ERR_INTERNAL, "splitting steps: a step of the ops is open");
    const double dt = dt_ms / o->time_unit;
    if (!(sp->dt == dt)) {
        const double t0 = hs_wtime();
        HS_CALL(hs_cu_split_assemble(b, dt)); /* the values in place: the launches read them there */
        c->t.assembly += hs_wtime() - t0;
    }
    if (!sp->launch) HS_CALL(launch_setup(b));
    hs_cu_split_launch *L = sp->launch;
    *stim = fill_rows(b, k0, dt_ms, n);
    *rows = &L->r;
    return HS_OK;
}

hs_status hs_cu_split_launch_end(hs_backend *b, double dt_ms, int n, int j, int failed, const int *iters,
                                 const double *res, int *done, hs_step_stats *stats)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    hs_cu_split *sp = c->sp;
    const double dt = dt_ms / b->prob->opt.time_unit;
    c->dt = dt;
    HS_CHECK(j >= 0 && j <= n && (j == n) != (failed != 0), HS_ERR_INTERNAL,
             "splitting steps: the launch of %d steps reports %d done, failed %d", n, j, failed);
    for (int q = 0; q < j; ++q) {
        memset(&stats[q], 0, sizeof stats[q]);
        stats[q].newton_iters = 1;
        stats[q].cg_iters = stats[q].cg_iters_max = iters[q];
        stats[q].res_norm = res[q];
        if (sp->guess) hs_extrap_accept(&c->ex, dt); /* end_step's, as the device did */
    }
    *done = j;
    if (j < n) HS_CALL(hs_cu_restore_step(b)); /* the failed step's start: phi_n, the variables */
    return HS_OK;
}

hs_status hs_cu_split_steps(hs_backend *b, long k0, double dt_ms, int n, int *done, hs_step_stats *stats)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    *done = 0;
    if (b->prob->opt.exec.step == HS_STEP_PERSISTENT) return hs_cu_split_persist_steps(b, k0, dt_ms, n, done, stats);
    const hs_cu_split_rows *rows = nullptr;
    int stim = 0;
    HS_CALL(hs_cu_split_launch_begin(b, k0, dt_ms, n, &rows, &stim));
    hs_cu_split_launch *L = c->sp->launch;
    if (!L->exec[stim]) HS_CALL(capture(b, stim));
    HS_CUDA_CALL(cudaMemcpyAsync(rows->rows, rows->h_rows, sizeof(double) * (size_t)(n + 1) * rows->stride,
                                 cudaMemcpyHostToDevice, c->s));
    /* the loop's bound: the graph reads it from the control block (init leaves n alone); h_ctl is free,
     * the last launch's copy into it has completed */
    L->h_ctl->n = n;
    HS_CUDA_CALL(cudaMemcpyAsync(&L->ctl->n, &L->h_ctl->n, sizeof(int), cudaMemcpyHostToDevice, c->s));
    HS_CUDA_CALL(cudaEventRecord(c->ev_s0, c->s));
    HS_CUDA_CALL(cudaGraphLaunch(L->exec[stim], c->s));
    HS_CUDA_CALL(cudaEventRecord(c->ev_s1, c->s));
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    c->t.solve += 1e-3 * elapsed_ms(c->ev_s0, c->ev_s1); /* the whole steps: not split by phase */
    const hs_split_ctl *hc = L->h_ctl;
    return hs_cu_split_launch_end(b, dt_ms, n, hc->j, hc->failed, hc->iters, hc->res, done, stats);
}
