/**
 * @file hs_gpu_reduce.cuh
 * @brief Deterministic block reductions (CUDA-only header). A reduction over n entries runs on a
 * fixed grid of HS_RED_BLOCKS blocks (grid-stride), each block reduces in a fixed shared-memory
 * tree and writes one partial; a single block then reduces the partials in a fixed tree. The order
 * of additions depends only on n, never on timing: the same inputs give the same bits every run.
 */
#ifndef HS_GPU_REDUCE_CUH
#define HS_GPU_REDUCE_CUH

#define HS_RED_THREADS 256
#define HS_RED_BLOCKS 256 /* one final block of 256 threads reduces the partials */

/** Sum of v over the block (blockDim.x == HS_RED_THREADS); result valid in thread 0. */
__device__ inline double hs_block_sum(double v, double *sh)
{
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int s = HS_RED_THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    double r = sh[0];
    __syncthreads();
    return r;
}

/** (v, i) = the larger of (v, i) and (b, ib): larger value wins, then the smaller index; NaN counts as
 *  largest. A total order, so any order of combination gives the same pair. */
__device__ __forceinline__ void hs_maxloc_take(double &v, int &i, double b, int ib)
{
    const bool take_b = (isnan(b) && !isnan(v)) || b > v || (b == v && ib < i) || (isnan(v) && isnan(b) && ib < i);
    if (take_b) {
        v = b;
        i = ib;
    }
}

/** Max of (v, i) pairs (hs_maxloc_take's order); valid in thread 0. */
__device__ inline void hs_block_maxloc(double &v, int &i, double *shv, int *shi)
{
    shv[threadIdx.x] = v;
    shi[threadIdx.x] = i;
    __syncthreads();
    for (int s = HS_RED_THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            double a = shv[threadIdx.x];
            int ia = shi[threadIdx.x];
            hs_maxloc_take(a, ia, shv[threadIdx.x + s], shi[threadIdx.x + s]);
            shv[threadIdx.x] = a;
            shi[threadIdx.x] = ia;
        }
        __syncthreads();
    }
    v = shv[0];
    i = shi[0];
    __syncthreads();
}

/** Fixed-order sum of n partials written by other blocks (read through L2 with __ldcg: they may be
 *  newer than this SM's L1): thread t adds t, t+256, ..., then the block tree. Every thread gets it. */
__device__ inline double hs_sum_partials(int n, const double *part, double *sh)
{
    double s = 0.0;
    for (int p = threadIdx.x; p < n; p += HS_RED_THREADS) s += __ldcg(part + p);
    return hs_block_sum(s, sh);
}

/**
 * Sum of v over a block of any size that is a multiple of 32 (<= 1024): a xor-shuffle tree inside
 * each warp (fixed order), then warp 0 adds the warp sums in a fixed tree. Deterministic for a given
 * blockDim. @p sh needs 32 doubles. Result valid in every thread.
 */
__device__ inline double hs_block_sum_any(double v, double *sh)
{
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, nw = blockDim.x >> 5;
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    if (warp == 0) {
        double w = lane < nw ? sh[lane] : 0.0;
        for (int off = 16; off > 0; off >>= 1) w += __shfl_xor_sync(0xffffffffu, w, off);
        if (lane == 0) sh[0] = w;
    }
    __syncthreads();
    double r = sh[0];
    __syncthreads();
    return r;
}

/**
 * End of a kernel that forms a dot product alongside other work (the fused SpMV of Chronopoulos-Gear
 * CG): the block's share @p v becomes part[blockIdx.x]; the last block to finish (a ticket counter,
 * reset to 0 for the next launch) sums all gridDim.x partials in a fixed order into *result, so the
 * value is deterministic and no further kernel is needed. Every thread of the block must call it.
 * @p sh needs 32 doubles.
 */
__device__ inline void hs_dot_finish(double v, double *part, unsigned *ticket, double *result, double *sh)
{
    __shared__ int last;
    v = hs_block_sum_any(v, sh);
    if (threadIdx.x == 0) {
        part[blockIdx.x] = v;
        __threadfence(); // the partial is visible before the ticket says so
        last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    double s = 0.0;
    for (unsigned p = threadIdx.x; p < gridDim.x; p += blockDim.x) s += __ldcg(part + p);
    s = hs_block_sum_any(s, sh);
    if (threadIdx.x == 0) {
        *result = s;
        *ticket = 0;
    }
}

#endif
