/**
 * @file hs_atomic_file.h
 * @brief Write a file so that it either appears complete under its name or not at all.
 *
 * Data goes to a temporary file DIR/.NAME.tmp beside the target (same file system, so the final
 * rename is atomic); commit flushes, fsyncs, closes and renames it into place. Any failure on the
 * way (ENOSPC surfacing in fwrite, fflush, fsync or fclose; a vanished directory) records
 * HS_ERR_IO naming the target, the temporary file and strerror(errno), and removes the temporary
 * file, so an existing file of the same name is never damaged.
 */
#ifndef HS_ATOMIC_FILE_H
#define HS_ATOMIC_FILE_H

#include <stddef.h>

#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hs_atomic_file hs_atomic_file;

/**
 * @brief Open the temporary file for @p path.
 * @param[in] path final path (copied); @param[in] what what the file is, for messages
 * ("VTK frame"; borrowed, must outlive the object); @param[out] out new writer.
 */
hs_status hs_atomic_file_create(const char *path, const char *what, hs_atomic_file **out);

/** @brief Append @p n bytes. */
hs_status hs_atomic_file_write(hs_atomic_file *f, const void *data, size_t n);

/** @brief Append formatted text. */
hs_status hs_atomic_file_printf(hs_atomic_file *f, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/**
 * @brief Flush, fsync, close and rename into place. Always consumes the writer (*f = NULL);
 * on failure the temporary file is removed and the target is left as it was.
 */
hs_status hs_atomic_file_commit(hs_atomic_file **f);

/** @brief Abandon an uncommitted file: close and remove the temporary. Accepts NULL; *f = NULL. */
void hs_atomic_file_destroy(hs_atomic_file **f);

/** @brief DIR/NAME (no doubled '/'), malloc'd into *out (free it). */
hs_status hs_path_join(const char *dir, const char *name, char **out);

#ifdef __cplusplus
}
#endif
#endif
