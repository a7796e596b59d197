/* Reverse Cuthill-McKee renumbering: the result must be the same mesh (a permutation of nodes and
 * elements, with regions and fibres following their elements) with a much smaller bandwidth than
 * a randomly shuffled numbering. Hilbert-curve (SFC) renumbering: the same invariants, the curve
 * itself (consecutive keys are neighbouring cells), and better locality than a random order.
 * Both keep node_orig (source numbering) and the boundary faces in step with the nodes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_mesh.h"
#include "hs_test.h"
#include "mesh_sfc.h"
#include "mesh_test_util.h"

/* Small deterministic generator (64-bit LCG, high bits) so failures reproduce. */
static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(uint32_t n)
{
    g_rng = g_rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((g_rng >> 33) % n);
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_xyz(const void *a, const void *b)
{
    const double *x = a, *y = b;
    for (int k = 0; k < 3; ++k)
        if (x[k] != y[k]) return x[k] < y[k] ? -1 : 1;
    return 0;
}

static void centroid(const hs_mesh *m, int32_t e, double c[3])
{
    for (int k = 0; k < 3; ++k) c[k] = 0.0;
    for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 3; ++k)
            c[k] += 0.25 * m->xyz[3 * (size_t)m->tets[4 * (size_t)e + j] + k];
}

/* Region and fibre as functions of the element's centroid, so they can be checked after any
 * renumbering. (Local node order is kept by renumbering, so the centroid is bitwise the same.) */
static int32_t region_of(const double c[3])
{
    return (int32_t)floor(7 * c[0] + 3 * c[1] + c[2]) % 13;
}
static void fiber_of(const double c[3], double f[3])
{
    const double v[3] = {c[0] + 1.0, c[1] + 2.0, c[2] + 3.0};
    const double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int k = 0; k < 3; ++k) f[k] = v[k] / n;
}

static void tag_elements(hs_mesh *m)
{
    if (!m->fiber) m->fiber = malloc(sizeof(double) * 3 * (size_t)m->n_elems);
    for (int32_t e = 0; e < m->n_elems; ++e) {
        double c[3];
        centroid(m, e, c);
        m->region[e] = region_of(c);
        fiber_of(c, m->fiber + 3 * (size_t)e);
    }
}

/* Randomly relabel nodes, shuffle elements, and rotate each element's nodes by an even
 * permutation (which keeps its orientation). */
static void shuffle(hs_mesh *m)
{
    const int32_t n = m->n_nodes, ne = m->n_elems;
    int32_t *p = malloc(sizeof(int32_t) * (size_t)n);
    double *xyz = malloc(sizeof(double) * 3 * (size_t)n);
    for (int32_t i = 0; i < n; ++i) p[i] = i;
    for (int32_t i = n - 1; i > 0; --i) {
        const int32_t j = (int32_t)rnd((uint32_t)i + 1), t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
    for (int32_t v = 0; v < n; ++v)
        memcpy(xyz + 3 * (size_t)p[v], m->xyz + 3 * (size_t)v, 3 * sizeof(double));
    memcpy(m->xyz, xyz, sizeof(double) * 3 * (size_t)n);
    for (size_t i = 0; i < 4 * (size_t)ne; ++i) m->tets[i] = p[m->tets[i]];
    for (int32_t e = ne - 1; e > 0; --e) {
        const int32_t j = (int32_t)rnd((uint32_t)e + 1);
        int32_t t4[4];
        memcpy(t4, m->tets + 4 * (size_t)e, sizeof t4);
        memcpy(m->tets + 4 * (size_t)e, m->tets + 4 * (size_t)j, sizeof t4);
        memcpy(m->tets + 4 * (size_t)j, t4, sizeof t4);
    }
    for (int32_t e = 0; e < ne; ++e) {
        int32_t *t = m->tets + 4 * (size_t)e;
        for (uint32_t r = rnd(3); r > 0; --r) { /* cyclic shift of nodes 0,1,2: even */
            const int32_t s = t[0];
            t[0] = t[1];
            t[1] = t[2];
            t[2] = s;
        }
    }
    free(p);
    free(xyz);
}

/* Everything that must be invariant under renumbering, as sorted multisets. */
typedef struct snapshot {
    double vol_total;
    double *vols; /* [n_elems] sorted */
    double *xyz;  /* [n_nodes][3] sorted */
} snapshot;

static snapshot take(const hs_mesh *m)
{
    snapshot s;
    s.vols = malloc(sizeof(double) * (size_t)m->n_elems);
    s.xyz = malloc(sizeof(double) * 3 * (size_t)m->n_nodes);
    for (int32_t e = 0; e < m->n_elems; ++e) s.vols[e] = hs_mesh_elem_volume(m, e);
    qsort(s.vols, (size_t)m->n_elems, sizeof(double), cmp_double);
    memcpy(s.xyz, m->xyz, sizeof(double) * 3 * (size_t)m->n_nodes);
    qsort(s.xyz, (size_t)m->n_nodes, 3 * sizeof(double), cmp_xyz);
    hs_mesh_stats(m, &s.vol_total, NULL, NULL, NULL);
    return s;
}

static void check_same_mesh(const hs_mesh *m, const snapshot *before, const char *what)
{
    HS_TEST_OK(hs_mesh_check(m));
    snapshot after = take(m);
    HS_TEST_NEAR(after.vol_total, before->vol_total, 1e-12 * before->vol_total, what);
    HS_TEST_CHECK(memcmp(after.vols, before->vols, sizeof(double) * (size_t)m->n_elems) == 0,
                  "%s: element volumes changed (as a multiset)", what);
    HS_TEST_CHECK(memcmp(after.xyz, before->xyz, sizeof(double) * 3 * (size_t)m->n_nodes) == 0,
                  "%s: node coordinates changed (as a multiset)", what);
    long bad_tag = 0, unsorted = 0;
    int32_t prev_min = -1;
    for (int32_t e = 0; e < m->n_elems; ++e) {
        double c[3], f[3];
        centroid(m, e, c);
        fiber_of(c, f);
        const double *g = m->fiber + 3 * (size_t)e;
        if (m->region[e] != region_of(c) || f[0] != g[0] || f[1] != g[1] || f[2] != g[2])
            ++bad_tag;
        const int32_t *t = m->tets + 4 * (size_t)e;
        int32_t mn = t[0];
        for (int k = 1; k < 4; ++k) mn = t[k] < mn ? t[k] : mn;
        if (mn < prev_min) ++unsorted;
        prev_min = mn;
    }
    HS_TEST_CHECK(bad_tag == 0, "%s: %ld elements lost their region/fibre", what, bad_tag);
    HS_TEST_CHECK(unsorted == 0, "%s: elements not sorted by smallest node (%ld descents)", what,
                  unsorted);
    free(after.vols);
    free(after.xyz);
}

static void check_box_rcm(double lx, double ly, double lz, double h)
{
    hs_box_params p = {lx, ly, lz, h, 0, 0};
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_create_box(&p, &m));
    if (!m) return;
    const int64_t bw_structured = hs_mesh_bandwidth(m);
    shuffle(m);
    tag_elements(m);
    const int64_t bw_shuffled = hs_mesh_bandwidth(m);
    snapshot before = take(m);

    /* NONE: report only, mesh untouched. */
    int32_t *tets_copy = malloc(sizeof(int32_t) * 4 * (size_t)m->n_elems);
    memcpy(tets_copy, m->tets, sizeof(int32_t) * 4 * (size_t)m->n_elems);
    hs_reorder_report rep;
    memset(&rep, 0xff, sizeof rep);
    HS_TEST_OK(hs_mesh_reorder(m, HS_REORDER_NONE, &rep));
    HS_TEST_CHECK(memcmp(tets_copy, m->tets, sizeof(int32_t) * 4 * (size_t)m->n_elems) == 0,
                  "HS_REORDER_NONE changed the mesh");
    HS_TEST_CHECK(rep.bandwidth_before == bw_shuffled && rep.bandwidth_after == bw_shuffled,
                  "NONE report: bandwidth %lld -> %lld, expected %lld both",
                  (long long)rep.bandwidth_before, (long long)rep.bandwidth_after,
                  (long long)bw_shuffled);
    HS_TEST_CHECK(rep.profile_before == rep.profile_after && rep.profile_before > 0,
                  "NONE report: profile %g -> %g", rep.profile_before, rep.profile_after);
    free(tets_copy);

    HS_TEST_OK(hs_mesh_reorder(m, HS_REORDER_RCM, &rep));
    check_same_mesh(m, &before, "RCM on a shuffled box");
    mt_check_box_conforming(m, lx, ly, lz, 1e-12);
    const int64_t bw = hs_mesh_bandwidth(m);
    HS_TEST_CHECK(rep.bandwidth_before == bw_shuffled && rep.bandwidth_after == bw,
                  "report %lld -> %lld, measured %lld -> %lld", (long long)rep.bandwidth_before,
                  (long long)rep.bandwidth_after, (long long)bw_shuffled, (long long)bw);
    HS_TEST_CHECK(bw <= bw_shuffled, "bandwidth grew: %lld -> %lld", (long long)bw_shuffled,
                  (long long)bw);
    /* A random numbering has bandwidth ~ n; RCM's is about one BFS level (a cross-section). */
    HS_TEST_CHECK(5 * bw < bw_shuffled, "RCM bandwidth %lld not much below shuffled %lld",
                  (long long)bw, (long long)bw_shuffled);
    HS_TEST_CHECK(bw <= 2 * bw_structured, "RCM bandwidth %lld vs structured numbering %lld",
                  (long long)bw, (long long)bw_structured);
    HS_TEST_CHECK(rep.profile_after < 0.2 * rep.profile_before, "profile %g -> %g",
                  rep.profile_before, rep.profile_after);

    /* Reversal matters for the profile, not the bandwidth: the reverse of a Cuthill-McKee order
     * never has a larger envelope than the order itself (Liu & Sherman 1976). So numbering the
     * result backwards (which turns it into plain Cuthill-McKee) must not lower the profile. */
    {
        hs_mesh *rev = NULL;
        HS_TEST_OK(hs_mesh_alloc(m->n_nodes, m->n_elems, &rev));
        if (rev) {
            for (size_t i = 0; i < 4 * (size_t)m->n_elems; ++i)
                rev->tets[i] = m->n_nodes - 1 - m->tets[i];
            hs_reorder_report rr;
            HS_TEST_OK(hs_mesh_reorder(rev, HS_REORDER_NONE, &rr));
            HS_TEST_CHECK(rep.profile_after <= rr.profile_before,
                          "profile of the RCM order %g above its reversal's %g",
                          rep.profile_after, rr.profile_before);
            hs_mesh_destroy(&rev);
        }
    }

    /* Reordering again is stable: bandwidth does not grow. */
    HS_TEST_OK(hs_mesh_reorder(m, HS_REORDER_RCM, &rep));
    HS_TEST_CHECK(rep.bandwidth_after <= 2 * bw, "second RCM: %lld -> %lld",
                  (long long)rep.bandwidth_before, (long long)rep.bandwidth_after);
    check_same_mesh(m, &before, "RCM twice");
    hs_mesh_destroy(&m);
    free(before.vols);
    free(before.xyz);
}

/* Two separate boxes and an unused node: several components, one of them isolated. */
static void check_components(void)
{
    hs_box_params p = {2, 1, 1, 0.5, 0, 0};
    hs_mesh *a = NULL, *m = NULL;
    HS_TEST_OK(hs_mesh_create_box(&p, &a));
    if (!a) return;
    const int32_t n = a->n_nodes, ne = a->n_elems;
    HS_TEST_OK(hs_mesh_alloc(2 * n + 1, 2 * ne, &m));
    if (!m) {
        hs_mesh_destroy(&a);
        return;
    }
    for (int32_t v = 0; v < n; ++v)
        for (int k = 0; k < 3; ++k) {
            m->xyz[3 * v + k] = a->xyz[3 * v + k];
            m->xyz[3 * (n + v) + k] = a->xyz[3 * v + k] + (k == 0 ? 5.0 : 0.0);
        }
    m->xyz[3 * 2 * n + 0] = -3.0; /* the isolated node */
    for (size_t i = 0; i < 4 * (size_t)ne; ++i) {
        m->tets[i] = a->tets[i];
        m->tets[4 * (size_t)ne + i] = a->tets[i] + n;
    }
    shuffle(m);
    tag_elements(m);
    snapshot before = take(m);
    hs_reorder_report rep;
    HS_TEST_OK(hs_mesh_reorder(m, HS_REORDER_RCM, &rep));
    check_same_mesh(m, &before, "RCM on two boxes and a lone node");
    HS_TEST_CHECK(rep.bandwidth_after < rep.bandwidth_before, "bandwidth %lld -> %lld",
                  (long long)rep.bandwidth_before, (long long)rep.bandwidth_after);
    /* No element may mix the two boxes (their x ranges are [0,2] and [5,7]). */
    long mixed = 0;
    for (int32_t e = 0; e < m->n_elems; ++e) {
        int lo = 0, hi = 0;
        for (int k = 0; k < 4; ++k) {
            const double x = m->xyz[3 * (size_t)m->tets[4 * (size_t)e + k]];
            lo += x < 3.0;
            hi += x > 4.0;
        }
        mixed += lo != 4 && hi != 4;
    }
    HS_TEST_CHECK(mixed == 0, "%ld elements mix the two components", mixed);
    free(before.vols);
    free(before.xyz);
    hs_mesh_destroy(&a);
    hs_mesh_destroy(&m);

    /* A bad node index is an error, not a crash. */
    HS_TEST_OK(hs_mesh_create_box(&p, &m));
    if (m) {
        m->tets[7] = m->n_nodes + 3;
        hs_error_clear();
        HS_TEST_CHECK(hs_mesh_reorder(m, HS_REORDER_RCM, NULL) == HS_ERR_MESH,
                      "out-of-range node accepted");
        HS_TEST_CHECK(strstr(hs_error_message(), "element 1 ") != NULL, "message \"%s\"",
                      hs_error_message());
        hs_error_clear();
        hs_mesh_destroy(&m);
    }
}

/* A fan of tets around one axis: its two end nodes touch every element (degree > 64, the
 * long-batch path of the Cuthill-McKee sort). */
static void check_hub(void)
{
    const int k = 300;
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_alloc(k + 2, k, &m));
    if (!m) return;
    for (int i = 0; i < k; ++i) {
        const double a = 2.0 * 3.14159265358979323846 * i / k;
        m->xyz[3 * i + 0] = cos(a);
        m->xyz[3 * i + 1] = sin(a);
        m->xyz[3 * i + 2] = 0.0;
    }
    m->xyz[3 * k + 2] = 0.0;       /* centre */
    m->xyz[3 * (k + 1) + 2] = 1.0; /* apex */
    for (int i = 0; i < k; ++i) {
        int32_t *t = m->tets + 4 * i;
        t[0] = k;
        t[1] = i;
        t[2] = (i + 1) % k;
        t[3] = k + 1;
    }
    HS_TEST_OK(hs_mesh_check(m));
    shuffle(m);
    tag_elements(m);
    snapshot before = take(m);
    hs_reorder_report rep;
    HS_TEST_OK(hs_mesh_reorder(m, HS_REORDER_RCM, &rep));
    check_same_mesh(m, &before, "RCM on a fan with two hub nodes");
    HS_TEST_CHECK(rep.bandwidth_after == hs_mesh_bandwidth(m), "report %lld, measured %lld",
                  (long long)rep.bandwidth_after, (long long)hs_mesh_bandwidth(m));
    free(before.vols);
    free(before.xyz);
    hs_mesh_destroy(&m);
}

/* Mean |i - j| over the element edges (with multiplicity): how far apart neighbours are
 * numbered, the locality a curve order is meant to give. */
static double mean_edge_gap(const hs_mesh *m)
{
    double sum = 0.0;
    for (int32_t e = 0; e < m->n_elems; ++e) {
        const int32_t *t = m->tets + 4 * (size_t)e;
        for (int a = 0; a < 4; ++a)
            for (int b = a + 1; b < 4; ++b) sum += fabs((double)t[a] - (double)t[b]);
    }
    return m->n_elems ? sum / (6.0 * m->n_elems) : 0.0;
}

/* The Hilbert key on small grids: a bijection onto 0 .. 8^bits - 1 whose consecutive keys are
 * face-adjacent cells (that is what makes it a Hilbert curve and not just any key). */
static void check_hilbert_curve(void)
{
    for (int bits = 1; bits <= 4; ++bits) {
        const uint32_t side = 1u << bits, n = side * side * side;
        int32_t *cell = malloc(sizeof(int32_t) * n);
        for (uint32_t i = 0; i < n; ++i) cell[i] = -1;
        long bad_range = 0, dup = 0, jumps = 0;
        for (uint32_t x = 0; x < side; ++x)
            for (uint32_t y = 0; y < side; ++y)
                for (uint32_t z = 0; z < side; ++z) {
                    const uint64_t k = hs_sfc_hilbert_key(x, y, z, bits);
                    if (k >= n) {
                        ++bad_range;
                        continue;
                    }
                    if (cell[k] >= 0) ++dup;
                    cell[k] = (int32_t)(x + side * (y + side * z));
                }
        for (uint32_t k = 0; k + 1 < n && bad_range + dup == 0; ++k) {
            const int32_t a = cell[k], b = cell[k + 1];
            const int dx = abs(a % (int)side - b % (int)side),
                      dy = abs(a / (int)side % (int)side - b / (int)side % (int)side),
                      dz = abs(a / (int)(side * side) - b / (int)(side * side));
            jumps += dx + dy + dz != 1;
        }
        HS_TEST_CHECK(bad_range == 0 && dup == 0 && jumps == 0,
                      "Hilbert key, %d bits: %ld keys out of range, %ld repeated, %ld steps "
                      "between non-adjacent cells",
                      bits, bad_range, dup, jumps);
        free(cell);
    }
    /* The full-resolution key fits in 63 bits. */
    const uint32_t top = (1u << HS_SFC_BITS) - 1;
    HS_TEST_CHECK(hs_sfc_hilbert_key(top, top, top, HS_SFC_BITS) < (1ull << 63) &&
                      hs_sfc_hilbert_key(top, 0, 0, HS_SFC_BITS) < (1ull << 63),
                  "21-bit keys exceed 63 bits");
    /* All points equal: one cell, input order kept. */
    double same[12] = {1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3};
    int32_t id[4];
    HS_TEST_OK(hs_sfc_order(same, 4, id));
    HS_TEST_CHECK(id[0] == 0 && id[1] == 1 && id[2] == 2 && id[3] == 3,
                  "equal points reordered: %d %d %d %d", id[0], id[1], id[2], id[3]);
    same[4] = NAN;
    hs_error_clear();
    HS_TEST_CHECK(hs_sfc_order(same, 4, id) == HS_ERR_MESH &&
                      strstr(hs_error_message(), "node 1 ") != NULL,
                  "NaN coordinate: \"%s\"", hs_error_message());
    hs_error_clear();
}

static void check_box_sfc(double lx, double ly, double lz, double h)
{
    hs_box_params p = {lx, ly, lz, h, 0, 0};
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_create_box(&p, &m));
    if (!m) return;
    shuffle(m);
    tag_elements(m);
    const int64_t bw_shuffled = hs_mesh_bandwidth(m);
    const double gap_shuffled = mean_edge_gap(m);
    snapshot before = take(m);
    hs_reorder_report rep;
    HS_TEST_OK(hs_mesh_reorder(m, HS_REORDER_SFC, &rep));
    check_same_mesh(m, &before, "SFC on a shuffled box");
    mt_check_box_conforming(m, lx, ly, lz, 1e-12);
    HS_TEST_CHECK(rep.bandwidth_before == bw_shuffled && rep.bandwidth_after == hs_mesh_bandwidth(m),
                  "SFC report %lld -> %lld, measured %lld -> %lld",
                  (long long)rep.bandwidth_before, (long long)rep.bandwidth_after,
                  (long long)bw_shuffled, (long long)hs_mesh_bandwidth(m));
    /* A random order puts neighbours ~n/3 apart. Along the curve most neighbours are a few
     * cells apart; the edges crossing the top-level octant faces (a fraction ~n^(-1/3) of all)
     * jump ~n, so the mean gap is O(n^(2/3)): below n^(2/3) itself here (measured 51 for
     * n = 693, 61 for n = 2046), and well below the random order's. */
    const double gap = mean_edge_gap(m), n23 = pow((double)m->n_nodes, 2.0 / 3.0);
    HS_TEST_CHECK(gap < n23 && gap < 0.25 * gap_shuffled,
                  "SFC mean edge gap %g; n^(2/3) = %g, random order %g", gap, n23, gap_shuffled);
    HS_TEST_CHECK(rep.profile_after < rep.profile_before, "SFC profile %g -> %g",
                  rep.profile_before, rep.profile_after);
    hs_mesh_destroy(&m);
    free(before.vols);
    free(before.xyz);
}

/* node_orig and bface across renumberings: node v's coordinates are the source node
 * node_orig[v]'s, and boundary face j joins the same points as before. */
static void check_source_numbering(void)
{
    hs_box_params p = {3.0, 2.0, 1.0, 0.5, 0, 0};
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_create_box(&p, &m));
    if (!m) return;
    const int32_t n = m->n_nodes, nb = 40;
    for (int32_t v = 0; v < n; ++v)
        if (m->node_orig[v] != v) {
            HS_TEST_CHECK(0, "hs_mesh_alloc: node_orig[%d] = %d, not the identity", v,
                          m->node_orig[v]);
            break;
        }
    HS_TEST_OK(hs_mesh_alloc_bfaces(m, nb));
    for (int32_t j = 0; j < nb; ++j) { /* a face of element 3j, with a label */
        const int32_t *t = m->tets + 4 * (size_t)(3 * j % m->n_elems);
        for (int k = 0; k < 3; ++k) m->bface[3 * j + k] = t[k];
        m->bface_label[j] = 1 + j % 5;
    }
    double *x0 = malloc(sizeof(double) * 3 * (size_t)n);
    double *fx0 = malloc(sizeof(double) * 9 * (size_t)nb);
    memcpy(x0, m->xyz, sizeof(double) * 3 * (size_t)n);
    for (int32_t j = 0; j < nb; ++j)
        for (int k = 0; k < 3; ++k)
            memcpy(fx0 + 9 * j + 3 * k, m->xyz + 3 * (size_t)m->bface[3 * j + k], 3 * sizeof(double));
    const hs_reorder_kind kinds[3] = {HS_REORDER_RCM, HS_REORDER_SFC, HS_REORDER_RCM};
    for (int r = 0; r < 3; ++r) {
        HS_TEST_OK(hs_mesh_reorder(m, kinds[r], NULL));
        long bad_orig = 0, bad_face = 0, bad_label = 0, moved = 0;
        int32_t *seen = calloc((size_t)n, sizeof(int32_t));
        for (int32_t v = 0; v < n; ++v) {
            const int32_t o = m->node_orig[v];
            if (o < 0 || o >= n || seen[o]++) {
                ++bad_orig;
                continue;
            }
            moved += o != v;
            bad_orig += memcmp(m->xyz + 3 * (size_t)v, x0 + 3 * (size_t)o, 3 * sizeof(double)) != 0;
        }
        free(seen);
        for (int32_t j = 0; j < nb; ++j) {
            for (int k = 0; k < 3; ++k)
                bad_face += memcmp(m->xyz + 3 * (size_t)m->bface[3 * j + k], fx0 + 9 * j + 3 * k,
                                   3 * sizeof(double)) != 0;
            bad_label += m->bface_label[j] != 1 + j % 5;
        }
        HS_TEST_CHECK(bad_orig == 0 && moved > 0,
                      "reorder %d: %ld nodes whose node_orig is wrong, %ld moved", r, bad_orig,
                      moved);
        HS_TEST_CHECK(bad_face == 0 && bad_label == 0,
                      "reorder %d: %ld boundary face corners moved, %ld labels changed", r,
                      bad_face, bad_label);
    }
    /* A boundary face with a bad node index is refused, the mesh left alone. */
    m->bface[4] = n + 7;
    hs_error_clear();
    HS_TEST_CHECK(hs_mesh_reorder(m, HS_REORDER_SFC, NULL) == HS_ERR_MESH &&
                      strstr(hs_error_message(), "boundary face 1 ") != NULL,
                  "bad boundary face index: \"%s\"", hs_error_message());
    hs_error_clear();
    free(x0);
    free(fx0);
    hs_mesh_destroy(&m);
}

int main(void)
{
    check_hilbert_curve();
    check_box_sfc(10.0, 8.0, 6.0, 1.0);
    check_box_sfc(3.0, 1.0, 0.5, 0.1);
    check_source_numbering();
    check_box_rcm(10.0, 8.0, 6.0, 1.0);
    check_box_rcm(3.0, 1.0, 0.5, 0.1); /* a long slab: RCM should number along x */
    check_components();
    check_hub();
    HS_TEST_RETURN();
}
