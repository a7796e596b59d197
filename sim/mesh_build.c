/* The mesh of a simulation (hs_mesh_build.h): one function for `run` and `mesh`, so the mesh that
 * `heartsim mesh` reports is the one a run computes on, numbering included. The sources are the
 * table at the end of this file. */
#define _POSIX_C_SOURCE 200809L
#include "hs_mesh_build.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_fibers.h"
#include "hs_lv.h"
#include "hs_mesh_cache.h"
#include "hs_mesh_io.h"
#include "hs_tetgen.h"
#include "hs_util.h"

/* The LV parameters the spec describes (geometry and helix from lv, meshing from box/min_dihedral). */
static void spec_lv(const hs_mesh_spec *spec, hs_lv_params *p)
{
    hs_lv_params_default(p, spec->box.h);
    p->rs_endo = spec->lv.rs_endo;
    p->rl_endo = spec->lv.rl_endo;
    p->rs_epi = spec->lv.rs_epi;
    p->rl_epi = spec->lv.rl_epi;
    p->z_base = spec->lv.z_base;
    p->helix_endo_deg = spec->lv.helix_endo_deg;
    p->helix_epi_deg = spec->lv.helix_epi_deg;
    p->h = spec->box.h;
    p->radius_edge = spec->box.tetgen_radius_edge;
    p->min_dihedral_deg = spec->min_dihedral;
}

/* A closed surface -> checked (orientation fixed and said) -> TetGen at the configured size. */
static hs_status build_surface(const hs_mesh_spec *cfg, hs_mesh **out, hs_mesh_build_info *info)
{
    hs_surface *s = NULL;
    hs_surface_report rep;
    memset(&rep, 0, sizeof rep);
    hs_status st = HS_OK;
    const hs_surface_read_opts ro = {.weld_tol = cfg->weld_tol, .label_array = cfg->label_array};
    HS_CALL(hs_surface_read_with(cfg->file, cfg->scale, &ro, &s));
    HS_CALL_GOTO(hs_surface_check(s, cfg->file, &rep), done);
    hs_log(1, "surface: %s: %d points, %d facets, %d shell%s, area %.4g mm^2, enclosed volume %.4g mm^3, "
              "box [%.4g, %.4g, %.4g] - [%.4g, %.4g, %.4g] mm\n",
           cfg->file, (int)rep.n_points, (int)rep.n_facets, (int)rep.n_components,
           rep.n_components == 1 ? "" : "s", rep.area, rep.volume, rep.bbox_min[0], rep.bbox_min[1],
           rep.bbox_min[2], rep.bbox_max[0], rep.bbox_max[1], rep.bbox_max[2]);
    if (rep.n_unused_points > 0)
        hs_log(1, "surface: %d points belong to no facet (ignored)\n", (int)rep.n_unused_points);
    if (rep.n_flipped > 0)
        hs_warn("surface %s: %d facet%s reoriented to agree with their neighbours", cfg->file,
                (int)rep.n_flipped, rep.n_flipped == 1 ? "" : "s");
    if (rep.n_shells_inverted > 0)
        hs_warn("surface %s: %d shell%s faced inwards and %s turned outwards", cfg->file,
                (int)rep.n_shells_inverted, rep.n_shells_inverted == 1 ? "" : "s",
                rep.n_shells_inverted == 1 ? "was" : "were");
    /* Before TetGen: sliver facets (TetGen refines around them far below mesh.h) and the size. */
    hs_surface_slivers_info sl;
    hs_surface_slivers(s, HS_SURFACE_SLIVER_DEG, &sl);
    if (sl.n_slivers > 0) {
        const int32_t f0 = s->facet_ptr[sl.worst_facet];
        const double *p = s->xyz + 3 * (size_t)s->facet_idx[f0];
        hs_warn("surface %s: %d of %d facets are slivers (a corner angle below %g deg; the smallest, "
                "%.3g deg, in facet %d (0-based) at (%.4g, %.4g, %.4g) mm): TetGen refines around them "
                "far below mesh.h; remesh the surface with better triangles",
                cfg->file, (int)sl.n_slivers, (int)s->n_facets, HS_SURFACE_SLIVER_DEG,
                sl.worst_angle_deg, (int)sl.worst_facet, p[0], p[1], p[2]);
    }
    HS_CALL_GOTO(hs_surface_size_check(cfg->file, &rep, cfg->box.h, 0.0), done);
    hs_log(1, "surface: about %.3g nodes expected at mesh.h = %g mm\n",
           hs_surface_estimate_nodes(&rep, cfg->box.h), cfg->box.h);
    hs_tetgen_opts o;
    memset(&o, 0, sizeof o);
    o.radius_edge = cfg->box.tetgen_radius_edge;
    o.min_dihedral_deg = cfg->min_dihedral;
    o.max_volume = hs_tetgen_volume_for_edge(cfg->box.h);
    o.verbose = hs_verbosity >= 2;
    st = hs_tetgen_mesh_surface(s, &o, out);
    if (st != HS_OK) {
        hs_error_prefix("%s: ", cfg->file); /* TetGen's refusals (self-intersection, ...) name the surface */
        goto done;
    }
    if (info) {
        info->have_surface = 1;
        info->surface = rep;
        info->expected_volume = rep.volume;
        info->expected_what = "enclosed by the surface";
    }
done:
    hs_surface_destroy(&s);
    return st;
}

static hs_status build_box(const hs_mesh_spec *cfg, hs_mesh **out, hs_mesh_build_info *info)
{
    HS_CALL(hs_mesh_create_box(&cfg->box, out));
    if (info) {
        info->expected_volume = cfg->box.lx * cfg->box.ly * cfg->box.lz;
        info->expected_what = "of the box";
    }
    return HS_OK;
}

static hs_status build_lv(const hs_mesh_spec *cfg, hs_mesh **out, hs_mesh_build_info *info)
{
    hs_lv_params p;
    spec_lv(cfg, &p);
    HS_CALL(hs_mesh_create_ellipsoid_lv(&p, out));
    if (info) {
        info->expected_volume = hs_lv_wall_volume(&p);
        info->expected_what = "of the analytic wall";
    }
    return HS_OK;
}

/* Readers return the file's units; mesh.scale converts them to mm. */
static void scale_mesh(const hs_mesh_spec *cfg, hs_mesh *m)
{
    if (cfg->scale == 1.0) return;
    for (int64_t i = 0; i < 3 * (int64_t)m->n_nodes; ++i) m->xyz[i] *= cfg->scale;
}

static hs_status build_tetgen(const hs_mesh_spec *cfg, hs_mesh **out, hs_mesh_build_info *info)
{
    (void)info;
    char node[HS_PATH_MAX + 8], ele[HS_PATH_MAX + 8];
    snprintf(node, sizeof node, "%s.node", cfg->file);
    snprintf(ele, sizeof ele, "%s.ele", cfg->file);
    hs_mesh_read_opts o = {.linearize = cfg->linearize};
    HS_CALL(hs_mesh_read_tetgen_opts(node, ele, &o, out));
    scale_mesh(cfg, *out);
    return HS_OK;
}

static hs_status build_file(const hs_mesh_spec *cfg, hs_mesh **out, hs_mesh_build_info *info)
{
    (void)info;
    hs_mesh_read_opts o = {.linearize = cfg->linearize};
    HS_CALL(hs_mesh_read_file(cfg->file, &o, out));
    scale_mesh(cfg, *out);
    return HS_OK;
}

/* fibers.type, resolved ("auto") and applied. */
static hs_status assign_fibers(const hs_mesh_spec *cfg, hs_mesh *m, char *what, size_t n)
{
    hs_fiber_kind t = cfg->fibers;
    const int had = m->fiber != NULL, lv = cfg->source->auto_fibers == HS_FIBERS_ELLIPSOID;
    if (t == HS_FIBERS_AUTO) t = cfg->source->auto_fibers == HS_FIBERS_MESH && !had ? HS_FIBERS_CONSTANT : cfg->source->auto_fibers;
    switch (t) {
    case HS_FIBERS_CONSTANT:
        HS_CALL(hs_mesh_set_fibers_constant(m, cfg->fiber_dir));
        snprintf(what, n, "constant [%g, %g, %g]%s", m->fiber[0], m->fiber[1], m->fiber[2],
                 had && !lv ? " (the fibres in mesh.file are not used)" : "");
        break;
    case HS_FIBERS_ELLIPSOID: {
        HS_CHECK(lv, HS_ERR_CONFIG,
                 "fibers.type = \"ellipsoid\" needs mesh.source = \"ellipsoid_lv\" (this one is \"%s\")",
                 cfg->source->name);
        hs_lv_params p;
        spec_lv(cfg, &p);
        if (!had) HS_CALL(hs_lv_set_fibers(m, &p));
        snprintf(what, n, "ellipsoid rule, helix %g deg (endocardium) to %g deg (epicardium)", p.helix_endo_deg,
                 p.helix_epi_deg);
        break;
    }
    case HS_FIBERS_FILE:
        HS_CALL(hs_fibers_read(m, cfg->fiber_file, cfg->fiber_location));
        snprintf(what, n, "from %.120s", cfg->fiber_file);
        break;
    case HS_FIBERS_MESH:
        HS_CHECK(had, HS_ERR_MESH,
                 "fibers.type = \"mesh\": %s carries no fibres (VTK: a 3-component CELL_DATA vector named fiber, "
                 "fibers, fibre or fibres; openCARP: PREFIX.lon beside PREFIX.elem); use fibers.type = \"file\" "
                 "or \"constant\"", cfg->file);
        snprintf(what, n, "as stored in the mesh file");
        break;
    default:
        return HS_FAIL(HS_ERR_INTERNAL, "fibre kind %d", (int)t);
    }
    return HS_OK;
}

/* Sources whose build is worth keeping: those TetGen meshes (seconds to minutes); reading a file
 * or generating the structured slab costs about as much as loading the cache entry would. */
static int worth_caching(const hs_mesh_spec *cfg)
{
    return cfg->source->build == build_surface || cfg->source->build == build_lv ||
           (cfg->source->build == build_box && cfg->box.use_tetgen);
}

static void log_mesh(const hs_mesh *m)
{
    double vol, hmin, hmean, hmax;
    hs_mesh_stats(m, &vol, &hmin, &hmean, &hmax);
    hs_log(1, "mesh: %d nodes, %d tetrahedra, volume %.4g mm^3, edges %.3g / %.3g / %.3g mm (min/mean/max)\n",
           m->n_nodes, m->n_elems, vol, hmin, hmean, hmax);
    if (m->n_bfaces > 0) {
        char names[512] = "";
        size_t len = 0;
        for (int l = 0; l < m->n_labels && len + 1 < sizeof names; ++l) {
            int w = snprintf(names + len, sizeof names - len, "%s%s", l ? ", " : "", m->label[l].name);
            if (w > 0) len += (size_t)w;
        }
        hs_log(1, "mesh: %d labelled boundary triangles%s%s\n", (int)m->n_bfaces, names[0] ? "; labels: " : "",
               names);
    }
}

static void log_reorder(hs_reorder_kind rk, const hs_reorder_report *r)
{
    hs_reorder_report rep = *r;
    if (rk == HS_REORDER_RCM)
        hs_log(1, "reorder: reverse Cuthill-McKee, node bandwidth %lld -> %lld\n",
               (long long)rep.bandwidth_before, (long long)rep.bandwidth_after);
    else if (rk == HS_REORDER_SFC)
        hs_log(1, "reorder: Hilbert space-filling curve, node bandwidth %lld -> %lld, profile %.4g -> %.4g\n",
               (long long)rep.bandwidth_before, (long long)rep.bandwidth_after, rep.profile_before,
               rep.profile_after);
    else
        hs_log(1, "reorder: none (node bandwidth %lld)\n", (long long)rep.bandwidth_before);
}

/* The cache entry of @p cfg: HS_OK with *out when there is an intact one (logged as such); a
 * damaged one is reported and left to be rebuilt. @p key is set when a key could be made. */
static int cache_lookup(const hs_mesh_spec *cfg, uint64_t *key, hs_mesh **out, hs_mesh_build_info *info)
{
    *out = NULL;
    if (hs_mesh_cache_key(cfg, key) != HS_OK) { /* an unreadable input: the build names it */
        hs_error_clear();
        return -1;
    }
    char path[HS_PATH_MAX + 64];
    hs_mesh_cache_path(cfg->cache_dir, *key, path, sizeof path);
    int absent = 0;
    if (hs_mesh_cache_load(cfg->cache_dir, *key, out, info, &absent) == HS_OK) {
        hs_log(1, "mesh: from the cache %s (meshing skipped; it took %.3g s when built)\n", path,
               info->seconds_mesh);
        info->from_cache = 1;
        snprintf(info->cache_path, sizeof info->cache_path, "%s", path);
        return 0;
    }
    if (!absent) hs_warn("%s; rebuilding it", hs_error_message());
    else hs_log(2, "mesh: not in the cache (%s)\n", path);
    hs_error_clear();
    return 1;
}

hs_status hs_mesh_build(const hs_mesh_spec *cfg, hs_mesh **out, hs_mesh_build_info *info_out)
{
    *out = NULL;
    hs_mesh_build_info info_local, *info = info_out ? info_out : &info_local;
    memset(info, 0, sizeof *info);
    hs_status st = HS_OK;
    hs_mesh *m = NULL;
    char fib[160];
    double t0 = hs_wtime();
    HS_CHECK(cfg->source != NULL, HS_ERR_INTERNAL, "no mesh source in the spec");
    uint64_t key = 0;
    int cached = 0; /* 1: store after the build */
    if (cfg->cache && cfg->cache_dir[0] && worth_caching(cfg)) {
        int r = cache_lookup(cfg, &key, &m, info);
        if (r == 0) {
            log_mesh(m);
            hs_log(1, "fibres: %s\n", info->fibers);
            log_reorder(cfg->reorder, &info->reorder);
            *out = m;
            return HS_OK;
        }
        cached = r == 1;
    }
    HS_CALL_GOTO(cfg->source->build(cfg, &m, info), fail);
    info->seconds_mesh = hs_wtime() - t0;
    double t1 = hs_wtime();
    HS_CALL_GOTO(hs_mesh_check(m), fail);
    info->seconds_check = hs_wtime() - t1;
    log_mesh(m);

    t1 = hs_wtime();
    HS_CALL_GOTO(assign_fibers(cfg, m, fib, sizeof fib), fail);
    info->seconds_fibers = hs_wtime() - t1;
    hs_log(1, "fibres: %s\n", fib);

    hs_reorder_kind rk = cfg->reorder;
    hs_reorder_report rep;
    t1 = hs_wtime();
    HS_CALL_GOTO(hs_mesh_reorder(m, rk, &rep), fail);
    info->seconds_reorder = hs_wtime() - t1;
    log_reorder(rk, &rep);
    info->reorder = rep;
    snprintf(info->fibers, sizeof info->fibers, "%s", fib);
    if (cached) {
        /* the cache is a convenience: a full disk or an unwritable directory is said, not fatal */
        if (hs_mesh_cache_store(cfg->cache_dir, key, m, info) == HS_OK) {
            hs_mesh_cache_path(cfg->cache_dir, key, info->cache_path, sizeof info->cache_path);
            hs_log(1, "mesh: stored in the cache %s\n", info->cache_path);
        } else {
            hs_warn("mesh cache: %s (the run goes on; mesh.cache = false turns the cache off)", hs_error_message());
            hs_error_clear();
        }
    }
    *out = m;
    return HS_OK;
fail:
    hs_mesh_destroy(&m);
    return st;
}

/* ---- the sources (mesh.source) ---------------------------------------------------------------- */

static const hs_mesh_source sources[] = {
    {"box", "built-in slab [0,lx] x [0,ly] x [0,lz]: structured (6 tetrahedra per cube) or TetGen", 0,
     HS_FIBERS_CONSTANT, build_box},
    {"tetgen", "a TetGen .node/.ele pair (mesh.file is the prefix)", 1, HS_FIBERS_CONSTANT, build_tetgen},
    {"file", "a volume mesh: .vtk, .vtu, .msh, openCARP .pts/.elem, .node/.ele (by extension)", 1, HS_FIBERS_MESH,
     build_file},
    {"surface", "a closed surface (.stl, .off, .ply, .poly, .smesh, .vtp) meshed by TetGen", 1, HS_FIBERS_CONSTANT,
     build_surface},
    {"ellipsoid_lv", "the Land et al. 2015 benchmark left ventricle, meshed by TetGen", 0, HS_FIBERS_ELLIPSOID,
     build_lv},
};

static const hs_registry registry = HS_REGISTRY_INIT("source", sources);

const hs_registry *hs_mesh_sources(void) { return &registry; }
