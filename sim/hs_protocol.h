/**
 * @file hs_protocol.h
 * @brief The protocol scheduler of a run: what happens between steps and when it is due - probe and
 *   ECG samples, frames (with the per-beat maps), checkpoints, the progress hook, a stop request
 *   (SIGINT/SIGTERM), the NaN test hook - each one entry of the event tables in protocol.c.
 *
 * hs_sim_run (sim/sim_run.c) composes it with the step driver (hs_step_driver.h):
 *
 *     for (k = first step; hs_protocol_running(p, k); k += adv.done) {
 *         hs_protocol_next(p, k, max, &n);      // fire what is due before step k; n: steps until the next event
 *         hs_step_driver_advance(d, k, n, &adv); // at most n steps
 *         hs_protocol_fire(p, k, &adv);          // account them; fire what is due after them
 *     }
 *     hs_protocol_end(p, k, st, &adv);           // a failed step, a stop, or the end
 *
 * The stimulus is an input of every step, not an event: hs_sim_step and hs_sim_steps evaluate its
 * amplitudes over each (sub)step the driver takes (sim/sim_build.c).
 */
#ifndef HS_PROTOCOL_H
#define HS_PROTOCOL_H

#include <signal.h>

#include "hs_run_output.h"
#include "hs_sim.h"
#include "hs_step_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hs_protocol hs_protocol;

/**
 * @brief The protocol of a run of @p spec from step 0, or from @p ck's step (a restart). Every pointer
 * argument is borrowed and kept. @param[in] hooks NULL or the progress hooks; @param[in] stop set to
 * the signal's number by the run's signal handler (0: none); @param[in,out] sum the run's summary,
 * which the protocol keeps up to date step by step.
 */
hs_status hs_protocol_create(const hs_sim_spec *spec, hs_sim *sim, hs_run_output *out, const hs_checkpoint *ck,
                             const hs_run_hooks *hooks, const volatile sig_atomic_t *stop, hs_run_summary *sum,
                             hs_protocol **p);
/** @brief Free; calls the loop_done hook if the loop started and hs_protocol_end did not run. */
void hs_protocol_destroy(hs_protocol **p);

/** @brief The step the loop starts from: 0, or the restart checkpoint's step. */
long hs_protocol_first_step(const hs_protocol *p);
/** @brief Frame 0 (not on a restart), then the loop_start hook. */
hs_status hs_protocol_start(hs_protocol *p);
/** @brief 1 while step @p k is to run: before time.t_end and no stop request seen. */
int hs_protocol_running(const hs_protocol *p, long k);

/**
 * @brief Fire the events due before step @p k; @param[out] n how many steps the driver may take from
 * k: up to the first after which an event is due (or before which one acts), the end, or @p max.
 */
hs_status hs_protocol_next(hs_protocol *p, long k, long max, long *n);

/** @brief Account the steps @p adv took from @p k (summary, progress) and fire the events due after
 *  them. Only the last step of a full advance can have events due; a partial launch fires none. */
hs_status hs_protocol_fire(hs_protocol *p, long k, const hs_advance *adv);

/**
 * @brief The loop ended at step @p k with @p st (the driver's status when it broke the loop). A failed
 * step (adv->failed): the last converged state as a final frame and a checkpoint, and an error naming
 * the step and the checkpoint. A stop request: a checkpoint and HS_ERR_INTERRUPTED with the command
 * that resumes. The end: the final checkpoint (so a run can be extended). Calls the loop_done hook first.
 */
hs_status hs_protocol_end(hs_protocol *p, long k, hs_status st, const hs_advance *adv);

#ifdef __cplusplus
}
#endif
#endif
