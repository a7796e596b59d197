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
    memset(&ci, 0, sizeof ci);
    if (info) {
        ci.have_surface = info->have_surface;
        ci.expected_volume = info->expected_volume;
        for (int k = 1; k < 4; ++k)
            if (info->expected_what && !strcmp(info->expected_what, expected_whats[k])) ci.expected_what = k;
        ci.seconds_mesh = info->seconds_mesh;
        ci.reorder = info->reorder;
        if (info->have_surface) ci.surface = info->surface;
        snprintf(ci.fibers, sizeof ci.fibers, "%s", info->fibers);
    }
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
    if (info) {
        memset(info, 0, sizeof *info);
        info->have_surface = ci.have_surface != 0;
        if (info->have_surface) info->surface = ci.surface;
        info->expected_volume = ci.expected_volume;
        info->expected_what = ci.expected_what > 0 && ci.expected_what < 4 ? expected_whats[ci.expected_what] : NULL;
        if (!info->expected_what) info->expected_volume = 0.0;
        info->seconds_mesh = ci.seconds_mesh;
        info->reorder = ci.reorder;
        snprintf(info->fibers, sizeof info->fibers, "%s", ci.fibers);
    }
    fclose(fp);
    *out = m;
    return HS_OK;
fail:
    fclose(fp);
    hs_mesh_destroy(&m);
    return st;
}
