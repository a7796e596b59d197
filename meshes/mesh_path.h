/* Private to meshes/: the file-name pieces the volume and surface readers share, and the lookup of
 * a reader by the extension of a file name in a reader registry (hs_mesh_readers,
 * hs_surface_readers: entries named by their extension, lower case, with the dot). */
#ifndef HS_MESH_PATH_H
#define HS_MESH_PATH_H

#include <stddef.h>

#include "hs_registry.h"
#include "hs_status.h"

/* The extension of the file name in @p path: from the last '.' after the last '/', or NULL. */
const char *hs_path_ext(const char *path);

/* Length of @p path without the extension of its file name (all of it when there is none). */
size_t hs_path_stem_len(const char *path);

/* The entry of @p r named by the extension of @p path, matched case-insensitively (".VTK" finds
 * ".vtk"), or NULL (no extension, or none listed). No error is recorded. */
const void *hs_registry_find_ext(const hs_registry *r, const char *path);

/* New string: the first @p stem_len characters of @p path followed by @p ext (free it). */
hs_status hs_path_with_ext(const char *path, size_t stem_len, const char *ext, char **out);

#endif
