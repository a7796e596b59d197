/* `heartsim bench scale CONFIG` under mpirun -np P: strong scaling (the config's mesh) and weak
 * scaling (a box slab grown along x with the rank count, so nodes per rank stay fixed) over rank
 * counts 1, 2, 4, ..., P in one job (hs_par_subset_begin), time per step and per phase (maximum
 * over the ranks), halo and all-reduce time, parallel efficiency. */
#include <stdio.h>
#include <string.h>

#include "hs_bench.h"
#include "hs_build_config.h"
#include "hs_par.h"
#include "hs_spec.h"
#include "hs_util.h"
#if HS_HAS_MPI
#include "hs_backend_mpi.h"
#endif

#if HS_HAS_MPI
/* per step, seconds, maximum over the ranks: total, element, assembly, CG, halo wait, all-reduce;
 * then CG iterations per step */
enum { T_STEP, T_ELEM, T_ASM, T_CG, T_HALO, T_RED, T_N };

typedef struct scale_row {
    int ranks;
    int32_t nodes;
    double t[T_N];
    double cg_per_step;
} scale_row;

static hs_status measure(const hs_config *cfg, int steps, double warm_ms, scale_row *row)
{
    static hs_sim_spec spec; /* large (paths): not on the stack */
    HS_CALL(hs_spec_from_config(cfg, &spec));
    spec.output_enabled = 0;
    hs_sim sim;
    HS_CALL(hs_sim_create(&spec, &sim));
    hs_status st = HS_OK;
    hs_step_stats ss;
    const double dt = spec.dt;
    long k = 0, cg = 0;
    for (; k * dt < warm_ms - 1e-9; ++k) HS_CALL_GOTO(hs_sim_step(&sim, k * dt, dt, &ss), done);
    hs_phase_times p0, p1;
    hs_mpi_times m0, m1;
    sim.backend->ops->get_times(sim.backend, &p0);
    hs_backend_mpi_times(sim.backend, &m0);
    double w0 = hs_wtime();
    for (int q = 0; q < steps; ++q, ++k) {
        HS_CALL_GOTO(hs_sim_step(&sim, k * dt, dt, &ss), done);
        cg += ss.cg_iters;
    }
    double v[T_N];
    v[T_STEP] = hs_wtime() - w0;
    sim.backend->ops->get_times(sim.backend, &p1);
    hs_backend_mpi_times(sim.backend, &m1);
    v[T_ELEM] = p1.element - p0.element;
    v[T_ASM] = p1.assembly - p0.assembly;
    v[T_CG] = p1.solve - p0.solve;
    v[T_HALO] = m1.halo_wait - m0.halo_wait;
    v[T_RED] = m1.allreduce - m0.allreduce;
    hs_par_max_doubles(v, T_N);
    for (int i = 0; i < T_N; ++i) row->t[i] = v[i] / steps;
    row->nodes = sim.mesh->n_nodes;
    row->cg_per_step = (double)cg / steps;
done:
    hs_sim_destroy(&sim);
    return st;
}

static void print_table(const char *title, const scale_row *r, int n, int weak, FILE *f)
{
    fprintf(f, "\n%s\n\n", title);
    fprintf(f, "| ranks | nodes | nodes/rank | ms/step | element | assembly | CG | halo wait | all-reduce | CG it/step | efficiency |\n");
    fprintf(f, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < n; ++i) {
        const double eff = weak ? r[0].t[T_STEP] / r[i].t[T_STEP] : r[0].t[T_STEP] / (r[i].ranks * r[i].t[T_STEP]);
        fprintf(f, "| %d | %d | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.1f | %.2f |\n", r[i].ranks,
                (int)r[i].nodes, (int)(r[i].nodes / r[i].ranks), 1e3 * r[i].t[T_STEP], 1e3 * r[i].t[T_ELEM],
                1e3 * r[i].t[T_ASM], 1e3 * r[i].t[T_CG], 1e3 * r[i].t[T_HALO], 1e3 * r[i].t[T_RED], r[i].cg_per_step,
                eff);
    }
    fflush(f);
}
#endif

hs_status hs_bench_scale(const hs_config *cfg, int steps, double warm_ms, int tables)
{
#if HS_HAS_MPI
    HS_CHECK(hs_par_active(), HS_ERR_USAGE,
             "bench scale runs under an MPI launcher: mpirun -np P heartsim bench scale CONFIG (it measures 1, 2, "
             "4, ..., P ranks in one job)");
    const int P = hs_par_size(), me = hs_par_rank();
    int counts[32], n = 0;
    for (int p = 1; p < P && n < 31; p *= 2) counts[n++] = p;
    counts[n++] = P;
    scale_row strong[32], weak[32];
    memset(strong, 0, sizeof strong);
    memset(weak, 0, sizeof weak);
    static hs_config grown;
    const int can_weak = !strcmp(cfg->mesh_source, "box");
    HS_CHECK(can_weak || tables != 2, HS_ERR_USAGE,
             "bench scale --weak: weak scaling grows a box slab along x; %s has mesh.source = \"%s\"", cfg->path,
             cfg->mesh_source);
    for (int pass = 0; pass < 1 + can_weak; ++pass) {
        if (!(tables & (1 << pass))) continue;
        for (int i = 0; i < n; ++i) {
            scale_row *row = pass ? &weak[i] : &strong[i];
            row->ranks = counts[i];
            hs_status st = HS_OK;
            if (hs_par_subset_begin(counts[i])) {
                grown = *cfg;
                if (pass) grown.box.lx = cfg->box.lx * counts[i]; /* weak: the slab grows along x */
                st = measure(&grown, steps, warm_ms, row);
            }
            hs_par_subset_end();
            HS_CALL(st);
        }
    }
    if (me == 0) {
        printf("bench scale: %s, %d timed steps after %g ms; times per step, the maximum over the ranks; "
               "efficiency: strong T1 / (p Tp), weak T1 / Tp\n",
               cfg->path, steps, warm_ms);
        if (tables & 1) print_table("strong scaling (the config's mesh)", strong, n, 0, stdout);
        if (can_weak && (tables & 2))
            print_table("weak scaling (mesh.lx times the rank count)", weak, n, 1, stdout);
        else if (!can_weak)
            printf("\nweak scaling: only for mesh.source = \"box\" (the slab is grown along x)\n");
    }
    return HS_OK;
#else
    (void)cfg;
    (void)steps;
    (void)warm_ms;
    (void)tables;
    return HS_FAIL(HS_ERR_USAGE, "bench scale needs a build with MPI (install libopenmpi-dev openmpi-bin, "
                                 "scripts/setup-debian.sh, and rebuild)");
#endif
}
