/*
 * solver.assembly = "split" and "full" give the same simulation within what the Newton test
 * guarantees (issue 17), with every SpMV format the CPU backend runs. Both solve every step to the
 * same tolerances; they differ only in the rounding of K and R (test_split_assembly), so each
 * step's phi agrees to a small multiple of newton_tol_residual = 1e-8 and N steps to N * 1e-8 (the
 * bound and its argument are test_inexact_newton's); activation times by that over the upstroke
 * slope (>= 0.5 per ms in the front): 2 N 1e-8 ms. The bound must not be met trivially: the two
 * methods must differ somewhere.
 * solver.matrix_values = "float32" against "float64" the same way, with every format that has a
 * float32 variant: only the CG's matrix is rounded (relative 2^-24), the residual and the Newton test
 * stay float64, so each step still ends within the same residual tolerance of the same fixed point
 * and the same N * 1e-8 bound holds.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "hs_sim.h"
#include "hs_test.h"
#include "hs_test_sim.h"
#include "hs_test_spec.h"
#include "hs_util.h"

static hs_test_node *run(const hs_spmv_ops *fmt, hs_assembly_kind am, hs_matrix_values mv, int nsteps, int32_t *n)
{
    static hs_sim_spec cfg;
    hs_test_spec_defaults(&cfg);
    cfg.mesh.box = (hs_box_params){.lx = 4.0, .ly = 1.0, .lz = 1.0, .h = 0.25};
    cfg.backend = hs_backends_find("cpu");
    cfg.spmv = fmt;
    cfg.assembly = am;
    cfg.matrix_values = mv;
    cfg.n_stimuli = 1;
    cfg.stimuli[0] = (hs_stimulus_cfg){.shape = HS_STIM_BOX, .min = {-1, -1, -1}, .max = {0.6, 2, 2},
                                       .start = 0.0, .duration = 2.0, .strength = 2.0};
    cfg.dt = 0.1;
    cfg.output_enabled = 0;
    return hs_test_run_sorted(&cfg, nsteps, n);
}

/* Compare two runs' phi and activation after N steps against the bound of the file comment. */
static void compare(const char *what, const char *name, const hs_test_node *a, const hs_test_node *b, int32_t n1,
                    int32_t n2, int N)
{
    HS_TEST_CHECK(a && b && n1 == n2, "%s %s: runs failed", name, what);
    if (!a || !b || n1 != n2) return;
    double dphi = 0.0, dact = 0.0;
    int mism = 0, activated = 0;
    for (int32_t i = 0; i < n1; ++i) {
        dphi = fmax(dphi, fabs(a[i].phi - b[i].phi));
        if ((a[i].act < 0) != (b[i].act < 0)) ++mism;
        else if (a[i].act >= 0) { dact = fmax(dact, fabs(a[i].act - b[i].act)); ++activated; }
    }
    printf("%-14s %s after %d steps: max |phi diff| %.2e, max activation diff %.2e ms (%d activated)\n", name, what,
           N, dphi, dact, activated);
    HS_TEST_CHECK(activated > n1 / 4, "%s: only %d of %d nodes activated", name, activated, n1);
    HS_TEST_CHECK(dphi <= N * 1e-8, "%s %s: phi differs by %.3e (allowed %.1e)", name, what, dphi, N * 1e-8);
    HS_TEST_CHECK(dphi > 0.0, "%s %s: identical: the comparison would not see a fault", name, what);
    HS_TEST_CHECK(mism == 0 && dact <= 2 * N * 1e-8, "%s %s: activation: %d mismatches, max diff %.3e ms", name, what,
                  mism, dact);
}

int main(void)
{
    hs_verbosity = 0;
    const int N = 40;
    for (int f = 0; f < hs_spmv_count(); ++f) {
        const hs_spmv_ops *o = hs_spmv_get(f);
        if (o->needs_device) continue;
        int32_t n1 = 0, n2 = 0, n3 = 0;
        hs_test_node *a = run(o, HS_ASSEMBLY_FULL, HS_VALUES_F64, N, &n1);
        hs_test_node *b = run(o, HS_ASSEMBLY_SPLIT, HS_VALUES_F64, N, &n2);
        compare("split vs full", o->name, a, b, n1, n2, N);
        if (hs_spmv_serves(o, HS_VALUES_F32)) {
            hs_test_node *c = run(o, HS_ASSEMBLY_SPLIT, HS_VALUES_F32, N, &n3);
            compare("float32 vs float64", o->name, b, c, n2, n3, N);
            free(c);
        }
        free(a);
        free(b);
    }
    HS_TEST_RETURN();
}
