// SAI / FSAI / Jacobi on the device (hs_gpu_precond.cuh; CPU reference solvers/precond.c; seed 004
// ch. 5.3). One warp per local problem: see the header for why.
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "hs_cuda_check.cuh"
#include "hs_gpu_precond.cuh"
#include "hs_util.h"

/* the registry entry this file means (solvers/spmv_csr.c), named directly, not looked up */
extern "C" const hs_spmv_ops hs_spmv_ops_csr_vector;

#define FULL 0xffffffffu

/* Sum over the warp by a fixed xor-shuffle tree: every lane gets the same bits. */
__device__ __forceinline__ double warp_sum(double v)
{
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(FULL, v, off);
    return v;
}

__device__ __forceinline__ int warp_max_int(int v)
{
    for (int off = 16; off > 0; off >>= 1) v = max(v, __shfl_xor_sync(FULL, v, off));
    return v;
}

/* Column j of M (seed 004 Fig. 5.1 a-d) by one warp; scratch A [n2max][ld] column-major, w [ld]. */
__global__ static void k_sai(int32_t n, const int32_t *__restrict__ mt_rp, const int32_t *__restrict__ mt_col,
                             const int32_t *__restrict__ at_rp, const int32_t *__restrict__ at_col,
                             const int32_t *__restrict__ at_to_a, const double *__restrict__ a_val, double *mt_val,
                             int ld, int n2max, double *scratch, int32_t *iscratch, int *bad)
{
    const int lane = threadIdx.x & 31;
    const int64_t gw = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int64_t nw = ((int64_t)gridDim.x * blockDim.x) >> 5;
    double *A = scratch + gw * ((int64_t)n2max * ld + ld);
    double *w = A + (int64_t)n2max * ld;
    int32_t *I = iscratch + gw * ld;
    for (int64_t j = gw; j < n; j += nw) {
        const int32_t q0 = mt_rp[j], n2 = mt_rp[j + 1] - q0;
        for (int64_t t = lane; t < (int64_t)n2 * ld; t += 32) A[t] = 0.0;
        __syncwarp();
        /* I in order of first appearance (as the CPU reference), A(I,J) column by column */
        int n1 = 0;
        for (int q = 0; q < n2; ++q) {
            const int32_t k = mt_col[q0 + q], e1 = at_rp[k + 1];
            for (int32_t e0 = at_rp[k]; e0 < e1; e0 += 32) {
                const int32_t e = e0 + lane;
                const bool act = e < e1;
                const int32_t i = act ? at_col[e] : -1;
                int pos = -1;
                if (act)
                    for (int t = 0; t < n1; ++t)
                        if (I[t] == i) { pos = t; break; }
                const unsigned fresh = __ballot_sync(FULL, act && pos < 0);
                if (act && pos < 0) {
                    pos = n1 + __popc(fresh & ((1u << lane) - 1u));
                    if (pos < ld) I[pos] = i;
                }
                n1 += __popc(fresh);
                if (act && pos < ld) A[(int64_t)q * ld + pos] = a_val[at_to_a[e]];
                __syncwarp();
            }
        }
        int jrow = -1;
        for (int t = lane; t < n1 && t < ld; t += 32)
            if (I[t] == (int32_t)j) jrow = t;
        jrow = warp_max_int(jrow);
        if (n1 > ld || n1 < n2 || jrow < 0) {
            if (lane == 0) atomicMin(bad, (int)j);
            continue;
        }
        for (int t = lane; t < n1; t += 32) w[t] = t == jrow ? 1.0 : 0.0;
        __syncwarp();
        /* Householder QR (the same steps as hs_sai_solve_dense), rows over the lanes */
        double rmax = 0.0;
        for (int q = 0; q < n2; ++q) {
            double *x = A + (int64_t)q * ld;
            double xx = 0.0;
            for (int r = q + lane; r < n1; r += 32) xx += x[r] * x[r];
            xx = warp_sum(xx);
            const double xn = sqrt(xx), xq = x[q];
            const double alpha = xq > 0.0 ? -xn : xn;
            __syncwarp();
            if (xn > 0.0) {
                const double vv = 2.0 * (xx - xq * alpha);
                if (lane == 0) x[q] = xq - alpha;
                __syncwarp();
                for (int c = q + 1; c <= n2; ++c) { /* c == n2: the right-hand side */
                    double *y = c < n2 ? A + (int64_t)c * ld : w;
                    double s = 0.0;
                    for (int r = q + lane; r < n1; r += 32) s += x[r] * y[r];
                    s = warp_sum(s) * (2.0 / vv);
                    for (int r = q + lane; r < n1; r += 32) y[r] -= s * x[r];
                    __syncwarp();
                }
            }
            if (lane == 0) x[q] = alpha;
            rmax = fmax(rmax, fabs(alpha));
            __syncwarp();
        }
        const double tol = (double)n1 * DBL_EPSILON * rmax;
        bool deficient = false;
        for (int q = lane; q < n2; q += 32) deficient |= !(fabs(A[(int64_t)q * ld + q]) > tol);
        if (__any_sync(FULL, deficient)) {
            if (lane == 0) atomicMin(bad, (int)j);
            continue;
        }
        /* R m = Q^T e_j by columns: m_q, then the rows above lose R(r,q) m_q */
        for (int q = n2 - 1; q >= 0; --q) {
            const double mq = w[q] / A[(int64_t)q * ld + q];
            __syncwarp();
            for (int r = lane; r < q; r += 32) w[r] -= A[(int64_t)q * ld + r] * mq;
            if (lane == 0) mt_val[q0 + q] = mq;
            __syncwarp();
        }
    }
}

/* Row i of G by one warp: A(P,P) row-major in L [n2max][n2max], g [n2max]. */
__global__ static void k_fsai(int32_t n, const int32_t *__restrict__ g_rp, const int32_t *__restrict__ g_col,
                              const int32_t *__restrict__ a_rp, const int32_t *__restrict__ a_col,
                              const double *__restrict__ a_val, double *g_val, int n2max, double *scratch, int *bad)
{
    const int lane = threadIdx.x & 31;
    const int64_t gw = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int64_t nw = ((int64_t)gridDim.x * blockDim.x) >> 5;
    double *L = scratch + gw * ((int64_t)n2max * n2max + n2max);
    double *g = L + (int64_t)n2max * n2max;
    for (int64_t i = gw; i < n; i += nw) {
        const int32_t q0 = g_rp[i], n2 = g_rp[i + 1] - q0;
        const int32_t *P = g_col + q0;
        for (int r = lane; r < n2; r += 32) { /* merge row P[r] of A with P */
            double *o = L + (int64_t)r * n2;
            for (int c = 0; c < n2; ++c) o[c] = 0.0;
            int32_t e = a_rp[P[r]], ee = a_rp[P[r] + 1];
            int c = 0;
            while (e < ee && c < n2) {
                if (a_col[e] < P[c]) ++e;
                else if (a_col[e] > P[c]) ++c;
                else o[c++] = a_val[e++];
            }
        }
        __syncwarp();
        bool fail = false;
        for (int j = 0; j < n2; ++j) { /* right-looking Cholesky, a lane per row below j */
            const double d = L[(int64_t)j * n2 + j];
            if (!(d > 0.0) || !isfinite(d)) { fail = true; break; }
            const double ljj = sqrt(d);
            __syncwarp();
            for (int r = j + 1 + lane; r < n2; r += 32) L[(int64_t)r * n2 + j] /= ljj;
            if (lane == 0) L[(int64_t)j * n2 + j] = ljj;
            __syncwarp();
            for (int r = j + 1 + lane; r < n2; r += 32) {
                const double lrj = L[(int64_t)r * n2 + j];
                for (int c = j + 1; c <= r; ++c) L[(int64_t)r * n2 + c] -= lrj * L[(int64_t)c * n2 + j];
            }
            __syncwarp();
        }
        if (fail) { /* d is the same in every lane: the whole warp leaves together */
            if (lane == 0) atomicMin(bad, (int)i);
            continue;
        }
        const int last = n2 - 1;
        for (int r = lane; r < n2; r += 32) g[r] = r == last ? 1.0 / L[(int64_t)last * n2 + last] : 0.0;
        __syncwarp();
        for (int k = last; k >= 0; --k) { /* L^T g = y by columns of L^T (rows of L) */
            const double gk = g[k] / L[(int64_t)k * n2 + k];
            __syncwarp();
            for (int r = lane; r < k; r += 32) g[r] -= L[(int64_t)k * n2 + r] * gk;
            if (lane == 0) g[k] = gk;
            __syncwarp();
        }
        const double sc = 1.0 / sqrt(g[last]);
        for (int r = lane; r < n2; r += 32) g_val[q0 + r] = g[r] * sc;
        __syncwarp();
    }
}

__global__ static void k_jacobi_values(int32_t n, const int32_t *diag_pos, const double *a_val, double *inv_diag, int *bad)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        const double d = diag_pos[i] >= 0 ? a_val[diag_pos[i]] : 0.0;
        if (d == 0.0 || !isfinite(d)) atomicMin(bad, (int)i);
        else inv_diag[i] = 1.0 / d;
    }
}

__global__ static void k_jacobi_apply(int32_t n, const double *inv_diag, const double *r, double *z)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        z[i] = inv_diag[i] * r[i];
}

/* dst[k] = src[map[k]] (to = 1) or dst[map[k]] = src[k] (to = 0): the transposed copy of the values. */
__global__ static void k_permute(int32_t nnz, const int32_t *map, const double *src, double *dst, int gather)
{
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += (int64_t)gridDim.x * blockDim.x) {
        if (gather) dst[k] = src[map[k]];
        else dst[map[k]] = src[k];
    }
}

static int grid_for(int64_t n, int threads)
{
    int64_t b = (n + threads - 1) / threads;
    return (int)(b < 1 ? 1 : b > 65535 ? 65535 : b);
}

template <typename T>
static hs_status up(T **d, const T *h, size_t count, const char *what)
{
    HS_CALL(hs_cuda_alloc_((void **)d, sizeof(T) * (count ? count : 1), what, __FILE__, __LINE__));
    if (count && h) HS_CUDA_CALL(cudaMemcpy(*d, h, sizeof(T) * count, cudaMemcpyHostToDevice)); /* h NULL: allocate only */
    return HS_OK;
}

hs_status hs_gpu_precond_create(const hs_precond *h, const hs_csr *a, size_t scratch_bytes, hs_gpu_precond **out)
{
    *out = nullptr;
    hs_gpu_precond *g = (hs_gpu_precond *)calloc(1, sizeof *g);
    HS_CHECK(g, HS_ERR_MEMORY, "out of memory for the device preconditioner");
    hs_status st = HS_OK;
    g->kind = h->kind;
    g->level = h->level;
    g->n = h->n;
    g->max_n1 = h->max_n1 > 0 ? h->max_n1 : 1;
    g->max_n2 = h->max_n2 > 0 ? h->max_n2 : 1;
    if (!scratch_bytes) scratch_bytes = (size_t)256 << 20;
    HS_CALL_GOTO(up(&g->d_bad, (const int *)nullptr, 0, "preconditioner status"), fail);
    HS_CALL_GOTO(up(&g->diag_pos, h->diag_pos, (size_t)h->n, "diagonal positions"), fail);
    if (h->kind == HS_PRECOND_JACOBI) {
        HS_CALL_GOTO(up(&g->inv_diag, (const double *)nullptr, (size_t)h->n, "Jacobi preconditioner"), fail);
    } else {
        const hs_csr *m = h->m, *mt = h->mt;
        HS_CALL_GOTO(up(&g->m_rp, m->row_ptr, (size_t)m->n_rows + 1, "preconditioner rows"), fail);
        HS_CALL_GOTO(up(&g->m_col, m->col, (size_t)m->nnz, "preconditioner columns"), fail);
        HS_CALL_GOTO(up(&g->mt_rp, mt->row_ptr, (size_t)mt->n_rows + 1, "preconditioner transpose rows"), fail);
        HS_CALL_GOTO(up(&g->mt_col, mt->col, (size_t)mt->nnz, "preconditioner transpose columns"), fail);
        HS_CALL_GOTO(up(&g->mt_to_m, h->mt_to_m, (size_t)mt->nnz, "preconditioner transpose map"), fail);
        HS_CALL_GOTO(up(&g->m_val, (const double *)nullptr, (size_t)m->nnz, "preconditioner values"), fail);
        HS_CALL_GOTO(up(&g->mt_val, (const double *)nullptr, (size_t)mt->nnz, "preconditioner transpose values"), fail);
        HS_CUDA_CALL(cudaMemset(g->m_val, 0, sizeof(double) * (m->nnz ? m->nnz : 1)));
        HS_CUDA_CALL(cudaMemset(g->mt_val, 0, sizeof(double) * (mt->nnz ? mt->nnz : 1)));
        size_t per_warp = h->kind == HS_PRECOND_SAI ? ((size_t)g->max_n2 * g->max_n1 + g->max_n1) * sizeof(double) +
                                                          (size_t)g->max_n1 * sizeof(int32_t)
                                                    : ((size_t)g->max_n2 * g->max_n2 + g->max_n2) * sizeof(double);
        int64_t nw = (int64_t)(scratch_bytes / per_warp);
        if (nw > 16384) nw = 16384; /* more than every SM can hold at once */
        if (nw > h->n) nw = h->n;
        if (nw < 1) nw = 1;
        g->nwarps = (int)((nw + 7) / 8 * 8); /* blocks of 8 warps (256 threads), as seed 004 5.3 B */
        HS_CALL_GOTO(hs_cuda_alloc_((void **)&g->scratch, per_warp * g->nwarps, "SAI/FSAI local problems", __FILE__,
                                    __LINE__), fail);
        if (h->kind == HS_PRECOND_SAI) {
            g->iscratch = (int32_t *)(void *)(g->scratch + (size_t)g->nwarps * ((size_t)g->max_n2 * g->max_n1 + g->max_n1));
            HS_CALL_GOTO(up(&g->at_rp, h->at->row_ptr, (size_t)h->at->n_rows + 1, "A^T rows"), fail);
            HS_CALL_GOTO(up(&g->at_col, h->at->col, (size_t)h->at->nnz, "A^T columns"), fail);
            HS_CALL_GOTO(up(&g->at_to_a, h->at_to_a, (size_t)h->at->nnz, "A^T map"), fail);
        } else {
            HS_CALL_GOTO(up(&g->a_rp, a->row_ptr, (size_t)a->n_rows + 1, "A rows"), fail);
            HS_CALL_GOTO(up(&g->a_col, a->col, (size_t)a->nnz, "A columns"), fail);
            HS_CALL_GOTO(up(&g->tmp, (const double *)nullptr, (size_t)h->n, "FSAI intermediate"), fail);
        }
        /* M (G) and M^T (G^T) through the SpMV registry: csr_vector, whose slots are the CSR order */
        const hs_spmv_ops *ops = &hs_spmv_ops_csr_vector;
        hs_spmv_params prm = hs_spmv_params_default();
        HS_CALL_GOTO(hs_spmv_layout_create(ops, m, &prm, &g->lay_m), fail);
        HS_CALL_GOTO(hs_spmv_layout_create(ops, mt, &prm, &g->lay_mt), fail);
        HS_CHECK_GOTO(g->lay_m->n_slots == m->nnz && g->lay_mt->n_slots == mt->nnz, fail, HS_ERR_INTERNAL,
                      "csr_vector slots are not the CSR order");
        HS_CALL_GOTO(hs_gpu_spmv_create(g->lay_m, m, g->m_val, &g->sp_m), fail);
        HS_CALL_GOTO(hs_gpu_spmv_create(g->lay_mt, mt, g->mt_val, &g->sp_mt), fail);
    }
    *out = g;
    return HS_OK;
fail:
    hs_gpu_precond_destroy(&g);
    return st;
}

void hs_gpu_precond_destroy(hs_gpu_precond **p)
{
    if (!p || !*p) return;
    hs_gpu_precond *g = *p;
    hs_gpu_spmv_destroy(&g->sp_m);
    hs_gpu_spmv_destroy(&g->sp_mt);
    hs_spmv_layout_destroy(&g->lay_m);
    hs_spmv_layout_destroy(&g->lay_mt);
    void *dev[] = {g->a_rp, g->a_col, g->diag_pos, g->inv_diag, g->at_rp, g->at_col, g->at_to_a, g->mt_rp, g->mt_col,
                   g->mt_to_m, g->m_rp, g->m_col, g->m_val, g->mt_val, g->scratch, g->d_bad, g->tmp};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; ++i) cudaFree(dev[i]);
    free(g);
    *p = nullptr;
}

hs_status hs_gpu_precond_compute(hs_gpu_precond *g, const double *d_a_val, cudaStream_t s)
{
    const int none = INT_MAX;
    HS_CUDA_CALL(cudaMemcpyAsync(g->d_bad, &none, sizeof none, cudaMemcpyHostToDevice, s));
    const int32_t n = g->n;
    if (g->kind == HS_PRECOND_JACOBI) {
        k_jacobi_values<<<grid_for(n, 256), 256, 0, s>>>(n, g->diag_pos, d_a_val, g->inv_diag, g->d_bad);
        HS_CUDA_LAUNCH_CHECK("k_jacobi_values");
    } else if (g->kind == HS_PRECOND_SAI) {
        k_sai<<<g->nwarps / 8, 256, 0, s>>>(n, g->mt_rp, g->mt_col, g->at_rp, g->at_col, g->at_to_a, d_a_val,
                                            g->mt_val, g->max_n1, g->max_n2, g->scratch, g->iscratch, g->d_bad);
        HS_CUDA_LAUNCH_CHECK("k_sai");
    } else {
        k_fsai<<<g->nwarps / 8, 256, 0, s>>>(n, g->m_rp, g->m_col, g->a_rp, g->a_col, d_a_val, g->m_val, g->max_n2,
                                             g->scratch, g->d_bad);
        HS_CUDA_LAUNCH_CHECK("k_fsai");
    }
    int bad = none;
    HS_CUDA_CALL(cudaMemcpyAsync(&bad, g->d_bad, sizeof bad, cudaMemcpyDeviceToHost, s));
    HS_CUDA_CALL(cudaStreamSynchronize(s));
    HS_CHECK(bad == none || g->kind != HS_PRECOND_JACOBI, HS_ERR_NUMERIC,
             "Jacobi preconditioner: the diagonal entry of row %d (1-based) is zero (or missing, or not finite); Jacobi "
             "needs a nonzero diagonal: use solver.precond = \"sai\" with solver.krylov = \"bicgstab\"", bad + 1);
    HS_CHECK(bad == none || g->kind != HS_PRECOND_SAI, HS_ERR_NUMERIC,
             "SAI preconditioner: the least-squares problem of column %d (1-based) is rank deficient: the matrix is "
             "singular (e.g. a zero column), or numerically so on the pattern of A^%d", bad + 1, g->level);
    HS_CHECK(bad == none, HS_ERR_NUMERIC,
             "FSAI preconditioner: the submatrix A(P,P) of row %d (1-based) is not positive definite: FSAI needs a "
             "symmetric positive definite matrix; for a general one use solver.precond = \"sai\" with "
             "solver.krylov = \"bicgstab\"", bad + 1);
    if (g->kind == HS_PRECOND_SAI) { /* Post-GSAI: M^T's values into M (seed 004 5.3 C) */
        k_permute<<<grid_for(g->lay_mt->n_slots, 256), 256, 0, s>>>((int32_t)g->lay_mt->n_slots, g->mt_to_m, g->mt_val,
                                                                    g->m_val, 0);
        HS_CUDA_LAUNCH_CHECK("k_permute");
    } else if (g->kind == HS_PRECOND_FSAI) { /* G^T's values from G */
        k_permute<<<grid_for(g->lay_mt->n_slots, 256), 256, 0, s>>>((int32_t)g->lay_mt->n_slots, g->mt_to_m, g->m_val,
                                                                    g->mt_val, 1);
        HS_CUDA_LAUNCH_CHECK("k_permute");
    }
    return HS_OK;
}

hs_status hs_gpu_precond_apply(hs_gpu_precond *g, const double *d_r, double *d_z, cudaStream_t s)
{
    switch (g->kind) {
    case HS_PRECOND_JACOBI:
        k_jacobi_apply<<<grid_for(g->n, 256), 256, 0, s>>>(g->n, g->inv_diag, d_r, d_z);
        HS_CUDA_LAUNCH_CHECK("k_jacobi_apply");
        return HS_OK;
    case HS_PRECOND_SAI:
        return hs_gpu_spmv_apply(g->sp_m, d_r, d_z, s);
    case HS_PRECOND_FSAI:
        HS_CALL(hs_gpu_spmv_apply(g->sp_m, d_r, g->tmp, s));
        return hs_gpu_spmv_apply(g->sp_mt, g->tmp, d_z, s);
    }
    return HS_FAIL(HS_ERR_INTERNAL, "preconditioner %d not in the list", (int)g->kind);
}

hs_status hs_gpu_precond_apply_cb(void *ctx, const double *d_r, double *d_z, cudaStream_t s)
{
    return hs_gpu_precond_apply((hs_gpu_precond *)ctx, d_r, d_z, s);
}
