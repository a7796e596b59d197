/**
 * @file xdmf_test_reader.h
 * @brief Just enough of an XDMF reader for the output tests to check what the writer claims: the
 * Uniform grids of the index, each one's Time, Topology, Geometry and Attributes, and the raw
 * little-endian arrays their DataItems point to (file, Seek, NumberType, Precision, Dimensions).
 * It looks up attributes by name inside each tag, so it does not depend on the writer's layout
 * of lines or the order of attributes.
 */
#ifndef XDMF_TEST_READER_H
#define XDMF_TEST_READER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct xdmf_test_item {
    char format[16], endian[16], number_type[16];
    int precision, rank;
    long dims[2];
    long seek;
    char file[512]; /* content, entities decoded */
} xdmf_test_item;

typedef struct xdmf_test_grid {
    const char *begin, *end; /* "<Grid GridType=\"Uniform\"..." to past its "</Grid>" */
    double time;
    int has_time;
} xdmf_test_grid;

/* Value of attribute @p key in the tag starting at @p tag (up to its '>'); 1 when present. */
static int xdmf_test_attr(const char *tag, const char *key, char *out, size_t size)
{
    const char *close = strchr(tag, '>');
    char pat[64];
    snprintf(pat, sizeof pat, " %s=\"", key);
    const char *a = strstr(tag, pat);
    if (!a || !close || a > close) return 0;
    a += strlen(pat);
    const char *q = strchr(a, '"');
    if (!q || q > close) return 0;
    snprintf(out, size, "%.*s", (int)(q - a), a);
    return 1;
}

/* XML's five predefined entities back to characters, in place. */
static void xdmf_test_unescape(char *s)
{
    static const char *const ent[5][2] = {{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"},
                                          {"&quot;", "\""}, {"&apos;", "'"}};
    char *o = s;
    for (const char *c = s; *c;) {
        int k = 0;
        for (; k < 5; ++k)
            if (!strncmp(c, ent[k][0], strlen(ent[k][0]))) break;
        if (k < 5) {
            *o++ = ent[k][1][0];
            c += strlen(ent[k][0]);
        } else {
            *o++ = *c++;
        }
    }
    *o = '\0';
}

/* The first <DataItem> at or after @p p and before @p end; 1 when found and complete. */
static int xdmf_test_item_at(const char *p, const char *end, xdmf_test_item *it)
{
    memset(it, 0, sizeof *it);
    const char *tag = strstr(p, "<DataItem");
    if (!tag || tag >= end) return 0;
    char buf[64];
    if (!xdmf_test_attr(tag, "Format", it->format, sizeof it->format)) return 0;
    xdmf_test_attr(tag, "Endian", it->endian, sizeof it->endian);
    if (!xdmf_test_attr(tag, "NumberType", it->number_type, sizeof it->number_type)) return 0;
    if (!xdmf_test_attr(tag, "Precision", buf, sizeof buf)) return 0;
    it->precision = atoi(buf);
    if (!xdmf_test_attr(tag, "Dimensions", buf, sizeof buf)) return 0;
    it->rank = sscanf(buf, "%ld %ld", &it->dims[0], &it->dims[1]);
    it->seek = xdmf_test_attr(tag, "Seek", buf, sizeof buf) ? atol(buf) : 0;
    const char *c0 = strchr(tag, '>'), *c1 = c0 ? strstr(c0, "</DataItem>") : NULL;
    if (!c1 || c1 > end) return 0;
    snprintf(it->file, sizeof it->file, "%.*s", (int)(c1 - c0 - 1), c0 + 1);
    xdmf_test_unescape(it->file);
    return it->rank >= 1;
}

/* Up to @p max Uniform grids of @p text, in order; returns how many there are. */
static int xdmf_test_grids(const char *text, xdmf_test_grid *g, int max)
{
    int n = 0;
    for (const char *c = text; (c = strstr(c, "<Grid")) != NULL;) {
        char type[32];
        const char *end = strstr(c, "</Grid>");
        if (!xdmf_test_attr(c, "GridType", type, sizeof type) || strcmp(type, "Uniform") || !end) {
            c += 5;
            continue;
        }
        if (n < max) {
            g[n].begin = c;
            g[n].end = end + 7;
            const char *t = strstr(c, "<Time");
            char v[64];
            g[n].has_time = t && t < end && xdmf_test_attr(t, "Value", v, sizeof v);
            g[n].time = g[n].has_time ? strtod(v, NULL) : 0.0;
        }
        ++n;
        c = end + 7;
    }
    return n;
}

/* Attribute @p name of grid @p g: its Center and AttributeType and its DataItem; 1 when found. */
static int xdmf_test_attribute(const xdmf_test_grid *g, const char *name, char *center,
                               char *type, xdmf_test_item *it)
{
    for (const char *c = g->begin; (c = strstr(c, "<Attribute")) != NULL && c < g->end; ++c) {
        char nm[64];
        if (!xdmf_test_attr(c, "Name", nm, sizeof nm) || strcmp(nm, name)) continue;
        if (!xdmf_test_attr(c, "Center", center, 16) || !xdmf_test_attr(c, "AttributeType", type, 16))
            return 0;
        return xdmf_test_item_at(c, g->end, it);
    }
    return 0;
}

/* Number of <Attribute> elements of grid @p g. */
static int xdmf_test_n_attributes(const xdmf_test_grid *g)
{
    int n = 0;
    for (const char *c = g->begin; (c = strstr(c, "<Attribute")) != NULL && c < g->end; ++c) ++n;
    return n;
}

/* The DataItem inside element @p elem ("<Topology", "<Geometry") of grid @p g, and the value of
 * @p attr of that element (e.g. TopologyType) into @p val. */
static int xdmf_test_element(const xdmf_test_grid *g, const char *elem, const char *attr,
                             char *val, size_t size, xdmf_test_item *it)
{
    const char *c = strstr(g->begin, elem);
    if (!c || c > g->end || !xdmf_test_attr(c, attr, val, size)) return 0;
    return xdmf_test_item_at(c, g->end, it);
}

/* Read the item's n = dims[0] * dims[1] values from DIR/file as doubles into out [n] (malloc'd).
 * 0 on success; -1 with a reason in @p why otherwise (missing file, short file, unknown type). */
static int xdmf_test_read(const char *dir, const xdmf_test_item *it, double **out, char *why,
                          size_t why_size)
{
    *out = NULL;
    size_t n = (size_t)it->dims[0] * (size_t)(it->rank > 1 ? it->dims[1] : 1);
    int is_float = !strcmp(it->number_type, "Float"), is_int = !strcmp(it->number_type, "Int");
    if (strcmp(it->format, "Binary") || strcmp(it->endian, "Little") ||
        !((is_float && (it->precision == 4 || it->precision == 8)) || (is_int && it->precision == 4))) {
        snprintf(why, why_size, "%s: unexpected Format %s Endian %s %s%d", it->file, it->format,
                 it->endian, it->number_type, it->precision);
        return -1;
    }
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, it->file);
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(why, why_size, "cannot open %s", path);
        return -1;
    }
    unsigned char *raw = malloc(n * (size_t)it->precision + 1);
    double *v = malloc((n + 1) * sizeof *v);
    int ok = raw && v && fseek(fp, it->seek, SEEK_SET) == 0 &&
             fread(raw, (size_t)it->precision, n, fp) == n;
    fclose(fp);
    if (!ok) {
        snprintf(why, why_size, "%s: cannot read %zu values of %d bytes at byte %ld", path, n,
                 it->precision, it->seek);
        free(raw);
        free(v);
        return -1;
    }
    for (size_t i = 0; i < n; ++i) {
        const unsigned char *b = raw + (size_t)it->precision * i;
        uint64_t u = 0;
        for (int k = it->precision - 1; k >= 0; --k) u = (u << 8) | b[k]; /* little-endian */
        if (is_int) {
            uint32_t u32 = (uint32_t)u;
            int32_t x;
            memcpy(&x, &u32, sizeof x);
            v[i] = x;
        } else if (it->precision == 4) {
            uint32_t u32 = (uint32_t)u;
            float x;
            memcpy(&x, &u32, sizeof x);
            v[i] = x;
        } else {
            double x;
            memcpy(&x, &u, sizeof x);
            v[i] = x;
        }
    }
    free(raw);
    *out = v;
    return 0;
}

#endif
