/*
 * The distributed backend (hs_backend_mpi.h): an inner cpu backend on each rank's local mesh,
 * global Newton decisions, the distributed CG, gathered state.
 */
#include "hs_backend_mpi.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cpu/cpu_backend.h"
#include "hs_dist.h"
#include "hs_par.h"
#include "hs_util.h"
#include "hs_vec.h"
#if HS_HAS_CUDA
#include "hs_cuda.h"
#include "hs_dist_gpu.h"
#endif

typedef struct mpi_impl {
    MPI_Comm comm;
    int rank, size;
    int32_t *part;          /* [n_global] owner of each node */
    hs_part_local *l;
    hs_mesh *lmesh;         /* local mesh: local nodes (owned, ghosts), local elements */
    hs_stim_set *lstim;
    hs_problem *lprob;
    hs_backend *inner;      /* cpu on the local problem */
    double *dval;           /* [owned nnz] K's owned rows in the local pattern's order */
    hs_dist_matrix *dm;
    hs_dist_cg_work *cgw;
    int32_t n_elem_mine;    /* elements this rank reports in gathers (owner of the element's first node) */
    int32_t *elem_mine_local, *elem_mine_global;
    hs_state lstate;        /* local copy of every field, for get/set_state */
    double *lh1, *lh2, *buf; /* local history, owned-value buffer */
    double *gbuf;           /* [max(n_nodes, n_elems)] a gathered field nobody asked for */
    double res;             /* global Newton residual of the last assembly */
    double t_solve;
    int on_gpu;             /* the inner backend is cuda: the CG runs on the device (gpu) */
    int use_nccl;           /* its traffic through NCCL (else MPI through host buffers) */
#if HS_HAS_CUDA
    hs_dist_gpu *gpu;
#endif
} mpi_impl;

/* Every rank returns the same status: the first failing rank's code and message go to all. */
static hs_status agree(mpi_impl *m, hs_status st)
{
    int first = st == HS_OK ? m->size : m->rank, min_first = 0;
    MPI_Allreduce(&first, &min_first, 1, MPI_INT, MPI_MIN, m->comm);
    if (min_first == m->size) return HS_OK;
    int code = (int)st;
    char msg[2048] = "";
    if (m->rank == min_first) snprintf(msg, sizeof msg, "%s", hs_error_message());
    MPI_Bcast(&code, 1, MPI_INT, min_first, m->comm);
    MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, min_first, m->comm);
    hs_error_clear();
    hs_par_set_agreed(code);
    if (m->size == 1) return hs_error_set((hs_status)code, __FILE__, __LINE__, __func__, "%s", msg);
    return hs_error_set((hs_status)code, __FILE__, __LINE__, __func__, "rank %d of %d: %s", min_first, m->size, msg);
}

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
    snprintf(text, sizeof text, "%s [rank %d's element %d is element %lld of the mesh]", msg, m->rank, le,
             hs_mesh_elem_name(global, m->l->elems[le]));
    hs_error_clear();
    return hs_error_set(st, __FILE__, __LINE__, __func__, "%s", text);
}

/* The Newton residual over the ranks: the largest of each rank's (value, global node), MPI_MAXLOC */
static void residual_maxloc(mpi_impl *m, double v, int32_t node, double *res_norm, int32_t *res_node)
{
    struct {
        double v;
        int i;
    } loc = {v, (int)node}, glob;
    double t0 = hs_wtime();
    MPI_Allreduce(&loc, &glob, 1, MPI_DOUBLE_INT, MPI_MAXLOC, m->comm);
    m->dm->t.allreduce += hs_wtime() - t0;
    *res_norm = glob.v;
    *res_node = glob.i;
    m->res = glob.v;
}

static hs_status mpi_assemble(hs_backend *b, double *res_norm, int32_t *res_node)
{
    mpi_impl *m = b->impl;
    HS_CALL(agree(m, name_global_element(m, b->prob->mesh, m->inner->ops->assemble(m->inner, res_norm, res_node))));
    const hs_part_local *l = m->l;
#if HS_HAS_CUDA
    if (m->on_gpu) { /* the residual of the owned rows on the device; K stays there */
        double v = 0.0;
        int32_t il = 0;
        HS_CALL(agree(m, hs_dist_gpu_residual(m->gpu, &v, &il)));
        residual_maxloc(m, v, l->l2g[il], res_norm, res_node);
        return HS_OK;
    }
#endif
    cpu_impl *c = m->inner->impl;
    /* the owned rows only (a ghost's row misses the elements of other ranks) */
    double best = -1.0;
    int32_t at = 0;
    for (int32_t i = 0; i < l->n_owned; ++i) {
        double v = fabs(c->rhs[i]) * c->res_w[i];
        if (!(v <= INFINITY)) v = INFINITY; /* NaN: reported as non-finite */
        if (v > best) {
            best = v;
            at = l->l2g[i];
        }
    }
    residual_maxloc(m, best, at, res_norm, res_node);
    return HS_OK;
}

/* The inner backend's K and Jacobi diagonal (solve's first act; the cpu's values copied to the
 * distributed matrix's) */
static hs_status mpi_tangent(hs_backend *b)
{
    mpi_impl *m = b->impl;
    HS_CALL(agree(m, m->inner->ops->tangent(m->inner)));
#if HS_HAS_CUDA
    if (m->on_gpu) return HS_OK; /* K stays on the device */
#endif
    const cpu_impl *c = m->inner->impl;
    const int64_t *slot = c->lay->slot_of_nnz;
    for (int32_t k = 0; k < m->l->pattern->nnz; ++k) m->dval[k] = c->kval[slot[k]];
    return HS_OK;
}

static hs_status mpi_solve(hs_backend *b, hs_cg_result *cg, double *upd_norm)
{
    mpi_impl *m = b->impl;
    const hs_problem *p = b->prob;
    const int32_t n = m->l->n_owned;
    double t0 = hs_wtime();
    HS_CALL(mpi_tangent(b));
    hs_cg_opts o = p->opt.cg;
    o.tol = hs_cg_forcing_tol(p->opt.cg.tol, p->opt.cg_forcing, p->opt.newton_tol_residual, m->res);
#if HS_HAS_CUDA
    if (m->on_gpu) {
        double u = 0.0;
        HS_CALL(agree(m, hs_dist_gpu_solve(m->gpu, &o, cg, &u)));
        MPI_Allreduce(MPI_IN_PLACE, &u, 1, MPI_DOUBLE, MPI_MAX, m->comm);
        *upd_norm = u;
        m->t_solve += hs_wtime() - t0;
        return HS_OK;
    }
#endif
    cpu_impl *c = m->inner->impl;
    HS_CALL(agree(m, hs_dist_cg(m->dm, c->inv_diag, c->rhs, c->du, &o, m->cgw, cg)));
    if (cg->outcome == HS_CG_CONVERGED) {
        for (int32_t i = 0; i < n; ++i) c->phi[i] -= c->du[i];
        /* the ghosts of phi from their owners */
        hs_status st = hs_halo_start(m->dm->halo, c->phi);
        if (st == HS_OK) st = hs_halo_finish(m->dm->halo);
        HS_CALL(agree(m, st));
    }
    double u = hs_vec_norm_inf(n, c->du, NULL);
    MPI_Allreduce(MPI_IN_PLACE, &u, 1, MPI_DOUBLE, MPI_MAX, m->comm);
    *upd_norm = u;
    m->t_solve += hs_wtime() - t0;
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
static const double *mine_of(mpi_impl *m, const hs_state_desc *d, int k, int32_t *n, const int32_t **idx)
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
    for (int k = 0; k < b->state.n_fields; ++k) {
        int32_t n = 0;
        const int32_t *idx = NULL;
        const double *v = mine_of(m, &m->inner->state, k, &n, &idx);
        HS_CALL(hs_dist_gather_idx(m->comm, -1, n, idx, v, (int32_t)hs_state_field_len(&b->state, k),
                                   dst->field[k] ? dst->field[k] : m->gbuf));
    }
    return HS_OK;
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

static void mpi_get_times(const hs_backend *b, hs_phase_times *t)
{
    const mpi_impl *m = b->impl;
    m->inner->ops->get_times(m->inner, t);
    t->solve = m->t_solve;
    t->spmv = m->dm->t.spmv;
}

void hs_backend_mpi_times(const hs_backend *b, hs_mpi_times *t)
{
    const mpi_impl *m = b->impl;
    t->halo_wait = m->dm->t.halo_wait;
    t->allreduce = m->dm->t.allreduce;
    t->spmv = m->dm->t.spmv;
    t->exchanges = m->dm->t.exchanges;
    t->allreduces = m->dm->t.allreduces;
}

static void mpi_destroy(hs_backend *b)
{
    mpi_impl *m = b->impl;
    if (!m) return;
#if HS_HAS_CUDA
    hs_dist_gpu_destroy(&m->gpu);
#endif
    hs_backend_destroy(&m->inner);
    hs_problem_destroy(&m->lprob);
    hs_stim_set_destroy(&m->lstim);
    hs_mesh_destroy(&m->lmesh);
    hs_dist_cg_work_destroy(&m->cgw);
    hs_dist_matrix_destroy(&m->dm);
    hs_part_local_destroy(&m->l);
    hs_state_destroy(&m->lstate);
    free(m->part);
    free(m->dval);
    free(m->elem_mine_local);
    free(m->elem_mine_global);
    free(m->lh1);
    free(m->lh2);
    free(m->buf);
    free(m->gbuf);
    if (m->comm != MPI_COMM_NULL) MPI_Comm_free(&m->comm);
    free(m);
    b->impl = NULL;
}

static const hs_backend_ops mpi_ops = {
    .name = "mpi",
    .begin_step = mpi_begin_step,
    .assemble = mpi_assemble,
    .tangent = mpi_tangent,
    .solve = mpi_solve,
    .end_step = mpi_end_step,
    .restore_step = mpi_restore_step,
    .get_state = mpi_get_state,
    .set_state = mpi_set_state,
    .get_history = mpi_get_history,
    .set_history = mpi_set_history,
    .get_times = mpi_get_times,
    .destroy = mpi_destroy,
};

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
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
        lm->node_orig[i] = g->node_orig ? g->node_orig[l->l2g[i]] : l->l2g[i];
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

/* The global sites restricted to the local elements (sites may be empty on a rank). */
static hs_status local_stim(const hs_stim_set *g, const hs_part_local *l, hs_stim_set **out)
{
    *out = NULL;
    hs_status st;
    hs_stim_set *s = NULL;
    HS_CALL(HS_ALLOC(s, 1, "local stimulus"));
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
            const int32_t *hit = bsearch(&g->elem[j], l->elems, (size_t)l->n_elems, sizeof(int32_t), cmp_i32);
            if (hit) s->elem[k++] = (int32_t)(hit - l->elems); /* ascending: elems is sorted */
        }
    }
    s->elem_ptr[n] = k;
    *out = s;
    return HS_OK;
fail:
    hs_stim_set_destroy(&s);
    return st;
}

static hs_status create_local(mpi_impl *m, const hs_problem *g, const hs_partitioner *part, const hs_backend_entry *inner)
{
    const int32_t n = g->mesh->n_nodes;
    HS_CALL(HS_ALLOC(m->part, n, "partition"));
    double t0 = hs_wtime();
    HS_CALL(hs_partition_nodes(part, g->pattern, m->size, m->part));
    HS_CALL(hs_part_local_create(g->pattern, g->mesh->n_elems, g->mesh->tets, m->part, m->size, m->rank, &m->l));
    const hs_part_local *l = m->l;
    HS_CALL(local_mesh(g->mesh, l, &m->lmesh));
    HS_CALL(local_stim(g->stim, l, &m->lstim));
    hs_problem_opts po = g->opt;
    po.exec.spmv = &hs_spmv_ops_csr_scalar; /* the owned rows are read in CSR order (dval) */
    if (m->on_gpu) { /* the inner cuda backend assembles; the distributed CG replaces its solvers */
        po.exec.values = HS_VALUES_F64;
        po.graph = 0;
        po.exec.step = HS_STEP_KERNELS;
        po.exec.persistent_cg = 0;
        po.cg.variant = HS_CG_CHRONOPOULOS;
        po.pc.precond = HS_PRECOND_JACOBI;
        po.pc.krylov = HS_KRYLOV_CG;
    }
    hs_csr *lpat = NULL;
    HS_CALL(hs_csr_from_tets(m->lmesh->n_nodes, m->lmesh->n_elems, m->lmesh->tets, &lpat));
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
    HS_CALL(inner->create(m->lprob, &m->inner));
    HS_CALL(HS_ALLOC(m->dval, (size_t)vp->nnz + 1, "distributed matrix"));
    HS_CALL(hs_dist_matrix_create(l, m->comm, m->dval, &m->dm));
    HS_CALL(hs_dist_cg_work_create(l, &m->cgw));
#if HS_HAS_CUDA
    if (m->on_gpu) HS_CALL(hs_dist_gpu_create(m->inner, l, m->comm, m->use_nccl, &m->dm->t, &m->gpu));
#endif
    /* element fields: each element reported by the owner of its first node */
    for (int32_t e = 0; e < l->n_elems; ++e) m->n_elem_mine += m->part[g->mesh->tets[4 * (size_t)l->elems[e]]] == m->rank;
    HS_CALL(HS_ALLOC(m->elem_mine_local, (size_t)m->n_elem_mine + 1, "element owners"));
    HS_CALL(HS_ALLOC(m->elem_mine_global, (size_t)m->n_elem_mine + 1, "element owners"));
    for (int32_t e = 0, k = 0; e < l->n_elems; ++e)
        if (m->part[g->mesh->tets[4 * (size_t)l->elems[e]]] == m->rank) {
            m->elem_mine_local[k] = e;
            m->elem_mine_global[k++] = l->elems[e];
        }
    const size_t nl = (size_t)l->n_owned + l->n_ghost + 1;
    HS_CALL(hs_state_create(&m->inner->state, &m->lstate));
    HS_CALL(HS_ALLOC(m->lh1, nl, "local history"));
    HS_CALL(HS_ALLOC(m->lh2, nl, "local history"));
    HS_CALL(HS_ALLOC(m->buf, (size_t)m->n_elem_mine + 1, "gather buffer"));
    HS_CALL(HS_ALLOC(m->gbuf, (size_t)(n > g->mesh->n_elems ? n : g->mesh->n_elems) + 1, "gather buffer"));
    hs_log(2, "rank %d: partition and local problem in %.3f s\n", m->rank, hs_wtime() - t0);
    return HS_OK;
}

hs_status hs_backend_mpi_create(const hs_problem *g, const hs_partitioner *part, const hs_backend_entry *inner,
                                hs_backend **out)
{
    *out = NULL;
    const int on_gpu = !strcmp(inner->name, "cuda");
    HS_CHECK(!strcmp(inner->name, "cpu") || (on_gpu && HS_HAS_CUDA), HS_ERR_CONFIG,
             "solver.backend: a distributed run (mpirun) uses the cpu or cuda backend on each rank; \"%s\" is not "
             "distributed: use solver.backend = \"cpu\" or \"cuda\"",
             inner->name);
    HS_CHECK(!on_gpu || g->opt.exec.values != HS_VALUES_F32, HS_ERR_CONFIG,
             "solver.matrix_values: a distributed run with the cuda backend stores float64 values; use "
             "solver.matrix_values = \"float64\" or \"auto\"");
    HS_CHECK(g->opt.exec.spmv == &hs_spmv_ops_csr_scalar, HS_ERR_CONFIG,
             "solver.spmv: a distributed run multiplies the owned rows in CSR order (csr_scalar); \"%s\" is not "
             "distributed: use solver.spmv = \"auto\" or \"csr_scalar\"",
             g->opt.exec.spmv->name);
    hs_backend *b = NULL;
    mpi_impl *m = NULL;
    HS_CALL(HS_ALLOC(b, 1, "backend"));
    b->ops = &mpi_ops;
    b->prob = g;
    hs_state_desc_init(&b->state, g->opt.model, g->mesh->n_nodes, g->mesh->n_elems);
    hs_status st = HS_ALLOC(m, 1, "distributed backend");
    if (st != HS_OK) {
        free(b);
        return st;
    }
    b->impl = m;
    m->comm = MPI_COMM_NULL;
    MPI_Comm_dup(hs_par_comm(), &m->comm);
    MPI_Comm_rank(m->comm, &m->rank);
    MPI_Comm_size(m->comm, &m->size);
    m->on_gpu = on_gpu;
#if HS_HAS_CUDA
    if (on_gpu) { /* each rank's device before anything touches one */
        char desc[512] = "";
        int shared = 0;
        st = agree(m, hs_dist_gpu_select_device(m->comm, &shared, desc, sizeof desc));
        if (st != HS_OK) {
            hs_backend_destroy(&b);
            return st;
        }
        /* every rank's device, printed by rank 0 (the other ranks are quiet) */
        char *all = m->rank == 0 ? malloc(sizeof desc * (size_t)m->size) : NULL;
        MPI_Gather(desc, (int)sizeof desc, MPI_CHAR, all, (int)sizeof desc, MPI_CHAR, 0, m->comm);
        for (int q = 0; all && q < m->size; ++q) hs_log(1, "gpu: %.500s\n", all + sizeof desc * (size_t)q);
        free(all);
        /* NCCL when every rank can load it and every rank has its own device */
        char why[300] = "";
        int nccl = hs_dist_gpu_nccl_available(why, sizeof why);
        MPI_Allreduce(MPI_IN_PLACE, &nccl, 1, MPI_INT, MPI_MIN, m->comm);
        m->use_nccl = nccl && !shared;
        if (m->rank == 0 && HS_HAS_NCCL && !nccl)
            hs_warn("%s (on this or another rank): the halo exchange and the CG's all-reduce go through MPI and host "
                    "buffers (correct, slower; docs/parallel.md)", why[0] ? why : "NCCL could not be loaded");
        else if (m->rank == 0 && HS_HAS_NCCL && shared)
            hs_warn("more ranks than GPUs on a node: ranks share a device, which one NCCL communicator does not "
                    "allow; the halo exchange and the CG's all-reduce go through MPI and host buffers (correct, "
                    "slower: give each rank its own GPU, docs/parallel.md)");
    }
#endif
    st = agree(m, create_local(m, g, part, inner));
    if (st == HS_OK) {
        const hs_part_balance bal = hs_partition_balance(g->pattern, m->part, m->size);
        /* collective; rank 0 prints it unless quiet (the other ranks are quiet) */
        st = agree(m, hs_dist_report(m->l, m->comm, part->name, &bal, hs_verbosity >= 1 ? stderr : NULL));
    }
    if (st != HS_OK) {
        hs_backend_destroy(&b);
        return st;
    }
    snprintf(b->description, sizeof b->description, "mpi (%d ranks, %s partition) of %.200s", m->size, part->name,
             m->inner->description);
#if HS_HAS_CUDA
    if (m->gpu)
        snprintf(b->description, sizeof b->description,
                 "mpi (%d ranks, %s partition; distributed CG on the device, halo and all-reduce through %s) of %.110s",
                 m->size, part->name, hs_dist_gpu_transport(m->gpu), m->inner->description);
#endif
    *out = b;
    return HS_OK;
}
