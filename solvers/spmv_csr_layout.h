/*
 * Private to solvers/: the CSR identity layout (slot k = nonzero k) and the plain row-sum apply,
 * shared by the formats that keep the CSR arrays as they are (csr_scalar, csr_vector in
 * spmv_csr.c; cusparse_csr in spmv_cusparse.c). Not part of the public registry interface.
 */
#ifndef HS_SPMV_CSR_LAYOUT_H
#define HS_SPMV_CSR_LAYOUT_H

#include "hs_spmv.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Copy row_ptr/col of @p pat into lay->impl; slot map = identity, n_slots = nnz. */
hs_status hs_spmv_csr_layout_setup(const hs_csr *pat, hs_spmv_layout *lay);
/** @brief Free what hs_spmv_csr_layout_setup allocated in lay->impl. */
void hs_spmv_csr_layout_destroy(hs_spmv_layout *lay);
/** @brief y = A x, each row summed in order k = row_ptr[i] .. row_ptr[i+1]-1 (one thread per row). */
void hs_spmv_csr_layout_apply_rowwise(const hs_spmv_layout *lay, const double *v, const double *x,
                                      double *y);

#ifdef __cplusplus
}
#endif
#endif
