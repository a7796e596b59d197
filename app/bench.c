#include "hs_bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_backend_diag.h"
#include "hs_build_config.h"
#include "hs_cuda_policy.h" /* the cuda backend's policy: what its persistent step runs */
#include "hs_frame_writer.h"
#include "hs_models.h"
#include "hs_spec.h"
#include "hs_util.h"
#include "hs_series.h"

typedef struct bench_row {
    char backend[256];
    hs_phase_bench pb;
    double step;       /* median wall time of a whole time step */
    double step_other; /* the same with the other solver.step (NAN: the backend has one way only) */
    hs_step_mode step_mode;  /* the run's solver.step (auto resolved) */
    hs_step_mode other_mode; /* the one step_other measured: kernels or graph */
    double step_launch; /* the same with solver.step = persistent's whole-step launches (NAN: not measured) */
    int launch_len;    /* steps per launch there */
    double newton, cg; /* per step, over the measured steps */
    double frame;      /* median time to fetch and write one frame */
    int splitting;     /* solver.scheme = splitting: the phases are the reaction and the diffusion's start */
    int32_t nodes, elems, nnz;
} bench_row;

/* @p model: NULL for the configured model, else that model with its defaults (dt lowered to half its
 * tangent bound where the configured one is above) and no frame output: the --models table. */
static hs_status bench_backend(const hs_config *cfg, const char *backend, int reps, double warm_ms,
                               const hs_model *model, bench_row *row)
{
    static hs_sim_spec spec; /* large (paths): not on the stack */
    HS_CALL(hs_spec_from_config(cfg, &spec));
    HS_CALL(hs_backends_lookup("solver.backend", backend, &spec.backend));
    if (model) {
        spec.model = model;
        hs_model_params_defaults(model, &spec.model_prm);
        /* solver.scheme = "auto" was resolved for the config's model: resolve it again for this one
         * (a model with the nodal form only runs the splitting scheme) */
        if (!strcmp(cfg->scheme, "auto")) spec.scheme.kind = hs_scheme_auto(model->schemes);
        spec.time_unit = model->time_unit_default;
        spec.dt = fmin(spec.dt, 0.5 * model->dt_max(spec.model_prm.v) * spec.time_unit);
        spec.output_enabled = 0;
    }
    hs_sim sim;
    HS_CALL(hs_sim_create(&spec, &sim));
    hs_status st = HS_OK;
    double *amp = NULL, *steps = NULL;
    hs_state state = {0};
    hs_series *ser = NULL;
    double *runs = NULL;
    hs_step_stats *lstats = NULL;
    snprintf(row->backend, sizeof row->backend, "%s", sim.backend->description);
    row->nodes = sim.mesh->n_nodes;
    row->elems = sim.mesh->n_elems;
    row->nnz = sim.prob->pattern->nnz;
    int nsteps_meas = reps < 5 ? 5 : reps;
    HS_CALL_GOTO(HS_ALLOC(amp, sim.stim->n_sites + 1, "stimulus amplitudes"), done);
    HS_CALL_GOTO(HS_ALLOC(steps, nsteps_meas, "step timings"), done);
    HS_CHECK_GOTO(sim.backend->diag && sim.backend->diag->bench, done, HS_ERR_CONFIG,
                  "the %s backend has no phase benchmark", sim.backend->ops->name);
    long k = 0;
    hs_step_stats ss;
    const double dt = spec.dt;
    for (; k * dt < warm_ms - 1e-9; ++k) HS_CALL_GOTO(hs_sim_step(&sim, k * dt, dt, &ss), done);
    long newton = 0, cg = 0;
    for (int q = 0; q < nsteps_meas; ++q, ++k) {
        double w0 = hs_wtime();
        HS_CALL_GOTO(hs_sim_step(&sim, k * dt, dt, &ss), done);
        steps[q] = hs_wtime() - w0;
        newton += ss.newton_iters;
        cg += ss.cg_iters;
    }
    row->step = hs_median(steps, nsteps_meas);
    row->newton = (double)newton / nsteps_meas;
    row->cg = (double)cg / nsteps_meas;
    /* the other solver.step beside it (the backend reads the option at every step): kernels beside
     * graph, graph beside kernels or persistent (Jacobi-CG only: the device's Newton loops run it) */
    hs_exec_plan *plan = &sim.prob->opt.exec;
    row->step_mode = plan->step;
    row->step_other = NAN;
    /* the splitting scheme: one way to run a step, and its own phases (the cuda backend's bench; the cpu
     * backend times the reaction only) */
    row->splitting = sim.prob->opt.scheme.kind == HS_SCHEME_SPLITTING;
    row->other_mode = row->step_mode == HS_STEP_GRAPH ? HS_STEP_KERNELS : HS_STEP_GRAPH;
    const hs_precond_opts *pc = &sim.prob->opt.pc;
    if (!row->splitting && sim.backend->ops->newton_device && (row->other_mode == HS_STEP_KERNELS ||
                                            (pc->precond == HS_PRECOND_JACOBI && pc->krylov == HS_KRYLOV_CG))) {
        plan->step = row->other_mode;
        for (int q = 0; q < 2; ++q, ++k) HS_CALL_GOTO(hs_sim_step(&sim, k * dt, dt, &ss), done); /* capture */
        for (int q = 0; q < nsteps_meas; ++q, ++k) {
            double w0 = hs_wtime();
            HS_CALL_GOTO(hs_sim_step(&sim, k * dt, dt, &ss), done);
            steps[q] = hs_wtime() - w0;
        }
        row->step_other = hs_median(steps, nsteps_meas);
        plan->step = row->step_mode;
    }
    /* solver.step = persistent as a run launches it: the steps up to the next frame (or 100 without
     * output) per launch, when this configuration has it (what config_validate.c asks of it) */
    row->step_launch = NAN;
    if (sim.backend->ops->steps_device &&
        !hs_cuda_step_persistent_refusal(&sim.prob->opt, spec.persistent, sim.prob->pattern->n_rows, 0)) {
        const int len = spec.output_enabled && spec.out_interval > 0.0 ? (int)lround(spec.out_interval / dt) : 100;
        row->launch_len = len < 1 ? 1 : len > HS_STEPS_DEVICE_MAX ? HS_STEPS_DEVICE_MAX : len;
        HS_CALL_GOTO(HS_ALLOC(runs, nsteps_meas, "step timings"), done);
        HS_CALL_GOTO(HS_ALLOC(lstats, row->launch_len, "step statistics"), done);
        plan->step = HS_STEP_PERSISTENT;
        for (int q = -1; q < nsteps_meas; ++q) { /* q = -1: the first launch sets up the kernel */
            double w0 = hs_wtime();
            int done_n = 0;
            HS_CALL_GOTO(hs_sim_steps(&sim, k, dt, row->launch_len, &done_n, lstats), done);
            k += done_n;
            if (done_n < row->launch_len) { /* that step again on the one-step path, as a run does */
                HS_CALL_GOTO(hs_sim_step(&sim, k * dt, dt, &ss), done);
                ++k;
                ++done_n;
            }
            if (q >= 0) runs[q] = (hs_wtime() - w0) / done_n;
        }
        row->step_launch = hs_median(runs, nsteps_meas);
        plan->step = row->step_mode;
    }
    double res;
    int32_t node;
    if (!row->splitting) {
        HS_CALL_GOTO(sim.backend->ops->begin_step(sim.backend, dt / spec.time_unit, amp), done);
        HS_CALL_GOTO(sim.backend->ops->assemble(sim.backend, &res, &node), done);
    }
    /* under splitting the cpu backend times the reaction only (its other phases NaN) */
    HS_CALL_GOTO(sim.backend->diag->bench(sim.backend, reps, &row->pb), done);
    /* one frame in output.format: fetch from the backend and write, median of 3 (the run overlaps
     * both with the time loop: sim/run_output.c hs_run_output_frame) */
    row->frame = NAN;
    if (spec.output_enabled) {
        char dir[HS_PATH_MAX + 16];
        snprintf(dir, sizeof dir, "%s/bench", spec.out_dir);
        HS_CALL_GOTO(hs_state_create(&sim.backend->state, &state), done);
        HS_CALL_GOTO(hs_series_create(spec.out_format, dir, backend, &ser), done);
        hs_frame_plan plan = hs_sim_frame_plan(&spec, &sim);
        double ft[3];
        for (int q = 0; q < 3; ++q) {
            double w0 = hs_wtime();
            HS_CALL_GOTO(sim.backend->ops->get_state(sim.backend, &state), done);
            hs_frame fr;
            hs_frame_plan_frame(&plan, &state, k * dt, &fr);
            HS_CALL_GOTO(hs_series_write(ser, sim.mesh, &fr), done);
            ft[q] = hs_wtime() - w0;
        }
        row->frame = hs_median(ft, 3);
    }
done:
    hs_series_destroy(&ser);
    free(amp);
    free(steps);
    free(runs);
    free(lstats);
    hs_state_destroy(&state);
    hs_sim_destroy(&sim);
    return st;
}

static void print_row(const bench_row *b, double out_interval, double dt)
{
    const hs_phase_bench *p = &b->pb;
    printf("\nbackend: %s\n", b->backend);
    printf("mesh: %d nodes, %d tets, %d nonzeros; copy bandwidth %.1f GB/s (%d repetitions, medians)\n",
           b->nodes, b->elems, b->nnz, p->copy_bw / 1e9, p->reps);
    printf("| %-22s | %12s | %10s | %12s | %8s | %10s |\n", "phase", "median (us)", "MB moved", "floor (us)",
           "x floor", "eff. GB/s");
    printf("|%s|%s|%s|%s|%s|%s|\n", "------------------------", "--------------", "------------",
           "--------------", "----------", "------------");
    struct { const char *name; double t, bytes; } rows[] = {
        {b->splitting ? "reaction (nodal ODE)" : "element", p->element, p->bytes_element},
        {b->splitting ? "diffusion start" : "assembly (K, R, diag)", p->assembly, p->bytes_assembly},
        {"SpMV", p->spmv, p->bytes_spmv},
        {"CG iteration", p->cg_iter, p->bytes_cg_iter},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
        if (!isfinite(rows[i].t)) continue; /* not measured (the cpu backend under splitting) */
        double floor_t = rows[i].bytes / p->copy_bw;
        printf("| %-22s | %12.1f | %10.1f | %12.1f | %8.2f | %10.1f |\n", rows[i].name, 1e6 * rows[i].t,
               rows[i].bytes / 1e6, 1e6 * floor_t, rows[i].t / floor_t, rows[i].bytes / rows[i].t / 1e9);
    }
    if (isfinite(p->naive_cg_iter)) {
        double floor_t = p->bytes_cg_iter / p->copy_bw;
        printf("| %-22s | %12.1f | %10.1f | %12.1f | %8.2f | %10.1f |\n", "CG iter, naive baseline", 1e6 * p->naive_cg_iter,
               p->bytes_cg_iter / 1e6, 1e6 * floor_t, p->naive_cg_iter / floor_t, p->bytes_cg_iter / p->naive_cg_iter / 1e9);
        printf("  (naive: cusparseSpMV + cuBLAS with host-side scalars; heartsim's iteration is %.2fx faster)\n",
               p->naive_cg_iter / p->cg_iter);
    }
    printf("| %-22s | %12.1f | %10s | %12s | %8s | %10s |\n", "time step", 1e6 * b->step, "-", "-", "-", "-");
    if (b->splitting)
        printf("  (a step: solver.scheme = splitting, %.1f CG iterations of its diffusion solve; the reaction's bytes are "
               "the state read and written once, the diffusion start's r0 = (B - A) u*, B u* and their norms)\n", b->cg);
    else
        printf("  (a step: %.2f Newton iterations, %.1f CG iterations; solver.step = %s, one step per call)\n", b->newton,
               b->cg, hs_step_mode_name(b->step_mode));
    if (isfinite(b->step_other))
        printf("| %-22s | %12.1f | %10s | %12s | %8s | %10s |\n  (the next steps with solver.step = %s: %s)\n",
               "time step, other way", 1e6 * b->step_other, "-", "-", "-", "-", hs_step_mode_name(b->other_mode),
               b->other_mode == HS_STEP_GRAPH ? "the whole Newton loop as one CUDA graph, one synchronisation per step"
                              : "the host runs the Newton loop, one synchronisation per Newton iteration");
    if (isfinite(b->step_launch))
        printf("| %-22s | %12.1f | %10s | %12s | %8s | %10s |\n  (the next steps with solver.step = persistent as a "
               "run launches them: %d steps per cooperative kernel, median over launches)\n",
               "time step, persistent", 1e6 * b->step_launch, "-", "-", "-", "-", b->launch_len);
    if (isfinite(b->step_launch) && isfinite(b->step_other) && b->other_mode == HS_STEP_GRAPH)
        printf("  (persistent against graph at %d rows: %.2fx the time, so it %s here; solver.step = auto takes it up "
               "to %d rows, and no further than the rows the GPU's persistent CG holds at one thread each (the run's "
               "log says): docs/benchmarks.md)\n", b->nodes,
               b->step_launch / b->step_other, b->step_launch < b->step_other ? "pays" : "does not pay",
               HS_CUDA_STEP_PERSISTENT_AUTO_ROWS);
    if (isfinite(b->frame))
        printf("| %-22s | %12.1f | %10s | %12s | %8s | %10s |\n  (fetched and written synchronously; one frame per "
               "%g ms would be %.1f%% of the step time if nothing overlapped: `heartsim run` copies and writes "
               "frames while the device goes on)\n", "output frame", 1e6 * b->frame, "-", "-", "-", "-", out_interval,
               100.0 * b->frame / (b->frame + b->step * out_interval / dt));
}

/* The element phase of every model on one backend, against its floor (the bytes grow with the
 * model's integration-point variables: fem/phase_bytes.c). */
static hs_status print_models(const hs_config *cfg, const char *backend, int reps, double warm_ms)
{
    const int split = !strcmp(cfg->scheme, "splitting"), newton = !strcmp(cfg->scheme, "newton");
    printf("\n%s phase per ionic model (%s backend; each model's defaults, dt = min(time.dt, dt_max/2), "
           "after %g ms from rest):\n", split ? "reaction (nodal ODE)" : newton ? "element" :
           "element (newton) or reaction (splitting: each model's solver.scheme = auto)", backend, warm_ms);
    printf("| %-20s | %4s | %8s | %12s | %10s | %12s | %8s |\n", "model", "vars", "dt (ms)", "median (us)", "MB moved",
           "floor (us)", "x floor");
    printf("|----------------------|------|----------|--------------|------------|--------------|----------|\n");
    for (int i = 0; i < hs_models_count(); ++i) {
        const hs_model *m = hs_models_at(i);
        if (newton && !(m->schemes & HS_MODEL_SCHEME_NEWTON)) continue; /* a model with the nodal form only */
        static bench_row r;
        HS_CALL(bench_backend(cfg, backend, reps, warm_ms, m, &r));
        hs_model_params d;
        hs_model_params_defaults(m, &d);
        double floor_t = r.pb.bytes_element / r.pb.copy_bw;
        printf("| %-20s | %4d | %8.4g | %12.1f | %10.1f | %12.1f | %8.2f |\n", m->name, m->n_vars,
               fmin(cfg->dt, 0.5 * m->dt_max(d.v) * m->time_unit_default), 1e6 * r.pb.element,
               r.pb.bytes_element / 1e6, 1e6 * floor_t, r.pb.element / floor_t);
    }
    return HS_OK;
}

hs_status hs_bench_step(const hs_config *cfg, int reps, double warm_ms, int cpu_too, int models)
{
    bench_row rows[2];
    const char *which[2] = {"cpu", "cpu"};
    int n = 0;
    if (warm_ms > cfg->t_end) warm_ms = cfg->t_end;
#if HS_HAS_CUDA
    const hs_backend_entry *cu = hs_backends_find("cuda");
    char desc[256], why[512];
    if (cu && !cu->probe(desc, sizeof desc, why, sizeof why)) {
        /* said before any mesh is built for it */
        hs_log(1, "bench step: no GPU found (%s); measuring the cpu backend only\n", why);
    } else {
        hs_status st = bench_backend(cfg, "cuda", reps, warm_ms, NULL, &rows[n]);
        if (st == HS_OK) which[n++] = "cuda";
        else if (st == HS_ERR_DEVICE) {
            hs_warn("no cuda measurement: %s", hs_error_message());
            hs_error_clear();
        } else return st;
    }
#endif
    if (cpu_too || n == 0) {
        HS_CALL(bench_backend(cfg, "cpu", reps < 5 ? reps : 5, warm_ms, NULL, &rows[n]));
        which[n++] = "cpu";
    }
    printf("heartsim bench step: %s (h = %g mm, dt = %g ms, spmv %s)\n", cfg->path, cfg->box.h, cfg->dt, cfg->spmv);
    for (int i = 0; i < n; ++i) print_row(&rows[i], cfg->out_interval, cfg->dt);
    for (int i = 0; models && i < n; ++i)
        HS_CALL(print_models(cfg, which[i], strcmp(which[i], "cpu") ? reps : (reps < 5 ? reps : 5), warm_ms));
    return HS_OK;
}
