/* Stimulus sites: element lists by centroid, time-averaged pulse amplitudes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_stimulus.h"
#include "hs_util.h"

static int inside(const hs_stimulus_cfg *s, const double c[3])
{
    if (s->shape == HS_STIM_BOX)
        return c[0] >= s->min[0] && c[0] <= s->max[0] && c[1] >= s->min[1] && c[1] <= s->max[1] &&
               c[2] >= s->min[2] && c[2] <= s->max[2];
    double d0 = c[0] - s->center[0], d1 = c[1] - s->center[1], d2 = c[2] - s->center[2];
    return d0 * d0 + d1 * d1 + d2 * d2 <= s->radius * s->radius;
}

hs_status hs_stim_set_create(const hs_mesh *m, const hs_stimulus_cfg *sites, int n_sites,
                             hs_stim_set **out)
{
    *out = NULL;
    hs_status st = HS_OK;
    hs_stim_set *s = NULL;
    HS_CALL(HS_ALLOC(s, 1, "stimulus set"));
    s->n_sites = n_sites;
    HS_CALL_GOTO(HS_ALLOC(s->site, n_sites, "stimulus sites"), fail);
    HS_CALL_GOTO(HS_ALLOC(s->elem_ptr, (size_t)n_sites + 1, "stimulus element lists"), fail);
    if (n_sites) memcpy(s->site, sites, sizeof(*sites) * (size_t)n_sites);
    int64_t total = 0;
    for (int pass = 0; pass < 2; ++pass) {
        for (int k = 0; k < n_sites; ++k) {
            int32_t cnt = 0;
            for (int32_t e = 0; e < m->n_elems; ++e) {
                double c[3] = {0, 0, 0};
                for (int a = 0; a < 4; ++a)
                    for (int d = 0; d < 3; ++d) c[d] += 0.25 * m->xyz[3 * (int64_t)m->tets[4 * (int64_t)e + a] + d];
                if (!inside(&sites[k], c)) continue;
                if (pass == 1) s->elem[s->elem_ptr[k] + cnt] = e;
                ++cnt;
            }
            if (pass == 0) {
                if (cnt == 0) {
                    const hs_stimulus_cfg *q = &sites[k];
                    if (q->shape == HS_STIM_BOX)
                        st = HS_FAIL(HS_ERR_CONFIG,
                                     "stimulus [%d]: the box [%g, %g, %g] - [%g, %g, %g] mm contains no "
                                     "element centroid; enlarge it (elements are tested by centroid)",
                                     k, q->min[0], q->min[1], q->min[2], q->max[0], q->max[1], q->max[2]);
                    else
                        st = HS_FAIL(HS_ERR_CONFIG,
                                     "stimulus [%d]: the sphere at [%g, %g, %g] mm, radius %g mm contains no "
                                     "element centroid; enlarge it (elements are tested by centroid)",
                                     k, q->center[0], q->center[1], q->center[2], q->radius);
                    goto fail;
                }
                s->elem_ptr[k + 1] = s->elem_ptr[k] + cnt;
                total += cnt;
            }
        }
        if (pass == 0) HS_CALL_GOTO(HS_ALLOC(s->elem, total, "stimulus element lists"), fail);
    }
    *out = s;
    return HS_OK;
fail:
    hs_stim_set_destroy(&s);
    return st;
}

void hs_stim_set_amplitudes(const hs_stim_set *s, double t0, double t1, double *amp)
{
    for (int k = 0; k < s->n_sites; ++k) {
        const hs_stimulus_cfg *q = &s->site[k];
        double lo = fmax(t0, q->start), hi = fmin(t1, q->start + q->duration);
        amp[k] = hi > lo ? q->strength * (hi - lo) / (t1 - t0) : 0.0;
    }
}

void hs_stim_set_destroy(hs_stim_set **p)
{
    if (!p || !*p) return;
    free((*p)->site);
    free((*p)->elem_ptr);
    free((*p)->elem);
    free(*p);
    *p = NULL;
}
