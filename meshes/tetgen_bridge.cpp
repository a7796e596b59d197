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
//  - With 'p', the output trifacelist holds the faces lying on input facets (boundary and internal
//    facets) with trifacemarkerlist = the facet's marker (0 stays 0). Their orientation is not
//    promised either; hs_tetgen_mesh_surface orients them itself.
//  - Self-intersecting input: libtet 1.5.0 throws 3 during constrained Delaunay without printing
//    which facets cross (even without 'Q'); the 'd' switch (detect intersections only) returns the
//    crossing triangles in trifacelist, so a second, cheap run with 'd' names them.
//  - The minimum-dihedral bound (-q<r>/<deg>) can make refinement run forever when the input has
//    sharper angles than the bound (a single tet with -q1.2/25 was seen to run for minutes).
//    'S<n>' caps the Steiner points TetGen adds, so every run ends; reaching the cap is an error.
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
// tests/meshes/test_mesh_tetgen_box checks that a self-intersecting surface gives an error, which
// it would not if this override were not in effect.
#define terminatetetgen hs_tetgen_header_terminatetetgen_unused
#include <tetgen.h>
#undef terminatetetgen

__attribute__((visibility("default"), noreturn)) void terminatetetgen(tetgenmesh *, int x)
{
    throw x;
}

#include "hs_surface.h" // C headers with their own extern "C" guards
#include "hs_tetgen.h"
#include "hs_util.h"
#include "tetgen_internal.h"

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

extern "C" double hs_tetgen_volume_for_edge(double h)
{
    return h * h * h / (6.0 * std::sqrt(2.0));
}

namespace {

// Enclosed volume of a closed, outward-oriented polygon surface (divergence theorem, each
// polygon fanned from its first corner); only used to size TetGen's Steiner-point cap, so its
// sign convention does not matter (the absolute value is taken).
double surface_volume(const hs_surface *s)
{
    double v6 = 0.0;
    for (int32_t f = 0; f < s->n_facets; ++f) {
        const int32_t b = s->facet_ptr[f], e = s->facet_ptr[f + 1];
        const double *a = s->xyz + 3 * (size_t)s->facet_idx[b];
        for (int32_t k = b + 1; k + 1 < e; ++k) {
            const double *p = s->xyz + 3 * (size_t)s->facet_idx[k];
            const double *q = s->xyz + 3 * (size_t)s->facet_idx[k + 1];
            v6 += a[0] * (p[1] * q[2] - p[2] * q[1]) - a[1] * (p[0] * q[2] - p[2] * q[0]) +
                  a[2] * (p[0] * q[1] - p[1] * q[0]);
        }
    }
    return std::fabs(v6) / 6.0;
}

// Cap on the Steiner points TetGen may add ('S'). A TetGen mesh under -a<v> has about one node
// per v of volume (tets average v/4..v/6, about 5.5 tets per node), and quality refinement alone
// adds a few points per surface point; the cap is 50x and 100x those, so only a refinement that
// cannot reach its bounds meets it.
long steiner_cap(const hs_surface *s, const hs_tetgen_opts *o)
{
    double vmin = o->max_volume > 0.0 ? o->max_volume : 0.0;
    for (int32_t r = 0; r < s->n_regions; ++r) {
        const double v = s->regions[5 * (size_t)r + 4];
        if (v > 0.0 && (vmin <= 0.0 || v < vmin)) vmin = v;
    }
    double cap = 10000.0 + 100.0 * (double)s->n_points;
    if (vmin > 0.0) cap += 50.0 * surface_volume(s) / vmin;
    return cap > 1e9 ? 1000000000L : (long)cap;
}

hs_status validate_opts(const hs_surface *s, const hs_tetgen_opts *o)
{
    HS_CHECK(std::isfinite(o->radius_edge) && std::isfinite(o->min_dihedral_deg) &&
                 std::isfinite(o->max_volume),
             HS_ERR_MESH,
             "TetGen bounds must be finite (radius-edge %g, min dihedral %g deg, max volume %g "
             "mm^3)",
             o->radius_edge, o->min_dihedral_deg, o->max_volume);
    // As in hs_tetgen_mesh_plc: termination is only known for radius-edge bounds above 1.
    HS_CHECK(o->radius_edge <= 0.0 || o->radius_edge >= 1.0, HS_ERR_MESH,
             "TetGen radius-edge bound %g is below 1.0, for which refinement may not terminate; "
             "use a value >= 1.0 (e.g. 1.414), or <= 0 for no quality bound",
             o->radius_edge);
    HS_CHECK(o->min_dihedral_deg <= 0.0 || o->radius_edge > 0.0, HS_ERR_MESH,
             "TetGen minimum dihedral angle %g deg needs quality refinement: set a radius-edge "
             "bound >= 1.0 as well",
             o->min_dihedral_deg);
    // Delaunay refinement reaches dihedral bounds of 10-20 degrees in practice; far above, it
    // keeps inserting points until the Steiner cap stops it.
    HS_CHECK(o->min_dihedral_deg <= 30.0, HS_ERR_MESH,
             "TetGen minimum dihedral angle %g deg is above 30 deg, which refinement cannot "
             "reach; use 0 (TetGen's default) or a value up to about 18",
             o->min_dihedral_deg);
    for (int32_t h = 0; h < s->n_holes; ++h)
        for (int k = 0; k < 3; ++k)
            HS_CHECK(s->holes && std::isfinite(s->holes[3 * (size_t)h + k]), HS_ERR_MESH,
                     "surface hole %ld has a non-finite coordinate", (long)h);
    for (int32_t r = 0; r < s->n_regions; ++r)
        for (int k = 0; k < 5; ++k)
            HS_CHECK(s->regions && std::isfinite(s->regions[5 * (size_t)r + k]), HS_ERR_MESH,
                     "surface region %ld has a non-finite value (x, y, z, attribute, max volume)",
                     (long)r);
    return HS_OK;
}

// The input facet that holds triangle (a, b, c) (TetGen's 'd' output uses input point numbers):
// the first facet whose corner list contains all three, or -1.
int32_t facet_of_triangle(const hs_surface *s, int a, int b, int c)
{
    for (int32_t f = 0; f < s->n_facets; ++f) {
        int found = 0;
        for (int32_t k = s->facet_ptr[f]; k < s->facet_ptr[f + 1]; ++k) {
            const int32_t v = s->facet_idx[k];
            found += (v == a) + (v == b) + (v == c);
        }
        if (found == 3) return f;
    }
    return -1;
}

// After TetGen refused the surface as self-intersecting: rerun with 'd' (intersection detection
// only, no meshing) and describe up to two of the facets it lists. Never throws.
void describe_intersection(const hs_surface *s, const hs_plc *plc, char *buf, size_t len)
{
    buf[0] = '\0';
    try {
        tetgenio in, res;
        fill_tetgenio(plc, in);
        char sw[] = "pdzQ";
        tetrahedralize(sw, &in, &res);
        if (res.numberoftrifaces <= 0 || !res.trifacelist) return;
        int used = std::snprintf(buf, len, "; %d facet triangles cross other facets, e.g.",
                                 res.numberoftrifaces);
        const int base = res.firstnumber;
        for (int i = 0; i < res.numberoftrifaces && i < 2 && used > 0 && (size_t)used < len; ++i) {
            const int *t = res.trifacelist + 3 * (size_t)i;
            const int a = t[0] - base, b = t[1] - base, c = t[2] - base;
            if (a < 0 || b < 0 || c < 0 || a >= s->n_points || b >= s->n_points ||
                c >= s->n_points)
                break;
            const int32_t f = facet_of_triangle(s, a, b, c);
            double ctr[3];
            for (int k = 0; k < 3; ++k)
                ctr[k] = (s->xyz[3 * (size_t)a + k] + s->xyz[3 * (size_t)b + k] +
                          s->xyz[3 * (size_t)c + k]) /
                         3.0;
            used += std::snprintf(buf + used, len - (size_t)used,
                                  "%s facet %ld (marker %ld) near (%g, %g, %g)",
                                  i ? " and" : "", (long)f,
                                  (long)(f >= 0 && s->facet_marker ? s->facet_marker[f] : 0),
                                  ctr[0], ctr[1], ctr[2]);
        }
    } catch (...) {
        buf[0] = '\0';
    }
}

// Copy the facet triangles that lie on the boundary (one adjacent tet) with a non-zero marker
// into m->bface / bface_label, oriented outwards: each triangle's normal (b-a)x(c-a) points away
// from the fourth node of its tet. Triangles on internal facets (two adjacent tets) are dropped:
// bface is the boundary surface. Does not throw (only C calls and arithmetic).
hs_status copy_bfaces(const tetgenio &out, hs_mesh *m)
{
    const int nf = out.numberoftrifaces;
    if (nf <= 0 || !out.trifacelist || !out.trifacemarkerlist) return hs_mesh_alloc_bfaces(m, 0);
    const int base = out.firstnumber;
    const int32_t n = m->n_nodes, ne = m->n_elems;
    hs_status st = HS_OK;
    int64_t *ptr = NULL; // node -> tets CSR
    int32_t *n2e = NULL, *keep = NULL, *flip = NULL;
    int32_t n_keep = 0;
    HS_CALL_GOTO(HS_ALLOC(ptr, (size_t)n + 1, "node-to-tet offsets"), done);
    HS_CALL_GOTO(HS_ALLOC(n2e, (size_t)ne * 4, "node-to-tet map"), done);
    HS_CALL_GOTO(HS_ALLOC(keep, (size_t)nf, "boundary face list"), done);
    HS_CALL_GOTO(HS_ALLOC(flip, (size_t)nf, "boundary face orientation"), done);
    for (size_t i = 0; i < (size_t)ne * 4; ++i) ++ptr[m->tets[i] + 1];
    for (int32_t v = 0; v < n; ++v) ptr[v + 1] += ptr[v];
    for (int32_t e = 0; e < ne; ++e)
        for (int k = 0; k < 4; ++k) n2e[ptr[m->tets[4 * (size_t)e + k]]++] = e;
    for (int32_t v = n; v > 0; --v) ptr[v] = ptr[v - 1]; // undo the fill shift
    ptr[0] = 0;
    for (int i = 0; i < nf; ++i) {
        if (out.trifacemarkerlist[i] == 0) continue;
        int32_t v[3];
        for (int k = 0; k < 3; ++k) {
            v[k] = out.trifacelist[3 * (size_t)i + k] - base;
            HS_CHECK_GOTO(v[k] >= 0 && v[k] < n, done, HS_ERR_INTERNAL,
                          "TetGen boundary face %d refers to point %ld, out of range 0..%ld", i,
                          (long)v[k], (long)n - 1);
        }
        int n_adj = 0, other = -1;
        for (int64_t q = ptr[v[0]]; q < ptr[v[0] + 1]; ++q) {
            const int32_t *t = m->tets + 4 * (size_t)n2e[q];
            int hit = 0, rest = -1;
            for (int k = 0; k < 4; ++k) {
                if (t[k] == v[0] || t[k] == v[1] || t[k] == v[2])
                    ++hit;
                else
                    rest = t[k];
            }
            if (hit == 3) {
                ++n_adj;
                other = rest;
            }
        }
        HS_CHECK_GOTO(n_adj == 1 || n_adj == 2, done, HS_ERR_INTERNAL,
                      "TetGen boundary face %d (points %ld %ld %ld) belongs to %d tetrahedra", i,
                      (long)v[0], (long)v[1], (long)v[2], n_adj);
        if (n_adj == 2) continue;
        const double *p = m->xyz;
        flip[n_keep] = det6(p + 3 * (size_t)v[0], p + 3 * (size_t)v[1], p + 3 * (size_t)v[2],
                            p + 3 * (size_t)other) > 0.0;
        keep[n_keep++] = i;
    }
    HS_CALL_GOTO(hs_mesh_alloc_bfaces(m, n_keep), done);
    for (int32_t j = 0; j < n_keep; ++j) {
        const int *t = out.trifacelist + 3 * (size_t)keep[j];
        // det6(a, b, c, d) > 0 means d lies on the side (b-a)x(c-a) points to: the inside.
        m->bface[3 * (size_t)j + 0] = t[0] - base;
        m->bface[3 * (size_t)j + 1] = (flip[j] ? t[2] : t[1]) - base;
        m->bface[3 * (size_t)j + 2] = (flip[j] ? t[1] : t[2]) - base;
        m->bface_label[j] = out.trifacemarkerlist[keep[j]];
    }
done:
    free(ptr);
    free(n2e);
    free(keep);
    free(flip);
    return st;
}

// Holes, regions and markers on top of fill_tetgenio. May throw std::bad_alloc.
void fill_surface_extras(const hs_surface *s, tetgenio &in)
{
    for (int32_t f = 0; f < s->n_facets; ++f)
        in.facetmarkerlist[f] = s->facet_marker ? s->facet_marker[f] : 0;
    if (s->n_holes > 0) {
        in.holelist = new REAL[3 * (size_t)s->n_holes];
        in.numberofholes = s->n_holes;
        for (size_t i = 0; i < 3 * (size_t)s->n_holes; ++i) in.holelist[i] = s->holes[i];
    }
    if (s->n_regions > 0) {
        in.regionlist = new REAL[5 * (size_t)s->n_regions];
        in.numberofregions = s->n_regions;
        for (int32_t r = 0; r < s->n_regions; ++r) {
            for (int k = 0; k < 4; ++k) in.regionlist[5 * (size_t)r + k] = s->regions[5 * (size_t)r + k];
            const double v = s->regions[5 * (size_t)r + 4];
            in.regionlist[5 * (size_t)r + 4] = v > 0.0 ? v : -1.0; // TetGen: <= 0 is no bound
        }
    }
}

} // namespace

namespace {

hs_status mesh_surface(const hs_surface *s, const hs_tetgen_opts *o, bool keep_surface,
                       hs_mesh **out)
{
    HS_CHECK(s != NULL && o != NULL && out != NULL, HS_ERR_INTERNAL,
             "hs_tetgen_mesh_surface: NULL argument");
    *out = NULL;
    const hs_plc plc = {s->n_points, s->xyz, s->n_facets, s->facet_ptr, s->facet_idx};
    HS_CALL(validate_plc(&plc));
    HS_CALL(validate_opts(s, o));

    // p: PLC; q<r>/<deg>: quality; A: region attributes (only with seeds: without them TetGen
    // numbers regions itself and the documented "0 without seeds" would not hold); a: per-region
    // volume bounds, a<v>: global bound; S<n>: Steiner cap; z: 0-based; Q: quiet.
    bool region_vol = false;
    for (int32_t r = 0; r < s->n_regions; ++r) region_vol |= s->regions[5 * (size_t)r + 4] > 0.0;
    const long cap = steiner_cap(s, o);
    char sw[160];
    int len = std::snprintf(sw, sizeof sw, "p");
    if (o->radius_edge > 0.0) {
        len += std::snprintf(sw + len, sizeof sw - len, "q%.6g", o->radius_edge);
        if (o->min_dihedral_deg > 0.0)
            len += std::snprintf(sw + len, sizeof sw - len, "/%.6g", o->min_dihedral_deg);
    }
    if (s->n_regions > 0) len += std::snprintf(sw + len, sizeof sw - len, "A");
    if (region_vol) len += std::snprintf(sw + len, sizeof sw - len, "a");
    if (o->max_volume > 0.0)
        len += std::snprintf(sw + len, sizeof sw - len, "a%.17g", o->max_volume);
    if (keep_surface) len += std::snprintf(sw + len, sizeof sw - len, "Y");
    len += std::snprintf(sw + len, sizeof sw - len, "S%ldz", cap);
    if (!o->verbose) std::snprintf(sw + len, sizeof sw - len, "Q");

    int code = 0;
    char what[256] = "";
    hs_status st = HS_OK;
    int n_added = 0;
    try {
        tetgenio in, res;
        fill_tetgenio(&plc, in);
        fill_surface_extras(s, in);
        tetrahedralize(sw, &in, &res);
        n_added = res.numberofpoints - s->n_points;
        if (n_added < cap) {
            st = copy_output(res, out);
            if (st == HS_OK) st = copy_bfaces(res, *out);
        }
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
    if (code == 0 && n_added >= cap) {
        hs_mesh_destroy(out);
        return HS_FAIL(HS_ERR_MESH,
                       "TetGen stopped after adding %d points (the cap for this surface) without "
                       "meeting the quality bounds (switches \"%s\"): the bounds are probably "
                       "unreachable for this surface (sharp input angles below the minimum "
                       "dihedral angle %g deg?); relax them",
                       n_added, sw, o->min_dihedral_deg);
    }
    if (code == 0) {
        if (st != HS_OK) {
            hs_mesh_destroy(out);
            hs_error_prefix("TetGen (switches \"%s\"): ", sw);
        }
        return st;
    }
    hs_mesh_destroy(out);
    if (code == 1)
        return HS_FAIL(HS_ERR_MEMORY,
                       "TetGen ran out of memory (switches \"%s\"; %ld points, %ld facets); use a "
                       "larger element size",
                       sw, (long)s->n_points, (long)s->n_facets);
    if (code == -1)
        return HS_FAIL(HS_ERR_MESH,
                       "TetGen failed with an unexpected exception%s (switches \"%s\")", what, sw);
    if (code == 3) {
        char where[512];
        describe_intersection(s, &plc, where, sizeof where);
        return HS_FAIL(HS_ERR_MESH,
                       "the surface intersects itself (TetGen: code 3, two facets cross each "
                       "other%s); fix the surface (e.g. in MeshLab or with a remesher) and retry",
                       where);
    }
    return HS_FAIL(HS_ERR_MESH,
                   "TetGen failed (code %d): %s (switches \"%s\"; %ld points, %ld facets)", code,
                   tetgen_reason(code), sw, (long)s->n_points, (long)s->n_facets);
}

} // namespace

extern "C" hs_status hs_tetgen_mesh_surface(const hs_surface *s, const hs_tetgen_opts *o,
                                            hs_mesh **out)
{
    return mesh_surface(s, o, false, out);
}

extern "C" hs_status hs_tetgen_mesh_surface_keep(const hs_surface *s, const hs_tetgen_opts *o,
                                                 hs_mesh **out)
{
    return mesh_surface(s, o, true, out);
}
