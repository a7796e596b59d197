/* parallel.partition = "ptscotch" (parallel/partition_scotch.c), run under mpirun -np N (ctest: N = 1,
 * 2, 3; label mpi). On a box mesh's node graph, through hs_partition_nodes_root as a run calls it
 * (rank 0 holds the pattern, every rank partitions its block):
 *  - the owners are a partition: every node on a rank in [0, N), every rank owning a node, and
 *    every rank's view (hs_part_local_create_elems) is consistent (owned nodes counted once);
 *  - deterministic for a fixed rank count: a second call gives the same owners, byte for byte
 *    (tests compare runs against serial ones; a rerun must cut alike);
 *  - the graph from the elements (no pattern: rank 0 sends each rank the elements of its rows, the
 *    rank builds them, as a run does) is the pattern's: the same owners, byte for byte;
 *  - the quality bounds PT-Scotch is asked for: nonzero imbalance <= 1.03 (the strategy's 3 %, on
 *    vertex weights = row nonzeros) plus one row's share (a part is whole rows: max row nonzeros /
 *    mean part nonzeros), and an edge cut below the PCSR-I rows partition's (a graph partitioner that
 *    cut more than consecutive layers would be broken) and within 1.5x METIS's where METIS is built;
 *  - errors are every rank's: more parts than nodes is HS_ERR_CONFIG on each rank.
 * With arguments `--bench H [TETGEN]`: not a test; a table of edge cut, imbalance and seconds of
 * ptscotch, metis and rows on the 25 mm box of edge H (H = 0.25: bench_1m's 1.03M nodes; TETGEN = 1:
 * TetGen's unstructured mesh of the box), through the root entry (rank 0 holds the mesh) and the
 * distributed one (hs_partition_rows_dist: every rank the elements of its block of rows; ptscotch on
 * equal and uneven blocks, nonzeros) for docs/parallel.md. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "hs_build_config.h"
#include "hs_mesh.h"
#include "hs_par.h"
#include "hs_partition.h"
#include "hs_test.h"
#include "hs_util.h"

static int rank, size;

/* rank 0's pattern of the box (NULL elsewhere); every rank gets the counts */
static void box_pattern(double lx, double ly, double lz, double h, int tetgen, hs_mesh **m, hs_csr **a)
{
    hs_box_params bp = {lx, ly, lz, h, tetgen, 1.414};
    if (rank == 0) {
        HS_TEST_OK(hs_mesh_create_box(&bp, m));
        HS_TEST_OK(hs_csr_from_tets((*m)->n_nodes, (*m)->n_elems, (*m)->tets, a));
        if (!*a) MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* the elements of @p m with a vertex in [lo, hi), int64 global vertices (new array), *ne their count:
 * what a rank of a distributed read holds (sim/mesh_part_read.c routes them) */
static int64_t *row_elems(const hs_mesh *m, int64_t lo, int64_t hi, int32_t *ne)
{
    int64_t *t = malloc(sizeof(int64_t) * (4 * (size_t)m->n_elems + 4));
    int32_t k = 0;
    for (int32_t e = 0; e < m->n_elems; ++e) {
        const int32_t *v = m->tets + 4 * (size_t)e;
        if ((v[0] >= lo && v[0] < hi) || (v[1] >= lo && v[1] < hi) || (v[2] >= lo && v[2] < hi) ||
            (v[3] >= lo && v[3] < hi)) {
            for (int c = 0; c < 4; ++c) t[4 * (size_t)k + c] = v[c];
            ++k;
        }
    }
    *ne = k;
    return t;
}

static int bench(double h, int tetgen)
{
    hs_mesh *m = NULL;
    hs_csr *a = NULL;
    box_pattern(25.0, 25.0, 25.0, h, tetgen, &m, &a); /* configs/bench_1m.cfg's box */
    int32_t n = rank == 0 ? a->n_rows : 0;
    MPI_Bcast(&n, 1, MPI_INT32_T, 0, MPI_COMM_WORLD);
    int32_t *part = rank == 0 ? malloc(sizeof(int32_t) * (size_t)n) : NULL;
    const char *names[] = {"ptscotch", "ptscotch", "metis", "rows"}; /* from the elements, from the pattern */
    if (rank == 0)
        printf("| partitioner | ranks | nodes | edge cut | imbalance (nodes) | imbalance (nonzeros) | seconds |\n"
               "|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < 4; ++k) {
        const hs_partitioner *p = NULL;
        if (hs_partitioner_lookup("parallel.partition", names[k], &p) != HS_OK) {
            hs_error_clear();
            continue;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        /* ptscotch as a run calls it (no pattern: the elements), then from rank 0's pattern */
        HS_TEST_OK(hs_partition_nodes_root(p, p->parallel && k == 0 ? NULL : a, n, rank == 0 ? m->n_elems : 0,
                                           rank == 0 ? m->tets : NULL, size, rank == 0, part));
        const double t = MPI_Wtime() - t0;
        if (rank == 0) {
            const hs_part_balance b = hs_partition_balance(a, part, size);
            printf("| %s%s | %d | %d | %lld | %.3f | %.3f | %.2f |\n", names[k],
                   k == 0 ? " (elements)" : k == 1 ? " (pattern)" : "", size, (int)n, (long long)b.edge_cut,
                   b.imbalance_nodes, b.imbalance_nnz, t);
        }
    }
    /* the distributed entry (hs_partition_rows_dist): every rank holds the elements of its block of rows
     * (selected here, untimed: the distributed read's routing), the blocks equal (q n / P, the root
     * path's, as a read's byte ranges give about) or uneven (rank q's share ~ q + 1) */
    hs_mesh *mine = NULL;
    if (rank == 0) mine = m;
    else {
        hs_box_params bp = {25.0, 25.0, 25.0, h, tetgen, 1.414};
        HS_TEST_OK(hs_mesh_create_box(&bp, &mine));
    }
    int64_t *vtxdist = malloc(sizeof(int64_t) * (size_t)(size + 1));
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    const char *dist_names[] = {"ptscotch", "ptscotch", "nonzeros"};
    for (int k = 0; k < 3 && mine; ++k) {
        const hs_partitioner *p = NULL;
        if (hs_partitioner_lookup("parallel.partition", dist_names[k], &p) != HS_OK) {
            hs_error_clear();
            continue;
        }
        int64_t acc = 0;
        for (int q = 0; q <= size; ++q) {
            vtxdist[q] = k == 1 ? acc * n / ((int64_t)size * (size + 1) / 2) : q * (int64_t)n / size;
            acc += q + 1;
        }
        for (int q = 0; q < size; ++q) {
            displs[q] = (int)vtxdist[q];
            counts[q] = (int)(vtxdist[q + 1] - vtxdist[q]);
        }
        int32_t ne = 0;
        int64_t *t = row_elems(mine, vtxdist[rank], vtxdist[rank + 1], &ne);
        int32_t *own = malloc(sizeof(int32_t) * (size_t)(counts[rank] + 1));
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        HS_TEST_OK(hs_partition_rows_dist(p, vtxdist, ne, t, own));
        double dt = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MPI_Gatherv(own, counts[rank], MPI_INT32_T, part, counts, displs, MPI_INT32_T, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            const hs_part_balance b = hs_partition_balance(a, part, size);
            printf("| %s (distributed, %s blocks) | %d | %d | %lld | %.3f | %.3f | %.2f |\n", dist_names[k],
                   k == 1 ? "uneven" : "equal", size, (int)n, (long long)b.edge_cut, b.imbalance_nodes,
                   b.imbalance_nnz, dt);
        }
        free(own);
        free(t);
    }
    if (rank != 0) hs_mesh_destroy(&mine);
    free(vtxdist);
    free(counts);
    free(displs);
    free(part);
    hs_csr_destroy(&a);
    hs_mesh_destroy(&m);
    return 0;
}

int main(int argc, char **argv)
{
    if (hs_par_init(&argc, &argv) != HS_OK || !hs_par_active()) {
        fprintf(stderr, "test_ptscotch: run it under mpirun (%s)\n", hs_error_message());
        return 1;
    }
    rank = hs_par_rank();
    size = hs_par_size();
    const hs_partitioner *p = NULL;
    HS_TEST_OK(hs_partitioner_lookup("parallel.partition", "ptscotch", &p));
    if (!p) {
        hs_par_finalize();
        HS_TEST_RETURN();
    }
    if (argc >= 3 && !strcmp(argv[1], "--bench")) {
        bench(atof(argv[2]), argc >= 4 ? atoi(argv[3]) : 0);
        hs_par_finalize();
        HS_TEST_RETURN();
    }

    hs_mesh *m = NULL;
    hs_csr *a = NULL;
    box_pattern(14.0, 11.0, 8.0, 1.0, 0, &m, &a); /* 15 x 12 x 9 nodes */
    int32_t n = rank == 0 ? a->n_rows : 0;
    MPI_Bcast(&n, 1, MPI_INT32_T, 0, MPI_COMM_WORLD);
    int32_t *part = NULL, *again = NULL;
    if (rank == 0) {
        part = malloc(sizeof(int32_t) * (size_t)n);
        again = malloc(sizeof(int32_t) * (size_t)n);
    }
    const int32_t ne = rank == 0 ? m->n_elems : 0;
    const int32_t *tets = rank == 0 ? m->tets : NULL;
    HS_TEST_OK(hs_partition_nodes_root(p, a, n, ne, tets, size, rank == 0, part));
    HS_TEST_OK(hs_partition_nodes_root(p, a, n, ne, tets, size, rank == 0, again));
    if (rank == 0)
        HS_TEST_CHECK(memcmp(part, again, sizeof(int32_t) * (size_t)n) == 0, "ptscotch on %d ranks: not deterministic",
                      size);
    /* the graph from the elements, as a run builds it (no pattern): the same partition */
    HS_TEST_OK(hs_partition_nodes_root(p, NULL, n, ne, tets, size, rank == 0, again));
    if (rank == 0) {
        int32_t *count = calloc((size_t)size, sizeof(int32_t));
        int bad = 0;
        for (int32_t i = 0; i < n; ++i) {
            if (part[i] < 0 || part[i] >= size) ++bad;
            else ++count[part[i]];
        }
        HS_TEST_CHECK(bad == 0, "%d nodes on no rank", bad);
        for (int q = 0; q < size; ++q) HS_TEST_CHECK(count[q] > 0, "rank %d owns no node", q);
        free(count);
        HS_TEST_CHECK(memcmp(part, again, sizeof(int32_t) * (size_t)n) == 0,
                      "ptscotch on %d ranks: the elements' graph partitions otherwise than the pattern's", size);
        /* each rank's view: owned nodes sum to n */
        int64_t owned = 0;
        for (int q = 0; q < size && !bad; ++q) {
            hs_part_local *l = NULL;
            HS_TEST_OK(hs_part_local_create_elems(n, m->n_elems, m->tets, part, size, q, &l));
            if (l) owned += l->n_owned;
            hs_part_local_destroy(&l);
        }
        HS_TEST_CHECK(owned == n, "views own %lld of %d nodes", (long long)owned, (int)n);
        if (size > 1) {
            int32_t max_row = 0;
            for (int32_t i = 0; i < n; ++i)
                if (a->row_ptr[i + 1] - a->row_ptr[i] > max_row) max_row = a->row_ptr[i + 1] - a->row_ptr[i];
            const hs_part_balance bs = hs_partition_balance(a, part, size);
            const double row_share = (double)max_row * size / (double)a->nnz;
            HS_TEST_CHECK(bs.imbalance_nnz <= 1.03 + row_share + 1e-12, "ptscotch nonzero imbalance %.4f > 1.03 + %.4f",
                          bs.imbalance_nnz, row_share);
            const hs_partitioner *rows = NULL;
            HS_TEST_OK(hs_partitioner_lookup("parallel.partition", "rows", &rows));
            HS_TEST_OK(hs_partition_nodes(rows, a, size, again));
            const hs_part_balance br = hs_partition_balance(a, again, size);
            HS_TEST_CHECK(bs.edge_cut < br.edge_cut, "ptscotch cut %lld not below rows cut %lld",
                          (long long)bs.edge_cut, (long long)br.edge_cut);
#if HS_HAS_METIS
            const hs_partitioner *metis = NULL;
            HS_TEST_OK(hs_partitioner_lookup("parallel.partition", "metis", &metis));
            HS_TEST_OK(hs_partition_nodes(metis, a, size, again));
            const hs_part_balance bm = hs_partition_balance(a, again, size);
            HS_TEST_CHECK((double)bs.edge_cut <= 1.5 * (double)bm.edge_cut, "ptscotch cut %lld above 1.5x metis's %lld",
                          (long long)bs.edge_cut, (long long)bm.edge_cut);
#endif
        }
    }
    /* more parts than nodes: refused on every rank, with rank 0's message */
    {
        const hs_status st = hs_partition_nodes_root(p, NULL, n, ne, tets, n + 1, rank == 0, part);
        HS_TEST_CHECK(st == HS_ERR_CONFIG && strstr(hs_error_message(), "every rank must own a node"),
                      "rank %d: %d parts of %d nodes: status %d, %s", rank, (int)n + 1, (int)n, (int)st,
                      hs_error_message());
        hs_error_clear();
    }
    free(part);
    free(again);
    hs_csr_destroy(&a);
    hs_mesh_destroy(&m);
    int fails = hs_test_failures, all = 0;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    hs_par_finalize();
    return all ? 1 : 0;
}
