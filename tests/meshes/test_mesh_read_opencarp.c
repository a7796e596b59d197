/* openCARP reader (.pts/.elem/.lon) and hs_mesh_read_file's choice of reader: the unit cube with
 * regions, an unused point and fibres in the three .lon layouts; a file in the other orientation
 * convention; malformed files whose errors must name the file and line. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_mesh.h"
#include "hs_mesh_io.h"
#include "hs_registry.h"
#include "hs_test.h"
#include "mesh_read_test_util.h"

/* Points: the 8 corners then an unused point (dropped by the reader, node_orig keeps 0..7). */
static double g_xyz[9 * 3];

static void write_pts(const char *prefix)
{
    char name[64];
    snprintf(name, sizeof name, "%s.pts", prefix);
    FILE *f = rt_open(name);
    fprintf(f, "9\n");
    for (int i = 0; i < 8; ++i) {
        rt_corner(i, g_xyz + 3 * i);
        fprintf(f, "%g %g %g\n", g_xyz[3 * i], g_xyz[3 * i + 1], g_xyz[3 * i + 2]);
    }
    g_xyz[24] = g_xyz[25] = g_xyz[26] = 7.0;
    fprintf(f, "7 7 7\n");
    fclose(f);
}

/* reversed: every tet with nodes 2 and 3 swapped (the other orientation convention). */
static void write_elem(const char *prefix, int reversed)
{
    char name[64];
    snprintf(name, sizeof name, "%s.elem", prefix);
    FILE *f = rt_open(name);
    fprintf(f, "6\n");
    for (int e = 0; e < 6; ++e) {
        const int *t = rt_tets[e];
        fprintf(f, "Tt %d %d %d %d %d\n", t[0], t[1], reversed ? t[3] : t[2],
                reversed ? t[2] : t[3], e < 3 ? 1 : 2);
    }
    fclose(f);
}

/* layout 1: header 1, fibres; 2: header 2, fibre + sheet; 0: no header, fibres (old CARP). */
static void write_lon(const char *prefix, int layout)
{
    char name[64];
    snprintf(name, sizeof name, "%s.lon", prefix);
    FILE *f = rt_open(name);
    if (layout) fprintf(f, "%d\n", layout);
    for (int e = 0; e < 6; ++e) {
        double v[3];
        rt_fiber(e, v);
        fprintf(f, "%.17g %.17g %.17g", v[0], v[1], v[2]);
        if (layout == 2) fprintf(f, " 0 0 1");
        fprintf(f, "\n");
    }
    fclose(f);
}

static void check_read(const char *prefix, int fibers, const char *what)
{
    hs_mesh *m = NULL;
    hs_error_clear();
    HS_TEST_OK(hs_mesh_read_opencarp(rt_path(prefix), NULL, &m));
    rt_check_cube(m, 8, 6, what);
    rt_check_regions_fibers(m, fibers, what);
    rt_check_node_orig(m, g_xyz, 9, what);
    if (m && m->n_nodes == 8 && m->node_orig)
        HS_TEST_CHECK(m->node_orig[7] == 7, "%s: node_orig[7] = %d", what, m->node_orig[7]);
    hs_mesh_destroy(&m);
}

static void check_good_files(void)
{
    write_pts("a");
    write_elem("a", 0);
    check_read("a", 0, "openCARP without .lon");
    write_lon("a", 1);
    check_read("a", 1, "openCARP, .lon header 1");
    write_lon("a", 2);
    check_read("a", 1, "openCARP, .lon header 2 (fibre + sheet)");
    write_lon("a", 0);
    check_read("a", 1, "openCARP, .lon without header");

    /* Every tet negative: turned around by the reader (rt_check_cube checks all positive). */
    write_pts("r");
    write_elem("r", 1);
    check_read("r", 0, "openCARP, other orientation convention");

    /* hs_mesh_read_file: the prefix, or any of the three names */
    static const char *names[] = {"a", "a.pts", "a.elem", "a.lon", "a.PTS"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
        hs_mesh *m = NULL;
        HS_TEST_OK(hs_mesh_read_file(rt_path(names[i]), NULL, &m));
        HS_TEST_CHECK(m && m->n_elems == 6 && m->fiber != NULL,
                      "hs_mesh_read_file(%s) did not read the openCARP mesh with fibres",
                      names[i]);
        hs_mesh_destroy(&m);
    }
}

/* The reader list (hs_mesh_readers over hs_mesh_reader_list.h): complete entries named by lower-case
 * extensions, each found by its name, extensions of other formats not. */
static void check_reader_list(void)
{
    const hs_registry *r = hs_mesh_readers();
    HS_TEST_CHECK(r->count >= 7, "%zu readers", r->count);
    int n_probe = 0;
    for (size_t i = 0; i < r->count; ++i) {
        const hs_mesh_reader *e = hs_registry_at(r, i);
        int lower = e->name[0] == '.' && e->name[1] != '\0';
        for (const char *c = e->name + 1; *c; ++c) lower &= (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9');
        HS_TEST_CHECK(lower, "reader %zu: \"%s\" is not a lower-case extension", i, e->name);
        HS_TEST_CHECK(e->read && e->summary && e->summary[0], "reader %s: incomplete entry", e->name);
        HS_TEST_CHECK(hs_registry_find(r, e->name) == e, "find(%s)", e->name);
        n_probe += e->prefix_probe != 0;
    }
    HS_TEST_CHECK(n_probe == 2, "%d readers probe a bare prefix (.elem, .ele)", n_probe);
    const hs_mesh_reader *vtk = hs_registry_find(r, ".vtk");
    HS_TEST_CHECK(vtk && vtk->read == hs_mesh_read_vtk, ".vtk is not the VTK reader");
    const hs_mesh_reader *msh = hs_registry_find(r, ".msh");
    HS_TEST_CHECK(msh && msh->read == hs_mesh_read_gmsh, ".msh is not the Gmsh reader");
    HS_TEST_CHECK(hs_registry_find(r, ".vtp") == NULL && hs_registry_find(r, "vtk") == NULL &&
                      hs_registry_find(r, ".VTK") == NULL,
                  "names are exact, lower case, with the dot");
    char names[256];
    HS_TEST_CHECK(strcmp(hs_registry_names(r, names, sizeof names), ".vtk, .vtu, .msh, .pts, .elem, .lon, .node, .ele") == 0,
                  "names: %s", names);
}

/* hs_mesh_read_file with TetGen names and names it cannot place. */
static void check_dispatch(void)
{
    rt_write("t.node", "4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n");
    rt_write("t.ele", "1 4 0\n1 1 2 3 4\n");
    static const char *names[] = {"t", "t.node", "t.ele"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
        hs_mesh *m = NULL;
        HS_TEST_OK(hs_mesh_read_file(rt_path(names[i]), NULL, &m));
        HS_TEST_CHECK(m && m->n_elems == 1 && m->n_nodes == 4,
                      "hs_mesh_read_file(%s) did not read the TetGen mesh", names[i]);
        hs_mesh_destroy(&m);
    }
    /* A bare prefix that has a dot of its own: the probed file (PREFIX.elem, PREFIX.ele) decides,
     * and its reader gets the prefix back whole. */
    write_pts("b.v2");
    write_elem("b.v2", 0);
    rt_write("t.v3.node", "4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n");
    rt_write("t.v3.ele", "1 4 0\n1 1 2 3 4\n");
    static const struct { const char *name; int n_elems; } bare[] = {{"b.v2", 6}, {"t.v3", 1}};
    for (size_t i = 0; i < sizeof bare / sizeof bare[0]; ++i) {
        hs_mesh *m = NULL;
        HS_TEST_OK(hs_mesh_read_file(rt_path(bare[i].name), NULL, &m));
        HS_TEST_CHECK(m && m->n_elems == bare[i].n_elems, "hs_mesh_read_file(%s) did not read the mesh",
                      bare[i].name);
        hs_mesh_destroy(&m);
    }

    const char *p = rt_write("mesh.xyz", "1 2 3\n");
    RT_EXPECT_FAIL(hs_mesh_read_file(p, NULL, &rt_m_), "", 0,
                   "cannot tell the mesh format from the name; supported: .vtk");
    /* The whole message: the file, then each format's extensions with its name and the prefix rule. */
    hs_error_clear();
    hs_mesh *m = NULL;
    HS_TEST_CHECK(hs_mesh_read_file(p, NULL, &m) == HS_ERR_MESH && m == NULL, "mesh.xyz was read");
    char want[800];
    snprintf(want, sizeof want,
             "%s: cannot tell the mesh format from the name; supported: .vtk (legacy VTK unstructured "
             "grid), .vtu (XML VTK unstructured grid), .msh (Gmsh 2.2/4.x ASCII), .pts/.elem/.lon (openCARP; or a prefix PREFIX with "
             "PREFIX.elem present), .node/.ele (TetGen; or a prefix PREFIX with PREFIX.ele present)",
             p);
    HS_TEST_CHECK(strcmp(hs_error_message(), want) == 0, "message \"%s\", want \"%s\"", hs_error_message(),
                  want);
    /* ... and every listed extension, whatever the list holds. */
    const hs_registry *r = hs_mesh_readers();
    for (size_t i = 0; i < r->count; ++i)
        HS_TEST_CHECK(strstr(hs_error_message(), hs_registry_name(r, i)) != NULL, "%s is not listed: %s",
                      hs_registry_name(r, i), hs_error_message());
    hs_error_clear();
    RT_EXPECT_FAIL(hs_mesh_read_file(rt_path("nothing"), NULL, &rt_m_), "", 0,
                   "(and no such file); supported:");
    RT_EXPECT_FAIL(hs_mesh_read_file(rt_path("surf.vtp"), NULL, &rt_m_), "", 0,
                   ".vtp is a surface format; mesh it with mesh.source = \"surface\"");
    RT_EXPECT_FAIL(hs_mesh_read_file("", NULL, &rt_m_), "", 0, "empty");
}

/* ---- malformed files ------------------------------------------------------------------------ */

static const char *k_pts = "4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n";
static const char *k_elem = "1\nTt 0 1 2 3 5\n";

/* Write PREFIX.pts/.elem (and .lon when not NULL); return the path of @p which (".pts", ...). */
static const char *write_set(const char *prefix, const char *pts, const char *elem,
                             const char *lon, const char *which)
{
    char name[64];
    snprintf(name, sizeof name, "%s.pts", prefix);
    rt_write(name, pts);
    snprintf(name, sizeof name, "%s.elem", prefix);
    rt_write(name, elem);
    if (lon) {
        snprintf(name, sizeof name, "%s.lon", prefix);
        rt_write(name, lon);
    }
    snprintf(name, sizeof name, "%s%s", prefix, which);
    return rt_path(name);
}

static void check_malformed(void)
{
    hs_mesh *m = NULL;
    const char *p = write_set("ok", k_pts, k_elem, "1\n0 0 2\n", ".elem");
    HS_TEST_OK(hs_mesh_read_opencarp(rt_path("ok"), NULL, &m));
    HS_TEST_CHECK(m && m->n_elems == 1 && m->region[0] == 5 && m->fiber && m->fiber[2] == 1.0,
                  "one-tet set not read as written");
    hs_mesh_destroy(&m);

#define READ(prefix) hs_mesh_read_opencarp(rt_path(prefix), NULL, &rt_m_)
    p = write_set("hx", "8\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n0 0 1\n1 0 1\n1 1 1\n0 1 1\n",
                  "2\nTt 0 1 3 4\nHx 0 1 2 3 4 5 6 7\n", NULL, ".elem");
    RT_EXPECT_FAIL(READ("hx"), p, 3, "element 1 is a hexahedron (Hx)");
    p = write_set("tr", k_pts, "1\nTr 0 1 2\n", NULL, ".elem");
    RT_EXPECT_FAIL(READ("tr"), p, 2, "triangle (Tr)");
    p = write_set("code", k_pts, "1\nTet 0 1 2 3\n", NULL, ".elem");
    RT_EXPECT_FAIL(READ("code"), p, 2, "unknown element type 'Tet'");
    p = write_set("range", k_pts, "1\nTt 0 1 2 4\n", NULL, ".elem");
    RT_EXPECT_FAIL(READ("range"), p, 2, "node index 4 out of range");
    p = write_set("fields", k_pts, "1\nTt 0 1 2 3 5 6\n", NULL, ".elem");
    RT_EXPECT_FAIL(READ("fields"), p, 2, "expected 6 fields (Tt n0 n1 n2 n3 [region]), found 7");
    p = write_set("regnum", k_pts, "1\nTt 0 1 2 3 x\n", NULL, ".elem");
    RT_EXPECT_FAIL(READ("regnum"), p, 2, "region");
    p = write_set("ecount", k_pts, "2\nTt 0 1 2 3\n", NULL, ".elem");
    RT_EXPECT_FAIL(READ("ecount"), p, 2, "file ended after 1 of the 2 elements");
    p = write_set("pmore", "5\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n", k_elem, NULL, ".pts");
    RT_EXPECT_FAIL(READ("pmore"), p, 5, "file ended after 4 of the 5 points");
    p = write_set("pless", "3\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n", k_elem, NULL, ".pts");
    RT_EXPECT_FAIL(READ("pless"), p, 5, "unexpected data after the 3 points");
    p = write_set("pnum", "4\n0 0 0\n1 0 0\n0 1e 0\n0 0 1\n", k_elem, NULL, ".pts");
    RT_EXPECT_FAIL(READ("pnum"), p, 4, "'1e'");
    p = write_set("pshort", "4\n0 0 0\n1 0\n0 1 0\n0 0 1\n", k_elem, NULL, ".pts");
    RT_EXPECT_FAIL(READ("pshort"), p, 3, "expected z coordinate, found end of line");
    p = write_set("pcount", "-4\n", k_elem, NULL, ".pts");
    RT_EXPECT_FAIL(READ("pcount"), p, 1, "count -4 out of range");
    p = write_set("pempty", "", k_elem, NULL, ".pts");
    RT_EXPECT_FAIL(READ("pempty"), p, 1, "file is empty");
    p = write_set("lzero", k_pts, k_elem, "1\n0 0 0\n", ".lon");
    RT_EXPECT_FAIL(READ("lzero"), p, 2, "fibre of element 0 is the zero vector");
    p = write_set("lless", k_pts, "2\nTt 0 1 2 3\nTt 0 1 2 3\n", "1\n1 0 0\n", ".lon");
    RT_EXPECT_FAIL(READ("lless"), p, 2, "file ended after 1 fibres");
    p = write_set("lmore", k_pts, k_elem, "1\n1 0 0\n0 1 0\n", ".lon");
    RT_EXPECT_FAIL(READ("lmore"), p, 3, "more fibres than elements");
    p = write_set("lhead", k_pts, k_elem, "3\n1 0 0\n", ".lon");
    RT_EXPECT_FAIL(READ("lhead"), p, 1, "first line is 3; expected 1");
    p = write_set("lwidth", k_pts, k_elem, "2\n1 0 0\n", ".lon");
    RT_EXPECT_FAIL(READ("lwidth"), p, 2, "expected sheet x, found end of line");
    p = write_set("lfirst", k_pts, k_elem, "1 0\n", ".lon");
    RT_EXPECT_FAIL(READ("lfirst"), p, 1, "first line has 2 fields");
    p = write_set("lnum", k_pts, k_elem, "1\n1 0 z\n", ".lon");
    RT_EXPECT_FAIL(READ("lnum"), p, 2, "'z'");
    p = write_set("bigreg", k_pts, "1\nTt 0 1 2 3 99999999999\n", NULL, ".elem");
    RT_EXPECT_FAIL(READ("bigreg"), p, 2, "region 99999999999 does not fit");
    p = write_set("lempty", k_pts, k_elem, "", ".lon");
    RT_EXPECT_FAIL(READ("lempty"), p, 1, "file is empty; expected 1 or 2");
    RT_EXPECT_FAIL(READ("absent"), "", 0, "absent.pts");
#undef READ
}

int main(void)
{
    rt_check_tables();
    rt_setup();
    check_good_files();
    check_reader_list();
    check_dispatch();
    check_malformed();
    rt_teardown();
    HS_TEST_RETURN();
}
