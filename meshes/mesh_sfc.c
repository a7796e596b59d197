/* Hilbert curve order of points (mesh_sfc.h). Keys are 63-bit integers, sorted with an LSD radix
 * sort (stable, O(n) per 8-bit digit; digits where all keys agree are skipped), so ordering a
 * million nodes costs a few passes over 12-byte records rather than an O(n log n) comparison
 * sort. */
#include "mesh_sfc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_util.h"

uint64_t hs_sfc_hilbert_key(uint32_t x, uint32_t y, uint32_t z, int bits)
{
    uint32_t X[3] = {x, y, z};
    const uint32_t M = 1u << (bits - 1);
    /* Inverse undo: walk the bits from the top, reflecting or exchanging the lower bits so
     * each level's sub-cube is entered in the curve's orientation. */
    for (uint32_t Q = M; Q > 1; Q >>= 1) {
        const uint32_t P = Q - 1;
        for (int i = 0; i < 3; ++i) {
            if (X[i] & Q) {
                X[0] ^= P; /* invert */
            } else {       /* exchange */
                const uint32_t t = (X[0] ^ X[i]) & P;
                X[0] ^= t;
                X[i] ^= t;
            }
        }
    }
    /* Gray encode. */
    for (int i = 1; i < 3; ++i) X[i] ^= X[i - 1];
    uint32_t t = 0;
    for (uint32_t Q = M; Q > 1; Q >>= 1)
        if (X[2] & Q) t ^= Q - 1;
    for (int i = 0; i < 3; ++i) X[i] ^= t;
    /* The key is the transposed form read bit-plane by bit-plane, x's bit first. */
    uint64_t key = 0;
    for (int b = bits - 1; b >= 0; --b)
        for (int i = 0; i < 3; ++i) key = (key << 1) | ((X[i] >> b) & 1u);
    return key;
}

typedef struct sfc_rec {
    uint64_t key;
    int32_t idx;
} sfc_rec;

hs_status hs_sfc_order(const double *xyz, int32_t n, int32_t *newid)
{
    HS_CHECK(n >= 0 && (n == 0 || (xyz && newid)), HS_ERR_INTERNAL,
             "hs_sfc_order: bad arguments (n %ld)", (long)n);
    if (n == 0) return HS_OK;
    double lo[3], hi[3];
    for (int k = 0; k < 3; ++k) lo[k] = hi[k] = xyz[k];
    for (int32_t v = 0; v < n; ++v)
        for (int k = 0; k < 3; ++k) {
            const double c = xyz[3 * (size_t)v + k];
            HS_CHECK(isfinite(c), HS_ERR_MESH,
                     "node %ld has a non-finite coordinate; cannot order nodes along a curve",
                     (long)v);
            if (c < lo[k]) lo[k] = c;
            if (c > hi[k]) hi[k] = c;
        }
    double ext = 0.0;
    for (int k = 0; k < 3; ++k)
        if (hi[k] - lo[k] > ext) ext = hi[k] - lo[k];
    const double top = (double)((1u << HS_SFC_BITS) - 1);
    const double scale = ext > 0.0 ? top / ext : 0.0; /* all points equal: one cell */

    hs_status st = HS_OK;
    sfc_rec *a = NULL, *b = NULL;
    size_t *count = NULL;
    HS_CALL_GOTO(HS_ALLOC(a, (size_t)n, "curve keys"), done);
    HS_CALL_GOTO(HS_ALLOC(b, (size_t)n, "curve sort buffer"), done);
    HS_CALL_GOTO(HS_ALLOC(count, 257, "radix counts"), done);
    uint64_t all_or = 0, all_and = ~(uint64_t)0;
    for (int32_t v = 0; v < n; ++v) {
        uint32_t q[3];
        for (int k = 0; k < 3; ++k) {
            double c = (xyz[3 * (size_t)v + k] - lo[k]) * scale;
            if (c > top) c = top; /* rounding at the far side */
            q[k] = (uint32_t)c;
        }
        a[v].key = hs_sfc_hilbert_key(q[0], q[1], q[2], HS_SFC_BITS);
        a[v].idx = v;
        all_or |= a[v].key;
        all_and &= a[v].key;
    }
    for (int shift = 0; shift < 64; shift += 8) {
        /* A digit on which every key agrees leaves the order as it is. */
        if ((((all_or ^ all_and) >> shift) & 0xffu) == 0) continue;
        memset(count, 0, 257 * sizeof *count);
        for (int32_t v = 0; v < n; ++v) ++count[((a[v].key >> shift) & 0xffu) + 1];
        for (int d = 0; d < 256; ++d) count[d + 1] += count[d];
        for (int32_t v = 0; v < n; ++v) b[count[(a[v].key >> shift) & 0xffu]++] = a[v];
        sfc_rec *t = a;
        a = b;
        b = t;
    }
    for (int32_t i = 0; i < n; ++i) newid[a[i].idx] = i;
done:
    free(a);
    free(b);
    free(count);
    return st;
}
