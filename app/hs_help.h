/**
 * @file hs_help.h
 * @brief `heartsim COMMAND --help`: usage, options and an example for each command, and the
 * `heartsim kernels` table.
 */
#ifndef HS_HELP_H
#define HS_HELP_H

#include <stdio.h>

/**
 * @brief Print the help of @p cmd ("run", "check", "mesh", "bench", "bench step", "bench spmv",
 * "bench cg", "kernels", "config-reference") to @p f. @return 0, or -1 for an unknown command.
 */
int hs_help_print(const char *cmd, FILE *f);

/** @brief The SpMV kernels solver.spmv accepts: name, where it runs, summary, paper; wrapped to 100 columns. */
void hs_kernels_print(FILE *f);

#endif
