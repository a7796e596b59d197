// The TetGen bridge: the only C++ in heartsim. It turns an hs_plc into TetGen's tetgenio, runs
// tetrahedralize(), and copies the result into an hs_mesh. No exception leaves this file: TetGen
// reports failures by `throw int` (TETLIBRARY build), and tetgenio allocates with new.
//
// TetGen 1.5 conventions that matter here:
//  - Output numbering starts at out.firstnumber; the 'z' switch makes it 0, and we still subtract
//    it so a future change of switches cannot shift every index by one.
//  - Orientation: the manual does not promise one. libtet 1.5.0 (Debian) was observed to return
//    tets with (x1-x0).((x2-x0)x(x3-x0)) > 0, heartsim's convention, but nothing here relies on
//    it: each tet's sign is computed and two nodes are swapped when it is negative.
//  - With 'A' and no region list, TetGen numbers the regions itself from 1 (a box gets 1).
//  - tetgenio's destructor delete[]s every non-NULL list, so input lists are allocated with new[].
#include <cmath>
#include <cstdio>
#include <cstring>
#include <new>

// TetGen 1.5.0 (Debian's libtet1.5) has a double free on every error path: its terminatetetgen()
// calls tetgenmesh::freememory() and then throws, and the exception unwinds through
// tetrahedralize(), whose local tetgenmesh destructor calls freememory() again on the same,
// now dangling, pools -> SIGSEGV instead of an error (TetGen 1.5.1 fixed it; meshpy issue #21 is
// the same crash). libtet exports terminatetetgen as a weak symbol and all its call sites go
// through the PLT, so the definition below, linked into the executable, is the one the dynamic
// linker binds: it only throws and leaves the freeing to the destructor. The header's inline copy
// is renamed out of the way so this file holds a single definition of the name.
// tests/mesh/test_mesh_tetgen_box checks that a self-intersecting surface gives an error, which
// it would not if this override were not in effect.
#define terminatetetgen hs_tetgen_header_terminatetetgen_unused
#include <tetgen.h>
#undef terminatetetgen

__attribute__((visibility("default"), noreturn)) void terminatetetgen(tetgenmesh *, int x)
{
    throw x;
}

#include "hs_tetgen.h" // C headers with their own extern "C" guards
#include "hs_util.h"

namespace {

// Words for TetGen's terminatetetgen() codes (tetgen.h, TetGen 1.5).
const char *tetgen_reason(int code)
{
    switch (code) {
    case 1: return "out of memory";
    case 2: return "internal error in TetGen (often caused by nearly degenerate input)";
    case 3: return "the surface intersects itself (two facets cross each other)";
    case 4: return "a feature of the surface is smaller than TetGen's tolerance "
                   "(very short edge or very close points)";
    case 5: return "two facets are too close to each other or overlap";
    case 10: return "invalid input (switches or PLC rejected by TetGen)";
    default: return "unknown failure";
    }
}

hs_status validate_plc(const hs_plc *plc)
{
    HS_CHECK(plc->n_points >= 4, HS_ERR_MESH,
             "surface has %ld points; a closed surface needs at least 4", (long)plc->n_points);
    HS_CHECK(plc->n_facets >= 4, HS_ERR_MESH,
             "surface has %ld facets; a closed surface needs at least 4", (long)plc->n_facets);
    HS_CHECK(plc->xyz && plc->facet_ptr && plc->facet_idx, HS_ERR_INTERNAL,
             "surface arrays are NULL");
    for (int32_t i = 0; i < 3 * plc->n_points; ++i)
        HS_CHECK(std::isfinite(plc->xyz[i]), HS_ERR_MESH,
                 "surface point %ld has a non-finite coordinate", (long)(i / 3));
    HS_CHECK(plc->facet_ptr[0] == 0, HS_ERR_INTERNAL, "surface facet_ptr[0] = %ld, expected 0",
             (long)plc->facet_ptr[0]);
    for (int32_t f = 0; f < plc->n_facets; ++f) {
        const int32_t b = plc->facet_ptr[f], e = plc->facet_ptr[f + 1];
        HS_CHECK(e - b >= 3, HS_ERR_MESH,
                 "surface facet %ld has %ld corners; a polygon needs at least 3", (long)f,
                 (long)(e - b));
        for (int32_t k = b; k < e; ++k)
            HS_CHECK(plc->facet_idx[k] >= 0 && plc->facet_idx[k] < plc->n_points, HS_ERR_MESH,
                     "surface facet %ld refers to point %ld, out of range 0..%ld", (long)f,
                     (long)plc->facet_idx[k], (long)plc->n_points - 1);
    }
    return HS_OK;
}

// Fill `in` (0-based) from the PLC. May throw std::bad_alloc.
void fill_tetgenio(const hs_plc *plc, tetgenio &in)
{
    in.firstnumber = 0;
    in.numberofpoints = plc->n_points;
    in.pointlist = new REAL[3 * (size_t)plc->n_points];
    for (size_t i = 0; i < 3 * (size_t)plc->n_points; ++i) in.pointlist[i] = plc->xyz[i];

    in.numberoffacets = 0; // raised one facet at a time so the destructor frees only what exists
    in.facetlist = new tetgenio::facet[plc->n_facets];
    in.facetmarkerlist = new int[plc->n_facets];
    for (int32_t f = 0; f < plc->n_facets; ++f) {
        tetgenio::facet *fc = &in.facetlist[f];
        tetgenio::init(fc);
        in.facetmarkerlist[f] = 0;
        ++in.numberoffacets;
        fc->polygonlist = new tetgenio::polygon[1];
        tetgenio::init(&fc->polygonlist[0]);
        fc->numberofpolygons = 1;
        const int32_t b = plc->facet_ptr[f], n = plc->facet_ptr[f + 1] - b;
        fc->polygonlist[0].vertexlist = new int[n];
        fc->polygonlist[0].numberofvertices = n;
        for (int32_t k = 0; k < n; ++k) fc->polygonlist[0].vertexlist[k] = plc->facet_idx[b + k];
    }
}

double det6(const REAL *a, const REAL *b, const REAL *c, const REAL *d)
{
    const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const double w[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
    return u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
           u[2] * (v[0] * w[1] - v[1] * w[0]);
}

// Copy TetGen's output into a new hs_mesh. Does not throw (only C calls and arithmetic).
hs_status copy_output(const tetgenio &out, hs_mesh **mesh)
{
    HS_CHECK(out.numberoftetrahedra > 0, HS_ERR_MESH,
             "TetGen produced no tetrahedra: the surface is probably not closed (a missing facet "
             "or a gap between facets)");
    HS_CHECK(out.numberofcorners == 4, HS_ERR_INTERNAL,
             "TetGen returned %d-node tetrahedra, expected 4", out.numberofcorners);
    HS_CHECK(out.pointlist && out.tetrahedronlist, HS_ERR_INTERNAL,
             "TetGen returned no point or tetrahedron list");
    const int base = out.firstnumber;
    const int np = out.numberofpoints, ne = out.numberoftetrahedra;
    hs_mesh *m = NULL;
    HS_CALL(hs_mesh_alloc(np, ne, &m));
    for (size_t i = 0; i < 3 * (size_t)np; ++i) m->xyz[i] = out.pointlist[i];
    const bool has_attr = out.numberoftetrahedronattributes > 0 && out.tetrahedronattributelist;
    for (int e = 0; e < ne; ++e) {
        int32_t *t = m->tets + 4 * (size_t)e;
        for (int k = 0; k < 4; ++k) {
            const int v = out.tetrahedronlist[4 * (size_t)e + k] - base;
            if (v < 0 || v >= np) {
                hs_mesh_destroy(&m);
                return HS_FAIL(HS_ERR_INTERNAL,
                               "TetGen tetrahedron %d refers to point %d, out of range 0..%d", e,
                               v, np - 1);
            }
            t[k] = v;
        }
        // Orientation per hs_mesh.h: swapping two nodes flips the sign.
        if (det6(m->xyz + 3 * (size_t)t[0], m->xyz + 3 * (size_t)t[1], m->xyz + 3 * (size_t)t[2],
                 m->xyz + 3 * (size_t)t[3]) < 0.0) {
            const int32_t s = t[2];
            t[2] = t[3];
            t[3] = s;
        }
        m->region[e] = has_attr
            ? (int32_t)std::lround(
                  out.tetrahedronattributelist[(size_t)e * out.numberoftetrahedronattributes])
            : 0;
    }
    *mesh = m;
    return HS_OK;
}

} // namespace

extern "C" hs_status hs_tetgen_mesh_plc(const hs_plc *plc, double radius_edge, double max_volume,
                                        hs_mesh **out)
{
    HS_CHECK(plc != NULL && out != NULL, HS_ERR_INTERNAL, "hs_tetgen_mesh_plc: NULL argument");
    *out = NULL;
    HS_CALL(validate_plc(plc));
    HS_CHECK(std::isfinite(radius_edge) && std::isfinite(max_volume), HS_ERR_MESH,
             "TetGen bounds must be finite (radius-edge %g, max volume %g mm^3)", radius_edge,
             max_volume);
    // TetGen's Delaunay refinement is only known to terminate for radius-edge bounds above 1;
    // a smaller one can make it insert points forever.
    HS_CHECK(radius_edge <= 0.0 || radius_edge >= 1.0, HS_ERR_MESH,
             "TetGen radius-edge bound %g is below 1.0, for which refinement may not terminate; "
             "use a value >= 1.0 (e.g. 1.414), or <= 0 for no quality bound",
             radius_edge);

    // Switches: p = PLC input, q<r> = radius-edge bound, a<v> = max volume, z = number from 0,
    // Q = quiet. 'A' (region attributes) is not passed: an hs_plc has no region list, and with
    // 'A' TetGen numbers the regions itself (a box becomes region 1 instead of 0).
    char sw[128];
    int len = std::snprintf(sw, sizeof sw, "p");
    if (radius_edge > 0.0) len += std::snprintf(sw + len, sizeof sw - len, "q%.6g", radius_edge);
    if (max_volume > 0.0) len += std::snprintf(sw + len, sizeof sw - len, "a%.17g", max_volume);
    std::snprintf(sw + len, sizeof sw - len, "zQ");

    int code = 0;
    char what[256] = ""; // copied: the exception object dies with its catch block
    hs_status st = HS_OK;
    try {
        tetgenio in, res;
        fill_tetgenio(plc, in);
        tetrahedralize(sw, &in, &res);
        st = copy_output(res, out);
    } catch (int c) {
        code = c;
    } catch (const std::bad_alloc &) {
        code = 1;
    } catch (const std::exception &ex) {
        code = -1;
        std::snprintf(what, sizeof what, ": %s", ex.what());
    } catch (...) {
        code = -1;
    }
    if (code == 0) {
        if (st != HS_OK) hs_error_prefix("TetGen (switches \"%s\"): ", sw);
        return st;
    }
    hs_mesh_destroy(out);
    if (code == 1)
        return HS_FAIL(HS_ERR_MEMORY,
                       "TetGen ran out of memory (switches \"%s\"; %ld points, %ld facets); use a "
                       "larger element size",
                       sw, (long)plc->n_points, (long)plc->n_facets);
    if (code == -1)
        return HS_FAIL(HS_ERR_MESH,
                       "TetGen failed with an unexpected exception%s (switches \"%s\")", what, sw);
    return HS_FAIL(HS_ERR_MESH,
                   "TetGen failed (code %d): %s (switches \"%s\"; %ld points, %ld facets)", code,
                   tetgen_reason(code), sw, (long)plc->n_points, (long)plc->n_facets);
}
