/**
 * @file hs_vtk_dataset.h
 * @brief One legacy VTK file that opens alone: the mesh and a frame's named arrays, encoded as a
 * "vtk" series frame is (output/format_vtk.c: binary, float64, POINT_DATA then CELL_DATA, the
 * frame's time as the TIME field), written atomically. For single files beside a series (the maps
 * file, output/maps.c).
 */
#ifndef HS_VTK_DATASET_H
#define HS_VTK_DATASET_H

#include "hs_frame.h"
#include "hs_mesh.h"
#include "hs_series.h"
#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Write @p mesh with the arrays of @p frame to @p path (temporary name, renamed into place).
 * @param[in] title what the file is, for messages ("maps file"); borrowed. @param[in] mesh,frame
 * borrowed; the frame must pass hs_frame_check (HS_ERR_INTERNAL otherwise). HS_ERR_IO naming the
 * file on a write failure, with any older file of that name left as it was.
 */
hs_status hs_vtk_write_dataset(const char *path, const char *title, const hs_mesh *mesh, const hs_frame *frame);

/**
 * @brief The same file from the ranks' parts of a distributed run (collective over @p part->comm):
 * @p frame holds this rank's values in the part's order (as a part series' frames); each array goes
 * to rank 0 in chunks of global indices in file order (output/hs_part_gather.h), and rank 0 writes
 * each chunk before the next comes, so no rank holds a whole-mesh array. The bytes are those
 * hs_vtk_write_dataset writes from the whole mesh (the part's global numbering; region markers zero
 * where the part has none, fibres where some rank has them). @p ser (may be NULL): a part series over
 * the same @p part whose gather set-up is reused. Every rank returns rank 0's status (a frame that
 * fails hs_frame_check on some rank: that rank's). The maps file and the per-beat maps of a
 * distributed run.
 */
hs_status hs_vtk_write_dataset_part(const char *path, const char *title, const hs_series_part *part, hs_series *ser,
                                    const hs_frame *frame);

#ifdef __cplusplus
}
#endif
#endif
