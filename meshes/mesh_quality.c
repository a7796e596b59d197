/* Mesh statistics for `heartsim mesh` (hs_mesh_quality.h).
 *
 * Per element: signed volume, the 6 dihedral angles, and the normalised quality
 * q = 3 r_in / r_circ (1 for the regular tetrahedron, -> 0 for slivers and needles; negative for an
 * inverted element, whose signed volume is negative). Edge lengths are taken over the unique
 * edges, found per node through a node-to-element map with a marker array (no sort). */
#include "hs_mesh_quality.h"

#include <math.h>
#include <stdlib.h>

#include "hs_util.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static void sub3(const double *a, const double *b, double *r)
{
    r[0] = a[0] - b[0];
    r[1] = a[1] - b[1];
    r[2] = a[2] - b[2];
}

static void cross3(const double *a, const double *b, double *r)
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Element e: signed volume, quality, smallest and largest dihedral angle (degrees). */
static void elem_quality(const hs_mesh *m, int32_t e, double *vol, double *q, double *dmin,
                         double *dmax)
{
    const int32_t *t = m->tets + 4 * (size_t)e;
    const double *p[4];
    for (int k = 0; k < 4; ++k) p[k] = m->xyz + 3 * (size_t)t[k];
    double a[3], b[3], c[3], bc[3], ca[3], ab[3];
    sub3(p[1], p[0], a);
    sub3(p[2], p[0], b);
    sub3(p[3], p[0], c);
    cross3(b, c, bc);
    cross3(c, a, ca);
    cross3(a, b, ab);
    const double det = dot3(a, bc); /* 6 V */
    *vol = det / 6.0;

    /* Face k is opposite node k; n[k] its normal pointing away from node k, |n[k]| = 2 area. */
    double n[4][3];
    static const int face[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
    double area2 = 0.0;
    for (int k = 0; k < 4; ++k) {
        double u[3], w[3];
        sub3(p[face[k][1]], p[face[k][0]], u);
        sub3(p[face[k][2]], p[face[k][0]], w);
        cross3(u, w, n[k]);
        area2 += sqrt(dot3(n[k], n[k]));
    }
    /* For a positively oriented tet these normals all point outwards. The dihedral angle at the
     * edge shared by faces k and l is pi minus the angle between their outward normals. */
    *dmin = 180.0;
    *dmax = 0.0;
    for (int k = 0; k < 4; ++k)
        for (int l = k + 1; l < 4; ++l) {
            const double nk = sqrt(dot3(n[k], n[k])), nl = sqrt(dot3(n[l], n[l]));
            double c_kl = nk > 0.0 && nl > 0.0 ? -dot3(n[k], n[l]) / (nk * nl) : 1.0;
            if (c_kl > 1.0) c_kl = 1.0;
            if (c_kl < -1.0) c_kl = -1.0;
            const double ang = acos(c_kl) * (180.0 / M_PI);
            if (ang < *dmin) *dmin = ang;
            if (ang > *dmax) *dmax = ang;
        }

    /* r_in = 3 V / (total face area) = det / area2 (area2 = 2 * total area).
     * Circumcentre offset from p0: (|a|^2 (b x c) + |b|^2 (c x a) + |c|^2 (a x b)) / (2 det). */
    const double la = dot3(a, a), lb = dot3(b, b), lc = dot3(c, c);
    double o[3];
    for (int d = 0; d < 3; ++d) o[d] = la * bc[d] + lb * ca[d] + lc * ab[d];
    const double no = sqrt(dot3(o, o));
    /* q = 3 r_in / r_circ = 3 (det / area2) * (2 |det| / |o|) */
    *q = (area2 > 0.0 && no > 0.0) ? 6.0 * det * fabs(det) / (area2 * no) : 0.0;
    if (!isfinite(*q)) *q = 0.0;
}

/* Unique edges: for every node v, the neighbours w > v met through v's elements. */
static hs_status edge_stats(const hs_mesh *m, double *h_min, double *h_mean, double *h_max)
{
    const int32_t n = m->n_nodes, ne = m->n_elems;
    hs_status st = HS_OK;
    int64_t *ptr = NULL;
    int32_t *n2e = NULL;
    HS_CALL_GOTO(HS_ALLOC(ptr, (size_t)n + 2, "node-to-element offsets"), done);
    HS_CALL_GOTO(HS_ALLOC(n2e, (size_t)ne * 4, "node-to-element map"), done);
    for (size_t i = 0; i < (size_t)ne * 4; ++i) ++ptr[m->tets[i] + 2];
    for (int32_t v = 0; v < n; ++v) ptr[v + 2] += ptr[v + 1];
    for (int32_t e = 0; e < ne; ++e) /* ptr[v+1] is the fill cursor of v; ends as v+1's start */
        for (int k = 0; k < 4; ++k) n2e[ptr[m->tets[4 * (size_t)e + k] + 1]++] = e;

    double lmin = INFINITY, lmax = 0.0, lsum = 0.0;
    int64_t count = 0;
#pragma omp parallel if (n > HS_OMP_MIN)
    {
        /* Each thread marks with its own array: mark[w] == v means edge (v, w) already seen. */
        int32_t *mark = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
        double tmin = INFINITY, tmax = 0.0, tsum = 0.0;
        int64_t tcount = 0;
        int ok = mark != NULL;
        if (ok)
            for (int32_t v = 0; v < n; ++v) mark[v] = -1;
#pragma omp for schedule(static)
        for (int32_t v = 0; v < n; ++v) {
            if (!ok) continue;
            for (int64_t q = ptr[v]; q < ptr[v + 1]; ++q) {
                const int32_t *t = m->tets + 4 * (size_t)n2e[q];
                for (int k = 0; k < 4; ++k) {
                    const int32_t w = t[k];
                    if (w <= v || mark[w] == v) continue;
                    mark[w] = v;
                    double d[3];
                    sub3(m->xyz + 3 * (size_t)w, m->xyz + 3 * (size_t)v, d);
                    const double l = sqrt(dot3(d, d));
                    tsum += l;
                    ++tcount;
                    if (l < tmin) tmin = l;
                    if (l > tmax) tmax = l;
                }
            }
        }
#pragma omp critical
        {
            if (!ok) count = -1;
            if (count >= 0) {
                count += tcount;
                lsum += tsum;
                if (tmin < lmin) lmin = tmin;
                if (tmax > lmax) lmax = tmax;
            }
        }
        free(mark);
    }
    HS_CHECK_GOTO(count >= 0, done, HS_ERR_MEMORY,
                  "out of memory for the edge marker arrays (%ld nodes)", (long)n);
    *h_min = count ? lmin : 0.0;
    *h_max = lmax;
    *h_mean = count ? lsum / (double)count : 0.0;
done:
    free(ptr);
    free(n2e);
    return st;
}

hs_status hs_mesh_quality_compute(const hs_mesh *m, hs_mesh_quality *q)
{
    HS_CHECK(m != NULL && q != NULL, HS_ERR_INTERNAL, "hs_mesh_quality_compute: NULL argument");
    /* Indices are used to address coordinates: check them rather than read out of bounds. */
    for (size_t i = 0; i < (size_t)m->n_elems * 4; ++i)
        HS_CHECK(m->tets[i] >= 0 && m->tets[i] < m->n_nodes, HS_ERR_MESH,
                 "element %ld refers to node %ld, out of range 0..%ld", (long)(i / 4),
                 (long)m->tets[i], (long)m->n_nodes - 1);
    hs_mesh_quality r = {0};
    r.n_nodes = m->n_nodes;
    r.n_elems = m->n_elems;
    r.n_bfaces = m->n_bfaces;
    r.worst_elem = -1;
    HS_CALL(edge_stats(m, &r.h_min, &r.h_mean, &r.h_max));

    const int32_t ne = m->n_elems;
    double vol = 0.0, qsum = 0.0, qmin = INFINITY, dmin = 180.0, dmax = 0.0;
    int32_t worst = -1;
    int64_t hist[HS_QUALITY_BINS] = {0};
#pragma omp parallel if (ne > HS_OMP_MIN)
    {
        double tvol = 0.0, tqsum = 0.0, tqmin = INFINITY, tdmin = 180.0, tdmax = 0.0;
        int32_t tworst = -1;
        int64_t th[HS_QUALITY_BINS] = {0};
#pragma omp for schedule(static)
        for (int32_t e = 0; e < ne; ++e) {
            double v, qe, a0, a1;
            elem_quality(m, e, &v, &qe, &a0, &a1);
            tvol += v;
            tqsum += qe;
            if (qe < tqmin) {
                tqmin = qe;
                tworst = e;
            }
            if (a0 < tdmin) tdmin = a0;
            if (a1 > tdmax) tdmax = a1;
            int bin = (int)floor(qe * HS_QUALITY_BINS);
            if (bin < 0) bin = 0; /* inverted elements count as the worst bin */
            if (bin >= HS_QUALITY_BINS) bin = HS_QUALITY_BINS - 1;
            ++th[bin];
        }
#pragma omp critical
        {
            vol += tvol;
            qsum += tqsum;
            /* Ties go to the lowest element index, so the result does not depend on threads. */
            if (tqmin < qmin || (tqmin == qmin && tworst >= 0 && tworst < worst)) {
                qmin = tqmin;
                worst = tworst;
            }
            if (tdmin < dmin) dmin = tdmin;
            if (tdmax > dmax) dmax = tdmax;
            for (int k = 0; k < HS_QUALITY_BINS; ++k) hist[k] += th[k];
        }
    }
    r.volume = vol;
    r.q_min = ne ? qmin : 0.0;
    r.q_mean = ne ? qsum / (double)ne : 0.0;
    r.dihedral_min_deg = ne ? dmin : 0.0;
    r.dihedral_max_deg = ne ? dmax : 0.0;
    r.worst_elem = worst;
    for (int k = 0; k < HS_QUALITY_BINS; ++k) r.q_hist[k] = hist[k];
    *q = r;
    return HS_OK;
}

void hs_mesh_quality_print(const hs_mesh_quality *q, FILE *f)
{
    if (!q || !f) return;
    fprintf(f, "mesh: %ld nodes, %ld elements, %ld boundary faces\n", (long)q->n_nodes,
            (long)q->n_elems, (long)q->n_bfaces);
    fprintf(f, "  volume          %.6g mm^3\n", q->volume);
    fprintf(f, "  edge length     min %.4g  mean %.4g  max %.4g mm\n", q->h_min, q->h_mean,
            q->h_max);
    fprintf(f, "  dihedral angle  min %.2f  max %.2f deg\n", q->dihedral_min_deg,
            q->dihedral_max_deg);
    fprintf(f, "  quality         min %.4f (element %ld)  mean %.4f   (3 r_in / r_circ, 1 = regular)\n",
            q->q_min, (long)q->worst_elem, q->q_mean);
    if (q->q_min <= 0.0 && q->n_elems > 0)
        fprintf(f, "  warning: quality <= 0 means a degenerate or inverted element\n");
    int64_t top = 0;
    for (int k = 0; k < HS_QUALITY_BINS; ++k)
        if (q->q_hist[k] > top) top = q->q_hist[k];
    enum { WIDTH = 40 };
    fprintf(f, "  quality histogram:\n");
    for (int k = 0; k < HS_QUALITY_BINS; ++k) {
        /* Any non-empty bin shows at least one '#', so a handful of bad elements is visible. */
        int bar = top ? (int)((double)q->q_hist[k] * WIDTH / (double)top + 0.5) : 0;
        if (q->q_hist[k] > 0 && bar == 0) bar = 1;
        fprintf(f, "    %.1f-%.1f |", (double)k / HS_QUALITY_BINS,
                (double)(k + 1) / HS_QUALITY_BINS);
        for (int i = 0; i < WIDTH; ++i) fputc(i < bar ? '#' : ' ', f);
        fprintf(f, " %lld\n", (long long)q->q_hist[k]);
    }
}
