/**
 * @file hs_part_file.h
 * @brief One binary file written by every rank of a distributed run together (MPI-IO), atomically:
 * DIR/.NAME.tmp, then MPI_File_sync, close, and rank 0 renames it into place (as hs_atomic_file).
 * Arrays of float64 indexed by global index are written from each rank's own values with their
 * 64-bit global ids: the values are exchanged (MPI_Alltoallv) so that rank r holds a block of whole
 * segments of HS_PART_SEGMENT values, which it writes in one collective call; the FNV-1a hash of each
 * segment comes back to rank 0, so a checksum over the array (the segments' hashes in order) is the
 * same on any rank count and for a reader of the whole file (sim/checkpoint.c, version 4).
 * No MPI type here; built only with MPI (HS_HAS_MPI).
 */
#ifndef HS_PART_FILE_H
#define HS_PART_FILE_H

#include <stdint.h>

#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Values of an array per checksum segment. */
enum { HS_PART_SEGMENT = 1 << 16 };

typedef struct hs_part_file hs_part_file;

/**
 * @brief Start writing @p path (@p what names it in messages) on the ranks of @p comm (a pointer to
 * an MPI_Comm; duplicated). Collective; the status is agreed over the ranks.
 */
hs_status hs_part_file_create(const void *comm, const char *path, const char *what, hs_part_file **out);

/** @brief Every rank returns the first failing rank's @p st and message (HS_OK when none failed). */
hs_status hs_part_file_agree(hs_part_file *f, hs_status st);

/** @brief Rank 0 writes @p n bytes at byte @p offset (the others pass anything). Collective. */
hs_status hs_part_file_write_root(hs_part_file *f, int64_t offset, const void *data, int64_t n);

/**
 * @brief Array [n_global] of float64 at byte @p offset: this rank's @p n values @p v at global
 * indices @p gid (the ranks' gids partition [0, n_global)). On rank 0, @p seg_hash (may be NULL
 * elsewhere) receives the FNV-1a 64 of each segment of HS_PART_SEGMENT values in order,
 * [ceil(n_global / HS_PART_SEGMENT)]. Collective; the status is agreed.
 */
hs_status hs_part_file_write_array(hs_part_file *f, int64_t offset, int64_t n_global, int32_t n, const int64_t *gid,
                                   const double *v, uint64_t *seg_hash);

/** @brief Sync, close and (rank 0) rename into place; frees @p *f. Collective; the status is agreed. */
hs_status hs_part_file_commit(hs_part_file **f);

/** @brief Abandon: close and remove the temporary file; accepts NULL, sets *f = NULL. Collective. */
void hs_part_file_destroy(hs_part_file **f);

#ifdef __cplusplus
}
#endif
#endif
