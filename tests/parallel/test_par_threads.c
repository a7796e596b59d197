/* The OpenMP threads per rank (hs_par_threads_rule): solver.threads wins, then OMP_NUM_THREADS, then a
 * rank alone on its node keeps OpenMP's own choice; several ranks on a node share its cores (at least
 * one thread each), never more than the rank's affinity mask holds. */
#include "hs_par.h"
#include "hs_test.h"

int main(void)
{
    /* (solver.threads, OMP_NUM_THREADS set, online cores, ranks on the node, affinity cores) -> threads */
    static const int cases[][6] = {
        {8, 0, 64, 4, 64, 8},   /* solver.threads, whatever the node */
        {8, 1, 64, 4, 1, 8},    /* ... even above the mask and with OMP_NUM_THREADS set */
        {0, 1, 64, 4, 64, 0},   /* OMP_NUM_THREADS: OpenMP's own */
        {0, 0, 64, 1, 64, 0},   /* one rank on the node: OpenMP's own (every core of its mask) */
        {0, 0, 64, 4, 64, 16},  /* 4 ranks, unbound (mpirun --bind-to none): 64 / 4 */
        {0, 0, 64, 3, 64, 21},  /* 64 / 3 rounded down: never more threads than cores */
        {0, 0, 64, 4, 1, 1},    /* mpirun's default core binding: the one core of the mask */
        {0, 0, 64, 4, 8, 8},    /* bound to 8 cores (--map-by ppr:...:pe=8): the mask caps the share */
        {0, 0, 2, 3, 2, 1},     /* more ranks than cores: one thread each */
        {0, 0, 64, 4, 0, 16},   /* mask unknown: no cap */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        const int *c = cases[k];
        const int t = hs_par_threads_rule(c[0], c[1], c[2], c[3], c[4]);
        HS_TEST_CHECK(t == c[5], "case %zu (threads %d, env %d, %d cores, %d ranks, mask %d): %d threads, expected %d",
                      k, c[0], c[1], c[2], c[3], c[4], t, c[5]);
    }
    /* not in a distributed run: the node is this process's */
    HS_TEST_CHECK(hs_par_node_ranks() == 1, "%d ranks on the node outside MPI", hs_par_node_ranks());
    HS_TEST_RETURN();
}
