/* `heartsim bench spmv` without a GPU (bench_spmv_internal.h): the kernels' CPU references, which
 * compute the same function as the GPU kernels (summing in the device's order), checked against the
 * plain CSR product and timed on the host. Also the matrix both halves start from. */
#include "bench_spmv_internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_backend_diag.h"
#include "hs_mtx.h"
#include "hs_spec.h"
#include "hs_spmv.h"
#include "hs_util.h"

hs_status hs_bench_matrix_from_config(const hs_config *cfg, hs_csr **out)
{
    static hs_sim_spec spec; /* large (paths): not on the stack */
    HS_CALL(hs_spec_from_config(cfg, &spec));
    spec.backend = hs_backends_find("cpu");
    spec.spmv = &hs_spmv_ops_csr_scalar;
    hs_sim sim;
    HS_CALL(hs_sim_create(&spec, &sim));
    hs_status st = HS_OK;
    double *amp = NULL, res = 0.0;
    int32_t node = 0;
    hs_csr *a = NULL;
    const hs_csr *pat = sim.prob->pattern;
    HS_CALL_GOTO(HS_ALLOC(amp, sim.stim->n_sites + 1, "stimulus amplitudes"), done);
    HS_CALL_GOTO(sim.backend->ops->begin_step(sim.backend, spec.dt / spec.time_unit, amp), done);
    HS_CALL_GOTO(sim.backend->ops->assemble(sim.backend, &res, &node), done);
    HS_CALL_GOTO(hs_csr_create(pat->n_rows, pat->n_cols, pat->nnz, &a), done);
    memcpy(a->row_ptr, pat->row_ptr, sizeof(int32_t) * ((size_t)pat->n_rows + 1));
    memcpy(a->col, pat->col, sizeof(int32_t) * (size_t)pat->nnz);
    HS_CALL_GOTO(sim.backend->diag->get_system(sim.backend, a->val, NULL), done);
    *out = a;
    a = NULL;
done:
    hs_csr_destroy(&a);
    free(amp);
    hs_sim_destroy(&sim);
    return st;
}

typedef struct col_val {
    int32_t c;
    double v;
} col_val;
static int cmp_col_val(const void *a, const void *b)
{
    int32_t x = ((const col_val *)a)->c, y = ((const col_val *)b)->c;
    return (x > y) - (x < y);
}

hs_status hs_bench_permute_sym(const hs_csr *a, const int32_t *new_to_old, hs_csr **out)
{
    const int32_t n = a->n_rows;
    hs_status st = HS_OK;
    int32_t *old_to_new = NULL;
    col_val *buf = NULL;
    hs_csr *b = NULL;
    HS_CALL_GOTO(HS_ALLOC(old_to_new, n, "renumbering"), done);
    HS_CALL_GOTO(HS_ALLOC(buf, a->nnz, "renumbered rows"), done);
    HS_CALL_GOTO(hs_csr_create(n, a->n_cols, a->nnz, &b), done);
    for (int32_t i = 0; i < n; ++i) old_to_new[i] = -1;
    for (int32_t k = 0; k < n; ++k) {
        HS_CHECK_GOTO(new_to_old[k] >= 0 && new_to_old[k] < n && old_to_new[new_to_old[k]] < 0, done,
                      HS_ERR_INTERNAL, "node_order: new_to_old is not a permutation (entry %d)", (int)k);
        old_to_new[new_to_old[k]] = k;
    }
    int32_t q = 0;
    for (int32_t k = 0; k < n; ++k) {
        const int32_t i = new_to_old[k], len = a->row_ptr[i + 1] - a->row_ptr[i];
        b->row_ptr[k] = q;
        for (int32_t p = 0; p < len; ++p) {
            buf[q + p].c = old_to_new[a->col[a->row_ptr[i] + p]];
            buf[q + p].v = a->val[a->row_ptr[i] + p];
        }
        qsort(buf + q, (size_t)len, sizeof *buf, cmp_col_val);
        for (int32_t p = 0; p < len; ++p) {
            b->col[q + p] = buf[q + p].c;
            b->val[q + p] = buf[q + p].v;
        }
        q += len;
    }
    b->row_ptr[n] = q;
    *out = b;
    b = NULL;
done:
    hs_csr_destroy(&b);
    free(old_to_new);
    free(buf);
    return st;
}

hs_status hs_bench_spmv_matrix(const hs_bench_spmv_opts *o, hs_csr **out)
{
    *out = NULL;
    const char *src = o->matrix ? o->matrix : o->cfg->path;
    if (o->matrix) HS_CALL(hs_mtx_read(o->matrix, out));
    else HS_CALL(hs_bench_matrix_from_config(o->cfg, out));
    const hs_csr *a = *out;
    if (a->n_rows != a->n_cols) {
        hs_status st = HS_FAIL(HS_ERR_MESH, "%s: the matrix is %d x %d; the SpMV kernels compute y = A x with x and "
                                            "y of n_rows entries, so bench spmv needs a square matrix",
                               src, (int)a->n_rows, (int)a->n_cols);
        hs_csr_destroy(out);
        return st;
    }
    return HS_OK;
}

/* One kernel's reference on A (renumbered when the format has its own node order): max |y - y_csr|
 * after mapping back, the bound, setup and median apply times. */
typedef struct cpu_row {
    const hs_spmv_ops *ops;
    double err, tol, setup_s, apply_s;
    int64_t n_slots;
    int skipped; /* gpu only */
} cpu_row;

static hs_status run_ref(const hs_spmv_ops *op, const hs_csr *a0, const hs_spmv_params *prm, const double *x0,
                         const double *ycsr, double tol, int reps, cpu_row *r)
{
    const int32_t n = a0->n_rows;
    hs_status st = HS_OK;
    int32_t *new_to_old = NULL;
    hs_csr *pa = NULL;
    hs_spmv_layout *lay = NULL;
    double *vals = NULL, *x = NULL, *y = NULL, *t = NULL;
    const hs_csr *a = a0;
    r->ops = op;
    r->tol = tol;
    double w0 = hs_wtime();
    HS_CALL_GOTO(HS_ALLOC(x, n + 1, "x"), done);
    HS_CALL_GOTO(HS_ALLOC(y, n + 1, "y"), done);
    HS_CALL_GOTO(HS_ALLOC(t, reps, "timings"), done);
    if (op->node_order) {
        HS_CALL_GOTO(HS_ALLOC(new_to_old, n + 1, "node order"), done);
        HS_CALL_GOTO(op->node_order(a0, prm, new_to_old), done);
        HS_CALL_GOTO(hs_bench_permute_sym(a0, new_to_old, &pa), done);
        a = pa;
        for (int32_t k = 0; k < n; ++k) x[k] = x0[new_to_old[k]];
    } else {
        memcpy(x, x0, sizeof(double) * (size_t)n);
    }
    HS_CALL_GOTO(hs_spmv_layout_create(op, a, prm, &lay), done);
    HS_CALL_GOTO(HS_ALLOC(vals, lay->n_slots + 1, "format values"), done);
    hs_spmv_layout_scatter(lay, a->nnz, a->val, vals);
    r->setup_s = hs_wtime() - w0;
    r->n_slots = lay->n_slots;
    op->apply_ref(lay, vals, x, y);
    r->err = 0.0;
    for (int32_t k = 0; k < n; ++k) {
        double d = fabs(y[k] - ycsr[new_to_old ? new_to_old[k] : k]);
        if (!(d <= r->err)) r->err = d; /* NaN sticks */
    }
    for (int q = 0; q < reps; ++q) {
        double w = hs_wtime();
        op->apply_ref(lay, vals, x, y);
        t[q] = hs_wtime() - w;
    }
    r->apply_s = hs_median(t, reps);
done:
    hs_spmv_layout_destroy(&lay);
    hs_csr_destroy(&pa);
    free(new_to_old);
    free(vals);
    free(x);
    free(y);
    free(t);
    return st;
}

hs_status hs_bench_spmv_cpu(const hs_bench_spmv_opts *o, const hs_csr *a, const char *want, const char *why)
{
    const int nf = hs_spmv_count(), reps = o->reps < 20 ? o->reps : 20;
    const int32_t n = a->n_rows;
    const char *src = o->matrix ? o->matrix : o->cfg->path;
    hs_status st = HS_OK;
    double *x = NULL, *ycsr = NULL, *ab = NULL;
    cpu_row *rows = NULL;
    int n_rows = 0, failed = 0;
    hs_log(1, "heartsim bench spmv: no GPU found (%s); timing the kernels' CPU references instead: the same "
              "function checked on the host, not the GPU kernels' speed\n", why);
    if (o->csv || o->json) hs_warn("--csv/--json hold the GPU table: not written without a GPU");
    HS_CALL_GOTO(HS_ALLOC(x, n + 1, "x"), done);
    HS_CALL_GOTO(HS_ALLOC(ycsr, n + 1, "CSR y"), done);
    HS_CALL_GOTO(HS_ALLOC(ab, n + 1, "|A||x|"), done);
    HS_CALL_GOTO(HS_ALLOC(rows, nf + 1, "bench rows"), done);
    uint64_t s = 0x9E3779B97F4A7C15ull; /* the GPU half's x: fixed pseudo-random values in [-1, 1) */
    for (int32_t i = 0; i < n; ++i) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = (double)(s >> 11) * 0x1.0p-52 - 1.0;
    }
    hs_csr_spmv(a, x, ycsr);
    hs_csr_spmv_abs(a, x, ab);
    int32_t len_max = 0;
    double abmax = 0.0;
    for (int32_t i = 0; i < n; ++i) {
        int32_t m = a->row_ptr[i + 1] - a->row_ptr[i];
        if (m > len_max) len_max = m;
        if (ab[i] > abmax) abmax = ab[i];
    }
    /* two sums of at most len_max terms in different orders: each within len_max eps sum|a x| */
    const double tol = 2.0 * len_max * DBL_EPSILON * abmax;
    const hs_spmv_params prm = o->cfg ? o->cfg->spmv_params : hs_spmv_params_default();
    for (int f = 0; f < nf; ++f) {
        if (!want[f]) continue;
        const hs_spmv_ops *op = hs_spmv_get(f);
        cpu_row *r = &rows[n_rows++];
        memset(r, 0, sizeof *r);
        r->ops = op;
        if (op->needs_device || !op->apply_ref) {
            r->skipped = 1;
            continue;
        }
        hs_log(1, "bench spmv: %s (CPU reference)\n", op->name);
        HS_CALL_GOTO(run_ref(op, a, &prm, x, ycsr, tol, reps, r), done);
        if (!(r->err <= r->tol)) ++failed;
    }
    printf("heartsim bench spmv (CPU references, no GPU): %s, %d rows, %d nonzeros, longest row %d entries; "
           "median of %d applies\n", src, (int)n, (int)a->nnz, (int)len_max, reps);
    printf("| kernel | check: max |y - y_csr| (bound) | setup (ms) | apply (us) | GFLOP/s | slots / nnz |\n");
    printf("|---|---|---:|---:|---:|---:|\n");
    for (int i = 0; i < n_rows; ++i) {
        const cpu_row *r = &rows[i];
        if (r->skipped) {
            printf("| %s | gpu only: no CPU reference | - | - | - | - |\n", r->ops->name);
            continue;
        }
        printf("| %s | %s %.2e (%.2e) | %.2f | %.1f | %.3f | %.3f |\n", r->ops->name,
               r->err <= r->tol ? "ok" : "FAILED", r->err, r->tol, 1e3 * r->setup_s, 1e6 * r->apply_s,
               2.0 * a->nnz / r->apply_s / 1e9, a->nnz ? (double)r->n_slots / a->nnz : 0.0);
    }
    fflush(stdout);
    HS_CHECK_GOTO(failed == 0, done, HS_ERR_INTERNAL,
                  "bench spmv: %d CPU reference(s) FAILED the check against the CSR product: see the table", failed);
done:
    free(rows);
    free(x);
    free(ycsr);
    free(ab);
    return st;
}
