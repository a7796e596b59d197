#include "hs_vec.h"

#include <math.h>
#include <stdlib.h>

#include "hs_util.h"

double hs_vec_dot(int32_t n, const double *a, const double *b)
{
    int32_t nchunk = (n + HS_DOT_CHUNK - 1) / HS_DOT_CHUNK;
    /* 4096 partials (32 KiB of stack) cover 16.7M entries: no allocation inside the CG loop below that */
    double stackbuf[4096];
    double *part = nchunk <= 4096 ? stackbuf : malloc(sizeof(double) * (size_t)nchunk);
    if (!part) { /* no memory for partials: the sequential sum is still deterministic */
        double s = 0.0;
        for (int32_t i = 0; i < n; ++i) s += a[i] * b[i];
        return s;
    }
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
    for (int32_t c = 0; c < nchunk; ++c) {
        int32_t lo = c * HS_DOT_CHUNK, hi = lo + HS_DOT_CHUNK < n ? lo + HS_DOT_CHUNK : n;
        double s = 0.0;
        for (int32_t i = lo; i < hi; ++i) s += a[i] * b[i];
        part[c] = s;
    }
    double s = 0.0;
    for (int32_t c = 0; c < nchunk; ++c) s += part[c];
    if (part != stackbuf) free(part);
    return s;
}

double hs_vec_norm_inf_weighted(int32_t n, const double *a, const double *w, int32_t *arg)
{
    double m = 0.0;
    int32_t im = 0;
    for (int32_t i = 0; i < n; ++i) {
        double v = fabs(a[i]) * (w ? w[i] : 1.0);
        if (v > m || isnan(v)) {
            m = v;
            im = i;
            if (isnan(v)) break;
        }
    }
    if (arg) *arg = im;
    return m;
}

double hs_vec_norm_inf(int32_t n, const double *a, int32_t *arg)
{
    return hs_vec_norm_inf_weighted(n, a, NULL, arg);
}

int hs_vec_all_finite(int32_t n, const double *a)
{
    int ok = 1;
#pragma omp parallel for schedule(static) reduction(& : ok) if (n > HS_OMP_MIN)
    for (int32_t i = 0; i < n; ++i) ok &= isfinite(a[i]) ? 1 : 0;
    return ok;
}
