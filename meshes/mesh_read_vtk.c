/* Reader for legacy VTK unstructured grids ("VTK User's Guide", file formats: simple legacy
 * formats), ASCII and BINARY, versions up to 5.1.
 *
 *   # vtk DataFile Version 3.0        line 1; 5.1 changes the CELLS layout (below)
 *   title                             line 2, anything
 *   ASCII | BINARY
 *   DATASET UNSTRUCTURED_GRID
 *   POINTS n float|double             3n numbers
 *   CELLS n size                      classic: per cell "k i1 .. ik", size = n + sum k (int32)
 *   CELLS n_off n_conn                5.1: then "OFFSETS vtktypeint64" n_off values and
 *                                     "CONNECTIVITY vtktypeint64" n_conn values
 *   CELL_TYPES n                      n types (int32)
 *   CELL_DATA n / POINT_DATA n        then SCALARS name type [ncomp] + LOOKUP_TABLE name, VECTORS,
 *                                     NORMALS, TENSORS, TEXTURE_COORDINATES, COLOR_SCALARS,
 *                                     FIELD name k + k arrays "name ncomp ntuples type", ...
 *   METADATA ... blank line           after any array (VTK >= 8 writes it)
 *
 * ASCII data is a stream of whitespace-separated numbers, so values may be laid out over lines
 * freely. BINARY data is big-endian and follows the keyword line's newline; exactly the announced
 * number of bytes is read with fread on the same FILE as the text lines, and the newline VTK
 * writes after each block is then consumed as an empty line. Newlines inside binary blocks are
 * counted, so the line numbers in messages are the ones an editor shows.
 *
 * Kept: tetrahedra (type 10; 24 = quadratic, corners kept, when linearising) as elements; a cell
 * array named region, regions, tag, material, elemTag, gmsh:physical or CellEntityIds (one integral
 * component) as region markers; a cell array named fiber, fibers, fibre or fibres (3 components,
 * normalised) as fibres. Triangles with a non-zero region marker become labelled boundary faces;
 * vertices, lines and other triangles are skipped; any other cell type is refused, naming the
 * first such cell. Every other array is skipped (checked as numbers in ASCII). *
 * Over 600 lines on purpose: this is one file format's whole grammar (ASCII and BINARY, classic and
 * 5.1 cell layouts, the point and cell data that carry regions and fibres) with a check and a
 * message naming the line for each malformed case; the line reading itself is common/hs_text_reader.c.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hs_mesh_io.h"
#include "hs_text_reader.h"
#include "hs_util.h"
#include "mesh_read_internal.h"
#include "vtk_xml.h"

enum {
    VTK_CHUNK = 1 << 16, /* binary read buffer; a multiple of every value size */
    VTK_VERTEX = 1,
    VTK_LINE = 3,
    VTK_TRIANGLE = 5,
    VTK_TETRA = 10,
    VTK_QUADRATIC_TETRA = 24
};

/* ---- value types ---------------------------------------------------------------------------- */

typedef struct vtk_type {
    const char *name;
    int size;      /* bytes in binary files; 0 = bit (packed 8 per byte) */
    int is_int;
    int is_signed;
} vtk_type;

static const vtk_type k_types[] = {
    {"bit", 0, 1, 0},           {"unsigned_char", 1, 1, 0},  {"char", 1, 1, 1},
    {"signed_char", 1, 1, 1},   {"unsigned_short", 2, 1, 0}, {"short", 2, 1, 1},
    {"unsigned_int", 4, 1, 0},  {"int", 4, 1, 1},            {"unsigned_long", 8, 1, 0},
    {"long", 8, 1, 1},          {"float", 4, 0, 1},          {"double", 8, 0, 1},
    {"vtktypeint8", 1, 1, 1},   {"vtktypeuint8", 1, 1, 0},   {"vtktypeint16", 2, 1, 1},
    {"vtktypeuint16", 2, 1, 0}, {"vtktypeint32", 4, 1, 1},   {"vtktypeuint32", 4, 1, 0},
    {"vtktypeint64", 8, 1, 1},  {"vtktypeuint64", 8, 1, 0},  {"vtkidtype", 8, 1, 1},
    {"vtktypefloat32", 4, 0, 1}, {"vtktypefloat64", 8, 0, 1}};

static const vtk_type *k_int32 = &k_types[7];
static const vtk_type *k_uchar = &k_types[1];
static const vtk_type *k_float = &k_types[10];

static const vtk_type *find_type(const char *name)
{
    for (size_t i = 0; i < sizeof k_types / sizeof k_types[0]; ++i)
        if (strcasecmp(name, k_types[i].name) == 0) return &k_types[i];
    return NULL;
}

/* ---- reader state --------------------------------------------------------------------------- */

enum { ATTR_NONE, ATTR_POINT, ATTR_CELL };

typedef struct vtk {
    hs_text_reader r;
    FILE *f;
    const char *path;
    int binary;
    int new_cells; /* 5.1 OFFSETS/CONNECTIVITY layout */
    int linearize;

    /* the array being read */
    const vtk_type *type;
    uint64_t count, k;   /* values announced / read */
    char what[96];       /* "POINTS", "SCALARS region", ... for messages */
    long sec_line;       /* line of its keyword */
    unsigned char *chunk;
    size_t chunk_len, chunk_pos;
    uint64_t block_left; /* binary bytes still in the FILE */
    long block_nl;       /* newlines met inside the binary block */

    /* the dataset */
    hs_mesh_parts p;     /* points go straight into p.xyz */
    int have_points, have_cells, have_types;
    long points_line, cells_line;
    size_t n_cells, cap_start, cap_npts, cap_conn, cap_ctype, n_conn;
    int64_t *cell_start; /* [n_cells] first entry of each cell in conn */
    int32_t *cell_npts;  /* [n_cells] */
    int32_t *conn;       /* [n_conn] point indices */
    unsigned char *cell_type; /* [n_cells] */
    int attr;            /* ATTR_*: what the following arrays belong to */
    size_t attr_n;
    int32_t *cell_region; /* [n_cells] or NULL */
    double *cell_fiber;   /* [n_cells][3] or NULL */
    size_t cap_region, cap_fiber;
    char region_name[64], fiber_name[64];
    long fiber_line;
} vtk;

static long value_line(const vtk *v) { return v->binary ? v->sec_line : v->r.line; }

/* ---- tokens and keywords -------------------------------------------------------------------- */

/* Next token of the stream (crossing lines); NULL at end of file. */
static hs_status stream_token(vtk *v, char **tok)
{
    for (;;) {
        char *t = hs_text_reader_token(&v->r);
        if (t) {
            *tok = t;
            return HS_OK;
        }
        int got = 0;
        hs_status st = hs_text_reader_next(&v->r, &got);
        if (st != HS_OK) {
            /* In a binary file the only way to meet a NUL where text should be is a section
             * whose data is longer than its header says. */
            if (v->binary && st == HS_ERR_MESH) {
                hs_error_clear();
                return HS_FAIL(HS_ERR_MESH,
                               "%s:%ld: binary data where a keyword was expected; the section "
                               "before (%s, line %ld) holds more data than its header announces",
                               v->path, v->r.line, v->what, v->sec_line);
            }
            return st;
        }
        if (!got) {
            *tok = NULL;
            return HS_OK;
        }
    }
}

/* A keyword's argument on the same line. */
static hs_status arg_token(vtk *v, const char *kw, const char *field, char **tok)
{
    *tok = hs_text_reader_token(&v->r);
    HS_CHECK(*tok != NULL, HS_ERR_MESH, "%s:%ld: %s: expected %s, found end of line", v->path,
             v->r.line, kw, field);
    return HS_OK;
}

static hs_status arg_count(vtk *v, const char *kw, const char *field, long long max,
                           long long *n)
{
    char *tok;
    HS_CALL(arg_token(v, kw, field, &tok));
    HS_CALL(hs_text_reader_long(&v->r, tok, field, n));
    HS_CHECK(*n >= 0 && *n <= max, HS_ERR_MESH, "%s:%ld: %s: %s %lld out of range 0..%lld",
             v->path, v->r.line, kw, field, *n, max);
    return HS_OK;
}

static hs_status arg_type(vtk *v, const char *kw, int need_int, const vtk_type **t)
{
    char *tok;
    HS_CALL(arg_token(v, kw, "data type", &tok));
    *t = find_type(tok);
    HS_CHECK(*t != NULL, HS_ERR_MESH,
             "%s:%ld: %s: data type '%s' is not read; expected a numeric type (float, double, "
             "int, vtktypeint64, ...)",
             v->path, v->r.line, kw, tok);
    HS_CHECK(!need_int || (*t)->is_int, HS_ERR_MESH, "%s:%ld: %s: data type %s; expected an "
             "integer type",
             v->path, v->r.line, kw, (*t)->name);
    return HS_OK;
}

/* Data type of an array that is read, not skipped: packed bits make no coordinates or indices. */
static hs_status arg_value_type(vtk *v, const char *kw, int need_int, const vtk_type **t)
{
    HS_CALL(arg_type(v, kw, need_int, t));
    HS_CHECK((*t)->size != 0, HS_ERR_MESH, "%s:%ld: %s: data type bit; expected %s", v->path,
             v->r.line, kw, need_int ? "an integer type" : "float or double");
    return HS_OK;
}

/* End of a keyword line: in binary files the data starts after it, so nothing may be left. */
static hs_status keyword_end(vtk *v, long n_fields, const char *layout)
{
    if (v->binary) HS_CALL(hs_text_reader_expect_end(&v->r, n_fields, layout));
    return HS_OK;
}

/* ---- values --------------------------------------------------------------------------------- */

static hs_status values_begin(vtk *v, const vtk_type *t, uint64_t count, const char *what)
{
    v->type = t;
    v->count = count;
    v->k = 0;
    snprintf(v->what, sizeof v->what, "%s", what);
    v->sec_line = v->r.line;
    if (v->binary) {
        HS_CHECK(count <= (UINT64_C(1) << 40), HS_ERR_MESH, "%s:%ld: %s: %llu values is too many",
                 v->path, v->r.line, what, (unsigned long long)count);
        v->block_left = t->size ? count * (uint64_t)t->size : (count + 7) / 8;
        v->chunk_len = v->chunk_pos = 0;
        v->block_nl = 0;
        v->r.cur = NULL; /* the rest of the keyword line was checked empty */
    }
    return HS_OK;
}

static hs_status fill_chunk(vtk *v)
{
    const size_t want = v->block_left < VTK_CHUNK ? (size_t)v->block_left : VTK_CHUNK;
    const uint64_t total = v->type->size ? v->count * (uint64_t)v->type->size
                                         : (v->count + 7) / 8;
    errno = 0;
    const size_t got = fread(v->chunk, 1, want, v->f);
    for (size_t i = 0; i < got; ++i) v->block_nl += v->chunk[i] == '\n';
    if (got < want) {
        HS_CHECK(!ferror(v->f), HS_ERR_IO, "%s: read error in the binary data of %s (line %ld): %s",
                 v->path, v->what, v->sec_line, strerror(errno));
        return HS_FAIL(HS_ERR_MESH,
                       "%s:%ld: file ended inside the binary data of %s: %llu of the %llu bytes "
                       "it announces are present",
                       v->path, v->sec_line, v->what,
                       (unsigned long long)(total - v->block_left + got),
                       (unsigned long long)total);
    }
    v->block_left -= got;
    v->chunk_len = got;
    v->chunk_pos = 0;
    return HS_OK;
}

static uint64_t be_get(const unsigned char *b, int size)
{
    uint64_t u = 0;
    for (int i = 0; i < size; ++i) u = (u << 8) | b[i];
    return u;
}

/* Next value of the array, as a double (integers exactly up to 2^53) and, for integer types, as
 * an integer; is_int tells which. */
static hs_status next_value(vtk *v, double *d, long long *i)
{
    const vtk_type *t = v->type;
    HS_CHECK(v->k < v->count, HS_ERR_INTERNAL, "%s: read past the %llu values of %s", v->path,
             (unsigned long long)v->count, v->what);
    if (!v->binary) {
        char *tok = NULL;
        HS_CALL(stream_token(v, &tok));
        HS_CHECK(tok != NULL, HS_ERR_MESH,
                 "%s:%ld: file ended after %llu of the %llu values of %s (line %ld)", v->path,
                 hs_text_reader_eof_line(&v->r), (unsigned long long)v->k,
                 (unsigned long long)v->count, v->what, v->sec_line);
        char *end = NULL;
        errno = 0;
        const char *hint = (tok[0] >= 'A' && tok[0] <= 'Z') || (tok[0] >= 'a' && tok[0] <= 'z')
                               ? "; does the count in the header match the data?"
                               : "";
        if (t->is_int) {
            const long long x = strtoll(tok, &end, 10);
            HS_CHECK(end != tok && *end == '\0' && errno != ERANGE, HS_ERR_MESH,
                     "%s:%ld: expected an integer (value %llu of the %llu of %s, line %ld), found "
                     "'%s'%s",
                     v->path, v->r.line, (unsigned long long)v->k + 1,
                     (unsigned long long)v->count, v->what, v->sec_line, tok, hint);
            *i = x;
            *d = (double)x;
        } else {
            const double x = strtod(tok, &end);
            HS_CHECK(end != tok && *end == '\0', HS_ERR_MESH,
                     "%s:%ld: expected a number (value %llu of the %llu of %s, line %ld), found "
                     "'%s'%s",
                     v->path, v->r.line, (unsigned long long)v->k + 1,
                     (unsigned long long)v->count, v->what, v->sec_line, tok, hint);
            *d = x;
            *i = 0;
        }
        ++v->k;
        return HS_OK;
    }
    if (t->size == 0) { /* bit arrays are only ever skipped */
        if (v->chunk_pos == v->chunk_len) HS_CALL(fill_chunk(v));
        if (v->k % 8 == 7 || v->k + 1 == v->count) ++v->chunk_pos;
        *d = 0.0;
        *i = 0;
        ++v->k;
        return HS_OK;
    }
    if (v->chunk_pos == v->chunk_len) HS_CALL(fill_chunk(v));
    const unsigned char *b = v->chunk + v->chunk_pos;
    v->chunk_pos += (size_t)t->size;
    const uint64_t u = be_get(b, t->size);
    if (!t->is_int) {
        if (t->size == 4) {
            uint32_t u32 = (uint32_t)u;
            float x;
            memcpy(&x, &u32, sizeof x);
            *d = x;
        } else {
            memcpy(d, &u, sizeof *d);
        }
        *i = 0;
    } else if (t->is_signed) {
        /* sign-extend from size bytes */
        const int shift = 64 - 8 * t->size;
        int64_t s;
        const uint64_t w = u << shift;
        memcpy(&s, &w, sizeof s);
        *i = shift ? s / ((int64_t)1 << shift) : s;
        *d = (double)*i;
    } else {
        HS_CHECK(u <= (uint64_t)INT64_MAX, HS_ERR_MESH,
                 "%s:%ld: value %llu of %s is too large", v->path, v->sec_line,
                 (unsigned long long)v->k + 1, v->what);
        *i = (long long)u;
        *d = (double)*i;
    }
    ++v->k;
    return HS_OK;
}

static hs_status next_int(vtk *v, long long *i)
{
    double d;
    return next_value(v, &d, i);
}

/* After the last value: in binary files, continue counting lines after the block. */
static void values_end(vtk *v)
{
    if (v->binary) {
        v->r.line += v->block_nl;
        v->block_nl = 0;
        v->r.cur = NULL;
    }
}

static hs_status skip_values(vtk *v, const vtk_type *t, uint64_t count, const char *what)
{
    HS_CALL(values_begin(v, t, count, what));
    if (v->binary) {
        while (v->block_left > 0) HS_CALL(fill_chunk(v));
        v->k = count;
    } else {
        double d;
        long long i;
        while (v->k < count) HS_CALL(next_value(v, &d, &i));
    }
    values_end(v);
    return HS_OK;
}

/* ---- sections ------------------------------------------------------------------------------- */

static hs_status read_points(vtk *v)
{
    long long n;
    const vtk_type *t;
    HS_CHECK(!v->have_points, HS_ERR_MESH, "%s:%ld: second POINTS section", v->path, v->r.line);
    HS_CALL(arg_count(v, "POINTS", "number of points", INT32_MAX, &n));
    HS_CALL(arg_value_type(v, "POINTS", 0, &t));
    HS_CALL(keyword_end(v, 3, "POINTS n type"));
    v->points_line = v->r.line;
    HS_CALL(values_begin(v, t, 3 * (uint64_t)n, "POINTS"));
    for (long long p = 0; p < n; ++p) {
        double x[3];
        long long dummy;
        for (int c = 0; c < 3; ++c) HS_CALL(next_value(v, &x[c], &dummy));
        HS_CHECK(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]), HS_ERR_MESH,
                 "%s:%ld: point %lld has a non-finite coordinate (%g, %g, %g)", v->path,
                 value_line(v), p, x[0], x[1], x[2]);
        HS_CALL(hs_mesh_parts_add_node(&v->p, x));
    }
    values_end(v);
    v->have_points = 1;
    return HS_OK;
}

static hs_status add_cell(vtk *v, int64_t start, int32_t npts)
{
    const size_t n = v->n_cells + 1;
    HS_CALL(hs_grow_array((void **)&v->cell_start, &v->cap_start, n, sizeof(int64_t), "cells"));
    HS_CALL(hs_grow_array((void **)&v->cell_npts, &v->cap_npts, n, sizeof(int32_t), "cells"));
    v->cell_start[v->n_cells] = start;
    v->cell_npts[v->n_cells] = npts;
    v->n_cells = n;
    return HS_OK;
}

static hs_status add_conn(vtk *v, long long i)
{
    HS_CHECK(i >= 0 && i <= INT32_MAX, HS_ERR_MESH,
             "%s:%ld: point index %lld in %s is out of range", v->path, value_line(v), i,
             v->what);
    HS_CALL(hs_grow_array((void **)&v->conn, &v->cap_conn, v->n_conn + 1, sizeof(int32_t),
                          "cell connectivity"));
    v->conn[v->n_conn++] = (int32_t)i;
    return HS_OK;
}

/* Classic layout: "CELLS n size", then per cell "k i1 .. ik" (int32), size = n + sum k. */
static hs_status read_cells_classic(vtk *v, long long n, long long size)
{
    HS_CALL(values_begin(v, k_int32, (uint64_t)size, "CELLS"));
    for (long long c = 0; c < n; ++c) {
        long long k;
        HS_CHECK(v->k < v->count, HS_ERR_MESH,
                 "%s:%ld: CELLS: the size %lld announced is used up after %lld of the %lld cells",
                 v->path, v->sec_line, size, c, n);
        HS_CALL(next_int(v, &k));
        HS_CHECK(k >= 0 && k <= INT32_MAX && (uint64_t)k <= v->count - v->k, HS_ERR_MESH,
                 "%s:%ld: CELLS: cell %lld has %lld points, but only %llu of the size %lld "
                 "announced at line %ld are left",
                 v->path, value_line(v), c, k, (unsigned long long)(v->count - v->k), size,
                 v->sec_line);
        HS_CALL(add_cell(v, (int64_t)v->n_conn, (int32_t)k));
        for (long long j = 0; j < k; ++j) {
            long long i;
            HS_CALL(next_int(v, &i));
            HS_CALL(add_conn(v, i));
        }
    }
    HS_CHECK(v->k == v->count, HS_ERR_MESH,
             "%s:%ld: CELLS: the %lld cells hold %llu values, but the header announces size "
             "%lld (= number of cells + their point counts)",
             v->path, v->sec_line, n, (unsigned long long)v->k, size);
    values_end(v);
    return HS_OK;
}

/* 5.1 layout: "OFFSETS type" with n_off values, "CONNECTIVITY type" with n_conn values. */
static hs_status read_cells_51(vtk *v, long long n_off, long long n_conn)
{
    static const char *kws[2] = {"OFFSETS", "CONNECTIVITY"};
    const long cells_line = v->r.line;
    for (int s = 0; s < 2; ++s) {
        char *kw = NULL;
        HS_CALL(stream_token(v, &kw));
        HS_CHECK(kw != NULL && strcasecmp(kw, kws[s]) == 0, HS_ERR_MESH,
                 "%s:%ld: expected %s (VTK 5.1 cell layout, after CELLS at line %ld), found '%s'",
                 v->path, hs_text_reader_eof_line(&v->r), kws[s], cells_line,
                 kw ? kw : "end of file");
        const vtk_type *t;
        HS_CALL(arg_value_type(v, kws[s], 1, &t));
        HS_CALL(keyword_end(v, 2, s ? "CONNECTIVITY type" : "OFFSETS type"));
        HS_CALL(values_begin(v, t, (uint64_t)(s ? n_conn : n_off), kws[s]));
        long long prev = 0;
        for (long long j = 0; j < (s ? n_conn : n_off); ++j) {
            long long x;
            HS_CALL(next_int(v, &x));
            if (s) {
                HS_CALL(add_conn(v, x));
                continue;
            }
            HS_CHECK(j > 0 || x == 0, HS_ERR_MESH, "%s:%ld: OFFSETS: first offset is %lld; "
                     "expected 0",
                     v->path, value_line(v), x);
            HS_CHECK(x >= prev && x <= n_conn && x - prev <= INT32_MAX, HS_ERR_MESH,
                     "%s:%ld: OFFSETS: offset %lld is %lld after %lld; offsets must increase "
                     "and stay within the %lld connectivity entries announced at line %ld",
                     v->path, value_line(v), j, x, prev, n_conn, cells_line);
            if (j > 0) HS_CALL(add_cell(v, prev, (int32_t)(x - prev)));
            prev = x;
        }
        HS_CHECK(s || n_off == 0 || prev == n_conn, HS_ERR_MESH,
                 "%s:%ld: OFFSETS: last offset is %lld; expected %lld, the connectivity size "
                 "announced at line %ld",
                 v->path, v->sec_line, prev, n_conn, cells_line);
        values_end(v);
    }
    return HS_OK;
}

static hs_status read_cells(vtk *v)
{
    long long a, b;
    HS_CHECK(!v->have_cells, HS_ERR_MESH, "%s:%ld: second CELLS section", v->path, v->r.line);
    v->cells_line = v->r.line;
    HS_CALL(arg_count(v, "CELLS", v->new_cells ? "number of offsets" : "number of cells",
                      (long long)INT32_MAX + 1, &a));
    HS_CALL(arg_count(v, "CELLS", v->new_cells ? "connectivity size" : "size", INT64_MAX / 16,
                      &b));
    HS_CALL(keyword_end(v, 3, v->new_cells ? "CELLS n_offsets n_connectivity" : "CELLS n size"));
    HS_CALL(v->new_cells ? read_cells_51(v, a, b) : read_cells_classic(v, a, b));
    v->have_cells = 1;
    return HS_OK;
}

static hs_status read_cell_types(vtk *v)
{
    long long n;
    HS_CHECK(v->have_cells, HS_ERR_MESH, "%s:%ld: CELL_TYPES before CELLS", v->path, v->r.line);
    HS_CHECK(!v->have_types, HS_ERR_MESH, "%s:%ld: second CELL_TYPES section", v->path,
             v->r.line);
    HS_CALL(arg_count(v, "CELL_TYPES", "number of cells", INT32_MAX, &n));
    HS_CALL(keyword_end(v, 2, "CELL_TYPES n"));
    HS_CHECK((size_t)n == v->n_cells, HS_ERR_MESH,
             "%s:%ld: CELL_TYPES announces %lld cells, but CELLS (line %ld) has %zu", v->path,
             v->r.line, n, v->cells_line, v->n_cells);
    HS_CALL(values_begin(v, k_int32, (uint64_t)n, "CELL_TYPES"));
    HS_CALL(hs_grow_array((void **)&v->cell_type, &v->cap_ctype, (size_t)n, 1, "cell types"));
    for (long long c = 0; c < n; ++c) {
        long long t;
        HS_CALL(next_int(v, &t));
        const int32_t np = v->cell_npts[c];
        const char *name = hs_vtk_cell_type_name(t);
        if (t == VTK_VERTEX || t == VTK_LINE || t == VTK_TRIANGLE || t == VTK_TETRA ||
            t == VTK_QUADRATIC_TETRA) {
            static const int expect[25] = {[VTK_VERTEX] = 1, [VTK_LINE] = 2,
                                           [VTK_TRIANGLE] = 3, [VTK_TETRA] = 4,
                                           [VTK_QUADRATIC_TETRA] = 10};
            HS_CHECK(np == expect[t], HS_ERR_MESH,
                     "%s:%ld: cell %lld is a %s (VTK type %lld) with %ld points in CELLS (line "
                     "%ld); expected %d",
                     v->path, value_line(v), c, name, t, (long)np, v->cells_line, expect[t]);
            HS_CHECK(t != VTK_QUADRATIC_TETRA || v->linearize, HS_ERR_MESH,
                     "%s:%ld: cell %lld is a quadratic (10-node) tetrahedron (VTK type 24); "
                     "heartsim uses linear tetrahedra: set mesh.quadratic = \"linearize\" in the "
                     "config to keep the corner nodes and drop the mid-edge ones",
                     v->path, value_line(v), c);
        } else if (name) {
            return HS_FAIL(HS_ERR_MESH,
                           "%s:%ld: cell %lld is a %s (VTK type %lld); heartsim reads tetrahedra "
                           "(type 10) only, skipping vertices, lines and triangles: re-mesh the "
                           "volume with tetrahedra",
                           v->path, value_line(v), c, name, t);
        } else {
            return HS_FAIL(HS_ERR_MESH,
                           "%s:%ld: cell %lld has VTK type %lld, which is not a cell type heartsim "
                           "knows; heartsim reads tetrahedra (type 10)",
                           v->path, value_line(v), c, t);
        }
        v->cell_type[c] = (unsigned char)t;
    }
    values_end(v);
    v->have_types = 1;
    return HS_OK;
}

/* One data array of the current CELL_DATA/POINT_DATA: kept when it is a region or fibre array,
 * otherwise skipped. ntuples * ncomp values of type t follow (ncomp checked by the caller). */
static hs_status data_array(vtk *v, const char *kind, const char *name, const vtk_type *t,
                            long long ncomp, uint64_t ntuples)
{
    char what[96];
    snprintf(what, sizeof what, "%s %.60s", kind, name);
    HS_CHECK(ntuples <= (UINT64_C(1) << 34), HS_ERR_MESH, "%s:%ld: %s: %llu tuples is too many",
             v->path, v->r.line, what, (unsigned long long)ntuples);
    const int on_cells = v->attr == ATTR_CELL && ntuples == v->n_cells;
    const int region = on_cells && ncomp == 1 && t->size != 0 && hs_vtk_is_region_name(name);
    const int fiber = on_cells && ncomp == 3 && t->size != 0 && hs_vtk_is_fiber_name(name);
    if ((region && v->cell_region) || (fiber && v->cell_fiber)) {
        hs_log(1, "%s:%ld: %s: a %s array (\"%s\") was read already; this one is ignored\n",
               v->path, v->r.line, what, region ? "region" : "fibre",
               region ? v->region_name : v->fiber_name);
        return skip_values(v, t, ntuples * (uint64_t)ncomp, what);
    }
    if (!region && !fiber) return skip_values(v, t, ntuples * (uint64_t)ncomp, what);

    HS_CALL(values_begin(v, t, ntuples * (uint64_t)ncomp, what));
    if (region) {
        snprintf(v->region_name, sizeof v->region_name, "%s", name);
        for (uint64_t c = 0; c < ntuples; ++c) {
            double d;
            long long i;
            HS_CALL(next_value(v, &d, &i));
            HS_CHECK(d == floor(d) && fabs(d) <= (double)INT32_MAX, HS_ERR_MESH,
                     "%s:%ld: %s: value %.17g of cell %llu is not a 32-bit integer; region "
                     "markers must be integers",
                     v->path, value_line(v), what, d, (unsigned long long)c);
            HS_CALL(hs_grow_array((void **)&v->cell_region, &v->cap_region, c + 1,
                                  sizeof(int32_t), "region markers"));
            v->cell_region[c] = (int32_t)d;
        }
    } else {
        snprintf(v->fiber_name, sizeof v->fiber_name, "%s", name);
        v->fiber_line = v->sec_line;
        for (uint64_t c = 0; c < ntuples; ++c) {
            HS_CALL(hs_grow_array((void **)&v->cell_fiber, &v->cap_fiber, c + 1,
                                  3 * sizeof(double), "fibres"));
            for (int k = 0; k < 3; ++k) {
                long long i;
                HS_CALL(next_value(v, &v->cell_fiber[3 * c + k], &i));
            }
        }
    }
    values_end(v);
    return HS_OK;
}

/* "METADATA", then lines (COMPONENT_NAMES, INFORMATION, ...) up to an empty line. */
static hs_status skip_metadata(vtk *v)
{
    for (;;) {
        int got = 0;
        HS_CALL(hs_text_reader_raw(&v->r, &got));
        if (!got) break;
        const char *c = v->r.buf;
        while (*c == ' ' || *c == '\t' || *c == '\r' || *c == '\n') ++c;
        if (*c == '\0') break;
    }
    v->r.cur = NULL;
    return HS_OK;
}

/* "FIELD name k", then k arrays "name ncomp ntuples type" + data (METADATA may follow each). */
static hs_status read_field(vtk *v)
{
    char *tok;
    long long narr;
    HS_CALL(arg_token(v, "FIELD", "field name", &tok));
    HS_CALL(arg_count(v, "FIELD", "number of arrays", 1000000, &narr));
    HS_CALL(keyword_end(v, 3, "FIELD name numArrays"));
    const long field_line = v->r.line;
    for (long long a = 0; a < narr; ++a) {
        char *name = NULL;
        HS_CALL(stream_token(v, &name));
        if (name && strcmp(name, "METADATA") == 0) {
            HS_CALL(skip_metadata(v));
            HS_CALL(stream_token(v, &name));
        }
        HS_CHECK(name != NULL, HS_ERR_MESH,
                 "%s:%ld: file ended after %lld of the %lld arrays of FIELD (line %ld)", v->path,
                 hs_text_reader_eof_line(&v->r), a, narr, field_line);
        if (strcmp(name, "NULL_ARRAY") == 0) continue;
        char nm[64];
        snprintf(nm, sizeof nm, "%s", name);
        long long ncomp, ntuples;
        const vtk_type *t;
        HS_CALL(arg_count(v, nm, "number of components", 4096, &ncomp));
        HS_CALL(arg_count(v, nm, "number of tuples", INT64_MAX / 8, &ntuples));
        HS_CALL(arg_type(v, nm, 0, &t));
        HS_CALL(keyword_end(v, 4, "arrayName numComponents numTuples dataType"));
        HS_CALL(data_array(v, "FIELD array", nm, t, ncomp, (uint64_t)ntuples));
    }
    return HS_OK;
}

/* The attribute arrays of CELL_DATA / POINT_DATA other than FIELD. */
static hs_status read_attribute(vtk *v, const char *kw)
{
    HS_CHECK(v->attr != ATTR_NONE, HS_ERR_MESH,
             "%s:%ld: %s before CELL_DATA or POINT_DATA", v->path, v->r.line, kw);
    char *tok;
    char name[64];
    const vtk_type *t = NULL;
    long long ncomp = 1;
    if (strcasecmp(kw, "LOOKUP_TABLE") == 0) { /* a table of its own: size RGBA entries */
        long long size;
        HS_CALL(arg_token(v, kw, "table name", &tok));
        HS_CALL(arg_count(v, kw, "table size", INT32_MAX, &size));
        HS_CALL(keyword_end(v, 3, "LOOKUP_TABLE name size"));
        return skip_values(v, v->binary ? k_uchar : k_float, 4 * (uint64_t)size, "LOOKUP_TABLE");
    }
    HS_CALL(arg_token(v, kw, "array name", &tok));
    snprintf(name, sizeof name, "%s", tok);
    if (strcasecmp(kw, "COLOR_SCALARS") == 0) {
        HS_CALL(arg_count(v, kw, "number of values", 4096, &ncomp));
        HS_CALL(keyword_end(v, 3, "COLOR_SCALARS name nValues"));
        t = v->binary ? k_uchar : k_float;
    } else if (strcasecmp(kw, "TEXTURE_COORDINATES") == 0) {
        HS_CALL(arg_count(v, kw, "dimension", 3, &ncomp));
        HS_CALL(arg_type(v, kw, 0, &t));
        HS_CALL(keyword_end(v, 4, "TEXTURE_COORDINATES name dim type"));
    } else {
        HS_CALL(arg_type(v, kw, 0, &t));
        if (strcasecmp(kw, "SCALARS") == 0) {
            const char *c = hs_text_reader_token(&v->r);
            if (c) {
                HS_CALL(hs_text_reader_long(&v->r, c, "number of components", &ncomp));
                HS_CHECK(ncomp >= 1 && ncomp <= 4096, HS_ERR_MESH,
                         "%s:%ld: SCALARS %s: %lld components; expected 1 to 4096", v->path,
                         v->r.line, name, ncomp);
            }
            HS_CALL(keyword_end(v, c ? 4 : 3, "SCALARS name type [numComp]"));
            /* VTK requires the table line even when it is "default"; binary data follows it. */
            char *lt = NULL;
            const long scalars_line = v->r.line;
            if (v->binary) v->r.cur = NULL;
            HS_CALL(stream_token(v, &lt));
            HS_CHECK(lt != NULL && strcasecmp(lt, "LOOKUP_TABLE") == 0, HS_ERR_MESH,
                     "%s:%ld: expected \"LOOKUP_TABLE name\" after SCALARS %s (line %ld), found "
                     "'%s'",
                     v->path, hs_text_reader_eof_line(&v->r), name, scalars_line,
                     lt ? lt : "end of file");
            HS_CALL(arg_token(v, "LOOKUP_TABLE", "table name", &tok));
            HS_CALL(keyword_end(v, 2, "LOOKUP_TABLE name"));
        } else {
            if (strcasecmp(kw, "VECTORS") == 0 || strcasecmp(kw, "NORMALS") == 0)
                ncomp = 3;
            else if (strcasecmp(kw, "TENSORS") == 0)
                ncomp = 9;
            else if (strcasecmp(kw, "TENSORS6") == 0)
                ncomp = 6;
            else /* GLOBAL_IDS, PEDIGREE_IDS */
                ncomp = 1;
            HS_CALL(keyword_end(v, 3, "keyword name type"));
        }
    }
    return data_array(v, kw, name, t, ncomp, v->attr_n);
}

static hs_status read_header(vtk *v)
{
    int got = 0;
    HS_CALL(hs_text_reader_raw(&v->r, &got));
    int major = 0, minor = 0;
    const char *magic = "# vtk DataFile Version";
    const char *first = got ? v->r.buf : "end of file";
    const int first_len = (int)strcspn(first, "\r\n");
    HS_CHECK(got && strncasecmp(v->r.buf, magic, strlen(magic)) == 0, HS_ERR_MESH,
             "%s:1: expected \"# vtk DataFile Version x.y\" (a legacy VTK file), found '%.*s'",
             v->path, first_len < 40 ? first_len : 40, first);
    HS_CHECK(sscanf(v->r.buf + strlen(magic), "%d.%d", &major, &minor) == 2 && major >= 1 &&
                 major <= 5,
             HS_ERR_MESH, "%s:1: legacy VTK version '%.*s' is not read; versions 1.0 to 5.1 are",
             v->path, first_len - (int)strlen(magic), v->r.buf + strlen(magic));
    v->new_cells = major == 5 && minor >= 1;
    HS_CALL(hs_text_reader_raw(&v->r, &got)); /* title: anything */
    HS_CHECK(got, HS_ERR_MESH, "%s:1: file ends after the first line", v->path);
    HS_CALL(hs_text_reader_next(&v->r, &got));
    HS_CHECK(got, HS_ERR_MESH, "%s:%ld: file ended; expected ASCII or BINARY", v->path,
             hs_text_reader_eof_line(&v->r));
    const char *fmt = hs_text_reader_token(&v->r);
    HS_CHECK(strcasecmp(fmt, "ASCII") == 0 || strcasecmp(fmt, "BINARY") == 0, HS_ERR_MESH,
             "%s:%ld: expected ASCII or BINARY (the third line of a legacy VTK file), found "
             "'%.40s'",
             v->path, v->r.line, fmt);
    v->binary = strcasecmp(fmt, "BINARY") == 0;
    HS_CALL(hs_text_reader_expect_end(&v->r, 1, "ASCII | BINARY"));
    char *kw = NULL, *ds = NULL;
    HS_CALL(stream_token(v, &kw));
    HS_CHECK(kw && strcasecmp(kw, "DATASET") == 0, HS_ERR_MESH,
             "%s:%ld: expected DATASET UNSTRUCTURED_GRID, found '%.40s'", v->path,
             hs_text_reader_eof_line(&v->r), kw ? kw : "end of file");
    HS_CALL(arg_token(v, "DATASET", "dataset type", &ds));
    HS_CHECK(strcasecmp(ds, "UNSTRUCTURED_GRID") == 0, HS_ERR_MESH,
             "%s:%ld: DATASET %.40s is not read; heartsim reads DATASET UNSTRUCTURED_GRID with "
             "tetrahedra%s",
             v->path, v->r.line, ds,
             strcasecmp(ds, "POLYDATA") == 0 ? " (POLYDATA is a surface: mesh its interior)" : "");
    return keyword_end(v, 2, "DATASET UNSTRUCTURED_GRID");
}

static hs_status read_body(vtk *v)
{
    for (;;) {
        char *kw = NULL;
        HS_CALL(stream_token(v, &kw));
        if (!kw) break;
        char key[32];
        snprintf(key, sizeof key, "%s", kw);
        if (strcasecmp(key, "POINTS") == 0) {
            HS_CALL(read_points(v));
        } else if (strcasecmp(key, "CELLS") == 0) {
            HS_CALL(read_cells(v));
        } else if (strcasecmp(key, "CELL_TYPES") == 0) {
            HS_CALL(read_cell_types(v));
        } else if (strcasecmp(key, "CELL_DATA") == 0 || strcasecmp(key, "POINT_DATA") == 0) {
            const int cell = strcasecmp(key, "CELL_DATA") == 0;
            long long n;
            HS_CHECK(cell ? v->have_cells : v->have_points, HS_ERR_MESH,
                     "%s:%ld: %s before %s", v->path, v->r.line, key, cell ? "CELLS" : "POINTS");
            HS_CALL(arg_count(v, key, "count", INT32_MAX, &n));
            HS_CALL(keyword_end(v, 2, cell ? "CELL_DATA n" : "POINT_DATA n"));
            const size_t expect = cell ? v->n_cells : v->p.n_nodes;
            HS_CHECK((size_t)n == expect, HS_ERR_MESH,
                     "%s:%ld: %s %lld, but the grid has %zu %s", v->path, v->r.line, key, n,
                     expect, cell ? "cells" : "points");
            v->attr = cell ? ATTR_CELL : ATTR_POINT;
            v->attr_n = (size_t)n;
        } else if (strcasecmp(key, "FIELD") == 0) {
            HS_CALL(read_field(v)); /* before CELL_DATA: dataset field data, skipped */
        } else if (strcasecmp(key, "METADATA") == 0) {
            HS_CALL(skip_metadata(v));
        } else if (strcasecmp(key, "SCALARS") == 0 || strcasecmp(key, "VECTORS") == 0 ||
                   strcasecmp(key, "NORMALS") == 0 || strcasecmp(key, "TENSORS") == 0 ||
                   strcasecmp(key, "TENSORS6") == 0 ||
                   strcasecmp(key, "TEXTURE_COORDINATES") == 0 ||
                   strcasecmp(key, "COLOR_SCALARS") == 0 ||
                   strcasecmp(key, "LOOKUP_TABLE") == 0 || strcasecmp(key, "GLOBAL_IDS") == 0 ||
                   strcasecmp(key, "PEDIGREE_IDS") == 0) {
            HS_CALL(read_attribute(v, key));
        } else {
            return HS_FAIL(HS_ERR_MESH,
                           "%s:%ld: unexpected '%.40s' where a section keyword (POINTS, CELLS, "
                           "CELL_TYPES, CELL_DATA, POINT_DATA, SCALARS, ...) was expected%s",
                           v->path, v->r.line, kw,
                           v->k > 0 ? "; does the count of the section before match its data?"
                                    : "");
        }
    }
    HS_CHECK(v->have_points && v->have_cells && v->have_types, HS_ERR_MESH,
             "%s:%ld: file ended without %s", v->path, hs_text_reader_eof_line(&v->r),
             !v->have_points ? "POINTS" : !v->have_cells ? "CELLS" : "CELL_TYPES");
    return HS_OK;
}

/* Cells -> tetrahedra (+ labelled triangles), with their regions and fibres. */
static hs_status build(vtk *v)
{
    const size_t np = v->p.n_nodes;
    size_t n_tets = 0, cap = 0;
    for (size_t c = 0; c < v->n_cells; ++c) {
        const int t = v->cell_type[c];
        if (t == VTK_VERTEX || t == VTK_LINE) continue;
        const int32_t *q = v->conn + v->cell_start[c];
        const int nk = t == VTK_TRIANGLE ? 3 : 4; /* corners of a quadratic tet come first */
        for (int k = 0; k < nk; ++k)
            HS_CHECK((size_t)q[k] < np, HS_ERR_MESH,
                     "%s:%ld: cell %zu refers to point %ld, but POINTS (line %ld) has %zu points",
                     v->path, v->cells_line, c, (long)q[k], v->points_line, np);
        const int32_t region = v->cell_region ? v->cell_region[c] : 0;
        if (t == VTK_TRIANGLE) {
            if (region != 0) HS_CALL(hs_mesh_parts_add_bface(&v->p, q, region, v->cells_line));
            continue;
        }
        HS_CALL(hs_mesh_parts_add_tet(&v->p, q, region));
        HS_CALL(hs_mesh_parts_tet_id(&v->p, (int64_t)c));
        if (t == VTK_QUADRATIC_TETRA) ++v->p.n_linearized;
        if (v->cell_fiber) {
            double *f = v->cell_fiber + 3 * c;
            HS_CHECK(hs_unit_vector(f), HS_ERR_MESH,
                     "%s:%ld: fibre of cell %zu in array \"%s\" is the zero vector (or not "
                     "finite); every tetrahedron needs a direction",
                     v->path, v->fiber_line, c, v->fiber_name);
            HS_CALL(hs_grow_array((void **)&v->p.fiber, &cap, n_tets + 1, 3 * sizeof(double),
                                  "fibres"));
            memcpy(v->p.fiber + 3 * n_tets, f, 3 * sizeof(double));
        }
        ++n_tets;
    }
    return HS_OK;
}

hs_status hs_mesh_read_vtk(const char *path, const hs_mesh_read_opts *o, hs_mesh **out)
{
    HS_CHECK(out != NULL, HS_ERR_INTERNAL, "hs_mesh_read_vtk: out is NULL");
    *out = NULL;
    HS_CHECK(path != NULL && path[0] != '\0', HS_ERR_MESH, "VTK file path is empty");
    vtk *v = NULL;
    hs_status st = HS_OK;
    HS_CALL(HS_ALLOC(v, 1, "VTK reader"));
    v->path = path;
    v->p.path = path;
    v->p.numbering = "VTK cell and point indices, 0-based";
    v->linearize = o && o->linearize;
    snprintf(v->what, sizeof v->what, "header");
    HS_CALL_GOTO(HS_ALLOC(v->chunk, VTK_CHUNK, "VTK read buffer"), done);
    v->f = fopen(path, "rb");
    HS_CHECK_GOTO(v->f != NULL, done, HS_ERR_MESH, "cannot open VTK file '%s': %s", path,
                  strerror(errno));
    /* The line reader shares the FILE with the binary reads (it is borrowed, closed here). */
    hs_text_reader_attach(&v->r, v->f, path, "VTK", HS_ERR_MESH, 0);
    HS_CALL_GOTO(read_header(v), done);
    HS_CALL_GOTO(read_body(v), done);
    HS_CALL_GOTO(build(v), done);
    st = hs_mesh_parts_finish(&v->p, out);
done:
    hs_text_reader_close(&v->r);
    if (v->f) fclose(v->f);
    hs_mesh_parts_free(&v->p);
    free(v->chunk);
    free(v->cell_start);
    free(v->cell_npts);
    free(v->conn);
    free(v->cell_type);
    free(v->cell_region);
    free(v->cell_fiber);
    free(v);
    return st;
}
