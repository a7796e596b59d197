/**
 * @file hs_series.h
 * @brief A series of output frames in the format named by `output.format`, one of
 * output/hs_series_list.h: "vtk" (legacy VTK frames with the geometry in each, float64, plus a
 * .vtk.series index: output/format_vtk.c) or "xdmf" (the mesh once, float32 fields per frame, a
 * .xdmf index: output/format_xdmf.c) or "xdmf_h5" (the same in one HDF5 file PREFIX.h5 beside
 * the .xdmf index, no file per frame: output/format_xdmf_h5.c; only in a build with HDF5, refused
 * by name otherwise). The run loop, the frame writer thread and the checkpoint code use only this
 * interface. docs/output.md compares them.
 *
 * The series (output/series.c) keeps what all formats share: frame times and count, file names
 * (frame k is DIR/PREFIX_<k:06d><ext>), resume after a restart, and the rule that a frame whose
 * index cannot be rewritten is removed again, so the directory matches the last good index.
 * Every file is written to a temporary name and renamed into place, so a file that exists is
 * complete; the index is rewritten after each frame, so it is valid at any moment.
 */
#ifndef HS_SERIES_H
#define HS_SERIES_H

#include <stdint.h>

#include "hs_mesh.h"
#include "hs_status.h"
#include "hs_frame.h"
#include "hs_registry.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hs_series hs_series;

/** @brief The format names in list order, for messages: "vtk, xdmf". */
const char *hs_series_format_list(void);

/** @brief The formats as a registry (entries start with the name), for listing them. */
const hs_registry *hs_series_registry(void);

/**
 * @brief Check that @p format names a series format; HS_ERR_CONFIG listing the names otherwise.
 * For validating a config before any work is done.
 */
hs_status hs_series_format_check(const char *format);

/**
 * @brief Check a format name and a prefix for it before any work is done: what hs_series_create
 * would refuse (HS_ERR_CONFIG; for "vtk" a prefix must be a non-empty file name without '/', for
 * "xdmf" also without '|', white space or control characters, and valid UTF-8).
 */
hs_status hs_series_check(const char *format, const char *prefix);

/**
 * @brief Start a series of @p format in DIR (created with its parents) with file names from
 * PREFIX. @param[in] format,dir,prefix copied; @param[out] out new series (hs_series_destroy).
 * An unknown format is HS_ERR_CONFIG listing the names; a bad prefix HS_ERR_CONFIG; an
 * unwritable directory HS_ERR_IO naming it.
 */
hs_status hs_series_create(const char *format, const char *dir, const char *prefix,
                           hs_series **out);

/**
 * @brief Write one frame of @p mesh and update the index (valid at any moment). A failure is
 * HS_ERR_IO naming the file; earlier frames and the index stay as they were. A time that is not
 * finite is HS_ERR_NUMERIC; a malformed frame (hs_frame_check) HS_ERR_INTERNAL.
 * @param[in] mesh,frame borrowed; mesh NULL for a series of hs_series_create_part.
 */
hs_status hs_series_write(hs_series *s, const hs_mesh *mesh, const hs_frame *frame);

/** @brief Number of frames written so far (resumed ones included); 0 for NULL. */
int hs_series_count(const hs_series *s);

/** @brief Path of the index file (DIR/PREFIX.vtk.series or DIR/PREFIX.xdmf). */
const char *hs_series_index_path(const hs_series *s);

/** @brief Times (ms) of the frames written so far, [hs_series_count]. */
const double *hs_series_times(const hs_series *s);

/** @brief The format's name ("vtk", "xdmf"). */
const char *hs_series_format(const hs_series *s);

/**
 * @brief Continue a series after a restart: the first @p n_frames frames (times [n_frames], ms,
 * as the checkpoint recorded them) are taken as written, the index lists exactly them, and frame
 * files numbered n_frames and up are removed. Only before any frame is written. A format may
 * check the old files first and refuse with nothing changed (xdmf keeps the old index's entries,
 * which must list at least n_frames frames at exactly these times: HS_ERR_IO naming it).
 */
hs_status hs_series_resume(hs_series *s, const double *times, int n_frames);

/**
 * A rank's share of a distributed run's mesh, for a series written collectively
 * (hs_series_create_part): every node and every element is written by exactly one rank, each by
 * its 64-bit global index (the run's numbering, as a serial run writes it), so the files are a
 * serial run's. Nothing here needs the global mesh. Borrowed and kept until hs_series_destroy.
 */
typedef struct hs_series_part {
    const void *comm;        /**< the ranks' MPI_Comm, given as a pointer to it (no MPI type in this header);
                                  duplicated at create, so it may go after that */
    int64_t n_nodes_global, n_elems_global;
    int32_t n_nodes;         /**< nodes this rank writes (a distributed run: its owned nodes) */
    int32_t n_elems;         /**< elements this rank writes */
    const int64_t *node_gid; /**< [n_nodes] global index of each, all distinct over the ranks */
    const int64_t *elem_gid; /**< [n_elems] */
    const double *xyz;       /**< [n_nodes][3] coordinates */
    const int64_t *tets;     /**< [n_elems][4] global node indices */
    const int32_t *region;   /**< [n_elems] region marker (written when a frame asks for it) */
    const double *fiber;     /**< [n_elems][3], or NULL when the mesh has none */
    int selection;           /**< how a rank's rows are selected in a dataset: HS_SERIES_SEL_* */
    int32_t gather_chunk;    /**< a series written through rank 0: global indices per chunk (0: 2^20; tests use less) */
} hs_series_part;

/** hs_series_part.selection: AUTO takes one hyperslab per run of consecutive global indices when
 *  the runs are few (a partition into contiguous ranges: one run per rank), and otherwise exchanges
 *  the rows first (MPI_Alltoallv) so that rank r writes the block [r N / P, (r + 1) N / P) as one
 *  hyperslab; the others force a way (benchmarks: docs/benchmarks.md measures them). */
enum {
    HS_SERIES_SEL_AUTO = 0,
    HS_SERIES_SEL_HYPERSLABS = 1, /**< a union of hyperslabs, one per run */
    HS_SERIES_SEL_POINTS = 2,     /**< a point selection */
    HS_SERIES_SEL_EXCHANGE = 3    /**< exchanged into blocks, one hyperslab per rank */
};

/**
 * @brief 1 when this build writes @p format collectively (hs_series_create_part, every rank its own
 * rows): "xdmf_h5" with a parallel HDF5 (HS_HAS_HDF5_PARALLEL). 0 for the others, which a part
 * series writes through rank 0 (streamed for vtk and xdmf).
 */
int hs_series_can_part(const char *format);

/**
 * @brief Start a series written by every rank of @p part->comm together (collective: every rank
 * calls it, and then hs_series_write, hs_series_resume and hs_series_destroy, in the same order).
 * Frames then hold this rank's values only: point fields [part->n_nodes], cell fields
 * [part->n_elems], in the part's order; hs_series_write takes mesh NULL (the mesh is the part's).
 * Rank 0 writes the index; errors are agreed (every rank returns the first failing rank's).
 * A format that cannot write collectively (hs_series_can_part 0) is written by rank 0: vtk and xdmf
 * streamed, each array of each file going to rank 0 in chunks of 2^20 global indices
 * (part->gather_chunk) in the file's order and written chunk by chunk, so that no rank holds an
 * array over the whole mesh (output/hs_part_gather.h); xdmf_h5 with a serial HDF5 gathered whole,
 * the mesh with the first frame and each frame's arrays onto rank 0 (in the same chunks), which
 * writes them as a serial series. The files are a serial series' byte for byte; every rank keeps
 * the same count and times. Needs a build with MPI (HS_ERR_INTERNAL otherwise).
 */
hs_status hs_series_create_part(const char *format, const char *dir, const char *prefix, const hs_series_part *part,
                                hs_series **out);

/**
 * @brief One data set from the ranks' parts (collective over @p part->comm): the mesh and @p frame's
 * arrays (this rank's values, in the part's order, as a part series' frames) gathered whole to rank 0
 * in chunks of global indices, and @p write called there with the whole mesh (its numbering the
 * global one) and frame. Rank 0 holds the whole mesh and arrays: for a writer that needs them whole;
 * a legacy VTK file streams instead (hs_vtk_write_dataset_part, hs_maps_write_part: the maps and
 * per-beat maps of a distributed run). @p ser (may be NULL): a part series over the same @p part
 * written through rank 0, whose gather set-up is used (and, gathered whole, the mesh rank 0 already
 * holds for its frames, so that rank 0 never holds two). Every rank returns rank 0's status.
 */
hs_status hs_series_part_write_one(const hs_series_part *part, hs_series *ser, const hs_frame *frame,
                                   hs_status (*write)(void *ctx, const hs_mesh *mesh, const hs_frame *frame), void *ctx);

/** @brief Free the series; accepts NULL and sets *s = NULL. Files stay. */
void hs_series_destroy(hs_series **s);

/** @brief Check DIR can be created and written: hs_dir_create (common/hs_fs.h) naming it the
 * "output directory"; HS_ERR_IO naming DIR otherwise. */
hs_status hs_output_dir_check(const char *dir);

#ifdef __cplusplus
}
#endif
#endif
