/* Block reading of line-based meshes (hs_mesh_block.h; issue 26): openCARP and TetGen files read
 * in 1..7 parts (one process plays every part; the prefix sum of the counts is done here, as
 * sim/mesh_part_read.c does with MPI_Exscan) must give the whole reader's arrays exactly, and a
 * bad file the whole reader's message (file:line) from the first part that fails. The files have
 * blank and comment lines where the format allows them, CRLF lines, a last line without '\n',
 * the three .lon layouts, 1-based TetGen with attributes, markers and regions, 10-node tets. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_mesh.h"
#include "hs_mesh_block.h"
#include "hs_mesh_io.h"
#include "hs_test.h"
#include "hs_util.h"
#include "mesh_read_test_util.h"

#define MAX_PARTS 7

/* ---- reading in parts ------------------------------------------------------------------------ */

typedef struct outcome {
    hs_status st;     /* of the first part that failed (phase 1 of any part before phase 2) */
    int part;         /* that part (-1: none failed) */
    char msg[1024];
} outcome;

static void note_failure(outcome *oc, hs_status st, int p)
{
    if (st == HS_OK || oc->part >= 0) {
        hs_error_clear();
        return;
    }
    oc->st = st;
    oc->part = p;
    snprintf(oc->msg, sizeof oc->msg, "%s", hs_error_message());
    hs_error_clear();
}

/* Read @p path in @p n parts: blk[0..n-1] on success (free them), else oc says who failed how. */
static outcome read_parts(const char *path, const hs_mesh_read_opts *o, int n, hs_mesh_block *blk)
{
    outcome oc = {HS_OK, -1, ""};
    hs_mesh_block_reader *r[MAX_PARTS] = {NULL};
    int64_t counts[MAX_PARTS][HS_MESH_BLOCK_COUNTS];
    hs_error_clear();
    for (int p = 0; p < n; ++p) note_failure(&oc, hs_mesh_block_open(path, o, p, n, &r[p], counts[p]), p);
    /* every part reads (as every rank would), also after one failed; the first failure counts */
    int64_t first[HS_MESH_BLOCK_COUNTS] = {0};
    const int opened = oc.part < 0;
    for (int p = 0; p < n && opened; ++p) {
        note_failure(&oc, hs_mesh_block_read(r[p], first, &blk[p]), p);
        for (int k = 0; k < HS_MESH_BLOCK_COUNTS; ++k) first[k] += counts[p][k];
    }
    for (int p = 0; p < n; ++p) {
        if (oc.part >= 0) hs_mesh_block_free(&blk[p]);
        hs_mesh_block_reader_close(&r[p]);
        HS_TEST_CHECK(r[p] == NULL, "reader_close left the pointer set");
    }
    return oc;
}

/* The blocks of n parts against the whole reader's mesh m: nodes through m->node_orig (the file
 * position of each kept node), xyz and fibres bit for bit. @p n_file_nodes: nodes in the file. */
static int g_empty_parts; /* blocks without nodes, elements or fibres seen by compare */

static void compare(const hs_mesh *m, hs_mesh_block *blk, int n, int64_t n_file_nodes,
                    const char *what)
{
    int64_t nn = 0, ne = 0, nf = 0;
    for (int p = 0; p < n; ++p) {
        HS_TEST_CHECK(blk[p].node0 == nn && blk[p].elem0 == ne && blk[p].fiber0 == nf,
                      "%s, %d parts: part %d starts at node %lld, element %lld, fibre %lld; "
                      "expected %lld, %lld, %lld", what, n, p, (long long)blk[p].node0,
                      (long long)blk[p].elem0, (long long)blk[p].fiber0, (long long)nn,
                      (long long)ne, (long long)nf);
        HS_TEST_CHECK(blk[p].n_nodes == n_file_nodes && blk[p].n_elems == m->n_elems,
                      "%s: part %d: header counts %lld %lld", what, p, (long long)blk[p].n_nodes,
                      (long long)blk[p].n_elems);
        HS_TEST_CHECK(blk[p].has_fibers == (m->fiber != NULL), "%s: part %d: has_fibers %d", what,
                      p, blk[p].has_fibers);
        HS_TEST_CHECK((blk[p].fiber != NULL) == (m->fiber != NULL), "%s: part %d: fiber array",
                      what, p);
        g_empty_parts += blk[p].nb_nodes == 0 || blk[p].nb_elems == 0 ||
                         (blk[p].has_fibers && blk[p].nb_fibers == 0);
        nn += blk[p].nb_nodes;
        ne += blk[p].nb_elems;
        nf += blk[p].nb_fibers;
    }
    HS_TEST_CHECK(nn == n_file_nodes && ne == m->n_elems && nf == (m->fiber ? m->n_elems : 0),
                  "%s, %d parts: %lld nodes, %lld elements, %lld fibres in the blocks; the file "
                  "has %lld, %d", what, n, (long long)nn, (long long)ne, (long long)nf,
                  (long long)n_file_nodes, m->n_elems);
    if (nn != n_file_nodes || ne != m->n_elems) return;
    double *xyz = malloc((size_t)(3 * nn + 1) * sizeof *xyz);
    int64_t *tets = malloc((size_t)(4 * ne + 1) * sizeof *tets);
    int32_t *region = malloc((size_t)(ne + 1) * sizeof *region);
    double *fiber = malloc((size_t)(3 * nf + 1) * sizeof *fiber);
    for (int p = 0; p < n; ++p) {
        memcpy(xyz + 3 * blk[p].node0, blk[p].xyz, 3 * (size_t)blk[p].nb_nodes * sizeof *xyz);
        memcpy(tets + 4 * blk[p].elem0, blk[p].tets, 4 * (size_t)blk[p].nb_elems * sizeof *tets);
        memcpy(region + blk[p].elem0, blk[p].region, (size_t)blk[p].nb_elems * sizeof *region);
        if (blk[p].fiber)
            memcpy(fiber + 3 * blk[p].fiber0, blk[p].fiber,
                   3 * (size_t)blk[p].nb_fibers * sizeof *fiber);
    }
    int bad_x = 0, bad_t = 0, bad_r = 0, bad_f = 0;
    for (int32_t i = 0; i < m->n_nodes; ++i)
        bad_x += memcmp(m->xyz + 3 * (size_t)i, xyz + 3 * (size_t)m->node_orig[i],
                        3 * sizeof *xyz) != 0;
    for (int64_t k = 0; k < 4 * ne; ++k) bad_t += tets[k] != m->node_orig[m->tets[k]];
    for (int64_t e = 0; e < ne; ++e) bad_r += region[e] != m->region[e];
    if (m->fiber) bad_f = memcmp(fiber, m->fiber, 3 * (size_t)ne * sizeof *fiber) != 0;
    HS_TEST_CHECK(bad_x + bad_t + bad_r + bad_f == 0,
                  "%s, %d parts: %d coordinates, %d tet corners, %d regions differ from the whole "
                  "reader's; fibres %s", what, n, bad_x, bad_t, bad_r, bad_f ? "differ" : "equal");
    free(xyz);
    free(tets);
    free(region);
    free(fiber);
}

/* Read @p path whole and in 1..7 parts; the whole mesh must keep @p n_kept of the file's
 * @p n_file_nodes nodes (all of them, except for linearised 10-node tets). */
static void check_same(const char *path, const hs_mesh_read_opts *o, int64_t n_file_nodes,
                       int32_t n_kept, const char *what)
{
    hs_mesh *m = NULL;
    hs_error_clear();
    HS_TEST_OK(hs_mesh_read_file(path, o, &m));
    if (!m) return;
    HS_TEST_CHECK(m->n_nodes == n_kept, "%s: the whole reader keeps %d nodes, expected %d", what,
                  m->n_nodes, n_kept);
    HS_TEST_CHECK(hs_mesh_block_supports(path), "%s: %s not supported", what, path);
    for (int n = 1; n <= MAX_PARTS; ++n) {
        hs_mesh_block blk[MAX_PARTS];
        memset(blk, 0, sizeof blk);
        const outcome oc = read_parts(path, o, n, blk);
        HS_TEST_CHECK(oc.part < 0, "%s, %d parts: part %d failed: %s", what, n, oc.part, oc.msg);
        if (oc.part < 0) compare(m, blk, n, n_file_nodes, what);
        for (int p = 0; p < n; ++p) hs_mesh_block_free(&blk[p]);
    }
    hs_mesh_destroy(&m);
}

/* The whole reader fails on @p path; every number of parts must fail with its status and
 * message. @p min_part: for n >= 3 parts the first failing part must be at least this far in
 * (n * min_part / 4, rounded down: the bad line lies in a later part), -1: no check. */
static void check_same_error(const char *path, const hs_mesh_read_opts *o, int min_quarter,
                             const char *needle, const char *what)
{
    hs_mesh *m = NULL;
    hs_error_clear();
    const hs_status ws = hs_mesh_read_file(path, o, &m);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", hs_error_message());
    hs_error_clear();
    hs_mesh_destroy(&m);
    HS_TEST_CHECK(ws == HS_ERR_MESH && strstr(msg, needle) != NULL,
                  "%s: the whole reader gives status %d: %s (expected \"%s\")", what, (int)ws,
                  msg, needle);
    for (int n = 1; n <= MAX_PARTS; ++n) {
        hs_mesh_block blk[MAX_PARTS];
        memset(blk, 0, sizeof blk);
        const outcome oc = read_parts(path, o, n, blk);
        HS_TEST_CHECK(oc.part >= 0 && oc.st == ws && strcmp(oc.msg, msg) == 0,
                      "%s, %d parts: part %d: status %d \"%s\"; the whole reader: %d \"%s\"",
                      what, n, oc.part, (int)oc.st, oc.msg, (int)ws, msg);
        if (n >= 3 && min_quarter >= 0)
            HS_TEST_CHECK(oc.part >= n * min_quarter / 4,
                          "%s, %d parts: part %d failed; the bad line is in a later part", what,
                          n, oc.part);
        for (int p = 0; p < n; ++p) hs_mesh_block_free(&blk[p]);
    }
}

/* ---- files ------------------------------------------------------------------------------------ */

/* The structured box, 8 x 6 x 4 cubes (315 nodes, 1152 positive tets, every node used). */
static hs_mesh *make_box(void)
{
    const hs_box_params bp = {.lx = 2.0, .ly = 1.5, .lz = 1.0, .h = 0.25};
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_create_box(&bp, &m));
    return m;
}

/* Line decorations by line index: some CRLF, some indented, blank lines now and then. */
static const char *eol(long i) { return i % 5 == 2 ? "\r\n" : "\n"; }
static const char *indent(long i) { return i % 7 == 3 ? " \t " : ""; }

typedef struct carp_opts {
    int lon;          /* -1: no .lon; 0: headerless; 1, 2: header */
    int no_last_eol;  /* the .pts's last line has no '\n' */
    long bad_pts;     /* >= 0: that point's line is malformed */
    long bad_pts2;    /* >= 0: that one's too (a second bad line, further in) */
    long bad_elem;    /* >= 0: that element's node index is out of range */
    long hex_elem;    /* >= 0: that element is a hexahedron */
    long zero_fiber;  /* >= 0: that element's fibre is zero */
    int pts_count;    /* added to the .pts count on the first line */
    int elem_count;   /* added to the .elem count */
    int extra_fibers; /* lines of fibres after the last element's */
} carp_opts;

static void write_carp(const char *prefix, const hs_mesh *m, const carp_opts *c)
{
    char name[64];
    snprintf(name, sizeof name, "%s.pts", prefix);
    FILE *f = rt_open(name);
    fprintf(f, "\n%d\r\n", m->n_nodes + c->pts_count); /* a blank line before the count */
    for (int32_t i = 0; i < m->n_nodes; ++i) {
        if (i % 17 == 5) fprintf(f, i % 2 ? "\n" : "  \t\r\n");
        const double *x = m->xyz + 3 * (size_t)i;
        if (i == c->bad_pts || i == c->bad_pts2)
            fprintf(f, "%.17g %.17g\n", x[0], x[1]);
        else
            fprintf(f, "%s%.17g %.17g %.17g%s", indent(i), x[0], x[1], x[2],
                    i == m->n_nodes - 1 && c->no_last_eol ? "" : eol(i));
    }
    fclose(f);

    snprintf(name, sizeof name, "%s.elem", prefix);
    f = rt_open(name);
    fprintf(f, "%d\n", m->n_elems + c->elem_count);
    for (int32_t e = 0; e < m->n_elems; ++e) {
        if (e % 23 == 11) fprintf(f, "\n\n");
        const int32_t *t = m->tets + 4 * (size_t)e;
        const int32_t t0 = e == c->bad_elem ? m->n_nodes : t[0];
        fprintf(f, "%s%s %d %d %d %d", indent(e), e == c->hex_elem ? "Hx" : "Tt", t0, t[1], t[2],
                t[3]);
        if (e % 4 != 1) fprintf(f, " %d", e % 4 == 3 ? -7 : (int)(e % 5)); /* else region 0 */
        fputs(eol(e), f);
    }
    fclose(f);

    snprintf(name, sizeof name, "%s.lon", prefix);
    if (c->lon < 0) {
        unlink(rt_path(name));
        return;
    }
    f = rt_open(name);
    if (c->lon > 0)
        fprintf(f, "%d\n", c->lon);
    else
        fputs("\n", f); /* headerless: data from the second line */
    for (int32_t e = 0; e < m->n_elems + c->extra_fibers; ++e) {
        if (e % 29 == 13 && e > 0) fprintf(f, "\n");
        const double a = 0.01 * e;
        if (e == c->zero_fiber)
            fprintf(f, "0 0 0");
        else
            fprintf(f, "%s%.17g %.17g %.3g", indent(e), 2.0 * cos(a), 2.0 * sin(a), 0.1 * (e % 3));
        if (c->lon == 2) fprintf(f, " 0 0 1");
        fputs(eol(e), f);
    }
    fclose(f);
}

typedef struct tg_opts {
    int base;          /* 0 or 1 */
    int quadratic;     /* 10-node tets: mid-edge nodes of their own after the box's nodes */
    long bad_id;       /* >= 0: that point's index is off by one */
    long bad_fields;   /* >= 0: that tetrahedron's line lacks its last attribute */
    long nul_comment;  /* >= 0: comments with a NUL byte before that point's line */
    int elem_count;    /* added to the .ele count */
} tg_opts;

static int64_t write_tetgen(const char *prefix, const hs_mesh *m, const tg_opts *c)
{
    const int64_t n_nodes = m->n_nodes + (c->quadratic ? 6 * (int64_t)m->n_elems : 0);
    char name[64];
    snprintf(name, sizeof name, "%s.node", prefix);
    FILE *f = rt_open(name);
    fprintf(f, "# box for the block reader\n\n%lld 3 1 1   # points, dim, attributes, markers\n",
            (long long)n_nodes);
    for (int64_t i = 0; i < n_nodes; ++i) {
        double x[3];
        if (i < m->n_nodes) {
            memcpy(x, m->xyz + 3 * i, sizeof x);
        } else { /* mid-edge nodes (only their existence matters: the linear mesh drops them) */
            const int64_t e = (i - m->n_nodes) / 6;
            const int32_t *t = m->tets + 4 * e;
            for (int k = 0; k < 3; ++k) x[k] = 0.5 * (m->xyz[3 * t[0] + k] + m->xyz[3 * t[1 + (i % 3)] + k]);
        }
        if (i % 19 == 7) fputs(i % 2 ? "# a comment line\n" : "\n", f);
        /* comment lines with a NUL byte, a third of the file: some part's range ends among them,
         * after its last data line (the reader must still read them) */
        for (int k = 0; k < (i == c->nul_comment ? 300 : 0); ++k) {
            fputs("# NUL ", f);
            fputc('\0', f);
            fputs(" in a comment\n", f);
        }
        fprintf(f, "%s%lld  %.17g %.17g %.17g  %g %d%s%s", indent(i),
                (long long)(i + c->base + (i == c->bad_id)), x[0], x[1], x[2], 0.5 * i,
                (int)(i % 2), i % 11 == 4 ? "  # trailing comment" : "", eol(i));
    }
    fputs("# end\n", f);
    fclose(f);

    snprintf(name, sizeof name, "%s.ele", prefix);
    f = rt_open(name);
    fprintf(f, "%d %d 2\n", m->n_elems + c->elem_count, c->quadratic ? 10 : 4);
    for (int32_t e = 0; e < m->n_elems; ++e) {
        if (e % 31 == 2) fputs("   # comment\n", f);
        const int32_t *t = m->tets + 4 * (size_t)e;
        fprintf(f, "%s%d  %d %d %d %d", indent(e), e + c->base, t[0] + c->base, t[1] + c->base,
                t[2] + c->base, t[3] + c->base);
        if (c->quadratic)
            for (int k = 0; k < 6; ++k)
                fprintf(f, " %lld", (long long)(m->n_nodes + 6 * (int64_t)e + k + c->base));
        if (e == c->bad_fields)
            fprintf(f, "  %d.0", (int)(e % 4));
        else
            fprintf(f, "  %d.0 %g", e % 4 == 3 ? -2 : (int)(e % 4), 0.25 * e);
        fputs(eol(e), f);
    }
    fclose(f);
    return n_nodes;
}

static const carp_opts carp_plain = {.lon = 1, .bad_pts = -1, .bad_pts2 = -1, .bad_elem = -1, .hex_elem = -1,
                                     .zero_fiber = -1};
static const tg_opts tg_plain = {.base = 1, .bad_id = -1, .bad_fields = -1, .nul_comment = -1};

/* ---- the checks -------------------------------------------------------------------------------- */

static void check_supports(void)
{
    rt_write("s.elem", "0\n");
    rt_write("t.ele", "0\n");
    static const char *yes[] = {"a.pts", "a.elem", "a.lon", "a.node", "a.ele", "A.ELE", "x/b.Pts"};
    static const char *no[] = {"a.vtk", "a.vtu", "a.msh", "a.stl", "a.off", "a", "", "a.txt"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; ++i)
        HS_TEST_CHECK(hs_mesh_block_supports(yes[i]), "%s: expected supported", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof *no; ++i)
        HS_TEST_CHECK(!hs_mesh_block_supports(no[i]), "%s: expected not supported", no[i]);
    HS_TEST_CHECK(hs_mesh_block_supports(rt_path("s")), "bare prefix with PREFIX.elem");
    HS_TEST_CHECK(hs_mesh_block_supports(rt_path("t")), "bare prefix with PREFIX.ele");
    HS_TEST_CHECK(!hs_mesh_block_supports(NULL), "NULL supported");
    hs_mesh_block_reader *r = NULL;
    int64_t counts[HS_MESH_BLOCK_COUNTS];
    hs_error_clear();
    HS_TEST_CHECK(hs_mesh_block_open("mesh.vtk", NULL, 0, 1, &r, counts) == HS_ERR_MESH &&
                      strstr(hs_error_message(), "mesh.vtk: not a mesh format read in parts"),
                  "a .vtk refused: %s", hs_error_message());
    hs_error_clear();
    HS_TEST_CHECK(r == NULL, "reader set on failure");
}

static void check_good(hs_mesh *box)
{
    char path[400];
    carp_opts c = carp_plain;
    for (int lon = -1; lon <= 2; ++lon) {
        c.lon = lon;
        c.no_last_eol = lon == 0;
        write_carp("carp", box, &c);
        snprintf(path, sizeof path, "%s", rt_path(lon == 2 ? "carp.lon" : lon ? "carp.pts" : "carp"));
        char what[64];
        snprintf(what, sizeof what, "openCARP, .lon layout %d", lon);
        check_same(path, NULL, box->n_nodes, box->n_nodes, what);
    }
    /* The unit cube (8 nodes, 6 tets): more parts than lines. */
    {
        hs_mesh *cube = NULL;
        HS_TEST_OK(hs_mesh_alloc(8, 6, &cube));
        if (cube) {
            for (int i = 0; i < 8; ++i) rt_corner(i, cube->xyz + 3 * i);
            for (int e = 0; e < 6; ++e)
                for (int k = 0; k < 4; ++k) cube->tets[4 * e + k] = rt_tets[e][k];
            c.lon = 1;
            c.no_last_eol = 0;
            write_carp("cube", cube, &c);
            g_empty_parts = 0;
            check_same(rt_path("cube.elem"), NULL, 8, 8, "openCARP cube");
            HS_TEST_CHECK(g_empty_parts > 0, "no empty part: the test proves nothing about them");
            tg_opts t = tg_plain;
            t.base = 0;
            write_tetgen("cube", cube, &t);
            check_same(rt_path("cube.ele"), NULL, 8, 8, "TetGen cube");
            hs_mesh_destroy(&cube);
        }
    }
    tg_opts t = tg_plain;
    for (int base = 0; base <= 1; ++base) {
        t.base = base;
        write_tetgen("tg", box, &t);
        check_same(rt_path(base ? "tg.node" : "tg"), NULL, box->n_nodes, box->n_nodes,
                   base ? "TetGen, 1-based" : "TetGen, 0-based");
    }
    t.quadratic = 1;
    const int64_t nq = write_tetgen("tg10", box, &t);
    const hs_mesh_read_opts lin = {.linearize = 1};
    check_same(rt_path("tg10.ele"), &lin, nq, box->n_nodes, "TetGen, 10-node, linearised");
    check_same_error(rt_path("tg10.ele"), NULL, -1, "quadratic (10-node) tetrahedra",
                     "TetGen, 10-node, not linearised");
}

static void check_errors(hs_mesh *box)
{
    const long n = box->n_nodes, ne = box->n_elems;
    carp_opts c = carp_plain;
    c.bad_pts = n * 7 / 10;
    write_carp("e", box, &c);
    check_same_error(rt_path("e.pts"), NULL, 2, "expected z coordinate, found end of line",
                     "openCARP, a short point line at 70%");
    /* two bad lines, at 40% and 85%: with 2 or 3 threads (test_mesh_block_threads3) a part's pieces that
     * hold them both fail, and the message must be the earlier piece's (the whole reader's first line) */
    c = carp_plain;
    c.bad_pts = n * 4 / 10;
    c.bad_pts2 = n * 85 / 100;
    write_carp("e", box, &c);
    check_same_error(rt_path("e.pts"), NULL, 1, "expected z coordinate, found end of line",
                     "openCARP, short point lines at 40% and 85%");
    c = carp_plain;
    c.bad_elem = ne * 8 / 10;
    write_carp("e", box, &c);
    check_same_error(rt_path("e.pts"), NULL, 3, "node index 315 out of range",
                     "openCARP, node index out of range at 80%");
    c = carp_plain;
    c.hex_elem = ne * 6 / 10;
    write_carp("e", box, &c);
    check_same_error(rt_path("e.pts"), NULL, 2, "is a hexahedron (Hx)",
                     "openCARP, a hexahedron at 60%");
    c = carp_plain;
    c.zero_fiber = ne * 9 / 10;
    for (int lon = 0; lon <= 2; ++lon) {
        c.lon = lon;
        write_carp("e", box, &c);
        check_same_error(rt_path("e.pts"), NULL, 3, "is the zero vector",
                         "openCARP, a zero fibre at 90%");
    }
    c = carp_plain;
    c.pts_count = 3;
    write_carp("e", box, &c);
    check_same_error(rt_path("e.pts"), NULL, 3, "file ended after 315 of the 318 points",
                     "openCARP, .pts shorter than its count");
    c = carp_plain;
    c.elem_count = -5;
    write_carp("e", box, &c);
    check_same_error(rt_path("e.pts"), NULL, 3, "unexpected data after the 1147 elements",
                     "openCARP, .elem longer than its count");
    c = carp_plain;
    c.elem_count = -(int)ne + 10; /* extra data from the start: every later part has some */
    write_carp("e", box, &c);
    check_same_error(rt_path("e.pts"), NULL, 0, "unexpected data after the 10 elements",
                     "openCARP, .elem much longer than its count");
    c = carp_plain;
    c.extra_fibers = 2;
    for (int lon = 0; lon <= 1; ++lon) {
        c.lon = lon;
        write_carp("e", box, &c);
        check_same_error(rt_path("e.pts"), NULL, 3, "more fibres than elements",
                         "openCARP, too many fibres");
    }
    c = carp_plain;
    c.extra_fibers = -4;
    write_carp("e", box, &c);
    check_same_error(rt_path("e.pts"), NULL, 3, "file ended after 1148 fibres",
                     "openCARP, too few fibres");
    /* a bad header: every part fails in phase 1 with the whole reader's message */
    c = carp_plain;
    write_carp("e", box, &c);
    rt_write("e.lon", "3\n1 0 0\n");
    check_same_error(rt_path("e.pts"), NULL, -1, "first line is 3", "openCARP, .lon header 3");

    tg_opts t = tg_plain;
    t.bad_id = n * 3 / 4;
    write_tetgen("f", box, &t);
    check_same_error(rt_path("f.node"), NULL, 2, "expected point index 237", "TetGen, a point "
                     "numbered out of order at 75%");
    t = tg_plain;
    t.bad_fields = ne * 7 / 10;
    write_tetgen("f", box, &t);
    check_same_error(rt_path("f.node"), NULL, 2, "expected 7 fields (index n0 .. n3 + attributes), "
                     "found 6", "TetGen, a short tetrahedron line at 70%");
    t = tg_plain;
    t.elem_count = 2;
    write_tetgen("f", box, &t);
    check_same_error(rt_path("f.ele"), NULL, 3, "file ended after 1152 of the 1154 tetrahedra",
                     "TetGen, .ele shorter than its count");
    t = tg_plain;
    t.elem_count = -1;
    write_tetgen("f", box, &t);
    check_same_error(rt_path("f.ele"), NULL, 3, "unexpected data after the 1151 tetrahedra",
                     "TetGen, .ele longer than its count");
    t = tg_plain;
    t.nul_comment = n / 4;
    write_tetgen("f", box, &t);
    check_same_error(rt_path("f.ele"), NULL, -1, "line contains a NUL byte",
                     "TetGen, NUL bytes in comments from 25%");
    t = tg_plain;
    t.base = 2;
    write_tetgen("f", box, &t);
    check_same_error(rt_path("f.ele"), NULL, -1, "first point index is 2",
                     "TetGen, first point numbered 2");
}

int main(void)
{
    hs_verbosity = 0; /* the note on the dropped mid-edge nodes is expected */
    rt_setup();
    check_supports();
    hs_mesh *box = make_box();
    if (box) {
        check_good(box);
        check_errors(box);
    }
    hs_mesh_destroy(&box);
    rt_teardown();
    HS_TEST_RETURN();
}
