/* `heartsim cell CONFIG` (hs_cell_cmd.h). */
#include "hs_cell_cmd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_atomic_file.h"
#include "hs_cell.h"
#include "hs_plot.h"
#include "hs_series.h"
#include "hs_spec.h"
#include "hs_splitting.h"
#include "hs_util.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The distinct pulse starts of every entry before t_end, ascending: one beat each. */
static hs_status pulse_starts(const hs_sim_spec *s, double **out, int *n_out)
{
    int n = 0;
    for (int k = 0; k < s->n_stimuli; ++k) n += s->stimuli[k].count > 1 ? s->stimuli[k].count : 1;
    double *t = NULL;
    HS_CALL(HS_ALLOC(t, n > 0 ? n : 1, "pulse starts"));
    n = 0;
    for (int k = 0; k < s->n_stimuli; ++k)
        for (int p = 0; p < (s->stimuli[k].count > 1 ? s->stimuli[k].count : 1); ++p) {
            double t0 = hs_stim_pulse_start(&s->stimuli[k], p);
            if (t0 < s->t_end) t[n++] = t0;
        }
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    int m = 0;
    for (int i = 0; i < n; ++i)
        if (m == 0 || t[i] > t[m - 1] + 1e-9) t[m++] = t[i];
    *out = t;
    *n_out = m;
    return HS_OK;
}

static void out_path(const hs_config *cfg, const char *suffix, char *buf, size_t n)
{
    size_t dl = strlen(cfg->out_dir);
    snprintf(buf, n, "%s%s%s_%s", cfg->out_dir, dl && cfg->out_dir[dl - 1] != '/' ? "/" : "", cfg->out_prefix,
             suffix);
}

hs_status hs_cell_command(const hs_config *cfg, FILE *out)
{
    hs_status st = HS_OK;
    static hs_sim_spec spec;
    HS_CALL(hs_spec_from_config(cfg, &spec));
    const hs_model *m = spec.model;
    const int nv = m->n_vars, ncol = 2 + nv; /* per row: t, V, then the variables (u is V's preimage) */
    const double T = spec.time_unit, dt = spec.dt;
    const long n_steps = (long)ceil(spec.t_end / dt - 1e-9);
    HS_CHECK(spec.n_stimuli > 0, HS_ERR_CONFIG,
             "%s: heartsim cell needs at least one stimulus entry (its start, duration, strength, period and count "
             "pace the cell; its site is not used)", cfg->path[0] ? cfg->path : "config");
    HS_CALL(hs_output_dir_check(cfg->out_dir));

    double *rows = NULL, *tt = NULL, *vv = NULL, *starts = NULL;
    hs_cell_beat *beats = NULL;
    hs_atomic_file *f = NULL;
    int n_starts = 0;
    HS_CALL_GOTO(HS_ALLOC(rows, (size_t)(n_steps + 1) * (size_t)ncol, "cell trace"), done);
    HS_CALL_GOTO(HS_ALLOC(tt, (size_t)n_steps + 1, "cell trace"), done);
    HS_CALL_GOTO(HS_ALLOC(vv, (size_t)n_steps + 1, "cell trace"), done);

    double u = m->potential_rest, s[HS_MODEL_MAX_VARS];
    for (int k = 0; k < nv; ++k) s[k] = m->vars[k].initial;
    for (long k = 0; k <= n_steps; ++k) {
        double t0 = k * dt;
        double *r = rows + (size_t)k * (size_t)ncol;
        r[0] = t0, r[1] = u;
        for (int q = 0; q < nv; ++q) r[2 + q] = s[q];
        tt[k] = t0;
        vv[k] = m->mv_scale * u + m->mv_offset;
        if (k == n_steps) break;
        if (spec.scheme.kind == HS_SCHEME_SPLITTING) { /* the tissue's reaction(s) of a step, without diffusion */
            const int halves = spec.scheme.order == HS_SPLIT_STRANG ? 2 : 1;
            for (int q = 0; q < halves && st == HS_OK; ++q) {
                const double ta = t0 + q * dt / halves, tb = q + 1 == halves ? t0 + dt : t0 + (q + 1) * dt / halves;
                double amp = 0.0;
                for (int j = 0; j < spec.n_stimuli; ++j) amp += hs_stim_site_amplitude(&spec.stimuli[j], ta, tb);
                const int n_sub = hs_split_substeps(&spec.scheme, tb - ta);
                if (hs_cell_react(&spec.model_prm, (tb - ta) / T, n_sub, amp * T, &u, s) != 0)
                    st = HS_FAIL(HS_ERR_NUMERIC,
                                 "cell: the splitting reaction at t = %g ms became non-finite (model %s, %d substeps of "
                                 "%g ms); lower solver.dt_ode or time.dt", ta, m->name, n_sub, (tb - ta) / n_sub);
            }
            if (st != HS_OK) goto done;
            continue;
        }
        double amp = 0.0;
        for (int q = 0; q < spec.n_stimuli; ++q) amp += hs_stim_site_amplitude(&spec.stimuli[q], t0, t0 + dt);
        hs_cell_newton nw = {.tol_residual = spec.newton_tol_residual, .tol_update = spec.newton_tol_update,
                             .max_iter = spec.newton_max_iter};
        if (hs_cell_step(&spec.model_prm, dt / T, amp * T, &u, s, &nw) != 0) {
            st = HS_FAIL(HS_ERR_NUMERIC,
                         "cell: the step at t = %g ms did not converge (model %s, u = %g, %d Newton iterations, last "
                         "residual %.3e); lower time.dt (this model's tangent bound is %g ms)", t0, m->name, u,
                         nw.iters, nw.n_hist ? nw.res_hist[nw.n_hist - 1] : NAN, m->dt_max(spec.model_prm.v) * T);
            goto done;
        }
    }

    /* the CSV: every step */
    char path[HS_PATH_MAX + 96];
    out_path(cfg, "cell.csv", path, sizeof path);
    HS_CALL_GOTO(hs_atomic_file_create(path, "cell trace", &f), done);
    HS_CALL_GOTO(hs_atomic_file_printf(f, "t_ms,V_mV,%s", m->potential_name), done);
    for (int q = 0; q < nv; ++q) HS_CALL_GOTO(hs_atomic_file_printf(f, ",%s", m->vars[q].name), done);
    HS_CALL_GOTO(hs_atomic_file_printf(f, "\n"), done);
    for (long k = 0; k <= n_steps; ++k) {
        const double *r = rows + (size_t)k * (size_t)ncol;
        HS_CALL_GOTO(hs_atomic_file_printf(f, "%.10g,%.10g,%.10g", r[0], vv[k], r[1]), done);
        for (int q = 0; q < nv; ++q) HS_CALL_GOTO(hs_atomic_file_printf(f, ",%.10g", r[2 + q]), done);
        HS_CALL_GOTO(hs_atomic_file_printf(f, "\n"), done);
    }
    HS_CALL_GOTO(hs_atomic_file_commit(&f), done);
    if (spec.scheme.kind == HS_SCHEME_SPLITTING)
        fprintf(out, "cell: %s%s%s%s, scheme splitting (%s, reaction substeps of at most %g ms), dt %g ms, %ld steps to %g ms\n",
                m->name, cfg->model_preset[0] ? " (preset " : "", cfg->model_preset, cfg->model_preset[0] ? ")" : "",
                hs_split_order_name(spec.scheme.order), spec.scheme.dt_ode_ms > 0.0 ? spec.scheme.dt_ode_ms : dt, dt,
                n_steps, n_steps * dt);
    else
        fprintf(out, "cell: %s%s%s%s, gates %s, dt %g ms, %ld steps to %g ms\n", m->name, cfg->model_preset[0] ? " (preset " : "",
                cfg->model_preset, cfg->model_preset[0] ? ")" : "", m->has_gates ? (cfg->model_gates ? "rush_larsen" : "newton") : "-",
                dt, n_steps, n_steps * dt);
    fprintf(out, "wrote %s\n", path);

    /* the plot */
    char title[128];
    snprintf(title, sizeof title, "%s%s%s", m->name, cfg->model_preset[0] ? " " : "", cfg->model_preset);
    hs_plot_series ser = {tt, vv, n_steps + 1, NULL};
    hs_plot_opts po;
    memset(&po, 0, sizeof po);
    po.title = title, po.xlabel = "t (ms)", po.ylabel = "V (mV)";
    out_path(cfg, "cell.png", path, sizeof path);
    HS_CALL_GOTO(hs_plot_png(path, &po, &ser, 1, NULL), done);
    fprintf(out, "wrote %s\n", path);

    /* beats */
    HS_CALL_GOTO(pulse_starts(&spec, &starts, &n_starts), done);
    HS_CALL_GOTO(HS_ALLOC(beats, n_starts > 0 ? n_starts : 1, "beats"), done);
    /* an action potential rises at least 10% of the model's mV scale (10 mV for the 0..1 models) */
    hs_cell_beats(tt, vv, n_steps + 1, starts, n_starts, 0.1 * m->mv_scale, beats);
    fprintf(out, "beat  stimulus (ms)  activation (ms)  APD90 (ms)  peak (mV)\n");
    for (int b = 0; b < n_starts; ++b) {
        const hs_cell_beat *o = &beats[b];
        if (o->t_act < 0.0) {
            fprintf(out, "%4d  %13.3f  no action potential (peak %.2f mV, rest %.2f mV)\n", b + 1, o->t_start, o->peak,
                    o->v_rest);
        } else if (o->apd90 < 0.0) {
            fprintf(out, "%4d  %13.3f  %15.3f  %10s  %9.2f  (not repolarised by time.t_end)\n", b + 1, o->t_start,
                    o->t_act, "-", o->peak);
        } else {
            fprintf(out, "%4d  %13.3f  %15.3f  %10.3f  %9.2f\n", b + 1, o->t_start, o->t_act, o->apd90, o->peak);
        }
    }
    fprintf(out, "APD90: between the upward and the next downward crossing of V = peak - 0.9 (peak - rest), rest "
                 "being V just before the pulse\n");
done:
    hs_atomic_file_destroy(&f);
    free(rows);
    free(tt);
    free(vv);
    free(starts);
    free(beats);
    return st;
}
