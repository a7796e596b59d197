/* Run under mpirun -np N (ctest: N = 1, 2, 3; label mpi). For each partitioner, on a box mesh's
 * pattern with an SPD M-matrix:
 *  - a partition's SpMV through the rank's comm (hs_comm_mpi_create: halo started, interior rows,
 *    halo finished, boundary rows, as the cpu backend's operator does it) equals the serial CSR SpMV
 *    row by row within the bound of a reordered sum, |y - y_ref|_i <= 2 gamma_len (|A||x|)_i,
 *    gamma_len = len eps / (1 - len eps), len = the row's nonzeros (both sums are within gamma_len
 *    of the exact);
 *  - the serial CGs of solvers/cg.c on the owned rows with that comm (classic: two all-reduces per
 *    iteration; Chronopoulos-Gear: one; s-step: one block reduction per s iterations) converge in the serial iteration count +-1, and the gathered
 *    solution is within the bound the stopping tests give:
 *    A (x_d - x_s) = r_s - r_d for the true residuals, so ||x_d - x_s||_2 <= (||r_d|| + ||r_s||) /
 *    lambda_min(A) and lambda_min >= 1 by Gershgorin (diag = sum |offdiag| + 1);
 *  - the report names every rank and the edge cut. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "hs_cg.h"
#include "hs_dist.h"
#include "hs_mesh.h"
#include "hs_par.h"
#include "hs_partition.h"
#include "hs_test.h"
#include "hs_vec.h"

static void csr_matvec(void *ctx, const double *x, double *y) { hs_csr_spmv(ctx, x, y); }

/* A rank's owned rows (the view's pattern, its values) behind its comm */
typedef struct local_mat {
    const hs_csr *pat;
    const double *val;
    hs_comm *comm;
} local_mat;

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
    local_mat *m = ctx;
    hs_status st = hs_comm_halo_start(m->comm, (double *)x); /* x: a CG work vector of n_local */
    rows_spmv(m, 0, m->comm->n_interior, x, y);
    if (st == HS_OK) st = hs_comm_halo_finish(m->comm);
    rows_spmv(m, m->comm->n_interior, m->comm->n_owned, x, y);
    if (st != HS_OK) m->comm->err = st;
}

static double norm2_residual(const hs_csr *a, const double *b, const double *x, double *tmp)
{
    hs_csr_spmv(a, x, tmp);
    double s = 0.0;
    for (int32_t i = 0; i < a->n_rows; ++i) s += (b[i] - tmp[i]) * (b[i] - tmp[i]);
    return sqrt(s);
}

int main(int argc, char **argv)
{
    /* hs_par_init (MPI_Init_thread): a parallel partitioner (ptscotch) partitions on the run's ranks */
    if (hs_par_init(&argc, &argv) != HS_OK || !hs_par_active()) {
        fprintf(stderr, "test_dist_cg: run it under mpirun (%s)\n", hs_error_message());
        return 1;
    }
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    hs_box_params bp = {12, 8, 6, 1.0, 0, 1.414};
    hs_mesh *m = NULL;
    hs_csr *a = NULL;
    HS_TEST_OK(hs_mesh_create_box(&bp, &m));
    HS_TEST_OK(hs_csr_from_tets(m->n_nodes, m->n_elems, m->tets, &a));
    if (!a) MPI_Abort(MPI_COMM_WORLD, 1);
    const int32_t n = a->n_rows;
    double *inv_diag = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
    double *xs = malloc(n * sizeof(double)), *xg = malloc(n * sizeof(double)), *tmp = malloc(n * sizeof(double));
    double *yref = malloc(n * sizeof(double)), *yabs = malloc(n * sizeof(double)), *yg = malloc(n * sizeof(double));
    for (int32_t i = 0; i < n; ++i) {
        double off = 0.0;
        int32_t d = -1;
        for (int32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; ++k) {
            const int32_t j = a->col[k];
            if (j == i) {
                d = k;
                continue;
            }
            a->val[k] = -(1.0 + (double)((i + j) % 3)) * 0.5; /* symmetric in i, j */
            off += -a->val[k];
        }
        a->val[d] = off + 1.0;
        inv_diag[i] = 1.0 / a->val[d];
        b[i] = 1.0 + sin(0.37 * i);
        xg[i] = cos(0.11 * i); /* SpMV input */
    }
    hs_csr_spmv(a, xg, yref);
    hs_csr_spmv_abs(a, xg, yabs);
    const hs_cg_opts opts = {1e-10, 2000, HS_CG_CHRONOPOULOS, 0};
    hs_cg_work *sw = NULL;
    hs_cg_result sres;
    HS_TEST_OK(hs_cg_work_create(n, &sw));
    HS_TEST_OK(hs_cg_chronopoulos(n, csr_matvec, a, inv_diag, b, xs, &opts, sw, &sres));
    HS_TEST_CHECK(sres.outcome == HS_CG_CONVERGED, "serial CG: %s", hs_cg_outcome_name(sres.outcome));
    const double bnorm = sqrt(hs_vec_dot(n, b, b));

    int32_t *part = malloc(n * sizeof(int32_t));
    const hs_registry *reg = hs_partitioners();
    for (size_t pk = 0; pk < reg->count; ++pk) {
        const hs_partitioner *p = hs_registry_at(reg, pk);
        /* the box's blocks are not a function of a pattern; their views equal the cut ones (test_partition) */
        if (!p->available || p->box) continue;
        hs_part_local *l = NULL;
        if (p->parallel) { /* every rank partitions, rank 0 gets the owners (as a run): sent to all here */
            HS_TEST_OK(hs_partition_nodes_root(p, rank == 0 ? a : NULL, n, m->n_elems, m->tets, size, rank == 0,
                                               rank == 0 ? part : NULL));
            MPI_Bcast(part, n, MPI_INT32_T, 0, MPI_COMM_WORLD);
        } else {
            HS_TEST_OK(hs_partition_nodes(p, a, size, part));
        }
        HS_TEST_OK(hs_part_local_create(a, m->n_elems, m->tets, part, size, rank, &l));
        if (!l) MPI_Abort(MPI_COMM_WORLD, 1);
        const int32_t no = l->n_owned, nl = l->n_owned + l->n_ghost;
        double *val = malloc((l->pattern->nnz + 1) * sizeof(double));
        double *lb = malloc((no + 1) * sizeof(double)), *ld = malloc((no + 1) * sizeof(double));
        double *lx = malloc((no + 1) * sizeof(double)), *lin = malloc((nl + 1) * sizeof(double));
        double *ly = malloc((no + 1) * sizeof(double));
        for (int32_t li = 0; li < no; ++li) {
            const int32_t g = (int32_t)l->l2g[li]; /* 64-bit global id of a 32-bit test mesh */
            for (int32_t k = l->pattern->row_ptr[li]; k < l->pattern->row_ptr[li + 1]; ++k)
                val[k] = a->val[hs_csr_find(a, g, (int32_t)l->l2g[l->pattern->col[k]])];
            lb[li] = b[g];
            ld[li] = inv_diag[g];
            lin[li] = xg[g];
        }
        for (int32_t gi = no; gi < nl; ++gi) lin[gi] = NAN; /* must come from the halo */
        hs_comm *comm = NULL;
        HS_TEST_OK(hs_comm_mpi_create(l, MPI_COMM_WORLD, &comm));
        HS_TEST_CHECK(comm->n_owned == no && comm->n_interior == l->n_interior && comm->n_local == nl,
                      "%s: the comm's rows %d %d %d", p->name, comm->n_owned, comm->n_interior, comm->n_local);
        local_mat lm = {l->pattern, val, comm};
        /* SpMV */
        local_matvec(&lm, lin, ly);
        HS_TEST_CHECK(comm->err == HS_OK, "%s: halo exchange failed", p->name);
        HS_TEST_OK(hs_dist_gather(l, MPI_COMM_WORLD, 0, ly, yg));
        if (rank == 0)
            for (int32_t i = 0; i < n; ++i) {
                const double len = a->row_ptr[i + 1] - a->row_ptr[i], g = len * 0x1p-53 / (1.0 - len * 0x1p-53);
                HS_TEST_NEAR(yg[i], yref[i], 2.0 * g * yabs[i], p->name);
            }
        /* CG: each variant a distributed run offers, the serial code with the comm */
        hs_cg_work *w = NULL;
        HS_TEST_OK(hs_cg_work_create(nl, &w)); /* the operator's inputs carry the ghosts */
        w->comm = comm;
        for (int v = 0; v < 4; ++v) {
            const hs_cg_variant var = v == 0 ? HS_CG_CLASSIC : v == 1 ? HS_CG_CHRONOPOULOS : v == 2 ? HS_CG_SSTEP
                                                                                                     : HS_CG_PIPELINED;
            hs_cg_opts o = opts;
            o.variant = var;
            hs_cg_result sr, dres;
            HS_TEST_OK(hs_cg_solve(n, csr_matvec, a, inv_diag, b, xs, &o, sw, &sr));
            hs_dist_times t0, t1;
            hs_comm_mpi_times(comm, &t0);
            HS_TEST_OK(hs_cg_solve(no, local_matvec, &lm, ld, lb, lx, &o, w, &dres));
            hs_comm_mpi_times(comm, &t1);
            const char *vn = hs_cg_variant_name(var);
            HS_TEST_CHECK(dres.outcome == HS_CG_CONVERGED, "%s %s np=%d: %s", p->name, vn, size,
                          hs_cg_outcome_name(dres.outcome));
            HS_TEST_CHECK(abs(dres.iters - sr.iters) <= 1, "%s %s np=%d: %d iterations, serial %d", p->name, vn, size,
                          dres.iters, sr.iters);
            /* ||b||, the start's products, then per iteration: classic two, Chronopoulos-Gear and pipelined one */
            const long want = 2 + (long)(v ? 1 : 2) * dres.iters;
            HS_TEST_CHECK(var == HS_CG_SSTEP || t1.allreduces - t0.allreduces == want, "%s %s: %ld all-reduces for %d iterations, want %ld",
                          p->name, vn, t1.allreduces - t0.allreduces, dres.iters, want);
            HS_TEST_OK(hs_dist_gather(l, MPI_COMM_WORLD, 0, lx, xg));
            if (rank == 0) {
                const double rs2 = norm2_residual(a, b, xs, tmp), rd = norm2_residual(a, b, xg, tmp);
                /* recurrence vs true residual drift: far below tol at this conditioning; allow 1% */
                HS_TEST_CHECK(rd <= 1.01 * opts.tol * bnorm, "%s %s np=%d: true residual %g > tol ||b|| %g", p->name,
                              vn, size, rd, opts.tol * bnorm);
                /* the residual the solver reports is the global one: within the same 1% of the true one */
                HS_TEST_CHECK(fabs(dres.rel_res * bnorm - rd) <= 0.01 * rd, "%s %s np=%d: reported residual %g, true %g",
                              p->name, vn, size, dres.rel_res * bnorm, rd);
                double d2 = 0.0;
                for (int32_t i = 0; i < n; ++i) d2 += (xg[i] - xs[i]) * (xg[i] - xs[i]);
                HS_TEST_CHECK(sqrt(d2) <= rd + rs2, "%s %s np=%d: ||x_d - x_s|| = %g > (||r_d|| + ||r_s||)/lambda_min = "
                              "%g", p->name, vn, size, sqrt(d2), rd + rs2);
            }
        }
        for (int32_t i = 0; i < n; ++i) xg[i] = cos(0.11 * i);
        /* report */
        FILE *f = rank == 0 ? tmpfile() : stdout;
        const hs_part_balance bal = hs_partition_balance(a, part, size);
        HS_TEST_OK(hs_dist_report(l, MPI_COMM_WORLD, p->name, &bal, f));
        if (rank == 0 && f) {
            char text[8192];
            rewind(f);
            const size_t got = fread(text, 1, sizeof(text) - 1, f);
            text[got] = 0;
            char want[64];
            snprintf(want, sizeof(want), "edge cut %lld", (long long)bal.edge_cut);
            HS_TEST_CHECK(strstr(text, want) != NULL, "report lacks \"%s\": %s", want, text);
            snprintf(want, sizeof(want), "\n  %4d ", size - 1);
            HS_TEST_CHECK(strstr(text, want) != NULL, "report lacks the last rank: %s", text);
            fclose(f);
        }
        hs_cg_work_destroy(&w);
        hs_comm_mpi_destroy(&comm);
        free(val);
        free(lb);
        free(ld);
        free(lx);
        free(lin);
        free(ly);
        hs_part_local_destroy(&l);
    }
    /* global ids are 64-bit: a gather names an index past 2^31, and refuses (before any allocation or
     * message, alike on every rank) a total one rank cannot receive through MPI's int counts */
    {
        const int64_t big = (int64_t)INT32_MAX + 2, idx = big - 1;
        const double v = 1.0;
        hs_status st = hs_dist_gather_idx(MPI_COMM_WORLD, 0, 1, &idx, &v, big, NULL);
        HS_TEST_CHECK(st == HS_ERR_CONFIG && strstr(hs_error_message(), "MPI counts"), "gather of %lld values: %s",
                      (long long)big, hs_error_message());
        hs_error_clear();
    }
    /* every rank's verdict decides the exit status */
    int fails = hs_test_failures, all = 0;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    hs_cg_work_destroy(&sw);
    free(part);
    free(inv_diag);
    free(b);
    free(xs);
    free(xg);
    free(tmp);
    free(yref);
    free(yabs);
    free(yg);
    hs_csr_destroy(&a);
    hs_mesh_destroy(&m);
    hs_par_finalize();
    return all ? 1 : 0;
}
