/**
 * @file mesh_part_internal.h
 * @brief Private to sim/mesh_part.c and sim/mesh_part_read.c: one rank's part of a file mesh as the
 * rank receives it (from rank 0, hs_mesh_part_scatter; or from the ranks that read the mesh in
 * blocks, hs_mesh_part_read), and the one function that turns it into the rank's view and local
 * mesh, so that both paths make the same arrays.
 */
#ifndef HS_MESH_PART_INTERNAL_H
#define HS_MESH_PART_INTERNAL_H

#include "hs_build_config.h"

#if HS_HAS_MPI
#include <stdint.h>

#include "hs_backend_mpi.h"
#include "hs_region.h"
#include "hs_stimulus.h"

/** The header's entries: counts and flags of the arrays below. */
enum { H_NN, H_NE, H_FIBER, H_SITE_ELEMS, H_ENTRY, H_TAB, H_DECOUPLED, H_ROWS, H_ENTRIES, H_REG, H_LEN };

/**
 * One rank's part: the elements with a vertex the rank owns (increasing global number) and their
 * vertices (increasing global number, "packed" indices), with what the rank's mesh, stimulus sites
 * and regions need of them. Arrays absent by the header (no fibres, no regions) are NULL.
 */
typedef struct hs_part_packed {
    int64_t h[H_LEN];
    int64_t *ngid;          /**< [nn] global node numbers, increasing */
    int64_t *egid;          /**< [ne] global element numbers, increasing */
    int32_t *nown;          /**< [nn] owner of each node */
    int32_t *norig;         /**< [nn] node_orig (the file's position) */
    int32_t *tets;          /**< [ne][4] packed node indices, the whole mesh's vertex order */
    int32_t *region;        /**< [ne] the elements' labels */
    int32_t *sptr, *selem;  /**< [n_sites + 1], [h[H_SITE_ELEMS]]: each site's elements (packed indices) */
    int32_t *eentry;        /**< [ne] region entries (with regions) */
    double *xyz;            /**< [nn][3] mm */
    double *fiber;          /**< [ne][3] or NULL */
    uint16_t *etab;
    uint8_t *dec;
    hs_region_row *tab;
} hs_part_packed;

/** @brief Free @p p's arrays (the header's counts say which); @p n_sites as when made. */
void hs_part_packed_free(hs_part_packed *p, int n_sites);

/**
 * @brief Every rank: its view, mesh (in the view's numbering), sites and regions from the part
 * @p p. The view: @p out->l when the caller made it from @p p (hs_part_local_create_part_keyed, its
 * @p node_local [h[H_NN]] with it; the elements' data placed in the view's element order,
 * hs_part_local_elem_order); when @p out->l is NULL, hs_part_local_create_part's (node_local
 * not read). @p sites [n_sites] are the spec's (copied into the rank's set). On failure @p out may
 * hold some members (hs_backend_mpi_part_free).
 */
/**
 * @brief The stimulus sites (box and sphere) among a rank's part @p lm, into @p lstim, and the sites
 * without elements into @p site_set; a site covering no element on any rank is refused as a serial run
 * refuses it. Collective; the status agreed over the ranks.
 */
/** @brief Collective: HS_ERR_CONFIG naming the first stimulus site of @p sites [n_sites] whose counts
 *  @p cnt (this rank's elements in it), summed over the ranks, are 0; every rank gets the same. */
hs_status hs_mesh_part_sites_found(const hs_stimulus_cfg *sites, int n_sites, const int64_t *cnt);

hs_status hs_mesh_part_find_sites(const hs_mesh *lm, const hs_stimulus_cfg *sites, int n_sites, hs_stim_set **lstim,
                                  hs_stim_set **site_set);

hs_status hs_part_packed_unpack(const hs_part_packed *p, int64_t n_global, const hs_stimulus_cfg *sites, int n_sites,
                                int rank, int size, const int32_t *node_local, hs_backend_mpi_part *out);
#endif
#endif
