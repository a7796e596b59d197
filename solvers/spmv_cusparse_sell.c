/*
 * cusparse_sell: the vendor's ELL-family baseline, cuSPARSE's generic SpMV on a sliced ELLPACK
 * matrix with 32 rows per slice (SELL-32; device side in gpu/spmv_cusparse_sell.cu). Built only
 * with CUDA (listed under HS_HAS_CUDA). Sliced ELL is the padding-per-slice idea that seed 002's
 * ELL-WARP K1 (sec. 5.1) also uses, without ELL-WARP's sorting of rows by length; heartsim's rows
 * are RCM-ordered, so neighbouring rows have similar lengths and the padding stays small.
 *
 * Layout (solvers/spmv_sell_layout.h): slice s holds rows 32 s .. 32 s + 31, column-major, as wide
 * as its longest row; entry j of row i is CSR entry row_ptr[i] + j; padding has column -1 and
 * value 0. The slot map places CSR nonzero k of row i = 32 s + r at slice_off[s] + 32 j + r.
 *
 * CPU reference: each row summed over its entries j = 0, 1, ... in CSR order, padding skipped.
 * That is the order a one-thread-per-row SELL kernel follows; cuSPARSE does not document its
 * order, so the device result is related to this reference only by the bound 2 gamma_m (|A||x|)_i.
 */
#include <limits.h>
#include <stdlib.h>

#include "hs_spmv.h"
#include "hs_util.h"
#include "spmv_sell_layout.h"

static hs_status sell_setup(const hs_csr *pat, hs_spmv_layout *lay)
{
    const int32_t n = pat->n_rows;
    HS_CHECK(n >= 0 && pat->nnz >= 0, HS_ERR_INTERNAL, "cusparse_sell: negative matrix size");
    hs_sell_layout *im = NULL;
    HS_CALL(HS_ALLOC(im, 1, "SELL layout"));
    lay->impl = im;
    im->n_slices = (int32_t)(((int64_t)n + HS_SELL_SLICE - 1) / HS_SELL_SLICE);
    HS_CALL(HS_ALLOC(im->slice_off, (size_t)im->n_slices + 1, "SELL slice offsets"));

    /* Slice widths, summed in 64 bits: the slot count must fit cuSPARSE's 32-bit offsets. */
    int64_t total = 0;
    for (int32_t s = 0; s < im->n_slices; ++s) {
        im->slice_off[s] = (int32_t)total;
        int32_t w = 0;
        const int32_t r1 = (int32_t)((int64_t)(s + 1) * HS_SELL_SLICE < n ? (s + 1) * HS_SELL_SLICE : n);
        for (int32_t i = s * HS_SELL_SLICE; i < r1; ++i) {
            const int32_t len = pat->row_ptr[i + 1] - pat->row_ptr[i];
            if (len > w) w = len;
        }
        if (w > im->max_width) im->max_width = w;
        total += (int64_t)w * HS_SELL_SLICE;
        HS_CHECK(total <= INT32_MAX, HS_ERR_MESH,
                 "cusparse_sell: the SELL-32 layout of this %d-row matrix needs more than 2^31-1 value "
                 "slots (%lld by slice %d): too large for 32-bit slice offsets; use cusparse_csr",
                 (int)n, (long long)total, (int)s);
    }
    im->slice_off[im->n_slices] = (int32_t)total;
    lay->n_slots = total;

    HS_CALL(HS_ALLOC(im->col, total, "SELL column indices"));
    HS_CALL(HS_ALLOC(lay->slot_of_nnz, pat->nnz, "SELL slot map"));
    for (int64_t q = 0; q < total; ++q) im->col[q] = -1;
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
    for (int32_t i = 0; i < n; ++i) {
        const int32_t s = i / HS_SELL_SLICE, r = i % HS_SELL_SLICE;
        const int64_t base = (int64_t)im->slice_off[s] + r;
        for (int32_t k = pat->row_ptr[i]; k < pat->row_ptr[i + 1]; ++k) {
            const int64_t slot = base + (int64_t)HS_SELL_SLICE * (k - pat->row_ptr[i]);
            im->col[slot] = pat->col[k];
            lay->slot_of_nnz[k] = slot;
        }
    }
    return HS_OK;
}

static void sell_destroy(hs_spmv_layout *lay)
{
    hs_sell_layout *im = lay->impl;
    if (!im) return;
    free(im->slice_off);
    free(im->col);
    free(im);
    lay->impl = NULL;
}

/* Row i: entries j = 0 .. w_s - 1 of its slice in order, padding (column -1) skipped. */
static void sell_apply_ref(const hs_spmv_layout *lay, const double *v, const double *x, double *y)
{
    const hs_sell_layout *im = lay->impl;
#pragma omp parallel for schedule(static) if (lay->n_rows > HS_OMP_MIN)
    for (int32_t i = 0; i < lay->n_rows; ++i) {
        const int32_t s = i / HS_SELL_SLICE, r = i % HS_SELL_SLICE;
        const int32_t w = (im->slice_off[s + 1] - im->slice_off[s]) / HS_SELL_SLICE;
        const int64_t base = (int64_t)im->slice_off[s] + r;
        double sum = 0.0;
        for (int32_t j = 0; j < w; ++j) {
            const int64_t q = base + (int64_t)HS_SELL_SLICE * j;
            const int32_t c = im->col[q];
            if (c < 0) break; /* a row's padding comes after all of its entries */
            sum += v[q] * x[c];
        }
        y[i] = sum;
    }
}

const hs_spmv_ops hs_spmv_ops_cusparse_sell = {
    .name = "cusparse_sell",
    .summary = "cuSPARSE generic SpMV on sliced ELL (SELL-32, SELL_ALG1)",
    .seed = "none (vendor ELL-family baseline for seed 002 sec. 5 ELL-WARP)",
    .needs_device = 1,
    .setup = sell_setup,
    .apply_ref = sell_apply_ref,
    .destroy = sell_destroy,
};
