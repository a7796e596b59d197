/*
 * The splitting scheme on one rank's partition of several (issue 28; fem/hs_splitting.h; hs_dist_split.h).
 * The reference is the cpu backend's own ops on its partition (backends/cpu/split_cpu.c with the rank's
 * comm), and the code is the serial cuda backend's (split.cu, through hs_split_rows.cuh) with the
 * exchanges a partition needs between its pieces:
 *  - react: the serial op, the nodal kernel over the local state with the ghosts masked as decoupled
 *    nodes (their owners react them; the kernel still saves their start, so restore_step restores
 *    every local node). The failing node is local; the distributed wrapper names it globally.
 *  - diffuse: (M + theta dt K) u = (M - (1-theta) dt K) u*, the matrices assembled once per dt on the
 *    local mesh (split.cu's assembly: the owned rows are complete, every element touching an owned
 *    node being local); then
 *      1. the ghosts of u* from their owners (halo exchange),
 *      2. r0 = C u* - A g and B u* with the format's kernels over the local matrix (its owned rows
 *         are right: the ghosts of u* are fresh, and those of the guess's history g are, because the
 *         correction's ghosts are exchanged after every solve and set_history sets them), the block
 *         sums of ||r0||^2, ||B u*||^2 over the owned rows, summed over the ranks on the stream
 *         (hs_cuda_comm_sum_dev), their ratio (the CG's tolerance) formed again on the device,
 *      3. the distributed device CG (hs_gpu_cg_set_dist: Chronopoulos-Gear over the owned rows, its
 *         halo exchange and one all-reduce per iteration, in graphs of HS_CG_POLL iterations where the
 *         comm allows), from d = 0,
 *      4. u = u* + g + d on the owned rows when it converged, then the ghosts of u and of the
 *         correction g + d from their owners.
 *    Every rank sees the same sums, so they all take the same branch (the CG's status, the update).
 * The serial diffusion runs as one CUDA graph (solver.graph); here the host drives the pieces (its
 * waits are the CG's polls), as the partition's Newton solve does.
 */
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "cuda_backend.cuh"
#include "hs_dist_split.h"
#include "hs_split_rows.cuh"
#include "hs_util.h"

struct hs_cu_dist_split {
    hs_backend_ops ops;            /* first member: the inner backend's ops while bound (dist_of) */
    const hs_backend_ops *serial;  /* the ops it had */
    hs_backend *b;                 /* borrowed */
    hs_cuda_comm *comm;            /* borrowed */
    int32_t n_own;
};

namespace {

/* norms[2] = ||r0|| / ||B u*|| from the sums over the ranks (split.cu's final kernel formed it from
 * this rank's rows) */
__global__ void k_norm_ratio(double *norms) { norms[2] = sqrt(norms[0]) / sqrt(norms[1]); }

/* the partition's state of a bound backend: its ops table is this struct's first member */
hs_cu_dist_split *dist_of(const hs_backend *b)
{
    return reinterpret_cast<hs_cu_dist_split *>(const_cast<hs_backend_ops *>(b->ops));
}

/* x's ghosts from their owners, ordered on s */
hs_status halo(hs_cu_dist_split *d, double *x, cudaStream_t s)
{
    HS_CALL(hs_cuda_comm_halo_start(d->comm, x, s));
    return hs_cuda_comm_halo_finish(d->comm, x, s);
}

hs_status dist_diffuse(hs_backend *b, double dt, hs_cg_result *cg)
{
    hs_cu_dist_split *d = dist_of(b);
    cuda_impl *c = (cuda_impl *)b->impl;
    memset(cg, 0, sizeof *cg);
    HS_CALL(hs_cu_split_prepare(b, dt));
    HS_CUDA_CALL(cudaEventRecord(c->ev_s0, c->s));
    HS_CALL(halo(d, c->phi, c->s));
    HS_CALL(hs_cu_split_enqueue_start(c, d->n_own));
    double *norms = hs_cu_split_norms(c);
    HS_CALL(hs_cuda_comm_sum_dev(d->comm, norms, 2, c->s));
    k_norm_ratio<<<1, 1, 0, c->s>>>(norms);
    HS_CUDA_LAUNCH_CHECK("k_norm_ratio");
    const hs_gpu_cg_tol t = hs_cu_split_tol(b);
    HS_CALL(hs_gpu_cg_solve_stream(c->cg, c->rhs, c->du, &t, HS_CG_POLL, c->s, c->h_cg));
    HS_CALL(hs_cu_split_enqueue_finish_rows(c, d->n_own));
    HS_CALL(halo(d, c->phi, c->s));
    double *g = hs_cu_split_correction(c); /* NULL: solver.extrapolate = 0 */
    if (g) HS_CALL(halo(d, g, c->s));
    HS_CUDA_CALL(cudaEventRecord(c->ev_s1, c->s));
    HS_CUDA_CALL(cudaStreamSynchronize(c->s));
    HS_CALL(hs_cuda_comm_check(d->comm)); /* an ipc wait that gave up on a peer: no result to trust */
    hs_cu_split_result(c, cg);
    c->t.solve += 1e-3 * elapsed_ms(c->ev_s0, c->ev_s1);
    return HS_OK;
}

} // namespace

extern "C" hs_status hs_cu_dist_split_bind(hs_backend *b, hs_cuda_comm *comm, int32_t n_owned, hs_cu_dist_split **out)
{
    *out = NULL;
    cuda_impl *c = (cuda_impl *)b->impl;
    HS_CHECK(strcmp(b->ops->name, "cuda") == 0 && c && c->sp && c->cg && c->cg->dist && !c->gpc, HS_ERR_INTERNAL,
             "the splitting scheme on a partition needs the cuda backend's splitting data and its distributed CG");
    HS_CHECK(n_owned >= 0 && n_owned <= c->nn, HS_ERR_INTERNAL, "%d owned nodes of %d", n_owned, c->nn);
    HS_CALL(hs_cu_split_react_rows(b, n_owned));
    hs_cu_dist_split *d = (hs_cu_dist_split *)calloc(1, sizeof *d);
    HS_CHECK(d, HS_ERR_MEMORY, "out of memory for the partition's splitting scheme");
    d->serial = b->ops;
    d->ops = *b->ops;
    d->ops.diffuse = dist_diffuse;
    d->b = b;
    d->comm = comm;
    d->n_own = n_owned;
    b->ops = &d->ops;
    *out = d;
    return HS_OK;
}

extern "C" void hs_cu_dist_split_unbind(hs_cu_dist_split **pd)
{
    if (!pd || !*pd) return;
    hs_cu_dist_split *d = *pd;
    d->b->ops = d->serial;
    (void)hs_cu_split_react_rows(d->b, ((cuda_impl *)d->b->impl)->nn); /* every node reacts again (a device
                                                                            error: the next call's to report) */
    free(d);
    *pd = NULL;
}
