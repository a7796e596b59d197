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
// tests/gpu/test_gpu_spmv.cu checks this on the device: create runs with NaN in d_vals, then the
// values are filled, applied, refilled in place and applied again, each against its reference.
//
// Not thread-safe per object: apply re-points descriptors owned by the object, so one host thread
// (or one stream order) per object.
#include <stdint.h>
#include <stdlib.h>

#include "hs_cuda_check.cuh"
#include "hs_gpu_spmv.cuh"
#include "hs_util.h"

#if !defined(CUSPARSE_VERSION) || CUSPARSE_VERSION < 12300
#error "cusparse_csr needs cusparseSpMV_preprocess (cuSPARSE 12.3, CUDA 12.4, or newer)"
#endif

namespace {

constexpr cusparseSpMVAlg_t kAlg = CUSPARSE_SPMV_CSR_ALG2;

struct cusp_dev {
    int32_t n_rows, n_cols;
    int32_t *d_row_ptr;              // [n_rows+1], owned
    int32_t *d_col;                  // [nnz], owned
    void *d_buf;                     // cuSPARSE workspace, owned (kept: preprocess state lives there)
    cusparseHandle_t handle;
    cusparseConstSpMatDescr_t mat;   // bound to the caller's d_vals (borrowed)
    cusparseDnVecDescr_t vx, vy;     // re-pointed per apply
};

void cusp_destroy(void *impl)
{
    cusp_dev *c = static_cast<cusp_dev *>(impl);
    if (!c) return;
    // Nothing to report from a destructor; each call accepts what create may have left NULL.
    if (c->vx) cusparseDestroyDnVec(c->vx);
    if (c->vy) cusparseDestroyDnVec(c->vy);
    if (c->mat) cusparseDestroySpMat(c->mat);
    if (c->handle) cusparseDestroy(c->handle);
    cudaFree(c->d_buf);
    cudaFree(c->d_row_ptr);
    cudaFree(c->d_col);
    free(c);
}

// bufferSize and preprocess need valid vector descriptors; point them at scratch vectors that
// live only for the duration of create.
hs_status cusp_plan(cusp_dev *c, double *d_tx, double *d_ty)
{
    const double one = 1.0, zero = 0.0;
    HS_CUSPARSE_CALL(cusparseDnVecSetValues(c->vx, d_tx));
    HS_CUSPARSE_CALL(cusparseDnVecSetValues(c->vy, d_ty));
    size_t bytes = 0;
    HS_CUSPARSE_CALL(cusparseSpMV_bufferSize(c->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                             c->mat, c->vx, &zero, c->vy, CUDA_R_64F, kAlg,
                                             &bytes));
    HS_CALL(hs_cuda_alloc_(&c->d_buf, bytes, "cuSPARSE SpMV workspace", __FILE__, __LINE__));
    HS_CUSPARSE_CALL(cusparseSpMV_preprocess(c->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                             c->mat, c->vx, &zero, c->vy, CUDA_R_64F, kAlg,
                                             c->d_buf));
    // The scratch vectors are freed right after: make sure preprocess is done with them.
    HS_CUDA_CALL(cudaDeviceSynchronize());
    return HS_OK;
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
    c->n_rows = pat->n_rows;
    c->n_cols = pat->n_cols;
    HS_CALL(HS_CUDA_ALLOC(c->d_row_ptr, (size_t)pat->n_rows + 1, "CSR row pointers"));
    HS_CALL(HS_CUDA_ALLOC(c->d_col, pat->nnz, "CSR column indices"));
    HS_CUDA_CALL(cudaMemcpy(c->d_row_ptr, pat->row_ptr, sizeof(int32_t) * ((size_t)pat->n_rows + 1),
                            cudaMemcpyHostToDevice));
    HS_CUDA_CALL(cudaMemcpy(c->d_col, pat->col, sizeof(int32_t) * (size_t)pat->nnz,
                            cudaMemcpyHostToDevice));
    HS_CUSPARSE_CALL(cusparseCreate(&c->handle));
    HS_CUSPARSE_CALL(cusparseCreateConstCsr(&c->mat, pat->n_rows, pat->n_cols, pat->nnz,
                                            c->d_row_ptr, c->d_col, d_vals, CUSPARSE_INDEX_32I,
                                            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                            CUDA_R_64F));
    double *d_tx = NULL, *d_ty = NULL;
    hs_status st = HS_CUDA_ALLOC(d_tx, pat->n_cols, "cuSPARSE planning vector x");
    if (st == HS_OK) st = HS_CUDA_ALLOC(d_ty, pat->n_rows, "cuSPARSE planning vector y");
    if (st == HS_OK) {
        cusparseStatus_t e = cusparseCreateDnVec(&c->vx, pat->n_cols, d_tx, CUDA_R_64F);
        if (e == CUSPARSE_STATUS_SUCCESS)
            e = cusparseCreateDnVec(&c->vy, pat->n_rows, d_ty, CUDA_R_64F);
        if (e != CUSPARSE_STATUS_SUCCESS)
            st = HS_FAIL(HS_ERR_DEVICE, "cusparseCreateDnVec failed: %s", cusparseGetErrorString(e));
    }
    if (st == HS_OK) st = cusp_plan(c, d_tx, d_ty);
    cudaFree(d_tx);
    cudaFree(d_ty);
    return st;
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
    if (c->n_rows == 0) return HS_OK;
    const double one = 1.0, zero = 0.0; // host pointer mode: read at call time
    HS_CUSPARSE_CALL(cusparseSetStream(c->handle, stream));
    // x is only read; the descriptor type is the non-const one so that it can be re-pointed.
    HS_CUSPARSE_CALL(cusparseDnVecSetValues(c->vx, const_cast<double *>(d_x)));
    HS_CUSPARSE_CALL(cusparseDnVecSetValues(c->vy, d_y));
    HS_CUSPARSE_CALL(cusparseSpMV(c->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, c->mat, c->vx,
                                  &zero, c->vy, CUDA_R_64F, kAlg, c->d_buf));
    return HS_OK;
}

} // namespace

// `extern`: external linkage for a namespace-scope const (see gpu/spmv_registry.cu).
extern const hs_gpu_spmv_ops hs_gpu_spmv_ops_cusparse_csr = {
    "cusparse_csr", cusp_create, cusp_apply, cusp_destroy};
