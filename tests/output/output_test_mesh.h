/**
 * @file output_test_mesh.h
 * @brief A small box mesh built by hand for the output tests, so they do not depend on the mesh
 * generators they are not testing.
 *
 * nx*ny*nz cubes of edge 0.1 mm, each split into 6 tets along its main diagonal (Kuhn split),
 * positively oriented. Region = cube index % 3; fibres vary per element and are unit vectors, so
 * every array written has distinct, non-trivial values.
 */
#ifndef OUTPUT_TEST_MESH_H
#define OUTPUT_TEST_MESH_H

#include <math.h>
#include <stdlib.h>

#include "hs_mesh.h"
#include "hs_util.h"

/* 6 * signed volume of tet @p t of @p m; local so the test does not rely on meshes/ code. */
static inline double output_test_det6(const hs_mesh *m, const int32_t *t)
{
    const double *a = m->xyz + 3 * t[0], *b = m->xyz + 3 * t[1];
    const double *c = m->xyz + 3 * t[2], *d = m->xyz + 3 * t[3];
    const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const double w[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
    return u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
           u[2] * (v[0] * w[1] - v[1] * w[0]);
}

/** @brief Build the box mesh with fibres; free with hs_mesh_destroy. */
static inline hs_status output_test_box(int nx, int ny, int nz, hs_mesh **out)
{
    const int px = nx + 1, py = ny + 1, pz = nz + 1;
    hs_mesh *m = NULL;
    hs_status st = HS_OK;
    HS_CALL(hs_mesh_alloc(px * py * pz, 6 * nx * ny * nz, &m));
    HS_CALL_GOTO(HS_ALLOC(m->fiber, 3 * (size_t)m->n_elems, "test fibres"), fail);
    for (int k = 0; k < pz; ++k)
        for (int j = 0; j < py; ++j)
            for (int i = 0; i < px; ++i) {
                double *x = m->xyz + 3 * (i + px * (j + py * k));
                /* 0.1 is not a binary fraction: exact read-back then proves all 64 bits survive. */
                x[0] = 0.1 * i;
                x[1] = 0.1 * j;
                x[2] = 0.1 * k;
            }
    /* Kuhn split: tet p = (v0, v0+e_a, v0+e_a+e_b, v7) for each axis order (a, b, c). */
    static const int order[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    int e = 0;
    for (int k = 0; k < nz; ++k)
        for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i) {
                const int cube = i + nx * (j + ny * k);
                for (int t = 0; t < 6; ++t, ++e) {
                    int c[3] = {i, j, k};
                    int32_t *tet = m->tets + 4 * e;
                    tet[0] = c[0] + px * (c[1] + py * c[2]);
                    for (int s = 0; s < 2; ++s) {
                        ++c[order[t][s]];
                        tet[s + 1] = c[0] + px * (c[1] + py * c[2]);
                    }
                    tet[3] = (i + 1) + px * ((j + 1) + py * (k + 1));
                    if (output_test_det6(m, tet) < 0) { /* odd permutations come out inverted */
                        int32_t tmp = tet[1];
                        tet[1] = tet[2];
                        tet[2] = tmp;
                    }
                    m->region[e] = cube % 3;
                    double *f = m->fiber + 3 * e;
                    const double a = 0.37 * e;
                    f[0] = cos(a) * 0.6;
                    f[1] = sin(a) * 0.6;
                    f[2] = 0.8;
                }
            }
    *out = m;
    return HS_OK;
fail:
    hs_mesh_destroy(&m);
    return st;
}

#endif
