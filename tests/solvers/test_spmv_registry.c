/* Every registered SpMV format: its layout and slot map are valid and its CPU reference equals the
 * CSR product within the summation error bound. Picks up new formats from the X-macro list. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_spmv.h"
#include "hs_test.h"

static double urand(unsigned *s) { *s = *s * 1664525u + 1013904223u; return (*s >> 8) / 16777216.0; }

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

int main(void)
{
    HS_TEST_CHECK(hs_spmv_count() >= 2, "registry has %d formats", hs_spmv_count());
    HS_TEST_CHECK(hs_spmv_find("no_such_kernel") == NULL, "unknown name resolved");
    HS_TEST_CHECK(strstr(hs_spmv_names(), "csr_scalar") != NULL, "names: %s", hs_spmv_names());
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
        free(v);
        hs_spmv_layout_destroy(&lay);
        HS_TEST_CHECK(lay == NULL, "destroy did not clear the pointer");
    }
    hs_csr_destroy(&a);
    free(x); free(y); free(yr); free(ab);
    HS_TEST_RETURN();
}
