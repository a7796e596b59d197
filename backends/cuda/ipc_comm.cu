/*
 * The intra-node transport of the device comm (hs_ipc_comm.cuh; parallel.transport = "ipc"): the halo
 * and the sums through CUDA IPC peer memory and device flags, the "one-shot" pattern of the custom
 * all-reduces of inference stacks (each rank stores its values into every peer's buffer, fences,
 * raises a flag; each waits for every flag, then reads its own buffer). The host comm
 * (parallel/dist.c) and the NCCL and MPI transports (cuda_comm.cu) are the references: the same send
 * lists, the ghosts grouped by owner, the sums over the ranks (here in rank order, bit for bit alike
 * on every rank).
 *
 * Memory of rank r, one cudaMalloc exported with cudaIpcGetMemHandle and mapped by every other rank
 * (ipc_layout):
 *   sflag [P]                         u64: sflag[q] = the number of the last sum rank q stored here
 *   slot  [2][P][HS_IPC_SUM_MAX]      double: slot[parity][q][j] = rank q's j-th partial of that sum
 *   hflag [n_nbrs]                    u64: hflag[k] = the number of the last halo nbr[k] stored here
 *   stage [2][n_ghost]                double: stage[parity][recv_ptr[k] + j] = nbr[k]'s j-th value for r
 * and, not shared, ipc_ctl: the numbers of the exchanges and sums this rank completed. A halo or sum
 * of number s (1, 2, ...) uses parity s & 1. The numbers live on the device and advance in the
 * kernels themselves, so a CUDA graph that holds these kernels is replayed correctly (no host counter
 * in a kernel argument).
 *
 * Memory order (PTX memory model): a writer stores its values (plain stores, remote over NVLink or
 * local), the block synchronises, one thread fences at system scope (__threadfence_system) and stores
 * the flag with release semantics at system scope; a reader's thread loads the flag with acquire
 * semantics at system scope until it reaches the number, the block synchronises, and the block reads
 * the values through L2 (__ldcg: the landing buffers are written by other devices, and a line of an
 * earlier exchange may sit in this SM's L1). Where several blocks write for one flag, each fences
 * before taking a ticket (atomicAdd) and the last one fences again before the release store (the
 * pattern of the CUDA sample threadFenceReduction, at system scope).
 *
 * Reuse of the buffers (write-after-read). Parity double-buffers them, and causality does the rest:
 *  - halo: rank r writes exchange e + 2 into q's stage[e & 1] only after r's halo_finish of e + 1
 *    (the comm runs one exchange at a time, start then finish, on one stream), which waited for q's
 *    flag of e + 1; q raised that flag at the end of its halo_start of e + 1, enqueued after its
 *    halo_finish of e, which had read stage[e & 1] into q's vector. Neighbours are symmetric (q holds a
 *    ghost of r exactly when r holds one of q: the pattern is symmetric), and every neighbour pair
 *    raises its flags at every exchange even with nothing to send, so the chain always exists.
 *  - sums: r writes sum e + 2 into q's slot[e & 1][r] only after its sum e + 1 saw every flag of
 *    e + 1, q's included, which q raised in its sum kernel of e + 1, enqueued after its sum kernel of
 *    e had read slot[e & 1].
 * No further synchronisation (no acknowledgement flags) is needed, and none of the CG's all-reduces
 * is relied upon.
 *
 * Every wait gives up after a timeout (20 s of the device's global timer): it records the peer and
 * the number in a device word (later waits then return at once) and in pinned host memory that
 * hs_ipc_check reads after the host's synchronisation, so a peer that died or hangs ends the run
 * with an error naming it instead of a hang.
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cuda_backend.cuh"
#include "hs_cuda.h"
#include "hs_dist.h"
#include "hs_ipc_comm.cuh"
#include "hs_partition.h"
#include "hs_util.h"

typedef unsigned long long u64;

#define HS_IPC_THREADS 256
#define HS_IPC_TAG 1405

typedef hs_ipc_ctl ipc_ctl;
typedef hs_ipc_err ipc_err;
typedef hs_ipc_nbr ipc_nbr;

struct ipc_layout {
    size_t sflag, slot, hflag, stage, bytes;
};

/* the byte offsets of a rank's shared allocation: a function of the rank count and its own view */
static ipc_layout layout_of(int P, int n_nbrs, int64_t n_ghost)
{
    auto up = [](size_t b) { return (b + 255) / 256 * 256; };
    ipc_layout y;
    y.sflag = 0;
    y.slot = up(sizeof(u64) * (size_t)P);
    y.hflag = y.slot + up(sizeof(double) * 2 * (size_t)P * HS_IPC_SUM_MAX);
    y.stage = y.hflag + up(sizeof(u64) * (size_t)(n_nbrs > 0 ? n_nbrs : 1));
    y.bytes = y.stage + up(sizeof(double) * 2 * (size_t)(n_ghost > 0 ? n_ghost : 1));
    return y;
}

struct hs_ipc {
    MPI_Comm comm; /* borrowed */
    int rank, size, n_nbrs;
    int32_t n_own, n_ghost;
    ipc_layout lay;
    char *mine;         /* this rank's shared allocation */
    char **peer;        /* [size] each rank's allocation as this process maps it (peer[rank] = mine) */
    char **d_base;      /* [size] the same, on the device */
    ipc_nbr *d_nbr;     /* [n_nbrs] */
    int32_t *d_send_idx, *d_nbr_rank;
    ipc_ctl *d_ctl;
    unsigned *d_ticket; /* [n_nbrs + 1]: k_ipc_halo_start's per neighbour, k_ipc_halo_finish's; 0 between kernels */
    ipc_err *h_err, *d_err; /* pinned and mapped: the host's and the device's view */
    int bx_start, bx_finish;
    u64 timeout_ns;
    /* the send lists by row (hs_ipc_dev): owned row i >= row_lo goes to d_row_dst[d_row_ptr[i - row_lo] ..) */
    int32_t row_lo;
    int32_t *d_row_ptr;
    int2 *d_row_dst;
    const hs_part_local *view; /* borrowed */
    ipc_nbr *h_nbr;     /* [n_nbrs] the neighbour table as uploaded to d_nbr */
    const int32_t *nbr; /* [n_nbrs] the neighbours' ranks (the view's) */
    double **vec_peer;  /* [n_nbrs] hs_ipc_bind_vector: each neighbour's vector as mapped here (NULL: none) */
    int direct;         /* 1 once bound */
};

/* ---- device side ---------------------------------------------------------------------------- */

/* Halo, sender side: grid (bx, n_nbrs); the blocks of neighbour k store x's values of its send list
 * into its landing buffer of this exchange's parity, the last of them raises its flag. Every
 * neighbour gets a flag, with or without values (the reuse argument above needs it). */
static __global__ void k_ipc_halo_start(const double *__restrict__ x, const int32_t *__restrict__ send_idx,
                                        const ipc_nbr *__restrict__ nbr, const ipc_ctl *__restrict__ ctl,
                                        unsigned *ticket)
{
    const ipc_nbr q = nbr[blockIdx.y];
    const u64 seq = ctl->halo_seq + 1; /* this exchange (halo_finish advances the count) */
    double *dst = q.dst + (seq & 1) * q.stride;
    for (int32_t j = blockIdx.x * blockDim.x + threadIdx.x; j < q.ns; j += gridDim.x * blockDim.x)
        dst[j] = x[send_idx[q.s0 + j]];
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence_system(); /* this block's stores before its ticket */
        if (atomicAdd(&ticket[blockIdx.y], 1u) == gridDim.x - 1) { /* the last block for this neighbour */
            ticket[blockIdx.y] = 0; /* the next exchange's (read again only by a later kernel) */
            hs_ipc_raise_flag(q.flag, seq);
        }
    }
}

/* Halo, receiver side: every block waits for the flags of all neighbours (thread k watches nbr[k]),
 * then copies its share of the landing buffer into the ghosts; the last block advances the count. */
static __global__ void k_ipc_halo_finish(double *__restrict__ ghosts, int32_t n_ghost, const double *stage,
                                         u64 *hflag, const int32_t *__restrict__ nbr_rank, int n_nbrs,
                                         ipc_ctl *ctl, unsigned *ticket, u64 timeout_ns, ipc_err *err)
{
    const u64 seq = ctl->halo_seq + 1;
    for (int k = threadIdx.x; k < n_nbrs; k += blockDim.x)
        hs_ipc_wait_flag(&hflag[k], seq, timeout_ns, ctl, err, 1, nbr_rank[k]);
    __syncthreads();
    const double *src = stage + (seq & 1) * (u64)n_ghost;
    for (int32_t j = blockIdx.x * blockDim.x + threadIdx.x; j < n_ghost; j += gridDim.x * blockDim.x)
        ghosts[j] = __ldcg(src + j);
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence(); /* this block read halo_seq before its ticket */
        if (atomicAdd(ticket, 1u) == gridDim.x - 1) {
            *ticket = 0;
            ctl->halo_seq = seq;
        }
    }
}

/* Sum: one block of HS_IPC_SUM_MAX threads (hs_ipc_dev_block_sum): thread j stores partial j into
 * slot [parity][rank][j] of every rank (itself included), thread q raises rank q's flag for this rank
 * and waits for this rank's flag of q; then thread j adds the P slots in rank order (the same
 * additions on every rank). */
static __global__ void k_ipc_sum(double *d_v, int n, hs_ipc_dev v) { hs_ipc_dev_block_sum(v, d_v, n); }

/* ---- host side ------------------------------------------------------------------------------ */

hs_status hs_ipc_halo_start(hs_ipc *p, const double *d_x, cudaStream_t s)
{
    if (p->n_nbrs == 0) return HS_OK;
    k_ipc_halo_start<<<dim3(p->bx_start, p->n_nbrs), HS_IPC_THREADS, 0, s>>>(d_x, p->d_send_idx, p->d_nbr, p->d_ctl,
                                                                               p->d_ticket);
    HS_CUDA_LAUNCH_CHECK("k_ipc_halo_start");
    return HS_OK;
}

hs_status hs_ipc_halo_finish(hs_ipc *p, double *d_x, cudaStream_t s)
{
    if (p->n_nbrs == 0) return HS_OK;
    k_ipc_halo_finish<<<p->bx_finish, HS_IPC_THREADS, 0, s>>>(
        d_x + p->n_own, p->n_ghost, reinterpret_cast<const double *>(p->mine + p->lay.stage),
        reinterpret_cast<u64 *>(p->mine + p->lay.hflag), p->d_nbr_rank, p->n_nbrs, p->d_ctl, p->d_ticket + p->n_nbrs,
        p->timeout_ns, p->d_err);
    HS_CUDA_LAUNCH_CHECK("k_ipc_halo_finish");
    return HS_OK;
}

hs_status hs_ipc_sum(hs_ipc *p, double *d_v, int n, cudaStream_t s)
{
    HS_CHECK(n >= 1 && n <= HS_IPC_SUM_MAX, HS_ERR_INTERNAL, "an ipc sum of %d values (1 to %d)", n, HS_IPC_SUM_MAX);
    hs_ipc_dev v;
    hs_ipc_dev_of(p, &v);
    k_ipc_sum<<<1, HS_IPC_SUM_MAX, 0, s>>>(d_v, n, v);
    HS_CUDA_LAUNCH_CHECK("k_ipc_sum");
    return HS_OK;
}

hs_status hs_ipc_check(const hs_ipc *p)
{
    const volatile ipc_err *e = p ? p->h_err : NULL;
    if (!e || !e->kind) return HS_OK;
    return HS_FAIL(HS_ERR_DEVICE,
                   "rank %d: the ipc transport (parallel.transport) waited %.3g s on the device for rank %d's %s "
                   "(number %llu) and gave up: that rank stopped or hangs (its own error, if any, is reported too)",
                   p->rank, 1e-9 * (double)p->timeout_ns, e->peer, e->kind == 1 ? "halo values" : "partial sums",
                   (unsigned long long)e->seq);
}

void hs_ipc_set_timeout(hs_ipc *p, double seconds) { p->timeout_ns = (u64)(seconds * 1e9); }

int hs_ipc_n_nbrs(const hs_ipc *p) { return p->n_nbrs; }

void hs_ipc_dev_of(const hs_ipc *p, hs_ipc_dev *v)
{
    v->rank = p->rank;
    v->size = p->size;
    v->n_nbrs = p->n_nbrs;
    v->row_lo = p->row_lo;
    v->row_ptr = p->d_row_ptr;
    v->row_dst = p->d_row_dst;
    v->nbr = p->d_nbr;
    v->base = p->d_base;
    v->off_slot = p->lay.slot;
    v->off_sflag = p->lay.sflag;
    v->ctl = p->d_ctl;
    v->err = p->d_err;
    v->timeout_ns = p->timeout_ns;
    v->direct = p->direct;
    v->hflag = reinterpret_cast<u64 *>(p->mine + p->lay.hflag);
    v->nbr_rank = p->d_nbr_rank;
}

static hs_status agree(MPI_Comm comm, int rank, int size, hs_status st, const char *what);

/* what a neighbour needs to store into this rank's bound vector */
struct vec_msg {
    cudaIpcMemHandle_t h;
    int64_t off; /* in doubles: where the neighbour's values start (n_owned + its recv_ptr) */
    int32_t ok;  /* 0: this rank could not export (the error is its own) */
};

hs_status hs_ipc_bind_vector(hs_ipc *p, double *d_x)
{
    const int nn = p->n_nbrs;
    hs_status st = HS_OK;
    vec_msg *out = (vec_msg *)calloc((size_t)nn + 1, sizeof(vec_msg));
    vec_msg *in = (vec_msg *)calloc((size_t)nn + 1, sizeof(vec_msg));
    MPI_Request *rq = (MPI_Request *)calloc(2 * (size_t)nn + 1, sizeof(MPI_Request));
    if (!p->vec_peer) p->vec_peer = (double **)calloc((size_t)nn + 1, sizeof(double *));
    if (!out || !in || !rq || !p->vec_peer) st = HS_FAIL(HS_ERR_MEMORY, "out of memory (ipc vector binding)");
    if (st == HS_OK && p->direct) st = HS_FAIL(HS_ERR_INTERNAL, "ipc: a vector is bound already");
    cudaIpcMemHandle_t h;
    memset(&h, 0, sizeof h);
    if (st == HS_OK && nn > 0) {
        const cudaError_t e = cudaIpcGetMemHandle(&h, d_x);
        if (e != cudaSuccess) {
            cudaGetLastError();
            st = HS_FAIL(HS_ERR_DEVICE, "rank %d cannot export its vector for the ipc transport (cudaIpcGetMemHandle: "
                         "%s)", p->rank, cudaGetErrorString(e));
        }
    }
    const hs_part_local *l = p->view;
    for (int k = 0; out && k < nn; ++k) {
        out[k].h = h;
        out[k].off = (int64_t)l->n_owned + l->recv_ptr[k];
        out[k].ok = st == HS_OK;
    }
    /* every rank the same MPI calls, whatever failed locally */
    int nq = 0;
    for (int k = 0; rq && in && out && k < nn; ++k) {
        MPI_Irecv(&in[k], (int)sizeof(vec_msg), MPI_BYTE, p->nbr[k], HS_IPC_TAG + 1, p->comm, &rq[nq++]);
        MPI_Isend(&out[k], (int)sizeof(vec_msg), MPI_BYTE, p->nbr[k], HS_IPC_TAG + 1, p->comm, &rq[nq++]);
    }
    if (nq && MPI_Waitall(nq, rq, MPI_STATUSES_IGNORE) != MPI_SUCCESS && st == HS_OK)
        st = HS_FAIL(HS_ERR_INTERNAL, "the exchange of the ipc vector handles failed");
    for (int k = 0; st == HS_OK && k < nn; ++k) {
        if (!in[k].ok) {
            st = HS_FAIL(HS_ERR_DEVICE, "rank %d could not export its vector (its message is in its log)", p->nbr[k]);
            break;
        }
        const cudaError_t e = cudaIpcOpenMemHandle((void **)&p->vec_peer[k], in[k].h, cudaIpcMemLazyEnablePeerAccess);
        if (e != cudaSuccess) {
            p->vec_peer[k] = NULL;
            cudaGetLastError();
            st = HS_FAIL(HS_ERR_DEVICE, "rank %d cannot map rank %d's vector (cudaIpcOpenMemHandle: %s)", p->rank,
                         p->nbr[k], cudaGetErrorString(e));
            break;
        }
        p->h_nbr[k].vec_dst = p->vec_peer[k] + in[k].off;
    }
    if (st == HS_OK && nn > 0)
        st = cudaMemcpy(p->d_nbr, p->h_nbr, sizeof(ipc_nbr) * (size_t)nn, cudaMemcpyHostToDevice) == cudaSuccess
                 ? HS_OK
                 : HS_FAIL(HS_ERR_DEVICE, "uploading the ipc neighbour table failed");
    /* landed before the kernels on the non-blocking stream read it (a pageable copy returns once staged) */
    if (st == HS_OK && nn > 0 && cudaDeviceSynchronize() != cudaSuccess)
        st = HS_FAIL(HS_ERR_DEVICE, "uploading the ipc neighbour table failed (synchronising)");
    free(out);
    free(in);
    free(rq);
    st = agree(p->comm, p->rank, p->size, st, "binding a vector to the CUDA IPC transport");
    if (st == HS_OK) p->direct = 1;
    return st;
}

/* what every rank's local steps gave: HS_OK on all, or this rank's error, or one naming the first
 * rank that failed (every rank calls it at the same points) */
static hs_status agree(MPI_Comm comm, int rank, int size, hs_status st, const char *what)
{
    int first = st == HS_OK ? size : rank;
    if (MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) first = st == HS_OK ? -1 : rank;
    if (first == size) return HS_OK;
    if (st != HS_OK) return st;
    if (first < 0) return HS_FAIL(HS_ERR_INTERNAL, "MPI_Allreduce failed while setting up %s", what);
    return HS_FAIL(HS_ERR_DEVICE, "%s failed on rank %d (its message is in its log)", what, first);
}

/* the send lists by row, for kernels that store a row's value where its row is computed
 * (hs_ipc_dev_store_row): row i (row_lo <= i < n_owned) goes to {k, j} for every send_idx[send_ptr[k]
 * + j] == i, in the order of k then j */
static hs_status setup_rows(hs_ipc *p, const hs_part_local *l)
{
    const int32_t n_send = l->send_ptr[l->n_nbrs], no = l->n_owned;
    int32_t lo = no;
    for (int32_t e = 0; e < n_send; ++e) {
        HS_CHECK(l->send_idx[e] >= 0 && l->send_idx[e] < no, HS_ERR_INTERNAL, "send list entry %d: row %d of %d owned",
                 e, l->send_idx[e], no);
        lo = std::min(lo, l->send_idx[e]);
    }
    p->row_lo = lo;
    const size_t nr = (size_t)(no - lo);
    int32_t *ptr = (int32_t *)calloc(nr + 2, sizeof(int32_t));
    int2 *dst = (int2 *)calloc((size_t)n_send + 1, sizeof(int2));
    hs_status st = ptr && dst ? HS_OK : HS_FAIL(HS_ERR_MEMORY, "out of memory (ipc send lists by row)");
    if (st == HS_OK) {
        for (int32_t e = 0; e < n_send; ++e) ptr[l->send_idx[e] - lo + 1]++;
        for (size_t r = 0; r < nr; ++r) ptr[r + 1] += ptr[r];
        int32_t *fill = (int32_t *)malloc(sizeof(int32_t) * (nr + 1));
        if (!fill) st = HS_FAIL(HS_ERR_MEMORY, "out of memory (ipc send lists by row)");
        else {
            memcpy(fill, ptr, sizeof(int32_t) * (nr + 1));
            for (int k = 0; k < l->n_nbrs; ++k)
                for (int32_t e = l->send_ptr[k]; e < l->send_ptr[k + 1]; ++e)
                    dst[fill[l->send_idx[e] - lo]++] = make_int2(k, e - l->send_ptr[k]);
            free(fill);
        }
    }
    if (st == HS_OK) st = upload(&p->d_row_ptr, ptr, nr + 1, "ipc send lists by row");
    if (st == HS_OK) st = upload(&p->d_row_dst, dst, (size_t)n_send, "ipc send lists by row");
    free(ptr);
    free(dst);
    return st;
}

/* this rank's allocations (local: may fail) */
static hs_status setup_local(hs_ipc *p, const hs_part_local *l, cudaIpcMemHandle_t *h)
{
    HS_CHECK(p->size <= HS_IPC_MAX_RANKS, HS_ERR_CONFIG,
             "parallel.transport = \"ipc\": %d ranks, at most %d (one node)", p->size, HS_IPC_MAX_RANKS);
    p->lay = layout_of(p->size, p->n_nbrs, p->n_ghost);
    HS_CUDA_CALL(cudaMalloc((void **)&p->mine, p->lay.bytes)); /* cudaMalloc: what cudaIpcGetMemHandle exports */
    HS_CUDA_CALL(cudaMemset(p->mine, 0, p->lay.bytes));        /* every flag at 0: no exchange, no sum yet */
    HS_CUDA_CALL(cudaIpcGetMemHandle(h, p->mine));
    const int32_t n_send = l->send_ptr[l->n_nbrs];
    HS_CALL(upload(&p->d_send_idx, l->send_idx, (size_t)n_send, "ipc halo send lists"));
    HS_CALL(upload(&p->d_nbr_rank, l->nbr, (size_t)l->n_nbrs, "ipc neighbour ranks"));
    HS_CALL(HS_CUDA_ALLOC(p->d_ctl, 1, "ipc counters"));
    HS_CUDA_CALL(cudaMemset(p->d_ctl, 0, sizeof(ipc_ctl)));
    HS_CALL(HS_CUDA_ALLOC(p->d_ticket, (size_t)l->n_nbrs + 1, "ipc tickets"));
    HS_CUDA_CALL(cudaMemset(p->d_ticket, 0, sizeof(unsigned) * ((size_t)l->n_nbrs + 1)));
    HS_CUDA_CALL(cudaHostAlloc((void **)&p->h_err, sizeof(ipc_err), cudaHostAllocMapped));
    memset(p->h_err, 0, sizeof(ipc_err));
    HS_CUDA_CALL(cudaHostGetDevicePointer((void **)&p->d_err, p->h_err, 0));
    HS_CUDA_CALL(cudaDeviceSynchronize()); /* zeroed before any peer may write (after the exchange below) */
    HS_CALL(setup_rows(p, l));
    int max_ns = 1;
    for (int k = 0; k < l->n_nbrs; ++k) max_ns = std::max(max_ns, l->send_ptr[k + 1] - l->send_ptr[k]);
    p->bx_start = std::min(nblocks(max_ns, HS_IPC_THREADS), 64);
    p->bx_finish = std::min(nblocks(p->n_ghost > 0 ? p->n_ghost : 1, HS_IPC_THREADS), 128);
    return HS_OK;
}

/* the peers' allocations mapped, the neighbour table built (local: may fail). @p theirs [n_nbrs][4]:
 * what neighbour k said of its memory for this rank: hflag offset, stage offset, n_ghost, count. */
static hs_status setup_peers(hs_ipc *p, const hs_part_local *l, const cudaIpcMemHandle_t *handles, const int64_t *theirs)
{
    HS_CALL(HS_ALLOC(p->peer, (size_t)p->size, "ipc peer table"));
    for (int q = 0; q < p->size; ++q) {
        if (q == p->rank) {
            p->peer[q] = p->mine;
            continue;
        }
        /* a peer on another device: peer access enabled on first use where cudaDeviceCanAccessPeer allows
         * it; on this device (ranks sharing a GPU): the same memory through the other process's handle */
        const cudaError_t e = cudaIpcOpenMemHandle((void **)&p->peer[q], handles[q], cudaIpcMemLazyEnablePeerAccess);
        if (e != cudaSuccess) {
            p->peer[q] = NULL;
            cudaGetLastError();
            return HS_FAIL(HS_ERR_DEVICE, "rank %d cannot map rank %d's device memory (cudaIpcOpenMemHandle: %s)",
                           p->rank, q, cudaGetErrorString(e));
        }
    }
    HS_CALL(upload(&p->d_base, p->peer, (size_t)p->size, "ipc peer addresses"));
    ipc_nbr *t = NULL;
    HS_CALL(HS_ALLOC(t, (size_t)l->n_nbrs + 1, "ipc neighbour table"));
    hs_status st = HS_OK;
    for (int k = 0; k < l->n_nbrs && st == HS_OK; ++k) {
        const int64_t *w = theirs + 4 * k;
        const int32_t ns = l->send_ptr[k + 1] - l->send_ptr[k];
        if (w[3] != ns) {
            st = HS_FAIL(HS_ERR_INTERNAL, "rank %d sends %d halo values to rank %d, which expects %lld", p->rank, ns,
                         l->nbr[k], (long long)w[3]);
            break;
        }
        char *b = p->peer[l->nbr[k]];
        t[k].dst = reinterpret_cast<double *>(b + w[1]);
        t[k].flag = reinterpret_cast<u64 *>(b + w[0]);
        t[k].stride = w[2];
        t[k].s0 = l->send_ptr[k];
        t[k].ns = ns;
    }
    if (st == HS_OK) st = upload(&p->d_nbr, t, (size_t)l->n_nbrs, "ipc neighbour table");
    p->h_nbr = t; /* kept: hs_ipc_bind_vector completes it */
    return st;
}

static hs_status create(hs_ipc *p, const hs_part_local *l, MPI_Comm comm)
{
    p->comm = comm;
    MPI_Comm_rank(comm, &p->rank);
    MPI_Comm_size(comm, &p->size);
    p->n_nbrs = l->n_nbrs;
    p->view = l;
    p->nbr = l->nbr;
    p->n_own = l->n_owned;
    p->n_ghost = l->n_ghost;
    p->timeout_ns = 20000000000ull;
    HS_CUDA_CALL(cudaSetDevice(hs_gpu_device()));
    cudaIpcMemHandle_t h;
    memset(&h, 0, sizeof h);
    hs_status st = setup_local(p, l, &h);
    /* every rank's handle (every rank makes the same MPI calls, whatever failed locally) */
    cudaIpcMemHandle_t *all = (cudaIpcMemHandle_t *)calloc((size_t)p->size, sizeof h);
    int64_t *mine = (int64_t *)calloc(4 * (size_t)l->n_nbrs + 1, sizeof(int64_t));
    int64_t *theirs = (int64_t *)calloc(4 * (size_t)l->n_nbrs + 1, sizeof(int64_t));
    MPI_Request *rq = (MPI_Request *)calloc(2 * (size_t)l->n_nbrs + 1, sizeof(MPI_Request));
    if (st == HS_OK && (!all || !mine || !theirs || !rq)) st = HS_FAIL(HS_ERR_MEMORY, "out of memory (ipc set-up)");
    if (all && MPI_Allgather(&h, (int)sizeof h, MPI_BYTE, all, (int)sizeof h, MPI_BYTE, comm) != MPI_SUCCESS &&
        st == HS_OK)
        st = HS_FAIL(HS_ERR_INTERNAL, "MPI_Allgather of the IPC handles failed");
    st = agree(comm, p->rank, p->size, st, "the CUDA IPC transport's allocation");
    if (st != HS_OK) goto done;
    /* each neighbour learns where its values for this rank go: this rank's hflag word for it, its
     * ghosts' place in stage, the stride of the parities, and how many it expects */
    for (int k = 0; k < l->n_nbrs; ++k) {
        int64_t *w = mine + 4 * k;
        w[0] = (int64_t)(p->lay.hflag + sizeof(u64) * (size_t)k);
        w[1] = (int64_t)(p->lay.stage + sizeof(double) * (size_t)l->recv_ptr[k]);
        w[2] = l->n_ghost;
        w[3] = l->recv_ptr[k + 1] - l->recv_ptr[k];
    }
    for (int k = 0; k < l->n_nbrs; ++k) {
        MPI_Irecv(theirs + 4 * k, 4, MPI_INT64_T, l->nbr[k], HS_IPC_TAG, comm, &rq[2 * k]);
        MPI_Isend(mine + 4 * k, 4, MPI_INT64_T, l->nbr[k], HS_IPC_TAG, comm, &rq[2 * k + 1]);
    }
    if (MPI_Waitall(2 * l->n_nbrs, rq, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
        st = HS_FAIL(HS_ERR_INTERNAL, "the exchange of the IPC buffer offsets failed");
    if (st == HS_OK) st = setup_peers(p, l, all, theirs);
    st = agree(comm, p->rank, p->size, st, "mapping the peers' memory (CUDA IPC)");
done:
    free(all);
    free(mine);
    free(theirs);
    free(rq);
    return st;
}

hs_status hs_ipc_create(const hs_part_local *l, MPI_Comm comm, hs_ipc **out)
{
    *out = NULL;
    hs_ipc *p = NULL;
    HS_CALL(HS_ALLOC(p, 1, "ipc transport"));
    const hs_status st = create(p, l, comm);
    if (st != HS_OK) {
        hs_ipc_destroy(&p);
        return st;
    }
    *out = p;
    return HS_OK;
}

void hs_ipc_destroy(hs_ipc **pp)
{
    hs_ipc *p = pp ? *pp : NULL;
    if (!p) return;
    for (int q = 0; p->peer && q < p->size; ++q)
        if (q != p->rank && p->peer[q]) cudaIpcCloseMemHandle(p->peer[q]);
    free(p->peer);
    for (int k = 0; p->vec_peer && k < p->n_nbrs; ++k)
        if (p->vec_peer[k]) cudaIpcCloseMemHandle(p->vec_peer[k]);
    free(p->vec_peer);
    free(p->h_nbr);
    void *dev[] = {p->mine, p->d_base, p->d_nbr, p->d_send_idx, p->d_nbr_rank, p->d_ctl, p->d_ticket, p->d_row_ptr,
                   p->d_row_dst};
    for (size_t k = 0; k < sizeof dev / sizeof dev[0]; ++k)
        if (dev[k]) cudaFree(dev[k]);
    if (p->h_err) cudaFreeHost(p->h_err);
    free(p);
    *pp = NULL;
}
