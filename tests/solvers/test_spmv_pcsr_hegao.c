/* pcsr_hegao (seed 001 sec. 3): the layout is the CSR identity, the block size is validated, and
 * the CPU reference equals, bit for bit, a host emulation of the device's two kernels (products
 * into a middle array, then Algorithm 3's windowed shared-memory reduction) for several block and
 * window sizes, including windows much shorter than a row, so rows that cross window boundaries and
 * blocks whose chunk needs many windows are covered. The emulation mirrors
 * gpu/spmv_pcsr_hegao.cu line by line (Algorithm 3's line numbers in the comments). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_spmv.h"
#include "hs_test.h"
#include "hs_test_matrix.h"

/* Kernel 1 (Algorithm 2) then kernel 2 (Algorithm 3) with tb threads per block and windows of at
 * most win entries, as gpu/spmv_pcsr_hegao.cu runs them; every thread of a block is stepped
 * through the same windows. */
static void emulate_device(const hs_csr *a, const double *val, const double *x, int tb, int win, double *y)
{
    const int32_t n = a->n_rows;
    double *v = malloc(sizeof(double) * ((size_t)a->nnz + 1));
    double *v_s = malloc(sizeof(double) * (size_t)win), *sum = malloc(sizeof(double) * (size_t)tb);
    int32_t *ptr_s = malloc(sizeof(int32_t) * ((size_t)tb + 1));
    for (int32_t k = 0; k < a->nnz; ++k) v[k] = val[k] * x[a->col[k]]; /* Algorithm 2 */
    for (int64_t row0 = 0; row0 < n; row0 += tb) {
        for (int tid = 0; tid < tb; ++tid) ptr_s[tid] = a->row_ptr[row0 + tid < n ? row0 + tid : n]; /* (05) */
        ptr_s[tb] = a->row_ptr[row0 + tb < n ? row0 + tb : n];                                      /* (06) */
        const int64_t first = ptr_s[0], last = ptr_s[tb];
        const int64_t temp = (last - first) / tb + 1;
        const int32_t nlen = (int32_t)(temp * tb < win ? temp * tb : win);
        for (int tid = 0; tid < tb; ++tid) sum[tid] = 0.0;
        for (int64_t i = first; i < last; i += nlen) {
            const int32_t avail = (int32_t)(last - i < nlen ? last - i : nlen);
            for (int32_t j = 0; j < win; ++j) v_s[j] = NAN; /* stale data must never be read */
            for (int32_t j = 0; j < avail; ++j) v_s[j] = v[i + j];
            for (int tid = 0; tid < tb; ++tid) {
                const int64_t rs = ptr_s[tid], re = ptr_s[tid + 1];
                if (!(re <= i || rs > i + nlen - 1)) {
                    const int32_t lo = (int32_t)(rs - i > 0 ? rs - i : 0);
                    const int32_t hi = (int32_t)(re - i < nlen ? re - i : nlen);
                    for (int32_t j = lo; j < hi; ++j) sum[tid] += v_s[j];
                }
            }
        }
        for (int tid = 0; tid < tb && row0 + tid < n; ++tid) y[row0 + tid] = sum[tid];
    }
    free(v); free(v_s); free(sum); free(ptr_s);
}

static void check_matrix(const hs_csr *a, const char *label)
{
    const hs_spmv_ops *o = hs_spmv_find("pcsr_hegao");
    const int32_t n = a->n_rows;
    double *x = malloc(sizeof(double) * ((size_t)a->n_cols + 1));
    double *y = malloc(sizeof(double) * ((size_t)n + 1)), *ye = malloc(sizeof(double) * ((size_t)n + 1));
    unsigned s = 7;
    for (int32_t i = 0; i < a->n_cols; ++i) x[i] = 2.0 * urand(&s) - 1.0;
    const int tbs[] = {32, 256, 1024};
    for (int q = 0; q < 3; ++q) {
        hs_spmv_params prm = hs_spmv_params_default();
        prm.block_size = tbs[q];
        hs_spmv_layout *lay = NULL;
        HS_TEST_OK(hs_spmv_layout_create(o, a, &prm, &lay));
        if (!lay) continue;
        HS_TEST_CHECK(lay->n_slots == a->nnz, "%s: %lld slots for %d nonzeros", label,
                      (long long)lay->n_slots, (int)a->nnz);
        int ident = 1;
        for (int32_t k = 0; k < a->nnz; ++k) ident &= lay->slot_of_nnz[k] == k;
        HS_TEST_CHECK(ident, "%s: slot map is not the identity", label);
        double *v = malloc(sizeof(double) * ((size_t)lay->n_slots + 1));
        hs_spmv_layout_scatter(lay, a->nnz, a->val, v);
        for (int32_t i = 0; i < n; ++i) y[i] = NAN;
        o->apply_ref(lay, v, x, y);
        /* windows: one entry per thread (many windows per block), 3 per thread, and the device's cap */
        const int wins[] = {tbs[q], 3 * tbs[q], 16 * tbs[q]};
        for (int w = 0; w < 3; ++w) {
            for (int32_t i = 0; i < n; ++i) ye[i] = NAN;
            emulate_device(a, v, x, tbs[q], wins[w], ye);
            HS_TEST_CHECK(memcmp(y, ye, sizeof(double) * (size_t)n) == 0,
                          "%s: block %d, window %d: reference and kernel emulation differ in their bits",
                          label, tbs[q], wins[w]);
        }
        for (int32_t i = 0; i < n; ++i)
            if (a->row_ptr[i] == a->row_ptr[i + 1])
                HS_TEST_CHECK(y[i] == 0.0, "%s: empty row %d gives %g", label, (int)i, y[i]);
        free(v);
        hs_spmv_layout_destroy(&lay);
    }
    free(x); free(y); free(ye);
}

int main(void)
{
    const hs_spmv_ops *o = hs_spmv_find("pcsr_hegao");
    HS_TEST_CHECK(o != NULL, "pcsr_hegao is not registered (%s)", hs_spmv_names());
    if (!o) HS_TEST_RETURN();
    HS_TEST_CHECK(!o->needs_device && o->node_order == NULL, "pcsr_hegao: unexpected ops flags");

    static int len[20000];
    hs_csr *a;
    /* block size: a multiple of 32 in [32, 1024] */
    for (int i = 0; i < 40; ++i) len[i] = 1 + i % 9;
    a = matrix_from_lengths(40, 40, len, 1);
    const int bad[] = {0, 31, 100, 2048};
    for (int q = 0; q < 4; ++q) {
        hs_spmv_params prm = hs_spmv_params_default();
        prm.block_size = bad[q];
        hs_spmv_layout *lay = NULL;
        hs_status st = hs_spmv_layout_create(o, a, &prm, &lay);
        HS_TEST_CHECK(st == HS_ERR_CONFIG && lay == NULL, "block_size %d accepted (status %d)", bad[q], (int)st);
        hs_error_clear();
    }
    check_matrix(a, "40 short rows");
    hs_csr_destroy(&a);

    /* P1-tet-like lengths 5..27, n no multiple of 32 or 256 */
    for (int i = 0; i < 5003; ++i) len[i] = 5 + (i * 13) % 23;
    a = matrix_from_lengths(5003, 5003, len, 2); check_matrix(a, "5003 rows of 5..27"); hs_csr_destroy(&a);
    /* empty rows interleaved, and no nonzeros at all */
    for (int i = 0; i < 777; ++i) len[i] = (i % 4 == 1) ? 0 : 1 + (i * 7) % 40;
    a = matrix_from_lengths(777, 777, len, 3); check_matrix(a, "777 rows, every 4th empty"); hs_csr_destroy(&a);
    for (int i = 0; i < 300; ++i) len[i] = 0;
    a = matrix_from_lengths(300, 300, len, 4); check_matrix(a, "no nonzeros"); hs_csr_destroy(&a);
    /* a single row, and one row of 12000 among short ones (a block chunk of many windows) */
    len[0] = 3000;
    a = matrix_from_lengths(1, 5000, len, 5); check_matrix(a, "1 row of 3000"); hs_csr_destroy(&a);
    for (int i = 0; i < 20000; ++i) len[i] = 5 + i % 11;
    len[777] = 12000;
    a = matrix_from_lengths(20000, 20000, len, 6); check_matrix(a, "20000 rows, one of 12000"); hs_csr_destroy(&a);
    HS_TEST_RETURN();
}
