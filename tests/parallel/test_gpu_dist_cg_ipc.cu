/* The distributed CG iteration with the ipc transport fused into its kernels (backends/cuda/dist_pcg.cu:
 * three kernels, the rows stored straight into the neighbours' ghosts of u; the solve's init likewise)
 * against cg.cu's kernel sequence over the same transport (nine; the init eight), under mpirun -np 2 (or 3,
 * 4: partitioned by rows, a rank has one or two neighbours) with a GPU per rank on one node (ctest: labels
 * gpu, mpi, 2 ranks; exit 77 otherwise: fewer GPUs than ranks, ranks on several nodes, or one rank). On the SPD M-matrix of tests/backends/cuda/test_gpu_dist_cg.cu (a box
 * pattern, off-diagonals -(1 + (i+j) mod 3)/2, diagonal = their absolute sum + 1), partitioned by rows,
 * in cusparse_sell (float64: the multi-rank default, multiplied after the halo), csr_scalar (float64: the
 * interior rows while the halo travels) and ellwarp_k1 (float32 values):
 *  - a converged solve (tol 1e-10), a solve stopped at max_iter = 6 and a breakdown (D^-1 negated:
 *    gamma < 0 at the first iteration), each launched one by one and replayed from CUDA graphs: the fused
 *    iteration gives the sequence's outcome, iteration count, update norm, all-reduce and exchange
 *    counts, x and phi (ghosts included) bit for bit (the same arithmetic in the same order; the sums over
 *    the ranks in rank order; the ghosts exact copies either way);
 *  - the whole solve captured as one graph, the init and a WHILE node over the fused iteration (its dot
 *    kernel sets the condition: solver.step = "graph"'s Newton loop, dist_newton.cu), launched twice:
 *    the polled fused solve's outcome, iterations and x, bit for bit; the sequence is refused there;
 *  - the converged solution's true residual, gathered and computed on the host, is <= 1.01 tol ||b||;
 *  - the device Newton loop's test (dist_newton.cu): the residual, the sum over the ranks and the test as
 *    one kernel against the kernel sequence, bit for bit, and against the host's maxima;
 *  - a silent peer: rank 1 skips a solve, every other rank's fused solve ends (no hang) with HS_ERR_DEVICE
 *    naming the wait that gave up after the shortened timeout (0.5 s), with the dot pass (cusparse_sell)
 *    and with the dot in the product (ellwarp_k1).
 * ellwarp_k1 offers the dot in the product (apply_dot_rows: (A u, u) over the owned rows in the SpMV's own
 * pass, hs_dist_gpu_set_spmv_dot, the default): each check above runs with it and with the dot pass, the
 * fused iteration against the sequence of the same setting.
 * Then (unless HS_TEST_QUICK is set) the time per iteration of both at bench_1m's size (101^3 nodes,
 * 515K rows a rank), replayed from a CUDA graph of 40 iterations, in cusparse_sell float64 and
 * ellwarp_k1 float32 (what bench_1m takes on several ranks; with the dot in the product and with the dot
 * pass, the old path, side by side), each phase of the fused iteration alone
 * (hs_dist_gpu_phase_times), and the same matrix's serial iteration, SpMV and dot on one GPU (rank 0):
 * printed, not asserted (the measurement of docs/benchmarks.md); and the device Newton loop's test and update
 * at that size, fused and as the kernel sequences. */
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include "cuda_backend.cuh"
#include "dist_gpu.cuh"
#include "hs_cg.h"
#include "hs_cuda.h"
#include "hs_cuda_comm.h"
#include "hs_dist.h"
#include "hs_dist_gpu.h"
#include "hs_dist_pcg.cuh"
#include "hs_gpu_reduce.cuh"
#include "hs_gpu_spmv.cuh"
#include "hs_mesh.h"
#include "hs_partition.h"
#include "hs_test.h"
#include "hs_util.h"
#include "hs_vec.h"

template <typename T>
static T *dev_copy(const std::vector<T> &h)
{
    T *d = NULL;
    if (cudaMalloc((void **)&d, sizeof(T) * (h.size() + 1)) != cudaSuccess) return NULL;
    if (!h.empty()) cudaMemcpy(d, h.data(), sizeof(T) * h.size(), cudaMemcpyHostToDevice);
    return d;
}

/* The global system and this rank's part of it. */
struct problem {
    hs_mesh *m = NULL;
    hs_csr *a = NULL;         /* global, with values */
    hs_part_local *l = NULL;  /* this rank's view */
    hs_csr *lp = NULL;        /* the local matrix's pattern (owned rows, then the ghosts' rows) */
    std::vector<double> lval; /* its values */
    std::vector<double> b, inv_diag;
    int32_t n = 0, no = 0, nl = 0;
};

static void problem_make(problem *P, double extent, int size, int rank)
{
    hs_box_params bp = {extent, extent, extent, 1.0, 0, 1.414};
    HS_TEST_OK(hs_mesh_create_box(&bp, &P->m));
    HS_TEST_OK(hs_csr_from_tets(P->m->n_nodes, P->m->n_elems, P->m->tets, &P->a));
    if (!P->a) MPI_Abort(MPI_COMM_WORLD, 1);
    hs_csr *a = P->a;
    const int32_t n = a->n_rows;
    P->n = n;
    P->b.resize(n);
    P->inv_diag.resize(n);
    for (int32_t i = 0; i < n; ++i) {
        double off = 0.0;
        int32_t d = -1;
        for (int32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; ++k) {
            const int32_t j = a->col[k];
            if (j == i) {
                d = k;
                continue;
            }
            a->val[k] = -(1.0 + (double)((i + j) % 3)) * 0.5;
            off += -a->val[k];
        }
        a->val[d] = off + 1.0;
        P->inv_diag[i] = 1.0 / a->val[d];
        P->b[i] = 1.0 + sin(0.37 * i) - (i % 17 == 5 ? 3.0 : 0.0);
    }
    const hs_partitioner *pt = NULL;
    HS_TEST_OK(hs_partitioner_lookup("parallel.partition", "rows", &pt));
    std::vector<int32_t> part(n);
    HS_TEST_OK(hs_partition_nodes(pt, a, size, part.data()));
    HS_TEST_OK(hs_part_local_create(a, P->m->n_elems, P->m->tets, part.data(), size, rank, &P->l));
    if (!P->l) MPI_Abort(MPI_COMM_WORLD, 1);
    const hs_part_local *l = P->l;
    P->no = l->n_owned;
    P->nl = l->n_owned + l->n_ghost;
    HS_TEST_OK(hs_csr_from_tets(P->nl, l->n_elems, l->tets, &P->lp));
    if (!P->lp) MPI_Abort(MPI_COMM_WORLD, 1);
    P->lval.assign(P->lp->nnz, 0.0);
    for (int32_t li = 0; li < P->nl; ++li)
        for (int32_t k = P->lp->row_ptr[li]; k < P->lp->row_ptr[li + 1]; ++k) {
            const int32_t q = hs_csr_find(a, (int32_t)l->l2g[li], (int32_t)l->l2g[P->lp->col[k]]);
            P->lval[k] = q >= 0 ? a->val[q] : 0.0;
        }
}

static void problem_free(problem *P)
{
    hs_csr_destroy(&P->lp);
    hs_part_local_destroy(&P->l);
    hs_csr_destroy(&P->a);
    hs_mesh_destroy(&P->m);
}

/* What hs_dist_gpu reads of the inner cuda backend, stood in for (as test_gpu_dist_cg does). */
struct stand_in {
    cuda_impl c;
    hs_backend_ops ops;
    hs_problem prob;
    hs_backend be;
};

static void stand_in_make(stand_in *S, const problem *P, const hs_spmv_ops *f, int f32, double dinv_sign)
{
    memset(S, 0, sizeof *S);
    const hs_part_local *l = P->l;
    const int32_t no = P->no, nl = P->nl;
    std::vector<double> ld(nl, 1.0), lb(nl, 0.0);
    for (int32_t i = 0; i < no; ++i) {
        ld[i] = dinv_sign * P->inv_diag[l->l2g[i]];
        lb[i] = P->b[l->l2g[i]];
    }
    hs_spmv_layout *lay = NULL;
    HS_TEST_OK(hs_spmv_layout_create(f, P->lp, NULL, &lay));
    if (!lay) MPI_Abort(MPI_COMM_WORLD, 1);
    std::vector<double> slots((size_t)lay->n_slots + 1, 0.0);
    hs_spmv_layout_scatter(lay, P->lp->nnz, P->lval.data(), slots.data());
    std::vector<float> slots32(slots.size());
    hs_spmv_round_values((int64_t)slots.size(), slots.data(), slots32.data());
    cuda_impl &c = S->c;
    HS_TEST_CHECK(cudaStreamCreateWithFlags(&c.s, cudaStreamNonBlocking) == cudaSuccess, "stream");
    cudaEventCreate(&c.ev_s0);
    cudaEventCreate(&c.ev_s1);
    c.lay = lay;
    c.nn = nl;
    c.f32 = f32;
    if (f32) c.kval32 = dev_copy(slots32);
    else c.kval = dev_copy(slots);
    c.slot = dev_copy(std::vector<int64_t>(lay->slot_of_nnz, lay->slot_of_nnz + P->lp->nnz));
    c.dinv = dev_copy(ld);
    c.rhs = dev_copy(lb);
    c.inv_mass = dev_copy(std::vector<double>(nl, 1.0));
    c.du = dev_copy(std::vector<double>(nl, 0.0));
    c.phi = dev_copy(std::vector<double>(nl, 0.0));
    c.partA = dev_copy(std::vector<double>(HS_RED_BLOCKS, 0.0));
    c.parti = dev_copy(std::vector<int>(HS_RED_BLOCKS, 0));
    c.dt = 1.0;
    const hs_matrix_values vk = f32 ? HS_VALUES_F32 : HS_VALUES_F64;
    HS_TEST_OK(hs_gpu_spmv_create_values(lay, P->lp, f32 ? (const void *)c.kval32 : (const void *)c.kval, vk, &c.spmv));
    HS_TEST_OK(hs_gpu_cg_create(nl, HS_CG_CHRONOPOULOS, c.spmv, c.dinv, &c.cg));
    HS_TEST_CHECK(cudaMallocHost((void **)&c.h_cg, sizeof(hs_gpu_cg_scalars)) == cudaSuccess, "pinned");
    S->ops.name = "cuda";
    S->prob.opt.exec.spmv = f;
    S->prob.opt.exec.values = vk;
    S->be.ops = &S->ops;
    S->be.impl = &S->c;
    S->be.prob = &S->prob;
}

static void stand_in_free(stand_in *S)
{
    cuda_impl &c = S->c;
    hs_gpu_cg_destroy(&c.cg);
    hs_gpu_spmv_destroy(&c.spmv);
    void *dptr[] = {c.kval, c.kval32, c.slot, c.dinv, c.rhs, c.inv_mass, c.du, c.phi, c.partA, c.parti};
    for (size_t k = 0; k < sizeof dptr / sizeof dptr[0]; ++k)
        if (dptr[k]) cudaFree(dptr[k]);
    cudaFreeHost(c.h_cg);
    cudaEventDestroy(c.ev_s0);
    cudaEventDestroy(c.ev_s1);
    cudaStreamDestroy(c.s);
    hs_spmv_layout_destroy(&c.lay);
}

/* one solve's outcome and vectors */
struct solve_out {
    hs_status st;
    hs_cg_result res;
    double upd;
    long allreduces, exchanges;
    std::vector<double> x, phi;
};

static solve_out solve_once(hs_dist_gpu *g, const hs_cg_opts *o, int32_t no, int32_t nl)
{
    solve_out r;
    cuda_impl *c = g->c;
    cudaMemset(c->phi, 0, sizeof(double) * nl);
    cudaDeviceSynchronize(); /* the legacy stream's zeroing before the solve on the non-blocking c->s */
    hs_dist_times t0, t1;
    hs_dist_gpu_times(g, &t0);
    memset(&r.res, 0, sizeof r.res);
    r.upd = -1.0;
    r.st = hs_dist_gpu_solve(g, o, &r.res, &r.upd);
    hs_dist_gpu_times(g, &t1);
    r.allreduces = t1.allreduces - t0.allreduces;
    r.exchanges = t1.exchanges - t0.exchanges;
    r.x.resize(no);
    r.phi.resize(nl);
    cudaMemcpy(r.x.data(), c->du, sizeof(double) * no, cudaMemcpyDeviceToHost);
    cudaMemcpy(r.phi.data(), c->phi, sizeof(double) * nl, cudaMemcpyDeviceToHost);
    return r;
}

/* The whole solve as one graph: the init and a WHILE node whose body is one fused iteration
 * (hs_gpu_cg_capture_solve; its dot kernel sets the condition), launched @p launches times; the last
 * launch's outcome. st: the capture's status (refused for the kernel sequence). */
static solve_out solve_while(hs_dist_gpu *g, const hs_cg_opts *o, int32_t no, int launches)
{
    solve_out r;
    cuda_impl *c = g->c;
    const hs_gpu_cg_tol t = {o->tol, 0.0, 0.0, NULL, o->max_iter};
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    memset(&r.res, 0, sizeof r.res);
    r.upd = 0.0;
    r.allreduces = r.exchanges = 0;
    HS_TEST_CHECK(cudaStreamBeginCapture(c->s, cudaStreamCaptureModeRelaxed) == cudaSuccess, "capture");
    r.st = hs_gpu_cg_capture_solve(c->cg, c->rhs, c->du, &t, c->s);
    const cudaError_t e = cudaStreamEndCapture(c->s, &graph);
    if (r.st != HS_OK) {
        if (graph) cudaGraphDestroy(graph);
        return r;
    }
    HS_TEST_CHECK(e == cudaSuccess && cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess, "WHILE graph: %s",
                  cudaGetErrorString(e));
    cudaGraphDestroy(graph);
    hs_gpu_cg_scalars h;
    for (int q = 0; q < launches && exec; ++q) {
        HS_TEST_CHECK(cudaGraphLaunch(exec, c->s) == cudaSuccess, "WHILE graph launch");
        HS_TEST_CHECK(cudaStreamSynchronize(c->s) == cudaSuccess, "WHILE graph run");
        HS_TEST_OK(hs_cuda_comm_check(g->comm));
        cudaMemcpy(&h, c->cg->d_sc, sizeof h, cudaMemcpyDeviceToHost);
        hs_gpu_cg_result_of(&h, &r.res);
    }
    if (exec) cudaGraphExecDestroy(exec);
    r.x.resize(no);
    cudaMemcpy(r.x.data(), c->du, sizeof(double) * no, cudaMemcpyDeviceToHost);
    return r;
}

static void check_equal(const solve_out &f, const solve_out &q, const char *what)
{
    HS_TEST_CHECK(f.st == HS_OK && q.st == HS_OK, "%s: status fused %d, sequence %d", what, (int)f.st, (int)q.st);
    HS_TEST_CHECK(f.res.outcome == q.res.outcome && f.res.iters == q.res.iters,
                  "%s: fused %s in %d iterations, sequence %s in %d", what, hs_cg_outcome_name(f.res.outcome),
                  f.res.iters, hs_cg_outcome_name(q.res.outcome), q.res.iters);
    HS_TEST_CHECK(memcmp(&f.res.rel_res, &q.res.rel_res, sizeof(double)) == 0 && memcmp(&f.upd, &q.upd, sizeof(double)) == 0,
                  "%s: residual %.17g / %.17g, update %.17g / %.17g (fused / sequence)", what, f.res.rel_res,
                  q.res.rel_res, f.upd, q.upd);
    HS_TEST_CHECK(f.allreduces == q.allreduces && f.exchanges == q.exchanges,
                  "%s: fused %ld all-reduces and %ld exchanges, sequence %ld and %ld", what, f.allreduces, f.exchanges,
                  q.allreduces, q.exchanges);
    HS_TEST_CHECK(f.x.size() == q.x.size() && memcmp(f.x.data(), q.x.data(), sizeof(double) * f.x.size()) == 0 &&
                      memcmp(f.phi.data(), q.phi.data(), sizeof(double) * f.phi.size()) == 0,
                  "%s: x or phi differs from the sequence's bits", what);
}

/* The fused iteration against the sequence on one format: converged, max_iter, breakdown; launched and
 * from graphs. */
static void test_format(const problem *P, const hs_spmv_ops *f, int f32, int rank)
{
    const int32_t no = P->no, nl = P->nl;
    const hs_cg_opts opts = {1e-10, 2000, HS_CG_CHRONOPOULOS, 0};
    hs_cg_opts o6 = opts;
    o6.max_iter = 6;
    for (int brk = 0; brk <= 1; ++brk) {
        stand_in S;
        stand_in_make(&S, P, f, f32, brk ? -1.0 : 1.0);
        hs_dist_gpu *g = NULL;
        HS_TEST_OK(hs_dist_gpu_create(&S.be, P->l, MPI_COMM_WORLD, HS_TRANSPORT_IPC, 0, &g));
        if (!g) MPI_Abort(MPI_COMM_WORLD, 1);
        HS_TEST_CHECK(hs_dist_gpu_set_fused(g, 1) == 1, "%s: the ipc transport does not fuse the iteration", f->name);
        /* the product forms (A u, u) itself where the format offers apply_dot_rows (ellwarp_*; not csr_scalar,
         * whose sequence splits its rows around the halo), the default; else and also then the dot pass */
        const int has_dot = hs_dist_gpu_set_spmv_dot(g, 1);
        HS_TEST_CHECK(has_dot == (strncmp(f->name, "ellwarp", 7) == 0), "%s: the dot in the product %s", f->name,
                      has_dot ? "offered" : "not offered");
        for (int dot = has_dot; dot >= 0; --dot)
        for (int graph = 0; graph <= 1; ++graph) {
            HS_TEST_CHECK(hs_dist_gpu_set_spmv_dot(g, dot) == dot, "%s: set_spmv_dot %d", f->name, dot);
            char why[160] = "";
            const int gr = hs_dist_gpu_set_graph(g, graph, why, sizeof why);
            HS_TEST_CHECK(gr == graph, "%s: graph %d refused (%s)", f->name, graph, why);
            const hs_cg_opts *os[2] = {&opts, &o6};
            for (int oi = 0; oi < (brk ? 1 : 2); ++oi) {
                solve_out r[2];
                char what[200];
                snprintf(what, sizeof what, "%s %s%s, %s, %s", f->name, f32 ? "float32" : "float64",
                         dot ? ", the dot in the product" : has_dot ? ", the dot pass" : "", graph ? "graphs" : "launched",
                         brk ? "breakdown" : oi ? "max_iter 6" : "converged");
                for (int fused = 1; fused >= 0; --fused) {
                    HS_TEST_CHECK(hs_dist_gpu_set_fused(g, fused) == fused, "set_fused %d", fused);
                    if (graph) hs_dist_gpu_set_graph(g, 1, NULL, 0);
                    r[fused] = solve_once(g, os[oi], no, nl);
                    if (graph) { /* a replay of the kept graph: the capture's bits */
                        const solve_out again = solve_once(g, os[oi], no, nl);
                        check_equal(again, r[fused], what);
                    }
                }
                check_equal(r[1], r[0], what);
                if (!graph) { /* the whole solve in one graph, its loop on the device: the fused solve's bits */
                    hs_dist_gpu_set_fused(g, 0);
                    const solve_out no_loop = solve_while(g, os[oi], no, 1);
                    HS_TEST_CHECK(no_loop.st == HS_ERR_INTERNAL, "%s: the kernel sequence captured with a WHILE loop",
                                  what);
                    hs_error_clear();
                    hs_dist_gpu_set_fused(g, 1);
                    const solve_out w = solve_while(g, os[oi], no, 2);
                    HS_TEST_CHECK(w.st == HS_OK && w.res.outcome == r[1].res.outcome && w.res.iters == r[1].res.iters &&
                                      memcmp(&w.res.rel_res, &r[1].res.rel_res, sizeof(double)) == 0 &&
                                      memcmp(w.x.data(), r[1].x.data(), sizeof(double) * no) == 0,
                                  "%s, WHILE loop: %s in %d iterations (%.17g), polled %s in %d (%.17g), or x differs",
                                  what, hs_cg_outcome_name(w.res.outcome), w.res.iters, w.res.rel_res,
                                  hs_cg_outcome_name(r[1].res.outcome), r[1].res.iters, r[1].res.rel_res);
                }
                const hs_cg_outcome want = brk ? HS_CG_BREAKDOWN : oi ? HS_CG_MAX_ITER : HS_CG_CONVERGED;
                HS_TEST_CHECK(r[1].res.outcome == want, "%s: %s", what, hs_cg_outcome_name(r[1].res.outcome));
                if (brk) HS_TEST_CHECK(r[1].res.iters == 1, "%s: broke down at %d, expected 1", what, r[1].res.iters);
                if (!brk && !oi && !graph) { /* the converged solution against the host's arithmetic */
                    std::vector<double> xg(P->n), ax(P->n);
                    HS_TEST_OK(hs_dist_gather_idx(MPI_COMM_WORLD, -1, no, P->l->l2g, r[1].x.data(), P->n, xg.data()));
                    hs_csr ar = *P->a;
                    std::vector<double> aval(P->a->val, P->a->val + P->a->nnz);
                    if (f32)
                        for (auto &v : aval) v = (double)(float)v;
                    ar.val = aval.data();
                    hs_csr_spmv(&ar, xg.data(), ax.data());
                    double rr = 0.0, bb = 0.0;
                    for (int32_t i = 0; i < P->n; ++i) {
                        rr += (P->b[i] - ax[i]) * (P->b[i] - ax[i]);
                        bb += P->b[i] * P->b[i];
                    }
                    HS_TEST_CHECK(sqrt(rr) <= 1.01 * opts.tol * sqrt(bb), "%s: true residual %g > tol ||b|| %g", what,
                                  sqrt(rr), opts.tol * sqrt(bb));
                }
                if (rank == 0)
                    printf("%s: fused = sequence bit for bit (%s, %d iterations)\n", what,
                           hs_cg_outcome_name(r[1].res.outcome), r[1].res.iters);
            }
        }
        hs_dist_gpu_destroy(&g);
        stand_in_free(&S);
    }
}

/* A silent peer: every rank runs the init and one iteration; rank 1 then only starts the next halo
 * exchange (its flag raised) and sums nothing more, so every other rank's second fused iteration gets its
 * ghosts and then waits in its dot kernel's sum for rank 1 (only: the others sum): it must give up after
 * the timeout, the error naming rank 1's partial sums. */
static void test_silent_peer(const problem *P, int rank, const char *fmt, int f32)
{
    stand_in S;
    stand_in_make(&S, P, hs_spmv_find(fmt), f32, 1.0);
    hs_dist_gpu *g = NULL;
    HS_TEST_OK(hs_dist_gpu_create(&S.be, P->l, MPI_COMM_WORLD, HS_TRANSPORT_IPC, 0, &g));
    if (!g) MPI_Abort(MPI_COMM_WORLD, 1);
    HS_TEST_CHECK(hs_dist_gpu_set_fused(g, 1) == 1, "no fused iteration");
    hs_cuda_comm_set_timeout(g->comm, 0.5);
    cuda_impl *c = g->c;
    const hs_gpu_cg_tol t = {1e-10, 0.0, 0.0, NULL, 200};
    const double t0 = hs_wtime();
    HS_TEST_OK(hs_gpu_cg_enqueue_fixed(c->cg, c->rhs, c->du, &t, rank == 1 ? 1 : 2, 1, c->s));
    if (rank == 1) HS_TEST_OK(hs_cuda_comm_halo_start(g->comm, c->du, c->s));
    HS_TEST_CHECK(cudaStreamSynchronize(c->s) == cudaSuccess, "a silent peer: the stream failed");
    const double dt = hs_wtime() - t0;
    const hs_status st = hs_cuda_comm_check(g->comm);
    if (rank != 1) { /* every other rank waits for rank 1's sums */
        HS_TEST_CHECK(st == HS_ERR_DEVICE && strstr(hs_error_message(), "gave up") &&
                          strstr(hs_error_message(), "rank 1's partial sums"),
                      "a silent peer: status %d (%s)", (int)st, st ? hs_error_message() : "no error");
        HS_TEST_CHECK(dt < 20.0, "a silent peer: %.1f s to give up", dt);
        if (st != HS_OK && rank == 0)
            printf("a silent peer, fused iteration (%s), after %.2f s: %s\n", fmt, dt, hs_error_message());
    } else {
        HS_TEST_CHECK(st == HS_OK, "rank 1 (not waiting): %s", hs_error_message());
    }
    hs_error_clear();
    MPI_Barrier(MPI_COMM_WORLD); /* every wait ended before any rank unmaps its memory */
    hs_dist_gpu_destroy(&g);
    stand_in_free(&S);
}

/* The device Newton loop's test (dist_newton.cu) with the ipc transport: the owned rows' residual, the sum
 * of every rank's slots and the test as one fused kernel against the kernel sequence (the residual's
 * block maxima, their maximum, the slots, the transport's sum, the test): the same verdict bit for bit,
 * and the residual, its global node and the update's maximum those of the host's arithmetic over every
 * rank's rows (MPI's maxima). After the first assembly, after a converged solve, with a NaN on the last
 * rank (non-finite, every rank) and an element failure on rank 0 (every rank stops on it). */
static void test_newton_test(const problem *P, int rank, int size)
{
    stand_in S;
    stand_in_make(&S, P, hs_spmv_find("cusparse_sell"), 0, 1.0);
    S.prob.opt.newton_tol_residual = 1e-12;
    S.prob.opt.newton_tol_update = 1e-12;
    S.prob.opt.newton_max_iter = 5;
    cuda_impl &c = S.c;
    dev_scalars sc0 = {};
    sc0.bad_elem = 0x7f7f7f7f;
    HS_TEST_CHECK(cudaMalloc((void **)&c.d_sc, sizeof(dev_scalars)) == cudaSuccess, "device scalars");
    cudaMemcpy(c.d_sc, &sc0, sizeof sc0, cudaMemcpyHostToDevice);
    c.dt = 0.25;
    hs_dist_gpu *g = NULL;
    HS_TEST_OK(hs_dist_gpu_create(&S.be, P->l, MPI_COMM_WORLD, HS_TRANSPORT_IPC, 0, &g));
    if (!g) MPI_Abort(MPI_COMM_WORLD, 1);
    const int32_t no = P->no;
    /* the residual: distinct magnitudes over the global rows, the largest on the middle rank's rows */
    std::vector<double> rhs(P->nl, 0.0), inv_mass(P->nl, 1.0), part(HS_RED_BLOCKS);
    for (int32_t i = 0; i < no; ++i) {
        const int64_t gi = P->l->l2g[i];
        rhs[i] = (gi % 2 ? -1.0 : 1.0) * (1.0 + 1e-3 * (double)((gi * 7919) % 100003)) * (rank == size / 2 ? 4.0 : 1.0);
        inv_mass[i] = 0.5 + 1e-4 * (double)(gi % 1000);
    }
    for (int k = 0; k < HS_RED_BLOCKS; ++k) part[k] = 1e-3 * (1.0 + sin(0.1 * k + rank)) + 1e-5 * rank;
    cudaMemcpy(c.rhs, rhs.data(), sizeof(double) * rhs.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(c.inv_mass, inv_mass.data(), sizeof(double) * inv_mass.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(g->part, part.data(), sizeof(double) * part.size(), cudaMemcpyHostToDevice);
    cudaDeviceSynchronize(); /* pageable copies on the legacy stream: done before work on the non-blocking c.s */
    /* the host's reference: (value, global node) with MPI_MAXLOC's rule, the update's maximum */
    struct { double v; long long n; } mine = {0.0, -1}, all[64];
    for (int32_t i = 0; i < no; ++i) {
        const double w = fabs(rhs[i]) * c.dt * inv_mass[i];
        if (mine.n < 0 || w > mine.v || (w == mine.v && P->l->l2g[i] < mine.n)) { mine.v = w; mine.n = P->l->l2g[i]; }
    }
    MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, MPI_COMM_WORLD);
    double want_res = 0.0, want_upd = 0.0;
    long long want_node = -1;
    for (int q = 0; q < size; ++q)
        if (all[q].n >= 0 && (want_node < 0 || all[q].v > want_res || (all[q].v == want_res && all[q].n < want_node))) {
            want_res = all[q].v;
            want_node = all[q].n;
        }
    double pm = 0.0;
    for (double v : part) pm = v > pm ? v : pm;
    MPI_Allreduce(&pm, &want_upd, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    /* a converged solve of 7 iterations in the CG's scalars */
    hs_gpu_cg_scalars cs;
    cudaMemcpy(&cs, c.cg->d_sc, sizeof cs, cudaMemcpyDeviceToHost);
    cs.status = HS_GPU_CG_CONV;
    cs.iters = 7;
    cudaMemcpy(c.cg->d_sc, &cs, sizeof cs, cudaMemcpyHostToDevice);
    cudaDeviceSynchronize();
    auto same = [](const hs_dist_newton_probe &a, const hs_dist_newton_probe &b) {
        return a.go == b.go && a.stop == b.stop && a.k == b.k && a.res_node == b.res_node &&
               memcmp(&a.res, &b.res, sizeof(double)) == 0 && memcmp(&a.upd, &b.upd, sizeof(double)) == 0;
    };
    for (int kase = 0; kase < 3; ++kase) { /* 0: plain, 1: a NaN on the last rank, 2: rank 0's element failed */
        if (kase == 1 && rank == size - 1) {
            const double nan = NAN;
            cudaMemcpy(c.rhs + no / 2, &nan, sizeof nan, cudaMemcpyHostToDevice);
            cudaDeviceSynchronize();
        }
        if (kase == 2) {
            cudaMemcpy(c.rhs, rhs.data(), sizeof(double) * rhs.size(), cudaMemcpyHostToDevice);
            dev_scalars sc = sc0;
            if (rank == 0) sc.bad_elem = 5;
            cudaMemcpy(c.d_sc, &sc, sizeof sc, cudaMemcpyHostToDevice);
            cudaDeviceSynchronize();
        }
        hs_dist_newton_probe r[2][2]; /* [fused][first assembly, after the solve] */
        for (int fused = 0; fused <= 1; ++fused) {
            HS_TEST_OK(hs_dist_newton_probe_test(g, fused, 1, &r[fused][0]));
            HS_TEST_OK(hs_dist_newton_probe_test(g, fused, 0, &r[fused][1]));
        }
        const char *what = kase == 0 ? "plain" : kase == 1 ? "a NaN on the last rank" : "an element failure on rank 0";
        for (int q = 0; q < 2; ++q)
            HS_TEST_CHECK(same(r[1][q], r[0][q]), "Newton test (%s, %s): fused stop %d go %d k %d res %.17g node %lld upd "
                          "%.17g, sequence stop %d go %d k %d res %.17g node %lld upd %.17g", what,
                          q ? "after a solve" : "first", r[1][q].stop, r[1][q].go, r[1][q].k, r[1][q].res,
                          r[1][q].res_node, r[1][q].upd, r[0][q].stop, r[0][q].go, r[0][q].k, r[0][q].res,
                          r[0][q].res_node, r[0][q].upd);
        const hs_dist_newton_probe &f0 = r[1][0], &f1 = r[1][1];
        if (kase == 0) {
            HS_TEST_CHECK(f0.stop == HS_NEWTON_CONVERGED && f0.go == 1 && f0.k == 0 && f0.res == want_res &&
                              f0.res_node == want_node,
                          "Newton test, first: go %d k %d res %.17g at %lld, the host's %.17g at %lld", f0.go, f0.k,
                          f0.res, f0.res_node, want_res, want_node);
            HS_TEST_CHECK(f1.go == 1 && f1.k == 1 && f1.res == want_res && f1.res_node == want_node && f1.upd == want_upd,
                          "Newton test after a solve: go %d k %d res %.17g at %lld upd %.17g, the host's %.17g at %lld, "
                          "upd %.17g", f1.go, f1.k, f1.res, f1.res_node, f1.upd, want_res, want_node, want_upd);
        } else {
            const int want = kase == 1 ? HS_NEWTON_NONFINITE : HS_NEWTON_ELEMENT;
            HS_TEST_CHECK(f0.stop == want && f0.go == 0 && f1.stop == want && f1.go == 0,
                          "Newton test (%s): stop %d, %d (expected %d), go %d, %d", what, f0.stop, f1.stop, want, f0.go,
                          f1.go);
            if (kase == 1) HS_TEST_CHECK(std::isinf(f0.res), "Newton test (a NaN): residual %g, expected +inf", f0.res);
        }
    }
    if (rank == 0) printf("the device Newton loop's test: fused = sequence bit for bit, = the host's maxima\n");
    /* its update after a converged solve with the halo's start fused into it (k_update_phi_halo) against
     * k_update_phi and the comm's halo: phi, its ghosts and the |du| block maxima bit for bit; every
     * value, ghosts included, the owner's phi - du */
    const int32_t nl = P->nl;
    std::vector<double> phi0(nl), du(nl), out[2], parts[2];
    auto f_phi = [](int64_t gi) { return -80.0 + 0.37 * (double)(gi % 211) + 1e-3 * sin((double)gi); };
    auto f_du = [](int64_t gi) { return 1e-2 * cos(0.7 * (double)gi) - (gi % 5 == 1 ? 2e-3 : 0.0); };
    for (int32_t li = 0; li < nl; ++li) {
        phi0[li] = li < no ? f_phi(P->l->l2g[li]) : 1e30; /* ghosts: overwritten by the halo */
        du[li] = li < no ? f_du(P->l->l2g[li]) : -7.0;
    }
    for (int fused = 0; fused <= 1; ++fused) {
        cudaMemcpy(c.phi, phi0.data(), sizeof(double) * nl, cudaMemcpyHostToDevice);
        cudaMemcpy(c.du, du.data(), sizeof(double) * nl, cudaMemcpyHostToDevice);
        cudaDeviceSynchronize();
        HS_TEST_OK(hs_dist_newton_probe_update(g, fused));
        out[fused].resize(nl);
        parts[fused].resize(HS_RED_BLOCKS);
        cudaMemcpy(out[fused].data(), c.phi, sizeof(double) * nl, cudaMemcpyDeviceToHost);
        cudaMemcpy(parts[fused].data(), g->part, sizeof(double) * HS_RED_BLOCKS, cudaMemcpyDeviceToHost);
    }
    HS_TEST_CHECK(memcmp(out[1].data(), out[0].data(), sizeof(double) * nl) == 0 &&
                      memcmp(parts[1].data(), parts[0].data(), sizeof(double) * HS_RED_BLOCKS) == 0,
                  "Newton update: the fused update and halo differ from the sequence's (phi or the |du| maxima)");
    int bad = -1;
    for (int32_t li = 0; li < nl && bad < 0; ++li) {
        const int64_t gi = P->l->l2g[li];
        if (out[1][li] != f_phi(gi) - f_du(gi)) bad = li;
    }
    HS_TEST_CHECK(bad < 0, "Newton update: local row %d (%s) is %.17g, the owner's phi - du %.17g", bad,
                  bad >= no ? "a ghost" : "owned", bad >= 0 ? out[1][bad] : 0.0,
                  bad >= 0 ? f_phi(P->l->l2g[bad]) - f_du(P->l->l2g[bad]) : 0.0);
    if (rank == 0) printf("the device Newton loop's update with the halo's start fused: = the sequence bit for bit\n");
    hs_dist_gpu_destroy(&g);
    cudaFree(c.d_sc);
    c.d_sc = NULL;
    stand_in_free(&S);
}

/* Time per iteration of both, replayed from a graph of K iterations (printed). */
static void time_iterations(const problem *P, int rank, const char *fmt, int f32)
{
    stand_in S;
    stand_in_make(&S, P, hs_spmv_find(fmt), f32, 1.0);
    hs_dist_gpu *g = NULL;
    HS_TEST_OK(hs_dist_gpu_create(&S.be, P->l, MPI_COMM_WORLD, HS_TRANSPORT_IPC, 0, &g));
    if (!g) MPI_Abort(MPI_COMM_WORLD, 1);
    cuda_impl *c = g->c;
    enum { K = 40, REPS = 15 };
    const hs_gpu_cg_tol t = {0.0, 0.0, 0.0, NULL, 1 << 30}; /* never stops: K iterations each */
    double us4[2][2] = {{0.0, 0.0}, {0.0, 0.0}}; /* [the dot in the product][fused] */
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    const int has_dot = hs_dist_gpu_set_spmv_dot(g, 1);
    for (int dot = 0; dot <= has_dot; ++dot)
    for (int fused = 0; fused <= 1; ++fused) {
        hs_dist_gpu_set_spmv_dot(g, dot);
        hs_dist_gpu_set_fused(g, fused);
        cudaGraph_t graph = NULL;
        cudaGraphExec_t exec = NULL;
        HS_TEST_CHECK(cudaStreamBeginCapture(c->s, cudaStreamCaptureModeRelaxed) == cudaSuccess, "capture");
        HS_TEST_OK(hs_gpu_cg_enqueue_fixed(c->cg, c->rhs, c->du, &t, K, 0, c->s));
        HS_TEST_CHECK(cudaStreamEndCapture(c->s, &graph) == cudaSuccess, "end capture");
        HS_TEST_CHECK(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess, "instantiate");
        cudaGraphDestroy(graph);
        std::vector<double> v;
        for (int r = 0; r < REPS; ++r) {
            HS_TEST_OK(hs_gpu_cg_enqueue_fixed(c->cg, c->rhs, c->du, &t, 0, 1, c->s));
            cudaEventRecord(e0, c->s);
            cudaGraphLaunch(exec, c->s);
            cudaEventRecord(e1, c->s);
            HS_TEST_CHECK(cudaStreamSynchronize(c->s) == cudaSuccess, "timed iterations");
            HS_TEST_OK(hs_cuda_comm_check(g->comm));
            float ms = 0.0f;
            cudaEventElapsedTime(&ms, e0, e1);
            if (r >= 2) v.push_back(1e3 * ms / K);
        }
        cudaGraphExecDestroy(exec);
        std::sort(v.begin(), v.end());
        double med = v[v.size() / 2];
        MPI_Allreduce(MPI_IN_PLACE, &med, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        us4[dot][fused] = med;
    }
    const double *us = us4[has_dot]; /* what a run uses */
    if (rank == 0) {
        printf("time per CG iteration, %d rows a rank (%d nodes), %s %s, ipc, graph of %d: "
               "sequence (9 kernels) %.1f us, fused (3 kernels) %.1f us (median of %d, max over the ranks)\n",
               P->no, P->n, fmt, f32 ? "float32" : "float64", (int)K, us4[0][0], us4[0][1], REPS - 2);
        if (has_dot)
            printf("time per CG iteration, %s, the dot in the product (no dot pass, the default): sequence (8 kernels) "
                   "%.1f us, fused (3 kernels) %.1f us; the dot pass: fused %.1f us\n", fmt, us4[1][0], us4[1][1],
                   us4[0][1]);
    }
    /* where the fused iteration's time goes: each phase alone (max over the ranks) */
    hs_dist_gpu_set_fused(g, 1);
    double ph[HS_PCG_T_N];
    HS_TEST_OK(hs_dist_gpu_phase_times(g, K, 11, ph, HS_PCG_T_N));
    MPI_Allreduce(MPI_IN_PLACE, ph, HS_PCG_T_N, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("phases alone, us per call (max over the ranks): iteration %.1f = vector+halo %.1f (without the halo "
               "%.1f) + SpMV %.1f + dot+sum+test %.1f (dot pass alone %.1f); the transport alone: sum of 3 doubles "
               "%.1f, halo of u (start + finish) %.1f\n",
               ph[HS_PCG_T_ITER], ph[HS_PCG_T_VECTOR], ph[HS_PCG_T_VECTOR_LOC], ph[HS_PCG_T_SPMV], ph[HS_PCG_T_DOT_SUM],
               ph[HS_PCG_T_DOT], ph[HS_PCG_T_SUM], ph[HS_PCG_T_HALO]);
    if (rank == 0 && has_dot)
        printf("phases alone, the dot in the product: iteration %.1f = vector+halo+its 2 sums %.1f + SpMV+dot (owned "
               "rows) %.1f + one block: sum over the ranks+test %.1f\n", ph[HS_PCG_T_ITER_DOT], ph[HS_PCG_T_VECTOR_RED],
               ph[HS_PCG_T_SPMV_DOT], ph[HS_PCG_T_SUM_TEST]);
    /* the same iteration as the device Newton loop runs it: the body of a WHILE node the device relaunches
     * each iteration (hs_gpu_cg_capture_solve; the solve stopped at max_iter): (T(50) - T(10)) / 40 */
    double tw[2] = {0.0, 0.0};
    const int KW[2] = {10, 50};
    for (int w = 0; w < 2; ++w) {
        const hs_gpu_cg_tol tt = {0.0, 0.0, 0.0, NULL, KW[w]};
        cudaGraph_t graph = NULL;
        cudaGraphExec_t exec = NULL;
        HS_TEST_CHECK(cudaStreamBeginCapture(c->s, cudaStreamCaptureModeRelaxed) == cudaSuccess, "capture");
        HS_TEST_OK(hs_gpu_cg_capture_solve(c->cg, c->rhs, c->du, &tt, c->s));
        HS_TEST_CHECK(cudaStreamEndCapture(c->s, &graph) == cudaSuccess && cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess,
                      "WHILE graph");
        if (graph) cudaGraphDestroy(graph);
        std::vector<double> v;
        for (int r = 0; r < 9 && exec; ++r) {
            cudaEventRecord(e0, c->s);
            cudaGraphLaunch(exec, c->s);
            cudaEventRecord(e1, c->s);
            HS_TEST_CHECK(cudaStreamSynchronize(c->s) == cudaSuccess, "WHILE graph run");
            HS_TEST_OK(hs_cuda_comm_check(g->comm));
            float ms = 0.0f;
            cudaEventElapsedTime(&ms, e0, e1);
            if (r >= 1) v.push_back(1e3 * ms);
        }
        if (exec) cudaGraphExecDestroy(exec);
        std::sort(v.begin(), v.end());
        tw[w] = v.empty() ? 0.0 : v[v.size() / 2];
    }
    MPI_Allreduce(MPI_IN_PLACE, tw, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("in a WHILE node (the device Newton loop's CG): %.1f us per iteration ((T(50) %.1f - T(10) %.1f) / 40, "
               "max over the ranks), against %.1f unrolled in a graph of %d\n", (tw[1] - tw[0]) / 40.0, tw[1], tw[0],
               us[1], (int)K);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    hs_dist_gpu_destroy(&g);
    stand_in_free(&S);
}

/* The device Newton loop's test and update (dist_newton.cu), fused and as the kernel sequences, replayed
 * from a graph of K (printed, max over the ranks). */
static void time_newton(const problem *P, int rank)
{
    stand_in S;
    stand_in_make(&S, P, hs_spmv_find("ellwarp_k1"), 1, 1.0);
    S.prob.opt.newton_tol_residual = 1e-12;
    S.prob.opt.newton_max_iter = 1 << 30;
    cuda_impl &c = S.c;
    dev_scalars sc0 = {};
    sc0.bad_elem = 0x7f7f7f7f;
    HS_TEST_CHECK(cudaMalloc((void **)&c.d_sc, sizeof(dev_scalars)) == cudaSuccess, "device scalars");
    cudaMemcpy(c.d_sc, &sc0, sizeof sc0, cudaMemcpyHostToDevice);
    hs_dist_gpu *g = NULL;
    HS_TEST_OK(hs_dist_gpu_create(&S.be, P->l, MPI_COMM_WORLD, HS_TRANSPORT_IPC, 0, &g));
    if (!g) MPI_Abort(MPI_COMM_WORLD, 1);
    hs_gpu_cg_scalars cs;
    cudaMemcpy(&cs, c.cg->d_sc, sizeof cs, cudaMemcpyDeviceToHost);
    cs.status = HS_GPU_CG_CONV; /* the update applies du, the test reads the residual */
    cudaMemcpy(c.cg->d_sc, &cs, sizeof cs, cudaMemcpyHostToDevice);
    cudaDeviceSynchronize();
    double us[2][2] = {{0.0, 0.0}, {0.0, 0.0}};
    for (int fused = 0; fused <= 1; ++fused) HS_TEST_OK(hs_dist_newton_time(g, fused, 40, 11, us[fused]));
    MPI_Allreduce(MPI_IN_PLACE, us, 4, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("device Newton loop, %d rows a rank, us per call (max over the ranks, graph of 40): the test "
               "(residual, sum over the ranks, test, verdict to the host) sequence %.1f, fused %.1f; the update with "
               "the ghosts of phi sequence %.1f, fused %.1f\n", P->no, us[0][0], us[1][0], us[0][1], us[1][1]);
    hs_dist_gpu_destroy(&g);
    cudaFree(c.d_sc);
    c.d_sc = NULL;
    stand_in_free(&S);
}

/* K calls of piece in a graph, replayed: the median microseconds per call */
template <typename F>
static double time_graph(cudaStream_t s, int K, int reps, F piece)
{
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
    for (int q = 0; q < K; ++q) HS_TEST_OK(piece());
    HS_TEST_CHECK(cudaStreamEndCapture(s, &graph) == cudaSuccess && cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess,
                  "serial reference: graph");
    if (graph) cudaGraphDestroy(graph);
    std::vector<double> v;
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (int r = -1; r < reps && exec; ++r) {
        cudaEventRecord(e0, s);
        cudaGraphLaunch(exec, s);
        cudaEventRecord(e1, s);
        cudaEventSynchronize(e1);
        float ms = 0.0f;
        cudaEventElapsedTime(&ms, e0, e1);
        if (r >= 0) v.push_back(1e3 * ms / K);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    if (exec) cudaGraphExecDestroy(exec);
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

/* The reference on one GPU (rank 0): the whole matrix's serial CG iteration, SpMV and dot pass. */
static void time_serial(const problem *P, const char *fmt, int f32)
{
    stand_in S;
    stand_in_make(&S, P, hs_spmv_find(fmt), f32, 1.0);
    cuda_impl &c = S.c;
    enum { K = 40, REPS = 11 };
    const hs_gpu_cg_tol t = {0.0, 0.0, 0.0, NULL, 1 << 30};
    HS_TEST_OK(hs_gpu_cg_enqueue_fixed(c.cg, c.rhs, c.du, &t, 0, 1, c.s));
    const double it = time_graph(c.s, K, REPS, [&]() { return hs_gpu_cg_enqueue_fixed(c.cg, c.rhs, c.du, &t, 1, 0, c.s); });
    const double sp = time_graph(c.s, K, REPS, [&]() { return hs_gpu_spmv_apply(c.spmv, c.cg->u, c.cg->w, c.s); });
    const double dt = time_graph(c.s, K, REPS, [&]() {
        return hs_gpu_dot_pass(c.cg->n, c.cg->w, c.cg->u, c.cg->partD, NULL, c.s);
    });
    printf("one GPU, the whole matrix (%d rows), %s %s: CG iteration %.1f us (%s), SpMV %.1f, dot pass %.1f (half "
           "the iteration: %.1f)\n", P->n, fmt, f32 ? "float32" : "float64", it,
           c.cg->fused ? "2 kernels: the dot in the SpMV" : "3 kernels", sp, dt, 0.5 * it);
    stand_in_free(&S);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int nd = 0;
    if (cudaGetDeviceCount(&nd) != cudaSuccess) nd = 0;
    cudaGetLastError();
    int min_nd = nd;
    MPI_Allreduce(&nd, &min_nd, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    int one_node = 0;
    {
        MPI_Comm node;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
        int ns = 0;
        MPI_Comm_size(node, &ns);
        MPI_Comm_free(&node);
        one_node = ns == size;
        MPI_Allreduce(MPI_IN_PLACE, &one_node, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    }
    const char *skip = size < 2 ? "runs under mpirun -np 2 (or more)"
                     : min_nd < size ? "needs a GPU per rank"
                     : !one_node  ? "needs the ranks on one node (CUDA IPC)"
                                  : NULL;
    int shared = 0;
    char desc[512];
    if (!skip) {
        HS_TEST_OK(hs_dist_gpu_select_device(MPI_COMM_WORLD, &shared, desc, sizeof desc));
        if (shared) skip = "the ranks share a GPU";
    }
    if (skip) {
        if (rank == 0) printf("skipped: %s\n", skip);
        MPI_Finalize();
        return HS_TEST_SKIP;
    }
    printf("%s\n", desc);
    problem P;
    problem_make(&P, 30.0, size, rank); /* 29,791 nodes: ~60 blocks a rank in the vector and dot kernels */
    const char *names[][2] = {{"cusparse_sell", "0"}, {"csr_scalar", "0"}, {"ellwarp_k1", "1"}};
    for (auto &nm : names) {
        const hs_spmv_ops *f = hs_spmv_find(nm[0]);
        HS_TEST_CHECK(f != NULL, "no SpMV format %s", nm[0]);
        const int f32 = nm[1][0] == '1';
        if (f && hs_spmv_serves(f, f32 ? HS_VALUES_F32 : HS_VALUES_F64)) test_format(&P, f, f32, rank);
    }
    test_newton_test(&P, rank, size);
    test_silent_peer(&P, rank, "cusparse_sell", 0);
    test_silent_peer(&P, rank, "ellwarp_k1", 1); /* the dot in the product: the one block's sum waits */
    problem_free(&P);
    if (!getenv("HS_TEST_QUICK")) {
        problem Q;
        problem_make(&Q, 100.0, size, rank); /* bench_1m's 101^3 nodes */
        time_iterations(&Q, rank, "cusparse_sell", 0);
        time_iterations(&Q, rank, "ellwarp_k1", 1); /* what bench_1m takes on several ranks (float32 values) */
        time_newton(&Q, rank);
        problem_free(&Q);
        if (rank == 0) { /* the same matrix on one GPU */
            problem R;
            problem_make(&R, 100.0, 1, 0);
            time_serial(&R, "cusparse_sell", 0);
            time_serial(&R, "ellwarp_k1", 1);
            problem_free(&R);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    int fails = hs_test_failures, all = 0;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return all ? 1 : 0;
}
