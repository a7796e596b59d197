/*
 * Where two OpenMP threads start to pay for the cpu backend's element pass and assembly (issue 30;
 * docs/benchmarks.md, "OpenMP thresholds"): box slabs of 144 to 3,168 elements, one pass of each
 * (assemble, then the tangent) alternately on 1 and 2 threads, minimum and median of N repetitions.
 * Usage: bench_cpu_omp [N (200)] [split|full]. A benchmark that prints a table, not a test. The
 * thresholds it measures are compiled in (HS_CPU_OMP_MIN_ELEMS, HS_OMP_MIN_ASSEMBLY_ELEMS): to see a
 * pass on 2 threads below its threshold, build with the threshold at 0.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "hs_test_spec.h"
#include "hs_util.h"

static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }

int main(int argc, char **argv)
{
    hs_verbosity = 0;
    const double hs[] = {2.5, 2.0, 1.8, 1.6, 1.5, 1.3, 1.2, 1.0, 0.9, 0.65};
    const int reps = argc > 1 ? atoi(argv[1]) : 200;
    const char *asm_kind = argc > 2 ? argv[2] : "split";
    printf("%-8s %8s %8s | %10s %10s | %10s %10s  (us, min over %d reps; assembly = R + K)\n", "h", "elems", "nodes",
           "elem 1T", "elem 2T", "asm 1T", "asm 2T", reps);
    for (size_t m = 0; m < sizeof hs / sizeof hs[0]; ++m) {
        static hs_sim_spec spec;
        hs_test_spec_defaults(&spec);
        spec.assembly = asm_kind[0] == 's' ? HS_ASSEMBLY_SPLIT : HS_ASSEMBLY_FULL;
        spec.mesh.box = (hs_box_params){.lx = 20.0, .ly = 7.0, .lz = 3.0, .h = hs[m]};
        spec.n_stimuli = 1;
        spec.stimuli[0] = (hs_stimulus_cfg){.shape = HS_STIM_BOX, .min = {-1, -1, -1}, .max = {1.0, 8, 4},
                                            .start = 0.0, .duration = 2.0, .strength = 0.5};
        hs_sim sim;
        if (hs_sim_create(&spec, &sim) != HS_OK) { fprintf(stderr, "%s\n", hs_error_message()); return 1; }
        hs_step_stats ss;
        for (int k = 0; k < 10; ++k) hs_sim_step(&sim, k * spec.dt, spec.dt, &ss);
        hs_backend *b = sim.backend;
        double amp[HS_SPEC_MAX_STIMULI] = {0};
        b->ops->begin_step(b, spec.dt, amp);
        double *te[2], *ta[2];
        for (int t = 0; t < 2; ++t) { te[t] = malloc(sizeof(double) * reps); ta[t] = malloc(sizeof(double) * reps); }
        for (int r = 0; r < reps; ++r)
            for (int t = 0; t < 2; ++t) {
                omp_set_num_threads(t + 1);
                hs_phase_times p0, p1;
                double res; int32_t node;
                b->ops->get_times(b, &p0);
                b->ops->assemble(b, &res, &node);
                b->ops->tangent(b);
                b->ops->get_times(b, &p1);
                te[t][r] = 1e6 * (p1.element - p0.element);
                ta[t][r] = 1e6 * (p1.assembly - p0.assembly);
            }
        for (int t = 0; t < 2; ++t) { qsort(te[t], reps, sizeof(double), cmpd); qsort(ta[t], reps, sizeof(double), cmpd); }
        printf("%-8g %8d %8d | %10.1f %10.1f | %10.1f %10.1f   medians %7.1f %7.1f | %7.1f %7.1f\n", hs[m], sim.mesh->n_elems,
               sim.mesh->n_nodes, te[0][0], te[1][0], ta[0][0], ta[1][0], te[0][reps / 2], te[1][reps / 2],
               ta[0][reps / 2], ta[1][reps / 2]);
        fflush(stdout);
        b->ops->restore_step(b);
        hs_sim_destroy(&sim);
    }
    return 0;
}
