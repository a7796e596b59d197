// Device Krylov methods of solver.krylov (hs_gpu_precond.cuh): PCG (classic, Chronopoulos-Gear) and
// right-preconditioned BiCGStab with any device preconditioner, the host driving the loop with cuBLAS
// as seed 004 ch. 5.3.1 D does; and the GPU half of `heartsim bench solve` (with the cuSPARSE +
// cuBLAS baselines). CPU reference: solvers/krylov.c, whose steps and tests this follows line by line.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cusparse.h>

#include "hs_cuda.h"
#include "hs_cuda_check.cuh"
#include "hs_gpu_precond.cuh"
#include "hs_util.h"

/* the registry entry this file means (solvers/spmv_csr.c), named directly, not looked up */
extern "C" const hs_spmv_ops hs_spmv_ops_csr_vector;

/* y = a x + b y */
__global__ static void k_axpby(int32_t n, double a, const double *x, double b, double *y)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        y[i] = a * x[i] + b * y[i];
}

/* p = r + beta (p - omega v) (BiCGStab) */
__global__ static void k_bicg_p(int32_t n, const double *r, double beta, double omega, const double *v, double *p)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        p[i] = r[i] + beta * (p[i] - omega * v[i]);
}

static int grid_for(int64_t n)
{
    int64_t b = (n + 255) / 256;
    return (int)(b < 1 ? 1 : b > 4096 ? 4096 : b);
}

#define AXPBY(a, x, b, y)                                                                          \
    do {                                                                                           \
        k_axpby<<<grid_for(n), 256, 0, w->s>>>(n, (a), (x), (b), (y));                            \
        HS_CUDA_LAUNCH_CHECK("k_axpby");                                                           \
    } while (0)
#define DOT(x, y, out) HS_CUBLAS_CALL(cublasDdot(w->bl, n, (x), 1, (y), 1, (out)))

hs_status hs_gpu_krylov_create(int32_t n, cudaStream_t s, hs_gpu_krylov **out)
{
    *out = nullptr;
    hs_gpu_krylov *w = (hs_gpu_krylov *)calloc(1, sizeof *w);
    HS_CHECK(w, HS_ERR_MEMORY, "out of memory for the device Krylov work");
    w->n = n;
    w->s = s;
    hs_status st = HS_OK;
    if (cublasCreate(&w->bl) != CUBLAS_STATUS_SUCCESS) {
        w->bl = nullptr;
        st = HS_FAIL(HS_ERR_DEVICE, "cublasCreate failed");
        goto fail;
    }
    if (cublasSetStream(w->bl, s) != CUBLAS_STATUS_SUCCESS) {
        st = HS_FAIL(HS_ERR_DEVICE, "cublasSetStream failed");
        goto fail;
    }
    for (int k = 0; k < 8; ++k)
        HS_CALL_GOTO(hs_cuda_alloc_((void **)&w->v[k], sizeof(double) * (n > 0 ? n : 1), "Krylov work vector", __FILE__,
                                    __LINE__), fail);
    *out = w;
    return HS_OK;
fail:
    hs_gpu_krylov_destroy(&w);
    return st;
}

void hs_gpu_krylov_destroy(hs_gpu_krylov **p)
{
    if (!p || !*p) return;
    for (int k = 0; k < 8; ++k) cudaFree((*p)->v[k]);
    if ((*p)->bl) cublasDestroy((*p)->bl);
    free(*p);
    *p = nullptr;
}

static hs_status gpu_pcg(hs_gpu_krylov *w, hs_gpu_matvec_fn A, void *actx, hs_gpu_matvec_fn M, void *mctx,
                         const double *b, double *x, const hs_cg_opts *opts, hs_cg_result *res)
{
    const int32_t n = w->n;
    double *r = w->v[0], *u = w->v[1], *p = w->v[2], *q = w->v[3], *s = w->v[4];
    const int chrono = opts->variant == HS_CG_CHRONOPOULOS;
    res->outcome = HS_CG_CONVERGED;
    res->iters = 0;
    res->rel_res = 0.0;
    double bb = 0.0;
    DOT(b, b, &bb);
    const double bnorm = sqrt(bb);
    HS_CUDA_CALL(cudaMemsetAsync(x, 0, sizeof(double) * n, w->s));
    HS_CUDA_CALL(cudaMemcpyAsync(r, b, sizeof(double) * n, cudaMemcpyDeviceToDevice, w->s));
    if (!isfinite(bnorm)) { res->outcome = HS_CG_NONFINITE; res->rel_res = bnorm; return HS_OK; }
    if (bnorm == 0.0) return HS_OK;
    HS_CALL(M(mctx, r, u, w->s));
    double gamma = 0.0, gamma_old = 0.0, alpha = 0.0;
    DOT(r, u, &gamma);
    const double target = opts->tol * bnorm;
    if (chrono) {
        HS_CUDA_CALL(cudaMemsetAsync(p, 0, sizeof(double) * n, w->s));
        HS_CUDA_CALL(cudaMemsetAsync(s, 0, sizeof(double) * n, w->s));
    } else {
        HS_CUDA_CALL(cudaMemcpyAsync(p, u, sizeof(double) * n, cudaMemcpyDeviceToDevice, w->s));
    }
    for (int it = 1; it <= opts->max_iter; ++it) {
        res->iters = it;
        if (chrono) {
            HS_CALL(A(actx, u, q, w->s));
            double delta = 0.0;
            DOT(q, u, &delta);
            const double beta = it == 1 ? 0.0 : gamma / gamma_old;
            const double denom = it == 1 ? delta : delta - beta * gamma / alpha;
            if (!isfinite(denom)) { res->outcome = HS_CG_NONFINITE; return HS_OK; }
            if (denom <= 0.0 || gamma <= 0.0) { res->outcome = HS_CG_BREAKDOWN; return HS_OK; }
            alpha = gamma / denom;
            AXPBY(1.0, u, beta, p);
            AXPBY(1.0, q, beta, s);
            AXPBY(alpha, p, 1.0, x);
            AXPBY(-alpha, s, 1.0, r);
        } else {
            HS_CALL(A(actx, p, q, w->s));
            double pq = 0.0;
            DOT(p, q, &pq);
            if (!isfinite(pq)) { res->outcome = HS_CG_NONFINITE; return HS_OK; }
            if (pq <= 0.0 || gamma <= 0.0) { res->outcome = HS_CG_BREAKDOWN; return HS_OK; }
            alpha = gamma / pq;
            AXPBY(alpha, p, 1.0, x);
            AXPBY(-alpha, q, 1.0, r);
        }
        double rr = 0.0;
        DOT(r, r, &rr);
        res->rel_res = sqrt(rr) / bnorm;
        if (!isfinite(rr)) { res->outcome = HS_CG_NONFINITE; return HS_OK; }
        if (sqrt(rr) <= target) return HS_OK;
        HS_CALL(M(mctx, r, u, w->s));
        gamma_old = gamma;
        DOT(r, u, &gamma);
        if (!chrono) AXPBY(1.0, u, gamma / gamma_old, p);
    }
    res->outcome = HS_CG_MAX_ITER;
    return HS_OK;
}

static hs_status gpu_bicgstab(hs_gpu_krylov *w, hs_gpu_matvec_fn A, void *actx, hs_gpu_matvec_fn M, void *mctx,
                              const double *b, double *x, const hs_cg_opts *opts, hs_cg_result *res)
{
    const int32_t n = w->n;
    double *r = w->v[0], *r0 = w->v[1], *p = w->v[2], *v = w->v[3], *ph = w->v[4], *s = w->v[5];
    double *sh = w->v[6], *t = w->v[7];
    res->outcome = HS_CG_CONVERGED;
    res->iters = 0;
    res->rel_res = 0.0;
    double bb = 0.0;
    DOT(b, b, &bb);
    const double bnorm = sqrt(bb);
    HS_CUDA_CALL(cudaMemsetAsync(x, 0, sizeof(double) * n, w->s));
    HS_CUDA_CALL(cudaMemcpyAsync(r, b, sizeof(double) * n, cudaMemcpyDeviceToDevice, w->s));
    if (!isfinite(bnorm)) { res->outcome = HS_CG_NONFINITE; res->rel_res = bnorm; return HS_OK; }
    if (bnorm == 0.0) return HS_OK;
    HS_CUDA_CALL(cudaMemcpyAsync(r0, b, sizeof(double) * n, cudaMemcpyDeviceToDevice, w->s));
    HS_CUDA_CALL(cudaMemsetAsync(p, 0, sizeof(double) * n, w->s));
    HS_CUDA_CALL(cudaMemsetAsync(v, 0, sizeof(double) * n, w->s));
    double rho_old = 1.0, alpha = 1.0, omega = 1.0;
    const double target = opts->tol * bnorm;
    for (int it = 1; it <= opts->max_iter; ++it) {
        res->iters = it;
        double rho = 0.0;
        DOT(r0, r, &rho);
        if (!isfinite(rho)) { res->outcome = HS_CG_NONFINITE; return HS_OK; }
        if (rho == 0.0) { res->outcome = HS_CG_BREAKDOWN; return HS_OK; }
        const double beta = (rho / rho_old) * (alpha / omega);
        k_bicg_p<<<grid_for(n), 256, 0, w->s>>>(n, r, beta, omega, v, p);
        HS_CUDA_LAUNCH_CHECK("k_bicg_p");
        HS_CALL(M(mctx, p, ph, w->s));
        HS_CALL(A(actx, ph, v, w->s));
        double r0v = 0.0;
        DOT(r0, v, &r0v);
        if (!isfinite(r0v)) { res->outcome = HS_CG_NONFINITE; return HS_OK; }
        if (r0v == 0.0) { res->outcome = HS_CG_BREAKDOWN; return HS_OK; }
        alpha = rho / r0v;
        HS_CUDA_CALL(cudaMemcpyAsync(s, r, sizeof(double) * n, cudaMemcpyDeviceToDevice, w->s));
        AXPBY(-alpha, v, 1.0, s);
        double ss = 0.0;
        DOT(s, s, &ss);
        if (!isfinite(ss)) { res->outcome = HS_CG_NONFINITE; return HS_OK; }
        if (sqrt(ss) <= target) {
            AXPBY(alpha, ph, 1.0, x);
            res->rel_res = sqrt(ss) / bnorm;
            return HS_OK;
        }
        HS_CALL(M(mctx, s, sh, w->s));
        HS_CALL(A(actx, sh, t, w->s));
        double tt = 0.0, ts = 0.0;
        DOT(t, t, &tt);
        DOT(t, s, &ts);
        if (!isfinite(tt) || !isfinite(ts)) { res->outcome = HS_CG_NONFINITE; return HS_OK; }
        omega = tt > 0.0 ? ts / tt : 0.0;
        AXPBY(alpha, ph, 1.0, x);
        AXPBY(omega, sh, 1.0, x);
        HS_CUDA_CALL(cudaMemcpyAsync(r, s, sizeof(double) * n, cudaMemcpyDeviceToDevice, w->s));
        AXPBY(-omega, t, 1.0, r);
        double rr = 0.0;
        DOT(r, r, &rr);
        res->rel_res = sqrt(rr) / bnorm;
        if (!isfinite(rr)) { res->outcome = HS_CG_NONFINITE; return HS_OK; }
        if (sqrt(rr) <= target) return HS_OK;
        if (omega == 0.0) { res->outcome = HS_CG_BREAKDOWN; return HS_OK; }
        rho_old = rho;
    }
    res->outcome = HS_CG_MAX_ITER;
    return HS_OK;
}

hs_status hs_gpu_krylov_solve(hs_krylov k, hs_gpu_krylov *w, hs_gpu_matvec_fn A, void *actx, hs_gpu_matvec_fn M,
                              void *mctx, const double *d_b, double *d_x, const hs_cg_opts *opts, hs_cg_result *res)
{
    if (k == HS_KRYLOV_BICGSTAB) return gpu_bicgstab(w, A, actx, M, mctx, d_b, d_x, opts, res);
    return gpu_pcg(w, A, actx, M, mctx, d_b, d_x, opts, res);
}

/* ---- heartsim bench solve, GPU half ------------------------------------------------------- */

static hs_status spmv_cb(void *ctx, const double *x, double *y, cudaStream_t s)
{
    return hs_gpu_spmv_apply((hs_gpu_spmv *)ctx, x, y, s);
}

namespace {
/* The cuSPARSE + cuBLAS baseline: A x by cusparseSpMV (CSR), Jacobi by cublasDdgmm (y = D^-1 r as the
 * n x 1 matrix r scaled row by row). */
struct cusp {
    cusparseHandle_t sp = nullptr;
    cublasHandle_t bl = nullptr;
    cusparseSpMatDescr_t A = nullptr;
    void *buf = nullptr;
    const double *dinv = nullptr;
    int32_t n = 0;
    ~cusp()
    {
        if (A) cusparseDestroySpMat(A);
        if (sp) cusparseDestroy(sp);
        if (bl) cublasDestroy(bl);
        cudaFree(buf);
    }
};
}

static hs_status cusp_spmv(void *ctx, const double *x, double *y, cudaStream_t s)
{
    cusp *c = (cusp *)ctx;
    cusparseDnVecDescr_t vx = nullptr, vy = nullptr;
    const double one = 1.0, zero = 0.0;
    HS_CUSPARSE_CALL(cusparseSetStream(c->sp, s));
    HS_CUSPARSE_CALL(cusparseCreateDnVec(&vx, c->n, (void *)x, CUDA_R_64F));
    HS_CUSPARSE_CALL(cusparseCreateDnVec(&vy, c->n, y, CUDA_R_64F));
    cusparseStatus_t e = cusparseSpMV(c->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, c->A, vx, &zero, vy, CUDA_R_64F,
                                      CUSPARSE_SPMV_CSR_ALG2, c->buf);
    cusparseDestroyDnVec(vx);
    cusparseDestroyDnVec(vy);
    HS_CHECK(e == CUSPARSE_STATUS_SUCCESS, HS_ERR_DEVICE, "cusparseSpMV: %s", cusparseGetErrorString(e));
    return HS_OK;
}

static hs_status cusp_jacobi(void *ctx, const double *r, double *z, cudaStream_t s)
{
    cusp *c = (cusp *)ctx;
    HS_CUBLAS_CALL(cublasSetStream(c->bl, s));
    /* z = diag(dinv) r as cublasDdgmm of the n x 1 matrix r (the banded cublasDsbmv with bandwidth 0
     * made the baseline's iteration ~77 ms at 1M rows on an H100; Ddgmm is an elementwise pass) */
    HS_CUBLAS_CALL(cublasDdgmm(c->bl, CUBLAS_SIDE_LEFT, c->n, 1, r, c->n, c->dinv, 1, z, c->n));
    return HS_OK;
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/* One row: set-up (host pattern + upload, device values), reps solves, the true residual on the host. */
static hs_status bench_row(const hs_csr *a, const double *d_aval, const double *b, const double *d_b, double *d_x,
                           hs_gpu_krylov *w, hs_gpu_matvec_fn A, void *actx, hs_precond_kind pk, hs_krylov kk,
                           int level, int baseline, cusp *cs, double tol, int max_iter, hs_cg_variant var, int reps,
                           hs_solve_bench_row *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->method, sizeof r->method, "%s%s-%s", baseline ? "cusparse " : "", hs_precond_name(pk), hs_krylov_name(kk));
    hs_precond *hp = nullptr;
    hs_gpu_precond *gp = nullptr;
    hs_status st = HS_OK;
    hs_gpu_matvec_fn M = baseline ? cusp_jacobi : hs_gpu_precond_apply_cb;
    void *mctx = nullptr;
    double t0 = hs_wtime(), t1 = t0, t2 = t0;
    if (!baseline) {
        hs_status ps = hs_precond_create(pk, level, a, &hp);
        if (ps == HS_OK) ps = hs_gpu_precond_create(hp, a, 0, &gp);
        HS_CUDA_CALL(cudaStreamSynchronize(w->s));
        t1 = hs_wtime();
        if (ps == HS_OK) ps = hs_gpu_precond_compute(gp, d_aval, w->s);
        HS_CUDA_CALL(cudaStreamSynchronize(w->s));
        t2 = hs_wtime();
        if (ps != HS_OK) {
            snprintf(r->failure, sizeof r->failure, "%s", hs_error_message());
            hs_error_clear();
            if (ps == HS_ERR_DEVICE || ps == HS_ERR_MEMORY) st = ps;
            goto done;
        }
        mctx = gp;
    } else {
        mctx = cs;
    }
    r->setup_pattern_s = t1 - t0;
    r->setup_values_s = t2 - t1;
    {
        hs_cg_opts o = {tol, max_iter, var, 0};
        hs_cg_result res = {};
        std::vector<double> ts;
        for (int k = 0; k < reps + 1; ++k) { /* the first is a warm-up */
            HS_CUDA_CALL(cudaStreamSynchronize(w->s));
            double s0 = hs_wtime();
            HS_CALL_GOTO(hs_gpu_krylov_solve(kk, w, A, actx, M, mctx, d_b, d_x, &o, &res), done);
            HS_CUDA_CALL(cudaStreamSynchronize(w->s));
            if (k > 0) ts.push_back(hs_wtime() - s0);
        }
        r->solve_s = median(ts);
        r->iters = res.iters;
        r->converged = res.outcome == HS_CG_CONVERGED;
        std::vector<double> x(a->n_rows), ax(a->n_rows);
        HS_CUDA_CALL(cudaMemcpy(x.data(), d_x, sizeof(double) * a->n_rows, cudaMemcpyDeviceToHost));
        hs_csr_spmv(a, x.data(), ax.data());
        double rr = 0.0, bb = 0.0;
        for (int32_t i = 0; i < a->n_rows; ++i) rr += (b[i] - ax[i]) * (b[i] - ax[i]), bb += b[i] * b[i];
        r->true_rel_res = sqrt(rr / bb);
        r->ok = 1;
        if (!r->converged)
            snprintf(r->failure, sizeof r->failure, "%s",
                     res.outcome == HS_CG_BREAKDOWN && kk == HS_KRYLOV_BICGSTAB ? "broke down (rho, omega or (r0, v) = 0)"
                     : res.outcome == HS_CG_BREAKDOWN ? "broke down (the matrix or preconditioner is not positive definite)"
                                                      : hs_cg_outcome_name(res.outcome));
    }
done:
    hs_gpu_precond_destroy(&gp);
    hs_precond_destroy(&hp);
    return st;
}

extern "C" hs_status hs_gpu_bench_solve(const hs_csr *a, const double *b, double tol, int max_iter, hs_cg_variant var,
                                        int level, int reps, hs_solve_bench_row *rows, int *n_rows)
{
    *n_rows = 0;
    const int32_t n = a->n_rows;
    hs_status st = HS_OK;
    cudaStream_t s = nullptr;
    int32_t *d_rp = nullptr, *d_col = nullptr;
    double *d_val = nullptr, *d_b = nullptr, *d_x = nullptr, *d_dinv = nullptr;
    hs_spmv_layout *lay = nullptr;
    hs_gpu_spmv *sp = nullptr;
    hs_gpu_krylov *w = nullptr;
    cusp cs;
    std::vector<double> dinv(n);
    const double one = 1.0, zero = 0.0;
    size_t bytes = 0;
    static const struct { hs_precond_kind p; hs_krylov k; } combos[] = {
        {HS_PRECOND_JACOBI, HS_KRYLOV_CG}, {HS_PRECOND_FSAI, HS_KRYLOV_CG},
        {HS_PRECOND_SAI, HS_KRYLOV_BICGSTAB}, {HS_PRECOND_JACOBI, HS_KRYLOV_BICGSTAB}};
    HS_CUDA_CALL(cudaSetDevice(0));
    HS_CUDA_CALL(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    HS_CALL_GOTO(hs_cuda_alloc_((void **)&d_rp, sizeof(int32_t) * ((size_t)n + 1), "A rows", __FILE__, __LINE__), done);
    HS_CALL_GOTO(hs_cuda_alloc_((void **)&d_col, sizeof(int32_t) * (a->nnz ? a->nnz : 1), "A columns", __FILE__, __LINE__), done);
    HS_CALL_GOTO(hs_cuda_alloc_((void **)&d_val, sizeof(double) * (a->nnz ? a->nnz : 1), "A values", __FILE__, __LINE__), done);
    HS_CALL_GOTO(hs_cuda_alloc_((void **)&d_b, sizeof(double) * n, "b", __FILE__, __LINE__), done);
    HS_CALL_GOTO(hs_cuda_alloc_((void **)&d_x, sizeof(double) * n, "x", __FILE__, __LINE__), done);
    HS_CALL_GOTO(hs_cuda_alloc_((void **)&d_dinv, sizeof(double) * n, "D^-1", __FILE__, __LINE__), done);
    if (cudaMemcpy(d_rp, a->row_ptr, sizeof(int32_t) * ((size_t)n + 1), cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(d_col, a->col, sizeof(int32_t) * a->nnz, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(d_val, a->val, sizeof(double) * a->nnz, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(d_b, b, sizeof(double) * n, cudaMemcpyHostToDevice) != cudaSuccess) {
        st = HS_FAIL(HS_ERR_DEVICE, "uploading the matrix failed");
        goto done;
    }
    {   /* heartsim's A: csr_vector from the SpMV registry (slots = CSR order) */
        const hs_spmv_ops *ops = &hs_spmv_ops_csr_vector;
        hs_spmv_params prm = hs_spmv_params_default();
        HS_CALL_GOTO(hs_spmv_layout_create(ops, a, &prm, &lay), done);
        HS_CALL_GOTO(hs_gpu_spmv_create(lay, a, d_val, &sp), done);
    }
    HS_CALL_GOTO(hs_gpu_krylov_create(n, s, &w), done);
    for (size_t i = 0; i < sizeof combos / sizeof combos[0]; ++i)
        HS_CALL_GOTO(bench_row(a, d_val, b, d_b, d_x, w, spmv_cb, sp, combos[i].p, combos[i].k, level, 0, nullptr, tol,
                               max_iter, var, reps, &rows[(*n_rows)++]), done);
    /* the baselines (Jacobi only: cuSPARSE has no sparse approximate inverse) */
    for (int32_t i = 0; i < n; ++i) {
        int32_t k = hs_csr_find(a, i, i);
        dinv[i] = k >= 0 && a->val[k] != 0.0 ? 1.0 / a->val[k] : 0.0;
    }
    HS_CUDA_CALL(cudaMemcpy(d_dinv, dinv.data(), sizeof(double) * n, cudaMemcpyHostToDevice));
    cs.n = n;
    cs.dinv = d_dinv;
    HS_CUSPARSE_CALL(cusparseCreate(&cs.sp));
    HS_CUBLAS_CALL(cublasCreate(&cs.bl));
    HS_CUSPARSE_CALL(cusparseCreateCsr(&cs.A, n, n, a->nnz, d_rp, d_col, d_val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    {
        cusparseDnVecDescr_t vx = nullptr, vy = nullptr;
        HS_CUSPARSE_CALL(cusparseCreateDnVec(&vx, n, d_b, CUDA_R_64F));
        HS_CUSPARSE_CALL(cusparseCreateDnVec(&vy, n, d_x, CUDA_R_64F));
        cusparseStatus_t e = cusparseSpMV_bufferSize(cs.sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, cs.A, vx, &zero, vy,
                                                     CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG2, &bytes);
        cusparseDestroyDnVec(vx);
        cusparseDestroyDnVec(vy);
        HS_CHECK_GOTO(e == CUSPARSE_STATUS_SUCCESS, done, HS_ERR_DEVICE, "cusparseSpMV_bufferSize: %s",
                      cusparseGetErrorString(e));
    }
    HS_CALL_GOTO(hs_cuda_alloc_(&cs.buf, bytes ? bytes : 1, "cuSPARSE SpMV buffer", __FILE__, __LINE__), done);
    HS_CALL_GOTO(bench_row(a, d_val, b, d_b, d_x, w, cusp_spmv, &cs, HS_PRECOND_JACOBI, HS_KRYLOV_CG, level, 1, &cs, tol,
                           max_iter, var, reps, &rows[(*n_rows)++]), done);
    HS_CALL_GOTO(bench_row(a, d_val, b, d_b, d_x, w, cusp_spmv, &cs, HS_PRECOND_JACOBI, HS_KRYLOV_BICGSTAB, level, 1, &cs,
                           tol, max_iter, var, reps, &rows[(*n_rows)++]), done);
done:
    hs_gpu_krylov_destroy(&w);
    hs_gpu_spmv_destroy(&sp);
    hs_spmv_layout_destroy(&lay);
    cudaFree(d_rp); cudaFree(d_col); cudaFree(d_val); cudaFree(d_b); cudaFree(d_x); cudaFree(d_dinv);
    if (s) cudaStreamDestroy(s);
    return st;
}
