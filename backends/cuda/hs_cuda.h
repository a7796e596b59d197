/**
 * @file hs_cuda.h
 * @brief The C face of backends/cuda/: the backend's registry entry, device probing, the SpMV
 * trial behind `solver.spmv = "auto"` and the device side of `heartsim bench spmv`. The backend's
 * benchmarks and diagnostics (bench step, bench cg, the assembled system) are its
 * hs_backend_diag_ops (b->diag). No CUDA type appears here.
 */
#ifndef HS_CUDA_H
#define HS_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "hs_backend.h"
#include "hs_backends.h"
#include "hs_precond.h"
#include "hs_spmv.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The CUDA backend's registry entry (backends/hs_backend_list.h): name "cuda", needs_device 1;
 * probe: device 0 usable (its description) or why not; resolve_plan: the policy of policy.c
 * (hs_cuda_policy.h: step, persistent CG, values) and `solver.spmv = "auto"` on the GPU (csr_scalar
 * for the persistent CG, else a timed trial: hs_gpu_spmv_trial); create:
 * hs_backend_cuda_create. Its backends carry b->diag (bench, bench_cg, get_system).
 */
extern const hs_backend_entry hs_backend_cuda;

/**
 * @brief Number of usable CUDA devices (0 when none). name gets device 0's name and compute
 * capability; why gets the reason when there is none (no driver, no device, ...).
 */
int hs_gpu_probe(char *name, size_t name_len, char *why, size_t why_len);

/** @brief The device the CUDA backends of this process are created on (default 0): a distributed
 *  run sets each rank's (backends/mpi: the node-local rank modulo the device count) before creating
 *  its backend. hs_gpu_device() returns it. */
void hs_gpu_set_device(int dev);
int hs_gpu_device(void);

/**
 * @brief `solver.spmv = "auto"` on a GPU: time the registered kernels that keep the mesh's node
 * order on @p pattern (medians of @p reps after warm-up) and return the one whose share of a Newton
 * iteration is least: the split assembly's stores into its slots plus @p cg_per_newton CG SpMVs;
 * @p report gives each kernel's times. @p with_dot: the SpMV timed as Chronopoulos-Gear CG uses it
 * (with the dot product y . x, fused when the format can, else a separate pass).
 */
hs_status hs_gpu_spmv_trial(const hs_csr *pattern, const hs_spmv_params *prm, hs_matrix_values values, int reps,
                           int with_dot,
                            int cg_per_newton, const hs_spmv_ops **best, char *report, size_t report_len);

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

/**
 * @brief The CUDA backend: the whole time step resident on device 0; b->diag offers bench,
 * bench_cg and get_system (hs_backend_diag.h). The entry's create.
 * @param[in] prob borrowed: must outlive the backend. @param[out] out (hs_backend_destroy).
 */
hs_status hs_backend_cuda_create(const hs_problem *prob, hs_backend **out);

/**
 * @brief Tests only: 1 makes the split assembly's device list pointers 64-bit from the next backend
 * created on, whatever the mesh's size (they are 64-bit only past 2^31 - 1 list entries, 214.7M
 * elements, otherwise), so a small mesh checks that path against the CPU; 0 restores the default.
 */
void hs_cu_split_force_ptr64(int on);

/**
 * @brief The GPU half of `heartsim bench solve` (backends/cuda/krylov.cu): Jacobi-PCG, FSAI-PCG,
 * SAI-BiCGStab, Jacobi-BiCGStab with heartsim's kernels (csr_vector SpMV, SAI/FSAI computed on the
 * device), then the cuSPARSE + cuBLAS baselines (cusparseSpMV, Jacobi by cublasDsbmv): jacobi-cg and
 * jacobi-bicgstab. @p rows needs room for 6. A preconditioner's failure is its row's.
 */
hs_status hs_gpu_bench_solve(const hs_csr *a, const double *b, double tol, int max_iter, hs_cg_variant var, int level,
                             int reps, hs_solve_bench_row *rows, int *n_rows);

#ifdef __cplusplus
}
#endif
#endif
