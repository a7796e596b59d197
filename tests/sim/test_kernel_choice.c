/*
 * A short simulation gives the same result whichever SpMV kernel is chosen (issue 4), on the cpu
 * backend with every kernel it can run (each kernel's CPU reference, in its own summation order;
 * formats with their own numbering renumber the mesh, so nodes are matched by coordinates).
 * Tolerance: each step is solved to Newton 1e-10 / CG 1e-12, so two runs differ by at most about
 * N x 1e-10 after N steps (the scheme is dissipative): relative L2 of phi <= N x 1e-10, activation
 * times within 1e-6 ms.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_sim.h"
#include "hs_test_spec.h"
#include "hs_test.h"
#include "hs_test_sim.h"
#include "hs_util.h"

#define NSTEPS 40

/* NSTEPS steps with kernel `name` on the cpu backend; nodes sorted by position (NULL on failure). */
static hs_test_node *simulate(const char *name, int32_t *n_out)
{
    static hs_sim_spec cfg;
    hs_test_spec_defaults(&cfg);
    cfg.mesh.box = (hs_box_params){.lx = 4.0, .ly = 1.5, .lz = 1.0, .h = 0.25};
    cfg.backend = hs_backends_find("cpu");
    cfg.spmv = strcmp(name, "auto") ? hs_spmv_find(name) : NULL;
    cfg.n_stimuli = 1;
    cfg.stimuli[0] = (hs_stimulus_cfg){.shape = HS_STIM_BOX, .min = {-1, -1, -1}, .max = {1.0, 9, 9},
                                       .start = 0, .duration = 2, .strength = 2};
    cfg.cg.tol = 1e-12;
    cfg.newton_tol_residual = 1e-10;
    cfg.newton_tol_update = 1e-10;
    cfg.output_enabled = 0;
    return hs_test_run_sorted(&cfg, NSTEPS, n_out);
}

int main(void)
{
    hs_verbosity = 0;
    int32_t n0 = 0;
    hs_test_node *ref = simulate("csr_scalar", &n0);
    HS_TEST_CHECK(ref != NULL, "reference run failed");
    if (!ref) HS_TEST_RETURN();
    int activated = 0;
    for (int32_t i = 0; i < n0; ++i) activated += ref[i].act >= 0;
    HS_TEST_CHECK(activated > n0 / 10, "only %d of %d nodes activated", activated, n0);
    for (int f = 0; f < hs_spmv_count(); ++f) {
        const hs_spmv_ops *o = hs_spmv_get(f);
        if (o->needs_device || !strcmp(o->name, "csr_scalar")) continue;
        int32_t n = 0;
        hs_test_node *v = simulate(o->name, &n);
        HS_TEST_CHECK(v != NULL && n == n0, "%s: run failed", o->name);
        if (!v || n != n0) { free(v); continue; }
        double d2 = 0, r2 = 0, dact = 0;
        int mism = 0;
        for (int32_t i = 0; i < n; ++i) {
            d2 += (v[i].phi - ref[i].phi) * (v[i].phi - ref[i].phi);
            r2 += ref[i].phi * ref[i].phi;
            if ((v[i].act < 0) != (ref[i].act < 0)) ++mism;
            else if (v[i].act >= 0) dact = fmax(dact, fabs(v[i].act - ref[i].act));
        }
        HS_TEST_CHECK(sqrt(d2 / r2) <= NSTEPS * 1e-10, "%s: phi differs from csr_scalar: relative L2 %.3e", o->name, sqrt(d2 / r2));
        HS_TEST_CHECK(mism == 0 && dact <= 1e-6, "%s: activation differs: %d mismatches, max %.3e ms", o->name, mism, dact);
        free(v);
    }
    free(ref);
    HS_TEST_RETURN();
}
