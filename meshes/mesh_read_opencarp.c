/* Reader for openCARP meshes (openCARP user manual, "Mesh files"):
 *
 *   PREFIX.pts   <#points>            then per point:   x y z              (um)
 *   PREFIX.elem  <#elements>          then per element: Tt n0 n1 n2 n3 [region]
 *   PREFIX.lon   <1|2>                then per element: f0 f1 f2 [s0 s1 s2] (optional file)
 *
 * Node indices are 0-based. Only tetrahedra are accepted: the other element codes (Ln line, Tr
 * triangle, Qd quadrilateral, Py pyramid, Pr prism, Hx hexahedron) are refused with the line,
 * because a mixed mesh read as tets-only would silently lose volume. The .lon header gives the
 * number of directions per element (fibre, or fibre and sheet); older CARP files have no header
 * and start with the first fibre (3 numbers), which is accepted as 1 direction. Sheets are checked
 * as numbers but not kept (hs_mesh has no sheet field). Counts in the first lines are checked
 * against the data both ways (a file that ends early, or goes on after the count). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hs_mesh_io.h"
#include "hs_text_reader.h"
#include "hs_util.h"
#include "mesh_path.h"
#include "mesh_read_internal.h"
#include "mesh_read_lines.h"

/* ---- line parsers, shared with the block reader (mesh_read_lines.h) ------------------------ */

hs_status hs_opencarp_read_count(hs_text_reader *r, const char *layout, long long *n)
{
    int got = 0;
    HS_CALL(hs_text_reader_next(r, &got));
    HS_CHECK(got, HS_ERR_MESH, "%s:%ld: file is empty; expected %s", r->path,
             hs_text_reader_eof_line(r), layout);
    HS_CALL(hs_text_reader_next_long(r, "count on the first line", n));
    HS_CHECK(*n >= 0 && *n <= INT32_MAX, HS_ERR_MESH,
             "%s:%ld: count %lld out of range 0..%d (first line: %s)", r->path, r->line, *n,
             (int)INT32_MAX, layout);
    return hs_text_reader_expect_end(r, 1, layout);
}

hs_status hs_opencarp_ended(const hs_text_reader *r, long long i, long long n, const char *items)
{
    return HS_FAIL(HS_ERR_MESH,
                   "%s:%ld: file ended after %lld of the %lld %s announced on the first line",
                   r->path, hs_text_reader_eof_line(r), i, n, items);
}

hs_status hs_opencarp_extra(const hs_text_reader *r, long long n, const char *items)
{
    return HS_FAIL(HS_ERR_MESH,
                   "%s:%ld: unexpected data after the %lld %s announced on the first line; does "
                   "the count match the data?",
                   r->path, r->line, n, items);
}

/* After the announced items: nothing but blank lines may follow. */
static hs_status expect_eof(hs_text_reader *r, long long n, const char *items)
{
    int got = 0;
    HS_CALL(hs_text_reader_next(r, &got));
    return got ? hs_opencarp_extra(r, n, items) : HS_OK;
}

hs_status hs_opencarp_pts_line(hs_text_reader *r, double x[3])
{
    HS_CALL(hs_text_reader_next_double(r, "x coordinate", &x[0]));
    HS_CALL(hs_text_reader_next_double(r, "y coordinate", &x[1]));
    HS_CALL(hs_text_reader_next_double(r, "z coordinate", &x[2]));
    return hs_text_reader_expect_end(r, 3, "x y z");
}

static hs_status read_pts(const char *path, hs_mesh_parts *p)
{
    hs_text_reader r;
    hs_status st = HS_OK;
    HS_CALL(hs_text_reader_open(&r, path, "openCARP .pts", HS_ERR_MESH, 0));
    long long n = 0;
    HS_CALL_GOTO(hs_opencarp_read_count(&r, "<#points>", &n), done);
    for (long long i = 0; i < n; ++i) {
        int got = 0;
        HS_CALL_GOTO(hs_text_reader_next(&r, &got), done);
        if (!got) {
            st = hs_opencarp_ended(&r, i, n, "points");
            goto done;
        }
        double x[3];
        HS_CALL_GOTO(hs_opencarp_pts_line(&r, x), done);
        HS_CALL_GOTO(hs_mesh_parts_add_node(p, x), done);
    }
    HS_CALL_GOTO(expect_eof(&r, n, "points"), done);
done:
    hs_text_reader_close(&r);
    return st;
}

/* Element codes openCARP knows besides Tt, named in the refusal. */
static const char *element_name(const char *code)
{
    static const char *names[][2] = {{"Ln", "line"},      {"Tr", "triangle"},
                                     {"Qd", "quadrilateral"}, {"Py", "pyramid"},
                                     {"Pr", "prism"},     {"Hx", "hexahedron"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (strcmp(code, names[i][0]) == 0) return names[i][1];
    return NULL;
}

hs_status hs_opencarp_elem_line(hs_text_reader *r, const char *pts_path, long long e,
                                size_t n_nodes, int32_t v[4], int32_t *region)
{
    const char *path = r->path;
    const char *code = hs_text_reader_token(r);
    if (strcmp(code, "Tt") != 0) {
        const char *name = element_name(code);
        if (name)
            return HS_FAIL(HS_ERR_MESH,
                           "%s:%ld: element %lld is a %s (%s); heartsim reads tetrahedra (Tt) "
                           "only: re-mesh the domain with tetrahedra",
                           path, r->line, e, name, code);
        return HS_FAIL(HS_ERR_MESH,
                       "%s:%ld: unknown element type '%s'; expected Tt (tetrahedron) "
                       "followed by 4 node indices and an optional region",
                       path, r->line, code);
    }
    for (int k = 0; k < 4; ++k) {
        long long x;
        HS_CALL(hs_text_reader_next_long(r, "node index", &x));
        HS_CHECK(x >= 0 && (size_t)x < n_nodes, HS_ERR_MESH,
                 "%s:%ld: node index %lld out of range: %s has %zu points, numbered 0..%zu", path,
                 r->line, x, pts_path, n_nodes, n_nodes - 1);
        v[k] = (int32_t)x;
    }
    long long reg = 0;
    const char *tok = hs_text_reader_token(r);
    if (tok) {
        HS_CALL(hs_text_reader_long(r, tok, "region", &reg));
        HS_CHECK(reg >= INT32_MIN && reg <= INT32_MAX, HS_ERR_MESH,
                 "%s:%ld: region %lld does not fit a 32-bit integer", path, r->line, reg);
    }
    HS_CALL(hs_text_reader_expect_end(r, 6, "Tt n0 n1 n2 n3 [region]"));
    *region = (int32_t)reg;
    return HS_OK;
}

static hs_status read_elem(const char *path, const char *pts_path, hs_mesh_parts *p)
{
    hs_text_reader r;
    hs_status st = HS_OK;
    HS_CALL(hs_text_reader_open(&r, path, "openCARP .elem", HS_ERR_MESH, 0));
    long long n = 0;
    HS_CALL_GOTO(hs_opencarp_read_count(&r, "<#elements>", &n), done);
    for (long long e = 0; e < n; ++e) {
        int got = 0;
        HS_CALL_GOTO(hs_text_reader_next(&r, &got), done);
        if (!got) {
            st = hs_opencarp_ended(&r, e, n, "elements");
            goto done;
        }
        int32_t v[4], region;
        HS_CALL_GOTO(hs_opencarp_elem_line(&r, pts_path, e, p->n_nodes, v, &region), done);
        HS_CALL_GOTO(hs_mesh_parts_add_tet(p, v, region), done);
    }
    HS_CALL_GOTO(expect_eof(&r, n, "elements"), done);
done:
    hs_text_reader_close(&r);
    return st;
}

hs_status hs_opencarp_lon_header(hs_text_reader *r, const char *elem_path, long *ndir,
                                 int *headerless)
{
    int got = 0;
    HS_CALL(hs_text_reader_next(r, &got));
    HS_CHECK(got, HS_ERR_MESH,
             "%s:%ld: file is empty; expected 1 or 2 (directions per element), then one line per "
             "element of %s",
             r->path, hs_text_reader_eof_line(r), elem_path);
    /* Header "1"/"2", or (old CARP) no header: the first line is already a fibre. */
    *ndir = 1;
    *headerless = 0;
    char *save = r->cur;
    const long ntok = hs_text_reader_remaining(r);
    if (ntok == 1) {
        long long h;
        r->cur = save;
        HS_CALL(hs_text_reader_next_long(r, "number of directions per element (1 or 2)", &h));
        HS_CHECK(h == 1 || h == 2, HS_ERR_MESH,
                 "%s:%ld: first line is %lld; expected 1 (fibres) or 2 (fibres and sheets)",
                 r->path, r->line, h);
        *ndir = (long)h;
        return HS_OK;
    }
    HS_CHECK(ntok == 3, HS_ERR_MESH,
             "%s:%ld: first line has %ld fields; expected 1 or 2 (directions per element), or the "
             "first fibre f0 f1 f2 of a file without header",
             r->path, r->line, ntok);
    /* The tokens were NUL-terminated in place; re-read the line from its start. */
    for (char *c = save; c < r->cur; ++c)
        if (*c == '\0') *c = ' ';
    r->cur = save;
    *headerless = 1;
    return HS_OK;
}

hs_status hs_opencarp_lon_line(hs_text_reader *r, long ndir, size_t e, double f[3])
{
    double v[6];
    static const char *field[6] = {"fibre x", "fibre y", "fibre z",
                                   "sheet x", "sheet y", "sheet z"};
    for (long k = 0; k < 3 * ndir; ++k)
        HS_CALL(hs_text_reader_next_double(r, field[k], &v[k]));
    HS_CALL(hs_text_reader_expect_end(r, 3 * ndir, ndir == 1 ? "f0 f1 f2" : "f0 f1 f2 s0 s1 s2"));
    HS_CHECK(hs_unit_vector(v), HS_ERR_MESH,
             "%s:%ld: fibre of element %zu is the zero vector; every element needs a direction",
             r->path, r->line, e);
    memcpy(f, v, 3 * sizeof(double));
    return HS_OK;
}

hs_status hs_opencarp_lon_ended(const hs_text_reader *r, const char *elem_path, size_t e,
                                size_t n_elems)
{
    return HS_FAIL(HS_ERR_MESH, "%s:%ld: file ended after %zu fibres; %s has %zu elements, one "
                   "line each",
                   r->path, hs_text_reader_eof_line(r), e, elem_path, n_elems);
}

hs_status hs_opencarp_lon_extra(const hs_text_reader *r, const char *elem_path, size_t n_elems)
{
    return HS_FAIL(HS_ERR_MESH, "%s:%ld: more fibres than elements: %s has %zu elements",
                   r->path, r->line, elem_path, n_elems);
}

static hs_status read_lon(const char *path, const char *elem_path, hs_mesh_parts *p)
{
    hs_text_reader r;
    hs_status st = HS_OK;
    size_t cap = 0;
    HS_CALL(hs_text_reader_open(&r, path, "openCARP .lon", HS_ERR_MESH, 0));
    long ndir = 1;
    int have_line = 0, got = 0;
    HS_CALL_GOTO(hs_opencarp_lon_header(&r, elem_path, &ndir, &have_line), done);
    for (size_t e = 0; e < p->n_elems; ++e) {
        if (!have_line) {
            HS_CALL_GOTO(hs_text_reader_next(&r, &got), done);
            if (!got) {
                st = hs_opencarp_lon_ended(&r, elem_path, e, p->n_elems);
                goto done;
            }
        }
        have_line = 0;
        HS_CALL_GOTO(hs_grow_array((void **)&p->fiber, &cap, e + 1, 3 * sizeof(double),
                                   "fibres"),
                     done);
        HS_CALL_GOTO(hs_opencarp_lon_line(&r, ndir, e, p->fiber + 3 * e), done);
    }
    HS_CALL_GOTO(hs_text_reader_next(&r, &got), done);
    if (got) {
        st = hs_opencarp_lon_extra(&r, elem_path, p->n_elems);
        goto done;
    }
    if (ndir == 2) hs_log(2, "%s: sheet directions are not used\n", path);
done:
    hs_text_reader_close(&r);
    return st;
}

hs_status hs_mesh_read_opencarp(const char *prefix, const hs_mesh_read_opts *o, hs_mesh **out)
{
    (void)o; /* openCARP elements are linear */
    HS_CHECK(out != NULL, HS_ERR_INTERNAL, "hs_mesh_read_opencarp: out is NULL");
    *out = NULL;
    HS_CHECK(prefix != NULL && prefix[0] != '\0', HS_ERR_MESH, "openCARP mesh prefix is empty");
    const size_t len = strlen(prefix);
    char *pts = NULL, *elem = NULL, *lon = NULL;
    hs_mesh_parts p;
    memset(&p, 0, sizeof p);
    hs_status st = HS_OK;
    HS_CALL_GOTO(HS_ALLOC(pts, len + 6, "file name"), done);
    HS_CALL_GOTO(HS_ALLOC(elem, len + 6, "file name"), done);
    HS_CALL_GOTO(HS_ALLOC(lon, len + 6, "file name"), done);
    snprintf(pts, len + 6, "%s.pts", prefix);
    snprintf(elem, len + 6, "%s.elem", prefix);
    snprintf(lon, len + 6, "%s.lon", prefix);
    p.path = elem;
    p.numbering = "openCARP, 0-based";

    HS_CALL_GOTO(read_pts(pts, &p), done);
    HS_CALL_GOTO(read_elem(elem, pts, &p), done);
    struct stat sb;
    if (stat(lon, &sb) == 0)
        HS_CALL_GOTO(read_lon(lon, elem, &p), done);
    else
        HS_CHECK_GOTO(errno == ENOENT, done, HS_ERR_MESH, "cannot read fibre file %s: %s", lon,
                      strerror(errno));
    st = hs_mesh_parts_finish(&p, out);
done:
    hs_mesh_parts_free(&p);
    free(pts);
    free(elem);
    free(lon);
    return st;
}

/* The listed reader (hs_mesh_reader_list.h): PREFIX.pts, PREFIX.elem or PREFIX.lon names the mesh
 * PREFIX. */
hs_status hs_mesh_read_opencarp_file(const char *path, const hs_mesh_read_opts *o, hs_mesh **out)
{
    char *prefix = NULL;
    HS_CALL(hs_path_with_ext(path, hs_path_stem_len(path), "", &prefix));
    hs_status st = hs_mesh_read_opencarp(prefix, o, out);
    free(prefix);
    return st;
}
