/* One status for all the ranks of a communicator (hs_mpi_status.h). */
#include "hs_mpi_status.h"

#include <stdio.h>
#include <string.h>

hs_status hs_mpi_agree(MPI_Comm comm, hs_status st, int *failed)
{
    int size = 1, rank = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    int first = st == HS_OK ? size : rank, min_first = size;
    MPI_Allreduce(&first, &min_first, 1, MPI_INT, MPI_MIN, comm);
    if (failed) *failed = min_first;
    if (min_first == size) return HS_OK;
    int code = (int)st;
    char msg[2048] = "";
    if (rank == min_first) snprintf(msg, sizeof msg, "%s", hs_error_message());
    MPI_Bcast(&code, 1, MPI_INT, min_first, comm);
    MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, min_first, comm);
    hs_error_clear();
    /* an error agreed before (its message names the rank already) and met again: named once */
    char who[48];
    snprintf(who, sizeof who, "rank %d of %d: ", min_first, size);
    if (min_first == 0 || !strncmp(msg, who, strlen(who)))
        return hs_error_set((hs_status)code, __FILE__, __LINE__, __func__, "%s", msg);
    return hs_error_set((hs_status)code, __FILE__, __LINE__, __func__, "%s%s", who, msg);
}
