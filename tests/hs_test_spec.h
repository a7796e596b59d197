/**
 * @file hs_test_spec.h
 * @brief A simulation spec for tests of fem/, backends/ and sim/, which do not link app/: the
 * values of the config defaults (docs/config.md) on a box slab, cpu backend, no output, no
 * stimulus. tests/app/config/test_spec_defaults.c checks that it matches what app/ makes of an empty
 * config, so the two cannot drift apart. Header-only.
 */
#ifndef HS_TEST_SPEC_H
#define HS_TEST_SPEC_H

#include <stdio.h>
#include <string.h>

#include "hs_sim.h"

/** @brief @p s = the config defaults, box source, backend cpu, output off (see the file comment). */
static void hs_test_spec_defaults(hs_sim_spec *s)
{
    memset(s, 0, sizeof *s);
    s->mesh.source = (const hs_mesh_source *)hs_registry_find(hs_mesh_sources(), "box");
    s->mesh.box = (hs_box_params){.lx = 20.0, .ly = 7.0, .lz = 3.0, .h = 0.5, .use_tetgen = 0,
                                  .tetgen_radius_edge = 1.414};
    s->mesh.scale = 1.0;
    s->mesh.reorder = HS_REORDER_RCM;
    s->mesh.lv = (hs_lv_params){.rs_endo = 7.0, .rl_endo = 17.0, .rs_epi = 10.0, .rl_epi = 20.0, .z_base = 5.0,
                                .helix_endo_deg = 60.0, .helix_epi_deg = -60.0};
    s->mesh.fibers = HS_FIBERS_AUTO;
    s->mesh.fiber_dir[0] = 1.0;
    snprintf(s->mesh.fiber_location, sizeof s->mesh.fiber_location, "auto");
    s->model = hs_models_find("aliev_panfilov");
    hs_model_params_defaults(s->model, &s->model_prm);
    s->time_unit = s->model->time_unit_default;
    s->d_iso = 0.3;
    s->d_ani = 0.9;
    s->dt = 0.1;
    s->t_end = 40.0;
    s->activation_threshold = -30.0;
    s->repol_threshold = -70.0;
    s->ecg_sigma_b = 0.5; /* ecg.sigma_b 0.7 S/m over chi C_m = 1.4 S/m per mm^2/ms (app/spec.c) */
    s->backend = hs_backends_find("cpu");
    s->spmv = NULL;
    s->spmv_params = hs_spmv_params_default();
    s->cg = (hs_cg_opts){.tol = 1e-8, .max_iter = 1000, .variant = HS_CG_CHRONOPOULOS, .s = 4};
    s->cg_forcing = 0.1;
    s->extrapolate = 2;
    s->graph = 1;
    s->persistent = HS_PERSISTENT_AUTO;
    s->pc = hs_precond_opts_default();
    s->step = HS_STEP_KERNELS; /* the reference (a run's default is auto: test_spec_defaults) */
    s->assembly = HS_ASSEMBLY_SPLIT;
    s->matrix_values = HS_VALUES_AUTO;
    s->newton_tol_residual = 1e-8;
    s->newton_tol_update = 1e-8;
    s->newton_max_iter = 10;
    s->output_enabled = 0;
    s->out_format = "vtk";
    snprintf(s->out_dir, sizeof s->out_dir, "output");
    snprintf(s->out_prefix, sizeof s->out_prefix, "heartsim");
    s->out_interval = 1.0;
    s->checkpoint_interval = 100.0;
    s->checkpoint_keep = 2;
    s->config_path = "(test)";
}

#endif
