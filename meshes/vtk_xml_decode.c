/* Decoding the DataArrays of an XML VTK file (vtk_xml.h): ascii numbers; base64 (inline binary and
 * appended base64) and raw appended bytes; the header words (UInt32/UInt64, either byte order) and
 * vtkZLibDataCompressor blocks, inflated with zlib's uncompress. The base64 decoder is written
 * here (about 30 lines) rather than taken from a library: it must restart after padding, since VTK
 * encodes an array's header and its data as two separate runs. Every size a header announces is
 * checked against the bytes that actually follow before anything is allocated. */
#define _POSIX_C_SOURCE 200809L
#include "vtk_xml.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "hs_text_reader.h"
#include "hs_util.h"

/* ---- value types ---------------------------------------------------------------------------- */

static const struct {
    const char *name;
    int size, is_int, is_signed;
} k_types[] = {{"Int8", 1, 1, 1},   {"UInt8", 1, 1, 0},  {"Int16", 2, 1, 1},
               {"UInt16", 2, 1, 0}, {"Int32", 4, 1, 1},  {"UInt32", 4, 1, 0},
               {"Int64", 8, 1, 1},  {"UInt64", 8, 1, 0}, {"Float32", 4, 0, 1},
               {"Float64", 8, 0, 1}};
enum { N_TYPES = sizeof k_types / sizeof k_types[0] };

const char *hs_vtkx_type_name(int type) { return type >= 0 && type < N_TYPES ? k_types[type].name : "?"; }
int hs_vtkx_type_is_int(int type) { return type >= 0 && type < N_TYPES && k_types[type].is_int; }

int hs_vtkx_type_find(const char *s)
{
    for (int i = 0; i < N_TYPES; ++i)
        if (strcmp(s, k_types[i].name) == 0) return i;
    /* older writers: Int/UInt without size are not written by VTK; "Float" neither */
    return -1;
}

/* ---- byte sources: raw bytes, or base64 text --------------------------------------------- */

typedef struct source {
    const unsigned char *p, *end; /* raw bytes, or base64 characters */
    int base64;
    unsigned char pend[3];        /* decoded bytes not yet handed out */
    int n_pend, i_pend;
} source;

static int b64_value(unsigned char ch)
{
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9') return ch - '0' + 52;
    if (ch == '+') return 62;
    if (ch == '/') return 63;
    return -1;
}

/* Decode the next group of 4 base64 characters (whitespace skipped) into s->pend. Padding ('=')
 * ends a run; the next group starts a new one, as VTK writes header and data as separate runs.
 * 0 at the end of the text, -1 on a bad character. */
static int b64_group(source *s)
{
    int v[4], n = 0, pad = 0;
    while (n < 4) {
        while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t')) ++s->p;
        if (s->p >= s->end) return n == 0 ? 0 : -1;
        const unsigned char ch = *s->p++;
        if (ch == '=' && n >= 2) {
            v[n++] = 0;
            ++pad;
            continue;
        }
        if (pad) return -1; /* data after '=' inside a group */
        v[n] = b64_value(ch);
        if (v[n] < 0) return -1;
        ++n;
    }
    const uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
    s->pend[0] = (unsigned char)(w >> 16);
    s->pend[1] = (unsigned char)(w >> 8);
    s->pend[2] = (unsigned char)w;
    s->n_pend = 3 - pad;
    s->i_pend = 0;
    return 1;
}

/* Bytes the source can still give at most (exact for raw, an upper bound for base64). */
static size_t src_left(const source *s)
{
    const size_t chars = (size_t)(s->end - s->p);
    return (size_t)(s->n_pend - s->i_pend) + (s->base64 ? chars / 4 * 3 + 3 : chars);
}

/* Read n bytes; *got = how many were there (< n: the data ended). -1 on bad base64. */
static int src_read(source *s, unsigned char *out, size_t n, size_t *got)
{
    *got = 0;
    if (!s->base64) {
        const size_t k = (size_t)(s->end - s->p) < n ? (size_t)(s->end - s->p) : n;
        memcpy(out, s->p, k);
        s->p += k;
        *got = k;
        return 0;
    }
    while (*got < n) {
        if (s->i_pend == s->n_pend) {
            const int r = b64_group(s);
            if (r <= 0) return r;
        }
        out[(*got)++] = s->pend[s->i_pend++];
    }
    return 0;
}

/* ---- decoding -------------------------------------------------------------------------------- */

static uint64_t word(const unsigned char *b, int size, int big)
{
    uint64_t u = 0;
    for (int k = 0; k < size; ++k) u |= (uint64_t)b[big ? size - 1 - k : k] << (8 * k);
    return u;
}

/* Read one header word. */
static hs_status header_word(const hs_vtkx_file *f, const hs_vtkx_array *a, source *s,
                             const char *what, uint64_t *v)
{
    unsigned char b[8];
    const int size = f->header64 ? 8 : 4;
    size_t got;
    const int r = src_read(s, b, (size_t)size, &got);
    HS_CHECK(r == 0, HS_ERR_MESH, "%s:%ld: DataArray \"%s\": invalid base64 data", f->path, a->line,
             a->name);
    HS_CHECK(got == (size_t)size, HS_ERR_MESH,
             "%s:%ld: DataArray \"%s\": the data ends inside its header (%s)", f->path, a->line,
             a->name, what);
    *v = word(b, size, f->big_endian);
    return HS_OK;
}

/* The array's bytes (header read, blocks inflated): *bytes new buffer of *nbytes. */
static hs_status binary_bytes(const hs_vtkx_file *f, const hs_vtkx_array *a, unsigned char **bytes,
                              size_t *nbytes)
{
    source s;
    memset(&s, 0, sizeof s);
    *bytes = NULL;
    if (a->format == 1) {
        s.p = (const unsigned char *)(a->text ? a->text : "");
        s.end = s.p + a->len;
        s.base64 = 1;
    } else {
        HS_CHECK(f->have_appended, HS_ERR_MESH,
                 "%s:%ld: DataArray \"%s\" is appended but the file has no AppendedData", f->path,
                 a->line, a->name);
        const size_t avail = f->appended_end - f->appended_start;
        HS_CHECK(a->offset <= avail, HS_ERR_MESH,
                 "%s:%ld: DataArray \"%s\": offset %llu is past the end of the appended data (%zu "
                 "bytes)",
                 f->path, a->line, a->name, (unsigned long long)a->offset, avail);
        s.p = f->buf + f->appended_start + a->offset;
        s.end = f->buf + f->appended_end;
        s.base64 = f->appended_base64;
    }
    hs_status st = HS_OK;
    unsigned char *out = NULL, *zbuf = NULL;
    uint64_t *csize = NULL;
    if (!f->zlib) {
        uint64_t n;
        HS_CALL(header_word(f, a, &s, "number of bytes", &n));
        HS_CHECK(n <= src_left(&s), HS_ERR_MESH,
                 "%s:%ld: DataArray \"%s\": the header announces %llu bytes, but only %zu follow",
                 f->path, a->line, a->name, (unsigned long long)n, src_left(&s));
        HS_CALL(HS_ALLOC(out, n + 1, "DataArray bytes"));
        size_t got;
        const int r = src_read(&s, out, (size_t)n, &got);
        HS_CHECK_GOTO(r == 0, done, HS_ERR_MESH, "%s:%ld: DataArray \"%s\": invalid base64 data",
                      f->path, a->line, a->name);
        HS_CHECK_GOTO(got == n, done, HS_ERR_MESH,
                      "%s:%ld: DataArray \"%s\": the header announces %llu bytes, but only %zu follow",
                      f->path, a->line, a->name, (unsigned long long)n, got);
        *nbytes = (size_t)n;
    } else {
        uint64_t nb, bs, last;
        HS_CALL(header_word(f, a, &s, "number of blocks", &nb));
        HS_CALL(header_word(f, a, &s, "block size", &bs));
        HS_CALL(header_word(f, a, &s, "last block size", &last));
        /* every block costs at least one header word in the file */
        HS_CHECK(nb <= src_left(&s) / 4 + 1, HS_ERR_MESH,
                 "%s:%ld: DataArray \"%s\": %llu compressed blocks announced, more than the data holds",
                 f->path, a->line, a->name, (unsigned long long)nb);
        HS_CHECK(last <= bs && bs <= (UINT64_C(1) << 32) && (nb > 0 || last == 0), HS_ERR_MESH,
                 "%s:%ld: DataArray \"%s\": compression header: block size %llu, last block %llu "
                 "(expected last <= block size <= 2^32)",
                 f->path, a->line, a->name, (unsigned long long)bs, (unsigned long long)last);
        const uint64_t total = nb == 0 ? 0 : (nb - 1) * bs + (last ? last : bs);
        HS_CALL(HS_ALLOC(csize, nb + 1, "compressed block sizes"));
        uint64_t csum = 0;
        for (uint64_t k = 0; k < nb; ++k) {
            HS_CALL_GOTO(header_word(f, a, &s, "compressed block size", &csize[k]), done);
            csum += csize[k] < src_left(&s) ? csize[k] : src_left(&s) + 1;
        }
        HS_CHECK_GOTO(csum <= src_left(&s), done, HS_ERR_MESH,
                      "%s:%ld: DataArray \"%s\": the compressed blocks add up to more bytes than "
                      "follow (%zu)",
                      f->path, a->line, a->name, src_left(&s));
        /* zlib's ratio is at most about 1032:1: a larger total is a broken header */
        HS_CHECK_GOTO(total <= 1100 * (csum + 64), done, HS_ERR_MESH,
                      "%s:%ld: DataArray \"%s\": %llu bytes announced from %llu compressed ones",
                      f->path, a->line, a->name, (unsigned long long)total, (unsigned long long)csum);
        HS_CALL_GOTO(HS_ALLOC(out, total + 1, "DataArray bytes"), done);
        uint64_t pos = 0;
        for (uint64_t k = 0; k < nb; ++k) {
            const uint64_t want = k + 1 == nb && last ? last : bs;
            free(zbuf);
            zbuf = NULL;
            HS_CALL_GOTO(HS_ALLOC(zbuf, csize[k] + 1, "compressed block"), done);
            size_t got;
            const int r = src_read(&s, zbuf, (size_t)csize[k], &got);
            HS_CHECK_GOTO(r == 0 && got == csize[k], done, HS_ERR_MESH,
                          "%s:%ld: DataArray \"%s\": compressed block %llu is cut short or not "
                          "valid base64",
                          f->path, a->line, a->name, (unsigned long long)k);
            uLongf dlen = (uLongf)want;
            const int zr = uncompress(out + pos, &dlen, zbuf, (uLong)csize[k]);
            HS_CHECK_GOTO(zr == Z_OK && dlen == want, done, HS_ERR_MESH,
                          "%s:%ld: DataArray \"%s\": zlib block %llu of %llu does not inflate to "
                          "%llu bytes (%s)",
                          f->path, a->line, a->name, (unsigned long long)k, (unsigned long long)nb,
                          (unsigned long long)want, zr == Z_OK ? "size differs" : zError(zr));
            pos += want;
        }
        *nbytes = (size_t)total;
    }
    *bytes = out;
    out = NULL;
done:
    free(out);
    free(zbuf);
    free(csize);
    return st;
}

static hs_status decode(const hs_vtkx_file *f, const hs_vtkx_array *a, long long expect,
                        int want_int, hs_vtkx_values *v)
{
    memset(v, 0, sizeof *v);
    const int t = a->type, size = k_types[t].size;
    const int is_int = k_types[t].is_int;
    v->is_int = is_int || want_int;
    hs_status st = HS_OK;
    unsigned char *bytes = NULL;
    size_t n = 0;
    if (a->format == 0) {
        /* count the tokens first: never allocate more than the text holds */
        const char *p = a->text ? a->text : "";
        for (const char *q = p; *q;) {
            while (*q == ' ' || *q == '\n' || *q == '\r' || *q == '\t') ++q;
            if (!*q) break;
            ++n;
            while (*q && !(*q == ' ' || *q == '\n' || *q == '\r' || *q == '\t')) ++q;
        }
    } else {
        HS_CALL(binary_bytes(f, a, &bytes, &n));
        HS_CHECK_GOTO(n % (size_t)size == 0, done, HS_ERR_MESH,
                      "%s:%ld: DataArray \"%s\": %zu bytes is not a whole number of %s values",
                      f->path, a->line, a->name, n, k_types[t].name);
        n /= (size_t)size;
    }
    HS_CHECK_GOTO(expect < 0 || n == (size_t)expect, done, HS_ERR_MESH,
                  "%s:%ld: DataArray \"%s\" holds %zu values; expected %lld", f->path, a->line,
                  a->name, n, expect);
    if (v->is_int)
        HS_CALL_GOTO(HS_ALLOC(v->i, n + 1, "DataArray values"), done);
    else
        HS_CALL_GOTO(HS_ALLOC(v->d, n + 1, "DataArray values"), done);
    v->n = n;
    char *q = a->text;
    for (size_t k = 0; k < n; ++k) {
        int64_t iv = 0;
        double dv = 0.0;
        if (a->format == 0) {
            while (*q == ' ' || *q == '\n' || *q == '\r' || *q == '\t') ++q;
            char *end = NULL;
            errno = 0;
            if (is_int && k_types[t].is_signed) {
                iv = strtoll(q, &end, 10);
            } else if (is_int) {
                if (*q == '-') end = q;
                else iv = (int64_t)strtoull(q, &end, 10);
                if (end != q && iv < 0) errno = ERANGE;
            } else {
                dv = strtod(q, &end);
            }
            const int bad = end == q || !(*end == '\0' || *end == ' ' || *end == '\n' ||
                                          *end == '\r' || *end == '\t');
            HS_CHECK_GOTO(!bad && (errno == 0 || !is_int), done, HS_ERR_MESH,
                          "%s:%ld: DataArray \"%s\": value %zu '%.30s' is not a%s %s", f->path,
                          a->line, a->name, k, q, is_int ? "n" : "", k_types[t].name);
            q = end;
        } else {
            const uint64_t u = word(bytes + k * (size_t)size, size, f->big_endian);
            if (!is_int) {
                if (size == 4) {
                    uint32_t w = (uint32_t)u;
                    float x;
                    memcpy(&x, &w, 4);
                    dv = x;
                } else {
                    memcpy(&dv, &u, 8);
                }
            } else if (k_types[t].is_signed) {
                const int sh = 64 - 8 * size;
                iv = sh ? (int64_t)(u << sh) >> sh : (int64_t)u;
            } else {
                HS_CHECK_GOTO(u <= (uint64_t)INT64_MAX, done, HS_ERR_MESH,
                              "%s:%ld: DataArray \"%s\": value %zu is too large", f->path, a->line,
                              a->name, k);
                iv = (int64_t)u;
            }
        }
        if (!is_int) {
            HS_CHECK_GOTO(isfinite(dv), done, HS_ERR_MESH,
                          "%s:%ld: DataArray \"%s\": value %zu is not finite", f->path, a->line,
                          a->name, k);
            if (want_int) {
                HS_CHECK_GOTO(dv == floor(dv) && fabs(dv) < 9.0e15, done, HS_ERR_MESH,
                              "%s:%ld: DataArray \"%s\": value %zu (%.17g) is not an integer",
                              f->path, a->line, a->name, k, dv);
                iv = (int64_t)dv;
            }
        }
        if (v->is_int)
            v->i[k] = iv;
        else
            v->d[k] = dv;
    }
done:
    free(bytes);
    if (st != HS_OK) hs_vtkx_values_free(v);
    return st;
}

hs_status hs_vtkx_decode(const hs_vtkx_file *f, const hs_vtkx_array *a, long long expect,
                         hs_vtkx_values *v)
{
    return decode(f, a, expect, 0, v);
}

hs_status hs_vtkx_decode_int(const hs_vtkx_file *f, const hs_vtkx_array *a, long long expect,
                             hs_vtkx_values *v)
{
    return decode(f, a, expect, 1, v);
}

void hs_vtkx_values_free(hs_vtkx_values *v)
{
    free(v->i);
    free(v->d);
    memset(v, 0, sizeof *v);
}

hs_status hs_vtkx_cells(const hs_vtkx_file *f, hs_vtkx_section section, const char *what,
                        long long n, hs_vtkx_values *conn, hs_vtkx_values *off)
{
    memset(conn, 0, sizeof *conn);
    memset(off, 0, sizeof *off);
    const hs_vtkx_array *ac = hs_vtkx_find_name(f, section, "connectivity");
    const hs_vtkx_array *ao = hs_vtkx_find_name(f, section, "offsets");
    HS_CHECK(ac && ao, HS_ERR_MESH, "%s: <%s> needs DataArrays \"connectivity\" and \"offsets\"",
             f->path, what);
    hs_status st = HS_OK;
    HS_CALL_GOTO(hs_vtkx_decode_int(f, ao, n, off), done);
    HS_CALL_GOTO(hs_vtkx_decode_int(f, ac, -1, conn), done);
    int64_t prev = 0;
    for (long long c = 0; c < n; ++c) {
        HS_CHECK_GOTO(off->i[c] >= prev && (uint64_t)off->i[c] <= conn->n, done, HS_ERR_MESH,
                      "%s:%ld: offsets: cell %lld ends at %lld, before the previous one (%lld) or "
                      "past the %zu connectivity entries",
                      f->path, ao->line, c, (long long)off->i[c], (long long)prev, conn->n);
        prev = off->i[c];
    }
    for (size_t k = 0; k < (size_t)prev; ++k)
        HS_CHECK_GOTO(conn->i[k] >= 0 && conn->i[k] < f->n_points, done, HS_ERR_MESH,
                      "%s:%ld: connectivity entry %zu is point %lld; the file has %lld points "
                      "(0-based: 0..%lld)",
                      f->path, ac->line, k, (long long)conn->i[k], f->n_points, f->n_points - 1);
done:
    if (st != HS_OK) {
        hs_vtkx_values_free(conn);
        hs_vtkx_values_free(off);
    }
    return st;
}
