/**
 * @file hs_fs.h
 * @brief Directories heartsim writes into (a run's output directory, the mesh cache): created with
 * their parents and checked writable before any work, with messages that say which directory it is.
 */
#ifndef HS_FS_H
#define HS_FS_H

#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Create @p dir with its parents (mode 0777 less the umask) and check it is writable by
 * writing and removing a probe file (catches a read-only mount or another owner). HS_ERR_IO
 * otherwise, the message naming it as @p what ("output directory", "mesh cache directory") and
 * @p dir.
 */
hs_status hs_dir_create(const char *dir, const char *what);

#ifdef __cplusplus
}
#endif
#endif
