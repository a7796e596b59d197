/**
 * @file hs_model_point.h
 * @brief The kernel side of the ionic models: every model's HS_HD functions (its header from
 * hs_model_list.h) and hs_model_point, which dispatches on the model id. Included by the element
 * (fem/hs_element.h), so the CPU backend and the CUDA element kernel run the same source.
 */
#ifndef HS_MODEL_POINT_H
#define HS_MODEL_POINT_H

#include "hs_model.h"

/* The models' kernels (HS_HD inline) and, in models.c, their descriptors. */
#define HS_MODEL_INCLUDE_HEADERS
#include "hs_model_list.h"
#undef HS_MODEL_INCLUDE_HEADERS

/**
 * @brief The local update at one integration point, for whichever model @p p names: backward Euler
 * for the model's variables with the potential @p u held fixed, then the ionic term and its
 * consistent derivative, its gates (if any) by the scheme p->gates names.
 * @param[in] p model, parameters and gate scheme; @param[in] u_n potential at the point at the start
 * of the step (where models with switches evaluate them); @param[in] u potential at the point; @param[in] dt step, model
 * units; @param[in] s_n [n_vars] converged variables of the previous step; @param[in,out] s [n_vars]
 * iterate in, solution out; @param[out] f ionic term f(u, s); @param[out] dfdu its consistent
 * derivative ∂f/∂u + ∂f/∂s ds/du.
 * @return iterations of the local solve, or -1 when it failed (non-finite or no convergence).
 */
HS_HD int hs_model_point(const hs_model_params *p, double u_n, double u, double dt, const double *s_n, double *s,
                         double *f, double *dfdu)
{
    switch (p->id) {
#define HS_MODEL(id) \
    case HS_MODEL_ID_##id: return hs_model_point_##id(p->v, p->gates, u_n, u, dt, s_n, s, f, dfdu);
#define HS_MODEL_NODAL(id) /* nodal form only: no local update (solver.scheme refuses "newton") */
#include "hs_model_list.h"
#undef HS_MODEL_NODAL
#undef HS_MODEL
    default: /* not a model of this build */
        *f = 0.0;
        *dfdu = 0.0;
        return -1;
    }
}

#endif
