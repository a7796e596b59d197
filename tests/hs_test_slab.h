/*
 * A box of NX x NY x NZ nodes (6 tetrahedra a cube) cut into slabs of node layers, one a rank, with
 * known values at every node and element: the part series tests' mesh (tests/parallel/test_series_stream.c,
 * tests/output/test_xdmf_h5_stream.c). hs_test_slab_part builds a rank's slab as an hs_series_part holds
 * it (global indices, the elements in reverse: a part's rows come in any order); hs_test_slab_whole the
 * same box serially as an hs_mesh, for the files the part series must equal.
 */
#ifndef HS_TEST_SLAB_H
#define HS_TEST_SLAB_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hs_mesh.h"
#include "hs_test.h"

enum { HS_TEST_SLAB_NX = 40, HS_TEST_SLAB_NY = 48, HS_TEST_SLAB_NZ = 56 };

static inline int64_t hs_test_slab_node(int64_t i, int64_t j, int64_t k)
{
    return i + HS_TEST_SLAB_NX * (j + HS_TEST_SLAB_NY * k);
}

/* the cube (i, j, k)'s six tetrahedra, one per path from its first corner to the opposite one */
static inline void hs_test_slab_cube(int64_t i, int64_t j, int64_t k, int64_t t[6][4])
{
    static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (int p = 0; p < 6; ++p) {
        int64_t v[3] = {i, j, k};
        t[p][0] = hs_test_slab_node(v[0], v[1], v[2]);
        for (int s = 0; s < 3; ++s) {
            ++v[perm[p][s]];
            t[p][s + 1] = hs_test_slab_node(v[0], v[1], v[2]);
        }
    }
}

static inline double hs_test_slab_elem_value(int64_t e) { return 0.25 * (double)e + 0.125; }

static inline void hs_test_slab_fiber(int64_t e, double f[3])
{
    f[0] = 0.01 * (double)e;
    f[1] = 1.0;
    f[2] = -2.0 + 1e-3 * (double)(e % 7);
}

/** A rank's slab: node layers [k0, k1), cube layers [c0, c1); a: node values, r: element values. */
typedef struct hs_test_slab {
    int64_t n_nodes_global, n_elems_global;
    int32_t nn, ne;
    int64_t *ngid, *egid, *tets;
    double *xyz, *fiber, *a, *r;
    int32_t *region;
} hs_test_slab;

static inline void hs_test_slab_part(int rank, int size, double (*node_value)(int64_t), hs_test_slab *s)
{
    const int64_t NX = HS_TEST_SLAB_NX, NY = HS_TEST_SLAB_NY, NZ = HS_TEST_SLAB_NZ;
    const int64_t k0 = NZ * rank / size, k1 = NZ * (rank + 1) / size;
    const int64_t c0 = (NZ - 1) * rank / size, c1 = (NZ - 1) * (rank + 1) / size;
    memset(s, 0, sizeof *s);
    s->n_nodes_global = NX * NY * NZ;
    s->n_elems_global = 6 * (NX - 1) * (NY - 1) * (NZ - 1);
    s->nn = (int32_t)((k1 - k0) * NX * NY);
    s->ne = (int32_t)(6 * (c1 - c0) * (NX - 1) * (NY - 1));
    s->ngid = malloc(sizeof *s->ngid * ((size_t)s->nn + 1));
    s->egid = malloc(sizeof *s->egid * ((size_t)s->ne + 1));
    s->tets = malloc(sizeof *s->tets * (4 * (size_t)s->ne + 4));
    s->xyz = malloc(sizeof *s->xyz * (3 * (size_t)s->nn + 3));
    s->fiber = malloc(sizeof *s->fiber * (3 * (size_t)s->ne + 3));
    s->a = malloc(sizeof *s->a * ((size_t)s->nn + 1));
    s->r = malloc(sizeof *s->r * ((size_t)s->ne + 1));
    s->region = malloc(sizeof *s->region * ((size_t)s->ne + 1));
    int32_t q = 0;
    for (int64_t k = k0; k < k1; ++k)
        for (int64_t j = 0; j < NY; ++j)
            for (int64_t i = 0; i < NX; ++i, ++q) {
                s->ngid[q] = hs_test_slab_node(i, j, k);
                s->xyz[3 * q] = 0.5 * (double)i, s->xyz[3 * q + 1] = 0.5 * (double)j, s->xyz[3 * q + 2] = 0.25 * (double)k;
                s->a[q] = node_value(s->ngid[q]);
            }
    q = s->ne; /* the elements in reverse: a part's rows come in any order */
    for (int64_t k = c0; k < c1; ++k)
        for (int64_t j = 0; j < NY - 1; ++j)
            for (int64_t i = 0; i < NX - 1; ++i) {
                int64_t t[6][4];
                hs_test_slab_cube(i, j, k, t);
                for (int p = 0; p < 6; ++p) {
                    --q;
                    s->egid[q] = 6 * (i + (NX - 1) * (j + (NY - 1) * k)) + p;
                    memcpy(s->tets + 4 * (size_t)q, t[p], sizeof t[p]);
                    s->region[q] = (int32_t)(s->egid[q] % 3);
                    hs_test_slab_fiber(s->egid[q], s->fiber + 3 * (size_t)q);
                    s->r[q] = hs_test_slab_elem_value(s->egid[q]);
                }
            }
    HS_TEST_CHECK(q == 0, "rank %d: %d elements left", rank, (int)q);
}

static inline void hs_test_slab_free(hs_test_slab *s)
{
    free(s->ngid);
    free(s->egid);
    free(s->tets);
    free(s->xyz);
    free(s->fiber);
    free(s->a);
    free(s->r);
    free(s->region);
    memset(s, 0, sizeof *s);
}

/** The whole box serially, with its fibres and regions; @p ga [nodes] and @p gr [elements] get the values
 *  (the caller frees them and destroys the mesh). */
static inline hs_mesh *hs_test_slab_whole(double (*node_value)(int64_t), double **ga, double **gr)
{
    const int64_t NX = HS_TEST_SLAB_NX, NY = HS_TEST_SLAB_NY, NZ = HS_TEST_SLAB_NZ;
    const int64_t n_nodes = NX * NY * NZ, n_elems = 6 * (NX - 1) * (NY - 1) * (NZ - 1);
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_alloc((int32_t)n_nodes, (int32_t)n_elems, &m));
    m->fiber = malloc(sizeof(double) * 3 * (size_t)n_elems);
    *ga = malloc(sizeof **ga * (size_t)n_nodes);
    *gr = malloc(sizeof **gr * (size_t)n_elems);
    for (int64_t k = 0; k < NZ; ++k)
        for (int64_t j = 0; j < NY; ++j)
            for (int64_t i = 0; i < NX; ++i) {
                const int64_t g = hs_test_slab_node(i, j, k);
                m->xyz[3 * g] = 0.5 * (double)i, m->xyz[3 * g + 1] = 0.5 * (double)j;
                m->xyz[3 * g + 2] = 0.25 * (double)k;
                (*ga)[g] = node_value(g);
            }
    for (int64_t k = 0; k < NZ - 1; ++k)
        for (int64_t j = 0; j < NY - 1; ++j)
            for (int64_t i = 0; i < NX - 1; ++i) {
                int64_t t[6][4];
                hs_test_slab_cube(i, j, k, t);
                for (int p = 0; p < 6; ++p) {
                    const int64_t e = 6 * (i + (NX - 1) * (j + (NY - 1) * k)) + p;
                    for (int v = 0; v < 4; ++v) m->tets[4 * e + v] = (int32_t)t[p][v];
                    m->region[e] = (int32_t)(e % 3);
                    hs_test_slab_fiber(e, m->fiber + 3 * e);
                    (*gr)[e] = hs_test_slab_elem_value(e);
                }
            }
    return m;
}

#endif
