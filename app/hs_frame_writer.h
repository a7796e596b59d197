/**
 * @file hs_frame_writer.h
 * @brief Frames written by a host thread while the time loop goes on. Two buffer sets: the main
 * thread fills one from the backend (the only stall: a device-to-host copy) and hands it over; the
 * writer thread writes it with hs_series_write, in whichever format the series has (hs_series.h).
 * When both sets are still being written the main thread waits (back-pressure), so memory stays
 * bounded. Frames are written in submission order.
 */
#ifndef HS_FRAME_WRITER_H
#define HS_FRAME_WRITER_H

#include <stddef.h>

#include "hs_mesh.h"
#include "hs_status.h"
#include "hs_series.h"

typedef struct hs_frame_writer hs_frame_writer;

/** A buffer set to fill: phi [n_nodes], r [n_elems], act [n_nodes]; slot 0 or 1. */
typedef struct hs_frame_bufs {
    double *phi, *r, *act;
    int slot;
} hs_frame_bufs;

/**
 * Where the buffers come from when a device fills them asynchronously (the cuda backend's
 * state_copy_start): buffers from @p alloc (page-locked), and @p wait(ctx, slot), called by the
 * writer thread before it writes that slot, returns once the device's copy into it is complete.
 * So the main thread only enqueues the copy and goes on; the device keeps computing.
 */
typedef struct hs_frame_source {
    void *(*alloc)(size_t bytes); /**< NULL: malloc */
    void (*free)(void *p);
    hs_status (*wait)(void *ctx, int slot); /**< NULL: the buffers are filled when submitted */
    void *ctx;
} hs_frame_source;

/**
 * @brief Start the writer thread. @param[in] ser series (borrowed; used only by the thread until
 * flush); @param[in] mesh borrowed; @param[in] fields HS_FIELD_* bits; @param[in] src buffer source
 * (copied; NULL: host memory filled synchronously).
 */
hs_status hs_frame_writer_create(hs_series *ser, const hs_mesh *mesh, int fields, const hs_frame_source *src,
                                 hs_frame_writer **out);
/**
 * @brief The frame at @p t_ms of the output.fields bits @p fields (HS_FIELD_*, hs_config.h) over
 * the state buffers, in the order phi, V (= 100 phi - 80 mV, from phi), activation, r, then the
 * mesh's fibre and region. @param[in] phi,act [n_nodes], r [n_elems]: borrowed by the frame; a
 * NULL buffer leaves its fields out.
 */
hs_frame hs_frame_of_fields(int fields, double t_ms, const double *phi, const double *act, const double *r);
/** @brief A free buffer set (waits while both are being written). Reports an earlier write error. */
hs_status hs_frame_writer_acquire(hs_frame_writer *w, hs_frame_bufs *b);
/** @brief Queue the acquired set as the frame at time t_ms. */
hs_status hs_frame_writer_submit(hs_frame_writer *w, double t_ms);
/** @brief Wait until every queued frame is written; the first write error, if any. */
hs_status hs_frame_writer_flush(hs_frame_writer *w);
/** @brief Seconds the writer thread spent writing. */
double hs_frame_writer_busy(const hs_frame_writer *w);
/** @brief Flush, stop the thread, free; accepts NULL and sets *p = NULL. */
void hs_frame_writer_destroy(hs_frame_writer **p);

#endif
