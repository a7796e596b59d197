/* Validation: every value against its key's type and range, then the constraints between keys
 * (mesh source and files, fibres, stimuli, time step, output, solver). Used on a freshly loaded
 * config (with origins, so errors point at the line or --set that set the value) and by
 * hs_config_validate on any hs_config (errors then name only the config file). */
#include "hs_config.h"
#include "hs_precond.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"
#include "hs_mesh_io.h"
#include "hs_models.h"
#include "hs_surface.h"
#include "mesh_path.h" /* hs_registry_find_ext: the readers' lookup by extension */
#include "hs_spmv.h"

/* The first of the keys (NULL-terminated) that was set, for a constraint between keys. */
static const origin *origin_any(const load_ctx *x, const char *first, ...)
{
    const origin *o = NULL;
    va_list ap;
    va_start(ap, first);
    for (const char *p = first; p && !o; p = va_arg(ap, const char *)) o = hs_cfg_origin_key(x, p);
    va_end(ap);
    return o;
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

static int in_range(const hs_cfg_key *k, double v)
{
    if ((k->flags & HS_CFG_MIN_OPEN) && !(v > k->min)) return 0;
    if ((k->flags & HS_CFG_MIN_CLOSED) && !(v >= k->min)) return 0;
    if ((k->flags & HS_CFG_MAX_OPEN) && !(v < k->max)) return 0;
    if ((k->flags & HS_CFG_MAX_CLOSED) && !(v <= k->max)) return 0;
    return 1;
}

/* Check one stored value against its key's type and range. */
void hs_cfg_check_value(load_ctx *x, const hs_cfg_key *k, const char *shown, const void *base,
                        const origin *o)
{
    const void *p = cslot_of(k, base);
    char num[32], rng[96], u[32], list[256];
    switch (k->type) {
    case HS_CFG_FLOAT: {
        double v = *(const double *)p;
        if (!isfinite(v))
            hs_cfg_report(x, o, "%s = %g is not a finite number", shown, v);
        else if (!in_range(k, v))
            hs_cfg_report(x, o, "%s = %s%s is out of range: must be %s", shown,
                          hs_cfg_fmt_num(v, num, sizeof num), unit_suffix(k, u, sizeof u),
                          hs_cfg_fmt_range(k, 1, rng, sizeof rng));
        break;
    }
    case HS_CFG_INT: {
        int v = *(const int *)p;
        if (!in_range(k, v))
            hs_cfg_report(x, o, "%s = %d%s is out of range: must be %s", shown, v,
                          unit_suffix(k, u, sizeof u), hs_cfg_fmt_range(k, 1, rng, sizeof rng));
        break;
    }
    case HS_CFG_BOOL:
        if (hs_cfg_bool_get(k, p) != 0 && hs_cfg_bool_get(k, p) != 1)
            hs_cfg_report(x, o, "%s = %d: must be true (1) or false (0)", shown, hs_cfg_bool_get(k, p));
        break;
    case HS_CFG_STRING:
    case HS_CFG_ENUM: {
        if (k->type == HS_CFG_ENUM && !k->size) {
            int v = *(const int *)p;
            if (v < 0 || v >= hs_cfg_choice_count(k->choices))
                hs_cfg_report(x, o, "%s: invalid choice index %d; allowed: %s", shown, v,
                              hs_cfg_choices_list(k->choices, 1, list, sizeof list));
            break;
        }
        const char *s = (const char *)p;
        if (!memchr(s, '\0', k->size)) {
            hs_cfg_report(x, o, "%s: not a terminated string", shown);
            break;
        }
        if (k->type == HS_CFG_ENUM && hs_cfg_choice_index(k->choices, s) < 0)
            hs_cfg_report(x, o, "%s: unknown value \"%s\"; allowed: %s", shown, s,
                          hs_cfg_choices_list(k->choices, 1, list, sizeof list));
        if ((k->flags & HS_CFG_NONEMPTY) && !s[0]) hs_cfg_report(x, o, "%s: must not be empty", shown);
        if (k->flags & HS_CFG_FILENAME) {
            for (const char *c = s; *c; ++c) {
                if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
                      (*c >= '0' && *c <= '9') || *c == '_' || *c == '.' || *c == '-')) {
                    hs_cfg_report(x, o, "%s = \"%s\": only letters, digits, '_', '.' and '-' are allowed",
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
            hs_cfg_report(x, o, "%s: components must be finite numbers", shown);
        else if ((k->flags & HS_CFG_NONZERO) && v[0] == 0.0 && v[1] == 0.0 && v[2] == 0.0)
            hs_cfg_report(x, o, "%s = [0, 0, 0]: must not be the zero vector", shown);
        break;
    }
    case HS_CFG_STRLIST: {
        const hs_cfg_names *l = (const hs_cfg_names *)p;
        if (l->n < 0 || l->n > HS_CFG_LIST_MAX) {
            hs_cfg_report(x, o, "%s: %d names; at most %d", shown, l->n, HS_CFG_LIST_MAX);
            break;
        }
        for (int j = 0; j < l->n; ++j) {
            const char *v = l->name[j];
            if (!memchr(v, '\0', sizeof l->name[j]) || hs_cfg_choice_index(k->choices, v) < 0) {
                char list[2048];
                hs_cfg_report(x, o, "%s: unknown value \"%.*s\"; allowed: %s", shown, (int)sizeof l->name[j], v,
                              hs_cfg_choices_list(k->choices, 1, list, sizeof list));
            } else if (hs_cfg_names_find(l, v) < j) {
                hs_cfg_report(x, o, "%s: \"%s\" is listed twice", shown, v);
            }
        }
        break;
    }
    case HS_CFG_GROUPLIST:
    case HS_CFG_GROUP: break;
    }
}

/* mesh.file of a source that reads files: present and hs_cfg_readable. */
static void check_mesh_file(load_ctx *x, const hs_config *cfg)
{
    const char *src = cfg->mesh_source;
    const origin *of = hs_cfg_origin_key(x, "mesh.file");
    if (!cfg->mesh_file[0]) {
        static const char *const what[3][2] = {
            {"tetgen", "the TetGen prefix: PREFIX.node and PREFIX.ele are read"},
            {"file", "a volume mesh: .vtk, .vtu, .msh, .pts/.elem (openCARP), .node/.ele"},
            {"surface", "a closed surface: .stl, .off, .ply, .poly, .smesh, .vtp"}};
        for (int i = 0; i < 3; ++i)
            if (!strcmp(src, what[i][0]))
                hs_cfg_report(x, origin_any(x, "mesh.source", NULL), "mesh.source = \"%s\" needs mesh.file (%s)", src,
                              what[i][1]);
        return;
    }
    if (!strcmp(src, "tetgen")) {
        static const char *const ext[2] = {".node", ".ele"};
        for (int e = 0; e < 2; ++e) {
            char f[HS_PATH_MAX + 8];
            snprintf(f, sizeof f, "%s%s", cfg->mesh_file, ext[e]);
            int er = hs_cfg_readable(f);
            if (er) hs_cfg_report(x, of, "mesh.file: cannot read \"%s\": %s", f, strerror(er));
        }
        return;
    }
    int er = hs_cfg_readable(cfg->mesh_file);
    /* The format is chosen by extension (meshes/hs_*_reader_list.h): an unknown one is refused here,
     * as `heartsim check` would otherwise call the config valid and the run fail later. */
    if (!strcmp(src, "surface") && !hs_registry_find_ext(hs_surface_readers(), cfg->mesh_file)) {
        char known[256];
        hs_cfg_report(x, of, "mesh.file: \"%s\": not a surface format heartsim reads (by extension: %s)%s",
                      cfg->mesh_file, hs_registry_names(hs_surface_readers(), known, sizeof known),
                      hs_registry_find_ext(hs_mesh_readers(), cfg->mesh_file)
                          ? "; this is a volume mesh: use mesh.source = \"file\"" : "");
        return;
    }
    if (!er && !strcmp(src, "file") && !hs_registry_find_ext(hs_mesh_readers(), cfg->mesh_file)) {
        char known[256];
        hs_cfg_report(x, of, "mesh.file: \"%s\": not a volume mesh format heartsim reads (by extension: %s)%s",
                      cfg->mesh_file, hs_registry_names(hs_mesh_readers(), known, sizeof known),
                      hs_registry_find_ext(hs_surface_readers(), cfg->mesh_file)
                          ? "; this is a surface: use mesh.source = \"surface\"" : "");
        return;
    }
    if (er && !strcmp(src, "file")) {
        /* a prefix names an openCARP (PREFIX.elem) or TetGen (PREFIX.ele) mesh */
        char f[HS_PATH_MAX + 8];
        snprintf(f, sizeof f, "%s.elem", cfg->mesh_file);
        int e1 = hs_cfg_readable(f);
        snprintf(f, sizeof f, "%s.ele", cfg->mesh_file);
        if (e1 == 0 || hs_cfg_readable(f) == 0) er = 0;
    }
    if (er) hs_cfg_report(x, of, "mesh.file: cannot read \"%s\": %s", cfg->mesh_file, strerror(er));
}

static void validate_mesh(load_ctx *x, const hs_config *cfg)
{
    char a[32], b[32];
    const char *src = cfg->mesh_source;
    int from_file = !strcmp(src, "tetgen") || !strcmp(src, "file") || !strcmp(src, "surface");
    if (from_file && memchr(cfg->mesh_file, '\0', sizeof cfg->mesh_file)) check_mesh_file(x, cfg);
    if (!from_file && cfg->mesh_scale != 1.0 && isfinite(cfg->mesh_scale))
        hs_cfg_report(x, origin_any(x, "mesh.scale", "mesh.source", NULL),
                      "mesh.scale = %s applies to meshes read from files (mesh.source = \"tetgen\", \"file\" or "
                      "\"surface\"); the %s mesh is built in mm from its own size keys",
                      hs_cfg_fmt_num(cfg->mesh_scale, a, sizeof a), src);
    if (strcmp(src, "surface") != 0 && cfg->mesh_label_array[0])
        hs_cfg_report(x, origin_any(x, "mesh.label_array", "mesh.source", NULL),
                      "mesh.label_array = \"%s\" applies to .vtp surfaces (mesh.source = \"surface\"); this mesh is "
                      "\"%s\"", cfg->mesh_label_array, src);
    if (!strcmp(src, "ellipsoid_lv")) {
        const hs_lv_params *p = &cfg->lv;
        if (p->rs_epi <= p->rs_endo)
            hs_cfg_report(x, origin_any(x, "mesh.lv_epi_short", "mesh.lv_endo_short", NULL),
                          "mesh.lv_epi_short = %s mm must be larger than mesh.lv_endo_short = %s mm (the wall needs a "
                          "thickness)", hs_cfg_fmt_num(p->rs_epi, a, sizeof a), hs_cfg_fmt_num(p->rs_endo, b, sizeof b));
        if (p->rl_epi <= p->rl_endo)
            hs_cfg_report(x, origin_any(x, "mesh.lv_epi_long", "mesh.lv_endo_long", NULL),
                          "mesh.lv_epi_long = %s mm must be larger than mesh.lv_endo_long = %s mm (the wall needs a "
                          "thickness)", hs_cfg_fmt_num(p->rl_epi, a, sizeof a), hs_cfg_fmt_num(p->rl_endo, b, sizeof b));
        if (!(fabs(p->z_base) < p->rl_endo))
            hs_cfg_report(x, origin_any(x, "mesh.lv_base_z", "mesh.lv_endo_long", NULL),
                          "mesh.lv_base_z = %s mm must lie strictly between -mesh.lv_endo_long and mesh.lv_endo_long "
                          "(+-%s mm), so that the base plane opens the cavity", hs_cfg_fmt_num(p->z_base, a, sizeof a),
                          hs_cfg_fmt_num(p->rl_endo, b, sizeof b));
    }
}

static void validate_fibers(load_ctx *x, const hs_config *cfg)
{
    const char *t = cfg->fiber_type, *src = cfg->mesh_source;
    if (!memchr(cfg->fiber_file, '\0', sizeof cfg->fiber_file)) return;
    if (!strcmp(t, "ellipsoid") && strcmp(src, "ellipsoid_lv") != 0)
        hs_cfg_report(x, origin_any(x, "fibers.type", "mesh.source", NULL),
                      "fibers.type = \"ellipsoid\" is the rule of the built-in ventricle and needs mesh.source = "
                      "\"ellipsoid_lv\" (this one is \"%s\"); for other meshes use \"constant\" or \"file\"", src);
    if (!strcmp(t, "mesh") && strcmp(src, "file") != 0)
        hs_cfg_report(x, origin_any(x, "fibers.type", "mesh.source", NULL),
                      "fibers.type = \"mesh\" keeps the fibres stored in mesh.file and needs mesh.source = \"file\" "
                      "(this one is \"%s\")", src);
    if (!strcmp(t, "file")) {
        if (!cfg->fiber_file[0]) {
            hs_cfg_report(x, origin_any(x, "fibers.type", NULL),
                          "fibers.type = \"file\" needs fibers.file (3 numbers per line, per element or per node)");
        } else {
            int er = hs_cfg_readable(cfg->fiber_file);
            if (er)
                hs_cfg_report(x, origin_any(x, "fibers.file", NULL), "fibers.file: cannot read \"%s\": %s",
                              cfg->fiber_file, strerror(er));
        }
    } else if (cfg->fiber_file[0]) {
        hs_cfg_report(x, origin_any(x, "fibers.file", NULL),
                      "fibers.file is only read with fibers.type = \"file\" (this one is \"%s\")", t);
    }
}

void hs_cfg_validate_all(load_ctx *x, const hs_config *cfg)
{
    char shown[128], a[32], b[32];
    int len = hs_cfg_nkeys();

    for (int k = 0; k < len; ++k) {
        const hs_cfg_key *key = &hs_cfg_keys()[k];
        if (is_member(key) || key->type == HS_CFG_GROUPLIST) continue;
        hs_cfg_check_value(x, key, key->path, cfg, hs_cfg_origin_key(x, key->path));
    }

    /* stimuli */
    if (cfg->n_stimuli < 0 || cfg->n_stimuli > HS_MAX_STIMULI)
        hs_cfg_report(x, hs_cfg_origin_key(x, "stimulus"), "stimulus: %d entries; must be 0 to %d",
                      cfg->n_stimuli, HS_MAX_STIMULI);
    int ks = hs_cfg_stim_key_index("shape");
    for (int j = 0; j < cfg->n_stimuli && j < HS_MAX_STIMULI; ++j) {
        const hs_stimulus_cfg *st = &cfg->stimuli[j];
        const origin *og = x->stim ? &x->stim_group[j] : NULL;
        char shape[32];
        hs_cfg_choice_at(hs_cfg_keys()[ks].choices, (int)st->shape, shape, sizeof shape);
        for (int k = 0; k < len; ++k) {
            const hs_cfg_key *key = &hs_cfg_keys()[k];
            if (!is_stim(key)) continue;
            int use = hs_cfg_shape_use(key, shape);
            if (use == 0 || (use == 1 && key->shape && !stim_opt_used(st))) continue;
            const origin *o = x->stim && x->stim[(size_t)j * (size_t)len + (size_t)k].set
                                  ? &x->stim[(size_t)j * (size_t)len + (size_t)k]
                                  : og;
            snprintf(shown, sizeof shown, "stimulus.[%d].%s", j, leaf_of(key->path));
            hs_cfg_check_value(x, key, shown, st, o);
        }
        if (st->shape == HS_STIM_SURFACE && st->radius < 0.0)
            hs_cfg_report(x, og, "stimulus.[%d].radius = %s mm is out of range: must be > 0 (or 0 for the whole "
                          "labelled surface)", j, hs_cfg_fmt_num(st->radius, a, sizeof a));
        if (st->shape == HS_STIM_NODES && st->file[0] && memchr(st->file, '\0', sizeof st->file)) {
            int er = hs_cfg_readable(st->file);
            int kf = hs_cfg_stim_key_index("file");
            const origin *of = x->stim && x->stim[(size_t)j * (size_t)len + (size_t)kf].set
                                   ? &x->stim[(size_t)j * (size_t)len + (size_t)kf]
                                   : og;
            if (er) hs_cfg_report(x, of, "stimulus.[%d].file: cannot read \"%s\": %s", j, st->file, strerror(er));
        }
        if (st->count > 1 && !(st->period > st->duration)) {
            int kp = hs_cfg_stim_key_index(st->period > 0.0 ? "period" : "count");
            const origin *op = x->stim && x->stim[(size_t)j * (size_t)len + (size_t)kp].set
                                   ? &x->stim[(size_t)j * (size_t)len + (size_t)kp]
                                   : og;
            if (st->period > 0.0)
                hs_cfg_report(x, op, "stimulus.[%d].period = %s ms must be longer than stimulus.[%d].duration = %s ms "
                              "(count = %d pulses; touching pulses would be one long pulse)", j,
                              hs_cfg_fmt_num(st->period, a, sizeof a), j, hs_cfg_fmt_num(st->duration, b, sizeof b),
                              st->count);
            else
                hs_cfg_report(x, op, "stimulus.[%d].count = %d needs stimulus.[%d].period (ms between pulse starts, "
                              "longer than duration = %s ms)", j, st->count, j,
                              hs_cfg_fmt_num(st->duration, b, sizeof b));
        }
        if (st->shape == HS_STIM_BOX) {
            static const char axis[3] = {'x', 'y', 'z'};
            for (int d = 0; d < 3; ++d) {
                if (!(st->min[d] < st->max[d])) {
                    hs_cfg_report(x, og, "stimulus.[%d]: box min must be < max on every axis; on %c: "
                                  "min %s >= max %s mm", j, axis[d],
                                  hs_cfg_fmt_num(st->min[d], a, sizeof a), hs_cfg_fmt_num(st->max[d], b, sizeof b));
                    break;
                }
            }
        }
    }

    /* regions */
    if (cfg->n_regions < 0 || cfg->n_regions > HS_MAX_REGIONS)
        hs_cfg_report(x, hs_cfg_origin_key(x, "regions"), "regions: %d entries; must be 0 to %d", cfg->n_regions,
                      HS_MAX_REGIONS);
    int ksel = hs_cfg_region_key_index("select");
    for (int j = 0; j < cfg->n_regions && j < HS_MAX_REGIONS; ++j) {
        const hs_region_cfg *r = &cfg->regions[j];
        const origin *og = x->reg ? &x->reg_group[j] : NULL;
        char sel[32];
        hs_cfg_choice_at(hs_cfg_keys()[ksel].choices, (int)r->select, sel, sizeof sel);
        for (int k = 0; k < len; ++k) {
            const hs_cfg_key *key = &hs_cfg_keys()[k];
            if (!is_region(key) || key->type == HS_CFG_GROUP) continue;
            const origin *o = x->reg && x->reg[(size_t)j * (size_t)len + (size_t)k].set
                                  ? &x->reg[(size_t)j * (size_t)len + (size_t)k]
                                  : NULL;
            int use = hs_cfg_shape_use(key, sel);
            if (use == 0) continue;
            /* d_iso, d_ani: -1 when unset */
            if (!o && key->def_num < 0 && *(const double *)((const char *)r + key->off) < 0) continue;
            snprintf(shown, sizeof shown, "regions.[%d].%s", j, leaf_of(key->path));
            hs_cfg_check_value(x, key, shown, r, o ? o : og);
        }
        if (r->select == HS_REGION_ELEMENTS && r->file[0] && memchr(r->file, '\0', sizeof r->file)) {
            int er = hs_cfg_readable(r->file);
            int kf = hs_cfg_region_key_index("file");
            const origin *of = x->reg && x->reg[(size_t)j * (size_t)len + (size_t)kf].set
                                   ? &x->reg[(size_t)j * (size_t)len + (size_t)kf]
                                   : og;
            if (er) hs_cfg_report(x, of, "regions.[%d].file: cannot read \"%s\": %s", j, r->file, strerror(er));
        }
        if (r->select == HS_REGION_BOX) {
            static const char axis[3] = {'x', 'y', 'z'};
            for (int d = 0; d < 3; ++d) {
                if (!(r->min[d] < r->max[d])) {
                    hs_cfg_report(x, og, "regions.[%d]: box min must be < max on every axis; on %c: min %s >= max %s mm",
                                  j, axis[d], hs_cfg_fmt_num(r->min[d], a, sizeof a),
                                  hs_cfg_fmt_num(r->max[d], b, sizeof b));
                    break;
                }
            }
        }
    }

    /* time */
    if (cfg->dt > 0 && cfg->t_end > 0 && cfg->t_end < cfg->dt)
        hs_cfg_report(x, origin_any(x, "time.t_end", "time.dt", NULL),
                      "time.t_end = %s ms is smaller than time.dt = %s ms: must be >= time.dt",
                      hs_cfg_fmt_num(cfg->t_end, a, sizeof a), hs_cfg_fmt_num(cfg->dt, b, sizeof b));
    /* The step count ceil(t_end/dt) must be a number the time loop can count and a checkpoint name
     * can hold (9 digits: PREFIX_ckpt_STEP.hsck); the frame count t_end/output.interval + 1 one a
     * frame name can hold (6 digits: PREFIX_NNNNNN.vtk). A dt of 1e-20 ms would otherwise overflow the
     * step counter and run zero steps, silently. */
    if (cfg->dt > 0 && cfg->t_end > 0) {
        double steps = ceil(cfg->t_end / cfg->dt - 1e-9);
        if (!(steps <= HS_CFG_MAX_STEPS))
            hs_cfg_report(x, origin_any(x, "time.dt", "time.t_end", NULL),
                          "time.t_end / time.dt = %s / %s ms is %.3g steps: at most %.0f steps per run "
                          "(raise time.dt or lower time.t_end)",
                          hs_cfg_fmt_num(cfg->t_end, a, sizeof a), hs_cfg_fmt_num(cfg->dt, b, sizeof b), steps,
                          (double)HS_CFG_MAX_STEPS);
    }
    if (cfg->output_enabled && cfg->out_interval > 0 && cfg->t_end > 0) {
        double frames = floor(cfg->t_end / cfg->out_interval + 1e-9) + 1.0;
        if (!(frames <= HS_CFG_MAX_FRAMES))
            hs_cfg_report(x, origin_any(x, "output.interval", "time.t_end", NULL),
                          "time.t_end / output.interval = %s / %s ms is %.3g frames: at most %.0f frames per run "
                          "(raise output.interval)",
                          hs_cfg_fmt_num(cfg->t_end, a, sizeof a), hs_cfg_fmt_num(cfg->out_interval, b, sizeof b),
                          frames, (double)HS_CFG_MAX_FRAMES);
    }
    /* the model: its parameters apply only when it is selected; dt below its tangent bound */
    const hs_model *model = hs_models_find(cfg->model_type);
    for (int i = 0; x->key && model && i < hs_cfg_nkeys(); ++i) {
        const hs_cfg_key *k = &hs_cfg_keys()[i];
        if (k->model && x->key[i].set && strcmp(k->model, model->name) != 0)
            hs_cfg_report(x, &x->key[i], "%s is a parameter of model %s, and model.type is \"%s\"", k->path, k->model,
                          model->name);
    }
    if (model && cfg->model_gates != HS_GATES_NEWTON && !model->has_gates) {
        char with[256] = "";
        size_t len = 0;
        for (int i = 0; i < hs_models_count(); ++i)
            if (hs_models_at(i)->has_gates) {
                int w = snprintf(with + len, sizeof with - len, "%s%s", len ? ", " : "", hs_models_at(i)->name);
                if (w > 0 && (size_t)w < sizeof with - len) len += (size_t)w;
            }
        hs_cfg_report(x, origin_any(x, "model.gates", "model.type", NULL),
                      "model.gates = \"rush_larsen\": model %s has no gating variable (its variables are solved by the "
                      "local Newton); the gate schemes apply to %s", model->name, with);
    }
    double dt_max = model && model->dt_max ? model->dt_max(cfg->model_prm[model->id]) * cfg->time_unit : INFINITY;
    /* the Newton tangent's bound; the splitting scheme (named, or "auto" for this model: app/spec.c) has
     * no tangent, its diffusion matrix is SPD at every dt */
    const int splitting = !strcmp(cfg->scheme, "splitting") ||
                          (!strcmp(cfg->scheme, "auto") && model && !(model->schemes & HS_MODEL_SCHEME_NEWTON));
    if (!splitting && cfg->dt > 0 && isfinite(dt_max) && cfg->dt >= dt_max) {
        /* the shortest rounding of dt_max that is still a safe bound (<= dt_max) */
        /* 3 significant digits, rounded down so that every dt below the printed bound works */
        double q = pow(10.0, floor(log10(dt_max)) - 2.0);
        snprintf(b, sizeof b, "%.3g", dt_max);
        if (strtod(b, NULL) > dt_max) snprintf(b, sizeof b, "%.3g", floor(dt_max / q) * q);
        /* the line of whichever key was set: time.dt, then the model's parameters, then the time unit */
        const origin *o = origin_any(x, "time.dt", NULL);
        for (int i = 0; !o && x->key && i < hs_cfg_nkeys(); ++i)
            if (hs_cfg_keys()[i].model && !strcmp(hs_cfg_keys()[i].model, model->name) && x->key[i].set) o = &x->key[i];
        if (!o) o = origin_any(x, "model.time_unit", NULL);
        hs_cfg_report(x, o,
                      "time.dt = %s ms makes the Newton tangent indefinite (1/dt - max df_phi/dphi <= 0): "
                      "must be < %s ms for these model parameters",
                      hs_cfg_fmt_num(cfg->dt, a, sizeof a), b);
    }

    /* output */
    if (cfg->output_enabled && cfg->out_interval > 0 && cfg->dt > 0 &&
        cfg->out_interval < cfg->dt)
        hs_cfg_report(x, origin_any(x, "output.interval", "time.dt", NULL),
                      "output.interval = %s ms is smaller than time.dt = %s ms: must be >= time.dt",
                      hs_cfg_fmt_num(cfg->out_interval, a, sizeof a), hs_cfg_fmt_num(cfg->dt, b, sizeof b));

    /* spmv tunables */
    if (cfg->spmv_params.block_size % 32 != 0 || cfg->spmv_params.block_size > 1024)
        hs_cfg_report(x, hs_cfg_origin_key(x, "spmv.block_size"),
                      "spmv.block_size = %d is not a multiple of 32 in [32, 1024] (a whole number of warps per block)",
                      cfg->spmv_params.block_size);

    /* solver */
    if (cfg->spmv[0] && memchr(cfg->spmv, '\0', sizeof cfg->spmv) && strcmp(cfg->spmv, "auto") != 0) {
        const hs_spmv_ops *ops = hs_spmv_find(cfg->spmv);
        if (!ops)
            hs_cfg_report(x, hs_cfg_origin_key(x, "solver.spmv"),
                          "solver.spmv: unknown kernel \"%s\"; available: auto, %s", cfg->spmv,
                          hs_spmv_names());
        else if (ops->needs_device && !strcmp(cfg->backend, "cpu"))
            hs_cfg_report(x, origin_any(x, "solver.spmv", "solver.backend", NULL),
                          "solver.spmv: kernel \"%s\" runs only on the cuda backend, but solver.backend = "
                          "\"cpu\"", cfg->spmv);
        else if (!strcmp(cfg->matrix_values, "float32") && !hs_spmv_serves(ops, HS_VALUES_F32) &&
                 hs_spmv_check_values("solver.matrix_values", ops, HS_VALUES_F32) != HS_OK) {
            hs_cfg_report(x, origin_any(x, "solver.matrix_values", "solver.spmv", NULL), "%s", hs_error_message());
            hs_error_clear();
        }
    }

    if (cfg->precond[0] && memchr(cfg->precond, '\0', sizeof cfg->precond) && cfg->krylov[0] &&
        memchr(cfg->krylov, '\0', sizeof cfg->krylov)) {
        char known[256];
        const hs_precond_info *pi = hs_registry_find(hs_preconds(), cfg->precond);
        const hs_krylov_info *ki = hs_registry_find(hs_krylovs(), cfg->krylov);
        if (!pi)
            hs_cfg_report(x, hs_cfg_origin_key(x, "solver.precond"), "solver.precond: unknown preconditioner \"%s\"; available: %s",
                          cfg->precond, hs_registry_names(hs_preconds(), known, sizeof known));
        if (!ki)
            hs_cfg_report(x, hs_cfg_origin_key(x, "solver.krylov"), "solver.krylov: unknown Krylov method \"%s\"; available: %s",
                          cfg->krylov, hs_registry_names(hs_krylovs(), known, sizeof known));
        if (pi && ki && ki->needs_symmetric && !pi->symmetric)
            hs_cfg_report(x, origin_any(x, "solver.precond", "solver.krylov", NULL),
                          "solver.precond = \"%s\" is not symmetric, so solver.krylov = \"%s\" cannot use it: use "
                          "solver.precond = \"fsai\" (its factorised symmetric form) with %s, or solver.krylov = "
                          "\"bicgstab\" with %s", pi->name, ki->name, ki->name, pi->name);
    }

    /* solver.cg = "pipelined" is a Jacobi-PCG (solvers/cg_pipelined.c): the Krylov methods of another
     * preconditioner (solvers/krylov.c) run classic or Chronopoulos-Gear CG, so it would not be the one run */
    if (!strcmp(cfg->cg_variant, "pipelined") &&
        ((cfg->precond[0] && strcmp(cfg->precond, "jacobi") != 0) || (cfg->krylov[0] && strcmp(cfg->krylov, "cg") != 0)))
        hs_cfg_report(x, origin_any(x, "solver.cg", "solver.precond", "solver.krylov", NULL),
                      "solver.cg = \"pipelined\" is Jacobi-preconditioned CG: solver.precond = \"%s\" with "
                      "solver.krylov = \"%s\" is not available with it; use solver.precond = \"jacobi\" and "
                      "solver.krylov = \"cg\", or another solver.cg", cfg->precond, cfg->krylov);

    /* solver.step = "persistent": what its kernel implements (split assembly, Jacobi-CG Chronopoulos-Gear
     * with the one-barrier persistent CG inside) */
    if (!strcmp(cfg->step, "persistent")) {
        /* the splitting scheme assembles no tangent: its persistent kernel (split_persist.cu) ignores the key */
        if (!splitting && strcmp(cfg->assembly, "split") != 0)
            hs_cfg_report(x, origin_any(x, "solver.step", "solver.assembly", NULL),
                          "solver.step = \"persistent\" needs solver.assembly = \"split\" (its kernel assembles the "
                          "split form), not \"%s\"; or use solver.step = \"graph\"", cfg->assembly);
        if (strcmp(cfg->cg_variant, "chronopoulos") != 0)
            hs_cfg_report(x, origin_any(x, "solver.step", "solver.cg", NULL),
                          "solver.step = \"persistent\" runs Chronopoulos-Gear CG inside its kernel: solver.cg = "
                          "\"%s\" is not available there; set solver.cg = \"chronopoulos\" or use solver.step = "
                          "\"graph\"", cfg->cg_variant);
        if (!strcmp(cfg->persistent, "off"))
            hs_cfg_report(x, origin_any(x, "solver.step", "solver.persistent", NULL),
                          "solver.step = \"persistent\" includes the persistent CG kernel: solver.persistent = "
                          "\"off\" contradicts it; set solver.persistent = \"auto\"");
    }

    /* the device's Newton loops (solver.step = "graph": the captured solve, backends/cuda/step_graph.cu;
     * "persistent": its kernel) run Jacobi-CG only: another preconditioner or Krylov method would not be
     * the one run */
    if ((!strcmp(cfg->step, "graph") || !strcmp(cfg->step, "persistent")) &&
        ((cfg->precond[0] && strcmp(cfg->precond, "jacobi") != 0) || (cfg->krylov[0] && strcmp(cfg->krylov, "cg") != 0)))
        hs_cfg_report(x, origin_any(x, "solver.step", "solver.precond", "solver.krylov", NULL),
                      "solver.step = \"%s\" runs Jacobi-preconditioned CG inside its device Newton loop: "
                      "solver.precond = \"%s\" with solver.krylov = \"%s\" is not available there; use "
                      "solver.step = \"kernels\"", cfg->step, cfg->precond, cfg->krylov);

    validate_mesh(x, cfg);
    validate_fibers(x, cfg);
}

hs_status hs_config_validate(const hs_config *cfg)
{
    HS_CHECK(cfg, HS_ERR_INTERNAL, "hs_config_validate: cfg is NULL");
    load_ctx x;
    memset(&x, 0, sizeof x);
    x.path = memchr(cfg->path, '\0', sizeof cfg->path) ? cfg->path : "";
    hs_cfg_validate_all(&x, cfg);
    return hs_cfg_finish(&x);
}
