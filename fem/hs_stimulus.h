/**
 * @file hs_stimulus.h
 * @brief Stimulus sites: which elements each site covers and how much current it injects per step.
 *
 * With one integration point per element, a site acts on whole elements:
 *  - box, sphere: the elements whose centroid lies inside;
 *  - surface: the elements that own a boundary triangle carrying the site's label (mesh->bface,
 *    bface_label), optionally only the triangles whose centroid lies inside a sphere (an
 *    endocardial apex: label "endo" and a sphere around the apex);
 *  - nodes: the elements that contain a node listed in a file, in the mesh's source numbering
 *    (mesh->node_orig), so a list written for the input mesh stays valid after reordering.
 * A site fires `count` rectangular pulses, pulse p on [start + p period, start + p period + duration]
 * (pacing at the basic cycle length `period`; an S1-S2 protocol is two sites). The current of a site
 * over a step [t0, t1] is strength * |[t0,t1] ∩ pulses| / (t1 - t0): the exact time average of the
 * pulse train, so no pulse is missed or doubled whatever dt is. The CPU and CUDA backends both take
 * these per-site amplitudes from hs_stim_set_amplitudes (host code, once per step), so they cannot
 * disagree on the timing.
 */
#ifndef HS_STIMULUS_H
#define HS_STIMULUS_H

#include <stddef.h>
#include <stdint.h>

#include "hs_mesh.h"
#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Shapes, in the order of the config's choices (stimulus.[i].shape). */
typedef enum hs_stim_shape {
    HS_STIM_BOX = 0,
    HS_STIM_SPHERE = 1,
    HS_STIM_SURFACE = 2,
    HS_STIM_NODES = 3
} hs_stim_shape;

#define HS_STIM_LABEL_LEN HS_MESH_LABEL_LEN
#define HS_STIM_PATH_MAX 4096

/** One stimulus site as configured (`stimulus` list in the config). */
typedef struct hs_stimulus_cfg {
    hs_stim_shape shape;
    double min[3], max[3];  /**< box corners, mm */
    double center[3];       /**< sphere centre (sphere; surface with radius > 0), mm */
    double radius;          /**< sphere radius, mm; surface: restriction radius, 0 = none */
    char label[HS_STIM_LABEL_LEN]; /**< surface: label name ("endo") or marker number ("3") */
    char file[HS_STIM_PATH_MAX];   /**< nodes: node list file (one 0-based index per line, or
                                        openCARP .vtx: count, "intra"/"extra", indices) */
    double start;           /**< ms */
    double duration;        /**< ms */
    double strength;        /**< d(phi)/dt added while active, 1/ms (1/ms = 100 mV/ms) */
    double period;          /**< ms between pulse starts (basic cycle length); used when count > 1 */
    int count;              /**< pulses; 0 (a zero-initialised struct) counts as 1 */
} hs_stimulus_cfg;

/** @brief Start of pulse @p p (0-based) of site @p q, ms. */
static inline double hs_stim_pulse_start(const hs_stimulus_cfg *q, int p)
{
    return q->start + (q->count > 1 ? p * q->period : 0.0);
}

/**
 * @brief Time-averaged current of one site over [t0, t1] ms (t1 > t0): strength times the part of
 * [t0, t1] its pulses cover, divided by t1 - t0.
 */
double hs_stim_site_amplitude(const hs_stimulus_cfg *q, double t0, double t1);

/**
 * @brief The timing checks of one site that need no mesh: count >= 1; with count > 1, a period
 * longer than the duration (pulses that touch or overlap would be one long pulse): HS_ERR_CONFIG
 * naming stimulus.[k].period. A negative count is an error too.
 */
hs_status hs_stim_cfg_check(const hs_stimulus_cfg *q, int k);

/** The elements of every site, CSR-like. */
typedef struct hs_stim_set {
    int n_sites;
    hs_stimulus_cfg *site; /**< [n_sites], copied */
    int32_t *elem_ptr;     /**< [n_sites+1] */
    int32_t *elem;         /**< [elem_ptr[n_sites]] element indices, ascending within a site */
} hs_stim_set;

/**
 * @brief Find the elements of each site. Errors (HS_ERR_CONFIG) name the site (0-based, as in the
 * config list): a site that covers no element; an unknown label (the message lists the labels the
 * mesh has); a node file that cannot be read, is malformed, or lists a node outside the mesh
 * (`file:line:`).
 * @param[in] m mesh (borrowed); @param[in] sites [n_sites] (copied); @param[out] out new set.
 */
hs_status hs_stim_set_create(const hs_mesh *m, const hs_stimulus_cfg *sites, int n_sites,
                             hs_stim_set **out);

/**
 * @brief hs_stim_set_create on a rank's part of the mesh (a distributed run whose ranks make their
 * own parts): box and sphere sites only (an element is in a site by its centroid, so the part's
 * elements of a site are the whole mesh's restricted to the part); a site may cover none of the
 * part: the caller sums @p count [n_sites] (each site's elements here) over the ranks and refuses
 * a site that covers no element anywhere.
 */
hs_status hs_stim_set_create_part(const hs_mesh *m, const hs_stimulus_cfg *sites, int n_sites, int64_t *count,
                                  hs_stim_set **out);

/**
 * @brief Warnings about a set of sites for a run to @p t_end ms, one line each (no trailing newline)
 * in @p buf (NUL-separated lines are joined by '\n'; truncated to @p n): pulses of a site that
 * start at or after t_end (they never fire); two sites that share elements and are on at the same
 * time (their currents add, which doubles the stimulus there: legal, but rarely meant; a warning
 * rather than an error because an S2 pulse over an S1 site at another time is the normal protocol
 * and is not reported).
 * @return the number of warnings.
 */
int hs_stim_set_warnings(const hs_stim_set *s, double t_end, char *buf, size_t n);

/** @brief amp[s] = time-averaged current (1/ms) of site s over [t0, t1] ms. */
void hs_stim_set_amplitudes(const hs_stim_set *s, double t0, double t1, double *amp);

/** @brief Free; accepts NULL and sets *p = NULL. */
void hs_stim_set_destroy(hs_stim_set **p);

#ifdef __cplusplus
}
#endif
#endif
