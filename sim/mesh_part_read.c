/* A file mesh that every rank reads a block of (hs_mesh_part.h: hs_mesh_part_read,
 * hs_mesh_part_from_blocks; parallel.read = "ranks", issue 26). No rank holds the whole mesh or an
 * array over its nodes or elements: each rank holds its blocks of the files, the elements with a
 * vertex among its block of nodes ("rows"), and at the end its part. The parts are those rank 0 would
 * send (hs_mesh_part_scatter: the same hs_part_packed arrays, unpacked by the same code).
 *
 * The steps, each an exchange between the ranks (all-to-all in bounded pieces):
 *  1. the fibre lines to the ranks holding their elements (fibre and element blocks differ);
 *  2. each element to the ranks holding its vertices' rows ("holders"), each distinct holder once:
 *     a holder then has every element using one of its nodes;
 *  3. the holders drop their unused nodes and number the others in file order (the blocks' counts
 *     summed: the global number is the serial reader's, hs_mesh_parts_finish), and ask the other
 *     holders for the new numbers of the foreign vertices of their elements;
 *  4. the partition of the used rows (hs_partition_rows_dist); the owners of foreign vertices asked
 *     like their numbers;
 *  5. each element to the owners of its vertices (sent by the first of its holders holding a vertex
 *     of that owner), each node to the ranks whose parts use it (by its holder, which has all its
 *     elements and their vertices' owners);
 *  6. each rank: its part in the arrays pack() makes (elements and nodes by increasing global
 *     number), the orientation of a wholly negative mesh swapped (counted over the ranks), its view
 *     and local mesh (hs_part_packed_unpack).
 * The local loops of each step run on the rank's OpenMP threads in chunks (n_chunks: one per thread),
 * each chunk filling the records from its own offsets (counted first, summed in chunk order), so the
 * arrays are the serial loop's whatever the number of chunks; a first bad item is the serial loop's
 * first (a min reduction). -v logs each step's local time on rank 0. */
#include "hs_mesh_part.h"

#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_build_config.h"
#include "hs_checkpoint.h"
#include "hs_hash.h"
#include "hs_par.h"
#include "hs_sim.h"
#include "hs_util.h"
#if HS_HAS_MPI
#include <mpi.h>

#include "hs_backend_mpi.h"
#include "hs_dist.h"
#include "mesh_part_internal.h"

/* bytes a pair of ranks exchanges per round of an all-to-all (MPI counts are int; messages bounded) */
#define PIECE_BYTES ((size_t)64 << 20)

/* The ranks and the scratch of their exchanges ([size] each: no array over the mesh). */
typedef struct xch {
    MPI_Comm comm;
    int rank, size;
    int *sc, *sd, *rc, *rd;
    int64_t *scnt, *rcnt, *so, *ro; /* records per rank sent, received; their offsets */
    double seconds;                 /* time in the exchanges */
} xch;

static void xch_free(xch *x)
{
    free(x->sc), free(x->sd), free(x->rc), free(x->rd);
    free(x->scnt), free(x->rcnt), free(x->so), free(x->ro);
}

static hs_status xch_init(xch *x)
{
    memset(x, 0, sizeof *x);
    x->comm = hs_par_comm();
    MPI_Comm_rank(x->comm, &x->rank);
    MPI_Comm_size(x->comm, &x->size);
    const size_t n = (size_t)x->size + 1;
    hs_status st = HS_ALLOC(x->sc, n, "exchange counts");
    if (st == HS_OK) st = HS_ALLOC(x->sd, n, "exchange counts");
    if (st == HS_OK) st = HS_ALLOC(x->rc, n, "exchange counts");
    if (st == HS_OK) st = HS_ALLOC(x->rd, n, "exchange counts");
    if (st == HS_OK) st = HS_ALLOC(x->scnt, n, "exchange counts");
    if (st == HS_OK) st = HS_ALLOC(x->rcnt, n, "exchange counts");
    if (st == HS_OK) st = HS_ALLOC(x->so, n, "exchange counts");
    if (st == HS_OK) st = HS_ALLOC(x->ro, n, "exchange counts");
    st = hs_par_agree(st);
    if (st != HS_OK) xch_free(x);
    return st;
}

/* x->rcnt from x->scnt (each rank's counts to each), and both offsets; *nr the records received. */
static hs_status xch_counts(xch *x, int64_t *nr)
{
    double t0 = hs_wtime();
    HS_MPI_CALL(MPI_Alltoall(x->scnt, 1, MPI_INT64_T, x->rcnt, 1, MPI_INT64_T, x->comm));
    int64_t s = 0, r = 0;
    for (int q = 0; q < x->size; ++q) {
        x->so[q] = s;
        x->ro[q] = r;
        s += x->scnt[q];
        r += x->rcnt[q];
    }
    x->so[x->size] = s;
    x->ro[x->size] = r;
    *nr = r;
    x->seconds += hs_wtime() - t0;
    return HS_OK;
}

/* Records of @p rs bytes: x->scnt[q] from @p sbuf (grouped by destination, increasing) to each rank
 * q; @p rbuf receives x->rcnt[q] from each (grouped by source). In rounds of at most PIECE_BYTES
 * per pair; counts and offsets in records (a contiguous type), so int suffices up to 2^31 records
 * a rank sends or receives in all (checked, over the ranks). Collective. */
static hs_status xch_data(xch *x, const void *sbuf, void *rbuf, size_t rs)
{
    double t0 = hs_wtime();
    const int64_t piece = (int64_t)(PIECE_BYTES / rs > 0 ? PIECE_BYTES / rs : 1);
    int64_t m[2] = {0, x->so[x->size] > INT_MAX || x->ro[x->size] > INT_MAX};
    for (int q = 0; q < x->size; ++q) {
        const int64_t c = x->scnt[q] > x->rcnt[q] ? x->scnt[q] : x->rcnt[q];
        if ((c + piece - 1) / piece > m[0]) m[0] = (c + piece - 1) / piece;
    }
    HS_MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, m, 2, MPI_INT64_T, MPI_MAX, x->comm));
    HS_CHECK(!m[1], HS_ERR_MESH, "a rank's share of the mesh is more than 2^31 - 1 records of an exchange; use "
             "more ranks");
    /* the records this rank sends itself, copied here on the threads (at 2 ranks about half the data), not by
     * MPI on one thread */
    {
        const int me = x->rank;
        const int64_t n = x->scnt[me] < x->rcnt[me] ? x->scnt[me] : x->rcnt[me]; /* equal */
        const size_t bytes = (size_t)n * rs;
        const int nc = bytes > ((size_t)1 << 22) ? omp_get_max_threads() : 1;
        const char *src = (const char *)sbuf + (size_t)x->so[me] * rs;
        char *dst = (char *)rbuf + (size_t)x->ro[me] * rs;
#pragma omp parallel for schedule(static, 1) if (nc > 1)
        for (int c = 0; c < nc; ++c) {
            const size_t step = bytes / (size_t)nc, lo = step * (size_t)c, hi = c == nc - 1 ? bytes : lo + step;
            if (hi > lo) memcpy(dst + lo, src + lo, hi - lo);
        }
    }
    MPI_Datatype t;
    HS_MPI_CALL(MPI_Type_contiguous((int)rs, MPI_BYTE, &t));
    HS_MPI_CALL(MPI_Type_commit(&t));
    int rc = MPI_SUCCESS;
    for (int64_t k = 0; k < m[0] && rc == MPI_SUCCESS; ++k) {
        const int64_t a = k * piece;
        for (int q = 0; q < x->size; ++q) {
            const int64_t s = q == x->rank ? 0 : x->scnt[q] - a, r = q == x->rank ? 0 : x->rcnt[q] - a;
            x->sc[q] = (int)(s <= 0 ? 0 : s < piece ? s : piece);
            x->rc[q] = (int)(r <= 0 ? 0 : r < piece ? r : piece);
            x->sd[q] = x->sc[q] ? (int)(x->so[q] + a) : 0;
            x->rd[q] = x->rc[q] ? (int)(x->ro[q] + a) : 0;
        }
        rc = MPI_Alltoallv(sbuf, x->sc, x->sd, t, rbuf, x->rc, x->rd, t, x->comm);
    }
    MPI_Type_free(&t);
    HS_MPI_CALL(rc);
    x->seconds += hs_wtime() - t0;
    return HS_OK;
}

/* The rank whose block [dist[q], dist[q+1]) holds @p v (dist [size + 1], increasing; empty blocks skipped). */
static int block_of(const int64_t *dist, int size, int64_t v)
{
    int lo = 0, hi = size; /* the last q with dist[q] <= v */
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        if (dist[mid] <= v) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* The index of @p v in the increasing @p a [n], or -1. */
static int64_t find_i64(const int64_t *a, int64_t n, int64_t v)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (a[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && a[lo] == v ? lo : -1;
}

/* The position of a global number among a part's increasing @p gid [n] in O(1) on average: the
 * numbers' range cut in at most n buckets of 2^shift numbers, first[b] the first position of bucket
 * b (no array over the whole mesh: a part's range may be the mesh's, its buckets are not more than
 * its nodes). */
typedef struct gid_index {
    const int64_t *gid;
    int64_t n, lo, nb;
    int shift;
    int64_t *first; /* [nb + 1] */
} gid_index;

static hs_status gid_index_make(const int64_t *gid, int64_t n, gid_index *x)
{
    x->gid = gid;
    x->n = n;
    x->lo = n ? gid[0] : 0;
    const int64_t range = n ? gid[n - 1] - gid[0] + 1 : 1;
    x->shift = 0;
    while ((range >> x->shift) > (n > 0 ? n : 1)) ++x->shift;
    x->nb = ((range - 1) >> x->shift) + 1;
    HS_CALL(HS_ALLOC(x->first, (size_t)x->nb + 1, "node index"));
    int64_t k = 0;
    for (int64_t bk = 0; bk <= x->nb; ++bk) {
        while (k < n && ((gid[k] - x->lo) >> x->shift) < bk) ++k;
        x->first[bk] = k;
    }
    return HS_OK;
}

static int64_t gid_index_find(const gid_index *x, int64_t g)
{
    if (x->n == 0 || g < x->lo || g > x->gid[x->n - 1]) return -1;
    const int64_t bk = (g - x->lo) >> x->shift;
    const int64_t lo = x->first[bk];
    const int64_t i = find_i64(x->gid + lo, x->first[bk + 1] - lo, g);
    return i < 0 ? -1 : lo + i;
}

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}


/* ---- the local loops on the rank's threads ----
 * A loop over n items runs in n_chunks(n) chunks (one per thread above HS_OMP_MIN items, else one), chunk c
 * being items [n c / nc, n (c + 1) / nc). The number of chunks depends on the threads, the records do not: each
 * chunk counts its records first and fills them from its offsets in each destination's run (chunk_offsets: the
 * counts summed in chunk order), so they land where the serial loop puts them, whatever the threads. */
static int n_chunks(int64_t n)
{
    const int t = omp_get_max_threads();
    return n > HS_OMP_MIN && t > 1 ? t : 1;
}

static int64_t chunk_lo(int64_t n, int nc, int c)
{
    return n / nc * c + n % nc * c / nc;
}

/* cnt [nc][stride >= P]: each chunk's records per destination; @p tot [P] (when not NULL) receives their sums,
 * then cnt each chunk's first position in each destination's run, the runs starting at @p so [P] (NULL: at 0). */
static void chunk_offsets(int64_t *cnt, int nc, int P, size_t stride, int64_t *tot, const int64_t *so)
{
    for (int q = 0; q < P; ++q) {
        int64_t off = so ? so[q] : 0, sum = 0;
        for (int c = 0; c < nc; ++c) {
            const int64_t t = cnt[(size_t)c * stride + q];
            cnt[(size_t)c * stride + q] = off + sum;
            sum += t;
        }
        if (tot) tot[q] = sum;
    }
}

/* @p a [n] sorted, each value once, into its first *m entries, on the threads: each chunk sorted and its repeats
 * dropped, the chunks' runs packed together, merged pairwise (a pass's pairs on the threads), the repeats across
 * runs dropped at the end. The one sorted set of values, whatever the threads. */
static hs_status sort_unique_i64(int64_t *a, int64_t n, int64_t *m)
{
    const int nc = n_chunks(n);
    int64_t *run = NULL, *tmp = NULL; /* [nc + 1] runs' starts */
    HS_CALL(HS_ALLOC(run, (size_t)nc + 1, "sort"));
#pragma omp parallel for schedule(static, 1) if (nc > 1)
    for (int ch = 0; ch < nc; ++ch) {
        const int64_t lo = chunk_lo(n, nc, ch), hi = chunk_lo(n, nc, ch + 1);
        qsort(a + lo, (size_t)(hi - lo), sizeof *a, cmp_i64);
        int64_t k = lo;
        for (int64_t i = lo; i < hi; ++i)
            if (k == lo || a[i] != a[k - 1]) a[k++] = a[i];
        run[ch + 1] = k - lo; /* its length, for now */
    }
    run[0] = 0;
    for (int ch = 0; ch < nc; ++ch) { /* packed in order: each run moves down (or stays) */
        const int64_t len = run[ch + 1];
        memmove(a + run[ch], a + chunk_lo(n, nc, ch), sizeof *a * (size_t)len);
        run[ch + 1] = run[ch] + len;
    }
    const int64_t total = run[nc];
    hs_status st = nc > 1 ? HS_ALLOC(tmp, (size_t)total + 1, "sort") : HS_OK;
    int64_t *src = a, *dst = tmp;
    for (int nr = nc; nr > 1 && st == HS_OK; nr = (nr + 1) / 2) {
#pragma omp parallel for schedule(dynamic, 1) if (nr > 2)
        for (int k = 0; k < nr; k += 2) {
            int64_t i = run[k], j = k + 1 < nr ? run[k + 1] : run[nr], o = run[k];
            const int64_t ie = j, je = k + 1 < nr ? run[k + 2] : run[nr];
            while (i < ie && j < je) dst[o++] = src[i] <= src[j] ? src[i++] : src[j++];
            while (i < ie) dst[o++] = src[i++];
            while (j < je) dst[o++] = src[j++];
        }
        for (int k = 0; k < nr; k += 2) run[k / 2] = run[k];
        run[(nr + 1) / 2] = total;
        int64_t *t = src;
        src = dst;
        dst = t;
    }
    if (st == HS_OK && src != a) memcpy(a, src, sizeof *a * (size_t)total);
    int64_t k = 0;
    for (int64_t i = 0; i < total; ++i)
        if (k == 0 || a[i] != a[k - 1]) a[k++] = a[i];
    *m = k;
    free(run);
    free(tmp);
    return st;
}

/* The order of @p n items in runs [run[k], run[k+1]) (k < n_runs), each increasing in @p key, merged:
 * ord [n], holding the items (indices into key) run after run, receives them by increasing key (keys
 * distinct). @p tmp [n] scratch; @p run is overwritten. */
static void merge_runs(const int64_t *key, int64_t n, int64_t *run, int n_runs, int32_t *ord, int32_t *tmp)
{
    while (n_runs > 1) {
        int k = 0, m = 0;
        for (; k + 1 < n_runs; k += 2) {
            int64_t a = run[k], b = run[k + 1], o = run[k];
            const int64_t ae = run[k + 1], be = run[k + 2];
            while (a < ae && b < be) tmp[o++] = key[ord[a]] < key[ord[b]] ? ord[a++] : ord[b++];
            while (a < ae) tmp[o++] = ord[a++];
            while (b < be) tmp[o++] = ord[b++];
            memcpy(ord + run[k], tmp + run[k], sizeof *ord * (size_t)(be - run[k]));
            run[m++] = run[k];
        }
        if (k < n_runs) run[m++] = run[k];
        run[m] = n;
        n_runs = m;
    }
}

/* merge_runs of the runs [run[k], run[k+1]) of items 0..n-1 into ord [n] on the threads: the keys cut at
 * splitters (keys of the longest run at even steps), each slice's pieces of the runs merged on its own into its
 * own part of ord. The keys are distinct: one increasing order, whatever the cut. @p tmp [n] scratch. */
static hs_status merge_runs_par(const int64_t *key, int64_t n, const int64_t *run, int n_runs, int32_t *ord,
                                int32_t *tmp)
{
    const int ns = n_runs > 1 ? n_chunks(n) : 1;
    const size_t w = (size_t)n_runs + 1;
    int64_t *cut = NULL, *lrun = NULL; /* [ns + 1][w]: slice s's piece of run k starts at cut[s][k]; [ns][w] */
    HS_CALL(HS_ALLOC(cut, ((size_t)ns + 1) * w, "part elements"));
    const hs_status st = HS_ALLOC(lrun, (size_t)ns * w, "part elements");
    if (st != HS_OK) {
        free(cut);
        return st;
    }
    int longest = 0;
    for (int k = 1; k < n_runs; ++k)
        if (run[k + 1] - run[k] > run[longest + 1] - run[longest]) longest = k;
    for (int s = 0; s <= ns; ++s)
        for (int k = 0; k < n_runs; ++k) {
            int64_t *cs = cut + (size_t)s * w;
            if (s == 0 || s == ns) {
                cs[k] = s == 0 ? run[k] : run[k + 1];
                continue;
            }
            const int64_t v = key[run[longest] + chunk_lo(run[longest + 1] - run[longest], ns, s)];
            int64_t lo = run[k], hi = run[k + 1]; /* the first key >= v */
            while (lo < hi) {
                const int64_t mid = lo + (hi - lo) / 2;
                if (key[mid] < v) lo = mid + 1;
                else hi = mid;
            }
            cs[k] = lo;
        }
#pragma omp parallel for schedule(static, 1) if (ns > 1)
    for (int s = 0; s < ns; ++s) {
        const int64_t *a = cut + (size_t)s * w, *z = a + w;
        int64_t *lr = lrun + (size_t)s * w;
        int64_t off = 0, m = 0; /* the slices before this one hold the items of each run before a[k] */
        for (int k = 0; k < n_runs; ++k) off += a[k] - run[k];
        for (int k = 0; k < n_runs; ++k) {
            lr[k] = m;
            for (int64_t i = a[k]; i < z[k]; ++i) ord[off + m++] = (int32_t)i;
        }
        lr[n_runs] = m;
        merge_runs(key, m, lr, n_runs, ord + off, tmp + off);
    }
    free(cut);
    free(lrun);
    return HS_OK;
}

/* The distinct holders of element @p t's vertices' rows (node blocks @p vtx [P + 1]), in vertex order, into h;
 * their number. */
static int elem_holders(const int64_t *t, const int64_t *vtx, int P, int h[4])
{
    int n = 0;
    for (int k = 0; k < 4; ++k) {
        const int q = block_of(vtx, P, t[k]);
        int seen = 0;
        for (int j = 0; j < n; ++j) seen |= h[j] == q;
        if (!seen) h[n++] = q;
    }
    return n;
}

/* The owners this rank sends element @p t (global numbers), @p o (its vertices' owners) to: each distinct owner
 * whose first holder among that owner's vertices is this rank (@p r, rows [u0, u1); used-node blocks @p udist),
 * in vertex order, into d; their number. */
static int elem_dests(const int64_t *t, const int32_t *o, int64_t u0, int64_t u1, const int64_t *udist, int P,
                      int r, int d[4])
{
    int n = 0;
    for (int k = 0; k < 4; ++k) {
        int dup = 0, first = P;
        for (int j = 0; j < k; ++j) dup |= o[j] == o[k];
        if (dup) continue;
        for (int j = 0; j < 4; ++j)
            if (o[j] == o[k]) {
                const int h = t[j] >= u0 && t[j] < u1 ? r : block_of(udist, P, t[j]);
                if (h < first) first = h;
            }
        if (first == r) d[n++] = o[k];
    }
    return n;
}

/* What hs_mesh_part_read needs of the core besides the part: the local order's time (the summary's
 * node order, not the partition's) and, for the whole mesh's fingerprint, the blocks renumbered. */
typedef struct core_extra {
    double seconds_order; /* hs_part_local_rcm_key's time (not in part->partition) */
    int32_t *used;        /* [nb_nodes] the block's nodes' index among the block's used ones, -1: unused */
    int32_t *tets;        /* [nb_elems][4] the block's elements in the global numbering (orientation as the
                             part's) */
    int swapped;          /* 1: every element was negative, nodes 2 and 3 swapped */
} core_extra;

/* Everything a rank holds during the core (freed in one place). */
typedef struct core {
    int64_t *all;                  /* [size][9] the blocks' extents */
    int64_t *vtx, *edist, *udist;  /* [size + 1] node blocks (file), element blocks, used-node blocks */
    double *efib;                  /* [nb_elems][3] the element block's fibres */
    /* the elements this rank holds rows of ("R": increasing global number) */
    int64_t nr;
    int64_t *rgid, *rtet;          /* [nr], [nr][4] (file numbers, then the global ones) */
    int32_t *rreg, *rown;          /* [nr], [nr][4] owners */
    double *rfib;                  /* [nr][3] */
    int32_t *used;                 /* [nb_nodes] */
    int32_t nu;                    /* used nodes of the block */
    int32_t *owner;                /* [nu] */
    int64_t nf;                    /* foreign vertices of R, increasing (file numbers) */
    int64_t *fq, *fnew;            /* [nf] and their global numbers */
    int32_t *fown;                 /* [nf] owners */
    int64_t nq;                    /* requests other holders made of this one's rows */
    int64_t *req;                  /* [nq] (file numbers, grouped by asking rank) */
    int64_t *qcnt, *rqcnt;         /* [size] the requests' counts (asked, answered) */
    int64_t *cc;                   /* [chunks][cw] per-chunk counts (n_chunks) */
    size_t cw;                     /* a chunk's row of cc: size and a cache line more (threads' rows apart) */
    void *sbuf, *rbuf;
    int rank;
} core;

static void core_free(core *c)
{
    free(c->all), free(c->vtx), free(c->edist), free(c->udist), free(c->efib);
    free(c->rgid), free(c->rtet), free(c->rreg), free(c->rown), free(c->rfib);
    free(c->used), free(c->owner), free(c->fq), free(c->fnew), free(c->fown), free(c->req);
    free(c->qcnt), free(c->rqcnt), free(c->cc), free(c->sbuf), free(c->rbuf);
    memset(c, 0, sizeof *c);
}

/* Each step's local time (its exchanges' time left out: part->scatter has them): the -v log. */
enum { S_CHECK, S_FIB, S_ROUTE, S_NUMBER, S_GLOBAL, S_OWNER, S_ELEMS, S_NODES, S_PACKED, S_ORIENT, S_BLOCK, S_VIEW,
       S_N };
typedef struct steps {
    double t, x, s[S_N];
} steps;

static void step_end(steps *sp, const xch *x, int k)
{
    const double now = hs_wtime();
    sp->s[k] += now - sp->t - (x->seconds - sp->x);
    sp->t = now;
    sp->x = x->seconds;
}

/* The blocks' extents c->all [size][9] checked (they tile the files; the same whole counts on every
 * rank) and made c->vtx, c->edist. */
static hs_status extents(core *c, int P, const char *file)
{
    const int64_t n_file = c->all[6], n_elems = c->all[7];
    const int has_fib = (int)c->all[8];
    int64_t n0 = 0, e0 = 0, f0 = 0;
    for (int q = 0; q < P; ++q) {
        const int64_t *a = c->all + 9 * (size_t)q;
        HS_CHECK(a[0] == n0 && a[2] == e0 && (!has_fib || a[4] == f0) && a[1] >= 0 && a[3] >= 0 && a[5] >= 0 &&
                     a[6] == n_file && a[7] == n_elems && a[8] == has_fib,
                 HS_ERR_INTERNAL, "%s: the ranks' blocks do not tile the files (rank %d: nodes from %lld, elements "
                 "from %lld, fibres from %lld)", file, q, (long long)a[0], (long long)a[2], (long long)a[4]);
        c->vtx[q] = n0;
        c->edist[q] = e0;
        n0 += a[1], e0 += a[3], f0 += a[5];
    }
    c->vtx[P] = n0;
    c->edist[P] = e0;
    HS_CHECK(n0 == n_file && e0 == n_elems, HS_ERR_INTERNAL, "%s: the blocks hold %lld nodes and %lld elements, the "
             "files %lld and %lld", file, (long long)n0, (long long)e0, (long long)n_file, (long long)n_elems);
    HS_CHECK(!has_fib || f0 == n_elems, HS_ERR_MESH, "%s: %lld fibre lines for %lld tetrahedra (one per element)",
             file, (long long)f0, (long long)n_elems);
    HS_CHECK(n_elems > 0, HS_ERR_MESH, "%s: no tetrahedra found (%lld nodes); heartsim needs a volume mesh of "
             "tetrahedra", file, (long long)n_file);
    HS_CHECK(n_file <= INT32_MAX && n_elems <= INT32_MAX, HS_ERR_MESH, "%s: %lld nodes and %lld tetrahedra; at most "
             "%d of each are supported", file, (long long)n_file, (long long)n_elems, (int)INT32_MAX);
    return HS_OK;
}

/* A buffer of n records of rs bytes (at least one byte: every rank passes a pointer). */
static hs_status buf(void **p, int64_t n, size_t rs, const char *what)
{
    free(*p);
    *p = NULL;
    return hs_alloc(p, (size_t)n + 1, rs, what);
}

/* Answer the requests (c->req, counted c->rqcnt) with @p rs-byte values of each requested row
 * (@p fill), and receive the answers to this rank's (c->fq, c->qcnt) into @p out [nf]. */
static hs_status answer(xch *x, core *c, size_t rs, void (*fill)(const core *, int64_t row, void *v), void *out)
{
    hs_status st = buf(&c->sbuf, c->nq, rs, "answers");
    HS_CALL(hs_par_agree(st));
    const int64_t node0 = c->vtx[x->rank];
    for (int64_t k = 0; k < c->nq; ++k) fill(c, c->req[k] - node0, (char *)c->sbuf + rs * (size_t)k);
    memcpy(x->scnt, c->rqcnt, sizeof *x->scnt * (size_t)x->size);
    int64_t n = 0;
    HS_CALL(xch_counts(x, &n));
    HS_CALL(xch_data(x, c->sbuf, out, rs));
    return HS_OK;
}

static void fill_gid(const core *c, int64_t row, void *v)
{
    int64_t g = c->used[row] < 0 ? -1 : c->udist[c->rank] + c->used[row];
    memcpy(v, &g, sizeof g);
}

static void fill_owner(const core *c, int64_t row, void *v)
{
    const int32_t o = c->used[row] < 0 ? -1 : c->owner[c->used[row]];
    memcpy(v, &o, sizeof o);
}

/* The core (hs_mesh_part_from_blocks) with, for hs_mesh_part_read, @p path for messages (NULL: "mesh
 * file") and @p extra (NULL: not made; its used and tets only with @p fingerprint). */
static hs_status core_run(const hs_mesh_block *b, const hs_partitioner *p, int reorder, const char *path,
                          hs_backend_mpi_part *part, hs_mesh **counts, core_extra *extra, int fingerprint)
{
    hs_status st = HS_OK;
    const char *file = path ? path : "mesh file";
    xch x;
    core c;
    memset(&c, 0, sizeof c);
    hs_part_packed pk;
    memset(&pk, 0, sizeof pk);
    int32_t *ord = NULL, *tmp = NULL, *nl = NULL, *el = NULL;
    int64_t *key = NULL;
    double t_part = 0.0;
    *counts = NULL;
    memset(part, 0, sizeof *part);
    if (extra) memset(extra, 0, sizeof *extra);
    HS_CALL(xch_init(&x));
    const int P = x.size, r = x.rank;
    c.rank = r;
    steps sp;
    memset(&sp, 0, sizeof sp);
    sp.t = hs_wtime();

    /* ---- the blocks' extents, checked alike on every rank ---- */
    st = HS_ALLOC(c.all, 9 * (size_t)P, "block extents");
    if (st == HS_OK) st = HS_ALLOC(c.vtx, (size_t)P + 1, "block extents");
    if (st == HS_OK) st = HS_ALLOC(c.edist, (size_t)P + 1, "block extents");
    if (st == HS_OK) st = HS_ALLOC(c.udist, (size_t)P + 1, "block extents");
    if (st == HS_OK) st = HS_ALLOC(c.qcnt, (size_t)P + 1, "block extents");
    if (st == HS_OK) st = HS_ALLOC(c.rqcnt, (size_t)P + 1, "block extents");
    c.cw = ((size_t)P + 7) / 8 * 8 + 8;
    if (st == HS_OK) st = HS_ALLOC(c.cc, (size_t)omp_get_max_threads() * c.cw, "chunk counts");
    HS_CALL_GOTO(hs_par_agree(st), done);
    {
        const int64_t mine[9] = {b->node0, b->nb_nodes, b->elem0, b->nb_elems, b->fiber0, b->nb_fibers,
                                 b->n_nodes, b->n_elems, b->has_fibers};
        HS_MPI_CALL(MPI_Allgather(mine, 9, MPI_INT64_T, c.all, 9, MPI_INT64_T, x.comm));
    }
    const int64_t n_file = c.all[6], n_elems = c.all[7];
    const int has_fib = (int)c.all[8];
    HS_CALL_GOTO(hs_par_agree(extents(&c, P, file)), done); /* alike on every rank: said once */
    const int64_t node0 = b->node0, node1 = b->node0 + b->nb_nodes;
    /* every vertex a node of the file (the readers check it: here it is what the routing relies on) */
    st = HS_OK;
    {
        int32_t bad = b->nb_elems; /* the first element with a vertex out of range, named as the serial loop would */
#pragma omp parallel for schedule(static) reduction(min : bad) if (b->nb_elems > HS_OMP_MIN)
        for (int32_t e = 0; e < b->nb_elems; ++e)
            for (int k = 0; k < 4; ++k) {
                const int64_t v = b->tets[4 * (size_t)e + k];
                if ((v < 0 || v >= n_file) && e < bad) bad = e;
            }
        for (int k = 0; bad < b->nb_elems && k < 4 && st == HS_OK; ++k) {
            const int64_t v = b->tets[4 * (size_t)bad + k];
            if (v < 0 || v >= n_file)
                st = HS_FAIL(HS_ERR_MESH, "%s: tetrahedron %lld (0-based, in file order) refers to node %lld "
                             "(0-based) of %lld", file, (long long)(b->elem0 + bad), (long long)v, (long long)n_file);
        }
    }
    HS_CALL_GOTO(hs_par_agree(st), done);

    step_end(&sp, &x, S_CHECK);

    /* ---- 1. the fibre lines to the element block holding their elements ---- */
    if (has_fib) {
        for (int q = 0; q < P; ++q) {
            const int64_t lo = b->fiber0 > c.edist[q] ? b->fiber0 : c.edist[q];
            const int64_t hi = b->fiber0 + b->nb_fibers < c.edist[q + 1] ? b->fiber0 + b->nb_fibers : c.edist[q + 1];
            x.scnt[q] = hi > lo ? hi - lo : 0;
        }
        int64_t n = 0;
        HS_CALL_GOTO(xch_counts(&x, &n), done);
        st = n == b->nb_elems ? HS_OK : HS_FAIL(HS_ERR_INTERNAL, "rank %d: %lld fibres for %d elements", r,
                                                (long long)n, (int)b->nb_elems);
        if (st == HS_OK) st = HS_ALLOC(c.efib, 3 * (size_t)b->nb_elems + 3, "element fibres");
        HS_CALL_GOTO(hs_par_agree(st), done);
        HS_CALL_GOTO(xch_data(&x, b->fiber, c.efib, 3 * sizeof(double)), done);
    }

    step_end(&sp, &x, S_FIB);

    /* ---- 2. each element to the holders of its vertices' rows, each once ---- */
    const int nce = n_chunks(b->nb_elems);
    memset(c.cc, 0, sizeof *c.cc * (size_t)nce * c.cw);
#pragma omp parallel for schedule(static, 1) if (nce > 1)
    for (int ch = 0; ch < nce; ++ch) {
        int64_t *my = c.cc + (size_t)ch * c.cw;
        for (int64_t e = chunk_lo(b->nb_elems, nce, ch), e1 = chunk_lo(b->nb_elems, nce, ch + 1); e < e1; ++e) {
            int h[4];
            const int n = elem_holders(b->tets + 4 * (size_t)e, c.vtx, P, h);
            for (int k = 0; k < n; ++k) ++my[h[k]];
        }
    }
    chunk_offsets(c.cc, nce, P, c.cw, x.scnt, NULL);
    int64_t nsend = 0;
    for (int q = 0; q < P; ++q) nsend += x.scnt[q];
    HS_CALL_GOTO(xch_counts(&x, &c.nr), done);
    {
        /* the records, field by field (one exchange each, the same counts) */
        int64_t *sg = NULL, *stt = NULL;
        int32_t *srg = NULL;
        double *sf = NULL;
        st = HS_ALLOC(sg, (size_t)nsend + 1, "elements sent");
        if (st == HS_OK) st = HS_ALLOC(stt, 4 * (size_t)nsend + 4, "elements sent");
        if (st == HS_OK) st = HS_ALLOC(srg, (size_t)nsend + 1, "elements sent");
        if (st == HS_OK && has_fib) st = HS_ALLOC(sf, 3 * (size_t)nsend + 3, "elements sent");
        if (st == HS_OK) st = HS_ALLOC(c.rgid, (size_t)c.nr + 1, "elements held");
        if (st == HS_OK) st = HS_ALLOC(c.rtet, 4 * (size_t)c.nr + 4, "elements held");
        if (st == HS_OK) st = HS_ALLOC(c.rreg, (size_t)c.nr + 1, "elements held");
        if (st == HS_OK && has_fib) st = HS_ALLOC(c.rfib, 3 * (size_t)c.nr + 3, "elements held");
        st = hs_par_agree(st);
        if (st == HS_OK) {
#pragma omp parallel for schedule(static, 1) if (nce > 1)
            for (int ch = 0; ch < nce; ++ch) {
                int64_t *my = c.cc + (size_t)ch * c.cw;
                for (int64_t e = chunk_lo(b->nb_elems, nce, ch), e1 = chunk_lo(b->nb_elems, nce, ch + 1); e < e1; ++e) {
                    int h[4];
                    const int n = elem_holders(b->tets + 4 * (size_t)e, c.vtx, P, h);
                    for (int k = 0; k < n; ++k) {
                        const int64_t i = x.so[h[k]] + my[h[k]]++;
                        sg[i] = b->elem0 + e;
                        memcpy(stt + 4 * i, b->tets + 4 * (size_t)e, 4 * sizeof(int64_t));
                        srg[i] = b->region ? b->region[e] : 0;
                        if (has_fib) memcpy(sf + 3 * i, c.efib + 3 * (size_t)e, 3 * sizeof(double));
                    }
                }
            }
            st = xch_data(&x, sg, c.rgid, sizeof(int64_t));
            if (st == HS_OK) st = xch_data(&x, stt, c.rtet, 4 * sizeof(int64_t));
            if (st == HS_OK) st = xch_data(&x, srg, c.rreg, sizeof(int32_t));
            if (st == HS_OK && has_fib) st = xch_data(&x, sf, c.rfib, 3 * sizeof(double));
        }
        free(sg), free(stt), free(srg), free(sf);
        free(c.efib);
        c.efib = NULL;
        HS_CALL_GOTO(st, done);
    }
    /* received by source, each source's in increasing number, sources' blocks increasing: R increases */
    st = HS_OK;
    for (int64_t i = 1; i < c.nr && st == HS_OK; ++i)
        if (c.rgid[i] <= c.rgid[i - 1]) st = HS_FAIL(HS_ERR_INTERNAL, "rank %d: elements received out of order", r);
    HS_CALL_GOTO(hs_par_agree(st), done);

    step_end(&sp, &x, S_ROUTE);

    /* ---- 3. the used nodes of this block, numbered in file order over the blocks ---- */
    HS_CALL_GOTO(hs_par_agree(HS_ALLOC(c.used, (size_t)b->nb_nodes + 1, "used nodes")), done);
    for (int32_t i = 0; i < b->nb_nodes; ++i) c.used[i] = -1;
#pragma omp parallel for schedule(static) if (4 * c.nr > HS_OMP_MIN)
    for (int64_t k = 0; k < 4 * c.nr; ++k)
        if (c.rtet[k] >= node0 && c.rtet[k] < node1) {
#pragma omp atomic write
            c.used[c.rtet[k] - node0] = 0;
        }
    c.nu = 0;
    for (int32_t i = 0; i < b->nb_nodes; ++i)
        if (c.used[i] == 0) c.used[i] = c.nu++;
    {
        const int64_t nu = c.nu;
        HS_MPI_CALL(MPI_Allgather(&nu, 1, MPI_INT64_T, c.udist + 1, 1, MPI_INT64_T, x.comm));
        c.udist[0] = 0;
        for (int q = 0; q < P; ++q) c.udist[q + 1] += c.udist[q];
    }
    const int64_t n_used = c.udist[P], u0 = c.udist[r], u1 = c.udist[r + 1];
    if (r == 0 && n_used < n_file)
        hs_log(1, "%s: %lld of %lld nodes belong to no tetrahedron and were dropped (an unused node would leave an "
                  "empty row in the FEM system); the others are renumbered in file order\n",
               file, (long long)(n_file - n_used), (long long)n_file);
    /* the foreign vertices of R (their holders' blocks are consecutive: grouped by holder once sorted) */
    const int ncv = n_chunks(4 * c.nr);
    memset(c.cc, 0, sizeof *c.cc * (size_t)ncv);
#pragma omp parallel for schedule(static, 1) if (ncv > 1)
    for (int ch = 0; ch < ncv; ++ch) {
        int64_t n = 0;
        for (int64_t k = chunk_lo(4 * c.nr, ncv, ch), k_end = chunk_lo(4 * c.nr, ncv, ch + 1); k < k_end; ++k)
            n += c.rtet[k] < node0 || c.rtet[k] >= node1;
        c.cc[ch] = n;
    }
    chunk_offsets(c.cc, ncv, 1, 1, &c.nf, NULL);
    HS_CALL_GOTO(hs_par_agree(HS_ALLOC(c.fq, (size_t)c.nf + 1, "foreign vertices")), done);
#pragma omp parallel for schedule(static, 1) if (ncv > 1)
    for (int ch = 0; ch < ncv; ++ch) {
        int64_t o = c.cc[ch];
        for (int64_t k = chunk_lo(4 * c.nr, ncv, ch), k_end = chunk_lo(4 * c.nr, ncv, ch + 1); k < k_end; ++k)
            if (c.rtet[k] < node0 || c.rtet[k] >= node1) c.fq[o++] = c.rtet[k];
    }
    HS_CALL_GOTO(hs_par_agree(sort_unique_i64(c.fq, c.nf, &c.nf)), done);
    memset(x.scnt, 0, sizeof *x.scnt * (size_t)P);
    for (int64_t k = 0; k < c.nf; ++k) ++x.scnt[block_of(c.vtx, P, c.fq[k])];
    memcpy(c.qcnt, x.scnt, sizeof *c.qcnt * (size_t)P);
    HS_CALL_GOTO(xch_counts(&x, &c.nq), done);
    memcpy(c.rqcnt, x.rcnt, sizeof *c.rqcnt * (size_t)P);
    st = HS_ALLOC(c.req, (size_t)c.nq + 1, "vertex requests");
    if (st == HS_OK) st = HS_ALLOC(c.fnew, (size_t)c.nf + 1, "foreign vertices");
    if (st == HS_OK) st = HS_ALLOC(c.fown, (size_t)c.nf + 1, "foreign vertices");
    HS_CALL_GOTO(hs_par_agree(st), done);
    HS_CALL_GOTO(xch_data(&x, c.fq, c.req, sizeof(int64_t)), done);
    HS_CALL_GOTO(answer(&x, &c, sizeof(int64_t), fill_gid, c.fnew), done);
    step_end(&sp, &x, S_NUMBER);
    /* R in the global numbering */
    {
        int bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad) if (4 * c.nr > HS_OMP_MIN)
        for (int64_t k = 0; k < 4 * c.nr; ++k) {
            const int64_t v = c.rtet[k];
            if (v >= node0 && v < node1) c.rtet[k] = u0 + c.used[v - node0];
            else c.rtet[k] = c.fnew[find_i64(c.fq, c.nf, v)];
            bad |= c.rtet[k] < 0;
        }
        st = bad ? HS_FAIL(HS_ERR_INTERNAL, "rank %d: a used node without a number", r) : HS_OK;
    }
    HS_CALL_GOTO(hs_par_agree(st), done);

    step_end(&sp, &x, S_GLOBAL);

    /* ---- 4. the partition of the used rows; the owners of the foreign vertices ---- */
    HS_CALL_GOTO(hs_par_agree(HS_ALLOC(c.owner, (size_t)c.nu + 1, "row owners")), done);
    {
        HS_CALL_GOTO(hs_par_agree(c.nr <= INT32_MAX ? HS_OK : HS_FAIL(HS_ERR_MESH, "rank %d holds %lld elements: "
                                  "more than 32 bits number; use more ranks", r, (long long)c.nr)), done);
        double t0 = hs_wtime();
        HS_CALL_GOTO(hs_partition_rows_dist(p, c.udist, (int32_t)c.nr, c.rtet, c.owner), done);
        t_part += hs_wtime() - t0;
        sp.t = hs_wtime(); /* the partition is the summary's own phase */
    }
    HS_CALL_GOTO(answer(&x, &c, sizeof(int32_t), fill_owner, c.fown), done);
    HS_CALL_GOTO(hs_par_agree(HS_ALLOC(c.rown, 4 * (size_t)c.nr + 4, "element owners")), done);
#pragma omp parallel for schedule(static) if (4 * c.nr > HS_OMP_MIN)
    for (int64_t k = 0; k < 4 * c.nr; ++k) {
        const int64_t g = c.rtet[k];
        c.rown[k] = g >= u0 && g < u1 ? c.owner[g - u0] : c.fown[find_i64(c.fnew, c.nf, g)];
    }
    /* (fnew increases with fq: the renumbering keeps the file's order) */

    step_end(&sp, &x, S_OWNER);

    /* ---- 5a. each element to the owners of its vertices, by the first holder of each owner's ---- */
    {
        int64_t *which = NULL; /* [sent] the record of R each element sent is */
        const int ncr = n_chunks(c.nr);
        memset(c.cc, 0, sizeof *c.cc * (size_t)ncr * c.cw);
        for (int pass = 0; pass < 2; ++pass) {
#pragma omp parallel for schedule(static, 1) if (ncr > 1)
            for (int ch = 0; ch < ncr; ++ch) {
                int64_t *my = c.cc + (size_t)ch * c.cw;
                for (int64_t i = chunk_lo(c.nr, ncr, ch), i_end = chunk_lo(c.nr, ncr, ch + 1); i < i_end; ++i) {
                    int d[4];
                    const int n = elem_dests(c.rtet + 4 * i, c.rown + 4 * i, u0, u1, c.udist, P, r, d);
                    for (int k = 0; k < n; ++k) {
                        if (!pass) ++my[d[k]];
                        else which[x.so[d[k]] + my[d[k]]++] = i;
                    }
                }
            }
            if (!pass) {
                int64_t tot = 0;
                chunk_offsets(c.cc, ncr, P, c.cw, x.scnt, NULL);
                for (int q = 0; q < P; ++q) x.so[q] = tot, tot += x.scnt[q];
                HS_CALL_GOTO(hs_par_agree(HS_ALLOC(which, (size_t)tot + 1, "elements sent")), done);
            }
        }
        int64_t ne_part = 0;
        HS_CALL_GOTO(xch_counts(&x, &ne_part), done); /* the offsets again (the fill ran over them) */
        const int64_t ns = x.so[P];
        st = ne_part <= INT32_MAX ? HS_OK : HS_FAIL(HS_ERR_MESH, "rank %d's part has %lld elements: more than 32 "
                                                    "bits number; use more ranks", r, (long long)ne_part);
        pk.h[H_NE] = ne_part;
        pk.h[H_FIBER] = has_fib;
        /* the numbers first: the part's order (a merge of the sources' increasing runs) */
        int64_t *g = NULL;
        if (st == HS_OK) st = HS_ALLOC(g, (size_t)ne_part + 1, "part elements");
        if (st == HS_OK) st = buf(&c.sbuf, ns, 4 * sizeof(int64_t), "elements sent"); /* the largest record's */
        if (st == HS_OK) st = HS_ALLOC(ord, (size_t)ne_part + 1, "part elements");
        if (st == HS_OK) st = HS_ALLOC(tmp, (size_t)ne_part + 1, "part elements");
        if (st == HS_OK) st = HS_ALLOC(pk.egid, (size_t)ne_part + 1, "part elements");
        st = hs_par_agree(st);
        if (st == HS_OK) {
            int64_t *s8 = c.sbuf;
#pragma omp parallel for schedule(static) if (ns > HS_OMP_MIN)
            for (int64_t k = 0; k < ns; ++k) s8[k] = c.rgid[which[k]];
            st = xch_data(&x, s8, g, sizeof(int64_t));
        }
        if (st == HS_OK) st = merge_runs_par(g, ne_part, x.ro, P, ord, tmp);
        if (st == HS_OK) {
#pragma omp parallel for schedule(static) if (ne_part > HS_OMP_MIN)
            for (int64_t k = 0; k < ne_part; ++k) pk.egid[k] = g[ord[k]];
        }
        free(g), free(tmp);
        tmp = NULL;
        /* then field by field, each received, put in the part's order and let go (R's labels and fibres
         * too, once sent: not needed after); the vertices stay global numbers (c.rbuf) until the nodes
         * are here */
        if (st == HS_OK) { /* labels */
            int32_t *s4 = c.sbuf, *rg = NULL;
#pragma omp parallel for schedule(static) if (ns > HS_OMP_MIN)
            for (int64_t k = 0; k < ns; ++k) s4[k] = c.rreg[which[k]];
            st = hs_par_agree(HS_ALLOC(rg, (size_t)ne_part + 1, "part elements"));
            if (st == HS_OK) st = xch_data(&x, s4, rg, sizeof(int32_t));
            if (st == HS_OK) st = hs_par_agree(HS_ALLOC(pk.region, (size_t)ne_part + 1, "part elements"));
            if (st == HS_OK) {
#pragma omp parallel for schedule(static) if (ne_part > HS_OMP_MIN)
                for (int64_t k = 0; k < ne_part; ++k) pk.region[k] = rg[ord[k]];
            }
            free(rg);
            free(c.rreg);
            c.rreg = NULL;
        }
        if (st == HS_OK && has_fib) { /* fibres */
            double *sd = c.sbuf, *f = NULL;
#pragma omp parallel for schedule(static) if (ns > HS_OMP_MIN)
            for (int64_t k = 0; k < ns; ++k) memcpy(sd + 3 * k, c.rfib + 3 * which[k], 3 * sizeof(double));
            free(c.rfib);
            c.rfib = NULL;
            st = hs_par_agree(HS_ALLOC(f, 3 * (size_t)ne_part + 3, "part elements"));
            if (st == HS_OK) st = xch_data(&x, sd, f, 3 * sizeof(double));
            if (st == HS_OK) st = hs_par_agree(HS_ALLOC(pk.fiber, 3 * (size_t)ne_part + 3, "part elements"));
            if (st == HS_OK) {
#pragma omp parallel for schedule(static) if (ne_part > HS_OMP_MIN)
                for (int64_t k = 0; k < ne_part; ++k)
                    memcpy(pk.fiber + 3 * k, f + 3 * (size_t)ord[k], 3 * sizeof(double));
            }
            free(f);
        }
        if (st == HS_OK) { /* vertices */
            int64_t *s8 = c.sbuf, *t4 = NULL;
#pragma omp parallel for schedule(static) if (ns > HS_OMP_MIN)
            for (int64_t k = 0; k < ns; ++k) memcpy(s8 + 4 * k, c.rtet + 4 * which[k], 4 * sizeof(int64_t));
            st = hs_par_agree(HS_ALLOC(t4, 4 * (size_t)ne_part + 4, "part elements"));
            if (st == HS_OK) st = xch_data(&x, s8, t4, 4 * sizeof(int64_t));
            free(c.sbuf);
            c.sbuf = NULL;
            if (st == HS_OK) st = hs_par_agree(buf(&c.rbuf, ne_part, 4 * sizeof(int64_t), "part elements"));
            if (st == HS_OK) {
                int64_t *t8 = c.rbuf;
#pragma omp parallel for schedule(static) if (ne_part > HS_OMP_MIN)
                for (int64_t k = 0; k < ne_part; ++k) memcpy(t8 + 4 * k, t4 + 4 * (size_t)ord[k], 4 * sizeof(int64_t));
            }
            free(t4);
        }
        free(which);
        free(c.sbuf);
        c.sbuf = NULL;
        free(ord);
        ord = NULL;
        HS_CALL_GOTO(hs_par_agree(st), done);
    }

    step_end(&sp, &x, S_ELEMS);

    /* ---- 5b. each used node of this block to the ranks whose parts use it: its owner, and the owners of
     * the other vertices of its cut elements (keys rank x nu + node, sorted: by rank, then in order; each
     * node's owner's key (a counting pass by owner, nodes in order) merged with the others' (the cut
     * elements' few, sorted), which never equal an owner's) ---- */
    {
        const int ncr = n_chunks(c.nr);
        memset(c.cc, 0, sizeof *c.cc * (size_t)ncr);
#pragma omp parallel for schedule(static, 1) if (ncr > 1)
        for (int ch = 0; ch < ncr; ++ch) {
            int64_t n = 0;
            for (int64_t i = chunk_lo(c.nr, ncr, ch), i_end = chunk_lo(c.nr, ncr, ch + 1); i < i_end; ++i) {
                const int32_t *o = c.rown + 4 * i;
                if (o[0] == o[1] && o[0] == o[2] && o[0] == o[3]) continue;
                for (int k = 0; k < 4; ++k) {
                    const int64_t g = c.rtet[4 * i + k];
                    if (g < u0 || g >= u1) continue;
                    for (int j = 0; j < 4; ++j) n += o[j] != c.owner[g - u0];
                }
            }
            c.cc[ch] = n;
        }
        int64_t ncut = 0;
        chunk_offsets(c.cc, ncr, 1, 1, &ncut, NULL);
        int64_t *keys = NULL, *cut = NULL, *own = NULL;
        int32_t *row = NULL;
        st = HS_ALLOC(keys, (size_t)(c.nu + ncut) + 1, "nodes sent");
        if (st == HS_OK) st = HS_ALLOC(cut, (size_t)ncut + 1, "nodes sent");
        if (st == HS_OK) st = HS_ALLOC(own, (size_t)c.nu + 1, "nodes sent");
        if (st == HS_OK) st = HS_ALLOC(row, (size_t)c.nu + 1, "used nodes");
        if ((st = hs_par_agree(st)) != HS_OK) {
            free(keys), free(cut), free(own);
            goto done;
        }
#pragma omp parallel for schedule(static, 1) if (ncr > 1)
        for (int ch = 0; ch < ncr; ++ch) {
            int64_t n = c.cc[ch];
            for (int64_t i = chunk_lo(c.nr, ncr, ch), i_end = chunk_lo(c.nr, ncr, ch + 1); i < i_end; ++i) {
                const int32_t *o = c.rown + 4 * i;
                if (o[0] == o[1] && o[0] == o[2] && o[0] == o[3]) continue;
                for (int k = 0; k < 4; ++k) {
                    const int64_t g = c.rtet[4 * i + k];
                    if (g < u0 || g >= u1) continue;
                    for (int j = 0; j < 4; ++j)
                        if (o[j] != c.owner[g - u0]) cut[n++] = (int64_t)o[j] * c.nu + (g - u0);
                }
            }
        }
        if ((st = hs_par_agree(sort_unique_i64(cut, ncut, &ncut))) != HS_OK) {
            free(keys), free(cut), free(own), free(row);
            goto done;
        }
        {
            int64_t *at = c.cc; /* [P]: each owner's first position */
            memset(at, 0, sizeof *at * (size_t)P);
            for (int32_t i = 0; i < c.nu; ++i) ++at[c.owner[i]];
            int64_t sum = 0;
            for (int q = 0; q < P; ++q) {
                const int64_t t = at[q];
                at[q] = sum;
                sum += t;
            }
            for (int32_t i = 0; i < c.nu; ++i) own[at[c.owner[i]]++] = (int64_t)c.owner[i] * c.nu + i;
        }
        int64_t nk = 0;
        for (int64_t a = 0, z = 0; a < c.nu || z < ncut;)
            keys[nk++] = z == ncut || (a < c.nu && own[a] < cut[z]) ? own[a++] : cut[z++];
        free(cut), free(own);
        /* the used nodes' positions in the block, in order */
        for (int32_t i = 0; i < b->nb_nodes; ++i)
            if (c.used[i] >= 0) row[c.used[i]] = i;
        memset(x.scnt, 0, sizeof *x.scnt * (size_t)P);
        for (int64_t k = 0; k < nk; ++k) ++x.scnt[keys[k] / (c.nu > 0 ? c.nu : 1)];
        int64_t n = 0, *sg = NULL;
        int32_t *so = NULL, *sn = NULL;
        double *sx = NULL;
        st = xch_counts(&x, &n);
        if (st == HS_OK && n > INT32_MAX)
            st = HS_FAIL(HS_ERR_MESH, "rank %d's part has %lld nodes: more than 32 bits number; use more ranks", r,
                         (long long)n);
        pk.h[H_NN] = n;
        if (st == HS_OK) st = HS_ALLOC(sg, (size_t)nk + 1, "nodes sent");
        if (st == HS_OK) st = HS_ALLOC(so, (size_t)nk + 1, "nodes sent");
        if (st == HS_OK) st = HS_ALLOC(sn, (size_t)nk + 1, "nodes sent");
        if (st == HS_OK) st = HS_ALLOC(sx, 3 * (size_t)nk + 3, "nodes sent");
        if (st == HS_OK) st = HS_ALLOC(pk.ngid, (size_t)n + 1, "part nodes");
        if (st == HS_OK) st = HS_ALLOC(pk.nown, (size_t)n + 1, "part nodes");
        if (st == HS_OK) st = HS_ALLOC(pk.norig, (size_t)n + 1, "part nodes");
        if (st == HS_OK) st = HS_ALLOC(pk.xyz, 3 * (size_t)n + 3, "part nodes");
        st = hs_par_agree(st);
        if (st == HS_OK) {
#pragma omp parallel for schedule(static) if (nk > HS_OMP_MIN)
            for (int64_t k = 0; k < nk; ++k) {
                const int32_t i = (int32_t)(keys[k] % c.nu);
                sg[k] = u0 + i;
                so[k] = c.owner[i];
                sn[k] = (int32_t)(node0 + row[i]);
                memcpy(sx + 3 * k, b->xyz + 3 * (size_t)row[i], 3 * sizeof(double));
            }
        }
        free(keys);
        free(row);
        if (st == HS_OK) st = xch_data(&x, sg, pk.ngid, sizeof(int64_t));
        if (st == HS_OK) st = xch_data(&x, so, pk.nown, sizeof(int32_t));
        if (st == HS_OK) st = xch_data(&x, sn, pk.norig, sizeof(int32_t));
        if (st == HS_OK) st = xch_data(&x, sx, pk.xyz, 3 * sizeof(double));
        free(sg), free(so), free(sn), free(sx);
        HS_CALL_GOTO(st, done);
    }
    step_end(&sp, &x, S_NODES);
    const int32_t nn = (int32_t)pk.h[H_NN], ne = (int32_t)pk.h[H_NE];
    /* from the holders in rank order, each increasing: the part's nodes increase */
    st = HS_OK;
    for (int32_t i = 1; i < nn && st == HS_OK; ++i)
        if (pk.ngid[i] <= pk.ngid[i - 1]) st = HS_FAIL(HS_ERR_INTERNAL, "rank %d: nodes received out of order", r);
    /* the part's elements in packed indices */
    gid_index gx;
    memset(&gx, 0, sizeof gx);
    if (st == HS_OK) st = HS_ALLOC(pk.tets, 4 * (size_t)ne + 4, "part elements");
    if (st == HS_OK) st = gid_index_make(pk.ngid, nn, &gx);
    if (st == HS_OK) {
        const int64_t *t4 = c.rbuf;
        int64_t bad = 4 * (int64_t)ne; /* the first vertex that did not arrive */
#pragma omp parallel for schedule(static) reduction(min : bad) if (4 * (int64_t)ne > HS_OMP_MIN)
        for (int64_t k = 0; k < 4 * (int64_t)ne; ++k) {
            const int64_t i = gid_index_find(&gx, t4[k]);
            if (i < 0 && k < bad) bad = k;
            pk.tets[k] = (int32_t)i;
        }
        if (bad < 4 * (int64_t)ne)
            st = HS_FAIL(HS_ERR_INTERNAL, "rank %d: an element's vertex %lld did not arrive", r, (long long)t4[bad]);
    }
    free(gx.first);
    free(c.rbuf);
    c.rbuf = NULL;
    HS_CALL_GOTO(hs_par_agree(st), done);

    step_end(&sp, &x, S_PACKED);

    /* ---- 6. the orientation: each element counted by the owner of its first vertex ---- */
    {
        int64_t neg[2] = {0, 0}, n_neg = 0, n_mine = 0;
#pragma omp parallel for schedule(static) reduction(+ : n_neg, n_mine) if (ne > HS_OMP_MIN)
        for (int32_t e = 0; e < ne; ++e) {
            const int32_t *t = pk.tets + 4 * (size_t)e;
            if (pk.nown[t[0]] != r) continue;
            ++n_mine;
            n_neg += hs_tet_det6(pk.xyz, t) < 0.0;
        }
        neg[0] = n_neg;
        neg[1] = n_mine;
        HS_MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, neg, 2, MPI_INT64_T, MPI_SUM, x.comm));
        HS_CALL_GOTO(hs_par_agree(neg[1] == n_elems ? HS_OK : HS_FAIL(HS_ERR_INTERNAL, "the parts count %lld "
                                  "elements of %lld", (long long)neg[1], (long long)n_elems)), done);
        if (neg[0] == n_elems) {
#pragma omp parallel for schedule(static) if (ne > HS_OMP_MIN)
            for (int32_t e = 0; e < ne; ++e) {
                int32_t *t = pk.tets + 4 * (size_t)e;
                const int32_t s = t[2];
                t[2] = t[3];
                t[3] = s;
            }
            if (r == 0)
                hs_log(1, "%s: every tetrahedron is negatively oriented (the other node-order convention); swapped "
                          "nodes 2 and 3 of each\n", file);
        }
        if (extra) extra->swapped = neg[0] == n_elems;
    }
    step_end(&sp, &x, S_ORIENT);
    /* the block's elements in the global numbering (the fingerprint's): from the holder of each one's
     * first vertex, which has them in R (each holder's in increasing number, placed here by the
     * holder of each element's first vertex) */
    if (extra && fingerprint) {
        const int ncr = n_chunks(c.nr);
        memset(c.cc, 0, sizeof *c.cc * (size_t)ncr * c.cw);
#pragma omp parallel for schedule(static, 1) if (ncr > 1)
        for (int ch = 0; ch < ncr; ++ch)
            for (int64_t i = chunk_lo(c.nr, ncr, ch), i_end = chunk_lo(c.nr, ncr, ch + 1); i < i_end; ++i)
                if (c.rtet[4 * i] >= u0 && c.rtet[4 * i] < u1)
                    ++c.cc[(size_t)ch * c.cw + block_of(c.edist, P, c.rgid[i])];
        chunk_offsets(c.cc, ncr, P, c.cw, x.scnt, NULL);
        int64_t n = 0;
        HS_CALL_GOTO(xch_counts(&x, &n), done);
        int32_t *s4 = NULL, *r4 = NULL;
        st = n == b->nb_elems ? HS_OK : HS_FAIL(HS_ERR_INTERNAL, "rank %d: %lld elements back of %d", r, (long long)n,
                                                (int)b->nb_elems);
        if (st == HS_OK) st = HS_ALLOC(s4, 4 * (size_t)x.so[P] + 4, "block elements");
        if (st == HS_OK) st = HS_ALLOC(r4, 4 * (size_t)n + 4, "block elements");
        if (st == HS_OK) st = HS_ALLOC(extra->tets, 4 * (size_t)b->nb_elems + 4, "block elements");
        st = hs_par_agree(st);
        if (st == HS_OK) { /* R increases and the element blocks are consecutive: grouped by block */
#pragma omp parallel for schedule(static, 1) if (ncr > 1)
            for (int ch = 0; ch < ncr; ++ch) {
                int64_t *my = c.cc + (size_t)ch * c.cw;
                for (int64_t i = chunk_lo(c.nr, ncr, ch), i_end = chunk_lo(c.nr, ncr, ch + 1); i < i_end; ++i) {
                    if (!(c.rtet[4 * i] >= u0 && c.rtet[4 * i] < u1)) continue;
                    const int q = block_of(c.edist, P, c.rgid[i]);
                    const int64_t k = x.so[q] + my[q]++;
                    for (int j = 0; j < 4; ++j) s4[4 * k + j] = (int32_t)c.rtet[4 * i + j];
                    if (extra->swapped) {
                        const int32_t sw = s4[4 * k + 2];
                        s4[4 * k + 2] = s4[4 * k + 3];
                        s4[4 * k + 3] = sw;
                    }
                }
            }
            st = xch_data(&x, s4, r4, 4 * sizeof(int32_t));
        }
        if (st == HS_OK) { /* each holder's in increasing number: a cursor per holder, per chunk */
            const int nce = n_chunks(b->nb_elems);
            memset(c.cc, 0, sizeof *c.cc * (size_t)nce * c.cw);
#pragma omp parallel for schedule(static, 1) if (nce > 1)
            for (int ch = 0; ch < nce; ++ch)
                for (int64_t e = chunk_lo(b->nb_elems, nce, ch), e1 = chunk_lo(b->nb_elems, nce, ch + 1); e < e1; ++e)
                    ++c.cc[(size_t)ch * c.cw + block_of(c.vtx, P, b->tets[4 * (size_t)e])];
            chunk_offsets(c.cc, nce, P, c.cw, NULL, x.ro);
#pragma omp parallel for schedule(static, 1) if (nce > 1)
            for (int ch = 0; ch < nce; ++ch) {
                int64_t *my = c.cc + (size_t)ch * c.cw;
                for (int64_t e = chunk_lo(b->nb_elems, nce, ch), e1 = chunk_lo(b->nb_elems, nce, ch + 1); e < e1; ++e) {
                    const int h = block_of(c.vtx, P, b->tets[4 * (size_t)e]);
                    memcpy(extra->tets + 4 * (size_t)e, r4 + 4 * my[h]++, 4 * sizeof(int32_t));
                }
            }
        }
        free(s4);
        free(r4);
        HS_CALL_GOTO(st, done);
    }

    step_end(&sp, &x, S_BLOCK);

    /* ---- the view and the local mesh ---- */
    pk.h[H_SITE_ELEMS] = 0;
    st = HS_ALLOC(pk.sptr, 2, "part sites");
    double t_key = 0.0;
    if (st == HS_OK && reorder) { /* local RCM: each bucket's owned rows ordered by the part's RCM */
        st = HS_ALLOC(key, (size_t)nn + 1, "local order");
        if (st == HS_OK) st = HS_ALLOC(nl, (size_t)nn + 1, "local order");
        if (st == HS_OK) st = HS_ALLOC(el, (size_t)ne + 1, "local order");
        double t0 = hs_wtime();
        if (st == HS_OK) st = hs_part_local_rcm_key(nn, ne, pk.tets, key);
        t_key = hs_wtime() - t0;
        t0 = hs_wtime();
        if (st == HS_OK)
            st = hs_part_local_create_part_keyed(n_used, nn, pk.ngid, pk.nown, ne, pk.egid, pk.tets, key, P, r,
                                                 &part->l, nl, el);
        t_part += hs_wtime() - t0;
    }
    {
        double t0 = hs_wtime();
        if (st == HS_OK) st = hs_part_packed_unpack(&pk, n_used, NULL, 0, r, P, nl, part);
        t_part += hs_wtime() - t0;
    }
    step_end(&sp, &x, S_VIEW);
    HS_CALL_GOTO(hs_par_agree(st), done);
    hs_log(2, "mesh: rank %d's steps of the parts (local work, s): check %.3f, fibres %.3f, route %.3f, number %.3f, "
              "global %.3f, owners %.3f, elements %.3f, nodes %.3f, packed %.3f, orientation %.3f, block %.3f, view "
              "%.3f\n", r, sp.s[S_CHECK], sp.s[S_FIB], sp.s[S_ROUTE], sp.s[S_NUMBER], sp.s[S_GLOBAL], sp.s[S_OWNER],
           sp.s[S_ELEMS], sp.s[S_NODES], sp.s[S_PACKED], sp.s[S_ORIENT], sp.s[S_BLOCK], sp.s[S_VIEW]);
    part->n_elems_global = n_elems;
    part->partition = t_part + (extra ? 0.0 : t_key);
    if (extra) extra->seconds_order = t_key;
    part->scatter = x.seconds;
    st = hs_par_agree(HS_ALLOC(*counts, 1, "mesh counts"));
    if (st == HS_OK) {
        (*counts)->n_nodes = (int32_t)n_used;
        (*counts)->n_elems = (int32_t)n_elems;
    }
    if (st == HS_OK && extra && fingerprint) {
        extra->used = c.used;
        c.used = NULL;
    }
done:
    if (st != HS_OK) {
        hs_backend_mpi_part_free(part);
        if (extra) free(extra->tets), free(extra->used), memset(extra, 0, sizeof *extra);
    }
    hs_part_packed_free(&pk, 0);
    free(ord), free(tmp), free(nl), free(el), free(key);
    core_free(&c);
    xch_free(&x);
    return st;
}
#endif

hs_status hs_mesh_part_from_blocks(const hs_mesh_block *b, const hs_partitioner *p, int reorder,
                                   struct hs_backend_mpi_part *part, hs_mesh **counts)
{
#if HS_HAS_MPI
    return core_run(b, p, reorder, NULL, part, counts, NULL, 0);
#else
    (void)b, (void)p, (void)reorder, (void)part, (void)counts;
    return HS_FAIL(HS_ERR_USAGE, "a distributed run needs a build with MPI (HS_USE_MPI)");
#endif
}

#if HS_HAS_MPI
/* Whether the ranks can read @p spec's mesh in blocks: @p path receives the file to open (TetGen: the
 * .node beside mesh.file's prefix). Alike on every rank. */
static hs_status read_fits(const hs_mesh_spec *spec, char *path, size_t size)
{
    const char *src = spec->source ? spec->source->name : "?";
    HS_CHECK(spec->source && (!strcmp(src, "file") || !strcmp(src, "tetgen")), HS_ERR_CONFIG,
             "parallel.read = \"ranks\": every rank reads its block of mesh.file; mesh.source = \"%s\" is not read "
             "from a file (use mesh.source = \"file\" or \"tetgen\", or let rank 0 build the mesh)", src);
    if (!strcmp(src, "tetgen")) snprintf(path, size, "%s.node", spec->file);
    else snprintf(path, size, "%s", spec->file);
    HS_CHECK(hs_mesh_block_supports(path), HS_ERR_CONFIG,
             "parallel.read = \"ranks\": mesh.file %s is not in a format read in blocks (openCARP .pts/.elem/.lon, "
             "TetGen .node/.ele); convert it, or let rank 0 read it", spec->file);
    HS_CHECK(spec->fibers != HS_FIBERS_FILE, HS_ERR_CONFIG,
             "fibers.type = \"file\" reads the whole mesh's fibre file on one rank, which parallel.read = \"ranks\" "
             "does not do; use fibers.type = \"mesh\" (openCARP: PREFIX.lon beside PREFIX.elem) or \"constant\", or "
             "let rank 0 read the mesh");
    HS_CHECK(spec->fibers != HS_FIBERS_ELLIPSOID, HS_ERR_CONFIG,
             "fibers.type = \"ellipsoid\" needs mesh.source = \"ellipsoid_lv\" (this one is \"%s\")", src);
    return HS_OK;
}

/* hs_mesh_check on the rank's mesh @p lm (view @p l), its messages naming elements by their global
 * number and nodes by their position in the file (0-based), as a serial check of the whole mesh. */
static hs_status check_local(hs_mesh *lm, const hs_part_local *l, const char *file)
{
    hs_status st = HS_OK;
    int32_t *orig = lm->node_orig, *ident = NULL;
    int64_t *nsrc = NULL, *esrc = NULL;
    st = HS_ALLOC(ident, (size_t)lm->n_nodes + 1, "mesh check");
    if (st == HS_OK) st = HS_ALLOC(nsrc, (size_t)lm->n_nodes + 1, "mesh check");
    if (st == HS_OK) st = HS_ALLOC(esrc, (size_t)lm->n_elems + 1, "mesh check");
    if (st == HS_OK) {
#pragma omp parallel for schedule(static) if (lm->n_nodes > HS_OMP_MIN)
        for (int32_t i = 0; i < lm->n_nodes; ++i) ident[i] = i, nsrc[i] = orig[i];
#pragma omp parallel for schedule(static) if (lm->n_elems > HS_OMP_MIN)
        for (int32_t e = 0; e < lm->n_elems; ++e) esrc[e] = l->elems[e];
        lm->node_orig = ident;
        lm->node_src = nsrc;
        lm->n_node_src = lm->n_nodes;
        lm->elem_src = esrc;
        snprintf(lm->src_path, sizeof lm->src_path, "%.200s", file);
        snprintf(lm->src_numbering, sizeof lm->src_numbering, "0-based, in file order");
        st = hs_mesh_check(lm);
        lm->node_orig = orig;
        lm->node_src = NULL;
        lm->n_node_src = 0;
        lm->elem_src = NULL;
        lm->src_path[0] = lm->src_numbering[0] = '\0';
    }
    free(ident), free(nsrc), free(esrc);
    return st;
}

/* The whole mesh's hs_mesh_fingerprint (sim/checkpoint.c) without the whole mesh: FNV-1a reads bytes
 * in order, so the ranks hash their consecutive pieces in turn, each continuing from the state the
 * rank before it hands on (the used nodes' coordinates by node block, then the elements by element
 * block, then the fibres: the file's by fibre block, or the constant @p fconst per element). The
 * passes are sequential over the ranks: the time is the serial hash's. */
static hs_status chain_fingerprint(MPI_Comm comm, const hs_mesh_block *b, const core_extra *ex, int64_t nn, int64_t ne,
                                   const double *fconst, uint64_t *out)
{
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    uint64_t h = HS_FNV_OFFSET;
    for (int pass = 0; pass < 3; ++pass) {
        if (size > 1 && !(pass == 0 && rank == 0))
            HS_MPI_CALL(MPI_Recv(&h, 1, MPI_UINT64_T, (rank + size - 1) % size, 27, comm, MPI_STATUS_IGNORE));
        if (pass == 0) {
            if (rank == 0) {
                h = hs_fnv1a64(h, &nn, sizeof nn);
                h = hs_fnv1a64(h, &ne, sizeof ne);
            }
            for (int32_t i = 0; i < b->nb_nodes;) { /* runs of used nodes: one call each */
                int32_t j = i;
                while (j < b->nb_nodes && ex->used[j] >= 0) ++j;
                if (j > i) h = hs_fnv1a64(h, b->xyz + 3 * (size_t)i, 3 * sizeof(double) * (size_t)(j - i));
                i = j + 1;
            }
        } else if (pass == 1) {
            h = hs_fnv1a64(h, ex->tets, 4 * sizeof(int32_t) * (size_t)b->nb_elems);
        } else if (b->has_fibers) {
            h = hs_fnv1a64(h, b->fiber, 3 * sizeof(double) * (size_t)b->nb_fibers);
        } else {
            for (int32_t e = 0; e < b->nb_elems; ++e) h = hs_fnv1a64(h, fconst, 3 * sizeof(double));
        }
        if (size > 1 && !(pass == 2 && rank == size - 1))
            HS_MPI_CALL(MPI_Send(&h, 1, MPI_UINT64_T, (rank + 1) % size, 27, comm));
    }
    HS_MPI_CALL(MPI_Bcast(&h, 1, MPI_UINT64_T, size - 1, comm));
    *out = h;
    return HS_OK;
}
#endif

hs_status hs_mesh_part_read(const hs_mesh_spec *spec, const hs_partitioner *p, const hs_stimulus_cfg *sites,
                            int n_sites, int fingerprint, struct hs_backend_mpi_part *part, hs_mesh **counts,
                            hs_stim_set **site_set, hs_mesh_build_info *info)
{
    *counts = NULL;
    *site_set = NULL;
    memset(info, 0, sizeof *info);
#if HS_HAS_MPI
    memset(part, 0, sizeof *part);
    const MPI_Comm comm = hs_par_comm();
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    double t0 = hs_wtime();
    char path[HS_PATH_MAX + 8];
    HS_CALL(hs_par_agree(read_fits(spec, path, sizeof path))); /* alike on every rank: said once */
    hs_mesh_block b;
    memset(&b, 0, sizeof b);
    core_extra ex;
    memset(&ex, 0, sizeof ex);
    hs_mesh_block_reader *rd = NULL;
    int64_t cnt[HS_MESH_BLOCK_COUNTS] = {0}, first[HS_MESH_BLOCK_COUNTS] = {0};
    const hs_mesh_read_opts o = {.linearize = spec->linearize};
    /* each rank its byte range of each file: counted, numbered over the ranks, parsed */
    hs_status st = hs_par_agree(hs_mesh_block_open(path, &o, rank, size, &rd, cnt));
    if (st == HS_OK) {
        HS_MPI_CALL(MPI_Exscan(cnt, first, HS_MESH_BLOCK_COUNTS, MPI_INT64_T, MPI_SUM, comm));
        if (rank == 0) memset(first, 0, sizeof first); /* MPI_Exscan leaves rank 0's undefined */
        st = hs_par_agree(hs_mesh_block_read(rd, first, &b));
    }
    hs_mesh_block_reader_close(&rd);
    if (st != HS_OK) goto fail;
    /* mesh.scale as the serial build applies it (sim/mesh_build.c: file units times scale) */
    if (spec->scale != 1.0) {
#pragma omp parallel for schedule(static) if (3 * (int64_t)b.nb_nodes > HS_OMP_MIN)
        for (int64_t i = 0; i < 3 * (int64_t)b.nb_nodes; ++i) b.xyz[i] *= spec->scale;
    }
    /* fibers.type as hs_mesh_build resolves it; the file's fibres travel only when they are used */
    const int had = b.has_fibers;
    hs_fiber_kind fk = spec->fibers;
    if (fk == HS_FIBERS_AUTO)
        fk = spec->source->auto_fibers == HS_FIBERS_MESH && !had ? HS_FIBERS_CONSTANT : spec->source->auto_fibers;
    st = fk == HS_FIBERS_MESH && !had
             ? HS_FAIL(HS_ERR_MESH, "fibers.type = \"mesh\": %s carries no fibres (VTK: a 3-component CELL_DATA vector "
                       "named fiber, fibers, fibre or fibres; openCARP: PREFIX.lon beside PREFIX.elem); use "
                       "fibers.type = \"file\" or \"constant\"", spec->file)
             : HS_OK;
    double fconst[3] = {0.0, 0.0, 0.0};
    if (st == HS_OK && fk == HS_FIBERS_CONSTANT) {
        const double *d = spec->fiber_dir, n = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        st = isfinite(n) && n > 0.0 ? HS_OK
                                    : HS_FAIL(HS_ERR_CONFIG, "fibre direction (%g, %g, %g) cannot be normalised: it "
                                              "must be a non-zero, finite vector", d[0], d[1], d[2]);
        for (int k = 0; k < 3; ++k) fconst[k] = d[k] / n; /* as hs_mesh_set_fibers_constant */
        free(b.fiber);
        b.fiber = NULL;
        b.has_fibers = 0;
        b.nb_fibers = 0;
        b.fiber0 = 0;
    }
    if ((st = hs_par_agree(st)) != HS_OK) goto fail;
    double t_read = hs_wtime() - t0;
    /* the core: the parts, their views and local meshes */
    st = core_run(&b, p, spec->reorder != HS_REORDER_NONE, spec->file, part, counts, &ex, fingerprint);
    if (st != HS_OK) goto fail;
    double t1 = hs_wtime();
    /* reading and the core, less the partition and the exchanges (the summary's own phases); the local
     * order is the summary's node order (a part of the mesh's time, as mesh.reorder serially) */
    info->seconds_mesh = t1 - t0 - part->partition - part->scatter;
    info->seconds_reorder = ex.seconds_order;
    hs_log(2, "mesh: this rank read its blocks in %.3f s\n", t_read);
    hs_mesh *lm = part->lmesh;
    /* fibres on the local mesh */
    if (fk == HS_FIBERS_CONSTANT) {
        st = hs_mesh_set_fibers_constant(lm, spec->fiber_dir);
        snprintf(info->fibers, sizeof info->fibers, "constant [%g, %g, %g]%s", fconst[0], fconst[1], fconst[2],
                 had ? " (the fibres in mesh.file are not used)" : "");
    } else {
        snprintf(info->fibers, sizeof info->fibers, "as stored in the mesh file");
    }
    if ((st = hs_par_agree(st)) != HS_OK) goto fail;
    info->seconds_fibers = hs_wtime() - t1;
    /* the checks, on every rank's part (every element is in a part) */
    double tc = hs_wtime();
    if ((st = hs_par_agree(check_local(lm, part->l, spec->file))) != HS_OK) goto fail;
    info->seconds_check = hs_wtime() - tc;
    double t2 = hs_wtime();
    /* stimulus sites over the part's elements; a site must cover an element somewhere */
    hs_stim_set_destroy(&part->lstim);
    if ((st = hs_mesh_part_find_sites(lm, sites, n_sites, &part->lstim, site_set)) != HS_OK) goto fail;
    /* checkpoints name the whole mesh by its fingerprint: the ranks' pieces hashed in turn */
    if (fingerprint) {
        double tf = hs_wtime();
        st = chain_fingerprint(comm, &b, &ex, (*counts)->n_nodes, (*counts)->n_elems, fconst, &(*counts)->fingerprint);
        if ((st = hs_par_agree(st)) != HS_OK) goto fail;
        hs_log(2, "mesh: the whole mesh's fingerprint %016llx in %.3f s, the ranks' pieces in turn\n",
               (unsigned long long)(*counts)->fingerprint, hs_wtime() - tf);
    }
    part->scatter += hs_wtime() - t2;
    /* the report: the blocks' sizes, the whole mesh's volume (each element by the owner of its first node) */
    {
        double v[5] = {0.0, (double)b.nb_nodes, -(double)b.nb_nodes, (double)b.nb_elems, -(double)b.nb_elems};
        for (int32_t e = 0; e < lm->n_elems; ++e)
            if (lm->tets[4 * (size_t)e] < part->l->n_owned) v[0] += hs_mesh_elem_volume(lm, e);
        hs_par_sum_doubles(v, 1);
        hs_par_max_doubles(v + 1, 4);
        hs_log(1, "mesh: %s read by %d ranks, each its block of the files (%.0f to %.0f nodes, %.0f to %.0f "
                  "tetrahedra; no rank holds the whole mesh)\n", spec->file, size, -v[2], v[1], -v[4], v[3]);
        hs_log(1, "mesh: %d nodes, %d tetrahedra, volume %.4g mm^3; rank 0's part: %d nodes, %d tetrahedra\n",
               (int)(*counts)->n_nodes, (int)(*counts)->n_elems, v[0], (int)lm->n_nodes, (int)lm->n_elems);
    }
    hs_log(1, "fibres: %s\n", info->fibers);
    if (spec->reorder != HS_REORDER_NONE)
        hs_log(1, "reorder: frames list the nodes in the file's order, as mesh.reorder = \"none\"; each rank's rows in "
                  "local RCM order (parallel.read = \"ranks\")\n");
    else
        hs_log(1, "reorder: none\n");
    free(ex.used);
    free(ex.tets);
    hs_mesh_block_free(&b);
    return HS_OK;
fail:
    hs_backend_mpi_part_free(part);
    hs_stim_set_destroy(site_set);
    hs_mesh_destroy(counts);
    free(ex.used);
    free(ex.tets);
    hs_mesh_block_free(&b);
    return st;
#else
    (void)spec, (void)p, (void)sites, (void)n_sites, (void)fingerprint, (void)part;
    return HS_FAIL(HS_ERR_USAGE, "a distributed run needs a build with MPI (HS_USE_MPI)");
#endif
}
