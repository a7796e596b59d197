/* s-step (communication-avoiding) Jacobi-PCG, the CPU reference of solver.cg = "sstep" (hs_cg.h,
 * hs_cg_sstep.h). Seed 004 ch. 6 (matrix powers kernel, CA-Krylov); Chronopoulos & Gear 1989 (s-step
 * CG); Hoemmen 2010 ch. 5 (CA-CG, Chebyshev and Newton bases); Carson & Demmel 2014 (the formulation
 * with the Gram matrix and the change of basis matrix B used here). Hand-written: no Debian library
 * has a communication-avoiding CG (PETSc's KSPPIPECG etc. are pipelined, not s-step, and would bring
 * PETSc); the small-vector part is shared with the GPU kernel so both compute the same numbers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_cg.h"
#include "hs_cg_sstep.h"
#include "hs_util.h"
#include "hs_vec.h"

void hs_cg_ritz_interval(int k, const double *alpha, const double *beta, double *theta_min, double *theta_max)
{
    hs_sstep_ritz(k, alpha, beta, theta_min, theta_max);
}

/* G = Y' D Y, H = Y' D^2 Y (full symmetric m x m), D = 1 / inv_diag; deterministic: fixed chunks of
 * HS_DOT_CHUNK rows summed in parallel, then the chunk sums in order (as hs_vec_dot). */
static hs_status gram(hs_comm *comm, int32_t n, int32_t ld, int m, const double *Y, const double *inv_diag,
                      double *G, double *H)
{
    const int ne = m * (m + 1) / 2;
    int32_t nchunk = (n + HS_DOT_CHUNK - 1) / HS_DOT_CHUNK;
    double *part = NULL;
    HS_CALL(HS_ALLOC(part, (size_t)nchunk * 2 * ne, "s-step CG Gram partial sums"));
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
    for (int32_t ch = 0; ch < nchunk; ++ch) {
        int32_t lo = ch * HS_DOT_CHUNK, hi = lo + HS_DOT_CHUNK < n ? lo + HS_DOT_CHUNK : n;
        double *g = part + (size_t)ch * 2 * ne, *h = g + ne;
        for (int e = 0; e < 2 * ne; ++e) g[e] = 0.0;
        for (int32_t i = lo; i < hi; ++i) {
            double y[HS_SSTEP_MMAX];
            const double di = 1.0 / inv_diag[i];
            for (int a = 0; a < m; ++a) y[a] = Y[(size_t)a * ld + i];
            int e = 0;
            for (int a = 0; a < m; ++a) {
                const double da = di * y[a];
                for (int bb = a; bb < m; ++bb, ++e) {
                    const double t = da * y[bb];
                    g[e] += t;
                    h[e] += di * t;
                }
            }
        }
    }
    for (int e = 0; e < 2 * ne; ++e) {
        double acc = 0.0;
        for (int32_t ch = 0; ch < nchunk; ++ch) acc += part[(size_t)ch * 2 * ne + e];
        part[e] = acc; /* chunk 0's slot is read before it is overwritten: e is visited once */
    }
    const hs_status st = hs_comm_sum(comm, part, 2 * ne); /* the one block reduction over the ranks */
    if (st != HS_OK) {
        free(part);
        return st;
    }
    int e = 0;
    for (int a = 0; a < m; ++a)
        for (int bb = a; bb < m; ++bb, ++e) {
            G[a * m + bb] = G[bb * m + a] = part[e];
            H[a * m + bb] = H[bb * m + a] = part[ne + e];
        }
    free(part);
    return HS_OK;
}

/* The matrix powers kernel, one chain: Y[base + j] = rho_j(D^-1 A) Y[base], j = 1..len (Chebyshev
 * three-term recurrence); tmp [n] scratch. Basis vectors ld apart (ld >= n: room for the ghosts an
 * operator on a partition fills). */
static void powers(int32_t n, int32_t ld, hs_matvec_fn A, void *ctx, const double *inv_diag, double *Y, int base,
                   int len, double c, double d, double *tmp)
{
    for (int j = 1; j <= len; ++j) {
        const double *prev = Y + (size_t)(base + j - 1) * ld;
        const double *prev2 = j >= 2 ? Y + (size_t)(base + j - 2) * ld : NULL;
        double *out = Y + (size_t)(base + j) * ld;
        A(ctx, prev, tmp);
        if (j == 1) {
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
            for (int32_t i = 0; i < n; ++i) out[i] = (inv_diag[i] * tmp[i] - c * prev[i]) / d;
        } else {
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
            for (int32_t i = 0; i < n; ++i) out[i] = 2.0 / d * (inv_diag[i] * tmp[i] - c * prev[i]) - prev2[i];
        }
    }
}

hs_status hs_cg_sstep(int32_t n, hs_matvec_fn A, void *ctx, const double *inv_diag, const double *b, double *x,
                      const hs_cg_opts *opts, hs_cg_work *w, hs_cg_result *res)
{
    HS_CHECK(w && w->n >= n, HS_ERR_INTERNAL, "CG workspace too small (%d < %d)", w ? w->n : -1, n);
    const int s = opts->s ? opts->s : HS_CG_S_DEFAULT, m = 2 * s + 1;
    HS_CHECK(s >= HS_CG_S_MIN && s <= HS_CG_S_MAX, HS_ERR_INTERNAL, "s-step CG: s = %d outside %d..%d", s,
             HS_CG_S_MIN, HS_CG_S_MAX);
    if (w->basis_s < s) {
        free(w->basis);
        w->basis = NULL;
        w->basis_s = 0;
        HS_CALL(HS_ALLOC(w->basis, (size_t)(m + 2) * w->n, "s-step CG basis"));
        w->basis_s = s;
    }
    /* on a partition (w->comm distributed): inner products over the owned rows, then one hs_comm_sum;
     * the basis vectors n_local apart so that the operator can fill each one's ghosts */
    hs_comm *comm = w->comm;
    const int32_t ld = hs_comm_distributed(comm) ? comm->n_local : n;
    HS_CHECK(ld >= n && ld <= w->n, HS_ERR_INTERNAL, "s-step CG: %d local rows for %d owned, workspace %d", ld, n,
             w->n);
    double *Y = w->basis, *tmp = Y + (size_t)m * ld, *tmp2 = tmp + ld;
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
    const double target = opts->tol * bnorm;

    /* Start-up: s classic iterations (hs_cg_jacobi's loop), keeping alpha and beta for the Ritz interval. */
    double al[HS_CG_S_MAX], be[HS_CG_S_MAX];
    int it = 0;
    const int startup = !(w->sstep_reuse && w->sstep_d > 0.0);
    while (startup && it < s) {
        if (it >= opts->max_iter) { res->outcome = HS_CG_MAX_ITER; return HS_OK; }
        ++it;
        A(ctx, p, q);
        double pq = hs_vec_dot(n, p, q);
        HS_CALL(hs_comm_sum(comm, &pq, 1));
        res->iters = it;
        if (!isfinite(pq)) { res->outcome = HS_CG_NONFINITE; return HS_OK; }
        if (pq <= 0.0 || rz <= 0.0) { res->outcome = HS_CG_BREAKDOWN; return HS_OK; }
        double alpha = rz / pq;
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
        for (int32_t i = 0; i < n; ++i) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
            z[i] = inv_diag[i] * r[i];
        }
        /* (r,r) and the next (r,z) in one reduction (as hs_cg_jacobi) */
        double red[2] = {hs_vec_dot(n, r, r), hs_vec_dot(n, r, z)};
        HS_CALL(hs_comm_sum(comm, red, 2));
        double rr = red[0];
        res->rel_res = sqrt(rr) / bnorm;
        if (!isfinite(rr)) { res->outcome = HS_CG_NONFINITE; return HS_OK; }
        if (sqrt(rr) <= target) return HS_OK;
        double rz_new = red[1];
        double beta = rz_new / rz;
        rz = rz_new;
        al[it - 1] = alpha;
        be[it - 1] = beta;
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
        for (int32_t i = 0; i < n; ++i) p[i] = z[i] + beta * p[i];
    }
    double c = w->sstep_c, d = w->sstep_d;
    if (startup) {
        double th_min, th_max;
        hs_sstep_ritz(s, al, be, &th_min, &th_max);
        hs_sstep_interval(th_min, th_max, &c, &d);
        w->sstep_c = c;
        w->sstep_d = d;
    }
    double B[HS_SSTEP_MMAX * HS_SSTEP_MMAX], G[HS_SSTEP_MMAX * HS_SSTEP_MMAX], H[HS_SSTEP_MMAX * HS_SSTEP_MMAX];
    hs_sstep_cheb_B(s, c, d, B);
    double n_all = (double)n; /* the rows of the whole system (theta's round-off level) */
    HS_CALL(hs_comm_sum(comm, &n_all, 1));
    const double theta = hs_sstep_theta(s, n_all);

    for (;;) {
        if (it >= opts->max_iter) { res->outcome = HS_CG_MAX_ITER; return HS_OK; }
        /* the matrix powers kernel (seed 004 ch. 6): both chains, then one block reduction */
        memcpy(Y, p, sizeof(double) * (size_t)n);
        memcpy(Y + (size_t)(s + 1) * ld, z, sizeof(double) * (size_t)n);
        powers(n, ld, A, ctx, inv_diag, Y, 0, s, c, d, tmp);
        powers(n, ld, A, ctx, inv_diag, Y, s + 1, s - 1, c, d, tmp);
        HS_CALL(gram(comm, n, ld, m, Y, inv_diag, G, H));
        hs_sstep_block blk;
        hs_sstep_inner(s, G, H, B, target * target, it, opts->max_iter, theta, &blk);
        if (blk.status == HS_SSTEP_NONFINITE) {
            res->outcome = HS_CG_NONFINITE;
            res->iters = it + blk.k;
            return HS_OK;
        }
        if (blk.status == HS_SSTEP_BREAK) {
            /* the block is discarded; classic PCG on A e = b - A x from the current iterate */
            hs_warn("s-step CG (solver.cg_s = %d): the Krylov basis lost its rank after %d iterations (a Gram "
                    "quadratic form is %.3e, at or below its round-off level %.3e); continuing with classic CG "
                    "from the current iterate",
                    s, it, blk.q, blk.noise);
            res->fallback_iter = it;
            w->sstep_d = 0.0; /* the interval is wrong: the next solve estimates it again */
            A(ctx, x, tmp);
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
            for (int32_t i = 0; i < n; ++i) tmp2[i] = b[i] - tmp[i];
            double rr0 = hs_vec_dot(n, tmp2, tmp2);
            HS_CALL(hs_comm_sum(comm, &rr0, 1));
            double rnorm = sqrt(rr0);
            res->rel_res = rnorm / bnorm;
            if (!isfinite(rnorm)) { res->outcome = HS_CG_NONFINITE; return HS_OK; }
            if (rnorm <= target) return HS_OK;
            hs_cg_opts o2 = *opts;
            o2.variant = HS_CG_CLASSIC;
            o2.max_iter = opts->max_iter - it;
            o2.tol = target / rnorm;
            hs_cg_result r2;
            HS_CALL(hs_cg_jacobi(n, A, ctx, inv_diag, tmp2, tmp, &o2, w, &r2));
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
            for (int32_t i = 0; i < n; ++i) x[i] += tmp[i];
            res->outcome = r2.outcome;
            res->iters = it + r2.iters;
            res->rel_res = r2.rel_res * rnorm / bnorm;
            return HS_OK;
        }
        /* x += Y xc, p = Y pc, u = Y uc, r = D u */
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
        for (int32_t i = 0; i < n; ++i) {
            double dx = 0.0, pi = 0.0, ui = 0.0;
            for (int a = 0; a < m; ++a) {
                const double y = Y[(size_t)a * ld + i];
                dx += blk.xc[a] * y;
                pi += blk.pc[a] * y;
                ui += blk.uc[a] * y;
            }
            x[i] += dx;
            p[i] = pi;
            z[i] = ui;
            r[i] = ui / inv_diag[i];
        }
        it += blk.k;
        res->iters = it;
        double rr = hs_vec_dot(n, r, r);
        HS_CALL(hs_comm_sum(comm, &rr, 1));
        res->rel_res = sqrt(rr) / bnorm;
        if (!isfinite(rr)) { res->outcome = HS_CG_NONFINITE; return HS_OK; }
        if (blk.status == HS_SSTEP_CONV && sqrt(rr) <= target) return HS_OK;
    }
}
