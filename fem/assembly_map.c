/* The "K_elem . 1" gather maps (seed 002 sec. 4) and the CPU assembly that uses them. */
#include <stdlib.h>

#include "hs_fem.h"
#include "hs_util.h"

hs_status hs_assembly_map_check(int64_t n_elems, int with_k)
{
    HS_CHECK(n_elems <= HS_ASSEMBLY_MAX_ELEMS_R, HS_ERR_MESH,
             "%lld elements on one rank exceed the %lld the assembly's 32-bit R lists index (4 entries of "
             "4 e + a per element): run on more ranks", (long long)n_elems, (long long)HS_ASSEMBLY_MAX_ELEMS_R);
    HS_CHECK(!with_k || n_elems <= HS_ASSEMBLY_MAX_ELEMS_K, HS_ERR_MESH,
             "%lld elements on one rank exceed the %lld solver.assembly = \"full\" indexes (its 32-bit K lists: "
             "16 entries of 16 e + 4 a + b per element); use solver.assembly = \"split\" (the default; up to "
             "%lld elements) or more ranks", (long long)n_elems, (long long)HS_ASSEMBLY_MAX_ELEMS_K,
             (long long)HS_ASSEMBLY_MAX_ELEMS_R);
    return HS_OK;
}

static hs_status map_create(const hs_mesh *m, const hs_csr *pat, int with_k, hs_assembly_map **out)
{
    *out = NULL;
    hs_status st = HS_OK;
    hs_assembly_map *map = NULL;
    int32_t *kfill = NULL; /* [nnz] fill cursors */
    HS_CALL(hs_assembly_map_check(m->n_elems, with_k));
    HS_CALL(HS_ALLOC(map, 1, "assembly map"));
    map->n_nodes = m->n_nodes;
    map->nnz = pat->nnz;
    map->n_elems = m->n_elems;
    const int32_t nn = m->n_nodes, nnz = pat->nnz;
    HS_CALL_GOTO(HS_ALLOC(map->r_ptr, (size_t)nn + 1, "R gather map pointers"), fail);
    HS_CALL_GOTO(HS_ALLOC(map->r_src, (size_t)m->n_elems * 4, "R gather map"), fail);
    HS_CALL_GOTO(HS_ALLOC(map->diag, nn, "diagonal positions"), fail);
    if (with_k) {
        HS_CALL_GOTO(HS_ALLOC(map->k_ptr, (size_t)nnz + 1, "K gather map pointers"), fail);
        HS_CALL_GOTO(HS_ALLOC(map->k_src, (size_t)m->n_elems * 16, "K gather map"), fail);
        HS_CALL_GOTO(HS_ALLOC(kfill, nnz, "assembly fill counters"), fail);
    }

    /* R lists: node i's entries 4e + a in increasing e (a counting sort in element order). */
    for (int64_t e = 0; e < m->n_elems; ++e)
        for (int a = 0; a < 4; ++a) map->r_ptr[m->tets[4 * e + a] + 1]++;
    for (int32_t i = 0; i < nn; ++i) map->r_ptr[i + 1] += map->r_ptr[i];
    {
        int32_t *rfill = NULL;
        HS_CALL_GOTO(HS_ALLOC(rfill, nn, "assembly fill counters"), fail);
        for (int64_t e = 0; e < m->n_elems; ++e)
            for (int a = 0; a < 4; ++a) {
                int32_t i = m->tets[4 * e + a];
                map->r_src[map->r_ptr[i] + rfill[i]++] = (int32_t)(4 * e + a);
            }
        free(rfill);
    }
    /* K lists, row by row in parallel (a row's nonzeros belong to one thread): the entries
     * 16e + 4a + b with tets[e][a] = i, tets[e][b] = j, walked through node i's R list (increasing
     * e), so each list is in increasing e, and for one e only one (a, b) meets (i, j). First the
     * counts, then (after the prefix sum) the entries. */
    int32_t missing = -1;
    for (int pass = 0; pass < 2 * with_k; ++pass) {
#pragma omp parallel for schedule(static) if (nn > HS_OMP_MIN)
        for (int32_t i = 0; i < nn; ++i)
            for (int32_t q = map->r_ptr[i]; q < map->r_ptr[i + 1]; ++q) {
                const int32_t src = map->r_src[q], e = src / 4, a = src % 4;
                for (int b = 0; b < 4; ++b) {
                    const int32_t k = hs_csr_find(pat, i, m->tets[4 * (int64_t)e + b]);
                    if (k < 0) { missing = e; continue; }
                    if (pass == 0) map->k_ptr[k + 1]++;
                    else map->k_src[map->k_ptr[k] + kfill[k]++] = 16 * e + 4 * a + b;
                }
            }
        HS_CHECK_GOTO(missing < 0, fail, HS_ERR_INTERNAL, "pattern lacks an entry of element %d", missing);
        if (pass == 0)
            for (int32_t k = 0; k < nnz; ++k) map->k_ptr[k + 1] += map->k_ptr[k];
    }
    int32_t nodiag = -1;
#pragma omp parallel for schedule(static) if (nn > HS_OMP_MIN)
    for (int32_t i = 0; i < nn; ++i) {
        map->diag[i] = hs_csr_find(pat, i, i);
        if (map->diag[i] < 0) nodiag = i;
    }
    HS_CHECK_GOTO(nodiag < 0, fail, HS_ERR_INTERNAL, "pattern lacks diagonal %d", nodiag);
    free(kfill);
    *out = map;
    return HS_OK;
fail:
    free(kfill);
    hs_assembly_map_destroy(&map);
    return st;
}

hs_status hs_assembly_map_create(const hs_mesh *m, const hs_csr *pat, hs_assembly_map **out)
{
    return map_create(m, pat, 1, out);
}

hs_status hs_assembly_map_create_r(const hs_mesh *m, const hs_csr *pat, hs_assembly_map **out)
{
    return map_create(m, pat, 0, out);
}

void hs_assembly_map_destroy(hs_assembly_map **p)
{
    if (!p || !*p) return;
    free((*p)->k_ptr);
    free((*p)->k_src);
    free((*p)->r_ptr);
    free((*p)->r_src);
    free((*p)->diag);
    free(*p);
    *p = NULL;
}

void hs_assemble_k(const hs_assembly_map *map, const double *ke, const int64_t *slot, double *kval)
{
#pragma omp parallel for schedule(static) if (map->n_elems >= HS_OMP_MIN_ASSEMBLY_ELEMS)
    for (int32_t k = 0; k < map->nnz; ++k) {
        double s = 0.0;
        for (int32_t j = map->k_ptr[k]; j < map->k_ptr[k + 1]; ++j) s += ke[map->k_src[j]];
        kval[slot ? slot[k] : k] = s;
    }
}

void hs_assemble_r(const hs_assembly_map *map, const double *re, double *r)
{
#pragma omp parallel for schedule(static) if (map->n_elems >= HS_OMP_MIN_ASSEMBLY_ELEMS)
    for (int32_t i = 0; i < map->n_nodes; ++i) {
        double s = 0.0;
        for (int32_t j = map->r_ptr[i]; j < map->r_ptr[i + 1]; ++j) s += re[map->r_src[j]];
        r[i] = s;
    }
}
