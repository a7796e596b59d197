/* aligned_coo (seed 003 sec. IV): the layout's invariants in each of its three modes (segments,
 * hybrid, flat) forced on a range of matrices, the paper's own example (Fig. 2), the cost model's
 * choices, and the CPU reference against CSR (rounding bound) and against a host emulation of the
 * device kernels (bit for bit), whose index arithmetic (chunk head masks, popc/clz piece numbering,
 * the segmented shuffle scan, the ordered combine) mirrors gpu/spmv_aligned_coo.cu. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_spmv.h"
#include "hs_test.h"
#include "hs_test_matrix.h"
#include "spmv_aligned_coo_layout.h"

static const char *mode_name(int m) { return m == HS_ACOO_SEG ? "seg" : m == HS_ACOO_HYBRID ? "hybrid" : "flat"; }

/* The device kernels, lane by lane: segment threads, flat warps (head masks, shuffle-up scan
 * with simultaneous reads, piece index from popcount), then the ordered combine. */
static void emulate_device(const hs_acoo *a, const double *vals, const double *x, double *y)
{
    const int64_t ss = a->seg_size;
    for (int64_t t = 0; t < ss; ++t) {
        int32_t cur = a->seg_row[t];
        double acc = 0.0;
        int64_t q = t;
        int32_t s = 0;
        for (; s < a->min_rl; ++s, q += ss) acc = fma(vals[q], x[a->seg_col[q]], acc);
        for (; s < a->n_seg; ++s, q += ss) {
            if (a->seg_row[q] != cur) { y[cur] = acc; cur = a->seg_row[q]; acc = 0.0; }
            acc = fma(vals[q], x[a->seg_col[q]], acc);
        }
        y[cur] = acc;
    }
    double *partial = malloc(sizeof(double) * ((size_t)a->n_pieces + 1));
    for (int32_t q = 0; q < a->n_pieces; ++q) partial[q] = NAN;
    const double *vf = vals + a->n_seg_slots;
    for (int64_t c = 0; c < a->n_chunks; ++c) {
        double p[32], old[32];
        const uint32_t mask = a->chunk_head[c];
        for (int l = 0; l < 32; ++l) {
            const int64_t k = c * 32 + l;
            p[l] = k < a->n_flat ? vf[k] * x[a->flat_col[k]] : 0.0;
        }
        for (int off = 1; off < 32; off <<= 1) {
            memcpy(old, p, sizeof p);
            for (int l = 0; l < 32; ++l) {
                const uint32_t upto = mask & ((2u << l) - 1u);
                const int start = 31 - __builtin_clz(upto);
                const double t = l >= off ? old[l - off] : old[l]; /* __shfl_up: own value below off */
                if (l - off >= start) p[l] = p[l] + t;
            }
        }
        for (int l = 0; l < 32; ++l) {
            const int64_t k = c * 32 + l;
            const uint32_t upto = mask & ((2u << l) - 1u);
            const int last = k < a->n_flat && (l == 31 || ((mask >> (l + 1)) & 1u) || k + 1 == a->n_flat);
            if (last) partial[a->chunk_piece[c] + __builtin_popcount(upto) - 1] = p[l];
        }
    }
    for (int32_t m = 0; m < a->n_aux; ++m) {
        const int32_t r = a->aux_row[m];
        double acc = a->aux_has_seg[m] ? y[r] : 0.0;
        for (int32_t q = a->aux_piece_ptr[m]; q < a->aux_piece_ptr[m + 1]; ++q) acc = acc + partial[q];
        y[r] = acc;
    }
    free(partial);
}

/* Every invariant of the layout a (built for pattern p in its mode) and its slot map. */
static void check_layout(const hs_csr *p, const hs_acoo *a, const int64_t *slot, int64_t n_slots,
                         const char *label)
{
    const int32_t n = p->n_rows, S = a->n_seg;
    const int64_t ss = a->seg_size;
    const char *md = mode_name(a->mode);
    HS_TEST_CHECK(n_slots == a->n_seg_slots + a->n_flat && a->n_seg_slots == (int64_t)S * ss,
                  "%s/%s: slot counts", label, md);
    /* slot map injective; remember which slots are real */
    char *real = calloc((size_t)n_slots + 1, 1);
    int ok = 1;
    for (int32_t k = 0; k < p->nnz; ++k) {
        if (slot[k] < 0 || slot[k] >= n_slots || real[slot[k]]) ok = 0;
        else real[slot[k]] = 1;
    }
    HS_TEST_CHECK(ok, "%s/%s: slot map not injective into [0, %lld)", label, md, (long long)n_slots);
    if (!ok) { free(real); return; }
    /* how each row is split between segments and flat part */
    int32_t s_max = 0, m_min = INT32_MAX;
    for (int32_t i = 0; i < n; ++i) {
        const int32_t rl = p->row_ptr[i + 1] - p->row_ptr[i];
        const int32_t want_seg = a->mode == HS_ACOO_SEG ? rl : a->mode == HS_ACOO_HYBRID ? rl % 32 : 0;
        int32_t in_seg = 0;
        for (int32_t k = p->row_ptr[i]; k < p->row_ptr[i + 1]; ++k) {
            const int is_seg = slot[k] < a->n_seg_slots;
            /* the flat entries are the row's first ones, the segment entries its last ones */
            if (is_seg) ++in_seg;
            else ok &= in_seg == 0;
            if (is_seg) ok &= a->seg_row[slot[k]] == i && a->seg_col[slot[k]] == p->col[k];
            else ok &= a->flat_col[slot[k] - a->n_seg_slots] == p->col[k];
        }
        ok &= in_seg == want_seg;
        if (want_seg > s_max) s_max = want_seg;
        if (want_seg > 0 && want_seg < m_min) m_min = want_seg;
    }
    HS_TEST_CHECK(ok, "%s/%s: rows not split as the mode says, or wrong row/column in a slot", label, md);
    HS_TEST_CHECK(S == s_max && a->min_rl == (s_max ? m_min : 0),
                  "%s/%s: %d segments, min_rl %d; expected %d, %d", label, md, (int)S, (int)a->min_rl,
                  (int)s_max, (int)(s_max ? m_min : 0));
    /* threads: whole consecutive rows, CSR order inside a row, then padding with the last row and
     * column; first min_rl slots one row; next fit (the next thread's first row did not fit) */
    int32_t *owner = malloc(sizeof(int32_t) * ((size_t)n + 1));
    for (int32_t i = 0; i < n; ++i) owner[i] = -1;
    int32_t prev_last_row = -1, prev_fill = 0;
    for (int64_t t = 0; t < ss && ok; ++t) {
        int32_t fill = 0;
        while (fill < S && real[(int64_t)fill * ss + t]) ++fill;
        ok &= fill > 0;
        for (int32_t s = fill; s < S; ++s) {
            const int64_t q = (int64_t)s * ss + t, lq = (int64_t)(fill - 1) * ss + t;
            ok &= !real[q] && a->seg_row[q] == a->seg_row[lq] && a->seg_col[q] == a->seg_col[lq];
        }
        for (int32_t s = 0; s < a->min_rl; ++s) ok &= a->seg_row[(int64_t)s * ss + t] == a->seg_row[t];
        const int32_t first_row = a->seg_row[t];
        ok &= first_row > prev_last_row; /* rows ascend across threads */
        if (t > 0) {
            const int32_t rl = p->row_ptr[first_row + 1] - p->row_ptr[first_row];
            const int32_t m = a->mode == HS_ACOO_SEG ? rl : rl % 32;
            ok &= prev_fill + m > S;
        }
        for (int32_t s = 0; s < S; ++s) {
            const int32_t r = a->seg_row[(int64_t)s * ss + t];
            ok &= r >= 0 && r < n && (owner[r] == -1 || owner[r] == (int32_t)t);
            owner[r] = (int32_t)t;
        }
        prev_last_row = a->seg_row[(int64_t)(fill - 1) * ss + t];
        prev_fill = fill;
    }
    HS_TEST_CHECK(ok, "%s/%s: segment threads are not whole rows packed in order with own-row padding",
                  label, md);
    /* a segment never holds two entries (real or padding) of one row */
    char *seen = calloc((size_t)n + 1, 1);
    for (int32_t s = 0; s < S && ok; ++s) {
        for (int64_t t = 0; t < ss; ++t) {
            const int32_t r = a->seg_row[(int64_t)s * ss + t];
            if (seen[r]) ok = 0;
            seen[r] = 1;
        }
        for (int64_t t = 0; t < ss; ++t) seen[a->seg_row[(int64_t)s * ss + t]] = 0;
    }
    HS_TEST_CHECK(ok, "%s/%s: a segment holds two entries of one row", label, md);
    free(seen);
    free(owner);
    /* flat part: hybrid chunks are single rows; aux rows = rows with flat entries + empty rows */
    if (a->mode == HS_ACOO_HYBRID)
        for (int32_t c = 0; c < a->n_chunks; ++c) ok &= a->chunk_head[c] == 1u;
    int32_t m = 0, pieces = 0;
    for (int32_t i = 0; i < n; ++i) {
        const int32_t rl = p->row_ptr[i + 1] - p->row_ptr[i];
        int32_t fl = 0;
        for (int32_t k = p->row_ptr[i]; k < p->row_ptr[i + 1]; ++k) fl += slot[k] >= a->n_seg_slots;
        if (a->mode == HS_ACOO_HYBRID) ok &= fl % 32 == 0;
        if (!(rl == 0 || fl > 0)) continue;
        ok &= m < a->n_aux && a->aux_row[m] == i && a->aux_has_seg[m] == (fl < rl);
        ok &= a->aux_flat_ptr[m + 1] - a->aux_flat_ptr[m] == fl && a->aux_piece_ptr[m] == pieces;
        if (fl > 0) pieces += (a->aux_flat_ptr[m + 1] - 1) / 32 - a->aux_flat_ptr[m] / 32 + 1;
        ++m;
    }
    ok &= m == a->n_aux && pieces == a->n_pieces && a->aux_piece_ptr[a->n_aux] == pieces;
    HS_TEST_CHECK(ok, "%s/%s: flat part or combine rows inconsistent", label, md);
    free(real);
}

/* Build in every mode (and by the model), check the layout, the reference against CSR within
 * 2 gamma_m (|A||x|)_i, and the reference against the kernel emulation bit for bit. Returns the
 * mode the model chose. */
static int check_matrix(const hs_csr *p, const char *label)
{
    const int32_t n = p->n_rows;
    double *x = malloc(sizeof(double) * ((size_t)p->n_cols + 1));
    double *yr = malloc(sizeof(double) * ((size_t)n + 1)), *ab = malloc(sizeof(double) * ((size_t)n + 1));
    double *y = malloc(sizeof(double) * ((size_t)n + 1)), *ye = malloc(sizeof(double) * ((size_t)n + 1));
    int64_t *slot = malloc(sizeof(int64_t) * ((size_t)p->nnz + 1));
    unsigned s = 11;
    for (int32_t i = 0; i < p->n_cols; ++i) x[i] = 2.0 * urand(&s) - 1.0;
    hs_csr_spmv(p, x, yr);
    hs_csr_spmv_abs(p, x, ab);
    int chosen = -1;
    for (int mode = HS_ACOO_MODEL; mode <= HS_ACOO_FLAT; ++mode) {
        hs_acoo *a = NULL;
        int64_t n_slots = -1;
        HS_TEST_OK(hs_acoo_build(p, 256, mode, &a, slot, &n_slots));
        if (!a) continue;
        if (mode == HS_ACOO_MODEL) chosen = a->mode;
        else HS_TEST_CHECK(a->mode == mode, "%s: asked for %s, got %s", label, mode_name(mode), mode_name(a->mode));
        check_layout(p, a, slot, n_slots, label);
        double *v = calloc((size_t)n_slots + 1, sizeof(double));
        for (int32_t k = 0; k < p->nnz; ++k) v[slot[k]] = p->val[k];
        for (int32_t i = 0; i < n; ++i) y[i] = ye[i] = NAN;
        hs_acoo_apply(a, v, x, y);
        emulate_device(a, v, x, ye);
        int bad = 0;
        for (int32_t i = 0; i < n; ++i) {
            const int m = p->row_ptr[i + 1] - p->row_ptr[i];
            const double tol = 2.0 * m * DBL_EPSILON / (1.0 - m * DBL_EPSILON) * ab[i];
            if (!(fabs(y[i] - yr[i]) <= tol) && bad++ < 3)
                fprintf(stderr, "  %s/%s row %d (%d nonzeros): %.17g vs CSR %.17g\n", label,
                        mode_name(a->mode), (int)i, m, y[i], yr[i]);
            if (m == 0 && y[i] != 0.0) ++bad;
        }
        HS_TEST_CHECK(bad == 0, "%s/%s: %d rows differ from CSR beyond the rounding bound", label,
                      mode_name(a->mode), bad);
        HS_TEST_CHECK(memcmp(y, ye, sizeof(double) * (size_t)n) == 0,
                      "%s/%s: reference and kernel emulation differ in their bits", label, mode_name(a->mode));
        free(v);
        hs_acoo_free(a);
    }
    free(x); free(yr); free(ab); free(y); free(ye); free(slot);
    return chosen;
}

/* Fig. 2 of the paper: the 6 x 5 matrix A, Algorithm 1's 3 segments of 4, the I/J/V vectors. */
static void paper_example(void)
{
    static const int32_t rp[] = {0, 3, 4, 6, 8, 9, 10};
    static const int32_t cl[] = {1, 3, 4, 0, 1, 2, 1, 3, 3, 0};
    static const double vl[] = {2, 4, 5, 1, 3, 6, 7, 8, 9, 10};
    hs_csr *p = NULL;
    HS_TEST_OK(hs_csr_create(6, 5, 10, &p));
    memcpy(p->row_ptr, rp, sizeof rp);
    memcpy(p->col, cl, sizeof cl);
    memcpy(p->val, vl, sizeof vl);
    hs_spmv_layout *lay = NULL;
    HS_TEST_OK(hs_spmv_layout_create(hs_spmv_find("aligned_coo"), p, NULL, &lay));
    const hs_acoo *a = hs_acoo_of(lay);
    HS_TEST_CHECK(a != NULL, "aligned_coo layout not recognised");
    if (!a) { hs_spmv_layout_destroy(&lay); hs_csr_destroy(&p); return; }
    HS_TEST_CHECK(a->mode == HS_ACOO_SEG && a->n_seg == 3 && a->seg_size == 4 && a->min_rl == 1,
                  "Fig. 2: mode %s, %d segments of %d, min_rl %d (paper: 3 of 4)", mode_name(a->mode),
                  (int)a->n_seg, (int)a->seg_size, (int)a->min_rl);
    /* The paper's I = {0,1,3,5, 0,2,3,p, 0,2,4,p} and J = {1,0,1,0, 3,1,3,p, 4,2,3,p}; our padding
     * is thread 3's own row 5 and column 0 (the paper picks rows 4 and 5 in Fig. 3). */
    static const int32_t I[] = {0, 1, 3, 5, 0, 2, 3, 5, 0, 2, 4, 5};
    static const int32_t J[] = {1, 0, 1, 0, 3, 1, 3, 0, 4, 2, 3, 0};
    static const double V[] = {2, 1, 7, 10, 4, 3, 8, 0, 5, 6, 9, 0};
    if (a->n_seg_slots == 12 && lay->n_slots == 12) {
        HS_TEST_CHECK(memcmp(a->seg_row, I, sizeof I) == 0 && memcmp(a->seg_col, J, sizeof J) == 0,
                      "Fig. 2: I or J differs from the paper's");
        double v[12], y[6];
        hs_spmv_layout_scatter(lay, 10, p->val, v);
        HS_TEST_CHECK(memcmp(v, V, sizeof V) == 0, "Fig. 2: V differs from the paper's");
        const double x[5] = {1, 2, 3, 4, 5}, want[6] = {45, 1, 24, 46, 36, 10};
        lay->ops->apply_ref(lay, v, x, y);
        HS_TEST_CHECK(memcmp(y, want, sizeof want) == 0, "Fig. 2: y = %g %g %g %g %g %g", y[0], y[1],
                      y[2], y[3], y[4], y[5]);
    }
    hs_spmv_layout_destroy(&lay);
    hs_csr_destroy(&p);
}

int main(void)
{
    const hs_spmv_ops *o = hs_spmv_find("aligned_coo");
    HS_TEST_CHECK(o != NULL, "aligned_coo is not registered (%s)", hs_spmv_names());
    if (!o) HS_TEST_RETURN();

    /* the model's two formulas on small numbers */
    HS_TEST_CHECK(hs_acoo_cost_seg(4, 3) == 3.0 + 1.0, "T(seg, 4 x 3) = %g", hs_acoo_cost_seg(4, 3));
    HS_TEST_CHECK(hs_acoo_cost_flat(64, 256) == 5.0 + 0.0 + 8.0 + 2.0, "T(flat, 64) = %g", hs_acoo_cost_flat(64, 256));
    HS_TEST_CHECK(hs_acoo_cost_flat(70, 32) == 5.0 + 6.0 + 3 * 5.0 + 3.0, "T(flat, 70) = %g", hs_acoo_cost_flat(70, 32));
    HS_TEST_CHECK(hs_acoo_cost_seg(0, 0) == 0.0 && hs_acoo_cost_flat(0, 256) == 0.0, "empty parts cost");
    const int64_t big = 3 * (int64_t)HS_ACOO_MAX_THREADS + 5;
    HS_TEST_CHECK(hs_acoo_cost_seg(big, 27) == 4.0 * 27 + HS_ACOO_MAX_THREADS / 32,
                  "T(seg) past MAX_THREADS = %g", hs_acoo_cost_seg(big, 27));

    paper_example();

    /* block size: a multiple of 32 in [32, 1024] */
    static int len[20000];
    for (int i = 0; i < 40; ++i) len[i] = 1 + i % 9;
    hs_csr *p = matrix_from_lengths(40, 40, len, 1);
    const int badb[] = {0, 48, 2048};
    for (int q = 0; q < 3; ++q) {
        hs_spmv_params prm = hs_spmv_params_default();
        prm.block_size = badb[q];
        hs_spmv_layout *lay = NULL;
        hs_status st = hs_spmv_layout_create(o, p, &prm, &lay);
        HS_TEST_CHECK(st == HS_ERR_CONFIG && lay == NULL, "block_size %d accepted (status %d)", badb[q], (int)st);
        hs_error_clear();
    }
    hs_csr_destroy(&p);

    int mode;
    /* P1-tet-like rows (5..27): all in segments */
    for (int i = 0; i < 5003; ++i) len[i] = 5 + (i * 13) % 23;
    p = matrix_from_lengths(5003, 5003, len, 2);
    mode = check_matrix(p, "5003 rows of 5..27");
    HS_TEST_CHECK(mode == HS_ACOO_SEG, "5003 rows of 5..27: model chose %s", mode_name(mode));
    hs_csr_destroy(&p);
    /* rows of 31, 32, 33, 64, 65 around the warp size, empty rows, 37 rows */
    for (int i = 0; i < 37; ++i) len[i] = 1 + (i * 5) % 7;
    len[0] = len[7] = len[36] = 0;
    len[10] = 31; len[11] = 32; len[12] = 33; len[13] = 64; len[14] = 65; len[20] = 37;
    p = matrix_from_lengths(37, 37, len, 3); check_matrix(p, "37 rows around 32"); hs_csr_destroy(&p);
    /* every 4th row empty, and no nonzeros at all */
    for (int i = 0; i < 777; ++i) len[i] = (i % 4 == 1) ? 0 : 1 + (i * 7) % 40;
    p = matrix_from_lengths(777, 777, len, 4); check_matrix(p, "777 rows, every 4th empty"); hs_csr_destroy(&p);
    for (int i = 0; i < 300; ++i) len[i] = 0;
    p = matrix_from_lengths(300, 300, len, 5);
    mode = check_matrix(p, "no nonzeros");
    HS_TEST_CHECK(mode == HS_ACOO_SEG, "no nonzeros: model chose %s", mode_name(mode));
    hs_csr_destroy(&p);
    /* skewed rows (1..15, every 97th 300): the segments' cost is still the lowest */
    for (int i = 0; i < 5000; ++i) len[i] = (i % 97 == 0) ? 300 : 1 + (i * 11) % 15;
    p = matrix_from_lengths(5000, 5000, len, 6);
    mode = check_matrix(p, "5000 skewed rows");
    HS_TEST_CHECK(mode == HS_ACOO_SEG, "5000 skewed rows: model chose %s", mode_name(mode));
    hs_csr_destroy(&p);
    /* a single long row, and one row of 12000 among 20000 short ones: the hybrid wins */
    len[0] = 3000;
    p = matrix_from_lengths(1, 5000, len, 7);
    mode = check_matrix(p, "1 row of 3000");
    HS_TEST_CHECK(mode == HS_ACOO_HYBRID, "1 row of 3000: model chose %s", mode_name(mode));
    hs_csr_destroy(&p);
    for (int i = 0; i < 20000; ++i) len[i] = 5 + i % 11;
    len[777] = 12000;
    p = matrix_from_lengths(20000, 20000, len, 8);
    mode = check_matrix(p, "20000 rows, one of 12000");
    HS_TEST_CHECK(mode == HS_ACOO_HYBRID, "20000 rows, one of 12000: model chose %s", mode_name(mode));
    hs_csr_destroy(&p);
    HS_TEST_RETURN();
}
