/**
 * @file hs_nodal.cuh
 * @brief Private to backends/cuda/ (CUDA-only header): the nodal ODE kernel of the operator-splitting
 * scheme (nodal.cu), compiled once per model of fem/models/hs_model_list.h (both kinds of line), as
 * the element kernel is. One thread per node holds the potential and the model's variables in
 * registers for all the substeps of a reaction step, so the state is read and written once per
 * reaction step, not once per substep.
 */
#ifndef HS_NODAL_CUH
#define HS_NODAL_CUH

#include <cstdint>

#include <cuda_runtime.h>

#include "hs_model.h"
#include "hs_region.h"
#include "hs_status.h"

/** One reaction step at every node (all device pointers; borrowed). */
struct hs_nodal_launch {
    int32_t n;                  /**< nodes */
    int64_t ld;                 /**< leading dimension of s (>= n) */
    const hs_model_params *prm; /**< host: the model (its id picks the kernel) and its parameters */
    const hs_region_row *rtab;  /**< region table, or NULL (uniform tissue: prm) */
    const uint16_t *ntab;       /**< [n] each node's row of rtab, or NULL; a non-conducting row's node is left
                                     as it is */
    const uint8_t *frozen;      /**< [n] 1: a decoupled node, left as it is (hs_nodal.frozen); NULL: none */
    double h;                   /**< substep, model time units */
    int nsub;                   /**< substeps (>= 1) */
    double *u;                  /**< [n] potential, updated in place */
    double *s;                  /**< [nv][ld] the model's variables, updated in place */
    const double *stim;         /**< [n] stimulus current per node (model units), or NULL: none */
    double *u0;                 /**< [n] receives u at the start, or NULL */
    double *s0;                 /**< [nv][ld] receives the variables at the start (with u0), or NULL */
    int *bad;                   /**< smallest node whose values became non-finite (atomicMin; the caller
                                     sets it to 0x7f7f7f7f), or NULL */
    const double *hn;           /**< device [2]: the substep and the substep count, read by the kernel in
                                     place of h and nsub (a graph replayed for steps whose h differs in its
                                     last bits: split_step.cu), or NULL: h, nsub */
    const double *vdev;         /**< device copy of prm->v, read by the substep loop (nsub > 1) in place of
                                     the kernel's own parameter copy, or NULL. A graph's kernel node keeps
                                     its parameters in memory compute-sanitizer does not know, so the loop's
                                     reads through their address (taken for the non-inlined loop) are reported
                                     out of bounds there; split_step.cu's graph passes this copy. */
};

/** @brief Enqueue the nodal kernel of model a->prm->id on @p s. HS_ERR_INTERNAL for a model not in
 *  this build or a variable count its kernel does not have. */
hs_status hs_cu_launch_nodal(const hs_nodal_launch *a, cudaStream_t s);

/** @brief Least bytes one reaction step moves per node: u and the nv variables read and written once,
 *  plus the start copies u0, s0 and the stimulus when they are used. */
static inline double hs_nodal_bytes_per_node(int nv, int with_start, int with_stim)
{
    return 8.0 * ((2.0 + (with_start ? 1.0 : 0.0)) * (1.0 + nv) + (with_stim ? 1.0 : 0.0));
}

#endif
