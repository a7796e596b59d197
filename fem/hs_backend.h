/**
 * @file hs_backend.h
 * @brief A backend holds the state of a run (phi, r, matrices, solver vectors) where it computes
 * (host memory for cpu, device memory for cuda) and offers the primitives the shared Newton loop
 * (fem/newton.c) is made of. Only scalars cross this interface during a time step.
 */
#ifndef HS_BACKEND_H
#define HS_BACKEND_H

#include <stdint.h>

#include "hs_cg.h"
#include "hs_extrapolate.h"
#include "hs_problem.h"

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
} hs_phase_times;

/** Phase micro-benchmarks on the current state (medians over repetitions), for `heartsim bench step`. */
typedef struct hs_phase_bench {
    double element, assembly, cg_iter, spmv; /**< median seconds per call (cg_iter: per iteration) */
    double copy_bw;                          /**< measured copy bandwidth, bytes/s (device-to-device on a GPU) */
    double naive_cg_iter;                    /**< GPU only: naive cuSPARSE+cuBLAS PCG iteration (NaN when not measured) */
    double bytes_element, bytes_assembly, bytes_cg_iter, bytes_spmv; /**< bytes each must move at least */
    int reps;
} hs_phase_bench;

/** Minimum bytes each phase moves (seed 002's effective-bandwidth counting: every array read or
 *  written once, gathered vectors counted once per entry). */
void hs_phase_bytes(const hs_problem *p, int64_t n_slots, hs_phase_bench *pb);

typedef struct hs_backend_ops {
    const char *name;
    /** Start a step: phi_n = phi, r_n = r; dt in model units; stimulus amplitude of each site in
     *  model units (per model time). */
    hs_status (*begin_step)(hs_backend *b, double dt_model, const double *site_amp);
    /** Element pass and assembly at the current phi. res_norm = dt max_I |R_I| / m_I, res_node = argmax. */
    hs_status (*assemble)(hs_backend *b, double *res_norm, int32_t *res_node);
    /** Solve K du = R with Jacobi-PCG (variant and inexact-Newton tolerance from prob->opt and the
     *  last assembly's residual), phi -= du when CG converged; upd_norm = max |du|. */
    hs_status (*solve)(hs_backend *b, hs_cg_result *cg, double *upd_norm);
    /** Optional (NULL: the Newton loop calls solve then assemble): solve, update phi, and assemble at
     *  the new phi in one go, so a backend can run a whole Newton iteration without a host round
     *  trip in between (the cuda backend replays it as one CUDA graph). When CG did not converge
     *  the assembly results are unspecified. */
    hs_status (*iterate)(hs_backend *b, hs_cg_result *cg, double *upd_norm, double *res_norm,
                         int32_t *res_node);
    /** Step accepted: update activation times (linear interpolation within [t_prev, t_prev+dt] ms). */
    hs_status (*end_step)(hs_backend *b, double t_prev_ms, double dt_ms);
    /** Step rejected: back to phi_n, r_n. */
    hs_status (*restore_step)(hs_backend *b);
    /** Copy state to the host (any pointer may be NULL): phi [n_nodes], r [n_elems], activation [n_nodes] ms. */
    hs_status (*get_state)(hs_backend *b, double *phi, double *r, double *act);
    /** Set the state from the host (any pointer NULL: leave it): initial conditions, restarts
     *  from a checkpoint, tests. act [n_nodes] activation times in ms (-1 before activation). */
    hs_status (*set_state)(hs_backend *b, const double *phi, const double *r, const double *act);
    /** The extrapolation history (solver.extrapolate), so a checkpoint restarts bit for bit: *ex and
     *  phi_{n-1}, phi_{n-2} [n_nodes] (ex->n_valid of them are meaningful; NULL: skip). */
    hs_status (*get_history)(hs_backend *b, hs_extrap *ex, double *phi1, double *phi2);
    /** Replace it (restarts). set_state leaves the history alone: a retried step (solver.dt_retry)
     *  or a test hook that perturbs phi keeps the past it extrapolates from. */
    hs_status (*set_history)(hs_backend *b, const hs_extrap *ex, const double *phi1, const double *phi2);
    /** Optional (NULL: use get_state): start copying the state into host buffers from host_alloc
     *  and return at once; the device takes a snapshot and goes on computing while the copy runs.
     *  Two copies may be in flight, one per @p slot (0 or 1); state_copy_wait(slot) blocks until
     *  that slot's copy is complete (callable from another thread). */
    hs_status (*state_copy_start)(hs_backend *b, int slot, double *phi, double *r, double *act);
    hs_status (*state_copy_wait)(hs_backend *b, int slot);
    /** Optional: page-locked host memory for state_copy_start's buffers (NULL when it fails). */
    void *(*host_alloc)(size_t bytes);
    void (*host_free)(void *p);
    void (*get_times)(const hs_backend *b, hs_phase_times *t);
    /** Assembled system to the host: K values in CSR order [nnz] and R [n_nodes] (tests, diagnostics). */
    hs_status (*get_system)(hs_backend *b, double *kval_csr, double *rhs);
    /** Time each phase @p reps times on the current state (after assemble has run once). */
    hs_status (*bench)(hs_backend *b, int reps, hs_phase_bench *out);
    void (*destroy)(hs_backend *b);
} hs_backend_ops;

struct hs_backend {
    const hs_backend_ops *ops;
    const hs_problem *prob; /**< borrowed */
    char description[256];  /**< e.g. "cpu (OpenMP, 2 threads)" or the GPU's name */
    void *impl;
};

/** @brief The OpenMP CPU backend (the reference). */
hs_status hs_backend_cpu_create(const hs_problem *prob, hs_backend **out);
/** @brief Free any backend; accepts NULL and sets *b = NULL. */
void hs_backend_destroy(hs_backend **b);

/** What one time step did. */
typedef struct hs_step_stats {
    int newton_iters;    /**< linear solves in this step */
    int cg_iters;        /**< CG iterations summed over the step's solves */
    int cg_iters_max;
    double res_norm;     /**< final residual norm */
    int n_hist;
    double res_hist[32]; /**< residual norm before each Newton iteration (for convergence studies) */
} hs_step_stats;

/**
 * @brief One backward-Euler step from t_ms to t_ms + dt_ms: global Newton (seed 002 Table 1).
 * On failure (Newton or CG) the state is restored to the start of the step and the error names
 * the time, the iteration, the norms and the node with the largest residual.
 */
hs_status hs_time_step(hs_backend *b, double t_ms, double dt_ms, const double *site_amp_per_ms,
                       hs_step_stats *stats);

#ifdef __cplusplus
}
#endif
#endif
