/* The point model (hs_cell.h): the tissue scheme at one integration point, and the beat read-out. */
#include "hs_cell.h"

#include <math.h>
#include <string.h>

#include "hs_model_point.h"
#include "hs_splitting.h"

int hs_cell_react(const hs_model_params *p, double h, int n_sub, double stim, double *u, double *s)
{
    return hs_split_react_node(p, h, n_sub, stim, u, s);
}

int hs_cell_step(const hs_model_params *p, double dt, double stim, double *u, double *s, hs_cell_newton *nw)
{
    const double u_n = *u;
    double s_n[HS_MODEL_MAX_VARS], st[HS_MODEL_MAX_VARS];
    memcpy(s_n, s, sizeof(double) * (size_t)p->n_vars);
    memcpy(st, s, sizeof(double) * (size_t)p->n_vars);
    int max_iter = nw->max_iter < 31 ? nw->max_iter : 31;
    double uu = u_n, du = INFINITY;
    nw->iters = 0;
    nw->n_hist = 0;
    for (int k = 0;; ++k) {
        double f = 0.0, df = 0.0;
        /* the local update from the previous iterate's variables, as the element kernels do */
        if (hs_model_point(p, u_n, uu, dt, s_n, st, &f, &df) < 0) return -1;
        double r = uu - u_n - dt * (f + stim); /* dt R: potential units */
        if (!isfinite(r)) return -1;
        nw->res_hist[nw->n_hist++] = fabs(r);
        if (fabs(r) <= nw->tol_residual && (k == 0 || fabs(du) <= nw->tol_update)) break;
        if (k == max_iter) return -1;
        du = r / (1.0 - dt * df);
        uu -= du;
        nw->iters = k + 1;
    }
    *u = uu;
    memcpy(s, st, sizeof(double) * (size_t)p->n_vars);
    return 0;
}

/* Index of the first sample with t >= t0 (n when none). */
static long first_at(const double *t, long n, double t0)
{
    long lo = 0, hi = n;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (t[mid] < t0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

void hs_cell_beats(const double *t, const double *v, long n, const double *starts, int n_starts,
                   double min_amplitude, hs_cell_beat *beats)
{
    for (int b = 0; b < n_starts; ++b) {
        hs_cell_beat *o = &beats[b];
        o->t_start = starts[b];
        o->t_act = o->t_repol = o->apd90 = -1.0;
        long i0 = first_at(t, n, starts[b]);
        long i1 = b + 1 < n_starts ? first_at(t, n, starts[b + 1]) : n;
        if (i0 >= n) {
            o->v_rest = o->peak = NAN;
            continue;
        }
        o->v_rest = v[i0 > 0 ? i0 - 1 : 0];
        long ip = i0;
        for (long i = i0; i < i1; ++i)
            if (v[i] > v[ip]) ip = i;
        o->peak = v[ip];
        if (!(o->peak - o->v_rest >= min_amplitude)) continue;
        double v90 = o->peak - 0.9 * (o->peak - o->v_rest);
        for (long i = (i0 > 0 ? i0 : 1); i <= ip; ++i)
            if (v[i - 1] < v90 && v[i] >= v90) {
                o->t_act = t[i - 1] + (t[i] - t[i - 1]) * (v90 - v[i - 1]) / (v[i] - v[i - 1]);
                break;
            }
        for (long i = ip + 1; i < n; ++i)
            if (v[i - 1] >= v90 && v[i] < v90) {
                o->t_repol = t[i - 1] + (t[i] - t[i - 1]) * (v[i - 1] - v90) / (v[i - 1] - v[i]);
                break;
            }
        if (o->t_act >= 0.0 && o->t_repol >= 0.0) o->apd90 = o->t_repol - o->t_act;
    }
}
