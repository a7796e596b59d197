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
#include "hs_util.h"

_Static_assert(sizeof(hs_ckpt_header) == 20 * 8, "checkpoint header has no padding");

static const char ckpt_magic[8] = {'H', 'S', 'C', 'K', 'P', 'T', '1', '\n'};

uint64_t hs_fnv1a64(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; ++i) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

uint64_t hs_mesh_fingerprint(const hs_mesh *m)
{
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

/* Values are hashed one by one (never the struct: padding bytes are undefined). */
static uint64_t fp_d(uint64_t h, double v)
{
    if (v == 0.0) v = 0.0; /* -0.0 and 0.0 are the same setting */
    return hs_fnv1a64(h, &v, sizeof v);
}
static uint64_t fp_i(uint64_t h, int64_t v) { return hs_fnv1a64(h, &v, sizeof v); }
static uint64_t fp_s(uint64_t h, const char *s) { return hs_fnv1a64(h, s, strlen(s) + 1); }

static const char *const group_name[HS_CKPT_GROUPS] = {
    "mesh.*", "fibers.*", "model.*", "time.dt", "stimulus",
    "solver.cg_tol/cg_max_iter/newton_* or output.activation_threshold"};

void hs_config_fingerprint(const hs_config *c, uint64_t fp[HS_CKPT_GROUPS])
{
    uint64_t h = HS_FNV_OFFSET;
    /* mesh.* (mesh.file left out: the mesh fingerprint covers what it holds, wherever it lives) */
    h = fp_s(h, c->mesh_source);
    h = fp_d(h, c->box.lx), h = fp_d(h, c->box.ly), h = fp_d(h, c->box.lz), h = fp_d(h, c->box.h);
    h = fp_i(h, c->box.use_tetgen), h = fp_d(h, c->box.tetgen_radius_edge);
    h = fp_s(h, c->mesh_reorder);
    fp[0] = h;
    /* fibers.* */
    h = fp_s(HS_FNV_OFFSET, c->fiber_type);
    for (int k = 0; k < 3; ++k) h = fp_d(h, c->fiber_dir[k]);
    fp[1] = h;
    /* model.* */
    const double model[] = {c->c, c->alpha, c->gamma, c->b, c->mu1, c->mu2, c->d_iso, c->d_ani, c->time_unit};
    h = HS_FNV_OFFSET;
    for (size_t k = 0; k < sizeof model / sizeof model[0]; ++k) h = fp_d(h, model[k]);
    fp[2] = fp_i(h, c->recovery);
    /* time.dt (time.t_end may change: a restart can run further) */
    fp[3] = fp_d(HS_FNV_OFFSET, c->dt);
    /* stimulus */
    h = fp_i(HS_FNV_OFFSET, c->n_stimuli);
    for (int s = 0; s < c->n_stimuli; ++s) {
        const hs_stimulus_cfg *g = &c->stimuli[s];
        h = fp_i(h, (int64_t)g->shape);
        for (int k = 0; k < 3; ++k) h = fp_d(h, g->min[k]), h = fp_d(h, g->max[k]), h = fp_d(h, g->center[k]);
        h = fp_d(h, g->radius), h = fp_d(h, g->start), h = fp_d(h, g->duration), h = fp_d(h, g->strength);
        h = fp_s(h, g->label), h = fp_s(h, g->file); /* surface label; node-list file (by its path) */
    }
    fp[4] = h;
    /* solver tolerances and limits decide where Newton and CG stop, so they change the state; the
     * activation threshold decides the activation times, which are part of the state */
    h = fp_d(HS_FNV_OFFSET, c->cg_tol), h = fp_i(h, c->cg_max_iter);
    h = fp_d(h, c->newton_tol_residual), h = fp_d(h, c->newton_tol_update), h = fp_i(h, c->newton_max_iter);
    fp[5] = fp_d(h, c->activation_threshold);
}

void hs_checkpoint_path(const char *dir, const char *prefix, long step, char *buf, size_t size)
{
    size_t dl = strlen(dir);
    snprintf(buf, size, "%s%s%s_ckpt_%09ld.hsck", dir, dl && dir[dl - 1] != '/' ? "/" : "", prefix, step);
}

static uint64_t header_sum(const hs_ckpt_header *h)
{
    return hs_fnv1a64(HS_FNV_OFFSET, h, offsetof(hs_ckpt_header, header_sum));
}

hs_status hs_checkpoint_write(const char *path, long step, double t_ms, const hs_config *cfg,
                              const hs_mesh *mesh, int n_frames, const double *frame_times,
                              const double *phi, const double *r, const double *act,
                              const hs_extrap *hist, double *const hist_phi[2])
{
    const size_t nn = (size_t)mesh->n_nodes, ne = (size_t)mesh->n_elems;
    int nh = hist ? hist->n_valid : 0;
    if (nh < 0 || nh > 2) nh = 0;
    const double hh[2] = {nh ? hist->h[0] : 0.0, nh ? hist->h[1] : 0.0};
    for (size_t i = 0; i < nn; ++i)
        HS_CHECK(isfinite(phi[i]), HS_ERR_NUMERIC, "checkpoint %s not written: phi is %g at node %zu", path, phi[i], i);
    for (size_t e = 0; e < ne; ++e)
        HS_CHECK(isfinite(r[e]), HS_ERR_NUMERIC, "checkpoint %s not written: r is %g in element %zu", path, r[e], e);
    hs_ckpt_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, ckpt_magic, 8);
    h.version = HS_CKPT_VERSION;
    h.endian = HS_CKPT_ENDIAN;
    h.step = step;
    h.t_ms = t_ms;
    h.dt_ms = cfg->dt;
    h.n_nodes = (int64_t)nn;
    h.n_elems = (int64_t)ne;
    h.n_frames = n_frames;
    h.mesh_fp = hs_mesh_fingerprint(mesh);
    hs_config_fingerprint(cfg, h.config_fp);
    h.reserved = (uint64_t)nh;
    h.payload_bytes = sizeof(double) * ((size_t)n_frames + 2 * nn + ne + 2 + (size_t)nh * nn);
    uint64_t s = HS_FNV_OFFSET;
    s = hs_fnv1a64(s, frame_times, sizeof(double) * (size_t)n_frames);
    s = hs_fnv1a64(s, phi, sizeof(double) * nn);
    s = hs_fnv1a64(s, r, sizeof(double) * ne);
    s = hs_fnv1a64(s, act, sizeof(double) * nn);
    s = hs_fnv1a64(s, hh, sizeof hh);
    for (int q = 0; q < nh; ++q) s = hs_fnv1a64(s, hist_phi[q], sizeof(double) * nn);
    h.payload_sum = s;
    h.header_sum = header_sum(&h);

    hs_atomic_file *f = NULL;
    HS_CALL(hs_atomic_file_create(path, "checkpoint", &f));
    hs_status st = hs_atomic_file_write(f, &h, sizeof h);
    if (st == HS_OK) st = hs_atomic_file_write(f, frame_times, sizeof(double) * (size_t)n_frames);
    if (st == HS_OK) st = hs_atomic_file_write(f, phi, sizeof(double) * nn);
    if (st == HS_OK) st = hs_atomic_file_write(f, r, sizeof(double) * ne);
    if (st == HS_OK) st = hs_atomic_file_write(f, act, sizeof(double) * nn);
    if (st == HS_OK) st = hs_atomic_file_write(f, hh, sizeof hh);
    for (int q = 0; q < nh && st == HS_OK; ++q) st = hs_atomic_file_write(f, hist_phi[q], sizeof(double) * nn);
    if (st != HS_OK) {
        hs_atomic_file_destroy(&f);
        return st;
    }
    return hs_atomic_file_commit(&f);
}

void hs_checkpoint_free(hs_checkpoint *ck)
{
    HS_FREE(ck->frame_times);
    HS_FREE(ck->phi);
    HS_FREE(ck->r);
    HS_FREE(ck->act);
    HS_FREE(ck->hist_phi[0]);
    HS_FREE(ck->hist_phi[1]);
}

#define BAD(...) HS_FAIL(HS_ERR_IO, __VA_ARGS__)

hs_status hs_checkpoint_read(const char *path, hs_checkpoint *ck)
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
    if (h->version != HS_CKPT_VERSION && h->version != 1) {
        st = BAD("checkpoint %s has format version %llu; this heartsim reads versions 1 and %u", path,
                 (unsigned long long)h->version, HS_CKPT_VERSION);
        goto fail;
    }
    const int v2 = h->version >= 2;
    if (h->header_sum != header_sum(h)) {
        st = BAD("checkpoint %s is damaged: header checksum mismatch", path);
        goto fail;
    }
    const uint64_t nh = v2 ? h->reserved : 0;
    if (h->n_nodes < 0 || h->n_elems < 0 || h->n_frames < 0 || h->step < 0 || nh > 2 ||
        h->payload_bytes != sizeof(double) * (uint64_t)(h->n_frames + 2 * h->n_nodes + h->n_elems +
                                                        (v2 ? 2 + (int64_t)nh * h->n_nodes : 0))) {
        st = BAD("checkpoint %s is damaged: inconsistent sizes in its header", path);
        goto fail;
    }
    long long want = (long long)(sizeof *h + h->payload_bytes);
    if (size != want) {
        st = BAD("checkpoint %s is %s: %lld bytes, expected %lld", path, size < want ? "truncated" : "damaged (too long)",
                 size, want);
        goto fail;
    }
    size_t nf = (size_t)h->n_frames, nn = (size_t)h->n_nodes, ne = (size_t)h->n_elems;
    HS_CALL_GOTO(HS_ALLOC(ck->frame_times, nf + 1, "checkpoint frame times"), fail);
    HS_CALL_GOTO(HS_ALLOC(ck->phi, nn + 1, "checkpoint phi"), fail);
    HS_CALL_GOTO(HS_ALLOC(ck->r, ne + 1, "checkpoint r"), fail);
    HS_CALL_GOTO(HS_ALLOC(ck->act, nn + 1, "checkpoint activation"), fail);
    if (fread(ck->frame_times, sizeof(double), nf, fp) != nf || fread(ck->phi, sizeof(double), nn, fp) != nn ||
        fread(ck->r, sizeof(double), ne, fp) != ne || fread(ck->act, sizeof(double), nn, fp) != nn) {
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
    uint64_t s = HS_FNV_OFFSET;
    s = hs_fnv1a64(s, ck->frame_times, sizeof(double) * nf);
    s = hs_fnv1a64(s, ck->phi, sizeof(double) * nn);
    s = hs_fnv1a64(s, ck->r, sizeof(double) * ne);
    s = hs_fnv1a64(s, ck->act, sizeof(double) * nn);
    if (v2) {
        s = hs_fnv1a64(s, hh, sizeof hh);
        for (uint64_t q = 0; q < nh; ++q) s = hs_fnv1a64(s, ck->hist_phi[q], sizeof(double) * nn);
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

hs_status hs_checkpoint_match(const hs_checkpoint *ck, const hs_config *cfg, const hs_mesh *mesh)
{
    const hs_ckpt_header *h = &ck->h;
    uint64_t fp[HS_CKPT_GROUPS];
    hs_config_fingerprint(cfg, fp);
    char diff[512] = "";
    size_t o = 0;
    for (int g = 0; g < HS_CKPT_GROUPS && o < sizeof diff; ++g)
        if (fp[g] != h->config_fp[g])
            o += (size_t)snprintf(diff + o, sizeof diff - o, "%s%s", o ? ", " : "", group_name[g]);
    if (o) {
        char dts[96] = "";
        if (fp[3] != h->config_fp[3]) snprintf(dts, sizeof dts, "; time.dt was %g ms, now %g ms", h->dt_ms, cfg->dt);
        return HS_FAIL(HS_ERR_CONFIG,
                       "checkpoint %s was written with a different configuration: %s differ%s%s. Restart "
                       "with the configuration it was written with (time.t_end, output.*, solver.backend/"
                       "spmv/threads/dt_retry may change)", ck->path, diff, strchr(diff, ',') ? "" : "s", dts);
    }
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

hs_status hs_checkpoint_load(const char *arg, const hs_config *cfg, hs_checkpoint *ck)
{
    struct stat sb;
    if (stat(arg, &sb) != 0) return HS_FAIL(HS_ERR_IO, "--restart %s: %s", arg, strerror(errno));
    if (!S_ISDIR(sb.st_mode)) return hs_checkpoint_read(arg, ck);
    long *steps = NULL;
    int n = 0;
    HS_CALL(hs_checkpoint_list(arg, cfg->out_prefix, &steps, &n));
    hs_status st = HS_FAIL(HS_ERR_IO, "--restart %s: no checkpoint %s_ckpt_*.hsck in that directory", arg,
                           cfg->out_prefix);
    for (int i = n - 1; i >= 0; --i) {
        char path[HS_PATH_MAX + 64];
        hs_checkpoint_path(arg, cfg->out_prefix, steps[i], path, sizeof path);
        hs_error_clear();
        st = hs_checkpoint_read(path, ck);
        if (st == HS_OK) break;
        if (i > 0) {
            hs_warn("%s; trying the one before it", hs_error_message());
        }
    }
    free(steps);
    return st;
}
