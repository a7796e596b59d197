/**
 * @file hs_backend_select.h
 * @brief `solver.backend`: auto picks cuda when this build has it and a device is present, cpu
 * otherwise, and says which and why; cuda without a device (or without CUDA in the build) is an error.
 */
#ifndef HS_BACKEND_SELECT_H
#define HS_BACKEND_SELECT_H

#include "hs_backend.h"

hs_status hs_backend_select(const char *name, const hs_problem *prob, hs_backend **out);

#endif
