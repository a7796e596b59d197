/*
 * The global Newton iteration converges quadratically for every ionic model of
 * fem/models/hs_model_list.h and, for models with gates, both gate schemes (model.gates): from a
 * steep front (u = tanh profile from 1 to 0 across x = 2 mm) with the gates at rest, CG solved to
 * 1e-14 so the linear solves do not limit the rate, each residual is bounded by 50 (previous
 * residual)^2 wherever the previous one is in [1e-13, 0.1] (test_newton.c's bound for the default
 * model; quadratic convergence needs the tangent to be the exact derivative of the residual,
 * including the derivative of the gate update with respect to u, which is what this checks), and
 * the iteration reaches round-off. The step is 0.5 ms, or half the model's dt_max where that is
 * smaller (bueno_orovio). A new model is checked here without a new line.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "hs_sim.h"
#include "hs_test.h"
#include "hs_test_spec.h"
#include "hs_util.h"

static void run(const hs_model *m, int gates)
{
    static hs_sim_spec cfg;
    hs_test_spec_defaults(&cfg);
    cfg.model = m;
    hs_model_params_defaults(m, &cfg.model_prm);
    cfg.model_prm.gates = gates;
    cfg.time_unit = m->time_unit_default;
    cfg.mesh.box = (hs_box_params){.lx = 4.0, .ly = 0.5, .lz = 0.5, .h = 0.125};
    cfg.backend = hs_backends_find("cpu");
    cfg.n_stimuli = 0;
    cfg.cg.tol = 1e-14;
    cfg.cg.max_iter = 5000;
    cfg.newton_tol_residual = 1e-15;
    cfg.newton_tol_update = 1e-15;
    cfg.newton_max_iter = 12;
    const char *gname = gates ? "rush_larsen" : "newton";
    hs_sim sim;
    HS_TEST_OK(hs_sim_create(&cfg, &sim));
    if (!sim.backend) return;
    int32_t n = sim.mesh->n_nodes;
    double *phi = malloc(sizeof(double) * n);
    for (int32_t i = 0; i < n; ++i) phi[i] = 0.5 * (1.0 - tanh((sim.mesh->xyz[3 * i] - 2.0) / 0.3));
    hs_state init = {&sim.backend->state, {phi}};
    HS_TEST_OK(sim.backend->ops->set_state(sim.backend, &init));
    hs_step_stats st;
    double dt = fmin(0.5, 0.5 * m->dt_max(cfg.model_prm.v) * cfg.time_unit);
    hs_status s = hs_time_step(sim.backend, 0.0, dt, NULL, &st);
    (void)s; /* with tolerances at round-off the loop may end at the limit; the history is what counts */
    hs_error_clear();
    int checked = 0;
    for (int k = 0; k + 1 < st.n_hist; ++k) {
        double a = st.res_hist[k], b = st.res_hist[k + 1];
        if (b < 1e-13 || a > 1e-1) continue; /* round-off floor / outside the quadratic basin */
        HS_TEST_CHECK(b <= 50.0 * a * a, "%s/%s iteration %d: %.3e -> %.3e is not quadratic", m->name, gname, k, a, b);
        ++checked;
    }
    HS_TEST_CHECK(checked >= 2, "%s/%s: only %d iterations in the quadratic range (history of %d)", m->name, gname,
                  checked, st.n_hist);
    HS_TEST_CHECK(st.n_hist > 0 && st.res_hist[st.n_hist - 1] < 1e-12, "%s/%s: final residual %.3e", m->name, gname,
                  st.n_hist > 0 ? st.res_hist[st.n_hist - 1] : -1.0);
    if (hs_test_failures || getenv("HS_VERBOSE"))
        for (int k = 0; k < st.n_hist; ++k) fprintf(stderr, "  %s/%s residual[%d] = %.3e\n", m->name, gname, k, st.res_hist[k]);
    free(phi);
    hs_sim_destroy(&sim);
}

int main(void)
{
    hs_verbosity = 0;
    for (int i = 0; i < hs_models_count(); ++i) {
        if (!(hs_models_at(i)->schemes & HS_MODEL_SCHEME_NEWTON)) continue; /* generated: splitting only */
        run(hs_models_at(i), HS_GATES_NEWTON);
        if (hs_models_at(i)->has_gates) run(hs_models_at(i), HS_GATES_RUSH_LARSEN);
    }
    HS_TEST_RETURN();
}
