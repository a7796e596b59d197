/**
 * @file hs_tune_cv.h
 * @brief `heartsim tune-cv CONFIG`: the conductivities that give target conduction velocities for
 * the config's model, parameters, scheme, backend, h and dt. The method of openCARP's tuneCV (Costa
 * et al. 2013, "Automatic parameterization strategy for cardiac electrophysiology simulations",
 * Comput. Cardiol. 40:373-376; openCARP tutorial 02_EP_tissue/03A_study_prep_tuneCV): a plane wave's
 * speed goes as the square root of the conductivity, so measure the speed on a cable, scale the
 * conductivity by (cv_target / cv)^2 and repeat until the speed is within the tolerance. The cable is
 * a strip of the box mesh one element thick (lx = length, ly = lz = h, uniform isotropic D, no
 * regions), stimulated at x = 0; the speed is the inverse slope of a least-squares fit of the
 * activation times of the nodes between length/3 and 2 length/3 against x, away from the stimulus
 * and from the no-flux far end (docs/cli.md).
 */
#ifndef HS_TUNE_CV_H
#define HS_TUNE_CV_H

#include <stdio.h>

#include "hs_config.h"

/** Options of tune-cv; 0 in a field means its default. */
typedef struct hs_tune_cv_opts {
    double cv_l, cv_t;   /**< target speeds along / across the fibre, m/s (= mm/ms); default 0.6, 0.3 */
    double h;            /**< strip edge length, mm; default mesh.h */
    double dt;           /**< time step, ms; default time.dt */
    double tol;          /**< relative tolerance on the speed; default 0.001 */
    int max_iter;        /**< simulations per direction at most; default 20 */
    double length;       /**< strip length, mm; default 30 */
    double stim_strength; /**< 1/ms; default the first stimulus entry's strength, else 2 */
    double stim_duration; /**< ms; default the first stimulus entry's duration, else 2 */
} hs_tune_cv_opts;

/** One direction's result. */
typedef struct hs_tune_cv_result {
    double d;       /**< diffusion reached, mm^2/ms */
    double cv;      /**< speed with it, m/s */
    int iters;      /**< simulations run */
} hs_tune_cv_result;

/**
 * @brief Conduction velocity (m/s) on the strip of @p cfg's model at diffusion @p d (mm^2/ms).
 * @param[in] cfg a loaded configuration (model, parameters, solver; its mesh, regions, output are
 * not used); @param[in] o the strip (h, dt, length, stimulus; zeros: defaults); @param[out] cv NAN
 * when the front does not reach the far end of the fit window.
 */
hs_status hs_tune_cv_measure(const hs_config *cfg, const hs_tune_cv_opts *o, double d, double *cv);

/**
 * @brief Tune one direction: from @p d0 (mm^2/ms), d <- d (target / cv)^2 until |cv - target| <= tol
 * target. Prints one line per simulation to @p log (may be NULL). HS_ERR_NUMERIC when max_iter is hit.
 */
hs_status hs_tune_cv_direction(const hs_config *cfg, const hs_tune_cv_opts *o, double target, double d0, FILE *log,
                               hs_tune_cv_result *res);

/** @brief The command: tune both directions, print the conductivities in mm^2/ms and S/m with the
 *  speeds reached and a config snippet to @p out. */
hs_status hs_tune_cv_command(const hs_config *cfg, const hs_tune_cv_opts *o, FILE *out);

#endif
