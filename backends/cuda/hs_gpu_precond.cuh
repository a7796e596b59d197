/**
 * @file hs_gpu_precond.cuh
 * @brief SAI / FSAI / Jacobi preconditioners and the Krylov methods of solver.krylov on the device
 * (CUDA-only header; CPU reference solvers/precond.c, solvers/krylov.c; seed 004 ch. 5).
 *
 * The pattern work is the host's (hs_precond_create, once per mesh), uploaded here once; the values
 * are computed on the device (hs_gpu_precond_compute) whenever the matrix changes:
 *  - SAI (seed 004 ch. 5.3, GSAI): one warp per column of M, as the thesis does. The warp builds I
 *    (the rows of A(:,J)) in the same order as the CPU reference, assembles A(I,J) in its slice of a
 *    global scratch (column-major, leading dimension max n1), factors it by Householder QR with the
 *    32 lanes working on the rows (dot products by xor-shuffle trees), and back-substitutes. Warps
 *    grid-stride over the columns, so the scratch is bounded (the thesis' "number of kernel calls
 *    from the available memory" becomes a bounded number of resident warps).
 *    Why a warp: the local problems have n1 ~ 30-300 rows and n2 ~ 10-100 unknowns; the row loops of
 *    a Householder step fill 32 lanes, while a thread per problem would serialise n1 n2^2 flops and
 *    need n1 n2 doubles of private memory, and a block per problem would idle most of its threads on
 *    n2 ~ 15 (seed 004 5.3 B makes the same choice).
 *  - FSAI: one warp per row of G: A(P,P) gathered by a merge of each row with P (a lane per row),
 *    right-looking Cholesky with a lane per row, two triangular sweeps, scaling to diag(G A G^T) = 1.
 *  - Jacobi: a thread per row.
 * Application z = M r: SpMVs through the SpMV registry (csr_vector) on M (sai) or on G then G^T
 * (fsai, both stored); Jacobi elementwise.
 * A failure (zero diagonal, rank-deficient column, non-SPD row) is found on the device (atomicMin of
 * the first bad index) and reported with the CPU reference's words.
 */
#ifndef HS_GPU_PRECOND_CUH
#define HS_GPU_PRECOND_CUH

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "hs_gpu_spmv.cuh"
#include "hs_precond.h"

struct hs_gpu_precond {
    hs_precond_kind kind;
    int level;
    int32_t n;
    int32_t *a_rp, *a_col;            /**< A's pattern (fsai gathers; jacobi: diag_pos) */
    int32_t *diag_pos;                /**< [n] */
    double *inv_diag;                 /**< jacobi [n] */
    int32_t *at_rp, *at_col, *at_to_a;/**< sai: A^T pattern, position in A of each entry */
    int32_t *mt_rp, *mt_col, *mt_to_m;/**< M^T (sai) or G^T (fsai) pattern and map to M / G */
    int32_t *m_rp, *m_col;            /**< M (sai) or G (fsai) pattern */
    double *m_val, *mt_val;           /**< values of M / G and of M^T / G^T */
    int max_n1, max_n2;               /**< largest local problem (leading dimensions of the scratch) */
    int nwarps;                       /**< warps launched (each grid-strides over problems) */
    double *scratch;                  /**< [nwarps][per_warp] */
    int32_t *iscratch;                /**< sai: [nwarps][max_n1] the set I */
    int *d_bad;                       /**< first failing row/column, INT_MAX when none */
    double *tmp;                      /**< fsai: G r [n] */
    hs_spmv_layout *lay_m, *lay_mt;   /**< csr_vector layouts of M (G) and M^T (G^T) */
    hs_gpu_spmv *sp_m, *sp_mt;
};

/**
 * @brief Upload the pattern work of @p host (hs_precond_create on the host, borrowed during the call)
 * for matrices with the pattern of @p a (values unused). Scratch at most @p scratch_bytes (0: 256 MiB).
 */
hs_status hs_gpu_precond_create(const hs_precond *host, const hs_csr *a, size_t scratch_bytes, hs_gpu_precond **out);
void hs_gpu_precond_destroy(hs_gpu_precond **p);

/** @brief The values from A's values @p d_a_val in CSR order [nnz]; synchronises @p s to report a
 *  failure (HS_ERR_NUMERIC, the CPU reference's message). */
hs_status hs_gpu_precond_compute(hs_gpu_precond *g, const double *d_a_val, cudaStream_t s);

/** @brief z = M r on @p s (asynchronous). */
hs_status hs_gpu_precond_apply(hs_gpu_precond *g, const double *d_r, double *d_z, cudaStream_t s);

/** y = A x on the device (asynchronous on s). */
typedef hs_status (*hs_gpu_matvec_fn)(void *ctx, const double *d_x, double *d_y, cudaStream_t s);

/** Work of the device Krylov methods: 8 vectors of n, a cuBLAS handle bound to the stream. */
struct hs_gpu_krylov {
    int32_t n;
    cudaStream_t s;
    cublasHandle_t bl;
    double *v[8];
};

hs_status hs_gpu_krylov_create(int32_t n, cudaStream_t s, hs_gpu_krylov **out);
void hs_gpu_krylov_destroy(hs_gpu_krylov **p);

/**
 * @brief hs_krylov_solve on the device, the same algorithms with the same tests (solvers/krylov.c):
 * PCG (opts->variant classic or chronopoulos) and right-preconditioned BiCGStab, from x = 0. The
 * loop is driven by the host with cuBLAS for the dot products and vector updates, as seed 004
 * ch. 5.3.1 D does (one host synchronisation per dot product); A and M are callbacks.
 */
hs_status hs_gpu_krylov_solve(hs_krylov k, hs_gpu_krylov *w, hs_gpu_matvec_fn A, void *actx, hs_gpu_matvec_fn M,
                              void *mctx, const double *d_b, double *d_x, const hs_cg_opts *opts, hs_cg_result *res);

/** @brief An hs_gpu_matvec_fn applying hs_gpu_precond_apply (ctx: the hs_gpu_precond). */
hs_status hs_gpu_precond_apply_cb(void *ctx, const double *d_r, double *d_z, cudaStream_t s);

#endif
