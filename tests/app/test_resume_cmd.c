/*
 * The resume hint printed after SIGINT/SIGTERM (app/resume_cmd.c): the words of the command, quoted
 * for a shell; under mpirun the launcher's own options in front, as it was started (issue 30: the
 * hint dropped --oversubscribe --allow-run-as-root and failed as printed), or, where the launcher's
 * argv is unknown, a fallback and a note saying which part to add.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "hs_resume_cmd.h"
#include "hs_test.h"

static int starts(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

static void compose(char *buf, size_t size, const char *prog)
{
    const char *sets[] = {"stimulus.[0].start=0.5", "time.t_end=200"};
    HS_TEST_CHECK(hs_resume_command(prog, "configs/quick slab.cfg", sets, 2, "out dir", buf, size) == 0, "compose");
}

int main(void)
{
    char cmd[4096], note[1024];
    compose(cmd, sizeof cmd, "build/bin/heartsim");
    HS_TEST_CHECK(!strcmp(cmd, "build/bin/heartsim run 'configs/quick slab.cfg' --set 'stimulus.[0].start=0.5' --set "
                               "'time.t_end=200' --out 'out dir'"), "serial: %s", cmd);

    /* mpirun's own argv (as /proc/PPID/cmdline gives it): every word before the program is kept */
    const char *mpirun[] = {"mpirun", "--oversubscribe", "--allow-run-as-root", "-np", "2", "--mca", "btl",
                            "self,vader", "-x", "OMP_NUM_THREADS=1", "build/bin/heartsim", "run",
                            "configs/quick slab.cfg", "--set", "time.t_end=200", "--out", "out dir"};
    const int nm = (int)(sizeof mpirun / sizeof mpirun[0]);
    HS_TEST_CHECK(hs_resume_with_launcher(mpirun, nm, "build/bin/heartsim", "mpirun -np 2", cmd, sizeof cmd, note,
                                          sizeof note) == 0, "with launcher");
    HS_TEST_CHECK(starts(cmd, "mpirun --oversubscribe --allow-run-as-root -np 2 --mca btl self,vader -x "
                                "'OMP_NUM_THREADS=1' build/bin/heartsim run 'configs/quick slab.cfg' ") &&
                      strstr(cmd, " --out 'out dir'") && note[0] == '\0',
                  "launcher words not kept: \"%s\" (note \"%s\")", cmd, note);

    /* the program named by another path to the same file name (mpirun found it on PATH), a launcher
     * word that needs quoting */
    compose(cmd, sizeof cmd, "/opt/hs/bin/heartsim");
    const char *mpiexec[] = {"/usr/bin/mpiexec", "-n", "4", "--hostfile", "my hosts", "heartsim", "run", "a.cfg"};
    HS_TEST_CHECK(hs_resume_with_launcher(mpiexec, 8, "/opt/hs/bin/heartsim", "mpirun -np 4", cmd, sizeof cmd, note,
                                          sizeof note) == 0 &&
                      starts(cmd, "/usr/bin/mpiexec -n 4 --hostfile 'my hosts' /opt/hs/bin/heartsim run "),
                  "mpiexec: \"%s\"", cmd);

    /* unknown launcher (no /proc, a wrapper script between): the fallback, and a note naming it */
    compose(cmd, sizeof cmd, "build/bin/heartsim");
    HS_TEST_CHECK(hs_resume_with_launcher(NULL, 0, "build/bin/heartsim", "mpirun --oversubscribe -np 3", cmd,
                                          sizeof cmd, note, sizeof note) == 0 &&
                      starts(cmd, "mpirun --oversubscribe -np 3 build/bin/heartsim run "),
                  "fallback: \"%s\"", cmd);
    HS_TEST_CHECK(strstr(note, "\"mpirun --oversubscribe -np 3\"") && strstr(note, "add the other launcher options"),
                  "fallback note: \"%s\"", note);
    /* a launcher whose argv does not name the program (bash -c "heartsim ..."): the fallback too */
    const char *wrapped[] = {"mpirun", "-np", "2", "bash", "-c", "build/bin/heartsim run a.cfg"};
    compose(cmd, sizeof cmd, "build/bin/heartsim");
    HS_TEST_CHECK(hs_resume_with_launcher(wrapped, 6, "build/bin/heartsim", "mpirun -np 2", cmd, sizeof cmd, note,
                                          sizeof note) == 0 && starts(cmd, "mpirun -np 2 build/bin/heartsim run ") &&
                      note[0], "wrapped: \"%s\"", cmd);
    /* too long: -1, the command unchanged */
    compose(cmd, sizeof cmd, "build/bin/heartsim");
    char small[128];
    snprintf(small, sizeof small, "%s", "build/bin/heartsim run a.cfg --out d");
    HS_TEST_CHECK(hs_resume_with_launcher(mpirun, nm, "build/bin/heartsim", "mpirun -np 2", small, 60, note,
                                          sizeof note) == -1 && !strcmp(small, "build/bin/heartsim run a.cfg --out d"),
                  "overflow: \"%s\"", small);

    /* the fallback from the environment Open MPI sets */
    char fb[128];
    setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 1);
    hs_resume_fallback_launcher(4, fb, sizeof fb);
    HS_TEST_CHECK(starts(fb, "mpirun --oversubscribe") && strstr(fb, " -np 4"), "fallback launcher: \"%s\"", fb);
    unsetenv("OMPI_MCA_rmaps_base_oversubscribe");
    hs_resume_fallback_launcher(2, fb, sizeof fb);
    HS_TEST_CHECK(!strstr(fb, "--oversubscribe"), "fallback launcher without the variable: \"%s\"", fb);

    /* not under a launcher (ctest's parents are cmake/ctest/shells): none found */
    char lbuf[8192];
    const char *lw[256];
    HS_TEST_CHECK(hs_launcher_argv(lbuf, sizeof lbuf, lw, 256) == 0, "a launcher found outside mpirun: %s", lw[0]);
    HS_TEST_RETURN();
}
