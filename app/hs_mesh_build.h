/**
 * @file hs_mesh_build.h
 * @brief The mesh a configuration describes, built once for `heartsim run` and `heartsim mesh`
 * alike: source (box, TetGen files, volume mesh file, surface meshed by TetGen, built-in
 * ventricle), units, element checks, fibres, locality reordering; and `heartsim mesh`, which
 * builds it and reports on it without simulating.
 */
#ifndef HS_MESH_BUILD_H
#define HS_MESH_BUILD_H

#include <stdio.h>

#include "hs_config.h"
#include "hs_mesh.h"
#include "hs_surface.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What building the mesh found out on the way (for the `heartsim mesh` report). */
typedef struct hs_mesh_build_info {
    int have_surface;            /**< mesh.source = "surface": the report below is filled */
    hs_surface_report surface;   /**< what hs_surface_check found and fixed */
    double expected_volume;      /**< mm^3: the analytic wall (ellipsoid_lv), the surface's enclosed
                                      volume (surface), the box's; 0 when unknown (file, tetgen) */
    const char *expected_what;   /**< what expected_volume is, for the report */
    char fibers[160];            /**< how the fibres were assigned, one line */
    hs_reorder_report reorder;   /**< bandwidth and profile before and after mesh.reorder */
    double seconds_mesh;         /**< wall time of reading / meshing (up to the checks) */
} hs_mesh_build_info;

/**
 * @brief Build the configured mesh: source, mesh.scale (files), hs_mesh_check, fibres (before
 * reordering, so per-element fibre files match the source's element order), mesh.reorder.
 * Logs one line per stage (hs_log level 1): counts and sizes, surface checks and fixes (fixes as
 * warnings), fibres, reordering.
 * @param[in] cfg resolved config; @param[out] out new mesh (hs_mesh_destroy);
 * @param[out] info what was found on the way (may be NULL).
 */
hs_status hs_mesh_build(const hs_config *cfg, hs_mesh **out, hs_mesh_build_info *info);

/** @brief The hs_reorder_kind of mesh.reorder ("rcm", "sfc", "none"). */
hs_reorder_kind hs_mesh_reorder_kind(const char *name);

/**
 * @brief `heartsim mesh`: build the configured mesh exactly as a run does (hs_mesh_build), print
 * the report (counts, volume against the expected one, edge lengths, dihedral angles, quality
 * histogram, bandwidth before/after reordering, labels with triangle counts and areas, fibres,
 * nonzeros per matrix row) to @p out, and write DIR/PREFIX_mesh.vtk and DIR/PREFIX_surface.vtk
 * (output.dir, output.prefix). @param[in] cfg resolved config; @param[in] out report stream.
 */
hs_status hs_mesh_command(const hs_config *cfg, FILE *out);

#ifdef __cplusplus
}
#endif
#endif
