/*
 * pcsr_dehnavi: Prefetch-CSR of Dehnavi, Fernandez & Giannacopoulos (seed 000 sec. IV-B, IV-C;
 * seed 004 ch. 3), with the atomic-free split-row update of seed 004 ch. 4 sec. 4.4-A. Host side:
 * the layout builder (padded rows, 256-entry partitions, split vector), the slot map and the CPU
 * reference, which sums every row in the device kernel's order (solvers/spmv_pcsr_dehnavi_layout.h).
 * Device kernels: gpu/spmv_pcsr_dehnavi.cu.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "hs_spmv.h"
#include "hs_util.h"
#include "spmv_pcsr_dehnavi_layout.h"

extern const hs_spmv_ops hs_spmv_ops_pcsr_dehnavi;

const hs_pcsr_layout *hs_pcsr_layout_of(const hs_spmv_layout *lay)
{
    return (lay && lay->ops == &hs_spmv_ops_pcsr_dehnavi) ? (const hs_pcsr_layout *)lay->impl : NULL;
}

static void pcsr_destroy(hs_spmv_layout *lay)
{
    hs_pcsr_layout *pl = lay->impl;
    if (!pl) return;
    free(pl->prow_ptr);
    free(pl->col);
    free(pl->part_row);
    free(pl->split_row);
    free(pl->split_first);
    free(pl->split_last);
    free(pl);
    lay->impl = NULL;
}

static hs_status pcsr_setup(const hs_csr *pat, hs_spmv_layout *lay)
{
    const int32_t n = lay->params.pcsr_padding, prefetch = lay->params.pcsr_prefetch;
    const int32_t n_rows = pat->n_rows;
    /* A group of n slots must never straddle a partition, so n divides 256: a power of two. */
    HS_CHECK(n >= 1 && n <= HS_PCSR_PART && HS_PCSR_PART % n == 0, HS_ERR_CONFIG,
             "spmv.pcsr_padding = %d: the padding factor must divide the %d-entry partition "
             "(1, 2, 4, 8, 16, 32, 64, 128 or 256)", (int)n, HS_PCSR_PART);
    HS_CHECK(prefetch >= 1, HS_ERR_CONFIG, "spmv.pcsr_prefetch = %d: must be at least 1",
             (int)prefetch);
    HS_CHECK(n_rows >= 0 && pat->nnz >= 0 && pat->row_ptr[0] == 0 && pat->row_ptr[n_rows] == pat->nnz,
             HS_ERR_INTERNAL, "pcsr_dehnavi: malformed CSR pattern (%d rows, %d nonzeros)",
             (int)n_rows, (int)pat->nnz);

    hs_pcsr_layout *pl = NULL;
    HS_CALL(HS_ALLOC(pl, 1, "PCSR layout"));
    lay->impl = pl;
    pl->pad = n;
    pl->prefetch = prefetch;

    /* Padded row pointers, counted in 64 bits: the padding can push the total past 2^31. */
    HS_CALL(HS_ALLOC(pl->prow_ptr, (size_t)n_rows + 1, "PCSR padded row pointers"));
    int64_t acc = 0;
    for (int32_t i = 0; i < n_rows; ++i) {
        const int64_t m = (int64_t)pat->row_ptr[i + 1] - pat->row_ptr[i];
        HS_CHECK(m >= 0, HS_ERR_INTERNAL, "pcsr_dehnavi: row %d has negative length", (int)i);
        acc += (m + n - 1) / n * n;
        HS_CHECK(acc <= INT32_MAX, HS_ERR_MESH,
                 "pcsr_dehnavi: the rows padded to a multiple of %d need more than 2^31-1 value "
                 "slots (from row %d on); the format indexes slots with 32-bit integers: use a "
                 "smaller spmv.pcsr_padding or another spmv format", (int)n, (int)i);
        pl->prow_ptr[i + 1] = (int32_t)acc;
    }
    pl->nnz_padded = acc;

    /* Partitions cover the padded rows. Empty rows after the last nonzero sit at slot acc; when acc
     * is a multiple of 256 (or 0: no nonzeros) they would lie past every partition, so a partition
     * of zeros is added for them and every row belongs to some partition. */
    int64_t n_parts = (acc + HS_PCSR_PART - 1) / HS_PCSR_PART;
    if (n_rows > 0 && pl->prow_ptr[n_rows - 1] >= n_parts * HS_PCSR_PART) ++n_parts;
    const int64_t n_slots = n_parts * HS_PCSR_PART;
    HS_CHECK(n_slots <= INT32_MAX, HS_ERR_MESH,
             "pcsr_dehnavi: %lld value slots (rows padded to a multiple of %d, then to whole "
             "%d-entry partitions) exceed the 2^31-1 that 32-bit slot indices address; use another "
             "spmv format", (long long)n_slots, (int)n, HS_PCSR_PART);
    pl->n_parts = (int32_t)n_parts;
    lay->n_slots = n_slots;

    /* Columns per slot (-1: padding) and the slot map. */
    HS_CALL(HS_ALLOC(pl->col, (size_t)n_slots, "PCSR column indices"));
    HS_CALL(HS_ALLOC(lay->slot_of_nnz, (size_t)pat->nnz, "PCSR slot map"));
    for (int64_t s = 0; s < n_slots; ++s) pl->col[s] = -1;
    for (int32_t i = 0; i < n_rows; ++i) {
        const int32_t k0 = pat->row_ptr[i], s0 = pl->prow_ptr[i];
        for (int32_t k = k0; k < pat->row_ptr[i + 1]; ++k) {
            pl->col[s0 + (k - k0)] = pat->col[k];
            lay->slot_of_nnz[k] = (int64_t)s0 + (k - k0);
        }
    }

    /* part_row[p]: the first row touching partition p (it began before p and reaches into it, or
     * begins at or after 256 p); rows are consecutive in the slots, so one sweep finds them all. */
    HS_CALL(HS_ALLOC(pl->part_row, (size_t)n_parts + 1, "PCSR partition rows"));
    int32_t r = 0;
    for (int64_t p = 0; p <= n_parts; ++p) {
        const int64_t p0 = p * HS_PCSR_PART;
        while (r < n_rows && !(pl->prow_ptr[r + 1] > p0 || pl->prow_ptr[r] >= p0)) ++r;
        pl->part_row[p] = r;
    }
    pl->part_row[n_parts] = n_rows;

    /* The split vector: rows whose first and last slots lie in different partitions. Every
     * partition boundary is crossed by at most one row, so there are fewer than n_parts. */
    int32_t n_split = 0;
    for (int32_t i = 0; i < n_rows; ++i) {
        const int32_t a = pl->prow_ptr[i], b = pl->prow_ptr[i + 1];
        if (b > a && a / HS_PCSR_PART != (b - 1) / HS_PCSR_PART) ++n_split;
    }
    pl->n_split = n_split;
    HS_CALL(HS_ALLOC(pl->split_row, (size_t)n_split, "PCSR split vector (rows)"));
    HS_CALL(HS_ALLOC(pl->split_first, (size_t)n_split, "PCSR split vector (first partitions)"));
    HS_CALL(HS_ALLOC(pl->split_last, (size_t)n_split, "PCSR split vector (last partitions)"));
    n_split = 0;
    for (int32_t i = 0; i < n_rows; ++i) {
        const int32_t a = pl->prow_ptr[i], b = pl->prow_ptr[i + 1];
        if (b > a && a / HS_PCSR_PART != (b - 1) / HS_PCSR_PART) {
            pl->split_row[n_split] = i;
            pl->split_first[n_split] = a / HS_PCSR_PART;
            pl->split_last[n_split] = (b - 1) / HS_PCSR_PART;
            ++n_split;
        }
    }
    return HS_OK;
}

double hs_pcsr_group_sum(const hs_pcsr_layout *pl, const double *v, const double *x, int64_t s)
{
    double q[HS_PCSR_PART];
    const int n = pl->pad, w = n < 32 ? n : 32;
    for (int l = 0; l < n; ++l) {
        const int32_t c = pl->col[s + l];
        q[l] = c >= 0 ? v[s + l] * x[c] : 0.0;
    }
    /* Inside each chunk of w (a warp's xor-shuffle butterfly seen from the chunk's lane 0)... */
    for (int c = 0; c < n; c += w)
        for (int off = w / 2; off > 0; off >>= 1)
            for (int l = 0; l < off; ++l) q[c + l] += q[c + l + off];
    /* ...then over the chunk sums q[0], q[w], ... (only when n > 32: the block's shared-memory step). */
    for (int off = n / 2; off >= w && off > 0; off >>= 1)
        for (int l = 0; l < off; l += w) q[l] += q[l + off];
    return q[0];
}

/* Row by row, the device's order: per partition the row's groups summed in order from 0.0 (its
 * piece), then the pieces in partition order from 0.0 (the y-update kernel for split rows). */
static void pcsr_apply_ref(const hs_spmv_layout *lay, const double *v, const double *x, double *y)
{
    const hs_pcsr_layout *pl = lay->impl;
    const int32_t n = pl->pad;
#pragma omp parallel for schedule(static) if (lay->n_rows > HS_OMP_MIN)
    for (int32_t i = 0; i < lay->n_rows; ++i) {
        const int64_t a = pl->prow_ptr[i], b = pl->prow_ptr[i + 1];
        double total = 0.0;
        for (int64_t lo = a; lo < b;) {
            const int64_t part_end = (lo / HS_PCSR_PART + 1) * HS_PCSR_PART;
            const int64_t hi = b < part_end ? b : part_end;
            double piece = 0.0;
            for (int64_t g = lo; g < hi; g += n) piece += hs_pcsr_group_sum(pl, v, x, g);
            total += piece;
            lo = hi;
        }
        y[i] = total;
    }
}

const hs_spmv_ops hs_spmv_ops_pcsr_dehnavi = {
    .name = "pcsr_dehnavi",
    .summary = "Prefetch-CSR: rows padded to a multiple of n, 256-nonzero partitions, split vector, no atomics",
    .seed = "seed 000 sec. IV-B, IV-C; seed 004 ch. 3, ch. 4 sec. 4.4-A (Dehnavi PCSR)",
    .needs_device = 0,
    .setup = pcsr_setup,
    .apply_ref = pcsr_apply_ref,
    .destroy = pcsr_destroy,
};
