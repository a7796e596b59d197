/**
 * @file hs_hash.h
 * @brief FNV-1a 64-bit hashing: checksums of checkpoint files and mesh cache entries, the mesh
 * cache's key and the config fingerprints of a checkpoint. Not cryptographic: it detects damage and
 * tells inputs apart, it does not resist someone crafting a collision.
 */
#ifndef HS_HASH_H
#define HS_HASH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** FNV-1a 64 offset basis: the @p h to start a hash with. */
#define HS_FNV_OFFSET 0xcbf29ce484222325ull

/** @brief FNV-1a 64 of @p n bytes at @p data, continuing from @p h (start with HS_FNV_OFFSET). */
uint64_t hs_fnv1a64(uint64_t h, const void *data, size_t n);

#ifdef __cplusplus
}
#endif
#endif
