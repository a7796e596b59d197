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
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_atomic_file.h"
#include "hs_byte_order.h"
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

/* ---- binary arrays -------------------------------------------------------------------------- */

/* Write src [n] big-endian, as y = scale * x + shift when @p affine, else exactly x (keeps -0.0). */
static hs_status write_f64(vtk_series *s, hs_atomic_file *f, const double *src, size_t n,
                           int affine, double scale, double shift)
{
    const size_t per_chunk = HS_VTK_CHUNK_BYTES / 8;
    for (size_t i0 = 0; i0 < n; i0 += per_chunk) {
        size_t m = n - i0 < per_chunk ? n - i0 : per_chunk;
        if (affine)
            for (size_t i = 0; i < m; ++i) hs_be_put_f64(s->chunk + 8 * i, scale * src[i0 + i] + shift);
        else
            for (size_t i = 0; i < m; ++i) hs_be_put_f64(s->chunk + 8 * i, src[i0 + i]);
        HS_CALL(hs_atomic_file_write(f, s->chunk, 8 * m));
    }
    return HS_OK;
}

static hs_status write_i32(vtk_series *s, hs_atomic_file *f, const int32_t *src, size_t n)
{
    const size_t per_chunk = HS_VTK_CHUNK_BYTES / 4;
    for (size_t i0 = 0; i0 < n; i0 += per_chunk) {
        size_t m = n - i0 < per_chunk ? n - i0 : per_chunk;
        for (size_t i = 0; i < m; ++i) hs_be_put_i32(s->chunk + 4 * i, src[i0 + i]);
        HS_CALL(hs_atomic_file_write(f, s->chunk, 4 * m));
    }
    return HS_OK;
}

/* CELLS rows "4 a b c d" (5 int32 each) from tets [n_elems][4]; node indices are checked here
 * because an out-of-range index makes readers crash or show garbage, far from the cause. */
static hs_status write_cells(vtk_series *s, hs_atomic_file *f, const hs_mesh *m)
{
    const size_t rows_per_chunk = HS_VTK_CHUNK_BYTES / 20;
    const size_t ne = (size_t)m->n_elems;
    for (size_t e0 = 0; e0 < ne; e0 += rows_per_chunk) {
        size_t k = ne - e0 < rows_per_chunk ? ne - e0 : rows_per_chunk;
        for (size_t e = 0; e < k; ++e) {
            const int32_t *t = m->tets + 4 * (e0 + e);
            unsigned char *row = s->chunk + 20 * e;
            hs_be_put_i32(row, 4);
            for (int j = 0; j < 4; ++j) {
                HS_CHECK(t[j] >= 0 && t[j] < m->n_nodes, HS_ERR_INTERNAL,
                         "element %zu has node index %d outside [0, %d)", e0 + e, (int)t[j],
                         (int)m->n_nodes);
                hs_be_put_i32(row + 4 + 4 * j, t[j]);
            }
        }
        HS_CALL(hs_atomic_file_write(f, s->chunk, 20 * k));
    }
    return HS_OK;
}

static hs_status write_cell_types(vtk_series *s, hs_atomic_file *f, size_t ne)
{
    const size_t per_chunk = HS_VTK_CHUNK_BYTES / 4;
    size_t fill = ne < per_chunk ? ne : per_chunk;
    for (size_t i = 0; i < fill; ++i) hs_be_put_i32(s->chunk + 4 * i, HS_VTK_TETRA);
    for (size_t i0 = 0; i0 < ne; i0 += per_chunk) {
        size_t m = ne - i0 < per_chunk ? ne - i0 : per_chunk;
        HS_CALL(hs_atomic_file_write(f, s->chunk, 4 * m));
    }
    return HS_OK;
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

static hs_status write_frame_body(vtk_series *s, hs_atomic_file *f, int index, const hs_mesh *m,
                                  const hs_frame *fr)
{
    const size_t nn = (size_t)m->n_nodes, ne = (size_t)m->n_elems;
    int order[HS_FRAME_MAX_FIELDS];
    const int n_fields = hs_frame_order(fr, order);
    const int mesh_arrays = hs_frame_mesh_arrays(fr, m);
    int n_point = 0;
    for (int k = 0; k < n_fields; ++k) n_point += fr->field[order[k]].cell == 0;

    char tbuf[40];
    format_time(fr->time_ms, tbuf, sizeof tbuf);
    /* Binary blocks are each followed by '\n': VTK's reader skips to the next line before a keyword. */
    HS_CALL(hs_atomic_file_printf(f,
                                  "# vtk DataFile Version 3.0\n"
                                  "heartsim frame %d t = %s ms\n"
                                  "BINARY\n"
                                  "DATASET UNSTRUCTURED_GRID\n"
                                  "FIELD FieldData 1\n"
                                  "TIME 1 1 double\n",
                                  index, tbuf));
    HS_CALL(write_f64(s, f, &fr->time_ms, 1, 0, 1.0, 0.0));
    HS_CALL(hs_atomic_file_printf(f, "\nPOINTS %zu double\n", nn));
    HS_CALL(write_f64(s, f, m->xyz, 3 * nn, 0, 1.0, 0.0));
    /* Legacy CELLS header: cell count, then the total int count including each row's size. */
    HS_CALL(hs_atomic_file_printf(f, "\nCELLS %zu %zu\n", ne, 5 * ne));
    HS_CALL(write_cells(s, f, m));
    HS_CALL(hs_atomic_file_printf(f, "\nCELL_TYPES %zu\n", ne));
    HS_CALL(write_cell_types(s, f, ne));
    HS_CALL(hs_atomic_file_printf(f, "\n"));

    /* point fields, then cell fields, then the mesh's own cell arrays; a section header only
     * when the section has an array */
    for (int k = 0; k < n_fields; ++k) {
        const hs_frame_field *a = &fr->field[order[k]];
        if (k == 0 && !a->cell) HS_CALL(hs_atomic_file_printf(f, "POINT_DATA %zu\n", nn));
        if (k == n_point) HS_CALL(hs_atomic_file_printf(f, "CELL_DATA %zu\n", ne));
        HS_CALL(hs_atomic_file_printf(f, "SCALARS %s double 1\nLOOKUP_TABLE default\n", a->name));
        HS_CALL(write_f64(s, f, a->data, a->cell ? ne : nn, a->mapped, a->scale, a->offset));
        HS_CALL(hs_atomic_file_printf(f, "\n"));
    }
    if (mesh_arrays && n_point == n_fields) HS_CALL(hs_atomic_file_printf(f, "CELL_DATA %zu\n", ne));
    if (mesh_arrays & HS_MESH_FIELD_FIBER) {
        HS_CALL(hs_atomic_file_printf(f, "VECTORS fiber double\n"));
        HS_CALL(write_f64(s, f, m->fiber, 3 * ne, 0, 1.0, 0.0));
        HS_CALL(hs_atomic_file_printf(f, "\n"));
    }
    if (mesh_arrays & HS_MESH_FIELD_REGION) {
        HS_CALL(hs_atomic_file_printf(f, "SCALARS region int 1\nLOOKUP_TABLE default\n"));
        HS_CALL(write_i32(s, f, m->region, ne));
        HS_CALL(hs_atomic_file_printf(f, "\n"));
    }
    return HS_OK;
}

static hs_status vtk_write_frame(void *impl, int index, const char *path, const hs_mesh *mesh,
                                 const hs_frame *frame)
{
    hs_status st = HS_OK;
    hs_atomic_file *f = NULL;
    HS_CALL(hs_atomic_file_create(path, "VTK frame", &f));
    HS_CALL_GOTO(write_frame_body(impl, f, index, mesh, frame), done);
    st = hs_atomic_file_commit(&f);
done:
    hs_atomic_file_destroy(&f);
    return st;
}

hs_status hs_vtk_write_dataset(const char *path, const char *title, const hs_mesh *mesh, const hs_frame *frame)
{
    hs_status st = HS_OK;
    vtk_series s = {NULL, NULL, NULL};
    HS_CALL(hs_frame_check(frame));
    HS_CALL(HS_ALLOC(s.chunk, HS_VTK_CHUNK_BYTES, "VTK write buffer"));
    hs_atomic_file *f = NULL;
    HS_CALL_GOTO(hs_atomic_file_create(path, title, &f), done);
    HS_CALL_GOTO(write_frame_body(&s, f, 0, mesh, frame), done);
    st = hs_atomic_file_commit(&f);
done:
    hs_atomic_file_destroy(&f);
    free(s.chunk);
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
static hs_status vtk_write_index(void *impl, const double *times, int n)
{
    const vtk_series *s = impl;
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

const hs_series_format_ops hs_series_format_vtk = {
    .name = "vtk",
    .summary = "legacy VTK frames (float64, geometry in each) and a .vtk.series index",
    .index_ext = ".vtk.series",
    .frame_ext = VTK_FRAME_EXT,
    .missing = NULL,
    .check_prefix = NULL, /* legacy VTK takes any file name */
    .create = vtk_create,
    .write_frame = vtk_write_frame,
    .write_index = vtk_write_index,
    .resume = NULL, /* the index is rewritten from the checkpoint's times */
    .destroy = vtk_destroy,
};
