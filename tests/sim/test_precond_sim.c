/*
 * solver.precond / solver.krylov in the simulation (issue 13): FSAI-PCG, FSAI-PCG reusing its values
 * over several solves, SAI-BiCGStab and Jacobi-BiCGStab give the same simulation as Jacobi-PCG
 * within what the Newton test guarantees, and FSAI-PCG needs fewer Krylov iterations than Jacobi.
 *
 * Tolerance (as test_inexact_newton): every accepted step satisfies dt max_I |R_I| / m_I <=
 * newton_tol_residual (1e-8) in both runs, so each step's phi differs by at most a small multiple of
 * 1e-8 and over N steps by at most N 1e-8 (the backward-Euler step is a contraction at this dt);
 * activation times move by |phi diff| / (dphi/dt), dphi/dt >= 0.5 / ms in the front: 2 N 1e-8 ms.
 * `test_precond_sim -v` prints the iteration counts. Built as test_gpu_precond_sim (HS_TEST_BACKEND
 * "cuda", a gpu test, exit 77 without a device) it runs the same comparisons with every run but the
 * Jacobi-PCG cpu reference on the cuda backend (preconditioners computed on the device): both runs meet
 * the Newton test each step, so the same bound holds between backends.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_sim.h"
#include "hs_test_spec.h"
#include "hs_test.h"
#include "hs_util.h"

typedef struct run_out {
    double *phi, *act;
    int32_t n;
    long newton, krylov;
    double t_precond;
} run_out;

static int run(const char *backend, hs_precond_kind pk, hs_krylov kk, int level, int reuse, int nsteps, run_out *o)
{
    static hs_sim_spec cfg;
    hs_test_spec_defaults(&cfg);
    cfg.mesh.box = (hs_box_params){.lx = 8.0, .ly = 1.0, .lz = 1.0, .h = 0.25};
    cfg.backend = hs_backends_find(backend);
    if (!cfg.backend) return -1;
    cfg.spmv = hs_spmv_find("csr_scalar");
    cfg.pc = (hs_precond_opts){pk, kk, level, reuse};
    cfg.n_stimuli = 1;
    cfg.stimuli[0] = (hs_stimulus_cfg){.shape = HS_STIM_BOX, .min = {-1, -1, -1}, .max = {0.6, 2, 2},
                                       .start = 0.0, .duration = 2.0, .strength = 2.0};
    cfg.dt = 0.1;
    cfg.output_enabled = 0;
    hs_sim sim;
    if (hs_sim_create(&cfg, &sim) != HS_OK) {
        fprintf(stderr, "set-up failed (%s, %s-%s): %s\n", backend, hs_precond_name(pk), hs_krylov_name(kk),
                hs_error_message());
        return 0;
    }
    hs_step_stats st;
    memset(o, 0, sizeof *o);
    for (int k = 0; k < nsteps; ++k) {
        if (hs_sim_step(&sim, k * cfg.dt, cfg.dt, &st) != HS_OK) {
            fprintf(stderr, "step %d failed: %s\n", k, hs_error_message());
            hs_sim_destroy(&sim);
            return 0;
        }
        o->newton += st.newton_iters;
        o->krylov += st.cg_iters;
    }
    hs_phase_times t;
    sim.backend->ops->get_times(sim.backend, &t);
    o->t_precond = t.precond;
    o->n = sim.mesh->n_nodes;
    o->phi = malloc(sizeof(double) * o->n);
    o->act = malloc(sizeof(double) * o->n);
    hs_state want = {&sim.backend->state, {o->phi}};
    want.field[sim.backend->state.activation] = o->act;
    sim.backend->ops->get_state(sim.backend, &want);
    hs_sim_destroy(&sim);
    return 1;
}

static void compare(const char *what, const run_out *ref, const run_out *o, int N, int verbose)
{
    double dphi = 0.0, dact = 0.0;
    int mism = 0, activated = 0;
    for (int32_t i = 0; i < ref->n; ++i) {
        dphi = fmax(dphi, fabs(ref->phi[i] - o->phi[i]));
        if ((ref->act[i] < 0) != (o->act[i] < 0)) ++mism;
        else if (ref->act[i] >= 0) dact = fmax(dact, fabs(ref->act[i] - o->act[i])), ++activated;
    }
    if (verbose)
        printf("%-28s %.2f Newton/step, %.1f Krylov it./solve, precond set-up %.3f s; max |phi diff| %.2e, "
               "activation %.2e ms\n", what, (double)o->newton / N, (double)o->krylov / o->newton, o->t_precond, dphi, dact);
    HS_TEST_CHECK(activated > ref->n / 3, "%s: only %d of %d nodes activated", what, activated, ref->n);
    HS_TEST_CHECK(dphi <= N * 1e-8, "%s: phi differs by %.3e (allowed %.1e)", what, dphi, N * 1e-8);
    HS_TEST_CHECK(mism == 0 && dact <= 2 * N * 1e-8, "%s: activation: %d mismatches, max diff %.3e ms", what, mism, dact);
}

int main(int argc, char **argv)
{
    int verbose = 0;
#ifdef HS_TEST_BACKEND
    const char *be = HS_TEST_BACKEND;
#else
    const char *be = "cpu";
#endif
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "-v")) verbose = 1;
        else be = argv[i];
    }
    hs_verbosity = 0;
    if (strcmp(be, "cpu") != 0) {
        const hs_backend_entry *e = hs_backends_find(be);
        char desc[256] = "", why[256] = "";
        if (!e || !e->probe || !e->probe(desc, sizeof desc, why, sizeof why)) {
            printf("backend %s not available: %s\n", be, why);
            return HS_TEST_SKIP;
        }
    }
    const int N = 60; /* 6 ms: the front crosses most of the slab */
    run_out ref, fsai, fsai_r, sai, jb;
    if (run("cpu", HS_PRECOND_JACOBI, HS_KRYLOV_CG, 1, 1, N, &ref) != 1 ||
        run(be, HS_PRECOND_FSAI, HS_KRYLOV_CG, 1, 1, N, &fsai) != 1 ||
        run(be, HS_PRECOND_FSAI, HS_KRYLOV_CG, 1, 8, N, &fsai_r) != 1 ||
        run(be, HS_PRECOND_SAI, HS_KRYLOV_BICGSTAB, 1, 1, N, &sai) != 1 ||
        run(be, HS_PRECOND_JACOBI, HS_KRYLOV_BICGSTAB, 1, 1, N, &jb) != 1) {
        HS_TEST_CHECK(0, "a run failed");
        HS_TEST_RETURN();
    }
    if (verbose)
        printf("%-28s %.2f Newton/step, %.1f Krylov it./solve\n", "jacobi-cg (reference)", (double)ref.newton / N,
               (double)ref.krylov / ref.newton);
    compare("fsai-cg", &ref, &fsai, N, verbose);
    compare("fsai-cg, reuse 8", &ref, &fsai_r, N, verbose);
    compare("sai-bicgstab", &ref, &sai, N, verbose);
    compare("jacobi-bicgstab", &ref, &jb, N, verbose);
    /* the point of FSAI: fewer iterations per solve than Jacobi */
    HS_TEST_CHECK((double)fsai.krylov / fsai.newton < (double)ref.krylov / ref.newton,
                  "FSAI-PCG %ld iterations in %ld solves, Jacobi-PCG %ld in %ld", fsai.krylov, fsai.newton, ref.krylov,
                  ref.newton);
    /* reuse computes the values once per 8 solves: the other 7 solves run with the values of an earlier
     * tangent, so their Krylov iterates, and the potential, differ from the run that recomputes them
     * every solve (within the bound compare() checked), where a reuse that recomputed every solve would
     * give the same bits (the same kernels on the same data). Not the set-up's wall time: under a loaded
     * machine (ctest -j2 on 2 cores) a stall of the OpenMP threads made the 8-solve reuse's 0.003 s
     * take 0.086 s; the time is printed with -v. */
    int32_t same = 0;
    for (int32_t i = 0; i < fsai.n; ++i) same += fsai_r.phi[i] == fsai.phi[i];
    HS_TEST_CHECK(same < fsai.n, "reuse 8: the potential equals, bit for bit, the run that recomputes the values every "
                  "solve: the values were not reused");
    run_out *all[] = {&ref, &fsai, &fsai_r, &sai, &jb};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) free(all[i]->phi), free(all[i]->act);
    HS_TEST_RETURN();
}
