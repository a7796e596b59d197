/*
 * The pointwise work of the CUDA backend, one thread per node or element: the start of a step
 * (phi_n and the model's variables saved, the first Newton iterate extrapolated from the last steps
 * (fem/hs_extrapolate.h), the element stimulus), the phi update after a solve, activation times at
 * the end of a step, and the return to phi_n when a step is rejected.
 */
#include <climits>

#include "cuda_backend.cuh"
#include "hs_splitting.h"
#include "hs_gpu_reduce.cuh"
#include "hs_readout.h"

/* phi -= du on rows [0, n) when the CG converged - the device CG's status when @p cg is given, else
 * @p conv (the distributed CG decides on the host, backends/cuda/dist_gpu.cu) - and the block maxima
 * of |du| with their rows (parti may be NULL) in hs_maxloc_take's total order: NaN largest, so a
 * non-finite update is reported as such whatever the other rows hold, then the smallest row. One
 * kernel for both (issue 30): the serial one kept its first NaN's row, the distributed one let any NaN
 * win without a row; the values agree, and the total order makes the pair independent of the grid. */
__global__ void k_update_phi(int32_t n, const hs_gpu_cg_scalars *cg, int conv, double *__restrict__ phi,
                             const double *__restrict__ du, double *partv, int *parti)
{
    __shared__ double shv[HS_RED_THREADS];
    __shared__ int shi[HS_RED_THREADS];
    const int apply = cg ? cg->status == HS_GPU_CG_CONV : conv;
    double best = 0.0;
    int bi = INT_MAX;
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const double d = du[i];
        if (apply) phi[i] -= d;
        const double a = fabs(d);
        if (a > best || (isnan(a) && !isnan(best))) { /* rows ascend: hs_maxloc_take's order */
            best = a;
            bi = i;
        }
    }
    hs_block_maxloc(best, bi, shv, shi);
    if (threadIdx.x == 0) {
        partv[blockIdx.x] = best;
        if (parti) parti[blockIdx.x] = bi;
    }
}

hs_status hs_cu_launch_update_phi(cudaStream_t s, int32_t n, const hs_gpu_cg_scalars *cg, int conv, double *phi,
                                  const double *du, double *partv, int *parti)
{
    k_update_phi<<<HS_RED_BLOCKS, HS_RED_THREADS, 0, s>>>(n, cg, conv, phi, du, partv, parti);
    HS_CUDA_LAUNCH_CHECK("k_update_phi");
    return HS_OK;
}

__global__ void k_stim_add(int32_t count, const int32_t *__restrict__ elem, double amp, double *stim_e)
{
    /* elements of one site are distinct: no race */
    for (int32_t j = blockIdx.x * blockDim.x + threadIdx.x; j < count; j += gridDim.x * blockDim.x)
        stim_e[elem[j]] += amp;
}

/* The read-outs of every node (fem/hs_readout.h, the CPU's function): act [4][n] = activation,
 * repolarisation, apd, beats. */
__global__ void k_activation(int32_t n, const double *__restrict__ phin, const double *__restrict__ phi,
                             double *__restrict__ act, double thr, double thr_rep, double t_prev, double dt_ms)
{
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        hs_readout_update(phin[i], phi[i], thr, thr_rep, t_prev, dt_ms, act + i, act + n + i, act + 2 * (int64_t)n + i,
                          act + 3 * (int64_t)n + i);
}

/* phi = w0 phi_n + w1 phi_{n-1} + w2 phi_{n-2} (hs_extrap_weights) */
__global__ void k_extrapolate(int32_t n, double w0, double w1, double w2, const double *__restrict__ phin,
                              const double *__restrict__ h1, const double *__restrict__ h2, double *__restrict__ phi)
{
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        phi[i] = hs_cu_extrap(w0, w1, w2, phin[i], h1[i], w2 != 0.0 ? h2[i] : 0.0);
}

__global__ void k_fill(int64_t n, double v, double *x)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        x[i] = v;
}

hs_status hs_cu_fill(int64_t n, double v, double *x)
{
    k_fill<<<nblocks(n, 256), 256>>>(n, v, x);
    HS_CUDA_LAUNCH_CHECK("k_fill");
    return HS_OK;
}

hs_status hs_cu_begin_step(hs_backend *b, double dt, const double *amp)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    const hs_stim_set *st = b->prob->stim;
    c->dt = dt;
    if (c->sp) { /* the splitting step's start (amp is NULL): the first reaction saves phi_n and the variables */
        c->start_pending = 1;
        return HS_OK;
    }
    HS_CUDA_CALL(cudaMemcpyAsync(c->phin, c->phi, sizeof(double) * c->nn, cudaMemcpyDeviceToDevice, c->s));
    HS_CUDA_CALL(cudaMemcpyAsync(c->ipv_n, c->ipv, sizeof(double) * c->nv * c->nvs, cudaMemcpyDeviceToDevice, c->s));
    double w[3];
    int used = c->ph1 ? hs_extrap_weights(&c->ex, dt, w) : 0;
    if (used > 0) {
        k_extrapolate<<<nblocks(c->nn, 256), 256, 0, c->s>>>(c->nn, w[0], w[1], used > 1 ? w[2] : 0.0, c->phin,
                                                             c->ph1, c->ph2, c->phi);
        HS_CUDA_LAUNCH_CHECK("k_extrapolate");
    }
    int on = 0;
    for (int k = 0; st && k < st->n_sites; ++k) on |= amp[k] != 0.0;
    if (on || c->stim_was_on) { /* the element current array changes only while a site is active */
        HS_CUDA_CALL(cudaMemsetAsync(c->stim_e, 0, sizeof(double) * c->ne, c->s));
        for (int k = 0; st && k < st->n_sites; ++k) {
            int32_t cnt = st->elem_ptr[k + 1] - st->elem_ptr[k];
            if (amp[k] == 0.0 || cnt == 0) continue;
            k_stim_add<<<nblocks(cnt, 256), 256, 0, c->s>>>(cnt, c->stim_elem + st->elem_ptr[k], amp[k], c->stim_e);
            HS_CUDA_LAUNCH_CHECK("k_stim_add");
        }
    }
    c->stim_was_on = on;
    return HS_OK;
}

hs_status hs_cu_enqueue_update(cuda_impl *c)
{
    HS_CALL(hs_cu_launch_update_phi(c->s, c->nn, c->cg->d_sc, 0, c->phi, c->du, c->partA, c->parti));
    HS_CALL(hs_cu_launch_final_maxloc(c, &c->d_sc->upd, &c->d_sc->upd_node));
    return HS_OK;
}

hs_status hs_cu_end_step(hs_backend *b, double t_prev, double dt_ms)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    k_activation<<<nblocks(c->nn, 256), 256, 0, c->s>>>(c->nn, c->phin, c->phi, c->act, b->prob->opt.activation_phi,
                                                        b->prob->opt.repol_phi, t_prev, dt_ms);
    HS_CUDA_LAUNCH_CHECK("k_activation");
    if (c->sp && c->ph1) { /* splitting: the diffusion's corrections, the next solve's guess (d_1 -> d_2,
                             * the step's -> d_1, in place: their addresses are in the captured solve) */
        HS_CUDA_CALL(cudaMemcpyAsync(c->ph2, c->ph1, sizeof(double) * c->nn, cudaMemcpyDeviceToDevice, c->s));
        HS_CUDA_CALL(cudaMemcpyAsync(c->ph1, hs_cu_split_correction(c), sizeof(double) * c->nn,
                                     cudaMemcpyDeviceToDevice, c->s));
        hs_extrap_accept(&c->ex, c->dt);
    } else if (c->ph1) { /* history for the next first iterate: phi_{n-1} becomes phi_{n-2} by a pointer swap
                   * (only k_extrapolate, launched outside the graphs, reads ph1 and ph2), phi_n is
                   * copied (phin's address is in the captured graph) */
        double *t = c->ph2;
        c->ph2 = c->ph1;
        c->ph1 = t;
        HS_CUDA_CALL(cudaMemcpyAsync(c->ph1, c->phin, sizeof(double) * c->nn, cudaMemcpyDeviceToDevice, c->s));
        hs_extrap_accept(&c->ex, c->dt);
    }
    return HS_OK;
}

hs_status hs_cu_restore_step(hs_backend *b)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    if (c->start_pending) { /* splitting: no reaction since begin_step, so nothing changed */
        c->start_pending = 0;
        return HS_OK;
    }
    HS_CUDA_CALL(cudaMemcpyAsync(c->phi, c->phin, sizeof(double) * c->nn, cudaMemcpyDeviceToDevice, c->s));
    HS_CUDA_CALL(cudaMemcpyAsync(c->ipv, c->ipv_n, sizeof(double) * c->nv * c->nvs, cudaMemcpyDeviceToDevice, c->s));
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    return HS_OK;
}

/* ---- sampling: y = S phi for the probes and the pseudo-ECG (fem/hs_sample.h) ----------------- */

/* One block per row: each thread sums a strided part of the row, then a fixed shared-memory tree;
 * the order depends only on the row, so a run gives the same bits every time. */
__global__ void k_sample(int n_rows, const int64_t *__restrict__ rp, const int32_t *__restrict__ col,
                         const double *__restrict__ val, const double *__restrict__ phi, double *__restrict__ out)
{
    __shared__ double sh[256];
    const int j = blockIdx.x;
    if (j >= n_rows) return;
    double acc = 0.0;
    for (int64_t k = rp[j] + threadIdx.x; k < rp[j + 1]; k += blockDim.x) acc += val[k] * phi[col[k]];
    sh[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[j] = sh[0];
}

hs_status hs_cu_sample_setup(hs_backend *b, int set, const hs_sample_set *s, int cap)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    HS_CHECK(set >= 0 && set < HS_SAMPLE_SETS && cap > 0 && s->n_rows > 0, HS_ERR_INTERNAL, "sample set %d, %d rows",
             set, cap);
    cudaFree(c->s_rp[set]);
    cudaFree(c->s_col[set]);
    cudaFree(c->s_val[set]);
    cudaFree(c->s_buf[set]);
    c->s_rp[set] = NULL, c->s_col[set] = NULL, c->s_val[set] = NULL, c->s_buf[set] = NULL;
    const int64_t nnz = s->row_ptr[s->n_rows];
    HS_CALL(HS_CUDA_ALLOC(c->s_rp[set], (size_t)s->n_rows + 1, "sample rows"));
    HS_CALL(HS_CUDA_ALLOC(c->s_col[set], (size_t)nnz, "sample columns"));
    HS_CALL(HS_CUDA_ALLOC(c->s_val[set], (size_t)nnz, "sample weights"));
    HS_CALL(HS_CUDA_ALLOC(c->s_buf[set], (size_t)cap * (size_t)s->n_rows, "sample buffer"));
    HS_CUDA_CALL(cudaMemcpy(c->s_rp[set], s->row_ptr, sizeof(int64_t) * ((size_t)s->n_rows + 1), cudaMemcpyHostToDevice));
    HS_CUDA_CALL(cudaMemcpy(c->s_col[set], s->col, sizeof(int32_t) * (size_t)nnz, cudaMemcpyHostToDevice));
    HS_CUDA_CALL(cudaMemcpy(c->s_val[set], s->val, sizeof(double) * (size_t)nnz, cudaMemcpyHostToDevice));
    c->s_rows[set] = s->n_rows;
    c->s_cap[set] = cap;
    return HS_OK;
}

hs_status hs_cu_sample(hs_backend *b, int set, int slot)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    HS_CHECK(set >= 0 && set < HS_SAMPLE_SETS && c->s_buf[set] && slot >= 0 && slot < c->s_cap[set], HS_ERR_INTERNAL,
             "sample set %d slot %d", set, slot);
    k_sample<<<c->s_rows[set], 256, 0, c->s>>>(c->s_rows[set], c->s_rp[set], c->s_col[set], c->s_val[set], c->phi,
                                                c->s_buf[set] + (size_t)slot * (size_t)c->s_rows[set]);
    HS_CUDA_LAUNCH_CHECK("k_sample");
    return HS_OK;
}

hs_status hs_cu_sample_fetch(hs_backend *b, int set, int n, double *dst)
{
    cuda_impl *c = (cuda_impl *)b->impl;
    HS_CHECK(set >= 0 && set < HS_SAMPLE_SETS && c->s_buf[set] && n >= 0 && n <= c->s_cap[set], HS_ERR_INTERNAL,
             "sample set %d: %d rows", set, n);
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    HS_CUDA_CALL(cudaMemcpy(dst, c->s_buf[set], sizeof(double) * (size_t)n * (size_t)c->s_rows[set],
                            cudaMemcpyDeviceToHost));
    return HS_OK;
}
