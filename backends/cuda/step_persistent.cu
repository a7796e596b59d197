// solver.step = "persistent": time steps as ONE cooperative kernel (issue 18). Every block stays
// resident; phases are separated by grid barriers instead of kernel boundaries, and the Newton and CG
// decisions are taken by every block alike from the same fixed-order sums, so no host round trip and
// no launch is left inside a step, nor between the steps of one launch:
//
//   per step: [begin: phi_n = phi, the extrapolated first iterate, the stimulus] | element (the first
//             also r_n = r) | R (the residual's block maxima; K's diagonal, D^-1) | Newton test ->
//             tangent (K's off-diagonal pairs) | CG (hs_gpu_cg1.cuh: one barrier per iteration) ->
//             phi -= du (the update's maxima) | element | R | ... [end: activation read-outs,
//             extrapolation history]
//
// Two uses (backends/cuda/step_graph.cu's hs_cu_newton_device and hs_cu_steps_device below):
//  - the Newton loop of one step, after the host's begin_step (begin_end = 0): as solver.step = graph
//    but without the graph's kernel boundaries;
//  - up to HS_PSTEP_MAX whole steps per launch (begin_end = 1), the steps up to the next frame,
//    checkpoint or end of the run (sim/protocol.c, hs_protocol_next). A step that fails stops the launch with the state
//    at that step's start restorable (phi_n, r_n); the host then runs that step again on the one-step
//    path, which fails the same way (the arithmetic is the same) and reports or retries it as usual.
// The arithmetic is that of the kernel-sequence step (element_point_ct, the split sums in the same
// order, hs_readout_update, the extrapolation weights from the host), so the simulation is the same
// up to the CG's summation order (test_gpu_backend compares them). Split assembly, Jacobi-CG
// (Chronopoulos-Gear) only: sim_build refuses the rest by name.
#include <cooperative_groups.h>

#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "cuda_backend.cuh"
#include "hs_element_ct.cuh"
#include "hs_gpu_cg1.cuh"
#include "hs_gpu_reduce.cuh"
#include "hs_readout.h"
#include "hs_step_persistent.cuh"
#include "hs_util.h"

namespace cgrp = cooperative_groups;

namespace {

// 512 threads per block, one block per SM, up to 128 registers a thread: measured on an H100 (1 s of
// bench_50k / lv_ellipsoid) against two 512-thread blocks per SM at 64 registers (which spill) and one
// 768-thread block at 80: 2.05 / 1.17 s against 2.20 / 1.83 and 1.80 / 1.40. The CG gains most from the
// spill-free registers; the gathers of the assembly, latency-bound with fewer threads, issue their loads
// in batches (gather_sum) instead.
#ifndef HS_PSTEP_TP /* overridable for benchmarking builds only */
#define HS_PSTEP_TP 512
#define HS_PSTEP_MINB 1
#endif
constexpr int kTP = HS_PSTEP_TP;
#ifndef HS_PSTEP_BATCH /* overridable for benchmarking builds only */
#define HS_PSTEP_BATCH 8
#endif
constexpr int kTPR = 4; // threads per node in the R pass (2 measured 2x slower at 50K nodes)

struct pstep_args {
    int32_t nn, ne;
    int32_t np, np_off; /* pairs; the off-diagonal ones first (cuda_impl.np_off) */
    int gates;                        /* hs_model_params.gates */
    double prm[HS_MODELS_MAX_PARAMS]; /* the model's parameters: room for the largest model of the list
                                         (hs_model_sizes.h), not HS_MODEL_MAX_PARAMS */
    const hs_region_row *rtab;
    const uint16_t *etab;
    const int32_t *tets;
    const double *vol, *inv_mass;
    const int32_t *pptr, *pelem;
    const int2 *pslot;
    const double *kdp, *kdc;
    const int32_t *rp, *col, *rptr, *relem;
    double *phi, *phin, *ipv, *ipv_n, *act, *ph1, *ph2, *km, *rm, *stim_e, *rhs, *dinv;
    void *kval;
    int n_selem, n_sites;
    const int32_t *selem, *sptr, *ssite;
    const double *amp;  /* [nsteps][n_sites] per model time */
    const double *wext; /* [nsteps][4]: w0, w1, w2, used (0: phi stays) */
    double dt, dt_ms, k0;
    int nsteps, begin_end;
    double tol_res, tol_upd, cg_tol, forcing, act_thr, rep_thr;
    int newton_max, cg_max;
    hs_cg1_ctx cg;
    int cg_tpr; /* the CG's threads per row: 1, 2, 4 or 8 */
    double *mv; /* [2][G] block maxima: 0 the residual, 1 the update */
    int *mi;
    int *bad;   /* smallest failed element, 0x7f7f7f7f: none (set by the host before the launch) */
    hs_pstep_ctl *ctl;
};

__device__ __forceinline__ void warp_maxloc(double &v, int &i)
{
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        const double b = __shfl_xor_sync(0xffffffffu, v, off);
        const int ib = __shfl_xor_sync(0xffffffffu, i, off);
        hs_maxloc_take(v, i, b, ib);
    }
}

/* the block's maximum pair into mv[blockIdx.x], mi[blockIdx.x]; every thread calls it */
__device__ void put_maxloc(double v, int i, double *mv, int *mi, double *shv, int *shi)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    warp_maxloc(v, i);
    if (lane == 0) { shv[warp] = v; shi[warp] = i; }
    __syncthreads();
    if (warp == 0) {
        v = lane < nw ? shv[lane] : 0.0;
        i = lane < nw ? shi[lane] : INT_MAX;
        warp_maxloc(v, i);
        if (lane == 0) { mv[blockIdx.x] = v; mi[blockIdx.x] = i; }
    }
    __syncthreads();
}

/* the maximum over all blocks' pairs, the same in every thread */
__device__ void total_maxloc(const double *mv, const int *mi, double &v, int &i, double *shv, int *shi)
{
    const int lane = threadIdx.x & 31, G = gridDim.x;
    if (threadIdx.x < 32) {
        v = 0.0;
        i = INT_MAX;
        /* a lane's first 8 pairs loaded at once (every grid up to 256 blocks), then the rest: the
         * Newton test and the update wait on this chain, 3 times per Newton iteration */
        double vv[8];
        int ii[8];
#pragma unroll
        for (int q = 0; q < 8; ++q) {
            const int p = lane + 32 * q;
            vv[q] = p < G ? __ldcg(mv + p) : 0.0;
            ii[q] = p < G ? __ldcg(mi + p) : INT_MAX;
        }
#pragma unroll
        for (int q = 0; q < 8; ++q) hs_maxloc_take(v, i, vv[q], ii[q]);
        for (int p = lane + 256; p < G; p += 32) hs_maxloc_take(v, i, __ldcg(mv + p), __ldcg(mi + p));
        warp_maxloc(v, i);
        if (lane == 0) { shv[0] = v; shi[0] = i; }
    }
    __syncthreads();
    v = shv[0];
    i = shi[0];
    __syncthreads();
}

/* The passes below read what earlier phases wrote (phi, km, rm, the stimulus) with hs_ld_l1:
 * each array a pass reads was written before the grid barrier that opened the pass, whose acquire
 * makes it visible, L1 included (as the CG's records, hs_gpu_cg1.cuh), and no pass writes what it
 * reads. Neighbouring elements and rows share nodes, so most of these gathers hit L1. __ldg's
 * non-coherent path would not be safe.
 *
 * element pass (k_element_split's body): km, rm, the model's variables; failures to *bad. @p first:
 * the first pass of a step begun in this kernel, which also saves the variables of the step's start
 * (ipv_n = ipv, hs_cu_begin_step's copy, done here where they are loaded anyway) */
template <int NV, int ID>
__device__ void element_pass(const pstep_args &a, int64_t tid, int64_t nth, bool first)
{
    const int32_t ne = a.ne;
    const int4 *tets = reinterpret_cast<const int4 *>(a.tets);
    int4 tn = tid < ne ? tets[tid] : make_int4(0, 0, 0, 0); /* the next element's nodes, loaded a turn early */
    for (int64_t e = tid; e < ne; e += nth) {
        const int4 t = tn;
        if (e + nth < ne) tn = tets[e + nth];
        const double ph[4] = {hs_ld_l1(a.phi + t.x), hs_ld_l1(a.phi + t.y), hs_ld_l1(a.phi + t.z), hs_ld_l1(a.phi + t.w)};
        const double pn[4] = {hs_ld_l1(a.phin + t.x), hs_ld_l1(a.phin + t.y), hs_ld_l1(a.phin + t.z), hs_ld_l1(a.phin + t.w)};
        double sn[NV > 0 ? NV : 1], sv[NV > 0 ? NV : 1];
#pragma unroll
        for (int k = 0; k < NV; ++k) {
            sv[k] = a.ipv[(int64_t)k * ne + e];
            if (first) a.ipv_n[(int64_t)k * ne + e] = sv[k];
            sn[k] = first ? sv[k] : a.ipv_n[(int64_t)k * ne + e];
        }
        double kme = 0.0, rme = 0.0;
        int it;
        const double stim = hs_ld_l1(a.stim_e + e);
        if (a.etab) {
            const hs_region_row *row = &a.rtab[a.etab[e]];
            if (row->conducting) {
                it = element_point_ct<ID>(row->prm.v, row->prm.gates, a.dt, a.vol[e], ph, pn, stim, sn, sv, &kme, &rme);
            } else {
                it = 0;
#pragma unroll
                for (int k = 0; k < NV; ++k) sv[k] = sn[k];
            }
        } else {
            it = element_point_ct<ID>(a.prm, a.gates, a.dt, a.vol[e], ph, pn, stim, sn, sv, &kme, &rme);
        }
        if (it < 0) atomicMin(a.bad, (int)e);
#pragma unroll
        for (int k = 0; k < NV; ++k) a.ipv[(int64_t)k * ne + e] = sv[k];
        a.km[e] = kme;
        a.rm[e] = rme;
    }
}

/* s + sum of v[idx[j]] over j = j0 .. j1 - 1, added in that order, so the batch size changes
 * the schedule, not the bits. The gathers are latency-bound (512 threads per SM, each with a chain of
 * index and value loads): the loads of HS_PSTEP_BATCH entries are all issued before their adds.
 * H100, 1 s runs: 8 against 4 gave lv_ellipsoid 0.628 against 0.659 s, bench_50k 1.404 against
 * 1.408; without batches 1.17 and 2.05. Tried and dropped (same calls): two elements per thread in
 * the element pass (spills; bench_50k 1.67 s), the CG's columns in batches of 2 (1.49 s) and two
 * pairs per thread in the tangent (its phase 0.28-0.29 against 0.27 s). */
__device__ __forceinline__ double gather_sum(double s, const int32_t *idx, const double *v, int32_t j0, int32_t j1)
{
    constexpr int B = HS_PSTEP_BATCH;
    for (int32_t j = j0; j < j1; j += B) {
        double t[B];
#pragma unroll
        for (int q = 0; q < B; ++q) t[q] = j + q < j1 ? hs_ld_l1(v + idx[j + q]) : 0.0;
#pragma unroll
        for (int q = 0; q < B; ++q)
            if (j + q < j1) s += t[q];
    }
    return s;
}

/* The R pass's gathers for one node's lane (every S-th entry), all loads of a batch in flight together:
 * s + sum of w[j] va[ia[j]] over list A (fused multiply-adds), and over list B t + sum of vb[ib[j]]
 * and d + sum of vd[ib[j]] (one index load for both), each sum in its list's order as gather_sum.
 * Both lists at once against two gather_sums: bench_50k's R phase 0.215 against 0.267 s, the 1 s run
 * 1.36 against 1.41 s (same bits). */
template <int S>
__device__ __forceinline__ void gather_node(double &s, double &t, double &d, const double *w, const int32_t *ia,
                                            const double *va, int32_t a0, int32_t a1, const int32_t *ib,
                                            const double *vb, const double *vd, int32_t b0, int32_t b1)
{
    constexpr int B = HS_PSTEP_BATCH;
    for (; a0 < a1 || b0 < b1; a0 += B * S, b0 += B * S) {
        double ta[B], ca[B], tb[B], td[B];
#pragma unroll
        for (int q = 0; q < B; ++q) {
            const int32_t ja = a0 + q * S, jb = b0 + q * S;
            ta[q] = ja < a1 ? hs_ld_l1(va + ia[ja]) : 0.0;
            ca[q] = ja < a1 ? w[ja] : 0.0;
            const int32_t e = jb < b1 ? ib[jb] : 0;
            tb[q] = jb < b1 ? hs_ld_l1(vb + e) : 0.0;
            td[q] = jb < b1 ? hs_ld_l1(vd + e) : 0.0;
        }
#pragma unroll
        for (int q = 0; q < B; ++q)
            if (a0 + q * S < a1) s = __fma_rn(ca[q], ta[q], s);
#pragma unroll
        for (int q = 0; q < B; ++q)
            if (b0 + q * S < b1) {
                t += tb[q];
                d += td[q];
            }
    }
}

/* the tangent (k_split_k's body, before a solve) without the diagonals, which the R pass formed */
template <typename V>
__device__ void pair_pass(const pstep_args &a, int64_t tid, int64_t nth)
{
    V *kval = static_cast<V *>(a.kval);
    int32_t j0n = 0, j1n = 0; /* the next pair's list bounds, loaded a turn early (phase 0.096 against 0.105 s) */
    if (tid < a.np_off) j0n = a.pptr[tid], j1n = a.pptr[tid + 1];
    for (int64_t p = tid; p < a.np_off; p += nth) {
        const int32_t j0 = j0n, j1 = j1n;
        if (p + nth < a.np_off) j0n = a.pptr[p + nth], j1n = a.pptr[p + nth + 1];
        const double s = gather_sum(a.kdp[p], a.pelem, a.km, j0, j1);
        const int2 sl = a.pslot[p];
        const V v = (V)s;
        kval[sl.x] = v;
        kval[sl.y] = v;
    }
}

/* R, the residual's block maximum (k_split_r's body) and the tangent's diagonal with D^-1, every Newton
 * test: kTPR lanes per node share its gathers (K_D phi; the elements' rm and km, one element list) and
 * sum them by a shuffle butterfly: a fixed order, not k_split_r's and k_split_k's sequential ones. The
 * diagonal comes here, where its element list is read anyway, so the pair pass before a solve is left
 * with the short off-diagonal lists. */
template <typename V>
__device__ void node_pass(const pstep_args &a, int64_t tid, int64_t nth, double *shv, int *shi)
{
    double best = 0.0;
    int bi = INT_MAX;
    const int lane = (int)(tid % kTPR);
    for (int64_t i = tid / kTPR; i < a.nn; i += nth / kTPR) {
        /* the diagonal's K_D and slot, loaded before the gathers so that they wait together (the list
         * bounds of the next node loaded a turn early measured slower: R phase 0.265 against 0.251 s) */
        const double kd_ii = a.kdp[a.np_off + i];
        const int32_t d_slot = a.pslot[a.np_off + i].x;
        double s = 0.0, t = 0.0, d = 0.0;
        gather_node<kTPR>(s, t, d, a.kdc, a.col, a.phi, a.rp[i] + lane, a.rp[i + 1], a.relem, a.rm, a.km,
                          a.rptr[i] + lane, a.rptr[i + 1]);
        s = hs_cg1_group_sum<kTPR>(s);
        t = hs_cg1_group_sum<kTPR>(t);
        d = hs_cg1_group_sum<kTPR>(d);
        if (lane == 0) {
            const double r = s + t;
            a.rhs[i] = r;
            /* the diagonal of the tangent (its pair sits at np_off + i): K_D's plus the node's
             * elements' km, the same elements as R's */
            const V kv = (V)(kd_ii + d);
            static_cast<V *>(a.kval)[d_slot] = kv;
            a.dinv[i] = 1.0 / (double)kv;
            const double w = fabs(r) * a.dt * a.inv_mass[i];
            hs_maxloc_take(best, bi, w, (int)i);
        }
    }
    put_maxloc(best, bi, a.mv, a.mi, shv, shi);
}

__device__ __forceinline__ unsigned long long gtimer()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

template <typename V, int NV, int ID>
__global__ void __launch_bounds__(kTP, HS_PSTEP_MINB) k_pstep(pstep_args a)
{
    cgrp::grid_group grid = cgrp::this_grid();
    __shared__ double sh[99];
    __shared__ double shv[32];
    __shared__ int shi[32];
    const int G = gridDim.x;
    const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, nth = (int64_t)G * blockDim.x;
    const bool writer = blockIdx.x == 0 && threadIdx.x == 0;
    int done = 0, stop = HS_NEWTON_CONVERGED;
    unsigned long long ns[6] = {0, 0, 0, 0, 0, 0}, t0 = writer ? gtimer() : 0;
    /* block 0's phase clock: the time since the last mark goes to phase q */
#define HS_MARK(q)                                                                                                     \
    if (writer) {                                                                                                      \
        const unsigned long long t1_ = gtimer();                                                                       \
        ns[q] += t1_ - t0;                                                                                             \
        t0 = t1_;                                                                                                      \
    }
    for (int j = 0; j < a.nsteps; ++j) {
        if (a.begin_end) { /* hs_cu_begin_step: phi_n, the first iterate, the element stimulus (r_n: the first element pass) */
            const double *w = a.wext + 4 * j;
            for (int64_t i = tid; i < a.nn; i += nth) {
                const double p0 = a.phi[i];
                a.phin[i] = p0;
                if (w[3] > 0.0) a.phi[i] = hs_cu_extrap(w[0], w[1], w[2], p0, a.ph1[i], w[2] != 0.0 ? a.ph2[i] : 0.0);
            }
            const double *amp = a.amp + (int64_t)j * a.n_sites;
            for (int64_t u = tid; u < a.n_selem; u += nth) {
                double s = 0.0; /* k_stim_add's order: the sites in turn, from zero */
                for (int32_t q = a.sptr[u]; q < a.sptr[u + 1]; ++q) {
                    const double v = amp[a.ssite[q]];
                    if (v != 0.0) s += v;
                }
                a.stim_e[a.selem[u]] = s;
            }
            grid.sync();
            HS_MARK(0)
        }
        element_pass<NV, ID>(a, tid, nth, a.begin_end != 0); /* with the begin's ipv_n = ipv */
        grid.sync();
        HS_MARK(1)
        node_pass<V>(a, tid, nth, shv, shi);
        grid.sync();
        HS_MARK(2)
        int k = 0, solves = 0, cg_sum = 0, cg_max = 0, res_node = 0, node_before = 0, bad = 0x7f7f7f7f;
        double res = 0.0, upd = INFINITY, res_before = 0.0;
        hs_cg1_out o = {};
        int n_hist = 0;
        for (;;) { /* the Newton test of fem/newton.c, in every thread alike */
            total_maxloc(a.mv, a.mi, res, res_node, shv, shi);
            bad = __ldcg(a.bad);
            if (writer && n_hist < 32) a.ctl->hist[n_hist] = res;
            ++n_hist;
            if (bad != 0x7f7f7f7f) { stop = HS_NEWTON_ELEMENT; break; }
            if (!isfinite(res)) { stop = HS_NEWTON_NONFINITE; break; }
            if (res <= a.tol_res && (k == 0 || upd <= a.tol_upd)) { stop = HS_NEWTON_CONVERGED; break; }
            if (k == a.newton_max) { stop = HS_NEWTON_MAXIT; break; }
            const double tol = hs_cg_forcing_tol(a.cg_tol, a.forcing, a.tol_res, res);
            HS_MARK(4)
            pair_pass<V>(a, tid, nth); /* the tangent, only now that a solve needs it */
            grid.sync();
            HS_MARK(5)
            switch (a.cg_tpr) { /* the same in every block */
            case 8: hs_cg1_solve<V, 8, true>(a.cg, tol, a.cg_max, grid, sh, &o); break;
            case 4: hs_cg1_solve<V, 4, true>(a.cg, tol, a.cg_max, grid, sh, &o); break;
            case 2: hs_cg1_solve<V, 2, true>(a.cg, tol, a.cg_max, grid, sh, &o); break;
            default: hs_cg1_solve<V, 1, true>(a.cg, tol, a.cg_max, grid, sh, &o);
            }
            HS_MARK(3)
            ++solves;
            const int it = o.status == HS_GPU_CG_BREAK || o.status == HS_GPU_CG_NONFINITE
                               ? (o.fail_iter > o.iters ? o.fail_iter : o.iters) : o.iters;
            cg_sum += it;
            if (it > cg_max) cg_max = it;
            if (o.status != HS_GPU_CG_CONV) {
                stop = HS_NEWTON_CG;
                res_before = res;
                node_before = res_node;
                break;
            }
            /* phi -= du, the update's maximum */
            double best = 0.0;
            int bi = INT_MAX;
            for (int64_t i = tid; i < a.nn; i += nth) {
                const double d = a.cg.x[i];
                a.phi[i] -= d;
                hs_maxloc_take(best, bi, fabs(d), (int)i);
            }
            put_maxloc(best, bi, a.mv + G, a.mi + G, shv, shi);
            grid.sync();
            int un;
            total_maxloc(a.mv + G, a.mi + G, upd, un, shv, shi);
            ++k;
            HS_MARK(4)
            element_pass<NV, ID>(a, tid, nth, false);
            grid.sync();
            HS_MARK(1)
            node_pass<V>(a, tid, nth, shv, shi);
            grid.sync();
            HS_MARK(2)
        }
        HS_MARK(4)
        if (writer) {
            hs_pstep_ctl *c = a.ctl;
            c->solves[j] = solves;
            c->cg_iters[j] = cg_sum;
            c->cg_iters_max[j] = cg_max;
            c->res[j] = res;
            c->k = k;
            c->res_last = res;
            c->upd = upd;
            c->res_node = res_node;
            c->res_before = res_before;
            c->node_before = node_before;
            c->bad_elem = bad;
            c->n_hist = n_hist < 32 ? n_hist : 32;
            c->cg.status = o.status;
            c->cg.iters = o.iters;
            c->cg.fail_iter = o.fail_iter;
            c->cg.bb = o.bb;
            c->cg.rr = o.rr;
            c->cg.fallback_iter = 0;
        }
        if (stop != HS_NEWTON_CONVERGED) break;
        if (a.begin_end) { /* hs_cu_end_step: read-outs, extrapolation history (in place) */
            const double t_prev = (a.k0 + j) * a.dt_ms;
            const int64_t n = a.nn;
            for (int64_t i = tid; i < n; i += nth) {
                const double pn = a.phin[i];
                hs_readout_update(pn, a.phi[i], a.act_thr, a.rep_thr, t_prev, a.dt_ms, a.act + i, a.act + n + i,
                                  a.act + 2 * n + i, a.act + 3 * n + i);
                if (a.ph1) {
                    a.ph2[i] = a.ph1[i];
                    a.ph1[i] = pn;
                }
            }
        }
        HS_MARK(0)
        ++done;
    }
#undef HS_MARK
    if (writer) {
        a.ctl->done = done;
        a.ctl->stop = stop;
        a.ctl->ns_begin = ns[0];
        a.ctl->ns_element = ns[1];
        a.ctl->ns_assembly = ns[2];
        a.ctl->ns_cg = ns[3];
        a.ctl->ns_update = ns[4];
        a.ctl->ns_tangent = ns[5];
    }
}

template <typename V, int NV, int ID>
const void *pstep_fn()
{
    return (const void *)k_pstep<V, NV, ID>;
}

const void *pstep_kernel(int id, int f32)
{
    switch (id) {
#define HS_MODEL(mid)                                                                                          \
    case HS_MODEL_ID_##mid:                                                                                    \
        return f32 ? pstep_fn<float, HS_MODEL_NVARS_##mid, (int)HS_MODEL_ID_##mid>()                           \
                   : pstep_fn<double, HS_MODEL_NVARS_##mid, (int)HS_MODEL_ID_##mid>();
#define HS_MODEL_NODAL(mid) /* nodal form only: no element kernel */
#include "hs_model_list.h"
#undef HS_MODEL_NODAL
#undef HS_MODEL
    default: return nullptr;
    }
}

/* The stimulated elements with their sites, buffers, the grid (host, once). */
hs_status pstep_setup(hs_backend *b)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    const hs_problem *p = b->prob;
    hs_pstep_dev *d = c->pstep;
    hs_status st = HS_OK;
    /* stimulated elements: each once, its sites in increasing order */
    const hs_stim_set *ss = p->stim;
    const int ns = ss ? ss->n_sites : 0;
    d->n_sites = ns;
    d->n_selem = 0;
    if (ns > 0) {
        int32_t *cnt = NULL, *sel = NULL, *sptr = NULL, *ssite = NULL;
        const int64_t tot = ss->elem_ptr[ns];
        st = HS_ALLOC(cnt, (size_t)c->ne, "stimulus counts");
        if (st == HS_OK) st = HS_ALLOC(sel, (size_t)(tot > 0 ? tot : 1), "stimulated elements");
        if (st == HS_OK) st = HS_ALLOC(sptr, (size_t)tot + 1, "stimulus site lists");
        if (st == HS_OK) st = HS_ALLOC(ssite, (size_t)(tot > 0 ? tot : 1), "stimulus sites");
        if (st == HS_OK) {
            memset(cnt, 0, sizeof(int32_t) * (size_t)c->ne);
            for (int k = 0; k < ns; ++k)
                for (int32_t q = ss->elem_ptr[k]; q < ss->elem_ptr[k + 1]; ++q) cnt[ss->elem[q]]++;
            int32_t nu = 0;
            sptr[0] = 0;
            for (int32_t e = 0; e < c->ne; ++e)
                if (cnt[e]) {
                    sel[nu] = e;
                    sptr[nu + 1] = sptr[nu] + cnt[e];
                    cnt[e] = sptr[nu]; /* now the next free place of e's site list */
                    ++nu;
                }
            /* element -> its index among the stimulated is not kept: fill the site lists by site */
            int32_t *slot = NULL;
            st = HS_ALLOC(slot, (size_t)c->ne, "stimulus element index");
            if (st == HS_OK) {
                for (int32_t u = 0; u < nu; ++u) slot[sel[u]] = cnt[sel[u]];
                for (int k = 0; k < ns; ++k)
                    for (int32_t q = ss->elem_ptr[k]; q < ss->elem_ptr[k + 1]; ++q) ssite[slot[ss->elem[q]]++] = k;
            }
            free(slot);
            d->n_selem = nu;
            if (st == HS_OK && nu > 0) st = upload(&d->selem, sel, (size_t)nu, "stimulated elements");
            if (st == HS_OK && nu > 0) st = upload(&d->sptr, sptr, (size_t)nu + 1, "stimulus site lists");
            if (st == HS_OK && nu > 0) st = upload(&d->ssite, ssite, (size_t)sptr[nu], "stimulus sites");
        }
        free(cnt);
        free(sel);
        free(sptr);
        free(ssite);
        HS_CALL(st);
    }
    const int nsa = ns > 0 ? ns : 1;
    HS_CALL(HS_CUDA_ALLOC(d->amp, (size_t)HS_PSTEP_MAX * nsa, "stimulus amplitudes per step"));
    HS_CALL(HS_CUDA_ALLOC(d->wext, (size_t)HS_PSTEP_MAX * 4, "extrapolation weights per step"));
    HS_CUDA_CALL(cudaMallocHost((void **)&d->h_amp, sizeof(double) * (size_t)HS_PSTEP_MAX * nsa));
    HS_CUDA_CALL(cudaMallocHost((void **)&d->h_wext, sizeof(double) * (size_t)HS_PSTEP_MAX * 4));
    HS_CALL(HS_CUDA_ALLOC(d->ctl, 1, "persistent step control"));
    HS_CUDA_CALL(cudaMallocHost((void **)&d->h_ctl, sizeof(hs_pstep_ctl)));
    HS_CALL(HS_CUDA_ALLOC(d->bad, 1, "element failure flag"));
    HS_CALL(HS_CUDA_ALLOC(d->mv, 2 * HS_CG1_MAXG, "step maxima"));
    HS_CALL(HS_CUDA_ALLOC(d->mi, 2 * HS_CG1_MAXG, "step maxima"));
    /* the grid: kTP-thread blocks, as many per SM as are resident up to HS_PSTEP_BLOCKS_PER_SM */
    int dev = 0, sms = 0, per_sm = 0, coop = 0;
    HS_CUDA_CALL(cudaGetDevice(&dev));
    HS_CUDA_CALL(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    HS_CUDA_CALL(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    HS_CHECK(coop, HS_ERR_DEVICE, "solver.step = \"persistent\": this GPU cannot launch cooperative kernels");
    const void *fn = pstep_kernel((int)p->opt.model_prm.id, c->f32);
    HS_CHECK(fn, HS_ERR_INTERNAL, "persistent step: model id %d is not in this build", (int)p->opt.model_prm.id);
    HS_CUDA_CALL(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, kTP, 0));
    HS_CHECK(per_sm > 0, HS_ERR_DEVICE, "solver.step = \"persistent\": the step kernel cannot be resident");
    int bps = HS_PSTEP_BLOCKS_PER_SM;
    const char *e = getenv("HS_PSTEP_BLOCKS_PER_SM"); /* benchmarking only (docs/benchmarks.md) */
    if (e && atoi(e) > 0) bps = atoi(e);
    if (bps > per_sm) bps = per_sm;
    int64_t g = (int64_t)sms * bps;
    if (g > HS_CG1_MAXG) g = HS_CG1_MAXG;
    d->grid = (int)g;
    d->fn = fn;
    /* the CG's threads per row: as many as keep every row in one pass of the grid (small meshes are
     * latency-bound: a row's gather split over lanes is a shorter chain), at most 8 */
    int tpr = 1;
    while (tpr < 8 && (int64_t)c->nn * tpr * 2 <= g * kTP) tpr *= 2;
    const char *et = getenv("HS_PSTEP_CG_TPR"); /* benchmarking only (docs/benchmarks.md) */
    if (et && (atoi(et) == 1 || atoi(et) == 2 || atoi(et) == 4 || atoi(et) == 8)) tpr = atoi(et);
    d->cg_tpr = tpr;
    return HS_OK;
}

hs_status pstep_launch(hs_backend *b, int nsteps, int begin_end, long k0, double dt_ms)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    const hs_problem *p = b->prob;
    const hs_problem_opts *o = &p->opt;
    hs_pstep_dev *d = c->pstep;
    hs_gpu_cg *cg = c->cg;
    HS_CHECK(cg->persistent && cg->p_barriers == 1 && cg->p_q, HS_ERR_INTERNAL,
             "persistent step: the CG is not the one-barrier persistent kernel");
    pstep_args a;
    memset(&a, 0, sizeof a);
    a.nn = c->nn;
    a.ne = c->ne;
    a.np = c->np;
    a.np_off = c->np_off;
    a.gates = o->model_prm.gates;
    static_assert(sizeof a.prm <= sizeof o->model_prm.v, "the argument block holds a prefix of the parameters");
    memcpy(a.prm, o->model_prm.v, sizeof a.prm);
    a.rtab = c->rtab;
    a.etab = c->etab;
    a.tets = c->tets;
    a.vol = c->vol;
    a.inv_mass = c->inv_mass;
    a.pptr = c->pptr;
    a.pelem = c->pelem;
    a.pslot = reinterpret_cast<const int2 *>(c->pslot);
    a.kdp = c->kdp;
    a.kdc = c->kdc;
    a.rp = c->csr_rp;
    a.col = c->csr_col;
    a.rptr = c->rptr;
    a.relem = c->relem;
    a.phi = c->phi;
    a.phin = c->phin;
    a.ipv = c->ipv;
    a.ipv_n = c->ipv_n;
    a.act = c->act;
    a.ph1 = c->ph1;
    a.ph2 = c->ph2;
    a.km = c->km;
    a.rm = c->rm;
    a.stim_e = c->stim_e;
    a.rhs = c->rhs;
    a.dinv = c->dinv;
    a.kval = hs_cu_kvals(c);
    a.n_selem = d->n_selem;
    a.n_sites = d->n_sites > 0 ? d->n_sites : 1;
    a.selem = d->selem;
    a.sptr = d->sptr;
    a.ssite = d->ssite;
    a.amp = d->amp;
    a.wext = d->wext;
    a.dt = c->dt;
    a.dt_ms = dt_ms;
    a.k0 = (double)k0;
    a.nsteps = nsteps;
    a.begin_end = begin_end;
    a.tol_res = o->newton_tol_residual;
    a.tol_upd = o->newton_tol_update;
    a.cg_tol = o->cg.tol;
    a.forcing = o->cg_forcing;
    a.act_thr = o->activation_phi;
    a.rep_thr = o->repol_phi;
    a.newton_max = o->newton_max_iter;
    a.cg_max = o->cg.max_iter;
    a.cg = {c->nn, c->csr_rp, c->csr_col, c->slot, hs_cu_kvals(c), c->dinv, c->rhs, c->du, cg->p,
            {cg->p_q, cg->p_q + c->nn}, cg->p_part};
    a.cg_tpr = d->cg_tpr;
    a.mv = d->mv;
    a.mi = d->mi;
    a.bad = d->bad;
    a.ctl = d->ctl;
    HS_CUDA_CALL(cudaMemsetAsync(d->bad, 0x7f, sizeof(int), c->s));
    void *args[] = {&a};
    HS_CUDA_CALL(cudaEventRecord(c->ev_s0, c->s));
    HS_CUDA_CALL(cudaLaunchCooperativeKernel(d->fn, dim3(d->grid), dim3(kTP), args, 0, c->s));
    HS_CUDA_LAUNCH_CHECK("k_pstep");
    HS_CUDA_CALL(cudaEventRecord(c->ev_s1, c->s));
    HS_CUDA_CALL(cudaMemcpyAsync(d->h_ctl, d->ctl, sizeof(hs_pstep_ctl), cudaMemcpyDeviceToHost, c->s));
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    c->k_stale = 1; /* a launch ends with an R pass; its tangent is formed only before a solve */
    /* the phases by block 0's clock inside the launch; the launch itself, the begin and end of steps
     * and the Newton tests count as solve, so the three add up to the launch's events */
    const hs_pstep_ctl *h = d->h_ctl;
    const double total = 1e-3 * elapsed_ms(c->ev_s0, c->ev_s1);
    const double el = 1e-9 * (double)h->ns_element, as = 1e-9 * (double)(h->ns_assembly + h->ns_tangent);
    c->t.element += el;
    c->t.assembly += as;
    c->t.solve += total - el - as > 0.0 ? total - el - as : 0.0;
    d->ns[0] += h->ns_begin;
    d->ns[1] += h->ns_element;
    d->ns[2] += h->ns_assembly;
    d->ns[3] += h->ns_cg;
    d->ns[4] += h->ns_update;
    d->ns[5] += h->ns_tangent;
    d->launches++;
    return HS_OK;
}

} // namespace

hs_status hs_cu_pstep_prepare(hs_backend *b)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    if (c->pstep) return HS_OK;
    HS_CHECK(c->split, HS_ERR_CONFIG, "solver.step = \"persistent\" needs solver.assembly = \"split\"");
    HS_CHECK(c->pptr, HS_ERR_CONFIG, "solver.step = \"persistent\": %d elements need 64-bit split map pointers, "
             "which the persistent kernel does not read (it is meant for small meshes); use solver.step = \"graph\"",
             c->ne);
    c->pstep = (hs_pstep_dev *)calloc(1, sizeof(hs_pstep_dev));
    HS_CHECK(c->pstep, HS_ERR_MEMORY, "persistent step: out of memory");
    return pstep_setup(b);
}

void hs_cu_pstep_free(cuda_impl *c)
{
    hs_pstep_dev *d = c->pstep;
    if (!d) return;
    if (d->launches > 0)
        hs_log(1, "persistent step: %ld launches of %d x %d threads (CG %d per row); inside them (block 0's clock) "
                  "begin and end of steps %.3f s, element %.3f s, R %.3f s, tangent %.3f s, CG %.3f s, update and "
                  "Newton tests %.3f s\n", d->launches, d->grid, kTP, d->cg_tpr, 1e-9 * d->ns[0], 1e-9 * d->ns[1], 1e-9 * d->ns[2], 1e-9 * d->ns[5], 1e-9 * d->ns[3], 1e-9 * d->ns[4]);
    void *dev[] = {d->selem, d->sptr, d->ssite, d->amp, d->wext, d->ctl, d->bad, d->mv, d->mi};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; ++i) cudaFree(dev[i]);
    cudaFreeHost(d->h_amp);
    cudaFreeHost(d->h_wext);
    cudaFreeHost(d->h_ctl);
    free(d);
    c->pstep = NULL;
}

hs_status hs_cu_pstep_newton(hs_backend *b, hs_newton_out *out)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    HS_CALL(hs_cu_pstep_prepare(b));
    HS_CALL(pstep_launch(b, 1, 0, 0, 0.0));
    const hs_pstep_ctl *h = c->pstep->h_ctl;
    out->stop = h->stop;
    out->k = h->k;
    out->solves = h->solves[0];
    out->cg_iters = h->cg_iters[0];
    out->cg_iters_max = h->cg_iters_max[0];
    out->res = h->res_last;
    out->upd = h->upd;
    out->res_node = h->res_node;
    out->res_before = h->res_before;
    out->node_before = h->node_before;
    out->n_hist = h->n_hist;
    for (int k = 0; k < h->n_hist && k < 32; ++k) out->res_hist[k] = h->hist[k];
    if (h->solves[0] > 0) hs_gpu_cg_result_of(&h->cg, &out->cg);
    if (h->stop == HS_NEWTON_ELEMENT) return hs_cu_element_error(b, h->bad_elem);
    return HS_OK;
}

hs_status hs_cu_steps_device(hs_backend *b, long k0, double dt_ms, int n, const double *site_amp, int *done,
                             hs_step_stats *stats)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    const hs_problem *p = b->prob;
    *done = 0;
    if (c->sp) return hs_cu_split_steps(b, k0, dt_ms, n, done, stats); /* the splitting scheme's launches */
    HS_CHECK(n >= 1 && n <= HS_PSTEP_MAX, HS_ERR_INTERNAL, "persistent step: %d steps per launch", n);
    HS_CALL(hs_cu_pstep_prepare(b));
    hs_pstep_dev *d = c->pstep;
    const double T = p->opt.time_unit, dt = dt_ms / T;
    const int ns = d->n_sites;
    for (int j = 0; j < n; ++j)
        for (int k = 0; k < ns; ++k) d->h_amp[(size_t)j * ns + k] = site_amp[(size_t)j * ns + k] * T;
    /* the extrapolation weights each step will use: the history as the host path would advance it */
    hs_extrap ex = c->ex;
    for (int j = 0; j < n; ++j) {
        double w[3] = {0.0, 0.0, 0.0};
        const int used = c->ph1 ? hs_extrap_weights(&ex, dt, w) : 0;
        d->h_wext[4 * j] = w[0];
        d->h_wext[4 * j + 1] = w[1];
        d->h_wext[4 * j + 2] = used > 1 ? w[2] : 0.0;
        d->h_wext[4 * j + 3] = used > 0 ? 1.0 : 0.0;
        if (c->ph1) hs_extrap_accept(&ex, dt);
    }
    c->dt = dt;
    if (ns > 0)
        HS_CUDA_CALL(cudaMemcpyAsync(d->amp, d->h_amp, sizeof(double) * (size_t)n * ns, cudaMemcpyHostToDevice, c->s));
    HS_CUDA_CALL(cudaMemcpyAsync(d->wext, d->h_wext, sizeof(double) * 4 * (size_t)n, cudaMemcpyHostToDevice, c->s));
    HS_CALL(pstep_launch(b, n, 1, k0, dt_ms));
    const hs_pstep_ctl *h = d->h_ctl;
    for (int j = 0; j < h->done; ++j) {
        memset(&stats[j], 0, sizeof stats[j]);
        stats[j].newton_iters = h->solves[j];
        stats[j].cg_iters = h->cg_iters[j];
        stats[j].cg_iters_max = h->cg_iters_max[j];
        stats[j].res_norm = h->res[j];
        if (c->ph1) hs_extrap_accept(&c->ex, dt);
    }
    c->stim_was_on = 1; /* stim_e was written: the host path's next begin_step clears it */
    *done = h->done;
    if (h->done < n) HS_CALL(hs_cu_restore_step(b)); /* the failed step's start */
    return HS_OK;
}
