/* The mesh a configuration describes (hs_mesh_build.h): one function for `run` and `mesh`, so the
 * mesh that `heartsim mesh` reports is the one a run computes on, numbering included. */
#define _POSIX_C_SOURCE 200809L
#include "hs_mesh_build.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_fibers.h"
#include "hs_lv.h"
#include "hs_mesh_io.h"
#include "hs_tetgen.h"
#include "hs_util.h"

hs_reorder_kind hs_mesh_reorder_kind(const char *name)
{
    if (!strcmp(name, "rcm")) return HS_REORDER_RCM;
    if (!strcmp(name, "sfc")) return HS_REORDER_SFC;
    return HS_REORDER_NONE;
}

/* The LV parameters: geometry and helix angles from mesh.lv_* / fibers.helix_*, meshing from
 * mesh.h, mesh.quality, mesh.min_dihedral. */
static void lv_params(const hs_config *cfg, hs_lv_params *p)
{
    hs_lv_params_default(p, cfg->box.h);
    p->rs_endo = cfg->lv.rs_endo;
    p->rl_endo = cfg->lv.rl_endo;
    p->rs_epi = cfg->lv.rs_epi;
    p->rl_epi = cfg->lv.rl_epi;
    p->z_base = cfg->lv.z_base;
    p->helix_endo_deg = cfg->lv.helix_endo_deg;
    p->helix_epi_deg = cfg->lv.helix_epi_deg;
    p->h = cfg->box.h;
    p->radius_edge = cfg->box.tetgen_radius_edge;
    p->min_dihedral_deg = cfg->mesh_min_dihedral;
}

/* A closed surface -> checked (orientation fixed and said) -> TetGen at the configured size. */
static hs_status mesh_surface(const hs_config *cfg, hs_mesh **out, hs_mesh_build_info *info)
{
    hs_surface *s = NULL;
    hs_surface_report rep;
    memset(&rep, 0, sizeof rep);
    hs_status st = HS_OK;
    HS_CALL(hs_surface_read(cfg->mesh_file, cfg->mesh_scale, cfg->mesh_weld_tol, &s));
    HS_CALL_GOTO(hs_surface_check(s, cfg->mesh_file, &rep), done);
    hs_log(1, "surface: %s: %d points, %d facets, %d shell%s, area %.4g mm^2, enclosed volume %.4g mm^3, "
              "box [%.4g, %.4g, %.4g] - [%.4g, %.4g, %.4g] mm\n",
           cfg->mesh_file, (int)rep.n_points, (int)rep.n_facets, (int)rep.n_components,
           rep.n_components == 1 ? "" : "s", rep.area, rep.volume, rep.bbox_min[0], rep.bbox_min[1],
           rep.bbox_min[2], rep.bbox_max[0], rep.bbox_max[1], rep.bbox_max[2]);
    if (rep.n_unused_points > 0)
        hs_log(1, "surface: %d points belong to no facet (ignored)\n", (int)rep.n_unused_points);
    if (rep.n_flipped > 0)
        hs_warn("surface %s: %d facet%s reoriented to agree with their neighbours", cfg->mesh_file,
                (int)rep.n_flipped, rep.n_flipped == 1 ? "" : "s");
    if (rep.n_shells_inverted > 0)
        hs_warn("surface %s: %d shell%s faced inwards and %s turned outwards", cfg->mesh_file,
                (int)rep.n_shells_inverted, rep.n_shells_inverted == 1 ? "" : "s",
                rep.n_shells_inverted == 1 ? "was" : "were");
    hs_tetgen_opts o;
    memset(&o, 0, sizeof o);
    o.radius_edge = cfg->box.tetgen_radius_edge;
    o.min_dihedral_deg = cfg->mesh_min_dihedral;
    o.max_volume = hs_tetgen_volume_for_edge(cfg->box.h);
    o.verbose = hs_verbosity >= 2;
    HS_CALL_GOTO(hs_tetgen_mesh_surface(s, &o, out), done);
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

/* Mesh from the source keys, in mm. */
static hs_status make_mesh(const hs_config *cfg, hs_mesh **out, hs_mesh_build_info *info)
{
    const char *src = cfg->mesh_source;
    if (!strcmp(src, "box")) {
        HS_CALL(hs_mesh_create_box(&cfg->box, out));
        if (info) {
            info->expected_volume = cfg->box.lx * cfg->box.ly * cfg->box.lz;
            info->expected_what = "of the box";
        }
        return HS_OK;
    }
    if (!strcmp(src, "ellipsoid_lv")) {
        hs_lv_params p;
        lv_params(cfg, &p);
        HS_CALL(hs_mesh_create_ellipsoid_lv(&p, out));
        if (info) {
            info->expected_volume = hs_lv_wall_volume(&p);
            info->expected_what = "of the analytic wall";
        }
        return HS_OK;
    }
    if (!strcmp(src, "surface")) return mesh_surface(cfg, out, info);

    if (!strcmp(src, "tetgen")) {
        char node[HS_PATH_MAX + 8], ele[HS_PATH_MAX + 8];
        snprintf(node, sizeof node, "%s.node", cfg->mesh_file);
        snprintf(ele, sizeof ele, "%s.ele", cfg->mesh_file);
        HS_CALL(hs_mesh_read_tetgen(node, ele, out));
    } else if (!strcmp(src, "file")) {
        hs_mesh_read_opts o = {.linearize = !strcmp(cfg->mesh_quadratic, "linearize")};
        HS_CALL(hs_mesh_read_file(cfg->mesh_file, &o, out));
    } else {
        return HS_FAIL(HS_ERR_CONFIG, "mesh.source: unknown source \"%s\"; available: box, tetgen, file, surface, "
                                      "ellipsoid_lv", src);
    }
    /* readers return the file's units */
    if (cfg->mesh_scale != 1.0) {
        hs_mesh *m = *out;
        for (int64_t i = 0; i < 3 * (int64_t)m->n_nodes; ++i) m->xyz[i] *= cfg->mesh_scale;
    }
    return HS_OK;
}

/* fibers.type, resolved ("auto") and applied. */
static hs_status assign_fibers(const hs_config *cfg, hs_mesh *m, char *what, size_t n)
{
    const char *t = cfg->fiber_type, *src = cfg->mesh_source;
    int had = m->fiber != NULL;
    if (!strcmp(t, "auto"))
        t = !strcmp(src, "ellipsoid_lv") ? "ellipsoid" : (!strcmp(src, "file") && had) ? "mesh" : "constant";
    if (!strcmp(t, "constant")) {
        HS_CALL(hs_mesh_set_fibers_constant(m, cfg->fiber_dir));
        snprintf(what, n, "constant [%g, %g, %g]%s", m->fiber[0], m->fiber[1], m->fiber[2],
                 had && strcmp(src, "ellipsoid_lv") ? " (the fibres in mesh.file are not used)" : "");
    } else if (!strcmp(t, "ellipsoid")) {
        HS_CHECK(!strcmp(src, "ellipsoid_lv"), HS_ERR_CONFIG,
                 "fibers.type = \"ellipsoid\" needs mesh.source = \"ellipsoid_lv\" (this one is \"%s\")", src);
        hs_lv_params p;
        lv_params(cfg, &p);
        if (!had) HS_CALL(hs_lv_set_fibers(m, &p));
        snprintf(what, n, "ellipsoid rule, helix %g deg (endocardium) to %g deg (epicardium)", p.helix_endo_deg,
                 p.helix_epi_deg);
    } else if (!strcmp(t, "file")) {
        HS_CALL(hs_fibers_read(m, cfg->fiber_file, cfg->fiber_location));
        snprintf(what, n, "from %.120s", cfg->fiber_file);
    } else if (!strcmp(t, "mesh")) {
        HS_CHECK(had, HS_ERR_MESH,
                 "fibers.type = \"mesh\": %s carries no fibres (VTK: a 3-component CELL_DATA vector named fiber, "
                 "fibers, fibre or fibres; openCARP: PREFIX.lon beside PREFIX.elem); use fibers.type = \"file\" "
                 "or \"constant\"", cfg->mesh_file);
        snprintf(what, n, "as stored in the mesh file");
    } else {
        return HS_FAIL(HS_ERR_CONFIG, "fibers.type: unknown type \"%s\"; available: auto, constant, ellipsoid, "
                                      "file, mesh", t);
    }
    return HS_OK;
}

hs_status hs_mesh_build(const hs_config *cfg, hs_mesh **out, hs_mesh_build_info *info)
{
    *out = NULL;
    if (info) memset(info, 0, sizeof *info);
    hs_status st = HS_OK;
    hs_mesh *m = NULL;
    char fib[160];
    double t0 = hs_wtime();
    HS_CALL_GOTO(make_mesh(cfg, &m, info), fail);
    if (info) info->seconds_mesh = hs_wtime() - t0;
    HS_CALL_GOTO(hs_mesh_check(m), fail);

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

    HS_CALL_GOTO(assign_fibers(cfg, m, fib, sizeof fib), fail);
    hs_log(1, "fibres: %s\n", fib);

    hs_reorder_kind rk = hs_mesh_reorder_kind(cfg->mesh_reorder);
    hs_reorder_report rep;
    HS_CALL_GOTO(hs_mesh_reorder(m, rk, &rep), fail);
    if (rk == HS_REORDER_RCM)
        hs_log(1, "reorder: reverse Cuthill-McKee, node bandwidth %lld -> %lld\n",
               (long long)rep.bandwidth_before, (long long)rep.bandwidth_after);
    else if (rk == HS_REORDER_SFC)
        hs_log(1, "reorder: Hilbert space-filling curve, node bandwidth %lld -> %lld, profile %.4g -> %.4g\n",
               (long long)rep.bandwidth_before, (long long)rep.bandwidth_after, rep.profile_before,
               rep.profile_after);
    else
        hs_log(1, "reorder: none (node bandwidth %lld)\n", (long long)rep.bandwidth_before);
    if (info) {
        info->reorder = rep;
        snprintf(info->fibers, sizeof info->fibers, "%s", fib);
    }
    *out = m;
    return HS_OK;
fail:
    hs_mesh_destroy(&m);
    return st;
}
