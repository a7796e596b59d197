#define _POSIX_C_SOURCE 200809L
/* Running a simulation (hs_sim.h): the time loop, retries in substeps, frames, checkpoints,
 * signals and failure handling. Set-up is sim_build.c. */
#include "hs_sim.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_checkpoint.h"
#include "hs_frame_writer.h"
#include "hs_maps.h"
#include "hs_beats.h"
#include "hs_samples.h"
#include "hs_par.h"
#include "hs_run_lock.h"
#include "hs_series.h"
#include "hs_series_format.h"
#include "hs_util.h"

/* A frame: the state is copied out of the backend and the writer thread writes it while the time
 * loop goes on. A backend with state_copy_start (cuda) only enqueues a snapshot and its copy into
 * the writer's page-locked buffers; the writer thread waits for that copy (frame_copy_wait), so
 * neither the main thread nor the device waits for the frame. Otherwise (cpu) get_state copies. */
/* A distributed run gathers the state on every rank (a collective get_state), and only rank 0 has a
 * writer: the others take the state into @p scratch and go on. */
static int is_writer(const hs_sim_spec *cfg) { return !cfg->distributed || cfg->rank == 0; }

static hs_status write_frame(hs_frame_writer *fw, const hs_sim *sim, double t_ms, hs_run_summary *sum,
                             hs_state *scratch)
{
    double t0 = hs_wtime();
    if (!fw) { /* a rank other than 0 of a distributed run */
        HS_CALL(sim->backend->ops->get_state(sim->backend, scratch));
        sum->frames++;
        return HS_OK;
    }
    hs_frame_bufs fb;
    HS_CALL(hs_frame_writer_acquire(fw, &fb));
    if (sim->backend->ops->state_copy_start)
        HS_CALL(sim->backend->ops->state_copy_start(sim->backend, fb.slot, &fb.state));
    else
        HS_CALL(sim->backend->ops->get_state(sim->backend, &fb.state));
    HS_CALL(hs_frame_writer_submit(fw, t_ms));
    sum->frames++;
    sum->wall_output += hs_wtime() - t0;
    return HS_OK;
}

/* The maps file (output/hs_maps.h) at the end of a run: the node fields of the state descriptor
 * named here, whatever output.fields says. A repolarisation or APD map that the descriptor gains
 * is one more name. */
static const char *const map_fields[] = {"activation", "repolarisation", "apd", "beats"};

static hs_status write_maps(const hs_sim_spec *cfg, const hs_sim *sim, double t_ms)
{
    const hs_state_desc *d = &sim->backend->state;
    hs_state maps = {d, {NULL}};
    hs_frame fr = hs_frame_at(t_ms);
    hs_status st = HS_OK;
    char *path = NULL;
    for (size_t m = 0; m < sizeof map_fields / sizeof map_fields[0]; ++m)
        for (int k = 0; k < d->n_fields; ++k) {
            if (strcmp(d->f[k].name, map_fields[m]) != 0 || d->f[k].where != HS_AT_NODE) continue;
            HS_CALL_GOTO(HS_ALLOC(maps.field[k], hs_state_field_len(d, k), map_fields[m]), done);
            HS_CALL_GOTO(hs_frame_add(&fr, d->f[k].name, 0, maps.field[k]), done);
        }
    if (sim->regions) fr.mesh_fields |= HS_MESH_FIELD_REGION; /* the regions entry of each element */
    HS_CALL_GOTO(sim->backend->ops->get_state(sim->backend, &maps), done);
    if (!is_writer(cfg)) goto done;
    HS_CALL_GOTO(hs_maps_write(cfg->out_dir, cfg->out_prefix, sim->mesh, &fr, &path), done);
    hs_log(1, "maps: %s (t = %g ms)\n", path, t_ms);
done:
    free(path);
    for (int k = 0; k < HS_STATE_MAX_FIELDS; ++k) free(maps.field[k]);
    return st;
}

static hs_status frame_copy_wait(void *ctx, int slot)
{
    hs_backend *b = ctx;
    return b->ops->state_copy_wait(b, slot);
}

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

/* ---- checkpoints ------------------------------------------------------------------------------ */

typedef struct ckpt_state {
    int enabled;          /* output enabled: checkpoints can be written */
    hs_state state;       /* host copy of the state (every field) */
    hs_extrap retry_ex;   /* the extrapolation history at the start of a retried step ... */
    double *retry_hist[2]; /* ... and its vectors (allocated on the first retry) */
    double *hist[2];       /* host copies of the extrapolation history */
    long *ring;           /* steps of this prefix's checkpoints on disk, oldest first */
    int n_ring, cap_ring;
    long last_step;       /* step of the last checkpoint written, -1 */
    hs_samples *smp;      /* probes and ECG: flushed with every checkpoint (NULL: none) */
    hs_beats *beats;      /* per-beat maps, recorded at every frame (NULL: output off) */
} ckpt_state;

/* Write the checkpoint of the backend's state at @p step: after every frame submitted so far is on
 * disk (the checkpoint records how many), then older checkpoints beyond output.checkpoint_keep go. */
static hs_status checkpoint_now(ckpt_state *c, const hs_sim_spec *cfg, const hs_sim *sim, hs_series *ser,
                                hs_frame_writer *fw, long step, char *path, size_t size)
{
    if (fw) HS_CALL(hs_frame_writer_flush(fw));
    HS_CALL(hs_samples_flush(c->smp)); /* the CSVs hold every sample up to the checkpoint */
    HS_CALL(sim->backend->ops->get_state(sim->backend, &c->state));
    hs_extrap ex;
    HS_CALL(sim->backend->ops->get_history(sim->backend, &ex, c->hist[0], c->hist[1]));
    hs_checkpoint_path(cfg->out_dir, cfg->out_prefix, step, path, size);
    if (!is_writer(cfg)) {
        c->last_step = step;
        return HS_OK;
    }
    HS_CALL(hs_checkpoint_write(path, step, step * cfg->dt, cfg->dt, cfg->config_fp, sim->mesh, hs_series_count(ser),
                                hs_series_times(ser), &c->state, &ex, c->hist));
    c->last_step = step;
    int j = 0; /* the ring without this step (rewritten in place), then this step at its end */
    for (int i = 0; i < c->n_ring; ++i)
        if (c->ring[i] != step) c->ring[j++] = c->ring[i];
    c->ring[j++] = step;
    c->n_ring = j;
    int drop = c->n_ring - cfg->checkpoint_keep;
    for (int i = 0; i < drop; ++i) {
        char old[HS_PATH_MAX + 64];
        hs_checkpoint_path(cfg->out_dir, cfg->out_prefix, c->ring[i], old, sizeof old);
        if (unlink(old) != 0 && errno != ENOENT) hs_warn("cannot remove old checkpoint %s: %s", old, strerror(errno));
    }
    if (drop > 0) {
        memmove(c->ring, c->ring + drop, sizeof *c->ring * (size_t)(c->n_ring - drop));
        c->n_ring -= drop;
    }
    hs_log(2, "checkpoint: %s (t = %g ms)\n", path, step * cfg->dt);
    return HS_OK;
}

/* Checkpoints already in the directory: a fresh run starts a new history and removes them all; a
 * restart removes those after its step (the abandoned continuation, whose frames it rewrites). */
static hs_status checkpoints_prepare(ckpt_state *c, const hs_sim_spec *cfg, long restart_step)
{
    long *steps = NULL;
    int n = 0;
    HS_CALL(hs_checkpoint_list(cfg->out_dir, cfg->out_prefix, &steps, &n));
    c->cap_ring = n + cfg->checkpoint_keep + 2;
    hs_status st = HS_ALLOC(c->ring, c->cap_ring, "checkpoint list");
    for (int i = 0; i < n && st == HS_OK; ++i) {
        if (steps[i] <= restart_step) {
            c->ring[c->n_ring++] = steps[i];
            continue;
        }
        char path[HS_PATH_MAX + 64];
        hs_checkpoint_path(cfg->out_dir, cfg->out_prefix, steps[i], path, sizeof path);
        if (unlink(path) != 0 && errno != ENOENT)
            hs_warn("cannot remove stale checkpoint %s: %s", path, strerror(errno));
        else
            hs_log(2, "removed stale checkpoint %s\n", path);
    }
    free(steps);
    return st;
}

/* Index of the first multiple of @p interval strictly after t (+ the loop's tolerance): the next
 * frame or checkpoint due, as the time loop counts them. */
static long next_multiple(double t, double interval, double eps)
{
    long k = (long)floor(t / interval);
    if (k < 0) k = 0;
    while (k > 0 && (k - 1) * interval > t + eps) --k;
    while (k * interval <= t + eps) ++k;
    return k;
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

/* ---- one step, with the optional retries in substeps ------------------------------------------ */

static hs_status step_with_retry(const hs_sim_spec *cfg, hs_sim *sim, ckpt_state *c, double t, double dt,
                                 hs_step_stats *ss)
{
    hs_status st = hs_sim_step(sim, t, dt, ss);
    if (st == HS_OK || cfg->dt_retry == 0) return st;
    hs_backend *b = sim->backend;
    /* newton.c put the backend back at the start of the step: every retry starts from there */
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", hs_error_message());
    hs_error_clear();
    /* the step's start: state and extrapolation history (successful substeps of a failed level
     * advance the history, so each level and the final failure go back to this) */
    HS_CALL(b->ops->get_state(b, &c->state));
    if (cfg->extrapolate > 0 && !c->retry_hist[0]) {
        HS_CALL(HS_ALLOC(c->retry_hist[0], sim->mesh->n_nodes, "retry history"));
        HS_CALL(HS_ALLOC(c->retry_hist[1], sim->mesh->n_nodes, "retry history"));
    }
    HS_CALL(b->ops->get_history(b, &c->retry_ex, c->retry_hist[0], c->retry_hist[1]));
    int n_sub = 1;
    for (int level = 1; level <= cfg->dt_retry; ++level) {
        n_sub = 1 << level;
        double h = dt / n_sub;
        hs_log(1, "step %.4g -> %.4g ms failed; solver.dt_retry: retrying as %d substeps of %.4g ms\n", t,
               t + dt, n_sub, h);
        HS_CALL(b->ops->set_state(b, &c->state));
        HS_CALL(b->ops->set_history(b, &c->retry_ex, c->retry_hist[0], c->retry_hist[1]));
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
    HS_CALL(b->ops->set_state(b, &c->state)); /* back at the last converged state */
    HS_CALL(b->ops->set_history(b, &c->retry_ex, c->retry_hist[0], c->retry_hist[1]));
    return HS_FAIL(HS_ERR_NUMERIC, "%s (failed also as %d substeps: solver.dt_retry = %d)", msg, n_sub,
                   cfg->dt_retry);
}

/* solver.step = "persistent": the steps from k to the next one after which something is due (a frame,
 * a checkpoint, the run's end) or before which the NaN hook acts, at most HS_STEPS_DEVICE_MAX: one
 * device launch. */
static long chunk_len(long k, long n_steps, double dt, double eps, int out, long next_frame, double out_iv,
                      int ckpt_on, long next_ckpt, double ck_iv, long nan_step)
{
    long L = 0;
    while (k + L < n_steps && L < HS_STEPS_DEVICE_MAX) {
        const double t1 = (k + L + 1) * dt;
        ++L;
        if (out && t1 >= next_frame * out_iv - eps) break;
        if (ckpt_on && t1 >= next_ckpt * ck_iv - eps) break;
        if (nan_step > k && k + L == nan_step) break;
    }
    return L;
}

/* HS_INJECT_NAN_AT_STEP=k (test hook, docs/reliability.md): a NaN in phi before step k. */
static long inject_nan_step(void)
{
    const char *e = getenv("HS_INJECT_NAN_AT_STEP");
    return e && *e ? atol(e) : -1;
}

hs_frame_plan hs_sim_frame_plan(const hs_sim_spec *cfg, const hs_sim *sim)
{
    hs_frame_plan p = {&sim->backend->state, cfg->out_state, cfg->out_mv, cfg->model->mv_scale,
                       cfg->model->mv_offset, cfg->out_mesh_fields};
    return p;
}

/* The hooks around the time loop; loop_done is called once, however the loop ends. */
static void loop_start(const hs_run_hooks *hk, double t_end_ms, int *running)
{
    if (hk && hk->loop_start) hk->loop_start(hk->ctx, t_end_ms);
    *running = 1;
}

static void loop_done(const hs_run_hooks *hk, int *running)
{
    if (*running && hk && hk->loop_done) hk->loop_done(hk->ctx);
    *running = 0;
}

hs_status hs_sim_run(const hs_sim_spec *cfg, const char *restart, const hs_run_hooks *hooks, hs_run_summary *sum)
{
    memset(sum, 0, sizeof *sum);
    hs_status st = HS_OK;
    double w0 = hs_wtime();
    hs_sim sim;
    hs_series *ser = NULL;
    hs_frame_writer *fw = NULL;
    hs_run_lock *lock = NULL; /* output.dir's, held to the end (output/hs_run_lock.h) */
    double *clean_phi = NULL;
    hs_step_stats *chunk = NULL; /* statistics of the steps of one device launch (solver.step = persistent) */
    hs_checkpoint ck;
    ckpt_state cs;
    saved_signals sig;
    int looping = 0; /* between loop_start and loop_done */
    int loop_ran = 0; /* the time loop started: the state is the run's (for the maps file) */
    memset(&sim, 0, sizeof sim);
    memset(&ck, 0, sizeof ck);
    memset(&cs, 0, sizeof cs);
    cs.last_step = -1;
    signals_install(&sig);

    /* An unwritable output directory must fail before any work is done; so must a checkpoint that
     * is damaged or was written with other physics (the mesh is compared once it is built). */
    const int writer = is_writer(cfg);
    if (cfg->output_enabled && writer) HS_CALL_GOTO(hs_output_dir_check(cfg->out_dir), done);
    if (cfg->output_enabled && writer) HS_CALL_GOTO(hs_run_lock_acquire(cfg->out_dir, &lock), done); /* one run per dir */
    if (restart) {
        HS_CALL_GOTO(hs_checkpoint_load(restart, cfg->out_prefix, cfg->model, cfg->config_fp, cfg->dt, &ck), done);
        /* a restart that would do nothing is a mistake, not a success: say what to change */
        const long ck_steps = (long)ck.h.step;
        HS_CHECK_GOTO((double)ck_steps < ceil(cfg->t_end / cfg->dt - 1e-9), done, HS_ERR_CONFIG,
                      "--restart: checkpoint %s is at t = %g ms (step %ld), and time.t_end = %g ms is not later: "
                      "nothing to run; set time.t_end beyond %g ms to continue the run",
                      ck.path, ck_steps * cfg->dt, ck_steps, cfg->t_end, ck_steps * cfg->dt);
        if (cfg->output_enabled && writer) HS_CALL_GOTO(restart_frames_present(cfg, &ck), done);
    }
    HS_CALL_GOTO(hs_sim_create(cfg, &sim), done);
    snprintf(sum->backend, sizeof sum->backend, "%s", sim.backend->description);
    sum->setup = sim.setup;
    sum->mesh_from_cache = sim.mesh_info.from_cache;
    sum->mesh_seconds = sim.mesh_info.from_cache ? 0.0 : sim.mesh_info.seconds_mesh;
    sum->mesh_check_seconds = sim.mesh_info.from_cache ? 0.0 : sim.mesh_info.seconds_check;
    sum->mesh_fibers_seconds = sim.mesh_info.from_cache ? 0.0 : sim.mesh_info.seconds_fibers;
    sum->mesh_reorder_seconds = sim.mesh_info.from_cache ? 0.0 : sim.mesh_info.seconds_reorder;
    snprintf(sum->mesh_cache, sizeof sum->mesh_cache, "%s", sim.mesh_info.cache_path);
    const int32_t nn = sim.mesh->n_nodes;
    HS_CALL_GOTO(hs_state_create(&sim.backend->state, &cs.state), done);
    if (cfg->extrapolate > 0) {
        HS_CALL_GOTO(HS_ALLOC(cs.hist[0], nn, "checkpoint history"), done);
        HS_CALL_GOTO(HS_ALLOC(cs.hist[1], nn, "checkpoint history"), done);
    }
    long k0 = 0;
    if (restart) {
        HS_CALL_GOTO(hs_checkpoint_match(&ck, cfg->config_fp, cfg->dt, sim.mesh), done);
        HS_CALL_GOTO(sim.backend->ops->set_state(sim.backend, &ck.state), done);
        HS_CALL_GOTO(sim.backend->ops->set_history(sim.backend, &ck.hist, ck.hist_phi[0], ck.hist_phi[1]), done);
        k0 = (long)ck.h.step;
        hs_log(1, "restart: from %s (t = %g ms, step %ld, %lld frames written)\n", ck.path, k0 * cfg->dt, k0,
               (long long)ck.h.n_frames);
    }
    if (cfg->output_enabled) cs.enabled = 1; /* every rank takes part in frames and checkpoints */
    if (cfg->output_enabled && writer) {
        HS_CALL_GOTO(checkpoints_prepare(&cs, cfg, restart ? k0 : -1), done);
        HS_CALL_GOTO(hs_series_create(cfg->out_format, cfg->out_dir, cfg->out_prefix, &ser), done);
        if (restart) HS_CALL_GOTO(hs_series_resume(ser, ck.frame_times, (int)ck.h.n_frames), done);
        hs_frame_source src = {0};
        if (sim.backend->ops->state_copy_start) {
            src = (hs_frame_source){sim.backend->ops->host_alloc, sim.backend->ops->host_free, frame_copy_wait,
                                    sim.backend};
        }
        hs_frame_plan plan = hs_sim_frame_plan(cfg, &sim);
        HS_CALL_GOTO(hs_frame_writer_create(ser, sim.mesh, &plan, &src, &fw), done);
        HS_CALL_GOTO(hs_samples_create(cfg, &sim, restart ? k0 * cfg->dt : -1.0, &cs.smp), done);
        /* per-beat maps read the state on this rank alone: serial runs only (a distributed get_state
         * is collective; sim_build refuses probes and ecg there); and only for a protocol that can give
         * more than one beat (a stimulus with count > 1, or several entries): their update copies the
         * read-outs at every frame, a synchronisation a one-beat run does not need (issue 17: 1.3 s of
         * a 500 ms beat on the benchmark ventricle) */
        int multi = cfg->n_stimuli > 1;
        for (int i = 0; i < cfg->n_stimuli; ++i) multi |= cfg->stimuli[i].count > 1;
        if (!cfg->distributed && multi) HS_CALL_GOTO(hs_beats_create(&sim, &cs.beats), done);
    }
    sum->wall_setup = hs_wtime() - w0;

    const double dt = cfg->dt, eps = 1e-9 * dt;
    const long n_steps = (long)ceil(cfg->t_end / dt - 1e-9);
    const long nan_step = inject_nan_step();
    const int out = cfg->output_enabled; /* frames are due (rank 0 writes them) */
    long next_frame = 0; /* index of the next frame: due at next_frame * interval */
    double last_frame_t = -1.0;
    if (out && !restart) {
        HS_CALL_GOTO(write_frame(fw, &sim, 0.0, sum, &cs.state), done);
        last_frame_t = 0.0;
    } else if (out && ck.h.n_frames > 0) {
        last_frame_t = ck.frame_times[ck.h.n_frames - 1];
    }
    next_frame = next_multiple(k0 * dt, cfg->out_interval, eps);
    const int ckpt_on = cs.enabled && cfg->checkpoint_interval > 0;
    long next_ckpt = ckpt_on ? next_multiple(k0 * dt, cfg->checkpoint_interval, eps) : 0;
    char ckpt_path[HS_PATH_MAX + 64] = "";
    sum->t_reached_ms = k0 * dt;
    hs_step_stats ss = {0};
    /* whole steps on the device (solver.step = "persistent"), unless something is due every step
     * (probes, ECG) or the run is distributed */
    if (sim.prob->opt.step_graph == 2 && sim.backend->ops->steps_device && !cs.smp && !cfg->distributed)
        HS_CALL_GOTO(HS_ALLOC(chunk, HS_STEPS_DEVICE_MAX, "step statistics"), done);
    loop_start(hooks, n_steps * dt, &looping);
    loop_ran = 1;
    for (long k = k0; k < n_steps; ++k) {
        double t = k * dt, t1 = (k + 1) * dt;
        if (k == nan_step && !clean_phi) {
            int32_t node = nn / 2;
            HS_CALL_GOTO(HS_ALLOC(clean_phi, nn, "copy of phi"), done);
            hs_state pot = {&sim.backend->state, {clean_phi}};
            HS_CALL_GOTO(sim.backend->ops->get_state(sim.backend, &pot), done);
            double *phi = cs.state.field[HS_STATE_POTENTIAL];
            memcpy(phi, clean_phi, sizeof(double) * (size_t)nn);
            phi[node] = NAN;
            hs_state bad = {&sim.backend->state, {phi}};
            HS_CALL_GOTO(sim.backend->ops->set_state(sim.backend, &bad), done);
            hs_log(1, "test hook HS_INJECT_NAN_AT_STEP: phi at node %d set to NaN before step %ld (t = %g ms)\n",
                   node, k, t);
        }
        if (chunk) {
            const long L = chunk_len(k, n_steps, dt, eps, out, next_frame, cfg->out_interval, ckpt_on, next_ckpt,
                                     cfg->checkpoint_interval, nan_step);
            if (L > 1) {
                int nd = 0;
                HS_CALL_GOTO(hs_sim_steps(&sim, k, dt, (int)L, &nd, chunk), done);
                /* the steps before the launch's last (or before a failed one) are accounted here, as if
                 * run one by one; nothing was due after them */
                const long acc = nd < L ? nd : L - 1;
                for (long j = 0; j < acc; ++j) {
                    const hs_step_stats *s = &chunk[j];
                    sum->steps++;
                    sum->newton_iters += s->newton_iters;
                    sum->cg_iters += s->cg_iters;
                    sum->t_reached_ms = (k + j + 1) * dt;
                    if (hooks && hooks->step_done)
                        hooks->step_done(hooks->ctx, (k + j + 1) * dt, sum->steps, s->newton_iters, s->cg_iters, 0);
                }
                k += acc;
                t = k * dt;
                t1 = (k + 1) * dt;
                if (nd == L) {
                    ss = chunk[L - 1];
                    goto accepted;
                }
                /* step k failed in the launch; the backend is at its start: the one-step path below runs
                 * it again, and reports or retries its failure as usual */
            }
        }
        st = step_with_retry(cfg, &sim, &cs, t, dt, &ss);
        if (st != HS_OK) {
            loop_done(hooks, &looping);
            hs_status code = st;
            char msg[3072];
            snprintf(msg, sizeof msg, "%s", hs_error_message());
            hs_error_clear();
            /* The backend is back at the last converged state (minus an injected NaN, which the
             * hook undoes as if it had appeared inside the step): keep it as the final frame and
             * as a checkpoint. */
            if (clean_phi) {
                hs_state pot = {&sim.backend->state, {clean_phi}};
                sim.backend->ops->set_state(sim.backend, &pot);
            }
            hs_status s2 = HS_OK;
            if (out && last_frame_t < t - 1e-9 * dt) {
                s2 = write_frame(fw, &sim, t, sum, &cs.state);
                if (s2 == HS_OK && fw) s2 = hs_frame_writer_flush(fw);
                if (s2 == HS_OK && fw)
                    hs_log(1, "wrote the last converged state (t = %.4g ms) as frame %d\n", t,
                           hs_series_count(ser) - 1);
            }
            if (s2 == HS_OK && cs.enabled) s2 = checkpoint_now(&cs, cfg, &sim, ser, fw, k, ckpt_path, sizeof ckpt_path);
            if (s2 == HS_OK && cs.enabled) {
                st = HS_FAIL(code, "step %ld: %s; the last converged state (t = %g ms, step %ld) is in checkpoint "
                                   "%s (resume with --restart)", k, msg, t, k, ckpt_path);
            } else if (cs.enabled) {
                char why[1024];
                snprintf(why, sizeof why, "%s", hs_error_message());
                hs_error_clear();
                st = HS_FAIL(code, "step %ld: %s; no checkpoint could be written: %s", k, msg, why);
            } else {
                st = HS_FAIL(code, "step %ld: %s", k, msg);
            }
            goto done;
        }
    accepted:
        sum->steps++;
        sum->newton_iters += ss.newton_iters;
        sum->cg_iters += ss.cg_iters;
        sum->t_reached_ms = t1;
        HS_CALL_GOTO(hs_samples_step(cs.smp, t1), done);
        if (out && t1 >= next_frame * cfg->out_interval - eps) {
            HS_CALL_GOTO(write_frame(fw, &sim, t1, sum, &cs.state), done);
            HS_CALL_GOTO(hs_beats_update(cs.beats, &sim), done);
            last_frame_t = t1;
            while (next_frame * cfg->out_interval <= t1 + eps) ++next_frame;
        }
        if (ckpt_on && t1 >= next_ckpt * cfg->checkpoint_interval - eps) {
            HS_CALL_GOTO(checkpoint_now(&cs, cfg, &sim, ser, fw, k + 1, ckpt_path, sizeof ckpt_path), done);
            while (next_ckpt * cfg->checkpoint_interval <= t1 + eps) ++next_ckpt;
        }
        if (hooks && hooks->step_done) hooks->step_done(hooks->ctx, t1, sum->steps, ss.newton_iters, ss.cg_iters, k + 1 == n_steps);
        /* a distributed run stops when any rank saw the signal, all at this step */
        const int sg = cfg->distributed ? hs_par_max_int(stop_signal) : stop_signal;
        if (sg) {
            loop_done(hooks, &looping);
            if (cs.enabled && cs.last_step != k + 1)
                HS_CALL_GOTO(checkpoint_now(&cs, cfg, &sim, ser, fw, k + 1, ckpt_path, sizeof ckpt_path), done);
            if (cs.enabled)
                st = HS_FAIL(HS_ERR_INTERRUPTED,
                             "interrupted by %s at t = %g ms (step %ld of %ld); the state is in checkpoint %s; "
                             "resume with: %s --restart %s",
                             sg == SIGINT ? "SIGINT" : "SIGTERM", t1, k + 1, n_steps, ckpt_path,
                             cfg->resume_cmd && cfg->resume_cmd[0] ? cfg->resume_cmd : "heartsim run CONFIG",
                             cfg->resume_dir && cfg->resume_dir[0] ? cfg->resume_dir : cfg->out_dir);
            else
                st = HS_FAIL(HS_ERR_INTERRUPTED,
                             "interrupted by %s at t = %g ms (step %ld of %ld); output.enabled = false, so no "
                             "checkpoint was written", sg == SIGINT ? "SIGINT" : "SIGTERM", t1, k + 1, n_steps);
            goto done;
        }
    }
    loop_done(hooks, &looping);
    /* the end state too, so a run can be extended (a larger time.t_end with --restart) */
    if (ckpt_on && cs.last_step != n_steps && n_steps > k0)
        HS_CALL_GOTO(checkpoint_now(&cs, cfg, &sim, ser, fw, n_steps, ckpt_path, sizeof ckpt_path), done);
done:
    loop_done(hooks, &looping);
    if (fw) {
        /* every queued frame reaches the disk before the run reports; a write error that the
         * time loop has not seen yet becomes the run's error */
        double tf = hs_wtime();
        hs_status s2 = hs_frame_writer_flush(fw);
        sum->wall_output += hs_wtime() - tf;
        if (st == HS_OK) st = s2;
        sum->wall_writer = hs_frame_writer_busy(fw);
        hs_frame_writer_destroy(&fw);
    }
    if (cs.smp) {
        hs_status s2 = hs_samples_flush(cs.smp);
        if (s2 == HS_OK) s2 = hs_samples_plot(cs.smp); /* also after a failure: the curves so far */
        if (st == HS_OK) st = s2;
        hs_samples_destroy(&cs.smp);
    }
    /* In a distributed run the maps' gather is collective: only after the run ended the same way on
     * every rank (success, or an error all ranks agreed on: numerical, interrupted); a rank's own
     * error (I/O on rank 0) ends every rank through MPI_Abort in app/ instead. */
    const int maps_ok = !cfg->distributed || st == HS_OK || st == HS_ERR_NUMERIC || st == HS_ERR_INTERRUPTED;
    if ((ser || (cfg->output_enabled && !writer)) && sim.backend && loop_ran && maps_ok) {
        /* the maps as they stand, also after a failure (the last converged state) or a signal */
        hs_status s2 = write_maps(cfg, &sim, sum->t_reached_ms);
        if (s2 == HS_OK && cs.beats) s2 = hs_beats_update(cs.beats, &sim);
        if (s2 == HS_OK && cs.beats) s2 = hs_beats_write(cs.beats, &sim, cfg->out_dir, cfg->out_prefix, sum->t_reached_ms);
        if (st == HS_OK) st = s2;
        else if (s2 != HS_OK) hs_log(1, "maps: not written\n");
    }
    if (sim.backend) sim.backend->ops->get_times(sim.backend, &sum->phases);
    sum->wall_total = hs_wtime() - w0;
    if (ser) hs_log(1, "output: %d frames, index %s\n", hs_series_count(ser), hs_series_index_path(ser));
    hs_series_destroy(&ser);
    free(clean_phi);
    free(chunk);
    hs_state_destroy(&cs.state);
    free(cs.retry_hist[0]);
    free(cs.retry_hist[1]);
    free(cs.hist[0]);
    free(cs.hist[1]);
    free(cs.ring);
    hs_checkpoint_free(&ck);
    hs_beats_destroy(&cs.beats);
    hs_sim_destroy(&sim);
    hs_run_lock_release(&lock);
    signals_restore(&sig);
    return st;
}
