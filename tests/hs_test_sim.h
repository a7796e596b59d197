/**
 * @file hs_test_sim.h
 * @brief Run a configured simulation for a number of steps and return the nodal state sorted by
 * coordinates, so that runs whose meshes are numbered differently (formats with their own
 * numbering) can be compared node by node. Header-only, for tests.
 */
#ifndef HS_TEST_SIM_H
#define HS_TEST_SIM_H

#include <stdio.h>
#include <stdlib.h>

#include "hs_sim.h"
#include "hs_util.h"

typedef struct hs_test_node { double x, y, z, phi, act; } hs_test_node;

static int hs_test_node_cmp(const void *a, const void *b)
{
    const hs_test_node *p = (const hs_test_node *)a, *q = (const hs_test_node *)b;
    if (p->x != q->x) return p->x < q->x ? -1 : 1;
    if (p->y != q->y) return p->y < q->y ? -1 : 1;
    if (p->z != q->z) return p->z < q->z ? -1 : 1;
    return 0;
}

/** @brief nsteps of @p spec; the nodes sorted by (x, y, z), or NULL on failure (message printed).
 *  @p chunk > 0: the steps as device launches of up to chunk steps (hs_sim_steps, solver.step =
 * "persistent"), a step that fails in one run again by hs_sim_step; 0: one by one. */
static hs_test_node *hs_test_run_sorted_ex(const hs_sim_spec *spec, int nsteps, int chunk, int32_t *n_out)
{
    hs_sim sim;
    const char *be = spec->backend ? spec->backend->name : "auto", *fmt = spec->spmv ? spec->spmv->name : "auto";
    if (hs_sim_create(spec, &sim) != HS_OK) {
        fprintf(stderr, "%s/%s: set-up failed: %s\n", be, fmt, hs_error_message());
        hs_error_clear();
        return NULL;
    }
    hs_step_stats st;
    hs_step_stats *many = chunk > 0 ? (hs_step_stats *)malloc(sizeof(hs_step_stats) * (size_t)chunk) : NULL;
    for (int k = 0; k < nsteps; ++k) {
        if (many) {
            int n = nsteps - k < chunk ? nsteps - k : chunk, done = 0;
            if (hs_sim_steps(&sim, k, spec->dt, n, &done, many) != HS_OK) {
                fprintf(stderr, "%s/%s: steps from %d failed: %s\n", be, fmt, k, hs_error_message());
                hs_error_clear();
                free(many);
                hs_sim_destroy(&sim);
                return NULL;
            }
            k += done;
            if (k >= nsteps) break;
            if (done == n) { --k; continue; }
        }
        if (hs_sim_step(&sim, k * spec->dt, spec->dt, &st) != HS_OK) {
            fprintf(stderr, "%s/%s: step %d failed: %s\n", be, fmt, k, hs_error_message());
            hs_error_clear();
            free(many);
            hs_sim_destroy(&sim);
            return NULL;
        }
    }
    free(many);
    int32_t n = sim.mesh->n_nodes;
    double *phi = (double *)malloc(sizeof(double) * n), *act = (double *)malloc(sizeof(double) * n);
    hs_test_node *v = (hs_test_node *)malloc(sizeof(hs_test_node) * n);
    hs_state want = {&sim.backend->state, {0}};
    want.field[HS_STATE_POTENTIAL] = phi;
    want.field[sim.backend->state.activation] = act;
    sim.backend->ops->get_state(sim.backend, &want);
    for (int32_t i = 0; i < n; ++i)
        v[i] = (hs_test_node){sim.mesh->xyz[3 * i], sim.mesh->xyz[3 * i + 1], sim.mesh->xyz[3 * i + 2], phi[i], act[i]};
    qsort(v, (size_t)n, sizeof *v, hs_test_node_cmp);
    free(phi);
    free(act);
    hs_sim_destroy(&sim);
    *n_out = n;
    return v;
}

/** @brief hs_test_run_sorted_ex one step at a time. */
static hs_test_node *hs_test_run_sorted(const hs_sim_spec *spec, int nsteps, int32_t *n_out)
{
    return hs_test_run_sorted_ex(spec, nsteps, 0, n_out);
}

#endif
