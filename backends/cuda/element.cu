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

/* Layouts (cuda_backend.cuh): kd, ke [10][ne], re [4][ne], ipv, ipv_n [n_vars][ne]. Both kernels are
 * compiled per model (ID, hs_model_list.h): its variables NV = model_ct<ID>::nv are a compile-time
 * count, so their local arrays are indexed by constants only and stay in registers (a run-time bound
 * costs ~30 more registers per thread for Aliev-Panfilov: 112 instead of 82 on sm_90, lower
 * occupancy), and its parameters come by value as its own prm_ct<ID> (hs_element_ct.cuh), sized by
 * the model, not by HS_MODEL_MAX_PARAMS. */
template <int ID, bool HET>
__global__ void k_element(int32_t ne, prm_ct<ID> prm, const hs_region_row *__restrict__ rtab,
                          const uint16_t *__restrict__ etab, double dt, const int32_t *__restrict__ tets,
                          const double *__restrict__ vol, const double *__restrict__ kd,
                          const double *__restrict__ phi, const double *__restrict__ phin,
                          const double *__restrict__ stim_e, const double *__restrict__ ipv_n,
                          double *__restrict__ ipv, double *__restrict__ ke, double *__restrict__ re,
                          dev_scalars *sc)
{
    constexpr int NV = model_ct<ID>::nv;
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
                it = element_eval_ct<ID>(row->prm.v, row->prm.gates, dt, vol[e], kde, ph, pn, stim_e[e], sn, sv,
                                         kel, rel);
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
            it = element_eval_ct<ID>(prm.v, prm.gates, dt, vol[e], kde, ph, pn, stim_e[e], sn, sv, kel, rel);
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
template <int ID, bool HET>
__global__ void k_element_split(int32_t ne, prm_ct<ID> prm, const hs_region_row *__restrict__ rtab,
                                const uint16_t *__restrict__ etab, double dt, const int32_t *__restrict__ tets,
                                const double *__restrict__ vol, const double *__restrict__ phi,
                                const double *__restrict__ phin, const double *__restrict__ stim_e,
                                const double *__restrict__ ipv_n, double *__restrict__ ipv, double *__restrict__ km,
                                double *__restrict__ rm, dev_scalars *sc)
{
    constexpr int NV = model_ct<ID>::nv;
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
                it = element_point_ct<ID>(row->prm.v, row->prm.gates, dt, vol[e], ph, pn, stim_e[e], sn, sv, &kme,
                                          &rme);
            } else {
                it = 0;
#pragma unroll
                for (int k = 0; k < NV; ++k) sv[k] = sn[k];
            }
        } else {
            it = element_point_ct<ID>(prm.v, prm.gates, dt, vol[e], ph, pn, stim_e[e], sn, sv, &kme, &rme);
        }
        if (it < 0) atomicMin(&sc->bad_elem, (int)e); /* error flag only: the result is order-free */
#pragma unroll
        for (int k = 0; k < NV; ++k) ipv[(int64_t)k * ne + e] = sv[k];
        km[e] = kme;
        rm[e] = rme;
    }
}

/* One model's two kernels: split or full, uniform or with regions (HET). */
template <int ID>
static hs_status launch_element(cuda_impl *c, const hs_model_params *p)
{
    HS_CHECK(p->n_vars == model_ct<ID>::nv, HS_ERR_INTERNAL, "model id %d: %d variables, its kernel %d", ID,
             p->n_vars, model_ct<ID>::nv);
    const int nb = nblocks(c->ne, 128);
    const prm_ct<ID> prm = prm_ct_of<ID>(*p);
    if (c->split) {
        if (c->etab)
            k_element_split<ID, true><<<nb, 128, 0, c->s>>>(c->ne, prm, c->rtab, c->etab, c->dt, c->tets, c->vol,
                                                            c->phi, c->phin, c->stim_e, c->ipv_n, c->ipv, c->km,
                                                            c->rm, c->d_sc);
        else
            k_element_split<ID, false><<<nb, 128, 0, c->s>>>(c->ne, prm, c->rtab, c->etab, c->dt, c->tets, c->vol,
                                                             c->phi, c->phin, c->stim_e, c->ipv_n, c->ipv, c->km,
                                                             c->rm, c->d_sc);
        HS_CUDA_LAUNCH_CHECK("k_element_split");
        return HS_OK;
    }
    if (c->etab)
        k_element<ID, true><<<nb, 128, 0, c->s>>>(c->ne, prm, c->rtab, c->etab, c->dt, c->tets, c->vol, c->kd, c->phi,
                                                  c->phin, c->stim_e, c->ipv_n, c->ipv, c->ke, c->re, c->d_sc);
    else
        k_element<ID, false><<<nb, 128, 0, c->s>>>(c->ne, prm, c->rtab, c->etab, c->dt, c->tets, c->vol, c->kd, c->phi,
                                                   c->phin, c->stim_e, c->ipv_n, c->ipv, c->ke, c->re, c->d_sc);
    HS_CUDA_LAUNCH_CHECK("k_element");
    return HS_OK;
}

hs_status hs_cu_launch_element(cuda_impl *c, const hs_model_params *prm)
{
    switch (prm->id) { /* one instance per model of hs_model_list.h */
#define HS_MODEL(id) \
    case HS_MODEL_ID_##id: return launch_element<(int)HS_MODEL_ID_##id>(c, prm);
#define HS_MODEL_NODAL(id) /* nodal form only: the newton scheme refuses it before */
#include "hs_model_list.h"
#undef HS_MODEL_NODAL
#undef HS_MODEL
    default: return HS_FAIL(HS_ERR_INTERNAL, "element kernel: model id %d is not in this build", (int)prm->id);
    }
}
