/* pcsr_dehnavi (seed 000 sec. IV, seed 004 ch. 3-4) on the host: the layout's invariants (padded
 * rows, 256-entry partitions, partition rows, split vector, slot map, column -1 on padding), the
 * configuration checks and the 32-bit guards, and a thread-by-thread emulation of the device
 * algorithm of gpu/spmv_pcsr_dehnavi.cu (butterfly group trees, one thread per row, pieces of split
 * rows, the y-update) that must reproduce the CPU reference bit for bit and write every y entry
 * exactly once. Matrices: no rows, one row, only empty rows, empty rows ending exactly on a
 * partition boundary, more than 256 rows in one partition, a row of 10,007 nonzeros, skewed rows. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hs_spmv.h"
#include "hs_test.h"
#include "spmv_pcsr_dehnavi_layout.h"

static unsigned g_rng = 2024u;
static unsigned urand_u(void) { g_rng = g_rng * 1664525u + 1013904223u; return g_rng >> 8; }
static double urand(void) { return urand_u() / 16777216.0; }

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Rows of the given lengths with distinct sorted columns in [0, n_cols). */
static hs_csr *from_lengths(int32_t n_rows, int32_t n_cols, const int32_t *len)
{
    int64_t nnz = 0;
    for (int32_t i = 0; i < n_rows; ++i) nnz += len[i];
    hs_csr *a = NULL;
    if (hs_csr_create(n_rows, n_cols, (int32_t)nnz, &a) != HS_OK) return NULL;
    int32_t k = 0;
    for (int32_t i = 0; i < n_rows; ++i) {
        a->row_ptr[i] = k;
        const int32_t start = n_cols ? (int32_t)(urand_u() % (unsigned)n_cols) : 0;
        for (int32_t j = 0; j < len[i]; ++j) a->col[k + j] = (start + j) % n_cols;
        qsort(a->col + k, (size_t)len[i], sizeof(int32_t), cmp_i32);
        k += len[i];
    }
    a->row_ptr[n_rows] = k;
    return a;
}

enum { N_MATS = 8 };
static hs_csr *make_matrix(int which, const char **name)
{
    static int32_t len[4000];
    int32_t n = 0, nc = 0;
    switch (which) {
    case 0: *name = "no rows"; n = 0; nc = 0; break;
    case 1: *name = "one row"; n = 1; nc = 1; len[0] = 1; break;
    case 2: *name = "one empty row"; n = 1; nc = 1; len[0] = 0; break;
    case 3: *name = "300 empty rows"; n = 300; nc = 300; for (int i = 0; i < n; ++i) len[i] = 0; break;
    case 4: /* 64 rows of 4 fill one partition exactly (n <= 4); 3 empty rows follow it */
        *name = "empty rows on a partition boundary"; n = 67; nc = 67;
        for (int i = 0; i < n; ++i) len[i] = i < 64 ? 4 : 0;
        break;
    case 5: /* 600 empty rows, then short ones: more than 256 rows touch the first partition */
        *name = "600 leading empty rows"; n = 1000; nc = 1000;
        for (int i = 0; i < n; ++i) len[i] = i < 600 ? 0 : 1 + (int32_t)(urand_u() % 9);
        len[n - 1] = 0;
        break;
    case 6: *name = "a row of 10007"; n = 1001; nc = 12000;
        for (int i = 0; i < n; ++i) len[i] = 1 + (int32_t)(urand_u() % 15);
        len[500] = 10007;
        break;
    default: *name = "skewed"; n = 3001; nc = 3001;
        for (int i = 0; i < n; ++i) {
            len[i] = (int32_t)(urand_u() % 21); /* 0..20, empty rows included */
            if (i % 97 == 5) len[i] = 300 + (int32_t)(urand_u() % 300);
        }
        break;
    }
    return from_lengths(n, nc, len);
}

/* Invariants of the layout, checked against brute-force definitions. */
static void check_layout(const char *what, const hs_csr *a, const hs_spmv_layout *lay)
{
    const hs_pcsr_layout *pl = hs_pcsr_layout_of(lay);
    HS_TEST_CHECK(pl != NULL, "%s: no PCSR layout", what);
    if (!pl) return;
    const int32_t n = a->n_rows, pad = pl->pad;
    const int64_t S = lay->n_slots;
    HS_TEST_CHECK(S == (int64_t)pl->n_parts * HS_PCSR_PART && S >= a->nnz, "%s: %lld slots, %d partitions",
                  what, (long long)S, (int)pl->n_parts);
    HS_TEST_CHECK(pl->prow_ptr[0] == 0 && pl->prow_ptr[n] == pl->nnz_padded, "%s: padded row pointer ends", what);
    int ok = 1;
    for (int32_t i = 0; i < n && ok; ++i) {
        const int32_t m = a->row_ptr[i + 1] - a->row_ptr[i], mp = pl->prow_ptr[i + 1] - pl->prow_ptr[i];
        if (mp % pad || mp < m || mp >= m + pad) ok = 0;
        if (pl->prow_ptr[i] >= S && !(n == 0)) ok = 0; /* every row starts inside some partition */
    }
    HS_TEST_CHECK(ok, "%s: rows not padded to the smallest multiple of %d, or a row outside the partitions", what, pad);
    /* Tail padding: less than a partition, or exactly one added for trailing empty rows. */
    const int64_t tail = S - pl->nnz_padded;
    HS_TEST_CHECK(tail >= 0 && (tail < HS_PCSR_PART || (tail == HS_PCSR_PART && n > 0 &&
                                 pl->prow_ptr[n - 1] == pl->nnz_padded)),
                  "%s: tail padding %lld", what, (long long)tail);
    /* Slot map and columns: real slots carry the pattern's column, all others -1. */
    char *real = calloc((size_t)(S ? S : 1), 1);
    ok = 1;
    for (int32_t i = 0; i < n; ++i)
        for (int32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; ++k) {
            const int64_t s = lay->slot_of_nnz[k];
            if (s != pl->prow_ptr[i] + (k - a->row_ptr[i]) || s < 0 || s >= S || real[s] ||
                pl->col[s] != a->col[k])
                ok = 0;
            else
                real[s] = 1;
        }
    for (int64_t s = 0; s < S && ok; ++s)
        if (!real[s] && pl->col[s] != -1) ok = 0;
    HS_TEST_CHECK(ok, "%s: slot map or slot columns wrong", what);
    free(real);
    /* part_row[p] = first row with end > 256 p or start >= 256 p. */
    ok = pl->part_row[pl->n_parts] == n;
    for (int32_t p = 0; p < pl->n_parts && ok; ++p) {
        const int64_t p0 = (int64_t)p * HS_PCSR_PART;
        int32_t r = 0;
        while (r < n && !(pl->prow_ptr[r + 1] > p0 || pl->prow_ptr[r] >= p0)) ++r;
        if (pl->part_row[p] != r || r >= n) ok = 0; /* every partition has a row */
    }
    HS_TEST_CHECK(ok, "%s: partition rows wrong", what);
    /* Split vector: exactly the rows whose first and last slots lie in different partitions. */
    int32_t j = 0;
    ok = 1;
    for (int32_t i = 0; i < n && ok; ++i) {
        const int32_t s0 = pl->prow_ptr[i], s1 = pl->prow_ptr[i + 1];
        if (s1 > s0 && s0 / HS_PCSR_PART != (s1 - 1) / HS_PCSR_PART) {
            if (j >= pl->n_split || pl->split_row[j] != i || pl->split_first[j] != s0 / HS_PCSR_PART ||
                pl->split_last[j] != (s1 - 1) / HS_PCSR_PART)
                ok = 0;
            ++j;
        }
    }
    HS_TEST_CHECK(ok && j == pl->n_split && (pl->n_split == 0 || pl->n_split < pl->n_parts),
                  "%s: split vector wrong (%d entries, %d found)", what, (int)pl->n_split, (int)j);
}

/* gpu/spmv_pcsr_dehnavi.cu, block by block and thread by thread: returns 0 when a piece is read
 * that this apply did not write. writes[i] counts the stores into y[i]. */
static int emulate_device(const hs_spmv_layout *lay, const double *v, const double *x, double *y,
                          int *writes)
{
    const hs_pcsr_layout *pl = hs_pcsr_layout_of(lay);
    const int32_t n_rows = lay->n_rows, n_parts = pl->n_parts, F = pl->prefetch, N = pl->pad;
    const int W = N < 32 ? N : 32, G = HS_PCSR_PART / N, K = N / W;
    int fine = 1;
    double *pieces = malloc(sizeof(double) * 2 * (size_t)(n_parts ? n_parts : 1));
    char *written = calloc(2 * (size_t)(n_parts ? n_parts : 1), 1);
    if (n_rows == 0 || n_parts == 0) goto out;
    const int64_t grid = ((int64_t)n_parts + F - 1) / F;
    for (int64_t blk = 0; blk < grid; ++blk) {
        const int64_t pf = blk * F;
        const int32_t p_end = (int32_t)(pf + F < n_parts ? pf + F : n_parts);
        for (int32_t p = (int32_t)pf; p < p_end; ++p) {
            const int64_t P0 = (int64_t)p * HS_PCSR_PART, P1 = P0 + HS_PCSR_PART;
            double q[HS_PCSR_PART], nq[HS_PCSR_PART], s_sum[HS_PCSR_PART], chunk[HS_PCSR_PART / 32];
            for (int t = 0; t < HS_PCSR_PART; ++t) {
                const int32_t c = pl->col[P0 + t];
                q[t] = c >= 0 ? v[P0 + t] * x[c] : 0.0;
            }
            for (int off = W / 2; off > 0; off >>= 1) { /* __shfl_xor_sync butterfly, all lanes */
                for (int t = 0; t < HS_PCSR_PART; ++t) nq[t] = q[t] + q[t ^ off];
                memcpy(q, nq, sizeof q);
            }
            if (N <= 32) {
                for (int t = 0; t < HS_PCSR_PART; t += W) s_sum[t / W] = q[t];
            } else {
                for (int t = 0; t < HS_PCSR_PART; t += 32) chunk[t / 32] = q[t];
                for (int t = 0; t < G; ++t) {
                    double e[HS_PCSR_PART / 32];
                    for (int l = 0; l < K; ++l) e[l] = chunk[t * K + l];
                    for (int off = K / 2; off > 0; off >>= 1)
                        for (int l = 0; l < off; ++l) e[l] += e[l + off];
                    s_sum[t] = e[0];
                }
            }
            const int32_t r_lo = pl->part_row[p], r_hi = pl->part_row[p + 1];
            const int64_t r_last = r_hi < n_rows - 1 ? r_hi : n_rows - 1;
            for (int t = 0; t < HS_PCSR_PART; ++t)
                for (int64_t r = (int64_t)r_lo + t; r <= r_last; r += HS_PCSR_PART) {
                    const int32_t a = pl->prow_ptr[r], b = pl->prow_ptr[r + 1];
                    if (a >= P1) break;
                    const int g_lo = (int)((a > P0 ? a - P0 : 0) / N);
                    const int g_hi = (int)((b < P1 ? b - P0 : (int64_t)HS_PCSR_PART) / N);
                    double piece = 0.0;
                    for (int g = g_lo; g < g_hi; ++g) piece += s_sum[g];
                    int64_t slot = -1;
                    if (a < P0) slot = HS_PCSR_PIECE_HEAD(p);
                    else if (b > P1) slot = HS_PCSR_PIECE_TAIL(p);
                    if (slot >= 0) {
                        if (written[slot]) fine = 0; /* two threads on one piece */
                        pieces[slot] = piece;
                        written[slot] = 1;
                    } else {
                        y[r] = piece;
                        ++writes[r];
                    }
                }
        }
    }
    for (int32_t j = 0; j < pl->n_split; ++j) { /* pcsr_update_kernel */
        const int32_t p0 = pl->split_first[j], p1 = pl->split_last[j];
        double s = 0.0;
        if (!written[HS_PCSR_PIECE_TAIL(p0)]) fine = 0;
        s += pieces[HS_PCSR_PIECE_TAIL(p0)];
        for (int32_t q = p0 + 1; q <= p1; ++q) {
            if (!written[HS_PCSR_PIECE_HEAD(q)]) fine = 0;
            s += pieces[HS_PCSR_PIECE_HEAD(q)];
        }
        y[pl->split_row[j]] = s;
        ++writes[pl->split_row[j]];
    }
out:
    free(pieces);
    free(written);
    return fine;
}

static void check_apply(const char *what, hs_csr *a, const hs_spmv_layout *lay)
{
    const int32_t n = a->n_rows, nc = a->n_cols;
    double *x = malloc(sizeof(double) * (size_t)(nc ? nc : 1));
    double *vf = malloc(sizeof(double) * (size_t)(lay->n_slots ? lay->n_slots : 1));
    double *y = malloc(sizeof(double) * (size_t)(n ? n : 1)), *ye = malloc(sizeof(double) * (size_t)(n ? n : 1));
    double *yc = malloc(sizeof(double) * (size_t)(n ? n : 1)), *ab = malloc(sizeof(double) * (size_t)(n ? n : 1));
    int *writes = calloc((size_t)(n ? n : 1), sizeof(int));
    for (int round = 0; round < 2; ++round) {
        /* round 0: small integers, every sum exact, so the result must equal CSR's exactly;
         * round 1: random reals, equal to CSR within 2 gamma_m (|A||x|)_i. */
        for (int32_t i = 0; i < nc; ++i) x[i] = round ? 2.0 * urand() - 1.0 : (double)((int)(urand_u() % 7) - 3);
        for (int32_t k = 0; k < a->nnz; ++k) a->val[k] = round ? 2.0 * urand() - 1.0 : (double)((int)(urand_u() % 9) - 4);
        hs_spmv_layout_scatter(lay, a->nnz, a->val, vf);
        for (int32_t i = 0; i < n; ++i) y[i] = ye[i] = NAN;
        lay->ops->apply_ref(lay, vf, x, y);
        hs_csr_spmv(a, x, yc);
        hs_csr_spmv_abs(a, x, ab);
        memset(writes, 0, sizeof(int) * (size_t)(n ? n : 1));
        HS_TEST_CHECK(emulate_device(lay, vf, x, ye, writes), "%s: the emulated device read a piece it did not write", what);
        int once = 1, same = 1, near = 1;
        for (int32_t i = 0; i < n; ++i) {
            if (writes[i] != 1) once = 0;
            if (memcmp(&y[i], &ye[i], sizeof(double)) != 0) same = 0;
            const int32_t m = a->row_ptr[i + 1] - a->row_ptr[i];
            const double tol = round ? 2.0 * m * DBL_EPSILON / (1.0 - m * DBL_EPSILON) * ab[i] : 0.0;
            if (!(fabs(y[i] - yc[i]) <= tol)) near = 0;
        }
        HS_TEST_CHECK(once, "%s: the emulated device does not write every y entry exactly once", what);
        HS_TEST_CHECK(same, "%s (round %d): the emulated device differs from the CPU reference in its bits", what, round);
        HS_TEST_CHECK(near, "%s (round %d): the CPU reference differs from plain CSR beyond %s", what, round,
                      round ? "2 gamma_m (|A||x|)_i" : "0 (integer data)");
    }
    free(x); free(vf); free(y); free(ye); free(yc); free(ab); free(writes);
}

static void check_config_errors(void)
{
    const hs_spmv_ops *o = hs_spmv_find("pcsr_dehnavi");
    int32_t len[3] = {1, 2, 3};
    hs_csr *a = from_lengths(3, 3, len);
    static const int bad_pad[] = {0, -4, 3, 6, 12, 512};
    for (size_t b = 0; b < sizeof bad_pad / sizeof bad_pad[0]; ++b) {
        hs_spmv_params prm = hs_spmv_params_default();
        prm.pcsr_padding = bad_pad[b];
        hs_spmv_layout *lay = NULL;
        HS_TEST_CHECK(hs_spmv_layout_create(o, a, &prm, &lay) == HS_ERR_CONFIG && lay == NULL,
                      "pcsr_padding %d accepted", bad_pad[b]);
        hs_error_clear();
    }
    hs_spmv_params prm = hs_spmv_params_default();
    prm.pcsr_prefetch = 0;
    hs_spmv_layout *lay = NULL;
    HS_TEST_CHECK(hs_spmv_layout_create(o, a, &prm, &lay) == HS_ERR_CONFIG && lay == NULL, "pcsr_prefetch 0 accepted");
    hs_error_clear();
    hs_csr_destroy(&a);
}

/* The 32-bit guards fire before anything of the matrix's size is allocated: patterns that only
 * have row pointers (col is never read before the checks). */
static void check_overflow_guards(void)
{
    const hs_spmv_ops *o = hs_spmv_find("pcsr_dehnavi");
    int32_t rp1[2] = {0, INT32_MAX - 10}; /* one row: pads to 2^31-8 slots, partitions to 2^31 */
    int32_t rp2[3] = {0, 1 << 30, INT32_MAX}; /* two rows: padded to 4, 2^31 slots */
    hs_csr a1 = {.n_rows = 1, .n_cols = 1, .nnz = rp1[1], .row_ptr = rp1, .col = NULL, .val = NULL};
    hs_csr a2 = {.n_rows = 2, .n_cols = 2, .nnz = rp2[2], .row_ptr = rp2, .col = NULL, .val = NULL};
    hs_spmv_layout *lay = NULL;
    HS_TEST_CHECK(hs_spmv_layout_create(o, &a1, NULL, &lay) == HS_ERR_MESH && lay == NULL,
                  "2^31 slots after partitioning not refused");
    hs_error_clear();
    HS_TEST_CHECK(hs_spmv_layout_create(o, &a2, NULL, &lay) == HS_ERR_MESH && lay == NULL,
                  "2^31 slots after padding not refused");
    hs_error_clear();
}

int main(void)
{
    const hs_spmv_ops *o = hs_spmv_find("pcsr_dehnavi");
    HS_TEST_CHECK(o != NULL && !o->needs_device, "pcsr_dehnavi not registered as a host-capable format");
    if (!o) HS_TEST_RETURN();
    check_config_errors();
    check_overflow_guards();

    static const int pads[] = {1, 2, 4, 8, 16, 32, 64, 256};
    static const int prefetches[] = {1, 2, 3, 4, 7};
    for (int mi = 0; mi < N_MATS; ++mi) {
        const char *name = NULL;
        hs_csr *a = make_matrix(mi, &name);
        HS_TEST_CHECK(a != NULL, "matrix %d", mi);
        if (!a) continue;
        for (size_t pi = 0; pi < sizeof pads / sizeof pads[0]; ++pi)
            for (size_t fi = 0; fi < sizeof prefetches / sizeof prefetches[0]; ++fi) {
                hs_spmv_params prm = hs_spmv_params_default();
                prm.pcsr_padding = pads[pi];
                prm.pcsr_prefetch = prefetches[fi];
                char what[128];
                snprintf(what, sizeof what, "%s, padding %d, prefetch %d", name, pads[pi], prefetches[fi]);
                hs_spmv_layout *lay = NULL;
                HS_TEST_OK(hs_spmv_layout_create(o, a, &prm, &lay));
                if (!lay) continue;
                check_layout(what, a, lay);
                check_apply(what, a, lay);
                hs_spmv_layout_destroy(&lay);
            }
        hs_csr_destroy(&a);
    }

    /* The default layout of 64 rows of 4 and 3 empty rows: one full partition plus one of zeros
     * for the empty rows, no split rows; 4 rows of 300 at padding 4: every row split. */
    {
        const char *name = NULL;
        hs_csr *a = make_matrix(4, &name);
        hs_spmv_layout *lay = NULL;
        HS_TEST_OK(hs_spmv_layout_create(o, a, NULL, &lay));
        const hs_pcsr_layout *pl = hs_pcsr_layout_of(lay);
        HS_TEST_CHECK(pl && pl->n_parts == 2 && pl->n_split == 0 && pl->part_row[1] == 64,
                      "%s: %d partitions, %d split rows", name, pl ? (int)pl->n_parts : -1,
                      pl ? (int)pl->n_split : -1);
        hs_spmv_layout_destroy(&lay);
        hs_csr_destroy(&a);
        int32_t len[4] = {300, 300, 300, 300};
        a = from_lengths(4, 300, len);
        HS_TEST_OK(hs_spmv_layout_create(o, a, NULL, &lay));
        pl = hs_pcsr_layout_of(lay);
        HS_TEST_CHECK(pl && lay->n_slots == 1280 && pl->n_split == 4 && pl->split_first[3] == 3 &&
                          pl->split_last[3] == 4,
                      "4 rows of 300: %lld slots, %d split rows", (long long)lay->n_slots,
                      pl ? (int)pl->n_split : -1);
        hs_spmv_layout_destroy(&lay);
        hs_csr_destroy(&a);
    }
    HS_TEST_RETURN();
}
