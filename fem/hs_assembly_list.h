/*
 * The assembly methods (config key solver.assembly): one line each, expanded into enum
 * hs_assembly_kind (fem/hs_assembly.h, values in list order) and the table behind
 * hs_assembly_lookup / hs_assembly_name (fem/assembly_kinds.c). Every backend runs each of them.
 * HS_ASSEMBLY(enumerator, name, summary, reference). Append at the end.
 */
HS_ASSEMBLY(HS_ASSEMBLY_SPLIT, "split",
            "K = K_D + sum_e km_e 11^T: K_D (diffusion) assembled once, two scalars per element per iteration",
            "issue 17; one integration point makes the reaction part of K_e a multiple of 11^T")
HS_ASSEMBLY(HS_ASSEMBLY_FULL, "full",
            "every element matrix K_e and residual R_e written, then gathered per nonzero (the reference)",
            "seed 002 sec. 4 (\"K_elem . 1\" gather assembly)")
