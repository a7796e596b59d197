/*
 * The output series (hs_series.h): the bookkeeping every format shares, done once here, over one
 * encoder per format (hs_series_format.h) chosen by name from hs_series_list.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "hs_series.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hs_atomic_file.h"
#include "hs_build_config.h"
#include "hs_fs.h"
#include "hs_part_gather.h"
#include "hs_series_format.h"
#include "hs_util.h"

/* ---- the formats ---------------------------------------------------------------------------- */

static const hs_registry_ref entries[] = {
#define HS_SERIES_FORMAT(id) {#id, &hs_series_format_##id},
#include "hs_series_list.h"
#undef HS_SERIES_FORMAT
};

/* ", vtk, xdmf" from the list at compile time; the names start after the first ", ". */
static const char names[] = ""
#define HS_SERIES_FORMAT(id) ", " #id
#include "hs_series_list.h"
#undef HS_SERIES_FORMAT
    ;

static const hs_registry registry = HS_REGISTRY_INIT("format", entries);

const hs_registry *hs_series_registry(void) { return &registry; }

const char *hs_series_format_list(void)
{
    return names + 2;
}

static hs_status find_format(const char *name, const hs_series_format_ops **out)
{
    *out = NULL;
    HS_CALL(hs_registry_lookup_ref(&registry, "output.format", name, NULL, (const void **)out));
    if ((*out)->missing) {
        const char *why = (*out)->missing;
        *out = NULL;
        return HS_FAIL(HS_ERR_CONFIG, "output.format = \"%s\": %s", name, why);
    }
    return HS_OK;
}

hs_status hs_series_format_check(const char *format)
{
    const hs_series_format_ops *f = NULL;
    return find_format(format, &f);
}

hs_status hs_series_check(const char *format, const char *prefix)
{
    const hs_series_format_ops *f = NULL;
    HS_CALL(find_format(format, &f));
    /* The prefix becomes a file name inside DIR; a '/' would silently write elsewhere. */
    HS_CHECK(prefix && *prefix && !strchr(prefix, '/'), HS_ERR_CONFIG,
             "output prefix \"%s\" must be a non-empty file name without '/'", prefix ? prefix : "(null)");
    return f->check_prefix ? f->check_prefix(prefix) : HS_OK;
}

/* ---- output directory ----------------------------------------------------------------------- */

hs_status hs_output_dir_check(const char *dir) { return hs_dir_create(dir, "output directory"); }

/* ---- the series ----------------------------------------------------------------------------- */

struct hs_series {
    const hs_series_format_ops *ops;
    void *impl;
    char *dir, *prefix;
    char *index_path; /* DIR/PREFIX<index_ext> */
    double *times;    /* [cap] time in ms of each frame written so far */
    int n_frames, cap;
    int part;         /* a series of hs_series_create_part: frames of a rank's part, mesh NULL */
    int rank;         /* this rank in the part's communicator (0: a plain series, or collective) */
    hs_part_gather *gather; /* a part series written by rank 0: streamed (the format's create_stream) or whole */
    int whole;        /* gathered whole: rank 0 runs the encoder on the whole mesh and frame */
    int have_mesh;    /* whole: the mesh was gathered (every rank knows) */
    hs_mesh *mesh;    /* whole, rank 0: the mesh, gathered with the first frame */
    double *field[HS_FRAME_MAX_FIELDS]; /* whole, rank 0: a frame's arrays */
};

void hs_series_frame_suffix(int index, const char *ext, char buf[HS_SERIES_SUFFIX_MAX])
{
    snprintf(buf, HS_SERIES_SUFFIX_MAX, "_%06d%s", index, ext);
}

/* DIR/PREFIX + suffix, in a new string */
static hs_status prefixed_path(const hs_series *s, const char *suffix, char **out)
{
    size_t pl = strlen(s->prefix), sl = strlen(suffix);
    char *name = NULL;
    HS_CALL(HS_ALLOC(name, pl + sl + 1, "file name"));
    memcpy(name, s->prefix, pl);
    memcpy(name + pl, suffix, sl + 1);
    hs_status st = hs_path_join(s->dir, name, out);
    free(name);
    return st;
}

/* NULL for a format without a file per frame */
static hs_status frame_path(const hs_series *s, int index, char **out)
{
    *out = NULL;
    if (!s->ops->frame_ext) return HS_OK;
    char suffix[HS_SERIES_SUFFIX_MAX];
    hs_series_frame_suffix(index, s->ops->frame_ext, suffix);
    return prefixed_path(s, suffix, out);
}

static hs_status copy_string(const char *src, char **out, const char *what)
{
    HS_CALL(HS_ALLOC(*out, strlen(src) + 1, what));
    memcpy(*out, src, strlen(src) + 1);
    return HS_OK;
}

/* ---- a part series gathered whole to rank 0 (a format without create_part or create_stream) ---- */

#if HS_HAS_MPI
typedef struct copy_rows {
    unsigned char *dst; /* [n_global][row] */
    size_t row;
} copy_rows;

static hs_status put_copy(void *ctx, int64_t first, int64_t n, const void *rows)
{
    const copy_rows *c = ctx;
    memcpy(c->dst + (size_t)first * c->row, rows, (size_t)n * c->row);
    return HS_OK;
}

/* The whole mesh on rank 0 (NULL elsewhere), from every rank's part. Collective; agreed. */
static hs_status gather_mesh(hs_part_gather *g, hs_mesh **out)
{
    const hs_series_part *p = hs_part_gather_part(g);
    const int root = hs_part_gather_rank(g) == 0, fib = hs_part_gather_has_fiber(g);
    hs_mesh *m = NULL;
    hs_status st = HS_OK;
    *out = NULL;
    if (root) {
        st = hs_mesh_alloc((int32_t)p->n_nodes_global, (int32_t)p->n_elems_global, &m);
        if (st == HS_OK && fib) st = HS_ALLOC(m->fiber, 3 * (size_t)p->n_elems_global + 3, "gathered mesh");
    }
    st = hs_part_gather_agree_root(g, st);
    if (st != HS_OK) {
        hs_mesh_destroy(&m);
        return st;
    }
    copy_rows xyz = {root ? (unsigned char *)m->xyz : NULL, 3 * sizeof(double)};
    copy_rows reg = {root ? (unsigned char *)m->region : NULL, sizeof(int32_t)};
    copy_rows fb = {root && fib ? (unsigned char *)m->fiber : NULL, 3 * sizeof(double)};
    (void)hs_part_gather_rows(g, 0, p->xyz, 3 * sizeof(double), put_copy, &xyz);
    copy_rows tets = {root ? (unsigned char *)m->tets : NULL, 4 * sizeof(int32_t)};
    (void)hs_part_gather_rows_i32(g, 1, p->tets, 4, put_copy, &tets); /* counts below 2^31: refused beyond */
    (void)hs_part_gather_rows(g, 1, p->region, sizeof(int32_t), put_copy, &reg);
    if (fib) (void)hs_part_gather_rows(g, 1, p->fiber, 3 * sizeof(double), put_copy, &fb);
    *out = m;
    return HS_OK;
}

/* @p frame's arrays (this rank's values) whole on rank 0 into @p field (made here, labelled @p what,
 * when NULL) and @p whole (the frame with them). Collective; agreed. */
static hs_status gather_fields(hs_part_gather *g, const hs_frame *frame, double **field, const char *what,
                               hs_frame *whole)
{
    const hs_series_part *p = hs_part_gather_part(g);
    hs_status st = HS_OK;
    *whole = *frame;
    if (hs_part_gather_rank(g) == 0) /* every buffer first: a rank short of memory must not leave the others in a gather */
        for (int k = 0; k < frame->n_fields && st == HS_OK; ++k)
            if (!field[k]) {
                const size_t n = (size_t)(p->n_nodes_global > p->n_elems_global ? p->n_nodes_global : p->n_elems_global);
                st = HS_ALLOC(field[k], n + 1, what);
            }
    HS_CALL(hs_part_gather_agree_root(g, st));
    for (int k = 0; k < frame->n_fields; ++k) {
        const hs_frame_field *a = &frame->field[k];
        copy_rows c = {(unsigned char *)field[k], sizeof(double)};
        (void)hs_part_gather_rows(g, a->cell, a->data, sizeof(double), put_copy, &c);
        whole->field[k].data = field[k];
    }
    return HS_OK;
}
#endif

/* A plain series (part NULL) or one written collectively by the ranks of part. */
static hs_status series_create(const char *format, const char *dir, const char *prefix, const hs_series_part *part,
                               hs_series **out)
{
    hs_status st = HS_OK;
    hs_series *s = NULL;
    *out = NULL;
    HS_CALL(hs_series_check(format, prefix));
    HS_CALL(hs_output_dir_check(dir));
    HS_CALL(HS_ALLOC(s, 1, "output series"));
    HS_CALL_GOTO(find_format(format, &s->ops), fail);
    HS_CALL_GOTO(copy_string(dir, &s->dir, "directory name"), fail);
    HS_CALL_GOTO(copy_string(prefix, &s->prefix, "prefix"), fail);
    HS_CALL_GOTO(prefixed_path(s, s->ops->index_ext, &s->index_path), fail);
    if (part && s->ops->create_part) {
        s->part = 1;
        HS_CALL_GOTO(s->ops->create_part(s->dir, s->prefix, s->index_path, part, &s->impl), fail);
    } else if (part) {
#if HS_HAS_MPI
        s->part = 1;
        HS_CALL_GOTO(hs_part_gather_create(part, &s->gather), fail);
        s->rank = hs_part_gather_rank(s->gather);
        if (s->ops->create_stream) { /* every rank an encoder, rank 0 writes as the rows come */
            HS_CALL_GOTO(s->ops->create_stream(s->dir, s->prefix, s->index_path, s->gather, &s->impl), fail);
        } else { /* rank 0 alone runs the encoder, on the whole mesh */
            s->whole = 1;
            st = s->rank == 0 ? s->ops->create(s->dir, s->prefix, s->index_path, &s->impl) : HS_OK;
            HS_CALL_GOTO(hs_part_gather_agree_root(s->gather, st), fail);
        }
#else
        HS_CHECK_GOTO(0, fail, HS_ERR_INTERNAL, "hs_series_create_part: a build without MPI");
#endif
    } else {
        HS_CALL_GOTO(s->ops->create(s->dir, s->prefix, s->index_path, &s->impl), fail);
    }
    *out = s;
    return HS_OK;
fail:
    hs_series_destroy(&s);
    return st;
}

hs_status hs_series_create(const char *format, const char *dir, const char *prefix, hs_series **out)
{
    return series_create(format, dir, prefix, NULL, out);
}

int hs_series_can_part(const char *format)
{
    const hs_series_format_ops *f = format ? hs_registry_find_ref(&registry, format) : NULL;
    return f && !f->missing && f->create_part;
}

hs_status hs_series_create_part(const char *format, const char *dir, const char *prefix, const hs_series_part *part,
                                hs_series **out)
{
    HS_CHECK(part && part->comm && part->n_nodes >= 0 && part->n_elems >= 0 &&
                 (part->node_gid || !part->n_nodes) && (part->elem_gid || !part->n_elems) &&
                 (part->xyz || !part->n_nodes) && (part->tets || !part->n_elems),
             HS_ERR_INTERNAL, "hs_series_create_part: incomplete part");
    return series_create(format, dir, prefix, part, out);
}

void hs_series_destroy(hs_series **sp)
{
    if (!sp || !*sp) return;
    hs_series *s = *sp;
    if (s->impl) s->ops->destroy(s->impl);
    hs_part_gather_destroy(&s->gather);
    hs_mesh_destroy(&s->mesh);
    for (int k = 0; k < HS_FRAME_MAX_FIELDS; ++k) free(s->field[k]);
    free(s->dir);
    free(s->prefix);
    free(s->index_path);
    free(s->times);
    free(s);
    *sp = NULL;
}

int hs_series_count(const hs_series *s)
{
    return s ? s->n_frames : 0;
}

const char *hs_series_index_path(const hs_series *s)
{
    return s ? s->index_path : NULL;
}

const double *hs_series_times(const hs_series *s)
{
    return s ? s->times : NULL;
}

const char *hs_series_format(const hs_series *s)
{
    return s ? s->ops->name : NULL;
}

/* Room for @p n frames in times. */
static hs_status reserve_frames(hs_series *s, int n)
{
    if (n <= s->cap) return HS_OK;
    int cap = s->cap ? s->cap : 64;
    while (cap < n) cap = cap > (1 << 29) ? n : 2 * cap;
    double *t = realloc(s->times, (size_t)cap * sizeof *t);
    HS_CHECK(t, HS_ERR_MEMORY, "out of memory growing the output series index to %d frames", cap);
    s->times = t;
    s->cap = cap;
    return HS_OK;
}

static hs_status series_write(hs_series *s, const hs_mesh *mesh, const hs_frame *frame);
#if HS_HAS_MPI
static hs_status whole_write(hs_series *s, const hs_frame *frame);
#endif

hs_status hs_series_write(hs_series *s, const hs_mesh *mesh, const hs_frame *frame)
{
    HS_CHECK(s && frame && (mesh != NULL) != s->part, HS_ERR_INTERNAL,
             "NULL argument (or a mesh given to a series written collectively)");
#if HS_HAS_MPI
    if (s->whole) return whole_write(s, frame);
#endif
    return series_write(s, mesh, frame);
}

/* What every format requires of a frame, and its file's path (NULL for a format without one). */
static hs_status write_checks(hs_series *s, const hs_mesh *mesh, const hs_frame *frame, char **path)
{
    HS_CHECK(s->part || (mesh->n_nodes >= 0 && mesh->n_elems >= 0), HS_ERR_INTERNAL,
             "mesh has negative size (%d nodes, %d elements)", (int)mesh->n_nodes, (int)mesh->n_elems);
    HS_CHECK(s->part || ((mesh->xyz || mesh->n_nodes == 0) && (mesh->tets || mesh->n_elems == 0)), HS_ERR_INTERNAL,
             "mesh without coordinates or connectivity");
    HS_CALL(hs_frame_check(frame));
    /* Indexes hold times as text (JSON has no NaN or Inf); a non-finite time is a numerical failure. */
    HS_CHECK(isfinite(frame->time_ms), HS_ERR_NUMERIC, "%s frame %d: time is not a finite number (%g ms)",
             s->ops->name, s->n_frames, frame->time_ms);
    HS_CHECK(s->n_frames < 999999999, HS_ERR_INTERNAL, "too many frames in one series");
    HS_CALL(reserve_frames(s, s->n_frames + 1));
    return frame_path(s, s->n_frames, path);
}

/* The frame written by this process (a plain series; rank 0 of a whole-gathered one, with the gathered
 * mesh; every rank of a collective or streamed one, mesh NULL). */
static hs_status series_write(hs_series *s, const hs_mesh *mesh, const hs_frame *frame)
{
    char *path = NULL;
    hs_status st = write_checks(s, mesh, frame, &path);
#if HS_HAS_MPI
    if (s->gather && !s->whole) st = hs_part_gather_agree_any(s->gather, st); /* every rank to the encoder, or none */
#endif
    HS_CALL_GOTO(st, done);
    HS_CALL_GOTO(s->ops->write_frame(s->impl, s->n_frames, path, mesh, frame), done);
    s->times[s->n_frames] = frame->time_ms;
    st = s->ops->write_index(s->impl, s->times, s->n_frames + 1);
    if (st != HS_OK) {
        /* Keep the directory consistent with the last good index: the frame number will be reused
         * (rank 0 of a streamed series owns the files). */
        if (path && s->rank == 0) unlink(path);
        goto done;
    }
    ++s->n_frames;
done:
    free(path);
    return st;
}

#if HS_HAS_MPI
/* A frame of a part series gathered whole: the mesh (first frame) and the frame's arrays onto rank 0
 * in chunks, rank 0 writes, every rank returns its status and keeps the same count and times. */
static hs_status whole_write(hs_series *s, const hs_frame *frame)
{
    hs_part_gather *g = s->gather;
    HS_CALL(hs_part_gather_agree_any(g, hs_frame_check(frame)));
    if (!s->have_mesh) {
        HS_CALL(gather_mesh(g, &s->mesh));
        s->have_mesh = 1;
    }
    hs_frame fr;
    HS_CALL(gather_fields(g, frame, s->field, "gathered frame", &fr));
    hs_status st = s->rank == 0 ? series_write(s, s->mesh, &fr) : HS_OK;
    HS_CALL(hs_part_gather_agree_root(g, st));
    if (s->rank != 0) { /* the count and times rank 0 keeps */
        HS_CALL(reserve_frames(s, s->n_frames + 1));
        s->times[s->n_frames++] = frame->time_ms;
    }
    return HS_OK;
}
#endif

hs_part_gather *hs_series_part_gather(hs_series *s, const hs_series_part *part)
{
    return s && s->gather && hs_part_gather_part(s->gather) == part ? s->gather : NULL;
}

hs_status hs_series_part_write_one(const hs_series_part *part, hs_series *ser, const hs_frame *frame,
                                   hs_status (*write)(void *ctx, const hs_mesh *mesh, const hs_frame *frame), void *ctx)
{
#if HS_HAS_MPI
    /* a series over the same part: its gather, and (gathered whole) the mesh rank 0 holds for its frames,
     * so that rank 0 never holds two; else a gather of our own */
    hs_part_gather *own = NULL, *g = hs_series_part_gather(ser, part);
    if (!g) HS_CALL(hs_part_gather_create(part, &own));
    if (!g) g = own;
    hs_mesh *mine = NULL;
    const int shared = ser && ser->whole && g == ser->gather;
    double *field[HS_FRAME_MAX_FIELDS] = {NULL};
    hs_frame fr;
    hs_status st = hs_part_gather_agree_any(g, hs_frame_check(frame));
    if (st == HS_OK && !(shared && ser->have_mesh)) {
        st = gather_mesh(g, &mine);
        if (st == HS_OK && shared) { /* kept for the series' frames */
            ser->mesh = mine;
            ser->have_mesh = 1;
            mine = NULL;
        }
    }
    const hs_mesh *mesh = shared ? ser->mesh : mine;
    if (st == HS_OK) st = gather_fields(g, frame, field, "gathered data set", &fr);
    if (st == HS_OK) st = hs_part_gather_agree_root(g, hs_part_gather_rank(g) == 0 ? write(ctx, mesh, &fr) : HS_OK);
    for (int k = 0; k < HS_FRAME_MAX_FIELDS; ++k) free(field[k]);
    hs_mesh_destroy(&mine);
    hs_part_gather_destroy(&own);
    return st;
#else
    (void)part, (void)ser, (void)frame, (void)write, (void)ctx;
    return HS_FAIL(HS_ERR_INTERNAL, "hs_series_part_write_one: a build without MPI");
#endif
}

static hs_status series_resume(hs_series *s, const double *times, int n_frames);

hs_status hs_series_resume(hs_series *s, const double *times, int n_frames)
{
#if HS_HAS_MPI
    if (s && s->whole) { /* rank 0 resumes the encoder; every rank keeps the count and times */
        hs_status st = s->rank == 0 ? series_resume(s, times, n_frames) : HS_OK;
        HS_CALL(hs_part_gather_agree_root(s->gather, st));
        if (s->rank != 0) {
            HS_CALL(reserve_frames(s, n_frames));
            if (n_frames) memcpy(s->times, times, (size_t)n_frames * sizeof *times);
            s->n_frames = n_frames;
        }
        return HS_OK;
    }
#endif
    return series_resume(s, times, n_frames);
}

static hs_status series_resume(hs_series *s, const double *times, int n_frames)
{
    HS_CHECK(s && s->n_frames == 0 && n_frames >= 0 && (times || n_frames == 0), HS_ERR_INTERNAL,
             "series resumed after frames were written, or with no times");
    hs_status st = reserve_frames(s, n_frames);
#if HS_HAS_MPI
    if (s->gather && !s->whole) st = hs_part_gather_agree_any(s->gather, st); /* every rank to the encoder, or none */
#endif
    HS_CALL(st);
    if (s->ops->resume) HS_CALL(s->ops->resume(s->impl, times, n_frames));
    /* frames after the restart point belong to the abandoned continuation: the index drops them,
     * and so does the directory (the resumed run writes them again; rank 0 of a streamed series) */
    for (int i = n_frames; s->ops->frame_ext && s->rank == 0 && st == HS_OK; ++i) {
        char *path = NULL;
        st = frame_path(s, i, &path);
        int gone = st != HS_OK || unlink(path) != 0;
        free(path);
        if (gone) break;
    }
#if HS_HAS_MPI
    if (s->gather && !s->whole) st = hs_part_gather_agree_root(s->gather, st);
#endif
    HS_CALL_GOTO(st, fail);
    HS_CALL_GOTO(s->ops->write_index(s->impl, times, n_frames), fail);
    if (n_frames) memcpy(s->times, times, (size_t)n_frames * sizeof *times);
    s->n_frames = n_frames;
    return HS_OK;
fail:
    if (s->ops->resume) (void)s->ops->resume(s->impl, NULL, 0); /* stay a series with nothing resumed */
    return st;
}
