/*
 * The progress line's ETA (app/progress.c): the time still to run at the speed this process has
 * shown, from the progress it made itself. After a restart the loop starts at the checkpoint's
 * time; the progress made before it took none of this process's time (issue 30: a restart at 90%
 * showed 136 s for ~1000 s still to run).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hs_progress.h"
#include "hs_test.h"
#include "hs_util.h"

int main(void)
{
    /* a fresh run, 40% of 100 ms in 4 s: 6 s left */
    HS_TEST_NEAR(hs_progress_eta(4.0, 0.0, 40.0, 100.0), 6.0, 1e-12, "fresh run");
    /* restarted at 80 ms, 10 ms in 10 s: 10 s left (the whole run's 90% would say 1.1 s) */
    HS_TEST_NEAR(hs_progress_eta(10.0, 80.0, 90.0, 100.0), 10.0, 1e-12, "restarted run");
    HS_TEST_CHECK(hs_progress_eta(0.0, 80.0, 80.0, 100.0) == 0.0, "no progress yet: 0, not a division by 0");
    HS_TEST_CHECK(hs_progress_eta(5.0, 0.0, 100.0, 100.0) == 0.0, "at the end: 0");

    /* the printed line: a run restarted at step 800 (dt 0.1 ms), 100 steps in 10 s */
    FILE *f = tmpfile();
    HS_TEST_CHECK(f != NULL, "tmpfile");
    if (!f) HS_TEST_RETURN();
    hs_progress p;
    hs_progress_init(&p, f, 100.0, 0.1, 1);
    p.wall_start = hs_wtime() - 10.0;
    hs_progress_update(&p, 90.0, 100, 2, 7, 1);
    rewind(f);
    char line[512] = "";
    HS_TEST_CHECK(fgets(line, sizeof line, f) != NULL, "no progress line");
    fclose(f);
    const char *e = strstr(line, "ETA");
    double eta = -1.0;
    HS_TEST_CHECK(e && sscanf(e, "ETA %lf s", &eta) == 1, "no ETA in \"%s\"", line);
    /* 10 s plus whatever passed since wall_start was set (a loaded machine: up to a few seconds) */
    HS_TEST_CHECK(eta >= 9.95 && eta < 15.0, "restarted at 80 ms, 10 ms in 10 s, 10 ms to go: ETA %g s, want 10 (\"%s\")",
                  eta, line);
    HS_TEST_RETURN();
}
