/*
 * The distributed backend (hs_backend_mpi.h): an inner backend on each rank's local mesh, composed
 * through its ops (hs_backend_ops) and its partition ops (hs_backend_part_ops: the owned rows'
 * residual, the distributed solve), never its fields; global Newton decisions, gathered state.
 */
#include "hs_gid_at.h"
#include "hs_backend_mpi.h"

#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_dist.h"
#include "hs_mpi_status.h"
#include "hs_par.h"
#include "hs_util.h"

typedef struct mpi_impl {
    MPI_Comm comm;
    int rank, size;
    int32_t *owner;         /* [n_global] owner of each node */
    hs_part_local *l;
    hs_mesh *lmesh;         /* local mesh: local nodes (owned, ghosts), local elements */
    hs_region_set *lreg;    /* the regions of the local elements and nodes (NULL: uniform tissue) */
    hs_sample_set *lsmp[HS_SAMPLE_SETS]; /* the sample sets restricted to the owned nodes, local columns */
    double *sbuf[HS_SAMPLE_SETS];        /* [cap][n_rows] this rank's partial samples */
    hs_stim_set *lstim;
    hs_problem *lprob;
    hs_backend *inner;      /* the rank's backend on the local problem */
    const hs_backend_part_ops *pops; /* its partition ops */
    hs_backend_part *part;  /* its distributed solver */
    hs_dist_times t;        /* this wrapper's own all-reduces (residual, update norm) */
    int32_t n_elem_mine;    /* elements this rank reports in gathers (owner of the element's first node) */
    int32_t *elem_mine_local;
    int64_t *elem_mine_global;
    MPI_Datatype res_type;  /* (double, int64) for the residual's maxloc */
    MPI_Op res_op;
    hs_state lstate;        /* local copy of every field, for get/set_state */
    double *lh1, *lh2, *buf; /* local history, owned-value buffer */
    double *gbuf;           /* [max(n_nodes, n_elems)] a gathered field nobody asked for (made by the
                               first get_state: the set-up holds no global array) */
    double res;             /* global Newton residual of the last assembly */
    double t_solve;
    hs_mpi_setup_times setup; /* this rank's set-up phases */
    int fast;               /* the inner backend's own transport (prepare's answer: NCCL), else MPI */
    int whole;              /* one rank: the inner backend's iterate / newton_device run the Newton iteration */
    int device_loop;        /* several ranks: the inner backend's partition runs the Newton loop (part op newton) */
    int device;             /* the inner backend computes on a device: its assemble and solve wait for it */
    long waits;             /* the host's waits here: collectives, and inner ops that wait for the device */
} mpi_impl;

/* Every rank returns the same status: the first failing rank's code and message go to all
 * (hs_mpi_agree: "rank R of P: " before the message when R is not 0), marked agreed so that app/
 * says it once. One MPI_Allreduce of an int when no rank failed. */
static hs_status agree(mpi_impl *m, hs_status st)
{
    int failed = m->size;
    st = hs_mpi_agree(m->comm, st, &failed);
    m->waits++;
    if (failed < m->size) hs_error_mark_agreed();
    return st;
}

/* A step on the device path (several ranks, the partition's Newton loop: mpi_ops_part_loop) agrees
 * three times, begin_step, mpi_newton_part, end_step (then sim/protocol.c's stop flag: a fourth int),
 * and none can wait for the next: begin_step's failure must stop every rank before the Newton loop's
 * device-side sums (a rank that skipped them would leave the others waiting on the device); the
 * Newton loop's status decides end_step (irreversible) or restore_step in fem/newton.c, alike on
 * every rank; end_step's decides a retry or a failure before the step's samples, frames and
 * checkpoints (collectives) run. docs/parallel.md, "Errors". */
static hs_status mpi_begin_step(hs_backend *b, double dt, const double *amp)
{
    mpi_impl *m = b->impl;
    return agree(m, m->inner->ops->begin_step(m->inner, dt, amp));
}

/* The inner backend names elements in the rank's numbering: add the mesh's own number. */
static hs_status name_global_element(const mpi_impl *m, const hs_mesh *global, hs_status st)
{
    if (st == HS_OK) return st;
    const char *msg = hs_error_message(), *p = strstr(msg, "element ");
    int le = -1;
    if (!p || sscanf(p + 8, "%d", &le) != 1 || le < 0 || le >= m->l->n_elems) return st;
    char text[2048];
    const int64_t ge = m->l->elems[le];
    snprintf(text, sizeof text, "%s [rank %d's element %d is element %lld of the mesh]", msg, m->rank, le,
             global && global->tets ? hs_mesh_elem_name(global, (int32_t)ge) : (long long)ge);
    hs_error_clear();
    return hs_error_set(st, __FILE__, __LINE__, __func__, "%s", text);
}

/* (value, 64-bit global node): MPI_MAXLOC's rule (the larger value, then the smaller node), which
 * MPI defines for an int index only. Values are never NaN (the ranks report NaN as +inf). */
typedef struct res_loc {
    double v;
    int64_t i;
} res_loc;

static void res_maxloc_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const res_loc *a = in;
    res_loc *b = inout;
    for (int k = 0; k < *len; ++k)
        if (a[k].v > b[k].v || (a[k].v == b[k].v && a[k].i < b[k].i)) b[k] = a[k];
}

static hs_status res_maxloc_create(mpi_impl *m)
{
    const int len[2] = {1, 1};
    const MPI_Aint at[2] = {offsetof(res_loc, v), offsetof(res_loc, i)};
    const MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT64_T};
    MPI_Datatype t = MPI_DATATYPE_NULL;
    HS_MPI_CALL(MPI_Type_create_struct(2, len, at, types, &t));
    HS_MPI_CALL(MPI_Type_create_resized(t, 0, sizeof(res_loc), &m->res_type));
    MPI_Type_free(&t);
    HS_MPI_CALL(MPI_Type_commit(&m->res_type));
    HS_MPI_CALL(MPI_Op_create(res_maxloc_op, 1, &m->res_op));
    return HS_OK;
}

/* The Newton residual over the ranks: the largest of each rank's (value, global node) */
static hs_status residual_maxloc(mpi_impl *m, double v, int64_t node, double *res_norm, int32_t *res_node)
{
    res_loc loc = {v, node}, glob;
    double t0 = hs_wtime();
    HS_MPI_CALL(MPI_Allreduce(&loc, &glob, 1, m->res_type, m->res_op, m->comm));
    m->t.allreduce += hs_wtime() - t0;
    m->t.allreduces++;
    m->waits++;
    *res_norm = glob.v;
    *res_node = (int32_t)glob.i; /* the Newton loop names the mesh's node (hs_mesh numbers them in 32 bits) */
    m->res = glob.v;
    return HS_OK;
}

static hs_status mpi_assemble(hs_backend *b, double *res_norm, int32_t *res_node)
{
    mpi_impl *m = b->impl;
    HS_CALL(agree(m, name_global_element(m, b->prob->mesh, m->inner->ops->assemble(m->inner, res_norm, res_node))));
    m->waits += m->device; /* the assembly's synchronisation */
    /* the owned rows only (a ghost's row misses the elements of other ranks) */
    double v = 0.0;
    int32_t il = 0;
    HS_CALL(agree(m, m->pops->residual(m->part, &v, &il)));
    return residual_maxloc(m, v, m->l->l2g[il], res_norm, res_node);
}

/* The inner backend's K and Jacobi diagonal (solve's first act) */
static hs_status mpi_tangent(hs_backend *b)
{
    mpi_impl *m = b->impl;
    m->waits += m->device && m->lprob->split; /* a split assembly's K, formed and waited for */
    return agree(m, m->inner->ops->tangent(m->inner));
}

static hs_status mpi_solve(hs_backend *b, hs_cg_result *cg, double *upd_norm)
{
    mpi_impl *m = b->impl;
    const hs_problem *p = b->prob;
    /* K of a split assembly: the inner backend times it as assembly, so before the solve's clock
     * starts (each second in one phase, as cpu_solve) */
    HS_CALL(mpi_tangent(b));
    double t0 = hs_wtime();
    hs_cg_opts o = p->opt.cg;
    o.tol = hs_cg_forcing_tol(p->opt.cg.tol, p->opt.cg_forcing, p->opt.newton_tol_residual, m->res);
    double u = 0.0;
    HS_CALL(agree(m, m->pops->solve(m->part, &o, cg, &u)));
    const double ta = hs_wtime();
    MPI_Allreduce(MPI_IN_PLACE, &u, 1, MPI_DOUBLE, MPI_MAX, m->comm);
    m->t.allreduce += hs_wtime() - ta;
    m->t.allreduces++;
    m->waits++;
    *upd_norm = u;
    m->t_solve += hs_wtime() - t0;
    return HS_OK;
}

/* The splitting scheme (hs_backend_part_ops.splitting): the inner backend reacts its owned nodes; the
 * first non-finite node is the smallest global index over the ranks. */
static hs_status mpi_react(hs_backend *b, double h, int n_sub, const double *site_amp, int32_t *bad_node)
{
    mpi_impl *m = b->impl;
    int32_t bad = -1;
    HS_CALL(agree(m, m->inner->ops->react(m->inner, h, n_sub, site_amp, &bad)));
    long long g = bad >= 0 ? (long long)m->l->l2g[bad] : -1, gmin = 0;
    if (g < 0) g = LLONG_MAX;
    const double ta = hs_wtime();
    MPI_Allreduce(&g, &gmin, 1, MPI_LONG_LONG, MPI_MIN, m->comm);
    m->t.allreduce += hs_wtime() - ta;
    m->t.allreduces++;
    *bad_node = gmin == LLONG_MAX ? -1 : (int32_t)gmin;
    return HS_OK;
}

/* The diffusion solve: the inner backend's, collective over its partition's comm. */
static hs_status mpi_diffuse(hs_backend *b, double dt, hs_cg_result *cg)
{
    mpi_impl *m = b->impl;
    double t0 = hs_wtime();
    const hs_status st = agree(m, m->inner->ops->diffuse(m->inner, dt, cg));
    m->t_solve += hs_wtime() - t0;
    return st;
}

/* One rank: the partition is the whole mesh (no ghost), so the inner backend's own Newton iteration
 * (solve, update, assembly: one CUDA graph) or whole Newton loop (newton_device: solver.step =
 * "graph") is the distributed one; only its node names change numbering (local to the mesh's). */
static int32_t global_node(const mpi_impl *m, int32_t local)
{
    return local >= 0 && local < m->l->n_owned + m->l->n_ghost ? (int32_t)m->l->l2g[local] : local;
}

static hs_status mpi_iterate(hs_backend *b, hs_cg_result *cg, double *upd_norm, double *res_norm, int32_t *res_node)
{
    mpi_impl *m = b->impl;
    hs_status st = m->inner->ops->iterate(m->inner, cg, upd_norm, res_norm, res_node);
    HS_CALL(agree(m, name_global_element(m, b->prob->mesh, st)));
    *res_node = global_node(m, *res_node);
    if (cg->outcome == HS_CG_CONVERGED) m->res = *res_norm;
    return HS_OK;
}

static hs_status mpi_newton_device(hs_backend *b, hs_newton_out *out)
{
    mpi_impl *m = b->impl;
    hs_status st = m->inner->ops->newton_device(m->inner, out);
    out->res_node = global_node(m, out->res_node);
    out->node_before = global_node(m, out->node_before);
    m->res = out->res;
    return agree(m, name_global_element(m, b->prob->mesh, st));
}

/* Several ranks, solver.step = "graph": the inner backend's partition runs the Newton loop with its
 * decisions global and on the device (hs_backend_part_ops.newton: the cuda backend's dist_newton.cu), in
 * place of the host loop over assemble, residual and solve; only its errors are agreed here. */
static hs_status mpi_newton_part(hs_backend *b, hs_newton_out *out)
{
    mpi_impl *m = b->impl;
    const hs_status st = m->pops->newton(m->part, out);
    HS_CALL(agree(m, name_global_element(m, b->prob->mesh, st)));
    m->res = out->res;
    return HS_OK;
}

static hs_status mpi_end_step(hs_backend *b, double t_prev, double dt_ms)
{
    mpi_impl *m = b->impl;
    return agree(m, m->inner->ops->end_step(m->inner, t_prev, dt_ms));
}

static hs_status mpi_restore_step(hs_backend *b)
{
    mpi_impl *m = b->impl;
    return agree(m, m->inner->ops->restore_step(m->inner));
}

/* The field's values this rank reports, into m->buf: owned nodes, or its elements. */
static const double *mine_of(mpi_impl *m, const hs_state_desc *d, int k, int32_t *n, const int64_t **idx)
{
    const double *f = m->lstate.field[k];
    if (d->f[k].where == HS_AT_NODE) {
        *n = m->l->n_owned;
        *idx = m->l->l2g;
        return f; /* owned nodes come first */
    }
    for (int32_t e = 0; e < m->n_elem_mine; ++e) m->buf[e] = f[m->elem_mine_local[e]];
    *n = m->n_elem_mine;
    *idx = m->elem_mine_global;
    return m->buf;
}

static hs_status mpi_get_state(hs_backend *b, hs_state *dst)
{
    mpi_impl *m = b->impl;
    HS_CALL(hs_state_check(&b->state, dst));
    /* Every field, whatever dst asks for: the ranks' calls must match, and a rank other than 0 does
     * not know which fields rank 0's frame writer wants. Unwanted ones land in gbuf. */
    hs_state want = {&m->inner->state, {NULL}};
    for (int k = 0; k < b->state.n_fields; ++k) want.field[k] = m->lstate.field[k];
    HS_CALL(agree(m, m->inner->ops->get_state(m->inner, &want)));
    if (!m->gbuf) {
        size_t len = 1;
        for (int k = 0; k < b->state.n_fields; ++k)
            if (hs_state_field_len(&b->state, k) > len) len = hs_state_field_len(&b->state, k);
        HS_CALL(agree(m, HS_ALLOC(m->gbuf, len + 1, "whole-state gather buffer")));
    }
    for (int k = 0; k < b->state.n_fields; ++k) {
        int32_t n = 0;
        const int64_t *idx = NULL;
        const double *v = mine_of(m, &m->inner->state, k, &n, &idx);
        HS_CALL(hs_dist_gather_idx(m->comm, -1, n, idx, v, (int64_t)hs_state_field_len(&b->state, k),
                                   dst->field[k] ? dst->field[k] : m->gbuf));
    }
    return HS_OK;
}

void hs_backend_mpi_view_get(const hs_backend *b, hs_backend_mpi_view *v)
{
    const mpi_impl *m = b->impl;
    *v = (hs_backend_mpi_view){&m->comm,           m->l,
                               m->lmesh,           m->n_elem_mine,
                               m->elem_mine_local, m->elem_mine_global,
                               m->lreg};
}

hs_status hs_backend_mpi_get_owned(hs_backend *b, hs_state *dst)
{
    mpi_impl *m = b->impl;
    const hs_state_desc *d = &m->inner->state;
    HS_CHECK(dst->desc && dst->desc->n_fields == d->n_fields && dst->desc->n_nodes == m->l->n_owned &&
                 dst->desc->n_elems == m->n_elem_mine,
             HS_ERR_INTERNAL, "rank %d: a state of %d nodes and %d elements for its %d owned nodes and %d elements",
             m->rank, dst->desc ? (int)dst->desc->n_nodes : -1, dst->desc ? (int)dst->desc->n_elems : -1,
             (int)m->l->n_owned, (int)m->n_elem_mine);
    hs_state want = {d, {NULL}};
    for (int k = 0; k < d->n_fields; ++k)
        if (dst->field[k]) want.field[k] = m->lstate.field[k];
    HS_CALL(agree(m, m->inner->ops->get_state(m->inner, &want)));
    for (int k = 0; k < d->n_fields; ++k) {
        if (!dst->field[k]) continue;
        if (d->f[k].where == HS_AT_NODE) /* owned nodes come first */
            memcpy(dst->field[k], m->lstate.field[k], sizeof(double) * (size_t)m->l->n_owned);
        else
            for (int32_t e = 0; e < m->n_elem_mine; ++e) dst->field[k][e] = m->lstate.field[k][m->elem_mine_local[e]];
    }
    return HS_OK;
}

hs_status hs_backend_mpi_get_owned_history(hs_backend *b, hs_extrap *ex, double *phi1, double *phi2)
{
    mpi_impl *m = b->impl;
    HS_CALL(agree(m, m->inner->ops->get_history(m->inner, ex, m->lh1, m->lh2)));
    const size_t n = sizeof(double) * (size_t)m->l->n_owned; /* owned nodes come first */
    if (phi1 && ex->n_valid > 0) memcpy(phi1, m->lh1, n);
    if (phi2 && ex->n_valid > 1) memcpy(phi2, m->lh2, n);
    return HS_OK;
}

hs_status hs_backend_mpi_set_local(hs_backend *b, const hs_state *src)
{
    mpi_impl *m = b->impl;
    const hs_state_desc *d = &m->inner->state;
    hs_status st = hs_state_check(d, src);
    if (st == HS_OK) {
        hs_state put = {d, {NULL}};
        for (int k = 0; k < d->n_fields; ++k) put.field[k] = src->field[k];
        st = m->inner->ops->set_state(m->inner, &put);
    }
    return agree(m, st);
}

hs_status hs_backend_mpi_get_local(hs_backend *b, hs_state *dst)
{
    mpi_impl *m = b->impl;
    const hs_state_desc *d = &m->inner->state;
    hs_status st = hs_state_check(d, dst);
    if (st == HS_OK) {
        hs_state want = {d, {NULL}};
        for (int k = 0; k < d->n_fields; ++k) want.field[k] = dst->field[k];
        st = m->inner->ops->get_state(m->inner, &want);
    }
    return agree(m, st);
}

const hs_state_desc *hs_backend_mpi_local_desc(const hs_backend *b)
{
    const mpi_impl *m = b->impl;
    return &m->inner->state;
}

hs_status hs_backend_mpi_get_local_history(hs_backend *b, hs_extrap *ex, double *phi1, double *phi2)
{
    mpi_impl *m = b->impl;
    return agree(m, m->inner->ops->get_history(m->inner, ex, phi1, phi2));
}

hs_status hs_backend_mpi_set_local_history(hs_backend *b, const hs_extrap *ex, const double *phi1, const double *phi2)
{
    mpi_impl *m = b->impl;
    return agree(m, m->inner->ops->set_history(m->inner, ex, phi1, phi2));
}

static hs_status mpi_set_state(hs_backend *b, const hs_state *src)
{
    mpi_impl *m = b->impl;
    HS_CALL(hs_state_check(&b->state, src));
    hs_state put = {&m->inner->state, {NULL}};
    const hs_part_local *l = m->l;
    for (int k = 0; k < b->state.n_fields; ++k) {
        if (!src->field[k]) continue;
        double *f = m->lstate.field[k];
        if (b->state.f[k].where == HS_AT_NODE)
            for (int32_t i = 0; i < l->n_owned + l->n_ghost; ++i) f[i] = src->field[k][l->l2g[i]];
        else
            for (int32_t e = 0; e < l->n_elems; ++e) f[e] = src->field[k][l->elems[e]];
        put.field[k] = f;
    }
    return agree(m, m->inner->ops->set_state(m->inner, &put));
}

static hs_status mpi_get_history(hs_backend *b, hs_extrap *ex, double *phi1, double *phi2)
{
    mpi_impl *m = b->impl;
    HS_CALL(agree(m, m->inner->ops->get_history(m->inner, ex, m->lh1, m->lh2)));
    const hs_part_local *l = m->l;
    if (phi1 && ex->n_valid > 0) HS_CALL(hs_dist_gather_idx(m->comm, -1, l->n_owned, l->l2g, m->lh1, l->n_global, phi1));
    if (phi2 && ex->n_valid > 1) HS_CALL(hs_dist_gather_idx(m->comm, -1, l->n_owned, l->l2g, m->lh2, l->n_global, phi2));
    return HS_OK;
}

static hs_status mpi_set_history(hs_backend *b, const hs_extrap *ex, const double *phi1, const double *phi2)
{
    mpi_impl *m = b->impl;
    const hs_part_local *l = m->l;
    const int32_t nl = l->n_owned + l->n_ghost;
    if (phi1)
        for (int32_t i = 0; i < nl; ++i) m->lh1[i] = phi1[l->l2g[i]];
    if (phi2)
        for (int32_t i = 0; i < nl; ++i) m->lh2[i] = phi2[l->l2g[i]];
    return agree(m, m->inner->ops->set_history(m->inner, ex, phi1 ? m->lh1 : NULL, phi2 ? m->lh2 : NULL));
}

/* Probes and ECG: row j of a set is a linear functional of phi over the global nodes. Each rank
 * keeps the entries of the nodes it owns (local columns, ascending), the inner backend applies them,
 * and the partial rows are summed over the ranks: a probe's one entry lives on one rank (the others
 * add an exact 0), an electrode's weights are summed per rank then across (round-off). */
typedef struct col_val {
    int32_t col;
    double val;
} col_val;

static int cmp_col(const void *a, const void *b)
{
    int32_t x = ((const col_val *)a)->col, y = ((const col_val *)b)->col;
    return (x > y) - (x < y);
}

/* The local index of global number @p gid in @p by [n] (hs_gid_at sorted by global number; -1: not
 * there): the sample columns' lookup (owned nodes) and the stimulus sites' (local elements) without an
 * array over the whole mesh */
static int32_t local_of(const hs_gid_at *by, int32_t n, int64_t gid)
{
    const hs_gid_at key = {gid, 0};
    const hs_gid_at *hit = bsearch(&key, by, (size_t)n, sizeof *by, hs_gid_at_cmp);
    return hit ? hit->i : -1;
}

static hs_status local_sample_set(const mpi_impl *m, const hs_sample_set *g, hs_sample_set **out)
{
    *out = NULL;
    const hs_part_local *l = m->l;
    hs_status st = HS_OK;
    hs_gid_at *by = NULL;
    col_val *cv = NULL;
    hs_sample_set *s = NULL;
    HS_CALL(HS_ALLOC(by, (size_t)l->n_owned + 1, "sample columns"));
    for (int32_t i = 0; i < l->n_owned; ++i) by[i] = (hs_gid_at){l->l2g[i], i};
    qsort(by, (size_t)l->n_owned, sizeof *by, hs_gid_at_cmp);
    int64_t nnz = 0;
    for (int64_t k = 0; k < g->row_ptr[g->n_rows]; ++k) nnz += local_of(by, l->n_owned, g->col[k]) >= 0;
    HS_CALL_GOTO(HS_ALLOC(s, 1, "local sample set"), done);
    s->n_rows = g->n_rows;
    HS_CALL_GOTO(HS_ALLOC(s->row_ptr, (size_t)g->n_rows + 1, "local sample set"), done);
    HS_CALL_GOTO(HS_ALLOC(s->col, (size_t)nnz + 1, "local sample set"), done);
    HS_CALL_GOTO(HS_ALLOC(s->val, (size_t)nnz + 1, "local sample set"), done);
    HS_CALL_GOTO(HS_ALLOC(s->offset, (size_t)g->n_rows + 1, "local sample set"), done); /* zero: added by sim */
    HS_CALL_GOTO(HS_ALLOC(cv, (size_t)nnz + 1, "local sample set"), done);
    int64_t q = 0;
    for (int j = 0; j < g->n_rows; ++j) {
        const int64_t q0 = q;
        for (int64_t k = g->row_ptr[j]; k < g->row_ptr[j + 1]; ++k) {
            const int32_t i = local_of(by, l->n_owned, g->col[k]);
            if (i >= 0) cv[q++] = (col_val){i, g->val[k]};
        }
        qsort(cv + q0, (size_t)(q - q0), sizeof *cv, cmp_col);
        for (int64_t k = q0; k < q; ++k) s->col[k] = cv[k].col, s->val[k] = cv[k].val;
        s->row_ptr[j + 1] = q;
    }
    *out = s;
    s = NULL;
done:
    hs_sample_set_destroy(&s);
    free(cv);
    free(by);
    return st;
}

static hs_status mpi_sample_setup(hs_backend *b, int set, const hs_sample_set *s, int cap)
{
    mpi_impl *m = b->impl;
    const hs_backend_ops *in = m->inner->ops;
    HS_CHECK(in->sample_setup && in->sample && in->sample_fetch, HS_ERR_INTERNAL, "backend %s cannot sample",
             in->name);
    HS_CHECK(set >= 0 && set < HS_SAMPLE_SETS && cap > 0, HS_ERR_INTERNAL, "sample set %d, %d rows", set, cap);
    hs_sample_set_destroy(&m->lsmp[set]);
    free(m->sbuf[set]);
    m->sbuf[set] = NULL;
    hs_status st = local_sample_set(m, s, &m->lsmp[set]);
    if (st == HS_OK) st = HS_ALLOC(m->sbuf[set], (size_t)cap * (size_t)s->n_rows + 1, "sample buffer");
    if (st == HS_OK) st = in->sample_setup(m->inner, set, m->lsmp[set], cap);
    return agree(m, st);
}

static hs_status mpi_sample(hs_backend *b, int set, int slot)
{
    mpi_impl *m = b->impl;
    return agree(m, m->inner->ops->sample(m->inner, set, slot));
}

static hs_status mpi_sample_fetch(hs_backend *b, int set, int n, double *dst)
{
    mpi_impl *m = b->impl;
    HS_CALL(agree(m, m->inner->ops->sample_fetch(m->inner, set, n, m->sbuf[set])));
    const int count = n * m->lsmp[set]->n_rows;
    HS_MPI_CALL(MPI_Allreduce(m->sbuf[set], dst, count, MPI_DOUBLE, MPI_SUM, m->comm));
    return HS_OK;
}

static void mpi_get_times(const hs_backend *b, hs_phase_times *t)
{
    const mpi_impl *m = b->impl;
    hs_dist_times d;
    m->pops->times(m->part, &d);
    m->inner->ops->get_times(m->inner, t);
    if (m->whole || m->device_loop) return; /* the inner backend's Newton iteration: its own clocks */
    t->solve = m->t_solve;
    t->spmv = d.spmv;
}

void hs_backend_mpi_setup_times(const hs_backend *b, hs_mpi_setup_times *t)
{
    const mpi_impl *m = b->impl;
    *t = m->setup;
}

void hs_backend_mpi_times(const hs_backend *b, hs_mpi_times *t)
{
    const mpi_impl *m = b->impl;
    hs_dist_times d;
    m->pops->times(m->part, &d);
    /* the CG's (the inner backend's) and this wrapper's Newton residual and update norm */
    t->halo_wait = d.halo_wait;
    t->allreduce = d.allreduce + m->t.allreduce;
    t->spmv = d.spmv;
    t->exchanges = d.exchanges;
    t->allreduces = d.allreduces + m->t.allreduces;
    t->host_waits = d.host_waits + m->waits;
}

int hs_backend_mpi_ranks(void)
{
    int size = 1;
    MPI_Comm_size(hs_par_comm(), &size);
    return size;
}

static void mpi_destroy(hs_backend *b)
{
    mpi_impl *m = b->impl;
    if (!m) return;
    if (m->pops) m->pops->unbind(&m->part);
    hs_backend_destroy(&m->inner);
    hs_problem_destroy(&m->lprob);
    hs_region_set_destroy(&m->lreg);
    for (int k = 0; k < HS_SAMPLE_SETS; ++k) {
        hs_sample_set_destroy(&m->lsmp[k]);
        free(m->sbuf[k]);
    }
    hs_stim_set_destroy(&m->lstim);
    hs_mesh_destroy(&m->lmesh);
    hs_part_local_destroy(&m->l);
    hs_state_destroy(&m->lstate);
    free(m->owner);
    free(m->elem_mine_local);
    free(m->elem_mine_global);
    free(m->lh1);
    free(m->lh2);
    free(m->buf);
    free(m->gbuf);
    if (m->res_op != MPI_OP_NULL) MPI_Op_free(&m->res_op);
    if (m->res_type != MPI_DATATYPE_NULL) MPI_Type_free(&m->res_type);
    if (m->comm != MPI_COMM_NULL) MPI_Comm_free(&m->comm);
    free(m);
    b->impl = NULL;
}

#define HS_MPI_OPS                                                                                    \
    .name = "mpi", .begin_step = mpi_begin_step, .assemble = mpi_assemble, .tangent = mpi_tangent,                \
    .solve = mpi_solve, .end_step = mpi_end_step, .restore_step = mpi_restore_step, .get_state = mpi_get_state,   \
    .set_state = mpi_set_state, .get_history = mpi_get_history, .set_history = mpi_set_history,                   \
    .get_times = mpi_get_times, .destroy = mpi_destroy, .sample_setup = mpi_sample_setup, .sample = mpi_sample,   \
    .sample_fetch = mpi_sample_fetch, .react = mpi_react, .diffuse = mpi_diffuse

static const hs_backend_ops mpi_ops = {HS_MPI_OPS};
/* one rank over a backend with a device-side Newton iteration (mpi_iterate) */
static const hs_backend_ops mpi_ops_whole = {HS_MPI_OPS, .iterate = mpi_iterate, .newton_device = mpi_newton_device};
/* several ranks over a partition that runs the Newton loop itself (mpi_newton_part) */
static const hs_backend_ops mpi_ops_part_loop = {HS_MPI_OPS, .newton_device = mpi_newton_part};

static int cmp_i32(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* The rank's mesh: its local nodes (coordinates, source numbers) and elements (local nodes,
 * region, fibre); no boundary faces (the stimulus sites are mapped from the global ones). */
static hs_status local_mesh(const hs_mesh *g, const hs_part_local *l, hs_mesh **out)
{
    hs_mesh *lm = NULL;
    const int32_t nl = l->n_owned + l->n_ghost;
    HS_CALL(hs_mesh_alloc(nl, l->n_elems, &lm));
    for (int32_t i = 0; i < nl; ++i) {
        memcpy(lm->xyz + 3 * (size_t)i, g->xyz + 3 * (size_t)l->l2g[i], 3 * sizeof(double));
        lm->node_orig[i] = g->node_orig ? g->node_orig[l->l2g[i]] : (int32_t)l->l2g[i];
    }
    memcpy(lm->tets, l->tets, 4 * sizeof(int32_t) * (size_t)l->n_elems);
    for (int32_t e = 0; e < l->n_elems; ++e) lm->region[e] = g->region[l->elems[e]];
    if (g->fiber) {
        hs_status st = HS_ALLOC(lm->fiber, 3 * (size_t)l->n_elems + 3, "local fibres");
        if (st != HS_OK) {
            hs_mesh_destroy(&lm);
            return st;
        }
        for (int32_t e = 0; e < l->n_elems; ++e)
            memcpy(lm->fiber + 3 * (size_t)e, g->fiber + 3 * (size_t)l->elems[e], 3 * sizeof(double));
    }
    *out = lm;
    return HS_OK;
}

/* The regions of the local elements (their table rows and entries) and nodes (decoupled: every
 * element of an owned node is local, so an owned node is decoupled here exactly when it is in the
 * mesh; a ghost's row is not solved on this rank). The table itself is copied. */
static hs_status local_regions(const hs_region_set *g, const hs_part_local *l, hs_region_set **out)
{
    *out = NULL;
    if (!g) return HS_OK;
    hs_status st = HS_OK;
    hs_region_set *r = NULL;
    const int32_t ne = l->n_elems, nl = l->n_owned + l->n_ghost;
    HS_CALL(HS_ALLOC(r, 1, "local regions"));
    r->n_entries = g->n_entries;
    r->n_rows = g->n_rows;
    HS_CALL_GOTO(HS_ALLOC(r->tab, (size_t)g->n_rows + 1, "local regions"), fail);
    memcpy(r->tab, g->tab, sizeof *r->tab * (size_t)g->n_rows);
    HS_CALL_GOTO(HS_ALLOC(r->entry_count, (size_t)g->n_entries + 1, "local regions"), fail);
    HS_CALL_GOTO(HS_ALLOC(r->entry_volume, (size_t)g->n_entries + 1, "local regions"), fail);
    if (g->elem_entry) {
        HS_CALL_GOTO(HS_ALLOC(r->elem_entry, (size_t)ne + 1, "local regions"), fail);
        for (int32_t e = 0; e < ne; ++e) r->elem_entry[e] = g->elem_entry[l->elems[e]];
    }
    if (g->elem_tab) {
        HS_CALL_GOTO(HS_ALLOC(r->elem_tab, (size_t)ne + 1, "local regions"), fail);
        for (int32_t e = 0; e < ne; ++e) {
            r->elem_tab[e] = g->elem_tab[l->elems[e]];
            r->n_passive += !r->tab[r->elem_tab[e]].conducting;
        }
    }
    if (g->decoupled) {
        HS_CALL_GOTO(HS_ALLOC(r->decoupled, (size_t)nl + 1, "local regions"), fail);
        for (int32_t i = 0; i < nl; ++i) {
            r->decoupled[i] = g->decoupled[l->l2g[i]];
            r->n_decoupled += r->decoupled[i];
        }
    }
    *out = r;
    return HS_OK;
fail:
    hs_region_set_destroy(&r);
    return st;
}

/* The global sites restricted to the local elements (sites may be empty on a rank), each site's
 * local elements ascending (hs_stim_set), whatever the view's element order: increasing global
 * number (its local indices ascend with the global ones), or a keyed view's (sorted here). */
static hs_status local_stim(const hs_stim_set *g, const hs_part_local *l, hs_stim_set **out)
{
    *out = NULL;
    hs_status st;
    hs_stim_set *s = NULL;
    hs_gid_at *by_gid = NULL;
    HS_CALL(HS_ALLOC(by_gid, (size_t)l->n_elems + 1, "local stimulus"));
    for (int32_t e = 0; e < l->n_elems; ++e) by_gid[e] = (hs_gid_at){l->elems[e], e};
    int sorted = 1;
    for (int32_t e = 1; e < l->n_elems && sorted; ++e) sorted = l->elems[e] > l->elems[e - 1];
    if (!sorted) qsort(by_gid, (size_t)l->n_elems, sizeof *by_gid, hs_gid_at_cmp);
    HS_CALL_GOTO(HS_ALLOC(s, 1, "local stimulus"), fail);
    const int n = g ? g->n_sites : 0;
    s->n_sites = n;
    HS_CALL_GOTO(HS_ALLOC(s->site, (size_t)n + 1, "local stimulus"), fail);
    HS_CALL_GOTO(HS_ALLOC(s->elem_ptr, (size_t)n + 1, "local stimulus"), fail);
    HS_CALL_GOTO(HS_ALLOC(s->elem, (g ? (size_t)g->elem_ptr[n] : 0) + 1, "local stimulus"), fail);
    int32_t k = 0;
    for (int q = 0; q < n; ++q) {
        s->site[q] = g->site[q];
        s->elem_ptr[q] = k;
        for (int32_t j = g->elem_ptr[q]; j < g->elem_ptr[q + 1]; ++j) {
            const int32_t e = local_of(by_gid, l->n_elems, g->elem[j]);
            if (e >= 0) s->elem[k++] = e;
        }
        if (!sorted) qsort(s->elem + s->elem_ptr[q], (size_t)(k - s->elem_ptr[q]), sizeof(int32_t), cmp_i32);
    }
    s->elem_ptr[n] = k;
    free(by_gid);
    *out = s;
    return HS_OK;
fail:
    free(by_gid);
    hs_stim_set_destroy(&s);
    return st;
}

/* The rank's part cut from the global mesh every rank holds: rank 0 partitions, every rank cuts its
 * view, local mesh, stimulus sites and regions. */
static hs_status cut_local(mpi_impl *m, const hs_problem *g, const hs_partitioner *part)
{
    const int32_t n = g->mesh->n_nodes;
    HS_CALL(HS_ALLOC(m->owner, n, "partition"));
    double t0 = hs_wtime();
    /* one partition, computed on rank 0 and sent: a partitioner (METIS) on every rank cost each
     * rank its graph copies and the time, for the same answer (ptscotch: every rank a block of it) */
    HS_CALL(agree(m, hs_partition_nodes_root(part, g->pattern, n, g->mesh->n_elems, g->mesh->tets, m->size,
                                             m->rank == 0, m->owner)));
    HS_MPI_CALL(MPI_Bcast(m->owner, n, MPI_INT32_T, 0, m->comm));
    /* the view from the elements: the global pattern (NULL when the partitioner needs none) is
     * not read */
    HS_CALL(hs_part_local_create_elems(n, g->mesh->n_elems, g->mesh->tets, m->owner, m->size, m->rank, &m->l));
    const hs_part_local *l = m->l;
    double t1 = hs_wtime();
    m->setup.partition = t1 - t0;
    HS_CALL(local_mesh(g->mesh, l, &m->lmesh));
    HS_CALL(local_stim(g->stim, l, &m->lstim));
    HS_CALL(local_regions(g->opt.regions, l, &m->lreg));
    m->setup.scatter = hs_wtime() - t1;
    free(m->owner); /* [n_global]: the partition is in the local view now */
    m->owner = NULL;
    return HS_OK;
}

/* The local problem and the inner backend on the rank's part (m->l, lmesh, lstim, lreg), whichever
 * way the part was made. */
/* The local problem and the inner backend on it (local work only: nothing here waits for another
 * rank); the maps' time into m->setup.maps, the backend's creation start into *t1. */
static hs_status local_problem(mpi_impl *m, const hs_problem *g, const hs_backend_entry *inner, double *t1)
{
    const hs_part_local *l = m->l;
    hs_problem_opts po = g->opt;
    po.regions = m->lreg;
    if (!po.exec.spmv) po.exec.spmv = &hs_spmv_ops_csr_scalar; /* the format is the backend's to accept (local_opts) */
    if (m->pops->local_opts) HS_CALL(m->pops->local_opts(&po, m->size)); /* checked already (refusal) */
    /* the local elements' pattern: the view's (built with it from the same elements), else built here */
    hs_csr *lpat = m->l->local_pattern;
    m->l->local_pattern = NULL;
    if (lpat && (lpat->n_rows != m->lmesh->n_nodes || lpat->n_cols != m->lmesh->n_nodes)) {
        hs_csr_destroy(&lpat);
        return HS_FAIL(HS_ERR_INTERNAL, "rank %d: the view's local pattern has %d rows for %d local nodes", m->rank,
                       (int)lpat->n_rows, (int)m->lmesh->n_nodes);
    }
    if (!lpat) HS_CALL(hs_csr_from_tets(m->lmesh->n_nodes, m->lmesh->n_elems, m->lmesh->tets, &lpat));
    /* its owned rows are the view's rows: every element of an owned node is local */
    const hs_csr *vp = l->pattern;
    int same = lpat->row_ptr[l->n_owned] == vp->nnz;
    for (int32_t i = 0; same && i <= l->n_owned; ++i) same = lpat->row_ptr[i] == vp->row_ptr[i];
    for (int32_t k = 0; same && k < vp->nnz; ++k) same = lpat->col[k] == vp->col[k];
    if (!same) {
        hs_csr_destroy(&lpat);
        return HS_FAIL(HS_ERR_INTERNAL, "rank %d: the local pattern's owned rows differ from the partition's", m->rank);
    }
    HS_CALL(hs_problem_create(m->lmesh, m->lstim, &po, &lpat, &m->lprob));
    m->setup.maps = hs_wtime() - *t1;
    *t1 = hs_wtime();
    return inner->create(m->lprob, &m->inner);
}

static hs_status create_local(mpi_impl *m, const hs_problem *g, const hs_backend_entry *inner)
{
    const hs_part_local *l = m->l;
    double t0 = hs_wtime(), t1 = t0;
    /* bind is collective where the partition's transport exchanges with the peers as it is set up (the
     * cuda backend's): a rank whose local problem or backend failed (out of memory, say) must not leave
     * the others waiting there, so the ranks agree first */
    HS_CALL(agree(m, local_problem(m, g, inner, &t1)));
    HS_CALL(m->pops->bind(m->inner, l, &m->comm, m->fast, &m->part));
    m->setup.upload = hs_wtime() - t1;
    /* element fields: each element reported by the owner of its first node (the view keeps the
     * vertex order, so that is the local first vertex: an owned one, or a ghost of another rank), in
     * the view's element order (a keyed view's is not the global one: the gathers and writers place
     * each value by its global number) */
    for (int32_t e = 0; e < l->n_elems; ++e) m->n_elem_mine += l->tets[4 * (size_t)e] < l->n_owned;
    HS_CALL(HS_ALLOC(m->elem_mine_local, (size_t)m->n_elem_mine + 1, "element owners"));
    HS_CALL(HS_ALLOC(m->elem_mine_global, (size_t)m->n_elem_mine + 1, "element owners"));
    for (int32_t e = 0, k = 0; e < l->n_elems; ++e)
        if (l->tets[4 * (size_t)e] < l->n_owned) {
            m->elem_mine_local[k] = e;
            m->elem_mine_global[k++] = l->elems[e];
        }
    const size_t nl = (size_t)l->n_owned + l->n_ghost + 1;
    HS_CALL(hs_state_create(&m->inner->state, &m->lstate));
    HS_CALL(HS_ALLOC(m->lh1, nl, "local history"));
    HS_CALL(HS_ALLOC(m->lh2, nl, "local history"));
    HS_CALL(HS_ALLOC(m->buf, (size_t)m->n_elem_mine + 1, "gather buffer"));
    hs_log(2, "rank %d: partition and local problem in %.3f s\n", m->rank, hs_wtime() - t0);
    return HS_OK;
}

/* The partition's edge cut and imbalance from the ranks' views (hs_partition_balance's numbers
 * without the global pattern): an edge {i, j} across ranks is an off-rank column in the owned rows
 * of both its ends' ranks, so the cut is half the sum of those columns. Collective. */
static hs_status balance_of(const mpi_impl *m, hs_part_balance *b)
{
    const hs_part_local *l = m->l;
    const hs_csr *p = l->pattern;
    int64_t off = 0;
    for (int64_t k = 0; k < p->nnz; ++k) off += p->col[k] >= l->n_owned;
    int64_t sum[3] = {off, l->n_owned, p->nnz}, max[2] = {l->n_owned, p->nnz};
    HS_MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, sum, 3, MPI_INT64_T, MPI_SUM, m->comm));
    HS_MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, max, 2, MPI_INT64_T, MPI_MAX, m->comm));
    b->edge_cut = sum[0] / 2;
    b->imbalance_nodes = (double)max[0] * m->size / (double)sum[1];
    b->imbalance_nnz = (double)max[1] * m->size / (double)sum[2];
    return HS_OK;
}

/* What a distributed run refuses, from the config alone: every rank finds the same. */
static hs_status refusal(const hs_problem *g, const hs_backend_entry *inner)
{
    const int size = hs_backend_mpi_ranks();
    if (!inner->part) { /* the backends that run on a partition, from the registry */
        char names[256] = "";
        size_t o = 0;
        const hs_registry *reg = hs_backends_registry();
        for (size_t i = 0; i < reg->count && o < sizeof names; ++i) {
            const hs_backend_entry *e = hs_backends_find(hs_registry_name(reg, i));
            if (e && e->part) o += (size_t)snprintf(names + o, sizeof names - o, "%s\"%s\"", o ? " or " : "", e->name);
        }
        return HS_FAIL(HS_ERR_CONFIG, "solver.backend: a distributed run (mpirun) needs a backend that runs on a "
                       "partition; \"%s\" does not: use solver.backend = %s", inner->name, names);
    }
    if (g->opt.scheme.kind == HS_SCHEME_SPLITTING && !inner->part->splitting)
        return HS_FAIL(HS_ERR_CONFIG, "solver.scheme = \"splitting\": the %s backend does not run it on a partition "
                       "(a distributed run); use solver.backend = \"cpu\" or solver.scheme = \"newton\"", inner->name);
    hs_problem_opts po = g->opt; /* the inner backend's own: the SpMV formats and values it splits */
    if (!po.exec.spmv) po.exec.spmv = &hs_spmv_ops_csr_scalar;
    if (inner->part->local_opts) HS_CALL(inner->part->local_opts(&po, size));
    return HS_OK;
}

static hs_status create_with(const hs_problem *g, hs_backend_mpi_part *given, const hs_partitioner *part,
                             const hs_backend_entry *inner, hs_backend **out)
{
    *out = NULL;
    const int64_t n_nodes = given ? given->l->n_global : g->mesh->n_nodes;
    const int64_t n_elems = given ? given->n_elems_global : g->mesh->n_elems;
    {
        /* alike on every rank: printed once, by rank 0 (app/main.c), with no MPI_Abort */
        const hs_status rs = refusal(g, inner);
        if (rs != HS_OK) {
            hs_error_mark_agreed();
            return rs;
        }
    }
    hs_backend *b = NULL;
    mpi_impl *m = NULL;
    HS_CALL(HS_ALLOC(b, 1, "backend"));
    b->ops = &mpi_ops;
    b->prob = g;
    hs_state_desc_init_scheme(&b->state, g->opt.model, g->opt.scheme.kind, (int32_t)n_nodes, (int32_t)n_elems);
    hs_status st = HS_ALLOC(m, 1, "distributed backend");
    if (st != HS_OK) {
        free(b);
        return st;
    }
    b->impl = m;
    m->comm = MPI_COMM_NULL;
    m->res_type = MPI_DATATYPE_NULL;
    m->res_op = MPI_OP_NULL;
    MPI_Comm_dup(hs_par_comm(), &m->comm);
    MPI_Comm_rank(m->comm, &m->rank);
    MPI_Comm_size(m->comm, &m->size);
    m->pops = inner->part;
    m->device = inner->needs_device;
    st = agree(m, res_maxloc_create(m));
    if (st != HS_OK) {
        hs_backend_destroy(&b);
        return st;
    }
    if (m->pops->prepare) { /* e.g. each rank's device, before anything touches one */
        char desc[512] = "";
        st = agree(m, m->pops->prepare(&m->comm, desc, sizeof desc, &m->fast));
        if (st != HS_OK) {
            hs_backend_destroy(&b);
            return st;
        }
        /* every rank's, printed by rank 0 (the other ranks are quiet) */
        char *all = m->rank == 0 ? malloc(sizeof desc * (size_t)m->size) : NULL;
        MPI_Gather(desc, (int)sizeof desc, MPI_CHAR, all, (int)sizeof desc, MPI_CHAR, 0, m->comm);
        for (int q = 0; all && q < m->size; ++q)
            if (all[sizeof desc * (size_t)q])
                hs_log(1, "%s: %.500s\n", inner->needs_device ? "gpu" : inner->name, all + sizeof desc * (size_t)q);
        free(all);
    }
    if (given) { /* the part made without the global mesh: taken over */
        m->l = given->l;
        m->lmesh = given->lmesh;
        m->lstim = given->lstim;
        m->lreg = given->lreg;
        m->setup.partition = given->partition;
        m->setup.scatter = given->scatter;
        *given = (hs_backend_mpi_part){0};
    } else {
        st = agree(m, cut_local(m, g, part));
    }
    if (st == HS_OK) st = agree(m, create_local(m, g, inner));
    if (st == HS_OK) {
        hs_part_balance bal;
        st = balance_of(m, &bal);
        /* collective; rank 0 prints it unless quiet (the other ranks are quiet) */
        st = agree(m, hs_dist_report(m->l, m->comm, part->name, &bal, hs_verbosity >= 1 ? stderr : NULL));
    }
    free(m->owner); /* [n_global]: the partition is in the local view now */
    m->owner = NULL;
    if (st != HS_OK) {
        hs_backend_destroy(&b);
        return st;
    }
    if (m->size == 1 && m->pops->one_rank_serial && m->inner->ops->iterate && m->inner->ops->newton_device) {
        m->whole = 1;
        b->ops = &mpi_ops_whole;
    } else if (m->pops->newton && g->opt.exec.step != HS_STEP_KERNELS && g->opt.scheme.kind == HS_SCHEME_NEWTON) {
        m->device_loop = 1; /* fem/newton.c calls newton_device when the step is not "kernels" */
        b->ops = &mpi_ops_part_loop;
    }
    const char *what = m->pops->describe ? m->pops->describe(m->part) : NULL;
    if (what) /* the partition's words whole (the longest, ~110 characters: "device Newton loop in graphs,
               * cusparse_sell after the halo, halo and sums through CUDA IPC peer memory"); the inner
               * backend's line is printed whole on its own ("gpu: ...") */
        snprintf(b->description, sizeof b->description, "mpi (%d ranks, %s partition; %.150s) of %.60s", m->size,
                 part->name, what, m->inner->description);
    else
        snprintf(b->description, sizeof b->description, "mpi (%d ranks, %s partition) of %.200s", m->size, part->name,
                 m->inner->description);
    *out = b;
    return HS_OK;
}

hs_status hs_backend_mpi_create(const hs_problem *g, const hs_partitioner *part, const hs_backend_entry *inner,
                                hs_backend **out)
{
    return create_with(g, NULL, part, inner, out);
}

hs_status hs_backend_mpi_create_part(const hs_problem *outline, hs_backend_mpi_part *given, const hs_partitioner *part,
                                     const hs_backend_entry *inner, hs_backend **out)
{
    hs_status st = HS_OK;
    if (!given || !given->l || !given->lmesh || !given->lstim)
        st = HS_FAIL(HS_ERR_INTERNAL, "a rank's part without its view, mesh or stimulus sites");
    if (st == HS_OK) st = create_with(outline, given, part, inner, out);
    hs_backend_mpi_part_free(given); /* what was not taken (a refusal before it) */
    return st;
}

void hs_backend_mpi_part_free(hs_backend_mpi_part *p)
{
    if (!p) return;
    hs_part_local_destroy(&p->l);
    hs_mesh_destroy(&p->lmesh);
    hs_stim_set_destroy(&p->lstim);
    hs_region_set_destroy(&p->lreg);
}
