/**
 * @file hs_cg.h
 * @brief Jacobi-preconditioned conjugate gradients on the host (OpenMP), the CPU reference solver.
 */
#ifndef HS_CG_H
#define HS_CG_H

#include <stdint.h>

#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hs_cg_opts {
    double tol;   /**< stop when ||r||_2 <= tol ||b||_2 */
    int max_iter;
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

/** Work vectors r, z, p, q of length n (allocate once, reuse every solve). */
typedef struct hs_cg_work {
    int32_t n;
    double *r, *z, *p, *q;
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

/** @brief Words for an outcome ("converged", "did not converge", ...). */
const char *hs_cg_outcome_name(hs_cg_outcome o);

#ifdef __cplusplus
}
#endif
#endif
