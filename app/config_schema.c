/* The table of configuration keys: the single source of names, types, defaults, ranges, units and
 * meanings. The loader (config_load.c), the validator (config_validate.c), hs_config_print and
 * hs_config_print_reference (config_print.c, which generates the table of docs/config.md) all read
 * it; adding a key is one row here plus the hs_config field. */
#include "config_schema.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "config_internal.h"
#include "hs_config.h"
#include "hs_model_sizes.h"
#include "hs_models.h"
#include "hs_series.h"

/* Storage order of the choices below must match the enums they are stored as. */
_Static_assert(HS_STIM_BOX == 0 && HS_STIM_SPHERE == 1 && HS_STIM_SURFACE == 2 && HS_STIM_NODES == 3,
               "stimulus.[i].shape choices order");

_Static_assert(HS_REGION_ATTRIBUTE == 0 && HS_REGION_BOX == 1 && HS_REGION_SPHERE == 2 && HS_REGION_SURFACE == 3 &&
                   HS_REGION_ELEMENTS == 4,
               "regions.[i].select choices order");

/* Where a key lives. */
#define AT(field) .off = offsetof(hs_config, field), .size = sizeof(((hs_config *)0)->field)
#define AT_INT(field) .off = offsetof(hs_config, field), .size = 0
#define AT_STIM(field) .off = offsetof(hs_stimulus_cfg, field), .size = sizeof(((hs_stimulus_cfg *)0)->field)
#define AT_PT(field) .off = offsetof(hs_point_cfg, field), .size = sizeof(((hs_point_cfg *)0)->field)
#define AT_REG(field) .off = offsetof(hs_region_cfg, field), .size = sizeof(((hs_region_cfg *)0)->field)
#define AT_REG_INT(field) .off = offsetof(hs_region_cfg, field), .size = 0
#define AT_STIM_INT(field) .off = offsetof(hs_stimulus_cfg, field), .size = 0

/* Ranges. */
#define GT(a) .flags = HS_CFG_MIN_OPEN, .min = (a)
#define GE(a) .flags = HS_CFG_MIN_CLOSED, .min = (a)
#define OPEN(a, b) .flags = HS_CFG_MIN_OPEN | HS_CFG_MAX_OPEN, .min = (a), .max = (b)
#define CLOSED(a, b) .flags = HS_CFG_MIN_CLOSED | HS_CFG_MAX_CLOSED, .min = (a), .max = (b)
#define GE_LT(a, b) .flags = HS_CFG_MIN_CLOSED | HS_CFG_MAX_OPEN, .min = (a), .max = (b)

#define STIM HS_CFG_STIMULUS
#define REG HS_CFG_REGION

static const hs_cfg_key base_keys[] = {
    /* ---- mesh ---------------------------------------------------------------------------- */
    {.path = "mesh.source", .type = HS_CFG_ENUM, .choices = "box|tetgen|file|surface|ellipsoid_lv",
     .def_str = "box", .unit = "-", AT(mesh_source),
     .meaning = "\"box\": built-in slab; \"tetgen\": a TetGen .node/.ele pair; \"file\": a volume mesh (.vtk, .vtu, .msh, openCARP .pts/.elem, .node/.ele); \"surface\": a closed surface (.stl, .off, .ply, .poly, .smesh, .vtp) meshed by TetGen; \"ellipsoid_lv\": the Land et al. 2015 benchmark left ventricle (docs/meshes.md)"},
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
    {.path = "mesh.label_array", .type = HS_CFG_STRING, .def_str = "", .unit = "-", AT(mesh_label_array),
     .meaning = ".vtp surfaces: the CellData array holding the facet labels (one integer per polygon), e.g. \"class\"; \"\" = the first 1-component array named region, regions, tag, material, elemTag, gmsh:physical or CellEntityIds"},
    {.path = "mesh.quadratic", .type = HS_CFG_ENUM, .choices = "refuse|linearize", .def_str = "refuse",
     .unit = "-", AT(mesh_quadratic),
     .meaning = "10-node tetrahedra in mesh.file: an error, or read each as the linear tetrahedron of its 4 corner nodes (the mid-edge nodes are not part of the linear mesh)"},
    {.path = "mesh.reorder", .type = HS_CFG_ENUM, .choices = "rcm|sfc|none", .def_str = "rcm",
     .unit = "-", AT(mesh_reorder),
     .meaning = "node renumbering for locality: reverse Cuthill-McKee (small bandwidth), a Hilbert space-filling curve, or none"},
    {.path = "mesh.cache", .type = HS_CFG_BOOL, .def_num = 1, .unit = "-", AT(mesh_cache),
     .meaning = "keep meshes TetGen built (surface, ellipsoid_lv, box with mesh.generator = \"tetgen\") in mesh.cache_dir and reuse one when mesh.* and fibers.* (and the input files' contents) are the same (docs/meshes.md)"},
    {.path = "mesh.cache_dir", .type = HS_CFG_STRING, .def_str = "", .unit = "-", AT(mesh_cache_dir),
     .meaning = "directory of the mesh cache, relative to the current working directory; \"\" = $XDG_CACHE_HOME/heartsim, else $HOME/.cache/heartsim"},
    {.path = "mesh.cache_parts", .type = HS_CFG_BOOL, .def_num = 0, .unit = "-", AT(mesh_cache_parts),
     .meaning = "a distributed run whose rank 0 reads the mesh and sends each rank its part (parallel.partition = metis, ptscotch, rows or nonzeros) keeps every rank's part in mesh.cache_dir (one file per rank: the directory must be visible to every rank), keyed by mesh.* and fibers.* with the input files' contents, the partitioner and the rank count; a rerun with the same ones has each rank read its own part and skips reading, partitioning and scattering (the summary says so). A damaged, incomplete or mismatched entry is rebuilt with a warning. Box or sphere stimuli and no regions (those are found on the whole mesh); needs mesh.cache = true (docs/parallel.md)"},
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

    /* ---- model: model.type; then the model's parameters (generated from fem/models/, below) -- */
    {.path = "model.type", .type = HS_CFG_ENUM, .def_str = NULL /* build(): the first listed model */, .unit = "-",
     AT(model_type),
     .meaning = "the ionic model (fem/models/); its parameters are the model.* keys whose meaning starts with its name"},
    {.path = "model.d_iso", .type = HS_CFG_FLOAT, GT(0), .def_num = 0.3 /* the default model's: build() */,
     .unit = "mm^2/ms", AT(d_iso),
     .meaning = "isotropic diffusion: D = d_iso I + d_ani f f^T (cross-fibre D = d_iso); when neither this, model.d_ani nor tissue.sigma_* is given, the selected model's default (0.3 m/s across the fibre: docs/config.md)"},
    {.path = "model.d_ani", .type = HS_CFG_FLOAT, GE(0), .def_num = 0.9 /* the default model's: build() */,
     .unit = "mm^2/ms", AT(d_ani),
     .meaning = "extra diffusion along the fibre (along-fibre D = d_iso + d_ani); when not given, the selected model's default (0.6 m/s along the fibre)"},
    {.path = "model.time_unit", .type = HS_CFG_FLOAT, GT(0), .def_num = 0.0 /* the default model's: build() */,
     .unit = "ms", AT(time_unit),
     .meaning = "milliseconds per model time unit; when not given, the selected model's own (the default is the default model's)"},

    {.path = "model.preset", .type = HS_CFG_STRING, .def_str = "", .unit = "-", AT(model_preset),
     .meaning = "a published parameter set of the selected model, applied before the model.* keys given in the file (which override it): bueno_orovio: \"epi\", \"endo\", \"mid\", \"pb\", \"tnnp\" (Table 1 of Bueno-Orovio et al. 2008; the defaults are \"epi\"); \"\" = the model's defaults"},
    {.path = "model.gates", .type = HS_CFG_ENUM, .choices = "newton|rush_larsen", .def_str = "newton", .unit = "-",
     AT_INT(model_gates),
     .meaning = "time step of the gating variables at the integration points (mitchell_schaeffer, bueno_orovio): backward Euler solved by the local Newton, or the exponential Rush-Larsen update; the global Newton tangent differentiates whichever is chosen"},

    /* ---- tissue: conductivities in S/m, the alternative to model.d_iso/d_ani (config_load.c) --- */
    {.path = "tissue.sigma_il", .type = HS_CFG_FLOAT, GE(0), .def_num = 0.0, .def_doc = "not given (model.d_iso, d_ani)",
     .unit = "S/m", AT(sigma_il),
     .meaning = "intracellular conductivity along the fibre (openCARP g_il, Chaste's intracellular conductivities in S/m = 0.1 mS/cm); with tissue.sigma_it it replaces model.d_iso and d_ani (giving both is an error): D = sigma_m / (chi C_m), sigma_m = sigma_i, or the harmonic mean sigma_i sigma_e / (sigma_i + sigma_e) when tissue.sigma_el, sigma_et are given"},
    {.path = "tissue.sigma_it", .type = HS_CFG_FLOAT, GE(0), .def_num = 0.0, .def_doc = "not given",
     .unit = "S/m", AT(sigma_it), .meaning = "intracellular conductivity across the fibre (openCARP g_it); with tissue.sigma_il"},
    {.path = "tissue.sigma_el", .type = HS_CFG_FLOAT, GE(0), .def_num = 0.0, .def_doc = "not given",
     .unit = "S/m", AT(sigma_el),
     .meaning = "extracellular conductivity along the fibre (openCARP g_el); with tissue.sigma_et the monodomain conductivity is the harmonic mean of the intra- and extracellular ones, per direction"},
    {.path = "tissue.sigma_et", .type = HS_CFG_FLOAT, GE(0), .def_num = 0.0, .def_doc = "not given",
     .unit = "S/m", AT(sigma_et), .meaning = "extracellular conductivity across the fibre (openCARP g_et); with tissue.sigma_el"},
    {.path = "tissue.chi", .type = HS_CFG_FLOAT, GT(0), .def_num = 1400.0, .unit = "1/cm", AT(chi),
     .meaning = "membrane surface-to-volume ratio chi of D = sigma_m / (chi C_m) (1400/cm: Chaste's default, openCARP's 0.14/um); used with tissue.sigma_* and by `heartsim tune-cv` to print conductivities"},
    {.path = "tissue.c_m", .type = HS_CFG_FLOAT, GT(0), .def_num = 1.0, .unit = "uF/cm^2", AT(c_m),
     .meaning = "membrane capacitance C_m per area of D = sigma_m / (chi C_m); D [mm^2/ms] = 1000 sigma [S/m] / (chi [1/cm] C_m [uF/cm^2])"},

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
    {.path = "stimulus.[i].count", .type = HS_CFG_INT, .flags = STIM | HS_CFG_MIN_CLOSED, .min = 1,
     .def_num = 1, .unit = "pulses", AT_STIM_INT(count),
     .meaning = "number of pulses: pulse p (0-based) starts at start + p period; an S1-S2 protocol is two stimulus entries. Pulses starting at or after time.t_end are reported (warning)"},
    {.path = "stimulus.[i].period", .type = HS_CFG_FLOAT, .flags = STIM | HS_CFG_MIN_CLOSED, .min = 0,
     .def_num = 0.0, .unit = "ms", AT_STIM(period),
     .meaning = "basic cycle length between pulse starts; with count > 1 it must be longer than duration (an error otherwise); unused when count = 1"},

    /* ---- regions: a list of groups (heterogeneous tissue, fem/hs_region.h) ------------------- */
    {.path = "regions", .type = HS_CFG_GROUPLIST, .unit = "-",
     .meaning = "heterogeneous tissue: list of region groups ( { ... }, { ... } ), at most 64, applied in order (later entries win, key by key); empty by default"},
    {.path = "regions.[i].select", .type = HS_CFG_ENUM, .flags = REG,
     .choices = "attribute|box|sphere|surface|elements", .def_str = "box", .unit = "-", AT_REG_INT(select),
     .meaning = "attribute: the mesh's region marker (TetGen attribute, Gmsh physical group, VTK cell data); box, sphere: the elements whose centroid lies inside; surface: centroid within distance of a labelled boundary triangle; elements: listed in a file"},
    {.path = "regions.[i].name", .type = HS_CFG_STRING, .flags = REG, .def_str = "", .unit = "-", AT_REG(name),
     .meaning = "a name for the log and messages (optional)"},
    {.path = "regions.[i].attribute", .type = HS_CFG_INT, .flags = REG, .shape = "attribute",
     .def_doc = "required for attribute", .unit = "1", AT_REG_INT(attribute),
     .meaning = "the region marker the elements carry"},
    {.path = "regions.[i].min", .type = HS_CFG_VEC3, .flags = REG, .shape = "box", .def_doc = "required for box",
     .unit = "mm", AT_REG(min), .meaning = "box corner with the smallest coordinates (min < max on every axis)"},
    {.path = "regions.[i].max", .type = HS_CFG_VEC3, .flags = REG, .shape = "box", .def_doc = "required for box",
     .unit = "mm", AT_REG(max), .meaning = "box corner with the largest coordinates"},
    {.path = "regions.[i].center", .type = HS_CFG_VEC3, .flags = REG, .shape = "sphere",
     .def_doc = "required for sphere", .unit = "mm", AT_REG(center), .meaning = "sphere centre"},
    {.path = "regions.[i].radius", .type = HS_CFG_FLOAT, .flags = REG | HS_CFG_MIN_OPEN, .min = 0,
     .shape = "sphere", .def_doc = "required for sphere", .unit = "mm", AT_REG(radius), .meaning = "sphere radius"},
    {.path = "regions.[i].label", .type = HS_CFG_STRING, .flags = REG | HS_CFG_NONEMPTY, .shape = "surface",
     .def_doc = "required for surface", .unit = "-", AT_REG(label),
     .meaning = "boundary label name (\"endo\", \"epi\", Gmsh physical names) or marker number"},
    {.path = "regions.[i].distance", .type = HS_CFG_FLOAT, .flags = REG | HS_CFG_MIN_CLOSED, .min = 0,
     .shape = "surface", .def_doc = "required for surface", .unit = "mm", AT_REG(distance),
     .meaning = "the elements whose centroid lies within this distance of the label's triangles"},
    {.path = "regions.[i].file", .type = HS_CFG_STRING, .flags = REG | HS_CFG_NONEMPTY | HS_CFG_CONFIG_PATH,
     .shape = "elements", .def_doc = "required for elements", .unit = "-", AT_REG(file),
     .meaning = "element list relative to the config file: one element number per line ('#' comments), numbered as the mesh file numbers its elements (the index for generated meshes)"},
    {.path = "regions.[i].d_iso", .type = HS_CFG_FLOAT, .flags = REG | HS_CFG_MIN_CLOSED, .min = 0,
     .def_num = -1, .def_doc = "unchanged (model.d_iso)", .unit = "mm^2/ms", AT_REG(d_iso),
     .meaning = "isotropic conductivity in the region; d_iso = d_ani = 0: non-conducting (scar: no current, held at rest, a no-flux boundary for its neighbours)"},
    {.path = "regions.[i].d_ani", .type = HS_CFG_FLOAT, .flags = REG | HS_CFG_MIN_CLOSED, .min = 0,
     .def_num = -1, .def_doc = "unchanged (model.d_ani)", .unit = "mm^2/ms", AT_REG(d_ani),
     .meaning = "extra conductivity along the fibre in the region"},
    {.path = "regions.[i].model", .type = HS_CFG_GROUP, .flags = REG, .def_doc = "none", .unit = "-",
     .meaning = "group { <parameter> = value; ... } of the selected model's parameters (the model.<parameter> keys, same ranges) set in the region; preset = \"name\" (model.preset's sets, e.g. the minimal model's \"endo\", \"mid\", \"epi\") sets every parameter the group does not name"},

    /* ---- probes and the pseudo-ECG ---------------------------------------------------------- */
    {.path = "probes.interval", .type = HS_CFG_FLOAT, GE(0), .def_num = 0.0, .unit = "ms", AT(probe_interval),
     .meaning = "time between probe samples; 0: every step (the samples stay on the device and are copied in batches)"},
    {.path = "probes.points", .type = HS_CFG_GROUPLIST, .unit = "-", AT(probes),
     .meaning = "list of probes ( { name = \"a\"; at = [x, y, z]; }, ... ), at most 64: V(t) at the node nearest each point, written to PREFIX_probes.csv (time in ms, V in mV)"},
    {.path = "probes.points.[i].name", .type = HS_CFG_STRING, .flags = HS_CFG_POINT | HS_CFG_FILENAME,
     .def_doc = "p1, p2, ... (1-based position)", .unit = "-", AT_PT(name), .meaning = "the probe's CSV column"},
    {.path = "probes.points.[i].at", .type = HS_CFG_VEC3, .flags = HS_CFG_POINT, .def_doc = "required", .unit = "mm",
     AT_PT(at), .meaning = "where: the nearest mesh node is sampled (an error when it is farther than the longest mesh edge)"},
    {.path = "ecg.electrodes", .type = HS_CFG_GROUPLIST, .unit = "-", AT(electrodes),
     .meaning = "list of electrodes ( { name = \"V1\"; at = [x, y, z]; }, ... ), at most 64, outside or on the tissue: the pseudo-ECG phi_e(x) = 1/(4 pi sigma_b) integral of (sigma_i grad V) . grad(1/|x - y|) over the tissue, sigma_i = chi C_m D (ecg.sigma_b, ecg.chi, ecg.c_m), written to PREFIX_ecg.csv and plotted in PREFIX_ecg.png (mV; docs/verification.md)"},
    {.path = "ecg.electrodes.[i].name", .type = HS_CFG_STRING, .flags = HS_CFG_POINT | HS_CFG_FILENAME,
     .def_doc = "e1, e2, ... (1-based position)", .unit = "-", AT_PT(name), .meaning = "the electrode's CSV column and its name in ecg.leads"},
    {.path = "ecg.electrodes.[i].at", .type = HS_CFG_VEC3, .flags = HS_CFG_POINT, .def_doc = "required", .unit = "mm",
     AT_PT(at), .meaning = "the electrode's position"},
    {.path = "ecg.leads", .type = HS_CFG_STRING, .def_str = "", .unit = "-", AT(ecg_leads),
     .meaning = "leads as differences of electrodes, comma-separated: \"LA-RA, LL-RA\" (a CSV column each, after the electrodes)"},
    {.path = "ecg.sigma_b", .type = HS_CFG_FLOAT, GT(0), .def_num = 0.7, .unit = "S/m", AT(ecg_sigma_b),
     .meaning = "conductivity of the unbounded bath (volume conductor) around the tissue; 0.7 S/m is Chaste's default bath (7 mS/cm), 0.2 S/m a torso average. The tissue's intracellular conductivity is sigma_i = chi C_m D (D = model.d_iso, d_ani, regions: the monodomain's D = sigma_i/(chi C_m)), so phi_e = chi C_m/(4 pi sigma_b) integral of (D grad V) . grad(1/r) (docs/verification.md)"},
    {.path = "ecg.chi", .type = HS_CFG_FLOAT, GT(0), .def_num = 1400.0, .unit = "1/cm", AT(ecg_chi),
     .meaning = "membrane surface-to-volume ratio chi assumed by the ECG's sigma_i = chi C_m D (1400/cm: Chaste's and openCARP's usual value)"},
    {.path = "ecg.c_m", .type = HS_CFG_FLOAT, GT(0), .def_num = 1.0, .unit = "uF/cm^2", AT(ecg_c_m),
     .meaning = "membrane capacitance C_m per area assumed by the ECG's sigma_i = chi C_m D (1 uF/cm^2: the usual value)"},
    {.path = "ecg.interval", .type = HS_CFG_FLOAT, GE(0), .def_num = 0.0, .unit = "ms", AT(ecg_interval),
     .meaning = "time between ECG samples; 0: output.interval"},

    /* ---- solver -------------------------------------------------------------------------- */
    {.path = "solver.backend", .type = HS_CFG_ENUM, .choices = "auto|cpu|cuda", .def_str = "auto",
     .unit = "-", AT(backend),
     .meaning = "\"auto\": cuda when built with CUDA and a device is present, else cpu"},
    {.path = "solver.spmv", .type = HS_CFG_STRING, .flags = HS_CFG_NONEMPTY,
     .def_str = "auto", .unit = "-", AT(spmv),
     .meaning = "SpMV kernel by registry name (`heartsim kernels`), or \"auto\": on cuda csr_scalar under the persistent CG, else the kernel with the least share of a Newton iteration (assembly stores + CG SpMVs) in a timed trial when the run is long enough to repay it, else cusparse_sell; csr_scalar on cpu"},
    {.path = "solver.cg_tol", .type = HS_CFG_FLOAT, OPEN(0, 1), .def_num = 1e-8, .unit = "1",
     AT(cg_tol), .meaning = "CG stops at ||r|| <= cg_tol ||b|| (1e-5 instead when not given and solver.scheme resolves to splitting: docs/verification.md)"},
    {.path = "solver.cg_max_iter", .type = HS_CFG_INT, GE(1), .def_num = 1000, .unit = "-",
     AT(cg_max_iter), .meaning = "CG iteration limit per Newton step (reaching it is an error)"},
    {.path = "solver.cg", .type = HS_CFG_ENUM, .choices = "chronopoulos|classic|sstep|pipelined",
     .def_str = "chronopoulos", .unit = "-", AT(cg_variant),
     .meaning = "CG variant: Chronopoulos-Gear single-reduction PCG (seed 004 ch. 4), the textbook one, or s-step (communication-avoiding) PCG: a matrix powers kernel in a Chebyshev basis and one block Gram reduction per solver.cg_s iterations (seed 004 ch. 6), or pipelined (Ghysels-Vanroose 2014) PCG: one reduction per iteration that can overlap the next SpMV (the CPU reference of a future device kernel: the cpu backend runs it, on one rank or several; the cuda backend refuses it for now)"},
    {.path = "solver.cg_s", .type = HS_CFG_INT, CLOSED(2, 8), .def_num = 4, .unit = "iterations",
     AT(cg_s),
     .meaning = "solver.cg = sstep: CG iterations per block (one matrix powers kernel of s levels and one Gram reduction each); larger s saves more reductions and grid barriers but the basis loses accuracy faster (a breakdown falls back to classic CG)"},
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
     .meaning = "initial Newton iterate: 0 previous step, 1 linear, 2 quadratic extrapolation of the last steps; solver.scheme = splitting: 1 or 2 start the diffusion's CG from u* plus the previous step's correction (scaled to dt), 0 from u*"},
    {.path = "solver.dt_retry", .type = HS_CFG_INT,
     .flags = HS_CFG_MIN_CLOSED | HS_CFG_MAX_CLOSED, .min = 0, .max = 10, .def_num = 0, .unit = "-",
     AT(dt_retry),
     .meaning = "a failed step is retried as 2, 4, ... 2^dt_retry substeps (logged) before the run stops; 0 = no retry; frames stay on the time.dt grid"},
    {.path = "solver.threads", .type = HS_CFG_INT, GE(0), .def_num = 0, .unit = "-",
     AT(threads), .meaning = "OpenMP threads of the cpu backend; 0 = all available"},
    {.path = "solver.graph", .type = HS_CFG_ENUM, .choices = "auto|on|off", .def_str = "auto",
     .unit = "-", AT(graph), .meaning = "CUDA backend: replay each Newton iteration as a CUDA graph (the CG loop a WHILE node stopped by the device's own convergence test); off: launch kernels one by one and read the CG status every 4 iterations"},
    {.path = "solver.assembly", .type = HS_CFG_ENUM, .choices = "split|full", .def_str = "split",
     .unit = "-", AT(assembly),
     .meaning = "split: K = K_D + sum_e km_e 11^T with the diffusion matrix K_D assembled once and two scalars per element per Newton iteration; full: every element matrix written and gathered (seed 002, the reference). Same answer within the Newton tolerance"},
    {.path = "solver.matrix_values", .type = HS_CFG_ENUM, .choices = "auto|float64|float32", .def_str = "auto",
     .unit = "-", AT(matrix_values),
     .meaning = "precision the CG's matrix values are stored in; float32 halves their bytes (kernels with a float32 variant: `heartsim kernels`), while vectors, the residual and the Newton test stay float64, so the answer moves only within the Newton tolerance; auto: float32 on cuda when the kernel has a float32 variant (measured faster: docs/benchmarks.md), float64 otherwise and on cpu"},
    {.path = "solver.persistent", .type = HS_CFG_ENUM, .choices = "auto|on|off", .def_str = "auto",
     .unit = "-", AT(persistent), .meaning = "CUDA backend, solver.cg = chronopoulos: run each CG solve as one persistent cooperative kernel (one grid barrier per iteration); auto: for systems up to 262,144 rows and at most one row a thread of its grid (135,168 rows on an H100 or H200: the run's log says), where launch latency bounds an iteration"},
    {.path = "solver.precond", .type = HS_CFG_STRING, .flags = HS_CFG_NONEMPTY, .def_str = "jacobi",
     .unit = "-", AT(precond),
     .meaning = "preconditioner by registry name (`heartsim kernels`): jacobi (diag(A)^-1), sai (sparse approximate inverse on the pattern of A^k, not symmetric: bicgstab only) or fsai (factorised G^T G, symmetric: cg or bicgstab); seed 004 ch. 5"},
    {.path = "solver.krylov", .type = HS_CFG_STRING, .flags = HS_CFG_NONEMPTY, .def_str = "cg",
     .unit = "-", AT(krylov),
     .meaning = "Krylov method: cg (variant solver.cg, SPD systems) or bicgstab (right-preconditioned, general systems; two SpMVs per iteration)"},
    {.path = "solver.sai_level", .type = HS_CFG_INT, CLOSED(1, 2), .def_num = 1, .unit = "-",
     AT(sai_level), .meaning = "solver.precond = sai or fsai: the pattern of the preconditioner is that of A^sai_level (1: A, 2: A^2, denser and stronger, much dearer to build)"},
    {.path = "solver.precond_reuse", .type = HS_CFG_INT, GE(1), .def_num = 1, .unit = "solves",
     AT(precond_reuse), .meaning = "solver.precond = sai or fsai: a computed preconditioner serves this many consecutive linear solves (Newton iterations, across time steps) before its values are recomputed from the current tangent; 1 = every solve"},
    {.path = "solver.scheme", .type = HS_CFG_ENUM, .choices = "auto|newton|splitting", .def_str = "auto",
     .unit = "-", AT(scheme),
     .meaning = "time scheme: newton: backward Euler on the whole reaction-diffusion system, a global Newton iteration, the model's variables at the integration points (seed 002); splitting: the model's ODEs at every node (Rush-Larsen gates, forward Euler otherwise), then one linear diffusion solve with a matrix assembled once (solver.splitting, solver.theta, solver.mass, solver.dt_ode); auto: newton for the models that have its kernels, splitting for the models with the nodal form only (docs/verification.md, \"Which scheme by default\", says why)"},
    {.path = "solver.splitting", .type = HS_CFG_ENUM, .choices = "godunov|strang", .def_str = "godunov",
     .unit = "-", AT(splitting),
     .meaning = "solver.scheme = splitting: godunov: reaction over dt, then diffusion over dt (first order); strang: reaction dt/2, diffusion dt, reaction dt/2 (second order with solver.theta = 0.5)"},
    {.path = "solver.theta", .type = HS_CFG_FLOAT, CLOSED(0.5, 1.0), .def_num = 1.0, .unit = "1", AT(theta),
     .meaning = "solver.scheme = splitting: the diffusion solve (M + theta dt K) u = (M - (1-theta) dt K) u*: 1 backward Euler (first order, damps every mode), 0.5 Crank-Nicolson (second order)"},
    {.path = "solver.mass", .type = HS_CFG_ENUM, .choices = "consistent|lumped", .def_str = "consistent",
     .unit = "-", AT(mass),
     .meaning = "solver.scheme = splitting: the diffusion's mass matrix: the consistent P1 matrix, or its row sums on the diagonal (lumped: a cheaper right-hand side, slightly faster conduction)"},
    {.path = "solver.dt_ode", .type = HS_CFG_FLOAT, GE(0), .def_num = 0.0, .unit = "ms", AT(dt_ode),
     .meaning = "solver.scheme = splitting: the longest substep of a reaction (each reaction spans time.dt, or time.dt/2 with strang, in equal substeps of at most dt_ode); 0 = one substep per reaction"},
    {.path = "solver.step", .type = HS_CFG_ENUM, .choices = "auto|kernels|graph|persistent", .def_str = "auto",
     .unit = "-", AT(step),
     .meaning = "CUDA backend: auto: persistent where its kernel runs the solver settings and the mesh has at most 262144 nodes and no more than its CG holds at one thread each (135,168 on an H100 or H200; the measured crossover), else graph with Jacobi-CG, else kernels (the run's log says which and why); kernels: the host runs the Newton loop of a step (one synchronisation per Newton iteration); graph: the first assembly and the whole Newton loop (solve, update, assembly, the Newton test) as one CUDA graph with a device-side WHILE node, one synchronisation per step; persistent: the steps up to the next frame, checkpoint or sample as ONE cooperative kernel (begin of step, element, assembly, Newton test, one-barrier persistent CG, update, read-outs; grid barriers instead of launches, no host round trip; split assembly and Jacobi-CG chronopoulos only; the fastest up to ~260K nodes, slower above: docs/benchmarks.md). Under solver.scheme = splitting: auto: persistent up to 262144 nodes where its kernel runs the settings (Jacobi-CG chronopoulos, a model of at most 3 variables, solver.graph on, solver.persistent not off), else graph with Jacobi-CG and solver.graph on, else kernels; graph: the steps up to the next frame, checkpoint or sample as ONE CUDA graph (reaction, diffusion solve, read-outs; no host synchronisation between steps; a failed step stops it and runs again alone); kernels: the host runs each step's reaction and diffusion; persistent: the same steps as ONE cooperative kernel (reaction, the diffusion's start, the one-barrier persistent CG, update, read-outs; grid barriers instead of the graph's kernel nodes; Jacobi-CG chronopoulos and a model of at most 3 variables: aliev_panfilov, mitchell_schaeffer, bueno_orovio; the same simulation as graph within the CG's tolerance). The cpu backend runs its host loop either way"},

    /* ---- parallel: a run under mpirun (docs/parallel.md) --------------------------------------- */
    {.path = "parallel.partition", .type = HS_CFG_ENUM, .choices = "auto|metis|rows|nonzeros|ptscotch|box", .def_str = "auto",
     .unit = "-", AT(partition),
     .meaning = "how a distributed run (mpirun -np N heartsim run) splits the nodes over the ranks: metis = METIS k-way on the node graph, weighted by row nonzeros (fewest cut edges; needs a build with METIS); rows = equal blocks of consecutive rows (seed 001's PCSR-I); nonzeros = consecutive rows with equal nonzeros (seed 001's PCSR-II); ptscotch = PT-Scotch k-way on the node graph, weighted by row nonzeros, computed in parallel by every rank on a block of the graph's rows that rank 0 sends it (needs a build with PT-Scotch: libptscotch-dev; deterministic for a fixed rank count); box = blocks of the structured mesh.source = \"box\" with the fewest cut faces, each rank generating its own block (no rank builds the whole mesh; the nodes keep the generator's numbering, as mesh.reorder = \"none\"; box or sphere stimuli, regions by attribute, box or sphere; probes, ECG and per-beat maps found and written on the blocks); auto = box where it takes the run and mesh.reorder = \"none\", else metis (rows in a build without METIS). Ignored by a serial run"},
    {.path = "parallel.read", .type = HS_CFG_ENUM, .choices = "auto|root|ranks", .def_str = "auto",
     .unit = "-", AT(read),
     .meaning = "who reads mesh.file in a distributed run: root = rank 0 reads and builds the whole mesh and sends each rank its part; ranks = every rank reads its own byte range of the file (openCARP .pts/.elem/.lon and TetGen .node/.ele, mesh.source = \"file\" or \"tetgen\"), the ranks partition the rows they read (parallel.partition = ptscotch, rows or nonzeros; auto: ptscotch, rows in a build without PT-Scotch) and send each other the parts, so no rank holds the whole mesh; the nodes keep the file's numbering (a serial run's with mesh.reorder = \"none\"; other mesh.reorder values order each rank's rows by RCM of its part); box or sphere stimuli, regions by attribute, box or sphere, fibres from the mesh or constant; auto = ranks where it takes the run, mesh.reorder = \"none\" and the partition is auto, ptscotch, rows or nonzeros, else root. Ignored by a serial run (docs/parallel.md)"},
    {.path = "parallel.transport", .type = HS_CFG_ENUM, .choices = "auto|nccl|ipc|mpi", .def_str = "auto",
     .unit = "-", AT(transport),
     .meaning = "how the ranks of a distributed cuda run exchange the halo and sum the CG's scalars (docs/parallel.md): nccl = NCCL send/recv and all-reduce on the streams; ipc = CUDA IPC peer memory (all ranks on one node: kernels store into the peers' buffers and signal device flags); mpi = MPI through pinned host buffers; auto = ipc when every rank is on one node with its own GPU and each rank maps its peers' memory, else nccl where it loads and every rank has its own GPU, else mpi (the log says which and why). Ignored by a serial run and by the cpu backend (MPI)"},

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
    {.path = "output.format", .type = HS_CFG_ENUM, .choices = NULL /* generated: output/hs_series_list.h */,
     .def_str = "vtk",
     .unit = "-", AT(out_format),
     .meaning = "vtk: legacy .vtk frames + .vtk.series (each frame standalone); xdmf: geometry written once, fields per frame as raw binary, indexed by an .xdmf file (cheap frames for large meshes); xdmf_h5: the same in one HDF5 file PREFIX.h5 + PREFIX.xdmf (needs a build with HDF5: libhdf5-dev). Every run also writes PREFIX_maps.vtk (activation map) at its end"},
    {.path = "output.dir", .type = HS_CFG_STRING, .flags = HS_CFG_NONEMPTY, .def_str = "output",
     .unit = "-", AT(out_dir),
     .meaning = "output directory, relative to the current working directory (not the config file); created if missing"},
    {.path = "output.prefix", .type = HS_CFG_STRING, .flags = HS_CFG_NONEMPTY | HS_CFG_FILENAME,
     .def_str = "heartsim", .unit = "-", AT(out_prefix),
     .meaning = "file name prefix: DIR/PREFIX_000000.vtk, DIR/PREFIX.vtk.series"},
    {.path = "output.interval", .type = HS_CFG_FLOAT, GT(0), .def_num = 1.0, .unit = "ms",
     AT(out_interval), .meaning = "time between frames (>= time.dt)"},
    {.path = "output.fields", .type = HS_CFG_STRLIST,
     .choices = NULL /* generated: the state fields of every model, V, fiber, region */,
     .def_str = NULL /* generated: the default model's hs_config_default_fields */,
     .unit = "-", AT(out_fields), .meaning = "arrays written to each frame"},
    {.path = "output.checkpoint_interval", .type = HS_CFG_FLOAT, GE(0), .def_num = 100.0,
     .unit = "ms", AT(checkpoint_interval),
     .meaning = "simulated time between checkpoints DIR/PREFIX_ckpt_STEP.hsck, and one at the end (restart: run --restart); only the newest output.checkpoint_keep stay, so the disk they take is bounded; 0 = none (a signal or a failed step still writes one)"},
    {.path = "output.checkpoint_keep", .type = HS_CFG_INT, GE(1), .def_num = 2, .unit = "-",
     AT(checkpoint_keep),
     .meaning = "checkpoints kept; an older one is deleted only after a newer one is complete"},
    {.path = "output.activation_threshold", .type = HS_CFG_FLOAT, OPEN(-80, 20),
     .def_num = -30.0, .unit = "mV", AT(activation_threshold),
     .meaning = "activation time = upward crossing of V through this value; after a repolarisation it starts a new beat (fields activation, beats)"},
    {.path = "output.repol_threshold", .type = HS_CFG_FLOAT, OPEN(-80, 20),
     .def_num = -70.0, .unit = "mV", AT(repol_threshold),
     .meaning = "repolarisation time = downward crossing of V through this value after an activation (-70 mV: 90% repolarisation of an action potential from -80 to +20 mV); apd = repolarisation - activation, per node, of the latest beat"},
};

enum { N_BASE = sizeof base_keys / sizeof base_keys[0] };

/* ---- the generated part ------------------------------------------------------------------------
 * After model.type: every model's parameters as model.<name> (kind, default, range, unit and meaning
 * from the model's table), stored in hs_config.model_prm[model][k]. The choices of model.type and
 * output.fields come from the model registry. Built once, on first use. */

/* Sized by the models of this build (hs_model_sizes.h: the sum of their parameters, of their
 * variables), not by HS_MODEL_MAX_PARAMS: a key per parameter, its path and its meaning. Names are
 * shorter than HS_MODEL_NAME_LEN (tests/fem/models/test_models.c). */
static hs_cfg_key keys[N_BASE + HS_MODELS_N_PARAMS];
static int n_keys;
static char model_choices[HS_MODEL_COUNT * HS_MODEL_NAME_LEN + 1], format_choices[256];
/* output.fields: each model's potential and variables, V, the four read-outs, fiber, region */
static char field_choices[(HS_MODEL_COUNT + HS_MODELS_N_VARS + 7) * HS_MODEL_NAME_LEN + 1];
static char field_default[(HS_MODEL_MAX_VARS + 4) * HS_MODEL_NAME_LEN + 1];
static char paths[HS_MODELS_N_PARAMS][64], meanings[HS_MODELS_N_PARAMS][320];

static void append_choice(char *buf, size_t n, const char *name)
{
    /* each name once, '|'-separated */
    size_t len = strlen(name), o = strlen(buf);
    for (const char *c = buf; *c;) {
        const char *e = strchr(c, '|');
        size_t l = e ? (size_t)(e - c) : strlen(c);
        if (l == len && !strncmp(c, name, len)) return;
        c += l + (e ? 1 : 0);
    }
    snprintf(buf + o, n - o, "%s%s", o ? "|" : "", name);
}

static hs_cfg_key param_key(const hs_model *m, int k, char *path, size_t n, char *meaning, size_t mn)
{
    const hs_model_param *q = &m->params[k];
    snprintf(path, n, "model.%s", q->name);
    /* whose parameter it is, said once: a model's own text may already start with "name: " */
    const size_t nl = strlen(m->name);
    if (!strncmp(q->meaning, m->name, nl) && q->meaning[nl] == ':')
        snprintf(meaning, mn, "%s", q->meaning);
    else
        snprintf(meaning, mn, "%s: %s", m->name, q->meaning);
    hs_cfg_key key = {.path = path, .unit = q->unit, .meaning = meaning, .def_num = q->def};
    key.type = q->kind == HS_PARAM_SWITCH ? HS_CFG_BOOL : HS_CFG_FLOAT;
    key.flags = HS_CFG_DOUBLE | (q->bounds & HS_PARAM_MIN_CLOSED ? HS_CFG_MIN_CLOSED : 0) |
                (q->bounds & HS_PARAM_MIN_OPEN ? HS_CFG_MIN_OPEN : 0) |
                (q->bounds & HS_PARAM_MAX_CLOSED ? HS_CFG_MAX_CLOSED : 0) |
                (q->bounds & HS_PARAM_MAX_OPEN ? HS_CFG_MAX_OPEN : 0);
    key.min = q->min;
    key.max = q->max;
    key.model = m->name;
    key.off = offsetof(hs_config, model_prm) + sizeof(double) * ((size_t)m->id * HS_MODEL_MAX_PARAMS + (size_t)k);
    key.size = sizeof(double);
    return key;
}

/* output.fields by default: the model's potential, V, activation, the model's variables, fiber. */
static void default_fields(const hs_model *m, char *buf, size_t n)
{
    size_t o = (size_t)snprintf(buf, n, "%s,V,activation", m->potential_name);
    for (int v = 0; v < m->n_vars && o < n; ++v) o += (size_t)snprintf(buf + o, n - o, ",%s", m->vars[v].name);
    if (o < n) snprintf(buf + o, n - o, ",fiber");
}

static void build(void)
{
    const hs_model *def_model = hs_models_at(0); /* model.type's default: the first of hs_model_list.h */
    int np = 0;
    for (int i = 0; i < hs_models_count(); ++i) {
        const hs_model *m = hs_models_at(i);
        append_choice(model_choices, sizeof model_choices, m->name);
    }
    /* output.fields: the potential(s), V, activation, the models' variables, fiber, region */
    for (int i = 0; i < hs_models_count(); ++i) append_choice(field_choices, sizeof field_choices, hs_models_at(i)->potential_name);
    append_choice(field_choices, sizeof field_choices, "V");
    append_choice(field_choices, sizeof field_choices, "activation");
    append_choice(field_choices, sizeof field_choices, "repolarisation");
    append_choice(field_choices, sizeof field_choices, "apd");
    append_choice(field_choices, sizeof field_choices, "beats");
    for (int i = 0; i < hs_models_count(); ++i)
        for (int v = 0; v < hs_models_at(i)->n_vars; ++v)
            append_choice(field_choices, sizeof field_choices, hs_models_at(i)->vars[v].name);
    append_choice(field_choices, sizeof field_choices, "fiber");
    append_choice(field_choices, sizeof field_choices, "region");
    const hs_registry *formats = hs_series_registry();
    for (size_t i = 0; i < formats->count; ++i)
        append_choice(format_choices, sizeof format_choices, hs_registry_name(formats, i));
    for (int b = 0; b < N_BASE; ++b) {
        keys[n_keys] = base_keys[b];
        if (!strcmp(keys[n_keys].path, "output.format")) keys[n_keys].choices = format_choices;
        if (!strcmp(keys[n_keys].path, "model.time_unit")) keys[n_keys].def_num = def_model->time_unit_default;
        if (!strcmp(keys[n_keys].path, "model.d_iso")) keys[n_keys].def_num = hs_model_d_default(def_model, 0);
        if (!strcmp(keys[n_keys].path, "model.d_ani")) keys[n_keys].def_num = hs_model_d_default(def_model, 1);
        if (!strcmp(keys[n_keys].path, "output.fields")) {
            default_fields(def_model, field_default, sizeof field_default);
            keys[n_keys].def_str = field_default;
        }
        if (!strcmp(keys[n_keys].path, "model.type")) {
            keys[n_keys].choices = model_choices;
            keys[n_keys].def_str = def_model->name;
        }
        if (!strcmp(keys[n_keys].path, "output.fields")) keys[n_keys].choices = field_choices;
        ++n_keys;
        if (strcmp(base_keys[b].path, "model.type") != 0) continue;
        for (int i = 0; i < hs_models_count(); ++i) {
            const hs_model *m = hs_models_at(i);
            for (int k = 0; k < m->n_params && np < HS_MODELS_N_PARAMS; ++k, ++np) /* n_params: test_models */
                keys[n_keys++] = param_key(m, k, paths[np], sizeof paths[np], meanings[np], sizeof meanings[np]);
        }
    }
}

hs_cfg_names hs_config_default_fields(const hs_model *m)
{
    hs_cfg_names l;
    memset(&l, 0, sizeof l);
    (void)hs_cfg_names_add(&l, m->potential_name);
    if (strcmp(m->potential_name, "V") != 0) (void)hs_cfg_names_add(&l, "V"); /* models in mV name it V */
    (void)hs_cfg_names_add(&l, "activation");
    for (int v = 0; v < m->n_vars; ++v) (void)hs_cfg_names_add(&l, m->vars[v].name);
    (void)hs_cfg_names_add(&l, "fiber");
    return l;
}

const hs_cfg_key *hs_cfg_keys(void)
{
    if (!n_keys) build();
    return keys;
}

int hs_cfg_nkeys(void)
{
    if (!n_keys) build();
    return n_keys;
}
