/**
 * @file hs_ipc_comm.cuh
 * @brief Private to backends/cuda/ (CUDA and MPI): the intra-node transport of the device comm
 * (hs_cuda_comm.h, parallel.transport = "ipc"; backends/cuda/ipc_comm.cu). Every rank exports one
 * device allocation (its ghosts' landing buffers, the sums' slots, the flag words) as a CUDA IPC
 * handle; every rank maps every other's. The halo and the sums are then kernels on the caller's
 * stream that store straight into the peers' memory (NVLink, PCIe, or the same device) and signal
 * device flags that the receivers' kernels wait on: no NCCL kernel, no host round trip, capturable
 * into a CUDA graph (the sequence numbers live on the device and advance in the kernels).
 */
#ifndef HS_IPC_COMM_CUH
#define HS_IPC_COMM_CUH

#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cuda_runtime.h>

#include "hs_status.h"

typedef struct hs_part_local hs_part_local; /* parallel/hs_partition.h */
struct hs_ipc;

/** Doubles one sum carries at most (the CG sends 3), and ranks at most (one thread each in the sum's
 *  block; one node holds far fewer GPUs). */
#define HS_IPC_SUM_MAX 64
#define HS_IPC_MAX_RANKS 64

/**
 * @brief Map the ranks' memory for the halo of view @p l (borrowed, outlives it) and the sums over
 * @p comm, on the current device. Collective over @p comm; every rank returns the same verdict (a
 * failure on one rank, e.g. cudaIpcOpenMemHandle refused, fails every rank, naming the first failing
 * one). The ranks must be on one node (the caller checks).
 */
hs_status hs_ipc_create(const hs_part_local *l, MPI_Comm comm, hs_ipc **out);
/** @brief Unmap the peers and free; accepts NULL, sets *p = NULL. The streams that used it must be idle. */
void hs_ipc_destroy(hs_ipc **p);

/** @brief Store d_x's boundary values (owned part, as @p s has it) into each neighbour's landing
 *  buffer and signal it: one kernel on @p s, no wait. */
hs_status hs_ipc_halo_start(hs_ipc *p, const double *d_x, cudaStream_t s);
/** @brief Wait (on the device, after what @p s has enqueued) for every neighbour's values of this
 *  exchange and copy them into d_x's ghosts [n_owned, n_owned + n_ghost): one kernel on @p s. */
hs_status hs_ipc_halo_finish(hs_ipc *p, double *d_x, cudaStream_t s);
/** @brief d_v[0..n) summed over the ranks in place (n <= HS_IPC_SUM_MAX), in rank order on every rank:
 *  every rank gets the same bits, run after run. One kernel on @p s. */
hs_status hs_ipc_sum(hs_ipc *p, double *d_v, int n, cudaStream_t s);
/** @brief After the streams' work was waited for: HS_OK, or the error of a wait that gave up (a
 *  peer silent for the timeout), naming the peer rank. */
hs_status hs_ipc_check(const hs_ipc *p);
/** @brief The longest a device wait spins before it gives up (default 20 s; tests shorten it). */
void hs_ipc_set_timeout(hs_ipc *p, double seconds);

/* ---- the transport's device side, for kernels that fuse it with their own work -----------------
 * (backends/cuda/dist_pcg.cu: the distributed CG iteration whose vector kernel stores the halo and
 * whose dot kernel sums over the ranks). The protocol is ipc_comm.cu's (its comment: parity buffers,
 * numbers on the device, release/acquire at system scope, the timeout); these are its pieces. */

typedef unsigned long long hs_ipc_u64;

/** This rank's numbers of the exchanges and sums completed (device memory, not shared). */
struct hs_ipc_ctl {
    hs_ipc_u64 halo_seq; /**< advanced by the last block of a halo's finish */
    hs_ipc_u64 sum_seq;  /**< advanced by a sum */
    int err;             /**< 0, or the kind of the first wait that gave up (1 halo, 2 sum): later waits return */
};

/** What hs_ipc_check reports (pinned, mapped host memory; written by the device only on a timeout). */
struct hs_ipc_err {
    int kind, peer;
    hs_ipc_u64 seq;
};

/** Where this rank's values for neighbour k go, in that neighbour's memory as this process maps it. */
struct hs_ipc_nbr {
    double *dst;        /**< stage[0] + the neighbour's recv_ptr for this rank; parity 1 at dst + stride */
    hs_ipc_u64 *flag;   /**< the neighbour's hflag word for this rank */
    int64_t stride;     /**< the neighbour's n_ghost */
    int32_t s0, ns;     /**< this rank's send list for it: send_idx[s0, s0 + ns) */
    double *vec_dst;    /**< hs_ipc_bind_vector: where this rank's values go in the neighbour's bound vector
                             (its ghosts from this rank); NULL before */
};

/** The transport as a kernel sees it (by value; every pointer device memory or mapped). */
struct hs_ipc_dev {
    int rank, size, n_nbrs;
    int32_t row_lo;          /**< the owned rows from row_lo on may be sent (row_lo = n_owned: none) */
    const int32_t *row_ptr;  /**< [n_owned - row_lo + 1] row i's destinations: row_dst[row_ptr[i - row_lo] ..) */
    const int2 *row_dst;     /**< {neighbour k, place j in its landing buffer for this rank} */
    const hs_ipc_nbr *nbr;   /**< [n_nbrs] */
    char *const *base;       /**< [size] every rank's shared allocation */
    size_t off_slot, off_sflag;
    hs_ipc_ctl *ctl;
    hs_ipc_err *err;
    hs_ipc_u64 timeout_ns;
    int direct;                /**< 1: rows go straight into the neighbours' bound vectors (hs_ipc_bind_vector) */
    hs_ipc_u64 *hflag;         /**< [n_nbrs] this rank's flags, one per neighbour */
    const int32_t *nbr_rank;   /**< [n_nbrs] the neighbours' ranks (for the timeout's error) */
};

/**
 * @brief Map, for the kernels that fuse the transport (hs_ipc_dev_store_row), every neighbour's vector
 * @p d_x [n_owned + n_ghost] (the neighbour's own argument: the same vector's role on every rank, e.g.
 * the CG's u), so that this rank's rows land straight in the neighbour's ghosts of it instead of its
 * landing buffer: the exchange then needs no copy (hs_ipc_dev_halo_last waits for the flags in the
 * kernel that stored). @p d_x must be a cudaMalloc allocation's base that outlives @p p. Collective;
 * every rank returns the same verdict. The comm's own exchanges (hs_ipc_halo_start/finish, any
 * vector) keep the landing buffers.
 */
hs_status hs_ipc_bind_vector(hs_ipc *p, double *d_x);
/** @brief The device view of @p p (valid while p lives). */
void hs_ipc_dev_of(const hs_ipc *p, hs_ipc_dev *v);
/** @brief Neighbours of this rank (0: a halo start or finish does nothing). */
int hs_ipc_n_nbrs(const hs_ipc *p);

#ifdef __CUDACC__
#include <cuda/atomic>

static __device__ __forceinline__ hs_ipc_u64 hs_ipc_now_ns()
{
    hs_ipc_u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* raise a peer's (or this rank's) flag to seq: everything this thread's block stored before its last
 * __syncthreads, fenced, is visible to whoever acquires the flag at seq */
static __device__ __forceinline__ void hs_ipc_raise_flag(hs_ipc_u64 *flag, hs_ipc_u64 seq)
{
    __threadfence_system();
    cuda::atomic_ref<hs_ipc_u64, cuda::thread_scope_system>(*flag).store(seq, cuda::memory_order_release);
}

/* 1 once *flag >= want (acquired at system scope); 0 when an earlier wait gave up or this one spun for
 * timeout_ns, which it records (kind, peer, want) for hs_ipc_check */
static __device__ int hs_ipc_wait_flag(hs_ipc_u64 *flag, hs_ipc_u64 want, hs_ipc_u64 timeout_ns, hs_ipc_ctl *ctl,
                                       hs_ipc_err *err, int kind, int peer)
{
    cuda::atomic_ref<hs_ipc_u64, cuda::thread_scope_system> f(*flag);
    if (f.load(cuda::memory_order_acquire) >= want) return 1;
    const hs_ipc_u64 t0 = hs_ipc_now_ns();
    for (;;) {
        if (*(volatile int *)&ctl->err) return 0;
        if (f.load(cuda::memory_order_acquire) >= want) return 1;
        if (hs_ipc_now_ns() - t0 > timeout_ns) {
            if (atomicCAS(&ctl->err, 0, kind) == 0) {
                err->peer = peer;
                err->seq = want;
                __threadfence_system();
                *(volatile int *)&err->kind = kind;
                __threadfence_system();
            }
            return 0;
        }
    }
}

/** The number of the halo exchange a kernel starts now (the last finish advanced the count). */
static __device__ __forceinline__ hs_ipc_u64 hs_ipc_dev_halo_next(const hs_ipc_dev &v)
{
    return v.ctl->halo_seq + 1;
}

/** Row i's value @p ui into every neighbour's landing buffer that expects it, exchange @p seq (what
 *  hs_ipc_halo_start stores for it). Any thread, any row; the flags come after every row's stores
 *  (hs_ipc_dev_halo_raise). */
static __device__ __forceinline__ void hs_ipc_dev_store_row(const hs_ipc_dev &v, int32_t i, double ui, hs_ipc_u64 seq)
{
    if (i < v.row_lo) return;
    const int32_t e1 = v.row_ptr[i - v.row_lo + 1];
    for (int32_t e = v.row_ptr[i - v.row_lo]; e < e1; ++e) {
        const int2 d = v.row_dst[e];
        const hs_ipc_nbr &q = v.nbr[d.x];
        (v.direct ? q.vec_dst : q.dst + (seq & 1) * q.stride)[d.y] = ui;
    }
}

/** hs_ipc_dev_halo_last's first half: every neighbour's flag of exchange @p seq raised (the same
 *  block, the same conditions). */
static __device__ __forceinline__ void hs_ipc_dev_halo_raise(const hs_ipc_dev &v, hs_ipc_u64 seq)
{
    for (int k = threadIdx.x; k < v.n_nbrs; k += blockDim.x) hs_ipc_raise_flag(v.nbr[k].flag, seq);
}
/** hs_ipc_dev_halo_last's second half, after hs_ipc_dev_halo_raise in the same block (work in between
 *  overlaps the neighbours' flags in flight): with direct stores, the wait and the count. */
static __device__ __forceinline__ void hs_ipc_dev_halo_wait(const hs_ipc_dev &v, hs_ipc_u64 seq)
{
    if (!v.direct) return;
    for (int k = threadIdx.x; k < v.n_nbrs; k += blockDim.x)
        hs_ipc_wait_flag(&v.hflag[k], seq, v.timeout_ns, v.ctl, v.err, 1, v.nbr_rank[k]);
    __syncthreads();
    if (threadIdx.x == 0) v.ctl->halo_seq = seq; /* every block of the kernel read it before its ticket */
}
/** The end of exchange @p seq in the one block that runs after every block's stores were fenced at
 *  system scope (a ticket; every thread of it calls this): every neighbour's flag raised; then, with
 *  direct stores (the values went into the neighbours' vector itself), the wait for every neighbour's
 *  flag of seq and the exchange counted done (hs_ipc_halo_finish's work, without its copy): the
 *  kernels after this one read the ghosts. Without direct stores hs_ipc_halo_finish follows. */
static __device__ __forceinline__ void hs_ipc_dev_halo_last(const hs_ipc_dev &v, hs_ipc_u64 seq)
{
    hs_ipc_dev_halo_raise(v, seq);
    hs_ipc_dev_halo_wait(v, seq);
}

/** d_v[0..n) summed over the ranks in place, in rank order (hs_ipc_sum's kernel as a block's code):
 *  every thread of one block (blockDim.x >= max(n, size)) calls it; d_v is read after a
 *  __syncthreads and written before the return (the block synchronised after). */
static __device__ __forceinline__ void hs_ipc_dev_block_sum(const hs_ipc_dev &v, double *d_v, int n)
{
    const int t = threadIdx.x, P = v.size, rank = v.rank;
    const hs_ipc_u64 seq = v.ctl->sum_seq + 1;
    const size_t par = seq & 1;
    __syncthreads();
    if (t < n) {
        const double x = d_v[t];
        for (int q = 0; q < P; ++q)
            reinterpret_cast<double *>(v.base[q] + v.off_slot)[(par * P + rank) * HS_IPC_SUM_MAX + t] = x;
    }
    __syncthreads();
    if (t < P) {
        hs_ipc_raise_flag(reinterpret_cast<hs_ipc_u64 *>(v.base[t] + v.off_sflag) + rank, seq);
        hs_ipc_wait_flag(reinterpret_cast<hs_ipc_u64 *>(v.base[rank] + v.off_sflag) + t, seq, v.timeout_ns, v.ctl,
                         v.err, 2, t);
    }
    __syncthreads();
    if (t < n) {
        const double *slot = reinterpret_cast<const double *>(v.base[rank] + v.off_slot) + par * P * HS_IPC_SUM_MAX;
        double s = __ldcg(slot + t);
        for (int q = 1; q < P; ++q) s += __ldcg(slot + (size_t)q * HS_IPC_SUM_MAX + t);
        d_v[t] = s;
    }
    if (t == 0) v.ctl->sum_seq = seq; /* every thread read it before the first barrier after the read */
    __syncthreads();
}
#endif

#endif
