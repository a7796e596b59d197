/* The built-in slab [0,lx]x[0,ly]x[0,lz]: a structured Kuhn (Freudenthal) split, or TetGen.
 *
 * Structured: nodes are numbered x fastest, node(i,j,k) = i + (nx+1) * (j + (ny+1) * k). Each cell
 * is split into the 6 tets that share its main diagonal (0,0,0)-(1,1,1); tet s walks from the
 * cell's corner (0,0,0) to (1,1,1) along the unit steps of one permutation of the axes. Because
 * every cell uses the same diagonal direction, the split of a shared face is the same from both
 * sides (the face diagonal always joins the face's lowest and highest corners), so the mesh is
 * conforming, and every tet has volume hx*hy*hz/6. */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>

#include "hs_mesh.h"
#include "hs_tetgen.h"
#include "hs_util.h"

/* The 6 axis permutations and their signs; the signed volume of the walk tet equals
 * sign(perm) * hx*hy*hz/6, so odd permutations get two nodes swapped to become positive. */
static const int k_perm[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
static const int k_perm_sign[6] = {+1, +1, +1, -1, -1, -1};

static hs_status check_length(double v, const char *name)
{
    HS_CHECK(isfinite(v) && v > 0.0, HS_ERR_MESH,
             "box mesh: %s = %g mm; it must be a positive, finite length", name, v);
    return HS_OK;
}

/* Cells along one axis: max(1, round(l / h)), refused before lround could overflow. */
static hs_status cells_along(double l, double h, const char *name, int64_t *n)
{
    const double c = l / h;
    HS_CHECK(c < 2147483647.0, HS_ERR_MESH,
             "box mesh: %s / h = %g / %g = %.3g cells, more than a 32-bit index can number; "
             "increase h",
             name, l, h, c);
    const long r = lround(c);
    *n = r < 1 ? 1 : (int64_t)r;
    return HS_OK;
}

static hs_status create_structured(const hs_box_params *p, hs_mesh **out)
{
    int64_t nx = 1, ny = 1, nz = 1;
    HS_CALL(cells_along(p->lx, p->h, "lx", &nx));
    HS_CALL(cells_along(p->ly, p->h, "ly", &ny));
    HS_CALL(cells_along(p->lz, p->h, "lz", &nz));
    /* Counts in double first: the int64 product of three near-2^31 factors would overflow. */
    const double nodes_d = (double)(nx + 1) * (double)(ny + 1) * (double)(nz + 1);
    const double elems_d = 6.0 * (double)nx * (double)ny * (double)nz;
    HS_CHECK(nodes_d <= (double)INT32_MAX && elems_d <= (double)INT32_MAX, HS_ERR_MESH,
             "box mesh %g x %g x %g mm with h = %g mm needs %lld x %lld x %lld cells, i.e. %.4g "
             "nodes and %.4g tetrahedra, more than the %ld a 32-bit index allows; increase h",
             p->lx, p->ly, p->lz, p->h, (long long)nx, (long long)ny, (long long)nz, nodes_d,
             elems_d, (long)INT32_MAX);

    hs_mesh *m = NULL;
    HS_CALL(hs_mesh_alloc((int32_t)nodes_d, (int32_t)elems_d, &m));

    const int64_t sx = nx + 1, sxy = (nx + 1) * (ny + 1);
    /* x = l * i / n, with the far end set exactly: the faces must lie on x = lx, not near it. */
    for (int64_t k = 0; k <= nz; ++k)
        for (int64_t j = 0; j <= ny; ++j)
            for (int64_t i = 0; i <= nx; ++i) {
                double *x = m->xyz + 3 * (size_t)(i + sx * j + sxy * k);
                x[0] = i == nx ? p->lx : p->lx * (double)i / (double)nx;
                x[1] = j == ny ? p->ly : p->ly * (double)j / (double)ny;
                x[2] = k == nz ? p->lz : p->lz * (double)k / (double)nz;
            }

    const int64_t step[3] = {1, sx, sxy}; /* node-index offset of a unit step along x, y, z */
    int32_t *t = m->tets;
    for (int64_t k = 0; k < nz; ++k)
        for (int64_t j = 0; j < ny; ++j)
            for (int64_t i = 0; i < nx; ++i) {
                const int64_t v0 = i + sx * j + sxy * k;
                for (int s = 0; s < 6; ++s) {
                    const int64_t v1 = v0 + step[k_perm[s][0]];
                    const int64_t v2 = v1 + step[k_perm[s][1]];
                    const int64_t v3 = v0 + 1 + sx + sxy;
                    t[0] = (int32_t)v0;
                    t[1] = (int32_t)(k_perm_sign[s] > 0 ? v1 : v2);
                    t[2] = (int32_t)(k_perm_sign[s] > 0 ? v2 : v1);
                    t[3] = (int32_t)v3;
                    t += 4;
                }
            }
    *out = m;
    return HS_OK;
}

hs_status hs_mesh_box_cells(const hs_box_params *p, int64_t cells[3])
{
    HS_CHECK(p != NULL && cells != NULL, HS_ERR_INTERNAL, "hs_mesh_box_cells: NULL argument");
    HS_CALL(check_length(p->lx, "lx"));
    HS_CALL(check_length(p->ly, "ly"));
    HS_CALL(check_length(p->lz, "lz"));
    HS_CALL(check_length(p->h, "h"));
    HS_CALL(cells_along(p->lx, p->h, "lx", &cells[0]));
    HS_CALL(cells_along(p->ly, p->h, "ly", &cells[1]));
    HS_CALL(cells_along(p->lz, p->h, "lz", &cells[2]));
    return HS_OK;
}

/* The coordinate of lattice index i of n cells over [0, l]: as create_structured (far end exact). */
static double lattice_x(double l, int64_t i, int64_t n) { return i == n ? l : l * (double)i / (double)n; }

/* A block's cells along one axis ([c0, c1)), its owned nodes ([lo, hi)), the candidate block's
 * widths (w) and the box's cells (n): what hs_mesh_create_box_part's layers read. */
typedef struct box_layer {
    int64_t c0[3], c1[3], lo[3], hi[3], w[3], n[3];
} box_layer;

/* The elements of cell layer k (z index) with a vertex in the owned block, in (j, i, s) order: their
 * count; with tets/egid non-NULL, their candidate-block vertices and global numbers written there and
 * their vertices marked used (cand = 0). Layers write disjoint elements; a shared vertex is marked
 * by several (atomic writes of one value). */
static int64_t layer_tets(const box_layer *b, int64_t k, int32_t *tets, int64_t *egid, int32_t *cand)
{
    const int64_t *c0 = b->c0, *c1 = b->c1, *lo = b->lo, *hi = b->hi, *w = b->w, *n = b->n;
    const int64_t wx = w[0], wxy = w[0] * w[1];
    const int64_t step[3] = {1, wx, wxy}; /* candidate-block offsets of unit steps */
    int64_t ne = 0;
    for (int64_t j = c0[1]; j < c1[1]; ++j)
        for (int64_t i = c0[0]; i < c1[0]; ++i) {
            const int64_t v0 = (i - c0[0]) + wx * (j - c0[1]) + wxy * (k - c0[2]);
            const int64_t cell = i + n[0] * (j + n[1] * k);
            for (int s = 0; s < 6; ++s) {
                const int64_t v1 = v0 + step[k_perm[s][0]];
                const int64_t v2 = v1 + step[k_perm[s][1]];
                const int64_t v[4] = {v0, k_perm_sign[s] > 0 ? v1 : v2, k_perm_sign[s] > 0 ? v2 : v1,
                                      v0 + 1 + wx + wxy};
                int mine = 0; /* a vertex in the owned block */
                for (int c = 0; c < 4 && !mine; ++c) {
                    const int64_t x = c0[0] + v[c] % wx, y = c0[1] + (v[c] / wx) % w[1], z = c0[2] + v[c] / wxy;
                    mine = x >= lo[0] && x < hi[0] && y >= lo[1] && y < hi[1] && z >= lo[2] && z < hi[2];
                }
                if (!mine) continue;
                if (tets) {
                    for (int c = 0; c < 4; ++c) {
                        tets[4 * (size_t)ne + (size_t)c] = (int32_t)v[c];
#pragma omp atomic write
                        cand[v[c]] = 0;
                    }
                    egid[ne] = 6 * cell + s; /* create_structured's element number */
                }
                ++ne;
            }
        }
    return ne;
}

hs_status hs_mesh_create_box_part(const hs_box_params *p, const int64_t lo[3], const int64_t hi[3], hs_mesh **out,
                                  int64_t **node_gid, int64_t **elem_gid)
{
    HS_CHECK(p != NULL && out != NULL && node_gid != NULL && elem_gid != NULL, HS_ERR_INTERNAL,
             "hs_mesh_create_box_part: NULL argument");
    *out = NULL;
    *node_gid = *elem_gid = NULL;
    HS_CHECK(!p->use_tetgen, HS_ERR_INTERNAL, "a part of the box is generated for the structured split only");
    int64_t n[3];
    HS_CALL(hs_mesh_box_cells(p, n));
    const double l[3] = {p->lx, p->ly, p->lz};
    int64_t c0[3], c1[3], w[3]; /* cells [c0, c1) along each axis; the nodes [c0, c1] (w per axis) */
    for (int a = 0; a < 3; ++a) {
        HS_CHECK(0 <= lo[a] && lo[a] < hi[a] && hi[a] <= n[a] + 1, HS_ERR_INTERNAL,
                 "box part: nodes [%lld, %lld) along axis %d of %lld", (long long)lo[a], (long long)hi[a], a,
                 (long long)n[a] + 1);
        c0[a] = lo[a] > 0 ? lo[a] - 1 : 0; /* a cell touches an owned node: cell index in [lo-1, hi-1] */
        c1[a] = hi[a] < n[a] ? hi[a] : n[a];
        w[a] = c1[a] - c0[a] + 1;
    }
    const int64_t sx = n[0] + 1, sxy = (n[0] + 1) * (n[1] + 1); /* global node strides */
    const int64_t wx = w[0], wxy = w[0] * w[1];                 /* the candidate block's */
    const int64_t n_cand = wxy * w[2], n_cells = (c1[0] - c0[0]) * (c1[1] - c0[1]) * (c1[2] - c0[2]);
    HS_CHECK(n_cand < INT32_MAX && 6 * n_cells < INT32_MAX, HS_ERR_MESH,
             "box part of %lld nodes and %lld tetrahedra: a rank's part is numbered in 32 bits; use more ranks",
             (long long)n_cand, (long long)(6 * n_cells));
    hs_status st = HS_OK;
    int32_t *cand = NULL, *tets = NULL;
    int64_t *egid = NULL, *ngid = NULL;
    hs_mesh *m = NULL;
    HS_CALL(HS_ALLOC(cand, (size_t)n_cand + 1, "box part nodes"));
    HS_CALL_GOTO(HS_ALLOC(tets, 24 * (size_t)n_cells + 4, "box part elements"), done);
    HS_CALL_GOTO(HS_ALLOC(egid, 6 * (size_t)n_cells + 1, "box part elements"), done);
    for (int64_t i = 0; i < n_cand; ++i) cand[i] = -1;
    /* each layer of cells along z (OpenMP): its elements counted, then written at the layer's offset,
     * in the serial loop's order (k, j, i, s) */
    const int64_t nk = c1[2] - c0[2];
    int64_t *first = NULL; /* [nk + 1] each layer's first element */
    HS_CALL_GOTO(HS_ALLOC(first, (size_t)nk + 1, "box part layers"), done);
    const box_layer ly = {{c0[0], c0[1], c0[2]}, {c1[0], c1[1], c1[2]}, {lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]},
                    {w[0], w[1], w[2]}, {n[0], n[1], n[2]}};
    if (n_cells > HS_OMP_MIN && omp_get_max_threads() > 1) {
#pragma omp parallel for schedule(static)
        for (int64_t k = 0; k < nk; ++k) first[k + 1] = layer_tets(&ly, c0[2] + k, NULL, NULL, NULL);
        for (int64_t k = 0; k < nk; ++k) first[k + 1] += first[k];
#pragma omp parallel for schedule(static)
        for (int64_t k = 0; k < nk; ++k)
            layer_tets(&ly, c0[2] + k, tets + 4 * (size_t)first[k], egid + first[k], cand);
    } else { /* one thread: the layers written one after another, no counting pass */
        for (int64_t k = 0; k < nk; ++k)
            first[k + 1] = first[k] + layer_tets(&ly, c0[2] + k, tets + 4 * (size_t)first[k], egid + first[k], cand);
    }
    const int32_t ne = (int32_t)first[nk];
    free(first);
    /* the used candidates in lattice order (= increasing global number) */
    int32_t nn = 0;
    for (int64_t i = 0; i < n_cand; ++i)
        if (cand[i] == 0) cand[i] = nn++;
    HS_CALL_GOTO(hs_mesh_alloc(nn, ne, &m), done);
    HS_CALL_GOTO(HS_ALLOC(ngid, (size_t)nn + 1, "box part nodes"), done);
#pragma omp parallel for schedule(static) if (n_cand > HS_OMP_MIN)
    for (int64_t i = 0; i < n_cand; ++i) {
        if (cand[i] < 0) continue;
        const int64_t x = c0[0] + i % wx, y = c0[1] + (i / wx) % w[1], z = c0[2] + i / wxy;
        const int32_t li = cand[i];
        double *xyz = m->xyz + 3 * (size_t)li;
        xyz[0] = lattice_x(l[0], x, n[0]);
        xyz[1] = lattice_x(l[1], y, n[1]);
        xyz[2] = lattice_x(l[2], z, n[2]);
        ngid[li] = x + sx * y + sxy * z;
        m->node_orig[li] = ngid[li] <= INT32_MAX ? (int32_t)ngid[li] : -1;
    }
#pragma omp parallel for schedule(static) if (ne > HS_OMP_MIN)
    for (int64_t q = 0; q < 4 * (int64_t)ne; ++q) m->tets[q] = cand[tets[q]];
    *out = m;
    *node_gid = ngid;
    *elem_gid = egid;
    m = NULL;
    ngid = egid = NULL;
done:
    hs_mesh_destroy(&m);
    free(ngid);
    free(egid);
    free(tets);
    free(cand);
    return st;
}

static hs_status create_tetgen(const hs_box_params *p, hs_mesh **out)
{
    /* Corner c = i + 2j + 4k sits at (i*lx, j*ly, k*lz). */
    double xyz[8][3];
    for (int c = 0; c < 8; ++c) {
        xyz[c][0] = (c & 1) ? p->lx : 0.0;
        xyz[c][1] = (c & 2) ? p->ly : 0.0;
        xyz[c][2] = (c & 4) ? p->lz : 0.0;
    }
    /* Six quads, counter-clockwise seen from outside (TetGen accepts either order). */
    static const int32_t facet_idx[24] = {0, 4, 6, 2, /* x = 0  */ 1, 3, 7, 5, /* x = lx */
                                          0, 1, 5, 4, /* y = 0  */ 2, 6, 7, 3, /* y = ly */
                                          0, 2, 3, 1, /* z = 0  */ 4, 5, 7, 6 /* z = lz */};
    static const int32_t facet_ptr[7] = {0, 4, 8, 12, 16, 20, 24};
    const hs_plc plc = {8, &xyz[0][0], 6, facet_ptr, facet_idx};
    /* Volume of the regular tet of edge h: a mesh at this bound has edges of about h. */
    const double max_volume = p->h * p->h * p->h / (6.0 * sqrt(2.0));
    /* A rough count guard before TetGen tries to allocate it: the volume bound alone implies
     * at least V / max_volume tets. */
    const double min_tets = p->lx * p->ly * p->lz / max_volume;
    HS_CHECK(min_tets <= (double)INT32_MAX, HS_ERR_MESH,
             "box mesh %g x %g x %g mm with h = %g mm would need at least %.4g tetrahedra, more "
             "than the %ld a 32-bit index allows; increase h",
             p->lx, p->ly, p->lz, p->h, min_tets, (long)INT32_MAX);
    hs_status st = hs_tetgen_mesh_plc(&plc, p->tetgen_radius_edge, max_volume, out);
    if (st != HS_OK) hs_error_prefix("box mesh via TetGen: ");
    return st;
}

hs_status hs_mesh_create_box(const hs_box_params *p, hs_mesh **out)
{
    HS_CHECK(p != NULL && out != NULL, HS_ERR_INTERNAL, "hs_mesh_create_box: NULL argument");
    *out = NULL;
    HS_CALL(check_length(p->lx, "lx"));
    HS_CALL(check_length(p->ly, "ly"));
    HS_CALL(check_length(p->lz, "lz"));
    HS_CALL(check_length(p->h, "h"));
    return p->use_tetgen ? create_tetgen(p, out) : create_structured(p, out);
}
