/**
 * @file hs_cuda_policy.h
 * @brief The CUDA backend's execution policy (backends/cuda/policy.c): what its "auto" choices of
 * the execution plan (fem/hs_exec_plan.h) resolve to, from the costs measured on an H100
 * (docs/benchmarks.md). Host C with no CUDA, built in every build, so CPU tests check every branch;
 * the backend's entry (entry.cu, resolve_plan) applies it and adds the SpMV trial, which needs the
 * device.
 */
#ifndef HS_CUDA_POLICY_H
#define HS_CUDA_POLICY_H

#include <stdint.h>

#include "hs_exec_plan.h"
#include "hs_problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/** solver.persistent = "auto": the persistent CG for systems up to this many rows (latency-bound;
 *  above it the kernel sequence streams at full bandwidth: measured in docs/benchmarks.md), and at most
 *  the rows the device's persistent CG holds at one thread each (@p dev_rows of the rules below). */
#define HS_CUDA_PERSISTENT_CG_AUTO_ROWS 262144

/** solver.step = "auto": the persistent step for meshes up to this many nodes (the persistent CG's own
 *  limit), where it beat the graph step with the persistent CG on an H100 (docs/benchmarks.md, issue
 *  18: 21% faster at 50,653 nodes, 15% at 226,981; 1.4x slower at 389,017). Against the graph step with
 *  the kernel-sequence CG it pays only while every row has its own thread of the persistent CG's grid
 *  (measured on an H200: 0.76 against 0.83 ms a step at 132,651 nodes, 1.10 against 0.91 at 157,464;
 *  the grid holds 132 x 1024 = 135,168 rows there): hs_cuda_persistent_auto_rows. */
#define HS_CUDA_STEP_PERSISTENT_AUTO_ROWS HS_CUDA_PERSISTENT_CG_AUTO_ROWS

/**
 * @brief The most rows "auto" gives the persistent CG and the Newton scheme's persistent step:
 * HS_CUDA_PERSISTENT_CG_AUTO_ROWS, or @p dev_rows when it is smaller and known (> 0): the rows the
 * device's one-barrier persistent CG holds at one thread each (hs_gpu_cg_one_pass_rows: SMs x its
 * resident 1024-thread blocks x 1024). Beyond them each thread carries two rows or more, and the kernel
 * sequence in a CUDA graph is faster.
 */
int64_t hs_cuda_persistent_auto_rows(int64_t dev_rows);

/** solver.scheme = "splitting", solver.step = "persistent" (backends/cuda/split_persist.cu): the
 *  models whose ODEs the steps' cooperative kernel holds beside the CG, at most this many variables
 *  (Aliev-Panfilov, Mitchell-Schaeffer, Bueno-Orovio; the kernel is built for these only). The CellML
 *  models (18-40 variables) take 90-184 registers in the nodal kernel alone, beyond the kernel's 128
 *  (512 threads per block, one block per SM: step_persistent.cu's measured shape). */
#define HS_CUDA_SPLIT_PERSIST_MAX_VARS 3

/** solver.step = "auto" under splitting: the persistent kernel up to this many nodes (the persistent
 *  CG's own limit: above it the CG's kernel sequence streams at full bandwidth and one 512-thread
 *  block per SM leaves the reaction latency-bound), the graph above. */
#define HS_CUDA_SPLIT_PERSIST_AUTO_ROWS HS_CUDA_PERSISTENT_CG_AUTO_ROWS

/**
 * @brief Why the splitting scheme's steps cannot run as one persistent cooperative kernel with @p o
 * (NULL: they can): Jacobi-CG Chronopoulos-Gear (the one-barrier persistent CG inside it), a model of
 * at most HS_CUDA_SPLIT_PERSIST_MAX_VARS variables.
 */
const char *hs_cuda_split_persist_refusal(const hs_problem_opts *o);

/**
 * @brief Why the cuda backend cannot run @p o's CG variant at all (NULL: it can): solver.cg =
 * "pipelined" has its CPU reference only (solvers/cg_pipelined.c), no device kernel yet. The plan's
 * resolution (entry.cu) refuses it, on one rank or several, before anything is built.
 */
const char *hs_cuda_cg_refusal(const hs_problem_opts *o);

/**
 * @brief Why the persistent step's kernel cannot run these settings (NULL: it can, at any size):
 * Jacobi-CG, split assembly (@p o), Chronopoulos-Gear with the persistent CG (solver.persistent
 * @p persistent: 1 on, 0 off, HS_PERSISTENT_AUTO up to hs_cuda_persistent_auto_rows(@p dev_rows) rows; @p dev_rows 0: not known).
 */
const char *hs_cuda_step_persistent_refusal(const hs_problem_opts *o, int persistent, int32_t n_rows,
                                            int64_t dev_rows);

/**
 * @brief Why the splitting scheme's steps cannot run as one CUDA graph with @p o's solver (NULL: they
 * can): the graph holds the device's Jacobi-CG (backends/cuda/split_step.cu).
 */
const char *hs_cuda_split_graph_refusal(const hs_problem_opts *o);

/**
 * @brief solver.step = "auto": HS_STEP_PERSISTENT when its kernel runs these settings on at most
 * hs_cuda_persistent_auto_rows(@p dev_rows) rows, else HS_STEP_GRAPH with Jacobi-CG, else HS_STEP_KERNELS.
 * Under solver.scheme = "splitting": HS_STEP_PERSISTENT (the steps up to the next output event as one
 * cooperative kernel, split_persist.cu) where hs_cuda_split_persist_refusal allows it, solver.graph is
 * on, solver.persistent is not off and the mesh has at most HS_CUDA_SPLIT_PERSIST_AUTO_ROWS nodes;
 * else HS_STEP_GRAPH (the same steps as one CUDA graph, split_step.cu) with Jacobi-CG and solver.graph
 * on, else HS_STEP_KERNELS (the host runs a step's ops).
 * @param[out] why the reason (static storage).
 */
hs_step_mode hs_cuda_step_auto(const hs_problem_opts *o, int persistent, int32_t n_rows, int64_t dev_rows,
                               const char **why);

/**
 * @brief Why the cuda backend cannot run step mode @p step (a named one; HS_STEP_AUTO: never refused)
 * under @p o's scheme (NULL: it can). Under solver.scheme = "splitting": "kernels" (the ops react and
 * diffuse run from the host, a step at a time) or "graph" (the steps up to the next output event as one
 * CUDA graph: hs_cuda_split_graph_refusal) or "persistent" (the steps up to the next output event as
 * one cooperative kernel: hs_cuda_split_persist_refusal).
 */
const char *hs_cuda_scheme_refusal(const hs_problem_opts *o, hs_step_mode step);

/**
 * @brief Every choice of @p plan but the SpMV kernel (which needs the device's trial), for a system of
 * @p n_rows rows solved with @p o's CG, preconditioner and assembly: the step (hs_cuda_step_auto), the
 * persistent CG (Chronopoulos-Gear only; on with the persistent step, which runs it; auto: up to
 * HS_CUDA_PERSISTENT_CG_AUTO_ROWS rows) and the matrix values (auto: float32 when the named kernel
 * has a float32 variant, or when "auto" chooses the kernel), each "auto" with its reason.
 */
void hs_cuda_plan_rules(const hs_problem_opts *o, int32_t n_rows, int64_t dev_rows, hs_exec_plan *plan);

#ifdef __cplusplus
}
#endif
#endif
