/**
 * @file vtk_xml_test_writer.h
 * @brief Writes XML VTK DataArrays for the .vtu/.vtp reader tests in every encoding the readers
 * take: ascii, binary (base64, header and data as two runs as VTK writes them), appended raw or
 * base64, with or without vtkZLibDataCompressor (small blocks, so several blocks and a short last
 * one), header UInt32 or UInt64, little or big endian. Include after mesh_read_test_util.h.
 */
#ifndef HS_VTK_XML_TEST_WRITER_H
#define HS_VTK_XML_TEST_WRITER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

enum { VX_ASCII, VX_BINARY, VX_APPENDED_RAW, VX_APPENDED_B64 };

typedef struct vx_opts {
    int enc, zlib, header64, big;
    const char *conn_type; /* "Int32" or "Int64" */
} vx_opts;

typedef struct vx_buf {
    unsigned char *p;
    size_t n, cap;
} vx_buf;

static vx_buf vx_app; /* appended data being collected */

static void vx_put(vx_buf *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = 2 * (b->n + n) + 64;
        b->p = realloc(b->p, b->cap);
        if (!b->p) abort();
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void vx_word(vx_buf *b, uint64_t u, int size, int big)
{
    unsigned char w[8];
    for (int k = 0; k < size; ++k) w[big ? size - 1 - k : k] = (unsigned char)(u >> (8 * k));
    vx_put(b, w, (size_t)size);
}

static void vx_b64(vx_buf *out, const unsigned char *d, size_t n)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        const uint32_t w = (uint32_t)d[i] << 16 | (i + 1 < n ? (uint32_t)d[i + 1] << 8 : 0) |
                           (i + 2 < n ? d[i + 2] : 0);
        char c[4] = {t[w >> 18 & 63], t[w >> 12 & 63], i + 1 < n ? t[w >> 6 & 63] : '=',
                     i + 2 < n ? t[w & 63] : '='};
        vx_put(out, c, 4);
    }
}

static int vx_size(const char *type)
{
    return strstr(type, "64") ? 8 : strstr(type, "32") ? 4 : strstr(type, "16") ? 2 : 1;
}

/* One DataArray of n values of @p type (Int8..Int64, UInt8, Float32, Float64). */
static void vx_array(FILE *f, const vx_opts *o, const char *type, const char *name, int ncomp,
                     const double *v, size_t n)
{
    const int size = vx_size(type), is_float = type[0] == 'F';
    fprintf(f, "<DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\" format=\"%s\"", type,
            name, ncomp, o->enc == VX_ASCII ? "ascii" : o->enc == VX_BINARY ? "binary" : "appended");
    if (o->enc == VX_ASCII) {
        fprintf(f, ">\n");
        for (size_t k = 0; k < n; ++k) fprintf(f, "%.17g%s", v[k], k % 6 == 5 ? "\n" : " ");
        fprintf(f, "\n</DataArray>\n");
        return;
    }
    vx_buf data = {0}, head = {0};
    for (size_t k = 0; k < n; ++k) {
        uint64_t u;
        if (is_float && size == 4) {
            float x = (float)v[k];
            uint32_t w;
            memcpy(&w, &x, 4);
            u = w;
        } else if (is_float) {
            memcpy(&u, &v[k], 8);
        } else {
            u = (uint64_t)(int64_t)v[k];
        }
        vx_word(&data, u, size, o->big);
    }
    const int hs = o->header64 ? 8 : 4;
    vx_buf body = {0};
    if (!o->zlib) {
        vx_word(&head, data.n, hs, o->big);
        vx_put(&body, data.p, data.n);
    } else {
        const size_t bs = 40; /* small blocks: several, the last one short */
        const size_t nb = (data.n + bs - 1) / bs;
        vx_word(&head, nb, hs, o->big);
        vx_word(&head, bs, hs, o->big);
        vx_word(&head, data.n % bs, hs, o->big);
        for (size_t b = 0; b < nb; ++b) {
            const size_t len = b + 1 < nb || data.n % bs == 0 ? bs : data.n % bs;
            unsigned char z[256];
            uLongf zl = sizeof z;
            if (compress(z, &zl, data.p + b * bs, len) != Z_OK) abort();
            vx_word(&head, zl, hs, o->big);
            vx_put(&body, z, zl);
        }
    }
    vx_buf *dst = &vx_app, tmp = {0};
    if (o->enc == VX_BINARY) dst = &tmp;
    const size_t offset = vx_app.n;
    if (o->enc == VX_APPENDED_RAW) {
        vx_put(dst, head.p, head.n);
        vx_put(dst, body.p, body.n);
    } else {
        vx_b64(dst, head.p, head.n);
        vx_b64(dst, body.p, body.n);
    }
    if (o->enc == VX_BINARY) {
        fprintf(f, ">\n%.*s\n</DataArray>\n", (int)tmp.n, (const char *)tmp.p);
    } else {
        fprintf(f, " offset=\"%zu\"/>\n", offset);
    }
    free(tmp.p);
    free(data.p);
    free(head.p);
    free(body.p);
}

static void vx_begin(FILE *f, const vx_opts *o, const char *dataset)
{
    vx_app.n = 0;
    fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"%s\" version=\"1.0\" byte_order=\"%s\" "
               "header_type=\"%s\"%s>\n<%s>\n",
            dataset, o->big ? "BigEndian" : "LittleEndian", o->header64 ? "UInt64" : "UInt32",
            o->zlib ? " compressor=\"vtkZLibDataCompressor\"" : "", dataset);
}

static void vx_end(FILE *f, const vx_opts *o, const char *dataset)
{
    fprintf(f, "</%s>\n", dataset);
    if (o->enc == VX_APPENDED_RAW || o->enc == VX_APPENDED_B64) {
        fprintf(f, "<AppendedData encoding=\"%s\">\n   _", o->enc == VX_APPENDED_RAW ? "raw" : "base64");
        fwrite(vx_app.p, 1, vx_app.n, f);
        fprintf(f, "\n</AppendedData>\n");
    }
    fprintf(f, "</VTKFile>\n");
}

#endif
