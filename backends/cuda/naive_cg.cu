// The naive cuSPARSE + cuBLAS Jacobi-PCG baseline of `heartsim bench step` (see hs_naive_cg.cuh).
#include <algorithm>
#include <vector>

#include "hs_cuda_check.cuh"
#include "hs_naive_cg.cuh"

__global__ static void k_jacobi(int32_t n, const double *dinv, const double *r, double *z)
{
    int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = dinv[i] * r[i];
}

namespace {
struct naive {
    cusparseHandle_t sp = nullptr;
    cublasHandle_t bl = nullptr;
    cusparseSpMatDescr_t A = nullptr;
    cusparseDnVecDescr_t vp = nullptr, vq = nullptr;
    void *buf = nullptr;
    double *x = nullptr, *r = nullptr, *z = nullptr, *p = nullptr, *q = nullptr;
    ~naive()
    {
        if (A) cusparseDestroySpMat(A);
        if (vp) cusparseDestroyDnVec(vp);
        if (vq) cusparseDestroyDnVec(vq);
        if (sp) cusparseDestroy(sp);
        if (bl) cublasDestroy(bl);
        cudaFree(buf); cudaFree(x); cudaFree(r); cudaFree(z); cudaFree(p); cudaFree(q);
    }
};
}

static hs_status run_iters(naive &s, int32_t n, const double *dinv, const double *b, int iters)
{
    const double one = 1.0, zero = 0.0;
    HS_CUDA_CALL(cudaMemset(s.x, 0, sizeof(double) * n));
    HS_CUDA_CALL(cudaMemcpy(s.r, b, sizeof(double) * n, cudaMemcpyDeviceToDevice));
    int nb = (n + 255) / 256;
    k_jacobi<<<nb, 256>>>(n, dinv, s.r, s.z);
    HS_CUDA_LAUNCH_CHECK("k_jacobi");
    HS_CUBLAS_CALL(cublasDcopy(s.bl, n, s.z, 1, s.p, 1));
    double rz = 0.0;
    HS_CUBLAS_CALL(cublasDdot(s.bl, n, s.r, 1, s.z, 1, &rz));
    for (int it = 0; it < iters; ++it) {
        HS_CUSPARSE_CALL(cusparseSpMV(s.sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, s.A, s.vp, &zero, s.vq,
                                      CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG2, s.buf));
        double pq = 0.0;
        HS_CUBLAS_CALL(cublasDdot(s.bl, n, s.p, 1, s.q, 1, &pq));
        double alpha = rz / pq, malpha = -alpha;
        HS_CUBLAS_CALL(cublasDaxpy(s.bl, n, &alpha, s.p, 1, s.x, 1));
        HS_CUBLAS_CALL(cublasDaxpy(s.bl, n, &malpha, s.q, 1, s.r, 1));
        k_jacobi<<<nb, 256>>>(n, dinv, s.r, s.z);
        HS_CUDA_LAUNCH_CHECK("k_jacobi");
        double rz_new = 0.0;
        HS_CUBLAS_CALL(cublasDdot(s.bl, n, s.r, 1, s.z, 1, &rz_new));
        double beta = rz_new / rz;
        rz = rz_new;
        HS_CUBLAS_CALL(cublasDscal(s.bl, n, &beta, s.p, 1));
        HS_CUBLAS_CALL(cublasDaxpy(s.bl, n, &one, s.z, 1, s.p, 1));
    }
    HS_CUDA_CALL(cudaDeviceSynchronize());
    return HS_OK;
}

hs_status hs_naive_cg_bench(int32_t n, int32_t nnz, const int32_t *d_row_ptr, const int32_t *d_col,
                            const double *d_val, const double *d_dinv, const double *d_b, int iters,
                            int reps, double *sec_per_iter)
{
    naive s;
    HS_CUSPARSE_CALL(cusparseCreate(&s.sp));
    HS_CUBLAS_CALL(cublasCreate(&s.bl));
    HS_CALL(HS_CUDA_ALLOC(s.x, n, "naive CG x"));
    HS_CALL(HS_CUDA_ALLOC(s.r, n, "naive CG r"));
    HS_CALL(HS_CUDA_ALLOC(s.z, n, "naive CG z"));
    HS_CALL(HS_CUDA_ALLOC(s.p, n, "naive CG p"));
    HS_CALL(HS_CUDA_ALLOC(s.q, n, "naive CG q"));
    HS_CUSPARSE_CALL(cusparseCreateCsr(&s.A, n, n, nnz, (void *)d_row_ptr, (void *)d_col, (void *)d_val,
                                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                       CUDA_R_64F));
    HS_CUSPARSE_CALL(cusparseCreateDnVec(&s.vp, n, s.p, CUDA_R_64F));
    HS_CUSPARSE_CALL(cusparseCreateDnVec(&s.vq, n, s.q, CUDA_R_64F));
    const double one = 1.0, zero = 0.0;
    size_t bytes = 0;
    HS_CUSPARSE_CALL(cusparseSpMV_bufferSize(s.sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, s.A, s.vp, &zero,
                                             s.vq, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG2, &bytes));
    HS_CALL(hs_cuda_alloc_(&s.buf, bytes, "naive CG SpMV buffer", __FILE__, __LINE__));
    HS_CALL(run_iters(s, n, d_dinv, d_b, iters)); /* warm-up */
    std::vector<double> t(reps);
    cudaEvent_t e0, e1;
    HS_CUDA_CALL(cudaEventCreate(&e0));
    HS_CUDA_CALL(cudaEventCreate(&e1));
    for (int k = 0; k < reps; ++k) {
        /* host-synchronous by construction: events bracket the whole loop */
        HS_CUDA_CALL(cudaEventRecord(e0));
        HS_CALL(run_iters(s, n, d_dinv, d_b, iters));
        HS_CUDA_CALL(cudaEventRecord(e1));
        HS_CUDA_CALL(cudaEventSynchronize(e1));
        float ms = 0.0f;
        cudaEventElapsedTime(&ms, e0, e1);
        t[k] = 1e-3 * ms / iters;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    std::sort(t.begin(), t.end());
    *sec_per_iter = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    return HS_OK;
}
