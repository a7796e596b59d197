/* Gmsh .msh reader: the unit cube in formats 2.2, 4.1 and 4.0 with physical groups, names and
 * tagged boundary triangles, non-contiguous node tags and an unused node; 10-node tets linearised
 * and refused; malformed files whose errors must name the file and line. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_mesh.h"
#include "hs_mesh_io.h"
#include "hs_test.h"
#include "mesh_read_test_util.h"

/* Nodes in the file: the 8 corners in the order below with an unused point at position 3, and
 * for quadratic files the 19 edge midpoints after them. Tags are sparse and not sorted. */
static const int k_order[9] = {7, 6, 5, -1, 4, 3, 2, 1, 0}; /* corner at each file position */
static long long tag_of(int pos) { return 1000 - 37 * pos; }

static int g_n_file;           /* nodes written */
static double g_xyz[40 * 3];   /* their coordinates, file order */
static int g_mid[6][6];        /* file position of the midpoint of tet e's edge j (Gmsh order) */

/* Gmsh 10-node tet: corners, then edges 0-1, 1-2, 2-0, 3-0, 3-2, 3-1 (gmsh reference manual,
 * "Node ordering"). */
static const int k_edge[6][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 0}, {3, 2}, {3, 1}};

static int pos_of_corner(int c)
{
    for (int p = 0; p < 9; ++p)
        if (k_order[p] == c) return p;
    return -1;
}

static void make_nodes(int quadratic)
{
    g_n_file = 0;
    for (int p = 0; p < 9; ++p) {
        if (k_order[p] >= 0)
            rt_corner(k_order[p], g_xyz + 3 * p);
        else
            g_xyz[3 * p] = 5.0, g_xyz[3 * p + 1] = 5.0, g_xyz[3 * p + 2] = 5.0;
        ++g_n_file;
    }
    if (!quadratic) return;
    int pair[32][2], n = 0;
    for (int e = 0; e < 6; ++e)
        for (int j = 0; j < 6; ++j) {
            int a = rt_tets[e][k_edge[j][0]], b = rt_tets[e][k_edge[j][1]];
            if (a > b) {
                const int s = a;
                a = b;
                b = s;
            }
            int found = -1;
            for (int q = 0; q < n; ++q)
                if (pair[q][0] == a && pair[q][1] == b) found = q;
            if (found < 0) {
                pair[n][0] = a;
                pair[n][1] = b;
                double x[3], y[3];
                rt_corner(a, x);
                rt_corner(b, y);
                for (int k = 0; k < 3; ++k) g_xyz[3 * g_n_file + k] = 0.5 * (x[k] + y[k]);
                found = n++;
                ++g_n_file;
            }
            g_mid[e][j] = 9 + found;
        }
}

/* Tags of a tet's nodes (+ midpoints), or of a triangle's (+ midpoints of its edges). */
static void put_tet(FILE *f, int e, int quadratic)
{
    for (int k = 0; k < 4; ++k) fprintf(f, " %lld", tag_of(pos_of_corner(rt_tets[e][k])));
    if (quadratic)
        for (int j = 0; j < 6; ++j) fprintf(f, " %lld", tag_of(g_mid[e][j]));
}

/* Position of the midpoint of corners a, b (quadratic files). */
static int mid_of(int a, int b)
{
    for (int e = 0; e < 6; ++e)
        for (int j = 0; j < 6; ++j) {
            const int x = rt_tets[e][k_edge[j][0]], y = rt_tets[e][k_edge[j][1]];
            if ((x == a && y == b) || (x == b && y == a)) return g_mid[e][j];
        }
    return -1;
}

static void put_tri(FILE *f, const int *tri, int quadratic)
{
    for (int k = 0; k < 3; ++k) fprintf(f, " %lld", tag_of(pos_of_corner(tri[k])));
    if (quadratic)
        for (int k = 0; k < 3; ++k) fprintf(f, " %lld", tag_of(mid_of(tri[k], tri[(k + 1) % 3])));
}

static const char *k_names = "$PhysicalNames\n4\n2 1 \"base\"\n2 2 \"epi surface\"\n"
                             "3 1 \"myocardium\"\n3 2 \"scar\"\n$EndPhysicalNames\n";
static const int k_untagged_tri[3] = {0, 1, 5};

static const char *write_msh22(const char *name, int quadratic)
{
    make_nodes(quadratic);
    FILE *f = rt_open(name);
    fprintf(f, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Comments\nanything $Nodes\n$EndComments\n");
    fputs(k_names, f);
    fprintf(f, "$Nodes\n%d\n", g_n_file);
    for (int p = 0; p < g_n_file; ++p)
        fprintf(f, "%lld %.17g %.17g %.17g\n", tag_of(p), g_xyz[3 * p], g_xyz[3 * p + 1],
                g_xyz[3 * p + 2]);
    fprintf(f, "$EndNodes\n$Elements\n%d\n", 1 + 1 + 4 + 1 + 6);
    int id = 1;
    fprintf(f, "%d 15 2 0 1 %lld\n", id++, tag_of(3));                 /* point: the unused node */
    fprintf(f, "%d 1 2 0 3 %lld %lld\n", id++, tag_of(0), tag_of(8)); /* line */
    for (int t = 0; t < 4; ++t) {
        fprintf(f, "%d %d 2 %d %d", id++, quadratic ? 9 : 2, rt_tri_label[t], 10 + t);
        put_tri(f, rt_tris[t], quadratic);
        fprintf(f, "\n");
    }
    fprintf(f, "%d %d 0", id++, quadratic ? 9 : 2); /* untagged triangle: skipped */
    put_tri(f, k_untagged_tri, quadratic);
    fprintf(f, "\n");
    for (int e = 0; e < 6; ++e) {
        fprintf(f, "%d %d 2 %d 5", id++, quadratic ? 11 : 4, e < 3 ? 1 : 2);
        put_tet(f, e, quadratic);
        fprintf(f, "\n");
    }
    fprintf(f, "$EndElements\n$NodeData\n1\n\"phi\"\n1\n0.0\n3\n0\n1\n0\n$EndNodeData\n");
    fclose(f);
    return rt_path(name);
}

/* 4.1 (minor 1) or 4.0 (minor 0). Surfaces 1, 2 are physical 1, 2; surface 3 has none; volumes
 * 1, 2 are physical 1, 2. */
static const char *write_msh4(const char *name, int minor)
{
    make_nodes(0);
    /* nodes: positions 0-2 in a volume-1 block, the unused point (position 3) in a block of its
     * own on point entity 7, positions 4-8 in a volume-2 block */
    const int blocks[3][7] = {{3, 1, 0, 1, 2}, {0, 7, 3}, {3, 2, 4, 5, 6, 7, 8}};
    const int counts[3] = {3, 1, 5};
    FILE *f = rt_open(name);
    fprintf(f, "$MeshFormat\n4.%d 0 8\n$EndMeshFormat\n", minor);
    fputs(k_names, f);
    fprintf(f, "$Entities\n1 1 3 2\n");
    fprintf(f, minor ? "7 5 5 5 0\n" : "7 5 5 5 5 5 5 0\n");
    fprintf(f, "4 0 0 0 1 0 0 0 2 7 -7\n");
    fprintf(f, "1 0 0 0 1 1 0 1 1 0\n2 0 0 1 1 1 1 2 2 3 0\n3 0 0 0 1 0 1 0 0\n");
    fprintf(f, "1 0 0 0 1 1 1 1 1 0\n2 0 0 0 1 1 1 1 2 0\n$EndEntities\n");
    if (minor)
        fprintf(f, "$Nodes\n3 9 %lld %lld\n", tag_of(8), tag_of(0));
    else
        fprintf(f, "$Nodes\n3 9\n");
    for (int b = 0; b < 3; ++b) {
        const int dim = blocks[b][0], ent = blocks[b][1];
        if (minor) {
            fprintf(f, "%d %d 0 %d\n", dim, ent, counts[b]);
            for (int i = 0; i < counts[b]; ++i) fprintf(f, "%lld\n", tag_of(blocks[b][2 + i]));
            for (int i = 0; i < counts[b]; ++i) {
                const double *x = g_xyz + 3 * blocks[b][2 + i];
                fprintf(f, "%.17g %.17g %.17g\n", x[0], x[1], x[2]);
            }
        } else {
            fprintf(f, "%d %d 0 %d\n", ent, dim, counts[b]);
            for (int i = 0; i < counts[b]; ++i) {
                const double *x = g_xyz + 3 * blocks[b][2 + i];
                fprintf(f, "%lld %.17g %.17g %.17g\n", tag_of(blocks[b][2 + i]), x[0], x[1], x[2]);
            }
        }
    }
    fprintf(f, "$EndNodes\n");
    /* element blocks: point, base (2), epi (2), untagged (1), volume 1 (3 tets), volume 2 (3) */
    if (minor)
        fprintf(f, "$Elements\n6 12 1 12\n");
    else
        fprintf(f, "$Elements\n6 12\n");
#define BLOCK(dim, ent, type, n)                                                                   \
    do {                                                                                           \
        if (minor)                                                                                 \
            fprintf(f, "%d %d %d %d\n", (dim), (ent), (type), (n));                               \
        else                                                                                       \
            fprintf(f, "%d %d %d %d\n", (ent), (dim), (type), (n));                               \
    } while (0)
    int id = 1;
    BLOCK(0, 7, 15, 1);
    fprintf(f, "%d %lld\n", id++, tag_of(3));
    for (int s = 0; s < 2; ++s) {
        BLOCK(2, s + 1, 2, 2);
        for (int t = 2 * s; t < 2 * s + 2; ++t) {
            fprintf(f, "%d", id++);
            put_tri(f, rt_tris[t], 0);
            fprintf(f, "\n");
        }
    }
    BLOCK(2, 3, 2, 1);
    fprintf(f, "%d", id++);
    put_tri(f, k_untagged_tri, 0);
    fprintf(f, "\n");
    for (int v = 0; v < 2; ++v) {
        BLOCK(3, v + 1, 4, 3);
        for (int e = 3 * v; e < 3 * v + 3; ++e) {
            fprintf(f, "%d", id++);
            put_tet(f, e, 0);
            fprintf(f, "\n");
        }
    }
#undef BLOCK
    fprintf(f, "$EndElements\n");
    fclose(f);
    return rt_path(name);
}

static void check_cube(const char *path, const hs_mesh_read_opts *o, const char *what)
{
    hs_mesh *m = NULL;
    hs_error_clear();
    HS_TEST_OK(hs_mesh_read_gmsh(path, o, &m));
    rt_check_cube(m, 8, 6, what);
    rt_check_regions_fibers(m, 0, what);
    rt_check_node_orig(m, g_xyz, g_n_file, what);
    if (!m) return;
    /* the unused point (file position 3) is gone; the others keep their file order */
    if (m->node_orig && m->n_nodes == 8) {
        const int want[8] = {0, 1, 2, 4, 5, 6, 7, 8};
        for (int i = 0; i < 8; ++i)
            HS_TEST_CHECK(m->node_orig[i] == want[i], "%s: node_orig[%d] = %d, expected %d", what,
                          i, m->node_orig[i], want[i]);
    }
    for (int e = 0; e < 6 && m->n_elems == 6; ++e) {
        double cube[24];
        for (int i = 0; i < 8; ++i) rt_corner(i, cube + 3 * i);
        HS_TEST_CHECK(rt_same_tet(m, e, cube, rt_tets[e]), "%s: tet %d has other corners", what, e);
    }
    HS_TEST_CHECK(m->n_bfaces == 4, "%s: %d boundary faces, expected 4 (untagged one skipped)",
                  what, m->n_bfaces);
    for (int f = 0; f < m->n_bfaces && f < 4; ++f) {
        HS_TEST_CHECK(m->bface_label[f] == rt_tri_label[f], "%s: face %d label %d, expected %d",
                      what, f, m->bface_label[f], rt_tri_label[f]);
        for (int k = 0; k < 3; ++k) {
            double q[3];
            rt_corner(rt_tris[f][k], q);
            const double *p = m->xyz + 3 * (size_t)m->bface[3 * f + k];
            HS_TEST_CHECK(p[0] == q[0] && p[1] == q[1] && p[2] == q[2],
                          "%s: face %d corner %d is not cube corner %d", what, f, k,
                          rt_tris[f][k]);
        }
    }
    HS_TEST_CHECK(m->n_labels == 2, "%s: %d labels, expected 2 (dim-3 names are not labels)", what,
                  m->n_labels);
    HS_TEST_CHECK(hs_mesh_find_label(m, "base") == 1 && hs_mesh_find_label(m, "epi surface") == 2,
                  "%s: labels base -> %d, \"epi surface\" -> %d", what,
                  hs_mesh_find_label(m, "base"), hs_mesh_find_label(m, "epi surface"));
    hs_mesh_destroy(&m);
}

static void check_good_files(void)
{
    check_cube(write_msh22("cube22.msh", 0), NULL, "msh 2.2");
    check_cube(write_msh4("cube41.msh", 1), NULL, "msh 4.1");
    check_cube(write_msh4("cube40.msh", 0), NULL, "msh 4.0");

    /* 10-node tets (and 6-node triangles) linearised: mid-edge nodes dropped. */
    const char *q = write_msh22("quadratic.msh", 1);
    const hs_mesh_read_opts lin = {1};
    check_cube(q, &lin, "msh 2.2 quadratic, linearised");
    int line = 0;
    {
        FILE *f = fopen(q, "r");
        char buf[512];
        int l = 0;
        while (f && fgets(buf, sizeof buf, f)) {
            ++l;
            int a, b;
            if (sscanf(buf, "%d %d", &a, &b) == 2 && b == 11 && !line) line = l;
        }
        if (f) fclose(f);
    }
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(q, NULL, &rt_m_), q, line,
                   "10-node (quadratic) tetrahedron; heartsim uses linear tetrahedra: set "
                   "mesh.quadratic");

    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_read_file(rt_path("cube41.msh"), NULL, &m));
    HS_TEST_CHECK(m && m->n_elems == 6, "hs_mesh_read_file did not read the .msh");
    hs_mesh_destroy(&m);
}

/* ---- malformed files ------------------------------------------------------------------------ */

/* One tet in 2.2: lines 1-3 format, 4 $Nodes, 5 count, 6-9 nodes, 10 $EndNodes, 11 $Elements,
 * 12 count, 13 the tet, 14 $EndElements. */
static const char *one_tet(const char *name, const char *nodes, const char *elements)
{
    char text[2048];
    snprintf(text, sizeof text, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n%s$EndNodes\n"
                                "$Elements\n%s",
             nodes, elements);
    return rt_write(name, text);
}

static void check_malformed(void)
{
    const char *nodes = "4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n";
    const char *elems = "1\n1 4 2 7 1 1 2 3 4\n$EndElements\n";
    const char *p;
    hs_mesh *m = NULL;

    p = one_tet("ok.msh", nodes, elems);
    HS_TEST_OK(hs_mesh_read_gmsh(p, NULL, &m));
    HS_TEST_CHECK(m && m->n_elems == 1 && m->region[0] == 7, "one-tet file not read");
    hs_mesh_destroy(&m);

    p = rt_write("binary.msh", "$MeshFormat\n4.1 1 8\n\x01\x00\x00\x00\n$EndMeshFormat\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 2, "save as ASCII");
    p = one_tet("hex.msh", nodes,
                "2\n1 4 2 7 1 1 2 3 4\n9 5 2 7 1 1 2 3 4 1 2 3 4\n$EndElements\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 14,
                   "element 9 is a 8-node hexahedron (Gmsh type 5)");
    p = one_tet("prism.msh", nodes, "1\n3 6 0 1 2 3 4 1 2\n$EndElements\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 13, "6-node prism (Gmsh type 6)");
    p = one_tet("type99.msh", nodes, "1\n1 99 0 1 2 3 4\n$EndElements\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 13, "type 99");
    p = one_tet("tag.msh", nodes, "1\n1 4 2 7 1 1 2 3 5\n$EndElements\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 13, "refers to node 5");
    p = one_tet("short.msh", nodes, "1\n1 4 2 7 1 1 2 3\n$EndElements\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 13, "has 3 node tags, expected 4");
    p = one_tet("long.msh", nodes, "1\n1 4 2 7 1 1 2 3 4 4\n$EndElements\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 13, "has 5 node tags, expected 4");
    p = one_tet("more.msh", "5\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n", elems);
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 10,
                   "found $EndNodes after 4 of the 5 nodes announced at line 5");
    p = one_tet("fewer.msh", "3\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n", elems);
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 9,
                   "expected $EndNodes after the 3 nodes announced at line 5, found '4'");
    p = one_tet("number.msh", "4\n1 0 0 0x\n2 1 0 0\n3 0 1 0\n4 0 0 1\n", elems);
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 6, "'0x'");
    p = one_tet("dup.msh", "4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n2 0 0 1\n", elems);
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 4, "node tag 2 twice");
    p = one_tet("zerotag.msh", "4\n0 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n", elems);
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 6, "node tag 0");
    p = one_tet("noend.msh", nodes, "1\n1 4 2 7 1 1 2 3 4\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 13, "expected $EndElements");
    p = rt_write("cut.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 7,
                   "file ended after 2 of the 4 nodes announced at line 5");
    p = rt_write("noelem.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n1\n1 0 0 0\n"
                               "$EndNodes\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 7, "without an $Elements section");
    p = rt_write("order.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Elements\n0\n$EndElements\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 4, "$Elements before $Nodes");
    p = rt_write("v3.msh", "$MeshFormat\n3.0 0 8\n$EndMeshFormat\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 2, "version '3.0'");
    p = rt_write("v1.msh", "$NOD\n1\n1 0 0 0\n$ENDNOD\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 1, "Gmsh 1 format");
    p = rt_write("nofmt.msh", "\n$Nodes\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 2, "expected $MeshFormat");
    p = rt_write("section.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\nNodes\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 4, "expected a section name");
    p = rt_write("skip.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Comments\nno end\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 5,
                   "inside section $Comments of line 4 (no $EndComments)");
    p = one_tet("quoted.msh", nodes, "1\n1 4 2 7 1 1 2 3 4\n$EndElements\n"
                                     "$PhysicalNames\n1\n2 3 base\n$EndPhysicalNames\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 17, "quoted name");
    p = one_tet("longname.msh", nodes,
                "1\n1 4 2 7 1 1 2 3 4\n$EndElements\n$PhysicalNames\n1\n"
                "2 3 \"a name much longer than the forty-seven characters a label holds\"\n"
                "$EndPhysicalNames\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 17, "must have 1 to 47 characters");
    /* A labelled triangle must lie on the tets: node 5 is in no tet. */
    p = one_tet("stray.msh", "5\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 1\n",
                "2\n1 4 2 7 1 1 2 3 4\n2 2 2 3 9 1 2 5\n$EndElements\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 15, "belongs to no tetrahedron");
    p = one_tet("notets.msh", nodes, "1\n1 2 2 3 9 1 2 3\n$EndElements\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 0, "no tetrahedra");

    p = one_tet("negcount.msh", "-1\n", elems);
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 5, "number of nodes = -1");
    p = one_tet("ntags.msh", nodes, "1\n1 4 -1 1 2 3 4\n$EndElements\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 13, "element 1 has -1 tags");
    p = one_tet("bigphys.msh", nodes, "1\n1 4 1 99999999999 1 2 3 4\n$EndElements\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 13, "99999999999 does not fit");
    p = one_tet("namedim.msh", nodes, "1\n1 4 2 7 1 1 2 3 4\n$EndElements\n"
                                      "$PhysicalNames\n1\n5 3 \"x\"\n$EndPhysicalNames\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 17, "dimension 5");
    p = one_tet("twonodes.msh", nodes, "1\n1 4 2 7 1 1 2 3 4\n$EndElements\n$Nodes\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 15, "second $Nodes section");
    p = one_tet("twoelems.msh", nodes, "1\n1 4 2 7 1 1 2 3 4\n$EndElements\n$Elements\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 15, "second $Elements section");
    p = rt_write("ftype.msh", "$MeshFormat\n2.2 2 8\n$EndMeshFormat\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 2, "file type 2; expected 0");
    p = rt_write("part.msh", "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$PartitionedEntities\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 4, "partitioned meshes are not read");
    p = rt_write("nblock.msh", "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 4 1 4\n"
                               "3 1 0 5\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 6, "block of 5 nodes, but only 4");
    p = rt_write("ntotal.msh", "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 4 1 4\n"
                               "3 1 0 1\n1\n0 0 0\n$EndNodes\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 5,
                   "the 1 node blocks hold 1 nodes, but the header announces 4");
    p = rt_write("nphys.msh", "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Entities\n0 0 0 1\n"
                              "1 0 0 0 1 1 1 -1\n$EndEntities\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 6, "negative number of physical tags");
    p = rt_write("twoent.msh", "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Entities\n0 0 0 0\n"
                               "$EndEntities\n$Entities\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 7, "$Entities must come once");

    /* 4.1: an element block on an entity $Entities does not list; a block count past the
     * section's total. */
    const char *head41 = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Entities\n0 0 0 1\n"
                         "1 0 0 0 1 1 1 1 4 0\n$EndEntities\n$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n"
                         "4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n$EndNodes\n";
    char text[1024];
    snprintf(text, sizeof text, "%s$Elements\n1 1 1 1\n3 2 4 1\n1 1 2 3 4\n$EndElements\n",
             head41);
    p = rt_write("entity.msh", text);
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 22, "volume entity 2");
    snprintf(text, sizeof text, "%s$Elements\n1 1 1 1\n3 1 4 1\n1 1 2 3 4\n$EndElements\n",
             head41);
    p = rt_write("ok41.msh", text);
    HS_TEST_OK(hs_mesh_read_gmsh(p, NULL, &m));
    HS_TEST_CHECK(m && m->n_elems == 1 && m->region[0] == 4, "4.1 one-tet file: region %d",
                  m ? m->region[0] : -99);
    hs_mesh_destroy(&m);
    snprintf(text, sizeof text, "%s$Elements\n1 1 1 1\n3 1 4 2\n1 1 2 3 4\n$EndElements\n",
             head41);
    p = rt_write("block41.msh", text);
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 22, "only 1 of the 1 elements");
    snprintf(text, sizeof text, "%s$Elements\n1 2 1 2\n3 1 4 1\n1 1 2 3 4\n$EndElements\n",
             head41);
    p = rt_write("etotal41.msh", text);
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 21,
                   "the 1 element blocks hold 1 elements, but the header announces 2");
    p = rt_write("blockn41.msh", "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 4 1 4\n"
                                 "3 1 0 4\n1\n2\n3\n0 0 0\n");
    RT_EXPECT_FAIL(hs_mesh_read_gmsh(p, NULL, &rt_m_), p, 10, "one node tag per line");
}

int main(void)
{
    rt_check_tables();
    rt_setup();
    check_good_files();
    check_malformed();
    rt_teardown();
    HS_TEST_RETURN();
}
