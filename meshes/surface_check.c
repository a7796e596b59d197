/* hs_surface_check: can this surface bound a volume, and the orientation fixes that are safe.
 *
 * Steps, each on the result of the previous one:
 *  1. structure: facets of >= 3 points, indices in range, no point twice in a facet;
 *  2. duplicate facets (same point set, either orientation), zero-area facets;
 *  3. edges: every (min, max, facet) triple sorted, so the facets of an edge are adjacent; one
 *     facet = open edge, more than two = non-manifold: both are errors with the first edge's
 *     points and coordinates;
 *  4. orientation: breadth-first over facets through shared edges; two facets agree when they
 *     traverse their edge in opposite directions. Per shell (edge-connected component) the
 *     minority that disagrees is reversed (n_flipped); a shell where no choice agrees everywhere
 *     is not orientable (error);
 *  5. nesting and direction: a shell's depth is the number of other shells around it (generalised
 *     winding number of a point of it, Jacobson et al. 2013, with Van Oosterom & Strackee's
 *     solid angle of a triangle); shells of even depth must enclose positive volume (face out),
 *     odd depth negative (cavities face in), otherwise the whole shell is reversed
 *     (n_shells_inverted). The volume is the sum of the signed shell volumes.
 * Every facet with more than 3 points is handled as the fan (p0, pk, pk+1) for area, volume and
 * solid angle; its edges are its consecutive point pairs. Nothing is printed. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hs_surface.h"
#include "hs_util.h"

#define PI 3.14159265358979323846

/* ---- small vector helpers ---- */

static void sub3(const double *a, const double *b, double *c)
{
    c[0] = a[0] - b[0];
    c[1] = a[1] - b[1];
    c[2] = a[2] - b[2];
}
static double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static void cross3(const double *a, const double *b, double *c)
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}
static double norm3(const double *a) { return sqrt(dot3(a, a)); }

static const double *P(const hs_surface *s, int32_t i) { return s->xyz + 3 * (size_t)i; }

/* Number of points of facet f, and the points. */
static int32_t fsize(const hs_surface *s, int32_t f)
{
    return s->facet_ptr[f + 1] - s->facet_ptr[f];
}
static const int32_t *fidx(const hs_surface *s, int32_t f)
{
    return s->facet_idx + s->facet_ptr[f];
}

/* Reverse a facet's point order (its normal and every edge direction). */
/* Reverse the orientation but keep the first point first: the area, volume and winding code fan a
 * polygon from p0, and a non-planar polygon fanned from another point is another surface (found by
 * fuzzing: tests/fuzz/regressions/{off,ply,poly}/nonplanar_quad_*). */
static void reverse_facet(hs_surface *s, int32_t f)
{
    int32_t *v = s->facet_idx + s->facet_ptr[f];
    for (int32_t i = 1, j = fsize(s, f) - 1; i < j; ++i, --j) {
        const int32_t t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

/* ---- 1. structure ---- */

static hs_status check_structure(const hs_surface *s, const char *path, int32_t *stamp,
                                 int32_t *n_unused)
{
    HS_CHECK(s->n_facets > 0, HS_ERR_MESH, "%s: the surface has no facets", path);
    HS_CHECK(s->n_points >= 3, HS_ERR_MESH, "%s: the surface has %d points; at least 3 needed",
             path, (int)s->n_points);
    HS_CHECK(s->facet_ptr[0] == 0, HS_ERR_INTERNAL, "%s: facet_ptr[0] = %d, expected 0", path,
             (int)s->facet_ptr[0]);
    for (int32_t i = 0; i < s->n_points; ++i) stamp[i] = -1;
    for (int32_t f = 0; f < s->n_facets; ++f) {
        const int32_t n = fsize(s, f);
        HS_CHECK(n >= 3, HS_ERR_MESH, "%s: facet %d (0-based) has %d points; at least 3 needed",
                 path, (int)f, (int)n);
        const int32_t *v = fidx(s, f);
        for (int32_t k = 0; k < n; ++k) {
            HS_CHECK(v[k] >= 0 && v[k] < s->n_points, HS_ERR_MESH,
                     "%s: facet %d (0-based) refers to point %d, outside 0..%d", path, (int)f,
                     (int)v[k], (int)s->n_points - 1);
            const double *x = P(s, v[k]);
            HS_CHECK(stamp[v[k]] != f, HS_ERR_MESH,
                     "%s: facet %d (0-based) lists point %d (%g, %g, %g) twice", path, (int)f,
                     (int)v[k], x[0], x[1], x[2]);
            stamp[v[k]] = f;
        }
    }
    int32_t unused = 0;
    for (int32_t i = 0; i < s->n_points; ++i) unused += stamp[i] < 0;
    *n_unused = unused;
    return HS_OK;
}

/* ---- 2. duplicates and zero area ---- */

typedef struct facet_key {
    uint64_t hash;
    int32_t f;
} facet_key;

static int cmp_key(const void *a, const void *b)
{
    const facet_key *x = a, *y = b;
    if (x->hash != y->hash) return x->hash < y->hash ? -1 : 1;
    return (x->f > y->f) - (x->f < y->f);
}

static void sort_small(int32_t *v, int32_t n)
{
    for (int32_t i = 1; i < n; ++i) {
        const int32_t t = v[i];
        int32_t j = i - 1;
        while (j >= 0 && v[j] > t) {
            v[j + 1] = v[j];
            --j;
        }
        v[j + 1] = t;
    }
}

static int cmp_i32(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static hs_status check_duplicates(const hs_surface *s, const char *path)
{
    hs_status st = HS_OK;
    const int32_t nf = s->n_facets;
    int32_t *sorted = NULL;
    facet_key *key = NULL;
    HS_CALL_GOTO(HS_ALLOC(sorted, (size_t)s->facet_ptr[nf] + 1, "sorted facet points"), done);
    HS_CALL_GOTO(HS_ALLOC(key, nf, "facet keys"), done);
    memcpy(sorted, s->facet_idx, (size_t)s->facet_ptr[nf] * sizeof *sorted);
    for (int32_t f = 0; f < nf; ++f) {
        int32_t *v = sorted + s->facet_ptr[f];
        const int32_t n = fsize(s, f);
        if (n <= 16) sort_small(v, n);
        else qsort(v, (size_t)n, sizeof *v, cmp_i32);
        uint64_t h = 1469598103934665603ull ^ (uint64_t)n; /* FNV-1a over the sorted indices */
        for (int32_t k = 0; k < n; ++k) h = (h ^ (uint64_t)(uint32_t)v[k]) * 1099511628211ull;
        key[f] = (facet_key){h, f};
    }
    qsort(key, (size_t)nf, sizeof *key, cmp_key);
    for (int32_t i = 0; i + 1 < nf; ++i) {
        for (int32_t j = i + 1; j < nf && key[j].hash == key[i].hash; ++j) {
            const int32_t f = key[i].f, g = key[j].f, n = fsize(s, f);
            if (fsize(s, g) != n ||
                memcmp(sorted + s->facet_ptr[f], sorted + s->facet_ptr[g], (size_t)n * 4) != 0)
                continue;
            const double *x = P(s, fidx(s, f)[0]);
            HS_CHECK_GOTO(0, done, HS_ERR_MESH,
                          "%s: facets %d and %d (0-based) are the same polygon (%d points, the "
                          "first %d at (%g, %g, %g)); remove one of them",
                          path, (int)f, (int)g, (int)n, (int)fidx(s, f)[0], x[0], x[1], x[2]);
        }
    }
done:
    free(sorted);
    free(key);
    return st;
}

/* Newell's vector: twice the polygon's vector area (exact for planar polygons). */
static void facet_normal(const hs_surface *s, int32_t f, double nrm[3])
{
    const int32_t n = fsize(s, f), *v = fidx(s, f);
    nrm[0] = nrm[1] = nrm[2] = 0.0;
    const double *o = P(s, v[0]);
    for (int32_t k = 1; k + 1 < n; ++k) {
        double a[3], b[3], c[3];
        sub3(P(s, v[k]), o, a);
        sub3(P(s, v[k + 1]), o, b);
        cross3(a, b, c);
        nrm[0] += c[0];
        nrm[1] += c[1];
        nrm[2] += c[2];
    }
}

static hs_status check_areas(const hs_surface *s, const char *path, double *area)
{
    double total = 0.0;
    for (int32_t f = 0; f < s->n_facets; ++f) {
        const int32_t n = fsize(s, f), *v = fidx(s, f);
        double nrm[3], longest2 = 0.0;
        facet_normal(s, f, nrm);
        for (int32_t k = 0; k < n; ++k) {
            double e[3];
            sub3(P(s, v[(k + 1) % n]), P(s, v[k]), e);
            longest2 = fmax(longest2, dot3(e, e));
        }
        const double a = 0.5 * norm3(nrm);
        /* Zero up to rounding: height below 2e-12 of the longest edge. */
        if (!(a > 1e-12 * longest2)) {
            const double *x0 = P(s, v[0]), *x1 = P(s, v[1]), *x2 = P(s, v[2]);
            return HS_FAIL(HS_ERR_MESH,
                           "%s: facet %d (0-based) has zero area: its points %d (%g, %g, %g), "
                           "%d (%g, %g, %g), %d (%g, %g, %g)%s are on one line",
                           path, (int)f, (int)v[0], x0[0], x0[1], x0[2], (int)v[1], x1[0], x1[1],
                           x1[2], (int)v[2], x2[0], x2[1], x2[2], n > 3 ? ", ..." : "");
        }
        total += a;
    }
    *area = total;
    return HS_OK;
}

/* ---- 3. edges ---- */

typedef struct edge_use {
    int32_t a, b; /* a < b */
    int32_t f;
    int32_t rev;  /* 0: the facet goes a -> b, 1: b -> a */
} edge_use;

static int cmp_edge(const void *x, const void *y)
{
    const edge_use *p = x, *q = y;
    if (p->a != q->a) return (p->a > q->a) - (p->a < q->a);
    if (p->b != q->b) return (p->b > q->b) - (p->b < q->b);
    return (p->f > q->f) - (p->f < q->f);
}

/* Neighbours through manifold edges, CSR: nb[ptr[f] .. ptr[f+1]) with same[] = 1 when both
 * facets traverse the edge in the same direction (they disagree). */
typedef struct adjacency {
    int32_t *ptr, *nb;
    uint8_t *same;
} adjacency;

static hs_status build_edges(const hs_surface *s, const char *path, adjacency *adj)
{
    hs_status st = HS_OK;
    const int32_t nf = s->n_facets;
    const size_t ne = (size_t)s->facet_ptr[nf];
    edge_use *e = NULL;
    HS_CALL_GOTO(HS_ALLOC(e, ne, "surface edges"), done);
    size_t q = 0;
    for (int32_t f = 0; f < nf; ++f) {
        const int32_t n = fsize(s, f), *v = fidx(s, f);
        for (int32_t k = 0; k < n; ++k) {
            const int32_t a = v[k], b = v[(k + 1) % n];
            e[q++] = a < b ? (edge_use){a, b, f, 0} : (edge_use){b, a, f, 1};
        }
    }
    qsort(e, ne, sizeof *e, cmp_edge);
    size_t n_open = 0, n_nonman = 0, first_open = ne, first_nonman = ne, nonman_count = 0;
    HS_CALL_GOTO(HS_ALLOC(adj->ptr, (size_t)nf + 1, "facet adjacency"), done);
    for (size_t i = 0; i < ne;) {
        size_t j = i + 1;
        while (j < ne && e[j].a == e[i].a && e[j].b == e[i].b) ++j;
        if (j - i == 1) {
            if (n_open++ == 0) first_open = i;
        } else if (j - i > 2) {
            if (n_nonman++ == 0) {
                first_nonman = i;
                nonman_count = j - i;
            }
        } else {
            adj->ptr[e[i].f + 1]++;
            adj->ptr[e[i + 1].f + 1]++;
        }
        i = j;
    }
    if (n_open) {
        const edge_use *u = &e[first_open];
        const double *x = P(s, u->a), *y = P(s, u->b);
        HS_CHECK_GOTO(0, done, HS_ERR_MESH,
                      "%s: the surface is not closed: %zu open edges (edges of only one facet)%s; "
                      "the first joins point %d (%g, %g, %g) and point %d (%g, %g, %g), in facet "
                      "%d (0-based)",
                      path, n_open, n_nonman ? " and non-manifold edges" : "", (int)u->a, x[0],
                      x[1], x[2], (int)u->b, y[0], y[1], y[2], (int)u->f);
    }
    if (n_nonman) {
        const edge_use *u = &e[first_nonman];
        const double *x = P(s, u->a), *y = P(s, u->b);
        HS_CHECK_GOTO(0, done, HS_ERR_MESH,
                      "%s: the surface is not manifold: %zu edges are shared by more than two "
                      "facets; the first joins point %d (%g, %g, %g) and point %d (%g, %g, %g) "
                      "and has %zu facets (the first %d and %d, 0-based); do two shells touch "
                      "along it?",
                      path, n_nonman, (int)u->a, x[0], x[1], x[2], (int)u->b, y[0], y[1], y[2],
                      nonman_count, (int)u[0].f, (int)u[1].f);
    }
    for (int32_t f = 0; f < nf; ++f) adj->ptr[f + 1] += adj->ptr[f];
    HS_CALL_GOTO(HS_ALLOC(adj->nb, (size_t)adj->ptr[nf] + 1, "facet neighbours"), done);
    HS_CALL_GOTO(HS_ALLOC(adj->same, (size_t)adj->ptr[nf] + 1, "facet neighbour flags"), done);
    {
        int32_t *fill = NULL;
        HS_CALL_GOTO(HS_ALLOC(fill, nf, "facet adjacency fill"), done);
        for (size_t i = 0; i < ne; i += 2) { /* every edge now has exactly two uses */
            const edge_use *u = &e[i], *w = &e[i + 1];
            const uint8_t same = u->rev == w->rev;
            const int32_t pu = adj->ptr[u->f] + fill[u->f]++, pw = adj->ptr[w->f] + fill[w->f]++;
            adj->nb[pu] = w->f;
            adj->same[pu] = same;
            adj->nb[pw] = u->f;
            adj->same[pw] = same;
        }
        free(fill);
    }
done:
    free(e);
    return st;
}

/* ---- 4. consistent orientation per shell ---- */

/* comp[f]: shell of facet f; returns the shell count; reverses the minority of each shell. */
static hs_status orient_shells(hs_surface *s, const char *path, const adjacency *adj,
                               int32_t *comp, int32_t *n_comp, int32_t *n_flipped)
{
    hs_status st = HS_OK;
    const int32_t nf = s->n_facets;
    int32_t *queue = NULL;
    uint8_t *flip = NULL;
    HS_CALL_GOTO(HS_ALLOC(queue, nf, "orientation queue"), done);
    HS_CALL_GOTO(HS_ALLOC(flip, nf, "orientation flags"), done);
    for (int32_t f = 0; f < nf; ++f) comp[f] = -1;
    int32_t nc = 0, flipped = 0;
    for (int32_t seed = 0; seed < nf; ++seed) {
        if (comp[seed] >= 0) continue;
        int32_t head = 0, tail = 0, n_rev = 0;
        comp[seed] = nc;
        flip[seed] = 0;
        queue[tail++] = seed;
        while (head < tail) {
            const int32_t f = queue[head++];
            for (int32_t q = adj->ptr[f]; q < adj->ptr[f + 1]; ++q) {
                const int32_t g = adj->nb[q];
                const uint8_t want = flip[f] ^ adj->same[q];
                if (comp[g] < 0) {
                    comp[g] = nc;
                    flip[g] = want;
                    n_rev += want;
                    queue[tail++] = g;
                } else if (flip[g] != want) {
                    HS_CHECK_GOTO(0, done, HS_ERR_MESH,
                                  "%s: the shell containing facet %d (0-based) is not orientable "
                                  "(like a Moebius strip): going round it, facet %d ends up "
                                  "facing both ways; it cannot bound a volume",
                                  path, (int)seed, (int)g);
                }
            }
        }
        /* The facets of queue[0..tail) form the shell; keep the majority's orientation. */
        const int keep_seed = n_rev <= tail - n_rev;
        for (int32_t q = 0; q < tail; ++q) {
            const int32_t f = queue[q];
            if (flip[f] == keep_seed) reverse_facet(s, f);
        }
        flipped += keep_seed ? n_rev : tail - n_rev;
        ++nc;
    }
    *n_comp = nc;
    *n_flipped = flipped;
done:
    free(queue);
    free(flip);
    return st;
}

/* ---- 5. nesting and direction ---- */

/* Signed volume of facet f's fan, relative to o (sums to the enclosed volume over a shell). */
static double facet_volume(const hs_surface *s, int32_t f, const double *o)
{
    const int32_t n = fsize(s, f), *v = fidx(s, f);
    double a[3], vol = 0.0;
    sub3(P(s, v[0]), o, a);
    for (int32_t k = 1; k + 1 < n; ++k) {
        double b[3], c[3], bc[3];
        sub3(P(s, v[k]), o, b);
        sub3(P(s, v[k + 1]), o, c);
        cross3(b, c, bc);
        vol += dot3(a, bc);
    }
    return vol / 6.0;
}

/* Solid angle of facet f's fan seen from q (Van Oosterom & Strackee 1983). */
static double facet_solid_angle(const hs_surface *s, int32_t f, const double *q)
{
    const int32_t n = fsize(s, f), *v = fidx(s, f);
    double a[3], omega = 0.0;
    sub3(P(s, v[0]), q, a);
    const double la = norm3(a);
    for (int32_t k = 1; k + 1 < n; ++k) {
        double b[3], c[3], bc[3];
        sub3(P(s, v[k]), q, b);
        sub3(P(s, v[k + 1]), q, c);
        cross3(b, c, bc);
        const double lb = norm3(b), lc = norm3(c);
        const double num = dot3(a, bc);
        const double den = la * lb * lc + dot3(a, b) * lc + dot3(a, c) * lb + dot3(b, c) * la;
        omega += 2.0 * atan2(num, den);
    }
    return omega;
}

typedef struct shell {
    double vol;
    double lo[3], hi[3];
    double probe[3]; /* a point on the shell: the centroid of its first facet */
    int32_t depth;
} shell;

static hs_status orient_outward(hs_surface *s, const char *path, const int32_t *comp, int32_t nc,
                                const double *origin, double diag, int32_t *n_inverted,
                                double *volume)
{
    hs_status st = HS_OK;
    const int32_t nf = s->n_facets;
    shell *sh = NULL;
    int32_t *ptr = NULL, *list = NULL, *first = NULL;
    HS_CALL_GOTO(HS_ALLOC(sh, nc, "shells"), done);
    HS_CALL_GOTO(HS_ALLOC(ptr, (size_t)nc + 1, "shell facet offsets"), done);
    HS_CALL_GOTO(HS_ALLOC(list, nf, "shell facets"), done);
    HS_CALL_GOTO(HS_ALLOC(first, nc, "shell first facets"), done);
    for (int32_t c = 0; c < nc; ++c) {
        for (int k = 0; k < 3; ++k) {
            sh[c].lo[k] = INFINITY;
            sh[c].hi[k] = -INFINITY;
        }
        first[c] = -1;
    }
    for (int32_t f = 0; f < nf; ++f) {
        const int32_t c = comp[f];
        ptr[c + 1]++;
        if (first[c] < 0) first[c] = f;
        sh[c].vol += facet_volume(s, f, origin);
        for (int32_t k = 0; k < fsize(s, f); ++k) {
            const double *x = P(s, fidx(s, f)[k]);
            for (int d = 0; d < 3; ++d) {
                sh[c].lo[d] = fmin(sh[c].lo[d], x[d]);
                sh[c].hi[d] = fmax(sh[c].hi[d], x[d]);
            }
        }
    }
    for (int32_t c = 0; c < nc; ++c) ptr[c + 1] += ptr[c];
    {
        int32_t *fill = NULL;
        HS_CALL_GOTO(HS_ALLOC(fill, nc, "shell fill"), done);
        for (int32_t f = 0; f < nf; ++f) list[ptr[comp[f]] + fill[comp[f]]++] = f;
        free(fill);
    }
    for (int32_t c = 0; c < nc; ++c) {
        /* A flat shell (e.g. two facets back to back) encloses nothing. */
        const double ext = fmax(sh[c].hi[0] - sh[c].lo[0],
                                fmax(sh[c].hi[1] - sh[c].lo[1], sh[c].hi[2] - sh[c].lo[2]));
        const double *x = P(s, fidx(s, first[c])[0]);
        HS_CHECK_GOTO(fabs(sh[c].vol) > 1e-12 * ext * ext * ext, done, HS_ERR_MESH,
                      "%s: the shell containing facet %d (0-based, point %d at (%g, %g, %g)) "
                      "encloses zero volume (flat, or folded onto itself)",
                      path, (int)first[c], (int)fidx(s, first[c])[0], x[0], x[1], x[2]);
        const int32_t f = first[c], n = fsize(s, f);
        for (int d = 0; d < 3; ++d) {
            double m = 0.0;
            for (int32_t k = 0; k < n; ++k) m += P(s, fidx(s, f)[k])[d];
            sh[c].probe[d] = m / n;
        }
    }
    /* Depth = how many other shells contain this one's probe point. A shell can only be inside
     * one whose bounding box holds its own, which skips most pairs. */
    const double slack = 1e-9 * diag;
    for (int32_t c = 0; c < nc; ++c)
        for (int32_t d = 0; d < nc; ++d) {
            if (c == d) continue;
            int inside_box = 1;
            for (int k = 0; k < 3; ++k)
                inside_box &= sh[c].lo[k] >= sh[d].lo[k] - slack &&
                              sh[c].hi[k] <= sh[d].hi[k] + slack;
            if (!inside_box) continue;
            double omega = 0.0;
            for (int32_t q = ptr[d]; q < ptr[d + 1]; ++q)
                omega += facet_solid_angle(s, list[q], sh[c].probe);
            if (fabs(omega) > 2.0 * PI) ++sh[c].depth; /* winding number +-1 vs 0 */
        }
    int32_t inverted = 0;
    double total = 0.0;
    for (int32_t c = 0; c < nc; ++c) {
        const int want_positive = sh[c].depth % 2 == 0;
        if ((sh[c].vol > 0) != want_positive) {
            for (int32_t q = ptr[c]; q < ptr[c + 1]; ++q) reverse_facet(s, list[q]);
            sh[c].vol = -sh[c].vol;
            ++inverted;
        }
        total += sh[c].vol;
    }
    HS_CHECK_GOTO(total > 0.0, done, HS_ERR_MESH,
                  "%s: the shells enclose no volume once nested ones are counted as cavities "
                  "(total %g mm^3); do shells intersect?",
                  path, total);
    *n_inverted = inverted;
    *volume = total;
done:
    free(sh);
    free(ptr);
    free(list);
    free(first);
    return st;
}

/* ---- entry ---- */

hs_status hs_surface_check(hs_surface *s, const char *path, hs_surface_report *rep)
{
    HS_CHECK(s != NULL, HS_ERR_INTERNAL, "hs_surface_check: surface is NULL");
    if (path == NULL) path = "(surface)";
    hs_surface_report r;
    memset(&r, 0, sizeof r);
    r.n_points = s->n_points;
    r.n_facets = s->n_facets;
    r.n_points_welded = s->n_points_welded;
    hs_status st = HS_OK;
    int32_t *stamp = NULL, *comp = NULL;
    adjacency adj = {NULL, NULL, NULL};
    HS_CALL_GOTO(HS_ALLOC(stamp, (size_t)s->n_points + 1, "surface point flags"), done);
    HS_CALL_GOTO(check_structure(s, path, stamp, &r.n_unused_points), done);

    for (int k = 0; k < 3; ++k) {
        r.bbox_min[k] = INFINITY;
        r.bbox_max[k] = -INFINITY;
    }
    for (int32_t i = 0; i < s->n_points; ++i) {
        if (stamp[i] < 0) continue; /* unused points do not bound anything */
        for (int k = 0; k < 3; ++k) {
            r.bbox_min[k] = fmin(r.bbox_min[k], s->xyz[3 * i + k]);
            r.bbox_max[k] = fmax(r.bbox_max[k], s->xyz[3 * i + k]);
        }
    }
    double origin[3], diag2 = 0.0;
    for (int k = 0; k < 3; ++k) {
        origin[k] = 0.5 * (r.bbox_min[k] + r.bbox_max[k]);
        diag2 += (r.bbox_max[k] - r.bbox_min[k]) * (r.bbox_max[k] - r.bbox_min[k]);
    }

    HS_CALL_GOTO(check_duplicates(s, path), done);
    HS_CALL_GOTO(check_areas(s, path, &r.area), done);
    HS_CALL_GOTO(build_edges(s, path, &adj), done);
    HS_CALL_GOTO(HS_ALLOC(comp, s->n_facets, "facet shells"), done);
    HS_CALL_GOTO(orient_shells(s, path, &adj, comp, &r.n_components, &r.n_flipped), done);
    HS_CALL_GOTO(orient_outward(s, path, comp, r.n_components, origin, sqrt(diag2),
                                &r.n_shells_inverted, &r.volume),
                 done);
    if (rep) *rep = r;
done:
    free(stamp);
    free(comp);
    free(adj.ptr);
    free(adj.nb);
    free(adj.same);
    return st;
}
