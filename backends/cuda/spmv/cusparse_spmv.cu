// The cuSPARSE plumbing shared by cusparse_csr and cusparse_sell (see hs_cusparse_spmv.cuh).
#include "hs_cuda_check.cuh"
#include "hs_cusparse_spmv.cuh"

hs_status hs_cusparse_spmv_begin(hs_cusparse_spmv *s, int32_t n_rows, int32_t n_cols, cusparseSpMVAlg_t alg)
{
    s->n_rows = n_rows;
    s->n_cols = n_cols;
    s->alg = alg;
    HS_CUSPARSE_CALL(cusparseCreate(&s->handle));
    return HS_OK;
}

/* Size the workspace and preprocess against scratch vectors (x, y themselves are not known yet). */
static hs_status plan_with(hs_cusparse_spmv *s, double *d_tx, double *d_ty, bool preprocess_optional,
                           const char *what)
{
    const double one = 1.0, zero = 0.0;
    HS_CUSPARSE_CALL(cusparseCreateDnVec(&s->vx, s->n_cols, d_tx, CUDA_R_64F));
    HS_CUSPARSE_CALL(cusparseCreateDnVec(&s->vy, s->n_rows, d_ty, CUDA_R_64F));
    size_t bytes = 0;
    HS_CUSPARSE_CALL(cusparseSpMV_bufferSize(s->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, s->mat, s->vx,
                                             &zero, s->vy, CUDA_R_64F, s->alg, &bytes));
    HS_CALL(hs_cuda_alloc_(&s->d_buf, bytes, "cuSPARSE SpMV workspace", __FILE__, __LINE__));
    // Preprocess depends on the sparsity pattern only, so it stays valid while the values change in
    // place every Newton iteration (cuSPARSE's documentation of the generic SpMV/SpMM preprocess).
    const cusparseStatus_t e = cusparseSpMV_preprocess(s->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, s->mat,
                                                       s->vx, &zero, s->vy, CUDA_R_64F, s->alg, s->d_buf);
    HS_CHECK(e == CUSPARSE_STATUS_SUCCESS || (preprocess_optional && e == CUSPARSE_STATUS_NOT_SUPPORTED),
             HS_ERR_DEVICE, "%s: cusparseSpMV_preprocess failed: %s", what, cusparseGetErrorString(e));
    HS_CUDA_CALL(cudaDeviceSynchronize()); // the scratch vectors are freed right after
    return HS_OK;
}

hs_status hs_cusparse_spmv_plan(hs_cusparse_spmv *s, bool preprocess_optional, const char *what)
{
    double *d_tx = NULL, *d_ty = NULL;
    hs_status st = HS_CUDA_ALLOC(d_tx, s->n_cols, "cuSPARSE planning vector x");
    if (st == HS_OK) st = HS_CUDA_ALLOC(d_ty, s->n_rows, "cuSPARSE planning vector y");
    if (st == HS_OK) st = plan_with(s, d_tx, d_ty, preprocess_optional, what);
    cudaFree(d_tx);
    cudaFree(d_ty);
    return st;
}

hs_status hs_cusparse_spmv_apply(hs_cusparse_spmv *s, const double *d_x, double *d_y, cudaStream_t stream)
{
    const double one = 1.0, zero = 0.0; // host pointer mode: read at call time
    HS_CUSPARSE_CALL(cusparseSetStream(s->handle, stream));
    // x is only read; the descriptor type is the non-const one so that it can be re-pointed.
    HS_CUSPARSE_CALL(cusparseDnVecSetValues(s->vx, const_cast<double *>(d_x)));
    HS_CUSPARSE_CALL(cusparseDnVecSetValues(s->vy, d_y));
    HS_CUSPARSE_CALL(cusparseSpMV(s->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, s->mat, s->vx, &zero, s->vy,
                                  CUDA_R_64F, s->alg, s->d_buf));
    return HS_OK;
}

void hs_cusparse_spmv_release(hs_cusparse_spmv *s)
{
    // Nothing to report from a destructor; each call accepts what a partial set-up left NULL.
    if (s->vx) cusparseDestroyDnVec(s->vx);
    if (s->vy) cusparseDestroyDnVec(s->vy);
    if (s->mat) cusparseDestroySpMat(s->mat);
    if (s->handle) cusparseDestroy(s->handle);
    cudaFree(s->d_buf);
    s->vx = s->vy = NULL;
    s->mat = NULL;
    s->handle = NULL;
    s->d_buf = NULL;
}
