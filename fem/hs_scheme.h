/**
 * @file hs_scheme.h
 * @brief The time scheme of a run (solver.scheme and its keys), plain data: seed 002's implicit
 * scheme ("newton": backward Euler on the whole reaction-diffusion system, a global Newton iteration,
 * the model's variables at the integration points) or operator splitting ("splitting": the model's
 * ODEs at every node, then one linear diffusion solve with a matrix that changes only with dt;
 * fem/hs_splitting.h). app/spec.c resolves the config's names once; the problem options carry the
 * result (hs_problem_opts.scheme) and the execution plan repeats the kind (hs_exec_plan.scheme).
 */
#ifndef HS_SCHEME_H
#define HS_SCHEME_H

#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** solver.scheme. */
typedef enum hs_scheme_kind {
    HS_SCHEME_NEWTON = 0,   /**< seed 002 (fem/newton.c): the default of the models with both kernels */
    HS_SCHEME_SPLITTING = 1 /**< operator splitting (fem/splitting.c) */
} hs_scheme_kind;

/** solver.splitting: how the reaction and the diffusion of a step alternate. */
typedef enum hs_split_order {
    HS_SPLIT_GODUNOV = 0, /**< reaction over dt, then diffusion over dt: first order */
    HS_SPLIT_STRANG = 1   /**< reaction dt/2, diffusion dt, reaction dt/2: second order with theta = 1/2 */
} hs_split_order;

/** solver.mass: the mass matrix of the diffusion solve. */
typedef enum hs_mass_kind {
    HS_MASS_CONSISTENT = 0, /**< the P1 mass matrix, V/20 (1 + delta_ab) per element */
    HS_MASS_LUMPED = 1      /**< its row sums on the diagonal, V/4 per element node */
} hs_mass_kind;

/** solver.cg_tol when the config does not give it and the scheme is splitting (app/config_load.c):
 *  the diffusion solve's error then stays within 2.5% of the scheme's own dt error on the cable of
 *  tests/sim/test_splitting.c (docs/verification.md, "The splitting scheme's CG tolerance"), and a
 *  1M-node step needs ~7 CG iterations instead of ~18 at the Newton scheme's 1e-8. */
#define HS_SPLIT_CG_TOL_DEFAULT 1e-5

/** The scheme of a run, resolved (no "auto"). */
typedef struct hs_scheme_opts {
    hs_scheme_kind kind;
    /* the rest matters to HS_SCHEME_SPLITTING only */
    hs_split_order order;
    double theta;      /**< diffusion: 1 backward Euler, 1/2 Crank-Nicolson (solver.theta) */
    hs_mass_kind mass;
    double dt_ode_ms;  /**< longest reaction substep, ms (solver.dt_ode; 0: one substep per reaction) */
} hs_scheme_opts;

/** @brief What solver.scheme = "auto" is for a model with the schemes @p model_schemes
 *  (hs_model.schemes bits): Newton for a model with the Newton kernels (the seeds' system and the
 *  built-in models, docs/verification.md "Which scheme by default"), splitting for a model with the
 *  nodal form only. app/spec.c, app/config_load.c (the defaults that follow the scheme) and
 *  `bench step --models` resolve it here alike. */
hs_scheme_kind hs_scheme_auto(unsigned model_schemes);

/** @brief "newton" / "splitting". */
const char *hs_scheme_name(hs_scheme_kind k);
/** @brief "godunov" / "strang". */
const char *hs_split_order_name(hs_split_order o);
/** @brief "consistent" / "lumped". */
const char *hs_mass_name(hs_mass_kind m);

/** @brief Scheme by name ("newton", "splitting"); otherwise HS_ERR_CONFIG naming @p key and the
 *  choices (out unchanged). */
hs_status hs_scheme_lookup(const char *key, const char *name, hs_scheme_kind *out);
/** @brief Splitting order by name ("godunov", "strang"), as hs_scheme_lookup. */
hs_status hs_split_order_lookup(const char *key, const char *name, hs_split_order *out);
/** @brief Mass matrix by name ("consistent", "lumped"), as hs_scheme_lookup. */
hs_status hs_mass_lookup(const char *key, const char *name, hs_mass_kind *out);

/** @brief The scheme of seed 002 (what a zeroed hs_scheme_opts is not: theta 1). */
static inline hs_scheme_opts hs_scheme_opts_newton(void)
{
    hs_scheme_opts o = {HS_SCHEME_NEWTON, HS_SPLIT_GODUNOV, 1.0, HS_MASS_CONSISTENT, 0.0};
    return o;
}

#ifdef __cplusplus
}
#endif
#endif
