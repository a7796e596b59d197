/* Where a point lies with respect to a tetrahedral mesh (hs_mesh.h: hs_mesh_point_depth): the
 * element that contains it and its distance to the mesh's boundary, for checks such as "an ECG
 * electrode must lie outside the tissue or on it" (issue 30). Brute force over the elements and
 * the boundary faces: it runs once per point at set-up, like the ECG weights themselves. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_mesh.h"
#include "hs_util.h"

/* 6 x the signed volume of (a, b, c, d) */
static double det6(const double *a, const double *b, const double *c, const double *d)
{
    const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const double w[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
    return u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
           u[2] * (v[0] * w[1] - v[1] * w[0]);
}

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* Distance from p to triangle (a, b, c): the closest point by Voronoi regions (Ericson, Real-Time
 * Collision Detection, 5.1.5). */
static double dist_point_triangle(const double *p, const double *a, const double *b, const double *c)
{
    double ab[3], ac[3], ap[3], q[3];
    for (int k = 0; k < 3; ++k) ab[k] = b[k] - a[k], ac[k] = c[k] - a[k], ap[k] = p[k] - a[k];
    const double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) {
        memcpy(q, a, sizeof q);
    } else {
        double bp[3], cp[3];
        for (int k = 0; k < 3; ++k) bp[k] = p[k] - b[k], cp[k] = p[k] - c[k];
        const double d3 = dot3(ab, bp), d4 = dot3(ac, bp), d5 = dot3(ab, cp), d6 = dot3(ac, cp);
        const double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
        if (d3 >= 0.0 && d4 <= d3) {
            memcpy(q, b, sizeof q);
        } else if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
            const double t = d1 / (d1 - d3);
            for (int k = 0; k < 3; ++k) q[k] = a[k] + t * ab[k];
        } else if (d6 >= 0.0 && d5 <= d6) {
            memcpy(q, c, sizeof q);
        } else if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
            const double t = d2 / (d2 - d6);
            for (int k = 0; k < 3; ++k) q[k] = a[k] + t * ac[k];
        } else if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
            const double t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
            for (int k = 0; k < 3; ++k) q[k] = b[k] + t * (c[k] - b[k]);
        } else {
            const double den = 1.0 / (va + vb + vc), v = vb * den, w = vc * den;
            for (int k = 0; k < 3; ++k) q[k] = a[k] + ab[k] * v + ac[k] * w;
        }
    }
    const double d[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
    return sqrt(dot3(d, d));
}

typedef struct face_key {
    int32_t v[3]; /* sorted */
} face_key;

static int face_cmp(const void *pa, const void *pb)
{
    const face_key *a = pa, *b = pb;
    for (int k = 0; k < 3; ++k)
        if (a->v[k] != b->v[k]) return a->v[k] < b->v[k] ? -1 : 1;
    return 0;
}

hs_status hs_mesh_point_locate(const hs_mesh *m, const double x[3], hs_mesh_point_place *out)
{
    out->elem = -1;
    out->depth = 0.0;
    out->elem_size = 0.0;
    /* the containing element: all four barycentric volumes >= -eps of its own */
    for (int32_t e = 0; e < m->n_elems && out->elem < 0; ++e) {
        const int32_t *t = m->tets + 4 * (size_t)e;
        const double *p[4];
        for (int a = 0; a < 4; ++a) p[a] = m->xyz + 3 * (size_t)t[a];
        const double v = det6(p[0], p[1], p[2], p[3]);
        if (!(fabs(v) > 0.0)) continue;
        const double eps = -1e-12 * fabs(v);
        const double s = v > 0.0 ? 1.0 : -1.0;
        if (s * det6(x, p[1], p[2], p[3]) >= eps && s * det6(p[0], x, p[2], p[3]) >= eps &&
            s * det6(p[0], p[1], x, p[3]) >= eps && s * det6(p[0], p[1], p[2], x) >= eps) {
            out->elem = e;
            double h = 0.0;
            for (int a = 0; a < 4; ++a)
                for (int b = a + 1; b < 4; ++b) {
                    const double d[3] = {p[a][0] - p[b][0], p[a][1] - p[b][1], p[a][2] - p[b][2]};
                    h = fmax(h, sqrt(dot3(d, d)));
                }
            out->elem_size = h;
        }
    }
    return HS_OK;
}

/* A face's three vertices in increasing global number (gid NULL: the local one). */
static void face_order(const int32_t *v, const int64_t *gid, int32_t o[3])
{
    o[0] = v[0], o[1] = v[1], o[2] = v[2];
    if (!gid) return;
#define HS_FACE_SWAP(a, b)                                                                          \
    if (gid[o[a]] > gid[o[b]]) {                                                                   \
        int32_t s_ = o[a];                                                                         \
        o[a] = o[b];                                                                               \
        o[b] = s_;                                                                                 \
    }
    HS_FACE_SWAP(0, 1)
    HS_FACE_SWAP(1, 2)
    HS_FACE_SWAP(0, 1)
#undef HS_FACE_SWAP
}

hs_status hs_mesh_boundary_distance(const hs_mesh *m, const double x[3], int32_t n_owned, const int64_t *gid,
                                    double *out)
{
    *out = INFINITY;
    face_key *f = NULL;
    HS_CALL(HS_ALLOC(f, 4 * (size_t)m->n_elems + 1, "mesh faces"));
    static const int fv[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
    for (int32_t e = 0; e < m->n_elems; ++e)
        for (int k = 0; k < 4; ++k) {
            int32_t *v = f[4 * (size_t)e + k].v;
            for (int c = 0; c < 3; ++c) v[c] = m->tets[4 * (size_t)e + fv[k][c]];
            /* sort the three ids */
            if (v[0] > v[1]) { int32_t s = v[0]; v[0] = v[1]; v[1] = s; }
            if (v[1] > v[2]) { int32_t s = v[1]; v[1] = v[2]; v[2] = s; }
            if (v[0] > v[1]) { int32_t s = v[0]; v[0] = v[1]; v[1] = s; }
        }
    const size_t nf = 4 * (size_t)m->n_elems;
    qsort(f, nf, sizeof *f, face_cmp);
    double best = INFINITY;
    for (size_t i = 0; i < nf;) {
        size_t j = i + 1;
        while (j < nf && face_cmp(&f[i], &f[j]) == 0) ++j;
        /* a face of one element, with an owned vertex: every element of it is in the part, so it is
         * one of the whole mesh's boundary faces (v[0] is the smallest local index) */
        if (j - i == 1 && f[i].v[0] < n_owned) {
            int32_t o[3];
            face_order(f[i].v, gid, o);
            best = fmin(best, dist_point_triangle(x, m->xyz + 3 * (size_t)o[0], m->xyz + 3 * (size_t)o[1],
                                                  m->xyz + 3 * (size_t)o[2]));
        }
        i = j;
    }
    free(f);
    *out = best;
    return HS_OK;
}

hs_status hs_mesh_point_depth(const hs_mesh *m, const double x[3], hs_mesh_point_place *out)
{
    HS_CALL(hs_mesh_point_locate(m, x, out));
    if (out->elem < 0) return HS_OK;
    /* inside: the distance to the nearest boundary face (a face of one element only) */
    double best = INFINITY;
    HS_CALL(hs_mesh_boundary_distance(m, x, m->n_nodes, NULL, &best));
    out->depth = isfinite(best) ? best : 0.0;
    return HS_OK;
}
