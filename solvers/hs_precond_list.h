/*
 * The list of preconditioners (config key solver.precond): one line each, expanded into enum
 * hs_precond_kind (solvers/hs_precond.h, values in list order) and into the table behind
 * hs_precond_lookup (solvers/precond.c).
 * HS_PRECOND(enumerator, name, symmetric, summary, seed reference). `symmetric` = 1 when M is
 * symmetric positive definite for an SPD A, so CG may use it. Append new ones at the end.
 */
HS_PRECOND(HS_PRECOND_JACOBI, "jacobi", 1,
           "M = diag(A)^-1",
           "Saad, Iterative Methods for Sparse Linear Systems, sec. 10.2")
HS_PRECOND(HS_PRECOND_SAI, "sai", 0,
           "sparse approximate inverse M ~ A^-1 on the pattern of A^k, one least-squares problem per column (right preconditioner, not symmetric)",
           "seed 004 ch. 5.2-5.3 (Dehnavi, GSAI)")
HS_PRECOND(HS_PRECOND_FSAI, "fsai", 1,
           "factorised sparse approximate inverse G^T G ~ A^-1, G lower triangular on tril(A^k), one small SPD solve per row, diag(G A G^T) = 1",
           "seed 004 ch. 5.2 (Kolotilina & Yeremin, SIAM J. Matrix Anal. Appl. 14, 1993)")
