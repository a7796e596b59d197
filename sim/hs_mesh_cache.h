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
 */
#ifndef HS_MESH_CACHE_H
#define HS_MESH_CACHE_H

#include <stdint.h>

#include "hs_mesh_build.h"

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

#ifdef __cplusplus
}
#endif
#endif
