/*
 * The splitting scheme's steps up to the next output event as ONE cooperative kernel (issue 28;
 * hs_backend_ops.steps_device under solver.scheme = "splitting", solver.step = "persistent"): the
 * graph of split_step.cu without its kernel boundaries. Every block stays resident; the phases of a
 * step are separated by grid barriers, and every decision (the CG's, the failure test) is taken by
 * every block alike from the same fixed-order sums:
 *
 *   per step j (the numbers of row 1 + j, filled by split_step.cu's hs_cu_split_launch_begin: the
 *   substeps, the sites' currents, the guess's weights, the start time):
 *   P1  at each node: its current (the sums of k_split_stim, from sidx), the reaction (the nodal
 *       kernel's arithmetic, nodal_ode_ct, saving phi_n and the variables), the guess g = w0 d_1 + w1 d_2
 *   --- barrier
 *   P2  at each row: r0 = C u* - A g, B u* (or m u*), the block partials of ||r0||^2, ||B u*||^2 (the
 *       matrices in CSR order: copies gathered from the format's slots when dt changes)
 *   --- barrier
 *   P3  the norms' totals; the CG A d = r0 to ||r0 - A d|| <= cg_tol ||B u*|| (hs_gpu_cg1.cuh's
 *       one-barrier Chronopoulos-Gear, the device code the persistent CG and the Newton scheme's
 *       persistent step run: its init and iterations each end with a barrier); the failure test
 *       (the first reaction's flag, the CG's status, finite norms: k_split_end's)
 *   P4  Godunov: u = u* + g + d, the read-outs, the guess's history (d_2 = d_1, d_1 = g + d), at each
 *       node (k_split_end's); Strang: u = u* + g + d and the second reaction at each node
 *       --- barrier, its flag tested, then the read-outs and the history
 *
 * P4 and the next step's P1 touch each node from the thread that owns it in both (the same loop), so
 * no barrier separates them: a Godunov step is 2 barriers plus the CG's (1 + iterations).
 *
 * A failed step stops the loop with its index, leaving the guess's history alone; the host restores
 * the step's start (phi_n and the variables P1 saved) and the step driver runs that step again on the
 * one-step path, which fails the same way and names it (or retries it), as after a graph launch.
 *
 * The numbers: the reaction, the node current, the guess, the update and the read-outs are the graph
 * path's arithmetic on the same inputs; the diffusion's start (three CSR products, one row per lane
 * group) and the CG's reductions (this grid's blocks) sum in another order
 * than the graph's SpMV format and CG kernel, so the result is the graph path's up to the solve's
 * rounding: within the CG's tolerance per step (test_gpu_split_persist derives its bound).
 *
 * Which models: the kernel holds the model's ODEs and the CG in one register budget (512 threads per
 * block, 128 registers a thread: step_persistent.cu's measured shape). It is built for the models of
 * at most HS_CUDA_SPLIT_PERSIST_MAX_VARS variables (hs_cuda_policy.h: Aliev-Panfilov, Mitchell-
 * Schaeffer, Bueno-Orovio); the CellML models (18-40 variables, 90-184 registers in the nodal kernel
 * alone) keep the graph, and policy.c refuses them by name.
 */
#include <cooperative_groups.h>

#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "cuda_backend.cuh"
#include "hs_cuda_policy.h"
#include "hs_gpu_cg1.cuh"
#include "hs_nodal_ct.cuh"
#include "hs_readout.h"
#include "hs_split.cuh"
#include "hs_splitting.h"
#include "hs_util.h"

namespace cgrp = cooperative_groups;

namespace {

#ifndef HS_SPLIT_PERSIST_TP /* overridable for benchmarking builds only */
#define HS_SPLIT_PERSIST_TP 512
#endif
constexpr int kTP = HS_SPLIT_PERSIST_TP;
constexpr int kNone = 0x7f7f7f7f; /* the reaction flag's "no node" (split.cu) */

/* What a launch reports (block 0, thread 0), copied to pinned memory. */
struct sp_ctl {
    int done;   /* steps completed */
    int failed; /* 1: step `done` failed */
    int iters[HS_STEPS_DEVICE_MAX];
    double res[HS_STEPS_DEVICE_MAX]; /* the final residual relative to ||B u*|| (hs_cu_split_result's) */
    unsigned long long ns[4]; /* block 0's clock: reaction and guess, the diffusion's start, CG, end of step */
};

struct sp_args {
    double prm[HS_MODELS_MAX_PARAMS]; /* the model's parameters: room for the largest model of the list
                                         (hs_model_sizes.h), as step_persistent.cu's */
    int32_t nn;
    int nsteps, strang, cg_tpr, cg_max;
    double act_thr, rep_thr;
    double cg_tol, forcing, tol_res; /* hs_cu_split_tol's: the CG's tolerance from the norms */
    const hs_region_row *rtab;
    const uint16_t *ntab;
    const uint8_t *frozen;
    const double *mass;
    /* the launch's rows and stimulated nodes (hs_cu_split_rows) */
    const double *rows;
    int stride, ns;
    const int32_t *sidx, *uptr, *usite;
    const double *uw;
    /* the state */
    double *phi, *phin, *ipv, *ipv_n, *act, *d1, *d2, *g;
    /* the diffusion: CSR pattern, C (double), B and A (V) in CSR order, r0 into the CG's b */
    const int32_t *rp, *col;
    const double *cval;
    const void *bval, *aval;
    double *r0;   /* [nn] the CG's right-hand side (cg.b) */
    hs_cg1_ctx cg;
    double *part; /* [3][G] the norms' block partials */
    int *bad;     /* [2] the reactions' flags (the first, Strang's second) */
    sp_ctl *ctl;
};

__device__ __forceinline__ unsigned long long gtimer()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* node i's current: k_split_stim's sums (in site order, no contraction), 0 at a node of no site */
__device__ __forceinline__ double node_current(const sp_args &a, int32_t i, const double *amp)
{
    if (!a.sidx) return 0.0;
    const int32_t u = a.sidx[i];
    if (u < 0) return 0.0;
    double s = 0.0;
    for (int32_t q = a.uptr[u]; q < a.uptr[u + 1]; ++q) {
        const double v = amp[a.usite[q]];
        if (v != 0.0) s = __dadd_rn(s, __dmul_rn(v, a.uw[q]));
    }
    return s;
}

/* one reaction at node i: k_nodal's body (regions, frozen nodes, the start saved when @p save) */
template <int ID>
__device__ __forceinline__ void react_node(const sp_args &a, int32_t i, double stim, double h, int nsub, bool save,
                                           int *bad)
{
    constexpr int NV = model_ct<ID>::nv;
    const int64_t ld = a.nn;
    double ui = a.phi[i];
    double sv[NV > 0 ? NV : 1];
#pragma unroll
    for (int k = 0; k < NV; ++k) sv[k] = a.ipv[(int64_t)k * ld + i];
    if (save) {
        a.phin[i] = ui;
#pragma unroll
        for (int k = 0; k < NV; ++k) a.ipv_n[(int64_t)k * ld + i] = sv[k];
    }
    if (a.frozen && a.frozen[i]) return; /* decoupled: u held, no reaction */
    const double *v = a.prm;
    if (a.ntab) {
        const hs_region_row *row = &a.rtab[a.ntab[i]];
        if (!row->conducting) return; /* a hole: its node stays at rest */
        v = row->prm.v;
    }
    const int ok = nodal_ode_ct<ID>(v, ui, sv, stim, h, nsub);
    if (!ok) atomicMin(bad, (int)i);
    a.phi[i] = ui;
#pragma unroll
    for (int k = 0; k < NV; ++k) a.ipv[(int64_t)k * ld + i] = sv[k];
}

/* P2 at the rows of this thread's group of TPR lanes: r0 = C u* - A g into the CG's b, the norms'
 * block partials. u* and g of the neighbours were written before the barrier that opened the phase:
 * read through L1 (hs_ld_l1, hs_gpu_cg1.cuh says why not __ldg). */
template <typename V, int TPR, int ID>
__device__ __forceinline__ void start_rows(const sp_args &a, double *sh)
{
    const int lane = threadIdx.x % TPR;
    const int64_t share = ((int64_t)a.nn + gridDim.x - 1) / gridDim.x, b0 = (int64_t)blockIdx.x * share;
    const int64_t b1 = b0 + share < a.nn ? b0 + share : a.nn;
    const int64_t g0 = b0 + threadIdx.x / TPR, gs = blockDim.x / TPR;
    const V *bv = static_cast<const V *>(a.bval), *av = static_cast<const V *>(a.aval);
    double rr = 0.0, bb = 0.0;
    for (int64_t i = g0; i < b1; i += gs) {
        const int32_t k0 = __ldg(a.rp + i), k1 = __ldg(a.rp + i + 1);
        double c = 0.0, bu = 0.0, ag = 0.0;
        for (int32_t k = k0 + lane; k < k1; k += TPR) {
            const int32_t j = __ldg(a.col + k);
            const int32_t sl = k;
            const double uj = hs_ld_l1(a.phi + j);
            c += __ldg(a.cval + sl) * uj;
            if (bv) bu += (double)__ldg(bv + sl) * uj;
            if (a.g) ag += (double)hs_ld_l1(av + sl) * hs_ld_l1(a.g + j);
        }
        c = hs_cg1_group_sum<TPR>(c);
        if (bv) bu = hs_cg1_group_sum<TPR>(bu);
        if (a.g) ag = hs_cg1_group_sum<TPR>(ag);
        if (lane == 0) {
            const double r = a.g ? c - ag : c;
            const double ui = a.phi[i];
            const double v = bv ? bu : (a.frozen && a.frozen[i]) ? ui : __dmul_rn(a.mass[i], ui);
            a.r0[i] = r;
            rr += r * r;
            bb += v * v;
        }
    }
    hs_cg1_put3(rr, bb, 0.0, a.part, sh);
}

template <typename V, int TPR, int ID>
__device__ __forceinline__ void solve_tpr(const sp_args &a, double tol, cgrp::grid_group &grid, double *sh,
                                         hs_cg1_out *o)
{
    hs_cg1_solve<V, TPR, true>(a.cg, tol, a.cg_max, grid, sh, o);
}

template <typename V, int ID>
__global__ void __launch_bounds__(kTP, 1) k_split_persist(const __grid_constant__ sp_args a)
{
    cgrp::grid_group grid = cgrp::this_grid();
    __shared__ double sh[99];
    /* each block's share of the nodes, contiguous (every SM works at 50K nodes, where blockDim at a time
     * would leave a quarter of them idle: hs_gpu_cg1.cuh's SHARES; a node's neighbours mostly in the same
     * block's L1), each node always from the same thread: P4 and the next P1 need no barrier */
    const int64_t share = ((int64_t)a.nn + gridDim.x - 1) / gridDim.x, b0 = (int64_t)blockIdx.x * share;
    const int64_t i0 = b0 + threadIdx.x, b1 = b0 + share < a.nn ? b0 + share : a.nn, nth = blockDim.x;
    const bool writer = blockIdx.x == 0 && threadIdx.x == 0;
    unsigned long long ns[4] = {0, 0, 0, 0}, t0 = writer ? gtimer() : 0;
#define HS_MARK(q)                                                                                                     \
    if (writer) {                                                                                                      \
        const unsigned long long t1_ = gtimer();                                                                       \
        ns[q] += t1_ - t0;                                                                                             \
        t0 = t1_;                                                                                                      \
    }
    int done = 0, failed = 0;
    for (int j = 0; j < a.nsteps; ++j) {
        const double *row = a.rows + (size_t)(1 + j) * a.stride;
        /* P1: the node current, the first reaction (saving the step's start), the guess */
        {
            const double h = row[HS_SROW_H1], w0 = row[HS_SROW_W0], w1 = row[HS_SROW_W1];
            const int nsub = (int)row[HS_SROW_N1];
            for (int64_t i = i0; i < b1; i += nth) {
                react_node<ID>(a, (int32_t)i, node_current(a, (int32_t)i, row + HS_SROW_AMP), h, nsub, true,
                               a.bad);
                if (a.g) a.g[i] = w0 != 0.0 ? hs_split_guess_at(w0, w1, a.d1[i], w1 != 0.0 ? a.d2[i] : 0.0) : 0.0;
            }
        }
        grid.sync();
        HS_MARK(0)
        /* P2: the diffusion's start; the first reaction's flag, read by every block before the next barrier */
        const int bad1 = __ldcg(a.bad);
        switch (a.cg_tpr) { /* the same in every block */
        case 8: start_rows<V, 8, ID>(a, sh); break;
        case 4: start_rows<V, 4, ID>(a, sh); break;
        case 2: start_rows<V, 2, ID>(a, sh); break;
        default: start_rows<V, 1, ID>(a, sh);
        }
        grid.sync();
        HS_MARK(1)
        /* P3: the norms, the CG (its tolerance hs_cu_split_tol's: cg_tol ||B u*|| / ||r0|| through
         * hs_cg_forcing_tol, as k_cg1_persistent forms it from the norms) */
        double rr, bb, zz;
        hs_cg1_totals3(a.part, rr, bb, zz, sh);
        if (writer) { /* every block read the flags before the last barrier; the next writes come after this
                       * step's CG (Strang's second) or the next step's P1 */
            a.bad[0] = kNone;
            if (a.strang) a.bad[1] = kNone;
        }
        const double tol = hs_cg_forcing_tol(a.cg_tol, a.forcing, a.tol_res, sqrt(rr) / sqrt(bb));
        hs_cg1_out o;
        switch (a.cg_tpr) {
        case 8: solve_tpr<V, 8, ID>(a, tol, grid, sh, &o); break;
        case 4: solve_tpr<V, 4, ID>(a, tol, grid, sh, &o); break;
        case 2: solve_tpr<V, 2, ID>(a, tol, grid, sh, &o); break;
        default: solve_tpr<V, 1, ID>(a, tol, grid, sh, &o);
        }
        HS_MARK(2)
        if (!(bad1 == kNone && o.status == HS_GPU_CG_CONV && isfinite(rr) && isfinite(bb))) {
            failed = 1;
            break;
        }
        const double t_prev = row[HS_SROW_TPREV], dt_ms = row[HS_SROW_DTMS];
        const double *du = a.cg.x;
        if (!a.strang) { /* P4: k_split_end's update, read-outs and history */
            for (int64_t i = i0; i < b1; i += nth) {
                const double corr = a.g ? du[i] + a.g[i] : du[i];
                const double z = a.phi[i] + corr;
                a.phi[i] = z;
                hs_readout_update(a.phin[i], z, a.act_thr, a.rep_thr, t_prev, dt_ms, a.act + i, a.act + a.nn + i,
                                  a.act + 2 * (int64_t)a.nn + i, a.act + 3 * (int64_t)a.nn + i);
                if (a.d1) {
                    a.d2[i] = a.d1[i];
                    a.d1[i] = corr;
                }
            }
        } else { /* P4: k_split_apply, the second reaction; its flag after a barrier, then k_split_end's rest */
            const double h = row[HS_SROW_H2];
            const int nsub = (int)row[HS_SROW_N2];
            for (int64_t i = i0; i < b1; i += nth) {
                const double dd = a.g ? du[i] + a.g[i] : du[i];
                a.phi[i] += dd;
                if (a.g) a.g[i] = dd;
                react_node<ID>(a, (int32_t)i, node_current(a, (int32_t)i, row + HS_SROW_AMP + a.ns), h, nsub,
                               false, a.bad + 1);
            }
            grid.sync();
            if (__ldcg(a.bad + 1) != kNone) {
                failed = 1;
                break;
            }
            for (int64_t i = i0; i < b1; i += nth) {
                const double corr = a.g ? a.g[i] : 0.0;
                hs_readout_update(a.phin[i], a.phi[i], a.act_thr, a.rep_thr, t_prev, dt_ms, a.act + i,
                                  a.act + a.nn + i, a.act + 2 * (int64_t)a.nn + i, a.act + 3 * (int64_t)a.nn + i);
                if (a.d1) {
                    a.d2[i] = a.d1[i];
                    a.d1[i] = corr;
                }
            }
        }
        if (writer) {
            a.ctl->iters[j] = o.iters;
            a.ctl->res[j] = (o.bb > 0 ? sqrt(o.rr / o.bb) : 0.0) * sqrt(rr) / (bb > 0.0 ? sqrt(bb) : 1.0);
        }
        ++done;
        HS_MARK(3)
    }
#undef HS_MARK
    if (writer) {
        a.ctl->done = done;
        a.ctl->failed = failed;
        for (int q = 0; q < 4; ++q) a.ctl->ns[q] = ns[q];
    }
}

template <int ID>
constexpr bool fits()
{
    return model_ct<ID>::nv <= HS_CUDA_SPLIT_PERSIST_MAX_VARS;
}

template <typename V, int ID>
const void *kernel_of()
{
    if constexpr (fits<ID>()) return (const void *)k_split_persist<V, ID>;
    else return nullptr;
}

/* the kernel of model @p id (NULL: not built for it: more than HS_CUDA_SPLIT_PERSIST_MAX_VARS variables) */
const void *kernel_for(int id, int f32)
{
    switch (id) {
#define HS_MODEL(mid)                                                                                          \
    case HS_MODEL_ID_##mid:                                                                                    \
        return f32 ? kernel_of<float, (int)HS_MODEL_ID_##mid>() : kernel_of<double, (int)HS_MODEL_ID_##mid>();
#include "hs_model_list.h"
#undef HS_MODEL
    default: return nullptr;
    }
}

/* dst[k] = src[slot[k]]: a matrix's values from the format's slots into CSR order */
template <typename V>
__global__ void k_gather_csr(int32_t nnz, const int64_t *__restrict__ slot, const V *__restrict__ src,
                             V *__restrict__ dst)
{
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += (int64_t)gridDim.x * blockDim.x)
        dst[k] = src[slot[k]];
}

} // namespace

/* the persistent kernel's data (hs_cu_split.persist) */
struct hs_cu_split_persist {
    const void *fn;
    int grid, tpr;
    /* A, B and C = B - A gathered into CSR order (nnz each; NULL when the format stores CSR order, or
     * bval for a lumped B): the kernel's products and CG read val[k] instead of val[slot[k]], one
     * dependent load and 8 bytes per nonzero fewer, the same numbers in the same order (the same bits).
     * The splitting's matrices change only with dt (the Newton scheme's tangent changes every
     * iteration, so its persistent step reads the slots); dt: the model dt they hold, NaN: none. */
    double *cval;
    void *bval, *aval;
    double dt;
    double *part;
    int *bad;
    sp_ctl *ctl, *h_ctl; /* h_ pinned */
    unsigned long long ns[4];
    long launches;
};

namespace {

hs_status persist_setup(hs_backend *b)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    hs_cu_split *sp = c->sp;
    const hs_problem_opts *o = &b->prob->opt;
    hs_gpu_cg *cg = c->cg;
    HS_CHECK(cg->persistent && cg->p_barriers == 1 && cg->p_q && c->csr_rp && c->csr_col, HS_ERR_INTERNAL,
             "splitting, persistent: the CG is not the one-barrier persistent kernel");
    const char *no = hs_cuda_split_persist_refusal(o);
    HS_CHECK(!no, HS_ERR_CONFIG, "solver.step = \"persistent\": %s", no);
    hs_cu_split_persist *P = (hs_cu_split_persist *)calloc(1, sizeof *P);
    HS_CHECK(P, HS_ERR_MEMORY, "splitting, persistent: out of memory");
    sp->persist = P;
    P->fn = kernel_for((int)o->model_prm.id, c->f32);
    HS_CHECK(P->fn, HS_ERR_INTERNAL, "splitting, persistent: no kernel for model id %d", (int)o->model_prm.id);
    int dev = 0, sms = 0, per_sm = 0, coop = 0;
    HS_CUDA_CALL(cudaGetDevice(&dev));
    HS_CUDA_CALL(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    HS_CUDA_CALL(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    HS_CHECK(coop, HS_ERR_DEVICE, "solver.step = \"persistent\": this GPU cannot launch cooperative kernels");
    HS_CUDA_CALL(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, P->fn, kTP, 0));
    HS_CHECK(per_sm > 0, HS_ERR_DEVICE, "solver.step = \"persistent\": the splitting kernel cannot be resident");
    cudaFuncAttributes fa;
    HS_CUDA_CALL(cudaFuncGetAttributes(&fa, P->fn));
    /* one block per SM (step_persistent.cu's measured shape: the barrier's arrivals, the registers) */
    int64_t g = sms;
    if (g > HS_CG1_MAXG) g = HS_CG1_MAXG;
    P->grid = (int)g;
    /* the lanes per row of the diffusion's start and of the CG: as step_persistent.cu's */
    int tpr = 1;
    while (tpr < 8 && (int64_t)c->nn * tpr * 2 <= g * kTP) tpr *= 2;
    const char *et = getenv("HS_SPLIT_PERSIST_TPR"); /* benchmarking only (docs/benchmarks.md) */
    if (et && (atoi(et) == 1 || atoi(et) == 2 || atoi(et) == 4 || atoi(et) == 8)) tpr = atoi(et);
    P->tpr = tpr;
    HS_CALL(HS_CUDA_ALLOC(P->part, 3 * HS_CG1_MAXG, "splitting kernel's norm partials"));
    P->dt = NAN;
    if (c->slot) { /* the matrices in CSR order (hs_cu_split_persist) */
        const size_t w = c->f32 ? sizeof(float) : sizeof(double);
        HS_CALL(HS_CUDA_ALLOC(P->cval, (size_t)c->nnz, "diffusion matrix B - A in CSR order"));
        HS_CALL(hs_cuda_alloc_(&P->aval, w * (size_t)c->nnz, "diffusion matrix in CSR order", __FILE__, __LINE__));
        if (!sp->lumped_b)
            HS_CALL(hs_cuda_alloc_(&P->bval, w * (size_t)c->nnz, "right-hand-side matrix in CSR order", __FILE__,
                                   __LINE__));
    }
    HS_CALL(HS_CUDA_ALLOC(P->bad, 2, "splitting kernel's reaction flags"));
    HS_CALL(hs_cuda_alloc_((void **)&P->ctl, sizeof(sp_ctl), "splitting kernel's control", __FILE__, __LINE__));
    HS_CUDA_CALL(cudaMallocHost((void **)&P->h_ctl, sizeof(sp_ctl)));
    memset(P->h_ctl, 0, sizeof(sp_ctl));
    hs_log(1, "splitting, persistent: %d blocks of %d threads, %d registers a thread, %zu bytes of local memory "
              "(spills), the CG and the diffusion's start %d lanes per row\n", P->grid, kTP, fa.numRegs,
           (size_t)fa.localSizeBytes, tpr);
    return HS_OK;
}

} // namespace

void hs_cu_split_persist_free(hs_cu_split *sp)
{
    hs_cu_split_persist *P = sp->persist;
    if (!P) return;
    if (P->launches > 0)
        hs_log(1, "splitting, persistent: %ld launches of %d x %d threads (%d lanes per row); inside them (block 0's "
                  "clock) reaction and guess %.3f s, the diffusion's start %.3f s, CG %.3f s, end of steps %.3f s\n",
               P->launches, P->grid, kTP, P->tpr, 1e-9 * P->ns[0], 1e-9 * P->ns[1], 1e-9 * P->ns[2], 1e-9 * P->ns[3]);
    cudaFree(P->cval);
    cudaFree(P->bval);
    cudaFree(P->aval);
    cudaFree(P->part);
    cudaFree(P->bad);
    cudaFree(P->ctl);
    cudaFreeHost(P->h_ctl);
    free(P);
    sp->persist = nullptr;
}

hs_status hs_cu_split_persist_steps(hs_backend *b, long k0, double dt_ms, int n, int *done, hs_step_stats *stats)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    hs_cu_split *sp = c->sp;
    const hs_problem_opts *o = &b->prob->opt;
    *done = 0;
    const hs_cu_split_rows *R = nullptr;
    int stim = 0;
    HS_CALL(hs_cu_split_launch_begin(b, k0, dt_ms, n, &R, &stim));
    if (!sp->persist) HS_CALL(persist_setup(b));
    hs_cu_split_persist *P = sp->persist;
    if (c->slot && !(P->dt == sp->dt)) { /* the matrices of this dt into CSR order */
        const int nb = nblocks(c->nnz, 256);
        k_gather_csr<double><<<nb, 256, 0, c->s>>>(c->nnz, c->slot, sp->cval, P->cval);
        if (c->f32) {
            k_gather_csr<float><<<nb, 256, 0, c->s>>>(c->nnz, c->slot, c->kval32, (float *)P->aval);
            if (P->bval) k_gather_csr<float><<<nb, 256, 0, c->s>>>(c->nnz, c->slot, (const float *)sp->bval,
                                                                  (float *)P->bval);
        } else {
            k_gather_csr<double><<<nb, 256, 0, c->s>>>(c->nnz, c->slot, c->kval, (double *)P->aval);
            if (P->bval) k_gather_csr<double><<<nb, 256, 0, c->s>>>(c->nnz, c->slot, (const double *)sp->bval,
                                                                   (double *)P->bval);
        }
        HS_CUDA_LAUNCH_CHECK("k_gather_csr");
        P->dt = sp->dt;
    }
    const bool csr = c->slot != nullptr; /* the kernel reads the CSR-ordered copies */
    hs_gpu_cg *cg = c->cg;
    sp_args a;
    memset(&a, 0, sizeof a);
    static_assert(sizeof a.prm <= sizeof o->model_prm.v, "the argument block holds a prefix of the parameters");
    memcpy(a.prm, o->model_prm.v, sizeof a.prm);
    a.nn = c->nn;
    a.nsteps = n;
    a.strang = o->scheme.order == HS_SPLIT_STRANG;
    a.cg_tpr = P->tpr;
    a.act_thr = o->activation_phi;
    a.rep_thr = o->repol_phi;
    const hs_gpu_cg_tol t = hs_cu_split_tol(b);
    a.cg_tol = t.cg_tol;
    a.forcing = t.forcing;
    a.tol_res = t.tol_res;
    a.cg_max = t.max_iter;
    a.rtab = sp->ntab ? c->rtab : nullptr;
    a.ntab = sp->ntab;
    a.frozen = sp->frozen;
    a.mass = sp->mass;
    a.rows = R->rows;
    a.stride = R->stride;
    a.ns = R->ns;
    a.sidx = stim && R->m > 0 ? R->sidx : nullptr; /* a launch with every site off reads no current */
    a.uptr = R->uptr;
    a.usite = R->usite;
    a.uw = R->uw;
    a.phi = c->phi;
    a.phin = c->phin;
    a.ipv = c->ipv;
    a.ipv_n = c->nv > 0 ? c->ipv_n : nullptr;
    a.act = c->act;
    a.d1 = sp->guess ? c->ph1 : nullptr;
    a.d2 = sp->guess ? c->ph2 : nullptr;
    a.g = sp->guess ? sp->g : nullptr;
    a.rp = c->csr_rp;
    a.col = c->csr_col;
    a.cval = csr ? P->cval : sp->cval;
    a.bval = sp->lumped_b ? nullptr : csr ? P->bval : sp->bval;
    a.aval = csr ? P->aval : hs_cu_kvals(c);
    a.r0 = c->rhs;
    a.cg = {c->nn, c->csr_rp, c->csr_col, nullptr, a.aval, c->dinv, c->rhs, c->du, cg->p,
            {cg->p_q, cg->p_q + c->nn}, cg->p_part};
    a.part = P->part;
    a.bad = P->bad;
    a.ctl = P->ctl;
    HS_CUDA_CALL(cudaMemcpyAsync(R->rows, R->h_rows, sizeof(double) * (size_t)(n + 1) * R->stride,
                                 cudaMemcpyHostToDevice, c->s));
    HS_CUDA_CALL(cudaMemsetAsync(P->bad, 0x7f, 2 * sizeof(int), c->s));
    void *args[] = {&a};
    HS_CUDA_CALL(cudaEventRecord(c->ev_s0, c->s));
    HS_CUDA_CALL(cudaLaunchCooperativeKernel(P->fn, dim3(P->grid), dim3(kTP), args, 0, c->s));
    HS_CUDA_LAUNCH_CHECK("k_split_persist");
    HS_CUDA_CALL(cudaEventRecord(c->ev_s1, c->s));
    HS_CUDA_CALL(cudaMemcpyAsync(P->h_ctl, P->ctl, sizeof(sp_ctl), cudaMemcpyDeviceToHost, c->s));
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    c->t.solve += 1e-3 * elapsed_ms(c->ev_s0, c->ev_s1); /* the whole steps: not split by phase */
    const sp_ctl *h = P->h_ctl;
    for (int q = 0; q < 4; ++q) P->ns[q] += h->ns[q];
    P->launches++;
    return hs_cu_split_launch_end(b, dt_ms, n, h->done, h->failed, h->iters, h->res, done, stats);
}
