/**
 * @file hs_models.h
 * @brief The registry of ionic models (fem/models/hs_model_list.h) and helpers over a model's
 * parameter table. Host code only; kernels use hs_model_point.h.
 */
#ifndef HS_MODELS_H
#define HS_MODELS_H

#include <string.h>

#include "hs_model.h"
#include "hs_registry.h"
#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Number of models, and model @p i in list order (NULL out of range). */
int hs_models_count(void);
const hs_model *hs_models_at(int i);
/** @brief The model called @p name, or NULL. */
const hs_model *hs_models_find(const char *name);
/** @brief The model called @p name; unknown: HS_ERR_CONFIG `<key>: unknown ionic model "x"; available: ...`. */
hs_status hs_models_lookup(const char *key, const char *name, const hs_model **out);
/** @brief @p p = the model's id, variable count and default parameter values. */
void hs_model_params_defaults(const hs_model *m, hs_model_params *p);
/** @brief Position of parameter @p name in m->params, or -1. */
int hs_model_param_index(const hs_model *m, const char *name);

#ifdef __cplusplus
}
#endif
#endif
