// Device Jacobi-PCG (backends/cuda/cg.cu) against the CPU reference (solvers/cg.c), both variants, both ways
// of running a solve (stream with polling, CUDA graph with a WHILE node), with SpMV formats that fuse
// the dot product (csr_scalar, ellwarp_k1) and formats that do not (csr_vector, cusparse_csr).
// Checks: solutions within the bound the condition number gives, iteration counts within one of the
// CPU's and of each other, graph == stream bit for bit, breakdown / iteration limit / inexact-Newton
// tolerance reported as on the CPU.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#include "hs_cg.h"
#include "hs_csr.h"
#include "hs_cuda.h"
#include "hs_gpu_cg.cuh"
#include "hs_gpu_spmv.cuh"
#include "hs_spmv.h"
#include "hs_test.h"

#include "hs_test_gpu_cg.cuh"

int main()
{
    // HS_TEST_NO_GRAPH: only the stream path (compute-sanitizer racecheck cannot run the graph's
    // conditional node nor the cooperative kernel: scripts/gpu_suite.sh)
    const bool no_graph = getenv("HS_TEST_NO_GRAPH") != nullptr;
    char name[256], why[256];
    if (hs_gpu_probe(name, sizeof name, why, sizeof why) < 1) {
        fprintf(stderr, "test_gpu_cg: skipped: %s\n", why);
        return HS_TEST_SKIP;
    }
    const int m = 24, n = m * m * m;
    const double sigma = 0.05, cond = (12 * 1.5 + 6 + sigma) / sigma; // Gershgorin bound
    hs_csr *a = grid_matrix(m, sigma);
    double *xs = (double *)malloc(sizeof(double) * n), *b = (double *)malloc(sizeof(double) * n);
    double *dinv = (double *)malloc(sizeof(double) * n), *xc[2], *x = (double *)malloc(sizeof(double) * n);
    double *xg = (double *)malloc(sizeof(double) * n);
    for (int i = 0; i < n; ++i) xs[i] = cos(0.013 * i) + 0.3 * sin(0.7 * i);
    hs_csr_spmv(a, xs, b);
    for (int i = 0; i < n; ++i) dinv[i] = 1.0 / a->val[hs_csr_find(a, i, i)];
    const double tol = 1e-10;
    int it_cpu[2];
    hs_cg_work *w = nullptr;
    HS_TEST_OK(hs_cg_work_create(n, &w));
    for (int v = 0; v < 2; ++v) {
        xc[v] = (double *)malloc(sizeof(double) * n);
        hs_cg_opts o = {tol, 5000, v ? HS_CG_CHRONOPOULOS : HS_CG_CLASSIC, 0};
        hs_cg_result r;
        HS_TEST_OK(hs_cg_solve(n, csr_mv, a, dinv, b, xc[v], &o, w, &r));
        HS_TEST_CHECK(r.outcome == HS_CG_CONVERGED, "cpu variant %d did not converge", v);
        it_cpu[v] = r.iters;
    }
    cudaStream_t s;
    T_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    hs_gpu_cg_scalars *h = nullptr;
    T_CUDA(cudaMallocHost(&h, sizeof *h));
    const char *kernels[] = {"csr_scalar", "csr_vector", "ellwarp_k1", "ellwarp_k2", "cusparse_csr"};
    for (const char *kn : kernels) {
        dev_system d;
        if (!dev_system_create(kn, a, dinv, b, &d)) { dev_system_destroy(&d); continue; }
        int it_gpu[2] = {0, 0};
        for (int v = 0; v < 2; ++v) {
            const char *vn = v ? "chronopoulos" : "classic";
            hs_gpu_cg *cg = nullptr;
            HS_TEST_OK(hs_gpu_cg_create(n, v ? HS_CG_CHRONOPOULOS : HS_CG_CLASSIC, d.spmv, d.dinv, &cg));
            if (!cg) continue;
            hs_gpu_cg_tol t = {tol, 0.0, 0.0, nullptr, 5000};
            HS_TEST_OK(hs_gpu_cg_solve_stream(cg, d.b, d.x, &t, 4, s, h));
            HS_TEST_CHECK(h->status == HS_GPU_CG_CONV, "%s/%s stream: status %d", kn, vn, h->status);
            int it_stream = h->iters;
            T_CUDA(cudaMemcpy(x, d.x, sizeof(double) * n, cudaMemcpyDeviceToHost));
            if (no_graph) HS_TEST_OK(hs_gpu_cg_solve_stream(cg, d.b, d.x, &t, 1, s, h));
            else graph_solve(cg, &d, &t, s, h);
            HS_TEST_CHECK(h->status == HS_GPU_CG_CONV, "%s/%s graph: status %d", kn, vn, h->status);
            T_CUDA(cudaMemcpy(xg, d.x, sizeof(double) * n, cudaMemcpyDeviceToHost));
            // the graph runs the stream's kernels in the stream's order: the same bits
            HS_TEST_CHECK(h->iters == it_stream && memcmp(x, xg, sizeof(double) * n) == 0,
                          "%s/%s: graph (%d iterations) differs from stream (%d)", kn, vn, h->iters, it_stream);
            // a WHILE body of 1, 3 or 16 iterations (the default is 4): the iterations past the stop do nothing
            for (int kb : {1, 3, 16}) {
                if (no_graph) break;
                HS_TEST_OK(hs_gpu_cg_set_body_iters(cg, kb));
                graph_solve(cg, &d, &t, s, h);
                T_CUDA(cudaMemcpy(xg, d.x, sizeof(double) * n, cudaMemcpyDeviceToHost));
                HS_TEST_CHECK(h->status == HS_GPU_CG_CONV && h->iters == it_stream &&
                                  memcmp(x, xg, sizeof(double) * n) == 0,
                              "%s/%s: graph with %d iterations a body (%d iterations, status %d) differs from stream "
                              "(%d)", kn, vn, kb, h->iters, h->status, it_stream);
                hs_gpu_cg_tol t7 = {tol, 0.0, 0.0, nullptr, 7}; /* the limit inside a body of 3 and of 16 */
                graph_solve(cg, &d, &t7, s, h);
                HS_TEST_CHECK(h->status == HS_GPU_CG_MAXIT && h->iters == 7,
                              "%s/%s: body of %d, limit 7: status %d, %d iterations", kn, vn, kb, h->status, h->iters);
            }
            HS_TEST_CHECK(hs_gpu_cg_set_body_iters(cg, 0) != HS_OK && hs_gpu_cg_set_body_iters(cg, 17) != HS_OK,
                          "%s/%s: a body of 0 or 17 iterations accepted", kn, vn);
            hs_error_clear();
            HS_TEST_OK(hs_gpu_cg_set_body_iters(cg, 4));
            it_gpu[v] = it_stream;
            HS_TEST_CHECK(abs(it_stream - it_cpu[v]) <= 1, "%s/%s: %d iterations on the GPU, %d on the CPU", kn, vn,
                          it_stream, it_cpu[v]);
            // both approximate x* to cond * tol (relative); the factor 2 covers two such errors
            double e_true = rel_diff(n, x, xs), e_cpu = rel_diff(n, x, xc[v]);
            HS_TEST_CHECK(e_true <= cond * tol && e_cpu <= 2 * cond * tol,
                          "%s/%s: error %.3g vs x*, %.3g vs the CPU (bound %.3g)", kn, vn, e_true, e_cpu, cond * tol);
            // iteration limit
            hs_gpu_cg_tol t5 = {tol, 0.0, 0.0, nullptr, 5};
            if (no_graph) HS_TEST_OK(hs_gpu_cg_solve_stream(cg, d.b, d.x, &t5, 4, s, h));
            else graph_solve(cg, &d, &t5, s, h);
            HS_TEST_CHECK(h->status == HS_GPU_CG_MAXIT && h->iters == 5, "%s/%s: limit 5: status %d, %d iterations",
                          kn, vn, h->status, h->iters);
            // inexact Newton: the tolerance comes from the residual on the device
            double res = 1e-4;
            T_CUDA(cudaMemcpy(d.res, &res, sizeof res, cudaMemcpyHostToDevice));
            T_CUDA(cudaDeviceSynchronize()); // landed before the non-blocking stream reads it (pageable copies and cudaMemset are on the legacy stream)
            hs_gpu_cg_tol tf = {1e-8, 0.1, 1e-8, d.res, 5000};
            HS_TEST_OK(hs_gpu_cg_solve_stream(cg, d.b, d.x, &tf, 4, s, h));
            HS_TEST_CHECK(h->tol == hs_cg_forcing_tol(1e-8, 0.1, 1e-8, res) && h->status == HS_GPU_CG_CONV &&
                              sqrt(h->rr / h->bb) <= h->tol,
                          "%s/%s: forcing tolerance %.3g (expected %.3g), status %d", kn, vn, h->tol,
                          hs_cg_forcing_tol(1e-8, 0.1, 1e-8, res), h->status);
            hs_gpu_cg_destroy(&cg);
        }
        HS_TEST_CHECK(abs(it_gpu[0] - it_gpu[1]) <= 1, "%s: classic %d iterations, chronopoulos %d", kn, it_gpu[0],
                      it_gpu[1]);
        // the persistent kernel (its own CSR SpMV through this format's slot map): the same method,
        // another summation order: within the bounds above, and stream == graph bit for bit
        if (!no_graph) {
            int32_t *d_rp = nullptr, *d_col = nullptr;
            int64_t *d_slot = nullptr;
            T_CUDA(cudaMalloc(&d_rp, sizeof(int32_t) * (n + 1)));
            T_CUDA(cudaMalloc(&d_col, sizeof(int32_t) * a->nnz));
            T_CUDA(cudaMalloc(&d_slot, sizeof(int64_t) * a->nnz));
            T_CUDA(cudaMemcpy(d_rp, a->row_ptr, sizeof(int32_t) * (n + 1), cudaMemcpyHostToDevice));
            T_CUDA(cudaMemcpy(d_col, a->col, sizeof(int32_t) * a->nnz, cudaMemcpyHostToDevice));
            T_CUDA(cudaMemcpy(d_slot, d.lay->slot_of_nnz, sizeof(int64_t) * a->nnz, cudaMemcpyHostToDevice));
            T_CUDA(cudaDeviceSynchronize()); // landed before the non-blocking stream reads it (pageable copies and cudaMemset are on the legacy stream)
            hs_gpu_cg *cg = nullptr;
            HS_TEST_OK(hs_gpu_cg_create(n, HS_CG_CHRONOPOULOS, d.spmv, d.dinv, &cg));
            if (cg) HS_TEST_OK(hs_gpu_cg_set_persistent(cg, d_rp, d_col, d_slot, d.vals, 0));
            if (cg && cg->persistent) {
                hs_gpu_cg_tol t = {tol, 0.0, 0.0, nullptr, 5000};
                HS_TEST_OK(hs_gpu_cg_solve_stream(cg, d.b, d.x, &t, 4, s, h));
                int it_p = h->iters;
                HS_TEST_CHECK(h->status == HS_GPU_CG_CONV && abs(it_p - it_cpu[1]) <= 1,
                              "%s/persistent: status %d, %d iterations (CPU %d)", kn, h->status, it_p, it_cpu[1]);
                T_CUDA(cudaMemcpy(x, d.x, sizeof(double) * n, cudaMemcpyDeviceToHost));
                double e_true = rel_diff(n, x, xs);
                HS_TEST_CHECK(e_true <= cond * tol, "%s/persistent: error %.3g vs x*", kn, e_true);
                graph_solve(cg, &d, &t, s, h);
                T_CUDA(cudaMemcpy(xg, d.x, sizeof(double) * n, cudaMemcpyDeviceToHost));
                HS_TEST_CHECK(h->iters == it_p && memcmp(x, xg, sizeof(double) * n) == 0,
                              "%s/persistent: graph (%d iterations) differs from stream (%d)", kn, h->iters, it_p);
                hs_gpu_cg_tol t5 = {tol, 0.0, 0.0, nullptr, 5};
                HS_TEST_OK(hs_gpu_cg_solve_stream(cg, d.b, d.x, &t5, 4, s, h));
                HS_TEST_CHECK(h->status == HS_GPU_CG_MAXIT && h->iters == 5, "%s/persistent: limit 5: status %d, %d",
                              kn, h->status, h->iters);
            }
            hs_gpu_cg_destroy(&cg);
            cudaFree(d_rp); cudaFree(d_col); cudaFree(d_slot);
        }
        dev_system_destroy(&d);
    }
    // breakdown: -A with a positive preconditioner (p'Ap < 0), both variants, graph and stream
    {
        for (int k = 0; k < a->nnz; ++k) a->val[k] = -a->val[k];
        dev_system d;
        if (dev_system_create("csr_scalar", a, dinv, b, &d)) {
            for (int v = 0; v < 2; ++v) {
                hs_gpu_cg *cg = nullptr;
                HS_TEST_OK(hs_gpu_cg_create(n, v ? HS_CG_CHRONOPOULOS : HS_CG_CLASSIC, d.spmv, d.dinv, &cg));
                if (!cg) continue;
                hs_gpu_cg_tol t = {tol, 0.0, 0.0, nullptr, 5000};
                HS_TEST_OK(hs_gpu_cg_solve_stream(cg, d.b, d.x, &t, 4, s, h));
                hs_cg_result r;
                hs_gpu_cg_result_of(h, &r);
                HS_TEST_CHECK(r.outcome == HS_CG_BREAKDOWN && r.iters == 1, "variant %d stream: outcome %d after %d",
                              v, r.outcome, r.iters);
                if (!no_graph) {
                    graph_solve(cg, &d, &t, s, h);
                    hs_gpu_cg_result_of(h, &r);
                    HS_TEST_CHECK(r.outcome == HS_CG_BREAKDOWN && r.iters == 1, "variant %d graph: outcome %d after %d",
                                  v, r.outcome, r.iters);
                }
                hs_gpu_cg_destroy(&cg);
            }
            // the persistent kernel: csr_scalar's slots are CSR order (slot map NULL = identity)
            int32_t *d_rp = nullptr, *d_col = nullptr;
            T_CUDA(cudaMalloc(&d_rp, sizeof(int32_t) * (n + 1)));
            T_CUDA(cudaMalloc(&d_col, sizeof(int32_t) * a->nnz));
            T_CUDA(cudaMemcpy(d_rp, a->row_ptr, sizeof(int32_t) * (n + 1), cudaMemcpyHostToDevice));
            T_CUDA(cudaMemcpy(d_col, a->col, sizeof(int32_t) * a->nnz, cudaMemcpyHostToDevice));
            T_CUDA(cudaDeviceSynchronize()); // landed before the non-blocking stream reads it (pageable copies and cudaMemset are on the legacy stream)
            hs_gpu_cg *cg = nullptr;
            HS_TEST_OK(hs_gpu_cg_create(n, HS_CG_CHRONOPOULOS, d.spmv, d.dinv, &cg));
            if (cg && !no_graph) HS_TEST_OK(hs_gpu_cg_set_persistent(cg, d_rp, d_col, nullptr, d.vals, 0));
            if (cg && cg->persistent) {
                hs_gpu_cg_tol t = {tol, 0.0, 0.0, nullptr, 5000};
                HS_TEST_OK(hs_gpu_cg_solve_stream(cg, d.b, d.x, &t, 4, s, h));
                hs_cg_result r;
                hs_gpu_cg_result_of(h, &r);
                HS_TEST_CHECK(r.outcome == HS_CG_BREAKDOWN && r.iters == 1, "persistent: outcome %d after %d",
                              r.outcome, r.iters);
            }
            hs_gpu_cg_destroy(&cg);
            cudaFree(d_rp); cudaFree(d_col);
        }
        dev_system_destroy(&d);
    }
    cudaFreeHost(h);
    cudaStreamDestroy(s);
    hs_cg_work_destroy(&w);
    hs_csr_destroy(&a);
    free(xs); free(b); free(dinv); free(x); free(xg); free(xc[0]); free(xc[1]);
    HS_TEST_RETURN();
}
