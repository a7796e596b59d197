/*
 * The agreement of errors over the ranks (hs_par_agree, hs_mpi_agree; issue 26), on 1, 2 and 3 ranks:
 *  - an error of the last rank alone, agreed: every rank returns its code and message ("rank R of P: "
 *    before it when R is not 0), marked agreed (hs_par_agreed: app/ says it once, no MPI_Abort);
 *  - the agreed error cleared (a run that goes on: a cache miss said as a warning, a step retried):
 *    the mark goes with it, so a later error of rank 0 alone with the same code is not taken for an
 *    agreed one (before, hs_par_agreed kept the old code for the rest of the run, and app/ would have
 *    let the failing rank end quietly while the others waited in their next collective);
 *  - the mark follows the record: hs_error_prefix (context added to an agreed error: fem/newton.c)
 *    keeps it, a new error after a clear does not have it, an agreement that passes leaves it;
 *  - rank 0's error is said as a serial run says it (no "rank 0 of P: "), and an error agreed twice
 *    names its rank once.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "hs_mpi_status.h"
#include "hs_par.h"
#include "hs_status.h"
#include "hs_test.h"

static int rank = 0, size = 1;

static int starts_with(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

static void agreed_then_cleared(void)
{
    const int last = size - 1;
    char want[128];
    /* 1. the last rank alone fails (its disk); the others pass */
    hs_status st = rank == last ? HS_FAIL(HS_ERR_IO, "cannot write part_%d.hspart", last) : HS_OK;
    st = hs_par_agree(st);
    HS_TEST_CHECK(st == HS_ERR_IO, "rank %d: agreed status %d, want %d", rank, (int)st, (int)HS_ERR_IO);
    HS_TEST_CHECK(hs_par_agreed() == HS_ERR_IO, "rank %d: hs_par_agreed() = %d after an agreement", rank,
                  hs_par_agreed());
    if (last > 0)
        snprintf(want, sizeof want, "rank %d of %d: cannot write part_%d.hspart", last, size, last);
    else
        snprintf(want, sizeof want, "cannot write part_0.hspart");
    HS_TEST_CHECK(!strcmp(hs_error_message(), want), "rank %d: message \"%s\", want \"%s\"", rank,
                  hs_error_message(), want);
    /* 2. the run goes on (said as a warning): the agreement goes with the error */
    hs_error_clear();
    HS_TEST_CHECK(hs_par_agreed() == 0, "rank %d: hs_par_agreed() = %d after the error was cleared", rank,
                  hs_par_agreed());
    /* 3. later, rank 0 alone fails with the same code, before any agreement: not an agreed error */
    if (rank == 0) {
        (void)HS_FAIL(HS_ERR_IO, "cannot create the output directory");
        HS_TEST_CHECK(hs_par_agreed() == 0, "a later error of rank 0 alone passes for agreed (hs_par_agreed() = %d)",
                      hs_par_agreed());
        hs_error_clear();
    }
    /* every rank again in step: an agreement that passes */
    HS_TEST_OK(hs_par_agree(HS_OK));
}

static void mark_follows_record(void)
{
    /* context added to an agreed error keeps its mark (fem/newton.c's "at t = ..., Newton iteration k: ") */
    hs_status st = hs_par_agree(rank == 0 ? HS_FAIL(HS_ERR_DEVICE, "cudaErrorLaunchFailure") : HS_OK);
    HS_TEST_CHECK(st == HS_ERR_DEVICE, "rank %d: agreed status %d", rank, (int)st);
    hs_error_prefix("at t = %.4g ms, Newton iteration %d: ", 1.0, 2);
    HS_TEST_CHECK(hs_par_agreed() == HS_ERR_DEVICE, "rank %d: the prefixed agreed error lost its mark", rank);
    HS_TEST_CHECK(!strcmp(hs_error_message(), "at t = 1 ms, Newton iteration 2: cudaErrorLaunchFailure"),
                  "rank %d: message \"%s\" (rank 0's error is said without \"rank 0 of P: \")", rank,
                  hs_error_message());
    /* a collective that passes while the error is in flight (restore_step's agreement) leaves it marked */
    st = hs_mpi_agree(MPI_COMM_WORLD, HS_OK, NULL);
    HS_TEST_CHECK(st == HS_OK && hs_par_agreed() == HS_ERR_DEVICE, "rank %d: a passing agreement changed the record",
                  rank);
    /* the error said anew after a clear is a new record, unmarked (sim/protocol.c marks its own again) */
    char msg[256];
    snprintf(msg, sizeof msg, "%s", hs_error_message());
    hs_error_clear();
    (void)HS_FAIL(HS_ERR_DEVICE, "step 3: %s", msg);
    HS_TEST_CHECK(hs_par_agreed() == 0, "rank %d: a new record carries the old mark", rank);
    hs_error_mark_agreed();
    HS_TEST_CHECK(hs_par_agreed() == HS_ERR_DEVICE, "rank %d: hs_error_mark_agreed did not mark", rank);
    hs_error_clear();
    hs_error_mark_agreed(); /* nothing recorded: nothing to mark */
    HS_TEST_CHECK(!hs_error_agreed() && hs_par_agreed() == 0, "rank %d: a mark without an error", rank);
    (void)HS_FAIL(HS_ERR_MEMORY, "out of memory allocating x");
    HS_TEST_CHECK(hs_par_agreed() == 0, "rank %d: a mark outlived its clear", rank);
    hs_error_clear();
}

static void named_once(void)
{
    if (size < 2) return;
    /* rank 1's error agreed, then agreed again (an agreement above one that already said it) */
    hs_status st = hs_mpi_agree(MPI_COMM_WORLD, rank == 1 ? HS_FAIL(HS_ERR_MEMORY, "out of memory allocating y") : HS_OK,
                                NULL);
    int failed = -1;
    st = hs_mpi_agree(MPI_COMM_WORLD, st, &failed);
    char want[128];
    HS_TEST_CHECK(st == HS_ERR_MEMORY && failed == 0, "rank %d: status %d, first failing rank %d", rank, (int)st,
                  failed);
    snprintf(want, sizeof want, "rank 1 of %d: out of memory allocating y", size);
    HS_TEST_CHECK(!strcmp(hs_error_message(), want), "rank %d: message \"%s\", want \"%s\"", rank, hs_error_message(),
                  want);
    HS_TEST_CHECK(starts_with(hs_error_message(), "rank 1 of"), "rank %d: the rank named at the start", rank);
    hs_error_clear();
}

int main(int argc, char **argv)
{
    if (hs_par_init(&argc, &argv) != HS_OK || !hs_par_active()) {
        fprintf(stderr, "test_par_agree: run it under mpirun (%s)\n", hs_error_message());
        return 1;
    }
    rank = hs_par_rank();
    size = hs_par_size();
    agreed_then_cleared();
    mark_follows_record();
    named_once();
    int fails = hs_test_failures, all = 0;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    hs_par_finalize();
    return all ? 1 : 0;
}
