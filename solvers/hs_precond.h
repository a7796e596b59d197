/**
 * @file hs_precond.h
 * @brief Preconditioners (solver.precond: jacobi, sai, fsai) and Krylov methods (solver.krylov:
 * cg, bicgstab) on the host: the CPU reference of seed 004 ch. 5 (sparse approximate inverse
 * preconditioning and BiCGStab). Both lists are X-macro headers (hs_precond_list.h,
 * hs_krylov_list.h) expanded into registries, like the SpMV formats.
 *
 * SAI (seed 004 ch. 5.2, eq. 5.1-5.4, Fig. 5.1): M ~ A^-1 with the sparsity pattern S of A^k
 * (k = solver.sai_level, the diagonal always included). Column j of M solves the least-squares
 * problem min || A(I,J) m - e_j(I) ||_2, J = the rows of column j of S, I = the rows where A(:,J)
 * has entries, by a Householder QR of the small dense A(I,J) (n1 x n2). M is a right
 * preconditioner (A M ~ I): BiCGStab solves A M y = b, x = M y.
 * FSAI (Kolotilina & Yeremin 1993; seed 004 ch. 5.2): G lower triangular with the pattern of
 * tril(S); row i: P = {j <= i : S(i,j) != 0} (i last), solve A(P,P) g = e_i by Cholesky, then
 * G(i,P) = g / sqrt(g_i), so diag(G A G^T) = 1 and M = G^T G is SPD whenever A is: CG may use it.
 *
 * The pattern work (S, its transpose, the maps, the largest local problem) is done once by
 * hs_precond_create; hs_precond_compute recomputes the values when A's values change.
 */
#ifndef HS_PRECOND_H
#define HS_PRECOND_H

#include <stdint.h>

#include "hs_cg.h"
#include "hs_csr.h"
#include "hs_registry.h"
#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Preconditioners (solver.precond), listed once in hs_precond_list.h. */
typedef enum hs_precond_kind {
#define HS_PRECOND(enumerator, name, symmetric, summary, seed) enumerator,
#include "hs_precond_list.h"
#undef HS_PRECOND
} hs_precond_kind;

/** Krylov methods (solver.krylov), listed once in hs_krylov_list.h. */
typedef enum hs_krylov {
#define HS_KRYLOV(enumerator, name, needs_symmetric, summary, seed) enumerator,
#include "hs_krylov_list.h"
#undef HS_KRYLOV
} hs_krylov;

/** An entry of the preconditioner table (first member the name: hs_registry). */
typedef struct hs_precond_info {
    const char *name;
    hs_precond_kind kind;
    int symmetric;       /**< M SPD for SPD A: usable with CG */
    const char *summary;
    const char *seed;
} hs_precond_info;

/** An entry of the Krylov table. */
typedef struct hs_krylov_info {
    const char *name;
    hs_krylov kind;
    int needs_symmetric; /**< needs an SPD A and a symmetric preconditioner */
    const char *summary;
    const char *seed;
} hs_krylov_info;

/** @brief The preconditioner table (entries hs_precond_info), e.g. to list them. */
const hs_registry *hs_preconds(void);
/** @brief The Krylov table (entries hs_krylov_info). */
const hs_registry *hs_krylovs(void);
/** @brief The preconditioner called @p name; unknown: HS_ERR_CONFIG `<key>: unknown preconditioner
 *  "<name>"; available: jacobi, sai, fsai`. */
hs_status hs_precond_lookup(const char *key, const char *name, hs_precond_kind *out);
/** @brief The Krylov method called @p name; unknown: HS_ERR_CONFIG with the list. */
hs_status hs_krylov_lookup(const char *key, const char *name, hs_krylov *out);
/** @brief Names ("jacobi", ...; "(unknown)" outside the list). */
const char *hs_precond_name(hs_precond_kind k);
const char *hs_krylov_name(hs_krylov k);
/**
 * @brief Whether @p k may run with @p p: CG with a non-symmetric preconditioner (sai) is
 * HS_ERR_CONFIG naming both and suggesting fsai or bicgstab.
 */
hs_status hs_krylov_precond_check(hs_krylov k, hs_precond_kind p);

/** The solver.precond / solver.krylov settings of a run. */
typedef struct hs_precond_opts {
    hs_precond_kind precond; /**< solver.precond */
    hs_krylov krylov;        /**< solver.krylov */
    int sai_level;           /**< solver.sai_level: pattern of A^k, k = 1, 2 */
    int reuse;               /**< solver.precond_reuse: a computed SAI/FSAI serves this many solves */
} hs_precond_opts;

/** @brief The default settings: Jacobi-CG, level 1, recomputed every solve. */
static inline hs_precond_opts hs_precond_opts_default(void)
{
    hs_precond_opts o = {HS_PRECOND_JACOBI, HS_KRYLOV_CG, 1, 1};
    return o;
}

/** A preconditioner for one sparsity pattern of A (its values recomputed by hs_precond_compute). */
typedef struct hs_precond {
    hs_precond_kind kind;
    int level;            /**< pattern of A^level (sai, fsai) */
    int32_t n;
    int32_t *diag_pos;    /**< [n] position of (i,i) in A's CSR, -1 when absent */
    double *inv_diag;     /**< jacobi: [n] 1 / A_ii */
    /* sai: M (CSR, pattern S) and M^T (CSR; its row j = column j of M, where the column problems
     * write); fsai: m = G (tril(S)), mt = G^T. mt_to_m[k]: position in m of entry k of mt. */
    hs_csr *m, *mt;
    int32_t *mt_to_m;     /**< [nnz] */
    /* sai: A^T's pattern (its rows are A's columns) and the position in A of each of its entries */
    hs_csr *at;
    int32_t *at_to_a;     /**< [nnz(A)] */
    int32_t max_n1, max_n2; /**< largest local problem: rows (I), unknowns (J or P) */
    double *tmp;          /**< fsai: [n] G r */
    double setup_pattern_s; /**< seconds spent in hs_precond_create */
} hs_precond;

/**
 * @brief The pattern work for preconditioner @p kind of matrices with the pattern of @p a (values
 * unused): S = pattern(A^level) with the diagonal, the transposes and maps, the workspace sizes.
 * A non-square @p a, or level outside 1..2, is HS_ERR_NUMERIC / HS_ERR_CONFIG.
 * @param[in] a borrowed, only during the call; @param[out] out hs_precond_destroy.
 */
hs_status hs_precond_create(hs_precond_kind kind, int level, const hs_csr *a, hs_precond **out);

/**
 * @brief The values of the preconditioner for @p a (same pattern as at create). Errors, naming the
 * row or column: jacobi: a zero or missing diagonal entry; sai: a rank-deficient local least-squares
 * problem (A singular, or a zero column); fsai: a local matrix that is not positive definite (A not
 * SPD). All HS_ERR_NUMERIC. OpenMP over columns/rows.
 */
hs_status hs_precond_compute(hs_precond *pc, const hs_csr *a);

/** @brief z = M r (jacobi: D^-1 r; sai: M r; fsai: G^T (G r)). @p pc is a hs_precond *. */
void hs_precond_apply(void *pc, const double *r, double *z);

/** @brief Free; accepts NULL, sets *p = NULL. */
void hs_precond_destroy(hs_precond **p);

/**
 * @brief One SAI column as a dense problem, the step the GPU kernel and the CPU reference share:
 * min || A m - e_j || over the n2 entries of @p J, with @p ahat = A(I,J) [n2][n1] (column-major:
 * ahat[q*n1 + r]), @p jrow the position of j in I (-1 when j is not in I). Householder QR in
 * place; @p m [n2] out; @p w [n1] scratch. @return 0, or -1 when rank deficient (|R_qq| <= n1 eps
 * max |R|) or n1 < n2.
 */
int hs_sai_solve_dense(int n1, int n2, double *ahat, int jrow, double *m, double *w);

/**
 * @brief One FSAI row as a dense problem: @p apn = A(P,P) [n2][n2] row-major (overwritten by its
 * Cholesky factor), g [n2] out = the row of G (solution of A(P,P) g = e_last, scaled by
 * 1/sqrt(g_last)). @return 0, or -1 when A(P,P) is not positive definite.
 */
int hs_fsai_solve_dense(int n2, double *apn, double *g);

/** A preconditioner application z = M r, for the Krylov methods; ctx the caller's. */
typedef void (*hs_precond_fn)(void *ctx, const double *r, double *z);

/** Work vectors of length n for hs_krylov_solve (allocate once). */
typedef struct hs_krylov_work {
    int32_t n;
    double *v[8];
} hs_krylov_work;

hs_status hs_krylov_work_create(int32_t n, hs_krylov_work **out);
void hs_krylov_work_destroy(hs_krylov_work **p);

/**
 * @brief Preconditioned CG from x = 0 with any symmetric preconditioner @p M: opts->variant
 * classic (Saad alg. 9.1) or chronopoulos (one fused reduction, seed 004 ch. 4). Same outcome and
 * convergence test (||r||_2 <= tol ||b||_2) as hs_cg_solve, which it equals for M = D^-1.
 */
hs_status hs_pcg(int32_t n, hs_matvec_fn A, void *actx, hs_precond_fn M, void *mctx, const double *b,
                 double *x, const hs_cg_opts *opts, hs_krylov_work *work, hs_cg_result *res);

/**
 * @brief Right-preconditioned BiCGStab (van der Vorst 1992; seed 004 appendix I) from x = 0:
 * solves A M y = b and returns x = M y, so the residual it tests, ||b - A x||_2 <= tol ||b||_2,
 * is the true one (not a preconditioned one). Two SpMVs and two applications of M per iteration;
 * res->iters counts whole iterations (one stopped at its half-step counts). Breakdown (rho = 0 or
 * omega = 0, or (r0, v) = 0) is HS_CG_BREAKDOWN.
 */
hs_status hs_bicgstab(int32_t n, hs_matvec_fn A, void *actx, hs_precond_fn M, void *mctx, const double *b,
                      double *x, const hs_cg_opts *opts, hs_krylov_work *work, hs_cg_result *res);

/** @brief hs_pcg or hs_bicgstab by @p k. */
hs_status hs_krylov_solve(hs_krylov k, int32_t n, hs_matvec_fn A, void *actx, hs_precond_fn M, void *mctx,
                          const double *b, double *x, const hs_cg_opts *opts, hs_krylov_work *work,
                          hs_cg_result *res);

/** One preconditioner + Krylov combination timed by `heartsim bench solve` (cpu: app/bench_solve.c,
 *  gpu: backends/cuda/krylov.cu). Times in seconds; medians over the repetitions. */
typedef struct hs_solve_bench_row {
    char method[48];        /**< e.g. "fsai-cg", "cusparse jacobi-bicgstab" */
    int ok;                 /**< 0: failed, see failure */
    char failure[320];
    double setup_pattern_s; /**< pattern work (once per mesh) */
    double setup_values_s;  /**< values (once per matrix) */
    int iters;              /**< to the tolerance */
    int converged;
    double solve_s;         /**< the whole solve */
    double true_rel_res;    /**< ||b - A x|| / ||b|| recomputed after the solve */
} hs_solve_bench_row;

#ifdef __cplusplus
}
#endif
#endif
