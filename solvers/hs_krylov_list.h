/*
 * The list of Krylov methods (config key solver.krylov): one line each, expanded into enum
 * hs_krylov (solvers/hs_precond.h, values in list order) and the table behind hs_krylov_lookup
 * (solvers/krylov.c). HS_KRYLOV(enumerator, name, needs_symmetric, summary, seed reference).
 * `needs_symmetric` = 1 when the method needs an SPD matrix and a symmetric preconditioner.
 * Append new ones at the end.
 */
HS_KRYLOV(HS_KRYLOV_CG, "cg", 1,
          "preconditioned conjugate gradients (variant solver.cg) for SPD systems",
          "Saad alg. 9.1; seed 004 ch. 4")
HS_KRYLOV(HS_KRYLOV_BICGSTAB, "bicgstab", 0,
          "BiCGStab (van der Vorst), right-preconditioned, for general systems",
          "van der Vorst, SIAM J. Sci. Stat. Comput. 13 (1992); seed 004 ch. 5.3.1 D and appendix I")
