/* Private to meshes/: the header and data-line parsers of the line-based volume formats (openCARP
 * in mesh_read_opencarp.c, TetGen in mesh_tetgen_io.c), shared by their whole-file readers and by
 * the block reader (mesh_read_block.c, hs_mesh_block.h), so that a file read in blocks is checked
 * by the same rules and its errors read the same. Each line parser takes a reader whose current
 * line is the data line (hs_text_reader_next returned it) and the item's 0-based index in the
 * whole file; messages name r->path and r->line. */
#ifndef HS_MESH_READ_LINES_H
#define HS_MESH_READ_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "hs_status.h"
#include "hs_text_reader.h"

/* ---- openCARP (.pts, .elem, .lon) ----------------------------------------------------------- */

/** The count on the first data line of .pts/.elem (reads it; 0..INT32_MAX). */
hs_status hs_opencarp_read_count(hs_text_reader *r, const char *layout, long long *n);

/** "file ended after i of the n <items> announced on the first line" (items: points, elements). */
hs_status hs_opencarp_ended(const hs_text_reader *r, long long i, long long n, const char *items);

/** "unexpected data after the n <items> announced on the first line" at r->line. */
hs_status hs_opencarp_extra(const hs_text_reader *r, long long n, const char *items);

/** A .pts line: x y z. */
hs_status hs_opencarp_pts_line(hs_text_reader *r, double x[3]);

/** A .elem line: Tt n0 n1 n2 n3 [region], element @p e, node indices checked against the
 *  @p n_nodes points of @p pts_path. */
hs_status hs_opencarp_elem_line(hs_text_reader *r, const char *pts_path, long long e,
                                size_t n_nodes, int32_t v[4], int32_t *region);

/** The first data line of .lon: header 1|2 (*ndir, *headerless = 0), or (old CARP) the first fibre
 *  (*ndir = 1, *headerless = 1; the line's tokens are restored, r->cur at its start). */
hs_status hs_opencarp_lon_header(hs_text_reader *r, const char *elem_path, long *ndir,
                                 int *headerless);

/** A .lon line of @p ndir directions, fibre of element @p e: f = the fibre, normalised. */
hs_status hs_opencarp_lon_line(hs_text_reader *r, long ndir, size_t e, double f[3]);

/** "file ended after e fibres; <elem_path> has n elements, one line each". */
hs_status hs_opencarp_lon_ended(const hs_text_reader *r, const char *elem_path, size_t e,
                                size_t n_elems);

/** "more fibres than elements: <elem_path> has n elements" at r->line. */
hs_status hs_opencarp_lon_extra(const hs_text_reader *r, const char *elem_path, size_t n_elems);

/* ---- TetGen (.node, .ele) ------------------------------------------------------------------- */

/** Open a TetGen file (messages: "mesh file" while opening, "TetGen" after). */
hs_status hs_tetgen_open(hs_text_reader *r, const char *path);

typedef struct hs_tetgen_node_header {
    long long np, nattr, nbm; /* points, attributes per point, boundary markers (0|1) */
    long nfields;             /* fields per point line */
    char fields[128];         /* their layout, for messages */
} hs_tetgen_node_header;

typedef struct hs_tetgen_ele_header {
    long long ne, npt, nattr; /* tetrahedra, nodes per tetrahedron (4|10), attributes */
    long nfields;
    char fields[96];
} hs_tetgen_ele_header;

/** Read the .node header line. */
hs_status hs_tetgen_node_header_read(hs_text_reader *r, hs_tetgen_node_header *h);

/** Read the .ele header line (10-node tetrahedra only with @p linearize). */
hs_status hs_tetgen_ele_header_read(hs_text_reader *r, int linearize, hs_tetgen_ele_header *h);

/** A .node line, point @p i: index (point 0 sets *base to 0|1; the others must be *base + i),
 *  x y z, attributes and marker checked as numbers. */
hs_status hs_tetgen_node_line(hs_text_reader *r, const hs_tetgen_node_header *h, long long i,
                              int *base, double x[3]);

/** A .ele line, tetrahedron @p e: index base + e, corners v (0-based; a 10-node tet's first 4),
 *  node indices checked against the @p n_nodes points of @p node_path, region = the first
 *  attribute rounded (0 without attributes). */
hs_status hs_tetgen_ele_line(hs_text_reader *r, const hs_tetgen_ele_header *h,
                             const char *node_path, int base, int32_t n_nodes, long long e,
                             int32_t v[4], int32_t *region);

/** "file ended after i of the n <items> announced in the header" (points, tetrahedra). */
hs_status hs_tetgen_ended(const hs_text_reader *r, long long i, long long n, const char *items);

/** "unexpected data after the n <items> announced in the header" at r->line. */
hs_status hs_tetgen_extra(const hs_text_reader *r, long long n, const char *items);

#endif
