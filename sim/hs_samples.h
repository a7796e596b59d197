/**
 * @file hs_samples.h
 * @brief What a run samples besides frames: the probes (V at points, PREFIX_probes.csv) and the
 * pseudo-ECG (electrodes and leads, PREFIX_ecg.csv), on their own intervals. The backend computes
 * the samples where it keeps the potential (fem/hs_sample.h; on the GPU into a device buffer) and
 * they are copied to the host in batches of HS_SAMPLE_BATCH. In a distributed run every rank calls
 * these (the sampling ops and the fetch are collective) and rank 0 alone writes the CSVs and plots.
 */
#ifndef HS_SAMPLES_H
#define HS_SAMPLES_H

#include "hs_sim.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HS_SAMPLE_BATCH 256

typedef struct hs_samples hs_samples;

/**
 * @brief Build the sample sets of @p spec for @p sim and open the CSV files in spec->out_dir. A
 * fresh run (@p t_restart < 0) truncates them and samples t = 0; a restart keeps their rows up to
 * @p t_restart ms. Nothing to do (no probes, no electrodes, or output off): *out = NULL.
 */
hs_status hs_samples_create(const hs_sim_spec *spec, hs_sim *sim, double t_restart, hs_samples **out);
/** @brief After the step that reached @p t_ms: sample what is due (a batch full goes to the files). */
hs_status hs_samples_step(hs_samples *s, double t_ms);
/** @brief Write what is buffered (the run's end, or before it stops). */
hs_status hs_samples_flush(hs_samples *s);
/**
 * @brief After hs_samples_flush: each CSV (with the rows a restart kept) as a PNG beside it,
 * PREFIX_probes.png (V(t) per probe) and PREFIX_ecg.png (each lead over time; the electrodes when
 * no lead is defined), at most HS_PLOT_MAX_SERIES curves each (output/hs_plot.h).
 */
hs_status hs_samples_plot(hs_samples *s);
/** @brief Flush and free; accepts NULL. */
void hs_samples_destroy(hs_samples **s);

#ifdef __cplusplus
}
#endif
#endif
