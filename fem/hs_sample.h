/**
 * @file hs_sample.h
 * @brief Linear read-outs of the potential at a few places, y = S u + c for a fixed sparse S
 * [n_rows][n_nodes]: the probes (a row with one entry: V at the node nearest a point) and the
 * pseudo-ECG (a row per electrode with weights on every node). A backend applies S where it keeps
 * u (the CUDA backend on the device, into a buffer copied in batches) through the optional
 * sampling ops of hs_backend_ops; hs_sample_apply_ref is the CPU reference.
 *
 * The pseudo-ECG (docs/verification.md derives it): phi_e(x) = 1/(4 pi sigma_b) ∫ (D grad V) .
 * grad_x(1/|x - y|) dy with grad_x(1/|x - y|) = (y - x)/|y - x|^3, so a wave front approaching
 * the electrode gives a positive deflection. With P1 elements grad V is constant per element,
 * grad V_e = sum_a V_a grad N_a, and grad(1/r) is taken at the centroid c_e (one-point rule):
 *   phi_e(x) = sum_e w_e . grad V_e,   w_e = vol_e D_e (c_e - x)/|c_e - x|^3 / (4 pi sigma_b),
 * i.e. phi_e(x) = sum_n W_n V_n with W_n = sum_{e ∋ n} w_e . grad N_a(e): a dot product per electrode
 * with weights computed once.
 */
#ifndef HS_SAMPLE_H
#define HS_SAMPLE_H

#include <stdint.h>

#include "hs_problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A sampling matrix: y_j = offset_j + sum_k val[k] u[col[k]], k in [row_ptr[j], row_ptr[j+1]). */
typedef struct hs_sample_set {
    int n_rows;
    int64_t *row_ptr; /**< [n_rows + 1] */
    int32_t *col;     /**< [row_ptr[n_rows]] ascending within a row */
    double *val;
    double *offset;   /**< [n_rows] added on the host (the mV offset of a probe) */
    int32_t *node;    /**< [n_rows] probes: the node sampled; NULL for the ECG */
    double *dist;     /**< [n_rows] probes: its distance from the point, mm */
} hs_sample_set;

/**
 * @brief Probes: V (mV) at the node nearest each of @p n points. A point farther from its node
 * than the mesh's longest edge is outside the tissue: HS_ERR_CONFIG naming it (@p names[j]) and the
 * distance. @param[in] xyz [n][3] mm.
 */
hs_status hs_sample_probes_create(const hs_problem *p, const double *xyz, const char *const *names, int n,
                                  hs_sample_set **out);
/**
 * @brief Pseudo-ECG weights (mV per model unit of u) of @p n electrodes at @p xyz [n][3] mm, bath
 * conductivity @p sigma_b in the units of D (mm^2/ms), D per element from the problem (regions
 * included). An electrode inside the tissue deeper than a quarter of its element's longest edge is
 * refused (HS_ERR_CONFIG naming ecg.electrodes.[j].at, the electrode and its depth: the integral is
 * singular there); one closer to an element centroid than half that element's size warns (the
 * one-point rule of 1/r^2 is poor there); one farther than 100 times the mesh's extent warns with
 * the distance (its signal is ~1e-4 of a near one).
 */
hs_status hs_sample_ecg_create(const hs_problem *p, const double *xyz, const char *const *names, int n, double sigma_b,
                               hs_sample_set **out);
/** @brief An empty set of @p n_rows rows and room for @p nnz weights (row_ptr, col, val, offset; with
 *  @p probes also node and dist, one per row). */
hs_status hs_sample_set_alloc(int n_rows, int64_t nnz, int probes, hs_sample_set **out);
void hs_sample_set_destroy(hs_sample_set **s);

/* The pieces of the two above, for a distributed run that finds its sample sets on each rank's part
 * of the mesh (sim/samples.c) with the same arithmetic as on the whole mesh. */

/** @brief |a - b|, mm, as the probes and the ECG's extent compute it. */
double hs_sample_distance(const double *a, const double *b);
/** @brief The node nearest @p x among the first @p n of @p m: the smallest distance, then the
 *  smallest number (@p gid [n] the whole mesh's numbers, NULL: the index), as hs_sample_probes_create
 *  picks it; @p dist INFINITY when n = 0. */
void hs_sample_nearest_node(const hs_mesh *m, int32_t n, const int64_t *gid, const double *x, double *dist,
                            int64_t *node);
/** @brief The longest edge of @p m's elements, mm (a probe farther than it from every node is outside). */
double hs_sample_longest_edge(const hs_mesh *m);
/** @brief The electrode check of hs_sample_ecg_create for electrode @p j at @p x placed as @p pl
 *  (hs_mesh_point_depth): HS_ERR_CONFIG when it lies inside the tissue. */
hs_status hs_sample_ecg_check_place(int j, const char *name, const double *x, const hs_mesh_point_place *pl);
/** @brief mV per model unit over 4 pi sigma_b: the factor of every ECG weight. */
double hs_sample_ecg_scale(const hs_model *model, double sigma_b);

/** The conducting element whose centroid is nearest an electrode. */
typedef struct hs_sample_near {
    double r;     /**< mm from the electrode (INFINITY: none) */
    int32_t elem; /**< the first such element of the mesh's order, -1: none */
    double size;  /**< its size, cbrt(volume), mm */
} hs_sample_near;

/**
 * @brief Add the pseudo-ECG weights of an electrode at @p x to @p w [n_nodes] over the elements of
 * @p m in their order (regions @p rg or the uniform @p d_iso, @p d_ani; @p scale from
 * hs_sample_ecg_scale). A node's weight sums its elements in the mesh's order: a part of a mesh
 * holding every element of a node in the whole mesh's relative order gives that node the whole
 * mesh's weight bit for bit.
 */
void hs_sample_ecg_weights(const hs_mesh *m, const hs_region_set *rg, double d_iso, double d_ani, double scale,
                           const double *x, double *w, hs_sample_near *near);
/** @brief hs_sample_ecg_create's warnings for an electrode @p near the tissue or far from it
 *  (@p extent: the diagonal of the mesh's bounding box, mm). */
void hs_sample_ecg_warn(const char *name, const double *x, const hs_sample_near *near, double extent);

/** @brief y[j] = sum_k val[k] u[col[k]] (without the offset), summed in row order. */
void hs_sample_apply_ref(const hs_sample_set *s, const double *u, double *y);

#ifdef __cplusplus
}
#endif
#endif
