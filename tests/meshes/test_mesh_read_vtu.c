/* XML VTK readers: the unit cube as a .vtu (6 tets, 4 labelled triangles, a vertex, an unused
 * point; region and fibre cell arrays, a point array to skip) in every encoding (ascii, base64,
 * appended raw and base64; zlib; header UInt32/UInt64; little and big endian; Int32 and Int64
 * connectivity) reads back equal to the same mesh as legacy VTK; the cube's surface as a .vtp
 * equals the same surface as OFF; malformed files are refused naming the file, and cells as VTK
 * numbers them. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_mesh.h"
#include "hs_mesh_io.h"
#include "hs_surface.h"
#include "hs_test.h"
#include "mesh_read_test_util.h"
#include "vtk_xml_test_writer.h"

enum { NP = 9, NC = 11 }; /* 8 corners + 1 unused point; 6 tets, 4 triangles, 1 vertex */

static void cube_cells(double *conn, size_t *n_conn, double *off, double *type, double *region,
                       double *fiber)
{
    size_t k = 0;
    int c = 0;
    for (int e = 0; e < 6; ++e, ++c) {
        for (int a = 0; a < 4; ++a) conn[k++] = rt_tets[e][a];
        off[c] = (double)k;
        type[c] = 10;
        region[c] = e < 3 ? 1 : 2;
        rt_fiber(e, fiber + 3 * c);
    }
    for (int t = 0; t < 4; ++t, ++c) {
        for (int a = 0; a < 3; ++a) conn[k++] = rt_tris[t][a];
        off[c] = (double)k;
        type[c] = 5;
        region[c] = rt_tri_label[t];
        fiber[3 * c] = 1, fiber[3 * c + 1] = fiber[3 * c + 2] = 0;
    }
    conn[k++] = 8 - 1; /* a vertex cell on corner 7 */
    off[c] = (double)k;
    type[c] = 1;
    region[c] = 0;
    fiber[3 * c] = 1, fiber[3 * c + 1] = fiber[3 * c + 2] = 0;
    *n_conn = k;
}

static void cube_points(double *xyz)
{
    for (int i = 0; i < 8; ++i) rt_corner(i, xyz + 3 * i);
    xyz[24] = xyz[25] = xyz[26] = 2.0;
}

static const char *write_vtu(const char *name, const vx_opts *o, const char *pt_type)
{
    double xyz[3 * NP], conn[64], off[NC], type[NC], region[NC], fiber[3 * NC], temp[NP];
    size_t nconn;
    cube_points(xyz);
    cube_cells(conn, &nconn, off, type, region, fiber);
    for (int i = 0; i < NP; ++i) temp[i] = 37.0 + i;
    FILE *f = rt_open(name);
    vx_begin(f, o, "UnstructuredGrid");
    fprintf(f, "<Piece NumberOfPoints=\"%d\" NumberOfCells=\"%d\">\n<PointData>\n", NP, NC);
    vx_array(f, o, "Float32", "temperature", 1, temp, NP);
    fprintf(f, "</PointData>\n<CellData Scalars=\"region\">\n");
    vx_array(f, o, "Float64", "pressure", 1, region, NC); /* skipped */
    vx_array(f, o, o->big ? "Int32" : "UInt8", "region", 1, region, NC);
    vx_array(f, o, "Float64", "fibers", 3, fiber, 3 * NC);
    fprintf(f, "</CellData>\n<Points>\n");
    vx_array(f, o, pt_type, "Points", 3, xyz, 3 * NP);
    fprintf(f, "</Points>\n<Cells>\n");
    vx_array(f, o, o->conn_type, "connectivity", 1, conn, nconn);
    vx_array(f, o, o->conn_type, "offsets", 1, off, NC);
    vx_array(f, o, "UInt8", "types", 1, type, NC);
    fprintf(f, "</Cells>\n</Piece>\n");
    vx_end(f, o, "UnstructuredGrid");
    fclose(f);
    return rt_path(name);
}

/* The same cube as legacy VTK (ASCII), the reference. */
static const char *write_legacy(void)
{
    double xyz[3 * NP], conn[64], off[NC], type[NC], region[NC], fiber[3 * NC];
    size_t nconn;
    cube_points(xyz);
    cube_cells(conn, &nconn, off, type, region, fiber);
    FILE *f = rt_open("ref.vtk");
    fprintf(f, "# vtk DataFile Version 3.0\nref\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS %d double\n", NP);
    for (int i = 0; i < NP; ++i) fprintf(f, "%.17g %.17g %.17g\n", xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]);
    fprintf(f, "CELLS %d %zu\n", NC, NC + nconn);
    for (int c = 0, k = 0; c < NC; ++c) {
        fprintf(f, "%d", (int)off[c] - k);
        for (; k < (int)off[c]; ++k) fprintf(f, " %d", (int)conn[k]);
        fprintf(f, "\n");
    }
    fprintf(f, "CELL_TYPES %d\n", NC);
    for (int c = 0; c < NC; ++c) fprintf(f, "%d\n", (int)type[c]);
    fprintf(f, "CELL_DATA %d\nSCALARS region int 1\nLOOKUP_TABLE default\n", NC);
    for (int c = 0; c < NC; ++c) fprintf(f, "%d\n", (int)region[c]);
    fprintf(f, "VECTORS fibers double\n");
    for (int c = 0; c < NC; ++c) fprintf(f, "%.17g %.17g %.17g\n", fiber[3 * c], fiber[3 * c + 1], fiber[3 * c + 2]);
    fclose(f);
    return rt_path("ref.vtk");
}

static void same_mesh(const hs_mesh *a, const hs_mesh *b, const char *what)
{
    HS_TEST_CHECK(a && b, "%s: missing mesh", what);
    if (!a || !b) return;
    HS_TEST_CHECK(a->n_nodes == b->n_nodes && a->n_elems == b->n_elems && a->n_bfaces == b->n_bfaces,
                  "%s: %d/%d nodes, %d/%d elements, %d/%d boundary faces", what, a->n_nodes,
                  b->n_nodes, a->n_elems, b->n_elems, (int)a->n_bfaces, (int)b->n_bfaces);
    if (a->n_nodes != b->n_nodes || a->n_elems != b->n_elems || a->n_bfaces != b->n_bfaces) return;
    int bad = 0;
    for (int64_t i = 0; i < 3 * (int64_t)a->n_nodes; ++i) bad += a->xyz[i] != b->xyz[i];
    for (int32_t i = 0; i < a->n_nodes; ++i) bad += a->node_orig[i] != b->node_orig[i];
    for (int64_t i = 0; i < 4 * (int64_t)a->n_elems; ++i) bad += a->tets[i] != b->tets[i];
    for (int32_t e = 0; e < a->n_elems; ++e) bad += a->region[e] != b->region[e];
    HS_TEST_CHECK((a->fiber != NULL) == (b->fiber != NULL), "%s: fibres present in one only", what);
    if (a->fiber && b->fiber)
        for (int64_t i = 0; i < 3 * (int64_t)a->n_elems; ++i) bad += fabs(a->fiber[i] - b->fiber[i]) > 1e-15;
    for (int64_t i = 0; i < 3 * (int64_t)a->n_bfaces; ++i) bad += a->bface[i] != b->bface[i];
    for (int32_t i = 0; i < a->n_bfaces; ++i) bad += a->bface_label[i] != b->bface_label[i];
    HS_TEST_CHECK(bad == 0, "%s: %d differences from the legacy VTK mesh", what, bad);
}

static void test_encodings(void)
{
    hs_mesh *ref = NULL;
    HS_TEST_OK(hs_mesh_read_file(write_legacy(), NULL, &ref));
    rt_check_cube(ref, 8, 6, "legacy reference");
    static const char *encname[] = {"ascii", "binary", "appended-raw", "appended-base64"};
    int n = 0;
    for (int enc = 0; enc < 4; ++enc)
        for (int z = 0; z < 2; ++z)
            for (int h64 = 0; h64 < 2; ++h64)
                for (int big = 0; big < 2; ++big)
                    for (int i64 = 0; i64 < 2; ++i64) {
                        if (enc == VX_ASCII && (z || h64 || big)) continue;
                        const vx_opts o = {enc, z, h64, big, i64 ? "Int64" : "Int32"};
                        char name[64], what[128];
                        snprintf(name, sizeof name, "c%d.vtu", n++);
                        snprintf(what, sizeof what, "%s zlib=%d header=%s %s %s", encname[enc], z,
                                 h64 ? "UInt64" : "UInt32", big ? "BigEndian" : "LittleEndian",
                                 o.conn_type);
                        hs_mesh *m = NULL;
                        hs_error_clear();
                        const hs_status st = hs_mesh_read_file(write_vtu(name, &o, (n & 1) ? "Float32" : "Float64"), NULL, &m);
                        HS_TEST_CHECK(st == HS_OK, "%s: %s", what, hs_error_message());
                        same_mesh(m, ref, what);
                        hs_mesh_destroy(&m);
                    }
    hs_mesh_destroy(&ref);
}

/* A .vtu text with the given cells (ascii), for refusals. */
static const char *vtu_text(const char *name, const char *types, const char *conn, const char *offs,
                            int ncells)
{
    char buf[4096];
    snprintf(buf, sizeof buf,
             "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\">\n<UnstructuredGrid>\n"
             "<Piece NumberOfPoints=\"8\" NumberOfCells=\"%d\">\n<Points>\n"
             "<DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n"
             "0 0 0 1 0 0 0 1 0 1 1 0 0 0 1 1 0 1 0 1 1 1 1 1\n</DataArray>\n</Points>\n<Cells>\n"
             "<DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">%s</DataArray>\n"
             "<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">%s</DataArray>\n"
             "<DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">%s</DataArray>\n"
             "</Cells>\n</Piece>\n</UnstructuredGrid>\n</VTKFile>\n",
             ncells, conn, offs, types);
    return rt_write(name, buf);
}

static void test_refusals(void)
{
    const char *p = vtu_text("hex.vtu", "10 12", "0 1 3 7 0 1 2 3 4 5 6 7", "4 12", 2);
    RT_EXPECT_FAIL(hs_mesh_read_file(p, NULL, &rt_m_), p, 0, "cell 1 (0-based) is a hexahedron (VTK type 12)");
    p = vtu_text("quad.vtu", "24", "0 1 3 7 0 1 2 3 4 5", "10", 1);
    RT_EXPECT_FAIL(hs_mesh_read_file(p, NULL, &rt_m_), p, 0, "mesh.quadratic = \"linearize\"");
    p = vtu_text("range.vtu", "10", "0 1 3 8", "4", 1);
    RT_EXPECT_FAIL(hs_mesh_read_file(p, NULL, &rt_m_), p, 0, "point 8; the file has 8 points");
    p = vtu_text("offs.vtu", "10 10", "0 1 3 7", "4 2", 2);
    RT_EXPECT_FAIL(hs_mesh_read_file(p, NULL, &rt_m_), p, 0, "offsets");
    p = rt_write("poly.vtu", "<VTKFile type=\"PolyData\"><PolyData><Piece NumberOfPoints=\"0\"/></PolyData></VTKFile>");
    RT_EXPECT_FAIL(hs_mesh_read_file(p, NULL, &rt_m_), p, 0, ".vtp");
    p = rt_write("bad.vtu", "<VTKFile type=\"UnstructuredGrid\"><UnstructuredGrid><Piece");
    RT_EXPECT_FAIL(hs_mesh_read_file(p, NULL, &rt_m_), p, 0, "well-formed");
    p = rt_write("lz4.vtu", "<VTKFile type=\"UnstructuredGrid\" compressor=\"vtkLZ4DataCompressor\"></VTKFile>");
    RT_EXPECT_FAIL(hs_mesh_read_file(p, NULL, &rt_m_), p, 1, "vtkLZ4DataCompressor");
    /* hs_mesh_check names the file and the cell as VTK numbers it (the skipped triangle counts) */
    p = vtu_text("inv.vtu", "5 10 10", "0 1 2 0 1 3 7 0 3 1 7", "3 7 11", 3);
    hs_mesh *mv = NULL;
    HS_TEST_OK(hs_mesh_read_file(p, NULL, &mv));
    if (mv) {
        hs_error_clear();
        HS_TEST_CHECK(hs_mesh_check(mv) == HS_ERR_MESH, "inverted cell passed");
        char want[400];
        snprintf(want, sizeof want, "%s: element 2 (nodes 0 3 1 7) is inverted", p);
        HS_TEST_CHECK(strstr(hs_error_message(), want) != NULL &&
                          strstr(hs_error_message(), "VTK cell and point indices, 0-based") != NULL,
                      "message \"%s\" lacks \"%s\"", hs_error_message(), want);
        hs_error_clear();
        hs_mesh_destroy(&mv);
    }
    /* text of child elements (VTK writes <InformationKey> ranges inside DataArrays) is not data */
    p = rt_write("info.vtu",
                 "<VTKFile type=\"UnstructuredGrid\"><UnstructuredGrid><Piece NumberOfPoints=\"4\" "
                 "NumberOfCells=\"1\"><Points><DataArray type=\"Float32\" NumberOfComponents=\"3\" "
                 "format=\"ascii\">0 0 0 1 0 0\n0 1 0 0 0 1\n<InformationKey name=\"L2_NORM_RANGE\">"
                 "<Value index=\"0\">0</Value><Value index=\"1\">1</Value></InformationKey>\n"
                 "</DataArray></Points><Cells><DataArray type=\"Int32\" Name=\"connectivity\" "
                 "format=\"ascii\">0 1 2 3</DataArray><DataArray type=\"Int32\" Name=\"offsets\" "
                 "format=\"ascii\">4</DataArray><DataArray type=\"UInt8\" Name=\"types\" "
                 "format=\"ascii\">10</DataArray></Cells></Piece></UnstructuredGrid></VTKFile>\n");
    hs_mesh *mi = NULL;
    hs_error_clear();
    HS_TEST_CHECK(hs_mesh_read_file(p, NULL, &mi) == HS_OK && mi && mi->n_nodes == 4,
                  "InformationKey inside a DataArray: %s", hs_error_message());
    hs_mesh_destroy(&mi);
    /* appended data cut short */
    const vx_opts o = {VX_APPENDED_RAW, 1, 0, 0, "Int32"};
    const char *full = write_vtu("cut.vtu", &o, "Float64");
    FILE *f = fopen(full, "rb");
    static char buf[1 << 16];
    const size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    f = fopen(full, "wb");
    fwrite(buf, 1, n - 60, f);
    fclose(f);
    RT_EXPECT_FAIL(hs_mesh_read_file(full, NULL, &rt_m_), full, 0, "DataArray");
    /* linearised quadratic tet keeps the corners */
    p = vtu_text("quad2.vtu", "24", "0 1 3 7 0 1 2 3 4 5", "10", 1);
    const hs_mesh_read_opts lin = {.linearize = 1};
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_read_file(p, &lin, &m));
    HS_TEST_CHECK(m && m->n_nodes == 4 && m->n_elems == 1, "linearised quadratic tet");
    hs_mesh_destroy(&m);
}

/* ---- .vtp ------------------------------------------------------------------------------------ */

static const int quads[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                                {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};

static const char *write_vtp(const char *name, const vx_opts *o)
{
    double xyz[24], conn[24], off[6], mark[7], vconn[1] = {0}, voff[1] = {1};
    for (int i = 0; i < 8; ++i) rt_corner(i, xyz + 3 * i);
    for (int q = 0; q < 6; ++q) {
        for (int k = 0; k < 4; ++k) conn[4 * q + k] = quads[q][k];
        off[q] = 4 * (q + 1);
    }
    mark[0] = 99; /* the vertex cell comes first in cell data */
    for (int q = 0; q < 6; ++q) mark[q + 1] = 10 + q;
    FILE *f = rt_open(name);
    vx_begin(f, o, "PolyData");
    fprintf(f, "<Piece NumberOfPoints=\"8\" NumberOfVerts=\"1\" NumberOfLines=\"0\" NumberOfStrips=\"0\" NumberOfPolys=\"6\">\n<CellData>\n");
    vx_array(f, o, "Int32", "CellEntityIds", 1, mark, 7);
    fprintf(f, "</CellData>\n<Points>\n");
    vx_array(f, o, "Float32", "Points", 3, xyz, 24);
    fprintf(f, "</Points>\n<Verts>\n");
    vx_array(f, o, o->conn_type, "connectivity", 1, vconn, 1);
    vx_array(f, o, o->conn_type, "offsets", 1, voff, 1);
    fprintf(f, "</Verts>\n<Polys>\n");
    vx_array(f, o, o->conn_type, "connectivity", 1, conn, 24);
    vx_array(f, o, o->conn_type, "offsets", 1, off, 6);
    fprintf(f, "</Polys>\n</Piece>\n");
    vx_end(f, o, "PolyData");
    fclose(f);
    return rt_path(name);
}

static void test_vtp(void)
{
    char off[1024];
    int len = snprintf(off, sizeof off, "OFF\n8 6 0\n");
    for (int i = 0; i < 8; ++i) len += snprintf(off + len, sizeof off - len, "%d %d %d\n", i & 1, (i >> 1) & 1, (i >> 2) & 1);
    for (int q = 0; q < 6; ++q)
        len += snprintf(off + len, sizeof off - len, "4 %d %d %d %d\n", quads[q][0], quads[q][1], quads[q][2], quads[q][3]);
    hs_surface *ref = NULL;
    HS_TEST_OK(hs_surface_read(rt_write("cube.off", off), 2.0, 0.0, &ref));
    for (int enc = 0; enc < 4; ++enc)
        for (int z = 0; z < 2; ++z) {
            if (enc == VX_ASCII && z) continue;
            const vx_opts o = {enc, z, z, enc == 2, z ? "Int64" : "Int32"};
            char name[32];
            snprintf(name, sizeof name, "s%d%d.vtp", enc, z);
            hs_surface *s = NULL;
            hs_error_clear();
            const hs_status st = hs_surface_read(write_vtp(name, &o), 2.0, 0.0, &s);
            HS_TEST_CHECK(st == HS_OK, "vtp enc %d zlib %d: %s", enc, z, hs_error_message());
            if (st != HS_OK) continue;
            int bad = s->n_points != ref->n_points || s->n_facets != ref->n_facets;
            for (int i = 0; !bad && i < 24; ++i) bad += s->xyz[i] != ref->xyz[i];
            for (int i = 0; !bad && i <= 6; ++i) bad += s->facet_ptr[i] != ref->facet_ptr[i];
            for (int i = 0; !bad && i < 24; ++i) bad += s->facet_idx[i] != ref->facet_idx[i];
            for (int q = 0; !bad && q < 6; ++q) bad += s->facet_marker[q] != 10 + q;
            HS_TEST_CHECK(bad == 0, "vtp enc %d zlib %d differs from the OFF cube", enc, z);
            hs_surface_report rep;
            HS_TEST_OK(hs_surface_check(s, name, &rep));
            HS_TEST_NEAR(rep.volume, 8.0, 1e-12, "vtp cube volume (scale 2)");
            hs_surface_destroy(&s);
        }
    hs_surface_destroy(&ref);
    /* a .vtp given as a volume mesh says which source reads it */
    const vx_opts o = {VX_ASCII, 0, 0, 0, "Int32"};
    const char *p = write_vtp("vol.vtp", &o);
    RT_EXPECT_FAIL(hs_mesh_read_file(p, NULL, &rt_m_), p, 0, "mesh.source = \"surface\"");
    hs_surface *s = NULL;
    p = rt_write("strip.vtp", "<VTKFile type=\"PolyData\"><PolyData><Piece NumberOfPoints=\"3\" NumberOfStrips=\"1\"></Piece></PolyData></VTKFile>");
    hs_error_clear();
    HS_TEST_CHECK(hs_surface_read(p, 1.0, 0.0, &s) == HS_ERR_MESH && strstr(hs_error_message(), "Triangulate"),
                  "strips refused: %s", hs_error_message());
    p = rt_write("ug.vtp", "<VTKFile type=\"UnstructuredGrid\"><UnstructuredGrid><Piece NumberOfPoints=\"3\"/></UnstructuredGrid></VTKFile>");
    hs_error_clear();
    HS_TEST_CHECK(hs_surface_read(p, 1.0, 0.0, &s) == HS_ERR_MESH && strstr(hs_error_message(), p),
                  "UnstructuredGrid in .vtp refused naming the file: %s", hs_error_message());
    hs_error_clear();
}

int main(void)
{
    rt_setup();
    rt_check_tables();
    test_encodings();
    test_refusals();
    test_vtp();
    rt_teardown();
    HS_TEST_RETURN();
}
