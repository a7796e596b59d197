// Every registered SpMV format on the device against its CPU reference (apply_ref) and against
// the plain CSR product, on fresh random inputs each run (seed printed on failure; HS_TEST_SEED=n
// reruns one). Matrices: skewed row lengths (1..15 with rows of 300+), a P1-tet pattern of a
// structured box (banded, ~15 per row) and a small edge case (empty rows, 31/32/33-long rows, a
// row count that is no multiple of a warp or block).
//
// Tolerance, from the arithmetic: an m-term dot product evaluated in any order (fma or not) has
// |fl(a.x) - a.x| <= gamma_m |a|.|x|, gamma_m = m u / (1 - m u), u = 2^-53 (Higham, Accuracy and
// Stability, eq. 3.5); two such results differ by at most 2 gamma_m (|A||x|)_i, row by row.
//
// Also checked: the fused product and dot (apply_dot, apply_dot_rows) where a format offers it
// (run_case_dot); two applies give identical bits; apply writes all of y and nothing around it
// (guard entries); the device object stays right when the values are refilled in place after
// create (create even runs with NaN values, as before the first assembly).
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hs_gpu_spmv.cuh"
#include "hs_spmv.h"
#include "hs_test.h"

static unsigned g_seed;

/* splitmix64: small, good enough for test data, reproducible from the seed. */
struct rng {
    uint64_t s;
};
static uint64_t rng_next(rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double rng_sym(rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-52 - 1.0; } /* [-1,1) */
static int32_t rng_int(rng *r, int32_t n) { return (int32_t)(rng_next(r) % (uint64_t)n); }

#define T_CUDA(expr)                                                                               \
    do {                                                                                           \
        cudaError_t e_ = (expr);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            ++hs_test_failures;                                                                    \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr,                   \
                    cudaGetErrorString(e_));                                                       \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* Rows with the given lengths, distinct sorted random columns in [0, n_cols). */
static hs_csr *matrix_from_lengths(int32_t n_rows, int32_t n_cols, const int32_t *len, rng *r)
{
    int64_t nnz = 0;
    for (int32_t i = 0; i < n_rows; ++i) nnz += len[i];
    hs_csr *a = NULL;
    if (hs_csr_create(n_rows, n_cols, (int32_t)nnz, &a) != HS_OK) return NULL;
    char *used = (char *)calloc((size_t)n_cols, 1);
    int32_t k = 0;
    for (int32_t i = 0; i < n_rows; ++i) {
        a->row_ptr[i] = k;
        const int32_t start = k;
        for (int32_t j = 0; j < len[i];) {
            int32_t c = rng_int(r, n_cols);
            if (used[c]) continue;
            used[c] = 1;
            a->col[k++] = c;
            ++j;
        }
        for (int32_t q = start; q < k; ++q) used[a->col[q]] = 0;
        for (int32_t q = start + 1; q < k; ++q) /* insertion sort: rows are short or few */
            for (int32_t p = q; p > start && a->col[p - 1] > a->col[p]; --p) {
                int32_t t = a->col[p];
                a->col[p] = a->col[p - 1];
                a->col[p - 1] = t;
            }
    }
    a->row_ptr[n_rows] = k;
    free(used);
    return a;
}

/* Skewed: most rows 1..15 long, every 97th row 300..699 long (several warp strides). */
static hs_csr *matrix_skewed(int32_t n, rng *r)
{
    int32_t *len = (int32_t *)malloc(sizeof(int32_t) * (size_t)n);
    for (int32_t i = 0; i < n; ++i) {
        len[i] = (i % 97 == 3) ? 300 + rng_int(r, 400) : 1 + rng_int(r, 15);
        if (len[i] > n) len[i] = n;
    }
    hs_csr *a = matrix_from_lengths(n, n, len, r);
    free(len);
    return a;
}

/* Edge cases: 37 rows (no multiple of 32 or 256), empty rows, rows of 31, 32, 33 and 64. */
static hs_csr *matrix_edge(rng *r)
{
    const int32_t n = 37;
    int32_t len[n];
    for (int32_t i = 0; i < n; ++i) len[i] = 1 + rng_int(r, 5);
    len[0] = 0;
    len[7] = 0;
    len[36] = 0;
    len[10] = 31;
    len[11] = 32;
    len[12] = 33;
    len[20] = n;
    len[21] = 1;
    return matrix_from_lengths(n, n, len, r);
}

/* One very long row (12,000 nonzeros) among 20,000 short ones; plus the degenerate shapes: a single
 * row, and rows with no nonzeros at all. */
static hs_csr *matrix_long_row(rng *r)
{
    const int32_t n = 20000;
    int32_t *len = (int32_t *)malloc(sizeof(int32_t) * (size_t)n);
    for (int32_t i = 0; i < n; ++i) len[i] = 5 + rng_int(r, 11);
    len[777] = 12000;
    hs_csr *a = matrix_from_lengths(n, n, len, r);
    free(len);
    return a;
}

static hs_csr *matrix_single_row(rng *r)
{
    int32_t len[1] = {3000};
    return matrix_from_lengths(1, 5000, len, r);
}

static hs_csr *matrix_empty(rng *r)
{
    int32_t len[300] = {0};
    return matrix_from_lengths(300, 300, len, r);
}

/* P1 tetrahedra of an nx*ny*nz box of cubes, 6 tets per cube (Kuhn split), lexicographic node
 * numbering: the banded pattern the simulator assembles. */
static hs_csr *matrix_tet_box(int32_t nx, int32_t ny, int32_t nz)
{
    const int32_t px = nx + 1, py = ny + 1, pz = nz + 1;
    const int32_t n_nodes = px * py * pz, n_elems = 6 * nx * ny * nz;
    int32_t *tets = (int32_t *)malloc(sizeof(int32_t) * 4 * (size_t)n_elems);
    static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    int64_t e = 0;
    for (int32_t k = 0; k < nz; ++k)
        for (int32_t j = 0; j < ny; ++j)
            for (int32_t i = 0; i < nx; ++i)
                for (int t = 0; t < 6; ++t) {
                    int c[3] = {i, j, k};
                    tets[4 * e] = c[0] + px * (c[1] + py * c[2]);
                    for (int s = 0; s < 3; ++s) {
                        ++c[perm[t][s]];
                        tets[4 * e + 1 + s] = c[0] + px * (c[1] + py * c[2]);
                    }
                    ++e;
                }
    hs_csr *a = NULL;
    hs_status st = hs_csr_from_tets(n_nodes, n_elems, tets, &a);
    free(tets);
    return st == HS_OK ? a : NULL;
}

static double gamma_m(int32_t m)
{
    const double u = DBL_EPSILON / 2; /* unit roundoff of binary64 */
    return m * u / (1.0 - m * u);
}

/* Row-wise |y - yr| <= 2 gamma_m (|A||x|)_i; NaN fails. Prints the first few offending rows. */
static void check_rows(const char *what, const char *fmt, const char *mat, const hs_csr *a,
                       const double *y, const double *yr, const double *ab)
{
    int bad = 0;
    for (int32_t i = 0; i < a->n_rows; ++i) {
        const double tol = 2.0 * gamma_m(a->row_ptr[i + 1] - a->row_ptr[i]) * ab[i];
        const double d = fabs(y[i] - yr[i]);
        if (!(d <= tol)) {
            if (bad < 5)
                fprintf(stderr, "  %s/%s %s: row %d (len %d): %.17g vs %.17g, |diff| %.3g > tol %.3g\n",
                        fmt, mat, what, (int)i, (int)(a->row_ptr[i + 1] - a->row_ptr[i]), y[i],
                        yr[i], d, tol);
            ++bad;
        }
    }
    HS_TEST_CHECK(bad == 0, "%s on %s: %s: %d of %d rows beyond 2 gamma_m (|A||x|)_i", fmt, mat,
                  what, bad, (int)a->n_rows);
}

static const int kGuard = 64;                       /* guard entries on each side of y */
static const uint64_t kGuardBits = 0x7FF4DEADBEEF0001ull; /* a NaN no kernel computes */

static void fill_bits(double *p, size_t n, uint64_t bits)
{
    for (size_t i = 0; i < n; ++i) memcpy(p + i, &bits, sizeof bits);
}

static int guards_intact(const double *ybuf, int32_t n)
{
    for (int g = 0; g < kGuard; ++g) {
        uint64_t lo, hi;
        memcpy(&lo, ybuf + g, sizeof lo);
        memcpy(&hi, ybuf + kGuard + n + g, sizeof hi);
        if (lo != kGuardBits || hi != kGuardBits) return 0;
    }
    return 1;
}

/* One format on one matrix. a->val is overwritten with fresh random values (twice). */
static void run_case(const hs_spmv_ops *o, const char *mat, hs_csr *a, rng *r)
{
    const int32_t n = a->n_rows, nc = a->n_cols;
    hs_spmv_layout *lay = NULL;
    hs_gpu_spmv *s = NULL;
    double *x = NULL, *vf = NULL, *yfmt = NULL, *ycsr = NULL, *ab = NULL, *ybuf = NULL, *ybuf2 = NULL;
    double *d_vals = NULL, *d_x = NULL, *d_ybuf = NULL;
    cudaStream_t stream = NULL;
    const size_t ybytes = sizeof(double) * ((size_t)n + 2 * kGuard);

    HS_TEST_OK(hs_spmv_layout_create(o, a, NULL, &lay));
    if (!lay) return;
    x = (double *)malloc(sizeof(double) * (size_t)nc);
    vf = (double *)malloc(sizeof(double) * (size_t)(lay->n_slots ? lay->n_slots : 1));
    yfmt = (double *)malloc(sizeof(double) * (size_t)n);
    ycsr = (double *)malloc(sizeof(double) * (size_t)n);
    ab = (double *)malloc(sizeof(double) * (size_t)n);
    ybuf = (double *)malloc(ybytes);
    ybuf2 = (double *)malloc(ybytes);
    for (int32_t i = 0; i < nc; ++i) x[i] = rng_sym(r);

    T_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    T_CUDA(cudaMalloc(&d_vals, sizeof(double) * (size_t)(lay->n_slots ? lay->n_slots : 1)));
    T_CUDA(cudaMalloc(&d_x, sizeof(double) * (size_t)nc));
    T_CUDA(cudaMalloc(&d_ybuf, ybytes));
    T_CUDA(cudaMemcpy(d_x, x, sizeof(double) * (size_t)nc, cudaMemcpyHostToDevice));
    /* Before the first assembly the values are garbage: create must not depend on them. */
    T_CUDA(cudaMemset(d_vals, 0xFF, sizeof(double) * (size_t)(lay->n_slots ? lay->n_slots : 1)));
    /* Guards around y; y itself starts as NaN so an unwritten row shows. */
    fill_bits(ybuf, (size_t)n + 2 * kGuard, kGuardBits);
    fill_bits(ybuf + kGuard, (size_t)n, 0x7FF8000000000000ull);
    T_CUDA(cudaMemcpy(d_ybuf, ybuf, ybytes, cudaMemcpyHostToDevice));
    /* The set-up above ran on the legacy stream, which a non-blocking stream does not wait for. */
    T_CUDA(cudaDeviceSynchronize());

    HS_TEST_OK(hs_gpu_spmv_create(lay, a, d_vals, &s));
    if (!s) goto out;
    T_CUDA(cudaDeviceSynchronize());

    for (int round = 0; round < 2; ++round) {
        /* Round 0: first values after create; round 1: values refilled in place (Newton). */
        const char *what = round == 0 ? "first values" : "values refilled in place";
        for (int32_t k = 0; k < a->nnz; ++k) a->val[k] = rng_sym(r);
        hs_spmv_layout_scatter(lay, a->nnz, a->val, vf);
        T_CUDA(cudaMemcpyAsync(d_vals, vf, sizeof(double) * (size_t)lay->n_slots,
                               cudaMemcpyHostToDevice, stream));
        o->apply_ref(lay, vf, x, yfmt);
        hs_csr_spmv(a, x, ycsr);
        hs_csr_spmv_abs(a, x, ab);

        HS_TEST_OK(hs_gpu_spmv_apply(s, d_x, d_ybuf + kGuard, stream));
        T_CUDA(cudaStreamSynchronize(stream));
        T_CUDA(cudaMemcpy(ybuf, d_ybuf, ybytes, cudaMemcpyDeviceToHost));
        HS_TEST_CHECK(guards_intact(ybuf, n), "%s on %s (%s): apply wrote outside y", o->name, mat,
                      what);
        check_rows(what, o->name, mat, a, ybuf + kGuard, yfmt, ab);
        check_rows("vs plain CSR", o->name, mat, a, ybuf + kGuard, ycsr, ab);

        HS_TEST_OK(hs_gpu_spmv_apply(s, d_x, d_ybuf + kGuard, stream));
        T_CUDA(cudaStreamSynchronize(stream));
        T_CUDA(cudaMemcpy(ybuf2, d_ybuf, ybytes, cudaMemcpyDeviceToHost));
        HS_TEST_CHECK(memcmp(ybuf, ybuf2, ybytes) == 0,
                      "%s on %s (%s): two applies differ in their bits", o->name, mat, what);
    }

out:
    hs_gpu_spmv_destroy(&s);
    HS_TEST_CHECK(s == NULL, "hs_gpu_spmv_destroy did not clear the pointer");
    hs_gpu_spmv_destroy(&s); /* accepts NULL */
    cudaFree(d_vals);
    cudaFree(d_x);
    cudaFree(d_ybuf);
    if (stream) cudaStreamDestroy(stream);
    hs_spmv_layout_destroy(&lay);
    free(x);
    free(vf);
    free(yfmt);
    free(ycsr);
    free(ab);
    free(ybuf);
    free(ybuf2);
}

/* solver.matrix_values = float32: a format with a float32 variant, its values rounded to float, on
 * the device against apply_ref_f32 (the widened values' products in the same order: the same
 * 2 gamma_m (|A||x|)_i bound, |A| of the rounded values) and y . x through apply_dot where it fuses. */
static void run_case_f32(const hs_spmv_ops *o, const char *mat, hs_csr *a, rng *r)
{
    if (!o->apply_ref_f32) return;
    const int32_t n = a->n_rows, nc = a->n_cols;
    hs_spmv_layout *lay = NULL;
    hs_gpu_spmv *s = NULL;
    HS_TEST_OK(hs_spmv_layout_create(o, a, NULL, &lay));
    if (!lay) return;
    const size_t ns = (size_t)(lay->n_slots ? lay->n_slots : 1);
    double *x = (double *)malloc(sizeof(double) * (size_t)nc), *vd = (double *)malloc(sizeof(double) * ns);
    float *vf = (float *)malloc(sizeof(float) * ns);
    double *yref = (double *)malloc(sizeof(double) * (size_t)n), *ab = (double *)malloc(sizeof(double) * (size_t)n);
    double *y = (double *)malloc(sizeof(double) * ((size_t)n + 1));
    float *d_vals = NULL;
    double *d_x = NULL, *d_y = NULL;
    for (int32_t i = 0; i < nc; ++i) x[i] = rng_sym(r);
    for (int32_t k = 0; k < a->nnz; ++k) a->val[k] = rng_sym(r);
    hs_spmv_layout_scatter(lay, a->nnz, a->val, vd);
    hs_spmv_round_values((int64_t)ns, vd, vf);
    for (int32_t k = 0; k < a->nnz; ++k) a->val[k] = (double)vf[lay->slot_of_nnz[k]]; /* |A| of what is stored */
    o->apply_ref_f32(lay, vf, x, yref);
    hs_csr_spmv_abs(a, x, ab);
    T_CUDA(cudaMalloc(&d_vals, sizeof(float) * ns));
    T_CUDA(cudaMalloc(&d_x, sizeof(double) * (size_t)(nc ? nc : 1)));
    T_CUDA(cudaMalloc(&d_y, sizeof(double) * ((size_t)n + 1)));
    T_CUDA(cudaMemcpy(d_vals, vf, sizeof(float) * ns, cudaMemcpyHostToDevice));
    T_CUDA(cudaMemcpy(d_x, x, sizeof(double) * (size_t)nc, cudaMemcpyHostToDevice));
    HS_TEST_OK(hs_gpu_spmv_create_values(lay, a, d_vals, HS_VALUES_F32, &s));
    if (s && n > 0) {
        HS_TEST_OK(hs_gpu_spmv_apply(s, d_x, d_y, 0));
        T_CUDA(cudaDeviceSynchronize());
        T_CUDA(cudaMemcpy(y, d_y, sizeof(double) * (size_t)n, cudaMemcpyDeviceToHost));
        check_rows("float32 values", o->name, mat, a, y, yref, ab);
    }
out:
    hs_gpu_spmv_destroy(&s);
    cudaFree(d_vals);
    cudaFree(d_x);
    cudaFree(d_y);
    hs_spmv_layout_destroy(&lay);
    free(x); free(vd); free(vf); free(yref); free(ab); free(y);
}

/* The fused product and dot (Chronopoulos-Gear CG: (A u, u) in the SpMV's pass) of a format that offers
 * it, float64 and (where the format has them) float32 values: apply_dot's y . x, and apply_dot_rows' y . x
 * over rows [0, n_dot) only (a rank's owned rows of its local matrix: backends/cuda/dist_pcg.cu), for
 * n_dot = n, an odd count inside (no multiple of a warp) and 0, against the host's sum of y_csr . x over
 * those rows: |dot - ref| <= (2 gamma_m + 2 gamma_nd (1 + gamma_m)) sum_i<nd |x_i| (|A||x|)_i, m the
 * longest row (each y_i within 2 gamma_m (|A||x|)_i of y_csr_i, as check_rows; |y_i| <= (1 + gamma_m)
 * (|A||x|)_i; an nd-term dot in any order within gamma_nd sum |y_i x_i|, on either side). Also: every
 * row of y as check_rows, apply_dot_rows over all n rows gives apply_dot's bits (the same kernel order),
 * and the ticket is back to 0 after each launch. */
static void run_case_dot(const hs_spmv_ops *o, const char *mat, hs_csr *a, rng *r, int f32)
{
    const hs_gpu_spmv_ops *g = hs_gpu_spmv_of(o);
    if (!g || !g->apply_dot || (f32 && !g->create_f32) || a->n_rows != a->n_cols || a->n_rows == 0) return;
    const int32_t n = a->n_rows;
    hs_spmv_layout *lay = NULL;
    hs_gpu_spmv *s = NULL;
    HS_TEST_OK(hs_spmv_layout_create(o, a, NULL, &lay));
    if (!lay) return;
    const size_t ns = (size_t)(lay->n_slots ? lay->n_slots : 1);
    const int max_parts = 1024 + n; /* at least the kernels' grids */
    double *x = (double *)malloc(sizeof(double) * (size_t)n), *vd = (double *)malloc(sizeof(double) * ns);
    float *vf = (float *)malloc(sizeof(float) * ns);
    double *ycsr = (double *)malloc(sizeof(double) * (size_t)n), *ab = (double *)malloc(sizeof(double) * (size_t)n);
    double *y = (double *)malloc(sizeof(double) * (size_t)n);
    void *d_vals = NULL;
    double *d_x = NULL, *d_y = NULL, *d_part = NULL, *d_res = NULL;
    unsigned *d_ticket = NULL;
    int32_t mmax = 0;
    for (int32_t i = 0; i < n; ++i) {
        x[i] = rng_sym(r);
        const int32_t m = a->row_ptr[i + 1] - a->row_ptr[i];
        mmax = m > mmax ? m : mmax;
    }
    for (int32_t k = 0; k < a->nnz; ++k) a->val[k] = rng_sym(r);
    hs_spmv_layout_scatter(lay, a->nnz, a->val, vd);
    if (f32) {
        hs_spmv_round_values((int64_t)ns, vd, vf);
        for (int32_t k = 0; k < a->nnz; ++k) a->val[k] = (double)vf[lay->slot_of_nnz[k]]; /* what is stored */
    }
    hs_csr_spmv(a, x, ycsr);
    hs_csr_spmv_abs(a, x, ab);
    T_CUDA(cudaMalloc(&d_vals, (f32 ? sizeof(float) : sizeof(double)) * ns));
    T_CUDA(cudaMalloc(&d_x, sizeof(double) * (size_t)n));
    T_CUDA(cudaMalloc(&d_y, sizeof(double) * (size_t)n));
    T_CUDA(cudaMalloc(&d_part, sizeof(double) * (size_t)max_parts));
    T_CUDA(cudaMalloc(&d_res, sizeof(double)));
    T_CUDA(cudaMalloc(&d_ticket, sizeof(unsigned)));
    T_CUDA(cudaMemset(d_ticket, 0, sizeof(unsigned)));
    T_CUDA(cudaMemcpy(d_vals, f32 ? (const void *)vf : (const void *)vd, (f32 ? sizeof(float) : sizeof(double)) * ns,
                      cudaMemcpyHostToDevice));
    T_CUDA(cudaMemcpy(d_x, x, sizeof(double) * (size_t)n, cudaMemcpyHostToDevice));
    HS_TEST_OK(hs_gpu_spmv_create_values(lay, a, d_vals, f32 ? HS_VALUES_F32 : HS_VALUES_F64, &s));
    if (!s) goto out;
    {
        const char *vk = f32 ? "float32" : "float64";
        double full = 0.0;
        HS_TEST_OK(g->apply_dot(s->impl, d_x, d_y, d_part, max_parts, d_ticket, d_res, nullptr, 0));
        T_CUDA(cudaDeviceSynchronize());
        T_CUDA(cudaMemcpy(&full, d_res, sizeof full, cudaMemcpyDeviceToHost));
        T_CUDA(cudaMemcpy(y, d_y, sizeof(double) * (size_t)n, cudaMemcpyDeviceToHost));
        check_rows(f32 ? "apply_dot, float32" : "apply_dot", o->name, mat, a, y, ycsr, ab);
        const int32_t nds[4] = {-1, n, n / 2 + 5 < n ? n / 2 + 5 : n, 0}; /* -1: apply_dot */
        for (int q = 0; q < 4; ++q) {
            const int32_t nd = nds[q] < 0 ? n : nds[q];
            double dot = full;
            if (nds[q] >= 0) {
                if (!g->apply_dot_rows) break;
                T_CUDA(cudaMemset(d_y, 0xFF, sizeof(double) * (size_t)n));
                HS_TEST_OK(g->apply_dot_rows(s->impl, nd, d_x, d_y, d_part, max_parts, d_ticket, d_res, 0));
                T_CUDA(cudaDeviceSynchronize());
                T_CUDA(cudaMemcpy(&dot, d_res, sizeof dot, cudaMemcpyDeviceToHost));
                T_CUDA(cudaMemcpy(y, d_y, sizeof(double) * (size_t)n, cudaMemcpyDeviceToHost));
                check_rows(f32 ? "apply_dot_rows, float32" : "apply_dot_rows", o->name, mat, a, y, ycsr, ab);
                if (nd == n)
                    HS_TEST_CHECK(memcmp(&dot, &full, sizeof dot) == 0,
                                  "%s on %s (%s): apply_dot_rows over all %d rows %.17g, apply_dot %.17g", o->name, mat,
                                  vk, (int)n, dot, full);
            }
            unsigned ticket = 1;
            T_CUDA(cudaMemcpy(&ticket, d_ticket, sizeof ticket, cudaMemcpyDeviceToHost));
            HS_TEST_CHECK(ticket == 0, "%s on %s (%s): the ticket is %u after the launch", o->name, mat, vk, ticket);
            double ref = 0.0, xab = 0.0;
            for (int32_t i = 0; i < nd; ++i) {
                ref += ycsr[i] * x[i];
                xab += fabs(x[i]) * ab[i];
            }
            const double gm = gamma_m(mmax), tol = (2.0 * gm + 2.0 * gamma_m(nd) * (1.0 + gm)) * xab;
            HS_TEST_CHECK(fabs(dot - ref) <= tol, "%s on %s (%s): %s over %d of %d rows %.17g, host %.17g, |diff| %.3g > "
                          "tol %.3g", o->name, mat, vk, nds[q] < 0 ? "apply_dot" : "apply_dot_rows", (int)nd, (int)n, dot,
                          ref, fabs(dot - ref), tol);
        }
    }
out:
    hs_gpu_spmv_destroy(&s);
    cudaFree(d_vals);
    cudaFree(d_x);
    cudaFree(d_y);
    cudaFree(d_part);
    cudaFree(d_res);
    cudaFree(d_ticket);
    hs_spmv_layout_destroy(&lay);
    free(x); free(vd); free(vf); free(ycsr); free(ab); free(y);
}

/* Host only: every registered format has device ops at the same position, under the same name. */
static void check_registry(void)
{
    hs_spmv_ops stranger = *hs_spmv_get(0); /* the same ops, but no registered entry */
    HS_TEST_CHECK(hs_gpu_spmv_of(&stranger) == NULL, "an unregistered entry resolved");
    HS_TEST_CHECK(hs_gpu_spmv_of(NULL) == NULL, "NULL resolved");
    for (int f = 0; f < hs_spmv_count(); ++f) {
        const hs_spmv_ops *o = hs_spmv_get(f);
        HS_TEST_CHECK(hs_spmv_index(o) == f, "%s: index %d, want %d", o->name, hs_spmv_index(o), f);
        const hs_gpu_spmv_ops *g = hs_gpu_spmv_of(o);
        HS_TEST_CHECK(g != NULL, "format %s has no device ops (backends/cuda/spmv/<format>.cu)", o->name);
        if (!g) continue;
        HS_TEST_CHECK(strcmp(g->name, o->name) == 0, "device ops %s under name %s", g->name, o->name);
        HS_TEST_CHECK(g->create && g->apply && g->destroy, "%s: incomplete device ops", o->name);
        HS_TEST_CHECK((g->create_f32 != NULL) == (o->apply_ref_f32 != NULL),
                      "%s: a float32 variant on one side only (host apply_ref_f32 / device create_f32)", o->name);
        HS_TEST_CHECK(!g->apply_dot_rows || g->apply_dot, "%s: apply_dot_rows without apply_dot", o->name);
    }
}

int main(void)
{
    check_registry();
    if (hs_test_failures) HS_TEST_RETURN(); /* fails even on a machine without a GPU */

    int n_dev = 0;
    cudaError_t e = cudaGetDeviceCount(&n_dev);
    if (e != cudaSuccess || n_dev == 0) {
        printf("test_gpu_spmv: skipped: no CUDA device (%s)\n",
               e != cudaSuccess ? cudaGetErrorString(e) : "device count 0");
        return HS_TEST_SKIP;
    }

    const char *env = getenv("HS_TEST_SEED");
    g_seed = env ? (unsigned)strtoul(env, NULL, 10) : (unsigned)time(NULL) ^ (unsigned)clock();
    rng r = {g_seed};

    struct {
        const char *name;
        hs_csr *a;
    } mats[6] = {{"skewed", matrix_skewed(20000, &r)},
                 {"p1_tet_box", matrix_tet_box(28, 28, 28)},
                 {"edge", matrix_edge(&r)},
                 {"long_row", matrix_long_row(&r)},
                 {"single_row", matrix_single_row(&r)},
                 {"no_nonzeros", matrix_empty(&r)}};
    for (int m = 0; m < 6; ++m) {
        HS_TEST_CHECK(mats[m].a != NULL, "could not build matrix %s", mats[m].name);
        if (!mats[m].a) continue;
        for (int f = 0; f < hs_spmv_count(); ++f) run_case(hs_spmv_get(f), mats[m].name, mats[m].a, &r);
        for (int f = 0; f < hs_spmv_count(); ++f) run_case_f32(hs_spmv_get(f), mats[m].name, mats[m].a, &r);
        for (int f = 0; f < hs_spmv_count(); ++f)
            for (int f32 = 0; f32 <= 1; ++f32) run_case_dot(hs_spmv_get(f), mats[m].name, mats[m].a, &r, f32);
        hs_csr_destroy(&mats[m].a);
    }
    if (hs_test_failures)
        fprintf(stderr, "test_gpu_spmv: %d failed checks; seed %u (rerun: HS_TEST_SEED=%u)\n",
                hs_test_failures, g_seed, g_seed);
    HS_TEST_RETURN();
}
