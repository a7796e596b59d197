/*
 * The CUDA backend's entry in the backend registry (backends/hs_backend_list.h): can it run here
 * (device 0 usable), its execution plan (the policy of policy.c, then `solver.spmv = "auto"`), and
 * create.
 */
#include <cstdio>
#include <thread>

#include <cuda_runtime.h>

#include "cuda_backend.cuh" /* HS_CG_POLL */
#include "hs_build_config.h"
#include "hs_cuda.h"
#include "hs_cuda_policy.h"
#include "hs_util.h"

static int cuda_probe(char *desc, size_t desc_len, char *why, size_t why_len)
{
    return hs_gpu_probe(desc, desc_len, why, why_len) > 0 ? 1 : 0;
}

/* the registry's entries auto names (solvers/spmv_<format>.c) */
extern "C" const hs_spmv_ops hs_spmv_ops_cusparse_sell, hs_spmv_ops_ellwarp_k1;
/* What auto takes without a trial on larger systems: the fastest whole step on the slab and the
 * benchmark ventricle of docs/benchmarks.md (issue 17). */
#define HS_CUDA_AUTO_DEFAULT hs_spmv_ops_cusparse_sell
/* the same with float32 values (solver.matrix_values), which cuSPARSE's kernels do not take with
 * float64 vectors: the hand-written ELL-WARP K1 (docs/benchmarks.md) */
#define HS_CUDA_AUTO_DEFAULT_F32 hs_spmv_ops_ellwarp_k1
/* CG iterations per Newton iteration the trial weighs the SpMV with (6.6 on the ventricle, 8.5 on
 * the 1M slab: docs/benchmarks.md) */
#define HS_CUDA_AUTO_CG_PER_NEWTON 8

/*
 * `solver.spmv = "auto"` on the GPU, once the other choices of @p plan are made. The persistent CG
 * (plan->persistent_cg: Chronopoulos-Gear with solver.persistent on, or auto up to
 * HS_CUDA_PERSISTENT_CG_AUTO_ROWS rows, or the persistent step) runs its own CSR SpMV through the
 * format's slot map: it gets the CSR slots themselves (csr_scalar), which read best; a trial would
 * time kernels it never runs. Otherwise a timed trial (hs_gpu_spmv_trial) ranks the formats that
 * keep the mesh's node order and serve plan->values by their share of a Newton iteration, if the
 * run is long enough to repay it: the trial costs about 20 ns per nonzero and format (set-up,
 * upload, timing: 0.2-0.3 s per format at 1M rows) and can save at most ~10% of the CG's time, which
 * is estimated from the SpMV's bytes at 2 TB/s, 2 Newton iterations per step and
 * HS_CUDA_AUTO_CG_PER_NEWTON CG iterations each. Shorter runs take HS_CUDA_AUTO_DEFAULT untimed and
 * say so.
 */
static hs_status cuda_choose_spmv(const hs_csr *pattern, const hs_problem_opts *opt, hs_exec_plan *plan)
{
    const size_t why_len = sizeof plan->why_spmv;
    char *why = plan->why_spmv;
    const int with_dot = opt->cg.variant == HS_CG_CHRONOPOULOS;
    if (opt->cg.variant == HS_CG_SSTEP) { /* always its persistent kernel: the same reasoning */
        plan->spmv = &hs_spmv_ops_csr_scalar;
        snprintf(why, why_len, "the s-step CG kernel reads the matrix in CSR order; a format named in solver.spmv "
                 "serves it through its slot map");
        return HS_OK;
    }
    if (plan->persistent_cg) {
        plan->spmv = &hs_spmv_ops_csr_scalar;
        snprintf(why, why_len, "the persistent CG kernel of this %d-row system reads the matrix in CSR order; "
                 "solver.persistent = \"off\" for a timed trial", pattern->n_rows);
        return HS_OK;
    }
    int candidates = 0;
    for (int f = 0; f < hs_spmv_count(); ++f)
        candidates += hs_spmv_get(f)->node_order == NULL && hs_spmv_serves(hs_spmv_get(f), plan->values);
    const hs_spmv_ops *fallback = plan->values == HS_VALUES_F32 ? &HS_CUDA_AUTO_DEFAULT_F32 : &HS_CUDA_AUTO_DEFAULT;
    const double spmv_s = ((4.0 + hs_matrix_values_bytes(plan->values)) * pattern->nnz + 20.0 * pattern->n_rows) / 2e12;
    const double gain_s = 0.10 * (double)opt->steps_hint * 2 * HS_CUDA_AUTO_CG_PER_NEWTON * spmv_s;
    const double trial_s = 20e-9 * (double)pattern->nnz * candidates;
    if (opt->steps_hint > 0 && gain_s < trial_s) {
        plan->spmv = fallback;
        snprintf(why, why_len, "without a trial: a timed trial of %d kernels would cost ~%.2f s and could save at most "
                 "~%.2f s of this %ld-step run (set solver.spmv to a kernel to choose one; `heartsim bench spmv` "
                 "compares them)", candidates, trial_s, gain_s, opt->steps_hint);
        return HS_OK;
    }
    char times[3072];
    double t0 = hs_wtime();
    HS_CALL(hs_gpu_spmv_trial(pattern, &opt->spmv_params, plan->values, 10, with_dot, HS_CUDA_AUTO_CG_PER_NEWTON,
                              &plan->spmv, times, sizeof times));
    snprintf(why, why_len, "timed trial on this matrix in %.1f s, medians of 10%s; formats with their own node order "
             "are not candidates; %s", hs_wtime() - t0, with_dot ? ", the SpMV with the CG's dot product y.x" : "",
             times);
    return HS_OK;
}

/* The execution plan on the GPU: the policy's rules (policy.c: step, persistent CG, matrix values),
 * then `solver.spmv = "auto"`, which depends on them. */
static hs_status cuda_resolve_plan(const hs_csr *pattern, const hs_problem_opts *opt, hs_exec_plan *plan)
{
    const char *cg_no = hs_cuda_cg_refusal(opt);
    HS_CHECK(!cg_no, HS_ERR_CONFIG, "%s", cg_no);
    const char *no = hs_cuda_scheme_refusal(opt, plan->step);
    HS_CHECK(!no, HS_ERR_CONFIG, "solver.step = \"%s\": %s", hs_step_mode_name(plan->step), no);
    hs_cuda_plan_rules(opt, pattern->n_rows, hs_gpu_cg_one_pass_rows(), plan);
    if (!plan->spmv) HS_CALL(cuda_choose_spmv(pattern, opt, plan));
    return HS_OK;
}

/* The plan of a distributed run on @p n_ranks ranks (hs_cuda_part_ops.resolve_plan, dist_gpu.cu): one
 * rank runs the serial code, so the serial plan; several run the CG as a kernel sequence with one
 * all-reduce per iteration (no persistent kernel): step "graph" (what auto takes, and what
 * "persistent" becomes) runs the Newton loop on the device (dist_newton.cu), replayed from CUDA graphs
 * where the transport allows (NCCL >= 2.9: hs_dist_gpu_set_graph; the MPI transport launches them one
 * by one and rank 0 says so), "kernels" runs it on the host around the CG; "auto" takes the serial
 * default kernel without a trial (each rank would time its own, on its own device, and might choose
 * apart). */
extern "C" hs_status hs_cuda_resolve_plan_ranks(const hs_csr *pattern, const hs_problem_opts *opt, int n_ranks,
                                                hs_exec_plan *plan)
{
    if (n_ranks <= 1) return cuda_resolve_plan(pattern, opt, plan);
    const char *cg_no = hs_cuda_cg_refusal(opt);
    HS_CHECK(!cg_no, HS_ERR_CONFIG, "%s", cg_no);
    /* several ranks: only rank 0 may hold the global pattern (sim/sim_build.c builds it for a
     * partitioner that reads it), so the rules see no row count; what depends on it, the step mode
     * and the persistent CG, is decided below for every rank alike */
    const hs_step_mode asked = plan->step;
    const int splitting = opt->scheme.kind == HS_SCHEME_SPLITTING;
    const char *no = splitting ? hs_cuda_scheme_refusal(opt, asked) : NULL; /* what a serial run refuses */
    if (!no && splitting && asked == HS_STEP_PERSISTENT) /* split_persist.cu's kernel is one device's */
        no = "the splitting steps as one persistent kernel run on one device (no persistent kernel holds an "
             "all-reduce): on several ranks use solver.step = \"graph\" or \"kernels\"";
    HS_CHECK(!no, HS_ERR_CONFIG, "solver.step = \"%s\": %s", hs_step_mode_name(asked), no);
    hs_cuda_plan_rules(opt, INT32_MAX, 0, plan);
    if (plan->step == HS_STEP_PERSISTENT) plan->step = HS_STEP_GRAPH;
    if (splitting) { /* the host runs a step's ops (dist_split.cu: split_step.cu's graph of steps is one device's);
                      * "auto" and "graph": the diffusion CG's iterations in graphs */
        plan->step = asked == HS_STEP_KERNELS ? HS_STEP_KERNELS : HS_STEP_GRAPH;
        snprintf(plan->why_step, sizeof plan->why_step,
                 "%d ranks, splitting: the host runs a step's ops, the reaction and the diffusion; %s", n_ranks,
                 plan->step == HS_STEP_GRAPH
                     ? "each diffusion's CG replays its iterations from a CUDA graph of " HS_CG_POLL_STR
                       " (the halo exchange and the all-reduce in it: NCCL >= 2.9)"
                     : "the CG's kernels launched one by one (solver.step = \"kernels\")");
    } else if (plan->step == HS_STEP_GRAPH)
        snprintf(plan->why_step, sizeof plan->why_step,
                 "%d ranks%s: the Newton loop on the device, its decisions global (dist_newton.cu), replayed from "
                 "CUDA graphs where NCCL >= 2.9 lets the halo exchange and the all-reduces be captured",
                 n_ranks, asked == HS_STEP_PERSISTENT ? " (no persistent kernel holds an all-reduce)" : "");
    else if (asked == HS_STEP_AUTO) {
        char rule[sizeof plan->why_step];
        snprintf(rule, sizeof rule, "%s", plan->why_step);
        snprintf(plan->why_step, sizeof plan->why_step,
                 "%d ranks: the Newton loop on the host, the CG's kernels launched one by one (%.150s)", n_ranks,
                 rule);
    }
    if (plan->persistent_cg) {
        plan->persistent_cg = 0;
        snprintf(plan->why_persistent, sizeof plan->why_persistent,
                 "%d ranks: the CG on a partition is a kernel sequence with an all-reduce per iteration", n_ranks);
    }
    if (!plan->spmv) {
        plan->spmv = plan->values == HS_VALUES_F32 ? &HS_CUDA_AUTO_DEFAULT_F32 : &HS_CUDA_AUTO_DEFAULT;
        snprintf(plan->why_spmv, sizeof plan->why_spmv,
                 "%d ranks: the serial default without a timed trial (each rank would time its own)", n_ranks);
    }
    return HS_OK;
}

/* The device's primary context created on a detached thread while the host builds the mesh and the
 * maps: the runtime serialises context creation, so the backend's own first call simply finds it
 * made (or waits for it). Errors are left for create to meet and report. */
static void cuda_warm_up(void)
{
    try {
        std::thread([] {
            if (cudaSetDevice(hs_gpu_device()) == cudaSuccess) cudaFree(nullptr);
            cudaGetLastError();
        }).detach();
    } catch (...) {
        /* no thread: create initialises the device itself */
    }
}

#if HS_HAS_MPI
extern "C" const hs_backend_part_ops hs_cuda_part_ops;
#endif

extern "C" const hs_backend_entry hs_backend_cuda = {
    "cuda",
    "the whole time step resident on one NVIDIA GPU (device 0): element, assembly, Jacobi-PCG kernels",
    1,
    cuda_probe,
    cuda_resolve_plan,
    hs_backend_cuda_create,
    cuda_warm_up,
#if HS_HAS_MPI
    &hs_cuda_part_ops, /* dist_gpu.cu */
#else
    NULL,
#endif
};
