/* FNV-1a 64 (hs_hash.h). */
#include "hs_hash.h"

uint64_t hs_fnv1a64(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; ++i) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}
