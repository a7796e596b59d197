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

/** Max of (v, i) pairs (larger v wins, then smaller i; NaN counts as largest); valid in thread 0. */
__device__ inline void hs_block_maxloc(double &v, int &i, double *shv, int *shi)
{
    shv[threadIdx.x] = v;
    shi[threadIdx.x] = i;
    __syncthreads();
    for (int s = HS_RED_THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            double a = shv[threadIdx.x], b = shv[threadIdx.x + s];
            int ia = shi[threadIdx.x], ib = shi[threadIdx.x + s];
            bool take_b = (isnan(b) && !isnan(a)) || b > a || (b == a && ib < ia) ||
                          (isnan(a) && isnan(b) && ib < ia);
            if (take_b) {
                shv[threadIdx.x] = b;
                shi[threadIdx.x] = ib;
            }
        }
        __syncthreads();
    }
    v = shv[0];
    i = shi[0];
    __syncthreads();
}

#endif
