/**
 * @file hs_frame.h
 * @brief One output frame: its time and a list of named arrays, plus which of the mesh's own
 * arrays (fibre, region) go with it. The series (hs_series.h) writes point fields in list order,
 * then cell fields in list order, then the mesh arrays; the list's order is the files' order.
 * Output knows nothing of what a field means: the caller names it and says how to map it.
 */
#ifndef HS_FRAME_H
#define HS_FRAME_H

#include "hs_mesh.h"
#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most arrays of a frame: every field of a state (fem/hs_state.h: 69 for a model of 64 variables) and
 *  V (sim/frame_writer.c asserts it), with room to spare. */
enum { HS_FRAME_MAX_FIELDS = 80 };

/** The mesh's own arrays a frame carries (hs_frame.mesh_fields); skipped when the mesh has none. */
enum {
    HS_MESH_FIELD_FIBER = 1 << 0, /**< "fiber": fibre direction, cell data [n_elems][3] */
    HS_MESH_FIELD_REGION = 1 << 1 /**< "region": region marker, int cell data [n_elems] */
};

/** One named array of a frame. Borrowed: name and data must live until hs_series_write returns. */
typedef struct hs_frame_field {
    const char *name;    /**< array name in the files: letters, digits, '_' (not a digit first) */
    int cell;            /**< 0: point data [n_nodes], 1: cell data [n_elems] */
    const double *data;  /**< the values, never NULL */
    int mapped;          /**< 1: written value = scale * x + offset (in double); 0: x exactly */
    double scale, offset;
} hs_frame_field;

/** The arrays of one frame (hs_frame_add fills it). */
typedef struct hs_frame {
    double time_ms;
    int n_fields;                              /**< entries of field in use */
    hs_frame_field field[HS_FRAME_MAX_FIELDS]; /**< in the order they are written */
    int mesh_fields;                           /**< HS_MESH_FIELD_* bits */
} hs_frame;

/** @brief An empty frame at @p time_ms: no fields, no mesh arrays. */
hs_frame hs_frame_at(double time_ms);

/**
 * @brief Append a field written as it is. @param[in] name,data borrowed.
 * @return HS_ERR_INTERNAL when the frame already holds HS_FRAME_MAX_FIELDS fields.
 */
hs_status hs_frame_add(hs_frame *fr, const char *name, int cell, const double *data);

/** @brief Append a field written as scale * x + offset (e.g. V = 100 phi - 80 mV from phi). */
hs_status hs_frame_add_mapped(hs_frame *fr, const char *name, int cell, const double *data,
                              double scale, double offset);

/**
 * @brief What hs_series_write requires of a frame: at most HS_FRAME_MAX_FIELDS fields, each with
 * data, cell 0 or 1, and a name of letters, digits and '_' (not a digit first; VTK and XDMF take
 * it as it is) that no other field or asked-for mesh array has. HS_ERR_INTERNAL naming the field
 * otherwise: frames are built by the program, not the user.
 */
hs_status hs_frame_check(const hs_frame *fr);

/**
 * @brief The order every format writes fields in: indices into fr->field of the point fields in
 * list order, then of the cell fields in list order, into @p order. @return fr->n_fields.
 */
int hs_frame_order(const hs_frame *fr, int order[HS_FRAME_MAX_FIELDS]);

/** @brief The HS_MESH_FIELD_* bits of @p fr that @p mesh has arrays for: those written. */
int hs_frame_mesh_arrays(const hs_frame *fr, const hs_mesh *mesh);

#ifdef __cplusplus
}
#endif
#endif
