/**
 * @file hs_element_ct.cuh
 * @brief Private to backends/cuda/ (CUDA-only header): the element's local update with the ionic
 * model a compile-time constant, shared by the element kernels (element.cu) and the persistent time
 * step (step_persistent.cu), so both run the same arithmetic; and the model's parameters as those
 * kernels take them.
 */
#ifndef HS_ELEMENT_CT_CUH
#define HS_ELEMENT_CT_CUH

#include "hs_element.h"
#include "hs_model_sizes.h"

/* A model's sizes as compile-time constants: model_ct<ID>::nv variables, ::np parameters
 * (HS_MODEL_NVARS_<id>, HS_MODEL_NPARAMS_<id> of its header). */
template <int ID>
struct model_ct;
#define HS_MODEL(id)                                                                                       \
    template <>                                                                                            \
    struct model_ct<(int)HS_MODEL_ID_##id> {                                                               \
        static constexpr int nv = HS_MODEL_NVARS_##id, np = HS_MODEL_NPARAMS_##id;                         \
    };
#include "hs_model_list.h"
#undef HS_MODEL

/* The parameters a kernel of model ID takes by value: the gate scheme and the model's own np values,
 * not hs_model_params' HS_MODEL_MAX_PARAMS (2 KB of kernel arguments for Aliev-Panfilov's 7). Read
 * with compile-time indices, they stay in the constant bank of the kernel's arguments, as before. */
template <int ID>
struct prm_ct {
    int gates;
    double v[model_ct<ID>::np > 0 ? model_ct<ID>::np : 1];
};

/* prm_ct of the host's carrier: its first np values (host, at each launch) */
template <int ID>
inline prm_ct<ID> prm_ct_of(const hs_model_params &p)
{
    prm_ct<ID> q{};
    q.gates = p.gates;
    for (int k = 0; k < model_ct<ID>::np; ++k) q.v[k] = p.v[k];
    return q;
}

/* The model's local update with the model a compile-time constant (ID: hs_model_id): hs_model_point's
 * switch reduced to one case, so the kernel of one model does not carry the registers of the others
 * (k_element_split for Aliev-Panfilov: 78 registers on sm_90 with the three models' code, 58 with its
 * own; 128-thread blocks: 6 against 8 resident per SM). @p v: the model's parameters (prm_ct::v, or
 * the hs_model_params::v of a region row in global memory). */
template <int ID>
__device__ __forceinline__ int model_point_ct(const double *v, int gates, double u_n, double u, double dt,
                                              const double *s_n, double *s, double *f, double *dfdu)
{
#define HS_MODEL(id)                                                                                       \
    if constexpr (ID == (int)HS_MODEL_ID_##id) return hs_model_point_##id(v, gates, u_n, u, dt, s_n, s, f, dfdu);
#define HS_MODEL_NODAL(id) /* nodal form only: no element kernel */
#include "hs_model_list.h"
#undef HS_MODEL_NODAL
#undef HS_MODEL
    static_assert(ID >= 0 && ID < (int)HS_MODEL_COUNT, "a model of hs_model_list.h");
    return -1;
}

/* hs_element_point (fem/hs_element.h) with model_point_ct: the same centroid and scalars */
template <int ID>
__device__ __forceinline__ int element_point_ct(const double *v, int gates, double dt, double vol, const double phi[4],
                                                const double phin[4], double stim, const double *s_n, double *s,
                                                double *km, double *rm)
{
    const double phic = hs_element_centroid(phi), phinc = hs_element_centroid(phin);
    double f = 0.0, df = 0.0;
    const int it = model_point_ct<ID>(v, gates, phinc, phic, dt, s_n, s, &f, &df);
    hs_element_scalars(dt, vol, phic, phinc, stim, f, df, km, rm);
    return it;
}

/* hs_element_eval (fem/hs_element.h) with model_point_ct: the full Ke, Re */
template <int ID>
__device__ __forceinline__ int element_eval_ct(const double *v, int gates, double dt, double vol, const double kd[10],
                                               const double phi[4], const double phin[4], double stim,
                                               const double *s_n, double *s, double ke[16], double re[4])
{
    double km = 0.0, rm = 0.0;
    const int it = element_point_ct<ID>(v, gates, dt, vol, phi, phin, stim, s_n, s, &km, &rm);
    hs_element_full(km, rm, kd, phi, ke, re);
    return it;
}

#endif
