#define _POSIX_C_SOURCE 200809L
/* A run's outputs (hs_run_output.h): frames, checkpoints and their ring, samples, per-beat maps and
 * the maps file. */
#include "hs_run_output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_build_config.h"
#include "hs_checkpoint.h"
#include "hs_frame_writer.h"
#include "hs_maps.h"
#include "hs_mesh_build.h"
#include "hs_par.h"
#include "hs_util.h"
#if HS_HAS_MPI
#include "hs_backend_mpi.h"
#endif

/* A distributed run's collective output: @p st over every rank (hs_par_agree): one rank's failure
 * (memory, rank 0's files) is every rank's before the next collective, said once by rank 0; an
 * error the ranks already share (an output series agrees among its ranks) is recorded as agreed, so
 * that app/ prints it once instead of every rank ending through MPI_Abort. Collective: only where
 * every rank goes alike. Serially @p st. */
static hs_status agree(const hs_run_output *o, hs_status st)
{
    return o->collective ? hs_par_agree(st) : st;
}

static hs_status frame_copy_wait(void *ctx, int slot)
{
    hs_backend *b = ctx;
    return b->ops->state_copy_wait(b, slot);
}

/* Checkpoints already in the directory: a fresh run starts a new history and removes them all; a
 * restart removes those after its step (the abandoned continuation, whose frames it rewrites). */
static hs_status checkpoints_prepare(hs_run_output *o, long restart_step)
{
    const hs_sim_spec *cfg = o->spec;
    long *steps = NULL;
    int n = 0;
    HS_CALL(hs_checkpoint_list(cfg->out_dir, cfg->out_prefix, &steps, &n));
    o->cap_ring = n + cfg->checkpoint_keep + 2;
    hs_status st = HS_ALLOC(o->ring, o->cap_ring, "checkpoint list");
    for (int i = 0; i < n && st == HS_OK; ++i) {
        if (steps[i] <= restart_step) {
            o->ring[o->n_ring++] = steps[i];
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

/* A collective series' part: this rank's owned nodes and the elements it reports, from the
 * distributed backend's own view (no global array). */
static hs_status collective_part(hs_run_output *o)
{
#if HS_HAS_MPI
    const hs_sim_spec *cfg = o->spec;
    hs_backend_mpi_view v;
    hs_backend_mpi_view_get(o->sim->backend, &v);
    const hs_mesh *lm = v.lmesh;
    const size_t ne = (size_t)v.n_elems_mine;
    HS_CALL(HS_ALLOC(o->part_tets, 4 * ne + 4, "output part"));
    HS_CALL(HS_ALLOC(o->part_region, ne + 1, "output part"));
    if (lm->fiber) HS_CALL(HS_ALLOC(o->part_fiber, 3 * ne + 3, "output part"));
    for (size_t e = 0; e < ne; ++e) {
        const size_t le = (size_t)v.elem_mine_local[e];
        for (int j = 0; j < 4; ++j) o->part_tets[4 * e + (size_t)j] = v.part->l2g[lm->tets[4 * le + (size_t)j]];
        o->part_region[e] = lm->region[le];
        if (lm->fiber) memcpy(o->part_fiber + 3 * e, lm->fiber + 3 * le, 3 * sizeof(double));
    }
    const hs_state_desc *g = &o->sim->backend->state;
    o->part = (hs_series_part){.comm = v.comm,
                               .n_nodes_global = v.part->n_global,
                               .n_elems_global = g->n_elems,
                               .n_nodes = v.part->n_owned,
                               .n_elems = v.n_elems_mine,
                               .node_gid = v.part->l2g, /* owned nodes first */
                               .elem_gid = v.elem_mine_global,
                               .xyz = lm->xyz,
                               .tets = o->part_tets,
                               .region = o->part_region,
                               .fiber = o->part_fiber,
                               .selection = HS_SERIES_SEL_AUTO};
    /* the model's variables where the scheme keeps them (nodes under splitting) */
    hs_state_desc_init_scheme(&o->part_desc, cfg->model, cfg->scheme.kind, v.part->n_owned, v.n_elems_mine);
    return HS_OK;
#else
    (void)o;
    return HS_FAIL(HS_ERR_INTERNAL, "a collective series without MPI");
#endif
}

hs_status hs_run_output_open(hs_run_output *o, const hs_sim_spec *cfg, hs_sim *sim, const hs_checkpoint *ck,
                             hs_state *scratch, hs_run_summary *sum)
{
    o->spec = cfg;
    o->sim = sim;
    o->sum = sum;
    o->scratch = scratch;
    o->last_ckpt = -1;
    o->enabled = cfg->output_enabled; /* every rank takes part in frames and checkpoints */
    o->writer = hs_run_output_is_writer(cfg);
    o->collective = cfg->distributed && cfg->output_enabled; /* every rank its part, whatever the format */
    const long k0 = ck ? (long)ck->h.step : 0;
    /* per-beat maps (a distributed run: on every rank, each its owned nodes, made with the part
     * below); only for a protocol that can give more than one beat (a stimulus with count > 1, or
     * several entries): their update copies the read-outs at every frame, a synchronisation a
     * one-beat run does not need (issue 17: 1.3 s of a 500 ms beat on the benchmark ventricle) */
    int multi = cfg->n_stimuli > 1;
    for (int i = 0; i < cfg->n_stimuli; ++i) multi |= cfg->stimuli[i].count > 1;
    if (o->enabled && multi && !o->collective) HS_CALL(hs_beats_create(sim, NULL, NULL, &o->beats));
    /* probes and ECG on every rank: each samples the nodes it owns, the rows are summed, rank 0 writes */
    HS_CALL(hs_samples_create(cfg, sim, ck ? k0 * cfg->dt : -1.0, &o->smp));
    if (!o->enabled || (!o->writer && !o->collective)) return HS_OK;
    hs_frame_plan plan = hs_sim_frame_plan(cfg, sim);
    if (o->collective) {
        /* every rank its own nodes and elements (collectively, or streamed to rank 0 in chunks for a
         * format that cannot: hs_series_create_part), in the main thread: MPI is funnelled, so no MPI
         * call from the writer thread. Rank 0's checkpoint list (its directory) and each rank's
         * arrays first: one rank's failure is every rank's before the series' collectives. */
        hs_status st = o->writer ? checkpoints_prepare(o, ck ? k0 : -1) : HS_OK;
        if (st == HS_OK) st = collective_part(o);
        if (st == HS_OK && multi) st = hs_beats_create(sim, &o->part_desc, &o->part, &o->beats);
        HS_CALL(agree(o, st));
        st = hs_series_create_part(cfg->out_format, cfg->out_dir, cfg->out_prefix, &o->part, &o->ser);
        if (st == HS_OK && ck) st = hs_series_resume(o->ser, ck->frame_times, (int)ck->h.n_frames);
        plan.desc = &o->part_desc;
        const hs_frame_source sync = {.sync = 1};
        if (st == HS_OK) st = hs_frame_writer_create(o->ser, NULL, &plan, &sync, &o->fw);
        return agree(o, st);
    }
    if (o->writer) HS_CALL(checkpoints_prepare(o, ck ? k0 : -1));
    HS_CALL(hs_series_create(cfg->out_format, cfg->out_dir, cfg->out_prefix, &o->ser));
    if (ck) HS_CALL(hs_series_resume(o->ser, ck->frame_times, (int)ck->h.n_frames));
    hs_frame_source src = {0};
    if (sim->backend->ops->state_copy_start)
        src = (hs_frame_source){sim->backend->ops->host_alloc, sim->backend->ops->host_free, frame_copy_wait,
                                sim->backend, 0};
    HS_CALL(hs_frame_writer_create(o->ser, sim->mesh, &plan, &src, &o->fw));
    return HS_OK;
}

/* A frame: the state is copied out of the backend and the writer thread writes it while the time
 * loop goes on. A backend with state_copy_start (cuda) only enqueues a snapshot and its copy into
 * the writer's page-locked buffers; the writer thread waits for that copy (frame_copy_wait), so
 * neither the main thread nor the device waits for the frame. Otherwise (cpu) get_state copies.
 * A distributed run: every rank copies out its owned values (hs_backend_mpi_get_owned, no gather)
 * and hands them to its part series in this thread (collective, or streamed to rank 0 in chunks). */
hs_status hs_run_output_frame(hs_run_output *o, double t_ms)
{
    hs_backend *b = o->sim->backend;
    double t0 = hs_wtime();
    HS_CHECK(o->fw, HS_ERR_INTERNAL, "a frame without output"); /* frames come only with output on */
    hs_frame_bufs fb;
#if HS_HAS_MPI
    if (o->collective) { /* this rank's values, no gather; rank 0's write failure said once */
        HS_CALL(agree(o, hs_frame_writer_acquire(o->fw, &fb)));
        HS_CALL(hs_backend_mpi_get_owned(b, &fb.state)); /* collective, agreed by the backend */
        HS_CALL(agree(o, hs_frame_writer_submit(o->fw, t_ms)));
        o->sum->frames++;
        o->sum->wall_output += hs_wtime() - t0;
        return HS_OK;
    }
#endif
    HS_CALL(hs_frame_writer_acquire(o->fw, &fb));
    if (b->ops->state_copy_start)
        HS_CALL(b->ops->state_copy_start(b, fb.slot, &fb.state));
    else
        HS_CALL(b->ops->get_state(b, &fb.state));
    HS_CALL(hs_frame_writer_submit(o->fw, t_ms));
    o->sum->frames++;
    o->sum->wall_output += hs_wtime() - t0;
    return HS_OK;
}

hs_status hs_run_output_flush(hs_run_output *o)
{
    return o->fw ? agree(o, hs_frame_writer_flush(o->fw)) : HS_OK;
}

hs_status hs_run_output_checkpoint(hs_run_output *o, long step)
{
    const hs_sim_spec *cfg = o->spec;
    hs_backend *b = o->sim->backend;
    HS_CALL(hs_run_output_flush(o));
    HS_CALL(hs_samples_flush(o->smp)); /* the CSVs hold every sample up to the checkpoint (agreed) */
    hs_extrap ex;
    hs_checkpoint_path(cfg->out_dir, cfg->out_prefix, step, o->ckpt_path, sizeof o->ckpt_path);
#if HS_HAS_MPI
    /* every rank its own values into the one file (version 4), no gather; on one rank the gather is
     * a copy, and the serial run's file (version 3) keeps mpirun -np 1 byte for byte a serial run */
    hs_backend_mpi_view view = {0};
    if (o->collective) hs_backend_mpi_view_get(b, &view);
    if (o->collective && view.part->n_ranks > 1) {
        /* this rank's arrays first: one rank without the memory stops every rank before the gathers */
        hs_status st = o->part_state.desc ? HS_OK : hs_state_create(&o->part_desc, &o->part_state);
        for (int q = 0; q < 2 && cfg->extrapolate > 0 && st == HS_OK; ++q)
            if (!o->part_hist[q]) st = HS_ALLOC(o->part_hist[q], (size_t)o->part.n_nodes + 1, "checkpoint history");
        HS_CALL(agree(o, st));
        HS_CALL(hs_backend_mpi_get_owned(b, &o->part_state));
        HS_CALL(hs_backend_mpi_get_owned_history(b, &ex, o->part_hist[0], o->part_hist[1]));
        const hs_ckpt_part cp = {o->part.comm, &o->part_state, o->part.n_nodes, o->part.n_elems, o->part.node_gid,
                                 o->part.elem_gid, &ex, {o->part_hist[0], o->part_hist[1]}};
        HS_CALL(agree(o, hs_checkpoint_write_part(o->ckpt_path, step, step * cfg->dt, cfg->dt, cfg->config_fp,
                                                  o->sim->mesh, hs_series_count(o->ser), hs_series_times(o->ser), &cp)));
    } else
#endif
    {
        /* the whole mesh's history: made here, not at open, so that ranks writing their parts never hold it */
        for (int q = 0; q < 2 && cfg->extrapolate > 0; ++q)
            if (!o->hist[q]) HS_CALL(HS_ALLOC(o->hist[q], (size_t)o->sim->mesh->n_nodes + 1, "checkpoint history"));
        HS_CALL(hs_state_ensure(o->scratch));
        HS_CALL(b->ops->get_state(b, o->scratch));
        HS_CALL(b->ops->get_history(b, &ex, o->hist[0], o->hist[1]));
        if (o->writer)
            HS_CALL(hs_checkpoint_write(o->ckpt_path, step, step * cfg->dt, cfg->dt, cfg->config_fp, o->sim->mesh,
                                        hs_series_count(o->ser), hs_series_times(o->ser), o->scratch, &ex, o->hist));
    }
    o->last_ckpt = step;
    if (!o->writer) return HS_OK;
    int j = 0; /* the ring without this step (rewritten in place), then this step at its end */
    for (int i = 0; i < o->n_ring; ++i)
        if (o->ring[i] != step) o->ring[j++] = o->ring[i];
    o->ring[j++] = step;
    o->n_ring = j;
    int drop = o->n_ring - cfg->checkpoint_keep;
    for (int i = 0; i < drop; ++i) {
        char old[HS_PATH_MAX + 64];
        hs_checkpoint_path(cfg->out_dir, cfg->out_prefix, o->ring[i], old, sizeof old);
        if (unlink(old) != 0 && errno != ENOENT) hs_warn("cannot remove old checkpoint %s: %s", old, strerror(errno));
    }
    if (drop > 0) {
        memmove(o->ring, o->ring + drop, sizeof *o->ring * (size_t)(o->n_ring - drop));
        o->n_ring -= drop;
    }
    hs_log(2, "checkpoint: %s (t = %g ms)\n", o->ckpt_path, step * cfg->dt);
    return HS_OK;
}

/* The maps file (output/hs_maps.h) at the end of a run: the node fields of the state descriptor
 * named here, whatever output.fields says. A repolarisation or APD map that the descriptor gains
 * is one more name. */
static const char *const map_fields[] = {"activation", "repolarisation", "apd", "beats"};

typedef struct maps_ctx {
    const hs_sim_spec *spec;
    char *path;
} maps_ctx;

/* a serial run's maps file (a distributed run's: hs_maps_write_part) */
static hs_status maps_write_whole(void *ctx, const hs_mesh *mesh, const hs_frame *fr)
{
    maps_ctx *c = ctx;
    return hs_maps_write(c->spec->out_dir, c->spec->out_prefix, mesh, fr, &c->path);
}

static hs_status write_maps(const hs_run_output *o, double t_ms)
{
    const hs_sim *sim = o->sim;
    /* a distributed run: each rank its owned nodes' values (no gather onto every rank), the mesh and
     * maps streamed to rank 0 in chunks as a part series' frames are, and written as they come: no
     * rank holds the whole mesh or a whole map (the box's ranks never build it) */
    const hs_state_desc *d = o->collective ? &o->part_desc : &sim->backend->state;
    hs_state maps = {d, {NULL}};
    hs_frame fr = hs_frame_at(t_ms);
    hs_status st = HS_OK;
    maps_ctx ctx = {o->spec, NULL};
    for (size_t m = 0; m < sizeof map_fields / sizeof map_fields[0] && st == HS_OK; ++m)
        for (int k = 0; k < d->n_fields && st == HS_OK; ++k) {
            if (strcmp(d->f[k].name, map_fields[m]) != 0 || d->f[k].where != HS_AT_NODE) continue;
            st = HS_ALLOC(maps.field[k], hs_state_field_len(d, k) + 1, "maps file");
            if (st == HS_OK) st = hs_frame_add(&fr, d->f[k].name, 0, maps.field[k]);
        }
    /* one rank without the memory stops every rank before the gathers below, said once */
    HS_CALL_GOTO(agree(o, st), done);
    /* the regions entry of each element */
    if (o->spec->n_regions > 0) fr.mesh_fields |= HS_MESH_FIELD_REGION;
#if HS_HAS_MPI
    if (o->collective) {
        HS_CALL_GOTO(hs_backend_mpi_get_owned(sim->backend, &maps), done);
        HS_CALL_GOTO(agree(o, hs_maps_write_part(o->spec->out_dir, o->spec->out_prefix, &o->part, o->ser, &fr,
                                                 &ctx.path)), done);
    } else
#endif
    {
        HS_CALL_GOTO(sim->backend->ops->get_state(sim->backend, &maps), done);
        if (!o->writer) goto done;
        HS_CALL_GOTO(maps_write_whole(&ctx, sim->mesh, &fr), done);
    }
    if (o->writer) hs_log(1, "maps: %s (t = %g ms)\n", ctx.path, t_ms);
done:
    free(ctx.path);
    for (int k = 0; k < HS_STATE_MAX_FIELDS; ++k) free(maps.field[k]);
    return st;
}

hs_status hs_run_output_finish(hs_run_output *o, hs_status st, int loop_ran)
{
    const hs_sim_spec *cfg = o->spec;
    hs_run_summary *sum = o->sum;
    if (o->fw) {
        /* every queued frame reaches the disk before the run reports; a write error that the
         * time loop has not seen yet becomes the run's error */
        double tf = hs_wtime();
        hs_status s2 = hs_frame_writer_flush(o->fw);
        sum->wall_output += hs_wtime() - tf;
        if (st == HS_OK) st = s2;
        sum->wall_writer = hs_frame_writer_busy(o->fw);
        hs_frame_writer_destroy(&o->fw);
    }
    /* In a distributed run the samples' fetch and the maps' gather are collective: only after the run
     * ended the same way on every rank (success, or an error all ranks agreed on: numerical,
     * interrupted, or one agreed by hs_par_agree or the backend); a rank's own error ends every rank
     * through MPI_Abort in app/ instead. What fails here on one rank (rank 0's CSV or plot, a rank's
     * memory) is agreed before the next collective, so every rank still ends with one message. */
    const int alike = !cfg || !cfg->distributed || st == HS_OK || st == HS_ERR_NUMERIC || st == HS_ERR_INTERRUPTED ||
                      (int)st == hs_par_agreed();
    if (o->smp) {
        hs_status s2 = alike ? hs_samples_flush(o->smp) : HS_OK; /* agreed over the ranks */
        if (s2 == HS_OK) s2 = hs_samples_plot(o->smp); /* also after a failure: the curves so far (rank 0) */
        if (alike && cfg && cfg->distributed) s2 = hs_par_agree(s2);
        if (st == HS_OK) st = s2;
        hs_samples_destroy(&o->smp);
    }
    if (!cfg) return st; /* never opened */
    if ((o->ser || (o->enabled && !o->writer)) && o->sim->backend && loop_ran && alike) {
        /* the maps as they stand, also after a failure (the last converged state) or a signal; each
         * step agreed over the ranks (write_maps, sim/beats.c), so the ranks go on together */
        hs_status s2 = write_maps(o, sum->t_reached_ms);
        if (s2 == HS_OK && o->beats) s2 = hs_beats_update(o->beats, o->sim);
        if (s2 == HS_OK && o->beats && (o->writer || o->collective))
            s2 = hs_beats_write(o->beats, o->sim, o->ser, cfg->out_dir, cfg->out_prefix, sum->t_reached_ms);
        s2 = agree(o, s2); /* the per-beat maps' error (agreed on their communicator) recorded: said once */
        if (st == HS_OK) st = s2;
        else if (s2 != HS_OK) hs_log(1, "maps: not written\n");
    }
    return st;
}

void hs_run_output_close(hs_run_output *o)
{
    if (o->ser) hs_log(1, "output: %d frames, index %s\n", hs_series_count(o->ser), hs_series_index_path(o->ser));
    hs_series_destroy(&o->ser);
    hs_frame_writer_destroy(&o->fw);
    hs_samples_destroy(&o->smp);
    hs_beats_destroy(&o->beats);
    free(o->hist[0]);
    free(o->hist[1]);
    free(o->ring);
    free(o->part_tets);
    free(o->part_region);
    free(o->part_fiber);
    hs_state_destroy(&o->part_state);
    free(o->part_hist[0]);
    free(o->part_hist[1]);
    o->part_hist[0] = o->part_hist[1] = NULL;
    o->hist[0] = o->hist[1] = NULL;
    o->ring = NULL;
    o->part_tets = NULL;
    o->part_region = NULL;
    o->part_fiber = NULL;
}
