/* The configuration loader: libconfig file + "--set key=value" overrides -> validated hs_config.
 *
 * Every key, its type, default, range, unit and meaning come from the table in config_schema.c.
 * Loading is: defaults; parse the file; apply the overrides onto the parsed tree (so an override
 * is checked exactly like a key in the file; config_override.c); walk the whole tree (unknown keys
 * with a suggested spelling, wrong types); resolve the file paths (mesh.file, fibers.file, stimulus
 * files) against the config file; check ranges and cross-key constraints (mesh source, fibres,
 * stimuli; config_validate.c). Every problem is reported with where it came from (`FILE:LINE: ` or
 * `--set TEXT: `), all of them at once (up to MAX_REPORTED, config_common.c), as one HS_ERR_CONFIG. */
#define _POSIX_C_SOURCE 200809L /* getcwd */

#include "hs_config.h"

#include <errno.h>
#include <libconfig.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h> /* free, in HS_FREE */
#include <string.h>
#include <unistd.h>

#include "config_internal.h"
#include "hs_conductivity.h"
#include "hs_models.h"
#include "hs_scheme.h"
#include "hs_util.h"

/* ============================================================================================ */
/* Where a value came from                                                                      */
/* ============================================================================================ */

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

static void *slot_of(const hs_cfg_key *k, void *base) { return (char *)base + k->off; }

/* ============================================================================================ */
/* Defaults                                                                                     */
/* ============================================================================================ */

static void store_default(const hs_cfg_key *k, void *base)
{
    void *p = slot_of(k, base);
    switch (k->type) {
    case HS_CFG_FLOAT: *(double *)p = k->def_num; break;
    case HS_CFG_INT: *(int *)p = (int)k->def_num; break;
    case HS_CFG_BOOL: hs_cfg_bool_set(k, p, k->def_num != 0.0); break;
    case HS_CFG_STRING: snprintf((char *)p, k->size, "%s", k->def_str ? k->def_str : ""); break;
    case HS_CFG_ENUM:
        if (k->size)
            snprintf((char *)p, k->size, "%s", k->def_str);
        else
            *(int *)p = hs_cfg_choice_index(k->choices, k->def_str);
        break;
    case HS_CFG_VEC3: memcpy(p, k->def_vec, sizeof k->def_vec); break;
    case HS_CFG_STRLIST: *(hs_cfg_names *)p = hs_cfg_names_parse(k->def_str); break;
    case HS_CFG_GROUPLIST:
    case HS_CFG_GROUP: break;
    }
}

void hs_config_region_defaults(hs_region_cfg *r)
{
    memset(r, 0, sizeof *r);
    for (int i = 0; i < hs_cfg_nkeys(); ++i)
        if (is_region(&hs_cfg_keys()[i])) store_default(&hs_cfg_keys()[i], r);
}

static void stimulus_defaults(hs_stimulus_cfg *s)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < hs_cfg_nkeys(); ++i)
        if (is_stim(&hs_cfg_keys()[i])) store_default(&hs_cfg_keys()[i], s);
}

void hs_config_defaults(hs_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    for (int i = 0; i < hs_cfg_nkeys(); ++i)
        if (!is_member(&hs_cfg_keys()[i])) store_default(&hs_cfg_keys()[i], cfg);
    cfg->n_stimuli = 0;
    for (int j = 0; j < HS_MAX_STIMULI; ++j) stimulus_defaults(&cfg->stimuli[j]);
    cfg->n_regions = 0;
    for (int j = 0; j < HS_MAX_REGIONS; ++j) hs_config_region_defaults(&cfg->regions[j]);
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
        snprintf(buf, n, "a float (%s)", hs_cfg_fmt_num(config_setting_get_float(s), num, sizeof num));
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
        hs_cfg_report(x, o, "%s: expected a number, got %s", shown, describe(s, d, sizeof d));
        return 0;
    case HS_CFG_INT:
        if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64) {
            long long v = config_setting_get_int64(s);
            if (v < INT_MIN || v > INT_MAX) {
                hs_cfg_report(x, o, "%s: %lld does not fit in an int", shown, v);
                return 0;
            }
            *(int *)p = (int)v;
            return 1;
        }
        hs_cfg_report(x, o, "%s: expected an integer, got %s", shown, describe(s, d, sizeof d));
        return 0;
    case HS_CFG_BOOL:
        if (t == CONFIG_TYPE_BOOL) {
            hs_cfg_bool_set(k, p, config_setting_get_bool(s) != 0);
            return 1;
        }
        hs_cfg_report(x, o, "%s: expected true or false, got %s", shown, describe(s, d, sizeof d));
        return 0;
    case HS_CFG_STRING:
    case HS_CFG_ENUM: {
        if (t != CONFIG_TYPE_STRING) {
            hs_cfg_report(x, o, "%s: expected a string, got %s", shown, describe(s, d, sizeof d));
            return 0;
        }
        const char *v = config_setting_get_string(s);
        if (k->type == HS_CFG_ENUM) {
            int i = hs_cfg_choice_index(k->choices, v);
            if (i < 0) {
                hs_cfg_report(x, o, "%s: unknown value \"%s\"; allowed: %s", shown, v,
                              hs_cfg_choices_list(k->choices, 1, list, sizeof list));
                return 0;
            }
            if (!k->size) {
                *(int *)p = i;
                return 1;
            }
        }
        if (strlen(v) >= k->size) {
            hs_cfg_report(x, o, "%s: too long (%zu characters; at most %zu)", shown, strlen(v),
                          k->size - 1);
            return 0;
        }
        memcpy(p, v, strlen(v) + 1);
        return 1;
    }
    case HS_CFG_VEC3: {
        if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST) {
            hs_cfg_report(x, o, "%s: expected 3 numbers [x, y, z], got %s", shown,
                          describe(s, d, sizeof d));
            return 0;
        }
        if (config_setting_length(s) != 3) {
            hs_cfg_report(x, o, "%s: expected 3 numbers [x, y, z], got %d", shown,
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
                hs_cfg_report(x, o, "%s: element %d: expected a number, got %s", shown, i,
                              describe(e, d, sizeof d));
                return 0;
            }
        }
        memcpy(p, v, sizeof v);
        return 1;
    }
    case HS_CFG_STRLIST: {
        if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST) {
            hs_cfg_report(x, o, "%s: expected a list of strings [\"a\", \"b\"], got %s", shown,
                          describe(s, d, sizeof d));
            return 0;
        }
        hs_cfg_names names;
        memset(&names, 0, sizeof names);
        int ok = 1;
        for (int i = 0, n = config_setting_length(s); i < n; ++i) {
            const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
            if (config_setting_type(e) != CONFIG_TYPE_STRING) {
                hs_cfg_report(x, o, "%s: element %d: expected a string, got %s", shown, i,
                              describe(e, d, sizeof d));
                ok = 0;
                continue;
            }
            const char *v = config_setting_get_string(e);
            int c = hs_cfg_choice_index(k->choices, v);
            if (c < 0) {
                hs_cfg_report(x, o, "%s: unknown value \"%s\"; allowed: %s", shown, v,
                              hs_cfg_choices_list(k->choices, 1, list, sizeof list));
                ok = 0;
            } else if (hs_cfg_names_find(&names, v) >= 0) {
                hs_cfg_report(x, o, "%s: \"%s\" is listed twice", shown, v);
                ok = 0;
            } else if (!hs_cfg_names_add(&names, v)) {
                hs_cfg_report(x, o, "%s: more than %d names", shown, HS_CFG_LIST_MAX);
                ok = 0;
            }
        }
        if (ok) *(hs_cfg_names *)p = names;
        return ok;
    }
    case HS_CFG_GROUPLIST:
    case HS_CFG_GROUP: break;
    }
    return 0;
}

static void unknown_key(load_ctx *x, const origin *o, const char *full, const char *section)
{
    const char *sug = hs_cfg_suggest_key(full);
    char keys[1024];
    if (sug)
        hs_cfg_report(x, o, "unknown key \"%s\"; did you mean \"%s\"?", full, sug);
    else if (section)
        hs_cfg_report(x, o, "unknown key \"%s\"; %s has: %s", full, section,
                      hs_cfg_key_list(section, keys, sizeof keys));
    else
        hs_cfg_report(x, o, "unknown key \"%s\"; sections are: %s", full,
                      hs_cfg_section_list(keys, sizeof keys));
}

/* A list of named points inside a section (probes.points, ecg.electrodes): ( { name; at; }, ... ). */
static void walk_points(load_ctx *x, hs_config *cfg, const config_setting_t *s, int k, const char *full)
{
    const hs_cfg_key *lk = &hs_cfg_keys()[k];
    hs_point_list *pl = (hs_point_list *)slot_of(lk, cfg);
    const int which = !strcmp(full, "probes.points") ? 0 : 1;
    origin o = origin_of(x, s);
    char d[128], shown[448], keys[256];
    int t = config_setting_type(s);
    x->key[k] = o;
    pl->n = 0;
    if (t == CONFIG_TYPE_ARRAY && config_setting_length(s) == 0) return;
    if (t != CONFIG_TYPE_LIST) {
        hs_cfg_report(x, &o, "%s: expected a list of groups ( { name = \"a\"; at = [x, y, z]; }, ... ), got %s%s", full,
                      describe(s, d, sizeof d), t == CONFIG_TYPE_GROUP ? "; wrap it in parentheses" : "");
        return;
    }
    int n = config_setting_length(s);
    if (n > HS_MAX_POINTS) {
        hs_cfg_report(x, &o, "%s: %d entries; at most %d", full, n, HS_MAX_POINTS);
        return;
    }
    size_t kl = 0;
    keys[0] = '\0';
    for (int q = 0; q < hs_cfg_nkeys(); ++q)
        if (is_point_of(&hs_cfg_keys()[q], full))
            kl += (size_t)snprintf(keys + kl, sizeof keys - kl, "%s%s", kl ? ", " : "", leaf_of(hs_cfg_keys()[q].path));
    for (int j = 0; j < n; ++j) {
        const config_setting_t *g = config_setting_get_elem(s, (unsigned)j);
        hs_point_cfg *pt = &pl->p[j];
        memset(pt, 0, sizeof *pt);
        origin og = origin_of(x, g);
        x->pt_group[which][j] = og;
        if (config_setting_type(g) != CONFIG_TYPE_GROUP) {
            hs_cfg_report(x, &og, "%s.[%d]: expected a group { name = \"a\"; at = [x, y, z]; }, got %s", full, j,
                          describe(g, d, sizeof d));
            continue;
        }
        int has_at = 0;
        for (int i = 0, m = config_setting_length(g); i < m; ++i) {
            const config_setting_t *e = config_setting_get_elem(g, (unsigned)i);
            origin oe = origin_of(x, e);
            snprintf(shown, sizeof shown, "%s.[%d].%s", full, j, config_setting_name(e));
            int q = -1;
            for (int r = 0; r < hs_cfg_nkeys() && q < 0; ++r)
                if (is_point_of(&hs_cfg_keys()[r], full) && !strcmp(leaf_of(hs_cfg_keys()[r].path), config_setting_name(e)))
                    q = r;
            if (q < 0) {
                hs_cfg_report(x, &oe, "unknown key \"%s\"; an entry has: %s", shown, keys);
                continue;
            }
            if (read_value(x, &hs_cfg_keys()[q], shown, e, pt, &oe) && !strcmp(config_setting_name(e), "at")) has_at = 1;
        }
        if (!has_at) hs_cfg_report(x, &og, "%s.[%d]: missing key \"at\" (the point, mm)", full, j);
        if (!pt->name[0]) snprintf(pt->name, sizeof pt->name, "%c%d", which ? 'e' : 'p', j + 1);
        for (int q = 0; q < j; ++q)
            if (!strcmp(pl->p[q].name, pt->name))
                hs_cfg_report(x, &og, "%s.[%d]: name \"%s\" is taken by entry [%d]", full, j, pt->name, q);
    }
    pl->n = n;
}

static void walk_section(load_ctx *x, hs_config *cfg, const config_setting_t *sec)
{
    const char *sname = config_setting_name(sec);
    for (int i = 0, n = config_setting_length(sec); i < n; ++i) {
        const config_setting_t *s = config_setting_get_elem(sec, (unsigned)i);
        char full[256];
        snprintf(full, sizeof full, "%s.%s", sname, config_setting_name(s));
        origin o = origin_of(x, s);
        int k = hs_cfg_key_index(full);
        if (k >= 0 && hs_cfg_keys()[k].type == HS_CFG_GROUPLIST && strchr(full, '.')) {
            walk_points(x, cfg, s, k, full);
            continue;
        }
        if (k < 0 || hs_cfg_keys()[k].type == HS_CFG_GROUPLIST) {
            unknown_key(x, &o, full, sname);
            continue;
        }
        if (read_value(x, &hs_cfg_keys()[k], full, s, cfg, &o)) x->key[k] = o;
    }
}

/* An unknown key in entry j of a list section (stimulus, regions): the closest key of that list
 * when one is close, else the keys such an entry has. */
static void report_unknown_entry_key(load_ctx *x, const origin *o, const char *shown, const char *name, int j,
                                     const char *list, const char *an_entry, const char *key_list_section,
                                     int (*member)(const hs_cfg_key *))
{
    int best = -1, best_d = INT_MAX;
    for (int q = 0; q < hs_cfg_nkeys(); ++q) {
        if (!member(&hs_cfg_keys()[q])) continue;
        int dd = hs_cfg_osa_distance(name, leaf_of(hs_cfg_keys()[q].path));
        if (dd < best_d) best_d = dd, best = q;
    }
    char keys[512];
    if (best >= 0 && hs_cfg_close_enough(best_d, name) && best_d < (int)strlen(name))
        hs_cfg_report(x, o, "unknown key \"%s\"; did you mean \"%s.[%d].%s\"?", shown, list, j,
                      leaf_of(hs_cfg_keys()[best].path));
    else
        hs_cfg_report(x, o, "unknown key \"%s\"; %s has: %s", shown, an_entry,
                      hs_cfg_key_list(key_list_section, keys, sizeof keys));
}

/* A list section whose entries are groups chosen by a selector key (stimulus: shape; regions: select). */
typedef struct list_kind {
    const char *list;             /* "stimulus" */
    const char *an_entry;         /* "a stimulus", in "unknown key ...; a stimulus has: ..." */
    const char *key_list_section; /* hs_cfg_key_list's section for that list */
    const char *selector;         /* the key that says which other keys apply */
    const char *example;          /* the group's shape in messages */
    int (*member)(const hs_cfg_key *);
    int (*key_index)(const char *leaf);
    /* a key of type HS_CFG_GROUP (regions.[j].model) */
    void (*walk_group)(load_ctx *x, void *entry, int j, const config_setting_t *g);
} list_kind;

/* Entry j of a list section into @p entry: every key read and checked by its own key (origins in
 * @p so), then against the entry's selector: a key of another selector refused, a required one
 * missing reported. @p og: the group's origin. 1 when its keys were read without error (the
 * selector checks may still have reported), so the caller's own checks of it may follow. */
static int walk_list_entry(load_ctx *x, const list_kind *lk, int j, const config_setting_t *g, void *entry,
                           origin *so, const origin *og)
{
    char shown[128], d[128];
    if (config_setting_type(g) != CONFIG_TYPE_GROUP) {
        hs_cfg_report(x, og, "%s.[%d]: expected a group %s, got %s", lk->list, j, lk->example,
                      describe(g, d, sizeof d));
        return 0;
    }
    int errs = x->n_err;
    for (int i = 0, n = config_setting_length(g); i < n; ++i) {
        const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
        const char *name = config_setting_name(s);
        origin o = origin_of(x, s);
        snprintf(shown, sizeof shown, "%s.[%d].%s", lk->list, j, name);
        int k = lk->key_index(name);
        if (k < 0) {
            report_unknown_entry_key(x, &o, shown, name, j, lk->list, lk->an_entry, lk->key_list_section,
                                     lk->member);
            continue;
        }
        if (hs_cfg_keys()[k].type == HS_CFG_GROUP && lk->walk_group) {
            so[k] = o;
            lk->walk_group(x, entry, j, s);
        } else if (read_value(x, &hs_cfg_keys()[k], shown, s, entry, &o)) {
            so[k] = o;
        }
    }
    if (x->n_err != errs) return 0; /* the selector itself may be what is wrong */

    /* Keys of some selector values only: required (or optional) for them, refused for the others. */
    char sel[32];
    const hs_cfg_key *ks = &hs_cfg_keys()[lk->key_index(lk->selector)];
    hs_cfg_choice_at(ks->choices, *(const int *)((const char *)entry + ks->off), sel, sizeof sel);
    for (int k = 0; k < hs_cfg_nkeys(); ++k) {
        const hs_cfg_key *key = &hs_cfg_keys()[k];
        if (!lk->member(key) || !key->shape) continue;
        const char *leaf = leaf_of(key->path);
        int use = hs_cfg_shape_use(key, sel);
        if (use == 0 && so[k].set) {
            char also[64] = "";
            if (key->shape_opt) snprintf(also, sizeof also, " or \"%s\"", key->shape_opt);
            hs_cfg_report(x, &so[k], "%s.[%d].%s is only used by %s = \"%s\"%s; this one is \"%s\"", lk->list, j,
                          leaf, lk->selector, key->shape, also, sel);
        } else if (use == 2 && !so[k].set) {
            hs_cfg_report(x, og, "%s.[%d]: missing key \"%s\" (required for %s = \"%s\")", lk->list, j, leaf,
                          lk->selector, sel);
        }
    }
    return 1;
}

static const list_kind stimulus_kind = {"stimulus", "a stimulus", NULL, "shape", "{ shape = \"box\"; ... }",
                                        is_stim, hs_cfg_stim_key_index, NULL};

static void walk_stimulus_group(load_ctx *x, hs_config *cfg, int j, const config_setting_t *g)
{
    hs_stimulus_cfg *st = &cfg->stimuli[j];
    origin *so = &x->stim[(size_t)j * (size_t)hs_cfg_nkeys()];
    x->stim_group[j] = origin_of(x, g);
    stimulus_defaults(st);
    if (!walk_list_entry(x, &stimulus_kind, j, g, st, so, &x->stim_group[j])) return;
    /* a surface site's restricting sphere needs both of its keys */
    int kc = hs_cfg_stim_key_index("center"), kr = hs_cfg_stim_key_index("radius");
    if (st->shape == HS_STIM_SURFACE && so[kc].set != so[kr].set)
        hs_cfg_report(x, so[kc].set ? &so[kc] : &so[kr],
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
        hs_cfg_report(x, &o,
                      "stimulus: expected a list of groups ( { ... }, { ... } ), got %s%s",
                      describe(s, d, sizeof d),
                      t == CONFIG_TYPE_GROUP ? "; wrap it in parentheses: stimulus = ( { ... } );" : "");
        return;
    }
    int n = config_setting_length(s);
    if (n > HS_MAX_STIMULI) {
        hs_cfg_report(x, &o, "stimulus: %d entries; at most %d", n, HS_MAX_STIMULI);
        return;
    }
    for (int j = 0; j < n; ++j)
        walk_stimulus_group(x, cfg, j, config_setting_get_elem(s, (unsigned)j));
    cfg->n_stimuli = n;
}

/* regions.[j].model = { name = value; ... }: the names are resolved against model.type after the
 * walk (resolve_region_params), since the model may be chosen further down the file. */
static void walk_region_model(load_ctx *x, hs_region_cfg *r, int j, const config_setting_t *g)
{
    char d[128];
    origin og = origin_of(x, g);
    if (config_setting_type(g) != CONFIG_TYPE_GROUP) {
        hs_cfg_report(x, &og, "regions.[%d].model: expected a group { <parameter> = value; ... }, got %s", j,
                      describe(g, d, sizeof d));
        return;
    }
    int n = config_setting_length(g);
    if (n > HS_MODEL_MAX_PARAMS) {
        hs_cfg_report(x, &og, "regions.[%d].model: %d parameters; a model has at most %d", j, n, HS_MODEL_MAX_PARAMS);
        return;
    }
    for (int i = 0; i < n; ++i) {
        const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
        origin o = origin_of(x, s);
        int t = config_setting_type(s);
        double v = 0.0;
        if (!strcmp(config_setting_name(s), "preset")) {
            /* a published parameter set (model.preset's choices), resolved with the parameters */
            const char *ps = t == CONFIG_TYPE_STRING ? config_setting_get_string(s) : NULL;
            if (!ps || !ps[0] || strlen(ps) >= sizeof x->reg_preset[j])
                hs_cfg_report(x, &o, "regions.[%d].model.preset: expected the name of a parameter set (a string), got %s",
                              j, describe(s, d, sizeof d));
            else
                snprintf(x->reg_preset[j], sizeof x->reg_preset[j], "%s", ps), x->reg_preset_o[j] = o;
            continue;
        }
        if (t == CONFIG_TYPE_FLOAT) v = config_setting_get_float(s);
        else if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64) v = (double)config_setting_get_int64(s);
        else if (t == CONFIG_TYPE_BOOL) v = config_setting_get_bool(s) ? 1.0 : 0.0;
        else {
            hs_cfg_report(x, &o, "regions.[%d].model.%s: expected a number, got %s", j, config_setting_name(s),
                          describe(s, d, sizeof d));
            continue;
        }
        snprintf(x->reg_param[j][r->n_params], sizeof x->reg_param[j][r->n_params], "%s", config_setting_name(s));
        x->reg_param_o[j][r->n_params] = o;
        r->param_index[r->n_params] = -1;
        r->param_value[r->n_params++] = v;
    }
}

static void walk_region_model_entry(load_ctx *x, void *entry, int j, const config_setting_t *g)
{
    walk_region_model(x, (hs_region_cfg *)entry, j, g);
}

static const list_kind region_kind = {"regions", "a region", "regions", "select", "{ select = \"box\"; ... }",
                                      is_region, hs_cfg_region_key_index, walk_region_model_entry};

static void walk_region_group(load_ctx *x, hs_config *cfg, int j, const config_setting_t *g)
{
    hs_region_cfg *r = &cfg->regions[j];
    origin *so = &x->reg[(size_t)j * (size_t)hs_cfg_nkeys()];
    x->reg_group[j] = origin_of(x, g);
    hs_config_region_defaults(r);
    if (!walk_list_entry(x, &region_kind, j, g, r, so, &x->reg_group[j])) return;
    if (!so[hs_cfg_region_key_index("d_iso")].set && !so[hs_cfg_region_key_index("d_ani")].set && r->n_params == 0 &&
        !x->reg_preset[j][0])
        hs_cfg_report(x, &x->reg_group[j], "regions.[%d]: sets nothing; give d_iso, d_ani or model = { <parameter> = value; }", j);
}

static void walk_regions(load_ctx *x, hs_config *cfg, const config_setting_t *s, int k)
{
    origin o = origin_of(x, s);
    char d[128];
    int t = config_setting_type(s);
    x->key[k] = o;
    if (t == CONFIG_TYPE_ARRAY && config_setting_length(s) == 0) {
        cfg->n_regions = 0;
        return;
    }
    if (t != CONFIG_TYPE_LIST) {
        hs_cfg_report(x, &o, "regions: expected a list of groups ( { ... }, { ... } ), got %s%s",
                      describe(s, d, sizeof d),
                      t == CONFIG_TYPE_GROUP ? "; wrap it in parentheses: regions = ( { ... } );" : "");
        return;
    }
    int n = config_setting_length(s);
    if (n > HS_MAX_REGIONS) {
        hs_cfg_report(x, &o, "regions: %d entries; at most %d", n, HS_MAX_REGIONS);
        return;
    }
    for (int j = 0; j < n; ++j) walk_region_group(x, cfg, j, config_setting_get_elem(s, (unsigned)j));
    cfg->n_regions = n;
}

/* regions.[i].model names -> indices into model.type's parameters, values checked by their key. */
static void resolve_region_params(load_ctx *x, hs_config *cfg)
{
    const hs_model *m = hs_models_find(cfg->model_type);
    if (!m) return; /* reported by validation */
    char shown[160], names[1024];
    for (int j = 0; j < cfg->n_regions; ++j) {
        hs_region_cfg *r = &cfg->regions[j];
        for (int q = 0; q < r->n_params; ++q) {
            const char *name = x->reg_param[j][q];
            const origin *o = &x->reg_param_o[j][q];
            int idx = hs_model_param_index(m, name);
            snprintf(shown, sizeof shown, "regions.[%d].model.%s", j, name);
            if (idx < 0) {
                size_t len = 0;
                names[0] = '\0';
                for (int p = 0; p < m->n_params && len < sizeof names; ++p)
                    len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", p ? ", " : "", m->params[p].name);
                hs_cfg_report(x, o, "%s: model %s has no parameter \"%s\"; its parameters are: %s", shown, m->name,
                              name, names);
                continue;
            }
            for (int p = 0; p < q; ++p)
                if (r->param_index[p] == idx) hs_cfg_report(x, o, "%s: given twice", shown);
            r->param_index[q] = idx;
            char path[96];
            snprintf(path, sizeof path, "model.%s", m->params[idx].name);
            int k = hs_cfg_key_index(path);
            if (k < 0) continue;
            /* the parameter's own key checks the value (range, switch 0/1) */
            hs_cfg_key key = hs_cfg_keys()[k];
            key.off = 0;
            if (key.type == HS_CFG_BOOL && r->param_value[q] != 0.0 && r->param_value[q] != 1.0)
                hs_cfg_report(x, o, "%s: expected true or false", shown);
            else if (key.type != HS_CFG_BOOL)
                hs_cfg_check_value(x, &key, shown, &r->param_value[q], o);
        }
        if (!x->reg_preset[j][0]) continue;
        /* model.preset in a region: the set's value of every parameter the region does not name */
        const hs_model_preset *ps = NULL;
        char choices[256] = "";
        size_t len = 0;
        for (int q = 0; q < m->n_presets; ++q) {
            int w = snprintf(choices + len, sizeof choices - len, "%s\"%s\"", q ? ", " : "", m->presets[q].name);
            if (w > 0 && (size_t)w < sizeof choices - len) len += (size_t)w;
            if (!strcmp(m->presets[q].name, x->reg_preset[j])) ps = &m->presets[q];
        }
        if (!ps) {
            if (m->n_presets == 0)
                hs_cfg_report(x, &x->reg_preset_o[j],
                              "regions.[%d].model.preset = \"%s\": model %s has no published parameter sets", j,
                              x->reg_preset[j], m->name);
            else
                hs_cfg_report(x, &x->reg_preset_o[j],
                              "regions.[%d].model.preset: unknown parameter set \"%s\" of model %s; available: %s", j,
                              x->reg_preset[j], m->name, choices);
            continue;
        }
        for (int k = 0; k < m->n_params && r->n_params < HS_MODEL_MAX_PARAMS; ++k) {
            int named = 0;
            for (int q = 0; q < r->n_params; ++q) named |= r->param_index[q] == k;
            if (named) continue;
            r->param_index[r->n_params] = k;
            r->param_value[r->n_params++] = ps->v[k];
        }
    }
}

static void walk_root(load_ctx *x, hs_config *cfg, const config_setting_t *root)
{
    char d[128], buf[512];
    for (int i = 0, n = config_setting_length(root); i < n; ++i) {
        const config_setting_t *s = config_setting_get_elem(root, (unsigned)i);
        const char *name = config_setting_name(s);
        origin o = origin_of(x, s);
        int k = hs_cfg_key_index(name);
        if (k >= 0 && hs_cfg_keys()[k].type == HS_CFG_GROUPLIST) {
            if (!strcmp(name, "regions"))
                walk_regions(x, cfg, s, k);
            else
                walk_stimulus(x, cfg, s, k);
        } else if (hs_cfg_is_section(name)) {
            if (config_setting_type(s) != CONFIG_TYPE_GROUP)
                hs_cfg_report(x, &o, "%s: expected a group { ... }, got %s", name, describe(s, d, sizeof d));
            else
                walk_section(x, cfg, s);
        } else if (config_setting_type(s) == CONFIG_TYPE_GROUP) {
            char sec[64];
            if (hs_cfg_suggest_section(name, sec, sizeof sec))
                hs_cfg_report(x, &o, "unknown section \"%s\"; did you mean \"%s\"?", name, sec);
            else
                hs_cfg_report(x, &o, "unknown section \"%s\"; sections are: %s", name,
                              hs_cfg_section_list(buf, sizeof buf));
        } else {
            unknown_key(x, &o, name, NULL);
        }
    }
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

/* libconfig 1.5 reports a missing @include only as "cannot open include file" at the line of the
 * directive: read that line back to name the file and where it was looked for (libconfig resolves
 * every @include, nested ones too, against the include directory, the main file's). @p out gets
 * "FILE:LINE: @include \"x.cfg\": cannot open DIR/x.cfg: REASON" (FILE as found), or "" when the line cannot be read. */
static void include_error(const char *file, int line, const char *dir, char *out, size_t n)
{
    out[0] = '\0';
    if (!file) return;
    /* an included file is named as its @include wrote it: relative to the include directory */
    char fpath[2 * HS_PATH_MAX + 2];
    if (file[0] == '/' || !dir || !dir[0] || hs_cfg_readable(file) == 0)
        snprintf(fpath, sizeof fpath, "%.*s", HS_PATH_MAX, file);
    else
        snprintf(fpath, sizeof fpath, "%.*s/%.*s", HS_PATH_MAX, dir, HS_PATH_MAX, file);
    FILE *f = fopen(fpath, "r");
    if (!f) return;
    char buf[4096];
    int ln = 0;
    while (fgets(buf, sizeof buf, f))
        if (++ln == line) break;
    fclose(f);
    if (ln != line) return;
    const char *at = strstr(buf, "@include");
    const char *q0 = at ? strchr(at, '"') : NULL;
    const char *q1 = q0 ? strchr(q0 + 1, '"') : NULL;
    if (!q1) return;
    char name[HS_PATH_MAX], full[2 * HS_PATH_MAX + 2];
    snprintf(name, sizeof name, "%.*s", (int)(q1 - q0 - 1), q0 + 1);
    if (name[0] == '/' || !dir || !dir[0])
        snprintf(full, sizeof full, "%s", name);
    else
        snprintf(full, sizeof full, "%s/%s", dir, name);
    const int er = hs_cfg_readable(full);
    snprintf(out, n, "%.*s:%d: @include \"%.*s\": cannot open %.*s: %s", HS_PATH_MAX, fpath, line, HS_PATH_MAX,
             name, HS_PATH_MAX, full, er ? strerror(er) : "unreadable as a config file");
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
            hs_cfg_report(x, o, "%s: cannot get the current directory: %s", shown, strerror(errno));
            return;
        }
    } else {
        snprintf(base, sizeof base, "%s", x->dir);
    }
    const char *rel = f;
    while (rel[0] == '.' && rel[1] == '/') rel += 2;
    snprintf(joined, sizeof joined, "%s/%s", base, rel);
    if (strlen(joined) >= size) {
        hs_cfg_report(x, o, "%s: resolved path \"%s\" is too long", shown, joined);
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
    resolve_path(x, hs_cfg_origin_key(x, "mesh.file"), "mesh.file", cfg->mesh_file, sizeof cfg->mesh_file);
    resolve_path(x, hs_cfg_origin_key(x, "fibers.file"), "fibers.file", cfg->fiber_file, sizeof cfg->fiber_file);
    int kf = hs_cfg_stim_key_index("file");
    for (int j = 0; j < cfg->n_stimuli && j < HS_MAX_STIMULI; ++j) {
        if (cfg->stimuli[j].shape != HS_STIM_NODES) continue;
        const origin *o = &x->stim[(size_t)j * (size_t)hs_cfg_nkeys() + (size_t)kf];
        char shown[64];
        snprintf(shown, sizeof shown, "stimulus.[%d].file", j);
        resolve_path(x, o->set ? o : &x->stim_group[j], shown, cfg->stimuli[j].file, sizeof cfg->stimuli[j].file);
    }
    kf = hs_cfg_region_key_index("file");
    for (int j = 0; j < cfg->n_regions && j < HS_MAX_REGIONS; ++j) {
        if (cfg->regions[j].select != HS_REGION_ELEMENTS) continue;
        const origin *o = &x->reg[(size_t)j * (size_t)hs_cfg_nkeys() + (size_t)kf];
        char shown[64];
        snprintf(shown, sizeof shown, "regions.[%d].file", j);
        resolve_path(x, o->set ? o : &x->reg_group[j], shown, cfg->regions[j].file, sizeof cfg->regions[j].file);
    }
}

/* model.preset: the named parameter set's values for every parameter the file does not set. */
static void apply_preset(load_ctx *x, hs_config *cfg, const hs_model *m)
{
    if (!cfg->model_preset[0]) return;
    const origin *o = hs_cfg_origin_key(x, "model.preset");
    char names[256] = "";
    size_t len = 0;
    for (int q = 0; q < m->n_presets; ++q) {
        const hs_model_preset *ps = &m->presets[q];
        int w = snprintf(names + len, sizeof names - len, "%s\"%s\"", q ? ", " : "", ps->name);
        if (w > 0 && (size_t)w < sizeof names - len) len += (size_t)w;
        if (strcmp(ps->name, cfg->model_preset) != 0) continue;
        char path[96];
        for (int k = 0; k < m->n_params; ++k) {
            snprintf(path, sizeof path, "model.%s", m->params[k].name);
            if (!hs_cfg_origin_key(x, path)) cfg->model_prm[m->id][k] = ps->v[k];
        }
        return;
    }
    if (m->n_presets == 0)
        hs_cfg_report(x, o, "model.preset = \"%s\": model %s has no published parameter sets (set its model.* keys)",
                      cfg->model_preset, m->name);
    else
        hs_cfg_report(x, o, "model.preset: unknown parameter set \"%s\" of model %s; available: %s", cfg->model_preset,
                      m->name, names);
}

/* The diffusion tensor's coefficients: from tissue.sigma_* (S/m, with tissue.chi and c_m) when they
 * are given, else model.d_iso and d_ani, each defaulting to the model's (hs_model.d_default, or
 * d_default_split when solver.scheme resolves to splitting: "splitting", or "auto" for a model without
 * the Newton kernels, as app/spec.c resolves it). Giving both forms is an error naming one key of each. */
/* 1 when solver.scheme resolves to splitting for model @p m: "splitting", or "auto" for a model without
 * the Newton kernels (as app/spec.c resolves it). */
static int scheme_is_splitting(const hs_config *cfg, const hs_model *m)
{
    return m && (!strcmp(cfg->scheme, "splitting") ||
                 (!strcmp(cfg->scheme, "auto") && hs_scheme_auto(m->schemes) == HS_SCHEME_SPLITTING));
}

static void resolve_conductivity(load_ctx *x, hs_config *cfg, const hs_model *m)
{
    static const char *const sig[4] = {"tissue.sigma_il", "tissue.sigma_it", "tissue.sigma_el", "tissue.sigma_et"};
    const double sv[4] = {cfg->sigma_il, cfg->sigma_it, cfg->sigma_el, cfg->sigma_et};
    const origin *os[4], *od = hs_cfg_origin_key(x, "model.d_iso"), *oa = hs_cfg_origin_key(x, "model.d_ani");
    int n_sig = 0;
    for (int q = 0; q < 4; ++q) n_sig += (os[q] = hs_cfg_origin_key(x, sig[q])) != NULL;
    if (n_sig == 0) {
        const int split = scheme_is_splitting(cfg, m);
        if (m && !od) cfg->d_iso = hs_model_d_default_scheme(m, 0, split);
        if (m && !oa) cfg->d_ani = hs_model_d_default_scheme(m, 1, split);
        if (m && (!od || !oa) && !(m->d_default[0] > 0.0))
            hs_log(1, "warning: model %s has no tuned default conductivity: model.d_iso = %g, d_ani = %g mm^2/ms (the "
                      "shared default; `heartsim tune-cv` finds the values for 0.6 and 0.3 m/s)\n",
                   m->name, HS_MODEL_D_ISO_SHARED, HS_MODEL_D_ANI_SHARED);
        return;
    }
    int first = 0;
    while (!os[first]) ++first;
    if (od || oa) {
        hs_cfg_report(x, od ? od : oa,
                      "%s and %s are both given: give the conductivity either as D (model.d_iso, model.d_ani, mm^2/ms) "
                      "or as sigma (tissue.sigma_il, sigma_it [, sigma_el, sigma_et], S/m, with tissue.chi and c_m), "
                      "not both",
                      od ? "model.d_iso" : "model.d_ani", sig[first]);
        return;
    }
    int bad = 0;
    for (int q = 0; q < 4; ++q)
        if (os[q] && !(sv[q] > 0.0)) {
            hs_cfg_report(x, os[q], "%s = %g S/m: a given conductivity must be > 0 (leave the key out instead)", sig[q],
                          sv[q]);
            bad = 1;
        }
    for (int q = 0; q < 4; q += 2)
        if ((os[q] != NULL) != (os[q + 1] != NULL)) {
            hs_cfg_report(x, os[q] ? os[q] : os[q + 1], "%s is given without %s: give both (along and across the fibre)",
                          sig[os[q] ? q : q + 1], sig[os[q] ? q + 1 : q]);
            bad = 1;
        }
    if (!os[0] && os[2]) {
        hs_cfg_report(x, os[2], "tissue.sigma_el, sigma_et are given without the intracellular tissue.sigma_il, sigma_it: "
                                "the monodomain conductivity is their harmonic mean, so both media are needed");
        bad = 1;
    }
    if (bad) return;
    double ml = hs_cond_monodomain(cfg->sigma_il, cfg->sigma_el), mt = hs_cond_monodomain(cfg->sigma_it, cfg->sigma_et);
    if (ml < mt) {
        hs_cfg_report(x, os[0],
                      "tissue.sigma_il, sigma_it: the monodomain conductivity along the fibre (%g S/m) is below the one "
                      "across it (%g S/m); D = d_iso I + d_ani f f^T needs along >= across",
                      ml, mt);
        return;
    }
    double dl = hs_cond_d_from_sigma(ml, cfg->chi, cfg->c_m), dt = hs_cond_d_from_sigma(mt, cfg->chi, cfg->c_m);
    cfg->d_iso = dt;
    cfg->d_ani = dl - dt;
}

/* Defaults that depend on the model: model.time_unit, when not given, is the model's own; the
 * parameters of model.preset; the conductivity (resolve_conductivity); solver.cg_tol under the
 * splitting scheme (HS_SPLIT_CG_TOL_DEFAULT: its diffusion solve needs no more, docs/verification.md
 * "The splitting scheme's CG tolerance"; the Newton scheme keeps the schema's 1e-8). */
static void model_defaults(load_ctx *x, hs_config *cfg)
{
    const hs_model *m = hs_models_find(cfg->model_type);
    if (m) apply_preset(x, cfg, m);
    resolve_conductivity(x, cfg, m);
    if (scheme_is_splitting(cfg, m) && !hs_cfg_origin_key(x, "solver.cg_tol")) cfg->cg_tol = HS_SPLIT_CG_TOL_DEFAULT;
    if (m && !hs_cfg_origin_key(x, "model.time_unit")) cfg->time_unit = m->time_unit_default;
    if (m && !hs_cfg_origin_key(x, "output.fields")) cfg->out_fields = hs_config_default_fields(m);
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
    HS_CALL_GOTO(HS_ALLOC(x->key, hs_cfg_nkeys(), "config key origins"), done);
    HS_CALL_GOTO(HS_ALLOC(x->stim, (size_t)HS_MAX_STIMULI * (size_t)hs_cfg_nkeys(),
                          "config stimulus origins"), done);
    HS_CALL_GOTO(HS_ALLOC(x->reg, (size_t)HS_MAX_REGIONS * (size_t)hs_cfg_nkeys(), "config region origins"), done);
    HS_CALL_GOTO(HS_ALLOC(x->reg_param, HS_MAX_REGIONS, "config region parameters"), done);
    HS_CALL_GOTO(HS_ALLOC(x->reg_param_o, HS_MAX_REGIONS, "config region parameter origins"), done);
    x->path = cfg->path;

    if (path && path[0]) {
        HS_CHECK_GOTO(strlen(path) < sizeof cfg->path, done, HS_ERR_CONFIG,
                      "config file path too long: \"%.64s...\"", path);
        memcpy(cfg->path, path, strlen(path) + 1);
        int er = hs_cfg_readable(path);
        HS_CHECK_GOTO(er == 0, done, HS_ERR_CONFIG, "cannot read config file \"%s\": %s", path,
                      strerror(er));
        HS_CHECK_GOTO(abs_dir(path, x->dir, sizeof x->dir) == 0, done, HS_ERR_CONFIG,
                      "%s: cannot resolve the config file's directory: %s", path, strerror(errno));
        config_set_include_dir(&c, x->dir); /* @include "x.cfg" is relative to the config file */
        if (!config_read_file(&c, path)) {
            const char *text = config_error_text(&c) ? config_error_text(&c) : "unknown error";
            HS_CHECK_GOTO(config_error_type(&c) != CONFIG_ERR_FILE_IO, done, HS_ERR_CONFIG,
                          "cannot read config file \"%s\": %s", path, text);
            const char *efile = config_error_file(&c) ? config_error_file(&c) : path;
            if (strstr(text, "cannot open include file")) {
                char why[4 * HS_PATH_MAX];
                include_error(efile, config_error_line(&c), x->dir, why, sizeof why);
                if (why[0]) {
                    st = HS_FAIL(HS_ERR_CONFIG, "%s", why);
                    goto done;
                }
            }
            int same = !strcmp(text, "syntax error");
            st = HS_FAIL(HS_ERR_CONFIG, "%s:%d: syntax error%s%s%s",
                         efile, config_error_line(&c), same ? "" : ": ", same ? "" : text,
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
        hs_cfg_apply_override(x, &c, overrides[i]);
    }
    if (x->n_err == 0) walk_root(x, cfg, config_root_setting(&c));
    if (x->n_err == 0) resolve_paths(x, cfg);
    if (x->n_err == 0) model_defaults(x, cfg);
    if (x->n_err == 0) resolve_region_params(x, cfg);
    if (x->n_err == 0) hs_cfg_validate_all(x, cfg); /* before config_destroy: origins point into c */
    st = hs_cfg_finish(x);
done:
    config_destroy(&c);
    if (x) {
        HS_FREE(x->key);
        HS_FREE(x->stim);
        HS_FREE(x->reg);
        HS_FREE(x->reg_param);
        HS_FREE(x->reg_param_o);
        HS_FREE(x);
    }
    return st;
}
