/* A rank's view with its owned rows in local RCM order (hs_part_local_rcm_key,
 * hs_part_local_create_part_keyed; issue 26), on a box whose nodes are renumbered at random (fixed
 * seed), split in 2, 3 and 4 parts, each rank's part given with its nodes in increasing global number
 * (the view's bucketing path) and shuffled (its sorting path):
 * - key = NULL gives the view of the whole mesh's elements (hs_part_local_create_elems), array for
 *   array, with node_local and elem_local naming the view's nodes and elements;
 * - the RCM key is a permutation of the part's nodes, the same on every call;
 * - the keyed view holds the unkeyed one's owned nodes bucket by bucket (interior, boundary), in
 *   increasing (key, global number), and the same ghosts, neighbours and halo lists (the same global
 *   nodes in the same order), and the same elements (each with the same global vertices in the same
 *   vertex order) in increasing (smallest local node, global number), elem_local following them and
 *   hs_part_local_elem_order giving their places from the part's elements; the elements' locality
 *   (mean jump of the smallest local node between consecutive elements) far better than the keyed
 *   nodes' with the elements in global order; keys out of the counting sort's range, and keys with
 *   ties (broken by global number), give the same views by both of its paths; a view stored in its
 *   local order and rebuilt (hs_part_local_create_part_stored: the partitioned mesh cache) is the same
 *   view, keyed or not, and a stored part with an element twice is refused;
 * - the halo exchange simulated over the keyed views gives every ghost its owner's value, and the
 *   distributed SpMV over the local patterns equals the serial product within the bound of two
 *   summation orders;
 * - the owned block's bandwidth with the key is far below the unkeyed one's (the file order's).
 * With --bench CELLS [P] [shuffled|tetgen]: a box of CELLS^3 cells (100: 1.03M nodes), scrambled, in P
 * parts (4), or TetGen's box of edge 1/CELLS in TetGen's order: per rank the owned block's bandwidth, the key's and the view's times and a one-thread CSR SpMV
 * over the local pattern with and without the key, and the element pass (a gather of four node values
 * and a scatter back per element): unkeyed, keyed nodes with the elements in global order (the view
 * before its elements followed the key), and the keyed view's order ("shuffled": the elements in
 * random order too). docs/parallel.md quotes it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_csr.h"
#include "hs_mesh.h"
#include "hs_partition.h"
#include "hs_test.h"
#include "hs_util.h"

/* xorshift64*: the same scramble on every platform */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}
static void shuffle_i32(int32_t *a, int32_t n)
{
    for (int32_t i = n - 1; i > 0; --i) {
        const int32_t j = (int32_t)(rng() % (uint64_t)(i + 1)), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* the box with node v renamed perm[v] (coordinates moved with it); elements in lattice order unless
 * shuffle_elems */
typedef struct scrambled {
    int32_t n, ne;
    int32_t *tets; /* [ne][4] */
    double *xyz;   /* [n][3] */
    double ext[3];
} scrambled;

/* mode 0: nodes scrambled; 1: elements shuffled too; 2 (--bench): TetGen's box in TetGen's order */
static void scrambled_box(int cells, int mode, scrambled *s)
{
    const int shuffle_elems = mode == 1;
    hs_box_params bp = {1.0, 1.0, 1.0, 1.0 / cells, mode == 2, 1.414};
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_create_box(&bp, &m));
    if (!m) exit(1);
    s->n = m->n_nodes;
    s->ne = m->n_elems;
    for (int a = 0; a < 3; ++a) s->ext[a] = 1.0;
    int32_t *perm = malloc(sizeof(int32_t) * (size_t)s->n), *eo = malloc(sizeof(int32_t) * (size_t)s->ne);
    for (int32_t v = 0; v < s->n; ++v) perm[v] = v;
    for (int32_t e = 0; e < s->ne; ++e) eo[e] = e;
    if (mode != 2) shuffle_i32(perm, s->n);
    if (shuffle_elems) shuffle_i32(eo, s->ne);
    s->tets = malloc(4 * sizeof(int32_t) * (size_t)s->ne);
    s->xyz = malloc(3 * sizeof(double) * (size_t)s->n);
    for (int32_t v = 0; v < s->n; ++v) memcpy(s->xyz + 3 * (size_t)perm[v], m->xyz + 3 * (size_t)v, 3 * sizeof(double));
    for (int32_t e = 0; e < s->ne; ++e)
        for (int c = 0; c < 4; ++c) s->tets[4 * (size_t)e + c] = perm[m->tets[4 * (size_t)eo[e] + c]];
    free(perm);
    free(eo);
    hs_mesh_destroy(&m);
}

/* owners as a graph partitioner would make them: compact blocks (P = 2: x halves; 3: z slabs; 4: 2 x 2
 * in x, y) */
static void block_owners(const scrambled *s, int P, int32_t *owner)
{
    for (int32_t v = 0; v < s->n; ++v) {
        const double *x = s->xyz + 3 * (size_t)v;
        int o = 0;
        if (P == 4) o = (x[0] >= 0.5 * s->ext[0]) + 2 * (x[1] >= 0.5 * s->ext[1]);
        else if (P == 2) o = x[0] >= 0.5 * s->ext[0];
        else o = (int)(x[2] / s->ext[2] * P);
        owner[v] = o < 0 ? 0 : o >= P ? P - 1 : o;
    }
}

/* rank r's part as a rank that read its block would hold it: the elements with an owned vertex
 * (increasing global number) and their vertices, in increasing global number or shuffled */
typedef struct part {
    int32_t n, ne;
    int64_t *gid, *egid;
    int32_t *owner, *tets;
} part;

static void make_part(const scrambled *s, const int32_t *owner, int r, int shuffled, part *p)
{
    int32_t *at = malloc(sizeof(int32_t) * (size_t)s->n);
    for (int32_t v = 0; v < s->n; ++v) at[v] = -1;
    p->ne = 0;
    for (int32_t e = 0; e < s->ne; ++e) {
        const int32_t *t = s->tets + 4 * (size_t)e;
        if (owner[t[0]] == r || owner[t[1]] == r || owner[t[2]] == r || owner[t[3]] == r) {
            ++p->ne;
            for (int c = 0; c < 4; ++c) at[t[c]] = 0;
        }
    }
    int32_t *nodes = malloc(sizeof(int32_t) * (size_t)s->n);
    p->n = 0;
    for (int32_t v = 0; v < s->n; ++v)
        if (at[v] == 0) nodes[p->n++] = v;
    if (shuffled) shuffle_i32(nodes, p->n);
    p->gid = malloc(sizeof(int64_t) * ((size_t)p->n + 1));
    p->owner = malloc(sizeof(int32_t) * ((size_t)p->n + 1));
    for (int32_t i = 0; i < p->n; ++i) {
        p->gid[i] = nodes[i];
        p->owner[i] = owner[nodes[i]];
        at[nodes[i]] = i;
    }
    p->egid = malloc(sizeof(int64_t) * ((size_t)p->ne + 1));
    p->tets = malloc(4 * sizeof(int32_t) * ((size_t)p->ne + 1));
    int32_t k = 0;
    for (int32_t e = 0; e < s->ne; ++e) {
        const int32_t *t = s->tets + 4 * (size_t)e;
        if (!(owner[t[0]] == r || owner[t[1]] == r || owner[t[2]] == r || owner[t[3]] == r)) continue;
        p->egid[k] = e;
        for (int c = 0; c < 4; ++c) p->tets[4 * (size_t)k + c] = at[t[c]];
        ++k;
    }
    free(nodes);
    free(at);
}

static void part_free(part *p)
{
    free(p->gid);
    free(p->egid);
    free(p->owner);
    free(p->tets);
}

static int csr_equal(const hs_csr *a, const hs_csr *b)
{
    return a && b && a->n_rows == b->n_rows && a->n_cols == b->n_cols && a->nnz == b->nnz &&
           !memcmp(a->row_ptr, b->row_ptr, sizeof(int32_t) * ((size_t)a->n_rows + 1)) &&
           !memcmp(a->col, b->col, sizeof(int32_t) * (size_t)a->nnz);
}

/* array for array */
static int views_equal(const hs_part_local *x, const hs_part_local *y)
{
    const int32_t nl = x->n_owned + x->n_ghost;
    if (x->n_global != y->n_global || x->n_interior != y->n_interior || x->n_owned != y->n_owned ||
        x->n_ghost != y->n_ghost || x->n_elems != y->n_elems || x->n_nbrs != y->n_nbrs)
        return 0;
    return !memcmp(x->l2g, y->l2g, sizeof(int64_t) * (size_t)nl) &&
           !memcmp(x->ghost_owner, y->ghost_owner, sizeof(int32_t) * (size_t)x->n_ghost) &&
           !memcmp(x->elems, y->elems, sizeof(int64_t) * (size_t)x->n_elems) &&
           !memcmp(x->tets, y->tets, 4 * sizeof(int32_t) * (size_t)x->n_elems) &&
           !memcmp(x->nbr, y->nbr, sizeof(int32_t) * (size_t)x->n_nbrs) &&
           !memcmp(x->send_ptr, y->send_ptr, sizeof(int32_t) * ((size_t)x->n_nbrs + 1)) &&
           !memcmp(x->recv_ptr, y->recv_ptr, sizeof(int32_t) * ((size_t)x->n_nbrs + 1)) &&
           !memcmp(x->send_idx, y->send_idx, sizeof(int32_t) * (size_t)x->send_ptr[x->n_nbrs]) &&
           csr_equal(x->pattern, y->pattern) && csr_equal(x->local_pattern, y->local_pattern);
}

/* largest |i - j| over the owned block (owned rows, owned columns) of the local pattern */
static int32_t owned_bandwidth(const hs_part_local *l)
{
    int32_t bw = 0;
    for (int32_t i = 0; i < l->n_owned; ++i)
        for (int32_t k = l->pattern->row_ptr[i]; k < l->pattern->row_ptr[i + 1]; ++k) {
            const int32_t j = l->pattern->col[k];
            if (j < l->n_owned && abs(i - j) > bw) bw = abs(i - j);
        }
    return bw;
}

/* the owned block's locality: the largest |i - j| within each bucket's diagonal block (interior rows
 * and columns; boundary rows and columns) and the mean |i - j| over the whole owned block */
typedef struct locality {
    int32_t bw_interior, bw_boundary;
    double mean;
} locality;

static locality owned_locality(const hs_part_local *l)
{
    locality o = {0, 0, 0.0};
    int64_t n = 0;
    const int32_t ni = l->n_interior;
    for (int32_t i = 0; i < l->n_owned; ++i)
        for (int32_t k = l->pattern->row_ptr[i]; k < l->pattern->row_ptr[i + 1]; ++k) {
            const int32_t j = l->pattern->col[k], d = abs(i - j);
            if (j >= l->n_owned) continue;
            if (i < ni && j < ni && d > o.bw_interior) o.bw_interior = d;
            if (i >= ni && j >= ni && d > o.bw_boundary) o.bw_boundary = d;
            o.mean += d;
            ++n;
        }
    o.mean /= n > 0 ? (double)n : 1.0;
    return o;
}

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* an element's smallest local node */
static int32_t elem_min(const int32_t *t)
{
    int32_t mn = t[0];
    for (int c = 1; c < 4; ++c) mn = t[c] < mn ? t[c] : mn;
    return mn;
}

/* the element pass's locality: the mean |jump| of the smallest local node between consecutive
 * elements of tets [ne][4] (ne - 1 jumps) */
static double elem_jump(const int32_t *tets, int32_t ne)
{
    double sum = 0.0;
    for (int32_t m = 1; m < ne; ++m) sum += abs(elem_min(tets + 4 * (size_t)m) - elem_min(tets + 4 * (size_t)(m - 1)));
    return ne > 1 ? sum / (double)(ne - 1) : 0.0;
}

/* (global number, index) pairs: a view's elements in global order */
static int cmp_i64_pair(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]) ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* the view's elements' local nodes [n_elems][4] in increasing global number (the order a keyed view
 * kept before its elements followed the key) */
static int32_t *tets_in_global_order(const hs_part_local *l)
{
    int64_t *srt = malloc(2 * sizeof(int64_t) * ((size_t)l->n_elems + 1));
    int32_t *t = malloc(4 * sizeof(int32_t) * ((size_t)l->n_elems + 1));
    for (int32_t m = 0; m < l->n_elems; ++m) srt[2 * m] = l->elems[m], srt[2 * m + 1] = m;
    qsort(srt, (size_t)l->n_elems, 2 * sizeof(int64_t), cmp_i64_pair);
    for (int32_t m = 0; m < l->n_elems; ++m) memcpy(t + 4 * (size_t)m, l->tets + 4 * (size_t)srt[2 * m + 1], 16);
    free(srt);
    return t;
}

/* the matrix's entries, a function of the global numbers (symmetric), and the vector */
static double a_of(int64_t i, int64_t j) { return i == j ? 30.0 + (double)(i % 7) : -1.0 / (1.0 + (double)((i + j) % 5)); }
static double x_of(int64_t g) { return 1.0 + (double)(g % 13) / 13.0; }

/* the keyed view k against the unkeyed u of the same part p (node_local nk, nu; key) */
static void check_keyed(const hs_part_local *k, const hs_part_local *u, const part *p, const int32_t *nk,
                        const int64_t *key, const char *what)
{
    HS_TEST_CHECK(k->n_owned == u->n_owned && k->n_interior == u->n_interior && k->n_ghost == u->n_ghost &&
                      k->n_elems == u->n_elems && k->n_nbrs == u->n_nbrs,
                  "%s: the keyed view has other sizes", what);
    if (k->n_owned != u->n_owned || k->n_interior != u->n_interior || k->n_ghost != u->n_ghost ||
        k->n_elems != u->n_elems || k->n_nbrs != u->n_nbrs)
        return;
    const int32_t no = k->n_owned, nl = no + k->n_ghost, nn = k->n_nbrs;
    /* the owned buckets: the same global nodes (the unkeyed ones increase) */
    int64_t *s = malloc(sizeof(int64_t) * ((size_t)no + 1));
    memcpy(s, k->l2g, sizeof(int64_t) * (size_t)no);
    qsort(s, (size_t)k->n_interior, sizeof *s, cmp_i64);
    qsort(s + k->n_interior, (size_t)(no - k->n_interior), sizeof *s, cmp_i64);
    HS_TEST_CHECK(!memcmp(s, u->l2g, sizeof(int64_t) * (size_t)no), "%s: the buckets hold other owned nodes", what);
    free(s);
    /* in increasing (key, global number) within each bucket */
    int64_t *kl = malloc(sizeof(int64_t) * ((size_t)nl + 1));
    for (int32_t i = 0; i < p->n; ++i)
        if (nk[i] >= 0) kl[nk[i]] = key[i];
    int bad = 0;
    for (int32_t li = 1; li < no; ++li)
        if (li != k->n_interior)
            bad += !(kl[li] > kl[li - 1] || (kl[li] == kl[li - 1] && k->l2g[li] > k->l2g[li - 1]));
    HS_TEST_CHECK(bad == 0, "%s: %d owned nodes out of (key, global number) order", what, bad);
    free(kl);
    /* ghosts, neighbours, receive lists: the same */
    HS_TEST_CHECK(!memcmp(k->l2g + no, u->l2g + no, sizeof(int64_t) * (size_t)k->n_ghost) &&
                      !memcmp(k->ghost_owner, u->ghost_owner, sizeof(int32_t) * (size_t)k->n_ghost) &&
                      !memcmp(k->nbr, u->nbr, sizeof(int32_t) * (size_t)nn) &&
                      !memcmp(k->recv_ptr, u->recv_ptr, sizeof(int32_t) * ((size_t)nn + 1)) &&
                      !memcmp(k->send_ptr, u->send_ptr, sizeof(int32_t) * ((size_t)nn + 1)),
                  "%s: ghosts, neighbours or list sizes differ", what);
    /* the elements: the unkeyed view's (increasing global number), each with the same global vertices
     * in the same vertex order, in increasing (smallest local node, global number) */
    int64_t *eg = malloc(sizeof(int64_t) * ((size_t)k->n_elems + 1));
    memcpy(eg, k->elems, sizeof(int64_t) * (size_t)k->n_elems);
    qsort(eg, (size_t)k->n_elems, sizeof *eg, cmp_i64);
    HS_TEST_CHECK(!memcmp(eg, u->elems, sizeof(int64_t) * (size_t)k->n_elems), "%s: other elements", what);
    free(eg);
    bad = 0;
    int unordered = 0;
    for (int32_t m = 0; m < k->n_elems; ++m) {
        const int64_t *hit = bsearch(&k->elems[m], u->elems, (size_t)u->n_elems, sizeof(int64_t), cmp_i64);
        if (!hit) {
            ++bad;
            continue;
        }
        const int32_t mu = (int32_t)(hit - u->elems);
        for (int c = 0; c < 4; ++c) bad += k->l2g[k->tets[4 * (size_t)m + c]] != u->l2g[u->tets[4 * (size_t)mu + c]];
        if (m > 0) {
            const int32_t a = elem_min(k->tets + 4 * (size_t)(m - 1)), b = elem_min(k->tets + 4 * (size_t)m);
            unordered += !(b > a || (b == a && k->elems[m] > k->elems[m - 1]));
        }
    }
    HS_TEST_CHECK(bad == 0, "%s: %d element vertices are other global nodes", what, bad);
    HS_TEST_CHECK(unordered == 0, "%s: %d elements out of (smallest local node, global number) order", what, unordered);
    /* the send lists: the same global nodes in the same order (the receiver's ghost order) */
    bad = 0;
    for (int32_t q = 0; q < u->send_ptr[nn]; ++q) bad += k->l2g[k->send_idx[q]] != u->l2g[u->send_idx[q]];
    HS_TEST_CHECK(bad == 0, "%s: %d send list entries are other global nodes", what, bad);
    /* the local pattern: the elements' pattern in the keyed numbering, its owned rows the view's */
    hs_csr *lp = NULL;
    HS_TEST_OK(hs_csr_from_tets(nl, k->n_elems, k->tets, &lp));
    HS_TEST_CHECK(lp && csr_equal(lp, k->local_pattern) && k->pattern->n_rows == no &&
                      !memcmp(lp->row_ptr, k->pattern->row_ptr, sizeof(int32_t) * ((size_t)no + 1)) &&
                      !memcmp(lp->col, k->pattern->col, sizeof(int32_t) * (size_t)k->pattern->nnz),
                  "%s: the local pattern is not the keyed elements'", what);
    hs_csr_destroy(&lp);
}

/* the halo exchange over the views v[P] (values x_of at the owned nodes), then y = A x on each rank's
 * owned rows against the serial product */
static void check_exchange_spmv(const scrambled *s, hs_part_local *const *v, int P, const char *what)
{
    double **x = malloc(sizeof(double *) * (size_t)P);
    for (int r = 0; r < P; ++r) {
        const hs_part_local *l = v[r];
        x[r] = malloc(sizeof(double) * ((size_t)l->n_owned + l->n_ghost + 1));
        for (int32_t i = 0; i < l->n_owned; ++i) x[r][i] = x_of(l->l2g[i]);
        for (int32_t i = l->n_owned; i < l->n_owned + l->n_ghost; ++i) x[r][i] = NAN;
    }
    int bad_len = 0;
    for (int r = 0; r < P; ++r) /* rank r sends to each neighbour q what q receives from r */
        for (int k = 0; k < v[r]->n_nbrs; ++k) {
            const int q = v[r]->nbr[k];
            const hs_part_local *d = v[q];
            int kq = -1;
            for (int j = 0; j < d->n_nbrs; ++j)
                if (d->nbr[j] == r) kq = j;
            const int32_t n = v[r]->send_ptr[k + 1] - v[r]->send_ptr[k];
            if (kq < 0 || d->recv_ptr[kq + 1] - d->recv_ptr[kq] != n) {
                ++bad_len;
                continue;
            }
            for (int32_t j = 0; j < n; ++j)
                x[q][d->n_owned + d->recv_ptr[kq] + j] = x[r][v[r]->send_idx[v[r]->send_ptr[k] + j]];
        }
    HS_TEST_CHECK(bad_len == 0, "%s: %d messages without their receive list of the same length", what, bad_len);
    int bad_ghost = 0;
    for (int r = 0; r < P; ++r)
        for (int32_t i = v[r]->n_owned; i < v[r]->n_owned + v[r]->n_ghost; ++i)
            bad_ghost += !(x[r][i] == x_of(v[r]->l2g[i])); /* NaN: never received */
    HS_TEST_CHECK(bad_ghost == 0, "%s: %d ghosts did not receive their owner's value", what, bad_ghost);
    /* the serial product, and the bound on two summation orders of a row of n terms: each within
     * gamma_{n-1} sum |a x| of the exact sum (Higham, Accuracy and Stability, sec. 3.1) */
    hs_csr *a = NULL;
    HS_TEST_OK(hs_csr_from_tets(s->n, s->ne, s->tets, &a));
    if (!a) return;
    double *y = malloc(sizeof(double) * (size_t)s->n), *bound = malloc(sizeof(double) * (size_t)s->n);
    int32_t *rows = calloc((size_t)s->n, sizeof(int32_t));
    const double u = 0.5 * 2.220446049250313e-16;
    for (int32_t i = 0; i < s->n; ++i) {
        double sum = 0.0, abs_sum = 0.0;
        const int32_t nr = a->row_ptr[i + 1] - a->row_ptr[i];
        for (int32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; ++k) {
            sum += a_of(i, a->col[k]) * x_of(a->col[k]);
            abs_sum += fabs(a_of(i, a->col[k]) * x_of(a->col[k]));
        }
        y[i] = sum;
        bound[i] = 2.0 * (nr * u / (1.0 - nr * u)) * abs_sum;
    }
    int bad = 0, bad_rows = 0;
    double worst = 0.0;
    for (int r = 0; r < P; ++r) {
        const hs_part_local *l = v[r];
        for (int32_t i = 0; i < l->n_owned; ++i) {
            double sum = 0.0;
            const int64_t gi = l->l2g[i];
            for (int32_t k = l->pattern->row_ptr[i]; k < l->pattern->row_ptr[i + 1]; ++k)
                sum += a_of(gi, l->l2g[l->pattern->col[k]]) * x[r][l->pattern->col[k]];
            ++rows[gi];
            bad_rows += l->pattern->row_ptr[i + 1] - l->pattern->row_ptr[i] != a->row_ptr[gi + 1] - a->row_ptr[gi];
            if (!(fabs(sum - y[gi]) <= bound[gi])) ++bad;
            if (fabs(sum - y[gi]) / (bound[gi] > 0 ? bound[gi] : 1.0) > worst) worst = fabs(sum - y[gi]) / bound[gi];
        }
    }
    for (int32_t i = 0; i < s->n; ++i) bad_rows += rows[i] != 1;
    HS_TEST_CHECK(bad_rows == 0, "%s: %d rows owned other than once or of another length", what, bad_rows);
    HS_TEST_CHECK(bad == 0, "%s: %d rows of the distributed SpMV outside the bound (worst %.3g of it)", what, bad,
                  worst);
    free(y);
    free(bound);
    free(rows);
    hs_csr_destroy(&a);
    for (int r = 0; r < P; ++r) free(x[r]);
    free(x);
}

/* unkeyed / keyed ratios asserted below, measured on this box (20^3 cells, 2-4 parts, 20 cases): the
 * interior block's bandwidth 14.9-20.8 (unkeyed near n_interior, keyed a few layers of the part), the
 * boundary block's 11.5-20.9, the owned block's mean |i - j| 2.6-7.3; the bounds leave margin */
#define MIN_BANDWIDTH_RATIO 5.0
#define MIN_MEAN_RATIO 2.0
/* the elements' mean jump of the smallest local node, in global order / in the keyed view's order:
 * measured 309-738 on this box (2-4 parts); the sorted order's is about n_owned / n_elems */
#define MIN_ELEM_JUMP_RATIO 100.0

static void check_parts(const scrambled *s, int P)
{
    int32_t *owner = malloc(sizeof(int32_t) * (size_t)s->n);
    block_owners(s, P, owner);
    for (int shuffled = 0; shuffled < 2; ++shuffled) {
        hs_part_local **vk = calloc((size_t)P, sizeof *vk), **vu = calloc((size_t)P, sizeof *vu);
        for (int r = 0; r < P; ++r) {
            char what[96];
            snprintf(what, sizeof what, "P=%d rank %d (part nodes %s)", P, r, shuffled ? "shuffled" : "increasing");
            part p;
            make_part(s, owner, r, shuffled, &p);
            int32_t *nu = malloc(sizeof(int32_t) * ((size_t)p.n + 1)), *eu = malloc(sizeof(int32_t) * ((size_t)p.ne + 1));
            int32_t *nk = malloc(sizeof(int32_t) * ((size_t)p.n + 1)), *ek = malloc(sizeof(int32_t) * ((size_t)p.ne + 1));
            int32_t *n2 = malloc(sizeof(int32_t) * ((size_t)p.n + 1)), *e2 = malloc(sizeof(int32_t) * ((size_t)p.ne + 1));
            int64_t *key = malloc(sizeof(int64_t) * ((size_t)p.n + 1)), *key2 = malloc(sizeof(int64_t) * ((size_t)p.n + 1));
            /* key = NULL: the view of the whole mesh's elements, array for array */
            hs_part_local *ref = NULL, *old = NULL;
            HS_TEST_OK(hs_part_local_create_elems(s->n, s->ne, s->tets, owner, P, r, &ref));
            HS_TEST_OK(hs_part_local_create_part_keyed(s->n, p.n, p.gid, p.owner, p.ne, p.egid, p.tets, NULL, P, r, &vu[r],
                                                       nu, eu));
            HS_TEST_OK(hs_part_local_create_part(s->n, p.n, p.gid, p.owner, p.ne, p.egid, p.tets, P, r, &old, n2, e2));
            HS_TEST_CHECK(ref && vu[r] && views_equal(vu[r], ref), "%s: key = NULL: not the whole mesh's view", what);
            HS_TEST_CHECK(old && vu[r] && views_equal(vu[r], old) && !memcmp(nu, n2, sizeof(int32_t) * (size_t)p.n) &&
                              !memcmp(eu, e2, sizeof(int32_t) * (size_t)p.ne),
                          "%s: key = NULL differs from hs_part_local_create_part", what);
            if (vu[r]) {
                int bad = 0;
                for (int32_t i = 0; i < p.n; ++i) bad += nu[i] < 0 || vu[r]->l2g[nu[i]] != p.gid[i];
                for (int32_t e = 0; e < p.ne; ++e) bad += eu[e] < 0 || vu[r]->elems[eu[e]] != p.egid[e];
                HS_TEST_CHECK(bad == 0, "%s: %d part nodes or elements with another local number", what, bad);
            }
            /* the RCM key: a permutation of the part's nodes, deterministic */
            HS_TEST_OK(hs_part_local_rcm_key(p.n, p.ne, p.tets, key));
            HS_TEST_OK(hs_part_local_rcm_key(p.n, p.ne, p.tets, key2));
            HS_TEST_CHECK(!memcmp(key, key2, sizeof(int64_t) * (size_t)p.n), "%s: the key changed between calls", what);
            {
                char *seen = calloc((size_t)p.n + 1, 1);
                int bad = 0;
                for (int32_t i = 0; i < p.n; ++i) {
                    if (key[i] < 0 || key[i] >= p.n || seen[key[i]]) ++bad;
                    else seen[key[i]] = 1;
                }
                HS_TEST_CHECK(bad == 0, "%s: the key is not a permutation of [0, %d) (%d bad)", what, (int)p.n, bad);
                free(seen);
            }
            HS_TEST_OK(hs_part_local_create_part_keyed(s->n, p.n, p.gid, p.owner, p.ne, p.egid, p.tets, key, P, r, &vk[r],
                                                       nk, ek));
            if (vk[r] && vu[r]) {
                check_keyed(vk[r], vu[r], &p, nk, key, what);
                int bad = 0, bad_e = 0;
                for (int32_t i = 0; i < p.n; ++i) bad += nk[i] < 0 || vk[r]->l2g[nk[i]] != p.gid[i];
                for (int32_t e = 0; e < p.ne; ++e) bad_e += ek[e] < 0 || vk[r]->elems[ek[e]] != p.egid[e];
                HS_TEST_CHECK(bad == 0 && bad_e == 0, "%s: keyed: %d part nodes, %d elements with another local number",
                              what, bad, bad_e);
                /* the elements' places from the part's elements and node_local (hs_part_packed_unpack's way) */
                int32_t *pos = malloc(sizeof(int32_t) * ((size_t)p.ne + 1));
                HS_TEST_OK(hs_part_local_elem_order(vk[r]->n_owned, p.ne, p.tets, nk, pos));
                HS_TEST_CHECK(!memcmp(pos, ek, sizeof(int32_t) * (size_t)p.ne),
                              "%s: hs_part_local_elem_order does not give the keyed view's element places", what);
                free(pos);
                /* the element pass's locality: the view's order against the keyed nodes' with the elements in
                 * global order */
                int32_t *tg = tets_in_global_order(vk[r]);
                const double jk = elem_jump(vk[r]->tets, vk[r]->n_elems), jg = elem_jump(tg, vk[r]->n_elems);
                free(tg);
                HS_TEST_CHECK(jk * MIN_ELEM_JUMP_RATIO <= jg, "%s: mean jump of the elements' smallest local node %.3g "
                              "in the keyed view, %.3g in global order (ratio < %.0f)", what, jk, jg, MIN_ELEM_JUMP_RATIO);
                if (getenv("HS_TEST_VERBOSE"))
                    printf("%s: elements' mean jump %.3f keyed view, %.3f in global order\n", what, jk, jg);
                /* the interior and boundary rows are two blocks of their own (the SpMV runs them apart), whose
                 * coupling rows keep the whole owned block's bandwidth near n_interior with or without a key:
                 * the blocks' bandwidths and the mean |i - j| are what the key improves */
                const int32_t bk = owned_bandwidth(vk[r]), bu = owned_bandwidth(vu[r]);
                const locality lk = owned_locality(vk[r]), lu = owned_locality(vu[r]);
                HS_TEST_CHECK(lk.bw_interior * MIN_BANDWIDTH_RATIO <= lu.bw_interior &&
                                  lk.bw_boundary * MIN_BANDWIDTH_RATIO <= lu.bw_boundary && lk.mean * MIN_MEAN_RATIO <= lu.mean,
                              "%s: owned blocks' bandwidths keyed %d (interior), %d (boundary), unkeyed %d, %d (ratio < %.1f), "
                              "or mean |i - j| keyed %.1f, unkeyed %.1f (ratio < %.1f)", what, (int)lk.bw_interior,
                              (int)lk.bw_boundary, (int)lu.bw_interior, (int)lu.bw_boundary, MIN_BANDWIDTH_RATIO, lk.mean,
                              lu.mean, MIN_MEAN_RATIO);
                if (getenv("HS_TEST_VERBOSE"))
                    printf("%s: %d owned (%d interior), bandwidth %d unkeyed, %d keyed; interior block %d / %d, boundary "
                           "block %d / %d, mean |i-j| %.1f / %.1f\n", what, (int)vk[r]->n_owned, (int)vk[r]->n_interior,
                           (int)bu, (int)bk, (int)lu.bw_interior, (int)lk.bw_interior, (int)lu.bw_boundary,
                           (int)lk.bw_boundary, lu.mean, lk.mean);
            }
            /* a view stored in its local order (the partitioned mesh cache, sim/mesh_cache.c) and rebuilt
             * in that order: the same view, keyed or not */
            for (int t = 0; t < 2; ++t) {
                const hs_part_local *l = t ? vk[r] : vu[r];
                if (!l) continue;
                const int32_t nl = l->n_owned + l->n_ghost;
                int32_t *own = malloc(sizeof(int32_t) * ((size_t)nl + 1)), *n3 = malloc(sizeof(int32_t) * ((size_t)nl + 1));
                int32_t *e3 = malloc(sizeof(int32_t) * ((size_t)l->n_elems + 1));
                for (int32_t i = 0; i < nl; ++i) own[i] = i < l->n_owned ? r : l->ghost_owner[i - l->n_owned];
                hs_part_local *back = NULL;
                HS_TEST_OK(hs_part_local_create_part_stored(s->n, nl, l->l2g, own, l->n_elems, l->elems, l->tets, P, r,
                                                            &back, n3, e3));
                int moved = 0;
                for (int32_t i = 0; i < nl; ++i) moved += n3[i] != i;
                for (int32_t e = 0; e < l->n_elems; ++e) moved += e3[e] != e;
                HS_TEST_CHECK(back && views_equal(back, l) && moved == 0,
                              "%s: the %s view rebuilt in its stored order differs (%d nodes or elements moved)", what,
                              t ? "keyed" : "unkeyed", moved);
                hs_part_local_destroy(&back);
                if (t && l->n_elems > 2) { /* an element twice: refused */
                    int64_t *dup = malloc(sizeof(int64_t) * (size_t)l->n_elems);
                    memcpy(dup, l->elems, sizeof(int64_t) * (size_t)l->n_elems);
                    dup[l->n_elems - 1] = dup[0];
                    HS_TEST_CHECK(hs_part_local_create_part_stored(s->n, nl, l->l2g, own, l->n_elems, dup, l->tets, P, r,
                                                                   &back, n3, e3) == HS_ERR_INTERNAL && !back,
                                  "%s: a stored part with an element twice accepted", what);
                    hs_error_clear();
                    free(dup);
                }
                free(own), free(n3), free(e3);
            }
            /* both paths of the key sort: keys beyond [0, n) (qsort) and in it; with ties (global order) */
            for (int t = 0; t < 2; ++t) {
                hs_part_local *a = NULL, *b = NULL;
                for (int32_t i = 0; i < p.n; ++i) key2[i] = t ? key[i] / 3 : 1000000007LL * key[i] - 5;
                HS_TEST_OK(hs_part_local_create_part_keyed(s->n, p.n, p.gid, p.owner, p.ne, p.egid, p.tets, key2, P, r, &a,
                                                           n2, e2));
                if (t == 0) {
                    HS_TEST_CHECK(a && vk[r] && views_equal(a, vk[r]), "%s: keys beyond [0, n) give another view", what);
                } else if (a && vu[r]) { /* ties: dense keys (counting sort) and the same spread out (qsort) */
                    check_keyed(a, vu[r], &p, n2, key2, what);
                    for (int32_t i = 0; i < p.n; ++i) key2[i] = 7 * (key[i] / 3) + p.n; /* beyond [0, n) */
                    HS_TEST_OK(hs_part_local_create_part_keyed(s->n, p.n, p.gid, p.owner, p.ne, p.egid, p.tets, key2, P, r,
                                                               &b, n2, e2));
                    HS_TEST_CHECK(b && views_equal(a, b), "%s: tied keys: the two sorts disagree", what);
                }
                hs_part_local_destroy(&a);
                hs_part_local_destroy(&b);
            }
            hs_part_local_destroy(&ref);
            hs_part_local_destroy(&old);
            free(nu), free(eu), free(nk), free(ek), free(n2), free(e2), free(key), free(key2);
            part_free(&p);
        }
        int all = 1;
        for (int r = 0; r < P; ++r) all = all && vk[r] && vu[r];
        if (all) {
            char what[64];
            snprintf(what, sizeof what, "P=%d (%s) keyed", P, shuffled ? "shuffled" : "increasing");
            check_exchange_spmv(s, vk, P, what);
            snprintf(what, sizeof what, "P=%d (%s) unkeyed", P, shuffled ? "shuffled" : "increasing");
            check_exchange_spmv(s, vu, P, what);
        }
        for (int r = 0; r < P; ++r) {
            hs_part_local_destroy(&vk[r]);
            hs_part_local_destroy(&vu[r]);
        }
        free(vk);
        free(vu);
    }
    free(owner);
}

/* ---- --bench ---------------------------------------------------------------------------------- */

static double spmv_time(const hs_part_local *l, const double *a, const double *x, double *y, int reps)
{
    const hs_csr *p = l->pattern;
    double best = INFINITY;
    for (int t = 0; t < reps; ++t) {
        const double t0 = hs_wtime();
        for (int32_t i = 0; i < p->n_rows; ++i) {
            double sum = 0.0;
            for (int32_t k = p->row_ptr[i]; k < p->row_ptr[i + 1]; ++k) sum += a[k] * x[p->col[k]];
            y[i] = sum;
        }
        const double dt = hs_wtime() - t0;
        if (dt < best) best = dt;
    }
    return best;
}

/* the element pass's memory pattern: gather four node values, scatter one back to each */
static double elem_time(const int32_t *tets, int32_t ne, const double *x, double *r, int32_t nl, int reps)
{
    double best = INFINITY;
    for (int t = 0; t < reps; ++t) {
        memset(r, 0, sizeof(double) * (size_t)nl);
        const double t0 = hs_wtime();
        for (int32_t e = 0; e < ne; ++e) {
            const int32_t *q = tets + 4 * (size_t)e;
            const double m = 0.25 * (x[q[0]] + x[q[1]] + x[q[2]] + x[q[3]]);
            for (int c = 0; c < 4; ++c) r[q[c]] += m - x[q[c]];
        }
        const double dt = hs_wtime() - t0;
        if (dt < best) best = dt;
    }
    return best;
}

static void bench(int cells, int P, int mode)
{
    scrambled s;
    const double t0 = hs_wtime();
    scrambled_box(cells, mode, &s);
    int32_t *owner = malloc(sizeof(int32_t) * (size_t)s.n);
    block_owners(&s, P, owner);
    printf("box h = 1/%d: %d nodes, %d elements, %s, %d parts (mesh %.1f s)\n", cells, (int)s.n, (int)s.ne,
           mode == 2 ? "TetGen's node and element order" : mode ? "nodes scrambled, elements shuffled"
                                                               : "nodes scrambled, elements in lattice order",
           P, hs_wtime() - t0);
    printf("rank | owned (interior) | bandwidth: owned block, interior block, boundary block, mean |i-j|: unkeyed / "
           "keyed | key s | view s unkeyed / keyed | spmv ms unkeyed / keyed | element pass ms: unkeyed / keyed nodes, "
           "elements in global order / keyed view (elements by smallest local node)\n");
    for (int r = 0; r < P; ++r) {
        part p;
        make_part(&s, owner, r, 0, &p);
        int32_t *nl = malloc(sizeof(int32_t) * ((size_t)p.n + 1)), *el = malloc(sizeof(int32_t) * ((size_t)p.ne + 1));
        int64_t *key = malloc(sizeof(int64_t) * ((size_t)p.n + 1));
        hs_part_local *u = NULL, *k = NULL;
        double t0 = hs_wtime();
        HS_TEST_OK(hs_part_local_create_part(s.n, p.n, p.gid, p.owner, p.ne, p.egid, p.tets, P, r, &u, nl, el));
        const double t_u = hs_wtime() - t0;
        t0 = hs_wtime();
        HS_TEST_OK(hs_part_local_rcm_key(p.n, p.ne, p.tets, key));
        const double t_key = hs_wtime() - t0;
        t0 = hs_wtime();
        HS_TEST_OK(hs_part_local_create_part_keyed(s.n, p.n, p.gid, p.owner, p.ne, p.egid, p.tets, key, P, r, &k, nl, el));
        const double t_k = hs_wtime() - t0;
        if (!u || !k) exit(1);
        const int32_t nloc = u->n_owned + u->n_ghost;
        const int64_t nnz = u->pattern->nnz;
        double *a = malloc(sizeof(double) * (size_t)nnz), *x = malloc(sizeof(double) * (size_t)nloc);
        double *y = malloc(sizeof(double) * (size_t)nloc);
        for (int64_t q = 0; q < nnz; ++q) a[q] = 1.0 + (double)(q % 7);
        for (int32_t i = 0; i < nloc; ++i) x[i] = 1.0 + (double)(i % 11);
        const double s_u = spmv_time(u, a, x, y, 50), s_k = spmv_time(k, a, x, y, 50);
        const double e_u = elem_time(u->tets, u->n_elems, x, y, nloc, 20);
        /* the keyed nodes with the elements in global order (the keyed view's before they followed the key) */
        int32_t *tg = tets_in_global_order(k);
        const double e_g = elem_time(tg, k->n_elems, x, y, nloc, 20);
        const double e_k = elem_time(k->tets, k->n_elems, x, y, nloc, 20);
        const locality lu = owned_locality(u), lk = owned_locality(k);
        printf("%d | %d (%d) | %d, %d, %d, %.0f / %d, %d, %d, %.0f | %.2f | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f / "
               "%.2f\n", r, (int)u->n_owned, (int)u->n_interior, (int)owned_bandwidth(u), (int)lu.bw_interior,
               (int)lu.bw_boundary, lu.mean, (int)owned_bandwidth(k), (int)lk.bw_interior, (int)lk.bw_boundary, lk.mean,
               t_key, t_u, t_k, 1e3 * s_u, 1e3 * s_k, 1e3 * e_u, 1e3 * e_g, 1e3 * e_k);
        free(tg), free(a), free(x), free(y), free(nl), free(el), free(key);
        hs_part_local_destroy(&u);
        hs_part_local_destroy(&k);
        part_free(&p);
    }
    free(owner);
    free(s.tets);
    free(s.xyz);
}

int main(int argc, char **argv)
{
    if (argc >= 3 && !strcmp(argv[1], "--bench")) {
        bench(atoi(argv[2]), argc >= 4 ? atoi(argv[3]) : 4,
              argc < 5 ? 0 : !strcmp(argv[4], "shuffled") ? 1 : !strcmp(argv[4], "tetgen") ? 2 : 0);
        HS_TEST_RETURN();
    }
    scrambled s;
    scrambled_box(20, 0, &s);
    for (int P = 2; P <= 4; ++P) check_parts(&s, P);
    free(s.tets);
    free(s.xyz);
    /* a bad element: named, not a crash */
    const int32_t bad_tets[4] = {0, 1, 2, 7};
    int64_t key[4];
    HS_TEST_CHECK(hs_part_local_rcm_key(4, 1, bad_tets, key) == HS_ERR_INTERNAL, "an element out of range accepted");
    hs_error_clear();
    HS_TEST_RETURN();
}
