/* Probes and pseudo-ECG weights (hs_sample.h). */
#include "hs_sample.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_p1.h"
#include "hs_util.h"

hs_status hs_sample_set_alloc(int n_rows, int64_t nnz, int probes, hs_sample_set **out)
{
    hs_sample_set *s = NULL;
    HS_CALL(HS_ALLOC(s, 1, "sample set"));
    s->n_rows = n_rows;
    hs_status st = HS_OK;
    HS_CALL_GOTO(HS_ALLOC(s->row_ptr, (size_t)n_rows + 1, "sample rows"), fail);
    HS_CALL_GOTO(HS_ALLOC(s->col, (size_t)nnz + 1, "sample columns"), fail);
    HS_CALL_GOTO(HS_ALLOC(s->val, (size_t)nnz + 1, "sample weights"), fail);
    HS_CALL_GOTO(HS_ALLOC(s->offset, (size_t)n_rows + 1, "sample offsets"), fail);
    if (probes) {
        HS_CALL_GOTO(HS_ALLOC(s->node, (size_t)n_rows + 1, "probe nodes"), fail);
        HS_CALL_GOTO(HS_ALLOC(s->dist, (size_t)n_rows + 1, "probe distances"), fail);
    }
    *out = s;
    return HS_OK;
fail:
    hs_sample_set_destroy(&s);
    return st;
}

void hs_sample_set_destroy(hs_sample_set **p)
{
    if (!p || !*p) return;
    hs_sample_set *s = *p;
    free(s->row_ptr);
    free(s->col);
    free(s->val);
    free(s->offset);
    free(s->node);
    free(s->dist);
    free(s);
    *p = NULL;
}

static double dist3(const double *a, const double *b)
{
    double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
    return sqrt(d0 * d0 + d1 * d1 + d2 * d2);
}

double hs_sample_longest_edge(const hs_mesh *m)
{
    double h = 0.0;
    for (int32_t e = 0; e < m->n_elems; ++e) {
        const int32_t *t = m->tets + 4 * (int64_t)e;
        for (int a = 0; a < 4; ++a)
            for (int b = a + 1; b < 4; ++b) h = fmax(h, dist3(m->xyz + 3 * (int64_t)t[a], m->xyz + 3 * (int64_t)t[b]));
    }
    return h;
}

double hs_sample_distance(const double *a, const double *b)
{
    return dist3(a, b);
}

void hs_sample_nearest_node(const hs_mesh *m, int32_t n, const int64_t *gid, const double *x, double *dist,
                            int64_t *node)
{
    double bd = INFINITY;
    int64_t best = gid ? INT64_MAX : 0;
    for (int32_t i = 0; i < n; ++i) {
        const double d = dist3(m->xyz + 3 * (int64_t)i, x);
        const int64_t g = gid ? gid[i] : i;
        if (d < bd || (d == bd && g < best)) bd = d, best = g;
    }
    *dist = bd;
    *node = best;
}

hs_status hs_sample_probes_create(const hs_problem *p, const double *xyz, const char *const *names, int n,
                                  hs_sample_set **out)
{
    *out = NULL;
    const hs_mesh *m = p->mesh;
    hs_sample_set *s = NULL;
    HS_CALL(hs_sample_set_alloc(n, n, 1, &s));
    const double hmax = hs_sample_longest_edge(m);
    for (int j = 0; j < n; ++j) {
        int64_t best = 0;
        double bd = INFINITY;
        hs_sample_nearest_node(m, m->n_nodes, NULL, xyz + 3 * j, &bd, &best);
        if (!(bd <= hmax)) {
            hs_sample_set_destroy(&s);
            return HS_FAIL(HS_ERR_CONFIG, "probe \"%s\" at [%g, %g, %g] mm is %.4g mm from the nearest mesh node (the "
                           "longest edge is %.4g mm): it lies outside the tissue", names[j], xyz[3 * j], xyz[3 * j + 1],
                           xyz[3 * j + 2], bd, hmax);
        }
        s->row_ptr[j + 1] = j + 1;
        s->col[j] = (int32_t)best;
        s->val[j] = p->opt.model->mv_scale;
        s->offset[j] = p->opt.model->mv_offset;
        s->node[j] = (int32_t)best;
        s->dist[j] = bd;
    }
    *out = s;
    return HS_OK;
}

/* An electrode inside the tissue (deeper than HS_ECG_SURFACE_TOL of the element it is in) is refused:
 * 1/|x - y| is singular there, the one-point rule cannot integrate it, and the docs ask for
 * electrodes outside or on the tissue. Closer to the boundary it counts as on it (a point given on a
 * curved surface may sit a chord's sagitta inside the polyhedral one). */
#define HS_ECG_SURFACE_TOL 0.25

hs_status hs_sample_ecg_check_place(int j, const char *name, const double *x, const hs_mesh_point_place *pl)
{
    HS_CHECK(pl->elem < 0 || pl->depth <= HS_ECG_SURFACE_TOL * pl->elem_size, HS_ERR_CONFIG,
             "ecg.electrodes.[%d].at: electrode \"%s\" at [%g, %g, %g] mm lies inside the tissue, %.4g mm "
             "from its surface (in element %d, %.3g mm across): the pseudo-ECG integral is singular at an "
             "electrode inside the tissue; put it outside or on the surface (within %.3g mm here)",
             j, name, x[0], x[1], x[2], pl->depth, (int)pl->elem, pl->elem_size, HS_ECG_SURFACE_TOL * pl->elem_size);
    return HS_OK;
}

static hs_status check_electrodes_outside(const hs_mesh *m, const double *xyz, const char *const *names, int n)
{
    for (int j = 0; j < n; ++j) {
        hs_mesh_point_place pl;
        HS_CALL(hs_mesh_point_depth(m, xyz + 3 * j, &pl));
        HS_CALL(hs_sample_ecg_check_place(j, names[j], xyz + 3 * j, &pl));
    }
    return HS_OK;
}

double hs_sample_ecg_scale(const hs_model *model, double sigma_b)
{
    return model->mv_scale / (4.0 * 3.14159265358979323846 * sigma_b);
}

void hs_sample_ecg_weights(const hs_mesh *m, const hs_region_set *rg, double d_iso, double d_ani, double scale,
                           const double *x, double *w, hs_sample_near *near)
{
    near->r = INFINITY;
    near->elem = -1;
    near->size = 0.0;
    for (int32_t e = 0; e < m->n_elems; ++e) {
        const int32_t *t = m->tets + 4 * (int64_t)e;
        double xe[4][3], gr[4][3] = {{0}}, c[3] = {0, 0, 0};
        for (int a = 0; a < 4; ++a)
            for (int k = 0; k < 3; ++k) xe[a][k] = m->xyz[3 * (int64_t)t[a] + k], c[k] += 0.25 * xe[a][k];
        double vol = hs_p1_gradients(xe, gr);
        double di = d_iso, da = d_ani;
        if (rg) {
            const hs_region_row *r = &rg->tab[rg->elem_tab ? rg->elem_tab[e] : 0];
            di = r->d_iso, da = r->d_ani;
        }
        if (di == 0.0 && da == 0.0) continue; /* non-conducting: no current */
        double rv[3] = {c[0] - x[0], c[1] - x[1], c[2] - x[2]};
        double r = sqrt(rv[0] * rv[0] + rv[1] * rv[1] + rv[2] * rv[2]);
        if (r < near->r) near->r = r, near->size = cbrt(vol), near->elem = e;
        double g[3] = {rv[0] / (r * r * r), rv[1] / (r * r * r), rv[2] / (r * r * r)};
        const double *f = m->fiber + 3 * (int64_t)e;
        double fg = f[0] * g[0] + f[1] * g[1] + f[2] * g[2];
        double we[3]; /* vol D grad(1/r) (c_e), scaled */
        for (int k = 0; k < 3; ++k) we[k] = scale * vol * (di * g[k] + da * fg * f[k]);
        for (int a = 0; a < 4; ++a) w[t[a]] += we[0] * gr[a][0] + we[1] * gr[a][1] + we[2] * gr[a][2];
    }
}

void hs_sample_ecg_warn(const char *name, const double *x, const hs_sample_near *near, double extent)
{
    if (near->r < 0.5 * near->size)
        hs_warn("electrode \"%s\" at [%g, %g, %g] mm is %.3g mm from an element centroid (element size %.3g mm): "
                "inside the tissue the one-point rule for 1/r^2 is poor; put electrodes outside or on the tissue",
                name, x[0], x[1], x[2], near->r, near->size);
    else if (near->r > 100.0 * extent)
        hs_warn("electrode \"%s\" at [%g, %g, %g] mm is %.4g mm from the tissue (%.3g mm across): its signal is "
                "weak (~1/r^2)", name, x[0], x[1], x[2], near->r, extent);
}

hs_status hs_sample_ecg_create(const hs_problem *p, const double *xyz, const char *const *names, int n, double sigma_b,
                               hs_sample_set **out)
{
    *out = NULL;
    const hs_mesh *m = p->mesh;
    const int32_t nn = m->n_nodes;
    hs_sample_set *s = NULL;
    HS_CHECK(sigma_b > 0, HS_ERR_CONFIG, "ecg.sigma_b = %g: must be > 0", sigma_b);
    HS_CALL(check_electrodes_outside(m, xyz, names, n));
    HS_CALL(hs_sample_set_alloc(n, (int64_t)n * nn, 0, &s));
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int32_t i = 0; i < nn; ++i)
        for (int k = 0; k < 3; ++k) lo[k] = fmin(lo[k], m->xyz[3 * (int64_t)i + k]), hi[k] = fmax(hi[k], m->xyz[3 * (int64_t)i + k]);
    const double extent = dist3(lo, hi);
    const double scale = hs_sample_ecg_scale(p->opt.model, sigma_b);
    for (int j = 0; j < n; ++j) {
        const double *x = xyz + 3 * j;
        hs_sample_near near;
        hs_sample_ecg_weights(m, p->opt.regions, p->opt.d_iso, p->opt.d_ani, scale, x, s->val + (int64_t)j * nn, &near);
        hs_sample_ecg_warn(names[j], x, &near, extent);
        s->row_ptr[j + 1] = (int64_t)(j + 1) * nn;
        for (int32_t i = 0; i < nn; ++i) s->col[(int64_t)j * nn + i] = i;
        s->offset[j] = 0.0; /* sum_n W_n = 0 (the gradients of an element sum to zero): no offset */
    }
    *out = s;
    return HS_OK;
}

void hs_sample_apply_ref(const hs_sample_set *s, const double *u, double *y)
{
    for (int j = 0; j < s->n_rows; ++j) {
        double acc = 0.0;
        for (int64_t k = s->row_ptr[j]; k < s->row_ptr[j + 1]; ++k) acc += s->val[k] * u[s->col[k]];
        y[j] = acc;
    }
}
