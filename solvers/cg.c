/* Jacobi-PCG (textbook form, Saad alg. 9.1 with M = diag A). Deterministic dot products. */
#include "hs_cg.h"

#include <math.h>
#include <stdlib.h>

#include "hs_util.h"
#include "hs_vec.h"

hs_status hs_cg_work_create(int32_t n, hs_cg_work **out)
{
    *out = NULL;
    hs_cg_work *w = NULL;
    HS_CALL(HS_ALLOC(w, 1, "CG workspace"));
    w->n = n;
    hs_status st;
    HS_CALL_GOTO(HS_ALLOC(w->r, n, "CG residual vector"), fail);
    HS_CALL_GOTO(HS_ALLOC(w->z, n, "CG preconditioned residual"), fail);
    HS_CALL_GOTO(HS_ALLOC(w->p, n, "CG search direction"), fail);
    HS_CALL_GOTO(HS_ALLOC(w->q, n, "CG matrix-vector product"), fail);
    HS_CALL_GOTO(HS_ALLOC(w->s, n, "CG recurrence s = A p"), fail);
    *out = w;
    return HS_OK;
fail:
    hs_cg_work_destroy(&w);
    return st;
}

void hs_cg_work_destroy(hs_cg_work **p)
{
    if (!p || !*p) return;
    free((*p)->r);
    free((*p)->z);
    free((*p)->p);
    free((*p)->q);
    free((*p)->s);
    free((*p)->basis);
    free((*p)->pipe);
    free(*p);
    *p = NULL;
}

const char *hs_cg_outcome_name(hs_cg_outcome o)
{
    switch (o) {
    case HS_CG_CONVERGED: return "converged";
    case HS_CG_MAX_ITER: return "did not converge within the iteration limit";
    case HS_CG_BREAKDOWN: return "broke down (the tangent is not positive definite)";
    case HS_CG_NONFINITE: return "produced NaN/Inf";
    }
    return "?";
}

hs_status hs_krylov_start_on(hs_comm *comm, int32_t n, const double *b, double *x, double *r, hs_cg_result *res,
                             double *bnorm, int *over)
{
    res->outcome = HS_CG_CONVERGED;
    res->iters = 0;
    res->rel_res = 0.0;
    res->fallback_iter = 0;
    double bb = hs_vec_dot(n, b, b);
    HS_CALL(hs_comm_sum(comm, &bb, 1));
    *bnorm = sqrt(bb);
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
    for (int32_t i = 0; i < n; ++i) {
        x[i] = 0.0;
        r[i] = b[i];
    }
    *over = 0;
    if (!isfinite(*bnorm)) {
        res->outcome = HS_CG_NONFINITE;
        res->rel_res = *bnorm;
        *over = 1;
    } else {
        *over = *bnorm == 0.0;
    }
    return HS_OK;
}

int hs_cgc_coef(int it, double gamma, double gamma_old, double delta, double *alpha, double *beta, hs_cg_result *res)
{
    *beta = it == 1 ? 0.0 : gamma / gamma_old;
    const double denom = it == 1 ? delta : delta - *beta * gamma / *alpha; /* = (p, A p) */
    if (!isfinite(denom)) {
        res->outcome = HS_CG_NONFINITE;
        return 0;
    }
    if (denom <= 0.0 || gamma <= 0.0) {
        res->outcome = HS_CG_BREAKDOWN;
        return 0;
    }
    *alpha = gamma / denom;
    return 1;
}

int hs_krylov_start(int32_t n, const double *b, double *x, double *r, hs_cg_result *res, double *bnorm)
{
    int over = 0;
    (void)hs_krylov_start_on(NULL, n, b, x, r, res, bnorm, &over); /* serial: cannot fail */
    return over;
}

hs_status hs_cg_jacobi(int32_t n, hs_matvec_fn A, void *ctx, const double *inv_diag,
                       const double *b, double *x, const hs_cg_opts *opts, hs_cg_work *w,
                       hs_cg_result *res)
{
    HS_CHECK(w && w->n >= n, HS_ERR_INTERNAL, "CG workspace too small (%d < %d)", w ? w->n : -1, n);
    hs_comm *comm = w->comm; /* NULL or serial: every reduction below is a no-op */
    double *r = w->r, *z = w->z, *p = w->p, *q = w->q;
    double bnorm = 0.0;
    int over = 0;
    HS_CALL(hs_krylov_start_on(comm, n, b, x, r, res, &bnorm, &over));
    if (over) return HS_OK;
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
    for (int32_t i = 0; i < n; ++i) {
        z[i] = inv_diag[i] * b[i];
        p[i] = z[i];
    }
    double rz = hs_vec_dot(n, r, z);
    HS_CALL(hs_comm_sum(comm, &rz, 1));
    double target = opts->tol * bnorm;
    for (int it = 1; it <= opts->max_iter; ++it) {
        A(ctx, p, q); /* p [n_local]: its ghosts are filled by the operator's halo exchange */
        double pq = hs_vec_dot(n, p, q);
        HS_CALL(hs_comm_sum(comm, &pq, 1));
        if (!isfinite(pq)) { res->outcome = HS_CG_NONFINITE; res->iters = it; return HS_OK; }
        if (pq <= 0.0 || rz <= 0.0) { res->outcome = HS_CG_BREAKDOWN; res->iters = it; return HS_OK; }
        double alpha = rz / pq;
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
        for (int32_t i = 0; i < n; ++i) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
            z[i] = inv_diag[i] * r[i];
        }
        /* (r,r) and the next (r,z) in one reduction (the second is unused after the last iteration) */
        double red[2] = {hs_vec_dot(n, r, r), hs_vec_dot(n, r, z)};
        HS_CALL(hs_comm_sum(comm, red, 2));
        double rr = red[0];
        res->iters = it;
        res->rel_res = sqrt(rr) / bnorm;
        if (!isfinite(rr)) { res->outcome = HS_CG_NONFINITE; return HS_OK; }
        if (sqrt(rr) <= target) return HS_OK;
        double rz_new = red[1];
        double beta = rz_new / rz;
        rz = rz_new;
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
        for (int32_t i = 0; i < n; ++i) p[i] = z[i] + beta * p[i];
    }
    res->outcome = HS_CG_MAX_ITER;
    return HS_OK;
}

hs_status hs_cg_chronopoulos(int32_t n, hs_matvec_fn A, void *ctx, const double *inv_diag,
                             const double *b, double *x, const hs_cg_opts *opts, hs_cg_work *w,
                             hs_cg_result *res)
{
    HS_CHECK(w && w->n >= n, HS_ERR_INTERNAL, "CG workspace too small (%d < %d)", w ? w->n : -1, n);
    hs_comm *comm = w->comm;
    /* Where a reduction is a message (a distributed comm), the next iteration's SpMV moves before the
     * convergence test so that delta = (A u, u) rides on the same reduction as (r,u) and (r,r): one
     * all-reduce per iteration, for one SpMV more per solve. Serially the SpMV stays after the test
     * (no wasted product); the arithmetic is the same either way. */
    const int fuse = hs_comm_distributed(comm);
    double *r = w->r, *u = w->z, *p = w->p, *wv = w->q, *s = w->s;
    double bnorm = 0.0;
    int over = 0;
    HS_CALL(hs_krylov_start_on(comm, n, b, x, r, res, &bnorm, &over));
    if (over) return HS_OK;
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
    for (int32_t i = 0; i < n; ++i) {
        u[i] = inv_diag[i] * b[i];
        p[i] = 0.0;
        s[i] = 0.0;
    }
    double red[3] = {hs_vec_dot(n, r, u), 0.0, 0.0};
    if (fuse) {
        A(ctx, u, wv); /* u [n_local]: its ghosts are filled by the operator's halo exchange */
        red[1] = hs_vec_dot(n, wv, u);
    }
    HS_CALL(hs_comm_sum(comm, red, fuse ? 2 : 1));
    double gamma = red[0], gamma_old = 0.0, alpha = 0.0, delta = red[1];
    double target = opts->tol * bnorm;
    for (int it = 1; it <= opts->max_iter; ++it) {
        if (!fuse) {
            A(ctx, u, wv);
            delta = hs_vec_dot(n, wv, u);
        }
        double beta;
        res->iters = it;
        if (!hs_cgc_coef(it, gamma, gamma_old, delta, &alpha, &beta, res)) return HS_OK;
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
        for (int32_t i = 0; i < n; ++i) {
            p[i] = u[i] + beta * p[i];
            s[i] = wv[i] + beta * s[i];
            x[i] += alpha * p[i];
            r[i] -= alpha * s[i];
            u[i] = inv_diag[i] * r[i];
        }
        red[0] = hs_vec_dot(n, r, u);
        red[1] = hs_vec_dot(n, r, r);
        if (fuse) {
            A(ctx, u, wv);
            red[2] = hs_vec_dot(n, wv, u);
        }
        HS_CALL(hs_comm_sum(comm, red, fuse ? 3 : 2));
        gamma_old = gamma;
        gamma = red[0];
        delta = red[2];
        double rr = red[1];
        res->rel_res = sqrt(rr) / bnorm;
        if (!isfinite(rr)) { res->outcome = HS_CG_NONFINITE; return HS_OK; }
        if (sqrt(rr) <= target) return HS_OK;
    }
    res->outcome = HS_CG_MAX_ITER;
    return HS_OK;
}

hs_status hs_cg_solve(int32_t n, hs_matvec_fn A, void *ctx, const double *inv_diag, const double *b,
                      double *x, const hs_cg_opts *opts, hs_cg_work *work, hs_cg_result *res)
{
    if (opts->variant == HS_CG_CHRONOPOULOS)
        return hs_cg_chronopoulos(n, A, ctx, inv_diag, b, x, opts, work, res);
    if (opts->variant == HS_CG_SSTEP) return hs_cg_sstep(n, A, ctx, inv_diag, b, x, opts, work, res);
    if (opts->variant == HS_CG_PIPELINED) return hs_cg_pipelined(n, A, ctx, inv_diag, b, x, opts, work, res);
    return hs_cg_jacobi(n, A, ctx, inv_diag, b, x, opts, work, res);
}

/* The variants of hs_cg_list.h; indexed by the enum, which the list numbers in the same order. */
static const hs_cg_variant_info k_variants[] = {
#define HS_CG_VARIANT(enumerator, name, summary, seed) [enumerator] = {name, enumerator, summary, seed},
#include "hs_cg_list.h"
#undef HS_CG_VARIANT
};

static const hs_registry k_registry = HS_REGISTRY_INIT("CG variant", k_variants);

const hs_registry *hs_cg_variants(void) { return &k_registry; }

const char *hs_cg_variant_name(hs_cg_variant v)
{
    return (size_t)v < k_registry.count ? k_variants[v].name : "(unknown)";
}

hs_status hs_cg_variant_lookup(const char *key, const char *name, hs_cg_variant *out)
{
    const void *e = NULL;
    HS_CALL(hs_registry_lookup(&k_registry, key, name, NULL, &e));
    *out = ((const hs_cg_variant_info *)e)->variant;
    return HS_OK;
}
