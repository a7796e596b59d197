/* The configuration loader: libconfig file + "--set key=value" overrides -> validated hs_config.
 *
 * Every key, its type, default, range, unit and meaning come from the table in config_schema.c.
 * Loading is: defaults; parse the file; apply the overrides onto the parsed tree (so an override
 * is checked exactly like a key in the file); walk the whole tree (unknown keys with a suggested
 * spelling, wrong types); resolve the file paths (mesh.file, fibers.file, stimulus files) against
 * the config file; check ranges and cross-key constraints (mesh source, fibres, stimuli). Every
 * problem is reported with where it came from (`FILE:LINE: ` or `--set TEXT: `), all of them at
 * once (up to MAX_REPORTED), as one HS_ERR_CONFIG. */
#define _POSIX_C_SOURCE 200809L /* getcwd, stat */

#include "hs_config.h"

#include <errno.h>
#include <libconfig.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config_schema.h"
#include "hs_ap_model.h"
#include "hs_spmv.h"
#include "hs_util.h"

#define MAX_REPORTED 10   /* errors spelled out in one message; the rest are counted */
#define MAX_SEGMENTS 16   /* components of an override path */
#define NAME_MAX_LEN 128  /* a key name in an override path */

/* ============================================================================================ */
/* Where a value came from                                                                      */
/* ============================================================================================ */

typedef struct origin {
    int set;              /* 0: default value */
    const char *file;     /* file of the setting (an @include'd file or the config file) */
    int line;
    const char *override; /* the "--set" text that produced the setting, or NULL */
} origin;

typedef struct load_ctx {
    const char *path;     /* config file as given ("" when none) */
    char dir[HS_PATH_MAX]; /* absolute directory of the config file (the cwd when none) */
    origin *key;          /* [hs_cfg_schema_len], NULL in hs_config_validate */
    origin *stim;         /* [HS_MAX_STIMULI][hs_cfg_schema_len], NULL in hs_config_validate */
    origin stim_group[HS_MAX_STIMULI];
    int n_err;
    size_t len;
    char msg[4096];       /* the errors, one per line */
} load_ctx;

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
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void report(load_ctx *x, const origin *o, const char *fmt, ...)
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
static hs_status finish(load_ctx *x)
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

static origin origin_of(const load_ctx *x, const config_setting_t *s)
{
    origin o = {.set = 1};
    const void *hook = config_setting_get_hook(s);
    if (hook) {
        o.override = (const char *)hook;
    } else {
        o.file = config_setting_source_file(s) ? config_setting_source_file(s) : x->path;
        o.line = (int)config_setting_source_line(s);
    }
    return o;
}

/* ============================================================================================ */
/* Schema helpers                                                                               */
/* ============================================================================================ */

static int is_stim(const hs_cfg_key *k) { return (k->flags & HS_CFG_STIMULUS) != 0; }

static const char *leaf_of(const char *path)
{
    const char *d = strrchr(path, '.');
    return d ? d + 1 : path;
}

/* Index of the (non-stimulus) key with this exact path, or -1. */
static int key_index(const char *path)
{
    for (int i = 0; i < hs_cfg_schema_len; ++i)
        if (!is_stim(&hs_cfg_schema[i]) && strcmp(hs_cfg_schema[i].path, path) == 0) return i;
    return -1;
}

/* Index of the stimulus key named @p leaf, or -1. */
static int stim_key_index(const char *leaf)
{
    for (int i = 0; i < hs_cfg_schema_len; ++i)
        if (is_stim(&hs_cfg_schema[i]) && strcmp(leaf_of(hs_cfg_schema[i].path), leaf) == 0)
            return i;
    return -1;
}

/* Is @p name a section (the part before the dot of some key)? */
static int is_section(const char *name)
{
    size_t n = strlen(name);
    for (int i = 0; i < hs_cfg_schema_len; ++i) {
        const char *p = hs_cfg_schema[i].path;
        if (!is_stim(&hs_cfg_schema[i]) && strncmp(p, name, n) == 0 && p[n] == '.') return 1;
    }
    return 0;
}

/* Index of @p s among the '|'-separated @p choices, or -1. */
static int choice_index(const char *choices, const char *s)
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

static int choice_count(const char *choices)
{
    int n = 1;
    for (const char *p = choices; *p; ++p) n += *p == '|';
    return n;
}

/* The i-th choice, copied into buf. */
static const char *choice_at(const char *choices, int i, char *buf, size_t n)
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
static const char *choices_list(const char *choices, int quote, char *buf, size_t n)
{
    size_t len = 0;
    char one[64];
    buf[0] = '\0';
    for (int i = 0, c = choice_count(choices); i < c && len + 1 < n; ++i) {
        int w = snprintf(buf + len, n - len, "%s%s%s%s", i ? ", " : "", quote ? "\"" : "",
                         choice_at(choices, i, one, sizeof one), quote ? "\"" : "");
        if (w < 0) break;
        len += (size_t)w;
    }
    return buf;
}

/* Optimal string alignment distance (Levenshtein plus adjacent transpositions). */
static int osa_distance(const char *a, const char *b)
{
    enum { N = 64 };
    int la = (int)strlen(a), lb = (int)strlen(b);
    if (la >= N || lb >= N) return INT_MAX / 2;
    int d[N + 1][N + 1];
    for (int i = 0; i <= la; ++i) d[i][0] = i;
    for (int j = 0; j <= lb; ++j) d[0][j] = j;
    for (int i = 1; i <= la; ++i) {
        for (int j = 1; j <= lb; ++j) {
            int cost = a[i - 1] != b[j - 1];
            int v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v) v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    }
    return d[la][lb];
}

/* Suggestions are made when the distance is at most max(2, len/3) of what was typed. */
static int close_enough(int d, const char *typed)
{
    int lim = (int)strlen(typed) / 3;
    return d <= (lim > 2 ? lim : 2);
}

/* Nearest valid (non-stimulus) key to @p typed ("section.name" or a bare "name"), or NULL. A
 * key with the same name in another section counts as one edit away, so `time.alpha` and a
 * top-level `dt` find `model.alpha` and `time.dt`; a name is never "corrected" into a key that
 * shares none of its letters (`a` does not suggest `mesh.h`). */
static const char *suggest_key(const char *typed)
{
    const char *best = NULL;
    int best_d = INT_MAX, best_dl = INT_MAX;
    const char *tleaf = leaf_of(typed);
    size_t tsec = strlen(typed) - strlen(tleaf);
    for (int i = 0; i < hs_cfg_schema_len; ++i) {
        const hs_cfg_key *k = &hs_cfg_schema[i];
        if (is_stim(k) || k->type == HS_CFG_GROUPLIST) continue;
        const char *kleaf = leaf_of(k->path);
        size_t ksec = strlen(k->path) - strlen(kleaf);
        int same_sec = tsec == ksec && strncmp(typed, k->path, tsec) == 0;
        int d = osa_distance(typed, k->path);
        int dl = osa_distance(tleaf, kleaf) + (same_sec ? 0 : 1);
        if (dl < d) d = dl;
        if (d < best_d) {
            best_d = d;
            best_dl = osa_distance(tleaf, kleaf);
            best = k->path;
        }
    }
    return best && close_enough(best_d, tleaf) && best_dl < (int)strlen(tleaf) ? best : NULL;
}

/* Nearest section name, or NULL. */
static const char *suggest_section(const char *typed, char *buf, size_t n)
{
    int best_d = INT_MAX;
    for (int i = 0; i < hs_cfg_schema_len; ++i) {
        const hs_cfg_key *k = &hs_cfg_schema[i];
        if (is_stim(k)) continue;
        char sec[64];
        size_t len = strcspn(k->path, ".");
        if (len >= sizeof sec) continue;
        memcpy(sec, k->path, len);
        sec[len] = '\0';
        int d = osa_distance(typed, sec);
        if (d < best_d) {
            best_d = d;
            snprintf(buf, n, "%s", sec);
        }
    }
    return best_d < (int)strlen(typed) && close_enough(best_d, typed) ? buf : NULL;
}

/* "mesh, fibers, ..." */
static const char *section_list(char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    const char *prev = NULL;
    size_t prev_len = 0;
    for (int i = 0; i < hs_cfg_schema_len; ++i) {
        const hs_cfg_key *k = &hs_cfg_schema[i];
        if (is_stim(k)) continue;
        size_t sl = strcspn(k->path, ".");
        if (prev && sl == prev_len && strncmp(prev, k->path, sl) == 0) continue;
        int w = snprintf(buf + len, n - len, "%s%.*s", len ? ", " : "", (int)sl, k->path);
        if (w < 0 || (size_t)w >= n - len) break;
        len += (size_t)w;
        prev = k->path;
        prev_len = sl;
    }
    return buf;
}

/* Names of the keys of one section (or of a stimulus group when @p section is NULL). */
static const char *key_list(const char *section, char *buf, size_t n)
{
    size_t len = 0, sl = section ? strlen(section) : 0;
    buf[0] = '\0';
    for (int i = 0; i < hs_cfg_schema_len; ++i) {
        const hs_cfg_key *k = &hs_cfg_schema[i];
        int in = section ? !is_stim(k) && strncmp(k->path, section, sl) == 0 && k->path[sl] == '.'
                         : is_stim(k);
        if (!in) continue;
        int w = snprintf(buf + len, n - len, "%s%s", len ? ", " : "", leaf_of(k->path));
        if (w < 0 || (size_t)w >= n - len) break;
        len += (size_t)w;
    }
    return buf;
}

/* How stimulus key @p k serves a site of shape @p shape: 2 required, 1 allowed (keys of every shape,
 * and a shape's optional keys), 0 not allowed. */
static int shape_use(const hs_cfg_key *k, const char *shape)
{
    if (!k->shape) return 1;
    if (!strcmp(k->shape, shape)) return 2;
    return k->shape_opt && !strcmp(k->shape_opt, shape) ? 1 : 0;
}

/* The only optional shape keys are a surface site's center and radius (the restricting sphere):
 * they are in use when radius is not 0. */
static int stim_opt_used(const hs_stimulus_cfg *st) { return st->radius != 0.0; }

static void *slot_of(const hs_cfg_key *k, void *base) { return (char *)base + k->off; }
static const void *cslot_of(const hs_cfg_key *k, const void *base)
{
    return (const char *)base + k->off;
}

/* Shortest "%g" that reads back exactly, as a person writes it: no exponent for magnitudes from
 * 1e-4 to 1e16 (20, not 2e+01). */
static const char *fmt_num(double v, char *buf, size_t n)
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

/* fmt_num, always with a '.' or an exponent, so libconfig reads a float. */
static const char *fmt_double(double v, char *buf, size_t n)
{
    fmt_num(v, buf, n);
    if (!strpbrk(buf, ".eEni") && strlen(buf) + 2 < n) strcat(buf, ".0");
    return buf;
}

/* Units shown after a value in messages: real units only. */
static const char *unit_suffix(const hs_cfg_key *k, char *buf, size_t n)
{
    if (!k->unit || !strcmp(k->unit, "1") || !strcmp(k->unit, "-"))
        buf[0] = '\0';
    else
        snprintf(buf, n, " %s", k->unit);
    return buf;
}

/* "> 0", ">= 1", "in (0, 1)" ... ("" when unbounded). With @p in_word, a two-sided range reads
 * "in (a, b)", otherwise "(a, b)". */
static const char *fmt_range(const hs_cfg_key *k, int in_word, char *buf, size_t n)
{
    char a[32], b[32];
    int lo = k->flags & (HS_CFG_MIN_OPEN | HS_CFG_MIN_CLOSED);
    int hi = k->flags & (HS_CFG_MAX_OPEN | HS_CFG_MAX_CLOSED);
    fmt_num(k->min, a, sizeof a);
    fmt_num(k->max, b, sizeof b);
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

static int in_range(const hs_cfg_key *k, double v)
{
    if ((k->flags & HS_CFG_MIN_OPEN) && !(v > k->min)) return 0;
    if ((k->flags & HS_CFG_MIN_CLOSED) && !(v >= k->min)) return 0;
    if ((k->flags & HS_CFG_MAX_OPEN) && !(v < k->max)) return 0;
    if ((k->flags & HS_CFG_MAX_CLOSED) && !(v <= k->max)) return 0;
    return 1;
}

/* ============================================================================================ */
/* Defaults                                                                                     */
/* ============================================================================================ */

static void store_default(const hs_cfg_key *k, void *base)
{
    void *p = slot_of(k, base);
    switch (k->type) {
    case HS_CFG_FLOAT: *(double *)p = k->def_num; break;
    case HS_CFG_INT:
    case HS_CFG_BOOL: *(int *)p = (int)k->def_num; break;
    case HS_CFG_STRING: snprintf((char *)p, k->size, "%s", k->def_str ? k->def_str : ""); break;
    case HS_CFG_ENUM:
        if (k->size)
            snprintf((char *)p, k->size, "%s", k->def_str);
        else
            *(int *)p = choice_index(k->choices, k->def_str);
        break;
    case HS_CFG_VEC3: memcpy(p, k->def_vec, sizeof k->def_vec); break;
    case HS_CFG_STRLIST: {
        int bits = 0;
        char one[64];
        for (const char *s = k->def_str; s && *s;) {
            size_t len = strcspn(s, ",");
            snprintf(one, sizeof one, "%.*s", (int)len, s);
            int i = choice_index(k->choices, one);
            if (i >= 0) bits |= 1 << i;
            s += len + (s[len] == ',');
        }
        *(int *)p = bits;
        break;
    }
    case HS_CFG_GROUPLIST: break;
    }
}

static void stimulus_defaults(hs_stimulus_cfg *s)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < hs_cfg_schema_len; ++i)
        if (is_stim(&hs_cfg_schema[i])) store_default(&hs_cfg_schema[i], s);
}

void hs_config_defaults(hs_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    for (int i = 0; i < hs_cfg_schema_len; ++i)
        if (!is_stim(&hs_cfg_schema[i])) store_default(&hs_cfg_schema[i], cfg);
    cfg->n_stimuli = 0;
    for (int j = 0; j < HS_MAX_STIMULI; ++j) stimulus_defaults(&cfg->stimuli[j]);
}

/* ============================================================================================ */
/* Reading values from the tree                                                                 */
/* ============================================================================================ */

/* "a string ("abc")", "an integer (5)", "a group" ... */
static const char *describe(const config_setting_t *s, char *buf, size_t n)
{
    char num[32];
    switch (config_setting_type(s)) {
    case CONFIG_TYPE_INT:
    case CONFIG_TYPE_INT64:
        snprintf(buf, n, "an integer (%lld)", config_setting_get_int64(s));
        break;
    case CONFIG_TYPE_FLOAT:
        snprintf(buf, n, "a float (%s)", fmt_num(config_setting_get_float(s), num, sizeof num));
        break;
    case CONFIG_TYPE_STRING: {
        const char *v = config_setting_get_string(s);
        snprintf(buf, n, "a string (\"%.48s%s\")", v, strlen(v) > 48 ? "..." : "");
        break;
    }
    case CONFIG_TYPE_BOOL:
        snprintf(buf, n, "a boolean (%s)", config_setting_get_bool(s) ? "true" : "false");
        break;
    case CONFIG_TYPE_GROUP: snprintf(buf, n, "a group { ... }"); break;
    case CONFIG_TYPE_ARRAY: snprintf(buf, n, "an array [ ... ]"); break;
    case CONFIG_TYPE_LIST: snprintf(buf, n, "a list ( ... )"); break;
    default: snprintf(buf, n, "nothing"); break;
    }
    return buf;
}

/* Read setting @p s as key @p k (shown as @p shown) into @p base. Returns 1 when stored. */
static int read_value(load_ctx *x, const hs_cfg_key *k, const char *shown,
                      const config_setting_t *s, void *base, const origin *o)
{
    char d[128], list[256];
    void *p = slot_of(k, base);
    int t = config_setting_type(s);
    switch (k->type) {
    case HS_CFG_FLOAT:
        if (t == CONFIG_TYPE_FLOAT) {
            *(double *)p = config_setting_get_float(s);
            return 1;
        }
        if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64) {
            *(double *)p = (double)config_setting_get_int64(s);
            return 1;
        }
        report(x, o, "%s: expected a number, got %s", shown, describe(s, d, sizeof d));
        return 0;
    case HS_CFG_INT:
        if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64) {
            long long v = config_setting_get_int64(s);
            if (v < INT_MIN || v > INT_MAX) {
                report(x, o, "%s: %lld does not fit in an int", shown, v);
                return 0;
            }
            *(int *)p = (int)v;
            return 1;
        }
        report(x, o, "%s: expected an integer, got %s", shown, describe(s, d, sizeof d));
        return 0;
    case HS_CFG_BOOL:
        if (t == CONFIG_TYPE_BOOL) {
            *(int *)p = config_setting_get_bool(s) ? 1 : 0;
            return 1;
        }
        report(x, o, "%s: expected true or false, got %s", shown, describe(s, d, sizeof d));
        return 0;
    case HS_CFG_STRING:
    case HS_CFG_ENUM: {
        if (t != CONFIG_TYPE_STRING) {
            report(x, o, "%s: expected a string, got %s", shown, describe(s, d, sizeof d));
            return 0;
        }
        const char *v = config_setting_get_string(s);
        if (k->type == HS_CFG_ENUM) {
            int i = choice_index(k->choices, v);
            if (i < 0) {
                report(x, o, "%s: unknown value \"%s\"; allowed: %s", shown, v,
                       choices_list(k->choices, 1, list, sizeof list));
                return 0;
            }
            if (!k->size) {
                *(int *)p = i;
                return 1;
            }
        }
        if (strlen(v) >= k->size) {
            report(x, o, "%s: too long (%zu characters; at most %zu)", shown, strlen(v),
                   k->size - 1);
            return 0;
        }
        memcpy(p, v, strlen(v) + 1);
        return 1;
    }
    case HS_CFG_VEC3: {
        if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST) {
            report(x, o, "%s: expected 3 numbers [x, y, z], got %s", shown,
                   describe(s, d, sizeof d));
            return 0;
        }
        if (config_setting_length(s) != 3) {
            report(x, o, "%s: expected 3 numbers [x, y, z], got %d", shown,
                   config_setting_length(s));
            return 0;
        }
        double v[3];
        for (int i = 0; i < 3; ++i) {
            const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
            int te = config_setting_type(e);
            if (te == CONFIG_TYPE_FLOAT)
                v[i] = config_setting_get_float(e);
            else if (te == CONFIG_TYPE_INT || te == CONFIG_TYPE_INT64)
                v[i] = (double)config_setting_get_int64(e);
            else {
                report(x, o, "%s: element %d: expected a number, got %s", shown, i,
                       describe(e, d, sizeof d));
                return 0;
            }
        }
        memcpy(p, v, sizeof v);
        return 1;
    }
    case HS_CFG_STRLIST: {
        if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST) {
            report(x, o, "%s: expected a list of strings [\"a\", \"b\"], got %s", shown,
                   describe(s, d, sizeof d));
            return 0;
        }
        int bits = 0, ok = 1;
        for (int i = 0, n = config_setting_length(s); i < n; ++i) {
            const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
            if (config_setting_type(e) != CONFIG_TYPE_STRING) {
                report(x, o, "%s: element %d: expected a string, got %s", shown, i,
                       describe(e, d, sizeof d));
                ok = 0;
                continue;
            }
            const char *v = config_setting_get_string(e);
            int c = choice_index(k->choices, v);
            if (c < 0) {
                report(x, o, "%s: unknown value \"%s\"; allowed: %s", shown, v,
                       choices_list(k->choices, 1, list, sizeof list));
                ok = 0;
            } else if (bits & (1 << c)) {
                report(x, o, "%s: \"%s\" is listed twice", shown, v);
                ok = 0;
            }
            if (c >= 0) bits |= 1 << c;
        }
        if (ok) *(int *)p = bits;
        return ok;
    }
    case HS_CFG_GROUPLIST: break;
    }
    return 0;
}

static void unknown_key(load_ctx *x, const origin *o, const char *full, const char *section)
{
    const char *sug = suggest_key(full);
    char keys[1024];
    if (sug)
        report(x, o, "unknown key \"%s\"; did you mean \"%s\"?", full, sug);
    else if (section)
        report(x, o, "unknown key \"%s\"; %s has: %s", full, section,
               key_list(section, keys, sizeof keys));
    else
        report(x, o, "unknown key \"%s\"; sections are: %s", full,
               section_list(keys, sizeof keys));
}

static void walk_section(load_ctx *x, hs_config *cfg, const config_setting_t *sec)
{
    const char *sname = config_setting_name(sec);
    for (int i = 0, n = config_setting_length(sec); i < n; ++i) {
        const config_setting_t *s = config_setting_get_elem(sec, (unsigned)i);
        char full[256];
        snprintf(full, sizeof full, "%s.%s", sname, config_setting_name(s));
        origin o = origin_of(x, s);
        int k = key_index(full);
        if (k < 0 || hs_cfg_schema[k].type == HS_CFG_GROUPLIST) {
            unknown_key(x, &o, full, sname);
            continue;
        }
        if (read_value(x, &hs_cfg_schema[k], full, s, cfg, &o)) x->key[k] = o;
    }
}

static void walk_stimulus_group(load_ctx *x, hs_config *cfg, int j, const config_setting_t *g)
{
    hs_stimulus_cfg *st = &cfg->stimuli[j];
    origin *so = &x->stim[(size_t)j * (size_t)hs_cfg_schema_len];
    char shown[128], d[128];
    origin og = origin_of(x, g);
    x->stim_group[j] = og;
    stimulus_defaults(st);
    if (config_setting_type(g) != CONFIG_TYPE_GROUP) {
        report(x, &og, "stimulus.[%d]: expected a group { shape = \"box\"; ... }, got %s", j,
               describe(g, d, sizeof d));
        return;
    }
    int errs = x->n_err;
    for (int i = 0, n = config_setting_length(g); i < n; ++i) {
        const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
        const char *name = config_setting_name(s);
        origin o = origin_of(x, s);
        snprintf(shown, sizeof shown, "stimulus.[%d].%s", j, name);
        int k = stim_key_index(name);
        if (k < 0) {
            int best = -1, best_d = INT_MAX;
            for (int q = 0; q < hs_cfg_schema_len; ++q) {
                if (!is_stim(&hs_cfg_schema[q])) continue;
                int dd = osa_distance(name, leaf_of(hs_cfg_schema[q].path));
                if (dd < best_d) best_d = dd, best = q;
            }
            char keys[512];
            if (best >= 0 && close_enough(best_d, name) && best_d < (int)strlen(name))
                report(x, &o, "unknown key \"%s\"; did you mean \"stimulus.[%d].%s\"?", shown, j,
                       leaf_of(hs_cfg_schema[best].path));
            else
                report(x, &o, "unknown key \"%s\"; a stimulus has: %s", shown,
                       key_list(NULL, keys, sizeof keys));
            continue;
        }
        if (read_value(x, &hs_cfg_schema[k], shown, s, st, &o)) so[k] = o;
    }
    if (x->n_err != errs) return; /* the shape itself may be what is wrong */

    /* Keys of some shapes only: required (or optional) for them, refused for the others. */
    char shape[32];
    int ks = stim_key_index("shape");
    choice_at(hs_cfg_schema[ks].choices, (int)st->shape, shape, sizeof shape);
    for (int k = 0; k < hs_cfg_schema_len; ++k) {
        const hs_cfg_key *key = &hs_cfg_schema[k];
        if (!is_stim(key) || !key->shape) continue;
        const char *leaf = leaf_of(key->path);
        int use = shape_use(key, shape);
        if (use == 0 && so[k].set) {
            char also[64] = "";
            if (key->shape_opt) snprintf(also, sizeof also, " or \"%s\"", key->shape_opt);
            report(x, &so[k], "stimulus.[%d].%s is only used by shape = \"%s\"%s; this one is \"%s\"",
                   j, leaf, key->shape, also, shape);
        } else if (use == 2 && !so[k].set) {
            report(x, &og, "stimulus.[%d]: missing key \"%s\" (required for shape = \"%s\")", j,
                   leaf, shape);
        }
    }
    /* a surface site's restricting sphere needs both of its keys */
    int kc = stim_key_index("center"), kr = stim_key_index("radius");
    if (st->shape == HS_STIM_SURFACE && so[kc].set != so[kr].set)
        report(x, so[kc].set ? &so[kc] : &so[kr],
               "stimulus.[%d]: %s without %s; a surface site is restricted to a sphere by both center and "
               "radius (or neither: the whole labelled surface)", j, so[kc].set ? "center" : "radius",
               so[kc].set ? "radius" : "center");
}

static void walk_stimulus(load_ctx *x, hs_config *cfg, const config_setting_t *s, int k)
{
    origin o = origin_of(x, s);
    char d[128];
    int t = config_setting_type(s);
    x->key[k] = o;
    if (t == CONFIG_TYPE_ARRAY && config_setting_length(s) == 0) {
        cfg->n_stimuli = 0; /* "stimulus = [];" */
        return;
    }
    if (t != CONFIG_TYPE_LIST) {
        report(x, &o,
               "stimulus: expected a list of groups ( { ... }, { ... } ), got %s%s",
               describe(s, d, sizeof d),
               t == CONFIG_TYPE_GROUP ? "; wrap it in parentheses: stimulus = ( { ... } );" : "");
        return;
    }
    int n = config_setting_length(s);
    if (n > HS_MAX_STIMULI) {
        report(x, &o, "stimulus: %d entries; at most %d", n, HS_MAX_STIMULI);
        return;
    }
    for (int j = 0; j < n; ++j)
        walk_stimulus_group(x, cfg, j, config_setting_get_elem(s, (unsigned)j));
    cfg->n_stimuli = n;
}

static void walk_root(load_ctx *x, hs_config *cfg, const config_setting_t *root)
{
    char d[128], buf[512];
    for (int i = 0, n = config_setting_length(root); i < n; ++i) {
        const config_setting_t *s = config_setting_get_elem(root, (unsigned)i);
        const char *name = config_setting_name(s);
        origin o = origin_of(x, s);
        int k = key_index(name);
        if (k >= 0 && hs_cfg_schema[k].type == HS_CFG_GROUPLIST) {
            walk_stimulus(x, cfg, s, k);
        } else if (is_section(name)) {
            if (config_setting_type(s) != CONFIG_TYPE_GROUP)
                report(x, &o, "%s: expected a group { ... }, got %s", name, describe(s, d, sizeof d));
            else
                walk_section(x, cfg, s);
        } else if (config_setting_type(s) == CONFIG_TYPE_GROUP) {
            char sec[64];
            if (suggest_section(name, sec, sizeof sec))
                report(x, &o, "unknown section \"%s\"; did you mean \"%s\"?", name, sec);
            else
                report(x, &o, "unknown section \"%s\"; sections are: %s", name,
                       section_list(buf, sizeof buf));
        } else {
            unknown_key(x, &o, name, NULL);
        }
    }
}

/* ============================================================================================ */
/* Overrides: "--set key=value"                                                                 */
/* ============================================================================================ */

typedef struct path_seg {
    char name[NAME_MAX_LEN]; /* "" for an index */
    int index;               /* -1 for a name */
} path_seg;

static int valid_name(const char *s)
{
    /* libconfig: [A-Za-z*][-A-Za-z0-9_*]* */
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '*')) return 0;
    for (++s; *s; ++s)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '-' || *s == '_' || *s == '*'))
            return 0;
    return 1;
}

/* Split "stimulus.[0].start" (or "stimulus[0].start") into segments; -1 and a message on error. */
static int parse_path(const char *key, path_seg *seg, char *err, size_t errn)
{
    int n = 0;
    const char *p = key;
    if (!*p) {
        snprintf(err, errn, "empty key");
        return -1;
    }
    while (*p) {
        if (n == MAX_SEGMENTS) {
            snprintf(err, errn, "key has more than %d components", MAX_SEGMENTS);
            return -1;
        }
        if (*p == '[') {
            char *end;
            errno = 0;
            long v = strtol(p + 1, &end, 10);
            if (end == p + 1 || *end != ']' || v < 0 || v > INT_MAX || p[1] == '-' || p[1] == '+') {
                snprintf(err, errn, "bad index in \"%.200s\" (write [0], [1], ...)", key);
                return -1;
            }
            seg[n].name[0] = '\0';
            seg[n].index = (int)v;
            p = end + 1;
        } else {
            size_t len = strcspn(p, ".[");
            if (len == 0 || len >= NAME_MAX_LEN) {
                snprintf(err, errn, "empty or too long component in \"%.200s\"", key);
                return -1;
            }
            memcpy(seg[n].name, p, len);
            seg[n].name[len] = '\0';
            seg[n].index = -1;
            if (!valid_name(seg[n].name)) {
                snprintf(err, errn, "\"%.127s\" is not a valid key name", seg[n].name);
                return -1;
            }
            p += len;
        }
        ++n;
        if (*p == '.') {
            ++p;
            if (!*p) {
                snprintf(err, errn, "key ends with '.'");
                return -1;
            }
        } else if (*p && *p != '[') {
            snprintf(err, errn, "unexpected '%c' in \"%.200s\"", *p, key);
            return -1;
        }
    }
    return n;
}

/* "a.b.[0]" from the first @p n segments; with @p generic, indices read "[i]" (schema form). */
static const char *join_path(const path_seg *seg, int n, int generic, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < n; ++i) {
        int w;
        if (seg[i].index >= 0 && generic)
            w = snprintf(buf + len, cap - len, "%s[i]", i ? "." : "");
        else if (seg[i].index >= 0)
            w = snprintf(buf + len, cap - len, "%s[%d]", i ? "." : "", seg[i].index);
        else
            w = snprintf(buf + len, cap - len, "%s%s", i ? "." : "", seg[i].name);
        if (w < 0 || (size_t)w >= cap - len) break;
        len += (size_t)w;
    }
    return buf;
}

/* Deep-copy @p src under @p parent (named @p name in a group), marking every copy with @p hook. */
static config_setting_t *copy_setting(config_setting_t *parent, const char *name,
                                      const config_setting_t *src, void *hook)
{
    int t = config_setting_type(src);
    config_setting_t *d = config_setting_add(parent, name, t);
    if (!d) return NULL;
    config_setting_set_hook(d, hook);
    switch (t) {
    case CONFIG_TYPE_INT: config_setting_set_int(d, config_setting_get_int(src)); break;
    case CONFIG_TYPE_INT64: config_setting_set_int64(d, config_setting_get_int64(src)); break;
    case CONFIG_TYPE_FLOAT: config_setting_set_float(d, config_setting_get_float(src)); break;
    case CONFIG_TYPE_BOOL: config_setting_set_bool(d, config_setting_get_bool(src)); break;
    case CONFIG_TYPE_STRING: config_setting_set_string(d, config_setting_get_string(src)); break;
    case CONFIG_TYPE_GROUP:
    case CONFIG_TYPE_ARRAY:
    case CONFIG_TYPE_LIST:
        for (int i = 0, n = config_setting_length(src); i < n; ++i) {
            const config_setting_t *e = config_setting_get_elem(src, (unsigned)i);
            if (!copy_setting(d, t == CONFIG_TYPE_GROUP ? config_setting_name(e) : NULL, e, hook))
                return NULL;
        }
        break;
    default: break;
    }
    return d;
}

static const char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') ++s;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n')) s[--n] = '\0';
    return s;
}

/* Parse @p v as a libconfig value into "v" of @p vt (initialised). Unquoted text that libconfig
 * cannot parse is taken as a bare string; for a string key unquoted text is always a string
 * (`output.prefix=2024`); for a string-list key, bare comma-separated words are a list
 * (`output.fields=phi,V` or `[phi,V]`). Returns the setting, or NULL with @p err filled. */
static config_setting_t *parse_value(const char *v, const hs_cfg_key *k, config_t *vt, char *err,
                                     size_t errn)
{
    size_t n = strlen(v);
    char *text = malloc(n + 8);
    if (!text) {
        snprintf(err, errn, "out of memory");
        return NULL;
    }
    snprintf(text, n + 8, "v = %s\n;", v);
    int ok = config_read_string(vt, text);
    free(text);
    config_setting_t *root = config_root_setting(vt);
    config_setting_t *s = ok ? config_setting_get_member(root, "v") : NULL;
    if (s && config_setting_length(root) != 1) s = NULL, ok = 0;
    int is_list_key = k && k->type == HS_CFG_STRLIST;
    int is_string_key = k && (k->type == HS_CFG_STRING || k->type == HS_CFG_ENUM);
    if (s && is_string_key && v[0] != '"' && config_setting_type(s) != CONFIG_TYPE_STRING) s = NULL;
    if (s && is_list_key && config_setting_type(s) == CONFIG_TYPE_STRING) s = NULL;
    if (s) return s;
    if (!ok && !is_list_key && strchr("[({\"", v[0]) && v[0]) {
        snprintf(err, errn, "cannot parse value: %s",
                 config_error_text(vt) ? config_error_text(vt) : "more than one value");
        return NULL;
    }
    config_destroy(vt);
    config_init(vt);
    root = config_root_setting(vt);
    if (is_list_key) { /* bare words: phi,V or [phi, V] or "phi" */
        s = config_setting_add(root, "v", CONFIG_TYPE_ARRAY);
        char *buf = malloc(n + 1);
        if (!s || !buf) {
            free(buf);
            snprintf(err, errn, "out of memory");
            return NULL;
        }
        memcpy(buf, v, n + 1);
        char *b = buf;
        size_t bl = strlen(b);
        if (bl >= 2 && ((b[0] == '[' && b[bl - 1] == ']') || (b[0] == '(' && b[bl - 1] == ')'))) {
            b[bl - 1] = '\0';
            ++b;
        }
        for (char *tok = b; tok;) {
            char *comma = strchr(tok, ',');
            if (comma) *comma = '\0';
            char *w = (char *)trim(tok);
            size_t wl = strlen(w);
            if (wl >= 2 && w[0] == '"' && w[wl - 1] == '"') {
                w[wl - 1] = '\0';
                ++w;
            }
            if (*w || comma) {
                config_setting_t *e = config_setting_add(s, NULL, CONFIG_TYPE_STRING);
                if (e) config_setting_set_string(e, w);
            }
            tok = comma ? comma + 1 : NULL;
        }
        free(buf);
        return s;
    }
    s = config_setting_add(root, "v", CONFIG_TYPE_STRING);
    if (s) config_setting_set_string(s, v);
    return s;
}

/* Apply one override onto the tree; errors are reported (as `--set TEXT: ...`). */
static void apply_override(load_ctx *x, config_t *c, const char *text)
{
    origin o = {.set = 1, .override = text};
    void *hook = (void *)text; /* only read back, as the override's text */
    const char *eq = strchr(text, '=');
    if (!eq) {
        report(x, &o, "expected key=value");
        return;
    }
    size_t kl = (size_t)(eq - text);
    char *buf = malloc(strlen(text) + 1);
    if (!buf) {
        report(x, &o, "out of memory");
        return;
    }
    memcpy(buf, text, strlen(text) + 1);
    buf[kl] = '\0';
    const char *key = trim(buf), *val = trim(buf + kl + 1);

    path_seg seg[MAX_SEGMENTS];
    char err[512], shown[512], generic[512];
    config_t vt;
    config_init(&vt);
    int n = parse_path(key, seg, err, sizeof err);
    if (n < 0) {
        report(x, &o, "%s", err);
        goto done;
    }
    join_path(seg, n, 1, generic, sizeof generic);
    int ki = -1;
    for (int i = 0; i < hs_cfg_schema_len; ++i)
        if (!strcmp(hs_cfg_schema[i].path, generic)) ki = i;
    const config_setting_t *v = parse_value(val, ki >= 0 ? &hs_cfg_schema[ki] : NULL, &vt, err,
                                            sizeof err);
    if (!v) {
        report(x, &o, "%s", err);
        goto done;
    }

    /* Walk down, creating missing groups (a list when an index follows). */
    config_setting_t *cur = config_root_setting(c);
    for (int i = 0; i < n; ++i) {
        int last = i == n - 1;
        join_path(seg, i, 0, shown, sizeof shown); /* the parent */
        int t = config_setting_type(cur);
        if (seg[i].index < 0) {
            if (t != CONFIG_TYPE_GROUP) {
                report(x, &o, "%s is not a group, so it has no key \"%s\"", shown, seg[i].name);
                goto done;
            }
            config_setting_t *next = config_setting_get_member(cur, seg[i].name);
            if (last) {
                if (next) config_setting_remove(cur, seg[i].name);
                if (!copy_setting(cur, seg[i].name, v, hook))
                    report(x, &o, "cannot set %s", key);
                goto done;
            }
            if (!next) {
                int nt = seg[i + 1].index >= 0 ? CONFIG_TYPE_LIST : CONFIG_TYPE_GROUP;
                next = config_setting_add(cur, seg[i].name, nt);
                if (!next) {
                    report(x, &o, "cannot create %s", seg[i].name);
                    goto done;
                }
                config_setting_set_hook(next, hook);
            }
            cur = next;
        } else {
            int len = config_setting_length(cur);
            if (t != CONFIG_TYPE_LIST && t != CONFIG_TYPE_ARRAY) {
                report(x, &o, "%s is not a list, so it has no entry [%d]", shown, seg[i].index);
                goto done;
            }
            if (seg[i].index < len && !last) {
                cur = config_setting_get_elem(cur, (unsigned)seg[i].index);
                continue;
            }
            if (seg[i].index < len) {
                report(x, &o, "replacing a whole entry is not supported; set its keys "
                              "(%s.[%d].name=...) or the whole %s", shown, seg[i].index, shown);
                goto done;
            }
            if (seg[i].index > len || t != CONFIG_TYPE_LIST) {
                report(x, &o, "%s has %d entr%s; [%d] does not exist (entries count from 0; "
                              "[%d] appends one)", shown, len, len == 1 ? "y" : "ies",
                       seg[i].index, len);
                goto done;
            }
            if (last) { /* append a whole entry */
                if (!copy_setting(cur, NULL, v, hook)) report(x, &o, "cannot append to %s", shown);
                goto done;
            }
            config_setting_t *next = config_setting_add(cur, NULL, CONFIG_TYPE_GROUP);
            if (!next) {
                report(x, &o, "cannot append to %s", shown);
                goto done;
            }
            config_setting_set_hook(next, hook);
            cur = next;
        }
    }
done:
    config_destroy(&vt);
    free(buf);
}

/* ============================================================================================ */
/* Validation: ranges and cross-key constraints                                                 */
/* ============================================================================================ */

static const origin *origin_key(const load_ctx *x, const char *path)
{
    int k = key_index(path);
    return x->key && k >= 0 && x->key[k].set ? &x->key[k] : NULL;
}

/* The first of the keys (NULL-terminated) that was set, for a constraint between keys. */
static const origin *origin_any(const load_ctx *x, const char *first, ...)
{
    const origin *o = NULL;
    va_list ap;
    va_start(ap, first);
    for (const char *p = first; p && !o; p = va_arg(ap, const char *)) o = origin_key(x, p);
    va_end(ap);
    return o;
}

/* Check one stored value against its key's type and range. */
static void check_value(load_ctx *x, const hs_cfg_key *k, const char *shown, const void *base,
                        const origin *o)
{
    const void *p = cslot_of(k, base);
    char num[32], rng[96], u[32], list[256];
    switch (k->type) {
    case HS_CFG_FLOAT: {
        double v = *(const double *)p;
        if (!isfinite(v))
            report(x, o, "%s = %g is not a finite number", shown, v);
        else if (!in_range(k, v))
            report(x, o, "%s = %s%s is out of range: must be %s", shown, fmt_num(v, num, sizeof num),
                   unit_suffix(k, u, sizeof u), fmt_range(k, 1, rng, sizeof rng));
        break;
    }
    case HS_CFG_INT: {
        int v = *(const int *)p;
        if (!in_range(k, v))
            report(x, o, "%s = %d%s is out of range: must be %s", shown, v,
                   unit_suffix(k, u, sizeof u), fmt_range(k, 1, rng, sizeof rng));
        break;
    }
    case HS_CFG_BOOL:
        if (*(const int *)p != 0 && *(const int *)p != 1)
            report(x, o, "%s = %d: must be true (1) or false (0)", shown, *(const int *)p);
        break;
    case HS_CFG_STRING:
    case HS_CFG_ENUM: {
        if (k->type == HS_CFG_ENUM && !k->size) {
            int v = *(const int *)p;
            if (v < 0 || v >= choice_count(k->choices))
                report(x, o, "%s: invalid choice index %d; allowed: %s", shown, v,
                       choices_list(k->choices, 1, list, sizeof list));
            break;
        }
        const char *s = (const char *)p;
        if (!memchr(s, '\0', k->size)) {
            report(x, o, "%s: not a terminated string", shown);
            break;
        }
        if (k->type == HS_CFG_ENUM && choice_index(k->choices, s) < 0)
            report(x, o, "%s: unknown value \"%s\"; allowed: %s", shown, s,
                   choices_list(k->choices, 1, list, sizeof list));
        if ((k->flags & HS_CFG_NONEMPTY) && !s[0]) report(x, o, "%s: must not be empty", shown);
        if (k->flags & HS_CFG_FILENAME) {
            for (const char *c = s; *c; ++c) {
                if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
                      (*c >= '0' && *c <= '9') || *c == '_' || *c == '.' || *c == '-')) {
                    report(x, o, "%s = \"%s\": only letters, digits, '_', '.' and '-' are allowed",
                           shown, s);
                    break;
                }
            }
        }
        break;
    }
    case HS_CFG_VEC3: {
        const double *v = (const double *)p;
        if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2]))
            report(x, o, "%s: components must be finite numbers", shown);
        else if ((k->flags & HS_CFG_NONZERO) && v[0] == 0.0 && v[1] == 0.0 && v[2] == 0.0)
            report(x, o, "%s = [0, 0, 0]: must not be the zero vector", shown);
        break;
    }
    case HS_CFG_STRLIST: {
        int v = *(const int *)p, all = (1 << choice_count(k->choices)) - 1;
        if (v & ~all) report(x, o, "%s: invalid bits 0x%x", shown, (unsigned)(v & ~all));
        break;
    }
    case HS_CFG_GROUPLIST: break;
    }
}

/* Can @p path be opened for reading? 0, or errno. */
static int readable(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0) return errno;
    if (S_ISDIR(sb.st_mode)) return EISDIR;
    FILE *f = fopen(path, "r");
    if (!f) return errno;
    fclose(f);
    return 0;
}

/* mesh.file of a source that reads files: present and readable. */
static void check_mesh_file(load_ctx *x, const hs_config *cfg)
{
    const char *src = cfg->mesh_source;
    const origin *of = origin_key(x, "mesh.file");
    if (!cfg->mesh_file[0]) {
        static const char *const what[3][2] = {
            {"tetgen", "the TetGen prefix: PREFIX.node and PREFIX.ele are read"},
            {"file", "a volume mesh: .vtk, .msh, .pts/.elem (openCARP), .node/.ele"},
            {"surface", "a closed surface: .stl, .off, .ply, .poly, .smesh"}};
        for (int i = 0; i < 3; ++i)
            if (!strcmp(src, what[i][0]))
                report(x, origin_any(x, "mesh.source", NULL), "mesh.source = \"%s\" needs mesh.file (%s)", src,
                       what[i][1]);
        return;
    }
    if (!strcmp(src, "tetgen")) {
        static const char *const ext[2] = {".node", ".ele"};
        for (int e = 0; e < 2; ++e) {
            char f[HS_PATH_MAX + 8];
            snprintf(f, sizeof f, "%s%s", cfg->mesh_file, ext[e]);
            int er = readable(f);
            if (er) report(x, of, "mesh.file: cannot read \"%s\": %s", f, strerror(er));
        }
        return;
    }
    int er = readable(cfg->mesh_file);
    if (er && !strcmp(src, "file")) {
        /* a prefix names an openCARP (PREFIX.elem) or TetGen (PREFIX.ele) mesh */
        char f[HS_PATH_MAX + 8];
        snprintf(f, sizeof f, "%s.elem", cfg->mesh_file);
        int e1 = readable(f);
        snprintf(f, sizeof f, "%s.ele", cfg->mesh_file);
        if (e1 == 0 || readable(f) == 0) er = 0;
    }
    if (er) report(x, of, "mesh.file: cannot read \"%s\": %s", cfg->mesh_file, strerror(er));
}

static void validate_mesh(load_ctx *x, const hs_config *cfg)
{
    char a[32], b[32];
    const char *src = cfg->mesh_source;
    int from_file = !strcmp(src, "tetgen") || !strcmp(src, "file") || !strcmp(src, "surface");
    if (from_file && memchr(cfg->mesh_file, '\0', sizeof cfg->mesh_file)) check_mesh_file(x, cfg);
    if (!from_file && cfg->mesh_scale != 1.0 && isfinite(cfg->mesh_scale))
        report(x, origin_any(x, "mesh.scale", "mesh.source", NULL),
               "mesh.scale = %s applies to meshes read from files (mesh.source = \"tetgen\", \"file\" or "
               "\"surface\"); the %s mesh is built in mm from its own size keys",
               fmt_num(cfg->mesh_scale, a, sizeof a), src);
    if (!strcmp(src, "ellipsoid_lv")) {
        const hs_lv_params *p = &cfg->lv;
        if (p->rs_epi <= p->rs_endo)
            report(x, origin_any(x, "mesh.lv_epi_short", "mesh.lv_endo_short", NULL),
                   "mesh.lv_epi_short = %s mm must be larger than mesh.lv_endo_short = %s mm (the wall needs a "
                   "thickness)", fmt_num(p->rs_epi, a, sizeof a), fmt_num(p->rs_endo, b, sizeof b));
        if (p->rl_epi <= p->rl_endo)
            report(x, origin_any(x, "mesh.lv_epi_long", "mesh.lv_endo_long", NULL),
                   "mesh.lv_epi_long = %s mm must be larger than mesh.lv_endo_long = %s mm (the wall needs a "
                   "thickness)", fmt_num(p->rl_epi, a, sizeof a), fmt_num(p->rl_endo, b, sizeof b));
        if (!(fabs(p->z_base) < p->rl_endo))
            report(x, origin_any(x, "mesh.lv_base_z", "mesh.lv_endo_long", NULL),
                   "mesh.lv_base_z = %s mm must lie strictly between -mesh.lv_endo_long and mesh.lv_endo_long "
                   "(+-%s mm), so that the base plane opens the cavity", fmt_num(p->z_base, a, sizeof a),
                   fmt_num(p->rl_endo, b, sizeof b));
    }
}

static void validate_fibers(load_ctx *x, const hs_config *cfg)
{
    const char *t = cfg->fiber_type, *src = cfg->mesh_source;
    if (!memchr(cfg->fiber_file, '\0', sizeof cfg->fiber_file)) return;
    if (!strcmp(t, "ellipsoid") && strcmp(src, "ellipsoid_lv") != 0)
        report(x, origin_any(x, "fibers.type", "mesh.source", NULL),
               "fibers.type = \"ellipsoid\" is the rule of the built-in ventricle and needs mesh.source = "
               "\"ellipsoid_lv\" (this one is \"%s\"); for other meshes use \"constant\" or \"file\"", src);
    if (!strcmp(t, "mesh") && strcmp(src, "file") != 0)
        report(x, origin_any(x, "fibers.type", "mesh.source", NULL),
               "fibers.type = \"mesh\" keeps the fibres stored in mesh.file and needs mesh.source = \"file\" "
               "(this one is \"%s\")", src);
    if (!strcmp(t, "file")) {
        if (!cfg->fiber_file[0]) {
            report(x, origin_any(x, "fibers.type", NULL),
                   "fibers.type = \"file\" needs fibers.file (3 numbers per line, per element or per node)");
        } else {
            int er = readable(cfg->fiber_file);
            if (er)
                report(x, origin_any(x, "fibers.file", NULL), "fibers.file: cannot read \"%s\": %s",
                       cfg->fiber_file, strerror(er));
        }
    } else if (cfg->fiber_file[0]) {
        report(x, origin_any(x, "fibers.file", NULL),
               "fibers.file is only read with fibers.type = \"file\" (this one is \"%s\")", t);
    }
}

static void validate_all(load_ctx *x, const hs_config *cfg)
{
    char shown[128], a[32], b[32];
    int len = hs_cfg_schema_len;

    for (int k = 0; k < len; ++k) {
        const hs_cfg_key *key = &hs_cfg_schema[k];
        if (is_stim(key) || key->type == HS_CFG_GROUPLIST) continue;
        check_value(x, key, key->path, cfg, origin_key(x, key->path));
    }

    /* stimuli */
    if (cfg->n_stimuli < 0 || cfg->n_stimuli > HS_MAX_STIMULI)
        report(x, origin_key(x, "stimulus"), "stimulus: %d entries; must be 0 to %d",
               cfg->n_stimuli, HS_MAX_STIMULI);
    int ks = stim_key_index("shape");
    for (int j = 0; j < cfg->n_stimuli && j < HS_MAX_STIMULI; ++j) {
        const hs_stimulus_cfg *st = &cfg->stimuli[j];
        const origin *og = x->stim ? &x->stim_group[j] : NULL;
        char shape[32];
        choice_at(hs_cfg_schema[ks].choices, (int)st->shape, shape, sizeof shape);
        for (int k = 0; k < len; ++k) {
            const hs_cfg_key *key = &hs_cfg_schema[k];
            if (!is_stim(key)) continue;
            int use = shape_use(key, shape);
            if (use == 0 || (use == 1 && key->shape && !stim_opt_used(st))) continue;
            const origin *o = x->stim && x->stim[(size_t)j * (size_t)len + (size_t)k].set
                                  ? &x->stim[(size_t)j * (size_t)len + (size_t)k]
                                  : og;
            snprintf(shown, sizeof shown, "stimulus.[%d].%s", j, leaf_of(key->path));
            check_value(x, key, shown, st, o);
        }
        if (st->shape == HS_STIM_SURFACE && st->radius < 0.0)
            report(x, og, "stimulus.[%d].radius = %s mm is out of range: must be > 0 (or 0 for the whole "
                          "labelled surface)", j, fmt_num(st->radius, a, sizeof a));
        if (st->shape == HS_STIM_NODES && st->file[0] && memchr(st->file, '\0', sizeof st->file)) {
            int er = readable(st->file);
            int kf = stim_key_index("file");
            const origin *of = x->stim && x->stim[(size_t)j * (size_t)len + (size_t)kf].set
                                   ? &x->stim[(size_t)j * (size_t)len + (size_t)kf]
                                   : og;
            if (er) report(x, of, "stimulus.[%d].file: cannot read \"%s\": %s", j, st->file, strerror(er));
        }
        if (st->shape == HS_STIM_BOX) {
            static const char axis[3] = {'x', 'y', 'z'};
            for (int d = 0; d < 3; ++d) {
                if (!(st->min[d] < st->max[d])) {
                    report(x, og, "stimulus.[%d]: box min must be < max on every axis; on %c: "
                                  "min %s >= max %s mm", j, axis[d],
                           fmt_num(st->min[d], a, sizeof a), fmt_num(st->max[d], b, sizeof b));
                    break;
                }
            }
        }
    }

    /* time */
    if (cfg->dt > 0 && cfg->t_end > 0 && cfg->t_end < cfg->dt)
        report(x, origin_any(x, "time.t_end", "time.dt", NULL),
               "time.t_end = %s ms is smaller than time.dt = %s ms: must be >= time.dt",
               fmt_num(cfg->t_end, a, sizeof a), fmt_num(cfg->dt, b, sizeof b));
    hs_ap_params p = {cfg->c, cfg->alpha, cfg->gamma, cfg->b, cfg->mu1, cfg->mu2, cfg->recovery};
    double dt_max = hs_ap_dt_max(&p) * cfg->time_unit;
    if (cfg->dt > 0 && isfinite(dt_max) && cfg->dt >= dt_max) {
        /* the shortest rounding of dt_max that is still a safe bound (<= dt_max) */
        /* 3 significant digits, rounded down so that every dt below the printed bound works */
        double q = pow(10.0, floor(log10(dt_max)) - 2.0);
        snprintf(b, sizeof b, "%.3g", dt_max);
        if (strtod(b, NULL) > dt_max) snprintf(b, sizeof b, "%.3g", floor(dt_max / q) * q);
        report(x, origin_any(x, "time.dt", "model.c", "model.alpha", "model.time_unit", NULL),
               "time.dt = %s ms makes the Newton tangent indefinite (1/dt - max df_phi/dphi <= 0): "
               "must be < %s ms for these model parameters",
               fmt_num(cfg->dt, a, sizeof a), b);
    }

    /* output */
    if (cfg->output_enabled && cfg->out_interval > 0 && cfg->dt > 0 &&
        cfg->out_interval < cfg->dt)
        report(x, origin_any(x, "output.interval", "time.dt", NULL),
               "output.interval = %s ms is smaller than time.dt = %s ms: must be >= time.dt",
               fmt_num(cfg->out_interval, a, sizeof a), fmt_num(cfg->dt, b, sizeof b));

    /* spmv tunables */
    if (cfg->spmv_params.block_size % 32 != 0 || cfg->spmv_params.block_size > 1024)
        report(x, origin_key(x, "spmv.block_size"),
               "spmv.block_size = %d is not a multiple of 32 in [32, 1024] (a whole number of warps per block)",
               cfg->spmv_params.block_size);

    /* solver */
    if (cfg->spmv[0] && memchr(cfg->spmv, '\0', sizeof cfg->spmv) && strcmp(cfg->spmv, "auto") != 0) {
        const hs_spmv_ops *ops = hs_spmv_find(cfg->spmv);
        if (!ops)
            report(x, origin_key(x, "solver.spmv"), "solver.spmv: unknown kernel \"%s\"; available: auto, %s",
                   cfg->spmv, hs_spmv_names());
        else if (ops->needs_device && !strcmp(cfg->backend, "cpu"))
            report(x, origin_any(x, "solver.spmv", "solver.backend", NULL),
                   "solver.spmv: kernel \"%s\" runs only on the cuda backend, but solver.backend = "
                   "\"cpu\"", cfg->spmv);
    }

    validate_mesh(x, cfg);
    validate_fibers(x, cfg);
}

hs_status hs_config_validate(const hs_config *cfg)
{
    HS_CHECK(cfg, HS_ERR_INTERNAL, "hs_config_validate: cfg is NULL");
    load_ctx x;
    memset(&x, 0, sizeof x);
    x.path = memchr(cfg->path, '\0', sizeof cfg->path) ? cfg->path : "";
    validate_all(&x, cfg);
    return finish(&x);
}

/* ============================================================================================ */
/* Loading                                                                                      */
/* ============================================================================================ */

/* Absolute directory of @p path (the cwd joined when relative). 0 on success. */
static int abs_dir(const char *path, char *out, size_t n)
{
    char cwd[HS_PATH_MAX];
    const char *slash = path ? strrchr(path, '/') : NULL;
    size_t dl = slash ? (size_t)(slash - path) : 0;
    if (slash && dl == 0) dl = 1; /* "/x.cfg" */
    if (path && path[0] == '/') {
        if (dl >= n) return -1;
        memcpy(out, path, dl);
        out[dl] = '\0';
        return 0;
    }
    if (!getcwd(cwd, sizeof cwd)) return -1;
    int w = slash ? snprintf(out, n, "%s/%.*s", cwd, (int)dl, path) : snprintf(out, n, "%s", cwd);
    return w < 0 || (size_t)w >= n ? -1 : 0;
}

/* Make a CONFIG_PATH value absolute: relative to the config file's directory when it came from
 * the file, to the cwd when it came from --set, so the printed configuration loads the same files
 * from anywhere. @p shown names the key in messages. */
static void resolve_path(load_ctx *x, const origin *o, const char *shown, char *f, size_t size)
{
    if (!f[0] || f[0] == '/') return;
    char base[HS_PATH_MAX], joined[2 * HS_PATH_MAX + 2];
    if (o && o->override) {
        if (abs_dir(NULL, base, sizeof base)) {
            report(x, o, "%s: cannot get the current directory: %s", shown, strerror(errno));
            return;
        }
    } else {
        snprintf(base, sizeof base, "%s", x->dir);
    }
    const char *rel = f;
    while (rel[0] == '.' && rel[1] == '/') rel += 2;
    snprintf(joined, sizeof joined, "%s/%s", base, rel);
    if (strlen(joined) >= size) {
        report(x, o, "%s: resolved path \"%s\" is too long", shown, joined);
        return;
    }
    memcpy(f, joined, strlen(joined) + 1);
}

/* mesh.file (a TetGen prefix loses a ".node"/".ele" suffix), fibers.file, stimulus.[i].file. */
static void resolve_paths(load_ctx *x, hs_config *cfg)
{
    char *f = cfg->mesh_file;
    size_t n = strlen(f);
    if (!strcmp(cfg->mesh_source, "tetgen")) {
        if (n > 5 && !strcmp(f + n - 5, ".node")) f[n - 5] = '\0';
        else if (n > 4 && !strcmp(f + n - 4, ".ele")) f[n - 4] = '\0';
    }
    resolve_path(x, origin_key(x, "mesh.file"), "mesh.file", cfg->mesh_file, sizeof cfg->mesh_file);
    resolve_path(x, origin_key(x, "fibers.file"), "fibers.file", cfg->fiber_file, sizeof cfg->fiber_file);
    int kf = stim_key_index("file");
    for (int j = 0; j < cfg->n_stimuli && j < HS_MAX_STIMULI; ++j) {
        if (cfg->stimuli[j].shape != HS_STIM_NODES) continue;
        const origin *o = &x->stim[(size_t)j * (size_t)hs_cfg_schema_len + (size_t)kf];
        char shown[64];
        snprintf(shown, sizeof shown, "stimulus.[%d].file", j);
        resolve_path(x, o->set ? o : &x->stim_group[j], shown, cfg->stimuli[j].file, sizeof cfg->stimuli[j].file);
    }
}

hs_status hs_config_load(const char *path, const char *const *overrides, int n_overrides,
                         hs_config *cfg)
{
    HS_CHECK(cfg, HS_ERR_INTERNAL, "hs_config_load: cfg is NULL");
    HS_CHECK(n_overrides >= 0 && (n_overrides == 0 || overrides), HS_ERR_INTERNAL,
             "hs_config_load: bad overrides (%d)", n_overrides);
    hs_config_defaults(cfg);
    hs_status st = HS_OK;
    load_ctx *x = NULL;
    config_t c;
    config_init(&c);

    HS_CALL_GOTO(HS_ALLOC(x, 1, "config loader state"), done);
    HS_CALL_GOTO(HS_ALLOC(x->key, hs_cfg_schema_len, "config key origins"), done);
    HS_CALL_GOTO(HS_ALLOC(x->stim, (size_t)HS_MAX_STIMULI * (size_t)hs_cfg_schema_len,
                          "config stimulus origins"), done);
    x->path = cfg->path;

    if (path && path[0]) {
        HS_CHECK_GOTO(strlen(path) < sizeof cfg->path, done, HS_ERR_CONFIG,
                      "config file path too long: \"%.64s...\"", path);
        memcpy(cfg->path, path, strlen(path) + 1);
        int er = readable(path);
        HS_CHECK_GOTO(er == 0, done, HS_ERR_CONFIG, "cannot read config file \"%s\": %s", path,
                      strerror(er));
        HS_CHECK_GOTO(abs_dir(path, x->dir, sizeof x->dir) == 0, done, HS_ERR_CONFIG,
                      "%s: cannot resolve the config file's directory: %s", path, strerror(errno));
        config_set_include_dir(&c, x->dir); /* @include "x.cfg" is relative to the config file */
        if (!config_read_file(&c, path)) {
            const char *text = config_error_text(&c) ? config_error_text(&c) : "unknown error";
            HS_CHECK_GOTO(config_error_type(&c) != CONFIG_ERR_FILE_IO, done, HS_ERR_CONFIG,
                          "cannot read config file \"%s\": %s", path, text);
            int same = !strcmp(text, "syntax error");
            st = HS_FAIL(HS_ERR_CONFIG, "%s:%d: syntax error%s%s%s",
                         config_error_file(&c) ? config_error_file(&c) : path,
                         config_error_line(&c), same ? "" : ": ", same ? "" : text,
                         strstr(text, "mismatched element type")
                             ? " (an array holds one type: write [1.0, 0.0, 0.0], not [1, 0.0, 0])"
                             : "");
            goto done;
        }
    } else {
        HS_CHECK_GOTO(abs_dir(NULL, x->dir, sizeof x->dir) == 0, done, HS_ERR_CONFIG,
                      "cannot get the current directory: %s", strerror(errno));
    }

    for (int i = 0; i < n_overrides; ++i) {
        HS_CHECK_GOTO(overrides[i], done, HS_ERR_INTERNAL, "override %d is NULL", i);
        apply_override(x, &c, overrides[i]);
    }
    if (x->n_err == 0) walk_root(x, cfg, config_root_setting(&c));
    if (x->n_err == 0) resolve_paths(x, cfg);
    if (x->n_err == 0) validate_all(x, cfg); /* before config_destroy: origins point into c */
    st = finish(x);
done:
    config_destroy(&c);
    if (x) {
        HS_FREE(x->key);
        HS_FREE(x->stim);
        HS_FREE(x);
    }
    return st;
}

/* ============================================================================================ */
/* Printing                                                                                     */
/* ============================================================================================ */

static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)s; *c; ++c) {
        switch (*c) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        case '\f': fputs("\\f", f); break;
        default:
            if (*c < 0x20)
                fprintf(f, "\\x%02x", *c);
            else
                fputc(*c, f);
        }
    }
    fputc('"', f);
}

/* A key's value in libconfig syntax. */
static void put_value(FILE *f, const hs_cfg_key *k, const void *base)
{
    const void *p = cslot_of(k, base);
    char num[40], one[64];
    switch (k->type) {
    case HS_CFG_FLOAT: fputs(fmt_double(*(const double *)p, num, sizeof num), f); break;
    case HS_CFG_INT: fprintf(f, "%d", *(const int *)p); break;
    case HS_CFG_BOOL: fputs(*(const int *)p ? "true" : "false", f); break;
    case HS_CFG_STRING: put_string(f, (const char *)p); break;
    case HS_CFG_ENUM:
        put_string(f, k->size ? (const char *)p
                              : choice_at(k->choices, *(const int *)p, one, sizeof one));
        break;
    case HS_CFG_VEC3: {
        const double *v = (const double *)p;
        fprintf(f, "[%s, ", fmt_double(v[0], num, sizeof num));
        fprintf(f, "%s, ", fmt_double(v[1], num, sizeof num));
        fprintf(f, "%s]", fmt_double(v[2], num, sizeof num));
        break;
    }
    case HS_CFG_STRLIST: {
        int bits = *(const int *)p, first = 1;
        fputc('[', f);
        for (int i = 0, n = choice_count(k->choices); i < n; ++i) {
            if (!(bits & (1 << i))) continue;
            if (!first) fputs(", ", f);
            put_string(f, choice_at(k->choices, i, one, sizeof one));
            first = 0;
        }
        fputc(']', f);
        break;
    }
    case HS_CFG_GROUPLIST: fputs("()", f); break;
    }
}

/* "  name = value;" padded, then "# unit" (or the allowed values of a non-numeric enum). */
static void put_line(FILE *f, const char *indent, const hs_cfg_key *k, const void *base)
{
    char *line = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&line, &len);
    if (!m) return;
    fprintf(m, "%s%s = ", indent, leaf_of(k->path));
    put_value(m, k, base);
    fputc(';', m);
    fclose(m);
    fputs(line, f);
    char list[256];
    const char *comment = NULL;
    if (strcmp(k->unit, "1") == 0)
        comment = "dimensionless";
    else if (strcmp(k->unit, "-") != 0)
        comment = k->unit;
    else if (k->type == HS_CFG_ENUM || k->type == HS_CFG_STRLIST)
        comment = choices_list(k->choices, 0, list, sizeof list);
    if (comment) {
        for (size_t i = len; i < 40; ++i) fputc(' ', f);
        fprintf(f, " # %s%s", k->type == HS_CFG_ENUM ? "one of: " : k->type == HS_CFG_STRLIST ? "any of: " : "", comment);
    }
    fputc('\n', f);
    free(line);
}

void hs_config_print(const hs_config *cfg, FILE *f)
{
    fprintf(f, "# heartsim configuration, every key resolved");
    if (cfg->path[0] && memchr(cfg->path, '\0', sizeof cfg->path)) {
        fputs(" (from ", f);
        for (const unsigned char *c = (const unsigned char *)cfg->path; *c; ++c)
            fputc(*c < 0x20 ? '?' : *c, f); /* stays one comment line */
        fputc(')', f);
    }
    fputs("\n# Units in the comments; docs/config.md describes every key.\n", f);
    char section[64] = "";
    for (int i = 0; i < hs_cfg_schema_len; ++i) {
        const hs_cfg_key *k = &hs_cfg_schema[i];
        if (is_stim(k)) continue;
        if (k->type == HS_CFG_GROUPLIST) {
            if (section[0]) fputs("};\n", f);
            section[0] = '\0';
            int n = cfg->n_stimuli < 0 ? 0 : cfg->n_stimuli > HS_MAX_STIMULI ? HS_MAX_STIMULI : cfg->n_stimuli;
            if (n == 0) {
                fputs("\nstimulus = ( );                          # none\n", f);
                continue;
            }
            fputs("\nstimulus = (\n", f);
            for (int j = 0; j < n; ++j) {
                const hs_stimulus_cfg *st = &cfg->stimuli[j];
                char shape[32];
                choice_at(hs_cfg_schema[stim_key_index("shape")].choices, (int)st->shape, shape, sizeof shape);
                fputs("  {\n", f);
                for (int q = 0; q < hs_cfg_schema_len; ++q) {
                    const hs_cfg_key *sk = &hs_cfg_schema[q];
                    if (!is_stim(sk)) continue;
                    int use = shape_use(sk, shape);
                    if (use == 0 || (use == 1 && sk->shape && !stim_opt_used(st))) continue;
                    put_line(f, "    ", sk, st);
                }
                fputs(j + 1 < n ? "  },\n" : "  }\n", f);
            }
            fputs(");\n", f);
            continue;
        }
        size_t sl = strcspn(k->path, ".");
        if (strlen(section) != sl || strncmp(section, k->path, sl) != 0) {
            if (section[0]) fputs("};\n", f);
            snprintf(section, sizeof section, "%.*s", (int)sl, k->path);
            fprintf(f, "\n%s = {\n", section);
        }
        put_line(f, "  ", k, cfg);
    }
    if (section[0]) fputs("};\n", f);
}

static void put_md(FILE *f, const char *s)
{
    for (; *s; ++s) {
        if (*s == '|') fputc('\\', f);
        fputc(*s, f);
    }
}

void hs_config_print_reference(FILE *f)
{
    static const char *const type_name[] = {
        [HS_CFG_FLOAT] = "float",   [HS_CFG_INT] = "int",         [HS_CFG_BOOL] = "bool",
        [HS_CFG_STRING] = "string", [HS_CFG_ENUM] = "enum",       [HS_CFG_VEC3] = "float[3]",
        [HS_CFG_STRLIST] = "string list", [HS_CFG_GROUPLIST] = "list of groups"};
    hs_config *def = malloc(sizeof *def);
    if (!def) return;
    hs_config_defaults(def);
    fputs("| key | type | unit | default | range | meaning |\n", f);
    fputs("|---|---|---|---|---|---|\n", f);
    for (int i = 0; i < hs_cfg_schema_len; ++i) {
        const hs_cfg_key *k = &hs_cfg_schema[i];
        fprintf(f, "| `%s` | %s | %s | ", k->path, type_name[k->type], k->unit);
        if (k->def_doc) {
            put_md(f, k->def_doc);
        } else {
            char *v = NULL;
            size_t len = 0;
            FILE *m = open_memstream(&v, &len);
            if (m) {
                put_value(m, k, is_stim(k) ? (const void *)&def->stimuli[0] : (const void *)def);
                fclose(m);
                fputc('`', f);
                put_md(f, v);
                fputc('`', f);
                free(v);
            }
        }
        fputs(" | ", f);
        char r[256];
        if (k->type == HS_CFG_ENUM)
            put_md(f, choices_list(k->choices, 1, r, sizeof r));
        else if (k->type == HS_CFG_STRLIST) {
            fputs("any of ", f);
            put_md(f, choices_list(k->choices, 1, r, sizeof r));
        } else if (k->flags & HS_CFG_NONZERO)
            fputs("not [0, 0, 0]", f);
        else if (k->flags & HS_CFG_FILENAME)
            fputs("non-empty; letters, digits, `_` `.` `-`", f);
        else if (k->flags & HS_CFG_NONEMPTY)
            fputs("non-empty", f);
        else if (k->type == HS_CFG_GROUPLIST)
            fprintf(f, "at most %d entries", HS_MAX_STIMULI);
        else
            put_md(f, fmt_range(k, 0, r, sizeof r));
        fputs(" | ", f);
        put_md(f, k->meaning);
        fputs(" |\n", f);
    }
    free(def);
}
