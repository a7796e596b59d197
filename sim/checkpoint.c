/* Checkpoint files: write (atomic), read and verify, match against a run, find the newest. */
#define _POSIX_C_SOURCE 200809L
#include "hs_gid_at.h"
#include "hs_checkpoint.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hs_atomic_file.h"
#include "hs_build_config.h"
#if HS_HAS_MPI
#include <limits.h>
#include <mpi.h>

#include "hs_dist.h" /* hs_par_comm */
#endif
#include "hs_hash.h"
#include "hs_par.h"
#include "hs_part_file.h"
#include "hs_util.h"

_Static_assert(sizeof(hs_ckpt_header) == 20 * 8, "checkpoint header has no padding");

static const char ckpt_magic[8] = {'H', 'S', 'C', 'K', 'P', 'T', '1', '\n'};

uint64_t hs_mesh_fingerprint(const hs_mesh *m)
{
    if (!m->xyz && m->n_nodes > 0) return m->fingerprint; /* counts only: made by sim/mesh_part.c */
    int64_t nn = m->n_nodes, ne = m->n_elems;
    uint64_t h = HS_FNV_OFFSET;
    h = hs_fnv1a64(h, &nn, sizeof nn);
    h = hs_fnv1a64(h, &ne, sizeof ne);
    h = hs_fnv1a64(h, m->xyz, sizeof(double) * 3 * (size_t)nn);
    h = hs_fnv1a64(h, m->tets, sizeof(int32_t) * 4 * (size_t)ne);
    /* fibres are part of the physics whatever produced them (helix angles, a fibre file, ...) */
    if (m->fiber) h = hs_fnv1a64(h, m->fiber, sizeof(double) * 3 * (size_t)ne);
    return h;
}

const char *const hs_ckpt_group_name[HS_CKPT_GROUPS] = {
    "mesh.*", "fibers.*", "model.*", "time.dt", "stimulus",
    "solver.scheme (and its keys), cg_tol/cg_max_iter/newton_* or output.activation_threshold"};

void hs_checkpoint_path(const char *dir, const char *prefix, long step, char *buf, size_t size)
{
    size_t dl = strlen(dir);
    snprintf(buf, size, "%s%s%s_ckpt_%09ld.hsck", dir, dl && dir[dl - 1] != '/' ? "/" : "", prefix, step);
}

static uint64_t header_sum(const hs_ckpt_header *h)
{
    return hs_fnv1a64(HS_FNV_OFFSET, h, offsetof(hs_ckpt_header, header_sum));
}

/* Doubles in the state's first n_stored fields. */
static size_t state_len_n(const hs_state_desc *d, int n_stored)
{
    size_t n = 0;
    for (int k = 0; k < n_stored; ++k) n += hs_state_field_len(d, k);
    return n;
}
/* Doubles in the state's fields, all of them. */
static size_t state_len(const hs_state_desc *d) { return state_len_n(d, d->n_fields); }

/* A header's fields but the payload's size and checksums (the writer's), zero elsewhere. */
static void header_fill(hs_ckpt_header *h, uint64_t version, long step, double t_ms, double dt_ms, const hs_mesh *mesh,
                        int n_frames, const uint64_t config_fp[HS_CKPT_GROUPS], int nh)
{
    memset(h, 0, sizeof *h);
    memcpy(h->magic, ckpt_magic, 8);
    h->version = version;
    h->endian = HS_CKPT_ENDIAN;
    h->step = step;
    h->t_ms = t_ms;
    h->dt_ms = dt_ms;
    h->n_nodes = (int64_t)mesh->n_nodes;
    h->n_elems = (int64_t)mesh->n_elems;
    h->n_frames = n_frames;
    h->mesh_fp = hs_mesh_fingerprint(mesh);
    memcpy(h->config_fp, config_fp, sizeof h->config_fp);
    h->reserved = (uint64_t)nh;
}

hs_status hs_checkpoint_write(const char *path, long step, double t_ms, double dt_ms,
                              const uint64_t config_fp[HS_CKPT_GROUPS], const hs_mesh *mesh, int n_frames,
                              const double *frame_times, const hs_state *state, const hs_extrap *hist,
                              double *const hist_phi[2])
{
    const hs_state_desc *d = state->desc;
    const size_t nn = (size_t)mesh->n_nodes;
    HS_CHECK(d->n_nodes == mesh->n_nodes && d->n_elems == mesh->n_elems, HS_ERR_INTERNAL, "state and mesh differ");
    int nh = hist ? hist->n_valid : 0;
    if (nh < 0 || nh > 2) nh = 0;
    const double hh[2] = {nh ? hist->h[0] : 0.0, nh ? hist->h[1] : 0.0};
    /* the potential and the model's variables must be finite (the read-outs are -1 or times) */
    for (int k = 0; k < d->n_fields; ++k) {
        if (k >= d->activation) continue;
        const double *f = state->field[k];
        const int node = d->f[k].where == HS_AT_NODE;
        for (size_t i = 0; i < hs_state_field_len(d, k); ++i)
            HS_CHECK(isfinite(f[i]), HS_ERR_NUMERIC, "checkpoint %s not written: %s is %g %s %zu", path,
                     d->f[k].name, f[i], node ? "at node" : "in element", i);
    }
    hs_ckpt_header h;
    header_fill(&h, HS_CKPT_VERSION, step, t_ms, dt_ms, mesh, n_frames, config_fp, nh);
    h.payload_bytes = sizeof(double) * ((size_t)n_frames + state_len(d) + 2 + (size_t)nh * nn);
    uint64_t s = HS_FNV_OFFSET;
    s = hs_fnv1a64(s, frame_times, sizeof(double) * (size_t)n_frames);
    for (int k = 0; k < d->n_fields; ++k) s = hs_fnv1a64(s, state->field[k], sizeof(double) * hs_state_field_len(d, k));
    s = hs_fnv1a64(s, hh, sizeof hh);
    for (int q = 0; q < nh; ++q) s = hs_fnv1a64(s, hist_phi[q], sizeof(double) * nn);
    h.payload_sum = s;
    h.header_sum = header_sum(&h);

    hs_atomic_file *f = NULL;
    HS_CALL(hs_atomic_file_create(path, "checkpoint", &f));
    hs_status st = hs_atomic_file_write(f, &h, sizeof h);
    if (st == HS_OK) st = hs_atomic_file_write(f, frame_times, sizeof(double) * (size_t)n_frames);
    for (int k = 0; k < d->n_fields && st == HS_OK; ++k)
        st = hs_atomic_file_write(f, state->field[k], sizeof(double) * hs_state_field_len(d, k));
    if (st == HS_OK) st = hs_atomic_file_write(f, hh, sizeof hh);
    for (int q = 0; q < nh && st == HS_OK; ++q) st = hs_atomic_file_write(f, hist_phi[q], sizeof(double) * nn);
    if (st != HS_OK) {
        hs_atomic_file_destroy(&f);
        return st;
    }
    return hs_atomic_file_commit(&f);
}

/* Payload checksum of one array [n] of a version 4 file: its segments' hashes in turn. */
static uint64_t sum_segments(uint64_t s, const double *v, size_t n)
{
    for (size_t a = 0; a < n; a += HS_PART_SEGMENT) {
        const size_t e = a + HS_PART_SEGMENT < n ? a + HS_PART_SEGMENT : n;
        const uint64_t h = hs_fnv1a64(HS_FNV_OFFSET, v + a, sizeof(double) * (e - a));
        s = hs_fnv1a64(s, &h, sizeof h);
    }
    return s;
}

hs_status hs_checkpoint_write_part(const char *path, long step, double t_ms, double dt_ms,
                                   const uint64_t config_fp[HS_CKPT_GROUPS], const hs_mesh *mesh, int n_frames,
                                   const double *frame_times, const hs_ckpt_part *p)
{
#if HS_HAS_MPI
    const hs_state_desc *d = p->state->desc;
    const size_t nn = (size_t)mesh->n_nodes, ne = (size_t)mesh->n_elems;
    HS_CHECK(d->n_nodes == p->n_nodes && d->n_elems == p->n_elems, HS_ERR_INTERNAL, "state and part differ");
    int nh = p->hist ? p->hist->n_valid : 0;
    if (nh < 0 || nh > 2) nh = 0;
    const double hh[2] = {nh ? p->hist->h[0] : 0.0, nh ? p->hist->h[1] : 0.0};
    hs_part_file *f = NULL;
    HS_CALL(hs_part_file_create(p->comm, path, "checkpoint", &f));
    /* the potential and the model's variables must be finite on every rank */
    hs_status st = HS_OK;
    for (int k = 0; k < d->n_fields && st == HS_OK; ++k) {
        if (k >= d->activation) continue;
        const double *v = p->state->field[k];
        const int node = d->f[k].where == HS_AT_NODE;
        for (size_t i = 0; i < hs_state_field_len(d, k) && st == HS_OK; ++i)
            if (!isfinite(v[i]))
                st = HS_FAIL(HS_ERR_NUMERIC, "checkpoint %s not written: %s is %g %s %lld", path, d->f[k].name, v[i],
                             node ? "at node" : "in element", (long long)(node ? p->node_gid[i] : p->elem_gid[i]));
    }
    st = hs_part_file_agree(f, st);
    hs_ckpt_header h;
    memset(&h, 0, sizeof h);
    uint64_t *seg = NULL;
    const size_t most = (nn > ne ? nn : ne) / HS_PART_SEGMENT + 2;
    if (st == HS_OK) st = hs_part_file_agree(f, HS_ALLOC(seg, most, "checkpoint segment hashes"));
    /* the arrays after the header, in the layout of version 3, and the payload checksum (rank 0) */
    int64_t off = (int64_t)sizeof h;
    uint64_t sum = hs_fnv1a64(HS_FNV_OFFSET, frame_times, sizeof(double) * (size_t)n_frames);
    if (st == HS_OK) st = hs_part_file_write_root(f, off, frame_times, (int64_t)sizeof(double) * n_frames);
    off += (int64_t)sizeof(double) * n_frames;
    for (int k = 0; k < d->n_fields && st == HS_OK; ++k) {
        const int node = d->f[k].where == HS_AT_NODE;
        const int64_t n_global = node ? (int64_t)nn : (int64_t)ne;
        st = hs_part_file_write_array(f, off, n_global, node ? p->n_nodes : p->n_elems, node ? p->node_gid : p->elem_gid,
                                      p->state->field[k], seg);
        for (int64_t q = 0; q < (n_global + HS_PART_SEGMENT - 1) / HS_PART_SEGMENT; ++q) sum = hs_fnv1a64(sum, &seg[q], 8);
        off += 8 * n_global;
    }
    if (st == HS_OK) st = hs_part_file_write_root(f, off, hh, (int64_t)sizeof hh);
    sum = hs_fnv1a64(sum, hh, sizeof hh);
    off += (int64_t)sizeof hh;
    for (int q = 0; q < nh && st == HS_OK; ++q) {
        st = hs_part_file_write_array(f, off, (int64_t)nn, p->n_nodes, p->node_gid, p->hist_phi[q], seg);
        for (int64_t r = 0; r < ((int64_t)nn + HS_PART_SEGMENT - 1) / HS_PART_SEGMENT; ++r) sum = hs_fnv1a64(sum, &seg[r], 8);
        off += 8 * (int64_t)nn;
    }
    free(seg);
    if (st == HS_OK) { /* the header last, with rank 0's checksum (the others' is not used) */
        header_fill(&h, HS_CKPT_VERSION_PART, step, t_ms, dt_ms, mesh, n_frames, config_fp, nh);
        h.payload_bytes = (uint64_t)(off - (int64_t)sizeof h);
        h.payload_sum = sum;
        h.header_sum = header_sum(&h);
        st = hs_part_file_write_root(f, 0, &h, (int64_t)sizeof h);
    }
    if (st != HS_OK) {
        hs_part_file_destroy(&f);
        return st;
    }
    return hs_part_file_commit(&f);
#else
    (void)path, (void)step, (void)t_ms, (void)dt_ms, (void)config_fp, (void)mesh, (void)n_frames, (void)frame_times,
        (void)p;
    return HS_FAIL(HS_ERR_INTERNAL, "a distributed checkpoint in a build without MPI");
#endif
}

void hs_checkpoint_free(hs_checkpoint *ck)
{
    HS_FREE(ck->frame_times);
    hs_state_destroy(&ck->state);
    HS_FREE(ck->hist_phi[0]);
    HS_FREE(ck->hist_phi[1]);
}

#define BAD(...) HS_FAIL(HS_ERR_IO, __VA_ARGS__)

/* The config fingerprints of header @p h against the run's, naming the groups that differ. */
static hs_status match_config(const hs_ckpt_header *h, const char *path, const uint64_t fp[HS_CKPT_GROUPS],
                              double dt_ms)
{
    char diff[512] = "";
    size_t o = 0;
    for (int g = 0; g < HS_CKPT_GROUPS && o < sizeof diff; ++g)
        if (fp[g] != h->config_fp[g])
            o += (size_t)snprintf(diff + o, sizeof diff - o, "%s%s", o ? ", " : "", hs_ckpt_group_name[g]);
    if (o) {
        char dts[96] = "";
        if (fp[3] != h->config_fp[3]) snprintf(dts, sizeof dts, "; time.dt was %g ms, now %g ms", h->dt_ms, dt_ms);
        return HS_FAIL(HS_ERR_CONFIG,
                       "checkpoint %s was written with a different configuration: %s differ%s%s. Restart "
                       "with the configuration it was written with (time.t_end, output.*, solver.backend/"
                       "spmv/threads/dt_retry may change)", path, diff, strchr(diff, ',') ? "" : "s", dts);
    }
    return HS_OK;
}

/* The header at the start of @p fp read and judged: magic, byte order, version, header checksum, the
 * configuration (@p expect_fp, before the sizes), sizes, the payload's size for @p model and the file's
 * size; ck->h and ck->desc set, @p n_stored the fields the payload holds. */
static hs_status read_header(FILE *fp, const char *path, const hs_model *model, const uint64_t *expect_fp,
                             double dt_ms, hs_checkpoint *ck, int *n_stored)
{
    struct stat sb;
    long long size = fstat(fileno(fp), &sb) == 0 ? (long long)sb.st_size : -1;
    hs_ckpt_header *h = &ck->h;
    if (fread(h, 1, sizeof *h, fp) != sizeof *h)
        return BAD("checkpoint %s is truncated: %lld bytes, shorter than the %zu-byte header", path, size, sizeof *h);
    if (memcmp(h->magic, ckpt_magic, 8) != 0) return BAD("%s is not a heartsim checkpoint (no HSCKPT magic at its start)", path);
    if (h->endian != HS_CKPT_ENDIAN) return BAD("checkpoint %s was written on a host of the other byte order", path);
    if (h->version != HS_CKPT_VERSION && h->version != HS_CKPT_VERSION_PART && h->version != 1 && h->version != 2)
        return BAD("checkpoint %s has format version %llu; this heartsim reads versions 1 to %u", path,
                   (unsigned long long)h->version, HS_CKPT_VERSION_PART);
    const int v2 = h->version >= 2;
    if (h->header_sum != header_sum(h)) return BAD("checkpoint %s is damaged: header checksum mismatch", path);
    /* another configuration (another model among them) is said as such, before its sizes are judged */
    if (expect_fp) HS_CALL(match_config(h, path, expect_fp, dt_ms));
    const uint64_t nh = v2 ? h->reserved : 0;
    if (h->n_nodes < 0 || h->n_elems < 0 || h->n_frames < 0 || h->step < 0 || nh > 2 || h->n_nodes > INT32_MAX ||
        h->n_elems > INT32_MAX)
        return BAD("checkpoint %s is damaged: inconsistent sizes in its header", path);
    hs_state_desc_init(&ck->desc, model, (int32_t)h->n_nodes, (int32_t)h->n_elems);
    /* versions 1 and 2 end the state at activation (no repolarisation, apd, beats) */
    *n_stored = h->version >= 3 ? ck->desc.n_fields : ck->desc.activation + 1;
    const uint64_t rest = sizeof(double) * (uint64_t)(h->n_frames + (v2 ? 2 + (int64_t)nh * h->n_nodes : 0));
    /* the splitting scheme keeps the model's variables at the nodes (fem/hs_state.h): the solver
     * fingerprint group says which scheme wrote it, the payload's size which layout it has */
    if (h->payload_bytes != rest + sizeof(double) * state_len_n(&ck->desc, *n_stored) && h->version >= 3)
        hs_state_desc_init_scheme(&ck->desc, model, HS_SCHEME_SPLITTING, (int32_t)h->n_nodes, (int32_t)h->n_elems);
    if (h->payload_bytes != rest + sizeof(double) * (uint64_t)state_len_n(&ck->desc, *n_stored))
        return BAD("checkpoint %s does not hold the state of model %s (%d fields): its payload has another size "
                   "(damaged, or written for another model)", path, model->name, ck->desc.n_fields);
    long long want = (long long)(sizeof *h + h->payload_bytes);
    if (size != want)
        return BAD("checkpoint %s is %s: %lld bytes, expected %lld", path, size < want ? "truncated" : "damaged (too long)",
                   size, want);
    return HS_OK;
}

hs_status hs_checkpoint_read(const char *path, const hs_model *model, const uint64_t *expect_fp, double dt_ms,
                             hs_checkpoint *ck)
{
    memset(ck, 0, sizeof *ck);
    snprintf(ck->path, sizeof ck->path, "%s", path);
    FILE *fp = fopen(path, "rb");
    if (!fp) return BAD("cannot read checkpoint %s: %s", path, strerror(errno));
    hs_status st = HS_OK;
    int n_stored = 0;
    HS_CALL_GOTO(read_header(fp, path, model, expect_fp, dt_ms, ck, &n_stored), fail);
    const hs_ckpt_header *h = &ck->h;
    const int v2 = h->version >= 2;
    const uint64_t nh = v2 ? h->reserved : 0;
    size_t nf = (size_t)h->n_frames, nn = (size_t)h->n_nodes;
    HS_CALL_GOTO(HS_ALLOC(ck->frame_times, nf + 1, "checkpoint frame times"), fail);
    HS_CALL_GOTO(hs_state_create(&ck->desc, &ck->state), fail);
    int short_read = fread(ck->frame_times, sizeof(double), nf, fp) != nf;
    for (int k = 0; k < n_stored && !short_read; ++k) {
        size_t len = hs_state_field_len(&ck->desc, k);
        short_read = fread(ck->state.field[k], sizeof(double), len, fp) != len;
    }
    if (short_read) {
        st = BAD("cannot read checkpoint %s: %s", path, ferror(fp) ? strerror(errno) : "file shrank while reading");
        goto fail;
    }
    double hh[2] = {0.0, 0.0};
    if (v2 && fread(hh, sizeof(double), 2, fp) != 2) {
        st = BAD("cannot read checkpoint %s: %s", path, ferror(fp) ? strerror(errno) : "file shrank while reading");
        goto fail;
    }
    for (uint64_t q = 0; q < nh; ++q) {
        HS_CALL_GOTO(HS_ALLOC(ck->hist_phi[q], nn + 1, "checkpoint history (whole file)"), fail);
        if (fread(ck->hist_phi[q], sizeof(double), nn, fp) != nn) {
            st = BAD("cannot read checkpoint %s: %s", path, ferror(fp) ? strerror(errno) : "file shrank while reading");
            goto fail;
        }
    }
    hs_extrap_reset(&ck->hist);
    ck->hist.n_valid = (int)nh;
    ck->hist.h[0] = hh[0];
    ck->hist.h[1] = hh[1];
    const int v4 = h->version == HS_CKPT_VERSION_PART; /* arrays summed by segments */
    uint64_t s = HS_FNV_OFFSET;
    s = hs_fnv1a64(s, ck->frame_times, sizeof(double) * nf);
    for (int k = 0; k < n_stored; ++k)
        s = v4 ? sum_segments(s, ck->state.field[k], hs_state_field_len(&ck->desc, k))
               : hs_fnv1a64(s, ck->state.field[k], sizeof(double) * hs_state_field_len(&ck->desc, k));
    if (n_stored < ck->desc.n_fields) { /* an older file: one beat where the node activated, not yet repolarised */
        const int kb = hs_state_find(&ck->desc, "beats");
        for (size_t i = 0; kb >= 0 && i < nn; ++i) ck->state.field[kb][i] = ck->state.field[ck->desc.activation][i] >= 0.0;
    }
    if (v2) {
        s = hs_fnv1a64(s, hh, sizeof hh);
        for (uint64_t q = 0; q < nh; ++q)
            s = v4 ? sum_segments(s, ck->hist_phi[q], nn) : hs_fnv1a64(s, ck->hist_phi[q], sizeof(double) * nn);
    }
    if (s != h->payload_sum) {
        st = BAD("checkpoint %s is damaged: payload checksum mismatch", path);
        goto fail;
    }
    fclose(fp);
    return HS_OK;
fail:
    fclose(fp);
    hs_checkpoint_free(ck);
    return st;
}

/* ---- reading by rows: a distributed run's restart ---------------------------------------------- */

/* Doubles read at once (a verifying rank's segments, a rank's rows): the bound on a rank's buffer. */
enum { CHUNK = 1 << 20 };
/* Rows read in one piece while the next wanted row lies at most this many values on (a ghost far
 * from a rank's own range is read alone, not with the rows between). */
enum { ROW_GAP = 1 << 12 };
_Static_assert(CHUNK % HS_PART_SEGMENT == 0, "a chunk holds whole checksum segments");

/* @p n doubles at byte @p off of the file @p fd into @p buf. */
static hs_status pread_doubles(int fd, const char *path, int64_t off, double *buf, size_t n)
{
    char *p = (char *)buf;
    size_t left = n * sizeof(double);
    while (left) {
        const ssize_t r = pread(fd, p, left, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return BAD("cannot read checkpoint %s: %s", path, r < 0 ? strerror(errno) : "file shrank while reading");
        p += r;
        left -= (size_t)r;
        off += r;
    }
    return HS_OK;
}

/* Byte offsets of the payload's arrays: frame_times, the stored fields, hist_h, the history vectors. */
typedef struct ckpt_layout {
    int n_stored, nh;
    int64_t field_at[HS_STATE_MAX_FIELDS];
    int64_t hh_at, hist_at[2];
} ckpt_layout;

static void layout_of(const hs_checkpoint *ck, ckpt_layout *L)
{
    const hs_ckpt_header *h = &ck->h;
    L->n_stored = h->version >= 3 ? ck->desc.n_fields : ck->desc.activation + 1;
    L->nh = h->version >= 2 ? (int)h->reserved : 0;
    int64_t off = (int64_t)sizeof *h + 8 * h->n_frames;
    for (int k = 0; k < L->n_stored; ++k) {
        L->field_at[k] = off;
        off += 8 * (int64_t)hs_state_field_len(&ck->desc, k);
    }
    L->hh_at = off;
    off += h->version >= 2 ? 16 : 0;
    for (int q = 0; q < 2; ++q) L->hist_at[q] = off + 8 * (int64_t)q * h->n_nodes;
}

/* (global index, local index), sorted by the global one: the order a rank's rows are read in */
static hs_status sorted_rows(const char *path, int32_t n, const int64_t *gid, int64_t n_global, hs_gid_at **out)
{
    HS_CALL(HS_ALLOC(*out, (size_t)n + 1, "checkpoint rows"));
    for (int32_t i = 0; i < n; ++i) {
        HS_CHECK(gid[i] >= 0 && gid[i] < n_global, HS_ERR_INTERNAL, "checkpoint %s: row %lld of %lld", path,
                 (long long)gid[i], (long long)n_global);
        (*out)[i] = (hs_gid_at){gid[i], i};
    }
    qsort(*out, (size_t)n, sizeof **out, hs_gid_at_cmp);
    return HS_OK;
}

/* out[r[j].i] = the array at byte @p at's value r[j].gid, for the @p n rows @p r (sorted): pieces of
 * at most CHUNK values through @p buf, from one wanted row to the last one within ROW_GAP of the one
 * before it. */
static hs_status read_rows(int fd, const char *path, int64_t at, const hs_gid_at *r, int32_t n, double *buf, double *out)
{
    for (int32_t j = 0; j < n;) {
        const int64_t a = r[j].gid;
        int32_t e = j;
        while (e + 1 < n && r[e + 1].gid < a + CHUNK && r[e + 1].gid - r[e].gid <= ROW_GAP) ++e;
        HS_CALL(pread_doubles(fd, path, at + 8 * a, buf, (size_t)(r[e].gid - a + 1)));
        for (int32_t q = j; q <= e; ++q) out[r[q].i] = buf[r[q].gid - a];
        j = e + 1;
    }
    return HS_OK;
}

hs_status hs_checkpoint_read_rows(const hs_checkpoint *ck, int32_t n_nodes, const int64_t *node_gid, int32_t n_elems,
                                  const int64_t *elem_gid, hs_state *dst, double *const hist_phi[2])
{
    const hs_state_desc *d = dst->desc;
    HS_CHECK(d && d->n_fields == ck->desc.n_fields && d->n_nodes == n_nodes && d->n_elems == n_elems,
             HS_ERR_INTERNAL, "checkpoint %s: a state of %d fields on %d nodes and %d elements for %d fields on %d "
             "and %d rows", ck->path, d ? d->n_fields : -1, d ? (int)d->n_nodes : -1, d ? (int)d->n_elems : -1,
             ck->desc.n_fields, (int)n_nodes, (int)n_elems);
    for (int k = 0; k < d->n_fields; ++k)
        HS_CHECK(d->f[k].where == ck->desc.f[k].where && dst->field[k], HS_ERR_INTERNAL,
                 "checkpoint %s: field %s of another location, or not given", ck->path, ck->desc.f[k].name);
    ckpt_layout L;
    layout_of(ck, &L);
    FILE *fp = fopen(ck->path, "rb");
    if (!fp) return BAD("cannot read checkpoint %s: %s", ck->path, strerror(errno));
    hs_status st = HS_OK;
    hs_gid_at *rn = NULL, *re = NULL;
    double *buf = NULL;
    hs_ckpt_header h;
    /* the file verified before the set-up: the same one still (a checkpoint is replaced by a rename) */
    if (fread(&h, 1, sizeof h, fp) != sizeof h || memcmp(&h, &ck->h, sizeof h) != 0) {
        st = BAD("checkpoint %s was replaced while the run restarted from it; restart again", ck->path);
        goto done;
    }
    HS_CALL_GOTO(sorted_rows(ck->path, n_nodes, node_gid, ck->h.n_nodes, &rn), done);
    HS_CALL_GOTO(sorted_rows(ck->path, n_elems, elem_gid, ck->h.n_elems, &re), done);
    HS_CALL_GOTO(HS_ALLOC(buf, CHUNK, "checkpoint chunk"), done);
    const int fd = fileno(fp);
    for (int k = 0; k < L.n_stored; ++k) {
        const int node = d->f[k].where == HS_AT_NODE;
        HS_CALL_GOTO(read_rows(fd, ck->path, L.field_at[k], node ? rn : re, node ? n_nodes : n_elems, buf,
                               dst->field[k]), done);
    }
    if (L.n_stored < d->n_fields) { /* an older file: one beat where the node activated, not yet repolarised */
        const int kb = hs_state_find(d, "beats");
        for (int32_t i = 0; kb >= 0 && i < n_nodes; ++i) dst->field[kb][i] = dst->field[d->activation][i] >= 0.0;
    }
    for (int q = 0; q < L.nh && q < ck->hist.n_valid; ++q)
        if (hist_phi && hist_phi[q]) HS_CALL_GOTO(read_rows(fd, ck->path, L.hist_at[q], rn, n_nodes, buf, hist_phi[q]), done);
done:
    fclose(fp);
    free(buf);
    free(rn);
    free(re);
    return st;
}

#if HS_HAS_MPI
/* The payload's checksum over the ranks of hs_par_comm(), no rank holding more than CHUNK values.
 * Version 4 (its arrays summed by segments of HS_PART_SEGMENT values): the segments are dealt out in
 * blocks, each rank hashes its own, every rank combines them all (as the writer's rank 0 does).
 * Versions 1 to 3 (one FNV-1a over the payload's bytes, a sequence): rank 0 hashes it in chunks. Every
 * rank returns the same status. */
static hs_status verify_part(int fd, const hs_checkpoint *ck, double *buf)
{
    const MPI_Comm comm = hs_par_comm();
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const hs_ckpt_header *h = &ck->h;
    const char *path = ck->path;
    hs_status st = HS_OK;
    if (h->version != HS_CKPT_VERSION_PART) {
        if (rank == 0) {
            uint64_t s = HS_FNV_OFFSET;
            const int64_t n = (int64_t)(h->payload_bytes / 8);
            for (int64_t a = 0; a < n && st == HS_OK; a += CHUNK) {
                const size_t m = (size_t)(a + CHUNK < n ? CHUNK : n - a);
                st = pread_doubles(fd, path, (int64_t)sizeof *h + 8 * a, buf, m);
                s = hs_fnv1a64(s, buf, 8 * m);
            }
            if (st == HS_OK && s != h->payload_sum) st = BAD("checkpoint %s is damaged: payload checksum mismatch", path);
        }
        return hs_par_agree(st);
    }
    ckpt_layout L;
    layout_of(ck, &L);
    /* the arrays summed by segments: the stored fields, then the history vectors */
    int64_t at[HS_STATE_MAX_FIELDS + 2], len[HS_STATE_MAX_FIELDS + 2], first[HS_STATE_MAX_FIELDS + 3];
    int na = 0;
    first[0] = 0;
    for (int k = 0; k < L.n_stored + L.nh; ++k, ++na) {
        at[na] = k < L.n_stored ? L.field_at[k] : L.hist_at[k - L.n_stored];
        len[na] = k < L.n_stored ? (int64_t)hs_state_field_len(&ck->desc, k) : h->n_nodes;
        first[na + 1] = first[na] + (len[na] + HS_PART_SEGMENT - 1) / HS_PART_SEGMENT;
    }
    const int64_t n_seg = first[na];
    uint64_t *seg = NULL;
    st = n_seg < INT_MAX ? HS_ALLOC(seg, (size_t)n_seg + 1, "checkpoint segment hashes")
                         : BAD("checkpoint %s is damaged: %lld checksum segments", path, (long long)n_seg);
    /* this rank's block of segments [s0, s1), read a chunk (whole segments of one array) at a time */
    const int64_t s0 = n_seg * rank / size, s1 = n_seg * (rank + 1) / size;
    for (int a = 0; a < na && st == HS_OK; ++a) {
        const int64_t lo = s0 > first[a] ? s0 : first[a], hi = s1 < first[a + 1] ? s1 : first[a + 1];
        for (int64_t q = lo; q < hi && st == HS_OK;) {
            const int64_t v0 = (q - first[a]) * HS_PART_SEGMENT, q_end = q + CHUNK / HS_PART_SEGMENT < hi
                                                                             ? q + CHUNK / HS_PART_SEGMENT : hi;
            const int64_t v1 = (q_end - first[a]) * HS_PART_SEGMENT < len[a] ? (q_end - first[a]) * HS_PART_SEGMENT
                                                                               : len[a];
            st = pread_doubles(fd, path, at[a] + 8 * v0, buf, (size_t)(v1 - v0));
            for (int64_t v = v0; v < v1 && st == HS_OK; v += HS_PART_SEGMENT, ++q) {
                const int64_t e = v + HS_PART_SEGMENT < v1 ? v + HS_PART_SEGMENT : v1;
                seg[q] = hs_fnv1a64(HS_FNV_OFFSET, buf + (v - v0), sizeof(double) * (size_t)(e - v));
            }
        }
    }
    st = hs_par_agree(st);
    /* each segment's hash from the rank that read it (the others hold 0) */
    if (st == HS_OK && MPI_Allreduce(MPI_IN_PLACE, seg, (int)n_seg, MPI_UINT64_T, MPI_BXOR, comm) != MPI_SUCCESS)
        st = HS_FAIL(HS_ERR_INTERNAL, "checkpoint %s: the segment hashes' reduction failed", path);
    if (st == HS_OK) {
        uint64_t s = hs_fnv1a64(HS_FNV_OFFSET, ck->frame_times, sizeof(double) * (size_t)h->n_frames);
        for (int a = 0; a < na; ++a) {
            if (a == L.n_stored) s = hs_fnv1a64(s, ck->hist.h, 2 * sizeof(double));
            for (int64_t q = first[a]; q < first[a + 1]; ++q) s = hs_fnv1a64(s, &seg[q], sizeof seg[q]);
        }
        if (na == L.n_stored) s = hs_fnv1a64(s, ck->hist.h, 2 * sizeof(double));
        if (s != h->payload_sum) st = BAD("checkpoint %s is damaged: payload checksum mismatch", path);
    }
    free(seg);
    return hs_par_agree(st); /* alike on every rank (each combined the same hashes): said once */
}
#endif

/* hs_checkpoint_read for a distributed run: the header and the frames on every rank, the payload
 * verified by the ranks together (verify_part), not held. */
static hs_status read_part(const char *path, const hs_model *model, const uint64_t *expect_fp, double dt_ms,
                           hs_checkpoint *ck)
{
#if HS_HAS_MPI
    memset(ck, 0, sizeof *ck);
    snprintf(ck->path, sizeof ck->path, "%s", path);
    FILE *fp = fopen(path, "rb");
    hs_status st = fp ? HS_OK : BAD("cannot read checkpoint %s: %s", path, strerror(errno));
    int n_stored = 0;
    double *buf = NULL;
    if (st == HS_OK) st = read_header(fp, path, model, expect_fp, dt_ms, ck, &n_stored);
    const size_t nf = (size_t)ck->h.n_frames;
    if (st == HS_OK) st = HS_ALLOC(ck->frame_times, nf + 1, "checkpoint frame times");
    if (st == HS_OK && fread(ck->frame_times, sizeof(double), nf, fp) != nf)
        st = BAD("cannot read checkpoint %s: %s", path, ferror(fp) ? strerror(errno) : "file shrank while reading");
    hs_extrap_reset(&ck->hist);
    if (st == HS_OK && ck->h.version >= 2) {
        ckpt_layout L;
        layout_of(ck, &L);
        ck->hist.n_valid = L.nh;
        st = pread_doubles(fileno(fp), path, L.hh_at, ck->hist.h, 2);
    }
    if (st == HS_OK) st = HS_ALLOC(buf, CHUNK, "checkpoint chunk");
    st = hs_par_agree(st); /* every rank read the same header: said once */
    if (st == HS_OK) st = verify_part(fileno(fp), ck, buf);
    free(buf);
    if (fp) fclose(fp);
    ck->state.desc = &ck->desc; /* no arrays: each rank reads its rows (hs_checkpoint_read_rows) */
    if (st != HS_OK) hs_checkpoint_free(ck);
    return st;
#else
    (void)path, (void)model, (void)expect_fp, (void)dt_ms, (void)ck;
    return HS_FAIL(HS_ERR_INTERNAL, "a distributed restart in a build without MPI");
#endif
}

hs_status hs_checkpoint_match(const hs_checkpoint *ck, const uint64_t fp[HS_CKPT_GROUPS], double dt_ms,
                              const hs_mesh *mesh)
{
    const hs_ckpt_header *h = &ck->h;
    HS_CALL(match_config(h, ck->path, fp, dt_ms));
    if (mesh) {
        HS_CHECK(h->n_nodes == mesh->n_nodes && h->n_elems == mesh->n_elems, HS_ERR_MESH,
                 "checkpoint %s was written for a different mesh (%lld nodes, %lld elements; this run's "
                 "mesh has %d nodes, %d elements)", ck->path, (long long)h->n_nodes,
                 (long long)h->n_elems, mesh->n_nodes, mesh->n_elems);
        HS_CHECK(h->mesh_fp == hs_mesh_fingerprint(mesh), HS_ERR_MESH,
                 "checkpoint %s was written for a different mesh (same size, but other coordinates, "
                 "connectivity or node numbering: mesh.file, mesh.reorder or the solver.spmv kernel's "
                 "node order changed)", ck->path);
    }
    return HS_OK;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

hs_status hs_checkpoint_list(const char *dir, const char *prefix, long **steps, int *n)
{
    *steps = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT) return HS_OK;
        return HS_FAIL(HS_ERR_IO, "cannot list directory %s: %s", dir, strerror(errno));
    }
    int cap = 0;
    long *v = NULL;
    size_t pl = strlen(prefix);
    struct dirent *e;
    hs_status st = HS_OK;
    while ((e = readdir(d))) {
        const char *nm = e->d_name;
        size_t len = strlen(nm);
        /* PREFIX_ckpt_<digits>.hsck; temporaries are ".NAME.tmp" and never match */
        if (len < pl + 6 + 1 + 5 || strncmp(nm, prefix, pl) || strncmp(nm + pl, "_ckpt_", 6) ||
            strcmp(nm + len - 5, ".hsck"))
            continue;
        const char *digits = nm + pl + 6;
        char *end = NULL;
        long step = strtol(digits, &end, 10);
        if (end != nm + len - 5 || step < 0) continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            long *nv = realloc(v, sizeof *v * (size_t)cap);
            if (!nv) {
                st = HS_FAIL(HS_ERR_MEMORY, "out of memory listing checkpoints in %s", dir);
                break;
            }
            v = nv;
        }
        v[(*n)++] = step;
    }
    closedir(d);
    if (st != HS_OK) {
        free(v);
        *n = 0;
        return st;
    }
    if (*n) qsort(v, (size_t)*n, sizeof *v, cmp_long);
    *steps = v;
    return HS_OK;
}

/* --restart ARG resolved, each candidate read by hs_checkpoint_read or (@p part) read_part, whose
 * statuses every rank shares. */
static hs_status load_with(const char *arg, const char *prefix, const hs_model *model, const uint64_t *expect_fp,
                           double dt_ms, int part, hs_checkpoint *ck)
{
    struct stat sb;
    hs_status st = stat(arg, &sb) != 0 ? HS_FAIL(HS_ERR_IO, "--restart %s: %s", arg, strerror(errno)) : HS_OK;
    if (part) st = hs_par_agree(st);
    HS_CALL(st);
    if (!S_ISDIR(sb.st_mode)) return part ? read_part(arg, model, expect_fp, dt_ms, ck)
                                          : hs_checkpoint_read(arg, model, expect_fp, dt_ms, ck);
    long *steps = NULL;
    int n = 0;
    st = hs_checkpoint_list(arg, prefix, &steps, &n);
    if (part) {
        st = hs_par_agree(st);
        /* every rank listed the directory itself: the ranks must see the same checkpoints, or they would
         * read different files and meet in different collectives (a hang); the same list's hash on
         * every rank, or one agreed error */
        uint64_t h = hs_fnv1a64(HS_FNV_OFFSET, &n, sizeof n);
        if (n > 0) h = hs_fnv1a64(h, steps, sizeof *steps * (size_t)n);
        const int h31 = (int)(h & 0x7fffffff);
        if (st == HS_OK && hs_par_max_int(h31) != -hs_par_max_int(-h31))
            st = HS_FAIL(HS_ERR_IO, "--restart %s: the ranks list different checkpoints in that directory (a shared "
                         "file system showing the ranks different contents, or a checkpoint written meanwhile); "
                         "restart from one file: --restart %s/%s_ckpt_STEP.hsck", arg, arg, prefix);
        st = hs_par_agree(st);
    }
    if (st != HS_OK) {
        free(steps);
        return st;
    }
    st = HS_FAIL(HS_ERR_IO, "--restart %s: no checkpoint %s_ckpt_*.hsck in that directory (a run writes "
                 "one every output.checkpoint_interval ms of simulated time and at its end, unless "
                 "output.checkpoint_interval = 0 or output.enabled = false; a signal or a failed step "
                 "writes one too)", arg, prefix);
    if (part && n == 0) st = hs_par_agree(st);
    for (int i = n - 1; i >= 0; --i) {
        char path[HS_PATH_MAX + 64];
        hs_checkpoint_path(arg, prefix, steps[i], path, sizeof path);
        hs_error_clear();
        st = part ? read_part(path, model, expect_fp, dt_ms, ck) : hs_checkpoint_read(path, model, expect_fp, dt_ms, ck);
        if (st == HS_OK || st == HS_ERR_CONFIG) break; /* intact but of another configuration: so are the older ones */
        if (i > 0 && (!part || hs_par_rank() == 0)) {
            hs_warn("%s; trying the one before it", hs_error_message());
        }
    }
    free(steps);
    return st;
}

hs_status hs_checkpoint_load(const char *arg, const char *prefix, const hs_model *model, const uint64_t *expect_fp,
                             double dt_ms, hs_checkpoint *ck)
{
    return load_with(arg, prefix, model, expect_fp, dt_ms, 0, ck);
}

hs_status hs_checkpoint_load_part(const char *arg, const char *prefix, const hs_model *model,
                                  const uint64_t *expect_fp, double dt_ms, hs_checkpoint *ck)
{
    return load_with(arg, prefix, model, expect_fp, dt_ms, 1, ck);
}
