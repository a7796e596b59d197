/**
 * @file hs_nodal_ct.cuh
 * @brief Private to backends/cuda/ (CUDA-only header): the reaction half of the operator-splitting
 * scheme at one node with the ionic model a compile-time constant, shared by the nodal kernel
 * (nodal.cu) and the whole splitting step (split_step.cu), so both run the same arithmetic as the
 * CPU reference (fem/models/hs_model_ode.h: hs_model_rhs_<id>, then hs_model_ode_vars, then the
 * potential's forward-Euler update u += h (f + stim), in that order, every substep).
 */
#ifndef HS_NODAL_CT_CUH
#define HS_NODAL_CT_CUH

#include "hs_element_ct.cuh"
#include "hs_model_ode.h"

/* hs_model_rhs's switch reduced to model ID (every line of hs_model_list.h, nodal ones included) */
template <int ID>
__device__ __forceinline__ void model_rhs_ct(const double *v, double u, const double *s, double *f, double *a,
                                             double *tau)
{
#define HS_MODEL(id) \
    if constexpr (ID == (int)HS_MODEL_ID_##id) hs_model_rhs_##id(v, u, s, f, a, tau);
#include "hs_model_list.h"
#undef HS_MODEL
    static_assert(ID >= 0 && ID < (int)HS_MODEL_COUNT, "a model of hs_model_list.h");
}

/**
 * @brief @p nsub substeps of length @p h (model units) of one node's ODEs, the potential @p u and the
 * model's NV variables @p s held in registers: per substep the nodal form at the substep's start,
 * Rush-Larsen for the gates and forward Euler for the rest (hs_model_ode_vars), then
 * u += h (f + stim) with @p stim the node's stimulus current (model units). The host reference is the
 * same source (HS_HD); the device may contract a multiply and an add into one rounding.
 * @return 1 when every value stayed finite, 0 otherwise (the step is then refused by the caller).
 */
template <int ID>
__device__ __forceinline__ int nodal_ode_ct(const double *v, double &u, double *s, double stim, double h, int nsub)
{
    constexpr int NV = model_ct<ID>::nv;
    int ok = 1;
    for (int k = 0; k < nsub; ++k) {
        double f = 0.0, a[NV > 0 ? NV : 1], tau[NV > 0 ? NV : 1];
        model_rhs_ct<ID>(v, u, s, &f, a, tau);
        ok &= hs_model_ode_vars(NV, s, a, tau, h);
        u += h * (f + stim);
    }
    return ok & (isfinite(u) ? 1 : 0);
}

#endif
