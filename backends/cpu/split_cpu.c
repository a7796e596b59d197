/*
 * The cpu backend's operator-splitting ops (fem/hs_splitting.h, hs_backend_ops.react and .diffuse):
 * the reference of the scheme. The reaction runs hs_split_react_node at every node on OpenMP
 * threads; the diffusion assembles A = M + theta dt K and B = M - (1-theta) dt K with
 * hs_split_matrices (once, again when dt changes), copies them into the SpMV format's slots, and
 * solves A d' = B u* - A (u* + g) with the configured Krylov method and preconditioner (computed once
 * per assembly), so that u = u* + g + d': CG warm-started from u* + g, g the previous step's correction
 * extrapolated from the last two steps' corrections d = g + d' (hs_split_guess_weights; kept as the
 * extrapolation history's vectors, so checkpoints and retries carry them; solver.extrapolate = 0:
 * g = 0).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "hs_problem.h"
#include "hs_splitting.h"
#include "hs_util.h"
#include "hs_vec.h"

hs_status hs_cpu_react(hs_backend *b, double h, int n_sub, const double *site_amp, int32_t *bad_node)
{
    cpu_impl *c = b->impl;
    const hs_problem *p = b->prob;
    const hs_nodal *nd = p->nodal;
    const int32_t nn = p->mesh->n_nodes; /* the variables' stride */
    const int32_t n_own = c->comm->n_owned; /* a partition's ghosts: their owners react them, and the halo
                                               of the diffusion brings their phi */
    const int nv = p->opt.model_prm.n_vars;
    const hs_region_set *rg = p->opt.regions;
    const uint16_t *ntab = nd->node_tab;
    const uint8_t *frozen = nd->frozen;
    double t0 = hs_wtime();
    HS_CHECK(n_sub >= 1 && h > 0.0, HS_ERR_INTERNAL, "reaction over %g in %d substeps", h, n_sub);
    hs_nodal_stimulus(nd, site_amp, c->stim_n);
    int32_t bad = -1;
#pragma omp parallel for schedule(static) if (n_own >= c->min_elem)
    for (int32_t i = 0; i < n_own; ++i) {
        if (frozen && frozen[i]) continue;
        const hs_model_params *prm = ntab ? &rg->tab[ntab[i]].prm : &p->opt.model_prm;
        double s[HS_MODEL_MAX_VARS], u = c->phi[i];
        for (int k = 0; k < nv; ++k) s[k] = c->ipv[(size_t)k * (size_t)nn + (size_t)i];
        const int r = hs_split_react_node(prm, h, n_sub, c->stim_n[i], &u, s);
        c->phi[i] = u;
        for (int k = 0; k < nv; ++k) c->ipv[(size_t)k * (size_t)nn + (size_t)i] = s[k];
        if (r < 0) {
#pragma omp critical
            if (bad < 0 || i < bad) bad = i;
        }
    }
    *bad_node = bad;
    c->times.element += hs_wtime() - t0;
    return HS_OK;
}

/* A and B for dt (model units) in the format's slots, the Jacobi diagonal, the preconditioner. */
static hs_status assemble_split(hs_backend *b, double dt)
{
    cpu_impl *c = b->impl;
    const hs_problem *p = b->prob;
    const int32_t nn = p->mesh->n_nodes, nnz = p->pattern->nnz;
    const int64_t *slot = c->lay->slot_of_nnz;
    double *a = NULL, *bm = NULL;
    hs_status st = HS_ALLOC(a, nnz, "diffusion matrix");
    if (st == HS_OK && c->bval) st = HS_ALLOC(bm, nnz, "diffusion right-hand-side matrix");
    if (st == HS_OK) st = hs_split_matrices(p, dt, a, bm);
    if (st != HS_OK) {
        free(a);
        free(bm);
        return st;
    }
#pragma omp parallel for schedule(static) if (nnz > HS_OMP_MIN)
    for (int32_t k = 0; k < nnz; ++k) {
        c->kval[slot[k]] = a[k];
        if (bm) c->bval[slot[k]] = bm[k];
    }
    if (c->kval32) hs_spmv_round_values(c->lay->n_slots, c->kval, c->kval32);
    for (int32_t i = 0; i < nn; ++i)
        c->inv_diag[i] = 1.0 / (c->kval32 ? (double)c->kval32[slot[p->map->diag[i]]] : c->kval[slot[p->map->diag[i]]]);
    if (c->pc) { /* the configured preconditioner, once per matrix */
        memcpy(c->kcsr->val, a, sizeof(double) * (size_t)nnz);
        st = hs_precond_compute(c->pc, c->kcsr);
        if (st != HS_OK) hs_error_prefix("the splitting scheme's diffusion matrix: ");
    }
    free(a);
    free(bm);
    HS_CALL(st);
    c->split_dt = dt;
    return HS_OK;
}

hs_status hs_cpu_diffuse(hs_backend *b, double dt, hs_cg_result *cg)
{
    cpu_impl *c = b->impl;
    const hs_problem *p = b->prob;
    hs_comm *cm = c->comm;
    const int32_t n = cm->n_owned; /* serially every node; on a partition its owned rows (collective) */
    memset(cg, 0, sizeof *cg);
    if (c->split_dt != dt) {
        double t0 = hs_wtime();
        HS_CALL(assemble_split(b, dt));
        c->times.assembly += hs_wtime() - t0;
    }
    double t0 = hs_wtime();
    /* rhs_b = B u* (B = diag(m) for lumped mass with theta = 1), then r = B u* - A u*; on a partition
     * the ghosts of u* from their owners first (the reaction ran on the owned nodes) */
    HS_CALL(hs_comm_halo(cm, c->phi));
    if (c->bval) {
        const hs_spmv_ops *f = c->lay->ops;
        if (f->apply_rows_ref) f->apply_rows_ref(c->lay, c->bval, 0, n, c->phi, c->split_b);
        else f->apply_ref(c->lay, c->bval, c->phi, c->split_b); /* whole matrices: one partition only */
    } else {
        const double *m = p->nodal->mass_lumped;
        const uint8_t *fr = p->nodal->frozen;
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
        for (int32_t i = 0; i < n; ++i) c->split_b[i] = (fr && fr[i]) ? c->phi[i] : m[i] * c->phi[i];
    }
    /* the first guess u* + g, g extrapolated from the last steps' corrections (hs_split_guess_weights:
     * none without a history, then u* alone); du holds u* + g for the SpMV, the ghosts from its halo */
    double w[2];
    const int gs = hs_split_guess_weights(&c->ex, dt, w);
    const double *d1 = c->phi_h1, *d2 = gs > 1 ? c->phi_h2 : c->phi_h1;
    if (gs) {
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
        for (int32_t i = 0; i < n; ++i) c->du[i] = c->phi[i] + hs_split_guess_at(w[0], w[1], d1[i], d2[i]);
        hs_cpu_matvec(c, c->du, c->rhs); /* A (u* + g) */
    } else {
        hs_cpu_matvec(c, c->phi, c->rhs); /* A u* */
    }
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
    for (int32_t i = 0; i < n; ++i) c->rhs[i] = c->split_b[i] - c->rhs[i];
    double nrm[2] = {hs_vec_dot(n, c->split_b, c->split_b), hs_vec_dot(n, c->rhs, c->rhs)};
    HS_CALL(hs_comm_sum(cm, nrm, 2));
    const double bnorm = sqrt(nrm[0]), rnorm = sqrt(nrm[1]);
    hs_cg_opts o = p->opt.cg;
    if (!isfinite(rnorm) || !isfinite(bnorm)) {
        cg->outcome = HS_CG_NONFINITE;
        cg->rel_res = rnorm;
    } else if (rnorm <= o.tol * bnorm) {
        cg->outcome = HS_CG_CONVERGED; /* u* + g solves it already: no iteration */
        cg->rel_res = bnorm > 0.0 ? rnorm / bnorm : 0.0;
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
        for (int32_t i = 0; i < n; ++i) /* the correction, for the history */
            c->du[i] = gs ? hs_split_guess_at(w[0], w[1], d1[i], d2[i]) : 0.0;
        if (gs) {
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
            for (int32_t i = 0; i < n; ++i) c->phi[i] += c->du[i];
            HS_CALL(hs_comm_halo(cm, c->phi));
        }
    } else {
        /* converged when ||r_k|| <= tol ||b||: relative to the warm start's residual that is tol ||b|| / ||r_0|| */
        o.tol = o.tol * bnorm / rnorm;
        if (!c->pc)
            HS_CALL(hs_cg_solve(n, hs_cpu_matvec, c, c->inv_diag, c->rhs, c->du, &o, c->cg, cg));
        else
            HS_CALL(hs_krylov_solve(p->opt.pc.krylov, n, hs_cpu_matvec, c, hs_precond_apply, c->pc, c->rhs, c->du, &o,
                                    c->kw, cg));
        cg->rel_res *= rnorm / (bnorm > 0.0 ? bnorm : 1.0); /* relative to ||b||, as the test */
        if (cg->outcome == HS_CG_CONVERGED) {
    #pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
            for (int32_t i = 0; i < n; ++i) {
                if (gs) c->du[i] += hs_split_guess_at(w[0], w[1], d1[i], d2[i]); /* the whole correction g + d' */
                c->phi[i] += c->du[i];
            }
            HS_CALL(hs_comm_halo(cm, c->phi)); /* the ghosts of phi from their owners */
        }
    }
    c->times.solve += hs_wtime() - t0;
    return HS_OK;
}
