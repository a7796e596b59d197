/*
 * The element kernel of the CUDA backend (seed 002 sec. 2, Table 1): one thread per element runs the
 * ionic model's local update at the integration point and forms Ke and Re (hs_element_eval, the same
 * inline function as the CPU reference). One thread per element because the local Newton is
 * sequential per integration point and an element's work (~300 flops, 200 bytes for
 * Aliev-Panfilov) is too small to split; neighbouring threads read neighbouring element arrays,
 * coalesced. With heterogeneous tissue (HET, fem/hs_region.h) each thread reads its element's row of
 * the region table (2 bytes of row index per element; the few rows stay in L1/L2) and skips the
 * model in non-conducting elements; uniform tissue runs the HET = false instances, unchanged.
 * Two kernels, one per assembly method (fem/hs_assembly.h): k_element forms Ke and Re
 * (full), k_element_split only the element's two scalars km and rm (split).
 */
#include "cuda_backend.cuh"
#include "hs_element.h"
#include "hs_element_ct.cuh"

/* Layouts (cuda_backend.cuh): kd, ke [10][ne], re [4][ne], ipv, ipv_n [n_vars][ne]. The number of
 * the model's variables is a template parameter, NV = prm.n_vars, so that their local arrays are
 * indexed by compile-time constants only and stay in registers (a run-time bound costs ~30 more
 * registers per thread for Aliev-Panfilov: 112 instead of 82 on sm_90, lower occupancy). */
template <int NV, bool HET>
__global__ void k_element(int32_t ne, hs_model_params prm, const hs_region_row *__restrict__ rtab,
                          const uint16_t *__restrict__ etab, double dt, const int32_t *__restrict__ tets,
                          const double *__restrict__ vol, const double *__restrict__ kd,
                          const double *__restrict__ phi, const double *__restrict__ phin,
                          const double *__restrict__ stim_e, const double *__restrict__ ipv_n,
                          double *__restrict__ ipv, double *__restrict__ ke, double *__restrict__ re,
                          dev_scalars *sc)
{
    for (int32_t e = blockIdx.x * blockDim.x + threadIdx.x; e < ne; e += gridDim.x * blockDim.x) {
        int4 t = reinterpret_cast<const int4 *>(tets)[e];
        double ph[4] = {phi[t.x], phi[t.y], phi[t.z], phi[t.w]};
        double pn[4] = {phin[t.x], phin[t.y], phin[t.z], phin[t.w]};
        double kde[10], kel[16], rel[4];
#pragma unroll
        for (int q = 0; q < 10; ++q) kde[q] = kd[(int64_t)q * ne + e];
        double sn[NV > 0 ? NV : 1], sv[NV > 0 ? NV : 1];
#pragma unroll
        for (int k = 0; k < NV; ++k) {
            sn[k] = ipv_n[(int64_t)k * ne + e];
            sv[k] = ipv[(int64_t)k * ne + e];
        }
        int it;
        if (HET) { /* the element's row of the region table; a non-conducting row is a hole */
            const hs_region_row *row = &rtab[etab[e]];
            if (row->conducting) {
                it = hs_element_eval(&row->prm, dt, vol[e], kde, ph, pn, stim_e[e], sn, sv, kel, rel);
            } else {
                it = 0;
#pragma unroll
                for (int q = 0; q < 16; ++q) kel[q] = 0.0;
#pragma unroll
                for (int a = 0; a < 4; ++a) rel[a] = 0.0;
#pragma unroll
                for (int k = 0; k < NV; ++k) sv[k] = sn[k];
            }
        } else {
            it = hs_element_eval(&prm, dt, vol[e], kde, ph, pn, stim_e[e], sn, sv, kel, rel);
        }
        if (it < 0) atomicMin(&sc->bad_elem, (int)e); /* error flag only: the result is order-free */
#pragma unroll
        for (int k = 0; k < NV; ++k) ipv[(int64_t)k * ne + e] = sv[k];
#pragma unroll
        for (int a = 0; a < 4; ++a)
#pragma unroll
            for (int b = a; b < 4; ++b) ke[(int64_t)hs_sym4_index(a, b) * ne + e] = kel[4 * a + b];
#pragma unroll
        for (int a = 0; a < 4; ++a) re[(int64_t)a * ne + e] = rel[a];
    }
}

/* The split form: the model's update and km, rm ([ne] each); reads no Kd, writes 16 bytes. */
template <int NV, bool HET, int ID>
__global__ void k_element_split(int32_t ne, hs_model_params prm, const hs_region_row *__restrict__ rtab,
                                const uint16_t *__restrict__ etab, double dt, const int32_t *__restrict__ tets,
                                const double *__restrict__ vol, const double *__restrict__ phi,
                                const double *__restrict__ phin, const double *__restrict__ stim_e,
                                const double *__restrict__ ipv_n, double *__restrict__ ipv, double *__restrict__ km,
                                double *__restrict__ rm, dev_scalars *sc)
{
    for (int32_t e = blockIdx.x * blockDim.x + threadIdx.x; e < ne; e += gridDim.x * blockDim.x) {
        int4 t = reinterpret_cast<const int4 *>(tets)[e];
        double ph[4] = {phi[t.x], phi[t.y], phi[t.z], phi[t.w]};
        double pn[4] = {phin[t.x], phin[t.y], phin[t.z], phin[t.w]};
        double sn[NV > 0 ? NV : 1], sv[NV > 0 ? NV : 1];
#pragma unroll
        for (int k = 0; k < NV; ++k) {
            sn[k] = ipv_n[(int64_t)k * ne + e];
            sv[k] = ipv[(int64_t)k * ne + e];
        }
        double kme = 0.0, rme = 0.0;
        int it;
        if (HET) { /* the element's row of the region table; a non-conducting row is a hole */
            const hs_region_row *row = &rtab[etab[e]];
            if (row->conducting) {
                it = element_point_ct<ID>(&row->prm, dt, vol[e], ph, pn, stim_e[e], sn, sv, &kme, &rme);
            } else {
                it = 0;
#pragma unroll
                for (int k = 0; k < NV; ++k) sv[k] = sn[k];
            }
        } else {
            it = element_point_ct<ID>(&prm, dt, vol[e], ph, pn, stim_e[e], sn, sv, &kme, &rme);
        }
        if (it < 0) atomicMin(&sc->bad_elem, (int)e); /* error flag only: the result is order-free */
#pragma unroll
        for (int k = 0; k < NV; ++k) ipv[(int64_t)k * ne + e] = sv[k];
        km[e] = kme;
        rm[e] = rme;
    }
}

hs_status hs_cu_launch_element(cuda_impl *c, const hs_model_params *prm)
{
    static_assert(HS_MODEL_MAX_VARS == 8, "one case per number of model variables below");
    const int nb = nblocks(c->ne, 128);
    if (c->split) { /* the step's kernel: one instance per model of hs_model_list.h */
        switch (prm->id) {
#define HS_MODEL(id)                                                                                            \
    case HS_MODEL_ID_##id:                                                                                      \
        HS_CHECK(prm->n_vars == HS_MODEL_NVARS_##id, HS_ERR_INTERNAL, "model %s: %d variables, its kernel %d",  \
                 #id, prm->n_vars, HS_MODEL_NVARS_##id);                                                        \
        if (c->etab)                                                                                            \
            k_element_split<HS_MODEL_NVARS_##id, true, (int)HS_MODEL_ID_##id><<<nb, 128, 0, c->s>>>(            \
                c->ne, *prm, c->rtab, c->etab, c->dt, c->tets, c->vol, c->phi, c->phin, c->stim_e, c->ipv_n,    \
                c->ipv, c->km, c->rm, c->d_sc);                                                                 \
        else                                                                                                    \
            k_element_split<HS_MODEL_NVARS_##id, false, (int)HS_MODEL_ID_##id><<<nb, 128, 0, c->s>>>(           \
                c->ne, *prm, c->rtab, c->etab, c->dt, c->tets, c->vol, c->phi, c->phin, c->stim_e, c->ipv_n,    \
                c->ipv, c->km, c->rm, c->d_sc);                                                                 \
        break;
#include "hs_model_list.h"
#undef HS_MODEL
        default: return HS_FAIL(HS_ERR_INTERNAL, "element kernel: model id %d is not in this build", (int)prm->id);
        }
        HS_CUDA_LAUNCH_CHECK("k_element_split");
        return HS_OK;
    }
    switch (prm->n_vars) {
#define HS_K_ELEMENT_LAUNCH(NV, HET)                                                                            \
        k_element<NV, HET><<<nb, 128, 0, c->s>>>(c->ne, *prm, c->rtab, c->etab, c->dt, c->tets, c->vol, c->kd,   \
                                                 c->phi, c->phin, c->stim_e, c->ipv_n, c->ipv, c->ke, c->re,     \
                                                 c->d_sc);
#define HS_K_ELEMENT_CASE(NV)                                                                                   \
    case NV:                                                                                                    \
        if (c->etab) {                                                                                          \
            HS_K_ELEMENT_LAUNCH(NV, true)                                                                       \
        } else {                                                                                                \
            HS_K_ELEMENT_LAUNCH(NV, false)                                                                      \
        }                                                                                                       \
        break;
    HS_K_ELEMENT_CASE(0) HS_K_ELEMENT_CASE(1) HS_K_ELEMENT_CASE(2) HS_K_ELEMENT_CASE(3) HS_K_ELEMENT_CASE(4)
    HS_K_ELEMENT_CASE(5) HS_K_ELEMENT_CASE(6) HS_K_ELEMENT_CASE(7) HS_K_ELEMENT_CASE(8)
#undef HS_K_ELEMENT_CASE
#undef HS_K_ELEMENT_LAUNCH
    default: return HS_FAIL(HS_ERR_INTERNAL, "element kernel: %d model variables (at most %d)", prm->n_vars,
                            HS_MODEL_MAX_VARS);
    }
    HS_CUDA_LAUNCH_CHECK("k_element");
    return HS_OK;
}
