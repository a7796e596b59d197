/* Every registered SpMV format: its layout and slot map are valid and its CPU reference equals the
 * CSR product within the summation error bound. Picks up new formats from the X-macro list. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_spmv.h"
#include "hs_test.h"
#include "hs_test_matrix.h"

/* Random pattern with skewed row lengths (1..max_len, a few long rows), sorted unique columns. */
static hs_csr *random_matrix(int n, int max_len, unsigned seed)
{
    int *len = malloc(sizeof(int) * n), nnz = 0;
    for (int i = 0; i < n; ++i) {
        len[i] = 1 + (int)(urand(&seed) * 15);
        if (i % 97 == 0) len[i] = max_len; /* long rows cross warps and partitions */
        if (len[i] > n) len[i] = n;
        nnz += len[i];
    }
    hs_csr *a = NULL;
    hs_csr_create(n, n, nnz, &a);
    char *used = calloc((size_t)n, 1);
    int k = 0;
    for (int i = 0; i < n; ++i) {
        a->row_ptr[i] = k;
        int start = k;
        for (int j = 0; j < len[i];) {
            int c = (int)(urand(&seed) * n);
            if (used[c]) continue;
            used[c] = 1; a->col[k++] = c; ++j;
        }
        for (int q = start; q < k; ++q) used[a->col[q]] = 0;
        /* insertion sort of the row */
        for (int q = start + 1; q < k; ++q)
            for (int p = q; p > start && a->col[p - 1] > a->col[p]; --p) { int t = a->col[p]; a->col[p] = a->col[p - 1]; a->col[p - 1] = t; }
        for (int q = start; q < k; ++q) a->val[q] = 2.0 * urand(&seed) - 1.0;
    }
    a->row_ptr[n] = k;
    free(used); free(len);
    return a;
}

/* Every registered format on matrix a: layout valid, reference within the rounding bound of CSR. */
static void check_all_formats(const hs_csr *a, const char *label)
{
    int n = a->n_rows;
    double *x = malloc(sizeof(double) * (a->n_cols + 1)), *y = malloc(sizeof(double) * (n + 1));
    double *yr = malloc(sizeof(double) * (n + 1)), *ab = malloc(sizeof(double) * (n + 1));
    unsigned s = 99;
    for (int i = 0; i < a->n_cols; ++i) x[i] = 2.0 * urand(&s) - 1.0;
    hs_csr_spmv(a, x, yr);
    hs_csr_spmv_abs(a, x, ab);
    for (int f = 0; f < hs_spmv_count(); ++f) {
        const hs_spmv_ops *o = hs_spmv_get(f);
        hs_spmv_layout *lay = NULL;
        HS_TEST_OK(hs_spmv_layout_create(o, a, NULL, &lay));
        if (!lay) { fprintf(stderr, "  (%s on %s)\n", o->name, label); continue; }
        char *seen = calloc((size_t)lay->n_slots + 1, 1);
        int ok = lay->n_slots >= a->nnz;
        for (int k = 0; k < a->nnz && ok; ++k) {
            int64_t sl = lay->slot_of_nnz[k];
            if (sl < 0 || sl >= lay->n_slots || seen[sl]) ok = 0;
            else seen[sl] = 1;
        }
        HS_TEST_CHECK(ok, "%s on %s: slot map not injective into [0, %lld)", o->name, label, (long long)lay->n_slots);
        free(seen);
        double *v = malloc(sizeof(double) * ((size_t)lay->n_slots + 1));
        hs_spmv_layout_scatter(lay, a->nnz, a->val, v);
        for (int i = 0; i < n; ++i) y[i] = NAN; /* every row must be written */
        o->apply_ref(lay, v, x, y);
        int bad = 0;
        for (int i = 0; i < n; ++i) {
            int m = a->row_ptr[i + 1] - a->row_ptr[i];
            double tol = 2.0 * m * DBL_EPSILON / (1.0 - m * DBL_EPSILON) * ab[i];
            if (!(fabs(y[i] - yr[i]) <= tol)) {
                if (bad++ < 3) fprintf(stderr, "  %s on %s: row %d (%d nonzeros): %.17g vs %.17g\n", o->name, label, i, m, y[i], yr[i]);
            }
        }
        HS_TEST_CHECK(bad == 0, "%s on %s: %d rows differ from CSR beyond the rounding bound", o->name, label, bad);
        free(v);
        hs_spmv_layout_destroy(&lay);
        HS_TEST_CHECK(lay == NULL, "destroy did not clear the pointer");
    }
    free(x); free(y); free(yr); free(ab);
}

/* The edge cases every format must handle (issue 4): empty rows, one very long row, sizes that are
 * not multiples of 32 or 256, a single row, no nonzeros at all. */
static void edge_cases(void)
{
    int len[20000];
    hs_csr *a;
    /* no nonzeros */
    for (int i = 0; i < 300; ++i) len[i] = 0;
    a = matrix_from_lengths(300, 300, len, 1); check_all_formats(a, "300 empty rows"); hs_csr_destroy(&a);
    /* a single row, short and long */
    len[0] = 7;
    a = matrix_from_lengths(1, 50, len, 2); check_all_formats(a, "1 row of 7"); hs_csr_destroy(&a);
    len[0] = 3000;
    a = matrix_from_lengths(1, 5000, len, 3); check_all_formats(a, "1 row of 3000"); hs_csr_destroy(&a);
    /* sizes around 32 and 256 with empty rows interleaved */
    int sizes[] = {31, 33, 255, 257, 1000};
    for (int q = 0; q < 5; ++q) {
        int n = sizes[q];
        for (int i = 0; i < n; ++i) len[i] = (i % 5 == 3) ? 0 : 1 + (i * 7) % 20;
        char lab[64];
        snprintf(lab, sizeof lab, "%d rows, every 5th empty", n);
        a = matrix_from_lengths(n, n, len, 10 + q); check_all_formats(a, lab); hs_csr_destroy(&a);
    }
    /* one very long row (12000 nonzeros) among 20000 short rows */
    for (int i = 0; i < 20000; ++i) len[i] = 5 + i % 11;
    len[777] = 12000;
    a = matrix_from_lengths(20000, 20000, len, 4); check_all_formats(a, "20000 rows, one of 12000"); hs_csr_destroy(&a);
}

/* Lookup by name (hs_spmv_find, hs_spmv_lookup over hs_registry): every listed format is found
 * under its ops' name, the names list is the formats in list order, and an unknown name (including
 * "auto", which each backend resolves itself) is an error that lists the names. */
static void check_lookup(void)
{
    HS_TEST_CHECK(hs_spmv_count() >= 2, "registry has %d formats", hs_spmv_count());
    HS_TEST_CHECK(hs_spmv_get(-1) == NULL && hs_spmv_get(hs_spmv_count()) == NULL, "get out of range");
    char want[1024] = "";
    size_t len = 0;
    for (int f = 0; f < hs_spmv_count(); ++f) {
        const hs_spmv_ops *o = hs_spmv_get(f);
        /* The list's identifier names the entry; it must be the ops' own name. */
        HS_TEST_CHECK(hs_spmv_find(o->name) == o, "find(%s) is not the listed ops", o->name);
        const hs_spmv_ops *l = NULL;
        HS_TEST_OK(hs_spmv_lookup("solver.spmv", o->name, "auto", &l));
        HS_TEST_CHECK(l == o, "lookup(%s)", o->name);
        len += (size_t)snprintf(want + len, sizeof want - len, "%s%s", f ? ", " : "", o->name);
    }
    HS_TEST_CHECK(strcmp(hs_spmv_names(), want) == 0, "names \"%s\", want \"%s\"", hs_spmv_names(), want);
    HS_TEST_CHECK(hs_spmv_names() == hs_spmv_names(), "names is not static storage");
    HS_TEST_CHECK(hs_spmv_find("csr_scalar") != NULL, "csr_scalar is not registered (%s)", hs_spmv_names());
    HS_TEST_CHECK(hs_spmv_find("no_such_kernel") == NULL, "unknown name resolved");
    HS_TEST_CHECK(hs_spmv_find("auto") == NULL, "\"auto\" is no format: the backends resolve it");
    HS_TEST_CHECK(hs_spmv_find("CSR_SCALAR") == NULL && hs_spmv_find(NULL) == NULL, "case-sensitive, NULL");

    const hs_spmv_ops *o = (const hs_spmv_ops *)1;
    char msg[1200];
    hs_error_clear();
    HS_TEST_CHECK(hs_spmv_lookup("solver.spmv", "ellwarp", "auto", &o) == HS_ERR_CONFIG && o == NULL,
                  "lookup of an unknown name");
    snprintf(msg, sizeof msg, "solver.spmv: unknown kernel \"ellwarp\"; available: auto, %s", hs_spmv_names());
    HS_TEST_CHECK(strcmp(hs_error_message(), msg) == 0, "message \"%s\", want \"%s\"", hs_error_message(), msg);
    hs_error_clear();
    HS_TEST_CHECK(hs_spmv_lookup("--kernels", "auto", NULL, &o) == HS_ERR_CONFIG && o == NULL, "lookup(auto)");
    snprintf(msg, sizeof msg, "--kernels: unknown kernel \"auto\"; available: %s", hs_spmv_names());
    HS_TEST_CHECK(strcmp(hs_error_message(), msg) == 0, "message \"%s\", want \"%s\"", hs_error_message(), msg);
    hs_error_clear();
}

/* solver.matrix_values by name, and a kernel without a float32 variant refused naming those with one */
static void check_values(void)
{
    hs_matrix_values v = HS_VALUES_F64;
    HS_TEST_OK(hs_matrix_values_lookup("solver.matrix_values", "float32", &v));
    HS_TEST_CHECK(v == HS_VALUES_F32 && hs_matrix_values_bytes(v) == 4, "float32 lookup");
    HS_TEST_CHECK(hs_matrix_values_lookup("solver.matrix_values", "half", &v) == HS_ERR_CONFIG &&
                      strstr(hs_error_message(), "float64") && strstr(hs_error_message(), "float32"),
                  "unknown precision: \"%s\"", hs_error_message());
    hs_error_clear();
    for (int f = 0; f < hs_spmv_count(); ++f) {
        const hs_spmv_ops *o = hs_spmv_get(f);
        if (o->apply_ref_f32) {
            HS_TEST_OK(hs_spmv_check_values("solver.matrix_values", o, HS_VALUES_F32));
            continue;
        }
        HS_TEST_CHECK(hs_spmv_check_values("solver.matrix_values", o, HS_VALUES_F32) == HS_ERR_CONFIG &&
                          strstr(hs_error_message(), o->name) && strstr(hs_error_message(), "csr_scalar"),
                      "%s: refusal \"%s\"", o->name, hs_error_message());
        hs_error_clear();
    }
}

int main(void)
{
    check_lookup();
    check_values();
    const int n = 5000, max_len = 300;
    hs_csr *a = random_matrix(n, max_len, 12345u);
    double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n), *yr = malloc(sizeof(double) * n);
    double *ab = malloc(sizeof(double) * n);
    unsigned s = 99;
    for (int i = 0; i < n; ++i) x[i] = 2.0 * urand(&s) - 1.0;
    hs_csr_spmv(a, x, yr);
    hs_csr_spmv_abs(a, x, ab);
    for (int f = 0; f < hs_spmv_count(); ++f) {
        const hs_spmv_ops *o = hs_spmv_get(f);
        HS_TEST_CHECK(hs_spmv_find(o->name) == o, "find(%s)", o->name);
        HS_TEST_CHECK(o->summary && o->seed && o->setup && o->apply_ref, "%s: incomplete ops", o->name);
        hs_spmv_layout *lay = NULL;
        HS_TEST_OK(hs_spmv_layout_create(o, a, NULL, &lay));
        if (!lay) continue;
        /* slot map: injective, in range */
        char *seen = calloc((size_t)lay->n_slots, 1);
        int ok = lay->n_slots >= a->nnz;
        for (int k = 0; k < a->nnz && ok; ++k) {
            int64_t sl = lay->slot_of_nnz[k];
            if (sl < 0 || sl >= lay->n_slots || seen[sl]) ok = 0;
            else seen[sl] = 1;
        }
        HS_TEST_CHECK(ok, "%s: slot map not injective into [0, %lld)", o->name, (long long)lay->n_slots);
        free(seen);
        double *v = malloc(sizeof(double) * (size_t)lay->n_slots);
        hs_spmv_layout_scatter(lay, a->nnz, a->val, v);
        o->apply_ref(lay, v, x, y);
        /* Both sums carry at most gamma_m = m eps/(1 - m eps) relative error in |A||x|, m = row length. */
        double worst = 0.0;
        for (int i = 0; i < n; ++i) {
            int m = a->row_ptr[i + 1] - a->row_ptr[i];
            double tol = 2.0 * m * DBL_EPSILON / (1.0 - m * DBL_EPSILON) * ab[i];
            double d = fabs(y[i] - yr[i]);
            if (d > tol && d - tol > worst) worst = d - tol;
        }
        HS_TEST_CHECK(worst == 0.0, "%s: reference differs from CSR beyond the rounding bound (excess %g)", o->name, worst);
        if (o->apply_ref_f32) {
            /* float32 values: each is widened before its product, in apply_ref's order, so the result
             * equals apply_ref on the widened values bit for bit */
            float *vf = malloc(sizeof(float) * (size_t)lay->n_slots);
            double *vw = malloc(sizeof(double) * (size_t)lay->n_slots), *y32 = malloc(sizeof(double) * n);
            for (int64_t k = 0; k < lay->n_slots; ++k) vw[k] = v[k] / 3.0; /* not float-representable */
            hs_spmv_round_values(lay->n_slots, vw, vf);
            o->apply_ref(lay, vw, x, yr); /* the float64 product with the unrounded values */
            for (int64_t k = 0; k < lay->n_slots; ++k) vw[k] = (double)vf[k];
            o->apply_ref_f32(lay, vf, x, y32);
            o->apply_ref(lay, vw, x, y);
            int same = 1, moved = 0;
            for (int i = 0; i < n; ++i) {
                same &= y32[i] == y[i];
                moved |= y32[i] != yr[i];
            }
            HS_TEST_CHECK(same, "%s: float32 reference differs from the reference on the widened values", o->name);
            HS_TEST_CHECK(moved, "%s: float32 values changed nothing: the values were not rounded", o->name);
            free(vf); free(vw); free(y32);
            hs_csr_spmv(a, x, yr); /* restore the CSR product for the next format */
        }
        HS_TEST_CHECK(hs_spmv_serves(o, HS_VALUES_F64), "%s: does not serve float64", o->name);
        free(v);
        hs_spmv_layout_destroy(&lay);
        HS_TEST_CHECK(lay == NULL, "destroy did not clear the pointer");
    }
    hs_csr_destroy(&a);
    free(x); free(y); free(yr); free(ab);
    edge_cases();
    HS_TEST_RETURN();
}
