/* The parts of a file mesh that every rank reads a block of (sim/mesh_part_read.c:
 * hs_mesh_part_from_blocks), run under mpirun -np N (ctest: N = 1, 2, 3; label mpi). Every process
 * makes the same small mesh "file" in memory: a structured block of tetrahedra whose nodes and
 * elements are listed in a shuffled order, with nodes no element uses (first, in the middle, last),
 * region labels and a fibre per element; in a second case every element is negatively oriented and
 * the nodes too are shuffled (an element's vertices in any block). Each
 * rank cuts its blocks of it (node, element and fibre blocks of uneven, different sizes; in a third
 * case rank 0's node block is empty) and the ranks make their parts. The reference is what rank 0
 * would send: the whole mesh made by the serial readers' own assembly (hs_mesh_parts_finish: unused
 * nodes dropped and the others renumbered in file order, a wholly negative mesh turned around) sent
 * out by hs_mesh_part_scatter for the same owners. Checked:
 *  - the counts (used nodes, elements) and the owners: with "rows", the serial partition of the
 *    renumbered mesh (hs_partition_nodes_n), so a wrong renumbering or a wrong partition fails;
 *  - the views array for array and the local meshes (coordinates, elements, labels, fibres,
 *    node_orig) bit for bit; with reorder = 1 (local RCM) the same sets, the owned rows permuted
 *    within their buckets (interior, boundary), everything else by global number the same;
 *  - no rank allocated a mesh of the whole mesh's nodes (on 2 and 3 ranks);
 *  - a vertex out of range on one rank's block is an error on every rank, agreed.
 * With "ptscotch" (in a build with PT-Scotch) the same against the scatter for its owners.
 * hs_mesh_part_read on the second mesh written as openCARP files (.pts, .elem with labels, .lon;
 * mesh.scale 0.5): the parts, a box stimulus site's elements and the whole mesh's checkpoint
 * fingerprint against the serial build (hs_mesh_build with mesh.reorder = "none", scattered),
 * with the file's fibres and with constant ones under local RCM, and as TetGen files (1-based, mesh.source =
 * "tetgen", mesh.reorder = "sfc": local RCM too); fibers.type = "file", a site
 * covering no element and an inverted element (named by its number in the file) refused on every
 * rank, agreed.
 * With arguments `--bench N`: not a test; the seconds of hs_mesh_part_from_blocks on the N^3-cell
 * slab (N = 100: bench_1m's 1,030,301 nodes, 6M tetrahedra) cut in blocks, on this many ranks. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "hs_backend_mpi.h"
#include "hs_build_config.h"
#include "hs_mesh.h"
#include "hs_mesh_block.h"
#include "hs_mesh_build.h"
#include "hs_checkpoint.h"
#include "hs_mesh_part.h"
#include "hs_par.h"
#include "hs_partition.h"
#include "hs_test.h"
#include "hs_util.h"
#include "mesh_read_internal.h"

static int rank, size;

/* a deterministic stream of doubles in [0, 1) */
static uint64_t lcg_state = 88172645463325252ull;
static double lcg(void)
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(lcg_state >> 11) / 9007199254740992.0;
}

/* The mesh "file": n_file nodes (xyz), n_elems elements (tets: file node indices), labels, fibres. */
typedef struct file_mesh {
    int64_t n_file, n_elems;
    double *xyz;
    int64_t *tets;
    int32_t *region;
    double *fiber;
} file_mesh;

static double det6(const double *xyz, const int64_t *t)
{
    const double *a = xyz + 3 * t[0], *b = xyz + 3 * t[1], *c = xyz + 3 * t[2], *d = xyz + 3 * t[3];
    const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const double w[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
    return u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) + u[2] * (v[0] * w[1] - v[1] * w[0]);
}

/* n[0] x n[1] x n[2] cells of 6 tetrahedra; @p unused nodes no element uses at positions spread over
 * the file; the nodes shuffled when @p shuffle (else in lattice order), the elements always; every
 * element positive, or every one negative (@p negative). */
static void make_file(const int n[3], int unused, int shuffle, int negative, file_mesh *f)
{
    static const int perm[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
    const int64_t sx = n[0] + 1, sxy = (int64_t)(n[0] + 1) * (n[1] + 1), nl = sxy * (n[2] + 1);
    f->n_file = nl + unused;
    f->n_elems = 6 * (int64_t)n[0] * n[1] * n[2];
    f->xyz = malloc(sizeof(double) * 3 * (size_t)f->n_file);
    f->tets = malloc(sizeof(int64_t) * 4 * (size_t)f->n_elems);
    f->region = malloc(sizeof(int32_t) * (size_t)f->n_elems);
    f->fiber = malloc(sizeof(double) * 3 * (size_t)f->n_elems);
    /* file position of each lattice node: a shuffle of the positions that are not the unused ones */
    int64_t *pos = malloc(sizeof(int64_t) * (size_t)f->n_file);
    char *is_unused = calloc((size_t)f->n_file, 1);
    for (int k = 0; k < unused; ++k) is_unused[k == 0 ? 0 : k == unused - 1 ? f->n_file - 1 : k * f->n_file / unused] = 1;
    int64_t m = 0;
    for (int64_t i = 0; i < f->n_file; ++i)
        if (!is_unused[i]) pos[m++] = i;
    for (int64_t i = nl - 1; shuffle && i > 0; --i) {
        const int64_t j = (int64_t)(lcg() * (double)(i + 1));
        const int64_t t = pos[i];
        pos[i] = pos[j], pos[j] = t;
    }
    for (int64_t i = 0; i < f->n_file; ++i) /* the unused ones far away */
        if (is_unused[i]) f->xyz[3 * i] = f->xyz[3 * i + 1] = f->xyz[3 * i + 2] = 100.0 + (double)i;
    for (int64_t k = 0; k <= n[2]; ++k)
        for (int64_t j = 0; j <= n[1]; ++j)
            for (int64_t i = 0; i <= n[0]; ++i) {
                const int64_t v = i + sx * j + sxy * k;
                const double x[3] = {(double)i + 0.1 * lcg(), 0.9 * (double)j + 0.1 * lcg(), 1.1 * (double)k + 0.1 * lcg()};
                memcpy(f->xyz + 3 * pos[v], x, sizeof x);
            }
    int64_t *eo = malloc(sizeof(int64_t) * (size_t)f->n_elems); /* file position of each element */
    for (int64_t e = 0; e < f->n_elems; ++e) eo[e] = e;
    for (int64_t i = f->n_elems - 1; i > 0; --i) {
        const int64_t j = (int64_t)(lcg() * (double)(i + 1));
        const int64_t t = eo[i];
        eo[i] = eo[j], eo[j] = t;
    }
    const int64_t step[3] = {1, sx, sxy};
    int64_t e = 0;
    for (int64_t k = 0; k < n[2]; ++k)
        for (int64_t j = 0; j < n[1]; ++j)
            for (int64_t i = 0; i < n[0]; ++i) {
                const int64_t v0 = i + sx * j + sxy * k;
                for (int s = 0; s < 6; ++s, ++e) {
                    const int64_t v1 = v0 + step[perm[s][0]], v2 = v1 + step[perm[s][1]];
                    int64_t *t = f->tets + 4 * eo[e];
                    t[0] = pos[v0], t[1] = pos[v1], t[2] = pos[v2], t[3] = pos[v0 + 1 + sx + sxy];
                    if ((det6(f->xyz, t) < 0.0) != negative) {
                        const int64_t w = t[2];
                        t[2] = t[3], t[3] = w;
                    }
                }
            }
    for (int64_t i = 0; i < f->n_elems; ++i) {
        f->region[i] = (int32_t)((i * 7) % 5);
        double *d = f->fiber + 3 * i, s = 0.0;
        for (int c = 0; c < 3; ++c) d[c] = lcg() - 0.5, s += d[c] * d[c];
        for (int c = 0; c < 3; ++c) d[c] /= sqrt(s);
    }
    free(pos);
    free(is_unused);
    free(eo);
}

static void block_free(hs_mesh_block *b)
{
    free(b->xyz), free(b->tets), free(b->region), free(b->fiber);
    memset(b, 0, sizeof *b);
}

static void file_free(file_mesh *f)
{
    free(f->xyz), free(f->tets), free(f->region), free(f->fiber);
    memset(f, 0, sizeof *f);
}

/* Block q of P of n items, the blocks' sizes in the proportions w[0..P) (rank 0's first). */
static void cut(int64_t n, const double *w, int q, int64_t *lo, int64_t *hi)
{
    double tot = 0.0, before = 0.0;
    for (int k = 0; k < size; ++k) tot += w[k], before += k < q ? w[k] : 0.0;
    *lo = (int64_t)((double)n * before / tot);
    *hi = q == size - 1 ? n : (int64_t)((double)n * (before + w[q]) / tot);
}

/* This rank's blocks of @p f: node blocks in proportions wn, elements we, fibres wf (fibres: copies). */
static void make_block(const file_mesh *f, const double *wn, const double *we, const double *wf, int fibres,
                       hs_mesh_block *b)
{
    memset(b, 0, sizeof *b);
    int64_t lo, hi;
    b->n_nodes = f->n_file;
    b->n_elems = f->n_elems;
    cut(f->n_file, wn, rank, &lo, &hi);
    b->node0 = lo;
    b->nb_nodes = (int32_t)(hi - lo);
    b->xyz = malloc(sizeof(double) * 3 * (size_t)(hi - lo + 1));
    memcpy(b->xyz, f->xyz + 3 * lo, sizeof(double) * 3 * (size_t)(hi - lo));
    cut(f->n_elems, we, rank, &lo, &hi);
    b->elem0 = lo;
    b->nb_elems = (int32_t)(hi - lo);
    b->tets = malloc(sizeof(int64_t) * 4 * (size_t)(hi - lo + 1));
    b->region = malloc(sizeof(int32_t) * (size_t)(hi - lo + 1));
    memcpy(b->tets, f->tets + 4 * lo, sizeof(int64_t) * 4 * (size_t)(hi - lo));
    memcpy(b->region, f->region + lo, sizeof(int32_t) * (size_t)(hi - lo));
    b->has_fibers = fibres;
    if (fibres) {
        cut(f->n_elems, wf, rank, &lo, &hi);
        b->fiber0 = lo;
        b->nb_fibers = (int32_t)(hi - lo);
        b->fiber = malloc(sizeof(double) * 3 * (size_t)(hi - lo + 1));
        memcpy(b->fiber, f->fiber + 3 * lo, sizeof(double) * 3 * (size_t)(hi - lo));
    }
}

/* The whole mesh as a serial reader makes it from the file (meshes/mesh_read_file.c). */
static hs_mesh *reference_mesh(const file_mesh *f, int fibres)
{
    hs_mesh_parts p;
    memset(&p, 0, sizeof p);
    p.path = "test mesh";
    for (int64_t i = 0; i < f->n_file; ++i) HS_TEST_OK(hs_mesh_parts_add_node(&p, f->xyz + 3 * i));
    for (int64_t e = 0; e < f->n_elems; ++e) {
        const int32_t v[4] = {(int32_t)f->tets[4 * e], (int32_t)f->tets[4 * e + 1], (int32_t)f->tets[4 * e + 2],
                              (int32_t)f->tets[4 * e + 3]};
        HS_TEST_OK(hs_mesh_parts_add_tet(&p, v, f->region[e]));
    }
    if (fibres) {
        p.fiber = malloc(sizeof(double) * 3 * (size_t)f->n_elems);
        memcpy(p.fiber, f->fiber, sizeof(double) * 3 * (size_t)f->n_elems);
    }
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_parts_finish(&p, &m));
    hs_mesh_parts_free(&p);
    return m;
}

/* owner[n_global] of every node from the ranks' views (the test's own whole array) */
static int32_t *gather_owners(const hs_part_local *l, int64_t n_global)
{
    int *cnt = malloc(sizeof(int) * (size_t)size), *dsp = malloc(sizeof(int) * (size_t)size);
    int mine = l->n_owned;
    MPI_Allgather(&mine, 1, MPI_INT, cnt, 1, MPI_INT, MPI_COMM_WORLD);
    int tot = 0;
    for (int q = 0; q < size; ++q) dsp[q] = tot, tot += cnt[q];
    int64_t *all = malloc(sizeof(int64_t) * (size_t)(tot + 1));
    MPI_Allgatherv(l->l2g, mine, MPI_INT64_T, all, cnt, dsp, MPI_INT64_T, MPI_COMM_WORLD);
    int32_t *owner = malloc(sizeof(int32_t) * (size_t)(n_global + 1));
    for (int64_t i = 0; i < n_global; ++i) owner[i] = -1;
    int bad = tot != n_global;
    for (int q = 0; q < size; ++q)
        for (int k = 0; k < cnt[q]; ++k) {
            const int64_t g = all[dsp[q] + k];
            if (g < 0 || g >= n_global || owner[g] >= 0) bad = 1;
            else owner[g] = q;
        }
    HS_TEST_CHECK(!bad, "the views' owned nodes are not a partition of the %lld nodes (%d owned)",
                  (long long)n_global, tot);
    free(cnt), free(dsp), free(all);
    return owner;
}

static void same(const char *label, const void *a, const void *b, size_t bytes, const char *what)
{
    HS_TEST_CHECK((a == NULL) == (b == NULL) && (!a || memcmp(a, b, bytes) == 0), "%s, rank %d: %s differs", label,
                  rank, what);
}
#define SAME(a, b, n, what) same(label, (a), (b), sizeof *(a) * (size_t)(n), what)

static void same_csr(const char *label, const hs_csr *a, const hs_csr *b, const char *what)
{
    HS_TEST_CHECK((a == NULL) == (b == NULL), "%s, rank %d: %s present on one side", label, rank, what);
    if (!a || !b) return;
    HS_TEST_CHECK(a->n_rows == b->n_rows && a->n_cols == b->n_cols && a->nnz == b->nnz, "%s, rank %d: %s sizes",
                  label, rank, what);
    if (a->n_rows != b->n_rows || a->nnz != b->nnz) return;
    SAME(a->row_ptr, b->row_ptr, a->n_rows + 1, what);
    SAME(a->col, b->col, a->nnz, what);
}

static int cmp_i64(const void *x, const void *y)
{
    const int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* the sorted global numbers of l2g[lo, hi) */
static int64_t *sorted(const int64_t *l2g, int32_t lo, int32_t hi)
{
    int64_t *s = malloc(sizeof(int64_t) * (size_t)(hi - lo + 1));
    memcpy(s, l2g + lo, sizeof(int64_t) * (size_t)(hi - lo));
    qsort(s, (size_t)(hi - lo), sizeof *s, cmp_i64);
    return s;
}

/* @p got (from the blocks) against @p ref (the scatter): equal, or with @p reorder the owned rows
 * permuted within their buckets and everything else the same by global number. Returns 1 when the
 * owned rows' order differs from the reference's. */
static int compare(const char *label, const hs_backend_mpi_part *got, const hs_backend_mpi_part *ref, int reorder)
{
    const hs_part_local *a = got->l, *b = ref->l;
    const hs_mesh *ma = got->lmesh, *mb = ref->lmesh;
    HS_TEST_CHECK(a->n_global == b->n_global && a->n_interior == b->n_interior && a->n_owned == b->n_owned &&
                      a->n_ghost == b->n_ghost && a->n_elems == b->n_elems && a->n_nbrs == b->n_nbrs,
                  "%s, rank %d: view sizes (global %lld/%lld, interior %d/%d, owned %d/%d, ghost %d/%d, elems %d/%d, "
                  "nbrs %d/%d)", label, rank, (long long)a->n_global, (long long)b->n_global, a->n_interior,
                  b->n_interior, a->n_owned, b->n_owned, a->n_ghost, b->n_ghost, a->n_elems, b->n_elems, a->n_nbrs,
                  b->n_nbrs);
    if (a->n_owned != b->n_owned || a->n_ghost != b->n_ghost || a->n_elems != b->n_elems || a->n_nbrs != b->n_nbrs ||
        a->n_interior != b->n_interior)
        return 0;
    const int32_t nl = a->n_owned + a->n_ghost;
    HS_TEST_CHECK(ma->n_nodes == nl && mb->n_nodes == nl && ma->n_elems == a->n_elems, "%s, rank %d: mesh sizes",
                  label, rank);
    SAME(a->ghost_owner, b->ghost_owner, a->n_ghost, "ghost_owner");
    SAME(a->nbr, b->nbr, a->n_nbrs, "nbr");
    SAME(a->send_ptr, b->send_ptr, a->n_nbrs + 1, "send_ptr");
    SAME(a->recv_ptr, b->recv_ptr, a->n_nbrs + 1, "recv_ptr");
    SAME(a->l2g + a->n_owned, b->l2g + b->n_owned, a->n_ghost, "ghosts' l2g");
    if (!reorder) {
        SAME(a->elems, b->elems, a->n_elems, "elems");
        SAME(ma->region, mb->region, a->n_elems, "region");
        SAME(ma->fiber, mb->fiber, 3 * (size_t)a->n_elems, "fiber");
        SAME(a->l2g, b->l2g, nl, "l2g");
        SAME(a->tets, b->tets, 4 * (size_t)a->n_elems, "view tets");
        SAME(a->send_idx, b->send_idx, a->send_ptr[a->n_nbrs], "send_idx");
        same_csr(label, a->pattern, b->pattern, "pattern");
        same_csr(label, a->local_pattern, b->local_pattern, "local_pattern");
        SAME(ma->xyz, mb->xyz, 3 * (size_t)nl, "xyz");
        SAME(ma->tets, mb->tets, 4 * (size_t)a->n_elems, "mesh tets");
        SAME(ma->node_orig, mb->node_orig, nl, "node_orig");
        return 0;
    }
    /* reordered: the buckets hold the same nodes; every array by global number the same */
    int64_t *sa = sorted(a->l2g, 0, a->n_interior), *sb = sorted(b->l2g, 0, b->n_interior);
    SAME(sa, sb, a->n_interior, "interior set");
    free(sa), free(sb);
    sa = sorted(a->l2g, a->n_interior, a->n_owned), sb = sorted(b->l2g, b->n_interior, b->n_owned);
    SAME(sa, sb, a->n_owned - a->n_interior, "boundary set");
    free(sa), free(sb);
    /* ref's local index of each of got's nodes */
    int32_t *map = malloc(sizeof(int32_t) * (size_t)(nl + 1));
    int64_t *pairs = malloc(sizeof(int64_t) * 2 * (size_t)(nl + 1));
    for (int32_t i = 0; i < nl; ++i) pairs[2 * i] = b->l2g[i], pairs[2 * i + 1] = i;
    qsort(pairs, (size_t)nl, 2 * sizeof(int64_t), cmp_i64);
    int bad = 0;
    for (int32_t i = 0; i < nl; ++i) {
        int32_t lo = 0, hi = nl;
        while (lo < hi) {
            const int32_t mid = (lo + hi) / 2;
            if (pairs[2 * mid] < a->l2g[i]) lo = mid + 1;
            else hi = mid;
        }
        map[i] = lo < nl && pairs[2 * lo] == a->l2g[i] ? (int32_t)pairs[2 * lo + 1] : -1;
        bad += map[i] < 0;
    }
    HS_TEST_CHECK(!bad, "%s, rank %d: %d nodes not in the reference's part", label, rank, bad);
    for (int32_t i = 0; i < nl && !bad; ++i) {
        const int32_t j = map[i];
        bad += memcmp(ma->xyz + 3 * (size_t)i, mb->xyz + 3 * (size_t)j, 3 * sizeof(double)) != 0;
        bad += ma->node_orig[i] != mb->node_orig[j];
        bad += (i < a->n_interior) != (j < b->n_interior) || (i < a->n_owned) != (j < b->n_owned);
    }
    HS_TEST_CHECK(!bad, "%s, rank %d: nodes' coordinates, node_orig or buckets differ by global number", label, rank);
    /* the elements: ref's (increasing global number) in the keyed view's order (hs_part_local_elem_order:
     * by smallest local node, then global number), each with its vertices, region and fibre */
    for (int32_t m = 0; m < a->n_elems && !bad; ++m) {
        const int64_t *hit = bsearch(&a->elems[m], b->elems, (size_t)b->n_elems, sizeof(int64_t), cmp_i64);
        if (!hit) {
            ++bad;
            break;
        }
        const int32_t e = (int32_t)(hit - b->elems);
        for (int c = 0; c < 4; ++c) {
            bad += map[a->tets[4 * (size_t)m + c]] != b->tets[4 * (size_t)e + c];
            bad += ma->tets[4 * (size_t)m + c] != a->tets[4 * (size_t)m + c];
        }
        bad += ma->region[m] != mb->region[e];
        bad += (ma->fiber == NULL) != (mb->fiber == NULL) ||
               (ma->fiber && memcmp(ma->fiber + 3 * (size_t)m, mb->fiber + 3 * (size_t)e, 3 * sizeof(double)) != 0);
    }
    HS_TEST_CHECK(!bad, "%s, rank %d: elements, their vertices, regions or fibres differ by global number", label, rank);
    {
        int unordered = 0;
        int32_t prev = -1;
        for (int32_t m = 0; m < a->n_elems; ++m) {
            const int32_t *t = a->tets + 4 * (size_t)m;
            int32_t mn = t[0];
            for (int c = 1; c < 4; ++c) mn = t[c] < mn ? t[c] : mn;
            unordered += m > 0 && !(mn > prev || (mn == prev && a->elems[m] > a->elems[m - 1]));
            prev = mn;
        }
        HS_TEST_CHECK(unordered == 0, "%s, rank %d: %d elements out of (smallest local node, global number) order",
                      label, rank, unordered);
    }
    for (int32_t k = 0; k < a->send_ptr[a->n_nbrs] && !bad; ++k) bad += map[a->send_idx[k]] != b->send_idx[k];
    HS_TEST_CHECK(!bad, "%s, rank %d: send lists differ by global number", label, rank);
    int permuted = 0;
    for (int32_t i = 0; i < a->n_owned; ++i) permuted |= map[i] != i;
    free(map), free(pairs);
    return permuted;
}

/* One case: the blocks of @p f made into parts by @p p, against the scatter of the serial mesh. */
static void run_case(const char *label, const file_mesh *f, const double *wn, const double *we, const double *wf,
                     const hs_partitioner *p, int reorder, int check_peak)
{
    hs_mesh_block b;
    make_block(f, wn, we, wf, 1, &b);
    hs_backend_mpi_part got, ref;
    memset(&got, 0, sizeof got);
    memset(&ref, 0, sizeof ref);
    hs_mesh *counts = NULL;
    const int32_t peak0 = hs_mesh_alloc_peak_nodes();
    HS_TEST_OK(hs_mesh_part_from_blocks(&b, p, reorder, &got, &counts));
    block_free(&b);
    if (!counts || !got.l) {
        HS_TEST_CHECK(0, "%s: no part", label);
        return;
    }
    const int32_t peak = hs_mesh_alloc_peak_nodes();
    hs_mesh *m = reference_mesh(f, 1);
    HS_TEST_CHECK(counts->n_nodes == m->n_nodes && counts->n_elems == m->n_elems && counts->xyz == NULL &&
                      got.n_elems_global == m->n_elems && got.l->n_global == m->n_nodes,
                  "%s, rank %d: counts %d nodes, %d elements (global %lld), the serial reader's %d, %d", label, rank,
                  (int)counts->n_nodes, (int)counts->n_elems, (long long)got.n_elems_global, (int)m->n_nodes,
                  (int)m->n_elems);
    if (size > 1 && check_peak) /* (a part of a mesh whose rows are shuffled may span it all) */
        HS_TEST_CHECK(peak < m->n_nodes && peak0 < m->n_nodes, "%s, rank %d: a mesh of %d nodes allocated (the whole "
                      "mesh has %d)", label, rank, (int)peak, (int)m->n_nodes);
    int32_t *owner = gather_owners(got.l, m->n_nodes);
    if (!strcmp(p->name, "rows")) { /* the serial partition of the renumbered mesh */
        int32_t *want = malloc(sizeof(int32_t) * (size_t)m->n_nodes);
        HS_TEST_OK(hs_partition_nodes_n(p, NULL, m->n_nodes, size, want));
        HS_TEST_CHECK(memcmp(want, owner, sizeof(int32_t) * (size_t)m->n_nodes) == 0,
                      "%s, rank %d: owners differ from the serial rows partition", label, rank);
        free(want);
    }
    uint64_t fp = 0;
    HS_TEST_OK(hs_mesh_part_scatter(m, NULL, NULL, owner, m->n_nodes, NULL, 0, &fp, &ref));
    int permuted = ref.l ? compare(label, &got, &ref, reorder) : 0;
    MPI_Allreduce(MPI_IN_PLACE, &permuted, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    HS_TEST_CHECK(!reorder || permuted, "%s: local RCM kept every rank's rows in global order", label);
    hs_backend_mpi_part_free(&got);
    hs_backend_mpi_part_free(&ref);
    hs_mesh_destroy(&counts);
    hs_mesh_destroy(&m);
    free(owner);
}

/* ---- hs_mesh_part_read: the same mesh as openCARP files (um), read in blocks by every rank ---- */

/* rank 0 writes @p f as DIR/m.pts, m.elem (labels), m.lon; every rank gets DIR */
static void write_opencarp(const file_mesh *f, char *dir, size_t n)
{
    if (rank == 0) {
        snprintf(dir, n, "/tmp/hs_test_mesh_part_read_XXXXXX");
        if (!mkdtemp(dir)) dir[0] = '\0';
        char path[512];
        snprintf(path, sizeof path, "%s/m.pts", dir);
        FILE *o = fopen(path, "w");
        if (o) {
            fprintf(o, "%lld\n", (long long)f->n_file);
            for (int64_t i = 0; i < f->n_file; ++i)
                fprintf(o, "%.17g %.17g %.17g\n", f->xyz[3 * i], f->xyz[3 * i + 1], f->xyz[3 * i + 2]);
            fclose(o);
        }
        snprintf(path, sizeof path, "%s/m.elem", dir);
        o = fopen(path, "w");
        if (o) {
            fprintf(o, "%lld\n", (long long)f->n_elems);
            for (int64_t e = 0; e < f->n_elems; ++e)
                fprintf(o, "Tt %lld %lld %lld %lld %d\n", (long long)f->tets[4 * e], (long long)f->tets[4 * e + 1],
                        (long long)f->tets[4 * e + 2], (long long)f->tets[4 * e + 3], (int)f->region[e]);
            fclose(o);
        }
        snprintf(path, sizeof path, "%s/m.lon", dir);
        o = fopen(path, "w");
        if (o) {
            fprintf(o, "1\n");
            for (int64_t e = 0; e < f->n_elems; ++e)
                fprintf(o, "%.17g %.17g %.17g\n", f->fiber[3 * e], f->fiber[3 * e + 1], f->fiber[3 * e + 2]);
            fclose(o);
        }
    }
    MPI_Bcast(dir, (int)n, MPI_CHAR, 0, MPI_COMM_WORLD);
}

/* rank 0 writes @p f as TetGen files DIR/t.node, t.ele (1-based, the label as the element attribute) */
static void write_tetgen(const file_mesh *f, const char *dir)
{
    if (rank == 0) {
        char path[512];
        snprintf(path, sizeof path, "%s/t.node", dir);
        FILE *o = fopen(path, "w");
        if (o) {
            fprintf(o, "%lld 3 0 0\n", (long long)f->n_file);
            for (int64_t i = 0; i < f->n_file; ++i)
                fprintf(o, "%lld %.17g %.17g %.17g\n", (long long)i + 1, f->xyz[3 * i], f->xyz[3 * i + 1],
                        f->xyz[3 * i + 2]);
            fclose(o);
        }
        snprintf(path, sizeof path, "%s/t.ele", dir);
        o = fopen(path, "w");
        if (o) {
            fprintf(o, "%lld 4 1\n", (long long)f->n_elems);
            for (int64_t e = 0; e < f->n_elems; ++e)
                fprintf(o, "%lld %lld %lld %lld %lld %d\n", (long long)e + 1, (long long)f->tets[4 * e] + 1,
                        (long long)f->tets[4 * e + 1] + 1, (long long)f->tets[4 * e + 2] + 1,
                        (long long)f->tets[4 * e + 3] + 1, (int)f->region[e]);
            fclose(o);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void remove_opencarp(const char *dir)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0 || !dir[0]) return;
    const char *name[] = {"m.pts", "m.elem", "m.lon", "t.node", "t.ele"};
    char path[512];
    for (int k = 0; k < 5; ++k) {
        snprintf(path, sizeof path, "%s/%s", dir, name[k]);
        remove(path); /* (the TetGen files may be absent) */
    }
    rmdir(dir);
}

/* mesh.source = "file" (openCARP m.*) or, with @p tetgen, "tetgen" (t.node, t.ele) */
static void spec_file(hs_mesh_spec *spec, const char *dir, int tetgen, hs_fiber_kind fibers, hs_reorder_kind reorder)
{
    memset(spec, 0, sizeof *spec);
    spec->source = hs_registry_find(hs_mesh_sources(), tetgen ? "tetgen" : "file");
    if (tetgen) snprintf(spec->file, sizeof spec->file, "%s/t", dir);
    else snprintf(spec->file, sizeof spec->file, "%s/m.elem", dir);
    spec->scale = 0.5;
    spec->box.h = 1.0;
    spec->reorder = reorder;
    spec->fibers = fibers;
    spec->fiber_dir[0] = 1.0, spec->fiber_dir[1] = 2.0, spec->fiber_dir[2] = 2.0;
    snprintf(spec->fiber_location, sizeof spec->fiber_location, "auto");
}

/* One read: its parts, counts, fingerprint and sites against the serial build of the same spec with
 * mesh.reorder = "none" sent out by hs_mesh_part_scatter for the same owners. */
static void read_case(const char *label, const char *dir, int tetgen, hs_fiber_kind fibers, hs_reorder_kind reorder,
                      const hs_partitioner *p)
{
    hs_mesh_spec spec;
    spec_file(&spec, dir, tetgen, fibers, reorder);
    hs_stimulus_cfg site;
    memset(&site, 0, sizeof site);
    site.shape = HS_STIM_BOX;
    site.max[0] = site.max[1] = site.max[2] = 1.2; /* mm: the corner of the block, scaled by 0.5 */
    site.duration = 1.0;
    site.strength = 1.0;
    hs_backend_mpi_part got, ref;
    memset(&ref, 0, sizeof ref);
    hs_mesh *counts = NULL, *m = NULL;
    hs_stim_set *sites = NULL, *stim = NULL;
    hs_mesh_build_info info;
    HS_TEST_OK(hs_mesh_part_read(&spec, p, &site, 1, 1, &got, &counts, &sites, &info));
    if (!counts) return;
    spec.reorder = HS_REORDER_NONE;
    HS_TEST_OK(hs_mesh_build(&spec, &m, NULL));
    if (!m) return;
    HS_TEST_CHECK(counts->n_nodes == m->n_nodes && counts->n_elems == m->n_elems, "%s: counts", label);
    HS_TEST_CHECK(counts->fingerprint == hs_mesh_fingerprint(m), "%s, rank %d: fingerprint %016llx, the serial "
                  "mesh's %016llx", label, rank, (unsigned long long)counts->fingerprint,
                  (unsigned long long)hs_mesh_fingerprint(m));
    HS_TEST_OK(hs_stim_set_create(m, &site, 1, &stim));
    int32_t *owner = gather_owners(got.l, m->n_nodes);
    uint64_t fp = 0;
    HS_TEST_OK(hs_mesh_part_scatter(m, stim, NULL, owner, m->n_nodes, &site, 1, &fp, &ref));
    int permuted = ref.l ? compare(label, &got, &ref, reorder != HS_REORDER_NONE) : 0;
    MPI_Allreduce(MPI_IN_PLACE, &permuted, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    HS_TEST_CHECK(reorder == HS_REORDER_NONE || permuted, "%s: local RCM kept every rank's rows in global order",
                  label);
    if (ref.lstim && got.lstim) {
        SAME(got.lstim->elem_ptr, ref.lstim->elem_ptr, 2, "site elements' count");
        /* the same elements by global number (local RCM orders a view's elements by local node), each
         * site's local indices ascending */
        const int32_t ns = ref.lstim->elem_ptr[1] < got.lstim->elem_ptr[1] ? ref.lstim->elem_ptr[1] : got.lstim->elem_ptr[1];
        int64_t *ga = malloc(sizeof(int64_t) * ((size_t)ns + 1)), *gb = malloc(sizeof(int64_t) * ((size_t)ns + 1));
        int bad = 0;
        for (int32_t k = 0; k < ns; ++k) {
            ga[k] = got.l->elems[got.lstim->elem[k]];
            gb[k] = ref.l->elems[ref.lstim->elem[k]];
            bad += k > 0 && !(got.lstim->elem[k] > got.lstim->elem[k - 1]);
        }
        qsort(ga, (size_t)ns, sizeof *ga, cmp_i64);
        HS_TEST_CHECK(bad == 0, "%s, rank %d: site elements not ascending", label, rank);
        SAME(ga, gb, ns, "site elements");
        free(ga), free(gb);
    }
    HS_TEST_CHECK(sites && sites->n_sites == 1 && sites->elem_ptr[1] == 0, "%s: the site set without elements",
                  label);
    free(owner);
    hs_backend_mpi_part_free(&got);
    hs_backend_mpi_part_free(&ref);
    hs_stim_set_destroy(&sites);
    hs_stim_set_destroy(&stim);
    hs_mesh_destroy(&counts);
    hs_mesh_destroy(&m);
}

static void read_tests(const file_mesh *f, const file_mesh *positive)
{
    char dir[256] = "";
    write_opencarp(f, dir, sizeof dir);
    HS_TEST_CHECK(dir[0], "rank %d: no directory for the mesh files", rank);
    if (!dir[0]) return;
    const hs_partitioner *p = NULL;
    HS_TEST_OK(hs_partitioner_lookup("parallel.partition", "rows", &p));
    read_case("read: fibres from the mesh", dir, 0, HS_FIBERS_AUTO, HS_REORDER_NONE, p);
    read_case("read: constant fibres, local RCM", dir, 0, HS_FIBERS_CONSTANT, HS_REORDER_RCM, p);
    write_tetgen(f, dir); /* mesh.source = "tetgen" (1-based files, mesh.file the prefix), mesh.reorder = "sfc" */
    read_case("read: TetGen files, local RCM", dir, 1, HS_FIBERS_AUTO, HS_REORDER_SFC, p);
    /* refusals, on every rank with one message */
    hs_mesh_spec spec;
    spec_file(&spec, dir, 0, HS_FIBERS_FILE, HS_REORDER_NONE);
    hs_backend_mpi_part got;
    hs_mesh *counts = NULL;
    hs_stim_set *sites = NULL;
    hs_mesh_build_info info;
    hs_status st = hs_mesh_part_read(&spec, p, NULL, 0, 0, &got, &counts, &sites, &info);
    HS_TEST_CHECK(st == HS_ERR_CONFIG && hs_par_agreed() && strstr(hs_error_message(), "fibers.type") &&
                      strstr(hs_error_message(), "parallel.read") && !counts,
                  "rank %d: fibers.type = \"file\": status %d, %s", rank, (int)st, hs_error_message());
    hs_error_clear();
    spec_file(&spec, dir, 0, HS_FIBERS_AUTO, HS_REORDER_NONE);
    hs_stimulus_cfg away;
    memset(&away, 0, sizeof away);
    away.shape = HS_STIM_SPHERE;
    away.center[0] = away.center[1] = away.center[2] = -50.0;
    away.radius = 1.0;
    st = hs_mesh_part_read(&spec, p, &away, 1, 0, &got, &counts, &sites, &info);
    HS_TEST_CHECK(st == HS_ERR_CONFIG && hs_par_agreed() && strstr(hs_error_message(), "stimulus [0]") && !counts &&
                      !sites,
                  "rank %d: a site covering no element: status %d, %s", rank, (int)st, hs_error_message());
    hs_error_clear();
    remove_opencarp(dir);
    /* one element inverted: the checks of the parts name it by its number in the file, and its nodes */
    file_mesh bad = *positive;
    const int64_t k = bad.n_elems / 3;
    bad.tets = malloc(sizeof(int64_t) * 4 * (size_t)bad.n_elems);
    memcpy(bad.tets, positive->tets, sizeof(int64_t) * 4 * (size_t)bad.n_elems);
    const int64_t w = bad.tets[4 * k + 2];
    bad.tets[4 * k + 2] = bad.tets[4 * k + 3], bad.tets[4 * k + 3] = w;
    write_opencarp(&bad, dir, sizeof dir);
    spec_file(&spec, dir, 0, HS_FIBERS_AUTO, HS_REORDER_NONE);
    char want[160];
    snprintf(want, sizeof want, "element %lld (nodes %lld %lld %lld %lld) is inverted", (long long)k,
             (long long)bad.tets[4 * k], (long long)bad.tets[4 * k + 1], (long long)bad.tets[4 * k + 2],
             (long long)bad.tets[4 * k + 3]);
    st = hs_mesh_part_read(&spec, p, NULL, 0, 0, &got, &counts, &sites, &info);
    HS_TEST_CHECK(st == HS_ERR_MESH && hs_par_agreed() && strstr(hs_error_message(), want) && !counts,
                  "rank %d: an inverted element: status %d, %s (expected \"%s\")", rank, (int)st, hs_error_message(),
                  want);
    hs_error_clear();
    free(bad.tets);
    remove_opencarp(dir);
}

/* GB of /proc/self/status's @p key (VmRSS, VmHWM); -1 when unreadable */
static double status_gb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double kb = -1.0;
    const size_t n = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, n) && line[n] == ':') kb = atof(line + n + 1);
    if (f) fclose(f);
    return kb < 0.0 ? -1.0 : kb / 1048576.0;
}

/* reset VmHWM to the current resident size (Linux: clear_refs 5); 0 when not possible */
static int reset_peak(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f) return 0;
    const int ok = fputs("5", f) >= 0;
    return fclose(f) == 0 && ok;
}

static int bench(int n)
{
    file_mesh f;
    const int cells[3] = {n, n, n};
    make_file(cells, 0, 0, 0, &f);
    double *w = malloc(sizeof(double) * (size_t)size);
    for (int q = 0; q < size; ++q) w[q] = 1.0;
    hs_mesh_block b;
    make_block(&f, w, w, w, 1, &b);
    const hs_partitioner *p = NULL;
    HS_TEST_OK(hs_partitioner_lookup("parallel.partition", "rows", &p));
    for (int reorder = 0; reorder < 2 && p; ++reorder) {
        hs_backend_mpi_part got;
        hs_mesh *counts = NULL;
        const int peak = reset_peak();
        const double rss0 = status_gb("VmRSS");
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        HS_TEST_OK(hs_mesh_part_from_blocks(&b, p, reorder, &got, &counts));
        double t = MPI_Wtime() - t0, tmax = 0.0;
        double grow = peak ? status_gb("VmHWM") - rss0 : -1.0, gmax = 0.0;
        MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(&grow, &gmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0 && counts)
            printf("hs_mesh_part_from_blocks: %d nodes, %d tetrahedra (fibres per element), %d ranks, reorder %d: "
                   "%.2f s (slowest rank; on rank 0 partition + view %.2f s, exchanges %.2f s); peak resident "
                   "%.2f GB above the blocks' (largest rank; -1: not measurable here)\n", (int)counts->n_nodes,
                   (int)counts->n_elems, size, reorder, tmax, got.partition, got.scatter, gmax);
        hs_backend_mpi_part_free(&got);
        hs_mesh_destroy(&counts);
    }
    block_free(&b);
    /* beside it, rank 0's path: the serial readers' assembly of the whole mesh, rows, hs_mesh_part_scatter */
    if (p) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        hs_mesh *m = rank == 0 ? reference_mesh(&f, 1) : NULL;
        int32_t nn = m ? m->n_nodes : 0;
        MPI_Bcast(&nn, 1, MPI_INT32_T, 0, MPI_COMM_WORLD);
        int32_t *owner = rank == 0 ? malloc(sizeof(int32_t) * (size_t)nn) : NULL;
        if (rank == 0) HS_TEST_OK(hs_partition_nodes_n(p, NULL, nn, size, owner));
        hs_backend_mpi_part ref;
        uint64_t fp = 0;
        HS_TEST_OK(hs_mesh_part_scatter(m, NULL, NULL, owner, nn, NULL, 0, &fp, &ref));
        double t = MPI_Wtime() - t0, tmax = 0.0;
        MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("rank 0 assembles the whole mesh and sends the parts (hs_mesh_part_scatter): %.2f s\n", tmax);
        hs_backend_mpi_part_free(&ref);
        hs_mesh_destroy(&m);
        free(owner);
    }
    file_free(&f);
    free(w);
    return 0;
}

int main(int argc, char **argv)
{
    if (hs_par_init(&argc, &argv) != HS_OK || !hs_par_active()) {
        fprintf(stderr, "test_mesh_part_read: run it under mpirun (%s)\n", hs_error_message());
        return 1;
    }
    rank = hs_par_rank();
    size = hs_par_size();
    hs_verbosity = 0; /* silent: the readers' notes on unused nodes and orientation */
    if (argc >= 3 && !strcmp(argv[1], "--bench")) {
        bench(atoi(argv[2]));
        hs_par_finalize();
        HS_TEST_RETURN();
    }
    /* block proportions: nodes growing with the rank, elements shrinking, fibres alternating */
    double wn[8], we[8], wf[8], wz[8];
    for (int q = 0; q < size && q < 8; ++q) {
        wn[q] = 1.0 + q;
        we[q] = (double)(size - q) + 0.5;
        wf[q] = q % 2 ? 3.0 : 1.0;
        wz[q] = q == 0 && size > 1 ? 0.0 : 1.0 + q; /* rank 0 without nodes */
    }
    if (size > 8) {
        if (rank == 0) fprintf(stderr, "test_mesh_part_read: at most 8 ranks\n");
        hs_par_finalize();
        return 1;
    }
    file_mesh pos, neg;
    const int cells[3] = {5, 3, 4};
    make_file(cells, 3, 0, 0, &pos); /* the nodes in lattice order: a rows part is a slab */
    make_file(cells, 0, 1, 1, &neg);
    const char *names[] = {"rows", "ptscotch"};
    for (int k = 0; k < 2; ++k) {
        const hs_partitioner *p = NULL;
        if (hs_partitioner_lookup("parallel.partition", names[k], &p) != HS_OK) { /* not built here */
            hs_error_clear();
            continue;
        }
        char label[96];
        for (int reorder = 0; reorder < 2; ++reorder) {
            snprintf(label, sizeof label, "%s, reorder %d, unused nodes", names[k], reorder);
            run_case(label, &pos, wn, we, wf, p, reorder, k == 0 && reorder == 0); /* the first case */
            snprintf(label, sizeof label, "%s, reorder %d, every element negative", names[k], reorder);
            run_case(label, &neg, wf, wn, we, p, reorder, 0);
        }
        if (k == 0) { /* an empty node block */
            snprintf(label, sizeof label, "%s, rank 0 without nodes", names[k]);
            run_case(label, &neg, wz, we, wn, p, 0, 0);
        }
    }
    /* blocks large enough for the core's loops to run on the threads (HS_OMP_MIN: run with OMP_NUM_THREADS > 1),
     * the shuffled, wholly negative mesh: the same parts as the scatter's */
    file_mesh big;
    {
        const int bc[3] = {30, 22, 18};
        make_file(bc, 5, 1, 1, &big);
        const hs_partitioner *p = NULL;
        HS_TEST_OK(hs_partitioner_lookup("parallel.partition", "rows", &p));
        for (int reorder = 0; reorder < 2; ++reorder) {
            char label[96];
            snprintf(label, sizeof label, "rows, reorder %d, %lld tetrahedra", reorder, (long long)big.n_elems);
            run_case(label, &big, wn, we, wf, p, reorder, 0);
        }
    }
    /* a vertex out of range in the last rank's block: an error on every rank, agreed; two in it, the first named */
    {
        const hs_partitioner *p = NULL;
        HS_TEST_OK(hs_partitioner_lookup("parallel.partition", "rows", &p));
        hs_mesh_block b;
        make_block(&big, wn, we, wf, 1, &b);
        const int32_t e1 = b.nb_elems / 4, e2 = 3 * (b.nb_elems / 4);
        if (rank == size - 1 && b.nb_elems > 0) {
            b.tets[4 * (size_t)e2 + 1] = big.n_file;
            b.tets[4 * (size_t)e1 + 2] = -1;
        }
        hs_backend_mpi_part got;
        hs_mesh *counts = NULL;
        const hs_status st = hs_mesh_part_from_blocks(&b, p, 0, &got, &counts);
        char want[128];
        snprintf(want, sizeof want, "tetrahedron %lld (0-based, in file order) refers to node -1 (0-based)",
                 (long long)(b.elem0 + e1));
        HS_TEST_CHECK(st == HS_ERR_MESH && hs_par_agreed() && (rank != size - 1 || strstr(hs_error_message(), want)) &&
                          counts == NULL && got.l == NULL,
                      "rank %d: two vertices out of range: status %d, %s (expected %s)", rank, (int)st,
                      hs_error_message(), want);
        hs_error_clear();
        block_free(&b);
    }
    file_free(&big);
    /* a vertex out of range in the last rank's block: an error on every rank, agreed */
    {
        const hs_partitioner *p = NULL;
        HS_TEST_OK(hs_partitioner_lookup("parallel.partition", "rows", &p));
        hs_mesh_block b;
        make_block(&pos, wn, we, wf, 1, &b);
        if (rank == size - 1 && b.nb_elems > 0) b.tets[4 * (size_t)b.nb_elems - 1] = pos.n_file;
        hs_backend_mpi_part got;
        hs_mesh *counts = NULL;
        const hs_status st = hs_mesh_part_from_blocks(&b, p, 0, &got, &counts);
        HS_TEST_CHECK(st == HS_ERR_MESH && hs_par_agreed() && strstr(hs_error_message(), "refers to node") &&
                          counts == NULL && got.l == NULL,
                      "rank %d: a vertex out of range: status %d, %s", rank, (int)st, hs_error_message());
        hs_error_clear();
        block_free(&b);
    }
    read_tests(&neg, &pos);
    file_free(&pos);
    file_free(&neg);
    int fails = hs_test_failures, all = 0;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    hs_par_finalize();
    return all ? 1 : 0;
}
