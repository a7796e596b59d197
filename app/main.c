/* The heartsim command: argument parsing and dispatch. The only place that exits. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_bench.h"
#include "hs_build_config.h"
#include "hs_config.h"
#include "hs_help.h"
#include "hs_cell_cmd.h"
#include "hs_mesh_cmd.h"
#include "hs_resume_cmd.h"
#include "hs_par.h"
#include "hs_run_cmd.h"
#include "hs_spmv.h"
#include "hs_tune_cv.h"
#include "hs_util.h"

#define MAX_SETS 256

static const char *usage_text =
    "usage: heartsim <command> [options]\n"
    "\n"
    "commands:\n"
    "  run CONFIG [--set KEY=VALUE ...] [--out DIR] [--restart DIR|FILE]\n"
    "                                                 run a simulation, write VTK frames; --restart\n"
    "                                                 continues from a checkpoint (newest in DIR)\n"
    "  check CONFIG [--set KEY=VALUE ...]             validate and print the resolved configuration\n"
    "  mesh CONFIG [--set KEY=VALUE ...] [--out DIR]  build the mesh as run would, report its quality,\n"
    "                                                 labels and matrix size, write it to VTK\n"
    "  cell CONFIG [--set KEY=VALUE ...] [--out DIR]  the ionic model alone at one point under the\n"
    "                                                 stimulus timing: CSV + PNG trace, APD90 per beat\n"
    "  bench step CONFIG [--reps N] [--warm MS] [--no-cpu] [--models] [--set ...]\n"
    "                                                 per-phase medians vs bandwidth floors, cuda and cpu\n"
    "  bench spmv [CONFIG | --matrix FILE.mtx] [--reps N] [--kernels a,b,...] [--csv FILE] [--json FILE]\n"
    "                                                 every SpMV kernel on one matrix (GPU): checked, timed\n"
    "  bench cg CONFIG [--reps N] [--iters K] [--set ...]\n"
    "  bench scale CONFIG [--reps N] [--warm MS] [--transports a,b] [--strong | --weak] [--set ...]\n"
    "                                            (under mpirun -np P)\n"
    "                                                 Jacobi-PCG per iteration (GPU): naive cuSPARSE+cuBLAS,\n"
    "                                                 classic, Chronopoulos-Gear; stream and CUDA graph\n"
    "  bench solve [CONFIG | --matrix FILE.mtx] [--rhs FILE] [--reps N] [--tol T]\n"
    "                                                 Jacobi/FSAI-PCG, SAI/Jacobi-BiCGStab on one matrix:\n"
    "                                                 set-up, iterations, time (GPU + cuSPARSE, else CPU)\n"
    "  tune-cv CONFIG [--cv-l V] [--cv-t V] [--h MM] [--dt MS] [--tol T] [--set ...]\n"
    "                                                 conductivities for target conduction velocities\n"
    "                                                 (m/s) with the config's model, h and dt\n"
    "  kernels                                        list the SpMV kernels (solver.spmv), preconditioners\n"
    "                                                 (solver.precond) and Krylov methods (solver.krylov)\n"
    "  config-reference                               print the table of every config key\n"
    "\n"
    "options:\n"
    "  --set KEY=VALUE   override a config key, e.g. --set time.dt=0.05 --set solver.backend=cpu\n"
    "  --out DIR         write output to DIR (same as --set output.dir=\"DIR\")\n"
    "  -q, --quiet       errors only;  -v, --verbose   more detail (error source locations)\n"
    "  -h, --help        this text;    --version       version and build features\n"
    "  heartsim COMMAND --help        usage, options and an example of one command\n"
    "\n"
    "exit codes: 0 success, 1 usage, 2 config, 3 mesh, 4 I/O, 5 numerical failure (Newton/CG),\n"
    "            6 device (CUDA), 7 out of memory, 8 interrupted (SIGINT/SIGTERM; checkpoint written),\n"
    "            9 internal error\n"
    "documentation: docs/cli.md, docs/config.md\n";

static int fail(hs_status st)
{
    if (hs_par_active()) {
        /* A distributed run: an error every rank returns alike (numerical, interrupted, or agreed by
         * the distributed backend) is printed once, by rank 0, and every rank ends normally; an
         * error of this rank alone ends every rank through MPI_Abort after its message. */
        const int agreed = st == HS_ERR_NUMERIC || st == HS_ERR_INTERRUPTED || hs_par_agreed() == (int)st;
        if (!agreed || hs_par_rank() == 0) {
            if (agreed || hs_par_size() == 1)
                fprintf(stderr, "heartsim: error: %s\n", hs_error_message());
            else
                fprintf(stderr, "heartsim: error on rank %d of %d (ending every rank): %s\n", hs_par_rank(),
                        hs_par_size(), hs_error_message());
        }
        if (!agreed) hs_par_abort((int)st);
        hs_par_finalize();
        return (int)st;
    }
    fprintf(stderr, "heartsim: error: %s\n", hs_error_message());
    if (hs_verbosity >= 2) fprintf(stderr, "heartsim: (detected at %s)\n", hs_error_location());
    return (int)st;
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "heartsim: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nrun 'heartsim --help' for usage\n");
    return HS_ERR_USAGE;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_text, stderr);
        return HS_ERR_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("heartsim %s (CUDA backend: %s)\n", HS_VERSION, HS_HAS_CUDA ? "built" : "not built");
        return 0;
    }
    /* COMMAND [SUBCOMMAND] ... --help: that command's usage, options and an example */
    {
        char which[64];
        snprintf(which, sizeof which, "%s", cmd);
        int k = 2;
        if (!strcmp(cmd, "bench") && argc > 2 && (!strcmp(argv[2], "step") || !strcmp(argv[2], "spmv") ||
                                                   !strcmp(argv[2], "cg") || !strcmp(argv[2], "solve") ||
                                                   !strcmp(argv[2], "scale"))) {
            snprintf(which, sizeof which, "bench %s", argv[2]);
            k = 3;
        }
        for (int i = k; i < argc; ++i)
            if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
                return hs_help_print(which, stdout) == 0 ? 0 : usage_error("unknown command \"%s\"", cmd);
    }
    if (!strcmp(cmd, "kernels")) {
        hs_kernels_print(stdout);
        return 0;
    }
    if (!strcmp(cmd, "config-reference")) {
        hs_config_print_reference(stdout);
        return 0;
    }
    int first = 2, bench = 0; /* bench: 1 step, 2 spmv, 3 cg, 4 solve, 5 scale */
    if (!strcmp(cmd, "bench")) {
        if (argc < 3 || (strcmp(argv[2], "step") && strcmp(argv[2], "spmv") && strcmp(argv[2], "cg") &&
                         strcmp(argv[2], "solve") && strcmp(argv[2], "scale")))
            return usage_error("%s", "bench needs a subcommand: bench step CONFIG, bench cg CONFIG, bench scale CONFIG, bench spmv [CONFIG | --matrix FILE.mtx], or bench solve [CONFIG | --matrix FILE.mtx]");
        bench = !strcmp(argv[2], "spmv") ? 2 : !strcmp(argv[2], "cg") ? 3 : !strcmp(argv[2], "solve") ? 4 : !strcmp(argv[2], "scale") ? 5 : 1;
        first = 3;
    } else if (strcmp(cmd, "run") && strcmp(cmd, "check") && strcmp(cmd, "mesh") && strcmp(cmd, "cell") &&
               strcmp(cmd, "tune-cv")) {
        return usage_error("unknown command \"%s\"", cmd);
    }
    int reps = 0, cpu_too = 1, models = 0; /* reps 0: the default, 20 (step) or 200 (spmv) */
    const char *matrix = NULL, *csv = NULL, *json = NULL, *kernels = NULL, *restart = NULL, *rhs = NULL;
    double solve_tol = 1e-8;
    int solve_max_iter = 10000, sai_level = 1;
    double warm = 5.0;
    int cg_iters = 100;
    int scale_tables = 3; /* bench scale: 1 strong, 2 weak, 3 both */
    hs_mesh_export_kind mesh_export = HS_MESH_EXPORT_GMSH; /* mesh --export */
    hs_tune_cv_opts tune = {0};

    const char *cfg_path = NULL;
    const char *transports = NULL; /* bench scale --transports */
    static const char *sets[MAX_SETS];
    static char out_set[HS_PATH_MAX + 32];
    int n_sets = 0;
    for (int i = first; i < argc; ++i) {
        const char *a = argv[i];
        if (!strcmp(cmd, "mesh") && !strcmp(a, "--export") && i + 1 < argc) {
            const char *v = argv[++i];
            if (strcmp(v, "gmsh") && strcmp(v, "opencarp"))
                return usage_error("--export takes gmsh or opencarp, got \"%s\"", v);
            mesh_export = !strcmp(v, "opencarp") ? HS_MESH_EXPORT_OPENCARP : HS_MESH_EXPORT_GMSH;
        } else if (bench && !strcmp(a, "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
            if (reps < 1) return usage_error("--reps needs a positive count, got \"%s\"", argv[i]);
        } else if ((bench == 1 || bench == 5) && !strcmp(a, "--warm") && i + 1 < argc) {
            warm = atof(argv[++i]);
        } else if (bench == 5 && !strcmp(a, "--transports") && i + 1 < argc) {
            transports = argv[++i];
        } else if (bench == 3 && !strcmp(a, "--iters") && i + 1 < argc) {
            cg_iters = atoi(argv[++i]);
            if (cg_iters < 1) return usage_error("--iters needs a positive count, got \"%s\"", argv[i]);
        } else if (bench == 5 && (!strcmp(a, "--strong") || !strcmp(a, "--weak"))) {
            scale_tables = !strcmp(a, "--strong") ? 1 : 2;
        } else if (bench == 1 && !strcmp(a, "--no-cpu")) {
            cpu_too = 0;
        } else if (bench == 1 && !strcmp(a, "--models")) {
            models = 1;
        } else if (bench == 2 && (!strcmp(a, "--matrix") || !strcmp(a, "--csv") || !strcmp(a, "--json") ||
                                  !strcmp(a, "--kernels"))) {
            if (i + 1 >= argc) return usage_error("%s needs a value", a);
            const char *v = argv[++i];
            if (!strcmp(a, "--matrix")) matrix = v;
            else if (!strcmp(a, "--csv")) csv = v;
            else if (!strcmp(a, "--json")) json = v;
            else kernels = v;
        } else if (bench == 4 && (!strcmp(a, "--matrix") || !strcmp(a, "--rhs") || !strcmp(a, "--tol") ||
                                  !strcmp(a, "--max-iter") || !strcmp(a, "--sai-level"))) {
            if (i + 1 >= argc) return usage_error("%s needs a value", a);
            const char *v = argv[++i];
            char *end = NULL;
            if (!strcmp(a, "--matrix")) matrix = v;
            else if (!strcmp(a, "--rhs")) rhs = v;
            else if (!strcmp(a, "--tol")) {
                solve_tol = strtod(v, &end);
                if (end == v || *end || !(solve_tol > 0 && solve_tol < 1)) return usage_error("--tol needs a number in (0, 1), got \"%s\"", v);
            } else {
                long l = strtol(v, &end, 10);
                int lvl = !strcmp(a, "--sai-level");
                if (end == v || *end || l < 1 || (lvl && l > 2) || l > 100000000)
                    return usage_error(lvl ? "--sai-level needs 1 or 2, got \"%s\"" : "--max-iter needs a positive count, got \"%s\"", v);
                if (lvl) sai_level = (int)l; else solve_max_iter = (int)l;
            }
        } else if (!strcmp(cmd, "tune-cv") &&
                   (!strcmp(a, "--cv-l") || !strcmp(a, "--cv-t") || !strcmp(a, "--h") || !strcmp(a, "--dt") ||
                    !strcmp(a, "--tol") || !strcmp(a, "--max-iter") || !strcmp(a, "--length") ||
                    !strcmp(a, "--stim-strength") || !strcmp(a, "--stim-duration"))) {
            if (i + 1 >= argc) return usage_error("%s needs a value", a);
            const char *v = argv[++i];
            char *end = NULL;
            double x = strtod(v, &end);
            if (end == v || *end || !(x > 0) || x > 1e9) return usage_error("tune-cv: needs a positive number, got \"%s\"", v);
            if (!strcmp(a, "--tol") && !(x < 0.5)) return usage_error("--tol needs a relative tolerance below 0.5, got \"%s\"", v);
            if (!strcmp(a, "--cv-l")) tune.cv_l = x;
            else if (!strcmp(a, "--cv-t")) tune.cv_t = x;
            else if (!strcmp(a, "--h")) tune.h = x;
            else if (!strcmp(a, "--dt")) tune.dt = x;
            else if (!strcmp(a, "--tol")) tune.tol = x;
            else if (!strcmp(a, "--length")) tune.length = x;
            else if (!strcmp(a, "--stim-strength")) tune.stim_strength = x;
            else if (!strcmp(a, "--stim-duration")) tune.stim_duration = x;
            else {
                if (x != floor(x) || x > 1000) return usage_error("--max-iter needs a count up to 1000, got \"%s\"", v);
                tune.max_iter = (int)x;
            }
        } else if (!strcmp(cmd, "run") && !strcmp(a, "--restart")) {
            if (i + 1 >= argc) return usage_error("%s needs a checkpoint file or a directory", a);
            restart = argv[++i];
        } else if (!strcmp(a, "--set")) {
            if (i + 1 >= argc) return usage_error("%s needs KEY=VALUE", a);
            if (n_sets == MAX_SETS - 1) return usage_error("too many %s options", a);
            sets[n_sets++] = argv[++i];
        } else if (!strncmp(a, "--set=", 6)) {
            if (n_sets == MAX_SETS - 1) return usage_error("too many %s options", "--set");
            sets[n_sets++] = a + 6;
        } else if (!strcmp(a, "--scheme") && !strcmp(cmd, "cell")) { /* = --set solver.scheme=NAME */
            if (i + 1 >= argc || strchr(argv[i + 1], '"')) return usage_error("%s needs newton, splitting or auto", a);
            if (n_sets == MAX_SETS - 1) return usage_error("too many %s options", "--set");
            static char scheme_set[64];
            snprintf(scheme_set, sizeof scheme_set, "solver.scheme=\"%.40s\"", argv[++i]);
            sets[n_sets++] = scheme_set;
        } else if (!strcmp(a, "--out")) {
            if (i + 1 >= argc) return usage_error("%s needs a directory", a);
            if (strchr(argv[i + 1], '"')) return usage_error("--out: directory names with '\"' are not supported: %s", argv[i + 1]);
            snprintf(out_set, sizeof out_set, "output.dir=\"%s\"", argv[++i]);
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            hs_verbosity = 0;
        } else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
            hs_verbosity = 2;
        } else if (a[0] == '-') {
            return usage_error("unknown option \"%s\"", a);
        } else if (!cfg_path) {
            cfg_path = a;
        } else {
            return usage_error("unexpected argument \"%s\" (one config file expected)", a);
        }
    }
    if (reps == 0) reps = bench == 2 ? 200 : bench == 4 ? 3 : 20;
    if (bench == 4 && matrix) {
        if (cfg_path) return usage_error("%s", "bench solve takes a config file or --matrix FILE.mtx, not both");
        if (n_sets || out_set[0]) return usage_error("%s", "--set and --out apply to a config file, not to --matrix");
        hs_bench_solve_opts so = {NULL, matrix, rhs, reps, solve_tol, solve_max_iter, sai_level};
        hs_status st = hs_bench_solve(&so);
        return st == HS_OK ? 0 : fail(st);
    }
    if (!cfg_path && bench == 4) return usage_error("%s", "bench solve needs a config file or --matrix FILE.mtx");
    if (bench == 3 && reps > 50) reps = 50;
    if (bench == 2 && matrix) {
        if (cfg_path) return usage_error("%s", "bench spmv takes a config file or --matrix FILE.mtx, not both");
        if (n_sets || out_set[0]) return usage_error("%s", "--set and --out apply to a config file, not to --matrix");
        hs_bench_spmv_opts bo = {NULL, matrix, reps, csv, json, kernels};
        hs_status st = hs_bench_spmv(&bo);
        return st == HS_OK ? 0 : fail(st);
    }
    if (!cfg_path && bench == 2) return usage_error("%s", "bench spmv needs a config file or --matrix FILE.mtx");
    if (!cfg_path) return usage_error("%s needs a config file", cmd);
    const int n_user_sets = n_sets; /* the --set options as given, for the resume hint */
    if (out_set[0]) sets[n_sets++] = out_set; /* --out wins over --set output.dir */

    hs_status st = HS_OK;
    if (!strcmp(cmd, "run") || bench == 5) {
        /* under mpirun / srun: one simulation over the ranks (docs/parallel.md); only rank 0 talks */
        st = hs_par_init(&argc, &argv);
        if (st != HS_OK) return fail(st);
        if (hs_par_rank() != 0) hs_verbosity = 0;
    }
    static hs_config cfg;
    st = hs_config_load(cfg_path, sets, n_sets, &cfg);
    st = hs_par_agree(st); /* under mpirun every rank reads the same files: an error is said once */
    if (st != HS_OK) return fail(st);
    if (bench == 2) {
        hs_bench_spmv_opts bo = {&cfg, NULL, reps, csv, json, kernels};
        st = hs_bench_spmv(&bo);
        return st == HS_OK ? 0 : fail(st);
    }
    if (bench == 4) {
        hs_bench_solve_opts so = {&cfg, NULL, rhs, reps, solve_tol, solve_max_iter, cfg.sai_level};
        st = hs_bench_solve(&so);
        return st == HS_OK ? 0 : fail(st);
    }
    if (bench == 3) {
        st = hs_bench_cg(&cfg, cg_iters, reps);
        return st == HS_OK ? 0 : fail(st);
    }
    if (bench == 5) {
        st = hs_bench_scale(&cfg, reps, warm, transports, scale_tables);
        if (st != HS_OK) return fail(st);
        hs_par_finalize();
        return 0;
    }
    if (bench) {
        st = hs_bench_step(&cfg, reps, warm, cpu_too, models);
        return st == HS_OK ? 0 : fail(st);
    }
    if (!strcmp(cmd, "mesh")) {
        st = hs_mesh_command(&cfg, mesh_export, stdout);
        return st == HS_OK ? 0 : fail(st);
    }
    if (!strcmp(cmd, "tune-cv")) {
        st = hs_tune_cv_command(&cfg, &tune, stdout);
        return st == HS_OK ? 0 : fail(st);
    }
    if (!strcmp(cmd, "cell")) {
        st = hs_cell_command(&cfg, stdout);
        return st == HS_OK ? 0 : fail(st);
    }
    if (!strcmp(cmd, "check")) {
        hs_config_print(&cfg, stdout);
        fprintf(stderr, "heartsim: %s is valid\n", cfg_path);
        return 0;
    }
    static char resume_cmd[16384];
    if (hs_resume_command(argv[0], cfg_path, sets, n_user_sets, cfg.out_dir, resume_cmd, sizeof resume_cmd) != 0)
        resume_cmd[0] = '\0'; /* too long to print usefully: the generic hint */
    char resume_note[1024] = "";
    if (hs_par_active() && resume_cmd[0]) { /* continue it the way it was started: the launcher's own words */
        static char lbuf[16384];
        const char *lwords[512];
        char fallback[128];
        const int ln = hs_launcher_argv(lbuf, sizeof lbuf, lwords, 512);
        hs_resume_fallback_launcher(hs_par_size(), fallback, sizeof fallback);
        hs_resume_with_launcher(lwords, ln, argv[0], fallback, resume_cmd, sizeof resume_cmd, resume_note,
                                sizeof resume_note);
    }
    st = hs_run_command(&cfg, restart, resume_cmd);
    if (st == HS_ERR_INTERRUPTED && resume_note[0] && hs_par_rank() == 0) {
        const int rc = fail(st);
        fprintf(stderr, "heartsim: note: %s\n", resume_note);
        return rc;
    }
    if (st != HS_OK) return fail(st);
    hs_par_finalize();
    return 0;
}
