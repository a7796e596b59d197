// Device side of `heartsim bench spmv` (app/bench_spmv.c; C interface in backends/cuda/hs_cuda.h): the copy
// bandwidth and L2 size of the device, and per SpMV format: upload and create, a check against the
// CPU references before any timing, the median time of one apply, and the device scatter of CSR
// values into the format's slots (seed 002's t_reorder on the GPU, sec. 6 / Table 4).
//
// Timing: CUDA events recorded between consecutive applies on one stream. The applies of a batch are
// queued behind a short spin kernel, so the queue is full before the first one starts and the host's
// launch cost (cuSPARSE's descriptor calls included) is not part of the time; each interval is then
// one apply's device time. When values + indices + x + y exceed the L2 cache, x rotates among
// several copies so that each apply reads an x that is not L2-resident (in CG, other vectors pass
// through L2 between two SpMVs).
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

#include "hs_cuda_check.cuh"
#include "hs_cuda.h"
#include "hs_gpu_spmv.cuh"
#include "hs_util.h"

namespace {

constexpr int kWarmup = 10;
constexpr int kBatch = 50;          // applies queued behind one spin kernel
constexpr int kMaxXCopies = 64;

__device__ __forceinline__ unsigned long long global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Keeps the stream busy for ns nanoseconds while the host queues a batch behind it.
__global__ void k_spin(unsigned long long ns)
{
    const unsigned long long t0 = global_ns();
    while (global_ns() - t0 < ns) {
    }
}

// dst[slot[k]] = src[k]: CSR values into the format's slots (thrust::scatter in seed 002 sec. 6).
__global__ void k_scatter(int32_t nnz, const int64_t *__restrict__ slot, const double *__restrict__ src,
                          double *__restrict__ dst)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += stride)
        dst[__ldg(slot + k)] = __ldg(src + k);
}

// Device buffers and events of one measurement, freed on every exit path.
struct bench_bufs {
    double *vals = nullptr, *y = nullptr, *csr = nullptr;
    int64_t *slot = nullptr;
    std::vector<double *> x;
    cudaStream_t s = nullptr;
    std::vector<cudaEvent_t> ev;
    hs_gpu_spmv *sp = nullptr;
    ~bench_bufs()
    {
        hs_gpu_spmv_destroy(&sp);
        cudaFree(vals);
        cudaFree(y);
        cudaFree(csr);
        cudaFree(slot);
        for (double *p : x) cudaFree(p);
        for (cudaEvent_t e : ev)
            if (e) cudaEventDestroy(e);
        if (s) cudaStreamDestroy(s);
    }
};

double gamma_m(int32_t m)
{
    const double u = DBL_EPSILON / 2; // unit roundoff of binary64
    return m * u / (1.0 - m * u);
}

// Rows with |y - ref| > 2 gamma_m (|A||x|)_i (NaN counts); the first one is described in msg.
int count_bad(const hs_csr *a, const double *y, const double *ref, const double *ab, const char *what,
              char *msg, size_t msg_len)
{
    int bad = 0;
    for (int32_t i = 0; i < a->n_rows; ++i) {
        const int32_t m = a->row_ptr[i + 1] - a->row_ptr[i];
        const double tol = 2.0 * gamma_m(m) * ab[i], d = std::fabs(y[i] - ref[i]);
        if (!(d <= tol)) {
            if (bad == 0)
                snprintf(msg, msg_len, "vs %s: row %d (length %d): %.17g vs %.17g, |diff| %.3g > bound %.3g",
                         what, (int)i, (int)m, y[i], ref[i], d, tol);
            ++bad;
        }
    }
    return bad;
}

// Time n operations back to back: batches of kBatch queued behind a spin kernel long enough for
// the host to queue the batch; t[i] = device time of operation i (events around each).
hs_status time_queued(bench_bufs &b, int n, double host_s_per_op, const std::function<hs_status(int)> &op,
                      std::vector<double> &t)
{
    t.assign((size_t)n, 0.0);
    // host cost per queued op (+ 3 us for its event record), 1.5x margin, 20 us floor, 20 ms cap
    double spin_s = 1.5 * kBatch * (host_s_per_op + 3e-6) + 20e-6;
    if (spin_s > 20e-3) spin_s = 20e-3;
    for (int done = 0; done < n;) {
        const int c = n - done < kBatch ? n - done : kBatch;
        k_spin<<<1, 1, 0, b.s>>>((unsigned long long)(spin_s * 1e9));
        HS_CUDA_LAUNCH_CHECK("k_spin (bench spmv)");
        HS_CUDA_CALL(cudaEventRecord(b.ev[0], b.s));
        for (int q = 0; q < c; ++q) {
            HS_CALL(op(done + q));
            HS_CUDA_CALL(cudaEventRecord(b.ev[(size_t)q + 1], b.s));
        }
        HS_CUDA_CALL(cudaEventSynchronize(b.ev[(size_t)c]));
        for (int q = 0; q < c; ++q) {
            float ms = 0.0f;
            HS_CUDA_CALL(cudaEventElapsedTime(&ms, b.ev[(size_t)q], b.ev[(size_t)q + 1]));
            t[(size_t)done + q] = 1e-3 * ms;
        }
        done += c;
    }
    return HS_OK;
}

hs_status bench_format(bench_bufs &b, const hs_spmv_layout *lay, const hs_csr *a, const double *vals_fmt,
                       const double *x, const double *y_ref, const double *y_csr, const double *ab, int reps,
                       long long l2_bytes, hs_gpu_spmv_bench *out)
{
    const int32_t n = a->n_rows, nc = a->n_cols;
    const size_t ns = (size_t)lay->n_slots;
    HS_CUDA_CALL(cudaStreamCreateWithFlags(&b.s, cudaStreamNonBlocking));
    b.ev.assign(kBatch + 1, nullptr);
    for (cudaEvent_t &e : b.ev) HS_CUDA_CALL(cudaEventCreate(&e));

    // x copies: one unless the working set exceeds L2; then enough that the copies touched between
    // two uses of one copy fill L2 twice over (capped, and within a quarter of the free memory)
    out->working_set = 12.0 * (double)ns + 8.0 * nc + 8.0 * n;
    int copies = 1;
    if (out->working_set > (double)l2_bytes && nc > 0) {
        copies = (int)std::ceil(2.0 * (double)l2_bytes / (8.0 * nc)) + 1;
        if (copies < 2) copies = 2;
        if (copies > kMaxXCopies) copies = kMaxXCopies;
        size_t fr = 0, tot = 0;
        if (cudaMemGetInfo(&fr, &tot) == cudaSuccess)
            while (copies > 2 && (double)copies * 8.0 * nc > 0.25 * (double)fr) --copies;
    }
    out->x_copies = copies;
    b.x.assign((size_t)copies, nullptr);
    for (int c = 0; c < copies; ++c) {
        HS_CALL(HS_CUDA_ALLOC(b.x[(size_t)c], nc, "bench spmv input vector x"));
        HS_CUDA_CALL(cudaMemcpy(b.x[(size_t)c], x, sizeof(double) * (size_t)nc, cudaMemcpyHostToDevice));
    }
    HS_CALL(HS_CUDA_ALLOC(b.y, n, "bench spmv output vector y"));
    HS_CALL(HS_CUDA_ALLOC(b.vals, ns, "bench spmv format values"));
    HS_CUDA_CALL(cudaDeviceSynchronize());

    // upload + create, wall clock
    const double w0 = hs_wtime();
    HS_CUDA_CALL(cudaMemcpy(b.vals, vals_fmt, sizeof(double) * ns, cudaMemcpyHostToDevice));
    HS_CALL(hs_gpu_spmv_create(lay, a, b.vals, &b.sp));
    HS_CUDA_CALL(cudaDeviceSynchronize());
    out->create_s = hs_wtime() - w0;

    // check: y starts as NaN (an unwritten row shows); two applies must agree with the references
    std::vector<double> y((size_t)n + 1), y2((size_t)n + 1);
    HS_CUDA_CALL(cudaMemsetAsync(b.y, 0xFF, sizeof(double) * (size_t)n, b.s));
    HS_CALL(hs_gpu_spmv_apply(b.sp, b.x[0], b.y, b.s));
    HS_CUDA_CALL(cudaStreamSynchronize(b.s));
    HS_CUDA_CALL(cudaMemcpy(y.data(), b.y, sizeof(double) * (size_t)n, cudaMemcpyDeviceToHost));
    char m1[256] = "", m2[256] = "";
    const int bad_ref = count_bad(a, y.data(), y_ref, ab, "its CPU reference", m1, sizeof m1);
    const int bad_csr = count_bad(a, y.data(), y_csr, ab, "plain CSR", m2, sizeof m2);
    if (bad_ref || bad_csr) {
        snprintf(out->failure, sizeof out->failure, "%d of %d rows beyond 2 gamma_m (|A||x|)_i; first %s",
                 bad_ref ? bad_ref : bad_csr, (int)n, bad_ref ? m1 : m2);
        out->ok = 0;
        return HS_OK;
    }
    HS_CALL(hs_gpu_spmv_apply(b.sp, b.x[0], b.y, b.s));
    HS_CUDA_CALL(cudaStreamSynchronize(b.s));
    HS_CUDA_CALL(cudaMemcpy(y2.data(), b.y, sizeof(double) * (size_t)n, cudaMemcpyDeviceToHost));
    out->same_bits = std::memcmp(y.data(), y2.data(), sizeof(double) * (size_t)n) == 0;

    // warm-up, measuring the host's cost of queueing one apply
    const double h0 = hs_wtime();
    for (int w = 0; w < kWarmup; ++w) HS_CALL(hs_gpu_spmv_apply(b.sp, b.x[(size_t)(w % copies)], b.y, b.s));
    const double host_per_apply = (hs_wtime() - h0) / kWarmup;
    HS_CUDA_CALL(cudaStreamSynchronize(b.s));

    std::vector<double> t;
    HS_CALL(time_queued(b, reps, host_per_apply,
                        [&](int i) { return hs_gpu_spmv_apply(b.sp, b.x[(size_t)(i % copies)], b.y, b.s); }, t));
    out->spmv_min_s = t[0];
    for (double v : t) out->spmv_min_s = v < out->spmv_min_s ? v : out->spmv_min_s;
    out->spmv_s = hs_median(t.data(), reps);

    // t_reorder on the GPU: scatter of the CSR values through the slot map (same values, so the
    // format's array is unchanged afterwards)
    if (a->nnz > 0) {
        HS_CALL(HS_CUDA_ALLOC(b.csr, a->nnz, "bench spmv CSR values"));
        HS_CALL(HS_CUDA_ALLOC(b.slot, a->nnz, "bench spmv slot map"));
        HS_CUDA_CALL(cudaMemcpy(b.csr, a->val, sizeof(double) * (size_t)a->nnz, cudaMemcpyHostToDevice));
        HS_CUDA_CALL(cudaMemcpy(b.slot, lay->slot_of_nnz, sizeof(int64_t) * (size_t)a->nnz, cudaMemcpyHostToDevice));
        const int threads = 256;
        const int64_t want = ((int64_t)a->nnz + threads - 1) / threads;
        const int blocks = (int)(want < 65535 * 16 ? want : 65535 * 16);
        const int rr = reps < 20 ? reps : 20;
        HS_CALL(time_queued(b, rr, 5e-6, [&](int) -> hs_status {
            k_scatter<<<blocks, threads, 0, b.s>>>(a->nnz, b.slot, b.csr, b.vals);
            HS_CUDA_LAUNCH_CHECK("k_scatter (bench spmv)");
            return HS_OK;
        }, t));
        out->reorder_s = hs_median(t.data(), rr);
    }
    HS_CUDA_CALL(cudaStreamSynchronize(b.s));
    out->ok = 1;
    return HS_OK;
}

} // namespace

extern "C" hs_status hs_gpu_bench_device_info(int reps, hs_gpu_bench_device *out)
{
    memset(out, 0, sizeof *out);
    cudaDeviceProp p;
    HS_CUDA_CALL(cudaGetDeviceProperties(&p, 0));
    snprintf(out->name, sizeof out->name, "%.160s (sm_%d%d, %.0f GiB, L2 %.0f MiB)", p.name, p.major, p.minor,
             (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0), p.l2CacheSize / 1048576.0);
    out->l2_bytes = p.l2CacheSize;
    if (reps > 20) reps = 20;
    if (reps < 3) reps = 3;
    const size_t bytes = 256u << 20;
    char *src = NULL, *dst = NULL;
    cudaStream_t s = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    std::vector<double> t((size_t)reps);
    hs_status st = hs_cuda_alloc_((void **)&src, bytes, "copy-bandwidth probe (source)", __FILE__, __LINE__);
    if (st == HS_OK) st = hs_cuda_alloc_((void **)&dst, bytes, "copy-bandwidth probe (destination)", __FILE__, __LINE__);
    if (st == HS_OK && (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess ||
                        cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess ||
                        cudaMemset(src, 0, bytes) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess))
        st = HS_FAIL(HS_ERR_DEVICE, "copy-bandwidth probe: %s", cudaGetErrorString(cudaGetLastError()));
    for (int w = 0; st == HS_OK && w < 3; ++w)
        if (cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s) != cudaSuccess)
            st = HS_FAIL(HS_ERR_DEVICE, "copy-bandwidth probe: %s", cudaGetErrorString(cudaGetLastError()));
    for (int r = 0; st == HS_OK && r < reps; ++r) {
        float ms = 0.0f;
        if (cudaEventRecord(e0, s) != cudaSuccess ||
            cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s) != cudaSuccess ||
            cudaEventRecord(e1, s) != cudaSuccess || cudaEventSynchronize(e1) != cudaSuccess ||
            cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess)
            st = HS_FAIL(HS_ERR_DEVICE, "copy-bandwidth probe: %s", cudaGetErrorString(cudaGetLastError()));
        t[(size_t)r] = 1e-3 * ms;
    }
    if (st == HS_OK) out->copy_bw = 2.0 * (double)bytes / hs_median(t.data(), reps);
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    if (s) cudaStreamDestroy(s);
    cudaFree(src);
    cudaFree(dst);
    return st;
}

extern "C" hs_status hs_gpu_bench_spmv(const hs_spmv_layout *lay, const hs_csr *a, const double *vals_fmt,
                                       const double *x, const double *y_ref, const double *y_csr,
                                       const double *ab, int reps, long long l2_bytes, hs_gpu_spmv_bench *out)
{
    memset(out, 0, sizeof *out);
    HS_CHECK(reps >= 1, HS_ERR_INTERNAL, "bench spmv: %d repetitions", reps);
    HS_CHECK(lay->n_rows == a->n_rows, HS_ERR_INTERNAL, "bench spmv: layout has %d rows, matrix %d",
             (int)lay->n_rows, (int)a->n_rows);
    bench_bufs b;
    return bench_format(b, lay, a, vals_fmt, x, y_ref, y_csr, ab, reps, l2_bytes, out);
}
