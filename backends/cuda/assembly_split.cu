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
#include "hs_cuda.h"
#include "hs_gpu_reduce.cuh"
#include "hs_util.h"

/* V: the stored value type (float for solver.matrix_values = float32: the double sum rounded once);
 * pslot[p] = {slot of (i,j), slot of (j,i)}, or {slot, ~i} for the diagonal pair of node i */
template <typename V, typename P>
__global__ void k_split_k(int32_t np, const P *__restrict__ pptr, const int32_t *__restrict__ pelem,
                          const int2 *__restrict__ pslot, const double *__restrict__ kdp,
                          const double *__restrict__ km, V *__restrict__ kval, double *__restrict__ dinv)
{
    for (int32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < np; p += gridDim.x * blockDim.x) {
        double s = kdp[p];
        for (P j = pptr[p]; j < pptr[p + 1]; ++j) s += km[pelem[j]];
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
    const int nb = nblocks(c->np, 256);
    if (c->pptr64 && c->f32)
        k_split_k<float><<<nb, 256, 0, c->s>>>(c->np, c->pptr64, c->pelem, ps, c->kdp, c->km, c->kval32, c->dinv);
    else if (c->pptr64)
        k_split_k<double><<<nb, 256, 0, c->s>>>(c->np, c->pptr64, c->pelem, ps, c->kdp, c->km, c->kval, c->dinv);
    else if (c->f32)
        k_split_k<float><<<nb, 256, 0, c->s>>>(c->np, c->pptr, c->pelem, ps, c->kdp, c->km, c->kval32, c->dinv);
    else
        k_split_k<double><<<nb, 256, 0, c->s>>>(c->np, c->pptr, c->pelem, ps, c->kdp, c->km, c->kval, c->dinv);
    HS_CUDA_LAUNCH_CHECK("k_split_k");
    return HS_OK;
}

/* Upload n values that fill(begin, end, buf) computes on the host, in chunks of a few MB: the host
 * never holds the whole converted array (set-up's peak memory, issue 26). */
template <typename T, typename F>
static hs_status upload_chunked(T **d, size_t n, const char *what, F fill)
{
    HS_CALL(hs_cuda_alloc_((void **)d, sizeof(T) * n, what, __FILE__, __LINE__));
    const size_t chunk = (size_t)1 << 20;
    T *buf = NULL;
    HS_CALL(HS_ALLOC(buf, n < chunk ? n : chunk, what));
    hs_status st = HS_OK;
    for (size_t b = 0; b < n && st == HS_OK; b += chunk) {
        const size_t e = b + chunk < n ? b + chunk : n;
        fill(b, e, buf);
        const cudaError_t ce = cudaMemcpy(*d + b, buf, sizeof(T) * (e - b), cudaMemcpyHostToDevice);
        if (ce != cudaSuccess) st = HS_FAIL(HS_ERR_DEVICE, "uploading %s: %s", what, cudaGetErrorString(ce));
    }
    free(buf);
    return st;
}

/* the largest list pointer kept in 32 bits on the device (hs_cu_split_force_ptr64: -1, every one in 64) */
static int64_t g_ptr32_max = INT32_MAX;

extern "C" void hs_cu_split_force_ptr64(int on) { g_ptr32_max = on ? -1 : INT32_MAX; }

hs_status hs_cu_upload_split(cuda_impl *c, const hs_problem *p)
{
    const hs_split_map *sm = p->split;
    const hs_assembly_map *map = p->map;
    const int64_t *slot = c->lay->slot_of_nnz;
    HS_CHECK(c->lay->n_slots <= INT32_MAX, HS_ERR_CONFIG,
             "solver.assembly = \"split\": the %s format has %lld value slots, more than its 32-bit slot map "
             "holds; use solver.assembly = \"full\"", p->opt.exec.spmv->name, (long long)c->lay->n_slots);
    /* the host map is in the device's pair order (fem/hs_assembly.h): the off-diagonal pairs, then
     * node i's diagonal pair at np_off + i (the persistent step sums the diagonals in its R pass and
     * the rest before a solve) */
    c->np = sm->n_pairs;
    c->np_off = sm->n_off;
    HS_CHECK(c->np - c->np_off == c->nn, HS_ERR_INTERNAL, "split map: %d diagonal pairs for %d nodes",
             c->np - c->np_off, c->nn);
    const int64_t n_entries = sm->p_ptr[c->np];
    /* the list pointers reach 10 n_elems: 32-bit on the device while that fits (4 bytes per pair
     * instead of 8, read by every tangent), 64-bit beyond 2^31 - 1 (from 214.7M elements a rank) */
    if (n_entries <= g_ptr32_max)
        HS_CALL(upload_chunked(&c->pptr, (size_t)c->np + 1, "split map pointers", [&](size_t b, size_t e, int32_t *t) {
            for (size_t q = b; q < e; ++q) t[q - b] = (int32_t)sm->p_ptr[q];
        }));
    else
        HS_CALL(upload(&c->pptr64, sm->p_ptr, (size_t)c->np + 1, "split map pointers (64-bit)"));
    HS_CALL(upload(&c->pelem, sm->p_elem, (size_t)n_entries, "split gather map"));
    HS_CALL(upload(&c->kdp, sm->kd_pair, (size_t)c->np, "diffusion matrix pairs"));
    /* pslot [np][2]: {slot of (i,j), slot of (j,i)}, or {slot, ~i} for node i's diagonal */
    const int32_t n_off = c->np_off;
    HS_CALL(upload_chunked(&c->pslot, 2 * (size_t)c->np, "split map slots", [&](size_t b, size_t e, int32_t *t) {
        for (size_t j = b; j < e; ++j) {
            const int64_t q = (int64_t)(j / 2);
            t[j - b] = j % 2 == 0 || q < n_off ? (int32_t)slot[sm->p_pos[j]] : ~(int32_t)(q - n_off);
        }
    }));
    HS_CALL(upload_chunked(&c->relem, (size_t)c->ne * 4, "R element lists", [&](size_t b, size_t e, int32_t *t) {
        for (size_t j = b; j < e; ++j) t[j - b] = map->r_src[j] / 4;
    }));
    HS_CALL(upload(&c->kdc, sm->kd_csr, (size_t)c->nnz, "diffusion matrix"));
    HS_CALL(upload(&c->csr_rp, p->pattern->row_ptr, (size_t)c->nn + 1, "CSR row pointers"));
    HS_CALL(upload(&c->csr_col, p->pattern->col, (size_t)c->nnz, "CSR columns"));
    HS_CALL(HS_CUDA_ALLOC(c->km, c->ne, "element tangent scalars"));
    HS_CALL(HS_CUDA_ALLOC(c->rm, c->ne, "element residual scalars"));
    return HS_OK;
}
