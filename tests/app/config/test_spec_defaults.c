/*
 * tests/hs_test_spec.h (the spec that tests of fem/, backends/ and sim/ start from, without app/)
 * equals what app/ makes of an empty config, except where it says it differs on purpose: backend
 * cpu instead of auto, output off, no config path, solver.step kernels instead of auto. So the two sources of defaults cannot drift.
 */
#include <string.h>

#include "hs_spec.h"
#include "hs_test.h"
#include "hs_test_spec.h"

int main(void)
{
    static hs_config cfg;
    static hs_sim_spec a, b;
    HS_TEST_OK(hs_config_load(NULL, NULL, 0, &cfg));
    HS_TEST_OK(hs_spec_from_config(&cfg, &a));
    hs_test_spec_defaults(&b);
    /* the intended differences */
    HS_TEST_CHECK(a.backend == NULL && b.backend == hs_backends_find("cpu"), "backend: auto vs cpu");
    HS_TEST_CHECK(a.output_enabled == 1 && b.output_enabled == 0, "output");
    /* tests start from the kernel sequence (solver.step = kernels), the reference every device step is
     * compared against; a run's default is auto (the backend's policy: hs_backend_entry.resolve_plan) */
    HS_TEST_CHECK(a.step == HS_STEP_AUTO && b.step == HS_STEP_KERNELS, "solver.step: auto vs kernels");
    a.step = b.step;
    a.backend = b.backend;
    a.output_enabled = b.output_enabled;
    a.config_path = b.config_path;
    memset(a.config_fp, 0, sizeof a.config_fp);
    a.out_state.n = b.out_state.n = 0, a.out_mv = b.out_mv = 0, a.out_mesh_fields = b.out_mesh_fields = 0;
    /* the rest field by field (the struct has padding, so no memcmp of the whole) */
    HS_TEST_CHECK(a.mesh.source == b.mesh.source, "mesh.source");
    HS_TEST_CHECK(a.mesh.box.lx == b.mesh.box.lx && a.mesh.box.ly == b.mesh.box.ly && a.mesh.box.lz == b.mesh.box.lz &&
                      a.mesh.box.h == b.mesh.box.h && a.mesh.box.use_tetgen == b.mesh.box.use_tetgen &&
                      a.mesh.box.tetgen_radius_edge == b.mesh.box.tetgen_radius_edge,
                  "mesh.box");
    HS_TEST_CHECK(a.mesh.min_dihedral == b.mesh.min_dihedral && a.mesh.scale == b.mesh.scale &&
                      a.mesh.weld_tol == b.mesh.weld_tol && a.mesh.linearize == b.mesh.linearize &&
                      a.mesh.reorder == b.mesh.reorder && !strcmp(a.mesh.file, b.mesh.file),
                  "mesh keys");
    HS_TEST_CHECK(a.mesh.lv.rs_endo == b.mesh.lv.rs_endo && a.mesh.lv.rl_endo == b.mesh.lv.rl_endo &&
                      a.mesh.lv.rs_epi == b.mesh.lv.rs_epi && a.mesh.lv.rl_epi == b.mesh.lv.rl_epi &&
                      a.mesh.lv.z_base == b.mesh.lv.z_base && a.mesh.lv.helix_endo_deg == b.mesh.lv.helix_endo_deg &&
                      a.mesh.lv.helix_epi_deg == b.mesh.lv.helix_epi_deg,
                  "LV keys");
    HS_TEST_CHECK(a.mesh.fibers == b.mesh.fibers && !memcmp(a.mesh.fiber_dir, b.mesh.fiber_dir, sizeof a.mesh.fiber_dir) &&
                      !strcmp(a.mesh.fiber_location, b.mesh.fiber_location) && !strcmp(a.mesh.fiber_file, b.mesh.fiber_file),
                  "fibre keys");
    HS_TEST_CHECK(a.model == b.model && a.model_prm.id == b.model_prm.id && a.model_prm.n_vars == b.model_prm.n_vars &&
                      !memcmp(a.model_prm.v, b.model_prm.v, sizeof a.model_prm.v),
                  "model and parameters");
    HS_TEST_CHECK(a.time_unit == b.time_unit && a.d_iso == b.d_iso && a.d_ani == b.d_ani && a.dt == b.dt &&
                      a.t_end == b.t_end && a.n_stimuli == b.n_stimuli && a.activation_threshold == b.activation_threshold &&
                      a.repol_threshold == b.repol_threshold && a.n_regions == b.n_regions,
                  "physics keys");
    HS_TEST_CHECK(a.spmv == b.spmv && !memcmp(&a.spmv_params, &b.spmv_params, sizeof a.spmv_params) &&
                      a.cg.tol == b.cg.tol && a.cg.max_iter == b.cg.max_iter && a.cg.variant == b.cg.variant && a.cg.s == b.cg.s &&
                      a.cg_forcing == b.cg_forcing && a.extrapolate == b.extrapolate && a.graph == b.graph &&
                      a.persistent == b.persistent && a.step == b.step && a.assembly == b.assembly && a.newton_tol_residual == b.newton_tol_residual &&
                      a.newton_tol_update == b.newton_tol_update && a.newton_max_iter == b.newton_max_iter &&
                      a.threads == b.threads && a.dt_retry == b.dt_retry,
                  "solver keys");
    HS_TEST_CHECK(a.pc.precond == b.pc.precond && a.pc.krylov == b.pc.krylov && a.pc.sai_level == b.pc.sai_level &&
                      a.pc.reuse == b.pc.reuse, "solver.precond, krylov, sai_level, precond_reuse");
    HS_TEST_CHECK(!strcmp(a.out_format, b.out_format) && !strcmp(a.out_dir, b.out_dir) &&
                      !strcmp(a.out_prefix, b.out_prefix) && a.out_interval == b.out_interval &&
                      a.checkpoint_interval == b.checkpoint_interval && a.checkpoint_keep == b.checkpoint_keep,
                  "output keys");
    HS_TEST_RETURN();
}
