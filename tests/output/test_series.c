/*
 * The format-neutral series (output/series.c) and frames as lists of named fields (hs_frame.h):
 * every listed format works through hs_series, unknown ones are refused listing the names; a
 * frame's fields are written points first, then cells, each in list order, with mapped fields as
 * scale * x + offset; malformed frames are refused before any file is written.
 */
#define _XOPEN_SOURCE 700 /* nftw, mkdtemp */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_atomic_file.h" /* hs_path_join */
#include "hs_build_config.h"
#include "hs_series.h"
#include "hs_test.h"
#include "hs_util.h"
#include "output_test_frame.h"
#include "output_test_fs.h"
#include "output_test_mesh.h"
#include "vtk_test_reader.h"
#include "xdmf_test_reader.h"

static char g_root[512]; /* per-run temporary directory, removed at the end when all passed */

/* hs_series: every listed format works through the neutral interface; others are refused. */
static void test_series_formats(void)
{
    char list[64];
    snprintf(list, sizeof list, "%s", hs_series_format_list());
    hs_mesh *m = NULL;
    frame_arrays a = {0};
    HS_TEST_OK(output_test_box(1, 1, 1, &m));
    if (!m) return;
    fill_frame(m, 0, &a);
    int n_formats = 0;
    for (char *save = NULL, *name = strtok_r(list, ", ", &save); name; name = strtok_r(NULL, ", ", &save)) {
        char dir[700];
        snprintf(dir, sizeof dir, "%s/neutral_%s", g_root, name);
        hs_series *s = NULL;
        ++n_formats;
        if (!strcmp(name, "xdmf_h5") && !HS_HAS_HDF5) { /* listed, refused by name, saying how to get it */
            expect_error(hs_series_format_check(name), HS_ERR_CONFIG, "built without HDF5", "xdmf_h5 without HDF5");
            expect_error(hs_series_create(name, dir, "n", &s), HS_ERR_CONFIG, "libhdf5-dev", "xdmf_h5 without HDF5");
            HS_TEST_CHECK(s == NULL, "series returned for a format this build lacks");
            continue;
        }
        HS_TEST_OK(hs_series_format_check(name));
        HS_TEST_OK(hs_series_create(name, dir, "n", &s));
        if (!s) continue;
        HS_TEST_CHECK(!strcmp(hs_series_format(s), name), "format %s reported as %s", name,
                      hs_series_format(s));
        for (int k = 0; k < 3; ++k) {
            hs_frame fr = test_frame(0.5 * k, TF_ALL, &a);
            HS_TEST_OK(hs_series_write(s, m, &fr));
        }
        HS_TEST_CHECK(hs_series_count(s) == 3 && hs_series_times(s)[2] == 1.0, "%s: count %d", name,
                      hs_series_count(s));
        const char *idx = hs_series_index_path(s);
        const char *want = !strcmp(name, "vtk") ? "/n.vtk.series" : "/n.xdmf";
        HS_TEST_CHECK(idx && strlen(idx) > strlen(want) && !strcmp(idx + strlen(idx) - strlen(want), want) &&
                          exists(idx),
                      "%s: index %s", name, idx ? idx : "(null)");
        hs_series_destroy(&s);
        /* resume through the neutral interface: frame 2 removed, two frames remain */
        const double times[2] = {0.0, 0.5};
        HS_TEST_OK(hs_series_create(name, dir, "n", &s));
        if (s) HS_TEST_OK(hs_series_resume(s, times, 2));
        HS_TEST_CHECK(hs_series_count(s) == 2, "%s: count %d after resume", name, hs_series_count(s));
        hs_series_destroy(&s);
        hs_series_destroy(&s);
    }
    HS_TEST_CHECK(n_formats == 3, "%d formats listed in \"%s\"", n_formats, hs_series_format_list());
    hs_series *s = NULL;
    expect_error(hs_series_create("hdf5", g_root, "n", &s), HS_ERR_CONFIG, "\"hdf5\"; available: vtk, xdmf, xdmf_h5",
                 "unknown format");
    HS_TEST_CHECK(s == NULL, "series returned for an unknown format");
    expect_error(hs_series_format_check(NULL), HS_ERR_CONFIG, "available", "NULL format");
    HS_TEST_CHECK(hs_series_count(NULL) == 0 && hs_series_index_path(NULL) == NULL, "NULL series");
    /* the checks a config can make before any work: each format's own prefix rule */
    HS_TEST_OK(hs_series_check("xdmf", "heart"));
    HS_TEST_OK(hs_series_check("vtk", "my heart|1")); /* legacy VTK has no such restriction */
    expect_error(hs_series_check("xdmf", "my heart"), HS_ERR_CONFIG, "white space", "xdmf prefix check");
    expect_error(hs_series_check("vtk", "a/b"), HS_ERR_CONFIG, "without '/'", "vtk prefix check");
    expect_error(hs_series_check("hdf5", "heart"), HS_ERR_CONFIG, "available: vtk, xdmf, xdmf_h5", "format check");
    free_frame(&a);
    hs_mesh_destroy(&m);
}

/* The series checks names before it creates anything: a directory under a regular file, and the
 * prefixes each format refuses (xdmf: also '|', blanks, control characters, bad UTF-8). */
static void test_bad_names(void)
{
    char file[600], dir[700];
    path_in(file, sizeof file, g_root, "plain_file");
    FILE *fp = fopen(file, "w");
    HS_TEST_CHECK(fp != NULL, "cannot create %s", file);
    if (fp) fclose(fp);
    snprintf(dir, sizeof dir, "%s/sub/dir", file);
    hs_series *s = NULL;
    expect_error(hs_series_create("xdmf", dir, "x", &s), HS_ERR_IO, dir, "series under a regular file");
    HS_TEST_CHECK(s == NULL, "writer returned on failure");
    const char *bad[] = {"a/b", "a|b", "a b", "tab\there", "", "\xff\xfe"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        expect_error(hs_series_create("xdmf", g_root, bad[i], &s), HS_ERR_CONFIG, "output prefix", bad[i]);
        HS_TEST_CHECK(s == NULL, "writer returned for prefix \"%s\"", bad[i]);
    }
    /* UTF-8 and XML's special characters are fine: they are escaped in the index */
    HS_TEST_OK(hs_series_create("xdmf", g_root, "c\xc5\x93ur&<1>", &s));
    hs_series_destroy(&s);
}

/* What field k of the custom frame below must read back as, value i. */
static double want_value(const hs_frame *fr, int f, size_t i, int f32)
{
    const hs_frame_field *a = &fr->field[f];
    double x = a->mapped ? a->scale * a->data[i] + a->offset : a->data[i];
    return f32 ? (double)(float)x : x;
}

/* A list that is not in file order: a cell field first, a mapped field with an arbitrary map,
 * names the run never uses, and only the region of the mesh arrays. */
static void test_field_order(const char *format)
{
    char dir[600], why[1400], *file = NULL;
    snprintf(dir, sizeof dir, "%s/order_%s", g_root, format);
    hs_mesh *m = NULL;
    hs_series *s = NULL;
    frame_arrays a = {0};
    HS_TEST_OK(output_test_box(2, 1, 1, &m));
    HS_TEST_OK(hs_series_create(format, dir, "o", &s));
    if (!m || !s) goto done;
    fill_frame(m, 3, &a);
    hs_frame fr = hs_frame_at(0.25);
    HS_TEST_OK(hs_frame_add(&fr, "q_cell", 1, a.r));
    HS_TEST_OK(hs_frame_add_mapped(&fr, "u", 0, a.act, 2.5, 1.0 / 3.0));
    HS_TEST_OK(hs_frame_add(&fr, "w2", 0, a.phi));
    fr.mesh_fields = HS_MESH_FIELD_REGION;
    HS_TEST_OK(hs_series_write(s, m, &fr));
    const int file_order[3] = {1, 2, 0}; /* u, w2 (points), then q_cell */
    const size_t nn = (size_t)m->n_nodes, ne = (size_t)m->n_elems;
    if (!strcmp(format, "vtk")) {
        vtk_test_file f;
        HS_TEST_OK(hs_path_join(dir, "o_000000.vtk", &file)); /* heap: the reader's messages fit */
        if (!file || vtk_test_read(file, &f) != 0) {
            HS_TEST_CHECK(0, "%s: %s", file ? file : dir, file ? f.error : "no path");
            goto done;
        }
        HS_TEST_CHECK(f.n_arrays == 5, "%s: %d arrays, expected TIME, u, w2, q_cell, region", file, f.n_arrays);
        for (int k = 0; k < 3 && f.n_arrays == 5; ++k) {
            const vtk_test_array *v = &f.arrays[1 + k];
            const hs_frame_field *x = &fr.field[file_order[k]];
            size_t n = x->cell ? ne : nn, bad = 0;
            HS_TEST_CHECK(!strcmp(v->name, x->name) && v->where == (x->cell ? VTK_TEST_CELL : VTK_TEST_POINT) &&
                              v->n_tuples == n && v->d,
                          "%s: array %d is %s, expected %s", file, 1 + k, v->name, x->name);
            for (size_t i = 0; i < n && v->n_tuples == n && v->d; ++i)
                bad += v->d[i] != want_value(&fr, file_order[k], i, 0);
            HS_TEST_CHECK(bad == 0, "%s: %s: %zu values differ", file, x->name, bad);
        }
        HS_TEST_CHECK(f.n_arrays == 5 && vtk_test_find(&f, VTK_TEST_CELL, "region") == &f.arrays[4] &&
                          f.arrays[4].is_int,
                      "%s: region is not the last array", file);
        vtk_test_free(&f);
    } else {
        xdmf_test_grid g[1];
        xdmf_test_item it;
        char val[64];
        memset(g, 0, sizeof g);
        char *text = slurp(hs_series_index_path(s), NULL);
        int n_grids = text ? xdmf_test_grids(text, g, 1) : 0;
        HS_TEST_CHECK(n_grids == 1 && xdmf_test_n_attributes(&g[0]) == 4 &&
                          xdmf_test_element(&g[0], "<Topology", "TopologyType", val, sizeof val, &it),
                      "xdmf: %d grids, or attributes or topology missing", n_grids);
        long seek = 0;
        for (int k = 0; k < 3 && n_grids == 1; ++k) {
            const hs_frame_field *x = &fr.field[file_order[k]];
            char c[16], t[16];
            double *v = NULL;
            size_t n = x->cell ? ne : nn, bad = 0;
            if (!xdmf_test_attribute(&g[0], x->name, c, t, &it) || xdmf_test_read(dir, &it, &v, why, sizeof why)) {
                HS_TEST_CHECK(0, "xdmf: %s: not found or unreadable", x->name);
                continue;
            }
            HS_TEST_CHECK(it.seek == seek && !strcmp(c, x->cell ? "Cell" : "Node") && it.dims[0] == (long)n,
                          "xdmf: %s at byte %ld, expected %ld (center %s)", x->name, it.seek, seek, c);
            for (size_t i = 0; i < n; ++i) bad += v[i] != want_value(&fr, file_order[k], i, 1);
            HS_TEST_CHECK(bad == 0, "xdmf: %s: %zu values differ", x->name, bad);
            seek += 4 * (long)n;
            free(v);
        }
        HS_TEST_OK(hs_path_join(dir, "o_000000.bin", &file));
        HS_TEST_CHECK(file && file_size(file) == seek, "%s: %lld bytes, expected %ld", file ? file : dir,
                      file ? file_size(file) : -1LL, seek);
        free(text);
    }
done:
    free(file);
    free_frame(&a);
    hs_series_destroy(&s);
    hs_mesh_destroy(&m);
}

/* Frames the program built wrong are refused with a message naming the field; nothing is written. */
static void test_bad_frames(void)
{
    char dir[600], file[700];
    snprintf(dir, sizeof dir, "%s/bad_frames", g_root);
    hs_mesh *m = NULL;
    hs_series *s = NULL;
    frame_arrays a = {0};
    HS_TEST_OK(output_test_box(1, 1, 1, &m));
    HS_TEST_OK(hs_series_create("vtk", dir, "b", &s));
    if (!m || !s) goto done;
    fill_frame(m, 0, &a);
    const struct {
        const char *name;
        int cell;
        int null_data;
        const char *needle;
    } bad[] = {
        {"a b", 0, 0, "\"a b\""}, {"", 0, 0, "name \"\""},     {"1x", 0, 0, "\"1x\""},
        {"x\"", 0, 0, "x\""},     {"ok", 2, 0, "cell = 2"},     {"ok", 0, 1, "no data"},
        {"phi", 0, 0, "listed twice"}, {"region", 1, 0, "mesh array"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        hs_frame fr = test_frame(1.0, TF_PHI | TF_REGION, &a);
        HS_TEST_OK(hs_frame_add(&fr, bad[i].name, bad[i].cell, bad[i].null_data ? NULL : a.act));
        expect_error(hs_series_write(s, m, &fr), HS_ERR_INTERNAL, bad[i].needle, bad[i].name);
    }
    hs_frame fr = hs_frame_at(1.0);
    for (int k = 0; k < HS_FRAME_MAX_FIELDS; ++k) HS_TEST_OK(hs_frame_add(&fr, "f", 0, a.phi));
    char most[32];
    snprintf(most, sizeof most, "at most %d", HS_FRAME_MAX_FIELDS);
    expect_error(hs_frame_add(&fr, "g", 0, a.phi), HS_ERR_INTERNAL, most, "one field too many");
    fr.n_fields = HS_FRAME_MAX_FIELDS + 1;
    expect_error(hs_series_write(s, m, &fr), HS_ERR_INTERNAL, "fields", "n_fields too large");
    fr = test_frame(1.0, TF_PHI, &a);
    fr.mesh_fields = 4;
    expect_error(hs_series_write(s, m, &fr), HS_ERR_INTERNAL, "mesh arrays", "unknown mesh array bit");
    fr.mesh_fields = 0;
    fr.time_ms = NAN;
    expect_error(hs_series_write(s, m, &fr), HS_ERR_NUMERIC, "not a finite number", "NaN time");
    HS_TEST_CHECK(hs_series_count(s) == 0, "count %d after refused frames", hs_series_count(s));
    snprintf(file, sizeof file, "%s/b_000000.vtk", dir);
    HS_TEST_CHECK(!exists(file) && !exists(hs_series_index_path(s)), "files written for refused frames");
    /* no fields at all is a frame of the mesh only */
    fr = hs_frame_at(2.0);
    HS_TEST_OK(hs_series_write(s, m, &fr));
    HS_TEST_CHECK(exists(file) && hs_series_count(s) == 1, "mesh-only frame not written");
done:
    free_frame(&a);
    hs_series_destroy(&s);
    hs_mesh_destroy(&m);
}

int main(void)
{
    if (make_test_root(g_root, sizeof g_root, "hs_test_series") != 0) return 1;
    test_series_formats();
    test_bad_names();
    test_field_order("vtk");
    test_field_order("xdmf");
    test_bad_frames();
    if (hs_test_failures)
        fprintf(stderr, "files kept in %s\n", g_root);
    else
        rm_rf(g_root);
    HS_TEST_RETURN();
}
