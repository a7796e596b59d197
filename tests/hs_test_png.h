/* An independent PNG decoder for tests (8-bit RGB, non-interlaced: what output/plot_png.c writes):
 * chunk CRCs, IHDR, zlib uncompress, the five PNG row filters. Include after hs_test.h; link zlib. */
#ifndef HS_TEST_PNG_H
#define HS_TEST_PNG_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "hs_test.h"

typedef struct image {
    int w, h;
    unsigned char *rgb;
} image;

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* 8-bit RGB, non-interlaced PNG -> image; 0 on success. */
static int decode(const char *path, image *im)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return 1;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)n);
    if (fread(buf, 1, (size_t)n, fp) != (size_t)n) return 2;
    fclose(fp);
    static const unsigned char sig[8] = {137, 'P', 'N', 'G', 13, 10, 26, 10};
    HS_TEST_CHECK(n > 8 && memcmp(buf, sig, 8) == 0, "PNG signature");
    unsigned char *idat = NULL;
    size_t idat_n = 0;
    long pos = 8;
    int seen_end = 0;
    while (pos + 12 <= n) {
        uint32_t len = be32(buf + pos);
        const unsigned char *type = buf + pos + 4, *data = buf + pos + 8;
        HS_TEST_CHECK(pos + 12 + (long)len <= n, "chunk overruns the file");
        uLong crc = crc32(crc32(0L, Z_NULL, 0), type, 4 + len);
        HS_TEST_CHECK(crc == be32(data + len), "CRC of chunk %.4s", (const char *)type);
        if (!memcmp(type, "IHDR", 4)) {
            im->w = (int)be32(data);
            im->h = (int)be32(data + 4);
            HS_TEST_CHECK(data[8] == 8 && data[9] == 2 && data[12] == 0, "8-bit RGB, no interlace");
        } else if (!memcmp(type, "IDAT", 4)) {
            idat = realloc(idat, idat_n + len);
            memcpy(idat + idat_n, data, len);
            idat_n += len;
        } else if (!memcmp(type, "IEND", 4)) {
            seen_end = 1;
        }
        pos += 12 + (long)len;
    }
    HS_TEST_CHECK(seen_end && pos == n, "IEND last");
    size_t row = 1 + 3 * (size_t)im->w;
    uLongf raw_n = (uLongf)(row * (size_t)im->h);
    unsigned char *raw = malloc(raw_n);
    int zr = uncompress(raw, &raw_n, idat, (uLong)idat_n);
    HS_TEST_CHECK(zr == Z_OK && raw_n == row * (size_t)im->h, "zlib: %d, %lu bytes", zr, (unsigned long)raw_n);
    im->rgb = calloc(3 * (size_t)im->w * (size_t)im->h, 1);
    for (int y = 0; y < im->h; ++y) {
        int f = raw[row * y];
        const unsigned char *src = raw + row * y + 1;
        unsigned char *out = im->rgb + 3 * (size_t)im->w * y, *up = y ? out - 3 * (size_t)im->w : NULL;
        for (int i = 0; i < 3 * im->w; ++i) {
            int a = i >= 3 ? out[i - 3] : 0, b = up ? up[i] : 0, c = up && i >= 3 ? up[i - 3] : 0;
            int p = f == 0 ? 0 : f == 1 ? a : f == 2 ? b : f == 3 ? (a + b) / 2 : paeth(a, b, c);
            out[i] = (unsigned char)(src[i] + p);
        }
        HS_TEST_CHECK(f <= 4, "row %d filter %d", y, f);
    }
    free(raw);
    free(idat);
    free(buf);
    return 0;
}

/* Pixels of colour c[3]. */
static inline long count_color(const image *im, const unsigned char c[3])
{
    long k = 0;
    for (size_t i = 0; i < (size_t)im->w * (size_t)im->h; ++i) k += !memcmp(im->rgb + 3 * i, c, 3);
    return k;
}

#endif
