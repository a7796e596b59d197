/*
 * cusparse_csr: the vendor baseline, cuSPARSE's generic SpMV on the CSR arrays as they are
 * (device side in gpu/spmv_cusparse.cu). Built only with CUDA (listed under HS_HAS_CUDA).
 * The layout is the CSR identity (slot k = nonzero k). cuSPARSE does not document its summation
 * order, so the CPU reference is the plain in-order row sum; the device result is checked against
 * it with the arithmetic bound 2 gamma_m (|A||x|)_i, m the row length, which holds for any order.
 */
#include "hs_spmv.h"
#include "spmv_csr_layout.h"

const hs_spmv_ops hs_spmv_ops_cusparse_csr = {
    .name = "cusparse_csr",
    .summary = "cuSPARSE generic SpMV on CSR (CSR_ALG2, deterministic), the vendor baseline",
    .seed = "none (vendor library baseline for the seed 000/002 kernels)",
    .needs_device = 1,
    .setup = hs_spmv_csr_layout_setup,
    .apply_ref = hs_spmv_csr_layout_apply_rowwise,
    .destroy = hs_spmv_csr_layout_destroy,
};
