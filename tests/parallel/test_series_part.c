/*
 * A series of a distributed run (hs_series_create_part, output/hs_series.h), on 1, 2 and 3 ranks:
 * every rank hands its own nodes and elements with their global indices, owners scattered over the
 * global numbering (node i on rank (7 i) mod P), and the files are those of a serial series of the
 * whole mesh: vtk and xdmf gathered to rank 0 in chunks of 7 global indices (many chunks, rows of a
 * rank in each), byte for byte; xdmf_h5 the same index byte for byte and, read back with HDF5, every
 * value of every dataset equal (collectively with the rows exchanged into blocks in a build with a
 * parallel HDF5, streamed through rank 0 in chunks of 7 otherwise). Then a resume at one frame and one more frame: the files of a
 * serial series resumed the same way. Last, one data set from the parts (hs_series_part_write_one, the
 * maps files of a distributed run), alone and sharing a gathered vtk series' mesh: the bytes of the
 * serial file (hs_vtk_write_dataset of the whole mesh).
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include "hs_build_config.h"
#include "hs_mesh.h"
#include "hs_partition.h"
#include "hs_series.h"
#include "hs_test.h"
#include "hs_util.h"
#include "hs_vtk_dataset.h"
#if HS_HAS_HDF5
#include <hdf5.h>
#endif

static int rank = 0, size = 1;

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

#if HS_HAS_HDF5
static void same_h5(const char *a, const char *b)
{
    static const char *const ds[] = {"/mesh/points", "/mesh/cells", "/mesh/region", "/mesh/fiber",
                                     "/frames/000000/a", "/frames/000000/V", "/frames/000000/r",
                                     "/frames/000001/a", "/frames/000001/V", "/frames/000001/r"};
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t fa = H5Fopen(a, H5F_ACC_RDONLY, H5P_DEFAULT), fb = H5Fopen(b, H5F_ACC_RDONLY, H5P_DEFAULT);
    HS_TEST_CHECK(fa >= 0 && fb >= 0, "cannot open %s or %s", a, b);
    for (size_t k = 0; fa >= 0 && fb >= 0 && k < sizeof ds / sizeof ds[0]; ++k) {
        double *v[2] = {NULL, NULL};
        hssize_t n[2] = {-1, -2};
        hid_t f[2] = {fa, fb};
        for (int j = 0; j < 2; ++j) {
            hid_t d = H5Dopen2(f[j], ds[k], H5P_DEFAULT);
            if (d < 0) continue;
            hid_t sp = H5Dget_space(d);
            n[j] = H5Sget_simple_extent_npoints(sp);
            v[j] = malloc(sizeof(double) * (size_t)(n[j] + 1));
            if (H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v[j]) < 0) n[j] = -3 - j;
            H5Sclose(sp);
            H5Dclose(d);
        }
        HS_TEST_CHECK(n[0] == n[1] && n[0] >= 0 && !memcmp(v[0], v[1], sizeof(double) * (size_t)n[0]),
                      "%s: %s differs from the serial series' (%lld, %lld values)", b, ds[k], (long long)n[0],
                      (long long)n[1]);
        free(v[0]);
        free(v[1]);
    }
    if (fa >= 0) H5Fclose(fa);
    if (fb >= 0) H5Fclose(fb);
}
#endif

static hs_frame frame_of(double t, const double *a, const double *r)
{
    hs_frame fr = hs_frame_at(t);
    HS_TEST_OK(hs_frame_add(&fr, "a", 0, a));
    HS_TEST_OK(hs_frame_add_mapped(&fr, "V", 0, a, 100.0, -80.0));
    HS_TEST_OK(hs_frame_add(&fr, "r", 1, r));
    fr.mesh_fields = HS_MESH_FIELD_FIBER | HS_MESH_FIELD_REGION;
    return fr;
}

static hs_status write_vtk(void *ctx, const hs_mesh *mesh, const hs_frame *fr)
{
    return hs_vtk_write_dataset(ctx, "data set", mesh, fr);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    hs_verbosity = 0;
    char dir[256];
    if (rank == 0) {
        char tmpl[] = "/tmp/hs_series_part_XXXXXX";
        HS_TEST_CHECK(mkdtemp(tmpl) != NULL, "mkdtemp");
        snprintf(dir, sizeof dir, "%s", tmpl);
    }
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);

    hs_box_params bp = {6.0, 4.0, 3.0, 1.0, 0, 1.414};
    hs_mesh *m = NULL;
    hs_csr *pat = NULL;
    HS_TEST_OK(hs_mesh_create_box(&bp, &m));
    HS_TEST_OK(hs_csr_from_tets(m->n_nodes, m->n_elems, m->tets, &pat));
    m->fiber = malloc(sizeof(double) * 3 * (size_t)m->n_elems);
    for (int32_t e = 0; e < m->n_elems; ++e) {
        m->region[e] = e % 3;
        for (int j = 0; j < 3; ++j) m->fiber[3 * e + j] = 0.01 * e + j;
    }
    int32_t *owner = malloc(sizeof *owner * (size_t)m->n_nodes);
    for (int32_t i = 0; i < m->n_nodes; ++i) owner[i] = (int32_t)((7 * (int64_t)i) % size);
    hs_part_local *l = NULL;
    HS_TEST_OK(hs_part_local_create(pat, m->n_elems, m->tets, owner, size, rank, &l));
    int32_t ne = 0;
    for (int32_t e = 0; e < l->n_elems; ++e) ne += owner[m->tets[4 * l->elems[e]]] == rank;
    int64_t *egid = malloc(sizeof *egid * ((size_t)ne + 1)), *tets = malloc(sizeof *tets * (4 * (size_t)ne + 4));
    int32_t *region = malloc(sizeof *region * ((size_t)ne + 1));
    double *fiber = malloc(sizeof *fiber * (3 * (size_t)ne + 3)), *xyz = malloc(sizeof *xyz * (3 * (size_t)l->n_owned + 3));
    double *a = malloc(sizeof *a * ((size_t)l->n_owned + 1)), *r = malloc(sizeof *r * ((size_t)ne + 1));
    for (int32_t e = l->n_elems - 1, k = 0; e >= 0; --e) { /* the rank's elements in reverse: any order */
        const int64_t g = l->elems[e];
        if (owner[m->tets[4 * g]] != rank) continue;
        egid[k] = g;
        for (int j = 0; j < 4; ++j) tets[4 * k + j] = m->tets[4 * g + j];
        region[k] = m->region[g];
        memcpy(fiber + 3 * k, m->fiber + 3 * g, sizeof(double) * 3);
        r[k] = 0.25 * (double)g + 0.125;
        ++k;
    }
    for (int32_t i = 0; i < l->n_owned; ++i) {
        memcpy(xyz + 3 * i, m->xyz + 3 * l->l2g[i], sizeof(double) * 3);
        a[i] = 0.5 * (double)l->l2g[i] - 3.0;
    }
    double *ga = malloc(sizeof *ga * (size_t)m->n_nodes), *gr = malloc(sizeof *gr * (size_t)m->n_elems);
    for (int32_t i = 0; i < m->n_nodes; ++i) ga[i] = 0.5 * (double)i - 3.0;
    for (int32_t e = 0; e < m->n_elems; ++e) gr[e] = 0.25 * (double)e + 0.125;

    /* which formats this build writes collectively; the others are gathered */
    HS_TEST_CHECK(!hs_series_can_part("vtk") && !hs_series_can_part("xdmf") &&
                      hs_series_can_part("xdmf_h5") == HS_HAS_HDF5_PARALLEL && !hs_series_can_part("nonesuch"),
                  "hs_series_can_part");
    MPI_Comm comm = MPI_COMM_WORLD;
    hs_series_part part = {&comm, m->n_nodes, m->n_elems, l->n_owned, ne, l->l2g, egid, xyz, tets, region, fiber,
                           HS_SERIES_SEL_EXCHANGE, 7};
    const char *fmts[] = {"vtk", "xdmf", "xdmf_h5"};
    for (int f = 0; f < 3; ++f) {
        if (!strcmp(fmts[f], "xdmf_h5") && !HS_HAS_HDF5) continue;
        char pdir[512], sdir[512];
        snprintf(pdir, sizeof pdir, "%s/part-%s", dir, fmts[f]);
        snprintf(sdir, sizeof sdir, "%s/serial-%s", dir, fmts[f]);
        hs_series *ps = NULL, *ss = NULL;
        HS_TEST_OK(hs_series_create_part(fmts[f], pdir, "p", &part, &ps));
        if (rank == 0) HS_TEST_OK(hs_series_create(fmts[f], sdir, "p", &ss));
        for (int k = 0; k < 2; ++k) {
            hs_frame fr = frame_of(1.5 * k, a, r), gfr = frame_of(1.5 * k, ga, gr);
            HS_TEST_OK(hs_series_write(ps, NULL, &fr));
            if (rank == 0) HS_TEST_OK(hs_series_write(ss, m, &gfr));
        }
        HS_TEST_CHECK(hs_series_count(ps) == 2, "%s: %d frames on rank %d", fmts[f], hs_series_count(ps), rank);
        /* a restart at one frame, and one more (another value), on a new series of the same files */
        const double t0[1] = {0.0};
        hs_series_destroy(&ps);
        hs_series_destroy(&ss);
        HS_TEST_OK(hs_series_create_part(fmts[f], pdir, "p", &part, &ps));
        if (rank == 0) HS_TEST_OK(hs_series_create(fmts[f], sdir, "p", &ss));
        HS_TEST_OK(hs_series_resume(ps, t0, 1));
        if (rank == 0) HS_TEST_OK(hs_series_resume(ss, t0, 1));
        for (int32_t i = 0; i < l->n_owned; ++i) a[i] += 1.0;
        for (int32_t i = 0; i < m->n_nodes; ++i) ga[i] += 1.0;
        hs_frame fr = frame_of(2.0, a, r), gfr = frame_of(2.0, ga, gr);
        HS_TEST_OK(hs_series_write(ps, NULL, &fr));
        if (rank == 0) HS_TEST_OK(hs_series_write(ss, m, &gfr));
        HS_TEST_CHECK(hs_series_count(ps) == 2 && hs_series_times(ps)[1] == 2.0, "%s: after the resume, rank %d",
                      fmts[f], rank);
        hs_series_destroy(&ps);
        hs_series_destroy(&ss);
        MPI_Barrier(comm);
        if (rank == 0) { /* every file of the serial series, and no other in the part's directory */
            int n_files = 0;
            DIR *d = opendir(sdir);
            HS_TEST_CHECK(d != NULL, "cannot list %s", sdir);
            for (struct dirent *e; d && (e = readdir(d));) {
                if (e->d_name[0] == '.') continue;
                char x[1024], y[1024];
                snprintf(x, sizeof x, "%s/%s", sdir, e->d_name);
                snprintf(y, sizeof y, "%s/%s", pdir, e->d_name);
                ++n_files;
                const size_t len = strlen(e->d_name);
                if (len > 3 && !strcmp(e->d_name + len - 3, ".h5")) {
#if HS_HAS_HDF5
                    same_h5(x, y);
#endif
                } else {
                    same_file(x, y);
                }
            }
            if (d) closedir(d);
            int n_part = 0;
            d = opendir(pdir);
            for (struct dirent *e; d && (e = readdir(d));) n_part += e->d_name[0] != '.';
            if (d) closedir(d);
            HS_TEST_CHECK(n_files >= 2 && n_files == n_part, "%s: %d files, the serial series %d", pdir, n_part, n_files);
        }
        for (int32_t i = 0; i < l->n_owned; ++i) a[i] -= 1.0;
        for (int32_t i = 0; i < m->n_nodes; ++i) ga[i] -= 1.0;
    }
    { /* one data set from the parts: alone, then sharing a gathered series' gather (after a frame) */
        char one[512], shared[512], whole[512], sdir[512];
        snprintf(one, sizeof one, "%s/one_part.vtk", dir);
        snprintf(shared, sizeof shared, "%s/one_shared.vtk", dir);
        snprintf(whole, sizeof whole, "%s/one_serial.vtk", dir);
        snprintf(sdir, sizeof sdir, "%s/shared", dir);
        hs_frame fr = frame_of(3.0, a, r), gfr = frame_of(3.0, ga, gr);
        HS_TEST_OK(hs_series_part_write_one(&part, NULL, &fr, write_vtk, one));
        hs_series *ps = NULL;
        HS_TEST_OK(hs_series_create_part("vtk", sdir, "p", &part, &ps));
        HS_TEST_OK(hs_series_write(ps, NULL, &fr));
        HS_TEST_OK(hs_series_part_write_one(&part, ps, &fr, write_vtk, shared));
        HS_TEST_OK(hs_series_write(ps, NULL, &fr)); /* the series' own frames go on */
        HS_TEST_CHECK(hs_series_count(ps) == 2, "shared gather: %d frames", hs_series_count(ps));
        hs_series_destroy(&ps);
        if (rank == 0) {
            HS_TEST_OK(hs_vtk_write_dataset(whole, "data set", m, &gfr));
            same_file(whole, one);
            same_file(whole, shared);
        }
    }
    MPI_Barrier(comm);
    if (rank == 0) {
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0) fprintf(stderr, "note: %s failed\n", cmd);
    }
    free(ga);
    free(gr);
    free(a);
    free(r);
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
    return hs_test_failures ? 1 : 0;
}
