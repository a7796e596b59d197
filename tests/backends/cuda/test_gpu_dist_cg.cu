/* The distributed device CG (backends/cuda/dist_gpu.cu) against its host reference (the cpu
 * backend's CG on a partition: hs_cg_chronopoulos over the rank's comm, hs_comm_mpi_create),
 * under mpirun -np N (ctest: N = 1, 2; labels gpu, mpi; exit 77 without a GPU). On the matrix of
 * tests/parallel/test_dist_cg.c (a box pattern, SPD M-matrix: off-diagonals -(1 + (i+j) mod 3)/2,
 * diagonal = their absolute sum + 1), partitioned by rows, for each transport this process can use
 * (NCCL when every rank has its own device and libnccl loads; MPI via host buffers always):
 *  - the owned rows' residual maximum (dt = 1, masses 1) equals max |b_i| over the owned rows exactly
 *    and names its row (the same products, a max: no rounding);
 *  - the CG converges in the host CG's iteration count +-1 (the same recurrences; the dot products
 *    are summed in another order), with one all-reduce per iteration plus the set-up's;
 *  - its gathered solution has true residual <= 1.01 tol ||b|| and lies within the bound the
 *    stopping tests give of the host solution: ||x_d - x_h||_2 <= (||r_d|| + ||r_h||) / lambda_min,
 *    lambda_min >= 1 by Gershgorin;
 *  - the update norm is max |x| over the owned rows, phi = -x on the owned rows, and phi's ghosts are
 *    exactly their owners' values (the halo exchange of phi after the update).
 * The inner cuda backend is stood in for by a cuda_impl holding only what hs_dist_gpu reads. */
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include "cuda_backend.cuh"
#include "hs_cg.h"
#include "hs_cuda.h"
#include "hs_dist.h"
#include "hs_dist_gpu.h"
#include "hs_gpu_reduce.cuh"
#include "hs_mesh.h"
#include "hs_partition.h"
#include "hs_test.h"
#include "hs_vec.h"

static double norm2_residual(const hs_csr *a, const double *b, const double *x, double *tmp)
{
    hs_csr_spmv(a, x, tmp);
    double s = 0.0;
    for (int32_t i = 0; i < a->n_rows; ++i) s += (b[i] - tmp[i]) * (b[i] - tmp[i]);
    return sqrt(s);
}

/* the host reference's operator: a rank's owned rows behind its comm (halo started, interior rows,
 * halo finished, boundary rows: the cpu backend's order) */
struct local_mat {
    const hs_csr *pat;
    const double *val;
    hs_comm *comm;
};

static void rows_spmv(const local_mat *m, int32_t lo, int32_t hi, const double *x, double *y)
{
    for (int32_t i = lo; i < hi; ++i) {
        double s = 0.0;
        for (int32_t k = m->pat->row_ptr[i]; k < m->pat->row_ptr[i + 1]; ++k) s += m->val[k] * x[m->pat->col[k]];
        y[i] = s;
    }
}

static void local_matvec(void *ctx, const double *x, double *y)
{
    local_mat *m = static_cast<local_mat *>(ctx);
    hs_status st = hs_comm_halo_start(m->comm, const_cast<double *>(x)); /* a CG work vector of n_local */
    rows_spmv(m, 0, m->comm->n_interior, x, y);
    if (st == HS_OK) st = hs_comm_halo_finish(m->comm);
    rows_spmv(m, m->comm->n_interior, m->comm->n_owned, x, y);
    if (st != HS_OK) m->comm->err = st;
}

template <typename T>
static T *dev_copy(const std::vector<T> &h)
{
    T *d = NULL;
    if (cudaMalloc((void **)&d, sizeof(T) * (h.size() + 1)) != cudaSuccess) return NULL;
    if (!h.empty()) cudaMemcpy(d, h.data(), sizeof(T) * h.size(), cudaMemcpyHostToDevice);
    return d;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int nd = 0;
    if (cudaGetDeviceCount(&nd) != cudaSuccess) nd = 0;
    int min_nd = nd;
    MPI_Allreduce(&nd, &min_nd, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (min_nd == 0) {
        if (rank == 0) printf("no CUDA device: skipped\n");
        MPI_Finalize();
        return HS_TEST_SKIP;
    }

    hs_box_params bp = {12, 8, 6, 1.0, 0, 1.414};
    hs_mesh *m = NULL;
    hs_csr *a = NULL;
    HS_TEST_OK(hs_mesh_create_box(&bp, &m));
    HS_TEST_OK(hs_csr_from_tets(m->n_nodes, m->n_elems, m->tets, &a));
    if (!a) MPI_Abort(MPI_COMM_WORLD, 1);
    const int32_t n = a->n_rows;
    std::vector<double> inv_diag(n), b(n), xh(n), xd(n), tmp(n);
    for (int32_t i = 0; i < n; ++i) {
        double off = 0.0;
        int32_t d = -1;
        for (int32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; ++k) {
            const int32_t j = a->col[k];
            if (j == i) {
                d = k;
                continue;
            }
            a->val[k] = -(1.0 + (double)((i + j) % 3)) * 0.5;
            off += -a->val[k];
        }
        a->val[d] = off + 1.0;
        inv_diag[i] = 1.0 / a->val[d];
        b[i] = 1.0 + sin(0.37 * i) - (i % 17 == 5 ? 3.0 : 0.0);
    }
    const double bnorm = sqrt(hs_vec_dot(n, b.data(), b.data()));
    const hs_cg_opts opts = {1e-10, 2000, HS_CG_CHRONOPOULOS, 0};

    const hs_partitioner *p = NULL;
    HS_TEST_OK(hs_partitioner_lookup("parallel.partition", "rows", &p));
    std::vector<int32_t> part(n);
    hs_part_local *l = NULL;
    HS_TEST_OK(hs_partition_nodes(p, a, size, part.data()));
    HS_TEST_OK(hs_part_local_create(a, m->n_elems, m->tets, part.data(), size, rank, &l));
    if (!l) MPI_Abort(MPI_COMM_WORLD, 1);
    const int32_t no = l->n_owned, nl = l->n_owned + l->n_ghost, nnz = l->pattern->nnz;
    std::vector<double> val(nnz), lb(no), ld(no), lx(no);
    for (int32_t li = 0; li < no; ++li) {
        const int32_t g = (int32_t)l->l2g[li]; /* 64-bit global id of a 32-bit test mesh */
        for (int32_t k = l->pattern->row_ptr[li]; k < l->pattern->row_ptr[li + 1]; ++k)
            val[k] = a->val[hs_csr_find(a, g, (int32_t)l->l2g[l->pattern->col[k]])];
        lb[li] = b[g];
        ld[li] = inv_diag[g];
    }

    /* the host reference */
    hs_comm *comm = NULL;
    hs_cg_work *w = NULL;
    hs_cg_result hres;
    HS_TEST_OK(hs_comm_mpi_create(l, MPI_COMM_WORLD, &comm));
    HS_TEST_OK(hs_cg_work_create(nl, &w));
    w->comm = comm;
    local_mat lm = {l->pattern, val.data(), comm};
    HS_TEST_OK(hs_cg_chronopoulos(no, local_matvec, &lm, ld.data(), lb.data(), lx.data(), &opts, w, &hres));
    HS_TEST_CHECK(hres.outcome == HS_CG_CONVERGED, "host CG: %s", hs_cg_outcome_name(hres.outcome));
    HS_TEST_OK(hs_dist_gather_idx(MPI_COMM_WORLD, -1, no, l->l2g, lx.data(), n, xh.data()));
    const double rh = norm2_residual(a, b.data(), xh.data(), tmp.data());

    /* the device: this rank's GPU, and a stand-in for the inner cuda backend */
    int shared = 0;
    char desc[512];
    HS_TEST_OK(hs_dist_gpu_select_device(MPI_COMM_WORLD, &shared, desc, sizeof desc));
    printf("%s\n", desc);
    cuda_impl c;
    memset(&c, 0, sizeof c);
    HS_TEST_CHECK(cudaStreamCreateWithFlags(&c.s, cudaStreamNonBlocking) == cudaSuccess, "stream");
    std::vector<int64_t> slots(nnz);
    for (int32_t k = 0; k < nnz; ++k) slots[k] = k;
    hs_spmv_layout lay;
    memset(&lay, 0, sizeof lay);
    lay.n_slots = nnz;
    lay.slot_of_nnz = slots.data();
    c.lay = &lay;
    c.nn = nl;
    c.kval = dev_copy(val);
    c.dinv = dev_copy(ld);
    c.rhs = dev_copy(lb);
    c.inv_mass = dev_copy(std::vector<double>(nl, 1.0));
    c.du = dev_copy(std::vector<double>(nl, 0.0));
    c.phi = dev_copy(std::vector<double>(nl, 0.0));
    c.partA = dev_copy(std::vector<double>(HS_RED_BLOCKS, 0.0));
    c.parti = dev_copy(std::vector<int>(HS_RED_BLOCKS, 0));
    c.dt = 1.0;
    hs_backend_ops ops;
    memset(&ops, 0, sizeof ops);
    ops.name = "cuda";
    hs_problem prob;
    memset(&prob, 0, sizeof prob);
    prob.opt.exec.spmv = &hs_spmv_ops_csr_scalar;
    hs_backend be;
    memset(&be, 0, sizeof be);
    be.ops = &ops;
    be.impl = &c;
    be.prob = &prob;

    char why[300] = "";
    int nccl = hs_dist_gpu_nccl_available(why, sizeof why);
    MPI_Allreduce(MPI_IN_PLACE, &nccl, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    nccl = nccl && !shared;
    if (rank == 0 && !nccl) printf("NCCL transport not tested here: %s\n", shared ? "ranks share a device" : why);
    for (int use = nccl; use >= 0; --use) {
        hs_dist_times t;
        memset(&t, 0, sizeof t);
        hs_dist_gpu *g = NULL;
        HS_TEST_OK(hs_dist_gpu_create(&be, l, MPI_COMM_WORLD, use, &t, &g));
        if (!g) MPI_Abort(MPI_COMM_WORLD, 1);
        const char *tr = hs_dist_gpu_transport(g);
        if (rank == 0) printf("transport: %s\n", tr);
        /* residual of the owned rows */
        double v = -1.0, vref = -1.0;
        int32_t il = -1, iref = 0;
        HS_TEST_OK(hs_dist_gpu_residual(g, &v, &il));
        for (int32_t i = 0; i < no; ++i)
            if (fabs(lb[i]) > vref) {
                vref = fabs(lb[i]);
                iref = i;
            }
        HS_TEST_CHECK(v == vref && il == iref, "%s: residual %g at %d, expected %g at %d", tr, v, il, vref, iref);
        /* solve, update */
        cudaMemset(c.phi, 0, sizeof(double) * nl);
        hs_cg_result dres;
        double upd = -1.0;
        HS_TEST_OK(hs_dist_gpu_solve(g, &opts, &dres, &upd));
        HS_TEST_CHECK(dres.outcome == HS_CG_CONVERGED, "%s np=%d: %s", tr, size, hs_cg_outcome_name(dres.outcome));
        HS_TEST_CHECK(abs(dres.iters - hres.iters) <= 1, "%s np=%d: %d iterations, host %d", tr, size, dres.iters,
                      hres.iters);
        HS_TEST_CHECK(t.allreduces == dres.iters + 1, "%s: %ld all-reduces for %d iterations", tr, t.allreduces,
                      dres.iters);
        std::vector<double> x(nl), phi(nl);
        cudaMemcpy(x.data(), c.du, sizeof(double) * no, cudaMemcpyDeviceToHost);
        cudaMemcpy(phi.data(), c.phi, sizeof(double) * nl, cudaMemcpyDeviceToHost);
        HS_TEST_OK(hs_dist_gather_idx(MPI_COMM_WORLD, -1, no, l->l2g, x.data(), n, xd.data()));
        const double rd = norm2_residual(a, b.data(), xd.data(), tmp.data());
        HS_TEST_CHECK(rd <= 1.01 * opts.tol * bnorm, "%s np=%d: true residual %g > tol ||b|| %g", tr, size, rd,
                      opts.tol * bnorm);
        double d2 = 0.0;
        for (int32_t i = 0; i < n; ++i) d2 += (xd[i] - xh[i]) * (xd[i] - xh[i]);
        HS_TEST_CHECK(sqrt(d2) <= rd + rh, "%s np=%d: ||x_d - x_h|| = %g > ||r_d|| + ||r_h|| = %g", tr, size,
                      sqrt(d2), rd + rh);
        double xmax = 0.0;
        for (int32_t i = 0; i < no; ++i) xmax = fmax(xmax, fabs(x[i]));
        HS_TEST_CHECK(upd == xmax, "%s: update norm %g, max |x| %g", tr, upd, xmax);
        int bad = 0;
        for (int32_t i = 0; i < no; ++i) bad += phi[i] != -x[i];
        for (int32_t i = no; i < nl; ++i) bad += phi[i] != -xd[l->l2g[i]];
        HS_TEST_CHECK(bad == 0, "%s: %d entries of phi (owned: -x; ghosts: their owners') differ", tr, bad);
        if (rank == 0)
            printf("%s np=%d: %d iterations (host %d), ||x_d - x_h|| = %.3g, true residual %.3g (tol ||b|| %.3g)\n",
                   tr, size, dres.iters, hres.iters, sqrt(d2), rd, opts.tol * bnorm);
        hs_dist_gpu_destroy(&g);
    }

    void *dptr[] = {c.kval, c.dinv, c.rhs, c.inv_mass, c.du, c.phi, c.partA, c.parti};
    for (size_t k = 0; k < sizeof dptr / sizeof dptr[0]; ++k) cudaFree(dptr[k]);
    cudaStreamDestroy(c.s);
    hs_cg_work_destroy(&w);
    hs_comm_mpi_destroy(&comm);
    hs_part_local_destroy(&l);
    hs_csr_destroy(&a);
    hs_mesh_destroy(&m);
    int fails = hs_test_failures, all = 0;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return all ? 1 : 0;
}
