/*
 * The execution policies, branch by branch. The cuda backend's (backends/cuda/policy.c, host C in
 * every build): solver.step = "auto" takes the persistent step exactly where its kernel runs the
 * settings and the mesh is at or below the measured crossover, the graph step for the other
 * Jacobi-CG settings, the host loop for the other solvers; the persistent CG and the matrix values
 * likewise; each "auto" with its reason, and named choices kept. The cpu backend's: the host loop,
 * float64 and csr_scalar for "auto". And the plan hs_sim_create resolves and hands the backend. The
 * expectations are the enum's modes and the policy's own limits, never their numbers.
 */
#include <string.h>

#include "hs_backends.h"
#include "hs_cuda_policy.h"
#include "hs_sim.h"
#include "hs_test.h"
#include "hs_test_spec.h"

static const int32_t rows_limit = HS_CUDA_STEP_PERSISTENT_AUTO_ROWS;

/* the run's defaults: split assembly, Jacobi-CG Chronopoulos-Gear */
static hs_problem_opts defaults(void)
{
    hs_problem_opts o;
    memset(&o, 0, sizeof o);
    o.assembly = HS_ASSEMBLY_SPLIT;
    o.pc.precond = HS_PRECOND_JACOBI;
    o.pc.krylov = HS_KRYLOV_CG;
    o.cg.variant = HS_CG_CHRONOPOULOS;
    return o;
}

/* the rows the device's persistent CG holds at one thread each (0: not known) the rules are given */
static int64_t dev_rows = 0;

static void expect(const hs_problem_opts *o, int persistent, int32_t rows, hs_step_mode want, const char *what)
{
    const char *why = NULL;
    const hs_step_mode got = hs_cuda_step_auto(o, persistent, rows, dev_rows, &why);
    HS_TEST_CHECK(got == want, "%s (%d rows): %s, want %s (%s)", what, rows, hs_step_mode_name(got),
                  hs_step_mode_name(want), why ? why : "no reason");
    HS_TEST_CHECK(why && why[0], "%s: no reason given", what);
}

/* hs_cuda_plan_rules on a request of auto everywhere but @p step / @p persistent / @p spmv */
static hs_exec_plan rules(const hs_problem_opts *o, hs_step_mode step, int persistent, const hs_spmv_ops *spmv,
                          int32_t rows)
{
    hs_exec_plan p = hs_exec_plan_request(step, persistent, HS_VALUES_AUTO, spmv);
    hs_cuda_plan_rules(o, rows, dev_rows, &p);
    return p;
}

static void cuda_step(void)
{
    const int AUTO = HS_PERSISTENT_AUTO;
    hs_problem_opts o = defaults();
    expect(&o, AUTO, 7840, HS_STEP_PERSISTENT, "the defaults, the ventricle");
    expect(&o, AUTO, 50653, HS_STEP_PERSISTENT, "the defaults, bench_50k");
    expect(&o, AUTO, rows_limit, HS_STEP_PERSISTENT, "the defaults at the crossover");
    expect(&o, AUTO, rows_limit + 1, HS_STEP_GRAPH, "the defaults above the crossover");
    expect(&o, AUTO, 1030301, HS_STEP_GRAPH, "the defaults, bench_1m");
    o.assembly = HS_ASSEMBLY_FULL;
    expect(&o, AUTO, 50653, HS_STEP_GRAPH, "full assembly");
    o = defaults();
    o.cg.variant = HS_CG_CLASSIC;
    expect(&o, AUTO, 50653, HS_STEP_GRAPH, "classic CG");
    o = defaults();
    expect(&o, 0, 50653, HS_STEP_GRAPH, "solver.persistent = off");
    expect(&o, 1, 50653, HS_STEP_PERSISTENT, "solver.persistent = on");
    expect(&o, 1, rows_limit + 1, HS_STEP_GRAPH, "solver.persistent = on above the crossover");
    o.pc.precond = HS_PRECOND_FSAI;
    expect(&o, AUTO, 50653, HS_STEP_KERNELS, "FSAI-PCG");
    o = defaults();
    o.pc.krylov = HS_KRYLOV_BICGSTAB;
    o.pc.precond = HS_PRECOND_SAI;
    expect(&o, AUTO, 50653, HS_STEP_KERNELS, "SAI-BiCGStab");
    /* what the persistent kernel runs, at any size (bench step's row) */
    o = defaults();
    HS_TEST_CHECK(!hs_cuda_step_persistent_refusal(&o, AUTO, 50653, 0), "the defaults refused");
    HS_TEST_CHECK(hs_cuda_step_persistent_refusal(&o, AUTO, HS_CUDA_PERSISTENT_CG_AUTO_ROWS + 1, 0) != NULL,
                  "solver.persistent = auto above its limit accepted");
    HS_TEST_CHECK(!hs_cuda_step_persistent_refusal(&o, 1, 1030301, 0), "solver.persistent = on at 1M refused");
    HS_TEST_CHECK(hs_cuda_step_persistent_refusal(&o, 0, 50653, 0) != NULL, "solver.persistent = off accepted");
    o.assembly = HS_ASSEMBLY_FULL;
    HS_TEST_CHECK(hs_cuda_step_persistent_refusal(&o, 1, 50653, 0) != NULL, "full assembly accepted");
    o = defaults();
    o.cg.variant = HS_CG_CLASSIC;
    HS_TEST_CHECK(hs_cuda_step_persistent_refusal(&o, 1, 50653, 0) != NULL, "classic CG accepted");
}

static void cuda_rules(void)
{
    const int AUTO = HS_PERSISTENT_AUTO;
    const hs_problem_opts o = defaults();
    /* all auto on a small mesh: the persistent step, which runs the persistent CG; float32 */
    hs_exec_plan p = rules(&o, HS_STEP_AUTO, AUTO, NULL, 50653);
    HS_TEST_CHECK(p.step == HS_STEP_PERSISTENT && p.persistent_cg == 1 && p.values == HS_VALUES_F32 && !p.spmv,
                  "all auto, 50653 rows: step %s, persistent %d, %s", hs_step_mode_name(p.step), p.persistent_cg,
                  hs_matrix_values_name(p.values));
    HS_TEST_CHECK(p.why_step[0] && p.why_persistent[0] && p.why_values[0] && !p.why_spmv[0], "reasons");
    /* above the limits: the graph step, the kernel-sequence CG */
    p = rules(&o, HS_STEP_AUTO, AUTO, NULL, rows_limit + 1);
    HS_TEST_CHECK(p.step == HS_STEP_GRAPH && p.persistent_cg == 0, "all auto above the limit: %s, %d",
                  hs_step_mode_name(p.step), p.persistent_cg);
    /* the persistent CG: auto up to its limit with another step; named on/off kept; on for the
     * persistent step whatever is asked; never for another CG variant */
    p = rules(&o, HS_STEP_GRAPH, AUTO, NULL, HS_CUDA_PERSISTENT_CG_AUTO_ROWS);
    HS_TEST_CHECK(p.step == HS_STEP_GRAPH && p.persistent_cg == 1 && !p.why_step[0] && p.why_persistent[0],
                  "graph named, persistent auto at the limit: %s, %d", hs_step_mode_name(p.step), p.persistent_cg);
    p = rules(&o, HS_STEP_KERNELS, AUTO, NULL, HS_CUDA_PERSISTENT_CG_AUTO_ROWS + 1);
    HS_TEST_CHECK(p.step == HS_STEP_KERNELS && p.persistent_cg == 0 && p.why_persistent[0],
                  "kernels named, persistent auto above the limit: %d", p.persistent_cg);
    p = rules(&o, HS_STEP_KERNELS, 1, NULL, 1030301);
    HS_TEST_CHECK(p.persistent_cg == 1 && !p.why_persistent[0], "persistent on at 1M: %d", p.persistent_cg);
    p = rules(&o, HS_STEP_KERNELS, 0, NULL, 7840);
    HS_TEST_CHECK(p.persistent_cg == 0 && !p.why_persistent[0], "persistent off: %d", p.persistent_cg);
    p = rules(&o, HS_STEP_PERSISTENT, AUTO, NULL, 1030301);
    HS_TEST_CHECK(p.step == HS_STEP_PERSISTENT && p.persistent_cg == 1, "the persistent step at 1M: %d",
                  p.persistent_cg);
    hs_problem_opts c = defaults();
    c.cg.variant = HS_CG_CLASSIC;
    p = rules(&c, HS_STEP_KERNELS, 1, NULL, 7840);
    HS_TEST_CHECK(p.persistent_cg == 0, "classic CG with persistent on: %d", p.persistent_cg);
    c.cg.variant = HS_CG_SSTEP;
    p = rules(&c, HS_STEP_KERNELS, AUTO, NULL, 7840);
    HS_TEST_CHECK(p.persistent_cg == 0 && p.why_persistent[0], "s-step CG, persistent auto: %d", p.persistent_cg);
    /* solver.cg = "pipelined" has no device kernel: refused by its key, the other variants not */
    for (int v = 0; v < (int)hs_cg_variants()->count; ++v) {
        c.cg.variant = (hs_cg_variant)v;
        const char *no = hs_cuda_cg_refusal(&c);
        if (v == HS_CG_PIPELINED)
            HS_TEST_CHECK(no && strstr(no, "solver.cg = \"pipelined\"") && strstr(no, "solver.backend = \"cpu\""),
                          "pipelined CG on cuda: %s", no ? no : "not refused");
        else
            HS_TEST_CHECK(!no, "%s CG on cuda refused: %s", hs_cg_variant_name(c.cg.variant), no);
    }
    /* float32 where the named kernel has a float32 variant, float64 where it has none; named values kept */
    for (int f = 0; f < hs_spmv_count(); ++f) {
        const hs_spmv_ops *k = hs_spmv_get(f);
        p = rules(&o, HS_STEP_KERNELS, 0, k, 7840);
        const hs_matrix_values want = k->apply_ref_f32 ? HS_VALUES_F32 : HS_VALUES_F64;
        HS_TEST_CHECK(p.values == want && p.spmv == k && p.why_values[0], "%s: %s", k->name,
                      hs_matrix_values_name(p.values));
        p = hs_exec_plan_request(HS_STEP_KERNELS, 0, HS_VALUES_F64, k);
        hs_cuda_plan_rules(&o, 7840, 0, &p);
        HS_TEST_CHECK(p.values == HS_VALUES_F64 && !p.why_values[0], "%s: named float64 changed", k->name);
    }
}

/* solver.scheme = "splitting" on cuda (issue 28): "auto" is the steps up to the next output event as one
 * persistent kernel (split_persist.cu) up to its row limit for a model of few variables with Jacobi-CG
 * Chronopoulos-Gear, solver.graph on and solver.persistent not off; as one CUDA graph (split_step.cu)
 * otherwise with Jacobi-CG and solver.graph on, else the host running a step's ops, each with its reason; a named graph needs Jacobi-CG, a named persistent kernel Jacobi-CG
 * Chronopoulos-Gear and a model of few variables;
 * the persistent CG and the values follow the Newton scheme's rules */
static void cuda_splitting(void)
{
    const int AUTO = HS_PERSISTENT_AUTO;
    hs_problem_opts o = defaults();
    o.scheme = hs_scheme_opts_newton();
    o.scheme.kind = HS_SCHEME_SPLITTING;
    o.graph = 1;
    o.model_prm.n_vars = 1; /* Aliev-Panfilov */
    expect(&o, AUTO, 50653, HS_STEP_PERSISTENT, "splitting, bench_50k");
    expect(&o, AUTO, HS_CUDA_SPLIT_PERSIST_AUTO_ROWS, HS_STEP_PERSISTENT, "splitting at the persistent limit");
    expect(&o, AUTO, HS_CUDA_SPLIT_PERSIST_AUTO_ROWS + 1, HS_STEP_GRAPH, "splitting above the persistent limit");
    expect(&o, AUTO, 1030301, HS_STEP_GRAPH, "splitting, bench_1m");
    expect(&o, 0, 50653, HS_STEP_GRAPH, "splitting, solver.persistent = off");
    o.model_prm.n_vars = 18; /* ten Tusscher 2006 */
    expect(&o, AUTO, 50653, HS_STEP_GRAPH, "splitting, a CellML model");
    o.model_prm.n_vars = 1;
    o.cg.variant = HS_CG_CLASSIC;
    expect(&o, AUTO, 50653, HS_STEP_GRAPH, "splitting, classic CG");
    o.cg.variant = HS_CG_CHRONOPOULOS;
    o.graph = 0;
    expect(&o, AUTO, 50653, HS_STEP_KERNELS, "splitting, solver.graph = off");
    o.graph = 1;
    o.pc.precond = HS_PRECOND_FSAI;
    expect(&o, AUTO, 50653, HS_STEP_KERNELS, "splitting, FSAI-PCG");
    HS_TEST_CHECK(hs_cuda_scheme_refusal(&o, HS_STEP_GRAPH) != NULL, "splitting: a graph with FSAI-PCG accepted");
    o.pc.precond = HS_PRECOND_JACOBI;
    HS_TEST_CHECK(hs_cuda_step_persistent_refusal(&o, 1, 50653, 0) != NULL, "splitting: the persistent step accepted");
    HS_TEST_CHECK(!hs_cuda_scheme_refusal(&o, HS_STEP_AUTO) && !hs_cuda_scheme_refusal(&o, HS_STEP_KERNELS) &&
                      !hs_cuda_scheme_refusal(&o, HS_STEP_GRAPH),
                  "splitting: auto, kernels or graph refused");
    /* the splitting steps as one persistent kernel (split_persist.cu): Jacobi-CG Chronopoulos-Gear, a model
     * of at most HS_CUDA_SPLIT_PERSIST_MAX_VARS variables; the plan then runs the persistent CG */
    o.model_prm.n_vars = HS_CUDA_SPLIT_PERSIST_MAX_VARS;
    HS_TEST_CHECK(!hs_cuda_scheme_refusal(&o, HS_STEP_PERSISTENT) && !hs_cuda_split_persist_refusal(&o),
                  "splitting: the persistent kernel refused: %s", hs_cuda_split_persist_refusal(&o));
    o.model_prm.n_vars = HS_CUDA_SPLIT_PERSIST_MAX_VARS + 1;
    HS_TEST_CHECK(hs_cuda_scheme_refusal(&o, HS_STEP_PERSISTENT) != NULL, "splitting: a model of %d variables in the "
                  "persistent kernel accepted", o.model_prm.n_vars);
    o.model_prm.n_vars = 1;
    o.cg.variant = HS_CG_CLASSIC;
    HS_TEST_CHECK(hs_cuda_scheme_refusal(&o, HS_STEP_PERSISTENT) != NULL, "splitting: the persistent kernel with "
                  "classic CG accepted");
    o.cg.variant = HS_CG_CHRONOPOULOS;
    o.pc.precond = HS_PRECOND_FSAI;
    HS_TEST_CHECK(hs_cuda_scheme_refusal(&o, HS_STEP_PERSISTENT) != NULL, "splitting: the persistent kernel with "
                  "FSAI-PCG accepted");
    o.pc.precond = HS_PRECOND_JACOBI;
    hs_exec_plan p = rules(&o, HS_STEP_PERSISTENT, AUTO, NULL, 1030301);
    HS_TEST_CHECK(p.step == HS_STEP_PERSISTENT && p.persistent_cg == 1, "splitting, persistent named, 1M rows: %s, "
                  "persistent CG %d", hs_step_mode_name(p.step), p.persistent_cg);
    p = rules(&o, HS_STEP_AUTO, AUTO, NULL, 50653);
    HS_TEST_CHECK(p.step == HS_STEP_PERSISTENT && p.why_step[0] && p.persistent_cg == 1 && p.values == HS_VALUES_F32,
                  "splitting, all auto, 50653 rows: %s, persistent %d, %s", hs_step_mode_name(p.step), p.persistent_cg,
                  hs_matrix_values_name(p.values));
    p = rules(&o, HS_STEP_AUTO, AUTO, NULL, 1030301);
    HS_TEST_CHECK(p.step == HS_STEP_GRAPH && p.persistent_cg == 0, "splitting, all auto, 1M rows: %s, persistent %d",
                  hs_step_mode_name(p.step), p.persistent_cg);
    p = rules(&o, HS_STEP_KERNELS, AUTO, NULL, 50653);
    HS_TEST_CHECK(p.step == HS_STEP_KERNELS && !p.why_step[0], "splitting, kernels named: %s",
                  hs_step_mode_name(p.step));
    /* the Newton scheme refuses nothing here */
    o.scheme.kind = HS_SCHEME_NEWTON;
    HS_TEST_CHECK(!hs_cuda_scheme_refusal(&o, HS_STEP_GRAPH) && !hs_cuda_scheme_refusal(&o, HS_STEP_PERSISTENT),
                  "newton: a step mode refused");
}

/* the cpu backend's policy through its registry entry: the host loop, no persistent CG, float64 and
 * csr_scalar for "auto"; named values and kernels kept */
static void cpu_policy(void)
{
    const hs_backend_entry *cpu = hs_backends_find("cpu");
    HS_TEST_CHECK(cpu && cpu->resolve_plan, "no cpu backend policy");
    if (!cpu || !cpu->resolve_plan) return;
    const hs_problem_opts o = defaults();
    hs_csr *pat = NULL;
    const int32_t tet[4] = {0, 1, 2, 3};
    HS_TEST_OK(hs_csr_from_tets(4, 1, tet, &pat));
    if (!pat) return;
    for (int s = -1; s < (int)hs_step_modes()->count; ++s) {
        hs_exec_plan p = hs_exec_plan_request((hs_step_mode)s, HS_PERSISTENT_AUTO, HS_VALUES_AUTO, NULL);
        HS_TEST_OK(cpu->resolve_plan(pat, &o, &p));
        HS_TEST_CHECK(hs_exec_plan_resolved(&p) && p.step == HS_STEP_KERNELS && p.persistent_cg == 0 &&
                          p.values == HS_VALUES_F64 && p.spmv == &hs_spmv_ops_csr_scalar,
                      "cpu, step %s asked: step %s, persistent %d, %s, %s", hs_step_mode_name((hs_step_mode)s),
                      hs_step_mode_name(p.step), p.persistent_cg, hs_matrix_values_name(p.values),
                      p.spmv ? p.spmv->name : "no kernel");
        HS_TEST_CHECK((p.why_step[0] != 0) == (s != HS_STEP_KERNELS) && p.why_values[0] && p.why_spmv[0],
                      "cpu, step %s asked: reasons", hs_step_mode_name((hs_step_mode)s));
    }
    const hs_spmv_ops *k = hs_spmv_find("csr_vector");
    hs_exec_plan p = hs_exec_plan_request(HS_STEP_KERNELS, 0, HS_VALUES_F32, k);
    HS_TEST_OK(cpu->resolve_plan(pat, &o, &p));
    HS_TEST_CHECK(p.values == HS_VALUES_F32 && p.spmv == k && !p.why_values[0] && !p.why_spmv[0],
                  "cpu: named choices changed");
    hs_csr_destroy(&pat);
}

/* hs_sim_create resolves the spec's plan once and hands it to the backend in the problem's options;
 * a named kernel with a precision it does not store is refused there, naming the key */
static void sim_plan(void)
{
    static hs_sim_spec spec;
    hs_test_spec_defaults(&spec);
    spec.mesh.box = (hs_box_params){.lx = 1.0, .ly = 1.0, .lz = 1.0, .h = 0.5};
    spec.output_enabled = 0;
    spec.step = HS_STEP_AUTO;
    hs_sim sim;
    HS_TEST_OK(hs_sim_create(&spec, &sim));
    if (sim.prob) {
        const hs_exec_plan *p = &sim.prob->opt.exec;
        HS_TEST_CHECK(hs_exec_plan_resolved(p) && p->step == HS_STEP_KERNELS && p->spmv == &hs_spmv_ops_csr_scalar &&
                          p->values == HS_VALUES_F64,
                      "the cpu run's plan: %s, %s, %s", hs_step_mode_name(p->step), p->spmv ? p->spmv->name : "-",
                      hs_matrix_values_name(p->values));
    }
    hs_sim_destroy(&sim);
    const hs_spmv_ops *f64_only = NULL;
    for (int f = 0; f < hs_spmv_count() && !f64_only; ++f)
        if (!hs_spmv_get(f)->needs_device && !hs_spmv_get(f)->apply_ref_f32) f64_only = hs_spmv_get(f);
    if (f64_only) {
        spec.spmv = f64_only;
        spec.matrix_values = HS_VALUES_F32;
        hs_error_clear();
        HS_TEST_CHECK(hs_sim_create(&spec, &sim) == HS_ERR_CONFIG && strstr(hs_error_message(), "solver.matrix_values"),
                      "%s with float32 values: %s", f64_only->name, hs_error_message());
        hs_error_clear();
    }
}

/* a device whose persistent CG holds fewer rows at one thread each than HS_CUDA_PERSISTENT_CG_AUTO_ROWS
 * (an H100 or H200: 132 x 1024): auto stops there for the Newton step and the persistent CG, with the
 * numbers in the reason; the splitting scheme's persistent step keeps its own limit */
static void cuda_device_rows(void)
{
    const int AUTO = HS_PERSISTENT_AUTO;
    const int32_t lim = 135168;
    HS_TEST_CHECK(hs_cuda_persistent_auto_rows(0) == HS_CUDA_PERSISTENT_CG_AUTO_ROWS &&
                      hs_cuda_persistent_auto_rows(lim) == lim &&
                      hs_cuda_persistent_auto_rows(4 * (int64_t)HS_CUDA_PERSISTENT_CG_AUTO_ROWS) ==
                          HS_CUDA_PERSISTENT_CG_AUTO_ROWS,
                  "hs_cuda_persistent_auto_rows");
    hs_problem_opts o = defaults();
    dev_rows = lim;
    expect(&o, AUTO, 132651, HS_STEP_PERSISTENT, "a device of 135168 rows, 132651");
    expect(&o, AUTO, lim, HS_STEP_PERSISTENT, "a device of 135168 rows, at it");
    expect(&o, AUTO, lim + 1, HS_STEP_GRAPH, "a device of 135168 rows, above it");
    expect(&o, AUTO, rows_limit, HS_STEP_GRAPH, "a device of 135168 rows, 262144");
    const char *why = NULL;
    hs_cuda_step_auto(&o, AUTO, 157464, lim, &why);
    HS_TEST_CHECK(why && strstr(why, "157464") && strstr(why, "135168"), "the reason names the rows: %s", why);
    hs_exec_plan p = rules(&o, HS_STEP_GRAPH, AUTO, NULL, 157464);
    HS_TEST_CHECK(p.persistent_cg == 0 && strstr(p.why_persistent, "135168"), "graph at 157464 rows: persistent %d (%s)",
                  p.persistent_cg, p.why_persistent);
    p = rules(&o, HS_STEP_GRAPH, AUTO, NULL, 97336);
    HS_TEST_CHECK(p.persistent_cg == 1, "graph at 97336 rows: persistent %d (%s)", p.persistent_cg, p.why_persistent);
    p = rules(&o, HS_STEP_GRAPH, 1, NULL, 1030301);
    HS_TEST_CHECK(p.persistent_cg == 1, "persistent on at 1M, a device of 135168 rows: %d", p.persistent_cg);
    o.scheme = hs_scheme_opts_newton();
    o.scheme.kind = HS_SCHEME_SPLITTING;
    o.graph = 1;
    o.model_prm.n_vars = 1;
    expect(&o, AUTO, HS_CUDA_SPLIT_PERSIST_AUTO_ROWS, HS_STEP_PERSISTENT, "splitting, a device of 135168 rows");
    dev_rows = 0;
}

int main(void)
{
    hs_verbosity = 0;
    cuda_step();
    cuda_rules();
    cuda_splitting();
    cuda_device_rows();
    cpu_policy();
    sim_plan();
    HS_TEST_RETURN();
}
