/*
 * solver.step = "auto" (hs_step_auto, fem/hs_problem.h): the persistent step exactly where its kernel
 * runs the settings and the mesh is at or below the measured crossover, the graph step for the other
 * Jacobi-CG settings, the host loop for the other solvers; each choice with its reason.
 */
#include <string.h>

#include "hs_problem.h"
#include "hs_test.h"

static hs_problem_opts defaults(void)
{
    hs_problem_opts o;
    memset(&o, 0, sizeof o);
    o.pc.precond = HS_PRECOND_JACOBI;
    o.pc.krylov = HS_KRYLOV_CG;
    o.cg.variant = HS_CG_CHRONOPOULOS;
    o.persistent = -1; /* solver.persistent = "auto" */
    o.step_graph = -1;
    return o;
}

static void expect(const hs_problem_opts *o, int split, int32_t rows, int want, const char *what)
{
    const char *why = NULL;
    const int got = hs_step_auto(o, split, rows, &why);
    HS_TEST_CHECK(got == want, "%s (%d rows): %d, want %d (%s)", what, rows, got, want, why ? why : "no reason");
    HS_TEST_CHECK(why && why[0], "%s: no reason given", what);
}

int main(void)
{
    hs_problem_opts o = defaults();
    expect(&o, 1, 7840, 2, "the defaults, the ventricle");
    expect(&o, 1, 50653, 2, "the defaults, bench_50k");
    expect(&o, 1, HS_STEP_PERSISTENT_AUTO_ROWS, 2, "the defaults at the crossover");
    expect(&o, 1, HS_STEP_PERSISTENT_AUTO_ROWS + 1, 1, "the defaults above the crossover");
    expect(&o, 1, 1030301, 1, "the defaults, bench_1m");
    expect(&o, 0, 50653, 1, "full assembly");
    o.cg.variant = HS_CG_CLASSIC;
    expect(&o, 1, 50653, 1, "classic CG");
    o = defaults();
    o.persistent = 0;
    expect(&o, 1, 50653, 1, "solver.persistent = off");
    o.persistent = 1;
    expect(&o, 1, 50653, 2, "solver.persistent = on");
    expect(&o, 1, 300000, 1, "solver.persistent = on above the crossover");
    o = defaults();
    o.pc.precond = HS_PRECOND_FSAI;
    expect(&o, 1, 50653, 0, "FSAI-PCG");
    o = defaults();
    o.pc.krylov = HS_KRYLOV_BICGSTAB;
    o.pc.precond = HS_PRECOND_SAI;
    expect(&o, 1, 50653, 0, "SAI-BiCGStab");
    /* what the persistent kernel runs, at any size (bench step's row) */
    o = defaults();
    HS_TEST_CHECK(!hs_step_persistent_refusal(&o, 1, 50653), "the defaults refused");
    HS_TEST_CHECK(hs_step_persistent_refusal(&o, 1, HS_CG_PERSISTENT_AUTO_ROWS + 1) != NULL,
                  "solver.persistent = auto above its limit accepted");
    o.persistent = 1;
    HS_TEST_CHECK(!hs_step_persistent_refusal(&o, 1, 1030301), "solver.persistent = on at 1M refused");
    HS_TEST_CHECK(hs_step_persistent_refusal(&o, 0, 50653) != NULL, "full assembly accepted");
    o.cg.variant = HS_CG_CLASSIC;
    HS_TEST_CHECK(hs_step_persistent_refusal(&o, 1, 50653) != NULL, "classic CG accepted");
    HS_TEST_RETURN();
}
