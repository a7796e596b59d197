/* hs_mesh_quality_compute against closed forms: the regular tetrahedron (q = 1, dihedral
 * acos(1/3) = 70.53 deg), the structured box (congruent Kuhn tets: q = 3 / ((1 + sqrt 2) sqrt 3),
 * dihedral angles 45/60/90 deg, and a unique-edge count known in closed form), an inverted
 * element, and the printed block. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_mesh.h"
#include "hs_mesh_quality.h"
#include "hs_test.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static void check_regular(void)
{
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_alloc(4, 1, &m));
    if (!m) return;
    /* Alternate corners of a cube of side 2: a regular tet with edge 2 sqrt 2. */
    const double p[12] = {1, 1, 1, 1, -1, -1, -1, 1, -1, -1, -1, 1};
    memcpy(m->xyz, p, sizeof p);
    const int32_t t[4] = {0, 1, 2, 3};
    memcpy(m->tets, t, sizeof t);
    if (hs_mesh_elem_volume(m, 0) < 0) { /* make it positive */
        m->tets[2] = 3;
        m->tets[3] = 2;
    }
    hs_mesh_quality q;
    HS_TEST_OK(hs_mesh_quality_compute(m, &q));
    const double edge = 2.0 * sqrt(2.0);
    HS_TEST_NEAR(q.q_min, 1.0, 1e-14, "regular tet quality");
    HS_TEST_NEAR(q.q_mean, 1.0, 1e-14, "regular tet mean quality");
    HS_TEST_NEAR(q.dihedral_min_deg, acos(1.0 / 3.0) * 180.0 / M_PI, 1e-10, "min dihedral");
    HS_TEST_NEAR(q.dihedral_max_deg, 70.528779365509308, 1e-10, "max dihedral");
    HS_TEST_NEAR(q.volume, edge * edge * edge / (6.0 * sqrt(2.0)), 1e-13, "volume");
    HS_TEST_NEAR(q.h_min, edge, 1e-14, "h_min");
    HS_TEST_NEAR(q.h_max, edge, 1e-14, "h_max");
    HS_TEST_CHECK(q.q_hist[HS_QUALITY_BINS - 1] == 1 && q.worst_elem == 0,
                  "q = 1 belongs in the last bin (%lld there), worst element %d",
                  (long long)q.q_hist[HS_QUALITY_BINS - 1], q.worst_elem);
    HS_TEST_CHECK(q.n_nodes == 4 && q.n_elems == 1 && q.n_bfaces == 0, "counts %d %d %d",
                  q.n_nodes, q.n_elems, q.n_bfaces);

    /* Inverted: negative quality, counted in the first bin, named as the worst. */
    const int32_t s = m->tets[2];
    m->tets[2] = m->tets[3];
    m->tets[3] = s;
    HS_TEST_OK(hs_mesh_quality_compute(m, &q));
    HS_TEST_NEAR(q.q_min, -1.0, 1e-14, "inverted regular tet quality");
    HS_TEST_CHECK(q.q_hist[0] == 1, "inverted element not in bin 0");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f) {
        hs_mesh_quality_print(&q, f);
        fclose(f);
        HS_TEST_CHECK(buf && strstr(buf, "inverted") != NULL,
                      "print of a mesh with q <= 0 has no warning:\n%s", buf ? buf : "");
        free(buf);
    }
    hs_mesh_destroy(&m);
}

static void check_box(void)
{
    const double lx = 2.0, ly = 1.0, lz = 1.5, h = 0.5;
    const long nx = 4, ny = 2, nz = 3;
    hs_box_params p = {lx, ly, lz, h, 0, 0};
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_create_box(&p, &m));
    if (!m) return;
    HS_TEST_OK(hs_mesh_alloc_bfaces(m, 3)); /* counted, not interpreted */
    hs_mesh_quality q;
    HS_TEST_OK(hs_mesh_quality_compute(m, &q));
    HS_TEST_CHECK(q.n_nodes == (nx + 1) * (ny + 1) * (nz + 1) && q.n_elems == 6 * nx * ny * nz &&
                      q.n_bfaces == 3,
                  "counts: %d nodes, %d elements, %d boundary faces", q.n_nodes, q.n_elems,
                  q.n_bfaces);
    HS_TEST_NEAR(q.volume, lx * ly * lz, 1e-12, "box volume");
    /* Unique edges: cell edges (h), one diagonal per grid face (h sqrt 2), one per cell
     * (h sqrt 3). An edge counted once per element would give a different mean. */
    const double n_axis = (double)(nx * (ny + 1) * (nz + 1) + (nx + 1) * ny * (nz + 1) +
                                   (nx + 1) * (ny + 1) * nz);
    const double n_face = (double)((nx + 1) * ny * nz + nx * (ny + 1) * nz + nx * ny * (nz + 1));
    const double n_cell = (double)(nx * ny * nz);
    const double mean =
        h * (n_axis + sqrt(2.0) * n_face + sqrt(3.0) * n_cell) / (n_axis + n_face + n_cell);
    HS_TEST_NEAR(q.h_mean, mean, 1e-13, "mean over unique edges");
    HS_TEST_NEAR(q.h_min, h, 1e-14, "h_min");
    HS_TEST_NEAR(q.h_max, h * sqrt(3.0), 1e-14, "h_max");
    /* Kuhn tet: r_in = 3V / A = (1/2) / (1 + sqrt 2) for unit cubes, r_circ = sqrt 3 / 2. */
    const double qk = 3.0 / ((1.0 + sqrt(2.0)) * sqrt(3.0));
    HS_TEST_NEAR(q.q_min, qk, 1e-13, "Kuhn tet quality (min)");
    HS_TEST_NEAR(q.q_mean, qk, 1e-13, "Kuhn tet quality (mean)");
    HS_TEST_CHECK(q.q_hist[7] == q.n_elems, "all %d elements should be in bin 0.7-0.8, %lld are",
                  q.n_elems, (long long)q.q_hist[7]);
    HS_TEST_NEAR(q.dihedral_min_deg, 45.0, 1e-10, "Kuhn tet min dihedral");
    HS_TEST_NEAR(q.dihedral_max_deg, 90.0, 1e-10, "Kuhn tet max dihedral");
    hs_mesh_destroy(&m);

    /* A larger box crosses the OpenMP threshold; the numbers must not change with threads. */
    hs_box_params big = {8.0, 8.0, 8.0, 0.25, 0, 0};
    HS_TEST_OK(hs_mesh_create_box(&big, &m));
    if (!m) return;
    HS_TEST_OK(hs_mesh_quality_compute(m, &q));
    HS_TEST_NEAR(q.volume, 512.0, 1e-9, "big box volume");
    HS_TEST_NEAR(q.q_min, qk, 1e-13, "big box quality");
    HS_TEST_CHECK(q.q_hist[7] == q.n_elems && q.worst_elem >= 0 && q.worst_elem < q.n_elems,
                  "big box: %lld of %d in bin 7, worst element %d", (long long)q.q_hist[7],
                  q.n_elems, q.worst_elem);
    hs_mesh_destroy(&m);

    /* Bad node index: an error, not a read out of bounds. */
    HS_TEST_OK(hs_mesh_create_box(&p, &m));
    if (!m) return;
    m->tets[5] = -2;
    hs_error_clear();
    HS_TEST_CHECK(hs_mesh_quality_compute(m, &q) == HS_ERR_MESH &&
                      strstr(hs_error_message(), "element 1 refers to node -2") != NULL,
                  "bad index: \"%s\"", hs_error_message());
    hs_error_clear();
    hs_mesh_destroy(&m);
}

int main(void)
{
    check_regular();
    check_box();
    HS_TEST_RETURN();
}
