/* The SELL-32 layout of cusparse_sell (solvers/spmv_cusparse_sell.c), host side only (no GPU
 * needed; built with CUDA because the format is registered only there): slice offsets are
 * multiples of 32 and each slice is as wide as its longest row; CSR nonzero k of row i = 32 s + r
 * sits at slice_off[s] + 32 j + r (j its position in the row); padding columns are -1; the CPU
 * reference equals the in-order row sum. Edge cases: no rows, no nonzeros, one row, 33 rows, an
 * empty slice between full ones, a row longer than 10,000. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_spmv.h"
#include "hs_test.h"
#include "spmv_sell_layout.h"

static unsigned g_s = 12345u;
static double urand(void) { g_s = g_s * 1664525u + 1013904223u; return (g_s >> 8) / 16777216.0; }

/* Rows of the given lengths (capped at n_cols), columns spread and sorted, random values. */
static hs_csr *from_lengths(int n, int n_cols, const int *len)
{
    long long nnz = 0;
    for (int i = 0; i < n; ++i) nnz += len[i] < n_cols ? len[i] : n_cols;
    hs_csr *a = NULL;
    if (hs_csr_create(n, n_cols, (int32_t)nnz, &a) != HS_OK) return NULL;
    int k = 0;
    for (int i = 0; i < n; ++i) {
        a->row_ptr[i] = k;
        int m = len[i] < n_cols ? len[i] : n_cols;
        for (int j = 0; j < m; ++j, ++k) {
            a->col[k] = (int)((long long)j * n_cols / m);
            a->val[k] = 2.0 * urand() - 1.0;
        }
    }
    a->row_ptr[n] = k;
    return a;
}

static void check(const char *what, const hs_csr *a)
{
    const hs_spmv_ops *o = hs_spmv_find("cusparse_sell");
    HS_TEST_CHECK(o != NULL && o->needs_device, "cusparse_sell is not registered as a device format");
    if (!o) return;
    hs_spmv_layout *lay = NULL;
    HS_TEST_OK(hs_spmv_layout_create(o, a, NULL, &lay));
    if (!lay) return;
    const hs_sell_layout *im = lay->impl;
    const int n = a->n_rows, ns = (n + 31) / 32;
    HS_TEST_CHECK(im->n_slices == ns, "%s: %d slices, want %d", what, im->n_slices, ns);
    HS_TEST_CHECK(im->slice_off[0] == 0 && im->slice_off[ns] == lay->n_slots, "%s: offsets do not span the slots", what);
    long long total = 0;
    for (int s = 0; s < ns; ++s) {
        int w = 0;
        for (int i = 32 * s; i < n && i < 32 * s + 32; ++i)
            if (a->row_ptr[i + 1] - a->row_ptr[i] > w) w = a->row_ptr[i + 1] - a->row_ptr[i];
        HS_TEST_CHECK(im->slice_off[s] == total, "%s: slice %d starts at %d, want %lld", what, s, im->slice_off[s], total);
        total += 32LL * w;
    }
    HS_TEST_CHECK(lay->n_slots == total, "%s: %lld slots, want %lld", what, (long long)lay->n_slots, total);
    char *hit = calloc((size_t)lay->n_slots + 1, 1);
    int bad = 0;
    for (int i = 0; i < n; ++i) {
        const int s = i / 32, r = i % 32;
        for (int k = a->row_ptr[i]; k < a->row_ptr[i + 1]; ++k) {
            long long want = im->slice_off[s] + 32LL * (k - a->row_ptr[i]) + r;
            if (lay->slot_of_nnz[k] != want || im->col[want] != a->col[k]) ++bad;
            else hit[want] = 1;
        }
    }
    HS_TEST_CHECK(bad == 0, "%s: %d nonzeros not at slice_off + 32 j + r with their column", what, bad);
    int pad_bad = 0;
    for (long long q = 0; q < lay->n_slots; ++q)
        if (!hit[q] && im->col[q] != -1) ++pad_bad;
    HS_TEST_CHECK(pad_bad == 0, "%s: %d padding slots without column -1", what, pad_bad);
    free(hit);

    /* reference apply on scattered values vs the in-order CSR row sum */
    double *vf = malloc(sizeof(double) * ((size_t)lay->n_slots + 1));
    double *x = malloc(sizeof(double) * ((size_t)a->n_cols + 1));
    double *y = malloc(sizeof(double) * ((size_t)n + 1));
    for (int c = 0; c < a->n_cols; ++c) x[c] = 2.0 * urand() - 1.0;
    hs_spmv_layout_scatter(lay, a->nnz, a->val, vf);
    for (int i = 0; i < n; ++i) y[i] = NAN;
    o->apply_ref(lay, vf, x, y);
    int rbad = 0;
    for (int i = 0; i < n; ++i) {
        double s = 0.0, ab = 0.0;
        const int m = a->row_ptr[i + 1] - a->row_ptr[i];
        for (int k = a->row_ptr[i]; k < a->row_ptr[i + 1]; ++k) {
            s += a->val[k] * x[a->col[k]];
            ab += fabs(a->val[k] * x[a->col[k]]);
        }
        const double g = m * DBL_EPSILON / (1.0 - m * DBL_EPSILON);
        if (!(fabs(y[i] - s) <= 2.0 * g * ab)) ++rbad;
    }
    HS_TEST_CHECK(rbad == 0, "%s: %d rows of the reference differ from the CSR row sum", what, rbad);
    free(vf);
    free(x);
    free(y);
    hs_spmv_layout_destroy(&lay);
}

int main(void)
{
    int len[200] = {0};
    hs_csr *a;

    a = from_lengths(0, 0, len); /* no rows */
    if (a) check("no rows", a);
    hs_csr_destroy(&a);

    for (int i = 0; i < 40; ++i) len[i] = 0; /* rows, no nonzeros */
    a = from_lengths(40, 40, len);
    if (a) check("no nonzeros", a);
    hs_csr_destroy(&a);

    len[0] = 7; /* one row */
    a = from_lengths(1, 10, len);
    if (a) check("single row", a);
    hs_csr_destroy(&a);

    for (int i = 0; i < 33; ++i) len[i] = 1 + i % 5; /* 33 rows: a last slice of one row */
    a = from_lengths(33, 33, len);
    if (a) check("33 rows", a);
    hs_csr_destroy(&a);

    for (int i = 0; i < 100; ++i) len[i] = (i >= 32 && i < 64) ? 0 : 3 + i % 13; /* empty middle slice */
    len[70] = 0;
    a = from_lengths(100, 100, len);
    if (a) check("empty slice", a);
    hs_csr_destroy(&a);

    for (int i = 0; i < 64; ++i) len[i] = 1 + i % 4; /* one row of 12,000 */
    len[37] = 12000;
    a = from_lengths(64, 20000, len);
    if (a) check("long row", a);
    hs_csr_destroy(&a);

    HS_TEST_RETURN();
}
