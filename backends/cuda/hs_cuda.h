/**
 * @file hs_cuda.h
 * @brief The C face of backends/cuda/: device probing and the CUDA backend. No CUDA type appears here.
 */
#ifndef HS_CUDA_H
#define HS_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "hs_backend.h"
#include "hs_spmv.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Number of usable CUDA devices (0 when none). name gets device 0's name and compute
 * capability; why gets the reason when there is none (no driver, no device, ...).
 */
int hs_gpu_probe(char *name, size_t name_len, char *why, size_t why_len);

/**
 * @brief `solver.spmv = "auto"` on a GPU: time every registered kernel on @p pattern (median of
 * @p reps after warm-up) and return the fastest; @p report lists each kernel's time. @p with_dot:
 * time each as Chronopoulos-Gear CG uses it (the SpMV and the dot product y . x, fused when the
 * format can, else a separate pass), so the choice is the fastest CG iteration, not SpMV alone.
 */
hs_status hs_gpu_spmv_trial(const hs_csr *pattern, const hs_spmv_params *prm, int reps, int with_dot,
                            const hs_spmv_ops **best, char *report, size_t report_len);

/** Device facts for `heartsim bench spmv` (app/bench_spmv.c; device side backends/cuda/spmv/bench.cu). */
typedef struct hs_gpu_bench_device {
    char name[256];      /**< device 0: name, compute capability, memory */
    double copy_bw;      /**< bytes/s: device-to-device cudaMemcpy of 256 MiB, read + write counted, median */
    long long l2_bytes;  /**< L2 cache size (cudaDeviceProp.l2CacheSize) */
} hs_gpu_bench_device;

/** @brief Name, L2 size and copy bandwidth (median of @p reps copies after 3 warm-up copies) of device 0. */
hs_status hs_gpu_bench_device_info(int reps, hs_gpu_bench_device *out);

/** One kernel measured by hs_gpu_bench_spmv. */
typedef struct hs_gpu_spmv_bench {
    int ok;              /**< 1: matched the references and was timed; 0: FAILED, see failure */
    char failure[512];   /**< why it failed its check (rows beyond the bound) */
    int same_bits;       /**< two applies on the same input gave identical bits */
    double create_s;     /**< wall: value upload + device create (index upload, analysis), synchronised */
    double spmv_s;       /**< median CUDA-event time of one apply */
    double spmv_min_s;   /**< fastest apply */
    double reorder_s;    /**< median CUDA-event time of scattering CSR values into the slots on the device
                          *   (seed 002 sec. 6, t_reorder on the GPU: a scatter through the slot map) */
    int x_copies;        /**< input vectors rotated among (1: everything fits in L2, no rotation) */
    double working_set;  /**< bytes: values + column indices of every slot + x + y (the L2 rotation test) */
} hs_gpu_spmv_bench;

/**
 * @brief Check one format on the device against its CPU reference, then time it.
 * Uploads @p vals_fmt [lay->n_slots] and binds it (hs_gpu_spmv_create), applies to @p x and checks
 * y row by row against @p y_ref (the format's apply_ref) and @p y_csr (plain CSR) with
 * |y_i - ref_i| <= 2 gamma_m (|A||x|)_i (@p ab = |A||x|, m = row length from @p a; the bound of
 * tests/backends/cuda/test_gpu_spmv.cu). A format that fails is not timed (out->ok = 0, HS_OK returned).
 * Otherwise: 10 warm-up applies, then @p reps applies timed one by one with CUDA events, launched
 * back to back behind a spin kernel (the host's launch cost stays out of the time), x rotated among
 * out->x_copies copies when the working set exceeds @p l2_bytes so that x is not L2-resident;
 * then min(reps, 20) device scatters of the CSR values into the slots (t_reorder).
 * @return HS_OK, or the device error that stopped the measurement (the caller marks the kernel failed).
 */
hs_status hs_gpu_bench_spmv(const hs_spmv_layout *lay, const hs_csr *a, const double *vals_fmt,
                            const double *x, const double *y_ref, const double *y_csr, const double *ab,
                            int reps, long long l2_bytes, hs_gpu_spmv_bench *out);

/** What `heartsim bench cg` measures on one matrix (backends/cuda/backend.cu). */
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
} hs_cg_bench;

/**
 * @brief Time Jacobi-PCG iterations on the backend's current tangent (assembled once here): the naive
 * baseline, classic and Chronopoulos-Gear, each launched on a stream (status polled every 4
 * iterations) and as a CUDA graph (WHILE node), medians of @p reps solves of @p iters iterations
 * after two warm-up solves, CUDA events. Also solves to 1e-8 with both variants and compares.
 */
hs_status hs_backend_cuda_bench_cg(hs_backend *b, int iters, int reps, hs_cg_bench *out);

/** @brief The CUDA backend: the whole time step resident on device 0. */
hs_status hs_backend_cuda_create(const hs_problem *prob, hs_backend **out);

#ifdef __cplusplus
}
#endif
#endif
