/* Pipelined Jacobi-PCG (solver.cg = "pipelined"): Ghysels & Vanroose, "Hiding global synchronization
 * latency in the preconditioned Conjugate Gradient algorithm", Parallel Computing 40 (2014), Alg. 4
 * (p-PCG) with M = diag A. The CPU reference of a future device kernel; see hs_cg.h. */
#include <math.h>
#include <stdlib.h>

#include "hs_cg.h"
#include "hs_util.h"
#include "hs_vec.h"

hs_status hs_cg_pipelined(int32_t n, hs_matvec_fn A, void *ctx, const double *inv_diag, const double *b, double *x,
                          const hs_cg_opts *opts, hs_cg_work *w, hs_cg_result *res)
{
    HS_CHECK(w && w->n >= n, HS_ERR_INTERNAL, "CG workspace too small (%d < %d)", w ? w->n : -1, n);
    hs_comm *comm = w->comm;
    if (!w->pipe) HS_CALL(HS_ALLOC(w->pipe, (size_t)4 * w->n, "pipelined CG vectors"));
    /* r, u = M^-1 r, w = A u, p, s = A p, q = M^-1 s, z = A q, m = M^-1 w, nv = A m. The operator's
     * inputs (u, m) have n_local entries (w->n, see hs_cg_work.comm); the others use the owned rows. */
    double *r = w->r, *u = w->z, *p = w->p, *wv = w->q, *s = w->s;
    double *q = w->pipe, *z = q + w->n, *m = z + w->n, *nv = m + w->n;
    double bnorm = 0.0;
    int over = 0;
    HS_CALL(hs_krylov_start_on(comm, n, b, x, r, res, &bnorm, &over));
    if (over) return HS_OK;
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
    for (int32_t i = 0; i < n; ++i) {
        u[i] = inv_diag[i] * b[i];
        p[i] = s[i] = q[i] = z[i] = 0.0;
    }
    A(ctx, u, wv); /* u [n_local]: its ghosts are filled by the operator's halo exchange */
    double red[3] = {hs_vec_dot(n, r, u), hs_vec_dot(n, wv, u), 0.0};
    HS_CALL(hs_comm_sum(comm, red, 2));
    double gamma = red[0], delta = red[1], gamma_old = 0.0, alpha = 0.0;
    const double target = opts->tol * bnorm;
    for (int it = 1; it <= opts->max_iter; ++it) {
        /* m = M^-1 w, n = A m: in Ghysels-Vanroose this product runs while the reduction of
         * (r,u), (w,u), (r,r) started at the end of the previous iteration travels (MPI_Iallreduce
         * there). hs_comm has only a blocking sum, so the reduction below completes first and this
         * product follows it: the same arithmetic, without the overlap yet. */
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
        for (int32_t i = 0; i < n; ++i) m[i] = inv_diag[i] * wv[i];
        A(ctx, m, nv);
        double beta;
        res->iters = it;
        if (!hs_cgc_coef(it, gamma, gamma_old, delta, &alpha, &beta, res)) return HS_OK;
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
        for (int32_t i = 0; i < n; ++i) {
            z[i] = nv[i] + beta * z[i];
            q[i] = m[i] + beta * q[i];
            s[i] = wv[i] + beta * s[i];
            p[i] = u[i] + beta * p[i];
            x[i] += alpha * p[i];
            r[i] -= alpha * s[i];
            u[i] -= alpha * q[i];
            wv[i] -= alpha * z[i];
        }
        red[0] = hs_vec_dot(n, r, u);
        red[1] = hs_vec_dot(n, wv, u);
        red[2] = hs_vec_dot(n, r, r);
        HS_CALL(hs_comm_sum(comm, red, 3)); /* the one reduction of the iteration (see above) */
        gamma_old = gamma;
        gamma = red[0];
        delta = red[1];
        double rr = red[2];
        res->rel_res = sqrt(rr) / bnorm;
        if (!isfinite(rr)) { res->outcome = HS_CG_NONFINITE; return HS_OK; }
        if (sqrt(rr) <= target) return HS_OK;
    }
    res->outcome = HS_CG_MAX_ITER;
    return HS_OK;
}
