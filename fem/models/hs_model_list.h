/*
 * The ionic models: one line each, HS_MODEL(id), for the model in fem/models/<id>.h (its kernels
 * hs_model_point_<id>, its descriptor hs_model_<id> and its sizes HS_MODEL_NVARS_<id>,
 * HS_MODEL_NPARAMS_<id>), plus that header's #include in the block below. Expanded by hs_model.h (the ids, the kernel dispatch) and fem/models/models.c (the
 * registry). tests/fem/models/test_models.c checks every listed model.
 */
#ifdef HS_MODEL_INCLUDE_HEADERS
#include "aliev_panfilov.h"
#include "mitchell_schaeffer.h"
#include "bueno_orovio.h"
#else
HS_MODEL(aliev_panfilov)
HS_MODEL(mitchell_schaeffer)
HS_MODEL(bueno_orovio)
#endif
