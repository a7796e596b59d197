/**
 * @file hs_model.h
 * @brief The ionic-model interface. A model is one header `fem/models/<id>.h` and one line in
 * `hs_model_list.h`; nothing else in heartsim names a model.
 *
 * What a model declares (its `const hs_model hs_model_<id>`, defined in its header under
 * HS_MODEL_DEFINE, which only fem/models/models.c sets):
 *  - its parameters (name, unit, default, range, meaning): the config keys `model.<name>`, their
 *    checks and the rows of docs/config.md are generated from them;
 *  - its state variables besides the potential (name, unit, initial value, where they live: at the
 *    integration point of each element, HS_AT_IP), which backends, checkpoints and output carry by
 *    name (fem/hs_state.h);
 *  - the affine map of its potential variable to mV (V = mv_scale u + mv_offset), the time unit its
 *    equations are written in, and the largest dt for which the tangent stays positive definite.
 * What a kernel calls (HS_HD inline functions, shared by the CPU and the CUDA backends).
 * For the operator-splitting scheme, the nodal form hs_model_rhs_<id> (every model has it;
 * fem/models/hs_model_ode.h): the ionic term and, per variable, its derivative or, for a gate, its
 * steady state and time constant. For seed 002's implicit scheme (models of the list's HS_MODEL
 * lines), dispatched in hs_model_point.h; `gates` is hs_model_params.gates): the local update at an integration point, which returns the ionic
 * term f(u, s) of du/dt = div(D grad u) + f + stim and its consistent derivative
 * df/du = ∂f/∂u + ∂f/∂s · ds/du that the global tangent needs (seed 002 sec. 2).
 *
 * Units: everything a kernel sees is in model units (u as the model defines it, time in
 * time_unit ms); fem/ converts at the edges (dt, stimulus, diffusion).
 */
#ifndef HS_MODEL_H
#define HS_MODEL_H

#include <math.h>

#include "hs_hd.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most parameters and integration-point variables a model may declare (ORd has 41 variables and
 *  ~200 parameters): the sizes of the host-side carriers (hs_model_params.v, hs_region_cfg, the
 *  state descriptor). What is sized per model instead: the device kernels (compiled per model with
 *  its HS_MODEL_NVARS_<id> and HS_MODEL_NPARAMS_<id>: backends/cuda/hs_element_ct.cuh) and the
 *  config tables (sums over the list: hs_model_sizes.h). Every model of the list stays within both
 *  (static assertions in hs_model_sizes.h). */
#define HS_MODEL_MAX_PARAMS 256
#define HS_MODEL_MAX_VARS 64
/** Longest name of a variable (a field of output.fields and of checkpoints), with its NUL. */
#define HS_MODEL_NAME_LEN 32

/** Where a state variable lives. */
typedef enum hs_location {
    HS_AT_NODE = 0, /**< one value per mesh node */
    HS_AT_IP = 1    /**< one value per integration point (P1: one per element, at its centroid) */
} hs_location;

/** Kind of a parameter (how the config reads it; the value is stored as a double). */
typedef enum hs_param_kind {
    HS_PARAM_REAL = 0,
    HS_PARAM_SWITCH = 1 /**< true/false in the config, 1.0/0.0 in the values */
} hs_param_kind;

/** Bounds of a parameter (hs_model_param.bounds bits). */
enum {
    HS_PARAM_MIN_CLOSED = 1 << 0, /**< value >= min */
    HS_PARAM_MIN_OPEN = 1 << 1,   /**< value > min */
    HS_PARAM_MAX_CLOSED = 1 << 2, /**< value <= max */
    HS_PARAM_MAX_OPEN = 1 << 3    /**< value < max */
};

/** One parameter of a model: the config key `model.<name>`. */
typedef struct hs_model_param {
    const char *name;    /**< lower_snake; the config key is model.<name> */
    hs_param_kind kind;
    const char *unit;    /**< "1" for a dimensionless number, "ms", ... */
    double def;          /**< default */
    unsigned bounds;     /**< HS_PARAM_MIN_* / HS_PARAM_MAX_* */
    double min, max;
    const char *meaning; /**< one line for docs/config.md */
} hs_model_param;

/** One state variable of a model besides the potential. */
typedef struct hs_model_var {
    const char *name;    /**< the field's name in output and checkpoints ("r") */
    const char *unit;
    hs_location where;   /**< HS_AT_IP for every model today (the local problems live there) */
    double initial;      /**< value at t = 0 */
    const char *meaning;
    /** 1: a gating variable, dx/dt = (x_inf - x)/tau_x with x_inf and tau_x functions of (u, s) that
     *  the model's nodal form returns (hs_model_ode.h), so the splitting scheme steps it by
     *  Rush-Larsen; 0: any other variable (forward Euler there). Agrees with the nodal form's tau > 0
     *  (tests/fem/models/test_models.c). */
    int gate;
} hs_model_var;

/** The time schemes a model can run under (hs_model.schemes bits; solver.scheme names them). */
enum {
    /** seed 002's implicit scheme: the variables at the integration points, the local update
     *  hs_model_point_<id> with its consistent tangent (fem/models/hs_model_point.h) */
    HS_MODEL_SCHEME_NEWTON = 1 << 0,
    /** operator splitting: the variables at the nodes, the nodal form hs_model_rhs_<id> stepped by
     *  Rush-Larsen / forward Euler (fem/models/hs_model_ode.h), then a linear diffusion solve */
    HS_MODEL_SCHEME_SPLITTING = 1 << 1
};

/** Model identifiers, one per line of hs_model_list.h. */
typedef enum hs_model_id {
#define HS_MODEL(id) HS_MODEL_ID_##id,
#include "hs_model_list.h"
#undef HS_MODEL
    HS_MODEL_COUNT
} hs_model_id;

/** How a model's gating variables take their time step (model.gates), for models with gates
 * (hs_model.has_gates). A gate x obeys dx/dt = (x_inf(u) - x)/tau_x(u), linear in x at fixed u. */
typedef enum hs_gate_scheme {
    /** backward Euler, x = (x_n + dt x_inf/tau)/(1 + dt/tau): the local Newton of the implicit scheme,
     *  exact in one iteration since the gate equation is linear in x */
    HS_GATES_NEWTON = 0,
    /** the exponential update of Rush & Larsen (1978), x = x_inf + (x_n - x_inf) exp(-dt/tau): exact for
     *  u frozen over the step */
    HS_GATES_RUSH_LARSEN = 1
} hs_gate_scheme;

/** The values a kernel needs: which model, and its parameters in declared order. The host's carrier
 *  (2 KB: HS_MODEL_MAX_PARAMS values): the CPU backend passes it by pointer; the CUDA kernels take the
 *  model's own n_params values by value instead (backends/cuda/hs_element_ct.cuh). */
typedef struct hs_model_params {
    hs_model_id id;
    int n_vars;                    /**< integration-point variables (hs_model.n_vars) */
    int gates;                     /**< hs_gate_scheme (models without gates ignore it) */
    double v[HS_MODEL_MAX_PARAMS]; /**< parameter values, in the order of hs_model.params */
} hs_model_params;

/** A published parameter set of a model (model.preset): values of every parameter, in declared order. */
typedef struct hs_model_preset {
    const char *name;    /**< the value of model.preset ("epi") */
    const char *meaning; /**< one line: what tissue, and where it is published */
    const double *v;     /**< [hs_model.n_params] */
} hs_model_preset;

/** A model's description: the registry entry (first member the name, for hs_registry). */
typedef struct hs_model {
    const char *name;      /**< the value of model.type ("aliev_panfilov") */
    const char *summary;   /**< one line */
    const char *reference; /**< the paper, and the seed section where one describes it */
    hs_model_id id;
    int n_params;
    const hs_model_param *params;
    int n_vars;
    const hs_model_var *vars;
    const char *potential_name; /**< the potential variable's field name ("phi") */
    const char *potential_unit; /**< its unit ("1": dimensionless) */
    double potential_rest;      /**< its value at rest (the initial condition) */
    double mv_scale, mv_offset; /**< V_mV = mv_scale u + mv_offset (the `V` output field) */
    double time_unit_default;   /**< ms per model time unit: model.time_unit's default (1 for ms) */
    /** Default diffusion {d_iso, d_ani}, mm^2/ms: model.d_iso's and model.d_ani's defaults when the config
     *  gives no conductivity (across the fibre D = d_iso, along it d_iso + d_ani), the values with which
     *  the model conducts at 0.6 and 0.3 m/s at the default mesh.h and time.dt (found by `heartsim
     *  tune-cv`: docs/config.md). {0, 0}: not tuned, the shared {0.3, 0.9} (Aliev-Panfilov's), with a warning. */
    double d_default[2];
    /** The same under solver.scheme = "splitting" (the ionic state at the nodes conducts slower than the
     *  Newton scheme's one-point reaction on a mesh that does not resolve a steep front: docs/verification.md,
     *  "Conduction velocity against a refined reference"); {0, 0}: d_default holds for both schemes. */
    double d_default_split[2];
    /** Largest dt (model units) for which 1/dt - df/du > 0 at rest-like states (the element tangent
     *  stays positive definite, so CG applies); INFINITY when the model has no such bound. */
    double (*dt_max)(const double *v);
    int has_gates;                   /**< its variables include gates that model.gates applies to */
    int n_presets;                   /**< published parameter sets (0: none; the defaults are the paper's) */
    const hs_model_preset *presets;  /**< [n_presets]; the first one equals the defaults */
    /** HS_MODEL_SCHEME_* bits: the schemes it has the kernels of. A model of the list's HS_MODEL
     *  lines has both; one of its HS_MODEL_NODAL lines (generated from CellML) only the splitting. */
    unsigned schemes;
} hs_model;

/** The shared default diffusion {d_iso, d_ani} (mm^2/ms) of a model whose d_default is {0, 0}. */
#define HS_MODEL_D_ISO_SHARED 0.3
#define HS_MODEL_D_ANI_SHARED 0.9

/** @brief @p m's default model.d_iso (@p ani = 0) or model.d_ani (1), mm^2/ms (hs_model.d_default, or the
 *  shared default when the model has none). */
static inline double hs_model_d_default(const hs_model *m, int ani)
{
    if (m->d_default[0] > 0.0) return m->d_default[ani ? 1 : 0];
    return ani ? HS_MODEL_D_ANI_SHARED : HS_MODEL_D_ISO_SHARED;
}

/** @brief @p m's default model.d_iso (@p ani = 0) or model.d_ani (1), mm^2/ms, under the scheme a run
 *  uses (@p splitting nonzero: solver.scheme resolves to "splitting"): hs_model.d_default_split where the
 *  model has one, else hs_model_d_default. */
static inline double hs_model_d_default_scheme(const hs_model *m, int ani, int splitting)
{
    if (splitting && m->d_default_split[0] > 0.0) return m->d_default_split[ani ? 1 : 0];
    return hs_model_d_default(m, ani);
}

#ifdef __cplusplus
}
#endif
#endif
