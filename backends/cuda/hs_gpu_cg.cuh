/**
 * @file hs_gpu_cg.cuh
 * @brief Jacobi-PCG on the device (CUDA-only header): the textbook variant and Chronopoulos-Gear
 * (seed 004 ch. 4), with every scalar (alpha, beta, norms, the convergence test) computed and kept on
 * the device, so a solve needs no host synchronisation. Two ways to run one:
 *  - on a stream, the host reading the status word every `poll` iterations (cost: up to poll-1
 *    iterations of SpMV after convergence; the vector kernels exit at once);
 *  - captured into a CUDA graph as init + a WHILE conditional node whose body is one iteration; the
 *    kernel that runs the convergence test also sets the loop condition, so the loop stops exactly
 *    at convergence with no host involvement at all (CUDA 12.4+ conditional nodes).
 * Reductions use fixed grids and fixed summation trees: the same inputs give the same bits.
 * Convergence test: ||r||_2 <= tol ||b||_2 on the recurrence residual, after the r update, exactly
 * as the CPU reference (solvers/cg.c), for both variants.
 */
#ifndef HS_GPU_CG_CUH
#define HS_GPU_CG_CUH

#include <cuda_runtime.h>

#include "hs_cg.h"
#include "hs_gpu_spmv.cuh"

enum { HS_GPU_CG_RUNNING = 0, HS_GPU_CG_CONV = 1, HS_GPU_CG_BREAK = 2, HS_GPU_CG_NONFINITE = 3,
       HS_GPU_CG_MAXIT = 4 };

/**
 * One row of the Chronopoulos-Gear vector update (seed 004 ch. 4): p = u + beta p, s = w + beta s,
 * x += alpha p, r -= alpha s, u = D^-1 r; adds the row's (r, u) to gg and (r, r) to rr. Shared by the
 * kernel-sequence CG (backends/cuda/cg.cu) and the persistent one (backends/cuda/cg_persistent.cu), so both do the same
 * arithmetic.
 */
__device__ __forceinline__ void hs_cgc_update_row(int64_t i, double alpha, double beta, double *x, double *r,
                                                  double *u, double *p, double *s, const double *w,
                                                  const double *dinv, double &gg, double &rr)
{
    const double pi = u[i] + beta * p[i];
    const double si = w[i] + beta * s[i];
    x[i] += alpha * pi;
    const double ri = r[i] - alpha * si;
    const double ui = dinv[i] * ri;
    p[i] = pi;
    s[i] = si;
    r[i] = ri;
    u[i] = ui;
    gg += ri * ui;
    rr += ri * ri;
}

/** The solver's device scalars (copied to the host as one block when the host needs them). */
struct hs_gpu_cg_scalars {
    double bb, rr, tol2;        /**< ||b||^2, ||r||^2, tol^2 */
    double gamma, gamma_old;    /**< (r, M^-1 r) now and one iteration ago */
    double alpha, beta, pq;     /**< step, direction update, (p, A p) (classic) */
    double tol;                 /**< relative tolerance this solve used (inexact Newton) */
    int status, iters, max_iter;
    int fail_iter;              /**< iteration at which a breakdown was found */
    unsigned ticket;            /**< last-block counter of the fused vector kernel (0 between kernels) */
    unsigned ticket_spmv;       /**< the same for the fused SpMV's dot product */
    double delta;               /**< (A u, u) from the fused SpMV */
    int fallback_iter;          /**< sstep: iteration after which the basis broke down (0: it did not) */
};

/** Where the tolerance of a solve comes from: hs_cg_forcing_tol(cg_tol, forcing, tol_res, *d_res)
 *  evaluated on the device (d_res NULL: cg_tol). */
struct hs_gpu_cg_tol {
    double cg_tol, forcing, tol_res;
    const double *d_res;
    int max_iter;
};

struct hs_gpu_cg;

/** A CG on one rank's partition (hs_gpu_cg_set_dist): the operator over the owned rows and the sum
 *  over the ranks, both enqueued on the solve's stream (backends/cuda/dist_gpu.cu). */
struct hs_gpu_cg_dist {
    /** y[0..n_owned) = A x, x [n_local] on the device: fills x's ghosts itself (halo exchange) */
    hs_status (*spmv)(void *ctx, double *x, double *y, cudaStream_t s);
    /** NULL: (A u, u) is a separate dot pass after spmv; else y[0..n_owned) = A x, x's ghosts exchanged on
     *  the way, with (y, x) over the owned rows into *result in the same kernel (the format's
     *  apply_dot_rows: its partials in part [max_parts], its ticket, its fixed order), which the init and
     *  every iteration then use instead of spmv + the dot pass (and iteration/init, when set, their own
     *  fused equivalent: the same bits) */
    hs_status (*spmv_dot)(void *ctx, double *x, double *y, double *part, int max_parts, unsigned *ticket,
                          double *result, cudaStream_t s);
    /** d_v[0..n) summed over the ranks in place, ordered on s (backends/cuda/hs_cuda_comm.h) */
    hs_status (*sum)(void *ctx, double *d_v, int n, cudaStream_t s);
    void *ctx;
    /** 1: the solve replays its iterations from a CUDA graph of HS_CG_POLL of them (spmv and sum
     *  enqueue only capturable work: NCCL >= 2.9), 0: launches them one by one */
    int graph;
    /** the graph's bookkeeping (NULL: none): HS_GPU_CG_NOTE_CAPTURE before a capture,
     *  HS_GPU_CG_NOTE_CAPTURED after it (what spmv and sum counted then ran nothing), HS_GPU_CG_NOTE_REPLAY
     *  after each launch of the graph (it ran what the capture counted) */
    void (*note)(void *ctx, int what);
    /** NULL: an iteration is cg.cu's kernel sequence over spmv and sum; else it enqueues a whole
     *  iteration itself, the transport fused into the kernels (the ipc transport: dist_pcg.cu, the same
     *  bits), its last kernel setting @p cond to "still running" when @p use_cond (a WHILE body:
     *  hs_gpu_cg_capture_solve) */
    hs_status (*iteration)(void *ctx, struct hs_gpu_cg *cg, double *x, cudaStream_t s, cudaGraphConditionalHandle cond,
                           int use_cond);
    /** NULL: the init is cg.cu's kernel sequence; else it enqueues the init (x = 0 and the scalars from
     *  b, tolerance t) itself, fused likewise, setting @p cond when @p use_cond */
    hs_status (*init)(void *ctx, struct hs_gpu_cg *cg, const double *b, double *x, const struct hs_gpu_cg_tol *t,
                      cudaStream_t s, cudaGraphConditionalHandle cond, int use_cond);
};

enum { HS_GPU_CG_NOTE_CAPTURE = 0, HS_GPU_CG_NOTE_CAPTURED = 1, HS_GPU_CG_NOTE_REPLAY = 2 };

struct hs_gpu_cg {
    hs_cg_variant variant;
    int32_t n;
    hs_gpu_spmv *spmv;          /**< borrowed */
    const double *dinv;         /**< borrowed [n] Jacobi */
    int fused;                  /**< Chronopoulos: the SpMV also forms (A u, u) */
    int vblocks;                /**< grid of the vector kernels (a function of n only) */
    double *r, *u, *p, *w, *s;  /**< [n] (classic: u = z, w = q; s unused) */
    double *partA, *partB, *partD; /**< reduction partials: [HS_DOT_MAX_PARTS], partD [dparts_cap] */
    int dparts_cap;             /**< blocks of a fused SpMV (its grid is capped at this) */
    hs_gpu_cg_scalars *d_sc;
    cudaStream_t s_body;        /**< side stream used only to capture the loop body */
    int body_iters;             /**< iterations in the captured loop's body (hs_gpu_cg_set_body_iters) */
    /* persistent mode (hs_gpu_cg_set_persistent): the whole solve as one cooperative kernel */
    int persistent, pgrid;
    const int32_t *p_rowptr, *p_col; /**< borrowed CSR pattern [n+1], [nnz] */
    const int64_t *p_slot;           /**< borrowed slot of each CSR nonzero in p_vals (NULL: identity) */
    const void *p_vals;              /**< borrowed matrix values in the SpMV format's slots (double, or
                                          float when p_f32) */
    int p_f32;
    int p_barriers;                  /**< 1: one grid barrier per iteration (hs_gpu_cg1.cuh, the default),
                                          2: the two-barrier kernel (kept for bench cg's comparison) */
    int p_tpr;                       /**< one-barrier kernel: threads per row (1, 2, 4, 8) */
    int p_grid1, p_block1;           /**< its grid and block size */
    double4_32a *p_q;                    /**< [2][n] its {r, s, w, D^-1} records */
    double *p_part;                  /**< [2][3][p_grid1] its block partials */
    /* s-step (variant HS_CG_SSTEP, hs_gpu_cg_set_sstep): always the persistent kernel of cg_sstep.cu */
    int sstep_s;                     /**< s (iterations per block) */
    int sstep_reuse;                 /**< keep the Chebyshev interval across solves (set by the caller) */
    double *sstep_Y;                 /**< [2s+1][n] basis */
    double *sstep_partG, *sstep_gtot; /**< Gram partials [pgrid][2 ne], totals [2 ne] */
    double *sstep_cheb;              /**< [2] kept interval (centre, half-width; half-width 0: none) */
    /* on a partition (hs_gpu_cg_set_dist; NULL: one partition, the code above) */
    const hs_gpu_cg_dist *dist;      /**< borrowed */
    double *d_red;                   /**< [3] the sums of an iteration, reduced over the ranks in place */
    cudaGraphExec_t dist_exec;       /**< dist->graph: dist_k iterations on x = dist_x, captured once */
    double *dist_x;
    int dist_k;
};

/** @brief Device CG for systems of size n with @p spmv (borrowed) and Jacobi @p d_dinv (borrowed). */
hs_status hs_gpu_cg_create(int32_t n, hs_cg_variant variant, hs_gpu_spmv *spmv, const double *d_dinv,
                           hs_gpu_cg **out);
void hs_gpu_cg_destroy(hs_gpu_cg **p);

/**
 * @brief Run every later solve of this (Chronopoulos) CG as one persistent cooperative kernel
 * (backends/cuda/cg_persistent.cu) with its own CSR SpMV through the slot map, instead of a kernel sequence:
 * for small systems, where launch latency and not bandwidth bounds an iteration. All pointers
 * borrowed; @p d_vals holds doubles, or floats when @p f32 (solver.matrix_values = float32).
 * HS_ERR_DEVICE when the device cannot launch cooperative kernels.
 */
hs_status hs_gpu_cg_set_persistent(hs_gpu_cg *cg, const int32_t *d_row_ptr, const int32_t *d_col,
                                   const int64_t *d_slot, const void *d_vals, int f32);
/**
 * @brief Choose the persistent kernel after hs_gpu_cg_set_persistent: @p barriers = 1 (one grid barrier
 * per iteration, hs_gpu_cg1.cuh; allocates 4n doubles of records) or 2 (the two-barrier kernel);
 * @p tpr: threads per row of the one-barrier kernel (1, 2, 4, 8; 0: the default, 1).
 */
hs_status hs_gpu_cg_set_persistent_kind(hs_gpu_cg *cg, int barriers, int tpr);
/** @brief What bounds the one-barrier kernel on its grid (bench cg): seconds per phase of a grid
 *  barrier alone (out[0]) and of the barrier with the phase's reductions (out[1]); medians of @p reps
 *  launches of @p iters phases. */
hs_status hs_gpu_cg1_floor(hs_gpu_cg *cg, int iters, int reps, double out[2]);

/**
 * @brief Make this (HS_CG_SSTEP) CG an s-step one with @p s iterations per block (0: HS_CG_S_DEFAULT):
 * every solve is one persistent cooperative kernel (backends/cuda/cg_sstep.cu) with its own CSR SpMV
 * through the slot map, so it serves every SpMV format (each has a slot map). Allocates the basis
 * ((2s+1) n doubles). Pointers borrowed. HS_ERR_DEVICE without cooperative launches.
 */
hs_status hs_gpu_cg_set_sstep(hs_gpu_cg *cg, int s, const int32_t *d_row_ptr, const int32_t *d_col,
                              const int64_t *d_slot, const void *d_vals, int f32);
/** @brief Enqueue one s-step solve (called by hs_gpu_cg_launch_persistent for HS_CG_SSTEP). */
hs_status hs_gpu_cg_launch_sstep(hs_gpu_cg *cg, const double *b, double *x, const hs_gpu_cg_tol *t, cudaStream_t s);
struct hs_sstep_block;
/**
 * @brief The s-step kernel's inner iterations on one warp (sstep_inner_warp, cg_sstep.cu) run alone on
 * host-given G, H (m x m, m = 2s+1, row-major) and Chebyshev interval (c, d), with hs_sstep_inner's
 * arguments; result to @p out. Synchronous; for tests (test_gpu_cg_sstep checks it against
 * hs_sstep_inner, the CPU reference).
 */
hs_status hs_gpu_sstep_inner_check(int s, const double *G, const double *H, double c, double d, double rr_target,
                                   int it0, int max_iter, double theta, struct hs_sstep_block *out);
/** @brief Enqueue one persistent solve (internal to backends/cuda/cg.cu's solve and capture paths). */
hs_status hs_gpu_cg_launch_persistent(hs_gpu_cg *cg, const double *b, double *x, const hs_gpu_cg_tol *t,
                                      cudaStream_t s);

/**
 * @brief Solve on one rank's partition from now on: the vectors' first @p n_owned rows are this rank's
 * (the CG was created with n_local >= n_owned rows: u's ghosts live behind them), @p dist (borrowed)
 * multiplies and sums over the ranks. Chronopoulos-Gear as hs_cg_chronopoulos runs over a distributed
 * comm (solvers/cg.c): the SpMV moved before the convergence test so that (r,u), (r,r) and (A u, u)
 * travel in one all-reduce per iteration; alpha, beta and the test on the device (no host wait: the
 * stream path as serially, the all-reduce enqueued on the stream). Not the persistent or s-step kernels
 * (HS_ERR_INTERNAL); hs_gpu_cg_capture_solve only when dist->iteration fuses the transport into the
 * kernels (the ipc transport: its last kernel sets the WHILE node's condition), else the host takes the
 * stopping decision every poll iterations. With dist->graph, hs_gpu_cg_solve_stream replays each chunk of poll iterations from a
 * CUDA graph captured at the first solve (kept while x and poll stay; the same kernels in the same
 * order, so the same bits as the launches one by one); the init and a last chunk shorter than poll
 * (max_iter) are launched one by one.
 */
hs_status hs_gpu_cg_set_dist(hs_gpu_cg *cg, int32_t n_owned, const hs_gpu_cg_dist *dist);
/** @brief Back to one partition of @p n rows (the graph of hs_gpu_cg_set_dist freed). */
void hs_gpu_cg_clear_dist(hs_gpu_cg *cg, int32_t n);

/** @brief Grid of the CG vector kernels and of the separate dot pass for n rows (<= HS_DOT_MAX_PARTS). */
int hs_gpu_cg_vblocks(int32_t n);
/** @brief Size of the partial buffer a fused SpMV + dot (apply_dot) gets for n rows. */
int hs_gpu_cg_dparts_cap(int32_t n);
/** @brief The separate dot pass: part[b] = block b's share of a . b, hs_gpu_cg_vblocks(n) blocks, a
 *  fixed order. With @p sc it returns at once unless that CG is still running (NULL: always runs). */
hs_status hs_gpu_dot_pass(int32_t n, const double *a, const double *b, double *part, const hs_gpu_cg_scalars *sc,
                          cudaStream_t s);

/**
 * @brief Solve A x = b from x = 0 on stream @p s, reading the status every @p poll iterations; the
 * final scalars land in @p h_sc (pinned). Returns HS_OK whatever the outcome (h_sc->status says).
 */
hs_status hs_gpu_cg_solve_stream(hs_gpu_cg *cg, const double *b, double *x, const hs_gpu_cg_tol *t,
                                 int poll, cudaStream_t s, hs_gpu_cg_scalars *h_sc);

/**
 * @brief Append a whole solve (init, then a WHILE node looping over iterations until the device says
 * stop) to the graph that stream @p s is capturing. Nothing runs now.
 */
hs_status hs_gpu_cg_capture_solve(hs_gpu_cg *cg, const double *b, double *x, const hs_gpu_cg_tol *t,
                                  cudaStream_t s);

/** @brief The rows the one-barrier persistent CG holds at one thread each on this device (SMs x its
 *  resident 1024-thread blocks x 1024, the smaller over float32 and float64 values; 0 if the device
 *  cannot say): solver.persistent and solver.step = "auto" stop there (hs_cuda_persistent_auto_rows). */
int64_t hs_gpu_cg_one_pass_rows(void);

/** Most iterations a captured solve's WHILE body holds (hs_gpu_cg_set_body_iters). */
#define HS_GPU_CG_MAX_BODY_ITERS 16

/** @brief Iterations in the body of hs_gpu_cg_capture_solve's WHILE node from now on (1..16; default 4,
 *  or HS_CG_BODY_ITERS): the same bits and iterations whatever @p k. The body holds one on a partition,
 *  and where the SpMV is not fused (classic CG, a format without apply_dot: no gate to stop it). */
hs_status hs_gpu_cg_set_body_iters(hs_gpu_cg *cg, int k);

/** @brief Enqueue init and exactly k iterations (status-guarded) on @p s: for benchmarks. In
 *  persistent mode: one solve of exactly k iterations (t->max_iter replaced by k). */
hs_status hs_gpu_cg_enqueue_fixed(hs_gpu_cg *cg, const double *b, double *x, const hs_gpu_cg_tol *t,
                                  int k, int init, cudaStream_t s);

/** @brief Device-side outcome to hs_cg_result (from host copy @p h of the scalars). */
void hs_gpu_cg_result_of(const hs_gpu_cg_scalars *h, hs_cg_result *res);

#endif
