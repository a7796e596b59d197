/**
 * @file hs_problem.h
 * @brief Everything a backend needs to run the monodomain problem, built once on the host:
 * mesh (borrowed), element geometry, CSR pattern, gather maps, stimulus sites, model and solver
 * settings. The CPU and CUDA backends both start from this.
 */
#ifndef HS_PROBLEM_H
#define HS_PROBLEM_H

#include "hs_assembly.h"
#include "hs_cg.h"
#include "hs_csr.h"
#include "hs_exec_plan.h"
#include "hs_fem.h"
#include "hs_mesh.h"
#include "hs_model.h"
#include "hs_region.h"
#include "hs_precond.h"
#include "hs_scheme.h"
#include "hs_splitting.h"
#include "hs_spmv.h"
#include "hs_stimulus.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Physics and solver settings of a run (units as in docs/config.md). */
typedef struct hs_problem_opts {
    const hs_model *model;      /**< the ionic model (fem/models/) */
    hs_model_params model_prm;  /**< its parameters, what the element kernels get */
    double time_unit;           /**< ms per model time unit */
    double d_iso, d_ani;        /**< mm^2/ms */
    const hs_region_set *regions; /**< borrowed, NULL = uniform tissue: per-element parameters and
                                     conductivities (fem/hs_region.h); its table rows override
                                     model_prm, d_iso and d_ani */
    hs_cg_opts cg;
    double newton_tol_residual; /**< on dt * max_I |R_I| / m_I */
    double newton_tol_update;   /**< on max_I |delta phi_I| */
    int newton_max_iter;
    hs_assembly_kind assembly;  /**< split (default) or full (fem/hs_assembly.h) */
    hs_exec_plan exec;          /**< how the backend executes it: step mode, SpMV kernel, value precision,
                                     persistent CG, all resolved (fem/hs_exec_plan.h; hs_sim_create) */
    hs_spmv_params spmv_params; /**< the SpMV kernel's tunables */
    double activation_phi;      /**< activation threshold on phi */
    double repol_phi;           /**< repolarisation threshold on phi (fem/hs_readout.h) */
    double cg_forcing;          /**< inexact Newton forcing cap (hs_cg_forcing_tol); 0 = fixed cg.tol */
    int extrapolate;            /**< initial Newton iterate: 0 phi_n, 1 linear, 2 quadratic in time */
    int graph;                  /**< cuda backend: 1 replay Newton iterations as CUDA graphs, 0 launch kernels */
    long steps_hint;            /**< time steps the run will take (0: unknown): what an "auto" trial may cost */
    hs_precond_opts pc;         /**< preconditioner and Krylov method (solvers/hs_precond.h) */
    hs_scheme_opts scheme;      /**< solver.scheme and the splitting's keys (fem/hs_scheme.h); a zeroed
                                     options struct is the Newton scheme */
} hs_problem_opts;

struct hs_problem {
    hs_problem_opts opt;
    const hs_mesh *mesh;        /**< borrowed: must outlive the problem */
    hs_fem_geom *geom;
    hs_csr *pattern;            /**< values unused */
    hs_assembly_map *map;
    hs_split_map *split;        /**< the split assembly's maps and K_D; NULL for "full" */
    const hs_stim_set *stim;    /**< borrowed */
    hs_nodal *nodal;            /**< the splitting scheme's node data (fem/hs_splitting.h); NULL under Newton */
};

/**
 * @brief Build geometry and gather maps for @p mesh (with fibres).
 * @param[in,out] pattern the CSR pattern of @p mesh in its final numbering (built by the caller
 * for the format choice); the problem takes it over and sets *pattern = NULL. A NULL *pattern is
 * built here.
 */
hs_status hs_problem_create(const hs_mesh *mesh, const hs_stim_set *stim, const hs_problem_opts *opt,
                            hs_csr **pattern, hs_problem **out);
void hs_problem_destroy(hs_problem **p);

#ifdef __cplusplus
}
#endif
#endif
