/*
 * pcsr_hegao: the PCSR of He & Gao (seed 001 sec. 3), host side. The format keeps CSR intact
 * (the paper's point: "a novel SpMV implementation on a GPU, which keeps CSR intact"), so the
 * layout is the CSR identity (slot k = nonzero k, n_slots = nnz) and all the work is in the two
 * device kernels (gpu/spmv_pcsr_hegao.cu):
 *   kernel 1 (Algorithm 2): v[k] = data[k] * x[indices[k]], one thread per nonzero, fully coalesced;
 *   kernel 2 (Algorithm 3): a block of TB rows loads its contiguous chunk v[ptr[r0] .. ptr[r0+TB])
 *   into shared memory window by window and thread t sums row r0+t from there.
 * Row sums on the device: the products are rounded when stored to v (no FMA is possible across
 * the middle array), then each row is added in order k = ptr[i] .. ptr[i+1]-1 starting from 0.0,
 * across however many shared-memory windows the block needs (a window boundary only moves the
 * running sum from one window's loop to the next). The CPU reference below does exactly that, so
 * device and reference agree bit for bit (this file is C11, where GCC does not contract a*b + c).
 */
#include <stdlib.h>
#include <string.h>

#include "hs_spmv.h"
#include "hs_util.h"

/* The pattern arrays, copied (the caller may free the pattern after setup). */
typedef struct hegao_impl {
    int32_t *row_ptr; /* [n_rows+1] */
    int32_t *col;     /* [nnz] */
} hegao_impl;

static void hegao_destroy(hs_spmv_layout *lay)
{
    hegao_impl *im = lay->impl;
    if (!im) return;
    free(im->row_ptr);
    free(im->col);
    free(im);
    lay->impl = NULL;
}

static hs_status hegao_setup(const hs_csr *pat, hs_spmv_layout *lay)
{
    const int b = lay->params.block_size;
    /* Algorithm 3 gives each block threadsPerBlock rows; kernel 1 uses the same block size. */
    HS_CHECK(b >= 32 && b <= 1024 && b % 32 == 0, HS_ERR_CONFIG,
             "spmv.block_size = %d is not a multiple of 32 in [32, 1024] (pcsr_hegao)", b);
    HS_CHECK(pat->n_rows >= 0 && pat->nnz >= 0 && pat->row_ptr[0] == 0 &&
                 pat->row_ptr[pat->n_rows] == pat->nnz,
             HS_ERR_INTERNAL, "pcsr_hegao: malformed CSR pattern (%d rows, %d nonzeros)",
             (int)pat->n_rows, (int)pat->nnz);
    hegao_impl *im = NULL;
    HS_CALL(HS_ALLOC(im, 1, "PCSR (He & Gao) layout"));
    lay->impl = im; /* from here on, a failure is cleaned up by hegao_destroy */
    HS_CALL(HS_ALLOC(im->row_ptr, (size_t)pat->n_rows + 1, "PCSR (He & Gao) row pointers"));
    HS_CALL(HS_ALLOC(im->col, (size_t)pat->nnz, "PCSR (He & Gao) columns"));
    HS_CALL(HS_ALLOC(lay->slot_of_nnz, (size_t)pat->nnz, "PCSR (He & Gao) slot map"));
    memcpy(im->row_ptr, pat->row_ptr, sizeof(int32_t) * ((size_t)pat->n_rows + 1));
    memcpy(im->col, pat->col, sizeof(int32_t) * (size_t)pat->nnz);
    for (int32_t k = 0; k < pat->nnz; ++k) lay->slot_of_nnz[k] = k;
    lay->n_slots = pat->nnz;
    return HS_OK;
}

/* Kernel 1 then kernel 2, fused per row: p = v[k] * x[col[k]] is rounded (on the device it is
 * stored to the middle array), then added in order to a sum that starts at 0.0. */
static void hegao_apply(const hs_spmv_layout *lay, const double *v, const double *x, double *y)
{
    const hegao_impl *im = lay->impl;
#pragma omp parallel for schedule(static) if (lay->n_rows > HS_OMP_MIN)
    for (int32_t i = 0; i < lay->n_rows; ++i) {
        double sum = 0.0;
        for (int32_t k = im->row_ptr[i]; k < im->row_ptr[i + 1]; ++k) {
            const double p = v[k] * x[im->col[k]];
            sum += p;
        }
        y[i] = sum;
    }
}

const hs_spmv_ops hs_spmv_ops_pcsr_hegao = {
    .name = "pcsr_hegao",
    .summary = "PCSR (He & Gao): products into a middle array, then a shared-memory row reduction",
    .seed = "seed 001 sec. 3 (He & Gao PCSR, Algorithms 2 and 3)",
    .needs_device = 0,
    .setup = hegao_setup,
    .apply_ref = hegao_apply,
    .destroy = hegao_destroy,
};
