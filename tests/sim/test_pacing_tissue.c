/*
 * A paced slab activates `count` times: Mitchell-Schaeffer (tau_close shortened to 50 ms, so an
 * action potential lasts about 80 ms and the gate reopens, tau_open = 120 ms, within a 250 ms cycle) on a 2 x 0.5 x 0.5 mm
 * slab, stimulus at x < 0.3 mm with count pulses every 250 ms. The potential at the far end
 * (x = 2 mm) crosses 0.5 upwards exactly count times, once per cycle, each after its pulse starts
 * and within 30 ms of it (the front needs about 2 ms to cross the slab). The same with count = 1
 * gives one action potential: the later pulses are what excites the tissue again.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "hs_sim.h"
#include "hs_test.h"
#include "hs_test_spec.h"
#include "hs_util.h"

static void run_paced(int count)
{
    static hs_sim_spec spec;
    const hs_model *m = hs_models_find("mitchell_schaeffer");
    HS_TEST_CHECK(m != NULL, "mitchell_schaeffer not listed");
    if (!m) return;
    hs_test_spec_defaults(&spec);
    spec.model = m;
    hs_model_params_defaults(m, &spec.model_prm);
    spec.model_prm.v[hs_model_param_index(m, "tau_close")] = 50.0;
    spec.time_unit = m->time_unit_default;
    spec.mesh.box = (hs_box_params){.lx = 2.0, .ly = 0.5, .lz = 0.5, .h = 0.25};
    spec.n_stimuli = 1;
    const double period = 250.0;
    spec.stimuli[0] = (hs_stimulus_cfg){.shape = HS_STIM_BOX, .min = {-1, -1, -1}, .max = {0.3, 2, 2},
                                        .start = 1.0, .duration = 2.0, .strength = 0.5, .period = period,
                                        .count = count};
    spec.dt = 0.25;
    spec.t_end = 750.0;
    hs_sim sim;
    if (hs_sim_create(&spec, &sim) != HS_OK) {
        HS_TEST_CHECK(0, "set-up failed: %s", hs_error_message());
        hs_error_clear();
        return;
    }
    int32_t far = -1;
    for (int32_t i = 0; i < sim.mesh->n_nodes; ++i)
        if (fabs(sim.mesh->xyz[3 * i] - 2.0) < 1e-9) far = i;
    hs_state state;
    HS_TEST_OK(hs_state_create(&sim.backend->state, &state));
    hs_step_stats st;
    double prev = 0.0, up[8];
    int n_up = 0;
    long steps = (long)(spec.t_end / spec.dt);
    for (long k = 0; k < steps; ++k) {
        if (hs_sim_step(&sim, k * spec.dt, spec.dt, &st) != HS_OK) {
            HS_TEST_CHECK(0, "count %d: step %ld failed: %s", count, k, hs_error_message());
            hs_error_clear();
            break;
        }
        HS_TEST_OK(sim.backend->ops->get_state(sim.backend, &state));
        double v = state.field[HS_STATE_POTENTIAL][far];
        if (prev < 0.5 && v >= 0.5 && n_up < 8) up[n_up++] = (k + 1) * spec.dt;
        prev = v;
    }
    HS_TEST_CHECK(n_up == count, "count %d: the far end activated %d times", count, n_up);
    for (int b = 0; b < n_up && b < count; ++b) {
        double t0 = 1.0 + b * period;
        HS_TEST_CHECK(up[b] > t0 && up[b] < t0 + 30.0, "count %d: activation %d at %.2f ms, pulse at %.2f ms", count,
                      b, up[b], t0);
    }
    hs_state_destroy(&state);
    hs_sim_destroy(&sim);
}

int main(void)
{
    hs_verbosity = 0;
    run_paced(3);
    run_paced(1);
    HS_TEST_RETURN();
}
