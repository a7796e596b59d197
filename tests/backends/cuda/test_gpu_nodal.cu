// The nodal ODE kernel of the splitting scheme (backends/cuda/nodal.cu) against the CPU reference
// (hs_split_react_node, fem/hs_splitting.h: hs_model_rhs, u += h (f + stim), hs_model_ode_vars, on the
// host, what the cpu backend's react runs), for
// every model of the list: one reaction step of NSUB substeps, and one of a single substep (the kernel's
// path without the substep loop: what a step with dt_ode = dt runs), at nodes whose states are taken along a
// stimulated 0-D action potential of the model (upstroke, plateau, repolarisation, rest), half of them
// stimulated; a padded leading dimension, the start copies u0 and s0, a region table with a second parameter
// row and a non-conducting row, frozen (decoupled) nodes, the substep read from the device (hn, with
// the regions), and a non-finite state reported at its node.
//
// Tolerance, derived per node and variable. Host and device evaluate the same source; they differ by
// the elementary functions (CUDA's exp, log, pow, tanh: at most 2 ulp in double, CUDA C Programming
// Guide, "Mathematical Functions"; glibc's at most 1) and by nvcc's contraction of a multiply and an add
// into one rounding (at most 0.5 ulp of the result each). Per substep k the local difference of variable
// j is taken as C eps (|x_k,j| + |x_k+1,j| + |a_j| + h |g_j|) with C = 16 ulp (the largest chain of such
// operations in a model's nodal form, ~10 contracted operations plus two elementary functions, with room)
// and g_j the variable's rate (f + stim for u, a_j for a non-gate, (a_j - x_j)/tau_j for a gate).
// Differences made earlier are carried by the substep map's Jacobian J_k, estimated on the host by
// central differences: e_k+1 = |J_k| e_k + delta_k (componentwise). The check is
// |x_dev - x_host| <= 2 e_NSUB: the factor 2 covers the central differences' own error and the
// neglected second-order terms. A discontinuity (a switch of Mitchell-Schaeffer or Bueno-Orovio)
// crossed by a difference step makes that J_k entry large, so the bound stays honest there.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include "hs_cuda.h"
#include "hs_model_ode.h"
#include "hs_models.h"
#include "hs_nodal.cuh"
#include "hs_splitting.h"
#include "hs_test.h"

#define T_CUDA(x)                                                                                  \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        HS_TEST_CHECK(e_ == cudaSuccess, "%s: %s", #x, cudaGetErrorString(e_));                   \
    } while (0)

static const int NSUBS[2] = {10, 1}; // substeps of the tested reaction steps
static const double H_MS = 0.01; // substep, ms
static const double C_ULP = 16.0;

// One substep of the reference (what the CPU backend runs): x = {u, s[0..nv)}.
static void ref_substep(const hs_model_params *p, int nv, double *x, double stim, double h)
{
    double f = 0.0, a[HS_MODEL_MAX_VARS], tau[HS_MODEL_MAX_VARS];
    hs_model_rhs(p, x[0], x + 1, &f, a, tau);
    hs_model_ode_vars(nv, x + 1, a, tau, h);
    x[0] += h * (f + stim);
}

// The local difference allowance of one substep from x (before) to y (after), componentwise.
static void local_allowance(const hs_model_params *p, int nv, const double *x, const double *y, double stim, double h,
                            double *delta)
{
    double f = 0.0, a[HS_MODEL_MAX_VARS], tau[HS_MODEL_MAX_VARS];
    hs_model_rhs(p, x[0], x + 1, &f, a, tau);
    const double eps = 0x1p-52;
    delta[0] = C_ULP * eps * (fabs(x[0]) + fabs(y[0]) + h * (fabs(f) + fabs(stim)));
    for (int k = 0; k < nv; ++k) {
        const double g = tau[k] > 0.0 ? (a[k] - x[1 + k]) / tau[k] : a[k];
        delta[1 + k] = C_ULP * eps * (fabs(x[1 + k]) + fabs(y[1 + k]) + fabs(a[k]) + h * fabs(g));
    }
}

// Reference step of one node with the propagated bound e [1 + nv].
static void ref_step(const hs_model_params *p, int nv, double *x, double stim, double h, int nsub, double *e)
{
    const int m = 1 + nv;
    std::vector<double> y(m), xp(m), xm(m), d(m), en(m), J((size_t)m * m);
    for (int j = 0; j < m; ++j) e[j] = 0.0;
    for (int k = 0; k < nsub; ++k) {
        for (int j = 0; j < m; ++j) y[j] = x[j];
        ref_substep(p, nv, y.data(), stim, h);
        local_allowance(p, nv, x, y.data(), stim, h, d.data());
        for (int c = 0; c < m; ++c) { // column c of the Jacobian by central differences
            const double sg = 1e-7 * (fabs(x[c]) > 1e-3 ? fabs(x[c]) : 1e-3);
            for (int j = 0; j < m; ++j) xp[j] = xm[j] = x[j];
            xp[c] += sg;
            xm[c] -= sg;
            ref_substep(p, nv, xp.data(), stim, h);
            ref_substep(p, nv, xm.data(), stim, h);
            for (int j = 0; j < m; ++j) J[(size_t)j * m + c] = (xp[j] - xm[j]) / (2.0 * sg);
        }
        for (int j = 0; j < m; ++j) {
            double s = d[j];
            for (int c = 0; c < m; ++c) s += fabs(J[(size_t)j * m + c]) * e[c];
            en[j] = s;
        }
        for (int j = 0; j < m; ++j) {
            e[j] = isfinite(en[j]) ? en[j] : INFINITY;
            x[j] = y[j];
        }
    }
}

// States along a 0-D action potential of model m: n states (u, s) at times spread over ~1.2 beats of
// 400 ms (a stimulus of 50 mV/ms for 2 ms in the model's units at t = 0 and at 400 ms).
static void trajectory_states(const hs_model *m, const hs_model_params *p, int n, std::vector<double> &states)
{
    const int nv = m->n_vars, w = 1 + nv;
    const double T = m->time_unit_default, h = H_MS / T;
    const double amp = 50.0 / m->mv_scale * T; // potential units per model time
    std::vector<double> x(w);
    x[0] = m->potential_rest;
    for (int k = 0; k < nv; ++k) x[1 + k] = m->vars[k].initial;
    const long steps = lround(480.0 / H_MS);
    const long every = steps / n;
    states.assign((size_t)n * w, 0.0);
    int taken = 0;
    for (long q = 0; q < steps && taken < n; ++q) {
        const double t = q * H_MS;
        const double stim = (t < 2.0 || (t >= 400.0 && t < 402.0)) ? amp : 0.0;
        ref_substep(p, nv, x.data(), stim, h);
        if ((q + 1) % every == 0) {
            for (int j = 0; j < w; ++j) states[(size_t)taken * w + j] = x[j];
            ++taken;
        }
    }
}

int main(int argc, char **argv)
{
    const bool verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
    char name[256], why[256];
    if (hs_gpu_probe(name, sizeof name, why, sizeof why) < 1) {
        fprintf(stderr, "test_gpu_nodal: skipped: %s\n", why);
        return HS_TEST_SKIP;
    }
    const int n = 480, ld = 512; // nodes, leading dimension of the variables (padded)
    cudaStream_t st;
    T_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    for (int mi = 0; mi < hs_models_count(); ++mi) {
        const hs_model *m = hs_models_at(mi);
        hs_model_params p;
        hs_model_params_defaults(m, &p);
        const int nv = m->n_vars, w = 1 + nv;
        for (int NSUB : NSUBS) {
            const double T = m->time_unit_default, H = NSUB * H_MS / T, h = H / NSUB; // as the react op splits it
            const double amp = 50.0 / m->mv_scale * T;
            std::vector<double> states;
            trajectory_states(m, &p, n, states);
            // the second parameter row of the region test: every parameter 3% larger (within any range
            // the descriptor allows for these models' defaults; switches stay as they are)
            hs_model_params p2 = p;
            for (int k = 0; k < m->n_params; ++k)
                if (m->params[k].kind == HS_PARAM_REAL) p2.v[k] *= 1.03;
            for (int het = 0; het < 2; ++het) {
                // host arrays: u [n], s [nv][ld], stim [n]; row of each node (het: 0, 1, 2 = hole)
                std::vector<double> u(n), s((size_t)(nv > 0 ? nv : 1) * ld, 0.0), stim(n), e(w), x(w);
                std::vector<uint16_t> row(n);
                std::vector<uint8_t> frozen(n, 0);
                for (int i = 0; i < n; ++i) {
                    u[i] = states[(size_t)i * w];
                    for (int k = 0; k < nv; ++k) s[(size_t)k * ld + i] = states[(size_t)i * w + 1 + k];
                    stim[i] = (i % 2) ? amp : 0.0;
                    row[i] = het ? (uint16_t)(i % 3) : 0;
                    frozen[i] = het && i % 7 == 3; // decoupled nodes (hs_nodal.frozen): left as they are
                }
                const int bad_node = n - 7; // a non-finite variable (or potential) here must be reported
                if (nv > 0) s[(size_t)(nv - 1) * ld + bad_node] = NAN;
                else u[bad_node] = NAN;
                if (het && row[bad_node] == 2) row[bad_node] = 0;
                double *du = nullptr, *ds = nullptr, *dstim = nullptr, *du0 = nullptr, *ds0 = nullptr;
                int *dbad = nullptr;
                uint16_t *dtab = nullptr;
                uint8_t *dfz = nullptr;
                hs_region_row *drt = nullptr;
                T_CUDA(cudaMalloc(&du, sizeof(double) * n));
                T_CUDA(cudaMalloc(&du0, sizeof(double) * n));
                T_CUDA(cudaMalloc(&ds, sizeof(double) * s.size()));
                T_CUDA(cudaMalloc(&ds0, sizeof(double) * s.size()));
                T_CUDA(cudaMemset(ds0, 0, sizeof(double) * s.size()));
                T_CUDA(cudaMalloc(&dstim, sizeof(double) * n));
                T_CUDA(cudaMalloc(&dbad, sizeof(int)));
                T_CUDA(cudaMemcpy(du, u.data(), sizeof(double) * n, cudaMemcpyHostToDevice));
                T_CUDA(cudaMemcpy(ds, s.data(), sizeof(double) * s.size(), cudaMemcpyHostToDevice));
                T_CUDA(cudaMemcpy(dstim, stim.data(), sizeof(double) * n, cudaMemcpyHostToDevice));
                T_CUDA(cudaMemset(dbad, 0x7f, sizeof(int)));
                T_CUDA(cudaMemset(du0, 0, sizeof(double) * n));
                hs_region_row rt[3];
                memset(rt, 0, sizeof rt);
                rt[0].prm = p;
                rt[0].conducting = 1;
                rt[1].prm = p2;
                rt[1].conducting = 1;
                rt[2].prm = p;
                rt[2].conducting = 0;
                if (het) {
                    T_CUDA(cudaMalloc(&dtab, sizeof(uint16_t) * n));
                    T_CUDA(cudaMalloc(&drt, sizeof rt));
                    T_CUDA(cudaMemcpy(dtab, row.data(), sizeof(uint16_t) * n, cudaMemcpyHostToDevice));
                    T_CUDA(cudaMemcpy(drt, rt, sizeof rt, cudaMemcpyHostToDevice));
                    T_CUDA(cudaMalloc(&dfz, n));
                    T_CUDA(cudaMemcpy(dfz, frozen.data(), n, cudaMemcpyHostToDevice));
                }
                // with regions, the substep comes from the device (hs_nodal_launch.hn, as split_step.cu's
                // graph passes it) and the launch's own h and nsub are the placeholders that caller gives
                double *dhn = nullptr;
                const double hn[2] = {h, (double)NSUB};
                if (het) {
                    T_CUDA(cudaMalloc(&dhn, sizeof hn));
                    T_CUDA(cudaMemcpy(dhn, hn, sizeof hn, cudaMemcpyHostToDevice));
                }
                // the copies and memsets above ran on the legacy stream, which st (non-blocking) does not
                // wait for: with other processes on the GPU the zeroing of du0 could land after the kernel
                T_CUDA(cudaDeviceSynchronize());
                hs_nodal_launch a = {n,  ld, &p,    drt,  dtab, dfz, het ? 0.0 : h, het ? 1 : NSUB, du, ds, dstim,
                                     du0, ds0, dbad, dhn, nullptr};
                HS_TEST_OK(hs_cu_launch_nodal(&a, st));
                T_CUDA(cudaStreamSynchronize(st));
                std::vector<double> ug(n), sg(s.size()), u0g(n), s0g(s.size());
                int bad = 0;
                T_CUDA(cudaMemcpy(ug.data(), du, sizeof(double) * n, cudaMemcpyDeviceToHost));
                T_CUDA(cudaMemcpy(u0g.data(), du0, sizeof(double) * n, cudaMemcpyDeviceToHost));
                T_CUDA(cudaMemcpy(sg.data(), ds, sizeof(double) * s.size(), cudaMemcpyDeviceToHost));
                T_CUDA(cudaMemcpy(s0g.data(), ds0, sizeof(double) * s.size(), cudaMemcpyDeviceToHost));
                T_CUDA(cudaMemcpy(&bad, dbad, sizeof(int), cudaMemcpyDeviceToHost));
                HS_TEST_CHECK(bad == bad_node, "%s%s: non-finite state at node %d reported as %d", m->name,
                              het ? " (regions)" : "", bad_node, bad);
                double worst = 0.0, worst_tol = 0.0;
                int fails = 0;
                for (int i = 0; i < n; ++i) {
                    HS_TEST_CHECK(memcmp(&u0g[i], &u[i], sizeof(double)) == 0, "%s: u0[%d] is not u at the start",
                                  m->name, i);
                    for (int k = 0; k < nv; ++k)
                        HS_TEST_CHECK(memcmp(&s0g[(size_t)k * ld + i], &s[(size_t)k * ld + i], sizeof(double)) == 0,
                                      "%s: s0[%d][%d] is not s at the start", m->name, k, i);
                    if (i == bad_node) continue;
                    x[0] = u[i];
                    for (int k = 0; k < nv; ++k) x[1 + k] = s[(size_t)k * ld + i];
                    const int r = row[i];
                    if (r == 2 || frozen[i]) { // a hole or a decoupled node: nothing moves, bit for bit
                        for (int j = 0; j < w; ++j) e[j] = 0.0;
                    } else { // the bound along the substeps, then the reference itself (the same values)
                        std::vector<double> xb(x);
                        const hs_model_params *pr = r == 1 ? &p2 : &p;
                        ref_step(pr, nv, xb.data(), stim[i], h, NSUB, e.data());
                        HS_TEST_CHECK(hs_split_react_node(pr, H, NSUB, stim[i], &x[0], x.data() + 1) == 0,
                                      "%s: the reference failed at node %d", m->name, i);
                    }
                    for (int j = 0; j < w; ++j) {
                        const double g = j == 0 ? ug[i] : sg[(size_t)(j - 1) * ld + i];
                        const double tol = 2.0 * e[j];
                        const double diff = fabs(g - x[j]);
                        if (!(diff <= tol) && fails++ < 5)
                            HS_TEST_CHECK(diff <= tol, "%s%s, %d substeps, node %d (row %d) variable %d: device "
                                          "%.17g, host %.17g, |diff| %.3g > %.3g", m->name, het ? " (regions)" : "",
                                          NSUB, i, r, j, g, x[j], diff, tol);
                        if (tol > 0.0 && diff / tol > worst) worst = diff / tol, worst_tol = tol;
                    }
                }
                HS_TEST_CHECK(fails == 0, "%s%s, %d substeps: %d values outside the bound", m->name,
                          het ? " (regions)" : "", NSUB, fails);
                if (verbose)
                    printf("%-22s %s, %2d substeps: largest |device - host| / bound = %.3g (bound there %.3g)\n",
                           m->name, het ? "regions" : "uniform", NSUB, worst, worst_tol);
                cudaFree(du);
                cudaFree(du0);
                cudaFree(ds0);
                cudaFree(ds);
                cudaFree(dstim);
                cudaFree(dbad);
                cudaFree(dtab);
                cudaFree(drt);
                cudaFree(dfz);
                cudaFree(dhn);
            }
        }
    }
    cudaStreamDestroy(st);
    HS_TEST_RETURN();
}
