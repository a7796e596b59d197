/*
 * The legacy formats of a distributed run streamed through rank 0 (issue 26), on 1, 2 and 3 ranks:
 * every rank generates only its slab of a structured box (nodes and elements by their global index,
 * no rank the whole mesh), hands its rows to a part series of "vtk" and of "xdmf" (hs_series_create_part,
 * chunks of 4096 global indices) and to the maps file (hs_maps_write_part, sharing the vtk series'
 * gather, then hs_vtk_write_dataset_part with a gather of its own), and rank 0's peak resident memory
 * (VmHWM) may grow by no more than the bounded buffers while they are written:
 *
 *   frames and maps with the series' gather:  GROWTH_FIXED
 *   the maps with a gather of their own:      GROWTH_FIXED + 24 B per row the rank holds (its set-up
 *                                             sorts its rows: 16 B a row while it sorts, 4 B kept)
 *
 * GROWTH_FIXED (16 MiB) holds the chunk buffers (send, receive and one chunk of rows: 4096 x 100 B),
 * the encoders' 1 MiB scratch buffers, stdio's and MPI's own buffers. A whole-mesh array would not fit:
 * the box has 107520 nodes and 596232 tetrahedra, whose connectivity alone is 9.5 MB as int32 (19 MB as
 * the part's int64), its fibres 14 MB, one cell field 4.8 MB; the gather this replaces held all of them
 * on rank 0 (about 70 MB here). A node that two ranks name is refused on every rank. Then rank 0 builds
 * the whole box and writes the same series serially: every file of the part's directories equals the
 * serial one byte for byte.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_maps.h"
#include "hs_mesh.h"
#include "hs_series.h"
#include "hs_test.h"
#include "hs_test_slab.h"
#include "hs_util.h"
#include "hs_vtk_dataset.h"

enum { CHUNK = 4096 };
#define GROWTH_FIXED (16.0 * 1024 * 1024)

static int rank = 0, size = 1;

static double node_value(int64_t g) { return 0.5 * (double)g - 3.0; }
static hs_frame frame_of(double t, const double *a, const double *r)
{
    hs_frame fr = hs_frame_at(t);
    HS_TEST_OK(hs_frame_add(&fr, "a", 0, a));
    HS_TEST_OK(hs_frame_add_mapped(&fr, "V", 0, a, 100.0, -80.0));
    HS_TEST_OK(hs_frame_add(&fr, "r", 1, r));
    fr.mesh_fields = HS_MESH_FIELD_FIBER | HS_MESH_FIELD_REGION;
    return fr;
}

/* The whole file, or NULL; *n its length. */
static char *slurp(const char *path, long *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)*n + 1);
    if (fread(b, 1, (size_t)*n, f) != (size_t)*n) *n = -1;
    fclose(f);
    return b;
}

static void same_file(const char *a, const char *b)
{
    long na = 0, nb = 0;
    char *x = slurp(a, &na), *y = slurp(b, &nb);
    HS_TEST_CHECK(x && y && na == nb && na >= 0 && memcmp(x, y, (size_t)na) == 0, "%s and %s differ", a, b);
    free(x);
    free(y);
}

/* Every file of directory @p s is in @p p with the same bytes, and @p p has no other. */
static void same_dir(const char *s, const char *p)
{
    int n_s = 0, n_p = 0;
    DIR *d = opendir(s);
    HS_TEST_CHECK(d != NULL, "cannot list %s", s);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char x[1024], y[1024];
        snprintf(x, sizeof x, "%s/%s", s, e->d_name);
        snprintf(y, sizeof y, "%s/%s", p, e->d_name);
        same_file(x, y);
        ++n_s;
    }
    if (d) closedir(d);
    d = opendir(p);
    for (struct dirent *e; d && (e = readdir(d));) n_p += e->d_name[0] != '.';
    if (d) closedir(d);
    HS_TEST_CHECK(n_s >= 2 && n_s == n_p, "%s: %d files, the serial %s %d", p, n_p, s, n_s);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    hs_verbosity = 0;
    char dir[256];
    if (rank == 0) {
        char tmpl[] = "/tmp/hs_series_stream_XXXXXX";
        HS_TEST_CHECK(mkdtemp(tmpl) != NULL, "mkdtemp");
        snprintf(dir, sizeof dir, "%s", tmpl);
    }
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);

    hs_test_slab sl; /* this rank's slab of the box (tests/hs_test_slab.h) */
    hs_test_slab_part(rank, size, node_value, &sl);
    const int64_t n_nodes_global = sl.n_nodes_global, n_elems_global = sl.n_elems_global;
    const int32_t nn = sl.nn, ne = sl.ne;
    int64_t *ngid = sl.ngid, *egid = sl.egid, *tets = sl.tets;
    double *xyz = sl.xyz, *fiber = sl.fiber, *a = sl.a, *r = sl.r;
    int32_t *region = sl.region;

    MPI_Comm comm = MPI_COMM_WORLD;
    hs_series_part part = {&comm, n_nodes_global, n_elems_global, nn, ne, ngid, egid, xyz, tets, region, fiber,
                           HS_SERIES_SEL_AUTO, CHUNK};
    char pv[512], px[512], pm[512], pm2[512];
    snprintf(pv, sizeof pv, "%s/part-vtk", dir);
    snprintf(px, sizeof px, "%s/part-xdmf", dir);
    snprintf(pm, sizeof pm, "%s/part-vtk/p_maps.vtk", dir);
    snprintf(pm2, sizeof pm2, "%s/one_part.vtk", dir);

    /* the series' set-up (each rank sorts its rows) before the measurement */
    hs_series *sv = NULL, *sx = NULL;
    HS_TEST_OK(hs_series_create_part("vtk", pv, "p", &part, &sv));
    HS_TEST_OK(hs_series_create_part("xdmf", px, "p", &part, &sx));
    const double hwm0 = hs_peak_rss_bytes();
    for (int k = 0; k < 2; ++k) {
        for (int32_t i = 0; i < nn; ++i) a[i] += 1.0;
        hs_frame fr = frame_of(0.5 * k, a, r);
        HS_TEST_OK(hs_series_write(sv, NULL, &fr));
        HS_TEST_OK(hs_series_write(sx, NULL, &fr));
    }
    hs_frame fm = frame_of(1.0, a, a);
    fm.n_fields = 2; /* maps are node fields */
    HS_TEST_OK(hs_maps_write_part(pv, "p", &part, sv, &fm, NULL));
    const double hwm1 = hs_peak_rss_bytes();
    HS_TEST_OK(hs_vtk_write_dataset_part(pm2, "data set", &part, NULL, &fm));
    const double hwm2 = hs_peak_rss_bytes();
    hs_series_destroy(&sv);
    hs_series_destroy(&sx);
    if (rank == 0) {
        const double own = GROWTH_FIXED + 24.0 * ((double)nn + (double)ne);
        HS_TEST_CHECK(hwm1 - hwm0 <= GROWTH_FIXED, "rank 0's peak memory grew by %.1f MiB writing 2 + 2 frames and the "
                      "maps of a %lld-node mesh through the series' gathers (bound %.1f MiB)",
                      (hwm1 - hwm0) / 1048576.0, (long long)n_nodes_global, GROWTH_FIXED / 1048576.0);
        HS_TEST_CHECK(hwm2 - hwm1 <= own, "rank 0's peak memory grew by %.1f MiB writing one data set with a gather "
                      "of its own (bound %.1f MiB)", (hwm2 - hwm1) / 1048576.0, own / 1048576.0);
        if (getenv("HS_TEST_VERBOSE"))
            printf("rank 0 of %d: VmHWM %.1f MiB, +%.1f MiB frames and maps, +%.1f MiB one data set\n", size,
                   hwm0 / 1048576.0, (hwm1 - hwm0) / 1048576.0, (hwm2 - hwm1) / 1048576.0);
    }
    if (size > 1) { /* rank 1 names rank 0's node 0 instead of its own first: refused on every rank, named */
        const int64_t own = ngid[0];
        if (rank == 1) ngid[0] = 0;
        hs_series *sb = NULL;
        const hs_status st = hs_series_create_part("vtk", pv, "bad", &part, &sb);
        HS_TEST_CHECK(st == HS_ERR_INTERNAL && sb == NULL && strstr(hs_error_message(), "nodes hold global indices [0, "),
                      "rank %d: a node of two ranks: %d, %s", rank, (int)st, hs_error_message());
        hs_error_clear();
        ngid[0] = own;
    }
    MPI_Barrier(comm);

    if (rank == 0) { /* the whole box, serially: the same files */
        double *ga = NULL, *gr = NULL;
        hs_mesh *m = hs_test_slab_whole(node_value, &ga, &gr);
        char sv_dir[512], sx_dir[512], one[512];
        snprintf(sv_dir, sizeof sv_dir, "%s/serial-vtk", dir);
        snprintf(sx_dir, sizeof sx_dir, "%s/serial-xdmf", dir);
        snprintf(one, sizeof one, "%s/one_serial.vtk", dir);
        hs_series *ss = NULL, *sy = NULL;
        HS_TEST_OK(hs_series_create("vtk", sv_dir, "p", &ss));
        HS_TEST_OK(hs_series_create("xdmf", sx_dir, "p", &sy));
        for (int k = 0; k < 2; ++k) {
            for (int64_t i = 0; i < n_nodes_global; ++i) ga[i] += 1.0;
            hs_frame fr = frame_of(0.5 * k, ga, gr);
            HS_TEST_OK(hs_series_write(ss, m, &fr));
            HS_TEST_OK(hs_series_write(sy, m, &fr));
        }
        hs_series_destroy(&ss);
        hs_series_destroy(&sy);
        hs_frame gm = frame_of(1.0, ga, ga);
        gm.n_fields = 2;
        HS_TEST_OK(hs_maps_write(sv_dir, "p", m, &gm, NULL));
        HS_TEST_OK(hs_vtk_write_dataset(one, "data set", m, &gm));
        same_dir(sv_dir, pv);
        same_dir(sx_dir, px);
        same_file(one, pm2);
        free(ga);
        free(gr);
        hs_mesh_destroy(&m);
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0) fprintf(stderr, "note: %s failed\n", cmd);
    }
    hs_test_slab_free(&sl);
    MPI_Finalize();
    return hs_test_failures ? 1 : 0;
}
