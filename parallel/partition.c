/* Node partitioners (METIS k-way, seed 001's PCSR-I and PCSR-II) and a rank's local view. */
#include "hs_partition.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_build_config.h"
#include "hs_par.h"
#include "hs_partition_rows.h"
#include "hs_rcm.h"
#include "hs_util.h"
#if HS_HAS_MPI
#include "hs_dist.h" /* hs_par_comm, HS_MPI_CALL: hs_partition_rows_dist's reductions */
#endif

#if HS_HAS_METIS
#include <metis.h>
#endif
#if HS_HAS_PTSCOTCH
#include "hs_partition_scotch.h"
#endif

/* ---- partitioners ------------------------------------------------------------------------- */

/* PCSR-I (seed 001 sec. 4, method 1): rank p owns rows [p n / P, (p+1) n / P). */
static hs_status part_rows(const hs_csr *a, int n_parts, int32_t *part)
{
    const int64_t n = a->n_rows;
    for (int p = 0; p < n_parts; ++p) {
        const int64_t lo = p * n / n_parts, hi = (p + 1) * n / n_parts;
        for (int64_t i = lo; i < hi; ++i) part[i] = p;
    }
    return HS_OK;
}

/* PCSR-II (seed 001 sec. 4, method 2): consecutive rows, the cut before rank p at the row
 * boundary nearest to p nnz / P nonzeros, so each rank's nonzeros are within one row's nonzeros of
 * nnz / P (each cut moves by at most half a row); every rank keeps at least one row. */
static hs_status part_nonzeros(const hs_csr *a, int n_parts, int32_t *part)
{
    const int32_t n = a->n_rows;
    int32_t start = 0; /* first row of rank p */
    int32_t i = 0;
    for (int p = 0; p < n_parts; ++p) {
        int32_t end = n;
        if (p + 1 < n_parts) {
            const double target = (double)(p + 1) * (double)a->nnz / n_parts;
            while (i < n && (double)a->row_ptr[i + 1] <= target) ++i;
            /* row_ptr[i] <= target < row_ptr[i+1]: cut at i or i + 1, whichever is nearer */
            end = (i < n && target - a->row_ptr[i] > a->row_ptr[i + 1] - target) ? i + 1 : i;
            if (end < start + 1) end = start + 1;
            if (end > n - (n_parts - 1 - p)) end = n - (n_parts - 1 - p);
        }
        for (int32_t r = start; r < end; ++r) part[r] = p;
        start = end;
    }
    return HS_OK;
}

/* METIS k-way on the graph of the pattern (diagonal dropped), vertex weight = the row's nonzeros
 * (the SpMV and gather work of the row), default options but a fixed seed so every rank gets the
 * same partition. */
static hs_status part_metis(const hs_csr *a, int n_parts, int32_t *part)
{
#if HS_HAS_METIS
    const int32_t n = a->n_rows;
    if (n_parts == 1) {
        memset(part, 0, (size_t)n * sizeof(*part));
        return HS_OK;
    }
    hs_status st = HS_OK;
    idx_t *xadj = NULL, *adj = NULL, *vwgt = NULL, *where = NULL;
    HS_CALL_GOTO(HS_ALLOC(xadj, (size_t)n + 1, "METIS graph"), done);
    HS_CALL_GOTO(HS_ALLOC(adj, (size_t)a->nnz, "METIS graph"), done);
    HS_CALL_GOTO(HS_ALLOC(vwgt, n, "METIS weights"), done);
    HS_CALL_GOTO(HS_ALLOC(where, n, "METIS partition"), done);
    idx_t k = 0;
    for (int32_t i = 0; i < n; ++i) {
        xadj[i] = k;
        for (int32_t j = a->row_ptr[i]; j < a->row_ptr[i + 1]; ++j)
            if (a->col[j] != i) adj[k++] = a->col[j];
        vwgt[i] = a->row_ptr[i + 1] - a->row_ptr[i];
    }
    xadj[n] = k;
    idx_t nv = n, ncon = 1, np = n_parts, objval = 0;
    idx_t opt[METIS_NOPTIONS];
    METIS_SetDefaultOptions(opt);
    opt[METIS_OPTION_SEED] = 1;
    opt[METIS_OPTION_NUMBERING] = 0;
    const int rc = METIS_PartGraphKway(&nv, &ncon, xadj, adj, vwgt, NULL, NULL, &np, NULL, NULL, opt,
                                       &objval, where);
    HS_CHECK_GOTO(rc == METIS_OK, done, rc == METIS_ERROR_MEMORY ? HS_ERR_MEMORY : HS_ERR_INTERNAL,
                  "METIS_PartGraphKway failed (code %d) on %d nodes into %d parts", rc, (int)n, n_parts);
    for (int32_t i = 0; i < n; ++i) part[i] = (int32_t)where[i];
done:
    free(xadj);
    free(adj);
    free(vwgt);
    free(where);
    return st;
#else
    (void)a;
    (void)n_parts;
    (void)part;
    return HS_FAIL(HS_ERR_INTERNAL, "METIS is not built in");
#endif
}

/* The structured box's blocks: not a function of a pattern (each rank generates its part of the
 * box, hs_box_blocks_*), so a mesh that is not that box is refused here. */
static hs_status part_box(const hs_csr *a, int n_parts, int32_t *part)
{
    (void)a, (void)n_parts, (void)part;
    return HS_FAIL(HS_ERR_CONFIG, "parallel.partition = \"box\" partitions the structured mesh.source = \"box\" "
                   "only (each rank generates its own block of it); this mesh is not one: use \"metis\", \"rows\" "
                   "or \"auto\"");
}

/* PT-Scotch partitions with every rank of a run at once (hs_partition_nodes_root): one process alone
 * has no graph blocks to give it */
static hs_status part_ptscotch(const hs_csr *a, int n_parts, int32_t *part)
{
    (void)a, (void)n_parts, (void)part;
    return HS_FAIL(HS_ERR_CONFIG, "parallel.partition = \"ptscotch\" partitions in parallel, every rank of a "
                   "distributed run (mpirun) with a block of the graph; here one process partitions alone: use "
                   "\"metis\" or \"rows\"");
}

/* whether each partitioner is built here, and what it needs when it is not */
#define available_metis HS_HAS_METIS
#define available_ptscotch HS_HAS_PTSCOTCH
#define needs_metis "METIS: install libmetis-dev"
#define needs_ptscotch "PT-Scotch and MPI: install libptscotch-dev"
#define needs_rows ""
#define needs_nonzeros ""
#define needs_box ""
#define available_rows 1
#define available_nonzeros 1
#define available_box 1
/* whether each one reads the pattern beyond its row count */
#define needs_pattern_metis 1
#define needs_pattern_ptscotch 0 /* each rank builds its rows from the elements rank 0 sends */
#define needs_pattern_rows 0
#define needs_pattern_nonzeros 1
#define needs_pattern_box 0
/* whether each one is the box's own (hs_partitioner.box) */
#define box_metis 0
#define box_ptscotch 0
#define box_rows 0
#define box_nonzeros 0
#define box_box 1

/* whether each one partitions on every rank at once, and its function then */
#define parallel_metis 0
#define parallel_ptscotch 1
#define parallel_rows 0
#define parallel_nonzeros 0
#define parallel_box 0
#define root_metis NULL
#if HS_HAS_PTSCOTCH
#define root_ptscotch hs_ptscotch_partition_root
#else
#define root_ptscotch NULL
#endif
#define root_rows NULL
#define root_nonzeros NULL
#define root_box NULL
#define rows_dist_metis 0
#define rows_dist_rows 1
#define rows_dist_nonzeros 1
#define rows_dist_ptscotch 1
#define rows_dist_box 0

static const hs_partitioner partitioners[] = {
#define HS_PARTITIONER(id, name, summary, seed) \
    {name, summary, seed, available_##id, needs_pattern_##id, part_##id, box_##id, parallel_##id, root_##id,  \
     rows_dist_##id},
#include "hs_partition_list.h"
#undef HS_PARTITIONER
};

const hs_registry *hs_partitioners(void)
{
    static const hs_registry reg = HS_REGISTRY_INIT("partitioner", partitioners);
    return &reg;
}

hs_status hs_partitioner_lookup(const char *key, const char *name, const hs_partitioner **out)
{
    const void *e = NULL;
    HS_CALL(hs_registry_lookup(hs_partitioners(), key, name, NULL, &e));
    const hs_partitioner *p = e;
    static const char *const needs[] = {
#define HS_PARTITIONER(id, name, summary, seed) needs_##id,
#include "hs_partition_list.h"
#undef HS_PARTITIONER
    };
    if (!p->available) {
        char here[256] = "";
        for (size_t k = 0; k < sizeof partitioners / sizeof partitioners[0]; ++k)
            if (partitioners[k].available)
                snprintf(here + strlen(here), sizeof here - strlen(here), "%s%s", here[0] ? ", " : "",
                         partitioners[k].name);
        return HS_FAIL(HS_ERR_CONFIG, "%s: partitioner \"%s\" is not in this build (it needs %s, "
                       "scripts/setup-debian.sh, and rebuild); available here: %s",
                       key, name, needs[p - partitioners], here);
    }
    *out = p;
    return HS_OK;
}

hs_status hs_partition_nodes_root(const hs_partitioner *p, const hs_csr *pattern, int32_t n_nodes, int32_t n_elems,
                                  const int32_t *tets, int n_parts, int root, int32_t *part)
{
    if (!p->parallel) return root ? hs_partition_nodes_n(p, pattern, n_nodes, n_parts, part) : HS_OK;
    HS_CHECK(p->available && p->assign_root, HS_ERR_CONFIG, "partitioner \"%s\" is not in this build", p->name);
    return p->assign_root(root ? pattern : NULL, n_nodes, root ? n_elems : 0, root ? tets : NULL, n_parts,
                          root ? part : NULL);
}

/* ---- the partition of rows held in blocks (hs_partition_rows_dist, parallel.read = "ranks") ---- */

static int cmp_i64(const void *x, const void *y)
{
    const int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* sorted, each once, in place: a row's neighbours through its elements (3 per element, ~70 in a
 * tetrahedral mesh), where an insertion sort beats qsort's calls (qsort for the rare large rows);
 * returns the count kept */
static int32_t sort_unique_i64(int64_t *v, int32_t k)
{
    if (k > 256) {
        qsort(v, (size_t)k, sizeof *v, cmp_i64);
    } else {
        for (int32_t i = 1; i < k; ++i) {
            const int64_t x = v[i];
            int32_t j = i - 1;
            while (j >= 0 && v[j] > x) {
                v[j + 1] = v[j];
                --j;
            }
            v[j + 1] = x;
        }
    }
    int32_t u = 0;
    for (int32_t j = 0; j < k; ++j)
        if (u == 0 || v[j] != v[u - 1]) v[u++] = v[j];
    return u;
}

hs_status hs_partition_block_rows(int64_t lo, int64_t hi, int32_t n_elems, const int64_t *et, int32_t *deg,
                                  size_t adj_width, void **adj)
{
    const int32_t n = (int32_t)(hi - lo);
    hs_status st = HS_OK;
    int64_t *inc_ptr = NULL, *off = NULL;
    int32_t *inc = NULL; /* the block's incidence: inc_ptr[r] .. inc_ptr[r+1]-1 the elements of row r */
    int64_t max_deg = 0;
    int fail = 0;
    char *out = NULL;
    if (adj) *adj = NULL;
    HS_CHECK(!adj || adj_width == 4 || adj_width == 8, HS_ERR_INTERNAL, "adjacency of %zu-byte integers", adj_width);
    HS_CALL(HS_ALLOC(inc_ptr, (size_t)n + 2, "graph block rows"));
    for (int64_t e = 0; e < n_elems; ++e)
        for (int c = 0; c < 4; ++c)
            if (et[4 * e + c] >= lo && et[4 * e + c] < hi) ++inc_ptr[et[4 * e + c] - lo + 2];
    for (int32_t r = 0; r < n; ++r) {
        if (inc_ptr[r + 2] > max_deg) max_deg = inc_ptr[r + 2];
        inc_ptr[r + 2] += inc_ptr[r + 1];
    }
    HS_CALL_GOTO(HS_ALLOC(inc, (size_t)inc_ptr[n + 1] + 1, "graph block rows"), done);
    for (int32_t e = 0; e < n_elems; ++e)
        for (int c = 0; c < 4; ++c) {
            const int64_t v = et[4 * (int64_t)e + c];
            if (v >= lo && v < hi) inc[inc_ptr[v - lo + 1]++] = e;
        }
    HS_CALL_GOTO(HS_ALLOC(off, (size_t)omp_get_max_threads() + 1, "graph block rows"), done);
    /* each thread a contiguous range of rows, its adjacency in its own buffer, then copied in place
     * (hs_csr_from_tets's scheme): the rows in order, whatever the thread count */
#pragma omp parallel
    {
        const int nt = omp_get_num_threads(), id = omp_get_thread_num();
        const int32_t r0 = (int32_t)((int64_t)id * n / nt), r1 = (int32_t)((int64_t)(id + 1) * n / nt);
        int64_t *nb = malloc(sizeof *nb * (3 * (size_t)max_deg + 1)), len = 0, cap = 0;
        char *buf = NULL;
        int dead = !nb;
        for (int32_t r = r0; r < r1 && !dead; ++r) {
            const int64_t gi = lo + r;
            int32_t k = 0;
            for (int64_t j = inc_ptr[r]; j < inc_ptr[r + 1]; ++j)
                for (int c = 0; c < 4; ++c)
                    if (et[4 * (int64_t)inc[j] + c] != gi) nb[k++] = et[4 * (int64_t)inc[j] + c];
            const int32_t u = sort_unique_i64(nb, k);
            deg[r] = u;
            if (!adj) continue;
            if (len + u > cap) {
                /* at least 36 MB (virtual: only what is written is touched), above glibc's largest mmap
                 * threshold: its own mapping, returned whole on free, not kept in the thread's arena
                 * (as hs_csr_from_tets) */
                const int64_t min_cap = ((int64_t)36 << 20) / (int64_t)adj_width;
                int64_t nc = 2 * cap > len + u ? 2 * cap : len + u;
                if (nc < min_cap) nc = min_cap;
                char *grown = realloc(buf, adj_width * (size_t)nc);
                if (!grown) {
                    dead = 1;
                    break;
                }
                buf = grown;
                cap = nc;
            }
            if (adj_width == 4)
                for (int32_t j = 0; j < u; ++j) ((int32_t *)buf)[len + j] = (int32_t)nb[j];
            else
                memcpy(buf + 8 * (size_t)len, nb, sizeof *nb * (size_t)u);
            len += u;
        }
        free(nb);
        if (dead) {
#pragma omp atomic write
            fail = 1;
        }
        off[id + 1] = len;
#pragma omp barrier
#pragma omp single
        if (!fail && adj) {
            off[0] = 0;
            for (int t = 0; t < nt; ++t) off[t + 1] += off[t];
            out = malloc(adj_width * (size_t)off[nt] + adj_width);
            if (!out) fail = 1;
        }
        /* (the single's barrier) */
        if (!fail && adj && len > 0) memcpy(out + adj_width * (size_t)off[id], buf, adj_width * (size_t)len);
        free(buf);
    }
    HS_CHECK_GOTO(!fail, done, HS_ERR_MEMORY, "out of memory for the graph's rows %lld .. %lld", (long long)lo,
                  (long long)hi - 1);
    if (adj) *adj = out;
    out = NULL;
done:
    free(inc_ptr);
    free(inc);
    free(off);
    free(out);
    return st;
}

/* rank and size on hs_par_comm; 0 and 1 on a process that is not one of a distributed run */
static void dist_place(int *rank, int *size)
{
    *rank = 0;
    *size = 1;
#if HS_HAS_MPI
    if (hs_par_active()) {
        MPI_Comm_rank(hs_par_comm(), rank);
        MPI_Comm_size(hs_par_comm(), size);
    }
#endif
}

/* v [n] reduced over the ranks in place: op 0 the sum, 1 the maximum, 2 the minimum (nothing on one
 * process). Called alike by every rank. */
static hs_status dist_reduce_i64(int64_t *v, int n, int op)
{
#if HS_HAS_MPI
    if (hs_par_active())
        HS_MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, op == 0 ? MPI_SUM : op == 1 ? MPI_MAX : MPI_MIN,
                                  hs_par_comm()));
#else
    (void)v, (void)n, (void)op;
#endif
    return HS_OK;
}

/* "rows" on the blocks: part_rows's owners, p n / P <= i < (p+1) n / P, for the block's rows */
static hs_status dist_rows(const int64_t *vtxdist, int rank, int size, int32_t ne, const int64_t *tets, int32_t *owner)
{
    (void)ne, (void)tets;
    const int64_t n = vtxdist[size], lo = vtxdist[rank], hi = vtxdist[rank + 1];
    for (int p = 0; p < size; ++p) {
        const int64_t a = p * n / size, b = (p + 1) * n / size;
        for (int64_t i = a > lo ? a : lo; i < (b < hi ? b : hi); ++i) owner[i - lo] = p;
    }
    return HS_OK; /* on every rank */
}

/* "nonzeros" on the blocks: part_nonzeros's owners. Its cut before rank p + 1 is at i or i + 1, i the
 * row whose nonzeros straddle the target t = (p+1) nnz / P (row_ptr[i] <= t < row_ptr[i+1]: the first
 * row the serial sweep stops at, the targets increasing), the nearer of the two; then each cut is kept
 * after the previous one and before the ranks still to come, in rank order, as part_nonzeros does.
 * The rows' global offsets from the blocks' nonzeros (an exclusive prefix sum over the ranks); the
 * rank holding row i finds its cut, every rank gets the cuts and applies the order. Same doubles, same
 * comparisons: the same owners. */
static hs_status dist_nonzeros(const int64_t *vtxdist, int rank, int size, int32_t ne, const int64_t *tets,
                               int32_t *owner)
{
    const int64_t n = vtxdist[size], lo = vtxdist[rank], hi = vtxdist[rank + 1];
    const int32_t n_loc = (int32_t)(hi - lo);
    int64_t *rp = NULL, *blk = NULL, *cut = NULL; /* rp [n_loc+1]: row_ptr[lo ..= hi], global */
    int32_t *deg = NULL;
    hs_status st = HS_ALLOC(rp, (size_t)n_loc + 1, "nonzeros partition");
    if (st == HS_OK) st = HS_ALLOC(blk, size, "nonzeros partition");
    if (st == HS_OK) st = HS_ALLOC(cut, size, "nonzeros partition");
    if (st == HS_OK) st = HS_ALLOC(deg, (size_t)n_loc + 1, "nonzeros partition");
    if (st == HS_OK) st = hs_partition_block_rows(lo, hi, ne, tets, deg, 0, NULL);
    st = hs_par_agree(st);
    if (st != HS_OK) goto done;
    for (int32_t r = 0; r < n_loc; ++r) rp[r + 1] = rp[r] + deg[r] + 1; /* the row's nonzeros: + the diagonal */
    blk[rank] = rp[n_loc];
    st = hs_par_agree(dist_reduce_i64(blk, size, 0)); /* every block's nonzeros */
    if (st != HS_OK) goto done;
    int64_t before = 0, nnz = 0;
    for (int q = 0; q < size; ++q) {
        if (q < rank) before += blk[q];
        nnz += blk[q];
    }
    for (int32_t r = 0; r <= n_loc; ++r) rp[r] += before;
    int32_t r = 0;
    for (int p = 0; p + 1 < size; ++p) {
        cut[p] = -1;
        const double target = (double)(p + 1) * (double)nnz / size;
        if (n_loc == 0 || !((double)rp[0] <= target && target < (double)rp[n_loc])) continue;
        while ((double)rp[r + 1] <= target) ++r;
        const int64_t i = lo + r;
        cut[p] = (target - (double)rp[r] > (double)rp[r + 1] - target) ? i + 1 : i;
    }
    st = hs_par_agree(dist_reduce_i64(cut, size - 1, 1));
    if (st != HS_OK) goto done;
    int64_t start = 0;
    for (int p = 0; p < size; ++p) {
        int64_t end = n;
        if (p + 1 < size) {
            end = cut[p] < 0 ? n : cut[p]; /* no rank holds the row: the sweep ran off the end */
            if (end < start + 1) end = start + 1;
            if (end > n - (size - 1 - p)) end = n - (size - 1 - p);
        }
        for (int64_t i = start > lo ? start : lo; i < (end < hi ? end : hi); ++i) owner[i - lo] = p;
        start = end;
    }
done:
    free(rp);
    free(blk);
    free(cut);
    free(deg);
    return st;
}

#if HS_HAS_PTSCOTCH
static hs_status dist_ptscotch(const int64_t *vtxdist, int rank, int size, int32_t ne, const int64_t *tets,
                               int32_t *owner)
{
    (void)rank;
    return hs_ptscotch_partition_rows(vtxdist, ne, tets, size, owner);
}
#else
#define dist_ptscotch NULL
#endif
#define dist_metis NULL /* one process with the whole graph */
#define dist_box NULL   /* the structured box's blocks, not a graph's */

/* each partitioner's partition of rows in blocks, in the list's order; NULL: refused */
typedef hs_status (*dist_fn)(const int64_t *vtxdist, int rank, int size, int32_t ne, const int64_t *tets,
                             int32_t *owner);
static const dist_fn dist_fns[] = {
#define HS_PARTITIONER(id, name, summary, seed) dist_##id,
#include "hs_partition_list.h"
#undef HS_PARTITIONER
};

hs_status hs_partition_rows_dist(const hs_partitioner *p, const int64_t *vtxdist, int32_t n_row_elems,
                                 const int64_t *row_tets, int32_t *owner)
{
    int rank = 0, size = 1;
    dist_place(&rank, &size);
    hs_status st = HS_OK;
    const dist_fn fn = dist_fns[p - partitioners];
    int64_t *alike = NULL, *count = NULL;
    if (!p->available) /* lookup refuses it first; the same on every rank */
        return hs_par_agree(HS_FAIL(HS_ERR_CONFIG, "partitioner \"%s\" is not in this build", p->name));
    if (!fn) { /* the same on every rank */
        char ok[128] = "";
        for (size_t k = 0; k < sizeof partitioners / sizeof partitioners[0]; ++k)
            if (dist_fns[k] && partitioners[k].available)
                snprintf(ok + strlen(ok), sizeof ok - strlen(ok), "%s\"%s\"", ok[0] ? ", " : "", partitioners[k].name);
        st = p->box ? HS_FAIL(HS_ERR_CONFIG, "parallel.partition = \"box\" partitions the structured mesh.source = "
                              "\"box\" only (each rank generates its block); with parallel.read = \"ranks\" each rank "
                              "reads a block of a mesh file's rows: use %s", ok)
                    : HS_FAIL(HS_ERR_CONFIG, "parallel.partition = \"%s\" partitions the whole graph on one process, "
                              "and with parallel.read = \"ranks\" no rank holds it (each reads a block of rows): use "
                              "%s", p->name, ok);
        return hs_par_agree(st);
    }
    /* the blocks: from 0, increasing, at least a node per rank, alike on every rank */
    const int64_t n = vtxdist[size], lo = vtxdist[rank], hi = vtxdist[rank + 1];
    if (vtxdist[0] != 0) st = HS_FAIL(HS_ERR_INTERNAL, "row blocks start at row %lld, not 0", (long long)vtxdist[0]);
    for (int q = 0; q < size && st == HS_OK; ++q)
        if (vtxdist[q + 1] < vtxdist[q])
            st = HS_FAIL(HS_ERR_INTERNAL, "row blocks decrease: rank %d's ends at row %lld before it starts at %lld", q,
                         (long long)vtxdist[q + 1], (long long)vtxdist[q]);
    if (st == HS_OK && hi - lo > INT32_MAX)
        st = HS_FAIL(HS_ERR_CONFIG, "rank %d holds %lld rows, more than its 32-bit local indices count (2^31 - 1): "
                     "use more ranks", rank, (long long)(hi - lo));
    if (st == HS_OK && n < size)
        st = HS_FAIL(HS_ERR_CONFIG, "cannot partition %lld nodes over %d ranks: every rank must own a node",
                     (long long)n, size);
    st = hs_par_agree(st);
    if (st != HS_OK) return st;
    HS_CALL_GOTO(hs_par_agree(HS_ALLOC(alike, 2 * (size_t)size + 2, "row blocks")), done);
    for (int q = 0; q <= size; ++q) alike[q] = alike[size + 1 + q] = vtxdist[q];
    st = dist_reduce_i64(alike, size + 1, 1);
    if (st == HS_OK) st = dist_reduce_i64(alike + size + 1, size + 1, 2);
    for (int q = 0; q <= size && st == HS_OK; ++q)
        if (alike[q] != alike[size + 1 + q])
            st = HS_FAIL(HS_ERR_INTERNAL, "the ranks' row blocks differ: rank %d's starts at row %lld on one rank, "
                         "%lld on another", q, (long long)alike[size + 1 + q], (long long)alike[q]);
    /* the elements' vertices are rows of the graph */
    for (int64_t k = 0; k < 4 * (int64_t)n_row_elems && st == HS_OK; ++k)
        if (row_tets[k] < 0 || row_tets[k] >= n)
            st = HS_FAIL(HS_ERR_INTERNAL, "element %lld of rank %d's rows has vertex %lld, outside the graph's %lld "
                         "rows", (long long)(k / 4), rank, (long long)row_tets[k], (long long)n);
    HS_CALL_GOTO(hs_par_agree(st), done);
    HS_CALL_GOTO(fn(vtxdist, rank, size, n_row_elems, row_tets, owner), done); /* agreed */
    /* every rank owns a node (PT-Scotch could leave a part empty) */
    st = HS_ALLOC(count, size, "partition counts");
    for (int64_t i = 0; i < hi - lo && st == HS_OK; ++i) {
        if (owner[i] < 0 || owner[i] >= size)
            st = HS_FAIL(HS_ERR_INTERNAL, "partitioner %s put node %lld on rank %d of %d", p->name, (long long)(lo + i),
                         (int)owner[i], size);
        else ++count[owner[i]];
    }
    HS_CALL_GOTO(hs_par_agree(st), done);
    HS_CALL_GOTO(hs_par_agree(dist_reduce_i64(count, size, 0)), done);
    for (int q = 0; q < size && st == HS_OK; ++q)
        if (count[q] == 0)
            st = HS_FAIL(HS_ERR_CONFIG, "partitioner %s left rank %d without nodes (%lld nodes over %d ranks): use "
                         "fewer ranks or parallel.partition = \"rows\"", p->name, q, (long long)n, size);
    st = hs_par_agree(st);
done:
    free(alike);
    free(count);
    return st;
}

hs_status hs_partition_nodes_n(const hs_partitioner *p, const hs_csr *pattern, int32_t n_nodes, int n_parts,
                               int32_t *part)
{
    if (pattern) {
        HS_CHECK(pattern->n_rows == n_nodes, HS_ERR_INTERNAL, "a pattern of %d rows for %d nodes",
                 (int)pattern->n_rows, (int)n_nodes);
        return hs_partition_nodes(p, pattern, n_parts, part);
    }
    HS_CHECK(!p->needs_pattern, HS_ERR_INTERNAL, "partitioner %s needs the pattern", p->name);
    hs_csr rows_only; /* what such a partitioner reads: the row count */
    memset(&rows_only, 0, sizeof rows_only);
    rows_only.n_rows = n_nodes;
    return hs_partition_nodes(p, &rows_only, n_parts, part);
}

hs_status hs_partition_nodes(const hs_partitioner *p, const hs_csr *pattern, int n_parts, int32_t *part)
{
    HS_CHECK(n_parts >= 1 && n_parts <= pattern->n_rows, HS_ERR_CONFIG,
             "cannot partition %d nodes over %d ranks: every rank must own a node", (int)pattern->n_rows,
             n_parts);
    HS_CHECK(p->available, HS_ERR_CONFIG, "partitioner \"%s\" is not in this build", p->name);
    HS_CALL(p->assign(pattern, n_parts, part));
    /* every rank must own a node: METIS may leave a part empty on tiny graphs */
    int32_t *count = NULL;
    HS_CALL(HS_ALLOC(count, n_parts, "partition counts"));
    for (int32_t i = 0; i < pattern->n_rows; ++i) {
        if (part[i] < 0 || part[i] >= n_parts) {
            free(count);
            return HS_FAIL(HS_ERR_INTERNAL, "partitioner %s put node %d on rank %d of %d", p->name, (int)i,
                           (int)part[i], n_parts);
        }
        ++count[part[i]];
    }
    for (int q = 0; q < n_parts; ++q) {
        if (count[q] == 0) {
            free(count);
            return HS_FAIL(HS_ERR_CONFIG,
                           "partitioner %s left rank %d without nodes (%d nodes over %d ranks): use fewer "
                           "ranks or parallel.partition = \"rows\"",
                           p->name, q, (int)pattern->n_rows, n_parts);
        }
    }
    free(count);
    return HS_OK;
}

int64_t hs_partition_edge_cut(const hs_csr *a, const int32_t *part)
{
    int64_t cut = 0;
    for (int32_t i = 0; i < a->n_rows; ++i)
        for (int32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; ++k)
            if (a->col[k] > i && part[a->col[k]] != part[i]) ++cut;
    return cut;
}

hs_part_balance hs_partition_balance(const hs_csr *a, const int32_t *part, int n_parts)
{
    hs_part_balance b = {hs_partition_edge_cut(a, part), 0.0, 0.0};
    int64_t *nodes = calloc((size_t)n_parts, sizeof(*nodes)), *nnz = calloc((size_t)n_parts, sizeof(*nnz));
    if (!nodes || !nnz) {
        free(nodes);
        free(nnz);
        b.imbalance_nodes = b.imbalance_nnz = -1.0; /* out of memory: unknown */
        return b;
    }
    for (int32_t i = 0; i < a->n_rows; ++i) {
        ++nodes[part[i]];
        nnz[part[i]] += a->row_ptr[i + 1] - a->row_ptr[i];
    }
    int64_t max_nodes = 0, max_nnz = 0;
    for (int q = 0; q < n_parts; ++q) {
        if (nodes[q] > max_nodes) max_nodes = nodes[q];
        if (nnz[q] > max_nnz) max_nnz = nnz[q];
    }
    b.imbalance_nodes = (double)max_nodes * n_parts / (double)a->n_rows;
    b.imbalance_nnz = (double)max_nnz * n_parts / (double)a->nnz;
    free(nodes);
    free(nnz);
    return b;
}

/* ---- a rank's local view ------------------------------------------------------------------ */

void hs_part_local_destroy(hs_part_local **p)
{
    if (!p || !*p) return;
    hs_part_local *l = *p;
    free(l->l2g);
    free(l->ghost_owner);
    free(l->elems);
    free(l->tets);
    hs_csr_destroy(&l->pattern);
    hs_csr_destroy(&l->local_pattern);
    free(l->nbr);
    free(l->send_ptr);
    free(l->send_idx);
    free(l->recv_ptr);
    free(l);
    *p = NULL;
}

/* The ghosts' local numbers, after the owned ones: grouped by owner slot (nbr_of), global order
 * within an owner. On entry g2l[i] == -2 marks a ghost; on return it holds its local number, and
 * l->recv_ptr, l2g[n_owned..] and ghost_owner are filled (hs_part_local_create and
 * hs_part_local_create_elems share it). */
static hs_status number_ghosts(hs_part_local *l, int32_t n, const int32_t *part, const int32_t *nbr_of, int32_t *g2l)
{
    const int32_t n_owned = l->n_owned;
    for (int32_t i = 0; i < n; ++i)
        if (g2l[i] == -2) ++l->recv_ptr[nbr_of[part[i]] + 1];
    for (int k = 0; k < l->n_nbrs; ++k) l->recv_ptr[k + 1] += l->recv_ptr[k];
    int32_t *fill = NULL;
    HS_CALL(HS_ALLOC(fill, (size_t)l->n_nbrs + 1, "partition receive lists"));
    for (int32_t i = 0; i < n; ++i) {
        if (g2l[i] != -2) continue;
        const int32_t k = nbr_of[part[i]];
        const int32_t gi = l->recv_ptr[k] + fill[k]++;
        l->l2g[n_owned + gi] = i;
        l->ghost_owner[gi] = part[i];
        g2l[i] = n_owned + gi;
    }
    free(fill);
    return HS_OK;
}

hs_status hs_part_local_create(const hs_csr *a, int32_t n_elems, const int32_t *tets, const int32_t *part,
                               int n_ranks, int rank, hs_part_local **out)
{
    *out = NULL;
    hs_status st = HS_OK;
    const int32_t n = a->n_rows;
    hs_part_local *l = NULL;
    int32_t *g2l = NULL; /* [n] local index, -1 = not held */
    int32_t *nbr_of = NULL; /* [n_ranks] neighbour slot of a rank, -1 = none */
    int32_t *mark = NULL;   /* [n_ranks] last row that counted this rank */
    HS_CALL(HS_ALLOC(l, 1, "partition view"));
    l->rank = rank;
    l->n_ranks = n_ranks;
    l->n_global = n;
    HS_CALL_GOTO(HS_ALLOC(g2l, n, "partition map"), fail);
    HS_CALL_GOTO(HS_ALLOC(nbr_of, n_ranks, "partition neighbours"), fail);
    HS_CALL_GOTO(HS_ALLOC(mark, n_ranks, "partition neighbours"), fail);
    for (int32_t i = 0; i < n; ++i) g2l[i] = -1;
    for (int q = 0; q < n_ranks; ++q) nbr_of[q] = mark[q] = -1;

    /* owned rows; a row is boundary when a column is another rank's; those columns are ghosts
     * (g2l = -2 marks a ghost until it is numbered) */
    int32_t n_owned = 0, n_boundary = 0, n_ghost = 0;
    for (int32_t i = 0; i < n; ++i) {
        if (part[i] != rank) continue;
        ++n_owned;
        int boundary = 0;
        for (int32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; ++k) {
            const int32_t j = a->col[k];
            if (part[j] == rank) continue;
            boundary = 1;
            if (g2l[j] == -1) {
                g2l[j] = -2;
                ++n_ghost;
            }
            nbr_of[part[j]] = 0; /* a neighbour; slots numbered below */
        }
        n_boundary += boundary;
    }
    l->n_owned = n_owned;
    l->n_interior = n_owned - n_boundary;
    l->n_ghost = n_ghost;
    HS_CALL_GOTO(HS_ALLOC(l->l2g, (size_t)n_owned + n_ghost + 1, "partition local nodes"), fail);
    HS_CALL_GOTO(HS_ALLOC(l->ghost_owner, (size_t)n_ghost + 1, "partition ghosts"), fail);

    /* neighbours in increasing rank */
    for (int q = 0; q < n_ranks; ++q)
        if (nbr_of[q] == 0) ++l->n_nbrs;
    HS_CALL_GOTO(HS_ALLOC(l->nbr, (size_t)l->n_nbrs + 1, "partition neighbours"), fail);
    HS_CALL_GOTO(HS_ALLOC(l->send_ptr, (size_t)l->n_nbrs + 1, "partition send lists"), fail);
    HS_CALL_GOTO(HS_ALLOC(l->recv_ptr, (size_t)l->n_nbrs + 1, "partition receive lists"), fail);
    {
        int k = 0;
        for (int q = 0; q < n_ranks; ++q)
            if (nbr_of[q] == 0) {
                l->nbr[k] = q;
                nbr_of[q] = k++;
            }
    }

    /* local numbering: interior owned, boundary owned (both in global order), then ghosts grouped
     * by owner (counting sort on the owner's slot), in global order within an owner */
    {
        int32_t ni = 0, nb = l->n_interior;
        for (int32_t i = 0; i < n; ++i) {
            if (part[i] != rank) continue;
            int boundary = 0;
            for (int32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1] && !boundary; ++k)
                boundary = part[a->col[k]] != rank;
            const int32_t li = boundary ? nb++ : ni++;
            l->l2g[li] = i;
            g2l[i] = li;
        }
        HS_CALL_GOTO(number_ghosts(l, n, part, nbr_of, g2l), fail);
    }

    /* send lists: boundary rows in local (= global) order, each to every distinct rank among its
     * columns' owners; two passes (count, fill) */
    for (int pass = 0; pass < 2; ++pass) {
        int32_t *fill = NULL;
        if (pass == 1) {
            for (int k = 0; k < l->n_nbrs; ++k) l->send_ptr[k + 1] += l->send_ptr[k];
            HS_CALL_GOTO(HS_ALLOC(l->send_idx, (size_t)l->send_ptr[l->n_nbrs] + 1, "partition send lists"), fail);
            HS_CALL_GOTO(HS_ALLOC(fill, (size_t)l->n_nbrs + 1, "partition send lists"), fail);
            for (int q = 0; q < n_ranks; ++q) mark[q] = -1;
        }
        for (int32_t li = l->n_interior; li < n_owned; ++li) {
            const int32_t i = (int32_t)l->l2g[li]; /* the global pattern is 32-bit */
            for (int32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; ++k) {
                const int32_t q = part[a->col[k]];
                if (q == rank || mark[q] == li) continue;
                mark[q] = li;
                const int s = nbr_of[q];
                if (pass == 0)
                    ++l->send_ptr[s + 1];
                else
                    l->send_idx[l->send_ptr[s] + fill[s]++] = li;
            }
        }
        free(fill);
    }

    /* elements touching an owned node, in global order, with local node indices */
    for (int pass = 0; pass < 2; ++pass) {
        int32_t m = 0;
        for (int32_t e = 0; e < n_elems; ++e) {
            const int32_t *t = tets + 4 * (size_t)e;
            if (part[t[0]] != rank && part[t[1]] != rank && part[t[2]] != rank && part[t[3]] != rank) continue;
            if (pass == 1) {
                l->elems[m] = e;
                for (int c = 0; c < 4; ++c) {
                    HS_CHECK_GOTO(g2l[t[c]] >= 0, fail, HS_ERR_INTERNAL,
                                  "element %d touches rank %d but its node %d is neither owned nor a ghost "
                                  "(pattern and elements disagree)",
                                  (int)e, rank, (int)t[c]);
                    l->tets[4 * (size_t)m + c] = g2l[t[c]];
                }
            }
            ++m;
        }
        if (pass == 0) {
            l->n_elems = m;
            HS_CALL_GOTO(HS_ALLOC(l->elems, (size_t)m + 1, "partition elements"), fail);
            HS_CALL_GOTO(HS_ALLOC(l->tets, 4 * (size_t)m + 4, "partition elements"), fail);
        }
    }

    /* local pattern: the owned rows with local columns, sorted */
    {
        int64_t nnz = 0;
        for (int32_t li = 0; li < n_owned; ++li) {
            const int32_t i = (int32_t)l->l2g[li];
            nnz += a->row_ptr[i + 1] - a->row_ptr[i];
        }
        HS_CALL_GOTO(hs_csr_create(n_owned, n_owned + n_ghost, (int32_t)nnz, &l->pattern), fail);
        hs_csr *b = l->pattern;
        int32_t k = 0;
        for (int32_t li = 0; li < n_owned; ++li) {
            const int32_t i = (int32_t)l->l2g[li];
            b->row_ptr[li] = k;
            for (int32_t j = a->row_ptr[i]; j < a->row_ptr[i + 1]; ++j) {
                /* insertion into the sorted row (rows hold ~15-30 entries) */
                const int32_t c = g2l[a->col[j]];
                int32_t p = k++;
                while (p > b->row_ptr[li] && b->col[p - 1] > c) {
                    b->col[p] = b->col[p - 1];
                    --p;
                }
                b->col[p] = c;
            }
        }
        b->row_ptr[n_owned] = k;
    }
    free(g2l);
    free(nbr_of);
    free(mark);
    *out = l;
    return HS_OK;
fail:
    free(g2l);
    free(nbr_of);
    free(mark);
    hs_part_local_destroy(&l);
    return st;
}

hs_part_stats hs_part_local_stats(const hs_part_local *l)
{
    hs_part_stats s;
    s.owned = l->n_owned;
    s.interior = l->n_interior;
    s.ghost = l->n_ghost;
    s.elems = l->n_elems;
    s.nbrs = l->n_nbrs;
    s.nnz = l->pattern->nnz;
    s.halo_bytes = (int64_t)sizeof(double) * ((int64_t)l->n_ghost + l->send_ptr[l->n_nbrs]);
    return s;
}

/* ---- the same view from the elements ------------------------------------------------------ */

typedef struct node_rank {
    int32_t li; /* a boundary row (local index) */
    int32_t q;  /* a rank owning one of its neighbours */
} node_rank;

static int cmp_node_rank(const void *a, const void *b)
{
    const node_rank *x = a, *y = b;
    if (x->li != y->li) return (x->li > y->li) - (x->li < y->li);
    return (x->q > y->q) - (x->q < y->q);
}

hs_status hs_part_local_create_elems(int64_t n_global, int32_t n_elems, const int32_t *tets, const int32_t *part,
                                     int n_ranks, int rank, hs_part_local **out)
{
    *out = NULL;
    hs_status st = HS_OK;
    HS_CHECK(n_global >= 0 && n_global <= INT32_MAX, HS_ERR_INTERNAL,
             "a mesh of %lld nodes: its elements are 32-bit", (long long)n_global);
    const int32_t n = (int32_t)n_global;
    hs_part_local *l = NULL;
    int32_t *g2l = NULL;    /* [n] -1 not held, -2 ghost, -3 boundary (owned) until numbered */
    int32_t *nbr_of = NULL; /* [n_ranks] neighbour slot, -1 none */
    node_rank *pairs = NULL;
    hs_csr *lp = NULL;
    HS_CALL(HS_ALLOC(l, 1, "partition view"));
    l->rank = rank;
    l->n_ranks = n_ranks;
    l->n_global = n;
    HS_CALL_GOTO(HS_ALLOC(g2l, (size_t)n + 1, "partition map"), fail);
    HS_CALL_GOTO(HS_ALLOC(nbr_of, n_ranks, "partition neighbours"), fail);
    for (int32_t i = 0; i < n; ++i) g2l[i] = -1;
    for (int q = 0; q < n_ranks; ++q) nbr_of[q] = -1;

    /* the elements touching an owned node: their non-owned nodes are ghosts, and an owned node
     * that shares one of them with a non-owned node is a boundary row (its pattern row has a
     * ghost column); n_cut counts the (owned, non-owned) node pairs of those elements, a bound
     * on the (boundary row, neighbour rank) pairs of the send lists */
    int32_t n_local_elems = 0;
    int64_t n_cut = 0;
    for (int32_t e = 0; e < n_elems; ++e) {
        const int32_t *t = tets + 4 * (size_t)e;
        int mine = 0;
        for (int c = 0; c < 4; ++c) mine += part[t[c]] == rank;
        if (!mine) continue;
        ++n_local_elems;
        if (mine == 4) continue;
        n_cut += (int64_t)mine * (4 - mine);
        for (int c = 0; c < 4; ++c) {
            if (part[t[c]] == rank) {
                g2l[t[c]] = -3;
            } else {
                g2l[t[c]] = -2;
                nbr_of[part[t[c]]] = 0;
            }
        }
    }
    int32_t n_owned = 0, n_boundary = 0, n_ghost = 0;
    for (int32_t i = 0; i < n; ++i) {
        n_owned += part[i] == rank;
        n_boundary += g2l[i] == -3;
        n_ghost += g2l[i] == -2;
    }
    l->n_owned = n_owned;
    l->n_interior = n_owned - n_boundary;
    l->n_ghost = n_ghost;
    for (int q = 0; q < n_ranks; ++q) l->n_nbrs += nbr_of[q] == 0;
    HS_CALL_GOTO(HS_ALLOC(l->l2g, (size_t)n_owned + n_ghost + 1, "partition local nodes"), fail);
    HS_CALL_GOTO(HS_ALLOC(l->ghost_owner, (size_t)n_ghost + 1, "partition ghosts"), fail);
    HS_CALL_GOTO(HS_ALLOC(l->nbr, (size_t)l->n_nbrs + 1, "partition neighbours"), fail);
    HS_CALL_GOTO(HS_ALLOC(l->send_ptr, (size_t)l->n_nbrs + 1, "partition send lists"), fail);
    HS_CALL_GOTO(HS_ALLOC(l->recv_ptr, (size_t)l->n_nbrs + 1, "partition receive lists"), fail);
    for (int q = 0, k = 0; q < n_ranks; ++q)
        if (nbr_of[q] == 0) {
            l->nbr[k] = q;
            nbr_of[q] = k++;
        }

    /* local numbering, as hs_part_local_create: interior, boundary (global order), ghosts by
     * owner slot (global order within) */
    {
        int32_t ni = 0, nb = l->n_interior;
        for (int32_t i = 0; i < n; ++i) {
            if (part[i] != rank) continue;
            const int32_t li = g2l[i] == -3 ? nb++ : ni++;
            l->l2g[li] = i;
            g2l[i] = li;
        }
        HS_CALL_GOTO(number_ghosts(l, n, part, nbr_of, g2l), fail);
    }

    /* local elements (global order, local nodes) and the (boundary row, neighbour rank) pairs */
    l->n_elems = n_local_elems;
    HS_CALL_GOTO(HS_ALLOC(l->elems, (size_t)n_local_elems + 1, "partition elements"), fail);
    HS_CALL_GOTO(HS_ALLOC(l->tets, 4 * (size_t)n_local_elems + 4, "partition elements"), fail);
    HS_CALL_GOTO(HS_ALLOC(pairs, (size_t)n_cut + 1, "partition send lists"), fail);
    int64_t np = 0;
    for (int32_t e = 0, m = 0; e < n_elems; ++e) {
        const int32_t *t = tets + 4 * (size_t)e;
        int mine = 0;
        for (int c = 0; c < 4; ++c) mine += part[t[c]] == rank;
        if (!mine) continue;
        l->elems[m] = e;
        for (int c = 0; c < 4; ++c) l->tets[4 * (size_t)m + c] = g2l[t[c]];
        ++m;
        if (mine == 4) continue;
        for (int a = 0; a < 4; ++a)
            for (int b = 0; b < 4; ++b)
                if (part[t[a]] == rank && part[t[b]] != rank) pairs[np++] = (node_rank){g2l[t[a]], part[t[b]]};
    }
    /* send lists: each boundary row once to each distinct neighbour rank, in local (= global)
     * order within a list: the pairs sorted by (row, rank), duplicates skipped */
    qsort(pairs, (size_t)np, sizeof *pairs, cmp_node_rank);
    int64_t nu = 0;
    for (int64_t k = 0; k < np; ++k)
        if (nu == 0 || pairs[k].li != pairs[nu - 1].li || pairs[k].q != pairs[nu - 1].q) pairs[nu++] = pairs[k];
    for (int64_t k = 0; k < nu; ++k) ++l->send_ptr[nbr_of[pairs[k].q] + 1];
    for (int k = 0; k < l->n_nbrs; ++k) l->send_ptr[k + 1] += l->send_ptr[k];
    HS_CALL_GOTO(HS_ALLOC(l->send_idx, (size_t)l->send_ptr[l->n_nbrs] + 1, "partition send lists"), fail);
    {
        int32_t *fill = NULL;
        HS_CALL_GOTO(HS_ALLOC(fill, (size_t)l->n_nbrs + 1, "partition send lists"), fail);
        for (int64_t k = 0; k < nu; ++k) {
            const int s = nbr_of[pairs[k].q];
            l->send_idx[l->send_ptr[s] + fill[s]++] = pairs[k].li;
        }
        free(fill);
    }

    /* local pattern: the owned rows of the local elements' pattern (every element of an owned
     * node is local, so those rows are complete; columns sorted) */
    HS_CALL_GOTO(hs_csr_from_tets(n_owned + n_ghost, n_local_elems, l->tets, &lp), fail);
    HS_CALL_GOTO(hs_csr_create(n_owned, n_owned + n_ghost, lp->row_ptr[n_owned], &l->pattern), fail);
    memcpy(l->pattern->row_ptr, lp->row_ptr, sizeof(int32_t) * ((size_t)n_owned + 1));
    memcpy(l->pattern->col, lp->col, sizeof(int32_t) * (size_t)lp->row_ptr[n_owned]);
    l->local_pattern = lp; /* the local problem's pattern: built once */
    lp = NULL;
    free(pairs);
    free(g2l);
    free(nbr_of);
    *out = l;
    return HS_OK;
fail:
    hs_csr_destroy(&lp);
    free(pairs);
    free(g2l);
    free(nbr_of);
    hs_part_local_destroy(&l);
    return st;
}

/* ---- the box's blocks --------------------------------------------------------------------- */

hs_status hs_box_blocks_make(const int64_t cells[3], int n_parts, hs_box_blocks *b)
{
    HS_CHECK(n_parts >= 1, HS_ERR_INTERNAL, "%d ranks", n_parts);
    memset(b, 0, sizeof *b);
    for (int a = 0; a < 3; ++a) b->nodes[a] = cells[a] + 1;
    const int64_t *N = b->nodes;
    double best = -1.0;
    for (int px = 1; px <= n_parts; ++px) {
        if (n_parts % px || px > N[0]) continue;
        for (int py = 1; py <= n_parts / px; ++py) {
            if ((n_parts / px) % py || py > N[1]) continue;
            const int pz = n_parts / px / py;
            if (pz > N[2]) continue;
            /* cut lattice faces; among equal cuts the later (more along z, then y) wins */
            const double cut = (double)(px - 1) * (double)(N[1] * N[2]) + (double)(py - 1) * (double)(N[0] * N[2]) +
                               (double)(pz - 1) * (double)(N[0] * N[1]);
            if (best < 0.0 || cut < best || (cut == best && (pz > b->parts[2] || (pz == b->parts[2] && py > b->parts[1])))) {
                best = cut;
                b->parts[0] = px;
                b->parts[1] = py;
                b->parts[2] = pz;
            }
        }
    }
    HS_CHECK(best >= 0.0, HS_ERR_CONFIG,
             "parallel.partition = \"box\": %d ranks do not fit a box of %lld x %lld x %lld nodes as blocks "
             "(at most one block per node along each axis); use fewer ranks", n_parts, (long long)N[0],
             (long long)N[1], (long long)N[2]);
    return HS_OK;
}

void hs_box_blocks_range(const hs_box_blocks *b, int rank, int64_t lo[3], int64_t hi[3])
{
    const int c[3] = {rank % b->parts[0], (rank / b->parts[0]) % b->parts[1], rank / (b->parts[0] * b->parts[1])};
    for (int a = 0; a < 3; ++a) {
        lo[a] = c[a] * b->nodes[a] / b->parts[a];
        hi[a] = (c[a] + 1) * b->nodes[a] / b->parts[a];
    }
}

/* the block index along one axis of node x: the largest c with c N / p <= x, i.e. ((x+1) p - 1) / N */
static int block_of(int64_t x, int64_t N, int p) { return (int)(((x + 1) * p - 1) / N); }

int hs_box_blocks_owner(const hs_box_blocks *b, int64_t gid)
{
    const int64_t *N = b->nodes;
    const int64_t x = gid % N[0], y = (gid / N[0]) % N[1], z = gid / (N[0] * N[1]);
    return block_of(x, N[0], b->parts[0]) +
           b->parts[0] * (block_of(y, N[1], b->parts[1]) + b->parts[1] * block_of(z, N[2], b->parts[2]));
}

/* ---- the view from a rank's part of the mesh ---------------------------------------------- */

typedef struct key_idx {
    int64_t k1, k2; /* sort keys: (owner slot, global number) or (0, global number) */
    int32_t i;
} key_idx;

static int cmp_key_idx(const void *a, const void *b)
{
    const key_idx *x = a, *y = b;
    if (x->k1 != y->k1) return (x->k1 > y->k1) - (x->k1 < y->k1);
    return (x->k2 > y->k2) - (x->k2 < y->k2);
}

/* Each send list in increasing global number (the lists come from the (row, rank) pairs in local
 * order, which with a key is not the global one), the order its receiver numbers those nodes among its
 * ghosts (number_ghosts, and the ghosts' bucket of hs_part_local_create_part_keyed): a message stays a
 * plain array on both sides. Lists are short (a part's surface), so a qsort each. */
static hs_status send_lists_global_order(hs_part_local *l)
{
    const int32_t n_send = l->send_ptr[l->n_nbrs];
    key_idx *t = NULL;
    HS_CALL(HS_ALLOC(t, (size_t)n_send + 1, "partition send lists"));
    for (int k = 0; k < l->n_nbrs; ++k) {
        const int32_t s0 = l->send_ptr[k], n = l->send_ptr[k + 1] - s0;
        for (int32_t j = 0; j < n; ++j) t[j] = (key_idx){0, l->l2g[l->send_idx[s0 + j]], l->send_idx[s0 + j]};
        qsort(t, (size_t)n, sizeof *t, cmp_key_idx);
        for (int32_t j = 0; j < n; ++j) l->send_idx[s0 + j] = t[j].i;
    }
    free(t);
    return HS_OK;
}

/* Sort a bucket of owned nodes ord[0, n) (each with k2 = its global number, in increasing global
 * order on entry) by (key, global number); k1 (the bucket) is kept. Keys in [0, n_nodes) (a
 * permutation, as hs_part_local_rcm_key gives, or with ties) take a stable counting sort, which keeps
 * the global order among equal keys; other keys a qsort on (key, global number). tmp [n], cnt
 * [n_nodes + 1] are work arrays. */
static void sort_bucket_by_key(key_idx *ord, int32_t n, const int64_t *key, int32_t n_nodes, key_idx *tmp,
                               int32_t *cnt)
{
    if (n < 2) return;
    const int64_t k1 = ord[0].k1;
    int dense = 1;
    for (int32_t j = 0; j < n && dense; ++j) dense = key[ord[j].i] >= 0 && key[ord[j].i] < n_nodes;
    if (dense) {
        memset(cnt, 0, sizeof(int32_t) * ((size_t)n_nodes + 1));
        for (int32_t j = 0; j < n; ++j) ++cnt[key[ord[j].i] + 1];
        for (int32_t v = 0; v < n_nodes; ++v) cnt[v + 1] += cnt[v];
        for (int32_t j = 0; j < n; ++j) tmp[cnt[key[ord[j].i]]++] = ord[j];
        memcpy(ord, tmp, sizeof(key_idx) * (size_t)n);
        return;
    }
    for (int32_t j = 0; j < n; ++j) ord[j].k1 = key[ord[j].i];
    qsort(ord, (size_t)n, sizeof *ord, cmp_key_idx);
    for (int32_t j = 0; j < n; ++j) ord[j].k1 = k1;
}

hs_status hs_part_local_rcm_key(int32_t n_nodes, int32_t n_elems, const int32_t *tets, int64_t *key)
{
    int32_t *newid = NULL;
    HS_CALL(HS_ALLOC(newid, (size_t)n_nodes + 1, "local RCM order"));
    const hs_status st = hs_rcm_tets(n_nodes, n_elems, tets, newid);
    if (st == HS_OK)
        for (int32_t i = 0; i < n_nodes; ++i) key[i] = newid[i];
    free(newid);
    return st;
}

hs_status hs_part_local_elem_order(int32_t n_owned, int32_t n_elems, const int32_t *tets, const int32_t *node_local,
                                   int32_t *pos)
{
    int32_t *cnt = NULL; /* [n_owned + 1] counting-sort offsets by smallest local node */
    HS_CALL(HS_ALLOC(cnt, (size_t)n_owned + 1, "element order"));
    int32_t bad = -1;
    for (int32_t e = 0; e < n_elems; ++e) {
        const int32_t *t = tets + 4 * (size_t)e;
        int32_t mn = node_local ? node_local[t[0]] : t[0];
        for (int c = 1; c < 4; ++c) {
            const int32_t v = node_local ? node_local[t[c]] : t[c];
            mn = v < mn ? v : mn;
        }
        if (mn < 0 || mn >= n_owned) { /* an element of a view has an owned vertex, and owned nodes come first */
            bad = e;
            break;
        }
        pos[e] = mn;
        ++cnt[mn + 1];
    }
    if (bad >= 0) {
        free(cnt);
        return HS_FAIL(HS_ERR_INTERNAL, "element %d of a view has no owned vertex (of %d owned nodes)", (int)bad,
                       (int)n_owned);
    }
    for (int32_t v = 0; v < n_owned; ++v) cnt[v + 1] += cnt[v];
    for (int32_t e = 0; e < n_elems; ++e) pos[e] = cnt[pos[e]]++; /* stable: ties keep the given order */
    free(cnt);
    return HS_OK;
}

/* How a view orders its elements (create_part): as given, in increasing global number (the unkeyed
 * views); given so, then by smallest local node (a keyed view: hs_part_local_elem_order); as given in
 * any order (a view stored in its local order and read back: hs_part_local_create_part_stored). */
typedef enum { ELEMS_GLOBAL, ELEMS_LOCAL, ELEMS_GIVEN } elems_order;

/* A keyed view's elements by their smallest local node (ELEMS_LOCAL), elems and tets permuted and
 * elem_local [n_elems] following them */
static hs_status sort_elems_local(hs_part_local *l, int32_t n_elems, int32_t *elem_local)
{
    const int32_t ne = l->n_elems;
    hs_status st = HS_OK;
    int32_t *pos = NULL, *tets = NULL;
    int64_t *elems = NULL;
    st = HS_ALLOC(pos, (size_t)ne + 1, "element order");
    if (st == HS_OK) st = HS_ALLOC(elems, (size_t)ne + 1, "partition elements");
    if (st == HS_OK) st = HS_ALLOC(tets, 4 * (size_t)ne + 4, "partition elements");
    if (st == HS_OK) st = hs_part_local_elem_order(l->n_owned, ne, l->tets, NULL, pos);
    if (st == HS_OK) {
#pragma omp parallel for schedule(static) if (ne > HS_OMP_MIN)
        for (int32_t m = 0; m < ne; ++m) {
            elems[pos[m]] = l->elems[m];
            memcpy(tets + 4 * (size_t)pos[m], l->tets + 4 * (size_t)m, 4 * sizeof(int32_t));
        }
#pragma omp parallel for schedule(static) if (n_elems > HS_OMP_MIN)
        for (int32_t e = 0; e < n_elems; ++e)
            if (elem_local[e] >= 0) elem_local[e] = pos[elem_local[e]];
        int64_t *oe = l->elems;
        int32_t *ot = l->tets;
        l->elems = elems;
        l->tets = tets;
        elems = oe;
        tets = ot;
    }
    free(pos);
    free(elems);
    free(tets);
    return st;
}

/* Every element once (ELEMS_GIVEN, whose order the view does not check as it goes): the sorted numbers
 * differ */
static hs_status elems_distinct(const hs_part_local *l)
{
    int64_t *s = NULL;
    HS_CALL(HS_ALLOC(s, (size_t)l->n_elems + 1, "partition elements"));
    memcpy(s, l->elems, sizeof(int64_t) * (size_t)l->n_elems);
    qsort(s, (size_t)l->n_elems, sizeof *s, cmp_i64);
    int32_t dup = -1;
    for (int32_t m = 1; m < l->n_elems && dup < 0; ++m)
        if (s[m] == s[m - 1]) dup = m;
    const int64_t g = dup >= 0 ? s[dup] : 0;
    free(s);
    HS_CHECK(dup < 0, HS_ERR_INTERNAL, "rank %d: element %lld twice in the part", l->rank, (long long)g);
    return HS_OK;
}

static hs_status create_part(int64_t n_global, int32_t n_nodes, const int64_t *node_gid, const int32_t *owner,
                             int32_t n_elems, const int64_t *elem_gid, const int32_t *tets, const int64_t *key,
                             elems_order eo, int n_ranks, int rank, hs_part_local **out, int32_t *node_local,
                             int32_t *elem_local);

hs_status hs_part_local_create_part(int64_t n_global, int32_t n_nodes, const int64_t *node_gid, const int32_t *owner,
                                    int32_t n_elems, const int64_t *elem_gid, const int32_t *tets, int n_ranks,
                                    int rank, hs_part_local **out, int32_t *node_local, int32_t *elem_local)
{
    return create_part(n_global, n_nodes, node_gid, owner, n_elems, elem_gid, tets, NULL, ELEMS_GLOBAL, n_ranks, rank,
                       out, node_local, elem_local);
}

hs_status hs_part_local_create_part_keyed(int64_t n_global, int32_t n_nodes, const int64_t *node_gid,
                                          const int32_t *owner, int32_t n_elems, const int64_t *elem_gid,
                                          const int32_t *tets, const int64_t *key, int n_ranks, int rank,
                                          hs_part_local **out, int32_t *node_local, int32_t *elem_local)
{
    return create_part(n_global, n_nodes, node_gid, owner, n_elems, elem_gid, tets, key,
                       key ? ELEMS_LOCAL : ELEMS_GLOBAL, n_ranks, rank, out, node_local, elem_local);
}

hs_status hs_part_local_create_part_stored(int64_t n_global, int32_t n_nodes, const int64_t *node_gid,
                                           const int32_t *owner, int32_t n_elems, const int64_t *elem_gid,
                                           const int32_t *tets, int n_ranks, int rank, hs_part_local **out,
                                           int32_t *node_local, int32_t *elem_local)
{
    int64_t *key = NULL; /* key = index: each bucket's nodes in the given order */
    HS_CALL(HS_ALLOC(key, (size_t)n_nodes + 1, "partition order"));
    for (int32_t i = 0; i < n_nodes; ++i) key[i] = i;
    const hs_status st = create_part(n_global, n_nodes, node_gid, owner, n_elems, elem_gid, tets, key, ELEMS_GIVEN,
                                     n_ranks, rank, out, node_local, elem_local);
    free(key);
    return st;
}

static hs_status create_part(int64_t n_global, int32_t n_nodes, const int64_t *node_gid, const int32_t *owner,
                             int32_t n_elems, const int64_t *elem_gid, const int32_t *tets, const int64_t *key,
                             elems_order eo, int n_ranks, int rank, hs_part_local **out, int32_t *node_local,
                             int32_t *elem_local)
{
    *out = NULL;
    hs_status st = HS_OK;
    hs_part_local *l = NULL;
    int8_t *kind = NULL;   /* [n_nodes] 0 unused, 1 owned, 3 owned boundary, 2 ghost */
    int32_t *nbr_of = NULL; /* [n_ranks] neighbour slot, -1 none */
    key_idx *ord = NULL;
    int64_t *blk = NULL; /* [nt + 1][2] each thread block's first local element and pair */
    node_rank *pairs = NULL;
    hs_csr *lp = NULL;
    HS_CALL(HS_ALLOC(l, 1, "partition view"));
    l->rank = rank;
    l->n_ranks = n_ranks;
    l->n_global = n_global;
    HS_CALL_GOTO(HS_ALLOC(kind, (size_t)n_nodes + 1, "partition part"), fail);
    HS_CALL_GOTO(HS_ALLOC(nbr_of, n_ranks, "partition neighbours"), fail);
    for (int q = 0; q < n_ranks; ++q) nbr_of[q] = -1;
    for (int32_t i = 0; i < n_nodes; ++i) kind[i] = owner[i] == rank; /* owned nodes count, used or not */
    /* the part's elements (OpenMP): a node's kind and a rank's neighbour mark are one value whoever
     * writes them; the first fault is the smallest element index, reported as the serial scan would */
    int32_t n_local_elems = 0;
    int64_t n_cut = 0;
    int32_t first_unordered = n_elems, first_bad_owner = n_elems;
#pragma omp parallel for schedule(static) reduction(+ : n_local_elems, n_cut) \
    reduction(min : first_unordered, first_bad_owner) if (n_elems > HS_OMP_MIN)
    for (int32_t e = 0; e < n_elems; ++e) {
        const int32_t *t = tets + 4 * (size_t)e;
        if (eo != ELEMS_GIVEN && e > 0 && !(elem_gid[e] > elem_gid[e - 1]) && e < first_unordered) first_unordered = e;
        int mine = 0;
        for (int c = 0; c < 4; ++c) mine += owner[t[c]] == rank;
        if (!mine) continue;
        ++n_local_elems;
        if (mine == 4) continue;
        n_cut += (int64_t)mine * (4 - mine);
        for (int c = 0; c < 4; ++c) {
            const int32_t o = owner[t[c]];
            if (o == rank) {
#pragma omp atomic write
                kind[t[c]] = 3;
            } else if (o < 0 || o >= n_ranks) {
                if (e < first_bad_owner) first_bad_owner = e;
            } else {
#pragma omp atomic write
                kind[t[c]] = 2;
#pragma omp atomic write
                nbr_of[o] = 0;
            }
        }
    }
    HS_CHECK_GOTO(!(first_unordered < n_elems && first_unordered <= first_bad_owner), fail, HS_ERR_INTERNAL,
                  "rank %d: the part's elements are not in increasing global order", rank);
    if (first_bad_owner < n_elems) {
        const int32_t *t = tets + 4 * (size_t)first_bad_owner;
        for (int c = 0; c < 4; ++c)
            HS_CHECK_GOTO(owner[t[c]] == rank || (owner[t[c]] >= 0 && owner[t[c]] < n_ranks), fail, HS_ERR_INTERNAL,
                          "rank %d: node %lld owned by rank %d of %d", rank, (long long)node_gid[t[c]],
                          (int)owner[t[c]], n_ranks);
    }
    int32_t n_owned = 0, n_boundary = 0, n_ghost = 0;
    for (int32_t i = 0; i < n_nodes; ++i) {
        n_owned += kind[i] == 1 || kind[i] == 3;
        n_boundary += kind[i] == 3;
        n_ghost += kind[i] == 2;
    }
    l->n_owned = n_owned;
    l->n_interior = n_owned - n_boundary;
    l->n_ghost = n_ghost;
    for (int q = 0; q < n_ranks; ++q) l->n_nbrs += nbr_of[q] == 0;
    HS_CALL_GOTO(HS_ALLOC(l->l2g, (size_t)n_owned + n_ghost + 1, "partition local nodes"), fail);
    HS_CALL_GOTO(HS_ALLOC(l->ghost_owner, (size_t)n_ghost + 1, "partition ghosts"), fail);
    HS_CALL_GOTO(HS_ALLOC(l->nbr, (size_t)l->n_nbrs + 1, "partition neighbours"), fail);
    HS_CALL_GOTO(HS_ALLOC(l->send_ptr, (size_t)l->n_nbrs + 1, "partition send lists"), fail);
    HS_CALL_GOTO(HS_ALLOC(l->recv_ptr, (size_t)l->n_nbrs + 1, "partition receive lists"), fail);
    for (int q = 0, k = 0; q < n_ranks; ++q)
        if (nbr_of[q] == 0) {
            l->nbr[k] = q;
            nbr_of[q] = k++;
        }
    /* local numbering as hs_part_local_create_elems: interior, boundary (global order), ghosts by
     * owner slot (global order within); sorted keys stand for the global array's scan. With a key,
     * the two owned buckets are then sorted by it: only this rank reads its owned order, while the
     * ghosts' order is what its neighbours' send lists follow, so it stays the global one */
    HS_CALL_GOTO(HS_ALLOC(ord, (size_t)n_owned + n_ghost + 1, "partition order"), fail);
    {
        /* nodes in increasing global order (a generated box part: lattice order) need no sort: a
         * stable bucketing by the first key gives the sorted order; else qsort */
        int sorted = 1;
        for (int32_t i = 1; i < n_nodes && sorted; ++i) sorted = node_gid[i] > node_gid[i - 1];
        int32_t k = 0;
        if (sorted) {
            int32_t *at = NULL; /* [2 + n_nbrs] each first key's next place */
            HS_CALL_GOTO(HS_ALLOC(at, (size_t)l->n_nbrs + 2, "partition order"), fail);
            for (int32_t i = 0; i < n_nodes; ++i) /* the ghosts of each owner slot */
                if (kind[i] == 2) ++at[2 + nbr_of[owner[i]]];
            at[0] = 0;
            at[1] = n_owned - n_boundary; /* interior, then boundary, then the slots' ghosts */
            for (int32_t s = 0, first = n_owned; s < l->n_nbrs; ++s) {
                const int32_t c = at[2 + s];
                at[2 + s] = first;
                first += c;
            }
            for (int32_t i = 0; i < n_nodes; ++i) {
                node_local[i] = -1;
                if (kind[i] == 1) ord[at[0]++] = (key_idx){0, node_gid[i], i};
                else if (kind[i] == 3) ord[at[1]++] = (key_idx){1, node_gid[i], i};
                else if (kind[i] == 2) {
                    const int sl = nbr_of[owner[i]];
                    ord[at[2 + sl]++] = (key_idx){2 + sl, node_gid[i], i};
                }
            }
            k = n_owned + n_ghost;
            free(at);
        } else {
            for (int32_t i = 0; i < n_nodes; ++i) {
                node_local[i] = -1;
                if (kind[i] == 1) ord[k++] = (key_idx){0, node_gid[i], i};
                else if (kind[i] == 3) ord[k++] = (key_idx){1, node_gid[i], i};
                else if (kind[i] == 2) ord[k++] = (key_idx){2 + nbr_of[owner[i]], node_gid[i], i};
            }
            qsort(ord, (size_t)k, sizeof *ord, cmp_key_idx);
        }
        for (int32_t li = 1; li < k; ++li)
            HS_CHECK_GOTO(ord[li].k1 != ord[li - 1].k1 || ord[li].k2 != ord[li - 1].k2, fail, HS_ERR_INTERNAL,
                          "rank %d: node %lld twice in the part", rank, (long long)ord[li].k2);
        if (key) { /* the owned buckets by key (ties: global number); the ghosts keep the global order */
            key_idx *tmp = NULL;
            int32_t *cnt = NULL;
            st = HS_ALLOC(tmp, (size_t)n_owned + 1, "partition key order");
            if (st == HS_OK) st = HS_ALLOC(cnt, (size_t)n_nodes + 1, "partition key order");
            if (st == HS_OK) {
                sort_bucket_by_key(ord, l->n_interior, key, n_nodes, tmp, cnt);
                sort_bucket_by_key(ord + l->n_interior, n_boundary, key, n_nodes, tmp, cnt);
            }
            free(tmp);
            free(cnt);
            HS_CALL_GOTO(st, fail);
        }
        for (int32_t li = 0; li < k; ++li) {
            l->l2g[li] = ord[li].k2;
            node_local[ord[li].i] = li;
            if (li >= n_owned) {
                const int s = (int)ord[li].k1 - 2;
                l->ghost_owner[li - n_owned] = l->nbr[s];
                ++l->recv_ptr[s + 1];
            }
        }
        for (int s = 0; s < l->n_nbrs; ++s) l->recv_ptr[s + 1] += l->recv_ptr[s];
    }
    l->n_elems = n_local_elems;
    HS_CALL_GOTO(HS_ALLOC(l->elems, (size_t)n_local_elems + 1, "partition elements"), fail);
    HS_CALL_GOTO(HS_ALLOC(l->tets, 4 * (size_t)n_local_elems + 4, "partition elements"), fail);
    HS_CALL_GOTO(HS_ALLOC(pairs, (size_t)n_cut + 1, "partition send lists"), fail);
    /* the local elements and the (boundary row, neighbour rank) pairs in element order: each thread
     * counts its block of elements, then writes them after the blocks before it (OpenMP) */
    const int nt_max = omp_get_max_threads();
    HS_CALL_GOTO(HS_ALLOC(blk, 2 * (size_t)nt_max + 2, "partition elements"), fail);
    int64_t np = 0;
#pragma omp parallel if (n_elems > HS_OMP_MIN)
    {
        const int nt = omp_get_num_threads(), id = omp_get_thread_num();
        const int32_t e0 = (int32_t)((int64_t)n_elems * id / nt), e1 = (int32_t)((int64_t)n_elems * (id + 1) / nt);
        int64_t cm = 0, cp = 0;
        for (int32_t e = e0; e < e1 && nt > 1; ++e) { /* one thread: no count needed, its block starts at 0 */
            const int32_t *t = tets + 4 * (size_t)e;
            int mine = 0;
            for (int c = 0; c < 4; ++c) mine += owner[t[c]] == rank;
            cm += mine > 0;
            cp += mine < 4 ? mine * (4 - mine) : 0; /* (owned, not owned) vertex pairs */
        }
        blk[2 * (id + 1)] = cm;
        blk[2 * (id + 1) + 1] = cp;
#pragma omp barrier
#pragma omp single
        {
            for (int q = 0; q < nt; ++q) {
                blk[2 * (q + 1)] += blk[2 * q];
                blk[2 * (q + 1) + 1] += blk[2 * q + 1];
            }
            np = blk[2 * nt + 1];
        }
        int32_t m = (int32_t)blk[2 * id];
        int64_t p = blk[2 * id + 1];
        for (int32_t e = e0; e < e1; ++e) {
            const int32_t *t = tets + 4 * (size_t)e;
            int mine = 0;
            for (int c = 0; c < 4; ++c) mine += owner[t[c]] == rank;
            elem_local[e] = mine ? m : -1;
            if (!mine) continue;
            l->elems[m] = elem_gid[e];
            for (int c = 0; c < 4; ++c) l->tets[4 * (size_t)m + c] = node_local[t[c]];
            ++m;
            if (mine == 4) continue;
            for (int a = 0; a < 4; ++a)
                for (int b = 0; b < 4; ++b)
                    if (owner[t[a]] == rank && owner[t[b]] != rank) pairs[p++] = (node_rank){node_local[t[a]], owner[t[b]]};
        }
        if (nt == 1) np = p;
    }
    qsort(pairs, (size_t)np, sizeof *pairs, cmp_node_rank);
    int64_t nu = 0;
    for (int64_t k = 0; k < np; ++k)
        if (nu == 0 || pairs[k].li != pairs[nu - 1].li || pairs[k].q != pairs[nu - 1].q) pairs[nu++] = pairs[k];
    for (int64_t k = 0; k < nu; ++k) ++l->send_ptr[nbr_of[pairs[k].q] + 1];
    for (int k = 0; k < l->n_nbrs; ++k) l->send_ptr[k + 1] += l->send_ptr[k];
    HS_CALL_GOTO(HS_ALLOC(l->send_idx, (size_t)l->send_ptr[l->n_nbrs] + 1, "partition send lists"), fail);
    {
        int32_t *fill = NULL;
        HS_CALL_GOTO(HS_ALLOC(fill, (size_t)l->n_nbrs + 1, "partition send lists"), fail);
        for (int64_t k = 0; k < nu; ++k) {
            const int s = nbr_of[pairs[k].q];
            l->send_idx[l->send_ptr[s] + fill[s]++] = pairs[k].li;
        }
        free(fill);
    }
    if (key) HS_CALL_GOTO(send_lists_global_order(l), fail);
    if (eo == ELEMS_LOCAL) HS_CALL_GOTO(sort_elems_local(l, n_elems, elem_local), fail);
    if (eo == ELEMS_GIVEN) HS_CALL_GOTO(elems_distinct(l), fail);
    HS_CALL_GOTO(hs_csr_from_tets(n_owned + n_ghost, n_local_elems, l->tets, &lp), fail);
    HS_CALL_GOTO(hs_csr_create(n_owned, n_owned + n_ghost, lp->row_ptr[n_owned], &l->pattern), fail);
    memcpy(l->pattern->row_ptr, lp->row_ptr, sizeof(int32_t) * ((size_t)n_owned + 1));
    memcpy(l->pattern->col, lp->col, sizeof(int32_t) * (size_t)lp->row_ptr[n_owned]);
    l->local_pattern = lp; /* the local problem's pattern: built once */
    lp = NULL;
    free(blk);
    free(pairs);
    free(ord);
    free(kind);
    free(nbr_of);
    *out = l;
    return HS_OK;
fail:
    free(blk);
    hs_csr_destroy(&lp);
    free(pairs);
    free(ord);
    free(kind);
    free(nbr_of);
    hs_part_local_destroy(&l);
    return st;
}
