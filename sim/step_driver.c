/* The step driver (hs_step_driver.h): how the backend goes from step k to k + n. */
#include "hs_step_driver.h"

#include <stdio.h>
#include <stdlib.h>

#include "hs_build_config.h"
#include "hs_par.h"
#include "hs_util.h"
#if HS_HAS_MPI
#include "hs_backend_mpi.h"
#endif

typedef struct driver_mode driver_mode;

struct hs_step_driver {
    const hs_sim_spec *spec;
    hs_sim *sim;
    const driver_mode *mode;
    hs_state *start;        /* borrowed: the state at the start of a retried step (a serial run) */
    hs_state local;         /* a distributed run's: this rank's local nodes and elements (made on the
                               first retry), so that no rank gathers the whole state */
    hs_extrap start_ex;     /* the extrapolation history there ... */
    double *start_hist[2];  /* ... and its vectors (allocated on the first retry; local nodes when
                               distributed) */
    hs_step_stats *stats;   /* [mode->max_steps]: the statistics of one advance's steps */
    int redo;               /* the last launch stopped at a failed step: run it by itself next */
};

/* A way to advance: hs_step_driver_create picks one of the modes below. */
struct driver_mode {
    const char *name;
    long max_steps; /* steps one advance takes at most */
    hs_status (*advance)(hs_step_driver *d, long k, long n, hs_advance *adv);
};

/* The retry's snapshot of the step's start: state and extrapolation history. A distributed run keeps
 * each rank's own local values (owned and ghost nodes, local elements), a serial run the state. */
static hs_status snapshot_take(hs_step_driver *d)
{
    hs_backend *b = d->sim->backend;
    size_t n_hist = (size_t)d->sim->mesh->n_nodes;
#if HS_HAS_MPI
    if (d->spec->distributed) {
        const hs_state_desc *ld = hs_backend_mpi_local_desc(b);
        if (!d->local.desc) HS_CALL(hs_par_agree(hs_state_create(ld, &d->local)));
        HS_CALL(hs_backend_mpi_get_local(b, &d->local));
        n_hist = (size_t)ld->n_nodes;
    }
#endif
    if (!d->spec->distributed) {
        HS_CALL(hs_state_ensure(d->start));
        HS_CALL(b->ops->get_state(b, d->start));
    }
    if (d->spec->extrapolate > 0 && !d->start_hist[0]) {
        hs_status st = HS_ALLOC(d->start_hist[0], n_hist + 1, "retry history");
        if (st == HS_OK) st = HS_ALLOC(d->start_hist[1], n_hist + 1, "retry history");
        HS_CALL(d->spec->distributed ? hs_par_agree(st) : st);
    }
#if HS_HAS_MPI
    if (d->spec->distributed) return hs_backend_mpi_get_local_history(b, &d->start_ex, d->start_hist[0], d->start_hist[1]);
#endif
    return b->ops->get_history(b, &d->start_ex, d->start_hist[0], d->start_hist[1]);
}

static hs_status snapshot_put(hs_step_driver *d)
{
    hs_backend *b = d->sim->backend;
#if HS_HAS_MPI
    if (d->spec->distributed) {
        HS_CALL(hs_backend_mpi_set_local(b, &d->local));
        return hs_backend_mpi_set_local_history(b, &d->start_ex, d->start_hist[0], d->start_hist[1]);
    }
#endif
    HS_CALL(b->ops->set_state(b, d->start));
    return b->ops->set_history(b, &d->start_ex, d->start_hist[0], d->start_hist[1]);
}

/* One step from t (either scheme: hs_sim_step), retried as 2, 4, ... 2^solver.dt_retry substeps when it
 * does not converge (the splitting scheme's diffusion matrix follows the substep's dt). */
static hs_status step_with_retry(hs_step_driver *d, double t, double dt, hs_step_stats *ss)
{
    const hs_sim_spec *cfg = d->spec;
    hs_sim *sim = d->sim;
    hs_status st = hs_sim_step(sim, t, dt, ss);
    if (st == HS_OK || cfg->dt_retry == 0) return st;
    /* newton.c put the backend back at the start of the step: every retry starts from there */
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", hs_error_message());
    hs_error_clear();
    /* the step's start: state and extrapolation history (successful substeps of a failed level
     * advance the history, so each level and the final failure go back to this) */
    HS_CALL(snapshot_take(d));
    int n_sub = 1;
    for (int level = 1; level <= cfg->dt_retry; ++level) {
        n_sub = 1 << level;
        double h = dt / n_sub;
        hs_log(1, "step %.4g -> %.4g ms failed; solver.dt_retry: retrying as %d substeps of %.4g ms\n", t,
               t + dt, n_sub, h);
        HS_CALL(snapshot_put(d));
        st = HS_OK;
        for (int j = 0; j < n_sub && st == HS_OK; ++j) {
            double ts = t + j * h, te = j + 1 == n_sub ? t + dt : t + (j + 1) * h;
            hs_step_stats s2;
            st = hs_sim_step(sim, ts, te - ts, &s2);
            ss->newton_iters += s2.newton_iters;
            ss->cg_iters += s2.cg_iters;
        }
        if (st == HS_OK) {
            hs_log(1, "step %.4g -> %.4g ms converged in %d substeps\n", t, t + dt, n_sub);
            return HS_OK;
        }
        snprintf(msg, sizeof msg, "%s", hs_error_message());
        hs_error_clear();
    }
    HS_CALL(snapshot_put(d)); /* back at the last converged state */
    return HS_FAIL(HS_ERR_NUMERIC, "%s (failed also as %d substeps: solver.dt_retry = %d)", msg, n_sub,
                   cfg->dt_retry);
}

/* One step, retried in substeps when it does not converge. */
static hs_status advance_one(hs_step_driver *d, long k, long n, hs_advance *adv)
{
    (void)n;
    d->redo = 0;
    hs_status st = step_with_retry(d, k * d->spec->dt, d->spec->dt, &d->stats[0]);
    adv->failed = st != HS_OK;
    adv->done = !adv->failed;
    return st;
}

/* n steps as one device launch (hs_sim_steps); a launch that stopped at a failed step leaves that
 * step to the next advance, which runs it by itself to report or retry it */
static hs_status advance_launch(hs_step_driver *d, long k, long n, hs_advance *adv)
{
    if (n == 1 || d->redo) return advance_one(d, k, 1, adv);
    int nd = 0;
    HS_CALL(hs_sim_steps(d->sim, k, d->spec->dt, (int)n, &nd, d->stats));
    adv->done = nd;
    adv->partial = d->redo = nd < n;
    return HS_OK;
}

static const driver_mode mode_one = {"one step at a time", 1, advance_one};
static const driver_mode mode_launch = {"device launches", HS_STEPS_DEVICE_MAX, advance_launch};

hs_status hs_step_driver_create(const hs_sim_spec *spec, hs_sim *sim, hs_state *scratch, hs_step_driver **out)
{
    *out = NULL;
    hs_step_driver *d = NULL;
    HS_CALL(HS_ALLOC(d, 1, "step driver"));
    d->spec = spec;
    d->sim = sim;
    d->start = scratch;
    /* whole steps on the device, unless the run is distributed: the Newton scheme's persistent step
     * (solver.step = "persistent"), the splitting scheme's steps as one graph (solver.step = "graph") or
     * one cooperative kernel ("persistent");
     * the protocol asks for one step at a time when something is due every step (probes, ECG) */
    const hs_problem_opts *o = &sim->prob->opt;
    const int device_steps = o->scheme.kind == HS_SCHEME_NEWTON ? o->exec.step == HS_STEP_PERSISTENT
                                                                : o->exec.step == HS_STEP_GRAPH ||
                                                                      o->exec.step == HS_STEP_PERSISTENT;
    const int launches = device_steps && sim->backend->ops->steps_device && !spec->distributed;
    d->mode = launches ? &mode_launch : &mode_one;
    hs_status st = HS_ALLOC(d->stats, d->mode->max_steps, "step statistics");
    if (st != HS_OK) {
        hs_step_driver_destroy(&d);
        return st;
    }
    *out = d;
    return HS_OK;
}

void hs_step_driver_destroy(hs_step_driver **p)
{
    if (!p || !*p) return;
    hs_step_driver *d = *p;
    free(d->start_hist[0]);
    free(d->start_hist[1]);
    hs_state_destroy(&d->local);
    free(d->stats);
    free(d);
    *p = NULL;
}

long hs_step_driver_max_steps(const hs_step_driver *d) { return d->mode->max_steps; }

hs_status hs_step_driver_advance(hs_step_driver *d, long k, long n, hs_advance *adv)
{
    *adv = (hs_advance){0, d->stats, 0, 0};
    HS_CHECK(n >= 1 && n <= d->mode->max_steps, HS_ERR_INTERNAL, "an advance of %ld steps (%s: at most %ld)", n,
             d->mode->name, d->mode->max_steps);
    return d->mode->advance(d, k, n, adv);
}
