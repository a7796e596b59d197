/*
 * "vtk": legacy VTK 3.0 binary unstructured-grid frames, DIR/PREFIX_000000.vtk ..., each with the
 * geometry so any frame opens alone, and a `.vtk.series` index that ParaView opens as one
 * animation. ParaView's .pvd reader only accepts XML VTK files, so legacy frames are indexed with
 * the JSON `.vtk.series` format: {"file-series-version":"1.0","files":[{"name":..,"time":..},..]}.
 * The series (output/series.c) keeps times, names and resume; this file only encodes.
 *
 * Legacy binary VTK stores every number big-endian whatever the host, so arrays are encoded into
 * a scratch buffer before writing. The buffer is a fixed-size chunk rather than a whole array:
 * a 1M-node mesh has ~6M tets, whose CELLS array alone is 120 MB, and 1 MiB per fwrite already
 * runs at disk speed (stdio passes writes that large straight to the kernel).
 *
 * A distributed run's series (create_stream) and data sets (hs_vtk_write_dataset_part) run the same
 * encoder on every rank: each array goes to rank 0 in chunks of global indices (hs_part_gather.h) and
 * rank 0 encodes and writes each chunk before the next, so the file is the serial one byte for byte
 * while no rank holds a whole-mesh array.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_atomic_file.h"
#include "hs_byte_order.h"
#include "hs_part_gather.h"
#include "hs_series_format.h"
#include "hs_vtk_dataset.h"
#include "hs_util.h"

#define VTK_FRAME_EXT ".vtk"


enum {
    HS_VTK_CHUNK_BYTES = 1 << 20, /* scratch buffer; a multiple of 8 and of 20 (one CELLS row) */
    HS_VTK_TETRA = 10             /* VTK_TETRA cell type */
};

typedef struct vtk_series {
    const char *prefix;     /* borrowed from the series */
    const char *index_path; /* DIR/PREFIX.vtk.series, borrowed */
    unsigned char *chunk;   /* [HS_VTK_CHUNK_BYTES] big-endian scratch */
    hs_part_gather *g;      /* a part series streamed through rank 0 (create_stream; borrowed); NULL: serial */
} vtk_series;

static hs_status vtk_create(const char *dir, const char *prefix, const char *index_path, void **out)
{
    (void)dir;
    vtk_series *s = NULL;
    HS_CALL(HS_ALLOC(s, 1, "VTK series"));
    s->prefix = prefix;
    s->index_path = index_path;
    hs_status st = HS_ALLOC(s->chunk, HS_VTK_CHUNK_BYTES, "VTK write buffer");
    if (st != HS_OK) {
        free(s);
        return st;
    }
    *out = s;
    return HS_OK;
}

static void vtk_destroy(void *impl)
{
    vtk_series *s = impl;
    free(s->chunk);
    free(s);
}

/* ---- where the arrays come from, where they go ------------------------------------------------ */

/* One data set being written. Serially (g NULL) every array is whole in memory and goes to the file
 * in one piece; a part's arrays are each rank's rows, streamed to rank 0 a chunk at a time
 * (hs_part_gather_rows), where each chunk is encoded and written before the next comes. Every rank
 * of a part runs the same calls in the same order; only rank 0 has a file. */
typedef struct vtk_out {
    unsigned char *chunk;  /* [HS_VTK_CHUNK_BYTES] big-endian scratch (rank 0) */
    hs_atomic_file *f;     /* NULL: this rank writes nothing (a part's other ranks) */
    hs_status st;          /* the first failure; nothing is written after it */
    hs_part_gather *g;     /* NULL: serial */
} vtk_out;

/* The data set's shape and its mesh arrays: a whole mesh (serial), or this rank's rows of a part. */
typedef struct vtk_mesh {
    int64_t nn, ne;
    int mesh_arrays;          /* HS_MESH_FIELD_* written */
    const hs_mesh *mesh;      /* serial */
    const hs_series_part *pt; /* a part: xyz, tets (64-bit), region (NULL: zeros), fiber (NULL: zeros) */
} vtk_mesh;

#define OUT_TEXT(o, ...)                                                                           \
    do {                                                                                           \
        if ((o)->f && (o)->st == HS_OK) (o)->st = hs_atomic_file_printf((o)->f, __VA_ARGS__);      \
    } while (0)

/* How a piece of an array is encoded: rows of doubles (ncomp each; written as scale x + shift when
 * affine, else exactly x, which keeps -0.0), of int32, or of connectivity (four int32 node indices
 * a row, checked against [0, nn); a part's 64-bit ones arrive narrowed: hs_part_gather_rows_i32). */
enum { ENC_F64, ENC_I32, ENC_CELLS };
typedef struct vtk_enc {
    vtk_out *o;
    int kind, ncomp, affine;
    double scale, shift;
    int64_t nn;
} vtk_enc;

static hs_status put_f64(vtk_out *o, const double *src, size_t n, int affine, double scale, double shift)
{
    const size_t per_chunk = HS_VTK_CHUNK_BYTES / 8;
    for (size_t i0 = 0; i0 < n; i0 += per_chunk) {
        size_t m = n - i0 < per_chunk ? n - i0 : per_chunk;
        if (affine)
            for (size_t i = 0; i < m; ++i) hs_be_put_f64(o->chunk + 8 * i, scale * src[i0 + i] + shift);
        else
            for (size_t i = 0; i < m; ++i) hs_be_put_f64(o->chunk + 8 * i, src[i0 + i]);
        HS_CALL(hs_atomic_file_write(o->f, o->chunk, 8 * m));
    }
    return HS_OK;
}

static hs_status put_i32(vtk_out *o, const int32_t *src, size_t n)
{
    const size_t per_chunk = HS_VTK_CHUNK_BYTES / 4;
    for (size_t i0 = 0; i0 < n; i0 += per_chunk) {
        size_t m = n - i0 < per_chunk ? n - i0 : per_chunk;
        for (size_t i = 0; i < m; ++i) hs_be_put_i32(o->chunk + 4 * i, src[i0 + i]);
        HS_CALL(hs_atomic_file_write(o->f, o->chunk, 4 * m));
    }
    return HS_OK;
}

/* CELLS rows "4 a b c d" (5 int32 each) of elements [first, first + ne); node indices are checked
 * here because an out-of-range index makes readers crash or show garbage, far from the cause. */
static hs_status put_cells(vtk_out *o, const int32_t *tets, int64_t first, size_t ne, int64_t nn)
{
    const size_t rows_per_chunk = HS_VTK_CHUNK_BYTES / 20;
    for (size_t e0 = 0; e0 < ne; e0 += rows_per_chunk) {
        size_t k = ne - e0 < rows_per_chunk ? ne - e0 : rows_per_chunk;
        for (size_t e = 0; e < k; ++e) {
            unsigned char *row = o->chunk + 20 * e;
            hs_be_put_i32(row, 4);
            for (int j = 0; j < 4; ++j) {
                const int32_t t = tets[4 * (e0 + e) + (size_t)j];
                HS_CHECK(t >= 0 && t < nn, HS_ERR_INTERNAL, "element %lld has node index %d outside [0, %lld)",
                         (long long)(first + (int64_t)(e0 + e)), (int)t, (long long)nn);
                hs_be_put_i32(row + 4 + 4 * j, t);
            }
        }
        HS_CALL(hs_atomic_file_write(o->f, o->chunk, 20 * k));
    }
    return HS_OK;
}

/* Rows [first, first + n) of an array, in order (the whole array serially, a chunk of a part). */
static hs_status put_rows(void *ctx, int64_t first, int64_t n, const void *rows)
{
    const vtk_enc *e = ctx;
    vtk_out *o = e->o;
    if (!o->f || o->st != HS_OK) return HS_OK; /* after a failure the chunks still go by, unwritten */
    switch (e->kind) {
    case ENC_F64: o->st = put_f64(o, rows, (size_t)n * (size_t)e->ncomp, e->affine, e->scale, e->shift); break;
    case ENC_I32: o->st = put_i32(o, rows, (size_t)n); break;
    default: o->st = put_cells(o, rows, first, (size_t)n, e->nn); break;
    }
    return o->st;
}

/* One array of @p n rows of @p row bytes: @p src whole (serial) or this rank's rows (a part; NULL: zeros). */
static void out_array(vtk_out *o, int cell, const void *src, size_t row, int64_t n, vtk_enc *e)
{
    e->o = o;
    if (o->g)
        (void)hs_part_gather_rows(o->g, cell, src, row, put_rows, e); /* put_rows keeps the failure in o->st */
    else
        (void)put_rows(e, 0, n, src);
}

/* The connectivity: the whole mesh's int32 (serial), or the part's int64 rows narrowed on the way. */
static void out_cells(vtk_out *o, const vtk_mesh *m)
{
    vtk_enc e = {o, ENC_CELLS, 4, 0, 1.0, 0.0, m->nn};
    if (o->g)
        (void)hs_part_gather_rows_i32(o->g, 1, m->pt->tets, 4, put_rows, &e);
    else
        (void)put_rows(&e, 0, m->ne, m->mesh->tets);
}

static void out_f64(vtk_out *o, int cell, const void *src, int ncomp, int64_t n, int affine, double scale,
                    double shift)
{
    vtk_enc e = {o, ENC_F64, ncomp, affine, scale, shift, 0};
    out_array(o, cell, src, 8 * (size_t)ncomp, n, &e);
}

static void out_cell_types(vtk_out *o, size_t ne)
{
    if (!o->f || o->st != HS_OK) return;
    const size_t per_chunk = HS_VTK_CHUNK_BYTES / 4;
    size_t fill = ne < per_chunk ? ne : per_chunk;
    for (size_t i = 0; i < fill; ++i) hs_be_put_i32(o->chunk + 4 * i, HS_VTK_TETRA);
    for (size_t i0 = 0; i0 < ne && o->st == HS_OK; i0 += per_chunk) {
        size_t m = ne - i0 < per_chunk ? ne - i0 : per_chunk;
        o->st = hs_atomic_file_write(o->f, o->chunk, 4 * m);
    }
}

/* ---- one frame ------------------------------------------------------------------------------ */

/* Shortest of %.15g / %.17g that reads back as the same double, so 0.1 prints as 0.1 and
 * 0.1+0.2 as 0.30000000000000004; ".0" is added to integral values to keep them visibly real. */
static void format_time(double t, char *buf, size_t size)
{
    snprintf(buf, size, "%.15g", t);
    if (strtod(buf, NULL) != t) snprintf(buf, size, "%.17g", t);
    if (!strpbrk(buf, ".eE")) {
        size_t len = strlen(buf);
        if (len + 2 < size) memcpy(buf + len, ".0", 3);
    }
}

/* The file, section by section: the status in o->st (rank 0's; the others' HS_OK). */
static void write_frame_body(vtk_out *o, int index, const vtk_mesh *m, const hs_frame *fr)
{
    const size_t nn = (size_t)m->nn, ne = (size_t)m->ne;
    const hs_mesh *w = m->mesh;
    const hs_series_part *pt = m->pt;
    int order[HS_FRAME_MAX_FIELDS];
    const int n_fields = hs_frame_order(fr, order);
    int n_point = 0;
    for (int k = 0; k < n_fields; ++k) n_point += fr->field[order[k]].cell == 0;

    char tbuf[40];
    format_time(fr->time_ms, tbuf, sizeof tbuf);
    /* Binary blocks are each followed by '\n': VTK's reader skips to the next line before a keyword. */
    OUT_TEXT(o,
             "# vtk DataFile Version 3.0\n"
             "heartsim frame %d t = %s ms\n"
             "BINARY\n"
             "DATASET UNSTRUCTURED_GRID\n"
             "FIELD FieldData 1\n"
             "TIME 1 1 double\n",
             index, tbuf);
    if (o->f && o->st == HS_OK) o->st = put_f64(o, &fr->time_ms, 1, 0, 1.0, 0.0);
    OUT_TEXT(o, "\nPOINTS %zu double\n", nn);
    out_f64(o, 0, w ? (const void *)w->xyz : pt->xyz, 3, m->nn, 0, 1.0, 0.0);
    /* Legacy CELLS header: cell count, then the total int count including each row's size. */
    OUT_TEXT(o, "\nCELLS %zu %zu\n", ne, 5 * ne);
    out_cells(o, m);
    OUT_TEXT(o, "\nCELL_TYPES %zu\n", ne);
    out_cell_types(o, ne);
    OUT_TEXT(o, "\n");

    /* point fields, then cell fields, then the mesh's own cell arrays; a section header only
     * when the section has an array */
    for (int k = 0; k < n_fields; ++k) {
        const hs_frame_field *a = &fr->field[order[k]];
        if (k == 0 && !a->cell) OUT_TEXT(o, "POINT_DATA %zu\n", nn);
        if (k == n_point) OUT_TEXT(o, "CELL_DATA %zu\n", ne);
        OUT_TEXT(o, "SCALARS %s double 1\nLOOKUP_TABLE default\n", a->name);
        out_f64(o, a->cell, a->data, 1, a->cell ? m->ne : m->nn, a->mapped, a->scale, a->offset);
        OUT_TEXT(o, "\n");
    }
    if (m->mesh_arrays && n_point == n_fields) OUT_TEXT(o, "CELL_DATA %zu\n", ne);
    if (m->mesh_arrays & HS_MESH_FIELD_FIBER) {
        OUT_TEXT(o, "VECTORS fiber double\n");
        out_f64(o, 1, w ? (const void *)w->fiber : pt->fiber, 3, m->ne, 0, 1.0, 0.0);
        OUT_TEXT(o, "\n");
    }
    if (m->mesh_arrays & HS_MESH_FIELD_REGION) {
        OUT_TEXT(o, "SCALARS region int 1\nLOOKUP_TABLE default\n");
        vtk_enc reg = {o, ENC_I32, 1, 0, 1.0, 0.0, 0};
        out_array(o, 1, w ? (const void *)w->region : pt->region, 4, m->ne, &reg);
        OUT_TEXT(o, "\n");
    }
}

static vtk_mesh whole_mesh(const hs_mesh *mesh, const hs_frame *fr)
{
    return (vtk_mesh){mesh->n_nodes, mesh->n_elems, hs_frame_mesh_arrays(fr, mesh), mesh, NULL};
}

/* A part's data set: the part's global counts; fibres where some rank has them, regions always (a
 * gathered mesh's markers are zeros where the part has none, as a serial mesh's are). */
static vtk_mesh part_mesh(hs_part_gather *g, const hs_frame *fr)
{
    const hs_series_part *pt = hs_part_gather_part(g);
    return (vtk_mesh){pt->n_nodes_global, pt->n_elems_global, hs_part_gather_mesh_arrays(g, fr), NULL, pt};
}

/* One file of a data set at @p path: serially (g NULL) from @p mesh; from the ranks' parts through
 * @p g otherwise (collective, the status agreed: rank 0's). */
static hs_status write_file(unsigned char *chunk, hs_part_gather *g, const char *path, const char *what, int index,
                            const hs_mesh *mesh, const hs_frame *frame)
{
    vtk_out o = {chunk, NULL, HS_OK, g};
    const int root = !g || hs_part_gather_rank(g) == 0;
    if (root) o.st = hs_atomic_file_create(path, what, &o.f);
    if (g) HS_CALL(hs_part_gather_agree_root(g, o.st));
    HS_CALL(o.st);
    const vtk_mesh m = g ? part_mesh(g, frame) : whole_mesh(mesh, frame);
    write_frame_body(&o, index, &m, frame);
    if (o.f && o.st == HS_OK) o.st = hs_atomic_file_commit(&o.f);
    hs_atomic_file_destroy(&o.f);
    return g ? hs_part_gather_agree_root(g, o.st) : o.st;
}

static hs_status vtk_write_frame(void *impl, int index, const char *path, const hs_mesh *mesh,
                                 const hs_frame *frame)
{
    vtk_series *s = impl;
    return write_file(s->chunk, s->g, path, "VTK frame", index, mesh, frame);
}

hs_status hs_vtk_write_dataset(const char *path, const char *title, const hs_mesh *mesh, const hs_frame *frame)
{
    unsigned char *chunk = NULL;
    HS_CALL(hs_frame_check(frame));
    HS_CALL(HS_ALLOC(chunk, HS_VTK_CHUNK_BYTES, "VTK write buffer"));
    hs_status st = write_file(chunk, NULL, path, title, 0, mesh, frame);
    free(chunk);
    return st;
}

hs_status hs_vtk_write_dataset_part(const char *path, const char *title, const hs_series_part *part,
                                    hs_series *ser, const hs_frame *frame)
{
    hs_part_gather *own = NULL, *g = hs_series_part_gather(ser, part);
    if (!g) HS_CALL(hs_part_gather_create(part, &own)); /* agreed */
    if (!g) g = own;
    unsigned char *chunk = NULL;
    hs_status st = hs_frame_check(frame);
    if (st == HS_OK && hs_part_gather_rank(g) == 0) st = HS_ALLOC(chunk, HS_VTK_CHUNK_BYTES, "VTK write buffer");
    st = hs_part_gather_agree_any(g, st);
    if (st == HS_OK) st = write_file(chunk, g, path, title, 0, NULL, frame);
    free(chunk);
    hs_part_gather_destroy(&own);
    return st;
}

/* ---- index ---------------------------------------------------------------------------------- */

/* JSON string body of @p str: prefixes come from the user and may hold '"' or '\\'. */
static hs_status write_json_string(hs_atomic_file *f, const char *str)
{
    for (const unsigned char *c = (const unsigned char *)str; *c; ++c) {
        if (*c == '"' || *c == '\\')
            HS_CALL(hs_atomic_file_printf(f, "\\%c", *c));
        else if (*c < 0x20)
            HS_CALL(hs_atomic_file_printf(f, "\\u%04x", *c));
        else
            HS_CALL(hs_atomic_file_write(f, c, 1));
    }
    return HS_OK;
}

/* Rewrite the index with frames [0, n) at times [n]. */
static hs_status write_index(const vtk_series *s, const double *times, int n)
{
    hs_status st = HS_OK;
    hs_atomic_file *f = NULL;
    HS_CALL(hs_atomic_file_create(s->index_path, "VTK series index", &f));
    HS_CALL_GOTO(hs_atomic_file_printf(f, "{\n  \"file-series-version\" : \"1.0\",\n  \"files\" : ["),
                 fail);
    for (int i = 0; i < n; ++i) {
        char tbuf[40], suffix[HS_SERIES_SUFFIX_MAX];
        format_time(times[i], tbuf, sizeof tbuf);
        hs_series_frame_suffix(i, VTK_FRAME_EXT, suffix);
        HS_CALL_GOTO(hs_atomic_file_printf(f, "%s\n    { \"name\" : \"", i ? "," : ""), fail);
        HS_CALL_GOTO(write_json_string(f, s->prefix), fail);
        HS_CALL_GOTO(write_json_string(f, suffix), fail);
        HS_CALL_GOTO(hs_atomic_file_printf(f, "\", \"time\" : %s }", tbuf), fail);
    }
    HS_CALL_GOTO(hs_atomic_file_printf(f, "\n  ]\n}\n"), fail);
    return hs_atomic_file_commit(&f);
fail:
    hs_atomic_file_destroy(&f);
    return st;
}

/* Rewrite the index (a part series streamed through rank 0: rank 0 writes it, every rank returns its status). */
static hs_status vtk_write_index(void *impl, const double *times, int n)
{
    const vtk_series *s = impl;
    if (!s->g) return write_index(s, times, n);
    return hs_part_gather_agree_root(s->g, hs_part_gather_rank(s->g) == 0 ? write_index(s, times, n) : HS_OK);
}

/* A part series streamed through rank 0: every rank an encoder that hands its rows to @p g; rank 0's
 * writes the files (its scratch buffer only there). */
static hs_status vtk_create_stream(const char *dir, const char *prefix, const char *index_path, hs_part_gather *g,
                                   void **out)
{
    vtk_series *s = NULL;
    *out = NULL;
    hs_status st = hs_part_gather_rank(g) == 0 ? vtk_create(dir, prefix, index_path, (void **)&s)
                                                : HS_ALLOC(s, 1, "VTK series");
    if (s) s->g = g;
    st = hs_part_gather_agree_any(g, st);
    if (st != HS_OK) {
        if (s) vtk_destroy(s);
        return st;
    }
    *out = s;
    return HS_OK;
}

const hs_series_format_ops hs_series_format_vtk = {
    .name = "vtk",
    .summary = "legacy VTK frames (float64, geometry in each) and a .vtk.series index",
    .index_ext = ".vtk.series",
    .frame_ext = VTK_FRAME_EXT,
    .missing = NULL,
    .check_prefix = NULL, /* legacy VTK takes any file name */
    .create = vtk_create,
    .create_stream = vtk_create_stream,
    .write_frame = vtk_write_frame,
    .write_index = vtk_write_index,
    .resume = NULL, /* the index is rewritten from the checkpoint's times */
    .destroy = vtk_destroy,
};
