/**
 * @file hs_run.h
 * @brief `heartsim run`: mesh, problem and backend set-up from a resolved config, the time loop,
 * frames, progress and the end-of-run summary.
 */
#ifndef HS_RUN_H
#define HS_RUN_H

#include <stdint.h>

#include "hs_backend.h"
#include "hs_config.h"
#include "hs_mesh.h"
#include "hs_stimulus.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a run did (also filled, up to the failure, when it fails). */
typedef struct hs_run_summary {
    long steps;
    long newton_iters, cg_iters;
    int frames;
    double t_reached_ms;  /**< last converged time */
    double wall_total, wall_setup;
    double wall_output;  /**< main-thread time spent on frames (state copies, waiting for the writer) */
    double wall_writer;  /**< time the writer thread spent writing files, overlapped with the loop */
    hs_phase_times phases;
    char backend[256];
} hs_run_summary;

/** Objects a run is made of, built from the config (also used by tests and benchmarks). */
typedef struct hs_sim {
    hs_mesh *mesh;
    hs_stim_set *stim;
    hs_problem *prob;
    hs_backend *backend;
} hs_sim;

/**
 * @brief Build mesh (with checks, fibres, reordering), stimulus sites, problem and backend.
 * @param[in] cfg resolved config; @param[out] sim objects (hs_sim_destroy).
 */
hs_status hs_sim_create(const hs_config *cfg, hs_sim *sim);
void hs_sim_destroy(hs_sim *sim);

/** @brief Make the mesh the config describes (hs_mesh_build: fibres assigned, reordered as mesh.reorder says). */
hs_status hs_mesh_from_config(const hs_config *cfg, hs_mesh **out);

/**
 * @brief Run the configured simulation and write frames (and checkpoints, output.checkpoint_*).
 * On a Newton/CG failure the last converged state is written as a final frame and a checkpoint
 * before the error returns. SIGINT/SIGTERM stop the loop at the next step end with a checkpoint
 * (HS_ERR_INTERRUPTED); a second signal ends the process at once.
 * @param[in] restart NULL, or a checkpoint file or a directory holding checkpoints (its newest
 * intact one is used): the run continues from there (docs/reliability.md).
 */
hs_status hs_run(const hs_config *cfg, const char *restart, hs_run_summary *sum);

/** @brief Print the summary (phases, iterations, simulated ms per wall second). */
void hs_run_summary_print(const hs_run_summary *sum, const hs_config *cfg, FILE *f);

#ifdef __cplusplus
}
#endif
#endif
