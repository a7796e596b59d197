/**
 * @file output_test_frame.h
 * @brief Field values for the output tests, different in every frame k, and frames built from
 * them the way the run builds its frames (app/frame_writer.c): phi, V = 100 phi - 80 (mapped from
 * phi), activation, r, then the mesh's fibre and region, each when its TF_* bit is set.
 */
#ifndef OUTPUT_TEST_FRAME_H
#define OUTPUT_TEST_FRAME_H

#include <stdlib.h>
#include <string.h>

#include "hs_frame.h"
#include "hs_mesh.h"

enum { TF_PHI = 1, TF_V = 2, TF_ACT = 4, TF_R = 8, TF_FIBER = 16, TF_REGION = 32, TF_ALL = 63 };

/* phi is a multiple of 1/64, so V = 100 phi - 80 is exact however the writer evaluates it. */
static inline double phi_value(int i, int k) { return (double)((i * 37 + k * 11) % 80) / 64.0 - 0.125; }
/* activation and r are not binary fractions: exact read-back proves all 64 bits survive, and
 * float32 rounding shows (it must equal (float)x). */
static inline double activation_value(int i, int k) { return (i + k) % 3 == 0 ? -1.0 : 0.1 * i + 0.01 * k; }
static inline double r_value(int e, int k) { return 1.0 / (3.0 + e + 7 * k); }

typedef struct frame_arrays {
    double *phi, *act, *r; /* [n_nodes], [n_nodes], [n_elems] */
} frame_arrays;

static inline void fill_frame(const hs_mesh *m, int k, frame_arrays *a)
{
    a->phi = malloc(sizeof(double) * (size_t)m->n_nodes);
    a->act = malloc(sizeof(double) * (size_t)m->n_nodes);
    a->r = malloc(sizeof(double) * (size_t)m->n_elems);
    if (!a->phi || !a->act || !a->r) abort();
    for (int i = 0; i < m->n_nodes; ++i) {
        a->phi[i] = phi_value(i, k);
        a->act[i] = activation_value(i, k);
    }
    for (int e = 0; e < m->n_elems; ++e) a->r[e] = r_value(e, k);
}

static inline void free_frame(frame_arrays *a)
{
    free(a->phi);
    free(a->act);
    free(a->r);
    memset(a, 0, sizeof *a);
}

/** The frame at @p t of the TF_* fields in @p bits over @p phi, @p act, @p r (a NULL array leaves
 * its fields out, as the run does with a buffer it does not have). */
static inline hs_frame test_frame_of(double t, int bits, const double *phi, const double *act, const double *r)
{
    hs_frame fr = hs_frame_at(t);
    if ((bits & TF_PHI) && phi) (void)hs_frame_add(&fr, "phi", 0, phi);
    if ((bits & TF_V) && phi) (void)hs_frame_add_mapped(&fr, "V", 0, phi, 100.0, -80.0);
    if ((bits & TF_ACT) && act) (void)hs_frame_add(&fr, "activation", 0, act);
    if ((bits & TF_R) && r) (void)hs_frame_add(&fr, "r", 1, r);
    fr.mesh_fields = (bits & TF_FIBER ? HS_MESH_FIELD_FIBER : 0) | (bits & TF_REGION ? HS_MESH_FIELD_REGION : 0);
    return fr;
}

static inline hs_frame test_frame(double t, int bits, const frame_arrays *a)
{
    return test_frame_of(t, bits, a->phi, a->act, a->r);
}

#endif
