/*
 * A state of more than 32 fields through the frame plan and the writer (sim/frame_writer.c), with a
 * synthetic model of 60 variables (not in the model list): the fields a frame shows are a list of
 * descriptor indices, not a bit mask, so any field of a model of up to HS_MODEL_MAX_VARS variables can
 * be written.
 *  1. hs_field_list: indices beyond 31 are kept, in increasing order, each once;
 *  2. the frame of a plan holds the listed fields in descriptor order, V right after the potential;
 *  3. a plan of every field (65) and V: 66 arrays in one frame, written as a VTK frame by the writer
 *     thread with a buffer for each listed field; the file holds each array, by name.
 */
#define _GNU_SOURCE /* mkdtemp, memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_frame_writer.h"
#include "hs_mesh.h"
#include "hs_test.h"
#include "hs_util.h"

enum { NV = 60 };

static char g_names[NV][8];
static hs_model_var g_vars[NV];

static double unused_dt_max(const double *v)
{
    (void)v;
    return 1.0;
}

/* A model that is only a descriptor: 60 integration-point variables x00 .. x59. */
static hs_model synthetic(void)
{
    for (int v = 0; v < NV; ++v) {
        snprintf(g_names[v], sizeof g_names[v], "x%02d", v);
        g_vars[v] = (hs_model_var){g_names[v], "1", HS_AT_IP, 0.5 * v, "synthetic", 0};
    }
    hs_model m = {.name = "synthetic", .summary = "-", .reference = "-", .id = HS_MODEL_COUNT, .n_vars = NV,
                  .vars = g_vars, .potential_name = "u", .potential_unit = "1", .mv_scale = 100.0,
                  .mv_offset = -80.0, .time_unit_default = 1.0, .dt_max = unused_dt_max};
    return m;
}

/* The names of a frame's fields, comma-separated. */
static void frame_names(const hs_frame *fr, char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int j = 0; j < fr->n_fields && o < n; ++j)
        o += (size_t)snprintf(buf + o, n - o, "%s%s", j ? "," : "", fr->field[j].name);
}

int main(void)
{
    hs_verbosity = 0;
    const hs_model m = synthetic();
    hs_box_params box = {.lx = 1.0, .ly = 1.0, .lz = 1.0, .h = 0.5};
    hs_mesh *mesh = NULL;
    HS_TEST_OK(hs_mesh_create_box(&box, &mesh));
    if (!mesh) HS_TEST_RETURN();
    hs_state_desc d;
    hs_state_desc_init(&d, &m, mesh->n_nodes, mesh->n_elems);
    HS_TEST_CHECK(d.n_fields == NV + 1 + HS_STATE_READOUTS && d.n_fields > 32 && d.n_fields <= HS_STATE_MAX_FIELDS,
                  "%d fields", d.n_fields);
    const int x32 = hs_state_find(&d, "x32"), x59 = hs_state_find(&d, "x59"), beats = hs_state_find(&d, "beats");
    HS_TEST_CHECK(x32 == 33 && x59 == 60 && beats == 64, "field indices %d %d %d", x32, x59, beats);

    /* 1. the list */
    hs_field_list l = {0};
    HS_TEST_CHECK(hs_field_list_add(&l, beats) && hs_field_list_add(&l, x32) && hs_field_list_add(&l, 1) &&
                      hs_field_list_add(&l, x59) && !hs_field_list_add(&l, x32),
                  "adding fields beyond 31 (a second x32 refused)");
    HS_TEST_CHECK(l.n == 4 && l.k[0] == 1 && l.k[1] == x32 && l.k[2] == x59 && l.k[3] == beats,
                  "list: %d entries, %d %d %d %d", l.n, l.k[0], l.k[1], l.k[2], l.k[3]);
    HS_TEST_CHECK(hs_field_list_has(&l, x59) && !hs_field_list_has(&l, 0), "membership");

    /* 2. a plan's frame */
    hs_state st;
    HS_TEST_OK(hs_state_create(&d, &st));
    for (int k = 0; k < d.n_fields; ++k)
        for (size_t i = 0; i < hs_state_field_len(&d, k); ++i) st.field[k][i] = k + 1e-3 * (double)i;
    hs_frame_plan plan = {&d, l, 1, m.mv_scale, m.mv_offset, 0};
    hs_frame fr;
    hs_frame_plan_frame(&plan, &st, 1.0, &fr);
    char names[4096];
    frame_names(&fr, names, sizeof names);
    HS_TEST_CHECK(!strcmp(names, "V,x00,x32,x59,beats"), "frame fields: %s", names);
    HS_TEST_CHECK(fr.n_fields == 5 && fr.field[0].mapped && fr.field[0].data == st.field[0] &&
                      fr.field[2].data == st.field[x32] && fr.field[2].cell == 1 && fr.field[4].cell == 0,
                  "frame arrays");
    HS_TEST_OK(hs_frame_check(&fr));

    /* 3. every field and V, through the writer thread into a VTK series */
    plan.fields.n = 0;
    for (int k = d.n_fields - 1; k >= 0; --k) HS_TEST_CHECK(hs_field_list_add(&plan.fields, k), "add field %d", k);
    char dir[] = "/tmp/hs_test_frame_plan_XXXXXX";
    HS_TEST_CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    hs_series *ser = NULL;
    HS_TEST_OK(hs_series_create("vtk", dir, "fp", &ser));
    hs_frame_writer *w = NULL;
    HS_TEST_OK(hs_frame_writer_create(ser, mesh, &plan, NULL, &w));
    hs_frame_bufs b;
    HS_TEST_OK(hs_frame_writer_acquire(w, &b));
    int missing = 0;
    for (int k = 0; k < d.n_fields; ++k) {
        missing += b.state.field[k] == NULL;
        if (b.state.field[k]) memcpy(b.state.field[k], st.field[k], sizeof(double) * hs_state_field_len(&d, k));
    }
    HS_TEST_CHECK(missing == 0, "%d fields without a buffer", missing);
    HS_TEST_OK(hs_frame_writer_submit(w, 2.0));
    HS_TEST_OK(hs_frame_writer_flush(w));
    hs_frame_writer_destroy(&w);
    hs_frame_plan_frame(&plan, &st, 2.0, &fr);
    HS_TEST_CHECK(fr.n_fields == d.n_fields + 1, "a frame of %d arrays", fr.n_fields);
    hs_series_destroy(&ser);
    /* the file: every array once, by name */
    char path[128];
    snprintf(path, sizeof path, "%s/fp_000000.vtk", dir);
    FILE *f = fopen(path, "rb");
    HS_TEST_CHECK(f != NULL, "frame file %s", path);
    if (f) {
        fseek(f, 0, SEEK_END);
        long size = ftell(f);
        fseek(f, 0, SEEK_SET);
        char *text = calloc(1, (size_t)size + 1);
        size_t got = text ? fread(text, 1, (size_t)size, f) : 0;
        fclose(f);
        int absent = 0;
        for (int k = -1; k < d.n_fields && text; ++k) {
            char key[64];
            snprintf(key, sizeof key, "SCALARS %s double 1\n", k < 0 ? "V" : d.f[k].name);
            if (!memmem(text, got, key, strlen(key))) {
                ++absent;
                fprintf(stderr, "array %s not in %s\n", k < 0 ? "V" : d.f[k].name, path);
            }
        }
        HS_TEST_CHECK(absent == 0, "%d arrays missing from the VTK frame", absent);
        free(text);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/fp.vtk.series", dir);
    unlink(path);
    rmdir(dir);
    hs_state_destroy(&st);
    hs_mesh_destroy(&mesh);
    HS_TEST_RETURN();
}
