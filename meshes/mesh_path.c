/* File names for the readers (mesh_path.h). */
#include "mesh_path.h"

#include <ctype.h>
#include <string.h>

#include "hs_util.h"

const char *hs_path_ext(const char *path)
{
    if (!path) return NULL;
    const char *slash = strrchr(path, '/');
    return strrchr(slash ? slash + 1 : path, '.');
}

size_t hs_path_stem_len(const char *path)
{
    const char *ext = hs_path_ext(path);
    return ext ? (size_t)(ext - path) : strlen(path);
}

const void *hs_registry_find_ext(const hs_registry *r, const char *path)
{
    const char *ext = hs_path_ext(path);
    char lower[32]; /* longer than any listed extension: such a name is simply not found */
    if (!ext || strlen(ext) >= sizeof lower) return NULL;
    size_t i = 0;
    for (; ext[i]; ++i) lower[i] = (char)tolower((unsigned char)ext[i]);
    lower[i] = '\0';
    return hs_registry_find(r, lower);
}

hs_status hs_path_with_ext(const char *path, size_t stem_len, const char *ext, char **out)
{
    const size_t le = strlen(ext);
    HS_CALL(HS_ALLOC(*out, stem_len + le + 1, "mesh file name"));
    memcpy(*out, path, stem_len);
    memcpy(*out + stem_len, ext, le + 1);
    return HS_OK;
}
