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
#include "hs_series_format.h"
#include "hs_util.h"
#if HS_HAS_MPI
#include <mpi.h>
#include "hs_mpi_status.h"
#endif

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
    struct series_gather *gather; /* a part series of a format without create_part: gathered to rank 0 */
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

/* ---- a part series gathered to rank 0 --------------------------------------------------------- */

#if HS_HAS_MPI
enum { GATHER_CHUNK = 1 << 20 }; /* rows of global index per message (hs_series_part.gather_chunk 0) */

/* One kind of row (nodes or elements): the rank's rows sorted by global index, and on rank 0 where
 * each row of each chunk lands. */
typedef struct gather_rows {
    int32_t n;          /* this rank's rows */
    int32_t *perm;      /* [n] the rank's index of the k-th smallest global index */
    int64_t n_global;
    int64_t chunk;      /* global indices per chunk */
    int64_t n_chunks;
    int32_t *cbeg;      /* [n_chunks + 1] this rank's sorted rows in chunk c: cbeg[c] .. cbeg[c+1]-1 */
    int32_t *place;     /* rank 0: [n_global] offset in its chunk of each row, in arrival order */
    int *cnt, *dsp;     /* rank 0: [n_ranks] per chunk, scratch */
} gather_rows;

typedef struct series_gather {
    MPI_Comm comm;
    int rank, n_ranks;
    const hs_series_part *pt;
    gather_rows node, elem;
    int64_t chunk;      /* global indices per message */
    char *send, *recv;  /* [chunk * 32] bytes: a chunk's rows */
    hs_mesh *mesh;      /* rank 0: the global mesh, gathered with the first frame */
    double *field[HS_FRAME_MAX_FIELDS]; /* rank 0: a frame's global arrays */
} series_gather;

typedef struct gid_at {
    int64_t gid;
    int32_t i;
} gid_at;

static int cmp_gid(const void *a, const void *b)
{
    const int64_t x = ((const gid_at *)a)->gid, y = ((const gid_at *)b)->gid;
    return (x > y) - (x < y);
}

static void gather_rows_free(gather_rows *g)
{
    free(g->perm);
    free(g->cbeg);
    free(g->place);
    free(g->cnt);
    free(g->dsp);
}

/* Sort the rank's rows, find their chunks, and tell rank 0 where each row of each chunk goes.
 * Collective. The ranks' global indices must partition [0, n_global) (checked on rank 0). */
static hs_status gather_rows_setup(series_gather *x, gather_rows *g, int32_t n, const int64_t *gid, int64_t n_global,
                                   const char *what)
{
    hs_status st = HS_OK;
    gid_at *v = NULL;
    int64_t *sg = NULL, *rg = NULL;
    g->n = n;
    g->n_global = n_global;
    g->chunk = x->chunk;
    g->n_chunks = (n_global + g->chunk - 1) / g->chunk;
    HS_CALL(HS_ALLOC(v, (size_t)n + 1, "output gather"));
    HS_CALL_GOTO(HS_ALLOC(g->perm, (size_t)n + 1, "output gather"), done);
    HS_CALL_GOTO(HS_ALLOC(g->cbeg, (size_t)g->n_chunks + 2, "output gather"), done);
    HS_CALL_GOTO(HS_ALLOC(g->cnt, (size_t)x->n_ranks, "output gather"), done);
    HS_CALL_GOTO(HS_ALLOC(g->dsp, (size_t)x->n_ranks, "output gather"), done);
    HS_CALL_GOTO(HS_ALLOC(sg, (size_t)g->chunk, "output gather"), done);
    if (x->rank == 0) {
        HS_CALL_GOTO(HS_ALLOC(g->place, (size_t)n_global + 1, "output gather"), done);
        HS_CALL_GOTO(HS_ALLOC(rg, (size_t)g->chunk, "output gather"), done);
    }
    for (int32_t i = 0; i < n; ++i) {
        HS_CHECK_GOTO(gid[i] >= 0 && gid[i] < n_global, done, HS_ERR_INTERNAL, "%s %d has global index %lld outside "
                      "[0, %lld)", what, (int)i, (long long)gid[i], (long long)n_global);
        v[i] = (gid_at){gid[i], i};
    }
    qsort(v, (size_t)n, sizeof *v, cmp_gid);
    for (int32_t k = 0; k < n; ++k) g->perm[k] = v[k].i;
    for (int64_t c = 0, k = 0; c <= g->n_chunks; ++c) {
        while (k < n && v[k].gid < c * g->chunk) ++k;
        g->cbeg[c] = (int32_t)k;
    }
    g->cbeg[g->n_chunks] = n;
done:
    /* every rank goes through the chunks, also after a failure here (rank 0 reports the counts) */
    for (int64_t c = 0; c < g->n_chunks; ++c) {
        const int m = st == HS_OK ? g->cbeg[c + 1] - g->cbeg[c] : 0;
        for (int k = 0; k < m; ++k) sg[k] = v[g->cbeg[c] + k].gid;
        int got = 0;
        MPI_Gather(&m, 1, MPI_INT, g->cnt, 1, MPI_INT, 0, x->comm);
        if (x->rank == 0)
            for (int r = 0; r < x->n_ranks; ++r) g->dsp[r] = got, got += g->cnt[r];
        const int64_t c0 = c * g->chunk, len = (c + 1) * g->chunk < n_global ? g->chunk : n_global - c0;
        if (x->rank == 0 && got != len && st == HS_OK)
            st = HS_FAIL(HS_ERR_INTERNAL, "output gather: %lld %ss hold global indices [%lld, %lld), expected %lld",
                         (long long)got, what, (long long)c0, (long long)(c0 + len), (long long)len);
        MPI_Gatherv(sg, m, MPI_INT64_T, rg, g->cnt, g->dsp, MPI_INT64_T, 0, x->comm);
        if (x->rank == 0 && st == HS_OK)
            for (int k = 0; k < got; ++k) g->place[c0 + k] = (int32_t)(rg[k] - c0);
    }
    free(v);
    free(sg);
    free(rg);
    return st;
}

/* Rows @p src (this rank's, local order, @p row bytes each) into @p dst [n_global] rows on rank 0,
 * one chunk of global indices at a time. Collective. */
static void gather_rows_run(series_gather *x, gather_rows *g, const void *src, size_t row, void *dst)
{
    MPI_Datatype t;
    MPI_Type_contiguous((int)row, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    for (int64_t c = 0; c < g->n_chunks; ++c) {
        const int m = g->cbeg[c + 1] - g->cbeg[c];
        for (int k = 0; k < m; ++k)
            memcpy(x->send + (size_t)k * row, (const char *)src + (size_t)g->perm[g->cbeg[c] + k] * row, row);
        MPI_Gather(&m, 1, MPI_INT, g->cnt, 1, MPI_INT, 0, x->comm);
        int got = 0;
        if (x->rank == 0)
            for (int r = 0; r < x->n_ranks; ++r) g->dsp[r] = got, got += g->cnt[r];
        MPI_Gatherv(x->send, m, t, x->recv, g->cnt, g->dsp, t, 0, x->comm);
        if (x->rank == 0) {
            const int64_t c0 = c * g->chunk;
            for (int k = 0; k < got; ++k)
                memcpy((char *)dst + (size_t)(c0 + g->place[c0 + k]) * row, x->recv + (size_t)k * row, row);
        }
    }
    MPI_Type_free(&t);
}

static void gather_free(series_gather **p)
{
    series_gather *x = *p;
    if (!x) return;
    gather_rows_free(&x->node);
    gather_rows_free(&x->elem);
    free(x->send);
    free(x->recv);
    hs_mesh_destroy(&x->mesh);
    for (int k = 0; k < HS_FRAME_MAX_FIELDS; ++k) free(x->field[k]);
    if (x->comm != MPI_COMM_NULL) MPI_Comm_free(&x->comm);
    free(x);
    *p = NULL;
}

/* Every rank returns rank 0's status and message (rank 0 alone runs the encoder). */
static hs_status gather_agree(series_gather *x, hs_status st)
{
    int code = (int)st;
    char msg[2048] = "";
    if (x->rank == 0 && st != HS_OK) snprintf(msg, sizeof msg, "%s", hs_error_message());
    MPI_Bcast(&code, 1, MPI_INT, 0, x->comm);
    if (code == HS_OK) return HS_OK;
    MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, 0, x->comm);
    hs_error_clear();
    return hs_error_set((hs_status)code, __FILE__, __LINE__, __func__, "%s", msg);
}

/* The worst status over the ranks, with the first failing rank's message (setup before the encoder). */
static hs_status gather_agree_any(series_gather *x, hs_status st)
{
    return hs_mpi_agree(x->comm, st, NULL);
}

static hs_status gather_create(const hs_series_part *part, series_gather **out)
{
    series_gather *x = NULL;
    *out = NULL;
    HS_CALL(HS_ALLOC(x, 1, "output gather"));
    x->pt = part;
    if (MPI_Comm_dup(*(const MPI_Comm *)part->comm, &x->comm) != MPI_SUCCESS) {
        x->comm = MPI_COMM_NULL;
        gather_free(&x);
        return HS_FAIL(HS_ERR_INTERNAL, "output gather: MPI_Comm_dup failed");
    }
    MPI_Comm_rank(x->comm, &x->rank);
    MPI_Comm_size(x->comm, &x->n_ranks);
    hs_status st = HS_OK;
    if (part->n_nodes_global > INT32_MAX || part->n_elems_global > INT32_MAX)
        st = HS_FAIL(HS_ERR_CONFIG, "output gather: %lld nodes, %lld elements: rank 0's mesh holds 32-bit counts",
                     (long long)part->n_nodes_global, (long long)part->n_elems_global);
    x->chunk = part->gather_chunk > 0 ? part->gather_chunk : GATHER_CHUNK;
    x->send = malloc((size_t)x->chunk * 32);
    x->recv = x->rank == 0 ? malloc((size_t)x->chunk * 32) : NULL;
    if (st == HS_OK && (!x->send || (x->rank == 0 && !x->recv)))
        st = HS_FAIL(HS_ERR_MEMORY, "out of memory for the output gather's chunks");
    st = gather_agree_any(x, st);
    if (st == HS_OK) st = gather_agree_any(x, gather_rows_setup(x, &x->node, part->n_nodes, part->node_gid,
                                                                part->n_nodes_global, "node"));
    if (st == HS_OK) st = gather_agree_any(x, gather_rows_setup(x, &x->elem, part->n_elems, part->elem_gid,
                                                                part->n_elems_global, "element"));
    if (st != HS_OK) {
        gather_free(&x);
        return st;
    }
    *out = x;
    return HS_OK;
}

/* The global mesh on rank 0, from every rank's part. Collective. */
static hs_status gather_mesh(series_gather *x)
{
    const hs_series_part *p = x->pt;
    hs_status st = HS_OK;
    int64_t *tets = NULL;
    int fib = p->fiber != NULL, any_fib = 0;
    MPI_Allreduce(&fib, &any_fib, 1, MPI_INT, MPI_MAX, x->comm);
    if (x->rank == 0) {
        st = hs_mesh_alloc((int32_t)p->n_nodes_global, (int32_t)p->n_elems_global, &x->mesh);
        if (st == HS_OK) st = HS_ALLOC(tets, 4 * (size_t)p->n_elems_global + 4, "gathered mesh");
        if (st == HS_OK && any_fib) st = HS_ALLOC(x->mesh->fiber, 3 * (size_t)p->n_elems_global + 3, "gathered mesh");
    }
    HS_CALL(gather_agree(x, st));
    gather_rows_run(x, &x->node, p->xyz, 3 * sizeof(double), x->rank ? NULL : x->mesh->xyz);
    gather_rows_run(x, &x->elem, p->tets, 4 * sizeof(int64_t), tets);
    if (p->region || !p->n_elems) {
        static const int32_t none = 0;
        gather_rows_run(x, &x->elem, p->region ? (const void *)p->region : &none, sizeof(int32_t),
                        x->rank ? NULL : x->mesh->region);
    }
    if (any_fib) {
        static const double none[3] = {0, 0, 0};
        gather_rows_run(x, &x->elem, p->fiber ? (const void *)p->fiber : none, 3 * sizeof(double),
                        x->rank ? NULL : x->mesh->fiber);
    }
    if (x->rank == 0)
        for (size_t i = 0; i < 4 * (size_t)p->n_elems_global; ++i) x->mesh->tets[i] = (int32_t)tets[i];
    free(tets);
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
        HS_CALL_GOTO(gather_create(part, &s->gather), fail);
        /* rank 0 alone runs the encoder */
        st = s->gather->rank == 0 ? s->ops->create(s->dir, s->prefix, s->index_path, &s->impl) : HS_OK;
        HS_CALL_GOTO(gather_agree(s->gather, st), fail);
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
#if HS_HAS_MPI
    gather_free(&s->gather);
#endif
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
static hs_status gather_write(hs_series *s, const hs_frame *frame);
#endif

hs_status hs_series_write(hs_series *s, const hs_mesh *mesh, const hs_frame *frame)
{
    HS_CHECK(s && frame && (mesh != NULL) != s->part, HS_ERR_INTERNAL,
             "NULL argument (or a mesh given to a series written collectively)");
#if HS_HAS_MPI
    if (s->gather) return gather_write(s, frame);
#endif
    return series_write(s, mesh, frame);
}

/* The frame written by this process (a plain series; rank 0 of a gathered one, with the gathered
 * mesh; every rank of a collective one, mesh NULL). */
static hs_status series_write(hs_series *s, const hs_mesh *mesh, const hs_frame *frame)
{
    hs_status st = HS_OK;
    char *path = NULL;

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

#if HS_HAS_MPI
/* A frame of a gathered part series: the mesh (first frame) and the frame's arrays onto rank 0 in
 * chunks, rank 0 writes, every rank returns its status and keeps the same count and times. */
static hs_status gather_write(hs_series *s, const hs_frame *frame)
{
    series_gather *x = s->gather;
    const hs_series_part *p = x->pt;
    hs_status st = hs_frame_check(frame);
    HS_CALL(gather_agree_any(x, st));
    int need_mesh = x->rank == 0 ? !x->mesh : 0;
    MPI_Bcast(&need_mesh, 1, MPI_INT, 0, x->comm);
    if (need_mesh) HS_CALL(gather_mesh(x));
    if (x->rank == 0) /* every buffer first: a rank short of memory must not leave the others in a gather */
        for (int k = 0; k < frame->n_fields && st == HS_OK; ++k)
            if (!x->field[k]) {
                const size_t n = (size_t)(p->n_nodes_global > p->n_elems_global ? p->n_nodes_global : p->n_elems_global);
                st = HS_ALLOC(x->field[k], n + 1, "gathered frame");
            }
    HS_CALL(gather_agree(x, st));
    hs_frame fr = *frame;
    for (int k = 0; k < frame->n_fields; ++k) {
        const hs_frame_field *a = &frame->field[k];
        gather_rows_run(x, a->cell ? &x->elem : &x->node, a->data, sizeof(double), x->field[k]);
        fr.field[k].data = x->field[k];
    }
    st = x->rank == 0 ? series_write(s, x->mesh, &fr) : HS_OK;
    HS_CALL(gather_agree(x, st));
    if (x->rank != 0) { /* the count and times rank 0 keeps */
        HS_CALL(reserve_frames(s, s->n_frames + 1));
        s->times[s->n_frames++] = frame->time_ms;
    }
    return HS_OK;
}
#endif

hs_status hs_series_part_write_one(const hs_series_part *part, hs_series *ser, const hs_frame *frame,
                                   hs_status (*write)(void *ctx, const hs_mesh *mesh, const hs_frame *frame), void *ctx)
{
#if HS_HAS_MPI
    /* a series gathered to rank 0 over the same part: its gather, and the mesh it holds (one whole mesh
     * on rank 0, not two); else a gather of our own */
    series_gather *own = NULL, *x = ser && ser->gather && ser->gather->pt == part ? ser->gather : NULL;
    if (!x) HS_CALL(gather_create(part, &own));
    if (!x) x = own;
    hs_status st = gather_agree_any(x, hs_frame_check(frame));
    int need_mesh = x->rank == 0 ? !x->mesh : 0;
    if (st == HS_OK) MPI_Bcast(&need_mesh, 1, MPI_INT, 0, x->comm);
    if (st == HS_OK && need_mesh) st = gather_mesh(x);
    if (st == HS_OK && x->rank == 0) /* every buffer first, as gather_write */
        for (int k = 0; k < frame->n_fields && st == HS_OK; ++k)
            if (!x->field[k]) {
                const size_t n = (size_t)(part->n_nodes_global > part->n_elems_global ? part->n_nodes_global
                                                                                      : part->n_elems_global);
                st = HS_ALLOC(x->field[k], n + 1, "gathered data set");
            }
    if (st == HS_OK) st = gather_agree(x, st);
    if (st == HS_OK) {
        hs_frame fr = *frame;
        for (int k = 0; k < frame->n_fields; ++k) {
            const hs_frame_field *a = &frame->field[k];
            gather_rows_run(x, a->cell ? &x->elem : &x->node, a->data, sizeof(double), x->field[k]);
            fr.field[k].data = x->field[k];
        }
        st = gather_agree(x, x->rank == 0 ? write(ctx, x->mesh, &fr) : HS_OK);
    }
    gather_free(&own);
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
    if (s && s->gather) { /* rank 0 resumes the encoder; every rank keeps the count and times */
        hs_status st = s->gather->rank == 0 ? series_resume(s, times, n_frames) : HS_OK;
        HS_CALL(gather_agree(s->gather, st));
        if (s->gather->rank != 0) {
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
