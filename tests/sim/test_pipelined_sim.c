/* solver.cg = "pipelined" (Ghysels-Vanroose, solvers/cg_pipelined.c) through a whole simulation on the
 * cpu backend: the same simulation as Chronopoulos-Gear CG within the Newton tolerance's effect. Bound
 * (as test_sstep_sim and test_precond_sim's comment): both solve every Newton system to cg_tol = 1e-12
 * and stop Newton at 1e-10, so the steps differ by <= ~1e-10 relative and the difference grows at
 * most linearly over N steps (the implicit scheme is dissipative): ||phi_pipe - phi_chrono|| / ||phi||
 * <= N 1e-10; activation times differ by that over the upstroke slope (~0.05 per ms): <= 2e-7 ms for
 * N = 40; we allow 1e-6 ms. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "hs_sim.h"
#include "hs_test.h"
#include "hs_test_sim.h"
#include "hs_test_spec.h"
#include "hs_util.h"

static void setup(hs_sim_spec *cfg, hs_cg_variant v, int s)
{
    hs_test_spec_defaults(cfg);
    cfg->mesh.box = (hs_box_params){.lx = 6.0, .ly = 2.0, .lz = 1.0, .h = 0.2};
    cfg->backend = hs_backends_find("cpu");
    cfg->n_stimuli = 1;
    cfg->stimuli[0] = (hs_stimulus_cfg){.shape = HS_STIM_BOX, .min = {-1, -1, -1}, .max = {1.5, 1e3, 1e3},
                                        .start = 0.0, .duration = 2.0, .strength = 2.0};
    cfg->dt = 0.1;
    cfg->cg.tol = 1e-12;
    cfg->cg.variant = v;
    cfg->cg.s = s;
    cfg->newton_tol_residual = 1e-10;
    cfg->newton_tol_update = 1e-10;
    cfg->output_enabled = 0;
}

int main(void)
{
    const int nsteps = 40;
    if (!getenv("HS_TEST_VERBOSE")) hs_verbosity = 0; /* silent on success */
    static hs_sim_spec ref, ss;
    setup(&ref, HS_CG_CHRONOPOULOS, 0);
    int32_t nr = 0;
    hs_test_node *a = hs_test_run_sorted(&ref, nsteps, &nr);
    HS_TEST_CHECK(a != NULL, "chronopoulos run failed");
    if (a) {
        setup(&ss, HS_CG_PIPELINED, 0);
        int32_t n = 0;
        hs_test_node *b = hs_test_run_sorted(&ss, nsteps, &n);
        HS_TEST_CHECK(b && n == nr, "pipelined: run failed");
        if (!b || n != nr) n = 0; /* nothing to compare */
        double d2 = 0, r2 = 0, dact = 0;
        int act_mismatch = 0;
        for (int32_t i = 0; i < n; ++i) {
            d2 += (a[i].phi - b[i].phi) * (a[i].phi - b[i].phi);
            r2 += a[i].phi * a[i].phi;
            if ((a[i].act >= 0) != (b[i].act >= 0)) ++act_mismatch;
            else if (a[i].act >= 0) dact = fmax(dact, fabs(a[i].act - b[i].act));
        }
        if (getenv("HS_TEST_VERBOSE"))
            printf("pipelined: |phi diff|/|phi| = %.2e, max activation difference %.2e ms\n", sqrt(d2 / r2), dact);
        HS_TEST_CHECK(n > 0 && sqrt(d2 / r2) <= nsteps * 1e-10 && dact <= 1e-6 && act_mismatch == 0,
                      "pipelined vs chronopoulos after %d steps: |phi diff|/|phi| = %.3e, activation %.3e ms, %d nodes "
                      "activated in one run only",
                      nsteps, sqrt(d2 / r2), dact, act_mismatch);
        free(b);
    }
    free(a);
    HS_TEST_RETURN();
}
