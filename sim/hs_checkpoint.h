/**
 * @file hs_checkpoint.h
 * @brief Checkpoints: the whole state of a run at a step boundary in one binary file
 * DIR/PREFIX_ckpt_STEP.hsck, written atomically (hs_atomic_file: temporary, fsync, rename), so a
 * file with that name is complete; a checksum over header and payload catches any other damage.
 *
 * At a step boundary phi_n == phi and r_n == r, so (phi, r, activation, step) is the state of the
 * time loop, plus the history the first Newton iterate is extrapolated from (solver.extrapolate:
 * phi of the last one or two steps and their step sizes); without it a restart would start the
 * extrapolation afresh and differ from the uninterrupted run in the last bits. The frames already
 * written (count and times) let a restart continue the series. Format (native byte order, refused
 * on a host of the other order), version 3:
 *
 *   hs_ckpt_header (20 x 8 bytes, see below; `reserved` holds n_hist, 0..2), then the payload:
 *   frame_times [n_frames] double, then every field of the state in the order of its descriptor
 *   (fem/hs_state.h: the potential [n_nodes], the model's variables [n_elems] each, the read-outs
 *   activation, repolarisation, apd, beats [n_nodes] each: for Aliev-Panfilov phi, r, activation,
 *   repolarisation, apd, beats), hist_h [2] double (the step sizes
 *   t_n - t_{n-1}, t_{n-1} - t_{n-2}, model units), phi_{n-1}, ..., [n_hist][n_nodes] double.
 * The model (and so the fields) is part of the model.* fingerprint; a reader checks the payload
 * size against the run's state descriptor. Version 1 files (no history section) are still read:
 * they restart with an empty history. Versions 1 and 2 end the state at activation: they restart
 * with repolarisation and apd unset (-1) and one beat where the node has activated.
 *
 * Version 4 (a distributed run, hs_checkpoint_write_part): the same layout, written by every rank
 * together (output/hs_part_file.h: each rank its nodes' and elements' values at their global
 * indices); its payload checksum takes each state field and history vector as the FNV-1a 64 of its
 * segments of HS_PART_SEGMENT values in turn (frame_times and hist_h as bytes), so it is the same
 * whichever ranks wrote which values. Every version is read on any rank count.
 *
 * A distributed run's restart reads no whole array on any rank: hs_checkpoint_load_part checks the
 * header on every rank and verifies the payload with the ranks together (version 4: each rank hashes
 * a block of the segments, every rank combines them; versions 1 to 3: rank 0 hashes the payload in
 * chunks), keeping the header, the frames and hist_h only; then each rank reads the values of its own
 * nodes and elements (hs_checkpoint_read_rows), through a buffer of 2^20 values at most.
 *
 * The layout is documented in docs/reliability.md.
 */
#ifndef HS_CHECKPOINT_H
#define HS_CHECKPOINT_H

#include <stdint.h>

#include "hs_extrapolate.h"
#include "hs_mesh.h"
#include "hs_models.h"
#include "hs_state.h"
#include "hs_status.h"
#include "hs_util.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HS_CKPT_VERSION 3u
#define HS_CKPT_VERSION_PART 4u /**< written by the ranks of a distributed run together */
#define HS_CKPT_ENDIAN 0x0102030405060708ull
/** Groups of config keys fingerprinted separately, so a mismatch names the group: mesh.*,
 *  fibers.*, model.*, time.dt, stimulus, solver tolerances + output.activation_threshold. */
#define HS_CKPT_GROUPS 6

/** File header: every field 8 bytes, so there is no padding. */
typedef struct hs_ckpt_header {
    char magic[8];          /**< "HSCKPT1\n" */
    uint64_t version;       /**< HS_CKPT_VERSION */
    uint64_t endian;        /**< HS_CKPT_ENDIAN as written by the host */
    int64_t step;           /**< steps completed */
    double t_ms;            /**< step * time.dt (informational: the loop restarts from step) */
    double dt_ms;           /**< time.dt */
    int64_t n_nodes, n_elems;
    int64_t n_frames;       /**< frames in the .vtk.series when the checkpoint was written */
    uint64_t mesh_fp;       /**< hs_mesh_fingerprint */
    uint64_t config_fp[HS_CKPT_GROUPS]; /**< hs_config_fingerprint, one per group of keys */
    uint64_t payload_bytes; /**< bytes after the header */
    uint64_t payload_sum;   /**< FNV-1a 64 of the payload */
    uint64_t reserved;      /**< version 2: n_hist, extrapolation history vectors in the payload */
    uint64_t header_sum;    /**< FNV-1a 64 of the header bytes before this field */
} hs_ckpt_header;

/** A checkpoint in memory. Arrays owned (hs_checkpoint_free). Not to be copied: state.desc points
 *  at this struct's own desc. */
typedef struct hs_checkpoint {
    hs_ckpt_header h;
    double *frame_times; /**< [n_frames] ms */
    hs_state_desc desc;  /**< the fields, for the model the reader was given and the header's sizes */
    hs_state state;      /**< every field of desc */
    hs_extrap hist;        /**< n_valid and h of the extrapolation history (order not stored) */
    double *hist_phi[2];   /**< phi_{n-1}, phi_{n-2} [n_nodes] when hist.n_valid says so, else NULL */
    char path[HS_PATH_MAX]; /**< the file it was read from */
} hs_checkpoint;
/* A checkpoint of hs_checkpoint_load_part holds h, frame_times, desc, hist (n_valid, h) and path;
 * state's arrays and hist_phi are NULL: its ranks read their rows with hs_checkpoint_read_rows. */


/** @brief Fingerprint of the mesh as the run numbers it: n_nodes, n_elems, xyz, tets, fibres. */
uint64_t hs_mesh_fingerprint(const hs_mesh *m);

/** Names of the fingerprint groups, for messages (HS_CKPT_GROUPS of them). */
extern const char *const hs_ckpt_group_name[HS_CKPT_GROUPS];

/** @brief Path DIR/PREFIX_ckpt_STEP.hsck (STEP zero-padded to 9 digits). */
void hs_checkpoint_path(const char *dir, const char *prefix, long step, char *buf, size_t size);

/**
 * @brief Write a checkpoint atomically to @p path. Refuses (HS_ERR_NUMERIC) a state holding a
 * non-finite potential or model variable: such a checkpoint could not be resumed.
 * @param[in] config_fp the run's fingerprints; frame_times [n_frames]; state: every field (borrowed);
 * hist (may be NULL: none) with hist->n_valid vectors in hist_phi.
 */
hs_status hs_checkpoint_write(const char *path, long step, double t_ms, double dt_ms,
                              const uint64_t config_fp[HS_CKPT_GROUPS], const hs_mesh *mesh, int n_frames,
                              const double *frame_times, const hs_state *state, const hs_extrap *hist,
                              double *const hist_phi[2]);

/** A rank's share of a distributed run's state for hs_checkpoint_write_part; borrowed. */
typedef struct hs_ckpt_part {
    const void *comm;        /**< the ranks' MPI_Comm, as a pointer to it */
    const hs_state *state;   /**< this rank's values of every field: nodes [n_nodes], elements [n_elems] */
    int32_t n_nodes, n_elems;
    const int64_t *node_gid; /**< [n_nodes] global indices */
    const int64_t *elem_gid; /**< [n_elems] */
    const hs_extrap *hist;   /**< NULL: none */
    double *hist_phi[2];     /**< [n_nodes] this rank's values of phi_{n-1}, phi_{n-2} as hist->n_valid says */
} hs_ckpt_part;

/**
 * @brief hs_checkpoint_write of a distributed run (version 4): every rank writes its values at their
 * global indices into the one file, atomically, without a gather; @p mesh (the global mesh: sizes and
 * fingerprint) and the frames as hs_checkpoint_write. Collective; a non-finite value on any rank is
 * HS_ERR_NUMERIC on every rank, nothing written. Built with MPI only (HS_ERR_INTERNAL otherwise).
 */
hs_status hs_checkpoint_write_part(const char *path, long step, double t_ms, double dt_ms,
                                   const uint64_t config_fp[HS_CKPT_GROUPS], const hs_mesh *mesh, int n_frames,
                                   const double *frame_times, const hs_ckpt_part *part);

/**
 * @brief Read a checkpoint file and verify it: magic, byte order, version, header checksum, size
 * (a truncated file is named as such), payload checksum. HS_ERR_IO for a damaged or unreadable
 * file, with the file and the reason in the message. The payload is read as the state of @p model.
 * With @p expect_fp (the run's fingerprints; NULL: not checked) a checkpoint of another
 * configuration is HS_ERR_CONFIG naming the groups that differ (@p dt_ms for the message), before
 * its sizes are judged: another model's checkpoint is said to be one, not "damaged".
 */
hs_status hs_checkpoint_read(const char *path, const hs_model *model, const uint64_t *expect_fp, double dt_ms,
                             hs_checkpoint *ck);

/**
 * @brief Check that a checkpoint belongs to this run: config fingerprints @p fp (HS_ERR_CONFIG;
 * @p dt_ms for the message) and, when @p mesh is not NULL, node/element counts and mesh
 * fingerprint (HS_ERR_MESH).
 */
hs_status hs_checkpoint_match(const hs_checkpoint *ck, const uint64_t fp[HS_CKPT_GROUPS], double dt_ms,
                              const hs_mesh *mesh);

/**
 * @brief Resolve --restart ARG: a file is read as it is; a directory gives its newest checkpoint
 * of the configured prefix that reads back intact (damaged newer ones are skipped with a warning).
 */
hs_status hs_checkpoint_load(const char *arg, const char *prefix, const hs_model *model, const uint64_t *expect_fp,
                             double dt_ms, hs_checkpoint *ck);

/**
 * @brief hs_checkpoint_load for the ranks of a distributed run (collective over hs_par_comm): the
 * same checks and messages, every rank returning the same status (said once), but the payload is
 * verified by the ranks together in chunks of 2^20 values and not kept: @p ck holds the header, the
 * frame times and the history's step sizes; its state's arrays and hist_phi are NULL. Built with MPI
 * only (HS_ERR_INTERNAL otherwise).
 */
hs_status hs_checkpoint_load_part(const char *arg, const char *prefix, const hs_model *model,
                                  const uint64_t *expect_fp, double dt_ms, hs_checkpoint *ck);

/**
 * @brief Some rows of the checkpoint @p ck was read from (hs_checkpoint_read or _load_part; its path
 * is read again, and must hold the same header): the node fields' values at @p node_gid [n_nodes],
 * the element fields' at @p elem_gid [n_elems] (global indices, any order) into @p dst, a state of
 * ck->desc's fields on n_nodes nodes and n_elems elements (every field given), and the history
 * vectors at the nodes into @p hist_phi[q] [n_nodes] for q < ck->hist.n_valid (NULL: skipped).
 * Reads the file in pieces of at most 2^20 values, from each wanted row to the last one near it;
 * holds nothing of the whole mesh. Fields an older version lacks stay as hs_state_create made them
 * (beats: one where the node has activated). Not collective: HS_ERR_IO names the file.
 */
hs_status hs_checkpoint_read_rows(const hs_checkpoint *ck, int32_t n_nodes, const int64_t *node_gid, int32_t n_elems,
                                  const int64_t *elem_gid, hs_state *dst, double *const hist_phi[2]);

void hs_checkpoint_free(hs_checkpoint *ck);

/**
 * @brief Steps of the checkpoints DIR/PREFIX_ckpt_*.hsck, ascending. @param[out] steps malloc'd
 * (free), @param[out] n count. A missing directory gives n = 0.
 */
hs_status hs_checkpoint_list(const char *dir, const char *prefix, long **steps, int *n);

#ifdef __cplusplus
}
#endif
#endif
