/*
 * 0D pacing of one ionic model through its nodal form (fem/models/hs_model_ode.h), the splitting
 * scheme's reaction step at one point: per step of dt, (f, a, tau) from hs_model_rhs at the step's
 * start, V += dt (f + stim), gates by Rush-Larsen and the other variables by forward Euler
 * (hs_model_ode_vars). scripts/cellml/verify_0d.py runs it against myokit's CVODES integration of
 * the same CellML file (docs/models.md); test_cellml_0d runs that in CI.
 *
 * usage: cell_ap MODEL PRESET DT BCL BEATS STIM DUR [S2]
 *   MODEL a model.type, PRESET one of its presets or "-" (the defaults); DT ms; BCL ms; BEATS pulses
 *   at t = 0, BCL, ...; STIM the stimulus in mV/ms (dV/dt it adds, -I_stim/C_m) for DUR ms; with S2,
 *   one more pulse S2 ms after the last one.
 * Writes "t V" (ms, mV) at every step from the last S1 pulse to the end (BCL after it, or S2 + BCL).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_model_ode.h"
#include "hs_models.h"

int main(int argc, char **argv)
{
    if (argc < 8) {
        fprintf(stderr, "usage: cell_ap MODEL PRESET DT BCL BEATS STIM DUR [S2]\n");
        return 2;
    }
    const hs_model *m = hs_models_find(argv[1]);
    if (!m) {
        fprintf(stderr, "cell_ap: no model %s\n", argv[1]);
        return 2;
    }
    hs_model_params p;
    hs_model_params_defaults(m, &p);
    if (strcmp(argv[2], "-") != 0) {
        int found = 0;
        for (int k = 0; k < m->n_presets; ++k)
            if (strcmp(m->presets[k].name, argv[2]) == 0) {
                memcpy(p.v, m->presets[k].v, sizeof(double) * (size_t)m->n_params);
                found = 1;
            }
        if (!found) {
            fprintf(stderr, "cell_ap: %s has no preset %s\n", m->name, argv[2]);
            return 2;
        }
    }
    const double dt = atof(argv[3]), bcl = atof(argv[4]), stim = atof(argv[6]), dur = atof(argv[7]);
    const int beats = atoi(argv[5]);
    const double s2 = argc > 8 ? atof(argv[8]) : -1.0;
    /* pulse starts in steps (exact multiples of dt: no drift over 100 beats) */
    const long per = lround(bcl / dt), nd = lround(dur / dt), n2 = s2 > 0 ? lround(s2 / dt) : -1;
    const long last = (long)(beats - 1) * per, end = last + (n2 > 0 ? n2 : 0) + per;
    double u = m->potential_rest, s[HS_MODEL_MAX_VARS], a[HS_MODEL_MAX_VARS], tau[HS_MODEL_MAX_VARS];
    for (int k = 0; k < m->n_vars; ++k) s[k] = m->vars[k].initial;
    for (long n = 0; n <= end; ++n) {
        if (n >= last) printf("%.6f %.9g\n", (double)n * dt, m->mv_scale * u + m->mv_offset);
        if (n == end) break;
        long in = n <= last ? n % per : n - last;
        int on = (n <= last + nd && in < nd) || (n2 > 0 && n >= last + n2 && n < last + n2 + nd);
        double f = 0.0;
        hs_model_rhs(&p, u, s, &f, a, tau);
        u += dt * (f + (on ? stim : 0.0));
        if (!hs_model_ode_vars(m->n_vars, s, a, tau, dt) || !isfinite(u)) {
            fprintf(stderr, "cell_ap: non-finite state at t = %g ms\n", (double)n * dt);
            return 1;
        }
    }
    return 0;
}
