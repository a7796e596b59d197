/*
 * The split assembly on the CUDA backend (fem/hs_assembly.h): K = K_D + sum_e km_e 11^T and
 * R = K_D phi + sum_e rm_e 1, with K_D uploaded once. One thread per node forms R and the block
 * maxima of the weighted residual (every Newton test); one thread per symmetric pair {i, j} sums km
 * over the pair's elements and writes both format slots, or for a diagonal pair its slot and the
 * Jacobi diagonal's inverse (only before a solve: the tangent op). No atomics, fixed order: the same
 * sums in the same order as the CPU reference (hs_split_assemble_k / _r), up to the device's fused
 * multiply-adds in K_D phi.
 */
#include <climits>
#include <cstdlib>

#include "cuda_backend.cuh"
#include "hs_gpu_reduce.cuh"
#include "hs_util.h"

/* V: the stored value type (float for solver.matrix_values = float32: the double sum rounded once);
 * pslot[p] = {slot of (i,j), slot of (j,i)}, or {slot, ~i} for the diagonal pair of node i */
template <typename V>
__global__ void k_split_k(int32_t np, const int32_t *__restrict__ pptr, const int32_t *__restrict__ pelem,
                          const int2 *__restrict__ pslot, const double *__restrict__ kdp,
                          const double *__restrict__ km, V *__restrict__ kval, double *__restrict__ dinv)
{
    for (int32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < np; p += gridDim.x * blockDim.x) {
        double s = kdp[p];
        for (int32_t j = pptr[p]; j < pptr[p + 1]; ++j) s += km[pelem[j]];
        const int2 sl = pslot[p];
        const V v = (V)s;
        kval[sl.x] = v;
        if (sl.y >= 0) kval[sl.y] = v;
        else dinv[~sl.y] = 1.0 / (double)v; /* the CG matrix's own (possibly rounded) diagonal */
    }
}

__global__ void k_split_r(int32_t nn, const int32_t *__restrict__ rp, const int32_t *__restrict__ col,
                          const double *__restrict__ kdc, const double *__restrict__ phi,
                          const int32_t *__restrict__ rptr, const int32_t *__restrict__ relem,
                          const double *__restrict__ rm, const double *__restrict__ inv_mass, double dt,
                          double *__restrict__ rhs, double *partv, int *parti)
{
    __shared__ double shv[HS_RED_THREADS];
    __shared__ int shi[HS_RED_THREADS];
    double best = 0.0;
    int bi = INT_MAX;
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < nn; i += gridDim.x * blockDim.x) {
        double s = 0.0, t = 0.0;
        for (int32_t k = rp[i]; k < rp[i + 1]; ++k) s += kdc[k] * phi[col[k]];
        for (int32_t j = rptr[i]; j < rptr[i + 1]; ++j) t += rm[relem[j]];
        const double r = s + t;
        rhs[i] = r;
        double w = fabs(r) * dt * inv_mass[i];
        if (w > best || (isnan(w) && !isnan(best))) { best = w; bi = i; }
    }
    hs_block_maxloc(best, bi, shv, shi);
    if (threadIdx.x == 0) { partv[blockIdx.x] = best; parti[blockIdx.x] = bi; }
}

hs_status hs_cu_enqueue_split_r(cuda_impl *c)
{
    k_split_r<<<HS_RED_BLOCKS, HS_RED_THREADS, 0, c->s>>>(c->nn, c->csr_rp, c->csr_col, c->kdc, c->phi, c->rptr,
                                                          c->relem, c->rm, c->inv_mass, c->dt, c->rhs, c->partA,
                                                          c->parti);
    HS_CUDA_LAUNCH_CHECK("k_split_r");
    return HS_OK;
}

hs_status hs_cu_enqueue_split_k(cuda_impl *c)
{
    const int2 *ps = reinterpret_cast<const int2 *>(c->pslot);
    if (c->f32)
        k_split_k<float><<<nblocks(c->np, 256), 256, 0, c->s>>>(c->np, c->pptr, c->pelem, ps, c->kdp, c->km,
                                                                c->kval32, c->dinv);
    else
        k_split_k<double><<<nblocks(c->np, 256), 256, 0, c->s>>>(c->np, c->pptr, c->pelem, ps, c->kdp, c->km,
                                                                 c->kval, c->dinv);
    HS_CUDA_LAUNCH_CHECK("k_split_k");
    return HS_OK;
}

hs_status hs_cu_upload_split(cuda_impl *c, const hs_problem *p)
{
    const hs_split_map *sm = p->split;
    const hs_assembly_map *map = p->map;
    const int64_t *slot = c->lay->slot_of_nnz;
    const int32_t *rp = p->pattern->row_ptr;
    HS_CHECK(c->lay->n_slots <= INT32_MAX, HS_ERR_CONFIG,
             "solver.assembly = \"split\": the %s format has %lld value slots, more than its 32-bit slot map "
             "holds; use solver.assembly = \"full\"", p->opt.exec.spmv->name, (long long)c->lay->n_slots);
    c->np = sm->n_pairs;
    /* the device's pair order: the off-diagonal pairs in the map's order, then node i's diagonal pair
     * at np_off + i (the persistent step sums the diagonals in its R pass and the rest before a solve;
     * each pair's sum is independent of where it sits) */
    int32_t *order = NULL, *ptr = NULL, *elem = NULL, *t = NULL;
    double *kdp = NULL;
    const size_t nt = 2 * (size_t)c->np > (size_t)c->ne * 4 ? 2 * (size_t)c->np : (size_t)c->ne * 4;
    hs_status st = HS_ALLOC(order, (size_t)c->np, "split map order");
    if (st == HS_OK) st = HS_ALLOC(ptr, (size_t)c->np + 1, "split map pointers");
    if (st == HS_OK) st = HS_ALLOC(elem, (size_t)sm->p_ptr[c->np] + 1, "split gather map");
    if (st == HS_OK) st = HS_ALLOC(kdp, (size_t)c->np, "diffusion matrix pairs");
    if (st == HS_OK) st = HS_ALLOC(t, nt, "split map staging");
    int32_t n_off = 0, n_diag = 0;
    for (int32_t q = 0; st == HS_OK && q < c->np; ++q)
        if (sm->p_pos[2 * (int64_t)q] != sm->p_pos[2 * (int64_t)q + 1]) order[n_off++] = q;
    c->np_off = n_off;
    for (int32_t q = 0; st == HS_OK && q < c->np; ++q) {
        const int64_t u = sm->p_pos[2 * (int64_t)q];
        if (u != sm->p_pos[2 * (int64_t)q + 1]) continue;
        int32_t lo = 0, hi = c->nn - 1; /* the diagonal's row: rp[lo] <= u < rp[lo + 1] */
        while (lo < hi) {
            const int32_t mid = lo + (hi - lo + 1) / 2;
            if (rp[mid] <= u) lo = mid;
            else hi = mid - 1;
        }
        if (n_off + lo < c->np) order[n_off + lo] = q;
        ++n_diag;
    }
    if (st == HS_OK && (n_diag != c->nn || n_off + n_diag != c->np))
        st = HS_FAIL(HS_ERR_INTERNAL, "split map: %d diagonal pairs for %d nodes", n_diag, c->nn);
    if (st == HS_OK) {
        ptr[0] = 0;
        for (int32_t k = 0; k < c->np; ++k) {
            const int32_t q = order[k], n = sm->p_ptr[q + 1] - sm->p_ptr[q];
            for (int32_t j = 0; j < n; ++j) elem[ptr[k] + j] = sm->p_elem[sm->p_ptr[q] + j];
            ptr[k + 1] = ptr[k] + n;
            kdp[k] = sm->kd_pair[q];
            const int64_t u = sm->p_pos[2 * (int64_t)q], l = sm->p_pos[2 * (int64_t)q + 1];
            t[2 * (int64_t)k] = (int32_t)slot[u];
            t[2 * (int64_t)k + 1] = k < n_off ? (int32_t)slot[l] : ~(k - n_off); /* {slot, ~node}: a diagonal */
        }
    }
    if (st == HS_OK) st = upload(&c->pptr, ptr, (size_t)c->np + 1, "split map pointers");
    if (st == HS_OK) st = upload(&c->pelem, elem, (size_t)ptr[c->np], "split gather map");
    if (st == HS_OK) st = upload(&c->kdp, kdp, (size_t)c->np, "diffusion matrix pairs");
    if (st == HS_OK) st = upload(&c->pslot, t, 2 * (size_t)c->np, "split map slots");
    for (int64_t j = 0; st == HS_OK && j < (int64_t)c->ne * 4; ++j) t[j] = map->r_src[j] / 4;
    if (st == HS_OK) st = upload(&c->relem, t, (size_t)c->ne * 4, "R element lists");
    free(order);
    free(ptr);
    free(elem);
    free(kdp);
    free(t);
    HS_CALL(st);
    HS_CALL(upload(&c->kdc, sm->kd_csr, (size_t)c->nnz, "diffusion matrix"));
    HS_CALL(upload(&c->csr_rp, p->pattern->row_ptr, (size_t)c->nn + 1, "CSR row pointers"));
    HS_CALL(upload(&c->csr_col, p->pattern->col, (size_t)c->nnz, "CSR columns"));
    HS_CALL(HS_CUDA_ALLOC(c->km, c->ne, "element tangent scalars"));
    HS_CALL(HS_CUDA_ALLOC(c->rm, c->ne, "element residual scalars"));
    return HS_OK;
}
