/*
 * Verification: a plane wave in a long thin slab travels at the speed of the cubic reaction front,
 *   v = sqrt(c D / (2 T)) (1 - 2 alpha)   [mm/ms; D along the fibre in mm^2/ms, T the model time unit]
 * (exact for r = 0; recovery shifts it by about 1%), and the discrete speed approaches it as h and
 * dt shrink. Prints the error table over h and dt, with r and with r off (docs/verification.md).
 * Usage: test_wave_speed [--full] [--markdown FILE]; the default (ctest, ~1 min on 2 cores) runs the
 * diagonal refinement h = 0.2 / 0.1 / 0.05 mm with dt = 0.1 / 0.05 / 0.025 ms; --full runs every
 * (h, dt) pair of h = 0.2 ... 0.025 mm and dt = 0.1 ... 0.0125 ms (the table of docs/verification.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_sim.h"
#include "hs_test_spec.h"
#include "hs_test.h"
#include "hs_util.h"

/* The front is wide: phi ~ 1/(1 + exp(x/w)) with w = sqrt(2 D T / c) = 2 mm, so 10%-90% spans ~9 mm.
 * The slab is long enough that the speed is fitted where the front has its travelling shape and
 * the far (no-flux) end is more than 4 w away. */
#define L_SLAB 40.0
#define FIT_LO 15.0
#define FIT_HI 30.0

/* Returns the speed in mm/ms from a least-squares fit of activation time against x, x in [FIT_LO, FIT_HI] mm. */
static double wave_speed(double h, double dt, int recovery, double *newton_per_step)
{
    static hs_sim_spec cfg;
    hs_test_spec_defaults(&cfg);
    cfg.mesh.box = (hs_box_params){.lx = L_SLAB, .ly = h, .lz = h, .h = h};
    cfg.backend = hs_backends_find("cpu");
    cfg.mesh.reorder = HS_REORDER_NONE;
    cfg.mesh.fiber_dir[0] = 1.0; cfg.mesh.fiber_dir[1] = 0.0; cfg.mesh.fiber_dir[2] = 0.0;
    cfg.model_prm.v[hs_model_param_index(cfg.model, "recovery")] = recovery;
    cfg.dt = dt;
    cfg.n_stimuli = 1;
    cfg.stimuli[0] = (hs_stimulus_cfg){.shape = HS_STIM_BOX, .min = {-1, -1, -1}, .max = {1.5, 1e3, 1e3},
                                       .start = 0.0, .duration = 2.0, .strength = 2.0};
    cfg.output_enabled = 0;
    hs_sim sim;
    if (hs_sim_create(&cfg, &sim) != HS_OK) {
        fprintf(stderr, "set-up failed: %s\n", hs_error_message());
        return NAN;
    }
    double t_end = 4.0 + FIT_HI / 0.55; /* excitation plus the front reaching FIT_HI at >= 0.55 mm/ms */
    long nsteps = (long)ceil(t_end / dt);
    hs_step_stats st;
    long newton = 0;
    for (long k = 0; k < nsteps; ++k) {
        if (hs_sim_step(&sim, k * dt, dt, &st) != HS_OK) {
            fprintf(stderr, "step failed: %s\n", hs_error_message());
            hs_sim_destroy(&sim);
            return NAN;
        }
        newton += st.newton_iters;
    }
    *newton_per_step = (double)newton / nsteps;
    int32_t n = sim.mesh->n_nodes;
    double *act = malloc(sizeof(double) * n);
    hs_state want = {&sim.backend->state, {0}};
    want.field[sim.backend->state.activation] = act;
    sim.backend->ops->get_state(sim.backend, &want);
    double sx = 0, st_ = 0, sxx = 0, sxt = 0, cnt = 0;
    int missing = 0;
    for (int32_t i = 0; i < n; ++i) {
        double x = sim.mesh->xyz[3 * i];
        if (x < FIT_LO - 1e-9 || x > FIT_HI + 1e-9) continue;
        if (act[i] < 0) { ++missing; continue; }
        sx += x; st_ += act[i]; sxx += x * x; sxt += x * act[i]; cnt += 1;
    }
    free(act);
    hs_sim_destroy(&sim);
    if (missing || cnt < 2) return NAN;
    double slope = (cnt * sxt - sx * st_) / (cnt * sxx - sx * sx); /* ms per mm */
    return 1.0 / slope;
}

int main(int argc, char **argv)
{
    hs_verbosity = 0;
    int full = 0;
    const char *md = NULL;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--full")) full = 1;
        else if (!strcmp(argv[i], "--markdown") && i + 1 < argc) md = argv[++i];
    }
    static hs_sim_spec d;
    hs_test_spec_defaults(&d);
    const double c = d.model_prm.v[hs_model_param_index(d.model, "c")];
    const double alpha = d.model_prm.v[hs_model_param_index(d.model, "alpha")];
    double D = d.d_iso + d.d_ani, T = d.time_unit;
    double v_exact = sqrt(c * D / (2.0 * T)) * (1.0 - 2.0 * alpha);

    const double hs_[] = {0.2, 0.1, 0.05, 0.025};
    const double dts[] = {0.1, 0.05, 0.025, 0.0125};
    FILE *out = md ? fopen(md, "w") : NULL;
    printf("analytic cubic-front speed: %.5f mm/ms (c = %g, D = %g mm^2/ms, T = %g ms, alpha = %g)\n",
           v_exact, c, D, T, alpha);
    if (out)
        fprintf(out, "| h (mm) | dt (ms) | v, r off (mm/ms) | error, r off | v, with r (mm/ms) | error, with r | Newton/step |\n"
                     "|---|---|---|---|---|---|---|\n");
    printf("%8s %8s %12s %9s %12s %9s %8s\n", "h", "dt", "v(r off)", "err", "v(with r)", "err", "newton");
    /* speeds along the diagonal refinement (h and dt halved together), r off and with r */
    double vd0[4] = {0}, vd1[4] = {0};
    int nd = 0;
    const int levels = full ? 4 : 3;
    for (int ih = 0; ih < levels; ++ih)
        for (int it = 0; it < levels; ++it) {
            if (!full && it != ih) continue;
            double nps0, nps1;
            double v0 = wave_speed(hs_[ih], dts[it], 0, &nps0);
            double v1 = wave_speed(hs_[ih], dts[it], 1, &nps1);
            double e0 = (v0 - v_exact) / v_exact, e1 = (v1 - v_exact) / v_exact;
            printf("%8.4g %8.4g %12.5f %+8.2f%% %12.5f %+8.2f%% %8.2f\n", hs_[ih], dts[it], v0, 100 * e0, v1, 100 * e1, nps1);
            if (out)
                fprintf(out, "| %g | %g | %.4f | %+.2f%% | %.4f | %+.2f%% | %.2f |\n", hs_[ih], dts[it], v0, 100 * e0, v1, 100 * e1, nps1);
            HS_TEST_CHECK(isfinite(v0) && isfinite(v1), "h=%g dt=%g: wave did not cross the slab", hs_[ih], dts[it]);
            if (it == ih) {
                vd0[nd] = v0;
                vd1[nd] = v1;
                ++nd;
            }
        }
    if (out) fclose(out);
    /* Convergence. Backward Euler makes the speed first order in dt (h is resolved: the front is
     * 2 mm wide), so successive differences along the refinement halve: |v_k - v_k+1| / |v_k+1 -
     * v_k+2| in [1.5, 2.7]. The Richardson limit v_inf = 2 v_last - v_prev must be within 1% of the
     * analytic speed (what remains is the finite slab and fit window), the finest run within 3%. */
    const double *vd[2] = {vd0, vd1};
    for (int w = 0; w < 2; ++w) {
        const char *lab = w ? "with r" : "r off";
        for (int k = 0; k + 2 < nd; ++k) {
            double d1 = vd[w][k] - vd[w][k + 1], d2 = vd[w][k + 1] - vd[w][k + 2];
            HS_TEST_CHECK(d2 != 0.0 && d1 / d2 >= 1.5 && d1 / d2 <= 2.7,
                          "%s: level %d: successive differences %.3g, %.3g are not first-order convergence", lab, k, d1, d2);
        }
        double fin = (vd[w][nd - 1] - v_exact) / v_exact;
        double lim = (2.0 * vd[w][nd - 1] - vd[w][nd - 2] - v_exact) / v_exact;
        printf("%s: finest error %+.3f%%, extrapolated (dt -> 0) error %+.3f%%\n", lab, 100 * fin, 100 * lim);
        HS_TEST_CHECK(fabs(fin) < 0.03, "finest (%s): error %.2f%% >= 3%%", lab, 100 * fin);
        HS_TEST_CHECK(fabs(lim) < 0.01, "extrapolated (%s): error %.2f%% >= 1%%", lab, 100 * lim);
    }
    HS_TEST_RETURN();
}
