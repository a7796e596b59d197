/* hs_mesh_read_file: the volume reader listed for the file's extension (hs_mesh_reader_list.h,
 * looked up with hs_registry); and the assembly shared by the readers (mesh_read_internal.h):
 * unused nodes dropped, a whole-file orientation flip undone, arrays handed over to the hs_mesh. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "hs_mesh_io.h"
#include "hs_surface.h"
#include "hs_text_reader.h"
#include "hs_util.h"
#include "mesh_path.h"
#include "mesh_read_internal.h"

/* ---- parts ---------------------------------------------------------------------------------- */

hs_status hs_mesh_parts_add_node(hs_mesh_parts *p, const double x[3])
{
    HS_CALL(hs_grow_array((void **)&p->xyz, &p->cap_nodes, p->n_nodes + 1, 3 * sizeof(double),
                          "node coordinates"));
    memcpy(p->xyz + 3 * p->n_nodes, x, 3 * sizeof(double));
    ++p->n_nodes;
    return HS_OK;
}

hs_status hs_mesh_parts_add_tet(hs_mesh_parts *p, const int32_t v[4], int32_t region)
{
    HS_CALL(hs_grow_array((void **)&p->tets, &p->cap_tets, p->n_elems + 1, 4 * sizeof(int32_t),
                          "tetrahedra"));
    HS_CALL(hs_grow_array((void **)&p->region, &p->cap_region, p->n_elems + 1, sizeof(int32_t),
                          "region markers"));
    memcpy(p->tets + 4 * p->n_elems, v, 4 * sizeof(int32_t));
    p->region[p->n_elems] = region;
    ++p->n_elems;
    return HS_OK;
}

/* Grow an id array to n entries, filling the new ones (from *have) with position + base. */
static hs_status grow_ids(int64_t **a, size_t *cap, size_t *have, size_t n, int base)
{
    HS_CALL(hs_grow_array((void **)a, cap, n > 0 ? n : 1, sizeof(int64_t), "file numbers"));
    for (size_t k = *have; k < n; ++k) (*a)[k] = (int64_t)k + base;
    if (n > *have) *have = n;
    return HS_OK;
}

hs_status hs_mesh_parts_tet_id(hs_mesh_parts *p, int64_t id)
{
    HS_CHECK(p->n_elems > 0, HS_ERR_INTERNAL, "hs_mesh_parts_tet_id before any tetrahedron");
    HS_CALL(grow_ids(&p->elem_id, &p->cap_elem_id, &p->n_elem_id, p->n_elems, p->elem_base));
    p->elem_id[p->n_elems - 1] = id;
    return HS_OK;
}

hs_status hs_mesh_parts_node_id(hs_mesh_parts *p, int64_t id)
{
    HS_CHECK(p->n_nodes > 0, HS_ERR_INTERNAL, "hs_mesh_parts_node_id before any node");
    HS_CALL(grow_ids(&p->node_id, &p->cap_node_id, &p->n_node_id, p->n_nodes, p->node_base));
    p->node_id[p->n_nodes - 1] = id;
    return HS_OK;
}

hs_status hs_mesh_parts_add_bface(hs_mesh_parts *p, const int32_t v[3], int32_t label, long line)
{
    const size_t n = p->n_bfaces + 1;
    HS_CALL(hs_grow_array((void **)&p->bface, &p->cap_bface, n, 3 * sizeof(int32_t),
                          "boundary faces"));
    HS_CALL(hs_grow_array((void **)&p->bface_label, &p->cap_blabel, n, sizeof(int32_t),
                          "boundary face labels"));
    HS_CALL(hs_grow_array((void **)&p->bface_line, &p->cap_bline, n, sizeof(long),
                          "boundary face lines"));
    memcpy(p->bface + 3 * p->n_bfaces, v, 3 * sizeof(int32_t));
    p->bface_label[p->n_bfaces] = label;
    p->bface_line[p->n_bfaces] = line;
    p->n_bfaces = n;
    return HS_OK;
}

void hs_mesh_parts_free(hs_mesh_parts *p)
{
    free(p->xyz);
    free(p->tets);
    free(p->region);
    free(p->fiber);
    free(p->bface);
    free(p->bface_label);
    free(p->bface_line);
    free(p->node_id);
    free(p->elem_id);
    const char *path = p->path;
    memset(p, 0, sizeof *p);
    p->path = path;
}

/* Give back the unused tail of a grown array; keeps the original block if realloc fails. */
static void *shrink(void *a, size_t bytes)
{
    void *q = realloc(a, bytes ? bytes : 1);
    return q ? q : a;
}

hs_status hs_mesh_parts_finish(hs_mesh_parts *p, hs_mesh **out)
{
    const char *path = p->path ? p->path : "mesh file";
    hs_status st = HS_OK;
    int32_t *new_index = NULL, *orig = NULL;
    hs_mesh *m = NULL;
    *out = NULL;
    HS_CHECK_GOTO(p->n_elems > 0, done, HS_ERR_MESH,
                  "%s: no tetrahedra found (%zu nodes); heartsim needs a volume mesh of "
                  "tetrahedra",
                  path, p->n_nodes);
    HS_CHECK_GOTO(p->n_nodes <= INT32_MAX && p->n_elems <= INT32_MAX, done, HS_ERR_MESH,
                  "%s: %zu nodes and %zu tetrahedra; at most %d of each are supported", path,
                  p->n_nodes, p->n_elems, (int)INT32_MAX);

    /* Used nodes keep their relative order, so node_orig is increasing and the mesh reads in
     * the file's order; new_index[old] = new, or -1 for a node no tetrahedron uses. */
    HS_CALL_GOTO(HS_ALLOC(new_index, p->n_nodes, "node renumbering"), done);
    for (size_t i = 0; i < p->n_nodes; ++i) new_index[i] = -1;
    for (size_t k = 0; k < 4 * p->n_elems; ++k) {
        HS_CHECK_GOTO(p->tets[k] >= 0 && (size_t)p->tets[k] < p->n_nodes, done, HS_ERR_INTERNAL,
                      "%s: tetrahedron %zu refers to node %ld of %zu (reader did not check)",
                      path, k / 4, (long)p->tets[k], p->n_nodes);
        new_index[p->tets[k]] = 0;
    }
    int32_t n_used = 0;
    for (size_t i = 0; i < p->n_nodes; ++i)
        if (new_index[i] == 0) new_index[i] = n_used++;
    HS_CALL_GOTO(HS_ALLOC(orig, n_used, "source node numbering"), done);
    for (size_t i = 0; i < p->n_nodes; ++i) {
        const int32_t j = new_index[i];
        if (j < 0) continue;
        orig[j] = (int32_t)i;
        /* j <= i: moving forward in place never overwrites a node still to be moved. */
        memmove(p->xyz + 3 * (size_t)j, p->xyz + 3 * i, 3 * sizeof(double));
    }
    if ((size_t)n_used < p->n_nodes && p->n_linearized > 0)
        hs_log(1, "%s: %zu quadratic tetrahedra read as linear ones on their corners (mesh.quadratic = "
                  "\"linearize\"): the linear mesh uses %d of the %zu nodes; the other %zu are the mid-edge "
                  "nodes (and any node no tetrahedron uses), not part of a linear mesh; the corners are "
                  "renumbered in file order\n",
               p->numbering_path ? p->numbering_path : path, p->n_linearized, (int)n_used, p->n_nodes,
               p->n_nodes - (size_t)n_used);
    else if ((size_t)n_used < p->n_nodes)
        hs_log(1, "%s: %zu of %zu nodes belong to no tetrahedron and were dropped (an unused node "
                  "would leave an empty row in the FEM system); the others are renumbered in "
                  "file order\n",
               p->numbering_path ? p->numbering_path : path, p->n_nodes - (size_t)n_used,
               p->n_nodes);
    for (size_t k = 0; k < 4 * p->n_elems; ++k) p->tets[k] = new_index[p->tets[k]];
    for (size_t f = 0; f < p->n_bfaces; ++f)
        for (int k = 0; k < 3; ++k) {
            const int32_t v = p->bface[3 * f + k];
            const int32_t nv = v >= 0 && (size_t)v < p->n_nodes ? new_index[v] : -1;
            if (nv < 0) {
                char where[32] = "";
                if (p->bface_line && p->bface_line[f] > 0)
                    snprintf(where, sizeof where, "%ld:", p->bface_line[f]);
                st = HS_FAIL(HS_ERR_MESH,
                             "%s:%s boundary triangle (label %ld) uses node %lld (%s), which "
                             "belongs to no tetrahedron; labelled triangles must be faces of the "
                             "volume mesh",
                             path, where, (long)p->bface_label[f],
                             v >= 0 && (size_t)v < p->n_node_id
                                 ? (long long)p->node_id[v]
                                 : (long long)v + p->node_base,
                             p->numbering ? p->numbering : "0-based, in file order");
                goto done;
            }
            p->bface[3 * f + k] = nv;
        }

    /* A file written in the other convention has every element negative; fixing that is safe.
     * A mix is a broken mesh, reported by hs_mesh_check with the first bad element. */
    size_t n_negative = 0;
    for (size_t e = 0; e < p->n_elems; ++e) n_negative += hs_tet_det6(p->xyz, p->tets + 4 * e) < 0.0;
    if (n_negative == p->n_elems) {
        for (size_t e = 0; e < p->n_elems; ++e) {
            int32_t *t = p->tets + 4 * e;
            const int32_t s = t[2];
            t[2] = t[3];
            t[3] = s;
        }
        hs_log(1, "%s: every tetrahedron is negatively oriented (the other node-order "
                  "convention); swapped nodes 2 and 3 of each\n",
               path);
    }

    HS_CALL_GOTO(hs_mesh_alloc(0, 0, &m), done);
    free(m->xyz);
    free(m->tets);
    free(m->region);
    free(m->node_orig);
    m->n_nodes = n_used;
    m->n_elems = (int32_t)p->n_elems;
    m->xyz = shrink(p->xyz, (size_t)n_used * 3 * sizeof(double));
    m->tets = shrink(p->tets, p->n_elems * 4 * sizeof(int32_t));
    m->region = shrink(p->region, p->n_elems * sizeof(int32_t));
    m->fiber = p->fiber;
    m->node_orig = orig;
    p->xyz = NULL;
    p->fiber = NULL;
    p->tets = p->region = NULL;
    orig = NULL;
    /* the file's numbering, for messages */
    snprintf(m->src_path, sizeof m->src_path, "%s", p->numbering_path ? p->numbering_path : path);
    snprintf(m->src_numbering, sizeof m->src_numbering, "%s",
             p->numbering ? p->numbering : "0-based");
    /* every element and node gets a number, whether or not the reader set all of them */
    HS_CALL_GOTO(grow_ids(&p->elem_id, &p->cap_elem_id, &p->n_elem_id, p->n_elems, p->elem_base), done);
    m->elem_src = p->elem_id;
    p->elem_id = NULL;
    HS_CALL_GOTO(grow_ids(&p->node_id, &p->cap_node_id, &p->n_node_id, p->n_nodes, p->node_base), done);
    m->node_src = p->node_id;
    m->n_node_src = (int32_t)p->n_nodes;
    p->node_id = NULL;
    if (p->n_bfaces > 0) {
        HS_CALL_GOTO(hs_mesh_alloc_bfaces(m, (int32_t)p->n_bfaces), done);
        memcpy(m->bface, p->bface, p->n_bfaces * 3 * sizeof(int32_t));
        memcpy(m->bface_label, p->bface_label, p->n_bfaces * sizeof(int32_t));
    }
    *out = m;
    m = NULL;
done:
    hs_mesh_destroy(&m);
    free(new_index);
    free(orig);
    hs_mesh_parts_free(p);
    return st;
}

/* ---- dispatch by file name ------------------------------------------------------------------ */

static const hs_mesh_reader k_readers[] = {
#define HS_MESH_READER(ext, read, prefix_probe, summary) {ext, read, prefix_probe, summary},
#include "hs_mesh_reader_list.h"
#undef HS_MESH_READER
};

static const hs_registry k_registry = HS_REGISTRY_INIT("mesh file extension", k_readers);

const hs_registry *hs_mesh_readers(void) { return &k_registry; }

static int is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* Append s to buf (len bytes, *o used), truncating. */
static void append(char *buf, size_t len, size_t *o, const char *s)
{
    const size_t n = strlen(s);
    const size_t room = *o < len ? len - 1 - *o : 0;
    const size_t k = n < room ? n : room;
    memcpy(buf + *o, s, k);
    *o += k;
    buf[*o] = '\0';
}

/* What the list reads, for messages: each format's extensions with its summary, and the prefix
 * rule: ".vtk (legacy VTK unstructured grid), ..., .pts/.elem/.lon (openCARP; or a prefix PREFIX
 * with PREFIX.elem present), ...". Adjacent lines with the same summary are one format. */
static const char *supported(char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0, j; i < k_registry.count; i = j) {
        const char *probe = NULL;
        for (j = i; j < k_registry.count && strcmp(k_readers[j].summary, k_readers[i].summary) == 0; ++j) {
            append(buf, len, &o, j > i ? "/" : i > 0 ? ", " : "");
            append(buf, len, &o, k_readers[j].name);
            if (k_readers[j].prefix_probe && !probe) probe = k_readers[j].name;
        }
        append(buf, len, &o, " (");
        append(buf, len, &o, k_readers[i].summary);
        if (probe) {
            append(buf, len, &o, "; or a prefix PREFIX with PREFIX");
            append(buf, len, &o, probe);
            append(buf, len, &o, " present");
        }
        append(buf, len, &o, ")");
    }
    return buf;
}

hs_status hs_mesh_read_file(const char *path, const hs_mesh_read_opts *o, hs_mesh **out)
{
    HS_CHECK(out != NULL, HS_ERR_INTERNAL, "hs_mesh_read_file: out is NULL");
    *out = NULL;
    HS_CHECK(path != NULL && path[0] != '\0', HS_ERR_MESH, "mesh file name is empty");
    const hs_mesh_reader *r = hs_registry_find_ext(&k_registry, path);
    if (r) return r->read(path, o, out);
    /* A surface given where a volume is read: say which source reads it. */
    const char *ext = hs_path_ext(path);
    HS_CHECK(!(ext && hs_registry_find_ext(hs_surface_readers(), path)), HS_ERR_MESH,
             "%s: %s is a surface format; mesh it with mesh.source = \"surface\" (volume meshes: "
             "mesh.source = \"file\")",
             path, ext);

    /* A bare prefix: the first listed file that names a format (PREFIX.elem, PREFIX.ele) decides;
     * its reader gets that file's name. */
    const size_t len = strlen(path);
    for (size_t i = 0; i < k_registry.count; ++i) {
        if (!k_readers[i].prefix_probe) continue;
        char *probe = NULL;
        HS_CALL(hs_path_with_ext(path, len, k_readers[i].name, &probe));
        const int found = is_file(probe);
        const hs_status st = found ? k_readers[i].read(probe, o, out) : HS_OK;
        free(probe);
        if (found) return st;
    }
    char list[1024];
    return HS_FAIL(HS_ERR_MESH,
                   "%s: cannot tell the mesh format from the name%s; supported: %s", path,
                   is_file(path) ? "" : " (and no such file)", supported(list, sizeof list));
}
