/*
 * Legacy VTK 3.0 binary unstructured-grid frames and their `.vtk.series` JSON index (hs_vtk.h).
 *
 * Legacy binary VTK stores every number big-endian whatever the host, so arrays are encoded into
 * a scratch buffer before writing. The buffer is a fixed-size chunk rather than a whole array:
 * a 1M-node mesh has ~6M tets, whose CELLS array alone is 120 MB, and 1 MiB per fwrite already
 * runs at disk speed (stdio passes writes that large straight to the kernel).
 */
#define _POSIX_C_SOURCE 200809L
#include "hs_vtk.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hs_atomic_file.h"
#include "hs_byte_order.h"
#include "hs_util.h"

enum {
    HS_VTK_CHUNK_BYTES = 1 << 20, /* scratch buffer; a multiple of 8 and of 20 (one CELLS row) */
    HS_VTK_TETRA = 10             /* VTK_TETRA cell type */
};

struct hs_vtk_series {
    char *dir;
    char *prefix;
    char *index_path;     /* DIR/PREFIX.vtk.series */
    double *times;        /* [cap] time in ms of each frame written so far */
    int n_frames, cap;
    unsigned char *chunk; /* [HS_VTK_CHUNK_BYTES] big-endian scratch */
};

/* ---- paths ---------------------------------------------------------------------------------- */

/* DIR/NAME in a new string; no doubled '/' when DIR already ends with one. */

static hs_status frame_name(const hs_vtk_series *s, int index, char **out)
{
    size_t len = strlen(s->prefix) + 32;
    char *p = NULL;
    HS_CALL(HS_ALLOC(p, len, "frame name"));
    snprintf(p, len, "%s_%06d.vtk", s->prefix, index);
    *out = p;
    return HS_OK;
}

/* ---- output directory ----------------------------------------------------------------------- */

/* mkdir -p: create each missing component with mode 0777 (the umask then applies). */
static hs_status mkdir_parents(const char *dir)
{
    hs_status st = HS_OK;
    char *buf = NULL;
    size_t len = strlen(dir);
    HS_CALL(HS_ALLOC(buf, len + 1, "directory name"));
    memcpy(buf, dir, len + 1);
    /* i starts at 1 so an absolute path does not try mkdir(""); each '/' ends one component. */
    for (size_t i = 1; i <= len; ++i) {
        if (buf[i] != '/' && buf[i] != '\0') continue;
        if (buf[i - 1] == '/') continue; /* "a//b": the empty component is the same directory */
        char saved = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
            int err = errno;
            st = HS_FAIL(HS_ERR_IO, "output directory %s cannot be created: mkdir %s: %s", dir, buf,
                         strerror(err));
            goto done;
        }
        buf[i] = saved;
    }
    struct stat sb;
    if (stat(dir, &sb) != 0) {
        int err = errno;
        st = HS_FAIL(HS_ERR_IO, "output directory %s cannot be created: %s", dir, strerror(err));
    } else if (!S_ISDIR(sb.st_mode)) {
        st = HS_FAIL(HS_ERR_IO, "output directory %s exists but is not a directory", dir);
    }
done:
    free(buf);
    return st;
}

hs_status hs_output_dir_check(const char *dir)
{
    HS_CHECK(dir && *dir, HS_ERR_IO, "output directory name is empty");
    HS_CALL(mkdir_parents(dir));

    /* A probe file catches what mkdir cannot: a read-only mount, a directory owned by someone
     * else, no space for even one inode. The pid keeps concurrent runs apart. */
    char name[64];
    snprintf(name, sizeof name, ".heartsim_probe_%ld", (long)getpid());
    char *probe = NULL;
    HS_CALL(hs_path_join(dir, name, &probe));
    hs_status st = HS_OK;
    FILE *fp = fopen(probe, "wb");
    int err = errno;
    if (!fp) {
        st = HS_FAIL(HS_ERR_IO, "output directory %s is not writable: %s", dir, strerror(err));
    } else {
        errno = 0;
        int bad = fputs("heartsim probe\n", fp) < 0;
        bad |= fflush(fp) != 0;
        err = errno;
        bad |= fclose(fp) != 0;
        if (!err) err = errno;
        if (bad)
            st = HS_FAIL(HS_ERR_IO, "output directory %s is not writable: %s", dir,
                         err ? strerror(err) : "short write");
        if (unlink(probe) != 0 && st == HS_OK) {
            err = errno;
            st = HS_FAIL(HS_ERR_IO, "output directory %s: cannot remove probe file %s: %s", dir,
                         probe, strerror(err));
        }
    }
    free(probe);
    return st;
}

/* ---- create / destroy ----------------------------------------------------------------------- */

hs_status hs_vtk_series_create(const char *dir, const char *prefix, hs_vtk_series **out)
{
    hs_status st = HS_OK;
    hs_vtk_series *s = NULL;
    *out = NULL;
    /* The prefix becomes a file name inside DIR; a '/' would silently write elsewhere. */
    HS_CHECK(prefix && *prefix && !strchr(prefix, '/'), HS_ERR_CONFIG,
             "output prefix \"%s\" must be a non-empty file name without '/'",
             prefix ? prefix : "(null)");
    HS_CALL(hs_output_dir_check(dir));

    HS_CALL(HS_ALLOC(s, 1, "VTK series"));
    HS_CALL_GOTO(HS_ALLOC(s->dir, strlen(dir) + 1, "directory name"), fail);
    memcpy(s->dir, dir, strlen(dir) + 1);
    HS_CALL_GOTO(HS_ALLOC(s->prefix, strlen(prefix) + 1, "prefix"), fail);
    memcpy(s->prefix, prefix, strlen(prefix) + 1);
    {
        size_t len = strlen(prefix) + sizeof ".vtk.series";
        char *name = NULL;
        HS_CALL_GOTO(HS_ALLOC(name, len, "index name"), fail);
        snprintf(name, len, "%s.vtk.series", prefix);
        st = hs_path_join(dir, name, &s->index_path);
        free(name);
        if (st != HS_OK) goto fail;
    }
    HS_CALL_GOTO(HS_ALLOC(s->chunk, HS_VTK_CHUNK_BYTES, "VTK write buffer"), fail);
    *out = s;
    return HS_OK;
fail:
    hs_vtk_series_destroy(&s);
    return st;
}

void hs_vtk_series_destroy(hs_vtk_series **sp)
{
    if (!sp || !*sp) return;
    hs_vtk_series *s = *sp;
    free(s->dir);
    free(s->prefix);
    free(s->index_path);
    free(s->times);
    free(s->chunk);
    free(s);
    *sp = NULL;
}

int hs_vtk_series_count(const hs_vtk_series *s)
{
    return s ? s->n_frames : 0;
}

const char *hs_vtk_series_index_path(const hs_vtk_series *s)
{
    return s ? s->index_path : NULL;
}

/* ---- binary arrays -------------------------------------------------------------------------- */

/* Write src [n] big-endian, as y = scale * x + shift when @p affine, else exactly x (keeps -0.0). */
static hs_status write_f64(hs_vtk_series *s, hs_atomic_file *f, const double *src, size_t n,
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

static hs_status write_i32(hs_vtk_series *s, hs_atomic_file *f, const int32_t *src, size_t n)
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
static hs_status write_cells(hs_vtk_series *s, hs_atomic_file *f, const hs_mesh *m)
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

static hs_status write_cell_types(hs_vtk_series *s, hs_atomic_file *f, size_t ne)
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

/* What the frame will contain, decided once so the section headers and the data agree. */
typedef struct frame_plan {
    int phi, v, activation;   /* point arrays */
    int r, fiber, region;     /* cell arrays */
} frame_plan;

static frame_plan plan_frame(const hs_mesh *m, const hs_frame *fr)
{
    frame_plan p;
    p.phi = (fr->fields & HS_FIELD_PHI) && fr->phi;
    p.v = (fr->fields & HS_FIELD_V) && fr->phi;
    p.activation = (fr->fields & HS_FIELD_ACTIVATION) && fr->activation;
    p.r = (fr->fields & HS_FIELD_R) && fr->r;
    p.fiber = (fr->fields & HS_FIELD_FIBER) && m->fiber;
    p.region = (fr->fields & HS_FIELD_REGION) && m->region;
    return p;
}

static hs_status write_frame_body(hs_vtk_series *s, hs_atomic_file *f, const hs_mesh *m,
                                  const hs_frame *fr)
{
    const size_t nn = (size_t)m->n_nodes, ne = (size_t)m->n_elems;
    frame_plan p = plan_frame(m, fr);

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
                                  s->n_frames, tbuf));
    HS_CALL(write_f64(s, f, &fr->time_ms, 1, 0, 1.0, 0.0));
    HS_CALL(hs_atomic_file_printf(f, "\nPOINTS %zu double\n", nn));
    HS_CALL(write_f64(s, f, m->xyz, 3 * nn, 0, 1.0, 0.0));
    /* Legacy CELLS header: cell count, then the total int count including each row's size. */
    HS_CALL(hs_atomic_file_printf(f, "\nCELLS %zu %zu\n", ne, 5 * ne));
    HS_CALL(write_cells(s, f, m));
    HS_CALL(hs_atomic_file_printf(f, "\nCELL_TYPES %zu\n", ne));
    HS_CALL(write_cell_types(s, f, ne));
    HS_CALL(hs_atomic_file_printf(f, "\n"));

    if (p.phi || p.v || p.activation) {
        HS_CALL(hs_atomic_file_printf(f, "POINT_DATA %zu\n", nn));
        if (p.phi) {
            HS_CALL(hs_atomic_file_printf(f, "SCALARS phi double 1\nLOOKUP_TABLE default\n"));
            HS_CALL(write_f64(s, f, fr->phi, nn, 0, 1.0, 0.0));
            HS_CALL(hs_atomic_file_printf(f, "\n"));
        }
        if (p.v) {
            /* Aliev-Panfilov's phi in [0,1] mapped to a resting -80 mV and a 20 mV peak. */
            HS_CALL(hs_atomic_file_printf(f, "SCALARS V double 1\nLOOKUP_TABLE default\n"));
            HS_CALL(write_f64(s, f, fr->phi, nn, 1, 100.0, -80.0));
            HS_CALL(hs_atomic_file_printf(f, "\n"));
        }
        if (p.activation) {
            HS_CALL(hs_atomic_file_printf(f, "SCALARS activation double 1\nLOOKUP_TABLE default\n"));
            HS_CALL(write_f64(s, f, fr->activation, nn, 0, 1.0, 0.0));
            HS_CALL(hs_atomic_file_printf(f, "\n"));
        }
    }
    if (p.r || p.fiber || p.region) {
        HS_CALL(hs_atomic_file_printf(f, "CELL_DATA %zu\n", ne));
        if (p.r) {
            HS_CALL(hs_atomic_file_printf(f, "SCALARS r double 1\nLOOKUP_TABLE default\n"));
            HS_CALL(write_f64(s, f, fr->r, ne, 0, 1.0, 0.0));
            HS_CALL(hs_atomic_file_printf(f, "\n"));
        }
        if (p.fiber) {
            HS_CALL(hs_atomic_file_printf(f, "VECTORS fiber double\n"));
            HS_CALL(write_f64(s, f, m->fiber, 3 * ne, 0, 1.0, 0.0));
            HS_CALL(hs_atomic_file_printf(f, "\n"));
        }
        if (p.region) {
            HS_CALL(hs_atomic_file_printf(f, "SCALARS region int 1\nLOOKUP_TABLE default\n"));
            HS_CALL(write_i32(s, f, m->region, ne));
            HS_CALL(hs_atomic_file_printf(f, "\n"));
        }
    }
    return HS_OK;
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

/* Rewrite the index with the first @p n_frames frames. */
static hs_status write_index(const hs_vtk_series *s, int n_frames)
{
    hs_status st = HS_OK;
    hs_atomic_file *f = NULL;
    char *name = NULL;
    HS_CALL(hs_atomic_file_create(s->index_path, "VTK series index", &f));
    HS_CALL_GOTO(hs_atomic_file_printf(f, "{\n  \"file-series-version\" : \"1.0\",\n  \"files\" : ["),
                 fail);
    for (int i = 0; i < n_frames; ++i) {
        char tbuf[40];
        format_time(s->times[i], tbuf, sizeof tbuf);
        HS_CALL_GOTO(frame_name(s, i, &name), fail);
        HS_CALL_GOTO(hs_atomic_file_printf(f, "%s\n    { \"name\" : \"", i ? "," : ""), fail);
        HS_CALL_GOTO(write_json_string(f, name), fail);
        HS_CALL_GOTO(hs_atomic_file_printf(f, "\", \"time\" : %s }", tbuf), fail);
        HS_FREE(name);
    }
    HS_CALL_GOTO(hs_atomic_file_printf(f, "\n  ]\n}\n"), fail);
    return hs_atomic_file_commit(&f);
fail:
    free(name);
    hs_atomic_file_destroy(&f);
    return st;
}

/* ---- write ---------------------------------------------------------------------------------- */

hs_status hs_vtk_series_write(hs_vtk_series *s, const hs_mesh *mesh, const hs_frame *frame)
{
    hs_status st = HS_OK;
    hs_atomic_file *f = NULL;
    char *name = NULL, *path = NULL;

    HS_CHECK(s && mesh && frame, HS_ERR_INTERNAL, "NULL argument");
    HS_CHECK(mesh->n_nodes >= 0 && mesh->n_elems >= 0, HS_ERR_INTERNAL,
             "mesh has negative size (%d nodes, %d elements)", (int)mesh->n_nodes,
             (int)mesh->n_elems);
    HS_CHECK((mesh->xyz || mesh->n_nodes == 0) && (mesh->tets || mesh->n_elems == 0),
             HS_ERR_INTERNAL, "mesh without coordinates or connectivity");
    /* The index is JSON, which has no NaN or Inf; a non-finite time is a numerical failure. */
    HS_CHECK(isfinite(frame->time_ms), HS_ERR_NUMERIC,
             "VTK frame %d: time is not a finite number (%g ms)", s->n_frames, frame->time_ms);
    HS_CHECK(s->n_frames < 999999999, HS_ERR_INTERNAL, "too many frames in one series");

    if (s->n_frames == s->cap) {
        int cap = s->cap ? 2 * s->cap : 64;
        double *t = realloc(s->times, (size_t)cap * sizeof *t);
        HS_CHECK(t, HS_ERR_MEMORY, "out of memory growing the VTK series index to %d frames", cap);
        s->times = t;
        s->cap = cap;
    }

    HS_CALL_GOTO(frame_name(s, s->n_frames, &name), done);
    HS_CALL_GOTO(hs_path_join(s->dir, name, &path), done);
    HS_CALL_GOTO(hs_atomic_file_create(path, "VTK frame", &f), done);
    HS_CALL_GOTO(write_frame_body(s, f, mesh, frame), done);
    HS_CALL_GOTO(hs_atomic_file_commit(&f), done);

    s->times[s->n_frames] = frame->time_ms;
    st = write_index(s, s->n_frames + 1);
    if (st != HS_OK) {
        /* Keep the directory consistent with the last good index: the frame number will be reused. */
        unlink(path);
        goto done;
    }
    ++s->n_frames;
done:
    hs_atomic_file_destroy(&f);
    free(name);
    free(path);
    return st;
}

/* ---- restart -------------------------------------------------------------------------------- */

const double *hs_vtk_series_times(const hs_vtk_series *s)
{
    return s ? s->times : NULL;
}

hs_status hs_vtk_series_resume(hs_vtk_series *s, const double *times, int n_frames)
{
    HS_CHECK(s->n_frames == 0 && n_frames >= 0, HS_ERR_INTERNAL, "series resumed after frames were written");
    if (n_frames > s->cap) {
        double *t = realloc(s->times, (size_t)n_frames * sizeof *t);
        HS_CHECK(t, HS_ERR_MEMORY, "out of memory resuming a VTK series of %d frames", n_frames);
        s->times = t;
        s->cap = n_frames;
    }
    if (n_frames) memcpy(s->times, times, (size_t)n_frames * sizeof *times);
    /* frames after the restart point belong to the abandoned continuation: the index drops them,
     * and so does the directory (the resumed run writes them again) */
    for (int i = n_frames;; ++i) {
        char *name = NULL, *path = NULL;
        HS_CALL(frame_name(s, i, &name));
        hs_status st = hs_path_join(s->dir, name, &path);
        free(name);
        HS_CALL(st);
        int gone = unlink(path) != 0;
        free(path);
        if (gone) break;
    }
    HS_CALL(write_index(s, n_frames));
    s->n_frames = n_frames;
    return HS_OK;
}
