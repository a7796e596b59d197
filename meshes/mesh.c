/* The hs_mesh object: allocation, validity checks, fibres and summary numbers.
 *
 * Everything here is a single pass over the elements; no adjacency is built (that lives in
 * mesh_reorder.c, the only place that needs it). */
#include "hs_mesh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_util.h"

/* the most nodes of a mesh hs_mesh_alloc made or hs_mesh_check saw in this process (set-up is
 * single-threaded) */
static int32_t alloc_peak_nodes;

int32_t hs_mesh_alloc_peak_nodes(void)
{
    return alloc_peak_nodes;
}

hs_status hs_mesh_alloc(int32_t n_nodes, int32_t n_elems, hs_mesh **out)
{
    HS_CHECK(out != NULL, HS_ERR_INTERNAL, "hs_mesh_alloc: out is NULL");
    *out = NULL;
    HS_CHECK(n_nodes >= 0 && n_elems >= 0, HS_ERR_MESH,
             "cannot allocate a mesh with %ld nodes and %ld elements (counts must be >= 0)",
             (long)n_nodes, (long)n_elems);
    hs_mesh *m = NULL;
    hs_status st = HS_OK;
    HS_CALL(HS_ALLOC(m, 1, "mesh"));
    m->n_nodes = n_nodes;
    m->n_elems = n_elems;
    if (n_nodes > alloc_peak_nodes) alloc_peak_nodes = n_nodes;
    /* Sizes are computed in size_t: 4 * n_elems can exceed INT32_MAX. */
    HS_CALL_GOTO(HS_ALLOC(m->xyz, (size_t)n_nodes * 3, "mesh node coordinates"), fail);
    HS_CALL_GOTO(HS_ALLOC(m->tets, (size_t)n_elems * 4, "mesh connectivity"), fail);
    HS_CALL_GOTO(HS_ALLOC(m->region, (size_t)n_elems, "mesh region markers"), fail);
    HS_CALL_GOTO(HS_ALLOC(m->node_orig, (size_t)n_nodes, "mesh source node numbers"), fail);
    for (int32_t v = 0; v < n_nodes; ++v) m->node_orig[v] = v;
    m->fiber = NULL;
    m->n_bfaces = 0;
    m->bface = NULL;
    m->bface_label = NULL;
    m->n_labels = 0;
    *out = m;
    return HS_OK;
fail:
    hs_mesh_destroy(&m);
    return st;
}

void hs_mesh_destroy(hs_mesh **m)
{
    if (!m || !*m) return;
    free((*m)->xyz);
    free((*m)->tets);
    free((*m)->region);
    free((*m)->fiber);
    free((*m)->node_orig);
    free((*m)->bface);
    free((*m)->bface_label);
    free((*m)->elem_src);
    free((*m)->node_src);
    free(*m);
    *m = NULL;
}

/* 6 * signed volume of the tet (a, b, c, d): (b-a) . ((c-a) x (d-a)). */
static double tet_det6(const double *a, const double *b, const double *c, const double *d)
{
    const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const double w[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
    return u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
           u[2] * (v[0] * w[1] - v[1] * w[0]);
}

static double dist2(const double *a, const double *b)
{
    const double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return dx * dx + dy * dy + dz * dz;
}

double hs_tet_det6(const double *xyz, const int32_t *t)
{
    return tet_det6(xyz + 3 * (size_t)t[0], xyz + 3 * (size_t)t[1], xyz + 3 * (size_t)t[2], xyz + 3 * (size_t)t[3]);
}

double hs_mesh_elem_volume(const hs_mesh *m, int32_t e)
{
    const int32_t *t = m->tets + 4 * (size_t)e;
    return tet_det6(m->xyz + 3 * (size_t)t[0], m->xyz + 3 * (size_t)t[1],
                    m->xyz + 3 * (size_t)t[2], m->xyz + 3 * (size_t)t[3]) /
           6.0;
}

long long hs_mesh_elem_name(const hs_mesh *m, int32_t e)
{
    return m->elem_src ? (long long)m->elem_src[e] : (long long)e;
}

long long hs_mesh_node_name(const hs_mesh *m, int32_t v)
{
    if (v < 0 || v >= m->n_nodes) return v;
    const int32_t o = m->node_orig ? m->node_orig[v] : v;
    return m->node_src && o >= 0 && o < m->n_node_src ? (long long)m->node_src[o] : (long long)v;
}

/* "path: " and " (TetGen, 1-based numbering)" when the mesh came from a file. */
static void where(const hs_mesh *m, char *pre, size_t npre, char *post, size_t npost)
{
    pre[0] = post[0] = '\0';
    if (!m->src_path[0]) return;
    snprintf(pre, npre, "%s: ", m->src_path);
    if (m->src_numbering[0]) snprintf(post, npost, " (numbers as in the file: %s)", m->src_numbering);
}

/* Element e's check: 0 good, 1 non-finite, 2 degenerate, 3 inverted; its 6 x signed volume and
 * longest edge. */
static int elem_kind(const hs_mesh *m, int32_t e, double *det6_out, double *lmax_out)
{
    const int32_t *t = m->tets + 4 * (size_t)e;
    const double *p[4];
    for (int k = 0; k < 4; ++k) p[k] = m->xyz + 3 * (size_t)t[k];
    const double det6 = tet_det6(p[0], p[1], p[2], p[3]);
    double l2 = 0.0;
    for (int a = 0; a < 4; ++a)
        for (int b = a + 1; b < 4; ++b) {
            const double d = dist2(p[a], p[b]);
            if (d > l2) l2 = d;
        }
    const double lmax = sqrt(l2);
    *det6_out = det6;
    *lmax_out = lmax;
    if (!isfinite(det6) || !isfinite(lmax)) return 1;
    /* Scale-free test: a tet whose volume is tiny relative to its size is a sliver whatever the
     * units; checked before the sign, whose value would be noise. */
    if (fabs(det6) <= 1e-12 * lmax * lmax * lmax) return 2;
    return det6 < 0.0 ? 3 : 0;
}

hs_status hs_mesh_check(const hs_mesh *m)
{
    if (m && m->n_nodes > alloc_peak_nodes) alloc_peak_nodes = m->n_nodes; /* a mesh a reader filled */
    HS_CHECK(m != NULL, HS_ERR_INTERNAL, "hs_mesh_check: mesh is NULL");
    HS_CHECK(m->n_nodes >= 0 && m->n_elems >= 0, HS_ERR_MESH,
             "mesh has negative counts (%ld nodes, %ld elements)", (long)m->n_nodes,
             (long)m->n_elems);
    HS_CHECK(m->n_elems > 0, HS_ERR_MESH, "mesh has no elements (%ld nodes)", (long)m->n_nodes);
    HS_CHECK(m->xyz != NULL && m->tets != NULL, HS_ERR_INTERNAL,
             "mesh arrays are NULL (xyz %p, tets %p)", (const void *)m->xyz,
             (const void *)m->tets);

    /* Indices first over the whole mesh: a bad index makes every volume after it meaningless,
     * and it is the more basic fault to report. */
    /* (OpenMP: the first bad element is the smallest such e over the threads; counts are sums) */
    int32_t first_range = m->n_elems;
#pragma omp parallel for schedule(static) reduction(min : first_range) if (m->n_elems > HS_OMP_MIN)
    for (int32_t e = 0; e < m->n_elems; ++e) {
        const int32_t *t = m->tets + 4 * (size_t)e;
        for (int k = 0; k < 4; ++k)
            if ((t[k] < 0 || t[k] >= m->n_nodes) && e < first_range) first_range = e;
    }
    if (first_range < m->n_elems) {
        const int32_t *t = m->tets + 4 * (size_t)first_range;
        for (int k = 0; k < 4; ++k)
            HS_CHECK(t[k] >= 0 && t[k] < m->n_nodes, HS_ERR_MESH,
                     "element %ld (nodes %ld %ld %ld %ld) refers to node %ld, out of range "
                     "0..%ld",
                     (long)first_range, (long)t[0], (long)t[1], (long)t[2], (long)t[3], (long)t[k],
                     (long)m->n_nodes - 1);
    }

    /* Report the first bad element, and how many there are, so one run tells the user whether
     * this is one sliver or a whole mesh with the opposite orientation convention. */
    int64_t n_inverted = 0, n_degenerate = 0, n_nonfinite = 0;
    int32_t first_bad = m->n_elems;
#pragma omp parallel for schedule(static) reduction(+ : n_inverted, n_degenerate, n_nonfinite) \
    reduction(min : first_bad) if (m->n_elems > HS_OMP_MIN)
    for (int32_t e = 0; e < m->n_elems; ++e) {
        double det6 = 0.0, lmax = 0.0;
        const int kind = elem_kind(m, e, &det6, &lmax);
        n_nonfinite += kind == 1;
        n_degenerate += kind == 2;
        n_inverted += kind == 3;
        if (kind && e < first_bad) first_bad = e;
    }
    if (first_bad == m->n_elems) return HS_OK;
    double first_vol = 0.0, first_edge = 0.0;
    const int first_kind = elem_kind(m, first_bad, &first_vol, &first_edge);
    first_vol /= 6.0;

    const int32_t *t = m->tets + 4 * (size_t)first_bad;
    char pre[300], post[100];
    where(m, pre, sizeof pre, post, sizeof post);
    const long long be = hs_mesh_elem_name(m, first_bad), n0 = hs_mesh_node_name(m, t[0]),
                    n1 = hs_mesh_node_name(m, t[1]), n2 = hs_mesh_node_name(m, t[2]),
                    n3 = hs_mesh_node_name(m, t[3]);
    const int64_t n_bad = n_inverted + n_degenerate + n_nonfinite;
    char tail[160] = "";
    if (n_bad > 1)
        snprintf(tail, sizeof tail,
                 " (%lld bad elements in all: %lld inverted, %lld degenerate, %lld non-finite)",
                 (long long)n_bad, (long long)n_inverted, (long long)n_degenerate,
                 (long long)n_nonfinite);
    if (n_inverted == m->n_elems)
        snprintf(tail, sizeof tail,
                 " (all %lld elements are inverted: the source probably uses the opposite "
                 "node-ordering convention)",
                 (long long)n_inverted);
    switch (first_kind) {
    case 1:
        return HS_FAIL(HS_ERR_MESH,
                       "%selement %lld (nodes %lld %lld %lld %lld) has non-finite coordinates%s%s",
                       pre, be, n0, n1, n2, n3, tail, post);
    case 2:
        return HS_FAIL(HS_ERR_MESH,
                       "%selement %lld (nodes %lld %lld %lld %lld) is degenerate: volume %.3e mm^3 "
                       "(longest edge %.3e mm)%s%s",
                       pre, be, n0, n1, n2, n3, first_vol, first_edge, tail, post);
    default:
        return HS_FAIL(HS_ERR_MESH,
                       "%selement %lld (nodes %lld %lld %lld %lld) is inverted: signed volume "
                       "%.3e mm^3%s%s",
                       pre, be, n0, n1, n2, n3, first_vol, tail, post);
    }
}

hs_status hs_mesh_set_fibers_constant(hs_mesh *m, const double dir[3])
{
    HS_CHECK(m != NULL && dir != NULL, HS_ERR_INTERNAL,
             "hs_mesh_set_fibers_constant: NULL argument");
    const double n = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
    /* A zero or non-finite direction can only come from the user's parameters, not the mesh. */
    HS_CHECK(isfinite(n) && n > 0.0, HS_ERR_CONFIG,
             "fibre direction (%g, %g, %g) cannot be normalised: it must be a non-zero, finite "
             "vector",
             dir[0], dir[1], dir[2]);
    if (!m->fiber) HS_CALL(HS_ALLOC(m->fiber, (size_t)m->n_elems * 3, "fibre directions"));
    const double f[3] = {dir[0] / n, dir[1] / n, dir[2] / n};
#pragma omp parallel for schedule(static) if (m->n_elems > HS_OMP_MIN)
    for (int32_t e = 0; e < m->n_elems; ++e)
        for (int k = 0; k < 3; ++k) m->fiber[3 * (size_t)e + k] = f[k];
    return HS_OK;
}

void hs_mesh_stats(const hs_mesh *m, double *volume, double *h_min, double *h_mean, double *h_max)
{
    /* Edge statistics run over the 6 edges of every element, so an edge shared by k elements
     * counts k times: the mean is the edge length "as the elements see it", without having to
     * build a unique edge list. */
    double vol = 0.0, lmin = INFINITY, lmax = 0.0, lsum = 0.0;
    static const int pair[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    const int32_t ne = m ? m->n_elems : 0;
    for (int32_t e = 0; e < ne; ++e) {
        const int32_t *t = m->tets + 4 * (size_t)e;
        vol += hs_mesh_elem_volume(m, e);
        for (int k = 0; k < 6; ++k) {
            const double l = sqrt(dist2(m->xyz + 3 * (size_t)t[pair[k][0]],
                                        m->xyz + 3 * (size_t)t[pair[k][1]]));
            lsum += l;
            if (l < lmin) lmin = l;
            if (l > lmax) lmax = l;
        }
    }
    if (ne == 0) lmin = 0.0;
    if (volume) *volume = vol;
    if (h_min) *h_min = lmin;
    if (h_mean) *h_mean = ne ? lsum / (6.0 * (double)ne) : 0.0;
    if (h_max) *h_max = lmax;
}

int64_t hs_mesh_bandwidth(const hs_mesh *m)
{
    int64_t bw = 0;
    const int32_t ne = m ? m->n_elems : 0;
    for (int32_t e = 0; e < ne; ++e) {
        const int32_t *t = m->tets + 4 * (size_t)e;
        int32_t lo = t[0], hi = t[0];
        for (int k = 1; k < 4; ++k) {
            if (t[k] < lo) lo = t[k];
            if (t[k] > hi) hi = t[k];
        }
        /* max |i-j| over the element's 6 edges is hi - lo */
        if ((int64_t)hi - lo > bw) bw = (int64_t)hi - lo;
    }
    return bw;
}

hs_status hs_mesh_alloc_bfaces(hs_mesh *m, int32_t n)
{
    HS_CHECK(m != NULL, HS_ERR_INTERNAL, "hs_mesh_alloc_bfaces: mesh is NULL");
    HS_CHECK(n >= 0, HS_ERR_MESH, "cannot allocate %ld boundary faces (count must be >= 0)",
             (long)n);
    int32_t *f = NULL, *lab = NULL;
    hs_status st = HS_OK;
    /* Allocate both before releasing the old arrays, so a failure leaves the mesh unchanged. */
    HS_CALL_GOTO(HS_ALLOC(f, (size_t)n * 3, "boundary faces"), fail);
    HS_CALL_GOTO(HS_ALLOC(lab, (size_t)n, "boundary face labels"), fail);
    free(m->bface);
    free(m->bface_label);
    m->bface = f;
    m->bface_label = lab;
    m->n_bfaces = n;
    return HS_OK;
fail:
    free(f);
    free(lab);
    return st;
}

hs_status hs_mesh_add_label(hs_mesh *m, int32_t id, const char *name)
{
    HS_CHECK(m != NULL && name != NULL, HS_ERR_INTERNAL, "hs_mesh_add_label: NULL argument");
    const size_t len = strlen(name);
    HS_CHECK(len > 0 && len < HS_MESH_LABEL_LEN, HS_ERR_MESH,
             "surface label name \"%.*s\" for marker %ld must have 1 to %d characters",
             HS_MESH_LABEL_LEN, name, (long)id, HS_MESH_LABEL_LEN - 1);
    int slot = -1;
    for (int i = 0; i < m->n_labels; ++i)
        if (m->label[i].id == id) slot = i;
    /* The same name on two ids would make hs_mesh_find_label ambiguous. */
    for (int i = 0; i < m->n_labels; ++i)
        HS_CHECK(i == slot || strcmp(m->label[i].name, name) != 0, HS_ERR_MESH,
                 "surface label \"%s\" already names marker %ld; cannot also give it to marker "
                 "%ld",
                 name, (long)m->label[i].id, (long)id);
    if (slot < 0) {
        HS_CHECK(m->n_labels < HS_MESH_MAX_LABELS, HS_ERR_MESH,
                 "too many surface labels: cannot add \"%s\" (marker %ld); at most %d",
                 name, (long)id, HS_MESH_MAX_LABELS);
        slot = m->n_labels++;
    }
    m->label[slot].id = id;
    memcpy(m->label[slot].name, name, len + 1);
    return HS_OK;
}

int32_t hs_mesh_find_label(const hs_mesh *m, const char *name)
{
    if (!m || !name || !*name) return -1;
    for (int i = 0; i < m->n_labels; ++i)
        if (strcmp(m->label[i].name, name) == 0) return m->label[i].id;
    /* A plain decimal number is a marker id; it exists if a boundary face carries it (files
     * without names, e.g. TetGen .face markers, are addressed this way). Digits only: no sign,
     * no blanks; 0 means "unlabelled" and is never a label. */
    for (const char *c = name; *c; ++c)
        if (*c < '0' || *c > '9') return -1;
    char *end = NULL;
    const long long v = strtoll(name, &end, 10);
    if (*end != '\0' || v <= 0 || v > INT32_MAX) return -1;
    for (int i = 0; i < m->n_labels; ++i)
        if (m->label[i].id == (int32_t)v) return (int32_t)v;
    for (int32_t f = 0; f < m->n_bfaces; ++f)
        if (m->bface_label[f] == (int32_t)v) return (int32_t)v;
    return -1;
}
