/* The XML side shared by the XDMF formats (hs_xdmf_text.h). */
#include "hs_xdmf_text.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_atomic_file.h"
#include "hs_util.h"

/* Well-formed UTF-8 (the index declares that encoding; a stray byte makes it unreadable). */
static int utf8_valid(const unsigned char *c)
{
    while (*c) {
        int more = *c < 0x80 ? 0 : (*c & 0xE0) == 0xC0 ? 1 : (*c & 0xF0) == 0xE0 ? 2 : (*c & 0xF8) == 0xF0 ? 3 : -1;
        if (more < 0) return 0;
        ++c;
        for (int k = 0; k < more; ++k, ++c)
            if ((*c & 0xC0) != 0x80) return 0;
    }
    return 1;
}

hs_status hs_xdmf_check_prefix(const char *prefix, const char *format, const char *also)
{
    for (const unsigned char *c = (const unsigned char *)prefix; *c; ++c)
        HS_CHECK(*c > ' ' && *c != 0x7f && *c != '|', HS_ERR_CONFIG,
                 "output prefix \"%s\": the %s format cannot use white space, control characters "
                 "or '|' in file names (XDMF readers split and trim data file names there)", prefix, format);
    HS_CHECK(!also || !strpbrk(prefix, also), HS_ERR_CONFIG,
             "output prefix \"%s\": the %s format cannot use any of \"%s\" in file names (XDMF "
             "readers split FILE:/dataset there)", prefix, format, also ? also : "");
    HS_CHECK(utf8_valid((const unsigned char *)prefix), HS_ERR_CONFIG,
             "output prefix \"%s\" is not valid UTF-8, which the XDMF index requires", prefix);
    return HS_OK;
}

hs_status hs_xdmf_escape(const char *str, char **out)
{
    size_t len = 1;
    for (const char *c = str; *c; ++c) len += strchr("&<>\"'", *c) ? 6 : 1;
    char *p = NULL;
    HS_CALL(HS_ALLOC(p, len, "escaped name"));
    char *o = p;
    for (const char *c = str; *c; ++c) {
        const char *ent = *c == '&' ? "&amp;" : *c == '<' ? "&lt;" : *c == '>' ? "&gt;"
                        : *c == '"' ? "&quot;" : *c == '\'' ? "&apos;" : NULL;
        if (ent) {
            memcpy(o, ent, strlen(ent));
            o += strlen(ent);
        } else {
            *o++ = *c;
        }
    }
    *o = '\0';
    *out = p;
    return HS_OK;
}

void hs_xdmf_format_time(double t, char *buf, size_t size)
{
    snprintf(buf, size, "%.15g", t);
    if (strtod(buf, NULL) != t) snprintf(buf, size, "%.17g", t);
}

void hs_xdmf_grids_free(hs_xdmf_grids *g)
{
    free(g->text);
    free(g->end);
    memset(g, 0, sizeof *g);
}

hs_status hs_xdmf_grids_reserve(hs_xdmf_grids *g, int n)
{
    if (n <= g->n_cap) return HS_OK;
    int cap = g->n_cap ? g->n_cap : 64;
    while (cap < n) cap = cap > INT_MAX / 2 ? n : 2 * cap;
    size_t *e = realloc(g->end, (size_t)cap * sizeof *e);
    HS_CHECK(e, HS_ERR_MEMORY, "out of memory growing the XDMF series index to %d frames", cap);
    g->end = e;
    g->n_cap = cap;
    return HS_OK;
}

/* Room for @p n more bytes and the NUL. */
static hs_status grow(hs_xdmf_grids *g, size_t n)
{
    if (g->len + n + 1 <= g->cap) return HS_OK;
    size_t cap = g->cap ? g->cap : 4096;
    while (cap < g->len + n + 1) cap *= 2;
    char *t = realloc(g->text, cap);
    HS_CHECK(t, HS_ERR_MEMORY, "out of memory growing the XDMF index text to %zu bytes", cap);
    g->text = t;
    g->cap = cap;
    return HS_OK;
}

hs_status hs_xdmf_grids_append(hs_xdmf_grids *g, const char *text, size_t n)
{
    HS_CALL(grow(g, n));
    memcpy(g->text + g->len, text, n);
    g->len += n;
    g->text[g->len] = '\0';
    return HS_OK;
}

hs_status hs_xdmf_grids_printf(hs_xdmf_grids *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    HS_CHECK(n >= 0, HS_ERR_INTERNAL, "cannot format an XDMF index line");
    HS_CALL(grow(g, (size_t)n));
    va_start(ap, fmt);
    vsnprintf(g->text + g->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    g->len += (size_t)n;
    return HS_OK;
}

void hs_xdmf_grids_keep(hs_xdmf_grids *g, int n)
{
    g->len = n > 0 ? g->end[n - 1] : 0;
    if (g->text) g->text[g->len] = '\0';
}

void hs_xdmf_grids_mark(hs_xdmf_grids *g, int i) { g->end[i] = g->len; }

hs_status hs_xdmf_grids_write_index(const hs_xdmf_grids *g, int n, const char *path, const char *comment,
                                    const char *name)
{
    hs_status st = HS_OK;
    hs_atomic_file *f = NULL;
    HS_CALL(hs_atomic_file_create(path, "XDMF index", &f));
    HS_CALL_GOTO(hs_atomic_file_printf(f,
                                       "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
                                       "<!-- %s -->\n"
                                       "<Xdmf Version=\"3.0\">\n"
                                       "  <Domain>\n"
                                       "    <Grid Name=\"%s\" GridType=\"Collection\" "
                                       "CollectionType=\"Temporal\">\n",
                                       comment, name),
                 fail);
    HS_CALL_GOTO(hs_atomic_file_write(f, g->text, g->end[n - 1]), fail);
    HS_CALL_GOTO(hs_atomic_file_printf(f, "    </Grid>\n  </Domain>\n</Xdmf>\n"), fail);
    return hs_atomic_file_commit(&f);
fail:
    hs_atomic_file_destroy(&f);
    return st;
}
