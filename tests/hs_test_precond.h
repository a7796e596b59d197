/**
 * @file hs_test_precond.h
 * @brief Test matrices and dense helpers of the preconditioner tests (tests/solvers/test_precond.c and
 * the GPU test tests/backends/cuda/test_gpu_precond.cu): an unsymmetric convection-diffusion matrix,
 * a P1 monodomain-like matrix, Gaussian elimination, a condition number estimate. Header-only.
 */
#ifndef HS_TEST_PRECOND_H
#define HS_TEST_PRECOND_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_csr.h"

/* -Laplace(u) + c . grad(u) on an m x m grid (h = 1/(m+1)), central differences: unsymmetric,
 * mesh Peclet number |c| h / 2 = pe. */
static hs_csr *convdiff(int m, double pe)
{
    int n = m * m;
    hs_csr *a = NULL;
    hs_csr_create(n, n, 5 * n, &a);
    int k = 0;
    for (int j = 0; j < m; ++j)
        for (int i = 0; i < m; ++i) {
            int row = j * m + i;
            a->row_ptr[row] = k;
            /* h^2 times the operator: diagonal 4, neighbours -1 -/+ pe (x) and -1 -/+ 0.5 pe (y) */
            if (j > 0) a->col[k] = row - m, a->val[k++] = -1.0 - 0.5 * pe;
            if (i > 0) a->col[k] = row - 1, a->val[k++] = -1.0 - pe;
            a->col[k] = row, a->val[k++] = 4.0;
            if (i < m - 1) a->col[k] = row + 1, a->val[k++] = -1.0 + pe;
            if (j < m - 1) a->col[k] = row + m, a->val[k++] = -1.0 + 0.5 * pe;
        }
    a->row_ptr[n] = k;
    a->nnz = k;
    return a;
}

/* P1 tetrahedra on an m^3 cube of side h (6 tets per cube): A = M / dt + K with the consistent
 * mass and an anisotropic diffusion tensor diag(d1, d2, d2) (mm^2/ms), like the monodomain tangent. */
static hs_csr *p1_matrix(int m, double h, double dt, double d1, double d2)
{
    int nv = m + 1, nn = nv * nv * nv, ne = 6 * m * m * m;
    int32_t *tets = (int32_t *)malloc(sizeof(int32_t) * 4 * (size_t)ne);
    static const int cube_tets[6][4] = {{0, 1, 3, 7}, {0, 1, 5, 7}, {0, 2, 3, 7}, {0, 2, 6, 7}, {0, 4, 5, 7}, {0, 4, 6, 7}};
    int e = 0;
    for (int z = 0; z < m; ++z)
        for (int y = 0; y < m; ++y)
            for (int x = 0; x < m; ++x) {
                int c[8];
                for (int b = 0; b < 8; ++b) c[b] = ((z + (b >> 2 & 1)) * nv + (y + (b >> 1 & 1))) * nv + x + (b & 1);
                for (int t = 0; t < 6; ++t, ++e)
                    for (int q = 0; q < 4; ++q) tets[4 * e + q] = c[cube_tets[t][q]];
            }
    hs_csr *a = NULL;
    hs_csr_from_tets(nn, ne, tets, &a);
    for (e = 0; e < ne; ++e) {
        const int32_t *t = tets + 4 * e;
        double p[4][3];
        for (int q = 0; q < 4; ++q) {
            int v = t[q];
            p[q][0] = h * (v % nv), p[q][1] = h * (v / nv % nv), p[q][2] = h * (v / (nv * nv));
        }
        double J[3][3];
        for (int r = 0; r < 3; ++r)
            for (int cc = 0; cc < 3; ++cc) J[r][cc] = p[r + 1][cc] - p[0][cc];
        double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                     J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
        double vol = fabs(det) / 6.0;
        /* gradients of the barycentric functions: rows of J^-1^T ... via the cofactor matrix */
        double inv[3][3];
        inv[0][0] = (J[1][1] * J[2][2] - J[1][2] * J[2][1]) / det;
        inv[0][1] = (J[0][2] * J[2][1] - J[0][1] * J[2][2]) / det;
        inv[0][2] = (J[0][1] * J[1][2] - J[0][2] * J[1][1]) / det;
        inv[1][0] = (J[1][2] * J[2][0] - J[1][0] * J[2][2]) / det;
        inv[1][1] = (J[0][0] * J[2][2] - J[0][2] * J[2][0]) / det;
        inv[1][2] = (J[0][2] * J[1][0] - J[0][0] * J[1][2]) / det;
        inv[2][0] = (J[1][0] * J[2][1] - J[1][1] * J[2][0]) / det;
        inv[2][1] = (J[0][1] * J[2][0] - J[0][0] * J[2][1]) / det;
        inv[2][2] = (J[0][0] * J[1][1] - J[0][1] * J[1][0]) / det;
        double g[4][3];
        for (int d = 0; d < 3; ++d) { /* grad phi_q = column q-1 of J^-1 (q >= 1), phi_0 = -sum */
            g[1][d] = inv[d][0], g[2][d] = inv[d][1], g[3][d] = inv[d][2];
            g[0][d] = -(g[1][d] + g[2][d] + g[3][d]);
        }
        const double D[3] = {d1, d2, d2};
        for (int r = 0; r < 4; ++r)
            for (int cc = 0; cc < 4; ++cc) {
                double k = 0.0;
                for (int d = 0; d < 3; ++d) k += D[d] * g[r][d] * g[cc][d];
                a->val[hs_csr_find(a, t[r], t[cc])] += vol * k + vol / 20.0 * (r == cc ? 2.0 : 1.0) / dt;
            }
    }
    free(tets);
    return a;
}

/* x = S^-1 b by Gaussian elimination with partial pivoting (S row-major n x n, copied). */
static int dense_solve(int n, const double *s, const double *b, double *x)
{
    double *a = (double *)malloc(sizeof(double) * (size_t)n * (n + 1));
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) a[i * (n + 1) + j] = s[i * n + j];
        a[i * (n + 1) + n] = b[i];
    }
    for (int c = 0; c < n; ++c) {
        int pr = c;
        for (int r = c + 1; r < n; ++r)
            if (fabs(a[r * (n + 1) + c]) > fabs(a[pr * (n + 1) + c])) pr = r;
        if (a[pr * (n + 1) + c] == 0.0) { free(a); return -1; }
        for (int j = 0; j <= n; ++j) { double t = a[c * (n + 1) + j]; a[c * (n + 1) + j] = a[pr * (n + 1) + j]; a[pr * (n + 1) + j] = t; }
        for (int r = c + 1; r < n; ++r) {
            double f = a[r * (n + 1) + c] / a[c * (n + 1) + c];
            for (int j = c; j <= n; ++j) a[r * (n + 1) + j] -= f * a[c * (n + 1) + j];
        }
    }
    for (int i = n - 1; i >= 0; --i) {
        double s2 = a[i * (n + 1) + n];
        for (int j = i + 1; j < n; ++j) s2 -= a[i * (n + 1) + j] * x[j];
        x[i] = s2 / a[i * (n + 1) + i];
    }
    free(a);
    return 0;
}

/* Condition number estimate of an SPD S (n x n): power iteration for lambda_max, inverse power
 * iteration for lambda_min (both converge from below/above, so this underestimates kappa a little:
 * the tolerances below carry a factor 10 for that). */
static double cond_spd(int n, const double *s)
{
    double *v = (double *)malloc(sizeof(double) * n), *w = (double *)malloc(sizeof(double) * n);
    double lmax = 0.0, lmin = 0.0;
    for (int pass = 0; pass < 2; ++pass) {
        for (int i = 0; i < n; ++i) v[i] = 1.0 + 0.1 * i;
        double lam = 0.0;
        for (int it = 0; it < 300; ++it) {
            double nv = 0.0;
            for (int i = 0; i < n; ++i) nv += v[i] * v[i];
            nv = sqrt(nv);
            for (int i = 0; i < n; ++i) v[i] /= nv;
            if (pass == 0) {
                for (int i = 0; i < n; ++i) { w[i] = 0.0; for (int j = 0; j < n; ++j) w[i] += s[i * n + j] * v[j]; }
            } else if (dense_solve(n, s, v, w) != 0) {
                free(v); free(w); return INFINITY;
            }
            lam = 0.0;
            for (int i = 0; i < n; ++i) lam += v[i] * w[i];
            memcpy(v, w, sizeof(double) * n);
        }
        if (pass == 0) lmax = lam; else lmin = 1.0 / lam;
    }
    free(v); free(w);
    return lmax / lmin;
}

#endif
