/* The MPI layer: the halo exchange and reductions of a rank's comm (hs_comm.h), gathers, the
 * partition report (hs_dist.h). */
#include "hs_dist.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_util.h"
#include "hs_vec.h"

/* one tag for halo messages: a rank has at most one exchange in flight per communicator */
#define HS_HALO_TAG 1401

/* Halo exchange of one local vector: post (start), overlap, wait (finish). */
typedef struct hs_halo {
    const hs_part_local *l;
    MPI_Comm comm;
    double *sendbuf;   /* [send_ptr[n_nbrs]] */
    MPI_Request *req;  /* [2 n_nbrs]: receives, then sends */
    int active;
} hs_halo;

static void hs_halo_destroy(hs_halo **p);

static hs_status hs_halo_create(const hs_part_local *l, MPI_Comm comm, hs_halo **out)
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

static void hs_halo_destroy(hs_halo **p)
{
    if (!p || !*p) return;
    if ((*p)->active) MPI_Waitall(2 * (*p)->l->n_nbrs, (*p)->req, MPI_STATUSES_IGNORE);
    free((*p)->sendbuf);
    free((*p)->req);
    free(*p);
    *p = NULL;
}

static hs_status hs_halo_start(hs_halo *h, double *x)
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

static hs_status hs_halo_finish(hs_halo *h)
{
    HS_CHECK(h->active, HS_ERR_INTERNAL, "halo exchange finished without a start");
    h->active = 0;
    HS_MPI_CALL(MPI_Waitall(2 * h->l->n_nbrs, h->req, MPI_STATUSES_IGNORE));
    return HS_OK;
}

/* ---- the comm of a rank's view (hs_comm.h) ---------------------------------------------------- */

typedef struct comm_mpi {
    hs_comm pub; /* first: the hs_comm handed out is this struct */
    MPI_Comm comm;
    hs_halo *halo;
    hs_dist_times t;
} comm_mpi;

static hs_status comm_halo_start(void *impl, double *x)
{
    comm_mpi *c = impl;
    ++c->t.exchanges;
    return hs_halo_start(c->halo, x);
}

static hs_status comm_halo_finish(void *impl)
{
    comm_mpi *c = impl;
    const double t0 = hs_wtime();
    const hs_status st = hs_halo_finish(c->halo);
    c->t.halo_wait += hs_wtime() - t0;
    return st;
}

static hs_status comm_sum(void *impl, double *v, int n)
{
    comm_mpi *c = impl;
    const double t0 = hs_wtime();
    HS_MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, c->comm));
    c->t.allreduce += hs_wtime() - t0;
    ++c->t.allreduces;
    return HS_OK;
}

static const hs_comm_ops k_comm_mpi_ops = {comm_halo_start, comm_halo_finish, comm_sum};

hs_status hs_comm_mpi_create(const hs_part_local *l, MPI_Comm comm, hs_comm **out)
{
    *out = NULL;
    comm_mpi *c = NULL;
    HS_CALL(HS_ALLOC(c, 1, "distributed comm"));
    const hs_status st = hs_halo_create(l, comm, &c->halo);
    if (st != HS_OK) {
        free(c);
        return st;
    }
    c->comm = comm;
    c->pub.ops = &k_comm_mpi_ops;
    c->pub.impl = c;
    c->pub.n_owned = l->n_owned;
    c->pub.n_interior = l->n_interior;
    c->pub.n_local = l->n_owned + l->n_ghost;
    c->pub.err = HS_OK;
    *out = &c->pub;
    return HS_OK;
}

void hs_comm_mpi_destroy(hs_comm **p)
{
    if (!p || !*p) return;
    comm_mpi *c = (comm_mpi *)(*p)->impl;
    hs_halo_destroy(&c->halo);
    free(c);
    *p = NULL;
}

void hs_comm_mpi_times(const hs_comm *p, hs_dist_times *t)
{
    *t = ((const comm_mpi *)p->impl)->t;
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
