/* Lagrange extrapolation weights for the first Newton iterate (hs_extrapolate.h). */
#include "hs_extrapolate.h"

int hs_extrap_weights(const hs_extrap *e, double dt, double w[3])
{
    w[0] = 1.0;
    w[1] = w[2] = 0.0;
    int k = e->order < e->n_valid ? e->order : e->n_valid;
    if (k <= 0 || !(dt > 0.0) || !(e->h[0] > 0.0)) return 0;
    const double h1 = e->h[0];
    if (k == 1 || !(e->h[1] > 0.0)) { /* line through (-h1, phi_{n-1}), (0, phi_n), at +dt */
        w[0] = 1.0 + dt / h1;
        w[1] = -dt / h1;
        return 1;
    }
    const double h2 = e->h[1], t = dt; /* nodes at 0, -h1, -(h1 + h2) */
    w[0] = (t + h1) * (t + h1 + h2) / (h1 * (h1 + h2));
    w[1] = -t * (t + h1 + h2) / (h1 * h2);
    w[2] = t * (t + h1) / ((h1 + h2) * h2);
    return 2;
}
