/* The maps file (hs_maps.h): named node maps over the mesh, as one legacy VTK file. */
#include "hs_maps.h"

#include <stdlib.h>
#include <string.h>

#include "hs_atomic_file.h"
#include "hs_build_config.h"
#include "hs_util.h"
#include "hs_vtk_dataset.h"
#if HS_HAS_MPI
#include <mpi.h>

#include "hs_mpi_status.h"
#endif

hs_status hs_maps_path(const char *dir, const char *prefix, char **out)
{
    *out = NULL;
    HS_CHECK(prefix && *prefix && !strchr(prefix, '/'), HS_ERR_CONFIG,
             "output prefix \"%s\" must be a non-empty file name without '/'", prefix ? prefix : "(null)");
    size_t len = strlen(prefix) + strlen(HS_MAPS_SUFFIX) + 1;
    char *name = NULL;
    HS_CALL(HS_ALLOC(name, len, "file name"));
    memcpy(name, prefix, strlen(prefix));
    memcpy(name + strlen(prefix), HS_MAPS_SUFFIX, strlen(HS_MAPS_SUFFIX) + 1);
    hs_status st = hs_path_join(dir, name, out);
    free(name);
    return st;
}

/* The whole mesh's file (@p part NULL) or the ranks' parts' (collective). */
static hs_status maps_write(const char *dir, const char *prefix, const hs_mesh *mesh, const hs_series_part *part,
                            hs_series *ser, const hs_frame *maps, char **path_out)
{
    if (path_out) *path_out = NULL;
    HS_CALL(hs_frame_check(maps));
    for (int k = 0; k < maps->n_fields; ++k)
        HS_CHECK(!maps->field[k].cell, HS_ERR_INTERNAL, "map \"%s\" is cell data; maps are node fields",
                 maps->field[k].name);
    char *path = NULL;
    hs_status st = hs_maps_path(dir, prefix, &path);
#if HS_HAS_MPI
    /* the parts' file is written by every rank together: one rank's failure here is every rank's */
    if (part) st = hs_mpi_agree(*(const MPI_Comm *)part->comm, st, NULL);
#endif
    if (st != HS_OK) {
        free(path);
        return st;
    }
    st = part ? hs_vtk_write_dataset_part(path, "maps file", part, ser, maps)
                        : hs_vtk_write_dataset(path, "maps file", mesh, maps);
    if (st == HS_OK && path_out)
        *path_out = path;
    else
        free(path);
    return st;
}

hs_status hs_maps_write(const char *dir, const char *prefix, const hs_mesh *mesh, const hs_frame *maps,
                        char **path_out)
{
    return maps_write(dir, prefix, mesh, NULL, NULL, maps, path_out);
}

hs_status hs_maps_write_part(const char *dir, const char *prefix, const hs_series_part *part, hs_series *ser,
                             const hs_frame *maps, char **path_out)
{
    return maps_write(dir, prefix, NULL, part, ser, maps, path_out);
}
