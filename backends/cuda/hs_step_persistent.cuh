/**
 * @file hs_step_persistent.cuh
 * @brief Private to backends/cuda/ (CUDA-only header): solver.step = "persistent", time steps as one
 * cooperative kernel (step_persistent.cu): its device data, its control block, its entry points.
 */
#ifndef HS_STEP_PERSISTENT_CUH
#define HS_STEP_PERSISTENT_CUH

#include <cstdint>

#include "hs_backend.h"
#include "hs_gpu_cg.cuh"

#define HS_PSTEP_MAX HS_STEPS_DEVICE_MAX /* steps per launch at most (frames usually end one sooner) */
#define HS_PSTEP_BLOCKS_PER_SM 1   /* 512-thread blocks per SM of the step kernel (step_persistent.cu) */

/** What a launch reports (written by block 0, copied to pinned host memory as one block). */
struct hs_pstep_ctl {
    int done;                   /**< steps completed */
    int stop;                   /**< HS_NEWTON_* of the last step run (not CONVERGED: it failed) */
    int solves[HS_PSTEP_MAX], cg_iters[HS_PSTEP_MAX], cg_iters_max[HS_PSTEP_MAX];
    double res[HS_PSTEP_MAX];   /**< final residual of each step */
    /* the last step run, as hs_newton_out has it */
    int k, res_node, node_before, bad_elem, n_hist;
    double res_last, upd, res_before;
    double hist[32];
    hs_gpu_cg_scalars cg;       /**< its last solve */
    /* block 0's clock (globaltimer, ns) between the barriers that close each phase, summed over the
     * launch: begin and end of steps, element, R (ns_assembly), CG, update (with the Newton tests),
     * the tangent's off-diagonal pairs */
    unsigned long long ns_begin, ns_element, ns_assembly, ns_cg, ns_update, ns_tangent;
};

/** The step kernel's own device data (the rest is cuda_impl's). */
struct hs_pstep_dev {
    int n_selem, n_sites;
    int32_t *selem, *sptr, *ssite; /**< stimulated elements, each with its sites [sptr[u], sptr[u+1]) */
    double *amp, *h_amp;        /**< [HS_PSTEP_MAX][n_sites] site amplitudes per step (h_: pinned staging) */
    double *wext, *h_wext;      /**< [HS_PSTEP_MAX][4] extrapolation weights per step, and whether used */
    hs_pstep_ctl *ctl, *h_ctl;
    int *bad;                   /**< smallest failed element */
    double *mv;                 /**< [2][grid] block maxima (residual, update) */
    int *mi;
    const void *fn;             /**< the kernel for this model and value type */
    int grid;
    int cg_tpr;                 /**< the CG's threads per row in the step (1, 2, 4, 8) */
    unsigned long long ns[6];   /**< the launches' phase clocks summed (hs_pstep_ctl's ns_*) */
    long launches;
};

struct cuda_impl;
/** Allocate and fill the step kernel's data (once; split assembly only). */
hs_status hs_cu_pstep_prepare(hs_backend *b);
void hs_cu_pstep_free(struct cuda_impl *c);
/** The Newton loop of one step (after begin_step) as one launch; hs_newton_out as newton_device. */
hs_status hs_cu_pstep_newton(hs_backend *b, hs_newton_out *out);
/** hs_backend_ops.steps_device: steps k0 .. k0+n-1 of dt_ms as one launch (see hs_backend.h). */
hs_status hs_cu_steps_device(hs_backend *b, long k0, double dt_ms, int n, const double *site_amp, int *done,
                             hs_step_stats *stats);

#endif
