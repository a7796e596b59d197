/*
 * The "vtk" series format: frames read back with an independent parser (vtk_test_reader.h) must hold
 * exactly the mesh and field values written, the .vtk.series index must list every frame with its
 * time, and file-system failures (unwritable directory, directory removed mid-run, write errors
 * from a full disk) must be HS_ERR_IO naming the path while leaving earlier frames intact.
 */
#define _XOPEN_SOURCE 700 /* nftw, mkdtemp, setrlimit */
#include <dirent.h>
#include <errno.h>
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
#include "json_test_check.h"
#include "output_test_frame.h"
#include "output_test_fs.h"
#include "output_test_mesh.h"
#include "vtk_test_reader.h"

static char g_root[512]; /* per-run temporary directory, removed at the end when all passed */

#define expect_io_error(st, needle, what) expect_error((st), HS_ERR_IO, (needle), (what))

/* ---- checking one file against what was written ------------------------------------------- */

typedef struct expect {
    double time;
    int phi, v, activation, r, fiber, region; /* which arrays must be present (others absent) */
    int k;                                    /* frame index the values were generated for */
} expect;

static void check_array_shape(const vtk_test_array *a, const char *name, size_t n, int n_comp,
                              int is_int, const char *file)
{
    HS_TEST_CHECK(a != NULL, "%s: array %s missing", file, name);
    if (!a) return;
    HS_TEST_CHECK(a->n_tuples == n && a->n_comp == n_comp && a->is_int == is_int,
                  "%s: array %s has %zu x %d (%s), expected %zu x %d", file, name, a->n_tuples,
                  a->n_comp, a->is_int ? "int" : "double", n, n_comp);
}

static void check_frame_file(const char *file, const hs_mesh *m, const expect *x)
{
    vtk_test_file f;
    if (vtk_test_read(file, &f) != 0) {
        HS_TEST_CHECK(0, "%s: %s", file, f.error);
        return;
    }
    const size_t nn = (size_t)m->n_nodes, ne = (size_t)m->n_elems;
    const char *t_in_title = strstr(f.title, "t = ");
    HS_TEST_CHECK(t_in_title && strtod(t_in_title + 4, NULL) == x->time && strstr(f.title, " ms"),
                  "%s: title \"%s\" does not give t = %.17g ms", file, f.title, x->time);

    const vtk_test_array *time = vtk_test_find(&f, VTK_TEST_FIELD, "TIME");
    check_array_shape(time, "TIME", 1, 1, 0, file);
    if (time && time->d) HS_TEST_CHECK(time->d[0] == x->time, "%s: TIME %.17g", file, time->d[0]);

    HS_TEST_CHECK(f.n_points == nn, "%s: %zu points, expected %zu", file, f.n_points, nn);
    HS_TEST_CHECK(f.n_cells == ne && f.cells_size == 5 * ne, "%s: CELLS %zu %zu, expected %zu %zu",
                  file, f.n_cells, f.cells_size, ne, 5 * ne);
    if (f.n_points == nn) {
        size_t bad = 0;
        for (size_t i = 0; i < 3 * nn; ++i) bad += f.points[i] != m->xyz[i];
        HS_TEST_CHECK(bad == 0, "%s: %zu coordinates differ", file, bad);
    }
    if (f.n_cells == ne && f.cells_size == 5 * ne) {
        size_t bad = 0;
        for (size_t e = 0; e < ne; ++e) {
            bad += f.cells[5 * e] != 4 || f.types[e] != 10;
            for (int j = 0; j < 4; ++j) bad += f.cells[5 * e + 1 + j] != m->tets[4 * e + j];
        }
        HS_TEST_CHECK(bad == 0, "%s: %zu connectivity/type entries differ", file, bad);
    }

    const vtk_test_array *phi = vtk_test_find(&f, VTK_TEST_POINT, "phi");
    const vtk_test_array *v = vtk_test_find(&f, VTK_TEST_POINT, "V");
    const vtk_test_array *act = vtk_test_find(&f, VTK_TEST_POINT, "activation");
    const vtk_test_array *r = vtk_test_find(&f, VTK_TEST_CELL, "r");
    const vtk_test_array *fib = vtk_test_find(&f, VTK_TEST_CELL, "fiber");
    const vtk_test_array *reg = vtk_test_find(&f, VTK_TEST_CELL, "region");
    HS_TEST_CHECK(!phi == !x->phi, "%s: phi %s", file, phi ? "present" : "absent");
    HS_TEST_CHECK(!v == !x->v, "%s: V %s", file, v ? "present" : "absent");
    HS_TEST_CHECK(!act == !x->activation, "%s: activation %s", file, act ? "present" : "absent");
    HS_TEST_CHECK(!r == !x->r, "%s: r %s", file, r ? "present" : "absent");
    HS_TEST_CHECK(!fib == !x->fiber, "%s: fiber %s", file, fib ? "present" : "absent");
    HS_TEST_CHECK(!reg == !x->region, "%s: region %s", file, reg ? "present" : "absent");
    HS_TEST_CHECK(f.n_arrays == 1 + x->phi + x->v + x->activation + x->r + x->fiber + x->region,
                  "%s: %d arrays", file, f.n_arrays);

    size_t bad_phi = 0, bad_v = 0, bad_act = 0, bad_r = 0, bad_fib = 0, bad_reg = 0;
    if (phi) check_array_shape(phi, "phi", nn, 1, 0, file);
    if (v) check_array_shape(v, "V", nn, 1, 0, file);
    if (act) check_array_shape(act, "activation", nn, 1, 0, file);
    if (r) check_array_shape(r, "r", ne, 1, 0, file);
    if (fib) check_array_shape(fib, "fiber", ne, 3, 0, file);
    if (reg) check_array_shape(reg, "region", ne, 1, 1, file);
    for (size_t i = 0; i < nn && f.n_points == nn; ++i) {
        if (phi && phi->d) bad_phi += phi->d[i] != phi_value((int)i, x->k);
        if (v && v->d) bad_v += v->d[i] != 100.0 * phi_value((int)i, x->k) - 80.0;
        if (act && act->d) bad_act += act->d[i] != activation_value((int)i, x->k);
    }
    for (size_t e = 0; e < ne && f.n_cells == ne; ++e) {
        if (r && r->d) bad_r += r->d[e] != r_value((int)e, x->k);
        if (fib && fib->d)
            for (int j = 0; j < 3; ++j) bad_fib += fib->d[3 * e + j] != m->fiber[3 * e + j];
        if (reg && reg->i) bad_reg += reg->i[e] != m->region[e];
    }
    HS_TEST_CHECK(bad_phi + bad_v + bad_act + bad_r + bad_fib + bad_reg == 0,
                  "%s: wrong values: phi %zu, V %zu, activation %zu, r %zu, fiber %zu, region %zu",
                  file, bad_phi, bad_v, bad_act, bad_r, bad_fib, bad_reg);
    vtk_test_free(&f);
}

/* ---- the index ---------------------------------------------------------------------------- */

/* Check the index is strict JSON with the keys ParaView requires, then scan it for the
 * "name" : "..." and "time" : number pairs in order. */
static void check_index(const char *path, const char *prefix, const double *times, int n)
{
    char *json = slurp(path, NULL);
    HS_TEST_CHECK(json != NULL, "cannot read index %s", path);
    if (!json) return;
    HS_TEST_CHECK(strstr(json, "\"file-series-version\" : \"1.0\"") != NULL,
                  "%s: no file-series-version", path);
    HS_TEST_CHECK(strstr(json, "\"files\" : [") != NULL, "%s: no files list", path);
    HS_TEST_CHECK(json_test_valid(json), "%s: not valid JSON:\n%s", path, json);

    int found = 0;
    const char *c = json;
    while ((c = strstr(c, "\"name\"")) != NULL) {
        char name[128], want[128];
        const char *q = strchr(c + 6, '"');
        const char *q_end = q ? strchr(q + 1, '"') : NULL;
        const char *t = q_end ? strstr(q_end, "\"time\"") : NULL;
        const char *colon = t ? strchr(t, ':') : NULL;
        HS_TEST_CHECK(q && q_end && colon, "%s: malformed entry %d", path, found);
        if (!(q && q_end && colon)) break;
        snprintf(name, sizeof name, "%.*s", (int)(q_end - q - 1), q + 1);
        char *num_end;
        double time = strtod(colon + 1, &num_end);
        if (found < n) {
            snprintf(want, sizeof want, "%s_%06d.vtk", prefix, found);
            HS_TEST_CHECK(!strcmp(name, want), "%s: entry %d is \"%s\", expected \"%s\"", path,
                          found, name, want);
            HS_TEST_CHECK(time == times[found], "%s: entry %d time %.17g, expected %.17g", path,
                          found, time, times[found]);
        }
        ++found;
        c = num_end;
    }
    HS_TEST_CHECK(found == n, "%s: %d entries, expected %d", path, found, n);
    free(json);
}

/* ---- tests -------------------------------------------------------------------------------- */

/* Three frames with different field sets, including empty POINT_DATA / CELL_DATA cases. */
static void test_three_frames(void)
{
    char dir[600], file[700];
    path_in(dir, sizeof dir, g_root, "series/nested"); /* also covers mkdir -p */
    hs_mesh *m = NULL;
    hs_series *s = NULL;
    HS_TEST_OK(output_test_box(2, 2, 1, &m));
    HS_TEST_OK(hs_series_create("vtk", dir, "heart", &s));
    if (!m || !s) goto done;

    /* 0.1 + 0.2 needs 17 digits to round-trip: the index must not lose it. */
    const double times[3] = {0.0, 0.1, 0.1 + 0.2};
    frame_arrays a[3];
    expect x[3] = {
        /* no activation buffer: left out; everything else present */
        {times[0], 1, 1, 0, 1, 1, 1, 0},
        /* only point data: no CELL_DATA header may appear */
        {times[1], 1, 1, 1, 0, 0, 0, 1},
        /* only cell data: no POINT_DATA header may appear */
        {times[2], 0, 0, 0, 1, 1, 0, 2},
    };
    int fields[3] = {TF_ALL, TF_PHI | TF_V | TF_ACT, TF_R | TF_FIBER};
    for (int k = 0; k < 3; ++k) {
        fill_frame(m, k, &a[k]);
        hs_frame fr = test_frame_of(times[k], fields[k], a[k].phi, k == 0 ? NULL : a[k].act, a[k].r);
        HS_TEST_OK(hs_series_write(s, m, &fr));
        HS_TEST_CHECK(hs_series_count(s) == k + 1, "count %d after frame %d", hs_series_count(s), k);
        /* The index is valid after every frame, not only at the end. */
        check_index(hs_series_index_path(s), "heart", times, k + 1);
    }
    for (int k = 0; k < 3; ++k) {
        char name[64];
        snprintf(name, sizeof name, "heart_%06d.vtk", k);
        path_in(file, sizeof file, dir, name);
        check_frame_file(file, m, &x[k]);
        snprintf(name, sizeof name, ".heart_%06d.vtk.tmp", k);
        path_in(file, sizeof file, dir, name);
        HS_TEST_CHECK(!exists(file), "temporary file %s left behind", file);
        free_frame(&a[k]);
    }
    path_in(file, sizeof file, dir, "heart.vtk.series");
    HS_TEST_CHECK(!strcmp(hs_series_index_path(s), file), "index path %s, expected %s",
                  hs_series_index_path(s), file);

    /* Geometry only, and a mesh without fibre or region: no attribute section at all. */
    {
        double *fib = m->fiber;
        int32_t *reg = m->region;
        m->fiber = NULL;
        m->region = NULL;
        hs_frame fr = test_frame_of(5.0, TF_FIBER | TF_REGION, NULL, NULL, NULL);
        HS_TEST_OK(hs_series_write(s, m, &fr));
        expect x4 = {5.0, 0, 0, 0, 0, 0, 0, 3};
        path_in(file, sizeof file, dir, "heart_000003.vtk");
        check_frame_file(file, m, &x4);
        m->fiber = fib;
        m->region = reg;
    }
done:
    hs_series_destroy(&s);
    hs_series_destroy(&s); /* destroy twice: must be a no-op */
    hs_mesh_destroy(&m);
}

/* A mesh larger than the writer's 1 MiB scratch chunk: arrays cross chunk boundaries. */
static void test_large_frame(void)
{
    char dir[600], file[700];
    path_in(dir, sizeof dir, g_root, "large");
    hs_mesh *m = NULL;
    hs_series *s = NULL;
    frame_arrays a = {0};
    /* 50653 nodes, 279936 tets: even the int region array (262144 per chunk) spans 2 chunks. */
    HS_TEST_OK(output_test_box(36, 36, 36, &m));
    HS_TEST_OK(hs_series_create("vtk", dir, "big", &s));
    if (!m || !s) goto done;
    fill_frame(m, 4, &a);
    hs_frame fr = test_frame(1234.5, TF_ALL, &a);
    HS_TEST_OK(hs_series_write(s, m, &fr));
    expect x = {1234.5, 1, 1, 1, 1, 1, 1, 4};
    path_in(file, sizeof file, dir, "big_000000.vtk");
    check_frame_file(file, m, &x);
done:
    free_frame(&a);
    hs_series_destroy(&s);
    hs_mesh_destroy(&m);
}

static void test_bad_directory(void)
{
    char file[600], dir[700];
    path_in(file, sizeof file, g_root, "plain_file");
    FILE *fp = fopen(file, "w");
    HS_TEST_CHECK(fp != NULL, "cannot create %s", file);
    if (fp) fclose(fp);
    snprintf(dir, sizeof dir, "%s/sub/dir", file);

    hs_error_clear();
    hs_series *s = NULL;
    expect_io_error(hs_series_create("vtk", dir, "x", &s), dir, "series under a regular file");
    HS_TEST_CHECK(s == NULL, "writer returned on failure");
    expect_io_error(hs_output_dir_check(dir), dir, "dir check under a regular file");
    expect_io_error(hs_output_dir_check(file), file, "dir check on a regular file");

    hs_status st = hs_series_create("vtk", g_root, "a/b", &s);
    HS_TEST_CHECK(st == HS_ERR_CONFIG, "prefix with '/': status %d", (int)st);
    hs_error_clear();

    /* umask applies to created directories (mode 0777 & ~umask). */
    mode_t old = umask(002);
    path_in(dir, sizeof dir, g_root, "mode/a/b");
    HS_TEST_OK(hs_output_dir_check(dir));
    struct stat sb;
    HS_TEST_CHECK(stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode) && (sb.st_mode & 0777) == 0775,
                  "%s: mode %o, expected 775", dir, (unsigned)(sb.st_mode & 0777));
    umask(old);
    /* The probe file is gone again. */
    HS_TEST_OK(hs_output_dir_check(dir)); /* an existing directory is fine too */
    int n_entries = 0;
    DIR *d = opendir(dir);
    HS_TEST_CHECK(d != NULL, "cannot list %s", dir);
    for (struct dirent *de; d && (de = readdir(d)) != NULL;)
        n_entries += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
    if (d) closedir(d);
    HS_TEST_CHECK(n_entries == 0, "%s: %d entries left after the probe", dir, n_entries);
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
    HS_TEST_OK(hs_series_create("vtk", dir, "v", &s));
    if (!m || !s) goto done;
    fill_frame(m, 0, &a);
    hs_frame fr = test_frame(0.0, TF_PHI, &a);
    HS_TEST_OK(hs_series_write(s, m, &fr));
    rm_rf(dir);
    HS_TEST_CHECK(!exists(dir), "could not remove %s", dir);
    fr.time_ms = 1.0;
    hs_error_clear();
    expect_io_error(hs_series_write(s, m, &fr), dir, "write into a removed directory");
    HS_TEST_CHECK(hs_series_count(s) == 1, "count %d after a failed write", hs_series_count(s));

    /* A non-finite time is refused before anything is written (JSON has no NaN). */
    HS_TEST_OK(hs_output_dir_check(dir));
    fr.time_ms = NAN;
    hs_status st = hs_series_write(s, m, &fr);
    HS_TEST_CHECK(st == HS_ERR_NUMERIC, "NaN time: status %d", (int)st);
    hs_error_clear();
    path_in(file, sizeof file, dir, "v_000001.vtk");
    HS_TEST_CHECK(!exists(file), "%s written for a NaN time", file);
done:
    free_frame(&a);
    hs_series_destroy(&s);
    hs_mesh_destroy(&m);
}

/* Write errors (what a full disk does) simulated with RLIMIT_FSIZE: writes past the limit fail
 * with EFBIG, in fflush for a frame that fits stdio's buffer and in fwrite for a large one. */
static void test_write_error(int nx, const char *sub)
{
    char dir[600], f0[700], f1[700], tmp1[700];
    path_in(dir, sizeof dir, g_root, sub);
    path_in(f0, sizeof f0, dir, "w_000000.vtk");
    path_in(f1, sizeof f1, dir, "w_000001.vtk");
    path_in(tmp1, sizeof tmp1, dir, ".w_000001.vtk.tmp");
    hs_mesh *m = NULL;
    hs_series *s = NULL;
    frame_arrays a = {0};
    HS_TEST_OK(output_test_box(nx, 1, 1, &m));
    HS_TEST_OK(hs_series_create("vtk", dir, "w", &s));
    if (!m || !s) goto done;
    fill_frame(m, 0, &a);
    hs_frame fr = test_frame(0.0, TF_PHI | TF_R, &a);
    HS_TEST_OK(hs_series_write(s, m, &fr));
    size_t size0 = 0, size_idx = 0;
    char *before0 = slurp(f0, &size0);
    char *before_idx = slurp(hs_series_index_path(s), &size_idx);

    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = size0 / 2; /* frame 1 has frame 0's size: it cannot fit */
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN); /* get EFBIG instead of being killed */
    HS_TEST_CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0, "setrlimit: %s", strerror(errno));
    fr.time_ms = 1.0;
    hs_error_clear();
    hs_status st = hs_series_write(s, m, &fr);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, old_handler);
    expect_io_error(st, f1, "write error");

    HS_TEST_CHECK(!exists(tmp1), "temporary file %s left after a write error", tmp1);
    HS_TEST_CHECK(!exists(f1), "%s exists after a write error", f1);
    HS_TEST_CHECK(hs_series_count(s) == 1, "count %d after a failed write", hs_series_count(s));
    size_t size_after = 0, size_idx_after = 0;
    char *after0 = slurp(f0, &size_after);
    char *after_idx = slurp(hs_series_index_path(s), &size_idx_after);
    HS_TEST_CHECK(before0 && after0 && size_after == size0 && !memcmp(before0, after0, size0),
                  "%s changed by a failed later write", f0);
    HS_TEST_CHECK(before_idx && after_idx && size_idx == size_idx_after &&
                      !memcmp(before_idx, after_idx, size_idx),
                  "index changed by a failed write");

    /* Once space is back, the same frame number is written. */
    HS_TEST_OK(hs_series_write(s, m, &fr));
    HS_TEST_CHECK(exists(f1), "%s missing after the retry", f1);
    const double times[2] = {0.0, 1.0};
    check_index(hs_series_index_path(s), "w", times, 2);
    free(before0);
    free(after0);
    free(before_idx);
    free(after_idx);
done:
    free_frame(&a);
    hs_series_destroy(&s);
    hs_mesh_destroy(&m);
}

int main(void)
{
    if (make_test_root(g_root, sizeof g_root, "hs_test_vtk") != 0) return 1;
    test_three_frames();
    test_large_frame();
    test_bad_directory();
    test_directory_vanishes();
    test_write_error(1, "werr_small");  /* ~1 KB frame: fails in fflush */
    test_write_error(40, "werr_large"); /* ~13 KB frame: fails in fwrite */
    if (hs_test_failures)
        fprintf(stderr, "files kept in %s\n", g_root);
    else
        rm_rf(g_root);
    HS_TEST_RETURN();
}
