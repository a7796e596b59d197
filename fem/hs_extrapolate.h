/**
 * @file hs_extrapolate.h
 * @brief The initial Newton iterate of a time step, extrapolated from the last accepted steps
 * (solver.extrapolate): order 0 takes phi_n, 1 the line through phi_{n-1}, phi_n, 2 the parabola
 * through phi_{n-2}, phi_{n-1}, phi_n, each evaluated at t_n + dt (Lagrange weights, so retried
 * substeps of another dt are handled exactly). A wave front moves by about v dt per step, so the
 * potential at a node is smooth in time except at the upstroke; a better first iterate cuts the
 * first Newton residual and with it the CG iterations (measured in docs/benchmarks.md).
 * The history is host bookkeeping only; each backend keeps the phi vectors where it computes.
 */
#ifndef HS_EXTRAPOLATE_H
#define HS_EXTRAPOLATE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hs_extrap {
    int order;     /**< requested order 0..2 */
    int n_valid;   /**< accepted steps in the history (0..2): phi_{n-1}, phi_{n-2} usable */
    double h[2];   /**< h[0] = t_n - t_{n-1}, h[1] = t_{n-1} - t_{n-2} (model or ms: any one unit) */
} hs_extrap;

/** @brief Start with an empty history (initial state, restarts, set_state). */
static inline void hs_extrap_reset(hs_extrap *e) { e->n_valid = 0; e->h[0] = e->h[1] = 0.0; }

/**
 * @brief Weights of phi_guess = w[0] phi_n + w[1] phi_{n-1} + w[2] phi_{n-2} for a step of size dt.
 * @return how many history vectors are used (0: phi_n alone, nothing to do).
 */
int hs_extrap_weights(const hs_extrap *e, double dt, double w[3]);

/** @brief A step of size dt was accepted: phi_{n-1} becomes phi_{n-2}, phi_n becomes phi_{n-1}. */
static inline void hs_extrap_accept(hs_extrap *e, double dt)
{
    e->h[1] = e->h[0];
    e->h[0] = dt;
    if (e->n_valid < 2) ++e->n_valid;
}

#ifdef __cplusplus
}
#endif
#endif
