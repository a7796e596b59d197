// Device side of pcsr_hegao (host side: solvers/spmv_pcsr_hegao.c): the PCSR of He & Gao, seed
// 001 sec. 3, in its two kernels.
//
//   kernel 1 (Algorithm 2): v[k] = data[k] * x[indices[k]] for every nonzero k, one thread per
//     nonzero; data and indices are read and v written fully coalesced. The paper reads x through
//     a texture (fetch_double, eq. (4)) because Fermi had no other cache for random reads; on
//     sm_90 the read-only data cache serves the same purpose (__ldg on a const __restrict__
//     pointer), with no texture object to bind.
//   kernel 2 (Algorithm 3): block b owns rows r0 = b*TB .. r0+TB-1 (TB = threadsPerBlock). It loads
//     ptr[r0 .. r0+TB] into ptr_s, then walks the block's contiguous chunk v[ptr_s[0] .. ptr_s[TB])
//     in windows of nlen entries: the block loads a window into v_s (coalesced), synchronises,
//     and every thread whose row overlaps the window adds its part of the row to a running sum;
//     after the last window thread t writes y[r0+t]. A row longer than a window (or one that starts
//     in one window and ends in the next) is thus summed over several windows, in order; no row
//     is ever shared between blocks, because a block's chunk is exactly its rows' entries.
//
// The middle array v [nnz] is scratch owned by the device object, allocated at create. Both
// kernels run on the caller's stream, kernel 2 after kernel 1 by stream order; nothing
// synchronises the host and apply allocates nothing.
//
// Deviations from Algorithm 3 as printed, none of which changes what is computed:
//  - line (15) tests "index < nlen"; the window is filled from v[i ..], so the bound that keeps the
//    load inside the block's chunk is the chunk end maxlen = ptr_s[TB] (with "< nlen" a block
//    whose chunk starts past nlen would load nothing);
//  - lines (05)-(06) read ptr[gid] and ptr[gid + TB] unguarded; for the last block gid can pass
//    n, so the index is clamped to n (rows past n are empty and write nothing);
//  - window positions are 64-bit (i + nlen can pass 2^31 when nnz is close to it).
// sizeSharedMemory: the paper fixes it at compile time. Here it is TB * w doubles with
// w = min(max over blocks of temp, 16, what fits in 48 KB with ptr_s), computed at create from the
// pattern: temp = (entries of the block)/TB + 1 is line (08)'s own window request, so w covers
// every block in one window up to 16 entries per row (P1 tets: 5..27 per row, mean ~14), and the
// 48 KB cap keeps the launch inside the default dynamic shared-memory limit and lets 6 blocks of
// 256 threads share an SM. Blocks with longer rows take several windows.
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "hs_cuda_check.cuh"
#include "hs_gpu_spmv.cuh"
#include "hs_util.h"

namespace {

constexpr int kMaxPerThread = 16;         // cap on window entries per thread (see above)
constexpr size_t kSharedLimit = 48 * 1024; // dynamic shared memory without an opt-in attribute

struct hegao_dev {
    int32_t n_rows, nnz;
    int block;             // TB: threads per block in both kernels (spmv.block_size)
    int32_t win;           // sizeSharedMemory: doubles per window, a multiple of block
    int32_t *d_row_ptr;    // [n_rows+1], owned
    int32_t *d_col;        // [nnz], owned
    double *d_v;           // [nnz], the middle array, owned
    const double *d_vals;  // [nnz], borrowed: the caller refills it in place
};

// Algorithm 2. Grid-stride, so any grid size is correct. The product is stored, hence rounded:
// there is nothing for the compiler to contract it with.
__global__ void __launch_bounds__(1024)
hegao_products_kernel(int32_t nnz, const int32_t *__restrict__ col, const double *__restrict__ val,
                      const double *__restrict__ x, double *__restrict__ v)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += stride)
        v[k] = __ldg(val + k) * __ldg(x + __ldg(col + k));
}

// Algorithm 3. Dynamic shared memory: v_s [win] doubles, then ptr_s [TB+1] ints. The loop bounds
// first, last and nlen are the same for every thread of the block, so the __syncthreads inside
// the window loop are reached by all threads.
__global__ void __launch_bounds__(1024)
hegao_reduce_kernel(int32_t n_rows, int32_t win, const int32_t *__restrict__ ptr,
                    const double *__restrict__ v, double *__restrict__ y)
{
    extern __shared__ double hegao_smem[];
    double *v_s = hegao_smem;
    int32_t *ptr_s = reinterpret_cast<int32_t *>(hegao_smem + win);
    const int tb = blockDim.x, tid = threadIdx.x;
    const int64_t row0 = (int64_t)blockIdx.x * tb, gid = row0 + tid;

    ptr_s[tid] = __ldg(ptr + (gid < n_rows ? gid : n_rows));                          // (05)
    if (tid == 0) ptr_s[tb] = __ldg(ptr + (row0 + tb < n_rows ? row0 + tb : n_rows));  // (06)
    __syncthreads();                                                                    // (07)

    const int64_t first = ptr_s[0], last = ptr_s[tb];                                   // (10)
    const int64_t temp = (last - first) / tb + 1;                                       // (08)
    const int32_t nlen = (int32_t)(temp * tb < win ? temp * tb : win);                  // (09)
    const int64_t rs = ptr_s[tid], re = ptr_s[tid + 1];
    double sum = 0.0;
    for (int64_t i = first; i < last; i += nlen) {                                      // (11)
        // Positions inside the window are 32-bit: 0 <= j < nlen <= win.
        const int32_t avail = (int32_t)(last - i < nlen ? last - i : nlen);
        __syncthreads(); // (13): the previous window has been consumed
        for (int32_t j = tid; j < avail; j += tb) v_s[j] = v[i + j];                    // (14)-(19)
        __syncthreads();                                                                // (20)
        if (!(re <= i || rs > i + nlen - 1)) {                                          // (21)
            const int32_t a = (int32_t)(rs - i > 0 ? rs - i : 0);                       // (22)
            const int32_t b = (int32_t)(re - i < nlen ? re - i : nlen);                 // (23)
            for (int32_t j = a; j < b; ++j) sum += v_s[j];                              // (24)-(26)
        }
    }
    if (gid < n_rows) y[gid] = sum;                                                     // (29)
}

void hegao_destroy(void *impl)
{
    hegao_dev *h = static_cast<hegao_dev *>(impl);
    if (!h) return;
    cudaFree(h->d_row_ptr); // nothing to report from a destructor; NULL is a no-op
    cudaFree(h->d_col);
    cudaFree(h->d_v);
    free(h);
}

hs_status hegao_init(hegao_dev *h, const hs_spmv_layout *lay, const hs_csr *pat, const double *d_vals)
{
    const int tb = lay->params.block_size;
    HS_CHECK(tb >= 32 && tb <= 1024 && tb % 32 == 0, HS_ERR_CONFIG,
             "spmv.block_size = %d is not a multiple of 32 in [32, 1024] (pcsr_hegao)", tb);
    HS_CHECK(lay->n_slots == pat->nnz, HS_ERR_INTERNAL,
             "pcsr_hegao device SpMV: layout has %lld slots but the pattern %d nonzeros",
             (long long)lay->n_slots, (int)pat->nnz);
    for (int32_t k = 0; k < pat->nnz; ++k)
        HS_CHECK(lay->slot_of_nnz[k] == k, HS_ERR_INTERNAL,
                 "pcsr_hegao device SpMV: the slot map is not the CSR identity (nonzero %d at %lld)",
                 (int)k, (long long)lay->slot_of_nnz[k]);
    HS_CHECK(d_vals || pat->nnz == 0, HS_ERR_INTERNAL, "pcsr_hegao device SpMV: no device value array");

    // sizeSharedMemory = tb * w (see the file comment): w from line (08) over all blocks, capped.
    int64_t need = 1;
    for (int64_t r0 = 0; r0 < pat->n_rows; r0 += tb) {
        const int64_t r1 = r0 + tb < pat->n_rows ? r0 + tb : pat->n_rows;
        const int64_t temp = ((int64_t)pat->row_ptr[r1] - pat->row_ptr[r0]) / tb + 1;
        if (temp > need) need = temp;
    }
    int64_t cap = (int64_t)(kSharedLimit - sizeof(int32_t) * ((size_t)tb + 1)) / ((int64_t)sizeof(double) * tb);
    if (cap > kMaxPerThread) cap = kMaxPerThread;
    HS_CHECK(cap >= 1, HS_ERR_INTERNAL, "pcsr_hegao: no room for a shared-memory window at %d threads", tb);
    h->win = (int32_t)((need < cap ? need : cap) * tb);

    h->n_rows = pat->n_rows;
    h->nnz = pat->nnz;
    h->block = tb;
    h->d_vals = d_vals;
    HS_CALL(HS_CUDA_ALLOC(h->d_row_ptr, (size_t)pat->n_rows + 1, "PCSR (He & Gao) row pointers"));
    HS_CALL(HS_CUDA_ALLOC(h->d_col, pat->nnz, "PCSR (He & Gao) column indices"));
    HS_CALL(HS_CUDA_ALLOC(h->d_v, pat->nnz, "PCSR (He & Gao) middle array v"));
    HS_CUDA_CALL(cudaMemcpy(h->d_row_ptr, pat->row_ptr, sizeof(int32_t) * ((size_t)pat->n_rows + 1),
                            cudaMemcpyHostToDevice));
    HS_CUDA_CALL(cudaMemcpy(h->d_col, pat->col, sizeof(int32_t) * (size_t)pat->nnz,
                            cudaMemcpyHostToDevice));
    return HS_OK;
}

hs_status hegao_create(const hs_spmv_layout *lay, const hs_csr *pattern, const double *d_vals,
                       void **impl)
{
    *impl = NULL;
    hegao_dev *h = NULL;
    HS_CALL(HS_ALLOC(h, 1, "PCSR (He & Gao) device SpMV"));
    hs_status st = hegao_init(h, lay, pattern, d_vals);
    if (st != HS_OK) {
        hegao_destroy(h);
        return st;
    }
    *impl = h;
    return HS_OK;
}

hs_status hegao_apply(void *impl, const double *d_x, double *d_y, cudaStream_t stream)
{
    const hegao_dev *h = static_cast<const hegao_dev *>(impl);
    if (h->n_rows == 0) return HS_OK;
    if (h->nnz > 0) {
        const int64_t blocks = ((int64_t)h->nnz + h->block - 1) / h->block;
        hegao_products_kernel<<<(unsigned)(blocks > INT_MAX ? INT_MAX : blocks), h->block, 0, stream>>>(
            h->nnz, h->d_col, h->d_vals, d_x, h->d_v);
        HS_CUDA_LAUNCH_CHECK("hegao_products_kernel");
    }
    // One block per TB rows: at most 2^31 / 32 blocks, inside the grid limit.
    const unsigned blocks = (unsigned)(((int64_t)h->n_rows + h->block - 1) / h->block);
    const size_t shmem = sizeof(double) * (size_t)h->win + sizeof(int32_t) * ((size_t)h->block + 1);
    hegao_reduce_kernel<<<blocks, h->block, shmem, stream>>>(h->n_rows, h->win, h->d_row_ptr, h->d_v, d_y);
    HS_CUDA_LAUNCH_CHECK("hegao_reduce_kernel");
    return HS_OK;
}

} // namespace

// `extern` gives the const object external linkage (backends/cuda/spmv/registry.cu refers to it).
extern const hs_gpu_spmv_ops hs_gpu_spmv_ops_pcsr_hegao = {"pcsr_hegao", hegao_create, hegao_apply,
                                                           hegao_destroy, nullptr, nullptr, nullptr};
