#define _POSIX_C_SOURCE 200809L
#include "hs_frame_writer.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_config.h"
#include "hs_util.h"

enum { SLOT_FREE = 0, SLOT_FILLING, SLOT_QUEUED, SLOT_WRITING };

struct hs_frame_writer {
    hs_series *ser;
    const hs_mesh *mesh;
    int fields;
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

static void *writer_main(void *arg)
{
    hs_frame_writer *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->stop && w->state[w->next_write] != SLOT_QUEUED) pthread_cond_wait(&w->cv, &w->mu);
        if (w->state[w->next_write] != SLOT_QUEUED) break; /* stop with nothing queued */
        int s = w->next_write;
        w->state[s] = SLOT_WRITING;
        pthread_mutex_unlock(&w->mu);
        double t0 = hs_wtime();
        const hs_frame fr =
            hs_frame_of_fields(w->fields, w->time[s], w->buf[s].phi, w->buf[s].act, w->buf[s].r);
        hs_status st = HS_OK;
        if (w->src.wait) st = w->src.wait(w->src.ctx, s); /* the device's copy into this slot */
        if (st == HS_OK && w->err == HS_OK) { /* after a failure, drop later frames: the series stays as it was */
            st = hs_series_write(w->ser, w->mesh, &fr);
        }
        if (st != HS_OK) {
            snprintf(w->errmsg, sizeof w->errmsg, "%s", hs_error_message());
            hs_error_clear(); /* the message travels to the main thread through errmsg */
        }
        double dt = hs_wtime() - t0;
        pthread_mutex_lock(&w->mu);
        if (st != HS_OK && w->err == HS_OK) w->err = st;
        w->busy += dt;
        w->state[s] = SLOT_FREE;
        w->next_write = 1 - s;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

hs_frame hs_frame_of_fields(int fields, double t_ms, const double *phi, const double *act, const double *r)
{
    hs_frame fr = hs_frame_at(t_ms);
    /* four fields at most, so hs_frame_add cannot fail here */
    if ((fields & HS_FIELD_PHI) && phi) (void)hs_frame_add(&fr, "phi", 0, phi);
    /* Aliev-Panfilov's phi in [0,1] mapped to a resting -80 mV and a 20 mV peak */
    if ((fields & HS_FIELD_V) && phi) (void)hs_frame_add_mapped(&fr, "V", 0, phi, 100.0, -80.0);
    if ((fields & HS_FIELD_ACTIVATION) && act) (void)hs_frame_add(&fr, "activation", 0, act);
    if ((fields & HS_FIELD_R) && r) (void)hs_frame_add(&fr, "r", 1, r);
    fr.mesh_fields = (fields & HS_FIELD_FIBER ? HS_MESH_FIELD_FIBER : 0) |
                     (fields & HS_FIELD_REGION ? HS_MESH_FIELD_REGION : 0);
    return fr;
}

static hs_status raise_err(hs_frame_writer *w)
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

hs_status hs_frame_writer_create(hs_series *ser, const hs_mesh *mesh, int fields, const hs_frame_source *src,
                                 hs_frame_writer **out)
{
    *out = NULL;
    hs_frame_writer *w = NULL;
    HS_CALL(HS_ALLOC(w, 1, "frame writer"));
    w->ser = ser;
    w->mesh = mesh;
    w->fields = fields;
    if (src) w->src = *src;
    w->filling = -1;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    hs_status st = HS_OK;
    for (int s = 0; s < 2 && st == HS_OK; ++s) {
        w->buf[s].slot = s;
        st = buf_alloc(w, &w->buf[s].phi, (size_t)mesh->n_nodes, "frame buffer phi");
        if (st == HS_OK) st = buf_alloc(w, &w->buf[s].act, (size_t)mesh->n_nodes, "frame buffer activation");
        if (st == HS_OK) st = buf_alloc(w, &w->buf[s].r, (size_t)mesh->n_elems, "frame buffer r");
    }
    if (st == HS_OK && pthread_create(&w->th, NULL, writer_main, w) != 0)
        st = HS_FAIL(HS_ERR_INTERNAL, "cannot start the frame writer thread");
    else if (st == HS_OK)
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
    }
    pthread_mutex_unlock(&w->mu);
    return err == HS_OK ? HS_OK : raise_err(w);
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
    }
    pthread_mutex_unlock(&w->mu);
    HS_CHECK(s >= 0, HS_ERR_INTERNAL, "frame submitted without a buffer");
    return HS_OK;
}

hs_status hs_frame_writer_flush(hs_frame_writer *w)
{
    pthread_mutex_lock(&w->mu);
    while (w->state[0] == SLOT_QUEUED || w->state[0] == SLOT_WRITING || w->state[1] == SLOT_QUEUED ||
           w->state[1] == SLOT_WRITING)
        pthread_cond_wait(&w->cv, &w->mu);
    hs_status err = w->err;
    pthread_mutex_unlock(&w->mu);
    return err == HS_OK ? HS_OK : raise_err(w);
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
    for (int s = 0; s < 2; ++s) {
        if (w->buf[s].phi) fr(w->buf[s].phi);
        if (w->buf[s].r) fr(w->buf[s].r);
        if (w->buf[s].act) fr(w->buf[s].act);
    }
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w);
    *p = NULL;
}
