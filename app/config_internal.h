/**
 * @file config_internal.h
 * @brief Private to the config files of app/ (config_common.c, config_load.c, config_override.c,
 * config_validate.c, config_print.c): where a value came from, the loader's error list, and the
 * schema, choice and formatting helpers more than one of them uses.
 *
 * Errors are collected, not returned one by one: hs_cfg_report() appends a line prefixed by the
 * value's origin (`FILE:LINE: ` or `--set TEXT: `), hs_cfg_finish() turns the list into one
 * HS_ERR_CONFIG.
 */
#ifndef HS_CONFIG_INTERNAL_H
#define HS_CONFIG_INTERNAL_H

#include <libconfig.h>
#include <stddef.h>
#include <string.h>

#include "config_schema.h"
#include "hs_config.h"
#include "hs_status.h"

/** Where a value came from. */
typedef struct origin {
    int set;              /* 0: default value */
    const char *file;     /* file of the setting (an @include'd file or the config file) */
    int line;
    const char *override; /* the "--set" text that produced the setting, or NULL */
} origin;

/** State of one load (or of one hs_config_validate): origins per key and the errors so far. */
typedef struct load_ctx {
    const char *path;     /* config file as given ("" when none) */
    char dir[HS_PATH_MAX]; /* absolute directory of the config file (the cwd when none) */
    origin *key;          /* [hs_cfg_nkeys()], NULL in hs_config_validate */
    origin *stim;         /* [HS_MAX_STIMULI][hs_cfg_nkeys()], NULL in hs_config_validate */
    origin stim_group[HS_MAX_STIMULI];
    origin *reg;          /* [HS_MAX_REGIONS][hs_cfg_nkeys()], NULL in hs_config_validate */
    origin reg_group[HS_MAX_REGIONS];
    origin pt_group[2][HS_MAX_POINTS]; /* probes.points, ecg.electrodes entries */
    /* regions.[i].model: the names as written and where, resolved against model.type after the walk */
    char (*reg_param)[HS_MODEL_MAX_PARAMS][64];   /* [HS_MAX_REGIONS] */
    origin (*reg_param_o)[HS_MODEL_MAX_PARAMS];   /* [HS_MAX_REGIONS] */
    /* regions.[i].model.preset: a published parameter set of model.type ("" when none) and where */
    char reg_preset[HS_MAX_REGIONS][32];
    origin reg_preset_o[HS_MAX_REGIONS];
    int n_err;
    size_t len;
    char msg[4096];       /* the errors, one per line */
} load_ctx;

/* ---- a BOOL key's value: an int, or a double 0.0/1.0 (HS_CFG_DOUBLE: a model's switch) ---- */
static inline int hs_cfg_bool_get(const hs_cfg_key *k, const void *p)
{
    if (k->flags & HS_CFG_DOUBLE) {
        double v = *(const double *)p;
        return v == 0.0 ? 0 : v == 1.0 ? 1 : -1;
    }
    return *(const int *)p;
}
static inline void hs_cfg_bool_set(const hs_cfg_key *k, void *p, int v)
{
    if (k->flags & HS_CFG_DOUBLE) *(double *)p = v ? 1.0 : 0.0;
    else *(int *)p = v;
}

/* ---- suggestions for unknown keys (config_suggest.c) ---- */
int hs_cfg_is_section(const char *name);
int hs_cfg_osa_distance(const char *a, const char *b);
int hs_cfg_close_enough(int d, const char *typed);
const char *hs_cfg_suggest_key(const char *typed);
const char *hs_cfg_suggest_section(const char *typed, char *buf, size_t n);
const char *hs_cfg_section_list(char *buf, size_t n);
const char *hs_cfg_key_list(const char *section, char *buf, size_t n);

/* ---- errors (config_common.c) ---- */

/** Record one error, prefixed by its origin @p o (NULL: the config file, if any). */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void hs_cfg_report(load_ctx *x, const origin *o, const char *fmt, ...);
/** Turn the collected errors into the recorded HS_ERR_CONFIG (or HS_OK when none). */
hs_status hs_cfg_finish(load_ctx *x);
/** Origin of the (non-stimulus) key @p path when it was set, else NULL. */
const origin *hs_cfg_origin_key(const load_ctx *x, const char *path);

/* ---- schema helpers (config_common.c) ---- */

static inline int is_stim(const hs_cfg_key *k) { return (k->flags & HS_CFG_STIMULUS) != 0; }
static inline int is_region(const hs_cfg_key *k) { return (k->flags & HS_CFG_REGION) != 0; }
/** A key inside a list entry (stimulus or regions), not a "<section>.<name>" key of hs_config. */
static inline int is_member(const hs_cfg_key *k)
{
    return (k->flags & (HS_CFG_STIMULUS | HS_CFG_REGION | HS_CFG_POINT)) != 0;
}
/** The member rows of point list @p list ("probes.points"): "probes.points.[i].<leaf>". */
static inline int is_point_of(const hs_cfg_key *k, const char *list)
{
    size_t n = strlen(list);
    return (k->flags & HS_CFG_POINT) && strncmp(k->path, list, n) == 0 && k->path[n] == '.';
}

static inline const char *leaf_of(const char *path)
{
    const char *d = strrchr(path, '.');
    return d ? d + 1 : path;
}

static inline const void *cslot_of(const hs_cfg_key *k, const void *base)
{
    return (const char *)base + k->off;
}

/* The only optional shape keys are a surface site's center and radius (the restricting sphere):
 * they are in use when radius is not 0. */
static inline int stim_opt_used(const hs_stimulus_cfg *st) { return st->radius != 0.0; }

/** Index of the (non-stimulus) key with this exact path, or -1. */
int hs_cfg_key_index(const char *path);
/** Index of the regions key named @p leaf, or -1. */
int hs_cfg_region_key_index(const char *leaf);
/** Check the value of key @p k at @p base (range, emptiness...), reporting as @p shown (config_validate.c). */
void hs_cfg_check_value(load_ctx *x, const hs_cfg_key *k, const char *shown, const void *base, const origin *o);
/** Index of the stimulus key named @p leaf, or -1. */
int hs_cfg_stim_key_index(const char *leaf);
/** How stimulus key @p k serves a site of shape @p shape: 2 required, 1 allowed, 0 not allowed. */
int hs_cfg_shape_use(const hs_cfg_key *k, const char *shape);

/** Index of @p s among the '|'-separated @p choices, or -1. */
int hs_cfg_choice_index(const char *choices, const char *s);
/** Number of '|'-separated @p choices. */
int hs_cfg_choice_count(const char *choices);
/** The i-th choice, copied into buf. */
const char *hs_cfg_choice_at(const char *choices, int i, char *buf, size_t n);
/** "a, b, c" (with quotes when @p quote) from the choices. */
const char *hs_cfg_choices_list(const char *choices, int quote, char *buf, size_t n);

/* ---- a STRLIST key's value: hs_cfg_names (config_common.c) ---- */

/** Position of @p s in @p l, or -1. */
int hs_cfg_names_find(const hs_cfg_names *l, const char *s);
/** Append @p s (no check against the key's choices); 0 when the list is full or the name too long. */
int hs_cfg_names_add(hs_cfg_names *l, const char *s);
/** The list of the comma-separated names @p csv (a key's def_str); empty names and names that do not fit are dropped. */
hs_cfg_names hs_cfg_names_parse(const char *csv);

/* ---- formatting and files (config_common.c) ---- */

/** Shortest "%g" that reads back exactly, without an exponent from 1e-4 to 1e16. */
const char *hs_cfg_fmt_num(double v, char *buf, size_t n);
/** "> 0", ">= 1", "in (0, 1)" ... ("" when unbounded); "(a, b)" without "in " unless @p in_word. */
const char *hs_cfg_fmt_range(const hs_cfg_key *k, int in_word, char *buf, size_t n);
/** Can @p path be opened for reading? 0, or errno. */
int hs_cfg_readable(const char *path);

/* ---- the steps of hs_config_load ---- */

/** Apply one "--set KEY=VALUE" onto the parsed tree @p c (config_override.c). */
void hs_cfg_apply_override(load_ctx *x, config_t *c, const char *text);
/** Check ranges and the constraints between keys (config_validate.c). */
void hs_cfg_validate_all(load_ctx *x, const hs_config *cfg);

#endif
