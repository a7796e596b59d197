#define _POSIX_C_SOURCE 200809L
/* Running a simulation (hs_sim.h): set-up (output directory, restart), the time loop as the protocol
 * scheduler (protocol.c: frames, checkpoints, samples, signals, ...) around the step driver
 * (step_driver.c: one step with retries, or device launches), and the teardown. Building the
 * simulation is sim_build.c; its outputs are run_output.c. */
#include "hs_sim.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_build_config.h"
#include "hs_checkpoint.h"
#if HS_HAS_MPI
#include "hs_backend_mpi.h"
#endif
#include "hs_par.h"
#include "hs_protocol.h"
#include "hs_run_lock.h"
#include "hs_run_output.h"
#include "hs_series_format.h"
#include "hs_step_driver.h"
#include "hs_util.h"

/* ---- signals: SIGINT/SIGTERM ask the loop to stop at the next step end ------------------------ */

static volatile sig_atomic_t stop_signal = 0;

static void on_stop_signal(int sig)
{
    if (stop_signal) { /* the second one: leave now, by the signal's default action */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    stop_signal = sig;
}

typedef struct saved_signals {
    struct sigaction intr, term;
    void (*xfsz)(int);
} saved_signals;

static void signals_install(saved_signals *old)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART; /* file writes in progress complete; the loop looks at the flag */
    stop_signal = 0;
    sigaction(SIGINT, &sa, &old->intr);
    sigaction(SIGTERM, &sa, &old->term);
    /* a file size limit (RLIMIT_FSIZE) must show as a write error naming the file (EFBIG), not
     * kill the run */
    old->xfsz = signal(SIGXFSZ, SIG_IGN);
}

static void signals_restore(const saved_signals *old)
{
    sigaction(SIGINT, &old->intr, NULL);
    sigaction(SIGTERM, &old->term, NULL);
    signal(SIGXFSZ, old->xfsz);
}

/* A restart continues the series in output.dir: the checkpoint's frames must be there (the index is
 * rewritten to list them). Restarting into another directory would write an index naming frames
 * that are not there; refuse it before any work, naming the first missing frame. */
static hs_status restart_frames_present(const hs_sim_spec *cfg, const hs_checkpoint *ck)
{
    const hs_series_format_ops *f = hs_registry_find_ref(hs_series_registry(), cfg->out_format);
    if (!f || ck->h.n_frames <= 0) return HS_OK;
    const size_t dl = strlen(cfg->out_dir);
    const char *sep = dl && cfg->out_dir[dl - 1] != '/' ? "/" : "";
    if (!f->frame_ext) { /* a format that keeps every frame in files of its own: its index at least */
        char index[HS_PATH_MAX + 128];
        snprintf(index, sizeof index, "%s%s%s%s", cfg->out_dir, sep, cfg->out_prefix, f->index_ext);
        HS_CHECK(access(index, F_OK) == 0, HS_ERR_IO,
                 "--restart: checkpoint %s continues a run of %lld frames, but output.dir %s lacks its index %s; "
                 "restart into the output directory of the run that wrote the checkpoint (--out DIR)", ck->path,
                 (long long)ck->h.n_frames, cfg->out_dir, index);
        return HS_OK;
    }
    int missing = 0, first = -1;
    for (int64_t i = 0; i < ck->h.n_frames; ++i) {
        char suffix[HS_SERIES_SUFFIX_MAX], path[HS_PATH_MAX + 128];
        hs_series_frame_suffix((int)i, f->frame_ext, suffix);
        snprintf(path, sizeof path, "%s%s%s%s", cfg->out_dir, sep, cfg->out_prefix, suffix);
        if (access(path, F_OK) != 0) {
            if (first < 0) first = (int)i;
            ++missing;
        }
    }
    if (!missing) return HS_OK;
    char suffix[HS_SERIES_SUFFIX_MAX];
    hs_series_frame_suffix(first, f->frame_ext, suffix);
    return HS_FAIL(HS_ERR_IO,
                   "--restart: checkpoint %s continues a run of %lld frames, but output.dir %s lacks %d of them "
                   "(first missing: %s%s); restart into the output directory of the run that wrote the "
                   "checkpoint (--out DIR)", ck->path, (long long)ck->h.n_frames, cfg->out_dir, missing,
                   cfg->out_prefix, suffix);
}

/* The checkpoint of --restart, read before any work: damaged, written with other physics, at or
 * after time.t_end, or continuing frames that output.dir lacks: refused with the reason. */
static hs_status restart_load(const hs_sim_spec *cfg, const char *restart, hs_checkpoint *ck)
{
    /* a distributed run verifies it with its ranks together and keeps no state: each reads its rows below */
    HS_CALL(cfg->distributed ? hs_checkpoint_load_part(restart, cfg->out_prefix, cfg->model, cfg->config_fp, cfg->dt, ck)
                             : hs_checkpoint_load(restart, cfg->out_prefix, cfg->model, cfg->config_fp, cfg->dt, ck));
    /* a restart that would do nothing is a mistake, not a success: say what to change */
    const long ck_steps = (long)ck->h.step;
    hs_status st = HS_OK;
    if (!((double)ck_steps < ceil(cfg->t_end / cfg->dt - 1e-9)))
        st = HS_FAIL(HS_ERR_CONFIG,
                     "--restart: checkpoint %s is at t = %g ms (step %ld), and time.t_end = %g ms is not later: "
                     "nothing to run; set time.t_end beyond %g ms to continue the run",
                     ck->path, ck_steps * cfg->dt, ck_steps, cfg->t_end, ck_steps * cfg->dt);
    /* the writer (rank 0 of a distributed run) looks for the frames; every rank goes on or stops with the
     * verdicts, said once */
    else if (cfg->output_enabled && hs_run_output_is_writer(cfg))
        st = restart_frames_present(cfg, ck);
    if (cfg->distributed) st = hs_par_agree(st);
    return st;
}

#if HS_HAS_MPI
/* A distributed run's restart: each rank reads the values of its local nodes (owned and ghosts) and
 * elements from the file and hands them to its part of the backend; no rank holds the whole state. */
static hs_status restart_rows(hs_sim *sim, const hs_checkpoint *ck)
{
    hs_backend_mpi_view v;
    hs_backend_mpi_view_get(sim->backend, &v);
    const hs_part_local *l = v.part;
    const int32_t nl = l->n_owned + l->n_ghost;
    hs_state_desc d = ck->desc;
    d.n_nodes = nl;
    d.n_elems = l->n_elems;
    hs_state ls;
    double *hist[2] = {NULL, NULL};
    hs_status st = hs_state_create(&d, &ls);
    for (int q = 0; q < ck->hist.n_valid && st == HS_OK; ++q)
        st = HS_ALLOC(hist[q], (size_t)nl + 1, "checkpoint history rows");
    if (st == HS_OK) st = hs_checkpoint_read_rows(ck, nl, l->l2g, l->n_elems, l->elems, &ls, hist);
    st = hs_par_agree(st);
    if (st == HS_OK) st = hs_backend_mpi_set_local(sim->backend, &ls);
    if (st == HS_OK) st = hs_backend_mpi_set_local_history(sim->backend, &ck->hist, hist[0], hist[1]);
    hs_state_destroy(&ls);
    free(hist[0]);
    free(hist[1]);
    return st;
}
#endif

/* The checkpoint's mesh matched with the one built, its state and extrapolation history in the backend. */
static hs_status restart_apply(const hs_sim_spec *cfg, hs_sim *sim, const hs_checkpoint *ck)
{
    hs_status st = hs_checkpoint_match(ck, cfg->config_fp, cfg->dt, sim->mesh);
    if (cfg->distributed) st = hs_par_agree(st); /* every rank judges alike: one message, not one per rank */
    HS_CALL(st);
#if HS_HAS_MPI
    if (cfg->distributed) {
        HS_CALL(restart_rows(sim, ck));
    } else
#endif
    {
        HS_CALL(sim->backend->ops->set_state(sim->backend, &ck->state));
        HS_CALL(sim->backend->ops->set_history(sim->backend, &ck->hist, ck->hist_phi[0], ck->hist_phi[1]));
    }
    const long k0 = (long)ck->h.step;
    hs_log(1, "restart: from %s (t = %g ms, step %ld, %lld frames written)\n", ck->path, k0 * cfg->dt, k0,
           (long long)ck->h.n_frames);
    return HS_OK;
}

/* What set-up made, into the summary. */
static void summary_setup(hs_run_summary *sum, const hs_sim *sim)
{
    const hs_mesh_build_info *mi = &sim->mesh_info;
    snprintf(sum->backend, sizeof sum->backend, "%s", sim->backend->description);
    sum->splitting = sim->prob->opt.scheme.kind == HS_SCHEME_SPLITTING;
    sum->setup = sim->setup;
    /* per rank: the largest and the sum of each phase and of the peak memory (collective: every
     * rank's hs_sim_create succeeded, the distributed backend agreed on it) */
    sum->n_ranks = hs_par_size();
    sum->setup_max = sum->setup_sum = sim->setup;
    enum { n_times = sizeof(hs_setup_times) / sizeof(double) };
    _Static_assert(sizeof(hs_setup_times) == n_times * sizeof(double), "hs_setup_times holds doubles only");
    hs_par_max_doubles((double *)&sum->setup_max, n_times);
    hs_par_sum_doubles((double *)&sum->setup_sum, n_times);
    sum->mesh_from_cache = mi->from_cache;
    sum->mesh_seconds = mi->from_cache ? 0.0 : mi->seconds_mesh;
    sum->mesh_check_seconds = mi->from_cache ? 0.0 : mi->seconds_check;
    sum->mesh_fibers_seconds = mi->from_cache ? 0.0 : mi->seconds_fibers;
    sum->mesh_reorder_seconds = mi->from_cache ? 0.0 : mi->seconds_reorder;
    snprintf(sum->mesh_cache, sizeof sum->mesh_cache, "%s", mi->cache_path);
}

hs_frame_plan hs_sim_frame_plan(const hs_sim_spec *cfg, const hs_sim *sim)
{
    hs_frame_plan p = {&sim->backend->state, cfg->out_state, cfg->out_mv, cfg->model->mv_scale,
                       cfg->model->mv_offset, cfg->out_mesh_fields};
    return p;
}

hs_status hs_sim_run(const hs_sim_spec *cfg, const char *restart, const hs_run_hooks *hooks, hs_run_summary *sum)
{
    memset(sum, 0, sizeof *sum);
    hs_status st = HS_OK;
    const double w0 = hs_wtime();
    hs_sim sim;
    hs_checkpoint ck;
    hs_state scratch;      /* a host copy of the state: checkpoints, frames of ranks > 0, retries */
    hs_run_output out;
    hs_step_driver *drv = NULL;
    hs_protocol *p = NULL;
    hs_run_lock *lock = NULL; /* output.dir's, held to the end (output/hs_run_lock.h) */
    hs_advance adv = {0};
    saved_signals sig;
    int loop_ran = 0;      /* the time loop started: the state is the run's (for the maps file) */
    memset(&sim, 0, sizeof sim);
    memset(&ck, 0, sizeof ck);
    memset(&scratch, 0, sizeof scratch);
    memset(&out, 0, sizeof out);
    signals_install(&sig);

    /* An unwritable output directory must fail before any work is done; so must a checkpoint that
     * is damaged or was written with other physics (the mesh is compared once it is built). */
    if (cfg->output_enabled && hs_run_output_is_writer(cfg)) HS_CALL_GOTO(hs_output_dir_check(cfg->out_dir), done);
    if (cfg->output_enabled && hs_run_output_is_writer(cfg))
        HS_CALL_GOTO(hs_run_lock_acquire(cfg->out_dir, &lock), done); /* one run per directory */
    if (restart) HS_CALL_GOTO(restart_load(cfg, restart, &ck), done);
    HS_CALL_GOTO(hs_sim_create(cfg, &sim), done);
    summary_setup(sum, &sim);
    /* its arrays (every field at every node of the whole mesh) made on first use (hs_state_ensure): a
     * serial checkpoint, a retry, a test hook; a distributed run's frames and checkpoints never need it */
    scratch.desc = &sim.backend->state;
    if (restart) HS_CALL_GOTO(restart_apply(cfg, &sim, &ck), done);
    HS_CALL_GOTO(hs_run_output_open(&out, cfg, &sim, restart ? &ck : NULL, &scratch, sum), done);
    HS_CALL_GOTO(hs_step_driver_create(cfg, &sim, &scratch, &drv), done);
    HS_CALL_GOTO(hs_protocol_create(cfg, &sim, &out, restart ? &ck : NULL, hooks, &stop_signal, sum, &p), done);
    sum->wall_setup = hs_wtime() - w0;

    HS_CALL_GOTO(hs_protocol_start(p), done); /* frame 0, the loop_start hook */
    loop_ran = 1;
    long k = hs_protocol_first_step(p);
    while (hs_protocol_running(p, k)) {
        long n = 0;
        HS_CALL_GOTO(hs_protocol_next(p, k, hs_step_driver_max_steps(drv), &n), done);
        if ((st = hs_step_driver_advance(drv, k, n, &adv)) != HS_OK) break;
        HS_CALL_GOTO(hs_protocol_fire(p, k, &adv), done);
        k += adv.done;
    }
    st = hs_protocol_end(p, k, st, &adv); /* a failed step's last frame, a stop's checkpoint, the end's */
done:
    hs_protocol_destroy(&p); /* the loop_done hook when an error left the loop */
    st = hs_run_output_finish(&out, st, loop_ran);
    if (sim.backend) sim.backend->ops->get_times(sim.backend, &sum->phases);
    sum->wall_total = hs_wtime() - w0;
    sum->peak_rss_end = hs_peak_rss_bytes();
    hs_run_output_close(&out);
    hs_step_driver_destroy(&drv);
    hs_state_destroy(&scratch);
    hs_checkpoint_free(&ck);
    hs_sim_destroy(&sim);
    hs_run_lock_release(&lock);
    signals_restore(&sig);
    return st;
}
