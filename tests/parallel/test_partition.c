/* Partitioners and local views on a structured box: every node owned once, every element of an
 * owned node held with the right local nodes, local rows equal to the global rows, interior rows
 * free of ghosts, send lists equal to the neighbours' ghost lists, the edge cut counted from the
 * elements, PCSR-I's cut on the box equal to the number of Kuhn edges between two node layers, the
 * balance bounds of PCSR-I / PCSR-II, and METIS beating PCSR-I's cut; the view built from the
 * elements alone (no global pattern) equal to the pattern's, array for array; the "box" partition:
 * each rank's generated part of the box gives the view the global mesh gives for the same owners,
 * array for array, with coordinates bit for bit, and holds at most its block plus one layer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_build_config.h"
#include "hs_mesh.h"
#include "hs_partition.h"
#include "hs_test.h"
#include "hs_util.h"

/* edges {i<j} of elements whose ends differ in part, counted without the pattern */
static int64_t cut_from_elements(const hs_mesh *m, const int32_t *part)
{
    /* mark each pair once in a hash-free way: n is small, use an n x n bitmap */
    const size_t n = (size_t)m->n_nodes;
    unsigned char *seen = calloc(n * n, 1);
    int64_t cut = 0;
    for (int32_t e = 0; e < m->n_elems; ++e)
        for (int a = 0; a < 4; ++a)
            for (int b = 0; b < 4; ++b) {
                const int32_t i = m->tets[4 * e + a], j = m->tets[4 * e + b];
                if (i >= j || seen[(size_t)i * n + j]) continue;
                seen[(size_t)i * n + j] = 1;
                cut += part[i] != part[j];
            }
    free(seen);
    return cut;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* the view built from the elements alone (hs_part_local_create_elems) is the pattern's, array
 * for array */
#define SAME(x, n) (memcmp(a->x, b->x, sizeof(*a->x) * (size_t)(n)) == 0)
static void check_same_view(const hs_part_local *a, const hs_part_local *b, const char *name, int P)
{
    HS_TEST_CHECK(a->rank == b->rank && a->n_ranks == b->n_ranks && a->n_global == b->n_global &&
                      a->n_interior == b->n_interior && a->n_owned == b->n_owned && a->n_ghost == b->n_ghost &&
                      a->n_elems == b->n_elems && a->n_nbrs == b->n_nbrs,
                  "%s P=%d rank %d: the view from the elements has other sizes", name, P, a->rank);
    if (a->n_owned != b->n_owned || a->n_ghost != b->n_ghost || a->n_elems != b->n_elems || a->n_nbrs != b->n_nbrs)
        return;
    const int32_t nl = a->n_owned + a->n_ghost, nn = a->n_nbrs;
    HS_TEST_CHECK(SAME(l2g, nl) && SAME(ghost_owner, a->n_ghost) && SAME(elems, a->n_elems) &&
                      SAME(tets, 4 * (size_t)a->n_elems) && SAME(nbr, nn) && SAME(send_ptr, nn + 1) &&
                      SAME(recv_ptr, nn + 1) && SAME(send_idx, a->send_ptr[nn]),
                  "%s P=%d rank %d: the view from the elements differs (numbering, elements or lists)", name, P,
                  a->rank);
    const hs_csr *x = a->pattern, *y = b->pattern;
    HS_TEST_CHECK(x->n_rows == y->n_rows && x->n_cols == y->n_cols && x->nnz == y->nnz &&
                      memcmp(x->row_ptr, y->row_ptr, sizeof(int32_t) * ((size_t)x->n_rows + 1)) == 0 &&
                      memcmp(x->col, y->col, sizeof(int32_t) * (size_t)x->nnz) == 0,
                  "%s P=%d rank %d: the local pattern from the elements differs", name, P, a->rank);
}
#undef SAME

/* everything a set of views must satisfy */
static void check_views(const hs_mesh *m, const hs_csr *a, const int32_t *part, int P, const char *name)
{
    hs_part_local **v = calloc((size_t)P, sizeof(*v));
    for (int r = 0; r < P; ++r) HS_TEST_OK(hs_part_local_create(a, m->n_elems, m->tets, part, P, r, &v[r]));
    for (int r = 0; r < P; ++r)
        if (!v[r]) return;
    for (int r = 0; r < P; ++r) {
        hs_part_local *e = NULL;
        HS_TEST_OK(hs_part_local_create_elems(m->n_nodes, m->n_elems, m->tets, part, P, r, &e));
        if (e) check_same_view(v[r], e, name, P);
        hs_part_local_destroy(&e);
    }
    int32_t *owned_by = malloc((size_t)m->n_nodes * sizeof(int32_t));
    for (int32_t i = 0; i < m->n_nodes; ++i) owned_by[i] = -1;
    int64_t sent = 0, ghosts = 0;
    for (int r = 0; r < P; ++r) {
        const hs_part_local *l = v[r];
        for (int32_t li = 0; li < l->n_owned; ++li) {
            const int32_t g = (int32_t)l->l2g[li]; /* 64-bit global id of a 32-bit test mesh */
            HS_TEST_CHECK(owned_by[g] == -1 && part[g] == r, "%s P=%d: node %d owned twice or by the wrong rank",
                          name, P, (int)g);
            owned_by[g] = r;
        }
        /* elements: exactly those touching an owned node, local nodes map back */
        int32_t k = 0;
        for (int32_t e = 0; e < m->n_elems; ++e) {
            const int32_t *t = m->tets + 4 * e;
            if (part[t[0]] != r && part[t[1]] != r && part[t[2]] != r && part[t[3]] != r) continue;
            HS_TEST_CHECK(k < l->n_elems && l->elems[k] == e, "%s P=%d rank %d: element %d missing", name, P, r,
                          (int)e);
            if (k < l->n_elems && l->elems[k] == e)
                for (int c = 0; c < 4; ++c)
                    HS_TEST_CHECK(l->l2g[l->tets[4 * k + c]] == t[c], "%s: local tet node", name);
            ++k;
        }
        HS_TEST_CHECK(k == l->n_elems, "%s P=%d rank %d: %d elements, expected %d", name, P, r, (int)l->n_elems,
                      (int)k);
        /* rows: same columns as the global row; interior rows have no ghost, boundary rows one */
        int32_t cols[64];
        for (int32_t li = 0; li < l->n_owned; ++li) {
            const int32_t g = (int32_t)l->l2g[li]; /* 64-bit global id of a 32-bit test mesh */
            const int32_t len = l->pattern->row_ptr[li + 1] - l->pattern->row_ptr[li];
            HS_TEST_CHECK(len == a->row_ptr[g + 1] - a->row_ptr[g] && len <= 64, "%s: row %d length", name, (int)g);
            if (len != a->row_ptr[g + 1] - a->row_ptr[g] || len > 64) continue;
            int has_ghost = 0;
            for (int32_t q = 0; q < len; ++q) {
                const int32_t c = l->pattern->col[l->pattern->row_ptr[li] + q];
                if (q > 0) HS_TEST_CHECK(c > l->pattern->col[l->pattern->row_ptr[li] + q - 1], "%s: sorted", name);
                has_ghost |= c >= l->n_owned;
                cols[q] = (int32_t)l->l2g[c];
            }
            qsort(cols, (size_t)len, sizeof(int32_t), cmp_i32);
            HS_TEST_CHECK(memcmp(cols, a->col + a->row_ptr[g], (size_t)len * sizeof(int32_t)) == 0,
                          "%s P=%d: row %d columns differ from the global row", name, P, (int)g);
            HS_TEST_CHECK(has_ghost == (li >= l->n_interior), "%s P=%d: row %d interior/boundary misplaced", name,
                          P, (int)g);
        }
        for (int32_t gi = 0; gi < l->n_ghost; ++gi)
            HS_TEST_CHECK(l->ghost_owner[gi] == part[l->l2g[l->n_owned + gi]] && l->ghost_owner[gi] != r,
                          "%s: ghost owner", name);
        /* send list to q == q's ghosts from r, in order */
        for (int k2 = 0; k2 < l->n_nbrs; ++k2) {
            const int q = l->nbr[k2];
            const hs_part_local *o = v[q];
            int kk = -1;
            for (int t = 0; t < o->n_nbrs; ++t)
                if (o->nbr[t] == r) kk = t;
            HS_TEST_CHECK(kk >= 0, "%s: rank %d neighbours %d but not back", name, r, q);
            if (kk < 0) continue;
            const int32_t ns = l->send_ptr[k2 + 1] - l->send_ptr[k2], nr = o->recv_ptr[kk + 1] - o->recv_ptr[kk];
            HS_TEST_CHECK(ns == nr, "%s P=%d: %d -> %d sends %d, receives %d", name, P, r, q, (int)ns, (int)nr);
            for (int32_t s = 0; s < ns && ns == nr; ++s)
                HS_TEST_CHECK(l->l2g[l->send_idx[l->send_ptr[k2] + s]] == o->l2g[o->n_owned + o->recv_ptr[kk] + s],
                              "%s: send/receive order", name);
        }
        const hs_part_stats st = hs_part_local_stats(l);
        sent += l->send_ptr[l->n_nbrs];
        ghosts += l->n_ghost;
        HS_TEST_CHECK(st.halo_bytes == 8 * ((int64_t)l->n_ghost + l->send_ptr[l->n_nbrs]), "%s: halo bytes", name);
    }
    for (int32_t i = 0; i < m->n_nodes; ++i) HS_TEST_CHECK(owned_by[i] >= 0, "%s: node %d not owned", name, (int)i);
    HS_TEST_CHECK(sent == ghosts, "%s P=%d: %lld values sent, %lld ghosts", name, P, (long long)sent,
                  (long long)ghosts);
    HS_TEST_CHECK(hs_partition_edge_cut(a, part) == cut_from_elements(m, part), "%s P=%d: edge cut %lld vs %lld",
                  name, P, (long long)hs_partition_edge_cut(a, part), (long long)cut_from_elements(m, part));
    free(owned_by);
    for (int r = 0; r < P; ++r) hs_part_local_destroy(&v[r]);
    free(v);
}

static int views_equal(const hs_part_local *x, const hs_part_local *y)
{
    const int32_t nl = x->n_owned + x->n_ghost;
    if (x->n_global != y->n_global || x->n_interior != y->n_interior || x->n_owned != y->n_owned ||
        x->n_ghost != y->n_ghost || x->n_elems != y->n_elems || x->n_nbrs != y->n_nbrs)
        return 0;
    if (memcmp(x->l2g, y->l2g, sizeof(int64_t) * (size_t)nl) ||
        memcmp(x->ghost_owner, y->ghost_owner, sizeof(int32_t) * (size_t)x->n_ghost) ||
        memcmp(x->elems, y->elems, sizeof(int64_t) * (size_t)x->n_elems) ||
        memcmp(x->tets, y->tets, 4 * sizeof(int32_t) * (size_t)x->n_elems) ||
        memcmp(x->nbr, y->nbr, sizeof(int32_t) * (size_t)x->n_nbrs) ||
        memcmp(x->send_ptr, y->send_ptr, sizeof(int32_t) * ((size_t)x->n_nbrs + 1)) ||
        memcmp(x->recv_ptr, y->recv_ptr, sizeof(int32_t) * ((size_t)x->n_nbrs + 1)) ||
        memcmp(x->send_idx, y->send_idx, sizeof(int32_t) * (size_t)x->send_ptr[x->n_nbrs]))
        return 0;
    if (x->pattern->nnz != y->pattern->nnz ||
        memcmp(x->pattern->row_ptr, y->pattern->row_ptr, sizeof(int32_t) * ((size_t)x->n_owned + 1)) ||
        memcmp(x->pattern->col, y->pattern->col, sizeof(int32_t) * (size_t)x->pattern->nnz))
        return 0;
    /* the local elements' pattern the views made from elements keep for the local problem: equal, its
     * owned rows the view's pattern */
    const hs_csr *a = x->local_pattern, *b = y->local_pattern;
    if (!a || !b || a->n_rows != nl || a->n_cols != nl || b->n_rows != nl || a->nnz != b->nnz ||
        memcmp(a->row_ptr, b->row_ptr, sizeof(int32_t) * ((size_t)nl + 1)) ||
        memcmp(a->col, b->col, sizeof(int32_t) * (size_t)a->nnz) ||
        memcmp(a->row_ptr, x->pattern->row_ptr, sizeof(int32_t) * ((size_t)x->n_owned + 1)) ||
        memcmp(a->col, x->pattern->col, sizeof(int32_t) * (size_t)x->pattern->nnz))
        return 0;
    return 1;
}

/* The box partition on P ranks: blocks balanced within a layer, each rank's generated part equal to
 * the cut of the global mesh, and no more than its block plus one layer of nodes around it. */
static void box_parts(const hs_box_params *bp, const hs_mesh *m, int P)
{
    int64_t cells[3];
    HS_TEST_OK(hs_mesh_box_cells(bp, cells));
    hs_box_blocks bb;
    HS_TEST_OK(hs_box_blocks_make(cells, P, &bb));
    HS_TEST_CHECK(bb.parts[0] * bb.parts[1] * bb.parts[2] == P, "P=%d: blocks %d x %d x %d", P, bb.parts[0],
                  bb.parts[1], bb.parts[2]);
    int32_t *owner = malloc(sizeof(int32_t) * (size_t)m->n_nodes);
    for (int32_t i = 0; i < m->n_nodes; ++i) owner[i] = hs_box_blocks_owner(&bb, i);
    for (int r = 0; r < P; ++r) {
        int64_t lo[3], hi[3], own = 1, halo = 1;
        hs_box_blocks_range(&bb, r, lo, hi);
        for (int a = 0; a < 3; ++a) {
            own *= hi[a] - lo[a];
            halo *= hi[a] - lo[a] + (lo[a] > 0) + (hi[a] < bb.nodes[a]);
            /* balanced in nodes: each axis within one layer of N / p */
            HS_TEST_CHECK(hi[a] - lo[a] <= bb.nodes[a] / bb.parts[a] + 1 && hi[a] - lo[a] >= bb.nodes[a] / bb.parts[a],
                          "P=%d rank %d axis %d: %lld layers of %lld over %d", P, r, a, (long long)(hi[a] - lo[a]),
                          (long long)bb.nodes[a], bb.parts[a]);
        }
        hs_part_local *ref = NULL, *gen = NULL;
        HS_TEST_OK(hs_part_local_create_elems(m->n_nodes, m->n_elems, m->tets, owner, P, r, &ref));
        hs_mesh *pm = NULL;
        int64_t *ngid = NULL, *egid = NULL;
        HS_TEST_OK(hs_mesh_create_box_part(bp, lo, hi, &pm, &ngid, &egid));
        if (!pm || !ref) continue;
        int32_t *pown = malloc(sizeof(int32_t) * ((size_t)pm->n_nodes + 1));
        int32_t *nl = malloc(sizeof(int32_t) * ((size_t)pm->n_nodes + 1));
        int32_t *el = malloc(sizeof(int32_t) * ((size_t)pm->n_elems + 1));
        int bad = 0;
        for (int32_t i = 0; i < pm->n_nodes; ++i) {
            pown[i] = hs_box_blocks_owner(&bb, ngid[i]);
            bad += memcmp(pm->xyz + 3 * (size_t)i, m->xyz + 3 * (size_t)ngid[i], 3 * sizeof(double)) != 0;
        }
        for (int32_t e = 0; e < pm->n_elems; ++e)
            for (int c = 0; c < 4; ++c) bad += ngid[pm->tets[4 * (size_t)e + c]] != m->tets[4 * (size_t)egid[e] + c];
        HS_TEST_CHECK(bad == 0, "P=%d rank %d: %d coordinates or vertices differ from the whole box's", P, r, bad);
        HS_TEST_CHECK(pm->n_nodes <= halo, "P=%d rank %d: %d nodes held, more than the block and a layer (%lld)", P, r,
                      (int)pm->n_nodes, (long long)halo);
        HS_TEST_OK(hs_part_local_create_part(m->n_nodes, pm->n_nodes, ngid, pown, pm->n_elems, egid, pm->tets, P, r,
                                             &gen, nl, el));
        if (gen) {
            HS_TEST_CHECK(gen->n_owned == own, "P=%d rank %d: owns %d of its block's %lld", P, r, (int)gen->n_owned,
                          (long long)own);
            HS_TEST_CHECK(views_equal(gen, ref), "P=%d rank %d: the generated part's view differs from the cut", P, r);
            int kept = 0;
            for (int32_t e = 0; e < pm->n_elems; ++e) kept += el[e] >= 0;
            HS_TEST_CHECK(kept == pm->n_elems, "P=%d rank %d: the part holds elements without an owned node", P, r);
            /* the part's nodes in reverse (not in global order: the view sorts them, where the generated
             * lattice order needs no sort): the same view, the same local numbers */
            const int32_t n = pm->n_nodes;
            int64_t *rgid = malloc(sizeof(int64_t) * ((size_t)n + 1));
            int32_t *rown = malloc(sizeof(int32_t) * ((size_t)n + 1)), *rnl = malloc(sizeof(int32_t) * ((size_t)n + 1));
            int32_t *rtets = malloc(4 * sizeof(int32_t) * ((size_t)pm->n_elems + 1));
            int32_t *rel = malloc(sizeof(int32_t) * ((size_t)pm->n_elems + 1));
            for (int32_t i = 0; i < n; ++i) {
                rgid[n - 1 - i] = ngid[i];
                rown[n - 1 - i] = pown[i];
            }
            for (size_t q = 0; q < 4 * (size_t)pm->n_elems; ++q) rtets[q] = n - 1 - pm->tets[q];
            hs_part_local *rev = NULL;
            HS_TEST_OK(hs_part_local_create_part(m->n_nodes, n, rgid, rown, pm->n_elems, egid, rtets, P, r, &rev, rnl,
                                                 rel));
            int moved = 0;
            for (int32_t i = 0; i < n; ++i) moved += rnl[n - 1 - i] != nl[i];
            HS_TEST_CHECK(rev && views_equal(rev, gen) && moved == 0,
                          "P=%d rank %d: the part's nodes in reverse give another view (%d local numbers differ)", P,
                          r, moved);
            hs_part_local_destroy(&rev);
            /* faults, named as the serial scan names them: two elements out of order, a ghost of no rank */
            int64_t *bgid = malloc(sizeof(int64_t) * ((size_t)pm->n_elems + 1));
            memcpy(bgid, egid, sizeof(int64_t) * (size_t)pm->n_elems);
            const int32_t h = pm->n_elems / 2;
            bgid[h] = egid[h + 1];
            bgid[h + 1] = egid[h];
            hs_part_local *bad = NULL;
            hs_status bs = hs_part_local_create_part(m->n_nodes, n, ngid, pown, pm->n_elems, bgid, pm->tets, P, r, &bad,
                                                     rnl, rel);
            HS_TEST_CHECK(bs == HS_ERR_INTERNAL && !bad && strstr(hs_error_message(), "not in increasing global order"),
                          "P=%d rank %d: elements out of order: status %d, \"%s\"", P, r, (int)bs, hs_error_message());
            hs_error_clear();
            free(bgid);
            int32_t ghost = -1; /* the last ghost of the part, given to no rank */
            for (int32_t i = 0; i < n; ++i)
                if (pown[i] != r) ghost = i;
            if (ghost >= 0) {
                const int32_t keep = pown[ghost];
                pown[ghost] = P + 3;
                bs = hs_part_local_create_part(m->n_nodes, n, ngid, pown, pm->n_elems, egid, pm->tets, P, r, &bad, rnl,
                                               rel);
                char want[96];
                snprintf(want, sizeof want, "node %lld owned by rank %d of %d", (long long)ngid[ghost], P + 3, P);
                HS_TEST_CHECK(bs == HS_ERR_INTERNAL && !bad && strstr(hs_error_message(), want),
                              "P=%d rank %d: a ghost of no rank: status %d, \"%s\" (wanted \"%s\")", P, r, (int)bs,
                              hs_error_message(), want);
                hs_error_clear();
                pown[ghost] = keep;
            }
            free(rgid);
            free(rown);
            free(rnl);
            free(rtets);
            free(rel);
        }
        hs_part_local_destroy(&gen);
        hs_part_local_destroy(&ref);
        free(pown);
        free(nl);
        free(el);
        free(ngid);
        free(egid);
        hs_mesh_destroy(&pm);
    }
    free(owner);
}

int main(void)
{
    /* 8 x 6 x 5 cells: 9 x 7 x 6 = 378 nodes, 6 layers of 63 */
    const int nx = 8, ny = 6, nz = 5;
    hs_box_params bp = {nx, ny, nz, 1.0, 0, 1.414};
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_create_box(&bp, &m));
    hs_csr *a = NULL;
    HS_TEST_OK(hs_csr_from_tets(m->n_nodes, m->n_elems, m->tets, &a));
    if (!a) HS_TEST_RETURN();
    int32_t *part = malloc((size_t)m->n_nodes * sizeof(int32_t));
    int32_t max_row = 0;
    for (int32_t i = 0; i < a->n_rows; ++i)
        if (a->row_ptr[i + 1] - a->row_ptr[i] > max_row) max_row = a->row_ptr[i + 1] - a->row_ptr[i];

    const hs_registry *reg = hs_partitioners();
    HS_TEST_CHECK(reg->count == 5, "five partitioners listed");
    for (size_t k = 0; k < reg->count; ++k) {
        const hs_partitioner *p = hs_registry_at(reg, k);
        if (!p->available) continue;
        if (p->box) { /* the box's own blocks: no pattern defines them (box_parts below) */
            HS_TEST_CHECK(hs_partition_nodes(p, a, 2, part) == HS_ERR_CONFIG, "box on a pattern refused");
            hs_error_clear();
            continue;
        }
        if (p->parallel) { /* ptscotch: every rank of a run at once (tests/parallel/test_ptscotch.c) */
            HS_TEST_CHECK(hs_partition_nodes(p, a, 2, part) == HS_ERR_CONFIG &&
                              strstr(hs_error_message(), "every rank of a distributed run"),
                          "%s in one process refused: %s", p->name, hs_error_message());
            hs_error_clear();
            continue;
        }
        for (int P = 1; P <= 5; ++P) {
            HS_TEST_OK(hs_partition_nodes(p, a, P, part));
            check_views(m, a, part, P, p->name);
            /* deterministic: the same call gives the same partition (every rank computes it) */
            int32_t *again = malloc((size_t)m->n_nodes * sizeof(int32_t));
            HS_TEST_OK(hs_partition_nodes(p, a, P, again));
            HS_TEST_CHECK(memcmp(part, again, (size_t)m->n_nodes * sizeof(int32_t)) == 0, "%s: deterministic",
                          p->name);
            free(again);
        }
    }

    /* PCSR-I on 2 ranks: the first 3 layers, so the cut is the Kuhn edges between layers 2 and 3,
     * (x,y,k)-(x+a,y+b,k+1) for a, b in {0,1}: (nx+1)(ny+1) + nx(ny+1) + (nx+1)ny + nx ny */
    const hs_partitioner *rows = NULL, *nnzp = NULL;
    HS_TEST_OK(hs_partitioner_lookup("parallel.partition", "rows", &rows));
    HS_TEST_OK(hs_partitioner_lookup("parallel.partition", "nonzeros", &nnzp));
    HS_TEST_OK(hs_partition_nodes(rows, a, 2, part));
    hs_part_balance b = hs_partition_balance(a, part, 2);
    const int64_t layer_cut = (int64_t)(nx + 1) * (ny + 1) + nx * (ny + 1) + (nx + 1) * ny + nx * ny;
    HS_TEST_CHECK(b.edge_cut == layer_cut, "rows P=2: cut %lld, expected %lld", (long long)b.edge_cut,
                  (long long)layer_cut);
    HS_TEST_NEAR(b.imbalance_nodes, 1.0, 0.0, "rows P=2 node balance");
    /* PCSR-I: owned counts differ by at most one row; PCSR-II: each rank's nonzeros within one row's
     * nonzeros of nnz / P (each of its two cuts moves at most half a row from its target) */
    for (int P = 2; P <= 5; ++P) {
        HS_TEST_OK(hs_partition_nodes(rows, a, P, part));
        b = hs_partition_balance(a, part, P);
        HS_TEST_CHECK(b.imbalance_nodes <= (double)((m->n_nodes + P - 1) / P) * P / m->n_nodes + 1e-12,
                      "rows P=%d: node imbalance %g", P, b.imbalance_nodes);
        HS_TEST_OK(hs_partition_nodes(nnzp, a, P, part));
        int64_t nnz_of[5] = {0};
        for (int32_t i = 0; i < a->n_rows; ++i) nnz_of[part[i]] += a->row_ptr[i + 1] - a->row_ptr[i];
        for (int q = 0; q < P; ++q)
            HS_TEST_CHECK(fabs((double)nnz_of[q] - (double)a->nnz / P) <= max_row, "nonzeros P=%d rank %d: %lld of %d",
                          P, q, (long long)nnz_of[q], (int)a->nnz);
    }
#if HS_HAS_METIS
    /* METIS on a 10^3-cell cube, 4 ranks: PCSR-I cuts 3 full node planes; a k-way partition into
     * quadrants cuts about 2, so METIS must beat PCSR-I; its load stays within its default
     * tolerance (ufactor 30: max part weight <= 1.03 x mean, weights = row nonzeros). */
    {
        hs_box_params cb = {10, 10, 10, 1.0, 0, 1.414};
        hs_mesh *c = NULL;
        hs_csr *ca = NULL;
        HS_TEST_OK(hs_mesh_create_box(&cb, &c));
        HS_TEST_OK(hs_csr_from_tets(c->n_nodes, c->n_elems, c->tets, &ca));
        int32_t *cp = malloc((size_t)c->n_nodes * sizeof(int32_t));
        const hs_partitioner *metis = NULL;
        HS_TEST_OK(hs_partitioner_lookup("parallel.partition", "metis", &metis));
        HS_TEST_OK(hs_partition_nodes(rows, ca, 4, cp));
        const hs_part_balance br = hs_partition_balance(ca, cp, 4);
        HS_TEST_OK(hs_partition_nodes(metis, ca, 4, cp));
        const hs_part_balance bm = hs_partition_balance(ca, cp, 4);
        HS_TEST_CHECK(bm.edge_cut < br.edge_cut, "metis cut %lld not below rows cut %lld", (long long)bm.edge_cut,
                      (long long)br.edge_cut);
        HS_TEST_CHECK(bm.imbalance_nnz <= 1.03 + 1e-9, "metis nonzero imbalance %g > 1.03", bm.imbalance_nnz);
        free(cp);
        hs_csr_destroy(&ca);
        hs_mesh_destroy(&c);
    }
#else
    {
        const hs_partitioner *metis = NULL;
        HS_TEST_CHECK(hs_partitioner_lookup("parallel.partition", "metis", &metis) == HS_ERR_CONFIG,
                      "metis refused without METIS");
        hs_error_clear();
    }
#endif
    {
        /* ptscotch: listed always; built with PT-Scotch and MPI, refused with how to get it otherwise */
        const hs_partitioner *pt = NULL;
        const hs_status sp = hs_partitioner_lookup("parallel.partition", "ptscotch", &pt);
#if HS_HAS_PTSCOTCH
        HS_TEST_OK(sp);
        HS_TEST_CHECK(pt && pt->parallel && !pt->needs_pattern && pt->assign_root,
                      "ptscotch is a parallel partitioner that builds its graph from the elements");
#else
        HS_TEST_CHECK(sp == HS_ERR_CONFIG && strstr(hs_error_message(), "parallel.partition: partitioner \"ptscotch\" "
                                                    "is not in this build (it needs PT-Scotch and MPI: install "
                                                    "libptscotch-dev"),
                      "ptscotch refused without PT-Scotch: %s", hs_error_message());
        hs_error_clear();
#endif
    }
    /* errors: unknown name, more ranks than nodes */
    const hs_partitioner *none = NULL;
    HS_TEST_CHECK(hs_partitioner_lookup("parallel.partition", "scotch", &none) == HS_ERR_CONFIG &&
                      strstr(hs_error_message(), "available: metis, rows, nonzeros"),
                  "unknown partitioner message: %s", hs_error_message());
    hs_error_clear();
    HS_TEST_CHECK(hs_partition_nodes(rows, a, m->n_nodes + 1, part) == HS_ERR_CONFIG, "too many ranks refused");
    hs_error_clear();
    /* without the pattern: "rows" needs the node count only (a distributed run then builds no
     * global pattern), the same partition; the others refuse */
    {
        int32_t *again = malloc((size_t)m->n_nodes * sizeof(int32_t));
        HS_TEST_OK(hs_partition_nodes(rows, a, 3, part));
        HS_TEST_OK(hs_partition_nodes_n(rows, NULL, m->n_nodes, 3, again));
        HS_TEST_CHECK(memcmp(part, again, (size_t)m->n_nodes * sizeof(int32_t)) == 0, "rows without the pattern");
        HS_TEST_CHECK(!rows->needs_pattern && nnzp->needs_pattern, "needs_pattern flags");
        HS_TEST_CHECK(hs_partition_nodes_n(nnzp, NULL, m->n_nodes, 3, again) == HS_ERR_INTERNAL,
                      "nonzeros without the pattern refused");
        hs_error_clear();
        free(again);
    }

    /* the box's blocks: 9 x 7 x 6 nodes, so the smallest cut face is x's (7 x 6): 2 slabs along x, 2 x 2
     * across x and y for 4 (cut 42 + 54 < 3 x 42) */
    for (int P = 1; P <= 8; ++P) box_parts(&bp, m, P);
    {
        /* a box of 40 x 30 x 30 cells: parts of more than HS_OMP_MIN cells, whose layers and mesh
         * checks run on OpenMP threads, equal to the serial cut (and its nodes' order to the sort's) */
        hs_box_params big = {40, 30, 30, 1.0, 0, 1.414};
        hs_mesh *bm = NULL;
        HS_TEST_OK(hs_mesh_create_box(&big, &bm));
        if (bm) {
            HS_TEST_OK(hs_mesh_check(bm));
            box_parts(&big, bm, 2);
            box_parts(&big, bm, 3);
        }
        hs_mesh_destroy(&bm);
    }
    {
        int64_t cells[3] = {nx, ny, nz};
        hs_box_blocks bb;
        HS_TEST_OK(hs_box_blocks_make(cells, 2, &bb));
        HS_TEST_CHECK(bb.parts[0] == 2 && bb.parts[1] == 1 && bb.parts[2] == 1, "2 ranks: %d x %d x %d", bb.parts[0],
                      bb.parts[1], bb.parts[2]);
        HS_TEST_OK(hs_box_blocks_make(cells, 4, &bb));
        HS_TEST_CHECK(bb.parts[0] == 2 && bb.parts[1] == 2 && bb.parts[2] == 1, "4 ranks: %d x %d x %d", bb.parts[0],
                      bb.parts[1], bb.parts[2]);
        HS_TEST_CHECK(hs_box_blocks_make(cells, 10000, &bb) == HS_ERR_CONFIG, "more blocks than nodes refused");
        hs_error_clear();
    }
    {
        int64_t cube[3] = {10, 10, 10};
        hs_box_blocks bb;
        HS_TEST_OK(hs_box_blocks_make(cube, 2, &bb));
        HS_TEST_CHECK(bb.parts[2] == 2, "a cube on 2 ranks: slabs along z (ties), %d x %d x %d", bb.parts[0],
                      bb.parts[1], bb.parts[2]);
    }
    {
        hs_box_params lp = {1.0, 1.0, 20.0, 1.0, 0, 1.414}; /* a long box: slabs across its long axis */
        int64_t cells[3];
        HS_TEST_OK(hs_mesh_box_cells(&lp, cells));
        hs_box_blocks bb;
        HS_TEST_OK(hs_box_blocks_make(cells, 4, &bb));
        HS_TEST_CHECK(bb.parts[2] == 4, "a long box on 4 ranks: %d x %d x %d", bb.parts[0], bb.parts[1], bb.parts[2]);
    }

    free(part);
    hs_csr_destroy(&a);
    hs_mesh_destroy(&m);
    HS_TEST_RETURN();
}
