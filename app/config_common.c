/* What the config files share (declared in config_internal.h): collecting errors with their
 * origin, schema look-ups, the '|'-separated choice lists of enum keys and number formatting. */
#define _POSIX_C_SOURCE 200809L /* stat */

#include "config_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_REPORTED 10   /* errors spelled out in one message; the rest are counted */

/* ============================================================================================ */
/* Errors with their origin                                                                     */
/* ============================================================================================ */

static void prefix_of(const load_ctx *x, const origin *o, char *buf, size_t n)
{
    if (o && o->set && o->override)
        snprintf(buf, n, "--set %s: ", o->override);
    else if (o && o->set && o->line > 0)
        snprintf(buf, n, "%s:%d: ", o->file ? o->file : x->path, o->line);
    else if (x->path && x->path[0])
        snprintf(buf, n, "%s: ", x->path);
    else
        buf[0] = '\0';
}

/* Record one error, prefixed by its origin. */
void hs_cfg_report(load_ctx *x, const origin *o, const char *fmt, ...)
{
    if (++x->n_err > MAX_REPORTED) return;
    char pre[HS_PATH_MAX + 64];
    prefix_of(x, o, pre, sizeof pre);
    size_t cap = sizeof x->msg;
    if (x->len + 1 >= cap) return;
    int w = snprintf(x->msg + x->len, cap - x->len, "%s", pre);
    if (w > 0) x->len = x->len + (size_t)w < cap ? x->len + (size_t)w : cap - 1;
    va_list ap;
    va_start(ap, fmt);
    w = vsnprintf(x->msg + x->len, cap - x->len, fmt, ap);
    va_end(ap);
    if (w > 0) x->len = x->len + (size_t)w < cap ? x->len + (size_t)w : cap - 1;
    if (x->len + 1 < cap) {
        x->msg[x->len++] = '\n';
        x->msg[x->len] = '\0';
    }
}

/* Turn the collected errors into the recorded HS_ERR_CONFIG (or HS_OK when none). */
hs_status hs_cfg_finish(load_ctx *x)
{
    if (x->n_err == 0) return HS_OK;
    while (x->len > 0 && x->msg[x->len - 1] == '\n') x->msg[--x->len] = '\0';
    if (x->n_err > MAX_REPORTED) {
        size_t cap = sizeof x->msg;
        snprintf(x->msg + x->len, cap - x->len, "\n(%d more errors not shown)",
                 x->n_err - MAX_REPORTED);
    }
    return HS_FAIL(HS_ERR_CONFIG, "%s", x->msg);
}

const origin *hs_cfg_origin_key(const load_ctx *x, const char *path)
{
    int k = hs_cfg_key_index(path);
    return x->key && k >= 0 && x->key[k].set ? &x->key[k] : NULL;
}

/* ============================================================================================ */
/* Schema helpers                                                                               */
/* ============================================================================================ */

/* Index of the (non-stimulus) key with this exact path, or -1. */
int hs_cfg_key_index(const char *path)
{
    for (int i = 0; i < hs_cfg_nkeys(); ++i)
        if (!is_member(&hs_cfg_keys()[i]) && strcmp(hs_cfg_keys()[i].path, path) == 0) return i;
    return -1;
}

/* Index of the regions key named @p leaf, or -1. */
int hs_cfg_region_key_index(const char *leaf)
{
    for (int i = 0; i < hs_cfg_nkeys(); ++i)
        if (is_region(&hs_cfg_keys()[i]) && strcmp(leaf_of(hs_cfg_keys()[i].path), leaf) == 0) return i;
    return -1;
}

/* Index of the stimulus key named @p leaf, or -1. */
int hs_cfg_stim_key_index(const char *leaf)
{
    for (int i = 0; i < hs_cfg_nkeys(); ++i)
        if (is_stim(&hs_cfg_keys()[i]) && strcmp(leaf_of(hs_cfg_keys()[i].path), leaf) == 0)
            return i;
    return -1;
}

/* Index of @p s among the '|'-separated @p choices, or -1. */
int hs_cfg_choice_index(const char *choices, const char *s)
{
    size_t n = strlen(s);
    int i = 0;
    for (const char *p = choices; p; ++i) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && strncmp(p, s, n) == 0) return i;
        p = bar ? bar + 1 : NULL;
    }
    return -1;
}

int hs_cfg_choice_count(const char *choices)
{
    int n = 1;
    for (const char *p = choices; *p; ++p) n += *p == '|';
    return n;
}

/* The i-th choice, copied into buf. */
const char *hs_cfg_choice_at(const char *choices, int i, char *buf, size_t n)
{
    const char *p = choices;
    for (; i > 0 && p; --i) {
        p = strchr(p, '|');
        if (p) ++p;
    }
    if (!p) {
        buf[0] = '\0';
        return buf;
    }
    const char *bar = strchr(p, '|');
    size_t len = bar ? (size_t)(bar - p) : strlen(p);
    if (len >= n) len = n - 1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    return buf;
}

/* "a, b, c" (with quotes when @p quote) from the choices. */
const char *hs_cfg_choices_list(const char *choices, int quote, char *buf, size_t n)
{
    size_t len = 0;
    char one[64];
    buf[0] = '\0';
    for (int i = 0, c = hs_cfg_choice_count(choices); i < c && len + 1 < n; ++i) {
        int w = snprintf(buf + len, n - len, "%s%s%s%s", i ? ", " : "", quote ? "\"" : "",
                         hs_cfg_choice_at(choices, i, one, sizeof one), quote ? "\"" : "");
        if (w < 0) break;
        len += (size_t)w;
    }
    return buf;
}

int hs_cfg_names_find(const hs_cfg_names *l, const char *s)
{
    for (int j = 0; j < l->n; ++j)
        if (!strcmp(l->name[j], s)) return j;
    return -1;
}

int hs_cfg_names_add(hs_cfg_names *l, const char *s)
{
    if (l->n < 0 || l->n >= HS_CFG_LIST_MAX || strlen(s) >= sizeof l->name[0]) return 0;
    snprintf(l->name[l->n++], sizeof l->name[0], "%s", s);
    return 1;
}

hs_cfg_names hs_cfg_names_parse(const char *csv)
{
    hs_cfg_names l;
    memset(&l, 0, sizeof l);
    char one[sizeof l.name[0]];
    for (const char *c = csv; c && *c;) {
        size_t len = strcspn(c, ",");
        if (len > 0 && len < sizeof one) { /* empty names dropped */
            memcpy(one, c, len);
            one[len] = '\0';
            (void)hs_cfg_names_add(&l, one);
        }
        c += len + (c[len] == ',');
    }
    return l;
}

/* How stimulus key @p k serves a site of shape @p shape: 2 required, 1 allowed (keys of every shape,
 * and a shape's optional keys), 0 not allowed. */
int hs_cfg_shape_use(const hs_cfg_key *k, const char *shape)
{
    if (!k->shape) return 1;
    if (!strcmp(k->shape, shape)) return 2;
    return k->shape_opt && !strcmp(k->shape_opt, shape) ? 1 : 0;
}

/* Shortest "%g" that reads back exactly, as a person writes it: no exponent for magnitudes from
 * 1e-4 to 1e16 (20, not 2e+01). */
const char *hs_cfg_fmt_num(double v, char *buf, size_t n)
{
    int p = 1;
    for (; p <= 17; ++p) {
        snprintf(buf, n, "%.*g", p, v);
        if (strtod(buf, NULL) == v) break;
    }
    if (isfinite(v) && v != 0.0) {
        int e = (int)floor(log10(fabs(v)));
        if (e >= p && e < 16) snprintf(buf, n, "%.*g", e + 1, v);
    }
    return buf;
}

/* "> 0", ">= 1", "in (0, 1)" ... ("" when unbounded). With @p in_word, a two-sided range reads
 * "in (a, b)", otherwise "(a, b)". */
const char *hs_cfg_fmt_range(const hs_cfg_key *k, int in_word, char *buf, size_t n)
{
    char a[32], b[32];
    int lo = k->flags & (HS_CFG_MIN_OPEN | HS_CFG_MIN_CLOSED);
    int hi = k->flags & (HS_CFG_MAX_OPEN | HS_CFG_MAX_CLOSED);
    hs_cfg_fmt_num(k->min, a, sizeof a);
    hs_cfg_fmt_num(k->max, b, sizeof b);
    if (lo && hi)
        snprintf(buf, n, "%s%c%s, %s%c", in_word ? "in " : "",
                 (k->flags & HS_CFG_MIN_OPEN) ? '(' : '[', a, b,
                 (k->flags & HS_CFG_MAX_OPEN) ? ')' : ']');
    else if (lo)
        snprintf(buf, n, "%s %s", (k->flags & HS_CFG_MIN_OPEN) ? ">" : ">=", a);
    else if (hi)
        snprintf(buf, n, "%s %s", (k->flags & HS_CFG_MAX_OPEN) ? "<" : "<=", b);
    else
        buf[0] = '\0';
    return buf;
}

/* Can @p path be opened for reading? 0, or errno. */
int hs_cfg_readable(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0) return errno;
    if (S_ISDIR(sb.st_mode)) return EISDIR;
    FILE *f = fopen(path, "r");
    if (!f) return errno;
    fclose(f);
    return 0;
}
