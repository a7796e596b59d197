/* The built-in left ventricle (hs_lv.h): the truncated prolate ellipsoid of Land et al. 2015
 * (Proc. R. Soc. A 471:20150641, problems 2 and 3), with labelled surfaces and rule-based fibres.
 *
 * The closed surface is built here as triangles and meshed by TetGen:
 *   - endo and epi: rings of constant prolate angle u (x = rs sin u cos v, y = rs sin u sin v,
 *     z = rl cos u; apex u = pi), spaced ~h apart in arc length along the meridian, each ring
 *     with ~2 pi rho / h points; the apex is one point with a fan to the first ring, and
 *     neighbouring rings are stitched by angle (a zipper), so ring counts may differ;
 *   - base: the flat annulus z = z_base between the two rim rings, which have the same number of
 *     points so the annulus is a strip of quads (split into triangles), with intermediate rings
 *     ~h apart.
 * Every point of the base lies exactly on z = z_base; every other point lies on its ellipsoid.
 * Triangles are oriented with normals leaving the wall. */
#include "hs_lv.h"

#include <math.h>
#include <stdlib.h>

#include "hs_surface.h"
#include "hs_tetgen.h"
#include "hs_text_reader.h" /* hs_grow_array */
#include "hs_util.h"
#include "tetgen_internal.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

void hs_lv_params_default(hs_lv_params *p, double h)
{
    p->rs_endo = 7.0;
    p->rl_endo = 17.0;
    p->rs_epi = 10.0;
    p->rl_epi = 20.0;
    p->z_base = 5.0;
    p->h = h;
    p->radius_edge = 1.414;
    p->min_dihedral_deg = 0.0;
    p->helix_endo_deg = 60.0;
    p->helix_epi_deg = -60.0;
}

/* Volume of the spheroid x^2/rs^2 + y^2/rs^2 + z^2/rl^2 <= 1 below z = zb: the integral of the
 * cross sections pi rs^2 (1 - z^2/rl^2) from -rl to zb. */
static double cap_volume(double rs, double rl, double zb)
{
    return M_PI * rs * rs * rl * (2.0 / 3.0 + zb / rl - zb * zb * zb / (3.0 * rl * rl * rl));
}

double hs_lv_wall_volume(const hs_lv_params *p)
{
    return cap_volume(p->rs_epi, p->rl_epi, p->z_base) -
           cap_volume(p->rs_endo, p->rl_endo, p->z_base);
}

/* The geometry and fibre rule (all that hs_lv_set_fibers needs). */
static hs_status check_geometry(const hs_lv_params *p)
{
    const double v[5] = {p->rs_endo, p->rl_endo, p->rs_epi, p->rl_epi, p->z_base};
    for (int i = 0; i < 5; ++i)
        HS_CHECK(isfinite(v[i]), HS_ERR_CONFIG,
                 "ellipsoid LV: radii and z_base must be finite numbers");
    HS_CHECK(p->rs_endo > 0.0 && p->rl_endo > 0.0, HS_ERR_CONFIG,
             "ellipsoid LV: endocardial radii must be > 0 (rs %g, rl %g mm)", p->rs_endo,
             p->rl_endo);
    /* Nested ellipsoids: the endocardium lies strictly inside the epicardium iff both radii are
     * smaller; anything else makes the two surfaces cross. */
    HS_CHECK(p->rs_epi > p->rs_endo && p->rl_epi > p->rl_endo, HS_ERR_CONFIG,
             "ellipsoid LV: the epicardium (rs %g, rl %g mm) must enclose the endocardium (rs %g, "
             "rl %g mm): both epicardial radii must be larger",
             p->rs_epi, p->rl_epi, p->rs_endo, p->rl_endo);
    HS_CHECK(p->z_base > -p->rl_endo && p->z_base < p->rl_endo, HS_ERR_CONFIG,
             "ellipsoid LV: base plane z_base = %g mm must cut the endocardium, i.e. lie in "
             "(-%g, %g) mm",
             p->z_base, p->rl_endo, p->rl_endo);
    HS_CHECK(isfinite(p->helix_endo_deg) && isfinite(p->helix_epi_deg), HS_ERR_CONFIG,
             "ellipsoid LV: helix angles must be finite (%g, %g deg)", p->helix_endo_deg,
             p->helix_epi_deg);
    return HS_OK;
}

/* Geometry plus the element size (needed to build the mesh). */
static hs_status check_params(const hs_lv_params *p)
{
    HS_CALL(check_geometry(p));
    HS_CHECK(isfinite(p->h) && p->h > 0.0, HS_ERR_CONFIG,
             "ellipsoid LV: edge length h = %g mm must be > 0", p->h);
    /* About 7 tets per h^3/(6 sqrt 2) of wall: refuse sizes no machine here could hold. */
    const double n_est = 7.0 * hs_lv_wall_volume(p) / hs_tetgen_volume_for_edge(p->h);
    HS_CHECK(n_est < 2e8, HS_ERR_CONFIG,
             "ellipsoid LV: h = %g mm would give about %.2g elements; use a larger h", p->h,
             n_est);
    return HS_OK;
}

/* ---- surface construction ---- */

/* One ellipsoidal surface as rings: ring j = 1..n_rings at prolate angle u[j] (the last one at
 * the base plane), with count[j] points starting at angle offset[j]. Point 0 is the apex. */
typedef struct ring_set {
    int n_rings;
    double *u;       /* [n_rings + 1], u[0] = pi (apex) */
    int *count;      /* [n_rings + 1], count[0] = 1 */
    double *offset;  /* [n_rings + 1] */
    int32_t *first;  /* [n_rings + 1] index of each ring's first point in the surface */
} ring_set;

static void ring_set_free(ring_set *r)
{
    free(r->u);
    free(r->count);
    free(r->offset);
    free(r->first);
}

static int ring_points(double rho, double h)
{
    const long n = lround(2.0 * M_PI * rho / h);
    return n < 3 ? 3 : (int)(n > 1000000 ? 1000000 : n);
}

/* Rings with ~h arc-length spacing along the meridian from the apex (u = pi) to u_base; the last
 * ring has rim_count points and offset 0. */
static hs_status ring_set_make(double rs, double rl, double u_base, double h, int rim_count,
                               ring_set *r)
{
    enum { N_TAB = 4096 };
    double *s_tab = NULL; /* arc length from the apex at u_k = pi - k (pi - u_base) / N_TAB */
    hs_status st = HS_OK;
    HS_CALL(HS_ALLOC(s_tab, N_TAB + 1, "meridian arc lengths"));
    const double du = (M_PI - u_base) / N_TAB;
    s_tab[0] = 0.0;
    for (int k = 0; k < N_TAB; ++k) { /* midpoint rule: plenty for a ring spacing */
        const double um = M_PI - (k + 0.5) * du;
        s_tab[k + 1] = s_tab[k] + du * hypot(rs * cos(um), rl * sin(um));
    }
    const double L = s_tab[N_TAB];
    long nr = lround(L / h);
    r->n_rings = nr < 2 ? 2 : (int)nr;
    HS_CALL_GOTO(HS_ALLOC(r->u, r->n_rings + 1, "ring angles"), done);
    HS_CALL_GOTO(HS_ALLOC(r->count, r->n_rings + 1, "ring counts"), done);
    HS_CALL_GOTO(HS_ALLOC(r->offset, r->n_rings + 1, "ring offsets"), done);
    HS_CALL_GOTO(HS_ALLOC(r->first, r->n_rings + 1, "ring starts"), done);
    r->u[0] = M_PI;
    r->count[0] = 1;
    int k = 0;
    for (int j = 1; j <= r->n_rings; ++j) {
        if (j == r->n_rings) {
            r->u[j] = u_base; /* exactly on the base plane */
        } else {
            const double s = L * j / r->n_rings;
            while (k < N_TAB - 1 && s_tab[k + 1] < s) ++k;
            const double w = (s - s_tab[k]) / (s_tab[k + 1] - s_tab[k]);
            r->u[j] = M_PI - (k + w) * du;
        }
        r->count[j] = j == r->n_rings ? rim_count : ring_points(rs * sin(r->u[j]), h);
        /* Neighbouring rings staggered by half a step give near-equilateral triangles; the rim
         * is unstaggered so the base annulus joins both rims at the same angles. */
        r->offset[j] = ((r->n_rings - j) % 2) ? M_PI / r->count[j] : 0.0;
    }
done:
    free(s_tab);
    return st;
}

/* Growing triangle list with markers. */
typedef struct tri_list {
    int32_t n, cap;
    int32_t *v;      /* [cap][3] */
    int32_t *marker; /* [cap] */
} tri_list;

static hs_status tri_add(tri_list *t, int32_t a, int32_t b, int32_t c, int32_t marker)
{
    if (t->n == t->cap) {
        size_t cap = (size_t)t->cap, cap2 = (size_t)t->cap;
        HS_CALL(hs_grow_array((void **)&t->v, &cap, (size_t)t->n + 1, 3 * sizeof(int32_t),
                              "LV surface triangles"));
        HS_CALL(hs_grow_array((void **)&t->marker, &cap2, (size_t)t->n + 1, sizeof(int32_t),
                              "LV surface markers"));
        t->cap = (int32_t)cap;
    }
    t->v[3 * (size_t)t->n] = a;
    t->v[3 * (size_t)t->n + 1] = b;
    t->v[3 * (size_t)t->n + 2] = c;
    t->marker[t->n++] = marker;
    return HS_OK;
}

/* Stitch ring A (na points from index a0, angles offa + 2 pi i / na) to ring B likewise: walk
 * both by angle, always advancing the ring whose next point comes first, so each triangle
 * joins points that are close in angle. Emits na + nb triangles. */
static hs_status zipper(tri_list *t, int32_t a0, int na, double offa, int32_t b0, int nb,
                        double offb, int32_t marker)
{
    int i = 0, j = 0;
    while (i < na || j < nb) {
        const double ai = offa + 2.0 * M_PI * (i + 1) / na;
        const double bj = offb + 2.0 * M_PI * (j + 1) / nb;
        if (i < na && (j == nb || ai <= bj)) {
            HS_CALL(tri_add(t, a0 + i % na, a0 + (i + 1) % na, b0 + j % nb, marker));
            ++i;
        } else {
            HS_CALL(tri_add(t, a0 + i % na, b0 + (j + 1) % nb, b0 + j % nb, marker));
            ++j;
        }
    }
    return HS_OK;
}

/* Add the points and triangles of one ellipsoidal surface (apex first). */
static hs_status add_ellipsoid(ring_set *r, double rs, double rl, int32_t marker, double *xyz,
                               int32_t *np, tri_list *t)
{
    const int32_t apex = (*np)++;
    xyz[3 * (size_t)apex] = 0.0;
    xyz[3 * (size_t)apex + 1] = 0.0;
    xyz[3 * (size_t)apex + 2] = -rl;
    r->first[0] = apex;
    for (int j = 1; j <= r->n_rings; ++j) {
        r->first[j] = *np;
        const double su = sin(r->u[j]), cu = cos(r->u[j]);
        for (int i = 0; i < r->count[j]; ++i) {
            const double v = r->offset[j] + 2.0 * M_PI * i / r->count[j];
            double *x = xyz + 3 * (size_t)(*np)++;
            x[0] = rs * su * cos(v);
            x[1] = rs * su * sin(v);
            x[2] = rl * cu;
        }
    }
    const int32_t n1 = r->count[1];
    for (int i = 0; i < n1; ++i) /* apex fan */
        HS_CALL(tri_add(t, apex, r->first[1] + (i + 1) % n1, r->first[1] + i, marker));
    for (int j = 1; j < r->n_rings; ++j)
        HS_CALL(zipper(t, r->first[j], r->count[j], r->offset[j], r->first[j + 1],
                       r->count[j + 1], r->offset[j + 1], marker));
    return HS_OK;
}

/* Flip triangles of one marker so that their normals leave the wall: away from the ellipsoid's
 * interior for the epicardium (sign +1), into the cavity for the endocardium (sign -1), +z on
 * the base. The test uses the normal at the centroid: the triangles are small against the
 * curvature, and the apex fan's normals are close to the axis. */
static void orient(tri_list *t, const double *xyz, int32_t marker, double rs, double rl,
                   double sign)
{
    for (int32_t f = 0; f < t->n; ++f) {
        if (t->marker[f] != marker) continue;
        int32_t *v = t->v + 3 * (size_t)f;
        const double *a = xyz + 3 * (size_t)v[0], *b = xyz + 3 * (size_t)v[1],
                     *c = xyz + 3 * (size_t)v[2];
        const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        const double w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        const double n[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2],
                             u[0] * w[1] - u[1] * w[0]};
        double g[3] = {0.0, 0.0, 1.0}; /* base */
        if (rs > 0.0) {
            const double cx = (a[0] + b[0] + c[0]) / 3.0, cy = (a[1] + b[1] + c[1]) / 3.0,
                         cz = (a[2] + b[2] + c[2]) / 3.0;
            g[0] = cx / (rs * rs);
            g[1] = cy / (rs * rs);
            g[2] = cz / (rl * rl);
        }
        if (sign * (n[0] * g[0] + n[1] * g[1] + n[2] * g[2]) < 0.0) {
            const int32_t s = v[1];
            v[1] = v[2];
            v[2] = s;
        }
    }
}

/* The whole closed surface, markers HS_LV_ENDO / EPI / BASE. */
static hs_status build_surface(const hs_lv_params *p, hs_surface **out)
{
    const double h = p->h, zb = p->z_base;
    const double ub_endo = acos(zb / p->rl_endo), ub_epi = acos(zb / p->rl_epi);
    const double rho_endo = p->rs_endo * sin(ub_endo), rho_epi = p->rs_epi * sin(ub_epi);
    /* Both rims get the epicardial rim's count: spacing ~h there, finer on the endocardial rim. */
    const int n_rim = ring_points(rho_epi, h);
    long nb = lround((rho_epi - rho_endo) / h);
    const int n_bands = nb < 1 ? 1 : (int)nb; /* annulus strips between the rims */

    hs_status st = HS_OK;
    ring_set endo = {0}, epi = {0};
    tri_list t = {0, 0, NULL, NULL};
    double *xyz = NULL;
    hs_surface *s = NULL;
    HS_CALL_GOTO(ring_set_make(p->rs_endo, p->rl_endo, ub_endo, h, n_rim, &endo), done);
    HS_CALL_GOTO(ring_set_make(p->rs_epi, p->rl_epi, ub_epi, h, n_rim, &epi), done);
    size_t np_max = 2 + (size_t)(n_bands - 1) * n_rim;
    for (int j = 1; j <= endo.n_rings; ++j) np_max += (size_t)endo.count[j];
    for (int j = 1; j <= epi.n_rings; ++j) np_max += (size_t)epi.count[j];
    HS_CHECK_GOTO(np_max < INT32_MAX / 4, done, HS_ERR_CONFIG,
                  "ellipsoid LV: h = %g mm gives too many surface points", h);
    HS_CALL_GOTO(HS_ALLOC(xyz, 3 * np_max, "LV surface points"), done);
    int32_t np = 0;
    HS_CALL_GOTO(add_ellipsoid(&endo, p->rs_endo, p->rl_endo, HS_LV_ENDO, xyz, &np, &t), done);
    HS_CALL_GOTO(add_ellipsoid(&epi, p->rs_epi, p->rl_epi, HS_LV_EPI, xyz, &np, &t), done);
    const int32_t rim_endo = endo.first[endo.n_rings], rim_epi = epi.first[epi.n_rings];
    /* Both rims exactly on the base plane (rl cos(acos(zb / rl)) may differ by an ulp). */
    for (int i = 0; i < n_rim; ++i) {
        xyz[3 * (size_t)(rim_endo + i) + 2] = zb;
        xyz[3 * (size_t)(rim_epi + i) + 2] = zb;
    }
    /* Annulus: ring k = 0 (endo rim) .. n_bands (epi rim), same angles, radius in between. */
    int32_t prev = rim_endo;
    for (int k = 1; k <= n_bands; ++k) {
        int32_t cur = rim_epi;
        if (k < n_bands) {
            cur = np;
            const double rho = rho_endo + (rho_epi - rho_endo) * k / n_bands;
            for (int i = 0; i < n_rim; ++i) {
                const double v = 2.0 * M_PI * i / n_rim;
                double *x = xyz + 3 * (size_t)np++;
                x[0] = rho * cos(v);
                x[1] = rho * sin(v);
                x[2] = zb;
            }
        }
        for (int i = 0; i < n_rim; ++i) {
            const int32_t a = prev + i, b = prev + (i + 1) % n_rim, c = cur + i,
                          d = cur + (i + 1) % n_rim;
            /* Alternate the diagonal so the strip has no global shear. */
            if (i % 2) {
                HS_CALL_GOTO(tri_add(&t, a, b, d, HS_LV_BASE), done);
                HS_CALL_GOTO(tri_add(&t, a, d, c, HS_LV_BASE), done);
            } else {
                HS_CALL_GOTO(tri_add(&t, a, b, c, HS_LV_BASE), done);
                HS_CALL_GOTO(tri_add(&t, b, d, c, HS_LV_BASE), done);
            }
        }
        prev = cur;
    }
    orient(&t, xyz, HS_LV_ENDO, p->rs_endo, p->rl_endo, -1.0);
    orient(&t, xyz, HS_LV_EPI, p->rs_epi, p->rl_epi, +1.0);
    orient(&t, xyz, HS_LV_BASE, 0.0, 0.0, +1.0);

    HS_CALL_GOTO(hs_surface_alloc(np, t.n, 3 * t.n, &s), done);
    for (size_t i = 0; i < 3 * (size_t)np; ++i) s->xyz[i] = xyz[i];
    for (int32_t f = 0; f < t.n; ++f) {
        s->facet_ptr[f + 1] = 3 * (f + 1);
        for (int k = 0; k < 3; ++k) s->facet_idx[3 * (size_t)f + k] = t.v[3 * (size_t)f + k];
        s->facet_marker[f] = t.marker[f];
    }
    *out = s;
    s = NULL;
done:
    ring_set_free(&endo);
    ring_set_free(&epi);
    free(t.v);
    free(t.marker);
    free(xyz);
    hs_surface_destroy(&s);
    return st;
}

/* ---- fibres ---- */

double hs_lv_transmural(const hs_lv_params *p, const double x[3])
{
    /* F(t) = rho^2 / rs(t)^2 + z^2 / rl(t)^2 - 1 decreases in t (both radii grow with t), so
     * the t of the ellipsoid through x is found by bisection; outside [0, 1] it is clamped. */
    const double rho2 = x[0] * x[0] + x[1] * x[1], z2 = x[2] * x[2];
    double lo = 0.0, hi = 1.0;
#define HS_LV_F(t)                                                                                 \
    (rho2 / ((p->rs_endo + (t) * (p->rs_epi - p->rs_endo)) *                                       \
             (p->rs_endo + (t) * (p->rs_epi - p->rs_endo))) +                                      \
     z2 / ((p->rl_endo + (t) * (p->rl_epi - p->rl_endo)) *                                         \
           (p->rl_endo + (t) * (p->rl_epi - p->rl_endo))) -                                        \
     1.0)
    if (!(HS_LV_F(0.0) > 0.0)) return 0.0;
    if (!(HS_LV_F(1.0) < 0.0)) return 1.0;
    for (int it = 0; it < 60; ++it) { /* 2^-60: below double resolution of t */
        const double mid = 0.5 * (lo + hi);
        if (HS_LV_F(mid) > 0.0)
            lo = mid;
        else
            hi = mid;
    }
#undef HS_LV_F
    return 0.5 * (lo + hi);
}

hs_status hs_lv_set_fibers(hs_mesh *m, const hs_lv_params *p)
{
    HS_CHECK(m != NULL && p != NULL, HS_ERR_INTERNAL, "hs_lv_set_fibers: NULL argument");
    HS_CALL(check_geometry(p)); /* h is not used: any mesh of this geometry will do */
    double *fib = m->fiber;
    if (!fib) HS_CALL(HS_ALLOC(fib, (size_t)m->n_elems * 3, "fibre directions"));
    const double deg = M_PI / 180.0;
    for (int32_t e = 0; e < m->n_elems; ++e) {
        const int32_t *tv = m->tets + 4 * (size_t)e;
        double c[3] = {0.0, 0.0, 0.0};
        for (int k = 0; k < 4; ++k)
            for (int d = 0; d < 3; ++d) c[d] += 0.25 * m->xyz[3 * (size_t)tv[k] + d];
        const double t = hs_lv_transmural(p, c);
        const double rs = p->rs_endo + t * (p->rs_epi - p->rs_endo);
        const double rl = p->rl_endo + t * (p->rl_epi - p->rl_endo);
        const double rho = hypot(c[0], c[1]);
        /* Prolate angle u of the centroid on its ellipsoid (sin u >= 0); circumferential angle v
         * (arbitrary on the axis, where every direction is circumferential). */
        const double u = atan2(rho / rs, c[2] / rl);
        const double v = rho > 0.0 ? atan2(c[1], c[0]) : 0.0;
        const double e_circ[3] = {-sin(v), cos(v), 0.0};
        /* -d/du of (rs sin u cos v, rs sin u sin v, rl cos u): from apex towards base. */
        double e_long[3] = {-rs * cos(u) * cos(v), -rs * cos(u) * sin(v), rl * sin(u)};
        const double nl = sqrt(e_long[0] * e_long[0] + e_long[1] * e_long[1] +
                               e_long[2] * e_long[2]);
        for (int d = 0; d < 3; ++d) e_long[d] /= nl;
        const double alpha = (p->helix_endo_deg + t * (p->helix_epi_deg - p->helix_endo_deg)) * deg;
        for (int d = 0; d < 3; ++d)
            fib[3 * (size_t)e + d] = cos(alpha) * e_circ[d] + sin(alpha) * e_long[d];
    }
    m->fiber = fib;
    return HS_OK;
}

/* ---- the mesh ---- */

hs_status hs_mesh_create_ellipsoid_lv(const hs_lv_params *p, hs_mesh **out)
{
    HS_CHECK(p != NULL && out != NULL, HS_ERR_INTERNAL,
             "hs_mesh_create_ellipsoid_lv: NULL argument");
    *out = NULL;
    HS_CALL(check_params(p));
    hs_surface *s = NULL;
    hs_mesh *m = NULL;
    hs_status st = HS_OK;
    HS_CALL(build_surface(p, &s));
    const hs_tetgen_opts o = {p->radius_edge, p->min_dihedral_deg,
                              hs_tetgen_volume_for_edge(p->h), 0};
    HS_CALL_GOTO(hs_tetgen_mesh_surface_keep(s, &o, &m), fail);
    HS_CALL_GOTO(hs_mesh_add_label(m, HS_LV_ENDO, "endo"), fail);
    HS_CALL_GOTO(hs_mesh_add_label(m, HS_LV_EPI, "epi"), fail);
    HS_CALL_GOTO(hs_mesh_add_label(m, HS_LV_BASE, "base"), fail);
    HS_CALL_GOTO(hs_lv_set_fibers(m, p), fail);
    hs_surface_destroy(&s);
    *out = m;
    return HS_OK;
fail:
    hs_error_prefix("ellipsoid LV (h = %g mm): ", p->h);
    hs_surface_destroy(&s);
    hs_mesh_destroy(&m);
    return st;
}
