/*
 * The cpu backend's phase times (hs_backend_ops.get_times, the run summary's "phases:" line): each
 * second of a step is counted in one phase at most, so element + assembly + solve never exceed the
 * wall time of the calls that produced them (issue 30: the tangent of a split assembly was counted
 * as assembly and again inside solve). Both assemblies, stimulated so that Newton iterates.
 */
#include "hs_test.h"
#include "hs_test_spec.h"
#include "hs_util.h"

static void check(hs_assembly_kind assembly)
{
    static hs_sim_spec spec;
    hs_test_spec_defaults(&spec);
    spec.assembly = assembly;
    spec.n_stimuli = 1;
    spec.stimuli[0] = (hs_stimulus_cfg){.shape = HS_STIM_BOX, .min = {-1, -1, -1}, .max = {1.0, 8, 4},
                                        .start = 0.0, .duration = 2.0, .strength = 0.5};
    hs_sim sim;
    HS_TEST_OK(hs_sim_create(&spec, &sim));
    if (hs_test_failures) return;
    hs_step_stats ss;
    for (int k = 0; k < 10; ++k) HS_TEST_OK(hs_sim_step(&sim, k * spec.dt, spec.dt, &ss)); /* the front is moving */
    /* Newton iterations of the next step as newton.c runs them (assemble, solve), timed around exactly
     * those calls: the phases they add up must fit inside */
    hs_backend *b = sim.backend;
    double amp[HS_SPEC_MAX_STIMULI] = {0};
    hs_phase_times t0, t1;
    double wall = 0.0;
    HS_TEST_OK(b->ops->begin_step(b, spec.dt, amp));
    b->ops->get_times(b, &t0);
    for (int it = 0; it < 20; ++it) {
        double res, upd;
        int32_t node;
        hs_cg_result cg;
        const double w0 = hs_wtime();
        HS_TEST_OK(b->ops->assemble(b, &res, &node));
        HS_TEST_OK(b->ops->solve(b, &cg, &upd));
        wall += hs_wtime() - w0;
    }
    b->ops->get_times(b, &t1);
    HS_TEST_OK(b->ops->restore_step(b));
    const double el = t1.element - t0.element, as = t1.assembly - t0.assembly, so = t1.solve - t0.solve;
    const double sum = el + as + so;
    /* the phases are measured inside these calls' wall time with the same clock: no tolerance needed
     * beyond the clock's own rounding */
    HS_TEST_CHECK(sum <= wall * (1 + 1e-9) + 1e-9,
                  "%s assembly: phases sum to %.6f s (element %.6f, assembly %.6f, solve %.6f) > the wall "
                  "time of those calls %.6f s", hs_assembly_name(assembly), sum, el, as, so, wall);
    HS_TEST_CHECK(el > 0 && as > 0 && so > 0, "%s assembly: a phase not timed (element %g, assembly %g, solve %g)",
                  hs_assembly_name(assembly), el, as, so);
    hs_sim_destroy(&sim);
}

int main(void)
{
    check(HS_ASSEMBLY_SPLIT);
    check(HS_ASSEMBLY_FULL);
    HS_TEST_RETURN();
}
