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
#include "hs_comm.h"
#include "hs_extrapolate.h"
#include "hs_precond.h"
#include "hs_spmv.h"

/* The element pass runs on OpenMP threads from this many elements, serial below (a local Newton
 * iteration and the element's share of K and R: ~17 ns an element on one core, so two threads pay
 * from ~150-250 elements; measured on the 2-core development machine, issue 30, docs/benchmarks.md
 * "OpenMP thresholds"). The gathers of K and R: HS_OMP_MIN_ASSEMBLY_ELEMS (fem/hs_fem.h); CG's
 * vector operations and the SpMV: HS_OMP_MIN rows (common/hs_util.h). These small-mesh thresholds
 * hold while every thread has a core (hs_cpu_omp_cores_free); otherwise both passes stay serial below
 * HS_OMP_MIN elements, as before issue 30. */
#define HS_CPU_OMP_MIN_ELEMS 256

/**
 * @brief Whether @p threads threads each find a core of their own among @p n_cpus with the
 * 1-minute load average @p loadavg of the other processes (the run's own has not started): load <=
 * n_cpus - threads + 0.5. A parallel region waits until every one of its threads is scheduled: on
 * cores taken by other work that costs a scheduler time slice (milliseconds) per region, more than a
 * small mesh's pass takes (test_wave_speed: 224 s on 2 threads against 13 s on 1 at load 11 on 2
 * cores, with the small-mesh thresholds), so small meshes keep one thread there.
 */
int hs_cpu_omp_cores_free(int threads, int n_cpus, double loadavg);

/**
 * @brief What of a step runs on OpenMP threads, for the backend's description: "2 threads;
 * parallel: element pass, assembly; serial here: CG (<= 16384 rows)", or "1 thread". @p min_elem,
 * @p min_asm: the element pass's and the assembly's thresholds in effect (elements); @p why: said
 * after a serial pass's threshold when not empty ("load average 7.2 on 2 cores").
 */
void hs_cpu_omp_text(int threads, int min_elem, int min_asm, const char *why, int64_t n_elems, int64_t n_rows,
                     char *buf, size_t size);

typedef struct cpu_impl {
    hs_spmv_layout *lay;
    double *phi, *phi_n;  /* [n_nodes] */
    double *ipv, *ipv_n;  /* [n_vars][n_elems] the model's variables at the integration points (Newton), or
                             [n_vars][n_nodes] at the nodes (splitting: hs_state_vars_stride) */
    double *act;          /* [HS_STATE_READOUTS][n_nodes] the read-outs: activation, repolarisation, apd
                             (ms, -1 before) and beats (fem/hs_readout.h) */
    double *ke, *re;      /* full assembly: [n_elems][16], [n_elems][4] */
    double *km, *rm;      /* split assembly: [n_elems] each (hs_element_point) */
    double *kval;         /* [n_slots] K in the SpMV format's slots */
    int min_elem, min_asm; /* OpenMP: element pass, assembly gathers parallel from these many elements */
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
    /* The partition the solve runs on: &serial (one partition, every node owned and interior, no
     * ghost: every halo exchange and reduction a no-op), or a rank's comm while the backend is bound
     * to a partition (part_cpu.c). cg->comm is the same. */
    hs_comm serial;
    hs_comm *comm;
    /* solver.precond / solver.krylov other than Jacobi-CG (solvers/hs_precond.h): K in CSR (the
     * problem's pattern, values copied from kval), the preconditioner (pattern built once), the
     * Krylov work vectors, and the solves since its values were last computed */
    hs_csr *kcsr;
    hs_precond *pc;
    hs_krylov_work *kw;
    long pc_age;
    /* the splitting scheme (split_cpu.c; NULL / 0 under Newton) */
    int splitting;        /* 1: solver.scheme = "splitting" */
    double *stim_n;       /* [n_nodes] the reaction's current at each node */
    double *bval;         /* [n_slots] B = M - (1-theta) dt K in the format's slots; NULL when B = diag(m)
                             (lumped mass, theta = 1). kval holds A = M + theta dt K */
    double *split_b;      /* [n_nodes] B u* */
    double split_dt;      /* dt (model units) A and B were assembled for; 0: not yet */
    double dt;            /* model units */
    double res;           /* Newton residual of the last assembly (sets the inexact-Newton CG tolerance) */
    hs_phase_times times;
    const hs_sample_set *smp[HS_SAMPLE_SETS]; /* borrowed sampling matrices (probes, ECG) */
    double *sbuf[HS_SAMPLE_SETS];             /* [cap][n_rows] samples */
    int scap[HS_SAMPLE_SETS];
} cpu_impl;

/** @brief Element pass and assembly at the current phi (the backend's assemble op). */
hs_status hs_cpu_assemble(hs_backend *b, double *res_norm, int32_t *res_node);
/** @brief y = K x on the owned rows of the backend's partition (ctx: the cpu_impl) with the format's
 *  CPU reference: the halo of x posted (comm), the interior rows, the halo awaited, the boundary
 *  rows; serially the whole matrix, nothing exchanged. x [n_local]: its ghost part is filled here
 *  (a CG work vector, never the caller's constant). Times it into times.spmv. */
void hs_cpu_matvec(void *ctx, const double *x, double *y);
/**
 * @brief The backend's linear solve on its partition (the serial run: the whole mesh): K du = rhs
 * over the owned rows with the CG variant of @p o (tolerance already forced) or, serially, the
 * configured Krylov method and preconditioner; when it converged, phi -= du on the owned rows and
 * phi's ghosts from their owners. @p upd_local: max |du| over the owned rows. Collective over comm.
 */
hs_status hs_cpu_solve_on(hs_backend *b, const hs_cg_opts *o, hs_cg_result *cg, double *upd_local);

/** @brief The splitting scheme's reaction (hs_backend_ops.react; split_cpu.c). */
hs_status hs_cpu_react(hs_backend *b, double h, int n_sub, const double *site_amp, int32_t *bad_node);
/** @brief The splitting scheme's diffusion solve (hs_backend_ops.diffuse; split_cpu.c). */
hs_status hs_cpu_diffuse(hs_backend *b, double dt, hs_cg_result *cg);

extern const hs_backend_diag_ops hs_cpu_diag_ops;
/** On one rank's partition (part_cpu.c, built with MPI). */
extern const hs_backend_part_ops hs_cpu_part_ops;

#endif
