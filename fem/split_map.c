/* The split assembly (fem/hs_assembly.h): its gather map, built from the full one (the reference) or
 * from the mesh's R lists alone, and the CPU reference of its two passes. */
#include <stdlib.h>

#include "hs_assembly.h"
#include "hs_p1.h"
#include "hs_util.h"

hs_status hs_split_map_sizes(int64_t n_nodes, int64_t nnz, int64_t n_elems, hs_split_sizes *out)
{
    *out = (hs_split_sizes){0};
    HS_CHECK(n_nodes >= 0 && nnz >= n_nodes && (nnz - n_nodes) % 2 == 0, HS_ERR_INTERNAL,
             "split map: %lld nonzeros over %lld rows is no symmetric pattern with its diagonal", (long long)nnz,
             (long long)n_nodes);
    /* the CSR positions (p_pos) and the pair count are 32-bit, as the pattern's own row pointers */
    HS_CHECK(nnz <= INT32_MAX, HS_ERR_MESH,
             "%lld nonzeros on one rank exceed the 2^31 - 1 a 32-bit CSR pattern indexes: run on more ranks",
             (long long)nnz);
    HS_CALL(hs_assembly_map_check(n_elems, 0)); /* the R lists it reads; element ids below that */
    out->n_pairs = (nnz + n_nodes) / 2;
    out->n_off = (nnz - n_nodes) / 2;
    out->n_entries = 10 * n_elems;
    out->ptr64 = out->n_entries > INT32_MAX;
    out->host_bytes = 8 * (out->n_pairs + 1) + 4 * out->n_entries + 8 * out->n_pairs + 8 * out->n_pairs + 8 * nnz;
    return HS_OK;
}

/* The pairs in the devices' order (hs_assembly.h): off-diagonal ones row by row, then node i's
 * diagonal at n_off + i. off_start [n_rows + 1]: row i's first off-diagonal pair, so the pair of
 * nonzero k > diag[i] in row i is off_start[i] + k - diag[i] - 1 (columns sorted: after the diagonal
 * come the columns j > i). */
static hs_status pairs_create(const hs_csr *pat, const int32_t *diag, hs_split_map *sm, int32_t **off_start)
{
    const int32_t nn = pat->n_rows;
    int32_t *os = NULL;
    HS_CALL(HS_ALLOC(os, (size_t)nn + 1, "split map rows"));
    int64_t n_off = 0;
    for (int32_t i = 0; i < nn; ++i) {
        os[i] = (int32_t)n_off;
        n_off += pat->row_ptr[i + 1] - diag[i] - 1;
    }
    hs_split_sizes sz;
    hs_status st = hs_split_map_sizes(nn, pat->nnz, 0, &sz);
    if (st == HS_OK && sz.n_off != n_off)
        st = HS_FAIL(HS_ERR_INTERNAL, "the pattern is not symmetric (%lld pairs above the diagonal for %d nonzeros)",
                     (long long)n_off, pat->nnz);
    if (st != HS_OK) {
        free(os);
        return st;
    }
    os[nn] = (int32_t)n_off;
    sm->n_pairs = (int32_t)sz.n_pairs;
    sm->n_off = (int32_t)n_off;
    st = HS_ALLOC(sm->p_pos, 2 * (size_t)sz.n_pairs + 1, "symmetric pairs");
    if (st != HS_OK) {
        free(os);
        return st;
    }
    int32_t bad = -1;
#pragma omp parallel for schedule(static) if (nn > HS_OMP_MIN)
    for (int32_t i = 0; i < nn; ++i) {
        for (int32_t k = diag[i] + 1; k < pat->row_ptr[i + 1]; ++k) {
            const int64_t q = os[i] + (k - diag[i] - 1);
            const int32_t kl = hs_csr_find(pat, pat->col[k], i);
            if (kl < 0) bad = i;
            sm->p_pos[2 * q] = k;
            sm->p_pos[2 * q + 1] = kl;
        }
        sm->p_pos[2 * ((int64_t)n_off + i)] = sm->p_pos[2 * ((int64_t)n_off + i) + 1] = diag[i];
    }
    if (bad >= 0) {
        free(os);
        return HS_FAIL(HS_ERR_INTERNAL, "the pattern is not symmetric: row %d has a column without its transpose", bad);
    }
    *off_start = os;
    return HS_OK;
}

/* p_ptr from the per-pair counts (64-bit: 10 n_elems entries); kd_pair from kd_csr */
static hs_status pairs_finish(hs_split_map *sm, const int32_t *cnt)
{
    const int32_t np = sm->n_pairs;
    HS_CALL(HS_ALLOC(sm->p_ptr, (size_t)np + 1, "split map pointers"));
    HS_CALL(HS_ALLOC(sm->kd_pair, (size_t)np, "diffusion matrix pairs"));
    for (int32_t q = 0; q < np; ++q) sm->p_ptr[q + 1] = sm->p_ptr[q] + cnt[q];
#pragma omp parallel for schedule(static) if (np > HS_OMP_MIN)
    for (int32_t q = 0; q < np; ++q) sm->kd_pair[q] = sm->kd_csr[sm->p_pos[2 * (int64_t)q]];
    return HS_ALLOC(sm->p_elem, (size_t)sm->p_ptr[np] + 1, "split gather map");
}

hs_status hs_split_map_create(const hs_csr *pat, const hs_assembly_map *map, const double *kd, hs_split_map **out)
{
    *out = NULL;
    hs_status st = HS_OK;
    hs_split_map *sm = NULL;
    int32_t *os = NULL, *cnt = NULL;
    const int32_t nn = pat->n_rows, nnz = pat->nnz;
    HS_CHECK(map->nnz == nnz && map->n_nodes == nn && map->k_ptr, HS_ERR_INTERNAL,
             "split map: the gather map is of another pattern or has no K lists");
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
    HS_CALL_GOTO(pairs_create(pat, map->diag, sm, &os), fail);
    const int32_t np = sm->n_pairs;
    HS_CALL_GOTO(HS_ALLOC(cnt, (size_t)np, "split map counts"), fail);
    for (int32_t q = 0; q < np; ++q) {
        const int32_t k = sm->p_pos[2 * (int64_t)q];
        cnt[q] = map->k_ptr[k + 1] - map->k_ptr[k];
    }
    HS_CALL_GOTO(pairs_finish(sm, cnt), fail);
#pragma omp parallel for schedule(static) if (np > HS_OMP_MIN)
    for (int32_t q = 0; q < np; ++q) {
        const int32_t k = sm->p_pos[2 * (int64_t)q];
        int64_t o = sm->p_ptr[q];
        for (int32_t j = map->k_ptr[k]; j < map->k_ptr[k + 1]; ++j) sm->p_elem[o++] = map->k_src[j] / 16;
    }
    free(os);
    free(cnt);
    *out = sm;
    return HS_OK;
fail:
    free(os);
    free(cnt);
    hs_split_map_destroy(&sm);
    return st;
}

hs_status hs_split_map_create_mesh(const hs_mesh *m, const hs_csr *pat, const hs_assembly_map *rmap,
                                   const hs_kd_source *kd, hs_split_map **out)
{
    *out = NULL;
    hs_status st = HS_OK;
    hs_split_map *sm = NULL;
    int32_t *os = NULL, *cnt = NULL, *cur = NULL;
    double *kdc = NULL;
    const int32_t nn = pat->n_rows, nnz = pat->nnz;
    const int64_t ne = m->n_elems;
    HS_CHECK(rmap->nnz == nnz && rmap->n_nodes == nn && nn == m->n_nodes && rmap->n_elems == m->n_elems,
             HS_ERR_INTERNAL, "split map: the R lists are of another mesh or pattern");
    HS_CALL(hs_assembly_map_check(ne, 0));
    HS_CALL(HS_ALLOC(sm, 1, "split assembly map"));
    HS_CALL_GOTO(HS_ALLOC(sm->kd_csr, (size_t)nnz, "diffusion matrix"), fail);
    HS_CALL_GOTO(pairs_create(pat, rmap->diag, sm, &os), fail);
    const int32_t np = sm->n_pairs, n_off = sm->n_off;
    HS_CALL_GOTO(HS_ALLOC(cnt, (size_t)np, "split map counts"), fail);
    HS_CALL_GOTO(HS_ALLOC(cur, (size_t)nn + 1, "split map row cursors"), fail);
    /* the element matrices: the stored ones (one chunk), or computed for ~1/8 of the elements at a time */
    const int64_t chunk = kd->kd ? (ne > 0 ? ne : 1) : ((ne + 7) / 8 > 8192 ? (ne + 7) / 8 : 8192);
    if (!kd->kd) HS_CALL_GOTO(HS_ALLOC(kdc, 10 * (size_t)(chunk < ne ? chunk : ne) + 1, "element matrices (a chunk)"), fail);
    for (int32_t i = 0; i < nn; ++i) cur[i] = rmap->r_ptr[i];
    /* Row i walks node i's elements in increasing e (its R list); for one e only one vertex b meets
     * a column j. Pass 0 sums K_D's row (each entry from 0.0 in increasing e: the full map's order,
     * hence its bits; the chunks come in increasing e and each row resumes at its cursor) and counts
     * the lists of the row's pairs {i, j >= i}; pass 1 fills them. A row owns its nonzeros and its
     * pairs: no two threads write one. */
    int32_t missing = -1;
    for (int64_t e0 = 0; e0 < ne; e0 += chunk) {
        const int64_t e1 = e0 + chunk < ne ? e0 + chunk : ne;
        const double *kde = kd->kd;
        if (!kde) {
            hs_fem_geom_kd(m, kd, e0, e1, kdc);
            kde = kdc - 10 * e0; /* indexed by the global element number below */
        }
#pragma omp parallel for schedule(static) if (nn > HS_OMP_MIN)
        for (int32_t i = 0; i < nn; ++i) {
            int32_t q = cur[i];
            for (; q < rmap->r_ptr[i + 1] && rmap->r_src[q] / 4 < e1; ++q) {
                const int32_t src = rmap->r_src[q], e = src / 4, a = src % 4;
                for (int b = 0; b < 4; ++b) {
                    const int32_t j = m->tets[4 * (int64_t)e + b];
                    const int32_t k = hs_csr_find(pat, i, j);
                    if (k < 0) { missing = e; continue; }
                    sm->kd_csr[k] += kde[10 * (int64_t)e + hs_sym4_index(a, b)];
                    if (j < i) continue;
                    cnt[j == i ? (int64_t)n_off + i : (int64_t)os[i] + (k - rmap->diag[i] - 1)]++;
                }
            }
            cur[i] = q;
        }
        HS_CHECK_GOTO(missing < 0, fail, HS_ERR_INTERNAL, "pattern lacks an entry of element %d", missing);
    }
    HS_FREE(kdc);
    HS_FREE(cur);
    HS_CALL_GOTO(pairs_finish(sm, cnt), fail);
    for (int32_t q = 0; q < np; ++q) cnt[q] = 0; /* the fill cursors */
#pragma omp parallel for schedule(static) if (nn > HS_OMP_MIN)
    for (int32_t i = 0; i < nn; ++i)
        for (int32_t q = rmap->r_ptr[i]; q < rmap->r_ptr[i + 1]; ++q) {
            const int32_t e = rmap->r_src[q] / 4;
            for (int b = 0; b < 4; ++b) {
                const int32_t j = m->tets[4 * (int64_t)e + b];
                if (j < i) continue;
                const int64_t p = j == i ? (int64_t)n_off + i
                                         : (int64_t)os[i] + (hs_csr_find(pat, i, j) - rmap->diag[i] - 1);
                sm->p_elem[sm->p_ptr[p] + cnt[p]++] = e;
            }
        }
    free(os);
    free(cnt);
    *out = sm;
    return HS_OK;
fail:
    free(os);
    free(cnt);
    free(cur);
    free(kdc);
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
    const int64_t ne = sm->p_ptr[sm->n_pairs] / 10; /* p_elem: 10 entries per element (6 edges, 4 diagonal) */
#pragma omp parallel for schedule(static) if (ne >= HS_OMP_MIN_ASSEMBLY_ELEMS)
    for (int32_t p = 0; p < sm->n_pairs; ++p) {
        double s = sm->kd_pair[p];
        for (int64_t j = sm->p_ptr[p]; j < sm->p_ptr[p + 1]; ++j) s += km[sm->p_elem[j]];
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
