/**
 * @file vtk_test_reader.h
 * @brief A strict reader for the legacy binary VTK files heartsim writes, independent of the
 * writer (it shares no code with output/): ASCII header lines are parsed with sscanf, binary
 * blocks are decoded from big-endian by hand. Strict means: exactly one '\n' after each binary
 * block, no blank lines, and no POINT_DATA/CELL_DATA header without an array after it.
 */
#ifndef VTK_TEST_READER_H
#define VTK_TEST_READER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { VTK_TEST_MAX_ARRAYS = 16 };
enum vtk_test_where { VTK_TEST_FIELD, VTK_TEST_POINT, VTK_TEST_CELL };

typedef struct vtk_test_array {
    char name[64];
    enum vtk_test_where where;
    int is_int;      /* 1: "int" data in i, 0: "double" data in d */
    int n_comp;
    size_t n_tuples;
    double *d;       /* [n_tuples][n_comp] */
    int32_t *i;      /* [n_tuples][n_comp] */
} vtk_test_array;

typedef struct vtk_test_file {
    char title[260];
    size_t n_points, n_cells, cells_size;
    double *points;  /* [n_points][3] */
    int32_t *cells;  /* [cells_size]: n, i0..in-1 per cell */
    int32_t *types;  /* [n_cells] */
    int n_arrays;
    vtk_test_array arrays[VTK_TEST_MAX_ARRAYS];
    char error[256]; /* why parsing failed */
} vtk_test_file;

typedef struct vtk_test_cursor {
    const unsigned char *buf;
    size_t size, pos;
} vtk_test_cursor;

static uint64_t vtk_test_be(const unsigned char *p, int nbytes)
{
    uint64_t v = 0;
    for (int k = 0; k < nbytes; ++k) v = (v << 8) | p[k];
    return v;
}

/* Next line without its '\n' into @p line; 0 at end of data or for an over-long line. */
static int vtk_test_line(vtk_test_cursor *c, char *line, size_t cap)
{
    if (c->pos >= c->size) return 0;
    size_t n = 0;
    while (c->pos < c->size && c->buf[c->pos] != '\n') {
        if (n + 1 >= cap) return 0;
        line[n++] = (char)c->buf[c->pos++];
    }
    line[n] = '\0';
    if (c->pos >= c->size) return 0; /* every header line ends in '\n' */
    ++c->pos;
    return 1;
}

/* Decode @p count values of @p is_int type followed by the '\n' that ends a binary block. */
static int vtk_test_block(vtk_test_cursor *c, size_t count, int is_int, double **d, int32_t **i)
{
    const size_t w = is_int ? 4 : 8;
    if (count > (c->size - c->pos) / w) return 0;
    if (is_int) {
        *i = (int32_t *)malloc((count ? count : 1) * sizeof **i);
        if (!*i) return 0;
        for (size_t k = 0; k < count; ++k) {
            uint32_t u = (uint32_t)vtk_test_be(c->buf + c->pos + 4 * k, 4);
            memcpy(&(*i)[k], &u, 4);
        }
    } else {
        *d = (double *)malloc((count ? count : 1) * sizeof **d);
        if (!*d) return 0;
        for (size_t k = 0; k < count; ++k) {
            uint64_t u = vtk_test_be(c->buf + c->pos + 8 * k, 8);
            memcpy(&(*d)[k], &u, 8);
        }
    }
    c->pos += w * count;
    if (c->pos >= c->size || c->buf[c->pos] != '\n') return 0;
    ++c->pos;
    return 1;
}

static void vtk_test_free(vtk_test_file *f)
{
    free(f->points);
    free(f->cells);
    free(f->types);
    for (int a = 0; a < f->n_arrays; ++a) {
        free(f->arrays[a].d);
        free(f->arrays[a].i);
    }
    memset(f, 0, sizeof *f);
}

static const vtk_test_array *vtk_test_find(const vtk_test_file *f, enum vtk_test_where where,
                                           const char *name)
{
    for (int a = 0; a < f->n_arrays; ++a)
        if (f->arrays[a].where == where && !strcmp(f->arrays[a].name, name)) return &f->arrays[a];
    return NULL;
}

#define VTK_TEST_FAIL(...)                                                                         \
    do {                                                                                           \
        snprintf(f->error, sizeof f->error, __VA_ARGS__);                                          \
        goto fail;                                                                                 \
    } while (0)

/** @brief Parse @p path into @p f; returns 0, or -1 with f->error set. */
static int vtk_test_read(const char *path, vtk_test_file *f)
{
    memset(f, 0, sizeof *f);
    unsigned char *buf = NULL;
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(f->error, sizeof f->error, "cannot open %s", path);
        return -1;
    }
    fseek(fp, 0, SEEK_END);
    long size = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    buf = (unsigned char *)malloc((size_t)size + 1);
    if (!buf || fread(buf, 1, (size_t)size, fp) != (size_t)size) {
        fclose(fp);
        free(buf);
        snprintf(f->error, sizeof f->error, "cannot read %s", path);
        return -1;
    }
    fclose(fp);

    vtk_test_cursor c = {buf, (size_t)size, 0};
    char line[300], word[64], type[32];
    enum vtk_test_where where = VTK_TEST_FIELD;
    size_t section_n = 0;
    int section_arrays = 1; /* arrays since the last POINT_DATA/CELL_DATA header */

    if (!vtk_test_line(&c, line, sizeof line) || strcmp(line, "# vtk DataFile Version 3.0"))
        VTK_TEST_FAIL("bad first line");
    if (!vtk_test_line(&c, f->title, sizeof f->title) || strlen(f->title) > 255)
        VTK_TEST_FAIL("bad title line");
    if (!vtk_test_line(&c, line, sizeof line) || strcmp(line, "BINARY"))
        VTK_TEST_FAIL("expected BINARY, got \"%.100s\"", line);
    if (!vtk_test_line(&c, line, sizeof line) || strcmp(line, "DATASET UNSTRUCTURED_GRID"))
        VTK_TEST_FAIL("expected DATASET UNSTRUCTURED_GRID, got \"%.100s\"", line);

    while (c.pos < c.size) {
        size_t n1, n2;
        int k;
        if (!vtk_test_line(&c, line, sizeof line)) VTK_TEST_FAIL("truncated header at %zu", c.pos);
        if (sscanf(line, "FIELD %63s %d", word, &k) == 2) {
            for (int a = 0; a < k; ++a) {
                vtk_test_array *arr = &f->arrays[f->n_arrays];
                if (f->n_arrays == VTK_TEST_MAX_ARRAYS) VTK_TEST_FAIL("too many arrays");
                if (!vtk_test_line(&c, line, sizeof line) ||
                    sscanf(line, "%63s %d %zu %31s", arr->name, &arr->n_comp, &arr->n_tuples,
                           type) != 4)
                    VTK_TEST_FAIL("bad field array line \"%.100s\"", line);
                arr->where = VTK_TEST_FIELD;
                arr->is_int = !strcmp(type, "int");
                ++f->n_arrays;
                if (!vtk_test_block(&c, (size_t)arr->n_comp * arr->n_tuples, arr->is_int, &arr->d,
                                    &arr->i))
                    VTK_TEST_FAIL("bad data for field %s", arr->name);
            }
        } else if (sscanf(line, "POINTS %zu %31s", &n1, type) == 2) {
            if (strcmp(type, "double")) VTK_TEST_FAIL("POINTS type %s", type);
            f->n_points = n1;
            if (!vtk_test_block(&c, 3 * n1, 0, &f->points, NULL)) VTK_TEST_FAIL("bad POINTS data");
        } else if (sscanf(line, "CELLS %zu %zu", &n1, &n2) == 2) {
            f->n_cells = n1;
            f->cells_size = n2;
            if (!vtk_test_block(&c, n2, 1, NULL, &f->cells)) VTK_TEST_FAIL("bad CELLS data");
        } else if (sscanf(line, "CELL_TYPES %zu", &n1) == 1) {
            if (n1 != f->n_cells) VTK_TEST_FAIL("CELL_TYPES %zu != CELLS %zu", n1, f->n_cells);
            if (!vtk_test_block(&c, n1, 1, NULL, &f->types)) VTK_TEST_FAIL("bad CELL_TYPES data");
        } else if (sscanf(line, "POINT_DATA %zu", &n1) == 1 || sscanf(line, "CELL_DATA %zu", &n1) == 1) {
            if (!section_arrays) VTK_TEST_FAIL("empty attribute section before \"%.100s\"", line);
            where = line[0] == 'P' ? VTK_TEST_POINT : VTK_TEST_CELL;
            if (n1 != (where == VTK_TEST_POINT ? f->n_points : f->n_cells))
                VTK_TEST_FAIL("\"%.100s\" does not match the geometry", line);
            section_n = n1;
            section_arrays = 0;
        } else if (sscanf(line, "SCALARS %63s %31s %d", word, type, &k) >= 2 ||
                   sscanf(line, "VECTORS %63s %31s", word, type) == 2) {
            int vectors = line[0] == 'V';
            vtk_test_array *arr = &f->arrays[f->n_arrays];
            if (where == VTK_TEST_FIELD) VTK_TEST_FAIL("attribute outside POINT_DATA/CELL_DATA");
            if (f->n_arrays == VTK_TEST_MAX_ARRAYS) VTK_TEST_FAIL("too many arrays");
            snprintf(arr->name, sizeof arr->name, "%s", word);
            arr->where = where;
            arr->is_int = !strcmp(type, "int");
            if (!arr->is_int && strcmp(type, "double")) VTK_TEST_FAIL("array %s type %s", word, type);
            arr->n_comp = vectors ? 3 : (sscanf(line, "SCALARS %*s %*s %d", &k) == 1 ? k : 1);
            arr->n_tuples = section_n;
            ++f->n_arrays;
            ++section_arrays;
            if (!vectors && (!vtk_test_line(&c, line, sizeof line) ||
                             strcmp(line, "LOOKUP_TABLE default")))
                VTK_TEST_FAIL("SCALARS %s without LOOKUP_TABLE default", word);
            if (!vtk_test_block(&c, (size_t)arr->n_comp * section_n, arr->is_int, &arr->d, &arr->i))
                VTK_TEST_FAIL("bad data for %s", word);
        } else {
            VTK_TEST_FAIL("unexpected line \"%.100s\"", line);
        }
    }
    if (!section_arrays) VTK_TEST_FAIL("empty attribute section at end of file");
    free(buf);
    return 0;
fail:
    free(buf);
    {
        char keep[256];
        memcpy(keep, f->error, sizeof keep);
        vtk_test_free(f);
        memcpy(f->error, keep, sizeof keep);
    }
    return -1;
}

#undef VTK_TEST_FAIL
#endif
