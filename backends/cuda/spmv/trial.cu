// `solver.spmv = "auto"` on the cuda backend: a short timed trial of every registered kernel on the
// matrix at hand (seed 002 names such a selection metric as future work). Values are irrelevant to
// the timing (the access pattern is the pattern's), so the trial uses ones. With Chronopoulos-Gear CG
// (with_dot) each kernel is timed as the CG uses it: y = A x together with the partial sums of
// y . x, fused where the format has apply_dot, else the SpMV and a separate dot pass.
#include <cstdio>
#include <cstring>
#include <vector>

#include "hs_cuda_check.cuh"
#include "hs_cuda.h"
#include "hs_gpu_cg.cuh"
#include "hs_gpu_spmv.cuh"
#include "hs_util.h"

namespace {
struct trial_bufs {
    double *vals = nullptr, *x = nullptr, *y = nullptr, *part = nullptr, *res = nullptr;
    unsigned *ticket = nullptr;
    ~trial_bufs() { cudaFree(vals); cudaFree(x); cudaFree(y); cudaFree(part); cudaFree(res); cudaFree(ticket); }
};

hs_status apply_as_cg(hs_gpu_spmv *sp, int with_dot, int32_t n, const double *x, double *y, trial_bufs *b,
                      cudaStream_t s)
{
    double *part = b->part;
    if (!with_dot) return hs_gpu_spmv_apply(sp, x, y, s);
    if (sp->ops->apply_dot)
        return sp->ops->apply_dot(sp->impl, x, y, part, hs_gpu_cg_dparts_cap(n), b->ticket, b->res, s);
    HS_CALL(hs_gpu_spmv_apply(sp, x, y, s));
    return hs_gpu_dot_pass(n, y, x, part, nullptr, s); /* the CG's own dot pass */
}
}

/* Median time of one SpMV of format `o` (after 3 warm-up runs), or a negative value when the format
 * cannot be set up for this matrix. */
static hs_status time_format(const hs_spmv_ops *o, const hs_csr *pat, const hs_spmv_params *prm, int reps,
                             int with_dot, cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, double *sec)
{
    *sec = -1.0;
    /* a format with its own numbering is timed in it, as the run would use it */
    hs_csr *own = NULL;
    if (o->node_order) {
        std::vector<int32_t> perm((size_t)pat->n_rows + 1);
        hs_status s2 = o->node_order(pat, prm, perm.data());
        if (s2 == HS_OK) s2 = hs_csr_permute(pat, perm.data(), &own);
        if (s2 != HS_OK) { hs_error_clear(); return HS_OK; }
        pat = own;
    }
    hs_spmv_layout *lay = NULL;
    hs_status st = hs_spmv_layout_create(o, pat, prm, &lay);
    if (st != HS_OK) { hs_error_clear(); hs_csr_destroy(&own); return HS_OK; }
    trial_bufs b;
    hs_gpu_spmv *sp = NULL;
    std::vector<double> h((size_t)lay->n_slots + 1, 0.0), t(reps);
    for (int32_t k = 0; k < pat->nnz; ++k) h[lay->slot_of_nnz[k]] = 1.0;
    st = HS_CUDA_ALLOC(b.vals, lay->n_slots, "trial values");
    if (st == HS_OK) st = HS_CUDA_ALLOC(b.x, pat->n_cols, "trial x");
    if (st == HS_OK) st = HS_CUDA_ALLOC(b.y, pat->n_rows, "trial y");
    if (st == HS_OK) st = HS_CUDA_ALLOC(b.part, hs_gpu_cg_dparts_cap(pat->n_rows), "trial partials");
    if (st == HS_OK) st = HS_CUDA_ALLOC(b.res, 1, "trial dot");
    if (st == HS_OK) st = HS_CUDA_ALLOC(b.ticket, 1, "trial ticket");
    if (st == HS_OK && cudaMemset(b.ticket, 0, sizeof(unsigned)) != cudaSuccess)
        st = HS_FAIL(HS_ERR_DEVICE, "trial: memset failed");
    if (st == HS_OK && cudaMemcpy(b.vals, h.data(), sizeof(double) * lay->n_slots, cudaMemcpyHostToDevice) != cudaSuccess)
        st = HS_FAIL(HS_ERR_DEVICE, "trial: copy failed");
    if (st == HS_OK && cudaMemset(b.x, 0, sizeof(double) * pat->n_cols) != cudaSuccess)
        st = HS_FAIL(HS_ERR_DEVICE, "trial: memset failed");
    if (st == HS_OK) st = hs_gpu_spmv_create(lay, pat, b.vals, &sp);
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
    if (st == HS_OK) *sec = hs_median(t.data(), reps);
    hs_gpu_spmv_destroy(&sp);
    hs_spmv_layout_destroy(&lay);
    hs_csr_destroy(&own);
    return st;
}

extern "C" hs_status hs_gpu_spmv_trial(const hs_csr *pattern, const hs_spmv_params *prm, int reps, int with_dot,
                                       const hs_spmv_ops **best, char *report, size_t report_len)
{
    *best = NULL;
    cudaStream_t s;
    cudaEvent_t e0, e1;
    HS_CUDA_CALL(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    HS_CUDA_CALL(cudaEventCreate(&e0));
    HS_CUDA_CALL(cudaEventCreate(&e1));
    double best_t = 0.0;
    size_t len = 0;
    report[0] = '\0';
    hs_status st = HS_OK;
    for (int f = 0; f < hs_spmv_count() && st == HS_OK; ++f) {
        const hs_spmv_ops *o = hs_spmv_get(f);
        double t = -1.0, w0 = hs_wtime();
        st = time_format(o, pattern, prm, reps, with_dot, s, e0, e1, &t);
        if (st != HS_OK || t < 0) continue;
        const hs_gpu_spmv_ops *g = hs_gpu_spmv_find(o->name);
        const char *tag = with_dot ? (g && g->apply_dot ? " (dot fused)" : " (+ dot pass)") : "";
        if (len < report_len)
            len += (size_t)snprintf(report + len, report_len - len, "%s%s %.1f us%s [set-up and trial %.2f s]",
                                    len ? ", " : "", o->name, 1e6 * t, tag, hs_wtime() - w0);
        if (!*best || t < best_t) {
            *best = o;
            best_t = t;
        }
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaStreamDestroy(s);
    HS_CALL(st);
    HS_CHECK(*best != NULL, HS_ERR_DEVICE, "solver.spmv = \"auto\": no SpMV kernel could be set up for this matrix");
    return HS_OK;
}
