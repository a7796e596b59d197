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
    double wall_start, wall_last_print;
    double print_every; /**< seconds between lines when not a terminal */
    int printed;
} hs_progress;

/** @brief Start; progress goes to f (stderr) and is silent when enabled == 0. */
void hs_progress_init(hs_progress *p, FILE *f, double t_end_ms, int enabled);
/** @brief Report state after a step; prints when due (or always when force). */
void hs_progress_update(hs_progress *p, double t_ms, long steps, int newton, int cg, int force);
/** @brief End the line on a terminal. */
void hs_progress_finish(hs_progress *p);

#endif
