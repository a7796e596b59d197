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

/* one substep of one node (hs_split_react_node's arithmetic): the fused substep of a model that has one,
 * else the nodal form then ode_vars_ct; u += h (f + stim). 1 when every variable stayed finite. */
template <int ID>
__device__ __forceinline__ int substep_ct(const double *v, double &u, double *s, double stim, double h)
{
    constexpr int NV = model_ct<ID>::nv;
    double f = 0.0;
    int ok = 1;
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
        ok = ode_vars_ct<NV>(s, a, tau, h);
    }
    u += h * (f + stim);
    return ok;
}

/* @p nsub > 1 substeps, not inlined into the kernel: inside a loop the compiler hoists every
 * parameter-only expression (a model's derived constants) out of it and holds them in registers for the
 * whole loop (O'Hara-Rudy: 255 registers and spills, against 168 for one substep), so the loop lives in
 * a function of its own and the kernel's one-substep path keeps its registers. @p s, @p u: the caller's
 * copies (their address is taken here, not the kernel's registers'). */
template <int ID>
__device__ __noinline__ int substeps_ct(const double *v, double *u, double *s, double stim, double h, int nsub)
{
    constexpr int NV = model_ct<ID>::nv;
    double x[NV > 0 ? NV : 1], uu = *u;
#pragma unroll
    for (int j = 0; j < NV; ++j) x[j] = s[j];
    int ok = 1;
    for (int k = 0; k < nsub; ++k) ok &= substep_ct<ID>(v, uu, x, stim, h);
#pragma unroll
    for (int j = 0; j < NV; ++j) s[j] = x[j];
    *u = uu;
    return ok;
}

/**
 * @brief @p nsub substeps of length @p h (model units) of one node's ODEs, the potential @p u and the
 * model's NV variables @p s held in registers: per substep the nodal form at the substep's start,
 * Rush-Larsen for the gates and forward Euler for the rest (hs_model_ode_vars; a CellML model's fused
 * hs_model_substep_<id>, the same expressions), then u += h (f + stim) with @p stim the node's stimulus
 * current (model units). The host reference is the same source (HS_HD); the device may contract a
 * multiply and an add into one rounding. One substep (dt_ode = dt, the common case) runs inline without
 * a loop; more run in substeps_ct (why there), with the parameters at @p vloop when given (the same
 * values in global memory: hs_nodal_launch.vdev), else at @p v.
 * @return 1 when every value stayed finite, 0 otherwise (the step is then refused by the caller).
 */
template <int ID>
__device__ __forceinline__ int nodal_ode_ct(const double *v, double &u, double *s, double stim, double h, int nsub,
                                            const double *vloop = nullptr)
{
    constexpr int NV = model_ct<ID>::nv;
    int ok;
    if (nsub == 1) {
        ok = substep_ct<ID>(v, u, s, stim, h);
    } else {
        double t[NV > 0 ? NV : 1], tu = u;
#pragma unroll
        for (int j = 0; j < NV; ++j) t[j] = s[j];
        ok = substeps_ct<ID>(vloop ? vloop : v, &tu, t, stim, h, nsub);
#pragma unroll
        for (int j = 0; j < NV; ++j) s[j] = t[j];
        u = tu;
    }
    return ok & (isfinite(u) ? 1 : 0);
}

#endif
