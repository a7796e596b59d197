/* STL reader (hs_surface_read_stl): ASCII or binary, then vertex welding.
 *
 *   ASCII:  solid [name] / facet [normal nx ny nz] / outer loop / vertex x y z (3 times) /
 *           endloop / endfacet / ... / endsolid [name]   (several solids may follow each other)
 *   binary: 80-byte header, uint32 triangle count n, then n records of 50 bytes: normal and three
 *           corners as little-endian float32, and a uint16 attribute (ignored). Size = 84 + 50 n.
 *
 * Which one: binary when the size is exactly 84 + 50 n (binary headers often begin with "solid"
 * too, so the word alone proves nothing), ASCII when the file starts with "solid" and its first
 * bytes hold no NUL, binary otherwise. Normals are ignored: the corner order defines orientation,
 * and hs_surface_check makes it consistent.
 *
 * STL stores every triangle's corners separately, so shared points must be found again
 * ("welding"): corners within the tolerance of a point already made become that point. A hash
 * grid with cells no smaller than the tolerance finds the candidates in the 27 cells around a
 * corner, so welding is O(n). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include "hs_surface.h"
#include "hs_text_reader.h"
#include "hs_util.h"
#include "surface_internal.h"

/* Triangle corners as read, scaled: [n_tri][3 corners][3]. */
typedef struct corners {
    double *c;
    size_t n_tri, cap;
} corners;

static hs_status corners_push(corners *t, const double v[9])
{
    HS_CALL(hs_grow_array((void **)&t->c, &t->cap, t->n_tri + 1, 9 * sizeof(double),
                          "STL triangles"));
    memcpy(t->c + 9 * t->n_tri, v, 9 * sizeof(double));
    ++t->n_tri;
    return HS_OK;
}

/* ---- ASCII ---- */

/* Next token, lower-cased for keyword comparison is not needed: strcasecmp is used. */
static int keyword_is(const char *tok, const char *kw) { return tok && strcasecmp(tok, kw) == 0; }

static hs_status read_ascii(const char *path, double scale, corners *t)
{
    hs_text_reader r;
    HS_CALL(hs_text_reader_open(&r, path, "STL", HS_ERR_MESH, 0));
    hs_status st = HS_OK;
    enum { OUTSIDE, IN_SOLID, IN_FACET, IN_LOOP, AFTER_LOOP } state = OUTSIDE;
    double v[9];
    int nv = 0;
    long facet_line = 0;
    for (;;) {
        int got = 0;
        HS_CALL_GOTO(hs_text_reader_next(&r, &got), done);
        if (!got) break;
        const char *kw = hs_text_reader_token(&r);
        switch (state) {
        case OUTSIDE:
            HS_CHECK_GOTO(keyword_is(kw, "solid"), done, HS_ERR_MESH,
                          "%s:%ld: expected 'solid [name]' to start an ASCII STL solid, found '%s'",
                          path, r.line, kw);
            hs_text_reader_remaining(&r); /* the name, if any */
            state = IN_SOLID;
            break;
        case IN_SOLID:
            if (keyword_is(kw, "endsolid")) {
                hs_text_reader_remaining(&r);
                state = OUTSIDE;
                break;
            }
            HS_CHECK_GOTO(keyword_is(kw, "facet"), done, HS_ERR_MESH,
                          "%s:%ld: expected 'facet normal nx ny nz' or 'endsolid', found '%s'",
                          path, r.line, kw);
            hs_text_reader_remaining(&r); /* the normal is not used */
            facet_line = r.line;
            state = IN_FACET;
            break;
        case IN_FACET: {
            const char *kw2 = hs_text_reader_token(&r);
            HS_CHECK_GOTO(keyword_is(kw, "outer") && keyword_is(kw2, "loop"), done,
                          HS_ERR_MESH, "%s:%ld: expected 'outer loop', found '%s%s%s'", path,
                          r.line, kw, kw2 ? " " : "", kw2 ? kw2 : "");
            HS_CALL_GOTO(hs_text_reader_expect_end(&r, 2, "outer loop"), done);
            nv = 0;
            state = IN_LOOP;
            break;
        }
        case IN_LOOP:
            if (keyword_is(kw, "endloop")) {
                HS_CHECK_GOTO(nv == 3, done, HS_ERR_MESH,
                              "%s:%ld: the facet starting on line %ld has %d vertices; STL facets "
                              "are triangles with exactly 3",
                              path, r.line, facet_line, nv);
                HS_CALL_GOTO(corners_push(t, v), done);
                state = AFTER_LOOP;
                break;
            }
            HS_CHECK_GOTO(keyword_is(kw, "vertex"), done, HS_ERR_MESH,
                          "%s:%ld: expected 'vertex x y z' or 'endloop', found '%s'", path, r.line,
                          kw);
            HS_CHECK_GOTO(nv < 3, done, HS_ERR_MESH,
                          "%s:%ld: a fourth vertex in the facet starting on line %ld; STL facets "
                          "are triangles with exactly 3",
                          path, r.line, facet_line);
            HS_CALL_GOTO(hs_text_reader_next_double(&r, "vertex x coordinate", &v[3 * nv + 0]),
                         done);
            HS_CALL_GOTO(hs_text_reader_next_double(&r, "vertex y coordinate", &v[3 * nv + 1]),
                         done);
            HS_CALL_GOTO(hs_text_reader_next_double(&r, "vertex z coordinate", &v[3 * nv + 2]),
                         done);
            HS_CALL_GOTO(hs_text_reader_expect_end(&r, 4, "vertex x y z"), done);
            for (int k = 0; k < 3; ++k) v[3 * nv + k] *= scale;
            ++nv;
            break;
        case AFTER_LOOP:
            HS_CHECK_GOTO(keyword_is(kw, "endfacet"), done, HS_ERR_MESH,
                          "%s:%ld: expected 'endfacet', found '%s'", path, r.line, kw);
            HS_CALL_GOTO(hs_text_reader_expect_end(&r, 1, "endfacet"), done);
            state = IN_SOLID;
            break;
        }
    }
    HS_CHECK_GOTO(state == OUTSIDE || state == IN_SOLID, done, HS_ERR_MESH,
                  "%s:%ld: file ended inside the facet starting on line %ld", path,
                  hs_text_reader_eof_line(&r), facet_line);
    /* A missing 'endsolid' loses nothing: every facet was complete. */
    if (state == IN_SOLID) hs_warn("%s: ASCII STL ends without 'endsolid'", path);
    HS_CHECK_GOTO(t->n_tri > 0, done, HS_ERR_MESH, "%s:%ld: the STL file holds no facets", path,
                  hs_text_reader_eof_line(&r));
done:
    hs_text_reader_close(&r);
    return st;
}

/* ---- binary ---- */

static uint32_t le_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float le_f32(const unsigned char *p)
{
    uint32_t u = le_u32(p);
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* looks_text: the first bytes hold no NUL, so a size mismatch more likely means "not an STL". */
static hs_status read_binary(FILE *f, const char *path, long long size, int looks_text,
                             double scale, corners *t)
{
    unsigned char head[84];
    HS_CHECK(fseeko(f, 0, SEEK_SET) == 0 && fread(head, 1, 84, f) == 84, HS_ERR_IO,
             "%s: cannot read the binary STL header: %s", path, strerror(errno));
    const uint32_t n = le_u32(head + 80);
    const long long expected = 84 + 50 * (long long)n;
    if (size < expected) {
        const long long k = (size - 84) / 50;
        return HS_FAIL(HS_ERR_MESH,
                       "%s: binary STL: the header (byte 80) announces %lu triangles (%lld bytes) "
                       "but the file has %lld bytes: it ends inside triangle %lld (0-based, byte "
                       "offset %lld); %s",
                       path, (unsigned long)n, expected, size, k, 84 + 50 * k,
                       looks_text ? "is it a text file but not an ASCII STL (those start with "
                                    "'solid')?"
                                  : "is the file truncated?");
    }
    if (size > expected)
        hs_warn("%s: binary STL: ignoring %lld bytes after the %lu triangles the header announces",
                path, size - expected, (unsigned long)n);
    HS_CHECK(n > 0, HS_ERR_MESH, "%s: binary STL: the header (byte 80) announces 0 triangles",
             path);
    unsigned char rec[50];
    for (uint32_t k = 0; k < n; ++k) {
        const long long off = 84 + 50 * (long long)k;
        HS_CHECK(fread(rec, 1, 50, f) == 50, HS_ERR_IO,
                 "%s: binary STL: cannot read triangle %lu (byte offset %lld): %s", path,
                 (unsigned long)k, off, ferror(f) ? strerror(errno) : "unexpected end of file");
        double v[9];
        for (int q = 0; q < 9; ++q) {
            const float x = le_f32(rec + 12 + 4 * q);
            HS_CHECK(isfinite(x), HS_ERR_MESH,
                     "%s: binary STL triangle %lu (0-based, byte offset %lld): corner %d has a "
                     "non-finite coordinate",
                     path, (unsigned long)k, off, q / 3);
            v[q] = scale * (double)x;
        }
        HS_CALL(corners_push(t, v));
    }
    return HS_OK;
}

/* ---- welding ---- */

typedef struct cell_slot {
    int64_t ix, iy, iz;
    int32_t head; /* first point in the cell (chained through next[]), -1: slot empty */
} cell_slot;

static uint64_t cell_hash(int64_t ix, int64_t iy, int64_t iz)
{
    uint64_t h = (uint64_t)ix * 0x9E3779B97F4A7C15ull ^ (uint64_t)iy * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)iz * 0x165667B19E3779F9ull;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 29);
}

/* Slot holding cell (ix,iy,iz), or the empty slot where it would go (open addressing). */
static size_t cell_find(const cell_slot *tab, size_t mask, int64_t ix, int64_t iy, int64_t iz)
{
    size_t i = (size_t)cell_hash(ix, iy, iz) & mask;
    while (tab[i].head >= 0 && !(tab[i].ix == ix && tab[i].iy == iy && tab[i].iz == iz))
        i = (i + 1) & mask;
    return i;
}

/* Weld the corners into points of b and add the triangles; collapsed ones are dropped. */
static hs_status weld(const char *path, const corners *t, double tol, hs_surface_builder *b)
{
    const size_t n = 3 * t->n_tri;
    HS_CHECK(n <= INT32_MAX, HS_ERR_MESH, "%s: %zu triangles are more than this reader handles",
             path, t->n_tri);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) {
            lo[k] = fmin(lo[k], t->c[3 * i + k]);
            hi[k] = fmax(hi[k], t->c[3 * i + k]);
        }
    const double diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                             (hi[2] - lo[2]) * (hi[2] - lo[2]));
    HS_CHECK(isfinite(diag), HS_ERR_MESH,
             "%s: the triangles span more than the largest double (coordinates up to %g); is the "
             "scale right?",
             path, fmax(fmax(fabs(lo[0]), fabs(hi[0])),
                        fmax(fmax(fabs(lo[1]), fabs(hi[1])), fmax(fabs(lo[2]), fabs(hi[2])))));
    if (!(tol > 0.0)) tol = 1e-6 * diag;
    /* Cells are at least the tolerance (so the 27 cells around a corner hold every candidate) and
     * at least 1e-12 of the extent (so cell numbers stay far inside int64 whatever tol is). */
    double h = fmax(tol, 1e-12 * diag);
    if (!(h > 0.0)) h = 1.0; /* every corner at one place: all weld into one point anyway */

    size_t cap = 64;
    while (cap < 2 * n) cap *= 2;
    hs_status st = HS_OK;
    cell_slot *tab = NULL;
    int32_t *next = NULL, *map = NULL;
    HS_CALL_GOTO(HS_ALLOC(tab, cap, "STL welding grid"), done);
    HS_CALL_GOTO(HS_ALLOC(next, n, "STL welding chains"), done);
    HS_CALL_GOTO(HS_ALLOC(map, n, "STL corner map"), done);
    for (size_t i = 0; i < cap; ++i) tab[i].head = -1;
    const double tol2 = tol * tol;
    for (size_t i = 0; i < n; ++i) {
        const double *x = t->c + 3 * i;
        int64_t c[3];
        for (int k = 0; k < 3; ++k) c[k] = (int64_t)floor((x[k] - lo[k]) / h);
        int32_t found = -1;
        for (int dx = -1; dx <= 1 && found < 0; ++dx)
            for (int dy = -1; dy <= 1 && found < 0; ++dy)
                for (int dz = -1; dz <= 1 && found < 0; ++dz) {
                    const size_t s = cell_find(tab, cap - 1, c[0] + dx, c[1] + dy, c[2] + dz);
                    for (int32_t p = tab[s].head; p >= 0 && found < 0; p = next[p]) {
                        const double *y = b->s.xyz + 3 * (size_t)p;
                        const double d2 = (x[0] - y[0]) * (x[0] - y[0]) +
                                          (x[1] - y[1]) * (x[1] - y[1]) +
                                          (x[2] - y[2]) * (x[2] - y[2]);
                        if (d2 <= tol2) found = p;
                    }
                }
        if (found < 0) {
            found = b->s.n_points;
            HS_CALL_GOTO(hs_surface_builder_point(b, x[0], x[1], x[2]), done);
            const size_t s = cell_find(tab, cap - 1, c[0], c[1], c[2]);
            next[found] = tab[s].head; /* -1 for a new cell */
            tab[s] = (cell_slot){c[0], c[1], c[2], found};
        }
        map[i] = found;
    }
    size_t collapsed = 0;
    for (size_t k = 0; k < t->n_tri; ++k) {
        const int32_t *v = map + 3 * k;
        if (v[0] == v[1] || v[1] == v[2] || v[2] == v[0]) {
            ++collapsed;
            continue;
        }
        HS_CALL_GOTO(hs_surface_builder_facet(b, v, 3, 0), done);
    }
    b->s.n_points_welded = (int32_t)(n - (size_t)b->s.n_points);
    hs_log(1, "%s: welded %zu STL triangle corners into %d points (%d merged, tolerance %g mm)\n",
           path, n, (int)b->s.n_points, (int)b->s.n_points_welded, tol);
    if (collapsed)
        hs_warn("%s: dropped %zu of %zu STL triangles that welding collapsed (two corners closer "
                "than %g mm)",
                path, collapsed, t->n_tri, tol);
    HS_CHECK_GOTO(b->s.n_facets > 0, done, HS_ERR_MESH,
                  "%s: no triangles left after welding corners closer than %g mm", path, tol);
done:
    free(tab);
    free(next);
    free(map);
    return st;
}

/* ---- entry ---- */

hs_status hs_surface_read_stl(const char *path, double scale, double weld_tol, hs_surface **out)
{
    HS_CHECK(out != NULL, HS_ERR_INTERNAL, "hs_surface_read_stl: out is NULL");
    *out = NULL;
    HS_CHECK(path != NULL && path[0] != '\0', HS_ERR_MESH, "STL file path is empty");
    HS_CALL(hs_surface_check_scale(path, scale));
    FILE *f = fopen(path, "rb");
    HS_CHECK(f != NULL, HS_ERR_MESH, "cannot open STL file '%s': %s", path, strerror(errno));
    hs_status st = HS_OK;
    corners t = {0};
    hs_surface_builder b;
    hs_surface_builder_init(&b);

    long long size = -1;
    if (fseeko(f, 0, SEEK_END) == 0) size = (long long)ftello(f);
    HS_CHECK_GOTO(size >= 0 && fseeko(f, 0, SEEK_SET) == 0, done, HS_ERR_IO,
                  "%s: cannot determine the file size: %s", path, strerror(errno));
    HS_CHECK_GOTO(size > 0, done, HS_ERR_MESH,
                  "%s: the file is empty (expected an ASCII STL starting with 'solid' or a binary "
                  "STL)",
                  path);
    unsigned char head[512];
    const size_t nhead = fread(head, 1, sizeof head, f);
    HS_CHECK_GOTO(nhead == (size_t)(size < 512 ? size : 512), done, HS_ERR_IO,
                  "%s: cannot read the start of the file: %s", path, strerror(errno));
    size_t p = 0;
    while (p < nhead && (head[p] == ' ' || head[p] == '\t' || head[p] == '\r' || head[p] == '\n'))
        ++p;
    const int starts_solid = nhead - p >= 5 && strncasecmp((const char *)head + p, "solid", 5) == 0;
    const int has_nul = memchr(head, 0, nhead) != NULL;
    const int size_fits = size >= 84 && size == 84 + 50 * (long long)le_u32(head + 80);
    if (!size_fits && starts_solid && !has_nul) {
        fclose(f);
        f = NULL;
        HS_CALL_GOTO(read_ascii(path, scale, &t), done);
    } else {
        HS_CHECK_GOTO(size >= 84, done, HS_ERR_MESH,
                      "%s: not an ASCII STL (%s) and, at %lld bytes, too short for a binary STL "
                      "(84-byte header)",
                      path, starts_solid ? "it holds NUL bytes" : "it does not start with 'solid'",
                      size);
        HS_CALL_GOTO(read_binary(f, path, size, !has_nul, scale, &t), done);
    }
    HS_CALL_GOTO(weld(path, &t, weld_tol, &b), done);
    HS_CALL_GOTO(hs_surface_builder_finish(&b, out), done);
done:
    if (f) fclose(f);
    free(t.c);
    hs_surface_builder_free(&b);
    return st;
}

/* The listed reader (hs_surface_reader_list.h). */
hs_status hs_surface_reader_stl(const char *path, double scale, const hs_surface_read_opts *o, hs_surface **out)
{
    return hs_surface_read_stl(path, scale, o->weld_tol, out);
}
