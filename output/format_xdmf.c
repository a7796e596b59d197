/*
 * "xdmf": the mesh written once as raw binary files, each frame only its fields as float32, and
 * one XML index DIR/PREFIX.xdmf that ParaView (Xdmf3ReaderS/T and the legacy XDMF Reader) and
 * VisIt open as one animation. The series (output/series.c) keeps times, names and resume; this
 * file encodes, and on resume keeps the old index's entries for the frames that stay.
 *
 * Files (all little-endian, no headers; the index gives type, shape and offset of each array):
 *   PREFIX_mesh_xyz.bin     float64 [n_nodes][3]   written by the first frame
 *   PREFIX_mesh_tets.bin    int32   [n_elems][4]   written by the first frame
 *   PREFIX_mesh_region.bin  int32   [n_elems]      by the first frame that carries "region"
 *   PREFIX_mesh_fiber.bin   float64 [n_elems][3]   by the first frame that carries "fiber"
 *   PREFIX_000000.bin ...   float32: the frame's point fields [n_nodes] in list order, then its
 *                           cell fields [n_elems], back to back (Seek gives each start)
 *   PREFIX.xdmf             Domain > temporal Collection > one Uniform Grid per frame
 * Why: a legacy VTK frame repeats the geometry (410 MB at 1M nodes / 6M tets); here a frame is
 * phi, activation and r as float32 (32 MB: 7 digits are more than a colour map shows; checkpoints
 * hold the exact state), so at one frame per simulated ms the writer thread keeps up with the time
 * loop. Raw binary rather than HDF5: no library to depend on, and both of ParaView's XDMF readers
 * take Format="Binary" with Endian and Seek.
 *
 * What the readers accept shaped the XML (checked with ParaView 5.11's Xdmf3ReaderS, Xdmf3ReaderT
 * and the legacy XDMFReader): every Uniform grid carries its own Topology and Geometry DataItems
 * pointing at the shared mesh files, because XPath references are spelled differently by Xdmf2
 * and Xdmf3 and each rejects the other's form; Seek is parsed with atoi by both, so offsets must
 * stay below 2^31; heavy-data file names are split at '|' and trimmed, so prefixes with '|' or
 * blanks are refused.
 *
 * A distributed run's series (create_stream) runs the same encoder on every rank: each array of each
 * file goes to rank 0 in chunks of global indices (hs_part_gather.h), rank 0 encodes and writes each
 * chunk before the next and keeps the index; no rank holds a whole-mesh array.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_atomic_file.h"
#include "hs_byte_order.h"
#include "hs_part_gather.h"
#include "hs_series_format.h"
#include "hs_util.h"
#include "hs_xdmf_text.h"

#define XDMF_FRAME_EXT ".bin"

enum { HS_XDMF_CHUNK_BYTES = 1 << 20 }; /* scratch for byte-order conversion; a multiple of 16 */

/* The mesh arrays, one file each; bit (1 << GEOM_x) of geom_written. */
enum { GEOM_XYZ, GEOM_TETS, GEOM_REGION, GEOM_FIBER, GEOM_COUNT };
static const char *const geom_suffix[GEOM_COUNT] = {"_mesh_xyz.bin", "_mesh_tets.bin",
                                                    "_mesh_region.bin", "_mesh_fiber.bin"};

typedef struct xdmf_series {
    const char *index_path;         /* DIR/PREFIX.xdmf, borrowed from the series */
    char *xml_prefix;               /* prefix with & < > " ' escaped, as it appears in the index */
    char *geom_path[GEOM_COUNT];    /* DIR/PREFIX_mesh_*.bin */
    hs_xdmf_grids g;                /* the frames' <Grid> elements, as written in the index */
    int mesh_known;                 /* n_nodes, n_elems fixed (mesh files written, or a resumed index) */
    int32_t n_nodes, n_elems;
    unsigned geom_written;          /* mesh files this writer has written (bits 1 << GEOM_x) */
    unsigned char *chunk;           /* [HS_XDMF_CHUNK_BYTES] little-endian scratch */
    hs_part_gather *pg;             /* a part series streamed through rank 0 (create_stream; borrowed); NULL: serial */
    int root;                       /* this process writes the files: serially, or rank 0 of pg */
} xdmf_series;

/* A data set's shape and mesh arrays: a whole mesh (serial), or this rank's rows of a part. */
typedef struct xdmf_mesh {
    int64_t nn, ne;
    int mesh_arrays;          /* HS_MESH_FIELD_* written */
    const hs_mesh *mesh;      /* serial */
    const hs_series_part *pt; /* a part: xyz, tets (64-bit), region (NULL: zeros), fiber (NULL: zeros) */
} xdmf_mesh;

/* Beyond the series' rule (non-empty, no '/'): what XDMF readers and the XML index need. */
static hs_status xdmf_check_prefix(const char *prefix)
{
    return hs_xdmf_check_prefix(prefix, "xdmf", NULL);
}

/* ---- create / destroy ----------------------------------------------------------------------- */

/* DIR/PREFIX + suffix, in a new string */
static hs_status prefixed_path(const char *dir, const char *prefix, const char *suffix, char **out)
{
    size_t pl = strlen(prefix), sl = strlen(suffix);
    char *name = NULL;
    HS_CALL(HS_ALLOC(name, pl + sl + 1, "file name"));
    memcpy(name, prefix, pl);
    memcpy(name + pl, suffix, sl + 1);
    hs_status st = hs_path_join(dir, name, out);
    free(name);
    return st;
}

static void xdmf_destroy(void *impl)
{
    xdmf_series *s = impl;
    free(s->xml_prefix);
    for (int g = 0; g < GEOM_COUNT; ++g) free(s->geom_path[g]);
    hs_xdmf_grids_free(&s->g);
    free(s->chunk);
    free(s);
}

static hs_status xdmf_create(const char *dir, const char *prefix, const char *index_path, void **out)
{
    hs_status st = HS_OK;
    xdmf_series *s = NULL;
    HS_CALL(HS_ALLOC(s, 1, "XDMF series"));
    s->index_path = index_path;
    HS_CALL_GOTO(hs_xdmf_escape(prefix, &s->xml_prefix), fail);
    for (int g = 0; g < GEOM_COUNT; ++g)
        HS_CALL_GOTO(prefixed_path(dir, prefix, geom_suffix[g], &s->geom_path[g]), fail);
    HS_CALL_GOTO(HS_ALLOC(s->chunk, HS_XDMF_CHUNK_BYTES, "XDMF write buffer"), fail);
    s->root = 1;
    *out = s;
    return HS_OK;
fail:
    xdmf_destroy(s);
    return st;
}

/* ---- index text ----------------------------------------------------------------------------- */

/* One <DataItem> of a raw little-endian array: [rows] or [rows][cols] of @p type/@p precision at
 * byte @p seek of file PREFIX@p suffix (relative to the index, so the directory can be moved). */
static hs_status put_item(xdmf_series *s, const char *type, int precision, int32_t rows,
                          int cols, size_t seek, const char *suffix)
{
    char dims[32];
    if (cols > 1)
        snprintf(dims, sizeof dims, "%d %d", (int)rows, cols);
    else
        snprintf(dims, sizeof dims, "%d", (int)rows);
    return hs_xdmf_grids_printf(&s->g,
                                "          <DataItem Format=\"Binary\" Endian=\"Little\" NumberType=\"%s\" "
                                "Precision=\"%d\" Dimensions=\"%s\" Seek=\"%zu\">%s%s</DataItem>\n",
                                type, precision, dims, seek, s->xml_prefix, suffix);
}

static hs_status put_attribute(xdmf_series *s, const char *name, int cell, const char *type,
                               int precision, int32_t rows, int cols, size_t seek, const char *suffix)
{
    HS_CALL(hs_xdmf_grids_printf(&s->g, "        <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"%s\">\n",
                         name, cols == 3 ? "Vector" : "Scalar", cell ? "Cell" : "Node"));
    HS_CALL(put_item(s, type, precision, rows, cols, seek, suffix));
    return hs_xdmf_grids_printf(&s->g, "        </Attribute>\n");
}

/* What a frame holds and where each field starts in its file. */
typedef struct frame_plan {
    int order[HS_FRAME_MAX_FIELDS]; /* fields in file order: points, then cells (hs_frame_order) */
    int n;                          /* fields */
    size_t seek[HS_FRAME_MAX_FIELDS]; /* bytes; seek[k] is where field order[k] starts */
    size_t last_seek;               /* the largest offset a reader must seek to */
    size_t bytes;                   /* size of the frame file */
    int mesh_arrays;                /* HS_MESH_FIELD_* written */
} frame_plan;

static frame_plan plan_frame(const xdmf_mesh *m, const hs_frame *fr)
{
    frame_plan p;
    memset(&p, 0, sizeof p);
    p.n = hs_frame_order(fr, p.order);
    p.mesh_arrays = m->mesh_arrays;
    size_t at = 0;
    for (int k = 0; k < p.n; ++k) {
        p.seek[k] = p.last_seek = at;
        at += 4 * (size_t)(fr->field[p.order[k]].cell ? m->ne : m->nn);
    }
    p.bytes = at;
    return p;
}

/* Append frame @p index's <Grid> element. */
static hs_status put_grid(xdmf_series *s, int index, const hs_frame *fr, const frame_plan *p)
{
    char tbuf[40], frame_suffix[HS_SERIES_SUFFIX_MAX];
    hs_xdmf_format_time(fr->time_ms, tbuf, sizeof tbuf);
    hs_series_frame_suffix(index, XDMF_FRAME_EXT, frame_suffix);
    const int32_t nn = s->n_nodes, ne = s->n_elems;
    HS_CALL(hs_xdmf_grids_printf(&s->g, "      " HS_XDMF_GRID_OPEN " Name=\"frame_%06d\">\n", index));
    HS_CALL(hs_xdmf_grids_printf(&s->g, "        <Time Value=\"%s\"/>\n", tbuf));
    HS_CALL(hs_xdmf_grids_printf(&s->g, "        <Topology TopologyType=\"Tetrahedron\" NumberOfElements=\"%d\">\n",
                         (int)ne));
    HS_CALL(put_item(s, "Int", 4, ne, 4, 0, geom_suffix[GEOM_TETS]));
    HS_CALL(hs_xdmf_grids_printf(&s->g, "        </Topology>\n        <Geometry GeometryType=\"XYZ\">\n"));
    HS_CALL(put_item(s, "Float", 8, nn, 3, 0, geom_suffix[GEOM_XYZ]));
    HS_CALL(hs_xdmf_grids_printf(&s->g, "        </Geometry>\n"));
    for (int k = 0; k < p->n; ++k) {
        const hs_frame_field *a = &fr->field[p->order[k]];
        HS_CALL(put_attribute(s, a->name, a->cell, "Float", 4, a->cell ? ne : nn, 1, p->seek[k], frame_suffix));
    }
    if (p->mesh_arrays & HS_MESH_FIELD_FIBER)
        HS_CALL(put_attribute(s, "fiber", 1, "Float", 8, ne, 3, 0, geom_suffix[GEOM_FIBER]));
    if (p->mesh_arrays & HS_MESH_FIELD_REGION)
        HS_CALL(put_attribute(s, "region", 1, "Int", 4, ne, 1, 0, geom_suffix[GEOM_REGION]));
    return hs_xdmf_grids_printf(&s->g, "      </Grid>\n");
}

/* Rewrite the index with frames [0, n), whose <Grid> text is kept in s->g (their times are in
 * it). With no frame the index is removed: it would list frames a resume at 0 removed. */
static hs_status write_index(const xdmf_series *s, int n)
{
    if (n == 0) {
        if (unlink(s->index_path) != 0 && errno != ENOENT) {
            int err = errno;
            return HS_FAIL(HS_ERR_IO, "cannot remove the XDMF index %s of the abandoned frames: %s",
                           s->index_path, strerror(err));
        }
        return HS_OK;
    }
    return hs_xdmf_grids_write_index(&s->g, n, s->index_path,
                                     "heartsim XDMF series: raw little-endian binary files beside this one; "
                                     "docs/output.md", s->xml_prefix);
}

static hs_status xdmf_write_index(void *impl, const double *times, int n)
{
    (void)times;
    const xdmf_series *s = impl;
    if (!s->pg) return write_index(s, n);
    return hs_part_gather_agree_root(s->pg, s->root ? write_index(s, n) : HS_OK); /* rank 0's index */
}

/* ---- binary arrays -------------------------------------------------------------------------- */

static hs_status write_f64(xdmf_series *s, hs_atomic_file *f, const double *src, size_t n)
{
    const size_t per_chunk = HS_XDMF_CHUNK_BYTES / 8;
    for (size_t i0 = 0; i0 < n; i0 += per_chunk) {
        size_t m = n - i0 < per_chunk ? n - i0 : per_chunk;
        for (size_t i = 0; i < m; ++i) hs_le_put_f64(s->chunk + 8 * i, src[i0 + i]);
        HS_CALL(hs_atomic_file_write(f, s->chunk, 8 * m));
    }
    return HS_OK;
}

/* float32 of src [n], or of scale * src + shift (in double, then rounded once) when @p affine. */
static hs_status write_f32(xdmf_series *s, hs_atomic_file *f, const double *src, size_t n,
                           int affine, double scale, double shift)
{
    const size_t per_chunk = HS_XDMF_CHUNK_BYTES / 4;
    for (size_t i0 = 0; i0 < n; i0 += per_chunk) {
        size_t m = n - i0 < per_chunk ? n - i0 : per_chunk;
        if (affine)
            for (size_t i = 0; i < m; ++i) hs_le_put_f32(s->chunk + 4 * i, scale * src[i0 + i] + shift);
        else
            for (size_t i = 0; i < m; ++i) hs_le_put_f32(s->chunk + 4 * i, src[i0 + i]);
        HS_CALL(hs_atomic_file_write(f, s->chunk, 4 * m));
    }
    return HS_OK;
}

static hs_status write_i32(xdmf_series *s, hs_atomic_file *f, const int32_t *src, size_t n)
{
    const size_t per_chunk = HS_XDMF_CHUNK_BYTES / 4;
    for (size_t i0 = 0; i0 < n; i0 += per_chunk) {
        size_t m = n - i0 < per_chunk ? n - i0 : per_chunk;
        for (size_t i = 0; i < m; ++i) hs_le_put_i32(s->chunk + 4 * i, src[i0 + i]);
        HS_CALL(hs_atomic_file_write(f, s->chunk, 4 * m));
    }
    return HS_OK;
}

/* Connectivity rows [first, first + ne) of four int32 node indices (a part's 64-bit ones arrive
 * narrowed: hs_part_gather_rows_i32); node indices are checked because an index out of range makes
 * readers crash or draw garbage, far from the cause. */
static hs_status write_tets(xdmf_series *s, hs_atomic_file *f, const int32_t *tets, int64_t first, size_t ne,
                            int64_t nn)
{
    const size_t rows_per_chunk = HS_XDMF_CHUNK_BYTES / 16;
    for (size_t e0 = 0; e0 < ne; e0 += rows_per_chunk) {
        size_t k = ne - e0 < rows_per_chunk ? ne - e0 : rows_per_chunk;
        for (size_t e = 0; e < k; ++e) {
            for (int j = 0; j < 4; ++j) {
                const int32_t t = tets[4 * (e0 + e) + (size_t)j];
                HS_CHECK(t >= 0 && t < nn, HS_ERR_INTERNAL, "element %lld has node index %d outside [0, %lld)",
                         (long long)(first + (int64_t)(e0 + e)), (int)t, (long long)nn);
                hs_le_put_i32(s->chunk + 16 * e + 4 * j, t);
            }
        }
        HS_CALL(hs_atomic_file_write(f, s->chunk, 16 * k));
    }
    return HS_OK;
}

/* One array being written: how a piece of it is encoded, and the file's state. Serially (s->pg NULL)
 * the whole array goes in one piece; a part's arrays are each rank's rows, streamed to rank 0 a chunk
 * at a time (hs_part_gather_rows), where each chunk is encoded and written before the next comes.
 * Every rank of a part runs the same calls in the same order; only rank 0 has a file. */
enum { ENC_F64, ENC_F32, ENC_I32, ENC_TETS };
typedef struct xdmf_enc {
    xdmf_series *s;
    hs_atomic_file *f; /* NULL: this rank writes nothing */
    hs_status st;      /* the first failure; nothing is written after it */
    int kind, ncomp, affine;
    double scale, shift;
    int64_t nn;        /* connectivity: node indices lie in [0, nn) */
} xdmf_enc;

static hs_status put_rows(void *ctx, int64_t first, int64_t n, const void *rows)
{
    xdmf_enc *e = ctx;
    if (!e->f || e->st != HS_OK) return HS_OK; /* after a failure the chunks still go by, unwritten */
    const size_t m = (size_t)n * (size_t)e->ncomp;
    switch (e->kind) {
    case ENC_F64: e->st = write_f64(e->s, e->f, rows, m); break;
    case ENC_F32: e->st = write_f32(e->s, e->f, rows, m, e->affine, e->scale, e->shift); break;
    case ENC_I32: e->st = write_i32(e->s, e->f, rows, m); break;
    default: e->st = write_tets(e->s, e->f, rows, first, (size_t)n, e->nn); break;
    }
    return e->st;
}

/* @p n rows of @p row bytes: @p src whole (serial) or this rank's rows (a part; NULL: zeros). */
static void out_array(xdmf_enc *e, int cell, const void *src, size_t row, int64_t n)
{
    if (e->s->pg)
        (void)hs_part_gather_rows(e->s->pg, cell, src, row, put_rows, e); /* put_rows keeps the failure in e->st */
    else
        (void)put_rows(e, 0, n, src);
}

/* Start @p path (rank 0 of a part, or serially); the status agreed over a part's ranks. */
static hs_status enc_open(xdmf_enc *e, const char *path, const char *what)
{
    if (e->s->root) e->st = hs_atomic_file_create(path, what, &e->f);
    return e->s->pg ? hs_part_gather_agree_root(e->s->pg, e->st) : e->st;
}

/* Commit what enc_open started (rank 0's status, agreed over a part's ranks). */
static hs_status enc_close(xdmf_enc *e)
{
    if (e->f && e->st == HS_OK) e->st = hs_atomic_file_commit(&e->f);
    hs_atomic_file_destroy(&e->f);
    return e->s->pg ? hs_part_gather_agree_root(e->s->pg, e->st) : e->st;
}

static hs_status write_mesh_file(xdmf_series *s, int which, const xdmf_mesh *m)
{
    const hs_mesh *w = m->mesh;
    const hs_series_part *pt = m->pt;
    xdmf_enc e = {s, NULL, HS_OK, ENC_F64, 3, 0, 1.0, 0.0, m->nn};
    HS_CALL(enc_open(&e, s->geom_path[which], "XDMF mesh file"));
    switch (which) {
    case GEOM_XYZ: out_array(&e, 0, w ? (const void *)w->xyz : pt->xyz, 24, m->nn); break;
    case GEOM_TETS: /* the part's int64 node indices narrowed on the way */
        e.kind = ENC_TETS;
        if (s->pg)
            (void)hs_part_gather_rows_i32(s->pg, 1, pt->tets, 4, put_rows, &e);
        else
            (void)put_rows(&e, 0, m->ne, w->tets);
        break;
    case GEOM_REGION:
        e.kind = ENC_I32;
        e.ncomp = 1;
        out_array(&e, 1, w ? (const void *)w->region : pt->region, 4, m->ne);
        break;
    default: out_array(&e, 1, w ? (const void *)w->fiber : pt->fiber, 24, m->ne); break;
    }
    HS_CALL(enc_close(&e));
    s->geom_written |= 1u << which; /* on every rank of a part alike: the status was agreed */
    return HS_OK;
}

static hs_status write_frame_file(xdmf_series *s, const char *path, const xdmf_mesh *m, const hs_frame *fr,
                                  const frame_plan *p)
{
    xdmf_enc e = {s, NULL, HS_OK, ENC_F32, 1, 0, 1.0, 0.0, 0};
    HS_CALL(enc_open(&e, path, "XDMF frame"));
    for (int k = 0; k < p->n; ++k) {
        const hs_frame_field *a = &fr->field[p->order[k]];
        e.affine = a->mapped;
        e.scale = a->scale;
        e.shift = a->offset;
        out_array(&e, a->cell, a->data, 8, a->cell ? m->ne : m->nn);
    }
    return enc_close(&e);
}

/* ---- write ---------------------------------------------------------------------------------- */

static hs_status xdmf_write_frame(void *impl, int index, const char *path, const hs_mesh *mesh,
                                  const hs_frame *frame)
{
    xdmf_series *s = impl;
    const xdmf_mesh m = s->pg ? (xdmf_mesh){hs_part_gather_part(s->pg)->n_nodes_global,
                                            hs_part_gather_part(s->pg)->n_elems_global,
                                            hs_part_gather_mesh_arrays(s->pg, frame), NULL, hs_part_gather_part(s->pg)}
                              : (xdmf_mesh){mesh->n_nodes, mesh->n_elems, hs_frame_mesh_arrays(frame, mesh), mesh, NULL};
    hs_status st = HS_OK;
    /* The mesh files are shared by all frames: another mesh would silently change earlier ones. */
    if (s->root && s->mesh_known && (m.nn != s->n_nodes || m.ne != s->n_elems))
        st = HS_FAIL(HS_ERR_INTERNAL,
                     "XDMF series %s holds a mesh of %d nodes and %d elements; frame %d has %lld and %lld "
                     "(one mesh per series)",
                     s->index_path, (int)s->n_nodes, (int)s->n_elems, index, (long long)m.nn, (long long)m.ne);
    const frame_plan p = plan_frame(&m, frame);
    /* Both XDMF readers parse Seek with atoi: an offset of 2^31 or more would read wrong data. */
    if (st == HS_OK && p.last_seek > (size_t)INT_MAX)
        st = HS_FAIL(HS_ERR_CONFIG,
                     "XDMF frame %d: %zu bytes of fields per frame; XDMF readers cannot seek past 2 GiB "
                     "in a file (use output.format = \"vtk\", or fewer output.fields)",
                     index, p.bytes);
    if (st == HS_OK && s->root) st = hs_xdmf_grids_reserve(&s->g, index + 1);
    if (s->pg) st = hs_part_gather_agree_root(s->pg, st);
    HS_CALL(st);

    unsigned need = (1u << GEOM_XYZ) | (1u << GEOM_TETS) |
                    (p.mesh_arrays & HS_MESH_FIELD_REGION ? 1u << GEOM_REGION : 0) |
                    (p.mesh_arrays & HS_MESH_FIELD_FIBER ? 1u << GEOM_FIBER : 0);
    for (int g = 0; g < GEOM_COUNT; ++g)
        if ((need & ~s->geom_written) & (1u << g)) HS_CALL(write_mesh_file(s, g, &m));
    s->mesh_known = 1;
    s->n_nodes = (int32_t)m.nn;
    s->n_elems = (int32_t)m.ne;

    /* The grid text after frame index - 1 is that of a frame whose index could not be written
     * (the series removed it): this frame replaces it. */
    if (s->root) {
        hs_xdmf_grids_keep(&s->g, index);
        st = put_grid(s, index, frame, &p);
        if (st == HS_OK) hs_xdmf_grids_mark(&s->g, index);
    }
    if (s->pg) st = hs_part_gather_agree_root(s->pg, st);
    HS_CALL(st);
    return write_frame_file(s, path, &m, frame, &p);
}

/* ---- restart -------------------------------------------------------------------------------- */

static hs_status slurp(const char *path, char **out)
{
    *out = NULL;
    FILE *fp = fopen(path, "rb");
    int err = errno;
    HS_CHECK(fp, HS_ERR_IO, "cannot resume the XDMF series: cannot open its index %s: %s", path,
             strerror(err));
    hs_status st = HS_OK;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 65536 + 1 > cap) {
            cap = cap ? 2 * cap : 1 << 20;
            char *b = realloc(buf, cap);
            HS_CHECK_GOTO(b, done, HS_ERR_MEMORY, "out of memory reading %s", path);
            buf = b;
        }
        size_t got = fread(buf + len, 1, 65536, fp);
        len += got;
        if (got < 65536) break;
    }
    HS_CHECK_GOTO(!ferror(fp), done, HS_ERR_IO, "cannot resume the XDMF series: error reading %s",
                  path);
    buf[len] = '\0';
    HS_CHECK_GOTO(strlen(buf) == len, done, HS_ERR_IO,
                  "cannot resume the XDMF series: %s holds a NUL byte (not an index)", path);
    *out = buf;
    buf = NULL;
done:
    free(buf);
    fclose(fp);
    return st;
}

/* Integer attribute @p key="..." of the first element after @p from and before @p end, or -1. */
static long attr_long(const char *from, const char *end, const char *key)
{
    const char *a = strstr(from, key);
    if (!a || a >= end) return -1;
    char *e = NULL;
    errno = 0;
    long v = strtol(a + strlen(key), &e, 10);
    return errno || e == a + strlen(key) || v < 0 || v > INT32_MAX ? -1 : v;
}

/* Keep the first @p n frames of the existing index: their <Grid> text verbatim, after checking
 * that they are at the checkpoint's times (else the directory holds another run's frames). */
static hs_status load_index(xdmf_series *s, const double *times, int n)
{
    char *text = NULL;
    hs_status st = HS_OK;
    HS_CALL(slurp(s->index_path, &text));
    const char *c = text;
    hs_xdmf_grids_keep(&s->g, 0);
    for (int i = 0; i < n; ++i) {
        const char *g = strstr(c, HS_XDMF_GRID_OPEN);
        HS_CHECK_GOTO(g, done, HS_ERR_IO,
                      "cannot resume the XDMF series: %s holds %d frames, the checkpoint %d",
                      s->index_path, i, n);
        const char *line = g;
        while (line > text && line[-1] != '\n') --line;
        const char *end = strstr(g, "</Grid>");
        HS_CHECK_GOTO(end, done, HS_ERR_IO,
                      "cannot resume the XDMF series: %s: frame %d has no </Grid>", s->index_path, i);
        end += strlen("</Grid>");
        if (*end == '\n') ++end;
        const char *tv = strstr(g, "<Time Value=\"");
        char *num_end = NULL;
        double t = tv && tv < end ? strtod(tv + 13, &num_end) : NAN;
        HS_CHECK_GOTO(tv && tv < end && num_end != tv + 13 && *num_end == '"', done, HS_ERR_IO,
                      "cannot resume the XDMF series: %s: frame %d has no <Time Value=\"...\"/>",
                      s->index_path, i);
        HS_CHECK_GOTO(t == times[i], done, HS_ERR_IO,
                      "cannot resume the XDMF series: %s: frame %d is at t = %.17g ms, the "
                      "checkpoint's at %.17g ms: the directory holds the frames of another run",
                      s->index_path, i, t, times[i]);
        if (i == 0) {
            long ne = attr_long(g, end, "NumberOfElements=\"");
            const char *geo = strstr(g, "<Geometry");
            long nn = geo && geo < end ? attr_long(geo, end, "Dimensions=\"") : -1;
            HS_CHECK_GOTO(ne >= 0 && nn >= 0, done, HS_ERR_IO,
                          "cannot resume the XDMF series: %s: frame 0 has no element or node count",
                          s->index_path);
            s->mesh_known = 1;
            s->n_elems = (int32_t)ne;
            s->n_nodes = (int32_t)nn;
        }
        HS_CALL_GOTO(hs_xdmf_grids_append(&s->g, line, (size_t)(end - line)), done);
        hs_xdmf_grids_mark(&s->g, i);
        c = end;
    }
done:
    if (st != HS_OK) {
        hs_xdmf_grids_keep(&s->g, 0);
        s->mesh_known = 0;
    }
    free(text);
    return st;
}

/* Resume: keep the old index's entries of the first @p n frames (none: forget any). */
static hs_status resume(xdmf_series *s, const double *times, int n)
{
    hs_xdmf_grids_keep(&s->g, 0);
    s->mesh_known = 0;
    if (n == 0) return HS_OK;
    HS_CALL(hs_xdmf_grids_reserve(&s->g, n));
    return load_index(s, times, n);
}

/* Resume (a part series: rank 0 keeps the index, every rank returns its status; n = 0, which cannot
 * fail, on each rank alone) */
static hs_status xdmf_resume(void *impl, const double *times, int n)
{
    xdmf_series *s = impl;
    if (!s->pg || n == 0) return s->root ? resume(s, times, n) : HS_OK;
    return hs_part_gather_agree_root(s->pg, s->root ? resume(s, times, n) : HS_OK);
}

/* A part series streamed through rank 0: every rank an encoder that hands its rows to @p g; rank 0
 * writes the files and keeps the index. */
static hs_status xdmf_create_stream(const char *dir, const char *prefix, const char *index_path, hs_part_gather *g,
                                    void **out)
{
    xdmf_series *s = NULL;
    *out = NULL;
    hs_status st = xdmf_create(dir, prefix, index_path, (void **)&s);
    if (s) {
        s->pg = g;
        s->root = hs_part_gather_rank(g) == 0;
    }
    st = hs_part_gather_agree_any(g, st);
    if (st != HS_OK) {
        if (s) xdmf_destroy(s);
        return st;
    }
    *out = s;
    return HS_OK;
}

const hs_series_format_ops hs_series_format_xdmf = {
    .name = "xdmf",
    .summary = "the mesh once, float32 fields per frame (raw binary) and an XDMF .xdmf index",
    .index_ext = ".xdmf",
    .frame_ext = XDMF_FRAME_EXT,
    .missing = NULL,
    .check_prefix = xdmf_check_prefix,
    .create = xdmf_create,
    .create_stream = xdmf_create_stream,
    .write_frame = xdmf_write_frame,
    .write_index = xdmf_write_index,
    .resume = xdmf_resume,
    .destroy = xdmf_destroy,
};
