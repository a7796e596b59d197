/* Geomview OFF reader (hs_surface_read_off).
 *
 *   [ST][C][N]OFF [#vertices #faces #edges]     keyword optional; counts may share its line
 *   #vertices #faces [#edges]                   (when not on the keyword's line; #edges unused)
 *   x y z [normal, colour, texture fields]      per vertex; fields after z are ignored
 *   n i1 .. in [colour fields]                  per face, 0-based, n >= 3; colour ignored
 *
 * '#' starts a comment; blank lines are skipped. Faces are kept as polygons. The 4D and nD
 * variants and binary OFF are refused by name. Counts are not trusted for allocation: arrays
 * grow as lines are read. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hs_surface.h"
#include "hs_text_reader.h"
#include "hs_util.h"
#include "surface_internal.h"

static const char *k_layout = "#vertices #faces [#edges]";

/* Check an [ST][C][N][4][n]OFF keyword; *is_kw = 0 when tok is not a keyword at all. */
static hs_status off_keyword(hs_text_reader *r, const char *tok, int *is_kw)
{
    *is_kw = 0;
    const size_t len = strlen(tok);
    const int ends_off = len >= 3 && strcmp(tok + len - 3, "OFF") == 0;
    if (!ends_off && !isalpha((unsigned char)tok[0])) return HS_OK; /* counts line */
    HS_CHECK(ends_off, HS_ERR_MESH,
             "%s:%ld: expected the OFF keyword ([ST][C][N]OFF) or the counts line (%s), found '%s'",
             r->path, r->line, k_layout, tok);
    const char *p = tok;
    if (strncmp(p, "ST", 2) == 0) p += 2;
    if (*p == 'C') ++p;
    if (*p == 'N') ++p;
    HS_CHECK(*p != '4' && *p != 'n', HS_ERR_MESH,
             "%s:%ld: '%s': 4D and nD OFF files are not supported (3D surfaces only)", r->path,
             r->line, tok);
    HS_CHECK(strcmp(p, "OFF") == 0, HS_ERR_MESH,
             "%s:%ld: unknown OFF keyword '%s' (expected [ST][C][N]OFF)", r->path, r->line, tok);
    *is_kw = 1;
    return HS_OK;
}

/* Count field in [lo, INT32_MAX]. */
static hs_status off_count(hs_text_reader *r, const char *tok, const char *what, long long lo,
                           long long *v)
{
    HS_CHECK(tok != NULL, HS_ERR_MESH, "%s:%ld: expected %s, found end of line (counts line: %s)",
             r->path, r->line, what, k_layout);
    HS_CALL(hs_text_reader_long(r, tok, what, v));
    HS_CHECK(*v >= lo && *v <= INT32_MAX, HS_ERR_MESH,
             "%s:%ld: %s = %lld, expected a value in %lld..2147483647 (counts line: %s)", r->path,
             r->line, what, *v, lo, k_layout);
    return HS_OK;
}

hs_status hs_surface_read_off(const char *path, double scale, hs_surface **out)
{
    HS_CHECK(out != NULL, HS_ERR_INTERNAL, "hs_surface_read_off: out is NULL");
    *out = NULL;
    HS_CALL(hs_surface_check_scale(path, scale));
    hs_text_reader r;
    HS_CALL(hs_text_reader_open(&r, path, "OFF", HS_ERR_MESH, '#'));
    hs_status st = HS_OK;
    hs_surface_builder b;
    hs_surface_builder_init(&b);
    int32_t *poly = NULL;
    size_t cap_poly = 0;

    int got = 0;
    HS_CALL_GOTO(hs_text_reader_next(&r, &got), done);
    HS_CHECK_GOTO(got, done, HS_ERR_MESH,
                  "%s:%ld: the file is empty (expected 'OFF' and then the counts %s)", path,
                  hs_text_reader_eof_line(&r), k_layout);
    char *tok = hs_text_reader_token(&r);
    int is_kw = 0;
    HS_CALL_GOTO(off_keyword(&r, tok, &is_kw), done);
    if (is_kw) {
        tok = hs_text_reader_token(&r);
        HS_CHECK_GOTO(tok == NULL || strcmp(tok, "BINARY") != 0, done, HS_ERR_MESH,
                      "%s:%ld: binary OFF is not supported; write the file as text OFF", path,
                      r.line);
        if (tok == NULL) { /* counts on the next line */
            HS_CALL_GOTO(hs_text_reader_next(&r, &got), done);
            HS_CHECK_GOTO(got, done, HS_ERR_MESH,
                          "%s:%ld: file ended before the counts line (%s)", path,
                          hs_text_reader_eof_line(&r), k_layout);
            tok = hs_text_reader_token(&r);
        }
    }
    long long nv = 0, nf = 0, ne = 0; /* #edges is announced but never needed */
    HS_CALL_GOTO(off_count(&r, tok, "number of vertices", 3, &nv), done);
    HS_CALL_GOTO(off_count(&r, hs_text_reader_token(&r), "number of faces", 1, &nf), done);
    tok = hs_text_reader_token(&r);
    if (tok) HS_CALL_GOTO(off_count(&r, tok, "number of edges", 0, &ne), done);
    HS_CALL_GOTO(hs_text_reader_expect_end(&r, tok ? 3 : 2, k_layout), done);
    (void)ne;

    for (long long i = 0; i < nv; ++i) {
        HS_CALL_GOTO(hs_text_reader_next(&r, &got), done);
        HS_CHECK_GOTO(got, done, HS_ERR_MESH,
                      "%s:%ld: file ended after %lld of the %lld vertices the counts line "
                      "announces",
                      path, hs_text_reader_eof_line(&r), i, nv);
        double x[3];
        HS_CALL_GOTO(hs_text_reader_next_double(&r, "vertex x coordinate", &x[0]), done);
        HS_CALL_GOTO(hs_text_reader_next_double(&r, "vertex y coordinate", &x[1]), done);
        HS_CALL_GOTO(hs_text_reader_next_double(&r, "vertex z coordinate", &x[2]), done);
        /* Normal, colour or texture fields may follow (NOFF, COFF, STOFF): not used. */
        HS_CALL_GOTO(hs_surface_builder_point(&b, scale * x[0], scale * x[1], scale * x[2]), done);
    }
    for (long long f = 0; f < nf; ++f) {
        HS_CALL_GOTO(hs_text_reader_next(&r, &got), done);
        HS_CHECK_GOTO(got, done, HS_ERR_MESH,
                      "%s:%ld: file ended after %lld of the %lld faces the counts line announces",
                      path, hs_text_reader_eof_line(&r), f, nf);
        long long n;
        HS_CALL_GOTO(hs_text_reader_next_long(&r, "number of face vertices", &n), done);
        HS_CHECK_GOTO(n >= 3 && n <= nv, done, HS_ERR_MESH,
                      "%s:%ld: face %lld (0-based) has %lld vertices; expected 3..%lld (a polygon "
                      "of the file's vertices)",
                      path, r.line, f, n, nv);
        HS_CALL_GOTO(hs_grow_array((void **)&poly, &cap_poly, (size_t)n, sizeof *poly,
                                   "OFF face"),
                     done);
        for (long long k = 0; k < n; ++k) {
            long long v;
            char *t = hs_text_reader_token(&r);
            HS_CHECK_GOTO(t != NULL, done, HS_ERR_MESH,
                          "%s:%ld: face %lld announces %lld vertices but lists %lld", path, r.line,
                          f, n, k);
            HS_CALL_GOTO(hs_text_reader_long(&r, t, "vertex index", &v), done);
            HS_CHECK_GOTO(v >= 0 && v < nv, done, HS_ERR_MESH,
                          "%s:%ld: vertex index %lld out of range: the file has %lld vertices, "
                          "numbered 0..%lld",
                          path, r.line, v, nv, nv - 1);
            poly[k] = (int32_t)v;
        }
        /* Colour fields may follow the indices: not used. */
        HS_CALL_GOTO(hs_surface_builder_facet(&b, poly, (int32_t)n, 0), done);
    }
    HS_CALL_GOTO(hs_text_reader_next(&r, &got), done);
    HS_CHECK_GOTO(!got, done, HS_ERR_MESH,
                  "%s:%ld: unexpected data after the %lld faces the counts line announces", path,
                  r.line, nf);
    HS_CALL_GOTO(hs_surface_builder_finish(&b, out), done);
done:
    hs_text_reader_close(&r);
    hs_surface_builder_free(&b);
    free(poly);
    return st;
}

/* The listed reader (hs_surface_reader_list.h). */
hs_status hs_surface_reader_off(const char *path, double scale, const hs_surface_read_opts *o, hs_surface **out)
{
    (void)o; /* only STL stores each facet's corners separately; no named cell arrays */
    return hs_surface_read_off(path, scale, out);
}
