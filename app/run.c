/* heartsim run: set-up from the config, the time loop, frames, failure handling, summary. */
#include "hs_run.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "hs_backend_select.h"
#include "hs_frame_writer.h"
#include "hs_progress.h"
#include "hs_util.h"
#include "hs_vtk.h"

hs_status hs_mesh_from_config(const hs_config *cfg, hs_mesh **out)
{
    *out = NULL;
    hs_mesh *m = NULL;
    if (strcmp(cfg->mesh_source, "box") == 0) {
        HS_CALL(hs_mesh_create_box(&cfg->box, &m));
    } else if (strcmp(cfg->mesh_source, "tetgen") == 0) {
        char node[HS_PATH_MAX + 8], ele[HS_PATH_MAX + 8];
        snprintf(node, sizeof node, "%s.node", cfg->mesh_file);
        snprintf(ele, sizeof ele, "%s.ele", cfg->mesh_file);
        HS_CALL(hs_mesh_read_tetgen(node, ele, &m));
    } else {
        return HS_FAIL(HS_ERR_CONFIG, "mesh.source: unknown source \"%s\"; available: box, tetgen",
                       cfg->mesh_source);
    }
    hs_status st = hs_mesh_check(m);
    if (st == HS_OK) st = hs_mesh_set_fibers_constant(m, cfg->fiber_dir);
    if (st != HS_OK) {
        hs_mesh_destroy(&m);
        return st;
    }
    *out = m;
    return HS_OK;
}

static void problem_opts_from_config(const hs_config *cfg, hs_problem_opts *o)
{
    memset(o, 0, sizeof *o);
    o->ap = (hs_ap_params){cfg->c, cfg->alpha, cfg->gamma, cfg->b, cfg->mu1, cfg->mu2, cfg->recovery};
    o->time_unit = cfg->time_unit;
    o->d_iso = cfg->d_iso;
    o->d_ani = cfg->d_ani;
    o->cg.tol = cfg->cg_tol;
    o->cg.max_iter = cfg->cg_max_iter;
    o->newton_tol_residual = cfg->newton_tol_residual;
    o->newton_tol_update = cfg->newton_tol_update;
    o->newton_max_iter = cfg->newton_max_iter;
    o->activation_phi = (cfg->activation_threshold + 80.0) / 100.0;
    o->spmv_params = cfg->spmv_params;
}

hs_status hs_sim_create(const hs_config *cfg, hs_sim *sim)
{
    memset(sim, 0, sizeof *sim);
    hs_status st = HS_OK;
    double t0 = hs_wtime();
    if (cfg->threads > 0) omp_set_num_threads(cfg->threads); /* solver.threads; 0 keeps OMP_NUM_THREADS */
    HS_CALL_GOTO(hs_mesh_from_config(cfg, &sim->mesh), fail);
    double vol, hmin, hmean, hmax;
    hs_mesh_stats(sim->mesh, &vol, &hmin, &hmean, &hmax);
    hs_log(1, "mesh: %d nodes, %d tetrahedra, volume %.4g mm^3, edges %.3g / %.3g / %.3g mm (min/mean/max)\n",
           sim->mesh->n_nodes, sim->mesh->n_elems, vol, hmin, hmean, hmax);
    hs_reorder_kind rk = strcmp(cfg->mesh_reorder, "rcm") == 0 ? HS_REORDER_RCM : HS_REORDER_NONE;
    hs_reorder_report rep;
    HS_CALL_GOTO(hs_mesh_reorder(sim->mesh, rk, &rep), fail);
    if (rk == HS_REORDER_RCM)
        hs_log(1, "reorder: reverse Cuthill-McKee, node bandwidth %lld -> %lld\n",
               (long long)rep.bandwidth_before, (long long)rep.bandwidth_after);
    else
        hs_log(1, "reorder: none (node bandwidth %lld)\n", (long long)rep.bandwidth_before);
    int use_cuda = 0;
    HS_CALL_GOTO(hs_backend_choose(cfg->backend, &use_cuda), fail);
    hs_problem_opts po;
    problem_opts_from_config(cfg, &po);
    char why[1400];
    HS_CALL_GOTO(hs_spmv_choose(cfg->spmv, use_cuda, sim->mesh, &po.spmv_params, &po.spmv, why, sizeof why), fail);
    HS_CHECK_GOTO(use_cuda || !po.spmv->needs_device, fail, HS_ERR_CONFIG,
                  "solver.spmv: kernel \"%s\" runs only on the cuda backend, and this run uses the cpu "
                  "backend; use solver.spmv = \"auto\" or a kernel that `heartsim kernels` lists for cpu",
                  po.spmv->name);
    if (why[0]) hs_log(1, "spmv: %s\n", why);
    if (po.spmv->node_order) {
        /* the format wants its own numbering (no scatter): renumber the mesh, so everything that
         * follows (pattern, maps, state, output) lives in it */
        hs_csr *pat = NULL;
        int32_t *perm = NULL;
        HS_CALL_GOTO(hs_csr_from_tets(sim->mesh->n_nodes, sim->mesh->n_elems, sim->mesh->tets, &pat), fail);
        st = HS_ALLOC(perm, sim->mesh->n_nodes, "format numbering");
        if (st == HS_OK) st = po.spmv->node_order(pat, &po.spmv_params, perm);
        if (st == HS_OK) st = hs_mesh_renumber(sim->mesh, perm);
        hs_csr_destroy(&pat);
        free(perm);
        if (st != HS_OK) goto fail;
        hs_log(1, "reorder: nodes renumbered in the order %s needs (node bandwidth now %lld)\n", po.spmv->name,
               (long long)hs_mesh_bandwidth(sim->mesh));
    }
    /* stimulus sites hold element indices: only now is the element numbering final */
    HS_CALL_GOTO(hs_stim_set_create(sim->mesh, cfg->stimuli, cfg->n_stimuli, &sim->stim), fail);
    if (cfg->n_stimuli == 0) hs_warn("no stimulus configured: the tissue stays at rest");
    HS_CALL_GOTO(hs_problem_create(sim->mesh, sim->stim, &po, &sim->prob), fail);
    hs_log(1, "matrix: %d rows, %d nonzeros (%.1f per row)\n", sim->prob->pattern->n_rows,
           sim->prob->pattern->nnz, (double)sim->prob->pattern->nnz / sim->prob->pattern->n_rows);
    HS_CALL_GOTO(hs_backend_create_kind(use_cuda, sim->prob, &sim->backend), fail);
    hs_log(1, "backend: %s\n", sim->backend->description);
    hs_log(2, "set-up took %.3f s\n", hs_wtime() - t0);
    return HS_OK;
fail:
    hs_sim_destroy(sim);
    return st;
}

void hs_sim_destroy(hs_sim *sim)
{
    hs_backend_destroy(&sim->backend);
    hs_problem_destroy(&sim->prob);
    hs_stim_set_destroy(&sim->stim);
    hs_mesh_destroy(&sim->mesh);
}

/* A frame: the state is copied out of the backend (the main thread's only stall) and the writer
 * thread writes it while the time loop goes on. */
static hs_status write_frame(hs_frame_writer *fw, const hs_sim *sim, double t_ms, hs_run_summary *sum)
{
    double t0 = hs_wtime();
    hs_frame_bufs fb;
    HS_CALL(hs_frame_writer_acquire(fw, &fb));
    HS_CALL(sim->backend->ops->get_state(sim->backend, fb.phi, fb.r, fb.act));
    HS_CALL(hs_frame_writer_submit(fw, t_ms));
    sum->frames++;
    sum->wall_output += hs_wtime() - t0;
    return HS_OK;
}

hs_status hs_run(const hs_config *cfg, hs_run_summary *sum)
{
    memset(sum, 0, sizeof *sum);
    hs_status st = HS_OK;
    double w0 = hs_wtime();
    hs_sim sim;
    hs_vtk_series *ser = NULL;
    hs_frame_writer *fw = NULL;
    double *amp = NULL;
    memset(&sim, 0, sizeof sim);

    /* An unwritable output directory must fail before any work is done. */
    if (cfg->output_enabled) HS_CALL(hs_output_dir_check(cfg->out_dir));
    HS_CALL_GOTO(hs_sim_create(cfg, &sim), done);
    snprintf(sum->backend, sizeof sum->backend, "%s", sim.backend->description);
    HS_CALL_GOTO(HS_ALLOC(amp, sim.stim->n_sites + 1, "stimulus amplitudes"), done);
    if (cfg->output_enabled) {
        HS_CALL_GOTO(hs_vtk_series_create(cfg->out_dir, cfg->out_prefix, &ser), done);
        HS_CALL_GOTO(hs_frame_writer_create(ser, sim.mesh, cfg->out_fields, &fw), done);
    }
    sum->wall_setup = hs_wtime() - w0;

    const double dt = cfg->dt;
    const long n_steps = (long)ceil(cfg->t_end / dt - 1e-9);
    long next_frame = 0; /* index of the next frame: due at next_frame * interval */
    double last_frame_t = -1.0;
    if (fw) {
        HS_CALL_GOTO(write_frame(fw, &sim, 0.0, sum), done);
        last_frame_t = 0.0;
        next_frame = 1;
    }
    hs_progress prog;
    hs_progress_init(&prog, stderr, n_steps * dt, hs_verbosity >= 1);
    hs_step_stats ss = {0};
    for (long k = 0; k < n_steps; ++k) {
        double t = k * dt, t1 = (k + 1) * dt;
        hs_stim_set_amplitudes(sim.stim, t, t1, amp);
        st = hs_time_step(sim.backend, t, dt, amp, &ss);
        if (st != HS_OK) {
            hs_progress_finish(&prog);
            /* The backend is back at the last converged state: keep it as the final frame. */
            if (fw && last_frame_t < t - 1e-9 * dt) {
                hs_status s2 = write_frame(fw, &sim, t, sum);
                if (s2 == HS_OK) s2 = hs_frame_writer_flush(fw);
                if (s2 == HS_OK)
                    hs_log(1, "wrote the last converged state (t = %.4g ms) as frame %d\n", t,
                           hs_vtk_series_count(ser) - 1);
            }
            goto done;
        }
        sum->steps++;
        sum->newton_iters += ss.newton_iters;
        sum->cg_iters += ss.cg_iters;
        sum->t_reached_ms = t1;
        if (fw && t1 >= next_frame * cfg->out_interval - 1e-9 * dt) {
            HS_CALL_GOTO(write_frame(fw, &sim, t1, sum), done);
            last_frame_t = t1;
            while (next_frame * cfg->out_interval <= t1 + 1e-9 * dt) ++next_frame;
        }
        hs_progress_update(&prog, t1, sum->steps, ss.newton_iters, ss.cg_iters, k + 1 == n_steps);
    }
    hs_progress_finish(&prog);
done:
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
    if (sim.backend) sim.backend->ops->get_times(sim.backend, &sum->phases);
    sum->wall_total = hs_wtime() - w0;
    if (ser) hs_log(1, "output: %d frames, index %s\n", hs_vtk_series_count(ser), hs_vtk_series_index_path(ser));
    hs_vtk_series_destroy(&ser);
    free(amp);
    hs_sim_destroy(&sim);
    return st;
}

void hs_run_summary_print(const hs_run_summary *s, const hs_config *cfg, FILE *f)
{
    double loop = s->wall_total - s->wall_setup;
    fprintf(f, "summary: %ld steps of %g ms to t = %g ms on %s\n", s->steps, cfg->dt, s->t_reached_ms,
            s->backend);
    fprintf(f, "  wall time %.3f s (set-up %.3f s, time loop %.3f s)\n", s->wall_total, s->wall_setup, loop);
    char spmv[64];
    if (s->phases.spmv >= 0) snprintf(spmv, sizeof spmv, "SpMV %.3f s", s->phases.spmv);
    else snprintf(spmv, sizeof spmv, "SpMV not timed in runs: see bench step");
    fprintf(f, "  phases: element %.3f s, assembly %.3f s, solve %.3f s (%s), output %.3f s (%d frames; "
               "the writer thread wrote for %.3f s alongside)\n",
            s->phases.element, s->phases.assembly, s->phases.solve, spmv, s->wall_output, s->frames, s->wall_writer);
    fprintf(f, "  iterations: %ld Newton (%.2f per step), %ld CG (%.1f per Newton iteration)\n",
            s->newton_iters, s->steps ? (double)s->newton_iters / s->steps : 0.0, s->cg_iters,
            s->newton_iters ? (double)s->cg_iters / s->newton_iters : 0.0);
    fprintf(f, "  speed: %.3g simulated ms per wall second, %.3g ms wall per step\n",
            loop > 0 ? s->t_reached_ms / loop : 0.0, s->steps ? 1e3 * loop / s->steps : 0.0);
}
