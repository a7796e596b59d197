/**
 * @file hs_test_gpu_cg.cuh
 * @brief What the device CG tests share (test_gpu_cg.cu, test_gpu_cg_sstep.cu): the CUDA check macro,
 * the 2-D grid test matrices, a device system (matrix in a format, Jacobi inverse, b, x) and a
 * solve captured as a CUDA graph. Test code only.
 */
#ifndef HS_TEST_GPU_CG_CUH
#define HS_TEST_GPU_CG_CUH

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#include "hs_cg.h"
#include "hs_csr.h"
#include "hs_cuda.h"
#include "hs_gpu_cg.cuh"
#include "hs_gpu_spmv.cuh"
#include "hs_spmv.h"
#include "hs_test.h"

#define T_CUDA(x)                                                                                  \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        HS_TEST_CHECK(e_ == cudaSuccess, "%s: %s", #x, cudaGetErrorString(e_));                   \
    } while (0)

// 7-point operator on an m^3 grid with coefficients varying in space plus a shift sigma: SPD with
// condition number <= (12 c_max + sigma) / sigma.
static hs_csr *grid_matrix(int m, double sigma)
{
    const int n = m * m * m;
    hs_csr *a = nullptr;
    hs_csr_create(n, n, 7 * n, &a);
    int k = 0;
    auto coef = [m](int i, int j) { // symmetric edge coefficient in [0.5, 1.5]
        int lo = i < j ? i : j, hi = i < j ? j : i;
        return 1.0 + 0.5 * sin(0.37 * lo + 0.11 * hi + 0.05 * m);
    };
    for (int z = 0; z < m; ++z)
        for (int y = 0; y < m; ++y)
            for (int x = 0; x < m; ++x) {
                int i = (z * m + y) * m + x;
                a->row_ptr[i] = k;
                int nb[6], nn = 0;
                if (z > 0) nb[nn++] = i - m * m;
                if (y > 0) nb[nn++] = i - m;
                if (x > 0) nb[nn++] = i - 1;
                if (x < m - 1) nb[nn++] = i + 1;
                if (y < m - 1) nb[nn++] = i + m;
                if (z < m - 1) nb[nn++] = i + m * m;
                double diag = sigma;
                for (int q = 0; q < nn; ++q) diag += coef(i, nb[q]);
                diag += 6 - nn; // Dirichlet neighbours outside the grid
                int q = 0;
                for (; q < nn && nb[q] < i; ++q) { a->col[k] = nb[q]; a->val[k++] = -coef(i, nb[q]); }
                a->col[k] = i; a->val[k++] = diag;
                for (; q < nn; ++q) { a->col[k] = nb[q]; a->val[k++] = -coef(i, nb[q]); }
            }
    a->row_ptr[n] = k;
    a->nnz = k;
    return a;
}

static void csr_mv(void *ctx, const double *x, double *y) { hs_csr_spmv((const hs_csr *)ctx, x, y); }

static double rel_diff(int n, const double *a, const double *b)
{
    double d = 0, s = 0;
    for (int i = 0; i < n; ++i) { d += (a[i] - b[i]) * (a[i] - b[i]); s += b[i] * b[i]; }
    return sqrt(d / s);
}

struct dev_system {
    hs_spmv_layout *lay = nullptr;
    hs_gpu_spmv *spmv = nullptr;
    double *vals = nullptr, *dinv = nullptr, *b = nullptr, *x = nullptr, *res = nullptr;
};

static bool dev_system_create(const char *kernel, const hs_csr *a, const double *dinv, const double *b, dev_system *d)
{
    const hs_spmv_ops *o = hs_spmv_find(kernel);
    HS_TEST_CHECK(o != nullptr, "kernel %s not registered", kernel);
    if (!o) return false;
    HS_TEST_OK(hs_spmv_layout_create(o, a, NULL, &d->lay));
    if (!d->lay) return false;
    const int n = a->n_rows;
    double *vf = (double *)malloc(sizeof(double) * (size_t)d->lay->n_slots);
    hs_spmv_layout_scatter(d->lay, a->nnz, a->val, vf);
    T_CUDA(cudaMalloc(&d->vals, sizeof(double) * (size_t)d->lay->n_slots));
    T_CUDA(cudaMemcpy(d->vals, vf, sizeof(double) * (size_t)d->lay->n_slots, cudaMemcpyHostToDevice));
    free(vf);
    T_CUDA(cudaMalloc(&d->dinv, sizeof(double) * n));
    T_CUDA(cudaMalloc(&d->b, sizeof(double) * n));
    T_CUDA(cudaMalloc(&d->x, sizeof(double) * n));
    T_CUDA(cudaMalloc(&d->res, sizeof(double)));
    T_CUDA(cudaMemcpy(d->dinv, dinv, sizeof(double) * n, cudaMemcpyHostToDevice));
    T_CUDA(cudaMemcpy(d->b, b, sizeof(double) * n, cudaMemcpyHostToDevice));
    HS_TEST_OK(hs_gpu_spmv_create(d->lay, a, d->vals, &d->spmv));
    T_CUDA(cudaDeviceSynchronize());
    return d->spmv != nullptr;
}

static void dev_system_destroy(dev_system *d)
{
    hs_gpu_spmv_destroy(&d->spmv);
    hs_spmv_layout_destroy(&d->lay);
    cudaFree(d->vals); cudaFree(d->dinv); cudaFree(d->b); cudaFree(d->x); cudaFree(d->res);
}

// One solve as a graph (capture + launch); scalars to *h.
static void graph_solve(hs_gpu_cg *cg, const dev_system *d, const hs_gpu_cg_tol *t, cudaStream_t s,
                        hs_gpu_cg_scalars *h)
{
    cudaGraph_t g = nullptr;
    cudaGraphExec_t ge = nullptr;
    T_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    HS_TEST_OK(hs_gpu_cg_capture_solve(cg, d->b, d->x, t, s));
    T_CUDA(cudaStreamEndCapture(s, &g));
    T_CUDA(cudaGraphInstantiate(&ge, g, 0));
    T_CUDA(cudaGraphLaunch(ge, s));
    T_CUDA(cudaMemcpyAsync(h, cg->d_sc, sizeof *h, cudaMemcpyDeviceToHost, s));
    T_CUDA(cudaStreamSynchronize(s));
    cudaGraphExecDestroy(ge);
    cudaGraphDestroy(g);
}

#endif
