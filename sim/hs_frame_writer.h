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
#include "hs_state.h"

typedef struct hs_frame_writer hs_frame_writer;

/** What a frame shows: state fields by descriptor index, the potential in mV, mesh arrays. */
typedef struct hs_frame_plan {
    const hs_state_desc *desc; /**< borrowed */
    hs_field_list fields;      /**< the state fields written (each by its name, as point or cell data) */
    int mv;                    /**< also the potential in mV, as "V", right after the potential */
    double mv_scale, mv_offset; /**< V = mv_scale u + mv_offset (the model's map) */
    unsigned mesh_fields;      /**< HS_MESH_FIELD_FIBER | HS_MESH_FIELD_REGION */
} hs_frame_plan;

/**
 * @brief The frame @p plan makes of @p state at @p t_ms: the potential, V right after it, the
 * other point fields, then the cell fields, each in descriptor order; then the mesh's arrays.
 * @p fr borrows the state's arrays.
 */
void hs_frame_plan_frame(const hs_frame_plan *plan, const hs_state *state, double t_ms, hs_frame *fr);

/** A buffer set to fill: the state fields the plan needs (the others NULL); slot 0 or 1. */
typedef struct hs_frame_bufs {
    hs_state state;
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
    /** 1: no writer thread; submit writes the frame in the calling thread (a series written
     *  collectively where MPI may be called from the main thread only: MPI_THREAD_FUNNELED). */
    int sync;
} hs_frame_source;

/**
 * @brief Start the writer thread. @param[in] ser series (borrowed; used only by the thread until
 * flush); @param[in] mesh borrowed (NULL for a series of hs_series_create_part: frames then hold the
 * rank's part, the plan's descriptor its sizes); @param[in] plan what each frame shows (copied; its descriptor
 * borrowed); @param[in] src buffer source (copied; NULL: host memory filled synchronously).
 */
hs_status hs_frame_writer_create(hs_series *ser, const hs_mesh *mesh, const hs_frame_plan *plan,
                                 const hs_frame_source *src, hs_frame_writer **out);
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
