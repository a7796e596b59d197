/* The process's place in a distributed run (hs_par.h). */
#include "hs_par.h"

#include <stdio.h>
#include <stdlib.h>

#include "hs_build_config.h"
#if HS_HAS_MPI
#include "hs_dist.h" /* hs_par_comm */
#include "hs_mpi_status.h"
#endif

static int active = 0, my_rank = 0, n_ranks = 1, node_ranks = 1;

int hs_par_launched_size(void)
{
    /* Open MPI's mpirun, MPICH/Hydra and Slurm's PMI-2; PMIx (srun --mpi=pmix, prterun) below */
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
    for (size_t k = 0; k < sizeof vars / sizeof vars[0]; ++k) {
        const char *v = getenv(vars[k]);
        if (v && *v) return atoi(v);
    }
    if (getenv("PMIX_RANK")) return 1; /* PMIx without the size in the environment */
    return 0;
}

hs_status hs_par_init(int *argc, char ***argv)
{
    const int launched = hs_par_launched_size();
    if (launched == 0) return HS_OK;
#if HS_HAS_MPI
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return HS_FAIL(HS_ERR_INTERNAL, "MPI_Init_thread failed");
    MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n_ranks);
    /* the ranks that share this node (its memory, hence its cores): the OpenMP threads' rule */
    MPI_Comm node = MPI_COMM_NULL;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, my_rank, MPI_INFO_NULL, &node) == MPI_SUCCESS &&
        node != MPI_COMM_NULL) {
        MPI_Comm_size(node, &node_ranks);
        MPI_Comm_free(&node);
    }
    active = 1;
    return HS_OK;
#else
    (void)argc;
    (void)argv;
    HS_CHECK(launched <= 1, HS_ERR_USAGE,
             "started as one of %d ranks by an MPI launcher, but this heartsim is built without MPI (each rank "
             "would run the whole simulation and write the same files): install libopenmpi-dev and rebuild "
             "(HS_USE_MPI), or run without mpirun",
             launched);
    return HS_OK;
#endif
}

int hs_par_active(void) { return active; }
int hs_par_rank(void) { return my_rank; }
int hs_par_size(void) { return n_ranks; }
int hs_par_node_ranks(void) { return node_ranks; }

int hs_par_threads_rule(int threads_cfg, int env_set, int online_cpus, int ranks_on_node, int affinity_cpus)
{
    if (threads_cfg > 0) return threads_cfg; /* solver.threads */
    if (env_set || ranks_on_node <= 1) return 0; /* OMP_NUM_THREADS, or the node to itself: OpenMP's own */
    int t = online_cpus / ranks_on_node;
    if (affinity_cpus > 0 && t > affinity_cpus) t = affinity_cpus; /* a rank bound to fewer cores */
    return t < 1 ? 1 : t;
}

void hs_par_finalize(void)
{
#if HS_HAS_MPI
    if (active) MPI_Finalize();
#endif
    active = 0;
}

void hs_par_abort(int code)
{
#if HS_HAS_MPI
    if (active) {
        fflush(stdout);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, code ? code : 1);
    }
#else
    (void)code;
#endif
}

#if HS_HAS_MPI
static MPI_Comm current = MPI_COMM_NULL; /* MPI_COMM_NULL: MPI_COMM_WORLD */

MPI_Comm hs_par_comm(void) { return current == MPI_COMM_NULL ? MPI_COMM_WORLD : current; }
#endif

int hs_par_subset_begin(int n)
{
#if HS_HAS_MPI
    if (!active) return 1;
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, my_rank < n ? 0 : MPI_UNDEFINED, my_rank, &c);
    current = c;
    return my_rank < n;
#else
    (void)n;
    return 1;
#endif
}

void hs_par_subset_end(void)
{
#if HS_HAS_MPI
    if (!active) return;
    if (current != MPI_COMM_NULL) MPI_Comm_free(&current);
    current = MPI_COMM_NULL;
    MPI_Barrier(MPI_COMM_WORLD);
#endif
}

void hs_par_max_doubles(double *v, int n)
{
#if HS_HAS_MPI
    if (active) MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, hs_par_comm());
#else
    (void)v;
    (void)n;
#endif
}

void hs_par_sum_doubles(double *v, int n)
{
#if HS_HAS_MPI
    if (active) MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, hs_par_comm());
#else
    (void)v;
    (void)n;
#endif
}

/* the mark is the error record's (common/hs_status.c): cleared with it, so it cannot outlive the error */
int hs_par_agreed(void) { return hs_error_agreed() ? (int)hs_error_code() : 0; }

int hs_par_max_int(int v)
{
#if HS_HAS_MPI
    if (active) {
        int out = v;
        MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_MAX, hs_par_comm());
        return out;
    }
#endif
    return v;
}

hs_status hs_par_agree(hs_status st)
{
#if HS_HAS_MPI
    if (!active) return st;
    int failed = 0, size = 1;
    MPI_Comm_size(hs_par_comm(), &size);
    const hs_status out = hs_mpi_agree(hs_par_comm(), st, &failed);
    if (failed < size) hs_error_mark_agreed();
    return out;
#else
    return st;
#endif
}
