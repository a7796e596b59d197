/**
 * @file hs_resume_cmd.h
 * @brief The command line that continues an interrupted run, as printed after SIGINT/SIGTERM: the
 * program, the config, every --set given, --out with the run's output directory, each word quoted
 * for a POSIX shell so that it runs as printed.
 */
#ifndef HS_RESUME_CMD_H
#define HS_RESUME_CMD_H

#include <stddef.h>

/**
 * @brief @p word quoted for a POSIX shell into @p buf (unchanged when it holds only characters a
 * shell leaves alone, else in single quotes with each ' written '\''). Truncated to @p size.
 * @return buf.
 */
char *hs_shell_quote(const char *word, char *buf, size_t size);

/**
 * @brief "PROG run CONFIG --set K=V ... --out DIR" (quoted), to which "--restart DIR" is appended.
 * @param[in] sets the --set arguments as given (KEY=VALUE), @p n_sets of them; an output.dir among
 * them is dropped (--out DIR says it). @return 0, or -1 when @p size is too small.
 */
int hs_resume_command(const char *prog, const char *config, const char *const *sets, int n_sets,
                      const char *out_dir, char *buf, size_t size);

/**
 * @brief Prefix the resume command @p cmd (from hs_resume_command) with the launcher that started
 * this process, so that a run under mpirun resumes as it was started. @p launcher is the launcher's
 * own argv (@p n words; NULL/0 when unknown): the words before the first one naming the program
 * (@p prog, the same string or the same file name) are kept, quoted: "mpirun --oversubscribe
 * --allow-run-as-root -np 2". When it is unknown or does not name the program, @p fallback
 * ("mpirun -np 2", with what the environment told) is used and @p note (@p note_size bytes) says
 * which part to add; otherwise note is "".
 * @return 0, or -1 when the result does not fit in @p size (cmd unchanged).
 */
int hs_resume_with_launcher(const char *const *launcher, int n, const char *prog, const char *fallback, char *cmd,
                            size_t size, char *note, size_t note_size);

/**
 * @brief The launcher's argv: the nearest ancestor process (up to 8 levels, through /proc) whose
 * program is mpirun, mpiexec, orterun, prterun or oshrun (Open MPI runs rank processes as its
 * children on the node where it was started). Its words are stored in @p buf (@p size bytes) and
 * pointed to by @p words (at most @p max). @return the number of words, 0 when not found.
 */
int hs_launcher_argv(char *buf, size_t size, const char **words, int max);

/**
 * @brief What to start the resume command with when the launcher's argv is unknown: "mpirun", the
 * options the environment shows were given (Open MPI: --oversubscribe when
 * OMPI_MCA_rmaps_base_oversubscribe=1; --allow-run-as-root when running as root without
 * OMPI_ALLOW_RUN_AS_ROOT in the environment), "-np @p np".
 */
void hs_resume_fallback_launcher(int np, char *buf, size_t size);

#endif
