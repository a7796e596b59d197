/**
 * @file hs_stimulus.h
 * @brief Stimulus sites: which elements each site covers and how much current it injects per step.
 *
 * With one integration point per element, a site acts on the elements whose centroid lies in its
 * region. The current of a site over a step [t0, t1] is strength * |[t0,t1] ∩ [start, start+duration]|
 * / (t1 - t0): the exact time average of the rectangular pulse, so no pulse is missed or doubled
 * whatever dt is.
 */
#ifndef HS_STIMULUS_H
#define HS_STIMULUS_H

#include <stdint.h>

#include "hs_mesh.h"
#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hs_stim_shape { HS_STIM_BOX = 0, HS_STIM_SPHERE = 1 } hs_stim_shape;

/** One stimulus site as configured (`stimulus` list in the config). */
typedef struct hs_stimulus_cfg {
    hs_stim_shape shape;
    double min[3], max[3];  /**< box corners, mm */
    double center[3];       /**< sphere centre, mm */
    double radius;          /**< sphere radius, mm */
    double start;           /**< ms */
    double duration;        /**< ms */
    double strength;        /**< d(phi)/dt added while active, 1/ms (1/ms = 100 mV/ms) */
} hs_stimulus_cfg;

/** The elements of every site, CSR-like. */
typedef struct hs_stim_set {
    int n_sites;
    hs_stimulus_cfg *site; /**< [n_sites], copied */
    int32_t *elem_ptr;     /**< [n_sites+1] */
    int32_t *elem;         /**< [elem_ptr[n_sites]] element indices */
} hs_stim_set;

/**
 * @brief Find the elements of each site. A site that covers no element centroid is an error
 * naming the site (0-based, as in the config list) and its region.
 */
hs_status hs_stim_set_create(const hs_mesh *m, const hs_stimulus_cfg *sites, int n_sites,
                             hs_stim_set **out);

/** @brief amp[s] = time-averaged current (1/ms) of site s over [t0, t1] ms. */
void hs_stim_set_amplitudes(const hs_stim_set *s, double t0, double t1, double *amp);

/** @brief Free; accepts NULL and sets *p = NULL. */
void hs_stim_set_destroy(hs_stim_set **p);

#ifdef __cplusplus
}
#endif
#endif
