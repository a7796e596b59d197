/*
 * ELL-WARP formats of seed 002 (Wong, Kuhl & Darve) sec. 5.1-5.5: ellwarp_k1, ellwarp_k1r, ellwarp_k1rs,
 * ellwarp_k2, ellwarp_k2r, ellwarp_k2rs. One layout builder, one CPU reference and one device kernel
 * (gpu/spmv_ellwarp.cu) take the variant as a parameter; the layout is described in
 * solvers/spmv_ellwarp_layout.h and docs/kernels.md.
 *
 *   K1   (5.1) rows sorted by length, padded per warp, column-major inside the warp, one lane per
 *             row, y stored through the row permutation (y[row_of_pos[p]]).
 *   K1r  (5.2) the unknowns are renumbered (node_order: rows by decreasing length), so the run's own
 *             numbering is the sorted one and y is stored directly (y[p]).
 *   K1rs (5.3) K1r with the entries of each row in increasing column order.
 *   K2   (5.4) rows longer than spmv.ellwarp_threshold split over t = 2..32 lanes of a warp,
 *             combined by a shuffle tree; rows within the threshold as K1.
 *   K2r, K2rs (5.5) the same two refinements applied to K2.
 *
 * The r/rs layouts are built from the pattern as given: if its rows are already in the order
 * node_order returns (always the case in a run, app/run.c renumbers the mesh first) the row
 * permutation is the identity and no remap is stored; otherwise (a matrix that was not renumbered,
 * e.g. the registry tests) they fall back to the remapped store of K1/K2, so they are correct for
 * any CSR matrix. remap_store in the impl says which happened.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "hs_spmv.h"
#include "hs_util.h"
#include "spmv_ellwarp_layout.h"

enum { kWarp = 32 };

/* Row lengths from row_ptr, checked: a malformed pattern is a bug upstream, not a layout problem. */
static hs_status check_pattern(const hs_csr *pat, int32_t *max_len)
{
    HS_CHECK(pat->n_rows >= 0 && pat->n_cols >= 0 && pat->nnz >= 0, HS_ERR_INTERNAL,
             "ELL-WARP: negative matrix size (%d x %d, %d nonzeros)", (int)pat->n_rows, (int)pat->n_cols,
             (int)pat->nnz);
    HS_CHECK(pat->row_ptr[0] == 0 && pat->row_ptr[pat->n_rows] == pat->nnz, HS_ERR_INTERNAL,
             "ELL-WARP: row pointers run from %d to %d but the pattern has %d nonzeros",
             (int)pat->row_ptr[0], (int)pat->row_ptr[pat->n_rows], (int)pat->nnz);
    int32_t m = 0;
    for (int32_t i = 0; i < pat->n_rows; ++i) {
        int32_t len = pat->row_ptr[i + 1] - pat->row_ptr[i];
        HS_CHECK(pat->row_ptr[i + 1] >= pat->row_ptr[i], HS_ERR_INTERNAL,
                 "ELL-WARP: row pointers decrease at row %d", (int)i);
        if (len > m) m = len;
    }
    for (int32_t k = 0; k < pat->nnz; ++k)
        HS_CHECK(pat->col[k] >= 0 && pat->col[k] < pat->n_cols, HS_ERR_INTERNAL,
                 "ELL-WARP: nonzero %d has column %d outside [0, %d)", (int)k, (int)pat->col[k],
                 (int)pat->n_cols);
    *max_len = m;
    return HS_OK;
}

/* Counting sort on the length, longest first; a bucket fills in increasing row index (stable). */
static hs_status sort_rows(const hs_csr *pat, int32_t max_len, int32_t *new_to_old)
{
    const int32_t n = pat->n_rows;
    int32_t *start = NULL;
    HS_CALL(HS_ALLOC(start, (size_t)max_len + 1, "ELL-WARP row sort buckets"));
    for (int32_t i = 0; i < n; ++i) start[pat->row_ptr[i + 1] - pat->row_ptr[i]]++;
    int32_t pos = 0;
    for (int64_t len = max_len; len >= 0; --len) {
        int32_t c = start[len];
        start[len] = pos;
        pos += c;
    }
    for (int32_t i = 0; i < n; ++i) new_to_old[start[pat->row_ptr[i + 1] - pat->row_ptr[i]]++] = i;
    free(start);
    return HS_OK;
}

hs_status hs_ellwarp_sort_rows(const hs_csr *pat, int32_t *new_to_old)
{
    int32_t max_len = 0;
    HS_CALL(check_pattern(pat, &max_len));
    return sort_rows(pat, max_len, new_to_old);
}

/* K2 (sec. 5.4): lanes per row, as a shift. The row is halved until no lane has more than
 * `threshold` entries, but never beyond a whole warp (a row longer than 32 x threshold gets 32
 * lanes with more entries each), so warps stay independent. K1: always one lane. */
static int lane_shift(int32_t len, int32_t threshold, int k2)
{
    int sh = 0;
    if (k2)
        while (sh < 5 && (((int64_t)len + (1 << sh) - 1) >> sh) > threshold) ++sh;
    return sh;
}

/* rs (sec. 5.3): ord[row_ptr[i] + e] = offset within row i of its e-th entry in increasing column
 * order (ties, possible only in a malformed pattern, keep their stored order). Rows that are already
 * sorted (every hs_csr_from_tets pattern) are detected in one pass. */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static hs_status sort_within_rows(const hs_csr *pat, int32_t max_len, int32_t *ord)
{
    uint64_t *key = NULL;
    HS_CALL(HS_ALLOC(key, (size_t)max_len + 1, "ELL-WARP row sort keys"));
    for (int32_t i = 0; i < pat->n_rows; ++i) {
        const int32_t k0 = pat->row_ptr[i], len = pat->row_ptr[i + 1] - k0;
        int sorted = 1;
        for (int32_t e = 1; e < len && sorted; ++e) sorted = pat->col[k0 + e - 1] <= pat->col[k0 + e];
        if (sorted) {
            for (int32_t e = 0; e < len; ++e) ord[k0 + e] = e;
            continue;
        }
        /* key = column : offset, so the sort is by column and then stable */
        for (int32_t e = 0; e < len; ++e) key[e] = ((uint64_t)(uint32_t)pat->col[k0 + e] << 32) | (uint32_t)e;
        qsort(key, (size_t)len, sizeof *key, cmp_u64);
        for (int32_t e = 0; e < len; ++e) ord[k0 + e] = (int32_t)(key[e] & 0xffffffffu);
    }
    free(key);
    return HS_OK;
}

static void ellwarp_destroy(hs_spmv_layout *lay)
{
    hs_ellwarp_layout *ew = lay->impl;
    if (!ew) return;
    free(ew->warp);
    free(ew->col);
    free(ew->row_of_pos);
    free(ew);
    lay->impl = NULL;
}

static hs_status ellwarp_setup(const hs_csr *pat, hs_spmv_layout *lay, hs_ellwarp_variant var)
{
    const hs_spmv_params *prm = &lay->params;
    HS_CHECK(prm->block_size >= kWarp && prm->block_size <= 1024 && prm->block_size % kWarp == 0,
             HS_ERR_CONFIG, "spmv.block_size = %d is not a multiple of 32 in [32, 1024] (%s)",
             prm->block_size, lay->ops->name);
    HS_CHECK(!var.k2 || prm->ellwarp_threshold >= 1, HS_ERR_CONFIG,
             "spmv.ellwarp_threshold = %d must be at least 1 (%s)", prm->ellwarp_threshold, lay->ops->name);
    const int32_t n = pat->n_rows;
    const int32_t *rp = pat->row_ptr;
    hs_ellwarp_layout *ew = NULL;
    HS_CALL(HS_ALLOC(ew, 1, "ELL-WARP layout"));
    lay->impl = ew; /* from here on, hs_spmv_layout_destroy frees whatever was built */
    ew->var = var;
    ew->n_rows = n;
    ew->n_cols = pat->n_cols;
    ew->threshold = var.k2 ? prm->ellwarp_threshold : 0;
    HS_CALL(check_pattern(pat, &ew->max_len));
    HS_CALL(HS_ALLOC(ew->row_of_pos, n, "ELL-WARP row permutation"));
    HS_CALL(sort_rows(pat, ew->max_len, ew->row_of_pos));

    /* Stable sort: the permutation is the identity exactly when the lengths never increase. */
    int identity = 1;
    for (int32_t p = 0; p < n && identity; ++p) identity = ew->row_of_pos[p] == p;
    ew->remap_store = !(var.renumbered && identity);
    if (var.renumbered && !identity)
        hs_log(2, "spmv %s: the rows are not in the format's node order (not renumbered); y is stored "
                  "through the row permutation, as in %s\n", lay->ops->name, var.k2 ? "K2" : "K1");

    /* Pass 1: count warps and steps. int64 sums; each warp's first slot / 32 must fit int32. */
    int64_t n_warps = 0, total_steps = 0;
    for (int64_t p = 0; p < n;) {
        const int32_t len = rp[ew->row_of_pos[p] + 1] - rp[ew->row_of_pos[p]];
        const int sh = lane_shift(len, ew->threshold, var.k2);
        total_steps += ((int64_t)len + (1 << sh) - 1) >> sh;
        ++n_warps;
        p += kWarp >> sh;
    }
    HS_CHECK(total_steps <= INT32_MAX, HS_ERR_MESH,
             "%s: the padded matrix needs %lld x 32 value slots, more than the format's 32-bit warp "
             "offsets address (%d x 32); the row lengths vary too much for ELL-WARP (the longest row "
             "has %d entries): choose %s or a CSR kernel",
             lay->ops->name, (long long)total_steps, INT32_MAX, (int)ew->max_len,
             var.k2 ? "a smaller spmv.ellwarp_threshold" : "ellwarp_k2");
    ew->n_warps = (int32_t)n_warps; /* <= n_rows */
    lay->n_slots = total_steps * kWarp;
    HS_CALL(HS_ALLOC(ew->warp, n_warps, "ELL-WARP warp table"));
    HS_CALL(HS_ALLOC(ew->col, lay->n_slots, "ELL-WARP column indices"));
    HS_CALL(HS_ALLOC(lay->slot_of_nnz, pat->nnz, "ELL-WARP slot map"));
    int32_t *ord = NULL;
    if (var.sorted_cols) {
        HS_CALL(HS_ALLOC(ord, pat->nnz, "ELL-WARP in-row order"));
        hs_status st = sort_within_rows(pat, ew->max_len, ord);
        if (st != HS_OK) {
            free(ord);
            return st;
        }
    }

    /* Pass 2: the warp table (sequential: slot32 is a prefix sum) ... */
    {
        int32_t slot32 = 0, w = 0;
        for (int32_t p = 0; p < n; ++w) {
            const int32_t len = rp[ew->row_of_pos[p] + 1] - rp[ew->row_of_pos[p]];
            const int sh = lane_shift(len, ew->threshold, var.k2);
            hs_ellwarp_warp *W = &ew->warp[w];
            W->slot32 = slot32;
            W->steps = (int32_t)(((int64_t)len + (1 << sh) - 1) >> sh);
            W->row0 = p;
            W->shift = sh;
            slot32 += W->steps;
            p = (int32_t)((int64_t)p + (kWarp >> sh) < n ? p + (kWarp >> sh) : n);
        }
    }
    /* ... and the slots, warp by warp (independent). Entry e of the row at lane group q goes to
     * lane q*t + e%t, step e/t. */
#pragma omp parallel for schedule(dynamic, 256) if (n_warps > HS_OMP_MIN / kWarp)
    for (int32_t w = 0; w < ew->n_warps; ++w) {
        const hs_ellwarp_warp W = ew->warp[w];
        if (W.steps == 0) continue; /* every row of the warp is empty: no slots */
        const int t = 1 << W.shift;
        const int64_t base = (int64_t)W.slot32 * kWarp;
        /* the warp's first row is its longest, so not empty here: its last column pads empty rows */
        const int32_t i0 = ew->row_of_pos[W.row0];
        const int32_t len0 = rp[i0 + 1] - rp[i0];
        const int32_t pad0 = pat->col[rp[i0] + (ord ? ord[rp[i0] + len0 - 1] : len0 - 1)];
        for (int q = 0; q < (kWarp >> W.shift); ++q) {
            const int64_t p = (int64_t)W.row0 + q;
            int32_t i = -1, len = 0, pad = pad0;
            if (p < n) {
                i = ew->row_of_pos[p];
                len = rp[i + 1] - rp[i];
                if (len > 0) pad = pat->col[rp[i] + (ord ? ord[rp[i] + len - 1] : len - 1)];
            }
            for (int j = 0; j < t; ++j) {
                const int lane = q * t + j;
                for (int32_t s = 0; s < W.steps; ++s) {
                    const int64_t e = (int64_t)s * t + j;
                    const int64_t slot = base + (int64_t)s * kWarp + lane;
                    if (e < len) {
                        const int32_t k = rp[i] + (ord ? ord[rp[i] + e] : (int32_t)e);
                        ew->col[slot] = pat->col[k];
                        lay->slot_of_nnz[k] = slot;
                    } else {
                        ew->col[slot] = pad;
                    }
                }
            }
        }
    }
    free(ord);
    return HS_OK;
}

/* The CPU reference, in the device kernel's order: lane l of warp w sums its slots s = 0 .. steps-1
 * in order into s = 0.0 (padding adds +-0), then the lanes of a row (t > 1, K2) are combined by the
 * tree the xor-shuffles form for the row's first lane: for off = 1, 2, .., t/2, lane[l] += lane[l+off]
 * for l a multiple of 2 off; the row's sum is its first lane's. */
#define ELLWARP_REF(name, V)                                                                          \
    static void name(const hs_spmv_layout *lay, const V *v, const double *x, double *y)              \
    {                                                                                                 \
        const hs_ellwarp_layout *ew = lay->impl;                                                      \
        _Pragma("omp parallel for schedule(static) if ((int64_t)ew->n_warps * kWarp > HS_OMP_MIN)")   \
        for (int32_t w = 0; w < ew->n_warps; ++w) {                                                   \
            const hs_ellwarp_warp W = ew->warp[w];                                                    \
            const int t = 1 << W.shift;                                                               \
            double lane[kWarp];                                                                       \
            for (int l = 0; l < kWarp; ++l) {                                                         \
                const int64_t base = (int64_t)W.slot32 * kWarp + l;                                   \
                double s = 0.0;                                                                       \
                for (int32_t st = 0; st < W.steps; ++st) {                                            \
                    const int64_t slot = base + (int64_t)st * kWarp;                                  \
                    s += (double)v[slot] * x[ew->col[slot]];                                          \
                }                                                                                     \
                lane[l] = s;                                                                          \
            }                                                                                         \
            for (int off = 1; off < t; off <<= 1)                                                     \
                for (int l = 0; l < kWarp; l += 2 * off) lane[l] += lane[l + off];                    \
            for (int q = 0; q < (kWarp >> W.shift); ++q) {                                            \
                const int64_t p = (int64_t)W.row0 + q;                                                \
                if (p >= ew->n_rows) break;                                                           \
                y[ew->remap_store ? ew->row_of_pos[p] : p] = lane[q * t];                             \
            }                                                                                         \
        }                                                                                             \
    }
/* written once for each value type (float values are widened before their product, as on the device) */
ELLWARP_REF(ellwarp_apply_ref, double)
ELLWARP_REF(ellwarp_apply_ref_f32, float)
#undef ELLWARP_REF

/* node_order of the r/rs variants: the rows by decreasing length, so that in that numbering the
 * layout's row permutation is the identity and y needs no remap (sec. 5.2). */
static hs_status ellwarp_node_order(const hs_csr *pat, const hs_spmv_params *prm, int32_t *new_to_old)
{
    (void)prm; /* the order does not depend on the threshold: K2 packs the same sorted rows */
    HS_CHECK(pat->n_rows == pat->n_cols, HS_ERR_INTERNAL,
             "ELL-WARP node order: the matrix must be square (%d x %d) to renumber its unknowns",
             (int)pat->n_rows, (int)pat->n_cols);
    return hs_ellwarp_sort_rows(pat, new_to_old);
}

#define ELLWARP_SETUP(id, K2, R, S)                                                                \
    static hs_status setup_##id(const hs_csr *pat, hs_spmv_layout *lay)                           \
    {                                                                                              \
        hs_ellwarp_variant v = {.k2 = (K2), .renumbered = (R), .sorted_cols = (S)};               \
        return ellwarp_setup(pat, lay, v);                                                         \
    }
ELLWARP_SETUP(k1, 0, 0, 0)
ELLWARP_SETUP(k1r, 0, 1, 0)
ELLWARP_SETUP(k1rs, 0, 1, 1)
ELLWARP_SETUP(k2, 1, 0, 0)
ELLWARP_SETUP(k2r, 1, 1, 0)
ELLWARP_SETUP(k2rs, 1, 1, 1)
#undef ELLWARP_SETUP

const hs_spmv_ops hs_spmv_ops_ellwarp_k1 = {
    .name = "ellwarp_k1",
    .summary = "ELL-WARP: rows sorted by length, padded per warp, column-major; y stored through the row permutation",
    .seed = "seed 002 sec. 5.1 (ELL-WARP, K1)",
    .needs_device = 0,
    .setup = setup_k1,
    .node_order = NULL,
    .apply_ref = ellwarp_apply_ref,
    .apply_ref_f32 = ellwarp_apply_ref_f32,
    .destroy = ellwarp_destroy,
};

const hs_spmv_ops hs_spmv_ops_ellwarp_k1r = {
    .name = "ellwarp_k1r",
    .summary = "ELL-WARP K1 with the unknowns renumbered by row length: y stored directly, no remap",
    .seed = "seed 002 sec. 5.2 (K1r)",
    .needs_device = 0,
    .setup = setup_k1r,
    .node_order = ellwarp_node_order,
    .apply_ref = ellwarp_apply_ref,
    .apply_ref_f32 = ellwarp_apply_ref_f32,
    .destroy = ellwarp_destroy,
};

const hs_spmv_ops hs_spmv_ops_ellwarp_k1rs = {
    .name = "ellwarp_k1rs",
    .summary = "ELL-WARP K1r with each row's entries in increasing (renumbered) column order",
    .seed = "seed 002 sec. 5.3 (K1rs)",
    .needs_device = 0,
    .setup = setup_k1rs,
    .node_order = ellwarp_node_order,
    .apply_ref = ellwarp_apply_ref,
    .apply_ref_f32 = ellwarp_apply_ref_f32,
    .destroy = ellwarp_destroy,
};

const hs_spmv_ops hs_spmv_ops_ellwarp_k2 = {
    .name = "ellwarp_k2",
    .summary = "ELL-WARP v2: rows longer than spmv.ellwarp_threshold split over 2..32 lanes, shuffle reduction",
    .seed = "seed 002 sec. 5.4 (ELL-WARP v2, K2)",
    .needs_device = 0,
    .setup = setup_k2,
    .node_order = NULL,
    .apply_ref = ellwarp_apply_ref,
    .apply_ref_f32 = ellwarp_apply_ref_f32,
    .destroy = ellwarp_destroy,
};

const hs_spmv_ops hs_spmv_ops_ellwarp_k2r = {
    .name = "ellwarp_k2r",
    .summary = "ELL-WARP K2 with the unknowns renumbered by row length: y stored directly, no remap",
    .seed = "seed 002 sec. 5.5 (K2r)",
    .needs_device = 0,
    .setup = setup_k2r,
    .node_order = ellwarp_node_order,
    .apply_ref = ellwarp_apply_ref,
    .apply_ref_f32 = ellwarp_apply_ref_f32,
    .destroy = ellwarp_destroy,
};

const hs_spmv_ops hs_spmv_ops_ellwarp_k2rs = {
    .name = "ellwarp_k2rs",
    .summary = "ELL-WARP K2r with each row's entries in increasing (renumbered) column order",
    .seed = "seed 002 sec. 5.5 (K2rs)",
    .needs_device = 0,
    .setup = setup_k2rs,
    .node_order = ellwarp_node_order,
    .apply_ref = ellwarp_apply_ref,
    .apply_ref_f32 = ellwarp_apply_ref_f32,
    .destroy = ellwarp_destroy,
};

const hs_ellwarp_layout *hs_ellwarp_layout_of(const hs_spmv_layout *lay)
{
    if (!lay) return NULL;
    const hs_spmv_ops *o = lay->ops;
    if (o == &hs_spmv_ops_ellwarp_k1 || o == &hs_spmv_ops_ellwarp_k1r || o == &hs_spmv_ops_ellwarp_k1rs ||
        o == &hs_spmv_ops_ellwarp_k2 || o == &hs_spmv_ops_ellwarp_k2r || o == &hs_spmv_ops_ellwarp_k2rs)
        return lay->impl;
    return NULL;
}
