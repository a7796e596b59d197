/* heartsim bench solve: the preconditioner + Krylov combinations of issue 13 (Jacobi-PCG, FSAI-PCG,
 * SAI-BiCGStab, Jacobi-BiCGStab) on one matrix (a Matrix Market file, or the run's tangent after
 * one assembly): set-up, iterations and time to the tolerance, time per iteration; on the GPU with a
 * cuSPARSE + cuBLAS baseline in the same run (backends/cuda/krylov.cu), else on the CPU. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_spmv_internal.h"
#include "hs_bench.h"
#include "hs_build_config.h"
#include "hs_config.h"
#include "hs_mtx.h"
#include "hs_precond.h"
#include "hs_util.h"
#if HS_HAS_CUDA
#include "hs_cuda.h"
#endif

/* The four combinations of the issue, in table order. */
static const struct { hs_precond_kind p; hs_krylov k; } k_combos[] = {
    {HS_PRECOND_JACOBI, HS_KRYLOV_CG},
    {HS_PRECOND_FSAI, HS_KRYLOV_CG},
    {HS_PRECOND_SAI, HS_KRYLOV_BICGSTAB},
    {HS_PRECOND_JACOBI, HS_KRYLOV_BICGSTAB},
};

/* A right-hand side file: Matrix Market `array real general` n x 1, or plain numbers (one or more
 * per line, `%` or `#` comments). Exactly n values. */
static hs_status read_rhs(const char *path, int32_t n, double *b)
{
    FILE *f = fopen(path, "r");
    HS_CHECK(f, HS_ERR_MESH, "cannot open right-hand side file '%s': %s", path, strerror(errno));
    char line[4096];
    int lineno = 0, mm = 0, size_seen = 0;
    int32_t got = 0;
    hs_status st = HS_OK;
    while (fgets(line, sizeof line, f)) {
        ++lineno;
        if (lineno == 1 && !strncmp(line, "%%MatrixMarket", 14)) {
            char lower[4096];
            size_t i = 0;
            for (; line[i] && i < sizeof lower - 1; ++i) lower[i] = (char)tolower((unsigned char)line[i]);
            lower[i] = '\0';
            HS_CHECK_GOTO(strstr(lower, "array") && strstr(lower, "real") && strstr(lower, "general"), done, HS_ERR_MESH,
                          "%s:1: a right-hand side must be `%%%%MatrixMarket matrix array real general` (or plain "
                          "numbers)", path);
            mm = 1;
            continue;
        }
        char *p = line;
        while (isspace((unsigned char)*p)) ++p;
        if (*p == '%' || *p == '#' || *p == '\0') continue;
        if (mm && !size_seen) {
            long r = 0, c = 0;
            HS_CHECK_GOTO(sscanf(p, "%ld %ld", &r, &c) == 2 && r == n && c == 1, done, HS_ERR_MESH,
                          "%s:%d: size line: expected \"%d 1\" (the matrix has %d rows)", path, lineno, (int)n, (int)n);
            size_seen = 1;
            continue;
        }
        for (;;) {
            while (isspace((unsigned char)*p)) ++p;
            if (!*p) break;
            char *end = NULL;
            double v = strtod(p, &end);
            HS_CHECK_GOTO(end != p && isfinite(v), done, HS_ERR_MESH, "%s:%d: expected a finite number, found \"%.20s\"",
                          path, lineno, p);
            HS_CHECK_GOTO(got < n, done, HS_ERR_MESH, "%s:%d: more than %d values (the matrix has %d rows)", path, lineno,
                          (int)n, (int)n);
            b[got++] = v;
            p = end;
        }
    }
    HS_CHECK_GOTO(got == n, done, HS_ERR_MESH, "%s: %d values; the matrix has %d rows", path, (int)got, (int)n);
done:
    fclose(f);
    return st;
}

static void csr_matvec(void *ctx, const double *x, double *y) { hs_csr_spmv((const hs_csr *)ctx, x, y); }

static double true_rel_res(const hs_csr *a, const double *x, const double *b, double *t)
{
    hs_csr_spmv(a, x, t);
    double rr = 0.0, bb = 0.0;
    for (int32_t i = 0; i < a->n_rows; ++i) rr += (b[i] - t[i]) * (b[i] - t[i]), bb += b[i] * b[i];
    return bb > 0 ? sqrt(rr / bb) : sqrt(rr);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One combination on the CPU: pattern, values, then @p reps solves (median). A failure of the
 * preconditioner (zero diagonal, singular, not SPD) is the row's failure, not the command's. */
static hs_status cpu_row(const hs_csr *a, const double *b, hs_precond_kind pk, hs_krylov kk, int level,
                         hs_cg_variant var, double tol, int max_iter, int reps, hs_solve_bench_row *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->method, sizeof r->method, "%s-%s", hs_precond_name(pk), hs_krylov_name(kk));
    hs_precond *pc = NULL;
    hs_krylov_work *w = NULL;
    double *x = NULL, *t = NULL, *ts = NULL;
    hs_status st = HS_OK;
    int32_t n = a->n_rows;
    HS_CALL_GOTO(HS_ALLOC(x, n + 1, "solution"), done);
    HS_CALL_GOTO(HS_ALLOC(t, n + 1, "residual"), done);
    HS_CALL_GOTO(HS_ALLOC(ts, reps, "timings"), done);
    HS_CALL_GOTO(hs_krylov_work_create(n, &w), done);
    double t0 = hs_wtime();
    hs_status ps = hs_precond_create(pk, level, a, &pc);
    double t1 = hs_wtime();
    if (ps == HS_OK) ps = hs_precond_compute(pc, a);
    double t2 = hs_wtime();
    if (ps != HS_OK) {
        if (ps == HS_ERR_MEMORY) { st = ps; goto done; }
        snprintf(r->failure, sizeof r->failure, "%s", hs_error_message());
        hs_error_clear();
        goto done;
    }
    r->setup_pattern_s = t1 - t0;
    r->setup_values_s = t2 - t1;
    hs_cg_opts o = {tol, max_iter, var, 0};
    hs_cg_result res = {0};
    for (int k = 0; k < reps; ++k) {
        double s0 = hs_wtime();
        HS_CALL_GOTO(hs_krylov_solve(kk, n, csr_matvec, (void *)a, hs_precond_apply, pc, b, x, &o, w, &res), done);
        ts[k] = hs_wtime() - s0;
    }
    qsort(ts, (size_t)reps, sizeof *ts, cmp_d);
    r->solve_s = ts[reps / 2];
    r->iters = res.iters;
    r->converged = res.outcome == HS_CG_CONVERGED;
    r->true_rel_res = true_rel_res(a, x, b, t);
    r->ok = 1;
    if (!r->converged)
        snprintf(r->failure, sizeof r->failure, "%s",
                 res.outcome == HS_CG_BREAKDOWN && kk == HS_KRYLOV_BICGSTAB ? "broke down (rho, omega or (r0, v) = 0)"
                 : res.outcome == HS_CG_BREAKDOWN ? "broke down (the matrix or preconditioner is not positive definite)"
                                                  : hs_cg_outcome_name(res.outcome));
done:
    hs_precond_destroy(&pc);
    hs_krylov_work_destroy(&w);
    free(x); free(t); free(ts);
    return st;
}

static void print_rows(const hs_solve_bench_row *rows, int n)
{
    printf("| method | pattern set-up s | values set-up s | iterations | solve s | per iteration ms | ||b - Ax|| / ||b|| | note |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < n; ++i) {
        const hs_solve_bench_row *r = &rows[i];
        if (!r->ok) {
            printf("| %s | - | - | - | - | - | - | failed: %s |\n", r->method, r->failure);
            continue;
        }
        printf("| %s | %.4f | %.4f | %d | %.4f | %.4f | %.2e | %s |\n", r->method, r->setup_pattern_s, r->setup_values_s,
               r->iters, r->solve_s, r->iters > 0 ? 1e3 * r->solve_s / r->iters : 0.0, r->true_rel_res,
               r->converged ? "converged" : r->failure);
    }
}

hs_status hs_bench_solve(const hs_bench_solve_opts *o)
{
    hs_csr *a = NULL;
    double *b = NULL, *one = NULL;
    hs_status st = HS_OK;
    const char *src = o->matrix ? o->matrix : o->cfg->path;
    if (o->matrix) HS_CALL(hs_mtx_read(o->matrix, &a));
    else HS_CALL(hs_bench_matrix_from_config(o->cfg, &a));
    HS_CHECK_GOTO(a->n_rows == a->n_cols, done, HS_ERR_MESH,
                  "%s: the matrix is %d x %d; a linear system A x = b needs a square matrix", src, (int)a->n_rows,
                  (int)a->n_cols);
    const int32_t n = a->n_rows;
    HS_CALL_GOTO(HS_ALLOC(b, n + 1, "right-hand side"), done);
    if (o->rhs) {
        HS_CALL_GOTO(read_rhs(o->rhs, n, b), done);
    } else {
        HS_CALL_GOTO(HS_ALLOC(one, n + 1, "ones"), done);
        for (int32_t i = 0; i < n; ++i) one[i] = 1.0;
        hs_csr_spmv(a, one, b);
    }
    double bb = 0.0;
    for (int32_t i = 0; i < n; ++i) bb += b[i] * b[i];
    HS_CHECK_GOTO(bb > 0.0, done, HS_ERR_NUMERIC, "%s: the right-hand side is zero (%s), so x = 0: nothing to solve", src,
                  o->rhs ? o->rhs : "A * 1: the rows of A sum to zero");
    const int level = o->cfg ? o->cfg->sai_level : o->sai_level;
    hs_cg_variant var = HS_CG_CHRONOPOULOS;
    if (o->cfg) HS_CALL_GOTO(hs_cg_variant_lookup("solver.cg", o->cfg->cg_variant, &var), done);
    printf("matrix: %s: %d rows, %d nonzeros (%.1f per row); right-hand side: %s\n", src, (int)n, (int)a->nnz,
           n ? (double)a->nnz / n : 0.0, o->rhs ? o->rhs : "A * 1");
    printf("tolerance ||r|| <= %.0e ||b|| from x = 0, at most %d iterations; sai/fsai pattern of A^%d; cg variant %s; "
           "median of %d solves\n", o->tol, o->max_iter, level, hs_cg_variant_name(var), o->reps);
    hs_solve_bench_row rows[8];
    int nrows = 0;
#if HS_HAS_CUDA
    char gname[256] = "", why[512] = "";
    if (hs_gpu_probe(gname, sizeof gname, why, sizeof why)) {
        printf("\ndevice: %s (heartsim kernels; cuSPARSE + cuBLAS baselines in the same run)\n\n", gname);
        HS_CALL_GOTO(hs_gpu_bench_solve(a, b, o->tol, o->max_iter, var, level, o->reps, rows, &nrows), done);
        print_rows(rows, nrows);
        goto done;
    }
    printf("\nno GPU found (%s): the CPU backend's solvers\n", why);
#else
    printf("\nthis heartsim was built without CUDA (HS_HAS_CUDA = 0): the CPU backend's solvers\n");
#endif
    printf("\ncpu (OpenMP, %d threads)\n\n", omp_get_max_threads());
    for (size_t i = 0; i < sizeof k_combos / sizeof k_combos[0]; ++i)
        HS_CALL_GOTO(cpu_row(a, b, k_combos[i].p, k_combos[i].k, level, var, o->tol, o->max_iter, o->reps, &rows[nrows++]),
                     done);
    print_rows(rows, nrows);
    {
        int any = 0;
        for (int i = 0; i < nrows; ++i) any |= rows[i].ok && rows[i].converged;
        HS_CHECK_GOTO(any, done, HS_ERR_NUMERIC, "%s: no method reached the tolerance (see the table)", src);
    }
done:
    hs_csr_destroy(&a);
    free(b);
    free(one);
    return st;
}
