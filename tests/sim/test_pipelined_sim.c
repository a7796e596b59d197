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

#include "hs_test.h"
#include "hs_test_cg_sim.h"
#include "hs_util.h"

int main(void)
{
    const int nsteps = 40;
    if (!getenv("HS_TEST_VERBOSE")) hs_verbosity = 0; /* silent on success */
    static hs_sim_spec ss;
    int32_t nr = 0;
    hs_test_node *a = hs_test_cg_sim_reference(nsteps, &nr);
    HS_TEST_CHECK(a != NULL, "chronopoulos run failed");
    if (a) {
        hs_test_cg_sim_setup(&ss, HS_CG_PIPELINED, 0);
        int32_t n = 0;
        hs_test_node *b = hs_test_run_sorted(&ss, nsteps, &n);
        HS_TEST_CHECK(b && n == nr, "pipelined: run failed");
        if (!b || n != nr) n = 0; /* nothing to compare */
        double rel = 0, dact = 0;
        int act_mismatch = 0;
        hs_test_cg_sim_diff(a, b, n, &rel, &dact, &act_mismatch);
        if (getenv("HS_TEST_VERBOSE"))
            printf("pipelined: |phi diff|/|phi| = %.2e, max activation difference %.2e ms\n", rel, dact);
        HS_TEST_CHECK(n > 0 && rel <= nsteps * 1e-10 && dact <= 1e-6 && act_mismatch == 0,
                      "pipelined vs chronopoulos after %d steps: |phi diff|/|phi| = %.3e, activation %.3e ms, %d nodes "
                      "activated in one run only",
                      nsteps, rel, dact, act_mismatch);
        free(b);
    }
    free(a);
    HS_TEST_RETURN();
}
