/* "--set KEY=VALUE" overrides: each is parsed (key path, libconfig value) and grafted onto the
 * parsed config tree, marked with its text, so that the walk of config_load.c checks it exactly
 * like a key in the file and its errors read `--set TEXT: ...`. */
#include "config_internal.h"

#include <errno.h>
#include <libconfig.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SEGMENTS 16   /* components of an override path */
#define NAME_MAX_LEN 128  /* a key name in an override path */

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
void hs_cfg_apply_override(load_ctx *x, config_t *c, const char *text)
{
    origin o = {.set = 1, .override = text};
    void *hook = (void *)text; /* only read back, as the override's text */
    const char *eq = strchr(text, '=');
    if (!eq) {
        hs_cfg_report(x, &o, "expected key=value");
        return;
    }
    size_t kl = (size_t)(eq - text);
    char *buf = malloc(strlen(text) + 1);
    if (!buf) {
        hs_cfg_report(x, &o, "out of memory");
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
        hs_cfg_report(x, &o, "%s", err);
        goto done;
    }
    join_path(seg, n, 1, generic, sizeof generic);
    int ki = -1;
    for (int i = 0; i < hs_cfg_nkeys(); ++i)
        if (!strcmp(hs_cfg_keys()[i].path, generic)) ki = i;
    const config_setting_t *v = parse_value(val, ki >= 0 ? &hs_cfg_keys()[ki] : NULL, &vt, err,
                                            sizeof err);
    if (!v) {
        hs_cfg_report(x, &o, "%s", err);
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
                hs_cfg_report(x, &o, "%s is not a group, so it has no key \"%s\"", shown, seg[i].name);
                goto done;
            }
            config_setting_t *next = config_setting_get_member(cur, seg[i].name);
            if (last) {
                if (next) config_setting_remove(cur, seg[i].name);
                if (!copy_setting(cur, seg[i].name, v, hook))
                    hs_cfg_report(x, &o, "cannot set %s", key);
                goto done;
            }
            if (!next) {
                int nt = seg[i + 1].index >= 0 ? CONFIG_TYPE_LIST : CONFIG_TYPE_GROUP;
                next = config_setting_add(cur, seg[i].name, nt);
                if (!next) {
                    hs_cfg_report(x, &o, "cannot create %s", seg[i].name);
                    goto done;
                }
                config_setting_set_hook(next, hook);
            }
            cur = next;
        } else {
            int len = config_setting_length(cur);
            if (t != CONFIG_TYPE_LIST && t != CONFIG_TYPE_ARRAY) {
                hs_cfg_report(x, &o, "%s is not a list, so it has no entry [%d]", shown, seg[i].index);
                goto done;
            }
            if (seg[i].index < len && !last) {
                cur = config_setting_get_elem(cur, (unsigned)seg[i].index);
                continue;
            }
            if (seg[i].index < len) {
                hs_cfg_report(x, &o, "replacing a whole entry is not supported; set its keys "
                              "(%s.[%d].name=...) or the whole %s", shown, seg[i].index, shown);
                goto done;
            }
            if (seg[i].index > len || t != CONFIG_TYPE_LIST) {
                hs_cfg_report(x, &o, "%s has %d entr%s; [%d] does not exist (entries count from 0; "
                              "[%d] appends one)", shown, len, len == 1 ? "y" : "ies",
                              seg[i].index, len);
                goto done;
            }
            if (last) { /* append a whole entry */
                if (!copy_setting(cur, NULL, v, hook)) hs_cfg_report(x, &o, "cannot append to %s", shown);
                goto done;
            }
            config_setting_t *next = config_setting_add(cur, NULL, CONFIG_TYPE_GROUP);
            if (!next) {
                hs_cfg_report(x, &o, "cannot append to %s", shown);
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
