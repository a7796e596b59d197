/**
 * @file hs_mesh_build.h
 * @brief The mesh of a simulation, built once for `heartsim run` and `heartsim mesh` alike from a
 * plain spec: source (a registry entry: box, TetGen files, volume mesh file, surface meshed by
 * TetGen, built-in ventricle), units, element checks, fibres, locality reordering.
 */
#ifndef HS_MESH_BUILD_H
#define HS_MESH_BUILD_H

#include "hs_lv.h"
#include "hs_mesh.h"
#include "hs_registry.h"
#include "hs_surface.h"
#include "hs_util.h"

#ifdef __cplusplus
extern "C" {
#endif


/** fibers.type. */
typedef enum hs_fiber_kind {
    HS_FIBERS_AUTO = 0,  /**< the source's rule: ellipsoid for the LV, the file's own, else constant */
    HS_FIBERS_CONSTANT,
    HS_FIBERS_ELLIPSOID, /**< the LV's rule-based helix (mesh source ellipsoid_lv only) */
    HS_FIBERS_FILE,      /**< one vector per element or node from a text file */
    HS_FIBERS_MESH       /**< as stored in the mesh file */
} hs_fiber_kind;

typedef struct hs_mesh_spec hs_mesh_spec;

/** What building the mesh found out on the way (for the `heartsim mesh` report). */
typedef struct hs_mesh_build_info {
    int have_surface;            /**< a surface source: the report below is filled */
    hs_surface_report surface;   /**< what hs_surface_check found and fixed */
    double expected_volume;      /**< mm^3: the analytic wall (ellipsoid_lv), the surface's enclosed
                                      volume (surface), the box's; 0 when unknown (file, tetgen) */
    const char *expected_what;   /**< what expected_volume is, for the report */
    char fibers[160];            /**< how the fibres were assigned, one line */
    hs_reorder_report reorder;   /**< bandwidth and profile before and after reordering */
    double seconds_mesh;         /**< wall time of reading / meshing (up to the checks); from the
                                      cache: the time the stored build took */
    double seconds_check;        /**< wall time of hs_mesh_check (orientation, volumes, quality) */
    double seconds_fibers;       /**< wall time of assigning the fibres */
    double seconds_reorder;      /**< wall time of the node reordering (mesh.reorder) */
    int from_cache;              /**< 1: loaded from the mesh cache (cache_path), nothing meshed; 2: each
                                      rank loaded its part from the partitioned mesh cache (cache_path) */
    char cache_path[HS_PATH_MAX + 64]; /**< the cache entry used or written; "" when none */
} hs_mesh_build_info;

/** A mesh source (mesh.source): the registry entry. First member the name (hs_registry). */
typedef struct hs_mesh_source {
    const char *name;        /**< "box", "tetgen", "file", "surface", "ellipsoid_lv" */
    const char *summary;
    int reads_file;          /**< 1: spec->file names its input (mesh.file is required) */
    hs_fiber_kind auto_fibers; /**< what fibers.type = "auto" means: the ellipsoid rule (the LV, the
                                    only source it applies to), the file's own when it has some (else
                                    constant), or constant */
    /** Build the mesh in mm (before checks, fibres, reordering); fill what @p info asks. */
    hs_status (*build)(const hs_mesh_spec *spec, hs_mesh **out, hs_mesh_build_info *info);
} hs_mesh_source;

/** The mesh sources as a registry (what = "source"). */
const hs_registry *hs_mesh_sources(void);

/** Everything the mesh pipeline needs; app/ fills it from mesh.* and fibers.*. */
struct hs_mesh_spec {
    const hs_mesh_source *source;
    hs_box_params box;            /**< slab extent, h, generator, quality (h and quality serve all sources) */
    double min_dihedral;          /**< TetGen dihedral bound, degrees, 0 = none */
    char file[HS_PATH_MAX];  /**< input file (tetgen: the prefix of .node/.ele) */
    double scale;                 /**< file units times this = mm */
    double weld_tol;              /**< STL welding distance, mm; 0 = automatic */
    char label_array[64];         /**< .vtp: the CellData array of facet labels ("": the usual names) */
    int linearize;                /**< quadratic tetrahedra: 1 linearise, 0 refuse */
    hs_reorder_kind reorder;
    hs_lv_params lv;              /**< LV geometry and helix angles (h, radius_edge, min dihedral from above) */
    hs_fiber_kind fibers;
    double fiber_dir[3];
    char fiber_file[HS_PATH_MAX];
    char fiber_location[16];      /**< "auto" | "element" | "node" (hs_fibers_read's own words) */
    int cache;                    /**< 1: use the mesh cache (sim/hs_mesh_cache.h) for sources that mesh */
    char cache_dir[HS_PATH_MAX];  /**< its directory ("": no cache) */
    int cache_parts;              /**< 1: a distributed run keeps each rank's part there (mesh.cache_parts) */
};

/**
 * @brief Build the mesh: source, scale (files), hs_mesh_check, fibres (before reordering, so
 * per-element fibre files match the source's element order), reordering. Logs one line per stage
 * (hs_log level 1). With spec->cache, a source that meshes (TetGen: surface, ellipsoid_lv, box
 * with mesh.generator = "tetgen") is first looked up in the mesh cache and stored there after a
 * build; a damaged entry is reported and rebuilt, and a cache that cannot be written is a warning.
 * @param[out] out new mesh (hs_mesh_destroy); @param[out] info may be NULL.
 */
hs_status hs_mesh_build(const hs_mesh_spec *spec, hs_mesh **out, hs_mesh_build_info *info);

/**
 * @brief hs_mesh_build for a distributed run: rank 0 builds the mesh (reading the file, meshing,
 * the mesh cache, fibres, reordering) and broadcasts it (in pieces of at most 1 GiB) with @p info;
 * the other ranks build nothing. Rank 0's failure is every rank's (one message). Collective; a
 * plain hs_mesh_build outside mpirun or on one rank.
 * @param[out] out new mesh on every rank; @param[out] info every rank (expected_what NULL but on 0).
 */
hs_status hs_mesh_build_bcast(const hs_mesh_spec *spec, hs_mesh **out, hs_mesh_build_info *info);

#ifdef __cplusplus
}
#endif
#endif
