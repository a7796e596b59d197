/* hs_partition_rows_dist (parallel/partition.c, partition_scotch.c): the partition of a run whose ranks
 * each hold a block of consecutive rows (parallel.read = "ranks"), run under mpirun -np N (ctest: N = 1,
 * 2, 3; label mpi). Every process builds the same mesh (a structured box, TetGen's unstructured box, a
 * box of one cell: 8 nodes, fewer than a node per rank's share of the nonzeros on 3 ranks); each rank
 * is given the elements with a vertex among its rows (as sim/mesh_part_read.c routes them) for blocks
 * vtxdist: equal ones (the root path's, q n / P) and uneven ones (rank q's share grows with q; on the
 * small box one rank's block is empty). The owners, gathered, are checked against:
 *  - "rows" and "nonzeros": the serial partition of the whole pattern (hs_partition_nodes), exactly;
 *  - "ptscotch" with the equal blocks: hs_partition_nodes_root's owners (rank 0 holds the mesh and
 *    sends the same blocks), exactly: the same distributed graph, a deterministic Scotch (the
 *    distributed call's rows built by 3 OpenMP threads, the root's by 1: the same rows; so too
 *    "rows" and "nonzeros" on uneven blocks with 3 threads);
 *  - "ptscotch" with uneven blocks: a partition, every rank owning a node, the nonzero imbalance within
 *    the 3 % asked plus one row's share, the edge cut within 10 % of the root path's;
 *  - "metis" and "box": HS_ERR_CONFIG on every rank naming parallel.partition and the partitioners that
 *    work (ptscotch, rows, nonzeros); blocks that differ between ranks and a vertex outside the graph:
 *    HS_ERR_INTERNAL on every rank.
 * The comparison is checked to see a misplaced block: the serial owners with one rank's block taken
 * from one row further differ from them (what owner[] indexed from a shifted row gives). */
#include <mpi.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "hs_build_config.h"
#include "hs_mesh.h"
#include "hs_par.h"
#include "hs_partition.h"
#include "hs_test.h"
#include "hs_util.h"

static int rank, size;

/* the elements with a vertex in [lo, hi), as int64 global vertices (new array), *ne their count */
static int64_t *row_elems(const hs_mesh *m, int64_t lo, int64_t hi, int32_t *ne)
{
    int64_t *t = malloc(sizeof(int64_t) * (4 * (size_t)m->n_elems + 4));
    int32_t k = 0;
    for (int32_t e = 0; e < m->n_elems; ++e) {
        const int32_t *v = m->tets + 4 * (size_t)e;
        int in = 0;
        for (int c = 0; c < 4; ++c) in |= v[c] >= lo && v[c] < hi;
        if (!in) continue;
        for (int c = 0; c < 4; ++c) t[4 * (size_t)k + c] = v[c];
        ++k;
    }
    *ne = k;
    return t;
}

/* hs_partition_rows_dist of partitioner @p name on blocks @p vtxdist, gathered on every rank into
 * all [n]; its status (agreed) */
static int dist_threads = 1; /* OpenMP threads of the hs_partition_rows_dist calls */

static hs_status dist_owners(const char *name, const hs_mesh *m, const int64_t *vtxdist, int32_t *all)
{
    const hs_partitioner *p = NULL;
    HS_TEST_OK(hs_partitioner_lookup("parallel.partition", name, &p));
    if (!p) return HS_ERR_CONFIG;
    const int64_t lo = vtxdist[rank], hi = vtxdist[rank + 1];
    int32_t ne = 0;
    int64_t *t = row_elems(m, lo, hi, &ne);
    int32_t *own = malloc(sizeof(int32_t) * (size_t)(hi - lo + 1));
    omp_set_num_threads(dist_threads);
    const hs_status st = hs_partition_rows_dist(p, vtxdist, ne, t, own);
    omp_set_num_threads(1);
    if (st == HS_OK) {
        int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
        for (int q = 0; q < size; ++q) {
            displs[q] = (int)vtxdist[q];
            counts[q] = (int)(vtxdist[q + 1] - vtxdist[q]);
        }
        MPI_Allgatherv(own, (int)(hi - lo), MPI_INT32_T, all, counts, displs, MPI_INT32_T, MPI_COMM_WORLD);
        free(counts);
        free(displs);
    }
    free(own);
    free(t);
    return st;
}

/* the first node where a and b differ, -1 when none */
static int64_t first_diff(const int32_t *a, const int32_t *b, int64_t n)
{
    for (int64_t i = 0; i < n; ++i)
        if (a[i] != b[i]) return i;
    return -1;
}

/* @p m: the mesh (every process the same); @p tiny: PT-Scotch may leave a part empty */
static void check_mesh(const char *what, const hs_mesh *m, int tiny)
{
    hs_csr *a = NULL;
    HS_TEST_OK(hs_csr_from_tets(m->n_nodes, m->n_elems, m->tets, &a));
    if (!a) MPI_Abort(MPI_COMM_WORLD, 1);
    const int64_t n = m->n_nodes;
    /* every process built the same mesh (TetGen included): the same counts and vertices */
    int64_t sig[3] = {n, m->n_elems, 0};
    uint64_t h = 0; /* unsigned: the hash wraps (UBSan refuses a signed overflow) */
    for (int64_t k = 0; k < 4 * (int64_t)m->n_elems; ++k) h = h * 31u + (uint64_t)(uint32_t)m->tets[k];
    sig[2] = (int64_t)(h >> 1);
    int64_t sig0[3] = {sig[0], sig[1], sig[2]};
    MPI_Bcast(sig0, 3, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (memcmp(sig, sig0, sizeof sig) != 0) {
        fprintf(stderr, "%s: rank %d built another mesh than rank 0\n", what, rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int64_t *equal = malloc(sizeof(int64_t) * (size_t)(size + 1));
    int64_t *uneven = malloc(sizeof(int64_t) * (size_t)(size + 1));
    for (int q = 0; q <= size; ++q) equal[q] = q * n / size;
    /* rank q's share grows with q (weights 1, 2, 3, ...); on the tiny mesh rank 1's block is empty */
    {
        const int64_t w = (int64_t)size * (size + 1) / 2;
        int64_t acc = 0;
        uneven[0] = 0;
        for (int q = 0; q < size; ++q) {
            acc += q + 1;
            uneven[q + 1] = acc * n / w;
        }
        if (tiny && size >= 3) uneven[2] = uneven[1];
    }
    int32_t *serial = malloc(sizeof(int32_t) * (size_t)n), *got = malloc(sizeof(int32_t) * (size_t)n);
    const int64_t *blocks[2] = {equal, uneven};
    const char *block_name[2] = {"equal", "uneven"};

    /* rows and nonzeros: the serial partition of the whole pattern, exactly */
    const char *serial_names[2] = {"rows", "nonzeros"};
    for (int k = 0; k < 2; ++k) {
        const hs_partitioner *p = NULL;
        HS_TEST_OK(hs_partitioner_lookup("parallel.partition", serial_names[k], &p));
        HS_TEST_OK(hs_partition_nodes(p, a, size, serial));
        for (int b = 0; b < 3; ++b) { /* equal, uneven, uneven with 3 threads per rank */
            const int bi = b == 0 ? 0 : 1;
            memset(got, 0xff, sizeof(int32_t) * (size_t)n);
            dist_threads = b == 2 ? 3 : 1;
            HS_TEST_OK(dist_owners(serial_names[k], m, blocks[bi], got));
            dist_threads = 1;
            const int64_t d = first_diff(serial, got, n);
            HS_TEST_CHECK(d < 0, "%s, %d ranks, %s on %s blocks, %d threads: node %lld on rank %d, the serial "
                          "partition's %d", what, size, serial_names[k], block_name[bi], b == 2 ? 3 : 1,
                          (long long)d, d < 0 ? 0 : (int)got[d], d < 0 ? 0 : (int)serial[d]);
        }
        /* the comparison sees a block misplaced by one row (rows: each block one rank) */
        if (k == 0 && size >= 2) {
            memcpy(got, serial, sizeof(int32_t) * (size_t)n);
            const int64_t lo = equal[size - 1];
            memmove(got + lo, got + lo - 1, sizeof(int32_t) * (size_t)(n - lo));
            HS_TEST_CHECK(first_diff(serial, got, n) >= 0, "%s: a block shifted by one row goes unseen", what);
        }
    }

#if HS_HAS_PTSCOTCH
    {
        const hs_partitioner *p = NULL;
        HS_TEST_OK(hs_partitioner_lookup("parallel.partition", "ptscotch", &p));
        /* the root path: rank 0 holds the mesh and sends the equal blocks' elements */
        const hs_status sr = hs_partition_nodes_root(p, NULL, (int32_t)n, m->n_elems, m->tets, size, rank == 0,
                                                     serial);
        dist_threads = 3; /* the rows built by 3 threads each: the same graph */
        const hs_status sd = dist_owners("ptscotch", m, equal, got);
        dist_threads = 1;
        HS_TEST_CHECK(sr == sd, "%s: ptscotch root status %d, distributed %d (%s)", what, (int)sr, (int)sd,
                      hs_error_message());
        if (sr == HS_OK && sd == HS_OK) {
            MPI_Bcast(serial, (int)n, MPI_INT32_T, 0, MPI_COMM_WORLD);
            const int64_t d = first_diff(serial, got, n);
            HS_TEST_CHECK(d < 0, "%s, %d ranks: ptscotch on the root path's blocks: node %lld on rank %d, the root "
                          "path's %d", what, size, (long long)d, d < 0 ? 0 : (int)got[d], d < 0 ? 0 : (int)serial[d]);
        } else {
            /* a tiny graph may leave a part empty: refused alike on both paths */
            HS_TEST_CHECK(tiny && sd == HS_ERR_CONFIG && strstr(hs_error_message(), "without nodes"),
                          "%s: ptscotch failed: %s", what, hs_error_message());
            hs_error_clear();
        }
        const hs_status su = dist_owners("ptscotch", m, uneven, got);
        if (su != HS_OK) {
            HS_TEST_CHECK(tiny && su == HS_ERR_CONFIG && strstr(hs_error_message(), "without nodes"),
                          "%s: ptscotch on uneven blocks failed: %s", what, hs_error_message());
            hs_error_clear();
        } else if (!tiny && size > 1) {
            int32_t *count = calloc((size_t)size, sizeof(int32_t));
            int bad = 0;
            for (int64_t i = 0; i < n; ++i) {
                if (got[i] < 0 || got[i] >= size) ++bad;
                else ++count[got[i]];
            }
            HS_TEST_CHECK(bad == 0, "%s: %d nodes on no rank", what, bad);
            for (int q = 0; q < size; ++q) HS_TEST_CHECK(count[q] > 0, "%s: rank %d owns no node", what, q);
            free(count);
            int32_t max_row = 0;
            for (int64_t i = 0; i < n; ++i)
                if (a->row_ptr[i + 1] - a->row_ptr[i] > max_row) max_row = a->row_ptr[i + 1] - a->row_ptr[i];
            const double row_share = (double)max_row * size / (double)a->nnz;
            if (!bad) {
                const hs_part_balance bu = hs_partition_balance(a, got, size);
                const hs_part_balance br = hs_partition_balance(a, serial, size);
                HS_TEST_CHECK(bu.imbalance_nnz <= 1.03 + row_share + 1e-12,
                              "%s: ptscotch on uneven blocks: nonzero imbalance %.4f > 1.03 + %.4f", what,
                              bu.imbalance_nnz, row_share);
                HS_TEST_CHECK((double)bu.edge_cut <= 1.10 * (double)br.edge_cut,
                              "%s: ptscotch on uneven blocks cuts %lld edges, the root path's blocks %lld", what,
                              (long long)bu.edge_cut, (long long)br.edge_cut);
            }
        }
    }
#endif

    /* partitioners that need the whole graph, or the box: refused on every rank, saying what works */
    {
        const char *refused[2] = {"metis", "box"};
        for (int k = 0; k < 2; ++k) {
            const hs_partitioner *p = NULL;
            if (hs_partitioner_lookup("parallel.partition", refused[k], &p) != HS_OK) { /* metis not built */
                hs_error_clear();
                continue;
            }
            const hs_status st = dist_owners(refused[k], m, equal, got);
            const char *msg = hs_error_message();
            HS_TEST_CHECK(st == HS_ERR_CONFIG && strstr(msg, "parallel.partition") && strstr(msg, "\"rows\"") &&
                              strstr(msg, "\"nonzeros\"") && (!HS_HAS_PTSCOTCH || strstr(msg, "\"ptscotch\"")) &&
                              hs_par_agreed() == HS_ERR_CONFIG,
                          "%s: %s refused with status %d: %s", what, refused[k], (int)st, msg);
            hs_error_clear();
        }
    }
    /* the caller's mistakes: blocks that differ between ranks, a vertex outside the graph */
    if (memcmp(equal, uneven, sizeof(int64_t) * (size_t)(size + 1)) != 0) { /* the last rank: uneven */
        const hs_partitioner *p = NULL;
        HS_TEST_OK(hs_partitioner_lookup("parallel.partition", "rows", &p));
        int32_t *own = malloc(sizeof(int32_t) * (size_t)n);
        const hs_status st = hs_partition_rows_dist(p, rank == size - 1 ? uneven : equal, 0, NULL, own);
        HS_TEST_CHECK(st == HS_ERR_INTERNAL && strstr(hs_error_message(), "row blocks differ"),
                      "%s: differing blocks: status %d, %s", what, (int)st, hs_error_message());
        hs_error_clear();
        free(own);
    }
    {
        const hs_partitioner *p = NULL;
        HS_TEST_OK(hs_partitioner_lookup("parallel.partition", "nonzeros", &p));
        int64_t bad_tet[4] = {equal[rank], n, 0, 1};
        int32_t *own = malloc(sizeof(int32_t) * (size_t)n);
        const hs_status st = hs_partition_rows_dist(p, equal, rank == size - 1 ? 1 : 0, bad_tet, own);
        HS_TEST_CHECK(st == HS_ERR_INTERNAL && strstr(hs_error_message(), "outside the graph"),
                      "%s: a vertex outside: status %d, %s", what, (int)st, hs_error_message());
        hs_error_clear();
        free(own);
    }
    free(equal);
    free(uneven);
    free(serial);
    free(got);
    hs_csr_destroy(&a);
}

static void check_box(const char *what, const hs_box_params *bp, int tiny)
{
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_create_box(bp, &m));
    if (m) check_mesh(what, m, tiny);
    hs_mesh_destroy(&m);
}

/* a mesh of @p n nodes and the elements @p tets [ne][4] (only what the partitioners read) */
static void check_tets(const char *what, int32_t n, int32_t ne, int32_t *tets)
{
    hs_mesh m;
    memset(&m, 0, sizeof m);
    m.n_nodes = n;
    m.n_elems = ne;
    m.tets = tets;
    check_mesh(what, &m, 1);
}

int main(int argc, char **argv)
{
    if (hs_par_init(&argc, &argv) != HS_OK || !hs_par_active()) {
        fprintf(stderr, "test_partition_dist: run it under mpirun (%s)\n", hs_error_message());
        return 1;
    }
    rank = hs_par_rank();
    size = hs_par_size();
    const hs_box_params box = {14.0, 11.0, 8.0, 1.0, 0, 1.414};   /* 15 x 12 x 9 nodes */
    const hs_box_params tetgen = {6.0, 5.0, 4.0, 1.0, 1, 1.414}; /* TetGen's unstructured box */
    const hs_box_params tiny = {1.0, 1.0, 1.0, 1.0, 0, 1.414};   /* one cell: 8 nodes */
    check_box("box", &box, 0);
    check_box("tetgen", &tetgen, 0);
    check_box("tiny", &tiny, 1);
    /* a fan of 9 elements around node 0: "nonzeros" cuts midway between two rows' boundaries (a tie,
     * kept on the lower row) on 2 and 3 ranks */
    int32_t fan[9][4];
    for (int j = 0; j < 9; ++j) {
        fan[j][0] = 0;
        fan[j][1] = j + 1;
        fan[j][2] = j + 2;
        fan[j][3] = j + 3;
    }
    check_tets("fan", 12, 9, &fan[0][0]);
    /* one element and a node in none (its row: the diagonal alone): on 5 ranks "nonzeros"'s nearest
     * cuts collide and the order of the cuts decides (np5) */
    int32_t one[4] = {0, 1, 2, 3};
    check_tets("one element", 5, 1, one);
    int fails = hs_test_failures, all = 0;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    hs_par_finalize();
    return all ? 1 : 0;
}
