/**
 * @file hs_mesh_part.h
 * @brief A distributed run whose ranks make their own parts of the mesh (parallel.partition =
 * "box"): each rank generates its block of the structured box (hs_box_blocks: the fewest cut
 * faces), cuts its view from it (hs_part_local_create_part) and finds its stimulus sites among its
 * elements. No rank holds the whole mesh, a global pattern, an owner array or any other array over
 * the whole mesh's nodes or elements; the run keeps the whole mesh's counts (and the checkpoint
 * fingerprint) only.
 */
#ifndef HS_MESH_PART_H
#define HS_MESH_PART_H

#include "hs_mesh_block.h"
#include "hs_mesh_build.h"
#include "hs_partition.h"
#include "hs_region.h"
#include "hs_stimulus.h"

struct hs_sim_spec;

#ifdef __cplusplus
extern "C" {
#endif

struct hs_backend_mpi_part; /* backends/mpi/hs_backend_mpi.h */

/** @brief 1 when the ranks can generate @p spec's mesh themselves: the structured box with
 *  constant fibres (what "box" takes and "auto" may pick). */
int hs_mesh_part_box_fits(const hs_mesh_spec *spec);

/**
 * @brief Why the "box" partition cannot take the run @p spec (a sentence naming the key), or NULL
 * when it can: the structured box with constant fibres, box or sphere stimuli, regions selected by
 * attribute, box or sphere (each element by itself), no SpMV format with its own node order. Those
 * still need the whole mesh on a rank (docs/parallel.md). Probes, ECG electrodes and per-beat maps
 * are found and written on the ranks' parts (sim/samples.c, sim/beats.c).
 */
const char *hs_mesh_part_box_unfit(const struct hs_sim_spec *spec);

/**
 * @brief What parallel.partition = "auto" means for @p spec: "box" where it fits the run and
 * mesh.reorder = "none" (the box partition numbers nodes as the generator does, which is that
 * serial run's numbering: auto never changes the numbering the frames list), else "metis" (in a
 * build with METIS), else "rows".
 */
const hs_partitioner *hs_mesh_part_auto(const struct hs_sim_spec *spec);

/**
 * @brief Every rank's part of the box (collective; one rank's failure is every rank's, said once).
 * @param[in] sites, n_sites stimulus sites (box and sphere shapes; a site covering no element of
 * the whole box is refused as in a serial run); @param[in] fingerprint 1: compute the whole box's
 * checkpoint fingerprint (a pass over the box a layer at a time; for runs that write or read
 * checkpoints).
 * @param[out] part the rank's view, local mesh and sites (hs_backend_mpi_create_part takes them);
 * @param[out] counts the whole mesh's counts (hs_mesh without arrays; fingerprint set);
 * @param[out] site_set the sites without elements (their amplitudes, sim->stim);
 * @param[out] info how the mesh was made (seconds_mesh: generation and checks).
 */
hs_status hs_mesh_part_box(const hs_mesh_spec *spec, const hs_stimulus_cfg *sites, int n_sites, int fingerprint,
                           struct hs_backend_mpi_part *part, hs_mesh **counts, hs_stim_set **site_set,
                           hs_mesh_build_info *info);

/**
 * @brief The regions of every rank's part of the box (collective, after hs_mesh_part_box): each
 * element selected by itself (hs_region_set_create_part), the table made the whole mesh's (every
 * element reads the row values a serial run gives it; uniform exactly when the whole tissue is),
 * the decoupled flags of the ghosts from their owners (a halo exchange), the entries' element counts
 * and volumes and the non-conducting elements summed over the ranks and logged as a serial run
 * does; the local mesh's "region" field set. @p part->lreg receives them.
 */
hs_status hs_mesh_part_box_regions(const struct hs_sim_spec *spec, struct hs_backend_mpi_part *part);

/**
 * @brief Why the ranks cannot read their blocks of @p spec's mesh file (parallel.read = "ranks"; a
 * sentence naming the key), or NULL when they can: mesh.source "file" or "tetgen" in a format
 * hs_mesh_block reads (openCARP, TetGen), fibres from the mesh or constant, box or sphere stimuli,
 * regions by attribute, box or sphere, no SpMV format with its own node order.
 */
const char *hs_mesh_part_read_unfit(const struct hs_sim_spec *spec);

/** @brief The file hs_mesh_block_open reads for @p spec (mesh.source = "tetgen": PREFIX.node). */
void hs_mesh_part_read_path(const hs_mesh_spec *spec, char *buf, size_t size);

/** @brief parallel.partition = "auto" with parallel.read = "ranks": ptscotch, else (a build without
 *  PT-Scotch) rows. */
const hs_partitioner *hs_mesh_part_read_partitioner(void);

/**
 * @brief Every rank's part of a file mesh that every rank reads a block of (parallel.read = "ranks";
 * collective; one rank's failure is every rank's, said once): each rank reads its byte range of
 * mesh.file (hs_mesh_block), the ranks drop the nodes no element uses and swap the orientation of a
 * wholly negative mesh as the serial reader does, partition the rows they hold with @p p
 * (hs_partition_rows_dist), send each element to the owners of its vertices and each node to the
 * ranks whose elements use it, and each cuts its view (ordered by local RCM when mesh.reorder is not
 * "none": hs_part_local_rcm_key) and makes its mesh (mesh.scale, fibres, checks) and stimulus sites.
 * No rank holds the whole mesh; the global numbering is the file's order of the used nodes (a serial
 * run's with mesh.reorder = "none"). Outputs as hs_mesh_part_box; hs_mesh_part_box_regions makes the
 * regions afterwards.
 */
hs_status hs_mesh_part_read(const hs_mesh_spec *spec, const hs_partitioner *p, const hs_stimulus_cfg *sites,
                            int n_sites, int fingerprint, struct hs_backend_mpi_part *part, hs_mesh **counts,
                            hs_stim_set **site_set, hs_mesh_build_info *info);

/**
 * @brief The core of hs_mesh_part_read from blocks already read (tests give blocks cut from a whole
 * mesh): @p b this rank's block, coordinates already in mm; @p reorder 1: order the view by local RCM.
 * @p part, @p counts as hs_mesh_part_read (sites, fibres, checks and fingerprint are the caller's).
 */
hs_status hs_mesh_part_from_blocks(const hs_mesh_block *b, const hs_partitioner *p, int reorder,
                                   struct hs_backend_mpi_part *part, hs_mesh **counts);

/**
 * @brief A mesh built on rank 0 sent out in parts (collective): rank 0 makes each rank's part of
 * @p m (the elements with a vertex the rank owns by @p owner, their vertices, fibres, labels, global
 * numbers, stimulus elements and region rows), sends it and frees it before making the next; every
 * rank cuts its view from its part (hs_part_local_create_part) and makes its mesh, sites and
 * regions, the same arrays as backends/mpi cuts from the whole mesh. The other ranks never hold the
 * whole mesh.
 * @param[in] m, stim, reg, owner rank 0's whole mesh, sites, regions (NULL: none) and partition
 * [n_nodes] (NULL elsewhere); @param[in] n_global the mesh's nodes; @param[in] sites, n_sites the
 * spec's stimulus sites (every rank); @param[in,out] fingerprint rank 0's mesh fingerprint (or 0),
 * given to every rank.
 * @param[out] part the rank's part (n_elems_global set on rank 0 only: the caller's, as the counts).
 */
hs_status hs_mesh_part_scatter(const hs_mesh *m, const hs_stim_set *stim, const hs_region_set *reg,
                               const int32_t *owner, int64_t n_global, const hs_stimulus_cfg *sites, int n_sites,
                               uint64_t *fingerprint, struct hs_backend_mpi_part *part);

/**
 * @brief Rank 0 builds the mesh (hs_mesh_build: reading, the cache, fibres, checks, node order);
 * the other ranks get its counts only (an hs_mesh without arrays) and @p info. Collective; rank 0's
 * failure is every rank's, said once.
 */
hs_status hs_mesh_part_root_build(const hs_mesh_spec *spec, hs_mesh **out, hs_mesh_build_info *info);

/** @brief Free @p m's arrays, keeping its counts and fingerprint (rank 0's mesh once sent out). */
void hs_mesh_part_hollow(hs_mesh *m);

/** @brief A stimulus set of @p n sites without elements (what the time loop reads: amplitudes). */
hs_status hs_mesh_part_sites(const hs_stimulus_cfg *sites, int n, hs_stim_set **out);

#ifdef __cplusplus
}
#endif
#endif
