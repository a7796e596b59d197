/**
 * @file cuda_backend.cuh
 * @brief Private to backends/cuda/ (CUDA-only header): the CUDA backend's state (cuda_impl), the
 * Newton scalars it keeps on the device, and what its files share. The backend is split by job:
 *   backend.cu    create, set-up, destroy; the state (get/set, history, frame copies); the ops table
 *   element.cu    the element kernel (local model update, Ke, Re) and its launcher
 *   assembly.cu   gather-map assembly of K and R, Jacobi diagonal, residual norm; layout re-encoding
 *   assembly_split.cu  the split assembly (K_D once, two scalars per element): its passes and upload
 *   pointwise.cu  begin_step, end_step, restore_step and the phi update: one thread per node/element
 *   graph.cu      a Newton iteration: the stream path (solve) and one CUDA graph (iterate)
 *   step_graph.cu a step's Newton loop as one CUDA graph (solver.step = "graph")
 *   step_persistent.cu  steps as one cooperative kernel (solver.step = "persistent")
 *   diag.cu       benchmarks and diagnostics: hs_cu_diag_ops (b->diag)
 *   entry.cu      the registry entry hs_backend_cuda (probe, resolve_plan, create)
 *   policy.c      the backend's execution policy (hs_cuda_policy.h: step, persistent CG, values),
 *                 host C built in every build; entry.cu adds the SpMV trial
 *   nodal.cu      the splitting scheme's nodal ODE kernel (hs_nodal.cuh), compiled per model
 *   split.cu      the splitting scheme's ops react and diffuse (fem/hs_splitting.h): the node stimulus,
 *                 the diffusion matrices in the format's slots, the warm-started solve as one graph
 *   split_step.cu the splitting steps up to the next output event as one CUDA graph (hs_split.cuh)
 *
 * Device layouts are structure-of-arrays so neighbouring threads touch neighbouring addresses:
 * full assembly: kd [10][ne], ke [10][ne] (K_e is symmetric: the 10 entries a <= b, hs_sym4_index), re [4][ne];
 * split assembly: km, rm [ne];
 * the model's variables ipv [n_vars][nvs] (field k of b->state, 1 <= k <= n_vars, at ipv + (k-1) nvs):
 * nvs = ne at the integration points (Newton), nn at the nodes (splitting). The gather maps are
 * re-encoded for these layouts at upload (hs_cu_remap_gather_maps).
 */
#ifndef HS_CUDA_BACKEND_CUH
#define HS_CUDA_BACKEND_CUH

#include <cstdint>

#include "hs_backend.h"
#include "hs_backend_diag.h"
#include "hs_cuda_check.cuh"
#include "hs_extrapolate.h"
#include "hs_gpu_cg.cuh"
#include "hs_gpu_precond.cuh"
#include "hs_gpu_spmv.cuh"
#include "hs_step_persistent.cuh"

#define HS_CG_POLL 4 /* CG iterations launched between two reads of the device status word */
#define HS_CG_POLL_STR "4" /* HS_CG_POLL in words */

/* Newton scalars that live on the device; copied to pinned host memory as one block when needed
 * (the CG's own scalars are in hs_gpu_cg_scalars). */
struct dev_scalars {
    double res, upd;   /* Newton: weighted residual norm, max |du| */
    int res_node, upd_node;
    int bad_elem;      /* smallest element whose local Newton failed, 0x7f7f7f7f when none */
};

struct cuda_impl {
    cudaStream_t s, s_copy;
    cudaEvent_t ev_e0, ev_e1, ev_a1, ev_s0, ev_s1, ev_state, ev_k0, ev_k1;
    hs_spmv_layout *lay;
    hs_gpu_spmv *spmv;
    int32_t nn, ne, nnz;
    int nv;                 /* the model's variables (n_vars) */
    int32_t nvs;            /* values per variable in ipv: ne (Newton), nn (splitting: at the nodes) */
    struct hs_cu_split *sp; /* solver.scheme = "splitting" (split.cu); NULL under Newton */
    int start_pending;      /* splitting: begin_step's copies (phi_n, ipv_n) are left to the first reaction's
                               nodal kernel, which reads those values anyway (split.cu) */
    /* mesh and discretisation (constant) */
    int32_t *tets;
    double *vol, *kd, *inv_mass;
    int32_t *kptr, *ksrc, *rptr, *rsrc, *diag;
    int64_t *slot;
    /* split assembly (fem/hs_assembly.h; split = 1): pairs, their element lists and format slots
     * (int2: (i,j), (j,i); a diagonal pair's is (i,i), ~i), K_D per pair and in CSR order, the
     * elements of each node (relem, in the R list's order), and the elements' two scalars. K and D^-1
     * are formed only before a solve (hs_cu_enqueue_tangent): k_stale says the last element pass's are
     * not formed yet, k_timed that ev_k0 .. ev_k1 time a formation not yet added to t.assembly */
    int split;
    int32_t np, np_off;     /* pairs; the first np_off are off-diagonal, node i's diagonal is np_off + i */
    int32_t *pptr, *pelem, *pslot, *relem;
    int64_t *pptr64;        /* the pair list pointers when they exceed 32 bits (10 n_elems > 2^31 - 1); pptr NULL then */
    double *kdp, *kdc, *km, *rm;
    int k_stale, k_timed;
    int32_t *stim_elem;
    /* heterogeneous tissue (fem/hs_region.h): the region table and each element's row; both NULL
     * for uniform tissue (the kernels then take the uniform parameters, as before) */
    hs_region_row *rtab;
    uint16_t *etab;
    /* sampling (probes, pseudo-ECG: fem/hs_sample.h): per set its CSR matrix and a buffer of
     * s_cap[set] samples [cap][n_rows], filled on the device, copied to the host in batches */
    int s_rows[HS_SAMPLE_SETS], s_cap[HS_SAMPLE_SETS];
    int64_t *s_rp[HS_SAMPLE_SETS];
    int32_t *s_col[HS_SAMPLE_SETS];
    double *s_val[HS_SAMPLE_SETS], *s_buf[HS_SAMPLE_SETS];
    /* state and per-iteration arrays; ipv, ipv_n: [nv][ne] */
    double *phi, *phin, *ipv, *ipv_n, *act, *ke, *re, *kval, *rhs, *du, *dinv, *stim_e;
    float *kval32;          /* [n_slots] the tangent's values when solver.matrix_values = float32 (kval NULL) */
    int f32;                /* 1: kval32 holds the values (solvers/hs_spmv.h, hs_matrix_values) */
    double *ph1, *ph2;      /* phi_{n-1}, phi_{n-2}: extrapolation history (NULL when off) */
    int32_t *csr_rp, *csr_col; /* CSR pattern, only for the persistent CG */
    double *partA;
    int *parti;
    dev_scalars *d_sc, *h_sc; /* h_sc pinned */
    hs_gpu_cg *cg;
    hs_gpu_cg_scalars *h_cg;  /* pinned */
    double *h_state;          /* pinned staging for get_state: every field in b->state's order
                               * [nn][nv ne][nn] */
    double dt;
    int stim_was_on;
    hs_extrap ex;
    /* frames: device snapshots [2][nn + nv ne + 4 nn] (fields in b->state's order) and their copies to
     * the host on s_copy */
    double *snap[2];
    cudaEvent_t ev_snap[2], ev_done[2];
    /* graph mode: one Newton iteration (solve, update, element, assembly) as a graph */
    cudaGraphExec_t gexec;
    double graph_dt;
    /* solver.step = "graph" (step_graph.cu): the Newton loop of a step as one graph, its control block
     * on the device and its pinned host copy */
    cudaGraphExec_t step_exec;
    double step_dt;
    struct hs_newton_ctl *step_ctl, *h_step_ctl;
    struct hs_step_trace *trace; /* HS_STEP_TRACE set: the step graph's timeline (hs_step_trace.cuh); else NULL */
    int trace_checked;           /* the environment was read */
    /* solver.step = "persistent" (step_persistent.cu): the step kernel's data, NULL until first used */
    hs_pstep_dev *pstep;
    hs_phase_times t;
    /* solver.precond / solver.krylov other than Jacobi-CG (backends/cuda/precond.cu, krylov.cu): the
     * host's pattern work, the device preconditioner, K in CSR order, the Krylov work, and the solves
     * since the preconditioner's values were computed. NULL for Jacobi-CG (the tuned path above). */
    hs_precond *pc_host;
    hs_gpu_precond *gpc;
    double *kcsr;
    hs_gpu_krylov *gkw;
    long pc_age;
};

/* The extrapolated first iterate w0 phi_n + w1 phi_{n-1} (+ w2 phi_{n-2}) with explicit roundings, so
 * that the step's kernels (pointwise.cu) and the persistent step (step_persistent.cu) give the same bits. */
__device__ __forceinline__ double hs_cu_extrap(double w0, double w1, double w2, double p0, double h1, double h2)
{
    const double s = __fma_rn(w1, h1, __dmul_rn(w0, p0));
    return w2 != 0.0 ? __fma_rn(w2, h2, s) : s;
}

/* The tangent's value array as stored (double *kval, or float *kval32 when f32). */
static inline void *hs_cu_kvals(cuda_impl *c) { return c->f32 ? (void *)c->kval32 : (void *)c->kval; }


/* Blocks for n items; kernels launched with it are grid-stride, so the cap never drops work. */
static inline int nblocks(int64_t n, int threads)
{
    int64_t b = (n + threads - 1) / threads;
    return (int)(b < 1 ? 1 : b > 65535 * 16 ? 65535 * 16 : b);
}

template <typename T>
static hs_status upload(T **d, const T *h, size_t count, const char *what)
{
    HS_CALL(hs_cuda_alloc_((void **)d, sizeof(T) * count, what, __FILE__, __LINE__));
    if (count) HS_CUDA_CALL(cudaMemcpy(*d, h, sizeof(T) * count, cudaMemcpyHostToDevice));
    return HS_OK;
}

static inline float elapsed_ms(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, a, b);
    return ms;
}

/* Events inside a captured graph must be external event-record nodes. */
static inline hs_status rec(cudaEvent_t ev, cudaStream_t s, int in_graph)
{
    HS_CUDA_CALL(in_graph ? cudaEventRecordWithFlags(ev, s, cudaEventRecordExternal) : cudaEventRecord(ev, s));
    return HS_OK;
}

/* ---- element.cu ---- */
/** Enqueue the element kernel on c->s at the current phi (model @p prm, step c->dt). */
hs_status hs_cu_launch_element(cuda_impl *c, const hs_model_params *prm);
/* sampling ops (pointwise.cu) */
hs_status hs_cu_sample_setup(hs_backend *b, int set, const hs_sample_set *s, int cap);
hs_status hs_cu_sample(hs_backend *b, int set, int slot);
hs_status hs_cu_sample_fetch(hs_backend *b, int set, int n, double *dst);

/* ---- assembly.cu ---- */
/** Final max-location over the HS_RED_BLOCKS block partials in c->partA/c->parti into (*v, *i). */
hs_status hs_cu_launch_final_maxloc(cuda_impl *c, double *v, int *i);
/** Element pass, assembly (split: R only, the tangent is left to hs_cu_enqueue_tangent), residual
 *  norm; ends with the scalars copied to pinned memory. */
hs_status hs_cu_enqueue_assemble(hs_backend *b, int in_graph);
/** hs_cu_enqueue_assemble without the norm over every local row and without the copy to the host: a
 *  partition's device Newton loop (dist_newton.cu) forms its norm over the owned rows on the device. */
hs_status hs_cu_enqueue_assemble_part(hs_backend *b, int in_graph);
/** The error an element failure (dev_scalars.bad_elem = @p e) is reported as. */
hs_status hs_cu_element_error(const hs_backend *b, int e);
/* ---- step_graph.cu ---- */
/** hs_backend_ops.newton_device: the Newton loop of a step as one CUDA graph (solver.step = "graph"). */
hs_status hs_cu_newton_device(hs_backend *b, hs_newton_out *out);
/** After the stream synchronised: element failures, residual, phase times. */
hs_status hs_cu_finish_assemble(hs_backend *b, double *res_norm, int32_t *res_node);
/** The assemble op: enqueue, synchronise, finish. */
hs_status hs_cu_assemble(hs_backend *b, double *res_norm, int32_t *res_node);
/** host [n][w] -> device [w][n] */
hs_status hs_cu_upload_soa(double **d, const double *h, int32_t n, int w, const char *what);
/** The host gather maps ([ne][16], [ne][4] sources) re-encoded for ke [10][ne] and re [4][ne]. */
hs_status hs_cu_remap_gather_maps(cuda_impl *c, const hs_assembly_map *map);
/** Enqueue the split assembly's R pass and residual block maxima (after the element kernel). */
hs_status hs_cu_enqueue_split_r(cuda_impl *c);
/** Enqueue the split assembly's K pass and Jacobi diagonal (the tangent, before a solve). */
hs_status hs_cu_enqueue_split_k(cuda_impl *c);
/** Enqueue the tangent (split: K and D^-1 from the last element pass; full: nothing, assemble formed
 *  it); in_graph as hs_cu_enqueue_assemble's (below 2: timed by ev_k0, ev_k1). */
hs_status hs_cu_enqueue_tangent(cuda_impl *c, int in_graph);
/** After the stream synchronised: the tangent's time into t.assembly (once per enqueue). */
void hs_cu_finish_tangent(cuda_impl *c);
/** The tangent op: enqueue it if the last assembly left it out, synchronise, finish. */
hs_status hs_cu_tangent(hs_backend *b);
/** Upload what the split assembly reads (c->split set): pairs, slots, K_D, CSR pattern, R lists. */
hs_status hs_cu_upload_split(cuda_impl *c, const hs_problem *p);

/* ---- pointwise.cu ---- */
hs_status hs_cu_begin_step(hs_backend *b, double dt, const double *amp);
/** phi -= du (if CG converged) and max |du| into d_sc->upd. */
hs_status hs_cu_enqueue_update(cuda_impl *c);
/** phi -= du on rows [0, n) when converged (cg's device status, or @p conv when cg is NULL), block
 *  maxima of |du| into partv [HS_RED_BLOCKS] and their rows into parti (NULL: not wanted); the serial
 *  update (hs_cu_enqueue_update) and the distributed one (dist_gpu.cu) (pointwise.cu). */
hs_status hs_cu_launch_update_phi(cudaStream_t s, int32_t n, const hs_gpu_cg_scalars *cg, int conv, double *phi,
                                  const double *du, double *partv, int *parti);
hs_status hs_cu_end_step(hs_backend *b, double t_prev, double dt_ms);
hs_status hs_cu_restore_step(hs_backend *b);
/** x[0..n) = v on the default stream (set-up). */
hs_status hs_cu_fill(int64_t n, double v, double *x);

/* ---- graph.cu ---- */
hs_status hs_cu_solve(hs_backend *b, hs_cg_result *cg, double *upd_norm);
hs_status hs_cu_iterate(hs_backend *b, hs_cg_result *cg, double *upd_norm, double *res_norm, int32_t *res_node);
/** The solve of any other solver.precond / solver.krylov (c->gpc set): values of the preconditioner
 *  every solver.precond_reuse solves, the device Krylov method, the phi update (stream, no graph). */
hs_status hs_cu_solve_general(hs_backend *b, hs_cg_result *cg, double *upd_norm);

/* ---- entry.cu ---- */
/** The execution plan of a distributed run on @p n_ranks ranks (hs_cuda_part_ops.resolve_plan): the
 *  serial one on one rank; on several the Newton loop on the host and "auto" without a timed trial. */
extern "C" hs_status hs_cuda_resolve_plan_ranks(const hs_csr *pattern, const hs_problem_opts *opt, int n_ranks,
                                                hs_exec_plan *plan);

/* ---- split.cu (solver.scheme = "splitting") ---- */
/** Allocate the splitting scheme's device data (c->sp): node stimulus lists, region rows, frozen
 *  nodes, the diffusion's extra matrices and scalars. After the format and the CG exist. */
hs_status hs_cu_split_setup(hs_backend *b);
void hs_cu_split_free(cuda_impl *c);
/** @brief The last diffusion's correction u - u* (the next guess's history), or NULL: no guess. */
double *hs_cu_split_correction(cuda_impl *c);
/** hs_backend_ops.react / .diffuse (fem/hs_backend.h). */
hs_status hs_cu_react(hs_backend *b, double h, int n_sub, const double *site_amp, int32_t *bad_node);
hs_status hs_cu_diffuse(hs_backend *b, double dt, hs_cg_result *cg);
/** @brief The failure flag of a deferred reaction (hs_backend_ops.react_check; split.cu). */
hs_status hs_cu_react_check(hs_backend *b, int32_t *bad_node);
/** hs_backend_ops.steps_device under the splitting scheme (split_step.cu; step_persistent.cu's
 *  hs_cu_steps_device hands it over): steps k0 .. k0+n-1 as one CUDA graph launch. */
hs_status hs_cu_split_steps(hs_backend *b, long k0, double dt_ms, int n, int *done, hs_step_stats *stats);
/** For the phase benchmark (diag.cu) and a partition's diffusion (dist_split.cu, the norms over its
 *  owned rows [0, rows); -1: every node): enqueue the diffusion's start (r0 = C u*, B u*, the norms); one
 *  reaction of @p h in @p n_sub substeps without stimulus, start copies or failure flag; the least
 *  bytes of phase 0 (the reaction) or 1 (the diffusion's start). */
hs_status hs_cu_split_enqueue_start(cuda_impl *c, int32_t rows = -1);
hs_status hs_cu_split_enqueue_react(hs_backend *b, double h, int n_sub);
double hs_cu_split_bytes(const hs_backend *b, int phase);

/* ---- diag.cu ---- */
/** bench, bench_cg, get_system: set as b->diag by hs_backend_cuda_create. */
extern const hs_backend_diag_ops hs_cu_diag_ops;

#endif
