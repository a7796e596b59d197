/*
 * Not a test: the time to write one "xdmf_h5" frame of a distributed run, collectively (each rank
 * its owned nodes and elements, hs_series_create_part) against the gather path (the state gathered
 * onto every rank as the distributed backend's get_state does, then rank 0 writes the whole frame).
 * docs/benchmarks.md ("Output of a distributed run") has the numbers.
 *
 *   mpirun -np P bench_h5_write DIR [PARTITION [FRAMES [H [SELECTION]]]]
 *
 * The slab of configs/bench_1m.cfg (25 mm cube, h = 0.25 mm: 1,030,301 nodes, 6,000,000 tetrahedra)
 * partitioned by PARTITION (rows: contiguous ranges; metis: a graph partition, scattered global
 * indices), FRAMES frames (5) of the default output fields (phi, V, activation: point data; r: cell
 * data; the fibres once), SELECTION auto, hyperslabs, points or exchange (hs_series.h). Prints one line per path: the
 * median time per frame over the frames after the first (which also writes the mesh), the first
 * frame's, and for the gather path its gather (every rank) and write (rank 0) parts.
 *
 * Then a checkpoint's worth (the 6 state arrays and 2 history vectors in float64, 104 MB on this
 * slab) both ways: as sim/checkpoint.c wrote it under mpirun before version 4 (gathered onto every
 * rank, rank 0 writes one file: hs_atomic_file, fsync, rename), and collectively as version 4 does
 * (the rows exchanged into one block of global indices per rank, MPI_File_write_at_all into one
 * file, MPI_File_sync; without its segment hashes): the median of FRAMES.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_atomic_file.h"
#include "hs_dist.h"
#include "hs_mesh.h"
#include "hs_partition.h"
#include "hs_series.h"
#include "hs_util.h"

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        if ((x) != HS_OK) {                                                                        \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, hs_error_message());                \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

enum { N_STATE = 6 }; /* the Aliev-Panfilov state a gather moves: phi, r, activation, repol, apd, beats */

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n ? v[n / 2] : 0.0;
}

/* Sorted by median() before: the fastest (the least disturbed on a shared machine). */
static double fastest(const double *v, int n) { return n ? v[0] : 0.0; }

static double *alloc_d(size_t n)
{
    double *p = malloc((n + 1) * sizeof *p);
    if (!p) MPI_Abort(MPI_COMM_WORLD, 1);
    return p;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        if (!rank) fprintf(stderr, "usage: mpirun -np P bench_h5_write DIR [PARTITION [FRAMES [H [SELECTION]]]]\n");
        MPI_Finalize();
        return 2;
    }
    const char *dir = argv[1], *pname = argc > 2 ? argv[2] : "rows";
    const int frames = argc > 3 ? atoi(argv[3]) : 5;
    const double h = argc > 4 ? atof(argv[4]) : 0.25;
    const char *selname = argc > 5 ? argv[5] : "auto";
    const int selection = !strcmp(selname, "points")       ? HS_SERIES_SEL_POINTS
                          : !strcmp(selname, "hyperslabs") ? HS_SERIES_SEL_HYPERSLABS
                          : !strcmp(selname, "exchange")   ? HS_SERIES_SEL_EXCHANGE
                                                           : HS_SERIES_SEL_AUTO;
    hs_verbosity = 0;

    hs_box_params bp = {25.0, 25.0, 25.0, h, 0, 1.414};
    hs_mesh *m = NULL;
    hs_csr *pat = NULL;
    CHECK(hs_mesh_create_box(&bp, &m));
    CHECK(hs_csr_from_tets(m->n_nodes, m->n_elems, m->tets, &pat));
    m->fiber = alloc_d(3 * (size_t)m->n_elems);
    for (int32_t e = 0; e < m->n_elems; ++e) m->fiber[3 * e] = 1.0, m->fiber[3 * e + 1] = m->fiber[3 * e + 2] = 0.0;
    const hs_partitioner *pr = NULL;
    CHECK(hs_partitioner_lookup("partition", pname, &pr));
    int32_t *owner = malloc(sizeof *owner * (size_t)m->n_nodes);
    CHECK(hs_partition_nodes(pr, pat, size, owner));
    hs_part_local *l = NULL;
    CHECK(hs_part_local_create(pat, m->n_elems, m->tets, owner, size, rank, &l));

    /* elements this rank reports: the owner of the first node (as backends/mpi) */
    int32_t ne = 0;
    for (int32_t e = 0; e < l->n_elems; ++e) ne += owner[m->tets[4 * (size_t)l->elems[e]]] == rank;
    int64_t *egid = malloc(sizeof *egid * ((size_t)ne + 1)), *tets = malloc(sizeof *tets * (4 * (size_t)ne + 4));
    int32_t *region = malloc(sizeof *region * ((size_t)ne + 1));
    double *fiber = alloc_d(3 * (size_t)ne), *xyz = alloc_d(3 * (size_t)l->n_owned);
    for (int32_t e = 0, k = 0; e < l->n_elems; ++e) {
        const int64_t g = l->elems[e];
        if (owner[m->tets[4 * g]] != rank) continue;
        egid[k] = g;
        for (int j = 0; j < 4; ++j) tets[4 * (size_t)k + (size_t)j] = m->tets[4 * g + j];
        region[k] = m->region[g];
        memcpy(fiber + 3 * (size_t)k, m->fiber + 3 * g, 3 * sizeof(double));
        ++k;
    }
    for (int32_t i = 0; i < l->n_owned; ++i) memcpy(xyz + 3 * (size_t)i, m->xyz + 3 * l->l2g[i], 3 * sizeof(double));

    /* the rank's state: values from the global index (any values do) */
    const int32_t no = l->n_owned;
    double *own[N_STATE];
    for (int k = 0; k < N_STATE; ++k) {
        const int cell = k == 1;
        const int32_t n = cell ? ne : no;
        own[k] = alloc_d((size_t)n);
        for (int32_t i = 0; i < n; ++i) own[k][i] = 1e-7 * (double)(cell ? egid[i] : l->l2g[i]) + k;
    }

    /* collective */
    char cdir[4096], gdir[4096];
    snprintf(cdir, sizeof cdir, "%s/collective", dir);
    snprintf(gdir, sizeof gdir, "%s/gather", dir);
    MPI_Comm comm = MPI_COMM_WORLD;
    hs_series_part part = {&comm, m->n_nodes, m->n_elems, no, ne, l->l2g, egid, xyz, tets, region, fiber, selection, 0};
    hs_series *cs = NULL;
    double *tc = alloc_d((size_t)frames), tc0 = 0.0;
    CHECK(hs_series_create_part("xdmf_h5", cdir, "bench", &part, &cs));
    for (int f = 0; f < frames; ++f) {
        hs_frame fr = hs_frame_at(f);
        CHECK(hs_frame_add(&fr, "phi", 0, own[0]));
        CHECK(hs_frame_add_mapped(&fr, "V", 0, own[0], 100.0, -80.0));
        CHECK(hs_frame_add(&fr, "activation", 0, own[2]));
        CHECK(hs_frame_add(&fr, "r", 1, own[1]));
        fr.mesh_fields = HS_MESH_FIELD_FIBER;
        MPI_Barrier(comm);
        const double t0 = MPI_Wtime();
        CHECK(hs_series_write(cs, NULL, &fr));
        double t = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm);
        if (f == 0) tc0 = t;
        else tc[f - 1] = t;
    }
    hs_series_destroy(&cs);

    /* gather: every field onto every rank (hs_dist_gather_idx, root -1, as backends/mpi's get_state),
     * then rank 0 writes the frame with the serial encoder */
    hs_series *gs = NULL;
    if (rank == 0) CHECK(hs_series_create("xdmf_h5", gdir, "bench", &gs));
    double *glob[N_STATE];
    for (int k = 0; k < N_STATE; ++k) glob[k] = alloc_d(k == 1 ? (size_t)m->n_elems : (size_t)m->n_nodes);
    double *tg = alloc_d((size_t)frames), *tw = alloc_d((size_t)frames), *tt = alloc_d((size_t)frames);
    double tt0 = 0.0;
    for (int f = 0; f < frames; ++f) {
        MPI_Barrier(comm);
        const double t0 = MPI_Wtime();
        for (int k = 0; k < N_STATE; ++k) {
            const int cell = k == 1;
            CHECK(hs_dist_gather_idx(comm, -1, cell ? ne : no, cell ? egid : l->l2g, own[k],
                                     cell ? m->n_elems : m->n_nodes, glob[k]));
        }
        double g = MPI_Wtime() - t0, w = 0.0;
        if (rank == 0) {
            hs_frame fr = hs_frame_at(f);
            CHECK(hs_frame_add(&fr, "phi", 0, glob[0]));
            CHECK(hs_frame_add_mapped(&fr, "V", 0, glob[0], 100.0, -80.0));
            CHECK(hs_frame_add(&fr, "activation", 0, glob[2]));
            CHECK(hs_frame_add(&fr, "r", 1, glob[1]));
            fr.mesh_fields = HS_MESH_FIELD_FIBER;
            const double t1 = MPI_Wtime();
            CHECK(hs_series_write(gs, m, &fr));
            w = MPI_Wtime() - t1;
        }
        MPI_Allreduce(MPI_IN_PLACE, &g, 1, MPI_DOUBLE, MPI_MAX, comm);
        MPI_Bcast(&w, 1, MPI_DOUBLE, 0, comm);
        if (f == 0) {
            tt0 = g + w;
        } else {
            tg[f - 1] = g;
            tw[f - 1] = w;
            tt[f - 1] = g + w;
        }
    }
    hs_series_destroy(&gs);

    /* checkpoint: gathered + rank 0's atomic file, against exchanged blocks + MPI-IO */
    double *tk = alloc_d((size_t)frames), *tx = alloc_d((size_t)frames);
    const int hist = 2; /* phi_{n-1}, phi_{n-2} */
    char kpath[4200];
    snprintf(kpath, sizeof kpath, "%s/gather/bench.hsck", dir);
    for (int f = 0; f < frames; ++f) {
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        for (int k = 0; k < N_STATE + hist; ++k) {
            const int kk = k < N_STATE ? k : 0, cell = kk == 1;
            CHECK(hs_dist_gather_idx(comm, -1, cell ? ne : no, cell ? egid : l->l2g, own[kk],
                                     cell ? m->n_elems : m->n_nodes, glob[kk]));
        }
        if (rank == 0) {
            hs_atomic_file *af = NULL;
            CHECK(hs_atomic_file_create(kpath, "checkpoint", &af));
            for (int k = 0; k < N_STATE + hist; ++k) {
                const int kk = k < N_STATE ? k : 0;
                CHECK(hs_atomic_file_write(af, glob[kk], sizeof(double) * (size_t)(kk == 1 ? m->n_elems : m->n_nodes)));
            }
            CHECK(hs_atomic_file_commit(&af));
        }
        MPI_Barrier(comm);
        tk[f] = MPI_Wtime() - t0;
    }
    char xpath[4200];
    snprintf(xpath, sizeof xpath, "%s/collective/bench.ckpt", dir);
    for (int f = 0; f < frames; ++f) {
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        MPI_File fh;
        MPI_File_open(comm, xpath, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
        MPI_Offset base = 0;
        for (int k = 0; k < N_STATE + hist; ++k) {
            const int kk = k < N_STATE ? k : 0, cell = kk == 1;
            const int64_t N = cell ? m->n_elems : m->n_nodes;
            const int32_t n = cell ? ne : no;
            const int64_t *gid = cell ? egid : l->l2g;
            int *sc = calloc((size_t)size, sizeof *sc), *sd = calloc((size_t)size, sizeof *sd);
            int *rc = calloc((size_t)size, sizeof *rc), *rd = calloc((size_t)size, sizeof *rd);
            for (int32_t i = 0; i < n; ++i) sc[(int)((gid[i] * size) / N) < size ? (int)((gid[i] * size) / N) : size - 1]++;
            for (int r = 1; r < size; ++r) sd[r] = sd[r - 1] + sc[r - 1];
            MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, comm);
            int got = 0;
            for (int r = 0; r < size; ++r) rd[r] = got, got += rc[r];
            double *blk = alloc_d((size_t)got);
            MPI_Alltoallv(own[kk], sc, sd, MPI_DOUBLE, blk, rc, rd, MPI_DOUBLE, comm); /* the bytes an exchange moves */
            const int64_t b0 = (N * rank) / size;
            MPI_File_write_at_all(fh, base + (MPI_Offset)(8 * b0), blk, got, MPI_DOUBLE, MPI_STATUS_IGNORE);
            base += (MPI_Offset)(8 * N);
            free(blk);
            free(sc);
            free(sd);
            free(rc);
            free(rd);
        }
        MPI_File_sync(fh);
        MPI_File_close(&fh);
        MPI_Barrier(comm);
        tx[f] = MPI_Wtime() - t0;
    }
    if (rank == 0) {
        /* ranks | partition | path | median s | fastest s | first frame (with the mesh) | gather | rank 0's write */
        const double mc = median(tc, frames - 1);
        printf("| %d | %s | frame, collective (%s) | %.3f | %.3f | %.3f | | |\n", size, pname, selname, mc,
               fastest(tc, frames - 1), tc0);
        const double mt = median(tt, frames - 1), mg = median(tg, frames - 1), mw = median(tw, frames - 1);
        printf("| %d | %s | frame, all-gather + rank 0 | %.3f | %.3f | %.3f | %.3f | %.3f |\n", size, pname, mt,
               fastest(tt, frames - 1), tt0, mg, mw);
        const double mk = median(tk, frames), mx = median(tx, frames);
        printf("| %d | %s | checkpoint, all-gather + rank 0 | %.3f | %.3f | | | |\n", size, pname, mk, fastest(tk, frames));
        printf("| %d | %s | checkpoint, exchanged blocks + MPI-IO | %.3f | %.3f | | | |\n", size, pname, mx,
               fastest(tx, frames));
    }
    for (int k = 0; k < N_STATE; ++k) {
        free(own[k]);
        free(glob[k]);
    }
    free(tk);
    free(tx);
    free(tc);
    free(tg);
    free(tw);
    free(tt);
    free(egid);
    free(tets);
    free(region);
    free(fiber);
    free(xyz);
    free(owner);
    hs_part_local_destroy(&l);
    hs_csr_destroy(&pat);
    hs_mesh_destroy(&m);
    MPI_Finalize();
    return 0;
}
