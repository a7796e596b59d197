/*
 * The list of CG variants (config key solver.cg): one line per variant, expanded into enum
 * hs_cg_variant (solvers/hs_cg.h, values in list order: classic = 0, chronopoulos = 1) and into the
 * table behind hs_cg_variant_lookup / hs_cg_variant_name (solvers/cg.c).
 * HS_CG_VARIANT(enumerator, name, summary, seed reference). Append new variants at the end so
 * existing enum values keep their numbers; hs_cg_solve and each backend must then run the new one.
 */
HS_CG_VARIANT(HS_CG_CLASSIC, "classic",
              "textbook Jacobi-PCG: two separate reductions per iteration",
              "Saad, Iterative Methods for Sparse Linear Systems, alg. 9.1")
HS_CG_VARIANT(HS_CG_CHRONOPOULOS, "chronopoulos",
              "Chronopoulos-Gear Jacobi-PCG: one fused reduction per iteration",
              "seed 004 ch. 4 (Chronopoulos & Gear, J. Comput. Appl. Math. 25, 1989)")
HS_CG_VARIANT(HS_CG_SSTEP, "sstep",
              "s-step (communication-avoiding) Jacobi-PCG: matrix powers kernel in a Chebyshev basis, one block "
              "Gram reduction per s iterations (solver.cg_s)",
              "seed 004 ch. 6 (Chronopoulos & Gear 1989 s-step; Hoemmen 2010 CA-CG; Carson & Demmel 2014)")
HS_CG_VARIANT(HS_CG_PIPELINED, "pipelined",
              "pipelined (Ghysels-Vanroose) Jacobi-PCG: one reduction per iteration that can overlap the next "
              "SpMV; CPU backend only for now",
              "Ghysels & Vanroose, Parallel Computing 40 (2014), alg. 4 p-PCG")
