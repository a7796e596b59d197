/**
 * @file hs_test_cg_matrix.h
 * @brief The CG tests' SPD matrices (a row-scaled 1D Laplacian, a 7-point 3D Laplacian with a varying
 * coefficient), their Jacobi inverse diagonal, the CSR operator for hs_cg_solve and a relative
 * difference. Header-only, for tests (tests/solvers/test_cg_sstep.c, test_cg_pipelined.c).
 */
#ifndef HS_TEST_CG_MATRIX_H
#define HS_TEST_CG_MATRIX_H

#include <math.h>

#include "hs_csr.h"

/* y = A x for hs_cg_solve (ctx: the hs_csr) */
static inline void hs_test_csr_matvec(void *ctx, const double *x, double *y)
{
    hs_csr_spmv((const hs_csr *)ctx, x, y);
}

/* 1D Laplacian with shift sh and row scaling (as test_cg.c): SPD, cond(D^-1 A) <= (4 + sh)/sh * 9. */
static inline hs_csr *laplace1d(int n, double sh)
{
    hs_csr *a = NULL;
    hs_csr_create(n, n, 3 * n - 2, &a);
    int k = 0;
    for (int i = 0; i < n; ++i) {
        a->row_ptr[i] = k;
        double w = 1.0 + 0.5 * sin(0.1 * i);
        if (i > 0) { a->col[k] = i - 1; a->val[k++] = -1.0 * w * (1.0 + 0.5 * sin(0.1 * (i - 1))); }
        a->col[k] = i; a->val[k++] = (2.0 + sh) * w * w;
        if (i < n - 1) { a->col[k] = i + 1; a->val[k++] = -1.0 * w * (1.0 + 0.5 * sin(0.1 * (i + 1))); }
    }
    a->row_ptr[n] = k;
    return a;
}

/* 7-point Laplacian on a q^3 grid with a coefficient varying 1..10 and shift sh (a 3D stencil like the
 * P1 matrices: cond(D^-1 A) ~ 4 q^2 / pi^2 * 10 without the shift). */
static inline hs_csr *laplace3d(int q, double sh)
{
    int n = q * q * q;
    hs_csr *a = NULL;
    hs_csr_create(n, n, 7 * n, &a);
    int k = 0;
#define IDX(i, j, l) (((l) * q + (j)) * q + (i))
#define COEF(i, j, l) (1.0 + 9.0 * (0.5 + 0.5 * sin(0.3 * (i) + 0.2 * (j) + 0.1 * (l))))
    for (int l = 0; l < q; ++l)
        for (int j = 0; j < q; ++j)
            for (int i = 0; i < q; ++i) {
                int row = IDX(i, j, l);
                a->row_ptr[row] = k;
                double c = COEF(i, j, l), diag = sh;
                int nb[6][3] = {{i, j, l - 1}, {i, j - 1, l}, {i - 1, j, l}, {i + 1, j, l}, {i, j + 1, l}, {i, j, l + 1}};
                int kd = -1;
                for (int e = 0; e < 6; ++e) {
                    if (e == 3) { kd = k; a->col[k++] = row; }
                    int ii = nb[e][0], jj = nb[e][1], ll = nb[e][2];
                    double cw = 0.5 * (c + (ii >= 0 && ii < q && jj >= 0 && jj < q && ll >= 0 && ll < q
                                                ? COEF(ii, jj, ll) : c));
                    diag += cw;
                    if (ii < 0 || ii >= q || jj < 0 || jj >= q || ll < 0 || ll >= q) continue;
                    a->col[k] = IDX(ii, jj, ll);
                    a->val[k++] = -cw;
                }
                a->val[kd] = diag;
            }
    a->row_ptr[n] = k;
    a->nnz = k;
    return a;
#undef IDX
#undef COEF
}

static inline double rel_diff(int n, const double *x, const double *y)
{
    double d = 0, nx = 0;
    for (int i = 0; i < n; ++i) { d += (x[i] - y[i]) * (x[i] - y[i]); nx += y[i] * y[i]; }
    return sqrt(d / nx);
}

static inline void jacobi(const hs_csr *a, double *dinv)
{
    for (int i = 0; i < a->n_rows; ++i) dinv[i] = 1.0 / a->val[hs_csr_find(a, i, i)];
}

#endif
