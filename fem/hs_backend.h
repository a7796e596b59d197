/**
 * @file hs_backend.h
 * @brief A backend holds the state of a run (the fields of fem/hs_state.h, matrices, solver
 * vectors) where it computes (host memory for cpu, device memory for cuda) and offers the
 * primitives the shared Newton loop (fem/newton.c) and the splitting step (fem/splitting.c) are made
 * of: the step and the state. Only
 * scalars cross this interface during a time step. Benchmarks and diagnostics are a separate,
 * optional interface (hs_backend_diag.h). The backends themselves live in backends/<name>/ and
 * are listed in backends/hs_backend_list.h.
 */
#ifndef HS_BACKEND_H
#define HS_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "hs_cg.h"
#include "hs_extrapolate.h"
#include "hs_problem.h"
#include "hs_sample.h"
#include "hs_state.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hs_backend hs_backend;

/** Accumulated wall time per phase, seconds. */
typedef struct hs_phase_times {
    double element;  /**< element kernel: local Newton, Ke, Re */
    double assembly; /**< gather-map assembly of K and R, Jacobi diagonal, residual norm */
    double solve;    /**< CG (SpMV included) and the phi update */
    double spmv;     /**< SpMV inside CG (part of solve); -1 when the backend does not time it */
    double precond;  /**< computing SAI/FSAI values (part of solve; solver.precond); 0 for jacobi */
} hs_phase_times;

typedef struct hs_backend_diag_ops hs_backend_diag_ops; /* hs_backend_diag.h */

/** How a Newton iteration run on the device (hs_backend_ops.newton_device) stopped. */
enum { HS_NEWTON_CONVERGED = 0, HS_NEWTON_ELEMENT = 1, HS_NEWTON_NONFINITE = 2, HS_NEWTON_CG = 3,
       HS_NEWTON_MAXIT = 4 };

/** What a device-side Newton iteration reports (the numbers the host loop of hs_time_step has). */
typedef struct hs_newton_out {
    int stop;              /**< HS_NEWTON_* */
    int k;                 /**< the Newton iteration at which it stopped (as the host loop's k) */
    int solves;            /**< linear solves done */
    int cg_iters, cg_iters_max;
    double res, upd;       /**< the last residual (of iteration k) and update norms */
    int32_t res_node;
    double res_before;     /**< HS_NEWTON_CG: the residual before the failed solve, and its node */
    int32_t node_before;
    hs_cg_result cg;       /**< the last solve */
    int n_hist;
    double res_hist[32];
} hs_newton_out;

typedef struct hs_step_stats hs_step_stats; /* below */

typedef struct hs_backend_ops {
    const char *name;
    /** Start a step: phi_n = phi, r_n = r; dt in model units; stimulus amplitude of each site in
     *  model units (per model time). */
    hs_status (*begin_step)(hs_backend *b, double dt_model, const double *site_amp);
    /** Element pass and assembly at the current phi. res_norm = dt max_I |R_I| / m_I, res_node = argmax.
     *  With solver.assembly = "split" the tangent K and its Jacobi diagonal are left to `tangent`,
     *  which solve calls first: the Newton test that ends a step never pays for a matrix it does not
     *  use. */
    hs_status (*assemble)(hs_backend *b, double *res_norm, int32_t *res_node);
    /** Form K and its Jacobi diagonal from the last element pass, if assemble left them out (a no-op
     *  otherwise, or when formed already). For whoever reads the matrix other than solve: the mpi
     *  backend's distributed solve, benchmarks, get_system. */
    hs_status (*tangent)(hs_backend *b);
    /** Solve K du = R with Jacobi-PCG (variant and inexact-Newton tolerance from prob->opt and the
     *  last assembly's residual), phi -= du when CG converged; upd_norm = max |du|. */
    hs_status (*solve)(hs_backend *b, hs_cg_result *cg, double *upd_norm);
    /** Optional (NULL: the Newton loop calls solve then assemble): solve, update phi, and assemble at
     *  the new phi in one go, so a backend can run a whole Newton iteration without a host round
     *  trip in between (the cuda backend replays it as one CUDA graph). When CG did not converge
     *  the assembly results are unspecified. */
    hs_status (*iterate)(hs_backend *b, hs_cg_result *cg, double *upd_norm, double *res_norm,
                         int32_t *res_node);
    /** Step accepted: update the read-outs (activation, repolarisation, apd, beats: fem/hs_readout.h;
     *  crossings interpolated linearly within [t_prev, t_prev+dt] ms). */
    hs_status (*end_step)(hs_backend *b, double t_prev_ms, double dt_ms);
    /** Step rejected: back to phi_n, r_n. */
    hs_status (*restore_step)(hs_backend *b);
    /** Copy the state to the host: every non-NULL field of @p dst (fields of b->state). */
    hs_status (*get_state)(hs_backend *b, hs_state *dst);
    /** Set the state from the host: every non-NULL field of @p src (NULL: leave it). Initial
     *  conditions, restarts from a checkpoint, retries, tests. */
    hs_status (*set_state)(hs_backend *b, const hs_state *src);
    /** The extrapolation history (solver.extrapolate), so a checkpoint restarts bit for bit: *ex and
     *  phi_{n-1}, phi_{n-2} [n_nodes] (ex->n_valid of them are meaningful; NULL: skip). */
    hs_status (*get_history)(hs_backend *b, hs_extrap *ex, double *phi1, double *phi2);
    /** Replace it (restarts). set_state leaves the history alone: a retried step (solver.dt_retry)
     *  or a test hook that perturbs phi keeps the past it extrapolates from. */
    hs_status (*set_history)(hs_backend *b, const hs_extrap *ex, const double *phi1, const double *phi2);
    /** Optional (NULL: use get_state): start copying the non-NULL fields of @p dst (buffers from
     *  host_alloc) and return at once; the device takes a snapshot and goes on computing while the
     *  copy runs. Two copies may be in flight, one per @p slot (0 or 1); state_copy_wait(slot)
     *  blocks until that slot's copy is complete (callable from another thread). */
    hs_status (*state_copy_start)(hs_backend *b, int slot, hs_state *dst);
    hs_status (*state_copy_wait)(hs_backend *b, int slot);
    /** Optional: page-locked host memory for state_copy_start's buffers (NULL when it fails). */
    void *(*host_alloc)(size_t bytes);
    void (*host_free)(void *p);
    void (*get_times)(const hs_backend *b, hs_phase_times *t);
    void (*destroy)(hs_backend *b);
    /** Optional (solver.step = "graph"; NULL: the host loop): after begin_step, the whole Newton
     *  iteration of the step - the first assembly, then solve, update, assembly and the Newton test
     *  until the test stops it - with no host round trip, one synchronisation at the end. An element
     *  failure is returned as the error assemble would return (out->k says where). */
    hs_status (*newton_device)(hs_backend *b, hs_newton_out *out);
    /** Sampling (probes, pseudo-ECG; fem/hs_sample.h), up to HS_SAMPLE_SETS sets: set @p set's matrix
     *  (borrowed: it outlives the backend) and a buffer of @p cap samples where the backend computes. */
    hs_status (*sample_setup)(hs_backend *b, int set, const hs_sample_set *s, int cap);
    /** Row @p slot (< cap) of set @p set's buffer = S phi (without the offsets), at the current phi. */
    hs_status (*sample)(hs_backend *b, int set, int slot);
    /** Copy rows 0 .. n-1 of set @p set's buffer to @p dst [n][n_rows]. */
    hs_status (*sample_fetch)(hs_backend *b, int set, int n, double *dst);
    /** Optional (NULL: steps one by one): steps k0 .. k0+n-1 of dt_ms each (t = k dt_ms) as a whole on
     *  the device, begin_step, the Newton loop and end_step of each, with no host round trip
     *  (solver.step = "persistent"). @p site_amp [n][n_sites]: each step's stimulus amplitudes per ms.
     *  *done steps completed (their stats in @p stats [n]); when *done < n, step k0 + *done failed and
     *  the backend is back at its start, to be run again by hs_time_step (which reports or retries it).
     *  Under the splitting scheme (solver.step = "graph" on the cuda backend) the steps are
     *  hs_split_step's, each reaction's currents from hs_split_reaction_inputs (@p site_amp unused), and
     *  a failed step is run again by hs_split_step (hs_scheme_step). */
    hs_status (*steps_device)(hs_backend *b, long k0, double dt_ms, int n, const double *site_amp, int *done,
                              hs_step_stats *stats);

    /* ---- operator splitting (solver.scheme = "splitting": fem/hs_splitting.h, whose hs_split_step
     * calls them). NULL on a backend that does not run the scheme (hs_sim_create refuses it there,
     * naming solver.scheme). Under this scheme the state's model variables live at the nodes
     * (hs_state_desc_init_scheme: [n_vars][n_nodes] on the backend), begin_step only saves phi_n and
     * the variables (its site_amp is NULL), end_step updates the read-outs from phi_n to phi as under
     * Newton, restore_step goes back to both; assemble, tangent, solve, iterate and newton_device are
     * not called; steps_device, where a backend has it, runs whole splitting steps (above). */
    /** Reaction: every node's ODEs over @p h (model time units) in @p n_sub substeps of h / n_sub,
     *  exactly hs_split_react_node (fem/hs_splitting.h) with the node's parameters (hs_nodal.node_tab
     *  rows, else the problem's model_prm) and current stim_i = sum_k site_amp[k] w_ki
     *  (hs_nodal_stimulus; @p site_amp [n_sites] per model time unit); frozen nodes untouched.
     *  *bad_node: the smallest node whose values became non-finite, or -1 (the state is then
     *  unspecified until restore_step). A caller that can wait for the answer passes *bad_node =
     *  HS_REACT_DEFER: a backend with react_check may then return with the reaction only enqueued and
     *  *bad_node still HS_REACT_DEFER (no host round trip), and the caller must call react_check before
     *  it relies on the state (the cuda backend: the next diffuse synchronises anyway). */
    hs_status (*react)(hs_backend *b, double h, int n_sub, const double *site_amp, int32_t *bad_node);
    /** Diffusion over @p dt (model time units): solve (M + theta dt K) u = (M - (1-theta) dt K) phi
     *  (hs_split_matrices: assembled on the first call and again only when dt differs from the last
     *  assembly's), by the backend's CG (the problem's Krylov method, preconditioner and variant)
     *  started from phi + g (g the previous accepted step's correction scaled to dt, hs_split_guess_scale
     *  of the extrapolation history; 0 without one) and converged when ||rhs - A u|| <= solver.cg_tol
     *  ||rhs||; phi = u when it converged (*cg says), phi unchanged otherwise; end_step keeps u - phi
     *  as the history's first vector (get_history / set_history carry it). */
    hs_status (*diffuse)(hs_backend *b, double dt, hs_cg_result *cg);
    /** The answer of a deferred react (*bad_node as react gives it: a node or -1), waiting for the
     *  reaction where it has not finished. NULL: react never defers. */
    hs_status (*react_check)(hs_backend *b, int32_t *bad_node);
} hs_backend_ops;

/** react's *bad_node on input: the caller accepts a deferred answer (react_check). */
#define HS_REACT_DEFER (-2)

/* ---- a backend on one rank's partition of a distributed run ------------------------------------ */

typedef struct hs_part_local hs_part_local; /* parallel/hs_partition.h: a rank's view */
typedef struct hs_dist_times hs_dist_times; /* parallel/hs_dist.h: halo and all-reduce times */
/** A backend's state for one partition (its distributed solver: halo lists, matrix, work vectors,
 *  transport); opaque, each backend defines its own. */
typedef struct hs_backend_part hs_backend_part;

/**
 * How a backend runs on one rank's partition (hs_backend_entry.part; NULL: it does not run
 * distributed). The distributed backend (backends/mpi) composes a rank's backend through these and
 * its hs_backend_ops, never its fields (PETSc's MPIAIJ over SeqAIJ): the rank's backend is created
 * on the local problem (owned nodes first, interior then boundary, ghosts after: hs_partition.h),
 * runs its element pass and assembly with its own ops, and these give the owned rows' residual and
 * the distributed solve, whose halo exchange and global reductions are the backend's own (the cpu
 * backend's: its serial solve with the rank's comm, hs_comm_mpi_create in parallel/hs_dist.h; the
 * cuda backend's serial device CG over the owned rows with its device comm, NCCL or MPI:
 * backends/cuda/hs_dist_gpu.h, hs_cuda_comm.h). @p comm is an MPI_Comm passed by address (no MPI type
 * in this header), borrowed: it outlives the part. Every op is collective over it.
 */
typedef struct hs_backend_part_ops {
    /** Optional (NULL: nothing): before the backend is created on this rank; a device backend picks
     *  the rank's device (@p desc: one line naming it) and its transport (*fast = 1: the device's
     *  own, e.g. NCCL, agreed by every rank; 0: MPI through the host). Collective. */
    hs_status (*prepare)(const void *comm, char *desc, size_t desc_len, int *fast);
    /** Optional (NULL: as they are): check and adjust the local problem's options for a run of
     *  @p n_ranks ranks (e.g. the solver paths the distributed solve replaces; one rank may keep every
     *  serial path). A refusal is HS_ERR_CONFIG naming the config key. */
    hs_status (*local_opts)(hs_problem_opts *opt, int n_ranks);
    /** The distributed solver of backend @p b (created on the local problem of view @p l, both
     *  borrowed). @p fast: prepare's answer (0 without prepare). Collective. */
    hs_status (*bind)(hs_backend *b, const hs_part_local *l, const void *comm, int fast, hs_backend_part **out);
    /** After the backend's assemble: max over the owned rows of dt |R_i| / m_i (NaN: +inf) and its
     *  local row, this rank only. */
    hs_status (*residual)(hs_backend_part *p, double *v, int32_t *row);
    /** After the backend's tangent: solve K du = R over the ranks (Jacobi-PCG of @p o's variant from
     *  du = 0, its tolerance already forced; the cpu backend: its serial solve through the rank's
     *  comm, solvers/hs_comm.h), then, when it converged, phi -= du on the owned rows and the ghosts
     *  of phi from their owners. @p upd_local: max |du| over the owned rows, this rank. Collective. */
    hs_status (*solve)(hs_backend_part *p, const hs_cg_opts *o, hs_cg_result *cg, double *upd_local);
    /** The halo and all-reduce times so far (this rank). */
    void (*times)(const hs_backend_part *p, hs_dist_times *t);
    /** Optional: what the backend line adds (e.g. "device CG, csr_scalar overlapping the halo, halo and sums
     *  through NCCL 2.28.9"), or NULL. */
    const char *(*describe)(const hs_backend_part *p);
    /** Free; accepts NULL, sets *p = NULL. Before the backend is destroyed. */
    void (*unbind)(hs_backend_part **p);
    /** Optional (NULL: the distributed plan of sim/sim_build.c: the Newton loop on the host,
     *  csr_scalar, float64): resolve the "auto"s of @p plan for a run on @p n_ranks ranks as the
     *  backend's resolve_plan does serially (one rank may take the serial plan whole). Every rank
     *  must reach the same plan. @p pattern: the global pattern on one rank (a backend with
     *  one_rank_serial), else NULL or rank 0's only (the ranks' set-up holds no global pattern:
     *  sim/sim_build.c), so a rule on several ranks must not read it. */
    hs_status (*resolve_plan)(const hs_csr *pattern, const hs_problem_opts *opt, int n_ranks,
                              hs_exec_plan *plan);
    /** 1: on one rank the wrapper hands the backend its Newton iteration (iterate, newton_device), so
     *  `mpirun -np 1` runs the serial code and costs what the serial run costs. */
    int one_rank_serial;
    /** 1: while bound, the backend's react and diffuse ops (the splitting scheme) run on the partition:
     *  react on the owned nodes, diffuse collective over the comm (the ghosts of phi from their owners
     *  before its products and after the update, its sums over the ranks), so the distributed backend
     *  forwards them; 0: a distributed run refuses solver.scheme = "splitting" with this backend. */
    int splitting;
    /** Optional (NULL: the distributed backend runs the Newton loop on the host: assemble, residual, solve):
     *  after the backend's begin_step, the Newton loop of the step on the partition as
     *  hs_backend_ops.newton_device runs it serially, every decision global and taken where the backend
     *  computes (the cuda backend: the owned rows' residual and update norms reduced over the ranks on
     *  the device, the Newton test there: backends/cuda/dist_newton.cu), the same tests as fem/newton.c's
     *  loop; out->res_node and out->node_before in global numbering. An element failure is returned by
     *  the ranks that found it (the element in the backend's local numbering, as assemble names it)
     *  while the others return HS_OK with out->stop = HS_NEWTON_ELEMENT. Used when the plan's step is not
     *  "kernels". Collective. */
    hs_status (*newton)(hs_backend_part *p, hs_newton_out *out);
} hs_backend_part_ops;

/** Steps one hs_backend_ops.steps_device call runs at most. */
#define HS_STEPS_DEVICE_MAX 1024

/** Sample sets a backend keeps: 0 the probes, 1 the pseudo-ECG. */
#define HS_SAMPLE_SETS 2

struct hs_backend {
    const hs_backend_ops *ops;
    const hs_backend_diag_ops *diag; /**< benchmarks and diagnostics (hs_backend_diag.h); NULL: none */
    const hs_problem *prob; /**< borrowed */
    hs_state_desc state;    /**< the fields this backend holds (hs_state_desc_init of prob's model) */
    char description[256];  /**< e.g. "cpu (OpenMP, 2 threads)" or the GPU's name */
    void *impl;
};

/** @brief Free any backend; accepts NULL and sets *b = NULL. */
void hs_backend_destroy(hs_backend **b);

/** @brief For a backend's hs_backend_part_ops.local_opts: a distributed run solves with
 *  Jacobi-preconditioned CG; another solver.krylov or solver.precond is HS_ERR_CONFIG naming its key.
 *  @param[in] po the local problem's options */
hs_status hs_backend_part_require_jacobi_cg(const hs_problem_opts *po);

/** What one time step did. */
struct hs_step_stats {
    int newton_iters;    /**< linear solves in this step */
    int cg_iters;        /**< CG iterations summed over the step's solves */
    int cg_iters_max;
    double res_norm;     /**< final residual norm (splitting: the diffusion's ||B u* - A u|| / ||B u*||) */
    int n_hist;
    double res_hist[32]; /**< residual norm before each Newton iteration (for convergence studies) */
};

/**
 * @brief One backward-Euler step from t_ms to t_ms + dt_ms: global Newton (seed 002 Table 1). The
 * splitting scheme's step is hs_split_step (fem/hs_splitting.h); hs_scheme_step picks by the problem.
 * On failure (Newton or CG) the state is restored to the start of the step and the error names
 * the time, the iteration, the norms and the node with the largest residual.
 */
hs_status hs_time_step(hs_backend *b, double t_ms, double dt_ms, const double *site_amp_per_ms,
                       hs_step_stats *stats);

/**
 * @brief One step of the problem's scheme (hs_problem_opts.scheme): hs_time_step with @p
 * site_amp_per_ms (the sites' time averages over the step, per ms) under Newton, hs_split_step
 * (which takes each reaction's own averages from the problem's sites) under splitting.
 */
hs_status hs_scheme_step(hs_backend *b, double t_ms, double dt_ms, const double *site_amp_per_ms,
                         hs_step_stats *stats);

#ifdef __cplusplus
}
#endif
#endif
