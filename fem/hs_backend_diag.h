/**
 * @file hs_backend_diag.h
 * @brief The optional interface of a backend for benchmarks and diagnostics (`heartsim bench`,
 * tests): kept apart from the step and the state (hs_backend.h), which is all a run needs.
 * b->diag is NULL for a backend that offers none; a NULL slot is an operation it does not offer.
 */
#ifndef HS_BACKEND_DIAG_H
#define HS_BACKEND_DIAG_H

#include <stdint.h>

#include "hs_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/** What `heartsim bench cg` measures on one matrix (a device backend). */
typedef struct hs_cg_bench {
    char device[256];
    int32_t n, nnz;
    int iters;               /**< iterations per timed solve (tolerance 0) */
    double t_naive;          /**< s per iteration: cuSPARSE + cuBLAS, scalars through the host */
    double t_iter[2][2];     /**< s per iteration [classic, chronopoulos][stream poll, graph] */
    int fused;               /**< chronopoulos: the SpMV forms (A u, u) itself */
    int iters_to_tol[2];     /**< iterations to ||r|| <= 1e-8 ||b|| [classic, chronopoulos] */
    double t_persistent[2];  /**< s per iteration, Chronopoulos as one persistent kernel [stream, graph] */
    int iters_persistent;    /**< its iterations to 1e-8 */
    double x_rel_diff;       /**< ||x_classic - x_chronopoulos|| / ||x_classic|| at that tolerance */
    double bytes_spmv;       /**< least bytes of one SpMV (seed 002 counting) */
    double copy_bw;          /**< bytes/s, device-to-device copy, median */
    /* s-step CG (solver.cg = sstep), persistent kernel, Chebyshev interval kept across solves as in a run */
    int sstep_s[3];          /**< s of the three s-step rows: 2, 4, 8 */
    double t_sstep[3];       /**< s per iteration, solves of `iters` iterations (tolerance 0) */
    int fallback_sstep[3];   /**< iteration of a basis breakdown in those solves (0: none) */
    double t_tol_sstep[3];   /**< s per iteration, solves to 1e-8 (as a Newton step runs them) */
    int iters_sstep[3];      /**< iterations to 1e-8 */
    double x_rel_diff_sstep[3]; /**< ||x_sstep - x_classic|| / ||x_classic|| at 1e-8 */
    double t_tol_persistent; /**< s per iteration, persistent Chronopoulos, solves to 1e-8 */
    /* the one-barrier persistent kernel (backends/cuda/hs_gpu_cg1.cuh; t_persistent is the two-barrier one) */
    int p1_tpr[4];           /**< threads per row of its rows: 1, 2, 4, 8 */
    double t_p1[4];          /**< s per iteration, solves of `iters` iterations, one launch per solve */
    int p1_tpr_auto;         /**< the threads per row a run takes at this size */
    int iters_p1;            /**< iterations to 1e-8 (the run's threads per row) */
    double t_tol_p1;         /**< s per iteration, solves to 1e-8 */
    double x_rel_diff_p1;    /**< ||x_p1 - x_classic|| / ||x_classic|| at 1e-8 */
    int p1_grid, p1_block;   /**< its grid and block size */
    double t_p1_barrier;     /**< s per phase on that grid: the grid barrier alone */
    double t_p1_reduce;      /**< s per phase: the barrier with the phase's reductions */
} hs_cg_bench;

struct hs_backend_diag_ops {
    /** Assembled system to the host: K values in CSR order [nnz] and R [n_nodes] (tests, diagnostics). */
    hs_status (*get_system)(hs_backend *b, double *kval_csr, double *rhs);
    /** Time each phase @p reps times on the current state (after assemble has run once). */
    hs_status (*bench)(hs_backend *b, int reps, hs_phase_bench *out);
    /** Time Jacobi-PCG iterations on the backend's current tangent (assembled once here): the naive
     *  baseline, classic and Chronopoulos-Gear, each launched on a stream and as a CUDA graph,
     *  medians of @p reps solves of @p iters iterations after two warm-up solves. NULL on cpu. */
    hs_status (*bench_cg)(hs_backend *b, int iters, int reps, hs_cg_bench *out);
};

#ifdef __cplusplus
}
#endif
#endif
