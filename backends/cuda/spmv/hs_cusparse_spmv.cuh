/**
 * @file hs_cusparse_spmv.cuh
 * @brief What the two cuSPARSE formats (cusparse_csr, cusparse_sell) share (CUDA-only header): one
 * handle, a matrix descriptor bound once to the caller's value array, dense-vector descriptors
 * re-pointed per apply, and a workspace sized and preprocessed once. The formats only upload their
 * index arrays and create the matrix descriptor between begin and plan.
 */
#ifndef HS_CUSPARSE_SPMV_CUH
#define HS_CUSPARSE_SPMV_CUH

#include <cusparse.h>
#include <stdint.h>

#include "hs_status.h"

struct hs_cusparse_spmv {
    int32_t n_rows, n_cols;
    cusparseSpMVAlg_t alg;
    cusparseHandle_t handle;
    cusparseConstSpMatDescr_t mat; /**< created by the format between begin and plan */
    cusparseDnVecDescr_t vx, vy;   /**< re-pointed per apply */
    void *d_buf;                   /**< workspace, kept: preprocess state lives there */
};

/** @brief Create the handle; the caller then creates s->mat with it. */
hs_status hs_cusparse_spmv_begin(hs_cusparse_spmv *s, int32_t n_rows, int32_t n_cols, cusparseSpMVAlg_t alg);
/**
 * @brief Vector descriptors, workspace and cusparseSpMV_preprocess, once. @p preprocess_optional
 * accepts CUSPARSE_STATUS_NOT_SUPPORTED from preprocess (an optimisation only); @p what names the
 * format in messages.
 */
hs_status hs_cusparse_spmv_plan(hs_cusparse_spmv *s, bool preprocess_optional, const char *what);
/** @brief y = A x on @p stream (asynchronous). */
hs_status hs_cusparse_spmv_apply(hs_cusparse_spmv *s, const double *d_x, double *d_y, cudaStream_t stream);
/** @brief Free what begin/plan (and the format's matrix descriptor) created; safe on partial set-up. */
void hs_cusparse_spmv_release(hs_cusparse_spmv *s);

#endif
