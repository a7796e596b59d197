/**
 * @file hs_text_reader.h
 * @brief Line reader for the text formats heartsim reads (TetGen, Matrix Market, STL, OFF, PLY,
 * VTK, Gmsh, openCARP): remembers the file name and physical line number so every message reads
 * `file:line: what was expected, what was found`, strips comments, skips blank lines, tokenises in
 * place, and refuses NUL bytes (a binary file opened as text).
 *
 * Errors are recorded with the code given at open (HS_ERR_MESH for mesh readers, ...), except read
 * errors (HS_ERR_IO) and allocation (HS_ERR_MEMORY).
 */
#ifndef HS_TEXT_READER_H
#define HS_TEXT_READER_H

#include <stdio.h>

#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hs_text_reader {
    FILE *f;           /**< owned unless opened with hs_text_reader_attach */
    const char *path;  /**< borrowed; named in messages */
    const char *what;  /**< borrowed; the format named in messages ("TetGen", "Gmsh", ...) */
    hs_status code;    /**< status recorded for format errors */
    char comment;      /**< comment character ('#', '%', or 0 for none) */
    long line;         /**< 1-based number of the line in buf, 0 before the first */
    char *buf;         /**< current line (comment stripped by hs_text_reader_next) */
    size_t cap;
    char *cur;         /**< parse position inside buf */
    int owns_file;
} hs_text_reader;

/**
 * @brief Open @p path for reading. @param[in] what format name for messages; @param[in] code status
 * for format errors; @param[in] comment comment character, 0 for none. A missing file is an error
 * with @p code naming the path and the system's reason.
 */
hs_status hs_text_reader_open(hs_text_reader *r, const char *path, const char *what,
                              hs_status code, char comment);

/** @brief Read from an already-open stream (borrowed; e.g. after a binary header). */
void hs_text_reader_attach(hs_text_reader *r, FILE *f, const char *path, const char *what,
                           hs_status code, char comment);

/** @brief Close (when owned) and free the buffer; safe on a zeroed or closed reader. */
void hs_text_reader_close(hs_text_reader *r);

/** @brief Next raw line, nothing stripped (cur = start of line). *got = 0 at end of file. */
hs_status hs_text_reader_raw(hs_text_reader *r, int *got);

/** @brief Next line holding data: comment stripped, blank lines skipped; cur = first non-blank. */
hs_status hs_text_reader_next(hs_text_reader *r, int *got);

/** @brief Next whitespace-separated token of the current line, NUL-terminated in place; NULL if none. */
char *hs_text_reader_token(hs_text_reader *r);

/** @brief Count (and consume) the tokens left on the current line. */
long hs_text_reader_remaining(hs_text_reader *r);

/** @brief Line to name when the file ends early: the last line read, or 1 for an empty file. */
long hs_text_reader_eof_line(const hs_text_reader *r);

/** @brief Parse an integer token (NULL = end of line); @p field names it in the message. */
hs_status hs_text_reader_long(hs_text_reader *r, const char *tok, const char *field, long long *v);

/** @brief Parse a finite number token (NULL = end of line); @p field names it in the message. */
hs_status hs_text_reader_double(hs_text_reader *r, const char *tok, const char *field, double *v);

/** @brief Next token as an integer / number (end of line is an error naming @p field). */
hs_status hs_text_reader_next_long(hs_text_reader *r, const char *field, long long *v);
hs_status hs_text_reader_next_double(hs_text_reader *r, const char *field, double *v);

/** @brief No tokens may be left: else "expected N fields (layout), found M". */
hs_status hs_text_reader_expect_end(hs_text_reader *r, long n_expected, const char *layout);

/**
 * @brief Grow an array of @p elem bytes per item to hold at least @p need items (doubling from
 * 4096). Readers grow arrays as lines are read instead of trusting header counts, so a huge count
 * in a short file ends in "file ended after ..." rather than a giant allocation.
 */
hs_status hs_grow_array(void **arr, size_t *cap, size_t need, size_t elem, const char *what);

#ifdef __cplusplus
}
#endif
#endif
