/**
 * @file hs_ipc_flags.cuh
 * @brief Private to backends/cuda/ (CUDA-only, no MPI): the device flags of the ipc transport
 * (backends/cuda/ipc_comm.cu, hs_ipc_comm.cuh: the protocol, release/acquire at system scope, the
 * timeout), apart so that a kernel outside the transport can wait on them: the SpMV of the distributed
 * CG with the halo overlapped (hs_ipc_gate: backends/cuda/dist_pcg.cu, spmv/ellwarp.cu).
 */
#ifndef HS_IPC_FLAGS_CUH
#define HS_IPC_FLAGS_CUH

#include <cstdint>

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

/**
 * A wait before the rows that read ghosts (the distributed CG's halo overlapped with its product: a
 * product kernel offered one by apply_dot_rows takes it). The rows from @p row_lo on (the owned rows with
 * a ghost column, and the ghosts' own rows behind the owned ones) read x's ghosts, which the neighbours
 * store into x while the product runs; a warp about to multiply such a row first waits, every lane
 * itself, until every flag[k] >= *want (acquired at system scope: hs_ipc_wait_flag, its timeout and
 * error record), and then reads x through L2 (ld.global.cg), never the read-only path: an interior row's
 * load may have brought a line holding stale ghosts into the SM's non-coherent cache. Rows below row_lo
 * read no ghost: their warps never wait. Every pointer device memory of this rank.
 */
struct hs_ipc_gate {
    int32_t row_lo;          /**< rows >= row_lo read ghosts */
    int n;                   /**< flags (neighbours); 0: nothing to wait for */
    hs_ipc_u64 *flag;        /**< [n] this rank's flag words, one per neighbour */
    const hs_ipc_u64 *want;  /**< the exchange's number (written by an earlier kernel: hs_ipc_ctl.halo_seq) */
    const int32_t *peer;     /**< [n] the neighbours' ranks (the timeout's error) */
    hs_ipc_u64 timeout_ns;
    hs_ipc_ctl *ctl;
    hs_ipc_err *err;
};

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

/** The wait of @p g (every lane of a warp calls it, each acquiring the flags itself). */
static __device__ __forceinline__ void hs_ipc_gate_wait(const hs_ipc_gate &g)
{
    const hs_ipc_u64 want = *(volatile const hs_ipc_u64 *)g.want;
    for (int k = 0; k < g.n; ++k) hs_ipc_wait_flag(g.flag + k, want, g.timeout_ns, g.ctl, g.err, 1, g.peer[k]);
}
#endif

#endif
