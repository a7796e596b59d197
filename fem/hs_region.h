/**
 * @file hs_region.h
 * @brief Heterogeneous tissue (`regions` in the config): which elements each region entry selects,
 * and what the element kernels read per element.
 *
 * An entry selects elements (by centroid, like the stimulus sites):
 *  - attribute: the mesh's region marker (TetGen attribute, Gmsh physical group, VTK cell data) equals
 *    `attribute`;
 *  - box, sphere: the centroid lies inside;
 *  - surface: the centroid lies within `distance` mm of a boundary triangle carrying `label`
 *    (distance to the triangle, not to its plane);
 *  - elements: an element listed in a file (one number per line, '#' comments), numbered as the
 *    mesh file numbers its elements (hs_mesh_elem_name: TetGen's base, Gmsh tags, VTK cell index;
 *    the element index for generated meshes).
 * It sets the conductivities (d_iso, d_ani; either may be left unset = unchanged) and any of the
 * model's parameters. Entries apply in order, so later entries win key by key. An element's
 * effective values are one row of a small table (distinct combinations only); the kernels read
 * `tab[elem_tab[e]]`. With a single row (no regions, or regions that change nothing) elem_tab is
 * NULL and the kernels take the uniform parameters: the uniform run is unchanged, bit for bit.
 *
 * Non-conducting tissue (d_iso = d_ani = 0, "scar") is a hole in the tissue: its elements carry no
 * diffusion, no ionic current and no capacitive term (km = rm = 0), their model variables stay at
 * their initial values, and the nodes that touch only such elements ("decoupled nodes") are removed
 * from the linear system by a unit diagonal in K_D (so the system stays SPD: docs/verification.md).
 * The conducting nodes on its border see a no-flux boundary, as at the mesh's outer surface.
 */
#ifndef HS_REGION_H
#define HS_REGION_H

#include <stddef.h>
#include <stdint.h>

#include "hs_mesh.h"
#include "hs_model.h"
#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Selectors, in the order of the config's choices (regions.[i].select). */
typedef enum hs_region_select {
    HS_REGION_ATTRIBUTE = 0,
    HS_REGION_BOX = 1,
    HS_REGION_SPHERE = 2,
    HS_REGION_SURFACE = 3,
    HS_REGION_ELEMENTS = 4
} hs_region_select;

#define HS_REGION_PATH_MAX 4096
#define HS_REGION_NAME_LEN 48
/** Largest number of region entries, and of distinct parameter rows. */
#define HS_MAX_REGIONS 64
#define HS_REGION_MAX_ROWS 65535

/** One region entry as configured. */
typedef struct hs_region_cfg {
    hs_region_select select;
    char name[HS_REGION_NAME_LEN];   /**< for messages and the log ("" : "regions.[i]") */
    int attribute;                   /**< attribute: the mesh's region marker */
    double min[3], max[3];           /**< box, mm */
    double center[3], radius;        /**< sphere, mm */
    char label[HS_MESH_LABEL_LEN];   /**< surface: boundary label name or marker number */
    double distance;                 /**< surface: mm from the labelled triangles */
    char file[HS_REGION_PATH_MAX];   /**< elements: element list file */
    double d_iso, d_ani;             /**< mm^2/ms; < 0: not set (keep) */
    int n_params;                    /**< model parameters this entry sets */
    int param_index[HS_MODEL_MAX_PARAMS]; /**< into the selected model's params */
    double param_value[HS_MODEL_MAX_PARAMS];
} hs_region_cfg;

/** One row of the per-element table: what an element's kernel needs. */
typedef struct hs_region_row {
    hs_model_params prm;  /**< the model's parameters */
    double d_iso, d_ani;  /**< mm^2/ms */
    int conducting;       /**< 0: d_iso = d_ani = 0, a passive hole (km = rm = 0) */
} hs_region_row;

/** The regions of a run on one mesh (element numbering final). */
typedef struct hs_region_set {
    int n_entries;
    int n_rows;              /**< rows of tab (1 when the tissue is uniform) */
    hs_region_row *tab;      /**< [n_rows]; row 0 = the elements no entry changes (or the first
                                  combination met when every element is changed) */
    uint16_t *elem_tab;      /**< [n_elems] row of each element; NULL when n_rows == 1 and the row
                                  conducts (the uniform fast path) */
    int32_t *elem_entry;     /**< [n_elems] last entry (1-based) selecting the element, 0 none */
    int32_t *entry_count;    /**< [n_entries] elements each entry selects */
    double *entry_volume;    /**< [n_entries] their volume, mm^3 */
    int32_t n_passive;       /**< non-conducting elements */
    int32_t n_decoupled;     /**< nodes touching only non-conducting elements */
    uint8_t *decoupled;      /**< [n_nodes] 1 for those nodes; NULL when none */
} hs_region_set;

/**
 * @brief Select the elements of each entry and build the table.
 * @param[in] m mesh (borrowed, final numbering); @param[in] cfg [n] entries (copied where needed);
 * @param[in] base the model parameters and conductivities without regions (d in mm^2/ms).
 * Errors (HS_ERR_CONFIG) name the entry: an unknown label (listing the mesh's labels), an unreadable
 * or malformed element file (file:line), an element number the mesh does not have, every element
 * non-conducting. An entry that selects nothing is a warning naming it.
 */
hs_status hs_region_set_create(const hs_mesh *m, const hs_region_cfg *cfg, int n, const hs_model_params *base,
                               double d_iso, double d_ani, hs_region_set **out);
/**
 * @brief hs_region_set_create on a part of a mesh (a rank's elements, parallel.partition = "box"):
 * the same selection element by element (selectors that read the element alone: attribute, box,
 * sphere), without what needs the whole mesh: no warning for an entry that selects nothing here, no
 * refusal of a part without a conducting element; the caller says both from the sums over the
 * ranks. Its table is the part's own (sim/mesh_part.c makes it the whole mesh's).
 */
hs_status hs_region_set_create_part(const hs_mesh *m, const hs_region_cfg *cfg, int n, const hs_model_params *base,
                                    double d_iso, double d_ani, hs_region_set **out);
void hs_region_set_destroy(hs_region_set **p);

/** @brief "regions.[i]" or "regions.[i] (name)" for messages. */
void hs_region_entry_name(const hs_region_cfg *cfg, int i, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
