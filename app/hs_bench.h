/**
 * @file hs_bench.h
 * @brief `heartsim bench step CONFIG`: per-phase medians (element, assembly, SpMV, CG iteration,
 * whole time step, output frame) on every available backend, each against its bandwidth floor
 * (bytes it must move / copy bandwidth measured in the same run); `heartsim bench spmv`: every
 * SpMV kernel on one matrix.
 */
#ifndef HS_BENCH_H
#define HS_BENCH_H

#include "hs_config.h"

/**
 * @param[in] cfg resolved config (its mesh; its backend is ignored: cuda when available, then cpu)
 * @param[in] reps repetitions per phase; @param[in] warm_ms simulated time before measuring, so a
 * front is in the tissue; @param[in] cpu_too also measure the cpu backend.
 */
hs_status hs_bench_step(const hs_config *cfg, int reps, double warm_ms, int cpu_too, int models);

/**
 * @brief `heartsim bench scale CONFIG` under mpirun -np P (app/bench_scale.c): strong scaling (the
 * config's mesh) and weak scaling (box slabs grown along x with the ranks) over 1, 2, 4, ..., P
 * ranks of the one job: time per step and per phase (element, assembly, CG, halo wait,
 * all-reduce; maximum over the ranks), CG iterations, parallel efficiency. Markdown on stdout.
 * @param steps timed steps per row; @param warm_ms simulated time before timing; @param tables 1 the
 * strong-scaling rows only, 2 the weak-scaling rows only, 3 both.
 */
hs_status hs_bench_scale(const hs_config *cfg, int steps, double warm_ms, int tables);

/** Options of `heartsim bench spmv` (app/bench_spmv.c). */
typedef struct hs_bench_spmv_opts {
    const hs_config *cfg; /**< the matrix of this config's mesh (one assembly on the cpu backend), or NULL */
    const char *matrix;   /**< or a Matrix Market file (when cfg is NULL) */
    int reps;             /**< timed applies per kernel */
    const char *csv;      /**< write the table as CSV here, or NULL */
    const char *json;     /**< write it as JSON here, or NULL */
    const char *kernels;  /**< comma-separated kernel names, or NULL for every registered kernel */
} hs_bench_spmv_opts;

/**
 * @brief `heartsim bench spmv`: every selected SpMV kernel on one matrix, checked against its CPU
 * reference on the device, then timed: setup, median SpMV, GFLOP/s, effective bandwidth (seed 002
 * sec. 6) against the copy bandwidth, fill, break-even count alpha against cusparse_csr (seed 002
 * Table 4). Prints a markdown table on stdout. The matrix is read first; without CUDA or a device,
 * the kernels' CPU references are checked and timed instead (bench_spmv_cpu.c), said plainly.
 * HS_ERR_INTERNAL after the table when a kernel FAILED its check.
 */
hs_status hs_bench_spmv(const hs_bench_spmv_opts *o);

/**
 * @brief `heartsim bench cg CONFIG`: on the config's tangent (after 5 ms of simulation), the naive
 * cuSPARSE + cuBLAS Jacobi-PCG, heartsim classic and heartsim Chronopoulos-Gear, launched on a stream
 * and as a CUDA graph: microseconds per iteration (median of @p reps solves of @p iters iterations),
 * bytes per iteration and the ratio to the floor (least bytes / copy bandwidth measured in the same
 * run); markdown table on stdout. HS_ERR_DEVICE without CUDA or a device.
 */
hs_status hs_bench_cg(const hs_config *cfg, int iters, int reps);

typedef struct hs_bench_solve_opts {
    const hs_config *cfg; /**< the run's tangent after one assembly (and its solver.cg, solver.sai_level), or NULL */
    const char *matrix;   /**< or a Matrix Market file (when cfg is NULL) */
    const char *rhs;      /**< right-hand side file, or NULL: b = A * 1 */
    int reps;             /**< timed solves per method (median) */
    double tol;           /**< ||r|| <= tol ||b|| */
    int max_iter;
    int sai_level;        /**< pattern of A^k for --matrix (the config's solver.sai_level otherwise) */
} hs_bench_solve_opts;

/**
 * @brief `heartsim bench solve`: Jacobi-PCG, FSAI-PCG, SAI-BiCGStab, Jacobi-BiCGStab on one matrix:
 * set-up, iterations and time to the tolerance, time per iteration; on the GPU (with cuSPARSE +
 * cuBLAS baselines) when one is found, else on the CPU. A non-square matrix is HS_ERR_MESH; a
 * combination whose preconditioner fails (zero diagonal, singular, not SPD) is reported in its row.
 */
hs_status hs_bench_solve(const hs_bench_solve_opts *o);

#endif
