/**
 * @file hs_fibers.h
 * @brief Fibre fields beyond the constant one: read from files (the ellipsoid rule is in hs_lv.h).
 */
#ifndef HS_FIBERS_H
#define HS_FIBERS_H

#include "hs_mesh.h"
#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Read fibres from a text file: optional openCARP .lon header line (1 or 2), then 3 (or 6:
 * fibre and sheet; sheet ignored) numbers per line, one line per element or per node in the
 * source numbering (mesh->node_orig). @p location "element", "node" or "auto" (by line count).
 * Per-node fibres become per-element ones: the normalised mean over the element's four nodes,
 * after flipping each to agree in sign with the first (a fibre is an axis, f and -f are the same).
 * Zero vectors are errors naming the line; an unknown @p location is HS_ERR_CONFIG listing the
 * names (`fibers.location: unknown fibre location "x"; available: element, node, auto`). NULL is
 * "auto".
 */
hs_status hs_fibers_read(hs_mesh *m, const char *path, const char *location);

#ifdef __cplusplus
}
#endif
#endif
