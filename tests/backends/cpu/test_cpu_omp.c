/*
 * The cpu backend's OpenMP use (issue 30): the element pass and the assembly run on the threads on
 * a 10,230-element mesh while every thread has a core (they stayed serial below 16,384 elements while
 * the banner said "2 threads"); on cores busy with other work small meshes keep one thread; the
 * description says what runs in parallel on the mesh at hand and why not; and the threads change no
 * number: the parallel passes on 2 threads equal 1 thread bit for bit (the element pass and the
 * gathers sum in a fixed order; CG is serial at this size).
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "hs_test.h"
#include "hs_test_spec.h"

/* phi and activation after @p steps steps on @p threads threads, the small-mesh thresholds forced
 * (whatever the machine's load), or NULL */
static double *run(const hs_sim_spec *spec, int threads, int steps, char *desc, size_t dsize)
{
    omp_set_num_threads(threads);
    hs_sim sim;
    HS_TEST_OK(hs_sim_create(spec, &sim));
    if (hs_test_failures) return NULL;
    snprintf(desc, dsize, "%s", sim.backend->description);
    cpu_impl *c = sim.backend->impl;
    c->min_elem = HS_CPU_OMP_MIN_ELEMS;
    c->min_asm = HS_OMP_MIN_ASSEMBLY_ELEMS;
    hs_step_stats ss;
    for (int k = 0; k < steps; ++k) HS_TEST_OK(hs_sim_step(&sim, k * spec->dt, spec->dt, &ss));
    const int32_t n = sim.mesh->n_nodes;
    double *v = calloc(2 * (size_t)n, sizeof *v);
    hs_state want = {&sim.backend->state, {0}};
    want.field[HS_STATE_POTENTIAL] = v;
    want.field[sim.backend->state.activation] = v + n;
    HS_TEST_OK(sim.backend->ops->get_state(sim.backend, &want));
    hs_sim_destroy(&sim);
    return v;
}

int main(void)
{
    /* every thread a core of its own: the 1-minute load leaves them free */
    HS_TEST_CHECK(hs_cpu_omp_cores_free(2, 2, 0.3) && !hs_cpu_omp_cores_free(2, 2, 0.8) &&
                      hs_cpu_omp_cores_free(2, 16, 10.0) && !hs_cpu_omp_cores_free(16, 16, 3.0) &&
                      hs_cpu_omp_cores_free(1, 2, 50.0), "hs_cpu_omp_cores_free");
    char t[160];
    hs_cpu_omp_text(1, HS_CPU_OMP_MIN_ELEMS, HS_OMP_MIN_ASSEMBLY_ELEMS, "", 100000, 100000, t, sizeof t);
    HS_TEST_CHECK(!strcmp(t, "1 thread"), "one thread: \"%s\"", t);
    /* the case, 10,230 elements and 2,304 rows on 2 free cores */
    hs_cpu_omp_text(2, HS_CPU_OMP_MIN_ELEMS, HS_OMP_MIN_ASSEMBLY_ELEMS, "", 10230, 2304, t, sizeof t);
    HS_TEST_CHECK(!strcmp(t, "2 threads; parallel: element pass, assembly; serial here: CG (<= 16384 rows)"),
                  "10,230 elements: \"%s\"", t);
    hs_cpu_omp_text(2, HS_CPU_OMP_MIN_ELEMS, HS_OMP_MIN_ASSEMBLY_ELEMS, "", 500, 150, t, sizeof t);
    HS_TEST_CHECK(!strcmp(t, "2 threads; parallel: element pass; serial here: assembly (< 1024 elements), CG (<= 16384 rows)"),
                  "500 elements: \"%s\"", t);
    hs_cpu_omp_text(2, HS_CPU_OMP_MIN_ELEMS, HS_OMP_MIN_ASSEMBLY_ELEMS, "", 100, 40, t, sizeof t);
    HS_TEST_CHECK(!strcmp(t, "2 threads; serial here: element pass (< 256 elements), assembly (< 1024 elements), CG (<= 16384 rows)"),
                  "100 elements: \"%s\"", t);
    /* busy cores: both below HS_OMP_MIN, and why */
    hs_cpu_omp_text(2, HS_OMP_MIN, HS_OMP_MIN, "load 9.6 on 2 cores", 10230, 2304, t, sizeof t);
    HS_TEST_CHECK(!strcmp(t, "2 threads; serial here: element pass, assembly (< 16384 elements: load 9.6 on 2 cores), CG (<= 16384 rows)"),
                  "busy: \"%s\"", t);
    hs_cpu_omp_text(4, HS_CPU_OMP_MIN_ELEMS, HS_OMP_MIN_ASSEMBLY_ELEMS, "", 20000000, 4000000, t, sizeof t);
    HS_TEST_CHECK(!strcmp(t, "4 threads; parallel: element pass, assembly, CG"), "large mesh: \"%s\"", t);

    static hs_sim_spec spec;
    hs_test_spec_defaults(&spec);
    spec.mesh.box.h = 0.65; /* 20 x 7 x 3 mm: 10,230 elements, 2,304 nodes */
    spec.n_stimuli = 1;
    spec.stimuli[0] = (hs_stimulus_cfg){.shape = HS_STIM_BOX, .min = {-1, -1, -1}, .max = {1.0, 8, 4},
                                        .start = 0.0, .duration = 2.0, .strength = 0.5};
    char d1[256], d2[256];
    double *a = run(&spec, 1, 15, d1, sizeof d1), *b = run(&spec, 2, 15, d2, sizeof d2);
    /* the live description: parallel, or serial for the machine's load (it is what it is now) */
    HS_TEST_CHECK(strstr(d1, "cpu (OpenMP, 1 thread; spmv "), "1 thread: \"%s\"", d1);
    HS_TEST_CHECK(strstr(d2, "cpu (OpenMP, 2 threads; parallel: element pass, assembly; serial here: CG (<= 16384 rows); ") ||
                      strstr(d2, "cpu (OpenMP, 2 threads; serial here: element pass, assembly (< 16384 elements: load "),
                  "2 threads on 10,230 elements: \"%s\"", d2);
    int diff = 0;
    for (int32_t i = 0; a && b && i < 2 * 2304; ++i) diff += a[i] != b[i];
    HS_TEST_CHECK(a && b && diff == 0, "%d values differ between 1 and 2 threads", diff);
    free(a);
    free(b);
    HS_TEST_RETURN();
}
