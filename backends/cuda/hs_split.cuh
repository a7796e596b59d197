/**
 * @file hs_split.cuh
 * @brief Private to backends/cuda/ (CUDA-only header): the splitting scheme's device data (c->sp) and
 * what split.cu (the ops react and diffuse, one step at a time) shares with split_step.cu (the steps
 * up to the next output event as one CUDA graph, hs_backend_ops.steps_device under splitting).
 */
#ifndef HS_SPLIT_CUH
#define HS_SPLIT_CUH

#include "cuda_backend.cuh"

struct hs_cu_split_launch;  /* split_step.cu */
struct hs_cu_split_persist; /* split_persist.cu */

/* A launched step's row of numbers (split_step.cu fills them on the host, the graph's kernels and the
 * persistent kernel read them): [HS_SROW_AMP + 2 n_sites] doubles, the second reaction's currents
 * after the first's. */
enum { HS_SROW_TPREV, HS_SROW_DTMS, HS_SROW_W0, HS_SROW_W1, HS_SROW_H1, HS_SROW_N1, HS_SROW_H2, HS_SROW_N2,
       HS_SROW_AMP };

/** What a launch of steps reads, however it runs them (the graph: split_step.cu; one kernel:
 *  split_persist.cu); device memory unless h_. */
struct hs_cu_split_rows {
    int ns, stride;      /* sites, doubles per row */
    int32_t m;           /* stimulated nodes (distinct) */
    int32_t *unode;      /* [m] the stimulated nodes, increasing */
    int32_t *uptr;       /* [m + 1] their (site, share) entries, in site order */
    int32_t *usite;      /* [uptr[m]] */
    double *uw;          /* [uptr[m]] */
    int32_t *sidx;       /* [nn] a node's index in unode, -1: not stimulated (NULL when m = 0) */
    double *rows, *h_rows; /* [HS_STEPS_DEVICE_MAX + 1][stride]: row 0 the current step, 1 + j step j; h_ pinned */
};

struct hs_cu_split {
    int lumped_b;          /* B = diag(m) (lumped mass, theta = 1): no SpMV for ||B u*|| */
    double dt;             /* model units the slots hold A, C (and B) for; NaN: none yet */
    double *cval;          /* [n_slots] C = B - A, double */
    hs_gpu_spmv *spmv_c;
    void *bval;            /* [n_slots] B in the CG's value precision (NULL when lumped_b) */
    hs_gpu_spmv *spmv_b;
    double *bu;            /* [nn] B u* (NULL when lumped_b) */
    double *mass;          /* [nn] lumped mass (hs_nodal.mass_lumped) */
    uint8_t *frozen;       /* [nn] decoupled nodes, or NULL */
    uint16_t *ntab;        /* [nn] region row of each node, or NULL */
    double *stim;          /* [nn] the node current of the reaction (0 at the nodes of no site) */
    int32_t *snode;        /* [n_stim] nodes of every site (hs_nodal.stim_node) */
    double *sw;            /* [n_stim] their shares */
    int stim_on;           /* stim holds a current that is not zero everywhere */
    double *norms;         /* [3] ||r0||^2, ||B u*||^2, ||r0|| / ||B u*|| */
    double *part;          /* [2][HS_RED_BLOCKS] */
    double *h_norms;       /* pinned [3] */
    int *bad, *h_bad;      /* smallest node of a non-finite reaction (0x7f7f7f7f: none); h_ pinned */
    int react_pending;     /* a reaction's flag copy enqueued and not yet read (hs_cu_react_check) */
    int guess;             /* solver.extrapolate >= 1: the CG starts from u* + g (hs_split_guess_weights) */
    double *g;             /* [nn] the guess g = w0 d_1 + w1 d_2, after the solve the step's correction g + d' */
    double *ag;            /* [nn] A g */
    double *gs, *h_gs;     /* [2] the guess's weights (0: none), set by the host before each solve; h_ pinned */
    cudaGraphExec_t exec;  /* the diffusion solve (solver.graph) */
    cudaEvent_t ev0, ev1;
    hs_cu_split_launch *launch; /* split_step.cu: the launch graph and its buffers, NULL until first used */
    hs_cu_split_persist *persist; /* split_persist.cu: the persistent kernel's data, NULL until first used */
};

/* ---- split.cu ---- */
/** A, C (and B) for @p dt (model units) into the format's slots, D^-1 (host reference, synchronises). */
hs_status hs_cu_split_assemble(hs_backend *b, double dt);
/** Enqueue the diffusion's start: r0 = C u* (- A g), B u*, the norms; @p gs: device [2], the guess's
 *  weights (hs_split_guess_weights; read by a kernel, so a graph may take them from a per-step row);
 *  the norms over rows [0, @p rows) (a partition's owned rows; -1: every node). */
hs_status hs_cu_split_start(cuda_impl *c, const double *gs, int32_t rows = -1);
/** Enqueue u = u* + g + d where the CG converged (@p cg's device status, or @p conv when NULL) on finite
 *  norms, on rows [0, @p rows) (-1: every node); g becomes the step's correction. */
hs_status hs_cu_split_apply(cuda_impl *c, const hs_gpu_cg_scalars *cg, int conv, int32_t rows = -1);
/** The CG's tolerance cg_tol ||B u*|| / ||r0||, formed on the device from the norms. */
hs_gpu_cg_tol hs_cu_split_tol(const hs_backend *b);

/* ---- split_step.cu ---- */
/** Free the launch graph and its buffers (hs_cu_split_free). */
void hs_cu_split_launch_free(hs_cu_split *sp);
/** The start of a launch of steps @p k0 .. @p k0 + @p n - 1, whichever way it runs: the checks, the
 *  matrices when dt changed, the rows of the steps (hs_split_reaction_inputs, hs_split_guess_weights)
 *  in rows->h_rows (the caller copies rows 0 .. n to the device); @p rows: the launch's rows and
 *  stimulated nodes; @p stim: whether a site is on in any of the steps. */
hs_status hs_cu_split_launch_begin(hs_backend *b, long k0, double dt_ms, int n, const hs_cu_split_rows **rows,
                                   int *stim);
/** The end of a launch (the stream synchronised): the statistics of the @p j steps done (CG iterations
 *  @p iters[] and the final residuals relative to ||B u*|| @p res[], host memory), the guess's history advanced as the device did, and when @p j < @p n the
 *  backend put back at the failed step's start (hs_cu_restore_step), which the step driver runs again
 *  on the one-step path. */
hs_status hs_cu_split_launch_end(hs_backend *b, double dt_ms, int n, int j, int failed, const int *iters,
                                 const double *res, int *done, hs_step_stats *stats);

/* ---- split_persist.cu ---- */
/** hs_backend_ops.steps_device under splitting with solver.step = "persistent": the steps as one
 *  cooperative kernel (the contract of hs_cu_split_steps). */
hs_status hs_cu_split_persist_steps(hs_backend *b, long k0, double dt_ms, int n, int *done, hs_step_stats *stats);
/** Free the persistent kernel's data (hs_cu_split_free). */
void hs_cu_split_persist_free(hs_cu_split *sp);

#endif
