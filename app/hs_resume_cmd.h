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

#endif
