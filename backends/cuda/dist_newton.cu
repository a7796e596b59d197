/*
 * The Newton loop of a step on one rank's partition with every decision on the device
 * (hs_dist_gpu_newton, hs_backend_part_ops.newton; solver.step = "graph" on several ranks): what
 * step_graph.cu runs serially, made global. One Newton iteration:
 *
 *   tangent (split) -> CG init + a run of iterations           ... the host reads the CG status
 *   [1, 2, 4, 4, ... more iterations]*                          ... and again, until it stopped
 *   phi -= du on the owned rows (if the CG converged: its device status), the ghosts of phi
 *   from their owners, element + assembly on the local mesh, the owned rows' residual, one
 *   sum over the ranks of every rank's (residual, its global node, max |du|, element failed),
 *   the Newton test on one thread                               ... the host reads the test
 *
 * and before the first, the first assembly, its sum and test. The sum is a sum of device doubles
 * (hs_cuda_comm_sum_dev) of a vector [ranks][4] in which each rank fills its own four slots and zeros
 * the others: one nonzero per entry, so every rank gets every rank's values exactly, whatever the
 * order of the additions, and takes the same decision (the larger residual, then the smaller global
 * node: MPI_MAXLOC's rule, as backends/mpi's host loop; the largest update, NaN largest; any element
 * failure). The tests are fem/newton.c's (and step_graph.cu's k_newton_check), and the kernels those
 * of the host loop (backends/mpi over hs_dist_gpu_residual and hs_dist_gpu_solve) in the same order,
 * the CG's tolerance forced on the device from the global residual (hs_cg_forcing_tol), so the two
 * loops give the same bits; the host loop stays the reference (solver.step = "kernels").
 *
 * Host waits per Newton iteration: the CG's polls and one read of the test, against the host loop's
 * residual, assembly, tangent and solve synchronisations and five host all-reduces (agree, maxloc,
 * update norm). The CG's stopping test stays a host poll: a CUDA graph's WHILE node cannot hold
 * NCCL's calls (their event nodes are refused in conditional bodies: NVIDIA/nccl#1986), and iterations
 * run after convergence cost a whole SpMV, exchange and all-reduce each; the first read comes one
 * iteration before the last solve at this Newton iteration stopped, then after 1, 2, 4, 4, ... more
 * (solve(), below), where the host loop reads every HS_CG_POLL. Where the comm allows capture
 * (hs_cuda_comm_capturable: NCCL >= 2.9) each sequence (first assembly and test; tangent and CG init;
 * 1, 2, 4 or 8 CG iterations; update, assembly and test) is captured once into a CUDA graph and
 * replayed (again when dt changes: a kernel argument); else launched one by one.
 * With the ipc transport the CG's iteration carries the transport in its own kernels (dist_pcg.cu), the
 * last of which takes the stopping decision on the device, the test's five kernels (the owned rows'
 * residual, its maximum, the slots, the sum, the test) are one (k_newton_fused), which sets the Newton
 * loop's condition, and the update stores phi's sent rows itself (k_update_phi_halo), the same arithmetic
 * in the same order (test_gpu_dist_cg_ipc: bit for bit): there the step's whole Newton loop is one graph
 * (capture_step: a WHILE node over the Newton iteration, the CG's own WHILE node inside) and the host
 * waits once a step, as with the serial step graph. The partition's assembly forms no norm over every
 * local row and copies nothing to the host (hs_cu_enqueue_assemble_part).
 */
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "dist_gpu.cuh"
#include "hs_gpu_reduce.cuh"
#include "hs_ipc_comm.cuh"
#include "hs_step_trace.cuh"
#include "hs_util.h"

namespace {

enum { SLOTS = 4 }; /* per rank: residual, its global node, max |du|, element failed (1) */
/* the most doubles one hs_cuda_comm_sum_dev carries on every transport (the ipc and MPI ones hold 64:
 * HS_IPC_SUM_MAX, cuda_comm.cu's HS_COMM_SUM_MAX); a longer vector is summed in pieces */
enum { SUM_PIECE = 64 };

/* The loop's decisions (a step_graph.cu hs_newton_ctl, made global); pinned copy on the host. */
struct newton_ctl {
    int go;                 /* 1: another Newton iteration */
    int k, stop, solves, cg_iters, cg_iters_max, n_hist;
    int bad_here;           /* this rank's failed element (local), -1 when another rank's */
    long long res_node, node_before; /* global */
    double res, upd, res_before;
    double hist[32];
    hs_gpu_cg_scalars cg;   /* the last solve's */
};

/* One sequence captured into a CUDA graph: what a launch runs of the comm's exchanges and all-reduces
 * (the capture counted them without running them: hs_cuda_comm_count). */
struct seq_graph {
    cudaGraphExec_t exec;
    long ex, ar;
};

} // namespace

enum { CHUNK_MAX = 8 }; /* the longest run of CG iterations one graph holds (runs of 1, 2, 4, 8) */

struct hs_dist_newton {
    int64_t *gid;           /* [n_own] the owned rows' global nodes (device) */
    double *red;            /* [ranks][SLOTS] the sum over the ranks (device) */
    newton_ctl *ctl, *h_ctl; /* device, pinned */
    cudaEvent_t ev_n1;      /* after the test: the residual's sum and test count as assembly */
    int graphs;             /* the sequences below replayed from graphs (g->dist.graph when captured) */
    double graph_dt;
    seq_graph first, head, tail;
    seq_graph step;         /* the ipc transport: the step's whole Newton loop (capture_step) */
    seq_graph chunk[CHUNK_MAX + 1]; /* chunk[n]: n CG iterations */
    int prev[32];           /* CG iterations of the last solve at each Newton iteration (0: none yet) */
    unsigned *ticket;       /* [2] k_newton_fused's, k_update_phi_halo's (device; 0 between launches) */
    int fused;              /* the ipc transport: k_update_phi_halo, k_newton_fused (0: the kernel sequences) */
    hs_step_trace *trace;   /* HS_STEP_TRACE set: the step graph's timeline (hs_step_trace.cuh); else NULL */
};

namespace {

/* Each rank's slots: its residual @p r (NaN as +inf, as the host loop reports it), the residual's global
 * node (gid[ri]), its max |du| over the block maxima @p upd_part (NULL: none yet), 1 when its element
 * pass failed; every other rank's slots zero. Every thread of one block of HS_RED_THREADS calls it (@p sh:
 * HS_RED_THREADS doubles); red is written when the block's next __syncthreads returns. */
__device__ void newton_pack_block(int ranks, int rank, double r, int ri, const int64_t *gid, const double *upd_part,
                                  int n_part, const dev_scalars *sc, double *red, double *sh)
{
    for (int q = threadIdx.x; q < ranks * SLOTS; q += blockDim.x) red[q] = 0.0;
    double m = 0.0;
    for (int q = threadIdx.x; upd_part && q < n_part; q += blockDim.x) {
        const double v = upd_part[q];
        if ((isnan(v) && !isnan(m)) || v > m) m = v;
    }
    sh[threadIdx.x] = m;
    __syncthreads();
    for (int s = HS_RED_THREADS / 2; s > 0; s >>= 1) { /* a max: the order does not matter (NaN largest) */
        if (threadIdx.x < s) {
            const double v = sh[threadIdx.x + s];
            if ((isnan(v) && !isnan(sh[threadIdx.x])) || v > sh[threadIdx.x]) sh[threadIdx.x] = v;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        double *mine = red + (size_t)rank * SLOTS;
        mine[0] = isnan(r) ? INFINITY : r;
        mine[1] = (double)gid[ri]; /* exact below 2^53 */
        mine[2] = sh[0];
        mine[3] = sc->bad_elem != 0x7f7f7f7f ? 1.0 : 0.0;
    }
}

/* newton_pack_block on the residual pair hs_dist_gpu_enqueue_residual left in (*resv, *resi) */
__global__ void k_newton_pack(int ranks, int rank, const double *resv, const int *resi, const int64_t *gid,
                              const double *upd_part, int n_part, const dev_scalars *sc, double *red)
{
    __shared__ double sh[HS_RED_THREADS];
    newton_pack_block(ranks, rank, *resv, *resi, gid, upd_part, n_part, sc, red, sh);
}

/* The Newton test of fem/newton.c on the summed slots (one thread). first: after the first assembly;
 * else after a solve, the update and an assembly. */
__device__ void newton_test(newton_ctl *ctl, const double *red, int ranks, const hs_gpu_cg_scalars *cgs,
                            const dev_scalars *sc, double tol_res, double tol_upd, int max_iter, int first)
{
    ctl->go = 0;
    if (first) {
        ctl->k = 0;
        ctl->stop = HS_NEWTON_CONVERGED;
        ctl->solves = ctl->cg_iters = ctl->cg_iters_max = ctl->n_hist = 0;
        ctl->upd = INFINITY;
        ctl->res_before = 0.0;
        ctl->node_before = 0;
        ctl->bad_here = -1;
    } else {
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
            return;
        }
    }
    double res = 0.0, upd = 0.0;
    long long node = -1;
    int bad = 0;
    for (int q = 0; q < ranks; ++q) {
        const double *s = red + (size_t)q * SLOTS;
        const long long n = (long long)s[1];
        if (node < 0 || s[0] > res || (s[0] == res && n < node)) {
            res = s[0];
            node = n;
        }
        if ((isnan(s[2]) && !isnan(upd)) || s[2] > upd) upd = s[2];
        bad |= s[3] != 0.0;
    }
    if (!first) {
        ctl->upd = upd;
        ctl->k++;
    }
    if (bad) {
        ctl->stop = HS_NEWTON_ELEMENT;
        ctl->bad_here = sc->bad_elem != 0x7f7f7f7f ? sc->bad_elem : -1;
        return;
    }
    ctl->res = res;
    ctl->res_node = node;
    if (ctl->n_hist < 32) ctl->hist[ctl->n_hist++] = res;
    if (!isfinite(res)) ctl->stop = HS_NEWTON_NONFINITE;
    else if (res <= tol_res && (ctl->k == 0 || ctl->upd <= tol_upd)) ctl->stop = HS_NEWTON_CONVERGED;
    else if (ctl->k == max_iter) ctl->stop = HS_NEWTON_MAXIT;
    else ctl->go = 1;
}

__global__ void k_newton_test(newton_ctl *ctl, const double *red, int ranks, const hs_gpu_cg_scalars *cgs,
                              const dev_scalars *sc, double tol_res, double tol_upd, int max_iter, int first)
{
    newton_test(ctl, red, ranks, cgs, sc, tol_res, tol_upd, max_iter, first);
}

/* The ipc transport: the residual, its sum over the ranks and the test in one kernel, where the sequence
 * (k_res_owned, k_final_maxloc, k_newton_pack, the transport's sum kernel, k_newton_test) takes five,
 * each a launch-and-drain gap of a mostly idle GPU at the end of every assembly. The same arithmetic:
 * every block forms its residual block maxima (hs_res_owned_block, as k_res_owned); the last block (a
 * ticket) takes k_final_maxloc's maximum over them (the same loop and tree), packs the slots
 * (newton_pack_block), sums them over the ranks (hs_ipc_dev_block_sum, hs_ipc_sum's block code, in
 * pieces of SUM_PIECE) and runs the test: the same bits as the sequence (test_gpu_dist_cg_ipc). */
__global__ void __launch_bounds__(HS_RED_THREADS)
k_newton_fused(int32_t n_own, const double *__restrict__ rhs, const double *__restrict__ inv_mass, double dt,
               double *partv, int *parti, double *resv, int *resi, const int64_t *gid, const double *upd_part,
               int n_part, const dev_scalars *sc, double *red, newton_ctl *ctl, const hs_gpu_cg_scalars *cgs,
               double tol_res, double tol_upd, int max_iter, int first, unsigned *ticket, hs_ipc_dev v,
               cudaGraphConditionalHandle cond, int use_cond)
{
    __shared__ double shv[HS_RED_THREADS];
    __shared__ int shi[HS_RED_THREADS];
    __shared__ int last;
    hs_res_owned_block(n_own, rhs, inv_mass, dt, partv, parti, shv, shi);
    if (threadIdx.x == 0) {
        __threadfence(); /* this block's pair (thread 0 stored it) before its ticket */
        last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    double best = 0.0; /* k_final_maxloc over the gridDim.x pairs */
    int bi = INT_MAX;
    for (int p = threadIdx.x; p < (int)gridDim.x; p += blockDim.x) {
        const double w = __ldcg(partv + p);
        const int wi = __ldcg(parti + p);
        if (w > best || (w == best && wi < bi) || (isnan(w) && !isnan(best))) { best = w; bi = wi; }
    }
    hs_block_maxloc(best, bi, shv, shi); /* every thread has the pair */
    const int ri = bi == INT_MAX ? 0 : bi;
    if (threadIdx.x == 0) { *resv = best; *resi = ri; }
    newton_pack_block(v.size, v.rank, best, ri, gid, upd_part, n_part, sc, red, shv);
    for (int q = 0; q < v.size * SLOTS; q += SUM_PIECE) /* each synchronises the block before and after */
        hs_ipc_dev_block_sum(v, red + q, v.size * SLOTS - q < SUM_PIECE ? v.size * SLOTS - q : SUM_PIECE);
    if (threadIdx.x == 0) {
        *ticket = 0;
        newton_test(ctl, red, v.size, cgs, sc, tol_res, tol_upd, max_iter, first);
        if (use_cond) cudaGraphSetConditional(cond, ctl->go); /* the step graph's Newton WHILE node */
    }
}

/* The ipc transport: phi -= du on the owned rows where the CG converged and the block maxima of |du|, as
 * k_update_phi (pointwise.cu: the same loop and tree, parti not wanted), with the halo's start fused in:
 * each row a neighbour holds as a ghost stored, once updated, into that neighbour's landing buffer
 * (hs_ipc_dev_store_row, the places k_ipc_halo_start stores it to), and the last block (a ticket over the
 * blocks, each having fenced its stores at system scope) raising the neighbours' flags
 * (hs_ipc_dev_halo_last). hs_ipc_halo_finish follows as after hs_ipc_halo_start: the same ghosts, one
 * kernel fewer per Newton iteration. @p v: the transport with direct stores off (phi is not the bound
 * vector). */
__global__ void __launch_bounds__(HS_RED_THREADS)
k_update_phi_halo(int32_t n, const hs_gpu_cg_scalars *cg, double *__restrict__ phi, const double *__restrict__ du,
                  double *partv, unsigned *ticket, hs_ipc_dev v)
{
    __shared__ double shv[HS_RED_THREADS];
    __shared__ int shi[HS_RED_THREADS];
    __shared__ int last;
    const int apply = cg->status == HS_GPU_CG_CONV;
    const hs_ipc_u64 seq = hs_ipc_dev_halo_next(v);
    double best = 0.0;
    int bi = INT_MAX;
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const double d = du[i];
        if (apply) phi[i] -= d;
        const double a = fabs(d);
        if (a > best || (isnan(a) && !isnan(best))) { /* rows ascend: hs_maxloc_take's order */
            best = a;
            bi = i;
        }
        if (i >= v.row_lo) hs_ipc_dev_store_row(v, i, phi[i], seq);
    }
    hs_block_maxloc(best, bi, shv, shi); /* its barriers order the block's stores before thread 0's fence */
    if (threadIdx.x == 0) {
        partv[blockIdx.x] = best;
        __threadfence_system(); /* this block's remote stores before its ticket */
        last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    hs_ipc_dev_halo_last(v, seq); /* the flags (no wait: v.direct is 0) */
    if (threadIdx.x == 0) *ticket = 0;
}

/* The CG's tolerance: forced on the device from the global residual the test left in ctl->res. */
hs_gpu_cg_tol cg_tol(const hs_dist_gpu *g)
{
    const hs_problem_opts *o = &g->b->prob->opt;
    hs_gpu_cg_tol t = {o->cg.tol, o->cg_forcing, o->newton_tol_residual, &g->nt->ctl->res, o->cg.max_iter};
    return t;
}

/* ---- the four sequences (in_graph: hs_cu_enqueue_assemble's, 1 while captured) ------------------- */

/* the residual of the owned rows, the sum over the ranks, the test, the decision to the host */
hs_status enqueue_test(hs_dist_gpu *g, int first, int in_graph, cudaGraphConditionalHandle cond = 0, int use_cond = 0)
{
    cuda_impl *c = g->c;
    hs_dist_newton *nt = g->nt;
    const hs_problem_opts *o = &g->b->prob->opt;
    hs_ipc *ipc = nt->fused ? hs_cuda_comm_ipc(g->comm) : nullptr;
    if (ipc) {
        hs_ipc_dev v;
        hs_ipc_dev_of(ipc, &v);
        k_newton_fused<<<HS_RED_BLOCKS, HS_RED_THREADS, 0, c->s>>>(
            g->n_own, c->rhs, c->inv_mass, c->dt, c->partA, c->parti, g->d_resv, g->d_resi, nt->gid,
            first ? nullptr : g->part, HS_RED_BLOCKS, c->d_sc, nt->red, nt->ctl, c->cg->d_sc, o->newton_tol_residual,
            o->newton_tol_update, o->newton_max_iter, first, nt->ticket, v, cond, use_cond);
        HS_CUDA_LAUNCH_CHECK("k_newton_fused");
        hs_cuda_comm_count(g->comm, 0, (g->size * SLOTS + SUM_PIECE - 1) / SUM_PIECE); /* the sequence's sums */
    } else {
        HS_CALL(hs_dist_gpu_enqueue_residual(g));
        k_newton_pack<<<1, HS_RED_THREADS, 0, c->s>>>(g->size, g->rank, g->d_resv, g->d_resi, nt->gid,
                                                       first ? nullptr : g->part, HS_RED_BLOCKS, c->d_sc, nt->red);
        HS_CUDA_LAUNCH_CHECK("k_newton_pack");
        for (int q = 0; q < g->size * SLOTS; q += SUM_PIECE) { /* one sum below 17 ranks */
            const int n = g->size * SLOTS - q < SUM_PIECE ? g->size * SLOTS - q : SUM_PIECE;
            HS_CALL(hs_cuda_comm_sum_dev(g->comm, nt->red + q, n, c->s));
        }
        k_newton_test<<<1, 1, 0, c->s>>>(nt->ctl, nt->red, g->size, c->cg->d_sc, c->d_sc, o->newton_tol_residual,
                                         o->newton_tol_update, o->newton_max_iter, first);
        HS_CUDA_LAUNCH_CHECK("k_newton_test");
    }
    if (in_graph == 2) return HS_OK; /* the step graph's WHILE body: no event, no copy to the host */
    HS_CALL(rec(nt->ev_n1, c->s, in_graph));
    if (!use_cond) /* the step graph copies the control block once, after its loop */
        HS_CUDA_CALL(cudaMemcpyAsync(nt->h_ctl, nt->ctl, sizeof(newton_ctl), cudaMemcpyDeviceToHost, c->s));
    return HS_OK;
}

hs_status seq_first(hs_dist_gpu *g, int in_graph, int)
{
    HS_CALL(hs_cu_enqueue_assemble_part(g->b, in_graph));
    return enqueue_test(g, 1, in_graph);
}

/* the tangent and the CG's start (its first SpMV, exchange and all-reduce) */
hs_status seq_head(hs_dist_gpu *g, int in_graph, int)
{
    cuda_impl *c = g->c;
    const hs_gpu_cg_tol t = cg_tol(g);
    HS_CALL(hs_cu_enqueue_tangent(c, in_graph));
    HS_CALL(rec(c->ev_s0, c->s, in_graph));
    return hs_gpu_cg_enqueue_fixed(c->cg, c->rhs, c->du, &t, 0, 1, c->s);
}

/* n CG iterations (status-guarded: no-ops once the CG stopped, but for their SpMV, exchange and
 * all-reduce, which every rank runs alike), the status to the host */
hs_status seq_chunk(hs_dist_gpu *g, int, int n)
{
    cuda_impl *c = g->c;
    const hs_gpu_cg_tol t = cg_tol(g);
    HS_CALL(hs_gpu_cg_enqueue_fixed(c->cg, c->rhs, c->du, &t, n, 0, c->s));
    HS_CUDA_CALL(cudaMemcpyAsync(c->h_cg, c->cg->d_sc, sizeof(hs_gpu_cg_scalars), cudaMemcpyDeviceToHost, c->s));
    return HS_OK;
}

/* phi -= du where the CG converged (its device status), the |du| block maxima, the ghosts of phi */
hs_status enqueue_update(hs_dist_gpu *g)
{
    cuda_impl *c = g->c;
    /* every rank exchanges alike, whatever the outcome (a failed solve left phi as it was) */
    hs_ipc *ipc = g->nt->fused ? hs_cuda_comm_ipc(g->comm) : nullptr;
    if (ipc && hs_ipc_n_nbrs(ipc) > 0) { /* the update with the halo's start (k_update_phi_halo) */
        hs_ipc_dev v;
        hs_ipc_dev_of(ipc, &v);
        v.direct = 0;
        k_update_phi_halo<<<HS_RED_BLOCKS, HS_RED_THREADS, 0, c->s>>>(g->n_own, c->cg->d_sc, c->phi, c->du, g->part,
                                                                       g->nt->ticket + 1, v);
        HS_CUDA_LAUNCH_CHECK("k_update_phi_halo");
        hs_cuda_comm_count(g->comm, 1, 0); /* the exchange hs_cuda_comm_halo_start counts */
    } else {
        HS_CALL(hs_cu_launch_update_phi(c->s, g->n_own, c->cg->d_sc, 0, c->phi, c->du, g->part, NULL));
        HS_CALL(hs_cuda_comm_halo_start(g->comm, c->phi, c->s));
    }
    return hs_cuda_comm_halo_finish(g->comm, c->phi, c->s);
}

/* the update and the ghosts of phi, assembly, test */
hs_status seq_tail(hs_dist_gpu *g, int in_graph, int)
{
    cuda_impl *c = g->c;
    HS_CALL(enqueue_update(g));
    HS_CALL(rec(c->ev_s1, c->s, in_graph));
    HS_CALL(hs_cu_enqueue_assemble_part(g->b, in_graph));
    return enqueue_test(g, 0, in_graph);
}

/* The ipc transport (dist_pcg.cu: the transport inside the CG's kernels, the last of which decides
 * whether to go on; the Newton test one kernel, k_newton_fused, which sets the Newton loop's condition):
 * the step's whole Newton loop as one graph, as step_graph.cu's serial one: the first assembly and test,
 * a WHILE node whose body is one Newton iteration (tangent, the CG's own WHILE node over one fused
 * iteration, update with the ghosts of phi, assembly, test), the control block to the host. One host
 * wait a step (was one per Newton iteration plus one: 2.069 against 2.023 ms a step for bench_1m on 2
 * H200s), and no CG iteration after the stop. A conditional body records no event: the first assembly
 * is timed by phase, the Newton iterations after it as "solve" (as the serial step graph times the whole
 * step). The same kernels in the same order as the host loop's: the same bits. */
hs_status capture_step(hs_dist_gpu *g, seq_graph *q)
{
    cuda_impl *c = g->c;
    hs_dist_newton *nt = g->nt;
    const hs_gpu_cg_tol t = cg_tol(g);
    hs_dist_times t0, t1;
    hs_cuda_comm_times(g->comm, &t0);
    cudaGraph_t graph = nullptr, body = nullptr;
    HS_CUDA_CALL(cudaGraphCreate(&graph, 0));
    cudaGraphConditionalHandle h;
    hs_status st = HS_OK;
    if (cudaGraphConditionalHandleCreate(&h, graph, 0, 0) != cudaSuccess)
        st = HS_FAIL(HS_ERR_DEVICE, "the partition's step graph: cannot create the Newton loop's condition");
    hs_step_trace *tr = nt->trace;
    if (st == HS_OK &&
        cudaStreamBeginCaptureToGraph(c->s, graph, nullptr, nullptr, 0, cudaStreamCaptureModeThreadLocal) != cudaSuccess)
        st = HS_FAIL(HS_ERR_DEVICE, "the partition's step graph: cannot capture the step");
    else if (st == HS_OK) {
        if (st == HS_OK) st = hs_step_trace_stamp(tr, c->s, HS_TR_STEP0, nullptr);
        if (st == HS_OK) st = hs_cu_enqueue_assemble_part(g->b, 1);
        if (st == HS_OK) st = hs_step_trace_stamp(tr, c->s, HS_TR_FIRST_ASM, nullptr);
        if (st == HS_OK) st = enqueue_test(g, 1, 1, h, 1);
        if (st == HS_OK) st = hs_step_trace_stamp(tr, c->s, HS_TR_FIRST_TEST, nullptr);
        if (st == HS_OK) st = rec(c->ev_s0, c->s, 1);
        cudaStreamCaptureStatus cs;
        const cudaGraphNode_t *deps = nullptr;
        size_t n_deps = 0;
        if (st == HS_OK && cudaStreamGetCaptureInfo(c->s, &cs, nullptr, nullptr, &deps, nullptr, &n_deps) != cudaSuccess)
            st = HS_FAIL(HS_ERR_DEVICE, "the partition's step graph: capture info");
        if (st == HS_OK) {
            cudaGraphNodeParams np = {};
            np.type = cudaGraphNodeTypeConditional;
            np.conditional.handle = h;
            np.conditional.type = cudaGraphCondTypeWhile;
            np.conditional.size = 1;
            cudaGraphNode_t node;
            cudaError_t e = cudaGraphAddNode(&node, graph, deps, nullptr, n_deps, &np);
            if (e == cudaSuccess)
                e = cudaStreamUpdateCaptureDependencies(c->s, &node, nullptr, 1, cudaStreamSetCaptureDependencies);
            if (e != cudaSuccess)
                st = HS_FAIL(HS_ERR_DEVICE, "the partition's step graph: the Newton WHILE node: %s", cudaGetErrorString(e));
            else
                body = np.conditional.phGraph_out[0];
        }
        if (st == HS_OK) st = hs_step_trace_stamp(tr, c->s, HS_TR_STEP_END, nullptr);
        if (st == HS_OK) st = rec(c->ev_s1, c->s, 1);
        if (st == HS_OK && cudaMemcpyAsync(nt->h_ctl, nt->ctl, sizeof(newton_ctl), cudaMemcpyDeviceToHost, c->s) !=
                               cudaSuccess)
            st = HS_FAIL(HS_ERR_DEVICE, "the partition's step graph: the control block's copy");
        cudaGraph_t out = nullptr;
        const cudaError_t e = cudaStreamEndCapture(c->s, &out);
        if (st == HS_OK && e != cudaSuccess)
            st = HS_FAIL(HS_ERR_DEVICE, "the partition's step graph: capture failed: %s", cudaGetErrorString(e));
    }
    /* the body, on the stream every enqueue uses (free again) */
    if (st == HS_OK &&
        cudaStreamBeginCaptureToGraph(c->s, body, nullptr, nullptr, 0, cudaStreamCaptureModeThreadLocal) != cudaSuccess)
        st = HS_FAIL(HS_ERR_DEVICE, "the partition's step graph: cannot capture the Newton iteration");
    else if (st == HS_OK) {
        if (st == HS_OK) st = hs_step_trace_stamp(tr, c->s, HS_TR_BODY0, nullptr);
        if (st == HS_OK) st = hs_cu_enqueue_tangent(c, 2);
        if (st == HS_OK) st = hs_step_trace_stamp(tr, c->s, HS_TR_TANGENT, nullptr);
        if (st == HS_OK) st = hs_gpu_cg_capture_solve(c->cg, c->rhs, c->du, &t, c->s);
        if (st == HS_OK) st = hs_step_trace_stamp(tr, c->s, HS_TR_CG, &c->cg->d_sc->iters);
        if (st == HS_OK) st = enqueue_update(g);
        if (st == HS_OK) st = hs_step_trace_stamp(tr, c->s, HS_TR_UPDATE, nullptr);
        if (st == HS_OK) st = hs_cu_enqueue_assemble_part(g->b, 2);
        if (st == HS_OK) st = hs_step_trace_stamp(tr, c->s, HS_TR_ASM, nullptr);
        if (st == HS_OK) st = enqueue_test(g, 0, 2, h, 1);
        if (st == HS_OK) st = hs_step_trace_stamp(tr, c->s, HS_TR_TEST, nullptr);
        cudaGraph_t out = nullptr;
        const cudaError_t e = cudaStreamEndCapture(c->s, &out);
        if (st == HS_OK && e != cudaSuccess)
            st = HS_FAIL(HS_ERR_DEVICE, "the partition's step graph: capture of the Newton iteration failed: %s",
                         cudaGetErrorString(e));
    }
    if (st == HS_OK) {
        const cudaError_t e = cudaGraphInstantiate(&q->exec, graph, 0);
        if (e != cudaSuccess) {
            q->exec = nullptr;
            st = HS_FAIL(HS_ERR_DEVICE, "the partition's step graph: instantiation failed: %s", cudaGetErrorString(e));
        }
    }
    cudaGraphDestroy(graph);
    hs_cuda_comm_times(g->comm, &t1); /* counted, not run: each launch counts what it ran */
    hs_cuda_comm_count(g->comm, -(t1.exchanges - t0.exchanges), -(t1.allreduces - t0.allreduces));
    return st;
}

void drop(seq_graph *q)
{
    if (q->exec) cudaGraphExecDestroy(q->exec);
    *q = seq_graph{};
}

void drop_all(hs_dist_newton *nt)
{
    drop(&nt->step);
    drop(&nt->first);
    drop(&nt->head);
    drop(&nt->tail);
    for (int n = 0; n <= CHUNK_MAX; ++n) drop(&nt->chunk[n]);
}

/* Run a sequence: from its graph (captured at the first run) or launched one by one. Capture mode
 * relaxed: NCCL's own calls during the capture are its to order (as cg.cu's capture of the CG's
 * iterations). */
hs_status run(hs_dist_gpu *g, seq_graph *q, hs_status (*seq)(hs_dist_gpu *, int, int), int arg = 0)
{
    cudaStream_t s = g->c->s;
    if (!g->nt->graphs) return seq(g, 0, arg);
    if (!q->exec) {
        hs_dist_times t0, t1;
        hs_cuda_comm_times(g->comm, &t0);
        HS_CUDA_CALL(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
        hs_status st = seq(g, 1, arg);
        cudaGraph_t graph = nullptr;
        const cudaError_t e = cudaStreamEndCapture(s, &graph);
        hs_cuda_comm_times(g->comm, &t1);
        q->ex = t1.exchanges - t0.exchanges;
        q->ar = t1.allreduces - t0.allreduces;
        hs_cuda_comm_count(g->comm, -q->ex, -q->ar); /* counted, not run */
        if (st == HS_OK && e != cudaSuccess)
            st = HS_FAIL(HS_ERR_DEVICE, "CUDA graph capture of the partition's Newton iteration failed: %s",
                         cudaGetErrorString(e));
        if (st == HS_OK) {
            const cudaError_t ei = cudaGraphInstantiate(&q->exec, graph, 0);
            if (ei != cudaSuccess) {
                q->exec = nullptr;
                st = HS_FAIL(HS_ERR_DEVICE, "instantiating the partition's Newton iteration graph failed: %s",
                             cudaGetErrorString(ei));
            }
        }
        if (graph) cudaGraphDestroy(graph);
        HS_CALL(st);
    }
    HS_CUDA_CALL(cudaGraphLaunch(q->exec, s));
    hs_cuda_comm_count(g->comm, q->ex, q->ar);
    return HS_OK;
}

hs_status wait_device(hs_dist_gpu *g)
{
    HS_CUDA_CALL(cudaStreamSynchronize(g->c->s));
    g->waits++;
    return hs_cuda_comm_check(g->comm); /* an ipc wait that gave up on a peer: no result to trust */
}

/* After an assembly and its test completed: element, and assembly with the residual's sum and test. */
void time_assembly(cuda_impl *c, const hs_dist_newton *nt)
{
    c->t.element += 1e-3 * elapsed_ms(c->ev_e0, c->ev_e1);
    c->t.assembly += 1e-3 * (elapsed_ms(c->ev_e1, c->ev_a1) + elapsed_ms(c->ev_a1, nt->ev_n1));
}

hs_status setup(hs_dist_gpu *g)
{
    hs_dist_newton *nt = nullptr;
    HS_CALL(HS_ALLOC(nt, 1, "device Newton loop"));
    g->nt = nt;
    /* one more than the owned rows: a rank without any reads gid[0] (the residual's row 0) */
    HS_CALL(HS_CUDA_ALLOC(nt->gid, (size_t)g->n_own + 1, "owned rows' global nodes"));
    HS_CUDA_CALL(cudaMemset(nt->gid, 0, sizeof(int64_t) * ((size_t)g->n_own + 1)));
    if (g->n_own > 0)
        HS_CUDA_CALL(cudaMemcpy(nt->gid, g->l->l2g, sizeof(int64_t) * (size_t)g->n_own, cudaMemcpyHostToDevice));
    HS_CALL(HS_CUDA_ALLOC(nt->red, (size_t)g->size * SLOTS, "Newton sums"));
    HS_CALL(HS_CUDA_ALLOC(nt->ctl, 1, "Newton control block"));
    HS_CUDA_CALL(cudaMallocHost((void **)&nt->h_ctl, sizeof(newton_ctl)));
    HS_CUDA_CALL(cudaEventCreate(&nt->ev_n1));
    HS_CALL(HS_CUDA_ALLOC(nt->ticket, 2, "Newton loop tickets"));
    HS_CUDA_CALL(cudaMemset(nt->ticket, 0, 2 * sizeof(unsigned)));
    /* the memsets and the pageable upload above run on the legacy stream (the upload returns once
     * staged), which the non-blocking c->s does not wait for: landed before the loop's kernels read
     * gid and the tickets (a ticket not yet zero would elect no last block, or a wrong one) */
    HS_CUDA_CALL(cudaDeviceSynchronize());
    nt->fused = 1;
    nt->trace = hs_step_trace_from_env("distributed step graph, ipc");
    return HS_OK;
}

/* n CG iterations on the stream as runs of 8, 4, 2, 1 (four graphs in all, captured during the first
 * steps: a capture holding NCCL's calls costs milliseconds), one read of the status at the end */
hs_status run_chunk(hs_dist_gpu *g, int n)
{
    while (n > 0) {
        int m = CHUNK_MAX;
        while (m > n) m /= 2;
        HS_CALL(run(g, &g->nt->chunk[m], seq_chunk, m));
        n -= m;
    }
    return HS_OK;
}

/* The CG of Newton iteration k: the host reads the status after a first run of iterations one short of
 * the last solve's at this k (successive steps' solves take about as many), then after 1, 2, 4, 4, ...
 * more: fewer reads than every HS_CG_POLL, and fewer iterations run after convergence (each a whole
 * SpMV, exchange and all-reduce). Any grouping gives the same numbers: an iteration after the stop
 * changes nothing the solve returns. */
hs_status solve(hs_dist_gpu *g, int k)
{
    hs_dist_newton *nt = g->nt;
    cuda_impl *c = g->c;
    const int max_iter = g->b->prob->opt.cg.max_iter, kk = k < 32 ? k : 31;
    HS_CALL(run(g, &nt->head, seq_head));
    int launched = 0, n = nt->prev[kk] > 1 ? nt->prev[kk] - 1 : HS_CG_POLL, next = 1;
    for (;;) {
        if (n > max_iter - launched) n = max_iter - launched;
        if (n > 0) HS_CALL(run_chunk(g, n));
        else HS_CUDA_CALL(cudaMemcpyAsync(c->h_cg, c->cg->d_sc, sizeof(hs_gpu_cg_scalars), cudaMemcpyDeviceToHost, c->s));
        launched += n;
        HS_CALL(wait_device(g));
        if (c->h_cg->status != HS_GPU_CG_RUNNING || launched >= max_iter) break;
        n = next;
        next = next * 2 < HS_CG_POLL ? next * 2 : HS_CG_POLL;
    }
    const hs_gpu_cg_scalars *h = c->h_cg;
    nt->prev[kk] = h->fail_iter > h->iters ? h->fail_iter : h->iters;
    return HS_OK;
}

} // namespace

extern "C" hs_status hs_dist_gpu_newton(hs_dist_gpu *g, hs_newton_out *out)
{
    HS_CHECK(!g->serial, HS_ERR_INTERNAL, "the partition's Newton loop on one rank is the serial backend's");
    cuda_impl *c = g->c;
    if (!g->nt) HS_CALL(setup(g));
    hs_dist_newton *nt = g->nt;
    if (nt->graphs != g->dist.graph || nt->graph_dt != c->dt) { /* dt is a kernel argument */
        drop_all(nt);
        nt->graphs = g->dist.graph;
        nt->graph_dt = c->dt;
    }
    const newton_ctl *h = nt->h_ctl;
    /* the whole Newton loop on the device: ipc (its CG iteration fused, dist.iteration; the test fused)
     * and graphs */
    if (nt->graphs && g->dist.iteration && nt->fused && hs_cuda_comm_ipc(g->comm)) { /* capture_step */
        if (!nt->step.exec) HS_CALL(capture_step(g, &nt->step));
        HS_CALL(hs_step_trace_launch(nt->trace, c->s));
        HS_CUDA_CALL(cudaGraphLaunch(nt->step.exec, c->s));
        HS_CALL(wait_device(g));
        HS_CALL(hs_step_trace_collect(nt->trace, c->s));
        /* what the launch ran: the first test's sum; per solve the init's exchange and sum, one of each
         * per CG iteration, the exchange of phi and the test's sum */
        const long per = 2L * h->solves + h->cg_iters, nb = hs_ipc_n_nbrs(hs_cuda_comm_ipc(g->comm)) > 0;
        hs_cuda_comm_count(g->comm, per * nb, 1 + per);
        time_assembly(c, nt);                          /* the first assembly and its test */
        c->t.solve += 1e-3 * elapsed_ms(c->ev_s0, c->ev_s1); /* the Newton iterations after it, whole */
    } else {
        HS_CALL(run(g, &nt->first, seq_first));
        HS_CALL(wait_device(g));
        time_assembly(c, nt);
        while (h->go) {
            HS_CALL(solve(g, h->k));
            HS_CALL(run(g, &nt->tail, seq_tail));
            HS_CALL(wait_device(g));
            if (c->split) c->t.assembly += 1e-3 * elapsed_ms(c->ev_k0, c->ev_k1); /* the tangent */
            c->t.solve += 1e-3 * elapsed_ms(c->ev_s0, c->ev_s1);
            time_assembly(c, nt);
        }
    }
    c->k_stale = c->split; /* the loop ends with an assembly (its tangent formed only before a solve) */
    c->k_timed = 0;
    memset(out, 0, sizeof *out);
    out->stop = h->stop;
    out->k = h->k;
    out->solves = h->solves;
    out->cg_iters = h->cg_iters;
    out->cg_iters_max = h->cg_iters_max;
    out->res = h->res;
    out->upd = h->upd;
    out->res_node = (int32_t)h->res_node; /* the Newton loop names the mesh's node in 32 bits */
    out->res_before = h->res_before;
    out->node_before = (int32_t)h->node_before;
    out->n_hist = h->n_hist;
    for (int k = 0; k < h->n_hist && k < 32; ++k) out->res_hist[k] = h->hist[k];
    if (h->solves > 0) hs_gpu_cg_result_of(&h->cg, &out->cg);
    /* every rank stops alike; the ranks whose elements failed say which (the others' HS_OK is agreed) */
    if (h->stop == HS_NEWTON_ELEMENT && h->bad_here >= 0) return hs_cu_element_error(g->b, h->bad_here);
    return HS_OK;
}

hs_status hs_dist_newton_probe_test(hs_dist_gpu *g, int fused, int first, hs_dist_newton_probe *out)
{
    HS_CHECK(!g->serial, HS_ERR_INTERNAL, "the partition's Newton test on one rank is the serial backend's");
    if (!g->nt) HS_CALL(setup(g));
    g->nt->fused = fused;
    const hs_status st = enqueue_test(g, first, 0);
    g->nt->fused = 1;
    HS_CALL(st);
    HS_CALL(wait_device(g));
    const newton_ctl *h = g->nt->h_ctl;
    out->go = h->go;
    out->stop = h->stop;
    out->k = h->k;
    out->res_node = h->res_node;
    out->res = h->res;
    out->upd = h->upd;
    return HS_OK;
}

hs_status hs_dist_newton_probe_update(hs_dist_gpu *g, int fused)
{
    HS_CHECK(!g->serial, HS_ERR_INTERNAL, "the partition's Newton update on one rank is the serial backend's");
    if (!g->nt) HS_CALL(setup(g));
    g->nt->fused = fused;
    const hs_status st = enqueue_update(g);
    g->nt->fused = 1;
    HS_CALL(st);
    return wait_device(g);
}

hs_status hs_dist_newton_time(hs_dist_gpu *g, int fused, int K, int reps, double us[2])
{
    HS_CHECK(!g->serial && K > 0 && reps > 0, HS_ERR_INTERNAL, "Newton loop timing: several ranks, K and reps > 0");
    if (!g->nt) HS_CALL(setup(g));
    cudaStream_t s = g->c->s;
    hs_status st = HS_OK;
    g->nt->fused = fused;
    for (int which = 0; which < 2 && st == HS_OK; ++which) {
        cudaGraph_t graph = nullptr;
        cudaGraphExec_t exec = nullptr;
        if (cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed) != cudaSuccess) {
            st = HS_FAIL(HS_ERR_DEVICE, "Newton loop timing: capture");
            break;
        }
        for (int q = 0; q < K && st == HS_OK; ++q) st = which ? enqueue_update(g) : enqueue_test(g, 0, 1);
        const cudaError_t e = cudaStreamEndCapture(s, &graph);
        if (st == HS_OK && (e != cudaSuccess || cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess))
            st = HS_FAIL(HS_ERR_DEVICE, "Newton loop timing: graph");
        if (graph) cudaGraphDestroy(graph);
        cudaEvent_t e0 = nullptr, e1 = nullptr;
        if (st == HS_OK && (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess))
            st = HS_FAIL(HS_ERR_DEVICE, "Newton loop timing: events");
        double *t = (double *)calloc((size_t)reps, sizeof(double));
        if (!t && st == HS_OK) st = HS_FAIL(HS_ERR_MEMORY, "Newton loop timings");
        for (int r = -1; r < reps && st == HS_OK; ++r) { /* the first replay warms up */
            float ms = 0.0f;
            const cudaError_t e = cudaEventRecord(e0, s) != cudaSuccess    ? cudaErrorUnknown
                                  : cudaGraphLaunch(exec, s) != cudaSuccess ? cudaErrorLaunchFailure
                                  : cudaEventRecord(e1, s) != cudaSuccess  ? cudaErrorUnknown
                                                                           : cudaEventSynchronize(e1);
            if (e != cudaSuccess || cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess)
                st = HS_FAIL(HS_ERR_DEVICE, "Newton loop timing: replay %d: %s", r, cudaGetErrorString(e));
            else if (r >= 0)
                t[r] = 1e3 * ms / K;
        }
        if (st == HS_OK) us[which] = hs_median(t, reps);
        free(t);
        if (e0) cudaEventDestroy(e0);
        if (e1) cudaEventDestroy(e1);
        if (exec) cudaGraphExecDestroy(exec);
        if (st == HS_OK) st = hs_cuda_comm_check(g->comm);
    }
    g->nt->fused = 1;
    /* the capture counted what it did not run, the replays ran what it did not count: the counts are
     * not this function's to keep straight (a test's) */
    return st;
}

void hs_dist_newton_free(hs_dist_gpu *g)
{
    hs_dist_newton *nt = g->nt;
    if (!nt) return;
    drop_all(nt);
    hs_step_trace_finish(&nt->trace, stderr, g->rank);
    cudaFree(nt->gid);
    cudaFree(nt->red);
    cudaFree(nt->ctl);
    cudaFree(nt->ticket);
    if (nt->h_ctl) cudaFreeHost(nt->h_ctl);
    if (nt->ev_n1) cudaEventDestroy(nt->ev_n1);
    free(nt);
    g->nt = nullptr;
}
