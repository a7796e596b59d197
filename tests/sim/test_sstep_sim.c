/* solver.cg = "sstep" through a whole simulation on the cpu backend: the same simulation as
 * Chronopoulos-Gear CG within the Newton tolerance's effect, for s = 2, 4, 8, with the Chebyshev
 * interval kept across the run's solves (the backend sets sstep_reuse). Bound (as test_gpu_backend
 * part 4): both solve every Newton system to cg_tol = 1e-12 and stop Newton at 1e-10, so the steps
 * differ by <= ~1e-10 relative and the difference grows at most linearly over N steps (the implicit
 * scheme is dissipative): ||phi_sstep - phi_chrono|| / ||phi|| <= N 1e-10; activation times differ by
 * that over the upstroke slope (~0.05 per ms): <= 2e-7 ms for N = 40; we allow 1e-6 ms. */
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
    const int svals[] = {2, 4, 8};
    for (int q = 0; q < 3 && a; ++q) {
        hs_test_cg_sim_setup(&ss, HS_CG_SSTEP, svals[q]);
        int32_t n = 0;
        hs_test_node *b = hs_test_run_sorted(&ss, nsteps, &n);
        HS_TEST_CHECK(b && n == nr, "s = %d: run failed", svals[q]);
        if (!b || n != nr) { free(b); continue; }
        double rel = 0, dact = 0;
        int act_mismatch = 0;
        hs_test_cg_sim_diff(a, b, n, &rel, &dact, &act_mismatch);
        if (getenv("HS_TEST_VERBOSE"))
            printf("s = %d: |phi diff|/|phi| = %.2e, max activation difference %.2e ms\n", svals[q], rel, dact);
        HS_TEST_CHECK(rel <= nsteps * 1e-10 && dact <= 1e-6 && act_mismatch == 0,
                      "s = %d vs chronopoulos after %d steps: |phi diff|/|phi| = %.3e, activation %.3e ms, %d nodes "
                      "activated in one run only",
                      svals[q], nsteps, rel, dact, act_mismatch);
        free(b);
    }
    free(a);
    HS_TEST_RETURN();
}
