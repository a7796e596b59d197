/* Fibre fields read from text files (hs_fibers.h): openCARP .lon or plain "fx fy fz" lines, per
 * element or per node.
 *
 * The whole file is read before the mesh is touched, so a bad line leaves the mesh's fibres as
 * they were. Per-element lines follow the mesh's element order (read fibres before renumbering:
 * hs_mesh_reorder moves fibres with their elements); per-node lines follow the source node
 * numbering, mapped through mesh->node_orig, so they stay valid after a renumbering. */
#include "hs_fibers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_registry.h"
#include "hs_text_reader.h"
#include "hs_util.h"

enum { LOC_AUTO, LOC_ELEMENT, LOC_NODE };

/* Where the lines belong, by name (the values of the fibers.location key). */
typedef struct fiber_location {
    const char *name; /* first member (hs_registry) */
    int loc;
} fiber_location;

static const fiber_location k_locations[] = {{"element", LOC_ELEMENT}, {"node", LOC_NODE}, {"auto", LOC_AUTO}};

static const hs_registry k_location_registry = HS_REGISTRY_INIT("fibre location", k_locations);

/* Read every data line into *dirs ([n][3], each normalised); *per_line is 3 or 6. */
static hs_status read_lines(hs_text_reader *r, double **dirs, size_t *n_out, long *last_line)
{
    size_t cap = 0, n = 0;
    int per_line = 0; /* numbers per line, fixed by the header or the first data line */
    int first = 1, got = 0;
    char header_note[64] = "";
    for (;;) {
        HS_CALL(hs_text_reader_next(r, &got));
        if (!got) break;
        char *tok[7];
        int nt = 0;
        char *t;
        while (nt < 7 && (t = hs_text_reader_token(r)) != NULL) tok[nt++] = t;
        if (first && nt == 1) {
            /* openCARP .lon header: the number of directions per element, 1 (fibre) or 2
             * (fibre and sheet). */
            char *end = NULL;
            const long long k = strtoll(tok[0], &end, 10);
            HS_CHECK(end != tok[0] && *end == '\0' && (k == 1 || k == 2), HS_ERR_MESH,
                     "%s:%ld: expected 3 or 6 numbers per line, or an openCARP .lon header "
                     "(1 or 2), found '%s'",
                     r->path, r->line, tok[0]);
            per_line = 3 * (int)k;
            snprintf(header_note, sizeof header_note, ", as the header on line %ld says",
                     r->line);
            first = 0;
            continue;
        }
        first = 0;
        if (per_line == 0) {
            HS_CHECK(nt == 3 || nt == 6, HS_ERR_MESH,
                     "%s:%ld: expected 3 numbers (fibre) or 6 (fibre and sheet) per line, found "
                     "%d%s",
                     r->path, r->line, nt, nt == 7 ? " or more" : "");
            per_line = nt;
        }
        HS_CHECK(nt == per_line, HS_ERR_MESH, "%s:%ld: expected %d numbers%s, found %d%s",
                 r->path, r->line, per_line, header_note, nt, nt == 7 ? " or more" : "");
        double v[6];
        static const char *field[6] = {"fibre x", "fibre y", "fibre z",
                                       "sheet x", "sheet y", "sheet z"};
        for (int k = 0; k < nt; ++k) HS_CALL(hs_text_reader_double(r, tok[k], field[k], &v[k]));
        const double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        HS_CHECK(len > 0.0 && isfinite(len), HS_ERR_MESH,
                 "%s:%ld: fibre direction (%g, %g, %g) is zero: it has no direction", r->path,
                 r->line, v[0], v[1], v[2]);
        HS_CALL(hs_grow_array((void **)dirs, &cap, n + 1, 3 * sizeof(double), "fibre directions"));
        for (int k = 0; k < 3; ++k) (*dirs)[3 * n + k] = v[k] / len;
        ++n;
        *last_line = r->line;
    }
    *n_out = n;
    return HS_OK;
}

hs_status hs_fibers_read(hs_mesh *m, const char *path, const char *location)
{
    HS_CHECK(m != NULL && path != NULL, HS_ERR_INTERNAL, "hs_fibers_read: NULL argument");
    int loc = LOC_AUTO;
    if (location) {
        const void *e = NULL;
        HS_CALL(hs_registry_lookup(&k_location_registry, "fibers.location", location, NULL, &e));
        loc = ((const fiber_location *)e)->loc;
    }

    hs_text_reader r;
    hs_status st = HS_OK;
    double *dirs = NULL, *fib = NULL;
    int32_t *orig_to_node = NULL;
    size_t n = 0;
    long last = 0;
    HS_CALL(hs_text_reader_open(&r, path, "fibre", HS_ERR_MESH, '#'));
    HS_CALL_GOTO(read_lines(&r, &dirs, &n, &last), done);
    const size_t ne = (size_t)m->n_elems, nn = (size_t)m->n_nodes;

    if (loc == LOC_AUTO) {
        HS_CHECK_GOTO(!(n == ne && n == nn), done, HS_ERR_MESH,
                      "%s: %zu fibre lines match both the element and the node count; say which "
                      "they are (location \"element\" or \"node\")",
                      path, n);
        HS_CHECK_GOTO(n == ne || n == nn, done, HS_ERR_MESH,
                      "%s: %zu fibre lines, but the mesh has %zu elements and %zu nodes; one line "
                      "per element or per node is expected",
                      path, n, ne, nn);
        loc = n == ne ? LOC_ELEMENT : LOC_NODE;
    }
    const size_t want = loc == LOC_ELEMENT ? ne : nn;
    const char *what = loc == LOC_ELEMENT ? "elements" : "nodes";
    HS_CHECK_GOTO(n <= want, done, HS_ERR_MESH,
                  "%s:%ld: %zu fibre lines, more than the mesh's %zu %s", path, last, n, want,
                  what);
    HS_CHECK_GOTO(n >= want, done, HS_ERR_MESH,
                  "%s:%ld: file ended after %zu fibre lines; the mesh has %zu %s", path,
                  hs_text_reader_eof_line(&r), n, want, what);

    HS_CALL_GOTO(HS_ALLOC(fib, ne * 3, "fibre directions"), done);
    if (loc == LOC_ELEMENT) {
        memcpy(fib, dirs, ne * 3 * sizeof(double));
    } else {
        /* Line i belongs to the node whose source index is i. */
        HS_CALL_GOTO(HS_ALLOC(orig_to_node, nn, "source node map"), done);
        for (size_t i = 0; i < nn; ++i) orig_to_node[i] = -1;
        for (size_t v = 0; v < nn; ++v) {
            const int32_t o = m->node_orig ? m->node_orig[v] : (int32_t)v;
            HS_CHECK_GOTO(o >= 0 && (size_t)o < nn && orig_to_node[o] < 0, done, HS_ERR_INTERNAL,
                          "mesh node_orig is not a permutation (node %zu has source index %ld)",
                          v, (long)o);
            orig_to_node[o] = (int32_t)v;
        }
        /* Node lines in mesh numbering: dirs is indexed by source index. */
        for (size_t e = 0; e < ne; ++e) {
            const int32_t *t = m->tets + 4 * e;
            double s[3] = {0.0, 0.0, 0.0};
            const double *d0 = NULL;
            for (int k = 0; k < 4; ++k) {
                HS_CHECK_GOTO(t[k] >= 0 && (size_t)t[k] < nn, done, HS_ERR_MESH,
                              "element %zu refers to node %ld, out of range 0..%zu", e,
                              (long)t[k], nn - 1);
                const int32_t o = m->node_orig ? m->node_orig[t[k]] : t[k];
                const double *d = dirs + 3 * (size_t)o;
                if (!d0) d0 = d;
                /* f and -f are the same fibre: align each with the first node's. */
                const double sgn = d[0] * d0[0] + d[1] * d0[1] + d[2] * d0[2] < 0.0 ? -1.0 : 1.0;
                for (int c = 0; c < 3; ++c) s[c] += sgn * d[c];
            }
            const double len = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
            /* Four unit vectors aligned with the first sum to at least length 1. */
            HS_CHECK_GOTO(len > 0.5, done, HS_ERR_INTERNAL,
                          "%s: mean fibre of element %zu has length %g", path, e, len);
            for (int c = 0; c < 3; ++c) fib[3 * e + c] = s[c] / len;
        }
    }
    free(m->fiber);
    m->fiber = fib;
    fib = NULL;
done:
    hs_text_reader_close(&r);
    free(dirs);
    free(fib);
    free(orig_to_node);
    return st;
}
