/**
 * @file hs_xdmf_text.h
 * @brief What the two XDMF formats ("xdmf": raw binary, output/format_xdmf.c; "xdmf_h5": HDF5,
 * output/format_xdmf_h5.c) share in their XML index: the prefix rule, XML escaping and times.
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

#ifdef __cplusplus
}
#endif
#endif
