/* The operator-splitting scheme (hs_splitting.h): the problem's node data, the diffusion matrices,
 * and the step. */
#include "hs_splitting.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_backend.h"
#include "hs_p1.h"
#include "hs_problem.h"
#include "hs_util.h"

/* Whether element e conducts (carries mass, diffusion and current). */
static int conducting(const hs_region_set *rg, int32_t e)
{
    return !rg || !rg->elem_tab || rg->tab[rg->elem_tab[e]].conducting;
}

void hs_nodal_destroy(hs_nodal **p)
{
    if (!p || !*p) return;
    hs_nodal *nd = *p;
    free(nd->stim_ptr);
    free(nd->stim_node);
    free(nd->stim_w);
    free(nd->node_tab);
    free(nd->frozen);
    free(nd->mass_lumped);
    free(nd);
    *p = NULL;
}

/* Site k's nodes and shares: the V/4 of its conducting elements gathered per node (acc, scratch of
 * n_nodes zeros, left zeroed), divided by the node's lumped mass. Appends to nd's arrays (sized for
 * 4 entries per element of every site). */
static void site_nodes(const hs_problem *p, int k, hs_nodal *nd, double *acc, int32_t *n_out)
{
    const hs_stim_set *s = p->stim;
    const hs_mesh *m = p->mesh;
    const hs_region_set *rg = p->opt.regions;
    int32_t n = 0;
    for (int32_t j = s->elem_ptr[k]; j < s->elem_ptr[k + 1]; ++j) {
        const int32_t e = s->elem[j];
        if (!conducting(rg, e)) continue;
        for (int a = 0; a < 4; ++a) {
            const int32_t i = m->tets[4 * (int64_t)e + a];
            if (acc[i] == 0.0) ++n;
            acc[i] += 0.25 * p->geom->vol[e];
        }
    }
    /* increasing node order within the site */
    int32_t o = nd->stim_ptr[k];
    for (int32_t i = 0, q = 0; q < n && i < m->n_nodes; ++i)
        if (acc[i] != 0.0) {
            nd->stim_node[o] = i;
            nd->stim_w[o] = nd->mass_lumped[i] > 0.0 ? fmin(1.0, acc[i] / nd->mass_lumped[i]) : 0.0;
            acc[i] = 0.0;
            ++o;
            ++q;
        }
    *n_out = n;
}

hs_status hs_nodal_create(const hs_problem *p, hs_nodal **out)
{
    *out = NULL;
    hs_status st = HS_OK;
    hs_nodal *nd = NULL;
    double *acc = NULL;
    int32_t *best_entry = NULL;
    const hs_mesh *m = p->mesh;
    const int32_t nn = m->n_nodes, ne = m->n_elems;
    const hs_region_set *rg = p->opt.regions;
    HS_CALL(HS_ALLOC(nd, 1, "splitting node data"));
    nd->n_nodes = nn;
    HS_CALL_GOTO(HS_ALLOC(nd->mass_lumped, nn, "lumped mass"), fail);
    for (int32_t e = 0; e < ne; ++e)
        if (conducting(rg, e))
            for (int a = 0; a < 4; ++a) nd->mass_lumped[m->tets[4 * (int64_t)e + a]] += 0.25 * p->geom->vol[e];
    /* regions at the nodes: the row of the latest-deciding conducting element around each node */
    if (rg && rg->elem_tab) {
        HS_CALL_GOTO(HS_ALLOC(nd->node_tab, nn, "node region rows"), fail);
        HS_CALL_GOTO(HS_ALLOC(best_entry, nn, "node region entries"), fail);
        for (int32_t i = 0; i < nn; ++i) best_entry[i] = -1;
        for (int32_t e = 0; e < ne; ++e) { /* increasing e: among equal entries the lowest element wins */
            if (!conducting(rg, e)) continue;
            for (int a = 0; a < 4; ++a) {
                const int32_t i = m->tets[4 * (int64_t)e + a];
                if (rg->elem_entry[e] > best_entry[i]) {
                    best_entry[i] = rg->elem_entry[e];
                    nd->node_tab[i] = rg->elem_tab[e];
                }
            }
        }
        int32_t n_frozen = 0;
        for (int32_t i = 0; i < nn; ++i) n_frozen += best_entry[i] < 0;
        if (n_frozen > 0) {
            HS_CALL_GOTO(HS_ALLOC(nd->frozen, nn, "frozen nodes"), fail);
            for (int32_t i = 0; i < nn; ++i) nd->frozen[i] = best_entry[i] < 0;
        }
    }
    /* stimulus shares */
    const hs_stim_set *s = p->stim;
    nd->n_sites = s ? s->n_sites : 0;
    HS_CALL_GOTO(HS_ALLOC(nd->stim_ptr, (size_t)nd->n_sites + 1, "stimulus node pointers"), fail);
    const int64_t cap = s ? 4 * (int64_t)s->elem_ptr[s->n_sites] : 0;
    HS_CALL_GOTO(HS_ALLOC(nd->stim_node, cap, "stimulus nodes"), fail);
    HS_CALL_GOTO(HS_ALLOC(nd->stim_w, cap, "stimulus node shares"), fail);
    if (nd->n_sites > 0) HS_CALL_GOTO(HS_ALLOC(acc, nn, "stimulus scratch"), fail);
    for (int k = 0; k < nd->n_sites; ++k) {
        int32_t n = 0;
        site_nodes(p, k, nd, acc, &n);
        nd->stim_ptr[k + 1] = nd->stim_ptr[k] + n;
    }
    free(acc);
    free(best_entry);
    *out = nd;
    return HS_OK;
fail:
    free(acc);
    free(best_entry);
    hs_nodal_destroy(&nd);
    return st;
}

void hs_nodal_stimulus(const hs_nodal *nd, const double *amp, double *stim)
{
    memset(stim, 0, sizeof(double) * (size_t)nd->n_nodes);
    for (int k = 0; k < nd->n_sites; ++k)
        if (amp[k] != 0.0)
            for (int32_t j = nd->stim_ptr[k]; j < nd->stim_ptr[k + 1]; ++j) stim[nd->stim_node[j]] += amp[k] * nd->stim_w[j];
}

hs_status hs_split_matrices(const hs_problem *p, double dt, double *a, double *b)
{
    const hs_assembly_map *map = p->map;
    const hs_csr *pat = p->pattern;
    const hs_region_set *rg = p->opt.regions;
    const hs_scheme_opts *o = &p->opt.scheme;
    const double ca = o->theta * dt, cb = -(1.0 - o->theta) * dt;
    const int lumped = o->mass == HS_MASS_LUMPED;
    const uint8_t *frozen = p->nodal ? p->nodal->frozen : NULL;
    HS_CHECK(map && map->nnz == pat->nnz, HS_ERR_INTERNAL, "splitting matrices without assembly maps");
    HS_CHECK(o->theta >= 0.5 && o->theta <= 1.0, HS_ERR_INTERNAL, "theta %g", o->theta);
#pragma omp parallel for schedule(static) if (map->n_elems >= HS_OMP_MIN_ASSEMBLY_ELEMS)
    for (int32_t k = 0; k < map->nnz; ++k) {
        double sa = 0.0, sb = 0.0;
        for (int32_t j = map->k_ptr[k]; j < map->k_ptr[k + 1]; ++j) {
            const int32_t src = map->k_src[j], e = src / 16, q = src % 16, r = q / 4, c = q % 4;
            if (!conducting(rg, e)) continue;
            const double vol = p->geom->vol[e];
            const double mass = lumped ? (r == c ? 0.25 * vol : 0.0) : (r == c ? vol / 10.0 : vol / 20.0);
            const double kd = p->geom->kd[10 * (int64_t)e + hs_sym4_index(r, c)];
            sa += mass + ca * kd;
            sb += mass + cb * kd;
        }
        a[k] = sa;
        if (b) b[k] = sb;
    }
    if (frozen) { /* identity rows and columns: u held where nothing conducts */
        for (int32_t i = 0; i < pat->n_rows; ++i)
            for (int32_t k = pat->row_ptr[i]; k < pat->row_ptr[i + 1]; ++k) {
                const int32_t j = pat->col[k];
                if (!frozen[i] && !frozen[j]) continue;
                a[k] = i == j ? 1.0 : 0.0;
                if (b) b[k] = i == j ? 1.0 : 0.0;
            }
    }
    return HS_OK;
}

int hs_split_substeps(const hs_scheme_opts *o, double h_ms)
{
    if (!(o->dt_ode_ms > 0.0) || o->dt_ode_ms >= h_ms) return 1;
    const double n = ceil(h_ms / o->dt_ode_ms - 1e-9);
    return n > 1e6 ? 1000000 : (int)n;
}

int hs_split_reaction_inputs(const hs_problem *p, double t0, double t1, double *amp, double *h)
{
    const double T = p->opt.time_unit;
    const int ns = p->stim ? p->stim->n_sites : 0;
    if (ns > 0) hs_stim_set_amplitudes(p->stim, t0, t1, amp);
    for (int k = 0; k < ns; ++k) amp[k] *= T; /* per model time unit */
    *h = (t1 - t0) / T;
    return hs_split_substeps(&p->opt.scheme, t1 - t0);
}

/* The error of a reaction that went non-finite at node @p bad. */
static hs_status react_failed(const hs_backend *b, int32_t bad, double t0, double t1, const char *phase,
                              double t_step, double dt_step)
{
    const hs_problem *p = b->prob;
    const int n_sub = hs_split_substeps(&p->opt.scheme, t1 - t0);
    return HS_FAIL(HS_ERR_NUMERIC,
                   "splitting: the %s model's ODEs became non-finite at node %d in the %sreaction of the step at t = "
                   "%.4g ms (to %.4g ms; %d substeps of %.4g ms). Reduce solver.dt_ode or time.dt",
                   p->opt.model->name, (int)bad, phase, t_step, t_step + dt_step, n_sub, (t1 - t0) / n_sub);
}

/* One reaction over [t0, t1] ms: the sites' averages there, the backend's react op. With @p defer
 * (not NULL) the backend may leave the failure check for later: *defer = 1 then, and the caller
 * calls react_check (after the diffusion, whose synchronisation brings the flag). */
static hs_status react(hs_backend *b, double t0, double t1, const char *phase, double t_step,
                       double dt_step, int *defer)
{
    const hs_problem *p = b->prob;
    double amp[256], h = 0.0;
    const int ns = p->stim ? p->stim->n_sites : 0;
    HS_CHECK(ns <= 256, HS_ERR_INTERNAL, "too many stimulus sites (%d)", ns);
    const int n_sub = hs_split_reaction_inputs(p, t0, t1, amp, &h);
    int32_t bad = defer && b->ops->react_check ? HS_REACT_DEFER : -1;
    HS_CALL(b->ops->react(b, h, n_sub, amp, &bad));
    if (defer) *defer = bad == HS_REACT_DEFER;
    if (bad >= 0) return react_failed(b, bad, t0, t1, phase, t_step, dt_step);
    return HS_OK;
}

hs_status hs_split_step(hs_backend *b, double t_ms, double dt_ms, hs_step_stats *stats)
{
    const hs_problem *p = b->prob;
    const double T = p->opt.time_unit;
    memset(stats, 0, sizeof *stats);
    HS_CHECK(b->ops->react && b->ops->diffuse, HS_ERR_CONFIG,
             "solver.scheme = \"splitting\": the %s backend does not run the splitting scheme", b->ops->name);
    HS_CALL(b->ops->begin_step(b, dt_ms / T, NULL));
    const int strang = p->opt.scheme.order == HS_SPLIT_STRANG;
    const double t_half = hs_split_t_half(&p->opt.scheme, t_ms, dt_ms);
    /* the first reaction's failure check may wait for the diffusion's synchronisation (one host round
     * trip per Godunov step on the cuda backend): a non-finite u* makes the diffusion stop at once
     * (non-finite norms), and the reaction's failure is reported first */
    int deferred = 0;
    hs_status st = react(b, t_ms, t_half, strang ? "first " : "", t_ms, dt_ms, &deferred);
    if (st == HS_OK) {
        hs_cg_result cg;
        memset(&cg, 0, sizeof cg);
        st = b->ops->diffuse(b, dt_ms / T, &cg);
        stats->newton_iters = 1;
        stats->cg_iters = stats->cg_iters_max = cg.iters;
        stats->res_norm = cg.rel_res; /* ||B u* - A u|| / ||B u*||, as the device launches report it */
        if (st == HS_OK && cg.outcome != HS_CG_CONVERGED)
            st = HS_FAIL(HS_ERR_NUMERIC,
                         "splitting: CG %s in the diffusion solve of the step at t = %.4g ms (to %.4g ms): relative "
                         "residual %.3e after %d iterations (solver.cg_tol %.1e, solver.cg_max_iter %d)",
                         hs_cg_outcome_name(cg.outcome), t_ms, t_ms + dt_ms, cg.rel_res, cg.iters, p->opt.cg.tol,
                         p->opt.cg.max_iter);
        if (deferred) {
            int32_t bad = -1;
            hs_status sc = b->ops->react_check(b, &bad);
            if (sc != HS_OK) {
                st = sc;
            } else if (bad >= 0) {
                hs_error_clear(); /* the reaction's failure comes first: the diffusion only inherited it */
                st = react_failed(b, bad, t_ms, t_half, strang ? "first " : "", t_ms, dt_ms);
            }
        }
    }
    if (st == HS_OK && strang) st = react(b, t_half, t_ms + dt_ms, "second ", t_ms, dt_ms, NULL);
    if (st != HS_OK) {
        b->ops->restore_step(b);
        return st;
    }
    return b->ops->end_step(b, t_ms, dt_ms);
}

hs_status hs_scheme_step(hs_backend *b, double t_ms, double dt_ms, const double *site_amp_per_ms,
                         hs_step_stats *stats)
{
    if (b->prob->opt.scheme.kind == HS_SCHEME_SPLITTING) return hs_split_step(b, t_ms, dt_ms, stats);
    return hs_time_step(b, t_ms, dt_ms, site_amp_per_ms, stats);
}
