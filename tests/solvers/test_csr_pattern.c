/*
 * hs_csr_from_tets against a brute-force pattern: every (a, b) node pair of every element plus the
 * diagonal of every node, sorted and de-duplicated as 64-bit keys. Cases: a structured-like random
 * P1 mesh with shuffled node numbers (the hash path, rows of 15-30), a star of 200 tetrahedra around
 * one node (its row has 801 candidates: the qsort path), isolated nodes (rows with the diagonal
 * only). The patterns must be identical, row pointers and columns.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "hs_csr.h"
#include "hs_test.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void check(const char *what, int32_t nn, int32_t ne, const int32_t *tets)
{
    hs_csr *a = NULL;
    HS_TEST_OK(hs_csr_from_tets(nn, ne, tets, &a));
    if (!a) return;
    size_t nk = (size_t)ne * 16 + (size_t)nn;
    uint64_t *k = malloc(sizeof(uint64_t) * nk);
    size_t q = 0;
    for (int32_t i = 0; i < nn; ++i) k[q++] = ((uint64_t)i << 32) | (uint32_t)i;
    for (int32_t e = 0; e < ne; ++e)
        for (int x = 0; x < 4; ++x)
            for (int y = 0; y < 4; ++y)
                k[q++] = ((uint64_t)(uint32_t)tets[4 * e + x] << 32) | (uint32_t)tets[4 * e + y];
    qsort(k, q, sizeof *k, cmp_u64);
    size_t u = 0;
    for (size_t j = 0; j < q; ++j)
        if (u == 0 || k[j] != k[u - 1]) k[u++] = k[j];
    int ok = a->nnz == (int32_t)u && a->row_ptr[0] == 0;
    for (size_t j = 0; ok && j < u; ++j) ok = a->col[j] == (int32_t)(uint32_t)k[j];
    for (int32_t i = 0; ok && i < nn; ++i) {
        int32_t lo = a->row_ptr[i], hi = a->row_ptr[i + 1];
        ok = lo < hi && (int32_t)(k[lo] >> 32) == i && (int32_t)(k[hi - 1] >> 32) == i;
    }
    HS_TEST_CHECK(ok, "%s: pattern differs from the brute force (%d against %zu nonzeros)", what, a->nnz, u);
    free(k);
    hs_csr_destroy(&a);
}

int main(void)
{
    /* a 12 x 12 x 12 grid of cubes, 6 tets each (Kuhn), nodes numbered at random */
    const int n = 12, s1 = n + 1;
    int32_t nn = s1 * s1 * s1, ne = 6 * n * n * n;
    int32_t *perm = malloc(sizeof(int32_t) * nn), *t = malloc(sizeof(int32_t) * 4 * (size_t)ne);
    unsigned r = 7;
    for (int32_t i = 0; i < nn; ++i) perm[i] = i;
    for (int32_t i = nn - 1; i > 0; --i) {
        r = r * 1664525u + 1013904223u;
        int32_t j = (int32_t)((r >> 8) % (unsigned)(i + 1)), x = perm[i];
        perm[i] = perm[j];
        perm[j] = x;
    }
    static const int pm[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
    const int32_t step[3] = {1, s1, s1 * s1};
    int32_t *p = t;
    for (int z = 0; z < n; ++z)
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x)
                for (int c = 0; c < 6; ++c) {
                    int32_t v0 = x + s1 * (y + s1 * z), v1 = v0 + step[pm[c][0]], v2 = v1 + step[pm[c][1]];
                    p[0] = perm[v0]; p[1] = perm[v1]; p[2] = perm[v2]; p[3] = perm[v0 + 1 + s1 + s1 * s1];
                    p += 4;
                }
    check("shuffled grid", nn, ne, t);
    /* a star: node 0 in 200 tets with distinct other nodes, plus 5 isolated nodes at the end */
    const int32_t ns = 200, nstar = 1 + 3 * ns + 5;
    int32_t *st = malloc(sizeof(int32_t) * 4 * (size_t)ns);
    for (int32_t e = 0; e < ns; ++e) {
        st[4 * e] = 0;
        for (int b = 1; b < 4; ++b) st[4 * e + b] = 1 + 3 * e + (b - 1);
    }
    check("star with isolated nodes", nstar, ns, st);
    free(perm); free(t); free(st);
    HS_TEST_RETURN();
}
