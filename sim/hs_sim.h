/**
 * @file hs_sim.h
 * @brief The simulation layer: builds a simulation from a plain spec, in one order -
 *   mesh -> backend and SpMV format choice -> node order -> problem (pattern and assembly maps,
 *   built once) -> backend -
 * and runs it: the time loop, retries in substeps, checkpoints, frames handed to the writer
 * thread. No config strings here: app/ resolves every name (registries, enums) into the spec.
 */
#ifndef HS_SIM_H
#define HS_SIM_H

#include <stdint.h>

#include "hs_backend.h"
#include "hs_backends.h"
#include "hs_checkpoint.h"
#include "hs_frame_writer.h"
#include "hs_mesh.h"
#include "hs_mesh_build.h"
#include "hs_models.h"
#include "hs_region.h"
#include "hs_partition.h"
#include "hs_stimulus.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HS_SPEC_MAX_STIMULI 64
#define HS_SPEC_MAX_POINTS 64

/** Everything a simulation needs, resolved: app/ fills it from the config and the command line. */
typedef struct hs_sim_spec {
    hs_mesh_spec mesh;

    /* physics */
    const hs_model *model;       /**< model.type */
    hs_model_params model_prm;   /**< model.<parameter> values in the model's order */
    double time_unit;            /**< ms per model time unit */
    double d_iso, d_ani;         /**< mm^2/ms */
    double dt, t_end;            /**< ms */
    int n_stimuli;
    hs_stimulus_cfg stimuli[HS_SPEC_MAX_STIMULI];
    double activation_threshold; /**< mV */
    double repol_threshold;      /**< mV (fem/hs_readout.h) */
    int n_regions;               /**< heterogeneous tissue (fem/hs_region.h), in order: later entries win */
    hs_region_cfg regions[HS_MAX_REGIONS];
    /* probes and the pseudo-ECG (sim/hs_samples.h), written when output is enabled */
    int n_probes;
    char probe_name[HS_SPEC_MAX_POINTS][32];
    double probe_xyz[HS_SPEC_MAX_POINTS][3];  /**< mm */
    double probe_interval;                    /**< ms, 0 = every step */
    int n_electrodes;
    char electrode_name[HS_SPEC_MAX_POINTS][32];
    double electrode_xyz[HS_SPEC_MAX_POINTS][3];
    int n_leads;
    int lead[HS_SPEC_MAX_POINTS][2];          /**< electrode indices: lead = phi[lead[0]] - phi[lead[1]] */
    char lead_name[HS_SPEC_MAX_POINTS][72];
    double ecg_sigma_b;                       /**< units of D (mm^2/ms): the bath's sigma_b / (chi C_m) (app/spec.c) */
    double ecg_interval;                      /**< ms, 0 = out_interval */

    /* solver */
    const hs_backend_entry *backend; /**< NULL: "auto" (the first device backend that answers, else cpu) */
    const hs_spmv_ops *spmv;     /**< NULL: "auto" (the backend's choice: hs_backend_entry.resolve_plan) */
    hs_spmv_params spmv_params;
    hs_cg_opts cg;               /**< tolerance, iteration cap, variant */
    double cg_forcing;
    int extrapolate;
    int graph;                   /**< 1: CUDA graph replay of a Newton iteration */
    int persistent;              /**< solver.persistent: 1 on, 0 off, HS_PERSISTENT_AUTO */
    hs_step_mode step;           /**< solver.step (fem/hs_step_mode_list.h), HS_STEP_AUTO: the backend's policy */
    hs_assembly_kind assembly;   /**< solver.assembly */
    hs_matrix_values matrix_values; /**< solver.matrix_values, HS_VALUES_AUTO: the backend's policy */
    double newton_tol_residual, newton_tol_update;
    int newton_max_iter;
    int threads;                 /**< OpenMP threads, 0: keep OMP_NUM_THREADS */
    int dt_retry;
    hs_precond_opts pc;          /**< solver.precond, solver.krylov, solver.sai_level, solver.precond_reuse */
    hs_scheme_opts scheme;       /**< solver.scheme ("auto" resolved by the model), solver.splitting, solver.theta,
                                      solver.mass, solver.dt_ode (fem/hs_scheme.h) */

    /* output */
    int output_enabled;
    int restarting;              /**< 1: --restart (its checkpoint is compared with the mesh: a distributed
                                      run whose ranks hold parts computes the whole mesh's fingerprint) */
    const char *out_format;      /**< a name hs_series_create accepts (checked by app/) */
    char out_dir[HS_PATH_MAX];
    char out_prefix[64];
    double out_interval;         /**< ms between frames */
    hs_field_list out_state;     /**< state fields in frames: indices into the state descriptor */
    int out_mv;                  /**< the potential in mV ("V") */
    unsigned out_mesh_fields;    /**< the mesh's arrays in frames: HS_MESH_FIELD_FIBER | HS_MESH_FIELD_REGION */
    double checkpoint_interval;  /**< ms, 0 = off */
    int checkpoint_keep;
    uint64_t config_fp[HS_CKPT_GROUPS]; /**< fingerprints of the keys that change the state (checkpoints) */
    const char *config_path;     /**< the config file, for messages */
    const char *resume_cmd;      /**< the command that continues this run, shell-quoted, without the
                                      trailing "--restart DIR" (app/resume_cmd.c); NULL: a generic hint */
    const char *resume_dir;      /**< DIR for that --restart, shell-quoted; NULL: out_dir as it is */

    /* distributed run (app/ sets these when an MPI launcher started the process; docs/parallel.md) */
    int distributed;             /**< 1: one simulation over the MPI ranks (backends/mpi), 0: serial */
    int rank;                    /**< this process's rank; only rank 0 writes files */
    const hs_partitioner *partitioner; /**< parallel.partition */
    int read_ranks;              /**< parallel.read resolved: 1 every rank reads its block of mesh.file
                                      (hs_mesh_part_read), 0 rank 0 reads it (or the box's ranks generate it) */
    hs_transport transport;     /**< parallel.transport (fem/hs_transport_list.h), HS_TRANSPORT_AUTO: the backend's choice */
} hs_sim_spec;

/** Wall seconds of the set-up phases of hs_sim_create, in their order. */
typedef struct hs_setup_times {
    double mesh;     /**< build or read the mesh, fibres, checks, the mesh's own reordering */
    double pattern;  /**< the CSR pattern */
    double trial;    /**< the execution plan (solver.spmv = "auto": the backend's timed trial) */
    double reorder;  /**< the format's own node numbering (mesh and pattern renumbered) */
    double problem;  /**< stimulus sites, element geometry, gather maps, K_D */
    double backend;  /**< the backend: allocation and upload */
    /* a distributed run's own phases (0 in a serial run): problem above is then the stimulus sites
     * and regions only, backend the local backend's allocation and upload */
    double partition; /**< the node partition and this rank's local view (backends/mpi) */
    double scatter;   /**< the rank's local mesh, stimulus sites, regions */
    double maps;      /**< the local problem: element geometry, gather maps, K_D of the local mesh */
    double mesh_order; /**< of mesh above: the mesh's own reordering (mesh.reorder) */
    double peak_rss;  /**< bytes: the process's peak resident memory at the end of set-up (VmHWM) */
    double whole_mesh; /**< 1 when this process held a mesh of the whole mesh's nodes by the end of set-up
                            (hs_mesh_alloc_peak_nodes), else 0: summed over the ranks, the ranks that did */
} hs_setup_times;

/** Objects a run is made of (also used by tests and benchmarks). */
typedef struct hs_sim {
    hs_setup_times setup;
    hs_mesh *mesh;
    hs_stim_set *stim;
    hs_region_set *regions;     /**< NULL without `regions` */
    hs_problem *prob;
    hs_backend *backend;
    const hs_backend_entry *backend_entry;
    hs_mesh_build_info mesh_info; /**< how the mesh was made (built or from the mesh cache) */
    double *step_amp;           /**< hs_sim_steps' stimulus amplitudes [HS_STEPS_DEVICE_MAX][n_sites] (on
                                     first use) */
} hs_sim;

/**
 * @brief Build mesh, backend and SpMV format choice, node order, stimulus sites, problem and
 * backend, in that order. @param[in] spec borrowed; @param[out] sim objects (hs_sim_destroy).
 */
hs_status hs_sim_create(const hs_sim_spec *spec, hs_sim *sim);
void hs_sim_destroy(hs_sim *sim);

/** @brief Advance @p sim by one step from t_ms with the spec's stimuli (tests, benchmarks). */
hs_status hs_sim_step(hs_sim *sim, double t_ms, double dt_ms, hs_step_stats *stats);
/** @brief Steps k0 .. k0+n-1 (t = k dt_ms) as one device launch (hs_backend_ops.steps_device, solver.step
 *  = "persistent" under Newton, "graph" under splitting): *done steps completed, their stats in @p stats [n]; when *done < n the step k0 + *done
 *  failed and the backend is at its start (run it with hs_sim_step to report or retry it). */
hs_status hs_sim_steps(hs_sim *sim, long k0, double dt_ms, int n, int *done, hs_step_stats *stats);

/** @brief What a frame of @p sim shows: the spec's output fields of the backend's state. */
hs_frame_plan hs_sim_frame_plan(const hs_sim_spec *spec, const hs_sim *sim);

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
    hs_setup_times setup;
    int n_ranks;               /**< ranks of a distributed run, 1 serially */
    hs_setup_times setup_max;  /**< each set-up phase and peak_rss: the largest over the ranks */
    hs_setup_times setup_sum;  /**< ... and the sum over the ranks */
    double peak_rss_end;       /**< bytes: this process's peak resident memory at the end of the run */
    char backend[256];
    int splitting;        /**< 1: the splitting scheme (phases: element = the reaction, assembly = the
                               diffusion matrices, solve = the diffusion solves; newton_iters = the solves) */
    int mesh_from_cache;  /**< 1: the mesh came from the mesh cache (mesh_cache names the entry) */
    double mesh_seconds;  /**< meshing time of this run (0 from the cache) */
    double mesh_check_seconds, mesh_fibers_seconds, mesh_reorder_seconds; /**< the rest of the mesh phase
                                                                             (0 from the cache) */
    char mesh_cache[HS_PATH_MAX + 64]; /**< the cache entry used or written, "" when none */
} hs_run_summary;

/** What the time loop reports as it goes (progress display in app/); any member may be NULL. */
typedef struct hs_run_hooks {
    /** Set-up is done and the loop starts; it ends at @p t_end_ms (ceil(t_end/dt) dt). */
    void (*loop_start)(void *ctx, double t_end_ms);
    /** After every accepted step. */
    void (*step_done)(void *ctx, double t_ms, long steps, int newton, int cg, int last);
    /** The loop ended (normally or not), once: finish the display. */
    void (*loop_done)(void *ctx);
    void *ctx;
} hs_run_hooks;

/**
 * @brief Run the simulation and write frames (and checkpoints). On a Newton/CG failure the last
 * converged state is written as a final frame and a checkpoint before the error returns.
 * SIGINT/SIGTERM stop the loop at the next step end with a checkpoint (HS_ERR_INTERRUPTED); a
 * second signal ends the process at once.
 * @param[in] restart NULL, or a checkpoint file or a directory holding checkpoints (its newest
 * intact one is used): the run continues from there (docs/reliability.md).
 */
hs_status hs_sim_run(const hs_sim_spec *spec, const char *restart, const hs_run_hooks *hooks, hs_run_summary *sum);

#ifdef __cplusplus
}
#endif
#endif
