/* TetGen piecewise linear complex reader (hs_surface_read_poly): .poly and .smesh (TetGen 1.5
 * manual, sections 5.2.2 and 5.2.3).
 *
 *   part 1  <#points> <dim 3> [#attributes] [boundary markers 0|1]
 *           <index> <x> <y> <z> [attributes] [marker]        (#points = 0: points in PREFIX.node)
 *   part 2  <#facets> [boundary markers 0|1]
 *     .poly:  <#polygons> [#holes] [marker]                    per facet, then per polygon:
 *             <#corners> <c1> .. <cn>                          and per facet hole: <i> <x> <y> <z>
 *     .smesh: <#corners> <c1> .. <cn> [marker]                 per facet (one polygon, no holes)
 *   part 3  <#holes>, then <index> <x> <y> <z>                 (optional at end of file)
 *   part 4  <#regions>, then <index> <x> <y> <z> <attribute> [max volume]   (optional)
 *
 * Numbering starts at 0 or 1, taken from the first point's index. Each polygon of a .poly facet
 * becomes its own facet with the facet's marker: TetGen treats the polygons of one facet as one
 * planar region, and separate coplanar facets mesh the same. Facet holes are refused (they cut a
 * polygon out of a facet, which separate polygons cannot express); polygons of 1 or 2 corners
 * (points and segments TetGen keeps inside a facet) are skipped with a warning: they are not
 * boundary. Coordinates are scaled; a region's maximum volume by scale^3. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hs_surface.h"
#include "hs_text_reader.h"
#include "hs_util.h"
#include "surface_internal.h"

static const char *k_points_layout =
    "<#points> <dimension 3> [#attributes] [boundary markers 0|1]";

/* Integer field of a header line in [lo, hi]; when absent, *v = dflt if optional, else error. */
static hs_status header_int(hs_text_reader *r, const char *what, long long lo, long long hi,
                            int optional, long long dflt, const char *layout, long long *v)
{
    char *tok = hs_text_reader_token(r);
    if (tok == NULL && optional) {
        *v = dflt;
        return HS_OK;
    }
    HS_CHECK(tok != NULL, HS_ERR_MESH, "%s:%ld: expected %s, found end of line (line format: %s)",
             r->path, r->line, what, layout);
    HS_CALL(hs_text_reader_long(r, tok, what, v));
    HS_CHECK(*v >= lo && *v <= hi, HS_ERR_MESH,
             "%s:%ld: %s = %lld, expected a value in %lld..%lld (line format: %s)", r->path,
             r->line, what, *v, lo, hi, layout);
    return HS_OK;
}

/* Next data line, which must exist: the message says what was expected. */
static hs_status need_line(hs_text_reader *r, const char *expected)
{
    int got = 0;
    HS_CALL(hs_text_reader_next(r, &got));
    HS_CHECK(got, HS_ERR_MESH, "%s:%ld: file ended; expected %s", r->path,
             hs_text_reader_eof_line(r), expected);
    return HS_OK;
}

static hs_status read_xyz(hs_text_reader *r, double scale, double x[3])
{
    static const char *coord[3] = {"x coordinate", "y coordinate", "z coordinate"};
    for (int k = 0; k < 3; ++k) {
        HS_CALL(hs_text_reader_next_double(r, coord[k], &x[k]));
        x[k] *= scale;
    }
    return HS_OK;
}

/* Part 1 header on the current line. */
static hs_status points_header(hs_text_reader *r, long long min_points, long long *np,
                               long long *nattr, long long *nbm)
{
    long long dim;
    HS_CALL(header_int(r, "number of points", min_points, INT32_MAX, 0, 0, k_points_layout, np));
    HS_CALL(header_int(r, "dimension", 3, 3, 1, 3, k_points_layout, &dim));
    HS_CALL(header_int(r, "number of point attributes", 0, 1000000, 1, 0, k_points_layout,
                       nattr));
    HS_CALL(header_int(r, "number of boundary markers", 0, 1, 1, 0, k_points_layout, nbm));
    HS_CALL(hs_text_reader_expect_end(r, 4, k_points_layout));
    return HS_OK;
}

/* np point lines: index x y z [attributes] [marker]; sets the numbering base. */
static hs_status read_points(hs_text_reader *r, long long np, long long nattr, long long nbm,
                             double scale, hs_surface_builder *b, int *base)
{
    char fields[96];
    snprintf(fields, sizeof fields, "index x y z%s%s", nattr ? " + attributes" : "",
             nbm ? " + boundary marker" : "");
    const long nfields = 4 + (long)nattr + (long)nbm;
    for (long long i = 0; i < np; ++i) {
        int got = 0;
        HS_CALL(hs_text_reader_next(r, &got));
        HS_CHECK(got, HS_ERR_MESH,
                 "%s:%ld: file ended after %lld of the %lld points announced in the header",
                 r->path, hs_text_reader_eof_line(r), i, np);
        long long idx;
        HS_CALL(hs_text_reader_next_long(r, "point index", &idx));
        if (i == 0) {
            HS_CHECK(idx == 0 || idx == 1, HS_ERR_MESH,
                     "%s:%ld: first point index is %lld; expected 0 or 1 (it sets the numbering "
                     "base of the whole file)",
                     r->path, r->line, idx);
            *base = (int)idx;
        } else {
            HS_CHECK(idx == *base + i, HS_ERR_MESH,
                     "%s:%ld: expected point index %lld (points are numbered consecutively from "
                     "%d), found %lld",
                     r->path, r->line, *base + i, *base, idx);
        }
        double x[3];
        HS_CALL(read_xyz(r, scale, x));
        /* Attributes and marker are not used, but their count must match the header. */
        const long extra = hs_text_reader_remaining(r);
        HS_CHECK(extra == nattr + nbm, HS_ERR_MESH,
                 "%s:%ld: expected %ld fields (%s), found %ld; does the header match the data?",
                 r->path, r->line, nfields, fields, 4 + extra);
        HS_CALL(hs_surface_builder_point(b, x[0], x[1], x[2]));
    }
    return HS_OK;
}

/* "PREFIX.node" for "PREFIX.poly". */
static hs_status node_path_of(const char *path, char **out)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash + 1 : path, '.');
    const size_t stem = dot ? (size_t)(dot - path) : strlen(path);
    char *p = NULL;
    HS_CALL(HS_ALLOC(p, stem + 6, "path"));
    memcpy(p, path, stem);
    memcpy(p + stem, ".node", 6);
    *out = p;
    return HS_OK;
}

static hs_status read_node_file(const char *poly_path, long poly_line, double scale,
                                hs_surface_builder *b, int *base)
{
    char *node = NULL;
    HS_CALL(node_path_of(poly_path, &node));
    hs_text_reader r;
    hs_status st = hs_text_reader_open(&r, node, "TetGen .node", HS_ERR_MESH, '#');
    if (st != HS_OK) {
        hs_error_prefix("%s:%ld: the file declares 0 points, so they are read from %s; ",
                        poly_path, poly_line, node);
        free(node);
        return st;
    }
    long long np, nattr, nbm;
    int got = 0;
    HS_CALL_GOTO(hs_text_reader_next(&r, &got), done);
    HS_CHECK_GOTO(got, done, HS_ERR_MESH, "%s:%ld: file has no header line (expected %s)", node,
                  hs_text_reader_eof_line(&r), k_points_layout);
    HS_CALL_GOTO(points_header(&r, 3, &np, &nattr, &nbm), done);
    HS_CALL_GOTO(read_points(&r, np, nattr, nbm, scale, b, base), done);
    HS_CALL_GOTO(hs_text_reader_next(&r, &got), done);
    HS_CHECK_GOTO(!got, done, HS_ERR_MESH,
                  "%s:%ld: unexpected data after the %lld points announced in the header", node,
                  r.line, np);
done:
    hs_text_reader_close(&r);
    free(node);
    return st;
}

/* Polygon "<#corners> <c1> .. <cn>" from the current token on; indices checked and made 0-based.
 * *n may be 1 or 2 only when allow_short (the caller skips those). */
static hs_status read_polygon(hs_text_reader *r, int base, int32_t np, int allow_short,
                              int32_t **poly, size_t *cap, int32_t *n)
{
    long long nc;
    HS_CALL(hs_text_reader_next_long(r, "number of corners", &nc));
    HS_CHECK(nc >= (allow_short ? 1 : 3) && nc <= np, HS_ERR_MESH,
             "%s:%ld: a polygon with %lld corners; expected %d..%d (a polygon of the file's "
             "points)",
             r->path, r->line, nc, allow_short ? 1 : 3, (int)np);
    HS_CALL(hs_grow_array((void **)poly, cap, (size_t)nc, sizeof **poly, "polygon"));
    const long long lo = base, hi = (long long)base + np - 1;
    for (long long k = 0; k < nc; ++k) {
        char *tok = hs_text_reader_token(r);
        HS_CHECK(tok != NULL, HS_ERR_MESH,
                 "%s:%ld: the polygon announces %lld corners but lists %lld", r->path, r->line, nc,
                 k);
        long long v;
        HS_CALL(hs_text_reader_long(r, tok, "corner index", &v));
        HS_CHECK(v >= lo && v <= hi, HS_ERR_MESH,
                 "%s:%ld: corner index %lld out of range: the points are numbered %lld..%lld",
                 r->path, r->line, v, lo, hi);
        (*poly)[k] = (int32_t)(v - base);
    }
    *n = (int32_t)nc;
    return HS_OK;
}

static hs_status marker_value(hs_text_reader *r, const char *tok, int32_t *m)
{
    long long v;
    HS_CALL(hs_text_reader_long(r, tok, "boundary marker", &v));
    HS_CHECK(v >= INT32_MIN && v <= INT32_MAX, HS_ERR_MESH,
             "%s:%ld: boundary marker %lld does not fit a 32-bit integer", r->path, r->line, v);
    *m = (int32_t)v;
    return HS_OK;
}

static hs_status read_facets(hs_text_reader *r, int smesh, int base, hs_surface_builder *b)
{
    static const char *layout = "<#facets> [boundary markers 0|1]";
    hs_status st = HS_OK;
    int32_t *poly = NULL;
    size_t cap = 0;
    HS_CALL(need_line(r, "the facet header (part 2: <#facets> [boundary markers 0|1])"));
    long long nf, nbm;
    HS_CALL(header_int(r, "number of facets", 1, INT32_MAX, 0, 0, layout, &nf));
    HS_CALL(header_int(r, "number of boundary markers", 0, 1, 1, 0, layout, &nbm));
    HS_CALL(hs_text_reader_expect_end(r, 2, layout));
    const int32_t np = b->s.n_points;
    long long n_short = 0;
    for (long long f = 0; f < nf; ++f) {
        int got = 0;
        HS_CALL_GOTO(hs_text_reader_next(r, &got), done);
        HS_CHECK_GOTO(got, done, HS_ERR_MESH,
                      "%s:%ld: file ended after %lld of the %lld facets announced", r->path,
                      hs_text_reader_eof_line(r), f, nf);
        int32_t marker = 0, n = 0;
        if (smesh) {
            HS_CALL_GOTO(read_polygon(r, base, np, 0, &poly, &cap, &n), done);
            char *tok = hs_text_reader_token(r);
            if (tok) {
                HS_CHECK_GOTO(nbm, done, HS_ERR_MESH,
                              "%s:%ld: unexpected '%s' after the facet's %d corners (the facet "
                              "header says there are no boundary markers)",
                              r->path, r->line, tok, (int)n);
                HS_CALL_GOTO(marker_value(r, tok, &marker), done);
            }
            HS_CALL_GOTO(hs_text_reader_expect_end(r, 1 + n + (tok ? 1 : 0),
                                                   "<#corners> <corners> [marker]"),
                         done);
            HS_CALL_GOTO(hs_surface_builder_facet(b, poly, n, marker), done);
            continue;
        }
        const long facet_line = r->line;
        long long npoly, nholes;
        static const char *flayout = "<#polygons> [#holes] [boundary marker]";
        HS_CALL_GOTO(header_int(r, "number of polygons", 1, INT32_MAX, 0, 0, flayout, &npoly),
                     done);
        HS_CALL_GOTO(header_int(r, "number of facet holes", 0, INT32_MAX, 1, 0, flayout, &nholes),
                     done);
        char *tok = hs_text_reader_token(r);
        if (tok) {
            HS_CHECK_GOTO(nbm, done, HS_ERR_MESH,
                          "%s:%ld: unexpected '%s' after the facet's polygon and hole counts (the "
                          "facet header says there are no boundary markers)",
                          r->path, r->line, tok);
            HS_CALL_GOTO(marker_value(r, tok, &marker), done);
        }
        HS_CALL_GOTO(hs_text_reader_expect_end(r, 3, flayout), done);
        HS_CHECK_GOTO(nholes == 0, done, HS_ERR_MESH,
                      "%s:%ld: facet %lld (0-based) has %lld holes; facet holes are not supported "
                      "(split the facet into polygons that leave the hole out)",
                      r->path, facet_line, f, nholes);
        for (long long q = 0; q < npoly; ++q) {
            HS_CALL_GOTO(hs_text_reader_next(r, &got), done);
            HS_CHECK_GOTO(got, done, HS_ERR_MESH,
                          "%s:%ld: file ended after %lld of the %lld polygons of the facet on "
                          "line %ld",
                          r->path, hs_text_reader_eof_line(r), q, npoly, facet_line);
            HS_CALL_GOTO(read_polygon(r, base, np, 1, &poly, &cap, &n), done);
            HS_CALL_GOTO(hs_text_reader_expect_end(r, 1 + n, "<#corners> <corners>"), done);
            if (n < 3) {
                ++n_short;
                continue;
            }
            HS_CALL_GOTO(hs_surface_builder_facet(b, poly, n, marker), done);
        }
    }
    if (n_short)
        hs_warn("%s: skipped %lld polygons of 1 or 2 corners (TetGen's in-facet points and "
                "segments; they are not boundary)",
                r->path, n_short);
    HS_CHECK_GOTO(b->s.n_facets > 0, done, HS_ERR_MESH, "%s:%ld: no facet has 3 or more corners",
                  r->path, r->line);
done:
    free(poly);
    return st;
}

/* Parts 3 and 4; each is optional at the end of the file. */
static hs_status read_holes_regions(hs_text_reader *r, double scale, hs_surface_builder *b)
{
    int got = 0;
    HS_CALL(hs_text_reader_next(r, &got));
    if (!got) return HS_OK;
    long long nh;
    HS_CALL(header_int(r, "number of holes", 0, INT32_MAX, 0, 0, "<#holes>", &nh));
    HS_CALL(hs_text_reader_expect_end(r, 1, "<#holes>"));
    for (long long i = 0; i < nh; ++i) {
        HS_CALL(need_line(r, "a hole line '<index> <x> <y> <z>' (part 3)"));
        long long idx;
        double x[3];
        HS_CALL(hs_text_reader_next_long(r, "hole index", &idx));
        HS_CALL(read_xyz(r, scale, x));
        HS_CALL(hs_text_reader_expect_end(r, 4, "<index> <x> <y> <z>"));
        HS_CALL(hs_surface_builder_hole(b, x[0], x[1], x[2]));
    }
    HS_CALL(hs_text_reader_next(r, &got));
    if (!got) return HS_OK;
    long long nr;
    HS_CALL(header_int(r, "number of regions", 0, INT32_MAX, 0, 0, "<#regions>", &nr));
    HS_CALL(hs_text_reader_expect_end(r, 1, "<#regions>"));
    static const char *rlayout = "<index> <x> <y> <z> <attribute> [max volume]";
    for (long long i = 0; i < nr; ++i) {
        HS_CALL(need_line(r, "a region line '<index> <x> <y> <z> <attribute> [max volume]' "
                             "(part 4)"));
        long long idx;
        double reg[5];
        HS_CALL(hs_text_reader_next_long(r, "region index", &idx));
        HS_CALL(read_xyz(r, scale, reg));
        HS_CALL(hs_text_reader_next_double(r, "region attribute", &reg[3]));
        char *tok = hs_text_reader_token(r);
        reg[4] = -1.0;
        if (tok) {
            HS_CALL(hs_text_reader_double(r, tok, "region max volume", &reg[4]));
            if (reg[4] > 0) reg[4] *= scale * scale * scale;
        }
        HS_CALL(hs_text_reader_expect_end(r, tok ? 6 : 5, rlayout));
        HS_CALL(hs_surface_builder_region(b, reg));
    }
    HS_CALL(hs_text_reader_next(r, &got));
    HS_CHECK(!got, HS_ERR_MESH, "%s:%ld: unexpected data after the region list (part 4)",
             r->path, r->line);
    return HS_OK;
}

hs_status hs_surface_read_poly(const char *path, double scale, hs_surface **out)
{
    HS_CHECK(out != NULL, HS_ERR_INTERNAL, "hs_surface_read_poly: out is NULL");
    *out = NULL;
    HS_CHECK(path != NULL && path[0] != '\0', HS_ERR_MESH, "TetGen .poly file path is empty");
    HS_CALL(hs_surface_check_scale(path, scale));
    const char *dot = strrchr(path, '.');
    const int smesh = dot && strcasecmp(dot, ".smesh") == 0;
    hs_text_reader r;
    HS_CALL(hs_text_reader_open(&r, path, smesh ? "TetGen .smesh" : "TetGen .poly", HS_ERR_MESH,
                                '#'));
    hs_status st = HS_OK;
    hs_surface_builder b;
    hs_surface_builder_init(&b);
    int base = 0;
    int got = 0;
    HS_CALL_GOTO(hs_text_reader_next(&r, &got), done);
    HS_CHECK_GOTO(got, done, HS_ERR_MESH, "%s:%ld: file has no header line (expected %s)", path,
                  hs_text_reader_eof_line(&r), k_points_layout);
    long long np, nattr, nbm;
    HS_CALL_GOTO(points_header(&r, 0, &np, &nattr, &nbm), done);
    if (np == 0) HS_CALL_GOTO(read_node_file(path, r.line, scale, &b, &base), done);
    else {
        HS_CHECK_GOTO(np >= 3, done, HS_ERR_MESH,
                      "%s:%ld: %lld points; a surface needs at least 3 (or 0 to read them from "
                      "the .node file beside this one)",
                      path, r.line, np);
        HS_CALL_GOTO(read_points(&r, np, nattr, nbm, scale, &b, &base), done);
    }
    HS_CALL_GOTO(read_facets(&r, smesh, base, &b), done);
    HS_CALL_GOTO(read_holes_regions(&r, scale, &b), done);
    HS_CALL_GOTO(hs_surface_builder_finish(&b, out), done);
done:
    hs_text_reader_close(&r);
    hs_surface_builder_free(&b);
    return st;
}

/* The listed reader (hs_surface_reader_list.h), for .poly and .smesh alike. */
hs_status hs_surface_reader_poly(const char *path, double scale, const hs_surface_read_opts *o, hs_surface **out)
{
    (void)o; /* only STL stores each facet's corners separately; no named cell arrays */
    return hs_surface_read_poly(path, scale, out);
}
