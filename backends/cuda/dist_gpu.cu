/*
 * The device half of a distributed run with the cuda backend (hs_dist_gpu.h): the rank's device,
 * the owned rows' Newton residual, and the distributed Chronopoulos-Gear Jacobi-PCG on the device
 * with its halo exchange and all-reduce through NCCL or through MPI and pinned host buffers.
 *
 * The recurrences, the scalars (computed on the host from the reduced sums, as the host CG does)
 * and the stopping test are those of hs_cg_chronopoulos over a distributed comm (solvers/cg.c,
 * the cpu backend's solve on a partition), the reference: one reduction of three sums
 * per iteration, (r,u), (Au,u), (r,r) formed after the SpMV. The row update is the serial device
 * CG's own (hs_cgc_update_row). The SpMV is plain CSR over two row ranges (interior rows while the
 * halo travels, boundary rows after), a thread per row: the registered device formats
 * (backends/cuda/spmv) multiply whole matrices and cannot be split at the interior/boundary line,
 * so this kernel is written here.
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
#include "hs_dist_gpu.h"
#include "hs_gpu_reduce.cuh"
#include "hs_util.h"

#if HS_HAS_NCCL
#include <dlfcn.h>
#include <nccl.h>

/* NCCL is loaded when a run first needs it (dlopen of libnccl.so.2), not linked: the library is
 * ~200 MB, the lent GPU machines may lack it and the bundle sent there cannot carry it, and a
 * binary linked to it would not start at all without it. Without it a run exchanges through MPI
 * and says so. The types and signatures are nccl.h's. */
static struct {
    int tried, ok;
    char why[256];
    ncclResult_t (*GetUniqueId)(ncclUniqueId *);
    ncclResult_t (*CommInitRank)(ncclComm_t *, int, ncclUniqueId, int);
    ncclResult_t (*CommDestroy)(ncclComm_t);
    ncclResult_t (*Send)(const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
    ncclResult_t (*Recv)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
    ncclResult_t (*GroupStart)(void);
    ncclResult_t (*GroupEnd)(void);
    ncclResult_t (*AllReduce)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t);
    const char *(*GetErrorString)(ncclResult_t);
    ncclResult_t (*GetVersion)(int *);
} nc;

/* 1 when libnccl.so.2 and every function are there (else nc.why says what is missing). */
static int nccl_load(void)
{
    if (nc.tried) return nc.ok;
    nc.tried = 1;
    /* the loader's search (LD_LIBRARY_PATH, ld.so.cache), then the CUDA toolkit's folders */
    const char *names[] = {"libnccl.so.2", "/usr/local/cuda/lib/libnccl.so.2", "/usr/local/cuda/lib64/libnccl.so.2",
                           "/usr/local/cuda/targets/x86_64-linux/lib/libnccl.so.2"};
    void *h = NULL;
    char first[200] = "";
    for (size_t k = 0; !h && k < sizeof names / sizeof names[0]; ++k) {
        h = dlopen(names[k], RTLD_NOW | RTLD_LOCAL);
        const char *e = h ? NULL : dlerror();
        if (k == 0 && e) snprintf(first, sizeof first, "%s", e);
    }
    if (!h) {
        snprintf(nc.why, sizeof nc.why, "%s", first[0] ? first : "libnccl.so.2 not found");
        return 0;
    }
    struct {
        void **fn;
        const char *name;
    } fns[] = {{(void **)&nc.GetUniqueId, "ncclGetUniqueId"}, {(void **)&nc.CommInitRank, "ncclCommInitRank"},
               {(void **)&nc.CommDestroy, "ncclCommDestroy"}, {(void **)&nc.Send, "ncclSend"},
               {(void **)&nc.Recv, "ncclRecv"}, {(void **)&nc.GroupStart, "ncclGroupStart"},
               {(void **)&nc.GroupEnd, "ncclGroupEnd"}, {(void **)&nc.AllReduce, "ncclAllReduce"},
               {(void **)&nc.GetErrorString, "ncclGetErrorString"}, {(void **)&nc.GetVersion, "ncclGetVersion"}};
    for (size_t k = 0; k < sizeof fns / sizeof fns[0]; ++k) {
        *fns[k].fn = dlsym(h, fns[k].name);
        if (!*fns[k].fn) {
            snprintf(nc.why, sizeof nc.why, "libnccl has no %s", fns[k].name);
            return 0;
        }
    }
    nc.ok = 1;
    return 1;
}

#define HS_NCCL_CALL(expr)                                                                         \
    do {                                                                                           \
        ncclResult_t hs_nc_ = (expr);                                                              \
        if (hs_nc_ != ncclSuccess)                                                                 \
            return HS_FAIL(HS_ERR_DEVICE, "%s failed: %s", #expr, nc.GetErrorString(hs_nc_));      \
    } while (0)
#endif

extern "C" int hs_dist_gpu_nccl_available(char *why, size_t why_len)
{
#if HS_HAS_NCCL
    if (nccl_load()) return 1;
    snprintf(why, why_len, "NCCL could not be loaded: %s", nc.why);
#else
    snprintf(why, why_len, "this build has no NCCL (HS_USE_NCCL)");
#endif
    return 0;
}

#define HS_GPU_HALO_TAG 1403

struct hs_dist_gpu {
    cuda_impl *c;             /* borrowed: the inner backend's device state */
    const hs_part_local *l;   /* borrowed */
    MPI_Comm comm;            /* own duplicate */
    int rank, size, nccl;
#if HS_HAS_NCCL
    ncclComm_t nc;
#endif
    cudaStream_t s2;          /* the exchange's stream (NCCL) */
    cudaEvent_t ev_pack, ev_halo, ev_int;
    int32_t n_int, n_own, n_ghost, n_send;
    int32_t *d_rp, *d_col, *d_send_idx;
    double *d_sendbuf, *h_send, *h_recv; /* h_* pinned (MPI transport) */
    MPI_Request *req;
    double *r, *u, *p, *w, *sv; /* [n_own]; u [n_own + n_ghost] (its ghosts exchanged) */
    double *part, *d_red, *h_red, *h_part;
    double *d_resv;
    int *d_resi, *h_resi;
    double *h_resv;
    hs_dist_times *t;
    char transport[64];
};

/* ---- kernels ---------------------------------------------------------------------------------- */

/* y[i] = sum_j A_ij x_j for rows [r0, r1): a thread per row, columns in CSR order. */
static __global__ void k_csr_rows(int32_t r0, int32_t r1, const int32_t *__restrict__ rp, const int32_t *__restrict__ col,
                           const double *__restrict__ val, const double *__restrict__ x, double *__restrict__ y)
{
    for (int32_t i = r0 + blockIdx.x * blockDim.x + threadIdx.x; i < r1; i += gridDim.x * blockDim.x) {
        double s = 0.0;
        for (int32_t k = rp[i]; k < rp[i + 1]; ++k) s += val[k] * x[col[k]];
        y[i] = s;
    }
}

static __global__ void k_pack(int32_t n, const int32_t *__restrict__ idx, const double *__restrict__ x, double *__restrict__ buf)
{
    for (int32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) buf[k] = x[idx[k]];
}

static __global__ void k_cg_init(int32_t n, const double *__restrict__ b, const double *__restrict__ dinv, double *x,
                          double *r, double *u, double *p, double *s)
{
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        x[i] = 0.0;
        r[i] = b[i];
        u[i] = dinv[i] * b[i];
        p[i] = 0.0;
        s[i] = 0.0;
    }
}

static __global__ void k_cg_update(int32_t n, double alpha, double beta, double *x, double *r, double *u, double *p,
                            double *s, const double *w, const double *dinv)
{
    double gg = 0.0, rr = 0.0; /* the sums are formed after the SpMV (k_dots3), as the host reference */
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        hs_cgc_update_row(i, alpha, beta, x, r, u, p, s, w, dinv, gg, rr);
}

/* part[k][block] = the block's share of a_k . b_k, k = 0, 1, 2 (HS_RED_BLOCKS x HS_RED_THREADS). */
static __global__ void k_dots3(int32_t n, const double *a0, const double *b0, const double *a1, const double *b1,
                        const double *a2, const double *b2, double *part)
{
    __shared__ double sh[HS_RED_THREADS];
    double s0 = 0.0, s1 = 0.0, s2 = 0.0;
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        s0 += a0[i] * b0[i];
        s1 += a1[i] * b1[i];
        s2 += a2[i] * b2[i];
    }
    s0 = hs_block_sum(s0, sh);
    s1 = hs_block_sum(s1, sh);
    s2 = hs_block_sum(s2, sh);
    if (threadIdx.x == 0) {
        part[blockIdx.x] = s0;
        part[HS_RED_BLOCKS + blockIdx.x] = s1;
        part[2 * HS_RED_BLOCKS + blockIdx.x] = s2;
    }
}

/* red[k] = sum of the HS_RED_BLOCKS partials of k (one block, fixed order). */
static __global__ void k_final3(const double *part, double *red)
{
    __shared__ double sh[HS_RED_THREADS];
    for (int k = 0; k < 3; ++k) {
        double v = hs_sum_partials(HS_RED_BLOCKS, part + k * HS_RED_BLOCKS, sh);
        if (threadIdx.x == 0) red[k] = v;
    }
}

/* The block maxima of dt |R_i| / m_i over the owned rows (the inner assembly's own norm also takes
 * the ghosts' rows, which lack other ranks' elements), into partv/parti as k_assemble_r does. */
static __global__ void k_res_owned(int32_t n, const double *__restrict__ rhs, const double *__restrict__ inv_mass, double dt,
                            double *partv, int *parti)
{
    __shared__ double shv[HS_RED_THREADS];
    __shared__ int shi[HS_RED_THREADS];
    double best = 0.0;
    int bi = INT_MAX;
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        double w = fabs(rhs[i]) * dt * inv_mass[i];
        if (w > best || (isnan(w) && !isnan(best))) {
            best = w;
            bi = i;
        }
    }
    hs_block_maxloc(best, bi, shv, shi);
    if (threadIdx.x == 0) {
        partv[blockIdx.x] = best;
        parti[blockIdx.x] = bi;
    }
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

/* ---- halo exchange ---------------------------------------------------------------------------- */

/* Post the exchange of x's ghosts (x [n_own + n_ghost] on the device, the inner stream's order). */
static hs_status halo_start(hs_dist_gpu *g, double *x)
{
    const hs_part_local *l = g->l;
    cudaStream_t s = g->c->s;
    if (l->n_nbrs == 0) return HS_OK;
    if (g->n_send > 0) {
        k_pack<<<nblocks(g->n_send, 256), 256, 0, s>>>(g->n_send, g->d_send_idx, x, g->d_sendbuf);
        HS_CUDA_LAUNCH_CHECK("k_pack");
    }
    g->t->exchanges++;
#if HS_HAS_NCCL
    if (g->nccl) {
        HS_CUDA_CALL(cudaEventRecord(g->ev_pack, s));
        HS_CUDA_CALL(cudaStreamWaitEvent(g->s2, g->ev_pack, 0));
        HS_NCCL_CALL(nc.GroupStart());
        for (int k = 0; k < l->n_nbrs; ++k) {
            const size_t ns = (size_t)(l->send_ptr[k + 1] - l->send_ptr[k]);
            const size_t nr = (size_t)(l->recv_ptr[k + 1] - l->recv_ptr[k]);
            if (ns) HS_NCCL_CALL(nc.Send(g->d_sendbuf + l->send_ptr[k], ns, ncclDouble, l->nbr[k], g->nc, g->s2));
            if (nr) HS_NCCL_CALL(nc.Recv(x + g->n_own + l->recv_ptr[k], nr, ncclDouble, l->nbr[k], g->nc, g->s2));
        }
        HS_NCCL_CALL(nc.GroupEnd());
        HS_CUDA_CALL(cudaEventRecord(g->ev_halo, g->s2));
        return HS_OK;
    }
#endif
    /* through the host: the ghosts copied up by the previous halo_finish were enqueued before this
     * synchronisation, so h_recv is free again */
    if (g->n_send > 0)
        HS_CUDA_CALL(cudaMemcpyAsync(g->h_send, g->d_sendbuf, sizeof(double) * g->n_send, cudaMemcpyDeviceToHost, s));
    HS_CUDA_CALL(cudaStreamSynchronize(s));
    int nq = 0;
    for (int k = 0; k < l->n_nbrs; ++k) {
        const int nr = l->recv_ptr[k + 1] - l->recv_ptr[k];
        if (nr)
            HS_MPI_CALL(MPI_Irecv(g->h_recv + l->recv_ptr[k], nr, MPI_DOUBLE, l->nbr[k], HS_GPU_HALO_TAG, g->comm,
                                  &g->req[nq++]));
    }
    for (int k = 0; k < l->n_nbrs; ++k) {
        const int ns = l->send_ptr[k + 1] - l->send_ptr[k];
        if (ns)
            HS_MPI_CALL(MPI_Isend(g->h_send + l->send_ptr[k], ns, MPI_DOUBLE, l->nbr[k], HS_GPU_HALO_TAG, g->comm,
                                  &g->req[nq++]));
    }
    for (int k = nq; k < 2 * l->n_nbrs; ++k) g->req[k] = MPI_REQUEST_NULL;
    return HS_OK;
}

/* Make the inner stream wait for the ghosts of the vector given to halo_start. */
static hs_status halo_finish(hs_dist_gpu *g, double *x)
{
    const hs_part_local *l = g->l;
    if (l->n_nbrs == 0) return HS_OK;
#if HS_HAS_NCCL
    if (g->nccl) {
        HS_CUDA_CALL(cudaStreamWaitEvent(g->c->s, g->ev_halo, 0));
        return HS_OK;
    }
#endif
    double t0 = hs_wtime();
    HS_MPI_CALL(MPI_Waitall(2 * l->n_nbrs, g->req, MPI_STATUSES_IGNORE));
    g->t->halo_wait += hs_wtime() - t0;
    if (g->n_ghost > 0)
        HS_CUDA_CALL(cudaMemcpyAsync(x + g->n_own, g->h_recv, sizeof(double) * g->n_ghost, cudaMemcpyHostToDevice,
                                     g->c->s));
    return HS_OK;
}

/* y = A x on the owned rows: interior rows while the halo of x travels, boundary rows after. */
static hs_status dist_spmv(hs_dist_gpu *g, double *x, double *y)
{
    cudaStream_t s = g->c->s;
    const double *val = g->c->kval; /* csr_scalar slots: the owned rows' nonzeros come first, in CSR order */
    HS_CALL(halo_start(g, x));
    if (g->n_int > 0) {
        k_csr_rows<<<nblocks(g->n_int, 256), 256, 0, s>>>(0, g->n_int, g->d_rp, g->d_col, val, x, y);
        HS_CUDA_LAUNCH_CHECK("k_csr_rows (interior)");
    }
    HS_CUDA_CALL(cudaEventRecord(g->ev_int, s));
    HS_CALL(halo_finish(g, x));
    if (g->n_own > g->n_int) {
        k_csr_rows<<<nblocks(g->n_own - g->n_int, 256), 256, 0, s>>>(g->n_int, g->n_own, g->d_rp, g->d_col, val, x, y);
        HS_CUDA_LAUNCH_CHECK("k_csr_rows (boundary)");
    }
    return HS_OK;
}

/* The three sums of part (k_dots3) over the ranks, into g->h_red; synchronises the stream. */
static hs_status allreduce3(hs_dist_gpu *g)
{
    cudaStream_t s = g->c->s;
    k_final3<<<1, HS_RED_THREADS, 0, s>>>(g->part, g->d_red);
    HS_CUDA_LAUNCH_CHECK("k_final3");
    double t0 = hs_wtime();
#if HS_HAS_NCCL
    if (g->nccl) {
        HS_NCCL_CALL(nc.AllReduce(g->d_red, g->d_red, 3, ncclDouble, ncclSum, g->nc, s));
        HS_CUDA_CALL(cudaMemcpyAsync(g->h_red, g->d_red, 3 * sizeof(double), cudaMemcpyDeviceToHost, s));
        HS_CUDA_CALL(cudaStreamSynchronize(s));
        if (g->l->n_nbrs > 0) { /* the halo's time not hidden behind the interior rows */
            float ms = 0.0f;
            if (cudaEventElapsedTime(&ms, g->ev_int, g->ev_halo) == cudaSuccess && ms > 0.0f)
                g->t->halo_wait += 1e-3 * ms;
            cudaGetLastError();
        }
    } else
#endif
    {
        HS_CUDA_CALL(cudaMemcpyAsync(g->h_red, g->d_red, 3 * sizeof(double), cudaMemcpyDeviceToHost, s));
        HS_CUDA_CALL(cudaStreamSynchronize(s));
        HS_MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, g->h_red, 3, MPI_DOUBLE, MPI_SUM, g->comm));
    }
    /* includes waiting for the kernels before it (the host blocks on the stream) */
    g->t->allreduce += hs_wtime() - t0;
    g->t->allreduces++;
    return HS_OK;
}

static hs_status dots3(hs_dist_gpu *g, const double *a0, const double *b0, const double *a1, const double *b1,
                       const double *a2, const double *b2)
{
    k_dots3<<<HS_RED_BLOCKS, HS_RED_THREADS, 0, g->c->s>>>(g->n_own, a0, b0, a1, b1, a2, b2, g->part);
    HS_CUDA_LAUNCH_CHECK("k_dots3");
    return allreduce3(g);
}

/* ---- the solver ------------------------------------------------------------------------------- */

extern "C" const char *hs_dist_gpu_transport(const hs_dist_gpu *g) { return g->transport; }

extern "C" hs_status hs_dist_gpu_residual(hs_dist_gpu *g, double *v, int32_t *i_local)
{
    cuda_impl *c = g->c;
    k_res_owned<<<HS_RED_BLOCKS, HS_RED_THREADS, 0, c->s>>>(g->n_own, c->rhs, c->inv_mass, c->dt, c->partA, c->parti);
    HS_CUDA_LAUNCH_CHECK("k_res_owned");
    HS_CALL(hs_cu_launch_final_maxloc(c, g->d_resv, g->d_resi));
    HS_CUDA_CALL(cudaMemcpyAsync(g->h_resv, g->d_resv, sizeof(double), cudaMemcpyDeviceToHost, c->s));
    HS_CUDA_CALL(cudaMemcpyAsync(g->h_resi, g->d_resi, sizeof(int), cudaMemcpyDeviceToHost, c->s));
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    *v = *g->h_resv <= INFINITY ? *g->h_resv : INFINITY; /* NaN: reported as non-finite */
    *i_local = *g->h_resi;
    return HS_OK;
}

/* The CG of hs_cg_chronopoulos over a distributed comm (solvers/cg.c) on the device; x = c->du. */
static hs_status dist_cg(hs_dist_gpu *g, const hs_cg_opts *opts, hs_cg_result *res)
{
    cuda_impl *c = g->c;
    cudaStream_t s = c->s;
    const int32_t n = g->n_own;
    const int nb = nblocks(n, 256);
    double *b = c->rhs, *x = c->du, *r = g->r, *u = g->u, *p = g->p, *w = g->w, *sv = g->sv;
    const double *dinv = c->dinv;
    res->outcome = HS_CG_CONVERGED;
    res->iters = 0;
    res->rel_res = 0.0;
    k_cg_init<<<nb, 256, 0, s>>>(n, b, dinv, x, r, u, p, sv);
    HS_CUDA_LAUNCH_CHECK("k_cg_init");
    double t0 = hs_wtime();
    HS_CALL(dist_spmv(g, u, w));
    HS_CALL(dots3(g, r, u, w, u, b, b));
    g->t->spmv += hs_wtime() - t0; /* spans the SpMV and its reduction: the host waits once per iteration */
    const double *red = g->h_red;
    const double bnorm = sqrt(red[2]);
    if (!std::isfinite(bnorm)) {
        res->outcome = HS_CG_NONFINITE;
        res->rel_res = bnorm;
        return HS_OK;
    }
    if (bnorm == 0.0) return HS_OK;
    double gamma = red[0], delta = red[1], gamma_old = 0.0, alpha = 0.0;
    const double target = opts->tol * bnorm;
    for (int it = 1; it <= opts->max_iter; ++it) {
        const double beta = it == 1 ? 0.0 : gamma / gamma_old;
        const double denom = it == 1 ? delta : delta - beta * gamma / alpha; /* = (p, A p) */
        res->iters = it;
        if (!std::isfinite(denom)) {
            res->outcome = HS_CG_NONFINITE;
            return HS_OK;
        }
        if (denom <= 0.0 || gamma <= 0.0) {
            res->outcome = HS_CG_BREAKDOWN;
            return HS_OK;
        }
        alpha = gamma / denom;
        k_cg_update<<<nb, 256, 0, s>>>(n, alpha, beta, x, r, u, p, sv, w, dinv);
        HS_CUDA_LAUNCH_CHECK("k_cg_update");
        t0 = hs_wtime();
        HS_CALL(dist_spmv(g, u, w));
        HS_CALL(dots3(g, r, u, w, u, r, r));
        g->t->spmv += hs_wtime() - t0;
        gamma_old = gamma;
        gamma = red[0];
        delta = red[1];
        res->rel_res = sqrt(red[2]) / bnorm;
        if (!std::isfinite(red[2])) {
            res->outcome = HS_CG_NONFINITE;
            return HS_OK;
        }
        if (sqrt(red[2]) <= target) return HS_OK;
    }
    res->outcome = HS_CG_MAX_ITER;
    return HS_OK;
}

extern "C" hs_status hs_dist_gpu_solve(hs_dist_gpu *g, const hs_cg_opts *opts, hs_cg_result *res, double *upd_local)
{
    cuda_impl *c = g->c;
    HS_CALL(dist_cg(g, opts, res));
    const int conv = res->outcome == HS_CG_CONVERGED;
    /* the serial backend's update kernel on the owned rows, the decision taken on the host */
    HS_CALL(hs_cu_launch_update_phi(c->s, g->n_own, NULL, conv, c->phi, c->du, g->part, NULL));
    HS_CUDA_CALL(cudaMemcpyAsync(g->h_part, g->part, sizeof(double) * HS_RED_BLOCKS, cudaMemcpyDeviceToHost, c->s));
    if (conv) { /* the ghosts of phi from their owners */
        HS_CALL(halo_start(g, c->phi));
        HS_CALL(halo_finish(g, c->phi));
    }
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    double m = 0.0;
    for (int k = 0; k < HS_RED_BLOCKS; ++k) /* the kernel's order: NaN largest */
        if ((std::isnan(g->h_part[k]) && !std::isnan(m)) || g->h_part[k] > m) m = g->h_part[k];
    *upd_local = m;
    return HS_OK;
}

/* ---- set-up ----------------------------------------------------------------------------------- */

#if HS_HAS_NCCL
/* The communicator: a unique id from rank 0, broadcast over MPI, then ncclCommInitRank on each. */
static hs_status nccl_init(hs_dist_gpu *g)
{
    HS_CHECK(nccl_load(), HS_ERR_DEVICE, "NCCL could not be loaded: %s", nc.why);
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    ncclResult_t r = g->rank == 0 ? nc.GetUniqueId(&id) : ncclSuccess;
    HS_MPI_CALL(MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, g->comm)); /* always: the others wait on it */
    HS_CHECK(r == ncclSuccess, HS_ERR_DEVICE, "ncclGetUniqueId failed: %s", nc.GetErrorString(r));
    HS_NCCL_CALL(nc.CommInitRank(&g->nc, g->size, id, g->rank));
    g->nccl = 1;
    int v = 0;
    nc.GetVersion(&v);
    snprintf(g->transport, sizeof g->transport, "NCCL %d.%d.%d", v / 10000, v / 100 % 100, v % 100);
    return HS_OK;
}
#endif

static hs_status create(hs_dist_gpu *g, hs_backend *cuda, const hs_part_local *l, MPI_Comm comm, int use_nccl)
{
    cuda_impl *c = (cuda_impl *)cuda->impl;
    HS_CHECK(strcmp(cuda->ops->name, "cuda") == 0 && c, HS_ERR_INTERNAL, "the inner backend is not cuda");
    HS_CHECK(!c->f32 && c->kval, HS_ERR_CONFIG,
             "solver.matrix_values: a distributed run with the cuda backend stores float64 values; use "
             "solver.matrix_values = \"float64\" (or \"auto\")");
    const hs_csr *vp = l->pattern;
    HS_CHECK(c->nn == l->n_owned + l->n_ghost && vp->n_rows == l->n_owned, HS_ERR_INTERNAL,
             "the inner cuda backend has %d nodes, the view %d owned + %d ghosts", c->nn, l->n_owned, l->n_ghost);
    for (int64_t k = 0; k < vp->nnz; ++k)
        HS_CHECK(c->lay->slot_of_nnz[k] == k, HS_ERR_INTERNAL,
                 "the inner cuda backend's SpMV slots are not the CSR nonzeros (solver.spmv = %s)",
                 cuda->prob->opt.exec.spmv->name);
    g->c = c;
    g->l = l;
    g->n_int = l->n_interior;
    g->n_own = l->n_owned;
    g->n_ghost = l->n_ghost;
    g->n_send = l->send_ptr[l->n_nbrs];
    HS_MPI_CALL(MPI_Comm_dup(comm, &g->comm));
    MPI_Comm_rank(g->comm, &g->rank);
    MPI_Comm_size(g->comm, &g->size);
    HS_CUDA_CALL(cudaSetDevice(hs_gpu_device()));
    HS_CUDA_CALL(cudaStreamCreateWithFlags(&g->s2, cudaStreamNonBlocking));
    HS_CUDA_CALL(cudaEventCreate(&g->ev_pack));
    HS_CUDA_CALL(cudaEventCreate(&g->ev_halo));
    HS_CUDA_CALL(cudaEventCreate(&g->ev_int));
    HS_CALL(upload(&g->d_rp, vp->row_ptr, (size_t)g->n_own + 1, "distributed CSR row pointers"));
    HS_CALL(upload(&g->d_col, vp->col, (size_t)vp->nnz, "distributed CSR columns"));
    HS_CALL(upload(&g->d_send_idx, l->send_idx, (size_t)g->n_send, "halo send lists"));
    HS_CALL(HS_CUDA_ALLOC(g->d_sendbuf, (size_t)g->n_send + 1, "halo send buffer"));
    const size_t nl = (size_t)g->n_own + g->n_ghost + 1;
    HS_CALL(HS_CUDA_ALLOC(g->r, nl, "distributed CG vectors"));
    HS_CALL(HS_CUDA_ALLOC(g->u, nl, "distributed CG vectors"));
    HS_CALL(HS_CUDA_ALLOC(g->p, nl, "distributed CG vectors"));
    HS_CALL(HS_CUDA_ALLOC(g->w, nl, "distributed CG vectors"));
    HS_CALL(HS_CUDA_ALLOC(g->sv, nl, "distributed CG vectors"));
    HS_CUDA_CALL(cudaMemset(g->u, 0, sizeof(double) * nl));
    HS_CALL(HS_CUDA_ALLOC(g->part, 3 * HS_RED_BLOCKS, "reduction partials"));
    HS_CALL(HS_CUDA_ALLOC(g->d_red, 3, "reduced sums"));
    HS_CALL(HS_CUDA_ALLOC(g->d_resv, 1, "residual norm"));
    HS_CALL(HS_CUDA_ALLOC(g->d_resi, 1, "residual node"));
    HS_CUDA_CALL(cudaMallocHost((void **)&g->h_red, 3 * sizeof(double)));
    HS_CUDA_CALL(cudaMallocHost((void **)&g->h_part, HS_RED_BLOCKS * sizeof(double)));
    HS_CUDA_CALL(cudaMallocHost((void **)&g->h_resv, sizeof(double)));
    HS_CUDA_CALL(cudaMallocHost((void **)&g->h_resi, sizeof(int)));
    HS_CALL(HS_ALLOC(g->req, 2 * (size_t)l->n_nbrs + 1, "halo requests"));
    if (use_nccl) {
#if HS_HAS_NCCL
        /* a communicator that cannot be made (no usable network interface for NCCL's bootstrap, ...)
         * leaves the run on the MPI transport, agreed by every rank, rather than ending it */
        hs_status st = nccl_init(g);
        int ok = st == HS_OK;
        HS_MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, g->comm));
        if (!ok) {
            if (g->rank == 0)
                hs_warn("NCCL could not be set up (%s): the halo exchange and the CG's all-reduce go through MPI via "
                        "host buffers", st != HS_OK ? hs_error_message() : "failed on another rank");
            hs_error_clear();
            if (g->nc) nc.CommDestroy(g->nc);
            g->nc = NULL;
            g->nccl = 0;
            use_nccl = 0;
        }
#else
        return HS_FAIL(HS_ERR_CONFIG, "this build has no NCCL (HS_USE_NCCL): the exchange goes through MPI");
#endif
    }
    if (!use_nccl) {
        HS_CUDA_CALL(cudaMallocHost((void **)&g->h_send, sizeof(double) * ((size_t)g->n_send + 1)));
        HS_CUDA_CALL(cudaMallocHost((void **)&g->h_recv, sizeof(double) * ((size_t)g->n_ghost + 1)));
        snprintf(g->transport, sizeof g->transport, "MPI via host buffers");
    }
    HS_CUDA_CALL(cudaDeviceSynchronize());
    return HS_OK;
}

extern "C" hs_status hs_dist_gpu_create(hs_backend *cuda, const hs_part_local *l, MPI_Comm comm, int use_nccl,
                                        hs_dist_times *t, hs_dist_gpu **out)
{
    *out = NULL;
    hs_dist_gpu *g = NULL;
    HS_CALL(HS_ALLOC(g, 1, "distributed device solver"));
    g->comm = MPI_COMM_NULL;
    g->t = t;
    hs_status st = create(g, cuda, l, comm, use_nccl);
    if (st != HS_OK) {
        hs_dist_gpu_destroy(&g);
        return st;
    }
    *out = g;
    return HS_OK;
}

extern "C" void hs_dist_gpu_destroy(hs_dist_gpu **pg)
{
    hs_dist_gpu *g = *pg;
    if (!g) return;
#if HS_HAS_NCCL
    if (g->nccl && g->nc) nc.CommDestroy(g->nc);
#endif
    if (g->s2) cudaStreamSynchronize(g->s2);
    void *dev[] = {g->d_rp, g->d_col, g->d_send_idx, g->d_sendbuf, g->r, g->u, g->p, g->w, g->sv, g->part, g->d_red,
                   g->d_resv, g->d_resi};
    for (size_t k = 0; k < sizeof dev / sizeof dev[0]; ++k)
        if (dev[k]) cudaFree(dev[k]);
    void *host[] = {g->h_send, g->h_recv, g->h_red, g->h_part, g->h_resv, g->h_resi};
    for (size_t k = 0; k < sizeof host / sizeof host[0]; ++k)
        if (host[k]) cudaFreeHost(host[k]);
    cudaEvent_t evs[] = {g->ev_pack, g->ev_halo, g->ev_int};
    for (size_t k = 0; k < 3; ++k)
        if (evs[k]) cudaEventDestroy(evs[k]);
    if (g->s2) cudaStreamDestroy(g->s2);
    free(g->req);
    if (g->comm != MPI_COMM_NULL) MPI_Comm_free(&g->comm);
    free(g);
    *pg = NULL;
}

/* ---- the cuda backend on one rank's partition (hs_backend_part_ops, hs_backend.h) ----------------- */

namespace {
struct cuda_part {
    hs_dist_gpu *g;
    hs_dist_times t;
    char what[160];
};
} // namespace

/* The rank's device, then the transport: NCCL when every rank can load it and every rank has its own
 * device. Every collective runs on every rank, with or without a device (the error after them). */
static hs_status cuda_part_prepare(const void *comm, char *desc, size_t desc_len, int *fast)
{
    const MPI_Comm c = *(const MPI_Comm *)comm;
    int rank = 0, shared = 0;
    HS_MPI_CALL(MPI_Comm_rank(c, &rank));
    *fast = 0;
    const hs_status st = hs_dist_gpu_select_device(c, &shared, desc, desc_len);
    char why[300] = "";
    int nccl = st == HS_OK && hs_dist_gpu_nccl_available(why, sizeof why);
    HS_MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, &nccl, 1, MPI_INT, MPI_MIN, c));
    HS_CALL(st);
    *fast = nccl && !shared;
    if (rank == 0 && HS_HAS_NCCL && !nccl)
        hs_warn("%s (on this or another rank): the halo exchange and the CG's all-reduce go through MPI and host "
                "buffers (correct, slower; docs/parallel.md)", why[0] ? why : "NCCL could not be loaded");
    else if (rank == 0 && HS_HAS_NCCL && shared)
        hs_warn("more ranks than GPUs on a node: ranks share a device, which one NCCL communicator does not "
                "allow; the halo exchange and the CG's all-reduce go through MPI and host buffers (correct, "
                "slower: give each rank its own GPU, docs/parallel.md)");
    return HS_OK;
}

/* The inner backend assembles on the device; the distributed CG replaces its solvers (no graph, no
 * persistent or s-step CG), and its slots are the CSR nonzeros in float64. It is Jacobi-preconditioned
 * Chronopoulos-Gear CG: another variant, preconditioner or Krylov method named in the config is refused
 * by its key (as the cpu backend's partition refuses what it does not run), never replaced silently. */
static hs_status cuda_part_local_opts(hs_problem_opts *po)
{
    HS_CHECK(po->cg.variant == HS_CG_CHRONOPOULOS, HS_ERR_CONFIG,
             "solver.cg: a distributed run with the cuda backend solves with Chronopoulos-Gear CG on the device; "
             "\"%s\" runs there on one rank only: use solver.cg = \"chronopoulos\" (or solver.backend = \"cpu\", "
             "whose ranks run every CG variant)", hs_cg_variant_name(po->cg.variant));
    HS_CALL(hs_backend_part_require_jacobi_cg(po));
    HS_CHECK(po->exec.spmv == &hs_spmv_ops_csr_scalar, HS_ERR_CONFIG,
             "solver.spmv: a distributed run with the cuda backend multiplies the owned rows in CSR order "
             "(csr_scalar); \"%s\" is not distributed there: use solver.spmv = \"auto\" or \"csr_scalar\"",
             po->exec.spmv ? po->exec.spmv->name : "(none)");
    HS_CHECK(po->exec.values != HS_VALUES_F32, HS_ERR_CONFIG,
             "solver.matrix_values: a distributed run with the cuda backend stores float64 values; use "
             "solver.matrix_values = \"float64\" or \"auto\"");
    po->exec.values = HS_VALUES_F64;
    po->graph = 0;
    po->exec.step = HS_STEP_KERNELS;
    po->exec.persistent_cg = 0;
    return HS_OK;
}

static void cuda_part_unbind(hs_backend_part **pp)
{
    if (!pp || !*pp) return;
    cuda_part *q = reinterpret_cast<cuda_part *>(*pp);
    hs_dist_gpu_destroy(&q->g);
    free(q);
    *pp = NULL;
}

static hs_status cuda_part_bind(hs_backend *b, const hs_part_local *l, const void *comm, int fast,
                                hs_backend_part **out)
{
    *out = NULL;
    cuda_part *q = (cuda_part *)calloc(1, sizeof *q);
    HS_CHECK(q != NULL, HS_ERR_MEMORY, "out of memory for the distributed device solver");
    const hs_status st = hs_dist_gpu_create(b, l, *(const MPI_Comm *)comm, fast, &q->t, &q->g);
    if (st != HS_OK) {
        hs_backend_part *p = reinterpret_cast<hs_backend_part *>(q);
        cuda_part_unbind(&p);
        return st;
    }
    snprintf(q->what, sizeof q->what, "distributed CG on the device, halo and all-reduce through %s",
             hs_dist_gpu_transport(q->g));
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
    *t = reinterpret_cast<const cuda_part *>(p)->t;
}

static const char *cuda_part_describe(const hs_backend_part *p)
{
    return reinterpret_cast<const cuda_part *>(p)->what;
}

extern "C" const hs_backend_part_ops hs_cuda_part_ops = {
    cuda_part_prepare, cuda_part_local_opts, cuda_part_bind, cuda_part_residual,
    cuda_part_solve,   cuda_part_times,      cuda_part_describe, cuda_part_unbind,
};
