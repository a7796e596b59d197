/* The table of configuration keys: the single source of names, types, defaults, ranges, units and
 * meanings. The loader (config.c), hs_config_print and hs_config_print_reference (which generates
 * the table of docs/config.md) all read it; adding a key is one row here plus the hs_config field. */
#include "config_schema.h"

#include <stddef.h>

#include "hs_config.h"
#include "hs_vtk.h"

/* Storage order of the choices below must match the enums they are stored as. */
_Static_assert(HS_STIM_BOX == 0 && HS_STIM_SPHERE == 1, "stimulus.[i].shape choices order");
_Static_assert(HS_FIELD_PHI == 1 << 0 && HS_FIELD_V == 1 << 1 && HS_FIELD_ACTIVATION == 1 << 2 &&
                   HS_FIELD_R == 1 << 3 && HS_FIELD_FIBER == 1 << 4 && HS_FIELD_REGION == 1 << 5,
               "output.fields choices order");

/* Where a key lives. */
#define AT(field) .off = offsetof(hs_config, field), .size = sizeof(((hs_config *)0)->field)
#define AT_INT(field) .off = offsetof(hs_config, field), .size = 0
#define AT_STIM(field) .off = offsetof(hs_stimulus_cfg, field), .size = sizeof(((hs_stimulus_cfg *)0)->field)
#define AT_STIM_INT(field) .off = offsetof(hs_stimulus_cfg, field), .size = 0

/* Ranges. */
#define GT(a) .flags = HS_CFG_MIN_OPEN, .min = (a)
#define GE(a) .flags = HS_CFG_MIN_CLOSED, .min = (a)
#define OPEN(a, b) .flags = HS_CFG_MIN_OPEN | HS_CFG_MAX_OPEN, .min = (a), .max = (b)

#define STIM HS_CFG_STIMULUS

const hs_cfg_key hs_cfg_schema[] = {
    /* ---- mesh ---------------------------------------------------------------------------- */
    {.path = "mesh.source", .type = HS_CFG_ENUM, .choices = "box|tetgen", .def_str = "box",
     .unit = "-", AT(mesh_source),
     .meaning = "built-in slab (\"box\") or a TetGen .node/.ele pair (\"tetgen\", see mesh.file)"},
    {.path = "mesh.lx", .type = HS_CFG_FLOAT, GT(0), .def_num = 20.0, .unit = "mm", AT(box.lx),
     .meaning = "slab extent along x; the slab spans [0,lx] x [0,ly] x [0,lz]"},
    {.path = "mesh.ly", .type = HS_CFG_FLOAT, GT(0), .def_num = 7.0, .unit = "mm", AT(box.ly),
     .meaning = "slab extent along y"},
    {.path = "mesh.lz", .type = HS_CFG_FLOAT, GT(0), .def_num = 3.0, .unit = "mm", AT(box.lz),
     .meaning = "slab extent along z"},
    {.path = "mesh.h", .type = HS_CFG_FLOAT, GT(0), .def_num = 0.5, .unit = "mm", AT(box.h),
     .meaning = "target edge length of the slab mesh"},
    {.path = "mesh.generator", .type = HS_CFG_ENUM, .choices = "structured|tetgen",
     .def_str = "structured", .unit = "-", AT_INT(box.use_tetgen),
     .meaning = "slab mesher: 6 tets per cube (\"structured\") or TetGen with mesh.quality"},
    {.path = "mesh.quality", .type = HS_CFG_FLOAT, GE(1.0), .def_num = 1.414, .unit = "1",
     AT(box.tetgen_radius_edge),
     .meaning = "TetGen radius-edge bound (-q) for mesh.generator = \"tetgen\"; below 1 TetGen may not terminate"},
    {.path = "mesh.file", .type = HS_CFG_STRING, .flags = HS_CFG_CONFIG_PATH, .def_str = "",
     .unit = "-", AT(mesh_file),
     .meaning = "TetGen prefix (reads PREFIX.node, PREFIX.ele), relative to the config file; needed when mesh.source = \"tetgen\""},
    {.path = "mesh.reorder", .type = HS_CFG_ENUM, .choices = "rcm|none", .def_str = "rcm",
     .unit = "-", AT(mesh_reorder),
     .meaning = "node renumbering for locality: reverse Cuthill-McKee or none"},

    /* ---- fibers -------------------------------------------------------------------------- */
    {.path = "fibers.type", .type = HS_CFG_ENUM, .choices = "constant", .def_str = "constant",
     .unit = "-", AT(fiber_type), .meaning = "fibre field: the same direction in every element"},
    {.path = "fibers.direction", .type = HS_CFG_VEC3, .flags = HS_CFG_NONZERO,
     .def_vec = {1.0, 0.0, 0.0}, .unit = "1", AT(fiber_dir),
     .meaning = "fibre direction (normalised when used)"},

    /* ---- model: Aliev-Panfilov, Goktepe & Kuhl 2009 ----------------------------------------- */
    {.path = "model.c", .type = HS_CFG_FLOAT, GT(0), .def_num = 8.0, .unit = "1", AT(c),
     .meaning = "excitation rate c of f_phi = c phi (phi - alpha)(1 - phi) - r phi"},
    {.path = "model.alpha", .type = HS_CFG_FLOAT, OPEN(0, 1), .def_num = 0.01, .unit = "1",
     AT(alpha), .meaning = "excitation threshold alpha (normalised potential)"},
    {.path = "model.gamma", .type = HS_CFG_FLOAT, GE(0), .def_num = 0.002, .unit = "1",
     AT(gamma), .meaning = "recovery rate at rest gamma"},
    {.path = "model.b", .type = HS_CFG_FLOAT, GE(0), .def_num = 0.15, .unit = "1", AT(b),
     .meaning = "recovery parameter b of f_r"},
    {.path = "model.mu1", .type = HS_CFG_FLOAT, GE(0), .def_num = 0.2, .unit = "1", AT(mu1),
     .meaning = "recovery parameter mu1 (gamma + mu1 r / (mu2 + phi))"},
    {.path = "model.mu2", .type = HS_CFG_FLOAT, GT(0), .def_num = 0.3, .unit = "1", AT(mu2),
     .meaning = "recovery parameter mu2"},
    {.path = "model.d_iso", .type = HS_CFG_FLOAT, GT(0), .def_num = 0.3, .unit = "mm^2/ms",
     AT(d_iso), .meaning = "isotropic diffusion: D = d_iso I + d_ani f f^T (cross-fibre D = d_iso)"},
    {.path = "model.d_ani", .type = HS_CFG_FLOAT, GE(0), .def_num = 0.9, .unit = "mm^2/ms",
     AT(d_ani), .meaning = "extra diffusion along the fibre (along-fibre D = d_iso + d_ani)"},
    {.path = "model.time_unit", .type = HS_CFG_FLOAT, GT(0), .def_num = 12.9, .unit = "ms",
     AT(time_unit), .meaning = "milliseconds per model time unit"},
    {.path = "model.recovery", .type = HS_CFG_BOOL, .def_num = 1, .unit = "-", AT(recovery),
     .meaning = "evolve the recovery variable r (false: r = 0, pure cubic reaction front)"},

    /* ---- time ---------------------------------------------------------------------------- */
    {.path = "time.dt", .type = HS_CFG_FLOAT, GT(0), .def_num = 0.1, .unit = "ms", AT(dt),
     .meaning = "time step (backward Euler); must stay below the tangent limit, see below"},
    {.path = "time.t_end", .type = HS_CFG_FLOAT, GT(0), .def_num = 40.0, .unit = "ms",
     AT(t_end), .meaning = "end time of the run (>= time.dt)"},

    /* ---- stimulus: a list of groups --------------------------------------------------------- */
    {.path = "stimulus", .type = HS_CFG_GROUPLIST, .unit = "-",
     .meaning = "list of stimulus groups ( { ... }, { ... } ), at most 64; empty by default"},
    {.path = "stimulus.[i].shape", .type = HS_CFG_ENUM, .flags = STIM, .choices = "box|sphere",
     .def_str = "box", .unit = "-", AT_STIM_INT(shape),
     .meaning = "region shape; elements whose centroid lies inside get the current"},
    {.path = "stimulus.[i].min", .type = HS_CFG_VEC3, .flags = STIM, .shape = "box",
     .def_doc = "required for box", .unit = "mm", AT_STIM(min),
     .meaning = "box corner with the smallest coordinates (min < max on every axis)"},
    {.path = "stimulus.[i].max", .type = HS_CFG_VEC3, .flags = STIM, .shape = "box",
     .def_doc = "required for box", .unit = "mm", AT_STIM(max),
     .meaning = "box corner with the largest coordinates"},
    {.path = "stimulus.[i].center", .type = HS_CFG_VEC3, .flags = STIM, .shape = "sphere",
     .def_doc = "required for sphere", .unit = "mm", AT_STIM(center), .meaning = "sphere centre"},
    {.path = "stimulus.[i].radius", .type = HS_CFG_FLOAT, .flags = STIM | HS_CFG_MIN_OPEN,
     .min = 0, .shape = "sphere", .def_doc = "required for sphere", .unit = "mm",
     AT_STIM(radius), .meaning = "sphere radius"},
    {.path = "stimulus.[i].start", .type = HS_CFG_FLOAT, .flags = STIM | HS_CFG_MIN_CLOSED,
     .min = 0, .def_num = 0.0, .unit = "ms", AT_STIM(start), .meaning = "time the current switches on"},
    {.path = "stimulus.[i].duration", .type = HS_CFG_FLOAT, .flags = STIM | HS_CFG_MIN_OPEN,
     .min = 0, .def_num = 2.0, .unit = "ms", AT_STIM(duration), .meaning = "how long it stays on"},
    {.path = "stimulus.[i].strength", .type = HS_CFG_FLOAT, .flags = STIM | HS_CFG_MIN_CLOSED,
     .min = 0, .def_num = 1.0, .unit = "1/ms", AT_STIM(strength),
     .meaning = "d(phi)/dt added while on (1/ms = 100 mV/ms)"},

    /* ---- solver -------------------------------------------------------------------------- */
    {.path = "solver.backend", .type = HS_CFG_ENUM, .choices = "auto|cpu|cuda", .def_str = "auto",
     .unit = "-", AT(backend),
     .meaning = "\"auto\": cuda when built with CUDA and a device is present, else cpu"},
    {.path = "solver.spmv", .type = HS_CFG_STRING, .flags = HS_CFG_NONEMPTY,
     .def_str = "auto", .unit = "-", AT(spmv),
     .meaning = "SpMV kernel by registry name (`heartsim kernels`), or \"auto\": on cuda the fastest in a timed trial on this matrix at set-up; csr_scalar on cpu"},
    {.path = "solver.cg_tol", .type = HS_CFG_FLOAT, OPEN(0, 1), .def_num = 1e-8, .unit = "1",
     AT(cg_tol), .meaning = "CG stops at ||r|| <= cg_tol ||b||"},
    {.path = "solver.cg_max_iter", .type = HS_CFG_INT, GE(1), .def_num = 1000, .unit = "-",
     AT(cg_max_iter), .meaning = "CG iteration limit per Newton step (reaching it is an error)"},
    {.path = "solver.newton_tol_residual", .type = HS_CFG_FLOAT, GT(0), .def_num = 1e-8,
     .unit = "1", AT(newton_tol_residual),
     .meaning = "Newton converged when dt max_I |R_I| / m_I (potential units) is below this ..."},
    {.path = "solver.newton_tol_update", .type = HS_CFG_FLOAT, GT(0), .def_num = 1e-8,
     .unit = "1", AT(newton_tol_update), .meaning = "... and max_I |delta phi_I| is below this"},
    {.path = "solver.newton_max_iter", .type = HS_CFG_INT, GE(1), .def_num = 10, .unit = "-",
     AT(newton_max_iter), .meaning = "Newton iteration limit per time step (reaching it is an error)"},
    {.path = "solver.dt_retry", .type = HS_CFG_INT,
     .flags = HS_CFG_MIN_CLOSED | HS_CFG_MAX_CLOSED, .min = 0, .max = 10, .def_num = 0, .unit = "-",
     AT(dt_retry),
     .meaning = "a failed step is retried as 2, 4, ... 2^dt_retry substeps (logged) before the run stops; 0 = no retry; frames stay on the time.dt grid"},
    {.path = "solver.threads", .type = HS_CFG_INT, GE(0), .def_num = 0, .unit = "-",
     AT(threads), .meaning = "OpenMP threads of the cpu backend; 0 = all available"},

    /* ---- spmv: tunables of the SpMV formats (docs/kernels.md) ------------------------------- */
    {.path = "spmv.block_size", .type = HS_CFG_INT, GE(32), .def_num = 256, .unit = "threads",
     AT(spmv_params.block_size), .meaning = "threads per block for formats that let it be chosen; a multiple of 32, at most 1024"},
    {.path = "spmv.ellwarp_threshold", .type = HS_CFG_INT, GE(1), .def_num = 32, .unit = "nonzeros",
     AT(spmv_params.ellwarp_threshold), .meaning = "ELL-WARP K2: rows longer than this are split over several threads (seed 002 sec. 5.4)"},
    {.path = "spmv.pcsr_padding", .type = HS_CFG_INT, GE(1), .def_num = 4, .unit = "nonzeros",
     AT(spmv_params.pcsr_padding), .meaning = "PCSR (Dehnavi): rows padded with zeros to a multiple of this (seed 000 sec. IV-B)"},
    {.path = "spmv.pcsr_prefetch", .type = HS_CFG_INT, GE(1), .def_num = 4, .unit = "partitions",
     AT(spmv_params.pcsr_prefetch), .meaning = "PCSR (Dehnavi): 256-nonzero partitions handled per block (seed 000 sec. IV-B)"},

    /* ---- output -------------------------------------------------------------------------- */
    {.path = "output.enabled", .type = HS_CFG_BOOL, .def_num = 1, .unit = "-",
     AT(output_enabled), .meaning = "write VTK frames and the .vtk.series index"},
    {.path = "output.dir", .type = HS_CFG_STRING, .flags = HS_CFG_NONEMPTY, .def_str = "output",
     .unit = "-", AT(out_dir),
     .meaning = "output directory, relative to the current working directory (not the config file); created if missing"},
    {.path = "output.prefix", .type = HS_CFG_STRING, .flags = HS_CFG_NONEMPTY | HS_CFG_FILENAME,
     .def_str = "heartsim", .unit = "-", AT(out_prefix),
     .meaning = "file name prefix: DIR/PREFIX_000000.vtk, DIR/PREFIX.vtk.series"},
    {.path = "output.interval", .type = HS_CFG_FLOAT, GT(0), .def_num = 1.0, .unit = "ms",
     AT(out_interval), .meaning = "time between frames (>= time.dt)"},
    {.path = "output.fields", .type = HS_CFG_STRLIST,
     .choices = "phi|V|activation|r|fiber|region", .def_str = "phi,V,activation,r,fiber",
     .unit = "-", AT_INT(out_fields), .meaning = "arrays written to each frame"},
    {.path = "output.checkpoint_interval", .type = HS_CFG_FLOAT, GE(0), .def_num = 0.0,
     .unit = "ms", AT(checkpoint_interval),
     .meaning = "simulated time between checkpoints DIR/PREFIX_ckpt_STEP.hsck (restart: run --restart); 0 = none (a signal or a failed step still writes one)"},
    {.path = "output.checkpoint_keep", .type = HS_CFG_INT, GE(1), .def_num = 2, .unit = "-",
     AT(checkpoint_keep),
     .meaning = "checkpoints kept; an older one is deleted only after a newer one is complete"},
    {.path = "output.activation_threshold", .type = HS_CFG_FLOAT, OPEN(-80, 20),
     .def_num = -30.0, .unit = "mV", AT(activation_threshold),
     .meaning = "activation time = first upward crossing of V through this value"},
};

const int hs_cfg_schema_len = (int)(sizeof hs_cfg_schema / sizeof hs_cfg_schema[0]);
