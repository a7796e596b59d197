/**
 * @file hs_backend_select.h
 * @brief `solver.backend`: auto picks cuda when this build has it and a device is present, cpu
 * otherwise, and says which and why; cuda without a device (or without CUDA in the build) is an error.
 */
#ifndef HS_BACKEND_SELECT_H
#define HS_BACKEND_SELECT_H

#include "hs_backend.h"

/** @brief Decide the backend for a `solver.backend` value; *use_cuda = 1 for cuda. Logs the choice. */
hs_status hs_backend_choose(const char *name, int *use_cuda);
/**
 * @brief Resolve `solver.spmv` for the chosen backend. "auto" on cuda: a short timed trial of every
 * registered kernel on this mesh's matrix (the fastest wins); "auto" on cpu: csr_scalar. Any other
 * name: that kernel. Writes the reason (with the trial's times) to why.
 */
hs_status hs_spmv_choose(const char *name, int use_cuda, int with_dot, const hs_mesh *mesh,
                         const hs_spmv_params *prm, const hs_spmv_ops **out, char *why, size_t why_len);

/** @brief Create the chosen backend for @p prob. */
hs_status hs_backend_create_kind(int use_cuda, const hs_problem *prob, hs_backend **out);

#endif
