/**
 * @file hs_mesh_quality.h
 * @brief Mesh statistics for `heartsim mesh`: counts, volume, edge lengths, dihedral angles and a
 * quality histogram.
 */
#ifndef HS_MESH_QUALITY_H
#define HS_MESH_QUALITY_H

#include <stdint.h>
#include <stdio.h>

#include "hs_mesh.h"
#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HS_QUALITY_BINS 10

typedef struct hs_mesh_quality {
    int32_t n_nodes, n_elems, n_bfaces;
    double volume;                      /**< mm^3 */
    double h_min, h_mean, h_max;        /**< edge length, mm (each edge once) */
    double dihedral_min_deg, dihedral_max_deg;
    double q_min, q_mean;               /**< normalised quality 3 * r_in / r_circ in (0, 1], 1 = regular */
    int64_t q_hist[HS_QUALITY_BINS];    /**< elements with q in [k/10, (k+1)/10) (1.0 in the last) */
    int32_t worst_elem;                 /**< element with q_min */
} hs_mesh_quality;

/** @brief Compute the statistics (OpenMP). */
hs_status hs_mesh_quality_compute(const hs_mesh *m, hs_mesh_quality *q);

/** @brief Print them as a human-readable block (with an ASCII histogram). */
void hs_mesh_quality_print(const hs_mesh_quality *q, FILE *f);

#ifdef __cplusplus
}
#endif
#endif
