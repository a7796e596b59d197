/* `heartsim mesh CONFIG`: the mesh a run would compute on, reported and written to VTK, without
 * simulating (hs_mesh_build.h). The report goes to the given stream (stdout: it is what the
 * command is asked for); the build's log lines go to stderr as in a run. */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_csr.h"
#include "hs_mesh_cmd.h"
#include "hs_mesh_export.h"
#include "hs_spec.h"
#include "hs_mesh_quality.h"
#include "hs_series.h"
#include "hs_util.h"
#include "hs_vtk_surface.h"

static double tri_area(const hs_mesh *m, const int32_t *t)
{
    const double *a = m->xyz + 3 * (int64_t)t[0], *b = m->xyz + 3 * (int64_t)t[1], *c = m->xyz + 3 * (int64_t)t[2];
    double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    return 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
}

static const char *label_name(const hs_mesh *m, int32_t id)
{
    for (int l = 0; l < m->n_labels; ++l)
        if (m->label[l].id == id) return m->label[l].name;
    return "";
}

/* One row per distinct boundary marker (ascending), unlabelled triangles last. */
static void print_labels(const hs_mesh *m, FILE *out)
{
    if (m->n_bfaces == 0) {
        fprintf(out, "labels:     none (this source has no labelled boundary: stimuli by box, sphere or nodes)\n");
        return;
    }
    fprintf(out, "labels:     %d boundary triangles\n", (int)m->n_bfaces);
    int64_t prev = INT64_MIN;
    for (;;) {
        int64_t next = INT64_MAX;
        for (int32_t f = 0; f < m->n_bfaces; ++f)
            if (m->bface_label[f] > prev && m->bface_label[f] < next) next = m->bface_label[f];
        if (next == INT64_MAX) break;
        int32_t cnt = 0;
        double area = 0.0;
        for (int32_t f = 0; f < m->n_bfaces; ++f)
            if (m->bface_label[f] == next) ++cnt, area += tri_area(m, m->bface + 3 * (int64_t)f);
        const char *name = next == 0 ? "(unlabelled)" : label_name(m, (int32_t)next);
        char head[80];
        snprintf(head, sizeof head, "%s%s%lld%s", name, name[0] ? " (" : "", (long long)next, name[0] ? ")" : "");
        if (next == 0) snprintf(head, sizeof head, "(unlabelled, marker 0)");
        fprintf(out, "  %-24s %9d triangles, area %.6g mm^2\n", head, (int)cnt, area);
        prev = next;
    }
}

/* Nonzeros per row of the matrix a run assembles on this mesh (P1: one row per node). */
static hs_status print_matrix(const hs_mesh *m, FILE *out)
{
    hs_csr *a = NULL;
    HS_CALL(hs_csr_from_tets(m->n_nodes, m->n_elems, m->tets, &a));
    int32_t lo = a->n_rows ? INT32_MAX : 0, hi = 0;
    for (int32_t i = 0; i < a->n_rows; ++i) {
        int32_t k = a->row_ptr[i + 1] - a->row_ptr[i];
        lo = k < lo ? k : lo;
        hi = k > hi ? k : hi;
    }
    fprintf(out, "matrix:     %d rows, %d nonzeros; per row %d / %.2f / %d (min/mean/max)\n", (int)a->n_rows,
            (int)a->nnz, (int)lo, a->n_rows ? (double)a->nnz / a->n_rows : 0.0, (int)hi);
    hs_csr_destroy(&a);
    return HS_OK;
}

static void print_reorder(const hs_config *cfg, hs_reorder_kind k, const hs_reorder_report *r, FILE *out)
{
    static const char *const what[] = {"none", "reverse Cuthill-McKee", "Hilbert space-filling curve"};
    fprintf(out, "reorder:    %s (mesh.reorder = \"%s\"): node bandwidth %lld -> %lld, profile %.4g -> %.4g\n",
            what[k], cfg->mesh_reorder, (long long)r->bandwidth_before, (long long)r->bandwidth_after,
            r->profile_before, r->profile_after);
}

static void print_source(const hs_config *cfg, const hs_mesh_build_info *info, FILE *out)
{
    const char *src = cfg->mesh_source;
    if (!strcmp(src, "box"))
        fprintf(out, "source:     box %g x %g x %g mm, h = %g mm, %s\n", cfg->box.lx, cfg->box.ly, cfg->box.lz,
                cfg->box.h, cfg->box.use_tetgen ? "TetGen" : "structured");
    else if (!strcmp(src, "ellipsoid_lv"))
        fprintf(out, "source:     ellipsoid_lv (Land et al. 2015): endocardium %g / %g mm, epicardium %g / %g mm "
                     "(short/long radius), base z = %g mm; h = %g mm, quality %g, min dihedral %g deg\n",
                cfg->lv.rs_endo, cfg->lv.rl_endo, cfg->lv.rs_epi, cfg->lv.rl_epi, cfg->lv.z_base, cfg->box.h,
                cfg->box.tetgen_radius_edge, cfg->mesh_min_dihedral);
    else
        fprintf(out, "source:     %s %s, scale %g%s\n", src, cfg->mesh_file, cfg->mesh_scale,
                !strcmp(src, "surface") ? "" : " (file units to mm)");
    if (info->have_surface) {
        const hs_surface_report *r = &info->surface;
        fprintf(out, "surface:    %d points, %d facets, %d shell%s, area %.6g mm^2, enclosed volume %.6g mm^3, box "
                     "[%.4g, %.4g, %.4g] - [%.4g, %.4g, %.4g] mm; meshed with h = %g mm, quality %g, min dihedral %g deg\n",
                (int)r->n_points, (int)r->n_facets, (int)r->n_components, r->n_components == 1 ? "" : "s", r->area,
                r->volume, r->bbox_min[0], r->bbox_min[1], r->bbox_min[2], r->bbox_max[0], r->bbox_max[1],
                r->bbox_max[2], cfg->box.h, cfg->box.tetgen_radius_edge, cfg->mesh_min_dihedral);
        if (r->n_flipped || r->n_shells_inverted)
            fprintf(out, "            fixed: %d facets reoriented, %d shells turned outwards\n", (int)r->n_flipped,
                    (int)r->n_shells_inverted);
    }
}

/* DIR/PREFIX_SUFFIX.vtk (or another extension) */
static void out_path_ext(const hs_config *cfg, const char *suffix, const char *ext, char *buf, size_t n)
{
    size_t dl = strlen(cfg->out_dir);
    snprintf(buf, n, "%s%s%s_%s%s", cfg->out_dir, dl && cfg->out_dir[dl - 1] != '/' ? "/" : "", cfg->out_prefix,
             suffix, ext);
}
static void out_path(const hs_config *cfg, const char *suffix, char *buf, size_t n)
{
    out_path_ext(cfg, suffix, ".vtk", buf, n);
}

/* The run-ready copy (hs_mesh_export.h) and the config lines that run on it: absolute paths, since
 * mesh.file and fibers.file are relative to the config file that names them. */
static hs_status write_run_copy(const hs_config *cfg, const hs_mesh *m, hs_mesh_export_kind kind, FILE *out)
{
    char msh[HS_PATH_MAX + 96], fib[HS_PATH_MAX + 96], dir[HS_PATH_MAX];
    if (!realpath(cfg->out_dir, dir)) snprintf(dir, sizeof dir, "%s", cfg->out_dir);
    if (kind == HS_MESH_EXPORT_OPENCARP) {
        char prefix[HS_PATH_MAX + 96];
        int uniform = 1;
        double f[3];
        snprintf(prefix, sizeof prefix, "%s/%s_mesh", dir, cfg->out_prefix);
        HS_CALL(hs_mesh_export_opencarp(prefix, m, &uniform, f));
        fprintf(out, "            %s.pts, .elem%s (the same mesh for a run to rounding, coordinates in um: nodes "
                     "in this numbering, regions%s; no boundary labels)\n", prefix, uniform ? "" : ", .lon",
                uniform ? "" : ", fibres");
        fprintf(out, "run on it:  mesh = { source = \"file\"; file = \"%s.pts\"; scale = 0.001; reorder = \"none\"; };",
                prefix);
        if (uniform && m->fiber)
            fprintf(out, " fibers = { type = \"constant\"; direction = [%.17g, %.17g, %.17g]; };", f[0], f[1], f[2]);
        fprintf(out, " (under mpirun every rank reads its block: parallel.read = \"ranks\")\n");
        return HS_OK;
    }
    snprintf(msh, sizeof msh, "%s/%s_mesh.msh", dir, cfg->out_prefix);
    snprintf(fib, sizeof fib, "%s/%s_fibers.txt", dir, cfg->out_prefix);
    HS_CALL(hs_mesh_export_gmsh(msh, m));
    fprintf(out, "            %s (the same mesh for a run: nodes in this numbering, labels with their names, "
                 "regions)\n", msh);
    if (m->fiber) {
        HS_CALL(hs_mesh_export_fibers(fib, m));
        fprintf(out, "            %s (its fibres, one per tetrahedron)\n", fib);
    }
    fprintf(out, "run on it:  mesh = { source = \"file\"; file = \"%s\"; reorder = \"none\"; };", msh);
    if (m->fiber) fprintf(out, " fibers = { type = \"file\"; file = \"%s\"; location = \"element\"; };", fib);
    fprintf(out, "\n");
    return HS_OK;
}

hs_status hs_mesh_command(const hs_config *cfg, hs_mesh_export_kind export_kind, FILE *out)
{
    hs_status st = HS_OK;
    hs_mesh *m = NULL;
    int32_t *node_label = NULL;
    hs_mesh_build_info info;
    char vol_path[HS_PATH_MAX + 96], surf_path[HS_PATH_MAX + 96];
    /* an unwritable output directory fails before the (possibly long) meshing */
    HS_CALL(hs_output_dir_check(cfg->out_dir));
    double t0 = hs_wtime();
    hs_mesh_spec spec;
    HS_CALL(hs_mesh_spec_from_config(cfg, &spec));
    HS_CALL(hs_mesh_build(&spec, &m, &info));
    double t_build = hs_wtime() - t0;

    hs_mesh_quality q;
    HS_CALL_GOTO(hs_mesh_quality_compute(m, &q), done);
    print_source(cfg, &info, out);
    hs_mesh_quality_print(&q, out);
    if (info.expected_volume > 0) {
        double d = 100.0 * (q.volume - info.expected_volume) / info.expected_volume;
        fprintf(out, "volume:     %.6g mm^3; %s: %.6g mm^3 (%+.2f%%)\n", q.volume, info.expected_what,
                info.expected_volume, fabs(d) < 0.005 ? 0.0 : d); /* no "-0.00%" for rounding */
    }
    print_reorder(cfg, spec.reorder, &info.reorder, out);
    print_labels(m, out);
    fprintf(out, "fibres:     %s\n", info.fibers);
    HS_CALL_GOTO(print_matrix(m, out), done);

    HS_CALL_GOTO(HS_ALLOC(node_label, m->n_nodes > 0 ? m->n_nodes : 1, "node labels"), done);
    hs_mesh_node_labels(m, node_label);
    out_path(cfg, "mesh", vol_path, sizeof vol_path);
    out_path(cfg, "surface", surf_path, sizeof surf_path);
    HS_CALL_GOTO(hs_vtk_write_mesh(vol_path, m, node_label), done);
    fprintf(out, "files:      %s (tetrahedra: region, fiber; nodes: label, node_orig)\n", vol_path);
    if (m->n_bfaces > 0) {
        HS_CALL_GOTO(hs_vtk_write_surface(surf_path, m), done);
        fprintf(out, "            %s (labelled boundary triangles: label; points: node_orig)\n", surf_path);
    }
    HS_CALL_GOTO(write_run_copy(cfg, m, export_kind, out), done);
    if (info.from_cache)
        fprintf(out, "time:       %.3f s to load the mesh from the mesh cache %s (meshing it took %.3f s)\n", t_build,
                info.cache_path, info.seconds_mesh);
    else
        fprintf(out, "time:       %.3f s to build the mesh (meshing %.3f s)%s%s\n", t_build, info.seconds_mesh,
                info.cache_path[0] ? "; stored in the mesh cache " : "", info.cache_path);
done:
    free(node_label);
    hs_mesh_destroy(&m);
    return st;
}
