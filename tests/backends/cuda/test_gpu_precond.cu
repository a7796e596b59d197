// SAI / FSAI / Jacobi computed on the device (backends/cuda/precond.cu) and the device Krylov methods
// (backends/cuda/krylov.cu) against the CPU reference (solvers/precond.c, solvers/krylov.c).
// Tolerances from the arithmetic: two backward-stable solutions of the same local least-squares
// problem (QR, different summation orders) differ by c n2 eps kappa(A(I,J)^T A(I,J)) relative to
// the column (the kappa^2 term of least squares with a nonzero residual, the SAI case); two Cholesky
// solves of A(P,P) g = e by c n2 eps kappa(A(P,P)); c = 100 (10 for the underestimating kappa
// estimate of hs_test_precond.h, 10 for the constants). Krylov: iterations within 2 of the CPU's
// (the same algorithm, only round-off differs), true residuals <= 10 tol.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include "hs_cuda.h"
#include "hs_gpu_precond.cuh"
#include "hs_gpu_spmv.cuh"
#include "hs_precond.h"
#include "hs_test.h"
#include "hs_test_precond.h"

static std::vector<double> down(const double *d, size_t n)
{
    std::vector<double> h(n);
    cudaMemcpy(h.data(), d, sizeof(double) * n, cudaMemcpyDeviceToHost);
    return h;
}

static double *upv(const double *h, size_t n)
{
    double *d = nullptr;
    cudaMalloc(&d, sizeof(double) * (n ? n : 1));
    cudaMemcpy(d, h, sizeof(double) * n, cudaMemcpyHostToDevice);
    return d;
}

/* Every column of M (sai) or row of G (fsai): device vs CPU reference, and the transposes agree. */
static void check_values(const hs_csr *a, hs_precond_kind kind, int level)
{
    hs_precond *pc = nullptr;
    hs_gpu_precond *g = nullptr;
    HS_TEST_OK(hs_precond_create(kind, level, a, &pc));
    HS_TEST_OK(hs_precond_compute(pc, a));
    HS_TEST_OK(hs_gpu_precond_create(pc, a, 0, &g));
    double *dval = upv(a->val, a->nnz);
    HS_TEST_OK(hs_gpu_precond_compute(g, dval, 0));
    cudaDeviceSynchronize();
    std::vector<double> m = down(g->m_val, pc->m->nnz), mt = down(g->mt_val, pc->mt->nnz);
    const char *kn = hs_precond_name(kind);
    /* the local problem of each column (sai: column j of M = row j of M^T) or row (fsai: row i of G) */
    const hs_csr *rows = kind == HS_PRECOND_SAI ? pc->mt : pc->m;
    const std::vector<double> &got = kind == HS_PRECOND_SAI ? mt : m;
    const double *ref = rows->val;
    int n = a->n_rows;
    for (int j = 0; j < n; ++j) {
        int q0 = rows->row_ptr[j], n2 = rows->row_ptr[j + 1] - q0;
        std::vector<double> s((size_t)n2 * n2, 0.0);
        if (kind == HS_PRECOND_SAI) { /* A_J^T A_J with all rows */
            std::vector<double> aj((size_t)n * n2, 0.0);
            for (int i = 0; i < n; ++i)
                for (int e = a->row_ptr[i]; e < a->row_ptr[i + 1]; ++e)
                    for (int q = 0; q < n2; ++q)
                        if (a->col[e] == rows->col[q0 + q]) aj[(size_t)i * n2 + q] = a->val[e];
            for (int p = 0; p < n2; ++p)
                for (int q = 0; q < n2; ++q)
                    for (int i = 0; i < n; ++i) s[(size_t)p * n2 + q] += aj[(size_t)i * n2 + p] * aj[(size_t)i * n2 + q];
        } else {
            for (int p = 0; p < n2; ++p)
                for (int q = 0; q < n2; ++q) {
                    int32_t k = hs_csr_find(a, rows->col[q0 + p], rows->col[q0 + q]);
                    s[(size_t)p * n2 + q] = k >= 0 ? a->val[k] : 0.0;
                }
        }
        double kappa = cond_spd(n2, s.data()), tol = 100.0 * n2 * 2.220446049250313e-16 * kappa, d = 0.0, nm = 0.0;
        for (int q = 0; q < n2; ++q) d = fmax(d, fabs(got[q0 + q] - ref[q0 + q])), nm = fmax(nm, fabs(ref[q0 + q]));
        HS_TEST_CHECK(d <= tol * nm, "%s level %d, %s %d: |gpu - cpu| %.3e > %.3e |ref| (kappa %.3g)", kn, level,
                      kind == HS_PRECOND_SAI ? "column" : "row", j, d, tol, kappa);
    }
    for (int k = 0; k < pc->mt->nnz; ++k)
        HS_TEST_CHECK(mt[k] == m[pc->mt_to_m[k]], "%s: transpose entry %d differs", kn, k);
    cudaFree(dval);
    hs_gpu_precond_destroy(&g);
    hs_precond_destroy(&pc);
}

static hs_status spmv_cb(void *ctx, const double *x, double *y, cudaStream_t s)
{
    return hs_gpu_spmv_apply((hs_gpu_spmv *)ctx, x, y, s);
}

static void cpu_mv(void *ctx, const double *x, double *y) { hs_csr_spmv((const hs_csr *)ctx, x, y); }

/* Solve on the device and on the host; compare iterations and residuals. */
static void check_solve(const hs_csr *a, hs_precond_kind pk, hs_krylov kk, hs_cg_variant var, double tol)
{
    int n = a->n_rows;
    std::vector<double> xs(n), b(n), x(n), xg(n), t(n);
    for (int i = 0; i < n; ++i) xs[i] = sin(0.05 * i) + 1.0;
    hs_csr_spmv(a, xs.data(), b.data());
    hs_precond *pc = nullptr;
    HS_TEST_OK(hs_precond_create(pk, 1, a, &pc));
    HS_TEST_OK(hs_precond_compute(pc, a));
    hs_krylov_work *w = nullptr;
    HS_TEST_OK(hs_krylov_work_create(n, &w));
    hs_cg_opts o = {tol, 3000, var};
    hs_cg_result rc, rg;
    HS_TEST_OK(hs_krylov_solve(kk, n, cpu_mv, (void *)a, hs_precond_apply, pc, b.data(), x.data(), &o, w, &rc));
    /* device */
    hs_gpu_precond *g = nullptr;
    HS_TEST_OK(hs_gpu_precond_create(pc, a, 0, &g));
    double *dval = upv(a->val, a->nnz), *db = upv(b.data(), n), *dx = upv(x.data(), n);
    HS_TEST_OK(hs_gpu_precond_compute(g, dval, 0));
    hs_spmv_layout *lay = nullptr;
    hs_gpu_spmv *sp = nullptr;
    hs_spmv_params prm = hs_spmv_params_default();
    HS_TEST_OK(hs_spmv_layout_create(hs_spmv_find("csr_vector"), a, &prm, &lay));
    HS_TEST_OK(hs_gpu_spmv_create(lay, a, dval, &sp));
    hs_gpu_krylov *gw = nullptr;
    HS_TEST_OK(hs_gpu_krylov_create(n, 0, &gw));
    HS_TEST_OK(hs_gpu_krylov_solve(kk, gw, spmv_cb, sp, hs_gpu_precond_apply_cb, g, db, dx, &o, &rg));
    cudaDeviceSynchronize();
    xg = down(dx, n);
    hs_csr_spmv(a, xg.data(), t.data());
    double rr = 0, bb = 0;
    for (int i = 0; i < n; ++i) rr += (b[i] - t[i]) * (b[i] - t[i]), bb += b[i] * b[i];
    const char *what = hs_krylov_name(kk);
    HS_TEST_CHECK(rc.outcome == HS_CG_CONVERGED && rg.outcome == HS_CG_CONVERGED, "%s-%s: cpu %d, gpu %d",
                  hs_precond_name(pk), what, rc.outcome, rg.outcome);
    HS_TEST_CHECK(abs(rc.iters - rg.iters) <= 2, "%s-%s: %d iterations on the GPU, %d on the CPU", hs_precond_name(pk),
                  what, rg.iters, rc.iters);
    HS_TEST_CHECK(sqrt(rr / bb) <= 10 * tol, "%s-%s: true residual %.3e", hs_precond_name(pk), what, sqrt(rr / bb));
    hs_gpu_krylov_destroy(&gw);
    hs_gpu_spmv_destroy(&sp);
    hs_spmv_layout_destroy(&lay);
    cudaFree(dval); cudaFree(db); cudaFree(dx);
    hs_gpu_precond_destroy(&g);
    hs_krylov_work_destroy(&w);
    hs_precond_destroy(&pc);
}

/* The device reports the same first failing row/column, in the CPU's words. */
static void check_failure(const hs_csr *a, hs_precond_kind kind, const char *words)
{
    hs_precond *pc = nullptr;
    hs_gpu_precond *g = nullptr;
    HS_TEST_OK(hs_precond_create(kind, 1, a, &pc));
    HS_TEST_CHECK(hs_precond_compute(pc, a) == HS_ERR_NUMERIC, "%s: CPU did not fail", hs_precond_name(kind));
    char cpu_msg[1024];
    snprintf(cpu_msg, sizeof cpu_msg, "%s", hs_error_message());
    hs_error_clear();
    HS_TEST_OK(hs_gpu_precond_create(pc, a, 0, &g));
    double *dval = upv(a->val, a->nnz);
    HS_TEST_CHECK(hs_gpu_precond_compute(g, dval, 0) == HS_ERR_NUMERIC && strstr(hs_error_message(), words),
                  "%s on the GPU: %s", hs_precond_name(kind), hs_error_message());
    /* the same index: compare the "row N" / "column N" part */
    const char *c1 = strstr(cpu_msg, words), *c2 = strstr(hs_error_message(), words);
    HS_TEST_CHECK(c1 && c2 && atoi(c1 + strlen(words)) == atoi(c2 + strlen(words)), "first failure: cpu \"%s\", gpu \"%s\"",
                  cpu_msg, hs_error_message());
    hs_error_clear();
    cudaFree(dval);
    hs_gpu_precond_destroy(&g);
    hs_precond_destroy(&pc);
}

int main()
{
    char name[256], why[256];
    if (!hs_gpu_probe(name, sizeof name, why, sizeof why)) {
        printf("no GPU: %s\n", why);
        return HS_TEST_SKIP;
    }
    hs_csr *cd = convdiff(12, 0.6), *p1s = p1_matrix(3, 0.5, 0.05, 0.12, 0.03);
    check_values(cd, HS_PRECOND_SAI, 1);
    check_values(cd, HS_PRECOND_SAI, 2);
    check_values(p1s, HS_PRECOND_SAI, 1);
    check_values(p1s, HS_PRECOND_FSAI, 1);
    check_values(p1s, HS_PRECOND_FSAI, 2);
    hs_csr_destroy(&cd);
    hs_csr_destroy(&p1s);

    hs_csr *cd2 = convdiff(40, 0.8), *p1 = p1_matrix(14, 0.25, 0.05, 0.12, 0.03);
    check_solve(cd2, HS_PRECOND_SAI, HS_KRYLOV_BICGSTAB, HS_CG_CLASSIC, 1e-10);
    check_solve(cd2, HS_PRECOND_JACOBI, HS_KRYLOV_BICGSTAB, HS_CG_CLASSIC, 1e-10);
    check_solve(p1, HS_PRECOND_FSAI, HS_KRYLOV_CG, HS_CG_CLASSIC, 1e-10);
    check_solve(p1, HS_PRECOND_FSAI, HS_KRYLOV_CG, HS_CG_CHRONOPOULOS, 1e-10);
    check_solve(p1, HS_PRECOND_JACOBI, HS_KRYLOV_CG, HS_CG_CHRONOPOULOS, 1e-10);

    p1->val[hs_csr_find(p1, 5, 5)] = 0.0;
    check_failure(p1, HS_PRECOND_JACOBI, "row ");
    check_failure(p1, HS_PRECOND_FSAI, "row ");
    for (int k = 0; k < p1->nnz; ++k)
        if (p1->col[k] == 7) p1->val[k] = 0.0;
    check_failure(p1, HS_PRECOND_SAI, "column ");
    hs_csr_destroy(&cd2);
    hs_csr_destroy(&p1);
    HS_TEST_RETURN();
}
