/**
 * @file hs_element_ct.cuh
 * @brief Private to backends/cuda/ (CUDA-only header): the split element's local update with the ionic
 * model a compile-time constant, shared by the element kernel (element.cu) and the persistent time
 * step (step_persistent.cu), so both run the same arithmetic.
 */
#ifndef HS_ELEMENT_CT_CUH
#define HS_ELEMENT_CT_CUH

#include "hs_element.h"

/* The model's local update with the model a compile-time constant (ID: hs_model_id): hs_model_point's
 * switch reduced to one case, so the kernel of one model does not carry the registers of the others
 * (k_element_split for Aliev-Panfilov: 78 registers on sm_90 with the three models' code, 58 with its
 * own; 128-thread blocks: 6 against 8 resident per SM). ID < 0: the run-time dispatch. */
template <int ID>
__device__ __forceinline__ int model_point_ct(const hs_model_params *p, double u_n, double u, double dt,
                                              const double *s_n, double *s, double *f, double *dfdu)
{
#define HS_MODEL(id)                                                                                       \
    if constexpr (ID == (int)HS_MODEL_ID_##id)                                                            \
        return hs_model_point_##id(p->v, p->gates, u_n, u, dt, s_n, s, f, dfdu);
#include "hs_model_list.h"
#undef HS_MODEL
    return hs_model_point(p, u_n, u, dt, s_n, s, f, dfdu);
}

/* hs_element_point (fem/hs_element.h) with model_point_ct: the same centroid and scalars */
template <int ID>
__device__ __forceinline__ int element_point_ct(const hs_model_params *p, double dt, double vol, const double phi[4],
                                                const double phin[4], double stim, const double *s_n, double *s,
                                                double *km, double *rm)
{
    const double phic = hs_element_centroid(phi), phinc = hs_element_centroid(phin);
    double f = 0.0, df = 0.0;
    const int it = model_point_ct<ID>(p, phinc, phic, dt, s_n, s, &f, &df);
    hs_element_scalars(dt, vol, phic, phinc, stim, f, df, km, rm);
    return it;
}

#endif
