/**
 * @file fuzz_util.h
 * @brief What the fuzz entry points (fuzz_targets*.c) share: a private scratch directory for the
 * files a reader is given, splitting one input into several files, and the abort that reports a
 * broken invariant. Internal to tests/fuzz.
 */
#ifndef HS_FUZZ_UTIL_H
#define HS_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

/** Longest path hs_fuzz_path returns (the directory name plus a short file name). */
#define HS_FUZZ_PATH_MAX 600

/**
 * @brief Path of @p name in this process's scratch directory (mkdtemp under $TMPDIR or /tmp,
 * made on first use; every file named here is removed with it at exit).
 * @param[in] name file name without directory; @param[out] buf HS_FUZZ_PATH_MAX bytes.
 * @return buf.
 */
const char *hs_fuzz_path(const char *name, char *buf);

/** @brief Write @p size bytes to @p path (replacing it); abort()s on an I/O error. */
void hs_fuzz_write(const char *path, const uint8_t *data, size_t size);

/** @brief Remove @p path if it exists, so a reader sees an optional file as missing. */
void hs_fuzz_remove(const char *path);

/**
 * @brief Split an input at the byte @p sep into at most @p max_parts parts (the last part keeps
 * any further separators). @p start[i], @p len[i] describe part i.
 * @return the number of parts found (1 when @p sep does not occur).
 */
int hs_fuzz_split(const uint8_t *data, size_t size, uint8_t sep, int max_parts,
                  const uint8_t **start, size_t *len);

/** @brief The scratch directory (made on first use). */
const char *hs_fuzz_dir(void);

/**
 * @brief What a mesh or surface reader's refusal must look like: status HS_ERR_MESH or HS_ERR_IO
 * (HS_ERR_INTERNAL is a reader that missed a check, HS_ERR_MEMORY one that trusted a declared
 * size), and a message that names the input file (so it holds the scratch directory).
 * abort()s via hs_fuzz_fail otherwise.
 */
void hs_fuzz_check_refusal(const char *target, int status);

/** @brief Report "hs_fuzz TARGET: invariant broken: WHAT" on stderr and abort(). */
_Noreturn void hs_fuzz_fail(const char *target, const char *what);

#endif
