/*
 * Krylov methods of solver.krylov with any preconditioner given as a callback: preconditioned CG
 * (classic, Chronopoulos-Gear) and right-preconditioned BiCGStab. The CPU reference of seed 004
 * ch. 5 (and what the CPU backend runs for every combination other than Jacobi-CG, which keeps the
 * specialised loops of cg.c). Deterministic dot products (hs_vec_dot).
 */
#include "hs_precond.h"

#include <math.h>
#include <stdlib.h>

#include "hs_util.h"
#include "hs_vec.h"

static const hs_krylov_info k_krylovs[] = {
#define HS_KRYLOV(enumerator, name, needs_symmetric, summary, seed) [enumerator] = {name, enumerator, needs_symmetric, summary, seed},
#include "hs_krylov_list.h"
#undef HS_KRYLOV
};
static const hs_registry k_krylov_reg = HS_REGISTRY_INIT("Krylov method", k_krylovs);

const hs_registry *hs_krylovs(void) { return &k_krylov_reg; }

const char *hs_krylov_name(hs_krylov k)
{
    return (size_t)k < k_krylov_reg.count ? k_krylovs[k].name : "(unknown)";
}

hs_status hs_krylov_lookup(const char *key, const char *name, hs_krylov *out)
{
    const void *e = NULL;
    HS_CALL(hs_registry_lookup(&k_krylov_reg, key, name, NULL, &e));
    *out = ((const hs_krylov_info *)e)->kind;
    return HS_OK;
}

hs_status hs_krylov_precond_check(hs_krylov k, hs_precond_kind p)
{
    HS_CHECK((size_t)k < k_krylov_reg.count, HS_ERR_INTERNAL, "Krylov method %d not in the list", (int)k);
    const hs_precond_info *pi = hs_registry_find(hs_preconds(), hs_precond_name(p));
    HS_CHECK(pi, HS_ERR_INTERNAL, "preconditioner %d not in the list", (int)p);
    HS_CHECK(!k_krylovs[k].needs_symmetric || pi->symmetric, HS_ERR_CONFIG,
             "solver.krylov = \"%s\" needs a symmetric preconditioner, and solver.precond = \"%s\" is not symmetric: "
             "use solver.precond = \"fsai\" (its factorised symmetric form) with %s, or solver.krylov = \"bicgstab\" "
             "with %s", k_krylovs[k].name, pi->name, k_krylovs[k].name, pi->name);
    return HS_OK;
}

hs_status hs_krylov_work_create(int32_t n, hs_krylov_work **out)
{
    *out = NULL;
    hs_krylov_work *w = NULL;
    HS_CALL(HS_ALLOC(w, 1, "Krylov workspace"));
    w->n = n;
    hs_status st;
    for (int k = 0; k < 8; ++k) HS_CALL_GOTO(HS_ALLOC(w->v[k], n > 0 ? n : 1, "Krylov work vector"), fail);
    *out = w;
    return HS_OK;
fail:
    hs_krylov_work_destroy(&w);
    return st;
}

void hs_krylov_work_destroy(hs_krylov_work **p)
{
    if (!p || !*p) return;
    for (int k = 0; k < 8; ++k) free((*p)->v[k]);
    free(*p);
    *p = NULL;
}

hs_status hs_pcg(int32_t n, hs_matvec_fn A, void *actx, hs_precond_fn M, void *mctx, const double *b,
                 double *x, const hs_cg_opts *opts, hs_krylov_work *w, hs_cg_result *res)
{
    HS_CHECK(w && w->n >= n, HS_ERR_INTERNAL, "Krylov workspace too small (%d < %d)", w ? w->n : -1, n);
    double *r = w->v[0], *u = w->v[1], *p = w->v[2], *q = w->v[3], *s = w->v[4];
    const int chrono = opts->variant == HS_CG_CHRONOPOULOS;
    double bnorm = 0.0;
    if (hs_krylov_start(n, b, x, r, res, &bnorm)) return HS_OK;
    M(mctx, r, u);
    double gamma = hs_vec_dot(n, r, u), gamma_old = 0.0, alpha = 0.0;
    const double target = opts->tol * bnorm;
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
    for (int32_t i = 0; i < n; ++i) p[i] = chrono ? 0.0 : u[i], s[i] = 0.0;
    for (int it = 1; it <= opts->max_iter; ++it) {
        res->iters = it;
        if (chrono) { /* w = A u, delta = (A u, u); (p, A p) = delta - beta gamma / alpha_old */
            A(actx, u, q);
            double delta = hs_vec_dot(n, q, u);
            double beta;
            if (!hs_cgc_coef(it, gamma, gamma_old, delta, &alpha, &beta, res)) return HS_OK;
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
            for (int32_t i = 0; i < n; ++i) {
                p[i] = u[i] + beta * p[i];
                s[i] = q[i] + beta * s[i];
                x[i] += alpha * p[i];
                r[i] -= alpha * s[i];
            }
        } else {
            A(actx, p, q);
            double pq = hs_vec_dot(n, p, q);
            if (!isfinite(pq)) { res->outcome = HS_CG_NONFINITE; return HS_OK; }
            if (pq <= 0.0 || gamma <= 0.0) { res->outcome = HS_CG_BREAKDOWN; return HS_OK; }
            alpha = gamma / pq;
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
            for (int32_t i = 0; i < n; ++i) x[i] += alpha * p[i], r[i] -= alpha * q[i];
        }
        double rr = hs_vec_dot(n, r, r);
        res->rel_res = sqrt(rr) / bnorm;
        if (!isfinite(rr)) { res->outcome = HS_CG_NONFINITE; return HS_OK; }
        if (sqrt(rr) <= target) return HS_OK;
        M(mctx, r, u);
        gamma_old = gamma;
        gamma = hs_vec_dot(n, r, u);
        if (!chrono) {
            double beta = gamma / gamma_old;
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
            for (int32_t i = 0; i < n; ++i) p[i] = u[i] + beta * p[i];
        }
    }
    res->outcome = HS_CG_MAX_ITER;
    return HS_OK;
}

hs_status hs_bicgstab(int32_t n, hs_matvec_fn A, void *actx, hs_precond_fn M, void *mctx, const double *b,
                      double *x, const hs_cg_opts *opts, hs_krylov_work *w, hs_cg_result *res)
{
    HS_CHECK(w && w->n >= n, HS_ERR_INTERNAL, "Krylov workspace too small (%d < %d)", w ? w->n : -1, n);
    double *r = w->v[0], *r0 = w->v[1], *p = w->v[2], *v = w->v[3], *ph = w->v[4], *s = w->v[5];
    double *sh = w->v[6], *t = w->v[7];
    double bnorm = 0.0;
    if (hs_krylov_start(n, b, x, r, res, &bnorm)) return HS_OK;
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
    for (int32_t i = 0; i < n; ++i) r0[i] = r[i], p[i] = 0.0, v[i] = 0.0;
    double rho_old = 1.0, alpha = 1.0, omega = 1.0;
    const double target = opts->tol * bnorm;
    for (int it = 1; it <= opts->max_iter; ++it) {
        res->iters = it;
        double rho = hs_vec_dot(n, r0, r);
        if (!isfinite(rho)) { res->outcome = HS_CG_NONFINITE; return HS_OK; }
        if (rho == 0.0) { res->outcome = HS_CG_BREAKDOWN; return HS_OK; }
        double beta = (rho / rho_old) * (alpha / omega);
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
        for (int32_t i = 0; i < n; ++i) p[i] = r[i] + beta * (p[i] - omega * v[i]);
        M(mctx, p, ph);
        A(actx, ph, v);
        double r0v = hs_vec_dot(n, r0, v);
        if (!isfinite(r0v)) { res->outcome = HS_CG_NONFINITE; return HS_OK; }
        if (r0v == 0.0) { res->outcome = HS_CG_BREAKDOWN; return HS_OK; }
        alpha = rho / r0v;
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
        for (int32_t i = 0; i < n; ++i) s[i] = r[i] - alpha * v[i];
        double ss = hs_vec_dot(n, s, s);
        if (!isfinite(ss)) { res->outcome = HS_CG_NONFINITE; return HS_OK; }
        if (sqrt(ss) <= target) { /* converged at the half-step */
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
            for (int32_t i = 0; i < n; ++i) x[i] += alpha * ph[i];
            res->rel_res = sqrt(ss) / bnorm;
            return HS_OK;
        }
        M(mctx, s, sh);
        A(actx, sh, t);
        double tt = hs_vec_dot(n, t, t), ts = hs_vec_dot(n, t, s);
        if (!isfinite(tt) || !isfinite(ts)) { res->outcome = HS_CG_NONFINITE; return HS_OK; }
        omega = tt > 0.0 ? ts / tt : 0.0;
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
        for (int32_t i = 0; i < n; ++i) {
            x[i] += alpha * ph[i] + omega * sh[i];
            r[i] = s[i] - omega * t[i];
        }
        double rr = hs_vec_dot(n, r, r);
        res->rel_res = sqrt(rr) / bnorm;
        if (!isfinite(rr)) { res->outcome = HS_CG_NONFINITE; return HS_OK; }
        if (sqrt(rr) <= target) return HS_OK;
        if (omega == 0.0) { res->outcome = HS_CG_BREAKDOWN; return HS_OK; }
        rho_old = rho;
    }
    res->outcome = HS_CG_MAX_ITER;
    return HS_OK;
}

hs_status hs_krylov_solve(hs_krylov k, int32_t n, hs_matvec_fn A, void *actx, hs_precond_fn M, void *mctx,
                          const double *b, double *x, const hs_cg_opts *opts, hs_krylov_work *work,
                          hs_cg_result *res)
{
    if (k == HS_KRYLOV_BICGSTAB) return hs_bicgstab(n, A, actx, M, mctx, b, x, opts, work, res);
    return hs_pcg(n, A, actx, M, mctx, b, x, opts, work, res);
}
