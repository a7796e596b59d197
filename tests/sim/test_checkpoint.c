/*
 * Checkpoint files over the state descriptor (sim/checkpoint.c):
 *  1. a state with every field of the model and a two-step history is written and read back bit for
 *     bit, and matched against the run's fingerprints and mesh;
 *  2. a version-1 file (written before the history section existed) is still read: same fields,
 *     empty history;
 *  3. a payload of another size (another model's fields) is refused with a message naming the model;
 *     a changed fingerprint group names the group; a flipped payload byte is named as damage;
 *  4. version-3 files written by main a12da8d, before the model limits grew from 8 variables and 32
 *     parameters to 64 and 256 (tests/sim/data/ckpt_v3_<model>.hsck: the 2 x 1 x 1 mm box at h = 0.5,
 *     field k's value i = 1000 k + 0.5 i, history -0.25 i and 7 + i, steps 0.01 and 0.02, step 20,
 *     frames at 0, 1, 2 ms, fingerprints 11 .. 16) read back with every value: the layout depends on
 *     the model's fields only, never on the interface's limits;
 *  5. hs_checkpoint_read_rows (a distributed restart's reader) gives the whole reader's values at
 *     rows in any order (some nodes, elements reversed, rows far apart and side by side), for a
 *     version 3 and a version 1 file (its read-outs defaulted as the whole reader does); a replaced
 *     file (another header) is refused.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_checkpoint.h"
#include "hs_hash.h"
#include "hs_test.h"
#include "hs_util.h"

static char g_dir[256];

static void write_file(const char *path, const void *a, size_t na, const void *b, size_t nb)
{
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fwrite(a, 1, na, f);
    if (nb) fwrite(b, 1, nb, f);
    fclose(f);
}

/* 4. a file of an earlier build, for @p model */
static void read_fixture(const char *data_dir, const char *name, const hs_mesh *mesh)
{
    const hs_model *model = hs_models_find(name);
    HS_TEST_CHECK(model != NULL, "model %s", name);
    if (!model) return;
    char path[600];
    snprintf(path, sizeof path, "%s/ckpt_v3_%s.hsck", data_dir, name);
    const uint64_t fp[HS_CKPT_GROUPS] = {11, 12, 13, 14, 15, 16};
    hs_checkpoint ck;
    hs_status rs = hs_checkpoint_read(path, model, fp, 0.1, &ck);
    HS_TEST_CHECK(rs == HS_OK, "%s: %s", path, hs_error_message());
    if (rs != HS_OK) return;
    HS_TEST_OK(hs_checkpoint_match(&ck, fp, 0.1, mesh));
    HS_TEST_CHECK(ck.h.version == 3 && ck.h.step == 20 && ck.h.n_frames == 3 && ck.frame_times[2] == 2.0,
                  "%s: header", name);
    HS_TEST_CHECK(ck.desc.n_fields == model->n_vars + 1 + HS_STATE_READOUTS, "%s: %d fields", name, ck.desc.n_fields);
    long bad = 0;
    for (int k = 0; k < ck.desc.n_fields; ++k)
        for (size_t i = 0; i < hs_state_field_len(&ck.desc, k); ++i) bad += ck.state.field[k][i] != 1000.0 * k + 0.5 * (double)i;
    const size_t nn = (size_t)mesh->n_nodes;
    HS_TEST_CHECK(ck.hist.n_valid == 2 && ck.hist.h[0] == 0.01 && ck.hist.h[1] == 0.02, "%s: history steps", name);
    for (size_t i = 0; i < nn && ck.hist.n_valid == 2; ++i)
        bad += ck.hist_phi[0][i] != -0.25 * (double)i || ck.hist_phi[1][i] != 7.0 + (double)i;
    HS_TEST_CHECK(bad == 0, "%s: %ld values differ from the file's", name, bad);
    hs_checkpoint_free(&ck);
}

/* 5. hs_checkpoint_read_rows of @p ck's file at some rows = @p ck's values there */
static void rows_match(const hs_checkpoint *ck, const char *what)
{
    const int32_t nn = (int32_t)ck->h.n_nodes, ne = (int32_t)ck->h.n_elems;
    int32_t n = 0;
    int64_t *ng = malloc(sizeof(int64_t) * (size_t)nn), *eg = malloc(sizeof(int64_t) * (size_t)ne);
    for (int32_t i = nn - 1; i >= 0; i -= 3) ng[n++] = i; /* the last node, every third, down to 0 or 1 */
    ng[n++] = 0;                                         /* and the first (twice, when n % 3 == 1) */
    for (int32_t e = 0; e < ne; ++e) eg[e] = ne - 1 - e;
    hs_state_desc ld = ck->desc;
    ld.n_nodes = n;
    ld.n_elems = ne;
    hs_state ls;
    HS_TEST_OK(hs_state_create(&ld, &ls));
    double *h[2] = {malloc(sizeof(double) * (size_t)n), malloc(sizeof(double) * (size_t)n)};
    HS_TEST_OK(hs_checkpoint_read_rows(ck, n, ng, ne, eg, &ls, h));
    long bad = 0;
    for (int k = 0; k < ld.n_fields; ++k) {
        const int node = ld.f[k].where == HS_AT_NODE;
        for (int32_t i = 0; i < (node ? n : ne); ++i) bad += ls.field[k][i] != ck->state.field[k][node ? ng[i] : eg[i]];
    }
    for (int q = 0; q < ck->hist.n_valid; ++q)
        for (int32_t i = 0; i < n; ++i) bad += h[q][i] != ck->hist_phi[q][ng[i]];
    HS_TEST_CHECK(bad == 0, "%s: %ld values read by rows differ from the whole file's", what, bad);
    hs_state_destroy(&ls);
    free(h[0]);
    free(h[1]);
    free(ng);
    free(eg);
}

int main(int argc, char **argv)
{
    hs_verbosity = 0;
    snprintf(g_dir, sizeof g_dir, "/tmp/hs_test_checkpoint_XXXXXX");
    HS_TEST_CHECK(mkdtemp(g_dir) != NULL, "mkdtemp");
    hs_box_params box = {.lx = 2.0, .ly = 1.0, .lz = 1.0, .h = 0.5};
    hs_mesh *mesh = NULL;
    HS_TEST_OK(hs_mesh_create_box(&box, &mesh));
    if (!mesh) HS_TEST_RETURN();
    const hs_model *model = hs_models_at(0);
    hs_state_desc d;
    hs_state_desc_init(&d, model, mesh->n_nodes, mesh->n_elems);
    hs_state st;
    HS_TEST_OK(hs_state_create(&d, &st));
    unsigned seed = 7;
    for (int k = 0; k < d.n_fields; ++k)
        for (size_t i = 0; i < hs_state_field_len(&d, k); ++i) st.field[k][i] = (double)rand_r(&seed) / RAND_MAX - 0.25;
    const size_t nn = (size_t)mesh->n_nodes;
    double *h1 = malloc(sizeof(double) * nn), *h2 = malloc(sizeof(double) * nn);
    for (size_t i = 0; i < nn; ++i) h1[i] = i * 1e-3, h2[i] = -(double)i;
    hs_extrap ex = {.order = 2, .n_valid = 2, .h = {0.01, 0.02}};
    double *const hist[2] = {h1, h2};
    const double times[3] = {0.0, 1.0, 2.0};
    uint64_t fp[HS_CKPT_GROUPS] = {1, 2, 3, 4, 5, 6};
    char path[400];
    hs_checkpoint_path(g_dir, "t", 20, path, sizeof path);

    /* 1. round trip */
    HS_TEST_OK(hs_checkpoint_write(path, 20, 2.0, 0.1, fp, mesh, 3, times, &st, &ex, hist));
    hs_checkpoint ck;
    HS_TEST_OK(hs_checkpoint_read(path, model, NULL, 0.0, &ck));
    HS_TEST_CHECK(ck.h.step == 20 && ck.h.n_frames == 3 && ck.h.version == HS_CKPT_VERSION, "header");
    HS_TEST_CHECK(ck.desc.n_fields == d.n_fields, "fields");
    for (int k = 0; k < d.n_fields; ++k)
        HS_TEST_CHECK(!memcmp(ck.state.field[k], st.field[k], sizeof(double) * hs_state_field_len(&d, k)),
                      "field %s differs", d.f[k].name);
    HS_TEST_CHECK(ck.hist.n_valid == 2 && ck.hist.h[1] == 0.02 && !memcmp(ck.hist_phi[1], h2, sizeof(double) * nn),
                  "history");
    HS_TEST_OK(hs_checkpoint_match(&ck, fp, 0.1, mesh));
    uint64_t other[HS_CKPT_GROUPS];
    memcpy(other, fp, sizeof other);
    other[2] ^= 1; /* model.* */
    HS_TEST_CHECK(hs_checkpoint_match(&ck, other, 0.1, mesh) == HS_ERR_CONFIG &&
                      strstr(hs_error_message(), "model.* differs"),
                  "fingerprint mismatch: %s", hs_error_message());
    hs_error_clear();

    /* 2. the same state as a version-1 file: no history section, reserved = 0 */
    FILE *f = fopen(path, "rb");
    long size = 0;
    unsigned char *buf = NULL;
    if (f) {
        fseek(f, 0, SEEK_END);
        size = ftell(f);
        fseek(f, 0, SEEK_SET);
        buf = malloc((size_t)size);
        if (fread(buf, 1, (size_t)size, f) != (size_t)size) size = 0;
        fclose(f);
    }
    HS_TEST_CHECK(size > 0, "read back the file");
    hs_ckpt_header h;
    memcpy(&h, buf, sizeof h);
    const unsigned char *payload = buf + sizeof h;
    size_t v1_bytes = sizeof(double) * (3 + 2 * nn + (size_t)mesh->n_elems); /* times, phi, r, act (no read-outs) */
    h.version = 1;
    h.reserved = 0;
    h.payload_bytes = v1_bytes;
    h.payload_sum = hs_fnv1a64(HS_FNV_OFFSET, payload, v1_bytes);
    h.header_sum = hs_fnv1a64(HS_FNV_OFFSET, &h, offsetof(hs_ckpt_header, header_sum));
    char v1[400];
    snprintf(v1, sizeof v1, "%s/v1.hsck", g_dir);
    write_file(v1, &h, sizeof h, payload, v1_bytes);
    hs_checkpoint c1;
    HS_TEST_OK(hs_checkpoint_read(v1, model, NULL, 0.0, &c1));
    HS_TEST_CHECK(c1.hist.n_valid == 0, "version 1: empty history");
    for (int k = 0; k <= d.activation; ++k)
        HS_TEST_CHECK(!memcmp(c1.state.field[k], st.field[k], sizeof(double) * hs_state_field_len(&d, k)),
                      "version 1: field %s", d.f[k].name);
    {   /* the read-outs a version 1 or 2 file lacks: unset, one beat where the node activated */
        const double *act = c1.state.field[d.activation], *rep = c1.state.field[hs_state_find(&d, "repolarisation")];
        const double *beats = c1.state.field[hs_state_find(&d, "beats")];
        int bad = 0;
        for (size_t i = 0; i < nn; ++i) bad += rep[i] != -1.0 || beats[i] != (act[i] >= 0.0 ? 1.0 : 0.0);
        HS_TEST_CHECK(bad == 0, "version 1: %d nodes with wrong default read-outs", bad);
    }
    hs_checkpoint_free(&c1);

    /* 5. rows: every third node from the end, the elements reversed; from the round trip and version 1 */
    rows_match(&ck, "version 3");
    HS_TEST_OK(hs_checkpoint_read(v1, model, NULL, 0.0, &c1));
    rows_match(&c1, "version 1");
    snprintf(c1.path, sizeof c1.path, "%s", path); /* the version 1 file's header, another file at its path */
    {
        hs_state_desc ld = c1.desc;
        hs_state ls;
        int64_t g = 0;
        ld.n_nodes = ld.n_elems = 1;
        HS_TEST_OK(hs_state_create(&ld, &ls));
        HS_TEST_CHECK(hs_checkpoint_read_rows(&c1, 1, &g, 1, &g, &ls, NULL) == HS_ERR_IO &&
                          strstr(hs_error_message(), "was replaced"),
                      "replaced file: %s", hs_error_message());
        hs_error_clear();
        hs_state_destroy(&ls);
    }
    hs_checkpoint_free(&c1);

    /* 3. another model's payload (one field more), and a damaged byte */
    h.payload_bytes = v1_bytes + sizeof(double) * (size_t)mesh->n_elems;
    h.header_sum = hs_fnv1a64(HS_FNV_OFFSET, &h, offsetof(hs_ckpt_header, header_sum));
    unsigned char *big = calloc(1, h.payload_bytes);
    memcpy(big, payload, v1_bytes);
    write_file(v1, &h, sizeof h, big, h.payload_bytes);
    HS_TEST_CHECK(hs_checkpoint_read(v1, model, NULL, 0.0, &c1) == HS_ERR_IO && strstr(hs_error_message(), model->name),
                  "other model: %s", hs_error_message());
    hs_error_clear();
    /* the same file read by a run of another configuration: named as such, not as damage */
    HS_TEST_CHECK(hs_checkpoint_read(v1, model, other, 0.1, &c1) == HS_ERR_CONFIG &&
                      strstr(hs_error_message(), "model.* differs"),
                  "other configuration: %s", hs_error_message());
    hs_error_clear();
    buf[sizeof h + 8 * 3 + 5] ^= 0x40; /* a byte of phi */
    write_file(v1, buf, (size_t)size, NULL, 0);
    HS_TEST_CHECK(hs_checkpoint_read(v1, model, NULL, 0.0, &c1) == HS_ERR_IO && strstr(hs_error_message(), "payload checksum"),
                  "damage: %s", hs_error_message());
    hs_error_clear();

    /* 4. files of an earlier build */
    HS_TEST_CHECK(argc == 2, "usage: test_checkpoint DATA_DIR");
    if (argc == 2) {
        read_fixture(argv[1], "aliev_panfilov", mesh);
        read_fixture(argv[1], "bueno_orovio", mesh);
    }

    unlink(v1);
    unlink(path);
    rmdir(g_dir);
    free(big);
    free(buf);
    free(h1);
    free(h2);
    hs_checkpoint_free(&ck);
    hs_state_destroy(&st);
    hs_mesh_destroy(&mesh);
    HS_TEST_RETURN();
}
