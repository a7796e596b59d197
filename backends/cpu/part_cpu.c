/*
 * The cpu backend on one rank's partition of a distributed run (hs_backend_part_ops, hs_backend.h;
 * built with MPI). Binding gives the backend the rank's comm (parallel/hs_dist.h, hs_comm_mpi_create:
 * owned and interior rows, halo exchange and sums over MPI) in place of its serial one; the solve is
 * then the backend's own (hs_cpu_solve_on: the CG variant of solver.cg with the Jacobi preconditioner,
 * its SpMV on the owned rows with the halo in flight during the interior rows), the code a serial run
 * runs with the no-op comm.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "hs_dist.h"
#include "hs_util.h"

typedef struct cpu_part {
    hs_backend *b; /* borrowed: the rank's cpu backend */
    hs_comm *comm; /* owned; lent to the backend while bound */
    double spmv0;  /* the backend's SpMV time at binding */
} cpu_part;

/* What the serial cpu run offers and a partition does not: refused by name (every rank alike). */
static hs_status cpu_part_local_opts(hs_problem_opts *po)
{
    const hs_spmv_ops *f = po->exec.spmv;
    const int f32 = po->exec.values == HS_VALUES_F32;
    if (!f || !(f32 ? f->apply_rows_ref_f32 != NULL : f->apply_rows_ref != NULL)) {
        /* the formats that split their rows, from the list */
        char names[256] = "";
        size_t o = 0;
        for (int i = 0; i < hs_spmv_count() && o < sizeof names; ++i) {
            const hs_spmv_ops *g = hs_spmv_get(i);
            if (!g->needs_device && (f32 ? g->apply_rows_ref_f32 != NULL : g->apply_rows_ref != NULL))
                o += (size_t)snprintf(names + o, sizeof names - o, "%s\"%s\"", o ? ", " : "", g->name);
        }
        return HS_FAIL(HS_ERR_CONFIG, "solver.spmv: a distributed run multiplies a rank's interior rows while the "
                       "halo travels, then its boundary rows; \"%s\" multiplies whole matrices only: use one of %s",
                       f ? f->name : "(none)", names);
    }
    HS_CALL(hs_backend_part_require_jacobi_cg(po));
    return HS_OK;
}

static void cpu_unbind(hs_backend_part **pp)
{
    if (!pp || !*pp) return;
    cpu_part *q = (cpu_part *)*pp;
    cpu_impl *c = q->b->impl;
    c->comm = &c->serial; /* back to one partition */
    c->cg->comm = c->comm;
    hs_comm_mpi_destroy(&q->comm);
    free(q);
    *pp = NULL;
}

static hs_status cpu_bind(hs_backend *b, const hs_part_local *l, const void *comm, int fast, hs_backend_part **out)
{
    (void)fast;
    *out = NULL;
    cpu_impl *c = b->impl;
    HS_CHECK(b->prob->mesh->n_nodes == l->n_owned + l->n_ghost, HS_ERR_INTERNAL,
             "the cpu backend has %d nodes, the view %d owned + %d ghosts", b->prob->mesh->n_nodes, l->n_owned,
             l->n_ghost);
    const hs_spmv_ops *f = c->lay->ops;
    HS_CHECK(c->kval32 ? f->apply_rows_ref_f32 != NULL : f->apply_rows_ref != NULL, HS_ERR_INTERNAL,
             "\"%s\" cannot split its rows (cpu_part_local_opts refuses it)", f->name);
    HS_CHECK(!c->pc, HS_ERR_INTERNAL, "a preconditioner other than Jacobi on a partition");
    cpu_part *q = NULL;
    HS_CALL(HS_ALLOC(q, 1, "distributed cpu solver"));
    q->b = b;
    const hs_status st = hs_comm_mpi_create(l, *(const MPI_Comm *)comm, &q->comm);
    if (st != HS_OK) {
        free(q);
        return st;
    }
    q->spmv0 = c->times.spmv;
    c->comm = q->comm;
    c->cg->comm = q->comm;
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
    for (int32_t i = 0; i < q->comm->n_owned; ++i) {
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
    return hs_cpu_solve_on(((cpu_part *)p)->b, o, cg, upd_local);
}

static void cpu_part_times(const hs_backend_part *p, hs_dist_times *t)
{
    const cpu_part *q = (const cpu_part *)p;
    hs_comm_mpi_times(q->comm, t);
    /* the products alone: the operator's time less its wait for the halo */
    t->spmv = ((const cpu_impl *)q->b->impl)->times.spmv - q->spmv0 - t->halo_wait;
}

const hs_backend_part_ops hs_cpu_part_ops = {
    .local_opts = cpu_part_local_opts,
    .bind = cpu_bind,
    .residual = cpu_part_residual,
    .solve = cpu_part_solve,
    .times = cpu_part_times,
    .unbind = cpu_unbind,
    .splitting = 1, /* hs_cpu_react and hs_cpu_diffuse run on c->comm (split_cpu.c) */
};
