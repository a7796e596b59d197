/* The global Newton iteration of one backward-Euler step (seed 002 Table 1), backend-agnostic. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hs_backend.h"
#include "hs_util.h"

static void history_text(const hs_step_stats *s, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int k = 0; k < s->n_hist && o < len; ++k)
        o += (size_t)snprintf(buf + o, len - o, "%s%.2e", k ? ", " : "", s->res_hist[k]);
}

hs_status hs_time_step(hs_backend *b, double t_ms, double dt_ms, const double *site_amp_per_ms,
                       hs_step_stats *stats)
{
    const hs_problem *p = b->prob;
    const double T = p->opt.time_unit;
    double amp[256];
    int n_sites = p->stim ? p->stim->n_sites : 0;
    HS_CHECK(n_sites <= 256, HS_ERR_INTERNAL, "too many stimulus sites (%d)", n_sites);
    for (int k = 0; k < n_sites; ++k) amp[k] = site_amp_per_ms[k] * T; /* per model time unit */
    memset(stats, 0, sizeof *stats);

    HS_CALL(b->ops->begin_step(b, dt_ms / T, amp));
    double upd = INFINITY, res = 0.0;
    int32_t node = 0;
    hs_status st = HS_OK;
    char hist[512];
    if (p->opt.exec.step != HS_STEP_KERNELS && b->ops->newton_device) {
        /* the whole Newton loop on the device (solver.step = "graph" or "persistent"): the same
         * tests, reported here with the host loop's words */
        hs_newton_out o;
        memset(&o, 0, sizeof o);
        st = b->ops->newton_device(b, &o);
        stats->newton_iters = o.solves;
        stats->cg_iters = o.cg_iters;
        stats->cg_iters_max = o.cg_iters_max;
        stats->n_hist = o.n_hist < 32 ? o.n_hist : 32;
        memcpy(stats->res_hist, o.res_hist, sizeof(double) * (size_t)stats->n_hist);
        stats->res_norm = o.res;
        if (st != HS_OK) { /* the record itself, so an error the ranks agreed on stays marked agreed */
            hs_error_prefix("at t = %.4g ms (step to %.4g ms), Newton iteration %d: ", t_ms, t_ms + dt_ms, o.k);
            goto fail;
        }
        if (o.stop == HS_NEWTON_NONFINITE) {
            st = HS_FAIL(HS_ERR_NUMERIC,
                         "Newton: non-finite residual at t = %.4g ms (step to %.4g ms), iteration %d, "
                         "first at node %d; the last update was %.3e. Reduce time.dt",
                         t_ms, t_ms + dt_ms, o.k, o.res_node, o.upd);
            goto fail;
        }
        if (o.stop == HS_NEWTON_MAXIT) {
            history_text(stats, hist, sizeof hist);
            st = HS_FAIL(HS_ERR_NUMERIC,
                         "Newton did not converge at t = %.4g ms (step to %.4g ms) in %d iterations: "
                         "residual %.3e (solver.newton_tol_residual %.1e), last update %.3e "
                         "(solver.newton_tol_update %.1e), largest residual at node %d; residual "
                         "history %s. Reduce time.dt or raise solver.newton_max_iter",
                         t_ms, t_ms + dt_ms, o.k, o.res, p->opt.newton_tol_residual, o.upd,
                         p->opt.newton_tol_update, o.res_node, hist);
            goto fail;
        }
        if (o.stop == HS_NEWTON_CG) {
            st = HS_FAIL(HS_ERR_NUMERIC,
                         "CG %s at t = %.4g ms (step to %.4g ms), Newton iteration %d: relative "
                         "residual %.3e after %d iterations (solver.cg_tol %.1e, solver.cg_max_iter "
                         "%d); Newton residual %.3e, largest at node %d%s",
                         hs_cg_outcome_name(o.cg.outcome), t_ms, t_ms + dt_ms, o.k + 1, o.cg.rel_res,
                         o.cg.iters, p->opt.cg.tol, p->opt.cg.max_iter, o.res_before, o.node_before,
                         o.cg.outcome == HS_CG_BREAKDOWN ? ". Reduce time.dt" : "");
            goto fail;
        }
        return b->ops->end_step(b, t_ms, dt_ms);
    }
    st = b->ops->assemble(b, &res, &node);
    for (int k = 0;; ++k) {
        if (st != HS_OK) { /* name the step and the iteration in the element pass's message (prefixed: an
                            * error the ranks agreed on stays marked agreed, hs_error_mark_agreed) */
            hs_error_prefix("at t = %.4g ms (step to %.4g ms), Newton iteration %d: ", t_ms, t_ms + dt_ms, k);
            goto fail;
        }
        if (stats->n_hist < 32) stats->res_hist[stats->n_hist++] = res;
        stats->res_norm = res;
        if (!isfinite(res)) {
            st = HS_FAIL(HS_ERR_NUMERIC,
                         "Newton: non-finite residual at t = %.4g ms (step to %.4g ms), iteration %d, "
                         "first at node %d; the last update was %.3e. Reduce time.dt",
                         t_ms, t_ms + dt_ms, k, node, upd);
            goto fail;
        }
        if (res <= p->opt.newton_tol_residual && (k == 0 || upd <= p->opt.newton_tol_update)) break;
        if (k == p->opt.newton_max_iter) {
            history_text(stats, hist, sizeof hist);
            st = HS_FAIL(HS_ERR_NUMERIC,
                         "Newton did not converge at t = %.4g ms (step to %.4g ms) in %d iterations: "
                         "residual %.3e (solver.newton_tol_residual %.1e), last update %.3e "
                         "(solver.newton_tol_update %.1e), largest residual at node %d; residual "
                         "history %s. Reduce time.dt or raise solver.newton_max_iter",
                         t_ms, t_ms + dt_ms, k, res, p->opt.newton_tol_residual, upd,
                         p->opt.newton_tol_update, node, hist);
            goto fail;
        }
        hs_cg_result cg;
        double res_before = res;
        int32_t node_before = node;
        hs_status ast = HS_OK; /* the assembly at the new iterate */
        if (b->ops->iterate) {
            ast = b->ops->iterate(b, &cg, &upd, &res, &node);
        } else {
            HS_CALL_GOTO(b->ops->solve(b, &cg, &upd), fail);
            if (cg.outcome == HS_CG_CONVERGED) ast = b->ops->assemble(b, &res, &node);
        }
        stats->newton_iters++;
        stats->cg_iters += cg.iters;
        if (cg.iters > stats->cg_iters_max) stats->cg_iters_max = cg.iters;
        if (cg.outcome != HS_CG_CONVERGED) {
            hs_error_clear(); /* an assembly after a failed solve means nothing */
            st = HS_FAIL(HS_ERR_NUMERIC,
                         "CG %s at t = %.4g ms (step to %.4g ms), Newton iteration %d: relative "
                         "residual %.3e after %d iterations (solver.cg_tol %.1e, solver.cg_max_iter "
                         "%d); Newton residual %.3e, largest at node %d%s",
                         hs_cg_outcome_name(cg.outcome), t_ms, t_ms + dt_ms, k + 1, cg.rel_res,
                         cg.iters, p->opt.cg.tol, p->opt.cg.max_iter, res_before, node_before,
                         cg.outcome == HS_CG_BREAKDOWN ? ". Reduce time.dt" : "");
            goto fail;
        }
        st = ast;
    }
    return b->ops->end_step(b, t_ms, dt_ms);
fail:
    b->ops->restore_step(b);
    return st;
}
