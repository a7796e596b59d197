/* Stimulus sites: element lists (by centroid, by labelled boundary triangle, by node list) and
 * time-averaged pulse amplitudes. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hs_stimulus.h"
#include "hs_text_reader.h"
#include "hs_util.h"

static int in_sphere(const double c[3], const double center[3], double radius)
{
    double d0 = c[0] - center[0], d1 = c[1] - center[1], d2 = c[2] - center[2];
    return d0 * d0 + d1 * d1 + d2 * d2 <= radius * radius;
}

static int in_box(const hs_stimulus_cfg *s, const double c[3])
{
    return c[0] >= s->min[0] && c[0] <= s->max[0] && c[1] >= s->min[1] && c[1] <= s->max[1] &&
           c[2] >= s->min[2] && c[2] <= s->max[2];
}

/* Elements of each node, CSR-like: the elements of node i are list[ptr[i] .. ptr[i+1]). */
typedef struct node_elems {
    int64_t *ptr;  /* [n_nodes+1] */
    int32_t *list; /* [4 n_elems] */
} node_elems;

static hs_status node_elems_build(const hs_mesh *m, node_elems *ne)
{
    const int64_t n4 = 4 * (int64_t)m->n_elems;
    HS_CALL(HS_ALLOC(ne->ptr, (size_t)m->n_nodes + 1, "node-to-element map"));
    HS_CALL(HS_ALLOC(ne->list, n4 > 0 ? n4 : 1, "node-to-element map"));
    for (int64_t k = 0; k < n4; ++k) ne->ptr[m->tets[k] + 1]++;
    for (int32_t i = 0; i < m->n_nodes; ++i) ne->ptr[i + 1] += ne->ptr[i];
    int64_t *fill = NULL;
    HS_CALL(HS_ALLOC(fill, (size_t)m->n_nodes + 1, "node-to-element map"));
    memcpy(fill, ne->ptr, sizeof(int64_t) * ((size_t)m->n_nodes + 1));
    for (int64_t k = 0; k < n4; ++k) ne->list[fill[m->tets[k]]++] = (int32_t)(k / 4);
    free(fill);
    return HS_OK;
}

static void node_elems_free(node_elems *ne)
{
    free(ne->ptr);
    free(ne->list);
    ne->ptr = NULL;
    ne->list = NULL;
}

/* "endo (1), epi (2), 7" : the markers the boundary triangles carry, with their names. */
static void label_list(const hs_mesh *m, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    int32_t prev = INT32_MIN;
    /* ascending distinct markers without sorting a copy: repeatedly the smallest one above prev */
    for (;;) {
        int32_t next = INT32_MAX;
        int found = 0;
        for (int32_t f = 0; f < m->n_bfaces; ++f) {
            int32_t id = m->bface_label[f];
            if (id != 0 && id > prev && id <= next) next = id, found = 1;
        }
        if (!found) break;
        const char *name = NULL;
        for (int l = 0; l < m->n_labels; ++l)
            if (m->label[l].id == next) name = m->label[l].name;
        int w = name && name[0] ? snprintf(buf + len, n - len, "%s%s (%d)", len ? ", " : "", name, (int)next)
                                : snprintf(buf + len, n - len, "%s%d", len ? ", " : "", (int)next);
        if (w < 0 || (size_t)w >= n - len) break;
        len += (size_t)w;
        if (next == INT32_MAX) break;
        prev = next;
    }
}

/* The element owning boundary triangle (a, b, c): the one element containing all three nodes. */
static int32_t face_owner(const node_elems *ne, const hs_mesh *m, const int32_t *tri)
{
    for (int64_t q = ne->ptr[tri[0]]; q < ne->ptr[tri[0] + 1]; ++q) {
        int32_t e = ne->list[q];
        const int32_t *t = m->tets + 4 * (int64_t)e;
        int hits = 0;
        for (int a = 0; a < 4; ++a) hits += t[a] == tri[1] || t[a] == tri[2];
        if (hits == 2) return e;
    }
    return -1;
}

static hs_status select_surface(const hs_mesh *m, int k, const hs_stimulus_cfg *q, const node_elems *ne,
                                unsigned char *mark)
{
    char labels[1024];
    HS_CHECK(m->n_bfaces > 0 && m->bface && m->bface_label, HS_ERR_CONFIG,
             "stimulus [%d]: shape = \"surface\" with label \"%s\", but this mesh has no labelled boundary "
             "triangles (labels come with mesh.source = \"ellipsoid_lv\" (endo, epi, base), .poly/.smesh facet "
             "markers, Gmsh physical groups of triangles and VTK triangle cell data); use a box, sphere or "
             "nodes stimulus instead", k, q->label);
    int32_t id = hs_mesh_find_label(m, q->label);
    int32_t n_label = 0;
    for (int32_t f = 0; id > 0 && f < m->n_bfaces; ++f) n_label += m->bface_label[f] == id;
    if (id <= 0 || n_label == 0) {
        label_list(m, labels, sizeof labels);
        return HS_FAIL(HS_ERR_CONFIG, "stimulus [%d]: unknown label \"%s\"; this mesh's boundary labels are: %s",
                       k, q->label, labels[0] ? labels : "(none: every boundary triangle has marker 0)");
    }
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    int32_t taken = 0;
    for (int32_t f = 0; f < m->n_bfaces; ++f) {
        if (m->bface_label[f] != id) continue;
        const int32_t *tri = m->bface + 3 * (int64_t)f;
        double c[3] = {0, 0, 0};
        for (int a = 0; a < 3; ++a) {
            HS_CHECK(tri[a] >= 0 && tri[a] < m->n_nodes, HS_ERR_INTERNAL,
                     "boundary triangle %d has node %d outside [0, %d)", (int)f, (int)tri[a], (int)m->n_nodes);
            for (int d = 0; d < 3; ++d) c[d] += m->xyz[3 * (int64_t)tri[a] + d] / 3.0;
        }
        for (int d = 0; d < 3; ++d) lo[d] = fmin(lo[d], c[d]), hi[d] = fmax(hi[d], c[d]);
        if (q->radius > 0 && !in_sphere(c, q->center, q->radius)) continue;
        int32_t e = face_owner(ne, m, tri);
        HS_CHECK(e >= 0, HS_ERR_MESH, "boundary triangle %d (nodes %d %d %d, label \"%s\") is not a face of any "
                 "element", (int)f, (int)tri[0], (int)tri[1], (int)tri[2], q->label);
        mark[e] = 1;
        ++taken;
    }
    HS_CHECK(taken > 0, HS_ERR_CONFIG,
             "stimulus [%d]: no triangle of label \"%s\" has its centroid within the sphere at [%g, %g, %g] mm, "
             "radius %g mm; the label's triangle centroids span [%g, %g, %g] - [%g, %g, %g] mm",
             k, q->label, q->center[0], q->center[1], q->center[2], q->radius, lo[0], lo[1], lo[2], hi[0], hi[1],
             hi[2]);
    return HS_OK;
}

/* Source numbering -> current node index (-1: not a node of the mesh). */
static hs_status orig_inverse(const hs_mesh *m, int32_t **inv, int32_t *n_orig)
{
    int32_t mx = m->n_nodes - 1;
    if (m->node_orig)
        for (int32_t i = 0; i < m->n_nodes; ++i) mx = m->node_orig[i] > mx ? m->node_orig[i] : mx;
    *n_orig = mx + 1;
    HS_CALL(HS_ALLOC(*inv, (size_t)mx + 1, "node numbering map"));
    for (int32_t i = 0; i <= mx; ++i) (*inv)[i] = -1;
    for (int32_t i = 0; i < m->n_nodes; ++i) {
        int32_t o = m->node_orig ? m->node_orig[i] : i;
        if (o >= 0) (*inv)[o] = i;
    }
    return HS_OK;
}

/* One node index token of the list: mark the elements around it. */
static hs_status take_node(hs_text_reader *r, int k, const char *tok, const int32_t *inv, int32_t n_orig,
                           const node_elems *ne, unsigned char *mark)
{
    long long v;
    HS_CALL(hs_text_reader_long(r, tok, "a node index", &v));
    HS_CHECK(hs_text_reader_token(r) == NULL, HS_ERR_CONFIG,
             "%s:%ld: stimulus [%d]: expected one node index per line", r->path, r->line, k);
    HS_CHECK(v >= 0 && v < n_orig, HS_ERR_CONFIG,
             "%s:%ld: stimulus [%d]: node %lld is out of range: the mesh's nodes are 0 to %d in the "
             "numbering of its source file (0-based)", r->path, r->line, k, v, (int)n_orig - 1);
    int32_t i = inv[v];
    HS_CHECK(i >= 0, HS_ERR_CONFIG,
             "%s:%ld: stimulus [%d]: node %lld of the source numbering is not a node of the mesh (dropped when "
             "the mesh was read, e.g. a mid-edge node of a linearised quadratic tetrahedron)", r->path, r->line,
             k, v);
    for (int64_t q = ne->ptr[i]; q < ne->ptr[i + 1]; ++q) mark[ne->list[q]] = 1;
    return HS_OK;
}

/* A node list: one index per line, or openCARP .vtx (count line, "intra"/"extra" line, indices). */
static hs_status select_nodes(const hs_mesh *m, int k, const hs_stimulus_cfg *q, const node_elems *ne,
                              unsigned char *mark)
{
    hs_status st = HS_OK;
    int32_t *inv = NULL, n_orig = 0;
    hs_text_reader r;
    memset(&r, 0, sizeof r);
    HS_CALL(orig_inverse(m, &inv, &n_orig));
    HS_CALL_GOTO(hs_text_reader_open(&r, q->file, "node list", HS_ERR_CONFIG, '#'), done);
    int got = 0;
    HS_CALL_GOTO(hs_text_reader_next(&r, &got), done);
    HS_CHECK_GOTO(got, done, HS_ERR_CONFIG, "%s:%ld: stimulus [%d]: the node list is empty", q->file,
                  hs_text_reader_eof_line(&r), k);
    /* the first line is kept until the second one says whether it was a count (.vtx) or a node */
    char first[64];
    long first_line = r.line;
    char *tok = hs_text_reader_token(&r);
    HS_CHECK_GOTO(tok && strlen(tok) < sizeof first, done, HS_ERR_CONFIG,
                  "%s:%ld: stimulus [%d]: expected a node index, found '%.40s'", q->file, r.line, k, tok ? tok : "");
    HS_CHECK_GOTO(hs_text_reader_token(&r) == NULL, done, HS_ERR_CONFIG,
                  "%s:%ld: stimulus [%d]: expected one node index per line (or the openCARP .vtx layout: a count, "
                  "then \"intra\" or \"extra\", then one index per line)", q->file, r.line, k);
    memcpy(first, tok, strlen(tok) + 1);
    HS_CALL_GOTO(hs_text_reader_next(&r, &got), done);
    tok = got ? hs_text_reader_token(&r) : NULL;
    if (tok && (!strcasecmp(tok, "intra") || !strcasecmp(tok, "extra"))) {
        long long count;
        long line2 = r.line;
        r.line = first_line; /* messages about the count name its line */
        st = hs_text_reader_long(&r, first, "the node count of the .vtx header", &count);
        r.line = line2;
        if (st != HS_OK) goto done;
        HS_CHECK_GOTO(count > 0, done, HS_ERR_CONFIG, "%s:%ld: stimulus [%d]: the .vtx header announces %lld nodes",
                      q->file, first_line, k, count);
        HS_CHECK_GOTO(hs_text_reader_token(&r) == NULL, done, HS_ERR_CONFIG,
                      "%s:%ld: stimulus [%d]: expected only \"intra\" or \"extra\" on the .vtx header's second line",
                      q->file, r.line, k);
        for (long long i = 0; i < count; ++i) {
            HS_CALL_GOTO(hs_text_reader_next(&r, &got), done);
            HS_CHECK_GOTO(got, done, HS_ERR_CONFIG,
                          "%s:%ld: stimulus [%d]: file ended after %lld of the %lld nodes announced on line %ld",
                          q->file, hs_text_reader_eof_line(&r), k, i, count, first_line);
            HS_CALL_GOTO(take_node(&r, k, hs_text_reader_token(&r), inv, n_orig, ne, mark), done);
        }
        HS_CALL_GOTO(hs_text_reader_next(&r, &got), done);
        HS_CHECK_GOTO(!got, done, HS_ERR_CONFIG,
                      "%s:%ld: stimulus [%d]: more node indices than the %lld announced on line %ld", q->file, r.line,
                      k, count, first_line);
    } else {
        long line2 = r.line;
        char *cur2 = r.cur;
        r.line = first_line;
        r.cur = NULL; /* the first line's other tokens were checked above */
        st = take_node(&r, k, first, inv, n_orig, ne, mark);
        r.line = line2;
        r.cur = cur2;
        if (st != HS_OK) goto done;
        while (got) {
            HS_CALL_GOTO(take_node(&r, k, tok, inv, n_orig, ne, mark), done);
            HS_CALL_GOTO(hs_text_reader_next(&r, &got), done);
            tok = got ? hs_text_reader_token(&r) : NULL;
        }
    }
done:
    hs_text_reader_close(&r);
    free(inv);
    return st;
}

static void centroid(const hs_mesh *m, int32_t e, double c[3])
{
    c[0] = c[1] = c[2] = 0.0;
    for (int a = 0; a < 4; ++a)
        for (int d = 0; d < 3; ++d) c[d] += 0.25 * m->xyz[3 * (int64_t)m->tets[4 * (int64_t)e + a] + d];
}

/* Mark the elements of site k. */
static hs_status select_site(const hs_mesh *m, int k, const hs_stimulus_cfg *q, node_elems *ne,
                             unsigned char *mark, int part)
{
    if ((q->shape == HS_STIM_SURFACE || q->shape == HS_STIM_NODES) && !ne->ptr)
        HS_CALL(node_elems_build(m, ne));
    switch (q->shape) {
    case HS_STIM_BOX:
    case HS_STIM_SPHERE: {
        int32_t cnt = 0;
        for (int32_t e = 0; e < m->n_elems; ++e) {
            double c[3];
            centroid(m, e, c);
            mark[e] = q->shape == HS_STIM_BOX ? in_box(q, c) : in_sphere(c, q->center, q->radius);
            cnt += mark[e];
        }
        if (cnt || part) return HS_OK;
        if (q->shape == HS_STIM_BOX)
            return HS_FAIL(HS_ERR_CONFIG,
                           "stimulus [%d]: the box [%g, %g, %g] - [%g, %g, %g] mm contains no element centroid; "
                           "enlarge it (elements are tested by centroid)",
                           k, q->min[0], q->min[1], q->min[2], q->max[0], q->max[1], q->max[2]);
        return HS_FAIL(HS_ERR_CONFIG,
                       "stimulus [%d]: the sphere at [%g, %g, %g] mm, radius %g mm contains no element centroid; "
                       "enlarge it (elements are tested by centroid)",
                       k, q->center[0], q->center[1], q->center[2], q->radius);
    }
    case HS_STIM_SURFACE: return select_surface(m, k, q, ne, mark);
    case HS_STIM_NODES: return select_nodes(m, k, q, ne, mark);
    }
    return HS_FAIL(HS_ERR_INTERNAL, "stimulus [%d]: unknown shape %d", k, (int)q->shape);
}

/* part: a rank's part of the mesh (box and sphere sites only; a site may cover none of it), each
 * site's element count in count[] */
static hs_status stim_set_create(const hs_mesh *m, const hs_stimulus_cfg *sites, int n_sites, int part,
                                 int64_t *count, hs_stim_set **out)
{
    *out = NULL;
    hs_status st = HS_OK;
    hs_stim_set *s = NULL;
    unsigned char *mark = NULL;
    node_elems ne = {NULL, NULL};
    size_t cap = 0;
    HS_CHECK(n_sites >= 0, HS_ERR_INTERNAL, "hs_stim_set_create: %d sites", n_sites);
    HS_CALL(HS_ALLOC(s, 1, "stimulus set"));
    s->n_sites = n_sites;
    HS_CALL_GOTO(HS_ALLOC(s->site, n_sites > 0 ? n_sites : 1, "stimulus sites"), fail);
    HS_CALL_GOTO(HS_ALLOC(s->elem_ptr, (size_t)n_sites + 1, "stimulus element lists"), fail);
    HS_CALL_GOTO(HS_ALLOC(mark, m->n_elems > 0 ? m->n_elems : 1, "stimulus element marks"), fail);
    if (n_sites) memcpy(s->site, sites, sizeof(*sites) * (size_t)n_sites);
    for (int k = 0; k < n_sites; ++k) HS_CALL_GOTO(hs_stim_cfg_check(&sites[k], k), fail);
    for (int k = 0; k < n_sites; ++k) {
        memset(mark, 0, (size_t)m->n_elems);
        HS_CHECK_GOTO(!part || sites[k].shape == HS_STIM_BOX || sites[k].shape == HS_STIM_SPHERE, fail,
                      HS_ERR_CONFIG, "stimulus [%d]: a rank's part of the mesh takes shape = \"box\" or \"sphere\" "
                      "sites only (parallel.partition = \"box\"); use parallel.partition = \"metis\"", k);
        HS_CALL_GOTO(select_site(m, k, &sites[k], &ne, mark, part), fail);
        int64_t base = s->elem_ptr[k], cnt = 0;
        for (int32_t e = 0; e < m->n_elems; ++e) cnt += mark[e];
        if (count) count[k] = cnt;
        HS_CHECK_GOTO(cnt > 0 || part, fail, HS_ERR_CONFIG, "stimulus [%d] covers no element", k);
        HS_CHECK_GOTO(base + cnt <= INT32_MAX, fail, HS_ERR_CONFIG,
                      "stimulus sites cover %lld elements in all; at most %d", (long long)(base + cnt), INT32_MAX);
        HS_CALL_GOTO(hs_grow_array((void **)&s->elem, &cap, (size_t)(base + cnt), sizeof(int32_t),
                                   "stimulus element lists"), fail);
        for (int32_t e = 0; e < m->n_elems; ++e)
            if (mark[e]) s->elem[base++] = e;
        s->elem_ptr[k + 1] = (int32_t)base;
    }
    if (!s->elem) HS_CALL_GOTO(HS_ALLOC(s->elem, 1, "stimulus element lists"), fail);
    free(mark);
    node_elems_free(&ne);
    *out = s;
    return HS_OK;
fail:
    free(mark);
    node_elems_free(&ne);
    hs_stim_set_destroy(&s);
    return st;
}

hs_status hs_stim_set_create(const hs_mesh *m, const hs_stimulus_cfg *sites, int n_sites, hs_stim_set **out)
{
    return stim_set_create(m, sites, n_sites, 0, NULL, out);
}

hs_status hs_stim_set_create_part(const hs_mesh *m, const hs_stimulus_cfg *sites, int n_sites, int64_t *count,
                                  hs_stim_set **out)
{
    return stim_set_create(m, sites, n_sites, 1, count, out);
}

double hs_stim_site_amplitude(const hs_stimulus_cfg *q, double t0, double t1)
{
    int count = q->count > 1 ? q->count : 1;
    double period = count > 1 ? q->period : 0.0, on = 0.0;
    /* only the pulses that can meet [t0, t1]: start + p period in (t0 - duration, t1) */
    int p_lo = 0, p_hi = count - 1;
    if (count > 1 && period > 0.0) {
        double lo = floor((t0 - q->start - q->duration) / period), hi = floor((t1 - q->start) / period);
        p_lo = lo > 0.0 ? (lo < count ? (int)lo : count) : 0;
        p_hi = hi < count - 1 ? (hi >= 0.0 ? (int)hi : -1) : count - 1;
    }
    for (int p = p_lo; p <= p_hi; ++p) {
        double s0 = q->start + p * period;
        double lo = fmax(t0, s0), hi = fmin(t1, s0 + q->duration);
        if (hi > lo) on += hi - lo;
    }
    return on > 0.0 ? q->strength * on / (t1 - t0) : 0.0;
}

hs_status hs_stim_cfg_check(const hs_stimulus_cfg *q, int k)
{
    HS_CHECK(q->count >= 0, HS_ERR_CONFIG, "stimulus.[%d].count = %d: must be >= 1", k, q->count);
    HS_CHECK(q->count <= 1 || q->period > q->duration, HS_ERR_CONFIG,
             "stimulus.[%d].period = %g ms with count = %d: the period must be longer than the pulse "
             "(stimulus.[%d].duration = %g ms)%s", k, q->period, q->count, k, q->duration,
             q->period == 0.0 ? "; a paced site needs its basic cycle length in stimulus.[i].period" : "");
    return HS_OK;
}

/* Do sites a and b share an element? Both lists ascend. */
static int share_element(const hs_stim_set *s, int a, int b)
{
    int32_t i = s->elem_ptr[a], j = s->elem_ptr[b];
    while (i < s->elem_ptr[a + 1] && j < s->elem_ptr[b + 1]) {
        if (s->elem[i] == s->elem[j]) return 1;
        if (s->elem[i] < s->elem[j]) ++i;
        else ++j;
    }
    return 0;
}

/* Are sites a and b on at the same time before t_end? The first overlap time in *when. */
static int share_time(const hs_stimulus_cfg *a, const hs_stimulus_cfg *b, double t_end, double *when)
{
    for (int p = 0; p < (a->count > 1 ? a->count : 1); ++p) {
        double a0 = hs_stim_pulse_start(a, p), a1 = a0 + a->duration;
        if (a0 >= t_end) break;
        for (int r = 0; r < (b->count > 1 ? b->count : 1); ++r) {
            double b0 = hs_stim_pulse_start(b, r), b1 = b0 + b->duration;
            if (b0 >= a1 || b0 >= t_end) break;
            if (fmin(a1, b1) > fmax(a0, b0)) {
                *when = fmax(a0, b0);
                return 1;
            }
        }
    }
    return 0;
}

int hs_stim_set_warnings(const hs_stim_set *s, double t_end, char *buf, size_t n)
{
    int nw = 0;
    size_t len = 0;
    if (n) buf[0] = '\0';
#define WARN(...)                                                                                  \
    do {                                                                                           \
        if (len < n) {                                                                             \
            int w_ = snprintf(buf + len, n - len, "%s", nw ? "\n" : "");                          \
            if (w_ > 0) len += (size_t)w_;                                                         \
        }                                                                                          \
        if (len < n) {                                                                             \
            int w_ = snprintf(buf + len, n - len, __VA_ARGS__);                                    \
            if (w_ > 0) len += (size_t)w_;                                                         \
        }                                                                                          \
        ++nw;                                                                                      \
    } while (0)
    for (int k = 0; k < s->n_sites; ++k) {
        const hs_stimulus_cfg *q = &s->site[k];
        int count = q->count > 1 ? q->count : 1, fired = 0;
        while (fired < count && hs_stim_pulse_start(q, fired) < t_end) ++fired;
        if (fired < count)
            WARN("stimulus.[%d]: %d of its %d pulse%s start%s at or after time.t_end = %g ms and never fire%s "
                 "(start %g ms, period %g ms, count %d)", k, count - fired, count, count > 1 ? "s" : "",
                 count - fired == 1 ? "s" : "", t_end, count - fired == 1 ? "s" : "", q->start, q->period,
                 q->count);
    }
    for (int a = 0; a < s->n_sites; ++a)
        for (int b = a + 1; b < s->n_sites; ++b) {
            double when = 0.0;
            if (share_time(&s->site[a], &s->site[b], t_end, &when) && share_element(s, a, b))
                WARN("stimulus.[%d] and stimulus.[%d] cover common elements and are both on at t = %g ms: their "
                     "currents add there (give them separate sites or times if that is not meant)", a, b, when);
        }
#undef WARN
    return nw;
}

void hs_stim_set_amplitudes(const hs_stim_set *s, double t0, double t1, double *amp)
{
    for (int k = 0; k < s->n_sites; ++k) amp[k] = hs_stim_site_amplitude(&s->site[k], t0, t1);
}

void hs_stim_set_destroy(hs_stim_set **p)
{
    if (!p || !*p) return;
    free((*p)->site);
    free((*p)->elem_ptr);
    free((*p)->elem);
    free(*p);
    *p = NULL;
}
