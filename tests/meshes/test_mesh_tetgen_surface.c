/* hs_tetgen_mesh_surface: facet markers become labelled boundary faces, region seeds become
 * element regions (with per-region volume bounds), holes are honoured, and TetGen's refusals
 * (self-intersections, open surfaces, unreachable bounds) come back as errors, never a crash or a
 * hang. Also the label helpers of hs_mesh (hs_mesh_add_label, hs_mesh_find_label). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_mesh.h"
#include "hs_surface.h"
#include "hs_tetgen.h"
#include "hs_test.h"
#include "mesh_test_util.h"

static int contains(const char *s, const char *sub) { return strstr(s, sub) != NULL; }

/* A surface of quads and triangles given as flat lists; facet f has n_corner[f] corners. */
static hs_surface *make_surface(int np, const double *xyz, int nf, const int *n_corner,
                                const int *idx, const int *marker)
{
    int nidx = 0;
    for (int f = 0; f < nf; ++f) nidx += n_corner[f];
    hs_surface *s = NULL;
    HS_TEST_OK(hs_surface_alloc(np, nf, nidx, &s));
    if (!s) return NULL;
    memcpy(s->xyz, xyz, sizeof(double) * 3 * (size_t)np);
    s->facet_ptr[0] = 0;
    for (int f = 0; f < nf; ++f) {
        s->facet_ptr[f + 1] = s->facet_ptr[f] + n_corner[f];
        s->facet_marker[f] = marker ? marker[f] : 0;
    }
    memcpy(s->facet_idx, idx, sizeof(int) * (size_t)nidx);
    return s;
}

/* Box [x0,x1]x[y0,y1]x[z0,z1] as 8 points from `base` and 6 quads (x0, x1, y0, y1, z0, z1). */
static void box_points(double *xyz, const double lo[3], const double hi[3])
{
    for (int c = 0; c < 8; ++c) {
        xyz[3 * c + 0] = (c & 1) ? hi[0] : lo[0];
        xyz[3 * c + 1] = (c & 2) ? hi[1] : lo[1];
        xyz[3 * c + 2] = (c & 4) ? hi[2] : lo[2];
    }
}
static const int k_box_quads[24] = {0, 4, 6, 2, 1, 3, 7, 5, 0, 1, 5, 4,
                                    2, 6, 7, 3, 0, 2, 3, 1, 4, 5, 7, 6};
static const int k_quad4[12] = {4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4};

/* Boundary faces of the tet mesh (faces of one element), for comparison with bface. */
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

/* Normal (b-a)x(c-a) of boundary face j, not normalised. */
static void bface_normal(const hs_mesh *m, int32_t j, double n[3])
{
    const double *a = m->xyz + 3 * (size_t)m->bface[3 * j], *b = m->xyz + 3 * (size_t)m->bface[3 * j + 1],
                 *c = m->xyz + 3 * (size_t)m->bface[3 * j + 2];
    const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    n[0] = u[1] * w[2] - u[2] * w[1];
    n[1] = u[2] * w[0] - u[0] * w[2];
    n[2] = u[0] * w[1] - u[1] * w[0];
}

/* Unit cube with side markers 1..6 (x=0, x=1, y=0, y=1, z=0, z=1): volume 1, every boundary
 * triangle labelled, each side's triangles on that side, facing out, with area 1. */
static void check_cube_markers(void)
{
    double xyz[24];
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    box_points(xyz, lo, hi);
    const int marker[6] = {1, 2, 3, 4, 5, 6};
    hs_surface *s = make_surface(8, xyz, 6, k_quad4, k_box_quads, marker);
    if (!s) return;
    const hs_tetgen_opts o = {1.414, 0.0, 0.01, 0};
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_tetgen_mesh_surface(s, &o, &m));
    hs_surface_destroy(&s);
    if (!m) return;
    HS_TEST_OK(hs_mesh_check(m));
    double vol;
    hs_mesh_stats(m, &vol, NULL, NULL, NULL);
    HS_TEST_NEAR(vol, 1.0, 1e-12, "cube volume");
    for (int32_t e = 0; e < m->n_elems; ++e)
        if (hs_mesh_elem_volume(m, e) > 0.01 * (1 + 1e-9)) {
            HS_TEST_CHECK(0, "element %d volume %g above the bound 0.01", e,
                          hs_mesh_elem_volume(m, e));
            break;
        }
    mt_check_box_conforming(m, 1, 1, 1, 1e-12);
    HS_TEST_CHECK(m->n_bfaces == count_boundary_faces(m),
                  "%d boundary faces returned, the mesh has %ld", m->n_bfaces,
                  count_boundary_faces(m));
    double area[7] = {0};
    long bad_plane = 0, bad_dir = 0, bad_label = 0;
    for (int32_t j = 0; j < m->n_bfaces; ++j) {
        const int32_t lab = m->bface_label[j];
        if (lab < 1 || lab > 6) {
            ++bad_label;
            continue;
        }
        const int axis = (lab - 1) / 2, side = (lab - 1) % 2;
        for (int k = 0; k < 3; ++k)
            bad_plane += m->xyz[3 * (size_t)m->bface[3 * j + k] + axis] != (double)side;
        double n[3];
        bface_normal(m, j, n);
        /* Outward: -axis on side 0, +axis on side 1. */
        bad_dir += !((side ? n[axis] : -n[axis]) > 0.0);
        area[lab] += 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    }
    HS_TEST_CHECK(bad_label == 0, "%ld boundary faces with a label outside 1..6", bad_label);
    HS_TEST_CHECK(bad_plane == 0, "%ld boundary face corners off their labelled side", bad_plane);
    HS_TEST_CHECK(bad_dir == 0, "%ld boundary faces not facing outwards", bad_dir);
    for (int lab = 1; lab <= 6; ++lab) HS_TEST_NEAR(area[lab], 1.0, 1e-12, "side area");
    HS_TEST_CHECK(m->n_labels == 0, "%d labels named; TetGen gives none", m->n_labels);
    for (int32_t v = 0; v < m->n_nodes; ++v)
        if (m->node_orig[v] != v) {
            HS_TEST_CHECK(0, "node_orig[%d] = %d, expected the identity", v, m->node_orig[v]);
            break;
        }

    /* Labels: names, numbers, renaming, refusals. */
    HS_TEST_OK(hs_mesh_add_label(m, 5, "bottom"));
    HS_TEST_OK(hs_mesh_add_label(m, 6, "top"));
    HS_TEST_CHECK(hs_mesh_find_label(m, "bottom") == 5, "bottom -> %d", hs_mesh_find_label(m, "bottom"));
    HS_TEST_CHECK(hs_mesh_find_label(m, "3") == 3, "\"3\" -> %d (marker on boundary faces)",
                  hs_mesh_find_label(m, "3"));
    HS_TEST_CHECK(hs_mesh_find_label(m, "7") == -1, "\"7\" -> %d (no such marker)",
                  hs_mesh_find_label(m, "7"));
    HS_TEST_CHECK(hs_mesh_find_label(m, "0") == -1 && hs_mesh_find_label(m, "-3") == -1 &&
                      hs_mesh_find_label(m, "3x") == -1 && hs_mesh_find_label(m, "") == -1 &&
                      hs_mesh_find_label(m, "Bottom") == -1,
                  "0, -3, 3x, empty or a wrong-case name must not be found");
    HS_TEST_OK(hs_mesh_add_label(m, 6, "lid")); /* rename */
    HS_TEST_CHECK(hs_mesh_find_label(m, "lid") == 6 && hs_mesh_find_label(m, "top") == -1 &&
                      m->n_labels == 2,
                  "rename: lid -> %d, top -> %d, %d labels", hs_mesh_find_label(m, "lid"),
                  hs_mesh_find_label(m, "top"), m->n_labels);
    hs_error_clear();
    HS_TEST_CHECK(hs_mesh_add_label(m, 4, "lid") == HS_ERR_MESH &&
                      contains(hs_error_message(), "already names marker 6"),
                  "same name on two markers: \"%s\"", hs_error_message());
    hs_error_clear();
    char longname[HS_MESH_LABEL_LEN + 4];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    HS_TEST_CHECK(hs_mesh_add_label(m, 4, longname) == HS_ERR_MESH &&
                      contains(hs_error_message(), "characters"),
                  "over-long name: \"%s\"", hs_error_message());
    hs_error_clear();
    for (int i = m->n_labels; i < HS_MESH_MAX_LABELS; ++i) {
        char nm[16];
        snprintf(nm, sizeof nm, "l%d", i);
        HS_TEST_OK(hs_mesh_add_label(m, 100 + i, nm));
    }
    HS_TEST_CHECK(hs_mesh_add_label(m, 999, "one_too_many") == HS_ERR_MESH &&
                      contains(hs_error_message(), "too many"),
                  "label %d: \"%s\"", HS_MESH_MAX_LABELS + 1, hs_error_message());
    hs_error_clear();
    hs_mesh_destroy(&m);

    /* A facet with marker 0 gives no boundary faces: unlabelled sides are not in bface. */
    const int marker0[6] = {1, 2, 3, 4, 0, 6};
    s = make_surface(8, xyz, 6, k_quad4, k_box_quads, marker0);
    if (!s) return;
    HS_TEST_OK(hs_tetgen_mesh_surface(s, &o, &m));
    hs_surface_destroy(&s);
    if (!m) return;
    double a = 0.0;
    long n5 = 0, n0 = 0;
    for (int32_t j = 0; j < m->n_bfaces; ++j) {
        double n[3];
        bface_normal(m, j, n);
        a += 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        n5 += m->bface_label[j] == 5;
        n0 += m->bface_label[j] == 0;
    }
    HS_TEST_CHECK(n5 == 0 && n0 == 0, "%ld faces labelled 5, %ld labelled 0", n5, n0);
    HS_TEST_NEAR(a, 5.0, 1e-12, "labelled area with one unlabelled side");
    hs_mesh_destroy(&m);
}

/* The unit cube cut by an internal facet x = 0.5 (marker 10) into two boxes; seeds with
 * attributes 7 (left) and 9 (right, volume bound 0.001, ten times finer than the global 0.01). */
static void check_regions(void)
{
    double xyz[12 * 3];
    const double xs[3] = {0.0, 0.5, 1.0};
    for (int i = 0; i < 3; ++i) /* point (i, j, k) = index i + 3 (j + 2 k) */
        for (int j = 0; j < 2; ++j)
            for (int k = 0; k < 2; ++k) {
                const int p = i + 3 * (j + 2 * k);
                xyz[3 * p] = xs[i];
                xyz[3 * p + 1] = j;
                xyz[3 * p + 2] = k;
            }
#define P(i, j, k) ((i) + 3 * ((j) + 2 * (k)))
    const int idx[] = {
        P(0, 0, 0), P(0, 1, 0), P(0, 1, 1), P(0, 0, 1), /* x = 0 */
        P(2, 0, 0), P(2, 0, 1), P(2, 1, 1), P(2, 1, 0), /* x = 1 */
        P(1, 0, 0), P(1, 0, 1), P(1, 1, 1), P(1, 1, 0), /* x = 0.5, internal */
    };
    int all[11 * 4];
    memcpy(all, idx, sizeof idx);
    int nf = 3, at = 12;
    int marker[11] = {1, 2, 10};
    for (int h = 0; h < 2; ++h) { /* the two halves of y = 0, y = 1, z = 0, z = 1 */
        const int q[4][4] = {
            {P(h, 0, 0), P(h + 1, 0, 0), P(h + 1, 0, 1), P(h, 0, 1)},
            {P(h, 1, 0), P(h, 1, 1), P(h + 1, 1, 1), P(h + 1, 1, 0)},
            {P(h, 0, 0), P(h, 1, 0), P(h + 1, 1, 0), P(h + 1, 0, 0)},
            {P(h, 0, 1), P(h + 1, 0, 1), P(h + 1, 1, 1), P(h, 1, 1)},
        };
        for (int f = 0; f < 4; ++f) {
            memcpy(all + at, q[f], sizeof q[f]);
            at += 4;
            marker[nf++] = 3 + f;
        }
    }
#undef P
    hs_surface *s = make_surface(12, xyz, 11, k_quad4, all, marker);
    if (!s) return;
    s->n_regions = 2;
    s->regions = malloc(sizeof(double) * 10);
    const double reg[10] = {0.25, 0.5, 0.5, 7, 0.0, 0.75, 0.5, 0.5, 9, 0.001};
    memcpy(s->regions, reg, sizeof reg);
    const hs_tetgen_opts o = {1.414, 0.0, 0.01, 0};
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_tetgen_mesh_surface(s, &o, &m));
    hs_surface_destroy(&s);
    if (!m) return;
    HS_TEST_OK(hs_mesh_check(m));
    double vol[2] = {0, 0}, vmax_left = 0.0;
    long wrong = 0, big = 0;
    for (int32_t e = 0; e < m->n_elems; ++e) {
        double cx = 0.0;
        for (int k = 0; k < 4; ++k) cx += 0.25 * m->xyz[3 * (size_t)m->tets[4 * (size_t)e + k]];
        const int right = cx > 0.5;
        if (m->region[e] != (right ? 9 : 7)) ++wrong;
        const double v = hs_mesh_elem_volume(m, e);
        if (v > (right ? 0.001 : 0.01) * (1 + 1e-9)) ++big;
        vol[right] += v;
        if (!right && v > vmax_left) vmax_left = v;
    }
    HS_TEST_CHECK(wrong == 0, "%ld elements with the wrong region (expected 7 left, 9 right)",
                  wrong);
    HS_TEST_CHECK(big == 0, "%ld elements above their region's volume bound", big);
    HS_TEST_NEAR(vol[0], 0.5, 1e-12, "left box volume");
    HS_TEST_NEAR(vol[1], 0.5, 1e-12, "right box volume");
    /* The 0.001 bound belongs to the right region only. */
    HS_TEST_CHECK(vmax_left > 0.001, "largest left element %g: the right region's bound 0.001 "
                  "was applied everywhere", vmax_left);
    /* The internal facet is not boundary: bface is exactly the outer surface. */
    double area = 0.0;
    long internal = 0;
    for (int32_t j = 0; j < m->n_bfaces; ++j) {
        double nn[3];
        bface_normal(m, j, nn);
        area += 0.5 * sqrt(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
        internal += m->bface_label[j] == 10;
    }
    HS_TEST_CHECK(internal == 0, "%ld faces of the internal facet in bface", internal);
    HS_TEST_NEAR(area, 6.0, 1e-12, "boundary face area");
    HS_TEST_CHECK(m->n_bfaces == count_boundary_faces(m), "%d boundary faces, mesh has %ld",
                  m->n_bfaces, count_boundary_faces(m));
    hs_mesh_destroy(&m);
}

/* Unit cube with a cubic hole [0.4,0.6]^3 (marker 7), hole point at the centre. */
static void check_hole(void)
{
    double xyz[48];
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1}, ilo[3] = {0.4, 0.4, 0.4},
                 ihi[3] = {0.6, 0.6, 0.6};
    box_points(xyz, lo, hi);
    box_points(xyz + 24, ilo, ihi);
    int idx[48];
    for (int i = 0; i < 24; ++i) {
        idx[i] = k_box_quads[i];
        idx[24 + i] = 8 + k_box_quads[i];
    }
    const int marker[12] = {1, 1, 1, 1, 1, 1, 7, 7, 7, 7, 7, 7};
    hs_surface *s = make_surface(16, xyz, 12, k_quad4, idx, marker);
    if (!s) return;
    s->n_holes = 1;
    s->holes = malloc(sizeof(double) * 3);
    s->holes[0] = s->holes[1] = s->holes[2] = 0.5;
    const hs_tetgen_opts o = {1.414, 0.0, 0.01, 0};
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_tetgen_mesh_surface(s, &o, &m));
    hs_surface_destroy(&s);
    if (!m) return;
    HS_TEST_OK(hs_mesh_check(m));
    double vol;
    hs_mesh_stats(m, &vol, NULL, NULL, NULL);
    HS_TEST_NEAR(vol, 1.0 - 0.008, 1e-12, "cube minus hole volume");
    double area7 = 0.0;
    long inward = 0;
    for (int32_t j = 0; j < m->n_bfaces; ++j) {
        if (m->bface_label[j] != 7) continue;
        double n[3], c[3] = {0, 0, 0};
        bface_normal(m, j, n);
        for (int k = 0; k < 3; ++k)
            for (int d = 0; d < 3; ++d) c[d] += m->xyz[3 * (size_t)m->bface[3 * j + k] + d] / 3;
        /* Leaving the solid means entering the hole: towards its centre. */
        inward += !(n[0] * (0.5 - c[0]) + n[1] * (0.5 - c[1]) + n[2] * (0.5 - c[2]) > 0.0);
        area7 += 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    }
    HS_TEST_NEAR(area7, 0.24, 1e-12, "hole surface area");
    HS_TEST_CHECK(inward == 0, "%ld hole faces not pointing into the hole", inward);
    hs_mesh_destroy(&m);
}

static void expect_intersection(hs_surface *s, const char *what)
{
    if (!s) return;
    const hs_tetgen_opts o = {1.414, 0.0, 0.01, 0};
    hs_mesh *m = NULL;
    hs_error_clear();
    const hs_status st = hs_tetgen_mesh_surface(s, &o, &m);
    HS_TEST_CHECK(st == HS_ERR_MESH, "%s: status %d (%s)", what, (int)st, hs_error_message());
    HS_TEST_CHECK(m == NULL, "%s: mesh returned despite the failure", what);
    HS_TEST_CHECK(contains(hs_error_message(), "intersects itself") &&
                      contains(hs_error_message(), "TetGen"),
                  "%s: message \"%s\"", what, hs_error_message());
    /* TetGen's detection run names the crossing facets. */
    HS_TEST_CHECK(contains(hs_error_message(), "facet ") && contains(hs_error_message(), "near ("),
                  "%s: no facet named in \"%s\"", what, hs_error_message());
    hs_error_clear();
    hs_mesh_destroy(&m);
    hs_surface_destroy(&s);
}

static void check_failures(void)
{
    /* Two overlapping tetrahedra, each a closed surface. */
    {
        const double xyz[24] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1,
                                0.2, 0.2, 0.2, 1.2, 0.2, 0.2, 0.2, 1.2, 0.2, 0.2, 0.2, 1.2};
        const int tri[8] = {3, 3, 3, 3, 3, 3, 3, 3};
        const int idx[24] = {0, 2, 1, 0, 1, 3, 1, 2, 3, 0, 3, 2,
                             4, 6, 5, 4, 5, 7, 5, 6, 7, 4, 7, 6};
        expect_intersection(make_surface(8, xyz, 8, tri, idx, NULL), "two overlapping tets");
    }
    /* A cube whose top is a pyramid of 4 triangles with its apex pushed through the bottom. */
    {
        double xyz[27];
        const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
        box_points(xyz, lo, hi);
        xyz[24] = 0.5;
        xyz[25] = 0.5;
        xyz[26] = -0.5;
        const int nc[9] = {4, 4, 4, 4, 4, 3, 3, 3, 3};
        int idx[32];
        memcpy(idx, k_box_quads, sizeof(int) * 20);
        const int top[12] = {4, 5, 8, 5, 7, 8, 7, 6, 8, 6, 4, 8};
        memcpy(idx + 20, top, sizeof top);
        expect_intersection(make_surface(9, xyz, 9, nc, idx, NULL), "cube with a face pushed through");
    }

    double xyz[24];
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    box_points(xyz, lo, hi);
    hs_mesh *m = NULL;
    hs_status st;

    /* Open surface: the top is missing. */
    hs_surface *s = make_surface(8, xyz, 5, k_quad4, k_box_quads, NULL);
    if (s) {
        const hs_tetgen_opts o = {1.414, 0.0, 0.01, 0};
        hs_error_clear();
        st = hs_tetgen_mesh_surface(s, &o, &m);
        HS_TEST_CHECK(st == HS_ERR_MESH && m == NULL, "open surface: status %d (%s)", (int)st,
                      hs_error_message());
        hs_error_clear();
        hs_surface_destroy(&s);
    }

    /* Bad options are refused before TetGen runs. */
    s = make_surface(8, xyz, 6, k_quad4, k_box_quads, NULL);
    if (!s) return;
    const struct {
        hs_tetgen_opts o;
        const char *msg;
    } bad[] = {
        {{0.8, 0.0, 0.01, 0}, "radius-edge bound 0.8"},
        {{0.0, 10.0, 0.01, 0}, "needs quality refinement"},
        {{1.414, 35.0, 0.01, 0}, "above 30 deg"},
        {{1.414, 0.0, NAN, 0}, "finite"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        hs_error_clear();
        st = hs_tetgen_mesh_surface(s, &bad[i].o, &m);
        HS_TEST_CHECK(st == HS_ERR_MESH && m == NULL && contains(hs_error_message(), bad[i].msg),
                      "bad option %zu: status %d, \"%s\" (expected \"%s\")", i, (int)st,
                      hs_error_message(), bad[i].msg);
    }
    s->n_holes = 1;
    s->holes = malloc(sizeof(double) * 3);
    s->holes[0] = INFINITY;
    s->holes[1] = s->holes[2] = 0.5;
    hs_error_clear();
    const hs_tetgen_opts ok = {1.414, 0.0, 0.01, 0};
    st = hs_tetgen_mesh_surface(s, &ok, &m);
    HS_TEST_CHECK(st == HS_ERR_MESH && contains(hs_error_message(), "hole 0"),
                  "non-finite hole: status %d, \"%s\"", (int)st, hs_error_message());
    hs_error_clear();
    hs_surface_destroy(&s);

    /* A dihedral bound this surface's sharp corner cannot meet: TetGen would refine without end
     * (observed: minutes); the Steiner-point cap stops it and the caller gets an error. */
    const double tet[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    const int tri[4] = {3, 3, 3, 3};
    const int tidx[12] = {0, 2, 1, 0, 1, 3, 1, 2, 3, 0, 3, 2};
    s = make_surface(4, tet, 4, tri, tidx, NULL);
    if (!s) return;
    const hs_tetgen_opts sharp = {1.2, 25.0, 0.01, 0};
    hs_error_clear();
    st = hs_tetgen_mesh_surface(s, &sharp, &m);
    HS_TEST_CHECK(st == HS_ERR_MESH && m == NULL && contains(hs_error_message(), "stopped after"),
                  "unreachable dihedral bound: status %d, \"%s\"", (int)st, hs_error_message());
    hs_error_clear();
    hs_surface_destroy(&s);
}

int main(void)
{
    HS_TEST_NEAR(hs_tetgen_volume_for_edge(2.0), 8.0 / (6.0 * sqrt(2.0)), 1e-15,
                 "regular tet volume for edge 2");
    check_cube_markers();
    check_regions();
    check_hole();
    check_failures();
    HS_TEST_RETURN();
}
