/* The ELL-WARP layouts (seed 002 sec. 5.1-5.5, solvers/spmv_ellwarp.c) on the host, all six variants:
 *  - rows in order of decreasing length (stable), packed into warps that are padded to their own
 *    first (= longest) row, K1 one lane per row, K2 the smallest power of two of lanes that keeps a
 *    lane within spmv.ellwarp_threshold (at most 32);
 *  - each nonzero at slot slot32*32 + step*32 + lane with the entry order of the variant (stored
 *    order; rs: increasing column), padding slots hold a column the row (or the warp) already reads;
 *  - the CPU reference sums in the documented order: bit for bit equal to a row-by-row emulation of
 *    the lane sums and the shuffle tree, and within the rounding bound of the CSR product;
 *  - y store: K1/K2 always through the row permutation; r/rs directly when the pattern is in their
 *    node order, through the permutation otherwise (fallback: correct for any matrix);
 *  - node_order (r/rs only): a permutation under which the rows are sorted by length, ties in the old
 *    order, and under which the layout is built with no remap and the same padding as K1/K2;
 *  - edge cases: empty rows, a row of 10,050 entries, a single row, no nonzeros, n = 33, 257;
 *    bad tunables are config errors. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hs_spmv.h"
#include "hs_test.h"
#include "spmv_ellwarp_layout.h"

static const char *const k_names[6] = {"ellwarp_k1", "ellwarp_k1r", "ellwarp_k1rs",
                                       "ellwarp_k2", "ellwarp_k2r", "ellwarp_k2rs"};

static unsigned g_s = 2024u;
static double urand(void) { g_s = g_s * 1664525u + 1013904223u; return (g_s >> 8) / 16777216.0; }
static int irand(int n) { return (int)(urand() * n) % (n > 0 ? n : 1); }

/* Rows of the given lengths, distinct random columns; sorted within rows unless unsorted (then in
 * decreasing order, to see that r keeps and rs sorts). Random values in [-1, 1). */
static hs_csr *from_lengths(int n, int n_cols, const int *len, int unsorted)
{
    int64_t nnz = 0;
    for (int i = 0; i < n; ++i) nnz += len[i];
    hs_csr *a = NULL;
    if (hs_csr_create(n, n_cols, (int32_t)nnz, &a) != HS_OK) return NULL;
    char *used = calloc((size_t)n_cols + 1, 1);
    int k = 0;
    for (int i = 0; i < n; ++i) {
        a->row_ptr[i] = k;
        const int start = k;
        for (int j = 0; j < len[i];) {
            int c = irand(n_cols);
            if (used[c]) continue;
            used[c] = 1;
            a->col[k++] = c;
            ++j;
        }
        for (int q = start; q < k; ++q) used[a->col[q]] = 0;
        for (int q = start + 1; q < k; ++q)
            for (int p = q; p > start && (unsorted ? a->col[p - 1] < a->col[p] : a->col[p - 1] > a->col[p]); --p) {
                int t = a->col[p]; a->col[p] = a->col[p - 1]; a->col[p - 1] = t;
            }
        for (int q = start; q < k; ++q) a->val[q] = 2.0 * urand() - 1.0;
    }
    a->row_ptr[n] = k;
    free(used);
    return a;
}

/* P1 pattern of an nx x ny x nz box of cubes cut into 6 tetrahedra each (Kuhn), with the nodes
 * numbered in a random order: interior rows have 15 entries, boundary rows fewer. */
static hs_csr *box_pattern(int nx, int ny, int nz)
{
    const int n = (nx + 1) * (ny + 1) * (nz + 1), ne = 6 * nx * ny * nz;
    int32_t *perm = malloc(sizeof(int32_t) * n), *tets = malloc(sizeof(int32_t) * 4 * (size_t)ne);
    for (int i = 0; i < n; ++i) perm[i] = i;
    for (int i = n - 1; i > 0; --i) { int j = irand(i + 1), t = perm[i]; perm[i] = perm[j]; perm[j] = t; }
    static const int path[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    int e = 0;
    for (int k = 0; k < nz; ++k)
        for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i)
                for (int t = 0; t < 6; ++t) {
                    int c[3] = {i, j, k};
                    tets[4 * e] = perm[(c[2] * (ny + 1) + c[1]) * (nx + 1) + c[0]];
                    for (int s = 0; s < 3; ++s) {
                        c[path[t][s]]++;
                        tets[4 * e + s + 1] = perm[(c[2] * (ny + 1) + c[1]) * (nx + 1) + c[0]];
                    }
                    ++e;
                }
    hs_csr *a = NULL;
    HS_TEST_OK(hs_csr_from_tets(n, ne, tets, &a));
    if (a)
        for (int k = 0; k < a->nnz; ++k) a->val[k] = 2.0 * urand() - 1.0;
    free(perm);
    free(tets);
    return a;
}

/* B = P A P^T: new row r is old row new_to_old[r], columns renumbered and sorted (what assembly
 * produces after app/run.c renumbers the mesh). */
static hs_csr *renumber(const hs_csr *a, const int32_t *new_to_old)
{
    const int n = a->n_rows;
    int32_t *old_to_new = malloc(sizeof(int32_t) * n);
    for (int r = 0; r < n; ++r) old_to_new[new_to_old[r]] = r;
    hs_csr *b = NULL;
    hs_csr_create(n, n, a->nnz, &b);
    int k = 0;
    for (int r = 0; r < n; ++r) {
        const int i = new_to_old[r];
        b->row_ptr[r] = k;
        const int start = k;
        for (int q = a->row_ptr[i]; q < a->row_ptr[i + 1]; ++q, ++k) {
            b->col[k] = old_to_new[a->col[q]];
            b->val[k] = a->val[q];
        }
        for (int q = start + 1; q < k; ++q)
            for (int p = q; p > start && b->col[p - 1] > b->col[p]; --p) {
                int t = b->col[p]; b->col[p] = b->col[p - 1]; b->col[p - 1] = t;
                double v = b->val[p]; b->val[p] = b->val[p - 1]; b->val[p - 1] = v;
            }
    }
    b->row_ptr[n] = k;
    free(old_to_new);
    return b;
}

static int row_len(const hs_csr *a, int i) { return a->row_ptr[i + 1] - a->row_ptr[i]; }

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* [nnz]: for the rs variants, ord[row_ptr[i] + e] = offset within row i of its e-th entry by
 * (column, offset); NULL (stored order) otherwise. */
static int32_t *entry_order(const hs_csr *a, int sorted_cols)
{
    if (!sorted_cols) return NULL;
    int32_t *ord = malloc(sizeof(int32_t) * ((size_t)a->nnz + 1));
    uint64_t *key = malloc(sizeof(uint64_t) * ((size_t)a->nnz + 1));
    for (int i = 0; i < a->n_rows; ++i) {
        const int k0 = a->row_ptr[i], len = row_len(a, i);
        for (int e = 0; e < len; ++e) key[e] = ((uint64_t)(uint32_t)a->col[k0 + e] << 32) | (uint32_t)e;
        qsort(key, (size_t)len, sizeof *key, cmp_u64);
        for (int e = 0; e < len; ++e) ord[k0 + e] = (int32_t)(key[e] & 0xffffffffu);
    }
    free(key);
    return ord;
}

/* Nonzero index of the e-th entry of row i in the variant's order. */
static int entry_at(const hs_csr *a, const int32_t *ord, int i, int e)
{
    return a->row_ptr[i] + (ord ? ord[a->row_ptr[i] + e] : e);
}

/* Every invariant of one layout of @p a, then the reference against the emulation and the CSR
 * product. */
static void check_layout(const hs_spmv_ops *o, const hs_csr *a, const hs_spmv_params *prm, const char *what)
{
    hs_spmv_layout *lay = NULL;
    HS_TEST_OK(hs_spmv_layout_create(o, a, prm, &lay));
    if (!lay) return;
    const hs_ellwarp_layout *ew = hs_ellwarp_layout_of(lay);
    HS_TEST_CHECK(ew != NULL, "%s %s: not an ELL-WARP layout", o->name, what);
    if (!ew) { hs_spmv_layout_destroy(&lay); return; }
    const int n = a->n_rows, k2 = ew->var.k2, srt = ew->var.sorted_cols;
    const int T = prm->ellwarp_threshold;
    int fails = hs_test_failures;
    int32_t *ord = entry_order(a, srt);

    /* variant flags follow the name */
    HS_TEST_CHECK(k2 == (strstr(o->name, "_k2") != NULL) && ew->var.renumbered == (o->node_order != NULL) &&
                      srt == (strstr(o->name, "rs") != NULL),
                  "%s: variant flags %d %d %d", o->name, k2, ew->var.renumbered, srt);

    /* rows: a permutation, longest first, ties in increasing row */
    char *seen = calloc((size_t)n + 1, 1);
    int32_t *pos_of = malloc(sizeof(int32_t) * ((size_t)n + 1));
    int perm_ok = 1, nonincreasing = 1;
    for (int i = 1; i < n; ++i) nonincreasing &= row_len(a, i) <= row_len(a, i - 1);
    for (int p = 0; p < n; ++p) {
        int i = ew->row_of_pos[p];
        if (i < 0 || i >= n || seen[i]) { perm_ok = 0; break; }
        seen[i] = 1;
        pos_of[i] = p;
        if (p > 0) {
            int j = ew->row_of_pos[p - 1];
            if (row_len(a, j) < row_len(a, i) || (row_len(a, j) == row_len(a, i) && j > i)) perm_ok = 0;
        }
    }
    HS_TEST_CHECK(perm_ok, "%s %s: row_of_pos is not the stable sort by decreasing length", o->name, what);
    HS_TEST_CHECK(ew->remap_store == !(ew->var.renumbered && nonincreasing),
                  "%s %s: remap_store %d (pattern sorted by length: %d)", o->name, what, ew->remap_store, nonincreasing);
    free(seen);
    if (!perm_ok) goto out;

    /* warps: consecutive positions, prefix-summed slots, padded to the first row, lanes per row */
    int32_t *warp_of = malloc(sizeof(int32_t) * ((size_t)n + 1));
    int64_t steps_sum = 0;
    int next = 0, warps_ok = 1;
    for (int w = 0; w < ew->n_warps && warps_ok; ++w) {
        const hs_ellwarp_warp W = ew->warp[w];
        const int len0 = row_len(a, ew->row_of_pos[W.row0]);
        int sh = 0;
        if (k2)
            while (sh < 5 && (len0 + (1 << sh) - 1) >> sh > T) ++sh;
        if (W.row0 != next || W.slot32 != steps_sum || W.shift != sh || W.steps != (len0 + (1 << sh) - 1) >> sh) {
            HS_TEST_CHECK(0, "%s %s: warp %d = {slot32 %d, steps %d, row0 %d, shift %d}, expected {%lld, %d, %d, %d}",
                          o->name, what, w, W.slot32, W.steps, W.row0, W.shift, (long long)steps_sum,
                          (len0 + (1 << sh) - 1) >> sh, next, sh);
            warps_ok = 0;
        }
        for (int q = 0; q < (32 >> sh) && next < n; ++q) warp_of[next++] = w;
        steps_sum += W.steps;
    }
    HS_TEST_CHECK(warps_ok && next == n && (n > 0 || ew->n_warps == 0), "%s %s: warps cover %d of %d rows",
                  o->name, what, next, n);
    HS_TEST_CHECK(lay->n_slots == 32 * steps_sum, "%s %s: n_slots %lld != 32 x %lld", o->name, what,
                  (long long)lay->n_slots, (long long)steps_sum);
    if (!warps_ok || next != n) { free(warp_of); goto out; }

    /* slots: each nonzero where the formula puts it, in the variant's entry order */
    char *real = calloc((size_t)lay->n_slots + 1, 1);
    int slots_ok = 1;
    for (int i = 0; i < n && slots_ok; ++i) {
        const hs_ellwarp_warp W = ew->warp[warp_of[pos_of[i]]];
        const int t = 1 << W.shift, q = pos_of[i] - W.row0;
        for (int e = 0; e < row_len(a, i); ++e) {
            const int k = entry_at(a, ord, i, e);
            const int64_t want = (int64_t)W.slot32 * 32 + (int64_t)(e / t) * 32 + q * t + e % t;
            if (lay->slot_of_nnz[k] != want || ew->col[want] != a->col[k] || real[want]) {
                HS_TEST_CHECK(0, "%s %s: row %d entry %d (nonzero %d) at slot %lld, expected %lld", o->name, what,
                              i, e, k, (long long)lay->slot_of_nnz[k], (long long)want);
                slots_ok = 0;
                break;
            }
            real[want] = 1;
        }
    }
    /* padding: a valid column the row (or, for an empty row / missing lane, the warp's first row) reads */
    for (int w = 0; w < ew->n_warps && slots_ok; ++w) {
        const hs_ellwarp_warp W = ew->warp[w];
        const int i0 = ew->row_of_pos[W.row0];
        for (int64_t sl = (int64_t)W.slot32 * 32; sl < (int64_t)(W.slot32 + W.steps) * 32; ++sl) {
            if (real[sl]) continue;
            const int p = W.row0 + (int)((sl % 32) >> W.shift);
            const int i = (p < n && row_len(a, ew->row_of_pos[p]) > 0) ? ew->row_of_pos[p] : i0;
            int found = 0;
            for (int k = a->row_ptr[i]; k < a->row_ptr[i + 1]; ++k) found |= a->col[k] == ew->col[sl];
            if (!found) {
                HS_TEST_CHECK(0, "%s %s: padding slot %lld has column %d, not one of row %d", o->name, what,
                              (long long)sl, ew->col[sl], i);
                slots_ok = 0;
                break;
            }
        }
    }
    free(real);
    free(warp_of);

    /* reference: bit for bit the emulated order, and within 2 gamma_m (|A||x|)_i of CSR */
    if (slots_ok) {
        double *x = malloc(sizeof(double) * ((size_t)a->n_cols + 1)), *y = malloc(sizeof(double) * ((size_t)n + 1));
        double *yr = malloc(sizeof(double) * ((size_t)n + 1)), *ab = malloc(sizeof(double) * ((size_t)n + 1));
        double *v = malloc(sizeof(double) * ((size_t)lay->n_slots + 1));
        for (int j = 0; j < a->n_cols; ++j) x[j] = 2.0 * urand() - 1.0;
        for (int i = 0; i < n; ++i) y[i] = NAN;
        hs_spmv_layout_scatter(lay, a->nnz, a->val, v);
        o->apply_ref(lay, v, x, y);
        hs_csr_spmv(a, x, yr);
        hs_csr_spmv_abs(a, x, ab);
        int bad_order = -1, bad_bound = -1;
        for (int i = 0; i < n; ++i) {
            int w = 0, lo = 0, hi = ew->n_warps - 1; /* warp of position pos_of[i] */
            while (lo <= hi) { int mid = (lo + hi) / 2; if (ew->warp[mid].row0 <= pos_of[i]) { w = mid; lo = mid + 1; } else hi = mid - 1; }
            const int t = 1 << ew->warp[w].shift, len = row_len(a, i);
            double lane[32];
            for (int j = 0; j < t; ++j) {
                double s = 0.0;
                for (int e = j; e < len; e += t) {
                    const int k = entry_at(a, ord, i, e);
                    s += a->val[k] * x[a->col[k]];
                }
                lane[j] = s;
            }
            for (int off = 1; off < t; off <<= 1)
                for (int j = 0; j < t; j += 2 * off) lane[j] += lane[j + off];
            if (memcmp(&lane[0], &y[i], sizeof(double)) != 0 && bad_order < 0) bad_order = i;
            const int m = len;
            const double tol = 2.0 * m * DBL_EPSILON / (1.0 - m * DBL_EPSILON) * ab[i];
            if (!(fabs(y[i] - yr[i]) <= tol) && bad_bound < 0) bad_bound = i;
        }
        HS_TEST_CHECK(bad_order < 0, "%s %s: reference row %d is not the documented summation order", o->name, what,
                      bad_order);
        HS_TEST_CHECK(bad_bound < 0, "%s %s: reference row %d differs from CSR beyond the rounding bound", o->name,
                      what, bad_bound);
        free(x); free(y); free(yr); free(ab); free(v);
    }
out:
    free(pos_of);
    free(ord);
    if (hs_test_failures != fails) fprintf(stderr, "  (in %s on %s, threshold %d)\n", o->name, what, T);
    hs_spmv_layout_destroy(&lay);
}

static void check_all(const hs_csr *a, const char *what)
{
    if (!a) { HS_TEST_CHECK(0, "%s: matrix not built", what); return; }
    static const int thresholds[] = {1, 3, 7, 32, 100000};
    for (int f = 0; f < 6; ++f) {
        const hs_spmv_ops *o = hs_spmv_find(k_names[f]);
        HS_TEST_CHECK(o != NULL, "%s not registered", k_names[f]);
        if (!o) continue;
        for (int t = 0; t < (strstr(o->name, "_k2") ? 5 : 1); ++t) {
            hs_spmv_params prm = hs_spmv_params_default();
            prm.ellwarp_threshold = thresholds[t];
            check_layout(o, a, &prm, what);
        }
    }
}

/* node_order: sorted by length, stable, idempotent; in that numbering no remap and the same padding. */
static void check_node_order(const hs_csr *a, const char *what)
{
    const int n = a->n_rows;
    for (int f = 0; f < 6; ++f) {
        const hs_spmv_ops *o = hs_spmv_find(k_names[f]);
        if (!o) continue;
        const int r = strchr(o->name + 9, 'r') != NULL; /* after "ellwarp_k" */
        HS_TEST_CHECK((o->node_order != NULL) == r, "%s: node_order %s", o->name, o->node_order ? "set" : "missing");
        if (!o->node_order) continue;
        hs_spmv_params prm = hs_spmv_params_default();
        prm.ellwarp_threshold = 5;
        int32_t *perm = malloc(sizeof(int32_t) * ((size_t)n + 1)), *again = malloc(sizeof(int32_t) * ((size_t)n + 1));
        HS_TEST_OK(o->node_order(a, &prm, perm));
        char *seen = calloc((size_t)n + 1, 1);
        int ok = 1;
        for (int p = 0; p < n && ok; ++p) {
            if (perm[p] < 0 || perm[p] >= n || seen[perm[p]]) { ok = 0; break; }
            seen[perm[p]] = 1;
            if (p > 0 && (row_len(a, perm[p - 1]) < row_len(a, perm[p]) ||
                          (row_len(a, perm[p - 1]) == row_len(a, perm[p]) && perm[p - 1] > perm[p])))
                ok = 0;
        }
        HS_TEST_CHECK(ok, "%s %s: node_order is not the stable sort by decreasing row length", o->name, what);
        free(seen);
        if (!ok) { free(perm); free(again); continue; }
        hs_csr *b = renumber(a, perm);
        HS_TEST_OK(o->node_order(b, &prm, again));
        int ident = 1;
        for (int p = 0; p < n; ++p) ident &= again[p] == p;
        HS_TEST_CHECK(ident, "%s %s: node_order of the renumbered matrix is not the identity", o->name, what);
        check_layout(o, b, &prm, what); /* all invariants, remap_store == 0 among them */
        /* same layout shape as the non-r kernel on the original numbering, y without remap, same product */
        const hs_spmv_ops *base = hs_spmv_find(strstr(o->name, "_k2") ? "ellwarp_k2" : "ellwarp_k1");
        hs_spmv_layout *lb = NULL, *la = NULL;
        HS_TEST_OK(hs_spmv_layout_create(o, b, &prm, &lb));
        HS_TEST_OK(hs_spmv_layout_create(base, a, &prm, &la));
        if (lb && la) {
            const hs_ellwarp_layout *eb = hs_ellwarp_layout_of(lb), *ea = hs_ellwarp_layout_of(la);
            HS_TEST_CHECK(eb->remap_store == 0 && ea->remap_store == 1, "%s %s: remap %d / %s %d", o->name, what,
                          eb->remap_store, base->name, ea->remap_store);
            HS_TEST_CHECK(lb->n_slots == la->n_slots && eb->n_warps == ea->n_warps &&
                              memcmp(eb->warp, ea->warp, sizeof(hs_ellwarp_warp) * (size_t)ea->n_warps) == 0,
                          "%s %s: renumbered layout differs in shape from %s's", o->name, what, base->name);
            double *x = malloc(sizeof(double) * n), *xb = malloc(sizeof(double) * n);
            double *ya = malloc(sizeof(double) * n), *yb = malloc(sizeof(double) * n), *ab = malloc(sizeof(double) * n);
            double *va = malloc(sizeof(double) * (size_t)(la->n_slots + 1)), *vb = malloc(sizeof(double) * (size_t)(lb->n_slots + 1));
            for (int i = 0; i < n; ++i) x[i] = 2.0 * urand() - 1.0;
            for (int p = 0; p < n; ++p) xb[p] = x[perm[p]];
            hs_spmv_layout_scatter(la, a->nnz, a->val, va);
            hs_spmv_layout_scatter(lb, b->nnz, b->val, vb);
            base->apply_ref(la, va, x, ya);
            o->apply_ref(lb, vb, xb, yb);
            hs_csr_spmv_abs(a, x, ab);
            int bad = -1;
            for (int p = 0; p < n && bad < 0; ++p) {
                const int i = perm[p], m = row_len(a, i);
                if (!(fabs(yb[p] - ya[i]) <= 2.0 * m * DBL_EPSILON / (1.0 - m * DBL_EPSILON) * ab[i])) bad = p;
            }
            HS_TEST_CHECK(bad < 0, "%s %s: renumbered product differs at new row %d", o->name, what, bad);
            free(x); free(xb); free(ya); free(yb); free(ab); free(va); free(vb);
        }
        hs_spmv_layout_destroy(&lb);
        hs_spmv_layout_destroy(&la);
        hs_csr_destroy(&b);
        free(perm);
        free(again);
    }
}

int main(void)
{
    /* skewed: lengths 0..20, every 61st row 150..400 long, n no multiple of 32; sorted and unsorted rows */
    {
        const int n = 3001;
        int *len = malloc(sizeof(int) * n);
        for (int i = 0; i < n; ++i) len[i] = i % 61 == 0 ? 150 + irand(251) : irand(21);
        hs_csr *a = from_lengths(n, n, len, 0), *u = from_lengths(n, n, len, 1);
        check_all(a, "skewed");
        check_all(u, "skewed, unsorted rows");
        check_node_order(a, "skewed");
        hs_csr_destroy(&a);
        hs_csr_destroy(&u);
        free(len);
    }
    /* a P1-tet box pattern, randomly numbered (lengths 4..15) */
    {
        hs_csr *a = box_pattern(9, 7, 6);
        check_all(a, "P1 box");
        if (a) check_node_order(a, "P1 box");
        hs_csr_destroy(&a);
    }
    /* one row of 10,050 entries among short ones and empty ones */
    {
        const int n = 12000;
        int *len = malloc(sizeof(int) * n);
        for (int i = 0; i < n; ++i) len[i] = i % 7 == 0 ? 0 : 1 + irand(15);
        len[4321] = 10050;
        hs_csr *a = from_lengths(n, n, len, 0);
        check_all(a, "long row");
        check_node_order(a, "long row");
        hs_csr_destroy(&a);
        free(len);
    }
    /* small and degenerate shapes */
    {
        static const struct { int n, n_cols, kind; const char *what; } cases[] = {
            {1, 1, 0, "1x1 empty"}, {1, 9, 1, "single row of 5"}, {37, 37, 2, "37 rows, no nonzeros"},
            {33, 50, 3, "33 rows"}, {257, 300, 3, "257 rows"}, {32, 40, 4, "32 equal rows"},
            {0, 0, 0, "0x0"}, {64, 64, 5, "lengths increasing"}};
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
            const int n = cases[c].n;
            int *len = malloc(sizeof(int) * (n + 1));
            for (int i = 0; i < n; ++i)
                switch (cases[c].kind) {
                case 0: len[i] = 0; break;
                case 1: len[i] = 5; break;
                case 2: len[i] = 0; break;
                case 3: len[i] = i % 5 == 0 ? 0 : 1 + irand(33); break;
                case 4: len[i] = 17; break;
                default: len[i] = i / 4; break;
                }
            hs_csr *a = from_lengths(n, cases[c].n_cols, len, 0);
            check_all(a, cases[c].what);
            if (a && a->n_rows == a->n_cols) check_node_order(a, cases[c].what);
            hs_csr_destroy(&a);
            free(len);
        }
    }
    /* K2 with a threshold at least the longest row is K1, slot for slot */
    {
        const int n = 500;
        int *len = malloc(sizeof(int) * n);
        for (int i = 0; i < n; ++i) len[i] = irand(40);
        hs_csr *a = from_lengths(n, n, len, 0);
        hs_spmv_params prm = hs_spmv_params_default();
        prm.ellwarp_threshold = 40;
        hs_spmv_layout *l1 = NULL, *l2 = NULL;
        HS_TEST_OK(hs_spmv_layout_create(hs_spmv_find("ellwarp_k1"), a, &prm, &l1));
        HS_TEST_OK(hs_spmv_layout_create(hs_spmv_find("ellwarp_k2"), a, &prm, &l2));
        if (l1 && l2) {
            const hs_ellwarp_layout *e1 = hs_ellwarp_layout_of(l1), *e2 = hs_ellwarp_layout_of(l2);
            HS_TEST_CHECK(l1->n_slots == l2->n_slots && e1->n_warps == e2->n_warps &&
                              memcmp(e1->col, e2->col, sizeof(int32_t) * (size_t)l1->n_slots) == 0 &&
                              memcmp(l1->slot_of_nnz, l2->slot_of_nnz, sizeof(int64_t) * (size_t)a->nnz) == 0,
                          "K2 with threshold >= longest row is not K1");
        }
        hs_spmv_layout_destroy(&l1);
        hs_spmv_layout_destroy(&l2);
        /* tunables out of range are config errors, not silent corrections */
        hs_spmv_layout *bad = NULL;
        prm = hs_spmv_params_default();
        prm.block_size = 48;
        HS_TEST_CHECK(hs_spmv_layout_create(hs_spmv_find("ellwarp_k1r"), a, &prm, &bad) == HS_ERR_CONFIG && !bad,
                      "block_size 48 accepted");
        hs_error_clear();
        prm = hs_spmv_params_default();
        prm.ellwarp_threshold = 0;
        HS_TEST_CHECK(hs_spmv_layout_create(hs_spmv_find("ellwarp_k2"), a, &prm, &bad) == HS_ERR_CONFIG && !bad,
                      "threshold 0 accepted by K2");
        hs_error_clear();
        HS_TEST_OK(hs_spmv_layout_create(hs_spmv_find("ellwarp_k1"), a, &prm, &bad)); /* K1 ignores it */
        hs_spmv_layout_destroy(&bad);
        hs_csr_destroy(&a);
        free(len);
    }
    HS_TEST_RETURN();
}
