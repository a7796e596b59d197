/*
 * The CPU backend (OpenMP): the reference implementation of every primitive of hs_backend_ops.
 * The element pass and the gather-map assembly are the same algorithm the GPU runs.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_backend.h"
#include "hs_element.h"
#include "hs_extrapolate.h"
#include "hs_util.h"
#include "hs_vec.h"

typedef struct cpu_impl {
    hs_spmv_layout *lay;
    double *phi, *phi_n;  /* [n_nodes] */
    double *r, *r_n;      /* [n_elems] recovery variable at the integration point */
    double *act;          /* [n_nodes] activation time ms, -1 before */
    double *ke, *re;      /* [n_elems][16], [n_elems][4] */
    double *kval;         /* [n_slots] K in the SpMV format's slots */
    double *rhs, *du;     /* [n_nodes] */
    double *inv_diag;     /* [n_nodes] Jacobi */
    double *res_w;        /* [n_nodes] dt / m_I: residual in potential units */
    double *stim_e;       /* [n_elems] stimulus current per model time */
    double *phi_h1, *phi_h2; /* [n_nodes] phi_{n-1}, phi_{n-2}: the extrapolation history */
    hs_extrap ex;
    hs_cg_work *cg;
    double dt;            /* model units */
    double res;           /* Newton residual of the last assembly (sets the inexact-Newton CG tolerance) */
    hs_phase_times times;
} cpu_impl;

static void cpu_destroy(hs_backend *b)
{
    cpu_impl *c = b->impl;
    if (!c) return;
    hs_spmv_layout_destroy(&c->lay);
    free(c->phi); free(c->phi_n); free(c->r); free(c->r_n); free(c->act);
    free(c->ke); free(c->re); free(c->kval); free(c->rhs); free(c->du);
    free(c->inv_diag); free(c->res_w); free(c->stim_e); free(c->phi_h1); free(c->phi_h2);
    hs_cg_work_destroy(&c->cg);
    free(c);
    b->impl = NULL;
}

static hs_status cpu_begin_step(hs_backend *b, double dt, const double *amp)
{
    cpu_impl *c = b->impl;
    const hs_problem *p = b->prob;
    int32_t nn = p->mesh->n_nodes, ne = p->mesh->n_elems;
    c->dt = dt;
    memcpy(c->phi_n, c->phi, sizeof(double) * (size_t)nn);
    memcpy(c->r_n, c->r, sizeof(double) * (size_t)ne);
    double w[3];
    int used = hs_extrap_weights(&c->ex, dt, w);
    if (used > 0) {
        const double *h1 = c->phi_h1, *h2 = c->phi_h2;
#pragma omp parallel for schedule(static) if (nn > HS_OMP_MIN)
        for (int32_t i = 0; i < nn; ++i)
            c->phi[i] = w[0] * c->phi_n[i] + w[1] * h1[i] + (used > 1 ? w[2] * h2[i] : 0.0);
    }
    memset(c->stim_e, 0, sizeof(double) * (size_t)ne);
    const hs_stim_set *s = p->stim;
    for (int k = 0; s && k < s->n_sites; ++k)
        if (amp[k] != 0.0)
            for (int32_t j = s->elem_ptr[k]; j < s->elem_ptr[k + 1]; ++j) c->stim_e[s->elem[j]] += amp[k];
#pragma omp parallel for schedule(static) if (nn > HS_OMP_MIN)
    for (int32_t i = 0; i < nn; ++i) c->res_w[i] = dt / p->geom->lumped_mass[i];
    return HS_OK;
}

static hs_status cpu_assemble(hs_backend *b, double *res_norm, int32_t *res_node)
{
    cpu_impl *c = b->impl;
    const hs_problem *p = b->prob;
    const hs_mesh *m = p->mesh;
    int32_t bad = -1;
    double t0 = hs_wtime();
#pragma omp parallel for schedule(static) if (m->n_elems > HS_OMP_MIN)
    for (int32_t e = 0; e < m->n_elems; ++e) {
        const int32_t *t = m->tets + 4 * (int64_t)e;
        double ph[4] = {c->phi[t[0]], c->phi[t[1]], c->phi[t[2]], c->phi[t[3]]};
        double pn[4] = {c->phi_n[t[0]], c->phi_n[t[1]], c->phi_n[t[2]], c->phi_n[t[3]]};
        int it = hs_element_eval(&p->opt.ap, c->dt, p->geom->vol[e], p->geom->kd + 10 * (int64_t)e,
                                 ph, pn, c->stim_e[e], c->r_n[e], &c->r[e], c->ke + 16 * (int64_t)e,
                                 c->re + 4 * (int64_t)e);
        if (it < 0) {
#pragma omp critical
            if (bad < 0 || e < bad) bad = e;
        }
    }
    double t1 = hs_wtime();
    c->times.element += t1 - t0;
    HS_CHECK(bad < 0, HS_ERR_NUMERIC,
             "the local Newton iteration for r failed in element %d (phi at its centroid %.6g, "
             "r_n %.6g)", bad,
             0.25 * (c->phi[m->tets[4 * (int64_t)bad]] + c->phi[m->tets[4 * (int64_t)bad + 1]] +
                     c->phi[m->tets[4 * (int64_t)bad + 2]] + c->phi[m->tets[4 * (int64_t)bad + 3]]),
             c->r_n[bad]);
    hs_assemble_k(p->map, c->ke, c->lay->slot_of_nnz, c->kval);
    hs_assemble_r(p->map, c->re, c->rhs);
    const int64_t *slot = c->lay->slot_of_nnz;
#pragma omp parallel for schedule(static) if (m->n_nodes > HS_OMP_MIN)
    for (int32_t i = 0; i < m->n_nodes; ++i) c->inv_diag[i] = 1.0 / c->kval[slot[p->map->diag[i]]];
    *res_norm = hs_vec_norm_inf_weighted(m->n_nodes, c->rhs, c->res_w, res_node);
    c->res = *res_norm;
    c->times.assembly += hs_wtime() - t1;
    return HS_OK;
}

typedef struct matvec_ctx {
    cpu_impl *c;
} matvec_ctx;

static void cpu_matvec(void *ctx, const double *x, double *y)
{
    cpu_impl *c = ((matvec_ctx *)ctx)->c;
    double t0 = hs_wtime();
    c->lay->ops->apply_ref(c->lay, c->kval, x, y);
    c->times.spmv += hs_wtime() - t0;
}

static hs_status cpu_solve(hs_backend *b, hs_cg_result *cg, double *upd_norm)
{
    cpu_impl *c = b->impl;
    const hs_problem *p = b->prob;
    int32_t n = p->mesh->n_nodes;
    double t0 = hs_wtime();
    matvec_ctx ctx = {c};
    hs_cg_opts o = p->opt.cg;
    o.tol = hs_cg_forcing_tol(p->opt.cg.tol, p->opt.cg_forcing, p->opt.newton_tol_residual, c->res);
    HS_CALL(hs_cg_solve(n, cpu_matvec, &ctx, c->inv_diag, c->rhs, c->du, &o, c->cg, cg));
    if (cg->outcome == HS_CG_CONVERGED) {
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
        for (int32_t i = 0; i < n; ++i) c->phi[i] -= c->du[i];
    }
    *upd_norm = hs_vec_norm_inf(n, c->du, NULL);
    c->times.solve += hs_wtime() - t0;
    return HS_OK;
}

static hs_status cpu_end_step(hs_backend *b, double t_prev, double dt_ms)
{
    cpu_impl *c = b->impl;
    const hs_problem *p = b->prob;
    double thr = p->opt.activation_phi;
#pragma omp parallel for schedule(static) if (p->mesh->n_nodes > HS_OMP_MIN)
    for (int32_t i = 0; i < p->mesh->n_nodes; ++i) {
        double a = c->phi_n[i], z = c->phi[i];
        if (c->act[i] < 0.0 && a < thr && z >= thr) c->act[i] = t_prev + dt_ms * (thr - a) / (z - a);
    }
    if (p->opt.extrapolate > 0) { /* history for the next step's first iterate */
        double *t = c->phi_h2;
        c->phi_h2 = c->phi_h1;
        c->phi_h1 = t;
        memcpy(c->phi_h1, c->phi_n, sizeof(double) * (size_t)p->mesh->n_nodes);
        hs_extrap_accept(&c->ex, c->dt);
    }
    return HS_OK;
}

static hs_status cpu_restore_step(hs_backend *b)
{
    cpu_impl *c = b->impl;
    memcpy(c->phi, c->phi_n, sizeof(double) * (size_t)b->prob->mesh->n_nodes);
    memcpy(c->r, c->r_n, sizeof(double) * (size_t)b->prob->mesh->n_elems);
    return HS_OK;
}

static hs_status cpu_get_state(hs_backend *b, double *phi, double *r, double *act)
{
    cpu_impl *c = b->impl;
    size_t nn = (size_t)b->prob->mesh->n_nodes, ne = (size_t)b->prob->mesh->n_elems;
    if (phi) memcpy(phi, c->phi, sizeof(double) * nn);
    if (r) memcpy(r, c->r, sizeof(double) * ne);
    if (act) memcpy(act, c->act, sizeof(double) * nn);
    return HS_OK;
}

static hs_status cpu_set_state(hs_backend *b, const double *phi, const double *r, const double *act)
{
    cpu_impl *c = b->impl;
    size_t nn = (size_t)b->prob->mesh->n_nodes, ne = (size_t)b->prob->mesh->n_elems;
    if (phi) memcpy(c->phi, phi, sizeof(double) * nn);
    if (r) memcpy(c->r, r, sizeof(double) * ne);
    if (act) memcpy(c->act, act, sizeof(double) * nn);
    return HS_OK;
}

static hs_status cpu_get_history(hs_backend *b, hs_extrap *ex, double *phi1, double *phi2)
{
    cpu_impl *c = b->impl;
    size_t nn = (size_t)b->prob->mesh->n_nodes;
    *ex = c->ex;
    if (!c->phi_h1) ex->n_valid = 0;
    if (phi1 && ex->n_valid > 0) memcpy(phi1, c->phi_h1, sizeof(double) * nn);
    if (phi2 && ex->n_valid > 1) memcpy(phi2, c->phi_h2, sizeof(double) * nn);
    return HS_OK;
}

static hs_status cpu_set_history(hs_backend *b, const hs_extrap *ex, const double *phi1, const double *phi2)
{
    cpu_impl *c = b->impl;
    size_t nn = (size_t)b->prob->mesh->n_nodes;
    hs_extrap_reset(&c->ex);
    if (!c->phi_h1) return HS_OK; /* extrapolation off in this run */
    int n = ex->n_valid < 0 ? 0 : ex->n_valid > 2 ? 2 : ex->n_valid;
    if ((n > 0 && !phi1) || (n > 1 && !phi2)) return HS_OK;
    if (n > 0) memcpy(c->phi_h1, phi1, sizeof(double) * nn);
    if (n > 1) memcpy(c->phi_h2, phi2, sizeof(double) * nn);
    c->ex.n_valid = n;
    c->ex.h[0] = ex->h[0];
    c->ex.h[1] = ex->h[1];
    return HS_OK;
}

static hs_status cpu_get_system(hs_backend *b, double *kval_csr, double *rhs)
{
    cpu_impl *c = b->impl;
    const hs_problem *p = b->prob;
    if (kval_csr)
        for (int32_t k = 0; k < p->pattern->nnz; ++k) kval_csr[k] = c->kval[c->lay->slot_of_nnz[k]];
    if (rhs) memcpy(rhs, c->rhs, sizeof(double) * (size_t)p->mesh->n_nodes);
    return HS_OK;
}

/* Wall-clock medians of each phase on the current state; CG iterations timed over 10 iterations. */
static hs_status cpu_bench(hs_backend *b, int reps, hs_phase_bench *out)
{
    cpu_impl *c = b->impl;
    const hs_problem *p = b->prob;
    int32_t n = p->mesh->n_nodes;
    double *te = NULL, *ta = NULL, *tc = NULL, *ts = NULL, *buf = NULL;
    hs_status st = HS_OK;
    HS_CALL_GOTO(HS_ALLOC(te, reps, "bench timings"), done);
    HS_CALL_GOTO(HS_ALLOC(ta, reps, "bench timings"), done);
    HS_CALL_GOTO(HS_ALLOC(tc, reps, "bench timings"), done);
    HS_CALL_GOTO(HS_ALLOC(ts, reps, "bench timings"), done);
    HS_CALL_GOTO(HS_ALLOC(buf, (size_t)n * 2, "bench buffers"), done);
    hs_phase_times save = c->times;
    for (int r = 0; r < reps; ++r) {
        double res;
        int32_t node;
        hs_phase_times t0 = c->times;
        HS_CALL_GOTO(cpu_assemble(b, &res, &node), done);
        te[r] = c->times.element - t0.element;
        ta[r] = c->times.assembly - t0.assembly;
        double w0 = hs_wtime();
        c->lay->ops->apply_ref(c->lay, c->kval, c->rhs, c->du);
        ts[r] = hs_wtime() - w0;
        hs_cg_opts o = {0.0, 10, p->opt.cg.variant}; /* tolerance 0: exactly 10 iterations */
        hs_cg_result cr;
        matvec_ctx ctx = {c};
        w0 = hs_wtime();
        HS_CALL_GOTO(hs_cg_solve(n, cpu_matvec, &ctx, c->inv_diag, c->rhs, c->du, &o, c->cg, &cr), done);
        tc[r] = (hs_wtime() - w0) / (cr.iters > 0 ? cr.iters : 1);
    }
    c->times = save;
    /* copy bandwidth: memcpy of 2 x n doubles, read + write counted */
    double *tb = te; /* reuse after taking the medians below */
    out->element = hs_median(te, reps);
    out->assembly = hs_median(ta, reps);
    out->spmv = hs_median(ts, reps);
    out->cg_iter = hs_median(tc, reps);
    for (int r = 0; r < reps; ++r) {
        double w0 = hs_wtime();
        memcpy(buf + n, buf, sizeof(double) * (size_t)n);
        tb[r] = hs_wtime() - w0;
    }
    out->copy_bw = 2.0 * sizeof(double) * n / hs_median(tb, reps);
    out->naive_cg_iter = NAN;
    out->reps = reps;
    hs_phase_bytes(p, c->lay->n_slots, out);
done:
    free(te); free(ta); free(tc); free(ts); free(buf);
    return st;
}

static void cpu_get_times(const hs_backend *b, hs_phase_times *t) { *t = ((cpu_impl *)b->impl)->times; }

static const hs_backend_ops cpu_ops = {
    .name = "cpu",
    .begin_step = cpu_begin_step,
    .assemble = cpu_assemble,
    .solve = cpu_solve,
    .end_step = cpu_end_step,
    .restore_step = cpu_restore_step,
    .get_state = cpu_get_state,
    .set_state = cpu_set_state,
    .get_history = cpu_get_history,
    .set_history = cpu_set_history,
    .get_times = cpu_get_times,
    .get_system = cpu_get_system,
    .bench = cpu_bench,
    .destroy = cpu_destroy,
};

hs_status hs_backend_cpu_create(const hs_problem *p, hs_backend **out)
{
    *out = NULL;
    hs_status st = HS_OK;
    hs_backend *b = NULL;
    cpu_impl *c = NULL;
    int32_t nn = p->mesh->n_nodes, ne = p->mesh->n_elems;
    HS_CHECK(p->opt.spmv != NULL, HS_ERR_INTERNAL, "no SpMV format selected");
    HS_CHECK(!p->opt.spmv->needs_device, HS_ERR_CONFIG,
             "solver.spmv: kernel \"%s\" runs only on the cuda backend (see `heartsim kernels`)",
             p->opt.spmv->name);
    HS_CALL(HS_ALLOC(b, 1, "backend"));
    b->ops = &cpu_ops;
    b->prob = p;
    HS_CALL_GOTO(HS_ALLOC(c, 1, "cpu backend"), fail);
    b->impl = c;
    HS_CALL_GOTO(hs_spmv_layout_create(p->opt.spmv, p->pattern, &p->opt.spmv_params, &c->lay), fail);
    HS_CALL_GOTO(HS_ALLOC(c->phi, nn, "phi"), fail);
    HS_CALL_GOTO(HS_ALLOC(c->phi_n, nn, "phi_n"), fail);
    HS_CALL_GOTO(HS_ALLOC(c->r, ne, "r"), fail);
    HS_CALL_GOTO(HS_ALLOC(c->r_n, ne, "r_n"), fail);
    HS_CALL_GOTO(HS_ALLOC(c->act, nn, "activation times"), fail);
    HS_CALL_GOTO(HS_ALLOC(c->ke, (size_t)ne * 16, "element matrices"), fail);
    HS_CALL_GOTO(HS_ALLOC(c->re, (size_t)ne * 4, "element residuals"), fail);
    HS_CALL_GOTO(HS_ALLOC(c->kval, c->lay->n_slots, "tangent matrix values"), fail);
    HS_CALL_GOTO(HS_ALLOC(c->rhs, nn, "residual"), fail);
    HS_CALL_GOTO(HS_ALLOC(c->du, nn, "Newton update"), fail);
    HS_CALL_GOTO(HS_ALLOC(c->inv_diag, nn, "Jacobi preconditioner"), fail);
    HS_CALL_GOTO(HS_ALLOC(c->res_w, nn, "residual weights"), fail);
    HS_CALL_GOTO(HS_ALLOC(c->stim_e, ne, "element stimulus"), fail);
    HS_CALL_GOTO(hs_cg_work_create(nn, &c->cg), fail);
    if (p->opt.extrapolate > 0) {
        HS_CALL_GOTO(HS_ALLOC(c->phi_h1, nn, "phi history"), fail);
        HS_CALL_GOTO(HS_ALLOC(c->phi_h2, nn, "phi history"), fail);
    }
    c->ex.order = p->opt.extrapolate;
    hs_extrap_reset(&c->ex);
    for (int32_t i = 0; i < nn; ++i) c->act[i] = -1.0;
    snprintf(b->description, sizeof b->description, "cpu (OpenMP, %d threads, spmv %s, cg %s)",
             omp_get_max_threads(), p->opt.spmv->name, hs_cg_variant_name(p->opt.cg.variant));
    *out = b;
    return HS_OK;
fail:
    hs_backend_destroy(&b);
    return st;
}

void hs_backend_destroy(hs_backend **b)
{
    if (!b || !*b) return;
    if ((*b)->ops && (*b)->ops->destroy) (*b)->ops->destroy(*b);
    free(*b);
    *b = NULL;
}
