/**
 * @file hs_par.h
 * @brief The process's place in a distributed run, without MPI types (for app/ and sim/): whether
 * a launcher started it (mpirun, srun), MPI start and end, its rank, agreement on a flag, and the
 * end of every rank on a fault. In a build without MPI (HS_HAS_MPI = 0) a launch of more than one
 * rank is refused (each would run the whole simulation and write the same files).
 */
#ifndef HS_PAR_H
#define HS_PAR_H

#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Ranks the launcher's environment announces (Open MPI, PMI, PMIx, Slurm), 0 when none. */
int hs_par_launched_size(void);

/**
 * @brief Start MPI when a launcher started this process (MPI_Init_thread, funnelled: only the
 * main thread calls MPI); nothing otherwise. HS_ERR_USAGE when several ranks were launched and
 * this build has no MPI.
 */
hs_status hs_par_init(int *argc, char ***argv);
/** @brief 1 after hs_par_init started MPI (a distributed run, even on one rank). */
int hs_par_active(void);
int hs_par_rank(void); /**< 0 when not active */
int hs_par_size(void); /**< 1 when not active */
/** @brief The ranks on this rank's node (MPI_COMM_TYPE_SHARED, counted once by hs_par_init); 1 when
 *  not active. */
int hs_par_node_ranks(void);
/**
 * @brief The OpenMP threads a rank runs (a pure function; sim/ applies it): @p threads_cfg
 * (solver.threads) when > 0; else 0 (OpenMP's own choice: OMP_NUM_THREADS, or every core of the
 * affinity mask) when @p env_set (OMP_NUM_THREADS is set) or the rank is alone on its node; else the
 * node's share, @p online_cpus / @p ranks_on_node (at least 1), capped by @p affinity_cpus
 * (omp_get_num_procs: the cores the rank is bound to; <= 0: unknown, no cap). Several ranks on a node
 * each running every core's thread oversubscribe it (4 ranks x 64 threads on 64 cores).
 */
int hs_par_threads_rule(int threads_cfg, int env_set, int online_cpus, int ranks_on_node, int affinity_cpus);
/** @brief MPI_Finalize when active. */
void hs_par_finalize(void);
/** @brief End every rank now (MPI_Abort with @p code) when active; returns otherwise. */
void hs_par_abort(int code);
/**
 * @brief Narrow the current communicator (that distributed backends use) to ranks [0, n) of all
 * (benchmarks at several rank counts in one job). Collective over all ranks. @return 1 when this
 * rank is one of them. hs_par_subset_end (all ranks) goes back to all ranks.
 */
int hs_par_subset_begin(int n);
void hs_par_subset_end(void);
/** @brief v[i] = max over the current communicator's ranks, in place (nothing when not active). */
void hs_par_max_doubles(double *v, int n);
/** @brief v[i] = the sum over the ranks (collective; unchanged when not active). */
void hs_par_sum_doubles(double *v, int n);

/** @brief The code of the recorded error when it is marked agreed (every rank returns it with the same
 *  message: hs_par_agree, the distributed backend's agreements, hs_error_mark_agreed), so app/ ends
 *  the run with one message instead of MPI_Abort; 0 otherwise. The mark goes with the error record
 *  (hs_error_clear drops it): an agreed error that was cleared never makes a later error of one rank
 *  with the same code pass for agreed. */
int hs_par_agreed(void);
/**
 * @brief In a distributed run, every rank returns the first failing rank's error (code and message,
 * marked agreed: app/ prints it once, from rank 0, without MPI_Abort), or HS_OK when none
 * failed; @p st itself otherwise. Collective: for a phase every rank goes through alike (the config
 * read from the same files, the spec made from it).
 */
hs_status hs_par_agree(hs_status st);
/** @brief The maximum of @p v over the ranks (v itself when not active): a flag every rank must
 *  agree on (a stop signal seen by one rank stops all at the same step). */
int hs_par_max_int(int v);

#ifdef __cplusplus
}
#endif
#endif
