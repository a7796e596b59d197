/**
 * @file hs_cg.h
 * @brief Jacobi-preconditioned conjugate gradients on the host (OpenMP), the CPU reference solver.
 */
#ifndef HS_CG_H
#define HS_CG_H

#include <stdint.h>

#include "hs_comm.h"
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

/** Default and limits of solver.cg_s, the s of the s-step variant (HS_CG_SSTEP). */
#define HS_CG_S_DEFAULT 4
#define HS_CG_S_MIN 2
#define HS_CG_S_MAX 8

typedef struct hs_cg_opts {
    double tol;   /**< stop when ||r||_2 <= tol ||b||_2 */
    int max_iter;
    hs_cg_variant variant;
    int s;        /**< HS_CG_SSTEP: iterations per block (HS_CG_S_MIN..HS_CG_S_MAX); 0: HS_CG_S_DEFAULT */
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
    int fallback_iter;    /**< HS_CG_SSTEP: iteration after which the s-step basis broke down and classic
                               CG took over (0: it did not) */
} hs_cg_result;

/** y = A x for the solver; ctx is the caller's. */
typedef void (*hs_matvec_fn)(void *ctx, const double *x, double *y);

/** Work vectors of length n (allocate once, reuse every solve): r, z (= u), p, q (= w), and s for
 *  Chronopoulos-Gear (s = A p carried by recurrence). */
typedef struct hs_cg_work {
    int32_t n;
    double *r, *z, *p, *q, *s;
    double *basis;     /**< HS_CG_SSTEP: [2s+3][n] basis and scratch, allocated by the first s-step solve */
    int basis_s;       /**< the s basis was allocated for (0: none) */
    int sstep_reuse;   /**< HS_CG_SSTEP, set by the caller: keep the Chebyshev interval of one solve for the
                            next ones (a sequence of close matrices, e.g. Newton's), so later solves skip the s
                            start-up iterations; a breakdown drops it. 0 (default): estimate it in every solve */
    double sstep_c, sstep_d; /**< the kept interval: centre, half-width (valid when sstep_d > 0) */
    double *pipe;      /**< HS_CG_PIPELINED: [4][n] q, z, m, n vectors, allocated by the first pipelined solve */
    hs_comm *comm;     /**< borrowed, set by the caller: the rank's partition and communication (hs_comm.h);
                            NULL (default) or hs_comm_serial: one rank. With a distributed comm, every variant
                            solves on the owned rows (n = comm->n_owned): inner products over them, then
                            hs_comm_sum (the s-step Gram matrices in one); the operator exchanges the halo
                            of its input (whose vectors have n_local entries: create the work with n_local;
                            x too has n_local entries for the s-step variant's fallback). */
} hs_cg_work;

/** @brief Allocate work for systems of size n. */
hs_status hs_cg_work_create(int32_t n, hs_cg_work **out);
/** @brief Free; accepts NULL and sets *p = NULL. */
void hs_cg_work_destroy(hs_cg_work **p);

/**
 * @brief The start every Krylov solve of this folder shares (x = 0): @p res cleared, x = 0, r = b,
 * *bnorm = ||b||. @return 1 when the solve is over already (b = 0: converged in 0 iterations; b not
 * finite: HS_CG_NONFINITE with rel_res = ||b||), else 0.
 */
int hs_krylov_start(int32_t n, const double *b, double *x, double *r, hs_cg_result *res, double *bnorm);
/** @brief The same over the ranks of @p comm (NULL: one rank): ||b|| from the owned rows and one
 *  hs_comm_sum; *over as hs_krylov_start's return value. An error only from the reduction. */
hs_status hs_krylov_start_on(hs_comm *comm, int32_t n, const double *b, double *x, double *r, hs_cg_result *res,
                             double *bnorm, int *over);
/**
 * @brief Chronopoulos-Gear's step coefficients from gamma = (r, u) and delta = (A u, u) (seed 004 ch. 4),
 * shared by the Chronopoulos, pipelined and preconditioned-Krylov loops: *beta = gamma / gamma_old
 * (0 at iteration 1), (p, A p) = delta - beta gamma / alpha_old (delta at iteration 1), and *alpha
 * (in: the previous step's, out: gamma / (p, A p)). @return 1 to go on; 0 when the solve stops, with
 * res->outcome HS_CG_NONFINITE ((p, A p) not finite) or HS_CG_BREAKDOWN ((p, A p) <= 0 or gamma <= 0).
 */
int hs_cgc_coef(int it, double gamma, double gamma_old, double delta, double *alpha, double *beta, hs_cg_result *res);

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

/**
 * @brief s-step (communication-avoiding) Jacobi-PCG (Chronopoulos & Gear 1989 s-step; Hoemmen 2010
 * ch. 5 CA-CG; Carson & Demmel 2014 formulation; seed 004 ch. 6 builds the matrix powers kernel).
 * The first s iterations are classic PCG; their Lanczos coefficients give the Ritz interval
 * [theta_min, theta_max] of D^-1 A. Then, per block of s iterations: a matrix powers kernel builds the
 * 2s+1 basis vectors Y = [rho_0..rho_s (D^-1 A) p, rho_0..rho_{s-1} (D^-1 A) u] in the Chebyshev basis of
 * that interval, one block reduction forms the Gram matrices G = Y' D Y and H = Y' D^2 Y, and the s
 * iterations run on (2s+1)-vectors of coordinates: (r,u) = u'Gu', (p,Ap) = p'G B p', ||r||^2 = u'Hu'
 * (B: D^-1 A Y = Y B on the leading columns). Equal to hs_cg_jacobi in exact arithmetic; the
 * convergence test is the same, at each inner iteration, so iteration counts agree up to round-off.
 * A quadratic form that is not positive or is at the round-off level of the Gram matrix (the basis
 * lost its rank) is a breakdown of the basis: the block is discarded and classic PCG continues from
 * the current iterate (residual recomputed), with a warning and res->fallback_iter set. Same contract
 * as hs_cg_jacobi; opts->s in HS_CG_S_MIN..HS_CG_S_MAX (0: HS_CG_S_DEFAULT), else HS_ERR_INTERNAL.
 */
hs_status hs_cg_sstep(int32_t n, hs_matvec_fn A, void *ctx, const double *inv_diag, const double *b,
                      double *x, const hs_cg_opts *opts, hs_cg_work *work, hs_cg_result *res);

/**
 * @brief Pipelined Jacobi-PCG (P. Ghysels and W. Vanroose, Parallel Computing 40 (2014), Alg. 4 "p-PCG"
 * with M = diag A): Chronopoulos-Gear's recurrences extended by q = M^-1 s, z = A q and w = A u carried
 * by recurrence, so that the one reduction of an iteration, gamma = (r,u), delta = (w,u) and ||r||^2,
 * depends on no product of the same iteration and can overlap the next one's m = M^-1 w, n = A m:
 *   beta = gamma / gamma_old,  alpha = gamma / (delta - beta gamma / alpha_old)
 *   z = n + beta z,  q = m + beta q,  s = w + beta s,  p = u + beta p
 *   x += alpha p,  r -= alpha s,  u -= alpha q,  w -= alpha z
 * Equal to hs_cg_jacobi in exact arithmetic; in floating point the recurred r, u, w drift from
 * b - A x, M^-1 r, A u by round-off that the extra recurrences amplify (Ghysels-Vanroose sec. 5: the
 * attainable accuracy is lower than classic CG's; no residual replacement here), so the convergence
 * test (the same ||r||_2 of the recurred r, after the update, as hs_cg_chronopoulos) can stop at a
 * true residual somewhat above the target. Nine vectors (four in work->pipe), one SpMV, one reduction
 * per iteration. hs_comm has a blocking sum only: the overlap is not done yet (cg_pipelined.c says
 * where it goes); this is the CPU reference of a future device kernel, which the cuda backend refuses
 * for now. Same contract, outcome codes and iteration accounting as hs_cg_chronopoulos.
 */
hs_status hs_cg_pipelined(int32_t n, hs_matvec_fn A, void *ctx, const double *inv_diag, const double *b,
                          double *x, const hs_cg_opts *opts, hs_cg_work *work, hs_cg_result *res);

/**
 * @brief Extreme eigenvalues of the Lanczos matrix of k CG iterations (the Ritz interval of M^-1 A):
 * T_jj = 1/alpha_j + beta_{j-1}/alpha_{j-1}, T_{j,j+1} = sqrt(beta_j)/alpha_j (Saad, sec. 6.7.3), by
 * Sturm-sequence bisection to 1e-6 of the Gershgorin width. alpha[k], beta[k] as CG computed them
 * (beta[j] after iteration j).
 */
void hs_cg_ritz_interval(int k, const double *alpha, const double *beta, double *theta_min, double *theta_max);

/** @brief The variant opts->variant names. */
hs_status hs_cg_solve(int32_t n, hs_matvec_fn A, void *ctx, const double *inv_diag, const double *b,
                      double *x, const hs_cg_opts *opts, hs_cg_work *work, hs_cg_result *res);

/** @brief The name of @p v ("classic", "chronopoulos", "sstep", "pipelined"); "(unknown)" for a value
 * not in the list. */
const char *hs_cg_variant_name(hs_cg_variant v);

/**
 * @brief The variant called @p name. An unknown name is HS_ERR_CONFIG reading
 * `<key>: unknown CG variant "<name>"; available: classic, chronopoulos, sstep, pipelined`.
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
