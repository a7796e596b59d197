/* Surface object (hs_surface.h): allocation, the builder the readers share (surface_internal.h),
 * and hs_surface_read, which picks the reader listed for the file's extension
 * (hs_surface_reader_list.h, looked up with hs_registry). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_surface.h"
#include "hs_text_reader.h"
#include "hs_util.h"
#include "mesh_path.h"
#include "surface_internal.h"

hs_status hs_surface_alloc(int32_t n_points, int32_t n_facets, int32_t n_facet_idx,
                           hs_surface **out)
{
    HS_CHECK(out != NULL, HS_ERR_INTERNAL, "hs_surface_alloc: out is NULL");
    *out = NULL;
    HS_CHECK(n_points >= 0 && n_facets >= 0 && n_facet_idx >= 0, HS_ERR_INTERNAL,
             "hs_surface_alloc: negative size (%d points, %d facets, %d indices)", (int)n_points,
             (int)n_facets, (int)n_facet_idx);
    hs_surface *s = NULL;
    hs_status st = HS_OK;
    HS_CALL(HS_ALLOC(s, 1, "surface"));
    s->n_points = n_points;
    s->n_facets = n_facets;
    /* At least one item each, so a valid pointer comes back even for empty arrays. */
    HS_CALL_GOTO(HS_ALLOC(s->xyz, 3 * (size_t)n_points + 1, "surface points"), fail);
    HS_CALL_GOTO(HS_ALLOC(s->facet_ptr, (size_t)n_facets + 1, "surface facet offsets"), fail);
    HS_CALL_GOTO(HS_ALLOC(s->facet_idx, (size_t)n_facet_idx + 1, "surface facet points"), fail);
    HS_CALL_GOTO(HS_ALLOC(s->facet_marker, (size_t)n_facets + 1, "surface facet markers"), fail);
    *out = s;
    return HS_OK;
fail:
    hs_surface_destroy(&s);
    return st;
}

void hs_surface_destroy(hs_surface **s)
{
    if (s == NULL || *s == NULL) return;
    hs_surface *p = *s;
    free(p->xyz);
    free(p->facet_ptr);
    free(p->facet_idx);
    free(p->facet_marker);
    free(p->holes);
    free(p->regions);
    free(p);
    *s = NULL;
}

/* ---- builder ---- */

void hs_surface_builder_init(hs_surface_builder *b) { memset(b, 0, sizeof *b); }

void hs_surface_builder_free(hs_surface_builder *b)
{
    free(b->s.xyz);
    free(b->s.facet_ptr);
    free(b->s.facet_idx);
    free(b->s.facet_marker);
    free(b->s.holes);
    free(b->s.regions);
    memset(b, 0, sizeof *b);
}

hs_status hs_surface_builder_point(hs_surface_builder *b, double x, double y, double z)
{
    HS_CHECK(b->s.n_points < INT32_MAX, HS_ERR_MESH, "surface has more than 2^31-1 points");
    const size_t n = (size_t)b->s.n_points;
    HS_CALL(hs_grow_array((void **)&b->s.xyz, &b->cap_xyz, n + 1, 3 * sizeof(double),
                          "surface points"));
    b->s.xyz[3 * n + 0] = x;
    b->s.xyz[3 * n + 1] = y;
    b->s.xyz[3 * n + 2] = z;
    ++b->s.n_points;
    return HS_OK;
}

hs_status hs_surface_builder_facet(hs_surface_builder *b, const int32_t *v, int32_t n,
                                   int32_t marker)
{
    HS_CHECK(n >= 1, HS_ERR_INTERNAL, "surface builder: facet with %d points", (int)n);
    HS_CHECK(b->s.n_facets < INT32_MAX - 1 && b->n_idx + (size_t)n <= INT32_MAX, HS_ERR_MESH,
             "surface has more than 2^31-1 facets or facet corners");
    const size_t f = (size_t)b->s.n_facets;
    HS_CALL(hs_grow_array((void **)&b->s.facet_ptr, &b->cap_ptr, f + 2, sizeof(int32_t),
                          "surface facets"));
    HS_CALL(hs_grow_array((void **)&b->s.facet_marker, &b->cap_marker, f + 1, sizeof(int32_t),
                          "surface facet markers"));
    HS_CALL(hs_grow_array((void **)&b->s.facet_idx, &b->cap_idx, b->n_idx + (size_t)n,
                          sizeof(int32_t), "surface facet corners"));
    if (f == 0) b->s.facet_ptr[0] = 0;
    memcpy(b->s.facet_idx + b->n_idx, v, (size_t)n * sizeof(int32_t));
    b->n_idx += (size_t)n;
    b->s.facet_ptr[f + 1] = (int32_t)b->n_idx;
    b->s.facet_marker[f] = marker;
    ++b->s.n_facets;
    return HS_OK;
}

hs_status hs_surface_builder_hole(hs_surface_builder *b, double x, double y, double z)
{
    const size_t n = (size_t)b->s.n_holes;
    HS_CHECK(n < INT32_MAX, HS_ERR_MESH, "surface has more than 2^31-1 holes");
    HS_CALL(hs_grow_array((void **)&b->s.holes, &b->cap_holes, n + 1, 3 * sizeof(double),
                          "hole points"));
    b->s.holes[3 * n + 0] = x;
    b->s.holes[3 * n + 1] = y;
    b->s.holes[3 * n + 2] = z;
    ++b->s.n_holes;
    return HS_OK;
}

hs_status hs_surface_builder_region(hs_surface_builder *b, const double r[5])
{
    const size_t n = (size_t)b->s.n_regions;
    HS_CHECK(n < INT32_MAX, HS_ERR_MESH, "surface has more than 2^31-1 regions");
    HS_CALL(hs_grow_array((void **)&b->s.regions, &b->cap_regions, n + 1, 5 * sizeof(double),
                          "region points"));
    memcpy(b->s.regions + 5 * n, r, 5 * sizeof(double));
    ++b->s.n_regions;
    return HS_OK;
}

/* Give back the unused tail of a grown array; keeps the original block if realloc fails. */
static void *shrink(void *p, size_t bytes)
{
    if (p == NULL) return NULL;
    void *q = realloc(p, bytes ? bytes : 1);
    return q ? q : p;
}

hs_status hs_surface_builder_finish(hs_surface_builder *b, hs_surface **out)
{
    hs_surface *s = NULL;
    HS_CALL(HS_ALLOC(s, 1, "surface"));
    *s = b->s;
    if (s->facet_ptr == NULL) {
        /* No facets: still hand out a valid facet_ptr = {0} (readers refuse this case anyway). */
        hs_status st = HS_ALLOC(s->facet_ptr, 1, "surface facet offsets");
        if (st != HS_OK) {
            free(s);
            return st;
        }
    }
    s->xyz = shrink(s->xyz, 3 * (size_t)s->n_points * sizeof(double));
    s->facet_ptr = shrink(s->facet_ptr, ((size_t)s->n_facets + 1) * sizeof(int32_t));
    s->facet_idx = shrink(s->facet_idx, b->n_idx * sizeof(int32_t));
    s->facet_marker = shrink(s->facet_marker, (size_t)s->n_facets * sizeof(int32_t));
    s->holes = shrink(s->holes, 3 * (size_t)s->n_holes * sizeof(double));
    s->regions = shrink(s->regions, 5 * (size_t)s->n_regions * sizeof(double));
    memset(b, 0, sizeof *b);
    *out = s;
    return HS_OK;
}

hs_status hs_surface_check_scale(const char *path, double scale)
{
    HS_CHECK(isfinite(scale) && scale > 0.0, HS_ERR_MESH,
             "%s: coordinate scale %g must be a positive number (10 for cm, 1000 for m, 1 for mm)",
             path ? path : "(surface)", scale);
    return HS_OK;
}

/* ---- dispatch ---- */

static const hs_surface_reader k_readers[] = {
#define HS_SURFACE_READER(ext, read, label_arrays, summary) {ext, read, summary, label_arrays},
#include "hs_surface_reader_list.h"
#undef HS_SURFACE_READER
};

static const hs_registry k_registry = HS_REGISTRY_INIT("surface format", k_readers);

const hs_registry *hs_surface_readers(void) { return &k_registry; }

hs_status hs_surface_read(const char *path, double scale, double weld_tol, hs_surface **out)
{
    const hs_surface_read_opts o = {.weld_tol = weld_tol, .label_array = NULL};
    return hs_surface_read_with(path, scale, &o, out);
}

hs_status hs_surface_read_with(const char *path, double scale, const hs_surface_read_opts *o, hs_surface **out)
{
    const hs_surface_read_opts none = {0.0, NULL};
    if (!o) o = &none;
    HS_CHECK(out != NULL, HS_ERR_INTERNAL, "hs_surface_read: out is NULL");
    *out = NULL;
    HS_CHECK(path != NULL && path[0] != '\0', HS_ERR_MESH, "surface file path is empty");
    const char *dot = hs_path_ext(path);
    char known[256];
    HS_CHECK(dot != NULL, HS_ERR_MESH,
             "%s: cannot tell the surface format: the file name has no extension (known: %s)",
             path, hs_registry_names(&k_registry, known, sizeof known));
    const hs_surface_reader *r = hs_registry_find_ext(&k_registry, path);
    if (r) {
        HS_CHECK(!(o->label_array && o->label_array[0]) || r->label_arrays, HS_ERR_CONFIG,
                 "mesh.label_array = \"%s\": %s is a %s file, which has no named cell arrays (facet labels "
                 "come from named arrays in .vtp surfaces only; .poly/.smesh carry facet markers); remove the key",
                 o->label_array, path, r->name);
        return r->read(path, scale, o, out);
    }
    return HS_FAIL(HS_ERR_MESH, "%s: unknown surface format '%s' (known: %s)", path, dot,
                   hs_registry_names(&k_registry, known, sizeof known));
}
