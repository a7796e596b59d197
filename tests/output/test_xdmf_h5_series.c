/*
 * The "xdmf_h5" series format (output/format_xdmf_h5.c) read back with the HDF5 C API: the mesh
 * datasets (shapes and values), one group per frame with its time and float32 fields of the
 * right shape and values (chunked), the frame count; the .xdmf index names the HDF5 datasets;
 * resume drops the frames past the restart point from the file and refuses another run's file;
 * a frame whose index could not be written is not listed and is replaced by the next one; a run
 * killed after a frame leaves an index and a file that agree; the maps file (output/maps.c).
 * Exit 77 (skipped) in a build without HDF5.
 */
#define _XOPEN_SOURCE 700 /* nftw, mkdtemp */
#include "hs_build_config.h"

#if !HS_HAS_HDF5
#include <stdio.h>
int main(void)
{
    printf("built without HDF5 (install libhdf5-dev): xdmf_h5 not tested\n");
    return 77;
}
#else

#include <hdf5.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hs_maps.h"
#include "hs_series.h"
#include "hs_test.h"
#include "output_test_frame.h"
#include "output_test_fs.h"
#include "output_test_mesh.h"
#include "vtk_test_reader.h"

static char g_root[512];

/* Dataset @p path of @p file as doubles (any numeric type), its dims into dims[2] (rank 1: dims[1]
 * = 1); NULL when absent. @p chunked: 1 when its layout is chunked. */
static double *read_ds(hid_t file, const char *path, hsize_t dims[2], int *chunked)
{
    dims[0] = dims[1] = 0;
    if (H5Lexists(file, path, H5P_DEFAULT) <= 0) return NULL;
    hid_t ds = H5Dopen2(file, path, H5P_DEFAULT);
    if (ds < 0) return NULL;
    hid_t sp = H5Dget_space(ds), pl = H5Dget_create_plist(ds);
    int rank = H5Sget_simple_extent_ndims(sp);
    dims[1] = 1;
    H5Sget_simple_extent_dims(sp, dims, NULL);
    if (rank == 1) dims[1] = 1;
    if (chunked) *chunked = H5Pget_layout(pl) == H5D_CHUNKED;
    size_t n = (size_t)(dims[0] * dims[1]);
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (v && n && H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) {
        free(v);
        v = NULL;
    }
    H5Pclose(pl);
    H5Sclose(sp);
    H5Dclose(ds);
    return v;
}

static double frame_time(hid_t file, int k)
{
    char g[32];
    double t = -1.0;
    snprintf(g, sizeof g, "/frames/%06d", k);
    if (H5Lexists(file, "/frames", H5P_DEFAULT) <= 0 || H5Lexists(file, g, H5P_DEFAULT) <= 0) return -1.0;
    hid_t a = H5Aopen_by_name(file, g, "time_ms", H5P_DEFAULT, H5P_DEFAULT);
    if (a >= 0) H5Aread(a, H5T_NATIVE_DOUBLE, &t);
    if (a >= 0) H5Aclose(a);
    return t;
}

/* Frames (groups under /frames) in the file. */
static int n_frames_in(hid_t file)
{
    if (H5Lexists(file, "/frames", H5P_DEFAULT) <= 0) return 0;
    H5G_info_t info;
    hid_t g = H5Gopen2(file, "/frames", H5P_DEFAULT);
    int n = g >= 0 && H5Gget_info(g, &info) >= 0 ? (int)info.nlinks : -1;
    if (g >= 0) H5Gclose(g);
    return n;
}

static int count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *c = text ? strstr(text, needle) : NULL; c; c = strstr(c + 1, needle)) ++n;
    return n;
}

/* Frame k's field @p name must be float32 of @p want [n] (mapped by scale, offset when @p mapped). */
static void check_field(hid_t file, int k, const char *name, const double *want, size_t n, int mapped)
{
    char path[64];
    hsize_t dims[2];
    int chunked = 0;
    snprintf(path, sizeof path, "/frames/%06d/%s", k, name);
    double *v = read_ds(file, path, dims, &chunked);
    HS_TEST_CHECK(v && dims[0] == n && dims[1] == 1 && chunked, "%s: shape [%llu][%llu] (want [%zu]), chunked %d",
                  path, (unsigned long long)dims[0], (unsigned long long)dims[1], n, chunked);
    size_t bad = 0;
    for (size_t i = 0; v && dims[0] == n && i < n; ++i) {
        double x = mapped ? 100.0 * want[i] - 80.0 : want[i];
        bad += v[i] != (double)(float)x;
    }
    HS_TEST_CHECK(bad == 0, "%s: %zu values differ from float32 of the frame's", path, bad);
    free(v);
}

/* Write frames 0..n-1 of @p m at times 0.5 k into @p dir (prefix "h"); the series stays open. */
static hs_series *write_frames(const char *dir, const hs_mesh *m, int n, int first)
{
    hs_series *s = NULL;
    HS_TEST_OK(hs_series_create("xdmf_h5", dir, "h", &s));
    for (int k = first; s && k < n; ++k) {
        frame_arrays a = {0};
        fill_frame(m, k, &a);
        hs_frame fr = test_frame(0.5 * k, TF_ALL, &a);
        HS_TEST_OK(hs_series_write(s, m, &fr));
        free_frame(&a);
    }
    return s;
}

static void test_layout(const hs_mesh *m)
{
    char dir[600], h5[700], idx[700];
    snprintf(dir, sizeof dir, "%s/layout", g_root);
    hs_series *s = write_frames(dir, m, 3, 0);
    HS_TEST_CHECK(hs_series_count(s) == 3, "count %d", hs_series_count(s));
    hs_series_destroy(&s);
    path_in(h5, sizeof h5, dir, "h.h5");
    path_in(idx, sizeof idx, dir, "h.xdmf");
    const size_t nn = (size_t)m->n_nodes, ne = (size_t)m->n_elems;

    hid_t f = H5Fopen(h5, H5F_ACC_RDONLY, H5P_DEFAULT);
    HS_TEST_CHECK(f >= 0, "%s does not open", h5);
    if (f < 0) return;
    hsize_t dims[2];
    double *v = read_ds(f, "/mesh/points", dims, NULL);
    size_t bad = 0;
    for (size_t i = 0; v && dims[0] == nn && dims[1] == 3 && i < 3 * nn; ++i) bad += v[i] != m->xyz[i];
    HS_TEST_CHECK(v && dims[0] == nn && dims[1] == 3 && !bad, "/mesh/points: shape or %zu values", bad);
    free(v);
    v = read_ds(f, "/mesh/cells", dims, NULL);
    bad = 0;
    for (size_t i = 0; v && dims[0] == ne && dims[1] == 4 && i < 4 * ne; ++i) bad += v[i] != m->tets[i];
    HS_TEST_CHECK(v && dims[0] == ne && dims[1] == 4 && !bad, "/mesh/cells: shape or %zu values", bad);
    free(v);
    v = read_ds(f, "/mesh/region", dims, NULL);
    bad = 0;
    for (size_t i = 0; v && dims[0] == ne && i < ne; ++i) bad += v[i] != m->region[i];
    HS_TEST_CHECK(v && dims[0] == ne && dims[1] == 1 && !bad, "/mesh/region: shape or %zu values", bad);
    free(v);
    v = read_ds(f, "/mesh/fiber", dims, NULL);
    bad = 0;
    for (size_t i = 0; v && dims[0] == ne && dims[1] == 3 && i < 3 * ne; ++i) bad += v[i] != m->fiber[i];
    HS_TEST_CHECK(v && dims[0] == ne && dims[1] == 3 && !bad, "/mesh/fiber: shape or %zu values", bad);
    free(v);

    HS_TEST_CHECK(n_frames_in(f) == 3, "%d frame groups, want 3", n_frames_in(f));
    for (int k = 0; k < 3; ++k) {
        frame_arrays a = {0};
        fill_frame(m, k, &a);
        HS_TEST_CHECK(frame_time(f, k) == 0.5 * k, "frame %d at %g ms", k, frame_time(f, k));
        check_field(f, k, "phi", a.phi, nn, 0);
        check_field(f, k, "V", a.phi, nn, 1);
        check_field(f, k, "activation", a.act, nn, 0);
        check_field(f, k, "r", a.r, ne, 0);
        free_frame(&a);
    }
    H5Fclose(f);

    char *text = slurp(idx, NULL);
    HS_TEST_CHECK(text && count(text, "<Grid GridType=\"Uniform\"") == 3 &&
                      strstr(text, "CollectionType=\"Temporal\"") && count(text, "Format=\"HDF\"") == 3 * 8 &&
                      strstr(text, ">h.h5:/frames/000002/r</DataItem>") && strstr(text, ">h.h5:/mesh/points<"),
                  "%s: not an index of 3 HDF5-backed frames:\n%s", idx, text ? text : "(unreadable)");
    free(text);
    char other[700];
    path_in(other, sizeof other, dir, "h_000000.bin");
    HS_TEST_CHECK(!exists(other), "a file per frame was written");
}

/* Resume: frames past the restart point leave the file and the index; another run's file is
 * refused with nothing changed; a resume at 0 removes both files. */
static void test_resume(const hs_mesh *m)
{
    char dir[600], h5[700], idx[700];
    snprintf(dir, sizeof dir, "%s/resume", g_root);
    path_in(h5, sizeof h5, dir, "h.h5");
    path_in(idx, sizeof idx, dir, "h.xdmf");
    hs_series *s = write_frames(dir, m, 4, 0);
    hs_series_destroy(&s);

    const double wrong[2] = {0.0, 0.25};
    HS_TEST_OK(hs_series_create("xdmf_h5", dir, "h", &s));
    if (s) expect_error(hs_series_resume(s, wrong, 2), HS_ERR_IO, "another run", "resume at other times");
    hs_series_destroy(&s);
    char *text = slurp(idx, NULL);
    HS_TEST_CHECK(count(text, "<Grid GridType=\"Uniform\"") == 4, "refused resume changed the index");
    free(text);

    const double times[2] = {0.0, 0.5};
    HS_TEST_OK(hs_series_create("xdmf_h5", dir, "h", &s));
    if (s) HS_TEST_OK(hs_series_resume(s, times, 2));
    HS_TEST_CHECK(hs_series_count(s) == 2, "count %d after resume", hs_series_count(s));
    text = slurp(idx, NULL);
    HS_TEST_CHECK(count(text, "<Grid GridType=\"Uniform\"") == 2 && !strstr(text, "/frames/000002/"),
                  "index after resume at 2:\n%s", text ? text : "(none)");
    free(text);
    hid_t f = H5Fopen(h5, H5F_ACC_RDONLY, H5P_DEFAULT);
    HS_TEST_CHECK(f >= 0 && n_frames_in(f) == 2, "%d frames in the file after resume at 2", f >= 0 ? n_frames_in(f) : -1);
    if (f >= 0) H5Fclose(f);
    /* the resumed run writes frame 2 again, at its own time */
    frame_arrays a = {0};
    fill_frame(m, 7, &a);
    hs_frame fr = test_frame(0.75, TF_PHI | TF_R, &a);
    if (s) HS_TEST_OK(hs_series_write(s, m, &fr));
    hs_series_destroy(&s);
    f = H5Fopen(h5, H5F_ACC_RDONLY, H5P_DEFAULT);
    HS_TEST_CHECK(f >= 0 && n_frames_in(f) == 3 && frame_time(f, 2) == 0.75 && frame_time(f, 1) == 0.5,
                  "file after the resumed frame: %d frames, frame 2 at %g", f >= 0 ? n_frames_in(f) : -1,
                  f >= 0 ? frame_time(f, 2) : -1.0);
    if (f >= 0) {
        check_field(f, 2, "phi", a.phi, (size_t)m->n_nodes, 0);
        frame_arrays b = {0}; /* frame 1 of the first run stays as it was */
        fill_frame(m, 1, &b);
        check_field(f, 1, "activation", b.act, (size_t)m->n_nodes, 0);
        free_frame(&b);
        H5Fclose(f);
    }
    free_frame(&a);
    text = slurp(idx, NULL);
    HS_TEST_CHECK(count(text, "<Grid GridType=\"Uniform\"") == 3 && strstr(text, "<Time Value=\"0.75\"/>") &&
                      !strstr(text, "/frames/000002/activation"),
                  "index after the resumed frame:\n%s", text ? text : "(none)");
    free(text);

    /* a checkpoint with more frames than the file holds */
    const double more[5] = {0.0, 0.5, 0.75, 1.0, 2.0};
    HS_TEST_OK(hs_series_create("xdmf_h5", dir, "h", &s));
    if (s) expect_error(hs_series_resume(s, more, 5), HS_ERR_IO, "no frame 3", "resume past the file");
    hs_series_destroy(&s);
    /* resume at 0: nothing of the old run stays */
    HS_TEST_OK(hs_series_create("xdmf_h5", dir, "h", &s));
    if (s) HS_TEST_OK(hs_series_resume(s, NULL, 0));
    HS_TEST_CHECK(!exists(idx) && !exists(h5), "resume at 0 left %s or %s", idx, h5);
    hs_series_destroy(&s);
}

/* An index that cannot be written (a directory where its temporary file goes): the frame is
 * refused, the index still lists the earlier frames, and the next write replaces the frame. */
static void test_failed_index(const hs_mesh *m)
{
    char dir[600], h5[700], idx[700], tmp[700];
    snprintf(dir, sizeof dir, "%s/failidx", g_root);
    path_in(h5, sizeof h5, dir, "h.h5");
    path_in(idx, sizeof idx, dir, "h.xdmf");
    path_in(tmp, sizeof tmp, dir, ".h.xdmf.tmp");
    hs_series *s = write_frames(dir, m, 2, 0);
    frame_arrays a = {0};
    fill_frame(m, 2, &a);
    hs_frame fr = test_frame(1.0, TF_ALL, &a);
    HS_TEST_CHECK(mkdir(tmp, 0700) == 0, "cannot block %s", tmp);
    if (s) expect_error(hs_series_write(s, m, &fr), HS_ERR_IO, "h.xdmf", "index write blocked");
    HS_TEST_CHECK(hs_series_count(s) == 2, "count %d after a failed index", hs_series_count(s));
    char *text = slurp(idx, NULL);
    HS_TEST_CHECK(count(text, "<Grid GridType=\"Uniform\"") == 2, "index lists a frame it could not index");
    free(text);
    rmdir(tmp);
    fr.time_ms = 1.5;
    if (s) HS_TEST_OK(hs_series_write(s, m, &fr));
    hs_series_destroy(&s);
    hid_t f = H5Fopen(h5, H5F_ACC_RDONLY, H5P_DEFAULT);
    HS_TEST_CHECK(f >= 0 && n_frames_in(f) == 3 && frame_time(f, 2) == 1.5, "after the retry: %d frames, frame 2 at %g",
                  f >= 0 ? n_frames_in(f) : -1, f >= 0 ? frame_time(f, 2) : -1.0);
    if (f >= 0) H5Fclose(f);
    free_frame(&a);
}

/* A run killed (SIGKILL, no clean-up) after two frames: index and file agree on two frames. */
static void test_killed(const hs_mesh *m)
{
    char dir[600], h5[700], idx[700];
    snprintf(dir, sizeof dir, "%s/killed", g_root);
    path_in(h5, sizeof h5, dir, "h.h5");
    path_in(idx, sizeof idx, dir, "h.xdmf");
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        hs_series *s = write_frames(dir, m, 2, 0);
        (void)s;
        raise(SIGKILL);
        _exit(3);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    HS_TEST_CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "child did not die by SIGKILL");
    char *text = slurp(idx, NULL);
    HS_TEST_CHECK(count(text, "<Grid GridType=\"Uniform\"") == 2, "killed run: index lists %d frames",
                  count(text, "<Grid GridType=\"Uniform\""));
    free(text);
    hid_t f = H5Fopen(h5, H5F_ACC_RDONLY, H5P_DEFAULT);
    HS_TEST_CHECK(f >= 0 && n_frames_in(f) == 2 && frame_time(f, 1) == 0.5, "killed run: the file does not hold 2 frames");
    if (f >= 0) {
        frame_arrays a = {0};
        fill_frame(m, 1, &a);
        check_field(f, 1, "r", a.r, (size_t)m->n_elems, 0);
        free_frame(&a);
        H5Fclose(f);
    }
    /* and a restart from a checkpoint at those two frames goes on in the same file */
    const double times[2] = {0.0, 0.5};
    hs_series *s = NULL;
    HS_TEST_OK(hs_series_create("xdmf_h5", dir, "h", &s));
    if (s) HS_TEST_OK(hs_series_resume(s, times, 2));
    hs_series_destroy(&s);
}

static void test_names(void)
{
    hs_series *s = NULL;
    expect_error(hs_series_create("xdmf_h5", g_root, "a:b", &s), HS_ERR_CONFIG, "\":\"", "':' in the prefix");
    expect_error(hs_series_create("xdmf_h5", g_root, "a b", &s), HS_ERR_CONFIG, "white space", "blank in the prefix");
    HS_TEST_CHECK(s == NULL, "series returned for a bad prefix");
}

/* The maps file: node maps over the mesh, one legacy VTK file; cell data is refused. */
static void test_maps(const hs_mesh *m)
{
    frame_arrays a = {0};
    fill_frame(m, 1, &a);
    hs_frame maps = hs_frame_at(12.5);
    HS_TEST_OK(hs_frame_add(&maps, "activation", 0, a.act));
    char *path = NULL;
    HS_TEST_OK(hs_maps_write(g_root, "h", m, &maps, &path));
    vtk_test_file f;
    if (path && vtk_test_read(path, &f) == 0) {
        const vtk_test_array *act = vtk_test_find(&f, VTK_TEST_POINT, "activation");
        size_t bad = 0;
        for (int i = 0; act && act->d && i < m->n_nodes; ++i) bad += act->d[i] != a.act[i];
        HS_TEST_CHECK(act && act->n_tuples == (size_t)m->n_nodes && bad == 0, "%s: activation missing or %zu values differ",
                      path, bad);
        vtk_test_free(&f);
    } else {
        HS_TEST_CHECK(0, "maps file %s unreadable", path ? path : "(none)");
    }
    HS_TEST_CHECK(path && strstr(path, "/h_maps.vtk"), "maps file at %s", path ? path : "(none)");
    free(path);
    hs_frame bad = hs_frame_at(1.0);
    HS_TEST_OK(hs_frame_add(&bad, "r", 1, a.r));
    expect_error(hs_maps_write(g_root, "h", m, &bad, NULL), HS_ERR_INTERNAL, "node fields", "cell map");
    free_frame(&a);
}

int main(void)
{
    if (make_test_root(g_root, sizeof g_root, "hs_test_xdmf_h5") != 0) return 1;
    hs_mesh *m = NULL;
    HS_TEST_OK(output_test_box(2, 2, 1, &m));
    if (m) {
        test_layout(m);
        test_resume(m);
        test_failed_index(m);
        test_killed(m);
        test_names();
        test_maps(m);
    }
    hs_mesh_destroy(&m);
    if (hs_test_failures)
        fprintf(stderr, "files kept in %s\n", g_root);
    else
        rm_rf(g_root);
    HS_TEST_RETURN();
}
#endif
