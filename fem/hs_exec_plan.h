/**
 * @file hs_exec_plan.h
 * @brief The execution plan of a run: how the backend executes the problem (step mode, SpMV kernel,
 * matrix value precision, persistent CG), every "auto" of the config resolved once at set-up
 * (sim/sim_build.c) by the backend's policy (hs_backend_entry.resolve_plan: backends/cuda/policy.c,
 * backends/cpu/) and logged once with its reasons. The backends read the resolved plan from
 * hs_problem_opts.exec and never look a name up again. Data only: the policy is the backend's.
 */
#ifndef HS_EXEC_PLAN_H
#define HS_EXEC_PLAN_H

#include "hs_registry.h"
#include "hs_scheme.h"
#include "hs_spmv.h"

#ifdef __cplusplus
extern "C" {
#endif

/** solver.step, listed once in hs_step_mode_list.h: HS_STEP_KERNELS = 0 (the host loop),
 *  HS_STEP_GRAPH = 1, HS_STEP_PERSISTENT = 2. */
typedef enum hs_step_mode {
#define HS_STEP_MODE(enumerator, name, summary) enumerator,
#include "hs_step_mode_list.h"
#undef HS_STEP_MODE
} hs_step_mode;

/** solver.step = "auto" (the default): resolved by the backend's policy at set-up. */
#define HS_STEP_AUTO ((hs_step_mode)-1)

/** An entry of the step-mode table (one per line of hs_step_mode_list.h, in list order). */
typedef struct hs_step_mode_info {
    const char *name; /**< config name (solver.step); first member (hs_registry) */
    hs_step_mode mode;
    const char *summary;
} hs_step_mode_info;

/** @brief The table of step modes (entries hs_step_mode_info). Static storage. */
const hs_registry *hs_step_modes(void);
/** @brief Name of @p m ("graph"; "auto" for HS_STEP_AUTO). */
const char *hs_step_mode_name(hs_step_mode m);
/** @brief Step mode by name, or HS_STEP_AUTO for "auto"; an unknown name is HS_ERR_CONFIG reading
 *  `<key>: unknown step mode "<name>"; available: auto, kernels, graph, persistent` (out unchanged). */
hs_status hs_step_mode_lookup(const char *key, const char *name, hs_step_mode *out);

/** parallel.transport, listed once in hs_transport_list.h: HS_TRANSPORT_AUTO = 0 (a zeroed plan asks
 *  for auto), then HS_TRANSPORT_NCCL = 1, HS_TRANSPORT_IPC = 2, HS_TRANSPORT_MPI = 3. */
typedef enum hs_transport {
    HS_TRANSPORT_AUTO = 0,
#define HS_TRANSPORT(enumerator, name, summary) enumerator,
#include "hs_transport_list.h"
#undef HS_TRANSPORT
} hs_transport;

/** An entry of the transport table (one per line of hs_transport_list.h, in list order). */
typedef struct hs_transport_info {
    const char *name; /**< config name (parallel.transport); first member (hs_registry) */
    hs_transport transport;
    const char *summary;
} hs_transport_info;

/** @brief The table of transports (entries hs_transport_info, without "auto"). Static storage. */
const hs_registry *hs_transports(void);
/** @brief Name of @p t ("ipc"; "auto" for HS_TRANSPORT_AUTO). */
const char *hs_transport_name(hs_transport t);
/** @brief Transport by name, or HS_TRANSPORT_AUTO for "auto"; an unknown name is HS_ERR_CONFIG reading
 *  `<key>: unknown transport "<name>"; available: auto, nccl, ipc, mpi` (out unchanged). */
hs_status hs_transport_lookup(const char *key, const char *name, hs_transport *out);

/** solver.persistent = "auto" in hs_exec_plan.persistent_cg before it is resolved. */
#define HS_PERSISTENT_AUTO (-1)

/** Length of a reason (hs_exec_plan.why_*); the SpMV trial's table is the longest. */
#define HS_EXEC_WHY_LEN 256
#define HS_EXEC_SPMV_WHY_LEN 4096

/**
 * How a run executes. Before hs_backend_entry.resolve_plan: the config's requests, with "auto" as
 * HS_STEP_AUTO, HS_PERSISTENT_AUTO, HS_VALUES_AUTO and spmv NULL. After it: every choice made (no
 * "auto" left), each one that was "auto" with its reason (empty where the config named it).
 * The CG variant and the preconditioner/Krylov pair have no "auto": they are hs_problem_opts.cg and
 * .pc as the config named them; the plan's choices depend on them.
 */
typedef struct hs_exec_plan {
    hs_scheme_kind scheme;    /**< solver.scheme (hs_problem_opts.scheme.kind, set before resolve_plan: no
                                   "auto" here; a backend's policy may refuse it). Under splitting, step
                                   says who runs a step's ops (kernels: the host, hs_split_step) */
    hs_step_mode step;        /**< solver.step: who runs the Newton loop of a step */
    int persistent_cg;        /**< solver.persistent: 1 each CG solve (Chronopoulos-Gear) is one persistent
                                   kernel (cuda), 0 not; HS_PERSISTENT_AUTO before resolution */
    hs_matrix_values values;  /**< solver.matrix_values: precision of the CG matrix's stored values */
    const hs_spmv_ops *spmv;  /**< solver.spmv: the SpMV kernel, an entry of the registry (never NULL after) */
    hs_transport transport;   /**< parallel.transport: a distributed device run's halo and sums; the config's
                                   request, "auto" included: a device backend resolves it when it binds the
                                   partition (it needs every rank's devices: backends/cuda/cuda_comm.cu) */
    char why_step[HS_EXEC_WHY_LEN];
    char why_persistent[HS_EXEC_WHY_LEN];
    char why_values[HS_EXEC_WHY_LEN];
    char why_spmv[HS_EXEC_SPMV_WHY_LEN];
} hs_exec_plan;

/** @brief A plan of requests (reasons empty): what the config named, "auto" where it did not. */
hs_exec_plan hs_exec_plan_request(hs_step_mode step, int persistent, hs_matrix_values values, const hs_spmv_ops *spmv);

/** @brief 1 when every choice of @p p is made (no "auto" left, a kernel set). */
int hs_exec_plan_resolved(const hs_exec_plan *p);

#ifdef __cplusplus
}
#endif
#endif
