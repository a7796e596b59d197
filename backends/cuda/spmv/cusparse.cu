// Device side of cusparse_csr (host side: solvers/spmv_cusparse.c): cuSPARSE's generic SpMV on
// the CSR arrays as they are, the vendor baseline for the hand-written formats.
//
// Everything that depends only on the pattern is done once at create: the handle, the CSR
// descriptor (32-bit indices, base 0, FP64) bound to the caller's value array, the dense-vector
// descriptors (re-pointed per call with cusparseDnVecSetValues), the workspace from
// cusparseSpMV_bufferSize and cusparseSpMV_preprocess. apply sets the stream, re-points x and y
// and calls cusparseSpMV; nothing synchronises the host.
//
// Algorithm: CUSPARSE_SPMV_CSR_ALG2. The cuSPARSE documentation of cusparseSpMV (algorithm table
// and "properties", docs.nvidia.com/cuda/cusparse, cusparseSpMV()) gives bit-wise deterministic
// results for each run only for CUSPARSE_SPMV_CSR_ALG2 (and COO_ALG2) with opA = NON_TRANSPOSE;
// CSR_ALG1, the default for CSR, carries no such guarantee ("may produce slightly different
// results during different runs with the same input parameters"), and ALG_DEFAULT lets the library
// pick. We want run-to-run identical Newton/CG histories, and the tests check that two applies give
// identical bits. Known issue (NVIDIA cuOpt, cusparse_view.cu): before cuSPARSE 13.0, ALG2 is
// wrong when beta != 0 and every row except the last is empty; we always pass beta = 0.
//
// Preprocess and changing values: the values in d_vals are re-assembled in place every Newton
// iteration (same pointer, same pattern). cuSPARSE keys preprocessing to the sparsity pattern: for
// cusparseSpMM_preprocess the documentation says it "is useful when cusparseSpMM is called multiple
// times with the same sparsity pattern (matA). The values of the matrices (matA, matB, matC) can
// change arbitrarily", and cusparseSpMV_preprocess (cuSPARSE 12.3 / CUDA 12.4) is described the
// same way, pattern-keyed. So preprocess runs once here and is not repeated when values change.
// tests/backends/cuda/test_gpu_spmv.cu checks this on the device: create runs with NaN in d_vals, then the
// values are filled, applied, refilled in place and applied again, each against its reference.
//
// Not thread-safe per object: apply re-points descriptors owned by the object, so one host thread
// (or one stream order) per object.
#include <stdint.h>
#include <stdlib.h>

#include "hs_cuda_check.cuh"
#include "hs_cusparse_spmv.cuh"
#include "hs_gpu_spmv.cuh"
#include "hs_util.h"

#if !defined(CUSPARSE_VERSION) || CUSPARSE_VERSION < 12300
#error "cusparse_csr needs cusparseSpMV_preprocess (cuSPARSE 12.3, CUDA 12.4, or newer)"
#endif

namespace {

constexpr cusparseSpMVAlg_t kAlg = CUSPARSE_SPMV_CSR_ALG2;

struct cusp_dev {
    hs_cusparse_spmv sp;             // handle, descriptors (matrix bound to the caller's d_vals), workspace
    int32_t *d_row_ptr;              // [n_rows+1], owned
    int32_t *d_col;                  // [nnz], owned
};

void cusp_destroy(void *impl)
{
    cusp_dev *c = static_cast<cusp_dev *>(impl);
    if (!c) return;
    hs_cusparse_spmv_release(&c->sp);
    cudaFree(c->d_row_ptr);
    cudaFree(c->d_col);
    free(c);
}

hs_status cusp_init(cusp_dev *c, const hs_spmv_layout *lay, const hs_csr *pat, const double *d_vals)
{
    HS_CHECK(lay->n_slots == pat->nnz, HS_ERR_INTERNAL,
             "cusparse_csr: layout has %lld slots but the pattern %d nonzeros",
             (long long)lay->n_slots, (int)pat->nnz);
    for (int32_t k = 0; k < pat->nnz; ++k)
        HS_CHECK(lay->slot_of_nnz[k] == k, HS_ERR_INTERNAL,
                 "cusparse_csr: layout \"%s\" is not the CSR identity (slot of nonzero %d is %lld)",
                 lay->ops->name, (int)k, (long long)lay->slot_of_nnz[k]);
    HS_CHECK(d_vals || pat->nnz == 0, HS_ERR_INTERNAL, "cusparse_csr: no device value array");
    HS_CALL(HS_CUDA_ALLOC(c->d_row_ptr, (size_t)pat->n_rows + 1, "CSR row pointers"));
    HS_CALL(HS_CUDA_ALLOC(c->d_col, pat->nnz, "CSR column indices"));
    HS_CUDA_CALL(cudaMemcpy(c->d_row_ptr, pat->row_ptr, sizeof(int32_t) * ((size_t)pat->n_rows + 1),
                            cudaMemcpyHostToDevice));
    HS_CUDA_CALL(cudaMemcpy(c->d_col, pat->col, sizeof(int32_t) * (size_t)pat->nnz,
                            cudaMemcpyHostToDevice));
    HS_CALL(hs_cusparse_spmv_begin(&c->sp, pat->n_rows, pat->n_cols, kAlg));
    HS_CUSPARSE_CALL(cusparseCreateConstCsr(&c->sp.mat, pat->n_rows, pat->n_cols, pat->nnz,
                                            c->d_row_ptr, c->d_col, d_vals, CUSPARSE_INDEX_32I,
                                            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                            CUDA_R_64F));
    return hs_cusparse_spmv_plan(&c->sp, false, "cusparse_csr");
}

hs_status cusp_create(const hs_spmv_layout *lay, const hs_csr *pattern, const double *d_vals,
                      void **impl)
{
    *impl = NULL;
    cusp_dev *c = NULL;
    HS_CALL(HS_ALLOC(c, 1, "cuSPARSE device SpMV"));
    hs_status st = cusp_init(c, lay, pattern, d_vals);
    if (st != HS_OK) {
        cusp_destroy(c);
        return st;
    }
    *impl = c;
    return HS_OK;
}

hs_status cusp_apply(void *impl, const double *d_x, double *d_y, cudaStream_t stream)
{
    cusp_dev *c = static_cast<cusp_dev *>(impl);
    if (c->sp.n_rows == 0) return HS_OK;
    return hs_cusparse_spmv_apply(&c->sp, d_x, d_y, stream);
}

} // namespace

// `extern`: external linkage for a namespace-scope const (see backends/cuda/spmv/registry.cu).
extern const hs_gpu_spmv_ops hs_gpu_spmv_ops_cusparse_csr = {
    "cusparse_csr", cusp_create, cusp_apply, cusp_destroy, nullptr, nullptr, nullptr};
