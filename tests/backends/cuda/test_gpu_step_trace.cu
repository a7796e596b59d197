/*
 * The step graphs' diagnostic timeline (backends/cuda/step_trace.cu, HS_STEP_TRACE): stamps around
 * kernels that spin for known times, captured into a CUDA graph as the step graphs hold them, must
 * give those times back per phase, and the CG solves' fit must recover the fixed and per-iteration
 * parts of solves whose iteration counts differ. The spin kernels read the same %globaltimer the
 * stamps do, so the tolerances cover only the stamps' own kernel boundaries (a few microseconds).
 */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#include "hs_cuda.h"
#include "hs_step_trace.cuh"
#include "hs_test.h"

namespace {

__device__ unsigned long long now_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* spin for ns0 + ns_per * (*iters) nanoseconds (iters NULL: 0) */
__global__ void k_spin(unsigned long long ns0, unsigned long long ns_per, const int *iters)
{
    const unsigned long long want = ns0 + (iters ? ns_per * (unsigned long long)*iters : 0ull), t0 = now_ns();
    while (now_ns() - t0 < want) {
    }
}

__global__ void k_set(int *p, int v) { *p = v; }

} // namespace

int main()
{
    char name[256], why[256];
    if (hs_gpu_probe(name, sizeof name, why, sizeof why) < 1) {
        fprintf(stderr, "test_gpu_step_trace: skipped: %s\n", why);
        return HS_TEST_SKIP;
    }
    unsetenv("HS_STEP_TRACE");
    HS_TEST_CHECK(hs_step_trace_from_env("off") == nullptr, "no tracer without HS_STEP_TRACE");
    setenv("HS_STEP_TRACE", "0", 1);
    HS_TEST_CHECK(hs_step_trace_from_env("off") == nullptr, "no tracer with HS_STEP_TRACE=0");
    setenv("HS_STEP_TRACE", "1", 1);
    hs_step_trace *t = hs_step_trace_from_env("test");
    HS_TEST_CHECK(t != nullptr, "a tracer with HS_STEP_TRACE=1");
    if (!t) HS_TEST_RETURN();
    HS_TEST_OK(hs_step_trace_stamp(nullptr, 0, HS_TR_ASM, nullptr)); /* NULL: no-op */

    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    int *iters = nullptr;
    cudaMalloc((void **)&iters, sizeof(int));
    /* a "step": first assembly 40 us, tangent 20 us, a CG solve of 30 us + 5 us x iterations, test 10 us;
     * captured once into a graph, replayed with the iteration count set before each replay */
    const double asm_us = 40, tan_us = 20, a_us = 30, b_us = 5, test_us = 10;
    cudaGraph_t g = nullptr;
    cudaGraphExec_t ex = nullptr;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
    HS_TEST_OK(hs_step_trace_stamp(t, s, HS_TR_STEP0, nullptr));
    k_spin<<<1, 1, 0, s>>>((unsigned long long)(1e3 * asm_us), 0, nullptr);
    HS_TEST_OK(hs_step_trace_stamp(t, s, HS_TR_FIRST_ASM, nullptr));
    k_spin<<<1, 1, 0, s>>>((unsigned long long)(1e3 * tan_us), 0, nullptr);
    HS_TEST_OK(hs_step_trace_stamp(t, s, HS_TR_TANGENT, nullptr));
    k_spin<<<1, 1, 0, s>>>((unsigned long long)(1e3 * a_us), (unsigned long long)(1e3 * b_us), iters);
    HS_TEST_OK(hs_step_trace_stamp(t, s, HS_TR_CG, iters));
    k_spin<<<1, 1, 0, s>>>((unsigned long long)(1e3 * test_us), 0, nullptr);
    HS_TEST_OK(hs_step_trace_stamp(t, s, HS_TR_TEST, nullptr));
    HS_TEST_CHECK(cudaStreamEndCapture(s, &g) == cudaSuccess, "capture");
    HS_TEST_CHECK(cudaGraphInstantiate(&ex, g, 0) == cudaSuccess, "instantiate");
    const int counts[] = {4, 9, 17, 6, 12, 25, 3, 8};
    const int steps = (int)(sizeof counts / sizeof counts[0]);
    double mean_it = 0.0;
    for (int k = 0; k < steps; ++k) {
        k_set<<<1, 1, 0, s>>>(iters, counts[k]);
        HS_TEST_OK(hs_step_trace_launch(t, s));
        cudaGraphLaunch(ex, s);
        cudaStreamSynchronize(s);
        HS_TEST_OK(hs_step_trace_collect(t, s));
        mean_it += counts[k] / (double)steps;
    }
    HS_TEST_CHECK(hs_step_trace_steps(t) == steps, "%ld steps folded, want %d", hs_step_trace_steps(t), steps);
    /* each phase: at least its spin (the stamps read the clock the spins read), at most a loose multiple
     * (a stamp kernel's boundary is a few us; a shared or preempted GPU only adds): the numbers must be
     * the phases', not the test a timing bound */
    const double slack = 2.0; /* times the spin, plus 20 us */
    struct { hs_trace_tag tag; double us; const char *what; } want[] = {
        {HS_TR_FIRST_ASM, asm_us, "first assembly"}, {HS_TR_TANGENT, tan_us, "tangent"},
        {HS_TR_CG, a_us + b_us * mean_it, "CG solve"}, {HS_TR_TEST, test_us, "test"}};
    for (const auto &w : want) {
        double us, each, per;
        hs_step_trace_phase(t, w.tag, &us, &each, &per);
        HS_TEST_NEAR(per, 1.0, 0.0, w.what);
        HS_TEST_CHECK(each >= w.us && each <= slack * w.us + 20.0, "%s: %.2f us, want %.1f to %.1f", w.what, each,
                      w.us, slack * w.us + 20.0);
    }
    double us, each, per;
    hs_step_trace_phase(t, HS_TR_UPDATE, &us, &each, &per);
    HS_TEST_CHECK(per == 0.0 && us == 0.0, "a phase never stamped: %.2f a step", per);
    double a, b;
    HS_TEST_CHECK(hs_step_trace_cg_fit(t, &a, &b), "the CG fit");
    HS_TEST_NEAR(b, b_us, 0.5, "CG per iteration (us)"); /* the spins' own slope: 5 us an iteration */
    HS_TEST_CHECK(a >= 0.9 * a_us && a <= slack * a_us + 20.0, "CG fixed part %.2f us, want %.1f to %.1f", a,
                  0.9 * a_us, slack * a_us + 20.0);
    FILE *f = tmpfile();
    hs_step_trace_finish(&t, f, 0);
    HS_TEST_CHECK(t == nullptr, "finish clears the pointer");
    if (f) {
        rewind(f);
        char line[512];
        int rows = 0, fit = 0;
        while (fgets(line, sizeof line, f)) {
            rows += strstr(line, "[rank 0]") != nullptr;
            fit += strstr(line, "CG solve = ") != nullptr;
        }
        HS_TEST_CHECK(rows == 6 && fit == 1, "the report: %d rank lines (want 6: header, 4 phases, the fit), %d fit", rows,
                      fit);
        fclose(f);
    }
    hs_step_trace_finish(&t, stderr, 0); /* NULL: no-op */
    cudaGraphExecDestroy(ex);
    cudaGraphDestroy(g);
    cudaFree(iters);
    cudaStreamDestroy(s);
    HS_TEST_RETURN();
}
