/**
 * @file hs_xdmf.h
 * @brief XDMF series: the mesh written once as raw binary files, each frame only its fields as
 * float32, and one XML index DIR/PREFIX.xdmf that ParaView (Xdmf3ReaderS/T and the legacy
 * XDMF Reader) and VisIt open as one animation.
 *
 * Files (all little-endian, no headers; the index gives type, shape and offset of each array):
 *   PREFIX_mesh_xyz.bin     float64 [n_nodes][3]   written by the first frame
 *   PREFIX_mesh_tets.bin    int32   [n_elems][4]   written by the first frame
 *   PREFIX_mesh_region.bin  int32   [n_elems]      by the first frame that asks for "region"
 *   PREFIX_mesh_fiber.bin   float64 [n_elems][3]   by the first frame that asks for "fiber"
 *   PREFIX_000000.bin ...   float32 phi [n_nodes], V [n_nodes], activation [n_nodes], r [n_elems],
 *                           the requested ones in this order, back to back (Seek gives each start)
 *   PREFIX.xdmf             Domain > temporal Collection > one Uniform Grid per frame
 * A frame is one file, so it is written atomically like a VTK frame (output/atomic_file.c); the
 * index is rewritten after each frame, so it is valid at any moment. Fields are float32: 7
 * significant digits are more than a colour map shows; checkpoints hold the exact state.
 */
#ifndef HS_XDMF_H
#define HS_XDMF_H

#include "hs_mesh.h"
#include "hs_status.h"
#include "hs_vtk.h" /* hs_frame, HS_FIELD_* */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hs_xdmf_series hs_xdmf_series;

/**
 * @brief Start a series in DIR (created with its parents if needed) with file names from PREFIX.
 * @param[in] dir,prefix copied; the prefix may not hold '/', '|' or white space (XDMF readers
 * split heavy-data file names at '|' and trim blanks): HS_ERR_CONFIG.
 * @param[out] out new writer (hs_xdmf_series_destroy).
 */
hs_status hs_xdmf_series_create(const char *dir, const char *prefix, hs_xdmf_series **out);

/**
 * @brief Check that @p prefix can name the files of an XDMF series (HS_ERR_CONFIG otherwise):
 * non-empty, valid UTF-8, no '/', '|', white space or control characters.
 */
hs_status hs_xdmf_prefix_check(const char *prefix);

/**
 * @brief Write one frame and rewrite the index. The first frame also writes the mesh files; every
 * frame of a series must use the same mesh (same node and element counts, else HS_ERR_INTERNAL).
 * On failure (HS_ERR_IO naming the file) the index and the earlier frames are unchanged.
 * @param[in] mesh,frame borrowed.
 */
hs_status hs_xdmf_series_write(hs_xdmf_series *s, const hs_mesh *mesh, const hs_frame *frame);

/** @brief Number of frames written so far (resumed ones included). */
int hs_xdmf_series_count(const hs_xdmf_series *s);

/** @brief Path of the index file, DIR/PREFIX.xdmf. */
const char *hs_xdmf_series_index_path(const hs_xdmf_series *s);

/** @brief Times (ms) of the frames written so far, [hs_xdmf_series_count]. */
const double *hs_xdmf_series_times(const hs_xdmf_series *s);

/**
 * @brief Continue a series after a restart: the first @p n_frames frames (times [n_frames], ms)
 * are taken as written. Their entries are kept from the existing index, which must hold at least
 * that many frames at exactly these times (else HS_ERR_IO naming the index); the index is
 * rewritten with them and frame files numbered n_frames and up are removed (with n_frames = 0 the
 * index too). Only on a series with no frame written yet.
 */
hs_status hs_xdmf_series_resume(hs_xdmf_series *s, const double *times, int n_frames);

/** @brief Free the writer; accepts NULL and sets *s = NULL. Files stay. */
void hs_xdmf_series_destroy(hs_xdmf_series **s);

#ifdef __cplusplus
}
#endif
#endif
