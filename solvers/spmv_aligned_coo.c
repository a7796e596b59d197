/*
 * aligned_coo: the ALIGNED_COO format of Shah & Patel (seed 003 sec. IV), host side: the layout
 * builder (segments, padding, the hybrid split and its cost model), the slot map and the CPU
 * reference, which performs the device kernels' additions in their order (gpu/spmv_aligned_coo.cu).
 * The layout itself is described in solvers/spmv_aligned_coo_layout.h.
 *
 * From the paper, and where this differs:
 *  - Segments (sec. IV-A, Fig. 1-2): Num_of_seg = the longest row (Algorithm 1), entries stored
 *    column-major so that thread t reads entry t of every segment (Algorithm 2, stride = seg_size).
 *    Fig. 2(b) places the nonzeros in row order into threads of Num_of_seg slots (thread 0: row 0;
 *    thread 1: rows 1, 2; thread 2: rows 3, 4; thread 3: row 5 and padding), and Algorithm 2's
 *    first loop assumes a thread's first min_rl slots are one row, i.e. that a thread starts on a
 *    whole row. We pack whole rows in order (next fit) and take seg_size = the number of threads
 *    that packing needs. Algorithm 1 only estimates that number (its while loop grows seg_size
 *    while two neighbouring rows would not share a thread); it gives 4 on Fig. 2 like the packing,
 *    but it can under-estimate (rows alternating between lengths Num_of_seg and 1 need one thread
 *    each; Algorithm 1 stops one short), which would break "one element of each row per segment",
 *    and any thread beyond the packing's count would hold only padding.
 *  - Padding (sec. IV-B): the paper picks padding rows that no other entry of the segment uses
 *    (rows 4 and 5 in Fig. 3). We use the thread's own last row and last column: no other thread
 *    ever touches that row, and the padding's x fetch is one the thread has just made. The value
 *    slot of a padding entry is outside the slot map, so it stays 0.
 *  - Column substitution (sec. IV-C, Fig. 2(c): J replaced by the x values it indexes) is not
 *    used: x changes at every CG iteration, so the substitution would be a gather per SpMV.
 *  - y without races (sec. IV-B): Algorithm 2 adds into y with plain read-modify-writes and relies
 *    on "no two threads of a segment" sharing a row; since our rows are never split between
 *    threads, each segment-part row has exactly one thread, which sums the row in a register and
 *    stores it once. The flat part (sec. IV-D, COO_flat / ALIGNED_COO_flat) adds per-warp results
 *    for the same row from many warps; Bell & Garland's COO kernel and the paper's block reduction
 *    combine those by carries or atomics, whose order depends on scheduling. heartsim needs
 *    run-to-run identical results, so each warp writes its (chunk, row) sums to a scratch array
 *    (a segmented scan in a fixed tree) and a second pass adds them per row in chunk order.
 *  - Cost model (sec. IV-D, Algorithm 3): Algorithm 3 as printed keeps the whole matrix in
 *    segments when the hybrid costs MORE than both alternatives, and goes flat when flat costs
 *    MORE than both: the comparisons are reversed. We take the cheapest of the three, ties going
 *    to segments, then hybrid. In T(Aligned_COO_seg), "active_threads = max(...)" would make the
 *    iteration count always 1; we read min, as in T(COO_flat). "blocks" (undefined there) is the
 *    flat kernel's block count ceil(nnz / block_size).
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_spmv.h"
#include "hs_util.h"
#include "spmv_aligned_coo_layout.h"

enum { kWarp = 32 };

extern const hs_spmv_ops hs_spmv_ops_aligned_coo;

const hs_acoo *hs_acoo_of(const hs_spmv_layout *lay)
{
    return (lay && lay->ops == &hs_spmv_ops_aligned_coo) ? (const hs_acoo *)lay->impl : NULL;
}

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

double hs_acoo_cost_seg(int64_t seg_size, int64_t n_seg)
{
    if (seg_size <= 0 || n_seg <= 0) return 0.0;
    const int64_t active = seg_size < HS_ACOO_MAX_THREADS ? seg_size : HS_ACOO_MAX_THREADS;
    const int64_t warps = ceil_div(active, kWarp);
    const int64_t iteration = ceil_div(seg_size, active);
    return (double)iteration * (double)n_seg + (double)warps * HS_ACOO_WARP_SCHEDULE_TIME;
}

double hs_acoo_cost_flat(int64_t nnz, int block_size)
{
    if (nnz <= 0) return 0.0;
    const int64_t active = nnz < HS_ACOO_MAX_THREADS ? nnz : HS_ACOO_MAX_THREADS;
    const int64_t warps = ceil_div(nnz, kWarp);
    const int64_t iteration = ceil_div(nnz, active);
    const double thread_cost = log2((double)kWarp);
    const double serial_cost = (double)(nnz % kWarp);
    const int64_t blocks = ceil_div(nnz, block_size);
    return (double)iteration * thread_cost + serial_cost + (double)blocks * log2((double)block_size) +
           (double)warps * HS_ACOO_WARP_SCHEDULE_TIME;
}

/* Entries of a row of length rl that go to the segments (the trailing ones) in each mode. */
static int32_t seg_len(int mode, int32_t rl)
{
    return mode == HS_ACOO_SEG ? rl : mode == HS_ACOO_HYBRID ? rl % kWarp : 0;
}

/* Algorithm 1's Num_of_seg (longest segment-part row), the next-fit thread count and min_rl. */
static void pack_stats(const hs_csr *pat, int mode, int32_t *n_seg, int64_t *threads, int32_t *min_rl,
                       int64_t *flat_nnz)
{
    int32_t s_max = 0, m_min = INT32_MAX;
    int64_t fl = 0;
    for (int32_t i = 0; i < pat->n_rows; ++i) {
        const int32_t rl = pat->row_ptr[i + 1] - pat->row_ptr[i], m = seg_len(mode, rl);
        fl += rl - m;
        if (m == 0) continue;
        if (m > s_max) s_max = m;
        if (m < m_min) m_min = m;
    }
    int64_t t = 0, fill = s_max;
    for (int32_t i = 0; i < pat->n_rows && s_max > 0; ++i) {
        const int32_t m = seg_len(mode, pat->row_ptr[i + 1] - pat->row_ptr[i]);
        if (m == 0) continue;
        if (fill + m > s_max) {
            ++t;
            fill = 0;
        }
        fill += m;
    }
    *n_seg = s_max;
    *threads = t;
    *min_rl = s_max > 0 ? m_min : 0;
    *flat_nnz = fl;
}

void hs_acoo_free(hs_acoo *a)
{
    if (!a) return;
    free(a->seg_row);
    free(a->seg_col);
    free(a->flat_col);
    free(a->chunk_head);
    free(a->chunk_piece);
    free(a->aux_row);
    free(a->aux_has_seg);
    free(a->aux_piece_ptr);
    free(a->aux_flat_ptr);
    free(a);
}

/* Padding of thread t from slot fill on: its own last row and column (value slot stays 0). */
static void pad_thread(hs_acoo *a, int64_t t, int64_t fill, int32_t row, int32_t col)
{
    for (int64_t s = fill; s < a->n_seg; ++s) {
        a->seg_row[s * a->seg_size + t] = row;
        a->seg_col[s * a->seg_size + t] = col;
    }
}

/* Fill the arrays of *a for its mode; slot_of_nnz [nnz] is written for every nonzero. */
static hs_status acoo_fill(const hs_csr *pat, hs_acoo *a, int64_t *slot_of_nnz)
{
    const int mode = a->mode;
    const int32_t n = pat->n_rows;
    int64_t threads = 0, flat_nnz = 0;
    pack_stats(pat, mode, &a->n_seg, &threads, &a->min_rl, &flat_nnz);
    HS_CHECK(threads <= INT32_MAX && flat_nnz <= INT32_MAX, HS_ERR_INTERNAL,
             "aligned_coo: %lld threads / %lld flat entries do not fit 32-bit indices",
             (long long)threads, (long long)flat_nnz);
    a->seg_size = (int32_t)threads;
    a->n_seg_slots = (int64_t)a->n_seg * a->seg_size; /* <= 2 nnz + n_seg: next fit wastes < half */
    a->n_flat = (int32_t)flat_nnz;
    a->n_chunks = (int32_t)ceil_div(flat_nnz, kWarp);

    /* Segments: whole rows in order into threads of n_seg slots; slot s*seg_size + t. */
    HS_CALL(HS_ALLOC(a->seg_row, (size_t)a->n_seg_slots, "ALIGNED_COO segment rows"));
    HS_CALL(HS_ALLOC(a->seg_col, (size_t)a->n_seg_slots, "ALIGNED_COO segment columns"));
    const int64_t ss = a->seg_size;
    int64_t t = -1, fill = 0;
    int32_t last_row = 0, last_col = 0;
    for (int32_t i = 0; i < n; ++i) {
        const int32_t rl = pat->row_ptr[i + 1] - pat->row_ptr[i], m = seg_len(mode, rl);
        if (m == 0) continue;
        if (t < 0 || fill + m > a->n_seg) { /* next fit: the row does not fit, open a thread */
            if (t >= 0) pad_thread(a, t, fill, last_row, last_col);
            ++t;
            fill = 0;
        }
        for (int32_t j = rl - m; j < rl; ++j) { /* the row's last m entries, in order */
            const int32_t k = pat->row_ptr[i] + j;
            const int64_t slot = fill * ss + t;
            a->seg_row[slot] = last_row = i;
            a->seg_col[slot] = last_col = pat->col[k];
            slot_of_nnz[k] = slot;
            ++fill;
        }
    }
    if (t >= 0) pad_thread(a, t, fill, last_row, last_col);
    HS_CHECK(t + 1 == a->seg_size, HS_ERR_INTERNAL, "aligned_coo: packed %lld threads, counted %d",
             (long long)(t + 1), (int)a->seg_size);

    /* Flat part and aux rows (rows with flat entries, and empty rows). */
    int32_t n_aux = 0;
    for (int32_t i = 0; i < n; ++i) {
        const int32_t rl = pat->row_ptr[i + 1] - pat->row_ptr[i];
        if (rl == 0 || rl - seg_len(mode, rl) > 0) ++n_aux;
    }
    a->n_aux = n_aux;
    HS_CALL(HS_ALLOC(a->flat_col, (size_t)a->n_flat, "ALIGNED_COO flat columns"));
    HS_CALL(HS_ALLOC(a->chunk_head, (size_t)a->n_chunks, "ALIGNED_COO flat chunk heads"));
    HS_CALL(HS_ALLOC(a->chunk_piece, (size_t)a->n_chunks, "ALIGNED_COO flat chunk pieces"));
    HS_CALL(HS_ALLOC(a->aux_row, (size_t)n_aux, "ALIGNED_COO combine rows"));
    HS_CALL(HS_ALLOC(a->aux_has_seg, (size_t)n_aux, "ALIGNED_COO combine flags"));
    HS_CALL(HS_ALLOC(a->aux_piece_ptr, (size_t)n_aux + 1, "ALIGNED_COO combine pieces"));
    HS_CALL(HS_ALLOC(a->aux_flat_ptr, (size_t)n_aux + 1, "ALIGNED_COO combine entries"));
    int32_t f = 0, piece = 0, m = 0;
    for (int32_t i = 0; i < n; ++i) {
        const int32_t rl = pat->row_ptr[i + 1] - pat->row_ptr[i], sl = seg_len(mode, rl), fl = rl - sl;
        if (!(rl == 0 || fl > 0)) continue;
        a->aux_row[m] = i;
        a->aux_has_seg[m] = sl > 0;
        a->aux_flat_ptr[m] = f;
        a->aux_piece_ptr[m] = piece;
        for (int32_t j = 0; j < fl; ++j, ++f) { /* the row's first fl entries, in order */
            const int32_t k = pat->row_ptr[i] + j, lane = f % kWarp;
            a->flat_col[f] = pat->col[k];
            slot_of_nnz[k] = a->n_seg_slots + f;
            if (j == 0 || lane == 0) { /* a new (chunk, row) piece starts here */
                a->chunk_head[f / kWarp] |= 1u << lane;
                if (lane == 0) a->chunk_piece[f / kWarp] = piece;
                ++piece;
            }
        }
        ++m;
    }
    a->aux_flat_ptr[n_aux] = f;
    a->aux_piece_ptr[n_aux] = piece;
    a->n_pieces = piece;
    HS_CHECK(f == a->n_flat && m == n_aux, HS_ERR_INTERNAL,
             "aligned_coo: flat part has %d entries (counted %d), %d combine rows (counted %d)",
             (int)f, (int)a->n_flat, (int)m, (int)n_aux);
    return HS_OK;
}

hs_status hs_acoo_build(const hs_csr *pat, int block_size, int mode, hs_acoo **out,
                        int64_t *slot_of_nnz, int64_t *n_slots)
{
    *out = NULL;
    HS_CHECK(block_size >= kWarp && block_size <= 1024 && block_size % kWarp == 0, HS_ERR_CONFIG,
             "spmv.block_size = %d is not a multiple of 32 in [32, 1024] (aligned_coo)", block_size);
    HS_CHECK(mode >= HS_ACOO_MODEL && mode <= HS_ACOO_FLAT, HS_ERR_INTERNAL,
             "aligned_coo: unknown mode %d", mode);
    HS_CHECK(pat->n_rows >= 0 && pat->nnz >= 0 && pat->row_ptr[0] == 0 &&
                 pat->row_ptr[pat->n_rows] == pat->nnz,
             HS_ERR_INTERNAL, "aligned_coo: malformed CSR pattern (%d rows, %d nonzeros)",
             (int)pat->n_rows, (int)pat->nnz);
    hs_acoo *a = NULL;
    HS_CALL(HS_ALLOC(a, 1, "ALIGNED_COO layout"));
    a->n_rows = pat->n_rows;

    /* Algorithm 3: the cost of each candidate. */
    for (int md = HS_ACOO_SEG; md <= HS_ACOO_FLAT; ++md) {
        int32_t s = 0, mn = 0;
        int64_t th = 0, fl = 0;
        pack_stats(pat, md, &s, &th, &mn, &fl);
        a->cost[md] = hs_acoo_cost_seg(th, s) + hs_acoo_cost_flat(fl, block_size);
    }
    if (mode == HS_ACOO_MODEL) {
        mode = HS_ACOO_SEG;
        if (a->cost[HS_ACOO_HYBRID] < a->cost[mode]) mode = HS_ACOO_HYBRID;
        if (a->cost[HS_ACOO_FLAT] < a->cost[mode]) mode = HS_ACOO_FLAT;
    }
    a->mode = mode;
    hs_status st = acoo_fill(pat, a, slot_of_nnz);
    if (st != HS_OK) {
        hs_acoo_free(a);
        return st;
    }
    *n_slots = a->n_seg_slots + a->n_flat;
    *out = a;
    return HS_OK;
}

/* The sum the flat kernel's segmented scan leaves in the last lane of the piece made of flat
 * entries [f0, f1) (one chunk, one row): lanes la = f0 mod 32 .. lb-1, products rounded, then for
 * off = 1, 2, 4, 8, 16 every lane l >= la + off adds the previous value of lane l - off. */
static double piece_sum(const hs_acoo *a, const double *vflat, const double *x, int32_t f0, int32_t f1)
{
    double lane[kWarp];
    const int la = f0 % kWarp, lb = la + (f1 - f0);
    for (int l = la; l < lb; ++l) lane[l] = vflat[f0 + (l - la)] * x[a->flat_col[f0 + (l - la)]];
    for (int off = 1; off < kWarp; off <<= 1)
        for (int l = lb - 1; l >= la + off; --l) lane[l] = lane[l] + lane[l - off]; /* l - off: old */
    return lane[lb - 1];
}

void hs_acoo_apply(const hs_acoo *a, const double *vals, const double *x, double *y)
{
    /* Segment pass: thread t, as in the device kernel (Algorithm 2 with the row kept in a
     * register): its first min_rl slots are its first row, then a row change stores the sum. */
    const int64_t ss = a->seg_size;
#pragma omp parallel for schedule(static) if (a->seg_size > HS_OMP_MIN)
    for (int32_t t = 0; t < a->seg_size; ++t) {
        int32_t cur = a->seg_row[t];
        double acc = 0.0;
        int64_t q = t;
        int32_t s = 0;
        for (; s < a->min_rl; ++s, q += ss) acc = fma(vals[q], x[a->seg_col[q]], acc);
        for (; s < a->n_seg; ++s, q += ss) {
            const int32_t r = a->seg_row[q];
            if (r != cur) {
                y[cur] = acc;
                cur = r;
                acc = 0.0;
            }
            acc = fma(vals[q], x[a->seg_col[q]], acc);
        }
        y[cur] = acc;
    }
    /* Combine pass: rows with flat entries add their pieces in order; empty rows get 0. */
    const double *vflat = vals + a->n_seg_slots;
#pragma omp parallel for schedule(static) if (a->n_aux > HS_OMP_MIN)
    for (int32_t m = 0; m < a->n_aux; ++m) {
        const int32_t r = a->aux_row[m];
        double acc = a->aux_has_seg[m] ? y[r] : 0.0;
        for (int32_t f = a->aux_flat_ptr[m]; f < a->aux_flat_ptr[m + 1];) {
            const int32_t chunk_end = (f / kWarp + 1) * kWarp;
            const int32_t e = chunk_end < a->aux_flat_ptr[m + 1] ? chunk_end : a->aux_flat_ptr[m + 1];
            acc = acc + piece_sum(a, vflat, x, f, e);
            f = e;
        }
        y[r] = acc;
    }
}

static hs_status acoo_setup(const hs_csr *pat, hs_spmv_layout *lay)
{
    HS_CALL(HS_ALLOC(lay->slot_of_nnz, (size_t)pat->nnz, "ALIGNED_COO slot map"));
    hs_acoo *a = NULL;
    HS_CALL(hs_acoo_build(pat, lay->params.block_size, HS_ACOO_MODEL, &a, lay->slot_of_nnz, &lay->n_slots));
    lay->impl = a;
    return HS_OK;
}

static void acoo_destroy(hs_spmv_layout *lay)
{
    hs_acoo_free(lay->impl);
    lay->impl = NULL;
}

static void acoo_apply_ref(const hs_spmv_layout *lay, const double *v, const double *x, double *y)
{
    hs_acoo_apply(lay->impl, v, x, y);
}

const hs_spmv_ops hs_spmv_ops_aligned_coo = {
    .name = "aligned_coo",
    .summary = "ALIGNED_COO: column-major segments, one entry per row each; flat part by cost model",
    .seed = "seed 003 sec. IV (Shah & Patel ALIGNED_COO, Algorithms 1-3)",
    .needs_device = 0,
    .setup = acoo_setup,
    .apply_ref = acoo_apply_ref,
    .destroy = acoo_destroy,
};
