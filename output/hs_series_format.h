/**
 * @file hs_series_format.h
 * @brief What an output format implements: an encoder behind a small ops table, listed in
 * hs_series_list.h. The series (output/series.c) does the rest once for all formats: argument and
 * frame checks, times and count, file names, the output directory, removing a frame whose index
 * could not be rewritten, and on resume removing the frames after the restart point. Internal to
 * output/ (and its tests); callers use hs_series.h.
 */
#ifndef HS_SERIES_FORMAT_H
#define HS_SERIES_FORMAT_H

#include <stddef.h>

#include "hs_frame.h"
#include "hs_mesh.h"
#include "hs_status.h"
#include "hs_part_gather.h"
#include "hs_series.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * One format. The series calls create once, then for frame k = count: write_frame (a failure
 * leaves no file of frame k behind: atomic files), then write_index(times, k + 1); when that
 * fails it removes frame k's file and the next write_frame is for k again. @p impl is the
 * format's own state; @p dir, @p prefix and @p index_path are the series' strings, borrowed for
 * the life of impl.
 */
typedef struct hs_series_format_ops {
    const char *name;      /**< output.format value */
    const char *summary;   /**< one line: what the files are */
    const char *index_ext; /**< the index is DIR/PREFIX<index_ext> */
    /** Frame k is DIR/PREFIX_<k:06d><frame_ext>, one file per frame; NULL: the format keeps every
     * frame in files of its own (write_frame gets path NULL, and the format itself drops a frame
     * whose index failed and the frames after a resume point). */
    const char *frame_ext;
    /** NULL when this build has the format; else why not and how to get it, for the message that
     * refuses the name (the format stays listed, so the config's choices do not depend on the build). */
    const char *missing;
    /** What create refuses beyond the common rule (non-empty, no '/'): HS_ERR_CONFIG; NULL: none. */
    hs_status (*check_prefix)(const char *prefix);
    hs_status (*create)(const char *dir, const char *prefix, const char *index_path, void **impl);
    /** A series written by all ranks of @p part (hs_series_create_part); NULL: the format cannot.
     * Its write_frame then gets mesh NULL and frames of the part's values; every op is collective
     * and returns the status agreed over the ranks. */
    hs_status (*create_part)(const char *dir, const char *prefix, const char *index_path, const hs_series_part *part,
                             void **impl);
    /** A series of the ranks of a part written by rank 0 alone, streamed (hs_series_create_part for a
     * format without create_part; NULL: the series gathers the whole mesh and each frame onto rank 0 and
     * runs write_frame there). Every rank calls every op; write_frame gets mesh NULL and frames of the
     * part's values, hands each array to @p g (hs_part_gather_rows, in the order of the file) and rank 0
     * encodes and writes each chunk of global indices before the next comes, so no rank holds a
     * whole-mesh array; the files are a serial series' of the whole mesh. Every op returns the status
     * agreed over the ranks (rank 0's for its files). @p g is the series', borrowed for the life of impl. */
    hs_status (*create_stream)(const char *dir, const char *prefix, const char *index_path, hs_part_gather *g,
                               void **impl);
    /** Write frame @p index of @p mesh into @p path (NULL when frame_ext is NULL; plus whatever
     * else the format keeps, such as mesh files); the frame has passed hs_frame_check and the mesh
     * the series' checks. A frame @p index already written (its index failed) is replaced. */
    hs_status (*write_frame)(void *impl, int index, const char *path, const hs_mesh *mesh,
                             const hs_frame *frame);
    /** Rewrite the index to list frames [0, n) at @p times [n] (n = 0 after a resume at 0). */
    hs_status (*write_index)(void *impl, const double *times, int n);
    /** Before a resume at @p n frames (n = 0: forget any earlier resume): check and take over
     * what the old files say, changing no file; NULL when a format needs nothing. */
    hs_status (*resume)(void *impl, const double *times, int n);
    void (*destroy)(void *impl);
} hs_series_format_ops;

#define HS_SERIES_FORMAT(id) extern const hs_series_format_ops hs_series_format_##id;
#include "hs_series_list.h"
#undef HS_SERIES_FORMAT

/** Room for the part of a frame's file name after the prefix. */
enum { HS_SERIES_SUFFIX_MAX = 48 };

/** @brief "_000012<ext>": frame @p index's file name after the prefix, into @p buf. */
void hs_series_frame_suffix(int index, const char *ext, char buf[HS_SERIES_SUFFIX_MAX]);

#ifdef __cplusplus
}
#endif
#endif
