/**
 * @file cpu_backend.h
 * @brief Private to backends/cpu/: the CPU backend's data, shared by the step and state code
 * (backend_cpu.c) and its diagnostics (diag_cpu.c).
 */
#ifndef HS_CPU_BACKEND_H
#define HS_CPU_BACKEND_H

#include "hs_backend.h"
#include "hs_backend_diag.h"
#include "hs_backends.h"
#include "hs_cg.h"
#include "hs_extrapolate.h"
#include "hs_precond.h"
#include "hs_spmv.h"

typedef struct cpu_impl {
    hs_spmv_layout *lay;
    double *phi, *phi_n;  /* [n_nodes] */
    double *ipv, *ipv_n;  /* [n_vars][n_elems] the model's variables at the integration points */
    double *act;          /* [HS_STATE_READOUTS][n_nodes] the read-outs: activation, repolarisation, apd
                             (ms, -1 before) and beats (fem/hs_readout.h) */
    double *ke, *re;      /* full assembly: [n_elems][16], [n_elems][4] */
    double *km, *rm;      /* split assembly: [n_elems] each (hs_element_point) */
    double *kval;         /* [n_slots] K in the SpMV format's slots */
    int k_stale;          /* split assembly: kval, kval32 and inv_diag are not yet those of the last
                             element pass (formed by the tangent op, which solve calls first) */
    float *kval32;        /* [n_slots] K rounded to float32 (solver.matrix_values = float32), else NULL */
    double *rhs, *du;     /* [n_nodes] */
    double *inv_diag;     /* [n_nodes] Jacobi */
    double *res_w;        /* [n_nodes] dt / m_I: residual in potential units */
    double *stim_e;       /* [n_elems] stimulus current per model time */
    double *phi_h1, *phi_h2; /* [n_nodes] phi_{n-1}, phi_{n-2}: the extrapolation history */
    hs_extrap ex;
    hs_cg_work *cg;
    /* solver.precond / solver.krylov other than Jacobi-CG (solvers/hs_precond.h): K in CSR (the
     * problem's pattern, values copied from kval), the preconditioner (pattern built once), the
     * Krylov work vectors, and the solves since its values were last computed */
    hs_csr *kcsr;
    hs_precond *pc;
    hs_krylov_work *kw;
    long pc_age;
    double dt;            /* model units */
    double res;           /* Newton residual of the last assembly (sets the inexact-Newton CG tolerance) */
    hs_phase_times times;
    const hs_sample_set *smp[HS_SAMPLE_SETS]; /* borrowed sampling matrices (probes, ECG) */
    double *sbuf[HS_SAMPLE_SETS];             /* [cap][n_rows] samples */
    int scap[HS_SAMPLE_SETS];
} cpu_impl;

/** @brief Element pass and assembly at the current phi (the backend's assemble op). */
hs_status hs_cpu_assemble(hs_backend *b, double *res_norm, int32_t *res_node);
/** @brief y = K x with the format's CPU reference (ctx: the cpu_impl); times it into times.spmv. */
void hs_cpu_matvec(void *ctx, const double *x, double *y);

extern const hs_backend_diag_ops hs_cpu_diag_ops;
/** On one rank's partition (part_cpu.c, built with MPI). */
extern const hs_backend_part_ops hs_cpu_part_ops;

#endif
