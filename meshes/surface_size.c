/* Before TetGen meshes a closed surface (issue 16): how many nodes the mesh will have, refused over
 * a limit before TetGen runs out of memory, and the sliver facets that make TetGen refine far
 * beyond mesh.h (hs_surface.h: hs_surface_estimate_nodes, hs_surface_size_check,
 * hs_surface_slivers). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>

#include "hs_surface.h"
#include "hs_util.h"

/* Measured with heartsim's TetGen call (-q1.414, -a h^3/(6 sqrt 2)) on a 10 mm cube: 1.96 to 2.0
 * tetrahedra per h^3/(6 sqrt 2) of volume and 5.3 to 5.7 tetrahedra per node at h = 1, 0.5 and
 * 0.3 mm (4217, 25800 and 108418 nodes; about 1.1 kB of TetGen memory and 30 us per node). */
#define TETS_PER_VOLUME 2.0
#define TETS_PER_NODE 5.5

double hs_surface_estimate_nodes(double volume, double h)
{
    if (!(h > 0.0) || !(volume > 0.0)) return 0.0;
    const double v_tet = h * h * h / (6.0 * sqrt(2.0));
    return TETS_PER_VOLUME * volume / v_tet / TETS_PER_NODE;
}

hs_status hs_surface_size_check(const char *path, double volume, double h, double max_nodes)
{
    if (!(max_nodes > 0.0)) max_nodes = HS_SURFACE_MAX_NODES;
    const double n = hs_surface_estimate_nodes(volume, h);
    if (n <= max_nodes) return HS_OK;
    /* the h that would give max_nodes: n scales as h^-3 */
    const double h_ok = h * cbrt(n / max_nodes);
    return HS_FAIL(HS_ERR_MESH,
                   "%s: meshing the enclosed volume %.4g mm^3 with mesh.h = %g mm would give about "
                   "%.2g nodes (%.2g tetrahedra), more than the limit of %.2g nodes (TetGen would "
                   "run for long and may run out of memory); use mesh.h >= %.3g mm, or mesh the "
                   "surface outside heartsim and read the volume mesh with mesh.source = \"file\"",
                   path ? path : "(surface)", volume, h, n, n * TETS_PER_NODE, max_nodes, h_ok);
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
