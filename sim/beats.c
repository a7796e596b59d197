/* Per-beat maps from the latest-beat read-outs (hs_beats.h). */
#include "hs_beats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_atomic_file.h"
#include "hs_build_config.h"
#include "hs_frame.h"
#include "hs_par.h"
#include "hs_util.h"
#include "hs_vtk_dataset.h"
#if HS_HAS_MPI
#include <mpi.h>

#include "hs_backend_mpi.h"
#include "hs_mpi_status.h"
#endif

struct hs_beats {
    int32_t nn;
    int k_act, k_rep, k_beats;
    hs_state ro;        /* host copies of activation, repolarisation, beats */
    int n_beats, cap;   /* beats with arrays */
    double **act, **rep; /* [cap][nn], -1 where the node has no such beat */
    long skipped;       /* nodes whose beat count rose by more than one between two updates */
    double *last;       /* [nn] beats at the last update */
    const hs_series_part *part; /* a distributed run: this rank's owned nodes (nn of them); NULL serially */
};

hs_status hs_beats_create(const hs_sim *sim, const hs_state_desc *part_desc, const hs_series_part *part,
                          hs_beats **out)
{
    *out = NULL;
    hs_beats *b = NULL;
    const hs_state_desc *d = part ? part_desc : &sim->backend->state;
    HS_CALL(HS_ALLOC(b, 1, "beat maps"));
    hs_status st = HS_OK;
    b->part = part;
    b->nn = d->n_nodes;
    b->k_act = d->activation;
    b->k_rep = hs_state_find(d, "repolarisation");
    b->k_beats = hs_state_find(d, "beats");
    b->ro.desc = d;
    HS_CALL_GOTO(HS_ALLOC(b->ro.field[b->k_act], (size_t)b->nn + 1, "activation copy"), fail);
    HS_CALL_GOTO(HS_ALLOC(b->ro.field[b->k_rep], (size_t)b->nn + 1, "repolarisation copy"), fail);
    HS_CALL_GOTO(HS_ALLOC(b->ro.field[b->k_beats], (size_t)b->nn + 1, "beats copy"), fail);
    HS_CALL_GOTO(HS_ALLOC(b->last, (size_t)b->nn + 1, "beats copy"), fail);
    *out = b;
    return HS_OK;
fail:
    hs_beats_destroy(&b);
    return st;
}

static hs_status grow(hs_beats *b, int n)
{
    if (n <= b->cap) return HS_OK;
    int cap = b->cap ? 2 * b->cap : 4;
    while (cap < n) cap *= 2;
    double **a = realloc(b->act, sizeof *a * (size_t)cap), **r = a ? realloc(b->rep, sizeof *r * (size_t)cap) : NULL;
    if (a) b->act = a;
    if (r) b->rep = r;
    HS_CHECK(a && r, HS_ERR_MEMORY, "out of memory for %d beat maps", cap);
    for (int k = b->cap; k < cap; ++k) b->act[k] = b->rep[k] = NULL;
    for (int k = b->cap; k < cap; ++k) {
        hs_status st = HS_ALLOC(b->act[k], (size_t)b->nn + 1, "beat activation map");
        if (st == HS_OK) st = HS_ALLOC(b->rep[k], (size_t)b->nn + 1, "beat repolarisation map");
        if (st != HS_OK) { /* beat k has no arrays: hs_beats_destroy frees those below b->cap only */
            free(b->act[k]);
            b->act[k] = NULL;
            return st;
        }
        for (int32_t i = 0; i < b->nn; ++i) b->act[k][i] = b->rep[k][i] = -1.0;
        b->cap = k + 1;
    }
    return HS_OK;
}

hs_status hs_beats_update(hs_beats *b, hs_sim *sim)
{
    if (!b) return HS_OK;
#if HS_HAS_MPI
    if (b->part) /* this rank's owned nodes, no gather */
        HS_CALL(hs_backend_mpi_get_owned(sim->backend, &b->ro));
    else
#endif
        HS_CALL(sim->backend->ops->get_state(sim->backend, &b->ro));
    const double *act = b->ro.field[b->k_act], *rep = b->ro.field[b->k_rep], *beats = b->ro.field[b->k_beats];
    int k_max = 0; /* the arrays for every beat seen, first: the growth can fail */
    for (int32_t i = 0; i < b->nn; ++i) k_max = (int)beats[i] > k_max ? (int)beats[i] : k_max;
    hs_status st = grow(b, k_max);
#if HS_HAS_MPI
    /* a rank without the memory for a new beat stops every rank before their next collective, said
     * once (every frame: one more all-reduce of an int) */
    if (b->part) st = hs_par_agree(st);
#endif
    HS_CALL(st);
    for (int32_t i = 0; i < b->nn; ++i) {
        int k = (int)beats[i];
        if (k < 1) continue;
        if (k > b->n_beats) b->n_beats = k;
        if (beats[i] > b->last[i] + 1.0) b->skipped++;
        b->last[i] = beats[i];
        b->act[k - 1][i] = act[i];
        b->rep[k - 1][i] = rep[i];
    }
    return HS_OK;
}

hs_status hs_beats_write(hs_beats *b, const hs_sim *sim, hs_series *ser, const char *dir, const char *prefix,
                         double t_ms)
{
    if (!b) return HS_OK;
    int n_beats = b->n_beats;
    long skipped = b->skipped;
#if !HS_HAS_MPI
    (void)ser; /* the distributed run's series: a build without MPI has none */
#else
    if (b->part) { /* the beats any rank saw; a rank that saw fewer writes -1 for its nodes there */
        const MPI_Comm comm = *(const MPI_Comm *)b->part->comm;
        MPI_Allreduce(MPI_IN_PLACE, &n_beats, 1, MPI_INT, MPI_MAX, comm);
        MPI_Allreduce(MPI_IN_PLACE, &skipped, 1, MPI_LONG, MPI_SUM, comm);
    }
#endif
    if (n_beats < 2) return HS_OK;
    /* the arrays of every beat any rank saw, and the APD's: on a rank without the memory, every rank
     * stops here, before the gathers below */
    double *apd = NULL;
    hs_status st = grow(b, n_beats);
    if (st == HS_OK) st = HS_ALLOC(apd, (size_t)b->nn + 1, "beat APD map");
#if HS_HAS_MPI
    if (b->part) st = hs_par_agree(st);
#endif
    if (st != HS_OK) {
        free(apd);
        return st;
    }
    if (skipped)
        hs_warn("per-beat maps: %ld times a node started more than one beat within one output.interval; those "
                "beats are missing from the PREFIX_maps_beatK files (lower output.interval)", skipped);
    for (int k = 0; k < n_beats && st == HS_OK; ++k) {
        for (int32_t i = 0; i < b->nn; ++i)
            apd[i] = b->act[k][i] >= 0 && b->rep[k][i] >= 0 ? b->rep[k][i] - b->act[k][i] : -1.0;
        hs_frame fr = hs_frame_at(t_ms);
        st = hs_frame_add(&fr, "activation", 0, b->act[k]);
        if (st == HS_OK) st = hs_frame_add(&fr, "repolarisation", 0, b->rep[k]);
        if (st == HS_OK) st = hs_frame_add(&fr, "apd", 0, apd);
        char name[160], *path = NULL;
        snprintf(name, sizeof name, "%s_maps_beat%d.vtk", prefix, k + 1);
        if (st == HS_OK) st = hs_path_join(dir, name, &path);
#if HS_HAS_MPI
        /* each rank its owned nodes' maps, streamed to rank 0 in chunks and written as they come (as the
         * frames of a part series) */
        if (b->part) {
            st = hs_mpi_agree(*(const MPI_Comm *)b->part->comm, st, NULL); /* all to the gather, or none */
            if (st == HS_OK) st = hs_vtk_write_dataset_part(path, "beat map", b->part, ser, &fr);
        } else
#endif
            if (st == HS_OK) st = hs_vtk_write_dataset(path, "beat map", sim->mesh, &fr);
        if (st == HS_OK && k + 1 == n_beats) hs_log(1, "maps: %d beats, %s and the ones before\n", n_beats, path);
        free(path);
    }
    free(apd);
    return st;
}

void hs_beats_destroy(hs_beats **p)
{
    if (!p || !*p) return;
    hs_beats *b = *p;
    for (int k = 0; k < HS_STATE_MAX_FIELDS; ++k) free(b->ro.field[k]);
    for (int k = 0; k < b->cap; ++k) {
        free(b->act[k]);
        free(b->rep[k]);
    }
    free(b->act);
    free(b->rep);
    free(b->last);
    free(b);
    *p = NULL;
}
