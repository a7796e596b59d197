// Device kernels of the ELL-WARP formats of seed 002 sec. 5.1-5.5 (host side, layout and CPU
// reference: solvers/spmv_ellwarp.c, solvers/spmv_ellwarp_layout.h). One kernel template serves the
// six variants: kSplit (K2: several lanes per row and a shuffle reduction) and kRemap (K1/K2 store
// y[row_of_pos[p]]; the r/rs variants, in their own numbering, store y[p]). The column order within
// rows (rs) is a property of the layout only.
//
// Each warp reads its 16-byte descriptor {slot32, steps, row0, shift} once (the same address in all
// lanes: one broadcast), then lane l walks slots slot32*32 + s*32 + l, s = 0 .. steps-1, so every
// step of the warp reads 32 consecutive values (256 B) and 32 consecutive columns (128 B): the
// "column-major inside a warp" of sec. 5.1. The lane sums in slot order into s = 0.0, exactly as the
// CPU reference does (nvcc may contract s + v*x into an fma; the tests' bound 2 gamma_m (|A||x|)_i
// covers that). 2010-era texture fetches of x (the seed's `cache<usecache>`) become __ldg, the
// read-only data path, on sm_90; val and col go through it too.
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "hs_cuda_check.cuh"
#include "hs_gpu_reduce.cuh"
#include "hs_gpu_spmv.cuh"
#include "hs_util.h"
#include "spmv_ellwarp_layout.h"

static_assert(sizeof(hs_ellwarp_warp) == sizeof(int4), "the warp descriptor is read as one int4");

namespace {

constexpr int kWarp = 32;
constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kUnroll = 4; // steps whose loads are issued before the first product is summed

struct ellwarp_dev {
    int32_t n_rows;
    int32_t n_warps;
    int block;             // threads per block (spmv.block_size, a multiple of 32)
    int k2;                // kSplit
    int remap;             // kRemap
    int4 *d_warp;          // [n_warps], owned
    int32_t *d_col;        // [n_slots], owned
    int32_t *d_perm;       // [n_rows] row_of_pos, owned; NULL when y is stored directly
    const void *d_vals;    // [n_slots] double, or float when f32; borrowed: the caller refills it in place
    int f32;
};

// Seed 002 Listing 2 (K1) and Listing 3 (K2), for any CSR matrix: a grid-stride loop over warps
// (the bound is uniform across a warp, so the full shuffle mask is always valid); every lane of a
// warp, also those past the last row, reads its slots, which the layout fills with zeros and valid
// columns, so the loop needs no bounds tests.
// No __launch_bounds__: the block size is a run-time tunable (32..1024), and with nvcc 13 for sm_90
// __launch_bounds__(1024) makes ptxas cap the K1 kernels at 32 registers with an 8-byte spill, while
// without it they fit in 32 registers with no spill (full occupancy, 2048 threads per SM; -Xptxas -v).
// kDot (Chronopoulos-Gear CG, seed 004 ch. 4): also y . x, from the lanes that store a row, summed
// per block by hs_block_sum_any and over the blocks by the last block to finish (hs_dot_finish), in
// a fixed order; the grid is capped at the partial buffer's size (grid-stride covers the rest).
// V: the stored value type (float values are widened before their product; sums stay double).
// kLim (apply_dot_rows, a rank's local matrix): only rows < n_dot enter the dot (the owned rows; the
// ghosts' incomplete rows behind them are multiplied and left out); false: every row, n_dot unread.
template <bool kSplit, bool kRemap, bool kDot, typename V, bool kLim = false>
__device__ __forceinline__ void
ellwarp_body(int32_t n_rows, int32_t n_warps, const int4 *__restrict__ warp,
             const int32_t *__restrict__ col, const V *__restrict__ val,
             const int32_t *__restrict__ perm, const double *__restrict__ x, double *__restrict__ y,
             double *__restrict__ part, unsigned *ticket, double *result, int32_t n_dot = 0,
             const int *gate = nullptr)
{
    if (kDot && gate && *gate) return; // the solve stopped (apply_dot's d_gate): uniform over the grid
    const int lane = threadIdx.x & (kWarp - 1);
    double dot = 0.0;
    const int64_t warps_in_grid = ((int64_t)gridDim.x * blockDim.x) / kWarp;
    for (int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / kWarp; w < n_warps;
         w += warps_in_grid) {
        const int4 W = __ldg(warp + w); // x: slot32, y: steps, z: row0, w: shift
        const size_t base = (size_t)W.x * kWarp + lane;
        const int32_t *c = col + base;
        const V *v = val + base;
        double s = 0.0;
        int st = 0;
        // Issue kUnroll column and value loads, then the kUnroll gathers of x, then sum in order:
        // more independent loads in flight per lane than the plain loop of the listings. The
        // matrix is read once per SpMV, so its loads are streaming (__ldcs, evict-first): they do
        // not push x out of L2 (182 MB of matrix stream past an 8 MB x at 1M rows). Measured on an
        // H200: 55.0 -> 50.4 us at 1M rows, from 0.92 to 0.99 of the copy bandwidth.
        for (; st <= W.y - kUnroll; st += kUnroll, c += kUnroll * kWarp, v += kUnroll * kWarp) {
            int32_t cc[kUnroll];
            double vv[kUnroll], xx[kUnroll];
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) cc[u] = __ldcs(c + u * kWarp);
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) vv[u] = (double)__ldcs(v + u * kWarp);
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) xx[u] = __ldg(x + cc[u]);
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) s += vv[u] * xx[u];
        }
        for (; st < W.y; ++st, c += kWarp, v += kWarp) s += (double)__ldcs(v) * __ldg(x + __ldcs(c));

        int64_t pos;
        bool writes;
        if (kSplit) {
            // Listing 3's shared-memory reduction as register shuffles: for the row's first lane
            // the butterfly adds lane+1, then the pair at +2, ... (the CPU reference's tree).
            const int t = 1 << W.w;
            for (int off = 1; off < t; off <<= 1) s += __shfl_xor_sync(kFullMask, s, off);
            pos = (int64_t)W.z + (lane >> W.w);
            writes = (lane & (t - 1)) == 0 && pos < n_rows;
        } else {
            pos = (int64_t)W.z + lane;
            writes = pos < n_rows;
        }
        if (writes) {
            const int64_t row = kRemap ? __ldg(perm + pos) : pos;
            y[row] = s;
            if (kDot && (!kLim || row < n_dot)) dot += s * __ldg(x + row);
        }
    }
    if (kDot) {
        __shared__ double sh[32];
        hs_dot_finish(dot, part, ticket, result, sh);
    }
}

template <bool kSplit, bool kRemap, typename V>
__global__ void
ellwarp_kernel(int32_t n_rows, int32_t n_warps, const int4 *__restrict__ warp,
               const int32_t *__restrict__ col, const V *__restrict__ val,
               const int32_t *__restrict__ perm, const double *__restrict__ x, double *__restrict__ y)
{
    ellwarp_body<kSplit, kRemap, false, V>(n_rows, n_warps, warp, col, val, perm, x, y, nullptr, nullptr, nullptr);
}

// The fused variant would take 40 registers (the dot, its row index and the reduction), which
// lowers the resident threads from 2048 to 1536 per SM on sm_90, too few loads in flight for a
// bandwidth-bound kernel: 2 blocks of 1024 per SM caps it at 32 registers (ptxas -v).
// kLim: the dot over rows < n_dot only (apply_dot_rows); false: apply_dot's kernel, n_dot unread.
template <bool kSplit, bool kRemap, typename V, bool kLim>
__global__ void __launch_bounds__(1024, 2)
ellwarp_dot_kernel(int32_t n_rows, int32_t n_warps, const int4 *__restrict__ warp,
                   const int32_t *__restrict__ col, const V *__restrict__ val,
                   const int32_t *__restrict__ perm, const double *__restrict__ x, double *__restrict__ y,
                   double *__restrict__ part, unsigned *ticket, double *result, int32_t n_dot, const int *gate)
{
    ellwarp_body<kSplit, kRemap, true, V, kLim>(n_rows, n_warps, warp, col, val, perm, x, y, part, ticket, result,
                                                n_dot, gate);
}

void ellwarp_destroy(void *impl)
{
    ellwarp_dev *d = static_cast<ellwarp_dev *>(impl);
    if (!d) return;
    cudaFree(d->d_warp); // nothing to report from a destructor; NULL is a no-op
    cudaFree(d->d_col);
    cudaFree(d->d_perm);
    free(d);
}

hs_status ellwarp_init(ellwarp_dev *d, const hs_spmv_layout *lay, const hs_csr *pat, const void *d_vals, int f32)
{
    const hs_ellwarp_layout *ew = hs_ellwarp_layout_of(lay);
    HS_CHECK(ew != NULL, HS_ERR_INTERNAL, "ELL-WARP device SpMV: layout \"%s\" is not an ELL-WARP layout",
             lay->ops ? lay->ops->name : "?");
    HS_CHECK(ew->n_rows == pat->n_rows, HS_ERR_INTERNAL,
             "ELL-WARP device SpMV: layout has %d rows but the pattern %d", (int)ew->n_rows, (int)pat->n_rows);
    HS_CHECK(d_vals || lay->n_slots == 0, HS_ERR_INTERNAL, "ELL-WARP device SpMV: no device value array");
    const int b = lay->params.block_size;
    HS_CHECK(b >= kWarp && b <= 1024 && b % kWarp == 0, HS_ERR_CONFIG,
             "spmv.block_size = %d is not a multiple of 32 in [32, 1024]", b);
    d->n_rows = ew->n_rows;
    d->n_warps = ew->n_warps;
    d->block = b;
    d->k2 = ew->var.k2;
    d->remap = ew->remap_store;
    d->d_vals = d_vals;
    d->f32 = f32;
    HS_CALL(HS_CUDA_ALLOC(d->d_warp, ew->n_warps, "ELL-WARP warp table"));
    HS_CALL(HS_CUDA_ALLOC(d->d_col, lay->n_slots, "ELL-WARP column indices"));
    HS_CUDA_CALL(cudaMemcpy(d->d_warp, ew->warp, sizeof(int4) * (size_t)ew->n_warps, cudaMemcpyHostToDevice));
    HS_CUDA_CALL(cudaMemcpy(d->d_col, ew->col, sizeof(int32_t) * (size_t)lay->n_slots, cudaMemcpyHostToDevice));
    if (d->remap) {
        HS_CALL(HS_CUDA_ALLOC(d->d_perm, ew->n_rows, "ELL-WARP row permutation"));
        HS_CUDA_CALL(cudaMemcpy(d->d_perm, ew->row_of_pos, sizeof(int32_t) * (size_t)ew->n_rows,
                                cudaMemcpyHostToDevice));
    }
    return HS_OK;
}

hs_status ellwarp_create_any(const hs_spmv_layout *lay, const hs_csr *pattern, const void *d_vals, int f32,
                             void **impl)
{
    *impl = NULL;
    ellwarp_dev *d = NULL;
    HS_CALL(HS_ALLOC(d, 1, "ELL-WARP device SpMV"));
    hs_status st = ellwarp_init(d, lay, pattern, d_vals, f32);
    if (st != HS_OK) {
        ellwarp_destroy(d);
        return st;
    }
    *impl = d;
    return HS_OK;
}

hs_status ellwarp_create(const hs_spmv_layout *lay, const hs_csr *pattern, const double *d_vals, void **impl)
{
    return ellwarp_create_any(lay, pattern, d_vals, 0, impl);
}

hs_status ellwarp_create_f32(const hs_spmv_layout *lay, const hs_csr *pattern, const float *d_vals, void **impl)
{
    return ellwarp_create_any(lay, pattern, d_vals, 1, impl);
}

template <bool kSplit, bool kRemap, bool kDot, typename V, bool kLim>
hs_status launch_v(const ellwarp_dev *d, const double *d_x, double *d_y, double *d_part, int max_parts,
                 unsigned *d_ticket, double *d_result, int32_t n_dot, const int *d_gate, cudaStream_t stream)
{
    // one warp per layout warp; the kernel is grid-stride, so clamping drops nothing
    int64_t blocks = ((int64_t)d->n_warps * kWarp + d->block - 1) / d->block;
    const int64_t cap = kDot ? max_parts : INT_MAX;
    if (blocks > cap) blocks = cap;
    if (blocks < 1) blocks = 1;
    const unsigned grid = (unsigned)blocks;
    if (kDot)
        ellwarp_dot_kernel<kSplit, kRemap, V, kLim><<<grid, d->block, 0, stream>>>(
            d->n_rows, d->n_warps, d->d_warp, d->d_col, static_cast<const V *>(d->d_vals), d->d_perm, d_x, d_y, d_part,
            d_ticket, d_result, n_dot, d_gate);
    else
        ellwarp_kernel<kSplit, kRemap, V><<<grid, d->block, 0, stream>>>(d->n_rows, d->n_warps, d->d_warp, d->d_col,
                                                                          static_cast<const V *>(d->d_vals), d->d_perm,
                                                                          d_x, d_y);
    HS_CUDA_LAUNCH_CHECK(kSplit ? (kRemap ? "ellwarp_kernel<K2, remapped y>" : "ellwarp_kernel<K2, direct y>")
                                : (kRemap ? "ellwarp_kernel<K1, remapped y>" : "ellwarp_kernel<K1, direct y>"));
    return HS_OK;
}

template <bool kSplit, bool kRemap, bool kDot, bool kLim = false>
hs_status launch(const ellwarp_dev *d, const double *d_x, double *d_y, double *d_part, int max_parts,
                 unsigned *d_ticket, double *d_result, cudaStream_t stream, int32_t n_dot = 0,
                 const int *d_gate = nullptr)
{
    return d->f32 ? launch_v<kSplit, kRemap, kDot, float, kLim>(d, d_x, d_y, d_part, max_parts, d_ticket, d_result,
                                                                n_dot, d_gate, stream)
                  : launch_v<kSplit, kRemap, kDot, double, kLim>(d, d_x, d_y, d_part, max_parts, d_ticket, d_result,
                                                                 n_dot, d_gate, stream);
}

hs_status ellwarp_apply(void *impl, const double *d_x, double *d_y, cudaStream_t stream)
{
    const ellwarp_dev *d = static_cast<const ellwarp_dev *>(impl);
    if (d->n_rows == 0) return HS_OK;
    if (d->k2)
        return d->remap ? launch<true, true, false>(d, d_x, d_y, nullptr, 0, nullptr, nullptr, stream)
                        : launch<true, false, false>(d, d_x, d_y, nullptr, 0, nullptr, nullptr, stream);
    return d->remap ? launch<false, true, false>(d, d_x, d_y, nullptr, 0, nullptr, nullptr, stream)
                    : launch<false, false, false>(d, d_x, d_y, nullptr, 0, nullptr, nullptr, stream);
}

hs_status ellwarp_apply_dot(void *impl, const double *d_x, double *d_y, double *d_part, int max_parts,
                            unsigned *d_ticket, double *d_result, const int *d_gate, cudaStream_t stream)
{
    const ellwarp_dev *d = static_cast<const ellwarp_dev *>(impl);
    // an empty matrix still writes its (zero) result: the kernel's grid is at least 1 block
    if (d->k2)
        return d->remap ? launch<true, true, true>(d, d_x, d_y, d_part, max_parts, d_ticket, d_result, stream, 0, d_gate)
                        : launch<true, false, true>(d, d_x, d_y, d_part, max_parts, d_ticket, d_result, stream, 0, d_gate);
    return d->remap ? launch<false, true, true>(d, d_x, d_y, d_part, max_parts, d_ticket, d_result, stream, 0, d_gate)
                    : launch<false, false, true>(d, d_x, d_y, d_part, max_parts, d_ticket, d_result, stream, 0, d_gate);
}

// apply_dot with the dot over rows [0, n_dot) (a rank's owned rows; kLim instantiations: apply_dot's
// kernels above are not touched)
hs_status ellwarp_apply_dot_rows(void *impl, int32_t n_dot, const double *d_x, double *d_y, double *d_part,
                                 int max_parts, unsigned *d_ticket, double *d_result, cudaStream_t stream)
{
    const ellwarp_dev *d = static_cast<const ellwarp_dev *>(impl);
    HS_CHECK(n_dot >= 0 && n_dot <= d->n_rows, HS_ERR_INTERNAL, "ELL-WARP: the dot over %d rows of %d", (int)n_dot,
             (int)d->n_rows);
    if (d->k2)
        return d->remap ? launch<true, true, true, true>(d, d_x, d_y, d_part, max_parts, d_ticket, d_result, stream, n_dot)
                        : launch<true, false, true, true>(d, d_x, d_y, d_part, max_parts, d_ticket, d_result, stream,
                                                          n_dot);
    return d->remap ? launch<false, true, true, true>(d, d_x, d_y, d_part, max_parts, d_ticket, d_result, stream, n_dot)
                    : launch<false, false, true, true>(d, d_x, d_y, d_part, max_parts, d_ticket, d_result, stream,
                                                       n_dot);
}

} // namespace

// `extern` gives these const objects external linkage; backends/cuda/spmv/registry.cu refers to them through
// the X-macro list. The variant travels in the layout, so the six share create/apply/destroy.
extern const hs_gpu_spmv_ops hs_gpu_spmv_ops_ellwarp_k1 = {"ellwarp_k1", ellwarp_create, ellwarp_apply, ellwarp_destroy, ellwarp_apply_dot, ellwarp_create_f32, ellwarp_apply_dot_rows};
extern const hs_gpu_spmv_ops hs_gpu_spmv_ops_ellwarp_k1r = {"ellwarp_k1r", ellwarp_create, ellwarp_apply, ellwarp_destroy, ellwarp_apply_dot, ellwarp_create_f32, ellwarp_apply_dot_rows};
extern const hs_gpu_spmv_ops hs_gpu_spmv_ops_ellwarp_k1rs = {"ellwarp_k1rs", ellwarp_create, ellwarp_apply, ellwarp_destroy, ellwarp_apply_dot, ellwarp_create_f32, ellwarp_apply_dot_rows};
extern const hs_gpu_spmv_ops hs_gpu_spmv_ops_ellwarp_k2 = {"ellwarp_k2", ellwarp_create, ellwarp_apply, ellwarp_destroy, ellwarp_apply_dot, ellwarp_create_f32, ellwarp_apply_dot_rows};
extern const hs_gpu_spmv_ops hs_gpu_spmv_ops_ellwarp_k2r = {"ellwarp_k2r", ellwarp_create, ellwarp_apply, ellwarp_destroy, ellwarp_apply_dot, ellwarp_create_f32, ellwarp_apply_dot_rows};
extern const hs_gpu_spmv_ops hs_gpu_spmv_ops_ellwarp_k2rs = {"ellwarp_k2rs", ellwarp_create, ellwarp_apply, ellwarp_destroy, ellwarp_apply_dot, ellwarp_create_f32, ellwarp_apply_dot_rows};
