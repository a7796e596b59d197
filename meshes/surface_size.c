/* Before TetGen meshes a closed surface (issue 16): how many nodes the mesh will have, refused over
 * a limit before TetGen runs out of memory, and the sliver facets that make TetGen refine far
 * beyond mesh.h (hs_surface.h: hs_surface_estimate_nodes, hs_surface_size_check,
 * hs_surface_slivers). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>

#include "hs_surface.h"
#include "hs_util.h"

/* Calibrated (issue 30) against heartsim's own TetGen call (switches pq1.414a<h^3/(6 sqrt 2)>, no
 * -Y, as hs_tetgen_mesh_surface runs it) on the cube of configs/data/cube_cm.stl (h = 0.3 to 4 mm),
 * the benchmark ventricle's surface at two resolutions (h = 0.7 to 4 mm) and the rabbit ventricles
 * of ../shared/data (scale 10 and 30, h = 0.5 to 8 mm): 25 meshes of 213 to 361,258 nodes, the
 * table in docs/meshes.md. The model has one term per thing TetGen refines for, each fitted by
 * least squares on the relative error (so small and large meshes weigh alike):
 *   N = 1.95 V/h^3        interior nodes at the volume bound
 *     + 5.4  A/h^2        the boundary layer at the surface, split to about h
 *     + 1.7  n_points     TetGen keeps every input point and grades the mesh around input
 *                         triangles finer than h (a fine surface meshed coarsely costs ~1.7x its
 *                         points, whatever h: the rabbit at h = 2, 4 and 8 mm gave 36,191-36,240)
 * Worst ratio actual/estimate over the 25 meshes: 1.73 (1/1.28 the other way); the volume-only
 * estimate it replaces was 3.4x low on the rabbit at h = 2 mm and 14x at 4 mm. */
#define NODES_PER_VOLUME 1.95
#define NODES_PER_AREA 5.4
#define NODES_PER_POINT 1.7
/* tetrahedra per node in the same meshes: 3.9 (rabbit, coarse h) to 5.7 (cube) */
#define TETS_PER_NODE 5.0

double hs_surface_estimate_nodes(const hs_surface_report *rep, double h)
{
    if (!rep || !(h > 0.0) || !(rep->volume > 0.0)) return 0.0;
    return NODES_PER_VOLUME * rep->volume / (h * h * h) + NODES_PER_AREA * rep->area / (h * h) +
           NODES_PER_POINT * (double)(rep->n_points - rep->n_unused_points);
}

hs_status hs_surface_size_check(const char *path, const hs_surface_report *rep, double h,
                                double max_nodes)
{
    if (!(max_nodes > 0.0)) max_nodes = HS_SURFACE_MAX_NODES;
    const double n = hs_surface_estimate_nodes(rep, h);
    if (n <= max_nodes) return HS_OK;
    const char *name = path ? path : "(surface)";
    const double n_floor = NODES_PER_POINT * (double)(rep->n_points - rep->n_unused_points);
    if (n_floor >= max_nodes)
        return HS_FAIL(HS_ERR_MESH,
                       "%s: the surface has %d points; TetGen keeps every one and grades the mesh "
                       "around them, which gives about %.2g nodes at any mesh.h, more than the limit "
                       "of %.2g nodes; coarsen the surface (e.g. quadric decimation in MeshLab), or "
                       "mesh it outside heartsim and read the volume mesh with mesh.source = \"file\"",
                       name, (int)(rep->n_points - rep->n_unused_points), n_floor, max_nodes);
    /* the h that gives max_nodes: the estimate falls monotonically with h; bisect on log h */
    double lo = h, hi = h * 2.0;
    while (hs_surface_estimate_nodes(rep, hi) > max_nodes) hi *= 2.0;
    for (int it = 0; it < 60; ++it) {
        const double mid = sqrt(lo * hi);
        if (hs_surface_estimate_nodes(rep, mid) > max_nodes)
            lo = mid;
        else
            hi = mid;
    }
    return HS_FAIL(HS_ERR_MESH,
                   "%s: meshing the enclosed volume %.4g mm^3 with mesh.h = %g mm would give about "
                   "%.2g nodes (%.2g tetrahedra), more than the limit of %.2g nodes (TetGen would "
                   "run for long and may run out of memory); use mesh.h >= %.3g mm, or mesh the "
                   "surface outside heartsim and read the volume mesh with mesh.source = \"file\"",
                   name, rep->volume, h, n, n * TETS_PER_NODE, max_nodes, hi * 1.0005);
}

/* Smallest corner angle of facet f, degrees (polygons: every corner). */
static double facet_min_angle(const hs_surface *s, int32_t f)
{
    const int32_t a0 = s->facet_ptr[f], n = s->facet_ptr[f + 1] - a0;
    double amin = 180.0;
    for (int32_t k = 0; k < n; ++k) {
        const double *p = s->xyz + 3 * (size_t)s->facet_idx[a0 + k];
        const double *q = s->xyz + 3 * (size_t)s->facet_idx[a0 + (k + 1) % n];
        const double *r = s->xyz + 3 * (size_t)s->facet_idx[a0 + (k + n - 1) % n];
        double u[3], v[3], uu = 0.0, vv = 0.0, uv = 0.0;
        for (int c = 0; c < 3; ++c) {
            u[c] = q[c] - p[c];
            v[c] = r[c] - p[c];
            uu += u[c] * u[c];
            vv += v[c] * v[c];
            uv += u[c] * v[c];
        }
        if (!(uu > 0.0 && vv > 0.0)) return 0.0;
        double cosa = uv / sqrt(uu * vv);
        cosa = cosa > 1.0 ? 1.0 : cosa < -1.0 ? -1.0 : cosa;
        const double a = acos(cosa) * 180.0 / acos(-1.0);
        if (a < amin) amin = a;
    }
    return amin;
}

void hs_surface_slivers(const hs_surface *s, double min_angle_deg, hs_surface_slivers_info *out)
{
    out->n_slivers = 0;
    out->worst_facet = -1;
    out->worst_angle_deg = 180.0;
    for (int32_t f = 0; f < s->n_facets; ++f) {
        const double a = facet_min_angle(s, f);
        if (a < min_angle_deg) ++out->n_slivers;
        if (a < out->worst_angle_deg) {
            out->worst_angle_deg = a;
            out->worst_facet = f;
        }
    }
}
