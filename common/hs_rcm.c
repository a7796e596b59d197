/* Reverse Cuthill-McKee (Cuthill & McKee 1969; George & Liu, "Computer Solution of Large Sparse
 * Positive Definite Systems", 1981, sections 4.3-4.4: the pseudo-peripheral root finder FNROOT and
 * RCM) on the node graph of tetrahedra. Moved here from meshes/mesh_reorder.c unchanged, so that a
 * rank's part (parallel/) orders its rows with the code the whole mesh uses (hs_rcm.h).
 *
 * Cost is O(n_elems + n_edges) per BFS with a handful of BFS per connected component; the node
 * graph is built once, in one pass over a node-to-element map, without sorting. Serial: a
 * 1M-node, 6M-tet box with shuffled node numbers takes 1.2-2 s on a 2-core VM; about 5 s when
 * the element order is random too (no locality left for the first-touch relabelling to use). */
#include "hs_rcm.h"

#include <stdlib.h>
#include <string.h>

#include "hs_util.h"

/* Node graph in CSR form: neighbours of v are adj[ptr[v] .. ptr[v+1]) (no self loops). */
typedef struct graph {
    int32_t n;
    int64_t *ptr; /* [n+1] */
    int32_t *adj; /* [ptr[n]] */
} graph;

static void graph_free(graph *g)
{
    free(g->ptr);
    free(g->adj);
    g->ptr = NULL;
    g->adj = NULL;
}

/* Node graph of a connectivity array tets [ne][4] over n nodes. One pass over a node-to-element
 * map; duplicates are removed with a marker array, which is cheap when the numbering is local
 * (hs_rcm_tets makes sure it is before calling this). */
static hs_status graph_build(const int32_t *tets, int32_t ne, int32_t n, graph *g)
{
    hs_status st = HS_OK;
    int64_t *n2e_ptr = NULL; /* [n+1] node -> elements CSR */
    int32_t *n2e = NULL;     /* [4 * ne] */
    int32_t *mark = NULL;    /* [n] last row that met this node */
    g->n = n;
    g->ptr = NULL;
    g->adj = NULL;
    HS_CALL_GOTO(HS_ALLOC(n2e_ptr, (size_t)n + 1, "node-to-element offsets"), fail);
    HS_CALL_GOTO(HS_ALLOC(n2e, (size_t)ne * 4, "node-to-element map"), fail);
    HS_CALL_GOTO(HS_ALLOC(mark, (size_t)n, "node marker"), fail);
    HS_CALL_GOTO(HS_ALLOC(g->ptr, (size_t)n + 1, "node graph offsets"), fail);

    for (size_t i = 0; i < (size_t)ne * 4; ++i) ++n2e_ptr[tets[i] + 1];
    for (int32_t v = 0; v < n; ++v) n2e_ptr[v + 1] += n2e_ptr[v];
    {
        int64_t *fill = g->ptr; /* borrowed as a cursor; overwritten below */
        memcpy(fill, n2e_ptr, sizeof(int64_t) * (size_t)n);
        for (int32_t e = 0; e < ne; ++e)
            for (int k = 0; k < 4; ++k) n2e[fill[tets[4 * (size_t)e + k]]++] = e;
    }

    /* adj grows by doubling; a tet mesh has about 14 neighbours per node, so start there. */
    size_t cap = (size_t)n * 16 + 64, used = 0;
    HS_CALL_GOTO(HS_ALLOC(g->adj, cap, "node graph"), fail);
    for (int32_t v = 0; v < n; ++v) mark[v] = -1;
    g->ptr[0] = 0;
    for (int32_t v = 0; v < n; ++v) {
        /* Room for the worst case of this row before filling it: 3 new nodes per element. */
        const size_t worst = used + 3 * (size_t)(n2e_ptr[v + 1] - n2e_ptr[v]);
        if (worst > cap) {
            while (worst > cap) cap *= 2;
            int32_t *a = realloc(g->adj, cap * sizeof *a);
            HS_CHECK_GOTO(a != NULL, fail, HS_ERR_MEMORY,
                          "out of memory growing the node graph (%.1f MiB)",
                          (double)cap * sizeof *a / (1024.0 * 1024.0));
            g->adj = a;
        }
        mark[v] = v; /* no self loop */
        for (int64_t q = n2e_ptr[v]; q < n2e_ptr[v + 1]; ++q) {
            const int32_t *t = tets + 4 * (size_t)n2e[q];
            for (int k = 0; k < 4; ++k)
                if (mark[t[k]] != v) {
                    mark[t[k]] = v;
                    g->adj[used++] = t[k];
                }
        }
        g->ptr[v + 1] = (int64_t)used;
    }
    free(n2e_ptr);
    free(n2e);
    free(mark);
    return HS_OK;
fail:
    free(n2e_ptr);
    free(n2e);
    free(mark);
    graph_free(g);
    return st;
}

static inline int32_t degree(const graph *g, int32_t v)
{
    return (int32_t)(g->ptr[v + 1] - g->ptr[v]);
}

/* Rooted level structure: BFS from root over nodes whose stamp != tag, stamping them with tag.
 * queue receives the nodes in BFS order; returns how many were reached, the number of levels
 * (eccentricity + 1), and where the last level starts in queue. */
static int32_t bfs_levels(const graph *g, int32_t root, int32_t tag, int32_t *stamp,
                          int32_t *queue, int32_t *n_levels, int32_t *last_start)
{
    int32_t head = 0, tail = 0, levels = 0, lstart = 0;
    queue[tail++] = root;
    stamp[root] = tag;
    while (head < tail) {
        const int32_t level_end = tail;
        lstart = head;
        ++levels;
        for (; head < level_end; ++head) {
            const int32_t v = queue[head];
            for (int64_t q = g->ptr[v]; q < g->ptr[v + 1]; ++q) {
                const int32_t w = g->adj[q];
                if (stamp[w] != tag) {
                    stamp[w] = tag;
                    queue[tail++] = w;
                }
            }
        }
    }
    *n_levels = levels;
    *last_start = lstart;
    return tail;
}

/* George-Liu FNROOT: repeat BFS from a minimum-degree node of the last level until the number
 * of levels stops growing. stamp tags are consumed from *tag (each BFS needs a fresh one). */
static int32_t pseudo_peripheral(const graph *g, int32_t start, int32_t *tag, int32_t *stamp,
                                 int32_t *queue)
{
    int32_t root = start, nlvl, lstart;
    const int32_t size = bfs_levels(g, root, (*tag)++, stamp, queue, &nlvl, &lstart);
    if (nlvl == 1 || nlvl == size) return root; /* a single node, or a path seen from its end */
    for (int iter = 0; iter < 64; ++iter) {     /* levels strictly grow, so this is a safety cap */
        int32_t best = queue[lstart];
        for (int32_t i = lstart + 1; i < size; ++i)
            if (degree(g, queue[i]) < degree(g, best)) best = queue[i];
        int32_t nl2, ls2;
        bfs_levels(g, best, (*tag)++, stamp, queue, &nl2, &ls2);
        root = best;
        if (nl2 <= nlvl) break;
        nlvl = nl2;
        lstart = ls2;
    }
    return root;
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Sort order[first..count) by (degree, label). Batches are a node's unnumbered neighbours: a
 * few dozen in a tet mesh, sorted in place by insertion; a hub node's long batch goes through
 * qsort on packed (degree, label) keys (keys: room for the largest degree, or NULL if none is
 * long). The label tie-break makes the result independent of adjacency order. */
static void sort_batch(const graph *g, int32_t *order, int32_t first, int32_t count,
                       uint64_t *keys)
{
    const int32_t len = count - first;
    if (len > 64 && keys) {
        for (int32_t i = 0; i < len; ++i)
            keys[i] = ((uint64_t)(uint32_t)degree(g, order[first + i]) << 32) |
                      (uint32_t)order[first + i];
        qsort(keys, (size_t)len, sizeof *keys, cmp_u64);
        for (int32_t i = 0; i < len; ++i) order[first + i] = (int32_t)(keys[i] & 0xffffffffu);
        return;
    }
    for (int32_t i = first + 1; i < count; ++i) {
        const int32_t w = order[i];
        const int32_t dw = degree(g, w);
        int32_t j = i - 1;
        while (j >= first &&
               (degree(g, order[j]) > dw || (degree(g, order[j]) == dw && order[j] > w))) {
            order[j + 1] = order[j];
            --j;
        }
        order[j + 1] = w;
    }
}

/* Cuthill-McKee order of every component into order[] (graph labels, in visiting order; the
 * caller reverses it). */
static hs_status cuthill_mckee(const graph *g, int32_t *order)
{
    const int32_t n = g->n;
    hs_status st = HS_OK;
    int32_t *stamp = NULL, *queue = NULL;
    unsigned char *numbered = NULL;
    uint64_t *keys = NULL;
    int32_t max_deg = 0;
    for (int32_t v = 0; v < n; ++v)
        if (degree(g, v) > max_deg) max_deg = degree(g, v);
    HS_CALL_GOTO(HS_ALLOC(stamp, (size_t)n, "BFS stamps"), done);
    HS_CALL_GOTO(HS_ALLOC(queue, (size_t)n, "BFS queue"), done);
    HS_CALL_GOTO(HS_ALLOC(numbered, (size_t)n, "RCM flags"), done);
    if (max_deg > 64) HS_CALL_GOTO(HS_ALLOC(keys, (size_t)max_deg, "RCM sort keys"), done);
    for (int32_t v = 0; v < n; ++v) stamp[v] = -1;
    int32_t tag = 0;
    int32_t count = 0;
    for (int32_t s = 0; s < n; ++s) {
        if (numbered[s]) continue;
        /* Stamps only need to be unique per BFS; restart them if a huge number of components
         * would wrap the counter. */
        if (tag > INT32_MAX - 128) {
            for (int32_t v = 0; v < n; ++v) stamp[v] = -1;
            tag = 0;
        }
        const int32_t root = pseudo_peripheral(g, s, &tag, stamp, queue);
        int32_t head = count;
        order[count++] = root;
        numbered[root] = 1;
        while (head < count) {
            const int32_t v = order[head++];
            const int32_t first = count;
            for (int64_t q = g->ptr[v]; q < g->ptr[v + 1]; ++q) {
                const int32_t w = g->adj[q];
                if (!numbered[w]) {
                    numbered[w] = 1;
                    order[count++] = w;
                }
            }
            sort_batch(g, order, first, count, keys);
        }
    }
    HS_CHECK_GOTO(count == n, done, HS_ERR_INTERNAL, "RCM numbered %ld of %ld nodes", (long)count,
                  (long)n);
done:
    free(stamp);
    free(queue);
    free(numbered);
    free(keys);
    return st;
}

hs_status hs_rcm_tets(int32_t n, int32_t ne, const int32_t *tets, int32_t *newid)
{
    /* indices index the work arrays below, so they are checked rather than trusted */
    for (size_t i = 0; i < (size_t)ne * 4; ++i)
        HS_CHECK(tets[i] >= 0 && tets[i] < n, HS_ERR_INTERNAL, "RCM: element %ld refers to node %ld, out of range "
                 "0..%ld", (long)(i / 4), (long)tets[i], (long)n - 1);
    if (n == 0) return HS_OK;
    /* RCM itself runs on relabelled elements: nodes numbered in the order the elements first
     * touch them. Generators write elements in a spatially coherent order, so this makes the
     * graph build and the BFS sweeps cache-friendly even when the node numbering is random
     * (on a 1M-node box with shuffled nodes it cut the time about threefold). */
    hs_status st = HS_OK;
    graph g = {0, NULL, NULL};
    int32_t *pre = NULL, *tets_pre = NULL, *order = NULL;
    HS_CALL_GOTO(HS_ALLOC(pre, (size_t)n, "first-touch labels"), done);
    {
        int32_t next = 0;
        for (int32_t v = 0; v < n; ++v) pre[v] = -1;
        for (size_t i = 0; i < (size_t)ne * 4; ++i)
            if (pre[tets[i]] < 0) pre[tets[i]] = next++;
        for (int32_t v = 0; v < n; ++v) /* nodes in no element: numbered last */
            if (pre[v] < 0) pre[v] = next++;
    }
    HS_CALL_GOTO(HS_ALLOC(tets_pre, (size_t)ne * 4, "relabelled connectivity"), done);
    for (size_t i = 0; i < (size_t)ne * 4; ++i) tets_pre[i] = pre[tets[i]];
    HS_CALL_GOTO(graph_build(tets_pre, ne, n, &g), done);
    free(tets_pre);
    tets_pre = NULL;
    HS_CALL_GOTO(HS_ALLOC(order, (size_t)n, "RCM order"), done);
    HS_CALL_GOTO(cuthill_mckee(&g, order), done);
    graph_free(&g);
    /* order[i] is the first-touch label of the i-th node in Cuthill-McKee order; reversed, and
     * composed with the first-touch labelling, it gives each node its new index */
    for (int32_t i = 0; i < n; ++i) newid[order[i]] = n - 1 - i; /* indexed by first-touch label */
    for (int32_t v = 0; v < n; ++v) order[v] = newid[pre[v]];   /* reuse order[] as old -> new */
    memcpy(newid, order, sizeof(int32_t) * (size_t)n);
done:
    graph_free(&g);
    free(pre);
    free(tets_pre);
    free(order);
    return st;
}
