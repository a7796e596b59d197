/*
 * Preconditioners of solver.precond: Jacobi, SAI and FSAI (seed 004 ch. 5), the CPU reference.
 *
 * The small dense problems are solved by hand-written Householder QR (SAI) and Cholesky (FSAI)
 * rather than LAPACK: the problems are tiny (n2 ~ 15-100 unknowns), there are n of them, and the
 * CUDA kernels must run the same arithmetic one problem per warp, so the reference is written as
 * the same loop nest the device runs (LAPACK's per-call overhead and its own threading inside our
 * OpenMP loop would only get in the way).
 */
#include "hs_precond.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_util.h"

/* ---- the registry ------------------------------------------------------------------------- */

static const hs_precond_info k_preconds[] = {
#define HS_PRECOND(enumerator, name, symmetric, summary, seed) [enumerator] = {name, enumerator, symmetric, summary, seed},
#include "hs_precond_list.h"
#undef HS_PRECOND
};
static const hs_registry k_precond_reg = HS_REGISTRY_INIT("preconditioner", k_preconds);

const hs_registry *hs_preconds(void) { return &k_precond_reg; }

const char *hs_precond_name(hs_precond_kind k)
{
    return (size_t)k < k_precond_reg.count ? k_preconds[k].name : "(unknown)";
}

hs_status hs_precond_lookup(const char *key, const char *name, hs_precond_kind *out)
{
    const void *e = NULL;
    HS_CALL(hs_registry_lookup(&k_precond_reg, key, name, NULL, &e));
    *out = ((const hs_precond_info *)e)->kind;
    return HS_OK;
}

/* ---- patterns ----------------------------------------------------------------------------- */

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* S = pattern((A + I)^level), rows sorted; lower = 1 keeps only j <= i. val allocated (zero). */
static hs_status pattern_power(const hs_csr *a, int level, int lower, hs_csr **out)
{
    *out = NULL;
    int32_t n = a->n_rows;
    int32_t *mark = NULL, *row_ptr = NULL, *list = NULL;
    hs_status st = HS_OK;
    hs_csr *s = NULL;
    HS_CALL_GOTO(HS_ALLOC(mark, n, "preconditioner pattern marker"), done);
    HS_CALL_GOTO(HS_ALLOC(row_ptr, (size_t)n + 1, "preconditioner pattern rows"), done);
    HS_CALL_GOTO(HS_ALLOC(list, n, "preconditioner pattern row"), done);
    for (int32_t i = 0; i < n; ++i) mark[i] = -1;
    for (int pass = 0; pass < 2; ++pass) {
        int64_t nnz = 0;
        for (int32_t i = 0; i < n; ++i) {
            int32_t len = 0;
            /* row i of (A+I): i and the columns of row i of A; level 2: the union of those rows */
            list[len++] = i;
            mark[i] = i;
            for (int32_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; ++e)
                if (mark[a->col[e]] != i) mark[a->col[e]] = i, list[len++] = a->col[e];
            if (level >= 2) {
                int32_t len1 = len;
                for (int32_t t = 0; t < len1; ++t) {
                    int32_t k = list[t];
                    for (int32_t e = a->row_ptr[k]; e < a->row_ptr[k + 1]; ++e)
                        if (mark[a->col[e]] != i) mark[a->col[e]] = i, list[len++] = a->col[e];
                }
            }
            if (lower) {
                int32_t w = 0;
                for (int32_t t = 0; t < len; ++t)
                    if (list[t] <= i) list[w++] = list[t];
                len = w;
            }
            if (pass == 1) {
                qsort(list, (size_t)len, sizeof *list, cmp_i32);
                memcpy(s->col + s->row_ptr[i], list, sizeof *list * (size_t)len);
            } else {
                row_ptr[i] = (int32_t)nnz;
            }
            nnz += len;
        }
        for (int32_t i = 0; i < n; ++i) mark[i] = -1;
        if (pass == 0) {
            HS_CHECK_GOTO(nnz <= INT32_MAX, done, HS_ERR_MEMORY,
                          "the preconditioner pattern has %lld entries, more than 2^31 - 1: use solver.sai_level = 1",
                          (long long)nnz);
            row_ptr[n] = (int32_t)nnz;
            HS_CALL_GOTO(hs_csr_create(n, n, (int32_t)nnz, &s), done);
            memcpy(s->row_ptr, row_ptr, sizeof *row_ptr * ((size_t)n + 1));
        }
    }
    *out = s;
    s = NULL;
done:
    hs_csr_destroy(&s);
    free(mark);
    free(row_ptr);
    free(list);
    return st;
}

/* T = S^T (pattern, val allocated) and map[k] = position in S of entry k of T. */
static hs_status transpose_map(const hs_csr *s, hs_csr **out, int32_t **map_out)
{
    *out = NULL;
    *map_out = NULL;
    hs_csr *t = NULL;
    int32_t *map = NULL, *next = NULL;
    hs_status st = HS_OK;
    HS_CALL_GOTO(hs_csr_create(s->n_cols, s->n_rows, s->nnz, &t), fail);
    HS_CALL_GOTO(HS_ALLOC(map, s->nnz > 0 ? s->nnz : 1, "preconditioner transpose map"), fail);
    HS_CALL_GOTO(HS_ALLOC(next, (size_t)s->n_cols + 1, "preconditioner transpose"), fail);
    memset(t->row_ptr, 0, sizeof(int32_t) * ((size_t)s->n_cols + 1));
    for (int32_t k = 0; k < s->nnz; ++k) t->row_ptr[s->col[k] + 1]++;
    for (int32_t j = 0; j < s->n_cols; ++j) t->row_ptr[j + 1] += t->row_ptr[j];
    memcpy(next, t->row_ptr, sizeof(int32_t) * (size_t)s->n_cols);
    for (int32_t i = 0; i < s->n_rows; ++i) /* rows in order, so T's columns come out sorted */
        for (int32_t k = s->row_ptr[i]; k < s->row_ptr[i + 1]; ++k) {
            int32_t p = next[s->col[k]]++;
            t->col[p] = i;
            map[p] = k;
        }
    free(next);
    *out = t;
    *map_out = map;
    return HS_OK;
fail:
    free(next);
    free(map);
    hs_csr_destroy(&t);
    return st;
}

hs_status hs_precond_create(hs_precond_kind kind, int level, const hs_csr *a, hs_precond **out)
{
    *out = NULL;
    HS_CHECK((size_t)kind < k_precond_reg.count, HS_ERR_INTERNAL, "preconditioner %d not in the list", (int)kind);
    HS_CHECK(a->n_rows == a->n_cols, HS_ERR_NUMERIC,
             "a preconditioner needs a square matrix; this one is %d x %d", a->n_rows, a->n_cols);
    HS_CHECK(level >= 1 && level <= 2, HS_ERR_CONFIG, "solver.sai_level: %d; expected 1 or 2", level);
    double t0 = hs_wtime();
    hs_precond *pc = NULL;
    HS_CALL(HS_ALLOC(pc, 1, "preconditioner"));
    hs_status st = HS_OK;
    int32_t n = a->n_rows;
    int32_t *mark = NULL;
    pc->kind = kind;
    pc->level = level;
    pc->n = n;
    HS_CALL_GOTO(HS_ALLOC(pc->diag_pos, n > 0 ? n : 1, "preconditioner diagonal positions"), fail);
    for (int32_t i = 0; i < n; ++i) pc->diag_pos[i] = hs_csr_find(a, i, i);
    if (kind == HS_PRECOND_JACOBI) {
        HS_CALL_GOTO(HS_ALLOC(pc->inv_diag, n > 0 ? n : 1, "Jacobi preconditioner"), fail);
    } else if (kind == HS_PRECOND_SAI) {
        HS_CALL_GOTO(pattern_power(a, level, 0, &pc->m), fail);
        HS_CALL_GOTO(transpose_map(pc->m, &pc->mt, &pc->mt_to_m), fail);
        HS_CALL_GOTO(transpose_map(a, &pc->at, &pc->at_to_a), fail);
        HS_CALL_GOTO(HS_ALLOC(mark, n > 0 ? n : 1, "SAI pattern marker"), fail);
        for (int32_t i = 0; i < n; ++i) mark[i] = -1;
        for (int32_t j = 0; j < n; ++j) { /* column j: J = row j of M^T, I = the rows of A(:, J) */
            int32_t n2 = pc->mt->row_ptr[j + 1] - pc->mt->row_ptr[j], n1 = 0;
            for (int32_t q = pc->mt->row_ptr[j]; q < pc->mt->row_ptr[j + 1]; ++q) {
                int32_t k = pc->mt->col[q];
                for (int32_t e = pc->at->row_ptr[k]; e < pc->at->row_ptr[k + 1]; ++e)
                    if (mark[pc->at->col[e]] != j) mark[pc->at->col[e]] = j, ++n1;
            }
            if (n1 > pc->max_n1) pc->max_n1 = n1;
            if (n2 > pc->max_n2) pc->max_n2 = n2;
        }
    } else {
        HS_CALL_GOTO(pattern_power(a, level, 1, &pc->m), fail);
        HS_CALL_GOTO(transpose_map(pc->m, &pc->mt, &pc->mt_to_m), fail);
        HS_CALL_GOTO(HS_ALLOC(pc->tmp, n > 0 ? n : 1, "FSAI intermediate G r"), fail);
        for (int32_t i = 0; i < n; ++i) {
            int32_t n2 = pc->m->row_ptr[i + 1] - pc->m->row_ptr[i];
            if (n2 > pc->max_n2) pc->max_n2 = n2;
        }
        pc->max_n1 = pc->max_n2;
    }
    free(mark);
    pc->setup_pattern_s = hs_wtime() - t0;
    *out = pc;
    return HS_OK;
fail:
    free(mark);
    hs_precond_destroy(&pc);
    return st;
}

void hs_precond_destroy(hs_precond **p)
{
    if (!p || !*p) return;
    hs_precond *pc = *p;
    free(pc->diag_pos);
    free(pc->inv_diag);
    hs_csr_destroy(&pc->m);
    hs_csr_destroy(&pc->mt);
    free(pc->mt_to_m);
    hs_csr_destroy(&pc->at);
    free(pc->at_to_a);
    free(pc->tmp);
    free(pc);
    *p = NULL;
}

/* ---- the dense local problems ------------------------------------------------------------- */

int hs_sai_solve_dense(int n1, int n2, double *ahat, int jrow, double *m, double *w)
{
    if (n1 < n2 || jrow < 0) return -1;
    for (int r = 0; r < n1; ++r) w[r] = 0.0;
    w[jrow] = 1.0;
    double rmax = 0.0;
    for (int q = 0; q < n2; ++q) {
        double *x = ahat + (size_t)q * n1;
        double xx = 0.0;
        for (int r = q; r < n1; ++r) xx += x[r] * x[r];
        double xn = sqrt(xx);
        double alpha = x[q] > 0.0 ? -xn : xn; /* H x = alpha e_q; the sign avoids cancellation */
        if (xn > 0.0) {
            double vv = 2.0 * (xx - x[q] * alpha); /* ||x - alpha e_q||^2 */
            x[q] -= alpha;                           /* x becomes v */
            for (int c = q + 1; c < n2; ++c) {
                double *y = ahat + (size_t)c * n1, s = 0.0;
                for (int r = q; r < n1; ++r) s += x[r] * y[r];
                s *= 2.0 / vv;
                for (int r = q; r < n1; ++r) y[r] -= s * x[r];
            }
            double s = 0.0;
            for (int r = q; r < n1; ++r) s += x[r] * w[r];
            s *= 2.0 / vv;
            for (int r = q; r < n1; ++r) w[r] -= s * x[r];
        }
        x[q] = alpha; /* R_qq; v is not needed any more */
        if (fabs(alpha) > rmax) rmax = fabs(alpha);
    }
    double tol = (double)n1 * DBL_EPSILON * rmax;
    for (int q = 0; q < n2; ++q)
        if (!(fabs(ahat[(size_t)q * n1 + q]) > tol)) return -1;
    for (int q = n2 - 1; q >= 0; --q) {
        double s = w[q];
        for (int c = q + 1; c < n2; ++c) s -= ahat[(size_t)c * n1 + q] * m[c];
        m[q] = s / ahat[(size_t)q * n1 + q];
    }
    return 0;
}

int hs_fsai_solve_dense(int n2, double *l, double *g)
{
    for (int i = 0; i < n2; ++i) {
        for (int j = 0; j <= i; ++j) {
            double s = l[(size_t)i * n2 + j];
            for (int k = 0; k < j; ++k) s -= l[(size_t)i * n2 + k] * l[(size_t)j * n2 + k];
            if (i == j) {
                if (!(s > 0.0) || !isfinite(s)) return -1;
                l[(size_t)i * n2 + i] = sqrt(s);
            } else {
                l[(size_t)i * n2 + j] = s / l[(size_t)j * n2 + j];
            }
        }
    }
    /* L y = e_last: y = (0, ..., 0, 1 / L_ll); then L^T g = y */
    int last = n2 - 1;
    for (int i = 0; i < n2; ++i) g[i] = 0.0;
    g[last] = 1.0 / l[(size_t)last * n2 + last];
    for (int i = last; i >= 0; --i) {
        double s = g[i];
        for (int k = i + 1; k < n2; ++k) s -= l[(size_t)k * n2 + i] * g[k];
        g[i] = s / l[(size_t)i * n2 + i];
    }
    double sc = 1.0 / sqrt(g[last]); /* g_last = 1 / L_ll^2 > 0 */
    for (int i = 0; i < n2; ++i) g[i] *= sc;
    return 0;
}

/* ---- values ------------------------------------------------------------------------------- */

static hs_status compute_jacobi(hs_precond *pc, const hs_csr *a)
{
    int32_t bad = -1;
    for (int32_t i = 0; i < pc->n; ++i) {
        double d = pc->diag_pos[i] >= 0 ? a->val[pc->diag_pos[i]] : 0.0;
        if (d == 0.0 || !isfinite(d)) { bad = i; break; }
        pc->inv_diag[i] = 1.0 / d;
    }
    HS_CHECK(bad < 0, HS_ERR_NUMERIC,
             "Jacobi preconditioner: the diagonal entry of row %d (1-based) is %s; Jacobi needs a nonzero "
             "diagonal: use solver.precond = \"sai\" with solver.krylov = \"bicgstab\"",
             bad + 1, pc->diag_pos[bad] < 0 ? "missing (zero)" : "zero or not finite");
    return HS_OK;
}

static hs_status compute_sai(hs_precond *pc, const hs_csr *a)
{
    const int32_t n = pc->n;
    const hs_csr *mt = pc->mt, *at = pc->at;
    int32_t bad = -1;
    int alloc_fail = 0;
#pragma omp parallel
    {
        size_t n1m = (size_t)(pc->max_n1 > 0 ? pc->max_n1 : 1), n2m = (size_t)(pc->max_n2 > 0 ? pc->max_n2 : 1);
        double *ahat = malloc(sizeof(double) * n1m * n2m), *w = malloc(sizeof(double) * n1m);
        double *mloc = malloc(sizeof(double) * n2m);
        int32_t *pos = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1)), *ilist = malloc(sizeof(int32_t) * n1m);
        if (!ahat || !w || !mloc || !pos || !ilist) {
#pragma omp atomic write
            alloc_fail = 1;
        } else {
            for (int32_t i = 0; i < n; ++i) pos[i] = -1;
#pragma omp for schedule(dynamic, 64)
            for (int32_t j = 0; j < n; ++j) {
                const int32_t q0 = mt->row_ptr[j], n2 = mt->row_ptr[j + 1] - q0;
                int32_t n1 = 0;
                for (int32_t q = 0; q < n2; ++q) {
                    int32_t k = mt->col[q0 + q];
                    for (int32_t e = at->row_ptr[k]; e < at->row_ptr[k + 1]; ++e)
                        if (pos[at->col[e]] < 0) pos[at->col[e]] = n1, ilist[n1++] = at->col[e];
                }
                memset(ahat, 0, sizeof(double) * (size_t)n1 * (size_t)n2);
                for (int32_t q = 0; q < n2; ++q) {
                    int32_t k = mt->col[q0 + q];
                    for (int32_t e = at->row_ptr[k]; e < at->row_ptr[k + 1]; ++e)
                        ahat[(size_t)q * n1 + pos[at->col[e]]] = a->val[pc->at_to_a[e]];
                }
                int jrow = pos[j];
                for (int32_t r = 0; r < n1; ++r) pos[ilist[r]] = -1;
                if (hs_sai_solve_dense(n1, n2, ahat, jrow, mloc, w) != 0) {
#pragma omp critical(hs_sai_bad)
                    if (bad < 0 || j < bad) bad = j;
                    continue;
                }
                for (int32_t q = 0; q < n2; ++q) mt->val[q0 + q] = mloc[q];
            }
        }
        free(ahat); free(w); free(mloc); free(pos); free(ilist);
    }
    HS_CHECK(!alloc_fail, HS_ERR_MEMORY, "out of memory for the SAI local problems (%d x %d per thread)",
             pc->max_n1, pc->max_n2);
    HS_CHECK(bad < 0, HS_ERR_NUMERIC,
             "SAI preconditioner: the least-squares problem of column %d (1-based) is rank deficient: the "
             "matrix is singular (e.g. a zero column), or numerically so on the pattern of A^%d",
             bad + 1, pc->level);
#pragma omp parallel for schedule(static) if (mt->nnz > HS_OMP_MIN)
    for (int32_t k = 0; k < mt->nnz; ++k) pc->m->val[pc->mt_to_m[k]] = mt->val[k];
    return HS_OK;
}

/* a(P[r], P[c]) for the sorted set P by a merge walk of row P[r] of A with P. */
static void gather_pp(const hs_csr *a, const int32_t *p, int32_t n2, double *out)
{
    for (int32_t r = 0; r < n2; ++r) {
        double *o = out + (size_t)r * n2;
        for (int32_t c = 0; c < n2; ++c) o[c] = 0.0;
        int32_t e = a->row_ptr[p[r]], ee = a->row_ptr[p[r] + 1], c = 0;
        while (e < ee && c < n2) {
            if (a->col[e] < p[c]) ++e;
            else if (a->col[e] > p[c]) ++c;
            else o[c++] = a->val[e++];
        }
    }
}

static hs_status compute_fsai(hs_precond *pc, const hs_csr *a)
{
    const int32_t n = pc->n;
    hs_csr *g = pc->m;
    int32_t bad = -1;
    int alloc_fail = 0;
#pragma omp parallel
    {
        size_t n2m = (size_t)(pc->max_n2 > 0 ? pc->max_n2 : 1);
        double *l = malloc(sizeof(double) * n2m * n2m), *gl = malloc(sizeof(double) * n2m);
        if (!l || !gl) {
#pragma omp atomic write
            alloc_fail = 1;
        } else {
#pragma omp for schedule(dynamic, 64)
            for (int32_t i = 0; i < n; ++i) {
                const int32_t q0 = g->row_ptr[i], n2 = g->row_ptr[i + 1] - q0;
                gather_pp(a, g->col + q0, n2, l);
                if (hs_fsai_solve_dense(n2, l, gl) != 0) {
#pragma omp critical(hs_fsai_bad)
                    if (bad < 0 || i < bad) bad = i;
                    continue;
                }
                for (int32_t q = 0; q < n2; ++q) g->val[q0 + q] = gl[q];
            }
        }
        free(l); free(gl);
    }
    HS_CHECK(!alloc_fail, HS_ERR_MEMORY, "out of memory for the FSAI local problems (%d x %d per thread)",
             pc->max_n2, pc->max_n2);
    HS_CHECK(bad < 0, HS_ERR_NUMERIC,
             "FSAI preconditioner: the submatrix A(P,P) of row %d (1-based) is not positive definite: FSAI needs a "
             "symmetric positive definite matrix; for a general one use solver.precond = \"sai\" with "
             "solver.krylov = \"bicgstab\"", bad + 1);
#pragma omp parallel for schedule(static) if (g->nnz > HS_OMP_MIN)
    for (int32_t k = 0; k < g->nnz; ++k) pc->mt->val[k] = g->val[pc->mt_to_m[k]];
    return HS_OK;
}

hs_status hs_precond_compute(hs_precond *pc, const hs_csr *a)
{
    HS_CHECK(a->n_rows == pc->n && a->n_cols == pc->n, HS_ERR_INTERNAL, "preconditioner of size %d given a %d x %d matrix",
             pc->n, a->n_rows, a->n_cols);
    switch (pc->kind) {
    case HS_PRECOND_JACOBI: return compute_jacobi(pc, a);
    case HS_PRECOND_SAI: return compute_sai(pc, a);
    case HS_PRECOND_FSAI: return compute_fsai(pc, a);
    }
    return HS_FAIL(HS_ERR_INTERNAL, "preconditioner %d not in the list", (int)pc->kind);
}

void hs_precond_apply(void *ctx, const double *r, double *z)
{
    hs_precond *pc = ctx;
    const int32_t n = pc->n;
    switch (pc->kind) {
    case HS_PRECOND_JACOBI:
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
        for (int32_t i = 0; i < n; ++i) z[i] = pc->inv_diag[i] * r[i];
        return;
    case HS_PRECOND_SAI:
        hs_csr_spmv(pc->m, r, z);
        return;
    case HS_PRECOND_FSAI:
        hs_csr_spmv(pc->m, r, pc->tmp);
        hs_csr_spmv(pc->mt, pc->tmp, z);
        return;
    }
}
