/* Surface readers (meshes/surface_*.c): a unit cube written as ASCII and binary STL, OFF, PLY
 * (ascii and binary), TetGen .poly (inline points and a .node beside it) and .smesh must all read
 * as 8 points enclosing volume 1 (1000 after scale 10), and malformed files must fail with
 * messages that name the file and, for text, the line. Files go into a fresh temporary
 * directory. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_registry.h"
#include "hs_surface.h"
#include "hs_test.h"
#include "hs_util.h"

static char g_dir[256];
static char g_paths[64][320];
static int g_n_paths;

/* Path of a file in the test directory (remembered for removal). */
static const char *tmp_path(const char *name)
{
    for (int i = 0; i < g_n_paths; ++i) {
        const char *base = strrchr(g_paths[i], '/') + 1;
        if (strcmp(base, name) == 0) return g_paths[i];
    }
    if (g_n_paths == 64) return "/nonexistent/too-many-files";
    snprintf(g_paths[g_n_paths], sizeof g_paths[0], "%s/%s", g_dir, name);
    return g_paths[g_n_paths++];
}

static const char *write_bytes(const char *name, const void *data, size_t n)
{
    const char *p = tmp_path(name);
    FILE *f = fopen(p, "wb");
    HS_TEST_CHECK(f != NULL, "cannot write %s", p);
    if (f) {
        fwrite(data, 1, n, f);
        fclose(f);
    }
    return p;
}

static const char *write_text(const char *name, const char *text)
{
    return write_bytes(name, text, strlen(text));
}

/* ---- the cube ---- */

static const double k_pts[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                   {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
/* Faces seen from outside counter-clockwise: z=0, z=1, y=0, y=1, x=0, x=1. */
static const int k_quads[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4},
                                  {2, 3, 7, 6}, {0, 4, 7, 3}, {1, 2, 6, 5}};

static void tri(int t, int v[3])
{
    const int *q = k_quads[t / 2];
    v[0] = q[0];
    v[1] = t % 2 ? q[2] : q[1];
    v[2] = t % 2 ? q[3] : q[2];
}

/* Read, check the surface, compare with the cube scaled by `scale`. */
static void expect_cube(const char *path, double scale, int n_facets, hs_surface **keep)
{
    hs_surface *s = NULL;
    hs_error_clear();
    HS_TEST_OK(hs_surface_read(path, scale, 0.0, &s));
    if (!s) return;
    HS_TEST_CHECK(s->n_points == 8, "%s: %d points, expected 8", path, (int)s->n_points);
    HS_TEST_CHECK(s->n_facets == n_facets, "%s: %d facets, expected %d", path, (int)s->n_facets,
                  n_facets);
    hs_surface_report rep;
    memset(&rep, 0, sizeof rep);
    HS_TEST_OK(hs_surface_check(s, path, &rep));
    const double s3 = scale * scale * scale;
    HS_TEST_NEAR(rep.volume, s3, 1e-12 * s3, path);
    HS_TEST_NEAR(rep.area, 6 * scale * scale, 1e-12 * scale * scale, path);
    HS_TEST_CHECK(rep.n_components == 1 && rep.n_flipped == 0 && rep.n_shells_inverted == 0,
                  "%s: %d shells, %d flipped, %d inverted", path, (int)rep.n_components,
                  (int)rep.n_flipped, (int)rep.n_shells_inverted);
    HS_TEST_NEAR(rep.bbox_max[0] - rep.bbox_min[0], scale, 1e-12 * scale, "bbox x");
    if (keep) *keep = s;
    else hs_surface_destroy(&s);
}

/* Expect hs_surface_read to fail with HS_ERR_MESH and a message holding `want` and `want2`. */
static void expect_fail(const char *path, const char *want, const char *want2)
{
    hs_surface *s = NULL;
    hs_error_clear();
    const hs_status st = hs_surface_read(path, 1.0, 0.0, &s);
    const char *msg = hs_error_message();
    HS_TEST_CHECK(st == HS_ERR_MESH, "%s: status %d, expected HS_ERR_MESH (%s)", path, (int)st,
                  msg);
    HS_TEST_CHECK(s == NULL, "%s: a surface came back on error", path);
    HS_TEST_CHECK(strstr(msg, want) != NULL, "%s: message lacks \"%s\": %s", path, want, msg);
    if (want2)
        HS_TEST_CHECK(strstr(msg, want2) != NULL, "%s: message lacks \"%s\": %s", path, want2,
                      msg);
    hs_surface_destroy(&s);
    hs_error_clear();
}

/* "<path>:<line>:" as messages write it. */
static const char *at_line(const char *path, int line)
{
    static char buf[8][400];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s:%d:", path, line);
    return buf[k];
}

/* ---- STL ---- */

static void append(char **s, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#include <stdarg.h>
static void append(char **s, size_t *len, size_t *cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char tmp[256];
    const int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (*len + (size_t)n + 1 > *cap) {
        *cap = 2 * (*len + (size_t)n + 1);
        *s = realloc(*s, *cap);
    }
    memcpy(*s + *len, tmp, (size_t)n + 1);
    *len += (size_t)n;
}

static char *ascii_stl(void)
{
    char *s = NULL;
    size_t len = 0, cap = 0;
    append(&s, &len, &cap, "solid cube made by hand\n");
    for (int t = 0; t < 12; ++t) {
        int v[3];
        tri(t, v);
        /* Mixed-case keywords and CRLF on one facet: both occur in real files. */
        append(&s, &len, &cap, t == 3 ? "  FACET NORMAL 0 0 0\r\n    OUTER LOOP\r\n"
                                      : "  facet normal 0 0 0\n    outer loop\n");
        for (int k = 0; k < 3; ++k)
            append(&s, &len, &cap, "      vertex %g %g %g\n", k_pts[v[k]][0], k_pts[v[k]][1],
                   k_pts[v[k]][2]);
        append(&s, &len, &cap, "    endloop\n  endfacet\n");
    }
    append(&s, &len, &cap, "endsolid cube made by hand\n");
    return s;
}

static void put_u32(unsigned char *p, uint32_t u)
{
    for (int k = 0; k < 4; ++k) p[k] = (unsigned char)(u >> (8 * k));
}

static void put_f32(unsigned char *p, float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    put_u32(p, u);
}

/* Binary STL of the cube; header text as given (may start with "solid"). */
static size_t binary_stl(unsigned char *buf, const char *header)
{
    memset(buf, 0, 84 + 50 * 12);
    memcpy(buf, header, strlen(header));
    put_u32(buf + 80, 12);
    for (int t = 0; t < 12; ++t) {
        unsigned char *r = buf + 84 + 50 * t;
        int v[3];
        tri(t, v);
        for (int k = 0; k < 3; ++k)
            for (int d = 0; d < 3; ++d) put_f32(r + 12 + 12 * k + 4 * d, (float)k_pts[v[k]][d]);
    }
    return 84 + 50 * 12;
}

static void test_stl(void)
{
    char *text = ascii_stl();
    const char *p = write_text("cube_ascii.stl", text);
    expect_cube(p, 1.0, 12, NULL);
    /* cm -> mm, and the extension matched case-insensitively. */
    hs_surface *s = NULL;
    expect_cube(write_text("cube_ascii_cm.STL", text), 10.0, 12, &s);
    if (s) {
        HS_TEST_CHECK(s->n_points_welded == 36 - 8, "welded %d, expected 28",
                      (int)s->n_points_welded);
        hs_surface_destroy(&s);
    }
    free(text);

    unsigned char bin[84 + 50 * 12];
    const size_t n = binary_stl(bin, "binary cube, no solid keyword");
    expect_cube(write_bytes("cube_bin.stl", bin, n), 1.0, 12, NULL);
    /* A binary header that starts with "solid": recognised by its size. */
    binary_stl(bin, "solid but binary");
    expect_cube(write_bytes("cube_bin_solid.stl", bin, n), 1.0, 12, NULL);

    /* Welding tolerance: a corner moved by 1e-4 welds with tol 1e-3, not with the default. */
    binary_stl(bin, "nudged");
    put_f32(bin + 84 + 12, 1e-4f); /* triangle 0, corner 0 = point 0, x */
    const char *nudged = write_bytes("cube_nudged.stl", bin, n);
    HS_TEST_OK(hs_surface_read_stl(nudged, 1.0, 1e-3, &s));
    HS_TEST_CHECK(s && s->n_points == 8, "tolerance 1e-3: %d points, expected 8",
                  s ? (int)s->n_points : -1);
    hs_surface_destroy(&s);
    HS_TEST_OK(hs_surface_read_stl(nudged, 1.0, 0.0, &s));
    HS_TEST_CHECK(s && s->n_points == 9, "default tolerance: %d points, expected 9",
                  s ? (int)s->n_points : -1);
    hs_surface_destroy(&s);

    /* Truncated binary: the header announces 12 triangles, the file ends inside the 6th. */
    binary_stl(bin, "truncated");
    expect_fail(write_bytes("trunc.stl", bin, 84 + 50 * 5 + 20), "trunc.stl",
                "ends inside triangle 5");
    /* Too short for either kind. */
    expect_fail(write_text("short.stl", "not an stl\n"), "short.stl", "too short");

    const char *two = write_text("two.stl", "solid t\n facet normal 0 0 1\n  outer loop\n"
                                            "   vertex 0 0 0\n   vertex 1 0 0\n  endloop\n"
                                            " endfacet\nendsolid t\n");
    expect_fail(two, at_line(two, 6), "has 2 vertices");
    const char *four = write_text("four.stl", "solid t\nfacet normal 0 0 1\nouter loop\n"
                                              "vertex 0 0 0\nvertex 1 0 0\nvertex 1 1 0\n"
                                              "vertex 0 1 0\nendloop\nendfacet\nendsolid\n");
    expect_fail(four, at_line(four, 7), "fourth vertex");
    const char *badnum = write_text("badnum.stl", "solid t\nfacet normal 0 0 1\nouter loop\n"
                                                  "vertex 0 0 zero\n");
    expect_fail(badnum, at_line(badnum, 4), "z coordinate");
    const char *cut = write_text("cut.stl", "solid t\nfacet normal 0 0 1\nouter loop\n"
                                            "vertex 0 0 0\n");
    expect_fail(cut, at_line(cut, 4), "ended inside the facet starting on line 2");
    const char *kw = write_text("kw.stl", "solid t\nfacet normal 0 0 1\nloop\n");
    expect_fail(kw, at_line(kw, 3), "expected 'outer loop'");
    expect_fail(write_text("nofacets.stl", "solid t\nendsolid t\n"), "nofacets.stl",
                "no facets");
    expect_fail(write_text("empty.stl", ""), "empty.stl", "empty");
}

/* ---- OFF ---- */

static void test_off(void)
{
    char text[2048];
    size_t len = 0;
    len += (size_t)snprintf(text + len, sizeof text - len,
                            "OFF # unit cube with quads\n# comment line\n\n8 6 12\n");
    for (int i = 0; i < 8; ++i)
        len += (size_t)snprintf(text + len, sizeof text - len, "%g %g %g\n", k_pts[i][0],
                                k_pts[i][1], k_pts[i][2]);
    for (int q = 0; q < 6; ++q)
        len += (size_t)snprintf(text + len, sizeof text - len, "4 %d %d %d %d%s\n",
                                k_quads[q][0], k_quads[q][1], k_quads[q][2], k_quads[q][3],
                                q == 2 ? " 255 0 0 # with a colour" : "");
    hs_surface *s = NULL;
    expect_cube(write_text("cube.off", text), 1.0, 6, &s);
    if (s) {
        HS_TEST_CHECK(s->facet_ptr[6] == 24, "quads: %d corners, expected 24",
                      (int)s->facet_ptr[6]);
        hs_surface_destroy(&s);
    }

    /* COFF with colours on vertices and the counts on the keyword's line. */
    len = (size_t)snprintf(text, sizeof text, "COFF 8 12 0\n");
    for (int i = 0; i < 8; ++i)
        len += (size_t)snprintf(text + len, sizeof text - len, "%g %g %g 0.5 0.5 0.5 1\n",
                                k_pts[i][0], k_pts[i][1], k_pts[i][2]);
    for (int t = 0; t < 12; ++t) {
        int v[3];
        tri(t, v);
        len += (size_t)snprintf(text + len, sizeof text - len, "3 %d %d %d\n", v[0], v[1], v[2]);
    }
    expect_cube(write_text("cube_c.off", text), 10.0, 12, NULL);

    const char *range = write_text("range.off", "OFF\n4 1 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n"
                                                "# faces\n3 0 1 4\n");
    expect_fail(range, at_line(range, 8), "vertex index 4 out of range");
    const char *small = write_text("small.off", "OFF\n4 1 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n"
                                                "2 0 1\n");
    expect_fail(small, at_line(small, 7), "has 2 vertices");
    const char *shortface = write_text("shortface.off", "OFF\n4 1 0\n0 0 0\n1 0 0\n0 1 0\n"
                                                        "0 0 1\n3 0 1\n");
    expect_fail(shortface, at_line(shortface, 7), "announces 3 vertices but lists 2");
    const char *early = write_text("early.off", "OFF\n4 2 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n"
                                                "3 0 1 2\n");
    expect_fail(early, at_line(early, 7), "ended after 1 of the 2 faces");
    const char *more = write_text("more.off", "OFF\n4 1 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n"
                                              "3 0 1 2\n3 0 1 3\n");
    expect_fail(more, at_line(more, 8), "unexpected data");
    const char *four = write_text("four.off", "4OFF\n1 1 0\n0 0 0 0\n");
    expect_fail(four, at_line(four, 1), "4D and nD");
    const char *kw = write_text("kw.off", "OFFX\n");
    expect_fail(kw, at_line(kw, 1), "expected the OFF keyword");
    const char *neg = write_text("neg.off", "OFF\n-4 1 0\n");
    expect_fail(neg, at_line(neg, 2), "number of vertices = -4");
    expect_fail(write_text("empty.off", "# nothing\n"), "empty.off:1:", "empty");
}

/* ---- PLY ---- */

static void test_ply(void)
{
    char text[4096];
    size_t len = (size_t)snprintf(text, sizeof text,
                                  "ply\nformat ascii 1.0\ncomment unit cube\n"
                                  "element vertex 8\nproperty float x\nproperty float y\n"
                                  "property float z\nproperty float nx\n"
                                  "element face 12\nproperty list uchar int vertex_indices\n"
                                  "element note 1\nproperty list uchar uchar text\n"
                                  "end_header\n");
    for (int i = 0; i < 8; ++i)
        len += (size_t)snprintf(text + len, sizeof text - len, "%g %g %g 0.25\n", k_pts[i][0],
                                k_pts[i][1], k_pts[i][2]);
    for (int t = 0; t < 12; ++t) {
        int v[3];
        tri(t, v);
        len += (size_t)snprintf(text + len, sizeof text - len, "3 %d %d %d\n", v[0], v[1], v[2]);
    }
    len += (size_t)snprintf(text + len, sizeof text - len, "2 104 105\n");
    expect_cube(write_text("cube_ascii.ply", text), 1.0, 12, NULL);

    /* Binary: double x y z between other properties, quads with a uchar count, an int flag after
     * the list, and an element to skip before the faces. */
    const char *hdr = "ply\nformat binary_little_endian 1.0\n"
                      "element vertex 8\nproperty uchar red\nproperty double x\n"
                      "property double y\nproperty double z\nproperty float nx\n"
                      "element edge 1\nproperty int vertex1\nproperty int vertex2\n"
                      "element face 6\nproperty list uchar uint vertex_indices\n"
                      "property int flags\nend_header\n";
    unsigned char bin[1024];
    size_t n = strlen(hdr);
    memcpy(bin, hdr, n);
    for (int i = 0; i < 8; ++i) {
        bin[n++] = 200;
        for (int d = 0; d < 3; ++d) {
            memcpy(bin + n, &k_pts[i][d], 8); /* the test host is little-endian (x86, arm64) */
            n += 8;
        }
        put_f32(bin + n, 0.5f);
        n += 4;
    }
    put_u32(bin + n, 0);
    put_u32(bin + n + 4, 1);
    n += 8;
    const size_t face_start = n;
    for (int q = 0; q < 6; ++q) {
        bin[n++] = 4;
        for (int k = 0; k < 4; ++k, n += 4) put_u32(bin + n, (uint32_t)k_quads[q][k]);
        put_u32(bin + n, 7);
        n += 4;
    }
    expect_cube(write_bytes("cube_bin.ply", bin, n), 10.0, 6, NULL);
    /* Truncated inside face 2. */
    expect_fail(write_bytes("trunc.ply", bin, face_start + 2 * 21 + 5), "trunc.ply: face 2",
                "truncated");
    /* Vertex index out of range in binary: names the face and its byte offset. */
    put_u32(bin + face_start + 1, 8);
    expect_fail(write_bytes("range.ply", bin, n), "range.ply: face 0 (0-based) at byte",
                "vertex index 8 out of range");

    const char *fmt = write_text("fmt.ply", "ply\nformat utf8 1.0\nend_header\n");
    expect_fail(fmt, at_line(fmt, 2), "unknown PLY format 'utf8'");
    const char *be = write_text("be.ply", "ply\nformat binary_big_endian 1.0\nend_header\n");
    expect_fail(be, at_line(be, 2), "binary_big_endian PLY is not supported");
    expect_fail(write_text("notply.ply", "PLY?\n"), "notply.ply:1:", "not a PLY file");
    const char *noface = write_text("noface.ply", "ply\nformat ascii 1.0\nelement vertex 3\n"
                                                  "property float x\nproperty float y\n"
                                                  "property float z\nend_header\n");
    expect_fail(noface, "noface.ply", "no 'face' element");
    const char *noz = write_text("noz.ply", "ply\nformat ascii 1.0\nelement vertex 3\n"
                                            "property float x\nproperty float y\n"
                                            "element face 1\n"
                                            "property list uchar int vertex_indices\n"
                                            "end_header\n");
    expect_fail(noz, at_line(noz, 3), "x, y and z");
    const char *type = write_text("type.ply", "ply\nformat ascii 1.0\nelement vertex 3\n"
                                              "property quad x\n");
    expect_fail(type, at_line(type, 4), "unknown PLY property type 'quad'");
    const char *head = write_text("head.ply", "ply\nformat ascii 1.0\nelement vertex 3\n");
    expect_fail(head, at_line(head, 3), "no 'end_header'");
    const char *body = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                       "property float y\nproperty float z\nelement face 1\n"
                       "property list uchar int vertex_indices\nend_header\n"
                       "0 0 0\n1 0 0\n0 1 0\n";
    snprintf(text, sizeof text, "%s3 0 1 3\n", body);
    const char *ar = write_text("arange.ply", text);
    expect_fail(ar, at_line(ar, 13), "vertex index 3 out of range");
    snprintf(text, sizeof text, "%s3 0 1 2 9\n", body);
    const char *extra = write_text("extra.ply", text);
    expect_fail(extra, at_line(extra, 13), "left over");
    snprintf(text, sizeof text, "%s", body);
    const char *fewer = write_text("fewer.ply", text);
    expect_fail(fewer, at_line(fewer, 12), "ended after 0 of the 1 'face' elements");
    expect_fail(write_text("empty.ply", ""), "empty.ply:1:", "not a PLY file");
}

/* ---- TetGen .poly / .smesh ---- */

static void test_poly(void)
{
    /* 1-based points with an attribute and markers; each cube side one facet with marker 1..6,
     * except the top (z=1), given as one facet of two triangles plus a segment (skipped). */
    char text[4096];
    size_t len = (size_t)snprintf(text, sizeof text, "# cube\n8 3 1 1\n");
    for (int i = 0; i < 8; ++i)
        len += (size_t)snprintf(text + len, sizeof text - len, "%d %g %g %g 0.5 %d\n", i + 1,
                                k_pts[i][0], k_pts[i][1], k_pts[i][2], i % 2);
    len += (size_t)snprintf(text + len, sizeof text - len, "6 1\n");
    for (int q = 0; q < 6; ++q) {
        const int *v = k_quads[q];
        if (q == 1)
            len += (size_t)snprintf(text + len, sizeof text - len,
                                    "3 0 %d\n3 %d %d %d\n3 %d %d %d\n2 %d %d\n", q + 1, v[0] + 1,
                                    v[1] + 1, v[2] + 1, v[0] + 1, v[2] + 1, v[3] + 1, v[0] + 1,
                                    v[2] + 1);
        else
            len += (size_t)snprintf(text + len, sizeof text - len, "1 0 %d\n4 %d %d %d %d\n",
                                    q + 1, v[0] + 1, v[1] + 1, v[2] + 1, v[3] + 1);
    }
    len += (size_t)snprintf(text + len, sizeof text - len,
                            "1\n1 5 5 5  # a hole outside, kept as given\n"
                            "1\n1 0.5 0.5 0.5 3 0.01\n");
    hs_surface *s = NULL;
    expect_cube(write_text("cube.poly", text), 10.0, 7, &s);
    if (s) {
        const int want[7] = {1, 2, 2, 3, 4, 5, 6};
        for (int f = 0; f < 7 && f < s->n_facets; ++f)
            HS_TEST_CHECK(s->facet_marker[f] == want[f], "facet %d marker %d, expected %d", f,
                          (int)s->facet_marker[f], want[f]);
        HS_TEST_CHECK(s->n_holes == 1 && s->holes[0] == 50.0, "holes: %d", (int)s->n_holes);
        HS_TEST_CHECK(s->n_regions == 1, "regions: %d", (int)s->n_regions);
        if (s->n_regions == 1) {
            HS_TEST_NEAR(s->regions[0], 5.0, 1e-12, "region x (scaled)");
            HS_TEST_NEAR(s->regions[3], 3.0, 0.0, "region attribute");
            HS_TEST_NEAR(s->regions[4], 10.0, 1e-12, "region max volume (scaled by 1000)");
        }
        hs_surface_destroy(&s);
    }

    /* Points in a .node beside the .poly (0-based), no markers, no parts 3 and 4. */
    len = (size_t)snprintf(text, sizeof text, "8 3 0 0\n");
    for (int i = 0; i < 8; ++i)
        len += (size_t)snprintf(text + len, sizeof text - len, "%d %g %g %g\n", i, k_pts[i][0],
                                k_pts[i][1], k_pts[i][2]);
    write_text("side.node", text);
    len = (size_t)snprintf(text, sizeof text, "0 3 0 0\n6 0\n");
    for (int q = 0; q < 6; ++q)
        len += (size_t)snprintf(text + len, sizeof text - len, "1\n4 %d %d %d %d\n",
                                k_quads[q][0], k_quads[q][1], k_quads[q][2], k_quads[q][3]);
    expect_cube(write_text("side.poly", text), 1.0, 6, NULL);
    expect_fail(write_text("lonely.poly", "0 3 0 0\n"), "lonely.node", "declares 0 points");

    /* .smesh: 0-based, markers, triangles, holes and regions empty. */
    len = (size_t)snprintf(text, sizeof text, "8 3 0 0\n");
    for (int i = 0; i < 8; ++i)
        len += (size_t)snprintf(text + len, sizeof text - len, "%d %g %g %g\n", i, k_pts[i][0],
                                k_pts[i][1], k_pts[i][2]);
    len += (size_t)snprintf(text + len, sizeof text - len, "12 1\n");
    for (int t = 0; t < 12; ++t) {
        int v[3];
        tri(t, v);
        len += (size_t)snprintf(text + len, sizeof text - len, "3 %d %d %d %d\n", v[0], v[1],
                                v[2], 10 + t / 2);
    }
    len += (size_t)snprintf(text + len, sizeof text - len, "0\n0\n");
    expect_cube(write_text("cube.smesh", text), 1.0, 12, &s);
    if (s) {
        HS_TEST_CHECK(s->facet_marker[0] == 10 && s->facet_marker[11] == 15,
                      "smesh markers %d %d, expected 10 and 15", (int)s->facet_marker[0],
                      (int)s->facet_marker[11]);
        hs_surface_destroy(&s);
    }

    const char *pts = "4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n";
    snprintf(text, sizeof text, "%s1 0\n1 1 # facet with a hole\n3 0 1 2\n1 0.2 0.2 0\n", pts);
    const char *hole = write_text("hole.poly", text);
    expect_fail(hole, at_line(hole, 7), "facet holes are not supported");
    snprintf(text, sizeof text, "%s1 0\n1\n3 0 1 4\n", pts);
    const char *range = write_text("range.poly", text);
    expect_fail(range, at_line(range, 8), "corner index 4 out of range");
    snprintf(text, sizeof text, "%s1 0\n3 0 1 2 7\n", pts);
    const char *mark = write_text("mark.smesh", text);
    expect_fail(mark, at_line(mark, 7), "no boundary markers");
    snprintf(text, sizeof text, "%s1 0\n2 0 1\n", pts);
    const char *seg = write_text("seg.smesh", text);
    expect_fail(seg, at_line(seg, 7), "a polygon with 2 corners");
    const char *base = write_text("base.poly", "4 3 0 0\n2 0 0 0\n");
    expect_fail(base, at_line(base, 2), "expected 0 or 1");
    const char *seq = write_text("seq.poly", "4 3 0 0\n0 0 0 0\n2 0 0 0\n");
    expect_fail(seq, at_line(seq, 3), "expected point index 1");
    const char *nf = write_text("nofacets.poly", pts);
    expect_fail(nf, at_line(nf, 5), "facet header");
    snprintf(text, sizeof text, "%s1 0\n3 0 1 2\n0\n1\n1 0 0 0\n", pts);
    const char *reg = write_text("reg.smesh", text);
    expect_fail(reg, at_line(reg, 10), "region attribute");
    expect_fail(write_text("empty.poly", ""), "empty.poly:1:", "no header line");
}

/* ---- dispatch ---- */

static void test_dispatch(void)
{
    hs_surface *s = NULL;
    char missing[400];
    snprintf(missing, sizeof missing, "%s/does_not_exist.stl", g_dir);
    expect_fail(missing, "cannot open STL file", "does_not_exist.stl");
    snprintf(missing, sizeof missing, "%s/does_not_exist.off", g_dir);
    expect_fail(missing, "cannot open OFF file", "does_not_exist.off");
    expect_fail(write_text("cube.obj", "v 0 0 0\n"), "unknown surface format '.obj'",
                ".stl, .off, .ply, .poly, .smesh");
    expect_fail(write_text("noext", "x\n"), "noext", "no extension");
    expect_fail(write_text("dir.stl.d", "x\n"), "unknown surface format '.d'", "(known: .stl, .off");

    /* The list (hs_surface_readers over hs_surface_reader_list.h): lower-case extensions, each found
     * by its name; the messages above list exactly its names. */
    const hs_registry *r = hs_surface_readers();
    char names[256], want[300];
    hs_registry_names(r, names, sizeof names);
    HS_TEST_CHECK(strcmp(names, ".stl, .off, .ply, .poly, .smesh, .vtp") == 0, "names: %s", names);
    for (size_t i = 0; i < r->count; ++i) {
        const hs_surface_reader *e = hs_registry_at(r, i);
        HS_TEST_CHECK(e->name[0] == '.' && e->read && e->summary, "reader %zu: incomplete entry", i);
        HS_TEST_CHECK(hs_registry_find(r, e->name) == e, "find(%s)", e->name);
    }
    const hs_surface_reader *stl = hs_registry_find(r, ".stl");
    HS_TEST_CHECK(stl && !strncmp(stl->summary, "STL", 3) && !stl->label_arrays, ".stl is not the STL reader");
    const hs_surface_reader *vtp = hs_registry_find(r, ".vtp");
    HS_TEST_CHECK(vtp && vtp->label_arrays, ".vtp does not take its labels from a named array");
    HS_TEST_CHECK(hs_registry_find(r, ".STL") == NULL && hs_registry_find(r, ".obj") == NULL,
                  "names are exact and lower case");
    const char *obj = tmp_path("cube.obj");
    hs_error_clear();
    HS_TEST_CHECK(hs_surface_read(obj, 1.0, 0.0, &s) == HS_ERR_MESH, "cube.obj was read");
    snprintf(want, sizeof want, "%s: unknown surface format '.obj' (known: %s)", obj, names);
    HS_TEST_CHECK(strcmp(hs_error_message(), want) == 0, "message \"%s\", want \"%s\"", hs_error_message(), want);
    hs_error_clear();
    hs_error_clear();
    HS_TEST_CHECK(hs_surface_read(tmp_path("cube.off"), -1.0, 0.0, &s) == HS_ERR_MESH &&
                      strstr(hs_error_message(), "scale") != NULL,
                  "negative scale accepted: %s", hs_error_message());
    hs_error_clear();
    hs_surface_destroy(&s);
    hs_surface_destroy(&s); /* NULL is fine */
}

int main(void)
{
    hs_verbosity = 0; /* the readers' warnings are expected here */
    snprintf(g_dir, sizeof g_dir, "/tmp/hs_surface_readers_XXXXXX");
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_stl();
    test_off();
    test_ply();
    test_poly();
    test_dispatch();
    for (int i = 0; i < g_n_paths; ++i) remove(g_paths[i]);
    rmdir(g_dir);
    HS_TEST_RETURN();
}
