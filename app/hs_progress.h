/**
 * @file hs_progress.h
 * @brief One progress line on stderr: redrawn in place on a terminal, printed every few seconds
 * otherwise (logs and CI stay readable).
 */
#ifndef HS_PROGRESS_H
#define HS_PROGRESS_H

#include <stdio.h>

typedef struct hs_progress {
    FILE *f;
    int tty;
    double t_end;
    double dt; /**< ms per step: the loop's start time is t - steps dt (a restart's, not 0) */
    double wall_start, wall_last_print;
    double print_every; /**< seconds between lines when not a terminal */
    int printed;
} hs_progress;

/** @brief Start; progress goes to f (stderr) and is silent when enabled == 0. @p dt_ms: time.dt, the
 *  simulated time of each step counted by hs_progress_update. */
void hs_progress_init(hs_progress *p, FILE *f, double t_end_ms, double dt_ms, int enabled);
/**
 * @brief Seconds left: the simulated time still to run at the speed of this process so far,
 * @p elapsed_s for t_ms - t_start_ms. @p t_start_ms is where this process's loop started (a
 * restart's checkpoint time), so progress made before a restart does not count. 0 before any progress.
 */
double hs_progress_eta(double elapsed_s, double t_start_ms, double t_ms, double t_end_ms);
/** @brief Report state after a step (@p steps: steps since hs_progress_init); prints when due (or
 *  always when force). */
void hs_progress_update(hs_progress *p, double t_ms, long steps, int newton, int cg, int force);
/** @brief End the line on a terminal. */
void hs_progress_finish(hs_progress *p);

#endif
