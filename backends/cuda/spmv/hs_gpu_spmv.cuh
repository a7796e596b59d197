/**
 * @file hs_gpu_spmv.cuh
 * @brief Device side of the SpMV registry (CUDA-only header, never included from C).
 *
 * Every format listed in solvers/hs_spmv_list.h has a `const hs_gpu_spmv_ops hs_gpu_spmv_ops_<id>`
 * in backends/cuda/spmv/<format>.cu. create() uploads the host layout's index arrays once and binds the
 * device value array (the format's slots, owned by the caller, refilled in place every Newton
 * iteration); apply() computes y = A x on a stream with no host synchronisation.
 */
#ifndef HS_GPU_SPMV_CUH
#define HS_GPU_SPMV_CUH

#include <cuda_runtime.h>

#include "hs_spmv.h"

struct hs_gpu_spmv_ops {
    const char *name;
    /** Upload @p lay (built from @p pattern) and bind d_vals [lay->n_slots] (borrowed). */
    hs_status (*create)(const hs_spmv_layout *lay, const hs_csr *pattern, const double *d_vals,
                        void **impl);
    /** y = A x; d_x and d_y have n_rows entries; asynchronous on @p stream. */
    hs_status (*apply)(void *impl, const double *d_x, double *d_y, cudaStream_t stream);
    void (*destroy)(void *impl);
    /** Optional (NULL: the format does not fuse): y = A x and, in the same pass, the dot product
     *  y . x into *d_result (device), summed in a fixed order (deterministic): each block writes its
     *  partial to d_part (at most @p max_parts blocks; the kernel grid-strides beyond), and the last
     *  block to finish (*d_ticket, 0 between launches) adds them up. Chronopoulos-Gear CG uses it
     *  for delta = (A u, u) (seed 004 ch. 4). @p d_gate (NULL: none): a device int read at the kernel's
     *  start; when it is not 0 every block returns at once, writing nothing (a CG whose graph body holds
     *  several iterations: the ones after the solve stopped; the flag is set by a kernel before this one,
     *  so it is uniform over the grid). */
    hs_status (*apply_dot)(void *impl, const double *d_x, double *d_y, double *d_part, int max_parts,
                           unsigned *d_ticket, double *d_result, const int *d_gate, cudaStream_t stream);
    /** Optional (NULL: float64 values only; then the host ops' apply_ref_f32 is NULL too): create with
     *  float32 values d_vals [lay->n_slots]; apply and apply_dot then read floats, widen each to
     *  double and form the products and sums in double, in the order of apply_ref_f32. */
    hs_status (*create_f32)(const hs_spmv_layout *lay, const hs_csr *pattern, const float *d_vals, void **impl);
    /** Optional (NULL: not offered; a format without apply_dot never offers it): apply_dot on a rank's
     *  local matrix, the dot y . x over rows [0, @p n_dot) only (the owned rows; the ghosts' incomplete
     *  rows behind them are multiplied as apply multiplies them and left out of the sum), the same
     *  partials, ticket and last-block sum (the distributed CG: backends/cuda/dist_pcg.cu). A separate
     *  kernel instantiation: apply_dot's code is unchanged. */
    hs_status (*apply_dot_rows)(void *impl, int32_t n_dot, const double *d_x, double *d_y, double *d_part,
                                int max_parts, unsigned *d_ticket, double *d_result, cudaStream_t stream);
};

/** Partials the reductions of the CG vector kernels and the separate dot pass use (their grid cap). */
#define HS_DOT_MAX_PARTS 1024

/** @brief Device ops of the registered format @p ops (the same position in solvers/hs_spmv_list.h),
 *  or NULL if it is no registered entry. */
const hs_gpu_spmv_ops *hs_gpu_spmv_of(const hs_spmv_ops *ops);

/** A bound device SpMV (ops + impl), with create/destroy. */
struct hs_gpu_spmv {
    const hs_gpu_spmv_ops *ops;
    void *impl;
};
hs_status hs_gpu_spmv_create(const hs_spmv_layout *lay, const hs_csr *pattern, const double *d_vals,
                             hs_gpu_spmv **out);
/** @brief As hs_gpu_spmv_create with values of precision @p v in @p d_vals (double or float). */
hs_status hs_gpu_spmv_create_values(const hs_spmv_layout *lay, const hs_csr *pattern, const void *d_vals,
                                    hs_matrix_values v, hs_gpu_spmv **out);
void hs_gpu_spmv_destroy(hs_gpu_spmv **p);
static inline hs_status hs_gpu_spmv_apply(hs_gpu_spmv *s, const double *d_x, double *d_y,
                                          cudaStream_t st)
{
    return s->ops->apply(s->impl, d_x, d_y, st);
}

#endif
