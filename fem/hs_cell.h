/**
 * @file hs_cell.h
 * @brief One ionic model at one point (0D): du/dt = f(u, s) + stim, stepped exactly as the tissue
 * scheme steps an integration point (backward Euler, the model's local update hs_model_point for its
 * variables, a Newton iteration on u with the consistent derivative df/du), without diffusion. Used by
 * `heartsim cell` to check a parameter set before a tissue run and by the model tests (or, under the
 * splitting scheme, the nodal reaction of fem/hs_splitting.h: hs_cell_react); and the
 * per-beat read-out of a trace (activation, APD90, peak).
 */
#ifndef HS_CELL_H
#define HS_CELL_H

#include "hs_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Newton controls and what one step did. */
typedef struct hs_cell_newton {
    double tol_residual; /**< converged when dt |R| = |u - u_n - dt (f + stim)| <= this ... */
    double tol_update;   /**< ... and the last |du| <= this (potential units) */
    int max_iter;        /**< at most this many Newton updates (<= 30) */
    int iters;           /**< out: Newton updates taken */
    int n_hist;          /**< out: entries of res_hist */
    double res_hist[32]; /**< out: dt |R| before each update, and after the last one */
} hs_cell_newton;

/**
 * @brief One backward-Euler step of the point model.
 * @param[in] p model, parameters, gate scheme; @param[in] dt step (model time units); @param[in] stim
 * stimulus current (potential units per model time unit) over the step; @param[in,out] u potential,
 * u_n in, u out; @param[in,out] s [n_vars] variables, s_n in, s out; @param[in,out] nw controls in,
 * history out.
 * @return 0 on success; -1 when the local update failed or Newton did not converge (u, s unchanged).
 */
int hs_cell_step(const hs_model_params *p, double dt, double stim, double *u, double *s, hs_cell_newton *nw);

/**
 * @brief The splitting scheme's reaction at one point (solver.scheme = "splitting" in 0D: no
 * diffusion): @p n_sub substeps of h / n_sub, exactly the tissue's nodal reaction
 * (hs_split_react_node: the nodal form, u += hs (f + stim), Rush-Larsen / forward Euler).
 * @param[in] h interval (model time units); @param[in] stim current over it (per model time unit);
 * @param[in,out] u, s as hs_cell_step. @return 0, or -1 when a value became non-finite.
 */
int hs_cell_react(const hs_model_params *p, double h, int n_sub, double stim, double *u, double *s);

/** One beat of a trace. Times in the trace's unit (ms), potentials in its unit (mV). */
typedef struct hs_cell_beat {
    double t_start;    /**< the pulse that starts the beat */
    double v_rest;     /**< V just before it */
    double peak;       /**< largest V between this pulse and the next */
    double t_act;      /**< upward crossing of v90 (linear interpolation); -1: no action potential */
    double t_repol;    /**< the next downward crossing of v90 (searched to the end of the trace); -1: none */
    double apd90;      /**< t_repol - t_act; -1 when either is missing */
} hs_cell_beat;

/**
 * @brief Beats of the trace (t[i], v[i]), i < n (t ascending), one per pulse start @p starts
 * [n_starts] (ascending, distinct). Beat b looks at [starts[b], starts[b+1]) for its peak; it is an
 * action potential when peak - v_rest >= @p min_amplitude; then v90 = peak - 0.9 (peak - v_rest) and
 * the APD90 is the time between the upward and the next downward crossing of v90.
 * @param[out] beats [n_starts].
 */
void hs_cell_beats(const double *t, const double *v, long n, const double *starts, int n_starts,
                   double min_amplitude, hs_cell_beat *beats);

#ifdef __cplusplus
}
#endif
#endif
