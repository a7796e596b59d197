/* Reader for TetGen's .node/.ele pair (TetGen manual, section 5.2.1 and 5.2.4).
 *
 *   .node: <#points> <dim = 3> <#attributes> <#boundary markers 0|1>
 *          then per point: <index> <x> <y> <z> [attributes] [marker]
 *   .ele:  <#tets> <nodes per tet = 4> <#attributes>
 *          then per tet: <index> <n0> <n1> <n2> <n3> [attributes]
 *
 * '#' starts a comment anywhere; blank lines are skipped. Numbering starts at 0 or 1, taken from
 * the first point's index; points and tets must then be numbered consecutively from that base.
 * The reader is strict about field counts (a mismatch usually means the header does not describe
 * the data) and never trusts header counts for allocation: arrays grow as lines are read, so a
 * huge count in a short file ends in "file ended after ..." rather than a giant allocation.
 * 10-node tetrahedra (tetgen -o2) are read with mesh.quadratic = "linearize" (corners kept) and
 * refused otherwise, saying so. The mesh is assembled by hs_mesh_parts_finish as for the other
 * readers: nodes no tetrahedron uses are dropped (and counted in a note), a file whose every
 * tetrahedron is negative is turned around, a mix is left for hs_mesh_check to report, in the
 * file's own numbering (its base, 0 or 1). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_mesh.h"
#include "hs_mesh_io.h"
#include "hs_text_reader.h"
#include "hs_util.h"
#include "mesh_path.h"
#include "mesh_read_internal.h"
#include "mesh_read_lines.h"

/* ---- line parsers, shared with the block reader (mesh_read_lines.h) ------------------------ */

/* Open a TetGen file. The open messages say "mesh file" (as they always have: the user may not know
 * which format was guessed); once open, format messages say "TetGen" (the NUL-byte hint). */
hs_status hs_tetgen_open(hs_text_reader *r, const char *path)
{
    HS_CALL(hs_text_reader_open(r, path, "mesh", HS_ERR_MESH, '#'));
    r->what = "TetGen";
    return HS_OK;
}

/* Header field that must be an integer in [lo, hi]. */
static hs_status header_field(hs_text_reader *r, const char *what, long long lo, long long hi,
                              const char *layout, long long *v)
{
    char *tok = hs_text_reader_token(r);
    HS_CHECK(tok != NULL, HS_ERR_MESH, "%s:%ld: header: expected %s, found end of line (header "
             "format: %s)", r->path, r->line, what, layout);
    HS_CALL(hs_text_reader_long(r, tok, what, v));
    HS_CHECK(*v >= lo && *v <= hi, HS_ERR_MESH,
             "%s:%ld: header: %s = %lld, expected a value in %lld..%lld (header format: %s)",
             r->path, r->line, what, *v, lo, hi, layout);
    return HS_OK;
}

hs_status hs_tetgen_ended(const hs_text_reader *r, long long i, long long n, const char *items)
{
    return HS_FAIL(HS_ERR_MESH, "%s:%ld: file ended after %lld of the %lld %s announced in the header",
                   r->path, hs_text_reader_eof_line(r), i, n, items);
}

hs_status hs_tetgen_extra(const hs_text_reader *r, long long n, const char *items)
{
    return HS_FAIL(HS_ERR_MESH, "%s:%ld: unexpected data after the %lld %s announced in the header",
                   r->path, r->line, n, items);
}

hs_status hs_tetgen_node_header_read(hs_text_reader *r, hs_tetgen_node_header *h)
{
    static const char *layout = "<#points> <dimension 3> <#attributes> <#boundary markers 0|1>";
    int got = 0;
    HS_CALL(hs_text_reader_next(r, &got));
    HS_CHECK(got, HS_ERR_MESH, "%s:%ld: file has no header line (expected %s)", r->path,
             hs_text_reader_eof_line(r), layout);
    long long dim;
    HS_CALL(header_field(r, "number of points", 4, INT32_MAX, layout, &h->np));
    HS_CALL(header_field(r, "dimension", 3, 3, layout, &dim));
    HS_CALL(header_field(r, "number of point attributes", 0, 1000000, layout, &h->nattr));
    HS_CALL(header_field(r, "number of boundary markers", 0, 1, layout, &h->nbm));
    HS_CALL(hs_text_reader_expect_end(r, 4, layout));
    snprintf(h->fields, sizeof h->fields, "index x y z%s%s", h->nattr ? " + attributes" : "",
             h->nbm ? " + boundary marker" : "");
    h->nfields = 4 + (long)h->nattr + (long)h->nbm;
    return HS_OK;
}

hs_status hs_tetgen_node_line(hs_text_reader *r, const hs_tetgen_node_header *h, long long i,
                              int *base, double x[3])
{
    const char *path = r->path;
    long long idx;
    HS_CALL(hs_text_reader_long(r, hs_text_reader_token(r), "point index", &idx));
    if (i == 0) {
        HS_CHECK(idx == 0 || idx == 1, HS_ERR_MESH,
                 "%s:%ld: first point index is %lld; expected 0 or 1 (it sets the numbering base "
                 "of the .node and .ele files)",
                 path, r->line, idx);
        *base = (int)idx;
    } else {
        HS_CHECK(idx == *base + i, HS_ERR_MESH,
                 "%s:%ld: expected point index %lld (points are numbered consecutively from %d), "
                 "found %lld",
                 path, r->line, *base + i, *base, idx);
    }
    static const char *coord[3] = {"x coordinate", "y coordinate", "z coordinate"};
    for (int k = 0; k < 3; ++k) {
        char *tok = hs_text_reader_token(r);
        HS_CHECK(tok, HS_ERR_MESH, "%s:%ld: expected %ld fields (%s), found %d", path, r->line,
                 h->nfields, h->fields, 1 + k);
        HS_CALL(hs_text_reader_double(r, tok, coord[k], &x[k]));
    }
    /* Attributes and marker are not used, but must be numbers: checking them catches a header
     * whose counts do not match the data. */
    for (long a = 0; a < h->nattr + h->nbm; ++a) {
        char *tok = hs_text_reader_token(r);
        HS_CHECK(tok, HS_ERR_MESH, "%s:%ld: expected %ld fields (%s), found %ld", path, r->line,
                 h->nfields, h->fields, 4 + a);
        double dummy;
        HS_CALL(hs_text_reader_double(r, tok, a < h->nattr ? "point attribute" : "boundary marker",
                                      &dummy));
    }
    return hs_text_reader_expect_end(r, h->nfields, h->fields);
}

typedef struct node_data {
    int32_t n;
    int base;
    double *xyz; /* [n][3] */
} node_data;

static hs_status read_node(const char *path, node_data *nd)
{
    hs_text_reader r;
    hs_status st = HS_OK;
    size_t cap = 0;
    nd->xyz = NULL;
    HS_CALL(hs_tetgen_open(&r, path));
    hs_tetgen_node_header h;
    HS_CALL_GOTO(hs_tetgen_node_header_read(&r, &h), done);
    int got = 0;
    for (long long i = 0; i < h.np; ++i) {
        HS_CALL_GOTO(hs_text_reader_next(&r, &got), done);
        if (!got) {
            st = hs_tetgen_ended(&r, i, h.np, "points");
            goto done;
        }
        HS_CALL_GOTO(hs_grow_array((void **)&nd->xyz, &cap, (size_t)(i + 1), 3 * sizeof(double),
                          "point coordinates"),
                     done);
        HS_CALL_GOTO(hs_tetgen_node_line(&r, &h, i, &nd->base, nd->xyz + 3 * i), done);
    }
    HS_CALL_GOTO(hs_text_reader_next(&r, &got), done);
    if (got) {
        st = hs_tetgen_extra(&r, h.np, "points");
        goto done;
    }
    nd->n = (int32_t)h.np;
done:
    hs_text_reader_close(&r);
    if (st != HS_OK) {
        free(nd->xyz);
        nd->xyz = NULL;
    }
    return st;
}

hs_status hs_tetgen_ele_header_read(hs_text_reader *r, int linearize, hs_tetgen_ele_header *h)
{
    static const char *layout = "<#tetrahedra> <nodes per tetrahedron 4|10> <#attributes>";
    const char *path = r->path;
    int got = 0;
    HS_CALL(hs_text_reader_next(r, &got));
    HS_CHECK(got, HS_ERR_MESH, "%s:%ld: file has no header line (expected %s)", path,
             hs_text_reader_eof_line(r), layout);
    HS_CALL(header_field(r, "number of tetrahedra", 1, INT32_MAX, layout, &h->ne));
    char *tok = hs_text_reader_token(r);
    HS_CHECK(tok, HS_ERR_MESH,
             "%s:%ld: header: expected nodes per tetrahedron, found end of line (header format: "
             "%s)",
             path, r->line, layout);
    HS_CALL(hs_text_reader_long(r, tok, "nodes per tetrahedron", &h->npt));
    HS_CHECK(h->npt != 10 || linearize, HS_ERR_MESH,
             "%s:%ld: quadratic (10-node) tetrahedra (TetGen -o2); heartsim uses linear "
             "tetrahedra: set mesh.quadratic = \"linearize\" in the config to keep the 4 corner "
             "nodes of each and drop the mid-edge ones (or re-run TetGen without -o2)",
             path, r->line);
    HS_CHECK(h->npt == 4 || h->npt == 10, HS_ERR_MESH,
             "%s:%ld: header: nodes per tetrahedron = %lld, expected 4 (or 10 with "
             "mesh.quadratic = \"linearize\") (header format: %s)",
             path, r->line, h->npt, layout);
    HS_CALL(header_field(r, "number of attributes", 0, 1000000, layout, &h->nattr));
    HS_CALL(hs_text_reader_expect_end(r, 3, layout));
    snprintf(h->fields, sizeof h->fields, "index n0 .. n%d%s", (int)h->npt - 1,
             h->nattr ? " + attributes" : "");
    h->nfields = 1 + (long)h->npt + (long)h->nattr;
    return HS_OK;
}

hs_status hs_tetgen_ele_line(hs_text_reader *r, const hs_tetgen_ele_header *h,
                             const char *node_path, int base, int32_t n_nodes, long long e,
                             int32_t v[4], int32_t *region)
{
    const char *path = r->path;
    const long long lo = base, hi = (long long)base + n_nodes - 1;
    long long idx;
    HS_CALL(hs_text_reader_long(r, hs_text_reader_token(r), "tetrahedron index", &idx));
    HS_CHECK(idx == base + e, HS_ERR_MESH,
             "%s:%ld: expected tetrahedron index %lld (numbered consecutively from %d, the base "
             "of %s), found %lld",
             path, r->line, base + e, base, node_path, idx);
    for (int k = 0; k < (int)h->npt; ++k) { /* 10-node: the 4 corners come first */
        char *tok = hs_text_reader_token(r);
        HS_CHECK(tok, HS_ERR_MESH, "%s:%ld: expected %ld fields (%s), found %d", path, r->line,
                 h->nfields, h->fields, 1 + k);
        long long x;
        HS_CALL(hs_text_reader_long(r, tok, "node index", &x));
        HS_CHECK(x >= lo && x <= hi, HS_ERR_MESH,
                 "%s:%ld: node index %lld out of range: %s numbers its %ld points %lld..%lld",
                 path, r->line, x, node_path, (long)n_nodes, lo, hi);
        if (k < 4) v[k] = (int32_t)(x - base);
    }
    *region = 0;
    for (long a = 0; a < h->nattr; ++a) {
        char *tok = hs_text_reader_token(r);
        HS_CHECK(tok, HS_ERR_MESH, "%s:%ld: expected %ld fields (%s), found %ld", path, r->line,
                 h->nfields, h->fields, 1 + (long)h->npt + a);
        double x;
        HS_CALL(hs_text_reader_double(r, tok, a == 0 ? "region attribute" : "attribute", &x));
        if (a == 0) {
            HS_CHECK(fabs(x) < 2147483647.0, HS_ERR_MESH,
                     "%s:%ld: region attribute %g does not fit a 32-bit integer", path, r->line,
                     x);
            *region = (int32_t)lround(x);
        }
    }
    return hs_text_reader_expect_end(r, h->nfields, h->fields);
}

typedef struct ele_data {
    int32_t n;
    int32_t *tets;   /* [n][4], 0-based */
    int32_t *region; /* [n] */
    int quadratic;   /* the file's tetrahedra have 10 nodes (read as their 4 corners) */
} ele_data;

static hs_status read_ele(const char *path, const char *node_path, const node_data *nd,
                          int linearize, ele_data *ed)
{
    hs_text_reader r;
    hs_status st = HS_OK;
    size_t cap_t = 0, cap_r = 0;
    ed->tets = NULL;
    ed->region = NULL;
    HS_CALL(hs_tetgen_open(&r, path));
    hs_tetgen_ele_header h;
    HS_CALL_GOTO(hs_tetgen_ele_header_read(&r, linearize, &h), done);
    int got = 0;
    for (long long e = 0; e < h.ne; ++e) {
        HS_CALL_GOTO(hs_text_reader_next(&r, &got), done);
        if (!got) {
            st = hs_tetgen_ended(&r, e, h.ne, "tetrahedra");
            goto done;
        }
        HS_CALL_GOTO(hs_grow_array((void **)&ed->tets, &cap_t, (size_t)(e + 1), 4 * sizeof(int32_t),
                          "tetrahedra"),
                     done);
        HS_CALL_GOTO(hs_grow_array((void **)&ed->region, &cap_r, (size_t)(e + 1), sizeof(int32_t),
                          "region markers"),
                     done);
        HS_CALL_GOTO(hs_tetgen_ele_line(&r, &h, node_path, nd->base, nd->n, e, ed->tets + 4 * e,
                                        ed->region + e),
                     done);
    }
    HS_CALL_GOTO(hs_text_reader_next(&r, &got), done);
    if (got) {
        st = hs_tetgen_extra(&r, h.ne, "tetrahedra");
        goto done;
    }
    ed->n = (int32_t)h.ne;
    ed->quadratic = h.npt == 10;
done:
    hs_text_reader_close(&r);
    if (st != HS_OK) {
        free(ed->tets);
        free(ed->region);
        ed->tets = ed->region = NULL;
    }
    return st;
}

hs_status hs_mesh_read_tetgen_opts(const char *node_path, const char *ele_path,
                                   const hs_mesh_read_opts *o, hs_mesh **out)
{
    HS_CHECK(out != NULL, HS_ERR_INTERNAL, "hs_mesh_read_tetgen: out is NULL");
    *out = NULL;
    HS_CHECK(node_path && ele_path, HS_ERR_MESH, "TetGen mesh: .node or .ele path is missing");
    node_data nd = {0, 0, NULL};
    ele_data ed = {0, NULL, NULL, 0};
    hs_status st = HS_OK;
    HS_CALL(read_node(node_path, &nd));
    HS_CALL_GOTO(read_ele(ele_path, node_path, &nd, o && o->linearize, &ed), done);

    /* The shared assembly (mesh_read_internal.h): nodes no tetrahedron uses (mid-edge nodes of
     * linearised 10-node tets, points TetGen kept but meshed around) dropped and counted,
     * node_orig the file position. The grown arrays are handed over, not copied. */
    hs_mesh_parts p;
    memset(&p, 0, sizeof p);
    p.path = ele_path;
    p.n_nodes = p.cap_nodes = (size_t)nd.n;
    p.xyz = nd.xyz;
    p.n_elems = p.cap_tets = p.cap_region = (size_t)ed.n;
    p.tets = ed.tets;
    p.region = ed.region;
    nd.xyz = NULL;
    ed.tets = ed.region = NULL;
    p.node_base = nd.base;
    p.elem_base = nd.base;
    p.numbering = nd.base ? "TetGen indices, 1-based" : "TetGen indices, 0-based";
    p.n_linearized = ed.quadratic ? (size_t)ed.n : 0;
    st = hs_mesh_parts_finish(&p, out);
done:
    free(nd.xyz);
    free(ed.tets);
    free(ed.region);
    return st;
}

hs_status hs_mesh_read_tetgen(const char *node_path, const char *ele_path, hs_mesh **out)
{
    return hs_mesh_read_tetgen_opts(node_path, ele_path, NULL, out);
}

/* The listed reader (hs_mesh_reader_list.h): PREFIX.node or PREFIX.ele names the pair. */
hs_status hs_mesh_read_tetgen_file(const char *path, const hs_mesh_read_opts *o, hs_mesh **out)
{
    const size_t stem = hs_path_stem_len(path);
    char *node = NULL, *ele = NULL;
    hs_status st = HS_OK;
    HS_CALL_GOTO(hs_path_with_ext(path, stem, ".node", &node), done);
    HS_CALL_GOTO(hs_path_with_ext(path, stem, ".ele", &ele), done);
    st = hs_mesh_read_tetgen_opts(node, ele, o, out);
done:
    free(node);
    free(ele);
    return st;
}
