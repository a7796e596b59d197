// Device kernels of the CSR formats csr_scalar and csr_vector (host side: solvers/spmv_csr.c).
// Both read the CSR arrays as they are: the layout's slot map is the identity, so the value array
// bound at create is CSR's val [nnz]; row_ptr and col are uploaded from the pattern at create.
// Each kernel sums a row in exactly the order of its CPU reference; the device may contract
// v*x + s into one fma, so the two agree to within rounding of the products, inside the bound
// 2 gamma_m (|A||x|)_i the tests use.
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "hs_cuda_check.cuh"
#include "hs_gpu_reduce.cuh"
#include "hs_gpu_spmv.cuh"
#include "hs_util.h"

namespace {

constexpr int kBlock = 256;           // threads per block (8 warps)
constexpr int kWarp = 32;
constexpr unsigned kFullMask = 0xffffffffu;

struct csr_dev {
    int32_t n_rows;
    int32_t *d_row_ptr;    // [n_rows+1], owned
    int32_t *d_col;        // [nnz], owned
    const void *d_vals;    // [nnz] double, or float when f32; borrowed: the caller refills it in place
    int f32;
};

// csr_scalar: seed 000 sec. IV-A (the one-thread-per-row CSR kernel it compares against, after
// Bell & Garland, ref. [9] there). Thread i runs through row i in order k = row_ptr[i] ..
// row_ptr[i+1]-1, like the CPU reference. Grid-stride, so any grid size is correct.
// kDot: also y . x (Chronopoulos-Gear CG) into *result, in a fixed order (hs_dot_finish).
// V: the stored value type (float values are widened before their product; sums stay double).
template <bool kDot, typename V>
__global__ void __launch_bounds__(kBlock)
csr_scalar_kernel(int32_t n_rows, const int32_t *__restrict__ row_ptr,
                  const int32_t *__restrict__ col, const V *__restrict__ val,
                  const double *__restrict__ x, double *__restrict__ y, double *__restrict__ part,
                  unsigned *ticket, double *result, const int *gate)
{
    if (kDot && gate && *gate) return; // the solve stopped (apply_dot's d_gate): uniform over the grid
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    double dot = 0.0;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n_rows; i += stride) {
        const int32_t k0 = __ldg(row_ptr + i), k1 = __ldg(row_ptr + i + 1);
        double s = 0.0;
        for (int32_t k = k0; k < k1; ++k) s += (double)__ldg(val + k) * __ldg(x + __ldg(col + k));
        y[i] = s;
        if (kDot) dot += s * __ldg(x + i);
    }
    if (kDot) {
        __shared__ double sh[32];
        hs_dot_finish(dot, part, ticket, result, sh);
    }
}

// csr_vector: seed 000 sec. IV-A, "assigning a warp to each row" (Bell & Garland's vector CSR,
// ref. [9] there), with the shared-memory reduction replaced by register shuffles. Lane l sums
// entries k0+l, k0+l+32, ... in order (coalesced val/col reads across the warp); then a butterfly
// xor-shuffle tree with offsets 16, 8, 4, 2, 1 leaves the row sum in every lane, and lane 0 writes
// it. The CPU reference (solvers/spmv_csr.c) forms lane[l] + lane[l^off] at each level, the same
// IEEE additions in the same tree. The loop bound i is uniform across the warp, so the full mask
// is always valid.
template <typename V>
__global__ void __launch_bounds__(kBlock)
csr_vector_kernel(int32_t n_rows, const int32_t *__restrict__ row_ptr,
                  const int32_t *__restrict__ col, const V *__restrict__ val,
                  const double *__restrict__ x, double *__restrict__ y)
{
    const int lane = threadIdx.x & (kWarp - 1);
    const int64_t warps = ((int64_t)gridDim.x * blockDim.x) / kWarp;
    for (int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / kWarp; i < n_rows;
         i += warps) {
        const int64_t k0 = __ldg(row_ptr + i), k1 = __ldg(row_ptr + i + 1); // one broadcast load
        double s = 0.0;
        for (int64_t k = k0 + lane; k < k1; k += kWarp)
            s += (double)__ldg(val + k) * __ldg(x + __ldg(col + k));
#pragma unroll
        for (int off = kWarp / 2; off > 0; off >>= 1) s += __shfl_xor_sync(kFullMask, s, off);
        if (lane == 0) y[i] = s;
    }
}

void csr_destroy(void *impl)
{
    csr_dev *c = static_cast<csr_dev *>(impl);
    if (!c) return;
    cudaFree(c->d_row_ptr); // nothing to report from a destructor; NULL is a no-op
    cudaFree(c->d_col);
    free(c);
}

hs_status csr_init(csr_dev *c, const hs_spmv_layout *lay, const hs_csr *pat, const void *d_vals, int f32)
{
    HS_CHECK(lay->n_slots == pat->nnz, HS_ERR_INTERNAL,
             "CSR device SpMV: layout has %lld slots but the pattern %d nonzeros",
             (long long)lay->n_slots, (int)pat->nnz);
    for (int32_t k = 0; k < pat->nnz; ++k)
        HS_CHECK(lay->slot_of_nnz[k] == k, HS_ERR_INTERNAL,
                 "CSR device SpMV: layout \"%s\" is not the CSR identity (slot of nonzero %d is %lld)",
                 lay->ops->name, (int)k, (long long)lay->slot_of_nnz[k]);
    HS_CHECK(d_vals || pat->nnz == 0, HS_ERR_INTERNAL, "CSR device SpMV: no device value array");
    c->n_rows = pat->n_rows;
    c->d_vals = d_vals;
    c->f32 = f32;
    HS_CALL(HS_CUDA_ALLOC(c->d_row_ptr, (size_t)pat->n_rows + 1, "CSR row pointers"));
    HS_CALL(HS_CUDA_ALLOC(c->d_col, pat->nnz, "CSR column indices"));
    HS_CUDA_CALL(cudaMemcpy(c->d_row_ptr, pat->row_ptr, sizeof(int32_t) * ((size_t)pat->n_rows + 1),
                            cudaMemcpyHostToDevice));
    HS_CUDA_CALL(cudaMemcpy(c->d_col, pat->col, sizeof(int32_t) * (size_t)pat->nnz,
                            cudaMemcpyHostToDevice));
    return HS_OK;
}

hs_status csr_create_any(const hs_spmv_layout *lay, const hs_csr *pattern, const void *d_vals, int f32,
                         void **impl)
{
    *impl = NULL;
    csr_dev *c = NULL;
    HS_CALL(HS_ALLOC(c, 1, "CSR device SpMV"));
    hs_status st = csr_init(c, lay, pattern, d_vals, f32);
    if (st != HS_OK) {
        csr_destroy(c);
        return st;
    }
    *impl = c;
    return HS_OK;
}

hs_status csr_create(const hs_spmv_layout *lay, const hs_csr *pattern, const double *d_vals, void **impl)
{
    return csr_create_any(lay, pattern, d_vals, 0, impl);
}

hs_status csr_create_f32(const hs_spmv_layout *lay, const hs_csr *pattern, const float *d_vals, void **impl)
{
    return csr_create_any(lay, pattern, d_vals, 1, impl);
}

// Blocks so that every row (scalar) or every warp-row (vector) gets its own thread/warp; the
// kernels are grid-stride, so clamping to INT_MAX never drops rows.
unsigned grid_for(int64_t threads)
{
    int64_t b = (threads + kBlock - 1) / kBlock;
    return (unsigned)(b > INT_MAX ? INT_MAX : b);
}

template <bool kDot, typename V>
hs_status launch_scalar(const csr_dev *c, unsigned grid, const double *d_x, double *d_y, double *d_part,
                        unsigned *d_ticket, double *d_result, cudaStream_t stream, const int *d_gate = nullptr)
{
    csr_scalar_kernel<kDot, V><<<grid, kBlock, 0, stream>>>(c->n_rows, c->d_row_ptr, c->d_col,
                                                            static_cast<const V *>(c->d_vals), d_x, d_y, d_part,
                                                            d_ticket, d_result, d_gate);
    HS_CUDA_LAUNCH_CHECK(kDot ? "csr_scalar_kernel<dot>" : "csr_scalar_kernel");
    return HS_OK;
}

hs_status csr_scalar_apply(void *impl, const double *d_x, double *d_y, cudaStream_t stream)
{
    const csr_dev *c = static_cast<const csr_dev *>(impl);
    if (c->n_rows == 0) return HS_OK;
    const unsigned g = grid_for(c->n_rows);
    return c->f32 ? launch_scalar<false, float>(c, g, d_x, d_y, nullptr, nullptr, nullptr, stream)
                  : launch_scalar<false, double>(c, g, d_x, d_y, nullptr, nullptr, nullptr, stream);
}

hs_status csr_scalar_apply_dot(void *impl, const double *d_x, double *d_y, double *d_part, int max_parts,
                               unsigned *d_ticket, double *d_result, const int *d_gate, cudaStream_t stream)
{
    const csr_dev *c = static_cast<const csr_dev *>(impl);
    unsigned grid = grid_for(c->n_rows);
    if (grid > (unsigned)max_parts) grid = (unsigned)max_parts;
    if (grid < 1) grid = 1;
    return c->f32 ? launch_scalar<true, float>(c, grid, d_x, d_y, d_part, d_ticket, d_result, stream, d_gate)
                  : launch_scalar<true, double>(c, grid, d_x, d_y, d_part, d_ticket, d_result, stream, d_gate);
}

template <typename V>
hs_status launch_vector(const csr_dev *c, const double *d_x, double *d_y, cudaStream_t stream)
{
    csr_vector_kernel<V><<<grid_for((int64_t)c->n_rows * kWarp), kBlock, 0, stream>>>(
        c->n_rows, c->d_row_ptr, c->d_col, static_cast<const V *>(c->d_vals), d_x, d_y);
    HS_CUDA_LAUNCH_CHECK("csr_vector_kernel");
    return HS_OK;
}

hs_status csr_vector_apply(void *impl, const double *d_x, double *d_y, cudaStream_t stream)
{
    const csr_dev *c = static_cast<const csr_dev *>(impl);
    if (c->n_rows == 0) return HS_OK;
    return c->f32 ? launch_vector<float>(c, d_x, d_y, stream) : launch_vector<double>(c, d_x, d_y, stream);
}

} // namespace

// `extern` gives these const objects external linkage (a namespace-scope const is internal in C++);
// backends/cuda/spmv/registry.cu refers to them through the X-macro list.
extern const hs_gpu_spmv_ops hs_gpu_spmv_ops_csr_scalar = {
    "csr_scalar", csr_create, csr_scalar_apply, csr_destroy, csr_scalar_apply_dot, csr_create_f32, nullptr};
extern const hs_gpu_spmv_ops hs_gpu_spmv_ops_csr_vector = {
    "csr_vector", csr_create, csr_vector_apply, csr_destroy, nullptr, csr_create_f32, nullptr};
