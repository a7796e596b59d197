// Device side of aligned_coo (host side and layout: solvers/spmv_aligned_coo.c and
// solvers/spmv_aligned_coo_layout.h): ALIGNED_COO of Shah & Patel, seed 003 sec. IV.
//
// Up to three kernels per apply, in stream order, none of them using atomics:
//   acoo_seg_kernel (Algorithm 2, SpMV_ALIGNED_COO_seg): thread t walks entry t of every segment
//     (stride seg_size, so a warp's loads of I, J and V are contiguous). Its first min_rl entries
//     are its first row (Algorithm 2's first loop, which needs no row index); after that a change
//     of row index stores the finished row. Rows are never split between threads (the builder
//     packs whole rows), so each segment-part row is stored exactly once, by one thread: y needs
//     no clearing and no read-modify-write, where Algorithm 2 does y[row] += ... in global memory.
//     Padding entries carry the thread's own row, so they only add 0 * x to that row's register.
//   acoo_flat_kernel (ALIGNED_COO_flat / COO_flat, sec. IV-D): one warp per 32-entry chunk of the
//     flat part, coalesced. The products go through a segmented Hillis-Steele scan (shuffle-up by
//     1, 2, 4, 8, 16; a lane adds only from lanes of its own piece, i.e. same chunk and row, whose
//     first lanes are the set bits of chunk_head), and the last lane of each piece writes the
//     piece's sum to the scratch array partial[] (allocated at create). In hybrid mode every
//     chunk is one row and this is a plain warp reduction (the model's log2(WARP_SIZE) step).
//   acoo_combine_kernel: for each row with flat entries (and each empty row),
//     y[r] = (the segment kernel's y[r] if the row has segment entries, else 0.0)
//            + partial[first piece] + ... + partial[last piece], in order.
// Where the paper (and Bell & Garland's COO_flat) add warp results for one row from several
// warps with atomics or carries, the scratch array and the ordered combine give the same bits on
// every run, which heartsim requires (tests/backends/cuda/test_gpu_spmv.cu compares two applies bit for bit).
//
// Rounding: the segment kernel accumulates with fma(v, x, acc), exactly what the CPU reference
// does with C's fma(); the flat kernel forms the products with __dmul_rn (never contracted into the
// scan's additions), as the reference does, so the device reproduces the reference bit for bit.
// x is read through the read-only cache (__ldg); the paper's substitution of J by x values
// (sec. IV-C) is not used because x changes at every CG iteration.
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "hs_cuda_check.cuh"
#include "hs_gpu_spmv.cuh"
#include "hs_util.h"
#include "spmv_aligned_coo_layout.h"

namespace {

constexpr int kWarp = 32;
constexpr unsigned kFullMask = 0xffffffffu;

struct acoo_dev {
    int block;                   // threads per block, all kernels (spmv.block_size)
    int32_t n_seg, seg_size, min_rl;
    int32_t *d_seg_row;          // [n_seg * seg_size], owned
    int32_t *d_seg_col;          // [n_seg * seg_size], owned
    int32_t n_flat, n_chunks, n_pieces;
    int64_t flat_offset;         // first flat slot in the value array (= n_seg * seg_size)
    int32_t *d_flat_col;         // [n_flat], owned
    uint32_t *d_chunk_head;      // [n_chunks], owned
    int32_t *d_chunk_piece;      // [n_chunks], owned
    double *d_partial;           // [n_pieces], scratch, owned
    int32_t n_aux;
    int32_t *d_aux_row;          // [n_aux], owned
    uint8_t *d_aux_has_seg;      // [n_aux], owned
    int32_t *d_aux_piece_ptr;    // [n_aux+1], owned
    const double *d_vals;        // [n_slots], borrowed: the caller refills it in place
};

// Algorithm 2, grid-stride over threads t of the segments.
__global__ void __launch_bounds__(1024)
acoo_seg_kernel(int32_t seg_size, int32_t n_seg, int32_t min_rl, const int32_t *__restrict__ row,
                const int32_t *__restrict__ col, const double *__restrict__ val,
                const double *__restrict__ x, double *__restrict__ y)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < seg_size; t += stride) {
        int32_t cur = __ldg(row + t);
        double acc = 0.0;
        int64_t q = t;
        int32_t s = 0;
#pragma unroll 4
        for (; s < min_rl; ++s, q += seg_size) acc = fma(__ldg(val + q), __ldg(x + __ldg(col + q)), acc);
#pragma unroll 4
        for (; s < n_seg; ++s, q += seg_size) {
            const int32_t r = __ldg(row + q);
            const double p_v = __ldg(val + q), p_x = __ldg(x + __ldg(col + q));
            if (r != cur) {
                y[cur] = acc;
                cur = r;
                acc = 0.0;
            }
            acc = fma(p_v, p_x, acc);
        }
        y[cur] = acc;
    }
}

// Flat part: warp w takes chunks w, w + warps, ...; the loop bound is uniform across the warp
// (block sizes are whole warps), so the full shuffle mask is valid.
__global__ void __launch_bounds__(1024)
acoo_flat_kernel(int32_t n_flat, int32_t n_chunks, const int32_t *__restrict__ col,
                 const double *__restrict__ val, const uint32_t *__restrict__ head,
                 const int32_t *__restrict__ piece0, const double *__restrict__ x,
                 double *__restrict__ partial)
{
    const int lane = threadIdx.x & (kWarp - 1);
    const int64_t warps = ((int64_t)gridDim.x * blockDim.x) / kWarp;
    for (int64_t c = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / kWarp; c < n_chunks; c += warps) {
        const int64_t k = c * kWarp + lane;
        const bool valid = k < n_flat;
        double p = valid ? __dmul_rn(__ldg(val + k), __ldg(x + __ldg(col + k))) : 0.0;
        const uint32_t mask = __ldg(head + c);
        const uint32_t upto = mask & ((2u << lane) - 1u); // heads at lanes 0..lane (lane 31: all)
        const int start = 31 - __clz(upto);                // first lane of this lane's piece
#pragma unroll
        for (int off = 1; off < kWarp; off <<= 1) {
            const double t = __shfl_up_sync(kFullMask, p, off);
            if (lane - off >= start) p = p + t;
        }
        const bool last = valid && (lane == kWarp - 1 || ((mask >> (lane + 1)) & 1u) || k + 1 == n_flat);
        if (last) partial[__ldg(piece0 + c) + __popc(upto) - 1] = p;
    }
}

// Rows with flat entries (and empty rows): add the pieces, in order, to the segment sum.
__global__ void __launch_bounds__(1024)
acoo_combine_kernel(int32_t n_aux, const int32_t *__restrict__ aux_row,
                    const uint8_t *__restrict__ has_seg, const int32_t *__restrict__ piece_ptr,
                    const double *__restrict__ partial, double *__restrict__ y)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t m = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; m < n_aux; m += stride) {
        const int32_t r = __ldg(aux_row + m);
        double acc = __ldg(has_seg + m) ? y[r] : 0.0;
        const int32_t q1 = __ldg(piece_ptr + m + 1);
        for (int32_t q = __ldg(piece_ptr + m); q < q1; ++q) acc = acc + partial[q];
        y[r] = acc;
    }
}

void acoo_destroy(void *impl)
{
    acoo_dev *d = static_cast<acoo_dev *>(impl);
    if (!d) return;
    // Nothing to report from a destructor; cudaFree(NULL) is a no-op.
    cudaFree(d->d_seg_row);
    cudaFree(d->d_seg_col);
    cudaFree(d->d_flat_col);
    cudaFree(d->d_chunk_head);
    cudaFree(d->d_chunk_piece);
    cudaFree(d->d_partial);
    cudaFree(d->d_aux_row);
    cudaFree(d->d_aux_has_seg);
    cudaFree(d->d_aux_piece_ptr);
    free(d);
}

template <typename T>
hs_status upload(T **dst, const T *src, int64_t count, const char *what)
{
    HS_CALL(HS_CUDA_ALLOC(*dst, count, what));
    if (count > 0) HS_CUDA_CALL(cudaMemcpy(*dst, src, sizeof(T) * (size_t)count, cudaMemcpyHostToDevice));
    return HS_OK;
}

hs_status acoo_init(acoo_dev *d, const hs_spmv_layout *lay, const double *d_vals)
{
    const hs_acoo *a = hs_acoo_of(lay);
    HS_CHECK(a != NULL, HS_ERR_INTERNAL, "aligned_coo device SpMV: layout \"%s\" is not ALIGNED_COO",
             lay->ops ? lay->ops->name : "?");
    const int b = lay->params.block_size;
    HS_CHECK(b >= kWarp && b <= 1024 && b % kWarp == 0, HS_ERR_CONFIG,
             "spmv.block_size = %d is not a multiple of 32 in [32, 1024] (aligned_coo)", b);
    HS_CHECK(lay->n_slots == a->n_seg_slots + a->n_flat, HS_ERR_INTERNAL,
             "aligned_coo device SpMV: %lld slots, but %lld in segments + %d flat",
             (long long)lay->n_slots, (long long)a->n_seg_slots, (int)a->n_flat);
    HS_CHECK(d_vals || lay->n_slots == 0, HS_ERR_INTERNAL, "aligned_coo device SpMV: no device value array");
    d->block = b;
    d->n_seg = a->n_seg;
    d->seg_size = a->seg_size;
    d->min_rl = a->min_rl;
    d->n_flat = a->n_flat;
    d->n_chunks = a->n_chunks;
    d->n_pieces = a->n_pieces;
    d->flat_offset = a->n_seg_slots;
    d->n_aux = a->n_aux;
    d->d_vals = d_vals;
    HS_CALL(upload(&d->d_seg_row, a->seg_row, a->n_seg_slots, "ALIGNED_COO segment rows"));
    HS_CALL(upload(&d->d_seg_col, a->seg_col, a->n_seg_slots, "ALIGNED_COO segment columns"));
    HS_CALL(upload(&d->d_flat_col, a->flat_col, a->n_flat, "ALIGNED_COO flat columns"));
    HS_CALL(upload(&d->d_chunk_head, a->chunk_head, a->n_chunks, "ALIGNED_COO flat chunk heads"));
    HS_CALL(upload(&d->d_chunk_piece, a->chunk_piece, a->n_chunks, "ALIGNED_COO flat chunk pieces"));
    HS_CALL(HS_CUDA_ALLOC(d->d_partial, a->n_pieces, "ALIGNED_COO flat piece sums (scratch)"));
    HS_CALL(upload(&d->d_aux_row, a->aux_row, a->n_aux, "ALIGNED_COO combine rows"));
    HS_CALL(upload(&d->d_aux_has_seg, a->aux_has_seg, a->n_aux, "ALIGNED_COO combine flags"));
    HS_CALL(upload(&d->d_aux_piece_ptr, a->aux_piece_ptr, (int64_t)a->n_aux + 1, "ALIGNED_COO combine pieces"));
    return HS_OK;
}

hs_status acoo_create(const hs_spmv_layout *lay, const hs_csr *pattern, const double *d_vals, void **impl)
{
    (void)pattern; // everything the kernels need is in the layout
    *impl = NULL;
    acoo_dev *d = NULL;
    HS_CALL(HS_ALLOC(d, 1, "ALIGNED_COO device SpMV"));
    hs_status st = acoo_init(d, lay, d_vals);
    if (st != HS_OK) {
        acoo_destroy(d);
        return st;
    }
    *impl = d;
    return HS_OK;
}

unsigned blocks_for(int64_t threads, int block)
{
    const int64_t b = (threads + block - 1) / block;
    return (unsigned)(b > INT_MAX ? INT_MAX : b); // the kernels are grid-stride
}

hs_status acoo_apply(void *impl, const double *d_x, double *d_y, cudaStream_t stream)
{
    const acoo_dev *d = static_cast<const acoo_dev *>(impl);
    if (d->seg_size > 0) {
        acoo_seg_kernel<<<blocks_for(d->seg_size, d->block), d->block, 0, stream>>>(
            d->seg_size, d->n_seg, d->min_rl, d->d_seg_row, d->d_seg_col, d->d_vals, d_x, d_y);
        HS_CUDA_LAUNCH_CHECK("acoo_seg_kernel");
    }
    if (d->n_chunks > 0) {
        acoo_flat_kernel<<<blocks_for((int64_t)d->n_chunks * kWarp, d->block), d->block, 0, stream>>>(
            d->n_flat, d->n_chunks, d->d_flat_col, d->d_vals + d->flat_offset, d->d_chunk_head,
            d->d_chunk_piece, d_x, d->d_partial);
        HS_CUDA_LAUNCH_CHECK("acoo_flat_kernel");
    }
    if (d->n_aux > 0) {
        acoo_combine_kernel<<<blocks_for(d->n_aux, d->block), d->block, 0, stream>>>(
            d->n_aux, d->d_aux_row, d->d_aux_has_seg, d->d_aux_piece_ptr, d->d_partial, d_y);
        HS_CUDA_LAUNCH_CHECK("acoo_combine_kernel");
    }
    return HS_OK;
}

} // namespace

// `extern` gives the const object external linkage (backends/cuda/spmv/registry.cu refers to it).
extern const hs_gpu_spmv_ops hs_gpu_spmv_ops_aligned_coo = {"aligned_coo", acoo_create, acoo_apply,
                                                            acoo_destroy, nullptr, nullptr, nullptr};
