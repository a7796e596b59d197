/* Box meshed by TetGen through the C++ bridge, and the bridge's error paths. */
#include <math.h>
#include <string.h>

#include "hs_mesh.h"
#include "hs_tetgen.h"
#include "hs_test.h"
#include "mesh_test_util.h"

static int contains(const char *s, const char *sub) { return strstr(s, sub) != NULL; }

static void check_tetgen_box(double lx, double ly, double lz, double h, double ratio)
{
    hs_box_params p = {lx, ly, lz, h, 1, ratio};
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_create_box(&p, &m));
    if (!m) return;
    HS_TEST_CHECK(m->n_nodes >= 8 && m->n_elems >= 5, "%d nodes, %d elements", m->n_nodes,
                  m->n_elems);
    /* The volume bound h^3/(6 sqrt 2) forces at least V / bound elements. */
    const double bound = h * h * h / (6.0 * sqrt(2.0));
    HS_TEST_CHECK(m->n_elems >= lx * ly * lz / bound, "%d elements, fewer than V / max_volume = %g",
                  m->n_elems, lx * ly * lz / bound);
    HS_TEST_OK(hs_mesh_check(m));
    long n_nonpos = 0, n_big = 0, n_region = 0;
    for (int32_t e = 0; e < m->n_elems; ++e) {
        const double v = hs_mesh_elem_volume(m, e);
        if (!(v > 0.0)) ++n_nonpos;
        if (v > bound * (1.0 + 1e-9)) ++n_big;
        if (m->region[e] != 0) ++n_region;
    }
    HS_TEST_CHECK(n_nonpos == 0, "%ld elements with non-positive volume", n_nonpos);
    HS_TEST_CHECK(n_big == 0, "%ld elements above the volume bound %g", n_big, bound);
    HS_TEST_CHECK(n_region == 0, "%ld elements with a non-zero region (no regions were given)",
                  n_region);
    double vol, hmin, hmean, hmax;
    hs_mesh_stats(m, &vol, &hmin, &hmean, &hmax);
    HS_TEST_NEAR(vol, lx * ly * lz, 1e-10 * lx * ly * lz, "TetGen box volume");
    HS_TEST_CHECK(hmax < 3.0 * h, "longest edge %g >= 3h = %g", hmax, 3.0 * h);
    HS_TEST_CHECK(hmin > 0.0 && hmean < 2.0 * h, "edges min %g mean %g (h %g)", hmin, hmean, h);
    if (h <= fmin(lx, fmin(ly, lz)))
        HS_TEST_CHECK(hmean > 0.3 * h, "mean edge %g much shorter than h %g: over-refined", hmean,
                      h);
    /* Every corner of the box is a node. */
    for (int c = 0; c < 8; ++c) {
        const double x = (c & 1) ? lx : 0, y = (c & 2) ? ly : 0, z = (c & 4) ? lz : 0;
        int found = 0;
        for (int32_t v = 0; v < m->n_nodes && !found; ++v)
            found = m->xyz[3 * v] == x && m->xyz[3 * v + 1] == y && m->xyz[3 * v + 2] == z;
        HS_TEST_CHECK(found, "corner (%g %g %g) is not a node", x, y, z);
    }
    mt_check_box_conforming(m, lx, ly, lz, 1e-10);
    hs_mesh_destroy(&m);
}

/* A unit cube PLC, optionally with one facet dropped and/or an extra triangle. */
static hs_status mesh_cube_plc(int drop_facet, const double *extra_tri, double ratio,
                               double max_volume, hs_mesh **out)
{
    double xyz[11][3];
    for (int c = 0; c < 8; ++c) {
        xyz[c][0] = (c & 1) ? 1.0 : 0.0;
        xyz[c][1] = (c & 2) ? 1.0 : 0.0;
        xyz[c][2] = (c & 4) ? 1.0 : 0.0;
    }
    int32_t idx[27] = {0, 4, 6, 2, 1, 3, 7, 5, 0, 1, 5, 4, 2, 6, 7, 3, 0, 2, 3, 1, 4, 5, 7, 6};
    int32_t ptr[8] = {0, 4, 8, 12, 16, 20, 24, 27};
    int n_points = 8, n_facets = 6;
    if (drop_facet) n_facets = 5; /* drop z = 1 */
    if (extra_tri) {
        memcpy(xyz[8], extra_tri, 9 * sizeof(double));
        n_points = 11;
        /* Put the triangle after the kept facets. */
        const int at = ptr[n_facets];
        idx[at] = 8;
        idx[at + 1] = 9;
        idx[at + 2] = 10;
        ptr[n_facets + 1] = at + 3;
        ++n_facets;
    }
    const hs_plc plc = {n_points, &xyz[0][0], n_facets, ptr, idx};
    return hs_tetgen_mesh_plc(&plc, ratio, max_volume, out);
}

static void check_tetgen_errors(void)
{
    hs_mesh *m = NULL;

    /* Plain 'p' (no bounds) still gives a valid cube. */
    HS_TEST_OK(mesh_cube_plc(0, NULL, 0.0, 0.0, &m));
    if (m) {
        double vol;
        hs_mesh_stats(m, &vol, NULL, NULL, NULL);
        HS_TEST_NEAR(vol, 1.0, 1e-12, "unit cube volume, no bounds");
        HS_TEST_OK(hs_mesh_check(m));
        hs_mesh_destroy(&m);
    }

    /* A triangle that pokes through the faces x = 1 and z = 1: TetGen finds the intersection. */
    const double poke[9] = {0.5, 0.5, 0.5, 1.5, 0.5, 0.5, 0.5, 0.5, 1.5};
    hs_error_clear();
    hs_status s = mesh_cube_plc(0, poke, 1.414, 0.01, &m);
    HS_TEST_CHECK(s == HS_ERR_MESH, "self-intersecting surface: status %d (%s)", (int)s,
                  hs_error_message());
    HS_TEST_CHECK(m == NULL, "mesh returned despite failure");
    HS_TEST_CHECK(contains(hs_error_message(), "TetGen"), "message \"%s\"", hs_error_message());
    hs_mesh_destroy(&m);

    /* Open surface: no interior to mesh. */
    hs_error_clear();
    s = mesh_cube_plc(1, NULL, 1.414, 0.01, &m);
    HS_TEST_CHECK(s == HS_ERR_MESH, "open surface: status %d (%s)", (int)s, hs_error_message());
    HS_TEST_CHECK(m == NULL, "mesh returned despite failure");
    hs_mesh_destroy(&m);

    /* Radius-edge bound below 1: refused before TetGen can loop forever. */
    hs_error_clear();
    s = mesh_cube_plc(0, NULL, 0.8, 0.01, &m);
    HS_TEST_CHECK(s == HS_ERR_MESH && contains(hs_error_message(), "radius-edge bound 0.8"),
                  "ratio 0.8: status %d, message \"%s\"", (int)s, hs_error_message());
    hs_mesh_destroy(&m);

    /* Point index out of range in a facet. */
    double xyz[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    int32_t idx[12] = {0, 2, 1, 0, 1, 3, 1, 2, 3, 0, 3, 4};
    int32_t ptr[5] = {0, 3, 6, 9, 12};
    hs_plc plc = {4, &xyz[0][0], 4, ptr, idx};
    hs_error_clear();
    s = hs_tetgen_mesh_plc(&plc, 0.0, 0.0, &m);
    HS_TEST_CHECK(s == HS_ERR_MESH && contains(hs_error_message(), "refers to point 4"),
                  "bad facet index: status %d, message \"%s\"", (int)s, hs_error_message());
    hs_mesh_destroy(&m);

    /* The same tet, valid: one element, positive. */
    idx[11] = 2;
    hs_error_clear();
    HS_TEST_OK(hs_tetgen_mesh_plc(&plc, 0.0, 0.0, &m));
    if (m) {
        HS_TEST_CHECK(m->n_elems == 1 && m->n_nodes == 4, "%d elements, %d nodes", m->n_elems,
                      m->n_nodes);
        HS_TEST_NEAR(hs_mesh_elem_volume(m, 0), 1.0 / 6.0, 1e-15, "single tet volume");
        hs_mesh_destroy(&m);
    }
    hs_error_clear();
}

int main(void)
{
    check_tetgen_box(2.0, 1.0, 0.5, 0.2, 1.414);
    check_tetgen_box(1.0, 1.0, 1.0, 0.25, 2.0);
    check_tetgen_box(1.0, 0.3, 0.3, 5.0, 1.414); /* h above the box size: coarse but valid */
    check_tetgen_errors();
    HS_TEST_RETURN();
}
