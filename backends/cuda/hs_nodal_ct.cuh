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

#include <type_traits>

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

/* The fused substep hs_model_substep_<id> (the nodal form and the variables' update in one pass, so each
 * variable is updated as soon as its terms are known: scripts/cellml/generate.py writes it for every model
 * generated from CellML). A model without one (the hand-written ones) finds this never-defined overload
 * instead, whose return type says so; overload resolution prefers the model's own function. */
struct hs_no_substep {
};
#define HS_MODEL(id) \
    template <class... A> __device__ hs_no_substep hs_model_substep_##id(A...);
#include "hs_model_list.h"
#undef HS_MODEL

/* true when model ID has a fused substep */
template <int ID>
__device__ constexpr bool model_has_substep_ct()
{
#define HS_MODEL(id) \
    if constexpr (ID == (int)HS_MODEL_ID_##id) \
        return !std::is_same<decltype(hs_model_substep_##id((const double *)0, 0.0, (const double *)0, 0.0, \
                                                            (double *)0, (double *)0)), hs_no_substep>::value;
#include "hs_model_list.h"
#undef HS_MODEL
    return false;
}

/* the fused substep of model ID (only called when model_has_substep_ct<ID>()) */
template <int ID>
__device__ __forceinline__ void model_substep_ct(const double *v, double u, const double *s, double h, double *f,
                                                 double *sn)
{
#define HS_MODEL(id) \
    if constexpr (ID == (int)HS_MODEL_ID_##id) hs_model_substep_##id(v, u, s, h, f, sn);
#include "hs_model_list.h"
#undef HS_MODEL
}

/**
 * @brief hs_model_ode_vars (fem/models/hs_model_ode.h) with the variable count a compile-time constant and
 * the loop unrolled: the same expression per variable, so the same arithmetic as the host reference, but
 * every index is a constant, so s, a and tau stay in registers. hs_model_ode_vars's loop over a run-time
 * count is not unrolled by nvcc for the large models (40 iterations with an exp each), and its arrays
 * indexed by the loop counter then live in local memory: O'Hara-Rudy's kernel had a 1104-byte stack frame
 * (s, a, tau: 3 x 40 doubles) besides its register spills (docs/benchmarks.md, issue 29).
 */
template <int NV>
__device__ __forceinline__ int ode_vars_ct(double *s, const double *a, const double *tau, double h)
{
    int ok = 1;
#pragma unroll
    for (int k = 0; k < NV; ++k) {
        s[k] = tau[k] > 0.0 ? a[k] + (s[k] - a[k]) * exp(-h / tau[k]) : s[k] + h * a[k];
        ok &= isfinite(s[k]) ? 1 : 0;
    }
    return ok;
}

/**
 * @brief @p nsub substeps of length @p h (model units) of one node's ODEs, the potential @p u and the
 * model's NV variables @p s held in registers: per substep the nodal form at the substep's start,
 * Rush-Larsen for the gates and forward Euler for the rest (ode_vars_ct: hs_model_ode_vars unrolled), then
 * u += h (f + stim) with @p stim the node's stimulus current (model units). The host reference is the
 * same source (HS_HD); the device may contract a multiply and an add into one rounding.
 * @p ONE: the caller guarantees @p nsub == 1, so there is no loop. With a loop the compiler hoists every
 * parameter-only expression (a model's derived constants) out of it and keeps them in registers across the
 * substeps: O'Hara-Rudy's kernel then needs 255 registers and spills, without the loop 184 and none
 * (docs/benchmarks.md, issue 29).
 * @return 1 when every value stayed finite, 0 otherwise (the step is then refused by the caller).
 */
template <int ID, bool ONE = false>
__device__ __forceinline__ int nodal_ode_ct(const double *v, double &u, double *s, double stim, double h, int nsub)
{
    constexpr int NV = model_ct<ID>::nv;
    int ok = 1;
    const int ns = ONE ? 1 : nsub;
    for (int k = 0; k < ns; ++k) {
        double f = 0.0;
        if constexpr (model_has_substep_ct<ID>()) {
            double sn[NV > 0 ? NV : 1];
            model_substep_ct<ID>(v, u, s, h, &f, sn);
#pragma unroll
            for (int j = 0; j < NV; ++j) {
                s[j] = sn[j];
                ok &= isfinite(sn[j]) ? 1 : 0;
            }
        } else {
            double a[NV > 0 ? NV : 1], tau[NV > 0 ? NV : 1];
            model_rhs_ct<ID>(v, u, s, &f, a, tau);
            ok &= ode_vars_ct<NV>(s, a, tau, h);
        }
        u += h * (f + stim);
    }
    return ok & (isfinite(u) ? 1 : 0);
}

#endif
