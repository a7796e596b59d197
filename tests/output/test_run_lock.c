/*
 * The run lock of an output directory (output/run_lock.c): a second taker is refused with a message
 * naming the holder (pid, host, start time, command); the lock ends with its process, so after the
 * holder is killed with SIGKILL (its lock file left behind) the directory can be taken again; a
 * released lock removes its file.
 */
#define _DEFAULT_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hs_run_lock.h"
#include "hs_test.h"

int main(void)
{
    char dir[] = "/tmp/hs_test_run_lock_XXXXXX", path[256], host[256] = "", want[64];
    HS_TEST_CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(path, sizeof path, "%s/%s", dir, HS_RUN_LOCK_NAME);
    gethostname(host, sizeof host - 1);

    /* the holder: a child that takes the lock, says so through a pipe and waits to be killed */
    int ready[2];
    HS_TEST_CHECK(pipe(ready) == 0, "pipe");
    pid_t child = fork();
    if (child == 0) {
        hs_run_lock *lk = NULL;
        char ok = hs_run_lock_acquire(dir, &lk) == HS_OK && lk ? 'y' : 'n';
        if (write(ready[1], &ok, 1) != 1) _exit(2);
        for (;;) pause();
    }
    HS_TEST_CHECK(child > 0, "fork");
    char ok = 0;
    HS_TEST_CHECK(read(ready[0], &ok, 1) == 1 && ok == 'y', "the child could not take the lock");

    /* a second taker is refused, naming the holder */
    hs_run_lock *lk = NULL;
    hs_status st = hs_run_lock_acquire(dir, &lk);
    const char *msg = hs_error_message();
    snprintf(want, sizeof want, "pid %ld on host %s", (long)child, host);
    HS_TEST_CHECK(st == HS_ERR_IO && lk == NULL, "second taker: status %d, want HS_ERR_IO", (int)st);
    HS_TEST_CHECK(strstr(msg, dir) && strstr(msg, "is in use by another heartsim run") && strstr(msg, want) &&
                      strstr(msg, "started 20") && strstr(msg, "UTC") && strstr(msg, "command: ") &&
                      strstr(msg, "test_run_lock") && strstr(msg, "another --out"),
                  "refusal does not name the directory and the holder (\"%s\"): %s", want, msg);
    hs_error_clear();

    /* SIGKILL: no chance to release; the kernel drops the lock with the process, the file stays */
    kill(child, SIGKILL);
    int ws = 0;
    waitpid(child, &ws, 0);
    HS_TEST_CHECK(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL, "the child did not die of SIGKILL");
    HS_TEST_CHECK(access(path, F_OK) == 0, "the killed holder's lock file %s should still be there", path);
    HS_TEST_OK(hs_run_lock_acquire(dir, &lk));
    HS_TEST_CHECK(lk != NULL, "no lock after the holder was killed");

    /* held by this process now: another open file description is refused as well */
    hs_run_lock *again = NULL;
    HS_TEST_CHECK(hs_run_lock_acquire(dir, &again) == HS_ERR_IO && !again, "taken twice");
    hs_error_clear();

    hs_run_lock_release(&lk);
    HS_TEST_CHECK(lk == NULL && access(path, F_OK) != 0, "release leaves %s", path);
    hs_run_lock_release(&lk); /* NULL: nothing */
    HS_TEST_OK(hs_run_lock_acquire(dir, &lk)); /* and free again */
    hs_run_lock_release(&lk);
    rmdir(dir);
    HS_TEST_RETURN();
}
