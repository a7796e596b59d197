/*
 * The "xdmf" series format: the index, read back with an independent parser (xdmf_test_reader.h),
 * must list every frame at its time with DataItems that point at files of exactly the right size
 * holding the mesh (exact float64/int32) and the fields (float32 of what was written); the mesh
 * files are written once; resume keeps the first frames and drops the rest; file-system failures
 * are HS_ERR_IO naming the file with earlier frames intact.
 */
#define _XOPEN_SOURCE 700 /* nftw, mkdtemp, setrlimit */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hs_series.h"
#include "hs_test.h"
#include "hs_util.h"
#include "output_test_frame.h"
#include "output_test_fs.h"
#include "output_test_mesh.h"
#include "xdmf_test_reader.h"

static char g_root[512]; /* per-run temporary directory, removed at the end when all passed */

/* ---- checking the index and the files against what was written ------------------------------ */

typedef struct expect {
    double time;
    int phi, v, activation, r, fiber, region; /* arrays that must be present (others absent) */
    int k;                                    /* frame index the values were generated for */
} expect;

/* Index of @p dir/@p prefix.xdmf read into @p grids; returns the number of Uniform grids. */
static int read_index(const char *index, char **text, xdmf_test_grid *grids, int max)
{
    *text = slurp(index, NULL);
    HS_TEST_CHECK(*text != NULL, "cannot read index %s", index);
    if (!*text) return -1;
    HS_TEST_CHECK(strstr(*text, "<?xml version=\"1.0\"") == *text, "%s: no XML declaration", index);
    HS_TEST_CHECK(strstr(*text, "CollectionType=\"Temporal\"") != NULL, "%s: no temporal collection",
                  index);
    const char *tail = strstr(*text, "</Domain>");
    HS_TEST_CHECK(tail && strstr(tail, "</Xdmf>"), "%s: not closed", index);
    return xdmf_test_grids(*text, grids, max);
}

/* One array of frame @p x: present as expected, right center/type/shape, file values equal to
 * @p want [n * comps] (as float32 when @p f32), the file exactly as long as the frame needs. */
static void check_array(const char *dir, const xdmf_test_grid *g, const char *name, int present,
                        const char *center, int comps, size_t n, const char *ntype, int prec,
                        const double *want, int f32, int kframe)
{
    char c[16] = "", t[16] = "", why[1400];
    xdmf_test_item it;
    int found = xdmf_test_attribute(g, name, c, t, &it);
    HS_TEST_CHECK(found == present, "frame %d: %s %s", kframe, name, found ? "present" : "absent");
    if (!found || !present) return;
    HS_TEST_CHECK(!strcmp(c, center) && !strcmp(t, comps == 3 ? "Vector" : "Scalar"),
                  "frame %d: %s Center=%s AttributeType=%s", kframe, name, c, t);
    HS_TEST_CHECK(it.dims[0] == (long)n && (comps == 1 ? it.rank == 1 : it.rank == 2 && it.dims[1] == comps),
                  "frame %d: %s Dimensions %ld x %ld (rank %d), expected %zu x %d", kframe, name,
                  it.dims[0], it.dims[1], it.rank, n, comps);
    HS_TEST_CHECK(!strcmp(it.number_type, ntype) && it.precision == prec,
                  "frame %d: %s is %s%d, expected %s%d", kframe, name, it.number_type, it.precision,
                  ntype, prec);
    double *v = NULL;
    if (xdmf_test_read(dir, &it, &v, why, sizeof why) != 0) {
        HS_TEST_CHECK(0, "frame %d: %s: %s", kframe, name, why);
        return;
    }
    size_t bad = 0;
    for (size_t i = 0; i < n * (size_t)comps; ++i) {
        double w = f32 ? (double)(float)want[i] : want[i];
        bad += !(v[i] == w || (isnan(v[i]) && isnan(w)));
    }
    HS_TEST_CHECK(bad == 0, "frame %d: %s: %zu of %zu values differ from what was written", kframe,
                  name, bad, n * (size_t)comps);
    free(v);
}

/* The DataItem of element @p elem of grid @p g: tagged @p attr = @p value, in file @p file, exactly
 * @p wd or @p wi [n][cols]. */
static void check_mesh_item(const char *dir, const xdmf_test_grid *g, const char *elem, const char *attr,
                            const char *value, const char *file, size_t n, int cols, const double *wd,
                            const int32_t *wi, int kframe)
{
    char val[64], why[1400];
    xdmf_test_item it;
    double *v = NULL;
    if (!xdmf_test_element(g, elem, attr, val, sizeof val, &it) || strcmp(val, value) || strcmp(it.file, file) ||
        xdmf_test_read(dir, &it, &v, why, sizeof why) != 0) {
        HS_TEST_CHECK(0, "frame %d: no %s %s in %s", kframe, elem + 1, value, file);
        return;
    }
    size_t bad = 0;
    for (size_t i = 0; i < n * (size_t)cols; ++i) bad += v[i] != (wd ? wd[i] : wi[i]);
    HS_TEST_CHECK(bad == 0 && it.dims[0] == (long)n && it.dims[1] == cols && it.precision == (wd ? 8 : 4),
                  "frame %d: %s: %zu values differ", kframe, file, bad);
    free(v);
}

static void check_grid(const char *dir, const char *prefix, const xdmf_test_grid *g,
                       const hs_mesh *m, const expect *x)
{
    const size_t nn = (size_t)m->n_nodes, ne = (size_t)m->n_elems;
    char file[1200], name[600];
    HS_TEST_CHECK(g->has_time && g->time == x->time, "frame %d: Time %.17g, expected %.17g", x->k,
                  g->time, x->time);

    /* mesh: exact, from the shared files */
    snprintf(name, sizeof name, "%s_mesh_tets.bin", prefix);
    check_mesh_item(dir, g, "<Topology", "TopologyType", "Tetrahedron", name, ne, 4, NULL, m->tets, x->k);
    snprintf(name, sizeof name, "%s_mesh_xyz.bin", prefix);
    check_mesh_item(dir, g, "<Geometry", "GeometryType", "XYZ", name, nn, 3, m->xyz, NULL, x->k);

    /* fields: float32 of what was written, in this frame's own file */
    frame_arrays a;
    fill_frame(m, x->k, &a);
    double *vv = malloc(sizeof(double) * nn), *region = malloc(sizeof(double) * ne);
    for (size_t i = 0; i < nn; ++i) vv[i] = 100.0 * a.phi[i] - 80.0;
    for (size_t e = 0; e < ne; ++e) region[e] = m->region[e];
    check_array(dir, g, "phi", x->phi, "Node", 1, nn, "Float", 4, a.phi, 1, x->k);
    check_array(dir, g, "V", x->v, "Node", 1, nn, "Float", 4, vv, 1, x->k);
    check_array(dir, g, "activation", x->activation, "Node", 1, nn, "Float", 4, a.act, 1, x->k);
    check_array(dir, g, "r", x->r, "Cell", 1, ne, "Float", 4, a.r, 1, x->k);
    check_array(dir, g, "fiber", x->fiber, "Cell", 3, ne, "Float", 8, m->fiber, 0, x->k);
    check_array(dir, g, "region", x->region, "Cell", 1, ne, "Int", 4, region, 0, x->k);
    HS_TEST_CHECK(xdmf_test_n_attributes(g) == x->phi + x->v + x->activation + x->r + x->fiber + x->region,
                  "frame %d: %d attributes", x->k, xdmf_test_n_attributes(g));
    free(vv);
    free(region);
    free_frame(&a);

    /* the frame file holds exactly its fields, nothing else */
    snprintf(name, sizeof name, "%s_%06d.bin", prefix, x->k);
    path_in(file, sizeof file, dir, name);
    long long want = 4 * (long long)((x->phi + x->v + x->activation) * nn + x->r * ne);
    HS_TEST_CHECK(file_size(file) == want, "%s: %lld bytes, expected %lld", file, file_size(file), want);
}

/* Size of DIR/PREFIX+suffix, -1 when absent. */
static long long mesh_file_size(const char *dir, const char *prefix, const char *suffix)
{
    char name[600], file[1200];
    snprintf(name, sizeof name, "%s%s", prefix, suffix);
    path_in(file, sizeof file, dir, name);
    return file_size(file);
}

static ino_t inode_of(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? sb.st_ino : 0;
}

/* ---- tests -------------------------------------------------------------------------------- */

/* Three frames with different field sets, then one with no fields on a mesh without fibres. */
static void test_three_frames(const char *prefix, const char *sub)
{
    char dir[600], file[1200], name[600];
    path_in(dir, sizeof dir, g_root, sub);
    hs_mesh *m = NULL;
    hs_series *s = NULL;
    char *text = NULL;
    HS_TEST_OK(output_test_box(2, 2, 1, &m));
    HS_TEST_OK(hs_series_create("xdmf", dir, prefix, &s));
    if (!m || !s) goto done;
    const size_t nn = (size_t)m->n_nodes, ne = (size_t)m->n_elems;

    /* 0.1 + 0.2 needs 17 digits to round-trip: the index must not lose it. */
    const double times[4] = {0.0, 0.1, 0.1 + 0.2, 5.0};
    expect x[4] = {
        {times[0], 1, 1, 0, 1, 1, 1, 0}, /* no activation buffer: left out */
        {times[1], 1, 1, 1, 0, 0, 0, 1}, /* point data only */
        {times[2], 0, 0, 0, 1, 1, 0, 2}, /* cell data only */
        {times[3], 0, 0, 0, 0, 0, 0, 3}, /* mesh only: an empty frame file */
    };
    const int fields[4] = {TF_ALL, TF_PHI | TF_V | TF_ACT, TF_R | TF_FIBER, TF_FIBER | TF_REGION};
    ino_t xyz_inode = 0;
    snprintf(name, sizeof name, "%s_mesh_xyz.bin", prefix);
    path_in(file, sizeof file, dir, name);
    for (int k = 0; k < 4; ++k) {
        frame_arrays a;
        fill_frame(m, k, &a);
        double *fib = m->fiber;
        int32_t *reg = m->region;
        if (k == 3) m->fiber = NULL, m->region = NULL; /* asked for, but the mesh has none */
        hs_frame fr = test_frame_of(times[k], fields[k], a.phi, k == 0 ? NULL : a.act, a.r);
        HS_TEST_OK(hs_series_write(s, m, &fr));
        m->fiber = fib;
        m->region = reg;
        free_frame(&a);
        HS_TEST_CHECK(hs_series_count(s) == k + 1, "count %d after frame %d", hs_series_count(s), k);
        HS_TEST_CHECK(hs_series_times(s)[k] == times[k], "times[%d] = %g", k, hs_series_times(s)[k]);
        /* The index is complete after every frame, not only at the end. */
        xdmf_test_grid g[8];
        int n = read_index(hs_series_index_path(s), &text, g, 8);
        HS_TEST_CHECK(n == k + 1, "index lists %d frames after frame %d", n, k);
        for (int j = 0; j < n && j <= k; ++j) check_grid(dir, prefix, &g[j], m, &x[j]);
        HS_FREE(text);
        /* the mesh is written by the first frame only (a rewrite would give a new inode) */
        if (k == 0) xyz_inode = inode_of(file);
        HS_TEST_CHECK(xyz_inode != 0 && inode_of(file) == xyz_inode, "%s rewritten by frame %d",
                      file, k);
    }
    HS_TEST_CHECK(mesh_file_size(dir, prefix, "_mesh_xyz.bin") == 24 * (long long)nn &&
                      mesh_file_size(dir, prefix, "_mesh_tets.bin") == 16 * (long long)ne &&
                      mesh_file_size(dir, prefix, "_mesh_region.bin") == 4 * (long long)ne &&
                      mesh_file_size(dir, prefix, "_mesh_fiber.bin") == 24 * (long long)ne,
                  "mesh file sizes %lld %lld %lld %lld for %zu nodes, %zu elements",
                  mesh_file_size(dir, prefix, "_mesh_xyz.bin"),
                  mesh_file_size(dir, prefix, "_mesh_tets.bin"),
                  mesh_file_size(dir, prefix, "_mesh_region.bin"),
                  mesh_file_size(dir, prefix, "_mesh_fiber.bin"), nn, ne);
    for (int k = 0; k < 4; ++k) {
        snprintf(name, sizeof name, ".%s_%06d.bin.tmp", prefix, k);
        path_in(file, sizeof file, dir, name);
        HS_TEST_CHECK(!exists(file), "temporary file %s left behind", file);
    }
    snprintf(name, sizeof name, "%s.xdmf", prefix);
    path_in(file, sizeof file, dir, name);
    HS_TEST_CHECK(!strcmp(hs_series_index_path(s), file), "index path %s, expected %s",
                  hs_series_index_path(s), file);
done:
    hs_series_destroy(&s);
    hs_series_destroy(&s); /* destroy twice: must be a no-op */
    hs_mesh_destroy(&m);
}

/* Fibres and regions that no frame asks for are never written. */
static void test_lazy_mesh_files(void)
{
    char dir[600];
    path_in(dir, sizeof dir, g_root, "lazy");
    hs_mesh *m = NULL;
    hs_series *s = NULL;
    frame_arrays a = {0};
    HS_TEST_OK(output_test_box(1, 1, 1, &m));
    HS_TEST_OK(hs_series_create("xdmf", dir, "z", &s));
    if (!m || !s) goto done;
    fill_frame(m, 0, &a);
    hs_frame fr = test_frame(0.0, TF_PHI, &a);
    HS_TEST_OK(hs_series_write(s, m, &fr));
    HS_TEST_CHECK(mesh_file_size(dir, "z", "_mesh_xyz.bin") > 0 &&
                      mesh_file_size(dir, "z", "_mesh_tets.bin") > 0,
                  "mesh coordinates or connectivity missing");
    HS_TEST_CHECK(mesh_file_size(dir, "z", "_mesh_fiber.bin") < 0 &&
                      mesh_file_size(dir, "z", "_mesh_region.bin") < 0,
                  "fibre or region file written though no frame asked for it");
done:
    free_frame(&a);
    hs_series_destroy(&s);
    hs_mesh_destroy(&m);
}

/* A mesh larger than the writer's 1 MiB scratch chunk: every array crosses chunk boundaries. */
static void test_large_frame(void)
{
    char dir[600];
    path_in(dir, sizeof dir, g_root, "large");
    hs_mesh *m = NULL;
    hs_series *s = NULL;
    frame_arrays a = {0};
    char *text = NULL;
    /* 50653 nodes, 279936 tets: r (262144 floats per chunk) spans 2 chunks, tets 5. */
    HS_TEST_OK(output_test_box(36, 36, 36, &m));
    HS_TEST_OK(hs_series_create("xdmf", dir, "big", &s));
    if (!m || !s) goto done;
    fill_frame(m, 0, &a);
    /* every field, and a time that is not a short decimal */
    hs_frame fr = test_frame(1234.5 + 1.0 / 3.0, TF_ALL, &a);
    HS_TEST_OK(hs_series_write(s, m, &fr));
    expect x = {fr.time_ms, 1, 1, 1, 1, 1, 1, 0};
    xdmf_test_grid g[2];
    int n = read_index(hs_series_index_path(s), &text, g, 2);
    HS_TEST_CHECK(n == 1, "%d frames", n);
    if (n == 1) check_grid(dir, "big", &g[0], m, &x);
done:
    free(text);
    free_frame(&a);
    hs_series_destroy(&s);
    hs_mesh_destroy(&m);
}

/* Values beyond float's range, NaN and -0.0 keep their meaning in float32. */
static void test_float32_edges(void)
{
    char dir[600], why[1400];
    path_in(dir, sizeof dir, g_root, "edges");
    hs_mesh *m = NULL;
    hs_series *s = NULL;
    char *text = NULL;
    HS_TEST_OK(output_test_box(1, 1, 1, &m));
    HS_TEST_OK(hs_series_create("xdmf", dir, "e", &s));
    if (!m || !s) goto done;
    double phi[8] = {1e300, -1e300, NAN, -0.0, FLT_MAX, 1e-50, -1.0, 0.5};
    hs_frame fr = test_frame_of(0.0, TF_PHI, phi, NULL, NULL);
    HS_TEST_OK(hs_series_write(s, m, &fr));
    xdmf_test_grid g[1];
    char c[16], t[16];
    xdmf_test_item it;
    double *v = NULL;
    if (read_index(hs_series_index_path(s), &text, g, 1) == 1 &&
        xdmf_test_attribute(&g[0], "phi", c, t, &it) && xdmf_test_read(dir, &it, &v, why, sizeof why) == 0) {
        HS_TEST_CHECK(v[0] == INFINITY && v[1] == -INFINITY && isnan(v[2]) && v[3] == 0.0 &&
                          signbit(v[3]) && v[4] == FLT_MAX && v[5] == 0.0 && v[6] == -1.0 && v[7] == 0.5,
                      "float32 edges: %g %g %g %g %g %g %g %g", v[0], v[1], v[2], v[3], v[4], v[5],
                      v[6], v[7]);
        free(v);
    } else {
        HS_TEST_CHECK(0, "cannot read back phi: %s", why);
    }
done:
    free(text);
    hs_series_destroy(&s);
    hs_mesh_destroy(&m);
}

/* Resume after a restart: the first frames stay exactly as indexed, later ones go. */
static void test_resume(void)
{
    char dir[600], file[700];
    path_in(dir, sizeof dir, g_root, "resume");
    hs_mesh *m = NULL, *other = NULL;
    hs_series *s = NULL;
    frame_arrays a = {0};
    char *before = NULL, *after = NULL;
    const double times[4] = {0.0, 1.0, 2.0, 3.0};
    HS_TEST_OK(output_test_box(2, 1, 1, &m));
    HS_TEST_OK(output_test_box(1, 1, 1, &other));
    HS_TEST_OK(hs_series_create("xdmf", dir, "h", &s));
    if (!m || !s || !other) goto done;
    for (int k = 0; k < 4; ++k) {
        fill_frame(m, k, &a);
        hs_frame fr = test_frame(times[k], TF_ALL, &a);
        HS_TEST_OK(hs_series_write(s, m, &fr));
        free_frame(&a);
    }
    before = slurp(hs_series_index_path(s), NULL);
    hs_series_destroy(&s);

    /* wrong times: another run's frames; nothing may change */
    HS_TEST_OK(hs_series_create("xdmf", dir, "h", &s));
    if (!s) goto done;
    const double wrong[2] = {0.0, 1.5};
    expect_error(hs_series_resume(s, wrong, 2), HS_ERR_IO, "h.xdmf", "resume at other times");
    expect_error(hs_series_resume(s, times, 5), HS_ERR_IO, "holds 4 frames, the checkpoint 5",
                 "resume with more frames than indexed");
    path_in(file, sizeof file, dir, "h_000003.bin");
    HS_TEST_CHECK(exists(file), "%s removed by a failed resume", file);
    after = slurp(hs_series_index_path(s), NULL);
    HS_TEST_CHECK(before && after && !strcmp(before, after), "index changed by a failed resume");
    HS_FREE(after);

    /* resume at frame 2: frames 2 and 3 go, the index keeps frames 0 and 1 verbatim */
    HS_TEST_OK(hs_series_resume(s, times, 2));
    HS_TEST_CHECK(hs_series_count(s) == 2 && hs_series_times(s)[1] == 1.0,
                  "count %d after resume", hs_series_count(s));
    for (int k = 0; k < 4; ++k) {
        char name[64];
        snprintf(name, sizeof name, "h_%06d.bin", k);
        path_in(file, sizeof file, dir, name);
        HS_TEST_CHECK(exists(file) == (k < 2), "%s %s after resume at 2", file,
                      exists(file) ? "exists" : "missing");
    }
    after = slurp(hs_series_index_path(s), NULL);
    xdmf_test_grid gb[8], ga[8];
    int nb = before ? xdmf_test_grids(before, gb, 8) : 0, na = after ? xdmf_test_grids(after, ga, 8) : 0;
    HS_TEST_CHECK(nb == 4 && na == 2, "index had %d frames, has %d after resume at 2", nb, na);
    if (nb == 4 && na == 2) {
        size_t lb = (size_t)(gb[1].end - gb[0].begin), la = (size_t)(ga[1].end - ga[0].begin);
        HS_TEST_CHECK(la == lb && !memcmp(ga[0].begin, gb[0].begin, la),
                      "frames 0-1 of the index changed by resume");
    }
    HS_FREE(after);
    /* a mesh other than the indexed one is refused: the mesh files are shared by all frames */
    fill_frame(other, 2, &a);
    hs_frame fo = test_frame(2.0, TF_PHI, &a);
    expect_error(hs_series_write(s, other, &fo), HS_ERR_INTERNAL, "h.xdmf", "other mesh");
    free_frame(&a);
    /* the resumed run writes frame 2 again */
    fill_frame(m, 2, &a);
    hs_frame fr = test_frame(2.5, TF_ALL, &a);
    HS_TEST_OK(hs_series_write(s, m, &fr));
    free_frame(&a);
    after = slurp(hs_series_index_path(s), NULL);
    na = after ? xdmf_test_grids(after, ga, 8) : 0;
    HS_TEST_CHECK(na == 3 && ga[2].time == 2.5, "after the resumed frame: %d frames, last at %g", na,
                  na ? ga[na - 1].time : -1.0);
    if (na == 3) {
        expect x = {2.5, 1, 1, 1, 1, 1, 1, 2};
        check_grid(dir, "h", &ga[2], m, &x);
    }
    HS_FREE(after);
    expect_error(hs_series_resume(s, times, 1), HS_ERR_INTERNAL, "resumed after frames",
                 "resume after a write");
    hs_series_destroy(&s);

    /* resume at 0: no frame and no index remain */
    HS_TEST_OK(hs_series_create("xdmf", dir, "h", &s));
    if (!s) goto done;
    HS_TEST_OK(hs_series_resume(s, NULL, 0));
    path_in(file, sizeof file, dir, "h_000000.bin");
    HS_TEST_CHECK(!exists(file) && !exists(hs_series_index_path(s)),
                  "frame 0 or the index left after resume at 0");
    /* and a resume that needs an index that is not there names it */
    hs_series_destroy(&s);
    HS_TEST_OK(hs_series_create("xdmf", dir, "h", &s));
    if (s) expect_error(hs_series_resume(s, times, 1), HS_ERR_IO, "h.xdmf", "resume without index");
done:
    free(before);
    free(after);
    free_frame(&a);
    hs_series_destroy(&s);
    hs_mesh_destroy(&m);
    hs_mesh_destroy(&other);
}

/* The output directory is removed while the run goes on: an error naming it, no crash. */
static void test_directory_vanishes(void)
{
    char dir[600], file[700];
    path_in(dir, sizeof dir, g_root, "vanish");
    hs_mesh *m = NULL;
    hs_series *s = NULL;
    frame_arrays a = {0};
    HS_TEST_OK(output_test_box(1, 1, 1, &m));
    HS_TEST_OK(hs_series_create("xdmf", dir, "v", &s));
    if (!m || !s) goto done;
    fill_frame(m, 0, &a);
    hs_frame fr = test_frame(0.0, TF_PHI, &a);
    HS_TEST_OK(hs_series_write(s, m, &fr));
    rm_rf(dir);
    HS_TEST_CHECK(!exists(dir), "could not remove %s", dir);
    fr.time_ms = 1.0;
    expect_error(hs_series_write(s, m, &fr), HS_ERR_IO, dir, "write into a removed directory");
    HS_TEST_CHECK(hs_series_count(s) == 1, "count %d after a failed write", hs_series_count(s));

    /* A non-finite time is refused before anything is written. */
    HS_TEST_OK(hs_output_dir_check(dir));
    fr.time_ms = INFINITY;
    expect_error(hs_series_write(s, m, &fr), HS_ERR_NUMERIC, "not a finite number", "inf time");
    path_in(file, sizeof file, dir, "v_000001.bin");
    HS_TEST_CHECK(!exists(file), "%s written for an infinite time", file);
done:
    free_frame(&a);
    hs_series_destroy(&s);
    hs_mesh_destroy(&m);
}

/* Run @p write with the process's file size limit at @p limit bytes: writes past it fail with
 * EFBIG, which stands in for a full disk (in fflush for small files, in fwrite for large). */
static hs_status with_file_limit(long long limit, hs_series *s, const hs_mesh *m, const hs_frame *fr)
{
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = (rlim_t)limit;
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN); /* get EFBIG instead of being killed */
    HS_TEST_CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0, "setrlimit: %s", strerror(errno));
    hs_status st = hs_series_write(s, m, fr);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, old_handler);
    return st;
}

static void test_write_error(int nx, const char *sub)
{
    char dir[600], f0[700], f1[700], tmp1[700], xyz[700];
    path_in(dir, sizeof dir, g_root, sub);
    path_in(f0, sizeof f0, dir, "w_000000.bin");
    path_in(f1, sizeof f1, dir, "w_000001.bin");
    path_in(tmp1, sizeof tmp1, dir, ".w_000001.bin.tmp");
    path_in(xyz, sizeof xyz, dir, "w_mesh_xyz.bin");
    hs_mesh *m = NULL;
    hs_series *s = NULL;
    frame_arrays a = {0};
    char *before0 = NULL, *before_idx = NULL, *after0 = NULL, *after_idx = NULL;
    HS_TEST_OK(output_test_box(nx, 1, 1, &m));
    HS_TEST_OK(hs_series_create("xdmf", dir, "w", &s));
    if (!m || !s) goto done;
    fill_frame(m, 0, &a);
    hs_frame fr = test_frame(0.0, TF_PHI | TF_ACT | TF_R, &a);

    /* the first frame cannot write the mesh: no frame, no index */
    expect_error(with_file_limit(16, s, m, &fr), HS_ERR_IO, xyz, "mesh file write error");
    HS_TEST_CHECK(hs_series_count(s) == 0 && !exists(hs_series_index_path(s)) && !exists(f0) &&
                      !exists(xyz),
                  "files left after the mesh could not be written");

    HS_TEST_OK(hs_series_write(s, m, &fr));
    size_t size0 = 0, size_idx = 0, size_after = 0, size_idx_after = 0;
    before0 = slurp(f0, &size0);
    before_idx = slurp(hs_series_index_path(s), &size_idx);
    fr.time_ms = 1.0;
    expect_error(with_file_limit((long long)size0 / 2, s, m, &fr), HS_ERR_IO, f1, "frame write error");
    HS_TEST_CHECK(!exists(tmp1), "temporary file %s left after a write error", tmp1);
    HS_TEST_CHECK(!exists(f1), "%s exists after a write error", f1);
    HS_TEST_CHECK(hs_series_count(s) == 1, "count %d after a failed write", hs_series_count(s));
    after0 = slurp(f0, &size_after);
    after_idx = slurp(hs_series_index_path(s), &size_idx_after);
    HS_TEST_CHECK(before0 && after0 && size_after == size0 && !memcmp(before0, after0, size0),
                  "%s changed by a failed later write", f0);
    HS_TEST_CHECK(before_idx && after_idx && size_idx == size_idx_after &&
                      !memcmp(before_idx, after_idx, size_idx),
                  "index changed by a failed write");

    /* the frame fits but the index does not (only where frames are smaller than the index):
     * the frame file goes again, the index stays */
    if (size0 < size_idx) {
        HS_FREE(after_idx);
        expect_error(with_file_limit((long long)size_idx + 16, s, m, &fr), HS_ERR_IO,
                     hs_series_index_path(s), "index write error");
        HS_TEST_CHECK(!exists(f1), "%s kept though the index does not list it", f1);
        after_idx = slurp(hs_series_index_path(s), &size_idx_after);
        HS_TEST_CHECK(after_idx && size_idx == size_idx_after && !memcmp(before_idx, after_idx, size_idx),
                      "index changed by a failed index write");
    }

    /* once space is back, the same frame number is written */
    HS_TEST_OK(hs_series_write(s, m, &fr));
    HS_TEST_CHECK(exists(f1) && hs_series_count(s) == 2, "%s missing after the retry", f1);
    HS_FREE(after_idx);
    after_idx = slurp(hs_series_index_path(s), NULL);
    xdmf_test_grid g[4];
    int n = after_idx ? xdmf_test_grids(after_idx, g, 4) : 0;
    HS_TEST_CHECK(n == 2 && g[0].time == 0.0 && g[1].time == 1.0, "index after the retry: %d frames", n);
done:
    free(before0);
    free(after0);
    free(before_idx);
    free(after_idx);
    free_frame(&a);
    hs_series_destroy(&s);
    hs_mesh_destroy(&m);
}

/* Frames whose byte offsets XDMF readers cannot seek to are refused before anything is read:
 * the mesh below only pretends to be large (its arrays are never touched). */
static void test_seek_limit(void)
{
    char dir[600];
    path_in(dir, sizeof dir, g_root, "seek");
    hs_series *s = NULL;
    double dummy[4] = {0};
    int32_t tets[4] = {0, 1, 2, 3};
    hs_mesh m;
    memset(&m, 0, sizeof m);
    m.n_nodes = 200000000; /* 3 point fields of 800 MB: r would start at 2.4 GB */
    m.n_elems = 1;
    m.xyz = dummy;
    m.tets = tets;
    HS_TEST_OK(hs_series_create("xdmf", dir, "s", &s));
    if (!s) return;
    hs_frame fr = test_frame_of(0.0, TF_PHI | TF_V | TF_ACT | TF_R, dummy, dummy, dummy);
    expect_error(hs_series_write(s, &m, &fr), HS_ERR_CONFIG, "2 GiB", "offsets past 2 GiB");
    HS_TEST_CHECK(hs_series_count(s) == 0, "frame counted");
    hs_series_destroy(&s);
}


int main(void)
{
    if (make_test_root(g_root, sizeof g_root, "hs_test_xdmf") != 0) return 1;
    test_three_frames("heart", "series/nested"); /* also covers mkdir -p */
    test_three_frames("a&b<'\"c\">", "escaped");  /* names that XML must escape */
    test_lazy_mesh_files();
    test_large_frame();
    test_float32_edges();
    test_resume();
    test_directory_vanishes();
    test_write_error(1, "werr_small");   /* 88 B frame: fails in fflush */
    test_write_error(200, "werr_large"); /* 11 KB frame, beyond stdio's buffer: fails in fwrite */
    test_seek_limit();
    if (hs_test_failures)
        fprintf(stderr, "files kept in %s\n", g_root);
    else
        rm_rf(g_root);
    HS_TEST_RETURN();
}
