/* The config mapped onto the simulation spec (hs_spec.h): names resolved once, here. */
#include "hs_spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_cg.h"
#include "hs_hash.h"
#include "hs_precond.h"
#include "hs_par.h"
#include "hs_series.h"
#include "hs_mesh_part.h"
#include "hs_util.h"

static const char *const fiber_names[] = {"auto", "constant", "ellipsoid", "file", "mesh"};

hs_status hs_mesh_spec_from_config(const hs_config *cfg, hs_mesh_spec *m)
{
    memset(m, 0, sizeof *m);
    HS_CALL(hs_registry_lookup(hs_mesh_sources(), "mesh.source", cfg->mesh_source, NULL, (const void **)&m->source));
    m->box = cfg->box;
    m->min_dihedral = cfg->mesh_min_dihedral;
    snprintf(m->file, sizeof m->file, "%s", cfg->mesh_file);
    m->scale = cfg->mesh_scale;
    m->weld_tol = cfg->mesh_weld_tol;
    snprintf(m->label_array, sizeof m->label_array, "%s", cfg->mesh_label_array);
    m->linearize = strcmp(cfg->mesh_quadratic, "linearize") == 0;
    m->reorder = !strcmp(cfg->mesh_reorder, "rcm") ? HS_REORDER_RCM
                 : !strcmp(cfg->mesh_reorder, "sfc") ? HS_REORDER_SFC : HS_REORDER_NONE;
    m->lv = cfg->lv;
    m->fibers = HS_FIBERS_AUTO;
    int found = 0;
    for (int k = 0; k < (int)(sizeof fiber_names / sizeof fiber_names[0]); ++k)
        if (!strcmp(cfg->fiber_type, fiber_names[k])) m->fibers = (hs_fiber_kind)k, found = 1;
    HS_CHECK(found, HS_ERR_CONFIG, "fibers.type: unknown type \"%s\"; available: auto, constant, ellipsoid, file, mesh",
             cfg->fiber_type);
    memcpy(m->fiber_dir, cfg->fiber_dir, sizeof m->fiber_dir);
    snprintf(m->fiber_file, sizeof m->fiber_file, "%s", cfg->fiber_file);
    snprintf(m->fiber_location, sizeof m->fiber_location, "%s", cfg->fiber_location);
    /* the mesh cache: per user, shared by every output directory and config copy (the same mesh is
     * met again by parameter studies that write elsewhere), where the XDG convention puts caches */
    m->cache = cfg->mesh_cache;
    m->cache_parts = cfg->mesh_cache_parts;
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (cfg->mesh_cache_dir[0]) snprintf(m->cache_dir, sizeof m->cache_dir, "%s", cfg->mesh_cache_dir);
    else if (xdg && xdg[0] == '/') snprintf(m->cache_dir, sizeof m->cache_dir, "%s/heartsim", xdg);
    else if (home && home[0]) snprintf(m->cache_dir, sizeof m->cache_dir, "%s/.cache/heartsim", home);
    else m->cache_dir[0] = '\0'; /* nowhere to keep it: no cache */
    return HS_OK;
}

/* output.fields: state fields by name ("phi", the model's variables, "activation"), "V" (the
 * potential in mV), the mesh's "fiber" and "region". */
/* solver.scheme and its keys. "auto": Newton for a model with both kernels (Aliev-Panfilov, the seeds'
 * system; Mitchell-Schaeffer and Bueno-Orovio by the measurements of docs/verification.md "Which
 * scheme by default"), splitting for a model with the nodal form only. */
static hs_status spec_scheme(const hs_config *cfg, hs_sim_spec *s)
{
    hs_scheme_opts *o = &s->scheme;
    *o = hs_scheme_opts_newton();
    const int has_newton = (s->model->schemes & HS_MODEL_SCHEME_NEWTON) != 0;
    if (!strcmp(cfg->scheme, "auto")) o->kind = hs_scheme_auto(s->model->schemes);
    else HS_CALL(hs_scheme_lookup("solver.scheme", cfg->scheme, &o->kind));
    HS_CHECK(o->kind != HS_SCHEME_NEWTON || has_newton, HS_ERR_CONFIG,
             "%s: solver.scheme = \"newton\": model %s has the nodal form only (no implicit local update); use "
             "solver.scheme = \"splitting\" (or \"auto\")", cfg->path, s->model->name);
    HS_CHECK(o->kind != HS_SCHEME_SPLITTING || (s->model->schemes & HS_MODEL_SCHEME_SPLITTING), HS_ERR_CONFIG,
             "%s: solver.scheme = \"splitting\": model %s has no nodal form", cfg->path, s->model->name);
    HS_CALL(hs_split_order_lookup("solver.splitting", cfg->splitting, &o->order));
    HS_CALL(hs_mass_lookup("solver.mass", cfg->mass, &o->mass));
    o->theta = cfg->theta;
    o->dt_ode_ms = cfg->dt_ode;
    return HS_OK;
}

static hs_status out_fields(const hs_config *cfg, hs_sim_spec *s)
{
    hs_state_desc d;
    hs_state_desc_init(&d, s->model, 0, 0);
    s->out_state.n = 0;
    s->out_mv = 0;
    s->out_mesh_fields = 0;
    for (int j = 0; j < cfg->out_fields.n; ++j) {
        const char *name = cfg->out_fields.name[j];
        int k = hs_state_find(&d, name);
        if (k >= 0) (void)hs_field_list_add(&s->out_state, k); /* listed once (config_load) */
        else if (!strcmp(name, "V")) s->out_mv = 1;
        else if (!strcmp(name, "fiber")) s->out_mesh_fields |= HS_MESH_FIELD_FIBER;
        else if (!strcmp(name, "region")) s->out_mesh_fields |= HS_MESH_FIELD_REGION;
        else {
            char avail[HS_STATE_MAX_FIELDS * HS_MODEL_NAME_LEN];
            size_t o = 0;
            for (int q = 0; q < d.n_fields && o < sizeof avail; ++q)
                o += (size_t)snprintf(avail + o, sizeof avail - o, "%s, ", d.f[q].name);
            return HS_FAIL(HS_ERR_CONFIG, "output.fields: \"%s\" is not a field of model %s; available: %sV, fiber, region",
                           name, s->model->name, avail);
        }
    }
    return HS_OK;
}

/* ecg.leads = "A-B, C-D": each lead a difference of two named electrodes. */
static hs_status parse_leads(const hs_config *cfg, hs_sim_spec *s)
{
    char names[1024];
    size_t o = 0;
    names[0] = '\0';
    for (int j = 0; j < s->n_electrodes; ++j)
        o += (size_t)snprintf(names + o, o < sizeof names ? sizeof names - o : 0, "%s%s", j ? ", " : "",
                              s->electrode_name[j]);
    s->n_leads = 0;
    for (const char *c = cfg->ecg_leads; *c;) {
        while (*c == ' ' || *c == ',') ++c;
        if (!*c) break;
        size_t len = strcspn(c, ",");
        while (len > 0 && c[len - 1] == ' ') --len;
        char one[64];
        snprintf(one, sizeof one, "%.*s", (int)(len < sizeof one ? len : sizeof one - 1), c);
        HS_CHECK(s->n_leads < HS_SPEC_MAX_POINTS, HS_ERR_CONFIG, "ecg.leads: at most %d leads", HS_SPEC_MAX_POINTS);
        char *dash = strchr(one, '-');
        HS_CHECK(dash && dash != one && dash[1], HS_ERR_CONFIG,
                 "ecg.leads: \"%s\" is not a difference of two electrodes (write \"A-B\"); electrodes: %s", one,
                 names[0] ? names : "(none: set ecg.electrodes)");
        *dash = '\0';
        const char *ab[2] = {one, dash + 1};
        for (int q = 0; q < 2; ++q) {
            int idx = -1;
            for (int j = 0; j < s->n_electrodes; ++j)
                if (!strcmp(s->electrode_name[j], ab[q])) idx = j;
            HS_CHECK(idx >= 0, HS_ERR_CONFIG, "ecg.leads: \"%s-%s\": no electrode \"%s\"; electrodes: %s", ab[0], ab[1],
                     ab[q], names[0] ? names : "(none: set ecg.electrodes)");
            s->lead[s->n_leads][q] = idx;
        }
        snprintf(s->lead_name[s->n_leads], sizeof s->lead_name[0], "%s-%s", ab[0], ab[1]);
        s->n_leads++;
        c += strcspn(c, ",");
    }
    return HS_OK;
}

/* parallel.read, once the spec is whole (the mesh, stimuli, regions and kernel decide whether the ranks
 * can read their blocks): explicit "ranks" where the run cannot is refused, naming the reason; "auto" reads
 * in blocks where it takes the run without changing what the frames list (mesh.reorder = "none") and the
 * partition can work on blocks of rows. A serial run ignores the key. */
static hs_status spec_read(const hs_config *cfg, int partition_auto, hs_sim_spec *s)
{
    s->read_ranks = 0;
    if (!s->distributed || !strcmp(cfg->read, "root")) return HS_OK;
    const char *why = hs_mesh_part_read_unfit(s);
    if (!strcmp(cfg->read, "ranks")) {
        HS_CHECK(!why, HS_ERR_CONFIG, "parallel.read = \"ranks\": %s; use parallel.read = \"root\" (rank 0 reads the "
                 "mesh and sends the parts) or \"auto\"", why);
        s->read_ranks = 1;
        return HS_OK;
    }
    HS_CHECK(!strcmp(cfg->read, "auto"), HS_ERR_CONFIG, "parallel.read: \"%s\" is not one of auto, root, ranks",
             cfg->read);
    s->read_ranks = !why && s->mesh.reorder == HS_REORDER_NONE && (partition_auto || s->partitioner->rows_dist);
    return HS_OK;
}

hs_status hs_spec_from_config(const hs_config *cfg, hs_sim_spec *s)
{
    memset(s, 0, sizeof *s);
    HS_CALL(hs_mesh_spec_from_config(cfg, &s->mesh));
    HS_CALL(hs_models_lookup("model.type", cfg->model_type, &s->model));
    hs_model_params_defaults(s->model, &s->model_prm);
    for (int k = 0; k < s->model->n_params; ++k) s->model_prm.v[k] = cfg->model_prm[s->model->id][k];
    s->model_prm.gates = cfg->model_gates ? HS_GATES_RUSH_LARSEN : HS_GATES_NEWTON;
    s->time_unit = cfg->time_unit;
    s->d_iso = cfg->d_iso;
    s->d_ani = cfg->d_ani;
    s->dt = cfg->dt;
    s->t_end = cfg->t_end;
    HS_CHECK(cfg->n_stimuli <= HS_SPEC_MAX_STIMULI, HS_ERR_CONFIG, "stimulus: at most %d sites", HS_SPEC_MAX_STIMULI);
    s->n_stimuli = cfg->n_stimuli;
    memcpy(s->stimuli, cfg->stimuli, sizeof(hs_stimulus_cfg) * (size_t)cfg->n_stimuli);
    s->activation_threshold = cfg->activation_threshold;
    s->repol_threshold = cfg->repol_threshold;
    HS_CHECK(cfg->n_regions >= 0 && cfg->n_regions <= HS_MAX_REGIONS, HS_ERR_CONFIG, "regions: at most %d entries",
             HS_MAX_REGIONS);
    s->n_regions = cfg->n_regions;
    memcpy(s->regions, cfg->regions, sizeof(hs_region_cfg) * (size_t)cfg->n_regions);
    _Static_assert(HS_MAX_POINTS <= HS_SPEC_MAX_POINTS && HS_POINT_NAME_LEN <= 32, "point lists fit the spec");
    s->n_probes = cfg->probes.n;
    for (int j = 0; j < cfg->probes.n; ++j) {
        snprintf(s->probe_name[j], sizeof s->probe_name[j], "%s", cfg->probes.p[j].name);
        memcpy(s->probe_xyz[j], cfg->probes.p[j].at, sizeof s->probe_xyz[j]);
    }
    s->probe_interval = cfg->probe_interval;
    s->n_electrodes = cfg->electrodes.n;
    for (int j = 0; j < cfg->electrodes.n; ++j) {
        snprintf(s->electrode_name[j], sizeof s->electrode_name[j], "%s", cfg->electrodes.p[j].name);
        memcpy(s->electrode_xyz[j], cfg->electrodes.p[j].at, sizeof s->electrode_xyz[j]);
    }
    HS_CALL(parse_leads(cfg, s));
    /* sigma_i = chi C_m D: with chi in 1/cm (x 100 -> 1/m), C_m in uF/cm^2 (x 0.01 -> F/m^2) and D in
     * mm^2/ms (x 1e-3 -> m^2/s), sigma_i [S/m] = 1e-3 chi C_m D; the ECG's integral of D grad V over
     * sigma_b then takes sigma_b / (1e-3 chi C_m) in the units of D */
    s->ecg_sigma_b = cfg->ecg_sigma_b / (1e-3 * cfg->ecg_chi * cfg->ecg_c_m);
    s->ecg_interval = cfg->ecg_interval;

    s->backend = NULL; /* "auto" */
    if (strcmp(cfg->backend, "auto") != 0) HS_CALL(hs_backends_lookup("solver.backend", cfg->backend, &s->backend));
    s->spmv = NULL;
    if (strcmp(cfg->spmv, "auto") != 0) HS_CALL(hs_spmv_lookup("solver.spmv", cfg->spmv, "auto", &s->spmv));
    s->spmv_params = cfg->spmv_params;
    s->cg.tol = cfg->cg_tol;
    s->cg.max_iter = cfg->cg_max_iter;
    HS_CALL(hs_cg_variant_lookup("solver.cg", cfg->cg_variant, &s->cg.variant));
    s->cg.s = cfg->cg_s;
    s->cg_forcing = cfg->cg_forcing;
    s->pc = hs_precond_opts_default();
    HS_CALL(hs_precond_lookup("solver.precond", cfg->precond, &s->pc.precond));
    HS_CALL(hs_krylov_lookup("solver.krylov", cfg->krylov, &s->pc.krylov));
    HS_CALL(hs_krylov_precond_check(s->pc.krylov, s->pc.precond));
    s->pc.sai_level = cfg->sai_level;
    s->pc.reuse = cfg->precond_reuse;
    s->extrapolate = cfg->extrapolate;
    s->graph = strcmp(cfg->graph, "off") != 0; /* auto and on: graphs (the cuda backend's choice) */
    HS_CALL(hs_assembly_lookup("solver.assembly", cfg->assembly, &s->assembly));
    HS_CALL(hs_matrix_values_lookup("solver.matrix_values", cfg->matrix_values, &s->matrix_values));
    /* the kernel and the precision are checked together once, in the execution plan (hs_sim_create) */
    s->persistent = !strcmp(cfg->persistent, "on") ? 1 : !strcmp(cfg->persistent, "off") ? 0 : HS_PERSISTENT_AUTO;
    HS_CALL(hs_step_mode_lookup("solver.step", cfg->step, &s->step));
    s->newton_tol_residual = cfg->newton_tol_residual;
    s->newton_tol_update = cfg->newton_tol_update;
    s->newton_max_iter = cfg->newton_max_iter;
    s->threads = cfg->threads;
    s->dt_retry = cfg->dt_retry;
    /* resolved here, checked for this build (METIS) only by a distributed run: a serial run ignores it */
    const int partition_auto = !strcmp(cfg->partition, "auto"); /* resolved below, once the spec is whole */
    s->partitioner = partition_auto ? NULL : hs_registry_find(hs_partitioners(), cfg->partition);
    HS_CHECK(partition_auto || s->partitioner != NULL, HS_ERR_CONFIG, "parallel.partition: unknown partitioner \"%s\"",
             cfg->partition);
    HS_CALL(hs_transport_lookup("parallel.transport", cfg->transport, &s->transport));
    s->distributed = hs_par_active();
    s->rank = hs_par_rank();
    HS_CALL(spec_scheme(cfg, s));

    s->output_enabled = cfg->output_enabled;
    HS_CALL(hs_series_format_check(cfg->out_format));
    s->out_format = cfg->out_format;
    snprintf(s->out_dir, sizeof s->out_dir, "%s", cfg->out_dir);
    snprintf(s->out_prefix, sizeof s->out_prefix, "%s", cfg->out_prefix);
    s->out_interval = cfg->out_interval;
    HS_CALL(out_fields(cfg, s));
    s->checkpoint_interval = cfg->checkpoint_interval;
    s->checkpoint_keep = cfg->checkpoint_keep;
    hs_config_fingerprint(cfg, s->config_fp);
    if (s->scheme.kind == HS_SCHEME_SPLITTING) { /* the scheme changes the state (Newton runs hash as before) */
        const hs_scheme_opts *o = &s->scheme;
        const int64_t iv[2] = {(int64_t)o->order + 1, (int64_t)o->mass};
        const double dv[2] = {o->theta, o->dt_ode_ms};
        s->config_fp[5] = hs_fnv1a64(hs_fnv1a64(s->config_fp[5], iv, sizeof iv), dv, sizeof dv);
    }
    s->config_path = cfg->path;
    HS_CALL(spec_read(cfg, partition_auto, s));
    if (partition_auto) s->partitioner = s->read_ranks ? hs_mesh_part_read_partitioner() : hs_mesh_part_auto(s);
    if (s->read_ranks && !s->partitioner->rows_dist)
        return HS_FAIL(HS_ERR_CONFIG, "parallel.read = \"ranks\": the ranks partition the rows they read, which "
                       "parallel.partition = \"%s\" cannot (it %s); use parallel.partition = \"ptscotch\", \"rows\", "
                       "\"nonzeros\" or \"auto\", or parallel.read = \"root\"", s->partitioner->name,
                       s->partitioner->box ? "generates the box's blocks" : "reads the whole graph on one rank");
    /* a distributed run with a partitioner this build lacks (metis, ptscotch): refused at once, saying how
     * to get it (a serial run ignores the key) */
    if (s->distributed && !s->partitioner->available) {
        const hs_partitioner *p = NULL;
        HS_CALL(hs_partitioner_lookup("parallel.partition", s->partitioner->name, &p));
    }
    return HS_OK;
}
