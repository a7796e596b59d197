/**
 * @file hs_mpi_status.h
 * @brief One status for all the ranks of a communicator (builds with MPI only): every rank returns
 * the first failing rank's status and message, so a failure on any rank ends every rank with one
 * message. The collective agreement behind hs_par_agree (parallel/), the collective output series
 * (output/format_xdmf_h5.c, output/series.c) and the file every rank writes (output/part_file.c).
 */
#ifndef HS_MPI_STATUS_H
#define HS_MPI_STATUS_H

#include <mpi.h>

#include "hs_status.h"

/**
 * @brief Collective over @p comm: HS_OK when every rank passed @p st = HS_OK; otherwise, on every
 * rank, the status of the lowest failing rank R with its message (the error record of each rank
 * replaced by it), prefixed "rank R of P: " when R is not 0 (rank 0's message is the one a serial
 * run prints).
 * @param[out] failed the lowest failing rank, or the communicator's size when none failed (may be NULL).
 */
hs_status hs_mpi_agree(MPI_Comm comm, hs_status st, int *failed);

#endif
