/*
 * The cpu backend's OpenMP use (issue 30): the element pass and the assembly run on the threads on
 * a 10,230-element mesh (they stayed serial below 16,384 elements while the banner said "2 threads"),
 * the backend's description says what runs in parallel on the mesh at hand and what does not, and the
 * threads change no number: a run on 2 threads equals the run on 1 bit for bit (the element pass and
 * the gathers sum in a fixed order; CG is serial at this size).
 */
#include <omp.h>
#include <string.h>

#include "cpu_backend.h"
#include "hs_test.h"
#include "hs_test_sim.h"
#include "hs_test_spec.h"

int main(void)
{
    char t[160];
    hs_cpu_omp_text(1, 100000, 100000, t, sizeof t);
    HS_TEST_CHECK(!strcmp(t, "1 thread"), "one thread: \"%s\"", t);
    hs_cpu_omp_text(2, 100, 40, t, sizeof t);
    HS_TEST_CHECK(strstr(t, "2 threads; serial here: element pass (< ") && strstr(t, "assembly (< ") &&
                      !strstr(t, "parallel:"), "100 elements: \"%s\"", t);
    hs_cpu_omp_text(4, 20000000, 4000000, t, sizeof t);
    HS_TEST_CHECK(!strcmp(t, "4 threads; parallel: element pass, assembly, CG"), "large mesh: \"%s\"", t);

    /* the case: a 10K-element slab on 2 threads */
    static hs_sim_spec spec;
    hs_test_spec_defaults(&spec);
    spec.mesh.box.h = 0.65; /* 20 x 7 x 3 mm: 10,230 elements, 2,304 nodes */
    spec.n_stimuli = 1;
    spec.stimuli[0] = (hs_stimulus_cfg){.shape = HS_STIM_BOX, .min = {-1, -1, -1}, .max = {1.0, 8, 4},
                                        .start = 0.0, .duration = 2.0, .strength = 0.5};
    omp_set_num_threads(2);
    hs_sim sim;
    HS_TEST_OK(hs_sim_create(&spec, &sim));
    if (hs_test_failures) HS_TEST_RETURN();
    HS_TEST_CHECK(sim.mesh->n_elems == 10230, "mesh: %d elements", sim.mesh->n_elems);
    const char *d = sim.backend->description;
    HS_TEST_CHECK(strstr(d, "cpu (OpenMP, 2 threads; parallel: element pass, assembly; serial here: CG (<= 16384 rows)"),
                  "description of a 10,230-element run on 2 threads: \"%s\"", d);
    hs_sim_destroy(&sim);

    /* the same numbers on 1 and 2 threads */
    int32_t n1 = 0, n2 = 0;
    omp_set_num_threads(1);
    hs_test_node *a = hs_test_run_sorted(&spec, 15, &n1);
    omp_set_num_threads(2);
    hs_test_node *b = hs_test_run_sorted(&spec, 15, &n2);
    HS_TEST_CHECK(a && b && n1 == n2, "runs failed");
    int diff = 0;
    for (int32_t i = 0; a && b && i < n1; ++i) diff += a[i].phi != b[i].phi || a[i].act != b[i].act;
    HS_TEST_CHECK(diff == 0, "%d nodes differ between 1 and 2 threads", diff);
    free(a);
    free(b);
    HS_TEST_RETURN();
}
