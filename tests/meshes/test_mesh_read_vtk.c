/* Legacy VTK reader: the unit cube in ASCII and BINARY, classic and 5.1 cell layouts, with region
 * and fibre cell arrays among arrays that must be skipped; heartsim's own frames read back;
 * quadratic tets; orientation; malformed files whose errors must name the file and line.
 * Over 600 lines: the VTK reader's malformed-input cases, each with the line its message must name.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_mesh.h"
#include "hs_mesh_io.h"
#include "hs_series.h"
#include "hs_test.h"
#include "mesh_read_test_util.h"

/* ---- writing values ------------------------------------------------------------------------- */

static FILE *g_f;
static int g_bin, g_col;

static void put_be(uint64_t u, int bytes)
{
    for (int i = bytes - 1; i >= 0; --i) fputc((int)((u >> (8 * i)) & 0xff), g_f);
}

/* One value of type t: 'd' double, 'f' float, 'i' int32, 'l' int64, 's' int16, 'c' uint8. */
static void put(char t, double v)
{
    if (!g_bin) {
        fprintf(g_f, "%.17g%s", v, ++g_col % 7 == 0 ? "\n" : " ");
        return;
    }
    if (t == 'd') {
        uint64_t u;
        memcpy(&u, &v, 8);
        put_be(u, 8);
    } else if (t == 'f') {
        float x = (float)v;
        uint32_t u;
        memcpy(&u, &x, 4);
        put_be(u, 4);
    } else {
        const int64_t i = (int64_t)v;
        uint64_t u;
        memcpy(&u, &i, 8);
        put_be(u, t == 'l' ? 8 : t == 'i' ? 4 : t == 's' ? 2 : 1);
    }
}

static void end_block(void)
{
    fputc('\n', g_f);
    g_col = 0;
}

/* 1-based line of the first occurrence of @p needle in the file (bytes, binary included). */
static int line_of(const char *path, const char *needle)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    static char buf[1 << 16];
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const size_t ln = strlen(needle);
    int line = 1;
    for (size_t i = 0; i + ln <= n; ++i) {
        if (memcmp(buf + i, needle, ln) == 0) return line;
        line += buf[i] == '\n';
    }
    return -1;
}

/* ---- the cube ------------------------------------------------------------------------------- */

typedef struct cube_opts {
    int binary, v51;
    int extras;        /* vertex, line, triangles, and arrays to skip */
    int fibers;
    int reverse;       /* 1: swap nodes 2, 3 of every tet; 2: of tet 4 only */
} cube_opts;

/* Cells: 6 tets, then with extras a vertex, a line, the 4 labelled triangles, one untagged. */
static int n_cells(const cube_opts *o) { return o->extras ? 13 : 6; }

static void cell_nodes(const cube_opts *o, int c, int *v, int *k, int *type)
{
    if (c < 6) {
        memcpy(v, rt_tets[c], 4 * sizeof(int));
        if (o->reverse == 1 || (o->reverse == 2 && c == 4)) {
            const int s = v[2];
            v[2] = v[3];
            v[3] = s;
        }
        *k = 4;
        *type = 10;
    } else if (c == 6) {
        v[0] = 0;
        *k = 1;
        *type = 1;
    } else if (c == 7) {
        v[0] = 0;
        v[1] = 7;
        *k = 2;
        *type = 3;
    } else {
        const int t = c - 8;
        const int tri[3] = {0, 1, 5};
        memcpy(v, t < 4 ? rt_tris[t] : tri, 3 * sizeof(int));
        *k = 3;
        *type = 5;
    }
}

/* Region of cell c: tets 1,1,1,2,2,2; triangles their label (the z = 1 faces -7 in binary files,
 * to check sign extension of 16-bit integers), the last triangle 0 (untagged); 9 elsewhere. */
static int cell_region(const cube_opts *o, int c)
{
    if (c < 6) return c < 3 ? 1 : 2;
    if (c >= 8 && c < 12) return rt_tri_label[c - 8] == 2 && o->binary ? -7 : rt_tri_label[c - 8];
    return c == 12 ? 0 : 9;
}

static const char *write_cube(const char *name, const cube_opts *o)
{
    g_f = rt_open(name);
    g_bin = o->binary;
    g_col = 0;
    const int nc = n_cells(o);
    fprintf(g_f, "# vtk DataFile Version %s\nh2 cube\n%s\nDATASET UNSTRUCTURED_GRID\n",
            o->v51 ? "5.1" : "3.0", o->binary ? "BINARY" : "ASCII");
    if (o->extras) { /* dataset field data, as heartsim's frames have */
        fprintf(g_f, "FIELD FieldData 1\nTIME 1 1 double\n");
        put('d', 2.5);
        end_block();
    }
    fprintf(g_f, "POINTS 8 %s\n", o->binary ? "float" : "double");
    for (int i = 0; i < 8; ++i) {
        double x[3];
        rt_corner(i, x);
        for (int k = 0; k < 3; ++k) put(o->binary ? 'f' : 'd', x[k]);
    }
    end_block();
    int nconn = 0;
    for (int c = 0; c < nc; ++c) {
        int v[4], k, t;
        cell_nodes(o, c, v, &k, &t);
        nconn += k;
    }
    if (o->v51) {
        fprintf(g_f, "CELLS %d %d\nOFFSETS vtktypeint64\n", nc + 1, nconn);
        int off = 0;
        put('l', 0);
        for (int c = 0; c < nc; ++c) {
            int v[4], k, t;
            cell_nodes(o, c, v, &k, &t);
            off += k;
            put('l', off);
        }
        end_block();
        fprintf(g_f, "CONNECTIVITY vtktypeint64\n");
        for (int c = 0; c < nc; ++c) {
            int v[4], k, t;
            cell_nodes(o, c, v, &k, &t);
            for (int j = 0; j < k; ++j) put('l', v[j]);
        }
        end_block();
    } else {
        fprintf(g_f, "CELLS %d %d\n", nc, nc + nconn);
        for (int c = 0; c < nc; ++c) {
            int v[4], k, t;
            cell_nodes(o, c, v, &k, &t);
            put('i', k);
            for (int j = 0; j < k; ++j) put('i', v[j]);
        }
        end_block();
    }
    fprintf(g_f, "CELL_TYPES %d\n", nc);
    for (int c = 0; c < nc; ++c) {
        int v[4], k, t;
        cell_nodes(o, c, v, &k, &t);
        put('i', t);
    }
    end_block();

    fprintf(g_f, "CELL_DATA %d\n", nc);
    if (o->extras) {
        fprintf(g_f, "SCALARS pressure float 2\nLOOKUP_TABLE default\n");
        for (int c = 0; c < 2 * nc; ++c) put('f', 0.25 * c);
        end_block();
    }
    const char rt = o->binary ? (o->v51 ? 'l' : 's') : 'i';
    fprintf(g_f, "SCALARS %s %s 1\nLOOKUP_TABLE default\n", o->v51 ? "elemTag" : "region",
            rt == 'l' ? "vtktypeint64" : rt == 's' ? "short" : "int");
    for (int c = 0; c < nc; ++c) put(rt, cell_region(o, c));
    end_block();
    if (o->extras) {
        fprintf(g_f, "METADATA\nINFORMATION 1\nNAME L2_NORM_RANGE LOCATION vtkDataArray\n"
                     "DATA 2 0 1\n\n");
        fprintf(g_f, "FIELD FieldData %d\n", o->fibers ? 3 : 2);
        fprintf(g_f, "flags 1 %d unsigned_char\n", nc);
        for (int c = 0; c < nc; ++c) put('c', c % 3);
        end_block();
        fprintf(g_f, "stress 6 %d double\n", nc);
        for (int c = 0; c < 6 * nc; ++c) put('d', 10.0 + c);
        end_block();
    }
    if (o->fibers) {
        if (o->extras)
            fprintf(g_f, "Fibres 3 %d %s\n", nc, o->binary ? "float" : "double");
        else
            fprintf(g_f, "VECTORS fiber %s\n", o->binary ? "float" : "double");
        for (int c = 0; c < nc; ++c) {
            double f[3] = {0, 0, 0};
            if (c < 6) rt_fiber(c, f);
            for (int k = 0; k < 3; ++k) put(o->binary ? 'f' : 'd', f[k]);
        }
        end_block();
    }
    if (o->extras) {
        fprintf(g_f, "VECTORS velocity double\n");
        for (int c = 0; c < 3 * nc; ++c) put('d', -1.0 * c);
        end_block();
        fprintf(g_f, "POINT_DATA 8\nSCALARS phi float\nLOOKUP_TABLE default\n");
        for (int i = 0; i < 8; ++i) put('f', 0.1 * i);
        end_block();
        /* A point array called "fiber" must not be taken for the cell fibres. */
        fprintf(g_f, "VECTORS fiber double\n");
        for (int i = 0; i < 24; ++i) put('d', 0.0);
        end_block();
        fprintf(g_f, "SCALARS mask bit\nLOOKUP_TABLE default\n");
        if (o->binary)
            fputc(0xA5, g_f);
        else
            for (int i = 0; i < 8; ++i) put('c', i % 2);
        end_block();
        fprintf(g_f, "COLOR_SCALARS rgb 3\n");
        for (int i = 0; i < 24; ++i) put(o->binary ? 'c' : 'f', o->binary ? 10 : 0.5);
        end_block();
        fprintf(g_f, "LOOKUP_TABLE mytable 2\n");
        for (int i = 0; i < 8; ++i) put(o->binary ? 'c' : 'f', o->binary ? 255 : 1.0);
        end_block();
        fprintf(g_f, "TENSORS strain double\n");
        for (int i = 0; i < 72; ++i) put('d', 1.0);
        end_block();
        fprintf(g_f, "SCALARS ids vtktypeint64 1\nLOOKUP_TABLE default\n");
        for (int i = 0; i < 8; ++i) put('l', 100 + i);
        end_block();
        fprintf(g_f, "TEXTURE_COORDINATES uv 2 float\n");
        for (int i = 0; i < 16; ++i) put('f', 0.5);
        end_block();
    }
    fclose(g_f);
    return rt_path(name);
}

static void check_cube_file(const char *name, const cube_opts *o)
{
    const char *path = write_cube(name, o);
    hs_mesh *m = NULL;
    const hs_mesh_read_opts opts = {0};
    hs_error_clear();
    HS_TEST_OK(hs_mesh_read_vtk(path, &opts, &m));
    rt_check_cube(m, 8, 6, name);
    rt_check_regions_fibers(m, o->fibers, name);
    if (m) {
        double xyz[24];
        for (int i = 0; i < 8; ++i) rt_corner(i, xyz + 3 * i);
        rt_check_node_orig(m, xyz, 8, name);
        for (int e = 0; e < 6 && m->n_elems == 6; ++e)
            HS_TEST_CHECK(rt_same_tet(m, e, xyz, rt_tets[e]), "%s: tet %d has other corners", name,
                          e);
        /* Labelled triangles become boundary faces, the untagged one does not. */
        const int nbf = o->extras ? 4 : 0;
        HS_TEST_CHECK(m->n_bfaces == nbf, "%s: %d boundary faces, expected %d", name, m->n_bfaces,
                      nbf);
        for (int f = 0; f < m->n_bfaces && f < 4; ++f) {
            const int want = cell_region(o, 8 + f);
            HS_TEST_CHECK(m->bface_label[f] == want, "%s: boundary face %d label %d, expected %d",
                          name, f, m->bface_label[f], want);
            for (int k = 0; k < 3; ++k) {
                const int32_t node = m->bface[3 * f + k];
                const double *p = m->xyz + 3 * (size_t)node;
                double q[3];
                rt_corner(rt_tris[f][k], q);
                HS_TEST_CHECK(p[0] == q[0] && p[1] == q[1] && p[2] == q[2],
                              "%s: boundary face %d corner %d is not cube corner %d", name, f, k,
                              rt_tris[f][k]);
            }
        }
    }
    hs_mesh_destroy(&m);
}

static void check_good_files(void)
{
    cube_opts o = {0};
    o.fibers = 1;
    check_cube_file("ascii.vtk", &o);
    o.binary = 1;
    check_cube_file("binary.vtk", &o);
    o.extras = 1;
    check_cube_file("binary_extras.vtk", &o);
    o.binary = 0;
    check_cube_file("ascii_extras.vtk", &o);
    o.v51 = 1;
    check_cube_file("ascii51.vtk", &o);
    o.binary = 1;
    check_cube_file("binary51.vtk", &o);
    o.extras = 0;
    o.fibers = 0;
    check_cube_file("binary51_plain.vtk", &o);

    /* hs_mesh_read_file picks this reader by extension (any case). */
    o.binary = 0;
    o.v51 = 0;
    const char *path = write_cube("upper.VTK", &o);
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_read_file(path, NULL, &m));
    rt_check_cube(m, 8, 6, "upper.VTK via hs_mesh_read_file");
    hs_mesh_destroy(&m);
}

/* A whole file in the other orientation convention is turned around; a mixed one is left. */
static void check_orientation(void)
{
    cube_opts o = {0};
    o.reverse = 1;
    const char *path = write_cube("reversed.vtk", &o);
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_read_vtk(path, NULL, &m));
    rt_check_cube(m, 8, 6, "all tets reversed");
    hs_mesh_destroy(&m);

    o.reverse = 2;
    path = write_cube("mixed.vtk", &o);
    HS_TEST_OK(hs_mesh_read_vtk(path, NULL, &m));
    if (m) {
        HS_TEST_CHECK(hs_mesh_elem_volume(m, 4) < 0.0, "the one reversed tet was changed");
        HS_TEST_CHECK(hs_mesh_check(m) == HS_ERR_MESH, "mixed orientation passes hs_mesh_check");
        hs_error_clear();
    }
    hs_mesh_destroy(&m);
}

/* heartsim's frames (output/format_vtk.c) read back with regions and fibres. */
static void check_frame_roundtrip(void)
{
    const hs_box_params bp = {1.0, 1.0, 0.5, 0.5, 0, 0.0};
    hs_mesh *src = NULL, *m = NULL;
    hs_series *s = NULL;
    HS_TEST_OK(hs_mesh_create_box(&bp, &src));
    if (!src) return;
    src->fiber = calloc((size_t)src->n_elems * 3, sizeof(double));
    double *phi = calloc((size_t)src->n_nodes, sizeof(double));
    double *act = calloc((size_t)src->n_nodes, sizeof(double));
    double *r = calloc((size_t)src->n_elems, sizeof(double));
    if (!src->fiber || !phi || !act || !r) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (int32_t e = 0; e < src->n_elems; ++e) {
        src->region[e] = (e % 3) - 1;
        const double a = 0.1 * e;
        src->fiber[3 * e] = cos(a);
        src->fiber[3 * e + 1] = sin(a);
        src->fiber[3 * e + 2] = 0.0;
        r[e] = 0.01 * e;
    }
    for (int32_t i = 0; i < src->n_nodes; ++i) {
        phi[i] = 0.5;
        act[i] = -1.0;
    }
    hs_frame fr = hs_frame_at(3.25);
    HS_TEST_OK(hs_frame_add(&fr, "phi", 0, phi));
    HS_TEST_OK(hs_frame_add_mapped(&fr, "V", 0, phi, 100.0, -80.0));
    HS_TEST_OK(hs_frame_add(&fr, "activation", 0, act));
    HS_TEST_OK(hs_frame_add(&fr, "r", 1, r));
    fr.mesh_fields = HS_MESH_FIELD_FIBER | HS_MESH_FIELD_REGION;
    HS_TEST_OK(hs_series_create("vtk", rt_dir, "frame", &s));
    if (s) HS_TEST_OK(hs_series_write(s, src, &fr));
    hs_series_destroy(&s);
    HS_TEST_OK(hs_mesh_read_vtk(rt_path("frame_000000.vtk"), NULL, &m));
    if (m) {
        HS_TEST_CHECK(m->n_nodes == src->n_nodes && m->n_elems == src->n_elems,
                      "frame: %d nodes %d elements, written %d %d", m->n_nodes, m->n_elems,
                      src->n_nodes, src->n_elems);
        if (m->n_nodes == src->n_nodes && m->n_elems == src->n_elems) {
            HS_TEST_CHECK(memcmp(m->xyz, src->xyz, 3 * sizeof(double) * (size_t)m->n_nodes) == 0,
                          "frame: coordinates differ");
            HS_TEST_CHECK(memcmp(m->tets, src->tets, 4 * sizeof(int32_t) * (size_t)m->n_elems) ==
                              0,
                          "frame: connectivity differs");
            HS_TEST_CHECK(memcmp(m->region, src->region, sizeof(int32_t) * (size_t)m->n_elems) ==
                              0,
                          "frame: regions differ");
            HS_TEST_CHECK(m->fiber != NULL, "frame: fibres not read");
            for (int32_t k = 0; m->fiber && k < 3 * m->n_elems; ++k)
                HS_TEST_NEAR(m->fiber[k], src->fiber[k], 1e-15, "frame fibre");
        }
        HS_TEST_OK(hs_mesh_check(m));
    }
    hs_mesh_destroy(&m);
    hs_mesh_destroy(&src);
    free(phi);
    free(act);
    free(r);
}

/* 10-node tets: mid-edge nodes written before the corners, so node_orig is not the identity. */
static void check_quadratic(void)
{
    static const int edge[6][2] = {{0, 1}, {1, 2}, {0, 2}, {0, 3}, {1, 3}, {2, 3}};
    int mid[6][6], n_mid = 0, pair[32][2];
    for (int e = 0; e < 6; ++e)
        for (int j = 0; j < 6; ++j) {
            int a = rt_tets[e][edge[j][0]], b = rt_tets[e][edge[j][1]];
            if (a > b) {
                const int s = a;
                a = b;
                b = s;
            }
            int found = -1;
            for (int q = 0; q < n_mid; ++q)
                if (pair[q][0] == a && pair[q][1] == b) found = q;
            if (found < 0) {
                pair[n_mid][0] = a;
                pair[n_mid][1] = b;
                found = n_mid++;
            }
            mid[e][j] = found;
        }
    HS_TEST_CHECK(n_mid == 19, "%d distinct edges, expected 19", n_mid);
    double xyz[27 * 3];
    for (int q = 0; q < n_mid; ++q) {
        double a[3], b[3];
        rt_corner(pair[q][0], a);
        rt_corner(pair[q][1], b);
        for (int k = 0; k < 3; ++k) xyz[3 * q + k] = 0.5 * (a[k] + b[k]);
    }
    for (int i = 0; i < 8; ++i) rt_corner(i, xyz + 3 * (n_mid + i));
    const int np = n_mid + 8;

    FILE *f = rt_open("quadratic.vtk");
    fprintf(f, "# vtk DataFile Version 2.0\nquadratic\nASCII\nDATASET UNSTRUCTURED_GRID\n"
               "POINTS %d double\n", np);
    for (int i = 0; i < np; ++i)
        fprintf(f, "%g %g %g\n", xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]);
    fprintf(f, "CELLS 6 66\n");
    for (int e = 0; e < 6; ++e) {
        fprintf(f, "10");
        for (int k = 0; k < 4; ++k) fprintf(f, " %d", n_mid + rt_tets[e][k]);
        for (int j = 0; j < 6; ++j) fprintf(f, " %d", mid[e][j]);
        fprintf(f, "\n");
    }
    fprintf(f, "CELL_TYPES 6\n24 24 24\n24 24 24\n");
    fclose(f);
    const char *path = rt_path("quadratic.vtk");

    const hs_mesh_read_opts lin = {1};
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_read_vtk(path, &lin, &m));
    rt_check_cube(m, 8, 6, "quadratic, linearised");
    rt_check_node_orig(m, xyz, np, "quadratic, linearised");
    if (m && m->node_orig && m->n_nodes == 8)
        HS_TEST_CHECK(m->node_orig[0] == n_mid && m->node_orig[7] == n_mid + 7,
                      "node_orig %d..%d, expected the corners' file positions %d..%d",
                      m->node_orig[0], m->node_orig[7], n_mid, n_mid + 7);
    hs_mesh_destroy(&m);
    const int types_line = line_of(path, "CELL_TYPES") + 1;
    RT_EXPECT_FAIL(hs_mesh_read_vtk(path, NULL, &rt_m_), path, types_line, "linearize");
}

/* ---- malformed files ------------------------------------------------------------------------ */

static const char *k_head = "# vtk DataFile Version 3.0\nbad\nASCII\nDATASET UNSTRUCTURED_GRID\n";

static const char *tet_file(const char *name, const char *points, const char *cells,
                            const char *types, const char *tail)
{
    char text[2048];
    snprintf(text, sizeof text, "%s%s%s%s%s", k_head, points, cells, types, tail);
    return rt_write(name, text);
}

static void check_malformed(void)
{
    const char *pts = "POINTS 4 double\n0 0 0 1 0 0 0 1 0 0 0 1\n";     /* lines 5-6 */
    const char *cells = "CELLS 1 5\n4 0 1 2 3\n";                     /* lines 7-8 */
    const char *types = "CELL_TYPES 1\n10\n";                         /* lines 9-10 */
    const char *p;
    hs_mesh *m = NULL;

    /* the good one, for reference */
    p = tet_file("ok.vtk", pts, cells, types, "");
    HS_TEST_OK(hs_mesh_read_vtk(p, NULL, &m));
    HS_TEST_CHECK(m && m->n_elems == 1 && m->n_nodes == 4, "one-tet file not read");
    hs_mesh_destroy(&m);

    p = tet_file("badnum.vtk", "POINTS 4 double\n0 0 0 1 0 0 0 1x 0 0 0 1\n", cells, types, "");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 6, "'1x'");
    p = tet_file("size.vtk", pts, "CELLS 1 6\n4 0 1 2 3\n", types, "");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 7, "size 6");
    p = tet_file("npoints.vtk", "POINTS 5 double\n0 0 0 1 0 0 0 1 0 0 0 1\n", cells, types, "");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 7, "'CELLS'; does the count");
    p = tet_file("trunc.vtk", "POINTS 4 double\n0 0 0 1 0 0 0 1 0 0 0\n", "", "", "");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 6, "file ended after 11 of the 12");
    p = tet_file("type99.vtk", pts, cells, "CELL_TYPES 1\n99\n", "");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 10, "VTK type 99");
    p = tet_file("hex.vtk",
                 "POINTS 8 double\n0 0 0 1 0 0 1 1 0 0 1 0\n0 0 1 1 0 1 1 1 1 0 1 1\n",
                 "CELLS 2 14\n4 0 1 3 4\n8 0 1 2 3 4 5 6 7\n", "CELL_TYPES 2\n10\n12\n", "");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 13,
                   "cell 1 is a hexahedron (VTK type 12)");
    p = tet_file("range.vtk", pts, "CELLS 1 5\n4 0 1 2 9\n", types, "");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 7, "refers to point 9");
    p = tet_file("notypes.vtk", pts, cells, "", "");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 8, "without CELL_TYPES");
    p = tet_file("npts.vtk", pts, cells, "CELL_TYPES 1\n5\n", "");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 10, "triangle (VTK type 5) with 4 points");
    p = tet_file("zerofib.vtk", pts, cells, types, "CELL_DATA 1\nVECTORS fiber double\n0 0 0\n");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 12, "zero vector");
    p = tet_file("fracreg.vtk", pts, cells, types,
                 "CELL_DATA 1\nSCALARS region float\nLOOKUP_TABLE default\n1.5\n");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 14, "not a 32-bit integer");
    p = tet_file("celldata.vtk", pts, cells, types, "CELL_DATA 2\n");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 11, "CELL_DATA 2, but the grid has 1");
    p = tet_file("nolut.vtk", pts, cells, types, "CELL_DATA 1\nSCALARS region int\n4\n");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 13, "LOOKUP_TABLE");
    p = tet_file("keyword.vtk", pts, cells, types, "BOGUS 3\n");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 11, "'BOGUS'");
    p = tet_file("attr.vtk", pts, cells, types, "SCALARS a float\nLOOKUP_TABLE default\n1\n");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 11, "before CELL_DATA or POINT_DATA");
    p = tet_file("string.vtk", pts, cells, types, "CELL_DATA 1\nFIELD f 1\nnames 1 1 string\nx\n");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 13, "data type 'string'");
    p = rt_write("poly.vtk", "# vtk DataFile Version 3.0\ns\nASCII\nDATASET POLYDATA\n");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 4, "POLYDATA is a surface");
    p = rt_write("notvtk.vtk", "solid cube\n");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 1, "# vtk DataFile Version");
    p = rt_write("version.vtk", "# vtk DataFile Version 9.0\nt\nASCII\n");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 1, "9.0");
    p = rt_write("format.vtk", "# vtk DataFile Version 3.0\nt\nTEXT\n");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 3, "ASCII or BINARY");
    p = rt_write("empty.vtk", "");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 1, NULL);
    p = rt_write("notets.vtk", "# vtk DataFile Version 3.0\nt\nASCII\nDATASET UNSTRUCTURED_GRID\n"
                               "POINTS 3 float\n0 0 0 1 0 0 0 1 0\nCELLS 1 4\n3 0 1 2\n"
                               "CELL_TYPES 1\n5\n");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 0, "no tetrahedra");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(rt_path("missing.vtk"), NULL, &rt_m_), "", 0, "missing.vtk");

    /* 5.1 layout: offsets must start at 0, increase, and end at the connectivity size. */
    p = rt_write("off51.vtk", "# vtk DataFile Version 5.1\nt\nASCII\nDATASET UNSTRUCTURED_GRID\n"
                              "POINTS 4 double\n0 0 0 1 0 0 0 1 0 0 0 1\nCELLS 3 4\n"
                              "OFFSETS vtktypeint64\n0 4\n3\nCONNECTIVITY vtktypeint64\n"
                              "0 1 2 3\nCELL_TYPES 2\n10 10\n");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 10, "offset 2 is 3 after 4");
    p = rt_write("conn51.vtk", "# vtk DataFile Version 5.1\nt\nASCII\nDATASET UNSTRUCTURED_GRID\n"
                               "POINTS 4 double\n0 0 0 1 0 0 0 1 0 0 0 1\nCELLS 2 4\n"
                               "CONNECTIVITY vtktypeint64\n0 1 2 3\n");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 8, "expected OFFSETS");

    /* keyword lines */
    p = tet_file("ptype.vtk", "POINTS 4\n0 0 0 1 0 0 0 1 0 0 0 1\n", cells, types, "");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 5, "POINTS: expected data type");
    p = tet_file("pcount.vtk", "POINTS -1 double\n", cells, types, "");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 5, "number of points -1 out of range");
    p = tet_file("pbit.vtk", "POINTS 4 bit\n0 0 0 1 0 0 0 1 0 0 0 1\n", cells, types, "");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 5, "POINTS: data type bit");
    p = tet_file("nan.vtk", "POINTS 4 double\n0 0 0 1 0 0 0 nan 0 0 0 1\n", cells, types, "");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 6, "point 2 has a non-finite coordinate");
    /* cells */
    p = tet_file("cellnum.vtk", pts, "CELLS 1 5\n4 0 1 2 x\n", types, "");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 8,
                   "expected an integer (value 5 of the 5");
    p = tet_file("negidx.vtk", pts, "CELLS 1 5\n4 0 1 2 -1\n", types, "");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 8, "point index -1 in CELLS");
    p = tet_file("usedup.vtk", pts, "CELLS 2 5\n4 0 1 2 3\n", types, "");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 7, "used up after 1 of the 2 cells");
    p = tet_file("cellk.vtk", pts, "CELLS 1 3\n4 0 1 2 3\n", types, "");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 8, "cell 0 has 4 points, but only 2");
    p = tet_file("twopts.vtk", pts, cells, types, pts);
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 11, "second POINTS section");
    p = tet_file("twocells.vtk", pts, cells, types, cells);
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 11, "second CELLS section");
    p = tet_file("twotypes.vtk", pts, cells, types, types);
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 11, "second CELL_TYPES section");
    p = tet_file("typesfirst.vtk", pts, "", types, "");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 7, "CELL_TYPES before CELLS");
    p = tet_file("ntypes.vtk", pts, cells, "CELL_TYPES 2\n10 10\n", "");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 9, "CELL_TYPES announces 2 cells");
    /* data sections */
    p = tet_file("cdfirst.vtk", pts, "", "", "CELL_DATA 1\n");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 7, "CELL_DATA before CELLS");
    p = tet_file("pdfirst.vtk", "", "", "", "POINT_DATA 4\n");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 5, "POINT_DATA before POINTS");
    p = tet_file("ncomp.vtk", pts, cells, types, "CELL_DATA 1\nFIELD f 1\na 5000 1 float\n");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 13, "number of components 5000 out of");
    p = tet_file("ntup.vtk", pts, cells, types, "CELL_DATA 1\nFIELD f 1\na 1 99999999999 float\n");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 13, "99999999999 tuples is too many");
    p = tet_file("narr.vtk", pts, cells, types, "CELL_DATA 1\nFIELD f 2\na 1 1 float\n1\n");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 14, "after 1 of the 2 arrays of FIELD");
    p = tet_file("scomp.vtk", pts, cells, types, "CELL_DATA 1\nSCALARS a float 0\n");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 12, "0 components");
    /* a second region array is ignored (with a note), not an error */
    p = tet_file("tworeg.vtk", pts, cells, types,
                 "CELL_DATA 1\nSCALARS region int\nLOOKUP_TABLE default\n4\n"
                 "SCALARS material int\nLOOKUP_TABLE default\n9\n");
    HS_TEST_OK(hs_mesh_read_vtk(p, NULL, &m));
    HS_TEST_CHECK(m && m->region[0] == 4, "first region array not kept: %d", m ? m->region[0] : 0);
    hs_mesh_destroy(&m);
    /* 5.1 offsets: integer type, start at 0, end at the connectivity size */
    static const char *h51 = "# vtk DataFile Version 5.1\nt\nASCII\nDATASET UNSTRUCTURED_GRID\n"
                             "POINTS 4 double\n0 0 0 1 0 0 0 1 0 0 0 1\n";
    char text[1024];
    snprintf(text, sizeof text, "%sCELLS 2 4\nOFFSETS float\n0 4\n", h51);
    p = rt_write("offfloat.vtk", text);
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 8, "OFFSETS: data type float; expected an "
                                                             "integer type");
    snprintf(text, sizeof text, "%sCELLS 2 4\nOFFSETS vtktypeint64\n1 4\n", h51);
    p = rt_write("off1.vtk", text);
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 9, "first offset is 1");
    snprintf(text, sizeof text, "%sCELLS 2 5\nOFFSETS vtktypeint64\n0 4\n", h51);
    p = rt_write("offend.vtk", text);
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 8, "last offset is 4; expected 5");
    /* binary keyword lines must end where the data starts; counts and values must fit */
    static const char *hb = "# vtk DataFile Version 3.0\nt\nBINARY\nDATASET UNSTRUCTURED_GRID\n";
    snprintf(text, sizeof text, "%sPOINTS 4 double extra\n", hb);
    p = rt_write("bextra.vtk", text);
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 5, "expected 3 fields (POINTS n type)");
    snprintf(text, sizeof text, "%sCELLS 1 9999999999999\n", hb);
    p = rt_write("bhuge.vtk", text);
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 5, "9999999999999 values is too many");
    g_f = rt_open("buint.vtk");
    g_bin = 1;
    fprintf(g_f, "# vtk DataFile Version 5.1\nt\nBINARY\nDATASET UNSTRUCTURED_GRID\n"
                 "CELLS 2 4\nOFFSETS vtktypeuint64\n");
    put('l', -1);
    put('l', 4);
    end_block();
    fclose(g_f);
    p = rt_path("buint.vtk");
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 6, "value 1 of OFFSETS is too large");

    /* Binary: a file cut inside POINTS, and POINTS announcing fewer points than it holds. */
    cube_opts o = {0};
    o.binary = 1;
    p = write_cube("cut.vtk", &o);
    {
        const char *head = "# vtk DataFile Version 3.0\nh2 cube\nBINARY\nDATASET "
                           "UNSTRUCTURED_GRID\nPOINTS 8 float\n";
        HS_TEST_CHECK(truncate(p, (off_t)strlen(head) + 50) == 0, "truncate failed");
    }
    RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 5,
                   "file ended inside the binary data of POINTS: 50 of the 96 bytes");
    {
        g_f = rt_open("long.vtk");
        g_bin = 1;
        fprintf(g_f, "# vtk DataFile Version 3.0\nt\nBINARY\nDATASET UNSTRUCTURED_GRID\n"
                     "POINTS 3 double\n");
        for (int i = 0; i < 12; ++i) put('d', 0.0);
        end_block();
        fclose(g_f);
        p = rt_path("long.vtk");
        RT_EXPECT_FAIL(hs_mesh_read_vtk(p, NULL, &rt_m_), p, 6,
                       "binary data where a keyword was expected; the section before (POINTS, "
                       "line 5)");
    }
}

int main(void)
{
    rt_check_tables();
    rt_setup();
    check_good_files();
    check_orientation();
    check_frame_roundtrip();
    check_quadratic();
    check_malformed();
    rt_teardown();
    HS_TEST_RETURN();
}
