/**
 * @file mesh_test_util.h
 * @brief Checks shared by the mesh tests: P1 conformity of a box mesh. Include after hs_test.h.
 */
#ifndef HS_MESH_TEST_UTIL_H
#define HS_MESH_TEST_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "hs_mesh.h"
#include "hs_test.h"

/* One tet face: its nodes sorted, the element it belongs to and the element's opposite node. */
typedef struct mt_face {
    int32_t v[3];
    int32_t elem;
    int32_t opposite;
} mt_face;

static int mt_face_cmp(const void *pa, const void *pb)
{
    const mt_face *a = pa, *b = pb;
    for (int k = 0; k < 3; ++k)
        if (a->v[k] != b->v[k]) return a->v[k] < b->v[k] ? -1 : 1;
    return 0;
}

static double mt_orient(const double *a, const double *b, const double *c, const double *d)
{
    const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const double w[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
    return u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
           u[2] * (v[0] * w[1] - v[1] * w[0]);
}

static double mt_tri_area(const double *a, const double *b, const double *c)
{
    const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                         u[0] * v[1] - u[1] * v[0]};
    return 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
}

/* Which box plane (0..5: x=0, x=lx, y=0, y=ly, z=0, z=lz) holds all three points, or -1. */
static int mt_box_plane(const double *p[3], const double len[3], double tol)
{
    for (int axis = 0; axis < 3; ++axis)
        for (int side = 0; side < 2; ++side) {
            const double c = side ? len[axis] : 0.0;
            int on = 1;
            for (int k = 0; k < 3; ++k) on &= fabs(p[k][axis] - c) <= tol;
            if (on) return 2 * axis + side;
        }
    return -1;
}

/**
 * P1 conformity of a mesh of the box [0,lx]x[0,ly]x[0,lz]: every face is shared by one or two
 * tets; a face of one tet lies on the box surface (a hanging node would leave an unmatched face
 * inside); the two tets of a shared face lie on opposite sides of it (no overlap); and the
 * boundary faces tile the surface (area sum = box surface area, relative rtol).
 */
static void mt_check_box_conforming(const hs_mesh *m, double lx, double ly, double lz, double rtol)
{
    const size_t nf = 4 * (size_t)m->n_elems;
    mt_face *f = malloc(nf * sizeof *f);
    HS_TEST_CHECK(f != NULL, "out of memory for %zu faces", nf);
    if (!f) return;
    for (int32_t e = 0; e < m->n_elems; ++e)
        for (int k = 0; k < 4; ++k) {
            mt_face *x = &f[4 * (size_t)e + k];
            int n = 0;
            for (int j = 0; j < 4; ++j)
                if (j != k) x->v[n++] = m->tets[4 * (size_t)e + j];
            /* sort 3 */
            for (int a = 0; a < 2; ++a)
                for (int b = 0; b < 2 - a; ++b)
                    if (x->v[b] > x->v[b + 1]) {
                        int32_t t = x->v[b];
                        x->v[b] = x->v[b + 1];
                        x->v[b + 1] = t;
                    }
            x->elem = e;
            x->opposite = m->tets[4 * (size_t)e + k];
        }
    qsort(f, nf, sizeof *f, mt_face_cmp);
    const double len[3] = {lx, ly, lz};
    const double tol = 1e-12 * fmax(lx, fmax(ly, lz));
    double area = 0.0;
    long bad_boundary = 0, bad_multi = 0, bad_side = 0;
    for (size_t i = 0; i < nf;) {
        size_t j = i + 1;
        while (j < nf && mt_face_cmp(&f[i], &f[j]) == 0) ++j;
        const double *p[3] = {m->xyz + 3 * (size_t)f[i].v[0], m->xyz + 3 * (size_t)f[i].v[1],
                              m->xyz + 3 * (size_t)f[i].v[2]};
        if (j - i == 1) {
            if (mt_box_plane(p, len, tol) < 0) {
                if (bad_boundary++ == 0)
                    HS_TEST_CHECK(0, "face (%d %d %d) of element %d is unmatched but not on the "
                                  "box surface (non-conforming)",
                                  f[i].v[0], f[i].v[1], f[i].v[2], f[i].elem);
            }
            area += mt_tri_area(p[0], p[1], p[2]);
        } else if (j - i == 2) {
            const double s1 = mt_orient(p[0], p[1], p[2], m->xyz + 3 * (size_t)f[i].opposite);
            const double s2 = mt_orient(p[0], p[1], p[2], m->xyz + 3 * (size_t)f[i + 1].opposite);
            if (!(s1 * s2 < 0.0) && bad_side++ == 0)
                HS_TEST_CHECK(0, "elements %d and %d share face (%d %d %d) but lie on the same "
                              "side of it",
                              f[i].elem, f[i + 1].elem, f[i].v[0], f[i].v[1], f[i].v[2]);
        } else if (bad_multi++ == 0) {
            HS_TEST_CHECK(0, "face (%d %d %d) is shared by %zu elements", f[i].v[0], f[i].v[1],
                          f[i].v[2], j - i);
        }
        i = j;
    }
    const double surf = 2.0 * (lx * ly + ly * lz + lx * lz);
    HS_TEST_NEAR(area, surf, rtol * surf, "boundary face area vs box surface area");
    HS_TEST_CHECK(bad_boundary + bad_multi + bad_side == 0,
                  "%ld unmatched interior faces, %ld faces in >2 elements, %ld same-side pairs",
                  bad_boundary, bad_multi, bad_side);
    free(f);
}

#endif
