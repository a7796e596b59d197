/* Per-element volumes and diffusion stiffness; lumped mass for residual scaling. */
#include <math.h>
#include <stdlib.h>

#include "hs_fem.h"
#include "hs_p1.h"
#include "hs_util.h"

hs_status hs_fem_geom_create(const hs_mesh *m, double d_iso, double d_ani, hs_fem_geom **out)
{
    return hs_fem_geom_create_het(m, d_iso, d_ani, NULL, out);
}

/* Element e's volume (returned; <= 0 for a degenerate element) and, into kd [10], its packed
 * V grad N_a . D grad N_b: one function for the stored and the on-the-fly matrices, so both are the
 * same bits. */
static double elem_kd(const hs_mesh *m, int64_t e, double d_iso, double d_ani, const double *d_elem, double *kd)
{
    double x[4][3], gr[4][3];
    for (int a = 0; a < 4; ++a)
        for (int k = 0; k < 3; ++k) x[a][k] = m->xyz[3 * (int64_t)m->tets[4 * e + a] + k];
    const double v = hs_p1_gradients(x, gr);
    if (!(v > 0.0)) return v;
    const double *n = m->fiber + 3 * e;
    const double di = d_elem ? d_elem[2 * e] : d_iso, da = d_elem ? d_elem[2 * e + 1] : d_ani;
    double dg[4][3]; /* D grad N_a */
    for (int a = 0; a < 4; ++a) {
        double nd = n[0] * gr[a][0] + n[1] * gr[a][1] + n[2] * gr[a][2];
        for (int k = 0; k < 3; ++k) dg[a][k] = di * gr[a][k] + da * nd * n[k];
    }
    if (kd)
        for (int a = 0; a < 4; ++a)
            for (int b = a; b < 4; ++b)
                kd[hs_sym4_index(a, b)] = v * (gr[a][0] * dg[b][0] + gr[a][1] * dg[b][1] + gr[a][2] * dg[b][2]);
    return v;
}

void hs_fem_geom_kd(const hs_mesh *m, const hs_kd_source *src, int64_t e0, int64_t e1, double *kd)
{
#pragma omp parallel for schedule(static) if (e1 - e0 > HS_OMP_MIN)
    for (int64_t e = e0; e < e1; ++e) (void)elem_kd(m, e, src->d_iso, src->d_ani, src->d_elem, kd + 10 * (e - e0));
}

hs_status hs_fem_geom_create_het(const hs_mesh *m, double d_iso, double d_ani, const double *d_elem, hs_fem_geom **out)
{
    return hs_fem_geom_create_opt(m, d_iso, d_ani, d_elem, 1, out);
}

hs_status hs_fem_geom_create_opt(const hs_mesh *m, double d_iso, double d_ani, const double *d_elem, int with_kd,
                                 hs_fem_geom **out)
{
    *out = NULL;
    HS_CHECK(m->fiber != NULL, HS_ERR_INTERNAL, "mesh has no fibres assigned");
    hs_fem_geom *g = NULL;
    hs_status st = HS_OK;
    HS_CALL(HS_ALLOC(g, 1, "element geometry"));
    g->n_elems = m->n_elems;
    g->n_nodes = m->n_nodes;
    HS_CALL_GOTO(HS_ALLOC(g->vol, m->n_elems, "element volumes"), fail);
    if (with_kd) HS_CALL_GOTO(HS_ALLOC(g->kd, (size_t)m->n_elems * 10, "element diffusion matrices"), fail);
    HS_CALL_GOTO(HS_ALLOC(g->lumped_mass, m->n_nodes, "lumped mass"), fail);

    int32_t bad = -1;
#pragma omp parallel for schedule(static) if (m->n_elems > HS_OMP_MIN)
    for (int32_t e = 0; e < m->n_elems; ++e) {
        const double v = elem_kd(m, e, d_iso, d_ani, d_elem, g->kd ? g->kd + 10 * (int64_t)e : NULL);
        if (!(v > 0.0)) {
#pragma omp critical
            if (bad < 0 || e < bad) bad = e;
            continue;
        }
        g->vol[e] = v;
    }
    HS_CHECK_GOTO(bad < 0, fail, HS_ERR_MESH, "element %d has non-positive volume %.3e mm^3", bad,
                  hs_mesh_elem_volume(m, bad));
    for (int32_t e = 0; e < m->n_elems; ++e)
        for (int a = 0; a < 4; ++a) g->lumped_mass[m->tets[4 * (int64_t)e + a]] += 0.25 * g->vol[e];
    *out = g;
    return HS_OK;
fail:
    hs_fem_geom_destroy(&g);
    return st;
}

void hs_fem_geom_destroy(hs_fem_geom **p)
{
    if (!p || !*p) return;
    free((*p)->vol);
    free((*p)->kd);
    free((*p)->lumped_mass);
    free(*p);
    *p = NULL;
}
