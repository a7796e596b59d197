/* The Matrix Market reader (solvers/mtx.c) on small files written here: the accepted variants give
 * the expected CSR (duplicates summed, symmetric expanded, pattern = 1, columns sorted), and every
 * malformed or unsupported file fails with HS_ERR_MESH and a message naming the file, the line and
 * what was expected. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_mtx.h"
#include "hs_test.h"

static char g_dir[256];

/* Write `text` (len bytes; -1: strlen) to g_dir/name and return the path (static buffer). */
static const char *write_file(const char *name, const char *text, long len)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
    fwrite(text, 1, len < 0 ? strlen(text) : (size_t)len, f);
    fclose(f);
    return path;
}

/* Dense copy of a (row-major, m x n) for comparisons; also checks sorted, unique columns. */
static void check_csr(const char *what, const hs_csr *a, int m, int n, const double *dense)
{
    HS_TEST_CHECK(a->n_rows == m && a->n_cols == n, "%s: size %d x %d, want %d x %d", what, a->n_rows,
                  a->n_cols, m, n);
    if (a->n_rows != m || a->n_cols != n) return;
    int nnz = 0;
    for (int i = 0; i < m * n; ++i) nnz += dense[i] != 0.0;
    HS_TEST_CHECK(a->nnz == nnz, "%s: %d nonzeros, want %d", what, a->nnz, nnz);
    HS_TEST_CHECK(a->row_ptr[0] == 0 && a->row_ptr[m] == a->nnz, "%s: row pointers do not span the entries", what);
    for (int i = 0; i < m; ++i)
        for (int k = a->row_ptr[i]; k < a->row_ptr[i + 1]; ++k) {
            HS_TEST_CHECK(k == a->row_ptr[i] || a->col[k - 1] < a->col[k], "%s: row %d not sorted/unique at %d",
                          what, i, k);
            HS_TEST_CHECK(a->col[k] >= 0 && a->col[k] < n, "%s: column %d out of range", what, a->col[k]);
            if (a->col[k] >= 0 && a->col[k] < n)
                HS_TEST_CHECK(a->val[k] == dense[i * n + a->col[k]], "%s: (%d,%d) = %g, want %g", what, i,
                              a->col[k], a->val[k], dense[i * n + a->col[k]]);
        }
}

static void good_cases(void)
{
    hs_csr *a = NULL;
    /* general real: comments, blank lines, CRLF, unsorted entries, a duplicate summed, empty row 2 */
    const char *p = write_file("general.mtx",
                               "%%MatrixMarket matrix coordinate real general\r\n"
                               "% a comment\r\n"
                               "\r\n"
                               "  4 3 6\r\n"
                               "1 3 2.5\r\n"
                               "1 1 -1\r\n"
                               "4 2 1e-3\r\n"
                               "\r\n"
                               "1 3 0.5\r\n"
                               "% comment between entries\n"
                               "2 2 4\r\n"
                               "4 1 7\r\n",
                               -1);
    const double d1[12] = {-1, 0, 3.0, 0, 4, 0, 0, 0, 0, 7, 1e-3, 0};
    HS_TEST_OK(hs_mtx_read(p, &a));
    if (a) check_csr("general", a, 4, 3, d1);
    hs_csr_destroy(&a);

    /* symmetric, banner in other case: lower triangle expanded, diagonal once */
    p = write_file("sym.mtx",
                   "%%matrixmarket MATRIX Coordinate Real Symmetric\n"
                   "3 3 4\n"
                   "1 1 2\n"
                   "2 1 -1\n"
                   "3 2 -1\n"
                   "3 3 2\n",
                   -1);
    const double d2[9] = {2, -1, 0, -1, 0, -1, 0, -1, 2};
    HS_TEST_OK(hs_mtx_read(p, &a));
    if (a) check_csr("symmetric", a, 3, 3, d2);
    hs_csr_destroy(&a);

    /* pattern symmetric: values 1; a duplicate pattern entry sums to 2 */
    p = write_file("pat.mtx",
                   "%%MatrixMarket matrix coordinate pattern symmetric\n"
                   "3 3 4\n"
                   "2 1\n"
                   "3 3\n"
                   "3 1\n"
                   "3 3\n",
                   -1);
    const double d3[9] = {0, 1, 1, 1, 0, 0, 1, 0, 2};
    HS_TEST_OK(hs_mtx_read(p, &a));
    if (a) check_csr("pattern symmetric", a, 3, 3, d3);
    hs_csr_destroy(&a);

    /* pattern general, rectangular */
    p = write_file("patg.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 5 3\n2 5\n1 2\n2 1\n", -1);
    const double d4[10] = {0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    HS_TEST_OK(hs_mtx_read(p, &a));
    if (a) check_csr("pattern general", a, 2, 5, d4);
    hs_csr_destroy(&a);

    /* integer */
    p = write_file("int.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 3\n1 1 3\n2 2 -7\n1 2 12\n", -1);
    const double d5[4] = {3, 12, 0, -7};
    HS_TEST_OK(hs_mtx_read(p, &a));
    if (a) check_csr("integer", a, 2, 2, d5);
    hs_csr_destroy(&a);

    /* no entries; no rows; a file without a final newline */
    p = write_file("empty.mtx", "%%MatrixMarket matrix coordinate real general\n5 5 0\n", -1);
    HS_TEST_OK(hs_mtx_read(p, &a));
    HS_TEST_CHECK(a && a->n_rows == 5 && a->nnz == 0 && a->row_ptr[5] == 0, "5 x 5 without entries");
    hs_csr_destroy(&a);
    p = write_file("zero.mtx", "%%MatrixMarket matrix coordinate real general\n0 0 0\n", -1);
    HS_TEST_OK(hs_mtx_read(p, &a));
    HS_TEST_CHECK(a && a->n_rows == 0 && a->nnz == 0, "0 x 0 matrix");
    hs_csr_destroy(&a);
    p = write_file("nonl.mtx", "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 5", -1);
    HS_TEST_OK(hs_mtx_read(p, &a));
    HS_TEST_CHECK(a && a->nnz == 1 && a->val[0] == 5.0, "last line without newline");
    hs_csr_destroy(&a);

    /* a long row (> 10,000 entries) given in reverse column order */
    const int nl = 12000;
    size_t cap = 64 + (size_t)nl * 24, len = 0;
    char *big = malloc(cap);
    len += (size_t)snprintf(big + len, cap - len, "%%%%MatrixMarket matrix coordinate real general\n2 %d %d\n", nl, nl);
    for (int j = nl; j >= 1; --j) len += (size_t)snprintf(big + len, cap - len, "2 %d %d\n", j, j);
    p = write_file("long.mtx", big, (long)len);
    free(big);
    HS_TEST_OK(hs_mtx_read(p, &a));
    if (a) {
        int ok = a->row_ptr[1] == 0 && a->row_ptr[2] == nl;
        for (int k = 0; ok && k < nl; ++k) ok = a->col[k] == k && a->val[k] == k + 1;
        HS_TEST_CHECK(ok, "long row: not read as 0..%d in order", nl - 1);
    }
    hs_csr_destroy(&a);
}

/* A malformed file: must fail with `code`, and the message must contain `want` (and the path). */
static void bad(const char *name, const char *text, long len, hs_status code, const char *want)
{
    const char *p = write_file(name, text, len);
    char path[512];
    snprintf(path, sizeof path, "%s", p);
    hs_csr *a = NULL;
    hs_error_clear();
    hs_status st = hs_mtx_read(path, &a);
    const char *msg = hs_error_message();
    HS_TEST_CHECK(st == code, "%s: status %d, want %d (%s)", name, (int)st, (int)code, msg);
    HS_TEST_CHECK(a == NULL, "%s: a matrix was returned with an error", name);
    HS_TEST_CHECK(strstr(msg, path) != NULL, "%s: message does not name the file: %s", name, msg);
    HS_TEST_CHECK(strstr(msg, want) != NULL, "%s: message lacks \"%s\": %s", name, want, msg);
    hs_csr_destroy(&a);
    hs_error_clear();
}

static void bad_cases(void)
{
    const char *hdr = "%%MatrixMarket matrix coordinate real general\n";
    char buf[512];
    bad("empty.mtx", "", -1, HS_ERR_MESH, ":1: the file is empty");
    bad("nobanner.mtx", "3 3 1\n1 1 1\n", -1, HS_ERR_MESH, ":1: not a Matrix Market file");
    bad("complex.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", -1, HS_ERR_MESH,
        ":1: field 'complex' is not supported: expected real, integer or pattern");
    bad("herm.mtx", "%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n", -1, HS_ERR_MESH,
        ":1: symmetry 'hermitian' is not supported: expected general or symmetric");
    bad("skew.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 1\n", -1, HS_ERR_MESH,
        ":1: symmetry 'skew-symmetric' is not supported");
    bad("array.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", -1, HS_ERR_MESH,
        ":1: format 'array' (a dense matrix) is not supported: expected 'coordinate'");
    bad("vector.mtx", "%%MatrixMarket vector coordinate real general\n2 1\n1 1\n", -1, HS_ERR_MESH,
        ":1: object 'vector' is not supported: expected 'matrix'");
    bad("short.mtx", "%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n", -1, HS_ERR_MESH, ":1: incomplete banner");
    bad("extra.mtx", "%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", -1, HS_ERR_MESH,
        ":1: unexpected word 'extra'");
    snprintf(buf, sizeof buf, "%s%% only comments\n", hdr);
    bad("nosize.mtx", buf, -1, HS_ERR_MESH, ":2: file ended before the size line");
    snprintf(buf, sizeof buf, "%s3 x 1\n", hdr);
    bad("size.mtx", buf, -1, HS_ERR_MESH, ":2: expected the number of columns");
    snprintf(buf, sizeof buf, "%s3 -3 1\n", hdr);
    bad("neg.mtx", buf, -1, HS_ERR_MESH, ":2: negative size");
    snprintf(buf, sizeof buf, "%s3 3 1 7\n", hdr);
    bad("size4.mtx", buf, -1, HS_ERR_MESH, ":2: unexpected '7' after the size line");
    snprintf(buf, sizeof buf, "%s3 3 99999999999\n", hdr);
    bad("huge.mtx", buf, -1, HS_ERR_MESH, ":2: 3 x 3 with 99999999999 entries is beyond 32-bit indices");
    snprintf(buf, sizeof buf, "%s3 3 2\n1 1 1\n0 2 1\n", hdr);
    bad("zero.mtx", buf, -1, HS_ERR_MESH, ":4: row index 0 is outside 1..3 (indices are 1-based)");
    snprintf(buf, sizeof buf, "%s3 3 1\n4 2 1\n", hdr);
    bad("row.mtx", buf, -1, HS_ERR_MESH, ":3: row index 4 is outside 1..3");
    snprintf(buf, sizeof buf, "%s3 2 1\n1 3 1\n", hdr);
    bad("col.mtx", buf, -1, HS_ERR_MESH, ":3: column index 3 is outside 1..2");
    snprintf(buf, sizeof buf, "%s3 3 3\n1 1 1\n2 2 1\n", hdr);
    bad("few.mtx", buf, -1, HS_ERR_MESH, "file ended after 2 of the 3 entries the size line declares");
    snprintf(buf, sizeof buf, "%s3 3 1\n1 1 1\n2 2 1\n", hdr);
    bad("many.mtx", buf, -1, HS_ERR_MESH, ":4: more entries than the 1 the size line declares");
    snprintf(buf, sizeof buf, "%s3 3 1\n1 1 abc\n", hdr);
    bad("value.mtx", buf, -1, HS_ERR_MESH, ":3: expected a value (a real number), found 'abc'");
    snprintf(buf, sizeof buf, "%s3 3 1\n1 1 nan\n", hdr);
    bad("nan.mtx", buf, -1, HS_ERR_MESH, ":3: value 'nan' is not a finite number");
    snprintf(buf, sizeof buf, "%s3 3 1\n1 1\n", hdr);
    bad("noval.mtx", buf, -1, HS_ERR_MESH, ":3: expected a value (field 'real'), found end of line");
    snprintf(buf, sizeof buf, "%s3 3 1\n1 1 1 2\n", hdr);
    bad("extraval.mtx", buf, -1, HS_ERR_MESH, ":3: unexpected '2' after the entry: expected 'ROW COLUMN VALUE'");
    bad("intval.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n", -1, HS_ERR_MESH,
        ":3: expected an integer value (field 'integer'), found '1.5'");
    bad("patval.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1.5\n", -1, HS_ERR_MESH,
        "(field 'pattern' has no values)");
    bad("upper.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n", -1, HS_ERR_MESH,
        ":3: entry (1, 2) is above the diagonal");
    bad("symrect.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n", -1, HS_ERR_MESH,
        ":2: a symmetric matrix must be square");
    const char nul[] = "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 \0 1\n";
    bad("nul.mtx", nul, (long)sizeof nul - 1, HS_ERR_MESH, ":3: line contains a NUL byte");

    /* a file that does not exist */
    hs_csr *a = NULL;
    char missing[300];
    snprintf(missing, sizeof missing, "%s/no_such.mtx", g_dir);
    hs_error_clear();
    HS_TEST_CHECK(hs_mtx_read(missing, &a) == HS_ERR_MESH && a == NULL, "missing file: no mesh error");
    HS_TEST_CHECK(strstr(hs_error_message(), "cannot open Matrix Market file") != NULL &&
                      strstr(hs_error_message(), missing) != NULL,
                  "missing file message: %s", hs_error_message());
    hs_error_clear();
}

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "%s/hs_mtx_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 1;
    }
    good_cases();
    bad_cases();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", g_dir);
    HS_TEST_RETURN();
}
