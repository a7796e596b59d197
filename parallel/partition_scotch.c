/* parallel.partition = "ptscotch": PT-Scotch's parallel graph partitioning (hs_partition_scotch.h).
 *
 * The core (hs_ptscotch_partition_rows): each rank holds a block of consecutive rows of the node
 * graph, any blocks (vtxdist), and the elements with a vertex among its rows (global 64-bit vertices);
 * it builds its rows from them (the nodes sharing an element: the rows hs_csr_from_tets would give,
 * hs_partition_block_rows), its part of the distributed graph (SCOTCH_dgraphBuild: global column
 * numbers, the diagonal dropped, vertex weight = the row's nonzeros as METIS gets them), and
 * SCOTCH_dgraphPart partitions it in parallel; each rank gets its rows' owners. A run that reads the
 * mesh on every rank (parallel.read = "ranks") calls it through hs_partition_rows_dist.
 *
 * The root entry (hs_ptscotch_partition_root) wraps it for a run whose rank 0 holds the mesh: rank 0
 * sends each rank the elements with a vertex among its rows, [q n / P, (q+1) n / P) (one block in
 * memory at a time), every rank runs the core, rank 0 gathers the owners into the array the other
 * partitioners fill. Given the pattern (a test), rank 0 sends its row blocks instead (the same graph,
 * test_ptscotch).
 *
 * Deterministic for fixed blocks: a Scotch context with SCOTCH_OPTIONNUMDETERMINISTIC and a fixed
 * random seed (Debian's Scotch is threaded; the option makes its threads' results independent of
 * their timing). SCOTCH_Num is whatever ptscotch.h says (Debian's default header: int, 32 bits);
 * every array handed to Scotch is of that type, and a graph whose global numbers or edge count it
 * cannot hold is refused (HS_ERR_CONFIG). */
#include "hs_partition_scotch.h"

#include <mpi.h> /* before ptscotch.h, which declares its functions with MPI_Comm */
#include <stdint.h>
#include <stdio.h> /* scotch.h declares functions with FILE */
#include <stdlib.h>
#include <string.h>

#include <ptscotch.h>

#include "hs_dist.h" /* hs_par_comm, HS_MPI_CALL */
#include "hs_par.h"  /* hs_par_agree */
#include "hs_partition_rows.h"
#include "hs_util.h"

/* the pattern's counts and indices are int32 (hs_csr): any SCOTCH_Num holds them */
_Static_assert(sizeof(SCOTCH_Num) >= sizeof(int32_t), "SCOTCH_Num narrower than the pattern's indices");

/* the graph's rows (or elements) go in blocks, which may exceed MPI's int count: pieces of 1 GiB */
static hs_status xfer_bytes(void *buf, size_t bytes, int peer, int send, MPI_Comm comm)
{
    const size_t chunk = (size_t)1 << 30;
    for (size_t o = 0; o < bytes; o += chunk) {
        const int n = (int)(bytes - o < chunk ? bytes - o : chunk);
        if (send) HS_MPI_CALL(MPI_Send((char *)buf + o, n, MPI_BYTE, peer, 27, comm));
        else HS_MPI_CALL(MPI_Recv((char *)buf + o, n, MPI_BYTE, peer, 27, comm, MPI_STATUS_IGNORE));
    }
    return HS_OK;
}

/* rows [lo, hi) of @p a as a Scotch block: vert [hi-lo+1] (block-local offsets), velo [hi-lo], edge
 * (global columns without the diagonal); *n_edge their count. The arrays are the caller's. */
static void block_of(const hs_csr *a, int32_t lo, int32_t hi, SCOTCH_Num *vert, SCOTCH_Num *velo, SCOTCH_Num *edge,
                     int64_t *n_edge)
{
    int64_t k = 0;
    for (int32_t i = lo; i < hi; ++i) {
        vert[i - lo] = (SCOTCH_Num)k;
        velo[i - lo] = (SCOTCH_Num)(a->row_ptr[i + 1] - a->row_ptr[i]);
        for (int32_t j = a->row_ptr[i]; j < a->row_ptr[i + 1]; ++j)
            if (a->col[j] != i) edge[k++] = (SCOTCH_Num)a->col[j];
    }
    vert[hi - lo] = (SCOTCH_Num)k;
    *n_edge = k;
}

/* rank 0: the vertices [*ne][4] (global numbers) of the elements with a vertex in rows [lo, hi), in
 * element order: what rank q builds its rows from (new array, the caller frees it) */
static hs_status elems_of(int32_t n_elems, const int32_t *tets, int32_t lo, int32_t hi, int32_t **out, int64_t *ne)
{
    int64_t k = 0;
    for (int32_t e = 0; e < n_elems; ++e) {
        const int32_t *t = tets + 4 * (size_t)e;
        k += (t[0] >= lo && t[0] < hi) || (t[1] >= lo && t[1] < hi) || (t[2] >= lo && t[2] < hi) ||
             (t[3] >= lo && t[3] < hi);
    }
    HS_CALL(HS_ALLOC(*out, 4 * (size_t)k + 4, "PT-Scotch graph block"));
    k = 0;
    for (int32_t e = 0; e < n_elems; ++e) {
        const int32_t *t = tets + 4 * (size_t)e;
        if ((t[0] >= lo && t[0] < hi) || (t[1] >= lo && t[1] < hi) || (t[2] >= lo && t[2] < hi) ||
            (t[3] >= lo && t[3] < hi))
            memcpy(*out + 4 * k++, t, 4 * sizeof(int32_t));
    }
    *ne = k;
    return HS_OK;
}

/* the int32 elements @p et [ne][4] (rank 0's mesh, as sent) as the core's int64 ones: a new array
 * *out; @p et is freed */
static hs_status widen(int32_t *et, int64_t ne, int64_t **out)
{
    hs_status st = HS_ALLOC(*out, 4 * (size_t)ne + 4, "PT-Scotch graph block");
    for (int64_t k = 0; k < 4 * ne && st == HS_OK; ++k) (*out)[k] = et[k];
    free(et);
    return st;
}

/* Rows [lo, hi) of the node graph from the elements @p et [ne][4] (global vertices, <= SCOTCH_NUMMAX):
 * row i's columns are the other vertices of i's elements, sorted, each once, as in the pattern
 * hs_csr_from_tets makes (hs_partition_block_rows, on the rank's OpenMP threads), so the block equals
 * block_of's on that pattern. New buffers: *vv = vert [n+1] then velo [n] (neighbours + 1: the row's
 * nonzeros), *edge [*n_edge]. */
static hs_status rows_of_elems(int64_t lo, int64_t hi, int32_t ne, const int64_t *et, SCOTCH_Num **vv,
                               SCOTCH_Num **edge, int64_t *n_edge)
{
    const int32_t n = (int32_t)(hi - lo);
    hs_status st = HS_OK;
    int32_t *deg = NULL;
    void *adj = NULL;
    *vv = *edge = NULL;
    HS_CALL(HS_ALLOC(deg, (size_t)n + 1, "PT-Scotch graph block"));
    HS_CALL_GOTO(HS_ALLOC(*vv, 2 * (size_t)n + 2, "PT-Scotch graph block"), done);
    _Static_assert(sizeof(SCOTCH_Num) == 4 || sizeof(SCOTCH_Num) == 8, "SCOTCH_Num of 4 or 8 bytes");
    HS_CALL_GOTO(hs_partition_block_rows(lo, hi, ne, et, deg, sizeof(SCOTCH_Num), &adj), done);
    int64_t k = 0;
    for (int32_t r = 0; r < n; ++r) {
        (*vv)[r] = (SCOTCH_Num)k;
        (*vv)[n + 1 + r] = (SCOTCH_Num)deg[r] + 1; /* velo: the row's nonzeros */
        k += deg[r];
    }
    (*vv)[n] = (SCOTCH_Num)k;
    *edge = adj; /* SCOTCH_Num's width, signed: int32_t or int64_t */
    *n_edge = k;
done:
    if (st != HS_OK) {
        free(*vv);
        *vv = NULL;
    }
    free(deg);
    return st;
}

/* edges (off-diagonal entries) of rows [lo, hi) */
static int64_t block_edges(const hs_csr *a, int32_t lo, int32_t hi)
{
    int64_t k = (int64_t)a->row_ptr[hi] - a->row_ptr[lo];
    for (int32_t i = lo; i < hi; ++i)
        for (int32_t j = a->row_ptr[i]; j < a->row_ptr[i + 1]; ++j) k -= a->col[j] == i;
    return k;
}

/* the dgraph on this rank's block, partitioned into n_parts; owner [hi - lo] */
static hs_status scotch_part(MPI_Comm comm, int32_t n_loc, int64_t n_edge, SCOTCH_Num *vert, SCOTCH_Num *velo,
                             SCOTCH_Num *edge, int n_parts, SCOTCH_Num *owner)
{
    hs_status st = HS_OK;
    SCOTCH_Dgraph g, cg;
    SCOTCH_Strat strat;
    SCOTCH_Context ctx;
    int have_g = 0, have_cg = 0, have_strat = 0, have_ctx = 0;
    if (sizeof(SCOTCH_Num) < sizeof(int64_t)) { /* Debian's default headers: a 32-bit SCOTCH_Num */
        int64_t total = 0; /* the same on every rank: every rank refuses alike */
        MPI_Allreduce(&n_edge, &total, 1, MPI_INT64_T, MPI_SUM, comm);
        if (total > INT32_MAX)
            return HS_FAIL(HS_ERR_CONFIG, "parallel.partition = \"ptscotch\": the node graph has %lld edges, more than "
                           "the 2^31 - 1 this build's PT-Scotch (32-bit SCOTCH_Num) counts; use parallel.partition = "
                           "\"nonzeros\" or \"rows\" (with any parallel.read), \"metis\" (with parallel.read = "
                           "\"root\") or \"box\" (the built-in box), or build against a PT-Scotch with 64-bit "
                           "integers",
                           (long long)total);
    }
    if (SCOTCH_dgraphInit(&g, comm) != 0) {
        st = HS_FAIL(HS_ERR_INTERNAL, "PT-Scotch: SCOTCH_dgraphInit failed (an MPI library without threads?)");
        goto done;
    }
    have_g = 1;
    if (SCOTCH_dgraphBuild(&g, 0, (SCOTCH_Num)n_loc, (SCOTCH_Num)n_loc, vert, NULL, velo, NULL, (SCOTCH_Num)n_edge,
                           (SCOTCH_Num)n_edge, edge, NULL, NULL) != 0) {
        st = HS_FAIL(HS_ERR_INTERNAL, "PT-Scotch: SCOTCH_dgraphBuild refused the node graph's block (%d rows)",
                     (int)n_loc);
        goto done;
    }
    if (SCOTCH_contextInit(&ctx) != 0) {
        st = HS_FAIL(HS_ERR_INTERNAL, "PT-Scotch: SCOTCH_contextInit failed");
        goto done;
    }
    have_ctx = 1;
    /* one thread per rank: Debian's Scotch otherwise starts a thread per core in every rank (32 per rank
     * on a 32-core node, beside the ranks' OpenMP threads), which made SCOTCH_dgraphPart 4x slower
     * (bench_4m read by 2 ranks on 2 x H200's 32 cores: 17.8 s against 4.6 s, the same partition) */
    if (SCOTCH_contextThreadSpawn(&ctx, 1, NULL) != 0) {
        st = HS_FAIL(HS_ERR_INTERNAL, "PT-Scotch: SCOTCH_contextThreadSpawn failed");
        goto done;
    }
    if (SCOTCH_contextOptionSetNum(&ctx, SCOTCH_OPTIONNUMDETERMINISTIC, 1) != 0 ||
        SCOTCH_contextOptionSetNum(&ctx, SCOTCH_OPTIONNUMRANDOMFIXEDSEED, 1) != 0 || SCOTCH_contextRandomClone(&ctx) != 0) {
        st = HS_FAIL(HS_ERR_INTERNAL, "PT-Scotch: cannot make its context deterministic");
        goto done;
    }
    SCOTCH_contextRandomReset(&ctx);
    if (SCOTCH_contextBindDgraph(&ctx, &g, &cg) != 0) {
        st = HS_FAIL(HS_ERR_INTERNAL, "PT-Scotch: SCOTCH_contextBindDgraph failed");
        goto done;
    }
    have_cg = 1;
    if (SCOTCH_stratInit(&strat) != 0) {
        st = HS_FAIL(HS_ERR_INTERNAL, "PT-Scotch: SCOTCH_stratInit failed");
        goto done;
    }
    have_strat = 1;
    int procs = 1;
    MPI_Comm_size(comm, &procs);
    /* the default strategy with METIS's default imbalance (ufactor 30: 3 %) on the vertex weights */
    if (SCOTCH_stratDgraphMapBuild(&strat, SCOTCH_STRATDEFAULT, (SCOTCH_Num)procs, (SCOTCH_Num)n_parts, 0.03) != 0) {
        st = HS_FAIL(HS_ERR_INTERNAL, "PT-Scotch: SCOTCH_stratDgraphMapBuild failed");
        goto done;
    }
    if (SCOTCH_dgraphPart(&cg, (SCOTCH_Num)n_parts, &strat, owner) != 0)
        st = HS_FAIL(HS_ERR_INTERNAL, "PT-Scotch: SCOTCH_dgraphPart failed into %d parts (its message is above)",
                     n_parts);
done:
    if (have_strat) SCOTCH_stratExit(&strat);
    if (have_cg) SCOTCH_dgraphExit(&cg);
    if (have_g) SCOTCH_dgraphExit(&g);
    if (have_ctx) SCOTCH_contextExit(&ctx);
    return st;
}

/* The core's last steps, every rank with its block of the graph (vert [n_loc+1], velo [n_loc], edge
 * [n_edge]; global columns) or @p st its failure to make it: SCOTCH_dgraphPart into n_parts, the owners
 * into owner [n_loc], every part checked to own a node of the n. Agreed: a rank without its block stops
 * every rank before Scotch's collectives. */
static hs_status part_block(MPI_Comm comm, hs_status st, int64_t n, int64_t lo, int32_t n_loc, int64_t n_edge,
                            SCOTCH_Num *vert, SCOTCH_Num *velo, SCOTCH_Num *edge, int n_parts, int32_t *owner)
{
    SCOTCH_Num *own = NULL;
    int64_t *count = NULL;
    if (st == HS_OK) st = HS_ALLOC(own, (size_t)n_loc + 1, "PT-Scotch partition");
    if (st == HS_OK) st = HS_ALLOC(count, n_parts, "partition counts");
    st = hs_par_agree(st);
    if (st != HS_OK) goto done;
    st = hs_par_agree(scotch_part(comm, n_loc, n_edge, vert, velo, edge, n_parts, own));
    if (st != HS_OK) goto done;
    for (int32_t i = 0; i < n_loc && st == HS_OK; ++i) {
        if (own[i] < 0 || own[i] >= n_parts)
            st = HS_FAIL(HS_ERR_INTERNAL, "ptscotch put node %lld on rank %lld of %d", (long long)(lo + i),
                         (long long)own[i], n_parts);
        else {
            owner[i] = (int32_t)own[i];
            ++count[own[i]];
        }
    }
    st = hs_par_agree(st);
    if (st != HS_OK) goto done;
    /* every rank must own a node, as for the other partitioners */
    if (MPI_Allreduce(MPI_IN_PLACE, count, n_parts, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS)
        st = HS_FAIL(HS_ERR_INTERNAL, "ptscotch: MPI_Allreduce of the parts' nodes failed");
    for (int q = 0; q < n_parts && st == HS_OK; ++q)
        if (count[q] == 0)
            st = HS_FAIL(HS_ERR_CONFIG, "partitioner ptscotch left rank %d without nodes (%lld nodes over %d "
                         "ranks): use fewer ranks or parallel.partition = \"rows\"", q, (long long)n, n_parts);
    st = hs_par_agree(st);
done:
    free(own);
    free(count);
    return st;
}

/* every rank of a run: HS_ERR_CONFIG (agreed) when this process is not one; else the communicator
 * Scotch's messages go on, apart from the run's */
static hs_status scotch_comm(MPI_Comm *comm)
{
    *comm = MPI_COMM_NULL;
    HS_CHECK(hs_par_active(), HS_ERR_CONFIG,
             "parallel.partition = \"ptscotch\" partitions in parallel over the ranks of a distributed run "
             "(mpirun); this process is not one");
    HS_MPI_CALL(MPI_Comm_dup(hs_par_comm(), comm));
    return HS_OK;
}

hs_status hs_ptscotch_partition_rows(const int64_t *vtxdist, int32_t n_row_elems, const int64_t *row_tets,
                                     int n_parts, int32_t *owner)
{
    int rank = 0, size = 1;
    MPI_Comm comm = MPI_COMM_NULL;
    HS_CALL(scotch_comm(&comm));
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    hs_status st = HS_OK;
    SCOTCH_Num *vv = NULL, *edge = NULL; /* the rank's block of the graph */
    const int64_t n = vtxdist[size], lo = vtxdist[rank], hi = vtxdist[rank + 1];
    const int32_t n_loc = (int32_t)(hi - lo); /* the caller checked the width */
    int64_t n_edge = 0;
    HS_CHECK_GOTO(n_parts >= 1 && n_parts <= n, done, HS_ERR_CONFIG,
                  "cannot partition %lld nodes over %d ranks: every rank must own a node", (long long)n, n_parts);
    /* global numbers Scotch holds (its graph's columns; the edge count is checked with the graph) */
    HS_CHECK_GOTO(n - 1 <= (int64_t)SCOTCH_NUMMAX, done, HS_ERR_CONFIG,
                  "parallel.partition = \"ptscotch\": the node graph has %lld nodes, more than this build's "
                  "PT-Scotch (%d-bit SCOTCH_Num) numbers; use parallel.partition = \"rows\" or \"nonzeros\", or "
                  "build against a PT-Scotch with 64-bit integers", (long long)n, (int)(8 * sizeof(SCOTCH_Num)));
    if (n_parts == 1) { /* one part: no graph to cut */
        if (n_loc > 0) memset(owner, 0, sizeof(int32_t) * (size_t)n_loc);
        goto done;
    }
    st = rows_of_elems(lo, hi, n_row_elems, row_tets, &vv, &edge, &n_edge);
    st = part_block(comm, st, n, lo, n_loc, n_edge, vv, vv ? vv + n_loc + 1 : NULL, edge, n_parts, owner);
done:
    st = hs_par_agree(st);
    free(vv);
    free(edge);
    MPI_Comm_free(&comm);
    return st;
}

hs_status hs_ptscotch_partition_root(const hs_csr *a, int32_t n_nodes, int32_t n_elems, const int32_t *tets,
                                     int n_parts, int32_t *part)
{
    int rank = 0, size = 1;
    MPI_Comm comm = MPI_COMM_NULL;
    HS_CALL(scotch_comm(&comm));
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    hs_status st = HS_OK;
    SCOTCH_Num *blk = NULL, *edge = NULL; /* the rank's block of the graph: one buffer (vert, velo, edge) or two */
    int32_t *own32 = NULL;
    int *counts = NULL, *displs = NULL;
    int64_t hdr[3] = {n_nodes, 0, 0}; /* nodes, 1 when rank 0 cannot go on, 1: blocks of elements */
    int64_t n = 0, n_edge = 0;
    int32_t lo = 0, hi = 0, n_loc = 0;
    if (rank == 0) {
        if (a ? a->n_rows != n_nodes : !tets)
            st = HS_FAIL(HS_ERR_INTERNAL, "ptscotch: neither a pattern of %d rows nor the elements on rank 0",
                         (int)n_nodes);
        hdr[1] = st != HS_OK;
        hdr[2] = !a;
    }
    int mpi_rc = MPI_Bcast(hdr, 3, MPI_INT64_T, 0, comm);
    if (mpi_rc != MPI_SUCCESS) { /* no agreement possible without MPI */
        MPI_Comm_free(&comm);
        return HS_FAIL(HS_ERR_INTERNAL, "ptscotch: MPI_Bcast failed");
    }
    if (hdr[1]) { /* rank 0's error, agreed below */
        if (rank != 0) st = HS_FAIL(HS_ERR_INTERNAL, "ptscotch: rank 0 cannot partition");
        goto done;
    }
    n = hdr[0];
    HS_CHECK_GOTO(n_parts >= 1 && n_parts <= n, done, HS_ERR_CONFIG,
                  "cannot partition %lld nodes over %d ranks: every rank must own a node", (long long)n, n_parts);
    if (n_parts == 1) { /* one part: no graph to cut */
        if (rank == 0) memset(part, 0, sizeof(int32_t) * (size_t)n);
        goto done;
    }
    lo = (int32_t)(rank * n / size);
    hi = (int32_t)((rank + 1) * n / size);
    n_loc = hi - lo;
    if (rank == 0 && !hdr[2]) {
        /* the other ranks' blocks of the pattern, each made in one buffer and sent; then its own */
        int64_t most = 0;
        for (int q = 1; q < size; ++q) {
            const int64_t e = block_edges(a, (int32_t)(q * n / size), (int32_t)((q + 1) * n / size));
            if (e > most) most = e;
        }
        st = HS_ALLOC(blk, 2 * (size_t)(n / size + 1) + (size_t)most + 2, "PT-Scotch graph block");
        for (int q = 1; q < size; ++q) {
            const int32_t qlo = (int32_t)(q * n / size), qhi = (int32_t)((q + 1) * n / size), qn = qhi - qlo;
            int64_t head[2] = {st == HS_OK ? 0 : 1, 0};
            if (st == HS_OK) block_of(a, qlo, qhi, blk, blk + qn + 1, blk + 2 * qn + 1, &head[1]);
            /* a failed rank 0 still sends the header, flagged, so that rank q does not wait forever */
            hs_status sx = MPI_Send(head, 2, MPI_INT64_T, q, 27, comm) == MPI_SUCCESS
                               ? HS_OK : HS_FAIL(HS_ERR_INTERNAL, "ptscotch: MPI_Send failed");
            if (sx == HS_OK && !head[0])
                sx = xfer_bytes(blk, sizeof *blk * (size_t)(2 * (int64_t)qn + 1 + head[1]), q, 1, comm);
            if (st == HS_OK) st = sx;
        }
        free(blk);
        blk = NULL;
        if (st == HS_OK) n_edge = block_edges(a, lo, hi);
        if (st == HS_OK) st = HS_ALLOC(blk, 2 * (size_t)n_loc + (size_t)n_edge + 2, "PT-Scotch graph block");
        if (st == HS_OK) block_of(a, lo, hi, blk, blk + n_loc + 1, blk + 2 * n_loc + 1, &n_edge);
    } else if (rank == 0) {
        /* no pattern: each rank the elements of its rows (their vertices), one block in memory at a
         * time; every rank builds its rows from them at once (the core's) */
        for (int q = 1; q < size; ++q) {
            int32_t *et = NULL;
            int64_t head[2] = {1, 0};
            if (st == HS_OK) st = elems_of(n_elems, tets, (int32_t)(q * n / size), (int32_t)((q + 1) * n / size),
                                           &et, &head[1]);
            head[0] = st != HS_OK;
            hs_status sx = MPI_Send(head, 2, MPI_INT64_T, q, 27, comm) == MPI_SUCCESS
                               ? HS_OK : HS_FAIL(HS_ERR_INTERNAL, "ptscotch: MPI_Send failed");
            if (sx == HS_OK && !head[0]) sx = xfer_bytes(et, 4 * sizeof *et * (size_t)head[1], q, 1, comm);
            free(et);
            if (st == HS_OK) st = sx;
        }
        int32_t *et = NULL;
        int64_t *et64 = NULL, ne = 0;
        if (st == HS_OK) st = elems_of(n_elems, tets, lo, hi, &et, &ne);
        if (st == HS_OK) st = widen(et, ne, &et64);
        if (st == HS_OK) st = rows_of_elems(lo, hi, (int32_t)ne, et64, &blk, &edge, &n_edge);
        free(et64);
    } else {
        int64_t head[2] = {1, 0};
        if (MPI_Recv(head, 2, MPI_INT64_T, 0, 27, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            st = HS_FAIL(HS_ERR_INTERNAL, "ptscotch: MPI_Recv failed");
        else if (head[0])
            st = HS_FAIL(HS_ERR_MEMORY, "ptscotch: rank 0 could not make this rank's graph block");
        if (!hdr[2]) { /* the rows themselves */
            n_edge = head[1];
            if (st == HS_OK) st = HS_ALLOC(blk, 2 * (size_t)n_loc + (size_t)n_edge + 2, "PT-Scotch graph block");
            if (st == HS_OK) st = xfer_bytes(blk, sizeof *blk * (size_t)(2 * (int64_t)n_loc + 1 + n_edge), 0, 0, comm);
        } else { /* the elements of the rows: this rank builds them (the core's) */
            int32_t *et = NULL;
            int64_t *et64 = NULL;
            if (st == HS_OK) st = HS_ALLOC(et, 4 * (size_t)head[1] + 4, "PT-Scotch graph block");
            if (st == HS_OK) st = xfer_bytes(et, 4 * sizeof *et * (size_t)head[1], 0, 0, comm);
            if (st == HS_OK) st = widen(et, head[1], &et64);
            else free(et);
            if (st == HS_OK) st = rows_of_elems(lo, hi, (int32_t)head[1], et64, &blk, &edge, &n_edge);
            free(et64);
        }
    }
    /* the core's partition of the blocks: blk = vert [n_loc+1], velo [n_loc], then edge unless apart */
    if (st == HS_OK) st = HS_ALLOC(own32, (size_t)n_loc + 1, "PT-Scotch partition");
    st = part_block(comm, st, n, lo, n_loc, n_edge, blk, blk ? blk + n_loc + 1 : NULL,
                    edge ? edge : blk ? blk + 2 * n_loc + 1 : NULL, n_parts, own32);
    if (st != HS_OK) goto done;
    /* the owners to rank 0, in block order: rank 0's part array */
    if (rank == 0) {
        st = HS_ALLOC(counts, size, "PT-Scotch gather");
        if (st == HS_OK) st = HS_ALLOC(displs, size, "PT-Scotch gather");
        for (int q = 0; q < size && st == HS_OK; ++q) {
            displs[q] = (int)(q * n / size);
            counts[q] = (int)((q + 1) * n / size) - displs[q];
        }
    }
    st = hs_par_agree(st);
    if (st != HS_OK) goto done;
    mpi_rc = MPI_Gatherv(own32, n_loc, MPI_INT32_T, part, counts, displs, MPI_INT32_T, 0, comm);
    st = hs_par_agree(mpi_rc == MPI_SUCCESS ? HS_OK : HS_FAIL(HS_ERR_INTERNAL, "ptscotch: MPI_Gatherv failed"));
done:
    st = hs_par_agree(st);
    free(blk);
    free(edge);
    free(own32);
    free(counts);
    free(displs);
    MPI_Comm_free(&comm);
    return st;
}
