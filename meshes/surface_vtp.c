/* Reader for XML VTK PolyData surfaces (.vtp), for mesh.source = "surface": the file is parsed and
 * its arrays decoded by vtk_xml.c (ascii, base64, appended raw/base64, zlib; header UInt32/UInt64;
 * either byte order). Polys (any polygon of >= 3 points) become facets; Verts and Lines are skipped;
 * Strips are refused (ParaView: Filters > Triangulate, then save again). A CellData array named as
 * the volume readers' region arrays (region, tag, material, CellEntityIds, ...; 1 integral
 * component), or the one mesh.label_array names, gives the facets' markers, which become boundary
 * labels of the volume mesh; CellData arrays none of which is taken are warned about, by name. VTK
 * numbers cell data over Verts, Lines, Polys, Strips in that order. Point indices are 0-based as in
 * the file. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_surface.h"
#include "hs_text_reader.h"
#include "hs_util.h"
#include "surface_internal.h"
#include "vtk_xml.h"

static int is_region(const char *s) { return hs_vtk_is_region_name(s); }

static long long count_or_zero(long long n) { return n < 0 ? 0 : n; }

/* The CellData arrays for messages: "class" (Int32, 1 component), "normals" (Float32, 3 components) */
static const char *cell_arrays(const hs_vtkx_file *f, char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < f->n_arr && o < n; ++i) {
        const hs_vtkx_array *a = &f->arr[i];
        if (a->section != HS_VTKX_CELL_DATA) continue;
        o += (size_t)snprintf(buf + o, n - o, "%s\"%s\" (%s, %d component%s)", o ? ", " : "", a->name,
                              hs_vtkx_type_name(a->type), a->ncomp, a->ncomp == 1 ? "" : "s");
    }
    return buf[0] ? buf : "none";
}

/* The array of facet markers: the one @p name names, else the first 1-component region-named one. */
static hs_status marker_array(const hs_vtkx_file *f, const char *path, const char *name, const hs_vtkx_array **out)
{
    char found[1024];
    *out = NULL;
    if (name && name[0]) {
        const hs_vtkx_array *a = hs_vtkx_find_name(f, HS_VTKX_CELL_DATA, name);
        HS_CHECK(a != NULL, HS_ERR_MESH,
                 "%s: mesh.label_array = \"%s\": the file has no CellData array of that name; its CellData "
                 "arrays: %s",
                 path, name, cell_arrays(f, found, sizeof found));
        HS_CHECK(a->ncomp == 1, HS_ERR_MESH,
                 "%s:%ld: mesh.label_array = \"%s\": the array has %d components; facet labels are one integer "
                 "per polygon",
                 path, a->line, name, a->ncomp);
        *out = a;
        return HS_OK;
    }
    const hs_vtkx_array *a = hs_vtkx_find(f, HS_VTKX_CELL_DATA, is_region);
    if (a && a->ncomp == 1) {
        *out = a;
        return HS_OK;
    }
    if (!hs_vtkx_find(f, HS_VTKX_CELL_DATA, NULL)) return HS_OK; /* a plain surface: nothing to say */
    const char *example = NULL; /* the first array that could hold labels */
    for (size_t i = 0; i < f->n_arr && !example; ++i)
        if (f->arr[i].section == HS_VTKX_CELL_DATA && f->arr[i].ncomp == 1 && f->arr[i].name[0])
            example = f->arr[i].name;
    char hint[128] = "";
    if (example) snprintf(hint, sizeof hint, " (e.g. mesh.label_array = \"%.64s\")", example);
    hs_warn("%s: no facet labels read: its CellData arrays are %s; labels are read from a 1-component integer "
            "array named %s (any case), or from the one mesh.label_array names%s",
            path, cell_arrays(f, found, sizeof found), hs_vtk_region_names(), hint);
    return HS_OK;
}

hs_status hs_surface_read_vtp(const char *path, double scale, const char *label_array, hs_surface **out)
{
    HS_CHECK(out != NULL, HS_ERR_INTERNAL, "hs_surface_read_vtp: out is NULL");
    *out = NULL;
    HS_CALL(hs_surface_check_scale(path, scale));
    hs_vtkx_file *f = NULL;
    hs_vtkx_values pts = {0}, conn = {0}, off = {0}, marker = {0};
    hs_surface_builder b;
    hs_surface_builder_init(&b);
    int32_t *poly = NULL;
    size_t cap_poly = 0;
    hs_status st = HS_OK;
    HS_CALL(hs_vtkx_read(path, "PolyData", " (a .vtp holds a PolyData surface; a volume mesh is a "
                         ".vtu, for mesh.source = \"file\")", &f));
    const long long np = f->n_points, nv = count_or_zero(f->n_verts), nl = count_or_zero(f->n_lines);
    const long long npoly = count_or_zero(f->n_polys), ns = count_or_zero(f->n_strips);
    HS_CHECK_GOTO(ns == 0, done, HS_ERR_MESH,
                  "%s: the surface has %lld triangle strips; heartsim reads polygons (Polys): "
                  "ParaView: Filters > Triangulate, then save again",
                  path, ns);
    HS_CHECK_GOTO(npoly > 0, done, HS_ERR_MESH,
                  "%s: the Piece has no polygons (NumberOfPolys); a surface for TetGen needs "
                  "triangles or polygons",
                  path);
    const hs_vtkx_array *ap = hs_vtkx_find(f, HS_VTKX_POINTS, NULL);
    HS_CHECK_GOTO(ap != NULL, done, HS_ERR_MESH, "%s: the Piece has no <Points> DataArray", path);
    HS_CHECK_GOTO(ap->ncomp == 3, done, HS_ERR_MESH,
                  "%s:%ld: Points DataArray has %d components; expected 3", path, ap->line, ap->ncomp);
    HS_CALL_GOTO(hs_vtkx_decode(f, ap, 3 * np, &pts), done);
    for (long long i = 0; i < np; ++i) {
        const double x = hs_vtkx_get(&pts, 3 * (size_t)i), y = hs_vtkx_get(&pts, 3 * (size_t)i + 1),
                     z = hs_vtkx_get(&pts, 3 * (size_t)i + 2);
        HS_CALL_GOTO(hs_surface_builder_point(&b, scale * x, scale * y, scale * z), done);
    }
    HS_CALL_GOTO(hs_vtkx_cells(f, HS_VTKX_POLYS, "Polys", npoly, &conn, &off), done);
    const hs_vtkx_array *am = NULL;
    HS_CALL_GOTO(marker_array(f, path, label_array, &am), done);
    if (am) HS_CALL_GOTO(hs_vtkx_decode_int(f, am, nv + nl + npoly + ns, &marker), done);
    const hs_vtkx_array *aoff = hs_vtkx_find_name(f, HS_VTKX_POLYS, "offsets");
    for (long long c = 0; c < npoly; ++c) {
        const int64_t start = c ? off.i[c - 1] : 0, n = off.i[c] - start;
        HS_CHECK_GOTO(n >= 3, done, HS_ERR_MESH,
                      "%s:%ld: polygon %lld (0-based) has %lld points; expected at least 3", path,
                      aoff->line, c, (long long)n);
        HS_CALL_GOTO(hs_grow_array((void **)&poly, &cap_poly, (size_t)n, sizeof *poly, "polygon"), done);
        for (int64_t k = 0; k < n; ++k) poly[k] = (int32_t)conn.i[start + k]; /* checked < np */
        int64_t m = marker.n ? marker.i[nv + nl + c] : 0;
        HS_CHECK_GOTO(m >= INT32_MIN && m <= INT32_MAX, done, HS_ERR_MESH,
                      "%s:%ld: marker %lld of polygon %lld does not fit 32 bits", path, am->line,
                      (long long)m, c);
        HS_CALL_GOTO(hs_surface_builder_facet(&b, poly, (int32_t)n, (int32_t)m), done);
    }
    HS_CALL_GOTO(hs_surface_builder_finish(&b, out), done);
done:
    hs_surface_builder_free(&b);
    free(poly);
    hs_vtkx_values_free(&pts);
    hs_vtkx_values_free(&conn);
    hs_vtkx_values_free(&off);
    hs_vtkx_values_free(&marker);
    hs_vtkx_destroy(&f);
    return st;
}

/* The listed reader (hs_surface_reader_list.h). */
hs_status hs_surface_reader_vtp(const char *path, double scale, const hs_surface_read_opts *o, hs_surface **out)
{
    /* points are shared by the polygons, nothing to weld */
    return hs_surface_read_vtp(path, scale, o->label_array, out);
}
