/* What the legacy (mesh_read_vtk.c) and XML (mesh_read_vtu.c, surface_vtp.c) VTK readers share
 * (vtk_xml.h): the names of the VTK cell types, for refusals, and the names of the cell arrays that
 * hold region markers and fibres. */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdio.h>
#include <strings.h>

#include "vtk_xml.h"

/* Names of the VTK cell types (vtkCellType.h), for refusals. */
const char *hs_vtk_cell_type_name(long long t)
{
    static const struct {
        int type;
        const char *name;
    } names[] = {{1, "vertex"},
                 {2, "poly-vertex"},
                 {3, "line"},
                 {4, "polyline"},
                 {5, "triangle"},
                 {6, "triangle strip"},
                 {7, "polygon"},
                 {8, "pixel"},
                 {9, "quad"},
                 {10, "tetrahedron"},
                 {11, "voxel"},
                 {12, "hexahedron"},
                 {13, "wedge (prism)"},
                 {14, "pyramid"},
                 {15, "pentagonal prism"},
                 {16, "hexagonal prism"},
                 {21, "quadratic edge"},
                 {22, "quadratic triangle"},
                 {23, "quadratic quad"},
                 {24, "quadratic tetrahedron"},
                 {25, "quadratic hexahedron"},
                 {26, "quadratic wedge"},
                 {27, "quadratic pyramid"},
                 {28, "biquadratic quad"},
                 {29, "triquadratic hexahedron"},
                 {30, "quadratic-linear quad"},
                 {31, "quadratic-linear wedge"},
                 {32, "biquadratic-quadratic wedge"},
                 {33, "biquadratic-quadratic hexahedron"},
                 {34, "biquadratic triangle"},
                 {35, "cubic line"},
                 {36, "quadratic polygon"},
                 {41, "convex point set"},
                 {42, "polyhedron"},
                 {68, "Lagrange curve"},
                 {69, "Lagrange triangle"},
                 {70, "Lagrange quadrilateral"},
                 {71, "Lagrange tetrahedron"},
                 {72, "Lagrange hexahedron"},
                 {73, "Lagrange wedge"},
                 {74, "Lagrange pyramid"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (names[i].type == t) return names[i].name;
    return NULL;
}

/* Cell arrays kept, by name (case-insensitive). */
static const char *const region_names[] = {"region", "regions",       "tag",          "material",
                                           "elemTag", "gmsh:physical", "CellEntityIds"};

int hs_vtk_is_region_name(const char *s)
{
    for (size_t i = 0; i < sizeof region_names / sizeof region_names[0]; ++i)
        if (strcasecmp(s, region_names[i]) == 0) return 1;
    return 0;
}

const char *hs_vtk_region_names(void)
{
    static char list[160];
    if (!list[0]) {
        size_t o = 0;
        for (size_t i = 0; i < sizeof region_names / sizeof region_names[0] && o < sizeof list; ++i)
            o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", i ? ", " : "", region_names[i]);
    }
    return list;
}

int hs_vtk_is_fiber_name(const char *s)
{
    return strcasecmp(s, "fiber") == 0 || strcasecmp(s, "fibers") == 0 ||
           strcasecmp(s, "fibre") == 0 || strcasecmp(s, "fibres") == 0;
}
