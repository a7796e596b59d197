/* The configured mesh (app/mesh_build.c), end to end from config keys: mesh.scale on file sources,
 * the fibre policy (auto, constant, file's own, "mesh" without fibres), surfaces meshed by TetGen
 * with the check's fixes reported, the built-in ventricle's labels and volume, reordering, and a
 * node-list stimulus written in the source numbering that still finds its node after RCM. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_config.h"
#include "hs_lv.h"
#include "hs_mesh_build.h"
#include "hs_spec.h"
#include "hs_stimulus.h"
#include "hs_test.h"
#include "hs_util.h"

static char g_dir[512];

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
        exit(1);
    }
    fputs(text, f);
    fclose(f);
}

/* Build from overrides only (no config file); NULL and the message kept on failure. */
static hs_mesh *build(const char *const *sets, int n, hs_mesh_build_info *info, hs_status *st_out)
{
    static hs_config cfg;
    hs_mesh *m = NULL;
    hs_error_clear();
    hs_status st = hs_config_load(NULL, sets, n, &cfg);
    static hs_mesh_spec spec;
    if (st == HS_OK) st = hs_mesh_spec_from_config(&cfg, &spec);
    if (st == HS_OK) st = hs_mesh_build(&spec, &m, info);
    if (st_out) *st_out = st;
    return m;
}

static double volume(const hs_mesh *m)
{
    double v = 0;
    for (int32_t e = 0; e < m->n_elems; ++e) v += hs_mesh_elem_volume(m, e);
    return v;
}

static int is_permutation(const int32_t *p, int32_t n)
{
    char *seen = calloc((size_t)n, 1);
    int ok = seen != NULL;
    for (int32_t i = 0; ok && i < n; ++i) {
        ok = p[i] >= 0 && p[i] < n && !seen[p[i]];
        if (ok) seen[p[i]] = 1;
    }
    free(seen);
    return ok;
}

static void test_box(void)
{
    const char *sets[] = {"mesh.lx=4", "mesh.ly=2", "mesh.lz=1", "mesh.h=0.5", "mesh.reorder=rcm",
                          "fibers.direction=[0.0, 2.0, 0.0]"};
    hs_mesh_build_info info;
    hs_status st;
    hs_mesh *m = build(sets, 6, &info, &st);
    HS_TEST_CHECK(m != NULL, "box: %s", hs_error_message());
    if (!m) return;
    HS_TEST_NEAR(volume(m), 8.0, 1e-12, "box volume");
    HS_TEST_NEAR(info.expected_volume, 8.0, 0.0, "box expected volume");
    HS_TEST_CHECK(info.reorder.bandwidth_after <= info.reorder.bandwidth_before, "RCM bandwidth %lld -> %lld",
                  (long long)info.reorder.bandwidth_before, (long long)info.reorder.bandwidth_after);
    HS_TEST_CHECK(is_permutation(m->node_orig, m->n_nodes), "node_orig is a permutation after RCM");
    HS_TEST_CHECK(m->fiber && m->fiber[1] == 1.0 && m->fiber[0] == 0.0, "auto -> constant fibres, normalised");
    HS_TEST_CHECK(strstr(info.fibers, "constant") != NULL, "fibres described: %s", info.fibers);
    hs_mesh_destroy(&m);

    /* the space-filling curve keeps node_orig a permutation too */
    const char *sfc[] = {"mesh.h=0.5", "mesh.reorder=sfc"};
    m = build(sfc, 2, &info, &st);
    HS_TEST_CHECK(m && is_permutation(m->node_orig, m->n_nodes), "sfc: %s", m ? "node_orig" : hs_error_message());
    hs_mesh_destroy(&m);
}

/* One tetrahedron in um (openCARP's unit), with and without a .lon fibre file. */
static void test_file_sources(void)
{
    char prefix[600], pts[700], elem[700], lon[700], set_file[800], fib[700], set_fib[800];
    snprintf(prefix, sizeof prefix, "%s/tet", g_dir);
    snprintf(pts, sizeof pts, "%s.pts", prefix);
    snprintf(elem, sizeof elem, "%s.elem", prefix);
    snprintf(lon, sizeof lon, "%s.lon", prefix);
    write_file(pts, "4\n0 0 0\n1000 0 0\n0 1000 0\n0 0 1000\n");
    write_file(elem, "1\nTt 0 1 2 3 7\n");
    snprintf(set_file, sizeof set_file, "mesh.file=%s", pts);
    hs_status st;
    hs_mesh_build_info info;

    /* no .lon: auto gives the constant direction; "mesh" is an error naming the file */
    const char *a[] = {"mesh.source=file", set_file, "mesh.scale=0.001", "mesh.reorder=none"};
    hs_mesh *m = build(a, 4, &info, &st);
    HS_TEST_CHECK(m != NULL, "openCARP tet: %s", hs_error_message());
    if (m) {
        HS_TEST_NEAR(m->xyz[3 * 1 + 0], 1.0, 1e-15, "um -> mm by mesh.scale");
        HS_TEST_NEAR(volume(m), 1.0 / 6.0, 1e-15, "scaled volume");
        HS_TEST_CHECK(m->region[0] == 7, "region kept: %d", (int)m->region[0]);
        HS_TEST_CHECK(m->fiber && m->fiber[0] == 1.0, "auto without file fibres -> constant");
        HS_TEST_CHECK(info.expected_volume == 0.0, "no expected volume for a file");
    }
    hs_mesh_destroy(&m);
    const char *b[] = {"mesh.source=file", set_file, "fibers.type=mesh"};
    m = build(b, 3, &info, &st);
    HS_TEST_CHECK(!m && st == HS_ERR_MESH && strstr(hs_error_message(), "carries no fibres") &&
                      strstr(hs_error_message(), pts),
                  "fibers.type = mesh without fibres: %d \"%s\"", (int)st, hs_error_message());
    hs_mesh_destroy(&m);

    /* with .lon: auto keeps them, constant replaces them */
    write_file(lon, "1\n0 0 3\n");
    m = build(a, 4, &info, &st);
    HS_TEST_CHECK(m && m->fiber && fabs(m->fiber[2] - 1.0) < 1e-15, "auto keeps the file's fibres: %s",
                  m ? "" : hs_error_message());
    HS_TEST_CHECK(strstr(info.fibers, "mesh file") != NULL, "described: %s", info.fibers);
    hs_mesh_destroy(&m);
    const char *c[] = {"mesh.source=file", set_file, "fibers.type=constant"};
    m = build(c, 3, &info, &st);
    HS_TEST_CHECK(m && m->fiber && m->fiber[0] == 1.0 && strstr(info.fibers, "not used"),
                  "constant replaces the file's fibres (%s)", info.fibers);
    hs_mesh_destroy(&m);

    /* fibres from their own file, per element */
    snprintf(fib, sizeof fib, "%s/f.txt", g_dir);
    write_file(fib, "0 1 0\n");
    snprintf(set_fib, sizeof set_fib, "fibers.file=%s", fib);
    const char *d[] = {"mesh.source=file", set_file, "fibers.type=file", set_fib, "fibers.location=element"};
    m = build(d, 5, &info, &st);
    HS_TEST_CHECK(m && m->fiber && m->fiber[1] == 1.0, "fibres from a file: %s", m ? "" : hs_error_message());
    hs_mesh_destroy(&m);

    unlink(pts);
    unlink(elem);
    unlink(lon);
    unlink(fib);
}

/* A node list in the numbering of the TetGen files still names the same node (by position)
 * after RCM has renumbered the mesh. */
static void test_node_stimulus_after_reorder(void)
{
    hs_box_params p = {3, 2, 1, 0.5, 0, 1.414};
    hs_mesh *src = NULL;
    HS_TEST_OK(hs_mesh_create_box(&p, &src));
    if (!src) return;
    char prefix[600], node[700], ele[700], list[700];
    snprintf(prefix, sizeof prefix, "%s/box", g_dir);
    snprintf(node, sizeof node, "%s.node", prefix);
    snprintf(ele, sizeof ele, "%s.ele", prefix);
    snprintf(list, sizeof list, "%s/sites.txt", g_dir);
    FILE *f = fopen(node, "w");
    fprintf(f, "%d 3 0 0\n", (int)src->n_nodes);
    for (int32_t i = 0; i < src->n_nodes; ++i)
        fprintf(f, "%d %.17g %.17g %.17g\n", (int)i, src->xyz[3 * i], src->xyz[3 * i + 1], src->xyz[3 * i + 2]);
    fclose(f);
    f = fopen(ele, "w");
    fprintf(f, "%d 4 0\n", (int)src->n_elems);
    for (int32_t e = 0; e < src->n_elems; ++e)
        fprintf(f, "%d %d %d %d %d\n", (int)e, (int)src->tets[4 * e], (int)src->tets[4 * e + 1],
                (int)src->tets[4 * e + 2], (int)src->tets[4 * e + 3]);
    fclose(f);
    const int32_t pick = src->n_nodes / 3;
    char text[32];
    snprintf(text, sizeof text, "%d\n", (int)pick);
    write_file(list, text);

    char set_file[800];
    snprintf(set_file, sizeof set_file, "mesh.file=%s", prefix);
    const char *sets[] = {"mesh.source=tetgen", set_file, "mesh.reorder=rcm"};
    hs_status st;
    hs_mesh *m = build(sets, 3, NULL, &st);
    HS_TEST_CHECK(m != NULL, "tetgen box: %s", hs_error_message());
    if (m) {
        int32_t now = -1;
        for (int32_t i = 0; i < m->n_nodes; ++i)
            if (m->xyz[3 * i] == src->xyz[3 * pick] && m->xyz[3 * i + 1] == src->xyz[3 * pick + 1] &&
                m->xyz[3 * i + 2] == src->xyz[3 * pick + 2])
                now = i;
        HS_TEST_CHECK(now >= 0 && now != pick, "the node moved under RCM (%d -> %d)", (int)pick, (int)now);
        hs_stimulus_cfg s;
        memset(&s, 0, sizeof s);
        s.shape = HS_STIM_NODES;
        s.duration = 1.0;
        snprintf(s.file, sizeof s.file, "%s", list);
        hs_stim_set *set = NULL;
        HS_TEST_OK(hs_stim_set_create(m, &s, 1, &set));
        int bad = 0, n = 0;
        for (int32_t k = set ? set->elem_ptr[0] : 0; set && k < set->elem_ptr[1]; ++k, ++n) {
            const int32_t *t = m->tets + 4 * set->elem[k];
            bad += t[0] != now && t[1] != now && t[2] != now && t[3] != now;
        }
        int want = 0;
        for (int32_t e = 0; e < m->n_elems; ++e)
            for (int a = 0; a < 4; ++a) want += m->tets[4 * e + a] == now;
        HS_TEST_CHECK(set && bad == 0 && n == want, "node list after RCM: %d elements, %d without the node, want %d",
                      n, bad, want);
        hs_stim_set_destroy(&set);
    }
    hs_mesh_destroy(&m);
    hs_mesh_destroy(&src);
    unlink(node);
    unlink(ele);
    unlink(list);
}

/* A 1 x 1 x 1 (file units) cube; @p flip reverses the first triangle. */
static void write_cube_stl(const char *path, int flip, int open)
{
    static const int q[6][4][3] = {{{0, 0, 0}, {0, 1, 0}, {1, 1, 0}, {1, 0, 0}}, {{0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}},
                                   {{0, 0, 0}, {1, 0, 0}, {1, 0, 1}, {0, 0, 1}}, {{0, 1, 0}, {0, 1, 1}, {1, 1, 1}, {1, 1, 0}},
                                   {{0, 0, 0}, {0, 0, 1}, {0, 1, 1}, {0, 1, 0}}, {{1, 0, 0}, {1, 1, 0}, {1, 1, 1}, {1, 0, 1}}};
    FILE *f = fopen(path, "w");
    fprintf(f, "solid cube\n");
    for (int s = 0; s < 6; ++s) {
        for (int t = 0; t < 2; ++t) {
            if (open && s == 5 && t == 1) continue;
            int idx[3] = {0, t ? 2 : 1, t ? 3 : 2};
            if (flip && s == 0 && t == 0) idx[1] = 2, idx[2] = 1;
            fprintf(f, " facet normal 0 0 0\n  outer loop\n");
            for (int k = 0; k < 3; ++k) fprintf(f, "   vertex %d %d %d\n", q[s][idx[k]][0], q[s][idx[k]][1], q[s][idx[k]][2]);
            fprintf(f, "  endloop\n endfacet\n");
        }
    }
    fprintf(f, "endsolid cube\n");
    fclose(f);
}

static void test_surface(void)
{
    char stl[600], set_file[700];
    snprintf(stl, sizeof stl, "%s/cube.stl", g_dir);
    snprintf(set_file, sizeof set_file, "mesh.file=%s", stl);
    const char *sets[] = {"mesh.source=surface", set_file, "mesh.scale=10", "mesh.h=2"};
    hs_mesh_build_info info;
    hs_status st;
    write_cube_stl(stl, 1, 0);
    hs_mesh *m = build(sets, 4, &info, &st);
    HS_TEST_CHECK(m != NULL, "cube surface: %s", hs_error_message());
    if (m) {
        HS_TEST_NEAR(volume(m), 1000.0, 1e-9, "cube volume (cm -> mm)");
        HS_TEST_CHECK(info.have_surface && fabs(info.surface.volume - 1000.0) < 1e-9 && info.surface.n_flipped == 1,
                      "surface report: volume %g, %d flipped", info.surface.volume, (int)info.surface.n_flipped);
        double lo = 1e30, hi = -1e30;
        for (int32_t i = 0; i < 3 * m->n_nodes; ++i) lo = fmin(lo, m->xyz[i]), hi = fmax(hi, m->xyz[i]);
        HS_TEST_CHECK(lo == 0.0 && hi == 10.0, "scaled to [0, 10] mm: [%g, %g]", lo, hi);
        double hmin, hmean, hmax, v;
        hs_mesh_stats(m, &v, &hmin, &hmean, &hmax);
        HS_TEST_CHECK(hmean < 3.0 && hmean > 1.0, "mean edge %g mm for h = 2", hmean);
    }
    hs_mesh_destroy(&m);

    /* an open surface is an error naming the file, never a crash */
    write_cube_stl(stl, 0, 1);
    m = build(sets, 4, &info, &st);
    HS_TEST_CHECK(!m && st == HS_ERR_MESH && strstr(hs_error_message(), stl), "open surface: %d \"%s\"", (int)st,
                  hs_error_message());
    unlink(stl);
}

static void test_lv(void)
{
    const char *sets[] = {"mesh.source=ellipsoid_lv", "mesh.h=2.5"};
    hs_mesh_build_info info;
    hs_status st;
    hs_mesh *m = build(sets, 2, &info, &st);
    HS_TEST_CHECK(m != NULL, "LV: %s", hs_error_message());
    if (!m) return;
    hs_lv_params p;
    hs_lv_params_default(&p, 2.5);
    HS_TEST_NEAR(info.expected_volume, hs_lv_wall_volume(&p), 1e-9, "expected volume is the analytic wall");
    HS_TEST_CHECK(fabs(volume(m) - info.expected_volume) < 0.1 * info.expected_volume, "LV volume %g vs %g",
                  volume(m), info.expected_volume);
    const char *names[3] = {"endo", "epi", "base"};
    for (int k = 0; k < 3; ++k) {
        int32_t id = hs_mesh_find_label(m, names[k]), n = 0;
        for (int32_t f = 0; f < m->n_bfaces; ++f) n += m->bface_label[f] == id;
        HS_TEST_CHECK(id > 0 && n > 0, "label %s: id %d, %d triangles", names[k], (int)id, (int)n);
    }
    int bad = 0;
    for (int32_t e = 0; m->fiber && e < m->n_elems; ++e) {
        const double *f = m->fiber + 3 * e;
        bad += fabs(f[0] * f[0] + f[1] * f[1] + f[2] * f[2] - 1.0) > 1e-12;
    }
    HS_TEST_CHECK(m->fiber && bad == 0, "unit fibres (%d not)", bad);
    HS_TEST_CHECK(strstr(info.fibers, "ellipsoid") != NULL, "auto -> ellipsoid: %s", info.fibers);
    hs_mesh_destroy(&m);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/hs_mesh_build_XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
    if (!mkdtemp(g_dir)) {
        fprintf(stderr, "mkdtemp %s: %s\n", g_dir, strerror(errno));
        return 1;
    }
    hs_verbosity = 0; /* the build's log lines and warnings are not the test's output */
    test_box();
    test_file_sources();
    test_node_stimulus_after_reorder();
    test_surface();
    test_lv();
    rmdir(g_dir);
    HS_TEST_RETURN();
}
