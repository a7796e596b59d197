/**
 * @file hs_split_rows.cuh
 * @brief Private to backends/cuda/ (CUDA-only header): the pieces of the splitting scheme's
 * diffusion (split.cu) that the same diffusion on one rank's partition (dist_split.cu) runs, with
 * its halo exchanges and sums between them. "rows": the owned rows [0, rows) of a partition's local
 * numbering (owned nodes first, ghosts after: hs_partition.h); a serial run's are every node.
 * The serial stream path is: prepare, enqueue_start, the CG, enqueue_finish, synchronise, result.
 */
#ifndef HS_SPLIT_ROWS_CUH
#define HS_SPLIT_ROWS_CUH

#include "cuda_backend.cuh"
#include "hs_split.cuh"

/** @brief Only nodes [0, @p n) react (a partition: the ghosts are their owners' to react; the halo of
 *  the diffusion brings their u); the nodes from @p n on are masked like decoupled nodes (the nodal
 *  kernel still saves their start). Before the first diffusion. */
hs_status hs_cu_split_react_rows(hs_backend *b, int32_t n);
/** @brief Before a diffusion over @p dt: the matrices when dt changed (host assembly, timed as
 *  assembly), the guess's weights to the device. */
hs_status hs_cu_split_prepare(hs_backend *b, double dt);
/* The diffusion's start over the owned rows: hs_cu_split_enqueue_start(c, rows) (cuda_backend.cuh):
 * r0 = C u* - A g and B u* over the whole local matrix (the caller has the ghosts of u* and of the
 * correction history), the block sums of ||r0||^2, ||B u*||^2 over rows [0, rows) into
 * hs_cu_split_norms' [0], [1] ([2], their ratio, is the caller's to form again after summing them
 * over the ranks). */
/** @brief The device norms [3]: ||r0||^2, ||B u*||^2, ||r0|| / ||B u*|| (what hs_cu_split_tol reads). */
double *hs_cu_split_norms(cuda_impl *c);
/* The CG's tolerance of a diffusion: hs_cu_split_tol (hs_split.cuh, included here). */
/** @brief Enqueue, after the CG: u = u* + g + d on rows [0, @p rows) when it converged on finite
 *  norms (g then holds the step's correction g + d there), and the norms' copy to the host. */
hs_status hs_cu_split_enqueue_finish_rows(cuda_impl *c, int32_t rows);
/** @brief After the stream synchronised: the CG's outcome, its residual relative to ||B u*||. */
void hs_cu_split_result(const cuda_impl *c, hs_cg_result *cg);

#endif
