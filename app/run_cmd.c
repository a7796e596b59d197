/* heartsim run (hs_run_cmd.h): config -> spec, the run with a progress line, the summary. */
#include "hs_run_cmd.h"
#include <string.h>


#include "hs_par.h"
#include "hs_progress.h"
#include "hs_resume_cmd.h"
#include "hs_spec.h"
#include "hs_util.h"

/* the hooks' context: the progress line and time.dt, the simulated time of each step it counts */
typedef struct progress_ctx {
    hs_progress line;
    double dt;
} progress_ctx;

static void progress_step(void *ctx, double t_ms, long steps, int newton, int cg, int last)
{
    hs_progress_update(&((progress_ctx *)ctx)->line, t_ms, steps, newton, cg, last);
}

static void progress_start(void *ctx, double t_end_ms)
{
    progress_ctx *c = ctx;
    hs_progress_init(&c->line, stderr, t_end_ms, c->dt, hs_verbosity >= 1);
}

static void progress_done(void *ctx) { hs_progress_finish(&((progress_ctx *)ctx)->line); }

hs_status hs_run_command(const hs_config *cfg, const char *restart, const char *resume_cmd)
{
    static hs_sim_spec spec; /* large (paths): not on the stack */
    static char resume_dir[2 * HS_PATH_MAX + 8];
    HS_CALL(hs_par_agree(hs_spec_from_config(cfg, &spec))); /* alike on every rank: said once under mpirun */
    spec.resume_cmd = resume_cmd;
    spec.resume_dir = hs_shell_quote(cfg->out_dir, resume_dir, sizeof resume_dir);
    spec.restarting = restart != NULL; /* a checkpoint is compared with the mesh even without output */
    /* what a kill would cost and what the checkpoints take on disk, before the run starts */
    if (cfg->output_enabled && cfg->checkpoint_interval > 0)
        hs_log(1, "checkpoints: every %g ms of simulated time and at the end, the newest %d kept in %s "
                  "(output.checkpoint_interval, output.checkpoint_keep; 0 turns them off)\n",
               cfg->checkpoint_interval, cfg->checkpoint_keep, cfg->out_dir);
    else if (cfg->output_enabled)
        hs_log(1, "checkpoints: none (output.checkpoint_interval = 0): a killed run starts again from the "
                  "beginning (a signal or a failed step still writes one)\n");
    progress_ctx prog = {.dt = cfg->dt};
    hs_run_hooks hooks = {progress_start, progress_step, progress_done, &prog};
    hs_run_summary sum;
    hs_status st = hs_sim_run(&spec, restart, &hooks, &sum);
    if (hs_verbosity >= 1 && sum.steps > 0) hs_run_summary_print(&sum, cfg, stderr);
    return st;
}
void hs_run_summary_print(const hs_run_summary *s, const hs_config *cfg, FILE *f)
{
    double loop = s->wall_total - s->wall_setup;
    fprintf(f, "summary: %ld steps of %g ms to t = %g ms on %s\n", s->steps, cfg->dt, s->t_reached_ms,
            s->backend);
    fprintf(f, "  wall time %.3f s (set-up %.3f s, time loop %.3f s)\n", s->wall_total, s->wall_setup, loop);
    const hs_setup_times *u = &s->setup;
    const double parts = u->partition + u->scatter + u->maps; /* a distributed run's (0 serially) */
    if (s->n_ranks > 1)
        fprintf(f, "  set-up (rank 0): mesh %.3f s, pattern %.3f s, stimulus and regions %.3f s, partition %.3f s, "
                   "scatter %.3f s, local maps (K_D) %.3f s, backend (upload) %.3f s, other %.3f s\n",
                u->mesh, u->pattern, u->problem, u->partition, u->scatter, u->maps, u->backend,
                s->wall_setup - (u->mesh + u->pattern + u->trial + u->reorder + u->problem + parts + u->backend));
    else
        fprintf(f, "  set-up: mesh %.3f s, pattern %.3f s, spmv choice %.3f s, reorder %.3f s, problem (maps, K_D) %.3f s, "
                   "backend (upload) %.3f s, other %.3f s\n", u->mesh, u->pattern, u->trial, u->reorder, u->problem,
                u->backend, s->wall_setup - (u->mesh + u->pattern + u->trial + u->reorder + u->problem + parts + u->backend));
    if (s->n_ranks > 1) {
        /* each phase on the slowest rank (what the set-up waits for) and summed over the ranks */
        const hs_setup_times *a = &s->setup_max, *b = &s->setup_sum;
        fprintf(f, "  set-up per rank (max / sum over %d ranks): mesh %.3f / %.3f s (node order %.3f / %.3f s), "
                   "pattern %.3f / %.3f s, partition %.3f / %.3f s, scatter %.3f / %.3f s, maps %.3f / %.3f s, "
                   "upload %.3f / %.3f s\n",
                s->n_ranks, a->mesh, b->mesh, a->mesh_order, b->mesh_order, a->pattern, b->pattern, a->partition,
                b->partition, a->scatter, b->scatter, a->maps, b->maps, a->backend, b->backend);
        fprintf(f, "  memory per rank: peak resident (VmHWM) at the end of set-up %.3f GB max, %.3f GB summed "
                   "over %d ranks; rank 0's at the end %.3f GB\n",
                a->peak_rss / 1e9, b->peak_rss / 1e9, s->n_ranks, s->peak_rss_end / 1e9);
        fprintf(f, "  whole mesh: held by %.0f of %d ranks during set-up\n", b->whole_mesh, s->n_ranks);
    } else {
        fprintf(f, "  memory: peak resident (VmHWM) %.3f GB at the end of set-up, %.3f GB at the end\n",
                s->setup.peak_rss / 1e9, s->peak_rss_end / 1e9);
    }
    if (s->mesh_from_cache == 2)
        fprintf(f, "  mesh: each rank's part from the partitioned mesh cache %s (not read, partitioned or scattered "
                   "again)\n", s->mesh_cache);
    else if (s->mesh_from_cache)
        fprintf(f, "  mesh: from the mesh cache %s (not meshed again)\n", s->mesh_cache);
    else if (s->mesh_cache[0])
        fprintf(f, "  mesh: built in %.3f s (checks %.3f s, fibres %.3f s, node order %.3f s), stored in the mesh cache %s\n",
                s->mesh_seconds, s->mesh_check_seconds, s->mesh_fibers_seconds, s->mesh_reorder_seconds, s->mesh_cache);
    else
        fprintf(f, "  mesh: built in %.3f s (checks %.3f s, fibres %.3f s, node order %.3f s; not cached)\n",
                s->mesh_seconds, s->mesh_check_seconds, s->mesh_fibers_seconds, s->mesh_reorder_seconds);
    char spmv[112];
    if (s->phases.spmv >= 0) snprintf(spmv, sizeof spmv, "SpMV %.3f s", s->phases.spmv);
    else snprintf(spmv, sizeof spmv, "SpMV not timed in runs: see bench step");
    if (s->phases.precond > 0) { /* solver.precond = sai, fsai: computing its values */
        size_t l = strlen(spmv);
        snprintf(spmv + l, sizeof spmv - l, ", preconditioner %.3f s", s->phases.precond);
    }
    if (s->splitting) { /* the same clocks, named for the splitting scheme (hs_run_summary.splitting) */
        fprintf(f, "  phases: reaction %.3f s, diffusion matrices %.3f s, diffusion solve %.3f s (%s), output %.3f s "
                   "(%d frames; the writer thread wrote for %.3f s alongside)\n",
                s->phases.element, s->phases.assembly, s->phases.solve, spmv, s->wall_output, s->frames, s->wall_writer);
        fprintf(f, "  iterations: %ld diffusion solves, %ld CG (%.1f per solve)\n", s->newton_iters, s->cg_iters,
                s->newton_iters ? (double)s->cg_iters / s->newton_iters : 0.0);
    } else {
        fprintf(f, "  phases: element %.3f s, assembly %.3f s, solve %.3f s (%s), output %.3f s (%d frames; "
                   "the writer thread wrote for %.3f s alongside)\n",
                s->phases.element, s->phases.assembly, s->phases.solve, spmv, s->wall_output, s->frames, s->wall_writer);
        fprintf(f, "  iterations: %ld Newton (%.2f per step), %ld CG (%.1f per Newton iteration)\n",
                s->newton_iters, s->steps ? (double)s->newton_iters / s->steps : 0.0, s->cg_iters,
                s->newton_iters ? (double)s->cg_iters / s->newton_iters : 0.0);
    }
    fprintf(f, "  speed: %.3g simulated ms per wall second; wall time per step %.3g ms\n",
            /* the steps this process ran (after a restart t_reached_ms includes the checkpoint's time) */
            loop > 0 ? (double)s->steps * cfg->dt / loop : 0.0, s->steps ? 1e3 * loop / s->steps : 0.0);
}
