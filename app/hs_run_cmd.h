/**
 * @file hs_run_cmd.h
 * @brief `heartsim run`: the config mapped to a spec (hs_spec.h), the simulation run by sim/
 * (hs_sim_run) with a progress line, and the end-of-run summary.
 */
#ifndef HS_RUN_CMD_H
#define HS_RUN_CMD_H

#include <stdio.h>

#include "hs_config.h"
#include "hs_sim.h"

/**
 * @brief Run the configured simulation (see hs_sim_run); prints the summary when verbose.
 * @param[in] restart NULL or the --restart argument; @param[in] resume_cmd the command that
 * continues this run (hs_resume_command), printed when a signal stops it; NULL: a generic hint.
 */
hs_status hs_run_command(const hs_config *cfg, const char *restart, const char *resume_cmd);

/** @brief Print the summary (phases, iterations, simulated ms per wall second). */
void hs_run_summary_print(const hs_run_summary *sum, const hs_config *cfg, FILE *f);

#endif
