/**
 * @file hs_cg_sstep.h
 * @brief The small, host-and-device part of s-step CG (solver.cg = "sstep"): the Chebyshev change of
 * basis matrix, the Ritz interval from CG's Lanczos coefficients, and the s inner iterations on the
 * (2s+1)-vectors of coordinates. The CPU reference (solvers/cg_sstep.c) and the persistent CUDA kernel
 * (backends/cuda/cg_sstep.cu) call the same functions, so both do the same small-vector arithmetic.
 *
 * Notation (seed 004 ch. 6; Carson & Demmel 2014, Alg. "CA-PCG" with M = D = diag A):
 *   Y = [rho_0(D^-1 A) p, ..., rho_s(D^-1 A) p, rho_0(D^-1 A) u, ..., rho_{s-1}(D^-1 A) u]   (n x m, m = 2s+1)
 *   columns 0..s are the p chain, s+1..2s the u chain (u = D^-1 r);
 *   rho_0 = 1, rho_1(z) = (z - c)/d, rho_{j+1}(z) = 2 (z - c)/d rho_j(z) - rho_{j-1}(z)  (Chebyshev on [c-d, c+d]);
 *   D^-1 A Y[:, j] = Y B[:, j] for every column but the last of each chain;
 *   G = Y' D Y, H = Y' D^2 Y (symmetric m x m, row-major), so for coordinates a, b of u = Y a, p = Y b:
 *   (r, u) = a'G a, (p, A p) = b'G B b, ||r||_2^2 = a'H a.
 */
#ifndef HS_CG_SSTEP_H
#define HS_CG_SSTEP_H

#include <float.h>
#include <math.h>

#include "hs_cg.h"
#include "hs_hd.h"

#define HS_SSTEP_MMAX (2 * HS_CG_S_MAX + 1)

/** Outcome of a block of inner iterations (values equal to the GPU CG status words). */
enum { HS_SSTEP_RUNNING = 0, HS_SSTEP_CONV = 1, HS_SSTEP_BREAK = 2, HS_SSTEP_NONFINITE = 3, HS_SSTEP_MAXIT = 4 };

typedef struct hs_sstep_block {
    int k;          /**< inner iterations done (0..s) */
    int status;     /**< HS_SSTEP_*: RUNNING when all s were done without stopping */
    double rr;      /**< ||r||^2 after the last inner iteration (a'Ha) */
    double q, noise; /**< BREAK: the quadratic form that failed and its round-off level */
    double xc[HS_SSTEP_MMAX], pc[HS_SSTEP_MMAX], uc[HS_SSTEP_MMAX]; /**< x - x0, p, u in the basis Y */
} hs_sstep_block;

/** @brief B (m x m, row-major, B[row*m + col]) with D^-1 A Y[:, col] = sum_row Y[:, row] B[row][col]. */
HS_HD void hs_sstep_cheb_B(int s, double c, double d, double *B)
{
    const int m = 2 * s + 1;
    for (int i = 0; i < m * m; ++i) B[i] = 0.0;
    for (int chain = 0; chain < 2; ++chain) {
        const int base = chain ? s + 1 : 0, len = chain ? s - 1 : s; /* columns with a successor */
        for (int j = 0; j < len; ++j) {
            const int col = base + j;
            B[col * m + col] = c;                       /* z rho_j = c rho_j + ... */
            B[(col + 1) * m + col] = j == 0 ? d : 0.5 * d; /* ... + d rho_1 (j = 0), (d/2) rho_{j+1} */
            if (j > 0) B[(col - 1) * m + col] = 0.5 * d; /* ... + (d/2) rho_{j-1} */
        }
    }
}

/** @brief Round-off level of a Gram quadratic form relative to (sum_i |a_i| sqrt(G_ii))^2: m sqrt(n) eps
 *  (m terms, each a dot product of n terms with probabilistic error sqrt(n) eps; Higham, ch. 3). */
HS_HD double hs_sstep_theta(int s, double n) { return (2 * s + 1) * sqrt(n) * DBL_EPSILON; }

/* a' G b over the index set idx[0..len) (the coordinates are exactly zero elsewhere, so the sum is the
 * full one: skipping zeros changes no bit) */
HS_HD double hs_sstep_quad(int m, const double *G, const double *a, const double *b, const int *idx, int len)
{
    double q = 0.0;
    for (int ii = 0; ii < len; ++ii) {
        const int i = idx[ii];
        double t = 0.0;
        for (int jj = 0; jj < len; ++jj) t += G[i * m + idx[jj]] * b[idx[jj]];
        q += a[i] * t;
    }
    return q;
}

HS_HD double hs_sstep_scale(int m, const double *G, const double *a, const int *idx, int len)
{
    double t = 0.0;
    for (int ii = 0; ii < len; ++ii) t += fabs(a[idx[ii]]) * sqrt(fabs(G[idx[ii] * m + idx[ii]]));
    return t;
}

/* The coordinates that can be non-zero during inner iteration k: p chain 0..k+1, u chain 0..k (B raises
 * the level by one per iteration); the small recurrences cost O(k^2), not O(s^2), per iteration. */
HS_HD int hs_sstep_support(int s, int k, int *idx)
{
    int len = 0;
    const int lp = k + 1 < s ? k + 1 : s, lu = k < s - 1 ? k : s - 1;
    for (int j = 0; j <= lp; ++j) idx[len++] = j;
    for (int j = 0; j <= lu; ++j) idx[len++] = s + 1 + j;
    return len;
}

/**
 * @brief The s inner iterations of one block (textbook PCG on the coordinates), starting from
 * p = Y e_0, u = Y e_{s+1}, x - x0 = 0. Stops early at convergence (a'Ha <= rr_target, tested after
 * each update as the classic CG does; the direction is still updated, so a block whose true residual
 * turns out larger can go on), at max_iter (it0 iterations were done before this block), or at a
 * breakdown: (r,u) or (p,Ap) not above theta times its scale (the basis has lost the rank those
 * numbers need), in which case the caller discards the whole block.
 */
HS_HD void hs_sstep_inner(int s, const double *G, const double *H, const double *B, double rr_target, int it0,
                          int max_iter, double theta, hs_sstep_block *o)
{
    const int m = 2 * s + 1;
    double t[HS_SSTEP_MMAX];
    int idx[HS_SSTEP_MMAX];
    for (int i = 0; i < m; ++i) o->xc[i] = o->pc[i] = o->uc[i] = t[i] = 0.0;
    o->pc[0] = 1.0;
    o->uc[s + 1] = 1.0;
    o->k = 0;
    o->status = HS_SSTEP_RUNNING;
    int len = hs_sstep_support(s, 0, idx);
    o->rr = hs_sstep_quad(m, H, o->uc, o->uc, idx, len);
    o->q = o->noise = 0.0;
    double gamma = hs_sstep_quad(m, G, o->uc, o->uc, idx, len);
    for (int k = 0; k < s; ++k) {
        if (it0 + k >= max_iter) { o->status = HS_SSTEP_MAXIT; return; }
        len = hs_sstep_support(s, k, idx);
        for (int ii = 0; ii < len; ++ii) {
            const int i = idx[ii];
            double v = 0.0;
            for (int jj = 0; jj < len; ++jj) v += B[i * m + idx[jj]] * o->pc[idx[jj]];
            t[i] = v;
        }
        const double denom = hs_sstep_quad(m, G, o->pc, t, idx, len);
        const double sg = hs_sstep_scale(m, G, o->uc, idx, len),
                     sp = hs_sstep_scale(m, G, o->pc, idx, len) * hs_sstep_scale(m, G, t, idx, len);
        if (!isfinite(denom) || !isfinite(gamma)) { o->status = HS_SSTEP_NONFINITE; return; }
        if (!(gamma > theta * sg * sg)) { o->status = HS_SSTEP_BREAK; o->q = gamma; o->noise = theta * sg * sg; return; }
        if (!(denom > theta * sp)) { o->status = HS_SSTEP_BREAK; o->q = denom; o->noise = theta * sp; return; }
        const double alpha = gamma / denom;
        for (int ii = 0; ii < len; ++ii) {
            const int i = idx[ii];
            o->xc[i] += alpha * o->pc[i];
            o->uc[i] -= alpha * t[i];
        }
        o->rr = hs_sstep_quad(m, H, o->uc, o->uc, idx, len);
        const double gamma_new = hs_sstep_quad(m, G, o->uc, o->uc, idx, len);
        const double beta = gamma_new / gamma;
        for (int ii = 0; ii < len; ++ii) o->pc[idx[ii]] = o->uc[idx[ii]] + beta * o->pc[idx[ii]];
        gamma = gamma_new;
        o->k = k + 1;
        if (!isfinite(o->rr)) { o->status = HS_SSTEP_NONFINITE; return; }
        if (o->rr <= rr_target) { o->status = HS_SSTEP_CONV; return; }
    }
}

/** @brief Number of eigenvalues of the k x k symmetric tridiagonal (a diagonal, b off-diagonal) below x. */
HS_HD int hs_sstep_sturm(int k, const double *a, const double *b, double x)
{
    int neg = 0;
    double q = 1.0;
    for (int j = 0; j < k; ++j) {
        q = (a[j] - x) - (j ? b[j - 1] * b[j - 1] / q : 0.0);
        if (q == 0.0) q = -DBL_EPSILON * (fabs(a[j]) + fabs(x) + DBL_MIN);
        if (q < 0.0) ++neg;
    }
    return neg;
}

/** @brief See hs_cg_ritz_interval (hs_cg.h); k <= HS_CG_S_MAX. */
HS_HD void hs_sstep_ritz(int k, const double *alpha, const double *beta, double *theta_min, double *theta_max)
{
    double a[HS_CG_S_MAX], b[HS_CG_S_MAX];
    double lo = 0.0, hi = 0.0;
    for (int j = 0; j < k; ++j) {
        a[j] = 1.0 / alpha[j] + (j ? beta[j - 1] / alpha[j - 1] : 0.0);
        b[j] = sqrt(fabs(beta[j])) / alpha[j];
    }
    for (int j = 0; j < k; ++j) { /* Gershgorin bracket */
        double rad = (j ? fabs(b[j - 1]) : 0.0) + (j + 1 < k ? fabs(b[j]) : 0.0);
        if (j == 0 || a[j] - rad < lo) lo = a[j] - rad;
        if (j == 0 || a[j] + rad > hi) hi = a[j] + rad;
    }
    double l = lo, h = hi; /* smallest: count(x) >= 1 iff lambda_min < x */
    const double tol = 1e-6 * (hi - lo); /* the interval is widened by 5% anyway: 20 bisection steps */
    for (int it = 0; it < 100 && h - l > tol; ++it) {
        double mid = 0.5 * (l + h);
        if (hs_sstep_sturm(k, a, b, mid) >= 1) h = mid; else l = mid;
    }
    *theta_min = 0.5 * (l + h);
    l = lo, h = hi; /* largest: count(x) >= k iff lambda_max < x */
    for (int it = 0; it < 100 && h - l > tol; ++it) {
        double mid = 0.5 * (l + h);
        if (hs_sstep_sturm(k, a, b, mid) >= k) h = mid; else l = mid;
    }
    *theta_max = 0.5 * (l + h);
}

/** @brief The Chebyshev interval (centre c, half-width d) from the Ritz interval: widened by 5% of its
 *  width on each side (Ritz values lie inside the spectrum), and never narrower than 1e-3 c. */
HS_HD void hs_sstep_interval(double theta_min, double theta_max, double *c, double *d)
{
    double w = theta_max - theta_min;
    double lo = theta_min - 0.05 * w, hi = theta_max + 0.05 * w;
    *c = 0.5 * (hi + lo);
    *d = 0.5 * (hi - lo);
    if (!(*d > 1e-3 * fabs(*c))) *d = 1e-3 * fabs(*c) > 0.0 ? 1e-3 * fabs(*c) : 1.0;
}

#endif
