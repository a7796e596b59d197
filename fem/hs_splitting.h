/**
 * @file hs_splitting.h
 * @brief The operator-splitting scheme (solver.scheme = "splitting"): the monodomain equation
 *   du/dt = div(D grad u) + f(u, s) + stim,   ds/dt = g(u, s)
 * split into a reaction, the model's ODEs at every node (fem/models/hs_model_ode.h's nodal form,
 * in substeps of at most solver.dt_ode: Rush-Larsen for the gates, forward Euler for the rest and
 * for u, the stimulus a current at the stimulated nodes), and a diffusion, one linear solve
 *   (M + theta dt K) u^{n+1} = (M - (1-theta) dt K) u*
 * with the P1 mass matrix M (consistent or lumped: solver.mass) and stiffness K (fem/hs_fem.h's
 * element matrices, D in mm^2 per model time unit as the Newton scheme uses), assembled once and
 * again only when dt changes (a step retried in substeps), solved by the backend's CG (the
 * configured Krylov method and preconditioner) started from u* plus the previous step's correction
 * (hs_split_guess_scale). Godunov: reaction dt, diffusion
 * dt; Strang: reaction dt/2, diffusion dt, reaction dt/2 (solver.splitting).
 * (Sundnes et al., Computing the Electrical Activity in the Heart, 2006, ch. 3; Qu & Garfinkel,
 * IEEE TBME 46 (1999) for the split of the reaction; openCARP and Chaste run the same scheme.)
 *
 * Layers: the problem holds what the nodes need (hs_nodal, built with the problem when the scheme
 * is splitting: hs_problem.nodal); a backend runs the two halves as the ops react and diffuse of
 * hs_backend_ops (fem/hs_backend.h), its state's model variables at the nodes (hs_state_desc_init_scheme);
 * hs_split_step is the step (the Newton scheme's hs_time_step beside it). Every function here is
 * the CPU reference a fast path is checked against.
 */
#ifndef HS_SPLITTING_H
#define HS_SPLITTING_H

#include <stdint.h>

#include "hs_extrapolate.h"
#include "hs_model_ode.h"
#include "hs_scheme.h"
#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * What the splitting scheme needs at the nodes, built once on the host with the problem
 * (hs_problem.nodal; NULL under the Newton scheme). Plain arrays a backend uploads as they are.
 *
 * Stimulus: a site covers elements (hs_stim_set); the Newton scheme puts V_e/4 of an element's
 * current on each of its nodes (fem/hs_element.h), so node i of site k gets the share
 *   w_ki = sum_{e in site k, e conducting, e touches i} V_e/4 / m_i,   m_i = sum_{e conducting, touches i} V_e/4,
 * of the site's amplitude: 1 inside the site, less on its border, the same charge the Newton scheme
 * puts there. The current at node i over a reaction is stim_i = sum_k amp_k w_ki (amp_k per model
 * time unit, the time average over the reaction's interval: hs_stim_set_amplitudes).
 *
 * Regions (per-element rows, fem/hs_region.h) at the nodes: node i takes the row of the conducting
 * element around it whose deciding entry is the latest (hs_region_set.elem_entry largest; among
 * equals the lowest-numbered element), so entries keep applying in order ("later entries win") and
 * a node on a region's border belongs to the region. A node that no conducting element touches (a
 * decoupled node) is frozen: no reaction, and an identity row in both matrices of the diffusion.
 */
typedef struct hs_nodal {
    int32_t n_nodes;
    int n_sites;
    int32_t *stim_ptr;    /**< [n_sites + 1] */
    int32_t *stim_node;   /**< [stim_ptr[n_sites]] the nodes of each site, increasing within a site */
    double *stim_w;       /**< [stim_ptr[n_sites]] their shares w_ki, in (0, 1] */
    uint16_t *node_tab;   /**< [n_nodes] the row of hs_region_set.tab whose parameters a node's ODEs take;
                               NULL: every node takes hs_problem_opts.model_prm */
    uint8_t *frozen;      /**< [n_nodes] 1: a decoupled node (no reaction, u held); NULL: none */
    double *mass_lumped;  /**< [n_nodes] m_i: the lumped mass over the conducting elements, mm^3 */
} hs_nodal;

typedef struct hs_problem hs_problem; /* hs_problem.h */
typedef struct hs_backend hs_backend; /* hs_backend.h */
typedef struct hs_step_stats hs_step_stats;

/** @brief Build @p p's nodal data (stimulus shares, node rows, frozen nodes, lumped mass) from its
 *  mesh, stimulus sites, geometry and regions. Called by hs_problem_create under the splitting scheme. */
hs_status hs_nodal_create(const hs_problem *p, hs_nodal **out);
/** @brief Free; accepts NULL and sets *p = NULL. */
void hs_nodal_destroy(hs_nodal **p);

/** @brief The current at every node over a reaction: stim[i] = sum_k amp[k] w_ki (0 elsewhere).
 *  @param[in] amp [n_sites] per model time unit; @param[out] stim [n_nodes]. */
void hs_nodal_stimulus(const hs_nodal *nd, const double *amp, double *stim);

/**
 * @brief The diffusion's two matrices on @p p's pattern (CSR order, pattern->nnz values each):
 *   a = M + theta dt K,   b = M - (1 - theta) dt K
 * (theta, mass from p->opt.scheme; dt in model units), frozen nodes' rows and columns the identity.
 * Each value sums its elements in increasing element order (the assembly maps' order), so the
 * result is deterministic; a backend copies them into its SpMV format's slots. The CPU backend's
 * matrices, and the reference of any device assembly of them.
 * @param[out] a, b [nnz] (b may be NULL: not wanted).
 */
hs_status hs_split_matrices(const hs_problem *p, double dt, double *a, double *b);

/** @brief Reaction substeps for an interval of @p h_ms ms: ceil(h / dt_ode) (1 when dt_ode is 0 or
 *  at least h), each of h / n. */
int hs_split_substeps(const hs_scheme_opts *o, double h_ms);

/**
 * @brief The reaction at one node: @p n_sub substeps of h / n_sub (model units), each evaluating the
 * nodal form at its start (u, s), then u += hs (f + stim) and the variables by Rush-Larsen / forward
 * Euler (hs_model_ode_vars). The CPU backend runs this; a device kernel is checked against it.
 * @param[in] prm the node's model and parameters; @param[in] stim current, per model time unit;
 * @param[in,out] u potential; @param[in,out] s [prm->n_vars] variables.
 * @return 0, or -1 when a value became non-finite (u, s then hold what the failing substep made).
 */
HS_HD int hs_split_react_node(const hs_model_params *prm, double h, int n_sub, double stim, double *u, double *s)
{
    double a[HS_MODEL_MAX_VARS], tau[HS_MODEL_MAX_VARS];
    const double hs = h / n_sub;
    for (int q = 0; q < n_sub; ++q) {
        double f = 0.0;
        if (hs_model_rhs(prm, *u, s, &f, a, tau) < 0) return -1;
        *u += hs * (f + stim);
        if (!hs_model_ode_vars(prm->n_vars, s, a, tau, hs) || !isfinite(*u)) return -1;
    }
    return 0;
}

/**
 * @brief The diffusion's first guess u* + g, g = w[0] d_1 + w[1] d_2 from the last accepted steps'
 * corrections d_k = u - u* (the diffusion's whole change of u over a step of h_k), kept as the
 * extrapolation history's vectors (hs_extrap: h[0] = h_1, h[1] = h_2, n_valid; end_step shifts them
 * with hs_extrap_accept). The correction is a rate times the step: r_k = d_k / h_k, taken at the
 * middle of its step. solver.extrapolate = 1: r = r_1, g = (dt / h_1) d_1; = 2: r linear through
 * r_2, r_1 evaluated at the middle of the new step,
 *   g = dt (r_1 + (r_1 - r_2) q),  q = (dt + h_1) / (h_1 + h_2)   (equal steps: g = 2 d_1 - d_2).
 * Diffusion changes u by about dt K u per step; a front moving v dt per step makes the correction at
 * a node a smooth function of time, so the extrapolation leaves the CG a residual of O(dt^2) (order
 * 1) or O(dt^3) (order 2) of the correction's instead of all of it (docs/benchmarks.md measures the
 * iterations). Both backends keep d_1, d_2 where they compute; checkpoints and retries carry them
 * as they carry the Newton scheme's history.
 * @return how many corrections the guess uses (0: none, g = 0: the first step, extrapolate = 0, a
 * restart without the history).
 */
static inline int hs_split_guess_weights(const hs_extrap *ex, double dt, double w[2])
{
    w[0] = w[1] = 0.0;
    if (ex->order < 1 || ex->n_valid < 1 || !(ex->h[0] > 0.0)) return 0;
    if (ex->order < 2 || ex->n_valid < 2 || !(ex->h[1] > 0.0)) {
        w[0] = dt / ex->h[0];
        return 1;
    }
    const double q = (dt + ex->h[0]) / (ex->h[0] + ex->h[1]);
    w[0] = dt / ex->h[0] * (1.0 + q);
    w[1] = -dt / ex->h[1] * q;
    return 2;
}

/** @brief g at one node (the same arithmetic on every backend). */
HS_HD double hs_split_guess_at(double w0, double w1, double d1, double d2)
{
    return w1 != 0.0 ? w0 * d1 + w1 * d2 : w0 * d1;
}

/** @brief The middle of a step from @p t_ms of @p dt_ms under @p o: where Strang's first reaction ends
 *  (t + dt/2), or the step's end for Godunov (its one reaction covers the step). */
static inline double hs_split_t_half(const hs_scheme_opts *o, double t_ms, double dt_ms)
{
    return o->order == HS_SPLIT_STRANG ? t_ms + 0.5 * dt_ms : t_ms + dt_ms;
}

/**
 * @brief One reaction's inputs over [t0, t1] ms, exactly as hs_split_step hands them to the react op:
 * the sites' currents per model time unit (hs_stim_set_amplitudes' time averages over the interval,
 * times the time unit) into @p amp [n_sites], the interval in model units into *h.
 * A backend that runs several steps on its own (the cuda backend's launches: hs_backend_ops.steps_device)
 * takes its numbers from here, so both paths give the same bits.
 * @return the substeps (hs_split_substeps of the interval).
 */
int hs_split_reaction_inputs(const hs_problem *p, double t0, double t1, double *amp, double *h);

/**
 * @brief One splitting step from t_ms to t_ms + dt_ms on backend @p b (whose problem runs the
 * splitting scheme): begin_step; Godunov: react over [t, t+dt], diffuse; Strang: react over
 * [t, t+dt/2], diffuse, react over [t+dt/2, t+dt]; end_step. Each reaction's site amplitudes are the
 * time averages over its own interval (hs_stim_set_amplitudes of the problem's sites). On failure
 * (a non-finite value in a reaction, CG not converged) the backend is back at the step's start
 * (restore_step) and the error names the time, the phase and the node or the CG outcome.
 * @param[out] stats newton_iters = linear solves (1), cg_iters of the diffusion, res_norm 0.
 */
hs_status hs_split_step(hs_backend *b, double t_ms, double dt_ms, hs_step_stats *stats);

#ifdef __cplusplus
}
#endif
#endif
