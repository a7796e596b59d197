/*
 * The step graphs' diagnostic timeline (hs_step_trace.cuh): single-thread stamp kernels that store the
 * device's %globaltimer (nanoseconds, the clock every SM reads alike) with the phase they end, folded
 * on the host into per-phase sums, and the CG solves' times regressed on their iteration counts (a
 * solve's init and its iterations are one conditional node: the fit separates the per-iteration cost,
 * WHILE loop included, from the fixed part).
 */
#include <cstdlib>
#include <cstring>

#include "hs_cuda_check.cuh"
#include "hs_step_trace.cuh"
#include "hs_util.h"

namespace {

constexpr unsigned CAP = 4096; /* stamps one step may hold (a step of 400 Newton iterations) */

struct dev_trace {
    unsigned n;
    unsigned long long t[CAP];
    int tag[CAP], val[CAP];
};

__global__ void k_stamp(dev_trace *d, int tag, const int *val)
{
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    const unsigned i = atomicAdd(&d->n, 1u);
    if (i < CAP) {
        d->t[i] = now;
        d->tag[i] = tag;
        d->val[i] = val ? *val : -1;
    }
}

const char *const k_names[HS_TR_N] = {"(step begins)", "first element + assembly", "first test",
                                      "Newton loop (between bodies)", "tangent", "CG solve (init + iterations)",
                                      "update + ghosts of phi", "element + assembly", "Newton test",
                                      "loop exit"};

} // namespace

struct hs_step_trace {
    char who[64];
    dev_trace *d;
    dev_trace *h; /* pinned */
    long steps, stamps, lost;
    double sum[HS_TR_N];   /* ns */
    long cnt[HS_TR_N];
    double step_ns;        /* first to last stamp, summed */
    double sx, sy, sxx, sxy; /* CG solves: iterations x, ns y */
    long solves;
    double host_gap, done; /* s: the sum; hs_wtime when the last collect returned (0: none yet) */
    long gaps;
};

hs_step_trace *hs_step_trace_from_env(const char *who)
{
    const char *e = getenv("HS_STEP_TRACE");
    if (!e || !*e || strcmp(e, "0") == 0) return nullptr;
    hs_step_trace *t = (hs_step_trace *)calloc(1, sizeof *t);
    if (!t) return nullptr;
    snprintf(t->who, sizeof t->who, "%s", who);
    if (cudaMalloc((void **)&t->d, sizeof(dev_trace)) != cudaSuccess ||
        cudaMallocHost((void **)&t->h, sizeof(dev_trace)) != cudaSuccess ||
        cudaMemset(t->d, 0, sizeof(unsigned)) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
        hs_log(0, "warning: HS_STEP_TRACE: no device memory for the trace; tracing off\n");
        if (t->d) cudaFree(t->d);
        if (t->h) cudaFreeHost(t->h);
        free(t);
        return nullptr;
    }
    return t;
}

hs_status hs_step_trace_stamp(hs_step_trace *t, cudaStream_t s, hs_trace_tag tag, const int *iters)
{
    if (!t) return HS_OK;
    k_stamp<<<1, 1, 0, s>>>(t->d, (int)tag, iters);
    HS_CUDA_LAUNCH_CHECK("k_stamp (HS_STEP_TRACE)");
    return HS_OK;
}

hs_status hs_step_trace_launch(hs_step_trace *t, cudaStream_t s)
{
    if (!t) return HS_OK;
    HS_CUDA_CALL(cudaMemsetAsync(&t->d->n, 0, sizeof(unsigned), s));
    if (t->done != 0.0) {
        t->host_gap += hs_wtime() - t->done;
        t->gaps++;
    }
    return HS_OK;
}

hs_status hs_step_trace_collect(hs_step_trace *t, cudaStream_t s)
{
    if (!t) return HS_OK;
    HS_CUDA_CALL(cudaMemcpyAsync(&t->h->n, &t->d->n, sizeof(unsigned), cudaMemcpyDeviceToHost, s));
    HS_CUDA_CALL(cudaStreamSynchronize(s));
    const unsigned n = t->h->n < CAP ? t->h->n : CAP;
    t->lost += t->h->n - n;
    if (n > 0) {
        HS_CUDA_CALL(cudaMemcpyAsync(t->h->t, t->d->t, sizeof(unsigned long long) * n, cudaMemcpyDeviceToHost, s));
        HS_CUDA_CALL(cudaMemcpyAsync(t->h->tag, t->d->tag, sizeof(int) * n, cudaMemcpyDeviceToHost, s));
        HS_CUDA_CALL(cudaMemcpyAsync(t->h->val, t->d->val, sizeof(int) * n, cudaMemcpyDeviceToHost, s));
    }
    HS_CUDA_CALL(cudaStreamSynchronize(s));
    t->steps++;
    t->stamps += n;
    for (unsigned i = 1; i < n; ++i) {
        const double d = (double)(t->h->t[i] - t->h->t[i - 1]);
        const int g = t->h->tag[i];
        if (g < 0 || g >= HS_TR_N) continue;
        t->sum[g] += d;
        t->cnt[g]++;
        if (g == HS_TR_CG && t->h->val[i] >= 0) {
            const double x = t->h->val[i];
            t->sx += x;
            t->sy += d;
            t->sxx += x * x;
            t->sxy += x * d;
            t->solves++;
        }
    }
    if (n > 1) t->step_ns += (double)(t->h->t[n - 1] - t->h->t[0]);
    t->done = hs_wtime();
    return HS_OK;
}

long hs_step_trace_steps(const hs_step_trace *t)
{
    return t ? t->steps : 0;
}

void hs_step_trace_phase(const hs_step_trace *t, hs_trace_tag tag, double *us_step, double *us_each, double *per_step)
{
    *us_step = *us_each = *per_step = 0.0;
    if (!t || t->steps == 0 || tag <= HS_TR_STEP0 || tag >= HS_TR_N || t->cnt[tag] == 0) return;
    *us_step = 1e-3 * t->sum[tag] / (double)t->steps;
    *us_each = 1e-3 * t->sum[tag] / (double)t->cnt[tag];
    *per_step = (double)t->cnt[tag] / (double)t->steps;
}

int hs_step_trace_cg_fit(const hs_step_trace *t, double *a_us, double *b_us)
{
    *a_us = *b_us = 0.0;
    if (!t || t->solves < 2) return 0;
    const double m = (double)t->solves, den = m * t->sxx - t->sx * t->sx;
    if (!(den > 1e-9 * m * t->sxx)) return 0;
    const double b = (m * t->sxy - t->sx * t->sy) / den;
    *b_us = 1e-3 * b;
    *a_us = 1e-3 * (t->sy - b * t->sx) / m;
    return 1;
}

void hs_step_trace_finish(hs_step_trace **p, FILE *f, int rank)
{
    hs_step_trace *t = *p;
    if (!t) return;
    *p = nullptr;
    if (f && t->steps > 0) {
        const double S = (double)t->steps;
        fprintf(f, "step trace (%s), rank %d: %ld steps, %.1f stamps a step (each a kernel boundary, ~2 us, inside "
                   "the times below)%s; device, first to last stamp: %.1f us a step; host between steps: %.1f us\n",
                t->who, rank, t->steps, t->stamps / S, t->lost ? "; some stamps LOST (a step held > 4096)" : "",
                1e-3 * t->step_ns / S, t->gaps ? 1e6 * t->host_gap / (double)t->gaps : 0.0);
        /* one fprintf per line, the table in one buffer: ranks printing at once interleave by line at worst */
        char buf[4096];
        int n = snprintf(buf, sizeof buf, "  [rank %d] %-32s %12s %10s %14s\n", rank, "phase", "us a step", "per step",
                         "us each");
        for (int g = 1; g < HS_TR_N && n < (int)sizeof buf; ++g) {
            double us, each, per;
            hs_step_trace_phase(t, (hs_trace_tag)g, &us, &each, &per);
            if (per > 0.0)
                n += snprintf(buf + n, sizeof buf - (size_t)n, "  [rank %d] %-32s %12.1f %10.2f %14.2f\n", rank,
                              k_names[g], us, per, each);
        }
        double a, b;
        if (n < (int)sizeof buf && hs_step_trace_cg_fit(t, &a, &b))
            snprintf(buf + n, sizeof buf - (size_t)n, "  [rank %d] CG solve = %.1f us + %.2f us x iterations (least "
                     "squares over %ld solves, %.2f iterations each on average)\n",
                     rank, a, b, t->solves, t->sx / (double)t->solves);
        fputs(buf, f);
    }
    cudaFree(t->d);
    cudaFreeHost(t->h);
    free(t);
}
