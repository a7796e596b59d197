/*
 * output.format = "xdmf_h5" of a distributed run in a build with a serial HDF5 (issue 26), on 1, 2 and
 * 3 ranks: the series streams every array to rank 0 a chunk at a time (hs_series_format_ops
 * create_stream, output/hs_part_gather.h), and rank 0 writes each chunk as a hyperslab through the
 * serial HDF5 API. Every rank generates only its slab of a structured box (nodes and elements by their
 * global index, the elements in reverse: no rank holds the whole mesh) and writes a part series with
 * chunks of 4096 global indices: frame 0 without mesh arrays, frames 1 and 2 with region and fibres (the
 * mesh arrays come with the first frame that shows them), fields over nodes, elements, and one mapped
 * (V = 100 a - 80 in double, then rounded once to float32). Then a second series resumes at 1 frame
 * (the frames past it are deleted from the file when the index is rewritten) and writes frame 1 again.
 *
 * 1. Memory: rank 0's peak resident memory (VmHWM) may grow by no more than GROWTH_FIXED (16 MiB) while
 *    the three frames and the mesh are written: the gather's chunk buffers (4096 rows of at most 36 B
 *    sent and received, one chunk in order), one float32 chunk, HDF5's metadata cache and its 1 MiB
 *    chunk cache. The box has 107520 nodes and 596232 tetrahedra: the whole-mesh gather this replaces
 *    held on rank 0 the mesh (coordinates 2.6 MB, connectivity 9.5 MB, region 2.4 MB, fibres 14.3 MB)
 *    and each frame's arrays (a, V over the nodes, r over the elements: 6.5 MB in double), besides the
 *    whole field in float32 (2.4 MB): about 38 MB, more than twice the bound (measured from a reset
 *    peak: +41.3 MiB with the gather, +4.5 to +4.8 MiB streamed). Checked only where the series streams
 *    (a build with a parallel HDF5 writes collectively: every rank its part, rank 0 the whole one on 1
 *    rank).
 * 2. The file: rank 0 writes the same series serially from the whole box; every object of the two .h5
 *    files (groups, datasets, attributes) is in both, each dataset of the same type, shape, layout and
 *    chunks with the same bytes, each attribute with the same bytes, and the .xdmf indexes are the same
 *    byte for byte.
 * 3. Faults on rank 0 alone, the other ranks in the gather: its file cannot be made (a directory of that
 *    name), and its file may grow no further than 256 KiB (RLIMIT_FSIZE, SIGXFSZ ignored: write fails
 *    with EFBIG half-way through the mesh's coordinates). Every rank returns HS_ERR_IO with rank 0's one
 *    message, and none waits.
 */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "hs_build_config.h"
#include "hs_mesh.h"
#include "hs_series.h"
#include "hs_test.h"
#include "hs_test_slab.h"
#include "hs_util.h"

enum { CHUNK = 4096 };
#define GROWTH_FIXED (16.0 * 1024 * 1024)

static int rank = 0, size = 1;

static double node_value(int64_t g) { return 1e-3 * (double)g - 3.0; }
static hs_frame frame_of(int k, const double *a, const double *r)
{
    hs_frame fr = hs_frame_at(0.5 * k);
    HS_TEST_OK(hs_frame_add(&fr, "a", 0, a));
    HS_TEST_OK(hs_frame_add_mapped(&fr, "V", 0, a, 100.0, -80.0));
    HS_TEST_OK(hs_frame_add(&fr, "r", 1, r));
    fr.mesh_fields = k ? HS_MESH_FIELD_FIBER | HS_MESH_FIELD_REGION : 0;
    return fr;
}

/* ---- two .h5 files, object for object ------------------------------------------------------- */

typedef struct walk {
    hid_t other; /* the file compared with */
    int n;       /* objects (or attributes) seen */
    const char *where;
} walk;

/* The bytes of a dataset or attribute (type @p t, @p n values), read as stored. */
static unsigned char *read_bytes(hid_t obj, int is_attr, hid_t t, size_t n, size_t *bytes)
{
    *bytes = n * H5Tget_size(t);
    unsigned char *b = calloc(*bytes + 1, 1);
    herr_t e = is_attr ? H5Aread(obj, t, b) : n ? H5Dread(obj, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, b) : 0;
    if (e < 0) {
        free(b);
        return NULL;
    }
    return b;
}

static size_t space_values(hid_t space, hsize_t dims[4], int *rank_out)
{
    int r = H5Sget_simple_extent_ndims(space);
    size_t n = 1;
    memset(dims, 0, 4 * sizeof *dims);
    if (r > 0 && r <= 4) H5Sget_simple_extent_dims(space, dims, NULL);
    for (int k = 0; k < r; ++k) n *= (size_t)dims[k];
    *rank_out = r;
    return n;
}

static herr_t same_attr(hid_t obj, const char *name, const H5A_info_t *info, void *data)
{
    (void)info;
    walk *w = data;
    ++w->n;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT), b = H5Aopen(w->other, name, H5P_DEFAULT);
    hid_t ta = H5Aget_type(a), tb = b >= 0 ? H5Aget_type(b) : H5I_INVALID_HID;
    hid_t sa = H5Aget_space(a), sb = b >= 0 ? H5Aget_space(b) : H5I_INVALID_HID;
    hsize_t da[4], db[4];
    int ra = 0, rb = 0;
    const size_t na = space_values(sa, da, &ra), nb = b >= 0 ? space_values(sb, db, &rb) : 0;
    int same = b >= 0 && H5Tequal(ta, tb) > 0 && ra == rb && na == nb && !memcmp(da, db, sizeof da);
    if (same) {
        size_t ba = 0, bb = 0;
        unsigned char *x = read_bytes(a, 1, ta, na, &ba), *y = read_bytes(b, 1, tb, nb, &bb);
        same = x && y && ba == bb && !memcmp(x, y, ba);
        free(x);
        free(y);
    }
    HS_TEST_CHECK(same, "%s: attribute %s is missing or differs", w->where, name);
    if (tb >= 0) H5Tclose(tb);
    if (sb >= 0) H5Sclose(sb);
    if (b >= 0) H5Aclose(b);
    H5Tclose(ta);
    H5Sclose(sa);
    H5Aclose(a);
    return 0;
}

static herr_t count_attr(hid_t obj, const char *name, const H5A_info_t *info, void *data)
{
    (void)obj, (void)name, (void)info;
    ++*(int *)data;
    return 0;
}

/* Object @p name of the file visited in w->other: the same kind, attributes, and (a dataset) bytes. */
static herr_t same_object(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
    (void)info;
    walk *w = data;
    ++w->n;
    hid_t a = H5Oopen(g, name, H5P_DEFAULT), b = H5Oopen(w->other, name, H5P_DEFAULT);
    HS_TEST_CHECK(a >= 0 && b >= 0 && H5Iget_type(a) == H5Iget_type(b), "%s: missing or of another kind", name);
    if (a < 0 || b < 0) {
        if (a >= 0) H5Oclose(a);
        if (b >= 0) H5Oclose(b);
        return 0;
    }
    walk aw = {b, 0, name};
    int nb = 0;
    H5Aiterate2(a, H5_INDEX_NAME, H5_ITER_INC, NULL, same_attr, &aw);
    H5Aiterate2(b, H5_INDEX_NAME, H5_ITER_INC, NULL, count_attr, &nb);
    HS_TEST_CHECK(aw.n == nb, "%s: %d attributes, %d in the other file", name, aw.n, nb);
    if (H5Iget_type(a) == H5I_DATASET) {
        hid_t ta = H5Dget_type(a), tb = H5Dget_type(b), sa = H5Dget_space(a), sb = H5Dget_space(b);
        hid_t pa = H5Dget_create_plist(a), pb = H5Dget_create_plist(b);
        hsize_t da[4], db[4], ca[4] = {0}, cb[4] = {0};
        int ra = 0, rb = 0;
        const size_t na = space_values(sa, da, &ra), n_b = space_values(sb, db, &rb);
        const H5D_layout_t la = H5Pget_layout(pa), lb = H5Pget_layout(pb);
        if (la == H5D_CHUNKED) H5Pget_chunk(pa, 4, ca);
        if (lb == H5D_CHUNKED) H5Pget_chunk(pb, 4, cb);
        int same = H5Tequal(ta, tb) > 0 && ra == rb && na == n_b && !memcmp(da, db, sizeof da) && la == lb &&
                   !memcmp(ca, cb, sizeof ca);
        HS_TEST_CHECK(same, "%s: another type, shape, layout or chunk", name);
        if (same) {
            size_t ba = 0, bb = 0;
            unsigned char *x = read_bytes(a, 0, ta, na, &ba), *y = read_bytes(b, 0, tb, n_b, &bb);
            size_t at = 0;
            while (x && y && at < ba && x[at] == y[at]) ++at;
            HS_TEST_CHECK(x && y && ba == bb && at == ba, "%s: values differ (byte %zu of %zu, value %zu)", name, at,
                          ba, at / H5Tget_size(ta));
            free(x);
            free(y);
        }
        H5Pclose(pa);
        H5Pclose(pb);
        H5Tclose(ta);
        H5Tclose(tb);
        H5Sclose(sa);
        H5Sclose(sb);
    }
    H5Oclose(a);
    H5Oclose(b);
    return 0;
}

static herr_t count_object(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
    (void)g, (void)name, (void)info;
    ++*(int *)data;
    return 0;
}

/* Every object of @p a is in @p b, the same, and @p b has no other. */
static void same_h5(const char *a, const char *b)
{
    hid_t fa = H5Fopen(a, H5F_ACC_RDONLY, H5P_DEFAULT), fb = H5Fopen(b, H5F_ACC_RDONLY, H5P_DEFAULT);
    HS_TEST_CHECK(fa >= 0 && fb >= 0, "cannot open %s or %s", a, b);
    if (fa < 0 || fb < 0) return;
    walk w = {fb, 0, a};
    int nb = 0;
    H5Lvisit(fa, H5_INDEX_NAME, H5_ITER_INC, same_object, &w);
    H5Lvisit(fb, H5_INDEX_NAME, H5_ITER_INC, count_object, &nb);
    /* /mesh + 4 arrays, /frames + 2 frames of 3 fields */
    HS_TEST_CHECK(w.n == 14 && nb == w.n, "%s: %d objects, %s %d (14 expected)", b, nb, a, w.n);
    H5Fclose(fa);
    H5Fclose(fb);
}

/* The peak resident memory from now on (Linux >= 4.0: "5" to clear_refs sets VmHWM to VmRSS), so that
 * a transient peak of the set-up (each rank sorting its rows) hides no growth; where that is refused the
 * peak stays the process's, which the whole-mesh gather still exceeds by far. */
static void reset_peak(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f) return;
    fputs("5", f);
    fclose(f);
}

static void same_file(const char *a, const char *b)
{
    FILE *x = fopen(a, "rb"), *y = fopen(b, "rb");
    int same = x && y;
    for (int c = 0, d = 0; same && (c != EOF || d != EOF);) {
        c = fgetc(x);
        d = fgetc(y);
        same = c == d;
    }
    HS_TEST_CHECK(same, "%s and %s differ", a, b);
    if (x) fclose(x);
    if (y) fclose(y);
}

/* Every rank got @p st == HS_ERR_IO with rank 0's message, which holds @p what. */
static void one_error(hs_status st, const char *what, const char *case_name)
{
    char msg[2048], root[2048];
    snprintf(msg, sizeof msg, "%s", hs_error_message());
    memcpy(root, msg, sizeof msg);
    MPI_Bcast(root, (int)sizeof root, MPI_CHAR, 0, MPI_COMM_WORLD);
    HS_TEST_CHECK(st == HS_ERR_IO && !strcmp(msg, root) && strstr(msg, what),
                  "rank %d, %s: status %d, \"%s\" (rank 0: \"%s\"; expected HS_ERR_IO with \"%s\")", rank, case_name,
                  (int)st, msg, root, what);
    hs_error_clear();
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    hs_verbosity = 0;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    char dir[256];
    if (rank == 0) {
        char tmpl[] = "/tmp/hs_xdmf_h5_stream_XXXXXX";
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
    char pdir[512];
    snprintf(pdir, sizeof pdir, "%s/part", dir);

    /* three frames (the series' set-up, where each rank sorts its rows, before the measurement) */
    hs_series *s = NULL;
    HS_TEST_OK(hs_series_create_part("xdmf_h5", pdir, "p", &part, &s));
    reset_peak();
    const double hwm0 = hs_peak_rss_bytes();
    double times[3];
    for (int k = 0; k < 3; ++k) {
        for (int32_t i = 0; i < nn; ++i) a[i] += 0.5;
        hs_frame fr = frame_of(k, a, r);
        times[k] = fr.time_ms;
        HS_TEST_OK(hs_series_write(s, NULL, &fr));
    }
    const double hwm1 = hs_peak_rss_bytes();
    hs_series_destroy(&s);
    if (rank == 0 && !HS_HAS_HDF5_PARALLEL) {
        HS_TEST_CHECK(hwm1 - hwm0 <= GROWTH_FIXED, "rank 0's peak memory grew by %.1f MiB writing 3 xdmf_h5 frames of a "
                      "%lld-node mesh (bound %.1f MiB: no whole-mesh array)", (hwm1 - hwm0) / 1048576.0,
                      (long long)n_nodes_global, GROWTH_FIXED / 1048576.0);
        if (getenv("HS_TEST_VERBOSE"))
            printf("rank 0 of %d: VmHWM %.1f MiB, +%.1f MiB writing 3 frames\n", size, hwm0 / 1048576.0,
                   (hwm1 - hwm0) / 1048576.0);
    }
    /* resumed at frame 1: frame 2 is deleted from the file, frame 1 written again (other values) */
    HS_TEST_OK(hs_series_create_part("xdmf_h5", pdir, "p", &part, &s));
    HS_TEST_OK(hs_series_resume(s, times, 1));
    for (int32_t i = 0; i < nn; ++i) a[i] -= 0.25;
    hs_frame f1 = frame_of(1, a, r);
    HS_TEST_OK(hs_series_write(s, NULL, &f1));
    HS_TEST_CHECK(hs_series_count(s) == 2, "rank %d: %d frames after the resume", rank, hs_series_count(s));
    hs_series_destroy(&s);

    /* rank 0's file cannot be made: a directory in its place */
    char bad[512], bad_h5[600];
    snprintf(bad, sizeof bad, "%s/bad", dir);
    snprintf(bad_h5, sizeof bad_h5, "%s/p.h5", bad);
    if (rank == 0) HS_TEST_CHECK(mkdir(bad, 0700) == 0 && mkdir(bad_h5, 0700) == 0, "mkdir %s", bad_h5);
    MPI_Barrier(comm);
    HS_TEST_OK(hs_series_create_part("xdmf_h5", bad, "p", &part, &s));
    hs_frame f0 = frame_of(0, a, r);
    one_error(hs_series_write(s, NULL, &f0), "cannot create the file", "a directory in place of the file");
    hs_series_destroy(&s);

    /* rank 0's file stops growing at 256 KiB, half-way through the coordinates (2.6 MB); streamed only
     * (collectively, MPI-IO may give rank 0's rows to another rank to write) */
    if (!HS_HAS_HDF5_PARALLEL) {
        char full[512];
        snprintf(full, sizeof full, "%s/full", dir);
        HS_TEST_OK(hs_series_create_part("xdmf_h5", full, "p", &part, &s));
        struct rlimit was;
        if (rank == 0) {
            signal(SIGXFSZ, SIG_IGN);
            getrlimit(RLIMIT_FSIZE, &was);
            struct rlimit lim = {256 * 1024, was.rlim_max};
            HS_TEST_CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0, "setrlimit");
        }
        const hs_status st = hs_series_write(s, NULL, &f0);
        if (rank == 0) setrlimit(RLIMIT_FSIZE, &was);
        one_error(st, "cannot write rows [", "a file that cannot grow");
        hs_series_destroy(&s);
    }
    MPI_Barrier(comm);

    if (rank == 0) { /* the whole box, serially: the same series */
        double *ga = NULL, *gr = NULL;
        hs_mesh *m = hs_test_slab_whole(node_value, &ga, &gr);
        char sdir[512], x[600], y[600];
        snprintf(sdir, sizeof sdir, "%s/serial", dir);
        HS_TEST_OK(hs_series_create("xdmf_h5", sdir, "p", &s));
        for (int k = 0; k < 3; ++k) {
            for (int64_t i = 0; i < n_nodes_global; ++i) ga[i] += 0.5;
            hs_frame fr = frame_of(k, ga, gr);
            HS_TEST_OK(hs_series_write(s, m, &fr));
        }
        hs_series_destroy(&s);
        HS_TEST_OK(hs_series_create("xdmf_h5", sdir, "p", &s));
        HS_TEST_OK(hs_series_resume(s, times, 1));
        for (int64_t i = 0; i < n_nodes_global; ++i) ga[i] -= 0.25;
        hs_frame g1 = frame_of(1, ga, gr);
        HS_TEST_OK(hs_series_write(s, m, &g1));
        hs_series_destroy(&s);
        snprintf(x, sizeof x, "%s/p.h5", sdir);
        snprintf(y, sizeof y, "%s/p.h5", pdir);
        same_h5(x, y);
        snprintf(x, sizeof x, "%s/p.xdmf", sdir);
        snprintf(y, sizeof y, "%s/p.xdmf", pdir);
        same_file(x, y);
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
