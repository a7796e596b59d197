/* Reader for XML VTK unstructured grids (.vtu): the file is parsed and its arrays decoded by
 * vtk_xml.c (ascii, base64, appended raw/base64, zlib; header UInt32/UInt64; either byte order).
 *
 * Kept, as for legacy VTK (mesh_read_vtk.c): tetrahedra (type 10; 24 = quadratic, corners kept when
 * linearising, else refused saying how) as elements; a CellData array named region, regions, tag,
 * material, elemTag, gmsh:physical or CellEntityIds (1 integral component) as region markers,
 * triangles with a non-zero marker as labelled boundary faces; a CellData array named fiber, fibers,
 * fibre or fibres (3 components, normalised) as fibres. Vertices, lines and unlabelled triangles are
 * skipped; any other cell type is refused, naming the cell (0-based, as VTK numbers cells) and its
 * VTK type. PointData and other arrays are skipped (not decoded). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_mesh_io.h"
#include "hs_text_reader.h"
#include "hs_util.h"
#include "mesh_read_internal.h"
#include "vtk_xml.h"

static int is_region(const char *s) { return hs_vtk_is_region_name(s); }
static int is_fiber(const char *s) { return hs_vtk_is_fiber_name(s); }

/* The cell arrays heartsim keeps; *region / *fiber stay empty when absent. */
static hs_status cell_data(const hs_vtkx_file *f, long long nc, hs_vtkx_values *region,
                           hs_vtkx_values *fiber, const hs_vtkx_array **fiber_arr)
{
    const hs_vtkx_array *ar = NULL, *af = NULL;
    for (size_t i = 0; i < f->n_arr; ++i) {
        const hs_vtkx_array *a = &f->arr[i];
        if (a->section != HS_VTKX_CELL_DATA) continue;
        if (!ar && a->ncomp == 1 && is_region(a->name)) ar = a;
        if (!af && a->ncomp == 3 && is_fiber(a->name)) af = a;
    }
    if (ar) HS_CALL(hs_vtkx_decode_int(f, ar, nc, region));
    if (af) HS_CALL(hs_vtkx_decode(f, af, 3 * nc, fiber));
    *fiber_arr = af;
    return HS_OK;
}

hs_status hs_mesh_read_vtu(const char *path, const hs_mesh_read_opts *o, hs_mesh **out)
{
    HS_CHECK(out != NULL, HS_ERR_INTERNAL, "hs_mesh_read_vtu: out is NULL");
    *out = NULL;
    HS_CHECK(path != NULL && path[0] != '\0', HS_ERR_MESH, "VTU file path is empty");
    hs_vtkx_file *f = NULL;
    hs_vtkx_values pts = {0}, conn = {0}, off = {0}, types = {0}, region = {0}, fiber = {0};
    const hs_vtkx_array *fiber_arr = NULL;
    hs_mesh_parts p;
    memset(&p, 0, sizeof p);
    p.path = path;
    p.numbering = "VTK cell and point indices, 0-based";
    hs_status st = HS_OK;
    size_t cap_fiber = 0;
    HS_CALL(hs_vtkx_read(path, "UnstructuredGrid", " (a .vtu holds an UnstructuredGrid; a PolyData "
                         "surface is a .vtp, for mesh.source = \"surface\")", &f));
    HS_CHECK_GOTO(f->n_cells >= 0, done, HS_ERR_MESH, "%s: Piece has no NumberOfCells", path);
    const long long np = f->n_points, nc = f->n_cells;
    const hs_vtkx_array *ap = hs_vtkx_find(f, HS_VTKX_POINTS, NULL);
    HS_CHECK_GOTO(ap != NULL, done, HS_ERR_MESH, "%s: the Piece has no <Points> DataArray", path);
    HS_CHECK_GOTO(ap->ncomp == 3, done, HS_ERR_MESH,
                  "%s:%ld: Points DataArray has %d components; expected 3", path, ap->line, ap->ncomp);
    HS_CALL_GOTO(hs_vtkx_decode(f, ap, 3 * np, &pts), done);
    for (long long i = 0; i < np; ++i) {
        const double x[3] = {hs_vtkx_get(&pts, 3 * (size_t)i), hs_vtkx_get(&pts, 3 * (size_t)i + 1),
                             hs_vtkx_get(&pts, 3 * (size_t)i + 2)};
        HS_CALL_GOTO(hs_mesh_parts_add_node(&p, x), done);
    }
    HS_CALL_GOTO(hs_vtkx_cells(f, HS_VTKX_CELLS, "Cells", nc, &conn, &off), done);
    const hs_vtkx_array *at = hs_vtkx_find_name(f, HS_VTKX_CELLS, "types");
    HS_CHECK_GOTO(at != NULL, done, HS_ERR_MESH, "%s: <Cells> has no DataArray \"types\"", path);
    HS_CALL_GOTO(hs_vtkx_decode_int(f, at, nc, &types), done);
    HS_CALL_GOTO(cell_data(f, nc, &region, &fiber, &fiber_arr), done);

    const int linearize = o && o->linearize;
    size_t n_tets = 0;
    for (long long c = 0; c < nc; ++c) {
        const int64_t t = types.i[c], start = c ? off.i[c - 1] : 0, npts = off.i[c] - start;
        const int64_t *q = conn.i + start;
        const char *name = hs_vtk_cell_type_name(t);
        if (t == HS_VTK_VERTEX || t == HS_VTK_LINE || t == HS_VTK_TRIANGLE || t == HS_VTK_TETRA ||
            t == HS_VTK_QUADRATIC_TETRA) {
            static const int expect[25] = {[HS_VTK_VERTEX] = 1, [HS_VTK_LINE] = 2,
                                           [HS_VTK_TRIANGLE] = 3, [HS_VTK_TETRA] = 4,
                                           [HS_VTK_QUADRATIC_TETRA] = 10};
            HS_CHECK_GOTO(npts == expect[t], done, HS_ERR_MESH,
                          "%s:%ld: cell %lld is a %s (VTK type %lld) with %lld points; expected %d",
                          path, at->line, c, name, (long long)t, (long long)npts, expect[t]);
            HS_CHECK_GOTO(t != HS_VTK_QUADRATIC_TETRA || linearize, done, HS_ERR_MESH,
                          "%s:%ld: cell %lld (0-based) is a quadratic (10-node) tetrahedron (VTK "
                          "type 24); heartsim uses linear tetrahedra: set mesh.quadratic = "
                          "\"linearize\" in the config to keep the corner nodes and drop the "
                          "mid-edge ones",
                          path, at->line, c);
        } else if (name) {
            st = HS_FAIL(HS_ERR_MESH,
                         "%s:%ld: cell %lld (0-based) is a %s (VTK type %lld); heartsim reads "
                         "tetrahedra (type 10) only, skipping vertices, lines and triangles: "
                         "re-mesh the volume with tetrahedra",
                         path, at->line, c, name, (long long)t);
            goto done;
        } else {
            st = HS_FAIL(HS_ERR_MESH,
                         "%s:%ld: cell %lld (0-based) has VTK type %lld, which is not a cell type "
                         "heartsim knows; heartsim reads tetrahedra (type 10)",
                         path, at->line, c, (long long)t);
            goto done;
        }
        if (t == HS_VTK_VERTEX || t == HS_VTK_LINE) continue;
        int32_t v[4];
        for (int k = 0; k < 4 && k < npts; ++k) v[k] = (int32_t)q[k]; /* checked < n_points */
        int64_t rg = region.i ? region.i[c] : 0;
        HS_CHECK_GOTO(rg >= INT32_MIN && rg <= INT32_MAX, done, HS_ERR_MESH,
                      "%s: region marker %lld of cell %lld does not fit 32 bits", path,
                      (long long)rg, c);
        if (t == HS_VTK_TRIANGLE) {
            if (rg != 0) HS_CALL_GOTO(hs_mesh_parts_add_bface(&p, v, (int32_t)rg, 0), done);
            continue;
        }
        HS_CALL_GOTO(hs_mesh_parts_add_tet(&p, v, (int32_t)rg), done);
        HS_CALL_GOTO(hs_mesh_parts_tet_id(&p, c), done);
        if (t == HS_VTK_QUADRATIC_TETRA) ++p.n_linearized;
        if (fiber.n) {
            double fv[3] = {hs_vtkx_get(&fiber, 3 * (size_t)c), hs_vtkx_get(&fiber, 3 * (size_t)c + 1),
                            hs_vtkx_get(&fiber, 3 * (size_t)c + 2)};
            HS_CHECK_GOTO(hs_unit_vector(fv), done, HS_ERR_MESH,
                          "%s:%ld: fibre of cell %lld (0-based) in array \"%s\" is the zero vector; "
                          "every tetrahedron needs a direction",
                          path, fiber_arr->line, c, fiber_arr->name);
            HS_CALL_GOTO(hs_grow_array((void **)&p.fiber, &cap_fiber, n_tets + 1,
                                       3 * sizeof(double), "fibres"),
                         done);
            memcpy(p.fiber + 3 * n_tets, fv, sizeof fv);
        }
        ++n_tets;
    }
    st = hs_mesh_parts_finish(&p, out);
done:
    hs_mesh_parts_free(&p);
    hs_vtkx_values_free(&pts);
    hs_vtkx_values_free(&conn);
    hs_vtkx_values_free(&off);
    hs_vtkx_values_free(&types);
    hs_vtkx_values_free(&region);
    hs_vtkx_values_free(&fiber);
    hs_vtkx_destroy(&f);
    return st;
}
