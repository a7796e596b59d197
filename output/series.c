/*
 * Format-neutral output series (hs_series.h): a table of the formats, each a set of adapters over
 * its writer, selected once by name. Adding a format is its writer plus one row in `formats`.
 */
#include "hs_series.h"

#include <stdlib.h>
#include <string.h>

#include "hs_util.h"
#include "hs_xdmf.h"

typedef struct series_ops {
    const char *name;
    hs_status (*check_prefix)(const char *prefix); /* what create would refuse, HS_ERR_CONFIG */
    hs_status (*create)(const char *dir, const char *prefix, void **out);
    hs_status (*write)(void *impl, const hs_mesh *mesh, const hs_frame *frame);
    int (*count)(const void *impl);
    const char *(*index_path)(const void *impl);
    const double *(*times)(const void *impl);
    hs_status (*resume)(void *impl, const double *times, int n_frames);
    void (*destroy)(void *impl);
} series_ops;

struct hs_series {
    const series_ops *ops;
    void *impl;
};

/* ---- vtk ------------------------------------------------------------------------------------ */

/* The rule hs_vtk_series_create applies (hs_vtk.h has no separate check). */
static hs_status vtk_check_prefix(const char *prefix)
{
    HS_CHECK(prefix && *prefix && !strchr(prefix, '/'), HS_ERR_CONFIG,
             "output prefix \"%s\" must be a non-empty file name without '/'", prefix ? prefix : "(null)");
    return HS_OK;
}

static hs_status vtk_create(const char *dir, const char *prefix, void **out)
{
    hs_vtk_series *s = NULL;
    HS_CALL(hs_vtk_series_create(dir, prefix, &s));
    *out = s;
    return HS_OK;
}
static hs_status vtk_write(void *p, const hs_mesh *m, const hs_frame *f) { return hs_vtk_series_write(p, m, f); }
static int vtk_count(const void *p) { return hs_vtk_series_count(p); }
static const char *vtk_index(const void *p) { return hs_vtk_series_index_path(p); }
static const double *vtk_times(const void *p) { return hs_vtk_series_times(p); }
static hs_status vtk_resume(void *p, const double *t, int n) { return hs_vtk_series_resume(p, t, n); }
static void vtk_destroy(void *p)
{
    hs_vtk_series *s = p;
    hs_vtk_series_destroy(&s);
}

/* ---- xdmf ----------------------------------------------------------------------------------- */

static hs_status xdmf_create(const char *dir, const char *prefix, void **out)
{
    hs_xdmf_series *s = NULL;
    HS_CALL(hs_xdmf_series_create(dir, prefix, &s));
    *out = s;
    return HS_OK;
}
static hs_status xdmf_write(void *p, const hs_mesh *m, const hs_frame *f) { return hs_xdmf_series_write(p, m, f); }
static int xdmf_count(const void *p) { return hs_xdmf_series_count(p); }
static const char *xdmf_index(const void *p) { return hs_xdmf_series_index_path(p); }
static const double *xdmf_times(const void *p) { return hs_xdmf_series_times(p); }
static hs_status xdmf_resume(void *p, const double *t, int n) { return hs_xdmf_series_resume(p, t, n); }
static void xdmf_destroy(void *p)
{
    hs_xdmf_series *s = p;
    hs_xdmf_series_destroy(&s);
}

/* ---- registry ------------------------------------------------------------------------------- */

static const series_ops formats[] = {
    {"vtk", vtk_check_prefix, vtk_create, vtk_write, vtk_count, vtk_index, vtk_times, vtk_resume, vtk_destroy},
    {"xdmf", hs_xdmf_prefix_check, xdmf_create, xdmf_write, xdmf_count, xdmf_index, xdmf_times, xdmf_resume, xdmf_destroy},
};
enum { N_FORMATS = sizeof formats / sizeof formats[0] };

const char *hs_series_format_list(void)
{
    return "vtk, xdmf"; /* the names in `formats`; test_xdmf_series creates a series of each */
}

static const series_ops *find_format(const char *name)
{
    for (int i = 0; i < N_FORMATS; ++i)
        if (name && !strcmp(name, formats[i].name)) return &formats[i];
    return NULL;
}

hs_status hs_series_format_check(const char *format)
{
    HS_CHECK(find_format(format), HS_ERR_CONFIG, "output.format: unknown format \"%s\"; available: %s",
             format ? format : "(null)", hs_series_format_list());
    return HS_OK;
}

hs_status hs_series_check(const char *format, const char *prefix)
{
    HS_CALL(hs_series_format_check(format));
    return find_format(format)->check_prefix(prefix);
}

hs_status hs_series_create(const char *format, const char *dir, const char *prefix, hs_series **out)
{
    *out = NULL;
    HS_CALL(hs_series_format_check(format));
    hs_series *s = NULL;
    HS_CALL(HS_ALLOC(s, 1, "output series"));
    s->ops = find_format(format);
    hs_status st = s->ops->create(dir, prefix, &s->impl);
    if (st != HS_OK) {
        free(s);
        return st;
    }
    *out = s;
    return HS_OK;
}

hs_status hs_series_write(hs_series *s, const hs_mesh *mesh, const hs_frame *frame)
{
    HS_CHECK(s, HS_ERR_INTERNAL, "NULL series");
    return s->ops->write(s->impl, mesh, frame);
}

int hs_series_count(const hs_series *s)
{
    return s ? s->ops->count(s->impl) : 0;
}

const char *hs_series_index_path(const hs_series *s)
{
    return s ? s->ops->index_path(s->impl) : NULL;
}

const double *hs_series_times(const hs_series *s)
{
    return s ? s->ops->times(s->impl) : NULL;
}

const char *hs_series_format(const hs_series *s)
{
    return s ? s->ops->name : NULL;
}

hs_status hs_series_resume(hs_series *s, const double *times, int n_frames)
{
    HS_CHECK(s, HS_ERR_INTERNAL, "NULL series");
    return s->ops->resume(s->impl, times, n_frames);
}

void hs_series_destroy(hs_series **sp)
{
    if (!sp || !*sp) return;
    (*sp)->ops->destroy((*sp)->impl);
    free(*sp);
    *sp = NULL;
}
