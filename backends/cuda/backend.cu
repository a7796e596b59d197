/*
 * The CUDA backend: mesh data, state (phi, phi_n, the ionic model's variables per element), matrix
 * values, preconditioner and CG vectors live on the device for the whole run (seed 002 sections 2
 * and 4, Table 1). This file: set-up and destruction, the state as the host sees it (hs_state:
 * get/set, the extrapolation history, frame copies that overlap the computation) and the ops
 * table. The step itself: element.cu, assembly.cu, pointwise.cu, graph.cu (cuda_backend.cuh).
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "hs_step_trace.cuh"
#include "cuda_backend.cuh"
#include "hs_cuda.h"
#include "hs_gpu_reduce.cuh"
#include "hs_util.h"

/* ---- the state ------------------------------------------------------------------------------ */

/* Field k of b->state on the device: phi, one variable of the ipv block [nv][nvs], or a read-out. */
static double *field_dev(cuda_impl *c, const hs_state_desc *d, int k)
{
    if (k == HS_STATE_POTENTIAL) return c->phi;
    if (k >= d->activation) return c->act + (size_t)(k - d->activation) * c->nn; /* the read-outs [4][nn] */
    return c->ipv + (size_t)(k - 1) * c->nvs;
}

/* Offset of field k in a block holding every field in b->state's order ([nn][nv ne][nn]): the
 * pinned staging of get_state and the frame snapshots. */
static size_t field_offset(const hs_state_desc *d, int k)
{
    size_t off = 0;
    for (int j = 0; j < k; ++j) off += hs_state_field_len(d, j);
    return off;
}

static hs_status check_state(const hs_backend *b, const hs_state *s) { return hs_state_check(&b->state, s); }

/* The copy runs on its own stream into pinned staging once the compute stream reaches this point;
 * the compute stream is not blocked by it. */
static hs_status cu_get_state(hs_backend *b, hs_state *dst)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    const hs_state_desc *d = &b->state;
    HS_CALL(check_state(b, dst));
    HS_CUDA_CALL(cudaEventRecord(c->ev_state, c->s));
    HS_CUDA_CALL(cudaStreamWaitEvent(c->s_copy, c->ev_state, 0));
    for (int k = 0; k < d->n_fields; ++k)
        if (dst->field[k])
            HS_CUDA_CALL(cudaMemcpyAsync(c->h_state + field_offset(d, k), field_dev(c, d, k),
                                         sizeof(double) * hs_state_field_len(d, k), cudaMemcpyDeviceToHost,
                                         c->s_copy));
    HS_CUDA_CALL(cudaStreamSynchronize(c->s_copy));
    for (int k = 0; k < d->n_fields; ++k)
        if (dst->field[k])
            memcpy(dst->field[k], c->h_state + field_offset(d, k), sizeof(double) * hs_state_field_len(d, k));
    return HS_OK;
}

static hs_status cu_set_state(hs_backend *b, const hs_state *src)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    const hs_state_desc *d = &b->state;
    HS_CALL(check_state(b, src));
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    for (int k = 0; k < d->n_fields; ++k)
        if (src->field[k])
            HS_CUDA_CALL(cudaMemcpy(field_dev(c, d, k), src->field[k], sizeof(double) * hs_state_field_len(d, k),
                                    cudaMemcpyHostToDevice));
    return HS_OK;
}

/* ---- the extrapolation history ---- */

static hs_status cu_get_history(hs_backend *b, hs_extrap *ex, double *phi1, double *phi2)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    *ex = c->ex;
    if (!c->ph1) ex->n_valid = 0;
    if (phi1 && ex->n_valid > 0) HS_CUDA_CALL(cudaMemcpy(phi1, c->ph1, sizeof(double) * c->nn, cudaMemcpyDeviceToHost));
    if (phi2 && ex->n_valid > 1) HS_CUDA_CALL(cudaMemcpy(phi2, c->ph2, sizeof(double) * c->nn, cudaMemcpyDeviceToHost));
    return HS_OK;
}

static hs_status cu_set_history(hs_backend *b, const hs_extrap *ex, const double *phi1, const double *phi2)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    hs_extrap_reset(&c->ex);
    if (!c->ph1) return HS_OK; /* extrapolation off in this run */
    int n = ex->n_valid < 0 ? 0 : ex->n_valid > 2 ? 2 : ex->n_valid;
    if ((n > 0 && !phi1) || (n > 1 && !phi2)) return HS_OK;
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    if (n > 0) HS_CUDA_CALL(cudaMemcpy(c->ph1, phi1, sizeof(double) * c->nn, cudaMemcpyHostToDevice));
    if (n > 1) HS_CUDA_CALL(cudaMemcpy(c->ph2, phi2, sizeof(double) * c->nn, cudaMemcpyHostToDevice));
    c->ex.n_valid = n;
    c->ex.h[0] = ex->h[0];
    c->ex.h[1] = ex->h[1];
    return HS_OK;
}

/* Frames without stalling the device: a device-to-device snapshot on the compute stream (tens of
 * microseconds), then the device-to-host copy of the snapshot on the copy stream, overlapping the
 * next steps. The caller's buffers are pinned (cu_host_alloc), so the copy runs at full PCIe speed
 * and the frame writer thread reads them directly once state_copy_wait says so. */
static hs_status cu_state_copy_start(hs_backend *b, int slot, hs_state *dst)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    const hs_state_desc *d = &b->state;
    HS_CHECK(slot == 0 || slot == 1, HS_ERR_INTERNAL, "state copy slot %d", slot);
    HS_CALL(check_state(b, dst));
    if (!c->snap[slot]) {
        HS_CALL(HS_CUDA_ALLOC(c->snap[slot], field_offset(d, d->n_fields), "frame snapshot"));
        HS_CUDA_CALL(cudaEventCreateWithFlags(&c->ev_snap[slot], cudaEventDisableTiming));
        HS_CUDA_CALL(cudaEventCreateWithFlags(&c->ev_done[slot], cudaEventDisableTiming));
        HS_CUDA_CALL(cudaEventRecord(c->ev_done[slot], c->s_copy));
    }
    double *sp = c->snap[slot];
    HS_CUDA_CALL(cudaStreamWaitEvent(c->s, c->ev_done[slot], 0)); /* the slot's last copy has left */
    for (int k = 0; k < d->n_fields; ++k)
        if (dst->field[k])
            HS_CUDA_CALL(cudaMemcpyAsync(sp + field_offset(d, k), field_dev(c, d, k),
                                         sizeof(double) * hs_state_field_len(d, k), cudaMemcpyDeviceToDevice, c->s));
    HS_CUDA_CALL(cudaEventRecord(c->ev_snap[slot], c->s));
    HS_CUDA_CALL(cudaStreamWaitEvent(c->s_copy, c->ev_snap[slot], 0));
    for (int k = 0; k < d->n_fields; ++k)
        if (dst->field[k])
            HS_CUDA_CALL(cudaMemcpyAsync(dst->field[k], sp + field_offset(d, k),
                                         sizeof(double) * hs_state_field_len(d, k), cudaMemcpyDeviceToHost,
                                         c->s_copy));
    HS_CUDA_CALL(cudaEventRecord(c->ev_done[slot], c->s_copy));
    return HS_OK;
}

static hs_status cu_state_copy_wait(hs_backend *b, int slot)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    if (slot < 0 || slot > 1 || !c->snap[slot]) return HS_OK;
    HS_CUDA_CALL(cudaEventSynchronize(c->ev_done[slot]));
    return HS_OK;
}

static void *cu_host_alloc(size_t bytes)
{
    void *p = NULL;
    return cudaMallocHost(&p, bytes) == cudaSuccess ? p : NULL;
}

static void cu_host_free(void *p)
{
    if (p) cudaFreeHost(p);
}

/* SpMV time inside CG is not timed per call on the GPU (events around every SpMV would cost more
 * than they measure): reported as -1, "not measured"; `heartsim bench step` times it alone. */
static void cu_get_times(const hs_backend *b, hs_phase_times *t)
{
    *t = ((const cuda_impl *)b->impl)->t;
    t->spmv = -1.0;
}

static void cu_destroy(hs_backend *b)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    if (!c) return;
    if (c->s) cudaStreamSynchronize(c->s);
    if (c->s_copy) cudaStreamSynchronize(c->s_copy);
    if (c->gexec) cudaGraphExecDestroy(c->gexec);
    for (int k = 0; k < 2; ++k) {
        cudaFree(c->snap[k]);
        if (c->ev_snap[k]) cudaEventDestroy(c->ev_snap[k]);
        if (c->ev_done[k]) cudaEventDestroy(c->ev_done[k]);
    }
    hs_gpu_cg_destroy(&c->cg);
    hs_gpu_krylov_destroy(&c->gkw);
    hs_gpu_precond_destroy(&c->gpc);
    hs_precond_destroy(&c->pc_host);
    cudaFree(c->kcsr);
    hs_gpu_spmv_destroy(&c->spmv);
    hs_spmv_layout_destroy(&c->lay);
    void *dev[] = {c->tets, c->vol, c->kd, c->inv_mass, c->kptr, c->ksrc, c->rptr, c->rsrc, c->diag, c->slot,
                   c->stim_elem, c->phi, c->phin, c->ipv, c->ipv_n, c->act, c->ke, c->re, c->kval, c->kval32, c->rhs, c->du,
                   c->dinv, c->stim_e, c->ph1, c->ph2, c->csr_rp, c->csr_col, c->partA, c->parti, c->d_sc,
                   c->pptr, c->pptr64, c->pelem, c->pslot, c->relem, c->kdp, c->kdc, c->km, c->rm, c->rtab, c->etab};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; ++i) cudaFree(dev[i]);
    if (c->step_exec) cudaGraphExecDestroy(c->step_exec);
    hs_step_trace_finish(&c->trace, stderr, 0);
    hs_cu_pstep_free(c);
    hs_cu_split_free(c);
    cudaFree(c->step_ctl);
    cudaFreeHost(c->h_step_ctl);
    for (int k = 0; k < HS_SAMPLE_SETS; ++k) {
        cudaFree(c->s_rp[k]);
        cudaFree(c->s_col[k]);
        cudaFree(c->s_val[k]);
        cudaFree(c->s_buf[k]);
    }
    cudaFreeHost(c->h_sc);
    cudaFreeHost(c->h_cg);
    cudaFreeHost(c->h_state);
    cudaEvent_t evs[] = {c->ev_e0, c->ev_e1, c->ev_a1, c->ev_s0, c->ev_s1, c->ev_state, c->ev_k0, c->ev_k1};
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; ++i)
        if (evs[i]) cudaEventDestroy(evs[i]);
    if (c->s) cudaStreamDestroy(c->s);
    if (c->s_copy) cudaStreamDestroy(c->s_copy);
    free(c);
    b->impl = NULL;
}

static const hs_backend_ops cuda_ops = {
    "cuda", hs_cu_begin_step, hs_cu_assemble, hs_cu_tangent, hs_cu_solve, hs_cu_iterate, hs_cu_end_step, hs_cu_restore_step,
    cu_get_state, cu_set_state, cu_get_history, cu_set_history, cu_state_copy_start, cu_state_copy_wait,
    cu_host_alloc, cu_host_free, cu_get_times, cu_destroy, hs_cu_newton_device, hs_cu_sample_setup, hs_cu_sample,
    hs_cu_sample_fetch, hs_cu_steps_device, hs_cu_react, hs_cu_diffuse, hs_cu_react_check,
};

/* ---- set-up --------------------------------------------------------------------------------- */

static hs_status cuda_setup(hs_backend *b)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    const hs_problem *p = b->prob;
    const hs_mesh *m = p->mesh;
    c->nn = m->n_nodes;
    c->ne = m->n_elems;
    c->nnz = p->pattern->nnz;
    c->nv = b->state.activation - 1;
    /* solver.scheme = "splitting": the model's variables at the nodes, no element arrays (split.cu) */
    const int splitting = p->opt.scheme.kind == HS_SCHEME_SPLITTING;
    c->nvs = (int32_t)hs_state_vars_stride(&b->state);
    HS_CHECK(c->nv == p->opt.model_prm.n_vars && c->nv <= HS_MODEL_MAX_VARS, HS_ERR_INTERNAL,
             "model %s: %d state variables, parameters for %d", p->opt.model->name, c->nv, p->opt.model_prm.n_vars);
    const hs_exec_plan *plan = &p->opt.exec; /* resolved at set-up (hs_sim_create): no "auto", no names */
    HS_CHECK(hs_gpu_spmv_of(plan->spmv) != NULL, HS_ERR_CONFIG, "solver.spmv: kernel \"%s\" has no GPU implementation",
             plan->spmv->name);
    HS_CUDA_CALL(cudaSetDevice(hs_gpu_device()));
    HS_CUDA_CALL(cudaStreamCreateWithFlags(&c->s, cudaStreamNonBlocking));
    HS_CUDA_CALL(cudaStreamCreateWithFlags(&c->s_copy, cudaStreamNonBlocking));
    cudaEvent_t *evs[] = {&c->ev_e0, &c->ev_e1, &c->ev_a1, &c->ev_s0, &c->ev_s1, &c->ev_state, &c->ev_k0, &c->ev_k1};
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; ++i) HS_CUDA_CALL(cudaEventCreate(evs[i]));

    HS_CALL(upload(&c->tets, m->tets, (size_t)c->ne * 4, "element connectivity"));
    HS_CALL(upload(&c->vol, p->geom->vol, c->ne, "element volumes"));
    c->split = p->split != NULL;
    if (!c->split && !splitting) HS_CALL(hs_cu_upload_soa(&c->kd, p->geom->kd, c->ne, 10, "element diffusion matrices"));
    {
        double *im = NULL;
        HS_CALL(HS_ALLOC(im, c->nn, "inverse lumped mass"));
        for (int32_t i = 0; i < c->nn; ++i) im[i] = 1.0 / p->geom->lumped_mass[i];
        hs_status st = upload(&c->inv_mass, im, c->nn, "inverse lumped mass");
        free(im);
        HS_CALL(st);
    }
    if (!splitting) HS_CALL(upload(&c->rptr, p->map->r_ptr, (size_t)c->nn + 1, "R gather map pointers"));
    if (!c->split && !splitting) {
        HS_CALL(upload(&c->kptr, p->map->k_ptr, (size_t)c->nnz + 1, "K gather map pointers"));
        HS_CALL(hs_cu_remap_gather_maps(c, p->map));
        HS_CALL(upload(&c->diag, p->map->diag, c->nn, "diagonal positions"));
    }
    const hs_stim_set *st = p->stim;
    int32_t nstim = st && !splitting ? st->elem_ptr[st->n_sites] : 0;
    HS_CALL(upload(&c->stim_elem, st ? st->elem : (const int32_t *)NULL, nstim, "stimulus element lists"));
    const hs_region_set *rg = p->opt.regions;
    if (rg && rg->elem_tab) {
        HS_CALL(upload(&c->rtab, rg->tab, (size_t)rg->n_rows, "region table"));
        if (!splitting) HS_CALL(upload(&c->etab, rg->elem_tab, (size_t)c->ne, "element region rows"));
    }

    HS_CALL(hs_spmv_layout_create(plan->spmv, p->pattern, &p->opt.spmv_params, &c->lay));
    HS_CALL(upload(&c->slot, c->lay->slot_of_nnz, c->nnz, "SpMV slot map"));
    /* padding slots must read as zero: clear once, assembly only writes real slots */
    c->f32 = plan->values == HS_VALUES_F32;
    if (c->f32) {
        HS_CALL(HS_CUDA_ALLOC(c->kval32, c->lay->n_slots, "tangent matrix values (float32)"));
        HS_CUDA_CALL(cudaMemset(c->kval32, 0, sizeof(float) * c->lay->n_slots));
    } else {
        HS_CALL(HS_CUDA_ALLOC(c->kval, c->lay->n_slots, "tangent matrix values"));
        HS_CUDA_CALL(cudaMemset(c->kval, 0, sizeof(double) * c->lay->n_slots));
    }
    HS_CALL(hs_gpu_spmv_create_values(c->lay, p->pattern, hs_cu_kvals(c), plan->values, &c->spmv));
    if (c->split) HS_CALL(hs_cu_upload_split(c, p));

    struct { double **p; size_t n; const char *what; } arrs[] = {
        {&c->phi, (size_t)c->nn, "phi"}, {&c->phin, (size_t)c->nn, "phi_n"},
        {&c->ipv, (size_t)c->nv * c->nvs, "model variables"},
        {&c->ipv_n, (size_t)c->nv * c->nvs, "model variables of the last step"},
        {&c->act, (size_t)HS_STATE_READOUTS * c->nn, "activation, repolarisation, APD, beats"},
        {&c->ke, c->split || splitting ? 0 : (size_t)c->ne * 10, "element matrices"},
        {&c->re, c->split || splitting ? 0 : (size_t)c->ne * 4, "element residuals"},
        {&c->rhs, (size_t)c->nn, "residual"}, {&c->du, (size_t)c->nn, "Newton update"},
        {&c->dinv, (size_t)c->nn, "Jacobi preconditioner"},
        {&c->stim_e, splitting ? 0 : (size_t)c->ne, "element stimulus"},
        {&c->partA, (size_t)HS_RED_BLOCKS, "reduction partials"},
    };
    for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; ++i) {
        if (arrs[i].n == 0) continue; /* not used by this assembly method or scheme */
        HS_CALL(hs_cuda_alloc_((void **)arrs[i].p, sizeof(double) * arrs[i].n, arrs[i].what, __FILE__, __LINE__));
        HS_CUDA_CALL(cudaMemset(*arrs[i].p, 0, sizeof(double) * arrs[i].n));
    }
    HS_CALL(HS_CUDA_ALLOC(c->parti, HS_RED_BLOCKS, "reduction partials"));
    HS_CALL(HS_CUDA_ALLOC(c->d_sc, 1, "solver scalars"));
    HS_CUDA_CALL(cudaMemset(c->d_sc, 0, sizeof(dev_scalars)));
    /* initial values of the state (zero already: phi at rest and the model's variables for
     * Aliev-Panfilov; activation -1, "not yet") */
    for (int k = 0; k < b->state.n_fields; ++k)
        if (b->state.f[k].initial != 0.0)
            HS_CALL(hs_cu_fill((int64_t)hs_state_field_len(&b->state, k), b->state.f[k].initial,
                               field_dev(c, &b->state, k)));
    if (p->opt.extrapolate > 0) { /* the Newton iteration's first iterate; splitting: ph1 the last correction */
        HS_CALL(HS_CUDA_ALLOC(c->ph1, c->nn, "phi history"));
        HS_CALL(HS_CUDA_ALLOC(c->ph2, c->nn, "phi history"));
    }
    c->ex.order = p->opt.extrapolate;
    hs_extrap_reset(&c->ex);
    HS_CALL(hs_gpu_cg_create(c->nn, p->opt.cg.variant, c->spmv, c->dinv, &c->cg));
    if (p->opt.cg.variant == HS_CG_SSTEP) { /* always its persistent kernel, through the format's slot map */
        if (!c->csr_rp) HS_CALL(upload(&c->csr_rp, p->pattern->row_ptr, (size_t)c->nn + 1, "CSR row pointers"));
        if (!c->csr_col) HS_CALL(upload(&c->csr_col, p->pattern->col, (size_t)c->nnz, "CSR columns"));
        HS_CALL(hs_gpu_cg_set_sstep(c->cg, p->opt.cg.s, c->csr_rp, c->csr_col, c->slot, hs_cu_kvals(c), c->f32));
        c->cg->sstep_reuse = 1; /* Newton's matrices of a run are close: keep the Chebyshev interval */
    }
    if (plan->persistent_cg) { /* Chronopoulos-Gear as one kernel (policy.c: hs_cuda_plan_rules) */
        if (!c->csr_rp) HS_CALL(upload(&c->csr_rp, p->pattern->row_ptr, (size_t)c->nn + 1, "CSR row pointers"));
        if (!c->csr_col) HS_CALL(upload(&c->csr_col, p->pattern->col, (size_t)c->nnz, "CSR columns"));
        HS_CALL(hs_gpu_cg_set_persistent(c->cg, c->csr_rp, c->csr_col, c->slot, hs_cu_kvals(c), c->f32));
    }
    if (p->opt.pc.precond != HS_PRECOND_JACOBI || p->opt.pc.krylov != HS_KRYLOV_CG) {
        HS_CALL(hs_krylov_precond_check(p->opt.pc.krylov, p->opt.pc.precond));
        HS_CALL(hs_precond_create(p->opt.pc.precond, p->opt.pc.sai_level, p->pattern, &c->pc_host));
        HS_CALL(hs_gpu_precond_create(c->pc_host, p->pattern, 0, &c->gpc));
        HS_CALL(HS_CUDA_ALLOC(c->kcsr, c->nnz, "tangent values in CSR order"));
        HS_CALL(hs_gpu_krylov_create(c->nn, c->s, &c->gkw));
    }
    if (splitting) HS_CALL(hs_cu_split_setup(b));
    HS_CUDA_CALL(cudaMallocHost((void **)&c->h_cg, sizeof(hs_gpu_cg_scalars)));
    HS_CUDA_CALL(cudaMallocHost((void **)&c->h_sc, sizeof(dev_scalars)));
    HS_CUDA_CALL(cudaMallocHost((void **)&c->h_state, sizeof(double) * field_offset(&b->state, b->state.n_fields)));
    HS_CUDA_CALL(cudaDeviceSynchronize());
    cudaDeviceProp prop;
    HS_CUDA_CALL(cudaGetDeviceProperties(&prop, hs_gpu_device()));
    /* what the step is: the assembly method (Newton), or the splitting's order, theta and mass */
    char what[96];
    if (splitting)
        snprintf(what, sizeof what, "%s splitting, theta %g, %s mass", hs_split_order_name(p->opt.scheme.order),
                 p->opt.scheme.theta, hs_mass_name(p->opt.scheme.mass));
    else
        snprintf(what, sizeof what, "%s assembly", hs_assembly_name(p->opt.assembly));
    int w = snprintf(b->description, sizeof b->description, "cuda (%.100s, sm_%d%d, spmv %.40s%s, %s, cg %s%s, %s)",
             prop.name, prop.major, prop.minor, plan->spmv->name, c->f32 ? " float32 values" : "", what,
             hs_cg_variant_name(p->opt.cg.variant),
             p->opt.cg.variant == HS_CG_CHRONOPOULOS ? (c->cg->fused ? " fused with the SpMV" : " with a separate dot pass")
                                                     : "",
             splitting ? (p->opt.graph ? "diffusion solve as one CUDA graph" : "stream launches")
                       : p->opt.graph ? "CUDA graph per Newton iteration" : "stream launches");
    if (c->gpc) { /* the general solver replaces the tuned Jacobi-PCG (which stays allocated for its scalars) */
        w = snprintf(b->description, sizeof b->description, "cuda (%.120s, sm_%d%d, spmv %.40s, %s, %s %s%s%s, "
                 "host-driven cuBLAS loop)", prop.name, prop.major, prop.minor, plan->spmv->name,
                 what, hs_krylov_name(p->opt.pc.krylov),
                 p->opt.pc.krylov == HS_KRYLOV_CG ? hs_cg_variant_name(p->opt.cg.variant) : "",
                 p->opt.pc.krylov == HS_KRYLOV_CG ? ", " : "", hs_precond_name(p->opt.pc.precond));
    }
    if (w >= (int)sizeof b->description) b->description[sizeof b->description - 2] = '.'; /* cut short */
    if (!c->gpc && c->cg->persistent) {
        size_t l = strlen(b->description);
        if (l > 1 && l < sizeof b->description - 40 && p->opt.cg.variant == HS_CG_SSTEP)
            snprintf(b->description + l - 1, sizeof b->description - l + 1, ", persistent s-step kernel, s = %d)",
                     c->cg->sstep_s);
        else if (l > 1 && l < sizeof b->description - 40)
            snprintf(b->description + l - 1, sizeof b->description - l + 1, ", persistent CG kernel)");
    }
    /* the set-up's cudaMemsets run on the legacy default stream, which c->s (non-blocking) does not
     * wait for: done before the first step's work */
    HS_CUDA_CALL(cudaDeviceSynchronize());
    return HS_OK;
}

extern "C" hs_status hs_backend_cuda_create(const hs_problem *prob, hs_backend **out)
{
    *out = NULL;
    hs_backend *b = NULL;
    HS_CALL(HS_ALLOC(b, 1, "backend"));
    b->ops = &cuda_ops;
    b->diag = &hs_cu_diag_ops;
    b->prob = prob;
    hs_state_desc_init_scheme(&b->state, prob->opt.model, prob->opt.scheme.kind, prob->mesh->n_nodes,
                              prob->mesh->n_elems);
    cuda_impl *c = NULL;
    hs_status st = HS_ALLOC(c, 1, "cuda backend");
    /* the device memory set-up takes, per node: what bounds the largest mesh a device runs (issue 26);
     * measured as the drop of the free memory, so every array the set-up allocates counts */
    size_t free0 = 0, free1 = 0, total = 0;
    if (st == HS_OK && cudaSetDevice(hs_gpu_device()) == cudaSuccess) cudaMemGetInfo(&free0, &total);
    if (st == HS_OK) {
        b->impl = c;
        st = cuda_setup(b);
    }
    if (free0 > 0 && cudaMemGetInfo(&free1, &total) == cudaSuccess && free1 < free0) {
        const double used = (double)(free0 - free1), nn = prob->mesh->n_nodes > 0 ? prob->mesh->n_nodes : 1;
        if (st == HS_OK)
            hs_log(1, "device memory: set-up took %.2f GB for %d nodes and %d elements, %.0f bytes per node; "
                      "%.2f of %.2f GB free after (at this rate a device with %.2f GB free holds ~%.0fM nodes)\n",
                   used / 1e9, prob->mesh->n_nodes, prob->mesh->n_elems, used / nn, free1 / 1e9, total / 1e9,
                   free0 / 1e9, free0 / (used / nn) / 1e6);
        else if (hs_error_code() == HS_ERR_MEMORY)
            hs_error_prefix("%d nodes, %d elements: set-up had taken %.2f GB (%.0f bytes per node) of the %.2f GB "
                            "free when the device ran out, so it holds at most ~%.0fM nodes of such a mesh: ",
                            prob->mesh->n_nodes, prob->mesh->n_elems, used / 1e9, used / nn, free0 / 1e9,
                            free0 / (used / nn) / 1e6);
    }
    if (st != HS_OK) {
        hs_backend_destroy(&b);
        return st;
    }
    *out = b;
    return HS_OK;
}
