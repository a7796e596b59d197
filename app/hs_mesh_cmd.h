/**
 * @file hs_mesh_cmd.h
 * @brief `heartsim mesh CONFIG`: build the configured mesh exactly as a run does (sim/'s
 * hs_mesh_build), print the report (counts, volume against the expected one, edge lengths,
 * dihedral angles, quality histogram, bandwidth before/after reordering, labels with triangle
 * counts and areas, fibres, nonzeros per matrix row) to @p out, and write DIR/PREFIX_mesh.vtk and
 * DIR/PREFIX_surface.vtk (output.dir, output.prefix).
 */
#ifndef HS_MESH_CMD_H
#define HS_MESH_CMD_H

#include <stdio.h>

#include "hs_config.h"

/** The run-ready copy `heartsim mesh` writes (--export). */
typedef enum { HS_MESH_EXPORT_GMSH = 0, HS_MESH_EXPORT_OPENCARP = 1 } hs_mesh_export_kind;

hs_status hs_mesh_command(const hs_config *cfg, hs_mesh_export_kind export_kind, FILE *out);

#endif
