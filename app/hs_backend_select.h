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
/** @brief Create the chosen backend for @p prob. */
hs_status hs_backend_create_kind(int use_cuda, const hs_problem *prob, hs_backend **out);

#endif
