/**
 * @file hs_maps.h
 * @brief The maps file of a run: DIR/PREFIX_maps.vtk, one legacy VTK file with the mesh and the
 * run's node maps (today "activation", ms, -1 where the tissue never activated; repolarisation or
 * APD maps join as more named node fields), written at the end of a run so it opens alone in
 * ParaView whatever output.format the series has. Written atomically: a file that exists is
 * complete, and an older one stays until the new one is.
 */
#ifndef HS_MAPS_H
#define HS_MAPS_H

#include "hs_frame.h"
#include "hs_mesh.h"
#include "hs_series.h"
#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The maps file is DIR/PREFIX<HS_MAPS_SUFFIX>. */
#define HS_MAPS_SUFFIX "_maps.vtk"

/** @brief DIR/PREFIX_maps.vtk, malloc'd into *out (free it). */
hs_status hs_maps_path(const char *dir, const char *prefix, char **out);

/**
 * @brief Write the maps file of @p mesh: the fields of @p maps, all node fields (its time is the
 * time the maps were taken at, its mesh_fields add fibre/region as usual).
 * @param[in] dir,prefix,mesh,maps borrowed. @param[out] path_out the file written (malloc'd; NULL
 * to skip). HS_ERR_INTERNAL for a cell field or a malformed list, HS_ERR_IO naming the file.
 */
hs_status hs_maps_write(const char *dir, const char *prefix, const hs_mesh *mesh, const hs_frame *maps,
                        char **path_out);

/**
 * @brief The same file from the ranks' parts of a distributed run (collective over @p part->comm):
 * @p maps holds this rank's values in the part's order; written by rank 0 as the rows come, a chunk
 * of global indices at a time (hs_vtk_write_dataset_part: no rank holds a whole-mesh array). @p ser
 * (may be NULL): the run's part series over the same @p part, whose gather set-up is reused. The
 * checks of hs_maps_write fail alike on every rank; the file's status is rank 0's on every rank.
 */
hs_status hs_maps_write_part(const char *dir, const char *prefix, const hs_series_part *part, hs_series *ser,
                             const hs_frame *maps, char **path_out);

#ifdef __cplusplus
}
#endif
#endif
