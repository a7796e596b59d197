/**
 * @file hs_dist_split.h
 * @brief The splitting scheme (solver.scheme = "splitting", fem/hs_splitting.h) of the cuda backend
 * on one rank's partition of several (backends/cuda/dist_split.cu, built with CUDA and MPI): bound by
 * the cuda backend's partition ops (dist_gpu.cu) to the inner backend, whose react then runs on the
 * owned nodes and whose diffuse is collective over the device comm. Plain C, no CUDA type.
 */
#ifndef HS_DIST_SPLIT_H
#define HS_DIST_SPLIT_H

#include <stdint.h>

#include "hs_backend.h"
#include "hs_cuda_comm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hs_cu_dist_split hs_cu_dist_split;

/**
 * @brief Make the inner cuda backend @p b (created on a rank's local problem under the splitting
 * scheme, its CG over the owned rows already: hs_gpu_cg_set_dist) run the scheme on its partition of
 * @p n_owned owned nodes: its ops table is replaced by one whose diffuse exchanges the halo and sums
 * over @p comm (borrowed; outlives the binding), and its reaction skips the ghosts. Until
 * hs_cu_dist_split_unbind, which puts the serial ops back.
 */
hs_status hs_cu_dist_split_bind(hs_backend *b, hs_cuda_comm *comm, int32_t n_owned, hs_cu_dist_split **out);
/** @brief The serial ops back; accepts NULL, sets *d = NULL. Before the backend is destroyed. */
void hs_cu_dist_split_unbind(hs_cu_dist_split **d);

#ifdef __cplusplus
}
#endif
#endif
