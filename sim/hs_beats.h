/**
 * @file hs_beats.h
 * @brief Per-beat maps: the host records each node's beat k (activation, repolarisation, APD) from
 * the read-outs (fem/hs_readout.h, which hold the latest beat only), copied from the backend every
 * output.interval, and writes PREFIX_maps_beatK.vtk for every beat at the end of a run with more
 * than one. A beat is recorded once it has repolarised; a node whose latest beat has not is
 * written with repolarisation and apd -1. Limits: a beat that both starts and is followed by the
 * next one within one output.interval is missed (a warning counts such nodes); a restarted run
 * records the beats from its restart on (earlier ones are in the earlier run's files).
 */
#ifndef HS_BEATS_H
#define HS_BEATS_H

#include "hs_series.h"
#include "hs_sim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hs_beats hs_beats;

/**
 * @brief Start recording for @p sim (its backend's state descriptor), or, in a distributed run
 * (@p part non-NULL: this rank's owned nodes and elements, @p part_desc the state on them), for this
 * rank's owned nodes only: the read-outs copied without a gather (hs_backend_mpi_get_owned), the files
 * written from the ranks' parts (hs_vtk_write_dataset_part: no rank but 0 holds a whole map, and rank 0
 * only in chunks as it writes). Both borrowed and kept.
 */
hs_status hs_beats_create(const hs_sim *sim, const hs_state_desc *part_desc, const hs_series_part *part,
                          hs_beats **out);
/** @brief Copy the read-outs from the backend and record every beat seen so far. */
hs_status hs_beats_update(hs_beats *b, hs_sim *sim);
/** @brief When more than one beat was seen: write DIR/PREFIX_maps_beatK.vtk, K = 1, 2, ...
 *  (distributed: collective, every rank calls it; rank 0 writes; @p ser, the run's part series or
 *  NULL, lends its gather set-up: hs_vtk_write_dataset_part). */
hs_status hs_beats_write(hs_beats *b, const hs_sim *sim, hs_series *ser, const char *dir, const char *prefix,
                         double t_ms);
void hs_beats_destroy(hs_beats **b);

#ifdef __cplusplus
}
#endif
#endif
