/*
 * Every ionic model of fem/models/hs_model_list.h in tissue, on the CPU backend: a 4 x 1 x 1 mm slab
 * stimulated at x < 0.6 mm for 2 ms, run for 20 ms with the model's defaults (dt 0.1 ms, or half the
 * model's dt_max). Every step converges
 * (Newton within solver.newton_max_iter, the consistent tangent keeping it at a few iterations), every
 * node activates, and the front travels: activation at x = 4 mm is later than at x = 1 mm. The
 * model's potential, variables and activation come back through the state descriptor. A new model is
 * checked here without a new line.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "hs_sim.h"
#include "hs_test.h"
#include "hs_test_spec.h"
#include "hs_util.h"

static void run_model(const hs_model *m)
{
    static hs_sim_spec spec;
    hs_test_spec_defaults(&spec);
    spec.model = m;
    hs_model_params_defaults(m, &spec.model_prm);
    spec.time_unit = m->time_unit_default;
    spec.mesh.box = (hs_box_params){.lx = 4.0, .ly = 1.0, .lz = 1.0, .h = 0.25};
    spec.n_stimuli = 1;
    spec.stimuli[0] = (hs_stimulus_cfg){.shape = HS_STIM_BOX, .min = {-1, -1, -1}, .max = {0.6, 2, 2},
                                        .start = 0.0, .duration = 2.0, .strength = 2.0};
    /* 0.1 ms, or half the model's tangent bound where that is smaller (bueno_orovio: 0.088 ms) */
    spec.dt = fmin(0.1, 0.5 * m->dt_max(spec.model_prm.v) * spec.time_unit);
    if (!(m->schemes & HS_MODEL_SCHEME_NEWTON)) {
        /* a model generated from CellML (mV, splitting only): 100 mV/ms (O'Hara-Rudy does not fire at 50),
         * about twice the CellML files' own stimuli; dt 0.02 ms, where forward Euler of their concentrations is stable */
        spec.scheme = hs_scheme_opts_newton();
        spec.scheme.kind = HS_SCHEME_SPLITTING;
        spec.stimuli[0].strength = 100.0 / m->mv_scale;
        spec.dt = 0.02;
    }
    HS_TEST_CHECK(spec.dt < m->dt_max(spec.model_prm.v) * spec.time_unit, "%s: dt above the model's bound", m->name);
    hs_sim sim;
    if (hs_sim_create(&spec, &sim) != HS_OK) {
        HS_TEST_CHECK(0, "%s: set-up failed: %s", m->name, hs_error_message());
        hs_error_clear();
        return;
    }
    hs_step_stats st;
    long newton = 0, steps = (long)lround(20.0 / spec.dt);
    for (long k = 0; k < steps; ++k) {
        if (hs_sim_step(&sim, k * spec.dt, spec.dt, &st) != HS_OK) {
            HS_TEST_CHECK(0, "%s: step %ld failed: %s", m->name, k, hs_error_message());
            hs_error_clear();
            hs_sim_destroy(&sim);
            return;
        }
        newton += st.newton_iters;
    }
    hs_state state;
    HS_TEST_OK(hs_state_create(&sim.backend->state, &state));
    HS_TEST_OK(sim.backend->ops->get_state(sim.backend, &state));
    const double *act = state.field[sim.backend->state.activation];
    int32_t missing = 0;
    double t1 = 0, t4 = 0;
    int n1 = 0, n4 = 0;
    for (int32_t i = 0; i < sim.mesh->n_nodes; ++i) {
        double x = sim.mesh->xyz[3 * i];
        if (act[i] < 0) ++missing;
        if (fabs(x - 1.0) < 1e-9) t1 += act[i], ++n1;
        if (fabs(x - 4.0) < 1e-9) t4 += act[i], ++n4;
    }
    t1 /= n1 ? n1 : 1;
    t4 /= n4 ? n4 : 1;
    printf("%-20s %.2f Newton per step; activation at x = 1 mm %.2f ms, at 4 mm %.2f ms (%.2f mm/ms)\n", m->name,
           (double)newton / steps, t1, t4, 3.0 / (t4 - t1));
    HS_TEST_CHECK(missing == 0, "%s: %d nodes never activated", m->name, missing);
    HS_TEST_CHECK(t4 > t1 && t1 > 0, "%s: no travelling front (%.3f, %.3f ms)", m->name, t1, t4);
    HS_TEST_CHECK((double)newton / steps <= 4.0, "%s: %.2f Newton iterations per step", m->name, (double)newton / steps);
    for (int k = 0; k < state.desc->n_fields; ++k)
        for (size_t i = 0; i < hs_state_field_len(state.desc, k); ++i)
            if (!isfinite(state.field[k][i])) {
                HS_TEST_CHECK(0, "%s: %s not finite", m->name, state.desc->f[k].name);
                break;
            }
    hs_state_destroy(&state);
    hs_sim_destroy(&sim);
}

int main(void)
{
    hs_verbosity = 0;
    for (int i = 0; i < hs_models_count(); ++i) run_model(hs_models_at(i));
    HS_TEST_RETURN();
}
