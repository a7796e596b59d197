/**
 * @file hs_cuda_check.cuh
 * @brief Error macros for CUDA, cuSPARSE and cuBLAS calls (CUDA-only header). Never compiled out.
 */
#ifndef HS_CUDA_CHECK_CUH
#define HS_CUDA_CHECK_CUH

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include "hs_status.h"

/** Record "<call> failed: <CUDA error>" and return HS_ERR_DEVICE. */
#define HS_CUDA_CALL(expr)                                                                         \
    do {                                                                                           \
        cudaError_t hs_e_ = (expr);                                                                \
        if (hs_e_ != cudaSuccess)                                                                  \
            return hs_error_set(HS_ERR_DEVICE, __FILE__, __LINE__, __func__, "%s failed: %s (%s)", \
                                #expr, cudaGetErrorString(hs_e_), cudaGetErrorName(hs_e_));        \
    } while (0)

/** After every kernel launch. */
#define HS_CUDA_LAUNCH_CHECK(what)                                                                 \
    do {                                                                                           \
        cudaError_t hs_e_ = cudaGetLastError();                                                    \
        if (hs_e_ != cudaSuccess)                                                                  \
            return hs_error_set(HS_ERR_DEVICE, __FILE__, __LINE__, __func__,                       \
                                "launch of %s failed: %s", (what), cudaGetErrorString(hs_e_));     \
    } while (0)

#define HS_CUSPARSE_CALL(expr)                                                                     \
    do {                                                                                           \
        cusparseStatus_t hs_e_ = (expr);                                                           \
        if (hs_e_ != CUSPARSE_STATUS_SUCCESS)                                                      \
            return hs_error_set(HS_ERR_DEVICE, __FILE__, __LINE__, __func__, "%s failed: %s",      \
                                #expr, cusparseGetErrorString(hs_e_));                             \
    } while (0)

#define HS_CUBLAS_CALL(expr)                                                                       \
    do {                                                                                           \
        cublasStatus_t hs_e_ = (expr);                                                             \
        if (hs_e_ != CUBLAS_STATUS_SUCCESS)                                                        \
            return hs_error_set(HS_ERR_DEVICE, __FILE__, __LINE__, __func__,                       \
                                "%s failed: cuBLAS status %d", #expr, (int)hs_e_);                 \
    } while (0)

/**
 * cudaMalloc that names what was being allocated and how much on failure, with the free memory.
 */
static inline hs_status hs_cuda_alloc_(void **p, size_t bytes, const char *what, const char *file,
                                       int line)
{
    *p = NULL;
    cudaError_t e = cudaMalloc(p, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        size_t fr = 0, tot = 0;
        cudaGetLastError();
        cudaMemGetInfo(&fr, &tot);
        return hs_error_set(e == cudaErrorMemoryAllocation ? HS_ERR_MEMORY : HS_ERR_DEVICE, file,
                            line, "cudaMalloc",
                            "GPU allocation of %s (%.1f MiB) failed: %s; %.1f of %.1f MiB free",
                            what, bytes / 1048576.0, cudaGetErrorString(e), fr / 1048576.0,
                            tot / 1048576.0);
    }
    return HS_OK;
}
#define HS_CUDA_ALLOC(ptr, count, what)                                                            \
    hs_cuda_alloc_((void **)&(ptr), sizeof(*(ptr)) * (size_t)(count), (what), __FILE__, __LINE__)

#endif
