/* The CUDA backend's execution policy (hs_cuda_policy.h): plain C, no device, so that CPU tests
 * check every branch; entry.cu applies it before its SpMV trial. */
#include <stdio.h>

#include "hs_cuda_policy.h"

const char *hs_cuda_cg_refusal(const hs_problem_opts *o)
{
    if (o->cg.variant == HS_CG_PIPELINED)
        return "solver.cg = \"pipelined\" (Ghysels-Vanroose) has only its CPU reference so far, no device kernel: "
               "use solver.backend = \"cpu\" (on one rank or several), or another solver.cg on cuda "
               "(\"chronopoulos\", \"classic\", \"sstep\")";
    return NULL;
}

int64_t hs_cuda_persistent_auto_rows(int64_t dev_rows)
{
    return dev_rows > 0 && dev_rows < HS_CUDA_PERSISTENT_CG_AUTO_ROWS ? dev_rows : HS_CUDA_PERSISTENT_CG_AUTO_ROWS;
}

/* the reason of a size limit, with the numbers (one run resolves one plan: a buffer per thread) */
static const char *size_why(const char *what, int32_t n_rows, int64_t dev_rows)
{
    static _Thread_local char buf[256];
    const int64_t lim = hs_cuda_persistent_auto_rows(dev_rows);
    if (lim < HS_CUDA_PERSISTENT_CG_AUTO_ROWS)
        snprintf(buf, sizeof buf, "%s: %ld rows, more than the %ld this GPU's persistent CG holds at one thread "
                 "each (docs/benchmarks.md)", what, (long)n_rows, (long)lim);
    else
        snprintf(buf, sizeof buf, "%s: %ld rows, above %ld, where the kernel sequence streams at full bandwidth "
                 "(docs/benchmarks.md)", what, (long)n_rows, (long)lim);
    return buf;
}

const char *hs_cuda_step_persistent_refusal(const hs_problem_opts *o, int persistent, int32_t n_rows,
                                            int64_t dev_rows)
{
    if (o->scheme.kind == HS_SCHEME_SPLITTING) return "the persistent step runs the Newton scheme only";
    if (o->pc.precond != HS_PRECOND_JACOBI || o->pc.krylov != HS_KRYLOV_CG)
        return "the device's Newton loops run Jacobi-CG only";
    if (o->assembly != HS_ASSEMBLY_SPLIT) return "the persistent step assembles the split form only";
    if (o->cg.variant != HS_CG_CHRONOPOULOS) return "the persistent step runs Chronopoulos-Gear CG only";
    if (persistent == 0) return "the persistent step runs the persistent CG, and solver.persistent = off";
    if (persistent == HS_PERSISTENT_AUTO && n_rows > hs_cuda_persistent_auto_rows(dev_rows))
        return size_why("the persistent CG (solver.persistent = auto) stops", n_rows, dev_rows);
    return NULL;
}

hs_step_mode hs_cuda_step_auto(const hs_problem_opts *o, int persistent, int32_t n_rows, int64_t dev_rows,
                               const char **why)
{
    if (o->scheme.kind == HS_SCHEME_SPLITTING) {
        if (!hs_cuda_split_graph_refusal(o) && o->graph && !hs_cuda_split_persist_refusal(o) && persistent != 0 &&
            n_rows <= HS_CUDA_SPLIT_PERSIST_AUTO_ROWS) {
            *why = "solver.scheme = splitting, at most 262144 nodes, Jacobi-CG Chronopoulos-Gear, a model of at most 3 "
                   "variables: the steps up to the next output event as one persistent cooperative kernel (grid "
                   "barriers instead of the graph's kernel nodes; docs/benchmarks.md)";
            return HS_STEP_PERSISTENT;
        }
        if (!hs_cuda_split_graph_refusal(o) && o->graph) {
            *why = "solver.scheme = splitting: the steps up to the next output event as one CUDA graph (reaction, "
                   "diffusion solve, read-outs; its WHILE node stops at the last step or a failed one), no host "
                   "synchronisation between steps";
            return HS_STEP_GRAPH;
        }
        *why = o->graph ? "solver.scheme = splitting with another solver.precond or solver.krylov than Jacobi-CG: the host "
                          "runs a step's ops, the reaction and the diffusion solve (its host-driven Krylov loop)"
                        : "solver.scheme = splitting, solver.graph = off: the host runs a step's ops, the reaction (the "
                          "nodal ODE kernel) and the diffusion solve (its kernels launched one by one)";
        return HS_STEP_KERNELS;
    }
    if (o->pc.precond != HS_PRECOND_JACOBI || o->pc.krylov != HS_KRYLOV_CG) {
        *why = "the device's Newton loops run Jacobi-CG only";
        return HS_STEP_KERNELS;
    }
    const char *no = hs_cuda_step_persistent_refusal(o, persistent, n_rows, dev_rows);
    if (n_rows > hs_cuda_persistent_auto_rows(dev_rows)) *why = size_why("the persistent step is slower", n_rows, dev_rows);
    else if (no) *why = no;
    else {
        *why = "at most one row a thread of the persistent CG (and at most 262144), split assembly, Jacobi-CG "
               "Chronopoulos-Gear";
        return HS_STEP_PERSISTENT;
    }
    return HS_STEP_GRAPH;
}

const char *hs_cuda_split_graph_refusal(const hs_problem_opts *o)
{
    if (o->pc.precond != HS_PRECOND_JACOBI || o->pc.krylov != HS_KRYLOV_CG)
        return "the splitting steps as one CUDA graph run Jacobi-CG only (another solver.precond or solver.krylov "
               "runs its host-driven loop: solver.step = \"kernels\")";
    return NULL;
}

const char *hs_cuda_split_persist_refusal(const hs_problem_opts *o)
{
    if (o->pc.precond != HS_PRECOND_JACOBI || o->pc.krylov != HS_KRYLOV_CG)
        return "the splitting steps as one persistent kernel run Jacobi-CG only (another solver.precond or "
               "solver.krylov runs its host-driven loop: solver.step = \"kernels\")";
    if (o->cg.variant != HS_CG_CHRONOPOULOS)
        return "the splitting steps as one persistent kernel run the one-barrier Chronopoulos-Gear CG: set "
               "solver.cg = \"chronopoulos\", or use solver.step = \"graph\"";
    if (o->model_prm.n_vars > HS_CUDA_SPLIT_PERSIST_MAX_VARS)
        return "the splitting steps as one persistent kernel hold the model's ODEs beside the CG in 128 registers a "
               "thread, built for the models of at most 3 variables (aliev_panfilov, mitchell_schaeffer, "
               "bueno_orovio); this model has more: use solver.step = \"graph\" (what \"auto\" takes)";
    return NULL;
}

const char *hs_cuda_scheme_refusal(const hs_problem_opts *o, hs_step_mode step)
{
    if (o->scheme.kind != HS_SCHEME_SPLITTING) return NULL;
    if (step == HS_STEP_PERSISTENT) return hs_cuda_split_persist_refusal(o);
    if (step == HS_STEP_GRAPH) return hs_cuda_split_graph_refusal(o);
    return NULL;
}

void hs_cuda_plan_rules(const hs_problem_opts *o, int32_t n_rows, int64_t dev_rows, hs_exec_plan *plan)
{
    const int persistent = plan->persistent_cg; /* the request: the step's refusal names it */
    if (plan->step == HS_STEP_AUTO) {
        const char *why = "";
        plan->step = hs_cuda_step_auto(o, persistent, n_rows, dev_rows, &why);
        snprintf(plan->why_step, sizeof plan->why_step, "%s", why);
    }
    /* the persistent CG kernel is Chronopoulos-Gear's (the s-step variant has its own, always); the
     * persistent step runs it whatever solver.persistent says (config_validate refuses "off" there) */
    if (o->cg.variant != HS_CG_CHRONOPOULOS) {
        plan->persistent_cg = 0;
        if (persistent == HS_PERSISTENT_AUTO)
            snprintf(plan->why_persistent, sizeof plan->why_persistent,
                     "the persistent CG kernel is Chronopoulos-Gear's, and solver.cg = \"%s\"",
                     hs_cg_variant_name(o->cg.variant));
    } else if (plan->step == HS_STEP_PERSISTENT) {
        plan->persistent_cg = 1;
        if (persistent == HS_PERSISTENT_AUTO)
            snprintf(plan->why_persistent, sizeof plan->why_persistent, "the persistent step runs it");
    } else if (persistent == HS_PERSISTENT_AUTO) {
        plan->persistent_cg = n_rows <= hs_cuda_persistent_auto_rows(dev_rows);
        if (plan->persistent_cg)
            snprintf(plan->why_persistent, sizeof plan->why_persistent, "at most %ld rows, one a thread, where launch "
                     "latency bounds an iteration", (long)hs_cuda_persistent_auto_rows(dev_rows));
        else
            snprintf(plan->why_persistent, sizeof plan->why_persistent, "%s",
                     size_why("the kernel sequence in a CUDA graph is faster", n_rows, dev_rows));
    }
    /* float32 values on the GPU: the CG's SpMV reads fewer bytes (docs/benchmarks.md, issue 17) */
    if (plan->values == HS_VALUES_AUTO) {
        if (!plan->spmv) {
            plan->values = HS_VALUES_F32;
            snprintf(plan->why_values, sizeof plan->why_values, "the GPU's SpMV reads fewer bytes; solver.spmv = "
                     "\"auto\" chooses among the kernels with a float32 variant");
        } else if (hs_spmv_serves(plan->spmv, HS_VALUES_F32)) {
            plan->values = HS_VALUES_F32;
            snprintf(plan->why_values, sizeof plan->why_values, "the GPU's SpMV reads fewer bytes, and the %s kernel "
                     "has a float32 variant", plan->spmv->name);
        } else {
            plan->values = HS_VALUES_F64;
            snprintf(plan->why_values, sizeof plan->why_values, "the %s kernel has no float32 variant",
                     plan->spmv->name);
        }
    }
}
