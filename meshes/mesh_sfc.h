/* Hilbert space-filling-curve keys and orders over node coordinates (internal to meshes/:
 * used by hs_mesh_reorder's HS_REORDER_SFC; exposed here so tests can check the curve itself). */
#ifndef HS_MESH_SFC_H
#define HS_MESH_SFC_H

#include <stdint.h>

#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Bits per axis of the keys hs_sfc_order uses: 3 * 21 = 63 bits fit in a uint64_t. */
#define HS_SFC_BITS 21

/**
 * @brief Hilbert index of the integer point (x, y, z) on a 2^bits grid per axis (bits 1..21):
 * cells with consecutive keys are face neighbours. Skilling's transpose algorithm ("Programming
 * the Hilbert curve", AIP Conf. Proc. 707, 2004), then the transposed bits interleaved.
 */
uint64_t hs_sfc_hilbert_key(uint32_t x, uint32_t y, uint32_t z, int bits);

/**
 * @brief New index of each point when points are sorted by the Hilbert key of their coordinates,
 * quantised to HS_SFC_BITS bits on the bounding cube of the points (the box's largest side on
 * every axis, so cells stay cubes and the curve's locality holds on elongated meshes).
 * Ties keep the input order. @param[in] xyz [n][3]; @param[out] newid [n] old -> new.
 */
hs_status hs_sfc_order(const double *xyz, int32_t n, int32_t *newid);

#ifdef __cplusplus
}
#endif
#endif
