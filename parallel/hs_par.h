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

/** @brief Record that every rank returns error @p st with the same message (the distributed
 *  backend agrees on errors), so app/ ends the run with one message instead of MPI_Abort. */
void hs_par_set_agreed(int st);
/** @brief The last error recorded by hs_par_set_agreed (0 when none). */
int hs_par_agreed(void);
/**
 * @brief In a distributed run, every rank returns the first failing rank's error (code and message,
 * recorded as agreed: app/ prints it once, from rank 0, without MPI_Abort), or HS_OK when none
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
