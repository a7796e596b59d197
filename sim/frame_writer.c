#define _POSIX_C_SOURCE 200809L
#include "hs_frame_writer.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_util.h"

enum { SLOT_FREE = 0, SLOT_FILLING, SLOT_QUEUED, SLOT_WRITING };

struct hs_frame_writer {
    hs_series *ser;
    const hs_mesh *mesh;
    hs_frame_plan plan;
    hs_frame_source src;
    hs_frame_bufs buf[2];
    int state[2];
    double time[2];
    int filling;          /* slot handed out by acquire, -1 when none */
    int next_write;       /* slots are written in submission order */
    int stop;
    hs_status err;        /* first write error (the thread's message is copied into errmsg) */
    char errmsg[1024];
    double busy;
    pthread_t th;
    int started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

_Static_assert(HS_STATE_MAX_FIELDS + 1 <= HS_FRAME_MAX_FIELDS, "every state field and V fit in a frame");

void hs_frame_plan_frame(const hs_frame_plan *p, const hs_state *state, double t_ms, hs_frame *fr)
{
    const hs_state_desc *d = p->desc;
    *fr = hs_frame_at(t_ms);
    fr->mesh_fields = (int)p->mesh_fields;
    /* in descriptor order; the series writes point fields first, then cell fields (hs_frame.h).
     * Every field and V fit (static assert above), so hs_frame_add cannot fail here. */
    for (int j = 0, k = 0; k < d->n_fields; ++k) {
        const int cell = d->f[k].where != HS_AT_NODE;
        if (j < p->fields.n && p->fields.k[j] == k) { /* the list is increasing */
            (void)hs_frame_add(fr, d->f[k].name, cell, state->field[k]);
            ++j;
        }
        if (k == HS_STATE_POTENTIAL && p->mv)
            (void)hs_frame_add_mapped(fr, "V", 0, state->field[k], p->mv_scale, p->mv_offset);
    }
}

/* Write the queued slot w->next_write; called and returns with w->mu held, which it releases while
 * it writes. */
static void write_next_locked(hs_frame_writer *w)
{
    int s = w->next_write;
    w->state[s] = SLOT_WRITING;
    pthread_mutex_unlock(&w->mu);
    double t0 = hs_wtime();
    hs_frame fr;
    hs_frame_plan_frame(&w->plan, &w->buf[s].state, w->time[s], &fr);
    hs_status st = HS_OK;
    if (w->src.wait) st = w->src.wait(w->src.ctx, s); /* the device's copy into this slot */
    if (st == HS_OK && w->err == HS_OK) { /* after a failure, drop later frames: the series stays as it was */
        st = hs_series_write(w->ser, w->mesh, &fr);
    }
    char msg[sizeof w->errmsg] = "";
    if (st != HS_OK) {
        snprintf(msg, sizeof msg, "%s", hs_error_message());
        hs_error_clear(); /* the message travels to the main thread through errmsg */
    }
    double dt = hs_wtime() - t0;
    pthread_mutex_lock(&w->mu);
    if (st != HS_OK && w->err == HS_OK) { /* the first error and its message, set together */
        w->err = st;
        memcpy(w->errmsg, msg, sizeof msg);
    }
    w->busy += dt;
    w->state[s] = SLOT_FREE;
    w->next_write = 1 - s;
    pthread_cond_broadcast(&w->cv);
}

static void *writer_main(void *arg)
{
    hs_frame_writer *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->stop && w->state[w->next_write] != SLOT_QUEUED) pthread_cond_wait(&w->cv, &w->mu);
        if (w->state[w->next_write] != SLOT_QUEUED) break; /* stop with nothing queued */
        write_next_locked(w);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* The writer's first error as this thread's error; call with w->mu held (errmsg is set once, under it). */
static hs_status raise_err_locked(hs_frame_writer *w)
{
    return HS_FAIL(w->err, "%s", w->errmsg);
}

static hs_status buf_alloc(hs_frame_writer *w, double **p, size_t n, const char *what)
{
    if (!w->src.alloc) return HS_ALLOC(*p, n, what);
    *p = w->src.alloc(sizeof(double) * (n ? n : 1));
    HS_CHECK(*p != NULL, HS_ERR_MEMORY, "cannot allocate %.1f MiB of page-locked memory for %s",
             sizeof(double) * (double)n / 1048576.0, what);
    return HS_OK;
}

hs_status hs_frame_writer_create(hs_series *ser, const hs_mesh *mesh, const hs_frame_plan *plan,
                                 const hs_frame_source *src, hs_frame_writer **out)
{
    *out = NULL;
    hs_frame_writer *w = NULL;
    HS_CALL(HS_ALLOC(w, 1, "frame writer"));
    w->ser = ser;
    w->mesh = mesh;
    w->plan = *plan;
    if (src) w->src = *src;
    w->filling = -1;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    hs_status st = HS_OK;
    /* buffers for the fields a frame shows (V is computed from the potential) */
    for (int s = 0; s < 2 && st == HS_OK; ++s) {
        w->buf[s].slot = s;
        w->buf[s].state.desc = plan->desc;
        for (int k = 0; k < plan->desc->n_fields && st == HS_OK; ++k)
            if (hs_field_list_has(&plan->fields, k) || (k == HS_STATE_POTENTIAL && plan->mv))
                st = buf_alloc(w, &w->buf[s].state.field[k], hs_state_field_len(plan->desc, k), plan->desc->f[k].name);
    }
    if (st == HS_OK && !w->src.sync && pthread_create(&w->th, NULL, writer_main, w) != 0)
        st = HS_FAIL(HS_ERR_INTERNAL, "cannot start the frame writer thread");
    else if (st == HS_OK && !w->src.sync)
        w->started = 1;
    if (st != HS_OK) {
        hs_frame_writer_destroy(&w);
        return st;
    }
    *out = w;
    return HS_OK;
}

hs_status hs_frame_writer_acquire(hs_frame_writer *w, hs_frame_bufs *b)
{
    pthread_mutex_lock(&w->mu);
    while (w->state[0] != SLOT_FREE && w->state[1] != SLOT_FREE && w->err == HS_OK) pthread_cond_wait(&w->cv, &w->mu);
    hs_status err = w->err;
    int s = w->state[w->next_write] == SLOT_FREE && w->state[1 - w->next_write] == SLOT_FREE
                ? w->next_write : (w->state[0] == SLOT_FREE ? 0 : 1);
    if (err == HS_OK) {
        w->state[s] = SLOT_FILLING;
        w->filling = s;
        *b = w->buf[s];
    } else {
        err = raise_err_locked(w);
    }
    pthread_mutex_unlock(&w->mu);
    return err;
}

hs_status hs_frame_writer_submit(hs_frame_writer *w, double t_ms)
{
    pthread_mutex_lock(&w->mu);
    int s = w->filling;
    if (s >= 0) {
        w->time[s] = t_ms;
        w->state[s] = SLOT_QUEUED;
        w->filling = -1;
        pthread_cond_broadcast(&w->cv);
        if (w->src.sync && s == w->next_write) write_next_locked(w); /* no thread: the caller writes */
    }
    hs_status err = s >= 0 && w->src.sync && w->err != HS_OK ? raise_err_locked(w) : HS_OK;
    pthread_mutex_unlock(&w->mu);
    HS_CHECK(s >= 0, HS_ERR_INTERNAL, "frame submitted without a buffer");
    return err;
}

hs_status hs_frame_writer_flush(hs_frame_writer *w)
{
    pthread_mutex_lock(&w->mu);
    while (w->state[0] == SLOT_QUEUED || w->state[0] == SLOT_WRITING || w->state[1] == SLOT_QUEUED ||
           w->state[1] == SLOT_WRITING)
        pthread_cond_wait(&w->cv, &w->mu);
    hs_status err = w->err == HS_OK ? HS_OK : raise_err_locked(w);
    pthread_mutex_unlock(&w->mu);
    return err;
}

double hs_frame_writer_busy(const hs_frame_writer *w) { return w->busy; }

void hs_frame_writer_destroy(hs_frame_writer **p)
{
    if (!p || !*p) return;
    hs_frame_writer *w = *p;
    if (w->started) {
        pthread_mutex_lock(&w->mu);
        w->stop = 1;
        pthread_cond_broadcast(&w->cv);
        pthread_mutex_unlock(&w->mu);
        pthread_join(w->th, NULL); /* the thread drains queued frames before it stops */
    }
    void (*fr)(void *) = w->src.alloc ? w->src.free : free;
    for (int s = 0; s < 2; ++s)
        for (int k = 0; k < HS_STATE_MAX_FIELDS; ++k)
            if (w->buf[s].state.field[k]) fr(w->buf[s].state.field[k]);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w);
    *p = NULL;
}
