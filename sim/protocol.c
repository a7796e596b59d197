/* The protocol scheduler (hs_protocol.h): the events between steps, when each is due, and how the
 * time loop ends. A new event is a due/fire pair and one line in `events` below. */
#include "hs_protocol.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_par.h"
#include "hs_util.h"

struct hs_protocol {
    const hs_sim_spec *spec;
    hs_sim *sim;
    hs_run_output *out;
    const hs_run_hooks *hooks;
    const volatile sig_atomic_t *stop; /* the signal handler's flag */
    hs_run_summary *sum;
    int restart;        /* the run continues a checkpoint */
    long k0, n_steps;   /* the loop runs steps k0 .. n_steps - 1 */
    double dt, eps;     /* ms; eps: the tolerance of "due at" */
    int looping;        /* between the loop_start and loop_done hooks */
    long next_frame;    /* index of the next frame: due at next_frame * output.interval */
    double last_frame_t; /* time of the series' last frame, -1 */
    int ckpt_on;        /* checkpoints every output.checkpoint_interval */
    long next_ckpt;     /* index of the next checkpoint, as next_frame */
    int stop_sig;       /* the signal of a stop request seen (all ranks agree), 0 */
    long nan_step;      /* HS_INJECT_NAN_AT_STEP, -1 */
    double *clean_phi;  /* phi before the NaN went in (NULL: not injected) */
};

/* ---- the events ------------------------------------------------------------------------------- */

/* When an event acts:
 * - BEFORE_STEP: when due(k), before step k runs; a device launch ends before that step.
 * - AFTER_STEP: when due(k1), after the step that reached k1; a device launch ends at that step
 *   (hs_protocol_next), so inside a launch none is due.
 * - AFTER_EACH_STEP: after every accepted step, also inside a launch (no due).
 * - AFTER_ADVANCE: after the last step of each full advance (no due; it does not end a launch). */
typedef enum { BEFORE_STEP, AFTER_STEP, AFTER_EACH_STEP, AFTER_ADVANCE } event_when;

typedef struct protocol_event {
    const char *name;
    event_when when;
    int (*due)(const hs_protocol *p, long k);
    hs_status (*fire)(hs_protocol *p, long k, const hs_step_stats *s); /* s: the step's (NULL before it) */
} protocol_event;

/* probes and the ECG (sim/samples.c keeps their own intervals): due every step, so a run with them
 * takes one step per advance */
static int samples_due(const hs_protocol *p, long k1)
{
    (void)k1;
    return p->out->smp != NULL;
}

static hs_status samples_fire(hs_protocol *p, long k1, const hs_step_stats *s)
{
    (void)s;
    return hs_samples_step(p->out->smp, k1 * p->dt);
}

/* frames: due when t + dt >= j * output.interval for the next frame index j; the per-beat maps
 * record the read-outs with each frame */
static int frame_due(const hs_protocol *p, long k1)
{
    return p->out->enabled && k1 * p->dt >= p->next_frame * p->spec->out_interval - p->eps;
}

static hs_status frame_fire(hs_protocol *p, long k1, const hs_step_stats *s)
{
    (void)s;
    const double t1 = k1 * p->dt;
    HS_CALL(hs_run_output_frame(p->out, t1));
    HS_CALL(hs_beats_update(p->out->beats, p->sim));
    p->last_frame_t = t1;
    while (p->next_frame * p->spec->out_interval <= t1 + p->eps) ++p->next_frame;
    return HS_OK;
}

/* checkpoints: as frames, every output.checkpoint_interval */
static int checkpoint_due(const hs_protocol *p, long k1)
{
    return p->ckpt_on && k1 * p->dt >= p->next_ckpt * p->spec->checkpoint_interval - p->eps;
}

static hs_status checkpoint_fire(hs_protocol *p, long k1, const hs_step_stats *s)
{
    (void)s;
    const double t1 = k1 * p->dt;
    HS_CALL(hs_run_output_checkpoint(p->out, k1));
    while (p->next_ckpt * p->spec->checkpoint_interval <= t1 + p->eps) ++p->next_ckpt;
    return HS_OK;
}

/* the progress hook (app/'s progress line) */
static hs_status progress_fire(hs_protocol *p, long k1, const hs_step_stats *s)
{
    const hs_run_hooks *h = p->hooks;
    if (h && h->step_done) h->step_done(h->ctx, k1 * p->dt, p->sum->steps, s->newton_iters, s->cg_iters, k1 == p->n_steps);
    return HS_OK;
}

/* SIGINT/SIGTERM: the loop stops at the end of this advance; a distributed run stops when any rank
 * saw the signal, all at this step */
static hs_status stop_fire(hs_protocol *p, long k1, const hs_step_stats *s)
{
    (void)k1;
    (void)s;
    p->stop_sig = p->spec->distributed ? hs_par_max_int(*p->stop) : *p->stop;
    return HS_OK;
}

/* HS_INJECT_NAN_AT_STEP=k (test hook, docs/reliability.md): a NaN in phi before step k */
static int nan_due(const hs_protocol *p, long k) { return k == p->nan_step && !p->clean_phi; }

static hs_status nan_fire(hs_protocol *p, long k, const hs_step_stats *s)
{
    (void)s;
    hs_backend *b = p->sim->backend;
    const int32_t nn = p->sim->mesh->n_nodes, node = nn / 2;
    HS_CALL(HS_ALLOC(p->clean_phi, nn, "copy of phi"));
    hs_state pot = {&b->state, {p->clean_phi}};
    HS_CALL(b->ops->get_state(b, &pot));
    HS_CALL(hs_state_ensure(p->out->scratch));
    double *phi = p->out->scratch->field[HS_STATE_POTENTIAL];
    memcpy(phi, p->clean_phi, sizeof(double) * (size_t)nn);
    phi[node] = NAN;
    hs_state bad = {&b->state, {phi}};
    HS_CALL(b->ops->set_state(b, &bad));
    hs_log(1, "test hook HS_INJECT_NAN_AT_STEP: phi at node %d set to NaN before step %ld (t = %g ms)\n", node, k,
           k * p->dt);
    return HS_OK;
}

/* The events, in the order they fire after a step. */
static const protocol_event events[] = {
    {"samples", AFTER_STEP, samples_due, samples_fire},
    {"frame", AFTER_STEP, frame_due, frame_fire},
    {"checkpoint", AFTER_STEP, checkpoint_due, checkpoint_fire},
    {"progress", AFTER_EACH_STEP, NULL, progress_fire},
    {"stop", AFTER_ADVANCE, NULL, stop_fire},
    {"inject_nan", BEFORE_STEP, nan_due, nan_fire},
};
enum { n_events = sizeof events / sizeof events[0] };

/* ---- the scheduler ---------------------------------------------------------------------------- */

/* HS_INJECT_NAN_AT_STEP, -1 when unset */
static long inject_nan_step(void)
{
    const char *e = getenv("HS_INJECT_NAN_AT_STEP");
    return e && *e ? atol(e) : -1;
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

hs_status hs_protocol_create(const hs_sim_spec *spec, hs_sim *sim, hs_run_output *out, const hs_checkpoint *ck,
                             const hs_run_hooks *hooks, const volatile sig_atomic_t *stop, hs_run_summary *sum,
                             hs_protocol **pp)
{
    *pp = NULL;
    hs_protocol *p = NULL;
    HS_CALL(HS_ALLOC(p, 1, "protocol"));
    *p = (hs_protocol){.spec = spec, .sim = sim, .out = out, .hooks = hooks, .stop = stop, .sum = sum};
    p->restart = ck != NULL;
    p->dt = spec->dt;
    p->eps = 1e-9 * spec->dt;
    p->k0 = ck ? (long)ck->h.step : 0;
    p->n_steps = (long)ceil(spec->t_end / spec->dt - 1e-9);
    p->nan_step = inject_nan_step();
    p->last_frame_t = -1.0;
    if (out->enabled && ck && ck->h.n_frames > 0) p->last_frame_t = ck->frame_times[ck->h.n_frames - 1];
    p->next_frame = next_multiple(p->k0 * p->dt, spec->out_interval, p->eps);
    p->ckpt_on = out->enabled && spec->checkpoint_interval > 0;
    p->next_ckpt = p->ckpt_on ? next_multiple(p->k0 * p->dt, spec->checkpoint_interval, p->eps) : 0;
    sum->t_reached_ms = p->k0 * p->dt;
    *pp = p;
    return HS_OK;
}

static void loop_done(hs_protocol *p)
{
    if (p->looping && p->hooks && p->hooks->loop_done) p->hooks->loop_done(p->hooks->ctx);
    p->looping = 0;
}

void hs_protocol_destroy(hs_protocol **pp)
{
    if (!pp || !*pp) return;
    loop_done(*pp);
    free((*pp)->clean_phi);
    free(*pp);
    *pp = NULL;
}

long hs_protocol_first_step(const hs_protocol *p) { return p->k0; }

hs_status hs_protocol_start(hs_protocol *p)
{
    if (p->out->enabled && !p->restart) {
        HS_CALL(hs_run_output_frame(p->out, 0.0));
        p->last_frame_t = 0.0;
    }
    if (p->hooks && p->hooks->loop_start) p->hooks->loop_start(p->hooks->ctx, p->n_steps * p->dt);
    p->looping = 1;
    return HS_OK;
}

int hs_protocol_running(const hs_protocol *p, long k) { return k < p->n_steps && !p->stop_sig; }

/* 1 when a device launch must end at step k1: an event is due after it or before the next */
static int ends_launch(const hs_protocol *p, long k1)
{
    for (int e = 0; e < n_events; ++e)
        if ((events[e].when == AFTER_STEP || events[e].when == BEFORE_STEP) && events[e].due(p, k1)) return 1;
    return 0;
}

hs_status hs_protocol_next(hs_protocol *p, long k, long max, long *n)
{
    for (int e = 0; e < n_events; ++e)
        if (events[e].when == BEFORE_STEP && events[e].due(p, k)) HS_CALL(events[e].fire(p, k, NULL));
    long len = 0;
    while (k + len < p->n_steps && len < max) {
        ++len;
        if (ends_launch(p, k + len)) break;
    }
    *n = len;
    return HS_OK;
}

hs_status hs_protocol_fire(hs_protocol *p, long k, const hs_advance *adv)
{
    for (long j = 0; j < adv->done; ++j) {
        const long k1 = k + j + 1;
        const hs_step_stats *s = &adv->stats[j];
        const int last = j + 1 == adv->done && !adv->partial;
        p->sum->steps++;
        p->sum->newton_iters += s->newton_iters;
        p->sum->cg_iters += s->cg_iters;
        p->sum->t_reached_ms = k1 * p->dt;
        for (int e = 0; e < n_events; ++e) {
            const protocol_event *ev = &events[e];
            if (ev->when == BEFORE_STEP || (ev->when == AFTER_ADVANCE && !last)) continue;
            if (ev->due && !ev->due(p, k1)) continue;
            HS_CALL(ev->fire(p, k1, s));
        }
    }
    return HS_OK;
}

/* ---- how the loop ends ------------------------------------------------------------------------ */

/* Step k failed; the backend is back at the last converged state (minus an injected NaN, which the
 * hook undoes as if it had appeared inside the step): keep it as the final frame and as a checkpoint.
 * A distributed run: every rank comes here alike (the step's error agreed, or numerical), and each
 * output step below is agreed, so the ranks write the frame and the checkpoint together or stop
 * together; the error said of the step stays agreed. */
static hs_status step_failed(hs_protocol *p, long k, hs_status code)
{
    hs_run_output *o = p->out;
    const double t = k * p->dt;
    const int agreed = hs_error_agreed();
    char msg[3072];
    snprintf(msg, sizeof msg, "%s", hs_error_message());
    hs_error_clear();
    if (p->clean_phi) {
        hs_state pot = {&p->sim->backend->state, {p->clean_phi}};
        p->sim->backend->ops->set_state(p->sim->backend, &pot);
    }
    hs_status s2 = HS_OK;
    if (o->enabled && p->last_frame_t < t - 1e-9 * p->dt) {
        s2 = hs_run_output_frame(o, t);
        if (s2 == HS_OK) s2 = hs_run_output_flush(o); /* agreed: all ranks to the checkpoint, or none */
        if (s2 == HS_OK && o->fw)
            hs_log(1, "wrote the last converged state (t = %.4g ms) as frame %d\n", t, hs_series_count(o->ser) - 1);
    }
    if (s2 == HS_OK && o->enabled) s2 = hs_run_output_checkpoint(o, k);
    if (s2 == HS_OK && o->enabled)
        s2 = HS_FAIL(code, "step %ld: %s; the last converged state (t = %g ms, step %ld) is in checkpoint %s "
                           "(resume with --restart)", k, msg, t, k, o->ckpt_path);
    else if (o->enabled) {
        char why[1024];
        snprintf(why, sizeof why, "%s", hs_error_message());
        hs_error_clear();
        s2 = HS_FAIL(code, "step %ld: %s; no checkpoint could be written: %s", k, msg, why);
    } else {
        s2 = HS_FAIL(code, "step %ld: %s", k, msg);
    }
    if (agreed) hs_error_mark_agreed(); /* the step's error and the outputs' (agreed) */
    return s2;
}

/* A stop request after step k1 - 1: a checkpoint of the state reached, and the command that resumes. */
static hs_status stopped(hs_protocol *p, long k1)
{
    const hs_sim_spec *cfg = p->spec;
    hs_run_output *o = p->out;
    const char *sig = p->stop_sig == SIGINT ? "SIGINT" : "SIGTERM";
    const double t1 = k1 * p->dt;
    if (!o->enabled)
        return HS_FAIL(HS_ERR_INTERRUPTED, "interrupted by %s at t = %g ms (step %ld of %ld); output.enabled = "
                       "false, so no checkpoint was written", sig, t1, k1, p->n_steps);
    if (o->last_ckpt != k1) HS_CALL(hs_run_output_checkpoint(o, k1));
    return HS_FAIL(HS_ERR_INTERRUPTED,
                   "interrupted by %s at t = %g ms (step %ld of %ld); the state is in checkpoint %s; "
                   "resume with: %s --restart %s", sig, t1, k1, p->n_steps, o->ckpt_path,
                   cfg->resume_cmd && cfg->resume_cmd[0] ? cfg->resume_cmd : "heartsim run CONFIG",
                   cfg->resume_dir && cfg->resume_dir[0] ? cfg->resume_dir : cfg->out_dir);
}

hs_status hs_protocol_end(hs_protocol *p, long k, hs_status st, const hs_advance *adv)
{
    loop_done(p);
    if (st != HS_OK) return adv->failed ? step_failed(p, k, st) : st;
    if (p->stop_sig) return stopped(p, k);
    /* the end state too, so a run can be extended (a larger time.t_end with --restart) */
    if (p->ckpt_on && p->out->last_ckpt != p->n_steps && p->n_steps > p->k0)
        HS_CALL(hs_run_output_checkpoint(p->out, p->n_steps));
    return HS_OK;
}
