/*
 * The nodal ODE kernel of the operator-splitting scheme (issue 28): the reaction half of a step at
 * every node, one thread per node, the model a template parameter (model_ct<ID>, prm_ct<ID> by value,
 * as the element kernel: element.cu). The state is stored [nv][n] (neighbouring threads touch
 * neighbouring addresses) and read and written once per reaction step: the dt_ode substeps run in
 * registers (hs_nodal_ct.cuh, the CPU reference's arithmetic). The stimulus is a dense per-node array
 * read only by the STIM instance, which runs only while a site is on, so the common step moves
 * 16 (1 + nv) bytes per node, 24 (1 + nv) when it also saves the step's start (u0, s0: what a
 * separate copy would move twice).
 */
#include "hs_cuda_check.cuh"
#include "hs_nodal.cuh"
#include "hs_nodal_ct.cuh"

namespace {

constexpr int kNodalThreads = 128;

template <int ID, bool STIM, bool HET>
__global__ void __launch_bounds__(kNodalThreads) k_nodal(int32_t n, int64_t ld, prm_ct<ID> prm,
                                                         const hs_region_row *__restrict__ rtab,
                                                         const uint16_t *__restrict__ ntab,
                                                         const uint8_t *__restrict__ frozen, double h, int nsub,
                                                         double *__restrict__ u, double *__restrict__ s,
                                                         const double *__restrict__ stim, double *__restrict__ u0,
                                                         double *__restrict__ s0, int *bad, const double *hn)
{
    constexpr int NV = model_ct<ID>::nv;
    if (hn) { /* the substep from the device (split_step.cu: one graph for many steps) */
        h = hn[0];
        nsub = (int)hn[1];
    }
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        double ui = u[i];
        double sv[NV > 0 ? NV : 1];
#pragma unroll
        for (int k = 0; k < NV; ++k) sv[k] = s[(int64_t)k * ld + i];
        if (u0) u0[i] = ui;
        if (s0) {
#pragma unroll
            for (int k = 0; k < NV; ++k) s0[(int64_t)k * ld + i] = sv[k];
        }
        if (frozen && frozen[i]) continue; /* decoupled: u held, no reaction */
        const double *v = prm.v;
        if (HET) {
            const hs_region_row *row = &rtab[ntab[i]];
            if (!row->conducting) continue; /* a hole: its node stays at rest */
            v = row->prm.v;
        }
        const int ok = nodal_ode_ct<ID>(v, ui, sv, STIM ? stim[i] : 0.0, h, nsub);
        if (!ok && bad) atomicMin(bad, (int)i); /* error flag only: the result is order-free */
        u[i] = ui;
#pragma unroll
        for (int k = 0; k < NV; ++k) s[(int64_t)k * ld + i] = sv[k];
    }
}

template <int ID, bool STIM, bool HET>
hs_status launch3(const hs_nodal_launch *a, const prm_ct<ID> &prm, cudaStream_t s)
{
    int64_t nb = ((int64_t)a->n + kNodalThreads - 1) / kNodalThreads;
    if (nb < 1) nb = 1;
    if (nb > 65535 * 16) nb = 65535 * 16; /* grid-stride: the cap drops no node */
    k_nodal<ID, STIM, HET><<<(int)nb, kNodalThreads, 0, s>>>(a->n, a->ld, prm, a->rtab, a->ntab, a->frozen, a->h, a->nsub,
                                                             a->u,
                                                             a->s, a->stim, a->u0, a->s0, a->bad, a->hn);
    HS_CUDA_LAUNCH_CHECK("k_nodal");
    return HS_OK;
}

template <int ID>
hs_status launch_model(const hs_nodal_launch *a, cudaStream_t s)
{
    HS_CHECK(a->prm->n_vars == model_ct<ID>::nv, HS_ERR_INTERNAL, "nodal kernel of model id %d: %d variables, its "
             "kernel %d", ID, a->prm->n_vars, model_ct<ID>::nv);
    HS_CHECK(a->nsub >= 1 && a->ld >= a->n && (a->rtab == nullptr) == (a->ntab == nullptr), HS_ERR_INTERNAL,
             "nodal kernel: %d substeps, leading dimension %lld for %d nodes, region table %s", a->nsub,
             (long long)a->ld, a->n, a->rtab ? "without node rows" : "absent");
    const prm_ct<ID> prm = prm_ct_of<ID>(*a->prm);
    if (a->stim) return a->ntab ? launch3<ID, true, true>(a, prm, s) : launch3<ID, true, false>(a, prm, s);
    return a->ntab ? launch3<ID, false, true>(a, prm, s) : launch3<ID, false, false>(a, prm, s);
}

} // namespace

hs_status hs_cu_launch_nodal(const hs_nodal_launch *a, cudaStream_t s)
{
    switch (a->prm->id) { /* one instance per model of hs_model_list.h, nodal-only ones included */
#define HS_MODEL(id) \
    case HS_MODEL_ID_##id: return launch_model<(int)HS_MODEL_ID_##id>(a, s);
#include "hs_model_list.h"
#undef HS_MODEL
    default: return HS_FAIL(HS_ERR_INTERNAL, "nodal kernel: model id %d is not in this build", (int)a->prm->id);
    }
}
