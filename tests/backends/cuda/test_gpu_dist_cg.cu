/* The cuda backend on a partition (backends/cuda/dist_gpu.cu, cuda_comm.cu, cg.cu's CG on a
 * partition) against its host reference (the cpu backend's CG on a partition: hs_cg_chronopoulos
 * over the rank's comm, hs_comm_mpi_create), under mpirun -np N (ctest: N = 1, 2; labels gpu, mpi;
 * exit 77 without a GPU). On the matrix of tests/parallel/test_dist_cg.c (a box pattern, SPD M-matrix:
 * off-diagonals -(1 + (i+j) mod 3)/2, diagonal = their absolute sum + 1), partitioned by rows, the
 * rank's local matrix (owned rows, then the ghosts' incomplete rows) in every registered SpMV format
 * with a device kernel and no node order of its own, with float64 values and, where the format has
 * them, float32 ones, for each transport this process can use (NCCL when every rank has its own device
 * and libnccl loads; CUDA IPC peer memory when every rank is on one node, two ranks on one device
 * included (there on the first two format/value pairs: each wait lasts a time slice of the GPU); MPI
 * via host buffers always):
 *  - the SpMV of the owned rows with garbage (NaN) in the ghosts before the exchange equals the
 *    global product's rows: |y - y_ref| <= nnz_row eps (|A| |x|)_i (the same products, summed in
 *    another order at most; eps of double: the float32 values are the reference's too);
 *  - the owned rows' residual maximum (dt = 1, masses 1) equals max |b_i| over the owned rows exactly
 *    and names its row (the same products, a max: no rounding);
 *  - the CG (alpha, beta and the test on the device, one all-reduce per iteration) converges in the
 *    host CG's iteration count +-1 (the same recurrences; the dot products are summed in another
 *    order), with 1 + (iterations launched) all-reduces on several ranks (the host polls every
 *    HS_CG_POLL iterations: no host synchronisation in between);
 *  - its gathered solution has true residual <= 1.01 tol ||b|| and lies within the bound the
 *    stopping tests give of the host solution on the same values: ||x_d - x_h||_2 <= (||r_d|| +
 *    ||r_h||) / lambda_min, lambda_min >= 1 by Gershgorin (the entries are multiples of 1/2, which
 *    float32 holds exactly: the float32 runs check the float kernels' reads on the same matrix);
 *  - the update norm is max |x| over the owned rows, phi = -x on the owned rows, and phi's ghosts are
 *    exactly their owners' values (the halo exchange of phi after the update);
 *  - the iterations replayed from a CUDA graph (hs_dist_gpu_set_graph: one rank, or NCCL >= 2.9) give
 *    the launches' outcome, iteration count, update norm, all-reduce count and x and phi bit for bit,
 *    at the capture and at a replay, and with max_iter = 6 (a graph, then 2 iterations launched); the
 *    MPI transport on several ranks refuses the graph (it waits on the host);
 *  - the device comm alone, ipc transport (several ranks on one node): halo and sum, launched and
 *    captured into a CUDA graph replayed 3 times with new values each time (the sequence numbers live
 *    on the device): the ghosts are exactly their owners' values and the sums equal, bit for bit on
 *    every rank, the host's sum of the same partials in rank order; a rank that skips a sum makes the
 *    other ranks' wait give up after the (shortened) timeout with an error naming a silent rank.
 * The inner cuda backend is stood in for by a cuda_impl holding what hs_dist_gpu reads. */
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
#include "hs_cuda_comm.h"
#include "hs_gpu_spmv.cuh"

#include <algorithm>

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
    cudaDeviceSynchronize(); // landed before the non-blocking stream reads it (pageable copies and cudaMemset are on the legacy stream)
    return d;
}

/* f(global node, round): the values of the comm test (exact in double) */
static double comm_val(int64_t g, int round) { return (double)(g % 1000) * 0.25 + 1000.0 * round + 0.5; }
/* rank q's j-th partial of round r (rounded: the order of the sum shows in the bits) */
static double part_val(int q, int j, int round) { return 0.1 * (q + 1) * (j + 1) + 1e-3 * round; }

/* The ipc transport alone: halo and sums launched, then captured into a graph and replayed (round 1..3). */
static void test_ipc_comm(const hs_part_local *l, int rank, int size)
{
    hs_cuda_comm *c = NULL;
    const MPI_Comm world = MPI_COMM_WORLD;
    HS_TEST_OK(hs_cuda_comm_create(l, &world, HS_TRANSPORT_IPC, &c));
    if (!c) return;
    HS_TEST_CHECK(strstr(hs_cuda_comm_transport(c), "IPC") != NULL, "transport %s", hs_cuda_comm_transport(c));
    HS_TEST_CHECK(hs_cuda_comm_capturable(c, NULL, 0), "the ipc transport is not capturable");
    const int32_t no = l->n_owned, nl = l->n_owned + l->n_ghost;
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    double *dx = NULL, *dv = NULL;
    cudaMalloc((void **)&dx, sizeof(double) * (nl + 1));
    cudaMalloc((void **)&dv, sizeof(double) * 3);
    cudaGraphExec_t exec = NULL;
    for (int round = 0; round < 4; ++round) {
        std::vector<double> x(nl, NAN), v(3);
        for (int32_t i = 0; i < no; ++i) x[i] = comm_val(l->l2g[i], round);
        for (int j = 0; j < 3; ++j) v[j] = part_val(rank, j, round);
        cudaMemcpyAsync(dx, x.data(), sizeof(double) * nl, cudaMemcpyHostToDevice, s);
        cudaMemcpyAsync(dv, v.data(), sizeof(double) * 3, cudaMemcpyHostToDevice, s);
        if (round == 0) { /* launched */
            HS_TEST_OK(hs_cuda_comm_halo_start(c, dx, s));
            HS_TEST_OK(hs_cuda_comm_halo_finish(c, dx, s));
            HS_TEST_OK(hs_cuda_comm_sum_dev(c, dv, 3, s));
        } else { /* one graph, captured once, replayed with the numbers advancing on the device */
            if (!exec) {
                cudaGraph_t graph = NULL;
                HS_TEST_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed) == cudaSuccess, "capture");
                HS_TEST_OK(hs_cuda_comm_halo_start(c, dx, s));
                HS_TEST_OK(hs_cuda_comm_halo_finish(c, dx, s));
                HS_TEST_OK(hs_cuda_comm_sum_dev(c, dv, 3, s));
                HS_TEST_CHECK(cudaStreamEndCapture(s, &graph) == cudaSuccess, "end capture");
                HS_TEST_CHECK(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess, "instantiate");
                cudaGraphDestroy(graph);
            }
            HS_TEST_CHECK(cudaGraphLaunch(exec, s) == cudaSuccess, "graph launch");
        }
        HS_TEST_CHECK(cudaStreamSynchronize(s) == cudaSuccess, "sync");
        HS_TEST_OK(hs_cuda_comm_check(c));
        std::vector<double> got(nl), sum(3);
        cudaMemcpy(got.data(), dx, sizeof(double) * nl, cudaMemcpyDeviceToHost);
        cudaMemcpy(sum.data(), dv, sizeof(double) * 3, cudaMemcpyDeviceToHost);
        int bad = 0;
        for (int32_t i = 0; i < nl; ++i) bad += got[i] != comm_val(l->l2g[i], round);
        HS_TEST_CHECK(bad == 0, "ipc round %d: %d of %d local values differ from their owners'", round, bad, nl);
        for (int j = 0; j < 3; ++j) {
            double ref = part_val(0, j, round);
            for (int q = 1; q < size; ++q) ref += part_val(q, j, round);
            HS_TEST_CHECK(memcmp(&sum[j], &ref, sizeof ref) == 0, "ipc round %d: sum %d = %.17g, rank order %.17g",
                          round, j, sum[j], ref);
        }
        std::vector<double> all((size_t)3 * size);
        MPI_Allgather(sum.data(), 3, MPI_DOUBLE, all.data(), 3, MPI_DOUBLE, MPI_COMM_WORLD);
        HS_TEST_CHECK(memcmp(all.data(), all.data() + 3 * (size - 1), sizeof(double) * 3) == 0,
                      "ipc round %d: the sums differ between ranks", round);
    }
    if (exec) cudaGraphExecDestroy(exec);
    /* a silent rank: the last rank skips a sum; the others give up after 0.5 s and name a rank */
    hs_cuda_comm_set_timeout(c, 0.5);
    if (rank != size - 1) {
        HS_TEST_OK(hs_cuda_comm_sum_dev(c, dv, 3, s));
        cudaStreamSynchronize(s);
        const hs_status st = hs_cuda_comm_check(c);
        HS_TEST_CHECK(st == HS_ERR_DEVICE && strstr(hs_error_message(), "gave up"),
                      "a silent rank: status %d (%s)", (int)st, st ? hs_error_message() : "no error");
        if (rank == 0 && st != HS_OK) printf("  a silent rank, as reported: %s\n", hs_error_message());
        hs_error_clear();
    }
    MPI_Barrier(MPI_COMM_WORLD); /* every wait ended before any rank unmaps its memory */
    hs_cuda_comm_destroy(&c);
    cudaFree(dx);
    cudaFree(dv);
    cudaStreamDestroy(s);
    if (rank == 0) printf("ipc transport: halo and sums launched and replayed from a graph, a silent rank reported\n");
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

    /* the rank's local matrix: the owned rows (the view's), then the ghosts' rows as the local mesh
     * gives them (incomplete: their values are whatever the global matrix has there) */
    hs_csr *lp = NULL;
    HS_TEST_OK(hs_csr_from_tets(nl, l->n_elems, l->tets, &lp));
    if (!lp) MPI_Abort(MPI_COMM_WORLD, 1);
    HS_TEST_CHECK(lp->row_ptr[no] == nnz, "local pattern: %d owned nonzeros, view %d", (int)lp->row_ptr[no], nnz);
    const int32_t nnz_l = lp->nnz;
    std::vector<double> lval(nnz_l, 0.0);
    for (int32_t li = 0; li < nl; ++li)
        for (int32_t k = lp->row_ptr[li]; k < lp->row_ptr[li + 1]; ++k) {
            const int32_t q = hs_csr_find(a, (int32_t)l->l2g[li], (int32_t)l->l2g[lp->col[k]]);
            lval[k] = q >= 0 ? a->val[q] : 0.0;
        }
    for (int32_t k = 0; k < nnz; ++k)
        HS_TEST_CHECK(lp->col[k] == l->pattern->col[k] && lval[k] == val[k], "local pattern differs at %d", k);
    std::vector<double> ld_l(nl, 1.0), lb_l(nl, 0.0);
    for (int32_t i = 0; i < no; ++i) ld_l[i] = ld[i], lb_l[i] = lb[i];

    /* the device: this rank's GPU */
    int shared = 0;
    char desc[512];
    HS_TEST_OK(hs_dist_gpu_select_device(MPI_COMM_WORLD, &shared, desc, sizeof desc));
    printf("%s\n", desc);
    char why[300] = "";
    int nccl = hs_cuda_nccl_available(why, sizeof why);
    MPI_Allreduce(MPI_IN_PLACE, &nccl, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    nccl = nccl && !shared;
    if (rank == 0 && !nccl) printf("NCCL transport not tested here: %s\n", shared ? "ranks share a device" : why);
    /* CUDA IPC: every rank on one node (a device of its own or not) */
    int one_node = 0;
    {
        MPI_Comm node;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
        int ns = 0;
        MPI_Comm_size(node, &ns);
        MPI_Comm_free(&node);
        one_node = ns == size;
        MPI_Allreduce(MPI_IN_PLACE, &one_node, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    }
    if (rank == 0 && !one_node) printf("ipc transport not tested here: the ranks span several nodes\n");
    /* the transports to run: one rank exchanges nothing (one run) */
    std::vector<int> transports;
    if (size == 1) transports.push_back(HS_TRANSPORT_AUTO);
    else {
        if (nccl) transports.push_back(HS_TRANSPORT_NCCL);
        if (one_node) transports.push_back(HS_TRANSPORT_IPC);
        transports.push_back(HS_TRANSPORT_MPI);
    }
    if (size > 1 && one_node) test_ipc_comm(l, rank, size);

    /* a random x for the SpMV check */
    std::vector<double> xg(n), yg(n), ayx(n);
    for (int32_t i = 0; i < n; ++i) xg[i] = sin(1.3 * i + 0.2) * (1.0 + (i % 7));

    hs_comm *comm = NULL;
    hs_cg_work *w = NULL;
    HS_TEST_OK(hs_comm_mpi_create(l, MPI_COMM_WORLD, &comm));
    HS_TEST_OK(hs_cg_work_create(nl, &w));
    w->comm = comm;
    int formats = 0;
    for (int fi = 0; fi < hs_spmv_count(); ++fi) {
        const hs_spmv_ops *f = hs_spmv_get(fi);
        if (f->node_order || !hs_gpu_spmv_of(f)) continue;
        for (int f32 = 0; f32 <= 1; ++f32) {
            const hs_matrix_values vk = f32 ? HS_VALUES_F32 : HS_VALUES_F64;
            if (!hs_spmv_serves(f, vk)) continue;
            ++formats;
            /* the values as the device stores them, and the host reference on the same values */
            std::vector<double> aval(a->val, a->val + a->nnz), vval(val), vlval(lval);
            if (f32) {
                for (auto &v : aval) v = (double)(float)v;
                for (auto &v : vval) v = (double)(float)v;
                for (auto &v : vlval) v = (double)(float)v;
            }
            hs_csr ar = *a;
            ar.val = aval.data();
            hs_cg_result hres;
            local_mat lm = {l->pattern, vval.data(), comm};
            std::fill(lx.begin(), lx.end(), 0.0);
            HS_TEST_OK(hs_cg_chronopoulos(no, local_matvec, &lm, ld.data(), lb.data(), lx.data(), &opts, w, &hres));
            HS_TEST_CHECK(hres.outcome == HS_CG_CONVERGED, "host CG: %s", hs_cg_outcome_name(hres.outcome));
            HS_TEST_OK(hs_dist_gather_idx(MPI_COMM_WORLD, -1, no, l->l2g, lx.data(), n, xh.data()));
            const double rh = norm2_residual(&ar, b.data(), xh.data(), tmp.data());
            hs_csr_spmv(&ar, xg.data(), yg.data());
            for (int32_t i = 0; i < n; ++i) {
                double s = 0.0;
                for (int32_t k = ar.row_ptr[i]; k < ar.row_ptr[i + 1]; ++k) s += fabs(ar.val[k] * xg[ar.col[k]]);
                ayx[i] = s;
            }

            /* the format's layout of the local matrix, its device kernel, the device CG on it */
            hs_spmv_layout *lay = NULL;
            HS_TEST_OK(hs_spmv_layout_create(f, lp, NULL, &lay));
            if (!lay) MPI_Abort(MPI_COMM_WORLD, 1);
            std::vector<double> slots((size_t)lay->n_slots + 1, 0.0);
            hs_spmv_layout_scatter(lay, nnz_l, lval.data(), slots.data());
            std::vector<float> slots32(slots.size());
            hs_spmv_round_values((int64_t)slots.size(), slots.data(), slots32.data());
            cuda_impl c;
            memset(&c, 0, sizeof c);
            HS_TEST_CHECK(cudaStreamCreateWithFlags(&c.s, cudaStreamNonBlocking) == cudaSuccess, "stream");
            cudaEventCreate(&c.ev_s0);
            cudaEventCreate(&c.ev_s1);
            c.lay = lay;
            c.nn = nl;
            c.f32 = f32;
            if (f32) c.kval32 = dev_copy(slots32);
            else c.kval = dev_copy(slots);
            c.slot = dev_copy(std::vector<int64_t>(lay->slot_of_nnz, lay->slot_of_nnz + nnz_l));
            c.dinv = dev_copy(ld_l);
            c.rhs = dev_copy(lb_l);
            c.inv_mass = dev_copy(std::vector<double>(nl, 1.0));
            c.du = dev_copy(std::vector<double>(nl, 0.0));
            c.phi = dev_copy(std::vector<double>(nl, 0.0));
            c.partA = dev_copy(std::vector<double>(HS_RED_BLOCKS, 0.0));
            c.parti = dev_copy(std::vector<int>(HS_RED_BLOCKS, 0));
            c.dt = 1.0;
            HS_TEST_OK(hs_gpu_spmv_create_values(lay, lp, f32 ? (const void *)c.kval32 : (const void *)c.kval, vk,
                                                 &c.spmv));
            HS_TEST_OK(hs_gpu_cg_create(nl, HS_CG_CHRONOPOULOS, c.spmv, c.dinv, &c.cg));
            HS_TEST_CHECK(cudaMallocHost((void **)&c.h_cg, sizeof(hs_gpu_cg_scalars)) == cudaSuccess, "pinned");
            hs_backend_ops ops;
            memset(&ops, 0, sizeof ops);
            ops.name = "cuda";
            hs_problem prob;
            memset(&prob, 0, sizeof prob);
            prob.opt.exec.spmv = f;
            prob.opt.exec.values = vk;
            hs_backend be;
            memset(&be, 0, sizeof be);
            be.ops = &ops;
            be.impl = &c;
            be.prob = &prob;
            const char *what = f->name;
            for (const int use : transports) {
                /* ipc on a shared device: every wait lasts until the other process gets the GPU's time
                 * slice (no MPS), so two format/value pairs only */
                if (use == HS_TRANSPORT_IPC && shared && formats > 2) continue;
                hs_dist_gpu *g = NULL;
                HS_TEST_OK(hs_dist_gpu_create(&be, l, MPI_COMM_WORLD, use, 0, &g));
                if (!g) MPI_Abort(MPI_COMM_WORLD, 1);
                const char *tr = hs_dist_gpu_transport(g);
                if (rank == 0) printf("%s %s: transport %s, %s\n", what, f32 ? "float32" : "float64", tr,
                                      hs_dist_gpu_split(g) ? "interior rows while the halo travels" : "whole local matrix");
                /* SpMV of the owned rows, the ghosts NaN until the exchange fills them */
                std::vector<double> xl(nl, NAN), yl(nl);
                for (int32_t i = 0; i < no; ++i) xl[i] = xg[l->l2g[i]];
                double *dx = dev_copy(xl), *dy = dev_copy(std::vector<double>(nl, 0.0));
                HS_TEST_OK(hs_dist_gpu_spmv(g, dx, dy));
                cudaMemcpy(yl.data(), dy, sizeof(double) * no, cudaMemcpyDeviceToHost);
                int bad_y = 0;
                for (int32_t i = 0; i < no; ++i) {
                    const int64_t gi = l->l2g[i];
                    const double tol = (a->row_ptr[gi + 1] - a->row_ptr[gi]) * 2.2e-16 * ayx[gi];
                    if (!(fabs(yl[i] - yg[gi]) <= tol)) {
                        if (bad_y++ < 3)
                            printf("rank %d %s: y[%d] = %.17g, reference %.17g (tol %.3g)\n", rank, what, i, yl[i],
                                   yg[gi], tol);
                    }
                }
                HS_TEST_CHECK(bad_y == 0, "%s %s np=%d: %d owned rows of the SpMV differ", what, tr, size, bad_y);
                cudaFree(dx);
                cudaFree(dy);
                /* residual of the owned rows */
                double v = -1.0, vref = -1.0;
                int32_t il = -1, iref = 0;
                HS_TEST_OK(hs_dist_gpu_residual(g, &v, &il));
                for (int32_t i = 0; i < no; ++i)
                    if (fabs(lb[i]) > vref) {
                        vref = fabs(lb[i]);
                        iref = i;
                    }
                HS_TEST_CHECK(v == vref && il == iref, "%s: residual %g at %d, expected %g at %d", tr, v, il, vref,
                              iref);
                /* solve, update */
                cudaMemset(c.phi, 0, sizeof(double) * nl);
                cudaDeviceSynchronize(); // landed before the non-blocking stream reads it (pageable copies and cudaMemset are on the legacy stream)
                hs_dist_times t0, t1;
                hs_dist_gpu_times(g, &t0);
                hs_cg_result dres;
                double upd = -1.0;
                HS_TEST_OK(hs_dist_gpu_solve(g, &opts, &dres, &upd));
                hs_dist_gpu_times(g, &t1);
                HS_TEST_CHECK(dres.outcome == HS_CG_CONVERGED, "%s %s np=%d: %s", what, tr, size,
                              hs_cg_outcome_name(dres.outcome));
                HS_TEST_CHECK(abs(dres.iters - hres.iters) <= 1, "%s %s np=%d: %d iterations, host %d", what, tr, size,
                              dres.iters, hres.iters);
                const long launched = (dres.iters + HS_CG_POLL - 1) / HS_CG_POLL * HS_CG_POLL;
                const long want = size > 1 ? 1 + launched : 0; /* one rank: the sums are no-ops */
                HS_TEST_CHECK(t1.allreduces - t0.allreduces == want, "%s %s: %ld all-reduces for %d iterations (%ld)",
                              what, tr, t1.allreduces - t0.allreduces, dres.iters, want);
                std::vector<double> x(nl), phi(nl);
                cudaMemcpy(x.data(), c.du, sizeof(double) * no, cudaMemcpyDeviceToHost);
                cudaMemcpy(phi.data(), c.phi, sizeof(double) * nl, cudaMemcpyDeviceToHost);
                HS_TEST_OK(hs_dist_gather_idx(MPI_COMM_WORLD, -1, no, l->l2g, x.data(), n, xd.data()));
                const double rd = norm2_residual(&ar, b.data(), xd.data(), tmp.data());
                HS_TEST_CHECK(rd <= 1.01 * opts.tol * bnorm, "%s %s np=%d: true residual %g > tol ||b|| %g", what, tr,
                              size, rd, opts.tol * bnorm);
                double d2 = 0.0;
                for (int32_t i = 0; i < n; ++i) d2 += (xd[i] - xh[i]) * (xd[i] - xh[i]);
                HS_TEST_CHECK(sqrt(d2) <= rd + rh, "%s %s np=%d: ||x_d - x_h|| = %g > ||r_d|| + ||r_h|| = %g",
                              what, tr, size, sqrt(d2), rd + rh);
                double xmax = 0.0;
                for (int32_t i = 0; i < no; ++i) xmax = fmax(xmax, fabs(x[i]));
                HS_TEST_CHECK(upd == xmax, "%s %s: update norm %g, max |x| %g", what, tr, upd, xmax);
                int bad = 0;
                for (int32_t i = 0; i < no; ++i) bad += phi[i] != -x[i];
                for (int32_t i = no; i < nl; ++i) bad += phi[i] != -xd[l->l2g[i]];
                HS_TEST_CHECK(bad == 0, "%s %s: %d entries of phi (owned: -x; ghosts: their owners') differ", what, tr,
                              bad);
                if (rank == 0)
                    printf("  np=%d: %d iterations (host %d), ||x_d - x_h|| = %.3g, true residual %.3g (tol ||b|| "
                           "%.3g)\n", size, dres.iters, hres.iters, sqrt(d2), rd, opts.tol * bnorm);
                /* the same solves with the iterations replayed from a CUDA graph (solver.step = graph):
                 * the same kernels in the same order, so the same bits as the launches above; twice (the
                 * capture, then a replay of the kept graph), and with max_iter = 6 (a graph of 4, then 2
                 * launched one by one) against the launches with the same max_iter */
                char whyg[160] = "";
                const int captured = hs_dist_gpu_set_graph(g, 1, whyg, sizeof whyg);
                if (size == 1 || use != HS_TRANSPORT_MPI) {
                    if (!captured && rank == 0) printf("  graph path not tested: %s\n", whyg);
                    HS_TEST_CHECK(captured || strstr(whyg, "capturable from 2.9"), "%s %s np=%d: no graph (%s)", what,
                                  tr, size, whyg);
                } else {
                    HS_TEST_CHECK(!captured && whyg[0], "%s %s np=%d: a graph over the MPI transport", what, tr, size);
                }
                for (int rep = 0; captured && rep < 2; ++rep) {
                    cudaMemset(c.phi, 0, sizeof(double) * nl);
                    cudaDeviceSynchronize(); // landed before the non-blocking stream reads it (pageable copies and cudaMemset are on the legacy stream)
                    hs_dist_times g0, g1;
                    hs_dist_gpu_times(g, &g0);
                    hs_cg_result gres;
                    double gupd = -1.0;
                    HS_TEST_OK(hs_dist_gpu_solve(g, &opts, &gres, &gupd));
                    hs_dist_gpu_times(g, &g1);
                    std::vector<double> gx(nl), gphi(nl);
                    cudaMemcpy(gx.data(), c.du, sizeof(double) * no, cudaMemcpyDeviceToHost);
                    cudaMemcpy(gphi.data(), c.phi, sizeof(double) * nl, cudaMemcpyDeviceToHost);
                    HS_TEST_CHECK(gres.outcome == dres.outcome && gres.iters == dres.iters && gupd == upd,
                                  "%s %s np=%d graph %d: %s in %d iterations, update %.17g; launches: %s in %d, %.17g",
                                  what, tr, size, rep, hs_cg_outcome_name(gres.outcome), gres.iters, gupd,
                                  hs_cg_outcome_name(dres.outcome), dres.iters, upd);
                    HS_TEST_CHECK(memcmp(gx.data(), x.data(), sizeof(double) * no) == 0 &&
                                      memcmp(gphi.data(), phi.data(), sizeof(double) * nl) == 0,
                                  "%s %s np=%d graph %d: x or phi differs from the launches' bits", what, tr, size, rep);
                    HS_TEST_CHECK(g1.allreduces - g0.allreduces == want, "%s %s graph %d: %ld all-reduces (%ld)", what,
                                  tr, rep, g1.allreduces - g0.allreduces, want);
                }
                if (captured) {
                    hs_cg_opts o6 = opts;
                    o6.max_iter = 6;
                    std::vector<double> x6[2];
                    hs_cg_result r6[2];
                    for (int gr = 0; gr <= 1; ++gr) {
                        hs_dist_gpu_set_graph(g, gr, NULL, 0);
                        double u6 = 0.0;
                        HS_TEST_OK(hs_dist_gpu_solve(g, &o6, &r6[gr], &u6));
                        x6[gr].resize(no);
                        cudaMemcpy(x6[gr].data(), c.du, sizeof(double) * no, cudaMemcpyDeviceToHost);
                    }
                    HS_TEST_CHECK(r6[0].outcome == HS_CG_MAX_ITER && r6[1].outcome == HS_CG_MAX_ITER &&
                                      r6[0].iters == 6 && r6[1].iters == 6 &&
                                      memcmp(x6[0].data(), x6[1].data(), sizeof(double) * no) == 0,
                                  "%s %s np=%d max_iter 6: launches %s in %d, graph %s in %d, or x differs", what, tr,
                                  size, hs_cg_outcome_name(r6[0].outcome), r6[0].iters,
                                  hs_cg_outcome_name(r6[1].outcome), r6[1].iters);
                    if (rank == 0) printf("  np=%d: the graph path equals the launches bit for bit\n", size);
                }
                hs_dist_gpu_destroy(&g);
            }
            hs_gpu_cg_destroy(&c.cg);
            hs_gpu_spmv_destroy(&c.spmv);
            void *dptr[] = {c.kval, c.kval32, c.slot, c.dinv, c.rhs, c.inv_mass, c.du, c.phi, c.partA, c.parti};
            for (size_t k = 0; k < sizeof dptr / sizeof dptr[0]; ++k)
                if (dptr[k]) cudaFree(dptr[k]);
            cudaFreeHost(c.h_cg);
            cudaEventDestroy(c.ev_s0);
            cudaEventDestroy(c.ev_s1);
            cudaStreamDestroy(c.s);
            hs_spmv_layout_destroy(&lay);
        }
    }
    HS_TEST_CHECK(formats >= 2, "only %d format/value pairs tested", formats);
    hs_cg_work_destroy(&w);
    hs_comm_mpi_destroy(&comm);
    hs_csr_destroy(&lp);
    hs_part_local_destroy(&l);
    hs_csr_destroy(&a);
    hs_mesh_destroy(&m);
    int fails = hs_test_failures, all = 0;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return all ? 1 : 0;
}
