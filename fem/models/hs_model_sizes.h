/**
 * @file hs_model_sizes.h
 * @brief Compile-time sizes over the model list (hs_model_list.h), for tables sized by the models
 * of this build rather than by the interface's limits (HS_MODEL_MAX_PARAMS, HS_MODEL_MAX_VARS):
 * the config's generated keys (app/config_schema.c) and the persistent step's argument block
 * (backends/cuda/step_persistent.cu). C and C++.
 *
 * Every model header defines HS_MODEL_NVARS_<id> and HS_MODEL_NPARAMS_<id>; the assertions below
 * keep every listed model within the interface's limits (its descriptor's n_vars and n_params are
 * these macros: tests/fem/models/test_models.c).
 */
#ifndef HS_MODEL_SIZES_H
#define HS_MODEL_SIZES_H

#include "hs_model.h"

#define HS_MODEL_INCLUDE_HEADERS
#include "hs_model_list.h"
#undef HS_MODEL_INCLUDE_HEADERS

#ifdef __cplusplus
#define HS_MODEL_STATIC_ASSERT static_assert
#else
#define HS_MODEL_STATIC_ASSERT _Static_assert
#endif

#define HS_MODEL(id)                                                                                         \
    HS_MODEL_STATIC_ASSERT(HS_MODEL_NPARAMS_##id >= 0 && HS_MODEL_NPARAMS_##id <= HS_MODEL_MAX_PARAMS,        \
                           #id ": more parameters than HS_MODEL_MAX_PARAMS");                                  \
    HS_MODEL_STATIC_ASSERT(HS_MODEL_NVARS_##id >= 0 && HS_MODEL_NVARS_##id <= HS_MODEL_MAX_VARS,              \
                           #id ": more variables than HS_MODEL_MAX_VARS");
#include "hs_model_list.h"
#undef HS_MODEL

/** Sums over the list: every model's parameters, every model's variables. */
enum {
    HS_MODELS_N_PARAMS = 0
#define HS_MODEL(id) +HS_MODEL_NPARAMS_##id
#include "hs_model_list.h"
#undef HS_MODEL
    ,
    HS_MODELS_N_VARS = 0
#define HS_MODEL(id) +HS_MODEL_NVARS_##id
#include "hs_model_list.h"
#undef HS_MODEL
};

/** The most parameters of a listed model (at least 1): the size of a union of one array per model. */
typedef union hs_models_params_max {
#define HS_MODEL(id) char id[HS_MODEL_NPARAMS_##id > 0 ? HS_MODEL_NPARAMS_##id : 1];
#include "hs_model_list.h"
#undef HS_MODEL
} hs_models_params_max;
#define HS_MODELS_MAX_PARAMS ((int)sizeof(hs_models_params_max))

#endif
