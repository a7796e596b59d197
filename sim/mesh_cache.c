/* The mesh cache (hs_mesh_cache.h): key, atomic store, checked load. */
#define _POSIX_C_SOURCE 200809L
#include "hs_mesh_cache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hs_atomic_file.h"
#include "hs_build_config.h"
#include "hs_fs.h"   /* hs_dir_create */
#include "hs_hash.h" /* hs_fnv1a64 */
#include "hs_util.h"
#if HS_HAS_MPI
#include <mpi.h>

#include "hs_backend_mpi.h"
#include "hs_dist.h"     /* hs_par_comm */
#include "hs_mesh_part.h" /* hs_mesh_part_sites */
#include "mesh_part_internal.h" /* hs_mesh_part_sites_found */
#include "hs_par.h"
#include "hs_sim.h"      /* HS_SPEC_MAX_STIMULI */
#endif

static const char cache_magic[8] = {'H', 'S', 'M', 'E', 'S', 'H', '1', '\n'};
#define CACHE_ENDIAN 0x0102030405060708ull

typedef struct cache_header {
    char magic[8];
    uint64_t version, endian, key;
    int64_t n_nodes, n_elems, n_bfaces, n_labels;
    uint64_t flags, payload_bytes, payload_sum, header_sum;
} cache_header;
_Static_assert(sizeof(cache_header) == 12 * 8, "mesh cache header has no padding");

/* The build report as stored: fixed layout, zero-filled before use so padding bytes are defined. */
typedef struct cache_info {
    int32_t have_surface;
    int32_t expected_what; /* 0 none, 1 surface, 2 box, 3 analytic wall */
    double expected_volume;
    double seconds_mesh;
    hs_reorder_report reorder;
    hs_surface_report surface;
    char fibers[160];
} cache_info;

static const char *const expected_whats[] = {"", "enclosed by the surface", "of the box", "of the analytic wall"};

/* the build report as stored (info may be NULL: zeros) */
static void info_pack(const hs_mesh_build_info *info, cache_info *ci)
{
    memset(ci, 0, sizeof *ci);
    if (!info) return;
    ci->have_surface = info->have_surface;
    ci->expected_volume = info->expected_volume;
    for (int k = 1; k < 4; ++k)
        if (info->expected_what && !strcmp(info->expected_what, expected_whats[k])) ci->expected_what = k;
    ci->seconds_mesh = info->seconds_mesh;
    ci->reorder = info->reorder;
    if (info->have_surface) ci->surface = info->surface;
    snprintf(ci->fibers, sizeof ci->fibers, "%s", info->fibers);
}

/* the build report from its stored form (whose fibres string the caller has terminated) */
static void info_unpack(const cache_info *ci, hs_mesh_build_info *info)
{
    memset(info, 0, sizeof *info);
    info->have_surface = ci->have_surface != 0;
    if (info->have_surface) info->surface = ci->surface;
    info->expected_volume = ci->expected_volume;
    info->expected_what = ci->expected_what > 0 && ci->expected_what < 4 ? expected_whats[ci->expected_what] : NULL;
    if (!info->expected_what) info->expected_volume = 0.0;
    info->seconds_mesh = ci->seconds_mesh;
    info->reorder = ci->reorder;
    snprintf(info->fibers, sizeof info->fibers, "%s", ci->fibers);
}

/* ---- the key --------------------------------------------------------------------------------- */

static uint64_t h_d(uint64_t h, double v)
{
    if (v == 0.0) v = 0.0;
    return hs_fnv1a64(h, &v, sizeof v);
}
static uint64_t h_i(uint64_t h, int64_t v) { return hs_fnv1a64(h, &v, sizeof v); }
static uint64_t h_s(uint64_t h, const char *s) { return hs_fnv1a64(h, s, strlen(s) + 1); }

/* the bytes of a file (mesh.file, fibers.file); a TetGen prefix names two files */
static hs_status h_file(uint64_t *h, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return HS_FAIL(HS_ERR_IO, "mesh cache: cannot read %s: %s", path, strerror(errno));
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) *h = hs_fnv1a64(*h, buf, n);
    int bad = ferror(f);
    fclose(f);
    HS_CHECK(!bad, HS_ERR_IO, "mesh cache: cannot read %s", path);
    return HS_OK;
}

hs_status hs_mesh_cache_key(const hs_mesh_spec *s, uint64_t *key)
{
    uint64_t h = h_s(HS_FNV_OFFSET, "heartsim mesh cache");
    h = h_i(h, HS_MESH_CACHE_VERSION);
    h = h_s(h, HS_VERSION);
    h = h_s(h, s->source ? s->source->name : "");
    h = h_d(h, s->box.lx), h = h_d(h, s->box.ly), h = h_d(h, s->box.lz), h = h_d(h, s->box.h);
    h = h_i(h, s->box.use_tetgen), h = h_d(h, s->box.tetgen_radius_edge);
    h = h_d(h, s->min_dihedral);
    h = h_s(h, s->file), h = h_d(h, s->scale), h = h_d(h, s->weld_tol), h = h_i(h, s->linearize);
    if (s->label_array[0]) h = h_s(h, s->label_array); /* hashed only when set: earlier keys stay valid */
    if (s->source && s->source->reads_file && s->file[0]) {
        if (!strcmp(s->source->name, "tetgen")) {
            char p[HS_PATH_MAX + 8];
            snprintf(p, sizeof p, "%s.node", s->file);
            HS_CALL(h_file(&h, p));
            snprintf(p, sizeof p, "%s.ele", s->file);
            HS_CALL(h_file(&h, p));
        } else {
            HS_CALL(h_file(&h, s->file));
        }
    }
    h = h_i(h, (int64_t)s->reorder);
    const hs_lv_params *l = &s->lv;
    h = h_d(h, l->rs_endo), h = h_d(h, l->rl_endo), h = h_d(h, l->rs_epi), h = h_d(h, l->rl_epi);
    h = h_d(h, l->z_base), h = h_d(h, l->helix_endo_deg), h = h_d(h, l->helix_epi_deg);
    h = h_i(h, (int64_t)s->fibers);
    for (int k = 0; k < 3; ++k) h = h_d(h, s->fiber_dir[k]);
    h = h_s(h, s->fiber_file), h = h_s(h, s->fiber_location);
    if (s->fibers == HS_FIBERS_FILE && s->fiber_file[0]) HS_CALL(h_file(&h, s->fiber_file));
    *key = h;
    return HS_OK;
}

void hs_mesh_cache_path(const char *dir, uint64_t key, char *buf, size_t size)
{
    size_t dl = strlen(dir);
    snprintf(buf, size, "%s%smesh_%016llx.hsmesh", dir, dl && dir[dl - 1] != '/' ? "/" : "", (unsigned long long)key);
}

/* ---- the payload, as one list of arrays (store and load walk the same list) -------------------- */

typedef struct part {
    void *p;
    size_t bytes;
} part;

static int parts_of(hs_mesh *m, int fibers, cache_info *ci, part *pt)
{
    const size_t nn = (size_t)m->n_nodes, ne = (size_t)m->n_elems, nb = (size_t)m->n_bfaces;
    int n = 0;
    pt[n++] = (part){m->xyz, sizeof(double) * 3 * nn};
    pt[n++] = (part){m->tets, sizeof(int32_t) * 4 * ne};
    pt[n++] = (part){m->region, sizeof(int32_t) * ne};
    if (fibers) pt[n++] = (part){m->fiber, sizeof(double) * 3 * ne};
    pt[n++] = (part){m->node_orig, sizeof(int32_t) * nn};
    pt[n++] = (part){m->bface, sizeof(int32_t) * 3 * nb};
    pt[n++] = (part){m->bface_label, sizeof(int32_t) * nb};
    pt[n++] = (part){m->label, sizeof(hs_mesh_label) * (size_t)m->n_labels};
    pt[n++] = (part){ci, sizeof *ci};
    return n;
}

static uint64_t header_sum(const cache_header *h) { return hs_fnv1a64(HS_FNV_OFFSET, h, offsetof(cache_header, header_sum)); }

hs_status hs_mesh_cache_store(const char *dir, uint64_t key, const hs_mesh *m0, const hs_mesh_build_info *info)
{
    HS_CHECK(m0->node_orig && m0->region, HS_ERR_INTERNAL, "mesh cache: a mesh without node_orig or region");
    HS_CALL(hs_dir_create(dir, "mesh cache directory"));
    char path[HS_PATH_MAX + 64];
    hs_mesh_cache_path(dir, key, path, sizeof path);
    hs_mesh *m = (hs_mesh *)m0; /* parts_of takes non-const pointers; nothing is written through them here */
    cache_info ci;
    info_pack(info, &ci);
    part pt[12];
    const int np = parts_of(m, m->fiber != NULL, &ci, pt);
    cache_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, cache_magic, 8);
    h.version = HS_MESH_CACHE_VERSION;
    h.endian = CACHE_ENDIAN;
    h.key = key;
    h.n_nodes = m->n_nodes, h.n_elems = m->n_elems, h.n_bfaces = m->n_bfaces, h.n_labels = m->n_labels;
    h.flags = m->fiber != NULL;
    uint64_t s = HS_FNV_OFFSET;
    for (int i = 0; i < np; ++i) {
        h.payload_bytes += pt[i].bytes;
        if (pt[i].bytes) s = hs_fnv1a64(s, pt[i].p, pt[i].bytes);
    }
    h.payload_sum = s;
    h.header_sum = header_sum(&h);
    /* The cache is shared by concurrent runs (a job array meshing the same geometry), and an atomic
     * file's temporary is DIR/.NAME.tmp: so each process writes NAME.PID atomically and renames that
     * to NAME, which replaces an entry another run wrote with the same bytes. */
    char mine[HS_PATH_MAX + 96];
    snprintf(mine, sizeof mine, "%s.%ld", path, (long)getpid());
    hs_atomic_file *f = NULL;
    HS_CALL(hs_atomic_file_create(mine, "mesh cache entry", &f));
    hs_status st = hs_atomic_file_write(f, &h, sizeof h);
    for (int i = 0; i < np && st == HS_OK; ++i)
        if (pt[i].bytes) st = hs_atomic_file_write(f, pt[i].p, pt[i].bytes);
    if (st != HS_OK) {
        hs_atomic_file_destroy(&f);
        return st;
    }
    HS_CALL(hs_atomic_file_commit(&f));
    if (rename(mine, path) != 0) {
        int err = errno;
        unlink(mine);
        return HS_FAIL(HS_ERR_IO, "cannot rename mesh cache entry %s to %s: %s", mine, path, strerror(err));
    }
    return HS_OK;
}

#define BAD(...) HS_FAIL(HS_ERR_IO, __VA_ARGS__)

hs_status hs_mesh_cache_load(const char *dir, uint64_t key, hs_mesh **out, hs_mesh_build_info *info, int *absent)
{
    *out = NULL;
    *absent = 0;
    char path[HS_PATH_MAX + 64];
    hs_mesh_cache_path(dir, key, path, sizeof path);
    FILE *fp = fopen(path, "rb");
    if (!fp && errno == ENOENT) {
        *absent = 1;
        return HS_ERR_IO;
    }
    if (!fp) return BAD("mesh cache entry %s: cannot read: %s", path, strerror(errno));
    hs_status st = HS_OK;
    hs_mesh *m = NULL;
    struct stat sb;
    long long size = fstat(fileno(fp), &sb) == 0 ? (long long)sb.st_size : -1;
    if (size >= 0 && !S_ISREG(sb.st_mode)) {
        /* fopen succeeds on a directory; its size (4096) is no statement about a cache entry */
        st = BAD("mesh cache entry %s is %s, not a file: remove it (the mesh cannot be stored there either)", path,
                 S_ISDIR(sb.st_mode) ? "a directory" : "a special file");
        goto fail;
    }
    cache_header h;
    if (fread(&h, 1, sizeof h, fp) != sizeof h) {
        st = BAD("mesh cache entry %s is truncated: %lld bytes, shorter than its header", path, size);
        goto fail;
    }
    if (memcmp(h.magic, cache_magic, 8) != 0) {
        st = BAD("%s is not a heartsim mesh cache entry (no HSMESH magic)", path);
        goto fail;
    }
    if (h.endian != CACHE_ENDIAN || h.version != HS_MESH_CACHE_VERSION) {
        st = BAD("mesh cache entry %s has another byte order or format version (%llu; this heartsim writes %u)", path,
                 (unsigned long long)h.version, HS_MESH_CACHE_VERSION);
        goto fail;
    }
    if (h.header_sum != header_sum(&h)) {
        st = BAD("mesh cache entry %s is damaged: header checksum mismatch", path);
        goto fail;
    }
    if (h.key != key) {
        st = BAD("mesh cache entry %s holds another mesh (key %016llx)", path, (unsigned long long)h.key);
        goto fail;
    }
    if (h.n_nodes < 4 || h.n_elems < 1 || h.n_bfaces < 0 || h.n_labels < 0 || h.n_nodes > INT32_MAX ||
        h.n_elems > INT32_MAX / 4 || h.n_bfaces > INT32_MAX / 3 || h.n_labels > HS_MESH_MAX_LABELS || h.flags > 1) {
        st = BAD("mesh cache entry %s is damaged: inconsistent sizes in its header", path);
        goto fail;
    }
    HS_CALL_GOTO(hs_mesh_alloc((int32_t)h.n_nodes, (int32_t)h.n_elems, &m), fail);
    if (h.n_bfaces) HS_CALL_GOTO(hs_mesh_alloc_bfaces(m, (int32_t)h.n_bfaces), fail);
    if (h.flags & 1) HS_CALL_GOTO(HS_ALLOC(m->fiber, 3 * (size_t)h.n_elems, "fibres"), fail);
    m->n_labels = (int)h.n_labels;
    cache_info ci;
    memset(&ci, 0, sizeof ci);
    part pt[12];
    const int np = parts_of(m, (int)(h.flags & 1), &ci, pt);
    uint64_t want = 0;
    for (int i = 0; i < np; ++i) want += pt[i].bytes;
    if (h.payload_bytes != want || size != (long long)(sizeof h + want)) {
        st = BAD("mesh cache entry %s is %s: %lld bytes, expected %lld", path,
                 size < (long long)(sizeof h + want) ? "truncated" : "damaged", size, (long long)(sizeof h + want));
        goto fail;
    }
    uint64_t s = HS_FNV_OFFSET;
    for (int i = 0; i < np; ++i) {
        if (!pt[i].bytes) continue;
        if (fread(pt[i].p, 1, pt[i].bytes, fp) != pt[i].bytes) {
            st = BAD("mesh cache entry %s: cannot read: %s", path, ferror(fp) ? strerror(errno) : "file shrank");
            goto fail;
        }
        s = hs_fnv1a64(s, pt[i].p, pt[i].bytes);
    }
    if (s != h.payload_sum) {
        st = BAD("mesh cache entry %s is damaged: payload checksum mismatch", path);
        goto fail;
    }
    for (int l = 0; l < m->n_labels; ++l) m->label[l].name[HS_MESH_LABEL_LEN - 1] = '\0';
    ci.fibers[sizeof ci.fibers - 1] = '\0';
    if (hs_mesh_check(m) != HS_OK) {
        char why[1024];
        snprintf(why, sizeof why, "%s", hs_error_message());
        hs_error_clear();
        st = BAD("mesh cache entry %s is damaged: %s", path, why);
        goto fail;
    }
    if (info) info_unpack(&ci, info);
    fclose(fp);
    *out = m;
    return HS_OK;
fail:
    fclose(fp);
    hs_mesh_destroy(&m);
    return st;
}

/* ---- the partitioned cache: one file per rank (hs_mesh_cache.h) ------------------------------ */

const char *hs_mesh_cache_parts_unfit(const hs_stimulus_cfg *sites, int n_sites, int n_regions)
{
    for (int k = 0; k < n_sites; ++k)
        if (sites[k].shape != HS_STIM_BOX && sites[k].shape != HS_STIM_SPHERE)
            return "stimulus sites other than shape = \"box\" or \"sphere\" are found on the whole mesh";
    if (n_regions > 0) return "regions are found on the whole mesh";
    return NULL;
}

void hs_mesh_cache_parts_path(const char *dir, uint64_t key, const char *partitioner, int n_ranks, char *buf,
                              size_t size)
{
    size_t dl = strlen(dir);
    snprintf(buf, size, "%s%smesh_%016llx_%s_n%d", dir, dl && dir[dl - 1] != '/' ? "/" : "", (unsigned long long)key,
             partitioner, n_ranks);
}

#if HS_HAS_MPI
static const char parts_magic[8] = {'H', 'S', 'P', 'A', 'R', 'T', '1', '\n'};

typedef struct parts_header {
    char magic[8];
    uint64_t version, endian, key, parts_key, stamp;
    int64_t rank, ranks, n_global, n_elems_global;
    uint64_t fingerprint;
    int64_t n_nodes, n_elems;
    uint64_t flags, payload_bytes, payload_sum, header_sum;
} parts_header;
_Static_assert(sizeof(parts_header) == 17 * 8, "partitioned cache header has no padding");

/* a rank's part as stored: nodes by global number and owner, elements by global number */
typedef struct part_arrays {
    int64_t *ngid, *egid;
    int32_t *owner, *norig, *tets, *region;
    double *xyz, *fiber;
} part_arrays;

static int part_list(const part_arrays *a, int64_t nn, int64_t ne, int fibers, cache_info *ci, part *pt)
{
    int n = 0;
    pt[n++] = (part){a->ngid, sizeof(int64_t) * (size_t)nn};
    pt[n++] = (part){a->owner, sizeof(int32_t) * (size_t)nn};
    pt[n++] = (part){a->norig, sizeof(int32_t) * (size_t)nn};
    pt[n++] = (part){a->xyz, sizeof(double) * 3 * (size_t)nn};
    pt[n++] = (part){a->egid, sizeof(int64_t) * (size_t)ne};
    pt[n++] = (part){a->tets, sizeof(int32_t) * 4 * (size_t)ne};
    pt[n++] = (part){a->region, sizeof(int32_t) * (size_t)ne};
    if (fibers) pt[n++] = (part){a->fiber, sizeof(double) * 3 * (size_t)ne};
    pt[n++] = (part){ci, sizeof *ci};
    return n;
}

static uint64_t parts_header_sum(const parts_header *h)
{
    return hs_fnv1a64(HS_FNV_OFFSET, h, offsetof(parts_header, header_sum));
}

/* the key of a partitioned entry: the mesh's, the partitioner's name, the rank count */
static uint64_t parts_key(uint64_t key, const char *partitioner, int n_ranks)
{
    uint64_t h = h_i(h_s(HS_FNV_OFFSET, "heartsim partitioned mesh cache"), HS_MESH_PARTS_VERSION);
    return h_i(h_s(h_i(h, (int64_t)key), partitioner), n_ranks);
}

static void part_file(const char *entry, int rank, char *buf, size_t size)
{
    snprintf(buf, size, "%s/part_%d.hspart", entry, rank);
}

/* this rank's file of the entry: its view (l2g, owners) and local mesh */
static hs_status write_part(const char *entry, const parts_header *h0, const hs_backend_mpi_part *bp,
                            const cache_info *ci0)
{
    const hs_part_local *l = bp->l;
    const hs_mesh *lm = bp->lmesh;
    const int64_t nn = (int64_t)l->n_owned + l->n_ghost, ne = l->n_elems;
    HS_CHECK(lm->n_nodes == nn && lm->n_elems == ne && lm->node_orig && lm->region, HS_ERR_INTERNAL,
             "partitioned mesh cache: a part whose mesh is not its view's");
    hs_status st = HS_OK;
    part_arrays a;
    memset(&a, 0, sizeof a);
    a.ngid = l->l2g;
    a.egid = l->elems;
    a.norig = lm->node_orig;
    a.xyz = lm->xyz;
    a.tets = lm->tets;
    a.region = lm->region;
    a.fiber = lm->fiber;
    HS_CALL(HS_ALLOC(a.owner, (size_t)nn + 1, "partitioned mesh cache"));
    for (int64_t i = 0; i < nn; ++i) a.owner[i] = i < l->n_owned ? l->rank : l->ghost_owner[i - l->n_owned];
    cache_info ci = *ci0;
    parts_header h = *h0;
    h.rank = l->rank;
    h.n_nodes = nn;
    h.n_elems = ne;
    h.flags = lm->fiber != NULL;
    part pt[12];
    const int np = part_list(&a, nn, ne, lm->fiber != NULL, &ci, pt);
    uint64_t s = HS_FNV_OFFSET;
    for (int i = 0; i < np; ++i) {
        h.payload_bytes += pt[i].bytes;
        if (pt[i].bytes) s = hs_fnv1a64(s, pt[i].p, pt[i].bytes);
    }
    h.payload_sum = s;
    h.header_sum = parts_header_sum(&h);
    char path[HS_PATH_MAX + 128], mine[HS_PATH_MAX + 160];
    part_file(entry, l->rank, path, sizeof path);
    snprintf(mine, sizeof mine, "%s.%ld", path, (long)getpid()); /* as hs_mesh_cache_store: concurrent runs */
    hs_atomic_file *f = NULL;
    st = hs_atomic_file_create(mine, "partitioned mesh cache entry", &f);
    if (st == HS_OK) st = hs_atomic_file_write(f, &h, sizeof h);
    for (int i = 0; i < np && st == HS_OK; ++i)
        if (pt[i].bytes) st = hs_atomic_file_write(f, pt[i].p, pt[i].bytes);
    if (st != HS_OK) hs_atomic_file_destroy(&f);
    if (st == HS_OK) st = hs_atomic_file_commit(&f);
    if (st == HS_OK && rename(mine, path) != 0) {
        int err = errno;
        unlink(mine);
        st = HS_FAIL(HS_ERR_IO, "cannot rename %s to %s: %s", mine, path, strerror(err));
    }
    free(a.owner);
    return st;
}

static void part_arrays_free(part_arrays *a)
{
    free(a->ngid);
    free(a->egid);
    free(a->owner);
    free(a->norig);
    free(a->tets);
    free(a->region);
    free(a->xyz);
    free(a->fiber);
    memset(a, 0, sizeof *a);
}

/* this rank's file: 0 read and checked (a, h, ci filled), 1 absent, 2 damaged or of another entry
 * (the reason recorded as the error) */
static int read_part(const char *entry, const parts_header *want, part_arrays *a, parts_header *h, cache_info *ci)
{
    memset(a, 0, sizeof *a);
    char path[HS_PATH_MAX + 128];
    part_file(entry, (int)want->rank, path, sizeof path);
    FILE *fp = fopen(path, "rb");
    if (!fp && errno == ENOENT) return 1;
    if (!fp) {
        BAD("%s: cannot read: %s", path, strerror(errno));
        return 2;
    }
    struct stat sb;
    const long long size = fstat(fileno(fp), &sb) == 0 && S_ISREG(sb.st_mode) ? (long long)sb.st_size : -1;
    int bad = 1;
    if (size < 0) BAD("%s is not a file", path);
    else if (fread(h, 1, sizeof *h, fp) != sizeof *h) BAD("%s is truncated: %lld bytes, shorter than its header", path, size);
    else if (memcmp(h->magic, parts_magic, 8) != 0) BAD("%s is not a part of a partitioned mesh (no HSPART magic)", path);
    else if (h->endian != CACHE_ENDIAN || h->version != HS_MESH_PARTS_VERSION)
        BAD("%s has another byte order or format version (%llu; this heartsim writes %u)", path,
            (unsigned long long)h->version, HS_MESH_PARTS_VERSION);
    else if (h->header_sum != parts_header_sum(h)) BAD("%s is damaged: header checksum mismatch", path);
    else if (h->key != want->key || h->parts_key != want->parts_key || h->rank != want->rank || h->ranks != want->ranks)
        BAD("%s holds another part (mesh key %016llx, rank %lld of %lld; this run wants %016llx, rank %lld of %lld)",
            path, (unsigned long long)h->key, (long long)h->rank, (long long)h->ranks, (unsigned long long)want->key,
            (long long)want->rank, (long long)want->ranks);
    else if (h->n_nodes < 1 || h->n_elems < 1 || h->n_nodes > INT32_MAX || h->n_elems > INT32_MAX / 4 ||
             h->n_global < h->n_nodes || h->n_global > INT32_MAX || h->n_elems_global < h->n_elems ||
             h->n_elems_global > INT32_MAX || h->flags > 1)
        BAD("%s is damaged: inconsistent sizes in its header", path);
    else bad = 0;
    hs_status st = HS_OK;
    if (!bad) {
        const size_t nn = (size_t)h->n_nodes, ne = (size_t)h->n_elems;
        st = HS_ALLOC(a->ngid, nn, "partitioned mesh cache");
        if (st == HS_OK) st = HS_ALLOC(a->owner, nn, "partitioned mesh cache");
        if (st == HS_OK) st = HS_ALLOC(a->norig, nn, "partitioned mesh cache");
        if (st == HS_OK) st = HS_ALLOC(a->xyz, 3 * nn, "partitioned mesh cache");
        if (st == HS_OK) st = HS_ALLOC(a->egid, ne, "partitioned mesh cache");
        if (st == HS_OK) st = HS_ALLOC(a->tets, 4 * ne, "partitioned mesh cache");
        if (st == HS_OK) st = HS_ALLOC(a->region, ne, "partitioned mesh cache");
        if (st == HS_OK && h->flags) st = HS_ALLOC(a->fiber, 3 * ne, "partitioned mesh cache");
        bad = st != HS_OK;
    }
    if (!bad) {
        part pt[12];
        memset(ci, 0, sizeof *ci);
        const int np = part_list(a, h->n_nodes, h->n_elems, (int)h->flags, ci, pt);
        uint64_t want_bytes = 0;
        for (int i = 0; i < np; ++i) want_bytes += pt[i].bytes;
        if (h->payload_bytes != want_bytes || size != (long long)(sizeof *h + want_bytes)) {
            BAD("%s is %s: %lld bytes, expected %lld", path, size < (long long)(sizeof *h + want_bytes) ? "truncated" : "damaged",
                size, (long long)(sizeof *h + want_bytes));
            bad = 1;
        }
        uint64_t s = HS_FNV_OFFSET;
        for (int i = 0; i < np && !bad; ++i) {
            if (!pt[i].bytes) continue;
            if (fread(pt[i].p, 1, pt[i].bytes, fp) != pt[i].bytes) {
                BAD("%s: cannot read: %s", path, ferror(fp) ? strerror(errno) : "file shrank");
                bad = 1;
            }
            s = hs_fnv1a64(s, pt[i].p, pt[i].bytes);
        }
        if (!bad && s != h->payload_sum) {
            BAD("%s is damaged: payload checksum mismatch", path);
            bad = 1;
        }
        ci->fibers[sizeof ci->fibers - 1] = '\0';
    }
    fclose(fp);
    if (bad) part_arrays_free(a);
    return bad ? 2 : 0;
}

/* the rank's view, local mesh (in the view's numbering) and sites from its stored part */
static hs_status part_from_arrays(const parts_header *h, const part_arrays *a, int ranks,
                                  const hs_stimulus_cfg *sites, int n_sites, int64_t *count, hs_backend_mpi_part *bp)
{
    hs_status st = HS_OK;
    const int32_t nn = (int32_t)h->n_nodes, ne = (int32_t)h->n_elems;
    int32_t *nl = NULL, *el = NULL;
    hs_mesh *lm = NULL;
    for (int32_t i = 0; i < nn; ++i)
        HS_CHECK(a->owner[i] >= 0 && a->owner[i] < ranks && a->ngid[i] >= 0 && a->ngid[i] < h->n_global, HS_ERR_IO,
                 "partitioned mesh cache: rank %d's part is damaged: node %d", (int)h->rank, (int)i);
    for (int64_t k = 0; k < 4 * (int64_t)ne; ++k)
        HS_CHECK(a->tets[k] >= 0 && a->tets[k] < nn, HS_ERR_IO, "partitioned mesh cache: rank %d's part is damaged: "
                 "element %lld", (int)h->rank, (long long)(k / 4));
    /* the stored order: the view was stored in its local order (write_part), which may be a key's
     * (local RCM: nodes and elements) rather than the global one; read back in that order */
    HS_CALL(HS_ALLOC(nl, (size_t)nn + 1, "rank part"));
    HS_CALL_GOTO(HS_ALLOC(el, (size_t)ne + 1, "rank part"), done);
    HS_CALL_GOTO(hs_part_local_create_part_stored(h->n_global, nn, a->ngid, a->owner, ne, a->egid, a->tets, ranks,
                                                  (int)h->rank, &bp->l, nl, el), done);
    const hs_part_local *l = bp->l;
    HS_CHECK_GOTO(l->n_elems == ne, done, HS_ERR_IO, "partitioned mesh cache: rank %d's part holds elements "
                  "without an owned node", (int)h->rank);
    HS_CALL_GOTO(hs_mesh_alloc(l->n_owned + l->n_ghost, l->n_elems, &lm), done);
    for (int32_t i = 0; i < nn; ++i) {
        if (nl[i] < 0) continue;
        memcpy(lm->xyz + 3 * (size_t)nl[i], a->xyz + 3 * (size_t)i, 3 * sizeof(double));
        lm->node_orig[nl[i]] = a->norig[i];
    }
    memcpy(lm->tets, l->tets, 4 * sizeof(int32_t) * (size_t)ne);
    if (a->fiber) HS_CALL_GOTO(HS_ALLOC(lm->fiber, 3 * (size_t)ne + 3, "rank part fibres"), done);
    for (int32_t e = 0; e < ne; ++e) {
        lm->region[el[e]] = a->region[e];
        if (a->fiber) memcpy(lm->fiber + 3 * (size_t)el[e], a->fiber + 3 * (size_t)e, 3 * sizeof(double));
    }
    HS_CALL_GOTO(hs_mesh_check(lm), done);
    HS_CALL_GOTO(hs_stim_set_create_part(lm, sites, n_sites, count, &bp->lstim), done);
    bp->lmesh = lm;
    lm = NULL;
    bp->n_elems_global = h->n_elems_global;
done:
    hs_mesh_destroy(&lm);
    free(nl);
    free(el);
    return st;
}

/* rank 0's key of @p spec, given to every rank; 0 and *ok = 0 when it cannot be made (an unreadable
 * input, which the build reports) */
static uint64_t parts_mesh_key(const hs_mesh_spec *spec, int rank, int *ok)
{
    uint64_t k[2] = {0, 0};
    if (rank == 0) {
        k[1] = hs_mesh_cache_key(spec, &k[0]) == HS_OK;
        hs_error_clear();
    }
    if (MPI_Bcast(k, 2, MPI_UINT64_T, 0, hs_par_comm()) != MPI_SUCCESS) k[1] = 0;
    *ok = k[1] != 0;
    return k[0];
}
#endif

hs_status hs_mesh_cache_parts_store(const hs_mesh_spec *spec, const char *partitioner,
                                    const struct hs_backend_mpi_part *bp, int64_t n_elems_global,
                                    uint64_t fingerprint, const hs_mesh_build_info *info, char *path, size_t size)
{
    path[0] = '\0';
#if HS_HAS_MPI
    int rank = 0, ranks = 1, ok = 0;
    MPI_Comm_rank(hs_par_comm(), &rank);
    MPI_Comm_size(hs_par_comm(), &ranks);
    const double t0 = hs_wtime();
    const uint64_t key = parts_mesh_key(spec, rank, &ok);
    if (!ok) return HS_OK; /* no key, no entry (the build said why the input is unreadable) */
    char entry[HS_PATH_MAX + 64]; /* as hs_mesh_build_info.cache_path */
    hs_mesh_cache_parts_path(spec->cache_dir, key, partitioner, ranks, entry, sizeof entry);
    parts_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, parts_magic, 8);
    h.version = HS_MESH_PARTS_VERSION;
    h.endian = CACHE_ENDIAN;
    h.key = key;
    h.parts_key = parts_key(key, partitioner, ranks);
    h.ranks = ranks;
    h.n_global = bp->l->n_global;
    h.n_elems_global = n_elems_global;
    h.fingerprint = fingerprint;
    /* the stamp names this store: a load takes the ranks' files only when all carry the same */
    if (rank == 0) {
        const double t = hs_wtime();
        h.stamp = h_i(h_d(h_i(HS_FNV_OFFSET, (int64_t)getpid()), t), (int64_t)key);
    }
    hs_status st = MPI_Bcast(&h.stamp, 1, MPI_UINT64_T, 0, hs_par_comm()) == MPI_SUCCESS
                       ? HS_OK : HS_FAIL(HS_ERR_INTERNAL, "MPI_Bcast failed");
    if (st == HS_OK && rank == 0) st = hs_dir_create(entry, "partitioned mesh cache directory");
    st = hs_par_agree(st);
    cache_info ci;
    info_pack(info, &ci);
    if (st == HS_OK) st = hs_par_agree(write_part(entry, &h, bp, &ci));
    if (st != HS_OK) {
        /* the cache is a convenience: said once, the run goes on */
        hs_warn("partitioned mesh cache: %s (the run goes on; mesh.cache_parts = false turns it off)", hs_error_message());
        hs_error_clear(); /* and its agreed mark: the run goes on */
        return HS_OK;
    }
    snprintf(path, size, "%s", entry);
    hs_log(1, "mesh: each rank's part stored in the partitioned mesh cache %s (%d files, %.3f s)\n", entry, ranks,
           hs_wtime() - t0);
    return HS_OK;
#else
    (void)spec, (void)partitioner, (void)bp, (void)n_elems_global, (void)fingerprint, (void)info, (void)size;
    return HS_OK;
#endif
}

hs_status hs_mesh_cache_parts_load(const hs_mesh_spec *spec, const char *partitioner, const hs_stimulus_cfg *sites,
                                   int n_sites, struct hs_backend_mpi_part *bp, hs_mesh **counts,
                                   hs_stim_set **site_set, hs_mesh_build_info *info, int *hit)
{
    *hit = 0;
    *counts = NULL;
    *site_set = NULL;
#if HS_HAS_MPI
    memset(bp, 0, sizeof *bp);
    int rank = 0, ranks = 1, ok = 0;
    MPI_Comm_rank(hs_par_comm(), &rank);
    MPI_Comm_size(hs_par_comm(), &ranks);
    const uint64_t key = parts_mesh_key(spec, rank, &ok);
    if (!ok) return HS_OK;
    char entry[HS_PATH_MAX + 64]; /* as hs_mesh_build_info.cache_path */
    hs_mesh_cache_parts_path(spec->cache_dir, key, partitioner, ranks, entry, sizeof entry);
    parts_header want, h;
    memset(&want, 0, sizeof want);
    want.key = key;
    want.parts_key = parts_key(key, partitioner, ranks);
    want.rank = rank;
    want.ranks = ranks;
    part_arrays a;
    cache_info ci;
    const int state = read_part(entry, &want, &a, &h, &ci); /* 0 read, 1 absent, 2 damaged */
    const int worst = hs_par_max_int(state), best = -hs_par_max_int(-state);
    if (worst == 1 && best == 1) { /* no rank has a file: not stored yet */
        hs_log(1, "mesh: not in the partitioned mesh cache (%s: a mesh, partitioner or rank count not stored before, "
                  "or an input file that changed); reading, partitioning and scattering it, then storing the parts\n",
               entry);
        return HS_OK;
    }
    hs_status st = HS_OK;
    if (worst > 0) {
        /* some rank has no usable file: the first one's reason, said once; every rank rebuilds */
        char file[HS_PATH_MAX + 128];
        part_file(entry, rank, file, sizeof file);
        st = hs_par_agree(state == 0 ? HS_OK : state == 1 ? BAD("%s is missing", file) : HS_ERR_IO);
    } else {
        /* every rank read a file: of one store (the stamp), of one mesh, owning every node once */
        double v[8] = {(double)(h.stamp >> 32), (double)(h.stamp & 0xffffffffu), -(double)(h.stamp >> 32),
                       -(double)(h.stamp & 0xffffffffu), (double)h.n_global, -(double)h.n_global,
                       (double)h.fingerprint, -(double)h.fingerprint};
        hs_par_max_doubles(v, 8);
        int same = v[0] == -v[2] && v[1] == -v[3] && v[4] == -v[5] && v[6] == -v[7];
        double owned = 0.0;
        for (int64_t i = 0; i < h.n_nodes; ++i) owned += a.owner[i] == rank;
        hs_par_sum_doubles(&owned, 1);
        same = same && owned == (double)h.n_global;
        if (!same) st = hs_par_agree(rank == 0 ? BAD("%s mixes the parts of different runs", entry) : HS_ERR_IO);
    }
    if (st != HS_OK) {
        hs_warn("partitioned mesh cache: %s; rebuilding it", hs_error_message());
        hs_error_clear(); /* and its agreed mark: the run goes on */
        part_arrays_free(&a);
        return HS_OK;
    }
    /* the parts are whole: each rank's view, mesh and sites (a failure now is an error, not a miss) */
    int64_t cnt[HS_SPEC_MAX_STIMULI + 1] = {0};
    st = n_sites <= HS_SPEC_MAX_STIMULI ? HS_OK : HS_FAIL(HS_ERR_INTERNAL, "%d stimulus sites", n_sites);
    if (st == HS_OK) st = part_from_arrays(&h, &a, ranks, sites, n_sites, cnt, bp);
    part_arrays_free(&a);
    if (st == HS_OK) st = hs_mesh_part_sites(sites, n_sites, site_set);
    st = hs_par_agree(st);
    if (st == HS_OK) st = hs_mesh_part_sites_found(sites, n_sites, cnt);
    if (st == HS_OK) st = HS_ALLOC(*counts, 1, "mesh counts");
    st = hs_par_agree(st);
    if (st != HS_OK) {
        hs_backend_mpi_part_free(bp);
        hs_stim_set_destroy(site_set);
        free(*counts);
        *counts = NULL;
        return st;
    }
    (*counts)->n_nodes = (int32_t)h.n_global;
    (*counts)->n_elems = (int32_t)h.n_elems_global;
    (*counts)->fingerprint = h.fingerprint;
    info_unpack(&ci, info);
    info->from_cache = 2;
    snprintf(info->cache_path, sizeof info->cache_path, "%s", entry);
    hs_log(1, "mesh: each rank's part from the partitioned mesh cache %s (%lld nodes, %lld tetrahedra over %d ranks; "
              "not read, partitioned or scattered again); rank 0's part: %d nodes, %d tetrahedra\n",
           entry, (long long)h.n_global, (long long)h.n_elems_global, ranks, (int)bp->lmesh->n_nodes,
           (int)bp->lmesh->n_elems);
    hs_log(1, "fibres: %s\n", info->fibers);
    *hit = 1;
    return HS_OK;
#else
    (void)spec, (void)partitioner, (void)sites, (void)n_sites, (void)bp, (void)info;
    return HS_OK;
#endif
}
