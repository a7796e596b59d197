/* The "K_elem . 1" gather maps (seed 002 sec. 4) and the CPU assembly that uses them. */
#include <stdlib.h>

#include "hs_fem.h"
#include "hs_util.h"

hs_status hs_assembly_map_create(const hs_mesh *m, const hs_csr *pat, hs_assembly_map **out)
{
    *out = NULL;
    hs_status st = HS_OK;
    hs_assembly_map *map = NULL;
    int32_t *kpos = NULL; /* [n_elems][16]: CSR position of each element entry */
    HS_CHECK((int64_t)m->n_elems * 16 <= INT32_MAX, HS_ERR_MESH,
             "%d elements exceed the 2^31/16 this build's gather map indexes", m->n_elems);
    HS_CALL(HS_ALLOC(map, 1, "assembly map"));
    map->n_nodes = m->n_nodes;
    map->nnz = pat->nnz;
    map->n_elems = m->n_elems;
    HS_CALL_GOTO(HS_ALLOC(map->k_ptr, (size_t)pat->nnz + 1, "K gather map pointers"), fail);
    HS_CALL_GOTO(HS_ALLOC(map->k_src, (size_t)m->n_elems * 16, "K gather map"), fail);
    HS_CALL_GOTO(HS_ALLOC(map->r_ptr, (size_t)m->n_nodes + 1, "R gather map pointers"), fail);
    HS_CALL_GOTO(HS_ALLOC(map->r_src, (size_t)m->n_elems * 4, "R gather map"), fail);
    HS_CALL_GOTO(HS_ALLOC(map->diag, m->n_nodes, "diagonal positions"), fail);
    HS_CALL_GOTO(HS_ALLOC(kpos, (size_t)m->n_elems * 16, "assembly positions"), fail);

    int32_t missing = -1;
#pragma omp parallel for schedule(static) if (m->n_elems > HS_OMP_MIN)
    for (int32_t e = 0; e < m->n_elems; ++e)
        for (int a = 0; a < 4; ++a)
            for (int b = 0; b < 4; ++b) {
                int32_t k = hs_csr_find(pat, m->tets[4 * (int64_t)e + a], m->tets[4 * (int64_t)e + b]);
                kpos[16 * (int64_t)e + 4 * a + b] = k;
                if (k < 0) missing = e;
            }
    HS_CHECK_GOTO(missing < 0, fail, HS_ERR_INTERNAL,
                  "pattern lacks an entry of element %d", missing);
    /* Counting sort by position, filled in element order: each list is in increasing e. */
    for (int64_t j = 0; j < (int64_t)m->n_elems * 16; ++j) map->k_ptr[kpos[j] + 1]++;
    for (int32_t k = 0; k < pat->nnz; ++k) map->k_ptr[k + 1] += map->k_ptr[k];
    for (int64_t e = 0; e < m->n_elems; ++e)
        for (int a = 0; a < 4; ++a) map->r_ptr[m->tets[4 * e + a] + 1]++;
    for (int32_t i = 0; i < m->n_nodes; ++i) map->r_ptr[i + 1] += map->r_ptr[i];
    {
        int32_t *kfill = NULL, *rfill = NULL;
        HS_CALL_GOTO(HS_ALLOC(kfill, pat->nnz, "assembly fill counters"), fail);
        st = HS_ALLOC(rfill, m->n_nodes, "assembly fill counters");
        if (st != HS_OK) { free(kfill); goto fail; }
        for (int64_t j = 0; j < (int64_t)m->n_elems * 16; ++j) {
            int32_t k = kpos[j];
            map->k_src[map->k_ptr[k] + kfill[k]++] = (int32_t)j;
        }
        for (int64_t e = 0; e < m->n_elems; ++e)
            for (int a = 0; a < 4; ++a) {
                int32_t i = m->tets[4 * e + a];
                map->r_src[map->r_ptr[i] + rfill[i]++] = (int32_t)(4 * e + a);
            }
        free(kfill);
        free(rfill);
    }
    for (int32_t i = 0; i < m->n_nodes; ++i) {
        map->diag[i] = hs_csr_find(pat, i, i);
        HS_CHECK_GOTO(map->diag[i] >= 0, fail, HS_ERR_INTERNAL, "pattern lacks diagonal %d", i);
    }
    free(kpos);
    *out = map;
    return HS_OK;
fail:
    free(kpos);
    hs_assembly_map_destroy(&map);
    return st;
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
#pragma omp parallel for schedule(static) if (map->nnz > HS_OMP_MIN)
    for (int32_t k = 0; k < map->nnz; ++k) {
        double s = 0.0;
        for (int32_t j = map->k_ptr[k]; j < map->k_ptr[k + 1]; ++j) s += ke[map->k_src[j]];
        kval[slot ? slot[k] : k] = s;
    }
}

void hs_assemble_r(const hs_assembly_map *map, const double *re, double *r)
{
#pragma omp parallel for schedule(static) if (map->n_nodes > HS_OMP_MIN)
    for (int32_t i = 0; i < map->n_nodes; ++i) {
        double s = 0.0;
        for (int32_t j = map->r_ptr[i]; j < map->r_ptr[i + 1]; ++j) s += re[map->r_src[j]];
        r[i] = s;
    }
}
