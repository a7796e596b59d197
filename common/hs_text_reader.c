/* Line reader shared by every text-format reader (hs_text_reader.h). */
#define _POSIX_C_SOURCE 200809L
#include "hs_text_reader.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

hs_status hs_text_reader_open(hs_text_reader *r, const char *path, const char *what,
                              hs_status code, char comment)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    r->what = what;
    r->code = code;
    r->comment = comment;
    HS_CHECK(path != NULL && path[0] != '\0', code, "%s file path is empty", what);
    r->f = fopen(path, "rb");
    HS_CHECK(r->f != NULL, code, "cannot open %s file '%s': %s", what, path, strerror(errno));
    r->owns_file = 1;
    return HS_OK;
}

void hs_text_reader_attach(hs_text_reader *r, FILE *f, const char *path, const char *what,
                           hs_status code, char comment)
{
    memset(r, 0, sizeof *r);
    r->f = f;
    r->path = path;
    r->what = what;
    r->code = code;
    r->comment = comment;
}

void hs_text_reader_close(hs_text_reader *r)
{
    if (r->f && r->owns_file) fclose(r->f);
    free(r->buf);
    r->f = NULL;
    r->buf = NULL;
    r->cap = 0;
}

long hs_text_reader_eof_line(const hs_text_reader *r) { return r->line > 0 ? r->line : 1; }

hs_status hs_text_reader_raw(hs_text_reader *r, int *got)
{
    *got = 0;
    errno = 0;
    ssize_t n = getline(&r->buf, &r->cap, r->f);
    if (n < 0) {
        HS_CHECK(!ferror(r->f), HS_ERR_IO, "%s:%ld: read error: %s", r->path, r->line + 1,
                 strerror(errno));
        return HS_OK;
    }
    ++r->line;
    HS_CHECK(memchr(r->buf, '\0', (size_t)n) == NULL, r->code,
             "%s:%ld: line contains a NUL byte; is this a binary file rather than a %s text file?",
             r->path, r->line, r->what);
    r->cur = r->buf;
    *got = 1;
    return HS_OK;
}

hs_status hs_text_reader_next(hs_text_reader *r, int *got)
{
    for (;;) {
        HS_CALL(hs_text_reader_raw(r, got));
        if (!*got) return HS_OK;
        if (r->comment) {
            char *c = strchr(r->buf, r->comment);
            if (c) *c = '\0';
        }
        char *p = r->buf;
        while (is_space(*p)) ++p;
        if (*p == '\0') continue;
        r->cur = p;
        return HS_OK;
    }
}

char *hs_text_reader_token(hs_text_reader *r)
{
    char *p = r->cur;
    if (p == NULL) return NULL;
    while (is_space(*p)) ++p;
    if (*p == '\0') {
        r->cur = p;
        return NULL;
    }
    char *s = p;
    while (*p && !is_space(*p)) ++p;
    if (*p) *p++ = '\0';
    r->cur = p;
    return s;
}

long hs_text_reader_remaining(hs_text_reader *r)
{
    long n = 0;
    while (hs_text_reader_token(r)) ++n;
    return n;
}

hs_status hs_text_reader_long(hs_text_reader *r, const char *tok, const char *field, long long *v)
{
    HS_CHECK(tok != NULL, r->code, "%s:%ld: expected %s, found end of line", r->path, r->line,
             field);
    char *end = NULL;
    errno = 0;
    long long x = strtoll(tok, &end, 10);
    HS_CHECK(end != tok && *end == '\0', r->code, "%s:%ld: expected %s (an integer), found '%s'",
             r->path, r->line, field, tok);
    HS_CHECK(errno != ERANGE, r->code, "%s:%ld: %s '%s' is out of range", r->path, r->line, field,
             tok);
    *v = x;
    return HS_OK;
}

hs_status hs_text_reader_double(hs_text_reader *r, const char *tok, const char *field, double *v)
{
    HS_CHECK(tok != NULL, r->code, "%s:%ld: expected %s, found end of line", r->path, r->line,
             field);
    char *end = NULL;
    errno = 0;
    double x = strtod(tok, &end);
    HS_CHECK(end != tok && *end == '\0', r->code, "%s:%ld: expected %s (a number), found '%s'",
             r->path, r->line, field, tok);
    HS_CHECK(isfinite(x), r->code, "%s:%ld: %s '%s' is not a finite number", r->path, r->line,
             field, tok);
    *v = x;
    return HS_OK;
}

hs_status hs_text_reader_next_long(hs_text_reader *r, const char *field, long long *v)
{
    return hs_text_reader_long(r, hs_text_reader_token(r), field, v);
}

hs_status hs_text_reader_next_double(hs_text_reader *r, const char *field, double *v)
{
    return hs_text_reader_double(r, hs_text_reader_token(r), field, v);
}

hs_status hs_text_reader_expect_end(hs_text_reader *r, long n_expected, const char *layout)
{
    long extra = hs_text_reader_remaining(r);
    HS_CHECK(extra == 0, r->code,
             "%s:%ld: expected %ld fields (%s), found %ld; does the header match the data?",
             r->path, r->line, n_expected, layout, n_expected + extra);
    return HS_OK;
}

hs_status hs_grow_array(void **arr, size_t *cap, size_t need, size_t elem, const char *what)
{
    if (need <= *cap) return HS_OK;
    size_t c = *cap ? *cap : 4096;
    while (c < need) {
        HS_CHECK(c <= SIZE_MAX / 2 / elem, HS_ERR_MEMORY, "%s: too many items (%zu)", what, need);
        c *= 2;
    }
    void *p = realloc(*arr, c * elem);
    HS_CHECK(p != NULL, HS_ERR_MEMORY, "out of memory reading %s (%.1f MiB)", what,
             (double)c * (double)elem / (1024.0 * 1024.0));
    *arr = p;
    *cap = c;
    return HS_OK;
}
