/* CSR matrices: the global pattern of a P1 mesh and the reference SpMV. */
#include "hs_csr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_util.h"

hs_status hs_csr_create(int32_t n_rows, int32_t n_cols, int32_t nnz, hs_csr **out)
{
    *out = NULL;
    hs_csr *a = NULL;
    HS_CALL(HS_ALLOC(a, 1, "CSR matrix"));
    a->n_rows = n_rows;
    a->n_cols = n_cols;
    a->nnz = nnz;
    hs_status st;
    HS_CALL_GOTO(HS_ALLOC(a->row_ptr, (size_t)n_rows + 1, "CSR row pointers"), fail);
    HS_CALL_GOTO(HS_ALLOC(a->col, nnz, "CSR column indices"), fail);
    HS_CALL_GOTO(HS_ALLOC(a->val, nnz, "CSR values"), fail);
    *out = a;
    return HS_OK;
fail:
    hs_csr_destroy(&a);
    return st;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Per-thread scratch of hs_csr_from_tets: a small open-addressing set (keys tagged with the row
 * they belong to, so it never needs clearing) and a candidate buffer. */
enum { ROW_SET = 1024 }; /* slots; rows with more than ROW_SET/2 candidates take the qsort path */
typedef struct row_scratch {
    int32_t key[ROW_SET];
    int32_t tag[ROW_SET]; /* row + 1 that owns the slot; 0 = never used */
    int32_t cap, *buf;
} row_scratch;

/* Add c to row tag's set; when new, insert it into the sorted out[0..*u). */
static inline void row_add(row_scratch *rs, int32_t tag, int32_t c, int32_t *out, int32_t *u)
{
    uint32_t h = ((uint32_t)c * 2654435761u) >> 22; /* 10 bits: ROW_SET slots */
    while (rs->tag[h] == tag) {
        if (rs->key[h] == c) return;
        h = (h + 1) & (ROW_SET - 1);
    }
    rs->tag[h] = tag;
    rs->key[h] = c;
    int32_t q = (*u)++;
    while (q > 0 && out[q - 1] > c) { out[q] = out[q - 1]; --q; }
    out[q] = c;
}

/* The sorted distinct neighbours of node i (itself included) into out (room for 4 * degree + 1);
 * returns their count, or -1 when out of memory. Candidates: the nodes of the elements around i. */
static int32_t row_neighbours(int32_t i, const int32_t *inc_ptr, const int32_t *inc, const int32_t *tets,
                              row_scratch *rs, int32_t *out)
{
    const int32_t need = 4 * (inc_ptr[i + 1] - inc_ptr[i]) + 1;
    if (need > ROW_SET / 2) {
        if (need > rs->cap) {
            int32_t *nb = realloc(rs->buf, sizeof(int32_t) * (size_t)need);
            if (!nb) return -1;
            rs->buf = nb;
            rs->cap = need;
        }
        int32_t len = 0, *buf = rs->buf;
        buf[len++] = i;
        for (int32_t j = inc_ptr[i]; j < inc_ptr[i + 1]; ++j)
            for (int b = 0; b < 4; ++b) buf[len++] = tets[4 * (int64_t)inc[j] + b];
        qsort(buf, (size_t)len, sizeof(int32_t), cmp_i32);
        int32_t u = 0;
        for (int32_t j = 0; j < len; ++j)
            if (u == 0 || buf[j] != out[u - 1]) out[u++] = buf[j];
        return u;
    }
    /* distinct candidates through the set (about 100 candidates, 15-30 distinct on P1 meshes), then
     * an insertion sort of the few distinct ones: no comparison callbacks, everything in L1 */
    int32_t u = 0;
    const int32_t tag = i + 1;
    row_add(rs, tag, i, out, &u);
    for (int32_t j = inc_ptr[i]; j < inc_ptr[i + 1]; ++j)
        for (int b = 0; b < 4; ++b) row_add(rs, tag, tets[4 * (int64_t)inc[j] + b], out, &u);
    return u;
}

hs_status hs_csr_from_tets(int32_t n_nodes, int32_t n_elems, const int32_t *tets, hs_csr **out)
{
    *out = NULL;
    hs_status st = HS_OK;
    /* Node -> element incidence (CSR), then each row's neighbour set is the union of its
     * elements' nodes, sorted and de-duplicated (row_neighbours). */
    int32_t *inc_ptr = NULL, *inc = NULL, *fill = NULL, *row_len = NULL;
    hs_csr *a = NULL;
    HS_CALL_GOTO(HS_ALLOC(inc_ptr, (size_t)n_nodes + 1, "node-element incidence"), done);
    HS_CALL_GOTO(HS_ALLOC(inc, (size_t)n_elems * 4, "node-element incidence"), done);
    HS_CALL_GOTO(HS_ALLOC(fill, n_nodes, "node-element incidence"), done);
    HS_CALL_GOTO(HS_ALLOC(row_len, n_nodes, "CSR row lengths"), done);
    for (int64_t e = 0; e < n_elems; ++e)
        for (int a_ = 0; a_ < 4; ++a_) inc_ptr[tets[4 * e + a_] + 1]++;
    for (int32_t i = 0; i < n_nodes; ++i) inc_ptr[i + 1] += inc_ptr[i];
    for (int32_t e = 0; e < n_elems; ++e)
        for (int a_ = 0; a_ < 4; ++a_) {
            int32_t i = tets[4 * (int64_t)e + a_];
            inc[inc_ptr[i] + fill[i]++] = e;
        }

    /* One pass: each thread writes its rows (one contiguous block of rows: schedule(static)) one after
     * another into its own buffer; then the row pointers, and each block copied to its place. */
    int fail = 0, too_many = 0, no_memory = 0;
    int64_t nnz = 0;
#pragma omp parallel
    {
        row_scratch *rs = calloc(1, sizeof *rs);
        int32_t *buf = NULL, first = -1;
        int64_t len = 0, cap = 0;
        int dead = !rs; /* this thread ran out of memory */
        if (dead) {
#pragma omp atomic write
            fail = 1;
        }
#pragma omp for schedule(static)
        for (int32_t i = 0; i < n_nodes; ++i) {
            if (dead) continue;
            if (first < 0) first = i;
            const int64_t need = 4 * (int64_t)(inc_ptr[i + 1] - inc_ptr[i]) + 1;
            if (len + need > cap) {
                /* at least 36 MB (virtual: only the rows written are touched), above glibc's largest
                 * mmap threshold (32 MB): the buffer is its own mapping, returned whole on free; a
                 * smaller one would come from the thread's arena and stay in the process (VmHWM +59 MB
                 * per rank on bench_4m/2 with 16 threads) */
                const int64_t min_cap = (int64_t)9 << 20;
                int64_t nc = 2 * cap > len + need ? 2 * cap : len + need;
                if (nc < min_cap) nc = min_cap;
                int32_t *nb = realloc(buf, sizeof(int32_t) * (size_t)nc);
                if (!nb) {
                    dead = 1;
#pragma omp atomic write
                    fail = 1;
                    continue;
                }
                buf = nb;
                cap = nc;
            }
            const int32_t u = row_neighbours(i, inc_ptr, inc, tets, rs, buf + len);
            if (u < 0) {
                dead = 1;
#pragma omp atomic write
                fail = 1;
                continue;
            }
            row_len[i] = u;
            len += u;
        }
#pragma omp single
        if (!fail) {
            for (int32_t i = 0; i < n_nodes; ++i) nnz += row_len[i];
            if (nnz > INT32_MAX) too_many = 1;
            else if (hs_csr_create(n_nodes, n_nodes, (int32_t)nnz, &a) != HS_OK) no_memory = 1;
            else
                for (int32_t i = 0; i < n_nodes; ++i) a->row_ptr[i + 1] = a->row_ptr[i] + row_len[i];
        }
        /* (the single's barrier) */
        if (a && first >= 0 && !dead) memcpy(a->col + a->row_ptr[first], buf, sizeof(int32_t) * (size_t)len);
        if (rs) free(rs->buf);
        free(rs);
        free(buf);
    }
    HS_CHECK_GOTO(!fail, done, HS_ERR_MEMORY, "out of memory building the sparsity pattern");
    HS_CHECK_GOTO(!too_many, done, HS_ERR_MESH,
                  "the matrix would have %lld nonzeros, more than the 2^31-1 this build indexes",
                  (long long)nnz);
    HS_CHECK_GOTO(!no_memory, done, HS_ERR_MEMORY, "out of memory for a sparsity pattern of %lld nonzeros",
                  (long long)nnz);
    *out = a;
    a = NULL;
done:
    free(inc_ptr);
    free(inc);
    free(fill);
    free(row_len);
    hs_csr_destroy(&a);
    return st;
}

hs_status hs_csr_permute(const hs_csr *a, const int32_t *new_to_old, hs_csr **out)
{
    *out = NULL;
    int32_t n = a->n_rows;
    int32_t *old_to_new = NULL;
    hs_csr *b = NULL;
    hs_status st = HS_OK;
    HS_CHECK(a->n_rows == a->n_cols, HS_ERR_INTERNAL, "symmetric permutation of a non-square matrix");
    HS_CALL(HS_ALLOC(old_to_new, n, "inverse permutation"));
    for (int32_t k = 0; k < n; ++k) old_to_new[new_to_old[k]] = k;
    HS_CALL_GOTO(hs_csr_create(n, n, a->nnz, &b), done);
    for (int32_t k = 0; k < n; ++k) {
        int32_t i = new_to_old[k], len = a->row_ptr[i + 1] - a->row_ptr[i];
        b->row_ptr[k + 1] = b->row_ptr[k] + len;
    }
    for (int32_t k = 0; k < n; ++k) {
        int32_t i = new_to_old[k], dst = b->row_ptr[k];
        for (int32_t q = a->row_ptr[i]; q < a->row_ptr[i + 1]; ++q, ++dst) {
            /* insertion into the sorted prefix of row k (rows are short) */
            int32_t c = old_to_new[a->col[q]];
            double v = a->val ? a->val[q] : 0.0;
            int32_t p = dst;
            while (p > b->row_ptr[k] && b->col[p - 1] > c) {
                b->col[p] = b->col[p - 1];
                b->val[p] = b->val[p - 1];
                --p;
            }
            b->col[p] = c;
            b->val[p] = v;
        }
    }
    *out = b;
done:
    free(old_to_new);
    return st;
}

hs_status hs_csr_symmetric_pairs(const hs_csr *a, int32_t **pos, int32_t *n_pairs)
{
    *pos = NULL;
    *n_pairs = 0;
    int64_t np = 0;
    for (int32_t i = 0; i < a->n_rows; ++i)
        for (int32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; ++k) np += a->col[k] >= i;
    HS_CHECK(2 * np - a->n_rows == a->nnz, HS_ERR_INTERNAL,
             "the pattern is not symmetric (%lld pairs for %d nonzeros)", (long long)np, a->nnz);
    int32_t *p = NULL;
    HS_CALL(HS_ALLOC(p, 2 * (size_t)np + 1, "symmetric pairs"));
    int64_t q = 0;
    for (int32_t i = 0; i < a->n_rows; ++i)
        for (int32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; ++k) {
            int32_t j = a->col[k];
            if (j < i) continue;
            int32_t kl = j == i ? k : hs_csr_find(a, j, i);
            if (kl < 0) {
                free(p);
                return HS_FAIL(HS_ERR_INTERNAL, "the pattern has (%d,%d) but not (%d,%d)", i, j, j, i);
            }
            p[q++] = k;
            p[q++] = kl;
        }
    *pos = p;
    *n_pairs = (int32_t)np;
    return HS_OK;
}

void hs_csr_spmv(const hs_csr *a, const double *x, double *y)
{
#pragma omp parallel for schedule(static) if (a->n_rows > HS_OMP_MIN)
    for (int32_t i = 0; i < a->n_rows; ++i) {
        double s = 0.0;
        for (int32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; ++k) s += a->val[k] * x[a->col[k]];
        y[i] = s;
    }
}

void hs_csr_spmv_abs(const hs_csr *a, const double *x, double *y)
{
#pragma omp parallel for schedule(static) if (a->n_rows > HS_OMP_MIN)
    for (int32_t i = 0; i < a->n_rows; ++i) {
        double s = 0.0;
        for (int32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; ++k)
            s += fabs(a->val[k]) * fabs(x[a->col[k]]);
        y[i] = s;
    }
}

void hs_csr_destroy(hs_csr **p)
{
    if (!p || !*p) return;
    free((*p)->row_ptr);
    free((*p)->col);
    free((*p)->val);
    free(*p);
    *p = NULL;
}
