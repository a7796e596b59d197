#define _POSIX_C_SOURCE 200809L
#include "hs_progress.h"

#include <unistd.h>

#include "hs_util.h"

void hs_progress_init(hs_progress *p, FILE *f, double t_end_ms, double dt_ms, int enabled)
{
    p->f = enabled ? f : NULL;
    p->tty = f ? isatty(fileno(f)) : 0;
    p->t_end = t_end_ms;
    p->dt = dt_ms;
    p->wall_start = p->wall_last_print = hs_wtime();
    p->print_every = p->tty ? 0.1 : 5.0;
    p->printed = 0;
}

double hs_progress_eta(double elapsed_s, double t_start_ms, double t_ms, double t_end_ms)
{
    const double done = t_ms - t_start_ms; /* simulated ms this process has run */
    if (!(done > 0) || !(elapsed_s > 0) || t_ms >= t_end_ms) return 0.0;
    return elapsed_s * (t_end_ms - t_ms) / done;
}

void hs_progress_update(hs_progress *p, double t, long steps, int newton, int cg, int force)
{
    if (!p->f) return;
    double now = hs_wtime();
    if (!force && now - p->wall_last_print < p->print_every) return;
    p->wall_last_print = now;
    double el = now - p->wall_start;
    double frac = p->t_end > 0 ? t / p->t_end : 1.0;
    double rate = el > 0 ? (double)steps / el : 0.0;
    /* the loop started at t - steps dt: a restart's checkpoint time, not 0; the ETA extrapolates the
     * progress made since then, in the time it took (issue 30) */
    double eta = hs_progress_eta(el, t - (double)steps * p->dt, t, p->t_end);
    fprintf(p->f, "%st = %8.2f / %.2f ms (%5.1f%%)  %7.1f steps/s  ETA %6.1f s  last step: %d Newton, %d CG%s",
            p->tty ? "\r\033[K" : "", t, p->t_end, 100.0 * frac, rate, eta, newton, cg,
            p->tty ? "" : "\n");
    fflush(p->f);
    p->printed = 1;
}

void hs_progress_finish(hs_progress *p)
{
    if (p->f && p->tty && p->printed) fputc('\n', p->f);
}
