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

#ifdef __cplusplus
}
#endif
#endif
