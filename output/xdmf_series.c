/*
 * XDMF series (hs_xdmf.h): mesh files once, one float32 field file per frame, an XML index.
 *
 * Why this layout: a legacy VTK frame repeats the geometry (410 MB at 1M nodes / 6M tets); here a
 * frame is phi, activation and r as float32 (32 MB), so at one frame per simulated ms the writer
 * thread keeps up with the time loop. Raw binary rather than HDF5: no library to depend on, and
 * both of ParaView's XDMF readers take Format="Binary" with Endian and Seek.
 *
 * What the readers accept shaped the XML (checked with ParaView 5.11's Xdmf3ReaderS, Xdmf3ReaderT
 * and the legacy XDMFReader): every Uniform grid carries its own Topology and Geometry DataItems
 * pointing at the shared mesh files, because XPath references are spelled differently by Xdmf2
 * and Xdmf3 and each rejects the other's form; Seek is parsed with atoi by both, so offsets must
 * stay below 2^31; heavy-data file names are split at '|' and trimmed, so prefixes with '|' or
 * blanks are refused.
 */
#define _POSIX_C_SOURCE 200809L
#include "hs_xdmf.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_atomic_file.h"
#include "hs_util.h"

enum { HS_XDMF_CHUNK_BYTES = 1 << 20 }; /* scratch for byte-order conversion; a multiple of 16 */

/* The mesh arrays, one file each; bit (1 << GEOM_x) of geom_written. */
enum { GEOM_XYZ, GEOM_TETS, GEOM_REGION, GEOM_FIBER, GEOM_COUNT };
static const char *const geom_suffix[GEOM_COUNT] = {"_mesh_xyz.bin", "_mesh_tets.bin",
                                                    "_mesh_region.bin", "_mesh_fiber.bin"};

/* How a frame's <Grid> starts in the index: resume finds the frames by it. */
#define GRID_OPEN "<Grid GridType=\"Uniform\""

struct hs_xdmf_series {
    char *dir;
    char *prefix;
    char *xml_prefix;               /* prefix with & < > " ' escaped, as it appears in the index */
    char *index_path;               /* DIR/PREFIX.xdmf */
    char *geom_path[GEOM_COUNT];    /* DIR/PREFIX_mesh_*.bin */
    double *times;                  /* [cap] time in ms of each frame written so far */
    size_t *grid_end;               /* [cap] end of frame i's <Grid> text in grids */
    int n_frames, cap;
    char *grids;                    /* the <Grid> elements of all frames, as written in the index */
    size_t grids_len, grids_cap;
    int mesh_known;                 /* n_nodes, n_elems fixed (first frame, or a resumed index) */
    int32_t n_nodes, n_elems;
    unsigned geom_written;          /* mesh files this writer has written (bits 1 << GEOM_x) */
    unsigned char *chunk;           /* [HS_XDMF_CHUNK_BYTES] little-endian scratch */
};

/* ---- little-endian encoding ----------------------------------------------------------------- */

/* Shifts from the value, so the same code is right on any host (cf. hs_byte_order.h). */
static inline void le_put_u32(unsigned char *d, uint32_t v)
{
    d[0] = (unsigned char)v;
    d[1] = (unsigned char)(v >> 8);
    d[2] = (unsigned char)(v >> 16);
    d[3] = (unsigned char)(v >> 24);
}

static inline void le_put_f64(unsigned char *d, double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    le_put_u32(d, (uint32_t)u);
    le_put_u32(d + 4, (uint32_t)(u >> 32));
}

static inline void le_put_i32(unsigned char *d, int32_t v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    le_put_u32(d, u);
}

/* Nearest float; beyond float's range C leaves the conversion undefined, so say inf explicitly. */
static inline void le_put_f32(unsigned char *d, double x)
{
    float f = x > FLT_MAX ? INFINITY : x < -FLT_MAX ? -INFINITY : (float)x;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    le_put_u32(d, u);
}

/* ---- names ---------------------------------------------------------------------------------- */

/* DIR/NAME in a new string; no doubled '/' when DIR already ends with one. */

/* DIR/PREFIX_000012.bin */
static hs_status frame_path(const hs_xdmf_series *s, int index, char **out)
{
    char name[32];
    snprintf(name, sizeof name, "_%06d.bin", index);
    size_t pl = strlen(s->prefix);
    char *base = NULL;
    HS_CALL(HS_ALLOC(base, pl + strlen(name) + 1, "frame name"));
    memcpy(base, s->prefix, pl);
    memcpy(base + pl, name, strlen(name) + 1);
    hs_status st = hs_path_join(s->dir, base, out);
    free(base);
    return st;
}

/* Well-formed UTF-8 (the index declares that encoding; a stray byte makes it unreadable). */
static int utf8_valid(const unsigned char *c)
{
    while (*c) {
        int more = *c < 0x80 ? 0 : (*c & 0xE0) == 0xC0 ? 1 : (*c & 0xF0) == 0xE0 ? 2 : (*c & 0xF8) == 0xF0 ? 3 : -1;
        if (more < 0) return 0;
        ++c;
        for (int k = 0; k < more; ++k, ++c)
            if ((*c & 0xC0) != 0x80) return 0;
    }
    return 1;
}

hs_status hs_xdmf_prefix_check(const char *prefix)
{
    HS_CHECK(prefix && *prefix && !strchr(prefix, '/'), HS_ERR_CONFIG,
             "output prefix \"%s\" must be a non-empty file name without '/'",
             prefix ? prefix : "(null)");
    for (const unsigned char *c = (const unsigned char *)prefix; *c; ++c)
        HS_CHECK(*c > ' ' && *c != 0x7f && *c != '|', HS_ERR_CONFIG,
                 "output prefix \"%s\": the xdmf format cannot use white space, control characters "
                 "or '|' in file names (XDMF readers split and trim data file names there)", prefix);
    HS_CHECK(utf8_valid((const unsigned char *)prefix), HS_ERR_CONFIG,
             "output prefix \"%s\" is not valid UTF-8, which the XDMF index requires", prefix);
    return HS_OK;
}

/* @p str with XML's special characters as entities, in a new string. */
static hs_status xml_escape(const char *str, char **out)
{
    size_t len = 1;
    for (const char *c = str; *c; ++c) len += strchr("&<>\"'", *c) ? 6 : 1;
    char *p = NULL;
    HS_CALL(HS_ALLOC(p, len, "escaped name"));
    char *o = p;
    for (const char *c = str; *c; ++c) {
        const char *ent = *c == '&' ? "&amp;" : *c == '<' ? "&lt;" : *c == '>' ? "&gt;"
                        : *c == '"' ? "&quot;" : *c == '\'' ? "&apos;" : NULL;
        if (ent) {
            memcpy(o, ent, strlen(ent));
            o += strlen(ent);
        } else {
            *o++ = *c;
        }
    }
    *o = '\0';
    *out = p;
    return HS_OK;
}

/* Shortest of %.15g / %.17g that reads back as the same double (as the VTK index does), so the
 * reader's timesteps are exactly the simulation's times. */
static void format_time(double t, char *buf, size_t size)
{
    snprintf(buf, size, "%.15g", t);
    if (strtod(buf, NULL) != t) snprintf(buf, size, "%.17g", t);
}

/* ---- create / destroy ----------------------------------------------------------------------- */

static hs_status copy_string(const char *src, char **out, const char *what)
{
    HS_CALL(HS_ALLOC(*out, strlen(src) + 1, what));
    memcpy(*out, src, strlen(src) + 1);
    return HS_OK;
}

/* DIR/PREFIX + suffix */
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

hs_status hs_xdmf_series_create(const char *dir, const char *prefix, hs_xdmf_series **out)
{
    hs_status st = HS_OK;
    hs_xdmf_series *s = NULL;
    *out = NULL;
    HS_CALL(hs_xdmf_prefix_check(prefix));
    HS_CALL(hs_output_dir_check(dir));

    HS_CALL(HS_ALLOC(s, 1, "XDMF series"));
    HS_CALL_GOTO(copy_string(dir, &s->dir, "directory name"), fail);
    HS_CALL_GOTO(copy_string(prefix, &s->prefix, "prefix"), fail);
    HS_CALL_GOTO(xml_escape(prefix, &s->xml_prefix), fail);
    HS_CALL_GOTO(prefixed_path(dir, prefix, ".xdmf", &s->index_path), fail);
    for (int g = 0; g < GEOM_COUNT; ++g)
        HS_CALL_GOTO(prefixed_path(dir, prefix, geom_suffix[g], &s->geom_path[g]), fail);
    HS_CALL_GOTO(HS_ALLOC(s->chunk, HS_XDMF_CHUNK_BYTES, "XDMF write buffer"), fail);
    *out = s;
    return HS_OK;
fail:
    hs_xdmf_series_destroy(&s);
    return st;
}

void hs_xdmf_series_destroy(hs_xdmf_series **sp)
{
    if (!sp || !*sp) return;
    hs_xdmf_series *s = *sp;
    free(s->dir);
    free(s->prefix);
    free(s->xml_prefix);
    free(s->index_path);
    for (int g = 0; g < GEOM_COUNT; ++g) free(s->geom_path[g]);
    free(s->times);
    free(s->grid_end);
    free(s->grids);
    free(s->chunk);
    free(s);
    *sp = NULL;
}

int hs_xdmf_series_count(const hs_xdmf_series *s)
{
    return s ? s->n_frames : 0;
}

const char *hs_xdmf_series_index_path(const hs_xdmf_series *s)
{
    return s ? s->index_path : NULL;
}

const double *hs_xdmf_series_times(const hs_xdmf_series *s)
{
    return s ? s->times : NULL;
}

/* Room for @p n frames in times and grid_end. */
static hs_status reserve_frames(hs_xdmf_series *s, int n)
{
    if (n <= s->cap) return HS_OK;
    int cap = s->cap ? s->cap : 64;
    while (cap < n) cap = cap > INT_MAX / 2 ? n : 2 * cap;
    double *t = realloc(s->times, (size_t)cap * sizeof *t);
    HS_CHECK(t, HS_ERR_MEMORY, "out of memory growing the XDMF series index to %d frames", cap);
    s->times = t;
    size_t *g = realloc(s->grid_end, (size_t)cap * sizeof *g);
    HS_CHECK(g, HS_ERR_MEMORY, "out of memory growing the XDMF series index to %d frames", cap);
    s->grid_end = g;
    s->cap = cap;
    return HS_OK;
}

/* ---- index text ----------------------------------------------------------------------------- */

static hs_status grids_append(hs_xdmf_series *s, const char *text, size_t n)
{
    if (s->grids_len + n + 1 > s->grids_cap) {
        size_t cap = s->grids_cap ? s->grids_cap : 4096;
        while (cap < s->grids_len + n + 1) cap *= 2;
        char *g = realloc(s->grids, cap);
        HS_CHECK(g, HS_ERR_MEMORY, "out of memory growing the XDMF index text to %zu bytes", cap);
        s->grids = g;
        s->grids_cap = cap;
    }
    memcpy(s->grids + s->grids_len, text, n);
    s->grids_len += n;
    s->grids[s->grids_len] = '\0';
    return HS_OK;
}

static hs_status grids_printf(hs_xdmf_series *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static hs_status grids_printf(hs_xdmf_series *s, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof line) return grids_append(s, line, (size_t)n);
    /* only a very long prefix gets here */
    HS_CHECK(n >= 0, HS_ERR_INTERNAL, "cannot format an XDMF index line");
    char *big = NULL;
    HS_CALL(HS_ALLOC(big, (size_t)n + 1, "XDMF index line"));
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    hs_status st = grids_append(s, big, (size_t)n);
    free(big);
    return st;
}

/* One <DataItem> of a raw little-endian array: [rows] or [rows][cols] of @p type/@p precision at
 * byte @p seek of file PREFIX@p suffix (relative to the index, so the directory can be moved). */
static hs_status put_item(hs_xdmf_series *s, const char *type, int precision, int32_t rows,
                          int cols, size_t seek, const char *suffix)
{
    char dims[32];
    if (cols > 1)
        snprintf(dims, sizeof dims, "%d %d", (int)rows, cols);
    else
        snprintf(dims, sizeof dims, "%d", (int)rows);
    return grids_printf(s,
                        "          <DataItem Format=\"Binary\" Endian=\"Little\" NumberType=\"%s\" "
                        "Precision=\"%d\" Dimensions=\"%s\" Seek=\"%zu\">%s%s</DataItem>\n",
                        type, precision, dims, seek, s->xml_prefix, suffix);
}

static hs_status put_attribute(hs_xdmf_series *s, const char *name, int cell, const char *type,
                               int precision, int32_t rows, int cols, size_t seek, const char *suffix)
{
    HS_CALL(grids_printf(s, "        <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"%s\">\n",
                         name, cols == 3 ? "Vector" : "Scalar", cell ? "Cell" : "Node"));
    HS_CALL(put_item(s, type, precision, rows, cols, seek, suffix));
    return grids_printf(s, "        </Attribute>\n");
}

/* What a frame holds and where each field starts in its file. */
typedef struct frame_plan {
    int phi, v, activation, r, fiber, region;
    size_t seek_phi, seek_v, seek_act, seek_r; /* bytes */
    size_t bytes;                              /* size of the frame file */
} frame_plan;

static frame_plan plan_frame(const hs_mesh *m, const hs_frame *fr)
{
    frame_plan p;
    memset(&p, 0, sizeof p);
    p.phi = (fr->fields & HS_FIELD_PHI) && fr->phi;
    p.v = (fr->fields & HS_FIELD_V) && fr->phi;
    p.activation = (fr->fields & HS_FIELD_ACTIVATION) && fr->activation;
    p.r = (fr->fields & HS_FIELD_R) && fr->r;
    p.fiber = (fr->fields & HS_FIELD_FIBER) && m->fiber;
    p.region = (fr->fields & HS_FIELD_REGION) && m->region;
    const size_t point_bytes = 4 * (size_t)m->n_nodes, cell_bytes = 4 * (size_t)m->n_elems;
    size_t at = 0;
    p.seek_phi = at;
    at += p.phi ? point_bytes : 0;
    p.seek_v = at;
    at += p.v ? point_bytes : 0;
    p.seek_act = at;
    at += p.activation ? point_bytes : 0;
    p.seek_r = at;
    at += p.r ? cell_bytes : 0;
    p.bytes = at;
    return p;
}

/* Append frame @p index's <Grid> element. */
static hs_status put_grid(hs_xdmf_series *s, int index, double time_ms, const frame_plan *p)
{
    char tbuf[40], frame_suffix[32];
    format_time(time_ms, tbuf, sizeof tbuf);
    snprintf(frame_suffix, sizeof frame_suffix, "_%06d.bin", index);
    const int32_t nn = s->n_nodes, ne = s->n_elems;
    HS_CALL(grids_printf(s, "      " GRID_OPEN " Name=\"frame_%06d\">\n", index));
    HS_CALL(grids_printf(s, "        <Time Value=\"%s\"/>\n", tbuf));
    HS_CALL(grids_printf(s, "        <Topology TopologyType=\"Tetrahedron\" NumberOfElements=\"%d\">\n",
                         (int)ne));
    HS_CALL(put_item(s, "Int", 4, ne, 4, 0, geom_suffix[GEOM_TETS]));
    HS_CALL(grids_printf(s, "        </Topology>\n        <Geometry GeometryType=\"XYZ\">\n"));
    HS_CALL(put_item(s, "Float", 8, nn, 3, 0, geom_suffix[GEOM_XYZ]));
    HS_CALL(grids_printf(s, "        </Geometry>\n"));
    if (p->phi) HS_CALL(put_attribute(s, "phi", 0, "Float", 4, nn, 1, p->seek_phi, frame_suffix));
    if (p->v) HS_CALL(put_attribute(s, "V", 0, "Float", 4, nn, 1, p->seek_v, frame_suffix));
    if (p->activation)
        HS_CALL(put_attribute(s, "activation", 0, "Float", 4, nn, 1, p->seek_act, frame_suffix));
    if (p->r) HS_CALL(put_attribute(s, "r", 1, "Float", 4, ne, 1, p->seek_r, frame_suffix));
    if (p->fiber)
        HS_CALL(put_attribute(s, "fiber", 1, "Float", 8, ne, 3, 0, geom_suffix[GEOM_FIBER]));
    if (p->region)
        HS_CALL(put_attribute(s, "region", 1, "Int", 4, ne, 1, 0, geom_suffix[GEOM_REGION]));
    return grids_printf(s, "      </Grid>\n");
}

/* Rewrite the index with the first @p len bytes of the grid text. */
static hs_status write_index(const hs_xdmf_series *s, size_t len)
{
    hs_status st = HS_OK;
    hs_atomic_file *f = NULL;
    HS_CALL(hs_atomic_file_create(s->index_path, "XDMF index", &f));
    HS_CALL_GOTO(hs_atomic_file_printf(f,
                                       "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
                                       "<!-- heartsim XDMF series: raw little-endian binary files "
                                       "beside this one; docs/output.md -->\n"
                                       "<Xdmf Version=\"3.0\">\n"
                                       "  <Domain>\n"
                                       "    <Grid Name=\"%s\" GridType=\"Collection\" "
                                       "CollectionType=\"Temporal\">\n",
                                       s->xml_prefix),
                 fail);
    HS_CALL_GOTO(hs_atomic_file_write(f, s->grids, len), fail);
    HS_CALL_GOTO(hs_atomic_file_printf(f, "    </Grid>\n  </Domain>\n</Xdmf>\n"), fail);
    return hs_atomic_file_commit(&f);
fail:
    hs_atomic_file_destroy(&f);
    return st;
}

/* ---- binary arrays -------------------------------------------------------------------------- */

static hs_status write_f64(hs_xdmf_series *s, hs_atomic_file *f, const double *src, size_t n)
{
    const size_t per_chunk = HS_XDMF_CHUNK_BYTES / 8;
    for (size_t i0 = 0; i0 < n; i0 += per_chunk) {
        size_t m = n - i0 < per_chunk ? n - i0 : per_chunk;
        for (size_t i = 0; i < m; ++i) le_put_f64(s->chunk + 8 * i, src[i0 + i]);
        HS_CALL(hs_atomic_file_write(f, s->chunk, 8 * m));
    }
    return HS_OK;
}

/* float32 of src [n], or of scale * src + shift (in double, then rounded once) when @p affine. */
static hs_status write_f32(hs_xdmf_series *s, hs_atomic_file *f, const double *src, size_t n,
                           int affine, double scale, double shift)
{
    const size_t per_chunk = HS_XDMF_CHUNK_BYTES / 4;
    for (size_t i0 = 0; i0 < n; i0 += per_chunk) {
        size_t m = n - i0 < per_chunk ? n - i0 : per_chunk;
        if (affine)
            for (size_t i = 0; i < m; ++i) le_put_f32(s->chunk + 4 * i, scale * src[i0 + i] + shift);
        else
            for (size_t i = 0; i < m; ++i) le_put_f32(s->chunk + 4 * i, src[i0 + i]);
        HS_CALL(hs_atomic_file_write(f, s->chunk, 4 * m));
    }
    return HS_OK;
}

static hs_status write_i32(hs_xdmf_series *s, hs_atomic_file *f, const int32_t *src, size_t n)
{
    const size_t per_chunk = HS_XDMF_CHUNK_BYTES / 4;
    for (size_t i0 = 0; i0 < n; i0 += per_chunk) {
        size_t m = n - i0 < per_chunk ? n - i0 : per_chunk;
        for (size_t i = 0; i < m; ++i) le_put_i32(s->chunk + 4 * i, src[i0 + i]);
        HS_CALL(hs_atomic_file_write(f, s->chunk, 4 * m));
    }
    return HS_OK;
}

/* Connectivity [n_elems][4]; node indices are checked because an index out of range makes readers
 * crash or draw garbage, far from the cause. */
static hs_status write_tets(hs_xdmf_series *s, hs_atomic_file *f, const hs_mesh *m)
{
    const size_t rows_per_chunk = HS_XDMF_CHUNK_BYTES / 16, ne = (size_t)m->n_elems;
    for (size_t e0 = 0; e0 < ne; e0 += rows_per_chunk) {
        size_t k = ne - e0 < rows_per_chunk ? ne - e0 : rows_per_chunk;
        for (size_t e = 0; e < k; ++e) {
            const int32_t *t = m->tets + 4 * (e0 + e);
            for (int j = 0; j < 4; ++j) {
                HS_CHECK(t[j] >= 0 && t[j] < m->n_nodes, HS_ERR_INTERNAL,
                         "element %zu has node index %d outside [0, %d)", e0 + e, (int)t[j],
                         (int)m->n_nodes);
                le_put_i32(s->chunk + 16 * e + 4 * j, t[j]);
            }
        }
        HS_CALL(hs_atomic_file_write(f, s->chunk, 16 * k));
    }
    return HS_OK;
}

static hs_status write_mesh_file(hs_xdmf_series *s, int which, const hs_mesh *m)
{
    hs_status st = HS_OK;
    hs_atomic_file *f = NULL;
    const size_t nn = (size_t)m->n_nodes, ne = (size_t)m->n_elems;
    HS_CALL(hs_atomic_file_create(s->geom_path[which], "XDMF mesh file", &f));
    switch (which) {
    case GEOM_XYZ: st = write_f64(s, f, m->xyz, 3 * nn); break;
    case GEOM_TETS: st = write_tets(s, f, m); break;
    case GEOM_REGION: st = write_i32(s, f, m->region, ne); break;
    default: st = write_f64(s, f, m->fiber, 3 * ne); break;
    }
    if (st == HS_OK) st = hs_atomic_file_commit(&f);
    hs_atomic_file_destroy(&f);
    if (st == HS_OK) s->geom_written |= 1u << which;
    return st;
}

static hs_status write_frame_file(hs_xdmf_series *s, const char *path, const hs_mesh *m,
                                  const hs_frame *fr, const frame_plan *p)
{
    hs_status st = HS_OK;
    hs_atomic_file *f = NULL;
    const size_t nn = (size_t)m->n_nodes, ne = (size_t)m->n_elems;
    HS_CALL(hs_atomic_file_create(path, "XDMF frame", &f));
    if (p->phi) HS_CALL_GOTO(write_f32(s, f, fr->phi, nn, 0, 1.0, 0.0), done);
    /* Aliev-Panfilov's phi in [0,1] mapped to a resting -80 mV and a 20 mV peak, as in VTK. */
    if (p->v) HS_CALL_GOTO(write_f32(s, f, fr->phi, nn, 1, 100.0, -80.0), done);
    if (p->activation) HS_CALL_GOTO(write_f32(s, f, fr->activation, nn, 0, 1.0, 0.0), done);
    if (p->r) HS_CALL_GOTO(write_f32(s, f, fr->r, ne, 0, 1.0, 0.0), done);
    st = hs_atomic_file_commit(&f);
done:
    hs_atomic_file_destroy(&f);
    return st;
}

/* ---- write ---------------------------------------------------------------------------------- */

hs_status hs_xdmf_series_write(hs_xdmf_series *s, const hs_mesh *mesh, const hs_frame *frame)
{
    hs_status st = HS_OK;
    char *path = NULL;

    HS_CHECK(s && mesh && frame, HS_ERR_INTERNAL, "NULL argument");
    HS_CHECK(mesh->n_nodes >= 0 && mesh->n_elems >= 0, HS_ERR_INTERNAL,
             "mesh has negative size (%d nodes, %d elements)", (int)mesh->n_nodes,
             (int)mesh->n_elems);
    HS_CHECK((mesh->xyz || mesh->n_nodes == 0) && (mesh->tets || mesh->n_elems == 0),
             HS_ERR_INTERNAL, "mesh without coordinates or connectivity");
    HS_CHECK(isfinite(frame->time_ms), HS_ERR_NUMERIC,
             "XDMF frame %d: time is not a finite number (%g ms)", s->n_frames, frame->time_ms);
    HS_CHECK(s->n_frames < 999999999, HS_ERR_INTERNAL, "too many frames in one series");
    /* The mesh files are shared by all frames: another mesh would silently change earlier ones. */
    HS_CHECK(!s->mesh_known || (mesh->n_nodes == s->n_nodes && mesh->n_elems == s->n_elems),
             HS_ERR_INTERNAL,
             "XDMF series %s holds a mesh of %d nodes and %d elements; frame %d has %d and %d "
             "(one mesh per series)",
             s->index_path, (int)s->n_nodes, (int)s->n_elems, s->n_frames, (int)mesh->n_nodes,
             (int)mesh->n_elems);
    const frame_plan p = plan_frame(mesh, frame);
    /* Both XDMF readers parse Seek with atoi: an offset of 2^31 or more would read wrong data. */
    HS_CHECK(p.seek_r <= (size_t)INT_MAX, HS_ERR_CONFIG,
             "XDMF frame %d: %zu bytes of fields per frame; XDMF readers cannot seek past 2 GiB "
             "in a file (use output.format = \"vtk\", or fewer output.fields)",
             s->n_frames, p.bytes);
    HS_CALL(reserve_frames(s, s->n_frames + 1));

    unsigned need = (1u << GEOM_XYZ) | (1u << GEOM_TETS) | (p.region ? 1u << GEOM_REGION : 0) |
                    (p.fiber ? 1u << GEOM_FIBER : 0);
    for (int g = 0; g < GEOM_COUNT; ++g)
        if ((need & ~s->geom_written) & (1u << g)) HS_CALL(write_mesh_file(s, g, mesh));
    s->mesh_known = 1;
    s->n_nodes = mesh->n_nodes;
    s->n_elems = mesh->n_elems;

    HS_CALL(frame_path(s, s->n_frames, &path));
    HS_CALL_GOTO(write_frame_file(s, path, mesh, frame, &p), done);
    const size_t old_len = s->grids_len;
    st = put_grid(s, s->n_frames, frame->time_ms, &p);
    if (st == HS_OK) st = write_index(s, s->grids_len);
    if (st != HS_OK) {
        /* Keep the directory consistent with the last good index: the frame number is reused. */
        s->grids_len = old_len;
        if (s->grids) s->grids[old_len] = '\0';
        unlink(path);
        goto done;
    }
    s->times[s->n_frames] = frame->time_ms;
    s->grid_end[s->n_frames] = s->grids_len;
    ++s->n_frames;
done:
    free(path);
    return st;
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
static hs_status load_index(hs_xdmf_series *s, const double *times, int n)
{
    char *text = NULL;
    hs_status st = HS_OK;
    HS_CALL(slurp(s->index_path, &text));
    const char *c = text;
    s->grids_len = 0;
    for (int i = 0; i < n; ++i) {
        const char *g = strstr(c, GRID_OPEN);
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
        HS_CALL_GOTO(grids_append(s, line, (size_t)(end - line)), done);
        s->grid_end[i] = s->grids_len;
        c = end;
    }
done:
    if (st != HS_OK) {
        s->grids_len = 0;
        s->mesh_known = 0;
    }
    free(text);
    return st;
}

hs_status hs_xdmf_series_resume(hs_xdmf_series *s, const double *times, int n_frames)
{
    HS_CHECK(s && s->n_frames == 0 && n_frames >= 0 && (times || n_frames == 0), HS_ERR_INTERNAL,
             "XDMF series resumed after frames were written, or with no times");
    HS_CALL(reserve_frames(s, n_frames));
    if (n_frames > 0) HS_CALL(load_index(s, times, n_frames));
    /* frames after the restart point belong to the abandoned continuation: the index drops them,
     * and so does the directory (the resumed run writes them again) */
    for (int i = n_frames;; ++i) {
        char *path = NULL;
        HS_CALL(frame_path(s, i, &path));
        int gone = unlink(path) != 0;
        free(path);
        if (gone) break;
    }
    if (n_frames > 0) {
        hs_status st = write_index(s, s->grids_len);
        if (st != HS_OK) { /* stay a series with nothing resumed */
            s->grids_len = 0;
            s->mesh_known = 0;
            return st;
        }
    } else if (unlink(s->index_path) != 0 && errno != ENOENT) {
        /* no frame yet: an index would list the removed ones */
        int err = errno;
        return HS_FAIL(HS_ERR_IO, "cannot remove the XDMF index %s of the abandoned frames: %s",
                       s->index_path, strerror(err));
    }
    if (n_frames) memcpy(s->times, times, (size_t)n_frames * sizeof *times);
    s->n_frames = n_frames;
    return HS_OK;
}
