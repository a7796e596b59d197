/**
 * @file mesh_read_test_util.h
 * @brief Shared by the volume-reader tests (VTK, Gmsh, openCARP): the unit cube split into 6
 * positively oriented tetrahedra around its 0-7 diagonal, a scratch directory, file writing and
 * checks on error messages. Include after hs_test.h.
 */
#ifndef HS_MESH_READ_TEST_UTIL_H
#define HS_MESH_READ_TEST_UTIL_H

#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_mesh.h"
#include "hs_status.h"
#include "hs_test.h"

/* Corner i of the unit cube is (i & 1, (i >> 1) & 1, (i >> 2) & 1). */
static inline void rt_corner(int i, double x[3])
{
    x[0] = i & 1;
    x[1] = (i >> 1) & 1;
    x[2] = (i >> 2) & 1;
}

/* The 6 tetrahedra of the paths 0 -> 7 along the axes; odd permutations have nodes 2, 3 swapped
 * so that every one is positive. Tets 0-2 are region 1, 3-5 region 2 in the tests. */
static const int rt_tets[6][4] = {{0, 1, 3, 7}, {0, 2, 6, 7}, {0, 4, 5, 7},
                                  {0, 1, 7, 5}, {0, 2, 7, 3}, {0, 4, 7, 6}};

/* Boundary triangles on the cube faces z = 0 (label 1) and z = 1 (label 2), each a tet's face. */
static const int rt_tris[4][3] = {{0, 1, 3}, {0, 2, 3}, {4, 5, 7}, {4, 7, 6}};
static const int rt_tri_label[4] = {1, 1, 2, 2};

/* Fibre written for tet e: not unit length, so the readers' normalisation is checked. */
static inline void rt_fiber(int e, double f[3])
{
    const double a = 0.3 * e;
    f[0] = 3.0 * cos(a);
    f[1] = 3.0 * sin(a);
    f[2] = e == 5 ? 3.0 : 0.0;
}

static inline double rt_det6(const double *a, const double *b, const double *c, const double *d)
{
    const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const double w[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
    return u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
           u[2] * (v[0] * w[1] - v[1] * w[0]);
}

/* The table above must be what it claims, or every test below proves nothing. */
static inline void rt_check_tables(void)
{
    for (int e = 0; e < 6; ++e) {
        double p[4][3];
        for (int k = 0; k < 4; ++k) rt_corner(rt_tets[e][k], p[k]);
        HS_TEST_NEAR(rt_det6(p[0], p[1], p[2], p[3]), 1.0, 1e-15, "6 x volume of a cube tet");
    }
}

/* ---- scratch directory ---------------------------------------------------------------------- */

static char rt_dir[64];
static char rt_pathbuf[4][320];
static int rt_pathslot;

static inline void rt_setup(void)
{
    snprintf(rt_dir, sizeof rt_dir, "/tmp/hs_meshread_XXXXXX");
    if (!mkdtemp(rt_dir)) {
        fprintf(stderr, "cannot create a temporary directory\n");
        exit(1);
    }
}

/* rt_dir/name, in one of 4 rotating buffers (so a call can take two paths). */
static inline const char *rt_path(const char *name)
{
    char *b = rt_pathbuf[rt_pathslot++ % 4];
    snprintf(b, sizeof rt_pathbuf[0], "%s/%s", rt_dir, name);
    return b;
}

/* Remove the scratch directory; HS_KEEP_TEST_FILES=1 keeps it (its path is printed) for looking
 * at the files or seeding a fuzzer. */
static inline void rt_teardown(void)
{
    if (getenv("HS_KEEP_TEST_FILES")) {
        fprintf(stderr, "test files kept in %s\n", rt_dir);
        return;
    }
    DIR *d = opendir(rt_dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            unlink(rt_path(e->d_name));
        }
        closedir(d);
    }
    rmdir(rt_dir);
}

static inline FILE *rt_open(const char *name)
{
    FILE *f = fopen(rt_path(name), "wb");
    if (!f) {
        fprintf(stderr, "cannot write %s\n", rt_path(name));
        exit(1);
    }
    return f;
}

/* Write text to rt_dir/name and return its path. */
static inline const char *rt_write(const char *name, const char *text)
{
    FILE *f = rt_open(name);
    fputs(text, f);
    fclose(f);
    return rt_path(name);
}

/* ---- checks --------------------------------------------------------------------------------- */

/* A read that must fail with HS_ERR_MESH and a message containing "<path>:<line>:" (line > 0)
 * and @p needle (may be NULL). */
#define RT_EXPECT_FAIL(expr, path, line, needle)                                                   \
    do {                                                                                           \
        hs_error_clear();                                                                          \
        hs_mesh *rt_m_ = NULL;                                                                     \
        hs_status rt_s_ = (expr);                                                                  \
        (void)rt_m_;                                                                               \
        char rt_where_[400];                                                                       \
        snprintf(rt_where_, sizeof rt_where_, "%s:%d:", (path), (int)(line));                      \
        HS_TEST_CHECK(rt_s_ == HS_ERR_MESH, "status %d, expected a mesh error (message: %s)",      \
                      (int)rt_s_, hs_error_message());                                             \
        HS_TEST_CHECK((line) <= 0 || strstr(hs_error_message(), rt_where_) != NULL,                \
                      "message does not name %s: %s", rt_where_, hs_error_message());              \
        HS_TEST_CHECK((needle) == NULL || strstr(hs_error_message(), (needle) ? (needle) : "")     \
                                              != NULL,                                             \
                      "message lacks \"%s\": %s", (needle) ? (needle) : "", hs_error_message());   \
        hs_error_clear();                                                                          \
    } while (0)

/* The cube as read: n_elems tets of total volume 1, every one positive, a valid mesh. */
static inline void rt_check_cube(const hs_mesh *m, int n_nodes, int n_elems, const char *what)
{
    HS_TEST_CHECK(m != NULL, "%s: no mesh", what);
    if (!m) return;
    HS_TEST_CHECK(m->n_nodes == n_nodes && m->n_elems == n_elems,
                  "%s: %d nodes, %d elements; expected %d, %d", what, m->n_nodes, m->n_elems,
                  n_nodes, n_elems);
    double vol = 0.0;
    int n_neg = 0;
    for (int32_t e = 0; e < m->n_elems; ++e) {
        const double v = hs_mesh_elem_volume(m, e);
        vol += v;
        n_neg += v <= 0.0;
    }
    HS_TEST_NEAR(vol, 1.0, 1e-12, what);
    HS_TEST_CHECK(n_neg == 0, "%s: %d elements not positive", what, n_neg);
    HS_TEST_OK(hs_mesh_check(m));
    HS_TEST_CHECK(m->node_orig != NULL, "%s: node_orig not set", what);
}

/* Nodes of the mesh are the file's nodes node_orig[i]: compare coordinates with the written ones
 * ([n_file][3]). */
static inline void rt_check_node_orig(const hs_mesh *m, const double *file_xyz, int n_file,
                               const char *what)
{
    if (!m || !m->node_orig) return;
    int bad = 0;
    for (int32_t i = 0; i < m->n_nodes; ++i) {
        const int32_t o = m->node_orig[i];
        if (o < 0 || o >= n_file || (i > 0 && o <= m->node_orig[i - 1])) {
            ++bad;
            continue;
        }
        for (int k = 0; k < 3; ++k) bad += m->xyz[3 * i + k] != file_xyz[3 * o + k];
    }
    HS_TEST_CHECK(bad == 0, "%s: node_orig does not map mesh nodes to the file's (%d mismatches)",
                  what, bad);
}

/* Element e has the corners of cube tet t (as a set: the reader may reorder within a tet). */
static inline int rt_same_tet(const hs_mesh *m, int32_t e, const double *file_xyz,
                              const int *file_tet)
{
    int found = 0;
    for (int a = 0; a < 4; ++a) {
        const double *p = m->xyz + 3 * (size_t)m->tets[4 * e + a];
        for (int b = 0; b < 4; ++b) {
            const double *q = file_xyz + 3 * file_tet[b];
            if (p[0] == q[0] && p[1] == q[1] && p[2] == q[2]) {
                ++found;
                break;
            }
        }
    }
    return found == 4;
}

/* Regions 1,1,1,2,2,2 and fibres rt_fiber(e) normalised, for the cube read in file order. */
static inline void rt_check_regions_fibers(const hs_mesh *m, int with_fibers, const char *what)
{
    if (!m || m->n_elems != 6) return;
    for (int e = 0; e < 6; ++e)
        HS_TEST_CHECK(m->region[e] == (e < 3 ? 1 : 2), "%s: region of tet %d is %d", what, e,
                      m->region[e]);
    if (!with_fibers) {
        HS_TEST_CHECK(m->fiber == NULL, "%s: fibres set without a fibre array", what);
        return;
    }
    HS_TEST_CHECK(m->fiber != NULL, "%s: fibres missing", what);
    if (!m->fiber) return;
    for (int e = 0; e < 6; ++e) {
        double f[3];
        rt_fiber(e, f);
        const double n = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
        for (int k = 0; k < 3; ++k) HS_TEST_NEAR(m->fiber[3 * e + k], f[k] / n, 1e-7, what);
    }
}

#endif
