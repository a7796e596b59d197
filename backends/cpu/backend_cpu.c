#define _DEFAULT_SOURCE /* getloadavg */
/*
 * The CPU backend (OpenMP): the reference implementation of every primitive of hs_backend_ops
 * (the step and the state). The element pass and the gather-map assembly are the same algorithm
 * the GPU runs. Its diagnostics (hs_backend_diag_ops) are in backends/cpu/diag_cpu.c.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "hs_build_config.h"
#include "hs_element.h"
#include "hs_readout.h"
#include "hs_splitting.h"
#include "hs_util.h"
#include "hs_vec.h"


static void cpu_destroy(hs_backend *b)
{
    cpu_impl *c = b->impl;
    if (!c) return;
    hs_spmv_layout_destroy(&c->lay);
    free(c->phi); free(c->phi_n); free(c->ipv); free(c->ipv_n); free(c->act);
    free(c->ke); free(c->re); free(c->km); free(c->rm); free(c->kval); free(c->kval32); free(c->rhs); free(c->du);
    free(c->inv_diag); free(c->res_w); free(c->stim_e); free(c->phi_h1); free(c->phi_h2);
    free(c->stim_n); free(c->bval); free(c->split_b);
    hs_cg_work_destroy(&c->cg);
    for (int k = 0; k < HS_SAMPLE_SETS; ++k) free(c->sbuf[k]);
    hs_csr_destroy(&c->kcsr);
    hs_precond_destroy(&c->pc);
    hs_krylov_work_destroy(&c->kw);
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
    memcpy(c->ipv_n, c->ipv, sizeof(double) * hs_state_vars_len(&b->state));
    if (c->splitting) return HS_OK; /* the splitting step's start: saved; react and diffuse do the rest */
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

/* The element pass: the model's local update at each integration point and the element's share of
 * K and R: its full matrix and residual (full) or its two scalars (split). Returns the smallest
 * element whose local update failed, or -1. */
static int32_t element_pass(cpu_impl *c, const hs_problem *p)
{
    const hs_mesh *m = p->mesh;
    const int nv = p->opt.model_prm.n_vars;
    const int64_t ne = m->n_elems;
    const int split = p->opt.assembly == HS_ASSEMBLY_SPLIT;
    const hs_region_set *rg = p->opt.regions;
    const uint16_t *etab = rg ? rg->elem_tab : NULL;
    int32_t bad = -1;
#pragma omp parallel for schedule(static) if (m->n_elems >= c->min_elem)
    for (int32_t e = 0; e < m->n_elems; ++e) {
        const int32_t *t = m->tets + 4 * (int64_t)e;
        double ph[4] = {c->phi[t[0]], c->phi[t[1]], c->phi[t[2]], c->phi[t[3]]};
        double pn[4] = {c->phi_n[t[0]], c->phi_n[t[1]], c->phi_n[t[2]], c->phi_n[t[3]]};
        double sn[HS_MODEL_MAX_VARS], s[HS_MODEL_MAX_VARS]; /* the model's variables at this point */
        for (int k = 0; k < nv; ++k) sn[k] = c->ipv_n[k * ne + e], s[k] = c->ipv[k * ne + e];
        /* heterogeneous tissue: the element's row of the region table (fem/hs_region.h) */
        const hs_model_params *prm = &p->opt.model_prm;
        if (etab) {
            const hs_region_row *row = &rg->tab[etab[e]];
            if (!row->conducting) { /* a hole: no current, no capacitance; variables frozen */
                if (split) {
                    c->km[e] = 0.0;
                    c->rm[e] = 0.0;
                } else {
                    for (int q = 0; q < 16; ++q) c->ke[16 * (int64_t)e + q] = 0.0;
                    for (int q = 0; q < 4; ++q) c->re[4 * (int64_t)e + q] = 0.0;
                }
                for (int k = 0; k < nv; ++k) c->ipv[k * ne + e] = sn[k];
                continue;
            }
            prm = &row->prm;
        }
        int it = split ? hs_element_point(prm, c->dt, p->geom->vol[e], ph, pn, c->stim_e[e], sn, s,
                                          c->km + e, c->rm + e)
                       : hs_element_eval(prm, c->dt, p->geom->vol[e], p->geom->kd + 10 * (int64_t)e,
                                         ph, pn, c->stim_e[e], sn, s, c->ke + 16 * (int64_t)e, c->re + 4 * (int64_t)e);
        for (int k = 0; k < nv; ++k) c->ipv[k * ne + e] = s[k];
        if (it < 0) {
#pragma omp critical
            if (bad < 0 || e < bad) bad = e;
        }
    }
    return bad;
}

/* The gathers of K and R (fem/) decide by their own small-mesh threshold; where this run keeps them
 * serial above it (cores busy: hs_cpu_omp_cores_free), they run with a team of one. Returns the
 * thread count to restore, 0 when nothing was changed. */
static int gathers_begin(const cpu_impl *c, int64_t ne)
{
    if (ne >= c->min_asm || ne < HS_OMP_MIN_ASSEMBLY_ELEMS) return 0;
    const int nt = omp_get_max_threads();
    omp_set_num_threads(1);
    return nt;
}

static void gathers_end(int nt)
{
    if (nt) omp_set_num_threads(nt);
}

/* K from the last element pass (the split pairs or the full gather), float32 rounding, the Jacobi
 * diagonal */
static void form_k(hs_backend *b)
{
    cpu_impl *c = b->impl;
    const hs_problem *p = b->prob;
    const int32_t nn = p->mesh->n_nodes;
    const int64_t *slot = c->lay->slot_of_nnz;
    if (p->split) hs_split_assemble_k(p->split, c->km, slot, c->kval);
    else hs_assemble_k(p->map, c->ke, slot, c->kval);
    if (c->kval32) {
        /* float32 values: the double sums rounded once, as the cuda backend stores them; the Jacobi
         * diagonal is the CG matrix's own (rounded) one */
        hs_spmv_round_values(c->lay->n_slots, c->kval, c->kval32);
#pragma omp parallel for schedule(static) if (nn > HS_OMP_MIN)
        for (int32_t i = 0; i < nn; ++i) c->inv_diag[i] = 1.0 / (double)c->kval32[slot[p->map->diag[i]]];
    } else {
#pragma omp parallel for schedule(static) if (nn > HS_OMP_MIN)
        for (int32_t i = 0; i < nn; ++i) c->inv_diag[i] = 1.0 / c->kval[slot[p->map->diag[i]]];
    }
    c->k_stale = 0;
}

hs_status hs_cpu_assemble(hs_backend *b, double *res_norm, int32_t *res_node)
{
    cpu_impl *c = b->impl;
    const hs_problem *p = b->prob;
    const hs_mesh *m = p->mesh;
    const int nv = p->opt.model_prm.n_vars;
    const int64_t ne = m->n_elems;
    double t0 = hs_wtime();
    int32_t bad = element_pass(c, p);
    double t1 = hs_wtime();
    c->times.element += t1 - t0;
    if (bad >= 0) {
        const hs_model *model = p->opt.model;
        char vars[256] = "";
        size_t o = 0;
        for (int k = 0; k < nv && o < sizeof vars; ++k)
            o += (size_t)snprintf(vars + o, sizeof vars - o, ", %s_n %.6g", model->vars[k].name, c->ipv_n[k * ne + bad]);
        const double uc = 0.25 * (c->phi[m->tets[4 * (int64_t)bad]] + c->phi[m->tets[4 * (int64_t)bad + 1]] +
                                  c->phi[m->tets[4 * (int64_t)bad + 2]] + c->phi[m->tets[4 * (int64_t)bad + 3]]);
        if (nv == 1)
            return HS_FAIL(HS_ERR_NUMERIC, "the local Newton iteration for %s failed in element %d (%s at its centroid "
                           "%.6g%s)", model->vars[0].name, bad, model->potential_name, uc, vars);
        return HS_FAIL(HS_ERR_NUMERIC, "the local update of the %s model failed in element %d (%s at its centroid %.6g%s)",
                       model->name, bad, model->potential_name, uc, vars);
    }
    const int nt = gathers_begin(c, ne);
    if (p->split) { /* K waits for a solve (cpu_tangent) */
        hs_split_assemble_r(p->split, p->pattern, p->map, c->phi, c->rm, c->rhs);
        c->k_stale = 1;
    } else {
        hs_assemble_r(p->map, c->re, c->rhs);
        form_k(b);
    }
    gathers_end(nt);
    *res_norm = hs_vec_norm_inf_weighted(m->n_nodes, c->rhs, c->res_w, res_node);
    c->res = *res_norm;
    c->times.assembly += hs_wtime() - t1;
    return HS_OK;
}

static hs_status cpu_tangent(hs_backend *b)
{
    cpu_impl *c = b->impl;
    if (!c->k_stale) return HS_OK;
    double t0 = hs_wtime();
    const int nt = gathers_begin(c, b->prob->mesh->n_elems);
    form_k(b);
    gathers_end(nt);
    c->times.assembly += hs_wtime() - t0;
    return HS_OK;
}

void hs_cpu_matvec(void *ctx, const double *x, double *y)
{
    cpu_impl *c = ctx;
    hs_comm *m = c->comm;
    const hs_spmv_ops *f = c->lay->ops;
    double t0 = hs_wtime();
    if (c->kval32 ? !f->apply_rows_ref_f32 : !f->apply_rows_ref) {
        /* a format that multiplies whole matrices: a partition without ghosts only (cpu_part_bind) */
        if (c->kval32) f->apply_ref_f32(c->lay, c->kval32, x, y);
        else f->apply_ref(c->lay, c->kval, x, y);
    } else {
        double *xl = (double *)x; /* a CG work vector: its ghost part is the exchange's to fill */
        hs_status st = hs_comm_halo_start(m, xl);
        if (c->kval32) f->apply_rows_ref_f32(c->lay, c->kval32, 0, m->n_interior, x, y);
        else f->apply_rows_ref(c->lay, c->kval, 0, m->n_interior, x, y);
        if (st == HS_OK) st = hs_comm_halo_finish(m);
        if (m->n_owned > m->n_interior) { /* the boundary rows, with the ghosts arrived */
            if (c->kval32) f->apply_rows_ref_f32(c->lay, c->kval32, m->n_interior, m->n_owned, x, y);
            else f->apply_rows_ref(c->lay, c->kval, m->n_interior, m->n_owned, x, y);
        }
        if (st != HS_OK && m->err == HS_OK) m->err = st; /* reported by the CG's next reduction */
    }
    c->times.spmv += hs_wtime() - t0;
}

hs_status hs_cpu_solve_on(hs_backend *b, const hs_cg_opts *o, hs_cg_result *cg, double *upd_local)
{
    cpu_impl *c = b->impl;
    const hs_problem *p = b->prob;
    const int32_t n = c->comm->n_owned;
    if (!c->pc) {
        HS_CALL(hs_cg_solve(n, hs_cpu_matvec, c, c->inv_diag, c->rhs, c->du, o, c->cg, cg));
    } else { /* one partition only (a distributed run refuses these: part_cpu.c) */
        /* the preconditioner's values from the current tangent every solver.precond_reuse solves
         * (Jacobi: every solve, it costs one pass over the diagonal) */
        if (c->pc_age % p->opt.pc.reuse == 0 || p->opt.pc.precond == HS_PRECOND_JACOBI) {
            double tp = hs_wtime();
            const int64_t *slot = c->lay->slot_of_nnz;
            hs_csr *k = c->kcsr;
#pragma omp parallel for schedule(static) if (k->nnz > HS_OMP_MIN)
            for (int32_t e = 0; e < k->nnz; ++e) k->val[e] = c->kval[slot[e]];
            hs_status ps = hs_precond_compute(c->pc, k);
            if (ps != HS_OK) {
                hs_error_prefix("the tangent of this Newton iteration: ");
                return ps;
            }
            c->times.precond += hs_wtime() - tp;
        }
        c->pc_age++;
        HS_CALL(hs_krylov_solve(p->opt.pc.krylov, n, hs_cpu_matvec, c, hs_precond_apply, c->pc, c->rhs, c->du, o,
                                c->kw, cg));
    }
    if (cg->outcome == HS_CG_CONVERGED) {
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
        for (int32_t i = 0; i < n; ++i) c->phi[i] -= c->du[i];
        HS_CALL(hs_comm_halo(c->comm, c->phi)); /* the ghosts of phi from their owners */
    }
    *upd_local = hs_vec_norm_inf(n, c->du, NULL);
    return HS_OK;
}

static hs_status cpu_solve(hs_backend *b, hs_cg_result *cg, double *upd_norm)
{
    cpu_impl *c = b->impl;
    const hs_problem *p = b->prob;
    /* K of a split assembly, when the solve is its first user: timed as assembly by cpu_tangent, so
     * before the solve's clock starts (each second in one phase: the phases sum to at most the loop) */
    HS_CALL(cpu_tangent(b));
    double t0 = hs_wtime();
    hs_cg_opts o = p->opt.cg;
    o.tol = hs_cg_forcing_tol(p->opt.cg.tol, p->opt.cg_forcing, p->opt.newton_tol_residual, c->res);
    HS_CALL(hs_cpu_solve_on(b, &o, cg, upd_norm));
    c->times.solve += hs_wtime() - t0;
    return HS_OK;
}

static hs_status cpu_end_step(hs_backend *b, double t_prev, double dt_ms)
{
    cpu_impl *c = b->impl;
    const hs_problem *p = b->prob;
    const double thr = p->opt.activation_phi, thr_rep = p->opt.repol_phi;
    const int32_t nn = p->mesh->n_nodes;
    double *act = c->act, *rep = c->act + nn, *apd = c->act + 2 * (size_t)nn, *beats = c->act + 3 * (size_t)nn;
#pragma omp parallel for schedule(static) if (nn > HS_OMP_MIN)
    for (int32_t i = 0; i < nn; ++i)
        hs_readout_update(c->phi_n[i], c->phi[i], thr, thr_rep, t_prev, dt_ms, act + i, rep + i, apd + i, beats + i);
    if (p->opt.extrapolate > 0 && c->splitting) { /* the diffusion's correction: the next solve's guess */
        double *t = c->phi_h2; /* d_1 becomes d_2 */
        c->phi_h2 = c->phi_h1;
        c->phi_h1 = t;
        memcpy(c->phi_h1, c->du, sizeof(double) * (size_t)p->mesh->n_nodes);
        hs_extrap_accept(&c->ex, c->dt);
    } else if (p->opt.extrapolate > 0) { /* history for the next step's first iterate */
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
    memcpy(c->ipv, c->ipv_n, sizeof(double) * hs_state_vars_len(&b->state));
    return HS_OK;
}

/* Field k of the state where this backend keeps it: phi, a block row of ipv, or act. */
static double *field_ptr(hs_backend *b, int k)
{
    cpu_impl *c = b->impl;
    if (k == HS_STATE_POTENTIAL) return c->phi;
    if (k >= b->state.activation) return c->act + (size_t)(k - b->state.activation) * (size_t)b->state.n_nodes;
    return c->ipv + (size_t)(k - 1) * hs_state_vars_stride(&b->state);
}

static hs_status cpu_get_state(hs_backend *b, hs_state *dst)
{
    HS_CALL(hs_state_check(&b->state, dst));
    for (int k = 0; k < b->state.n_fields; ++k)
        if (dst->field[k]) memcpy(dst->field[k], field_ptr(b, k), sizeof(double) * hs_state_field_len(&b->state, k));
    return HS_OK;
}

static hs_status cpu_set_state(hs_backend *b, const hs_state *src)
{
    HS_CALL(hs_state_check(&b->state, src));
    for (int k = 0; k < b->state.n_fields; ++k)
        if (src->field[k]) memcpy(field_ptr(b, k), src->field[k], sizeof(double) * hs_state_field_len(&b->state, k));
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

static hs_status cpu_sample_setup(hs_backend *b, int set, const hs_sample_set *s, int cap)
{
    cpu_impl *c = b->impl;
    HS_CHECK(set >= 0 && set < HS_SAMPLE_SETS && cap > 0, HS_ERR_INTERNAL, "sample set %d, %d rows", set, cap);
    free(c->sbuf[set]);
    c->sbuf[set] = NULL;
    HS_CALL(HS_ALLOC(c->sbuf[set], (size_t)cap * (size_t)s->n_rows + 1, "sample buffer"));
    c->smp[set] = s;
    c->scap[set] = cap;
    return HS_OK;
}

static hs_status cpu_sample(hs_backend *b, int set, int slot)
{
    cpu_impl *c = b->impl;
    HS_CHECK(set >= 0 && set < HS_SAMPLE_SETS && c->smp[set] && slot >= 0 && slot < c->scap[set], HS_ERR_INTERNAL,
             "sample set %d slot %d", set, slot);
    hs_sample_apply_ref(c->smp[set], c->phi, c->sbuf[set] + (size_t)slot * (size_t)c->smp[set]->n_rows);
    return HS_OK;
}

static hs_status cpu_sample_fetch(hs_backend *b, int set, int n, double *dst)
{
    cpu_impl *c = b->impl;
    HS_CHECK(set >= 0 && set < HS_SAMPLE_SETS && c->smp[set] && n >= 0 && n <= c->scap[set], HS_ERR_INTERNAL,
             "sample set %d: %d rows", set, n);
    memcpy(dst, c->sbuf[set], sizeof(double) * (size_t)n * (size_t)c->smp[set]->n_rows);
    return HS_OK;
}

static void cpu_get_times(const hs_backend *b, hs_phase_times *t) { *t = ((cpu_impl *)b->impl)->times; }

static const hs_backend_ops cpu_ops = {
    .name = "cpu",
    .begin_step = cpu_begin_step,
    .assemble = hs_cpu_assemble,
    .tangent = cpu_tangent,
    .solve = cpu_solve,
    .end_step = cpu_end_step,
    .restore_step = cpu_restore_step,
    .get_state = cpu_get_state,
    .set_state = cpu_set_state,
    .get_history = cpu_get_history,
    .set_history = cpu_set_history,
    .get_times = cpu_get_times,
    .destroy = cpu_destroy,
    .sample_setup = cpu_sample_setup,
    .sample = cpu_sample,
    .sample_fetch = cpu_sample_fetch,
    .react = hs_cpu_react,
    .diffuse = hs_cpu_diffuse,
};

int hs_cpu_omp_cores_free(int threads, int n_cpus, double loadavg)
{
    return threads <= 1 || loadavg <= n_cpus - threads + 0.5;
}

void hs_cpu_omp_text(int threads, int min_elem, int min_asm, const char *why, int64_t n_elems, int64_t n_rows,
                     char *buf, size_t size)
{
    if (threads <= 1) {
        snprintf(buf, size, "1 thread");
        return;
    }
    const int el = n_elems >= min_elem, as = n_elems >= min_asm, cg = n_rows > HS_OMP_MIN;
    const char *sep = why && *why ? ": " : "", *w = why && *why ? why : "";
    size_t o = (size_t)snprintf(buf, size, "%d threads", threads);
    if ((el || as || cg) && o < size) /* what runs on the threads */
        o += (size_t)snprintf(buf + o, size - o, "; parallel: %s%s%s%s%s", el ? "element pass" : "",
                              el && (as || cg) ? ", " : "", as ? "assembly" : "", as && cg ? ", " : "", cg ? "CG" : "");
    if ((!el || !as || !cg) && o < size) /* what stays on one thread on this mesh, and below what */
        o += (size_t)snprintf(buf + o, size - o, "; serial here: ");
    if (!el && !as && min_elem == min_asm && o < size)
        o += (size_t)snprintf(buf + o, size - o, "element pass, assembly (< %d elements%s%s)", min_elem, sep, w);
    else {
        if (!el && o < size) o += (size_t)snprintf(buf + o, size - o, "element pass (< %d elements%s%s)", min_elem, sep, w);
        if (!as && o < size)
            o += (size_t)snprintf(buf + o, size - o, "%sassembly (< %d elements%s%s)", el ? "" : ", ", min_asm, sep, w);
    }
    if (!cg && o < size) snprintf(buf + o, size - o, "%sCG (<= %d rows)", el && as ? "" : ", ", HS_OMP_MIN);
}

static hs_status cpu_create(const hs_problem *p, hs_backend **out)
{
    *out = NULL;
    hs_status st = HS_OK;
    hs_backend *b = NULL;
    cpu_impl *c = NULL;
    int32_t nn = p->mesh->n_nodes, ne = p->mesh->n_elems;
    HS_CHECK(p->opt.exec.spmv != NULL, HS_ERR_INTERNAL, "no SpMV format selected");
    HS_CHECK(!p->opt.exec.spmv->needs_device, HS_ERR_CONFIG,
             "solver.spmv: kernel \"%s\" runs only on the cuda backend (see `heartsim kernels`)",
             p->opt.exec.spmv->name);
    HS_CALL(HS_ALLOC(b, 1, "backend"));
    b->ops = &cpu_ops;
    b->diag = &hs_cpu_diag_ops;
    b->prob = p;
    const int splitting = p->opt.scheme.kind == HS_SCHEME_SPLITTING;
    hs_state_desc_init_scheme(&b->state, p->opt.model, p->opt.scheme.kind, nn, ne);
    HS_CALL_GOTO(HS_ALLOC(c, 1, "cpu backend"), fail);
    b->impl = c;
    HS_CALL_GOTO(hs_spmv_layout_create(p->opt.exec.spmv, p->pattern, &p->opt.spmv_params, &c->lay), fail);
    HS_CALL_GOTO(HS_ALLOC(c->phi, nn, "phi"), fail);
    HS_CALL_GOTO(HS_ALLOC(c->phi_n, nn, "phi_n"), fail);
    c->splitting = splitting;
    const size_t nip = hs_state_vars_len(&b->state);
    HS_CALL_GOTO(HS_ALLOC(c->ipv, nip + 1, "model variables"), fail);
    HS_CALL_GOTO(HS_ALLOC(c->ipv_n, nip + 1, "model variables of the last step"), fail);
    HS_CALL_GOTO(HS_ALLOC(c->act, (size_t)HS_STATE_READOUTS * (size_t)nn, "activation, repolarisation, APD, beats"), fail);
    if (splitting) { /* the node current, B and B u* (split_cpu.c); no element arrays */
        HS_CALL_GOTO(HS_ALLOC(c->stim_n, nn, "node stimulus"), fail);
        HS_CALL_GOTO(HS_ALLOC(c->split_b, nn, "diffusion right-hand side"), fail);
        if (p->opt.scheme.mass != HS_MASS_LUMPED || p->opt.scheme.theta != 1.0)
            HS_CALL_GOTO(HS_ALLOC(c->bval, c->lay->n_slots, "diffusion right-hand-side matrix"), fail);
    } else if (p->split) {
        HS_CALL_GOTO(HS_ALLOC(c->km, ne, "element tangent scalars"), fail);
        HS_CALL_GOTO(HS_ALLOC(c->rm, ne, "element residual scalars"), fail);
    } else {
        HS_CALL_GOTO(HS_ALLOC(c->ke, (size_t)ne * 16, "element matrices"), fail);
        HS_CALL_GOTO(HS_ALLOC(c->re, (size_t)ne * 4, "element residuals"), fail);
    }
    HS_CALL_GOTO(HS_ALLOC(c->kval, c->lay->n_slots, "tangent matrix values"), fail);
    if (p->opt.exec.values == HS_VALUES_F32) /* the plan's kernel serves it (checked once: hs_sim_create) */
        HS_CALL_GOTO(HS_ALLOC(c->kval32, c->lay->n_slots, "tangent matrix values (float32)"), fail);
    HS_CALL_GOTO(HS_ALLOC(c->rhs, nn, "residual"), fail);
    HS_CALL_GOTO(HS_ALLOC(c->du, nn, "Newton update"), fail);
    HS_CALL_GOTO(HS_ALLOC(c->inv_diag, nn, "Jacobi preconditioner"), fail);
    if (!splitting) {
        HS_CALL_GOTO(HS_ALLOC(c->res_w, nn, "residual weights"), fail);
        HS_CALL_GOTO(HS_ALLOC(c->stim_e, ne, "element stimulus"), fail);
    }
    HS_CALL_GOTO(hs_cg_work_create(nn, &c->cg), fail);
    c->serial = hs_comm_serial(nn); /* one partition, no ghost, until a partition is bound */
    c->comm = &c->serial;
    c->cg->comm = c->comm;
    if (p->opt.pc.precond != HS_PRECOND_JACOBI || p->opt.pc.krylov != HS_KRYLOV_CG) {
        HS_CALL_GOTO(hs_krylov_precond_check(p->opt.pc.krylov, p->opt.pc.precond), fail);
        const hs_csr *pat = p->pattern;
        HS_CALL_GOTO(hs_csr_create(pat->n_rows, pat->n_cols, pat->nnz, &c->kcsr), fail);
        memcpy(c->kcsr->row_ptr, pat->row_ptr, sizeof(int32_t) * ((size_t)pat->n_rows + 1));
        memcpy(c->kcsr->col, pat->col, sizeof(int32_t) * (size_t)pat->nnz);
        HS_CALL_GOTO(hs_precond_create(p->opt.pc.precond, p->opt.pc.sai_level, pat, &c->pc), fail);
        HS_CALL_GOTO(hs_krylov_work_create(nn, &c->kw), fail);
    }
    c->cg->sstep_reuse = 1; /* solver.cg = sstep: the Newton matrices of a run are close, keep the interval */
    if (p->opt.extrapolate > 0) {
        HS_CALL_GOTO(HS_ALLOC(c->phi_h1, nn, "phi history"), fail);
        HS_CALL_GOTO(HS_ALLOC(c->phi_h2, nn, "phi history"), fail);
    }
    c->ex.order = p->opt.extrapolate;
    hs_extrap_reset(&c->ex);
    /* initial state: the descriptor's initial values (phi at rest, the model's initial variables,
     * activation -1) */
    for (int k = 0; k < b->state.n_fields; ++k) {
        double *f = field_ptr(b, k);
        for (size_t i = 0; i < hs_state_field_len(&b->state, k); ++i) f[i] = b->state.f[k].initial;
    }
    char solver[64]; /* "cg chronopoulos, fsai": the longest names fit */
    if (p->opt.pc.krylov == HS_KRYLOV_CG && p->opt.pc.precond == HS_PRECOND_JACOBI) /* the default, as before */
        snprintf(solver, sizeof solver, "cg %s", hs_cg_variant_name(p->opt.cg.variant));
    else if (p->opt.pc.krylov == HS_KRYLOV_CG)
        snprintf(solver, sizeof solver, "cg %s, %s", hs_cg_variant_name(p->opt.cg.variant), hs_precond_name(p->opt.pc.precond));
    else
        snprintf(solver, sizeof solver, "%s, %s", hs_krylov_name(p->opt.pc.krylov), hs_precond_name(p->opt.pc.precond));
    /* the small-mesh OpenMP thresholds while every thread has a core of its own */
    const int threads = omp_get_max_threads();
    double load = 0.0;
    char why[40] = "";
    if (getloadavg(&load, 1) != 1) load = 0.0;
    const int free_cores = hs_cpu_omp_cores_free(threads, omp_get_num_procs(), load);
    c->min_elem = free_cores ? HS_CPU_OMP_MIN_ELEMS : HS_OMP_MIN;
    c->min_asm = free_cores ? HS_OMP_MIN_ASSEMBLY_ELEMS : HS_OMP_MIN;
    if (!free_cores) snprintf(why, sizeof why, "load %.1f on %d cores", load, omp_get_num_procs());
    char omp[128];
    hs_cpu_omp_text(threads, c->min_elem, c->min_asm, why, ne, nn, omp, sizeof omp);
    if (splitting) {
        const int w = snprintf(b->description, sizeof b->description,
                               "cpu (OpenMP, %s; spmv %s%s, %s; %s splitting, theta %g, %s mass)", omp,
                               p->opt.exec.spmv->name, c->kval32 ? " float32 values" : "", solver,
                               hs_split_order_name(p->opt.scheme.order), p->opt.scheme.theta,
                               hs_mass_name(p->opt.scheme.mass));
        if (w >= (int)sizeof b->description) b->description[sizeof b->description - 2] = '.'; /* cut short */
    } else {
        snprintf(b->description, sizeof b->description, "cpu (OpenMP, %s; spmv %s%s, %s, %s assembly)", omp,
                 p->opt.exec.spmv->name, c->kval32 ? " float32 values" : "", solver, hs_assembly_name(p->opt.assembly));
    }
    *out = b;
    return HS_OK;
fail:
    hs_backend_destroy(&b);
    return st;
}

/* The execution plan on the CPU: the host loop (solver.step names the cuda backend's device loops),
 * no persistent CG, float64 values for "auto" (the reference; float32 runs when named, with a kernel
 * that has a float32 reference), and for `solver.spmv = "auto"` csr_scalar, the plain CSR reference
 * (the other formats' references emulate their device's order and are slower on a CPU by design). */
static hs_status cpu_resolve_plan(const hs_csr *pattern, const hs_problem_opts *opt, hs_exec_plan *plan)
{
    (void)pattern;
    (void)opt;
    if (plan->step != HS_STEP_KERNELS) {
        snprintf(plan->why_step, sizeof plan->why_step, "the cpu backend runs the Newton loop of a step on the host");
        plan->step = HS_STEP_KERNELS;
    }
    plan->persistent_cg = 0; /* a kernel of the cuda backend: nothing to say */
    if (plan->values == HS_VALUES_AUTO) {
        plan->values = HS_VALUES_F64;
        snprintf(plan->why_values, sizeof plan->why_values, "the cpu backend is the reference");
    }
    if (!plan->spmv) {
        plan->spmv = &hs_spmv_ops_csr_scalar;
        snprintf(plan->why_spmv, sizeof plan->why_spmv, "cpu backend: the plain row loop");
    }
    return HS_OK;
}

static int cpu_probe(char *desc, size_t desc_len, char *why, size_t why_len)
{
    snprintf(desc, desc_len, "OpenMP, %d threads", omp_get_max_threads());
    if (why_len) why[0] = '\0';
    return 1;
}

const hs_backend_entry hs_backend_cpu = {
    .name = "cpu",
    .summary = "OpenMP on the host: the reference every other backend is tested against",
    .needs_device = 0,
    .probe = cpu_probe,
    .resolve_plan = cpu_resolve_plan,
    .create = cpu_create,
#if HS_HAS_MPI
    .part = &hs_cpu_part_ops,
#endif
};
