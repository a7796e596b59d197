/* The MPI layer: halo exchange, overlapped distributed SpMV, one-reduction distributed CG, gather,
 * report (hs_dist.h). */
#include "hs_dist.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_util.h"
#include "hs_vec.h"

/* one tag for halo messages: a rank has at most one exchange in flight per communicator */
#define HS_HALO_TAG 1401

struct hs_halo {
    const hs_part_local *l;
    MPI_Comm comm;
    double *sendbuf;   /* [send_ptr[n_nbrs]] */
    MPI_Request *req;  /* [2 n_nbrs]: receives, then sends */
    int active;
};

hs_status hs_halo_create(const hs_part_local *l, MPI_Comm comm, hs_halo **out)
{
    *out = NULL;
    hs_status st;
    hs_halo *h = NULL;
    HS_CALL(HS_ALLOC(h, 1, "halo"));
    h->l = l;
    h->comm = comm;
    HS_CALL_GOTO(HS_ALLOC(h->sendbuf, (size_t)l->send_ptr[l->n_nbrs] + 1, "halo send buffer"), fail);
    HS_CALL_GOTO(HS_ALLOC(h->req, 2 * (size_t)l->n_nbrs + 1, "halo requests"), fail);
    *out = h;
    return HS_OK;
fail:
    hs_halo_destroy(&h);
    return st;
}

void hs_halo_destroy(hs_halo **p)
{
    if (!p || !*p) return;
    if ((*p)->active) MPI_Waitall(2 * (*p)->l->n_nbrs, (*p)->req, MPI_STATUSES_IGNORE);
    free((*p)->sendbuf);
    free((*p)->req);
    free(*p);
    *p = NULL;
}

hs_status hs_halo_start(hs_halo *h, double *x)
{
    const hs_part_local *l = h->l;
    HS_CHECK(!h->active, HS_ERR_INTERNAL, "halo exchange started twice");
    for (int k = 0; k < l->n_nbrs; ++k)
        HS_MPI_CALL(MPI_Irecv(x + l->n_owned + l->recv_ptr[k], l->recv_ptr[k + 1] - l->recv_ptr[k], MPI_DOUBLE,
                              l->nbr[k], HS_HALO_TAG, h->comm, &h->req[k]));
    for (int32_t s = 0; s < l->send_ptr[l->n_nbrs]; ++s) h->sendbuf[s] = x[l->send_idx[s]];
    for (int k = 0; k < l->n_nbrs; ++k)
        HS_MPI_CALL(MPI_Isend(h->sendbuf + l->send_ptr[k], l->send_ptr[k + 1] - l->send_ptr[k], MPI_DOUBLE, l->nbr[k],
                              HS_HALO_TAG, h->comm, &h->req[l->n_nbrs + k]));
    h->active = 1;
    return HS_OK;
}

hs_status hs_halo_finish(hs_halo *h)
{
    HS_CHECK(h->active, HS_ERR_INTERNAL, "halo exchange finished without a start");
    h->active = 0;
    HS_MPI_CALL(MPI_Waitall(2 * h->l->n_nbrs, h->req, MPI_STATUSES_IGNORE));
    return HS_OK;
}

hs_status hs_dist_matrix_create(const hs_part_local *l, MPI_Comm comm, const double *val, hs_dist_matrix **out)
{
    *out = NULL;
    hs_dist_matrix *m = NULL;
    HS_CALL(HS_ALLOC(m, 1, "distributed matrix"));
    m->l = l;
    m->comm = comm;
    m->val = val;
    hs_status st = hs_halo_create(l, comm, &m->halo);
    if (st != HS_OK) {
        free(m);
        return st;
    }
    *out = m;
    return HS_OK;
}

void hs_dist_matrix_destroy(hs_dist_matrix **p)
{
    if (!p || !*p) return;
    hs_halo_destroy(&(*p)->halo);
    free(*p);
    *p = NULL;
}

static void rows_spmv(const hs_csr *a, const double *val, int32_t lo, int32_t hi, const double *x, double *y)
{
#pragma omp parallel for schedule(static) if (hi - lo > HS_OMP_MIN)
    for (int32_t i = lo; i < hi; ++i) {
        double sum = 0.0;
        for (int32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; ++k) sum += val[k] * x[a->col[k]];
        y[i] = sum;
    }
}

hs_status hs_dist_spmv(hs_dist_matrix *a, double *x, double *y)
{
    const hs_part_local *l = a->l;
    double t0 = hs_wtime();
    HS_CALL(hs_halo_start(a->halo, x));
    rows_spmv(l->pattern, a->val, 0, l->n_interior, x, y);
    double t1 = hs_wtime();
    HS_CALL(hs_halo_finish(a->halo));
    double t2 = hs_wtime();
    rows_spmv(l->pattern, a->val, l->n_interior, l->n_owned, x, y);
    double t3 = hs_wtime();
    a->t.spmv += (t1 - t0) + (t3 - t2);
    a->t.halo_wait += t2 - t1;
    ++a->t.exchanges;
    return HS_OK;
}

struct hs_dist_cg_work {
    double *r, *u, *p, *w, *s; /* u: [n_owned + n_ghost] (SpMV input), the others [n_owned] */
};

hs_status hs_dist_cg_work_create(const hs_part_local *l, hs_dist_cg_work **out)
{
    *out = NULL;
    hs_status st;
    hs_dist_cg_work *w = NULL;
    const size_t n = (size_t)l->n_owned + 1, nl = (size_t)l->n_owned + l->n_ghost + 1;
    HS_CALL(HS_ALLOC(w, 1, "distributed CG work"));
    HS_CALL_GOTO(HS_ALLOC(w->r, n, "distributed CG work"), fail);
    HS_CALL_GOTO(HS_ALLOC(w->u, nl, "distributed CG work"), fail);
    HS_CALL_GOTO(HS_ALLOC(w->p, n, "distributed CG work"), fail);
    HS_CALL_GOTO(HS_ALLOC(w->w, n, "distributed CG work"), fail);
    HS_CALL_GOTO(HS_ALLOC(w->s, n, "distributed CG work"), fail);
    *out = w;
    return HS_OK;
fail:
    hs_dist_cg_work_destroy(&w);
    return st;
}

void hs_dist_cg_work_destroy(hs_dist_cg_work **p)
{
    if (!p || !*p) return;
    free((*p)->r);
    free((*p)->u);
    free((*p)->p);
    free((*p)->w);
    free((*p)->s);
    free(*p);
    *p = NULL;
}

/* the fused reduction: v[0..2] summed over the ranks in place */
static hs_status allreduce3(hs_dist_matrix *a, double v[3])
{
    double t0 = hs_wtime();
    HS_MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_DOUBLE, MPI_SUM, a->comm));
    a->t.allreduce += hs_wtime() - t0;
    ++a->t.allreduces;
    return HS_OK;
}

hs_status hs_dist_cg(hs_dist_matrix *a, const double *inv_diag, const double *b, double *x, const hs_cg_opts *opts,
                     hs_dist_cg_work *wk, hs_cg_result *res)
{
    const int32_t n = a->l->n_owned;
    double *r = wk->r, *u = wk->u, *p = wk->p, *w = wk->w, *s = wk->s;
    res->outcome = HS_CG_CONVERGED;
    res->iters = 0;
    res->rel_res = 0.0;
    for (int32_t i = 0; i < n; ++i) {
        x[i] = 0.0;
        r[i] = b[i];
        u[i] = inv_diag[i] * b[i];
        p[i] = 0.0;
        s[i] = 0.0;
    }
    /* w = A u, then (r,u), (w,u), (b,b) in one reduction */
    HS_CALL(hs_dist_spmv(a, u, w));
    double red[3] = {hs_vec_dot(n, r, u), hs_vec_dot(n, w, u), hs_vec_dot(n, b, b)};
    HS_CALL(allreduce3(a, red));
    const double bnorm = sqrt(red[2]);
    if (!isfinite(bnorm)) {
        res->outcome = HS_CG_NONFINITE;
        res->rel_res = bnorm;
        return HS_OK;
    }
    if (bnorm == 0.0) return HS_OK;
    double gamma = red[0], delta = red[1], gamma_old = 0.0, alpha = 0.0;
    const double target = opts->tol * bnorm;
    for (int it = 1; it <= opts->max_iter; ++it) {
        const double beta = it == 1 ? 0.0 : gamma / gamma_old;
        const double denom = it == 1 ? delta : delta - beta * gamma / alpha; /* = (p, A p) */
        res->iters = it;
        if (!isfinite(denom)) {
            res->outcome = HS_CG_NONFINITE;
            return HS_OK;
        }
        if (denom <= 0.0 || gamma <= 0.0) {
            res->outcome = HS_CG_BREAKDOWN;
            return HS_OK;
        }
        alpha = gamma / denom;
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
        for (int32_t i = 0; i < n; ++i) {
            p[i] = u[i] + beta * p[i];
            s[i] = w[i] + beta * s[i];
            x[i] += alpha * p[i];
            r[i] -= alpha * s[i];
            u[i] = inv_diag[i] * r[i];
        }
        HS_CALL(hs_dist_spmv(a, u, w));
        red[0] = hs_vec_dot(n, r, u);
        red[1] = hs_vec_dot(n, w, u);
        red[2] = hs_vec_dot(n, r, r);
        HS_CALL(allreduce3(a, red));
        gamma_old = gamma;
        gamma = red[0];
        delta = red[1];
        res->rel_res = sqrt(red[2]) / bnorm;
        if (!isfinite(red[2])) {
            res->outcome = HS_CG_NONFINITE;
            return HS_OK;
        }
        if (sqrt(red[2]) <= target) return HS_OK;
    }
    res->outcome = HS_CG_MAX_ITER;
    return HS_OK;
}

hs_status hs_dist_gather_idx(MPI_Comm comm, int root, int32_t n_mine, const int64_t *idx_mine, const double *v,
                             int64_t n_global, double *out)
{
    /* MPI's counts and displacements are int: a gather onto one rank holds at most INT_MAX values */
    HS_CHECK(n_global <= INT_MAX, HS_ERR_CONFIG, "gathering %lld values onto one rank: MPI counts stop at %d "
             "(docs/parallel.md, known limitations)", (long long)n_global, INT_MAX);
    if (root < 0) { /* every rank: gather on 0, then broadcast */
        HS_CALL(hs_dist_gather_idx(comm, 0, n_mine, idx_mine, v, n_global, out));
        HS_MPI_CALL(MPI_Bcast(out, (int)n_global, MPI_DOUBLE, 0, comm));
        return HS_OK;
    }
    int rank = 0, size = 1;
    HS_MPI_CALL(MPI_Comm_rank(comm, &rank));
    HS_MPI_CALL(MPI_Comm_size(comm, &size));
    int *counts = NULL, *displs = NULL;
    int64_t *idx = NULL;
    double *vals = NULL;
    hs_status st = HS_OK;
    if (rank == root) {
        HS_CALL_GOTO(HS_ALLOC(counts, size, "gather counts"), done);
        HS_CALL_GOTO(HS_ALLOC(displs, size, "gather counts"), done);
        HS_CALL_GOTO(HS_ALLOC(idx, (size_t)n_global + 1, "gather indices"), done);
        HS_CALL_GOTO(HS_ALLOC(vals, (size_t)n_global + 1, "gather values"), done);
    }
    int mine = n_mine;
    if (MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, root, comm) != MPI_SUCCESS) {
        st = HS_FAIL(HS_ERR_INTERNAL, "MPI_Gather of counts failed");
        goto done;
    }
    if (rank == root) {
        int64_t total = counts[0];
        for (int q = 1; q < size; ++q) {
            displs[q] = displs[q - 1] + counts[q - 1];
            total += counts[q];
        }
        HS_CHECK_GOTO(total == n_global, done, HS_ERR_INTERNAL, "gather: %lld values for %lld entries",
                      (long long)total, (long long)n_global);
    }
    if (MPI_Gatherv(idx_mine, mine, MPI_INT64_T, idx, counts, displs, MPI_INT64_T, root, comm) != MPI_SUCCESS ||
        MPI_Gatherv(v, mine, MPI_DOUBLE, vals, counts, displs, MPI_DOUBLE, root, comm) != MPI_SUCCESS) {
        st = HS_FAIL(HS_ERR_INTERNAL, "MPI_Gatherv of owned values failed");
        goto done;
    }
    if (rank == root)
        for (int64_t k = 0; k < n_global; ++k) out[idx[k]] = vals[k];
done:
    free(counts);
    free(displs);
    free(idx);
    free(vals);
    return st;
}

hs_status hs_dist_gather(const hs_part_local *l, MPI_Comm comm, int root, const double *v, double *out)
{
    return hs_dist_gather_idx(comm, root, l->n_owned, l->l2g, v, l->n_global, out);
}

hs_status hs_dist_report(const hs_part_local *l, MPI_Comm comm, const char *partitioner, const hs_part_balance *bal,
                         FILE *f)
{
    int rank = 0, size = 1;
    HS_MPI_CALL(MPI_Comm_rank(comm, &rank));
    HS_MPI_CALL(MPI_Comm_size(comm, &size));
    const hs_part_stats s = hs_part_local_stats(l);
    long long mine[7] = {s.owned, s.interior, s.ghost, s.elems, s.nnz, s.nbrs, s.halo_bytes};
    long long *all = NULL;
    if (rank == 0) HS_CALL(HS_ALLOC(all, 7 * (size_t)size, "partition report"));
    if (MPI_Gather(mine, 7, MPI_LONG_LONG, all, 7, MPI_LONG_LONG, 0, comm) != MPI_SUCCESS) {
        free(all);
        return HS_FAIL(HS_ERR_INTERNAL, "MPI_Gather of the partition report failed");
    }
    if (rank == 0 && f) {
        fprintf(f, "partition: %s over %d ranks, %lld nodes; edge cut %lld, imbalance %.3f (nodes) %.3f (nonzeros)\n",
                partitioner, size, (long long)l->n_global, (long long)bal->edge_cut, bal->imbalance_nodes,
                bal->imbalance_nnz);
        fprintf(f, "  rank     owned  interior     ghost  elements   nonzeros  nbrs  halo bytes\n");
        for (int q = 0; q < size; ++q) {
            const long long *v = all + 7 * q;
            fprintf(f, "  %4d %9lld %9lld %9lld %9lld %10lld %5lld %11lld\n", q, v[0], v[1], v[2], v[3], v[4], v[5],
                    v[6]);
        }
        fflush(f);
    }
    free(all);
    return HS_OK;
}
