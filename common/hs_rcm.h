/**
 * @file hs_rcm.h
 * @brief Reverse Cuthill-McKee numbering of the node graph of tetrahedra (George & Liu 1981,
 * sections 4.3-4.4): the whole mesh's reordering (meshes/mesh_reorder.c, mesh.reorder = "rcm") and a
 * rank's part of a mesh (parallel/partition.c, hs_part_local_rcm_key) share it. It lives in common/
 * because both layers call it and it needs no mesh type: only the elements' node indices.
 */
#ifndef HS_RCM_H
#define HS_RCM_H

#include <stdint.h>

#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief The reverse Cuthill-McKee number of each node of the graph of @p tets [n_elems][4] (nodes
 * i, j adjacent when an element holds both): each connected piece numbered from a pseudo-peripheral
 * node (FNROOT), a node's unnumbered neighbours by increasing degree, then label, the whole order
 * reversed. Nodes in no element are pieces of their own. Deterministic: a function of the elements
 * alone (their order sets the first-touch labels the search runs on, so it is part of the input).
 * @param[in] n nodes; @param[in] n_elems, tets elements (borrowed; every index in [0, n):
 * HS_ERR_INTERNAL otherwise); @param[out] newid [n] the new number of each node, a permutation of
 * [0, n) (caller's).
 */
hs_status hs_rcm_tets(int32_t n, int32_t n_elems, const int32_t *tets, int32_t *newid);

#ifdef __cplusplus
}
#endif
#endif
