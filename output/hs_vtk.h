/**
 * @file hs_vtk.h
 * @brief VTK legacy binary frames plus a `.vtk.series` index that ParaView opens as one animation.
 *
 * ParaView's .pvd reader only accepts XML VTK files, so legacy frames are indexed with the
 * JSON `.vtk.series` format: {"file-series-version":"1.0","files":[{"name":..,"time":..},..]}.
 * Every file is written to a temporary name and renamed into place, so a frame or index that
 * exists is complete; the index is rewritten after each frame, so it is valid at any moment.
 */
#ifndef HS_VTK_H
#define HS_VTK_H

#include "hs_mesh.h"
#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Output field bits (output.fields). */
enum {
    HS_FIELD_PHI = 1 << 0,        /**< "phi": normalised potential, point data */
    HS_FIELD_V = 1 << 1,          /**< "V": transmembrane potential in mV = 100 phi - 80 */
    HS_FIELD_ACTIVATION = 1 << 2, /**< "activation": first upward crossing time in ms, -1 before */
    HS_FIELD_R = 1 << 3,          /**< "r": recovery variable, cell data */
    HS_FIELD_FIBER = 1 << 4,      /**< "fiber": fibre direction, cell data */
    HS_FIELD_REGION = 1 << 5      /**< "region": region marker, cell data */
};

/** The arrays of one frame; NULL arrays are skipped. Borrowed. */
typedef struct hs_frame {
    double time_ms;
    int fields;              /**< HS_FIELD_* bits to write */
    const double *phi;       /**< [n_nodes] normalised potential; V = 100 phi - 80 derived from it */
    const double *activation;/**< [n_nodes] activation time, ms, -1 before activation */
    const double *r;         /**< [n_elems] recovery variable */
} hs_frame;

typedef struct hs_vtk_series hs_vtk_series;

/**
 * @brief Start a series: frames DIR/PREFIX_000000.vtk ... and index DIR/PREFIX.vtk.series.
 * Creates DIR (and parents) if needed. @param[out] out new writer (hs_vtk_series_destroy).
 */
hs_status hs_vtk_series_create(const char *dir, const char *prefix, hs_vtk_series **out);

/** @brief Write one frame of @p mesh (geometry every frame, so any frame opens alone) and update the index. */
hs_status hs_vtk_series_write(hs_vtk_series *s, const hs_mesh *mesh, const hs_frame *frame);

/** @brief Number of frames written so far. */
int hs_vtk_series_count(const hs_vtk_series *s);

/** @brief Path of the index file. */
const char *hs_vtk_series_index_path(const hs_vtk_series *s);

/** @brief Times (ms) of the frames written so far, [hs_vtk_series_count]. */
const double *hs_vtk_series_times(const hs_vtk_series *s);

/**
 * @brief Continue a series after a restart: the first @p n_frames frames (times [n_frames], ms)
 * are taken as written; the index is rewritten with them and frame files numbered n_frames and up
 * are removed. Only on a series with no frame written yet.
 */
hs_status hs_vtk_series_resume(hs_vtk_series *s, const double *times, int n_frames);

/** @brief Free the writer; accepts NULL and sets *s = NULL. Files stay. */
void hs_vtk_series_destroy(hs_vtk_series **s);

/** @brief Check DIR can be created and written (creates it, writes and removes a probe file). */
hs_status hs_output_dir_check(const char *dir);

#ifdef __cplusplus
}
#endif
#endif
