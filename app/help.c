/* `heartsim COMMAND --help` and the `heartsim kernels` table (hs_help.h). */
#include "hs_help.h"

#include <string.h>

#include "hs_precond.h"
#include "hs_spmv.h"

static const char common_opts[] =
    "  --set KEY=VALUE   override a config key (repeatable; docs/config.md), e.g. --set time.dt=0.05\n"
    "  --out DIR         write output to DIR (same as --set output.dir=\"DIR\")\n"
    "  -q, --quiet       errors only;  -v, --verbose   more detail (error source locations)\n"
    "  -h, --help        this text\n";

typedef struct help_entry {
    const char *cmd, *usage, *what, *opts, *example;
    int common; /* 1: the --set/--out/-q/-v block applies */
} help_entry;

static const help_entry helps[] = {
    {"run", "heartsim run CONFIG [--set KEY=VALUE ...] [--out DIR] [--restart DIR|FILE] [-q | -v]",
     "Run a simulation: build the mesh (or take it from the mesh cache), step to time.t_end, write frames\n"
     "every output.interval ms into output.dir and checkpoints every output.checkpoint_interval ms.\n"
     "SIGINT/SIGTERM stop at the next step end with a checkpoint and print the command that resumes.",
     "  --restart DIR|FILE  continue from a checkpoint (the newest intact one in DIR); restart into the\n"
     "                      output directory of the interrupted run, with a later time.t_end\n",
     "heartsim run configs/quick_slab.cfg --set time.t_end=5 --out /tmp/slab\n"
     "  heartsim run configs/quick_slab.cfg --set time.t_end=10 --out /tmp/slab --restart /tmp/slab", 1},
    {"check", "heartsim check CONFIG [--set KEY=VALUE ...] [--out DIR] [-q | -v]",
     "Validate the configuration and print it resolved, with every default, as a config file that loads\n"
     "again; problems are reported with file and line (exit 2).",
     "", "heartsim check configs/lv_ellipsoid.cfg --set mesh.h=2 > resolved.cfg", 1},
    {"mesh", "heartsim mesh CONFIG [--export gmsh|opencarp] [--set KEY=VALUE ...] [--out DIR] [-q | -v]",
     "Build the mesh exactly as `run` would (source, checks, fibres, reordering), report its quality,\n"
     "labels and matrix size, and write DIR/PREFIX_mesh.vtk (tetrahedra with region and fiber, points\n"
     "with label) and DIR/PREFIX_surface.vtk (labelled boundary) to look at, and DIR/PREFIX_mesh.msh with\n"
     "DIR/PREFIX_fibers.txt to run on: the report's \"run on it\" line gives the config lines (same\n"
     "nodes, labels by name, regions and fibres as the run that built it). --export opencarp writes the\n"
     "copy as openCARP files instead (DIR/PREFIX_mesh.pts in um, .elem with the regions, .lon when the\n"
     "fibres vary; no boundary labels), the format every rank of an mpirun reads a block of\n"
     "(parallel.read = \"ranks\").",
     "", "heartsim mesh configs/lv_ellipsoid.cfg --set mesh.h=2 --out /tmp/lv", 1},
    {"bench step", "heartsim bench step CONFIG [--reps N] [--warm MS] [--no-cpu] [--models] [--set ...] [--out DIR]",
     "Per-phase medians of a time step (element, assembly, SpMV, CG iteration, whole step, one frame)\n"
     "against bandwidth floors, on the cuda backend when a GPU is found and on the cpu backend.",
     "  --reps N      repetitions per phase (default 20)\n"
     "  --warm MS     simulated ms before measuring, so a front is in the tissue (default 5)\n"
     "  --no-cpu      measure only the cuda backend (the cpu is measured when no GPU is found)\n"
     "  --models      also the element phase of every ionic model (its defaults) against its floor\n",
     "heartsim bench step configs/bench_50k.cfg --reps 50 --models", 1},
    {"bench spmv", "heartsim bench spmv [CONFIG [--set ...] | --matrix FILE.mtx] [--reps N] [--kernels a,b,...]\n"
                   "                    [--csv FILE] [--json FILE]",
     "Every SpMV kernel on one matrix (the run's after one assembly, or a Matrix Market file), checked\n"
     "against the CSR product, then timed. On a GPU: the device kernels with effective bandwidth and the\n"
     "break-even count alpha against cuSPARSE. Without a GPU: the kernels' CPU references (the same\n"
     "function, summed in the device's order), checked and timed on the host.",
     "  --matrix FILE.mtx   a Matrix Market file instead of a config\n"
     "  --reps N            timed applies per kernel (default 200)\n"
     "  --kernels a,b,...   only these kernels (heartsim kernels)\n"
     "  --csv FILE, --json FILE   also write the results there (GPU table)\n",
     "heartsim bench spmv --matrix K.mtx --kernels csr_scalar,ellwarp_k1", 1},
    {"bench cg", "heartsim bench cg CONFIG [--reps N] [--iters K] [--set ...]",
     "Jacobi-PCG iterations on the config's tangent on the GPU: the naive cuSPARSE + cuBLAS baseline,\n"
     "the classic and Chronopoulos-Gear variants, stream and CUDA-graph launch. Needs a GPU (exit 6\n"
     "before any work when none is found); there is no CPU variant of this benchmark.",
     "  --reps N      timed solves (default 20, at most 50)\n"
     "  --iters K     iterations per timed solve (default 100)\n",
     "heartsim bench cg configs/bench_1m.cfg --iters 200", 1},
    {"bench solve", "heartsim bench solve [CONFIG [--set ...] | --matrix FILE.mtx] [--rhs FILE] [--reps N] [--tol T]\n"
                    "                     [--max-iter K] [--sai-level 1|2]",
     "Jacobi-PCG, FSAI-PCG, SAI-BiCGStab and Jacobi-BiCGStab (seed 004 ch. 5) on one matrix (the run's\n"
     "tangent after one assembly, or a general or symmetric Matrix Market file): pattern and value set-up\n"
     "time, iterations and time to the tolerance from x = 0, time per iteration, the true residual.\n"
     "Right-hand side A * 1 unless --rhs gives one (Matrix Market array n x 1, or plain numbers). On the\n"
     "GPU with cuSPARSE + cuBLAS baselines when one is found, else on the CPU. A preconditioner that fails\n"
     "(zero diagonal, singular, not SPD) is reported in its row; exit 5 when no method converged.",
     "  --matrix FILE.mtx   a Matrix Market file instead of a config\n"
     "  --rhs FILE          the right-hand side (default A * 1)\n"
     "  --reps N            timed solves per method, median (default 3)\n"
     "  --tol T             ||r|| <= T ||b|| (default 1e-8); --max-iter K (default 10000)\n"
     "  --sai-level 1|2     SAI/FSAI pattern of A^k for --matrix (a config uses solver.sai_level)\n",
     "heartsim bench solve --matrix K.mtx --reps 5", 1},
    {"cell", "heartsim cell CONFIG [--scheme NAME] [--set KEY=VALUE ...] [--out DIR] [-q | -v]",
     "Run the configured ionic model (model.type, model.preset, model.* parameters, model.gates) alone at\n"
     "one point, without diffusion: du/dt = f(u, s) + stim, stepped as the tissue is, to time.t_end: under\n"
     "solver.scheme = newton by backward Euler (time.dt, the local update and a Newton iteration on u),\n"
     "under splitting by the tissue's nodal reaction (solver.splitting, solver.dt_ode); --scheme NAME is\n"
     "--set solver.scheme=NAME. Every stimulus entry paces the\n"
     "point with its start, duration, strength, period and count (its site is not used). Writes\n"
     "DIR/PREFIX_cell.csv (t_ms, V_mV, the potential and every state variable, each step) and\n"
     "DIR/PREFIX_cell.png (V(t)); prints per beat (one per distinct pulse start) the activation time,\n"
     "APD90 and peak V. Check a parameter set here before a tissue run.",
     "",
     "heartsim cell configs/lv_paced.cfg --set time.t_end=1200 --out /tmp/cell", 1},
    {"tune-cv", "heartsim tune-cv CONFIG [--cv-l V] [--cv-t V] [--h MM] [--dt MS] [--tol T] [--set ...] [-q | -v]",
     "Find the conductivities that give target conduction velocities with the config's model, parameters,\n"
     "solver and backend at a mesh size h and time step dt, as openCARP's tuneCV does (Costa et al. 2013):\n"
     "a plane wave on a strip one element thick (length x h x h mm, box mesh, stimulated at x = 0), its\n"
     "speed the inverse slope of the activation times over the middle third; the diffusion is scaled by\n"
     "(cv_target / cv)^2 and the strip run again until the speed is within the tolerance, along and then\n"
     "across the fibre, starting from the config's D. Prints each simulation, a table of D (mm^2/ms) and\n"
     "sigma (S/m, with tissue.chi and c_m; scaled intra- and extracellular values when the config gives\n"
     "them) with the speeds reached, and a config snippet to paste.",
     "  --cv-l V, --cv-t V  target speeds along / across the fibre, m/s (default 0.6, 0.3)\n"
     "  --h MM              strip edge length (default mesh.h); --dt MS time step (default time.dt)\n"
     "  --tol T             relative tolerance on the speed (default 0.001); --max-iter N (default 20)\n"
     "  --length MM         strip length (default 30, at least 60 h)\n"
     "  --stim-strength S   1/ms, --stim-duration MS: the pulse at x = 0 (default: the first stimulus\n"
     "                      entry's, else 2/ms for 2 ms)\n",
     "heartsim tune-cv configs/lv_paced.cfg --cv-l 0.6 --cv-t 0.3 --h 1.0", 1},
    {"bench scale", "mpirun -np P heartsim bench scale CONFIG [--reps N] [--warm MS] [--transports a,b] "
     "[--strong | --weak] [--set ...]",
     "Strong scaling (the config's mesh) and weak scaling (mesh.source = \"box\": the slab grown along x\n"
     "with the rank count) over 1, 2, 4, ..., P ranks in one MPI job, the distributed backend of\n"
     "solver.backend on each rank (auto: cuda where a GPU is present, a GPU per rank): time per\n"
     "step and per phase (element, assembly, CG, halo wait, all-reduce; maximum over the ranks), CG\n"
     "iterations, parallel efficiency. Markdown tables on stdout (docs/parallel.md).",
     "  --reps N      timed steps per row (default 20)\n"
     "  --warm MS     simulated time before timing, so a front is in the tissue (default 5)\n"
     "  --transports a,b  the tables once per parallel.transport named (auto, nccl, ipc, mpi), side by\n"
     "                side in one job (default: the config's)\n"
     "  --strong      the strong-scaling table only; --weak: the weak-scaling table only (a large\n"
     "                mesh's weak rows grow it P times: bench_16m strong, bench_4m weak)\n",
     "mpirun -np 4 heartsim bench scale configs/bench_50k.cfg --transports nccl,ipc", 0},
    {"kernels", "heartsim kernels",
     "List the SpMV kernels solver.spmv accepts (name, where it runs, what it does and its paper), the\n"
     "preconditioners of solver.precond and the Krylov methods of solver.krylov.", "",
     "heartsim kernels", 0},
    {"config-reference", "heartsim config-reference",
     "Print the table of every config key with type, unit, default and range (docs/config.md).", "",
     "heartsim config-reference > docs/config.md", 0},
};

int hs_help_print(const char *cmd, FILE *f)
{
    if (!strcmp(cmd, "bench")) {
        fputs("usage: heartsim bench step|spmv|cg|solve|scale ...\n\n", f);
        for (size_t i = 0; i < sizeof helps / sizeof helps[0]; ++i)
            if (!strncmp(helps[i].cmd, "bench ", 6)) fprintf(f, "  %s\n", helps[i].usage);
        fputs("\n'heartsim bench step --help' (spmv, cg) for each one's options\n", f);
        return 0;
    }
    for (size_t i = 0; i < sizeof helps / sizeof helps[0]; ++i) {
        const help_entry *h = &helps[i];
        if (strcmp(h->cmd, cmd) != 0) continue;
        fprintf(f, "usage: %s\n\n%s\n", h->usage, h->what);
        if (h->opts[0] || h->common) fprintf(f, "\noptions:\n%s%s", h->opts, h->common ? common_opts : "");
        fprintf(f, "\nexample:\n  %s\n", h->example);
        fputs("\nexit codes: 0 success, 1 usage, 2 config, 3 mesh, 4 I/O, 5 numerical, 6 device, 7 memory,\n"
              "8 interrupted, 9 internal (docs/cli.md)\n", f);
        return 0;
    }
    return -1;
}

/* The papers the registry's "seed NNN" references point at, for readers who have no seed files. */
static const char *const papers[] = {
    "seed 000: M. M. Dehnavi, D. M. Fernandez, D. Giannacopoulos, \"Finite-Element Sparse Matrix\n"
    "            Vector Multiplication on Graphic Processing Units\", IEEE Trans. Magnetics 46(8),\n"
    "            2010, doi:10.1109/TMAG.2010.2043511",
    "seed 001: G. He, J. Gao, \"A Novel CSR-Based Sparse Matrix-Vector Multiplication on GPUs\",\n"
    "            Mathematical Problems in Engineering 2016, 8471283, doi:10.1155/2016/8471283",
    "seed 002: J. Wong, E. Kuhl, E. Darve, \"A new sparse matrix vector multiplication graphics\n"
    "            processing unit algorithm designed for finite element problems\", Int. J. Numer.\n"
    "            Methods Eng. 102(12), 2015, doi:10.1002/nme.4865",
    "seed 003: M. Shah, V. Patel, \"An Efficient Sparse Matrix Multiplication for Skewed Matrix on\n"
    "            GPU\", IEEE HPCC 2012 (AHPCN symposium), pp. 1301-1306",
    "seed 004: M. Mehri Dehnavi, \"Krylov Subspace Techniques on Graphic Processing Units\", PhD\n"
    "            thesis, McGill University, Montreal, 2012",
};

/* Writes @p text at column @p col, wrapped at @p width, the first line already positioned. */
static void wrap(FILE *f, const char *text, int col, int width)
{
    int x = col;
    const char *p = text;
    while (*p) {
        while (*p == ' ') ++p;
        size_t w = strcspn(p, " ");
        if (!w) break;
        if (x > col && x + 1 + (int)w > width) {
            fprintf(f, "\n%*s", col, "");
            x = col;
        }
        if (x > col) fputc(' ', f), ++x;
        fwrite(p, 1, w, f);
        x += (int)w;
        p += w;
    }
    fputc('\n', f);
}

void hs_kernels_print(FILE *f)
{
    enum { COL = 37, WIDTH = 100 };
    fprintf(f, "%-16s %-10s %-8s %s\n", "name", "runs on", "values", "what it does [paper]");
    for (int i = 0; i < hs_spmv_count(); ++i) {
        const hs_spmv_ops *o = hs_spmv_get(i);
        char text[1024];
        snprintf(text, sizeof text, "%s [%s]", o->summary, o->seed);
        fprintf(f, "%-16s %-10s %-8s ", o->name, o->needs_device ? "gpu only" : "cpu, gpu",
                hs_spmv_serves(o, HS_VALUES_F32) ? "f64, f32" : "f64");
        wrap(f, text, COL, WIDTH);
    }
    fputs("\ncpu, gpu: a CUDA kernel and its CPU reference; gpu only: needs the cuda backend.\n"
          "values: the precisions solver.matrix_values may store the matrix in (f32: float32 values, float64\n"
          "vectors and sums).\npapers:\n", f);
    for (size_t i = 0; i < sizeof papers / sizeof papers[0]; ++i) fprintf(f, "  %s\n", papers[i]);
    fprintf(f, "\n%-16s %s\n", "solver.precond", "what it is [paper]");
    for (size_t i = 0; i < hs_preconds()->count; ++i) {
        const hs_precond_info *e = hs_registry_at(hs_preconds(), i);
        char text[1024];
        snprintf(text, sizeof text, "%s%s [%s]", e->summary, e->symmetric ? "; symmetric: cg or bicgstab" : "; bicgstab only",
                 e->seed);
        fprintf(f, "%-16s ", e->name);
        wrap(f, text, 17, WIDTH);
    }
    fprintf(f, "\n%-16s %s\n", "solver.krylov", "what it is [paper]");
    for (size_t i = 0; i < hs_krylovs()->count; ++i) {
        const hs_krylov_info *e = hs_registry_at(hs_krylovs(), i);
        char text[1024];
        snprintf(text, sizeof text, "%s [%s]", e->summary, e->seed);
        fprintf(f, "%-16s ", e->name);
        wrap(f, text, 17, WIDTH);
    }
    fputs("both backends run every combination; on cuda, SAI/FSAI are computed on the device (a warp per\n"
          "column/row) and any combination but jacobi-cg runs a host-driven cuBLAS loop.\n", f);
}
