/**
 * @file hs_surface.h
 * @brief Closed triangle (or polygon) surfaces read from STL, OFF, PLY, XML VTK .vtp and TetGen .poly/.smesh, the
 * checks a surface must pass before TetGen meshes it, and the fixes that are safe to make.
 *
 * Units: whatever the file holds times the scale given to the reader (mesh.scale), so mm after
 * reading (region volume bounds are scaled by scale^3). Facets are polygons (triangles from
 * STL/PLY/OFF, any polygon from OFF/PLY/.poly/.smesh), stored CSR-like; points are 0-based whatever
 * the file's numbering. Facet markers (from .poly/.smesh, or 0) become boundary labels of the
 * volume mesh. Messages about facets and points give 0-based indices in file order (as
 * hs_mesh_check does for elements) plus coordinates, since the two conventions differ by format.
 *
 * Formats (meshes/surface_*.c):
 * - STL: ASCII ("solid" ... "endsolid", keywords case-insensitive) or binary (80-byte header,
 *   uint32 count, 50 bytes per triangle). Binary when the size is 84 + 50 n, or when the file does
 *   not start with "solid", or when its first bytes hold a NUL (binary headers often say "solid"
 *   too). Duplicated vertices are welded (see hs_surface_read_stl); triangles that welding
 *   collapses (two corners closer than the tolerance) are dropped with a warning.
 * - OFF: optional [ST][C][N]OFF keyword (counts may follow it on the same line), "#" comments,
 *   faces "n i1 .. in" (n >= 3) with any trailing colour fields ignored.
 * - PLY: ascii or binary_little_endian (binary_big_endian is refused); element "vertex" with
 *   scalar x, y, z of any numeric type, element "face" with a list "vertex_indices" (or
 *   "vertex_index") of integers; other properties and elements are skipped.
 * - TetGen .poly (points inline, or in PREFIX.node when part 1 declares 0 points; facets of one or
 *   more polygons, each polygon stored as its own facet with the facet's marker; volume holes;
 *   regions "index x y z attribute [max volume]"), and .smesh (facets "n i1 .. in [marker]").
 *   Facet holes are refused (split such a facet into polygons without holes); polygons of 1 or 2
 *   corners (TetGen's in-facet constraints) are skipped with a warning.
 */
#ifndef HS_SURFACE_H
#define HS_SURFACE_H

#include <stdint.h>

#include "hs_registry.h"
#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hs_surface {
    int32_t n_points;
    double *xyz;          /**< [n_points][3], mm (scaled) */
    int32_t n_facets;
    int32_t *facet_ptr;   /**< [n_facets+1] offsets into facet_idx */
    int32_t *facet_idx;   /**< 0-based point indices of each facet polygon (>= 3 each) */
    int32_t *facet_marker;/**< [n_facets] boundary marker, 0 when the file has none */
    int32_t n_holes;
    double *holes;        /**< [n_holes][3] a point inside each hole (.poly/.smesh) */
    int32_t n_regions;
    double *regions;      /**< [n_regions][5] x, y, z, region attribute, max volume in mm^3
                               (<= 0: none) */
    int32_t n_points_welded; /**< STL: vertices merged into an existing point by welding (0 for
                                  other formats); hs_surface_check copies it into the report */
} hs_surface;

/** What hs_surface_check found and fixed. */
typedef struct hs_surface_report {
    int32_t n_points, n_facets;
    int32_t n_points_welded;   /**< points merged by the STL welding (reader), informational */
    int32_t n_unused_points;   /**< points referenced by no facet (kept; TetGen ignores them) */
    int32_t n_components;      /**< edge-connected shells */
    int32_t n_flipped;         /**< facets reoriented to agree with their neighbours */
    int32_t n_shells_inverted; /**< shells turned inside out to face outwards (nested shells: the
                                    outermost faces out, the next one in, ...) */
    double area;               /**< mm^2 */
    double volume;             /**< enclosed volume, mm^3 (after orientation fixes, > 0) */
    double bbox_min[3], bbox_max[3];
} hs_surface_report;

/**
 * @brief Read a surface, choosing the format by extension: .stl (ASCII or binary, detected by
 * content), .off, .ply (ASCII or binary little-endian), .poly, .smesh (TetGen).
 * @param[in] path file; @param[in] scale factor applied to coordinates (> 0: 10 for cm, 1000
 * for m);
 * @param[in] weld_tol STL only: points closer than weld_tol (after scaling, mm) are one point
 * (<= 0: 1e-6 of the bounding-box diagonal); @param[out] out new surface (hs_surface_destroy).
 * The extension is matched case-insensitively against meshes/hs_surface_reader_list.h; an unknown
 * one is an error naming the file and listing the known ones.
 * Errors (HS_ERR_MESH) name the file and line (text) or byte offset / triangle (binary).
 * The reader checks syntax and index ranges only: call hs_surface_check before meshing.
 */
hs_status hs_surface_read(const char *path, double scale, double weld_tol, hs_surface **out);

/** How to read a surface, beyond its path and scale. Zero-initialised: the defaults. */
typedef struct hs_surface_read_opts {
    double weld_tol;         /**< STL: as for hs_surface_read; other formats ignore it */
    const char *label_array; /**< formats with named cell arrays (.vtp): the CellData array holding the
                                  facet labels (mesh.label_array); NULL or "": the usual region names */
} hs_surface_read_opts;

/**
 * @brief hs_surface_read with options: @p o->label_array names the cell array of facet labels; a
 * format without named arrays refuses a name (HS_ERR_CONFIG naming mesh.label_array), and the .vtp
 * reader refuses one it does not find, listing the arrays the file has. @p o may be NULL.
 */
hs_status hs_surface_read_with(const char *path, double scale, const hs_surface_read_opts *o, hs_surface **out);

/** A surface reader as listed: reads @p path (a file name with the reader's extension) with @p o
 *  (never NULL here). */
typedef hs_status hs_surface_reader_fn(const char *path, double scale, const hs_surface_read_opts *o,
                                       hs_surface **out);

/** An entry of the surface reader table (one per line of meshes/hs_surface_reader_list.h). */
typedef struct hs_surface_reader {
    const char *name;          /**< extension with its dot, lower case: ".stl" (first member: hs_registry) */
    hs_surface_reader_fn *read;
    const char *summary;       /**< the format, one line */
    int label_arrays;          /**< 1: facet labels from the cell array o->label_array names */
} hs_surface_reader;

/** @brief The table of surface readers by extension (entries hs_surface_reader), static storage;
 *  look names up with hs_registry_find (exact, lower case) or list them with hs_registry_names. */
const hs_registry *hs_surface_readers(void);

/**
 * @brief STL, ASCII or binary. STL stores each triangle's corners separately, so corners closer
 * than @p weld_tol (mm, after scaling; <= 0: 1e-6 of the bounding-box diagonal) become one point,
 * found through a hash grid of cell size >= weld_tol (O(n)); the merged count is logged (level 1)
 * and kept in n_points_welded.
 */
hs_status hs_surface_read_stl(const char *path, double scale, double weld_tol, hs_surface **out);
/** @brief Geomview OFF (and COFF/NOFF/STOFF headers); polygon faces kept as they are. */
hs_status hs_surface_read_off(const char *path, double scale, hs_surface **out);
/** @brief PLY, ascii or binary_little_endian. */
hs_status hs_surface_read_ply(const char *path, double scale, hs_surface **out);
/** @brief TetGen .poly (points inline or in a .node beside it) or .smesh, chosen by extension. */
hs_status hs_surface_read_poly(const char *path, double scale, hs_surface **out);
/**
 * @brief XML VTK PolyData (.vtp): Polys as facets; the facet markers from the CellData array named
 * @p label_array (NULL or "": the first 1-component integral array with a region name: region,
 * regions, tag, material, elemTag, gmsh:physical, CellEntityIds). A named array that is missing,
 * has several components or is not integral is an error listing the file's CellData arrays; without
 * a name, CellData arrays none of which is taken are warned about (hs_warn), naming them and the
 * names read (or mesh.label_array).
 */
hs_status hs_surface_read_vtp(const char *path, double scale, const char *label_array, hs_surface **out);

/**
 * @brief Check that the surface can bound a volume, and fix what is safe to fix.
 * Errors (HS_ERR_MESH, naming @p path) for: out-of-range or repeated indices in a facet, degenerate
 * facets (zero area), open edges (count, and the first one with its two points' coordinates),
 * non-manifold edges (more than two facets), duplicate facets, zero enclosed volume.
 * Fixed and reported in @p rep: facets whose orientation disagrees with their neighbours
 * (made consistent per shell) and shells that face inwards (turned outwards). An edge shared by two
 * facets that traverse it in the same direction is what "inconsistently oriented" means.
 * Self-intersections are left to TetGen's own check (hs_tetgen_mesh_surface reports them).
 * Nesting (which shell lies inside which) is found with the generalised winding number of a
 * point of each shell with respect to the others, so a hollow body (a ventricle wall given as
 * outer and inner surface) ends with its outer shell facing out and its cavity facing in, and
 * volume = the enclosed solid (outer minus cavity). Facets are reoriented by reversing their
 * point order in place; nothing else changes. Prints nothing: the caller logs the report.
 * @param[in,out] s surface; @param[in] path named in messages; @param[out] rep (may be NULL).
 */
hs_status hs_surface_check(hs_surface *s, const char *path, hs_surface_report *rep);

/** Nodes above which hs_surface_size_check refuses (5e7 tetrahedra: about 11 GB and 5 minutes
 *  in TetGen, measured at 1.1 kB and 30 us per node). */
#define HS_SURFACE_MAX_NODES 1e7
/** Facets with a corner angle below this (degrees) are reported as slivers. */
#define HS_SURFACE_SLIVER_DEG 5.0

/**
 * @brief Nodes of heartsim's TetGen quality mesh of a checked surface at edge length @p h mm:
 * 1.95 V/h^3 + 5.4 A/h^2 + 1.7 n_points (volume, area and used points of @p rep), calibrated on
 * real surfaces to within a factor 1.8 (surface_size.c, docs/meshes.md); 0 when @p rep is NULL
 * or h or the volume is not positive.
 */
double hs_surface_estimate_nodes(const hs_surface_report *rep, double h);

/**
 * @brief Refuse (HS_ERR_MESH, naming @p path, the estimate, and the mesh.h that would fit, or
 * saying that the surface itself has too many points) when the estimate exceeds @p max_nodes
 * (<= 0: HS_SURFACE_MAX_NODES), before TetGen is started. @param[in] rep hs_surface_check's report.
 */
hs_status hs_surface_size_check(const char *path, const hs_surface_report *rep, double h,
                                double max_nodes);

typedef struct hs_surface_slivers_info {
    int32_t n_slivers;       /**< facets with a corner angle below the threshold */
    int32_t worst_facet;     /**< 0-based facet with the smallest angle (-1: no facets) */
    double worst_angle_deg;  /**< its smallest angle */
} hs_surface_slivers_info;

/** @brief Sliver facets: smallest corner angle below @p min_angle_deg (TetGen refines around them
 *  far beyond mesh.h, or fails on them). */
void hs_surface_slivers(const hs_surface *s, double min_angle_deg, hs_surface_slivers_info *out);

/** @brief Allocate a surface (arrays sized, contents zeroed). */
hs_status hs_surface_alloc(int32_t n_points, int32_t n_facets, int32_t n_facet_idx,
                           hs_surface **out);

/** @brief Free; accepts NULL and sets *s = NULL. */
void hs_surface_destroy(hs_surface **s);

#ifdef __cplusplus
}
#endif
#endif
