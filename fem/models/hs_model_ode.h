/**
 * @file hs_model_ode.h
 * @brief The nodal form of the ionic models, for the operator-splitting scheme: every model's
 * hs_model_rhs_<id> (its header from hs_model_list.h, both kinds of line), the dispatch on the
 * model id, and the substep that advances one node's ODEs (Rush-Larsen for the gates, forward
 * Euler for the rest). The CPU backend and the CUDA nodal kernel run the same source.
 *
 * The nodal form of a model with potential u and variables s[0..n_vars):
 *   du/dt = f(u, s) + stim (+ diffusion, the other half of the splitting)
 *   ds_k/dt = (a_k - s_k)/tau_k   when tau_k > 0 (a gate: a_k its steady state, tau_k its time constant)
 *   ds_k/dt = a_k                 when tau_k == 0 (any other variable: a_k its derivative)
 * with f, a and tau functions of (u, s), in model units (u as the model defines it, time in
 * time_unit ms). The signature, for a model with parameters p (hs_model_params.v order):
 *   HS_HD void hs_model_rhs_<id>(const double *p, double u, const double *s, double *f, double *a, double *tau)
 * A variable is a gate in every state (tau_k > 0 always, or 0 always) and its descriptor's
 * hs_model_var.gate says which (tests/fem/models/test_models.c checks both agree).
 *
 * Switches (Heaviside functions of u in Mitchell-Schaeffer and Bueno-Orovio) are evaluated at the
 * substep's starting u, as the implicit scheme evaluates them at the step's starting u.
 */
#ifndef HS_MODEL_ODE_H
#define HS_MODEL_ODE_H

#include <math.h>

#include "hs_model.h"

/* The models' kernels (HS_HD inline). */
#define HS_MODEL_INCLUDE_HEADERS
#include "hs_model_list.h"
#undef HS_MODEL_INCLUDE_HEADERS

/**
 * @brief The nodal form of whichever model @p p names (file comment).
 * @param[in] p model and parameters; @param[in] u potential; @param[in] s [n_vars] variables;
 * @param[out] f ionic term; @param[out] a, tau [n_vars] per variable (file comment).
 * @return 0, or -1 when @p p names no model of this build.
 */
HS_HD int hs_model_rhs(const hs_model_params *p, double u, const double *s, double *f, double *a, double *tau)
{
    switch (p->id) {
#define HS_MODEL(id) \
    case HS_MODEL_ID_##id: hs_model_rhs_##id(p->v, u, s, f, a, tau); return 0;
#include "hs_model_list.h"
#undef HS_MODEL
    default:
        *f = 0.0;
        return -1;
    }
}

/**
 * @brief Advance the variables of one node over @p h from the nodal form's values at the substep's
 * start (@p a, @p tau from hs_model_rhs at (u, s)): a gate by Rush-Larsen (Rush & Larsen 1978,
 * x = a + (x - a) exp(-h/tau): exact for u frozen over the substep), any other variable by forward
 * Euler. The potential's own update, u += h (f + stim), is the caller's (it owns the stimulus).
 * @param[in] n variables; @param[in,out] s [n]; @param[in] a, tau [n]; @param[in] h substep, model units.
 * @return 1 when every updated variable is finite, 0 otherwise.
 */
HS_HD int hs_model_ode_vars(int n, double *s, const double *a, const double *tau, double h)
{
    int ok = 1;
    for (int k = 0; k < n; ++k) {
        s[k] = tau[k] > 0.0 ? a[k] + (s[k] - a[k]) * exp(-h / tau[k]) : s[k] + h * a[k];
        ok &= isfinite(s[k]) ? 1 : 0;
    }
    return ok;
}

#endif
