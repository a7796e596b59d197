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

/* The launch configuration, in one place (issue 29; docs/benchmarks.md "The nodal kernels per model"):
 * threads per block, and the blocks per multiprocessor asked of ptxas for each model's kernel
 * (__launch_bounds__'s second argument, which caps the registers at 65536 / (threads x blocks)
 * per thread): a model with more than HS_NODAL_BIG_NV variables (O'Hara-Rudy's 40) asks for
 * HS_NODAL_MIN_BLOCKS_BIG, the others for HS_NODAL_MIN_BLOCKS. With 128 threads, O'Hara-Rudy takes 184
 * registers unbounded (2 blocks, 8 warps per multiprocessor), 168 with 3 blocks (12 warps; 40 bytes of
 * spill stores) and 128 with 4 (16 warps; 200 bytes); ten Tusscher 2006 90-94 with 5 (20 warps; none),
 * 80 with 6 (24 warps; 40-56 bytes); Courtemanche 104 unbounded (4 blocks), 96 with 5 (none). The
 * substep loop (nsub > 1, a call: hs_nodal_ct.cuh) spills under the cap, the one-substep path does not.
 * Another build, e.g. cmake -DCMAKE_CUDA_FLAGS="-DHS_NODAL_MIN_BLOCKS_BIG=4
 * -DHS_NODAL_MIN_BLOCKS=6"; scripts/cellml/nodal_kernel_report.py prints what ptxas makes of it. */
#ifndef HS_NODAL_THREADS
#define HS_NODAL_THREADS 128
#endif
#ifndef HS_NODAL_BIG_NV
#define HS_NODAL_BIG_NV 24
#endif
#ifndef HS_NODAL_MIN_BLOCKS_BIG
#define HS_NODAL_MIN_BLOCKS_BIG 3
#endif
#ifndef HS_NODAL_MIN_BLOCKS
#define HS_NODAL_MIN_BLOCKS 5
#endif
constexpr int kNodalThreads = HS_NODAL_THREADS;
template <int ID>
constexpr int nodal_min_blocks()
{
    return model_ct<ID>::nv > HS_NODAL_BIG_NV ? HS_NODAL_MIN_BLOCKS_BIG : HS_NODAL_MIN_BLOCKS;
}

/* One node per thread, no grid-stride loop: a loop around the node's work lets the compiler hoist the
 * model's parameter-only expressions (its derived constants) out of it and hold them in registers for the
 * whole loop, which for the CellML models cost more registers than anything else (O'Hara-Rudy: 255
 * registers and spills with the loops, 184 and none without; ten Tusscher 2006: 230 -> 92;
 * docs/benchmarks.md, issue 29). The substep loop is out of the way likewise (nodal_ode_ct). The
 * parameters are a __grid_constant__ so that their address can be taken (the regions' row or the loop's
 * call) without a copy to local memory. */
template <int ID, bool STIM, bool HET>
__global__ void __launch_bounds__(kNodalThreads, nodal_min_blocks<ID>())
    k_nodal(int32_t n, int64_t ld, const __grid_constant__ prm_ct<ID> prm, const hs_region_row *__restrict__ rtab,
            const uint16_t *__restrict__ ntab, const uint8_t *__restrict__ frozen, double h, int nsub,
            double *__restrict__ u, double *__restrict__ s, const double *__restrict__ stim, double *__restrict__ u0,
            double *__restrict__ s0, int *bad, const double *hn, const double *__restrict__ vdev)
{
    constexpr int NV = model_ct<ID>::nv;
    if (hn) { /* the substep from the device (split_step.cu: one graph for many steps) */
        h = hn[0];
        nsub = (int)hn[1];
    }
    const int32_t i = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n) {
        double ui = u[i];
        double sv[NV > 0 ? NV : 1];
#pragma unroll
        for (int k = 0; k < NV; ++k) sv[k] = s[(int64_t)k * ld + i];
        if (u0) u0[i] = ui;
        if (s0) {
#pragma unroll
            for (int k = 0; k < NV; ++k) s0[(int64_t)k * ld + i] = sv[k];
        }
        if (frozen && frozen[i]) return; /* decoupled: u held, no reaction */
        const double *v = prm.v;
        if (HET) {
            const hs_region_row *row = &rtab[ntab[i]];
            if (!row->conducting) return; /* a hole: its node stays at rest */
            v = row->prm.v;
        }
        const int ok = nodal_ode_ct<ID>(v, ui, sv, STIM ? stim[i] : 0.0, h, nsub, HET ? nullptr : vdev);
        if (!ok && bad) atomicMin(bad, (int)i); /* error flag only: the result is order-free */
        u[i] = ui;
#pragma unroll
        for (int k = 0; k < NV; ++k) s[(int64_t)k * ld + i] = sv[k];
    }
}

template <int ID, bool STIM, bool HET>
hs_status launch3(const hs_nodal_launch *a, const prm_ct<ID> &prm, cudaStream_t s)
{
    int64_t nb = ((int64_t)a->n + kNodalThreads - 1) / kNodalThreads; /* one node per thread */
    if (nb < 1) nb = 1;                                                 /* n < 2^31: nb < 2^31 - 1 blocks */
    k_nodal<ID, STIM, HET><<<(int)nb, kNodalThreads, 0, s>>>(a->n, a->ld, prm, a->rtab, a->ntab, a->frozen, a->h,
                                                             a->nsub, a->u, a->s, a->stim, a->u0, a->s0, a->bad,
                                                             a->hn, a->vdev);
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
