/**
 * @file hs_cg.h
 * @brief Jacobi-preconditioned conjugate gradients on the host (OpenMP), the CPU reference solver.
 */
#ifndef HS_CG_H
#define HS_CG_H

#include <stdint.h>

#include "hs_hd.h"
#include "hs_registry.h"
#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** CG variants (solver.cg), listed once in hs_cg_list.h: HS_CG_CLASSIC = 0 (textbook Jacobi-PCG,
 *  Saad alg. 9.1: two separate reductions), HS_CG_CHRONOPOULOS = 1 (Chronopoulos-Gear: one fused
 *  reduction per iteration, seed 004 ch. 4). The GPU backend implements the same ones with the same
 *  tests. */
typedef enum hs_cg_variant {
#define HS_CG_VARIANT(enumerator, name, summary, seed) enumerator,
#include "hs_cg_list.h"
#undef HS_CG_VARIANT
} hs_cg_variant;

/** An entry of the CG variant table (one per line of hs_cg_list.h, in list order). */
typedef struct hs_cg_variant_info {
    const char *name;      /**< config name (solver.cg), e.g. "chronopoulos"; first member (hs_registry) */
    hs_cg_variant variant;
    const char *summary;   /**< one line */
    const char *seed;      /**< seed reference */
} hs_cg_variant_info;

typedef struct hs_cg_opts {
    double tol;   /**< stop when ||r||_2 <= tol ||b||_2 */
    int max_iter;
    hs_cg_variant variant;
} hs_cg_opts;

typedef enum hs_cg_outcome {
    HS_CG_CONVERGED = 0,
    HS_CG_MAX_ITER = 1,   /**< tolerance not reached in max_iter iterations */
    HS_CG_BREAKDOWN = 2,  /**< p'Ap <= 0 or r'z <= 0: matrix or preconditioner not SPD */
    HS_CG_NONFINITE = 3   /**< NaN/Inf appeared */
} hs_cg_outcome;

typedef struct hs_cg_result {
    hs_cg_outcome outcome;
    int iters;
    double rel_res;       /**< ||r||_2 / ||b||_2 at exit (true recurrence residual) */
} hs_cg_result;

/** y = A x for the solver; ctx is the caller's. */
typedef void (*hs_matvec_fn)(void *ctx, const double *x, double *y);

/** Work vectors of length n (allocate once, reuse every solve): r, z (= u), p, q (= w), and s for
 *  Chronopoulos-Gear (s = A p carried by recurrence). */
typedef struct hs_cg_work {
    int32_t n;
    double *r, *z, *p, *q, *s;
} hs_cg_work;

/** @brief Allocate work for systems of size n. */
hs_status hs_cg_work_create(int32_t n, hs_cg_work **out);
/** @brief Free; accepts NULL and sets *p = NULL. */
void hs_cg_work_destroy(hs_cg_work **p);

/**
 * @brief Solve A x = b from x = 0 with Jacobi preconditioning M^-1 = diag(inv_diag).
 * Returns HS_OK whatever the outcome (the caller decides what a failure means and words the error
 * with its context); res tells what happened.
 * @param[in] n size; @param[in] A,ctx operator; @param[in] inv_diag [n] 1/A_ii; @param[in] b [n];
 * @param[out] x [n]; @param[in] opts tolerances; @param work scratch; @param[out] res outcome.
 */
hs_status hs_cg_jacobi(int32_t n, hs_matvec_fn A, void *ctx, const double *inv_diag,
                       const double *b, double *x, const hs_cg_opts *opts, hs_cg_work *work,
                       hs_cg_result *res);

/**
 * @brief Chronopoulos-Gear Jacobi-PCG (A. T. Chronopoulos and C. W. Gear, J. Comput. Appl. Math.
 * 25 (1989); seed 004 ch. 4): the two inner products of an iteration, gamma = (r, u) and
 * delta = (A u, u) with u = M^-1 r, are formed together, and s = A p follows by the recurrence
 * s = w + beta s, so one SpMV (w = A u) and one reduction suffice per iteration:
 *   beta = gamma / gamma_old,  alpha = gamma / (delta - beta gamma / alpha_old)   (= (r,u)/(p,Ap))
 *   p = u + beta p,  s = w + beta s,  x += alpha p,  r -= alpha s,  u = M^-1 r
 * Equal to hs_cg_jacobi in exact arithmetic (same iterates); the convergence test on ||r||_2 is
 * the same and sits at the same place (after the r update), so iteration counts agree up to
 * round-off (tests: +-1). Same contract as hs_cg_jacobi.
 */
hs_status hs_cg_chronopoulos(int32_t n, hs_matvec_fn A, void *ctx, const double *inv_diag,
                             const double *b, double *x, const hs_cg_opts *opts, hs_cg_work *work,
                             hs_cg_result *res);

/** @brief The variant opts->variant names. */
hs_status hs_cg_solve(int32_t n, hs_matvec_fn A, void *ctx, const double *inv_diag, const double *b,
                      double *x, const hs_cg_opts *opts, hs_cg_work *work, hs_cg_result *res);

/** @brief The name of @p v ("classic", "chronopoulos"); "(unknown)" for a value not in the list. */
const char *hs_cg_variant_name(hs_cg_variant v);

/**
 * @brief The variant called @p name. An unknown name is HS_ERR_CONFIG reading
 * `<key>: unknown CG variant "<name>"; available: classic, chronopoulos`.
 * @param[in] key what the name came from, for the message (e.g. "solver.cg");
 * @param[in] name the configured name; @param[out] out the variant (unchanged on error).
 */
hs_status hs_cg_variant_lookup(const char *key, const char *name, hs_cg_variant *out);

/** @brief The table of variants (entries hs_cg_variant_info), e.g. to list them. Static storage. */
const hs_registry *hs_cg_variants(void);

/**
 * @brief Inexact Newton (Eisenstat-Walker style forcing with a floor): the relative CG tolerance
 * for a Newton step whose residual is @p res (the Newton test's measure, dt max_I |R_I| / m_I).
 * forcing = 0: always @p cg_tol. Otherwise the linear solve need not be more accurate than the
 * Newton test can see: eta = clamp(0.1 tol_res / res, cg_tol, forcing). After the step the new
 * Newton residual is about eta res (linear part) plus the quadratic remainder, so eta <= 0.1 tol_res
 * / res keeps the linear error a tenth of the tolerance; the cap `forcing` keeps Newton converging
 * when res is already small (the update test then decides). Shared by the CPU and GPU backends.
 */
HS_HD double hs_cg_forcing_tol(double cg_tol, double forcing, double tol_res, double res)
{
    if (!(forcing > 0.0)) return cg_tol;
    double eta = res > 0.0 ? 0.1 * tol_res / res : forcing;
    if (eta > forcing) eta = forcing;
    if (eta < cg_tol) eta = cg_tol;
    return eta;
}

/** @brief Words for an outcome ("converged", "did not converge", ...). */
const char *hs_cg_outcome_name(hs_cg_outcome o);

#ifdef __cplusplus
}
#endif
#endif
