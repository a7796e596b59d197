/**
 * @file hs_mtx.h
 * @brief Matrix Market reader (coordinate format), so any matrix can be given to `heartsim bench spmv`.
 *
 * Accepted: `%%MatrixMarket matrix coordinate <real|integer|pattern> <general|symmetric>` (banner
 * words case-insensitive, as the format's definition allows). Pattern entries get the value 1;
 * a symmetric file stores the lower triangle (row >= column) and is expanded to both triangles;
 * duplicate entries are summed; columns are sorted within each row. Anything else (complex,
 * hermitian, skew-symmetric, the dense `array` format, a missing or malformed banner, indices
 * outside 1..M / 1..N, fewer or more entries than the size line declares, non-finite values) is an
 * error naming the file, the line and what was expected: HS_ERR_MESH (input-file errors share the
 * mesh reader's code, exit 3), HS_ERR_IO for a read error, HS_ERR_MEMORY.
 * Reference: Boisvert, Pozo, Remington, "The Matrix Market Exchange Formats: Initial Design" (1996).
 */
#ifndef HS_MTX_H
#define HS_MTX_H

#include "hs_csr.h"
#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Read a Matrix Market coordinate file into CSR (0-based, sorted columns, values set).
 * @param[in] path file name (kept only for messages)
 * @param[out] out the matrix (hs_csr_destroy); NULL on error
 */
hs_status hs_mtx_read(const char *path, hs_csr **out);

#ifdef __cplusplus
}
#endif
#endif
