/* Jacobi-PCG on systems with known solutions; breakdown and iteration-limit outcomes; determinism
 * of the dot product across thread counts. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "hs_cg.h"
#include "hs_csr.h"
#include "hs_test.h"
#include "hs_vec.h"

static void matvec(void *ctx, const double *x, double *y) { hs_csr_spmv((const hs_csr *)ctx, x, y); }

/* 1D Laplacian with a diagonal shift s and variable scaling: SPD, condition ~ 4/s. */
static hs_csr *laplace1d(int n, double s)
{
    hs_csr *a = NULL;
    hs_csr_create(n, n, 3 * n - 2, &a);
    int k = 0;
    for (int i = 0; i < n; ++i) {
        a->row_ptr[i] = k;
        double w = 1.0 + 0.5 * sin(0.1 * i); /* row scaling so Jacobi matters */
        if (i > 0) { a->col[k] = i - 1; a->val[k++] = -1.0 * w * (1.0 + 0.5 * sin(0.1 * (i - 1))); }
        a->col[k] = i; a->val[k++] = (2.0 + s) * w * w;
        if (i < n - 1) { a->col[k] = i + 1; a->val[k++] = -1.0 * w * (1.0 + 0.5 * sin(0.1 * (i + 1))); }
    }
    a->row_ptr[n] = k;
    return a;
}

int main(void)
{
    const int n = 2000;
    hs_csr *a = laplace1d(n, 0.01);
    double *xs = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n);
    double *dinv = malloc(sizeof(double) * n);
    for (int i = 0; i < n; ++i) xs[i] = cos(0.37 * i) + 0.1 * i / n;
    hs_csr_spmv(a, xs, b);
    for (int i = 0; i < n; ++i) dinv[i] = 1.0 / a->val[hs_csr_find(a, i, i)];
    hs_cg_work *w = NULL;
    HS_TEST_OK(hs_cg_work_create(n, &w));
    hs_cg_result r;
    for (int v = 0; v < 2; ++v) {
        hs_cg_variant var = v ? HS_CG_CHRONOPOULOS : HS_CG_CLASSIC;
        const char *vn = hs_cg_variant_name(var);
        for (int i = 0; i < n; ++i) dinv[i] = 1.0 / a->val[hs_csr_find(a, i, i)];
        hs_csr_spmv(a, xs, b);
        hs_cg_opts o = {1e-12, 5000, var, 0};
        HS_TEST_OK(hs_cg_solve(n, matvec, a, dinv, b, x, &o, w, &r));
        HS_TEST_CHECK(r.outcome == HS_CG_CONVERGED, "%s: outcome %d", vn, r.outcome);
        HS_TEST_CHECK(r.rel_res <= 1e-12, "%s: rel_res %g", vn, r.rel_res);
        /* ||x - x*|| / ||x*|| <= cond(A) * rel_res; cond <= (4 + s)/s * scaling^2 ~ 400 * 9 */
        double err = 0, nx = 0;
        for (int i = 0; i < n; ++i) { err += (x[i] - xs[i]) * (x[i] - xs[i]); nx += xs[i] * xs[i]; }
        HS_TEST_CHECK(sqrt(err / nx) <= 4000 * 1e-12, "%s: solution error %g", vn, sqrt(err / nx));

        /* Iteration limit is reported, not hidden. */
        hs_cg_opts o2 = {1e-12, 5, var, 0};
        HS_TEST_OK(hs_cg_solve(n, matvec, a, dinv, b, x, &o2, w, &r));
        HS_TEST_CHECK(r.outcome == HS_CG_MAX_ITER && r.iters == 5, "%s: outcome %d iters %d", vn, r.outcome, r.iters);

        /* An indefinite matrix (negated) breaks down. */
        for (int k = 0; k < a->nnz; ++k) a->val[k] = -a->val[k];
        for (int i = 0; i < n; ++i) dinv[i] = -dinv[i]; /* keep M SPD so p'Ap < 0 is what trips */
        HS_TEST_OK(hs_cg_solve(n, matvec, a, dinv, b, x, &o, w, &r));
        HS_TEST_CHECK(r.outcome == HS_CG_BREAKDOWN, "%s: outcome %d", vn, r.outcome);
        for (int k = 0; k < a->nnz; ++k) a->val[k] = -a->val[k];

        /* Zero right-hand side: x = 0 in zero iterations. */
        for (int i = 0; i < n; ++i) b[i] = 0.0;
        HS_TEST_OK(hs_cg_solve(n, matvec, a, dinv, b, x, &o, w, &r));
        HS_TEST_CHECK(r.outcome == HS_CG_CONVERGED && r.iters == 0, "%s: zero rhs: %d iters", vn, r.iters);
    }

    /* Chronopoulos-Gear and classic CG are the same method: iterates after k iterations agree up to
     * round-off, and the iteration counts to a tolerance agree within one. Two CG recurrences in
     * floating point drift apart by about eps * cond(A) per iteration (Greenbaum, "Iterative Methods
     * for Solving Linear Systems", ch. 4), so after k iterations the bound is k * eps * cond with
     * cond <= 3600 here (see above), times 10 for the constants. */
    {
        for (int i = 0; i < n; ++i) dinv[i] = 1.0 / a->val[hs_csr_find(a, i, i)];
        hs_csr_spmv(a, xs, b);
        double *xc = malloc(sizeof(double) * n);
        const int ks[] = {1, 5, 20, 60};
        for (int q = 0; q < 4; ++q) {
            hs_cg_opts oc = {0.0, ks[q], HS_CG_CLASSIC, 0}, og = {0.0, ks[q], HS_CG_CHRONOPOULOS, 0};
            HS_TEST_OK(hs_cg_solve(n, matvec, a, dinv, b, xc, &oc, w, &r));
            HS_TEST_OK(hs_cg_solve(n, matvec, a, dinv, b, x, &og, w, &r));
            double d = 0, nx = 0;
            for (int i = 0; i < n; ++i) { d += (x[i] - xc[i]) * (x[i] - xc[i]); nx += xc[i] * xc[i]; }
            double bound = 10.0 * ks[q] * 2.2e-16 * 3600.0;
            HS_TEST_CHECK(sqrt(d / nx) <= bound, "after %d iterations: classic vs chronopoulos %.3g > %.3g",
                          ks[q], sqrt(d / nx), bound);
        }
        const double tols[] = {1e-4, 1e-8, 1e-12};
        for (int q = 0; q < 3; ++q) {
            hs_cg_opts oc = {tols[q], 5000, HS_CG_CLASSIC, 0}, og = {tols[q], 5000, HS_CG_CHRONOPOULOS, 0};
            hs_cg_result rc, rg;
            HS_TEST_OK(hs_cg_solve(n, matvec, a, dinv, b, xc, &oc, w, &rc));
            HS_TEST_OK(hs_cg_solve(n, matvec, a, dinv, b, x, &og, w, &rg));
            HS_TEST_CHECK(rc.outcome == HS_CG_CONVERGED && rg.outcome == HS_CG_CONVERGED &&
                              abs(rc.iters - rg.iters) <= 1,
                          "tol %g: classic %d iterations, chronopoulos %d", tols[q], rc.iters, rg.iters);
        }
        free(xc);
    }

    /* Inexact Newton forcing: fixed when off, floor and cap respected, tighter for larger residuals. */
    HS_TEST_CHECK(hs_cg_forcing_tol(1e-8, 0.0, 1e-8, 1.0) == 1e-8, "forcing off");
    HS_TEST_CHECK(hs_cg_forcing_tol(1e-8, 0.1, 1e-8, 1.0) == 1e-8, "floor");
    HS_TEST_CHECK(hs_cg_forcing_tol(1e-8, 0.1, 1e-8, 1e-9) == 0.1, "cap");
    HS_TEST_NEAR(hs_cg_forcing_tol(1e-8, 0.1, 1e-8, 1e-4), 1e-5, 1e-20, "0.1 tol / res");

    /* Deterministic dot: same bits with 1 and 2 threads, on a length spanning many chunks. */
    int m = 100003;
    double *u = malloc(sizeof(double) * m), *v = malloc(sizeof(double) * m);
    for (int i = 0; i < m; ++i) { u[i] = sin(i * 0.001) * 1e3; v[i] = cos(i * 0.7) / (1 + i); }
    omp_set_num_threads(1);
    double d1 = hs_vec_dot(m, u, v);
    omp_set_num_threads(2);
    double d2 = hs_vec_dot(m, u, v);
    HS_TEST_CHECK(d1 == d2, "dot differs across thread counts: %.17g vs %.17g", d1, d2);

    hs_cg_work_destroy(&w);
    hs_csr_destroy(&a);
    free(xs); free(b); free(x); free(dinv); free(u); free(v);
    HS_TEST_RETURN();
}
