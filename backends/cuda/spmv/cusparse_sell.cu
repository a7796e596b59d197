// Device side of cusparse_sell (host side and layout: solvers/spmv_cusparse_sell.c,
// solvers/spmv_sell_layout.h): cuSPARSE's generic SpMV on a sliced ELLPACK matrix, 32 rows per
// slice, the vendor's ELL-family baseline for seed 002's ELL-WARP kernels.
//
// Create, once: upload the slice offsets and column indices (padding -1) of the host layout; the
// handle; cusparseCreateConstSlicedEll(rows, cols, nnz, sellValuesSize = n_slots, sliceSize = 32,
// offsets, columns, values, 32-bit offsets and columns, base 0, FP64) bound to the caller's value
// array (borrowed, refilled in place every Newton iteration); dense-vector descriptors; the
// workspace of cusparseSpMV_bufferSize; cusparseSpMV_preprocess on scratch vectors (pattern-keyed,
// as for cusparse_csr: see backends/cuda/spmv/cusparse.cu). Apply: set the stream, re-point x and y,
// cusparseSpMV with alpha = 1, beta = 0; nothing synchronises the host.
//
// Algorithm: CUSPARSE_SPMV_SELL_ALG1, the only SpMV algorithm cuSPARSE has for sliced ELL
// (CUSPARSE_SPMV_ALG_DEFAULT resolves to it for this format). Determinism: the cusparseSpMV
// documentation promises bit-wise run-to-run identical results only for CSR_ALG2 and COO_ALG2
// ("provides deterministic (bit-wise) results for each run only for CUSPARSE_SPMV_COO_ALG2 and
// CUSPARSE_SPMV_CSR_ALG2 algorithms, and opA == CUSPARSE_OPERATION_NON_TRANSPOSE"), so SELL_ALG1
// carries no documented guarantee. A row lives in one slice, so a kernel without atomics is the
// natural implementation, but that is an observation, not a promise: tests/backends/cuda/test_gpu_spmv.cu
// checks two applies for identical bits on every matrix, and `heartsim bench spmv` reports it.
//
// A matrix without value slots (no rows, or no nonzeros) never reaches cuSPARSE: apply clears y.
//
// Not thread-safe per object: apply re-points descriptors owned by the object.
#include <stdint.h>
#include <stdlib.h>

#include "hs_cuda_check.cuh"
#include "hs_cusparse_spmv.cuh"
#include "hs_gpu_spmv.cuh"
#include "hs_util.h"
#include "spmv_sell_layout.h"

/* the registry entry this file means (solvers/spmv_cusparse_sell.c), named directly, not looked up */
extern "C" const hs_spmv_ops hs_spmv_ops_cusparse_sell;

#if !defined(CUSPARSE_VERSION) || CUSPARSE_VERSION < 12300
#error "cusparse_sell needs cuSPARSE's sliced-ELL SpMV and cusparseSpMV_preprocess (cuSPARSE 12.3, CUDA 12.4, or newer)"
#endif

namespace {

constexpr cusparseSpMVAlg_t kAlg = CUSPARSE_SPMV_SELL_ALG1;

struct sell_dev {
    hs_cusparse_spmv sp;             // handle, descriptors (matrix bound to the caller's d_vals), workspace
    int empty;                       // no value slots: apply only clears y
    int32_t *d_off;                  // [n_slices+1], owned
    int32_t *d_col;                  // [n_slots], owned (-1 in padding)
};

void sell_destroy(void *impl)
{
    sell_dev *c = static_cast<sell_dev *>(impl);
    if (!c) return;
    hs_cusparse_spmv_release(&c->sp);
    cudaFree(c->d_off);
    cudaFree(c->d_col);
    free(c);
}

hs_status sell_init(sell_dev *c, const hs_spmv_layout *lay, const hs_csr *pat, const double *d_vals)
{
    const hs_sell_layout *im = static_cast<const hs_sell_layout *>(lay->impl);
    HS_CHECK(im && lay->ops && lay->ops == &hs_spmv_ops_cusparse_sell,
             HS_ERR_INTERNAL, "cusparse_sell: layout \"%s\" is not a SELL-32 layout",
             lay->ops ? lay->ops->name : "?");
    HS_CHECK(im->slice_off[im->n_slices] == lay->n_slots, HS_ERR_INTERNAL,
             "cusparse_sell: slice offsets end at %d but the layout has %lld slots",
             (int)im->slice_off[im->n_slices], (long long)lay->n_slots);
    c->sp.n_rows = pat->n_rows;
    c->sp.n_cols = pat->n_cols;
    c->empty = lay->n_slots == 0;
    if (c->empty) return HS_OK;
    HS_CHECK(d_vals, HS_ERR_INTERNAL, "cusparse_sell: no device value array");
    HS_CALL(HS_CUDA_ALLOC(c->d_off, (size_t)im->n_slices + 1, "SELL slice offsets"));
    HS_CALL(HS_CUDA_ALLOC(c->d_col, lay->n_slots, "SELL column indices"));
    HS_CUDA_CALL(cudaMemcpy(c->d_off, im->slice_off, sizeof(int32_t) * ((size_t)im->n_slices + 1),
                            cudaMemcpyHostToDevice));
    HS_CUDA_CALL(cudaMemcpy(c->d_col, im->col, sizeof(int32_t) * (size_t)lay->n_slots,
                            cudaMemcpyHostToDevice));
    HS_CALL(hs_cusparse_spmv_begin(&c->sp, pat->n_rows, pat->n_cols, kAlg));
    HS_CUSPARSE_CALL(cusparseCreateConstSlicedEll(&c->sp.mat, pat->n_rows, pat->n_cols, pat->nnz,
                                                  lay->n_slots, HS_SELL_SLICE, c->d_off, c->d_col,
                                                  d_vals, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                                  CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    // Preprocessing is an optimisation cuSPARSE documents for the SpMV algorithms in general; a
    // library without one for sliced ELL may answer NOT_SUPPORTED, which changes nothing.
    return hs_cusparse_spmv_plan(&c->sp, true, "cusparse_sell");
}

hs_status sell_create(const hs_spmv_layout *lay, const hs_csr *pattern, const double *d_vals,
                      void **impl)
{
    *impl = NULL;
    sell_dev *c = NULL;
    HS_CALL(HS_ALLOC(c, 1, "cuSPARSE SELL device SpMV"));
    hs_status st = sell_init(c, lay, pattern, d_vals);
    if (st != HS_OK) {
        sell_destroy(c);
        return st;
    }
    *impl = c;
    return HS_OK;
}

hs_status sell_apply(void *impl, const double *d_x, double *d_y, cudaStream_t stream)
{
    sell_dev *c = static_cast<sell_dev *>(impl);
    if (c->sp.n_rows == 0) return HS_OK;
    if (c->empty) {
        HS_CUDA_CALL(cudaMemsetAsync(d_y, 0, sizeof(double) * (size_t)c->sp.n_rows, stream));
        return HS_OK;
    }
    return hs_cusparse_spmv_apply(&c->sp, d_x, d_y, stream);
}

} // namespace

// `extern`: external linkage for a namespace-scope const (see backends/cuda/spmv/registry.cu).
extern const hs_gpu_spmv_ops hs_gpu_spmv_ops_cusparse_sell = {
    "cusparse_sell", sell_create, sell_apply, sell_destroy, nullptr, nullptr, nullptr};
