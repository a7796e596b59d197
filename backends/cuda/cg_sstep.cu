// s-step (communication-avoiding) Jacobi-PCG as one persistent cooperative kernel: solver.cg = "sstep"
// (hs_gpu_cg_set_sstep). The CPU reference is solvers/cg_sstep.c; the Ritz interval is the same code
// (hs_cg_sstep.h), the s inner iterations on coordinates are hs_sstep_inner's arithmetic spread over a
// warp (sstep_inner_warp: the same row sums, the m-term sums over the coordinates as a shuffle tree).
//
// Seed 004 ch. 6 builds the matrix powers kernel for structured/banded matrices: each thread block
// loads its rows plus a ghost zone s levels deep and computes s SpMVs without communication, paying
// redundant work in the ghost zone. On the unstructured P1 matrix an s-level ghost zone of a 256-row
// block is most of its neighbours' rows (RCM-ordered 3D mesh: the zone grows by a layer of the mesh per
// level), so the redundant work would be several times the block's own. At the sizes where s-step
// pays (about 50K rows: matrix, vectors and basis all sit in the 50 MB L2) the cheaper adaptation is
// the other half of ch. 6's idea: the s SpMVs of the powers kernel run in one kernel with a grid
// barrier between levels (no launches), both chains (p and u) in the same sweep so each matrix row
// is read once per level, and the last level needs no barrier at all because the Gram matrix of a
// row needs only that row's basis. Per block of s iterations: 1 barrier after the update, s-1 in the
// powers kernel, 2 for the Gram reduction (partials, then entry totals) = s + 2 barriers, against 2s
// for the persistent Chronopoulos kernel; one global reduction per s iterations.
//
// The first s iterations of a solve are Chronopoulos-Gear iterations (as cg_persistent.cu) whose
// alpha and beta give the Ritz interval; with hs_gpu_cg.sstep_reuse the interval of an earlier solve
// is kept in device memory and later solves start with s-step blocks at once. A basis breakdown
// (hs_sstep_inner's test) drops the interval and restarts Chronopoulos-Gear from the current iterate.
// Every block computes the same scalars from the same totals in the same order, so all blocks take
// the same decisions and the result is deterministic.
#include <cooperative_groups.h>

#include <climits>
#include <cmath>

#include "hs_cg_sstep.h"
#include "hs_cuda_check.cuh"
#include "hs_gpu_cg.cuh"
#include "hs_gpu_reduce.cuh"
#include "hs_util.h"

namespace cgrp = cooperative_groups;

namespace {

constexpr int kT = HS_RED_THREADS;
constexpr int kM = HS_SSTEP_MMAX;
constexpr int kNE = kM * (kM + 1) / 2; // upper-triangle entries of one Gram matrix at s = 8
constexpr int kYS = kT + 1;            // shared stride of a basis column (bank-conflict padding)
constexpr int kW = kT / 32;            // warps per block

struct sstep_args {
    int32_t n;
    int S;
    const int32_t *rp, *col;
    const int64_t *slot;
    const void *val;                  // matrix values in the format's slots: double, or float when f32
    int f32;                          // solver.matrix_values = float32 (uniform: a predicted branch)
    const double *dinv, *b;
    double *x, *r, *u, *p, *s, *w;
    double *Y;                        // [2S+1][n] basis
    double *partA, *partB, *partD;    // [grid]
    double *partG;                    // [grid][2 ne] Gram partials (G then H)
    double *gtot;                     // [2 ne] Gram totals
    double *cheb;                     // [2] kept Chebyshev interval: centre, half-width (<= 0: none)
    int reuse;
    hs_gpu_cg_scalars *sc;
    double cg_tol, forcing, tol_res;
    const double *d_res;
    int max_iter;
};

struct cstate {
    double gamma, gamma_old, alpha, beta, denom, rr;
    int it;        // iterations of the solve
    int k;         // iterations since the last (re)start of Chronopoulos-Gear
    int status, fail_iter;
};

// the matrix value of CSR nonzero k through the format's slot map, widened to double
__device__ __forceinline__ double mat_val(const sstep_args &a, int32_t k)
{
    const int64_t q = a.slot ? __ldg(a.slot + k) : k;
    return a.f32 ? (double)__ldg(static_cast<const float *>(a.val) + q) : __ldg(static_cast<const double *>(a.val) + q);
}

__device__ __forceinline__ double row_dot(const sstep_args &a, int64_t i, const double *v)
{
    const int32_t k0 = __ldg(a.rp + i), k1 = __ldg(a.rp + i + 1);
    double acc = 0.0;
    for (int32_t k = k0; k < k1; ++k) acc += mat_val(a, k) * __ldcg(v + __ldg(a.col + k));
    return acc;
}

// the two chains of the powers kernel in one sweep: each matrix entry is read once for both
__device__ __forceinline__ void row_dot2(const sstep_args &a, int64_t i, const double *v1, const double *v2,
                                         double &o1, double &o2)
{
    const int32_t k0 = __ldg(a.rp + i), k1 = __ldg(a.rp + i + 1);
    double acc1 = 0.0, acc2 = 0.0;
    for (int32_t k = k0; k < k1; ++k) {
        const double v = mat_val(a, k);
        const int32_t c = __ldg(a.col + k);
        acc1 += v * __ldcg(v1 + c);
        acc2 += v * __ldcg(v2 + c);
    }
    o1 = acc1;
    o2 = acc2;
}

// Chronopoulos-Gear iterations (as k_cgc_persistent) until convergence, a failure, max_iter or `limit`
// iterations of the solve; alpha and beta of the first HS_CG_S_MAX iterations since the last restart
// go to al, be (the Lanczos coefficients of the Ritz interval).
__device__ void chrono_iters(const sstep_args &a, cstate &st, int limit, double *al, double *be, double tol2,
                             double bbt, double *sh, cgrp::grid_group &grid)
{
    const int G = gridDim.x;
    const int64_t first = (int64_t)blockIdx.x * kT + threadIdx.x, stride = (int64_t)G * kT;
    while (st.status == HS_GPU_CG_RUNNING && st.it < limit) {
        double d = 0.0;
        for (int64_t i = first; i < a.n; i += stride) {
            const double acc = row_dot(a, i, a.u);
            a.w[i] = acc;
            d += acc * __ldcg(a.u + i);
        }
        d = hs_block_sum(d, sh);
        if (threadIdx.x == 0) a.partD[blockIdx.x] = d;
        grid.sync();
        const double delta = hs_sum_partials(G, a.partD, sh);
        st.beta = st.k == 0 ? 0.0 : st.gamma / st.gamma_old;
        st.denom = st.k == 0 ? delta : delta - st.beta * st.gamma / st.alpha; // = (p, A p)
        if (!(st.denom > 0.0) || !(st.gamma > 0.0)) {
            st.status = isfinite(st.denom) && isfinite(st.gamma) ? HS_GPU_CG_BREAK : HS_GPU_CG_NONFINITE;
            st.fail_iter = st.it + 1;
            return;
        }
        st.alpha = st.gamma / st.denom;
        double gg = 0.0, rl = 0.0;
        for (int64_t i = first; i < a.n; i += stride)
            hs_cgc_update_row(i, st.alpha, st.beta, a.x, a.r, a.u, a.p, a.s, a.w, a.dinv, gg, rl);
        gg = hs_block_sum(gg, sh);
        rl = hs_block_sum(rl, sh);
        if (threadIdx.x == 0) { a.partA[blockIdx.x] = gg; a.partB[blockIdx.x] = rl; }
        grid.sync();
        st.gamma_old = st.gamma;
        st.gamma = hs_sum_partials(G, a.partA, sh);
        st.rr = hs_sum_partials(G, a.partB, sh);
        if (st.k < HS_CG_S_MAX) {
            al[st.k] = st.alpha;
            be[st.k] = st.gamma / st.gamma_old;
        }
        ++st.it;
        ++st.k;
        if (!isfinite(st.rr)) st.status = HS_GPU_CG_NONFINITE;
        else if (st.rr <= tol2 * bbt) st.status = HS_GPU_CG_CONV;
        else if (st.it >= a.max_iter) st.status = HS_GPU_CG_MAXIT;
    }
}

// The s inner iterations of one block (hs_sstep_inner, hs_cg_sstep.h) on one warp: lane i owns the
// coordinates x_i, p_i, u_i, t_i of basis column i (m = 2s+1 <= 17 lanes). Every matrix-vector row sum
// runs in lane i in hs_sstep_inner's order (the support's columns, ascending); the m-term sums over i
// of a quadratic form run as a xor-shuffle tree (every lane gets the same bits), where the CPU sums
// them in order (and the GPU contracts a*b + c to one fma): a difference of a few eps relative to the
// form's absolute-value scale (tree depth 5 and at most m terms per row sum against the CPU's m + m),
// below the breakdown threshold theta = m sqrt(n) eps and the GPU-vs-CPU bound of the tests, which
// the different Gram summation order already dominates. B is the Chebyshev change of basis (tridiagonal
// per chain): (B p)_i has at most three non-zero terms, taken in ascending column order as
// hs_sstep_inner's sum over the support takes them (the skipped terms are exact zeros). On one thread
// these iterations were O(s^3) dependent shared-memory operations per block (about 4,000 at s = 8, by
// count, several us per iteration: the likely main share of the 34.8 us per iteration measured before
// this change); on a warp, about 2 (2s + 1) dependent steps and 4 shuffle trees per iteration.
__device__ __forceinline__ double warp_sum(double v)
{
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

__device__ void sstep_inner_warp(int s, const double *Gs, const double *Hs, double c, double d, double rr_target,
                                 int it0, int max_iter, double theta, hs_sstep_block *o)
{
    const unsigned FULL = 0xffffffffu;
    const int m = 2 * s + 1, lane = threadIdx.x & 31;
    const bool own = lane < m;
    const double sqg = own ? sqrt(fabs(Gs[lane * m + lane])) : 0.0;
    // B's non-zeros in row `lane` (hs_sstep_cheb_B): column lane-1 (b_lo), lane (c), lane+1 (b_hi),
    // each present only when that column has a successor in its chain
    const int pc_last = s - 1, uc_first = s + 1, uc_last = s + 1 + (s - 2); // columns with a successor
    auto has_succ = [&](int col) { return (col >= 0 && col <= pc_last) || (col >= uc_first && col <= uc_last); };
    auto first_of_chain = [&](int col) { return col == 0 || col == uc_first; };
    const bool lo_on = own && lane >= 1 && has_succ(lane - 1);           // B[lane][lane-1]: col lane-1 -> lane
    const double b_lo = lo_on ? (first_of_chain(lane - 1) ? d : 0.5 * d) : 0.0;
    const bool di_on = own && has_succ(lane);                            // B[lane][lane] = c
    const bool hi_on = own && has_succ(lane + 1) && !first_of_chain(lane + 1); // B[lane][lane+1] = d/2
    double xc = 0.0, pc = lane == 0 ? 1.0 : 0.0, uc = lane == s + 1 ? 1.0 : 0.0, t = 0.0;
    int k = 0, status = HS_SSTEP_RUNNING;
    double q = 0.0, noise = 0.0;
    // the support of inner iteration kk (hs_sstep_support): p chain 0..lp, u chain s+1..s+1+lu
    auto in_sup = [&](int kk, int i) {
        const int lp = kk + 1 < s ? kk + 1 : s, lu = kk < s - 1 ? kk : s - 1;
        return i <= lp || (i >= s + 1 && i <= s + 1 + lu);
    };
    // row sums sum_{j in support(kk)} M[lane][j] v_j, ascending j, for two matrices and one vector
    auto rows2 = [&](int kk, const double *M1, const double *M2, double v, double &o1, double &o2) {
        const int lp = kk + 1 < s ? kk + 1 : s, lu = kk < s - 1 ? kk : s - 1;
        const int row = own ? lane * m : 0;
        double a1 = 0.0, a2 = 0.0;
        for (int j = 0; j <= lp; ++j) {
            const double vj = __shfl_sync(FULL, v, j);
            a1 += M1[row + j] * vj;
            a2 += M2[row + j] * vj;
        }
        for (int j = s + 1; j <= s + 1 + lu; ++j) {
            const double vj = __shfl_sync(FULL, v, j);
            a1 += M1[row + j] * vj;
            a2 += M2[row + j] * vj;
        }
        o1 = a1;
        o2 = a2;
    };
    auto rows1 = [&](int kk, const double *M1, double v) {
        const int lp = kk + 1 < s ? kk + 1 : s, lu = kk < s - 1 ? kk : s - 1;
        const int row = own ? lane * m : 0;
        double a1 = 0.0;
        for (int j = 0; j <= lp; ++j) a1 += M1[row + j] * __shfl_sync(FULL, v, j);
        for (int j = s + 1; j <= s + 1 + lu; ++j) a1 += M1[row + j] * __shfl_sync(FULL, v, j);
        return a1;
    };
    double rr, gamma;
    {
        double hu, gu;
        rows2(0, Hs, Gs, uc, hu, gu);
        const bool in = in_sup(0, lane);
        rr = warp_sum(in ? uc * hu : 0.0);
        gamma = warp_sum(in ? uc * gu : 0.0);
    }
    for (k = 0; k < s; ++k) {
        if (it0 + k >= max_iter) { status = HS_SSTEP_MAXIT; break; }
        const bool in = in_sup(k, lane);
        // t = B p on the support
        {
            const double pl = __shfl_up_sync(FULL, pc, 1), ph = __shfl_down_sync(FULL, pc, 1);
            double v = 0.0;
            if (lo_on && in_sup(k, lane - 1)) v += b_lo * pl;
            if (di_on) v += c * pc;
            if (hi_on && in_sup(k, lane + 1)) v += 0.5 * d * ph;
            t = in ? v : 0.0;
        }
        const double gt = rows1(k, Gs, t);
        const double denom = warp_sum(in ? pc * gt : 0.0);
        const double sg = warp_sum(in ? fabs(uc) * sqg : 0.0);
        const double sp = warp_sum(in ? fabs(pc) * sqg : 0.0) * warp_sum(in ? fabs(t) * sqg : 0.0);
        if (!isfinite(denom) || !isfinite(gamma)) { status = HS_SSTEP_NONFINITE; break; }
        if (!(gamma > theta * sg * sg)) { status = HS_SSTEP_BREAK; q = gamma; noise = theta * sg * sg; break; }
        if (!(denom > theta * sp)) { status = HS_SSTEP_BREAK; q = denom; noise = theta * sp; break; }
        const double alpha = gamma / denom;
        if (in) {
            xc += alpha * pc;
            uc -= alpha * t;
        }
        double hu, gu;
        rows2(k, Hs, Gs, uc, hu, gu);
        rr = warp_sum(in ? uc * hu : 0.0);
        const double gamma_new = warp_sum(in ? uc * gu : 0.0);
        const double beta = gamma_new / gamma;
        if (in) pc = uc + beta * pc;
        gamma = gamma_new;
        if (!isfinite(rr)) { status = HS_SSTEP_NONFINITE; ++k; break; }
        if (rr <= rr_target) { status = HS_SSTEP_CONV; ++k; break; }
    }
    if (own) {
        o->xc[lane] = xc;
        o->pc[lane] = pc;
        o->uc[lane] = uc;
    }
    if (lane == 0) {
        o->k = k;
        o->status = status;
        o->rr = rr;
        o->q = q;
        o->noise = noise;
    }
}

__global__ void __launch_bounds__(kT) k_cg_sstep(sstep_args a)
{
    cgrp::grid_group grid = cgrp::this_grid();
    __shared__ double sh[kT];
    // a chunk of kT rows of the basis, column-major with a padded stride (kYS = kT + 1: the threads of a
    // warp read one row of different columns, which then fall in different banks, not all in one)
    __shared__ double ysh[kM * kYS];
    __shared__ double scr[2 * kT];  // D of the chunk's rows, then the Gram partials of the row parts
    __shared__ double Gs[kM * kM], Hs[kM * kM];
    __shared__ hs_sstep_block blk;
    const int G = gridDim.x, S = a.S, m = 2 * S + 1, ne = m * (m + 1) / 2;
    const int64_t n = a.n, first = (int64_t)blockIdx.x * kT + threadIdx.x, stride = (int64_t)G * kT;

    // init as Chronopoulos-Gear from x = 0
    double g = 0.0, bb = 0.0;
    for (int64_t i = first; i < n; i += stride) {
        double bi = a.b[i], ui = a.dinv[i] * bi;
        a.x[i] = 0.0;
        a.r[i] = bi;
        a.u[i] = ui;
        a.p[i] = 0.0;
        a.s[i] = 0.0;
        g += bi * ui;
        bb += bi * bi;
    }
    g = hs_block_sum(g, sh);
    bb = hs_block_sum(bb, sh);
    if (threadIdx.x == 0) { a.partA[blockIdx.x] = g; a.partB[blockIdx.x] = bb; }
    grid.sync();
    const double bbt = hs_sum_partials(G, a.partB, sh);
    const double tol = a.d_res ? hs_cg_forcing_tol(a.cg_tol, a.forcing, a.tol_res, *a.d_res) : a.cg_tol;
    const double tol2 = tol * tol;
    cstate st = {};
    st.gamma = hs_sum_partials(G, a.partA, sh);
    st.rr = bbt;
    st.status = !isfinite(bbt) ? HS_GPU_CG_NONFINITE : bbt == 0.0 ? HS_GPU_CG_CONV
              : a.max_iter <= 0 ? HS_GPU_CG_MAXIT : HS_GPU_CG_RUNNING;
    double c = 0.0, d = 0.0;
    int have = 0;
    if (a.reuse) {
        c = __ldcg(a.cheb);
        d = __ldcg(a.cheb + 1);
        have = d > 0.0;
    }
    int limit = have ? 0 : S, fallback_iter = 0;
    double al[HS_CG_S_MAX], be[HS_CG_S_MAX];
    const double theta = hs_sstep_theta(S, (double)n);
    // The Gram reduction of a chunk of kT rows: task = (entry e of the upper triangle, part of the rows);
    // P = kT / ne parts (1 at s = 8, 5 at s = 4, 17 at s = 2) of len rows each, so the threads share
    // the rows as evenly as the entries allow; a task sums G_e and H_e together (one product
    // d y_a y_b for both, as the CPU's gram() does).
    const int P = kT / ne, plen = (kT + P - 1) / P, task_e = threadIdx.x % ne, task_p = threadIdx.x / ne;
    const bool tasked = threadIdx.x < ne * P;
    int ta = 0, tb = 0;
    {
        int f = task_e;
        while (f >= m - ta) { f -= m - ta; ++ta; }
        tb = ta + f;
    }
    const int r0 = task_p * plen, r1 = r0 + plen < kT ? r0 + plen : kT;
    // one row per thread (n <= grid kT, the sizes where s-step can pay): the chunk staged for the Gram
    // matrix is the block's whole basis, which the update then reads from shared memory, not L2
    const bool single = (int64_t)G * kT >= n;
    // ... and the powers sweep stages every level it computes into that shared chunk at once and reads
    // the own row's previous levels from there (no L2 read-back of its own rows)
    if (single && first >= n)
        for (int q = 0; q < m; ++q) ysh[q * kYS + threadIdx.x] = 0.0; // no row: zeros in the Gram sums

    while (st.status == HS_GPU_CG_RUNNING) {
        chrono_iters(a, st, limit, al, be, tol2, bbt, sh, grid);
        if (st.status != HS_GPU_CG_RUNNING) break;
        if (!have) {
            double th_min, th_max;
            hs_sstep_ritz(S, al, be, &th_min, &th_max);
            hs_sstep_interval(th_min, th_max, &c, &d);
            have = 1;
            if (blockIdx.x == 0 && threadIdx.x == 0) { a.cheb[0] = c; a.cheb[1] = d; }
        }
        // from the Chronopoulos state (u_k, p_{k-1}) to the first block's basis: Y0 = p_k, Y_{S+1} = u_k
        const double bt = st.k == 0 ? 0.0 : st.gamma / st.gamma_old;
        for (int64_t i = first; i < n; i += stride) {
            const double ui = __ldcg(a.u + i);
            a.Y[i] = ui + bt * __ldcg(a.p + i);
            a.Y[(S + 1) * n + i] = ui;
        }
        // s-step blocks until a stop or a breakdown
        while (st.status == HS_GPU_CG_RUNNING) {
            grid.sync(); // Y0 and Y_{S+1} of every row written
            if (single && first < n) { // the own row's levels live in the shared chunk (thread-private entries)
                ysh[threadIdx.x] = __ldcg(a.Y + first);
                ysh[(S + 1) * kYS + threadIdx.x] = __ldcg(a.Y + (int64_t)(S + 1) * n + first);
            }
            // the matrix powers kernel: level j of both chains in one sweep (Chebyshev recurrence)
            for (int j = 1; j <= S; ++j) {
                const double *pp = a.Y + (int64_t)(j - 1) * n, *up = a.Y + (int64_t)(S + j) * n;
                double *po = a.Y + (int64_t)j * n, *uo = a.Y + (int64_t)(S + 1 + j) * n;
                const double *pp2 = j >= 2 ? a.Y + (int64_t)(j - 2) * n : nullptr;
                const double *up2 = j >= 2 ? a.Y + (int64_t)(S + j - 1) * n : nullptr;
                for (int64_t i = first; i < n; i += stride) {
                    // one row per thread (single): the own row's previous levels from the shared chunk
                    double *yo = ysh + threadIdx.x;
                    const double di = a.dinv[i];
                    double ap, au = 0.0;
                    if (j < S) row_dot2(a, i, pp, up, ap, au);
                    else ap = row_dot(a, i, pp);
                    const double ppi = single ? yo[(j - 1) * kYS] : __ldcg(pp + i);
                    const double upi = single ? yo[(S + j) * kYS] : __ldcg(up + i);
                    double pv, uv = 0.0;
                    if (j == 1) {
                        pv = (di * ap - c * ppi) / d;
                        uv = (di * au - c * upi) / d; // j = 1 < S always (S >= 2)
                    } else {
                        pv = 2.0 / d * (di * ap - c * ppi) - (single ? yo[(j - 2) * kYS] : __ldcg(pp2 + i));
                        if (j < S)
                            uv = 2.0 / d * (di * au - c * upi) - (single ? yo[(S + j - 1) * kYS] : __ldcg(up2 + i));
                    }
                    po[i] = pv;
                    if (j < S) uo[i] = uv;
                    if (single) {
                        yo[j * kYS] = pv;
                        if (j < S) yo[(S + 1 + j) * kYS] = uv;
                    }
                }
                if (j < S) grid.sync(); // the last level is read only by its own rows (the Gram matrix)
            }
            // the block Gram reduction: G = Y'DY, H = Y'D^2Y over this block's rows (chunks of kT), each
            // thread reading back only the rows it wrote in the powers sweep (no barrier needed)
            double ag0 = 0.0, ah0 = 0.0, ag1 = 0.0, ah1 = 0.0;
            for (int64_t base = (int64_t)blockIdx.x * kT; base < n; base += stride) {
                const int64_t i = base + threadIdx.x;
                __syncthreads(); // the previous chunk is summed
                if (single) { // the chunk is in shared memory already (the powers sweep staged it)
                    scr[threadIdx.x] = first < n ? 1.0 / a.dinv[first] : 0.0;
                } else {
                    scr[threadIdx.x] = i < n ? 1.0 / a.dinv[i] : 0.0;
                    for (int q = 0; q < m; ++q)
                        ysh[q * kYS + threadIdx.x] = i < n ? __ldcg(a.Y + (int64_t)q * n + i) : 0.0;
                }
                __syncthreads();
                if (tasked) {
                    const double *ya = ysh + ta * kYS, *yb = ysh + tb * kYS;
                    int rI = r0;
                    for (; rI + 1 < r1; rI += 2) { // two independent chains (latency)
                        const double d0 = scr[rI], d1 = scr[rI + 1];
                        const double t0 = d0 * ya[rI] * yb[rI], t1 = d1 * ya[rI + 1] * yb[rI + 1];
                        ag0 += t0;
                        ah0 += d0 * t0;
                        ag1 += t1;
                        ah1 += d1 * t1;
                    }
                    if (rI < r1) {
                        const double d0 = scr[rI], t0 = d0 * ya[rI] * yb[rI];
                        ag0 += t0;
                        ah0 += d0 * t0;
                    }
                }
            }
            __syncthreads(); // scr's D is read; it now takes the parts' sums
            if (tasked) {
                scr[threadIdx.x] = ag0 + ag1;
                scr[kT + threadIdx.x] = ah0 + ah1;
            }
            __syncthreads();
            if (threadIdx.x < ne) { // the P parts of entry e in a fixed order: this block's partial
                double gp = 0.0, hp = 0.0;
                for (int q = 0; q < P; ++q) {
                    gp += scr[q * ne + threadIdx.x];
                    hp += scr[kT + q * ne + threadIdx.x];
                }
                a.partG[(int64_t)blockIdx.x * 2 * ne + threadIdx.x] = gp;
                a.partG[(int64_t)blockIdx.x * 2 * ne + ne + threadIdx.x] = hp;
            }
            grid.sync();
            // entry totals over the blocks, a warp per entry (fixed order: lane-strided, then a xor tree)
            {
                const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
                for (int e = blockIdx.x * kW + warp; e < 2 * ne; e += G * kW) {
                    double t = 0.0;
                    for (int bI = lane; bI < G; bI += 32) t += __ldcg(a.partG + (int64_t)bI * 2 * ne + e);
                    t = warp_sum(t);
                    if (lane == 0) a.gtot[e] = t;
                }
            }
            grid.sync();
            for (int e = threadIdx.x; e < 2 * ne; e += kT) {
                const int h = e >= ne;
                int f = e - (h ? ne : 0), row = 0;
                while (f >= m - row) { f -= m - row; ++row; }
                const int colI = row + f;
                double *M = h ? Hs : Gs;
                M[row * m + colI] = M[colI * m + row] = __ldcg(a.gtot + e);
            }
            __syncthreads();
            if (threadIdx.x < 32) sstep_inner_warp(S, Gs, Hs, c, d, tol2 * bbt, st.it, a.max_iter, theta, &blk);
            __syncthreads();
            const int bs = blk.status, bk = blk.k;
            if (bs == HS_SSTEP_NONFINITE) {
                st.status = HS_GPU_CG_NONFINITE;
                st.fail_iter = st.it + bk + 1;
                break;
            }
            if (bs == HS_SSTEP_BREAK) {
                // drop the block and the interval; Chronopoulos-Gear again from the current x
                fallback_iter = st.it;
                have = 0;
                if (blockIdx.x == 0 && threadIdx.x == 0) a.cheb[1] = 0.0;
                double gg = 0.0, rl = 0.0;
                for (int64_t i = first; i < n; i += stride) {
                    const double ri = a.b[i] - row_dot(a, i, a.x), ui = a.dinv[i] * ri;
                    a.r[i] = ri;
                    a.u[i] = ui;
                    a.p[i] = 0.0;
                    a.s[i] = 0.0;
                    gg += ri * ui;
                    rl += ri * ri;
                }
                gg = hs_block_sum(gg, sh);
                rl = hs_block_sum(rl, sh);
                if (threadIdx.x == 0) { a.partA[blockIdx.x] = gg; a.partB[blockIdx.x] = rl; }
                grid.sync();
                st.gamma = hs_sum_partials(G, a.partA, sh);
                st.rr = hs_sum_partials(G, a.partB, sh);
                st.gamma_old = st.alpha = 0.0;
                st.k = 0;
                limit = INT_MAX;
                if (!isfinite(st.rr)) st.status = HS_GPU_CG_NONFINITE;
                else if (st.rr <= tol2 * bbt) st.status = HS_GPU_CG_CONV;
                break; // back to chrono_iters, which now runs to the end
            }
            // x += Y xc, p = Y pc, u = Y uc, r = D u (the next block's Y0 and Y_{S+1})
            double rl = 0.0;
            for (int64_t i = first; i < n; i += stride) {
                double dx = 0.0, pi = 0.0, ui = 0.0;
                for (int q = 0; q < m; ++q) {
                    const double y = single ? ysh[q * kYS + threadIdx.x] : __ldcg(a.Y + (int64_t)q * n + i);
                    dx += blk.xc[q] * y;
                    pi += blk.pc[q] * y;
                    ui += blk.uc[q] * y;
                }
                const double ri = ui / a.dinv[i];
                a.x[i] += dx;
                a.Y[i] = pi;
                a.Y[(S + 1) * n + i] = ui;
                a.u[i] = ui;
                a.p[i] = pi;
                a.r[i] = ri;
                rl += ri * ri;
            }
            st.it += bk;
            st.rr = blk.rr;
            if (bs == HS_SSTEP_CONV || bs == HS_SSTEP_MAXIT) {
                // the recurrence residual itself decides, as on the cpu (one more reduction per solve)
                rl = hs_block_sum(rl, sh);
                if (threadIdx.x == 0) a.partB[blockIdx.x] = rl;
                grid.sync();
                st.rr = hs_sum_partials(G, a.partB, sh);
                if (!isfinite(st.rr)) st.status = HS_GPU_CG_NONFINITE;
                else if (bs == HS_SSTEP_CONV && st.rr <= tol2 * bbt) st.status = HS_GPU_CG_CONV;
                else if (bs == HS_SSTEP_MAXIT) st.status = HS_GPU_CG_MAXIT;
            }
        }
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        hs_gpu_cg_scalars *sc = a.sc;
        sc->bb = bbt;
        sc->rr = st.rr;
        sc->tol = tol;
        sc->tol2 = tol2;
        sc->gamma = st.gamma;
        sc->gamma_old = st.gamma_old;
        sc->alpha = st.alpha;
        sc->beta = st.beta;
        sc->pq = st.denom;
        sc->iters = st.it;
        sc->fail_iter = st.fail_iter;
        sc->max_iter = a.max_iter;
        sc->ticket = 0;
        sc->fallback_iter = fallback_iter;
        sc->status = st.status;
    }
}

__global__ void k_sstep_inner_check(int s, const double *G, const double *H, double c, double d, double rr_target,
                                    int it0, int max_iter, double theta, hs_sstep_block *out)
{
    __shared__ double Gs[kM * kM], Hs[kM * kM];
    __shared__ hs_sstep_block blk;
    const int m = 2 * s + 1;
    for (int e = threadIdx.x; e < m * m; e += blockDim.x) {
        Gs[e] = G[e];
        Hs[e] = H[e];
    }
    __syncthreads();
    sstep_inner_warp(s, Gs, Hs, c, d, rr_target, it0, max_iter, theta, &blk);
    __syncwarp();
    if (threadIdx.x == 0) *out = blk;
}

} // namespace

hs_status hs_gpu_sstep_inner_check(int s, const double *G, const double *H, double c, double d, double rr_target,
                                   int it0, int max_iter, double theta, hs_sstep_block *out)
{
    HS_CHECK(s >= HS_CG_S_MIN && s <= HS_CG_S_MAX, HS_ERR_INTERNAL, "s-step CG: s = %d outside %d..%d", s,
             HS_CG_S_MIN, HS_CG_S_MAX);
    const int m = 2 * s + 1;
    double *dG = nullptr;
    hs_sstep_block *dout = nullptr;
    HS_CALL(HS_CUDA_ALLOC(dG, (size_t)2 * m * m, "s-step inner check matrices"));
    hs_status st = HS_OK;
    if (cudaMalloc(&dout, sizeof *dout) != cudaSuccess) {
        cudaFree(dG);
        return HS_FAIL(HS_ERR_DEVICE, "s-step inner check: cudaMalloc failed");
    }
    if (cudaMemcpy(dG, G, sizeof(double) * m * m, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(dG + m * m, H, sizeof(double) * m * m, cudaMemcpyHostToDevice) != cudaSuccess)
        st = HS_FAIL(HS_ERR_DEVICE, "s-step inner check: copy to the device failed");
    if (st == HS_OK) {
        k_sstep_inner_check<<<1, 32>>>(s, dG, dG + m * m, c, d, rr_target, it0, max_iter, theta, dout);
        cudaError_t e = cudaGetLastError();
        if (e == cudaSuccess) e = cudaMemcpy(out, dout, sizeof *out, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) st = HS_FAIL(HS_ERR_DEVICE, "s-step inner check: %s", cudaGetErrorString(e));
    }
    cudaFree(dG);
    cudaFree(dout);
    return st;
}

hs_status hs_gpu_cg_set_sstep(hs_gpu_cg *cg, int s, const int32_t *d_row_ptr, const int32_t *d_col,
                              const int64_t *d_slot, const void *d_vals, int f32)
{
    HS_CHECK(cg->variant == HS_CG_SSTEP, HS_ERR_INTERNAL, "hs_gpu_cg_set_sstep on a %s CG",
             hs_cg_variant_name(cg->variant));
    if (s == 0) s = HS_CG_S_DEFAULT;
    HS_CHECK(s >= HS_CG_S_MIN && s <= HS_CG_S_MAX, HS_ERR_INTERNAL, "s-step CG: s = %d outside %d..%d", s,
             HS_CG_S_MIN, HS_CG_S_MAX);
    int dev = 0, sms = 0, per_sm = 0, coop = 0;
    HS_CUDA_CALL(cudaGetDevice(&dev));
    HS_CUDA_CALL(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    HS_CUDA_CALL(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    HS_CHECK(coop, HS_ERR_DEVICE,
             "this GPU does not support cooperative launches, which solver.cg = \"sstep\" needs (use chronopoulos)");
    HS_CUDA_CALL(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_cg_sstep, kT, 0));
    HS_CHECK(per_sm > 0, HS_ERR_DEVICE, "s-step CG: the kernel cannot be resident");
    // as the persistent Chronopoulos kernel: one block per kT rows, never more than can be resident
    int64_t want = ((int64_t)cg->n + kT - 1) / kT, cap = (int64_t)sms * per_sm;
    if (cap > HS_DOT_MAX_PARTS) cap = HS_DOT_MAX_PARTS;
    cg->pgrid = (int)(want < 1 ? 1 : want > cap ? cap : want);
    const int m = 2 * s + 1, ne = m * (m + 1) / 2;
    cudaFree(cg->sstep_Y);
    cudaFree(cg->sstep_partG);
    cudaFree(cg->sstep_gtot);
    cudaFree(cg->sstep_cheb);
    cg->sstep_Y = cg->sstep_partG = cg->sstep_gtot = cg->sstep_cheb = nullptr;
    HS_CALL(HS_CUDA_ALLOC(cg->sstep_Y, (size_t)m * (cg->n > 0 ? cg->n : 1), "s-step CG basis"));
    HS_CALL(HS_CUDA_ALLOC(cg->sstep_partG, (size_t)cg->pgrid * 2 * ne, "s-step CG Gram partials"));
    HS_CALL(HS_CUDA_ALLOC(cg->sstep_gtot, (size_t)2 * kNE, "s-step CG Gram matrix"));
    HS_CALL(HS_CUDA_ALLOC(cg->sstep_cheb, 2, "s-step CG interval"));
    HS_CUDA_CALL(cudaMemset(cg->sstep_cheb, 0, 2 * sizeof(double)));
    cg->sstep_s = s;
    cg->p_rowptr = d_row_ptr;
    cg->p_col = d_col;
    cg->p_slot = d_slot;
    cg->p_vals = d_vals;
    cg->p_f32 = f32;
    cg->persistent = 1;
    return HS_OK;
}

hs_status hs_gpu_cg_launch_sstep(hs_gpu_cg *cg, const double *b, double *x, const hs_gpu_cg_tol *t, cudaStream_t s)
{
    sstep_args a = {};
    a.n = cg->n;
    a.S = cg->sstep_s;
    a.rp = cg->p_rowptr;
    a.col = cg->p_col;
    a.slot = cg->p_slot;
    a.val = cg->p_vals;
    a.f32 = cg->p_f32;
    a.dinv = cg->dinv;
    a.b = b;
    a.x = x;
    a.r = cg->r;
    a.u = cg->u;
    a.p = cg->p;
    a.s = cg->s;
    a.w = cg->w;
    a.Y = cg->sstep_Y;
    a.partA = cg->partA;
    a.partB = cg->partB;
    a.partD = cg->partD;
    a.partG = cg->sstep_partG;
    a.gtot = cg->sstep_gtot;
    a.cheb = cg->sstep_cheb;
    a.reuse = cg->sstep_reuse;
    a.sc = cg->d_sc;
    a.cg_tol = t->cg_tol;
    a.forcing = t->forcing;
    a.tol_res = t->tol_res;
    a.d_res = t->d_res;
    a.max_iter = t->max_iter;
    void *args[] = {&a};
    HS_CUDA_CALL(cudaLaunchCooperativeKernel((const void *)k_cg_sstep, dim3(cg->pgrid), dim3(kT), args, 0, s));
    HS_CUDA_LAUNCH_CHECK("k_cg_sstep");
    return HS_OK;
}
