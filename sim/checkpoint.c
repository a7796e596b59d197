/* Checkpoint files: write (atomic), read and verify, match against a run, find the newest. */
#define _POSIX_C_SOURCE 200809L
#include "hs_checkpoint.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hs_atomic_file.h"
#include "hs_build_config.h"
#include "hs_hash.h"
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

hs_status hs_checkpoint_read(const char *path, const hs_model *model, const uint64_t *expect_fp, double dt_ms,
                             hs_checkpoint *ck)
{
    memset(ck, 0, sizeof *ck);
    snprintf(ck->path, sizeof ck->path, "%s", path);
    FILE *fp = fopen(path, "rb");
    if (!fp) return BAD("cannot read checkpoint %s: %s", path, strerror(errno));
    hs_status st = HS_OK;
    struct stat sb;
    long long size = fstat(fileno(fp), &sb) == 0 ? (long long)sb.st_size : -1;
    hs_ckpt_header *h = &ck->h;
    if (fread(h, 1, sizeof *h, fp) != sizeof *h) {
        st = BAD("checkpoint %s is truncated: %lld bytes, shorter than the %zu-byte header", path, size, sizeof *h);
        goto fail;
    }
    if (memcmp(h->magic, ckpt_magic, 8) != 0) {
        st = BAD("%s is not a heartsim checkpoint (no HSCKPT magic at its start)", path);
        goto fail;
    }
    if (h->endian != HS_CKPT_ENDIAN) {
        st = BAD("checkpoint %s was written on a host of the other byte order", path);
        goto fail;
    }
    if (h->version != HS_CKPT_VERSION && h->version != HS_CKPT_VERSION_PART && h->version != 1 && h->version != 2) {
        st = BAD("checkpoint %s has format version %llu; this heartsim reads versions 1 to %u", path,
                 (unsigned long long)h->version, HS_CKPT_VERSION_PART);
        goto fail;
    }
    const int v2 = h->version >= 2;
    if (h->header_sum != header_sum(h)) {
        st = BAD("checkpoint %s is damaged: header checksum mismatch", path);
        goto fail;
    }
    /* another configuration (another model among them) is said as such, before its sizes are judged */
    if (expect_fp) HS_CALL_GOTO(match_config(h, path, expect_fp, dt_ms), fail);
    const uint64_t nh = v2 ? h->reserved : 0;
    if (h->n_nodes < 0 || h->n_elems < 0 || h->n_frames < 0 || h->step < 0 || nh > 2 || h->n_nodes > INT32_MAX ||
        h->n_elems > INT32_MAX) {
        st = BAD("checkpoint %s is damaged: inconsistent sizes in its header", path);
        goto fail;
    }
    hs_state_desc_init(&ck->desc, model, (int32_t)h->n_nodes, (int32_t)h->n_elems);
    /* versions 1 and 2 end the state at activation (no repolarisation, apd, beats) */
    const int n_stored = h->version >= 3 ? ck->desc.n_fields : ck->desc.activation + 1;
    const uint64_t rest = sizeof(double) * (uint64_t)(h->n_frames + (v2 ? 2 + (int64_t)nh * h->n_nodes : 0));
    /* the splitting scheme keeps the model's variables at the nodes (fem/hs_state.h): the solver
     * fingerprint group says which scheme wrote it, the payload's size which layout it has */
    if (h->payload_bytes != rest + sizeof(double) * state_len_n(&ck->desc, n_stored) && h->version >= 3)
        hs_state_desc_init_scheme(&ck->desc, model, HS_SCHEME_SPLITTING, (int32_t)h->n_nodes, (int32_t)h->n_elems);
    if (h->payload_bytes != rest + sizeof(double) * (uint64_t)state_len_n(&ck->desc, n_stored)) {
        st = BAD("checkpoint %s does not hold the state of model %s (%d fields): its payload has another size "
                 "(damaged, or written for another model)", path, model->name, ck->desc.n_fields);
        goto fail;
    }
    long long want = (long long)(sizeof *h + h->payload_bytes);
    if (size != want) {
        st = BAD("checkpoint %s is %s: %lld bytes, expected %lld", path, size < want ? "truncated" : "damaged (too long)",
                 size, want);
        goto fail;
    }
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
        HS_CALL_GOTO(HS_ALLOC(ck->hist_phi[q], nn + 1, "checkpoint history"), fail);
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

hs_status hs_checkpoint_load(const char *arg, const char *prefix, const hs_model *model, const uint64_t *expect_fp,
                             double dt_ms, hs_checkpoint *ck)
{
    struct stat sb;
    if (stat(arg, &sb) != 0) return HS_FAIL(HS_ERR_IO, "--restart %s: %s", arg, strerror(errno));
    if (!S_ISDIR(sb.st_mode)) return hs_checkpoint_read(arg, model, expect_fp, dt_ms, ck);
    long *steps = NULL;
    int n = 0;
    HS_CALL(hs_checkpoint_list(arg, prefix, &steps, &n));
    hs_status st = HS_FAIL(HS_ERR_IO, "--restart %s: no checkpoint %s_ckpt_*.hsck in that directory (a run writes "
                           "one every output.checkpoint_interval ms of simulated time and at its end, unless "
                           "output.checkpoint_interval = 0 or output.enabled = false; a signal or a failed step "
                           "writes one too)", arg, prefix);
    for (int i = n - 1; i >= 0; --i) {
        char path[HS_PATH_MAX + 64];
        hs_checkpoint_path(arg, prefix, steps[i], path, sizeof path);
        hs_error_clear();
        st = hs_checkpoint_read(path, model, expect_fp, dt_ms, ck);
        if (st == HS_OK || st == HS_ERR_CONFIG) break; /* intact but of another configuration: so are the older ones */
        if (i > 0) {
            hs_warn("%s; trying the one before it", hs_error_message());
        }
    }
    free(steps);
    return st;
}
