/* Rows of a distributed data set streamed to rank 0 in global order, a chunk at a time
 * (hs_part_gather.h). */
#include "hs_gid_at.h"
#include "hs_part_gather.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_build_config.h"
#include "hs_util.h"
#if HS_HAS_MPI
#include <mpi.h>

#include "hs_mpi_status.h"

enum {
    GATHER_CHUNK = 1 << 20,    /* global indices per chunk (hs_series_part.gather_chunk 0) */
    GATHER_CHUNK_MAX = 1 << 24 /* so that a chunk's message, (4 + 32) bytes a row, stays below 2^31 */
};

/* One kind of row (nodes or elements). */
typedef struct pg_rows {
    int32_t n;        /* this rank's rows */
    const int64_t *gid; /* [n] their global indices (the part's, borrowed) */
    int64_t n_global;
    int64_t n_chunks;
    int32_t *perm;    /* [n] the rank's index of the k-th smallest global index */
    int32_t *cbeg;    /* [n_chunks + 1] this rank's sorted rows in chunk c: cbeg[c] .. cbeg[c + 1] - 1 */
    int32_t *nrun;    /* [n_chunks] runs of consecutive global indices among them */
    int32_t *rcnt;    /* rank 0: [n_chunks][n_ranks] rows of each rank in chunk c */
    int32_t *wcnt;    /* rank 0: [n_chunks][n_ranks] int32 words saying where they go */
} pg_rows;

struct hs_part_gather {
    MPI_Comm comm;
    int rank, n_ranks;
    const hs_series_part *pt;
    int64_t chunk;       /* global indices per chunk */
    int any_fiber;       /* some rank has fibres */
    pg_rows node, elem;
    unsigned char *send; /* [chunk][4 + ROW_MAX]: this rank's message of one chunk */
    unsigned char *recv; /* rank 0: [chunk][4 + ROW_MAX]: the ranks' messages of one chunk */
    unsigned char *rows; /* rank 0: [chunk][ROW_MAX]: a chunk's rows in global order */
    unsigned char *seen; /* rank 0, set-up only: [chunk] rows of a chunk placed */
    int *cnt, *dsp;      /* rank 0: [n_ranks] bytes of each rank's message */
    int32_t *pairs;      /* rank 0, set-up only: [n_ranks][2] rows and placement words of each rank */
};

static void rows_free(pg_rows *r)
{
    free(r->perm);
    free(r->cbeg);
    free(r->nrun);
    free(r->rcnt);
    free(r->wcnt);
}

void hs_part_gather_destroy(hs_part_gather **p)
{
    if (!p || !*p) return;
    hs_part_gather *g = *p;
    rows_free(&g->node);
    rows_free(&g->elem);
    free(g->send);
    free(g->recv);
    free(g->rows);
    free(g->seen);
    free(g->pairs);
    free(g->cnt);
    free(g->dsp);
    if (g->comm != MPI_COMM_NULL) MPI_Comm_free(&g->comm);
    free(g);
    *p = NULL;
}

int hs_part_gather_rank(const hs_part_gather *g) { return g->rank; }

const hs_series_part *hs_part_gather_part(const hs_part_gather *g) { return g->pt; }

int hs_part_gather_has_fiber(const hs_part_gather *g) { return g->any_fiber; }

int hs_part_gather_mesh_arrays(const hs_part_gather *g, const hs_frame *frame)
{
    return frame->mesh_fields & ((g->any_fiber ? HS_MESH_FIELD_FIBER : 0) | HS_MESH_FIELD_REGION);
}

hs_status hs_part_gather_agree_root(hs_part_gather *g, hs_status st)
{
    int code = (int)st;
    char msg[2048] = "";
    if (g->rank == 0 && st != HS_OK) snprintf(msg, sizeof msg, "%s", hs_error_message());
    MPI_Bcast(&code, 1, MPI_INT, 0, g->comm);
    if (code == HS_OK) return HS_OK;
    MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, 0, g->comm);
    hs_error_clear();
    return hs_error_set((hs_status)code, __FILE__, __LINE__, __func__, "%s", msg);
}

hs_status hs_part_gather_agree_any(hs_part_gather *g, hs_status st) { return hs_mpi_agree(g->comm, st, NULL); }

void hs_part_gather_bcast(hs_part_gather *g, void *buf, int bytes) { MPI_Bcast(buf, bytes, MPI_BYTE, 0, g->comm); }

/* Where the rank's rows of chunk c go, into @p w (int32 words): runs (start, length) of offsets in
 * the chunk when they are fewer than half the rows, else each row's offset. @return the words. */
static int encode_place(const pg_rows *r, int64_t c, int64_t c0, int32_t *w)
{
    const int32_t k0 = r->cbeg[c], m = r->cbeg[c + 1] - k0;
    int n = 0;
    if (2 * r->nrun[c] < m) {
        for (int32_t k = 0; k < m; ++k) {
            const int32_t off = (int32_t)(r->gid[r->perm[k0 + k]] - c0);
            if (k > 0 && off == w[n - 2] + w[n - 1]) {
                ++w[n - 1];
            } else {
                w[n++] = off;
                w[n++] = 1;
            }
        }
    } else {
        for (int32_t k = 0; k < m; ++k) w[n++] = (int32_t)(r->gid[r->perm[k0 + k]] - c0);
    }
    return n;
}

/* Words of a rank's placement for m rows in nrun runs (encode_place's choice). */
static int32_t place_words(int32_t m, int32_t nrun) { return 2 * nrun < m ? 2 * nrun : m; }

/* Rank 0: the placement words @p w of @p m rows (@p nw words) as offsets, calling @p at for each
 * (offset in the chunk, index of the row in the message, rows) run. */
typedef void (*place_fn)(void *ctx, int32_t off, int32_t k, int32_t len);
static void decode_place(const int32_t *w, int32_t nw, int32_t m, place_fn at, void *ctx)
{
    if (nw < m) {
        for (int32_t j = 0, k = 0; j < nw; j += 2) {
            at(ctx, w[j], k, w[j + 1]);
            k += w[j + 1];
        }
    } else {
        for (int32_t k = 0; k < m; ++k) at(ctx, w[k], k, 1);
    }
}

typedef struct check_ctx {
    unsigned char *seen;
    int64_t len;
    int32_t bad; /* an offset outside the chunk or given twice, or -1 */
} check_ctx;

static void check_at(void *p, int32_t off, int32_t k, int32_t len)
{
    (void)k;
    check_ctx *c = p;
    for (int32_t j = 0; j < len; ++j) {
        const int64_t o = (int64_t)off + j;
        if (o < 0 || o >= c->len || c->seen[o]) {
            if (c->bad < 0) c->bad = (int32_t)(o < 0 ? 0 : o);
        } else {
            c->seen[o] = 1;
        }
    }
}

/* Sort the rank's rows, find their chunks and runs; rank 0 learns each rank's counts per chunk and
 * checks that the rows of each chunk cover it once. Collective. */
static hs_status rows_setup(hs_part_gather *g, pg_rows *r, int32_t n, const int64_t *gid, int64_t n_global,
                            const char *what)
{
    hs_status st = HS_OK;
    hs_gid_at *v = NULL;
    int32_t pair[2], *pairs = g->pairs;
    r->n = n;
    r->gid = gid;
    r->n_global = n_global;
    r->n_chunks = (n_global + g->chunk - 1) / g->chunk;
    const int P = g->n_ranks;
    st = HS_ALLOC(v, (size_t)n + 1, "output stream");
    if (st == HS_OK) st = HS_ALLOC(r->perm, (size_t)n + 1, "output stream");
    if (st == HS_OK) st = HS_ALLOC(r->cbeg, (size_t)r->n_chunks + 2, "output stream");
    if (st == HS_OK) st = HS_ALLOC(r->nrun, (size_t)r->n_chunks + 1, "output stream");
    if (st == HS_OK && g->rank == 0) st = HS_ALLOC(r->rcnt, (size_t)r->n_chunks * (size_t)P + 1, "output stream");
    if (st == HS_OK && g->rank == 0) st = HS_ALLOC(r->wcnt, (size_t)r->n_chunks * (size_t)P + 1, "output stream");
    for (int32_t i = 0; i < n && st == HS_OK; ++i) {
        if (gid[i] < 0 || gid[i] >= n_global)
            st = HS_FAIL(HS_ERR_INTERNAL, "output gather: %s %d has global index %lld outside [0, %lld)", what, (int)i,
                         (long long)gid[i], (long long)n_global);
        else
            v[i] = (hs_gid_at){gid[i], i};
    }
    if (st == HS_OK) {
        qsort(v, (size_t)n, sizeof *v, hs_gid_at_cmp);
        for (int32_t k = 0; k < n; ++k) {
            r->perm[k] = v[k].i;
            if (k > 0 && v[k].gid == v[k - 1].gid && st == HS_OK)
                st = HS_FAIL(HS_ERR_INTERNAL, "output gather: global index %lld given to two %ss of a rank",
                             (long long)v[k].gid, what);
        }
        for (int64_t c = 0, k = 0; c < r->n_chunks; ++c) {
            r->cbeg[c] = (int32_t)k;
            int32_t runs = 0;
            for (; k < n && v[k].gid < (c + 1) * g->chunk; ++k) runs += k == r->cbeg[c] || v[k].gid != v[k - 1].gid + 1;
            r->nrun[c] = runs;
        }
        r->cbeg[r->n_chunks] = n;
    }
    free(v);
    /* every rank's own rows first: a rank's failure (memory, its indices) stops every rank here */
    HS_CALL(hs_part_gather_agree_any(g, st));
    int32_t *w = (int32_t *)g->send;
    for (int64_t c = 0; c < r->n_chunks; ++c) {
        const int64_t c0 = c * g->chunk, len = c0 + g->chunk < n_global ? g->chunk : n_global - c0;
        pair[0] = r->cbeg[c + 1] - r->cbeg[c];
        pair[1] = place_words(pair[0], r->nrun[c]);
        MPI_Gather(pair, 2, MPI_INT32_T, pairs, 2, MPI_INT32_T, 0, g->comm);
        const int nw = encode_place(r, c, c0, w);
        int total = 0;
        if (g->rank == 0)
            for (int q = 0; q < P; ++q) {
                r->rcnt[c * P + q] = pairs[2 * q];
                r->wcnt[c * P + q] = pairs[2 * q + 1];
                g->cnt[q] = 4 * pairs[2 * q + 1];
                g->dsp[q] = total;
                total += g->cnt[q];
            }
        MPI_Gatherv(w, 4 * nw, MPI_BYTE, g->recv, g->cnt, g->dsp, MPI_BYTE, 0, g->comm);
        if (g->rank != 0 || st != HS_OK) continue;
        check_ctx cc = {g->seen, len, -1};
        memset(g->seen, 0, (size_t)len);
        int64_t got = 0;
        for (int q = 0; q < P; ++q) {
            decode_place((const int32_t *)(g->recv + g->dsp[q]), pairs[2 * q + 1], pairs[2 * q], check_at, &cc);
            got += pairs[2 * q];
        }
        if (got != len || cc.bad >= 0)
            st = HS_FAIL(HS_ERR_INTERNAL, "output gather: %lld %ss hold global indices [%lld, %lld), expected %lld "
                         "each once%s", (long long)got, what, (long long)c0, (long long)(c0 + len), (long long)len,
                         cc.bad >= 0 ? " (one given twice, or outside)" : "");
    }
    return st;
}

hs_status hs_part_gather_create(const hs_series_part *part, hs_part_gather **out)
{
    hs_part_gather *g = NULL;
    *out = NULL;
    g = calloc(1, sizeof *g);
    /* one rank without it must not leave the others waiting in the collectives below: agreed */
    HS_CALL(hs_mpi_agree(*(const MPI_Comm *)part->comm,
                         g ? HS_OK : HS_FAIL(HS_ERR_MEMORY, "out of memory for the output gather"), NULL));
    g->pt = part;
    if (MPI_Comm_dup(*(const MPI_Comm *)part->comm, &g->comm) != MPI_SUCCESS) {
        g->comm = MPI_COMM_NULL;
        hs_part_gather_destroy(&g);
        return HS_FAIL(HS_ERR_INTERNAL, "output gather: MPI_Comm_dup failed");
    }
    MPI_Comm_rank(g->comm, &g->rank);
    MPI_Comm_size(g->comm, &g->n_ranks);
    hs_status st = HS_OK;
    if (part->n_nodes_global > INT32_MAX || part->n_elems_global > INT32_MAX)
        st = HS_FAIL(HS_ERR_CONFIG, "output gather: %lld nodes, %lld elements: the legacy formats' files hold 32-bit "
                     "counts and node indices", (long long)part->n_nodes_global, (long long)part->n_elems_global);
    g->chunk = part->gather_chunk > 0 ? part->gather_chunk : GATHER_CHUNK;
    if (g->chunk > GATHER_CHUNK_MAX) g->chunk = GATHER_CHUNK_MAX;
    const size_t msg = (size_t)g->chunk * (4 + HS_PART_GATHER_ROW_MAX);
    if (st == HS_OK) st = HS_ALLOC(g->send, msg, "output stream");
    if (st == HS_OK && g->rank == 0) st = HS_ALLOC(g->recv, msg, "output stream");
    if (st == HS_OK && g->rank == 0) st = HS_ALLOC(g->rows, (size_t)g->chunk * HS_PART_GATHER_ROW_MAX, "output stream");
    if (st == HS_OK && g->rank == 0) st = HS_ALLOC(g->seen, (size_t)g->chunk, "output stream");
    if (st == HS_OK && g->rank == 0) st = HS_ALLOC(g->pairs, 2 * (size_t)g->n_ranks, "output stream");
    if (st == HS_OK) st = HS_ALLOC(g->cnt, (size_t)g->n_ranks, "output stream");
    if (st == HS_OK) st = HS_ALLOC(g->dsp, (size_t)g->n_ranks, "output stream");
    int fib = part->fiber != NULL;
    MPI_Allreduce(&fib, &g->any_fiber, 1, MPI_INT, MPI_MAX, g->comm);
    st = hs_part_gather_agree_any(g, st);
    if (st == HS_OK)
        st = hs_part_gather_agree_any(g, rows_setup(g, &g->node, part->n_nodes, part->node_gid, part->n_nodes_global,
                                                    "node"));
    if (st == HS_OK)
        st = hs_part_gather_agree_any(g, rows_setup(g, &g->elem, part->n_elems, part->elem_gid, part->n_elems_global,
                                                    "element"));
    free(g->seen); /* the set-up's check only */
    free(g->pairs);
    g->seen = NULL;
    g->pairs = NULL;
    if (st != HS_OK) {
        hs_part_gather_destroy(&g);
        return st;
    }
    *out = g;
    return HS_OK;
}

typedef struct place_ctx {
    unsigned char *dst;       /* the chunk's rows */
    const unsigned char *src; /* a rank's rows, in the order of their offsets */
    size_t row;
} place_ctx;

static void place_at(void *p, int32_t off, int32_t k, int32_t len)
{
    place_ctx *c = p;
    memcpy(c->dst + (size_t)off * c->row, c->src + (size_t)k * c->row, (size_t)len * c->row);
}

/* Row @p i of @p src into @p dst (@p row bytes): a copy, zeros (src NULL), or (narrow) the row's
 * row / 4 64-bit integers as int32, -1 for one outside [0, 2^31) (which the encoders' range checks
 * then name). */
static void pack_row(unsigned char *dst, const unsigned char *src, int32_t i, size_t row, int narrow)
{
    if (!src) {
        memset(dst, 0, row);
    } else if (!narrow) {
        memcpy(dst, src + (size_t)i * row, row);
    } else {
        const size_t w = row / 4;
        for (size_t j = 0; j < w; ++j) {
            int64_t v;
            memcpy(&v, src + ((size_t)i * w + j) * 8, 8);
            const int32_t x = v >= 0 && v <= INT32_MAX ? (int32_t)v : -1;
            memcpy(dst + 4 * j, &x, 4);
        }
    }
}

/* hs_part_gather_rows and _rows_i32: the rows as they are, or narrowed to int32 on the way. Rank 0
 * places its own rows in the chunk directly (it sends itself nothing); each other rank packs its rows of
 * the chunk behind their placement words, and rank 0 places them run by run. */
static hs_status rows_run(hs_part_gather *g, int cell, const void *src, size_t row, int narrow,
                          hs_part_gather_put put, void *ctx)
{
    const pg_rows *r = cell ? &g->elem : &g->node;
    const int P = g->n_ranks;
    hs_status st = HS_OK;
    if (row > HS_PART_GATHER_ROW_MAX) /* a program error, the same on every rank: nothing is sent */
        return g->rank == 0 ? HS_FAIL(HS_ERR_INTERNAL, "output gather: rows of %zu bytes", row) : HS_OK;
    for (int64_t c = 0; c < r->n_chunks; ++c) {
        const int64_t c0 = c * g->chunk, len = c0 + g->chunk < r->n_global ? g->chunk : r->n_global - c0;
        const int32_t k0 = r->cbeg[c], m = r->cbeg[c + 1] - k0;
        int nw = 0, bytes = 0;
        if (g->rank == 0) {
            for (int32_t k = 0; k < m; ++k) {
                const int32_t i = r->perm[k0 + k];
                pack_row(g->rows + (size_t)(r->gid[i] - c0) * row, src, i, row, narrow);
            }
            int total = 0;
            for (int q = 0; q < P; ++q) {
                g->cnt[q] = q ? 4 * r->wcnt[c * P + q] + r->rcnt[c * P + q] * (int)row : 0;
                g->dsp[q] = total;
                total += g->cnt[q];
            }
        } else {
            nw = encode_place(r, c, c0, (int32_t *)g->send);
            unsigned char *body = g->send + 4 * (size_t)nw;
            for (int32_t k = 0; k < m; ++k) pack_row(body + (size_t)k * row, src, r->perm[k0 + k], row, narrow);
            bytes = 4 * nw + m * (int)row;
        }
        MPI_Gatherv(g->send, bytes, MPI_BYTE, g->recv, g->cnt, g->dsp, MPI_BYTE, 0, g->comm);
        if (g->rank != 0 || st != HS_OK) continue;
        for (int q = 1; q < P; ++q) {
            const int32_t wq = r->wcnt[c * P + q], mq = r->rcnt[c * P + q];
            place_ctx pc = {g->rows, g->recv + g->dsp[q] + 4 * (size_t)wq, row};
            decode_place((const int32_t *)(g->recv + g->dsp[q]), wq, mq, place_at, &pc);
        }
        st = put(ctx, c0, len, g->rows);
    }
    return st;
}

hs_status hs_part_gather_rows(hs_part_gather *g, int cell, const void *src, size_t row, hs_part_gather_put put,
                              void *ctx)
{
    return rows_run(g, cell, src, row, 0, put, ctx);
}

hs_status hs_part_gather_rows_i32(hs_part_gather *g, int cell, const int64_t *src, int width, hs_part_gather_put put,
                                  void *ctx)
{
    return rows_run(g, cell, src, 4 * (size_t)width, 1, put, ctx);
}
#else
/* A build without MPI has no part series (hs_series_create_part refuses it): nothing calls these. */
hs_status hs_part_gather_create(const hs_series_part *part, hs_part_gather **out)
{
    (void)part;
    *out = NULL;
    return HS_FAIL(HS_ERR_INTERNAL, "output gather: a build without MPI");
}
void hs_part_gather_destroy(hs_part_gather **g)
{
    if (g) *g = NULL;
}
int hs_part_gather_rank(const hs_part_gather *g) { return (void)g, 0; }
const hs_series_part *hs_part_gather_part(const hs_part_gather *g) { return (void)g, NULL; }
int hs_part_gather_has_fiber(const hs_part_gather *g) { return (void)g, 0; }
int hs_part_gather_mesh_arrays(const hs_part_gather *g, const hs_frame *frame) { return (void)g, (void)frame, 0; }
hs_status hs_part_gather_agree_root(hs_part_gather *g, hs_status st) { return (void)g, st; }
hs_status hs_part_gather_agree_any(hs_part_gather *g, hs_status st) { return (void)g, st; }
void hs_part_gather_bcast(hs_part_gather *g, void *buf, int bytes) { (void)g, (void)buf, (void)bytes; }
hs_status hs_part_gather_rows(hs_part_gather *g, int cell, const void *src, size_t row, hs_part_gather_put put,
                              void *ctx)
{
    (void)g, (void)cell, (void)src, (void)row, (void)put, (void)ctx;
    return HS_FAIL(HS_ERR_INTERNAL, "output gather: a build without MPI");
}
hs_status hs_part_gather_rows_i32(hs_part_gather *g, int cell, const int64_t *src, int width, hs_part_gather_put put,
                                  void *ctx)
{
    (void)g, (void)cell, (void)src, (void)width, (void)put, (void)ctx;
    return HS_FAIL(HS_ERR_INTERNAL, "output gather: a build without MPI");
}
#endif
