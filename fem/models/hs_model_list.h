/*
 * The ionic models: one line each, HS_MODEL(id), for the model in fem/models/<id>.h (its kernels
 * hs_model_point_<id>, its descriptor hs_model_<id> and its sizes HS_MODEL_NVARS_<id>,
 * HS_MODEL_NPARAMS_<id>), plus that header's #include in the block below. Expanded by hs_model.h (the ids, the kernel dispatch) and fem/models/models.c (the
 * registry). tests/fem/models/test_models.c checks every listed model.
 */
/*
 * Two kinds of line: HS_MODEL(id) for a model with both schemes (the nodal form hs_model_rhs_<id>
 * and the implicit local update hs_model_point_<id>), HS_MODEL_NODAL(id) for one with the nodal
 * form only (a model generated from CellML: scripts/cellml/). An expansion that wants every model
 * defines HS_MODEL only (HS_MODEL_NODAL then expands as HS_MODEL); one that needs
 * hs_model_point_<id> (the element kernels) also defines HS_MODEL_NODAL(id) as nothing.
 */
#ifndef HS_MODEL_NODAL
#define HS_MODEL_NODAL(id) HS_MODEL(id)
#define HS_MODEL_NODAL_DEFAULTED_
#endif
#ifdef HS_MODEL_INCLUDE_HEADERS
#include "aliev_panfilov.h"
#include "mitchell_schaeffer.h"
#include "bueno_orovio.h"
#include "ten_tusscher_2006_epi.h"
#include "ten_tusscher_2006_endo.h"
#include "ten_tusscher_2006_m.h"
#include "ohara_rudy_2011.h"
#include "courtemanche_1998.h"
#else
HS_MODEL(aliev_panfilov)
HS_MODEL(mitchell_schaeffer)
HS_MODEL(bueno_orovio)
HS_MODEL_NODAL(ten_tusscher_2006_epi)
HS_MODEL_NODAL(ten_tusscher_2006_endo)
HS_MODEL_NODAL(ten_tusscher_2006_m)
HS_MODEL_NODAL(ohara_rudy_2011)
HS_MODEL_NODAL(courtemanche_1998)
#endif
#ifdef HS_MODEL_NODAL_DEFAULTED_
#undef HS_MODEL_NODAL
#undef HS_MODEL_NODAL_DEFAULTED_
#endif
