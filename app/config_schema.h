/**
 * @file config_schema.h
 * @brief Private to app/: the table of configuration keys (app/config_schema.c) that the loader,
 * the validator, the printer and the reference generator (docs/config.md) all read.
 *
 * One row per key: its path, type, default, range, unit, meaning and where the value lives in
 * hs_config. Keys inside a stimulus group have paths "stimulus.[i].<name>" and live in
 * hs_stimulus_cfg; keys of a regions entry "regions.[i].<name>" in hs_region_cfg; every other key is "<section>.<name>" and lives in hs_config.
 */
#ifndef HS_CONFIG_SCHEMA_H
#define HS_CONFIG_SCHEMA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hs_cfg_type {
    HS_CFG_FLOAT,    /**< double; integers are accepted */
    HS_CFG_INT,      /**< int; floats are refused */
    HS_CFG_BOOL,     /**< int 0/1; only true/false accepted */
    HS_CFG_STRING,   /**< char[size] */
    HS_CFG_ENUM,     /**< string among `choices`; char[size], or the choice index as int when size == 0 */
    HS_CFG_VEC3,     /**< double[3]; an array [x, y, z] or a list (x, y, z) of numbers */
    HS_CFG_STRLIST,  /**< list of strings among `choices`, each once, stored as hs_cfg_names (in the order given) */
    HS_CFG_GROUPLIST, /**< a list of groups (stimulus, regions): ( { ... }, { ... } ) */
    HS_CFG_GROUP     /**< a group of named values read by its own code (regions.[i].model) */
} hs_cfg_type;

/** Flags of a key. */
enum {
    HS_CFG_MIN_CLOSED = 1 << 0, /**< value >= min */
    HS_CFG_MIN_OPEN = 1 << 1,   /**< value > min */
    HS_CFG_MAX_CLOSED = 1 << 2, /**< value <= max */
    HS_CFG_MAX_OPEN = 1 << 3,   /**< value < max */
    HS_CFG_STIMULUS = 1 << 4,   /**< key of a stimulus group; off is into hs_stimulus_cfg */
    HS_CFG_NONEMPTY = 1 << 5,   /**< string must not be empty */
    HS_CFG_FILENAME = 1 << 6,   /**< string of [A-Za-z0-9_.-] only (used in file names) */
    HS_CFG_NONZERO = 1 << 7,    /**< vec3 must not be (0, 0, 0) */
    HS_CFG_CONFIG_PATH = 1 << 8, /**< relative path resolved against the config file's directory
                                     (against the current directory when it comes from --set) */
    HS_CFG_DOUBLE = 1 << 9,      /**< BOOL stored as a double 0.0/1.0 (a model's switch parameter) */
    HS_CFG_REGION = 1 << 10,     /**< key of a regions entry; off is into hs_region_cfg */
    HS_CFG_POINT = 1 << 11       /**< key of a point-list entry (probes.points, ecg.electrodes); off is
                                      into hs_point_cfg. The list's own row (a GROUPLIST with a '.' in
                                      its path) has off = the hs_point_list in hs_config */
};

/** One configuration key. */
typedef struct hs_cfg_key {
    const char *path;      /**< "time.dt", "stimulus.[i].start" */
    hs_cfg_type type;
    unsigned flags;
    double min, max;       /**< bounds, used per the HS_CFG_MIN_* / HS_CFG_MAX_* flags */
    double def_num;        /**< default of FLOAT, INT, BOOL */
    double def_vec[3];     /**< default of VEC3 */
    const char *def_str;   /**< default of STRING, ENUM; STRLIST: comma-separated choices */
    const char *def_doc;   /**< default column text when there is no default (e.g. "required for box") */
    const char *choices;   /**< ENUM, STRLIST: allowed values separated by '|', in storage order */
    const char *shape;     /**< stimulus key valid (and required) only for this shape, or NULL */
    const char *shape_opt; /**< a further shape for which the key is allowed but optional, or NULL */
    const char *unit;      /**< "ms", "mm", "1" (dimensionless number), "-" (not a number) */
    const char *meaning;   /**< one line */
    size_t off;            /**< offset of the value in hs_config (hs_stimulus_cfg with HS_CFG_STIMULUS) */
    size_t size;           /**< storage size: char arrays' capacity; 0 for an ENUM stored as int */
    const char *model;     /**< a model's parameter: the model's name (the key applies only when
                                model.type selects it); NULL otherwise */
} hs_cfg_key;

/** The keys, in the order of docs/config.md and of hs_config_print: the static rows of
 *  config_schema.c with every model's parameters after model.type (built on first use). */
const hs_cfg_key *hs_cfg_keys(void);
/** Number of rows of hs_cfg_keys(). */
int hs_cfg_nkeys(void);

#ifdef __cplusplus
}
#endif
#endif
