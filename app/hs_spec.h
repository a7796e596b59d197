/**
 * @file hs_spec.h
 * @brief The one place where configuration strings become enums and registry entries: the
 * resolved config (hs_config.h) mapped onto the plain simulation spec of sim/ (hs_sim.h).
 */
#ifndef HS_SPEC_H
#define HS_SPEC_H

#include "hs_config.h"
#include "hs_sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Fill @p spec from @p cfg: every name resolved through its registry (mesh source, model,
 * backend, SpMV kernel, CG variant, output format and fields); an unknown name is HS_ERR_CONFIG
 * listing the available ones. @p spec keeps pointers into @p cfg (config path, output format):
 * cfg must outlive it.
 */
hs_status hs_spec_from_config(const hs_config *cfg, hs_sim_spec *spec);

/** @brief The mesh part alone (`heartsim mesh`). */
hs_status hs_mesh_spec_from_config(const hs_config *cfg, hs_mesh_spec *spec);

/**
 * @brief Fingerprints (one per group, HS_CKPT_GROUPS) of the keys that change the computed state: mesh.* (except
 * mesh.file: the mesh fingerprint covers its content), fibers.*, model.*, time.dt, stimulus,
 * solver.cg_tol, solver.cg_max_iter, solver.newton_*, output.activation_threshold. Not included
 * (may change on a restart): time.t_end, solver.backend, solver.spmv, solver.threads,
 * solver.dt_retry, spmv.*, output.* otherwise.
 */
void hs_config_fingerprint(const hs_config *cfg, uint64_t fp[HS_CKPT_GROUPS]);

#ifdef __cplusplus
}
#endif
#endif
