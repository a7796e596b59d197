/**
 * @file hs_config.h
 * @brief The resolved run configuration (every key with its default applied) and its loader.
 *
 * Keys are documented, with unit, default and range, in docs/config.md; the schema table in
 * app/config_schema.c is the single source of truth for names, types, defaults and ranges.
 */
#ifndef HS_CONFIG_H
#define HS_CONFIG_H

#include <stdio.h>

#include "hs_lv.h"
#include "hs_mesh.h"
#include "hs_model.h"
#include "hs_region.h"
#include "hs_spmv.h"
#include "hs_state.h"
#include "hs_stimulus.h"
#include "hs_status.h"
#include "hs_util.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HS_MAX_STIMULI 64
#define HS_MAX_POINTS 64
#define HS_POINT_NAME_LEN 32

/** Most names of a string-list key (output.fields): every field of one model's state, V, fiber, region. */
#define HS_CFG_LIST_MAX (HS_STATE_MAX_FIELDS + 3)

/** The value of a string-list key (HS_CFG_STRLIST: output.fields): names among the key's choices, in
 *  the order given, each once. A list, not a bit mask over the choices, so their number has no limit. */
typedef struct hs_cfg_names {
    int n;
    char name[HS_CFG_LIST_MAX][HS_MODEL_NAME_LEN];
} hs_cfg_names;

/** A named point (a probe, an electrode). */
typedef struct hs_point_cfg {
    char name[HS_POINT_NAME_LEN]; /**< letters, digits, '_', '.', '-' */
    double at[3];                 /**< mm */
} hs_point_cfg;

/** A list of named points (probes.points, ecg.electrodes). */
typedef struct hs_point_list {
    int n;
    hs_point_cfg p[HS_MAX_POINTS];
} hs_point_list;
/** Most time steps per run: a checkpoint's name holds the step in 9 digits (PREFIX_ckpt_STEP.hsck). */
#define HS_CFG_MAX_STEPS 999999999L
/** Most frames per run: a frame's name holds its index in 6 digits (PREFIX_NNNNNN.vtk). */
#define HS_CFG_MAX_FRAMES 1000000L

typedef struct hs_config {
    char path[HS_PATH_MAX]; /**< the config file as given */

    /* mesh */
    char mesh_source[16];   /**< "box" | "tetgen" | "file" | "surface" | "ellipsoid_lv" */
    hs_box_params box;      /**< mesh.lx/ly/lz/h, mesh.generator, mesh.quality (h and quality also
                                 serve surface and ellipsoid_lv) */
    double mesh_min_dihedral; /**< mesh.min_dihedral: TetGen dihedral bound, degrees, 0 = none */
    char mesh_file[HS_PATH_MAX]; /**< mesh.file, absolute after loading (tetgen: the prefix) */
    double mesh_scale;      /**< file coordinates times this = mm */
    double mesh_weld_tol;   /**< STL welding distance, mm; 0 = automatic */
    char mesh_label_array[64]; /**< mesh.label_array: the .vtp CellData array of facet labels ("": the usual names) */
    char mesh_quadratic[16]; /**< "refuse" | "linearize" */
    char mesh_reorder[16];  /**< "rcm" | "sfc" | "none" */
    int mesh_cache;         /**< mesh.cache: reuse meshes TetGen built (sim/hs_mesh_cache.h) */
    char mesh_cache_dir[HS_PATH_MAX]; /**< mesh.cache_dir, "" = $XDG_CACHE_HOME/heartsim or ~/.cache/heartsim */
    int mesh_cache_parts;   /**< mesh.cache_parts: a distributed run's parts in the mesh cache (sim/hs_mesh_cache.h) */
    hs_lv_params lv;        /**< mesh.lv_* geometry and fibers.helix_*; h, radius_edge and
                                 min_dihedral_deg are not used here (mesh.h, mesh.quality,
                                 mesh.min_dihedral are) */

    /* fibers */
    char fiber_type[16];    /**< "auto" | "constant" | "ellipsoid" | "file" | "mesh" */
    double fiber_dir[3];
    char fiber_file[HS_PATH_MAX]; /**< fibers.file, absolute after loading */
    char fiber_location[16]; /**< "auto" | "element" | "node" */

    /* model */
    char model_type[32];    /**< model.type: an ionic model of fem/models/hs_model_list.h */
    double model_prm[HS_MODEL_COUNT][HS_MODEL_MAX_PARAMS]; /**< model.<parameter> of every model, in
                                 the model's order (only the selected model's are used) */
    double d_iso, d_ani;    /**< mm^2/ms; after loading, the resolved values: from tissue.sigma_* when given,
                                 else the keys, else the model's default (hs_model.d_default, or
                                 d_default_split when solver.scheme resolves to splitting) */
    double time_unit;       /**< ms per model time unit (default: the model's) */
    char model_preset[32];  /**< model.preset: a published parameter set of the model, "" = none */
    int model_gates;        /**< model.gates: hs_gate_scheme */

    /* tissue: conductivities in S/m as openCARP and Chaste take them (app/hs_conductivity.h) */
    double sigma_il, sigma_it; /**< intracellular along / across the fibre, S/m; 0 = not given */
    double sigma_el, sigma_et; /**< extracellular, S/m; 0 = not given (then sigma_m = sigma_i) */
    double chi;                /**< surface-to-volume ratio, 1/cm */
    double c_m;                /**< membrane capacitance, uF/cm^2 */

    /* time */
    double dt, t_end;       /**< ms */

    /* stimulus */
    int n_stimuli;
    hs_stimulus_cfg stimuli[HS_MAX_STIMULI];

    /* regions (heterogeneous tissue): param_index of each entry is into model.type's parameters */
    int n_regions;
    hs_region_cfg regions[HS_MAX_REGIONS];

    /* solver */
    char backend[16];       /**< "auto" | "cpu" | "cuda" */
    char spmv[64];          /**< SpMV kernel name from the registry */
    double cg_tol;          /**< relative residual ||r||/||b|| */
    int cg_max_iter;
    char cg_variant[16];    /**< "chronopoulos" | "classic" | "sstep" */
    int cg_s;               /**< s of solver.cg = "sstep" (2..8) */
    double cg_forcing;      /**< inexact Newton forcing term in [0, 1); 0 = always to cg_tol */
    int extrapolate;        /**< initial Newton iterate: 0 previous, 1 linear, 2 quadratic */
    char graph[8];          /**< "auto" | "on" | "off": CUDA graph replay of a Newton iteration */
    char assembly[8];       /**< "split" | "full" (fem/hs_assembly_list.h) */
    char matrix_values[8];  /**< "float64" | "float32" (solvers/hs_matrix_values_list.h) */
    char persistent[8];     /**< "auto" | "on" | "off": persistent CG kernel (chronopoulos, cuda) */
    char step[16];          /**< "kernels" | "graph" | "persistent": the Newton iteration of a step on the host or the
                                 device, or whole steps as one kernel */
    char scheme[16];        /**< solver.scheme: "auto" | "newton" | "splitting" (fem/hs_scheme.h) */
    char splitting[16];     /**< solver.splitting: "godunov" | "strang" */
    double theta;           /**< solver.theta: the diffusion's theta (1 or 0.5) */
    char mass[16];          /**< solver.mass: "consistent" | "lumped" */
    double dt_ode;          /**< solver.dt_ode: longest reaction substep, ms; 0 = the reaction's interval */

    /* parallel (a run under mpirun; docs/parallel.md) */
    char partition[16];     /**< "auto" | "metis" | "rows" | "nonzeros" | "ptscotch" | "box" (parallel/hs_partition_list.h) */
    char transport[16];     /**< "auto" | "nccl" | "ipc" | "mpi" (fem/hs_transport_list.h) */
    char read[16];          /**< parallel.read: "auto" | "root" | "ranks" (who reads a mesh file) */
    double newton_tol_residual; /**< dt * max_I |R_I| / m_I (potential units) */
    double newton_tol_update;   /**< max_I |delta phi_I| */
    int newton_max_iter;
    int threads;            /**< OpenMP threads for the CPU backend, 0 = all */
    int dt_retry;           /**< a failed step is retried with up to 2^dt_retry substeps */
    hs_spmv_params spmv_params; /**< section spmv: tunables of the SpMV formats */
    char precond[16];       /**< solver.precond: a name of solvers/hs_precond_list.h */
    char krylov[16];        /**< solver.krylov: a name of solvers/hs_krylov_list.h */
    int sai_level;          /**< solver.sai_level: SAI/FSAI pattern of A^k */
    int precond_reuse;      /**< solver.precond_reuse: solves a computed SAI/FSAI serves */

    /* output */
    int output_enabled;
    char out_format[32];    /**< a format of output/hs_series_list.h */
    char out_dir[HS_PATH_MAX];
    char out_prefix[64];
    double out_interval;    /**< ms between frames */
    hs_cfg_names out_fields; /**< output.fields: state fields of the model, V, fiber, region */
    double checkpoint_interval;  /**< ms between checkpoints, 0 = off */
    int checkpoint_keep;         /**< checkpoints kept */
    double activation_threshold; /**< mV */
    double repol_threshold;      /**< mV: output.repol_threshold */

    /* probes: V(t) at the nearest node */
    hs_point_list probes;
    double probe_interval;       /**< ms, 0 = every step */
    /* pseudo-ECG */
    hs_point_list electrodes;
    char ecg_leads[1024];        /**< "A-B, C-D": leads as differences of electrodes */
    double ecg_sigma_b;          /**< bath conductivity, S/m */
    double ecg_chi;              /**< surface-to-volume ratio, 1/cm */
    double ecg_c_m;              /**< membrane capacitance, uF/cm^2 */
    double ecg_interval;         /**< ms, 0 = output.interval */
} hs_config;

/** @brief Fill every key with its default. */
void hs_config_defaults(hs_config *cfg);
/** @brief A regions entry with every key at its default (d_iso, d_ani unset: -1). */
void hs_config_region_defaults(hs_region_cfg *r);

/**
 * @brief Load a libconfig file, apply "key=value" overrides (in order, after the file), validate.
 * Errors (HS_ERR_CONFIG) read like `run.cfg:12: solver.spmv: unknown kernel "x"; available: ...`:
 * syntax errors, unknown keys (with the nearest valid key suggested), wrong types, out of range values,
 * a dt that makes the tangent indefinite, a missing mesh file.
 * @param[in] path config file; @param[in] overrides "section.key=value" strings (may be NULL);
 * @param[in] n_overrides count; @param[out] cfg resolved configuration.
 */
hs_status hs_config_load(const char *path, const char *const *overrides, int n_overrides,
                         hs_config *cfg);

/** @brief Validate ranges and cross-key constraints of an already-filled config. */
hs_status hs_config_validate(const hs_config *cfg);

/** @brief Print the fully resolved configuration in libconfig syntax (loadable again). */
void hs_config_print(const hs_config *cfg, FILE *f);

/** @brief output.fields when not given, for model @p m: its potential, V, activation, its variables, fiber. */
hs_cfg_names hs_config_default_fields(const hs_model *m);

/** @brief Print the key reference (markdown table: key, type, unit, default, range, meaning). */
void hs_config_print_reference(FILE *f);

#ifdef __cplusplus
}
#endif
#endif
