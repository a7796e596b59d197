/*
 * "K_elem . 1" gather-map assembly (seed 002 sec. 4) against direct element-by-element scatter-add,
 * and symmetry of the assembled tangent, on a mesh in an excited state (random phi, r, fibres).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_element.h"
#include "hs_models.h"
#include "hs_fem.h"
#include "hs_test.h"

static double urand(unsigned *s) { *s = *s * 1664525u + 1013904223u; return (*s >> 8) / 16777216.0; }

int main(void)
{
    hs_box_params bp = {.lx = 3.0, .ly = 2.0, .lz = 1.5, .h = 0.5};
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_create_box(&bp, &m));
    if (!m) HS_TEST_RETURN();
    double dir[3] = {1.0, 0.5, 0.2};
    HS_TEST_OK(hs_mesh_set_fibers_constant(m, dir));
    unsigned s = 42;
    /* vary the fibres per element so anisotropy differs element to element */
    for (int32_t e = 0; e < m->n_elems; ++e) {
        double *n = m->fiber + 3 * e, a = 6.283185307179586 * urand(&s);
        n[0] = cos(a); n[1] = sin(a); n[2] = 0.0;
    }
    hs_fem_geom *g = NULL;
    hs_csr *pat = NULL;
    hs_assembly_map *map = NULL;
    HS_TEST_OK(hs_fem_geom_create(m, 0.3 * 12.9, 0.9 * 12.9, &g));
    HS_TEST_OK(hs_csr_from_tets(m->n_nodes, m->n_elems, m->tets, &pat));
    HS_TEST_OK(hs_assembly_map_create(m, pat, &map));
    if (!g || !pat || !map) HS_TEST_RETURN();

    int32_t nn = m->n_nodes, ne = m->n_elems, nnz = pat->nnz;
    double *phi = malloc(sizeof(double) * nn), *phin = malloc(sizeof(double) * nn);
    double *ke = malloc(sizeof(double) * 16 * ne), *re = malloc(sizeof(double) * 4 * ne);
    for (int32_t i = 0; i < nn; ++i) { phi[i] = urand(&s); phin[i] = phi[i] - 0.1 * urand(&s); }
    hs_model_params ap; /* the default model with its default parameters */
    hs_model_params_defaults(hs_models_at(0), &ap);
    for (int32_t e = 0; e < ne; ++e) {
        const int32_t *t = m->tets + 4 * e;
        /* the variables sized for any model: hs_model_point dispatches at run time */
        double ph[4], pn[4], r[HS_MODEL_MAX_VARS] = {0.5 * urand(&s)}, rn[HS_MODEL_MAX_VARS] = {r[0]};
        for (int a = 0; a < 4; ++a) { ph[a] = phi[t[a]]; pn[a] = phin[t[a]]; }
        hs_element_eval(&ap, 0.01, g->vol[e], g->kd + 10 * e, ph, pn, 0.0, rn, r, ke + 16 * e, re + 4 * e);
    }
    /* gather-map assembly */
    double *kg = malloc(sizeof(double) * nnz), *rg = malloc(sizeof(double) * nn);
    hs_assemble_k(map, ke, NULL, kg);
    hs_assemble_r(map, re, rg);
    /* direct assembly: scatter-add element by element, plus sum of |contributions| for the bound */
    double *kd_ = calloc(nnz, sizeof(double)), *ka = calloc(nnz, sizeof(double)), *kc = calloc(nnz, sizeof(double));
    double *rd = calloc(nn, sizeof(double)), *ra = calloc(nn, sizeof(double)), *rc = calloc(nn, sizeof(double));
    for (int32_t e = 0; e < ne; ++e)
        for (int a = 0; a < 4; ++a) {
            int32_t i = m->tets[4 * e + a];
            rd[i] += re[4 * e + a]; ra[i] += fabs(re[4 * e + a]); rc[i] += 1;
            for (int b = 0; b < 4; ++b) {
                int32_t k = hs_csr_find(pat, i, m->tets[4 * e + b]);
                kd_[k] += ke[16 * e + 4 * a + b]; ka[k] += fabs(ke[16 * e + 4 * a + b]); kc[k] += 1;
            }
        }
    /* Both are sums of the same n terms in some order: |diff| <= 2 gamma_n sum |terms|. */
    int bad = 0;
    for (int32_t k = 0; k < nnz; ++k)
        if (fabs(kg[k] - kd_[k]) > 2 * kc[k] * DBL_EPSILON * ka[k]) ++bad;
    HS_TEST_CHECK(bad == 0, "%d of %d K entries differ from direct assembly", bad, nnz);
    bad = 0;
    for (int32_t i = 0; i < nn; ++i)
        if (fabs(rg[i] - rd[i]) > 2 * rc[i] * DBL_EPSILON * ra[i]) ++bad;
    HS_TEST_CHECK(bad == 0, "%d of %d R entries differ from direct assembly", bad, nn);
    /* every contribution used exactly once */
    HS_TEST_CHECK(map->k_ptr[nnz] == 16 * ne && map->r_ptr[nn] == 4 * ne, "gather map sizes");

    /* Symmetry: |x'Ky - y'Kx| small against |x|'|K||y| (two SpMVs and two dots of n terms). */
    double *own_val = pat->val;
    pat->val = kg; /* borrow */
    double *x = malloc(sizeof(double) * nn), *y = malloc(sizeof(double) * nn), *kx = malloc(sizeof(double) * nn),
           *ky = malloc(sizeof(double) * nn), *ax = malloc(sizeof(double) * nn), *ay = malloc(sizeof(double) * nn);
    for (int32_t i = 0; i < nn; ++i) { x[i] = urand(&s) - 0.5; y[i] = urand(&s) - 0.5; ay[i] = fabs(y[i]); }
    hs_csr_spmv(pat, x, kx);
    hs_csr_spmv(pat, y, ky);
    hs_csr_spmv_abs(pat, y, ax);
    double xky = 0, ykx = 0, scale = 0;
    for (int32_t i = 0; i < nn; ++i) { xky += x[i] * ky[i]; ykx += y[i] * kx[i]; scale += fabs(x[i]) * ax[i]; }
    int maxrow = 0;
    for (int32_t i = 0; i < nn; ++i) if (pat->row_ptr[i + 1] - pat->row_ptr[i] > maxrow) maxrow = pat->row_ptr[i + 1] - pat->row_ptr[i];
    double tol = 2.0 * (maxrow + nn) * DBL_EPSILON * scale;
    HS_TEST_CHECK(fabs(xky - ykx) <= tol, "x'Ky - y'Kx = %.3e > %.3e", xky - ykx, tol);
    /* and entrywise: K_ij == K_ji (same terms, same order) */
    bad = 0;
    for (int32_t i = 0; i < nn; ++i)
        for (int32_t k = pat->row_ptr[i]; k < pat->row_ptr[i + 1]; ++k)
            if (kg[k] != kg[hs_csr_find(pat, pat->col[k], i)]) ++bad;
    HS_TEST_CHECK(bad == 0, "%d entries with K_ij != K_ji", bad);
    pat->val = own_val;

    free(phi); free(phin); free(ke); free(re); free(kg); free(rg); free(kd_); free(ka); free(kc);
    free(rd); free(ra); free(rc); free(x); free(y); free(kx); free(ky); free(ax); free(ay);
    hs_assembly_map_destroy(&map);
    hs_csr_destroy(&pat);
    hs_fem_geom_destroy(&g);
    hs_mesh_destroy(&m);
    HS_TEST_RETURN();
}
