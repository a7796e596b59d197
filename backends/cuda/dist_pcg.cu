/*
 * The distributed Chronopoulos-Gear iteration with the ipc transport fused into its kernels
 * (hs_dist_pcg.cuh says what runs where; the kernel sequence of cg.cu over the same transport is the
 * reference: the same arithmetic in the same order, so the same bits, which
 * tests/parallel/test_gpu_dist_pcg.cu checks).
 *
 * Why not one persistent cooperative kernel per solve: at bench_1m's size (515K rows a rank on two
 * GPUs) an iteration is bandwidth work (~43 us), and the one-barrier persistent CG (hs_gpu_cg1.cuh)
 * with its CSR product through the slot map measured 181 us per iteration at 1M rows on one H100
 * against 86 us for the kernel sequence with the format's SpMV (docs/benchmarks.md): the gaps between
 * kernels, not the kernels, are what the fusion removes; the format's SpMV and the graph replay stay.
 *
 * Deadlock freedom: the vector kernel's last block waits only for the peers' vector kernels of the same
 * iteration, whose other blocks never wait and whose last blocks raise their flags before they wait;
 * the dot kernel's last block waits only for the peers' dot kernels of the same iteration, whose other
 * blocks never wait and which depend only on the vector kernels and the product before them. With the
 * dot in the product (spmv_dot) the product waits for nothing, and the one-block kernel after it waits
 * only for the peers' one-block kernels of the same iteration, which depend only on their vector kernels
 * (above) and products; the vector kernel's last block sums its partials between raising its flags and
 * waiting, so a neighbour's wait never depends on that sum. Every wait gives up after the transport's
 * timeout (hs_ipc_wait_flag), and hs_cuda_comm_check names the silent peer after the host's
 * synchronisation.
 */
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdint>
#include <cstdlib>

#include "cuda_backend.cuh"
#include "hs_dist_pcg.cuh"
#include "hs_gpu_reduce.cuh"
#include "hs_ipc_comm.cuh"
#include "hs_util.h"

namespace {

constexpr int kT = HS_RED_THREADS; // cg.cu's vector, dot and final kernels' block size: the same partials

/* 1. alpha and beta in every block (hs_dist_cg_coef on the same scalars: the same bits), the rows'
 * update (hs_cgc_update_row) and the partials of (r,u), (r,r) as k_dist_vector; each row another rank
 * holds as a ghost stored into that rank's ghosts of u (hs_ipc_bind_vector); the last
 * block raises the halo flags (every block's stores fenced at system scope before its ticket), waits
 * for the neighbours' (hs_ipc_dev_halo_last) and writes the scalars k_dist_coef writes. Every
 * block reads the scalars before its ticket and only the last block writes them: no race. After the
 * solve stopped (or broke down here) the rows stay and their values are still sent: every rank
 * exchanges alike, whatever the status (which is every rank's).
 * kRed (the dot in the product: spmv_dot): the last block also sums the two partial arrays into
 * red[0], red[1] (hs_dist_sums<2>: k_dist_final2's bits, which are k_dist_final3's for these two),
 * between raising its flags and waiting for the neighbours' (the sums overlap the flags in flight). */
template <bool kRed>
__global__ void __launch_bounds__(kT)
k_pcg_vector(int32_t n, hs_gpu_cg_scalars *sc, double *__restrict__ x, double *__restrict__ r, double *__restrict__ u,
             double *__restrict__ p, double *__restrict__ s, const double *__restrict__ w,
             const double *__restrict__ dinv, double *partA, double *partB, double *red, hs_ipc_dev v)
{
    __shared__ double sh[kT];
    __shared__ int last;
    const int running = sc->status == HS_GPU_CG_RUNNING;
    double alpha = 0.0, beta = 0.0, denom = 0.0;
    int verdict = HS_GPU_CG_RUNNING;
    const int upd = running && hs_dist_cg_coef(sc, &alpha, &beta, &denom, &verdict); // uniform over the grid
    const hs_ipc_u64 seq = v.n_nbrs ? hs_ipc_dev_halo_next(v) : 0;
    double gg = 0.0, rr = 0.0;
    for (int32_t i = blockIdx.x * kT + threadIdx.x; i < n; i += gridDim.x * kT) {
        if (upd) hs_cgc_update_row(i, alpha, beta, x, r, u, p, s, w, dinv, gg, rr);
        if (i >= v.row_lo) hs_ipc_dev_store_row(v, i, u[i], seq);
    }
    if (upd) {
        gg = hs_block_sum(gg, sh);
        rr = hs_block_sum(rr, sh);
        if (threadIdx.x == 0) { partA[blockIdx.x] = gg; partB[blockIdx.x] = rr; }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence_system(); // this block's remote stores and partials before its ticket
        last = atomicAdd(&sc->ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    if (v.n_nbrs) hs_ipc_dev_halo_raise(v, seq);
    if (kRed && upd) { /* uniform over the block */
        const double *const pp[2] = {partA, partB};
        double o[2];
        hs_dist_sums<2>((int)gridDim.x, pp, sh, o);
        if (threadIdx.x == 0) { red[0] = o[0]; red[1] = o[1]; }
    }
    if (v.n_nbrs) hs_ipc_dev_halo_wait(v, seq); /* direct: the neighbours' flags, then the ghosts are in */
    if (threadIdx.x == 0) {
        sc->ticket = 0;
        if (upd) {
            sc->alpha = alpha;
            sc->beta = beta;
            sc->pq = denom;
        } else if (running) {
            sc->status = verdict;
            sc->fail_iter = sc->iters + 1;
        }
    }
}

/* 3. the partials of (w, u) as k_dot; the last block: the three partial arrays summed as
 * k_dist_final3 sums them (red = (r,u), (r,r), (A u, u)), summed over the ranks in rank order
 * (hs_ipc_dev_block_sum, as hs_ipc_sum), the test (hs_dist_cg_test). Once the solve stopped only the
 * sum over the ranks runs (on stale values nobody reads), as in the sequence. In a WHILE body
 * (use_cond) it sets the loop's condition: running or not, the same on every rank. */
__global__ void __launch_bounds__(kT)
k_pcg_dot_sum(int32_t n, int nparts, const double *__restrict__ w, const double *__restrict__ u, const double *partA,
              const double *partB, double *partD, double *red, hs_gpu_cg_scalars *sc, hs_ipc_dev v,
              cudaGraphConditionalHandle cond, int use_cond)
{
    __shared__ double sh[kT];
    __shared__ int last;
    const int running = sc->status == HS_GPU_CG_RUNNING;
    if (running) {
        double d = 0.0;
        for (int32_t i = blockIdx.x * kT + threadIdx.x; i < n; i += gridDim.x * kT) d += w[i] * u[i];
        d = hs_block_sum(d, sh);
        if (threadIdx.x == 0) partD[blockIdx.x] = d;
    }
    if (threadIdx.x == 0) {
        __threadfence(); // the partial before the ticket
        last = atomicAdd(&sc->ticket_spmv, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    if (running) {
        double a, b, c;
        hs_dist_sum3(nparts, partA, partB, partD, sh, a, b, c); // as k_dist_final3
        if (threadIdx.x == 0) { red[0] = a; red[1] = b; red[2] = c; }
    }
    hs_ipc_dev_block_sum(v, red, 3); // synchronises the block before and after
    if (threadIdx.x == 0) {
        sc->ticket_spmv = 0;
        hs_dist_cg_test(red, sc);
        if (use_cond) cudaGraphSetConditional(cond, sc->status == HS_GPU_CG_RUNNING);
    }
}

/* 3'. after the product with its dot (spmv_dot: red[2] = (w, u) over the owned rows, its own last block;
 * red[0], red[1] from the vector kernel's last block): one block sums the three over the ranks in rank
 * order (hs_ipc_dev_block_sum), runs the test (hs_dist_cg_test) and sets a WHILE node's condition, as
 * k_pcg_dot_sum's last block. Once the solve stopped only the sum over the ranks runs (stale values). */
__global__ void __launch_bounds__(kT)
k_pcg_sum_test(double *red, hs_gpu_cg_scalars *sc, hs_ipc_dev v, cudaGraphConditionalHandle cond, int use_cond)
{
    hs_ipc_dev_block_sum(v, red, 3); // synchronises the block before and after
    if (threadIdx.x == 0) {
        hs_dist_cg_test(red, sc);
        if (use_cond) cudaGraphSetConditional(cond, sc->status == HS_GPU_CG_RUNNING);
    }
}

/* The init's rows as k_init (hs_cg_init_row) with the partials of (r,u), (b,b), u's sent rows stored into
 * the neighbours' ghosts, the last block's flags and wait (as k_pcg_vector); kRed: the last block also
 * sums the two partial arrays into red[0] = (r,u), red[2] = (b,b) (the init's order of red; k_dist_final2's
 * bits), between its flags and its wait. */
template <bool kRed>
__global__ void __launch_bounds__(kT)
k_pcg_init(int32_t n, const double *__restrict__ b, const double *__restrict__ dinv, double *__restrict__ x,
           double *__restrict__ r, double *__restrict__ u, double *__restrict__ p, double *__restrict__ s,
           double *partA, double *partB, double *red, hs_gpu_cg_scalars *sc, hs_ipc_dev v)
{
    __shared__ double sh[kT];
    __shared__ int last;
    const hs_ipc_u64 seq = v.n_nbrs ? hs_ipc_dev_halo_next(v) : 0;
    double g = 0.0, bb = 0.0;
    for (int32_t i = blockIdx.x * kT + threadIdx.x; i < n; i += gridDim.x * kT) {
        hs_cg_init_row(i, b, dinv, x, r, u, p, s, g, bb);
        if (i >= v.row_lo) hs_ipc_dev_store_row(v, i, u[i], seq);
    }
    g = hs_block_sum(g, sh);
    bb = hs_block_sum(bb, sh);
    if (threadIdx.x == 0) {
        partA[blockIdx.x] = g;
        partB[blockIdx.x] = bb;
        __threadfence_system(); // this block's remote stores (before the block sums' barriers) and partials
        last = atomicAdd(&sc->ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    if (v.n_nbrs) hs_ipc_dev_halo_raise(v, seq);
    if (kRed) {
        const double *const pp[2] = {partA, partB};
        double o[2];
        hs_dist_sums<2>((int)gridDim.x, pp, sh, o);
        if (threadIdx.x == 0) { red[0] = o[0]; red[2] = o[1]; }
    }
    if (v.n_nbrs) hs_ipc_dev_halo_wait(v, seq);
    if (threadIdx.x == 0) sc->ticket = 0;
}

/* The init's dot as k_dot, then in the last block k_dist_final3's sums (red = (r,u), (A u, u), (b,b)),
 * the sum over the ranks, the scalars (hs_dist_cg_init_final) and a WHILE node's condition. */
__global__ void __launch_bounds__(kT)
k_pcg_init_dot(int32_t n, int nparts, const double *__restrict__ w, const double *__restrict__ u, const double *partA,
               const double *partB, double *partD, double *red, hs_gpu_cg_scalars *sc, hs_ipc_dev v, double cg_tol,
               double forcing, double tol_res, const double *d_res, int max_iter, cudaGraphConditionalHandle cond,
               int use_cond)
{
    __shared__ double sh[kT];
    __shared__ int last;
    double d = 0.0;
    for (int32_t i = blockIdx.x * kT + threadIdx.x; i < n; i += gridDim.x * kT) d += w[i] * u[i];
    d = hs_block_sum(d, sh);
    if (threadIdx.x == 0) {
        partD[blockIdx.x] = d;
        __threadfence();
        last = atomicAdd(&sc->ticket_spmv, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    double a, bD, c;
    hs_dist_sum3(nparts, partA, partD, partB, sh, a, bD, c); // as the init's k_dist_final3
    if (threadIdx.x == 0) { red[0] = a; red[1] = bD; red[2] = c; }
    hs_ipc_dev_block_sum(v, red, 3);
    if (threadIdx.x == 0) {
        const double tol = d_res ? hs_cg_forcing_tol(cg_tol, forcing, tol_res, *d_res) : cg_tol;
        hs_dist_cg_init_final(red, sc, tol, max_iter); // the tickets to 0 too
        if (use_cond) cudaGraphSetConditional(cond, sc->status == HS_GPU_CG_RUNNING);
    }
}

/* The init's end after the product with its dot (red[1] = (A u, u) over the owned rows; red[0], red[2] from
 * k_pcg_init<true>): one block, the sum over the ranks, the scalars, a WHILE node's condition (as
 * k_pcg_init_dot's last block). */
__global__ void __launch_bounds__(kT)
k_pcg_init_sum(double *red, hs_gpu_cg_scalars *sc, hs_ipc_dev v, double cg_tol, double forcing, double tol_res,
               const double *d_res, int max_iter, cudaGraphConditionalHandle cond, int use_cond)
{
    hs_ipc_dev_block_sum(v, red, 3);
    if (threadIdx.x == 0) {
        const double tol = d_res ? hs_cg_forcing_tol(cg_tol, forcing, tol_res, *d_res) : cg_tol;
        hs_dist_cg_init_final(red, sc, tol, max_iter); // the tickets to 0 too
        if (use_cond) cudaGraphSetConditional(cond, sc->status == HS_GPU_CG_RUNNING);
    }
}

} // namespace

hs_status hs_dist_pcg_enqueue_init(hs_gpu_cg *cg, const double *b, double *x, const hs_gpu_cg_tol *t, hs_ipc *ipc,
                                   hs_dist_spmv_started_fn spmv, hs_dist_spmv_dot_fn spmv_dot, void *ctx,
                                   cudaStream_t s, cudaGraphConditionalHandle cond, int use_cond)
{
    hs_ipc_dev v;
    hs_ipc_dev_of(ipc, &v);
    HS_CHECK(v.direct, HS_ERR_INTERNAL, "the fused CG init needs the CG's u bound to the ipc transport");
    const int VB = cg->vblocks;
    if (spmv_dot) { /* the dot in the product: k_pcg_init<true>, the product, one block */
        k_pcg_init<true><<<VB, kT, 0, s>>>(cg->n, b, cg->dinv, x, cg->r, cg->u, cg->p, cg->s, cg->partA, cg->partB,
                                           cg->d_red, cg->d_sc, v);
        HS_CUDA_LAUNCH_CHECK("k_pcg_init<red>");
        HS_CALL(spmv_dot(ctx, cg->u, cg->w, cg->partD, cg->dparts_cap, &cg->d_sc->ticket_spmv, cg->d_red + 1, s));
        k_pcg_init_sum<<<1, kT, 0, s>>>(cg->d_red, cg->d_sc, v, t->cg_tol, t->forcing, t->tol_res, t->d_res,
                                        t->max_iter, cond, use_cond);
        HS_CUDA_LAUNCH_CHECK("k_pcg_init_sum");
        return HS_OK;
    }
    k_pcg_init<false><<<VB, kT, 0, s>>>(cg->n, b, cg->dinv, x, cg->r, cg->u, cg->p, cg->s, cg->partA, cg->partB,
                                        nullptr, cg->d_sc, v);
    HS_CUDA_LAUNCH_CHECK("k_pcg_init");
    HS_CALL(spmv(ctx, cg->u, cg->w, s));
    k_pcg_init_dot<<<VB, kT, 0, s>>>(cg->n, VB, cg->w, cg->u, cg->partA, cg->partB, cg->partD, cg->d_red, cg->d_sc, v,
                                     t->cg_tol, t->forcing, t->tol_res, t->d_res, t->max_iter, cond, use_cond);
    HS_CUDA_LAUNCH_CHECK("k_pcg_init_dot");
    return HS_OK;
}

namespace {

/* one phase K times in a graph, replayed reps times: the median microseconds per call */
template <typename F>
hs_status time_phase(cudaStream_t s, int K, int reps, F piece, double *out)
{
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    HS_CUDA_CALL(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    hs_status st = HS_OK;
    for (int q = 0; q < K && st == HS_OK; ++q) st = piece();
    const cudaError_t e = cudaStreamEndCapture(s, &graph);
    if (st == HS_OK && e != cudaSuccess) st = HS_FAIL(HS_ERR_DEVICE, "phase capture: %s", cudaGetErrorString(e));
    if (st == HS_OK && cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) st = HS_FAIL(HS_ERR_DEVICE, "phase graph");
    if (graph) cudaGraphDestroy(graph);
    HS_CALL(st);
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    double *t = (double *)calloc((size_t)reps + 1, sizeof(double));
    if (!t) st = HS_FAIL(HS_ERR_MEMORY, "phase timings");
    for (int r = -1; r < reps && st == HS_OK; ++r) {
        cudaEventRecord(e0, s);
        cudaGraphLaunch(exec, s);
        cudaEventRecord(e1, s);
        if (cudaEventSynchronize(e1) != cudaSuccess) st = HS_FAIL(HS_ERR_DEVICE, "phase run failed");
        float ms = 0.0f;
        cudaEventElapsedTime(&ms, e0, e1);
        if (r >= 0) t[r] = 1e3 * ms / K;
    }
    if (st == HS_OK) *out = hs_median(t, reps);
    free(t);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaGraphExecDestroy(exec);
    return st;
}

} // namespace

hs_status hs_dist_pcg_phase_times(hs_gpu_cg *cg, const double *b, double *x, hs_ipc *ipc, hs_dist_spmv_started_fn spmv,
                                  hs_dist_spmv_dot_fn spmv_dot, void *ctx, cudaStream_t s, int K, int reps, double *us)
{
    hs_ipc_dev v;
    hs_ipc_dev_of(ipc, &v);
    hs_ipc_dev loc = v; /* no halo: no stores, no flags, no wait */
    loc.n_nbrs = 0;
    loc.row_lo = INT32_MAX;
    const int VB = cg->vblocks;
    const hs_gpu_cg_tol t = {0.0, 0.0, 0.0, nullptr, 1 << 30}; /* never stops */
    const cudaGraphConditionalHandle none{};
    for (int k = 0; k < HS_PCG_T_N; ++k) us[k] = -1.0;
    /* the init before each phase: sane vectors, iteration 0 (alpha, beta then depend on nothing the
     * repeated vector kernel changes), status running (the repeated dot kernel keeps (r,r) > 0); the
     * init of the old path (the dot pass) throughout: the phases' data, not their arithmetic, matter */
    auto init = [&]() -> hs_status {
        HS_CALL(hs_dist_pcg_enqueue_init(cg, b, x, &t, ipc, spmv, nullptr, ctx, s, none, 0));
        HS_CUDA_CALL(cudaStreamSynchronize(s));
        return HS_OK;
    };
    auto vec = [&](const hs_ipc_dev &w) -> hs_status {
        k_pcg_vector<false><<<VB, kT, 0, s>>>(cg->n, cg->d_sc, x, cg->r, cg->u, cg->p, cg->s, cg->w, cg->dinv,
                                              cg->partA, cg->partB, nullptr, w);
        HS_CUDA_LAUNCH_CHECK("k_pcg_vector");
        return HS_OK;
    };
    HS_CALL(init());
    HS_CALL(time_phase(s, K, reps, [&]() { return hs_dist_pcg_enqueue(cg, x, ipc, spmv, nullptr, ctx, s, none, 0); },
                       &us[HS_PCG_T_ITER]));
    HS_CALL(init());
    HS_CALL(time_phase(s, K, reps, [&]() { return vec(v); }, &us[HS_PCG_T_VECTOR]));
    HS_CALL(init());
    HS_CALL(time_phase(s, K, reps, [&]() { return vec(loc); }, &us[HS_PCG_T_VECTOR_LOC]));
    HS_CALL(time_phase(s, K, reps, [&]() { return spmv(ctx, cg->u, cg->w, s); }, &us[HS_PCG_T_SPMV]));
    HS_CALL(init());
    HS_CALL(time_phase(s, K, reps, [&]() -> hs_status {
        k_pcg_dot_sum<<<VB, kT, 0, s>>>(cg->n, VB, cg->w, cg->u, cg->partA, cg->partB, cg->partD, cg->d_red, cg->d_sc,
                                        v, none, 0);
        HS_CUDA_LAUNCH_CHECK("k_pcg_dot_sum");
        return HS_OK;
    }, &us[HS_PCG_T_DOT_SUM]));
    HS_CALL(time_phase(s, K, reps, [&]() { return hs_gpu_dot_pass(cg->n, cg->w, cg->u, cg->partD, nullptr, s); },
                       &us[HS_PCG_T_DOT]));
    HS_CALL(time_phase(s, K, reps, [&]() { return hs_ipc_sum(ipc, cg->d_red, 3, s); }, &us[HS_PCG_T_SUM]));
    HS_CALL(time_phase(s, K, reps, [&]() -> hs_status {
        HS_CALL(hs_ipc_halo_start(ipc, cg->u, s));
        return hs_ipc_halo_finish(ipc, cg->u, s);
    }, &us[HS_PCG_T_HALO]));
    if (spmv_dot) { /* the iteration with the dot in the product, and its kernels alone */
        HS_CALL(init());
        HS_CALL(time_phase(s, K, reps, [&]() { return hs_dist_pcg_enqueue(cg, x, ipc, spmv, spmv_dot, ctx, s, none, 0); },
                           &us[HS_PCG_T_ITER_DOT]));
        HS_CALL(init());
        HS_CALL(time_phase(s, K, reps, [&]() -> hs_status {
            k_pcg_vector<true><<<VB, kT, 0, s>>>(cg->n, cg->d_sc, x, cg->r, cg->u, cg->p, cg->s, cg->w, cg->dinv,
                                                 cg->partA, cg->partB, cg->d_red, v);
            HS_CUDA_LAUNCH_CHECK("k_pcg_vector<red>");
            return HS_OK;
        }, &us[HS_PCG_T_VECTOR_RED]));
        HS_CALL(time_phase(s, K, reps, [&]() {
            return spmv_dot(ctx, cg->u, cg->w, cg->partD, cg->dparts_cap, &cg->d_sc->ticket_spmv, cg->d_red + 2, s);
        }, &us[HS_PCG_T_SPMV_DOT]));
        HS_CALL(init());
        /* the repeated sums grow the three numbers (x ranks each time) and may end the solve (non-finite):
         * the kernel's work is the same either way */
        HS_CALL(time_phase(s, K, reps, [&]() -> hs_status {
            k_pcg_sum_test<<<1, kT, 0, s>>>(cg->d_red, cg->d_sc, v, none, 0);
            HS_CUDA_LAUNCH_CHECK("k_pcg_sum_test");
            return HS_OK;
        }, &us[HS_PCG_T_SUM_TEST]));
    }
    return init(); /* the vectors sane again */
}

hs_status hs_dist_pcg_enqueue(hs_gpu_cg *cg, double *x, hs_ipc *ipc, hs_dist_spmv_started_fn spmv_started,
                              hs_dist_spmv_dot_fn spmv_dot, void *ctx, cudaStream_t s, cudaGraphConditionalHandle cond,
                              int use_cond)
{
    hs_ipc_dev v;
    hs_ipc_dev_of(ipc, &v);
    HS_CHECK(v.direct, HS_ERR_INTERNAL, "the fused CG iteration needs the CG's u bound to the ipc transport");
    const int VB = cg->vblocks;
    if (spmv_dot) { /* the dot in the product: vector (+ its two sums), product + dot, one block */
        k_pcg_vector<true><<<VB, kT, 0, s>>>(cg->n, cg->d_sc, x, cg->r, cg->u, cg->p, cg->s, cg->w, cg->dinv,
                                             cg->partA, cg->partB, cg->d_red, v);
        HS_CUDA_LAUNCH_CHECK("k_pcg_vector<red>");
        HS_CALL(spmv_dot(ctx, cg->u, cg->w, cg->partD, cg->dparts_cap, &cg->d_sc->ticket_spmv, cg->d_red + 2, s));
        k_pcg_sum_test<<<1, kT, 0, s>>>(cg->d_red, cg->d_sc, v, cond, use_cond);
        HS_CUDA_LAUNCH_CHECK("k_pcg_sum_test");
        return HS_OK;
    }
    k_pcg_vector<false><<<VB, kT, 0, s>>>(cg->n, cg->d_sc, x, cg->r, cg->u, cg->p, cg->s, cg->w, cg->dinv, cg->partA,
                                          cg->partB, nullptr, v);
    HS_CUDA_LAUNCH_CHECK("k_pcg_vector");
    HS_CALL(spmv_started(ctx, cg->u, cg->w, s));
    k_pcg_dot_sum<<<VB, kT, 0, s>>>(cg->n, VB, cg->w, cg->u, cg->partA, cg->partB, cg->partD, cg->d_red, cg->d_sc, v,
                                    cond, use_cond);
    HS_CUDA_LAUNCH_CHECK("k_pcg_dot_sum");
    return HS_OK;
}
