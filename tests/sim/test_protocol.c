/*
 * The protocol scheduler (sim/hs_protocol.h) with a driver that takes several steps per advance, as
 * the cuda backend's persistent step does (CI without a GPU cannot run that one): here a "launch" of n
 * steps is n calls of hs_sim_step, the arithmetic of the one-step path on the cpu backend.
 *  1. Launches end where something is due: dt = 0.1 ms, frames every 1 ms, checkpoints every 0.7 ms,
 *     t_end = 3 ms give launches of 7, 3, 4, 6, 1, 7, 2 steps (the checkpoints at 0.7, 1.4, 2.1 and
 *     2.8 ms, the frames at 1, 2 and 3 ms).
 *  2. Those launches write the frames, the index, the checkpoints and the maps file of hs_sim_run
 *     (one step per advance) byte for byte.
 *  3. The progress hook sees every step once and in order, `last` only on the final one.
 *  4. Without output, launches are capped by the driver's maximum (4: 4, 4, 2 steps to 1 ms).
 *  5. A launch that stopped at a failed step (partial) fires nothing after its steps: a stop request
 *     already set is seen only after the next full advance, whose step gets the checkpoint.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_protocol.h"
#include "hs_run_output.h"
#include "hs_sim.h"
#include "hs_step_driver.h"
#include "hs_test.h"
#include "hs_test_spec.h"
#include "hs_util.h"

typedef struct progress {
    long calls, last_steps, n_last;
    double last_t;
    int ordered;
} progress;

static void on_step(void *ctx, double t_ms, long steps, int newton, int cg, int last)
{
    (void)newton;
    (void)cg;
    progress *p = ctx;
    if (steps != p->last_steps + 1 || t_ms <= p->last_t) p->ordered = 0;
    p->calls++;
    p->last_steps = steps;
    p->last_t = t_ms;
    p->n_last += last != 0;
}

static void spec_slab(hs_sim_spec *spec, const char *dir)
{
    hs_test_spec_defaults(spec);
    spec->mesh.box = (hs_box_params){.lx = 4.0, .ly = 1.0, .lz = 0.5, .h = 0.25};
    spec->n_stimuli = 1;
    spec->stimuli[0] = (hs_stimulus_cfg){.shape = HS_STIM_BOX, .min = {-1, -1, -1}, .max = {0.6, 2, 2}, .start = 0.0,
                                         .duration = 2.0, .strength = 0.5};
    spec->t_end = 3.0;
    spec->output_enabled = dir != NULL;
    if (dir) snprintf(spec->out_dir, sizeof spec->out_dir, "%s", dir);
    snprintf(spec->out_prefix, sizeof spec->out_prefix, "p");
    spec->out_interval = 1.0;
    spec->checkpoint_interval = 0.7;
    spec->checkpoint_keep = 100;
}

/* A run of the protocol with launches of at most @p max steps, each n calls of hs_sim_step; @p lens
 * gets the launch lengths. With @p partial_at > 0, the launch that reaches past that step stops
 * there as partial (the steps before it taken) after @p stop is set, and the next advance is one step. */
static hs_status run_launches(const hs_sim_spec *spec, long max, long partial_at, volatile sig_atomic_t *stop,
                              long *lens, int *n_lens, progress *prog)
{
    static hs_step_stats stats[HS_STEPS_DEVICE_MAX];
    hs_sim sim;
    memset(&sim, 0, sizeof sim);
    hs_state scratch;
    memset(&scratch, 0, sizeof scratch);
    hs_run_output out;
    memset(&out, 0, sizeof out);
    hs_protocol *p = NULL;
    hs_run_summary sum;
    memset(&sum, 0, sizeof sum);
    hs_run_hooks hooks = {NULL, on_step, NULL, prog};
    hs_advance adv = {0, stats, 0, 0};
    hs_status st = HS_OK;
    *n_lens = 0;
    HS_CALL_GOTO(hs_sim_create(spec, &sim), done);
    HS_CALL_GOTO(hs_state_create(&sim.backend->state, &scratch), done);
    HS_CALL_GOTO(hs_run_output_open(&out, spec, &sim, NULL, &scratch, &sum), done);
    HS_CALL_GOTO(hs_protocol_create(spec, &sim, &out, NULL, &hooks, stop, &sum, &p), done);
    HS_CALL_GOTO(hs_protocol_start(p), done);
    long k = hs_protocol_first_step(p), redo = 0;
    while (hs_protocol_running(p, k)) {
        long n = 0;
        HS_CALL_GOTO(hs_protocol_next(p, k, redo ? 1 : max, &n), done);
        lens[(*n_lens)++] = n;
        adv = (hs_advance){n, stats, 0, 0};
        redo = partial_at > k && partial_at < k + n;
        if (redo) {
            adv.done = partial_at - k;
            adv.partial = 1;
            *stop = SIGTERM;
        }
        for (long j = 0; j < adv.done; ++j) HS_CALL_GOTO(hs_sim_step(&sim, (k + j) * spec->dt, spec->dt, &stats[j]), done);
        HS_CALL_GOTO(hs_protocol_fire(p, k, &adv), done);
        if (redo) HS_TEST_CHECK(hs_protocol_running(p, k + adv.done), "a partial launch fired the stop event");
        k += adv.done;
    }
    st = hs_protocol_end(p, k, st, &adv);
done:
    hs_protocol_destroy(&p);
    st = hs_run_output_finish(&out, st, 1);
    hs_run_output_close(&out);
    hs_state_destroy(&scratch);
    hs_sim_destroy(&sim);
    return st;
}

/* Every file of @p a is in @p b with the same bytes; returns how many were compared. */
static int same_files(const char *a, const char *b)
{
    DIR *d = opendir(a);
    HS_TEST_CHECK(d != NULL, "cannot open %s", a);
    if (!d) return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char pa[512], pb[512];
        snprintf(pa, sizeof pa, "%s/%s", a, e->d_name);
        snprintf(pb, sizeof pb, "%s/%s", b, e->d_name);
        FILE *fa = fopen(pa, "rb"), *fb = fopen(pb, "rb");
        HS_TEST_CHECK(fa && fb, "%s or %s missing", pa, pb);
        int ca = 0, cb = 0;
        while (fa && fb && (ca = fgetc(fa)) == (cb = fgetc(fb)) && ca != EOF) {}
        HS_TEST_CHECK(fa && fb && ca == cb, "%s differs from %s", pb, pa);
        if (fa) fclose(fa);
        if (fb) fclose(fb);
        ++n;
    }
    closedir(d);
    return n;
}

int main(void)
{
    hs_verbosity = 0;
    char da[] = "/tmp/hs_protocol_a_XXXXXX", db[] = "/tmp/hs_protocol_b_XXXXXX", dc[] = "/tmp/hs_protocol_c_XXXXXX";
    HS_TEST_CHECK(mkdtemp(da) && mkdtemp(db) && mkdtemp(dc), "temporary directories");
    static hs_sim_spec spec;
    volatile sig_atomic_t stop = 0;
    long lens[64];
    int n_lens = 0;

    /* 1-3: launches against hs_sim_run */
    spec_slab(&spec, da);
    hs_run_summary sum;
    HS_TEST_OK(hs_sim_run(&spec, NULL, NULL, &sum));
    spec_slab(&spec, db);
    progress prog = {0, 0, 0, -1.0, 1};
    HS_TEST_OK(run_launches(&spec, HS_STEPS_DEVICE_MAX, 0, &stop, lens, &n_lens, &prog));
    const long want[] = {7, 3, 4, 6, 1, 7, 2};
    HS_TEST_CHECK(n_lens == 7, "%d launches, want 7", n_lens);
    for (int i = 0; i < n_lens && i < 7; ++i) HS_TEST_CHECK(lens[i] == want[i], "launch %d: %ld steps, want %ld", i, lens[i], want[i]);
    const int files = same_files(da, db);
    HS_TEST_CHECK(files == 11, "%d files compared, want 4 frames, index, 5 checkpoints, maps", files);
    HS_TEST_CHECK(prog.calls == 30 && prog.ordered && prog.n_last == 1 && prog.last_steps == 30,
                  "progress: %ld calls, ordered %d, %ld last", prog.calls, prog.ordered, prog.n_last);

    /* 4: no output, at most 4 steps per launch */
    spec_slab(&spec, NULL);
    spec.t_end = 1.0;
    prog = (progress){0, 0, 0, -1.0, 1};
    HS_TEST_OK(run_launches(&spec, 4, 0, &stop, lens, &n_lens, &prog));
    HS_TEST_CHECK(n_lens == 3 && lens[0] == 4 && lens[1] == 4 && lens[2] == 2, "%d launches (%ld, %ld, ...), want 4, 4, 2",
                  n_lens, lens[0], lens[1]);

    /* 5: a partial launch (steps 0-3 taken, step 4 "failed"), the stop request set meanwhile */
    spec_slab(&spec, dc);
    spec.checkpoint_interval = 0.0;
    prog = (progress){0, 0, 0, -1.0, 1};
    hs_status st = run_launches(&spec, HS_STEPS_DEVICE_MAX, 4, &stop, lens, &n_lens, &prog);
    HS_TEST_CHECK(st == HS_ERR_INTERRUPTED, "status %d, want HS_ERR_INTERRUPTED", (int)st);
    hs_error_clear();
    HS_TEST_CHECK(n_lens == 2 && lens[0] == 10 && lens[1] == 1, "%d launches (%ld, %ld), want 10 then 1", n_lens, lens[0],
                  lens[1]);
    HS_TEST_CHECK(prog.calls == 5 && prog.ordered, "progress: %ld calls, want 5", prog.calls);
    char path[256];
    snprintf(path, sizeof path, "%s/p_ckpt_000000005.hsck", dc);
    FILE *f = fopen(path, "rb");
    HS_TEST_CHECK(f != NULL, "no checkpoint %s after the stop", path);
    if (f) fclose(f);

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s %s %s", da, db, dc);
    if (system(cmd) != 0) fprintf(stderr, "could not remove the temporary directories\n");
    HS_TEST_RETURN();
}
