/**
 * @file hs_test_cg_sim.h
 * @brief The CG variants' whole-simulation tests' case (tests/sim/test_sstep_sim.c,
 * test_pipelined_sim.c): a 6 x 2 x 1 mm slab at h = 0.2 on the cpu backend, stimulated at one end,
 * every Newton system solved to cg_tol = 1e-12 and Newton stopped at 1e-10, no output; and the
 * difference of two runs' sorted nodes. Header-only, for tests.
 */
#ifndef HS_TEST_CG_SIM_H
#define HS_TEST_CG_SIM_H

#include <math.h>

#include "hs_sim.h"
#include "hs_test_sim.h"
#include "hs_test_spec.h"

/** @brief The case with solver.cg = @p v (and its s, for "sstep"). */
static inline void hs_test_cg_sim_setup(hs_sim_spec *cfg, hs_cg_variant v, int s)
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

/** @brief The reference: the case with Chronopoulos-Gear CG run for @p nsteps steps, its nodes sorted
 *  (*n of them; NULL when the run failed, which the caller reports). */
static inline hs_test_node *hs_test_cg_sim_reference(int nsteps, int32_t *n)
{
    static hs_sim_spec ref;
    hs_test_cg_sim_setup(&ref, HS_CG_CHRONOPOULOS, 0);
    *n = 0;
    return hs_test_run_sorted(&ref, nsteps, n);
}

/** @brief Runs @p a (the reference) and @p b, @p n nodes each: *rel = ||phi_b - phi_a|| / ||phi_a||,
 *  *dact the largest activation time difference (ms) of the nodes both activated, *mismatch the nodes
 *  activated in one run only. */
static inline void hs_test_cg_sim_diff(const hs_test_node *a, const hs_test_node *b, int32_t n, double *rel,
                                       double *dact, int *mismatch)
{
    double d2 = 0, r2 = 0;
    *dact = 0;
    *mismatch = 0;
    for (int32_t i = 0; i < n; ++i) {
        d2 += (a[i].phi - b[i].phi) * (a[i].phi - b[i].phi);
        r2 += a[i].phi * a[i].phi;
        if ((a[i].act >= 0) != (b[i].act >= 0)) ++*mismatch;
        else if (a[i].act >= 0) *dact = fmax(*dact, fabs(a[i].act - b[i].act));
    }
    *rel = sqrt(d2 / r2);
}

#endif
