/*
 * Assembly on the CUDA backend, "K_elem . 1": one thread per nonzero of K sums its element entries
 * through the gather map and writes the SpMV format's slot; one thread per node sums R, takes the
 * Jacobi diagonal and the weighted residual norm. No atomics, fixed order (seed 002 sec. 4). The
 * host gather maps (fem/assembly_map.c) are re-encoded here for the device's element layouts.
 */
#include <climits>
#include <cstdlib>

#include "cuda_backend.cuh"
#include "hs_gpu_reduce.cuh"
#include "hs_p1.h"
#include "hs_util.h"

/* V: the stored value type (double, or float for solver.matrix_values = float32: the double sum is
 * rounded once when stored, so the float values are the rounded float64 ones bit for bit) */
template <typename V>
__global__ void k_assemble_k(int32_t nnz, const int32_t *__restrict__ kptr, const int32_t *__restrict__ ksrc,
                             const int64_t *__restrict__ slot, const double *__restrict__ ke,
                             V *__restrict__ kval)
{
    for (int32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += gridDim.x * blockDim.x) {
        double s = 0.0;
        for (int32_t j = kptr[k]; j < kptr[k + 1]; ++j) s += ke[ksrc[j]];
        kval[slot[k]] = (V)s;
    }
}

/* R, Jacobi diagonal (from the stored, possibly float, diagonal: the CG's own matrix) and the block
 * maxima of dt |R_i| / m_i */
template <typename V>
__global__ void k_assemble_r(int32_t nn, const int32_t *__restrict__ rptr, const int32_t *__restrict__ rsrc,
                             const double *__restrict__ re, const int32_t *__restrict__ diag,
                             const int64_t *__restrict__ slot, const V *__restrict__ kval,
                             const double *__restrict__ inv_mass, double dt, double *__restrict__ rhs,
                             double *__restrict__ dinv, double *partv, int *parti)
{
    __shared__ double shv[HS_RED_THREADS];
    __shared__ int shi[HS_RED_THREADS];
    double best = 0.0;
    int bi = INT_MAX;
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < nn; i += gridDim.x * blockDim.x) {
        double s = 0.0;
        for (int32_t j = rptr[i]; j < rptr[i + 1]; ++j) s += re[rsrc[j]];
        rhs[i] = s;
        dinv[i] = 1.0 / (double)kval[slot[diag[i]]];
        double w = fabs(s) * dt * inv_mass[i];
        if (w > best || (isnan(w) && !isnan(best))) { best = w; bi = i; }
    }
    hs_block_maxloc(best, bi, shv, shi);
    if (threadIdx.x == 0) { partv[blockIdx.x] = best; parti[blockIdx.x] = bi; }
}

/* Final max-location over the block partials into (*v, *i). One block. */
__global__ void k_final_maxloc(int nparts, const double *partv, const int *parti, double *v, int *i)
{
    __shared__ double shv[HS_RED_THREADS];
    __shared__ int shi[HS_RED_THREADS];
    double best = 0.0;
    int bi = INT_MAX;
    for (int p = threadIdx.x; p < nparts; p += blockDim.x) {
        double w = partv[p];
        int wi = parti[p];
        if (w > best || (w == best && wi < bi) || (isnan(w) && !isnan(best))) { best = w; bi = wi; }
    }
    hs_block_maxloc(best, bi, shv, shi);
    if (threadIdx.x == 0) { *v = best; *i = bi == INT_MAX ? 0 : bi; }
}

hs_status hs_cu_launch_final_maxloc(cuda_impl *c, double *v, int *i)
{
    k_final_maxloc<<<1, HS_RED_THREADS, 0, c->s>>>(HS_RED_BLOCKS, c->partA, c->parti, v, i);
    HS_CUDA_LAUNCH_CHECK("k_final_maxloc");
    return HS_OK;
}

template <typename V>
static hs_status assemble_full(cuda_impl *c, V *kval)
{
    k_assemble_k<V><<<nblocks(c->nnz, 256), 256, 0, c->s>>>(c->nnz, c->kptr, c->ksrc, c->slot, c->ke, kval);
    HS_CUDA_LAUNCH_CHECK("k_assemble_k");
    k_assemble_r<V><<<HS_RED_BLOCKS, HS_RED_THREADS, 0, c->s>>>(c->nn, c->rptr, c->rsrc, c->re, c->diag, c->slot,
                                                                 kval, c->inv_mass, c->dt, c->rhs, c->dinv,
                                                                 c->partA, c->parti);
    HS_CUDA_LAUNCH_CHECK("k_assemble_r");
    return HS_OK;
}

/* norm: the residual norm over every local row into d_sc (and the scalars to the host when timed); a
 * partition's Newton loop forms its own over the owned rows (dist_newton.cu) and reads neither */
static hs_status enqueue_assemble(hs_backend *b, int in_graph, int norm)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    const hs_problem *p = b->prob;
    /* in_graph 2: inside a conditional node's body (solver.step = "graph"), where event records are
     * not allowed: no phase events and no copy of the scalars to the host */
    const int timed = in_graph < 2;
    HS_CUDA_CALL(cudaMemsetAsync(&c->d_sc->bad_elem, 0x7f, sizeof(int), c->s));
    if (timed) HS_CALL(rec(c->ev_e0, c->s, in_graph));
    HS_CALL(hs_cu_launch_element(c, &p->opt.model_prm));
    if (timed) HS_CALL(rec(c->ev_e1, c->s, in_graph));
    if (c->split) {
        HS_CALL(hs_cu_enqueue_split_r(c));
        c->k_stale = 1;
    } else if (c->f32) {
        HS_CALL(assemble_full(c, c->kval32));
    } else {
        HS_CALL(assemble_full(c, c->kval));
    }
    if (norm) HS_CALL(hs_cu_launch_final_maxloc(c, &c->d_sc->res, &c->d_sc->res_node));
    if (timed) HS_CALL(rec(c->ev_a1, c->s, in_graph));
    if (timed && norm) HS_CUDA_CALL(cudaMemcpyAsync(c->h_sc, c->d_sc, sizeof(dev_scalars), cudaMemcpyDeviceToHost, c->s));
    return HS_OK;
}

hs_status hs_cu_enqueue_assemble(hs_backend *b, int in_graph) { return enqueue_assemble(b, in_graph, 1); }

hs_status hs_cu_enqueue_assemble_part(hs_backend *b, int in_graph) { return enqueue_assemble(b, in_graph, 0); }

hs_status hs_cu_enqueue_tangent(cuda_impl *c, int in_graph)
{
    if (!c->split) return HS_OK; /* the full assembly formed K and D^-1 with R */
    const int timed = in_graph < 2;
    if (timed) HS_CALL(rec(c->ev_k0, c->s, in_graph));
    HS_CALL(hs_cu_enqueue_split_k(c));
    if (timed) HS_CALL(rec(c->ev_k1, c->s, in_graph));
    c->k_timed = timed;
    c->k_stale = 0;
    return HS_OK;
}

void hs_cu_finish_tangent(cuda_impl *c)
{
    if (!c->k_timed) return;
    c->t.assembly += 1e-3 * elapsed_ms(c->ev_k0, c->ev_k1);
    c->k_timed = 0;
}

hs_status hs_cu_tangent(hs_backend *b)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    if (!c->k_stale) return HS_OK;
    HS_CALL(hs_cu_enqueue_tangent(c, 0));
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    hs_cu_finish_tangent(c);
    return HS_OK;
}

hs_status hs_cu_element_error(const hs_backend *b, int e)
{
    const hs_model *m = b->prob->opt.model;
    if (m->n_vars == 1)
        return HS_FAIL(HS_ERR_NUMERIC, "the local Newton iteration for %s failed in element %d (on the GPU)",
                       m->vars[0].name, e);
    return HS_FAIL(HS_ERR_NUMERIC, "the local update of the %s model failed in element %d (on the GPU)", m->name, e);
}

hs_status hs_cu_finish_assemble(hs_backend *b, double *res_norm, int32_t *res_node)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    c->t.element += 1e-3 * elapsed_ms(c->ev_e0, c->ev_e1);
    c->t.assembly += 1e-3 * elapsed_ms(c->ev_e1, c->ev_a1);
    if (c->h_sc->bad_elem != 0x7f7f7f7f) return hs_cu_element_error(b, c->h_sc->bad_elem);
    *res_norm = c->h_sc->res;
    *res_node = c->h_sc->res_node;
    return HS_OK;
}

hs_status hs_cu_assemble(hs_backend *b, double *res_norm, int32_t *res_node)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    HS_CHECK(!c->sp, HS_ERR_INTERNAL, "assemble: the splitting scheme has no Newton assembly (its ops are react and "
             "diffuse)");
    HS_CALL(hs_cu_enqueue_assemble(b, 0));
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    return hs_cu_finish_assemble(b, res_norm, res_node);
}

hs_status hs_cu_upload_soa(double **d, const double *h, int32_t n, int w, const char *what)
{
    double *t = NULL;
    HS_CALL(HS_ALLOC(t, (size_t)n * w, what));
    for (int32_t e = 0; e < n; ++e)
        for (int q = 0; q < w; ++q) t[(size_t)q * n + e] = h[(size_t)e * w + q];
    hs_status st = upload(d, t, (size_t)n * w, what);
    free(t);
    return st;
}

/* The host maps index Ke as [ne][16] (16e + 4a + b) and Re as [ne][4] (4e + a); the device arrays
 * are [10][ne] (symmetric entries) and [4][ne]. The contributions keep their order. */
hs_status hs_cu_remap_gather_maps(cuda_impl *c, const hs_assembly_map *map)
{
    int32_t *t = NULL;
    int64_t nk = (int64_t)c->ne * 16, nr = (int64_t)c->ne * 4;
    HS_CALL(HS_ALLOC(t, nk, "K gather map"));
    for (int64_t j = 0; j < nk; ++j) {
        int32_t src = map->k_src[j], e = src / 16, a = (src % 16) / 4, b = src % 4;
        t[j] = (int32_t)((int64_t)hs_sym4_index(a, b) * c->ne + e);
    }
    hs_status st = upload(&c->ksrc, t, nk, "K gather map");
    for (int64_t j = 0; st == HS_OK && j < nr; ++j) {
        int32_t src = map->r_src[j];
        t[j] = (int32_t)((int64_t)(src % 4) * c->ne + src / 4);
    }
    if (st == HS_OK) st = upload(&c->rsrc, t, nr, "R gather map");
    free(t);
    return st;
}
