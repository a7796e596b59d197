/**
 * @file hs_step_driver.h
 * @brief How a run advances: the backend from step k over at most n steps of time.dt, either one
 *   step through hs_sim_step (fem/newton.c's hs_time_step, or the splitting scheme's hs_split_step) with the retries in substeps of
 *   solver.dt_retry, or several steps as one device launch through hs_sim_steps (solver.step =
 *   "persistent" under Newton, "graph" under splitting). It knows nothing of frames, checkpoints, probes or signals: the protocol
 *   scheduler (hs_protocol.h) says how far it may go, and sim/sim_run.c composes the two.
 *
 * Both schemes (solver.scheme) advance one step at a time through hs_sim_step, which takes the
 * problem's scheme (fem/hs_backend.h hs_scheme_step); device launches run either scheme's steps
 * (hs_backend_ops.steps_device), a failed one run again through hs_sim_step. A new
 * way to advance is one more mode in step_driver.c: its advance function, the most steps it takes at
 * once, and where hs_step_driver_create picks it; the protocol does not change.
 */
#ifndef HS_STEP_DRIVER_H
#define HS_STEP_DRIVER_H

#include "hs_sim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hs_step_driver hs_step_driver;

/** What one hs_step_driver_advance did. */
typedef struct hs_advance {
    long done;                  /**< steps accepted: k .. k + done - 1 */
    const hs_step_stats *stats; /**< [done]: their statistics (the driver's buffer, valid until the next
                                     advance) */
    int partial;                /**< 1: a device launch stopped at a step that failed there; the backend is
                                     at that step's start, and the next advance runs it by itself (to
                                     report or retry it, as the one-step path does) */
    int failed;                 /**< 1: step k + done failed, also in substeps (the returned status and
                                     the error message say why); the backend is back at its start, the
                                     last converged state. 0 with an error: anything else went wrong */
} hs_advance;

/**
 * @brief The driver of @p sim: device launches when the backend has steps_device, solver.step is
 * "persistent" (Newton) or "graph" (splitting) and the run is serial; one step at a time otherwise.
 * @param[in] spec, sim borrowed (kept); @param[in] scratch borrowed (kept): a host state the driver
 * may overwrite during an advance (the start of a retried step); the run lends the same one to its
 * checkpoints, so a retry costs no second copy of the state.
 */
hs_status hs_step_driver_create(const hs_sim_spec *spec, hs_sim *sim, hs_state *scratch, hs_step_driver **out);
void hs_step_driver_destroy(hs_step_driver **d);

/** @brief The most steps one advance takes: HS_STEPS_DEVICE_MAX for device launches, else 1. */
long hs_step_driver_max_steps(const hs_step_driver *d);

/**
 * @brief Advance from step k (t = k dt) by at most @p n steps (1 <= n <= hs_step_driver_max_steps);
 * @param[out] adv what was done. A step that does not converge is retried in substeps (solver.dt_retry)
 * before it fails.
 */
hs_status hs_step_driver_advance(hs_step_driver *d, long k, long n, hs_advance *adv);

#ifdef __cplusplus
}
#endif
#endif
