/* Preconditioners (solvers/precond.c) and Krylov methods (solvers/krylov.c), seed 004 ch. 5:
 * - SAI columns equal a dense least-squares solve (normal equations, Gaussian elimination) of the
 *   same columns, on an unsymmetric convection-diffusion matrix, levels 1 and 2;
 * - FSAI rows equal a dense solve of A(P,P) g = e_i scaled to g_i = 1/sqrt(...), diag(G A G^T) = 1;
 * - SAI-BiCGStab converges on the convection-diffusion system (true residual), in fewer iterations
 *   than Jacobi-BiCGStab; FSAI-PCG takes fewer iterations than Jacobi-PCG on a P1 heart-like matrix
 *   and reaches the same solution; hs_pcg with Jacobi equals hs_cg_solve;
 * - registries: names, unknown names listed; CG refuses SAI suggesting fsai / bicgstab;
 * - errors: zero diagonal (Jacobi), singular (SAI), not SPD (FSAI), not square. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_cg.h"
#include "hs_csr.h"
#include "hs_precond.h"
#include "hs_test.h"
#include "hs_test_precond.h"
#include "hs_vec.h"

static void matvec(void *ctx, const double *x, double *y) { hs_csr_spmv((const hs_csr *)ctx, x, y); }

/* Every column of SAI(A) against the normal equations (A_J^T A_J) m = A_J^T e_j of the same
 * column, A_J = A(:, J) with all n rows. The normal equations lose accuracy as kappa(A_J)^2: the
 * two agree to c n2 eps kappa(A_J^T A_J) (c = 10 for the kappa estimate, 10 for the constants of
 * QR and of elimination). */
static void check_sai_columns(const hs_csr *a, int level)
{
    hs_precond *pc = NULL;
    HS_TEST_OK(hs_precond_create(HS_PRECOND_SAI, level, a, &pc));
    HS_TEST_OK(hs_precond_compute(pc, a));
    int n = a->n_rows;
    double worst = 0.0;
    for (int j = 0; j < n; ++j) {
        int q0 = pc->mt->row_ptr[j], n2 = pc->mt->row_ptr[j + 1] - q0;
        double *aj = calloc((size_t)n * n2, sizeof(double)), *nrm = calloc((size_t)n2 * n2, sizeof(double));
        double *rhs = calloc(n2, sizeof(double)), *m = calloc(n2, sizeof(double));
        for (int i = 0; i < n; ++i)
            for (int e = a->row_ptr[i]; e < a->row_ptr[i + 1]; ++e)
                for (int q = 0; q < n2; ++q)
                    if (a->col[e] == pc->mt->col[q0 + q]) aj[i * n2 + q] = a->val[e];
        for (int p = 0; p < n2; ++p) {
            rhs[p] = aj[j * n2 + p];
            for (int q = 0; q < n2; ++q)
                for (int i = 0; i < n; ++i) nrm[p * n2 + q] += aj[i * n2 + p] * aj[i * n2 + q];
        }
        HS_TEST_CHECK(dense_solve(n2, nrm, rhs, m) == 0, "column %d: normal equations singular", j);
        double kappa = cond_spd(n2, nrm), d = 0.0, nm = 0.0;
        for (int q = 0; q < n2; ++q) {
            d = fmax(d, fabs(pc->mt->val[q0 + q] - m[q]));
            nm = fmax(nm, fabs(m[q]));
            /* M in CSR holds the same value at (J[q], j) */
            int32_t k = hs_csr_find(pc->m, pc->mt->col[q0 + q], j);
            HS_TEST_CHECK(k >= 0 && pc->m->val[k] == pc->mt->val[q0 + q], "M(%d,%d) not scattered", pc->mt->col[q0 + q], j);
        }
        double tol = 100.0 * n2 * DBL_EPSILON * kappa;
        HS_TEST_CHECK(d <= tol * nm, "level %d column %d: |m - m_dense| %.3e > %.3e |m| (kappa %.3g)", level, j, d, tol, kappa);
        worst = fmax(worst, d / (tol * nm));
        free(aj); free(nrm); free(rhs); free(m);
    }
    hs_precond_destroy(&pc);
}

/* Every row of FSAI(A): g solves A(P,P) g = e_i scaled by 1/sqrt(g_i); agreement to
 * c n2 eps kappa(A(P,P)) (Cholesky vs elimination, c = 100 as above); (G A G^T)_ii = 1 likewise. */
static void check_fsai_rows(const hs_csr *a, int level)
{
    hs_precond *pc = NULL;
    HS_TEST_OK(hs_precond_create(HS_PRECOND_FSAI, level, a, &pc));
    HS_TEST_OK(hs_precond_compute(pc, a));
    const hs_csr *g = pc->m;
    for (int i = 0; i < a->n_rows; ++i) {
        int q0 = g->row_ptr[i], n2 = g->row_ptr[i + 1] - q0;
        HS_TEST_CHECK(g->col[q0 + n2 - 1] == i, "row %d of G does not end on the diagonal", i);
        double *s = calloc((size_t)n2 * n2, sizeof(double)), *e = calloc(n2, sizeof(double)), *x = calloc(n2, sizeof(double));
        for (int p = 0; p < n2; ++p)
            for (int q = 0; q < n2; ++q) {
                int32_t k = hs_csr_find(a, g->col[q0 + p], g->col[q0 + q]);
                s[p * n2 + q] = k >= 0 ? a->val[k] : 0.0;
            }
        e[n2 - 1] = 1.0;
        HS_TEST_CHECK(dense_solve(n2, s, e, x) == 0, "row %d: A(P,P) singular", i);
        double sc = 1.0 / sqrt(x[n2 - 1]), kappa = cond_spd(n2, s), tol = 100.0 * n2 * DBL_EPSILON * kappa;
        double d = 0.0, nx = 0.0, gag = 0.0;
        for (int q = 0; q < n2; ++q) {
            d = fmax(d, fabs(g->val[q0 + q] - sc * x[q]));
            nx = fmax(nx, fabs(sc * x[q]));
            for (int p = 0; p < n2; ++p) gag += g->val[q0 + p] * s[p * n2 + q] * g->val[q0 + q];
        }
        HS_TEST_CHECK(d <= tol * nx, "level %d row %d: |g - g_dense| %.3e > %.3e |g|", level, i, d, tol);
        HS_TEST_CHECK(fabs(gag - 1.0) <= tol, "level %d row %d: (G A G^T)_ii = %.17g", level, i, gag);
        free(s); free(e); free(x);
    }
    /* G^T holds the same values */
    for (int r = 0; r < pc->mt->n_rows; ++r)
        for (int k = pc->mt->row_ptr[r]; k < pc->mt->row_ptr[r + 1]; ++k)
            HS_TEST_CHECK(pc->mt->val[k] == g->val[hs_csr_find(g, pc->mt->col[k], r)], "G^T(%d,%d)", r, pc->mt->col[k]);
    hs_precond_destroy(&pc);
}

static double true_rel_res(const hs_csr *a, const double *x, const double *b)
{
    int n = a->n_rows;
    double *r = malloc(sizeof(double) * n);
    hs_csr_spmv(a, x, r);
    double rr = 0.0, bb = 0.0;
    for (int i = 0; i < n; ++i) rr += (b[i] - r[i]) * (b[i] - r[i]), bb += b[i] * b[i];
    free(r);
    return sqrt(rr / bb);
}

/* Solve with (krylov, precond) to tol from x = 0; returns iterations (-1 when not converged). */
static int solve(const hs_csr *a, hs_krylov k, hs_precond_kind p, int level, hs_cg_variant var, double tol,
                 const double *b, double *x)
{
    hs_precond *pc = NULL;
    hs_krylov_work *w = NULL;
    HS_TEST_OK(hs_precond_create(p, level, a, &pc));
    HS_TEST_OK(hs_precond_compute(pc, a));
    HS_TEST_OK(hs_krylov_work_create(a->n_rows, &w));
    hs_cg_opts o = {tol, 2000, var};
    hs_cg_result r;
    HS_TEST_OK(hs_krylov_solve(k, a->n_rows, matvec, (void *)a, hs_precond_apply, pc, b, x, &o, w, &r));
    hs_krylov_work_destroy(&w);
    hs_precond_destroy(&pc);
    return r.outcome == HS_CG_CONVERGED ? r.iters : -1;
}

int main(void)
{
    /* ---- registries --------------------------------------------------------------------- */
    HS_TEST_CHECK(hs_preconds()->count == 3 && hs_krylovs()->count == 2, "list sizes");
    for (size_t i = 0; i < hs_preconds()->count; ++i) {
        const hs_precond_info *e = hs_registry_at(hs_preconds(), i);
        hs_precond_kind got;
        HS_TEST_CHECK(e->summary && e->seed && (size_t)e->kind == i, "precond entry %zu", i);
        HS_TEST_OK(hs_precond_lookup("solver.precond", e->name, &got));
        HS_TEST_CHECK(got == e->kind && !strcmp(hs_precond_name(got), e->name), "lookup %s", e->name);
    }
    hs_precond_kind pk;
    hs_krylov kk;
    HS_TEST_CHECK(hs_precond_lookup("solver.precond", "spai", &pk) == HS_ERR_CONFIG &&
                      strstr(hs_error_message(), "jacobi, sai, fsai"), "unknown precond: %s", hs_error_message());
    hs_error_clear();
    HS_TEST_CHECK(hs_krylov_lookup("solver.krylov", "gmres", &kk) == HS_ERR_CONFIG &&
                      strstr(hs_error_message(), "cg, bicgstab"), "unknown krylov: %s", hs_error_message());
    hs_error_clear();
    HS_TEST_CHECK(hs_krylov_precond_check(HS_KRYLOV_CG, HS_PRECOND_SAI) == HS_ERR_CONFIG &&
                      strstr(hs_error_message(), "\"sai\"") && strstr(hs_error_message(), "fsai") &&
                      strstr(hs_error_message(), "bicgstab"), "cg + sai: %s", hs_error_message());
    hs_error_clear();
    HS_TEST_OK(hs_krylov_precond_check(HS_KRYLOV_CG, HS_PRECOND_FSAI));
    HS_TEST_OK(hs_krylov_precond_check(HS_KRYLOV_BICGSTAB, HS_PRECOND_SAI));
    HS_TEST_OK(hs_krylov_precond_check(HS_KRYLOV_BICGSTAB, HS_PRECOND_JACOBI));

    /* ---- SAI and FSAI against dense computations ------------------------------------------ */
    hs_csr *cd = convdiff(12, 0.6);
    check_sai_columns(cd, 1);
    check_sai_columns(cd, 2);
    hs_csr *p1s = p1_matrix(3, 0.5, 0.05, 0.12, 0.03);
    check_fsai_rows(p1s, 1);
    check_fsai_rows(p1s, 2);
    check_sai_columns(p1s, 1);
    hs_csr_destroy(&p1s);
    hs_csr_destroy(&cd);

    /* ---- SAI-BiCGStab on convection-diffusion -------------------------------------------- */
    cd = convdiff(40, 0.8);
    int n = cd->n_rows;
    double *xs = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n);
    for (int i = 0; i < n; ++i) xs[i] = sin(0.05 * i) + 1.0;
    hs_csr_spmv(cd, xs, b);
    int it_sai = solve(cd, HS_KRYLOV_BICGSTAB, HS_PRECOND_SAI, 1, HS_CG_CLASSIC, 1e-10, b, x);
    double rr = true_rel_res(cd, x, b);
    /* the recurrence residual drifts from the true one by O(eps kappa); 10 tol leaves room for it */
    HS_TEST_CHECK(it_sai > 0 && rr <= 1e-9, "SAI-BiCGStab: %d iterations, true residual %.3e", it_sai, rr);
    int it_sai2 = solve(cd, HS_KRYLOV_BICGSTAB, HS_PRECOND_SAI, 2, HS_CG_CLASSIC, 1e-10, b, x);
    HS_TEST_CHECK(it_sai2 > 0 && true_rel_res(cd, x, b) <= 1e-9, "SAI(A^2)-BiCGStab: %d iterations", it_sai2);
    int it_jac = solve(cd, HS_KRYLOV_BICGSTAB, HS_PRECOND_JACOBI, 1, HS_CG_CLASSIC, 1e-10, b, x);
    HS_TEST_CHECK(it_jac > 0 && true_rel_res(cd, x, b) <= 1e-9, "Jacobi-BiCGStab: %d iterations", it_jac);
    if (getenv("HS_TEST_VERBOSE")) printf("bicgstab: SAI %d, SAI(A^2) %d, Jacobi %d\n", it_sai, it_sai2, it_jac);
    HS_TEST_CHECK(it_sai < it_jac && it_sai2 <= it_sai, "iterations: SAI %d, SAI(A^2) %d, Jacobi %d", it_sai, it_sai2, it_jac);
    free(xs); free(b); free(x);
    hs_csr_destroy(&cd);

    /* ---- FSAI-PCG vs Jacobi-PCG on a P1 heart-like matrix ------------------------------- */
    hs_csr *p1 = p1_matrix(14, 0.25, 0.05, 0.12, 0.03);
    n = p1->n_rows;
    xs = malloc(sizeof(double) * n), b = malloc(sizeof(double) * n), x = malloc(sizeof(double) * n);
    double *x2 = malloc(sizeof(double) * n), *dinv = malloc(sizeof(double) * n);
    for (int i = 0; i < n; ++i) xs[i] = cos(0.3 * i) + 0.01 * i;
    hs_csr_spmv(p1, xs, b);
    for (int v = 0; v < 2; ++v) {
        hs_cg_variant var = v ? HS_CG_CHRONOPOULOS : HS_CG_CLASSIC;
        int ij = solve(p1, HS_KRYLOV_CG, HS_PRECOND_JACOBI, 1, var, 1e-10, b, x);
        int if1 = solve(p1, HS_KRYLOV_CG, HS_PRECOND_FSAI, 1, var, 1e-10, b, x2);
        double d = 0.0, nx = 0.0;
        for (int i = 0; i < n; ++i) d = fmax(d, fabs(x[i] - x2[i])), nx = fmax(nx, fabs(xs[i]));
        if (getenv("HS_TEST_VERBOSE")) printf("%s: FSAI %d, Jacobi %d\n", hs_cg_variant_name(var), if1, ij);
        HS_TEST_CHECK(ij > 0 && if1 > 0 && if1 < ij, "%s: FSAI-PCG %d iterations, Jacobi-PCG %d",
                      hs_cg_variant_name(var), if1, ij);
        /* both within kappa tol of x*; kappa(A) <= 1e2 for this mass-dominated matrix */
        HS_TEST_CHECK(d <= 2 * 1e2 * 1e-10 * nx, "%s: FSAI and Jacobi solutions differ by %.3e", hs_cg_variant_name(var), d);
        int if2 = solve(p1, HS_KRYLOV_CG, HS_PRECOND_FSAI, 2, var, 1e-10, b, x2);
        HS_TEST_CHECK(if2 > 0 && if2 <= if1, "%s: FSAI(A^2)-PCG %d iterations, FSAI(A) %d", hs_cg_variant_name(var), if2, if1);
        /* hs_pcg with Jacobi is the CG of cg.c: same iteration count up to round-off (+-1) */
        for (int i = 0; i < n; ++i) dinv[i] = 1.0 / p1->val[hs_csr_find(p1, i, i)];
        hs_cg_work *cw = NULL;
        HS_TEST_OK(hs_cg_work_create(n, &cw));
        hs_cg_opts o = {1e-10, 2000, var};
        hs_cg_result r;
        HS_TEST_OK(hs_cg_solve(n, matvec, p1, dinv, b, x2, &o, cw, &r));
        HS_TEST_CHECK(abs(r.iters - ij) <= 1, "%s: hs_pcg(jacobi) %d vs hs_cg_solve %d iterations", hs_cg_variant_name(var),
                      ij, r.iters);
        hs_cg_work_destroy(&cw);
        /* BiCGStab with FSAI works on the SPD system too */
        int ib = solve(p1, HS_KRYLOV_BICGSTAB, HS_PRECOND_FSAI, 1, var, 1e-10, b, x2);
        HS_TEST_CHECK(ib > 0 && true_rel_res(p1, x2, b) <= 1e-9, "FSAI-BiCGStab: %d", ib);
    }
    free(xs); free(b); free(x); free(x2); free(dinv);

    /* ---- errors ----------------------------------------------------------------------- */
    hs_precond *pc = NULL;
    p1->val[hs_csr_find(p1, 5, 5)] = 0.0; /* zero diagonal: Jacobi names the row; FSAI: not SPD */
    HS_TEST_OK(hs_precond_create(HS_PRECOND_JACOBI, 1, p1, &pc));
    HS_TEST_CHECK(hs_precond_compute(pc, p1) == HS_ERR_NUMERIC && strstr(hs_error_message(), "row 6 (1-based)"),
                  "zero diagonal: %s", hs_error_message());
    hs_error_clear();
    hs_precond_destroy(&pc);
    HS_TEST_OK(hs_precond_create(HS_PRECOND_FSAI, 1, p1, &pc));
    HS_TEST_CHECK(hs_precond_compute(pc, p1) == HS_ERR_NUMERIC && strstr(hs_error_message(), "not positive definite"),
                  "FSAI of a non-SPD matrix: %s", hs_error_message());
    hs_error_clear();
    hs_precond_destroy(&pc);
    for (int k = 0; k < p1->nnz; ++k) /* a zero column 8 (and row): singular; the first column whose
                                        * pattern reaches it reports it */
        if (p1->col[k] == 7) p1->val[k] = 0.0;
    HS_TEST_OK(hs_precond_create(HS_PRECOND_SAI, 1, p1, &pc));
    HS_TEST_CHECK(hs_precond_compute(pc, p1) == HS_ERR_NUMERIC && strstr(hs_error_message(), "column ") &&
                      strstr(hs_error_message(), "singular"), "singular: %s", hs_error_message());
    hs_error_clear();
    hs_precond_destroy(&pc);
    hs_csr_destroy(&p1);
    hs_csr *rect = NULL;
    HS_TEST_OK(hs_csr_create(3, 4, 0, &rect));
    HS_TEST_CHECK(hs_precond_create(HS_PRECOND_SAI, 1, rect, &pc) == HS_ERR_NUMERIC &&
                      strstr(hs_error_message(), "3 x 4"), "non-square: %s", hs_error_message());
    hs_error_clear();
    hs_csr_destroy(&rect);
    HS_TEST_RETURN();
}
