/*
 * The cuda backend's device comm on a partition (hs_cuda_comm.h): halo exchange of a device vector
 * and sums of device doubles over the ranks, through NCCL enqueued on the streams (no host wait),
 * through CUDA IPC peer memory and device flags on one node (ipc_comm.cu, no host wait), or through
 * MPI and pinned host buffers. The transport is parallel.transport, "auto" resolved here once, alike
 * on every rank (resolve). The host comm (parallel/dist.c, hs_comm_mpi_create) is the reference: the
 * same send lists, the same ghost order (grouped by owner), MPI_SUM over the ranks.
 */
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cuda_backend.cuh"
#include "hs_cuda.h"
#include "hs_cuda_comm.h"
#include "hs_dist.h"
#include "hs_ipc_comm.cuh"
#include "hs_partition.h"
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

extern "C" int hs_cuda_nccl_available(char *why, size_t why_len)
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
#define HS_COMM_SUM_MAX 64 /* doubles one sum carries at most (the CG sends 3) */

struct hs_cuda_comm {
    const hs_part_local *l; /* borrowed */
    MPI_Comm comm;          /* own duplicate */
    int rank, size, nccl;
    hs_ipc *ipc;            /* the ipc transport, or NULL */
    int nccl_version;       /* ncclGetVersion's code (2.9.0: 20900), 0 without NCCL */
#if HS_HAS_NCCL
    ncclComm_t nc;
#endif
    cudaStream_t s2;        /* NCCL: the exchange's own stream */
    cudaEvent_t ev_pack, ev_halo;
    int32_t n_own, n_ghost, n_send;
    int32_t *d_send_idx;
    double *d_sendbuf;
    double *h_send, *h_recv, *h_sum; /* pinned (MPI transport) */
    MPI_Request *req;
    hs_dist_times t;
    char transport[64];
};

static __global__ void k_pack(int32_t n, const int32_t *__restrict__ idx, const double *__restrict__ x,
                              double *__restrict__ buf)
{
    for (int32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) buf[k] = x[idx[k]];
}

#if HS_HAS_NCCL
/* The communicator: a unique id from rank 0, broadcast over MPI, then ncclCommInitRank on each. */
static hs_status nccl_init(hs_cuda_comm *g)
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
    g->nccl_version = v;
    snprintf(g->transport, sizeof g->transport, "NCCL %d.%d.%d", v / 10000, v / 100 % 100, v % 100);
    return HS_OK;
}
#endif

/* What the choice of a transport needs, alike on every rank: every rank on one node, two ranks on one
 * device (PCI addresses compared within the node), NCCL loadable everywhere (else why not). */
struct comm_facts {
    int one_node, shared, nccl;
    char why_nccl[300];
};

static hs_status gather_facts(hs_cuda_comm *g, comm_facts *f)
{
    MPI_Comm node = MPI_COMM_NULL;
    int nsize = 1, nrank = 0;
    HS_MPI_CALL(MPI_Comm_split_type(g->comm, MPI_COMM_TYPE_SHARED, g->rank, MPI_INFO_NULL, &node));
    MPI_Comm_size(node, &nsize);
    MPI_Comm_rank(node, &nrank);
    char bus[32] = "none";
    if (cudaDeviceGetPCIBusId(bus, (int)sizeof bus, hs_gpu_device()) != cudaSuccess) {
        cudaGetLastError();
        snprintf(bus, sizeof bus, "?rank%d", g->rank); /* unknown: taken as its own */
    }
    char *all = (char *)calloc((size_t)nsize, sizeof bus);
    int sh = all == NULL; /* cannot tell: as if shared (the choice that works either way) */
    if (all && MPI_Allgather(bus, (int)sizeof bus, MPI_CHAR, all, (int)sizeof bus, MPI_CHAR, node) != MPI_SUCCESS)
        sh = 1;
    for (int q = 0; all && !sh && q < nsize; ++q)
        if (q != nrank && strncmp(all + sizeof bus * (size_t)q, bus, sizeof bus) == 0) sh = 1;
    free(all);
    MPI_Comm_free(&node);
    int v[3] = {nsize == g->size, !sh, hs_cuda_nccl_available(f->why_nccl, sizeof f->why_nccl)};
    HS_MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_INT, MPI_MIN, g->comm));
    f->one_node = v[0];
    f->shared = !v[1];
    f->nccl = v[2];
    if (!f->nccl && !f->why_nccl[0]) snprintf(f->why_nccl, sizeof f->why_nccl, "NCCL could not be loaded on another rank");
    return HS_OK;
}

static hs_status use_mpi(hs_cuda_comm *g)
{
    HS_CUDA_CALL(cudaMallocHost((void **)&g->h_send, sizeof(double) * ((size_t)g->n_send + 1)));
    HS_CUDA_CALL(cudaMallocHost((void **)&g->h_recv, sizeof(double) * ((size_t)g->n_ghost + 1)));
    snprintf(g->transport, sizeof g->transport, "MPI via host buffers");
    return HS_OK;
}

/* NCCL, or MPI when a communicator cannot be made on some rank (no usable network interface for NCCL's
 * bootstrap, ...): agreed by every rank, said by rank 0, rather than ending the run */
static hs_status use_nccl(hs_cuda_comm *g)
{
#if HS_HAS_NCCL
    hs_status st = nccl_init(g);
    int ok = st == HS_OK;
    HS_MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, g->comm));
    if (ok) return HS_OK;
    if (g->rank == 0)
        hs_warn("NCCL could not be set up (%s): the halo exchange and the CG's all-reduce go through MPI via "
                "host buffers", st != HS_OK ? hs_error_message() : "failed on another rank");
    hs_error_clear();
    if (g->nc) nc.CommDestroy(g->nc);
    g->nc = NULL;
    g->nccl = 0;
    return use_mpi(g);
#else
    return HS_FAIL(HS_ERR_INTERNAL, "NCCL chosen in a build without it");
#endif
}

/* parallel.transport (fem/hs_transport_list.h) resolved once, the same on every rank (every fact is
 * agreed first), rank 0 logging the choice and why; a transport named in the config that cannot run
 * here is a config error naming the key, never replaced silently. auto: ipc when every rank is on one
 * node with a device of its own and every rank maps every other's memory (tried: a refusal anywhere
 * falls back), else NCCL where it loads and every rank has its own device, else MPI (warned). Ranks
 * sharing a device take MPI under auto: without MPS two processes' kernels do not run at once, so a
 * device-side wait for the other process would last until the GPU's time slice passes to it. */
static hs_status resolve(hs_cuda_comm *g, int request)
{
    comm_facts f;
    memset(&f, 0, sizeof f);
    HS_CALL(gather_facts(g, &f));
    const char *key = "parallel.transport";
    const int nccl_ok = HS_HAS_NCCL && f.nccl && !f.shared;
    const char *why_no_nccl = !HS_HAS_NCCL ? "this build has no NCCL (HS_USE_NCCL)"
                              : f.shared   ? "ranks share a device, which one NCCL communicator does not allow"
                                           : f.why_nccl;
    char why[320] = "";
    switch (request) {
    case HS_TRANSPORT_MPI:
        return use_mpi(g);
    case HS_TRANSPORT_NCCL:
        HS_CHECK(nccl_ok, HS_ERR_CONFIG, "%s = \"nccl\": %s; use \"auto\", \"ipc\" or \"mpi\"", key, why_no_nccl);
        return use_nccl(g);
    case HS_TRANSPORT_IPC: {
        HS_CHECK(f.one_node, HS_ERR_CONFIG, "%s = \"ipc\": the ranks span several nodes, and CUDA IPC maps memory "
                 "within one; use \"auto\", \"nccl\" or \"mpi\"", key);
        if (hs_ipc_create(g->l, g->comm, &g->ipc) != HS_OK) {
            snprintf(why, sizeof why, "%s", hs_error_message());
            hs_error_clear();
            return HS_FAIL(HS_ERR_CONFIG, "%s = \"ipc\": %s; use \"auto\", \"nccl\" or \"mpi\"", key, why);
        }
        snprintf(g->transport, sizeof g->transport, "CUDA IPC peer memory");
        return HS_OK;
    }
    case HS_TRANSPORT_AUTO:
        break;
    default:
        return HS_FAIL(HS_ERR_INTERNAL, "transport %d", request);
    }
    if (f.one_node && !f.shared) {
        hs_status st = hs_ipc_create(g->l, g->comm, &g->ipc);
        if (st == HS_OK) {
            snprintf(g->transport, sizeof g->transport, "CUDA IPC peer memory");
            if (g->rank == 0)
                hs_log(1, "transport: auto -> ipc (the %d ranks are on one node, each with its own GPU, and each "
                       "maps the others' memory)\n", g->size);
            return HS_OK;
        }
        snprintf(why, sizeof why, "CUDA IPC could not be set up: %.250s", hs_error_message());
        hs_error_clear();
    } else {
        snprintf(why, sizeof why, "%s", !f.one_node ? "the ranks span several nodes (no CUDA IPC)"
                                                    : "ranks share a device (no CUDA IPC under auto)");
    }
    if (nccl_ok) {
        if (g->rank == 0) hs_log(1, "transport: auto -> nccl (%s)\n", why);
        return use_nccl(g);
    }
    if (g->rank == 0)
        hs_warn("%s, and %s: the halo exchange and the CG's all-reduce go through MPI and host buffers (correct, "
                "slower%s; docs/parallel.md)", why, why_no_nccl,
                f.shared ? ": give each rank its own GPU" : "");
    return use_mpi(g);
}

static hs_status create(hs_cuda_comm *g, const hs_part_local *l, MPI_Comm comm, int transport)
{
    g->l = l;
    g->n_own = l->n_owned;
    g->n_ghost = l->n_ghost;
    g->n_send = l->send_ptr[l->n_nbrs];
    HS_MPI_CALL(MPI_Comm_dup(comm, &g->comm));
    MPI_Comm_rank(g->comm, &g->rank);
    MPI_Comm_size(g->comm, &g->size);
    HS_CUDA_CALL(cudaSetDevice(hs_gpu_device()));
    HS_CUDA_CALL(cudaStreamCreateWithFlags(&g->s2, cudaStreamNonBlocking));
    HS_CUDA_CALL(cudaEventCreateWithFlags(&g->ev_pack, cudaEventDisableTiming));
    HS_CUDA_CALL(cudaEventCreateWithFlags(&g->ev_halo, cudaEventDisableTiming));
    HS_CALL(upload(&g->d_send_idx, l->send_idx, (size_t)g->n_send, "halo send lists"));
    HS_CALL(HS_CUDA_ALLOC(g->d_sendbuf, (size_t)g->n_send + 1, "halo send buffer"));
    HS_CALL(HS_ALLOC(g->req, 2 * (size_t)l->n_nbrs + 1, "halo requests"));
    HS_CUDA_CALL(cudaMallocHost((void **)&g->h_sum, HS_COMM_SUM_MAX * sizeof(double)));
    if (g->size == 1) {
        snprintf(g->transport, sizeof g->transport, "none (one rank)");
        return HS_OK;
    }
    return resolve(g, transport);
}

extern "C" hs_status hs_cuda_comm_create(const hs_part_local *l, const void *mpi_comm, int transport,
                                         hs_cuda_comm **out)
{
    *out = NULL;
    hs_cuda_comm *g = NULL;
    HS_CALL(HS_ALLOC(g, 1, "device comm"));
    g->comm = MPI_COMM_NULL;
    const hs_status st = create(g, l, *(const MPI_Comm *)mpi_comm, transport);
    if (st != HS_OK) {
        hs_cuda_comm_destroy(&g);
        return st;
    }
    *out = g;
    return HS_OK;
}

extern "C" void hs_cuda_comm_destroy(hs_cuda_comm **pg)
{
    hs_cuda_comm *g = pg ? *pg : NULL;
    if (!g) return;
    if (g->s2) cudaStreamSynchronize(g->s2);
    hs_ipc_destroy(&g->ipc);
#if HS_HAS_NCCL
    if (g->nccl && g->nc) nc.CommDestroy(g->nc);
#endif
    if (g->d_send_idx) cudaFree(g->d_send_idx);
    if (g->d_sendbuf) cudaFree(g->d_sendbuf);
    void *host[] = {g->h_send, g->h_recv, g->h_sum};
    for (size_t k = 0; k < sizeof host / sizeof host[0]; ++k)
        if (host[k]) cudaFreeHost(host[k]);
    if (g->ev_pack) cudaEventDestroy(g->ev_pack);
    if (g->ev_halo) cudaEventDestroy(g->ev_halo);
    if (g->s2) cudaStreamDestroy(g->s2);
    free(g->req);
    if (g->comm != MPI_COMM_NULL) MPI_Comm_free(&g->comm);
    free(g);
    *pg = NULL;
}

extern "C" int hs_cuda_comm_size(const hs_cuda_comm *c) { return c ? c->size : 1; }

extern "C" const char *hs_cuda_comm_transport(const hs_cuda_comm *c) { return c ? c->transport : "none (serial)"; }

extern "C" void hs_cuda_comm_times(const hs_cuda_comm *c, hs_dist_times *t)
{
    if (c) *t = c->t;
    else memset(t, 0, sizeof *t);
}

extern "C" void hs_cuda_comm_count(hs_cuda_comm *c, long exchanges, long allreduces)
{
    if (!c) return;
    c->t.exchanges += exchanges;
    c->t.allreduces += allreduces;
}

/* NCCL_VERSION_CODE of 2.9.0: from 2.9 the code is X*10000 + Y*100 + Z (before: X*1000 + Y*100 + Z,
 * below 10000), and ncclSend/Recv/AllReduce may be captured into a CUDA graph */
#define HS_NCCL_GRAPH_VERSION 20900

extern "C" int hs_cuda_comm_capturable(const hs_cuda_comm *c, char *why, size_t why_len)
{
    const char *no = NULL;
    char buf[128];
    if (!c || c->size == 1 || c->ipc) no = NULL; /* nothing to exchange or sum, or kernels that do it */
    else if (!c->nccl) no = "the MPI transport waits on the host";
    else if (c->nccl_version < HS_NCCL_GRAPH_VERSION) {
        snprintf(buf, sizeof buf, "%s loaded; NCCL calls are capturable from 2.9", c->transport);
        no = buf;
    }
    if (why && why_len) snprintf(why, why_len, "%s", no ? no : "");
    return no == NULL;
}

extern "C" hs_status hs_cuda_comm_sum_dev(hs_cuda_comm *c, double *d_v, int n, cudaStream_t s)
{
    if (!c || c->size == 1 || n <= 0) return HS_OK;
    c->t.allreduces++;
    if (c->ipc) return hs_ipc_sum(c->ipc, d_v, n, s);
#if HS_HAS_NCCL
    if (c->nccl) {
        HS_NCCL_CALL(nc.AllReduce(d_v, d_v, (size_t)n, ncclDouble, ncclSum, c->nc, s));
        return HS_OK;
    }
#endif
    HS_CHECK(n <= HS_COMM_SUM_MAX, HS_ERR_INTERNAL, "a device sum of %d values (at most %d)", n, HS_COMM_SUM_MAX);
    HS_CUDA_CALL(cudaMemcpyAsync(c->h_sum, d_v, sizeof(double) * n, cudaMemcpyDeviceToHost, s));
    HS_CUDA_CALL(cudaStreamSynchronize(s));
    const double t0 = hs_wtime();
    HS_MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, c->h_sum, n, MPI_DOUBLE, MPI_SUM, c->comm));
    c->t.allreduce += hs_wtime() - t0;
    HS_CUDA_CALL(cudaMemcpyAsync(d_v, c->h_sum, sizeof(double) * n, cudaMemcpyHostToDevice, s));
    return HS_OK;
}

extern "C" hs_status hs_cuda_comm_halo_start(hs_cuda_comm *g, double *x, cudaStream_t s)
{
    if (!g || g->l->n_nbrs == 0) return HS_OK;
    const hs_part_local *l = g->l;
    if (g->ipc) {
        g->t.exchanges++;
        return hs_ipc_halo_start(g->ipc, x, s);
    }
    if (g->n_send > 0) {
        k_pack<<<nblocks(g->n_send, 256), 256, 0, s>>>(g->n_send, g->d_send_idx, x, g->d_sendbuf);
        HS_CUDA_LAUNCH_CHECK("k_pack");
    }
    g->t.exchanges++;
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

extern "C" hs_status hs_cuda_comm_halo_finish(hs_cuda_comm *g, double *x, cudaStream_t s)
{
    if (!g || g->l->n_nbrs == 0) return HS_OK;
    if (g->ipc) return hs_ipc_halo_finish(g->ipc, x, s);
#if HS_HAS_NCCL
    if (g->nccl) {
        HS_CUDA_CALL(cudaStreamWaitEvent(s, g->ev_halo, 0));
        return HS_OK;
    }
#endif
    const double t0 = hs_wtime();
    HS_MPI_CALL(MPI_Waitall(2 * g->l->n_nbrs, g->req, MPI_STATUSES_IGNORE));
    g->t.halo_wait += hs_wtime() - t0;
    if (g->n_ghost > 0)
        HS_CUDA_CALL(cudaMemcpyAsync(x + g->n_own, g->h_recv, sizeof(double) * g->n_ghost, cudaMemcpyHostToDevice, s));
    return HS_OK;
}

extern "C" hs_ipc *hs_cuda_comm_ipc(const hs_cuda_comm *c) { return c && c->size > 1 ? c->ipc : NULL; }

extern "C" hs_status hs_cuda_comm_check(const hs_cuda_comm *c) { return c && c->ipc ? hs_ipc_check(c->ipc) : HS_OK; }

extern "C" void hs_cuda_comm_set_timeout(hs_cuda_comm *c, double seconds)
{
    if (c && c->ipc) hs_ipc_set_timeout(c->ipc, seconds);
}
