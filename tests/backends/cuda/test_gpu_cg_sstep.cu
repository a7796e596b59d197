// s-step CG on the device (backends/cuda/cg_sstep.cu, solver.cg = "sstep") against the CPU reference
// (solvers/cg_sstep.c), s = 2, 4, 8, through formats whose slot map is the identity (csr_scalar) and
// formats whose is not (ellwarp_k1, cusparse_csr). Checks: after k iterations the iterates agree with the
// CPU's within the s-step round-off bound of docs/verification.md (10 k eps cond (2s+1) 2^s: two
// summation orders of the same method); to a tolerance, iteration counts within one of the CPU's and
// within +10% of classic CG, solutions within cond * tol of x*; stream == graph bit for bit (one
// deterministic kernel); a kept interval (sstep_reuse) keeps the counts; the iteration limit; an
// indefinite matrix breaks down at iteration 1; a basis breakdown (the CPU test's hidden eigenvalue)
// is detected in the first block, falls back and converges.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#include "hs_cg.h"
#include "hs_cg_sstep.h"
#include "hs_csr.h"
#include "hs_cuda.h"
#include "hs_gpu_cg.cuh"
#include "hs_gpu_spmv.cuh"
#include "hs_spmv.h"
#include "hs_test.h"

#include "hs_test_gpu_cg.cuh"

// device CSR pattern and slot map of a layout
struct dev_pattern {
    int32_t *rp = nullptr, *col = nullptr;
    int64_t *slot = nullptr;
};

static void dev_pattern_create(const hs_csr *a, const hs_spmv_layout *lay, dev_pattern *p)
{
    const int n = a->n_rows;
    T_CUDA(cudaMalloc(&p->rp, sizeof(int32_t) * (n + 1)));
    T_CUDA(cudaMalloc(&p->col, sizeof(int32_t) * a->nnz));
    T_CUDA(cudaMalloc(&p->slot, sizeof(int64_t) * a->nnz));
    T_CUDA(cudaMemcpy(p->rp, a->row_ptr, sizeof(int32_t) * (n + 1), cudaMemcpyHostToDevice));
    T_CUDA(cudaMemcpy(p->col, a->col, sizeof(int32_t) * a->nnz, cudaMemcpyHostToDevice));
    T_CUDA(cudaMemcpy(p->slot, lay->slot_of_nnz, sizeof(int64_t) * a->nnz, cudaMemcpyHostToDevice));
    T_CUDA(cudaDeviceSynchronize()); // landed before the non-blocking stream reads it (pageable copies and cudaMemset are on the legacy stream)
}

static void dev_pattern_destroy(dev_pattern *p)
{
    cudaFree(p->rp); cudaFree(p->col); cudaFree(p->slot);
}

static hs_gpu_cg *make_sstep(int n, int s, dev_system *d, const dev_pattern *p)
{
    hs_gpu_cg *cg = nullptr;
    HS_TEST_OK(hs_gpu_cg_create(n, HS_CG_SSTEP, d->spmv, d->dinv, &cg));
    if (cg && hs_gpu_cg_set_sstep(cg, s, p->rp, p->col, p->slot, d->vals, 0) != HS_OK) {
        HS_TEST_CHECK(0, "hs_gpu_cg_set_sstep(s = %d) failed: %s", s, hs_error_message());
        hs_gpu_cg_destroy(&cg);
    }
    return cg;
}

// The kernel's inner iterations on one warp (hs_gpu_sstep_inner_check) against hs_sstep_inner (CPU) on
// the Gram matrices of a real Chebyshev basis: the 1-D operator tridiag(-1, 2.5 + 0.5 sin, -1) (D^-1 A's
// spectrum inside [0, 2]), p and u smooth plus noise, interval c = 1, d = 1.05. The warp sums the
// m-term quadratic forms in a shuffle tree where the CPU sums them in order (and contracts to fma):
// a few eps of each form's absolute-value scale per operation. Bound: 1e-9 of each coordinate vector's
// largest entry (a host emulation of the warp's order, without fma, differs from hs_sstep_inner by at
// most 7e-14 of it on these 28 cases, 3e-12 on a second operator; a wrong support mask, B entry or
// shuffle lane gives O(1)); status and k must agree. Also
// the stops: convergence inside the block, the iteration limit, and a breakdown (G_01 set so that the
// first (p, A p) = c G_00 + d G_01 is zero up to round-off, below its level theta (|c| G_00 + |d| ...)).
static void check_inner_warp(void)
{
    const int n = 3000;
    const double c = 1.0, d = 1.05;
    int checked = 0;
    for (int sv = HS_CG_S_MIN; sv <= HS_CG_S_MAX; ++sv)
        for (int mode = 0; mode < 4; ++mode) {
            const int m = 2 * sv + 1;
            double *Y = (double *)calloc((size_t)m * n, sizeof(double)), *Dg = (double *)malloc(sizeof(double) * n);
            double *tmp = (double *)malloc(sizeof(double) * n);
            for (int i = 0; i < n; ++i) {
                Dg[i] = 2.5 + 0.5 * sin(0.3 * i);
                Y[i] = sin(0.01 * i * (sv + 1)) + 0.1 * cos(1.7 * i * i);
                Y[(size_t)(sv + 1) * n + i] = cos(0.007 * i) + 0.1 * sin(2.3 * i);
            }
            for (int ch = 0; ch < 2; ++ch) {
                const int base = ch ? sv + 1 : 0, len = ch ? sv - 1 : sv;
                for (int j = 1; j <= len; ++j) {
                    const double *pv = Y + (size_t)(base + j - 1) * n;
                    for (int i = 0; i < n; ++i)
                        tmp[i] = (Dg[i] * pv[i] - (i ? pv[i - 1] : 0.0) - (i + 1 < n ? pv[i + 1] : 0.0)) / Dg[i];
                    for (int i = 0; i < n; ++i) {
                        double *o = Y + (size_t)(base + j) * n;
                        o[i] = j == 1 ? (tmp[i] - c * pv[i]) / d
                                      : 2.0 / d * (tmp[i] - c * pv[i]) - Y[(size_t)(base + j - 2) * n + i];
                    }
                }
            }
            double G[HS_SSTEP_MMAX * HS_SSTEP_MMAX], H[HS_SSTEP_MMAX * HS_SSTEP_MMAX], B[HS_SSTEP_MMAX * HS_SSTEP_MMAX];
            for (int a = 0; a < m; ++a)
                for (int bb = 0; bb < m; ++bb) {
                    double g = 0.0, h = 0.0;
                    for (int i = 0; i < n; ++i) {
                        const double t = Dg[i] * Y[(size_t)a * n + i] * Y[(size_t)bb * n + i];
                        g += t;
                        h += Dg[i] * t;
                    }
                    G[a * m + bb] = g;
                    H[a * m + bb] = h;
                }
            if (mode == 3) // breakdown: (p, A p) = c G_00 + d G_01 of the first iteration made zero
                G[0 * m + 1] = G[1 * m + 0] = -c * G[0] / d;
            hs_sstep_cheb_B(sv, c, d, B);
            const double theta = hs_sstep_theta(sv, (double)n);
            // mode 0: all s; 1: converged inside the block; 2: the limit after s/2; 3: breakdown
            hs_sstep_block rc, rg;
            const int max_iter = mode == 2 ? sv / 2 : 1000;
            hs_sstep_inner(sv, G, H, B, 0.0, 0, max_iter, theta, &rc);
            double target = 0.0;
            if (mode == 1) { // a target the CPU meets after about half the block
                hs_sstep_block half;
                hs_sstep_inner(sv, G, H, B, 0.0, 0, (sv + 1) / 2, theta, &half);
                target = half.rr * (1.0 + 1e-6);
                hs_sstep_inner(sv, G, H, B, target, 0, max_iter, theta, &rc);
            }
            HS_TEST_OK(hs_gpu_sstep_inner_check(sv, G, H, c, d, target, 0, max_iter, theta, &rg));
            const int want_status[4] = {HS_SSTEP_RUNNING, HS_SSTEP_CONV, HS_SSTEP_MAXIT, HS_SSTEP_BREAK};
            HS_TEST_CHECK(rc.status == want_status[mode], "inner s %d mode %d: the CPU reference stopped with %d",
                          sv, mode, rc.status);
            double dx = 0, dp = 0, du = 0, sx = 0, sp = 0, su = 0;
            for (int q = 0; q < m; ++q) {
                dx = fmax(dx, fabs(rg.xc[q] - rc.xc[q])); sx = fmax(sx, fabs(rc.xc[q]));
                dp = fmax(dp, fabs(rg.pc[q] - rc.pc[q])); sp = fmax(sp, fabs(rc.pc[q]));
                du = fmax(du, fabs(rg.uc[q] - rc.uc[q])); su = fmax(su, fabs(rc.uc[q]));
            }
            const double bound = 1e-9;
            HS_TEST_CHECK(rg.status == rc.status && rg.k == rc.k && dx <= bound * sx && dp <= bound * sp &&
                              du <= bound * su && fabs(rg.rr - rc.rr) <= bound * fabs(rc.rr),
                          "inner s %d mode %d: warp status %d k %d (CPU %d, %d), coordinate differences x %.3g p %.3g "
                          "u %.3g (of %.3g %.3g %.3g), rr %.17g vs %.17g",
                          sv, mode, rg.status, rg.k, rc.status, rc.k, dx, dp, du, sx, sp, su, rg.rr, rc.rr);
            ++checked;
            free(Y); free(Dg); free(tmp);
        }
    printf("test_gpu_cg_sstep: warp inner iterations checked against the CPU's in %d cases\n", checked);
}

int main()
{
    char name[256], why[256];
    if (hs_gpu_probe(name, sizeof name, why, sizeof why) < 1) {
        fprintf(stderr, "test_gpu_cg_sstep: skipped: %s\n", why);
        return HS_TEST_SKIP;
    }
    // HS_TEST_NO_GRAPH (compute-sanitizer racecheck, scripts/gpu_suite.sh): racecheck cannot run
    // cooperative launches, and every s-step solve is one; test_gpu_cg skips its persistent kernel the same way
    if (getenv("HS_TEST_NO_GRAPH")) {
        printf("test_gpu_cg_sstep: the s-step kernel is a cooperative launch: not run under HS_TEST_NO_GRAPH\n");
        return 0;
    }
    check_inner_warp();
    const double eps = 2.220446049250313e-16;
    const int m = 24, n = m * m * m;
    const double sigma = 0.05, cond = (12 * 1.5 + 6 + sigma) / sigma; // Gershgorin bound
    hs_csr *a = grid_matrix(m, sigma);
    double *xs = (double *)malloc(sizeof(double) * n), *b = (double *)malloc(sizeof(double) * n);
    double *dinv = (double *)malloc(sizeof(double) * n), *xc = (double *)malloc(sizeof(double) * n);
    double *x = (double *)malloc(sizeof(double) * n), *xg = (double *)malloc(sizeof(double) * n);
    for (int i = 0; i < n; ++i) xs[i] = cos(0.013 * i) + 0.3 * sin(0.7 * i);
    hs_csr_spmv(a, xs, b);
    for (int i = 0; i < n; ++i) dinv[i] = 1.0 / a->val[hs_csr_find(a, i, i)];
    const double tol = 1e-10;
    hs_cg_work *w = nullptr;
    HS_TEST_OK(hs_cg_work_create(n + 64, &w));
    hs_cg_result rc;
    hs_cg_opts oc = {tol, 5000, HS_CG_CLASSIC, 0};
    HS_TEST_OK(hs_cg_solve(n, csr_mv, a, dinv, b, xc, &oc, w, &rc));
    const int it_classic = rc.iters;
    cudaStream_t s;
    T_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    hs_gpu_cg_scalars *h = nullptr;
    T_CUDA(cudaMallocHost(&h, sizeof *h));
    const char *kernels[] = {"csr_scalar", "ellwarp_k1", "cusparse_csr"};
    const int ss[] = {2, 4, 8};
    for (const char *kn : kernels) {
        dev_system d;
        if (!dev_system_create(kn, a, dinv, b, &d)) { dev_system_destroy(&d); continue; }
        dev_pattern pat;
        dev_pattern_create(a, d.lay, &pat);
        for (int sv : ss) {
            hs_gpu_cg *cg = make_sstep(n, sv, &d, &pat);
            if (!cg) continue;
            // k iterations against the CPU's k iterations
            const int k = 2 * sv + 3;
            hs_cg_opts ok = {0.0, k, HS_CG_SSTEP, sv};
            hs_cg_result r;
            HS_TEST_OK(hs_cg_solve(n, csr_mv, a, dinv, b, xc, &ok, w, &r));
            hs_gpu_cg_tol tk = {0.0, 0.0, 0.0, nullptr, k};
            HS_TEST_OK(hs_gpu_cg_solve_stream(cg, d.b, d.x, &tk, 4, s, h));
            T_CUDA(cudaMemcpy(x, d.x, sizeof(double) * n, cudaMemcpyDeviceToHost));
            double bound = 10.0 * k * eps * cond * (2 * sv + 1) * ldexp(1.0, sv);
            HS_TEST_CHECK(h->status == HS_GPU_CG_MAXIT && h->iters == k && rel_diff(n, x, xc) <= bound,
                          "%s s %d: after %d iterations status %d (%d iterations), GPU vs CPU %.3g > %.3g", kn, sv, k,
                          h->status, h->iters, rel_diff(n, x, xc), bound);
            // to the tolerance
            hs_cg_opts ot = {tol, 5000, HS_CG_SSTEP, sv};
            HS_TEST_OK(hs_cg_solve(n, csr_mv, a, dinv, b, xc, &ot, w, &r));
            hs_gpu_cg_tol t = {tol, 0.0, 0.0, nullptr, 5000};
            HS_TEST_OK(hs_gpu_cg_solve_stream(cg, d.b, d.x, &t, 4, s, h));
            hs_cg_result rg;
            hs_gpu_cg_result_of(h, &rg);
            T_CUDA(cudaMemcpy(x, d.x, sizeof(double) * n, cudaMemcpyDeviceToHost));
            HS_TEST_CHECK(rg.outcome == HS_CG_CONVERGED && abs(rg.iters - r.iters) <= 1 &&
                              rg.iters <= ceil(1.1 * it_classic) && rg.fallback_iter == 0 && rg.rel_res <= tol,
                          "%s s %d: outcome %d after %d iterations (CPU s-step %d, classic %d), fallback %d, rel_res "
                          "%.3g",
                          kn, sv, rg.outcome, rg.iters, r.iters, it_classic, rg.fallback_iter, rg.rel_res);
            double e_true = rel_diff(n, x, xs), e_cpu = rel_diff(n, x, xc);
            HS_TEST_CHECK(e_true <= cond * tol && e_cpu <= 2 * cond * tol,
                          "%s s %d: error %.3g vs x*, %.3g vs the CPU (bound %.3g)", kn, sv, e_true, e_cpu, cond * tol);
            // graph == stream: the same kernel, deterministic
            graph_solve(cg, &d, &t, s, h);
            T_CUDA(cudaMemcpy(xg, d.x, sizeof(double) * n, cudaMemcpyDeviceToHost));
            HS_TEST_CHECK(h->iters == rg.iters && memcmp(x, xg, sizeof(double) * n) == 0,
                          "%s s %d: graph (%d iterations) differs from stream (%d)", kn, sv, h->iters, rg.iters);
            // a kept interval: two more solves without the start-up
            cg->sstep_reuse = 1;
            for (int rep = 0; rep < 2; ++rep) {
                HS_TEST_OK(hs_gpu_cg_solve_stream(cg, d.b, d.x, &t, 4, s, h));
                hs_gpu_cg_result_of(h, &rg);
                T_CUDA(cudaMemcpy(x, d.x, sizeof(double) * n, cudaMemcpyDeviceToHost));
                HS_TEST_CHECK(rg.outcome == HS_CG_CONVERGED && rg.fallback_iter == 0 &&
                                  rg.iters <= ceil(1.1 * it_classic) && rel_diff(n, x, xs) <= cond * tol,
                              "%s s %d, kept interval, solve %d: outcome %d, %d iterations (classic %d), error %.3g",
                              kn, sv, rep, rg.outcome, rg.iters, it_classic, rel_diff(n, x, xs));
            }
            cg->sstep_reuse = 0;
            // iteration limit inside a block
            hs_gpu_cg_tol t5 = {tol, 0.0, 0.0, nullptr, sv + 3};
            HS_TEST_OK(hs_gpu_cg_solve_stream(cg, d.b, d.x, &t5, 4, s, h));
            HS_TEST_CHECK(h->status == HS_GPU_CG_MAXIT && h->iters == sv + 3, "%s s %d: limit %d: status %d, %d", kn,
                          sv, sv + 3, h->status, h->iters);
            hs_gpu_cg_destroy(&cg);
        }
        dev_pattern_destroy(&pat);
        dev_system_destroy(&d);
    }
    // indefinite (-A, positive preconditioner): breakdown at the first iteration, as classic
    {
        for (int k = 0; k < a->nnz; ++k) a->val[k] = -a->val[k];
        dev_system d;
        if (dev_system_create("csr_scalar", a, dinv, b, &d)) {
            dev_pattern pat;
            dev_pattern_create(a, d.lay, &pat);
            hs_gpu_cg *cg = make_sstep(n, 4, &d, &pat);
            if (cg) {
                hs_gpu_cg_tol t = {tol, 0.0, 0.0, nullptr, 5000};
                HS_TEST_OK(hs_gpu_cg_solve_stream(cg, d.b, d.x, &t, 4, s, h));
                hs_cg_result r;
                hs_gpu_cg_result_of(h, &r);
                HS_TEST_CHECK(r.outcome == HS_CG_BREAKDOWN && r.iters == 1, "indefinite: outcome %d after %d",
                              r.outcome, r.iters);
            }
            hs_gpu_cg_destroy(&cg);
            dev_pattern_destroy(&pat);
        }
        dev_system_destroy(&d);
        for (int k = 0; k < a->nnz; ++k) a->val[k] = -a->val[k];
    }
    // a basis breakdown: the grid matrix plus a K x K block (ones + I, D^-1 A eigenvalue (K+1)/2 = 20.5,
    // above the grid's spectrum [0, ~2]) with a right-hand side component 1e-8 there (test_cg_sstep.c)
    // cond(A) <= 41 / sigma = 820 (the block's largest eigenvalue K + 1 over the grid's smallest)
    {
        const int K = 40, nb = n + K;
        hs_csr *ab = nullptr;
        HS_TEST_OK(hs_csr_create(nb, nb, a->nnz + K * K, &ab));
        int k = 0;
        for (int i = 0; i < n; ++i) {
            ab->row_ptr[i] = k;
            for (int e = a->row_ptr[i]; e < a->row_ptr[i + 1]; ++e, ++k) { ab->col[k] = a->col[e]; ab->val[k] = a->val[e]; }
        }
        for (int i = 0; i < K; ++i) {
            ab->row_ptr[n + i] = k;
            for (int j = 0; j < K; ++j, ++k) { ab->col[k] = n + j; ab->val[k] = i == j ? 2.0 : 1.0; }
        }
        ab->row_ptr[nb] = k;
        double *bb = (double *)malloc(sizeof(double) * nb), *db = (double *)malloc(sizeof(double) * nb);
        double *xb = (double *)malloc(sizeof(double) * nb), *xcb = (double *)malloc(sizeof(double) * nb);
        for (int i = 0; i < nb; ++i) {
            bb[i] = i < n ? b[i] : 1e-8;
            db[i] = 1.0 / ab->val[hs_csr_find(ab, i, i)];
        }
        hs_cg_opts o = {tol, 5000, HS_CG_CLASSIC, 0};
        HS_TEST_OK(hs_cg_solve(nb, csr_mv, ab, db, bb, xcb, &o, w, &rc));
        dev_system d;
        if (dev_system_create("csr_scalar", ab, db, bb, &d)) {
            dev_pattern pat;
            dev_pattern_create(ab, d.lay, &pat);
            hs_gpu_cg *cg = make_sstep(nb, 8, &d, &pat);
            if (cg) {
                hs_gpu_cg_tol t = {tol, 0.0, 0.0, nullptr, 5000};
                HS_TEST_OK(hs_gpu_cg_solve_stream(cg, d.b, d.x, &t, 4, s, h));
                hs_cg_result r;
                hs_gpu_cg_result_of(h, &r);
                T_CUDA(cudaMemcpy(xb, d.x, sizeof(double) * nb, cudaMemcpyDeviceToHost));
                HS_TEST_CHECK(r.fallback_iter == 8 && r.outcome == HS_CG_CONVERGED && r.rel_res <= tol &&
                                  r.iters <= ceil(1.1 * rc.iters) && rel_diff(nb, xb, xcb) <= 2 * 820.0 * tol,
                              "basis breakdown: fallback %d, outcome %d, rel_res %.3g, %d iterations (classic %d), "
                              "vs classic %.3g",
                              r.fallback_iter, r.outcome, r.rel_res, r.iters, rc.iters, rel_diff(nb, xb, xcb));
            }
            hs_gpu_cg_destroy(&cg);
            dev_pattern_destroy(&pat);
        }
        dev_system_destroy(&d);
        free(bb); free(db); free(xb); free(xcb);
        hs_csr_destroy(&ab);
    }
    // more rows than the grid has threads (85,184 rows; the grid holds at most 2 x 132 x 256 = 67,584 on
    // an H100/H200 at 2 blocks per SM): the kernel's path that stages the basis from L2 chunk by chunk
    // rather than keeping each thread's one row in shared memory; to 1e-10 as above
    {
        const int m2 = 44, n2 = m2 * m2 * m2;
        hs_csr *a2 = grid_matrix(m2, sigma);
        double *xs2 = (double *)malloc(sizeof(double) * n2), *b2 = (double *)malloc(sizeof(double) * n2);
        double *d2 = (double *)malloc(sizeof(double) * n2), *x2 = (double *)malloc(sizeof(double) * n2);
        double *xc2 = (double *)malloc(sizeof(double) * n2);
        for (int i = 0; i < n2; ++i) xs2[i] = cos(0.013 * i) + 0.3 * sin(0.7 * i);
        hs_csr_spmv(a2, xs2, b2);
        for (int i = 0; i < n2; ++i) d2[i] = 1.0 / a2->val[hs_csr_find(a2, i, i)];
        hs_cg_work *w2 = nullptr;
        HS_TEST_OK(hs_cg_work_create(n2, &w2));
        hs_cg_opts o2 = {tol, 5000, HS_CG_SSTEP, 4};
        hs_cg_result r2;
        HS_TEST_OK(hs_cg_solve(n2, csr_mv, a2, d2, b2, xc2, &o2, w2, &r2));
        dev_system d;
        if (dev_system_create("csr_scalar", a2, d2, b2, &d)) {
            dev_pattern pat;
            dev_pattern_create(a2, d.lay, &pat);
            hs_gpu_cg *cg = make_sstep(n2, 4, &d, &pat);
            if (cg) {
                HS_TEST_CHECK((int64_t)cg->pgrid * 256 < n2, "the grid (%d blocks) covers all %d rows: the chunked path "
                              "is not reached", cg->pgrid, n2);
                hs_gpu_cg_tol t = {tol, 0.0, 0.0, nullptr, 5000};
                HS_TEST_OK(hs_gpu_cg_solve_stream(cg, d.b, d.x, &t, 4, s, h));
                hs_cg_result rg;
                hs_gpu_cg_result_of(h, &rg);
                T_CUDA(cudaMemcpy(x2, d.x, sizeof(double) * n2, cudaMemcpyDeviceToHost));
                HS_TEST_CHECK(rg.outcome == HS_CG_CONVERGED && abs(rg.iters - r2.iters) <= 1 && rg.fallback_iter == 0 &&
                                  rg.rel_res <= tol && rel_diff(n2, x2, xs2) <= cond * tol &&
                                  rel_diff(n2, x2, xc2) <= 2 * cond * tol,
                              "%d rows, s 4: outcome %d after %d iterations (CPU %d), fallback %d, rel_res %.3g, error "
                              "%.3g vs x*, %.3g vs the CPU",
                              n2, rg.outcome, rg.iters, r2.iters, rg.fallback_iter, rg.rel_res, rel_diff(n2, x2, xs2),
                              rel_diff(n2, x2, xc2));
            }
            hs_gpu_cg_destroy(&cg);
            dev_pattern_destroy(&pat);
        }
        dev_system_destroy(&d);
        hs_cg_work_destroy(&w2);
        hs_csr_destroy(&a2);
        free(xs2); free(b2); free(d2); free(x2); free(xc2);
    }
    cudaFreeHost(h);
    cudaStreamDestroy(s);
    hs_cg_work_destroy(&w);
    hs_csr_destroy(&a);
    free(xs); free(b); free(dinv); free(xc); free(x); free(xg);
    HS_TEST_RETURN();
}
