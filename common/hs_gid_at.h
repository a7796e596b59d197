/*
 * A row's (or element's) global number beside its index on the rank: sorted by the global number
 * (hs_gid_at_cmp with qsort, looked up with bsearch), how a rank puts its rows in global order
 * without an array over the whole mesh (the output gathers and files, the checkpoint's reads, the
 * samples, the distributed backend's lookups).
 */
#ifndef HS_GID_AT_H
#define HS_GID_AT_H

#include <stdint.h>

typedef struct hs_gid_at {
    int64_t gid; /**< the global number */
    int32_t i;   /**< the index on this rank */
} hs_gid_at;

/** @brief qsort / bsearch comparison of two hs_gid_at by their global numbers. */
static inline int hs_gid_at_cmp(const void *a, const void *b)
{
    const int64_t x = ((const hs_gid_at *)a)->gid, y = ((const hs_gid_at *)b)->gid;
    return (x > y) - (x < y);
}

#endif
