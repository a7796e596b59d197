/*
 * The cuda backend on one rank's partition (hs_backend_part_ops, hs_backend.h; hs_dist_gpu.h): the
 * rank's device, the owned rows' Newton residual, and the solve, which is the serial backend's own:
 *  - one rank: the partition has no ghost and the comm nothing to do, so the solve is the serial
 *    backend's (hs_cu_solve: every CG variant, preconditioner, SpMV format, value type, the graph and
 *    persistent paths), and the distributed wrapper hands the Newton iteration to the backend whole
 *    (backends/mpi: iterate, newton_device);
 *  - several: the serial device CG (backends/cuda/cg.cu) over the owned rows with the device comm
 *    (hs_cuda_comm.h): Chronopoulos-Gear with alpha, beta and the stopping test on the device, the
 *    three sums of an iteration in one all-reduce enqueued on the stream (NCCL; MPI through pinned
 *    host buffers where NCCL is absent or ranks share a device), the host reading the status every
 *    HS_CG_POLL iterations as the serial stream path does. The host reference is the cpu backend's
 *    solve on a partition (hs_cg_chronopoulos over hs_comm_mpi_create's comm, solvers/cg.c). With
 *    solver.step = "graph" the whole Newton loop of a step runs so, its decisions on the device
 *    (dist_newton.cu, part op newton); with "kernels" the distributed backend runs it on the host over
 *    residual and solve below.
 * The SpMV of the owned rows: csr_scalar multiplies the interior rows while the halo travels and the
 * boundary rows after (a thread per row, through the format's slots, float64 or float32 values as the
 * backend stores them); any other registered format multiplies the rank's whole local matrix with its
 * own kernel once the halo has arrived (the ghosts' rows, incomplete, give values nobody reads).
 */
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cuda_backend.cuh"
#include "hs_cuda.h"
#include "hs_cuda_comm.h"
#include "hs_dist_pcg.cuh"
#include "hs_ipc_comm.cuh"
#include "dist_gpu.cuh"
#include "hs_dist_gpu.h"
#include "hs_dist_split.h"
#include "hs_gpu_reduce.cuh"
#include "hs_util.h"

/* ---- kernels ---------------------------------------------------------------------------------- */

/* y[i] = sum_j A_ij x_j for rows [r0, r1), A's values through the format's slots (csr_scalar: the CSR
 * nonzeros themselves), widened to double: a thread per row, columns in CSR order (the order of
 * csr_scalar's own kernel and of its apply_rows_ref). */
template <typename T>
static __global__ void k_csr_rows(int32_t r0, int32_t r1, const int32_t *__restrict__ rp,
                                  const int32_t *__restrict__ col, const int64_t *__restrict__ slot,
                                  const T *__restrict__ val, const double *__restrict__ x, double *__restrict__ y)
{
    for (int32_t i = r0 + blockIdx.x * blockDim.x + threadIdx.x; i < r1; i += gridDim.x * blockDim.x) {
        double s = 0.0;
        for (int32_t k = rp[i]; k < rp[i + 1]; ++k) s += (double)val[slot[k]] * x[col[k]];
        y[i] = s;
    }
}

/* The block maxima of dt |R_i| / m_i over the owned rows (the inner assembly's own norm also takes
 * the ghosts' rows, which lack other ranks' elements), into partv/parti as k_assemble_r does. */
static __global__ void k_res_owned(int32_t n, const double *__restrict__ rhs, const double *__restrict__ inv_mass, double dt,
                            double *partv, int *parti)
{
    __shared__ double shv[HS_RED_THREADS];
    __shared__ int shi[HS_RED_THREADS];
    hs_res_owned_block(n, rhs, inv_mass, dt, partv, parti, shv, shi);
}

/* ---- device choice ---------------------------------------------------------------------------- */

extern "C" hs_status hs_dist_gpu_select_device(MPI_Comm comm, int *shared, char *desc, size_t desc_len)
{
    int rank = 0, nrank = 0, nsize = 1, nd = 0;
    MPI_Comm node = MPI_COMM_NULL;
    HS_MPI_CALL(MPI_Comm_rank(comm, &rank));
    HS_MPI_CALL(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    cudaError_t e = cudaGetDeviceCount(&nd);
    const int have = e == cudaSuccess && nd > 0;
    const int dev = have ? nrank % nd : 0;
    /* the device's PCI address: ranks restricted to one device each (CUDA_VISIBLE_DEVICES, Slurm's
     * GPU binding) all say device 0, yet hold different GPUs; two ranks of a node on the same
     * address share one */
    char bus[32] = "none";
    if (have && cudaDeviceGetPCIBusId(bus, (int)sizeof bus, dev) != cudaSuccess) snprintf(bus, sizeof bus, "?%d", dev);
    cudaGetLastError();
    char *all = (char *)malloc(sizeof bus * (size_t)nsize);
    int sh = 0;
    if (!all || MPI_Allgather(bus, (int)sizeof bus, MPI_CHAR, all, (int)sizeof bus, MPI_CHAR, node) != MPI_SUCCESS) {
        sh = 1; /* cannot tell: the transport that works either way */
    } else {
        for (int q = 0; q < nsize; ++q)
            if (q != nrank && strncmp(all + sizeof bus * (size_t)q, bus, sizeof bus) == 0) sh = 1;
    }
    free(all);
    MPI_Comm_free(&node);
    HS_MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, &sh, 1, MPI_INT, MPI_MAX, comm));
    if (!have)
        return HS_FAIL(HS_ERR_DEVICE, "rank %d: no CUDA device for solver.backend = \"cuda\" (%s)", rank,
                       e != cudaSuccess ? cudaGetErrorString(e) : "no device found");
    *shared = sh;
    hs_gpu_set_device(dev);
    HS_CUDA_CALL(cudaSetDevice(dev));
    cudaDeviceProp prop;
    HS_CUDA_CALL(cudaGetDeviceProperties(&prop, dev));
    snprintf(desc, desc_len, "rank %d: device %d of %d (%s, PCI %s), node-local rank %d of %d", rank, dev, nd,
             prop.name, bus, nrank, nsize);
    return HS_OK;
}

/* ---- the operator and the sums the CG calls (hs_gpu_cg_dist) ------------------------------------ */

template <typename T>
static hs_status rows(hs_dist_gpu *g, int32_t r0, int32_t r1, const T *val, const double *x, double *y, cudaStream_t s)
{
    if (r1 <= r0) return HS_OK;
    k_csr_rows<T><<<nblocks(r1 - r0, 256), 256, 0, s>>>(r0, r1, g->d_rp, g->d_col, g->c->slot, val, x, y);
    HS_CUDA_LAUNCH_CHECK("k_csr_rows");
    return HS_OK;
}

/* y = A x on the owned rows once x's halo exchange was started: finished on the way */
static hs_status part_spmv_started(void *ctx, double *x, double *y, cudaStream_t s)
{
    hs_dist_gpu *g = (hs_dist_gpu *)ctx;
    cuda_impl *c = g->c;
    if (!g->split) { /* the format's own kernel over the local matrix, the ghosts arrived */
        HS_CALL(hs_cuda_comm_halo_finish(g->comm, x, s));
        return hs_gpu_spmv_apply(c->spmv, x, y, s);
    }
    if (c->f32) HS_CALL(rows(g, 0, g->n_int, c->kval32, x, y, s));
    else HS_CALL(rows(g, 0, g->n_int, c->kval, x, y, s));
    HS_CALL(hs_cuda_comm_halo_finish(g->comm, x, s));
    if (c->f32) HS_CALL(rows(g, g->n_int, g->n_own, c->kval32, x, y, s));
    else HS_CALL(rows(g, g->n_int, g->n_own, c->kval, x, y, s));
    return HS_OK;
}

/* y = A x on the owned rows, x's ghosts in place (the fused iteration's direct stores) */
static hs_status part_spmv_ready(void *ctx, double *x, double *y, cudaStream_t s)
{
    hs_dist_gpu *g = (hs_dist_gpu *)ctx;
    cuda_impl *c = g->c;
    if (!g->split) return hs_gpu_spmv_apply(c->spmv, x, y, s);
    return c->f32 ? rows(g, 0, g->n_own, c->kval32, x, y, s) : rows(g, 0, g->n_own, c->kval, x, y, s);
}

/* y = A x on the owned rows, x's ghosts exchanged on the way */
static hs_status part_spmv(void *ctx, double *x, double *y, cudaStream_t s)
{
    HS_CALL(hs_cuda_comm_halo_start(((hs_dist_gpu *)ctx)->comm, x, s));
    return part_spmv_started(ctx, x, y, s);
}

/* y = A x (the format's kernel over the local matrix) with (y, x) over the owned rows into *result in the
 * same pass (apply_dot_rows), x's ghosts in place (the fused iteration's direct stores) */
static hs_status part_spmv_dot_ready(void *ctx, double *x, double *y, double *part, int max_parts, unsigned *ticket,
                                     double *result, cudaStream_t s)
{
    hs_dist_gpu *g = (hs_dist_gpu *)ctx;
    const hs_gpu_spmv *sp = g->c->spmv;
    return sp->ops->apply_dot_rows(sp->impl, g->n_own, x, y, part, max_parts, ticket, result, s);
}

/* the same, x's ghosts exchanged first (cg.cu's sequence: hs_gpu_cg_dist.spmv_dot) */
static hs_status part_spmv_dot(void *ctx, double *x, double *y, double *part, int max_parts, unsigned *ticket,
                               double *result, cudaStream_t s)
{
    hs_dist_gpu *g = (hs_dist_gpu *)ctx;
    HS_CALL(hs_cuda_comm_halo_start(g->comm, x, s));
    HS_CALL(hs_cuda_comm_halo_finish(g->comm, x, s));
    return part_spmv_dot_ready(ctx, x, y, part, max_parts, ticket, result, s);
}

/* the product can form (A u, u) itself: the format offers apply_dot_rows, and its product over the local
 * matrix runs after the halo (not csr_scalar's split rows, whose sequence overlaps the interior rows with
 * the halo in two kernels) */
static int spmv_dot_possible(const hs_dist_gpu *g)
{
    return !g->serial && !g->split && g->c->spmv && g->c->spmv->ops->apply_dot_rows;
}

/* the ipc transport: a CG iteration with the halo's stores and the sum in its own kernels
 * (dist_pcg.cu), counted as the sequence's one exchange and one all-reduce. The CG's u is bound to the
 * transport (create): the rows land in the neighbours' ghosts of u and the vector kernel waits for
 * the flags, so the product follows with no finish kernel. */
static hs_status part_iteration(void *ctx, hs_gpu_cg *cg, double *x, cudaStream_t s, cudaGraphConditionalHandle cond,
                                int use_cond)
{
    hs_dist_gpu *g = (hs_dist_gpu *)ctx;
    hs_ipc *ipc = hs_cuda_comm_ipc(g->comm);
    HS_CHECK(g->u_bound == cg->u, HS_ERR_INTERNAL, "the fused CG iteration: u is not the vector bound to the transport");
    HS_CALL(hs_dist_pcg_enqueue(cg, x, ipc, part_spmv_ready, g->dist.spmv_dot ? part_spmv_dot_ready : NULL, g, s, cond,
                                use_cond));
    hs_cuda_comm_count(g->comm, hs_ipc_n_nbrs(ipc) > 0, 1);
    return HS_OK;
}

/* its init likewise (dist_pcg.cu) */
static hs_status part_init(void *ctx, hs_gpu_cg *cg, const double *b, double *x, const hs_gpu_cg_tol *t, cudaStream_t s,
                           cudaGraphConditionalHandle cond, int use_cond)
{
    hs_dist_gpu *g = (hs_dist_gpu *)ctx;
    hs_ipc *ipc = hs_cuda_comm_ipc(g->comm);
    HS_CHECK(g->u_bound == cg->u, HS_ERR_INTERNAL, "the fused CG init: u is not the vector bound to the transport");
    HS_CALL(hs_dist_pcg_enqueue_init(cg, b, x, t, ipc, part_spmv_ready, g->dist.spmv_dot ? part_spmv_dot_ready : NULL,
                                     g, s, cond, use_cond));
    hs_cuda_comm_count(g->comm, hs_ipc_n_nbrs(ipc) > 0, 1);
    return HS_OK;
}

static hs_status part_sum(void *ctx, double *d_v, int n, cudaStream_t s)
{
    return hs_cuda_comm_sum_dev(((hs_dist_gpu *)ctx)->comm, d_v, n, s);
}

/* the comm's counts follow what runs: a capture enqueues nothing, a graph launch what it captured */
static void part_note(void *ctx, int what)
{
    hs_dist_gpu *g = (hs_dist_gpu *)ctx;
    hs_dist_times t;
    if (what == HS_GPU_CG_NOTE_CAPTURE) {
        hs_cuda_comm_times(g->comm, &g->cap0);
    } else if (what == HS_GPU_CG_NOTE_CAPTURED) {
        hs_cuda_comm_times(g->comm, &t);
        g->cap_ex = t.exchanges - g->cap0.exchanges;
        g->cap_ar = t.allreduces - g->cap0.allreduces;
        hs_cuda_comm_count(g->comm, -g->cap_ex, -g->cap_ar);
    } else {
        hs_cuda_comm_count(g->comm, g->cap_ex, g->cap_ar);
    }
}

/* ---- the solver ------------------------------------------------------------------------------- */

extern "C" const char *hs_dist_gpu_transport(const hs_dist_gpu *g) { return hs_cuda_comm_transport(g->comm); }

extern "C" int hs_dist_gpu_split(const hs_dist_gpu *g) { return g->split && !g->dist.iteration; }

extern "C" int hs_dist_gpu_set_graph(hs_dist_gpu *g, int on, char *why, size_t why_len)
{
    char no[128] = "";
    if (g->serial) snprintf(no, sizeof no, "one rank: the serial solve");
    const int use = on && !g->serial && hs_cuda_comm_capturable(g->comm, no, sizeof no);
    if (!g->serial) {
        g->dist.graph = use;
        if (g->c->cg->dist_exec) { /* the old graph freed; the CG is Chronopoulos on a partition already */
            hs_gpu_cg_clear_dist(g->c->cg, g->n_own);
            g->c->cg->dist = &g->dist;
        }
    }
    snprintf(g->why_graph, sizeof g->why_graph, "%s", on && !use ? no : "");
    if (why && why_len) snprintf(why, why_len, "%s", g->why_graph);
    return use;
}

extern "C" int hs_dist_gpu_set_fused(hs_dist_gpu *g, int on)
{
    if (g->serial) return 0;
    const int use = on && hs_cuda_comm_ipc(g->comm) && g->u_bound;
    g->dist.iteration = use ? part_iteration : NULL;
    g->dist.init = use ? part_init : NULL;
    hs_dist_newton_free(g); /* its graphs hold the other kind of iteration (made again when next used) */
    if (g->c->cg->dist_exec) {
        hs_gpu_cg_clear_dist(g->c->cg, g->n_own);
        g->c->cg->dist = &g->dist;
    }
    return g->dist.iteration != NULL;
}

extern "C" int hs_dist_gpu_set_spmv_dot(hs_dist_gpu *g, int on)
{
    if (g->serial) return 0;
    const int use = on && spmv_dot_possible(g);
    g->dist.spmv_dot = use ? part_spmv_dot : NULL;
    hs_dist_newton_free(g); /* its graphs hold the other kind of iteration (made again when next used) */
    if (g->c->cg->dist_exec) {
        hs_gpu_cg_clear_dist(g->c->cg, g->n_own);
        g->c->cg->dist = &g->dist;
    }
    return use;
}

extern "C" hs_status hs_dist_gpu_phase_times(hs_dist_gpu *g, int K, int reps, double *us, int n)
{
    HS_CHECK(!g->serial && g->dist.iteration && n >= HS_PCG_T_N, HS_ERR_INTERNAL,
             "phase times: the fused iteration of the ipc transport only (%d slots of %d)", n, (int)HS_PCG_T_N);
    return hs_dist_pcg_phase_times(g->c->cg, g->c->rhs, g->c->du, hs_cuda_comm_ipc(g->comm), part_spmv_ready,
                                   spmv_dot_possible(g) ? part_spmv_dot_ready : NULL, g, g->c->s, K, reps, us);
}

extern "C" hs_status hs_dist_gpu_spmv(hs_dist_gpu *g, double *d_x, double *d_y)
{
    HS_CALL(part_spmv(g, d_x, d_y, g->c->s));
    HS_CUDA_CALL(cudaStreamSynchronize(g->c->s));
    return hs_cuda_comm_check(g->comm);
}

hs_status hs_dist_gpu_enqueue_residual(hs_dist_gpu *g)
{
    cuda_impl *c = g->c;
    k_res_owned<<<HS_RED_BLOCKS, HS_RED_THREADS, 0, c->s>>>(g->n_own, c->rhs, c->inv_mass, c->dt, c->partA, c->parti);
    HS_CUDA_LAUNCH_CHECK("k_res_owned");
    return hs_cu_launch_final_maxloc(c, g->d_resv, g->d_resi);
}

extern "C" hs_status hs_dist_gpu_residual(hs_dist_gpu *g, double *v, int32_t *i_local)
{
    cuda_impl *c = g->c;
    HS_CALL(hs_dist_gpu_enqueue_residual(g));
    HS_CUDA_CALL(cudaMemcpyAsync(g->h_resv, g->d_resv, sizeof(double), cudaMemcpyDeviceToHost, c->s));
    HS_CUDA_CALL(cudaMemcpyAsync(g->h_resi, g->d_resi, sizeof(int), cudaMemcpyDeviceToHost, c->s));
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    g->waits++;
    *v = *g->h_resv <= INFINITY ? *g->h_resv : INFINITY; /* NaN: reported as non-finite */
    *i_local = *g->h_resi;
    return HS_OK;
}

extern "C" hs_status hs_dist_gpu_solve(hs_dist_gpu *g, const hs_cg_opts *opts, hs_cg_result *res, double *upd_local)
{
    cuda_impl *c = g->c;
    if (g->serial) /* one partition: the serial solve, its tolerance from its own (the only) residual */
        return hs_cu_solve(g->b, res, upd_local);
    HS_CUDA_CALL(cudaEventRecord(c->ev_s0, c->s));
    const hs_gpu_cg_tol t = {opts->tol, 0.0, 0.0, NULL, opts->max_iter}; /* the tolerance is forced already */
    HS_CALL(hs_gpu_cg_solve_stream(c->cg, c->rhs, c->du, &t, HS_CG_POLL, c->s, c->h_cg));
    HS_CALL(hs_cuda_comm_check(g->comm)); /* an ipc wait that gave up on a peer: no result to trust */
    hs_gpu_cg_result_of(c->h_cg, res);
    g->waits += (c->h_cg->iters + HS_CG_POLL - 1) / HS_CG_POLL + (c->h_cg->iters == 0); /* its polls */
    const int conv = res->outcome == HS_CG_CONVERGED;
    /* the serial backend's update kernel on the owned rows, the decision taken on the host */
    HS_CALL(hs_cu_launch_update_phi(c->s, g->n_own, NULL, conv, c->phi, c->du, g->part, NULL));
    HS_CUDA_CALL(cudaMemcpyAsync(g->h_part, g->part, sizeof(double) * HS_RED_BLOCKS, cudaMemcpyDeviceToHost, c->s));
    if (conv) { /* the ghosts of phi from their owners */
        HS_CALL(hs_cuda_comm_halo_start(g->comm, c->phi, c->s));
        HS_CALL(hs_cuda_comm_halo_finish(g->comm, c->phi, c->s));
    }
    HS_CUDA_CALL(cudaEventRecord(c->ev_s1, c->s));
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    g->waits++;
    HS_CALL(hs_cuda_comm_check(g->comm));
    c->t.solve += 1e-3 * elapsed_ms(c->ev_s0, c->ev_s1);
    double m = 0.0;
    for (int k = 0; k < HS_RED_BLOCKS; ++k) /* the kernel's order: NaN largest */
        if ((std::isnan(g->h_part[k]) && !std::isnan(m)) || g->h_part[k] > m) m = g->h_part[k];
    *upd_local = m;
    return HS_OK;
}

/* ---- set-up ----------------------------------------------------------------------------------- */

static hs_status create(hs_dist_gpu *g, hs_backend *cuda, const hs_part_local *l, MPI_Comm comm, int transport,
                        int one_rank_serial)
{
    cuda_impl *c = (cuda_impl *)cuda->impl;
    HS_CHECK(strcmp(cuda->ops->name, "cuda") == 0 && c, HS_ERR_INTERNAL, "the inner backend is not cuda");
    const hs_csr *vp = l->pattern;
    HS_CHECK(c->nn == l->n_owned + l->n_ghost && vp->n_rows == l->n_owned, HS_ERR_INTERNAL,
             "the inner cuda backend has %d nodes, the view %d owned + %d ghosts", c->nn, l->n_owned, l->n_ghost);
    g->b = cuda;
    g->c = c;
    g->l = l;
    g->n_int = l->n_interior;
    g->n_own = l->n_owned;
    HS_MPI_CALL(MPI_Comm_size(comm, &g->size));
    HS_MPI_CALL(MPI_Comm_rank(comm, &g->rank));
    HS_CUDA_CALL(cudaSetDevice(hs_gpu_device()));
    HS_CALL(hs_cuda_comm_create(l, &comm, transport, &g->comm));
    HS_CALL(HS_CUDA_ALLOC(g->part, HS_RED_BLOCKS, "reduction partials"));
    HS_CALL(HS_CUDA_ALLOC(g->d_resv, 1, "residual norm"));
    HS_CALL(HS_CUDA_ALLOC(g->d_resi, 1, "residual node"));
    HS_CUDA_CALL(cudaMallocHost((void **)&g->h_part, HS_RED_BLOCKS * sizeof(double)));
    HS_CUDA_CALL(cudaMallocHost((void **)&g->h_resv, sizeof(double)));
    HS_CUDA_CALL(cudaMallocHost((void **)&g->h_resi, sizeof(int)));
    g->serial = g->size == 1 && one_rank_serial;
    if (!g->serial) {
        HS_CHECK(c->cg && !c->gpc, HS_ERR_INTERNAL, "the partition's solve is Jacobi-CG (cuda_part_local_opts)");
        /* csr_scalar's slots are the CSR nonzeros of the local matrix, whose owned rows come first */
        g->split = cuda->prob->opt.exec.spmv == &hs_spmv_ops_csr_scalar;
        if (g->split) {
            HS_CALL(upload(&g->d_rp, vp->row_ptr, (size_t)g->n_own + 1, "distributed CSR row pointers"));
            HS_CALL(upload(&g->d_col, vp->col, (size_t)vp->nnz, "distributed CSR columns"));
        }
        g->dist.spmv = part_spmv;
        g->dist.sum = part_sum;
        g->dist.ctx = g;
        g->dist.note = part_note;
        /* the ipc transport fused into the iteration's kernels (9 kernels to 3: hs_dist_pcg.cuh), the
         * CG's u mapped by the neighbours (collective: every rank has the same transport) */
        if (hs_cuda_comm_ipc(g->comm)) {
            HS_CALL(hs_ipc_bind_vector(hs_cuda_comm_ipc(g->comm), c->cg->u));
            g->u_bound = c->cg->u;
        }
        hs_dist_gpu_set_fused(g, 1);
        hs_dist_gpu_set_spmv_dot(g, 1); /* the product forms (A u, u) where the format can (no dot pass) */
        HS_CALL(hs_gpu_cg_set_dist(c->cg, g->n_own, &g->dist));
        hs_dist_gpu_set_graph(g, cuda->prob->opt.exec.step == HS_STEP_GRAPH, NULL, 0);
    }
    HS_CUDA_CALL(cudaDeviceSynchronize());
    return HS_OK;
}

extern "C" hs_status hs_dist_gpu_create(hs_backend *cuda, const hs_part_local *l, MPI_Comm comm, int transport,
                                        int one_rank_serial, hs_dist_gpu **out)
{
    *out = NULL;
    hs_dist_gpu *g = NULL;
    HS_CALL(HS_ALLOC(g, 1, "distributed device solver"));
    hs_status st = create(g, cuda, l, comm, transport, one_rank_serial);
    if (st != HS_OK) {
        hs_dist_gpu_destroy(&g);
        return st;
    }
    *out = g;
    return HS_OK;
}

extern "C" void hs_dist_gpu_times(const hs_dist_gpu *g, hs_dist_times *t)
{
    hs_cuda_comm_times(g->comm, t);
    t->spmv = -1.0; /* the products are not timed apart from the CG (asynchronous on the device) */
    t->host_waits += g->waits; /* this solver's synchronisations (the MPI transport's inside the comm not counted) */
}

extern "C" void hs_dist_gpu_destroy(hs_dist_gpu **pg)
{
    hs_dist_gpu *g = *pg;
    if (!g) return;
    hs_dist_newton_free(g);
    if (g->c && g->c->cg && g->c->cg->dist == &g->dist) /* the CG outlives this: back to one partition */
        hs_gpu_cg_clear_dist(g->c->cg, g->c->nn);
    hs_cuda_comm_destroy(&g->comm);
    void *dev[] = {g->d_rp, g->d_col, g->part, g->d_resv, g->d_resi};
    for (size_t k = 0; k < sizeof dev / sizeof dev[0]; ++k)
        if (dev[k]) cudaFree(dev[k]);
    void *host[] = {g->h_part, g->h_resv, g->h_resi};
    for (size_t k = 0; k < sizeof host / sizeof host[0]; ++k)
        if (host[k]) cudaFreeHost(host[k]);
    free(g);
    *pg = NULL;
}

/* ---- the cuda backend on one rank's partition (hs_backend_part_ops, hs_backend.h) ----------------- */

namespace {
struct cuda_part {
    hs_dist_gpu *g;
    hs_cu_dist_split *ds; /* solver.scheme = "splitting" on several ranks (dist_split.cu); NULL otherwise */
    char what[200];
};
} // namespace

/* The rank's device. The transport is parallel.transport, resolved when the partition is bound
 * (hs_cuda_comm_create: auto takes ipc, NCCL or MPI, and says why), so *fast stays 0. Every
 * collective runs on every rank, with or without a device (the error after them). */
static hs_status cuda_part_prepare(const void *comm, char *desc, size_t desc_len, int *fast)
{
    const MPI_Comm c = *(const MPI_Comm *)comm;
    int shared = 0;
    *fast = 0;
    return hs_dist_gpu_select_device(c, &shared, desc, desc_len);
}

/* One rank: the serial run's choices, all of them (the partition is the whole mesh, the solve the
 * serial one). Several: the inner backend assembles on the device and its CG runs over the owned rows
 * with the device comm (hs_gpu_cg_set_dist): Jacobi-preconditioned Chronopoulos-Gear as a kernel
 * sequence, in any SpMV format and value type of the serial run. Another variant, preconditioner or
 * Krylov method named in the config is refused by its key (as the cpu backend's partition refuses
 * what it does not run), never replaced silently; the persistent CG and the graph paths are turned off
 * (their kernels or captures hold no all-reduce: docs/parallel.md). */
static hs_status cuda_part_local_opts(hs_problem_opts *po, int n_ranks)
{
    if (n_ranks == 1) return HS_OK;
    HS_CHECK(po->cg.variant == HS_CG_CHRONOPOULOS, HS_ERR_CONFIG,
             "solver.cg: a distributed run with the cuda backend solves with Chronopoulos-Gear CG on the device; "
             "\"%s\" runs there on one rank only: use solver.cg = \"chronopoulos\" (or solver.backend = \"cpu\", "
             "whose ranks run every CG variant)", hs_cg_variant_name(po->cg.variant));
    HS_CALL(hs_backend_part_require_jacobi_cg(po));
    HS_CHECK(!po->exec.spmv || !po->exec.spmv->node_order, HS_ERR_CONFIG,
             "solver.spmv: \"%s\" numbers the nodes in its own order, which a rank's local numbering (owned "
             "interior, owned boundary, ghosts) replaces; on several ranks use another kernel (\"auto\" chooses one)",
             po->exec.spmv->name);
    po->graph = 0; /* not the serial per-iteration graph (graph.cu): its CG loop holds no all-reduce */
    /* graph: the partition's Newton loop on the device (dist_newton.cu), in graphs where the comm allows
     * (hs_dist_gpu_set_graph) */
    if (po->exec.step != HS_STEP_GRAPH) po->exec.step = HS_STEP_KERNELS;
    po->exec.persistent_cg = 0;
    return HS_OK;
}

static void cuda_part_unbind(hs_backend_part **pp)
{
    if (!pp || !*pp) return;
    cuda_part *q = reinterpret_cast<cuda_part *>(*pp);
    hs_cu_dist_split_unbind(&q->ds);
    hs_dist_gpu_destroy(&q->g);
    free(q);
    *pp = NULL;
}

static hs_status cuda_part_bind(hs_backend *b, const hs_part_local *l, const void *comm, int fast,
                                hs_backend_part **out)
{
    (void)fast; /* the transport is the plan's request (parallel.transport), resolved by the comm */
    *out = NULL;
    cuda_part *q = (cuda_part *)calloc(1, sizeof *q);
    HS_CHECK(q != NULL, HS_ERR_MEMORY, "out of memory for the distributed device solver");
    hs_status st = hs_dist_gpu_create(b, l, *(const MPI_Comm *)comm, b->prob->opt.exec.transport, 1, &q->g);
    if (st == HS_OK && !q->g->serial && b->prob->opt.scheme.kind == HS_SCHEME_SPLITTING)
        st = hs_cu_dist_split_bind(b, q->g->comm, l->n_owned, &q->ds);
    if (st != HS_OK) {
        hs_backend_part *p = reinterpret_cast<hs_backend_part *>(q);
        cuda_part_unbind(&p);
        return st;
    }
    if (q->g->serial)
        snprintf(q->what, sizeof q->what, "one rank: the serial device solve");
    else /* short: the backend line keeps 150 characters of it. graph: the Newton loop on the device
          * (dist_newton.cu), kernels: on the host around the device CG */
        snprintf(q->what, sizeof q->what, "device %s, %s %s the halo, halo and sums through %s",
                 b->prob->opt.scheme.kind == HS_SCHEME_SPLITTING /* the host runs the steps (dist_split.cu) */
                     ? (q->g->dist.graph ? "CG in graphs of " HS_CG_POLL_STR : "CG")
                 : b->prob->opt.exec.step != HS_STEP_GRAPH ? "CG"
                 : q->g->dist.graph                        ? "Newton loop in graphs"
                                                           : "Newton loop",
                 b->prob->opt.exec.spmv->name, hs_dist_gpu_split(q->g) ? "overlapping" : "after",
                 hs_dist_gpu_transport(q->g));
    if (q->g->why_graph[0]) {
        int rank = 0;
        MPI_Comm_rank(*(const MPI_Comm *)comm, &rank);
        if (rank == 0)
            hs_warn("solver.step = \"graph\" on several ranks replays the device Newton loop from CUDA graphs; not "
                    "here (%s): its kernels are launched one by one (the same numbers)", q->g->why_graph);
    }
    *out = reinterpret_cast<hs_backend_part *>(q);
    return HS_OK;
}

static hs_status cuda_part_residual(hs_backend_part *p, double *v, int32_t *row)
{
    return hs_dist_gpu_residual(reinterpret_cast<cuda_part *>(p)->g, v, row);
}

static hs_status cuda_part_solve(hs_backend_part *p, const hs_cg_opts *o, hs_cg_result *cg, double *upd_local)
{
    return hs_dist_gpu_solve(reinterpret_cast<cuda_part *>(p)->g, o, cg, upd_local);
}

static void cuda_part_times(const hs_backend_part *p, hs_dist_times *t)
{
    hs_dist_gpu_times(reinterpret_cast<const cuda_part *>(p)->g, t);
}

static const char *cuda_part_describe(const hs_backend_part *p)
{
    return reinterpret_cast<const cuda_part *>(p)->what;
}

static hs_status cuda_part_newton(hs_backend_part *p, hs_newton_out *out)
{
    return hs_dist_gpu_newton(reinterpret_cast<cuda_part *>(p)->g, out);
}

/* One op a line (C++17 has no designated initialisers): a new op is one more line here. */
static hs_backend_part_ops cuda_part_ops_table(void)
{
    hs_backend_part_ops o = {};
    o.prepare = cuda_part_prepare;
    o.local_opts = cuda_part_local_opts;
    o.bind = cuda_part_bind;
    o.residual = cuda_part_residual;
    o.solve = cuda_part_solve;
    o.times = cuda_part_times;
    o.describe = cuda_part_describe;
    o.unbind = cuda_part_unbind;
    o.resolve_plan = hs_cuda_resolve_plan_ranks; /* entry.cu: one rank the serial plan, several their own */
    o.one_rank_serial = 1;                       /* one rank: the backend's own Newton iteration */
    o.splitting = 1;                             /* react on the owned nodes, diffuse over the ranks (dist_split.cu) */
    o.newton = cuda_part_newton;                 /* several ranks, solver.step = "graph": dist_newton.cu */
    return o;
}

extern "C" const hs_backend_part_ops hs_cuda_part_ops = cuda_part_ops_table();
