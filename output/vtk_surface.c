/* A mesh on its own in legacy binary VTK (hs_vtk_surface.h): the volume with labels for
 * `heartsim mesh`, and the labelled boundary surface as polydata. Numbers are big-endian (legacy
 * VTK's rule) and encoded through a fixed-size chunk so a large mesh needs no second copy. */
#define _POSIX_C_SOURCE 200809L
#include "hs_vtk_surface.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_atomic_file.h"
#include "hs_byte_order.h"
#include "hs_util.h"

enum { CHUNK = 1 << 16 }; /* values per encoded chunk */

typedef struct writer {
    hs_atomic_file *f;
    unsigned char *buf; /* [8 * CHUNK] */
} writer;

static hs_status put_f64(writer *w, const double *v, size_t n)
{
    for (size_t i0 = 0; i0 < n; i0 += CHUNK) {
        size_t k = n - i0 < CHUNK ? n - i0 : CHUNK;
        for (size_t i = 0; i < k; ++i) hs_be_put_f64(w->buf + 8 * i, v[i0 + i]);
        HS_CALL(hs_atomic_file_write(w->f, w->buf, 8 * k));
    }
    return HS_OK;
}

/* n int32 values; get(i) supplies value i (arrays, constants, remapped indices alike). */
typedef int32_t (*i32_at)(const void *ctx, size_t i);

static hs_status put_i32(writer *w, i32_at get, const void *ctx, size_t n)
{
    for (size_t i0 = 0; i0 < n; i0 += CHUNK) {
        size_t k = n - i0 < CHUNK ? n - i0 : CHUNK;
        for (size_t i = 0; i < k; ++i) hs_be_put_i32(w->buf + 4 * i, get(ctx, i0 + i));
        HS_CALL(hs_atomic_file_write(w->f, w->buf, 4 * k));
    }
    return HS_OK;
}

static int32_t at_array(const void *ctx, size_t i) { return ((const int32_t *)ctx)[i]; }
static int32_t at_zero(const void *ctx, size_t i) { (void)ctx, (void)i; return 0; }
static int32_t at_tetra(const void *ctx, size_t i) { (void)ctx, (void)i; return 10; /* VTK_TETRA */ }
/* CELLS rows "4 a b c d" from tets [n][4] */
static int32_t at_tet_row(const void *ctx, size_t i)
{
    return i % 5 == 0 ? 4 : ((const int32_t *)ctx)[4 * (i / 5) + i % 5 - 1];
}

typedef struct tri_ctx {
    const int32_t *bface; /* [n][3] mesh node indices */
    const int32_t *local; /* mesh node -> surface point */
} tri_ctx;
/* POLYGONS rows "3 a b c" in surface point numbering */
static int32_t at_tri_row(const void *ctx, size_t i)
{
    const tri_ctx *c = (const tri_ctx *)ctx;
    return i % 4 == 0 ? 3 : c->local[c->bface[3 * (i / 4) + i % 4 - 1]];
}

typedef struct orig_ctx {
    const int32_t *node_orig; /* NULL: identity */
    const int32_t *pick;      /* NULL: every node; else [n] mesh node of point i */
} orig_ctx;
static int32_t at_orig(const void *ctx, size_t i)
{
    const orig_ctx *c = (const orig_ctx *)ctx;
    int32_t node = c->pick ? c->pick[i] : (int32_t)i;
    return c->node_orig ? c->node_orig[node] : node;
}

static hs_status writer_open(writer *w, const char *path, const char *what)
{
    w->f = NULL;
    w->buf = NULL;
    HS_CALL(HS_ALLOC(w->buf, 8 * (size_t)CHUNK, "VTK write buffer"));
    return hs_atomic_file_create(path, what, &w->f);
}

static void writer_close(writer *w)
{
    hs_atomic_file_destroy(&w->f);
    free(w->buf);
    w->buf = NULL;
}

void hs_mesh_node_labels(const hs_mesh *m, int32_t *label)
{
    memset(label, 0, sizeof(int32_t) * (size_t)m->n_nodes);
    for (int32_t f = 0; f < m->n_bfaces; ++f) {
        int32_t id = m->bface_label ? m->bface_label[f] : 0;
        for (int a = 0; a < 3; ++a) {
            int32_t v = m->bface[3 * (int64_t)f + a];
            if (v >= 0 && v < m->n_nodes && id > label[v]) label[v] = id;
        }
    }
}

hs_status hs_vtk_write_mesh(const char *path, const hs_mesh *m, const int32_t *node_label)
{
    hs_status st = HS_OK;
    writer w;
    const size_t nn = (size_t)m->n_nodes, ne = (size_t)m->n_elems;
    for (size_t i = 0; i < 4 * ne; ++i)
        HS_CHECK(m->tets[i] >= 0 && m->tets[i] < m->n_nodes, HS_ERR_INTERNAL,
                 "element %zu has node index %d outside [0, %d)", i / 4, (int)m->tets[i], (int)m->n_nodes);
    HS_CALL_GOTO(writer_open(&w, path, "VTK mesh"), done);
    HS_CALL_GOTO(hs_atomic_file_printf(w.f, "# vtk DataFile Version 3.0\nheartsim mesh\nBINARY\n"
                                            "DATASET UNSTRUCTURED_GRID\nPOINTS %zu double\n", nn), done);
    HS_CALL_GOTO(put_f64(&w, m->xyz, 3 * nn), done);
    HS_CALL_GOTO(hs_atomic_file_printf(w.f, "\nCELLS %zu %zu\n", ne, 5 * ne), done);
    HS_CALL_GOTO(put_i32(&w, at_tet_row, m->tets, 5 * ne), done);
    HS_CALL_GOTO(hs_atomic_file_printf(w.f, "\nCELL_TYPES %zu\n", ne), done);
    HS_CALL_GOTO(put_i32(&w, at_tetra, NULL, ne), done);
    HS_CALL_GOTO(hs_atomic_file_printf(w.f, "\nCELL_DATA %zu\nSCALARS region int 1\nLOOKUP_TABLE default\n", ne),
                 done);
    HS_CALL_GOTO(put_i32(&w, m->region ? at_array : at_zero, m->region, ne), done);
    if (m->fiber) {
        HS_CALL_GOTO(hs_atomic_file_printf(w.f, "\nVECTORS fiber double\n"), done);
        HS_CALL_GOTO(put_f64(&w, m->fiber, 3 * ne), done);
    }
    HS_CALL_GOTO(hs_atomic_file_printf(w.f, "\nPOINT_DATA %zu\n", nn), done);
    if (node_label) {
        HS_CALL_GOTO(hs_atomic_file_printf(w.f, "SCALARS label int 1\nLOOKUP_TABLE default\n"), done);
        HS_CALL_GOTO(put_i32(&w, at_array, node_label, nn), done);
        HS_CALL_GOTO(hs_atomic_file_printf(w.f, "\n"), done);
    }
    orig_ctx oc = {m->node_orig, NULL};
    HS_CALL_GOTO(hs_atomic_file_printf(w.f, "SCALARS node_orig int 1\nLOOKUP_TABLE default\n"), done);
    HS_CALL_GOTO(put_i32(&w, at_orig, &oc, nn), done);
    HS_CALL_GOTO(hs_atomic_file_printf(w.f, "\n"), done);
    st = hs_atomic_file_commit(&w.f);
done:
    writer_close(&w);
    return st;
}

hs_status hs_vtk_write_surface(const char *path, const hs_mesh *m)
{
    hs_status st = HS_OK;
    writer w = {NULL, NULL};
    int32_t *local = NULL, *pick = NULL;
    const size_t nf = (size_t)m->n_bfaces;
    /* the points the triangles use, numbered in first-use order */
    HS_CALL(HS_ALLOC(local, m->n_nodes > 0 ? m->n_nodes : 1, "surface point numbering"));
    HS_CALL_GOTO(HS_ALLOC(pick, 3 * nf + 1, "surface points"), done);
    for (int32_t i = 0; i < m->n_nodes; ++i) local[i] = -1;
    size_t np = 0;
    for (size_t k = 0; k < 3 * nf; ++k) {
        int32_t v = m->bface[k];
        HS_CHECK_GOTO(v >= 0 && v < m->n_nodes, done, HS_ERR_INTERNAL,
                      "boundary triangle %zu has node index %d outside [0, %d)", k / 3, (int)v, (int)m->n_nodes);
        if (local[v] < 0) local[v] = (int32_t)np, pick[np++] = v;
    }
    HS_CALL_GOTO(writer_open(&w, path, "VTK surface"), done);
    HS_CALL_GOTO(hs_atomic_file_printf(w.f, "# vtk DataFile Version 3.0\nheartsim labelled boundary\nBINARY\n"
                                            "DATASET POLYDATA\nPOINTS %zu double\n", np), done);
    for (size_t i = 0; i < np; ++i) HS_CALL_GOTO(put_f64(&w, m->xyz + 3 * (size_t)pick[i], 3), done);
    tri_ctx tc = {m->bface, local};
    HS_CALL_GOTO(hs_atomic_file_printf(w.f, "\nPOLYGONS %zu %zu\n", nf, 4 * nf), done);
    HS_CALL_GOTO(put_i32(&w, at_tri_row, &tc, 4 * nf), done);
    HS_CALL_GOTO(hs_atomic_file_printf(w.f, "\nCELL_DATA %zu\nSCALARS label int 1\nLOOKUP_TABLE default\n", nf),
                 done);
    HS_CALL_GOTO(put_i32(&w, m->bface_label ? at_array : at_zero, m->bface_label, nf), done);
    orig_ctx oc = {m->node_orig, pick};
    HS_CALL_GOTO(hs_atomic_file_printf(w.f, "\nPOINT_DATA %zu\nSCALARS node_orig int 1\nLOOKUP_TABLE default\n",
                                       np), done);
    HS_CALL_GOTO(put_i32(&w, at_orig, &oc, np), done);
    HS_CALL_GOTO(hs_atomic_file_printf(w.f, "\n"), done);
    st = hs_atomic_file_commit(&w.f);
done:
    writer_close(&w);
    free(local);
    free(pick);
    return st;
}
