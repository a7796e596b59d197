/* Diagnostics of the CPU backend (hs_backend_diag.h): the assembled system for tests and the
 * phase benchmarks of `heartsim bench step`. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "hs_splitting.h"
#include "hs_util.h"

static hs_status cpu_get_system(hs_backend *b, double *kval_csr, double *rhs)
{
    cpu_impl *c = b->impl;
    const hs_problem *p = b->prob;
    if (kval_csr) HS_CALL(b->ops->tangent(b));
    if (kval_csr)
        for (int32_t k = 0; k < p->pattern->nnz; ++k)
            kval_csr[k] = c->kval32 ? (double)c->kval32[c->lay->slot_of_nnz[k]] : c->kval[c->lay->slot_of_nnz[k]];
    if (rhs) memcpy(rhs, c->rhs, sizeof(double) * (size_t)p->mesh->n_nodes);
    return HS_OK;
}

/* The splitting scheme's reaction (hs_cpu_react over one dt in its substeps, no stimulus) on the
 * current state, put back after each repetition: the median as the element phase of `bench step
 * --models`, against the bytes of the state read and written once. The other phases are not
 * measured here (NaN): the cuda backend's benchmark times the diffusion. */
static hs_status cpu_bench_react(hs_backend *b, int reps, hs_phase_bench *out)
{
    cpu_impl *c = b->impl;
    const hs_problem *p = b->prob;
    const size_t n = (size_t)p->mesh->n_nodes, nv = (size_t)p->opt.model_prm.n_vars;
    double *save = NULL, *amp = NULL, *t = NULL;
    hs_status st = HS_OK;
    HS_CHECK(c->dt > 0.0, HS_ERR_INTERNAL, "splitting phase benchmark before any step");
    HS_CALL_GOTO(HS_ALLOC(save, n * (1 + nv), "bench state"), done);
    HS_CALL_GOTO(HS_ALLOC(amp, (size_t)p->nodal->n_sites + 1, "bench stimulus"), done);
    HS_CALL_GOTO(HS_ALLOC(t, reps, "bench timings"), done);
    memcpy(save, c->phi, sizeof(double) * n);
    memcpy(save + n, c->ipv, sizeof(double) * n * nv);
    const int nsub = hs_split_substeps(&p->opt.scheme, c->dt * p->opt.time_unit);
    hs_phase_times keep = c->times;
    for (int r = 0; r < reps && st == HS_OK; ++r) {
        int32_t bad = -1;
        const double w0 = hs_wtime();
        st = hs_cpu_react(b, c->dt, nsub, amp, &bad);
        t[r] = hs_wtime() - w0;
        memcpy(c->phi, save, sizeof(double) * n);
        memcpy(c->ipv, save + n, sizeof(double) * n * nv);
    }
    c->times = keep;
    if (st != HS_OK) goto done;
    out->element = hs_median(t, reps);
    out->assembly = out->spmv = out->cg_iter = out->naive_cg_iter = NAN;
    for (int r = 0; r < reps; ++r) {
        const double w0 = hs_wtime();
        memcpy(save + n, save, sizeof(double) * n);
        t[r] = hs_wtime() - w0;
    }
    out->copy_bw = 2.0 * sizeof(double) * (double)n / hs_median(t, reps);
    out->reps = reps;
    hs_phase_bytes(p, c->lay->n_slots, out);
    out->bytes_element = 16.0 * (double)n * (double)(1 + nv); /* u and the variables read and written once */
done:
    free(save); free(amp); free(t);
    return st;
}

/* Wall-clock medians of each phase on the current state; CG iterations timed over 10 iterations. */
static hs_status cpu_bench(hs_backend *b, int reps, hs_phase_bench *out)
{
    cpu_impl *c = b->impl;
    const hs_problem *p = b->prob;
    if (p->opt.scheme.kind == HS_SCHEME_SPLITTING) return cpu_bench_react(b, reps, out);
    int32_t n = p->mesh->n_nodes;
    double *te = NULL, *ta = NULL, *tc = NULL, *ts = NULL, *buf = NULL;
    hs_status st = HS_OK;
    HS_CALL_GOTO(HS_ALLOC(te, reps, "bench timings"), done);
    HS_CALL_GOTO(HS_ALLOC(ta, reps, "bench timings"), done);
    HS_CALL_GOTO(HS_ALLOC(tc, reps, "bench timings"), done);
    HS_CALL_GOTO(HS_ALLOC(ts, reps, "bench timings"), done);
    HS_CALL_GOTO(HS_ALLOC(buf, (size_t)n * 2, "bench buffers"), done);
    hs_phase_times save = c->times;
    for (int r = 0; r < reps; ++r) {
        double res;
        int32_t node;
        hs_phase_times t0 = c->times;
        HS_CALL_GOTO(hs_cpu_assemble(b, &res, &node), done);
        HS_CALL_GOTO(b->ops->tangent(b), done); /* a Newton iteration that solves forms both */
        te[r] = c->times.element - t0.element;
        ta[r] = c->times.assembly - t0.assembly;
        double w0 = hs_wtime();
        hs_cpu_matvec(c, c->rhs, c->du);
        ts[r] = hs_wtime() - w0;
        hs_cg_opts o = p->opt.cg; /* tolerance 0: exactly 10 iterations */
        o.tol = 0.0;
        o.max_iter = 10;
        hs_cg_result cr;
        w0 = hs_wtime();
        HS_CALL_GOTO(hs_cg_solve(n, hs_cpu_matvec, c, c->inv_diag, c->rhs, c->du, &o, c->cg, &cr), done);
        tc[r] = (hs_wtime() - w0) / (cr.iters > 0 ? cr.iters : 1);
    }
    c->times = save;
    /* copy bandwidth: memcpy of 2 x n doubles, read + write counted */
    double *tb = te; /* reuse after taking the medians below */
    out->element = hs_median(te, reps);
    out->assembly = hs_median(ta, reps);
    out->spmv = hs_median(ts, reps);
    out->cg_iter = hs_median(tc, reps);
    for (int r = 0; r < reps; ++r) {
        double w0 = hs_wtime();
        memcpy(buf + n, buf, sizeof(double) * (size_t)n);
        tb[r] = hs_wtime() - w0;
    }
    out->copy_bw = 2.0 * sizeof(double) * n / hs_median(tb, reps);
    out->naive_cg_iter = NAN;
    out->reps = reps;
    hs_phase_bytes(p, c->lay->n_slots, out);
done:
    free(te); free(ta); free(tc); free(ts); free(buf);
    return st;
}

const hs_backend_diag_ops hs_cpu_diag_ops = {
    .get_system = cpu_get_system,
    .bench = cpu_bench,
    .bench_cg = NULL,
};
