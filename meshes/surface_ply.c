/* PLY reader (hs_surface_read_ply): ascii and binary_little_endian.
 *
 *   ply
 *   format <ascii|binary_little_endian> 1.0
 *   comment ... / obj_info ...                        (ignored)
 *   element <name> <count>
 *   property <type> <name>                            scalar
 *   property list <count type> <item type> <name>     list
 *   ...
 *   end_header
 *   data: the elements in header order; ascii one element per line, binary packed
 *
 * Types: char/int8 uchar/uint8 short/int16 ushort/uint16 int/int32 uint/uint32 float/float32
 * double/float64. Used: element "vertex" (scalar x, y, z of any type) and element "face" (list
 * "vertex_indices" or "vertex_index" of integers); every other property and element is read past
 * (by size in binary files). binary_big_endian is refused by name: the formats are otherwise the
 * same, but no tool we know of writes it today and an untested byte swap is worse than a clear
 * "convert it". Element counts are not trusted for allocation. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "hs_surface.h"
#include "hs_text_reader.h"
#include "hs_util.h"
#include "surface_internal.h"

enum { PLY_MAX_ELEMS = 32, PLY_MAX_PROPS = 64, PLY_NAME = 64 };

typedef enum { T_I8, T_U8, T_I16, T_U16, T_I32, T_U32, T_F32, T_F64, T_COUNT } ply_type;

static const struct {
    const char *name, *alias;
    int size, is_int;
} k_types[T_COUNT] = {
    {"char", "int8", 1, 1},     {"uchar", "uint8", 1, 1},   {"short", "int16", 2, 1},
    {"ushort", "uint16", 2, 1}, {"int", "int32", 4, 1},     {"uint", "uint32", 4, 1},
    {"float", "float32", 4, 0}, {"double", "float64", 8, 0},
};

typedef struct ply_prop {
    char name[PLY_NAME];
    int type;       /* item type */
    int is_list;
    int count_type; /* lists only */
} ply_prop;

typedef struct ply_elem {
    char name[PLY_NAME];
    long long count;
    long line; /* header line declaring it, for messages */
    int n_props;
    ply_prop props[PLY_MAX_PROPS];
} ply_elem;

typedef struct ply_header {
    int binary;
    int n_elems;
    ply_elem elems[PLY_MAX_ELEMS];
} ply_header;

static hs_status parse_type(hs_text_reader *r, const char *tok, int *type)
{
    HS_CHECK(tok != NULL, HS_ERR_MESH, "%s:%ld: expected a property type, found end of line",
             r->path, r->line);
    for (int t = 0; t < T_COUNT; ++t)
        if (strcmp(tok, k_types[t].name) == 0 || strcmp(tok, k_types[t].alias) == 0) {
            *type = t;
            return HS_OK;
        }
    return HS_FAIL(HS_ERR_MESH,
                   "%s:%ld: unknown PLY property type '%s' (expected char, uchar, short, ushort, "
                   "int, uint, float, double or int8 .. float64)",
                   r->path, r->line, tok);
}

static hs_status copy_name(hs_text_reader *r, const char *tok, const char *what, char *dst)
{
    HS_CHECK(tok != NULL, HS_ERR_MESH, "%s:%ld: expected %s, found end of line", r->path, r->line,
             what);
    HS_CHECK(strlen(tok) < PLY_NAME, HS_ERR_MESH, "%s:%ld: %s '%s' is longer than %d characters",
             r->path, r->line, what, tok, PLY_NAME - 1);
    strcpy(dst, tok);
    return HS_OK;
}

static hs_status read_header(hs_text_reader *r, ply_header *h)
{
    int got = 0;
    HS_CALL(hs_text_reader_raw(r, &got));
    const char *tok = got ? hs_text_reader_token(r) : NULL;
    HS_CHECK(tok && strcmp(tok, "ply") == 0 && hs_text_reader_token(r) == NULL, HS_ERR_MESH,
             "%s:1: not a PLY file: expected 'ply' alone on the first line", r->path);
    int have_format = 0;
    for (;;) {
        HS_CALL(hs_text_reader_next(r, &got));
        HS_CHECK(got, HS_ERR_MESH, "%s:%ld: file ended inside the header (no 'end_header')",
                 r->path, hs_text_reader_eof_line(r));
        const char *kw = hs_text_reader_token(r);
        if (strcmp(kw, "end_header") == 0) break;
        if (strcmp(kw, "comment") == 0 || strcmp(kw, "obj_info") == 0) continue;
        if (strcmp(kw, "format") == 0) {
            const char *fmt = hs_text_reader_token(r);
            const char *ver = hs_text_reader_token(r);
            HS_CHECK(fmt != NULL, HS_ERR_MESH,
                     "%s:%ld: expected 'format <ascii|binary_little_endian> 1.0', found end of "
                     "line",
                     r->path, r->line);
            HS_CHECK(strcmp(fmt, "binary_big_endian") != 0, HS_ERR_MESH,
                     "%s:%ld: binary_big_endian PLY is not supported; convert the file to "
                     "binary_little_endian or ascii (e.g. MeshLab, or Python's plyfile)",
                     r->path, r->line);
            HS_CHECK(strcmp(fmt, "ascii") == 0 || strcmp(fmt, "binary_little_endian") == 0,
                     HS_ERR_MESH,
                     "%s:%ld: unknown PLY format '%s' (expected 'format ascii 1.0' or 'format "
                     "binary_little_endian 1.0')",
                     r->path, r->line, fmt);
            HS_CHECK(ver && strcmp(ver, "1.0") == 0 && hs_text_reader_token(r) == NULL,
                     HS_ERR_MESH, "%s:%ld: expected 'format %s 1.0'", r->path, r->line, fmt);
            h->binary = strcmp(fmt, "ascii") != 0;
            have_format = 1;
            continue;
        }
        if (strcmp(kw, "element") == 0) {
            HS_CHECK(h->n_elems < PLY_MAX_ELEMS, HS_ERR_MESH,
                     "%s:%ld: more than %d elements in the header", r->path, r->line,
                     PLY_MAX_ELEMS);
            ply_elem *e = &h->elems[h->n_elems];
            memset(e, 0, sizeof *e);
            e->line = r->line;
            HS_CALL(copy_name(r, hs_text_reader_token(r), "an element name", e->name));
            HS_CALL(hs_text_reader_next_long(r, "element count", &e->count));
            HS_CHECK(e->count >= 0, HS_ERR_MESH, "%s:%ld: element '%s' has a negative count",
                     r->path, r->line, e->name);
            HS_CALL(hs_text_reader_expect_end(r, 3, "element <name> <count>"));
            ++h->n_elems;
            continue;
        }
        if (strcmp(kw, "property") == 0) {
            HS_CHECK(h->n_elems > 0, HS_ERR_MESH,
                     "%s:%ld: 'property' before any 'element' line", r->path, r->line);
            ply_elem *e = &h->elems[h->n_elems - 1];
            HS_CHECK(e->n_props < PLY_MAX_PROPS, HS_ERR_MESH,
                     "%s:%ld: element '%s' has more than %d properties", r->path, r->line, e->name,
                     PLY_MAX_PROPS);
            ply_prop *p = &e->props[e->n_props];
            memset(p, 0, sizeof *p);
            const char *t = hs_text_reader_token(r);
            if (t && strcmp(t, "list") == 0) {
                p->is_list = 1;
                HS_CALL(parse_type(r, hs_text_reader_token(r), &p->count_type));
                HS_CHECK(k_types[p->count_type].is_int, HS_ERR_MESH,
                         "%s:%ld: a list count must have an integer type, not '%s'", r->path,
                         r->line, k_types[p->count_type].name);
                HS_CALL(parse_type(r, hs_text_reader_token(r), &p->type));
                HS_CALL(copy_name(r, hs_text_reader_token(r), "a property name", p->name));
                HS_CALL(hs_text_reader_expect_end(
                    r, 5, "property list <count type> <item type> <name>"));
            } else {
                HS_CALL(parse_type(r, t, &p->type));
                HS_CALL(copy_name(r, hs_text_reader_token(r), "a property name", p->name));
                HS_CALL(hs_text_reader_expect_end(r, 3, "property <type> <name>"));
            }
            ++e->n_props;
            continue;
        }
        return HS_FAIL(HS_ERR_MESH,
                       "%s:%ld: unknown PLY header line '%s' (expected format, comment, obj_info, "
                       "element, property or end_header)",
                       r->path, r->line, kw);
    }
    HS_CHECK(have_format, HS_ERR_MESH, "%s:%ld: the header has no 'format' line", r->path,
             r->line);
    return HS_OK;
}

/* Where the element being read is, for messages: "file:line" (ascii) or "file: <element>
 * <index> (0-based) at byte <offset>" (binary). */
typedef struct ply_in {
    hs_text_reader *r;
    int binary;
    const ply_elem *e;
    long long i;    /* element index */
    long long off;  /* binary: byte offset of the element */
    char where[512];
} ply_in;

static void set_where(ply_in *in)
{
    if (in->binary)
        snprintf(in->where, sizeof in->where, "%s: %s %lld (0-based) at byte %lld", in->r->path,
                 in->e->name, in->i, in->off);
    else
        snprintf(in->where, sizeof in->where, "%s:%ld", in->r->path, in->r->line);
}

/* Next value of type t: *d always, *ll too for integer types. */
static hs_status get_value(ply_in *in, int t, const char *field, double *d, long long *ll)
{
    if (!in->binary) {
        char *tok = hs_text_reader_token(in->r);
        HS_CHECK(tok != NULL, HS_ERR_MESH,
                 "%s: expected %s, found end of line (element '%s' has more properties: each "
                 "element is one line)",
                 in->where, field, in->e->name);
        if (k_types[t].is_int) {
            HS_CALL(hs_text_reader_long(in->r, tok, field, ll));
            *d = (double)*ll;
        } else {
            HS_CALL(hs_text_reader_double(in->r, tok, field, d));
        }
        return HS_OK;
    }
    unsigned char b[8];
    const int n = k_types[t].size;
    HS_CHECK(fread(b, 1, (size_t)n, in->r->f) == (size_t)n, HS_ERR_MESH,
             "%s: file ended inside the element (reading %s): %lld %s elements announced on "
             "line %ld; is the file truncated?",
             in->where, field, in->e->count, in->e->name, in->e->line);
    uint64_t u = 0;
    for (int k = n - 1; k >= 0; --k) u = u << 8 | b[k];
    switch ((ply_type)t) {
    case T_I8: *ll = (int8_t)u; break;
    case T_U8: *ll = (uint8_t)u; break;
    case T_I16: *ll = (int16_t)u; break;
    case T_U16: *ll = (uint16_t)u; break;
    case T_I32: *ll = (int32_t)u; break;
    case T_U32: *ll = (uint32_t)u; break;
    case T_F32: {
        uint32_t u32 = (uint32_t)u;
        float x;
        memcpy(&x, &u32, 4);
        *d = x;
        return HS_OK;
    }
    case T_F64: memcpy(d, &u, 8); return HS_OK;
    default: return HS_FAIL(HS_ERR_INTERNAL, "PLY: bad type %d", t);
    }
    *d = (double)*ll;
    return HS_OK;
}

/* Roles of the vertex and face elements' properties. */
typedef struct ply_roles {
    int vertex, face;      /* element indices, -1 if absent */
    int px, py, pz, plist; /* property indices */
} ply_roles;

static int find_prop(const ply_elem *e, const char *name, int list)
{
    for (int p = 0; p < e->n_props; ++p)
        if (strcmp(e->props[p].name, name) == 0 && e->props[p].is_list == list) return p;
    return -1;
}

static hs_status find_roles(hs_text_reader *r, const ply_header *h, ply_roles *ro)
{
    ro->vertex = ro->face = -1;
    for (int k = 0; k < h->n_elems; ++k) {
        if (strcmp(h->elems[k].name, "vertex") == 0 && ro->vertex < 0) ro->vertex = k;
        if (strcmp(h->elems[k].name, "face") == 0 && ro->face < 0) ro->face = k;
    }
    HS_CHECK(ro->vertex >= 0, HS_ERR_MESH, "%s: the PLY header declares no 'vertex' element",
             r->path);
    HS_CHECK(ro->face >= 0, HS_ERR_MESH,
             "%s: the PLY header declares no 'face' element (a point cloud is not a surface)",
             r->path);
    const ply_elem *v = &h->elems[ro->vertex], *f = &h->elems[ro->face];
    ro->px = find_prop(v, "x", 0);
    ro->py = find_prop(v, "y", 0);
    ro->pz = find_prop(v, "z", 0);
    HS_CHECK(ro->px >= 0 && ro->py >= 0 && ro->pz >= 0, HS_ERR_MESH,
             "%s:%ld: element 'vertex' needs scalar properties x, y and z", r->path, v->line);
    ro->plist = find_prop(f, "vertex_indices", 1);
    if (ro->plist < 0) ro->plist = find_prop(f, "vertex_index", 1);
    HS_CHECK(ro->plist >= 0, HS_ERR_MESH,
             "%s:%ld: element 'face' needs a list property 'vertex_indices' (or 'vertex_index')",
             r->path, f->line);
    HS_CHECK(k_types[f->props[ro->plist].type].is_int, HS_ERR_MESH,
             "%s:%ld: face vertex indices must have an integer type, not '%s'", r->path, f->line,
             k_types[f->props[ro->plist].type].name);
    HS_CHECK(v->count >= 3 && v->count <= INT32_MAX, HS_ERR_MESH,
             "%s:%ld: %lld vertices; expected 3..2147483647", r->path, v->line, v->count);
    HS_CHECK(f->count >= 1 && f->count <= INT32_MAX, HS_ERR_MESH,
             "%s:%ld: %lld faces; expected 1..2147483647", r->path, f->line, f->count);
    return HS_OK;
}

static hs_status read_body(hs_text_reader *r, const ply_header *h, const ply_roles *ro,
                           double scale, hs_surface_builder *b)
{
    hs_status st = HS_OK;
    int32_t *poly = NULL;
    size_t cap_poly = 0;
    ply_in in = {.r = r, .binary = h->binary};
    const long long nv = h->elems[ro->vertex].count;
    for (int k = 0; k < h->n_elems; ++k) {
        const ply_elem *e = &h->elems[k];
        in.e = e;
        for (long long i = 0; i < e->count; ++i) {
            in.i = i;
            if (h->binary) {
                in.off = (long long)ftello(r->f);
            } else {
                int got = 0;
                HS_CALL_GOTO(hs_text_reader_next(r, &got), done);
                HS_CHECK_GOTO(got, done, HS_ERR_MESH,
                              "%s:%ld: file ended after %lld of the %lld '%s' elements announced "
                              "on line %ld",
                              r->path, hs_text_reader_eof_line(r), i, e->count, e->name, e->line);
            }
            set_where(&in);
            double x[3] = {0, 0, 0};
            int32_t n_poly = -1;
            for (int p = 0; p < e->n_props; ++p) {
                const ply_prop *pr = &e->props[p];
                double d = 0;
                long long ll = 0;
                if (!pr->is_list) {
                    HS_CALL_GOTO(get_value(&in, pr->type, pr->name, &d, &ll), done);
                    if (k == ro->vertex && (p == ro->px || p == ro->py || p == ro->pz)) {
                        HS_CHECK_GOTO(isfinite(d), done, HS_ERR_MESH,
                                      "%s: vertex coordinate %s is not a finite number", in.where,
                                      pr->name);
                        x[p == ro->px ? 0 : p == ro->py ? 1 : 2] = d;
                    }
                    continue;
                }
                long long n = 0;
                HS_CALL_GOTO(get_value(&in, pr->count_type, "a list count", &d, &n), done);
                HS_CHECK_GOTO(n >= 0, done, HS_ERR_MESH, "%s: negative count %lld of list '%s'",
                              in.where, n, pr->name);
                const int is_poly = k == ro->face && p == ro->plist;
                if (is_poly) {
                    HS_CHECK_GOTO(n >= 3 && n <= nv, done, HS_ERR_MESH,
                                  "%s: face with %lld vertices; expected 3..%lld (a polygon of "
                                  "the file's vertices)",
                                  in.where, n, nv);
                    HS_CALL_GOTO(hs_grow_array((void **)&poly, &cap_poly, (size_t)n,
                                               sizeof *poly, "PLY face"),
                                 done);
                    n_poly = (int32_t)n;
                }
                for (long long q = 0; q < n; ++q) {
                    HS_CALL_GOTO(get_value(&in, pr->type, is_poly ? "vertex index" : pr->name, &d,
                                           &ll),
                                 done);
                    if (!is_poly) continue;
                    HS_CHECK_GOTO(ll >= 0 && ll < nv, done, HS_ERR_MESH,
                                  "%s: vertex index %lld out of range: the file has %lld "
                                  "vertices, numbered 0..%lld",
                                  in.where, ll, nv, nv - 1);
                    poly[q] = (int32_t)ll;
                }
            }
            if (!h->binary) {
                const long extra = hs_text_reader_remaining(r);
                HS_CHECK_GOTO(extra == 0, done, HS_ERR_MESH,
                              "%s: %ld values left over at the end of this '%s' element; does "
                              "the header describe the data?",
                              in.where, extra, e->name);
            }
            if (k == ro->vertex)
                HS_CALL_GOTO(hs_surface_builder_point(b, scale * x[0], scale * x[1],
                                                      scale * x[2]),
                             done);
            if (k == ro->face) HS_CALL_GOTO(hs_surface_builder_facet(b, poly, n_poly, 0), done);
        }
    }
    if (h->binary) {
        const long long off = (long long)ftello(r->f);
        HS_CHECK_GOTO(fgetc(r->f) == EOF, done, HS_ERR_MESH,
                      "%s: unexpected data after the last element (byte %lld); does the header "
                      "describe the data?",
                      r->path, off);
    } else {
        int got = 0;
        HS_CALL_GOTO(hs_text_reader_next(r, &got), done);
        HS_CHECK_GOTO(!got, done, HS_ERR_MESH,
                      "%s:%ld: unexpected data after the last element; does the header describe "
                      "the data?",
                      r->path, r->line);
    }
done:
    free(poly);
    return st;
}

hs_status hs_surface_read_ply(const char *path, double scale, hs_surface **out)
{
    HS_CHECK(out != NULL, HS_ERR_INTERNAL, "hs_surface_read_ply: out is NULL");
    *out = NULL;
    HS_CALL(hs_surface_check_scale(path, scale));
    hs_text_reader r;
    HS_CALL(hs_text_reader_open(&r, path, "PLY", HS_ERR_MESH, 0));
    hs_status st = HS_OK;
    hs_surface_builder b;
    hs_surface_builder_init(&b);
    ply_header *h = NULL;
    HS_CALL_GOTO(HS_ALLOC(h, 1, "PLY header"), done);
    HS_CALL_GOTO(read_header(&r, h), done);
    ply_roles ro = {0};
    HS_CALL_GOTO(find_roles(&r, h, &ro), done);
    /* Binary data starts right after the end_header line: stdio's getline left the stream there. */
    HS_CALL_GOTO(read_body(&r, h, &ro, scale, &b), done);
    HS_CALL_GOTO(hs_surface_builder_finish(&b, out), done);
done:
    hs_text_reader_close(&r);
    hs_surface_builder_free(&b);
    free(h);
    return st;
}

/* The listed reader (hs_surface_reader_list.h). */
hs_status hs_surface_reader_ply(const char *path, double scale, const hs_surface_read_opts *o, hs_surface **out)
{
    (void)o; /* only STL stores each facet's corners separately; no named cell arrays */
    return hs_surface_read_ply(path, scale, out);
}
