/* The built-in left ventricle (hs_lv.h) against its geometry:
 *  - valid mesh; labelled boundary faces tile the whole boundary, face outwards, and lie on their
 *    surfaces (endo/epi nodes on the ellipsoids, base nodes exactly on z = z_base);
 *  - volume against the analytic wall volume: an inscribed polyhedron of a curved surface misses
 *    O(h^2) of it, bounded triangle by triangle by area * kappa * R_circ^2 / 2 (the largest gap
 *    between a triangle of circumradius R_circ and a surface of curvature kappa), and the error
 *    must shrink at least like h^1.5 from h = 2 to h = 1 (second order expected);
 *  - surface areas: base annulus against pi (rho_epi^2 - rho_endo^2) up to its polygonal rims,
 *    endo and epi against the integral of the spheroid's area element;
 *  - fibres: unit, tangent to the ellipsoid of their depth, helix angle = the rule's, near +60 deg
 *    next to the endocardium and -60 deg next to the epicardium;
 *  - renumbering (RCM, SFC) keeps node_orig, boundary faces and fibres attached;
 *  - parameter errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_lv.h"
#include "hs_mesh.h"
#include "hs_test.h"

/* One tet face, nodes sorted (for finding the faces that belong to one element only). */
typedef struct mt_face {
    int32_t v[3];
} mt_face;

static int mt_face_cmp(const void *pa, const void *pb)
{
    const mt_face *a = pa, *b = pb;
    for (int k = 0; k < 3; ++k)
        if (a->v[k] != b->v[k]) return a->v[k] < b->v[k] ? -1 : 1;
    return 0;
}

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static int contains(const char *s, const char *sub) { return strstr(s, sub) != NULL; }

/* Spheroid of the given surface: endo (1) or epi (2). */
static void radii(const hs_lv_params *p, int label, double *rs, double *rl)
{
    *rs = label == HS_LV_ENDO ? p->rs_endo : p->rs_epi;
    *rl = label == HS_LV_ENDO ? p->rl_endo : p->rl_epi;
}

/* Largest principal curvature of the spheroid (rs, rl) at the point of prolate angle u:
 * meridional rs rl / D^1.5, parallel rl / (rs D^0.5), D = rs^2 cos^2 u + rl^2 sin^2 u. */
static double kappa_max(double rs, double rl, const double x[3])
{
    const double u = atan2(hypot(x[0], x[1]) / rs, x[2] / rl);
    const double D = rs * rs * cos(u) * cos(u) + rl * rl * sin(u) * sin(u);
    return fmax(rs * rl / (D * sqrt(D)), rl / (rs * sqrt(D)));
}

/* Area of the spheroid (rs, rl) below z_base: integral of 2 pi rs sin u |dx/du| du from the base
 * to the apex (Simpson, 4000 intervals: error far below the tolerances used). */
static double cap_area(double rs, double rl, double zb)
{
    const int n = 4000;
    const double u0 = acos(zb / rl), du = (M_PI - u0) / n;
    double s = 0.0;
    for (int i = 0; i <= n; ++i) {
        const double u = u0 + i * du;
        const double f = 2.0 * M_PI * rs * sin(u) * hypot(rs * cos(u), rl * sin(u));
        s += f * (i == 0 || i == n ? 1.0 : (i % 2 ? 4.0 : 2.0));
    }
    return s * du / 3.0;
}

typedef struct tri_geo {
    double area, rc;       /* area, circumradius */
    double n[3];           /* (b-a)x(c-a) */
    double c[3];           /* centroid */
} tri_geo;

static tri_geo bface_geo(const hs_mesh *m, int32_t j)
{
    const double *p[3];
    for (int k = 0; k < 3; ++k) p[k] = m->xyz + 3 * (size_t)m->bface[3 * j + k];
    tri_geo g;
    const double u[3] = {p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]};
    const double w[3] = {p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]};
    g.n[0] = u[1] * w[2] - u[2] * w[1];
    g.n[1] = u[2] * w[0] - u[0] * w[2];
    g.n[2] = u[0] * w[1] - u[1] * w[0];
    g.area = 0.5 * sqrt(g.n[0] * g.n[0] + g.n[1] * g.n[1] + g.n[2] * g.n[2]);
    double l[3];
    for (int k = 0; k < 3; ++k) {
        const double *a = p[k], *b = p[(k + 1) % 3];
        l[k] = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                    (a[2] - b[2]) * (a[2] - b[2]));
        g.c[k] = (p[0][k] + p[1][k] + p[2][k]) / 3.0;
    }
    g.rc = l[0] * l[1] * l[2] / (4.0 * g.area);
    return g;
}

/* Faces that belong to exactly one element. */
static long count_boundary_faces(const hs_mesh *m)
{
    const size_t nf = 4 * (size_t)m->n_elems;
    mt_face *f = malloc(nf * sizeof *f);
    if (!f) return -1;
    for (int32_t e = 0; e < m->n_elems; ++e)
        for (int k = 0; k < 4; ++k) {
            mt_face *x = &f[4 * (size_t)e + k];
            int n = 0;
            for (int j = 0; j < 4; ++j)
                if (j != k) x->v[n++] = m->tets[4 * (size_t)e + j];
            for (int a = 0; a < 2; ++a)
                for (int b = 0; b < 2 - a; ++b)
                    if (x->v[b] > x->v[b + 1]) {
                        const int32_t t = x->v[b];
                        x->v[b] = x->v[b + 1];
                        x->v[b + 1] = t;
                    }
        }
    qsort(f, nf, sizeof *f, mt_face_cmp);
    long n_once = 0;
    for (size_t i = 0; i < nf;) {
        size_t j = i + 1;
        while (j < nf && mt_face_cmp(&f[i], &f[j]) == 0) ++j;
        n_once += j - i == 1;
        i = j;
    }
    free(f);
    return n_once;
}

/* Unit circumferential and apex-to-base tangents of the spheroid (rs, rl) through x, computed
 * here independently of the library. */
static void lv_frame(double rs, double rl, const double x[3], double ec[3], double el[3])
{
    const double rho = hypot(x[0], x[1]);
    const double v = atan2(x[1], x[0]);
    const double u = atan2(rho / rs, x[2] / rl);
    ec[0] = -sin(v);
    ec[1] = cos(v);
    ec[2] = 0.0;
    el[0] = -rs * cos(u) * cos(v);
    el[1] = -rs * cos(u) * sin(v);
    el[2] = rl * sin(u);
    const double n = sqrt(el[0] * el[0] + el[1] * el[1] + el[2] * el[2]);
    for (int k = 0; k < 3; ++k) el[k] /= n;
}

static void centroid(const hs_mesh *m, int32_t e, double c[3])
{
    c[0] = c[1] = c[2] = 0.0;
    for (int k = 0; k < 4; ++k)
        for (int d = 0; d < 3; ++d) c[d] += 0.25 * m->xyz[3 * (size_t)m->tets[4 * (size_t)e + k] + d];
}

static double elem_lmax(const hs_mesh *m, int32_t e)
{
    double l2 = 0.0;
    const int32_t *t = m->tets + 4 * (size_t)e;
    for (int a = 0; a < 4; ++a)
        for (int b = a + 1; b < 4; ++b) {
            const double *p = m->xyz + 3 * (size_t)t[a], *q = m->xyz + 3 * (size_t)t[b];
            const double d = (p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) +
                             (p[2] - q[2]) * (p[2] - q[2]);
            l2 = fmax(l2, d);
        }
    return sqrt(l2);
}

/* Fibres: unit, tangent, helix angle = rule; endo/epi-adjacent elements near +-60 deg. The
 * centroid of a tet with a face on a surface is at most a quarter of its longest edge from that
 * face, and the wall is 3 mm thick (the depth t grows by ~1/3 per mm, taken as 1/2.5 for slack):
 * so |alpha - (+-60)| <= 120 * lmax / (4 * 2.5) = 12 lmax. */
static void check_fibres(const hs_mesh *m, const hs_lv_params *p, double h)
{
    HS_TEST_CHECK(m->fiber != NULL, "h %g: no fibres", h);
    if (!m->fiber) return;
    int8_t *adj = calloc((size_t)m->n_elems, 1); /* 1 endo-adjacent, 2 epi-adjacent */
    /* Element of each boundary face: the element holding its three nodes (through node->elem). */
    int32_t *first = malloc(sizeof(int32_t) * (size_t)m->n_nodes);
    int32_t *next = malloc(sizeof(int32_t) * 4 * (size_t)m->n_elems);
    for (int32_t v = 0; v < m->n_nodes; ++v) first[v] = -1;
    for (int32_t i = 0; i < 4 * m->n_elems; ++i) {
        const int32_t v = m->tets[i];
        next[i] = first[v];
        first[v] = i;
    }
    for (int32_t j = 0; j < m->n_bfaces; ++j) {
        const int32_t lab = m->bface_label[j];
        if (lab != HS_LV_ENDO && lab != HS_LV_EPI) continue;
        for (int32_t i = first[m->bface[3 * j]]; i >= 0; i = next[i]) {
            const int32_t e = i / 4, *t = m->tets + 4 * (size_t)e;
            int hit = 0;
            for (int k = 0; k < 4; ++k)
                hit += t[k] == m->bface[3 * j + 1] || t[k] == m->bface[3 * j + 2];
            if (hit == 2) adj[e] = (int8_t)lab;
        }
    }
    free(first);
    free(next);

    long bad_unit = 0, bad_tangent = 0, bad_rule = 0, bad_endo = 0, bad_epi = 0;
    long n_endo = 0, n_epi = 0;
    double sum_endo = 0.0, sum_epi = 0.0;
    for (int32_t e = 0; e < m->n_elems; ++e) {
        const double *f = m->fiber + 3 * (size_t)e;
        double c[3], ec[3], el[3];
        centroid(m, e, c);
        bad_unit += fabs(f[0] * f[0] + f[1] * f[1] + f[2] * f[2] - 1.0) > 1e-14;
        const double t = hs_lv_transmural(p, c);
        const double rs = p->rs_endo + t * (p->rs_epi - p->rs_endo);
        const double rl = p->rl_endo + t * (p->rl_epi - p->rl_endo);
        lv_frame(rs, rl, c, ec, el);
        const double fc = f[0] * ec[0] + f[1] * ec[1] + f[2] * ec[2];
        const double fl = f[0] * el[0] + f[1] * el[1] + f[2] * el[2];
        bad_tangent += fabs(fc * fc + fl * fl - 1.0) > 1e-12;
        const double alpha = atan2(fl, fc) * 180.0 / M_PI;
        const double rule = p->helix_endo_deg + t * (p->helix_epi_deg - p->helix_endo_deg);
        bad_rule += fabs(alpha - rule) > 1e-9;
        const double slack = 12.0 * elem_lmax(m, e);
        if (adj[e] == HS_LV_ENDO) {
            ++n_endo;
            sum_endo += alpha;
            bad_endo += alpha < 60.0 - slack || alpha > 60.0 + 1e-9;
        } else if (adj[e] == HS_LV_EPI) {
            ++n_epi;
            sum_epi += alpha;
            bad_epi += alpha > -60.0 + slack || alpha < -60.0 - 1e-9;
        }
    }
    free(adj);
    HS_TEST_CHECK(bad_unit == 0 && bad_tangent == 0,
                  "h %g: %ld fibres not unit, %ld not tangent to their ellipsoid", h, bad_unit,
                  bad_tangent);
    HS_TEST_CHECK(bad_rule == 0, "h %g: %ld helix angles differ from the rule", h, bad_rule);
    HS_TEST_CHECK(n_endo > 0 && n_epi > 0, "h %g: %ld endo-, %ld epi-adjacent elements", h,
                  n_endo, n_epi);
    HS_TEST_CHECK(bad_endo == 0 && bad_epi == 0,
                  "h %g: %ld endo-adjacent elements far from +60 deg, %ld epi-adjacent far from "
                  "-60",
                  h, bad_endo, bad_epi);
    /* On average the centroid sits about a sixth of the wall in: within 25 deg of +-60. */
    if (n_endo && n_epi)
        HS_TEST_CHECK(sum_endo / n_endo > 35.0 && sum_epi / n_epi < -35.0,
                      "h %g: mean helix angle %g deg next to endo, %g next to epi", h,
                      sum_endo / n_endo, sum_epi / n_epi);
}

/* Renumber twice (RCM, then SFC): node v is source node node_orig[v], boundary faces join the
 * same points with the same labels, and fibres are still those of their elements (the rule
 * recomputed on the renumbered mesh gives the stored fibres bit for bit, as each element keeps
 * its local node order and so its centroid). */
static void check_renumbering(hs_mesh *m, const hs_lv_params *p)
{
    const int32_t n = m->n_nodes, nb = m->n_bfaces;
    double *x0 = malloc(sizeof(double) * 3 * (size_t)n);
    double *fx0 = malloc(sizeof(double) * 9 * (size_t)nb);
    int32_t *lab0 = malloc(sizeof(int32_t) * (size_t)nb);
    memcpy(x0, m->xyz, sizeof(double) * 3 * (size_t)n);
    memcpy(lab0, m->bface_label, sizeof(int32_t) * (size_t)nb);
    for (int32_t j = 0; j < nb; ++j)
        for (int k = 0; k < 3; ++k)
            memcpy(fx0 + 9 * j + 3 * k, m->xyz + 3 * (size_t)m->bface[3 * j + k], 3 * sizeof(double));
    const hs_reorder_kind kinds[2] = {HS_REORDER_RCM, HS_REORDER_SFC};
    const char *names[2] = {"RCM", "SFC"};
    for (int r = 0; r < 2; ++r) {
        hs_reorder_report rep;
        HS_TEST_OK(hs_mesh_reorder(m, kinds[r], &rep));
        HS_TEST_OK(hs_mesh_check(m));
        long bad_orig = 0, moved = 0, bad_face = 0, bad_fib = 0;
        char *seen = calloc((size_t)n, 1);
        for (int32_t v = 0; v < n; ++v) {
            const int32_t o = m->node_orig[v];
            if (o < 0 || o >= n || seen[o]++) {
                ++bad_orig;
                continue;
            }
            moved += o != v;
            bad_orig += memcmp(m->xyz + 3 * (size_t)v, x0 + 3 * (size_t)o, 3 * sizeof(double)) != 0;
        }
        free(seen);
        for (int32_t j = 0; j < nb; ++j) {
            bad_face += m->bface_label[j] != lab0[j];
            for (int k = 0; k < 3; ++k)
                bad_face += memcmp(m->xyz + 3 * (size_t)m->bface[3 * j + k], fx0 + 9 * j + 3 * k,
                                   3 * sizeof(double)) != 0;
        }
        double *fib = malloc(sizeof(double) * 3 * (size_t)m->n_elems);
        memcpy(fib, m->fiber, sizeof(double) * 3 * (size_t)m->n_elems);
        HS_TEST_OK(hs_lv_set_fibers(m, p));
        bad_fib = memcmp(fib, m->fiber, sizeof(double) * 3 * (size_t)m->n_elems) != 0;
        free(fib);
        HS_TEST_CHECK(bad_orig == 0 && moved > 0, "%s: %ld bad node_orig entries, %ld nodes moved",
                      names[r], bad_orig, moved);
        HS_TEST_CHECK(bad_face == 0, "%s: %ld boundary face corners/labels changed", names[r],
                      bad_face);
        HS_TEST_CHECK(!bad_fib, "%s: fibres no longer belong to their elements", names[r]);
        HS_TEST_CHECK(rep.bandwidth_after == hs_mesh_bandwidth(m), "%s: reported bandwidth %lld, "
                      "measured %lld", names[r], (long long)rep.bandwidth_after,
                      (long long)hs_mesh_bandwidth(m));
    }
    free(x0);
    free(fx0);
    free(lab0);
}

/* Builds the LV at edge length h, checks it, returns the relative volume error. */
static double check_lv(double h, int renumber)
{
    hs_lv_params p;
    hs_lv_params_default(&p, h);
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_create_ellipsoid_lv(&p, &m));
    if (!m) return NAN;
    HS_TEST_OK(hs_mesh_check(m));
    HS_TEST_CHECK(hs_mesh_find_label(m, "endo") == HS_LV_ENDO &&
                      hs_mesh_find_label(m, "epi") == HS_LV_EPI &&
                      hs_mesh_find_label(m, "base") == HS_LV_BASE,
                  "h %g: labels endo %d epi %d base %d", h, hs_mesh_find_label(m, "endo"),
                  hs_mesh_find_label(m, "epi"), hs_mesh_find_label(m, "base"));
    HS_TEST_CHECK(m->n_bfaces == count_boundary_faces(m),
                  "h %g: %d labelled boundary faces, the mesh has %ld boundary faces", h,
                  m->n_bfaces, count_boundary_faces(m));

    /* Per surface: area, bounds, placement, orientation. */
    const double rho_endo = p.rs_endo * sqrt(1.0 - p.z_base * p.z_base / (p.rl_endo * p.rl_endo));
    const double rho_epi = p.rs_epi * sqrt(1.0 - p.z_base * p.z_base / (p.rl_epi * p.rl_epi));
    double area[4] = {0}, area_tol[4] = {0}, vol_bound = 0.0, v6 = 0.0;
    double chord[2] = {0.0, 0.0}; /* longest base edge along the endo / epi rim */
    long off_surface = 0, wrong_way = 0, bad_label = 0;
    for (int32_t j = 0; j < m->n_bfaces; ++j) {
        const int32_t lab = m->bface_label[j];
        if (lab < 1 || lab > 3) {
            ++bad_label;
            continue;
        }
        const tri_geo g = bface_geo(m, j);
        area[lab] += g.area;
        const double *a = m->xyz + 3 * (size_t)m->bface[3 * j];
        v6 += a[0] * g.n[0] + a[1] * g.n[1] + a[2] * g.n[2]; /* divergence theorem */
        if (lab == HS_LV_BASE) {
            for (int k = 0; k < 3; ++k) {
                const double *x = m->xyz + 3 * (size_t)m->bface[3 * j + k];
                const double *y = m->xyz + 3 * (size_t)m->bface[3 * j + (k + 1) % 3];
                const double rx = hypot(x[0], x[1]), ry = hypot(y[0], y[1]);
                for (int r = 0; r < 2; ++r) {
                    const double rho = r ? rho_epi : rho_endo;
                    if (fabs(rx - rho) < 1e-9 * rho && fabs(ry - rho) < 1e-9 * rho)
                        chord[r] = fmax(chord[r], hypot(x[0] - y[0], x[1] - y[1]));
                }
            }
            for (int k = 0; k < 3; ++k)
                off_surface += m->xyz[3 * (size_t)m->bface[3 * j + k] + 2] != p.z_base;
            wrong_way += !(g.n[2] > 0.0);
            continue;
        }
        double rs, rl;
        radii(&p, lab, &rs, &rl);
        for (int k = 0; k < 3; ++k) {
            const double *x = m->xyz + 3 * (size_t)m->bface[3 * j + k];
            const double F = (x[0] * x[0] + x[1] * x[1]) / (rs * rs) + x[2] * x[2] / (rl * rl);
            off_surface += fabs(F - 1.0) > 1e-12;
        }
        /* Leaving the wall: away from the epicardium's inside, into the endocardium's. */
        const double grad[3] = {g.c[0] / (rs * rs), g.c[1] / (rs * rs), g.c[2] / (rl * rl)};
        const double s = g.n[0] * grad[0] + g.n[1] * grad[1] + g.n[2] * grad[2];
        wrong_way += lab == HS_LV_EPI ? !(s > 0.0) : !(s < 0.0);
        const double kr = kappa_max(rs, rl, g.c) * g.rc;
        vol_bound += g.area * kr * g.rc / 2.0;
        area_tol[lab] += g.area * kr * kr / 2.0;
    }
    HS_TEST_CHECK(bad_label == 0, "h %g: %ld boundary faces with labels outside 1..3", h,
                  bad_label);
    HS_TEST_CHECK(off_surface == 0, "h %g: %ld boundary face corners off their surface", h,
                  off_surface);
    HS_TEST_CHECK(wrong_way == 0, "h %g: %ld boundary faces facing into the wall", h, wrong_way);

    double vol;
    hs_mesh_stats(m, &vol, NULL, NULL, NULL);
    /* The elements fill exactly the polyhedron bounded by the labelled faces. */
    HS_TEST_NEAR(vol, v6 / 6.0, 1e-10 * vol, "volume of the elements vs of their boundary");
    const double v_exact = hs_lv_wall_volume(&p);
    HS_TEST_CHECK(fabs(vol - v_exact) <= vol_bound,
                  "h %g: volume %.6f vs analytic %.6f: error %.3g above the curvature bound %.3g "
                  "(= C h^2 with C = %.3g)",
                  h, vol, v_exact, fabs(vol - v_exact), vol_bound, vol_bound / (h * h));

    /* Base: flat annulus between polygonal rims. A chord of length l on a circle of radius R
     * cuts off l^3 / (12 R); over the 2 pi R / l chords of a rim that is pi l^2 / 6: the outer
     * rim loses it, the inner one (the hole) gives some back. */
    HS_TEST_CHECK(chord[0] > 0.0 && chord[1] > 0.0, "h %g: no rim edges found (%g, %g)", h,
                  chord[0], chord[1]);
    HS_TEST_NEAR(area[HS_LV_BASE], M_PI * (rho_epi * rho_epi - rho_endo * rho_endo),
                 M_PI * (chord[0] * chord[0] + chord[1] * chord[1]) / 6.0, "base annulus area");
    HS_TEST_NEAR(area[HS_LV_ENDO], cap_area(p.rs_endo, p.rl_endo, p.z_base), area_tol[HS_LV_ENDO],
                 "endocardial area");
    HS_TEST_NEAR(area[HS_LV_EPI], cap_area(p.rs_epi, p.rl_epi, p.z_base), area_tol[HS_LV_EPI],
                 "epicardial area");

    check_fibres(m, &p, h);
    if (renumber) check_renumbering(m, &p);
    hs_mesh_destroy(&m);
    return fabs(vol - v_exact) / v_exact;
}

static void check_formulas(void)
{
    hs_lv_params p;
    hs_lv_params_default(&p, 1.0);
    /* Wall volume against the integral of the cross sections pi rs^2 (1 - z^2 / rl^2) from the
     * apex to the base (Simpson's rule, exact for these quadratics). */
    double vcap[2];
    for (int w = 0; w < 2; ++w) {
        const double rs = w ? p.rs_epi : p.rs_endo, rl = w ? p.rl_epi : p.rl_endo;
        const double a = -rl, b = p.z_base;
        double s = 0.0;
        for (int i = 0; i <= 2; ++i) {
            const double z = a + i * (b - a) / 2.0;
            s += M_PI * rs * rs * (1.0 - z * z / (rl * rl)) * (i == 1 ? 4.0 : 1.0);
        }
        vcap[w] = s * (b - a) / 6.0;
    }
    const double v_epi = vcap[1], v_endo = vcap[0];
    HS_TEST_NEAR(hs_lv_wall_volume(&p), v_epi - v_endo, 1e-10 * v_epi, "analytic wall volume");

    /* Transmural depth: 0 on endo, 1 on epi, 1/2 on the middle ellipsoid, clamped outside. */
    const double u = 2.0, v = 0.7;
    const double t_in[5] = {0.0, 1.0, 0.5, -0.3, 1.4};
    const double t_want[5] = {0.0, 1.0, 0.5, 0.0, 1.0};
    for (int i = 0; i < 5; ++i) {
        const double rs = p.rs_endo + t_in[i] * (p.rs_epi - p.rs_endo);
        const double rl = p.rl_endo + t_in[i] * (p.rl_epi - p.rl_endo);
        const double x[3] = {rs * sin(u) * cos(v), rs * sin(u) * sin(v), rl * cos(u)};
        HS_TEST_NEAR(hs_lv_transmural(&p, x), t_want[i], 1e-12, "transmural depth");
    }
    const double origin[3] = {0, 0, 0};
    HS_TEST_NEAR(hs_lv_transmural(&p, origin), 0.0, 0.0, "depth at the centre");
}

static void check_bad_params(void)
{
    hs_lv_params p;
    hs_mesh *m = NULL;
    const char *msgs[4] = {"must enclose the endocardium", "must cut the endocardium",
                           "must be > 0", "would give about"};
    for (int i = 0; i < 4; ++i) {
        hs_lv_params_default(&p, 2.0);
        if (i == 0) p.rs_epi = 6.0;
        if (i == 1) p.z_base = 17.5;
        if (i == 2) p.h = 0.0;
        if (i == 3) p.h = 0.005;
        hs_error_clear();
        const hs_status st = hs_mesh_create_ellipsoid_lv(&p, &m);
        HS_TEST_CHECK(st == HS_ERR_CONFIG && m == NULL && contains(hs_error_message(), msgs[i]),
                      "bad parameters %d: status %d, \"%s\" (expected \"%s\")", i, (int)st,
                      hs_error_message(), msgs[i]);
        hs_error_clear();
    }
}

int main(void)
{
    check_formulas();
    check_bad_params();
    const double err2 = check_lv(2.0, 0);
    check_lv(1.5, 1);
    const double err1 = check_lv(1.0, 0);
    /* Second order expected (measured: 3.5e-3 at h = 2, 9.9e-4 at h = 1, ratio 3.6). */
    HS_TEST_CHECK(err1 <= err2 * pow(0.5, 1.5),
                  "volume error %.3g at h = 1 vs %.3g at h = 2: slower than h^1.5", err1, err2);
    HS_TEST_RETURN();
}
