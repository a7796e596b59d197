/*
 * The split assembly (fem/hs_assembly.h, issue 17) against the full one on the same state, for
 * every SpMV format: K and R agree within the rounding of the two summation orders, K_D and K are
 * symmetric bit for bit, padding slots stay zero, and the element's two scalars come from the same
 * model update as its full matrix.
 *
 * Bounds (u = eps/2, S = the sum of the magnitudes of the terms, m = elements of the entry):
 *  K_ij: full sums m rounded terms fl(kd_e + km_e); split sums the m kd_e (into K_D) and then the m
 *        km_e. Each is within gamma_{2m} S of the exact sum (Higham, Accuracy and Stability, 4.2),
 *        so they differ by at most 2 gamma_{2m} S ~ 4 m u S.
 *  R_i:  full: per element rm + sum_b kd_ab phi_b (4 products, 4 additions), then the m element
 *        values; split: the row of K_D (its entries sums of kd) times phi, then the m rm. Both are
 *        sums of at most n = 6 m + len(row) + 2 rounded terms: they differ by at most 2 gamma_n S.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_assembly.h"
#include "hs_element.h"
#include "hs_fem.h"
#include "hs_models.h"
#include "hs_problem.h"
#include "hs_spmv.h"
#include "hs_test.h"

static double urand(unsigned *s) { *s = *s * 1664525u + 1013904223u; return (*s >> 8) / 16777216.0; }

int main(void)
{
    const double u = DBL_EPSILON / 2;
    hs_box_params bp = {.lx = 2.0, .ly = 1.5, .lz = 1.0, .h = 0.25};
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_create_box(&bp, &m));
    double dir[3] = {0.6, 0.8, 0};
    HS_TEST_OK(hs_mesh_set_fibers_constant(m, dir));
    hs_fem_geom *g = NULL;
    hs_csr *pat = NULL;
    hs_assembly_map *map = NULL;
    hs_split_map *sm = NULL;
    HS_TEST_OK(hs_fem_geom_create(m, 0.3 * 12.9, 0.9 * 12.9, &g));
    HS_TEST_OK(hs_csr_from_tets(m->n_nodes, m->n_elems, m->tets, &pat));
    HS_TEST_OK(hs_assembly_map_create(m, pat, &map));
    if (map) HS_TEST_OK(hs_split_map_create(pat, map, g->kd, &sm));
    if (!g || !pat || !map || !sm) HS_TEST_RETURN();
    const int32_t ne = m->n_elems, nn = m->n_nodes, nnz = pat->nnz;
    HS_TEST_CHECK(2 * (int64_t)sm->n_pairs - nn == nnz, "pairs %d for %d nonzeros", sm->n_pairs, nnz);
    HS_TEST_CHECK(sm->p_ptr[sm->n_pairs] == 10 * (int64_t)ne, "pair lists hold %lld entries, 10 per element is %d",
                  (long long)sm->p_ptr[sm->n_pairs], 10 * ne);
    /* the devices' pair order: the off-diagonal pairs (upper triangle, row by row), then node i's
     * diagonal at n_off + i */
    int order_bad = 0;
    HS_TEST_CHECK(sm->n_off == (nnz - nn) / 2, "%d off-diagonal pairs, expected %d", sm->n_off, (nnz - nn) / 2);
    for (int32_t q = 0; q < sm->n_pairs; ++q) {
        const int32_t k = sm->p_pos[2 * q], kl = sm->p_pos[2 * q + 1];
        int32_t row = 0;
        while (pat->row_ptr[row + 1] <= k) ++row;
        if (q < sm->n_off) order_bad += !(pat->col[k] > row && (q == 0 || k > sm->p_pos[2 * q - 2]) &&
                                          kl == hs_csr_find(pat, pat->col[k], row));
        else order_bad += !(k == kl && k == map->diag[q - sm->n_off]);
    }
    HS_TEST_CHECK(order_bad == 0, "%d pairs out of the devices' order", order_bad);

    /* the map from the mesh and the R lists alone (what a problem builds) equals the reference from
     * the full map bit for bit, and has no K lists */
    {
        hs_assembly_map *rmap = NULL;
        hs_split_map *sm2 = NULL;
        HS_TEST_OK(hs_assembly_map_create_r(m, pat, &rmap));
        const hs_kd_source stored = {g->kd, 0, 0, NULL};
        if (rmap) HS_TEST_OK(hs_split_map_create_mesh(m, pat, rmap, &stored, &sm2));
        if (rmap && sm2) {
            HS_TEST_CHECK(rmap->k_ptr == NULL && rmap->k_src == NULL, "the R-only map has K lists");
            HS_TEST_CHECK(!memcmp(rmap->r_ptr, map->r_ptr, sizeof(int32_t) * (nn + 1)) &&
                              !memcmp(rmap->r_src, map->r_src, sizeof(int32_t) * 4 * ne) &&
                              !memcmp(rmap->diag, map->diag, sizeof(int32_t) * nn),
                          "the R-only map's R lists differ from the full map's");
            const int32_t np = sm->n_pairs;
            HS_TEST_CHECK(sm2->n_pairs == np && sm2->n_off == sm->n_off, "pairs %d/%d vs %d/%d", sm2->n_pairs,
                          sm2->n_off, np, sm->n_off);
            if (sm2->n_pairs == np) {
                HS_TEST_CHECK(!memcmp(sm2->p_ptr, sm->p_ptr, sizeof(int64_t) * (np + 1)), "p_ptr differs");
                HS_TEST_CHECK(!memcmp(sm2->p_elem, sm->p_elem, sizeof(int32_t) * 10 * ne), "p_elem differs");
                HS_TEST_CHECK(!memcmp(sm2->p_pos, sm->p_pos, sizeof(int32_t) * 2 * np), "p_pos differs");
                HS_TEST_CHECK(!memcmp(sm2->kd_pair, sm->kd_pair, sizeof(double) * np), "kd_pair differs in bits");
                HS_TEST_CHECK(!memcmp(sm2->kd_csr, sm->kd_csr, sizeof(double) * nnz), "kd_csr differs in bits");
            }
        }
        hs_split_map_destroy(&sm2);
        /* the matrices computed in chunks (none stored): the same bits again */
        const hs_kd_source computed = {NULL, 0.3 * 12.9, 0.9 * 12.9, NULL};
        if (rmap) HS_TEST_OK(hs_split_map_create_mesh(m, pat, rmap, &computed, &sm2));
        if (sm2)
            HS_TEST_CHECK(sm2->n_pairs == sm->n_pairs && !memcmp(sm2->kd_csr, sm->kd_csr, sizeof(double) * nnz) &&
                              !memcmp(sm2->kd_pair, sm->kd_pair, sizeof(double) * sm->n_pairs) &&
                              !memcmp(sm2->p_elem, sm->p_elem, sizeof(int32_t) * 10 * ne),
                          "computed element matrices: the map differs from the reference's");
        hs_split_map_destroy(&sm2);
        hs_assembly_map_destroy(&rmap);
    }
    /* several chunks of computed matrices (8192 elements or 1/8 of them each): 18,000 elements */
    {
        hs_box_params bq = {.lx = 2.0, .ly = 1.5, .lz = 1.0, .h = 0.1};
        hs_mesh *m2 = NULL;
        hs_fem_geom *g2 = NULL;
        hs_csr *pat2 = NULL;
        hs_assembly_map *full2 = NULL, *rmap2 = NULL;
        hs_split_map *ref2 = NULL, *sm3 = NULL;
        HS_TEST_OK(hs_mesh_create_box(&bq, &m2));
        if (m2) HS_TEST_OK(hs_mesh_set_fibers_constant(m2, dir));
        if (m2) HS_TEST_OK(hs_fem_geom_create(m2, 0.3 * 12.9, 0.9 * 12.9, &g2));
        if (g2) HS_TEST_OK(hs_csr_from_tets(m2->n_nodes, m2->n_elems, m2->tets, &pat2));
        if (pat2) HS_TEST_OK(hs_assembly_map_create(m2, pat2, &full2));
        if (pat2) HS_TEST_OK(hs_assembly_map_create_r(m2, pat2, &rmap2));
        if (full2) HS_TEST_OK(hs_split_map_create(pat2, full2, g2->kd, &ref2));
        const hs_kd_source computed = {NULL, 0.3 * 12.9, 0.9 * 12.9, NULL};
        if (rmap2) HS_TEST_OK(hs_split_map_create_mesh(m2, pat2, rmap2, &computed, &sm3));
        if (ref2 && sm3) {
            HS_TEST_CHECK(m2->n_elems > 2 * 8192, "%d elements: one chunk only", m2->n_elems);
            const int32_t np = ref2->n_pairs;
            HS_TEST_CHECK(sm3->n_pairs == np && !memcmp(sm3->kd_csr, ref2->kd_csr, sizeof(double) * pat2->nnz) &&
                              !memcmp(sm3->kd_pair, ref2->kd_pair, sizeof(double) * np) &&
                              !memcmp(sm3->p_ptr, ref2->p_ptr, sizeof(int64_t) * (np + 1)) &&
                              !memcmp(sm3->p_elem, ref2->p_elem, sizeof(int32_t) * 10 * m2->n_elems) &&
                              !memcmp(sm3->p_pos, ref2->p_pos, sizeof(int32_t) * 2 * np),
                          "chunked element matrices: the map differs from the reference's");
        }
        hs_split_map_destroy(&sm3);
        hs_split_map_destroy(&ref2);
        hs_assembly_map_destroy(&rmap2);
        hs_assembly_map_destroy(&full2);
        hs_csr_destroy(&pat2);
        hs_fem_geom_destroy(&g2);
        hs_mesh_destroy(&m2);
    }
    /* a problem of the split assembly (Newton) keeps no K lists and no element matrices kd (host
     * memory, issue 26), and its K_D is the reference's bit for bit */
    {
        hs_problem_opts o;
        memset(&o, 0, sizeof o);
        o.model = hs_models_at(0);
        hs_model_params_defaults(o.model, &o.model_prm);
        o.time_unit = 1.0;
        o.d_iso = 0.3 * 12.9, o.d_ani = 0.9 * 12.9;
        o.assembly = HS_ASSEMBLY_SPLIT;
        hs_problem *p = NULL;
        HS_TEST_OK(hs_problem_create(m, NULL, &o, NULL, &p));
        if (p) {
            HS_TEST_CHECK(p->map && !p->map->k_ptr && !p->map->k_src && p->map->r_src, "split problem: K lists kept");
            HS_TEST_CHECK(p->geom->kd == NULL, "split problem: the element matrices kd kept");
            HS_TEST_CHECK(p->split && p->split->n_pairs == sm->n_pairs &&
                              !memcmp(p->split->kd_csr, sm->kd_csr, sizeof(double) * nnz),
                          "split problem: K_D differs from the reference's");
        }
        hs_problem_destroy(&p);
        o.assembly = HS_ASSEMBLY_FULL;
        HS_TEST_OK(hs_problem_create(m, NULL, &o, NULL, &p));
        if (p) HS_TEST_CHECK(p->map->k_src && p->geom->kd && !p->split, "full problem: K lists or kd missing");
        hs_problem_destroy(&p);
    }

    /* an excited random state of the default model (Aliev-Panfilov, one variable) */
    double *ke = malloc(sizeof(double) * 16 * ne), *re = malloc(sizeof(double) * 4 * ne);
    double *km = malloc(sizeof(double) * ne), *rm = malloc(sizeof(double) * ne);
    double *phi = malloc(sizeof(double) * nn), *phin = malloc(sizeof(double) * nn);
    unsigned s = 7;
    for (int32_t i = 0; i < nn; ++i) { phi[i] = urand(&s); phin[i] = phi[i] * 0.9; }
    hs_model_params ap;
    hs_model_params_defaults(hs_models_at(0), &ap);
    int state_differs = 0;
    for (int32_t e = 0; e < ne; ++e) {
        const int32_t *t = m->tets + 4 * e;
        /* the variables sized for any model: hs_model_point dispatches at run time */
        double ph[4], pn[4], rn[HS_MODEL_MAX_VARS] = {0.3 * urand(&s)}, r1[HS_MODEL_MAX_VARS] = {rn[0]},
               r2[HS_MODEL_MAX_VARS] = {rn[0]}, stim = e % 7 == 0 ? 0.5 : 0.0;
        for (int a = 0; a < 4; ++a) { ph[a] = phi[t[a]]; pn[a] = phin[t[a]]; }
        hs_element_eval(&ap, 0.01, g->vol[e], g->kd + 10 * e, ph, pn, stim, rn, r1, ke + 16 * e, re + 4 * e);
        hs_element_point(&ap, 0.01, g->vol[e], ph, pn, stim, rn, r2, km + e, rm + e);
        state_differs += r1[0] != r2[0];
    }
    HS_TEST_CHECK(state_differs == 0, "%d elements: the model update differs between the two forms", state_differs);

    /* K_D symmetric bit for bit */
    int asym = 0;
    for (int32_t i = 0; i < nn; ++i)
        for (int32_t k = pat->row_ptr[i]; k < pat->row_ptr[i + 1]; ++k)
            asym += sm->kd_csr[k] != sm->kd_csr[hs_csr_find(pat, pat->col[k], i)];
    HS_TEST_CHECK(asym == 0, "K_D: %d entries differ from their transpose", asym);

    /* R */
    double *rf = malloc(sizeof(double) * nn), *rs = malloc(sizeof(double) * nn);
    hs_assemble_r(map, re, rf);
    hs_split_assemble_r(sm, pat, map, phi, rm, rs);
    int badr = 0;
    double worst_r = 0.0;
    for (int32_t i = 0; i < nn; ++i) {
        double S = 0.0;
        int mi = map->r_ptr[i + 1] - map->r_ptr[i];
        for (int32_t j = map->r_ptr[i]; j < map->r_ptr[i + 1]; ++j) {
            int32_t e = map->r_src[j] / 4, a = map->r_src[j] % 4;
            S += fabs(rm[e]);
            for (int b = 0; b < 4; ++b) S += fabs(g->kd[10 * e + hs_sym4_index(a, b)] * phi[m->tets[4 * e + b]]);
        }
        int n = 6 * mi + (pat->row_ptr[i + 1] - pat->row_ptr[i]) + 2;
        double tol = 2 * n * u / (1 - n * u) * S;
        worst_r = fmax(worst_r, fabs(rf[i] - rs[i]) / (tol > 0 ? tol : 1));
        if (!(fabs(rf[i] - rs[i]) <= tol)) ++badr;
    }
    HS_TEST_CHECK(badr == 0, "R: %d of %d nodes differ beyond the bound", badr, nn);
    HS_TEST_CHECK(worst_r > 0.0, "R: split and full sum identically everywhere (the test would not see a fault)");

    /* K in every format */
    for (int f = 0; f < hs_spmv_count(); ++f) {
        const hs_spmv_ops *o = hs_spmv_get(f);
        hs_spmv_layout *lay = NULL;
        HS_TEST_OK(hs_spmv_layout_create(o, pat, NULL, &lay));
        if (!lay) continue;
        double *kf = calloc((size_t)lay->n_slots + 1, sizeof(double));
        double *ks = calloc((size_t)lay->n_slots + 1, sizeof(double));
        hs_assemble_k(map, ke, lay->slot_of_nnz, kf);
        hs_split_assemble_k(sm, km, lay->slot_of_nnz, ks);
        int badk = 0, asymk = 0, diffs = 0;
        for (int32_t i = 0; i < nn; ++i)
            for (int32_t k = pat->row_ptr[i]; k < pat->row_ptr[i + 1]; ++k) {
                double S = 0.0;
                int mk = map->k_ptr[k + 1] - map->k_ptr[k];
                for (int32_t j = map->k_ptr[k]; j < map->k_ptr[k + 1]; ++j) {
                    int32_t src = map->k_src[j], e = src / 16;
                    S += fabs(g->kd[10 * e + hs_sym4_index((src % 16) / 4, src % 4)]) + fabs(km[e]);
                }
                double tol = 2 * (2 * mk) * u / (1 - 2 * mk * u) * S;
                double a = kf[lay->slot_of_nnz[k]], b = ks[lay->slot_of_nnz[k]];
                if (!(fabs(a - b) <= tol)) ++badk;
                diffs += a != b;
                asymk += b != ks[lay->slot_of_nnz[hs_csr_find(pat, pat->col[k], i)]];
            }
        char *used = calloc((size_t)lay->n_slots + 1, 1);
        for (int32_t k = 0; k < nnz; ++k) used[lay->slot_of_nnz[k]] = 1;
        int64_t pad = 0;
        for (int64_t q = 0; q < lay->n_slots; ++q) pad += !used[q] && ks[q] != 0.0;
        HS_TEST_CHECK(badk == 0, "%s: %d of %d K entries differ beyond the bound", o->name, badk, nnz);
        HS_TEST_CHECK(asymk == 0, "%s: split K is not symmetric bit for bit (%d entries)", o->name, asymk);
        HS_TEST_CHECK(pad == 0, "%s: %lld padding slots written", o->name, (long long)pad);
        HS_TEST_CHECK(diffs > 0, "%s: split and full K identical: the comparison would not see a fault", o->name);
        free(used); free(kf); free(ks);
        hs_spmv_layout_destroy(&lay);
    }

    /* the method by name */
    hs_assembly_kind kind = HS_ASSEMBLY_FULL;
    HS_TEST_OK(hs_assembly_lookup("solver.assembly", "split", &kind));
    HS_TEST_CHECK(kind == HS_ASSEMBLY_SPLIT, "lookup of split");
    HS_TEST_CHECK(hs_assembly_lookup("solver.assembly", "lumped", &kind) == HS_ERR_CONFIG, "unknown method accepted");
    const char *msg = hs_error_message();
    HS_TEST_CHECK(strstr(msg, "solver.assembly") && strstr(msg, "split") && strstr(msg, "full"),
                  "the error should name the key and the choices: %s", msg);
    hs_error_clear();

    free(ke); free(re); free(km); free(rm); free(phi); free(phin); free(rf); free(rs);
    hs_split_map_destroy(&sm);
    hs_assembly_map_destroy(&map);
    hs_csr_destroy(&pat);
    hs_fem_geom_destroy(&g);
    hs_mesh_destroy(&m);
    HS_TEST_RETURN();
}
