/* Reader for Gmsh .msh ASCII files, formats 2.x and 4.x (Gmsh reference manual, "MSH file
 * format"; 4.0 and 4.1 differ in the $Entities point lines and in the block and section headers).
 *
 *   2.x  $Nodes     n, then "tag x y z"
 *        $Elements  n, then "tag type ntags tag1..tagk node1..nodem"; tag1 = physical group
 *   4.1  $Entities  nP nC nS nV, then one line per entity: tag bbox(6) nPhys phys... (points: 3
 *                   coordinates instead of the bbox; 4.0: points too have the bbox)
 *        $Nodes     nBlocks n minTag maxTag; per block "dim entity parametric m", m tag lines,
 *                   then m coordinate lines (4.0: "entity dim parametric m", m lines "tag x y z")
 *        $Elements  nBlocks n minTag maxTag; per block "dim entity type m", m lines
 *                   "tag node1..nodek" (4.0: "entity dim type m")
 *   both $PhysicalNames n, then "dim tag \"name\""
 *
 * What becomes what: tetrahedra (type 4; type 11 = 10-node when linearising) are the elements,
 * their physical group (2.x: first tag; 4.x: first physical tag of their volume entity) the
 * region. Triangles (type 2; the corners of type 9) with a physical group become labelled boundary
 * faces; named dim-2 groups become surface labels; dim-3 names are logged. Points, lines and
 * untagged triangles are skipped; other 3-D elements are refused, naming the first one.
 *
 * Node tags may be any positive integers in any order; they are mapped to 0-based positions in the
 * file, which mesh->node_orig keeps (nodes no tetrahedron uses are dropped afterwards). Counts in
 * section headers are checked against the data both ways: a section that ends early or goes on
 * past its count is an error naming the line. Partitioned meshes and binary files are refused. *
 * Over 600 lines on purpose: two format generations (2.x and 4.0/4.1) of one reader share their
 * node, element and physical-group handling here; each malformed case has its own message naming
 * the line.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_mesh_io.h"
#include "hs_text_reader.h"
#include "hs_util.h"
#include "mesh_read_internal.h"

typedef struct gmsh_type {
    int type, nodes, dim;
    const char *name;
} gmsh_type;

/* The element types of the MSH format (reference manual, "MSH file format": elm-type). */
static const gmsh_type k_types[] = {
    {1, 2, 1, "2-node line"},           {2, 3, 2, "3-node triangle"},
    {3, 4, 2, "4-node quadrangle"},     {4, 4, 3, "4-node tetrahedron"},
    {5, 8, 3, "8-node hexahedron"},     {6, 6, 3, "6-node prism"},
    {7, 5, 3, "5-node pyramid"},        {8, 3, 1, "3-node line"},
    {9, 6, 2, "6-node triangle"},       {10, 9, 2, "9-node quadrangle"},
    {11, 10, 3, "10-node tetrahedron"}, {12, 27, 3, "27-node hexahedron"},
    {13, 18, 3, "18-node prism"},       {14, 14, 3, "14-node pyramid"},
    {15, 1, 0, "1-node point"},         {16, 8, 2, "8-node quadrangle"},
    {17, 20, 3, "20-node hexahedron"},  {18, 15, 3, "15-node prism"},
    {19, 13, 3, "13-node pyramid"},     {20, 9, 2, "9-node triangle"},
    {21, 10, 2, "10-node triangle"},    {22, 12, 2, "12-node triangle"},
    {23, 15, 2, "15-node triangle"},    {24, 15, 2, "15-node triangle"},
    {25, 21, 2, "21-node triangle"},    {26, 4, 1, "4-node line"},
    {27, 5, 1, "5-node line"},          {28, 6, 1, "6-node line"},
    {29, 20, 3, "20-node tetrahedron"}, {30, 35, 3, "35-node tetrahedron"},
    {31, 56, 3, "56-node tetrahedron"}, {92, 64, 3, "64-node hexahedron"},
    {93, 125, 3, "125-node hexahedron"}};

static const gmsh_type *find_type(long long type)
{
    for (size_t i = 0; i < sizeof k_types / sizeof k_types[0]; ++i)
        if (k_types[i].type == type) return &k_types[i];
    return NULL;
}

typedef struct tag_index {
    long long tag;
    int32_t index;
} tag_index;

typedef struct phys_name {
    int dim;
    int32_t tag;
    long line;
    char *name;
} phys_name;

typedef struct gmsh {
    hs_text_reader r;
    const char *path;
    int major, minor;
    int linearize;
    hs_mesh_parts p;
    long long *node_tag; /* [p.n_nodes] tag of each node, file order */
    size_t cap_tag;
    int have_nodes, have_elements, have_entities;
    long nodes_line;     /* line of "$Nodes", for duplicate-tag messages */
    /* tag -> 0-based node position: dense when tags are compact, else sorted pairs */
    int32_t *dense;
    size_t dense_len;
    tag_index *sorted;
    /* 4.x entities: physical group of each surface and volume, sorted by tag */
    tag_index *surf, *vol;
    size_t n_surf, n_vol;
    phys_name *names;
    size_t n_names, cap_names;
    size_t n_skipped_tri; /* triangles without physical group */
} gmsh;

/* ---- line helpers --------------------------------------------------------------------------- */

/* Length of the first word of s, for quoting it in messages. */
static int word_len(const char *s)
{
    size_t n = strcspn(s, " \t\r\n\v\f");
    return n > 60 ? 60 : (int)n;
}

/* A non-negative count in a section header. */
static hs_status read_count(gmsh *g, const char *field, long long *n)
{
    HS_CALL(hs_text_reader_next_long(&g->r, field, n));
    HS_CHECK(*n >= 0 && *n <= INT32_MAX, HS_ERR_MESH, "%s:%ld: %s = %lld, expected 0..%d",
             g->path, g->r.line, field, *n, (int)INT32_MAX);
    return HS_OK;
}

/* Next data line of a section: the file may not end, nor the section close, before its count. */
static hs_status data_line(gmsh *g, long long k, long long n, const char *items, long start)
{
    int got = 0;
    HS_CALL(hs_text_reader_next(&g->r, &got));
    HS_CHECK(got, HS_ERR_MESH,
             "%s:%ld: file ended after %lld of the %lld %s announced at line %ld", g->path,
             hs_text_reader_eof_line(&g->r), k, n, items, start);
    HS_CHECK(g->r.cur[0] != '$', HS_ERR_MESH,
             "%s:%ld: found %.*s after %lld of the %lld %s announced at line %ld; does the count "
             "match the data?",
             g->path, g->r.line, word_len(g->r.cur), g->r.cur, k, n, items, start);
    return HS_OK;
}

/* The line closing a section ("$EndNodes"), right after its announced data. */
static hs_status section_end(gmsh *g, const char *end, long long n, const char *items, long start)
{
    int got = 0;
    HS_CALL(hs_text_reader_next(&g->r, &got));
    HS_CHECK(got, HS_ERR_MESH, "%s:%ld: file ended; expected %s closing the section of line %ld",
             g->path, hs_text_reader_eof_line(&g->r), end, start);
    const char *tok = hs_text_reader_token(&g->r);
    HS_CHECK(strcmp(tok, end) == 0, HS_ERR_MESH,
             "%s:%ld: expected %s after the %lld %s announced at line %ld, found '%.*s'; does the "
             "count match the data?",
             g->path, g->r.line, end, n, items, start, word_len(tok), tok);
    return hs_text_reader_expect_end(&g->r, 1, end);
}

/* Skip a section this reader does not use, up to its $End line. */
static hs_status skip_section(gmsh *g, const char *name)
{
    char end[80];
    snprintf(end, sizeof end, "$End%s", name + 1);
    const long start = g->r.line;
    for (;;) {
        int got = 0;
        HS_CALL(hs_text_reader_next(&g->r, &got));
        HS_CHECK(got, HS_ERR_MESH, "%s:%ld: file ended inside section %s of line %ld (no %s)",
                 g->path, hs_text_reader_eof_line(&g->r), name, start, end);
        const char *tok = hs_text_reader_token(&g->r);
        if (strcmp(tok, end) == 0) return HS_OK;
    }
}

/* ---- nodes ---------------------------------------------------------------------------------- */

static hs_status add_node(gmsh *g, long long tag, const double x[3])
{
    HS_CHECK(tag >= 1, HS_ERR_MESH, "%s:%ld: node tag %lld; Gmsh node tags are positive", g->path,
             g->r.line, tag);
    HS_CALL(hs_grow_array((void **)&g->node_tag, &g->cap_tag, g->p.n_nodes + 1,
                          sizeof(long long), "node tags"));
    g->node_tag[g->p.n_nodes] = tag;
    HS_CALL(hs_mesh_parts_add_node(&g->p, x));
    return hs_mesh_parts_node_id(&g->p, tag);
}

/* x y z on the current line, then @p extra_max further numbers (parametric coordinates). */
static hs_status read_xyz(gmsh *g, double x[3], int extra_max)
{
    HS_CALL(hs_text_reader_next_double(&g->r, "x coordinate", &x[0]));
    HS_CALL(hs_text_reader_next_double(&g->r, "y coordinate", &x[1]));
    HS_CALL(hs_text_reader_next_double(&g->r, "z coordinate", &x[2]));
    for (int k = 0; k < extra_max; ++k) {
        const char *tok = hs_text_reader_token(&g->r);
        if (!tok) break;
        double u;
        HS_CALL(hs_text_reader_double(&g->r, tok, "parametric coordinate", &u));
    }
    return hs_text_reader_expect_end(&g->r, 3, "x y z");
}

static int cmp_tag_index(const void *a, const void *b)
{
    const long long x = ((const tag_index *)a)->tag, y = ((const tag_index *)b)->tag;
    return (x > y) - (x < y);
}

/* The tag -> position map, built once all nodes are read; a repeated tag is an error. */
static hs_status build_node_map(gmsh *g)
{
    const size_t n = g->p.n_nodes;
    long long max_tag = 0;
    for (size_t i = 0; i < n; ++i)
        if (g->node_tag[i] > max_tag) max_tag = g->node_tag[i];
    /* Gmsh numbers nodes 1..n unless told otherwise: a direct table then costs n ints. */
    if ((unsigned long long)max_tag < 4ull * n + 1024) {
        g->dense_len = (size_t)max_tag + 1;
        HS_CALL(HS_ALLOC(g->dense, g->dense_len, "node tag table"));
        for (size_t t = 0; t < g->dense_len; ++t) g->dense[t] = -1;
        for (size_t i = 0; i < n; ++i) {
            int32_t *slot = &g->dense[g->node_tag[i]];
            HS_CHECK(*slot < 0, HS_ERR_MESH,
                     "%s:%ld: $Nodes defines node tag %lld twice (nodes %ld and %zu in file "
                     "order)",
                     g->path, g->nodes_line, g->node_tag[i], (long)*slot, i);
            *slot = (int32_t)i;
        }
        return HS_OK;
    }
    HS_CALL(HS_ALLOC(g->sorted, n, "node tag table"));
    for (size_t i = 0; i < n; ++i) {
        g->sorted[i].tag = g->node_tag[i];
        g->sorted[i].index = (int32_t)i;
    }
    qsort(g->sorted, n, sizeof *g->sorted, cmp_tag_index);
    for (size_t i = 1; i < n; ++i)
        HS_CHECK(g->sorted[i].tag != g->sorted[i - 1].tag, HS_ERR_MESH,
                 "%s:%ld: $Nodes defines node tag %lld twice", g->path, g->nodes_line,
                 g->sorted[i].tag);
    return HS_OK;
}

static int32_t find_tag(const tag_index *a, size_t n, long long tag)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (a[mid].tag < tag)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && a[lo].tag == tag ? a[lo].index : -1;
}

/* The entity with tag @p tag in a sorted array (index = its physical tag), or NULL. */
static const tag_index *find_entity(const tag_index *a, size_t n, long long tag)
{
    const tag_index key = {tag, 0};
    return n ? bsearch(&key, a, n, sizeof *a, cmp_tag_index) : NULL;
}

static hs_status node_index(gmsh *g, long long tag, long long elem, int32_t *idx)
{
    int32_t i = -1;
    if (g->dense)
        i = tag >= 0 && (unsigned long long)tag < g->dense_len ? g->dense[tag] : -1;
    else
        i = tag >= 0 ? find_tag(g->sorted, g->p.n_nodes, tag) : -1;
    HS_CHECK(i >= 0, HS_ERR_MESH,
             "%s:%ld: element %lld refers to node %lld, which $Nodes does not define", g->path,
             g->r.line, elem, tag);
    *idx = i;
    return HS_OK;
}

static hs_status read_nodes_v2(gmsh *g)
{
    int got = 0;
    long long n = 0;
    HS_CALL(hs_text_reader_next(&g->r, &got));
    HS_CHECK(got, HS_ERR_MESH, "%s:%ld: file ended; expected the number of nodes", g->path,
             hs_text_reader_eof_line(&g->r));
    HS_CALL(read_count(g, "number of nodes", &n));
    HS_CALL(hs_text_reader_expect_end(&g->r, 1, "<#nodes>"));
    const long count_line = g->r.line;
    for (long long i = 0; i < n; ++i) {
        HS_CALL(data_line(g, i, n, "nodes", count_line));
        long long tag;
        double x[3];
        HS_CALL(hs_text_reader_next_long(&g->r, "node tag", &tag));
        HS_CALL(read_xyz(g, x, 0));
        HS_CALL(add_node(g, tag, x));
    }
    return section_end(g, "$EndNodes", n, "nodes", count_line);
}

static hs_status read_nodes_v4(gmsh *g)
{
    const int v41 = g->minor >= 1;
    int got = 0;
    long long nblocks = 0, n = 0;
    HS_CALL(hs_text_reader_next(&g->r, &got));
    HS_CHECK(got, HS_ERR_MESH, "%s:%ld: file ended; expected the $Nodes header", g->path,
             hs_text_reader_eof_line(&g->r));
    const long head = g->r.line;
    HS_CALL(read_count(g, "number of entity blocks", &nblocks));
    HS_CALL(read_count(g, "number of nodes", &n));
    if (v41) {
        long long t;
        HS_CALL(hs_text_reader_next_long(&g->r, "minimum node tag", &t));
        HS_CALL(hs_text_reader_next_long(&g->r, "maximum node tag", &t));
    }
    HS_CALL(hs_text_reader_expect_end(&g->r, v41 ? 4 : 2,
                                      v41 ? "numEntityBlocks numNodes minNodeTag maxNodeTag"
                                          : "numEntityBlocks numNodes"));
    long long done = 0;
    for (long long b = 0; b < nblocks; ++b) {
        HS_CALL(data_line(g, b, nblocks, "node blocks", head));
        long long a, c, parametric, m;
        HS_CALL(hs_text_reader_next_long(&g->r, v41 ? "entity dimension" : "entity tag", &a));
        HS_CALL(hs_text_reader_next_long(&g->r, v41 ? "entity tag" : "entity dimension", &c));
        HS_CALL(hs_text_reader_next_long(&g->r, "parametric flag", &parametric));
        HS_CALL(read_count(g, "number of nodes in block", &m));
        HS_CALL(hs_text_reader_expect_end(&g->r, 4,
                                          v41 ? "entityDim entityTag parametric numNodesInBlock"
                                              : "entityTag entityDim parametric numNodes"));
        HS_CHECK(m <= n - done, HS_ERR_MESH,
                 "%s:%ld: block of %lld nodes, but only %lld of the %lld nodes announced at line "
                 "%ld are left",
                 g->path, g->r.line, m, n - done, n, head);
        const int extra = parametric ? 3 : 0;
        if (v41) {
            /* m lines of tags, then m lines of coordinates */
            const size_t first = g->p.n_nodes;
            for (long long i = 0; i < m; ++i) {
                HS_CALL(data_line(g, done + i, n, "nodes", head));
                long long tag;
                HS_CALL(hs_text_reader_next_long(&g->r, "node tag", &tag));
                HS_CALL(hs_text_reader_expect_end(&g->r, 1, "one node tag per line"));
                const double zero[3] = {0, 0, 0};
                HS_CALL(add_node(g, tag, zero));
            }
            for (long long i = 0; i < m; ++i) {
                HS_CALL(data_line(g, done + i, n, "node coordinates", head));
                HS_CALL(read_xyz(g, g->p.xyz + 3 * (first + (size_t)i), extra));
            }
        } else {
            for (long long i = 0; i < m; ++i) {
                HS_CALL(data_line(g, done + i, n, "nodes", head));
                long long tag;
                double x[3];
                HS_CALL(hs_text_reader_next_long(&g->r, "node tag", &tag));
                HS_CALL(read_xyz(g, x, extra));
                HS_CALL(add_node(g, tag, x));
            }
        }
        done += m;
    }
    HS_CHECK(done == n, HS_ERR_MESH,
             "%s:%ld: the %lld node blocks hold %lld nodes, but the header announces %lld",
             g->path, head, nblocks, done, n);
    return section_end(g, "$EndNodes", nblocks, "node blocks", head);
}

/* ---- entities and names --------------------------------------------------------------------- */

static hs_status read_entities(gmsh *g)
{
    int got = 0;
    HS_CALL(hs_text_reader_next(&g->r, &got));
    HS_CHECK(got, HS_ERR_MESH, "%s:%ld: file ended; expected the $Entities header", g->path,
             hs_text_reader_eof_line(&g->r));
    const long head = g->r.line;
    long long cnt[4];
    static const char *what[4] = {"number of points", "number of curves", "number of surfaces",
                                  "number of volumes"};
    for (int d = 0; d < 4; ++d) HS_CALL(read_count(g, what[d], &cnt[d]));
    HS_CALL(hs_text_reader_expect_end(&g->r, 4, "numPoints numCurves numSurfaces numVolumes"));
    const long long total = cnt[0] + cnt[1] + cnt[2] + cnt[3];
    size_t cap_surf = 0, cap_vol = 0;
    long long k = 0;
    for (int d = 0; d < 4; ++d)
        for (long long i = 0; i < cnt[d]; ++i, ++k) {
            HS_CALL(data_line(g, k, total, "entities", head));
            if (d < 2) continue; /* points and curves carry nothing heartsim uses */
            long long tag, nphys, phys = 0;
            double box;
            HS_CALL(hs_text_reader_next_long(&g->r, "entity tag", &tag));
            for (int j = 0; j < 6; ++j)
                HS_CALL(hs_text_reader_next_double(&g->r, "bounding box coordinate", &box));
            HS_CALL(hs_text_reader_next_long(&g->r, "number of physical tags", &nphys));
            HS_CHECK(nphys >= 0, HS_ERR_MESH, "%s:%ld: negative number of physical tags",
                     g->path, g->r.line);
            /* A region is one number: an entity in several physical groups gets the first. */
            if (nphys > 0) HS_CALL(hs_text_reader_next_long(&g->r, "physical tag", &phys));
            HS_CHECK(phys >= INT32_MIN && phys <= INT32_MAX, HS_ERR_MESH,
                     "%s:%ld: physical tag %lld does not fit a 32-bit integer", g->path,
                     g->r.line, phys);
            if (d == 2)
                HS_CALL(hs_grow_array((void **)&g->surf, &cap_surf, g->n_surf + 1,
                                      sizeof *g->surf, "surface entities"));
            else
                HS_CALL(hs_grow_array((void **)&g->vol, &cap_vol, g->n_vol + 1, sizeof *g->vol,
                                      "volume entities"));
            tag_index *slot = d == 2 ? &g->surf[g->n_surf++] : &g->vol[g->n_vol++];
            slot->tag = tag;
            slot->index = (int32_t)phys;
        }
    if (g->n_surf) qsort(g->surf, g->n_surf, sizeof *g->surf, cmp_tag_index);
    if (g->n_vol) qsort(g->vol, g->n_vol, sizeof *g->vol, cmp_tag_index);
    g->have_entities = 1;
    return section_end(g, "$EndEntities", total, "entities", head);
}

static hs_status read_physical_names(gmsh *g)
{
    int got = 0;
    long long n = 0;
    HS_CALL(hs_text_reader_next(&g->r, &got));
    HS_CHECK(got, HS_ERR_MESH, "%s:%ld: file ended; expected the number of physical names",
             g->path, hs_text_reader_eof_line(&g->r));
    HS_CALL(read_count(g, "number of physical names", &n));
    HS_CALL(hs_text_reader_expect_end(&g->r, 1, "<#names>"));
    const long head = g->r.line;
    for (long long i = 0; i < n; ++i) {
        HS_CALL(data_line(g, i, n, "physical names", head));
        long long dim, tag;
        HS_CALL(hs_text_reader_next_long(&g->r, "dimension", &dim));
        HS_CALL(hs_text_reader_next_long(&g->r, "physical tag", &tag));
        HS_CHECK(dim >= 0 && dim <= 3 && tag >= INT32_MIN && tag <= INT32_MAX, HS_ERR_MESH,
                 "%s:%ld: physical name for dimension %lld, tag %lld; expected dimension 0..3 "
                 "and a 32-bit tag",
                 g->path, g->r.line, dim, tag);
        char *s = g->r.cur;
        while (*s == ' ' || *s == '\t') ++s;
        char *close = *s == '"' ? strrchr(s + 1, '"') : NULL;
        HS_CHECK(close != NULL, HS_ERR_MESH,
                 "%s:%ld: expected a quoted name after the dimension and tag (dim tag \"name\")",
                 g->path, g->r.line);
        *close = '\0';
        g->r.cur = close + 1;
        HS_CALL(hs_text_reader_expect_end(&g->r, 3, "dim tag \"name\""));
        HS_CALL(hs_grow_array((void **)&g->names, &g->cap_names, g->n_names + 1,
                              sizeof *g->names, "physical names"));
        phys_name *pn = &g->names[g->n_names];
        const size_t len = (size_t)(close - (s + 1));
        HS_CALL(HS_ALLOC(pn->name, len + 1, "physical name"));
        ++g->n_names;
        memcpy(pn->name, s + 1, len);
        pn->dim = (int)dim;
        pn->tag = (int32_t)tag;
        pn->line = g->r.line;
    }
    return section_end(g, "$EndPhysicalNames", n, "physical names", head);
}

/* ---- elements ------------------------------------------------------------------------------- */

/* One element whose node tags are the remaining tokens of the current line. */
static hs_status add_element(gmsh *g, long long elem, long long type, long long phys)
{
    const gmsh_type *t = find_type(type);
    HS_CHECK(t != NULL, HS_ERR_MESH,
             "%s:%ld: element %lld has type %lld, which is not a Gmsh element type heartsim "
             "knows; heartsim reads tetrahedra (type 4)",
             g->path, g->r.line, elem, type);
    HS_CHECK(t->dim < 3 || t->type == 4 || t->type == 11, HS_ERR_MESH,
             "%s:%ld: element %lld is a %s (Gmsh type %d); heartsim reads tetrahedra only: "
             "re-mesh the volume with tetrahedra",
             g->path, g->r.line, elem, t->name, t->type);
    HS_CHECK(t->type != 11 || g->linearize, HS_ERR_MESH,
             "%s:%ld: element %lld is a 10-node (quadratic) tetrahedron; heartsim uses linear "
             "tetrahedra: set mesh.quadratic = \"linearize\" in the config to keep the corner "
             "nodes and drop the mid-edge ones, or re-mesh with order 1 (gmsh -order 1)",
             g->path, g->r.line, elem);
    HS_CHECK(phys >= INT32_MIN && phys <= INT32_MAX, HS_ERR_MESH,
             "%s:%ld: physical tag %lld does not fit a 32-bit integer", g->path, g->r.line, phys);
    int32_t v[125];
    for (int k = 0; k < t->nodes; ++k) {
        long long tag;
        const char *tok = hs_text_reader_token(&g->r);
        HS_CHECK(tok != NULL, HS_ERR_MESH,
                 "%s:%ld: element %lld (%s) has %d node tags, expected %d", g->path, g->r.line,
                 elem, t->name, k, t->nodes);
        HS_CALL(hs_text_reader_long(&g->r, tok, "node tag", &tag));
        /* Tags of skipped elements are not looked up: only what is kept must exist. */
        if (t->type == 4 || t->type == 11 || ((t->type == 2 || t->type == 9) && phys != 0))
            HS_CALL(node_index(g, tag, elem, &v[k]));
    }
    const long extra = hs_text_reader_remaining(&g->r);
    HS_CHECK(extra == 0, HS_ERR_MESH, "%s:%ld: element %lld (%s) has %ld node tags, expected %d",
             g->path, g->r.line, elem, t->name, t->nodes + extra, t->nodes);
    if (t->type == 4 || t->type == 11) {
        HS_CALL(hs_mesh_parts_add_tet(&g->p, v, (int32_t)phys));
        if (t->type == 11) ++g->p.n_linearized;
        return hs_mesh_parts_tet_id(&g->p, elem);
    }
    if (t->type == 2 || t->type == 9) {
        if (phys != 0) return hs_mesh_parts_add_bface(&g->p, v, (int32_t)phys, g->r.line);
        ++g->n_skipped_tri;
    }
    return HS_OK;
}

static hs_status read_elements_v2(gmsh *g)
{
    int got = 0;
    long long n = 0;
    HS_CALL(hs_text_reader_next(&g->r, &got));
    HS_CHECK(got, HS_ERR_MESH, "%s:%ld: file ended; expected the number of elements", g->path,
             hs_text_reader_eof_line(&g->r));
    HS_CALL(read_count(g, "number of elements", &n));
    HS_CALL(hs_text_reader_expect_end(&g->r, 1, "<#elements>"));
    const long head = g->r.line;
    for (long long i = 0; i < n; ++i) {
        HS_CALL(data_line(g, i, n, "elements", head));
        long long elem, type, ntags, phys = 0;
        HS_CALL(hs_text_reader_next_long(&g->r, "element tag", &elem));
        HS_CALL(hs_text_reader_next_long(&g->r, "element type", &type));
        HS_CALL(hs_text_reader_next_long(&g->r, "number of tags", &ntags));
        HS_CHECK(ntags >= 0 && ntags <= 1000, HS_ERR_MESH,
                 "%s:%ld: element %lld has %lld tags; expected 0..1000", g->path, g->r.line, elem,
                 ntags);
        for (long long k = 0; k < ntags; ++k) {
            long long t;
            HS_CALL(hs_text_reader_next_long(&g->r, "element tag", &t));
            if (k == 0) phys = t; /* tags: physical group, elementary entity, partitions... */
        }
        HS_CALL(add_element(g, elem, type, phys));
    }
    return section_end(g, "$EndElements", n, "elements", head);
}

static hs_status read_elements_v4(gmsh *g)
{
    const int v41 = g->minor >= 1;
    int got = 0;
    long long nblocks = 0, n = 0;
    HS_CALL(hs_text_reader_next(&g->r, &got));
    HS_CHECK(got, HS_ERR_MESH, "%s:%ld: file ended; expected the $Elements header", g->path,
             hs_text_reader_eof_line(&g->r));
    const long head = g->r.line;
    HS_CALL(read_count(g, "number of entity blocks", &nblocks));
    HS_CALL(read_count(g, "number of elements", &n));
    if (v41) {
        long long t;
        HS_CALL(hs_text_reader_next_long(&g->r, "minimum element tag", &t));
        HS_CALL(hs_text_reader_next_long(&g->r, "maximum element tag", &t));
    }
    HS_CALL(hs_text_reader_expect_end(&g->r, v41 ? 4 : 2,
                                      v41 ? "numEntityBlocks numElements minTag maxTag"
                                          : "numEntityBlocks numElements"));
    if (!g->have_entities)
        hs_log(1, "%s: no $Entities section: regions are 0 and no triangle is labelled\n",
               g->path);
    long long done = 0;
    for (long long b = 0; b < nblocks; ++b) {
        HS_CALL(data_line(g, b, nblocks, "element blocks", head));
        long long a, c, type, m;
        HS_CALL(hs_text_reader_next_long(&g->r, v41 ? "entity dimension" : "entity tag", &a));
        HS_CALL(hs_text_reader_next_long(&g->r, v41 ? "entity tag" : "entity dimension", &c));
        HS_CALL(hs_text_reader_next_long(&g->r, "element type", &type));
        HS_CALL(read_count(g, "number of elements in block", &m));
        HS_CALL(hs_text_reader_expect_end(&g->r, 4,
                                          v41 ? "entityDim entityTag elementType numElements"
                                              : "entityTag entityDim elementType numElements"));
        const long long dim = v41 ? a : c, ent = v41 ? c : a;
        HS_CHECK(m <= n - done, HS_ERR_MESH,
                 "%s:%ld: block of %lld elements, but only %lld of the %lld elements announced "
                 "at line %ld are left",
                 g->path, g->r.line, m, n - done, n, head);
        long long phys = 0;
        if (g->have_entities && (dim == 2 || dim == 3)) {
            const tag_index *e = dim == 3 ? find_entity(g->vol, g->n_vol, ent)
                                          : find_entity(g->surf, g->n_surf, ent);
            HS_CHECK(e != NULL, HS_ERR_MESH,
                     "%s:%ld: element block on %s entity %lld, which $Entities does not list",
                     g->path, g->r.line, dim == 3 ? "volume" : "surface", ent);
            phys = e->index;
        }
        for (long long i = 0; i < m; ++i) {
            HS_CALL(data_line(g, done + i, n, "elements", head));
            long long elem;
            HS_CALL(hs_text_reader_next_long(&g->r, "element tag", &elem));
            HS_CALL(add_element(g, elem, type, phys));
        }
        done += m;
    }
    HS_CHECK(done == n, HS_ERR_MESH,
             "%s:%ld: the %lld element blocks hold %lld elements, but the header announces %lld",
             g->path, head, nblocks, done, n);
    return section_end(g, "$EndElements", nblocks, "element blocks", head);
}

/* ---- file ----------------------------------------------------------------------------------- */

static hs_status read_format(gmsh *g)
{
    int got = 0;
    HS_CALL(hs_text_reader_next(&g->r, &got));
    HS_CHECK(got, HS_ERR_MESH, "%s:%ld: file is empty; expected $MeshFormat", g->path,
             hs_text_reader_eof_line(&g->r));
    const char *tok = hs_text_reader_token(&g->r);
    HS_CHECK(strcmp(tok, "$NOD") != 0, HS_ERR_MESH,
             "%s:%ld: this is the Gmsh 1 format ($NOD); save as format 2.2 or 4.1 ASCII (gmsh "
             "-format msh41)",
             g->path, g->r.line);
    HS_CHECK(strcmp(tok, "$MeshFormat") == 0, HS_ERR_MESH,
             "%s:%ld: expected $MeshFormat on the first line of a Gmsh file, found '%.*s'",
             g->path, g->r.line, word_len(tok), tok);
    HS_CALL(hs_text_reader_next(&g->r, &got));
    HS_CHECK(got, HS_ERR_MESH, "%s:%ld: file ended; expected \"version file-type data-size\"",
             g->path, hs_text_reader_eof_line(&g->r));
    const char *ver = hs_text_reader_token(&g->r);
    char tail = 0;
    int major = 0, minor = 0;
    const int nf = sscanf(ver, "%d.%d%c", &major, &minor, &tail);
    HS_CHECK((nf == 1 || nf == 2) && ((major == 2 && minor >= 0 && minor <= 2) ||
                                      (major == 4 && minor >= 0 && minor <= 1)),
             HS_ERR_MESH,
             "%s:%ld: MSH format version '%s' is not read; supported: 2.2 (and 2.0, 2.1), 4.0, "
             "4.1 (gmsh -format msh41 or msh22)",
             g->path, g->r.line, ver);
    long long file_type, data_size;
    HS_CALL(hs_text_reader_next_long(&g->r, "file type (0 = ASCII, 1 = binary)", &file_type));
    HS_CHECK(file_type != 1, HS_ERR_MESH,
             "%s:%ld: binary .msh files are not read; save as ASCII (Gmsh: File > Export, "
             "binary unchecked; or gmsh FILE.msh -save -format msh41 -o ascii.msh, without "
             "-bin)",
             g->path, g->r.line);
    HS_CHECK(file_type == 0, HS_ERR_MESH,
             "%s:%ld: file type %lld; expected 0 (ASCII)", g->path, g->r.line, file_type);
    HS_CALL(hs_text_reader_next_long(&g->r, "data size", &data_size));
    HS_CALL(hs_text_reader_expect_end(&g->r, 3, "version file-type data-size"));
    g->major = major;
    g->minor = minor;
    return section_end(g, "$EndMeshFormat", 1, "format line", g->r.line - 1);
}

static hs_status read_sections(gmsh *g)
{
    HS_CALL(read_format(g));
    for (;;) {
        int got = 0;
        HS_CALL(hs_text_reader_next(&g->r, &got));
        if (!got) break;
        const char *tok = hs_text_reader_token(&g->r);
        HS_CHECK(tok[0] == '$', HS_ERR_MESH,
                 "%s:%ld: expected a section name ($Nodes, $Elements, ...), found '%.*s'",
                 g->path, g->r.line, word_len(tok), tok);
        char name[64]; /* a copy: the line buffer is reused as the section is read */
        snprintf(name, sizeof name, "%s", tok);
        HS_CALL(hs_text_reader_expect_end(&g->r, 1, "section name"));
        if (strcmp(name, "$Nodes") == 0) {
            HS_CHECK(!g->have_nodes, HS_ERR_MESH, "%s:%ld: second $Nodes section", g->path,
                     g->r.line);
            g->nodes_line = g->r.line;
            HS_CALL(g->major == 2 ? read_nodes_v2(g) : read_nodes_v4(g));
            HS_CALL(build_node_map(g));
            g->have_nodes = 1;
        } else if (strcmp(name, "$Elements") == 0) {
            HS_CHECK(g->have_nodes, HS_ERR_MESH, "%s:%ld: $Elements before $Nodes", g->path,
                     g->r.line);
            HS_CHECK(!g->have_elements, HS_ERR_MESH, "%s:%ld: second $Elements section",
                     g->path, g->r.line);
            HS_CALL(g->major == 2 ? read_elements_v2(g) : read_elements_v4(g));
            g->have_elements = 1;
        } else if (strcmp(name, "$Entities") == 0 && g->major == 4) {
            HS_CHECK(!g->have_entities && !g->have_elements, HS_ERR_MESH,
                     "%s:%ld: $Entities must come once, before $Elements", g->path, g->r.line);
            HS_CALL(read_entities(g));
        } else if (strcmp(name, "$PhysicalNames") == 0) {
            HS_CALL(read_physical_names(g));
        } else if (strcmp(name, "$PartitionedEntities") == 0) {
            return HS_FAIL(HS_ERR_MESH,
                           "%s:%ld: partitioned meshes are not read; save the mesh unpartitioned "
                           "(Gmsh: Mesh > Unpartition, or without -part)",
                           g->path, g->r.line);
        } else {
            HS_CALL(skip_section(g, name)); /* $Comments, $NodeData, $Periodic, ... */
        }
    }
    HS_CHECK(g->have_nodes && g->have_elements, HS_ERR_MESH,
             "%s:%ld: file ended without %s section", g->path, hs_text_reader_eof_line(&g->r),
             g->have_nodes ? "an $Elements" : "a $Nodes");
    return HS_OK;
}

hs_status hs_mesh_read_gmsh(const char *path, const hs_mesh_read_opts *o, hs_mesh **out)
{
    HS_CHECK(out != NULL, HS_ERR_INTERNAL, "hs_mesh_read_gmsh: out is NULL");
    *out = NULL;
    gmsh *g = NULL;
    hs_mesh *m = NULL;
    hs_status st = HS_OK;
    HS_CALL(HS_ALLOC(g, 1, "Gmsh reader"));
    g->path = path;
    g->p.path = path;
    g->p.numbering = "Gmsh element and node tags";
    g->linearize = o && o->linearize;
    HS_CALL_GOTO(hs_text_reader_open(&g->r, path, "Gmsh", HS_ERR_MESH, 0), done);
    HS_CALL_GOTO(read_sections(g), done);
    if (g->n_skipped_tri)
        hs_log(2, "%s: %zu triangles without a physical group skipped\n", path,
               g->n_skipped_tri);
    HS_CALL_GOTO(hs_mesh_parts_finish(&g->p, &m), done);
    for (size_t i = 0; i < g->n_names; ++i) {
        const phys_name *pn = &g->names[i];
        if (pn->dim == 3) {
            hs_log(1, "%s: region %ld is \"%s\"\n", path, (long)pn->tag, pn->name);
        } else if (pn->dim == 2 && pn->name[0] != '\0') { /* "" names nothing */
            st = hs_mesh_add_label(m, pn->tag, pn->name);
            if (st != HS_OK) {
                hs_error_prefix("%s:%ld: ", path, pn->line);
                goto done;
            }
        }
    }
    *out = m;
    m = NULL;
done:
    hs_mesh_destroy(&m);
    hs_text_reader_close(&g->r);
    hs_mesh_parts_free(&g->p);
    free(g->node_tag);
    free(g->dense);
    free(g->sorted);
    free(g->surf);
    free(g->vol);
    for (size_t i = 0; i < g->n_names; ++i) free(g->names[i].name);
    free(g->names);
    free(g);
    return st;
}
