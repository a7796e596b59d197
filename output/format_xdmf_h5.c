/*
 * "xdmf_h5": one HDF5 file per run, DIR/PREFIX.h5, holding the mesh once and every frame's fields
 * as float32, and the XML index DIR/PREFIX.xdmf beside it whose DataItems read Format="HDF"
 * "PREFIX.h5:/path" (a Temporal collection, one Uniform grid per frame: ParaView's XDMF readers and
 * VisIt show it as one animation). The series (output/series.c) keeps times and count; this file
 * encodes, and keeps the .h5 consistent with the index after a failed index write and on resume.
 *
 * Layout of PREFIX.h5 (native little-endian types):
 *   /mesh/points           float64 [n_nodes][3]   written by the first frame
 *   /mesh/cells            int32   [n_elems][4]   written by the first frame
 *   /mesh/region           int32   [n_elems]      by the first frame that carries "region"
 *   /mesh/fiber            float64 [n_elems][3]   by the first frame that carries "fiber"
 *   /frames/000012         group of frame 12; attributes time_ms (float64), fields (the names in
 *                          file order: point fields, then cell fields, blank-separated) and
 *                          mesh_arrays (int32, HS_MESH_FIELD_* bits the frame shows)
 *   /frames/000012/<name>  float32 [n_nodes] or [n_elems], chunked (at most 2^20 values a chunk);
 *                          attribute cell (int32, 0: point data, 1: cell data)
 * Why a group per frame rather than one 2-D [frame][node] dataset per field: each frame's data is
 * then a plain dataset path, which every XDMF reader takes (a 2-D dataset needs a HyperSlab
 * DataItem per frame, spelled differently by Xdmf2 and Xdmf3); the set of fields may differ from
 * frame to frame (the series allows it); dropping the frames after a restart point is deleting
 * their groups, with no dataset to shrink; and a frame that fails half-way leaves only a group no
 * index lists. Chunked so each field is written in pieces HDF5 can later compress or extend.
 *
 * Interruption: after each frame the file is flushed (H5Fflush) and fsync'd, and only then is the
 * index rewritten, atomically (output/atomic_file.c), so the index lists only frames whose data
 * reached the disk. Frames past the index (an interrupted or failed frame, or the continuation
 * abandoned by a restart) are deleted from the file when the index is next rewritten. HDF5 1.10
 * has no journal: a process killed while HDF5 writes its metadata can leave the .h5 unreadable
 * (docs/reliability.md); checkpoints are separate files and stay good.
 *
 * Written collectively (hs_series_create_part; a build with a parallel HDF5, HS_HAS_HDF5_PARALLEL):
 * the same file, opened by every rank through H5FD_MPIO. Each rank holds the values of its own nodes
 * and elements with their 64-bit global indices, sorted once at create; every dataset is created by
 * all ranks with the global size, and each rank selects its rows in it (one hyperslab per run of
 * consecutive global indices when the runs are few, as a partition into contiguous ranges gives, a
 * point selection otherwise: docs/benchmarks.md measures both) and writes them in one collective
 * transfer (H5FD_MPIO_COLLECTIVE), values in global-index order. Groups, attributes and deletions
 * are made by every rank alike (HDF5's metadata calls are collective); rank 0 alone writes the XML
 * index, from the grid text every rank keeps. H5Fflush through MPI-IO ends in MPI_File_sync, the
 * fsync of the serial file. Every entry point ends by agreeing on its status over the ranks.
 *
 * Streamed through rank 0 (hs_series_create_part in a build whose HDF5 is serial: create_stream): the
 * file of a serial series, written by rank 0 alone through the serial HDF5 API, while no rank holds a
 * whole-mesh array. Every rank calls every op; each array (points, cells, region and fibres where the
 * file lacks them, then each field of the frame) goes to rank 0 in chunks of global indices
 * (output/part_gather.c, 2^20 rows a chunk), and rank 0 writes each chunk into the dataset it made with
 * the global size as one hyperslab before the next comes (a field converted to float32 a chunk at a
 * time, the chunk of the field's dataset filled in pieces). Everything else (groups, attributes, the
 * deletion of frames past the index, flush and fsync, the atomic index) is the serial writer's code on
 * rank 0. Which mesh arrays the file lacks only rank 0 can see (a resumed file has them): it says so to
 * every rank, so that all gather the same arrays. After each step rank 0's status is agreed, so a
 * failure of rank 0 (its file, its memory) ends every rank's call with its one message while the other
 * ranks keep feeding the chunks of the array rank 0 failed (none waits). The datasets, attributes and
 * index are a serial series' (tests/output/test_xdmf_h5_stream.c).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <hdf5.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_gid_at.h"
#include "hs_atomic_file.h"
#include "hs_build_config.h"
#include "hs_series_format.h"
#include "hs_util.h"
#include "hs_xdmf_text.h"
#if HS_HAS_HDF5_PARALLEL
#include "hs_mpi_status.h"
#endif

enum { HS_H5_CHUNK_VALUES = 1 << 20 }; /* values per chunk of a field dataset (4 MiB of float32) */

/* The rows of a dataset one rank writes in a collective series: its values sorted by global index
 * (perm), and how they are selected in the file. */
typedef struct xh5_sel {
    int32_t n;       /* rows */
    int32_t *perm;   /* [n] the rank's index of the k-th smallest global index */
    hsize_t *gid;    /* [n] the global indices, increasing */
    int64_t n_runs;  /* runs of consecutive global indices */
    hsize_t *run0, *run_len; /* [n_runs] */
    int points;      /* 1: point selection, 0: one hyperslab per run */
    /* exchange: the rows go to the rank whose block of global indices [blk0, blk0 + blk_n) holds them
     * (block r: [r N / P, (r + 1) N / P)), which writes its block as one hyperslab */
    int exchange;
    int64_t blk0;
    int32_t blk_n;
    int *scnt, *sdsp, *rcnt, *rdsp; /* [n_ranks] rows sent to / received from each rank, offsets */
    int32_t *rpos;   /* [blk_n] position in the block of each row received, in arrival order */
} xh5_sel;

typedef struct xh5_series {
    const char *index_path;  /* DIR/PREFIX.xdmf, borrowed from the series */
    char *h5_path;           /* DIR/PREFIX.h5 */
    char *xml_h5;            /* "PREFIX.h5" XML-escaped, as the index names it */
    hid_t file;              /* the open .h5, or H5I_INVALID_HID */
    hs_xdmf_grids g;         /* the frames' <Grid> elements, as written in the index */
    int mesh_known;          /* n_nodes, n_elems fixed (mesh written, or a resumed file) */
    int32_t n_nodes, n_elems;
    float *buf;              /* [buf_len] float32 of one field */
    size_t buf_len;
    /* streamed through rank 0 (create_stream; borrowed), NULL otherwise; root: this process writes the
     * files (rank 0 of pg), unused otherwise */
    hs_part_gather *pg;
    int root;
    /* written collectively (create_part); part 0: a serial series, none of these used */
    int part, rank, n_ranks;
    const hs_series_part *pt; /* borrowed */
#if HS_HAS_HDF5_PARALLEL
    MPI_Comm comm;
#endif
    hid_t dxpl;              /* collective transfers, or H5P_DEFAULT */
    xh5_sel sel_node, sel_elem;
    void *rows;              /* [rows_bytes] a mesh array in global-index order */
    size_t rows_bytes;
    void *xrecv, *xblock;    /* [x_bytes] rows received in an exchange, and in block order */
    size_t x_bytes;
} xh5_series;

/* ---- errors --------------------------------------------------------------------------------- */

/* The innermost HDF5 error description (the first entry of the stack walked downward). */
static herr_t first_error(unsigned n, const H5E_error2_t *e, void *data)
{
    if (n == 0 && e->desc) snprintf(data, 256, "%s", e->desc);
    return 0;
}

/* HS_ERR_IO naming the file, what failed and HDF5's own reason. */
static hs_status h5_fail_at(const xh5_series *s, const char *file, int line, const char *func,
                            const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static hs_status h5_fail_at(const xh5_series *s, const char *file, int line, const char *func,
                            const char *fmt, ...)
{
    char what[512], why[256] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, first_error, why);
    H5Eclear2(H5E_DEFAULT);
    hs_status st = hs_error_set(HS_ERR_IO, file, line, func, "HDF5 series %s: %s%s%s", s->h5_path, what,
                                *why ? ": " : "", why);
    return st;
}
#define H5_FAIL(s, ...) h5_fail_at((s), __FILE__, __LINE__, __func__, __VA_ARGS__)

static void close_id(hid_t *id, herr_t (*close)(hid_t))
{
    if (*id >= 0) close(*id);
    *id = H5I_INVALID_HID;
}

/* Errors are reported through hs_status with HDF5's reason; HDF5's own printing would repeat them
 * on stderr. A thread-safe HDF5 keeps this setting per thread, and frames are written by the frame
 * writer thread, so every entry point that calls HDF5 says it again. */
static void quiet(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

/* A collective series: every rank returns the first failing rank's status and message. */
static hs_status agree(xh5_series *s, hs_status st)
{
#if HS_HAS_HDF5_PARALLEL
    if (!s->part) return st;
    return hs_mpi_agree(s->comm, st, NULL);
#else
    (void)s;
    return st;
#endif
}

/* File access: MPI-IO over the ranks for a collective series, the default (sec2) otherwise. */
static hid_t file_access(const xh5_series *s)
{
#if HS_HAS_HDF5_PARALLEL
    if (s->part) {
        hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
        if (fapl >= 0 && H5Pset_fapl_mpio(fapl, s->comm, MPI_INFO_NULL) < 0) {
            H5Pclose(fapl);
            return H5I_INVALID_HID;
        }
        return fapl;
    }
#endif
    (void)s;
    return H5Pcopy(H5P_FILE_ACCESS_DEFAULT);
}

/* ---- create / destroy ----------------------------------------------------------------------- */

/* ':' too: a data item reads "PREFIX.h5:/path" and readers split at the first ':'. */
static hs_status xh5_check_prefix(const char *prefix)
{
    return hs_xdmf_check_prefix(prefix, "xdmf_h5", ":");
}

static void xh5_close(xh5_series *s)
{
    close_id(&s->file, H5Fclose);
}

static void sel_free(xh5_sel *q)
{
    free(q->perm);
    free(q->gid);
    free(q->run0);
    free(q->run_len);
    free(q->scnt);
    free(q->sdsp);
    free(q->rcnt);
    free(q->rdsp);
    free(q->rpos);
    memset(q, 0, sizeof *q);
}

static void xh5_destroy(void *impl)
{
    xh5_series *s = impl;
    xh5_close(s);
    if (s->dxpl >= 0 && s->dxpl != H5P_DEFAULT) H5Pclose(s->dxpl);
    sel_free(&s->sel_node);
    sel_free(&s->sel_elem);
    free(s->rows);
    free(s->xrecv);
    free(s->xblock);
#if HS_HAS_HDF5_PARALLEL
    if (s->comm != MPI_COMM_NULL) MPI_Comm_free(&s->comm);
#endif
    free(s->h5_path);
    free(s->xml_h5);
    hs_xdmf_grids_free(&s->g);
    free(s->buf);
    free(s);
}

static hs_status xh5_create(const char *dir, const char *prefix, const char *index_path, void **out)
{
    hs_status st = HS_OK;
    xh5_series *s = NULL;
    char *name = NULL;
    HS_CALL(HS_ALLOC(s, 1, "XDMF/HDF5 series"));
    s->file = H5I_INVALID_HID;
    s->dxpl = H5P_DEFAULT;
#if HS_HAS_HDF5_PARALLEL
    s->comm = MPI_COMM_NULL;
#endif
    s->index_path = index_path;
    /* HDF5 1.10 keeps a file whose H5Fclose failed (its data could not reach the disk: a full disk, a
     * file size limit) registered half torn down, and its clean-up at exit closes it again and crashes
     * (SIGSEGV in H5F__close_cb), after the run had said its error: the exit status became 139 instead
     * of the I/O error's. Without the clean-up at exit nothing is lost: every series closes its file
     * when destroyed, and each frame was flushed and fsync'd before the index listed it. Takes effect
     * only before the library's first use (a no-op after). */
    H5dont_atexit();
    HS_CALL_GOTO(HS_ALLOC(name, strlen(prefix) + 4, "file name"), fail);
    snprintf(name, strlen(prefix) + 4, "%s.h5", prefix);
    HS_CALL_GOTO(hs_path_join(dir, name, &s->h5_path), fail);
    HS_CALL_GOTO(hs_xdmf_escape(name, &s->xml_h5), fail);
    quiet();
    free(name);
    *out = s;
    return HS_OK;
fail:
    free(name);
    xh5_destroy(s);
    return st;
}

#if HS_HAS_HDF5_PARALLEL
/* Rows gid [n] (global indices < n_global, distinct) sorted, their runs, the selection kind. */
static hs_status sel_build(xh5_sel *q, int32_t n, const int64_t *gid, int64_t n_global, int selection,
                           const char *what)
{
    hs_status st = HS_OK;
    hs_gid_at *v = NULL;
    q->n = n;
    HS_CALL(HS_ALLOC(v, (size_t)n + 1, "collective selection"));
    HS_CALL_GOTO(HS_ALLOC(q->perm, (size_t)n + 1, "collective selection"), done);
    HS_CALL_GOTO(HS_ALLOC(q->gid, (size_t)n + 1, "collective selection"), done);
    for (int32_t i = 0; i < n; ++i) {
        HS_CHECK_GOTO(gid[i] >= 0 && gid[i] < n_global, done, HS_ERR_INTERNAL,
                      "%s %d has global index %lld outside [0, %lld)", what, (int)i, (long long)gid[i],
                      (long long)n_global);
        v[i] = (hs_gid_at){gid[i], i};
    }
    qsort(v, (size_t)n, sizeof *v, hs_gid_at_cmp);
    q->n_runs = 0;
    for (int32_t k = 0; k < n; ++k) {
        HS_CHECK_GOTO(k == 0 || v[k].gid != v[k - 1].gid, done, HS_ERR_INTERNAL, "%s %lld given twice", what,
                      (long long)v[k].gid);
        q->perm[k] = v[k].i;
        q->gid[k] = (hsize_t)v[k].gid;
        q->n_runs += k == 0 || v[k].gid != v[k - 1].gid + 1;
    }
    HS_CALL_GOTO(HS_ALLOC(q->run0, (size_t)q->n_runs + 1, "collective selection"), done);
    HS_CALL_GOTO(HS_ALLOC(q->run_len, (size_t)q->n_runs + 1, "collective selection"), done);
    for (int32_t k = 0, r = -1; k < n; ++k) {
        if (k == 0 || q->gid[k] != q->gid[k - 1] + 1) q->run0[++r] = q->gid[k], q->run_len[r] = 0;
        q->run_len[r]++;
    }
    /* HDF5 1.10 handles a union of many hyperslabs, or many points, slowly: a graph partition's
     * thousands of runs take seconds a frame where one run takes 0.1 s (docs/benchmarks.md); a
     * partition into contiguous ranges has one run per rank */
    q->points = selection == HS_SERIES_SEL_POINTS; /* exchange: decided by create_part over all ranks */
done:
    free(v);
    return st;
}

/* First global index of block r of n_global over n_ranks. */
static int64_t block_start(int64_t n_global, int r, int n_ranks)
{
    return (int64_t)((__int128)n_global * r / n_ranks);
}

/* The exchange of selection @p q (q->exchange): who sends which rows where, once. Collective. */
static hs_status sel_exchange_setup(xh5_series *s, xh5_sel *q, int64_t n_global, const char *what)
{
    hs_status st = HS_OK;
    const int P = s->n_ranks;
    int64_t *rg = NULL;
    HS_CALL(HS_ALLOC(q->scnt, (size_t)P, "exchange"));
    HS_CALL(HS_ALLOC(q->sdsp, (size_t)P, "exchange"));
    HS_CALL(HS_ALLOC(q->rcnt, (size_t)P, "exchange"));
    HS_CALL(HS_ALLOC(q->rdsp, (size_t)P, "exchange"));
    q->blk0 = block_start(n_global, s->rank, P);
    const int64_t blk_n = block_start(n_global, s->rank + 1, P) - q->blk0;
    HS_CHECK(blk_n <= INT32_MAX, HS_ERR_CONFIG, "HDF5 series %s: a block of %lld %ss", s->h5_path, (long long)blk_n, what);
    q->blk_n = (int32_t)blk_n;
    /* the gids are sorted, so the rows for each rank are consecutive */
    for (int32_t k = 0, r = 0; k < q->n; ++k) {
        while (r + 1 < P && (int64_t)q->gid[k] >= block_start(n_global, r + 1, P)) ++r;
        q->scnt[r]++;
    }
    for (int r = 1; r < P; ++r) q->sdsp[r] = q->sdsp[r - 1] + q->scnt[r - 1];
    MPI_Alltoall(q->scnt, 1, MPI_INT, q->rcnt, 1, MPI_INT, s->comm);
    int64_t got = 0;
    for (int r = 0; r < P; ++r) {
        q->rdsp[r] = (int)got;
        got += q->rcnt[r];
    }
    /* every rank checks its block is covered once: the ranks' gids partition [0, n_global) */
    HS_CHECK(got == blk_n, HS_ERR_INTERNAL, "HDF5 series %s: rank %d receives %lld %ss for its block of %lld",
             s->h5_path, s->rank, (long long)got, what, (long long)blk_n);
    HS_CALL(HS_ALLOC(rg, (size_t)got + 1, "exchange"));
    HS_CALL_GOTO(HS_ALLOC(q->rpos, (size_t)got + 1, "exchange"), done);
    int64_t *sg = NULL;
    HS_CALL_GOTO(HS_ALLOC(sg, (size_t)q->n + 1, "exchange"), done);
    for (int32_t k = 0; k < q->n; ++k) sg[k] = (int64_t)q->gid[k];
    MPI_Alltoallv(sg, q->scnt, q->sdsp, MPI_INT64_T, rg, q->rcnt, q->rdsp, MPI_INT64_T, s->comm);
    free(sg);
    for (int64_t k = 0; k < got; ++k) {
        const int64_t p = rg[k] - q->blk0;
        HS_CHECK_GOTO(p >= 0 && p < blk_n, done, HS_ERR_INTERNAL, "HDF5 series %s: %s %lld sent to the wrong rank",
                      s->h5_path, what, (long long)rg[k]);
        q->rpos[k] = (int32_t)p;
    }
done:
    free(rg);
    return st;
}

/* Rows @p sorted (q->n rows of @p row bytes, global-index order) to the ranks whose blocks hold them;
 * the block of this rank in order into s->xblock. Collective. */
static const void *exchange_rows(xh5_series *s, const xh5_sel *q, const void *sorted, size_t row)
{
    MPI_Datatype t;
    MPI_Type_contiguous((int)row, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    MPI_Alltoallv(sorted, q->scnt, q->sdsp, t, s->xrecv, q->rcnt, q->rdsp, t, s->comm);
    MPI_Type_free(&t);
    const char *in = s->xrecv;
    char *out = s->xblock;
    for (int32_t k = 0; k < q->blk_n; ++k) memcpy(out + (size_t)q->rpos[k] * row, in + (size_t)k * row, row);
    return out;
}

static hs_status xh5_create_part(const char *dir, const char *prefix, const char *index_path,
                                 const hs_series_part *part, void **out)
{
    *out = NULL;
    void *impl = NULL;
    const MPI_Comm given = *(const MPI_Comm *)part->comm;
    hs_status st = xh5_create(dir, prefix, index_path, &impl);
    xh5_series *s = impl;
    if (st == HS_OK) {
        s->part = 1;
        s->pt = part;
        if (MPI_Comm_dup(given, &s->comm) != MPI_SUCCESS) {
            s->comm = MPI_COMM_NULL;
            st = HS_FAIL(HS_ERR_INTERNAL, "HDF5 series %s: MPI_Comm_dup failed", s->h5_path);
        }
    }
    if (st != HS_OK) { /* every rank fails here alike, or the communicator is not usable to agree on */
        if (s) xh5_destroy(s);
        return st;
    }
    MPI_Comm_rank(s->comm, &s->rank);
    MPI_Comm_size(s->comm, &s->n_ranks);
    HS_CHECK_GOTO(part->n_nodes_global <= INT32_MAX && part->n_elems_global <= INT32_MAX, fail, HS_ERR_CONFIG,
                  "HDF5 series %s: %lld nodes, %lld elements: the XDMF index and /mesh/cells hold 32-bit counts "
                  "and node indices", s->h5_path, (long long)part->n_nodes_global, (long long)part->n_elems_global);
    HS_CALL_GOTO(sel_build(&s->sel_node, part->n_nodes, part->node_gid, part->n_nodes_global, part->selection, "node"),
                 fail);
    HS_CALL_GOTO(sel_build(&s->sel_elem, part->n_elems, part->elem_gid, part->n_elems_global, part->selection,
                           "element"), fail);
    /* every rank decides the same way (the largest run count), so the collective calls match */
    int64_t runs[2] = {s->sel_node.n_runs, s->sel_elem.n_runs};
    MPI_Allreduce(MPI_IN_PLACE, runs, 2, MPI_INT64_T, MPI_MAX, s->comm);
    s->sel_node.exchange = part->selection == HS_SERIES_SEL_EXCHANGE || (part->selection == HS_SERIES_SEL_AUTO && runs[0] > 16);
    s->sel_elem.exchange = part->selection == HS_SERIES_SEL_EXCHANGE || (part->selection == HS_SERIES_SEL_AUTO && runs[1] > 16);
    if (s->sel_node.exchange) HS_CALL_GOTO(sel_exchange_setup(s, &s->sel_node, part->n_nodes_global, "node"), fail);
    if (s->sel_elem.exchange) HS_CALL_GOTO(sel_exchange_setup(s, &s->sel_elem, part->n_elems_global, "element"), fail);
    /* every buffer a frame needs, now: a rank that failed half-way through a frame would leave the
     * others waiting in a collective transfer */
    const size_t nn = (size_t)part->n_nodes, ne = (size_t)part->n_elems;
    const size_t most = nn > ne ? nn : ne;
    s->rows_bytes = 3 * nn * sizeof(double);
    if (4 * ne * sizeof(int32_t) > s->rows_bytes) s->rows_bytes = 4 * ne * sizeof(int32_t);
    if (3 * ne * sizeof(double) > s->rows_bytes) s->rows_bytes = 3 * ne * sizeof(double);
    s->rows = malloc(s->rows_bytes + 8);
    s->buf = malloc((most + 1) * sizeof *s->buf);
    /* a row is at most 3 doubles (points, fibres) */
    s->x_bytes = 3 * sizeof(double) * (size_t)(s->sel_node.blk_n > s->sel_elem.blk_n ? s->sel_node.blk_n : s->sel_elem.blk_n);
    s->xrecv = malloc(s->x_bytes + 8);
    s->xblock = malloc(s->x_bytes + 8);
    HS_CHECK_GOTO(s->rows && s->buf && s->xrecv && s->xblock, fail, HS_ERR_MEMORY, "HDF5 series %s: out of memory for %zu rows", s->h5_path,
                  most);
    s->buf_len = most;
    s->dxpl = H5Pcreate(H5P_DATASET_XFER);
    if (s->dxpl < 0 || H5Pset_dxpl_mpio(s->dxpl, H5FD_MPIO_COLLECTIVE) < 0) {
        st = H5_FAIL(s, "cannot set up collective transfers");
        goto fail;
    }
fail:
    st = agree(s, st);
    if (st != HS_OK) {
        xh5_destroy(s);
        return st;
    }
    if (s->rank == 0)
        hs_log(1, "output: %s written collectively by %d ranks (MPI-IO); rank 0's %d nodes in %lld runs of global "
               "indices: %s\n", s->h5_path, s->n_ranks, (int)s->sel_node.n, (long long)s->sel_node.n_runs,
               s->sel_node.exchange ? "exchanged into blocks" : s->sel_node.points ? "point selection" : "hyperslabs");
    *out = s;
    return HS_OK;
}

/* Select this rank's rows of a [rows][cols] dataset's file space @p space. */
static hs_status select_rows(xh5_series *s, hid_t space, const xh5_sel *q, int cols)
{
    herr_t e = 0;
    if (q->exchange) {
        hsize_t start[2] = {(hsize_t)q->blk0, 0}, count[2] = {(hsize_t)q->blk_n, (hsize_t)cols};
        e = q->blk_n ? H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL) : H5Sselect_none(space);
    } else if (q->n == 0) {
        e = H5Sselect_none(space);
    } else if (q->points) {
        const int rank = cols > 1 ? 2 : 1;
        const size_t np = (size_t)q->n * (size_t)cols;
        hsize_t *c = malloc(np * (size_t)rank * sizeof *c);
        HS_CHECK(c, HS_ERR_MEMORY, "HDF5 series %s: out of memory for a point selection of %zu values", s->h5_path, np);
        for (size_t k = 0, o = 0; k < (size_t)q->n; ++k)
            for (int j = 0; j < cols; ++j) {
                c[o++] = q->gid[k];
                if (rank == 2) c[o++] = (hsize_t)j;
            }
        e = H5Sselect_elements(space, H5S_SELECT_SET, np, c);
        free(c);
    } else {
        for (int64_t r = 0; r < q->n_runs && e >= 0; ++r) {
            hsize_t start[2] = {q->run0[r], 0}, count[2] = {q->run_len[r], (hsize_t)cols};
            e = H5Sselect_hyperslab(space, r ? H5S_SELECT_OR : H5S_SELECT_SET, start, NULL, count, NULL);
        }
    }
    if (e < 0) return H5_FAIL(s, "cannot select this rank's rows (%d, %lld runs)", (int)q->n, (long long)q->n_runs);
    return HS_OK;
}
#endif

/* ---- index text ----------------------------------------------------------------------------- */

/* One HDF DataItem: [rows] or [rows][cols] of @p type/@p precision at PREFIX.h5:@p path. */
static hs_status put_item(xh5_series *s, const char *type, int precision, int32_t rows, int cols,
                          const char *path)
{
    char dims[32];
    if (cols > 1)
        snprintf(dims, sizeof dims, "%d %d", (int)rows, cols);
    else
        snprintf(dims, sizeof dims, "%d", (int)rows);
    return hs_xdmf_grids_printf(&s->g,
                                "          <DataItem Format=\"HDF\" NumberType=\"%s\" Precision=\"%d\" "
                                "Dimensions=\"%s\">%s:%s</DataItem>\n",
                                type, precision, dims, s->xml_h5, path);
}

static hs_status put_attribute(xh5_series *s, const char *name, int cell, const char *type, int precision,
                               int cols, const char *path)
{
    HS_CALL(hs_xdmf_grids_printf(&s->g, "        <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"%s\">\n", name,
                         cols == 3 ? "Vector" : "Scalar", cell ? "Cell" : "Node"));
    HS_CALL(put_item(s, type, precision, cell ? s->n_elems : s->n_nodes, cols, path));
    return hs_xdmf_grids_printf(&s->g, "        </Attribute>\n");
}

/* A frame as the index needs it: time, fields in file order, mesh arrays. */
typedef struct frame_desc {
    double time;
    int n;
    const char *name[HS_FRAME_MAX_FIELDS];
    int cell[HS_FRAME_MAX_FIELDS];
    int mesh_arrays;
} frame_desc;

/* Append frame @p index's <Grid> element. */
static hs_status put_grid(xh5_series *s, int index, const frame_desc *d)
{
    char tbuf[40], path[64 + 64];
    hs_xdmf_format_time(d->time, tbuf, sizeof tbuf);
    HS_CALL(hs_xdmf_grids_printf(&s->g, "      " HS_XDMF_GRID_OPEN " Name=\"frame_%06d\">\n", index));
    HS_CALL(hs_xdmf_grids_printf(&s->g, "        <Time Value=\"%s\"/>\n", tbuf));
    HS_CALL(hs_xdmf_grids_printf(&s->g, "        <Topology TopologyType=\"Tetrahedron\" NumberOfElements=\"%d\">\n",
                         (int)s->n_elems));
    HS_CALL(put_item(s, "Int", 4, s->n_elems, 4, "/mesh/cells"));
    HS_CALL(hs_xdmf_grids_printf(&s->g, "        </Topology>\n        <Geometry GeometryType=\"XYZ\">\n"));
    HS_CALL(put_item(s, "Float", 8, s->n_nodes, 3, "/mesh/points"));
    HS_CALL(hs_xdmf_grids_printf(&s->g, "        </Geometry>\n"));
    for (int k = 0; k < d->n; ++k) {
        snprintf(path, sizeof path, "/frames/%06d/%s", index, d->name[k]);
        HS_CALL(put_attribute(s, d->name[k], d->cell[k], "Float", 4, 1, path));
    }
    if (d->mesh_arrays & HS_MESH_FIELD_FIBER) HS_CALL(put_attribute(s, "fiber", 1, "Float", 8, 3, "/mesh/fiber"));
    if (d->mesh_arrays & HS_MESH_FIELD_REGION) HS_CALL(put_attribute(s, "region", 1, "Int", 4, 1, "/mesh/region"));
    return hs_xdmf_grids_printf(&s->g, "      </Grid>\n");
}

/* ---- HDF5 helpers --------------------------------------------------------------------------- */

static void frame_group_name(int index, char buf[32])
{
    snprintf(buf, 32, "/frames/%06d", index);
}

/* 1 when @p path (absolute, one or two levels) exists in the file, 0 when not, -1 on error. */
static int link_exists(hid_t file, const char *path)
{
    char parent[64];
    const char *slash = strrchr(path, '/');
    if (slash != path) { /* the parent must exist before H5Lexists may ask for the child */
        size_t n = (size_t)(slash - path);
        if (n >= sizeof parent) return -1;
        memcpy(parent, path, n);
        parent[n] = '\0';
        htri_t p = H5Lexists(file, parent, H5P_DEFAULT);
        if (p <= 0) return p < 0 ? -1 : 0;
    }
    htri_t e = H5Lexists(file, path, H5P_DEFAULT);
    return e < 0 ? -1 : e > 0;
}

/* Create dataset @p path (and the groups above it) in @p loc: [rows] or [rows][cols] of file type
 * @p ftype; chunked when @p chunked (fields, at most HS_H5_CHUNK_VALUES rows a chunk), else
 * contiguous (the mesh, written once). *ds its id. */
static hs_status create_dataset(xh5_series *s, hid_t loc, const char *path, hid_t ftype, size_t rows, int cols,
                                int chunked, hid_t *ds)
{
    hs_status st = HS_OK;
    hsize_t dims[2] = {rows, (hsize_t)cols};
    const int rank = cols > 1 ? 2 : 1;
    hid_t space = H5I_INVALID_HID, dcpl = H5I_INVALID_HID, lcpl = H5I_INVALID_HID;
    *ds = H5I_INVALID_HID;
    space = H5Screate_simple(rank, dims, NULL);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    lcpl = H5Pcreate(H5P_LINK_CREATE);
    if (space < 0 || dcpl < 0 || lcpl < 0 || H5Pset_create_intermediate_group(lcpl, 1) < 0) {
        st = H5_FAIL(s, "cannot set up dataset %s", path);
        goto done;
    }
    if (chunked && rows > 0) {
        hsize_t chunk[2] = {rows < HS_H5_CHUNK_VALUES ? rows : HS_H5_CHUNK_VALUES, (hsize_t)cols};
        if (H5Pset_chunk(dcpl, rank, chunk) < 0) {
            st = H5_FAIL(s, "cannot set the chunks of dataset %s", path);
            goto done;
        }
    }
    *ds = H5Dcreate2(loc, path, ftype, space, lcpl, dcpl, H5P_DEFAULT);
    if (*ds < 0) st = H5_FAIL(s, "cannot create dataset %s", path);
done:
    close_id(&lcpl, H5Pclose);
    close_id(&dcpl, H5Pclose);
    close_id(&space, H5Sclose);
    return st;
}

/* Write @p data as dataset @p path: [rows] or [rows][cols] of file type @p ftype from memory type
 * @p mtype; chunked when @p chunked (fields), else contiguous (the mesh, written once). In a
 * collective series (@p q not NULL) rows is the global count and @p data this rank's q->n rows in
 * global-index order, written collectively. */
static hs_status write_dataset(xh5_series *s, hid_t loc, const char *path, hid_t ftype, hid_t mtype,
                               size_t rows, int cols, int chunked, const xh5_sel *q, const void *data, hid_t *out)
{
    hs_status st = HS_OK;
    hid_t ds = H5I_INVALID_HID, mspace = H5S_ALL, fspace = H5S_ALL;
    HS_CALL(create_dataset(s, loc, path, ftype, rows, cols, chunked, &ds));
#if HS_HAS_HDF5_PARALLEL
    if (q && rows > 0) {
        const int32_t n = q->exchange ? q->blk_n : q->n;
        if (q->exchange) data = exchange_rows(s, q, data, (size_t)cols * H5Tget_size(mtype));
        hsize_t mdims[2] = {n ? (hsize_t)n : 1, (hsize_t)cols};
        fspace = H5Dget_space(ds);
        mspace = H5Screate_simple(cols > 1 ? 2 : 1, mdims, NULL);
        if (fspace < 0 || mspace < 0 || (n == 0 && H5Sselect_none(mspace) < 0)) {
            st = H5_FAIL(s, "cannot set up the selection of dataset %s", path);
            goto done;
        }
        HS_CALL_GOTO(select_rows(s, fspace, q, cols), done);
    }
#else
    (void)q;
#endif
    if (rows > 0 && H5Dwrite(ds, mtype, mspace, fspace, s->dxpl, data) < 0) {
        st = H5_FAIL(s, "cannot write dataset %s (%zu values)", path, rows * (size_t)cols);
        goto done;
    }
done:
    if (mspace != H5S_ALL) H5Sclose(mspace);
    if (fspace != H5S_ALL) H5Sclose(fspace);
    if (st == HS_OK && out) {
        *out = ds;
        ds = H5I_INVALID_HID;
    }
    close_id(&ds, H5Dclose);
    return st;
}

/* Scalar attribute @p name of @p obj: int32 or float64 from @p value. */
static hs_status put_scalar_attr(xh5_series *s, hid_t obj, const char *name, hid_t ftype, hid_t mtype,
                                 const void *value)
{
    hs_status st = HS_OK;
    hid_t space = H5Screate(H5S_SCALAR), a = H5I_INVALID_HID;
    if (space >= 0) a = H5Acreate2(obj, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0 || H5Awrite(a, mtype, value) < 0) st = H5_FAIL(s, "cannot write attribute %s", name);
    close_id(&a, H5Aclose);
    close_id(&space, H5Sclose);
    return st;
}

static hs_status put_string_attr(xh5_series *s, hid_t obj, const char *name, const char *value)
{
    hs_status st = HS_OK;
    hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate(H5S_SCALAR), a = H5I_INVALID_HID;
    if (type >= 0 && space >= 0 && H5Tset_size(type, strlen(value) + 1) >= 0 && H5Tset_strpad(type, H5T_STR_NULLTERM) >= 0)
        a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0 || H5Awrite(a, type, value) < 0) st = H5_FAIL(s, "cannot write attribute %s", name);
    close_id(&a, H5Aclose);
    close_id(&space, H5Sclose);
    close_id(&type, H5Tclose);
    return st;
}

/* Flush HDF5's buffers into the file and the file to the disk. */
static hs_status flush_file(xh5_series *s)
{
    if (H5Fflush(s->file, H5F_SCOPE_GLOBAL) < 0) return H5_FAIL(s, "cannot flush the file");
    if (s->part) return HS_OK; /* through MPI-IO, H5Fflush ends in MPI_File_sync */
    void *handle = NULL;
    if (H5Fget_vfd_handle(s->file, H5P_DEFAULT, &handle) < 0 || !handle)
        return H5_FAIL(s, "cannot get the file descriptor to fsync");
    if (fsync(*(int *)handle) != 0) { /* the default (sec2) driver's handle is the int descriptor */
        int err = errno;
        return HS_FAIL(HS_ERR_IO, "HDF5 series %s: fsync: %s", s->h5_path, strerror(err));
    }
    return HS_OK;
}

/* Delete the groups of frames @p from, from + 1, ... that exist (past the index). */
static hs_status drop_frames_from(xh5_series *s, int from, int *dropped)
{
    *dropped = 0;
    for (int i = from;; ++i) {
        char g[32];
        frame_group_name(i, g);
        int e = link_exists(s->file, g);
        if (e < 0) return H5_FAIL(s, "cannot look for %s", g);
        if (!e) return HS_OK;
        if (H5Ldelete(s->file, g, H5P_DEFAULT) < 0) return H5_FAIL(s, "cannot delete %s", g);
        ++*dropped;
    }
}

/* ---- write ---------------------------------------------------------------------------------- */

/* The rank's rows of a mesh array in global-index order, into s->rows: @p cols values of @p size
 * bytes per row from @p src (a collective series). */
static const void *rows_sorted(xh5_series *s, const xh5_sel *q, const void *src, int cols, size_t size)
{
    char *dst = s->rows;
    const size_t row = (size_t)cols * size;
    for (int32_t k = 0; k < q->n; ++k) memcpy(dst + (size_t)k * row, (const char *)src + (size_t)q->perm[k] * row, row);
    return dst;
}

/* This rank's connectivity as int32 global node indices in global element order, into s->rows;
 * every index checked: one out of range makes readers crash or draw garbage. */
static hs_status cells_sorted(xh5_series *s, const void **out)
{
    const hs_series_part *p = s->pt;
    int32_t *c = s->rows;
    for (int32_t k = 0; k < s->sel_elem.n; ++k)
        for (int j = 0; j < 4; ++j) {
            const int64_t v = p->tets[4 * (size_t)s->sel_elem.perm[k] + (size_t)j];
            HS_CHECK(v >= 0 && v < p->n_nodes_global, HS_ERR_INTERNAL,
                     "element %lld has node index %lld outside [0, %lld)", (long long)s->sel_elem.gid[k],
                     (long long)v, (long long)p->n_nodes_global);
            c[4 * (size_t)k + (size_t)j] = (int32_t)v;
        }
    *out = c;
    return HS_OK;
}

/* Node indices are checked: an index out of range makes readers crash or draw garbage. In a
 * collective series the mesh is the part's (m NULL). */
static hs_status write_mesh(xh5_series *s, const hs_mesh *m, int mesh_arrays)
{
    const hs_series_part *p = s->pt;
    const size_t nn = m ? (size_t)m->n_nodes : (size_t)p->n_nodes_global;
    const size_t ne = m ? (size_t)m->n_elems : (size_t)p->n_elems_global;
    const xh5_sel *qn = m ? NULL : &s->sel_node, *qe = m ? NULL : &s->sel_elem;
    int e = link_exists(s->file, "/mesh/points");
    if (e < 0) return H5_FAIL(s, "cannot look for /mesh/points");
    if (!e) {
        const void *xyz = NULL, *tets = NULL;
        if (m) {
            for (size_t i = 0; i < 4 * ne; ++i)
                HS_CHECK(m->tets[i] >= 0 && m->tets[i] < m->n_nodes, HS_ERR_INTERNAL,
                         "element %zu has node index %d outside [0, %d)", i / 4, (int)m->tets[i], (int)m->n_nodes);
            xyz = m->xyz;
            tets = m->tets;
        } else {
            xyz = rows_sorted(s, qn, p->xyz, 3, sizeof(double));
        }
        HS_CALL(write_dataset(s, s->file, "/mesh/points", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, nn, 3, 0, qn, xyz, NULL));
        if (!m) HS_CALL(cells_sorted(s, &tets));
        HS_CALL(write_dataset(s, s->file, "/mesh/cells", H5T_STD_I32LE, H5T_NATIVE_INT32, ne, 4, 0, qe, tets, NULL));
    }
    if (mesh_arrays & HS_MESH_FIELD_REGION) {
        if ((e = link_exists(s->file, "/mesh/region")) < 0) return H5_FAIL(s, "cannot look for /mesh/region");
        if (!e)
            HS_CALL(write_dataset(s, s->file, "/mesh/region", H5T_STD_I32LE, H5T_NATIVE_INT32, ne, 1, 0, qe,
                                  m ? (const void *)m->region : rows_sorted(s, qe, p->region, 1, sizeof(int32_t)),
                                  NULL));
    }
    if (mesh_arrays & HS_MESH_FIELD_FIBER) {
        if ((e = link_exists(s->file, "/mesh/fiber")) < 0) return H5_FAIL(s, "cannot look for /mesh/fiber");
        if (!e)
            HS_CALL(write_dataset(s, s->file, "/mesh/fiber", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, ne, 3, 0, qe,
                                  m ? (const void *)m->fiber : rows_sorted(s, qe, p->fiber, 3, sizeof(double)), NULL));
    }
    return HS_OK;
}

/* out[k] = float32 of x[perm[k]] (x[k] without @p perm): scale * x + offset in double, rounded once, when
 * @p a is mapped: how every path of this format rounds a field */
static void round_f32(const hs_frame_field *a, const double *x, const int32_t *perm, size_t n, float *out)
{
    if (a->mapped)
        for (size_t k = 0; k < n; ++k) out[k] = (float)(a->scale * x[perm ? perm[k] : (int64_t)k] + a->offset);
    else
        for (size_t k = 0; k < n; ++k) out[k] = (float)x[perm ? perm[k] : (int64_t)k];
}

/* float32 of field @p a [n] into buf (round_f32); with @p perm [n] (a collective series) buf[k] is that
 * of a->data[perm[k]]. */
static hs_status to_f32(xh5_series *s, const hs_frame_field *a, size_t n, const int32_t *perm)
{
    if (!perm && n > s->buf_len) {
        float *b = realloc(s->buf, (n ? n : 1) * sizeof *b);
        HS_CHECK(b, HS_ERR_MEMORY, "out of memory for %zu float32 values of field %s", n, a->name);
        s->buf = b;
        s->buf_len = n;
    }
    round_f32(a, a->data, perm, n, s->buf);
    return HS_OK;
}

/* Frame @p index's group, with its time_ms and mesh_arrays attributes, into *grp (the fields and their
 * "fields" attribute come after). */
static hs_status group_create(xh5_series *s, int index, double time_ms, int mesh_arrays, hid_t *grp)
{
    hs_status st = HS_OK;
    char g[32];
    frame_group_name(index, g);
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    if (lcpl < 0 || H5Pset_create_intermediate_group(lcpl, 1) < 0 ||
        (*grp = H5Gcreate2(s->file, g, lcpl, H5P_DEFAULT, H5P_DEFAULT)) < 0) {
        st = H5_FAIL(s, "cannot create group %s", g);
        goto done;
    }
    HS_CALL_GOTO(put_scalar_attr(s, *grp, "time_ms", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &time_ms), done);
    const int32_t bits = mesh_arrays;
    HS_CALL_GOTO(put_scalar_attr(s, *grp, "mesh_arrays", H5T_STD_I32LE, H5T_NATIVE_INT32, &bits), done);
done:
    close_id(&lcpl, H5Pclose);
    return st;
}

static hs_status write_frame_group(xh5_series *s, int index, const hs_frame *fr, const int *order, int n,
                                   int mesh_arrays)
{
    hs_status st = HS_OK;
    char names[HS_FRAME_MAX_FIELDS * 64 + 1] = "";
    hid_t grp = H5I_INVALID_HID, ds = H5I_INVALID_HID;
    HS_CALL_GOTO(group_create(s, index, fr->time_ms, mesh_arrays, &grp), done);
    for (int k = 0; k < n; ++k) {
        const hs_frame_field *a = &fr->field[order[k]];
        HS_CHECK_GOTO(strlen(a->name) < 64, done, HS_ERR_INTERNAL, "frame field name %s is too long", a->name);
        if (k) strcat(names, " ");
        strcat(names, a->name);
        const size_t len = (size_t)(a->cell ? s->n_elems : s->n_nodes);
        const xh5_sel *q = !s->part ? NULL : a->cell ? &s->sel_elem : &s->sel_node;
        HS_CALL_GOTO(to_f32(s, a, q ? (size_t)q->n : len, q ? q->perm : NULL), done);
        HS_CALL_GOTO(write_dataset(s, grp, a->name, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, len, 1, 1, q, s->buf, &ds), done);
        const int32_t cell = a->cell;
        HS_CALL_GOTO(put_scalar_attr(s, ds, "cell", H5T_STD_I32LE, H5T_NATIVE_INT32, &cell), done);
        close_id(&ds, H5Dclose);
    }
    HS_CALL_GOTO(put_string_attr(s, grp, "fields", names), done);
done:
    close_id(&ds, H5Dclose);
    close_id(&grp, H5Gclose);
    return st;
}

static hs_status write_frame(xh5_series *s, int index, const hs_mesh *mesh, const hs_frame *frame);
static hs_status stream_write_frame(xh5_series *s, int index, const hs_frame *frame);

static hs_status xh5_write_frame(void *impl, int index, const char *path, const hs_mesh *mesh,
                                 const hs_frame *frame)
{
    (void)path; /* NULL: no file per frame */
    xh5_series *s = impl;
    quiet();
    if (s->pg) return stream_write_frame(s, index, frame);
    return agree(s, write_frame(s, index, mesh, frame));
}

/* What the writing process does first for every frame: one mesh per series, room for the frame's grid
 * text, the file (made by the first frame of a new series), and the frame's description @p d (fields in
 * the file's order @p order, @p n of them). */
static hs_status frame_begin(xh5_series *s, int index, int32_t nn, int32_t ne, const hs_frame *frame,
                             const int *order, int n, int mesh_arrays, frame_desc *d)
{
    HS_CHECK(!s->mesh_known || (nn == s->n_nodes && ne == s->n_elems), HS_ERR_INTERNAL,
             "XDMF/HDF5 series %s holds a mesh of %d nodes and %d elements; frame %d has %d and %d "
             "(one mesh per series)",
             s->h5_path, (int)s->n_nodes, (int)s->n_elems, index, (int)nn, (int)ne);
    HS_CALL(hs_xdmf_grids_reserve(&s->g, index + 1));
    if (s->file < 0) {
        /* a new series (a resume opens the old file instead): an older file of this name goes */
        hid_t fapl = file_access(s);
        if (fapl >= 0) s->file = H5Fcreate(s->h5_path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        if (fapl >= 0) H5Pclose(fapl);
        if (s->file < 0) return H5_FAIL(s, "cannot create the file");
    }
    memset(d, 0, sizeof *d);
    d->time = frame->time_ms;
    d->n = n;
    d->mesh_arrays = mesh_arrays;
    for (int k = 0; k < n; ++k) {
        d->name[k] = frame->field[order[k]].name;
        d->cell[k] = frame->field[order[k]].cell;
    }
    s->n_nodes = nn; /* before the mesh is written: a distributed series' sizes */
    s->n_elems = ne;
    return HS_OK;
}

/* What the writing process does last for every frame: the file to the disk, and only then the frame's
 * grid text (the text after frame index - 1 is that of a frame whose index could not be written: this
 * frame replaces it). */
static hs_status frame_end(xh5_series *s, int index, const frame_desc *d)
{
    HS_CALL(flush_file(s));
    hs_xdmf_grids_keep(&s->g, index);
    HS_CALL(put_grid(s, index, d));
    hs_xdmf_grids_mark(&s->g, index);
    return HS_OK;
}

static hs_status write_frame(xh5_series *s, int index, const hs_mesh *mesh, const hs_frame *frame)
{
    const int32_t nn = mesh ? mesh->n_nodes : (int32_t)s->pt->n_nodes_global;
    const int32_t ne = mesh ? mesh->n_elems : (int32_t)s->pt->n_elems_global;
    HS_CHECK((mesh != NULL) != s->part, HS_ERR_INTERNAL, "XDMF/HDF5 series %s: a mesh %s", s->h5_path,
             s->part ? "given to a collective series" : "missing");
    int mesh_arrays = 0, order[HS_FRAME_MAX_FIELDS];
    if (mesh) {
        mesh_arrays = hs_frame_mesh_arrays(frame, mesh);
    } else { /* the part's arrays, as hs_frame_mesh_arrays judges a mesh's */
        if (s->pt->region) mesh_arrays |= frame->mesh_fields & HS_MESH_FIELD_REGION;
        if (s->pt->fiber) mesh_arrays |= frame->mesh_fields & HS_MESH_FIELD_FIBER;
    }
    frame_desc d;
    HS_CALL(frame_begin(s, index, nn, ne, frame, order, hs_frame_order(frame, order), mesh_arrays, &d));
    HS_CALL(write_mesh(s, mesh, d.mesh_arrays));
    s->mesh_known = 1;

    /* A frame of this number from a failed index write, or past a resume point, is replaced. */
    int dropped = 0;
    HS_CALL(drop_frames_from(s, index, &dropped));
    HS_CALL(write_frame_group(s, index, frame, order, d.n, d.mesh_arrays));
    return frame_end(s, index, &d);
}

/* ---- a series streamed through rank 0 (create_stream) --------------------------------------- */

/* How the rows of one dataset arrive at rank 0: as the file holds them (points, region, fibres), int32
 * connectivity to check (hs_part_gather_rows_i32: -1 for an index beyond 2^31), or a frame's field in
 * double, written as float32 the way the serial writer rounds it (to_f32). */
enum { ROWS_AS_IS, ROWS_TETS, ROWS_FIELD };

typedef struct h5_rows {
    xh5_series *s;
    hid_t ds;                   /* rank 0: the dataset being written; H5I_INVALID_HID elsewhere */
    hid_t mtype;                /* the memory type of what H5Dwrite gets */
    int cols, kind;
    const char *path;
    const hs_frame_field *field; /* ROWS_FIELD */
    int64_t nn;                 /* ROWS_TETS: node indices lie in [0, nn) */
    hs_status st;               /* rank 0's first failure: nothing is written after it */
} h5_rows;

/* Rows [first, first + n) of @p ds from @p data ([n][cols] of @p mtype), one hyperslab. */
static hs_status write_rows(xh5_series *s, hid_t ds, hid_t mtype, int64_t first, int64_t n, int cols,
                            const void *data, const char *path)
{
    hs_status st = HS_OK;
    hsize_t start[2] = {(hsize_t)first, 0}, count[2] = {(hsize_t)n, (hsize_t)cols};
    hid_t fspace = H5Dget_space(ds), mspace = H5Screate_simple(cols > 1 ? 2 : 1, count, NULL);
    if (fspace < 0 || mspace < 0 || H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
        H5Dwrite(ds, mtype, mspace, fspace, H5P_DEFAULT, data) < 0)
        st = H5_FAIL(s, "cannot write rows [%lld, %lld) of dataset %s", (long long)first, (long long)(first + n), path);
    close_id(&mspace, H5Sclose);
    close_id(&fspace, H5Sclose);
    return st;
}

/* Rank 0: a chunk of rows in global order (hs_part_gather_put), written before the next comes. */
static hs_status put_h5_rows(void *ctx, int64_t first, int64_t n, const void *rows)
{
    h5_rows *r = ctx;
    xh5_series *s = r->s;
    if (r->st != HS_OK) return r->st;
    const void *data = rows;
    if (r->kind == ROWS_TETS) { /* an index out of range makes readers crash or draw garbage */
        const int32_t *t = rows;
        for (int64_t i = 0; i < 4 * n; ++i)
            if (t[i] < 0 || t[i] >= r->nn)
                return r->st = HS_FAIL(HS_ERR_INTERNAL, "element %lld has node index %s%d outside [0, %lld)",
                                       (long long)(first + i / 4), t[i] < 0 ? "(beyond 2^31, or negative) " : "",
                                       (int)t[i], (long long)r->nn);
    } else if (r->kind == ROWS_FIELD) {
        if ((size_t)n > s->buf_len) { /* one chunk's values (at most the gather's chunk), kept for the next */
            free(s->buf);
            s->buf = NULL;
            s->buf_len = 0;
            HS_CALL(r->st = HS_ALLOC(s->buf, (size_t)n, "XDMF/HDF5 chunk"));
            s->buf_len = (size_t)n;
        }
        round_f32(r->field, rows, NULL, (size_t)n, s->buf);
        data = s->buf;
    }
    return r->st = write_rows(s, r->ds, r->mtype, first, n, r->cols, data, r->path);
}

/* Dataset @p path of @p loc ([rows][cols] of @p ftype) made by rank 0 and written there from every
 * rank's rows @p src (@p row bytes each; the part's order; NULL: zeros) as they arrive; a field gets
 * its "cell" attribute as the serial writer gives it. Collective; rank 0's status, agreed. */
static hs_status stream_dataset(xh5_series *s, hid_t loc, const char *path, hid_t ftype, hid_t mtype, int kind,
                                int cell, size_t rows, int cols, const void *src, size_t row,
                                const hs_frame_field *field)
{
    h5_rows r = {s, H5I_INVALID_HID, mtype, cols, kind, path, field, hs_part_gather_part(s->pg)->n_nodes_global,
                 HS_OK};
    if (s->root) r.st = create_dataset(s, loc, path, ftype, rows, cols, kind == ROWS_FIELD, &r.ds);
    /* every rank goes through every chunk, also after rank 0 failed (put_h5_rows then writes nothing) */
    if (kind == ROWS_TETS)
        (void)hs_part_gather_rows_i32(s->pg, 1, src, 4, put_h5_rows, &r);
    else
        (void)hs_part_gather_rows(s->pg, cell, src, row, put_h5_rows, &r);
    if (s->root && r.st == HS_OK && kind == ROWS_FIELD) {
        const int32_t c = cell;
        r.st = put_scalar_attr(s, r.ds, "cell", H5T_STD_I32LE, H5T_NATIVE_INT32, &c);
    }
    close_id(&r.ds, H5Dclose);
    return hs_part_gather_agree_root(s->pg, r.st);
}

/* The mesh arrays rank 0's file lacks of those frame needs: the mesh (points and cells) until the first
 * frame, region and fibre until the first frame that shows them (the serial write_mesh's choice). */
enum { NEED_MESH = 1, NEED_REGION = 2, NEED_FIBER = 4 };
static hs_status mesh_needs(xh5_series *s, int mesh_arrays, int32_t *need)
{
    static const struct {
        const char *path;
        int bit, needed_for;
    } a[] = {{"/mesh/points", NEED_MESH, 0}, {"/mesh/region", NEED_REGION, HS_MESH_FIELD_REGION},
             {"/mesh/fiber", NEED_FIBER, HS_MESH_FIELD_FIBER}};
    *need = 0;
    for (int k = 0; k < 3; ++k) {
        if (a[k].needed_for && !(mesh_arrays & a[k].needed_for)) continue;
        const int e = link_exists(s->file, a[k].path);
        if (e < 0) return H5_FAIL(s, "cannot look for %s", a[k].path);
        if (!e) *need |= a[k].bit;
    }
    return HS_OK;
}

/* A frame of a streamed series: every rank hands the mesh arrays rank 0's file lacks and the frame's
 * fields to the gather, in the serial writer's order; rank 0 does everything else the serial writer
 * does (frame_begin, the group, frame_end). Every step ends with rank 0's status agreed. */
static hs_status stream_write_frame(xh5_series *s, int index, const hs_frame *frame)
{
    const hs_series_part *pt = hs_part_gather_part(s->pg);
    /* below 2^31: hs_part_gather_create refuses more */
    const int32_t nn = (int32_t)pt->n_nodes_global, ne = (int32_t)pt->n_elems_global;
    const int mesh_arrays = hs_part_gather_mesh_arrays(s->pg, frame);
    int order[HS_FRAME_MAX_FIELDS];
    const int n = hs_frame_order(frame, order);
    char names[HS_FRAME_MAX_FIELDS * 64 + 1] = "";
    frame_desc d; /* rank 0's */
    memset(&d, 0, sizeof d);
    int32_t need = 0;
    hs_status st = HS_OK;
    if (s->root) {
        for (int k = 0; k < n && st == HS_OK; ++k) {
            const char *name = frame->field[order[k]].name;
            if (strlen(name) >= 64) st = HS_FAIL(HS_ERR_INTERNAL, "frame field name %s is too long", name);
            if (k) strcat(names, " ");
            if (st == HS_OK) strcat(names, name);
        }
        if (st == HS_OK) st = frame_begin(s, index, nn, ne, frame, order, n, mesh_arrays, &d);
        if (st == HS_OK) st = mesh_needs(s, mesh_arrays, &need);
    }
    HS_CALL(hs_part_gather_agree_root(s->pg, st));
    hs_part_gather_bcast(s->pg, &need, (int)sizeof need); /* every rank gathers the same arrays */
    if (need & NEED_MESH) {
        HS_CALL(stream_dataset(s, s->file, "/mesh/points", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, ROWS_AS_IS, 0,
                               (size_t)nn, 3, pt->xyz, 3 * sizeof(double), NULL));
        HS_CALL(stream_dataset(s, s->file, "/mesh/cells", H5T_STD_I32LE, H5T_NATIVE_INT32, ROWS_TETS, 1, (size_t)ne,
                               4, pt->tets, 0, NULL));
    }
    if (need & NEED_REGION)
        HS_CALL(stream_dataset(s, s->file, "/mesh/region", H5T_STD_I32LE, H5T_NATIVE_INT32, ROWS_AS_IS, 1,
                               (size_t)ne, 1, pt->region, sizeof(int32_t), NULL));
    if (need & NEED_FIBER)
        HS_CALL(stream_dataset(s, s->file, "/mesh/fiber", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, ROWS_AS_IS, 1,
                               (size_t)ne, 3, pt->fiber, 3 * sizeof(double), NULL));
    s->mesh_known = s->root;

    /* A frame of this number from a failed index write, or past a resume point, is replaced. */
    hid_t grp = H5I_INVALID_HID;
    int dropped = 0;
    if (s->root) {
        st = drop_frames_from(s, index, &dropped);
        if (st == HS_OK) st = group_create(s, index, frame->time_ms, mesh_arrays, &grp);
    }
    st = hs_part_gather_agree_root(s->pg, st);
    for (int k = 0; k < n && st == HS_OK; ++k) {
        const hs_frame_field *a = &frame->field[order[k]];
        st = stream_dataset(s, grp, a->name, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, ROWS_FIELD, a->cell,
                            (size_t)(a->cell ? ne : nn), 1, a->data, sizeof(double), a);
    }
    if (st == HS_OK) {
        if (s->root) st = put_string_attr(s, grp, "fields", names);
        close_id(&grp, H5Gclose);
        if (s->root && st == HS_OK) st = frame_end(s, index, &d);
        st = hs_part_gather_agree_root(s->pg, st);
    }
    close_id(&grp, H5Gclose);
    return st;
}

/* Rewrite the index with frames [0, n) (the grid text of each is kept), atomically, then delete
 * from the file the frames past it. With no frame, the index and the file are removed: they
 * would list frames a resume at 0 dropped. */
static hs_status write_index(xh5_series *s, int n);

static hs_status xh5_write_index(void *impl, const double *times, int n)
{
    (void)times; /* they are in the grid text */
    xh5_series *s = impl;
    quiet();
    if (s->pg) return hs_part_gather_agree_root(s->pg, s->root ? write_index(s, n) : HS_OK);
    return agree(s, write_index(s, n));
}

static hs_status write_index(xh5_series *s, int n)
{
    if (n == 0) {
        xh5_close(s); /* collective in a collective series: every rank, whatever happens after */
        const char *gone[2] = {s->index_path, s->h5_path};
        for (int i = 0; i < 2 && s->rank == 0; ++i)
            if (unlink(gone[i]) != 0 && errno != ENOENT) {
                int err = errno;
                return HS_FAIL(HS_ERR_IO, "cannot remove %s of the abandoned frames: %s", gone[i], strerror(err));
            }
        return HS_OK;
    }
    hs_status st = HS_OK;
    if (s->rank == 0) { /* every rank keeps the grid text; one writes it */
        char *comment = NULL;
        const char *fmt = "heartsim XDMF series: the data is in the HDF5 file %s beside this one; docs/output.md";
        HS_CALL(HS_ALLOC(comment, strlen(fmt) + strlen(s->xml_h5), "XDMF index comment"));
        sprintf(comment, fmt, s->xml_h5);
        st = hs_xdmf_grids_write_index(&s->g, n, s->index_path, comment, "frames");
        free(comment);
    }
    HS_CALL(agree(s, st)); /* the frames are dropped below only where the index went on every rank's word */
    /* Only now that the index no longer lists them: frames past it (a resume's abandoned ones). */
    int dropped = 0;
    if (s->file >= 0) {
        HS_CALL(drop_frames_from(s, n, &dropped));
        if (dropped) HS_CALL(flush_file(s));
    }
    return HS_OK;
}

/* ---- restart -------------------------------------------------------------------------------- */

/* Rows of 1-D or 2-D dataset @p path (the first dimension), or -1. */
static long dataset_rows(hid_t file, const char *path, hsize_t *cols)
{
    hid_t ds = H5Dopen2(file, path, H5P_DEFAULT), space = H5I_INVALID_HID;
    long rows = -1;
    hsize_t dims[2] = {0, 1};
    if (ds >= 0) space = H5Dget_space(ds);
    if (space >= 0) {
        int rank = H5Sget_simple_extent_ndims(space);
        if (rank >= 1 && rank <= 2 && H5Sget_simple_extent_dims(space, dims, NULL) == rank) {
            rows = dims[0] <= INT32_MAX ? (long)dims[0] : -1;
            if (rank == 1) dims[1] = 1;
        }
    }
    if (cols) *cols = dims[1];
    close_id(&space, H5Sclose);
    close_id(&ds, H5Dclose);
    return rows;
}

static int read_scalar_attr(hid_t obj, const char *name, hid_t mtype, void *out)
{
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    int ok = a >= 0 && H5Aread(a, mtype, out) >= 0;
    close_id(&a, H5Aclose);
    return ok;
}

static int read_string_attr(hid_t obj, const char *name, char *buf, size_t size)
{
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT), type = H5I_INVALID_HID;
    int ok = 0;
    if (a >= 0) type = H5Aget_type(a);
    if (type >= 0 && H5Tget_class(type) == H5T_STRING && H5Tget_size(type) < size) {
        memset(buf, 0, size);
        ok = H5Aread(a, type, buf) >= 0;
    }
    close_id(&type, H5Tclose);
    close_id(&a, H5Aclose);
    return ok;
}

/* Frame @p i of the old file: at the checkpoint's time, with the fields its attribute lists, each
 * of the mesh's size; its grid text rebuilt from that. */
static hs_status load_frame(xh5_series *s, int i, double t)
{
    hs_status st = HS_OK;
    char g[32], names[HS_FRAME_MAX_FIELDS * 64 + 1], path[128];
    frame_group_name(i, g);
    int e = link_exists(s->file, g);
    HS_CHECK(e > 0, HS_ERR_IO, "cannot resume the XDMF/HDF5 series: %s holds no frame %d (the checkpoint has more)",
             s->h5_path, i);
    hid_t grp = H5Gopen2(s->file, g, H5P_DEFAULT), ds = H5I_INVALID_HID;
    frame_desc d;
    memset(&d, 0, sizeof d);
    int32_t bits = 0;
    if (grp < 0 || !read_scalar_attr(grp, "time_ms", H5T_NATIVE_DOUBLE, &d.time) ||
        !read_scalar_attr(grp, "mesh_arrays", H5T_NATIVE_INT32, &bits) ||
        !read_string_attr(grp, "fields", names, sizeof names)) {
        st = H5_FAIL(s, "cannot resume: frame %d (%s) lacks its attributes", i, g);
        goto done;
    }
    HS_CHECK_GOTO(d.time == t, done, HS_ERR_IO,
                  "cannot resume the XDMF/HDF5 series: %s: frame %d is at t = %.17g ms, the checkpoint's at "
                  "%.17g ms: the directory holds the frames of another run",
                  s->h5_path, i, d.time, t);
    d.mesh_arrays = bits & (HS_MESH_FIELD_FIBER | HS_MESH_FIELD_REGION);
    if (d.mesh_arrays & HS_MESH_FIELD_FIBER)
        HS_CHECK_GOTO(dataset_rows(s->file, "/mesh/fiber", NULL) == s->n_elems, done, HS_ERR_IO,
                      "cannot resume the XDMF/HDF5 series: %s: frame %d shows /mesh/fiber, which is missing "
                      "or of another size", s->h5_path, i);
    if (d.mesh_arrays & HS_MESH_FIELD_REGION)
        HS_CHECK_GOTO(dataset_rows(s->file, "/mesh/region", NULL) == s->n_elems, done, HS_ERR_IO,
                      "cannot resume the XDMF/HDF5 series: %s: frame %d shows /mesh/region, which is missing "
                      "or of another size", s->h5_path, i);
    for (char *save = NULL, *name = strtok_r(names, " ", &save); name; name = strtok_r(NULL, " ", &save)) {
        HS_CHECK_GOTO(d.n < HS_FRAME_MAX_FIELDS, done, HS_ERR_IO,
                      "cannot resume the XDMF/HDF5 series: %s: frame %d lists too many fields", s->h5_path, i);
        snprintf(path, sizeof path, "%s/%s", g, name);
        int32_t cell = -1;
        ds = H5Dopen2(s->file, path, H5P_DEFAULT);
        long rows = ds >= 0 && read_scalar_attr(ds, "cell", H5T_NATIVE_INT32, &cell) ? dataset_rows(s->file, path, NULL) : -1;
        close_id(&ds, H5Dclose);
        HS_CHECK_GOTO((cell == 0 && rows == s->n_nodes) || (cell == 1 && rows == s->n_elems), done, HS_ERR_IO,
                      "cannot resume the XDMF/HDF5 series: %s: %s is missing or not of the mesh's size",
                      s->h5_path, path);
        d.name[d.n] = name;
        d.cell[d.n] = cell;
        ++d.n;
    }
    HS_CALL_GOTO(put_grid(s, i, &d), done);
    hs_xdmf_grids_mark(&s->g, i);
done:
    close_id(&grp, H5Gclose);
    return st;
}

/* Open the old file and take over its first @p n frames, checking them against the checkpoint's
 * times. Nothing is changed in the file here; write_index drops the frames past n. */
static hs_status resume(xh5_series *s, const double *times, int n);

static hs_status xh5_resume(void *impl, const double *times, int n)
{
    xh5_series *s = impl;
    quiet();
    if (s->pg) return hs_part_gather_agree_root(s->pg, s->root ? resume(s, times, n) : HS_OK);
    return agree(s, resume(s, times, n));
}

static hs_status resume(xh5_series *s, const double *times, int n)
{
    hs_status st = HS_OK;
    xh5_close(s);
    hs_xdmf_grids_keep(&s->g, 0);
    s->mesh_known = 0;
    if (n == 0) return HS_OK;
    HS_CALL(hs_xdmf_grids_reserve(&s->g, n));
    hid_t fapl = file_access(s);
    if (fapl >= 0) s->file = H5Fopen(s->h5_path, H5F_ACC_RDWR, fapl);
    if (fapl >= 0) H5Pclose(fapl);
    if (s->file < 0) return H5_FAIL(s, "cannot resume the series: cannot open the file");
    hsize_t cols = 0, tcols = 0;
    long nn = dataset_rows(s->file, "/mesh/points", &cols), ne = dataset_rows(s->file, "/mesh/cells", &tcols);
    HS_CHECK_GOTO(nn >= 0 && ne >= 0 && cols == 3 && tcols == 4, fail, HS_ERR_IO,
                  "cannot resume the XDMF/HDF5 series: %s has no /mesh/points [n][3] and /mesh/cells [n][4]",
                  s->h5_path);
    s->mesh_known = 1;
    s->n_nodes = (int32_t)nn;
    s->n_elems = (int32_t)ne;
    for (int i = 0; i < n; ++i) HS_CALL_GOTO(load_frame(s, i, times[i]), fail);
    return HS_OK;
fail:
    xh5_close(s);
    hs_xdmf_grids_keep(&s->g, 0);
    s->mesh_known = 0;
    return st;
}

/* A part series written by rank 0 through the serial HDF5 API (a build without a parallel HDF5, where
 * create_part is absent): every rank hands its rows to @p g, rank 0 writes each chunk as a hyperslab. */
static hs_status xh5_create_stream(const char *dir, const char *prefix, const char *index_path, hs_part_gather *g,
                                   void **out)
{
    void *impl = NULL;
    *out = NULL;
    hs_status st = xh5_create(dir, prefix, index_path, &impl);
    xh5_series *s = impl;
    if (s) {
        s->pg = g;
        s->root = hs_part_gather_rank(g) == 0;
    }
    st = hs_part_gather_agree_any(g, st);
    if (st != HS_OK) {
        if (s) xh5_destroy(s);
        return st;
    }
    if (s->root)
        hs_log(1, "output: %s written by rank 0 (a serial HDF5), every rank's rows streamed to it in chunks\n",
               s->h5_path);
    *out = s;
    return HS_OK;
}

const hs_series_format_ops hs_series_format_xdmf_h5 = {
    .name = "xdmf_h5",
    .summary = "the mesh once and float32 fields per frame in one HDF5 file, an XDMF .xdmf index",
    .index_ext = ".xdmf",
    .frame_ext = NULL, /* every frame is in DIR/PREFIX.h5 */
    .missing = NULL,
    .check_prefix = xh5_check_prefix,
    .create = xh5_create,
#if HS_HAS_HDF5_PARALLEL
    .create_part = xh5_create_part,
#endif
    .create_stream = xh5_create_stream, /* a build with a serial HDF5 (create_part is taken where present) */
    .write_frame = xh5_write_frame,
    .write_index = xh5_write_index,
    .resume = xh5_resume,
    .destroy = xh5_destroy,
};
