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

#include "hs_atomic_file.h"
#include "hs_series_format.h"
#include "hs_util.h"
#include "hs_xdmf_text.h"

enum { HS_H5_CHUNK_VALUES = 1 << 20 }; /* values per chunk of a field dataset (4 MiB of float32) */

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

static void xh5_destroy(void *impl)
{
    xh5_series *s = impl;
    xh5_close(s);
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
    s->index_path = index_path;
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

/* Write @p data as dataset @p path: [rows] or [rows][cols] of file type @p ftype from memory type
 * @p mtype; chunked when @p chunked (fields), else contiguous (the mesh, written once). */
static hs_status write_dataset(xh5_series *s, hid_t loc, const char *path, hid_t ftype, hid_t mtype,
                               size_t rows, int cols, int chunked, const void *data, hid_t *out)
{
    hs_status st = HS_OK;
    hsize_t dims[2] = {rows, (hsize_t)cols};
    const int rank = cols > 1 ? 2 : 1;
    hid_t space = H5I_INVALID_HID, dcpl = H5I_INVALID_HID, lcpl = H5I_INVALID_HID, ds = H5I_INVALID_HID;
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
    ds = H5Dcreate2(loc, path, ftype, space, lcpl, dcpl, H5P_DEFAULT);
    if (ds < 0) {
        st = H5_FAIL(s, "cannot create dataset %s", path);
        goto done;
    }
    if (rows > 0 && H5Dwrite(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
        st = H5_FAIL(s, "cannot write dataset %s (%zu values)", path, rows * (size_t)cols);
        goto done;
    }
done:
    if (st == HS_OK && out) {
        *out = ds;
        ds = H5I_INVALID_HID;
    }
    close_id(&ds, H5Dclose);
    close_id(&lcpl, H5Pclose);
    close_id(&dcpl, H5Pclose);
    close_id(&space, H5Sclose);
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

/* Node indices are checked: an index out of range makes readers crash or draw garbage. */
static hs_status write_mesh(xh5_series *s, const hs_mesh *m, int mesh_arrays)
{
    const size_t nn = (size_t)m->n_nodes, ne = (size_t)m->n_elems;
    int e = link_exists(s->file, "/mesh/points");
    if (e < 0) return H5_FAIL(s, "cannot look for /mesh/points");
    if (!e) {
        for (size_t i = 0; i < 4 * ne; ++i)
            HS_CHECK(m->tets[i] >= 0 && m->tets[i] < m->n_nodes, HS_ERR_INTERNAL,
                     "element %zu has node index %d outside [0, %d)", i / 4, (int)m->tets[i], (int)m->n_nodes);
        HS_CALL(write_dataset(s, s->file, "/mesh/points", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, nn, 3, 0, m->xyz, NULL));
        HS_CALL(write_dataset(s, s->file, "/mesh/cells", H5T_STD_I32LE, H5T_NATIVE_INT32, ne, 4, 0, m->tets, NULL));
    }
    if (mesh_arrays & HS_MESH_FIELD_REGION) {
        if ((e = link_exists(s->file, "/mesh/region")) < 0) return H5_FAIL(s, "cannot look for /mesh/region");
        if (!e)
            HS_CALL(write_dataset(s, s->file, "/mesh/region", H5T_STD_I32LE, H5T_NATIVE_INT32, ne, 1, 0, m->region, NULL));
    }
    if (mesh_arrays & HS_MESH_FIELD_FIBER) {
        if ((e = link_exists(s->file, "/mesh/fiber")) < 0) return H5_FAIL(s, "cannot look for /mesh/fiber");
        if (!e)
            HS_CALL(write_dataset(s, s->file, "/mesh/fiber", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, ne, 3, 0, m->fiber, NULL));
    }
    return HS_OK;
}

/* float32 of field @p a [n] (scale * x + offset in double, rounded once, when mapped) into buf. */
static hs_status to_f32(xh5_series *s, const hs_frame_field *a, size_t n)
{
    if (n > s->buf_len) {
        float *b = realloc(s->buf, (n ? n : 1) * sizeof *b);
        HS_CHECK(b, HS_ERR_MEMORY, "out of memory for %zu float32 values of field %s", n, a->name);
        s->buf = b;
        s->buf_len = n;
    }
    if (a->mapped)
        for (size_t i = 0; i < n; ++i) s->buf[i] = (float)(a->scale * a->data[i] + a->offset);
    else
        for (size_t i = 0; i < n; ++i) s->buf[i] = (float)a->data[i];
    return HS_OK;
}

static hs_status write_frame_group(xh5_series *s, int index, const hs_mesh *m, const hs_frame *fr,
                                   const int *order, int n, int mesh_arrays)
{
    hs_status st = HS_OK;
    char g[32], names[HS_FRAME_MAX_FIELDS * 64 + 1] = "";
    frame_group_name(index, g);
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE), grp = H5I_INVALID_HID, ds = H5I_INVALID_HID;
    if (lcpl < 0 || H5Pset_create_intermediate_group(lcpl, 1) < 0 ||
        (grp = H5Gcreate2(s->file, g, lcpl, H5P_DEFAULT, H5P_DEFAULT)) < 0) {
        st = H5_FAIL(s, "cannot create group %s", g);
        goto done;
    }
    HS_CALL_GOTO(put_scalar_attr(s, grp, "time_ms", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &fr->time_ms), done);
    const int32_t bits = mesh_arrays;
    HS_CALL_GOTO(put_scalar_attr(s, grp, "mesh_arrays", H5T_STD_I32LE, H5T_NATIVE_INT32, &bits), done);
    for (int k = 0; k < n; ++k) {
        const hs_frame_field *a = &fr->field[order[k]];
        HS_CHECK_GOTO(strlen(a->name) < 64, done, HS_ERR_INTERNAL, "frame field name %s is too long", a->name);
        if (k) strcat(names, " ");
        strcat(names, a->name);
        const size_t len = (size_t)(a->cell ? m->n_elems : m->n_nodes);
        HS_CALL_GOTO(to_f32(s, a, len), done);
        HS_CALL_GOTO(write_dataset(s, grp, a->name, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, len, 1, 1, s->buf, &ds), done);
        const int32_t cell = a->cell;
        HS_CALL_GOTO(put_scalar_attr(s, ds, "cell", H5T_STD_I32LE, H5T_NATIVE_INT32, &cell), done);
        close_id(&ds, H5Dclose);
    }
    HS_CALL_GOTO(put_string_attr(s, grp, "fields", names), done);
done:
    close_id(&ds, H5Dclose);
    close_id(&grp, H5Gclose);
    close_id(&lcpl, H5Pclose);
    return st;
}

static hs_status xh5_write_frame(void *impl, int index, const char *path, const hs_mesh *mesh,
                                 const hs_frame *frame)
{
    (void)path; /* NULL: no file per frame */
    xh5_series *s = impl;
    quiet();
    HS_CHECK(!s->mesh_known || (mesh->n_nodes == s->n_nodes && mesh->n_elems == s->n_elems), HS_ERR_INTERNAL,
             "XDMF/HDF5 series %s holds a mesh of %d nodes and %d elements; frame %d has %d and %d "
             "(one mesh per series)",
             s->h5_path, (int)s->n_nodes, (int)s->n_elems, index, (int)mesh->n_nodes, (int)mesh->n_elems);
    HS_CALL(hs_xdmf_grids_reserve(&s->g, index + 1));
    if (s->file < 0) {
        /* a new series (a resume opens the old file instead): an older file of this name goes */
        s->file = H5Fcreate(s->h5_path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        if (s->file < 0) return H5_FAIL(s, "cannot create the file");
    }
    frame_desc d;
    memset(&d, 0, sizeof d);
    int order[HS_FRAME_MAX_FIELDS];
    d.time = frame->time_ms;
    d.n = hs_frame_order(frame, order);
    d.mesh_arrays = hs_frame_mesh_arrays(frame, mesh);
    for (int k = 0; k < d.n; ++k) {
        d.name[k] = frame->field[order[k]].name;
        d.cell[k] = frame->field[order[k]].cell;
    }
    HS_CALL(write_mesh(s, mesh, d.mesh_arrays));
    s->mesh_known = 1;
    s->n_nodes = mesh->n_nodes;
    s->n_elems = mesh->n_elems;

    /* A frame of this number from a failed index write, or past a resume point, is replaced. */
    int dropped = 0;
    HS_CALL(drop_frames_from(s, index, &dropped));
    HS_CALL(write_frame_group(s, index, mesh, frame, order, d.n, d.mesh_arrays));
    HS_CALL(flush_file(s));

    /* The grid text after frame index - 1 is that of a frame whose index could not be written:
     * this frame replaces it. */
    hs_xdmf_grids_keep(&s->g, index);
    HS_CALL(put_grid(s, index, &d));
    hs_xdmf_grids_mark(&s->g, index);
    return HS_OK;
}

/* Rewrite the index with frames [0, n) (the grid text of each is kept), atomically, then delete
 * from the file the frames past it. With no frame, the index and the file are removed: they
 * would list frames a resume at 0 dropped. */
static hs_status xh5_write_index(void *impl, const double *times, int n)
{
    (void)times; /* they are in the grid text */
    xh5_series *s = impl;
    quiet();
    if (n == 0) {
        xh5_close(s);
        const char *gone[2] = {s->index_path, s->h5_path};
        for (int i = 0; i < 2; ++i)
            if (unlink(gone[i]) != 0 && errno != ENOENT) {
                int err = errno;
                return HS_FAIL(HS_ERR_IO, "cannot remove %s of the abandoned frames: %s", gone[i], strerror(err));
            }
        return HS_OK;
    }
    char *comment = NULL;
    const char *fmt = "heartsim XDMF series: the data is in the HDF5 file %s beside this one; docs/output.md";
    HS_CALL(HS_ALLOC(comment, strlen(fmt) + strlen(s->xml_h5), "XDMF index comment"));
    sprintf(comment, fmt, s->xml_h5);
    hs_status st = hs_xdmf_grids_write_index(&s->g, n, s->index_path, comment, "frames");
    free(comment);
    HS_CALL(st);
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
static hs_status xh5_resume(void *impl, const double *times, int n)
{
    xh5_series *s = impl;
    hs_status st = HS_OK;
    quiet();
    xh5_close(s);
    hs_xdmf_grids_keep(&s->g, 0);
    s->mesh_known = 0;
    if (n == 0) return HS_OK;
    HS_CALL(hs_xdmf_grids_reserve(&s->g, n));
    s->file = H5Fopen(s->h5_path, H5F_ACC_RDWR, H5P_DEFAULT);
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

const hs_series_format_ops hs_series_format_xdmf_h5 = {
    .name = "xdmf_h5",
    .summary = "the mesh once and float32 fields per frame in one HDF5 file, an XDMF .xdmf index",
    .index_ext = ".xdmf",
    .frame_ext = NULL, /* every frame is in DIR/PREFIX.h5 */
    .missing = NULL,
    .check_prefix = xh5_check_prefix,
    .create = xh5_create,
    .write_frame = xh5_write_frame,
    .write_index = xh5_write_index,
    .resume = xh5_resume,
    .destroy = xh5_destroy,
};
