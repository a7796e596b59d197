/**
 * @file hs_run_output.h
 * @brief What a run writes and the objects that write it: the series of frames (through the frame
 *   writer thread), checkpoints (and the ring output.checkpoint_keep keeps), probes and the ECG
 *   (hs_samples.h), the per-beat maps (hs_beats.h) and the maps file at the end. Opened in
 *   hs_sim_run's set-up, written by the protocol's events (hs_protocol.h), finished and closed in its
 *   teardown. In a distributed run every rank takes part in frames, checkpoints, samples and the
 *   per-beat maps (the sample rows summed collectively). Every rank hands its owned nodes and
 *   elements with their global indices to a part series (hs_series_create_part): written collectively
 *   where the format can (hs_series_can_part: "xdmf_h5" with a parallel HDF5), else gathered to rank 0
 *   in chunks, which writes them. Rank 0 writes checkpoints and the other files.
 */
#ifndef HS_RUN_OUTPUT_H
#define HS_RUN_OUTPUT_H

#include "hs_beats.h"
#include "hs_samples.h"
#include "hs_series.h"
#include "hs_sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The run's outputs. Zero it before hs_run_output_open, so that close is safe whatever happened. */
typedef struct hs_run_output {
    const hs_sim_spec *spec; /**< borrowed */
    hs_sim *sim;             /**< borrowed */
    hs_run_summary *sum;     /**< borrowed: frames, wall_output, wall_writer */
    hs_state *scratch;       /**< borrowed: a host copy of the state (every field) */
    int enabled;             /**< output.enabled: frames and checkpoints are written */
    int writer;              /**< this process writes the files (serial, or rank 0) */
    int collective;          /**< a distributed run: every rank has a part series (hs_series_create_part) */
    hs_series *ser;          /**< NULL: output off */
    hs_series_part part;     /**< collective: this rank's nodes and elements (arrays below, or the backend's) */
    int64_t *part_tets;      /**< [part.n_elems][4] global node indices */
    int32_t *part_region;    /**< [part.n_elems] */
    double *part_fiber;      /**< [part.n_elems][3], NULL without fibres */
    hs_state_desc part_desc; /**< the state's fields on part.n_nodes nodes and part.n_elems elements */
    hs_state part_state;     /**< collective checkpoints: this rank's values of every field */
    double *part_hist[2];    /**< collective checkpoints: this rank's history [part.n_nodes] */
    hs_frame_writer *fw;
    hs_samples *smp;         /**< probes and ECG (NULL: none); flushed with every checkpoint */
    hs_beats *beats;         /**< per-beat maps, recorded at every frame (NULL: none) */
    double *hist[2];         /**< host copies of the extrapolation history (checkpoints) */
    long *ring;              /**< steps of this prefix's checkpoints on disk, oldest first */
    int n_ring, cap_ring;
    long last_ckpt;          /**< step of the last checkpoint written, -1 */
    char ckpt_path[HS_PATH_MAX + 64]; /**< the last checkpoint written */
} hs_run_output;

/** @brief 1 when this process writes the run's files: a serial run, or rank 0 of a distributed one. */
static inline int hs_run_output_is_writer(const hs_sim_spec *spec) { return !spec->distributed || spec->rank == 0; }

/**
 * @brief Open the outputs of @p sim (@p o zeroed before): checkpoints of an earlier run removed (all
 * of them, or those after @p ck's step), the series (continued after @p ck's frames), the frame writer,
 * the sample files and the per-beat maps.
 * @param[in] ck NULL, or the checkpoint the run restarts from. Every pointer argument is borrowed and kept.
 */
hs_status hs_run_output_open(hs_run_output *o, const hs_sim_spec *spec, hs_sim *sim, const hs_checkpoint *ck,
                             hs_state *scratch, hs_run_summary *sum);

/** @brief Hand the backend's state at @p t_ms to the writer as the next frame (a distributed run's
 *  other ranks only take part in the gather). */
hs_status hs_run_output_frame(hs_run_output *o, double t_ms);

/** @brief Wait until every frame handed to the writer is on disk: the writer's first error, agreed over
 *  the ranks in a distributed run (one rank's failure is every rank's before the next collective, said
 *  once); HS_OK without a writer. */
hs_status hs_run_output_flush(hs_run_output *o);

/** @brief Write the checkpoint of the backend's state at @p step (after every frame submitted so far is
 *  on disk); older ones beyond output.checkpoint_keep go. Its path is then in o->ckpt_path. A
 *  distributed run writes it from every rank together (hs_checkpoint_write_part: version 4, no
 *  gather). */
hs_status hs_run_output_checkpoint(hs_run_output *o, long step);

/**
 * @brief The end of the outputs, however the run ended (@p st): queued frames written, samples flushed
 * and plotted, the maps file and the per-beat maps (when @p loop_ran: the state is the run's).
 * @return st, or the first error of these when st is HS_OK.
 */
hs_status hs_run_output_finish(hs_run_output *o, hs_status st, int loop_ran);

/** @brief Log the series' index and free everything; safe on a zeroed or half-opened @p o. */
void hs_run_output_close(hs_run_output *o);

#ifdef __cplusplus
}
#endif
#endif
