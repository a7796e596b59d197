/* Matrix Market coordinate reader (hs_mtx.h): banner, comments, size line, entries; then the
 * entries go to CSR by a counting sort on rows, a stable sort of each row by column and a merge of
 * duplicates (summed in file order). The declared entry count is never trusted for allocation:
 * arrays grow as lines are read, so a huge count in a short file ends in "file ended after ...". */
#define _POSIX_C_SOURCE 200809L
#include "hs_mtx.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hs_text_reader.h"
#include "hs_util.h"

static const char *const k_banner =
    "'%%MatrixMarket matrix coordinate <real|integer|pattern> <general|symmetric>'";

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* Next line holding data: '%' comment lines and blank lines are skipped. Only whole lines are
 * comments (the reader is opened without a comment character), so a '%' after an entry is still
 * reported as unexpected text. */
static hs_status next_data_line(hs_text_reader *r, int *got)
{
    for (;;) {
        HS_CALL(hs_text_reader_raw(r, got));
        if (!*got) return HS_OK;
        char *p = r->buf;
        while (is_space(*p)) ++p;
        if (*p == '\0' || *p == '%') continue;
        r->cur = p;
        return HS_OK;
    }
}

static hs_status parse_value(const hs_text_reader *r, const char *tok, int integer, double *v)
{
    if (integer) {
        HS_CHECK(tok != NULL, HS_ERR_MESH, "%s:%ld: expected a value (field 'integer'), found end of line",
                 r->path, r->line);
        char *end = NULL;
        errno = 0;
        long long x = strtoll(tok, &end, 10);
        HS_CHECK(end != tok && *end == '\0' && errno != ERANGE, HS_ERR_MESH,
                 "%s:%ld: expected an integer value (field 'integer'), found '%s'", r->path, r->line, tok);
        *v = (double)x;
        return HS_OK;
    }
    HS_CHECK(tok != NULL, HS_ERR_MESH, "%s:%ld: expected a value (field 'real'), found end of line",
             r->path, r->line);
    char *end = NULL;
    errno = 0;
    double x = strtod(tok, &end);
    HS_CHECK(end != tok && *end == '\0', HS_ERR_MESH, "%s:%ld: expected a value (a real number), found '%s'",
             r->path, r->line, tok);
    HS_CHECK(isfinite(x), HS_ERR_MESH, "%s:%ld: value '%s' is not a finite number", r->path, r->line, tok);
    *v = x;
    return HS_OK;
}

typedef struct mtx_header {
    int pattern, integer, symmetric;
    long long m, n, nz;
} mtx_header;

/* Banner (line 1), comments, size line. */
static hs_status read_header(hs_text_reader *r, mtx_header *h)
{
    memset(h, 0, sizeof *h);
    int got = 0;
    HS_CALL(hs_text_reader_raw(r, &got));
    HS_CHECK(got, HS_ERR_MESH, "%s:1: the file is empty; expected the banner %s", r->path, k_banner);
    const char *w[6] = {0};
    for (int i = 0; i < 6; ++i) w[i] = hs_text_reader_token(r);
    HS_CHECK(w[0] && strcasecmp(w[0], "%%MatrixMarket") == 0, HS_ERR_MESH,
             "%s:1: not a Matrix Market file: expected the banner %s, found '%s'", r->path, k_banner,
             w[0] ? w[0] : "");
    HS_CHECK(w[1] && w[2] && w[3] && w[4], HS_ERR_MESH, "%s:1: incomplete banner: expected %s", r->path,
             k_banner);
    HS_CHECK(w[5] == NULL, HS_ERR_MESH, "%s:1: unexpected word '%s' after the banner: expected %s", r->path,
             w[5], k_banner);
    HS_CHECK(strcasecmp(w[1], "matrix") == 0, HS_ERR_MESH,
             "%s:1: object '%s' is not supported: expected 'matrix' (banner %s)", r->path, w[1], k_banner);
    HS_CHECK(strcasecmp(w[2], "array") != 0, HS_ERR_MESH,
             "%s:1: format 'array' (a dense matrix) is not supported: expected 'coordinate' (banner %s)",
             r->path, k_banner);
    HS_CHECK(strcasecmp(w[2], "coordinate") == 0, HS_ERR_MESH,
             "%s:1: format '%s' is not supported: expected 'coordinate' (banner %s)", r->path, w[2], k_banner);
    if (strcasecmp(w[3], "pattern") == 0) h->pattern = 1;
    else if (strcasecmp(w[3], "integer") == 0) h->integer = 1;
    else
        HS_CHECK(strcasecmp(w[3], "real") == 0, HS_ERR_MESH,
                 "%s:1: field '%s' is not supported: expected real, integer or pattern (SpMV here is real, "
                 "FP64)", r->path, w[3]);
    if (strcasecmp(w[4], "symmetric") == 0) h->symmetric = 1;
    else
        HS_CHECK(strcasecmp(w[4], "general") == 0, HS_ERR_MESH,
                 "%s:1: symmetry '%s' is not supported: expected general or symmetric", r->path, w[4]);

    HS_CALL(next_data_line(r, &got));
    HS_CHECK(got, HS_ERR_MESH, "%s:%ld: file ended before the size line 'ROWS COLUMNS ENTRIES'", r->path,
             r->line > 0 ? r->line : 1);
    HS_CALL(hs_text_reader_long(r, hs_text_reader_token(r), "the number of rows (size line 'ROWS COLUMNS ENTRIES')", &h->m));
    HS_CALL(hs_text_reader_long(r, hs_text_reader_token(r), "the number of columns (size line 'ROWS COLUMNS ENTRIES')", &h->n));
    HS_CALL(hs_text_reader_long(r, hs_text_reader_token(r), "the number of entries (size line 'ROWS COLUMNS ENTRIES')", &h->nz));
    const char *extra = hs_text_reader_token(r);
    HS_CHECK(extra == NULL, HS_ERR_MESH, "%s:%ld: unexpected '%s' after the size line 'ROWS COLUMNS ENTRIES'",
             r->path, r->line, extra);
    HS_CHECK(h->m >= 0 && h->n >= 0 && h->nz >= 0, HS_ERR_MESH,
             "%s:%ld: negative size %lld x %lld with %lld entries", r->path, r->line, h->m, h->n, h->nz);
    HS_CHECK(h->m <= INT32_MAX && h->n <= INT32_MAX && h->nz <= INT32_MAX, HS_ERR_MESH,
             "%s:%ld: %lld x %lld with %lld entries is beyond 32-bit indices (at most 2^31-1 each)", r->path,
             r->line, h->m, h->n, h->nz);
    HS_CHECK(!h->symmetric || h->m == h->n, HS_ERR_MESH, "%s:%ld: a symmetric matrix must be square, this one is %lld x %lld",
             r->path, r->line, h->m, h->n);
    return HS_OK;
}

/* Triplets as read (0-based); symmetric off-diagonal entries appear twice. */
typedef struct triplets {
    int32_t *i, *j;
    double *v;
    size_t n, cap;
} triplets;

static hs_status trip_push(triplets *t, int32_t i, int32_t j, double v, const hs_text_reader *r)
{
    if (t->n == t->cap) {
        size_t c = t->cap ? 2 * t->cap : 4096;
        int32_t *ni = realloc(t->i, c * sizeof *ni);
        if (ni) t->i = ni;
        int32_t *nj = ni ? realloc(t->j, c * sizeof *nj) : NULL;
        if (nj) t->j = nj;
        double *nv = nj ? realloc(t->v, c * sizeof *nv) : NULL;
        if (nv) t->v = nv;
        HS_CHECK(nv != NULL, HS_ERR_MEMORY, "out of memory reading %s (%.1f MiB of entries)", r->path,
                 c * 16.0 / 1048576.0);
        t->cap = c;
    }
    t->i[t->n] = i;
    t->j[t->n] = j;
    t->v[t->n] = v;
    ++t->n;
    return HS_OK;
}

static hs_status read_entries(hs_text_reader *r, const mtx_header *h, triplets *t)
{
    const char *layout = h->pattern ? "ROW COLUMN" : "ROW COLUMN VALUE";
    for (long long e = 0; e < h->nz; ++e) {
        int got = 0;
        HS_CALL(next_data_line(r, &got));
        HS_CHECK(got, HS_ERR_MESH, "%s:%ld: file ended after %lld of the %lld entries the size line declares",
                 r->path, r->line, e, h->nz);
        long long i = 0, j = 0;
        double v = 1.0;
        HS_CALL(hs_text_reader_long(r, hs_text_reader_token(r), "a row index (entry 'ROW COLUMN [VALUE]')", &i));
        HS_CALL(hs_text_reader_long(r, hs_text_reader_token(r), "a column index (entry 'ROW COLUMN [VALUE]')", &j));
        HS_CHECK(i >= 1 && i <= h->m, HS_ERR_MESH, "%s:%ld: row index %lld is outside 1..%lld (indices are 1-based)",
                 r->path, r->line, i, h->m);
        HS_CHECK(j >= 1 && j <= h->n, HS_ERR_MESH,
                 "%s:%ld: column index %lld is outside 1..%lld (indices are 1-based)", r->path, r->line, j, h->n);
        if (!h->pattern) HS_CALL(parse_value(r, hs_text_reader_token(r), h->integer, &v));
        const char *extra = hs_text_reader_token(r);
        HS_CHECK(extra == NULL, HS_ERR_MESH, "%s:%ld: unexpected '%s' after the entry: expected '%s'%s", r->path,
                 r->line, extra, layout, h->pattern ? " (field 'pattern' has no values)" : "");
        HS_CHECK(!h->symmetric || i >= j, HS_ERR_MESH,
                 "%s:%ld: entry (%lld, %lld) is above the diagonal, but a symmetric Matrix Market file stores "
                 "only the lower triangle (row >= column)", r->path, r->line, i, j);
        HS_CALL(trip_push(t, (int32_t)(i - 1), (int32_t)(j - 1), v, r));
        if (h->symmetric && i != j) HS_CALL(trip_push(t, (int32_t)(j - 1), (int32_t)(i - 1), v, r));
        HS_CHECK(t->n <= INT32_MAX, HS_ERR_MESH,
                 "%s:%ld: more than 2^31-1 nonzeros after expanding the symmetric matrix", r->path, r->line);
    }
    int got = 0;
    HS_CALL(next_data_line(r, &got));
    HS_CHECK(!got, HS_ERR_MESH, "%s:%ld: more entries than the %lld the size line declares", r->path, r->line,
             h->nz);
    return HS_OK;
}

/* An entry of a row while it is sorted: seq keeps the file order of duplicates (stable sort). */
typedef struct row_entry {
    int32_t col, seq;
    double v;
} row_entry;

static int cmp_entry(const void *a, const void *b)
{
    const row_entry *x = a, *y = b;
    if (x->col != y->col) return (x->col > y->col) - (x->col < y->col);
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Counting sort by row (stable), sort each row by column, sum duplicates in file order. */
static hs_status to_csr(const mtx_header *h, const triplets *t, hs_csr **out)
{
    const int32_t m = (int32_t)h->m;
    hs_status st = HS_OK;
    int32_t *ptr = NULL, *fill = NULL, *distinct = NULL;
    row_entry *e = NULL;
    hs_csr *a = NULL;
    HS_CALL_GOTO(HS_ALLOC(ptr, (size_t)m + 1, "Matrix Market row pointers"), done);
    HS_CALL_GOTO(HS_ALLOC(fill, (size_t)m + 1, "Matrix Market row fill"), done);
    HS_CALL_GOTO(HS_ALLOC(distinct, (size_t)m + 1, "Matrix Market row lengths"), done);
    HS_CALL_GOTO(HS_ALLOC(e, t->n ? t->n : 1, "Matrix Market entries"), done);
    for (size_t q = 0; q < t->n; ++q) ptr[t->i[q] + 1]++;
    for (int32_t i = 0; i < m; ++i) ptr[i + 1] += ptr[i];
    for (size_t q = 0; q < t->n; ++q) {
        const int32_t i = t->i[q], p = ptr[i] + fill[i]++;
        e[p] = (row_entry){t->j[q], p, t->v[q]};
    }
    int64_t nnz = 0;
    for (int32_t i = 0; i < m; ++i) {
        row_entry *row = e + ptr[i];
        const int32_t len = ptr[i + 1] - ptr[i];
        int32_t u = 0;
        qsort(row, (size_t)len, sizeof *row, cmp_entry);
        for (int32_t q = 0; q < len; ++q) {
            if (u > 0 && row[u - 1].col == row[q].col) row[u - 1].v += row[q].v;
            else row[u++] = row[q];
        }
        distinct[i] = u;
        nnz += u;
    }
    HS_CALL_GOTO(hs_csr_create(m, (int32_t)h->n, (int32_t)nnz, &a), done);
    int32_t k = 0;
    for (int32_t i = 0; i < m; ++i) {
        a->row_ptr[i] = k;
        for (int32_t q = 0; q < distinct[i]; ++q, ++k) {
            a->col[k] = e[ptr[i] + q].col;
            a->val[k] = e[ptr[i] + q].v;
        }
    }
    a->row_ptr[m] = k;
    *out = a;
    a = NULL;
done:
    hs_csr_destroy(&a);
    free(ptr);
    free(fill);
    free(distinct);
    free(e);
    return st;
}

hs_status hs_mtx_read(const char *path, hs_csr **out)
{
    *out = NULL;
    hs_text_reader r;
    HS_CALL(hs_text_reader_open(&r, path, "Matrix Market", HS_ERR_MESH, 0));
    triplets t = {0};
    mtx_header h;
    hs_status st = read_header(&r, &h);
    if (st == HS_OK) st = read_entries(&r, &h, &t);
    hs_text_reader_close(&r);
    if (st == HS_OK) st = to_csr(&h, &t, out);
    free(t.i);
    free(t.j);
    free(t.v);
    return st;
}
