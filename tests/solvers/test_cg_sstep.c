/* s-step CG (solver.cg = "sstep", solvers/cg_sstep.c): the same iterates as classic PCG within a
 * round-off bound that grows with s, iteration counts within +10% of classic, the Ritz interval, the
 * outcomes (limit, zero right-hand side, indefinite), and a breakdown of the basis detected and
 * handed to classic CG. Bounds: docs/verification.md, "s-step CG". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "hs_cg.h"
#include "hs_csr.h"
#include "hs_test.h"
#include "hs_test_cg_matrix.h"

int main(void)
{
    const double eps = 2.220446049250313e-16;
    hs_cg_result r, rc;

    /* Ritz interval of a 2 x 2 Lanczos matrix: alpha = (1, 1), beta = (1, .) gives T = [1 1; 1 2],
     * eigenvalues (3 -+ sqrt 5)/2. */
    {
        double al[2] = {1.0, 1.0}, be[2] = {1.0, 0.0}, lo, hi;
        hs_cg_ritz_interval(2, al, be, &lo, &hi);
        /* bisection to 1e-6 of the Gershgorin width (4 here) */
        HS_TEST_NEAR(lo, (3.0 - sqrt(5.0)) / 2, 4e-6, "Ritz min");
        HS_TEST_NEAR(hi, (3.0 + sqrt(5.0)) / 2, 4e-6, "Ritz max");
    }

    /* Iterates after k iterations: s-step against classic. Bound (docs/verification.md): two CG
     * recurrences drift apart by about eps cond per iteration (test_cg.c, 10 k eps cond); the s-step
     * vectors are sums of 2s+1 basis columns each up to 2^s times larger than the sum (the Chebyshev
     * basis on the Ritz interval), so its local errors are (2s+1) 2^s times those of classic CG. */
    const int n1 = 2000;
    hs_csr *a = laplace1d(n1, 0.01);
    const double cond1 = 3600.0;
    double *xs = malloc(sizeof(double) * 30000), *b = malloc(sizeof(double) * 30000);
    double *x = malloc(sizeof(double) * 30000), *xc = malloc(sizeof(double) * 30000);
    double *dinv = malloc(sizeof(double) * 30000);
    hs_cg_work *w = NULL;
    HS_TEST_OK(hs_cg_work_create(30000, &w));
    for (int i = 0; i < n1; ++i) xs[i] = cos(0.37 * i) + 0.1 * i / n1;
    hs_csr_spmv(a, xs, b);
    jacobi(a, dinv);
    for (int s = HS_CG_S_MIN; s <= HS_CG_S_MAX; ++s) {
        const int ks[] = {s + 1, 2 * s + 3, 20, 60};
        for (int q = 0; q < 4; ++q) {
            hs_cg_opts oc = {0.0, ks[q], HS_CG_CLASSIC, 0}, os = {0.0, ks[q], HS_CG_SSTEP, s};
            HS_TEST_OK(hs_cg_solve(n1, hs_test_csr_matvec, a, dinv, b, xc, &oc, w, &rc));
            HS_TEST_OK(hs_cg_solve(n1, hs_test_csr_matvec, a, dinv, b, x, &os, w, &r));
            double dd = rel_diff(n1, x, xc);
            double bound = 10.0 * ks[q] * eps * cond1 * (2 * s + 1) * ldexp(1.0, s);
            if (getenv("HS_TEST_VERBOSE"))
                printf("s %d k %d: |x_s - x_c|/|x_c| = %.3g (bound %.3g), iters %d/%d, fallback %d\n", s, ks[q], dd,
                       bound, r.iters, rc.iters, r.fallback_iter);
            HS_TEST_CHECK(r.outcome == HS_CG_MAX_ITER && r.iters == ks[q] && r.fallback_iter == 0,
                          "s %d, %d iterations: outcome %d after %d, fallback %d", s, ks[q], r.outcome, r.iters,
                          r.fallback_iter);
            HS_TEST_CHECK(dd <= bound, "s %d after %d iterations: s-step vs classic %.3g > %.3g", s, ks[q], dd, bound);
        }
    }

    /* Iteration counts to a tolerance: within +10% of classic (and not fewer than 90%), on the 1D
     * problem and a 3D stencil. */
    hs_csr *a3 = laplace3d(24, 0.0);
    for (int prob = 0; prob < 2; ++prob) {
        hs_csr *m = prob ? a3 : a;
        int n = m->n_rows;
        for (int i = 0; i < n; ++i) xs[i] = cos(0.37 * i) + 0.1 * i / n;
        hs_csr_spmv(m, xs, b);
        jacobi(m, dinv);
        const double tols[] = {1e-6, 1e-8, 1e-10};
        for (int s = HS_CG_S_MIN; s <= HS_CG_S_MAX; ++s)
            for (int q = 0; q < 3; ++q) {
                hs_cg_opts oc = {tols[q], 5000, HS_CG_CLASSIC, 0}, os = {tols[q], 5000, HS_CG_SSTEP, s};
                HS_TEST_OK(hs_cg_solve(n, hs_test_csr_matvec, m, dinv, b, xc, &oc, w, &rc));
                HS_TEST_OK(hs_cg_solve(n, hs_test_csr_matvec, m, dinv, b, x, &os, w, &r));
                if (getenv("HS_TEST_VERBOSE"))
                    printf("prob %d s %d tol %g: iters %d (classic %d) rel_res %.3g fallback %d\n", prob, s, tols[q],
                           r.iters, rc.iters, r.rel_res, r.fallback_iter);
                HS_TEST_CHECK(rc.outcome == HS_CG_CONVERGED && r.outcome == HS_CG_CONVERGED &&
                                  r.iters <= ceil(1.1 * rc.iters) && r.iters >= floor(0.9 * rc.iters) &&
                                  r.rel_res <= tols[q] && r.fallback_iter == 0,
                              "problem %d, s %d, tol %g: s-step %d iterations (outcome %d, rel_res %.3g, fallback %d), "
                              "classic %d",
                              prob, s, tols[q], r.iters, r.outcome, r.rel_res, r.fallback_iter, rc.iters);
                /* ||x - x*|| / ||x*|| <= cond rel_res, as classic (3D: cond <= 4 q^2 / pi^2 * 10 = 2.4e3) */
                HS_TEST_CHECK(rel_diff(n, x, xs) <= 10.0 * (prob ? 2.4e3 : cond1) * tols[q],
                              "problem %d, s %d: solution error %.3g", prob, s, rel_diff(n, x, xs));
            }
    }

    /* Reusing the interval (sstep_reuse, as the backends do for Newton's matrices): the second solve
     * skips the start-up and still takes classic's iterations within 10%. */
    {
        for (int i = 0; i < n1; ++i) xs[i] = cos(0.37 * i) + 0.1 * i / n1;
        hs_csr_spmv(a, xs, b);
        jacobi(a, dinv);
        hs_cg_work *wr = NULL;
        HS_TEST_OK(hs_cg_work_create(n1, &wr));
        wr->sstep_reuse = 1;
        hs_cg_opts oc = {1e-8, 5000, HS_CG_CLASSIC, 0}, os = {1e-8, 5000, HS_CG_SSTEP, 8};
        HS_TEST_OK(hs_cg_solve(n1, hs_test_csr_matvec, a, dinv, b, xc, &oc, w, &rc));
        for (int rep = 0; rep < 2; ++rep) {
            HS_TEST_OK(hs_cg_solve(n1, hs_test_csr_matvec, a, dinv, b, x, &os, wr, &r));
            HS_TEST_CHECK(wr->sstep_d > 0.0 && r.outcome == HS_CG_CONVERGED && r.fallback_iter == 0 &&
                              r.iters <= ceil(1.1 * rc.iters) && r.iters >= floor(0.9 * rc.iters),
                          "reuse, solve %d: %d iterations (classic %d), outcome %d, fallback %d", rep, r.iters,
                          rc.iters, r.outcome, r.fallback_iter);
            HS_TEST_CHECK(rel_diff(n1, x, xc) <= 10.0 * cond1 * 1e-8, "reuse, solve %d: differs from classic by %.3g",
                          rep, rel_diff(n1, x, xc));
        }
        hs_cg_work_destroy(&wr);
    }

    /* Outcomes: the iteration limit inside a block, zero right-hand side, an indefinite matrix. */
    {
        for (int i = 0; i < n1; ++i) xs[i] = cos(0.37 * i) + 0.1 * i / n1;
        hs_csr_spmv(a, xs, b);
        jacobi(a, dinv);
        hs_cg_opts o = {1e-12, 6, HS_CG_SSTEP, 4};
        HS_TEST_OK(hs_cg_solve(n1, hs_test_csr_matvec, a, dinv, b, x, &o, w, &r));
        HS_TEST_CHECK(r.outcome == HS_CG_MAX_ITER && r.iters == 6, "limit: outcome %d iters %d", r.outcome, r.iters);
        for (int k = 0; k < a->nnz; ++k) a->val[k] = -a->val[k];
        for (int i = 0; i < n1; ++i) dinv[i] = -dinv[i];
        o.max_iter = 100;
        HS_TEST_OK(hs_cg_solve(n1, hs_test_csr_matvec, a, dinv, b, x, &o, w, &r));
        HS_TEST_CHECK(r.outcome == HS_CG_BREAKDOWN, "indefinite: outcome %d", r.outcome);
        for (int k = 0; k < a->nnz; ++k) a->val[k] = -a->val[k];
        for (int i = 0; i < n1; ++i) dinv[i] = -dinv[i];
        double *z = calloc(n1, sizeof(double));
        HS_TEST_OK(hs_cg_solve(n1, hs_test_csr_matvec, a, dinv, z, x, &o, w, &r));
        HS_TEST_CHECK(r.outcome == HS_CG_CONVERGED && r.iters == 0, "zero rhs: %d iters", r.iters);
        free(z);
        hs_cg_opts bad = {1e-8, 100, HS_CG_SSTEP, 9};
        hs_error_clear();
        HS_TEST_CHECK(hs_cg_solve(n1, hs_test_csr_matvec, a, dinv, b, x, &bad, w, &r) == HS_ERR_INTERNAL,
                      "s = 9 accepted");
        hs_error_clear();
    }

    /* A breakdown of the basis. The 1D problem plus a K x K block (ones + I: D^-1 A has the eigenvalue
     * (K+1)/2 = 20.5 there, ten times the rest of the spectrum), with a right-hand side whose component in
     * that block is 1e-8: the s start-up iterations do not see the eigenvalue, so the Chebyshev basis
     * of the Ritz interval [~0, ~2] multiplies that component by T_s(~19.5) (1e13 for s = 8) and the
     * Gram matrix holds nothing but it: a quadratic form falls to its round-off level. Detected,
     * classic CG takes over and converges to the tolerance in about classic's iterations. */
    {
        const int K = 40, n = n1 + K;
        hs_csr *ab = NULL;
        HS_TEST_OK(hs_csr_create(n, n, a->nnz + K * K, &ab));
        int k = 0;
        for (int i = 0; i < n1; ++i) {
            ab->row_ptr[i] = k;
            for (int e = a->row_ptr[i]; e < a->row_ptr[i + 1]; ++e, ++k) { ab->col[k] = a->col[e]; ab->val[k] = a->val[e]; }
        }
        for (int i = 0; i < K; ++i) {
            ab->row_ptr[n1 + i] = k;
            for (int j = 0; j < K; ++j, ++k) { ab->col[k] = n1 + j; ab->val[k] = i == j ? 2.0 : 1.0; }
        }
        ab->row_ptr[n] = k;
        for (int i = 0; i < n; ++i) b[i] = i < n1 ? cos(0.37 * i) : 1e-8;
        jacobi(ab, dinv);
        hs_cg_opts oc = {1e-10, 5000, HS_CG_CLASSIC, 0}, os = {1e-10, 5000, HS_CG_SSTEP, 8};
        HS_TEST_OK(hs_cg_solve(n, hs_test_csr_matvec, ab, dinv, b, xc, &oc, w, &rc));
        HS_TEST_OK(hs_cg_solve(n, hs_test_csr_matvec, ab, dinv, b, x, &os, w, &r));
        HS_TEST_CHECK(r.fallback_iter == 8, "breakdown not detected in the first block: fallback %d", r.fallback_iter);
        HS_TEST_CHECK(w->sstep_d == 0.0, "the interval is kept after a breakdown");
        HS_TEST_CHECK(r.outcome == HS_CG_CONVERGED && r.rel_res <= 1e-10 && r.iters <= ceil(1.1 * rc.iters),
                      "after the fallback: outcome %d, rel_res %.3g, %d iterations (classic %d)", r.outcome, r.rel_res,
                      r.iters, rc.iters);
        HS_TEST_CHECK(rel_diff(n, x, xc) <= 10.0 * 1e4 * 1e-10, "fallback solution differs from classic's by %.3g",
                      rel_diff(n, x, xc));
        hs_csr_destroy(&ab);
    }

    free(xs); free(b); free(x); free(xc); free(dinv);
    hs_cg_work_destroy(&w);
    hs_csr_destroy(&a);
    hs_csr_destroy(&a3);
    HS_TEST_RETURN();
}
