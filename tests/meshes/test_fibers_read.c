/* hs_fibers_read: per-element and per-node files (with and without an openCARP .lon header),
 * nodal fibres averaged with sign alignment, source numbering kept across a renumbering, and
 * every malformed input rejected with file:line, leaving the mesh's fibres untouched. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_fibers.h"
#include "hs_mesh.h"
#include "hs_test.h"

static char g_dir[64];
static char g_path[128];

static const char *write_file(const char *name, const char *text)
{
    snprintf(g_path, sizeof g_path, "%s/%s", g_dir, name);
    FILE *f = fopen(g_path, "w");
    if (!f) {
        HS_TEST_CHECK(0, "cannot write %s", g_path);
        return g_path;
    }
    fputs(text, f);
    fclose(f);
    return g_path;
}

static int contains(const char *s, const char *sub) { return strstr(s, sub) != NULL; }

/* Box mesh 1 x 1 x 1 with h = 1: 8 nodes, 6 elements. */
static hs_mesh *small_box(void)
{
    hs_box_params p = {1, 1, 1, 1, 0, 0};
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_create_box(&p, &m));
    return m;
}

/* Text of n lines "x y z" (or 6 numbers), optional header line first; caller frees. */
static char *lines(const char *header, int n, const double *v, int per)
{
    char *buf = malloc(64 + (size_t)n * (size_t)per * 32);
    size_t at = 0;
    if (header) at += (size_t)sprintf(buf + at, "%s\n", header);
    for (int i = 0; i < n; ++i) {
        for (int k = 0; k < per; ++k) at += (size_t)sprintf(buf + at, "%.17g ", v[per * i + k]);
        buf[at++] = '\n';
    }
    buf[at] = '\0';
    return buf;
}

static void check_element_files(void)
{
    hs_mesh *m = small_box();
    if (!m) return;
    double v[6 * 6];
    for (int e = 0; e < 6; ++e) { /* fibre e: (e+1, 2, 0) scaled, sheet (0, 0, 1) */
        v[6 * e + 0] = 3.0 * (e + 1);
        v[6 * e + 1] = 6.0;
        v[6 * e + 2] = 0.0;
        v[6 * e + 3] = 0.0;
        v[6 * e + 4] = 0.0;
        v[6 * e + 5] = 1.0;
    }
    double f3[6 * 3];
    for (int e = 0; e < 6; ++e) memcpy(f3 + 3 * e, v + 6 * e, 3 * sizeof(double));
    const char *variants[3] = {NULL, "1", "2"};
    for (int which = 0; which < 3; ++which) {
        char *text = which == 2 ? lines("2", 6, v, 6) : lines(variants[which], 6, f3, 3);
        const char *path = write_file("elem.lon", text);
        free(text);
        HS_TEST_OK(hs_fibers_read(m, path, which == 1 ? "element" : "auto"));
        if (!m->fiber) continue;
        for (int e = 0; e < 6; ++e) {
            const double n = sqrt((e + 1.0) * (e + 1.0) + 4.0);
            HS_TEST_NEAR(m->fiber[3 * e + 0], (e + 1.0) / n, 1e-15, "element fibre x");
            HS_TEST_NEAR(m->fiber[3 * e + 1], 2.0 / n, 1e-15, "element fibre y");
            HS_TEST_NEAR(m->fiber[3 * e + 2], 0.0, 0.0, "element fibre z");
        }
    }
    hs_mesh_destroy(&m);
}

/* Nodal fibres: all along +-x with random signs (an axis has no sign), except in two tests. */
static void check_node_files(void)
{
    hs_mesh *m = small_box();
    if (!m) return;
    double v[8 * 3];
    for (int i = 0; i < 8; ++i) {
        v[3 * i] = (i % 3 == 0) ? -2.0 : 0.5;
        v[3 * i + 1] = v[3 * i + 2] = 0.0;
    }
    char *text = lines(NULL, 8, v, 3);
    const char *path = write_file("node.txt", text);
    free(text);
    HS_TEST_OK(hs_fibers_read(m, path, "auto")); /* 8 lines = nodes (6 elements) */
    if (m->fiber)
        for (int e = 0; e < 6; ++e) {
            HS_TEST_NEAR(fabs(m->fiber[3 * e]), 1.0, 1e-15, "flipped nodal fibres: |x|");
            HS_TEST_NEAR(m->fiber[3 * e + 1], 0.0, 0.0, "flipped nodal fibres: y");
        }

    /* Direction from the node's source position, so the mapping through node_orig is checked
     * after the mesh has been renumbered: the element fibre is the mean of its nodes'. */
    double *x0 = malloc(sizeof(double) * 3 * (size_t)m->n_nodes);
    memcpy(x0, m->xyz, sizeof(double) * 3 * (size_t)m->n_nodes);
    for (int i = 0; i < 8; ++i) {
        v[3 * i] = 1.0;
        v[3 * i + 1] = 0.3 * x0[3 * i] + 0.1 * x0[3 * i + 1];
        v[3 * i + 2] = 0.2 * x0[3 * i + 2];
    }
    text = lines("1", 8, v, 3);
    path = write_file("node.lon", text);
    free(text);
    HS_TEST_OK(hs_mesh_reorder(m, HS_REORDER_RCM, NULL));
    int moved = 0;
    for (int32_t i = 0; i < m->n_nodes; ++i) moved += m->node_orig[i] != i;
    HS_TEST_CHECK(moved > 0, "RCM left the numbering as it was; the test needs a permutation");
    HS_TEST_OK(hs_fibers_read(m, path, "node"));
    if (m->fiber)
        for (int32_t e = 0; e < m->n_elems; ++e) {
            double s[3] = {0, 0, 0};
            for (int k = 0; k < 4; ++k) {
                const double *x = m->xyz + 3 * (size_t)m->tets[4 * e + k];
                const double d[3] = {1.0, 0.3 * x[0] + 0.1 * x[1], 0.2 * x[2]};
                const double n = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
                for (int c = 0; c < 3; ++c) s[c] += d[c] / n;
            }
            const double n = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
            for (int c = 0; c < 3; ++c)
                HS_TEST_NEAR(m->fiber[3 * e + c], s[c] / n, 1e-14, "nodal fibre after RCM");
        }
    free(x0);
    hs_mesh_destroy(&m);
}

static void expect_error(hs_mesh *m, const char *text, const char *location, hs_status code,
                         const char *want1, const char *want2)
{
    const char *path = write_file("bad.lon", text);
    const double keep = m->fiber ? m->fiber[0] : 0.0;
    hs_error_clear();
    const hs_status st = hs_fibers_read(m, path, location);
    HS_TEST_CHECK(st == code && contains(hs_error_message(), want1) &&
                      (!want2 || contains(hs_error_message(), want2)),
                  "input <<%s>> (%s): status %d, \"%s\"; expected \"%s\"%s%s", text, location,
                  (int)st, hs_error_message(), want1, want2 ? " and " : "", want2 ? want2 : "");
    HS_TEST_CHECK(!m->fiber || m->fiber[0] == keep, "fibres changed by a failed read");
    hs_error_clear();
}

static void check_errors(void)
{
    hs_mesh *m = small_box();
    if (!m) return;
    const double x[3] = {1, 0, 0};
    HS_TEST_OK(hs_mesh_set_fibers_constant(m, x));
    char loc[160];
    /* Each error names file:line. */
    snprintf(loc, sizeof loc, "%s/bad.lon:3:", g_dir);
    expect_error(m, "1 0 0\n0 1 0\n1 0\n1 0 0\n1 0 0\n1 0 0\n", "auto", HS_ERR_MESH, loc,
                 "expected 3 numbers, found 2");
    expect_error(m, "1 0 0\n0 1 0\n0 0 0\n1 0 0\n1 0 0\n1 0 0\n", "auto", HS_ERR_MESH, loc,
                 "is zero");
    expect_error(m, "1 0 0\n0 1 0\n0 x 0\n1 0 0\n1 0 0\n1 0 0\n", "auto", HS_ERR_MESH, loc,
                 "fibre y");
    expect_error(m, "1 0 0\n0 1 0\n0 1 0 5\n1 0 0\n1 0 0\n1 0 0\n", "auto", HS_ERR_MESH, loc,
                 "found 4");
    snprintf(loc, sizeof loc, "%s/bad.lon:4:", g_dir);
    expect_error(m, "# comment\n2\n1 0 0 0 1 0\n1 0 0\n", "auto", HS_ERR_MESH, loc,
                 "expected 6 numbers, as the header on line 2 says, found 3");
    snprintf(loc, sizeof loc, "%s/bad.lon:1:", g_dir);
    expect_error(m, "3\n1 0 0\n", "auto", HS_ERR_MESH, loc, ".lon header (1 or 2)");
    expect_error(m, "1 0 0 0 1 0 0 0 1\n", "auto", HS_ERR_MESH, loc, "found 7 or more");
    expect_error(m, "1 nan 0\n", "auto", HS_ERR_MESH, loc, "not a finite number");
    /* Counts. */
    snprintf(loc, sizeof loc, "%s/bad.lon:4:", g_dir);
    expect_error(m, "1 0 0\n1 0 0\n1 0 0\n1 0 0\n", "element", HS_ERR_MESH, loc,
                 "file ended after 4 fibre lines; the mesh has 6 elements");
    snprintf(loc, sizeof loc, "%s/bad.lon:9:", g_dir);
    expect_error(m, "1 0 0\n1 0 0\n1 0 0\n1 0 0\n1 0 0\n1 0 0\n1 0 0\n1 0 0\n1 0 0\n", "node",
                 HS_ERR_MESH, loc, "more than the mesh's 8 nodes");
    expect_error(m, "1 0 0\n1 0 0\n1 0 0\n1 0 0\n1 0 0\n1 0 0\n1 0 0\n", "auto", HS_ERR_MESH,
                 "7 fibre lines, but the mesh has 6 elements and 8 nodes", NULL);
    expect_error(m, "", "auto", HS_ERR_MESH, "0 fibre lines", NULL);
    expect_error(m, "1 0 0\n", "sideways", HS_ERR_CONFIG,
                 "fibers.location: unknown fibre location \"sideways\"; available: element, node, auto", NULL);
    /* Missing file. */
    hs_error_clear();
    HS_TEST_CHECK(hs_fibers_read(m, "/nonexistent/dir/f.lon", "auto") == HS_ERR_MESH &&
                      contains(hs_error_message(), "/nonexistent/dir/f.lon"),
                  "missing file: \"%s\"", hs_error_message());
    hs_error_clear();
    hs_mesh_destroy(&m);

    /* As many nodes as elements: "auto" cannot choose. */
    HS_TEST_OK(hs_mesh_alloc(4, 4, &m));
    if (!m) return;
    for (int e = 0; e < 4; ++e)
        for (int k = 0; k < 4; ++k) m->tets[4 * e + k] = k;
    expect_error(m, "1 0 0\n1 0 0\n1 0 0\n1 0 0\n", "auto", HS_ERR_MESH,
                 "match both the element and the node count", "location");
    hs_mesh_destroy(&m);
}

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/hs_fibers_XXXXXX");
    if (!mkdtemp(g_dir)) {
        fprintf(stderr, "cannot create a temporary directory\n");
        return 1;
    }
    check_element_files();
    check_node_files();
    check_errors();
    const char *names[] = {"elem.lon", "node.txt", "node.lon", "bad.lon"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
        snprintf(g_path, sizeof g_path, "%s/%s", g_dir, names[i]);
        remove(g_path);
    }
    rmdir(g_dir);
    HS_TEST_RETURN();
}
