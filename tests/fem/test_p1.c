/* P1 tetrahedron: volumes and gradients on the reference element and under random affine maps. */
#include <math.h>

#include "hs_p1.h"
#include "hs_test.h"

int main(void)
{
    double x[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, g[4][3];
    double v = hs_p1_gradients(x, g);
    HS_TEST_NEAR(v, 1.0 / 6.0, 1e-16, "reference volume");
    double gref[4][3] = {{-1, -1, -1}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int a = 0; a < 4; ++a)
        for (int k = 0; k < 3; ++k) HS_TEST_NEAR(g[a][k], gref[a][k], 1e-15, "reference gradient");

    /* Random affine maps x -> A x + c: V scales by det A; gradients reproduce linears exactly:
     * sum_a x_a (grad N_a)^T = I and sum_a grad N_a = 0. */
    unsigned s = 7;
    for (int trial = 0; trial < 100; ++trial) {
        double A[3][3], c[3], y[4][3];
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) { s = s * 1103515245u + 12345u; A[i][j] = (i == j ? 1.0 : 0.0) + 0.4 * ((s >> 8) / 16777216.0 - 0.5); }
            s = s * 1103515245u + 12345u; c[i] = 10.0 * ((s >> 8) / 16777216.0);
        }
        double det = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) - A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
                     A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
        for (int a = 0; a < 4; ++a)
            for (int i = 0; i < 3; ++i) y[a][i] = c[i] + A[i][0] * x[a][0] + A[i][1] * x[a][1] + A[i][2] * x[a][2];
        double gy[4][3] = {{0}};
        double vy = hs_p1_gradients(y, gy);
        HS_TEST_NEAR(vy, det / 6.0, 1e-13, "mapped volume");
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                double sum = 0;
                for (int a = 0; a < 4; ++a) sum += y[a][i] * gy[a][j];
                HS_TEST_NEAR(sum, i == j ? 1.0 : 0.0, 1e-12, "linear reproduction");
            }
        for (int k = 0; k < 3; ++k) HS_TEST_NEAR(gy[0][k] + gy[1][k] + gy[2][k] + gy[3][k], 0.0, 1e-12, "partition of unity");
    }
    /* Swapping two nodes inverts the element: negative volume. */
    double xi[4][3] = {{0, 0, 0}, {0, 1, 0}, {1, 0, 0}, {0, 0, 1}};
    HS_TEST_NEAR(hs_p1_gradients(xi, g), -1.0 / 6.0, 1e-16, "inverted volume");
    /* Packed symmetric index covers 0..9 once for a <= b. */
    int hit[10] = {0};
    for (int a = 0; a < 4; ++a)
        for (int b = a; b < 4; ++b) hit[hs_sym4_index(a, b)]++;
    for (int i = 0; i < 10; ++i) HS_TEST_CHECK(hit[i] == 1, "sym index %d hit %d times", i, hit[i]);
    HS_TEST_RETURN();
}
