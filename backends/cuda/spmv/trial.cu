// `solver.spmv = "auto"` on the cuda backend: a short timed trial of the registered kernels on the
// matrix at hand, ranked by what a Newton iteration spends on the format (issue 17): the assembly's
// writes into the format's slots (the split assembly's K pass: one value per symmetric pair written
// to both slots, in pair order) plus `cg_per_newton` CG iterations of its SpMV. With
// Chronopoulos-Gear CG (with_dot) the SpMV is timed as the CG uses it: y = A x together with the
// partial sums of y . x, fused where the format has apply_dot, else a separate dot pass. Values are
// irrelevant to the timing (the access pattern is the pattern's), so the trial uses ones.
// Formats with their own node numbering are not candidates: the renumbering costs the element and
// assembly passes more than it saves in the SpMV (docs/benchmarks.md, issue 17: on the benchmark
// ventricle ellwarp_k2rs ran the 500 ms beat in 7.5 s against cusparse_sell's 6.1 s).
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "hs_cuda_check.cuh"
#include "hs_cuda.h"
#include "hs_gpu_cg.cuh"
#include "hs_gpu_spmv.cuh"
#include "hs_util.h"

namespace {
struct trial_bufs {
    void *vals = nullptr;
    double *x = nullptr, *y = nullptr, *part = nullptr, *res = nullptr, *pv = nullptr;
    unsigned *ticket = nullptr;
    int2 *pslot = nullptr;
    ~trial_bufs()
    {
        cudaFree(vals); cudaFree(x); cudaFree(y); cudaFree(part); cudaFree(res); cudaFree(ticket);
        cudaFree(pv); cudaFree(pslot);
    }
};

/* The split assembly's K-pass stores (backends/cuda/assembly_split.cu, k_split_k): one value per
 * pair, written to the pair's two slots. */
template <typename V>
__global__ void k_trial_scatter(int32_t np, const int2 *__restrict__ pslot, const double *__restrict__ pv,
                                V *__restrict__ vals)
{
    for (int32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < np; p += gridDim.x * blockDim.x) {
        const double s = pv[p];
        const int2 sl = pslot[p];
        vals[sl.x] = (V)s;
        vals[sl.y] = (V)s;
    }
}

hs_status apply_as_cg(hs_gpu_spmv *sp, int with_dot, int32_t n, const double *x, double *y, trial_bufs *b,
                      cudaStream_t s)
{
    double *part = b->part;
    if (!with_dot) return hs_gpu_spmv_apply(sp, x, y, s);
    if (sp->ops->apply_dot)
        return sp->ops->apply_dot(sp->impl, x, y, part, hs_gpu_cg_dparts_cap(n), b->ticket, b->res, nullptr, s);
    HS_CALL(hs_gpu_spmv_apply(sp, x, y, s));
    return hs_gpu_dot_pass(n, y, x, part, nullptr, s); /* the CG's own dot pass */
}
}

/* Median times of one SpMV of format `o` as the CG uses it and of the assembly's stores into its
 * slots (after 3 warm-up runs each); negative when the format cannot be set up for this matrix.
 * pairs: [2 np] CSR positions of each symmetric pair's two entries (the split map's order). */
static hs_status time_format(const hs_spmv_ops *o, const hs_csr *pat, const hs_spmv_params *prm,
                             hs_matrix_values values, int reps, int with_dot, const std::vector<int32_t> &pairs, cudaStream_t s, cudaEvent_t e0,
                             cudaEvent_t e1, double *sec, double *sec_store)
{
    *sec = *sec_store = -1.0;
    hs_spmv_layout *lay = NULL;
    hs_status st = hs_spmv_layout_create(o, pat, prm, &lay);
    if (st != HS_OK) { hs_error_clear(); return HS_OK; }
    if (lay->n_slots > INT32_MAX) { hs_spmv_layout_destroy(&lay); return HS_OK; }
    trial_bufs b;
    hs_gpu_spmv *sp = NULL;
    const int32_t np = (int32_t)(pairs.size() / 2);
    const int f32 = values == HS_VALUES_F32;
    const size_t vbytes = f32 ? sizeof(float) : sizeof(double);
    std::vector<double> h((size_t)lay->n_slots + 1, 0.0), t(reps), ts(reps);
    std::vector<float> hf;
    std::vector<int32_t> ps(pairs.size());
    for (int32_t k = 0; k < pat->nnz; ++k) h[lay->slot_of_nnz[k]] = 1.0;
    if (f32) hf.assign(h.begin(), h.end());
    for (size_t q = 0; q < pairs.size(); ++q) ps[q] = (int32_t)lay->slot_of_nnz[pairs[q]];
    st = hs_cuda_alloc_(&b.vals, vbytes * (size_t)lay->n_slots, "trial values", __FILE__, __LINE__);
    if (st == HS_OK) st = HS_CUDA_ALLOC(b.x, pat->n_cols, "trial x");
    if (st == HS_OK) st = HS_CUDA_ALLOC(b.y, pat->n_rows, "trial y");
    if (st == HS_OK) st = HS_CUDA_ALLOC(b.part, hs_gpu_cg_dparts_cap(pat->n_rows), "trial partials");
    if (st == HS_OK) st = HS_CUDA_ALLOC(b.res, 1, "trial dot");
    if (st == HS_OK) st = HS_CUDA_ALLOC(b.ticket, 1, "trial ticket");
    if (st == HS_OK) st = HS_CUDA_ALLOC(b.pslot, np, "trial pair slots");
    if (st == HS_OK) st = HS_CUDA_ALLOC(b.pv, np, "trial pair values");
    if (st == HS_OK && cudaMemset(b.ticket, 0, sizeof(unsigned)) != cudaSuccess)
        st = HS_FAIL(HS_ERR_DEVICE, "trial: memset failed");
    if (st == HS_OK && cudaMemcpy(b.vals, f32 ? (const void *)hf.data() : (const void *)h.data(),
                                  vbytes * lay->n_slots, cudaMemcpyHostToDevice) != cudaSuccess)
        st = HS_FAIL(HS_ERR_DEVICE, "trial: copy failed");
    if (st == HS_OK && cudaMemcpy(b.pslot, ps.data(), sizeof(int32_t) * ps.size(), cudaMemcpyHostToDevice) != cudaSuccess)
        st = HS_FAIL(HS_ERR_DEVICE, "trial: copy failed");
    if (st == HS_OK && (cudaMemset(b.x, 0, sizeof(double) * pat->n_cols) != cudaSuccess ||
                        cudaMemset(b.pv, 0, sizeof(double) * np) != cudaSuccess))
        st = HS_FAIL(HS_ERR_DEVICE, "trial: memset failed");
    if (st == HS_OK) st = hs_gpu_spmv_create_values(lay, pat, b.vals, values, &sp);
    const int32_t n = pat->n_rows;
    for (int w = 0; st == HS_OK && w < 3; ++w) st = apply_as_cg(sp, with_dot, n, b.x, b.y, &b, s);
    for (int r = 0; st == HS_OK && r < reps; ++r) {
        cudaEventRecord(e0, s);
        st = apply_as_cg(sp, with_dot, n, b.x, b.y, &b, s);
        cudaEventRecord(e1, s);
        if (cudaEventSynchronize(e1) != cudaSuccess) st = HS_FAIL(HS_ERR_DEVICE, "trial: %s failed on the device", o->name);
        float ms = 0.0f;
        cudaEventElapsedTime(&ms, e0, e1);
        t[r] = 1e-3 * ms;
    }
    /* the stores write zeros over the ones the SpMV read: done after it */
    for (int r = -3; st == HS_OK && r < reps; ++r) {
        cudaEventRecord(e0, s);
        if (f32) k_trial_scatter<float><<<(np + 255) / 256, 256, 0, s>>>(np, b.pslot, b.pv, (float *)b.vals);
        else k_trial_scatter<double><<<(np + 255) / 256, 256, 0, s>>>(np, b.pslot, b.pv, (double *)b.vals);
        cudaEventRecord(e1, s);
        if (cudaEventSynchronize(e1) != cudaSuccess) st = HS_FAIL(HS_ERR_DEVICE, "trial: stores into %s failed", o->name);
        float ms = 0.0f;
        cudaEventElapsedTime(&ms, e0, e1);
        if (r >= 0) ts[r] = 1e-3 * ms;
    }
    if (st == HS_OK) {
        *sec = hs_median(t.data(), reps);
        *sec_store = hs_median(ts.data(), reps);
    }
    hs_gpu_spmv_destroy(&sp);
    hs_spmv_layout_destroy(&lay);
    return st;
}

extern "C" hs_status hs_gpu_spmv_trial(const hs_csr *pattern, const hs_spmv_params *prm, hs_matrix_values values,
                                       int reps, int with_dot,
                                       int cg_per_newton, const hs_spmv_ops **best, char *report, size_t report_len)
{
    *best = NULL;
    /* the symmetric pairs in the split map's order (hs_csr_symmetric_pairs, fem/split_map.c) */
    int32_t *pos = NULL, np = 0;
    HS_CALL(hs_csr_symmetric_pairs(pattern, &pos, &np));
    std::vector<int32_t> pairs(pos, pos + 2 * (size_t)np);
    free(pos);
    cudaStream_t s;
    cudaEvent_t e0, e1;
    HS_CUDA_CALL(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    HS_CUDA_CALL(cudaEventCreate(&e0));
    HS_CUDA_CALL(cudaEventCreate(&e1));
    double best_t = 0.0;
    size_t len = 0;
    report[0] = '\0';
    len += (size_t)snprintf(report, report_len, "per Newton iteration: stores + %d x CG SpMV", cg_per_newton);
    hs_status st = HS_OK;
    for (int f = 0; f < hs_spmv_count() && st == HS_OK; ++f) {
        const hs_spmv_ops *o = hs_spmv_get(f);
        if (o->node_order || !hs_spmv_serves(o, values)) continue; /* see the file comment */
        double t = -1.0, ts = -1.0, w0 = hs_wtime();
        st = time_format(o, pattern, prm, values, reps, with_dot, pairs, s, e0, e1, &t, &ts);
        if (st != HS_OK || t < 0) continue;
        const hs_gpu_spmv_ops *g = hs_gpu_spmv_of(o);
        const char *tag = with_dot ? (g && g->apply_dot ? ", dot fused" : ", + dot pass") : "";
        const double whole = ts + cg_per_newton * t;
        if (len < report_len)
            len += (size_t)snprintf(report + len, report_len - len, "; %s %.1f + %d x %.1f = %.0f us (%.2f s%s)",
                                    o->name, 1e6 * ts, cg_per_newton, 1e6 * t, 1e6 * whole, hs_wtime() - w0, tag);
        if (!*best || whole < best_t) {
            *best = o;
            best_t = whole;
        }
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaStreamDestroy(s);
    HS_CALL(st);
    HS_CHECK(*best != NULL, HS_ERR_DEVICE, "solver.spmv = \"auto\": no SpMV kernel could be set up for this matrix");
    return HS_OK;
}
