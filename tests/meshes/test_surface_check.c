/* hs_surface_check (meshes/surface_check.c) on surfaces built in memory: a closed cube passes
 * with volume 1; a missing triangle, a non-manifold edge, zero-area and duplicate facets, bad
 * indices, a non-orientable and a flat closed surface are errors naming what is wrong; a flipped
 * triangle, an inverted cube and nested shells (a hollow cube) are fixed and counted. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_surface.h"
#include "hs_test.h"

/* ---- building test surfaces ---- */

typedef struct tsurf {
    double p[64][3];
    int np;
    int32_t f[96][4]; /* f[k][3] < 0: a triangle */
    int nf;
} tsurf;

static const int k_quads[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4},
                                  {2, 3, 7, 6}, {0, 4, 7, 3}, {1, 2, 6, 5}};

/* Axis-aligned box [lo, hi]^3 (as 12 outward triangles, or 6 quads); returns its first point. */
static int add_box(tsurf *t, const double lo[3], const double hi[3], int quads)
{
    const int base = t->np;
    for (int i = 0; i < 8; ++i) {
        t->p[t->np][0] = (i == 1 || i == 2 || i == 5 || i == 6) ? hi[0] : lo[0];
        t->p[t->np][1] = (i == 2 || i == 3 || i == 6 || i == 7) ? hi[1] : lo[1];
        t->p[t->np][2] = i >= 4 ? hi[2] : lo[2];
        ++t->np;
    }
    for (int q = 0; q < 6; ++q) {
        const int *v = k_quads[q];
        if (quads) {
            for (int k = 0; k < 4; ++k) t->f[t->nf][k] = base + v[k];
            ++t->nf;
            continue;
        }
        const int32_t a[4] = {base + v[0], base + v[1], base + v[2], -1};
        const int32_t b[4] = {base + v[0], base + v[2], base + v[3], -1};
        memcpy(t->f[t->nf++], a, sizeof a);
        memcpy(t->f[t->nf++], b, sizeof b);
    }
    return base;
}

static void add_cube(tsurf *t, double lo, double hi)
{
    const double l[3] = {lo, lo, lo}, h[3] = {hi, hi, hi};
    add_box(t, l, h, 0);
}

static void flip(tsurf *t, int f)
{
    const int n = t->f[f][3] < 0 ? 3 : 4;
    for (int i = 0, j = n - 1; i < j; ++i, --j) {
        const int32_t x = t->f[f][i];
        t->f[f][i] = t->f[f][j];
        t->f[f][j] = x;
    }
}

static hs_surface *make(const tsurf *t)
{
    int n_idx = 0;
    for (int f = 0; f < t->nf; ++f) n_idx += t->f[f][3] < 0 ? 3 : 4;
    hs_surface *s = NULL;
    HS_TEST_OK(hs_surface_alloc(t->np, t->nf, n_idx, &s));
    if (!s) return NULL;
    memcpy(s->xyz, t->p, sizeof(double) * 3 * (size_t)t->np);
    int q = 0;
    for (int f = 0; f < t->nf; ++f) {
        const int n = t->f[f][3] < 0 ? 3 : 4;
        s->facet_ptr[f] = q;
        for (int k = 0; k < n; ++k) s->facet_idx[q++] = t->f[f][k];
    }
    s->facet_ptr[t->nf] = q;
    return s;
}

/* Check must succeed; the report comes back, and the checked surface when keep is given. */
static hs_surface_report check_ok(const tsurf *t, const char *what, hs_surface **keep)
{
    hs_surface_report rep;
    memset(&rep, 0, sizeof rep);
    hs_surface *s = make(t);
    if (!s) return rep;
    hs_error_clear();
    const hs_status st = hs_surface_check(s, what, &rep);
    HS_TEST_CHECK(st == HS_OK, "%s: %s", what, hs_error_message());
    hs_error_clear();
    if (keep) *keep = s;
    else hs_surface_destroy(&s);
    return rep;
}

static void check_fails(const tsurf *t, const char *what, const char *want, const char *want2)
{
    hs_surface *s = make(t);
    if (!s) return;
    hs_error_clear();
    const hs_status st = hs_surface_check(s, what, NULL);
    const char *msg = hs_error_message();
    HS_TEST_CHECK(st == HS_ERR_MESH, "%s: status %d, expected HS_ERR_MESH (%s)", what, (int)st,
                  msg);
    HS_TEST_CHECK(strstr(msg, what) != NULL, "%s: message does not name it: %s", what, msg);
    HS_TEST_CHECK(strstr(msg, want) != NULL, "%s: message lacks \"%s\": %s", what, want, msg);
    if (want2)
        HS_TEST_CHECK(strstr(msg, want2) != NULL, "%s: message lacks \"%s\": %s", what, want2,
                      msg);
    hs_error_clear();
    hs_surface_destroy(&s);
}

/* Signed volume of facet f's fan about c: > 0 when the facet faces away from c. */
static double facet_vol(const hs_surface *s, int f, const double c[3])
{
    const int32_t *v = s->facet_idx + s->facet_ptr[f];
    const int n = s->facet_ptr[f + 1] - s->facet_ptr[f];
    double vol = 0;
    for (int k = 1; k + 1 < n; ++k) {
        double a[3], b[3], d[3];
        for (int i = 0; i < 3; ++i) {
            a[i] = s->xyz[3 * v[0] + i] - c[i];
            b[i] = s->xyz[3 * v[k] + i] - c[i];
            d[i] = s->xyz[3 * v[k + 1] + i] - c[i];
        }
        vol += a[0] * (b[1] * d[2] - b[2] * d[1]) - a[1] * (b[0] * d[2] - b[2] * d[0]) +
               a[2] * (b[0] * d[1] - b[1] * d[0]);
    }
    return vol;
}

/* Facets [f0, f1) must all face away from c (sign +1) or towards it (sign -1). */
static void expect_facing(const hs_surface *s, int f0, int f1, const double c[3], int sign,
                          const char *what)
{
    for (int f = f0; f < f1 && s; ++f)
        HS_TEST_CHECK(sign * facet_vol(s, f, c) > 0, "%s: facet %d faces %s", what, f,
                      sign > 0 ? "inwards" : "outwards");
}

/* ---- cases ---- */

static void test_cube(void)
{
    tsurf t = {0};
    add_cube(&t, 0, 1);
    hs_surface_report r = check_ok(&t, "cube", NULL);
    HS_TEST_NEAR(r.volume, 1.0, 1e-14, "cube volume");
    HS_TEST_NEAR(r.area, 6.0, 1e-14, "cube area");
    HS_TEST_CHECK(r.n_points == 8 && r.n_facets == 12 && r.n_components == 1 &&
                      r.n_flipped == 0 && r.n_shells_inverted == 0 && r.n_unused_points == 0,
                  "cube: %d points %d facets %d shells %d flipped %d inverted %d unused",
                  (int)r.n_points, (int)r.n_facets, (int)r.n_components, (int)r.n_flipped,
                  (int)r.n_shells_inverted, (int)r.n_unused_points);
    HS_TEST_CHECK(r.bbox_min[0] == 0 && r.bbox_max[2] == 1, "cube bbox");

    /* Quads, a shifted box and an unused point (outside the box: not in the bbox). */
    tsurf q = {0};
    const double lo[3] = {2, 3, 4}, hi[3] = {4, 4, 7};
    add_box(&q, lo, hi, 1);
    q.p[q.np][0] = 100;
    ++q.np;
    r = check_ok(&q, "quads", NULL);
    HS_TEST_NEAR(r.volume, 6.0, 1e-12, "quad box volume");
    HS_TEST_NEAR(r.area, 2 * (2 + 6 + 3), 1e-12, "quad box area");
    HS_TEST_CHECK(r.n_unused_points == 1 && r.bbox_max[0] == 4,
                  "unused %d, bbox max x %g", (int)r.n_unused_points, r.bbox_max[0]);
}

static void test_open(void)
{
    tsurf t = {0};
    add_cube(&t, 0, 1);
    memcpy(t.f[0], t.f[11], sizeof t.f[0]); /* triangle 0 = (0,3,2) replaced by the last one */
    --t.nf;
    check_fails(&t, "open-cube", "3 open edges",
                "point 0 (0, 0, 0) and point 2 (1, 1, 0)");
}

static void test_flipped(void)
{
    tsurf t = {0};
    add_cube(&t, 0, 1);
    flip(&t, 5);
    hs_surface *s = NULL;
    hs_surface_report r = check_ok(&t, "one-flipped", &s);
    HS_TEST_CHECK(r.n_flipped == 1 && r.n_shells_inverted == 0, "flipped %d inverted %d",
                  (int)r.n_flipped, (int)r.n_shells_inverted);
    HS_TEST_NEAR(r.volume, 1.0, 1e-14, "volume after the fix");
    const double c[3] = {0.5, 0.5, 0.5};
    expect_facing(s, 0, 12, c, +1, "one-flipped");
    hs_surface_destroy(&s);

    /* The first triangle flipped: the breadth-first search starts at the odd one out, and must
     * still reverse only it. */
    tsurf u = {0};
    add_cube(&u, 0, 1);
    flip(&u, 0);
    r = check_ok(&u, "first-flipped", NULL);
    HS_TEST_CHECK(r.n_flipped == 1 && r.n_shells_inverted == 0, "flipped %d inverted %d",
                  (int)r.n_flipped, (int)r.n_shells_inverted);
}

static void test_inverted(void)
{
    tsurf t = {0};
    add_cube(&t, 0, 1);
    for (int f = 0; f < t.nf; ++f) flip(&t, f);
    hs_surface *s = NULL;
    hs_surface_report r = check_ok(&t, "inverted", &s);
    HS_TEST_CHECK(r.n_shells_inverted == 1 && r.n_flipped == 0, "inverted %d flipped %d",
                  (int)r.n_shells_inverted, (int)r.n_flipped);
    HS_TEST_NEAR(r.volume, 1.0, 1e-14, "volume after inversion");
    const double c[3] = {0.5, 0.5, 0.5};
    expect_facing(s, 0, 12, c, +1, "inverted");
    hs_surface_destroy(&s);
}

static void test_nested(void)
{
    /* Hollow cube: outer 0..3 and inner 1..2, both outward: the cavity must be turned in. */
    tsurf t = {0};
    add_cube(&t, 0, 3);
    add_cube(&t, 1, 2);
    hs_surface *s = NULL;
    hs_surface_report r = check_ok(&t, "hollow", &s);
    HS_TEST_CHECK(r.n_components == 2 && r.n_shells_inverted == 1 && r.n_flipped == 0,
                  "hollow: %d shells, %d inverted, %d flipped", (int)r.n_components,
                  (int)r.n_shells_inverted, (int)r.n_flipped);
    HS_TEST_NEAR(r.volume, 26.0, 1e-12, "hollow cube volume");
    const double c[3] = {1.5, 1.5, 1.5};
    expect_facing(s, 0, 12, c, +1, "hollow outer");
    expect_facing(s, 12, 24, c, -1, "hollow inner");
    hs_surface_destroy(&s);

    /* Outer shell facing in and cavity facing out (both wrong): two inversions. */
    tsurf u = {0};
    add_cube(&u, 1, 2); /* inner first: the order of shells must not matter */
    add_cube(&u, 0, 3);
    for (int f = 12; f < 24; ++f) flip(&u, f);
    r = check_ok(&u, "hollow-outer-inverted", NULL);
    HS_TEST_CHECK(r.n_shells_inverted == 2, "outer in, inner out: %d inversions, expected 2",
                  (int)r.n_shells_inverted);
    HS_TEST_NEAR(r.volume, 26.0, 1e-12, "hollow volume");

    /* Three nested cubes: solid, cavity, solid island inside the cavity. */
    tsurf w = {0};
    add_cube(&w, 0, 5);
    add_cube(&w, 1, 4);
    add_cube(&w, 2, 3);
    r = check_ok(&w, "three-nested", NULL);
    HS_TEST_NEAR(r.volume, 125.0 - 27.0 + 1.0, 1e-10, "three nested");
    HS_TEST_CHECK(r.n_components == 3 && r.n_shells_inverted == 1, "%d shells %d inverted",
                  (int)r.n_components, (int)r.n_shells_inverted);

    /* Two separate cubes side by side: neither inside the other. */
    tsurf v = {0};
    add_cube(&v, 0, 1);
    add_cube(&v, 2, 3);
    r = check_ok(&v, "two-cubes", NULL);
    HS_TEST_NEAR(r.volume, 2.0, 1e-12, "two cubes");
    HS_TEST_CHECK(r.n_components == 2 && r.n_shells_inverted == 0, "%d shells %d inverted",
                  (int)r.n_components, (int)r.n_shells_inverted);
}

static void test_errors(void)
{
    /* Two cubes sharing the edge (1,1,0)-(1,1,1): four facets on it. */
    tsurf t = {0};
    add_cube(&t, 0, 1);
    const double lo[3] = {1, 1, 0}, hi[3] = {2, 2, 1};
    const int b = add_box(&t, lo, hi, 0);
    /* Weld the second box's corner points 0 and 4 onto the first cube's points 2 and 6. */
    for (int f = 12; f < t.nf; ++f)
        for (int k = 0; k < 3; ++k) {
            if (t.f[f][k] == b + 0) t.f[f][k] = 2;
            if (t.f[f][k] == b + 4) t.f[f][k] = 6;
        }
    check_fails(&t, "edge-touch", "not manifold",
                "point 2 (1, 1, 0) and point 6 (1, 1, 1) and has 4 facets");

    tsurf z = {0};
    add_cube(&z, 0, 1);
    z.p[8][0] = 0.5; /* on the edge 0-1 */
    z.np = 9;
    const int32_t degenerate[4] = {0, 8, 1, -1};
    memcpy(z.f[z.nf++], degenerate, sizeof degenerate);
    check_fails(&z, "zero-area", "facet 12 (0-based) has zero area", "(0.5, 0, 0)");

    tsurf d = {0};
    add_cube(&d, 0, 1);
    memcpy(d.f[d.nf], d.f[4], sizeof d.f[0]);
    flip(&d, d.nf++); /* the same triangle facing the other way is still a duplicate */
    check_fails(&d, "duplicate", "facets 4 and 12 (0-based) are the same polygon", NULL);

    tsurf r = {0};
    add_cube(&r, 0, 1);
    r.f[3][1] = 8;
    check_fails(&r, "range", "facet 3 (0-based) refers to point 8, outside 0..7", NULL);
    r.f[3][1] = r.f[3][0];
    check_fails(&r, "repeat", "facet 3 (0-based) lists point", "twice");

    /* The projective plane (6 points, 10 triangles, every edge twice): closed but one-sided. */
    tsurf p = {0};
    const double pts[6][3] = {{0, 0, 0}, {3, 0.1, 0.2}, {0.3, 2, 0.1},
                              {0.2, 0.4, 2.5}, {2, 2, 0.7}, {1.1, 0.3, 1.9}};
    const int tri[10][3] = {{1, 2, 3}, {1, 3, 4}, {1, 4, 5}, {1, 5, 6}, {1, 6, 2},
                            {2, 3, 5}, {3, 4, 6}, {4, 5, 2}, {5, 6, 3}, {6, 2, 4}};
    memcpy(p.p, pts, sizeof pts);
    p.np = 6;
    for (int f = 0; f < 10; ++f) {
        for (int k = 0; k < 3; ++k) p.f[f][k] = tri[f][k] - 1;
        p.f[f][3] = -1;
    }
    p.nf = 10;
    check_fails(&p, "rp2", "not orientable", NULL);

    /* A flat square, top and bottom triangulated along different diagonals: closed, oriented,
     * no duplicate facets, but it encloses nothing. */
    tsurf fl = {0};
    const double sq[4][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    const int32_t ft[4][4] = {{0, 1, 2, -1}, {0, 2, 3, -1}, {0, 3, 1, -1}, {1, 3, 2, -1}};
    memcpy(fl.p, sq, sizeof sq);
    memcpy(fl.f, ft, sizeof ft);
    fl.np = 4;
    fl.nf = 4;
    check_fails(&fl, "flat", "encloses zero volume", NULL);

    tsurf none = {0};
    none.np = 3;
    check_fails(&none, "empty", "has no facets", NULL);
}

int main(void)
{
    test_cube();
    test_open();
    test_flipped();
    test_inverted();
    test_nested();
    test_errors();
    HS_TEST_RETURN();
}
