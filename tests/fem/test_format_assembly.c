/*
 * Assembly straight into each SpMV format (the gather map writes K's nonzero k into the format's
 * slot slot_of_nnz[k]) equals CSR assembly followed by conversion, padding included (issue 4). Both
 * paths perform the same additions in the same order for every nonzero, so the arrays must match
 * bit for bit; the padding slots must stay exactly zero.
 */
#include <stdlib.h>
#include <string.h>

#include "hs_element.h"
#include "hs_models.h"
#include "hs_fem.h"
#include "hs_spmv.h"
#include "hs_test.h"

static double urand(unsigned *s) { *s = *s * 1664525u + 1013904223u; return (*s >> 8) / 16777216.0; }

int main(void)
{
    hs_box_params bp = {.lx = 2.0, .ly = 1.5, .lz = 1.0, .h = 0.25};
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_create_box(&bp, &m));
    double dir[3] = {1, 0, 0};
    HS_TEST_OK(hs_mesh_set_fibers_constant(m, dir));
    hs_fem_geom *g = NULL;
    hs_csr *pat = NULL;
    hs_assembly_map *map = NULL;
    HS_TEST_OK(hs_fem_geom_create(m, 0.3 * 12.9, 0.9 * 12.9, &g));
    HS_TEST_OK(hs_csr_from_tets(m->n_nodes, m->n_elems, m->tets, &pat));
    HS_TEST_OK(hs_assembly_map_create(m, pat, &map));
    if (!g || !pat || !map) HS_TEST_RETURN();
    int32_t ne = m->n_elems, nn = m->n_nodes;
    double *ke = malloc(sizeof(double) * 16 * ne), *re = malloc(sizeof(double) * 4 * ne);
    double *phi = malloc(sizeof(double) * nn), *phin = malloc(sizeof(double) * nn);
    unsigned s = 5;
    for (int32_t i = 0; i < nn; ++i) { phi[i] = urand(&s); phin[i] = phi[i] * 0.9; }
    hs_model_params ap; /* the default model with its default parameters */
    hs_model_params_defaults(hs_models_at(0), &ap);
    for (int32_t e = 0; e < ne; ++e) {
        const int32_t *t = m->tets + 4 * e;
        double ph[4], pn[4], r[HS_MODEL_MAX_VARS] = {0.3 * urand(&s)}; /* sized for any model: the dispatch */
        for (int a = 0; a < 4; ++a) { ph[a] = phi[t[a]]; pn[a] = phin[t[a]]; }
        double rn[HS_MODEL_MAX_VARS] = {r[0]};
        hs_element_eval(&ap, 0.01, g->vol[e], g->kd + 10 * e, ph, pn, 0.0, rn, r, ke + 16 * e, re + 4 * e);
    }
    double *kcsr = malloc(sizeof(double) * pat->nnz);
    hs_assemble_k(map, ke, NULL, kcsr);
    for (int f = 0; f < hs_spmv_count(); ++f) {
        const hs_spmv_ops *o = hs_spmv_get(f);
        hs_spmv_layout *lay = NULL;
        HS_TEST_OK(hs_spmv_layout_create(o, pat, NULL, &lay));
        if (!lay) continue;
        double *direct = calloc((size_t)lay->n_slots + 1, sizeof(double));
        double *conv = malloc(sizeof(double) * ((size_t)lay->n_slots + 1));
        hs_assemble_k(map, ke, lay->slot_of_nnz, direct);
        hs_spmv_layout_scatter(lay, pat->nnz, kcsr, conv);
        HS_TEST_CHECK(memcmp(direct, conv, sizeof(double) * (size_t)lay->n_slots) == 0,
                      "%s: assembly into the format differs from CSR assembly + conversion", o->name);
        /* padding: slots no nonzero maps to are zero */
        char *used = calloc((size_t)lay->n_slots + 1, 1);
        for (int32_t k = 0; k < pat->nnz; ++k) used[lay->slot_of_nnz[k]] = 1;
        int64_t nonzero_pad = 0;
        for (int64_t q = 0; q < lay->n_slots; ++q) if (!used[q] && direct[q] != 0.0) ++nonzero_pad;
        HS_TEST_CHECK(nonzero_pad == 0, "%s: %lld padding slots are not zero", o->name, (long long)nonzero_pad);
        free(used); free(direct); free(conv);
        hs_spmv_layout_destroy(&lay);
    }
    free(ke); free(re); free(phi); free(phin); free(kcsr);
    hs_assembly_map_destroy(&map);
    hs_csr_destroy(&pat);
    hs_fem_geom_destroy(&g);
    hs_mesh_destroy(&m);
    HS_TEST_RETURN();
}
