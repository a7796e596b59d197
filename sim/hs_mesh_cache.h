/**
 * @file hs_mesh_cache.h
 * @brief The mesh cache: a mesh built by hs_mesh_build (after fibres and reordering) stored as one
 * file DIR/mesh_KEY.hsmesh, so that a later run with the same mesh-defining spec skips the meshing
 * (TetGen: most of the set-up of a large ventricle). KEY is the fingerprint of the mesh spec
 * (hs_mesh_cache_key). Files are written atomically (temporary, fsync, rename) and checked on load
 * like a checkpoint: magic, byte order, version, header checksum, key, sizes, file size, payload
 * checksum, then hs_mesh_check. Format (native byte order), version 1:
 *
 *   header: magic "HSMESH1\n", version, endian, key, n_nodes, n_elems, n_bfaces, n_labels, flags
 *   (bit 0: fibres present), payload_bytes, payload_sum (FNV-1a 64), header_sum (FNV-1a 64 of
 *   the bytes before it): 12 x 8 bytes; payload: xyz [n_nodes][3] f64, tets [n_elems][4] i32,
 *   region [n_elems] i32, fiber [n_elems][3] f64 (flag), node_orig [n_nodes] i32, bface
 *   [n_bfaces][3] i32, bface_label [n_bfaces] i32, labels [n_labels] (i32 id + 48-byte name), and
 *   the build report (hs_mesh_cache_info) for the log and `heartsim mesh`.
 *
 * The partitioned cache (mesh.cache_parts): a distributed run whose rank 0 reads the mesh and sends
 * each rank its part (sim/hs_mesh_part.h, hs_mesh_part_scatter) stores every rank's part as its own
 * file, DIR/mesh_KEY_PARTITIONER_nP/part_R.hspart (KEY the mesh's key as above, P the rank count, R
 * the rank), so that a rerun with the same mesh spec, input files, partitioner and rank count has each
 * rank read its own part and skips reading, partitioning and scattering. Checked on load like an
 * entry, and across the ranks: every rank's file of the same store (a stamp rank 0 draws), the owned
 * nodes adding up to the mesh's. Format version 1, native byte order:
 *
 *   header: magic "HSPART1\n", version, endian, key, parts key (key, partitioner, rank count), stamp,
 *   rank, ranks, n_global, n_elems_global, fingerprint, n_nodes, n_elems (the part's), flags (bit 0:
 *   fibres), payload_bytes, payload_sum, header_sum: 17 x 8 bytes; payload: node_gid [n_nodes] i64,
 *   owner [n_nodes] i32, node_orig [n_nodes] i32, xyz [n_nodes][3] f64, elem_gid [n_elems] i64
 *   (the view's order), tets [n_elems][4] i32 (the part's node indices), region [n_elems] i32, fiber
 *   [n_elems][3] f64 (flag), the build report.
 */
#ifndef HS_MESH_CACHE_H
#define HS_MESH_CACHE_H

#include <stdint.h>

#include "hs_mesh_build.h"
#include "hs_stimulus.h"

struct hs_backend_mpi_part; /* backends/mpi/hs_backend_mpi.h */

#ifdef __cplusplus
extern "C" {
#endif

#define HS_MESH_CACHE_VERSION 1u

/**
 * @brief The cache key of @p spec: FNV-1a 64 of every field that shapes the mesh or its fibres
 * (source, box, quality, dihedral bound, file and scale, welding, quadratic policy, reorder, LV
 * geometry and helix, fibre kind, direction, file and location), of the contents of the input files
 * the spec names (mesh.file, fibers.file: the same path with another content is another mesh), of
 * the cache format and of the heartsim version (another TetGen or generator may mesh differently).
 * HS_ERR_IO when a named file cannot be read (the build then reports it properly).
 */
hs_status hs_mesh_cache_key(const hs_mesh_spec *spec, uint64_t *key);

/** @brief DIR/mesh_KEY.hsmesh (KEY: 16 hex digits). */
void hs_mesh_cache_path(const char *dir, uint64_t key, char *buf, size_t size);

/**
 * @brief Load the entry of @p key from @p dir. HS_OK with *out set; HS_ERR_IO with *out NULL and
 * @p absent = 1 when there is none (no message recorded); otherwise (absent = 0) the entry is damaged
 * or of another key, with the file and the reason in the message: never trusted.
 * @param[out] info filled from the stored report (may be NULL).
 */
hs_status hs_mesh_cache_load(const char *dir, uint64_t key, hs_mesh **out, hs_mesh_build_info *info, int *absent);

/** @brief Store @p m and @p info as the entry of @p key in @p dir (created with its parents), atomically. */
hs_status hs_mesh_cache_store(const char *dir, uint64_t key, const hs_mesh *m, const hs_mesh_build_info *info);

#define HS_MESH_PARTS_VERSION 1u

/**
 * @brief Why the partitioned cache cannot hold a run with these stimulus sites and regions (a
 * sentence), or NULL when it can: its ranks find box and sphere sites on their parts; surface and
 * node-list sites and regions are found on the whole mesh, which a run from the cache never holds.
 */
const char *hs_mesh_cache_parts_unfit(const hs_stimulus_cfg *sites, int n_sites, int n_regions);

/** @brief DIR/mesh_KEY_PARTITIONER_nP, the directory of a partitioned entry. */
void hs_mesh_cache_parts_path(const char *dir, uint64_t key, const char *partitioner, int n_ranks, char *buf,
                              size_t size);

/**
 * @brief Every rank loads its part of @p spec's mesh partitioned by @p partitioner over the run's ranks
 * (collective). *hit = 1: each rank's part, view, mesh and stimulus sites in @p part (as
 * hs_mesh_part_box gives them), the whole mesh's counts and fingerprint in @p counts, the sites
 * without elements in @p site_set, the stored build report in @p info (from_cache = 2, cache_path the
 * entry). *hit = 0 and HS_OK: no usable entry, nothing allocated: absent (said once: a changed input
 * file is another key, so a stale entry is never found), or damaged,
 * incomplete or mixed (said once, by rank 0, with the first failing rank's reason: "rebuilding it").
 * An error (memory; a site that covers no element) is every rank's, agreed.
 */
hs_status hs_mesh_cache_parts_load(const hs_mesh_spec *spec, const char *partitioner, const hs_stimulus_cfg *sites,
                                   int n_sites, struct hs_backend_mpi_part *part, hs_mesh **counts,
                                   hs_stim_set **site_set, hs_mesh_build_info *info, int *hit);

/**
 * @brief Every rank stores its part (@p part's view and local mesh) as the entry of @p spec,
 * @p partitioner and the run's rank count (collective), with the whole mesh's @p n_elems_global and
 * @p fingerprint and rank 0's build report @p info. A cache that cannot be written is a warning, said
 * once (the run goes on); @p path gets the entry's directory when stored, "" otherwise.
 */
hs_status hs_mesh_cache_parts_store(const hs_mesh_spec *spec, const char *partitioner,
                                    const struct hs_backend_mpi_part *part, int64_t n_elems_global,
                                    uint64_t fingerprint, const hs_mesh_build_info *info, char *path, size_t size);

#ifdef __cplusplus
}
#endif
#endif
