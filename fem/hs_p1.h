/**
 * @file hs_p1.h
 * @brief Linear (P1) tetrahedron: volume and shape-function gradients (constant per element).
 */
#ifndef HS_P1_H
#define HS_P1_H

#include "hs_hd.h"

/**
 * @brief Gradients of N0..N3 and the signed volume of the tetrahedron x[4][3].
 * With J = [x1-x0, x2-x0, x3-x0] (columns), grad N1..N3 are the rows of J^-1 and
 * grad N0 = -(grad N1 + grad N2 + grad N3); V = det(J)/6.
 * @param[in] x [4][3] node coordinates; @param[out] g [4][3] gradients.
 * @return signed volume (0 for a degenerate element, gradients then left unset).
 */
HS_HD double hs_p1_gradients(const double x[4][3], double g[4][3])
{
    double a[3], b[3], c[3];
    for (int k = 0; k < 3; ++k) {
        a[k] = x[1][k] - x[0][k];
        b[k] = x[2][k] - x[0][k];
        c[k] = x[3][k] - x[0][k];
    }
    /* rows of J^-1 are the cofactor vectors divided by det: (b x c, c x a, a x b) / det */
    double bc[3] = {b[1] * c[2] - b[2] * c[1], b[2] * c[0] - b[0] * c[2], b[0] * c[1] - b[1] * c[0]};
    double ca[3] = {c[1] * a[2] - c[2] * a[1], c[2] * a[0] - c[0] * a[2], c[0] * a[1] - c[1] * a[0]};
    double ab[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    double det = a[0] * bc[0] + a[1] * bc[1] + a[2] * bc[2];
    if (det == 0.0) return 0.0;
    for (int k = 0; k < 3; ++k) {
        g[1][k] = bc[k] / det;
        g[2][k] = ca[k] / det;
        g[3][k] = ab[k] / det;
        g[0][k] = -(g[1][k] + g[2][k] + g[3][k]);
    }
    return det / 6.0;
}

/** Index of (a,b), a <= b, in a packed upper-triangular symmetric 4x4 (10 entries, row-major). */
HS_HD int hs_sym4_index(int a, int b)
{
    if (a > b) { int t = a; a = b; b = t; }
    /* row offsets 0, 4, 7, 9 */
    return (a == 0 ? 0 : a == 1 ? 4 : a == 2 ? 7 : 9) + (b - a);
}

#endif
