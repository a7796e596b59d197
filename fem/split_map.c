/* The split assembly (fem/hs_assembly.h): its gather map, built from the full one, and the CPU
 * reference of its two passes. */
#include <stdlib.h>

#include "hs_assembly.h"
#include "hs_p1.h"
#include "hs_util.h"

hs_status hs_split_map_create(const hs_csr *pat, const hs_assembly_map *map, const double *kd, hs_split_map **out)
{
    *out = NULL;
    hs_status st = HS_OK;
    hs_split_map *sm = NULL;
    const int32_t nn = pat->n_rows, nnz = pat->nnz;
    HS_CHECK(map->nnz == nnz && map->n_nodes == nn, HS_ERR_INTERNAL, "split map: the gather map is of another pattern");
    HS_CALL(HS_ALLOC(sm, 1, "split assembly map"));
    HS_CALL_GOTO(HS_ALLOC(sm->kd_csr, (size_t)nnz, "diffusion matrix"), fail);
    /* K_D in CSR order, each entry summed over the full map's list in its order */
#pragma omp parallel for schedule(static) if (nnz > HS_OMP_MIN)
    for (int32_t k = 0; k < nnz; ++k) {
        double s = 0.0;
        for (int32_t j = map->k_ptr[k]; j < map->k_ptr[k + 1]; ++j) {
            int32_t src = map->k_src[j], e = src / 16, a = (src % 16) / 4, b = src % 4;
            s += kd[10 * (int64_t)e + hs_sym4_index(a, b)];
        }
        sm->kd_csr[k] = s;
    }
    HS_CALL_GOTO(hs_csr_symmetric_pairs(pat, &sm->p_pos, &sm->n_pairs), fail);
    const int32_t np = sm->n_pairs;
    HS_CALL_GOTO(HS_ALLOC(sm->p_ptr, (size_t)np + 1, "split map pointers"), fail);
    HS_CALL_GOTO(HS_ALLOC(sm->kd_pair, (size_t)np, "diffusion matrix pairs"), fail);
    int64_t len = 0;
    for (int32_t p = 0; p < np; ++p) {
        int32_t k = sm->p_pos[2 * (int64_t)p];
        sm->kd_pair[p] = sm->kd_csr[k];
        len += map->k_ptr[k + 1] - map->k_ptr[k];
        sm->p_ptr[p + 1] = (int32_t)len;
    }
    HS_CALL_GOTO(HS_ALLOC(sm->p_elem, (size_t)len + 1, "split gather map"), fail);
#pragma omp parallel for schedule(static) if (np > HS_OMP_MIN)
    for (int32_t p = 0; p < np; ++p) {
        int32_t k = sm->p_pos[2 * (int64_t)p], o = sm->p_ptr[p];
        for (int32_t j = map->k_ptr[k]; j < map->k_ptr[k + 1]; ++j) sm->p_elem[o++] = map->k_src[j] / 16;
    }
    *out = sm;
    return HS_OK;
fail:
    hs_split_map_destroy(&sm);
    return st;
}

void hs_split_map_destroy(hs_split_map **p)
{
    if (!p || !*p) return;
    free((*p)->p_ptr);
    free((*p)->p_elem);
    free((*p)->p_pos);
    free((*p)->kd_pair);
    free((*p)->kd_csr);
    free(*p);
    *p = NULL;
}

void hs_split_assemble_k(const hs_split_map *sm, const double *km, const int64_t *slot, double *kval)
{
    const int32_t ne = sm->p_ptr[sm->n_pairs] / 10; /* p_elem: 10 entries per element (6 edges, 4 diagonal) */
#pragma omp parallel for schedule(static) if (ne >= HS_OMP_MIN_ASSEMBLY_ELEMS)
    for (int32_t p = 0; p < sm->n_pairs; ++p) {
        double s = sm->kd_pair[p];
        for (int32_t j = sm->p_ptr[p]; j < sm->p_ptr[p + 1]; ++j) s += km[sm->p_elem[j]];
        int64_t u = sm->p_pos[2 * (int64_t)p], l = sm->p_pos[2 * (int64_t)p + 1];
        kval[slot ? slot[u] : u] = s;
        kval[slot ? slot[l] : l] = s;
    }
}

void hs_split_assemble_r(const hs_split_map *sm, const hs_csr *pat, const hs_assembly_map *map, const double *phi,
                         const double *rm, double *r)
{
#pragma omp parallel for schedule(static) if (map->n_elems >= HS_OMP_MIN_ASSEMBLY_ELEMS)
    for (int32_t i = 0; i < pat->n_rows; ++i) {
        double s = 0.0, t = 0.0;
        for (int32_t k = pat->row_ptr[i]; k < pat->row_ptr[i + 1]; ++k) s += sm->kd_csr[k] * phi[pat->col[k]];
        for (int32_t j = map->r_ptr[i]; j < map->r_ptr[i + 1]; ++j) t += rm[map->r_src[j] / 4];
        r[i] = s + t;
    }
}
