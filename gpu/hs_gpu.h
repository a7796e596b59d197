/**
 * @file hs_gpu.h
 * @brief The C face of gpu/: device probing and the CUDA backend. No CUDA type appears here.
 */
#ifndef HS_GPU_H
#define HS_GPU_H

#include <stddef.h>

#include "hs_backend.h"
#include "hs_spmv.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Number of usable CUDA devices (0 when none). name gets device 0's name and compute
 * capability; why gets the reason when there is none (no driver, no device, ...).
 */
int hs_gpu_probe(char *name, size_t name_len, char *why, size_t why_len);

/**
 * @brief `solver.spmv = "auto"` on a GPU: time every registered kernel on @p pattern (median of
 * @p reps after warm-up) and return the fastest; @p report lists each kernel's time.
 */
hs_status hs_gpu_spmv_trial(const hs_csr *pattern, const hs_spmv_params *prm, int reps,
                            const hs_spmv_ops **best, char *report, size_t report_len);

/** @brief The CUDA backend: the whole time step resident on device 0. */
hs_status hs_backend_cuda_create(const hs_problem *prob, hs_backend **out);

#ifdef __cplusplus
}
#endif
#endif
