// Device kernels of pcsr_dehnavi, Prefetch-CSR (seed 000 sec. IV-B, IV-C; seed 004 ch. 3), with
// the atomic-free update of split rows of seed 004 ch. 4 sec. 4.4-A. Host side (layout builder,
// split vector, CPU reference): solvers/spmv_pcsr_dehnavi.c; the layout and the order of summation
// are described in solvers/spmv_pcsr_dehnavi_layout.h.
//
// Two kernels per apply, on the caller's stream, nothing allocated, no host synchronisation:
//  1. pcsr_spmv_kernel: a block of 256 threads runs through `prefetch` consecutive partitions of
//     256 slots, one slot per thread (seed 000 Fig. 4 steps 1-7): product, group reduction of the
//     padded rows into the sum vector (shared memory), then one thread per row adds the row's group
//     sums. A row inside the partition is written to y; a split row's partial sum (its piece) goes
//     to the pieces array (seed 004 ch. 4: no atomic update of y).
//  2. pcsr_update_kernel: one thread per entry of the split vector adds that row's pieces in
//     partition order and writes y. It assigns rather than accumulates, so every y entry is
//     written exactly once and the seed's third sub-kernel, "clear Y", has nothing left to do.
//
// Prefetching (seed 000 sec. IV-C, Fig. 5): a software pipeline in registers. While partition p is
// reduced, the value/column loads of partition p+2, the x gathers of partition p+1 and the row
// bounds of partition p+1 are already in flight.
//
// Today's replacements for 2010 constraints: x is read through the read-only data cache (__ldg on
// a const __restrict__ pointer) instead of being bound to texture memory, and VAL/INDX/x go straight
// into registers with coalesced loads instead of being staged in shared memory (G80 needed the
// staging to coalesce; each slot is used by its own thread only). Shared memory holds the sum vector.
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hs_cuda_check.cuh"
#include "hs_gpu_spmv.cuh"
#include "hs_util.h"
#include "spmv_pcsr_dehnavi_layout.h"

namespace {

constexpr int kPart = HS_PCSR_PART; // slots per partition = threads per block
constexpr int kWarp = 32;
constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kUpdateBlock = 256;
constexpr int kMinBlocks = 6; // resident blocks per SM the SpMV kernel is compiled for

struct pcsr_dev {
    int32_t n_rows, n_parts, n_split, pad, prefetch;
    int32_t *d_prow_ptr;    // [n_rows+1], owned
    int32_t *d_col;         // [n_slots], owned (-1: padding)
    int32_t *d_part_row;    // [n_parts+1], owned
    int32_t *d_split_row;   // [n_split], owned: the split vector
    int32_t *d_split_first; // [n_split], owned
    int32_t *d_split_last;  // [n_split], owned
    double *d_pieces;       // [2 n_parts], owned scratch: partial sums of split rows
    const double *d_vals;   // [n_slots], borrowed: refilled in place by assembly
};

// x of one slot, through the read-only data cache; padding (col < 0) reads nothing. Written as a
// conditional load so that nvcc emits a predicated load and nothing waits for it before its use.
__device__ __forceinline__ double gather_x(int32_t c, const double *__restrict__ x)
{
    double xv = 0.0;
    if (c >= 0) xv = __ldg(x + c);
    return xv;
}

// The product of one slot (0.0 for padding, whatever the value slot holds). __dmul_rn keeps nvcc
// from contracting it into the first addition of the tree, so the sums are the CPU reference's.
__device__ __forceinline__ double slot_product(double v, int32_t c, double xv)
{
    return c >= 0 ? __dmul_rn(v, xv) : 0.0;
}

// Seed 000 sec. IV-B "zero padding" + Fig. 4 steps 3, 5, 6: products, the group reduction into the
// sum vector, one thread per row. N = padding factor (template: the tree is unrolled).
// __launch_bounds__(256, 6): at most 40 registers, so 6 blocks (1536 threads) share an SM with no
// spills for every N; left to itself ptxas picks 45 registers (5 blocks) and spills for N = 16.
template <int N>
__global__ void __launch_bounds__(kPart, kMinBlocks)
pcsr_spmv_kernel(int32_t n_rows, int32_t n_parts, int32_t prefetch,
                 const int32_t *__restrict__ prow_ptr, const int32_t *__restrict__ part_row,
                 const int32_t *__restrict__ col, const double *__restrict__ val,
                 const double *__restrict__ x, double *__restrict__ y,
                 double *__restrict__ pieces)
{
    static_assert(N >= 1 && N <= kPart && kPart % N == 0, "padding factor must divide 256");
    constexpr int W = N < kWarp ? N : kWarp; // shuffle tree width
    constexpr int G = kPart / N;             // group sums per partition
    constexpr int K = N / W;                 // chunk sums per group (N > 32 only)
    __shared__ double s_sum[2][G];           // the seed's sum vector, double-buffered
    __shared__ double s_chunk[N > kWarp ? kPart / kWarp : 1];

    const int t = threadIdx.x;
    const int64_t p_first = (int64_t)blockIdx.x * prefetch;
    if (p_first >= n_parts) return;
    const int32_t p_end = (int32_t)(p_first + prefetch < n_parts ? p_first + prefetch : n_parts);
    int32_t p = (int32_t)p_first;

    // Pipeline registers: stage 0 = the partition being reduced (value, column, x), stage 1 = the
    // next one (value, column; x in flight), stage 2 = the one after (value, column in flight).
    const int64_t b0 = (int64_t)p * kPart + t;
    double v0 = __ldg(val + b0), v1 = 0.0;
    int32_t c0 = __ldg(col + b0), c1 = -1;
    if (p + 1 < p_end) {
        v1 = __ldg(val + b0 + kPart);
        c1 = __ldg(col + b0 + kPart);
    }
    double x0 = gather_x(c0, x);
    // Rows touching partition p: part_row[p] .. part_row[p+1]; bounds of row part_row[p] + t.
    int32_t r_lo = __ldg(part_row + p), r_hi = __ldg(part_row + p + 1);
    int32_t rs = 0, re = 0;
    if ((int64_t)r_lo + t < n_rows) {
        rs = __ldg(prow_ptr + r_lo + t);
        re = __ldg(prow_ptr + r_lo + t + 1);
    }

    for (int buf = 0; p < p_end; ++p, buf ^= 1) {
        const int64_t P0 = (int64_t)p * kPart, P1 = P0 + kPart;

        // Prefetch (seed 000 sec. IV-C): slots of p+2, x of p+1, rows of p+1. Nothing below waits
        // for these loads; they land while partition p is reduced.
        double v2 = 0.0, x1 = 0.0;
        int32_t c2 = -1, r_hi1 = 0, rs1 = 0, re1 = 0;
        if (p + 2 < p_end) {
            v2 = __ldg(val + P0 + 2 * kPart + t);
            c2 = __ldg(col + P0 + 2 * kPart + t);
        }
        if (p + 1 < p_end) {
            x1 = gather_x(c1, x);
            r_hi1 = __ldg(part_row + p + 2);
            if ((int64_t)r_hi + t < n_rows) {
                rs1 = __ldg(prow_ptr + r_hi + t);
                re1 = __ldg(prow_ptr + r_hi + t + 1);
            }
        }

        // Steps 3 and 5: the product, then every group of N products (one row's, thanks to the
        // padding) reduced into the sum vector.
        double s = slot_product(v0, c0, x0);
#pragma unroll
        for (int off = W / 2; off > 0; off >>= 1) s += __shfl_xor_sync(kFullMask, s, off);
        if (N <= kWarp) {
            if ((t & (W - 1)) == 0) s_sum[buf][t / W] = s;
        } else {
            if ((t & (kWarp - 1)) == 0) s_chunk[t / kWarp] = s;
            __syncthreads();
            if (t < G) {
                double e[K];
#pragma unroll
                for (int l = 0; l < K; ++l) e[l] = s_chunk[t * K + l];
#pragma unroll
                for (int off = K / 2; off > 0; off >>= 1)
#pragma unroll
                    for (int l = 0; l < off; ++l) e[l] += e[l + off];
                s_sum[buf][t] = e[0];
            }
        }
        __syncthreads();

        // Steps 6 and 7: one thread per row touching the partition adds the row's group sums in
        // order and writes the row (or its piece). The last row may start in the next partition.
        const int64_t r_last = r_hi < n_rows - 1 ? r_hi : n_rows - 1;
        for (int64_t r = (int64_t)r_lo + t; r <= r_last; r += kPart) {
            int32_t a = rs, b = re;
            if (r != (int64_t)r_lo + t) {
                a = __ldg(prow_ptr + r);
                b = __ldg(prow_ptr + r + 1);
            }
            if (a >= P1) break; // begins in a later partition (only r == r_hi can)
            const int g_lo = (int)((a > P0 ? a - P0 : 0) / N);
            const int g_hi = (int)((b < P1 ? b - P0 : (int64_t)kPart) / N);
            double piece = 0.0;
            for (int g = g_lo; g < g_hi; ++g) piece += s_sum[buf][g];
            if (a < P0)
                pieces[HS_PCSR_PIECE_HEAD(p)] = piece; // began in an earlier partition
            else if (b > P1)
                pieces[HS_PCSR_PIECE_TAIL(p)] = piece; // continues into a later partition
            else
                y[r] = piece; // the whole row (0.0 for an empty row)
        }

        // Advance the pipeline.
        v0 = v1;
        c0 = c1;
        x0 = x1;
        v1 = v2;
        c1 = c2;
        r_lo = r_hi;
        r_hi = r_hi1;
        rs = rs1;
        re = re1;
    }
}

// Seed 004 ch. 4 sec. 4.4-A "Y vector update": split row split_row[j] spreads over partitions
// first..last; its pieces are added in partition order from 0.0 (the CPU reference's order).
__global__ void __launch_bounds__(kUpdateBlock)
pcsr_update_kernel(int32_t n_split, const int32_t *__restrict__ split_row,
                   const int32_t *__restrict__ split_first, const int32_t *__restrict__ split_last,
                   const double *__restrict__ pieces, double *__restrict__ y)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < n_split; j += stride) {
        const int32_t p0 = __ldg(split_first + j), p1 = __ldg(split_last + j);
        double s = 0.0;
        s += pieces[HS_PCSR_PIECE_TAIL(p0)];
        for (int32_t q = p0 + 1; q <= p1; ++q) s += pieces[HS_PCSR_PIECE_HEAD(q)];
        y[__ldg(split_row + j)] = s;
    }
}

void pcsr_destroy(void *impl)
{
    pcsr_dev *d = static_cast<pcsr_dev *>(impl);
    if (!d) return;
    cudaFree(d->d_prow_ptr); // nothing to report from a destructor; NULL is a no-op
    cudaFree(d->d_col);
    cudaFree(d->d_part_row);
    cudaFree(d->d_split_row);
    cudaFree(d->d_split_first);
    cudaFree(d->d_split_last);
    cudaFree(d->d_pieces);
    free(d);
}

template <typename T>
hs_status upload(T **dst, const T *src, size_t n, const char *what)
{
    HS_CALL(HS_CUDA_ALLOC(*dst, n, what));
    if (n) HS_CUDA_CALL(cudaMemcpy(*dst, src, sizeof(T) * n, cudaMemcpyHostToDevice));
    return HS_OK;
}

hs_status pcsr_init(pcsr_dev *d, const hs_spmv_layout *lay, const hs_csr *pat, const double *d_vals)
{
    const hs_pcsr_layout *pl = hs_pcsr_layout_of(lay);
    HS_CHECK(pl != NULL, HS_ERR_INTERNAL, "pcsr_dehnavi device SpMV: layout \"%s\" is not a PCSR layout",
             lay->ops->name);
    HS_CHECK(lay->n_slots == (int64_t)pl->n_parts * kPart && lay->n_rows == pat->n_rows,
             HS_ERR_INTERNAL, "pcsr_dehnavi device SpMV: inconsistent layout (%lld slots, %d partitions)",
             (long long)lay->n_slots, (int)pl->n_parts);
    HS_CHECK(d_vals || lay->n_slots == 0, HS_ERR_INTERNAL, "pcsr_dehnavi device SpMV: no device value array");
    d->n_rows = lay->n_rows;
    d->n_parts = pl->n_parts;
    d->n_split = pl->n_split;
    d->pad = pl->pad;
    d->prefetch = pl->prefetch;
    d->d_vals = d_vals;
    HS_CALL(upload(&d->d_prow_ptr, pl->prow_ptr, (size_t)lay->n_rows + 1, "PCSR padded row pointers"));
    HS_CALL(upload(&d->d_col, pl->col, (size_t)lay->n_slots, "PCSR column indices"));
    HS_CALL(upload(&d->d_part_row, pl->part_row, (size_t)pl->n_parts + 1, "PCSR partition rows"));
    HS_CALL(upload(&d->d_split_row, pl->split_row, (size_t)pl->n_split, "PCSR split vector (rows)"));
    HS_CALL(upload(&d->d_split_first, pl->split_first, (size_t)pl->n_split, "PCSR split vector (first)"));
    HS_CALL(upload(&d->d_split_last, pl->split_last, (size_t)pl->n_split, "PCSR split vector (last)"));
    HS_CALL(HS_CUDA_ALLOC(d->d_pieces, 2 * (size_t)pl->n_parts, "PCSR split-row pieces"));
    HS_CUDA_CALL(cudaMemset(d->d_pieces, 0, sizeof(double) * 2 * (size_t)pl->n_parts));
    return HS_OK;
}

hs_status pcsr_create(const hs_spmv_layout *lay, const hs_csr *pattern, const double *d_vals,
                      void **impl)
{
    *impl = NULL;
    pcsr_dev *d = NULL;
    HS_CALL(HS_ALLOC(d, 1, "PCSR device SpMV"));
    hs_status st = pcsr_init(d, lay, pattern, d_vals);
    if (st != HS_OK) {
        pcsr_destroy(d);
        return st;
    }
    *impl = d;
    return HS_OK;
}

template <int N>
void launch_spmv(const pcsr_dev *d, unsigned grid, const double *x, double *y, cudaStream_t st)
{
    pcsr_spmv_kernel<N><<<grid, kPart, 0, st>>>(d->n_rows, d->n_parts, d->prefetch, d->d_prow_ptr,
                                                 d->d_part_row, d->d_col, d->d_vals, x, y,
                                                 d->d_pieces);
}

hs_status pcsr_apply(void *impl, const double *d_x, double *d_y, cudaStream_t stream)
{
    const pcsr_dev *d = static_cast<const pcsr_dev *>(impl);
    if (d->n_rows == 0 || d->n_parts == 0) return HS_OK; // no rows (rows without a partition do not exist)
    // n_parts <= 2^31 / 256, so the block count fits easily.
    const unsigned grid = (unsigned)(((int64_t)d->n_parts + d->prefetch - 1) / d->prefetch);
    switch (d->pad) {
    case 1: launch_spmv<1>(d, grid, d_x, d_y, stream); break;
    case 2: launch_spmv<2>(d, grid, d_x, d_y, stream); break;
    case 4: launch_spmv<4>(d, grid, d_x, d_y, stream); break;
    case 8: launch_spmv<8>(d, grid, d_x, d_y, stream); break;
    case 16: launch_spmv<16>(d, grid, d_x, d_y, stream); break;
    case 32: launch_spmv<32>(d, grid, d_x, d_y, stream); break;
    case 64: launch_spmv<64>(d, grid, d_x, d_y, stream); break;
    case 128: launch_spmv<128>(d, grid, d_x, d_y, stream); break;
    case 256: launch_spmv<256>(d, grid, d_x, d_y, stream); break;
    default:
        return HS_FAIL(HS_ERR_INTERNAL, "pcsr_dehnavi: padding factor %d has no kernel", (int)d->pad);
    }
    HS_CUDA_LAUNCH_CHECK("pcsr_spmv_kernel");
    if (d->n_split > 0) {
        const int64_t b = ((int64_t)d->n_split + kUpdateBlock - 1) / kUpdateBlock;
        pcsr_update_kernel<<<(unsigned)b, kUpdateBlock, 0, stream>>>(
            d->n_split, d->d_split_row, d->d_split_first, d->d_split_last, d->d_pieces, d_y);
        HS_CUDA_LAUNCH_CHECK("pcsr_update_kernel");
    }
    return HS_OK;
}

} // namespace

// `extern` gives this const object external linkage (backends/cuda/spmv/registry.cu refers to it).
extern const hs_gpu_spmv_ops hs_gpu_spmv_ops_pcsr_dehnavi = {
    "pcsr_dehnavi", pcsr_create, pcsr_apply, pcsr_destroy, nullptr, nullptr, nullptr};
