/* The table of configuration keys: the single source of names, types, defaults, ranges, units and
 * meanings. The loader (config.c), hs_config_print and hs_config_print_reference (which generates
 * the table of docs/config.md) all read it; adding a key is one row here plus the hs_config field. */
#include "config_schema.h"

#include <stddef.h>

#include "hs_config.h"

/* Storage order of the choices below must match the enums they are stored as. */
_Static_assert(HS_STIM_BOX == 0 && HS_STIM_SPHERE == 1 && HS_STIM_SURFACE == 2 && HS_STIM_NODES == 3,
               "stimulus.[i].shape choices order");
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
#define CLOSED(a, b) .flags = HS_CFG_MIN_CLOSED | HS_CFG_MAX_CLOSED, .min = (a), .max = (b)
#define GE_LT(a, b) .flags = HS_CFG_MIN_CLOSED | HS_CFG_MAX_OPEN, .min = (a), .max = (b)

#define STIM HS_CFG_STIMULUS

const hs_cfg_key hs_cfg_schema[] = {
    /* ---- mesh ---------------------------------------------------------------------------- */
    {.path = "mesh.source", .type = HS_CFG_ENUM, .choices = "box|tetgen|file|surface|ellipsoid_lv",
     .def_str = "box", .unit = "-", AT(mesh_source),
     .meaning = "\"box\": built-in slab; \"tetgen\": a TetGen .node/.ele pair; \"file\": a volume mesh (.vtk, .msh, openCARP .pts/.elem, .node/.ele); \"surface\": a closed surface (.stl, .off, .ply, .poly, .smesh) meshed by TetGen; \"ellipsoid_lv\": the Land et al. 2015 benchmark left ventricle (docs/meshes.md)"},
    {.path = "mesh.lx", .type = HS_CFG_FLOAT, GT(0), .def_num = 20.0, .unit = "mm", AT(box.lx),
     .meaning = "slab extent along x; the slab spans [0,lx] x [0,ly] x [0,lz]"},
    {.path = "mesh.ly", .type = HS_CFG_FLOAT, GT(0), .def_num = 7.0, .unit = "mm", AT(box.ly),
     .meaning = "slab extent along y"},
    {.path = "mesh.lz", .type = HS_CFG_FLOAT, GT(0), .def_num = 3.0, .unit = "mm", AT(box.lz),
     .meaning = "slab extent along z"},
    {.path = "mesh.h", .type = HS_CFG_FLOAT, GT(0), .def_num = 0.5, .unit = "mm", AT(box.h),
     .meaning = "target edge length of the box, surface and ellipsoid_lv meshes (TetGen gets the volume of a regular tetrahedron with this edge as its bound)"},
    {.path = "mesh.generator", .type = HS_CFG_ENUM, .choices = "structured|tetgen",
     .def_str = "structured", .unit = "-", AT_INT(box.use_tetgen),
     .meaning = "slab mesher: 6 tets per cube (\"structured\") or TetGen with mesh.quality"},
    {.path = "mesh.quality", .type = HS_CFG_FLOAT, GE(1.0), .def_num = 1.414, .unit = "1",
     AT(box.tetgen_radius_edge),
     .meaning = "TetGen radius-edge bound (-q) wherever TetGen meshes (box with mesh.generator = \"tetgen\", surface, ellipsoid_lv); below 1 TetGen may not terminate"},
    {.path = "mesh.min_dihedral", .type = HS_CFG_FLOAT, CLOSED(0, 30), .def_num = 0.0,
     .unit = "deg", AT(mesh_min_dihedral),
     .meaning = "TetGen minimum dihedral angle bound (second -q value) for surface and ellipsoid_lv; 0 = TetGen's default; above about 20 TetGen may not terminate"},
    {.path = "mesh.file", .type = HS_CFG_STRING, .flags = HS_CFG_CONFIG_PATH, .def_str = "",
     .unit = "-", AT(mesh_file),
     .meaning = "input of mesh.source = \"tetgen\" (the prefix: PREFIX.node, PREFIX.ele), \"file\" or \"surface\", relative to the config file"},
    {.path = "mesh.scale", .type = HS_CFG_FLOAT, GT(0), .def_num = 1.0, .unit = "1", AT(mesh_scale),
     .meaning = "file coordinates times this are mm (tetgen, file, surface): 10 for cm, 1000 for m, 0.001 for openCARP's um"},
    {.path = "mesh.weld_tolerance", .type = HS_CFG_FLOAT, GE(0), .def_num = 0.0, .unit = "mm",
     AT(mesh_weld_tol),
     .meaning = "STL surfaces: corners closer than this (after mesh.scale) are one point; 0 = 1e-6 of the bounding-box diagonal"},
    {.path = "mesh.quadratic", .type = HS_CFG_ENUM, .choices = "refuse|linearize", .def_str = "refuse",
     .unit = "-", AT(mesh_quadratic),
     .meaning = "10-node tetrahedra in mesh.file: an error, or keep their corner nodes (mid-edge nodes dropped)"},
    {.path = "mesh.reorder", .type = HS_CFG_ENUM, .choices = "rcm|sfc|none", .def_str = "rcm",
     .unit = "-", AT(mesh_reorder),
     .meaning = "node renumbering for locality: reverse Cuthill-McKee (small bandwidth), a Hilbert space-filling curve, or none"},
    {.path = "mesh.lv_endo_short", .type = HS_CFG_FLOAT, GT(0), .def_num = 7.0, .unit = "mm",
     AT(lv.rs_endo), .meaning = "ellipsoid_lv: short (equatorial) radius of the endocardium"},
    {.path = "mesh.lv_endo_long", .type = HS_CFG_FLOAT, GT(0), .def_num = 17.0, .unit = "mm",
     AT(lv.rl_endo), .meaning = "ellipsoid_lv: long radius of the endocardium (long axis along z, apex at z < 0)"},
    {.path = "mesh.lv_epi_short", .type = HS_CFG_FLOAT, GT(0), .def_num = 10.0, .unit = "mm",
     AT(lv.rs_epi), .meaning = "ellipsoid_lv: short radius of the epicardium (> lv_endo_short)"},
    {.path = "mesh.lv_epi_long", .type = HS_CFG_FLOAT, GT(0), .def_num = 20.0, .unit = "mm",
     AT(lv.rl_epi), .meaning = "ellipsoid_lv: long radius of the epicardium (> lv_endo_long)"},
    {.path = "mesh.lv_base_z", .type = HS_CFG_FLOAT, .def_num = 5.0, .unit = "mm", AT(lv.z_base),
     .meaning = "ellipsoid_lv: the base plane z = lv_base_z truncates both ellipsoids (|lv_base_z| < lv_endo_long)"},

    /* ---- fibers -------------------------------------------------------------------------- */
    {.path = "fibers.type", .type = HS_CFG_ENUM, .choices = "auto|constant|ellipsoid|file|mesh",
     .def_str = "auto", .unit = "-", AT(fiber_type),
     .meaning = "fibre field: \"constant\" (fibers.direction), \"ellipsoid\" (rule-based helix, ellipsoid_lv only), \"file\" (fibers.file), \"mesh\" (the fibres mesh.file carries); \"auto\": ellipsoid for ellipsoid_lv, the mesh file's fibres when it has them, else constant"},
    {.path = "fibers.direction", .type = HS_CFG_VEC3, .flags = HS_CFG_NONZERO,
     .def_vec = {1.0, 0.0, 0.0}, .unit = "1", AT(fiber_dir),
     .meaning = "fibre direction of fibers.type = \"constant\" (normalised when used)"},
    {.path = "fibers.helix_endo", .type = HS_CFG_FLOAT, CLOSED(-90, 90), .def_num = 60.0,
     .unit = "deg", AT(lv.helix_endo_deg),
     .meaning = "ellipsoid rule: helix angle at the endocardium, varying linearly with transmural depth (Land et al. 2015)"},
    {.path = "fibers.helix_epi", .type = HS_CFG_FLOAT, CLOSED(-90, 90), .def_num = -60.0,
     .unit = "deg", AT(lv.helix_epi_deg), .meaning = "ellipsoid rule: helix angle at the epicardium"},
    {.path = "fibers.file", .type = HS_CFG_STRING, .flags = HS_CFG_CONFIG_PATH, .def_str = "",
     .unit = "-", AT(fiber_file),
     .meaning = "fibers.type = \"file\": 3 numbers per line (or 6: fibre and sheet; an openCARP .lon header line 1 or 2 is accepted), per element or per node of the source numbering, relative to the config file"},
    {.path = "fibers.location", .type = HS_CFG_ENUM, .choices = "auto|element|node", .def_str = "auto",
     .unit = "-", AT(fiber_location),
     .meaning = "whether fibers.file holds one line per element or per node; \"auto\": by its line count"},

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
    {.path = "stimulus.[i].shape", .type = HS_CFG_ENUM, .flags = STIM,
     .choices = "box|sphere|surface|nodes", .def_str = "box", .unit = "-", AT_STIM_INT(shape),
     .meaning = "box, sphere: the elements whose centroid lies inside; surface: the elements owning a boundary triangle with this label; nodes: the elements containing a listed node"},
    {.path = "stimulus.[i].min", .type = HS_CFG_VEC3, .flags = STIM, .shape = "box",
     .def_doc = "required for box", .unit = "mm", AT_STIM(min),
     .meaning = "box corner with the smallest coordinates (min < max on every axis)"},
    {.path = "stimulus.[i].max", .type = HS_CFG_VEC3, .flags = STIM, .shape = "box",
     .def_doc = "required for box", .unit = "mm", AT_STIM(max),
     .meaning = "box corner with the largest coordinates"},
    {.path = "stimulus.[i].center", .type = HS_CFG_VEC3, .flags = STIM, .shape = "sphere",
     .shape_opt = "surface", .def_doc = "required for sphere; optional for surface", .unit = "mm",
     AT_STIM(center), .meaning = "sphere centre; for surface, with radius: only the label's triangles whose centroid lies in this sphere (e.g. the endocardial apex)"},
    {.path = "stimulus.[i].radius", .type = HS_CFG_FLOAT, .flags = STIM | HS_CFG_MIN_OPEN,
     .min = 0, .shape = "sphere", .shape_opt = "surface",
     .def_doc = "required for sphere; optional for surface", .unit = "mm", AT_STIM(radius),
     .meaning = "sphere radius (with center)"},
    {.path = "stimulus.[i].label", .type = HS_CFG_STRING, .flags = STIM | HS_CFG_NONEMPTY,
     .shape = "surface", .def_doc = "required for surface", .unit = "-", AT_STIM(label),
     .meaning = "boundary label name (ellipsoid_lv: \"endo\", \"epi\", \"base\"; Gmsh physical names) or marker number (\"3\")"},
    {.path = "stimulus.[i].file", .type = HS_CFG_STRING,
     .flags = STIM | HS_CFG_NONEMPTY | HS_CFG_CONFIG_PATH, .shape = "nodes",
     .def_doc = "required for nodes", .unit = "-", AT_STIM(file),
     .meaning = "node list relative to the config file: one 0-based node index of the source mesh file per line, or openCARP .vtx (count, \"intra\"/\"extra\", indices)"},
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
    {.path = "solver.cg", .type = HS_CFG_ENUM, .choices = "chronopoulos|classic",
     .def_str = "chronopoulos", .unit = "-", AT(cg_variant),
     .meaning = "CG variant: Chronopoulos-Gear single-reduction PCG (seed 004 ch. 4) or the textbook one"},
    {.path = "solver.cg_forcing", .type = HS_CFG_FLOAT, GE_LT(0, 1), .def_num = 0.1, .unit = "1",
     AT(cg_forcing),
     .meaning = "inexact Newton: a CG solve stops when its residual is below cg_forcing times the Newton residual, and never needs to go below what the Newton test can resolve; 0 = always solve to solver.cg_tol"},
    {.path = "solver.newton_tol_residual", .type = HS_CFG_FLOAT, GT(0), .def_num = 1e-8,
     .unit = "1", AT(newton_tol_residual),
     .meaning = "Newton converged when dt max_I |R_I| / m_I (potential units) is below this ..."},
    {.path = "solver.newton_tol_update", .type = HS_CFG_FLOAT, GT(0), .def_num = 1e-8,
     .unit = "1", AT(newton_tol_update), .meaning = "... and max_I |delta phi_I| is below this"},
    {.path = "solver.newton_max_iter", .type = HS_CFG_INT, GE(1), .def_num = 10, .unit = "-",
     AT(newton_max_iter), .meaning = "Newton iteration limit per time step (reaching it is an error)"},
    {.path = "solver.extrapolate", .type = HS_CFG_INT, CLOSED(0, 2), .def_num = 2, .unit = "-",
     AT(extrapolate),
     .meaning = "initial Newton iterate: 0 previous step, 1 linear, 2 quadratic extrapolation of the last steps"},
    {.path = "solver.dt_retry", .type = HS_CFG_INT,
     .flags = HS_CFG_MIN_CLOSED | HS_CFG_MAX_CLOSED, .min = 0, .max = 10, .def_num = 0, .unit = "-",
     AT(dt_retry),
     .meaning = "a failed step is retried as 2, 4, ... 2^dt_retry substeps (logged) before the run stops; 0 = no retry; frames stay on the time.dt grid"},
    {.path = "solver.threads", .type = HS_CFG_INT, GE(0), .def_num = 0, .unit = "-",
     AT(threads), .meaning = "OpenMP threads of the cpu backend; 0 = all available"},
    {.path = "solver.graph", .type = HS_CFG_ENUM, .choices = "auto|on|off", .def_str = "auto",
     .unit = "-", AT(graph), .meaning = "CUDA backend: replay each Newton iteration as a CUDA graph (the CG loop a WHILE node stopped by the device's own convergence test); off: launch kernels one by one and read the CG status every 4 iterations"},
    {.path = "solver.persistent", .type = HS_CFG_ENUM, .choices = "auto|on|off", .def_str = "auto",
     .unit = "-", AT(persistent), .meaning = "CUDA backend, solver.cg = chronopoulos: run each CG solve as one persistent cooperative kernel (two grid barriers per iteration); auto: for systems up to 262,144 rows, where launch latency bounds an iteration"},

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
    {.path = "output.format", .type = HS_CFG_ENUM, .choices = "vtk|xdmf", .def_str = "vtk",
     .unit = "-", AT(out_format),
     .meaning = "vtk: legacy .vtk frames + .vtk.series (each frame standalone); xdmf: geometry written once, fields per frame as raw binary, indexed by an .xdmf file (cheap frames for large meshes)"},
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
