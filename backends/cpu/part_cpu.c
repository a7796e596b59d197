/*
 * The cpu backend on one rank's partition of a distributed run (hs_backend_part_ops, hs_backend.h;
 * built with MPI): the owned rows' residual from its assembly, and the distributed Chronopoulos-Gear
 * Jacobi-PCG of parallel/hs_dist.h over its K (copied from the SpMV slots into the view's CSR order),
 * with the ghosts of phi refreshed after the update.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "hs_dist.h"
#include "hs_util.h"
#include "hs_vec.h"

typedef struct cpu_part {
    hs_backend *b;          /* borrowed: the rank's cpu backend */
    const hs_part_local *l; /* borrowed */
    double *dval;           /* [owned nnz] K's owned rows in the view's pattern order */
    hs_dist_matrix *dm;
    hs_dist_cg_work *cgw;
} cpu_part;

static void cpu_unbind(hs_backend_part **pp)
{
    if (!pp || !*pp) return;
    cpu_part *q = (cpu_part *)*pp;
    hs_dist_cg_work_destroy(&q->cgw);
    hs_dist_matrix_destroy(&q->dm);
    free(q->dval);
    free(q);
    *pp = NULL;
}

static hs_status cpu_bind(hs_backend *b, const hs_part_local *l, const void *comm, int fast, hs_backend_part **out)
{
    (void)fast;
    *out = NULL;
    const cpu_impl *c = b->impl;
    HS_CHECK(b->prob->mesh->n_nodes == l->n_owned + l->n_ghost && c->lay->slot_of_nnz, HS_ERR_INTERNAL,
             "the cpu backend has %d nodes, the view %d owned + %d ghosts", b->prob->mesh->n_nodes, l->n_owned,
             l->n_ghost);
    cpu_part *q = NULL;
    HS_CALL(HS_ALLOC(q, 1, "distributed cpu solver"));
    q->b = b;
    q->l = l;
    hs_status st = HS_ALLOC(q->dval, (size_t)l->pattern->nnz + 1, "distributed matrix");
    if (st == HS_OK) st = hs_dist_matrix_create(l, *(const MPI_Comm *)comm, q->dval, &q->dm);
    if (st == HS_OK) st = hs_dist_cg_work_create(l, &q->cgw);
    if (st != HS_OK) {
        hs_backend_part *p = (hs_backend_part *)q;
        cpu_unbind(&p);
        return st;
    }
    *out = (hs_backend_part *)q;
    return HS_OK;
}

/* the owned rows only (a ghost's row misses the elements of other ranks) */
static hs_status cpu_part_residual(hs_backend_part *p, double *v, int32_t *row)
{
    const cpu_part *q = (const cpu_part *)p;
    const cpu_impl *c = q->b->impl;
    double best = -1.0;
    int32_t at = 0;
    for (int32_t i = 0; i < q->l->n_owned; ++i) {
        double w = fabs(c->rhs[i]) * c->res_w[i];
        if (!(w <= INFINITY)) w = INFINITY; /* NaN: reported as non-finite */
        if (w > best) {
            best = w;
            at = i;
        }
    }
    *v = best;
    *row = at;
    return HS_OK;
}

static hs_status cpu_part_solve(hs_backend_part *p, const hs_cg_opts *o, hs_cg_result *cg, double *upd_local)
{
    cpu_part *q = (cpu_part *)p;
    cpu_impl *c = q->b->impl;
    const int32_t n = q->l->n_owned;
    const int64_t *slot = c->lay->slot_of_nnz; /* K (formed by the tangent op) in the view's order */
    for (int64_t k = 0; k < q->l->pattern->nnz; ++k) q->dval[k] = c->kval[slot[k]];
    HS_CALL(hs_dist_cg(q->dm, c->inv_diag, c->rhs, c->du, o, q->cgw, cg));
    if (cg->outcome == HS_CG_CONVERGED) {
        for (int32_t i = 0; i < n; ++i) c->phi[i] -= c->du[i];
        /* the ghosts of phi from their owners */
        HS_CALL(hs_halo_start(q->dm->halo, c->phi));
        HS_CALL(hs_halo_finish(q->dm->halo));
    }
    *upd_local = hs_vec_norm_inf(n, c->du, NULL);
    return HS_OK;
}

static void cpu_part_times(const hs_backend_part *p, hs_dist_times *t)
{
    *t = ((const cpu_part *)p)->dm->t;
}

const hs_backend_part_ops hs_cpu_part_ops = {
    .bind = cpu_bind,
    .residual = cpu_part_residual,
    .solve = cpu_part_solve,
    .times = cpu_part_times,
    .unbind = cpu_unbind,
};
