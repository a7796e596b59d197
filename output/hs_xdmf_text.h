/**
 * @file hs_xdmf_text.h
 * @brief What the two XDMF formats ("xdmf": raw binary, output/format_xdmf.c; "xdmf_h5": HDF5,
 * output/format_xdmf_h5.c) share in their XML index: the prefix rule, XML escaping, times, and the
 * frames' <Grid> text kept between index rewrites (hs_xdmf_grids).
 * Internal to output/.
 */
#ifndef HS_XDMF_TEXT_H
#define HS_XDMF_TEXT_H

#include <stddef.h>

#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief The prefix rule of an XDMF series beyond the series' own (non-empty, no '/'): no white
 * space, control characters or '|' (XDMF readers split and trim data file names there), none of
 * @p also (e.g. ":" where a data item reads "FILE:/path"), valid UTF-8 (the index's encoding).
 * HS_ERR_CONFIG naming the prefix and @p format otherwise.
 */
hs_status hs_xdmf_check_prefix(const char *prefix, const char *format, const char *also);

/** @brief @p str with XML's special characters (& < > " ') as entities, malloc'd into *out. */
hs_status hs_xdmf_escape(const char *str, char **out);

/** @brief Shortest of %.15g / %.17g that reads back as @p t, so readers see the exact times. */
void hs_xdmf_format_time(double t, char *buf, size_t size);

/** How a frame's <Grid> starts in the index: a resume finds the frames by it. */
#define HS_XDMF_GRID_OPEN "<Grid GridType=\"Uniform\""

/** The frames' <Grid> elements as the index lists them (zero-initialise; hs_xdmf_grids_free). */
typedef struct hs_xdmf_grids {
    char *text;       /**< the elements, NUL-terminated */
    size_t len, cap;
    size_t *end;      /**< [n_cap] end of frame i's element in text */
    int n_cap;
} hs_xdmf_grids;

void hs_xdmf_grids_free(hs_xdmf_grids *g);
/** @brief Room for the ends of @p n frames. */
hs_status hs_xdmf_grids_reserve(hs_xdmf_grids *g, int n);
/** @brief Append @p n bytes of @p text. */
hs_status hs_xdmf_grids_append(hs_xdmf_grids *g, const char *text, size_t n);
/** @brief Append formatted text. */
hs_status hs_xdmf_grids_printf(hs_xdmf_grids *g, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/** @brief Keep the elements of frames [0, n) only (a frame written again replaces its text). */
void hs_xdmf_grids_keep(hs_xdmf_grids *g, int n);
/** @brief The text appended so far ends frame @p i (reserved). */
void hs_xdmf_grids_mark(hs_xdmf_grids *g, int i);
/**
 * @brief Write the index @p path atomically: frames [0, n) (n >= 1) in a temporal collection named
 * @p name (XML-escaped), after the comment @p comment.
 */
hs_status hs_xdmf_grids_write_index(const hs_xdmf_grids *g, int n, const char *path, const char *comment,
                                    const char *name);

#ifdef __cplusplus
}
#endif
#endif
