/* Structured box mesh (Kuhn split) plus the generic hs_mesh helpers it exercises: hs_mesh_check's
 * error reports, fibres, stats and bandwidth. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_mesh.h"
#include "hs_test.h"
#include "mesh_test_util.h"

static int contains(const char *s, const char *sub) { return strstr(s, sub) != NULL; }

/* One structured box: counts, node numbering, volumes, conformity, stats, bandwidth. */
static void check_box(double lx, double ly, double lz, double h)
{
    hs_box_params p = {lx, ly, lz, h, 0, 0.0};
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_create_box(&p, &m));
    if (!m) return;
    const long nx = lround(lx / h) < 1 ? 1 : lround(lx / h);
    const long ny = lround(ly / h) < 1 ? 1 : lround(ly / h);
    const long nz = lround(lz / h) < 1 ? 1 : lround(lz / h);
    HS_TEST_CHECK(m->n_nodes == (nx + 1) * (ny + 1) * (nz + 1), "n_nodes %d for %ldx%ldx%ld cells",
                  m->n_nodes, nx, ny, nz);
    HS_TEST_CHECK(m->n_elems == 6 * nx * ny * nz, "n_elems %d for %ldx%ldx%ld cells", m->n_elems,
                  nx, ny, nz);
    HS_TEST_CHECK(m->fiber == NULL, "fibres must be NULL until set");
    HS_TEST_OK(hs_mesh_check(m));

    /* x fastest: node 1 is one cell along x, node nx+1 one cell along y, the last is (lx,ly,lz). */
    const double hx = lx / nx, hy = ly / ny, hz = lz / nz;
    HS_TEST_NEAR(m->xyz[3 * 1 + 0], hx, 1e-15 * lx, "x of node 1");
    HS_TEST_NEAR(m->xyz[3 * (nx + 1) + 1], hy, 1e-15 * ly, "y of node nx+1");
    HS_TEST_NEAR(m->xyz[3 * (nx + 1) * (ny + 1) + 2], hz, 1e-15 * lz, "z of node (nx+1)(ny+1)");
    const double *last = m->xyz + 3 * (size_t)(m->n_nodes - 1);
    HS_TEST_CHECK(last[0] == lx && last[1] == ly && last[2] == lz,
                  "last node (%.17g %.17g %.17g) is not exactly the far corner", last[0], last[1],
                  last[2]);

    const double v_cell = hx * hy * hz / 6.0;
    double vol_sum = 0.0, worst = 0.0;
    long n_nonpos = 0;
    for (int32_t e = 0; e < m->n_elems; ++e) {
        const double v = hs_mesh_elem_volume(m, e);
        vol_sum += v;
        if (!(v > 0.0)) ++n_nonpos;
        if (fabs(v - v_cell) > worst) worst = fabs(v - v_cell);
    }
    HS_TEST_CHECK(n_nonpos == 0, "%ld elements with non-positive volume", n_nonpos);
    HS_TEST_CHECK(worst <= 1e-12 * v_cell,
                  "element volume deviates from hx*hy*hz/6 = %.17g by %.3g", v_cell, worst);
    HS_TEST_NEAR(vol_sum, lx * ly * lz, 1e-12 * lx * ly * lz, "sum of element volumes");

    double vol, hmin, hmean, hmax;
    hs_mesh_stats(m, &vol, &hmin, &hmean, &hmax);
    HS_TEST_NEAR(vol, lx * ly * lz, 1e-12 * lx * ly * lz, "hs_mesh_stats volume");
    const double cmin = fmin(hx, fmin(hy, hz)), cdiag = sqrt(hx * hx + hy * hy + hz * hz);
    HS_TEST_NEAR(hmin, cmin, 1e-12 * cmin, "shortest edge = smallest cell side");
    HS_TEST_NEAR(hmax, cdiag, 1e-12 * cdiag, "longest edge = cell diagonal");
    HS_TEST_CHECK(hmean > hmin && hmean < hmax, "mean edge %g outside (%g, %g)", hmean, hmin, hmax);

    /* Widest element spans the cell diagonal: node (i+1,j+1,k+1) - node(i,j,k). */
    HS_TEST_CHECK(hs_mesh_bandwidth(m) == 1 + (nx + 1) + (nx + 1) * (ny + 1),
                  "bandwidth %lld, expected %ld", (long long)hs_mesh_bandwidth(m),
                  1 + (nx + 1) + (nx + 1) * (ny + 1));

    mt_check_box_conforming(m, lx, ly, lz, 1e-12);
    hs_mesh_destroy(&m);
    HS_TEST_CHECK(m == NULL, "hs_mesh_destroy must set the pointer to NULL");
}

static void check_bad_params(void)
{
    struct {
        hs_box_params p;
        const char *needle;
    } cases[] = {
        {{1, 1, 1, 0, 0, 0}, "h = 0"},
        {{-1, 1, 1, 0.1, 0, 0}, "lx = -1"},
        {{1, NAN, 1, 0.1, 0, 0}, "ly = nan"},
        {{1, 1, INFINITY, 0.1, 0, 0}, "lz = inf"},
        /* 1e4/1e-2 = 1e6 cells per axis: 1e18 nodes. The message must name the sizes. */
        {{1e4, 1e4, 1e4, 1e-2, 0, 0}, "1000000 x 1000000 x 1000000 cells"},
        /* Each axis fits, the product does not: 2000^3 nodes. */
        {{2000, 2000, 2000, 1, 0, 0}, "32-bit"},
        /* One axis alone beyond int32. */
        {{1e10, 1, 1, 1, 0, 0}, "lx / h"},
        {{1e4, 1e4, 1e4, 1e-2, 1, 1.414}, "increase h"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        hs_mesh *m = (hs_mesh *)&cases; /* must be reset to NULL on failure */
        hs_error_clear();
        hs_status s = hs_mesh_create_box(&cases[i].p, &m);
        HS_TEST_CHECK(s == HS_ERR_MESH, "case %zu: status %d, expected HS_ERR_MESH", i, (int)s);
        HS_TEST_CHECK(m == NULL, "case %zu: out not NULL after failure", i);
        HS_TEST_CHECK(contains(hs_error_message(), cases[i].needle),
                      "case %zu: message \"%s\" lacks \"%s\"", i, hs_error_message(),
                      cases[i].needle);
        if (s == HS_OK) hs_mesh_destroy(&m);
    }
    hs_error_clear();
}

/* hs_mesh_check on hand-broken copies of a small box. */
static void check_mesh_check(void)
{
    hs_box_params p = {1, 1, 1, 0.5, 0, 0};
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_create_box(&p, &m));
    if (!m) return;
    int32_t *t = m->tets + 4 * 5;
    const int32_t saved[4] = {t[0], t[1], t[2], t[3]};
    char want[160];

    /* Inverted: swap two nodes of element 5. */
    t[1] = saved[2];
    t[2] = saved[1];
    hs_error_clear();
    HS_TEST_CHECK(hs_mesh_check(m) == HS_ERR_MESH, "inverted element not detected");
    snprintf(want, sizeof want, "element 5 (nodes %d %d %d %d) is inverted: signed volume -",
             t[0], t[1], t[2], t[3]);
    HS_TEST_CHECK(contains(hs_error_message(), want), "message \"%s\" lacks \"%s\"",
                  hs_error_message(), want);
    HS_TEST_CHECK(contains(hs_error_message(), "-2.083e-02"),
                  "message \"%s\" lacks the volume -0.125/6", hs_error_message());

    /* Degenerate: a repeated node gives volume 0. */
    t[1] = saved[1];
    t[2] = saved[1];
    hs_error_clear();
    HS_TEST_CHECK(hs_mesh_check(m) == HS_ERR_MESH, "degenerate element not detected");
    HS_TEST_CHECK(contains(hs_error_message(), "element 5 (") &&
                      contains(hs_error_message(), "is degenerate: volume"),
                  "message \"%s\"", hs_error_message());

    /* Degenerate by scale, not exactly zero: move a node almost into the opposite face. */
    t[2] = saved[2];
    hs_mesh *flat = NULL;
    HS_TEST_OK(hs_mesh_alloc(4, 1, &flat));
    if (flat) {
        const double xyz[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.3, 0.3, 1e-14};
        memcpy(flat->xyz, xyz, sizeof xyz);
        for (int k = 0; k < 4; ++k) flat->tets[k] = k;
        hs_error_clear();
        HS_TEST_CHECK(hs_mesh_check(flat) == HS_ERR_MESH, "sliver with 6V = 1e-14 not detected");
        HS_TEST_CHECK(contains(hs_error_message(), "element 0 (nodes 0 1 2 3) is degenerate"),
                      "message \"%s\"", hs_error_message());
        flat->xyz[11] = 1e-3; /* a thin but honest tet passes */
        hs_error_clear();
        HS_TEST_OK(hs_mesh_check(flat));
        hs_mesh_destroy(&flat);
    }

    /* Node index out of range. */
    t[3] = m->n_nodes;
    hs_error_clear();
    HS_TEST_CHECK(hs_mesh_check(m) == HS_ERR_MESH, "out-of-range node not detected");
    snprintf(want, sizeof want, "refers to node %d, out of range 0..%d", m->n_nodes,
             m->n_nodes - 1);
    HS_TEST_CHECK(contains(hs_error_message(), "element 5 (") &&
                      contains(hs_error_message(), want),
                  "message \"%s\" lacks \"%s\"", hs_error_message(), want);
    t[3] = -1;
    hs_error_clear();
    HS_TEST_CHECK(hs_mesh_check(m) == HS_ERR_MESH, "negative node index not detected");

    /* Every element inverted: the message says so (the typical wrong-convention input). */
    memcpy(t, saved, sizeof saved);
    for (int32_t e = 0; e < m->n_elems; ++e) {
        int32_t *u = m->tets + 4 * (size_t)e, s = u[0];
        u[0] = u[1];
        u[1] = s;
    }
    hs_error_clear();
    HS_TEST_CHECK(hs_mesh_check(m) == HS_ERR_MESH, "all-inverted mesh not detected");
    HS_TEST_CHECK(contains(hs_error_message(), "element 0 (") &&
                      contains(hs_error_message(), "all 48 elements are inverted"),
                  "message \"%s\"", hs_error_message());
    hs_error_clear();
    hs_mesh_destroy(&m);
    hs_mesh_destroy(&m); /* NULL-safe */
    hs_mesh_destroy(NULL);
}

static void check_fibers(void)
{
    hs_box_params p = {1, 1, 1, 0.5, 0, 0};
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_create_box(&p, &m));
    if (!m) return;
    const double dir[3] = {0.0, 3.0, 4.0};
    HS_TEST_OK(hs_mesh_set_fibers_constant(m, dir));
    HS_TEST_CHECK(m->fiber != NULL, "fibres not allocated");
    if (m->fiber) {
        double worst = 0.0;
        for (int32_t e = 0; e < m->n_elems; ++e) {
            worst = fmax(worst, fabs(m->fiber[3 * e + 0] - 0.0));
            worst = fmax(worst, fabs(m->fiber[3 * e + 1] - 0.6));
            worst = fmax(worst, fabs(m->fiber[3 * e + 2] - 0.8));
        }
        HS_TEST_CHECK(worst <= 4 * 2.3e-16, "fibre differs from (0, 0.6, 0.8) by %g", worst);
    }
    const double zero[3] = {0, 0, 0};
    hs_error_clear();
    HS_TEST_CHECK(hs_mesh_set_fibers_constant(m, zero) == HS_ERR_CONFIG, "zero fibre accepted");
    HS_TEST_CHECK(contains(hs_error_message(), "non-zero"), "message \"%s\"", hs_error_message());
    hs_error_clear();
    hs_mesh_destroy(&m);
}

int main(void)
{
    check_box(2.0, 1.0, 0.5, 0.25);   /* cubic cells: 8 x 4 x 2 */
    check_box(1.0, 0.75, 0.3, 0.2);   /* non-cubic cells */
    check_box(1.0, 2.0, 3.0, 10.0);   /* h larger than the box: one cell */
    check_box(3.0, 1.0, 1.0, 1.0 / 3.0); /* cell size not exactly representable */
    check_bad_params();
    check_mesh_check();
    check_fibers();
    HS_TEST_RETURN();
}
