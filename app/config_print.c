/* Printing: the resolved configuration as a libconfig file that loads back to the same values
 * (hs_config_print), and the key reference table of docs/config.md (hs_config_print_reference). */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include "hs_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"
#include "hs_models.h"

/* hs_cfg_fmt_num, always with a '.' or an exponent, so libconfig reads a float. */
static const char *fmt_double(double v, char *buf, size_t n)
{
    hs_cfg_fmt_num(v, buf, n);
    if (!strpbrk(buf, ".eEni") && strlen(buf) + 2 < n) strcat(buf, ".0");
    return buf;
}

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
    case HS_CFG_BOOL: fputs(hs_cfg_bool_get(k, p) ? "true" : "false", f); break;
    case HS_CFG_STRING: put_string(f, (const char *)p); break;
    case HS_CFG_ENUM:
        put_string(f, k->size ? (const char *)p
                              : hs_cfg_choice_at(k->choices, *(const int *)p, one, sizeof one));
        break;
    case HS_CFG_VEC3: {
        const double *v = (const double *)p;
        fprintf(f, "[%s, ", fmt_double(v[0], num, sizeof num));
        fprintf(f, "%s, ", fmt_double(v[1], num, sizeof num));
        fprintf(f, "%s]", fmt_double(v[2], num, sizeof num));
        break;
    }
    case HS_CFG_STRLIST: {
        const hs_cfg_names *l = (const hs_cfg_names *)p;
        fputc('[', f);
        for (int j = 0; j < l->n; ++j) {
            if (j) fputs(", ", f);
            put_string(f, l->name[j]);
        }
        fputc(']', f);
        break;
    }
    case HS_CFG_GROUPLIST: fputs("()", f); break;
    case HS_CFG_GROUP: fputs("{ }", f); break;
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
        comment = hs_cfg_choices_list(k->choices, 0, list, sizeof list);
    if (comment) {
        for (size_t i = len; i < 40; ++i) fputc(' ', f);
        fprintf(f, " # %s%s", k->type == HS_CFG_ENUM ? "one of: " : k->type == HS_CFG_STRLIST ? "any of: " : "", comment);
    }
    fputc('\n', f);
    free(line);
}

/* regions = ( { ... } ): each entry's selector keys, the conductivities it sets, its model group. */
static void print_regions(const hs_config *cfg, FILE *f)
{
    int n = cfg->n_regions < 0 ? 0 : cfg->n_regions > HS_MAX_REGIONS ? HS_MAX_REGIONS : cfg->n_regions;
    if (n == 0) {
        fputs("\nregions = ( );                           # none: uniform tissue\n", f);
        return;
    }
    const hs_model *m = hs_models_find(cfg->model_type);
    fputs("\nregions = (\n", f);
    for (int j = 0; j < n; ++j) {
        const hs_region_cfg *r = &cfg->regions[j];
        char sel[32], num[32];
        hs_cfg_choice_at(hs_cfg_keys()[hs_cfg_region_key_index("select")].choices, (int)r->select, sel, sizeof sel);
        fputs("  {\n", f);
        for (int q = 0; q < hs_cfg_nkeys(); ++q) {
            const hs_cfg_key *rk = &hs_cfg_keys()[q];
            if (!is_region(rk) || rk->type == HS_CFG_GROUP || hs_cfg_shape_use(rk, sel) == 0) continue;
            if (!strcmp(leaf_of(rk->path), "name") && !r->name[0]) continue;
            if (rk->def_num < 0 && *(const double *)((const char *)r + rk->off) < 0) continue; /* unset */
            put_line(f, "    ", rk, r);
        }
        if (r->n_params > 0 && m) {
            fputs("    model = {", f);
            for (int p = 0; p < r->n_params; ++p) {
                int idx = r->param_index[p];
                if (idx < 0 || idx >= m->n_params) continue;
                if (m->params[idx].kind == HS_PARAM_SWITCH)
                    fprintf(f, " %s = %s;", m->params[idx].name, r->param_value[p] != 0.0 ? "true" : "false");
                else
                    fprintf(f, " %s = %s;", m->params[idx].name, fmt_double(r->param_value[p], num, sizeof num));
            }
            fputs(" };\n", f);
        }
        fputs(j + 1 < n ? "  },\n" : "  }\n", f);
    }
    fputs(");\n", f);
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
    for (int i = 0; i < hs_cfg_nkeys(); ++i) {
        const hs_cfg_key *k = &hs_cfg_keys()[i];
        if (is_member(k)) continue;
        if (k->model && strcmp(k->model, cfg->model_type) != 0) continue; /* another model's parameter */
        if (k->type == HS_CFG_GROUPLIST && strchr(k->path, '.')) { /* a point list inside its section */
            size_t sl = strcspn(k->path, ".");
            if (strlen(section) != sl || strncmp(section, k->path, sl) != 0) {
                if (section[0]) fputs("};\n", f);
                snprintf(section, sizeof section, "%.*s", (int)sl, k->path);
                fprintf(f, "\n%s = {\n", section);
            }
            const hs_point_list *pl = (const hs_point_list *)((const char *)cfg + k->off);
            char num[3][40];
            fprintf(f, "  %s = (", leaf_of(k->path));
            for (int j = 0; j < pl->n && j < HS_MAX_POINTS; ++j) {
                fprintf(f, "%s\n    { name = ", j ? "," : "");
                put_string(f, pl->p[j].name);
                fprintf(f, "; at = [%s, %s, %s]; }", fmt_double(pl->p[j].at[0], num[0], sizeof num[0]),
                        fmt_double(pl->p[j].at[1], num[1], sizeof num[1]), fmt_double(pl->p[j].at[2], num[2], sizeof num[2]));
            }
            fputs(pl->n ? "\n  );\n" : " );\n", f);
            continue;
        }
        if (k->type == HS_CFG_GROUPLIST && !strcmp(k->path, "regions")) {
            if (section[0]) fputs("};\n", f);
            section[0] = '\0';
            print_regions(cfg, f);
            continue;
        }
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
                hs_cfg_choice_at(hs_cfg_keys()[hs_cfg_stim_key_index("shape")].choices, (int)st->shape,
                                 shape, sizeof shape);
                fputs("  {\n", f);
                for (int q = 0; q < hs_cfg_nkeys(); ++q) {
                    const hs_cfg_key *sk = &hs_cfg_keys()[q];
                    if (!is_stim(sk)) continue;
                    int use = hs_cfg_shape_use(sk, shape);
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
        /* the conductivity in one form only, so that the output loads again: tissue.sigma_* when given
         * (model.d_iso and d_ani, which they resolve to, as comments), else model.d_iso and d_ani */
        int by_sigma = cfg->sigma_il > 0.0;
        if (!strncmp(k->path, "tissue.sigma_", 13) && *(const double *)((const char *)cfg + k->off) <= 0.0) continue;
        if (by_sigma && (!strcmp(k->path, "model.d_iso") || !strcmp(k->path, "model.d_ani"))) {
            char num[40];
            hs_cfg_fmt_num(*(const double *)((const char *)cfg + k->off), num, sizeof num);
            fprintf(f, "  # %s = %s;  mm^2/ms, from tissue.sigma_*\n", leaf_of(k->path), num);
            continue;
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
        [HS_CFG_STRLIST] = "string list", [HS_CFG_GROUPLIST] = "list of groups", [HS_CFG_GROUP] = "group"};
    hs_config *def = malloc(sizeof *def);
    if (!def) return;
    hs_config_defaults(def);
    fputs("| key | type | unit | default | range | meaning |\n", f);
    fputs("|---|---|---|---|---|---|\n", f);
    for (int i = 0; i < hs_cfg_nkeys(); ++i) {
        const hs_cfg_key *k = &hs_cfg_keys()[i];
        fprintf(f, "| `%s` | %s | %s | ", k->path, type_name[k->type], k->unit);
        if (k->def_doc) {
            put_md(f, k->def_doc);
        } else {
            char *v = NULL;
            size_t len = 0;
            FILE *m = open_memstream(&v, &len);
            if (m) {
                static const hs_point_cfg no_point;
                put_value(m, k, is_stim(k) ? (const void *)&def->stimuli[0]
                                : is_region(k) ? (const void *)&def->regions[0]
                                : (k->flags & HS_CFG_POINT) ? (const void *)&no_point
                                                            : (const void *)def);
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
            put_md(f, hs_cfg_choices_list(k->choices, 1, r, sizeof r));
        else if (k->type == HS_CFG_STRLIST) {
            fputs("any of ", f);
            put_md(f, hs_cfg_choices_list(k->choices, 1, r, sizeof r));
        } else if (k->flags & HS_CFG_NONZERO)
            fputs("not [0, 0, 0]", f);
        else if (k->flags & HS_CFG_FILENAME)
            fputs("non-empty; letters, digits, `_` `.` `-`", f);
        else if (k->flags & HS_CFG_NONEMPTY)
            fputs("non-empty", f);
        else if (k->type == HS_CFG_GROUPLIST)
            fprintf(f, "at most %d entries", !strcmp(k->path, "regions") ? HS_MAX_REGIONS
                                             : strchr(k->path, '.') ? HS_MAX_POINTS : HS_MAX_STIMULI);
        else
            put_md(f, hs_cfg_fmt_range(k, 0, r, sizeof r));
        fputs(" | ", f);
        put_md(f, k->meaning);
        fputs(" |\n", f);
    }
    free(def);
}
