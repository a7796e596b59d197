/**
 * @file hs_cell_cmd.h
 * @brief `heartsim cell CONFIG`: the configured ionic model alone at one point (0D), under the
 * timing of every stimulus entry (their sites do not matter: the point receives each entry's pulse
 * train), with the tissue's time step scheme (fem/hs_cell.h). Writes DIR/PREFIX_cell.csv (t, V in
 * mV, the potential in model units and every state variable, one row per step) and
 * DIR/PREFIX_cell.png (V(t)), and prints one line per beat (a beat per distinct pulse start):
 * activation time, APD90 and peak V. How a modeller checks a parameter set before a tissue run.
 */
#ifndef HS_CELL_CMD_H
#define HS_CELL_CMD_H

#include <stdio.h>

#include "hs_config.h"

hs_status hs_cell_command(const hs_config *cfg, FILE *out);

#endif
