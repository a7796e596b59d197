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
#include "hs_fs.h"
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
    int part;         /* written collectively (hs_series_create_part): frames of a rank's part, mesh NULL */
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
    if (part) {
        HS_CHECK_GOTO(s->ops->create_part, fail, HS_ERR_INTERNAL,
                      "output.format = \"%s\" is not written collectively in this build", format);
        s->part = 1;
        HS_CALL_GOTO(s->ops->create_part(s->dir, s->prefix, s->index_path, part, &s->impl), fail);
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

hs_status hs_series_write(hs_series *s, const hs_mesh *mesh, const hs_frame *frame)
{
    hs_status st = HS_OK;
    char *path = NULL;

    HS_CHECK(s && frame && (mesh != NULL) != s->part, HS_ERR_INTERNAL,
             "NULL argument (or a mesh given to a series written collectively)");
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

    HS_CALL(frame_path(s, s->n_frames, &path));
    HS_CALL_GOTO(s->ops->write_frame(s->impl, s->n_frames, path, mesh, frame), done);
    s->times[s->n_frames] = frame->time_ms;
    st = s->ops->write_index(s->impl, s->times, s->n_frames + 1);
    if (st != HS_OK) {
        /* Keep the directory consistent with the last good index: the frame number will be reused. */
        if (path) unlink(path);
        goto done;
    }
    ++s->n_frames;
done:
    free(path);
    return st;
}

hs_status hs_series_resume(hs_series *s, const double *times, int n_frames)
{
    HS_CHECK(s && s->n_frames == 0 && n_frames >= 0 && (times || n_frames == 0), HS_ERR_INTERNAL,
             "series resumed after frames were written, or with no times");
    HS_CALL(reserve_frames(s, n_frames));
    if (s->ops->resume) HS_CALL(s->ops->resume(s->impl, times, n_frames));
    /* frames after the restart point belong to the abandoned continuation: the index drops them,
     * and so does the directory (the resumed run writes them again) */
    hs_status st = HS_OK;
    for (int i = n_frames; s->ops->frame_ext; ++i) {
        char *path = NULL;
        HS_CALL_GOTO(frame_path(s, i, &path), fail);
        int gone = unlink(path) != 0;
        free(path);
        if (gone) break;
    }
    HS_CALL_GOTO(s->ops->write_index(s->impl, times, n_frames), fail);
    if (n_frames) memcpy(s->times, times, (size_t)n_frames * sizeof *times);
    s->n_frames = n_frames;
    return HS_OK;
fail:
    if (s->ops->resume) (void)s->ops->resume(s->impl, NULL, 0); /* stay a series with nothing resumed */
    return st;
}
