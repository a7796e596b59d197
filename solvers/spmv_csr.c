/*
 * CSR formats: csr_scalar (one row per thread) and csr_vector (one warp per row, Bell & Garland,
 * seed 000 section IV-A). Both keep the CSR arrays as they are (slot k = nonzero k); they differ in
 * the order the device sums a row, and each CPU reference sums in that same order, so the GPU result
 * can be compared with its own reference to round-off of the final reduction only.
 */
#include <stdlib.h>
#include <string.h>

#include "hs_spmv.h"
#include "hs_util.h"
#include "spmv_csr_layout.h"

/* The layout keeps borrowed CSR pattern arrays copied (the pattern may be freed by the caller). */
typedef struct csr_impl {
    int32_t *row_ptr; /* [n_rows+1] */
    int32_t *col;     /* [nnz] */
} csr_impl;

hs_status hs_spmv_csr_layout_setup(const hs_csr *pat, hs_spmv_layout *lay)
{
    csr_impl *im = NULL;
    HS_CALL(HS_ALLOC(im, 1, "CSR layout"));
    lay->impl = im;
    HS_CALL(HS_ALLOC(im->row_ptr, (size_t)pat->n_rows + 1, "CSR layout row pointers"));
    HS_CALL(HS_ALLOC(im->col, pat->nnz, "CSR layout columns"));
    HS_CALL(HS_ALLOC(lay->slot_of_nnz, pat->nnz, "CSR slot map"));
    memcpy(im->row_ptr, pat->row_ptr, sizeof(int32_t) * ((size_t)pat->n_rows + 1));
    memcpy(im->col, pat->col, sizeof(int32_t) * (size_t)pat->nnz);
    for (int32_t k = 0; k < pat->nnz; ++k) lay->slot_of_nnz[k] = k;
    lay->n_slots = pat->nnz;
    return HS_OK;
}

void hs_spmv_csr_layout_destroy(hs_spmv_layout *lay)
{
    csr_impl *im = lay->impl;
    if (!im) return;
    free(im->row_ptr);
    free(im->col);
    free(im);
    lay->impl = NULL;
}

/* Both references are written once for each value type V (double, float) by the macros below: a
 * float value is widened to double before its product, as the device kernels do. */

/* csr_scalar: a thread runs through its row in order. Rows [lo, hi): a partition multiplies its
 * interior rows while the halo travels, then its boundary rows (hs_spmv_ops.apply_rows_ref); the
 * whole matrix is rows [0, n_rows). */
#define CSR_ROWWISE(name, V)                                                                          \
    static void name(const hs_spmv_layout *lay, const V *v, int32_t lo, int32_t hi, const double *x,  \
                     double *y)                                                                       \
    {                                                                                                 \
        const csr_impl *im = lay->impl;                                                               \
        _Pragma("omp parallel for schedule(static) if (hi - lo > HS_OMP_MIN)")                        \
        for (int32_t i = lo; i < hi; ++i) {                                                           \
            double s = 0.0;                                                                           \
            for (int32_t k = im->row_ptr[i]; k < im->row_ptr[i + 1]; ++k)                             \
                s += (double)v[k] * x[im->col[k]];                                                    \
            y[i] = s;                                                                                 \
        }                                                                                             \
    }
CSR_ROWWISE(csr_rows, double)
CSR_ROWWISE(csr_rows_f32, float)
#undef CSR_ROWWISE

void hs_spmv_csr_layout_apply_rowwise(const hs_spmv_layout *lay, const double *v, const double *x, double *y)
{
    csr_rows(lay, v, 0, lay->n_rows, x, y);
}

static void csr_rowwise_f32(const hs_spmv_layout *lay, const float *v, const double *x, double *y)
{
    csr_rows_f32(lay, v, 0, lay->n_rows, x, y);
}

/* csr_vector: lane l of the warp sums entries l, l+32, ...; then a butterfly (xor-shuffle) tree
 * 16, 8, 4, 2, 1 combines the lanes and lane 0 holds the row sum. For lane 0 the butterfly performs
 * exactly the additions of an in-place halving (s[l] += s[l + off] for l < off), which is what runs
 * here: same operands, same order, so the device result is reproduced bit for bit (FMA aside). */
#define CSR_VECTOR(name, V)                                                                           \
    static void name(const hs_spmv_layout *lay, const V *v, int32_t lo, int32_t hi, const double *x,  \
                     double *y)                                                                       \
    {                                                                                                 \
        const csr_impl *im = lay->impl;                                                               \
        _Pragma("omp parallel for schedule(static) if (hi - lo > HS_OMP_MIN)")                        \
        for (int32_t i = lo; i < hi; ++i) {                                                           \
            double lane[32] = {0};                                                                    \
            int32_t rlo = im->row_ptr[i], rhi = im->row_ptr[i + 1];                                   \
            for (int32_t k = rlo; k < rhi; ++k) lane[(k - rlo) & 31] += (double)v[k] * x[im->col[k]]; \
            for (int off = 16; off > 0; off >>= 1)                                                    \
                for (int l = 0; l < off; ++l) lane[l] += lane[l + off];                               \
            y[i] = lane[0];                                                                           \
        }                                                                                             \
    }
CSR_VECTOR(csr_vector_rows, double)
CSR_VECTOR(csr_vector_rows_f32, float)
#undef CSR_VECTOR

static void csr_vector_apply(const hs_spmv_layout *lay, const double *v, const double *x, double *y)
{
    csr_vector_rows(lay, v, 0, lay->n_rows, x, y);
}

static void csr_vector_apply_f32(const hs_spmv_layout *lay, const float *v, const double *x, double *y)
{
    csr_vector_rows_f32(lay, v, 0, lay->n_rows, x, y);
}

const hs_spmv_ops hs_spmv_ops_csr_scalar = {
    .name = "csr_scalar",
    .summary = "CSR, one thread per row",
    .seed = "seed 000 sec. IV-A (scalar CSR of Bell & Garland)",
    .needs_device = 0,
    .setup = hs_spmv_csr_layout_setup,
    .apply_ref = hs_spmv_csr_layout_apply_rowwise,
    .apply_ref_f32 = csr_rowwise_f32,
    .apply_rows_ref = csr_rows,
    .apply_rows_ref_f32 = csr_rows_f32,
    .destroy = hs_spmv_csr_layout_destroy,
};

const hs_spmv_ops hs_spmv_ops_csr_vector = {
    .name = "csr_vector",
    .summary = "CSR, one warp per row with a shuffle reduction",
    .seed = "seed 000 sec. IV-A (vector CSR of Bell & Garland)",
    .needs_device = 0,
    .setup = hs_spmv_csr_layout_setup,
    .apply_ref = csr_vector_apply,
    .apply_ref_f32 = csr_vector_apply_f32,
    .apply_rows_ref = csr_vector_rows,
    .apply_rows_ref_f32 = csr_vector_rows_f32,
    .destroy = hs_spmv_csr_layout_destroy,
};
