/* `heartsim bench cg CONFIG`: Jacobi-PCG iterations on the config's tangent, the naive cuSPARSE +
 * cuBLAS baseline beside heartsim's classic and Chronopoulos-Gear variants, stream and graph launch
 * (the device backend's diagnostics op bench_cg). One process, one matrix, one copy-bandwidth
 * measurement, so every ratio holds on whatever GPU ran it. */
#include "hs_bench.h"

#include <stdio.h>
#include <string.h>

#include "hs_build_config.h"
#include "hs_backend_diag.h"
#include "hs_spec.h"
#include "hs_util.h"

hs_status hs_bench_cg(const hs_config *cfg0, int iters, int reps)
{
    const hs_config *cfg = cfg0;
    static hs_sim_spec spec; /* large (paths): not on the stack */
    HS_CALL(hs_spec_from_config(cfg, &spec));
    /* the device backend (the first one the registry lists) */
    spec.backend = NULL;
    const hs_registry *reg = hs_backends_registry();
    for (size_t i = 0; i < reg->count && !spec.backend; ++i) {
        const hs_backend_entry *e = ((const hs_registry_ref *)hs_registry_at(reg, i))->entry;
        if (e->needs_device) spec.backend = e;
    }
    /* the device first, before the (possibly long) mesh and set-up: without one, say so plainly */
    HS_CHECK(spec.backend != NULL, HS_ERR_DEVICE,
             "bench cg measures the CG iteration on a GPU, and this heartsim was built without CUDA; it has no CPU "
             "variant (solver.backend does not apply to it): `heartsim bench step CONFIG` times the CPU's CG iteration");
    char desc[256], why[512];
    HS_CHECK(spec.backend->probe(desc, sizeof desc, why, sizeof why), HS_ERR_DEVICE,
             "bench cg measures the CG iteration on a GPU, and no GPU was found (%s); it has no CPU variant "
             "(solver.backend does not apply to it): `heartsim bench step CONFIG` times the CPU's CG iteration", why);
    hs_sim sim;
    HS_CALL(hs_sim_create(&spec, &sim));
    /* a front in the tissue, as in a run: a few steps first */
    hs_step_stats ss;
    hs_status st = HS_OK;
    int warm = (int)(5.0 / cfg->dt + 0.5);
    for (int k = 0; k < warm && st == HS_OK; ++k) st = hs_sim_step(&sim, k * cfg->dt, cfg->dt, &ss);
    hs_cg_bench r;
    if (st == HS_OK && !(sim.backend->diag && sim.backend->diag->bench_cg))
        st = HS_FAIL(HS_ERR_DEVICE, "the %s backend has no CG benchmark", sim.backend->ops->name);
    if (st == HS_OK) st = sim.backend->diag->bench_cg(sim.backend, iters, reps, &r);
    hs_sim_destroy(&sim);
    HS_CALL(st);
    const double vec = 8.0 * r.n;
    const double floor_bytes = r.bytes_spmv + 12.0 * vec; /* the least of the variants below */
    const double floor_t = floor_bytes / r.copy_bw;
    printf("heartsim bench cg: %s\n", r.device);
    printf("matrix: %d rows, %d nonzeros (%s, spmv %s); copy bandwidth %.3f TB/s; %d iterations per solve, "
           "median of %d solves\n", (int)r.n, (int)r.nnz, cfg->path, cfg->spmv, r.copy_bw * 1e-12, r.iters, reps);
    printf("floor: %.1f MB per iteration (SpMV %.1f MB + 12 vectors) / copy bandwidth = %.2f us\n\n",
           floor_bytes * 1e-6, r.bytes_spmv * 1e-6, floor_t * 1e6);
    printf("| CG | launch | us/iter | speed-up vs naive | bytes/iter (MB) | of copy bandwidth | time / floor |\n");
    printf("|---|---|---:|---:|---:|---:|---:|\n");
    printf("| naive cuSPARSE + cuBLAS | host scalars, sync per iteration | %.2f | 1.00 | - | - | %.2f |\n",
           r.t_naive * 1e6, r.t_naive / floor_t);
    const char *launch[2] = {"stream, status read every 4", "CUDA graph, WHILE node"};
    for (int v = 0; v < 2; ++v) {
        double bytes = r.bytes_spmv + (v ? (r.fused ? 12.0 : 14.0) : 13.0) * vec;
        for (int g = 0; g < 2; ++g) {
            double t = r.t_iter[v][g];
            printf("| %s | %s | %.2f | %.2f | %.1f | %.2f | %.2f |\n",
                   v ? (r.fused ? "chronopoulos (dot fused in SpMV)" : "chronopoulos (separate dot pass)") : "classic",
                   launch[g], t * 1e6, r.t_naive / t, bytes * 1e-6, bytes / t / r.copy_bw, t / floor_t);
        }
    }
    for (int g = 0; g < 2; ++g) {
        double t = r.t_persistent[g];
        double bytes = r.bytes_spmv + 8.0 * r.nnz + 12.0 * vec; /* + the slot map it reads through */
        if (t > 0)
            printf("| chronopoulos, persistent kernel, 2 barriers/iter | %s | %.2f | %.2f | %.1f | %.2f | %.2f |\n",
                   g ? "CUDA graph node" : "one cooperative launch per solve", t * 1e6, r.t_naive / t, bytes * 1e-6,
                   bytes / t / r.copy_bw, t / floor_t);
    }
    for (int q = 0; q < 4; ++q) {
        double t = r.t_p1[q];
        /* own rows: {r,s,w,D} read and written (64 B), x, p read and written (32 B); the records of the
         * columns (32 B each) at least once */
        double bytes = r.bytes_spmv + 12.0 * vec + 32.0 * r.n;
        if (t > 0)
            printf("| chronopoulos, persistent kernel, 1 barrier/iter, %d thread%s/row%s | one cooperative launch "
                   "per solve | %.2f | %.2f | %.1f | %.2f | %.2f |\n", r.p1_tpr[q], r.p1_tpr[q] > 1 ? "s" : "",
                   r.p1_tpr[q] == r.p1_tpr_auto ? " (a run's choice)" : "", t * 1e6, r.t_naive / t, bytes * 1e-6,
                   bytes / t / r.copy_bw, t / floor_t);
    }
    for (int q = 0; q < 3; ++q) {
        double t = r.t_sstep[q];
        if (t > 0)
            printf("| sstep s = %d, persistent kernel%s | one cooperative launch per solve | %.2f | %.2f | - | - | %.2f |\n",
                   r.sstep_s[q], r.fallback_sstep[q] ? " (basis broke down: classic from there)" : "", t * 1e6,
                   r.t_naive / t, t / floor_t);
    }
    if (r.t_p1_barrier > 0)
        printf("\nwhat bounds the 1-barrier kernel (its grid: %d blocks of %d threads, %d thread%s/row): a grid barrier "
               "alone %.2f us per phase; with the phase's reductions (totals of the last phase's block partials, this "
               "phase's partials) %.2f us; the rest of an iteration is the SpMV and vector update at L2 latency\n",
               r.p1_grid, r.p1_block, r.p1_tpr_auto, r.p1_tpr_auto > 1 ? "s" : "", r.t_p1_barrier * 1e6, r.t_p1_reduce * 1e6);
    printf("\nto ||r|| <= 1e-8 ||b||: classic %d iterations, chronopoulos %d (persistent %d); ||x_classic - "
           "x_chronopoulos|| / ||x_classic|| = %.2e\n", r.iters_to_tol[0], r.iters_to_tol[1], r.iters_persistent,
           r.x_rel_diff);
    /* solves to 1e-8 as a Newton step runs them (s-step: the Chebyshev interval kept from the warm-up
     * solves, as in a run): per iteration, and whether s-step pays against the persistent Chronopoulos
     * kernel at this size; the crossover in rows is where the last column turns to "no" across bench_50k,
     * bench_1m and bench_4m */
    printf("\n| solve to 1e-8 (stream, one launch per solve) | iterations | us/iter | speed-up vs naive | vs persistent "
           "chronopoulos | ||x - x_classic|| / ||x_classic|| | pays at %d rows |\n", (int)r.n);
    printf("|---|---:|---:|---:|---:|---:|---|\n");
    if (r.t_tol_persistent > 0)
        printf("| chronopoulos, persistent kernel, 2 barriers/iter | %d | %.2f | %.2f | 1.00 | %.2e | - |\n",
               r.iters_persistent, r.t_tol_persistent * 1e6, r.t_naive / r.t_tol_persistent, r.x_rel_diff);
    if (r.t_tol_p1 > 0 && r.t_tol_persistent > 0) {
        double ratio = (r.t_tol_persistent * r.iters_persistent) / (r.t_tol_p1 * r.iters_p1);
        printf("| chronopoulos, persistent kernel, 1 barrier/iter, %d thread%s/row | %d | %.2f | %.2f | %.2f | %.2e | "
               "%s |\n", r.p1_tpr_auto, r.p1_tpr_auto > 1 ? "s" : "", r.iters_p1, r.t_tol_p1 * 1e6,
               r.t_naive / r.t_tol_p1, ratio, r.x_rel_diff_p1, ratio > 1.0 ? "yes" : "no");
    }
    for (int q = 0; q < 3; ++q)
        if (r.t_tol_sstep[q] > 0 && r.t_tol_persistent > 0) {
            /* per solve, not per iteration: s-step may take a few more iterations */
            double ratio = (r.t_tol_persistent * r.iters_persistent) / (r.t_tol_sstep[q] * r.iters_sstep[q]);
            printf("| sstep s = %d | %d | %.2f | %.2f | %.2f | %.2e | %s |\n", r.sstep_s[q], r.iters_sstep[q],
                   r.t_tol_sstep[q] * 1e6, r.t_naive / r.t_tol_sstep[q], ratio, r.x_rel_diff_sstep[q],
                   ratio > 1.0 ? "yes" : "no");
        }
    return HS_OK;
}
