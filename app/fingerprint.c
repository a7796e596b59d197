/* Checkpoint fingerprints of the config (hs_spec.h): a restart must compute the same physics. */
#include <string.h>

#include "hs_hash.h"
#include "hs_spec.h"

/* Values are hashed one by one (never the struct: padding bytes are undefined). */
static uint64_t fp_d(uint64_t h, double v)
{
    if (v == 0.0) v = 0.0; /* -0.0 and 0.0 are the same setting */
    return hs_fnv1a64(h, &v, sizeof v);
}
static uint64_t fp_i(uint64_t h, int64_t v) { return hs_fnv1a64(h, &v, sizeof v); }
static uint64_t fp_s(uint64_t h, const char *s) { return hs_fnv1a64(h, s, strlen(s) + 1); }

/* model.*: the selected model's name (except for the first model of the list, whose checkpoints
 * were written before there was a choice), its real parameters in its order, the tissue keys d_iso,
 * d_ani, time_unit, then its switches (as integers). */
static uint64_t fp_model(const hs_config *c)
{
    const hs_model *m = hs_models_find(c->model_type);
    uint64_t h = HS_FNV_OFFSET;
    if (!m) return fp_s(h, c->model_type); /* not reached: spec.c refuses an unknown model first */
    if (m != hs_models_at(0)) h = fp_s(h, m->name);
    const double *v = c->model_prm[m->id];
    for (int k = 0; k < m->n_params; ++k)
        if (m->params[k].kind == HS_PARAM_REAL) h = fp_d(h, v[k]);
    h = fp_d(h, c->d_iso), h = fp_d(h, c->d_ani), h = fp_d(h, c->time_unit);
    for (int k = 0; k < m->n_params; ++k)
        if (m->params[k].kind == HS_PARAM_SWITCH) h = fp_i(h, v[k] != 0.0);
    if (c->model_gates) h = fp_i(h, c->model_gates); /* the gate scheme changes the state (newton hashes as before) */
    /* regions (only when there are some: checkpoints of uniform runs keep their fingerprint) */
    if (c->n_regions > 0) h = fp_i(h, c->n_regions);
    for (int j = 0; j < c->n_regions; ++j) {
        const hs_region_cfg *r = &c->regions[j];
        h = fp_i(h, (int64_t)r->select), h = fp_i(h, r->attribute);
        for (int k = 0; k < 3; ++k) h = fp_d(h, r->min[k]), h = fp_d(h, r->max[k]), h = fp_d(h, r->center[k]);
        h = fp_d(h, r->radius), h = fp_s(h, r->label), h = fp_d(h, r->distance), h = fp_s(h, r->file);
        h = fp_d(h, r->d_iso), h = fp_d(h, r->d_ani), h = fp_i(h, r->n_params);
        for (int p = 0; p < r->n_params; ++p) h = fp_i(h, r->param_index[p]), h = fp_d(h, r->param_value[p]);
    }
    return h;
}

void hs_config_fingerprint(const hs_config *c, uint64_t fp[HS_CKPT_GROUPS])
{
    uint64_t h = HS_FNV_OFFSET;
    /* mesh.* (mesh.file left out: the mesh fingerprint covers what it holds, wherever it lives) */
    h = fp_s(h, c->mesh_source);
    h = fp_d(h, c->box.lx), h = fp_d(h, c->box.ly), h = fp_d(h, c->box.lz), h = fp_d(h, c->box.h);
    h = fp_i(h, c->box.use_tetgen), h = fp_d(h, c->box.tetgen_radius_edge);
    h = fp_s(h, c->mesh_reorder);
    fp[0] = h;
    /* fibers.* */
    h = fp_s(HS_FNV_OFFSET, c->fiber_type);
    for (int k = 0; k < 3; ++k) h = fp_d(h, c->fiber_dir[k]);
    fp[1] = h;
    fp[2] = fp_model(c);
    /* time.dt (time.t_end may change: a restart can run further) */
    fp[3] = fp_d(HS_FNV_OFFSET, c->dt);
    /* stimulus */
    h = fp_i(HS_FNV_OFFSET, c->n_stimuli);
    for (int s = 0; s < c->n_stimuli; ++s) {
        const hs_stimulus_cfg *g = &c->stimuli[s];
        h = fp_i(h, (int64_t)g->shape);
        for (int k = 0; k < 3; ++k) h = fp_d(h, g->min[k]), h = fp_d(h, g->max[k]), h = fp_d(h, g->center[k]);
        h = fp_d(h, g->radius), h = fp_d(h, g->start), h = fp_d(h, g->duration), h = fp_d(h, g->strength);
        h = fp_s(h, g->label), h = fp_s(h, g->file); /* surface label; node-list file (by its path) */
        if (g->count != 1) h = fp_i(h, g->count), h = fp_d(h, g->period); /* paced (single pulses hash as before) */
    }
    fp[4] = h;
    /* solver tolerances and limits decide where Newton and CG stop, so they change the state; the
     * activation threshold decides the activation times, which are part of the state */
    h = fp_d(HS_FNV_OFFSET, c->cg_tol), h = fp_i(h, c->cg_max_iter);
    h = fp_d(h, c->newton_tol_residual), h = fp_d(h, c->newton_tol_update), h = fp_i(h, c->newton_max_iter);
    h = fp_d(h, c->activation_threshold);
    fp[5] = c->repol_threshold != -70.0 ? fp_d(h, c->repol_threshold) : h; /* the default keeps older fingerprints */
}
