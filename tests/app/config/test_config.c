/* Configuration loader (app/config_*.c): a table of bad configs, each with the message it must
 * produce and the line it must name; good configs (defaults, a full file, overrides, mesh.file
 * resolution); and the print -> load round trip, compared key by key through the schema table.
 * Over 600 lines: one table-driven test per loader feature (errors with file:line, overrides,
 * defaults, printing round trips) sharing the helpers at the top.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, getcwd, open_memstream */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config_internal.h"
#include "config_schema.h"
#include "hs_config.h"
#include "hs_spmv.h"
#include "hs_models.h"
#include "hs_spec.h"
#include "hs_test.h"

/* The Aliev-Panfilov parameter @p name of a loaded config (model.<name>). */
static double ap(const hs_config *c, const char *name)
{
    const hs_model *m = hs_models_find("aliev_panfilov");
    return c->model_prm[m->id][hs_model_param_index(m, name)];
}

/* output.fields is the list of names given (NULL-terminated), in that order. */
static int fields_are(const hs_cfg_names *l, const char *first, ...);

static char g_dir[512]; /* scratch directory (absolute) */

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
        exit(1);
    }
    fputs(text, f);
    fclose(f);
}

/* ---------------------------------------------------------------------------------------------- */
/* Bad configs                                                                                    */
/* ---------------------------------------------------------------------------------------------- */

typedef struct bad_case {
    const char *what;
    const char *text;         /* the config file */
    const char *set[3];       /* overrides, NULL-terminated */
    int line;                 /* line the message must name (FILE:LINE:), 0: message starts with "--set " */
    const char *expect;       /* substring of the message */
} bad_case;

static const bad_case bad_cases[] = {
    {"typo key with suggestion", "model = {\n  c = 8.0;\n  alhpa = 0.1;\n};\n", {NULL}, 3,
     "unknown key \"model.alhpa\"; did you mean \"model.alpha\"?"},
    {"key without suggestion lists the section", "model = {\n  zzzzzz = 1.0;\n};\n", {NULL}, 2,
     "unknown key \"model.zzzzzz\"; model has: type, c, alpha"},
    {"key in the wrong section", "time = {\n  dt = 0.1;\n  alpha = 0.1;\n};\n", {NULL}, 3,
     "unknown key \"time.alpha\"; did you mean \"model.alpha\"?"},
    {"top-level key", "# comment\ndt = 0.1;\n", {NULL}, 2,
     "unknown key \"dt\"; did you mean \"time.dt\"?"},
    {"unknown ionic model", "model = { type = \"fitzhugh\"; };\n", {NULL}, 1,
     "model.type: unknown value \"fitzhugh\"; allowed: \"aliev_panfilov\""},
    {"unknown section", "\n\nmodle = { c = 8.0; };\n", {NULL}, 3,
     "unknown section \"modle\"; did you mean \"model\"?"},
    {"unknown section without suggestion", "xyzzy = { a = 1; };\n", {NULL}, 1,
     "unknown section \"xyzzy\"; sections are: mesh, fibers, model, tissue, time, stimulus, regions, probes, ecg, solver, parallel, spmv, output"},
    {"section given a value", "model = 3;\n", {NULL}, 1, "model: expected a group"},
    {"wrong type: string for number", "model = {\n  c = \"8\";\n};\n", {NULL}, 2,
     "model.c: expected a number, got a string"},
    {"wrong type: float for int", "solver = {\n\n  cg_max_iter = 10.5;\n};\n", {NULL}, 3,
     "solver.cg_max_iter: expected an integer, got a float (10.5)"},
    {"wrong type: int for bool", "model = { recovery = 1; };\n", {NULL}, 1,
     "model.recovery: expected true or false, got an integer (1)"},
    {"wrong type: number for string", "output = { dir = 5; };\n", {NULL}, 1,
     "output.dir: expected a string, got an integer (5)"},
    {"enum value", "mesh = {\n  source = \"boxx\";\n};\n", {NULL}, 2,
     "mesh.source: unknown value \"boxx\"; allowed: \"box\", \"tetgen\""},
    {"vector length", "fibers = { direction = [1.0, 0.0]; };\n", {NULL}, 1,
     "fibers.direction: expected 3 numbers [x, y, z], got 2"},
    {"vector of strings", "fibers = { direction = (\"x\", 0, 0); };\n", {NULL}, 1,
     "fibers.direction: element 0: expected a number, got a string"},
    {"zero fibre", "fibers = {\n  direction = [0.0, 0.0, 0.0];\n};\n", {NULL}, 2,
     "fibers.direction = [0, 0, 0]: must not be the zero vector"},
    {"out of range", "time = {\n  dt = -0.1;\n};\n", {NULL}, 2,
     "time.dt = -0.1 ms is out of range: must be > 0"},
    {"out of open interval", "model = { alpha = 1.5; };\n", {NULL}, 1,
     "model.alpha = 1.5 is out of range: must be in (0, 1)"},
    {"out of range int", "solver = { threads = -2; };\n", {NULL}, 1,
     "solver.threads = -2 is out of range: must be >= 0"},
    {"activation threshold", "output = { activation_threshold = 30.0; };\n", {NULL}, 1,
     "output.activation_threshold = 30 mV is out of range: must be in (-80, 20)"},
    {"dt too large for the tangent", "time = {\n  dt = 6.0;\n  t_end = 40.0;\n};\noutput = { interval = 6.0; };\n",
     {NULL}, 2,
     "time.dt = 6 ms makes the Newton tangent indefinite (1/dt - max df_phi/dphi <= 0): must be < 4.88 ms for these model parameters"},
    {"t_end below dt", "time = {\n  dt = 0.1;\n  t_end = 0.05;\n};\n", {NULL}, 3,
     "time.t_end = 0.05 ms is smaller than time.dt = 0.1 ms: must be >= time.dt"},
    {"output interval below dt", "time = { dt = 0.1; };\noutput = {\n  interval = 0.05;\n};\n", {NULL}, 3,
     "output.interval = 0.05 ms is smaller than time.dt = 0.1 ms: must be >= time.dt"},
    {"output prefix characters", "output = { prefix = \"a/b\"; };\n", {NULL}, 1,
     "output.prefix = \"a/b\": only letters, digits"},
    {"output field", "output = {\n  fields = [\"phi\", \"Vm\"];\n};\n", {NULL}, 2,
     "output.fields: unknown value \"Vm\"; allowed: \"phi\", \"u\", \"V\""},
    {"output field twice", "output = { fields = [\"phi\", \"phi\"]; };\n", {NULL}, 1,
     "output.fields: \"phi\" is listed twice"},
    {"unknown kernel lists the names", "solver = {\n  spmv = \"ellwarp\";\n};\n", {NULL}, 2,
     "solver.spmv: unknown kernel \"ellwarp\"; available: "},
    {"float32 values with a float64-only kernel", "solver = {\n  spmv = \"pcsr_hegao\";\n  matrix_values = \"float32\";\n};\n",
     {NULL}, 3,
     "solver.matrix_values = \"float32\": the pcsr_hegao kernel stores float64 values only; float32 is served by: csr_scalar"},
    {"tetgen without mesh.file", "mesh = {\n  source = \"tetgen\";\n};\n", {NULL}, 2,
     "mesh.source = \"tetgen\" needs mesh.file"},
    {"missing mesh file", "mesh = {\n  source = \"tetgen\";\n  file = \"nowhere/heart\";\n};\n", {NULL},
     3, "/nowhere/heart.node\": No such file or directory"},
    {"syntax error", "model = {\n  c = 8.0;\n  alpha = ;\n};\n", {NULL}, 3, "syntax error"},
    {"mixed array", "\nfibers = { direction = [1, 0.0, 0]; };\n", {NULL}, 2,
     "syntax error: mismatched element type in array"},
    {"stimulus key typo",
     "stimulus = (\n  { min = [0.0, 0.0, 0.0]; max = [1.0, 1.0, 1.0]; },\n"
     "  { shape = \"sphere\"; center = [1.0, 1.0, 1.0]; radius = 1.0;\n    strenght = 2.0; }\n);\n",
     {NULL}, 4, "unknown key \"stimulus.[1].strenght\"; did you mean \"stimulus.[1].strength\"?"},
    {"stimulus missing key", "stimulus = (\n  { shape = \"sphere\"; center = [1.0, 1.0, 1.0]; }\n);\n",
     {NULL}, 2, "stimulus.[0]: missing key \"radius\" (required for shape = \"sphere\")"},
    {"stimulus key of the other shape",
     "stimulus = ( { min = [0.0, 0.0, 0.0]; max = [1.0, 1.0, 1.0];\n  radius = 1.0; } );\n", {NULL}, 2,
     "stimulus.[0].radius is only used by shape = \"sphere\""},
    {"stimulus empty box", "stimulus = (\n  { min = [0.0, 0.0, 0.0]; max = [1.0, 0.0, 1.0]; }\n);\n",
     {NULL}, 2, "stimulus.[0]: box min must be < max on every axis; on y"},
    {"stimulus duration", "stimulus = ( {\n  min = [0.0, 0.0, 0.0]; max = [1.0, 1.0, 1.0];\n  duration = -1.0; } );\n",
     {NULL}, 3, "stimulus.[0].duration = -1 ms is out of range: must be > 0"},
    {"stimulus negative strength", "stimulus = ( { min = [0.0, 0.0, 0.0]; max = [1.0, 1.0, 1.0]; strength = -1.0; } );\n",
     {NULL}, 1, "stimulus.[0].strength = -1 1/ms is out of range: must be >= 0"},
    {"stimulus period shorter than the pulse",
     "stimulus = ( { min = [0.0, 0.0, 0.0]; max = [1.0, 1.0, 1.0];\n  duration = 2.0; count = 3;\n  period = 1.5; } );\n",
     {NULL}, 3, "stimulus.[0].period = 1.5 ms must be longer than stimulus.[0].duration = 2 ms (count = 3 pulses"},
    {"stimulus count without period",
     "stimulus = ( { min = [0.0, 0.0, 0.0]; max = [1.0, 1.0, 1.0];\n  count = 2; } );\n",
     {NULL}, 2, "stimulus.[0].count = 2 needs stimulus.[0].period"},
    {"stimulus count zero", "stimulus = ( { min = [0.0, 0.0, 0.0]; max = [1.0, 1.0, 1.0]; count = 0; } );\n",
     {NULL}, 1, "stimulus.[0].count = 0 pulses is out of range: must be >= 1"},
    {"unknown preset lists the sets", "model = {\n  type = \"bueno_orovio\";\n  preset = \"epicardium\";\n};\n", {NULL}, 3,
     "model.preset: unknown parameter set \"epicardium\" of model bueno_orovio; available: \"epi\", \"endo\", \"mid\", "
     "\"pb\", \"tnnp\""},
    {"preset of a model without sets", "model = {\n  preset = \"epi\";\n};\n", {NULL}, 2,
     "model.preset = \"epi\": model aliev_panfilov has no published parameter sets"},
    {"rush_larsen without gates", "model = {\n  gates = \"rush_larsen\";\n};\n", {NULL}, 2,
     "model.gates = \"rush_larsen\": model aliev_panfilov has no gating variable"},
    {"gate scheme name", "model = { gates = \"exponential\"; };\n", {NULL}, 1,
     "model.gates: unknown value \"exponential\"; allowed: \"newton\", \"rush_larsen\""},
    {"parameter of another model", "model = {\n  type = \"bueno_orovio\";\n  tau_in = 0.3;\n};\n", {NULL}, 3,
     "model.tau_in is a parameter of model mitchell_schaeffer, and model.type is \"bueno_orovio\""},
    {"stimulus shape", "stimulus = ( { shape = \"cube\"; } );\n", {NULL}, 1,
     "stimulus.[0].shape: unknown value \"cube\"; allowed: \"box\", \"sphere\""},
    {"stimulus not a list", "stimulus = { shape = \"box\"; };\n", {NULL}, 1,
     "stimulus: expected a list of groups"},
    {"stimulus entry not a group", "stimulus = ( 1.0 );\n", {NULL}, 1,
     "stimulus.[0]: expected a group"},
    /* issue 5: geometry, fibres, stimuli by label and node list */
    {"mesh source choices", "mesh = {\n  source = \"stl\";\n};\n", {NULL}, 2,
     "mesh.source: unknown value \"stl\"; allowed: \"box\", \"tetgen\", \"file\", \"surface\", \"ellipsoid_lv\""},
    {"mesh reorder choices", "mesh = { reorder = \"metis\"; };\n", {NULL}, 1,
     "mesh.reorder: unknown value \"metis\"; allowed: \"rcm\", \"sfc\", \"none\""},
    {"mesh quadratic choices", "\nmesh = { quadratic = \"keep\"; };\n", {NULL}, 2,
     "mesh.quadratic: unknown value \"keep\"; allowed: \"refuse\", \"linearize\""},
    {"mesh scale zero", "mesh = {\n  source = \"file\";\n  scale = 0;\n};\n", {NULL}, 3,
     "mesh.scale = 0 is out of range: must be > 0"},
    {"mesh scale on the box", "mesh = {\n  scale = 10.0;\n};\n", {NULL}, 2,
     "mesh.scale = 10 applies to meshes read from files"},
    {"mesh scale on the LV", "mesh = {\n  source = \"ellipsoid_lv\";\n  scale = 0.1;\n};\n", {NULL}, 3,
     "the ellipsoid_lv mesh is built in mm"},
    {"file source without mesh.file", "mesh = {\n  source = \"file\";\n};\n", {NULL}, 2,
     "mesh.source = \"file\" needs mesh.file (a volume mesh: .vtk, .vtu, .msh"},
    {"surface source without mesh.file", "mesh = {\n\n  source = \"surface\";\n};\n", {NULL}, 3,
     "mesh.source = \"surface\" needs mesh.file (a closed surface: .stl"},
    {"missing surface file", "mesh = {\n  source = \"surface\";\n  file = \"nowhere/heart.stl\";\n};\n", {NULL},
     3, "/nowhere/heart.stl\": No such file or directory"},
    {"missing volume mesh", "mesh = { source = \"file\";\n  file = \"nowhere/heart\"; };\n", {NULL},
     2, "mesh.file: cannot read \""},
    {"min dihedral range", "mesh = { min_dihedral = 40.0; };\n", {NULL}, 1,
     "mesh.min_dihedral = 40 deg is out of range: must be in [0, 30]"},
    {"weld tolerance", "mesh = { weld_tolerance = -1.0; };\n", {NULL}, 1,
     "mesh.weld_tolerance = -1 mm is out of range: must be >= 0"},
    {"LV without wall", "mesh = { source = \"ellipsoid_lv\";\n  lv_epi_short = 7.0; };\n", {NULL}, 2,
     "mesh.lv_epi_short = 7 mm must be larger than mesh.lv_endo_short = 7 mm"},
    {"LV long radii", "mesh = { source = \"ellipsoid_lv\";\n  lv_endo_long = 25.0; };\n", {NULL}, 2,
     "mesh.lv_epi_long = 20 mm must be larger than mesh.lv_endo_long = 25 mm"},
    {"LV base above the cavity", "mesh = { source = \"ellipsoid_lv\";\n\n  lv_base_z = 17.0; };\n", {NULL}, 3,
     "mesh.lv_base_z = 17 mm must lie strictly between -mesh.lv_endo_long and mesh.lv_endo_long"},
    {"fibre type choices", "fibers = {\n  type = \"helical\";\n};\n", {NULL}, 2,
     "fibers.type: unknown value \"helical\"; allowed: \"auto\", \"constant\", \"ellipsoid\", \"file\", \"mesh\""},
    {"ellipsoid fibres on the box", "fibers = {\n  type = \"ellipsoid\";\n};\n", {NULL}, 2,
     "fibers.type = \"ellipsoid\" is the rule of the built-in ventricle and needs mesh.source = \"ellipsoid_lv\""},
    {"mesh fibres on the box", "\nfibers = { type = \"mesh\"; };\n", {NULL}, 2,
     "fibers.type = \"mesh\" keeps the fibres stored in mesh.file and needs mesh.source = \"file\""},
    {"fibre file missing", "fibers = {\n  type = \"file\";\n};\n", {NULL}, 2,
     "fibers.type = \"file\" needs fibers.file"},
    {"fibre file unreadable", "fibers = { type = \"file\";\n  file = \"nowhere/f.lon\"; };\n", {NULL}, 2,
     "fibers.file: cannot read \""},
    {"fibre file unused", "fibers = {\n  file = \"f.lon\";\n};\n", {NULL}, 2,
     "fibers.file is only read with fibers.type = \"file\" (this one is \"auto\")"},
    {"fibre location choices", "fibers = { location = \"cell\"; };\n", {NULL}, 1,
     "fibers.location: unknown value \"cell\"; allowed: \"auto\", \"element\", \"node\""},
    {"helix angle range", "fibers = {\n  helix_endo = 100.0;\n};\n", {NULL}, 2,
     "fibers.helix_endo = 100 deg is out of range: must be in [-90, 90]"},
    {"stimulus shape choices", "stimulus = ( { shape = \"cube\"; } );\n", {NULL}, 1,
     "allowed: \"box\", \"sphere\", \"surface\", \"nodes\""},
    {"surface stimulus without label", "stimulus = (\n  { shape = \"surface\"; }\n);\n", {NULL}, 2,
     "stimulus.[0]: missing key \"label\" (required for shape = \"surface\")"},
    {"surface stimulus empty label", "stimulus = (\n  { shape = \"surface\";\n    label = \"\"; }\n);\n", {NULL}, 3,
     "stimulus.[0].label: must not be empty"},
    {"surface stimulus centre without radius",
     "stimulus = ( { shape = \"surface\"; label = \"endo\";\n  center = [0.0, 0.0, -17.0]; } );\n", {NULL}, 2,
     "stimulus.[0]: center without radius; a surface site is restricted to a sphere by both center and radius"},
    {"surface stimulus radius range",
     "stimulus = ( { shape = \"surface\"; label = \"endo\"; center = [0.0, 0.0, 0.0];\n  radius = -2.0; } );\n",
     {NULL}, 2, "stimulus.[0].radius = -2 mm is out of range: must be > 0"},
    {"label on a box stimulus",
     "stimulus = ( { min = [0.0, 0.0, 0.0]; max = [1.0, 1.0, 1.0];\n  label = \"endo\"; } );\n", {NULL}, 2,
     "stimulus.[0].label is only used by shape = \"surface\"; this one is \"box\""},
    {"radius on a box stimulus names both shapes",
     "stimulus = ( { min = [0.0, 0.0, 0.0]; max = [1.0, 1.0, 1.0];\n  radius = 1.0; } );\n", {NULL}, 2,
     "stimulus.[0].radius is only used by shape = \"sphere\" or \"surface\"; this one is \"box\""},
    {"nodes stimulus without file", "stimulus = (\n  { shape = \"nodes\"; start = 1.0; }\n);\n", {NULL}, 2,
     "stimulus.[0]: missing key \"file\" (required for shape = \"nodes\")"},
    {"nodes stimulus file missing", "stimulus = ( { shape = \"nodes\";\n\n  file = \"nowhere/apex.vtx\"; } );\n",
     {NULL}, 3, "stimulus.[0].file: cannot read \""},
    {"--set nodes file missing", "", {"stimulus.[0].shape=nodes", "stimulus.[0].file=nowhere.vtx", NULL}, 0,
     "--set stimulus.[0].file=nowhere.vtx: stimulus.[0].file: cannot read"},
    /* issue 6 keys (schema only here) */
    {"cg variant", "solver = {\n  cg = \"gmres\";\n};\n", {NULL}, 2,
     "solver.cg: unknown value \"gmres\"; allowed: \"chronopoulos\", \"classic\", \"sstep\", \"pipelined\""},
    {"pipelined cg with fsai", "solver = {\n  cg = \"pipelined\";\n  precond = \"fsai\";\n};\n", {NULL}, 2,
     "solver.cg = \"pipelined\" is Jacobi-preconditioned CG: solver.precond = \"fsai\" with solver.krylov = \"cg\" is "
     "not available with it"},
    {"cg forcing", "solver = { cg_forcing = 1.0; };\n", {NULL}, 1,
     "solver.cg_forcing = 1 is out of range: must be in [0, 1)"},
    {"extrapolate", "solver = {\n  extrapolate = 3;\n};\n", {NULL}, 2,
     "solver.extrapolate = 3 is out of range: must be in [0, 2]"},
    {"graph", "solver = { graph = true; };\n", {NULL}, 1, "solver.graph: expected a string, got a boolean"},
    {"graph choices", "solver = { graph = \"yes\"; };\n", {NULL}, 1,
     "solver.graph: unknown value \"yes\"; allowed: \"auto\", \"on\", \"off\""},
    {"output format", "output = {\n  format = \"vtu\";\n};\n", {NULL}, 2,
     "output.format: unknown value \"vtu\"; allowed: \"vtk\", \"xdmf\""},
    {"--set unknown key", "", {"model.alhpa=0.1", NULL}, 0,
     "--set model.alhpa=0.1: unknown key \"model.alhpa\"; did you mean \"model.alpha\"?"},
    {"--set wrong type", "time = { dt = 0.1; };\n", {"time.dt=abc", NULL}, 0,
     "--set time.dt=abc: time.dt: expected a number, got a string (\"abc\")"},
    {"--set out of range", "", {"time.dt=-1", NULL}, 0,
     "--set time.dt=-1: time.dt = -1 ms is out of range: must be > 0"},
    {"--set without =", "", {"model.c", NULL}, 0, "--set model.c: expected key=value"},
    {"--set bad name", "", {"mo del.c=1", NULL}, 0, "--set mo del.c=1: \"mo del\" is not a valid key name"},
    {"--set unparsable", "", {"fibers.direction=[1.0, 0.0", NULL}, 0,
     "--set fibers.direction=[1.0, 0.0: cannot parse value"},
    {"--set unknown kernel", "", {"solver.spmv=ellwarp", NULL}, 0,
     "--set solver.spmv=ellwarp: solver.spmv: unknown kernel \"ellwarp\"; available: "},
    {"--set stimulus index", "stimulus = ( { min = [0.0, 0.0, 0.0]; max = [1.0, 1.0, 1.0]; } );\n",
     {"stimulus.[3].start=5", NULL}, 0,
     "--set stimulus.[3].start=5: stimulus has 1 entry; [3] does not exist"},
    {"--set through a value", "", {"time.dt.x=1", NULL}, 0, "--set time.dt.x=1: time.dt: expected a number"},
    {"--set new stimulus incomplete", "", {"stimulus.[0].start=5", NULL}, 0,
     "--set stimulus.[0].start=5: stimulus.[0]: missing key \"min\""},
    {"region: a parameter of another model",
     "regions = (\n  { select = \"sphere\"; center = [1.0, 1.0, 1.0]; radius = 1.0;\n    model = { tau_in = 0.3; }; } );\n",
     {NULL}, 3,
     "regions.[0].model.tau_in: model aliev_panfilov has no parameter \"tau_in\"; its parameters are: c, alpha, "},
    {"region: parameter out of range",
     "regions = ( { select = \"attribute\"; attribute = 2;\n model = { alpha = 1.5; }; } );\n", {NULL}, 2,
     "regions.[0].model.alpha = 1.5 is out of range: must be in (0, 1)"},
    {"region: missing selector key", "regions = ( { select = \"surface\"; label = \"endo\"; d_iso = 0.1; } );\n",
     {NULL}, 1, "regions.[0]: missing key \"distance\" (required for select = \"surface\")"},
    {"region: key of another selector", "regions = ( { select = \"box\";\n min = [0.0, 0.0, 0.0]; max = [1.0, 1.0, 1.0];\n radius = 2.0; d_iso = 0.1; } );\n",
     {NULL}, 3, "regions.[0].radius is only used by select = \"sphere\"; this one is \"box\""},
    {"region: typo", "regions = ( { select = \"attribute\"; attribute = 1; d_isso = 0.1; } );\n", {NULL}, 1,
     "unknown key \"regions.[0].d_isso\"; did you mean \"regions.[0].d_iso\"?"},
    {"region: sets nothing", "regions = ( { select = \"attribute\"; attribute = 1; } );\n", {NULL}, 1,
     "regions.[0]: sets nothing; give d_iso, d_ani or model"},
    {"region: negative conductivity", "regions = ( { select = \"attribute\"; attribute = 1; d_ani = -0.1; } );\n",
     {NULL}, 1, "regions.[0].d_ani = -0.1 mm^2/ms is out of range: must be >= 0"},
    {"probe without a point", "probes = { points = ( { name = \"a\"; } ); };\n", {NULL}, 1,
     "probes.points.[0]: missing key \"at\""},
    {"probe: unknown key", "probes = { points = ( { name = \"a\"; at = [0.0, 0.0, 0.0]; pos = 1; } ); };\n", {NULL}, 1,
     "unknown key \"probes.points.[0].pos\"; an entry has: name, at"},
    {"electrode names twice",
     "ecg = { electrodes = ( { name = \"A\"; at = [9.0, 0.0, 0.0]; },\n { name = \"A\"; at = [-9.0, 0.0, 0.0]; } ); };\n",
     {NULL}, 2, "ecg.electrodes.[1]: name \"A\" is taken by entry [0]"},
    {"region: unknown preset",
     "model = { type = \"bueno_orovio\"; };\nregions = ( { select = \"attribute\"; attribute = 1;\n"
     "  model = { preset = \"epicardium\"; }; } );\n",
     {NULL}, 3,
     "regions.[0].model.preset: unknown parameter set \"epicardium\" of model bueno_orovio; available: \"epi\", \"endo\", \"mid\""},
    {"region: preset of a model without sets",
     "regions = ( { select = \"attribute\"; attribute = 1; model = { preset = \"epi\"; }; } );\n", {NULL}, 1,
     "regions.[0].model.preset = \"epi\": model aliev_panfilov has no published parameter sets"},
    {"region: preset not a string",
     "regions = ( { select = \"attribute\"; attribute = 1; model = { preset = 2; }; } );\n", {NULL}, 1,
     "regions.[0].model.preset: expected the name of a parameter set (a string), got"},
    {"ecg.chi not positive", "ecg = { chi = 0.0; };\n", {NULL}, 1, "ecg.chi = 0 1/cm is out of range: must be > 0"},
    {"region: unknown selector", "regions = ( { select = \"cube\"; d_iso = 0.1; } );\n", {NULL}, 1,
     "regions.[0].select: unknown value \"cube\"; allowed: \"attribute\", \"box\""},
};

static void run_bad_cases(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s/bad.cfg", g_dir);
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; ++i) {
        const bad_case *c = &bad_cases[i];
        int n_set = 0;
        while (n_set < 3 && c->set[n_set]) ++n_set;
        write_file(path, c->text);
        hs_config cfg;
        hs_error_clear();
        hs_status st = hs_config_load(path, c->set, n_set, &cfg);
        const char *msg = hs_error_message();
        HS_TEST_CHECK(st == HS_ERR_CONFIG, "%s: status %d, message \"%s\"", c->what, (int)st, msg);
        HS_TEST_CHECK(strstr(msg, c->expect) != NULL, "%s: message\n  %s\nlacks\n  %s", c->what, msg,
                      c->expect);
        char head[700];
        if (c->line > 0)
            snprintf(head, sizeof head, "%s:%d: ", path, c->line);
        else
            snprintf(head, sizeof head, "--set ");
        HS_TEST_CHECK(strncmp(msg, head, strlen(head)) == 0, "%s: message\n  %s\ndoes not start with\n  %s",
                      c->what, msg, head);
        if (strstr(c->expect, "unknown kernel"))
            HS_TEST_CHECK(strstr(msg, hs_spmv_names()) != NULL, "%s: names \"%s\" not listed in \"%s\"",
                          c->what, hs_spmv_names(), msg);
    }
    unlink(path);
    hs_error_clear();

    /* A missing config file names the path and the system's reason. */
    snprintf(path, sizeof path, "%s/no_such.cfg", g_dir);
    hs_config cfg;
    hs_status st = hs_config_load(path, NULL, 0, &cfg);
    HS_TEST_CHECK(st == HS_ERR_CONFIG, "missing file: status %d", (int)st);
    HS_TEST_CHECK(strstr(hs_error_message(), path) && strstr(hs_error_message(), strerror(ENOENT)),
                  "missing file: \"%s\"", hs_error_message());
    hs_error_clear();

    /* Several problems are all reported, in file order. */
    snprintf(path, sizeof path, "%s/multi.cfg", g_dir);
    write_file(path, "model = {\n  alhpa = 0.1;\n  c = \"x\";\n};\n");
    st = hs_config_load(path, NULL, 0, &cfg);
    const char *m = hs_error_message();
    const char *a = strstr(m, "multi.cfg:2: unknown key"), *b = strstr(m, "multi.cfg:3: model.c:");
    HS_TEST_CHECK(st == HS_ERR_CONFIG && a && b && a < b, "multiple errors: \"%s\"", m);
    unlink(path);
    hs_error_clear();

    /* hs_config_validate on a filled struct (no file lines). */
    hs_config_defaults(&cfg);
    cfg.dt = -1.0;
    st = hs_config_validate(&cfg);
    HS_TEST_CHECK(st == HS_ERR_CONFIG && strstr(hs_error_message(), "time.dt = -1 ms is out of range"),
                  "validate: %d \"%s\"", (int)st, hs_error_message());
    hs_error_clear();
    hs_config_defaults(&cfg);
    snprintf(cfg.mesh_source, sizeof cfg.mesh_source, "cube");
    st = hs_config_validate(&cfg);
    HS_TEST_CHECK(st == HS_ERR_CONFIG && strstr(hs_error_message(), "mesh.source: unknown value \"cube\""),
                  "validate enum: %d \"%s\"", (int)st, hs_error_message());
    hs_error_clear();
}

/* ---------------------------------------------------------------------------------------------- */
/* Good configs                                                                                   */
/* ---------------------------------------------------------------------------------------------- */

/* Compare every key of two configs through the schema table; 0 when equal. */
static int compare_configs(const hs_config *a, const hs_config *b, const char *what)
{
    int diff = 0;
    for (int i = 0; i < hs_cfg_nkeys(); ++i) {
        const hs_cfg_key *k = &hs_cfg_keys()[i];
        int stim = (k->flags & HS_CFG_STIMULUS) != 0, reg = (k->flags & HS_CFG_REGION) != 0;
        if (k->flags & HS_CFG_POINT) { /* probes.points.[i].x, ecg.electrodes.[i].x: the whole lists */
            int same = a->probes.n == b->probes.n && a->electrodes.n == b->electrodes.n;
            for (int j = 0; same && j < a->probes.n; ++j)
                same = !strcmp(a->probes.p[j].name, b->probes.p[j].name) && !memcmp(a->probes.p[j].at, b->probes.p[j].at, sizeof a->probes.p[j].at);
            for (int j = 0; same && j < a->electrodes.n; ++j)
                same = !strcmp(a->electrodes.p[j].name, b->electrodes.p[j].name) &&
                       !memcmp(a->electrodes.p[j].at, b->electrodes.p[j].at, sizeof a->electrodes.p[j].at);
            if (!same) ++diff;
            HS_TEST_CHECK(same, "%s: %s differs", what, k->path);
            continue;
        }
        int n = stim ? a->n_stimuli : reg ? a->n_regions : 1;
        for (int j = 0; j < n; ++j) {
            const char *pa = stim ? (const char *)&a->stimuli[j] : reg ? (const char *)&a->regions[j] : (const char *)a;
            const char *pb = stim ? (const char *)&b->stimuli[j] : reg ? (const char *)&b->regions[j] : (const char *)b;
            pa += k->off;
            pb += k->off;
            int same = 1;
            switch (k->type) {
            case HS_CFG_FLOAT: same = *(const double *)pa == *(const double *)pb; break;
            case HS_CFG_VEC3: same = memcmp(pa, pb, 3 * sizeof(double)) == 0; break;
            case HS_CFG_STRING: same = strcmp(pa, pb) == 0; break;
            case HS_CFG_ENUM: same = k->size ? strcmp(pa, pb) == 0 : *(const int *)pa == *(const int *)pb; break;
            case HS_CFG_INT:
            case HS_CFG_BOOL: same = *(const int *)pa == *(const int *)pb; break;
            case HS_CFG_STRLIST: {
                const hs_cfg_names *la = (const hs_cfg_names *)pa, *lb = (const hs_cfg_names *)pb;
                same = la->n == lb->n;
                for (int q = 0; same && q < la->n; ++q) same = !strcmp(la->name[q], lb->name[q]);
                break;
            }
            case HS_CFG_GROUPLIST: same = a->n_stimuli == b->n_stimuli && a->n_regions == b->n_regions; break;
            case HS_CFG_GROUP: { /* regions.[j].model */
                const hs_region_cfg *ra = &a->regions[j], *rb = &b->regions[j];
                same = ra->n_params == rb->n_params &&
                       !memcmp(ra->param_index, rb->param_index, sizeof(int) * (size_t)ra->n_params) &&
                       !memcmp(ra->param_value, rb->param_value, sizeof(double) * (size_t)ra->n_params);
                break;
            }
            }
            if (!same) {
                ++diff;
                HS_TEST_CHECK(same, "%s: %s (entry %d) differs", what, k->path, j);
            }
        }
    }
    return diff;
}

static const char *full_cfg =
    "# every section, two stimuli\n"
    "mesh = {\n"
    "  source = \"box\";\n"
    "  lx = 10;\n"                       /* int where a float is expected */
    "  ly = 4.5;\n"
    "  lz = 2.0;\n"
    "  h = 0.25;\n"
    "  generator = \"tetgen\";\n"
    "  quality = 1.2;\n"
    "  reorder = \"none\";\n"
    "};\n"
    "fibers = { type = \"constant\"; direction = (1, 1, 0); };\n" /* a list may mix ints and floats */
    "regions = (\n" /* before model: its parameters are resolved against model.type after the walk */
    "  { name = \"scar\"; select = \"box\"; min = [1.0, 0.0, 0.0]; max = [2.0, 1.0, 1.0]; d_iso = 0; d_ani = 0.0; },\n"
    "  { select = \"attribute\"; attribute = 3; model = { alpha = 0.05; recovery = false; c = 9; }; },\n"
    "  { select = \"surface\"; label = \"endo\"; distance = 1.5; d_ani = 0.4; }\n"
    ");\n"
    "model = { c = 8.5; alpha = 0.02; gamma = 0.003; b = 0.1; mu1 = 0.25; mu2 = 0.35;\n"
    "          d_iso = 0.2; d_ani = 1.0; time_unit = 10.0; recovery = false; };\n"
    "time = { dt = 0.05; t_end = 12.5; };\n"
    "stimulus = (\n"
    "  { shape = \"box\"; min = [-1.0, -1.0, -1.0]; max = [0.5, 1e30, 1e30]; duration = 1.5; },\n"
    "  { shape = \"sphere\"; center = [5.0, 2.0, 1.0]; radius = 0.75; start = 100.0; strength = 0.3; }\n"
    ");\n"
    "probes = { interval = 0.5; points = ( { name = \"apex\"; at = [1.0, 2.0, 0.5]; }, { at = [0, 0, 0]; } ); };\n"
    "ecg = { electrodes = ( { name = \"LA\"; at = [20.0, 0.0, 0.0]; }, { name = \"RA\"; at = [-10.0, 0.0, 0.0]; } );\n"
    "        leads = \"LA-RA\"; sigma_b = 2.5; };\n"
    "solver = { backend = \"cpu\"; spmv = \"csr_scalar\"; cg_tol = 1e-10; cg_max_iter = 500;\n"
    "           newton_tol_residual = 1e-9; newton_tol_update = 2e-9; newton_max_iter = 7; threads = 3; };\n"
    "output = { enabled = false; dir = \"res \\\"q\\\" \\\\ x\"; prefix = \"run_1.a-b\"; interval = 0.5;\n"
    "           fields = [\"V\", \"region\"]; activation_threshold = -40.0; };\n";

static void test_defaults(void)
{
    hs_config d, e;
    hs_config_defaults(&d);
    HS_TEST_OK(hs_config_validate(&d));
    HS_TEST_CHECK(!strcmp(d.mesh_source, "box") && d.box.lx == 20.0 && d.box.ly == 7.0 &&
                      d.box.lz == 3.0 && d.box.h == 0.5 && d.box.use_tetgen == 0 &&
                      d.box.tetgen_radius_edge == 1.414 && !strcmp(d.mesh_reorder, "rcm"),
                  "mesh defaults");
    HS_TEST_CHECK(d.fiber_dir[0] == 1.0 && d.fiber_dir[1] == 0.0 && d.fiber_dir[2] == 0.0, "fibre default");
    HS_TEST_CHECK(!strcmp(d.fiber_type, "auto") && d.lv.helix_endo_deg == 60.0 && d.lv.helix_epi_deg == -60.0 &&
                      !strcmp(d.fiber_location, "auto") && !d.fiber_file[0],
                  "fibre defaults");
    HS_TEST_CHECK(d.mesh_scale == 1.0 && d.mesh_weld_tol == 0.0 && !strcmp(d.mesh_quadratic, "refuse") &&
                      d.mesh_min_dihedral == 0.0 && d.lv.rs_endo == 7.0 && d.lv.rl_endo == 17.0 &&
                      d.lv.rs_epi == 10.0 && d.lv.rl_epi == 20.0 && d.lv.z_base == 5.0,
                  "geometry defaults (Land et al. 2015)");
    HS_TEST_CHECK(!strcmp(d.cg_variant, "chronopoulos") && d.cg_s == 4 && d.cg_forcing == 0.1 && d.extrapolate == 2 &&
                      !strcmp(d.graph, "auto") && !strcmp(d.out_format, "vtk"),
                  "issue 6 defaults");
    HS_TEST_CHECK(ap(&d, "c") == 8.0 && ap(&d, "alpha") == 0.01 && ap(&d, "gamma") == 0.002 && ap(&d, "b") == 0.15 &&
                      ap(&d, "mu1") == 0.2 && ap(&d, "mu2") == 0.3 && !strcmp(d.model_type, "aliev_panfilov") && d.d_iso == 0.3 && d.d_ani == 0.9 && d.time_unit == 12.9 &&
                      ap(&d, "recovery") == 1.0,
                  "model defaults");
    HS_TEST_CHECK(d.dt == 0.1 && d.t_end == 40.0 && d.n_stimuli == 0, "time/stimulus defaults");
    HS_TEST_CHECK(!strcmp(d.backend, "auto") && !strcmp(d.spmv, "auto") && d.cg_tol == 1e-8 &&
                      d.cg_max_iter == 1000 && d.newton_tol_residual == 1e-8 &&
                      d.newton_tol_update == 1e-8 && d.newton_max_iter == 10 && d.threads == 0,
                  "solver defaults");
    HS_TEST_CHECK(d.output_enabled == 1 && !strcmp(d.out_dir, "output") &&
                      !strcmp(d.out_prefix, "heartsim") && d.out_interval == 1.0 &&
                      fields_are(&d.out_fields, "phi", "V", "activation", "r", "fiber", NULL) &&
                      d.activation_threshold == -30.0,
                  "output defaults");

    /* The along-fibre speed of the defaults: v = sqrt(c D / (2 T)) (1 - 2 alpha) ~ 0.6 mm/ms. */
    double v = sqrt(ap(&d, "c") * (d.d_iso + d.d_ani) / (2.0 * d.time_unit)) * (1.0 - 2.0 * ap(&d, "alpha"));
    HS_TEST_NEAR(v, 0.598, 5e-4, "default along-fibre speed (mm/ms)");

    /* An empty file and no file at all give the defaults. */
    char path[600];
    snprintf(path, sizeof path, "%s/empty.cfg", g_dir);
    write_file(path, "# nothing\n");
    HS_TEST_OK(hs_config_load(path, NULL, 0, &e));
    HS_TEST_CHECK(compare_configs(&d, &e, "empty file") == 0, "empty file != defaults");
    HS_TEST_CHECK(!strcmp(e.path, path), "path kept: %s", e.path);
    HS_TEST_OK(hs_config_load(NULL, NULL, 0, &e));
    HS_TEST_CHECK(compare_configs(&d, &e, "no file") == 0, "no file != defaults");
    unlink(path);
}

static void test_full_and_round_trip(void)
{
    char path[600], printed[600];
    snprintf(path, sizeof path, "%s/full.cfg", g_dir);
    snprintf(printed, sizeof printed, "%s/printed.cfg", g_dir);
    write_file(path, full_cfg);
    static hs_config a, b, c;
    HS_TEST_OK(hs_config_load(path, NULL, 0, &a));
    HS_TEST_CHECK(a.box.lx == 10.0 && a.box.ly == 4.5 && a.box.h == 0.25 && a.box.use_tetgen == 1 &&
                      a.box.tetgen_radius_edge == 1.2 && !strcmp(a.mesh_reorder, "none"),
                  "full: mesh");
    HS_TEST_CHECK(a.fiber_dir[0] == 1.0 && a.fiber_dir[1] == 1.0 && a.fiber_dir[2] == 0.0, "full: fibre");
    HS_TEST_CHECK(ap(&a, "c") == 8.5 && ap(&a, "alpha") == 0.02 && ap(&a, "recovery") == 0.0 && a.time_unit == 10.0, "full: model");
    HS_TEST_CHECK(a.dt == 0.05 && a.t_end == 12.5, "full: time");
    HS_TEST_CHECK(a.n_stimuli == 2, "full: %d stimuli", a.n_stimuli);
    HS_TEST_CHECK(a.stimuli[0].shape == HS_STIM_BOX && a.stimuli[0].max[1] == 1e30 &&
                      a.stimuli[0].duration == 1.5 && a.stimuli[0].start == 0.0 &&
                      a.stimuli[0].strength == 1.0,
                  "full: stimulus 0");
    HS_TEST_CHECK(a.stimuli[1].shape == HS_STIM_SPHERE && a.stimuli[1].center[0] == 5.0 &&
                      a.stimuli[1].radius == 0.75 && a.stimuli[1].start == 100.0 &&
                      a.stimuli[1].duration == 2.0 && a.stimuli[1].strength == 0.3,
                  "full: stimulus 1");
    {
        const hs_model *am = hs_models_find("aliev_panfilov");
        const hs_region_cfg *r = a.regions;
        HS_TEST_CHECK(a.n_regions == 3 && r[0].select == HS_REGION_BOX && !strcmp(r[0].name, "scar") &&
                          r[0].d_iso == 0.0 && r[0].d_ani == 0.0 && r[0].max[0] == 2.0 && r[0].n_params == 0,
                      "full: region 0");
        HS_TEST_CHECK(r[1].select == HS_REGION_ATTRIBUTE && r[1].attribute == 3 && r[1].d_iso == -1.0 &&
                          r[1].d_ani == -1.0 && r[1].n_params == 3 &&
                          r[1].param_index[0] == hs_model_param_index(am, "alpha") && r[1].param_value[0] == 0.05 &&
                          r[1].param_index[1] == hs_model_param_index(am, "recovery") && r[1].param_value[1] == 0.0 &&
                          r[1].param_index[2] == hs_model_param_index(am, "c") && r[1].param_value[2] == 9.0,
                      "full: region 1");
        HS_TEST_CHECK(a.probes.n == 2 && !strcmp(a.probes.p[0].name, "apex") && a.probes.p[0].at[1] == 2.0 &&
                          !strcmp(a.probes.p[1].name, "p2") && a.probe_interval == 0.5 && a.electrodes.n == 2 &&
                          !strcmp(a.electrodes.p[1].name, "RA") && a.electrodes.p[0].at[0] == 20.0 &&
                          !strcmp(a.ecg_leads, "LA-RA") && a.ecg_sigma_b == 2.5,
                      "full: probes and ecg");
        HS_TEST_CHECK(r[2].select == HS_REGION_SURFACE && !strcmp(r[2].label, "endo") && r[2].distance == 1.5 &&
                          r[2].d_iso == -1.0 && r[2].d_ani == 0.4,
                      "full: region 2");
    }
    HS_TEST_CHECK(!strcmp(a.backend, "cpu") && !strcmp(a.spmv, "csr_scalar") && a.cg_tol == 1e-10 &&
                      a.cg_max_iter == 500 && a.newton_tol_update == 2e-9 && a.newton_max_iter == 7 &&
                      a.threads == 3,
                  "full: solver");
    HS_TEST_CHECK(a.output_enabled == 0 && !strcmp(a.out_dir, "res \"q\" \\ x") &&
                      !strcmp(a.out_prefix, "run_1.a-b") && a.out_interval == 0.5 &&
                      fields_are(&a.out_fields, "V", "region", NULL) && a.activation_threshold == -40.0,
                  "full: output (dir \"%s\")", a.out_dir);

    /* print -> load gives the same values, and printing again gives the same text. */
    FILE *f = fopen(printed, "w");
    HS_TEST_CHECK(f != NULL, "cannot write %s", printed);
    if (!f) return;
    hs_config_print(&a, f);
    fclose(f);
    HS_TEST_OK(hs_config_load(printed, NULL, 0, &b));
    HS_TEST_CHECK(compare_configs(&a, &b, "round trip") == 0, "round trip differs");

    /* The same through the defaults (empty stimulus list) and a tetgen mesh with an absolute file. */
    char mdir[600], node[700], ele[700];
    snprintf(mdir, sizeof mdir, "%s/heart", g_dir);
    snprintf(node, sizeof node, "%s.node", mdir);
    snprintf(ele, sizeof ele, "%s.ele", mdir);
    write_file(node, "0 3 0 0\n");
    write_file(ele, "0 4 0\n");
    char set_file[700];
    snprintf(set_file, sizeof set_file, "mesh.file=\"%s\"", mdir);
    const char *sets[] = {"mesh.source=tetgen", set_file};
    HS_TEST_OK(hs_config_load(NULL, sets, 2, &a));
    f = fopen(printed, "w");
    if (!f) return;
    hs_config_print(&a, f);
    fclose(f);
    HS_TEST_OK(hs_config_load(printed, NULL, 0, &c));
    HS_TEST_CHECK(compare_configs(&a, &c, "round trip of defaults") == 0, "round trip of defaults differs");
    HS_TEST_CHECK(!strcmp(c.mesh_file, mdir), "mesh.file %s", c.mesh_file);

    /* A comment with the unit after each numeric key. */
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (m) {
        hs_config_print(&a, m);
        fclose(m);
        const char *dt = strstr(text, "dt = 0.1;");
        const char *nl = dt ? strchr(dt, '\n') : NULL;
        const char *ms = dt ? strstr(dt, "# ms") : NULL;
        HS_TEST_CHECK(dt && nl && ms && ms < nl, "no unit comment after dt in\n%s", text);
        HS_TEST_CHECK(strstr(text, "d_iso = 0.3;") && strstr(text, "# mm^2/ms"), "d_iso unit");
        free(text);
    }
    unlink(node);
    unlink(ele);
    unlink(printed);
    unlink(path);
}

/* model.preset: the set's values for the parameters not given; a given one (file or --set) wins;
 * model.gates reaches the spec. */
static void test_preset(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s/preset.cfg", g_dir);
    write_file(path, "model = { type = \"bueno_orovio\"; preset = \"endo\"; tau_fi = 0.2; gates = \"rush_larsen\"; };\n"
                     "time = { dt = 0.02; };\n");
    const char *sets[] = {"model.tau_si=3.5"};
    hs_config cfg;
    HS_TEST_OK(hs_config_load(path, sets, 1, &cfg));
    const hs_model *m = hs_models_find("bueno_orovio");
    if (!m) return;
    const double *v = cfg.model_prm[m->id];
    HS_TEST_CHECK(v[hs_model_param_index(m, "tau_v2_minus")] == 10.0 && v[hs_model_param_index(m, "u_u")] == 1.56,
                  "endo values not applied");
    HS_TEST_CHECK(v[hs_model_param_index(m, "tau_fi")] == 0.2, "the file's tau_fi lost to the preset");
    HS_TEST_CHECK(v[hs_model_param_index(m, "tau_si")] == 3.5, "the --set tau_si lost to the preset");
    hs_sim_spec spec;
    HS_TEST_OK(hs_spec_from_config(&cfg, &spec));
    HS_TEST_CHECK(spec.model_prm.gates == HS_GATES_RUSH_LARSEN && spec.model_prm.v[hs_model_param_index(m, "theta_v_minus")] == 0.2,
                  "spec: gates %d", spec.model_prm.gates);
    /* a region's model.preset: the set's value of every parameter the region does not name */
    write_file(path, "regions = ( { select = \"surface\"; label = \"epi\"; distance = 2.0;\n"
                     "              model = { tau_fi = 0.12; preset = \"mid\"; }; } );\n"
                     "model = { type = \"bueno_orovio\"; preset = \"endo\"; };\ntime = { dt = 0.02; };\n");
    HS_TEST_OK(hs_config_load(path, NULL, 0, &cfg));
    const hs_region_cfg *r = &cfg.regions[0];
    const hs_model_preset *mid = NULL;
    for (int q = 0; q < m->n_presets; ++q)
        if (!strcmp(m->presets[q].name, "mid")) mid = &m->presets[q];
    HS_TEST_CHECK(mid && r->n_params == m->n_params, "region preset: %d parameters set, %d expected", r->n_params,
                  m->n_params);
    int seen[HS_MODEL_MAX_PARAMS] = {0}, wrong = 0;
    for (int q = 0; q < r->n_params && mid; ++q) {
        int k = r->param_index[q];
        if (k < 0 || k >= m->n_params || seen[k]++) { ++wrong; continue; }
        double want = k == hs_model_param_index(m, "tau_fi") ? 0.12 : mid->v[k];
        wrong += r->param_value[q] != want;
    }
    HS_TEST_CHECK(wrong == 0, "region preset: %d parameters differ from the mid set (tau_fi 0.12 kept)", wrong);
    HS_TEST_CHECK(cfg.model_prm[m->id][hs_model_param_index(m, "tau_v2_minus")] == 10.0,
                  "region preset changed the model's own (endo) values");
    unlink(path);
}

/* output.fields is a list of names, not a bit mask over the choices: any count of names (up to every
 * field of a model of HS_MODEL_MAX_VARS variables, V, fiber, region) in the order given, resolved by the
 * spec into the state descriptor's indices in descriptor order. */
static void test_field_names(void)
{
    /* the list itself: 72 names, positions beyond 31 found, the 73rd refused */
    hs_cfg_names l;
    memset(&l, 0, sizeof l);
    char one[16];
    for (int j = 0; j < HS_CFG_LIST_MAX; ++j) {
        snprintf(one, sizeof one, "x%02d", j);
        HS_TEST_CHECK(hs_cfg_names_add(&l, one), "add name %d", j);
    }
    HS_TEST_CHECK(l.n == HS_CFG_LIST_MAX && HS_CFG_LIST_MAX >= HS_MODEL_MAX_VARS + 8, "%d names", l.n);
    HS_TEST_CHECK(hs_cfg_names_find(&l, "x33") == 33 && hs_cfg_names_find(&l, "x71") == 71 &&
                      hs_cfg_names_find(&l, "x72") == -1 && !hs_cfg_names_add(&l, "x72"),
                  "find beyond 31, full at %d", HS_CFG_LIST_MAX);
    hs_cfg_names p = hs_cfg_names_parse("phi,V,,activation");
    HS_TEST_CHECK(p.n == 3 && !strcmp(p.name[2], "activation"), "parse: %d names", p.n);
    /* every model's default: its potential, V (once: a model in mV names its potential V), activation,
     * its variables, fiber */
    for (int i = 0; i < hs_models_count(); ++i) {
        const hs_model *m = hs_models_at(i);
        hs_cfg_names d = hs_config_default_fields(m);
        const int v0 = strcmp(m->potential_name, "V") ? 3 : 2;
        int ok = d.n == m->n_vars + v0 + 1 && !strcmp(d.name[0], m->potential_name) &&
                 !strcmp(d.name[v0 - 1], "activation") && !strcmp(d.name[d.n - 1], "fiber");
        for (int v = 0; v < m->n_vars && ok; ++v) ok = !strcmp(d.name[v0 + v], m->vars[v].name);
        HS_TEST_CHECK(ok, "%s: default output.fields", m->name);
    }
    /* every field of a model's state, listed backwards with V, fiber and region: the spec's list is
     * the descriptor's order, and the printed config reads back to the same list */
    char path[600];
    snprintf(path, sizeof path, "%s/fields.cfg", g_dir);
    write_file(path, "model = { type = \"bueno_orovio\"; };\ntime = { dt = 0.02; };\n"
                     "output = { fields = [\"region\", \"beats\", \"apd\", \"repolarisation\", \"activation\", \"s\", "
                     "\"w\", \"v\", \"fiber\", \"V\", \"u\"]; };\n");
    static hs_config cfg, back;
    HS_TEST_OK(hs_config_load(path, NULL, 0, &cfg));
    HS_TEST_CHECK(fields_are(&cfg.out_fields, "region", "beats", "apd", "repolarisation", "activation", "s", "w", "v",
                             "fiber", "V", "u", NULL),
                  "fields as given: %d names", cfg.out_fields.n);
    static hs_sim_spec spec;
    HS_TEST_OK(hs_spec_from_config(&cfg, &spec));
    int inorder = spec.out_state.n == 8;
    for (int j = 0; j < spec.out_state.n && inorder; ++j) inorder = spec.out_state.k[j] == j;
    HS_TEST_CHECK(inorder && spec.out_mv == 1 && spec.out_mesh_fields == (HS_MESH_FIELD_FIBER | HS_MESH_FIELD_REGION),
                  "spec: %d state fields, V %d, mesh fields %u", spec.out_state.n, spec.out_mv, spec.out_mesh_fields);
    FILE *f = fopen(path, "w");
    if (f) {
        hs_config_print(&cfg, f);
        fclose(f);
    }
    HS_TEST_OK(hs_config_load(path, NULL, 0, &back));
    HS_TEST_CHECK(fields_are(&back.out_fields, "region", "beats", "apd", "repolarisation", "activation", "s", "w", "v",
                             "fiber", "V", "u", NULL),
                  "printed and read back: %d names", back.out_fields.n);
    /* a name of another model's state: the spec names the model and its fields */
    write_file(path, "model = { type = \"bueno_orovio\"; };\ntime = { dt = 0.02; };\noutput = { fields = [\"u\", \"r\"]; };\n");
    HS_TEST_OK(hs_config_load(path, NULL, 0, &cfg));
    HS_TEST_CHECK(hs_spec_from_config(&cfg, &spec) == HS_ERR_CONFIG &&
                      strstr(hs_error_message(), "output.fields: \"r\" is not a field of model bueno_orovio; available: u, v, w, s"),
                  "other model's field: %s", hs_error_message());
    hs_error_clear();
    /* the validator of a list filled by a program: an unknown name and a repeat, wherever they are */
    hs_config_defaults(&cfg);
    cfg.out_fields = hs_config_default_fields(hs_models_at(0));
    HS_TEST_CHECK(hs_cfg_names_add(&cfg.out_fields, "region") && hs_cfg_names_add(&cfg.out_fields, "phi"),
                  "append");
    HS_TEST_CHECK(hs_config_validate(&cfg) == HS_ERR_CONFIG && strstr(hs_error_message(), "\"phi\" is listed twice"),
                  "validate a repeat: %s", hs_error_message());
    hs_error_clear();
    snprintf(cfg.out_fields.name[cfg.out_fields.n - 1], sizeof cfg.out_fields.name[0], "%s", "Vm");
    HS_TEST_CHECK(hs_config_validate(&cfg) == HS_ERR_CONFIG && strstr(hs_error_message(), "unknown value \"Vm\""),
                  "validate an unknown name: %s", hs_error_message());
    hs_error_clear();
    cfg.out_fields.n = HS_CFG_LIST_MAX + 1;
    HS_TEST_CHECK(hs_config_validate(&cfg) == HS_ERR_CONFIG && strstr(hs_error_message(), "names; at most"),
                  "validate a count: %s", hs_error_message());
    hs_error_clear();
    unlink(path);
}

/* ecg.sigma_b (S/m) reaches the ECG in the units of D as sigma_b / (chi C_m): sigma_i = chi C_m D with
 * chi 1/cm, C_m uF/cm^2 and D mm^2/ms gives S/m times 1e-3 (app/spec.c). */
static void test_ecg_units(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s/ecg_units.cfg", g_dir);
    write_file(path, "ecg = { sigma_b = 0.2; chi = 1000.0; c_m = 2.0; };\n");
    hs_config cfg;
    HS_TEST_OK(hs_config_load(path, NULL, 0, &cfg));
    hs_sim_spec spec;
    HS_TEST_OK(hs_spec_from_config(&cfg, &spec));
    /* chi C_m = 1e5 /m x 0.02 F/m^2 = 2000 S s/m^3; 0.2 S/m / 2000 = 1e-4 m^2/s = 0.1 mm^2/ms */
    HS_TEST_CHECK(fabs(spec.ecg_sigma_b - 0.1) <= 1e-15, "ecg.sigma_b 0.2 S/m -> %.17g mm^2/ms (0.1 expected)",
                  spec.ecg_sigma_b);
    write_file(path, "ecg = { sigma_b = 0.7; };\n");
    HS_TEST_OK(hs_config_load(path, NULL, 0, &cfg));
    HS_TEST_OK(hs_spec_from_config(&cfg, &spec));
    HS_TEST_CHECK(cfg.ecg_chi == 1400.0 && cfg.ecg_c_m == 1.0 && fabs(spec.ecg_sigma_b - 0.5) <= 1e-15,
                  "defaults chi %g /cm, C_m %g uF/cm^2: sigma_b 0.7 S/m -> %.17g mm^2/ms (0.5 expected)", cfg.ecg_chi,
                  cfg.ecg_c_m, spec.ecg_sigma_b);
    unlink(path);
}

static void test_overrides(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s/ov.cfg", g_dir);
    write_file(path, "time = { dt = 0.1; };\n"
                     "stimulus = ( { min = [0.0, 0.0, 0.0]; max = [1.0, 1.0, 1.0]; } );\n");
    const char *sets[] = {
        "time.dt=0.05",               /* replaces the file's value ... */
        "time.dt = 0.02",             /* ... and a later override wins; spaces around '=' are fine */
        "mesh.lx=10",                 /* int for a float */
        "model.recovery=false",
        "fibers.direction=[0.0, 1.0, 0.0]",
        "solver.spmv=csr_scalar",     /* bare string */
        "output.prefix=2024",         /* unquoted digits for a string key stay a string */
        "output.dir=\"my out\"",
        "output.fields=phi,V",        /* bare words for a string list */
        "stimulus.[0].start=5",       /* modify an existing entry */
        "stimulus.[1].shape=sphere",  /* append an entry, key by key */
        "stimulus.[1].center=[1.0, 2.0, 3.0]",
        "stimulus.[1].radius=0.5",
        "solver.cg_max_iter=50",
    };
    hs_config cfg;
    HS_TEST_OK(hs_config_load(path, sets, (int)(sizeof sets / sizeof sets[0]), &cfg));
    HS_TEST_CHECK(cfg.dt == 0.02, "dt %g", cfg.dt);
    HS_TEST_CHECK(cfg.box.lx == 10.0 && ap(&cfg, "recovery") == 0.0, "lx/recovery");
    HS_TEST_CHECK(cfg.fiber_dir[0] == 0.0 && cfg.fiber_dir[1] == 1.0, "direction");
    HS_TEST_CHECK(!strcmp(cfg.spmv, "csr_scalar") && !strcmp(cfg.out_prefix, "2024") &&
                      !strcmp(cfg.out_dir, "my out"),
                  "strings: %s %s %s", cfg.spmv, cfg.out_prefix, cfg.out_dir);
    HS_TEST_CHECK(fields_are(&cfg.out_fields, "phi", "V", NULL), "fields: %d names", cfg.out_fields.n);
    HS_TEST_CHECK(cfg.n_stimuli == 2 && cfg.stimuli[0].start == 5.0 && cfg.stimuli[0].max[0] == 1.0,
                  "stimulus 0 (%d stimuli)", cfg.n_stimuli);
    HS_TEST_CHECK(cfg.stimuli[1].shape == HS_STIM_SPHERE && cfg.stimuli[1].center[2] == 3.0 &&
                      cfg.stimuli[1].radius == 0.5 && cfg.stimuli[1].duration == 2.0,
                  "stimulus 1");
    HS_TEST_CHECK(cfg.cg_max_iter == 50, "cg_max_iter %d", cfg.cg_max_iter);

    /* A whole list from the command line, and fields in libconfig syntax. */
    const char *sets2[] = {"stimulus=({shape=\"sphere\"; center=[0.0,0.0,0.0]; radius=1.0;})",
                           "output.fields=[\"r\", \"fiber\"]"};
    HS_TEST_OK(hs_config_load(path, sets2, 2, &cfg));
    HS_TEST_CHECK(cfg.n_stimuli == 1 && cfg.stimuli[0].shape == HS_STIM_SPHERE, "whole list");
    HS_TEST_CHECK(fields_are(&cfg.out_fields, "r", "fiber", NULL), "fields: %d names", cfg.out_fields.n);
    unlink(path);
}

static void test_mesh_file_resolution(void)
{
    char sub[600], mdir[700], node[800], ele[800], path[800], want[900];
    snprintf(sub, sizeof sub, "%s/cfgdir", g_dir);
    snprintf(mdir, sizeof mdir, "%s/meshes", sub);
    HS_TEST_CHECK(mkdir(sub, 0700) == 0 && mkdir(mdir, 0700) == 0, "mkdir: %s", strerror(errno));
    snprintf(node, sizeof node, "%s/heart.node", mdir);
    snprintf(ele, sizeof ele, "%s/heart.ele", mdir);
    write_file(node, "0 3 0 0\n");
    write_file(ele, "0 4 0\n");
    snprintf(path, sizeof path, "%s/run.cfg", sub);
    write_file(path, "mesh = { source = \"tetgen\"; file = \"meshes/heart\"; };\n");
    snprintf(want, sizeof want, "%s/heart", mdir);

    /* Relative to the config file's directory, wherever the program runs from. */
    hs_config cfg;
    HS_TEST_OK(hs_config_load(path, NULL, 0, &cfg));
    HS_TEST_CHECK(!strcmp(cfg.mesh_file, want), "mesh.file \"%s\", want \"%s\"", cfg.mesh_file, want);

    /* "./" and a ".node" suffix are accepted. */
    write_file(path, "mesh = { source = \"tetgen\"; file = \"./meshes/heart.node\"; };\n");
    HS_TEST_OK(hs_config_load(path, NULL, 0, &cfg));
    HS_TEST_CHECK(!strcmp(cfg.mesh_file, want), "mesh.file \"%s\", want \"%s\"", cfg.mesh_file, want);

    /* From --set, relative to the current directory. */
    char cwd[600], old[600];
    HS_TEST_CHECK(getcwd(old, sizeof old) != NULL, "getcwd");
    HS_TEST_CHECK(chdir(sub) == 0, "chdir %s", sub);
    HS_TEST_CHECK(getcwd(cwd, sizeof cwd) != NULL, "getcwd");
    const char *sets[] = {"mesh.file=meshes/heart"};
    HS_TEST_OK(hs_config_load(path, sets, 1, &cfg));
    snprintf(want, sizeof want, "%s/meshes/heart", cwd);
    HS_TEST_CHECK(!strcmp(cfg.mesh_file, want), "--set mesh.file \"%s\", want \"%s\"", cfg.mesh_file, want);
    /* A relative config path works too. */
    HS_TEST_OK(hs_config_load("run.cfg", NULL, 0, &cfg));
    HS_TEST_CHECK(!strcmp(cfg.mesh_file, want), "relative config: \"%s\"", cfg.mesh_file);
    HS_TEST_CHECK(chdir(old) == 0, "chdir back");

    unlink(node);
    unlink(ele);
    unlink(path);
    rmdir(mdir);
    rmdir(sub);
}

/* The LV with fibres, stimuli by label (whole, and in a sphere) and by node file: values, paths
 * resolved against the config file, and print -> load giving the same configuration. */
static void test_geometry_round_trip(void)
{
    char sub[600], path[700], vtx[700], lon[700], printed[700];
    snprintf(sub, sizeof sub, "%s/geo", g_dir);
    HS_TEST_CHECK(mkdir(sub, 0700) == 0, "mkdir %s: %s", sub, strerror(errno));
    snprintf(path, sizeof path, "%s/lv.cfg", sub);
    snprintf(vtx, sizeof vtx, "%s/apex.vtx", sub);
    snprintf(lon, sizeof lon, "%s/f.lon", sub);
    snprintf(printed, sizeof printed, "%s/printed.cfg", g_dir);
    write_file(vtx, "1\nintra\n0\n");
    write_file(lon, "1\n1 0 0\n");
    write_file(path, "mesh = { source = \"ellipsoid_lv\"; h = 2.5; reorder = \"sfc\"; min_dihedral = 10.0;\n"
                     "  lv_endo_short = 6.5; lv_base_z = 4.0; };\n"
                     "fibers = { type = \"ellipsoid\"; helix_endo = 50.0; helix_epi = -55.0; };\n"
                     "stimulus = (\n"
                     "  { shape = \"surface\"; label = \"endo\"; center = [0.0, 0.0, -17.0]; radius = 3.0; },\n"
                     "  { shape = \"surface\"; label = \"2\"; start = 5.0; },\n"
                     "  { shape = \"nodes\"; file = \"./apex.vtx\"; start = 10.0; }\n"
                     ");\n"
                     "solver = { cg = \"classic\"; cg_forcing = 0.0; extrapolate = 1; graph = \"off\"; };\n"
                     "output = { format = \"xdmf\"; };\n");
    static hs_config a, b;
    HS_TEST_OK(hs_config_load(path, NULL, 0, &a));
    HS_TEST_CHECK(!strcmp(a.mesh_source, "ellipsoid_lv") && a.box.h == 2.5 && !strcmp(a.mesh_reorder, "sfc") &&
                      a.mesh_min_dihedral == 10.0 && a.lv.rs_endo == 6.5 && a.lv.z_base == 4.0 &&
                      a.lv.rl_epi == 20.0,
                  "LV mesh keys");
    HS_TEST_CHECK(!strcmp(a.fiber_type, "ellipsoid") && a.lv.helix_endo_deg == 50.0 && a.lv.helix_epi_deg == -55.0,
                  "fibre keys");
    HS_TEST_CHECK(a.n_stimuli == 3 && a.stimuli[0].shape == HS_STIM_SURFACE && !strcmp(a.stimuli[0].label, "endo") &&
                      a.stimuli[0].radius == 3.0 && a.stimuli[0].center[2] == -17.0 &&
                      a.stimuli[1].radius == 0.0 && !strcmp(a.stimuli[1].label, "2") &&
                      a.stimuli[2].shape == HS_STIM_NODES && !strcmp(a.stimuli[2].file, vtx),
                  "stimuli (file \"%s\", want \"%s\")", a.stimuli[2].file, vtx);
    HS_TEST_CHECK(!strcmp(a.cg_variant, "classic") && a.cg_forcing == 0.0 && a.extrapolate == 1 &&
                      !strcmp(a.graph, "off") && !strcmp(a.out_format, "xdmf"),
                  "solver/output keys");
    FILE *f = fopen(printed, "w");
    HS_TEST_CHECK(f != NULL, "cannot write %s", printed);
    if (!f) return;
    hs_config_print(&a, f);
    fclose(f);
    HS_TEST_OK(hs_config_load(printed, NULL, 0, &b));
    HS_TEST_CHECK(compare_configs(&a, &b, "geometry round trip") == 0, "geometry round trip differs");

    /* a file source with fibres from a file, both relative to the config file; quadratic tets
     * linearised; the TetGen suffix is kept for mesh.source = "file" (the reader wants it) */
    char node[700], ele[700];
    snprintf(node, sizeof node, "%s/heart.node", sub);
    snprintf(ele, sizeof ele, "%s/heart.ele", sub);
    write_file(node, "0 3 0 0\n");
    write_file(ele, "0 4 0\n");
    write_file(path, "mesh = { source = \"file\"; file = \"heart.node\"; scale = 0.001; quadratic = \"linearize\"; };\n"
                     "fibers = { type = \"file\"; file = \"f.lon\"; location = \"element\"; };\n");
    HS_TEST_OK(hs_config_load(path, NULL, 0, &a));
    HS_TEST_CHECK(!strcmp(a.mesh_file, node) && !strcmp(a.fiber_file, lon) && a.mesh_scale == 0.001 &&
                      !strcmp(a.mesh_quadratic, "linearize") && !strcmp(a.fiber_location, "element"),
                  "file source: mesh.file \"%s\", fibers.file \"%s\"", a.mesh_file, a.fiber_file);
    f = fopen(printed, "w");
    if (!f) return;
    hs_config_print(&a, f);
    fclose(f);
    HS_TEST_OK(hs_config_load(printed, NULL, 0, &b));
    HS_TEST_CHECK(compare_configs(&a, &b, "file source round trip") == 0, "file source round trip differs");
    /* a prefix (openCARP PREFIX.elem or TetGen PREFIX.ele) is accepted as mesh.file */
    const char *sets[] = {"mesh.file=\"heart\""};
    char cwd[600];
    HS_TEST_CHECK(getcwd(cwd, sizeof cwd) != NULL && chdir(sub) == 0, "chdir");
    HS_TEST_OK(hs_config_load(path, sets, 1, &a));
    HS_TEST_CHECK(chdir(cwd) == 0, "chdir back");

    unlink(node);
    unlink(ele);
    unlink(vtx);
    unlink(lon);
    unlink(path);
    unlink(printed);
    rmdir(sub);
}

static void test_reference(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) return;
    hs_config_print_reference(m);
    fclose(m);
    HS_TEST_CHECK(!strncmp(text, "| key | type | unit | default | range | meaning |", 48), "header");
    for (int i = 0; i < hs_cfg_nkeys(); ++i) {
        char want[128];
        snprintf(want, sizeof want, "| `%s` |", hs_cfg_keys()[i].path);
        HS_TEST_CHECK(strstr(text, want) != NULL, "reference lacks %s", hs_cfg_keys()[i].path);
    }
    free(text);
}

/* ecg.leads become electrode pairs in the spec; a lead naming no electrode is an error listing them. */
static void test_ecg_leads(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s/leads.cfg", g_dir);
    static hs_config cfg;
    static hs_sim_spec spec;
    write_file(path, "ecg = { electrodes = ( { name = \"LA\"; at = [9.0, 0.0, 0.0]; }, { name = \"RA\"; at = [-9.0, 0.0, 0.0]; },\n"
                     "  { name = \"LL\"; at = [0.0, -9.0, 0.0]; } ); leads = \"LA-RA, LL-RA,LL-LA\"; };\n");
    HS_TEST_OK(hs_config_load(path, NULL, 0, &cfg));
    HS_TEST_OK(hs_spec_from_config(&cfg, &spec));
    HS_TEST_CHECK(spec.n_electrodes == 3 && spec.n_leads == 3 && spec.lead[0][0] == 0 && spec.lead[0][1] == 1 &&
                      spec.lead[1][0] == 2 && spec.lead[1][1] == 1 && spec.lead[2][0] == 2 && spec.lead[2][1] == 0 &&
                      !strcmp(spec.lead_name[2], "LL-LA"),
                  "leads: %d", spec.n_leads);
    snprintf(cfg.ecg_leads, sizeof cfg.ecg_leads, "LA-V1");
    hs_status st = hs_spec_from_config(&cfg, &spec);
    HS_TEST_CHECK(st == HS_ERR_CONFIG && strstr(hs_error_message(), "ecg.leads: \"LA-V1\": no electrode \"V1\"; electrodes: LA, RA, LL"),
                  "unknown electrode in a lead: \"%s\"", hs_error_message());
    hs_error_clear();
    snprintf(cfg.ecg_leads, sizeof cfg.ecg_leads, "LA");
    st = hs_spec_from_config(&cfg, &spec);
    HS_TEST_CHECK(st == HS_ERR_CONFIG && strstr(hs_error_message(), "is not a difference of two electrodes"),
                  "a lead without '-': \"%s\"", hs_error_message());
    hs_error_clear();
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/hs_config_test_XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
    if (!mkdtemp(g_dir)) {
        fprintf(stderr, "mkdtemp %s: %s\n", g_dir, strerror(errno));
        return 1;
    }
    run_bad_cases();
    test_ecg_leads();
    test_defaults();
    test_full_and_round_trip();
    test_overrides();
    test_preset();
    test_field_names();
    test_ecg_units();
    test_mesh_file_resolution();
    test_geometry_round_trip();
    test_reference();
    rmdir(g_dir);
    HS_TEST_RETURN();
}

static int fields_are(const hs_cfg_names *l, const char *first, ...)
{
    int j = 0, same = 1;
    va_list ap_;
    va_start(ap_, first);
    for (const char *n = first; n; n = va_arg(ap_, const char *), ++j) same &= j < l->n && !strcmp(l->name[j], n);
    va_end(ap_);
    return same && j == l->n;
}
