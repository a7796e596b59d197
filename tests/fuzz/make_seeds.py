#!/usr/bin/env python3
"""Write the seed corpora of the mesh and surface fuzz targets (tests/fuzz/corpus/<target>/ for
stl, off, ply, poly, vtk, gmsh, opencarp; the layouts are in fuzz_targets.h).

Each target gets small valid files covering the format's variants (ASCII and binary, optional
sections, the orientation and nesting cases hs_surface_check fixes, quadratic tetrahedra) and a
few malformed ones near the readers' error paths; the fuzzer mutates from there. The files are
committed: run this only to change them (python3 tests/fuzz/make_seeds.py). The config, tetgen
and mtx seeds were written by hand and are not touched.

Geometry: the unit cube, as 8 points and 6 outward quads (surfaces) or as 6 positive tetrahedra
around its 0-7 diagonal (volumes, the same as tests/meshes/mesh_read_test_util.h)."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
SEP = b"@"  # HS_FUZZ_SEP

# ---- surfaces ------------------------------------------------------------------------------------

PTS = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
QUADS = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (2, 3, 7, 6), (0, 4, 7, 3), (1, 2, 6, 5)]


def tris(quads=QUADS):
    out = []
    for q in quads:
        out += [(q[0], q[1], q[2]), (q[0], q[2], q[3])]
    return out


def cube(lo=0.0, hi=1.0):
    return [tuple(lo + (hi - lo) * c for c in p) for p in PTS]


def stl_ascii(name, triangles):
    s = "solid %s\n" % name
    for i, t in enumerate(triangles):
        # mixed case and CRLF on one facet, as in real files
        s += "  FACET NORMAL 0 0 0\r\n    OUTER LOOP\r\n" if i == 3 else \
            "  facet normal 0 0 0\n    outer loop\n"
        for p in t:
            s += "      vertex %g %g %g\n" % p
        s += "    endloop\n  endfacet\n"
    return (s + "endsolid %s\n" % name).encode()


def stl_binary(header, triangles):
    b = header.encode().ljust(80, b"\0") + struct.pack("<I", len(triangles))
    for t in triangles:
        b += struct.pack("<3f", 0, 0, 0)
        for p in t:
            b += struct.pack("<3f", *p)
        b += b"\0\0"
    return b


def corners(points, triangles):
    return [tuple(points[i] for i in t) for t in triangles]


def off_text(points, faces, head="OFF\n"):
    s = head + "%d %d 0\n" % (len(points), len(faces))
    s += "".join("%g %g %g\n" % p for p in points)
    s += "".join("%d %s\n" % (len(f), " ".join(map(str, f))) for f in faces)
    return s.encode()


def seeds_surface():
    cube_tris = corners(PTS, tris())
    flipped = tris()
    flipped[0] = flipped[0][::-1]
    flipped[5] = flipped[5][::-1]
    inner = cube(0.25, 0.75)
    hollow = corners(cube(-1, 2), tris()) + corners(inner, tris())  # inner faces out: inverted
    apart = corners(PTS, tris()) + corners(cube(3, 4), tris())
    stl = {
        "cube_ascii.stl": stl_ascii("cube", cube_tris),
        "cube_binary.stl": stl_binary("binary cube", cube_tris),
        "cube_binary_solid_header.stl": stl_binary("solid but binary", cube_tris),
        "flipped_binary.stl": stl_binary("two facets reversed", corners(PTS, flipped)),
        "hollow_ascii.stl": stl_ascii("hollow", hollow),
        "two_shells_binary.stl": stl_binary("two cubes", apart),
        "open_ascii.stl": stl_ascii("open", cube_tris[:-1]),
        "bad_two_vertices.stl": b"solid t\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n"
                                b"   vertex 1 0 0\n  endloop\n endfacet\nendsolid t\n",
        "bad_truncated.stl": stl_binary("truncated", cube_tris)[:84 + 50 * 5 + 20],
        "bad_number.stl": b"solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 zero\n",
    }
    tri_faces = tris()
    tri_faces[7] = tri_faces[7][::-1]
    coff = "COFF 8 12 0\n" + "".join("%g %g %g 0.5 0.5 0.5 1\n" % p for p in PTS) + \
        "".join("3 %d %d %d\n" % t for t in tris())
    dup = list(tris()) + [tris()[0][::-1]]
    degenerate = PTS + [(0.5, 0, 0)]
    off = {
        "cube_quads.off": b"OFF # unit cube\n# comment line\n\n" + off_text(PTS, QUADS, "")
        .replace(b"4 0 1 5 4\n", b"4 0 1 5 4 255 0 0 # colour\n"),
        "cube_coff.off": coff.encode(),
        "cube_one_flipped.off": off_text(PTS, tri_faces),
        "hollow.off": off_text(cube(-1, 2) + inner,
                               QUADS + [tuple(i + 8 for i in q[::-1]) for q in QUADS]),
        "duplicate_facet.off": off_text(PTS, dup),
        "degenerate_facet.off": off_text(degenerate, [(0, 8, 1)] + tris()),
        "bad_range.off": b"OFF\n4 1 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 1 4\n",
        "bad_short_face.off": b"OFF\n4 1 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 1\n",
    }
    head_a = ("ply\nformat ascii 1.0\ncomment unit cube\nelement vertex 8\nproperty float x\n"
              "property float y\nproperty float z\nproperty float nx\nelement face 12\n"
              "property list uchar int vertex_indices\nelement note 1\n"
              "property list uchar uchar text\nend_header\n")
    ply_a = head_a + "".join("%g %g %g 0.25\n" % p for p in PTS) + \
        "".join("3 %d %d %d\n" % t for t in tris()) + "2 104 105\n"
    head_b = ("ply\nformat binary_little_endian 1.0\nelement vertex 8\nproperty uchar red\n"
              "property double x\nproperty double y\nproperty double z\nproperty float nx\n"
              "element edge 1\nproperty int vertex1\nproperty int vertex2\n"
              "element face 6\nproperty list uchar uint vertex_indices\nproperty int flags\n"
              "end_header\n")
    body = b"".join(struct.pack("<B3df", 200, *p, 0.5) for p in PTS) + struct.pack("<ii", 0, 1)
    body += b"".join(struct.pack("<B4Ii", 4, *q, 7) for q in QUADS)
    head_c = ("ply\nformat binary_little_endian 1.0\nelement vertex 8\nproperty float x\n"
              "property float y\nproperty float z\nelement face 12\n"
              "property list uchar int vertex_index\nend_header\n")
    body_c = b"".join(struct.pack("<3f", *p) for p in PTS) + \
        b"".join(struct.pack("<B3i", 3, *t) for t in tris())
    ply = {
        "cube_ascii.ply": ply_a.encode(),
        "cube_binary_quads.ply": head_b.encode() + body,
        "cube_binary_float.ply": head_c.encode() + body_c,
        "bad_big_endian.ply": head_c.replace("little", "big").encode() + body_c,
        "bad_truncated.ply": head_c.encode() + body_c[:8 * 12 + 2 * 13 + 5],
        "bad_extra_field.ply": (head_a.replace("element note 1\nproperty list uchar uchar text\n",
                                               "") + "".join("%g %g %g 0\n" % p for p in PTS)
                                + "3 0 1 2 9\n").encode(),
    }
    # .poly: 1-based, an attribute and markers, the top facet as two triangles and a segment
    poly = "# cube\n8 3 1 1\n" + "".join("%d %g %g %g 0.5 %d\n" % (i + 1, *p, i % 2)
                                         for i, p in enumerate(PTS)) + "6 1\n"
    for k, q in enumerate(QUADS):
        v = [i + 1 for i in q]
        if k == 1:
            poly += "3 0 %d\n3 %d %d %d\n3 %d %d %d\n2 %d %d\n" % (
                k + 1, v[0], v[1], v[2], v[0], v[2], v[3], v[0], v[2])
        else:
            poly += "1 0 %d\n4 %d %d %d %d\n" % (k + 1, *v)
    poly += "1\n1 5 5 5\n1\n1 0.5 0.5 0.5 3 0.01\n"
    node = "8 3 0 0\n" + "".join("%d %g %g %g\n" % (i, *p) for i, p in enumerate(PTS))
    side = "0 3 0 0\n6 0\n" + "".join("1\n4 %d %d %d %d\n" % q for q in QUADS)
    smesh = "#smesh: the fuzz target writes this input as a .smesh file\n" + node + "12 1\n" + \
        "".join("3 %d %d %d %d\n" % (*t, 10 + k // 2) for k, t in enumerate(tris())) + "0\n0\n"
    pts4 = "4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n"
    polyc = {
        "cube.poly": poly.encode(),
        "side_node.poly": side.encode() + SEP + node.encode(),
        "cube.smesh": smesh.encode(),
        "bad_facet_hole.poly": (pts4 + "1 0\n1 1\n3 0 1 2\n1 0.2 0.2 0\n").encode(),
        "bad_range.poly": (pts4 + "1 0\n1\n3 0 1 4\n").encode(),
        "bad_marker.smesh": ("#smesh\n" + pts4 + "1 0\n3 0 1 2 7\n").encode(),
        "bad_missing_node.poly": b"0 3 0 0\n",
    }
    return {"stl": stl, "off": off, "ply": ply, "poly": polyc}


# ---- volumes -------------------------------------------------------------------------------------

def corner(i):
    return (i & 1, (i >> 1) & 1, (i >> 2) & 1)


TETS = [(0, 1, 3, 7), (0, 2, 6, 7), (0, 4, 5, 7), (0, 1, 7, 5), (0, 2, 7, 3), (0, 4, 7, 6)]
TRIS = [(0, 1, 3), (0, 2, 3), (4, 5, 7), (4, 7, 6)]
TRI_LABEL = [1, 1, 2, 2]
# one 10-node tetrahedron: corners, then the midpoints of edges 0-1, 1-2, 2-0, 0-3, 1-3, 2-3
# (VTK order) or 0-1, 1-2, 2-0, 3-0, 3-2, 3-1 (Gmsh order)
QT = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
VTK_EDGES = [(0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3)]
GMSH_EDGES = [(0, 1), (1, 2), (2, 0), (3, 0), (3, 2), (3, 1)]


def mid(a, b):
    return tuple((x + y) / 2 for x, y in zip(QT[a], QT[b]))


def fiber(e):
    import math
    a = 0.3 * e
    return (3 * math.cos(a), 3 * math.sin(a), 3.0 if e == 5 else 0.0)


class Vtk:
    """Legacy VTK writer: ASCII or BINARY (big-endian) values."""

    def __init__(self, binary):
        self.binary, self.out = binary, b""

    def text(self, s):
        self.out += s.encode()

    def values(self, kind, vals):
        if self.binary:
            fmt = {"d": "d", "f": "f", "i": "i", "l": "q", "s": "h", "c": "B"}[kind]
            self.out += struct.pack(">%d%s" % (len(vals), fmt), *vals) + b"\n"
        else:
            self.out += (" ".join("%.17g" % v for v in vals) + "\n").encode()


def vtk_cube(binary=False, v51=False, extras=False, fibers=True, reverse=False):
    # reverse: nodes 2 and 3 swapped in every tet (the other convention, which the reader undoes)
    # or, when "one", in tet 4 only (a broken mesh, which hs_mesh_check reports)
    cells = [(list(t[:2]) + ([t[3], t[2]] if reverse is True or (reverse == "one" and e == 4)
                             else [t[2], t[3]]), 10) for e, t in enumerate(TETS)]
    if extras:
        cells += [([0], 1), ([0, 7], 3)] + [(list(t), 5) for t in TRIS] + [([0, 1, 5], 5)]
    region = [1, 1, 1, 2, 2, 2] + ([9, 9] + TRI_LABEL + [0] if extras else [])
    w = Vtk(binary)
    w.text("# vtk DataFile Version %s\nseed cube\n%s\nDATASET UNSTRUCTURED_GRID\n"
           % ("5.1" if v51 else "3.0", "BINARY" if binary else "ASCII"))
    if extras:
        w.text("FIELD FieldData 1\nTIME 1 1 double\n")
        w.values("d", [2.5])
    w.text("POINTS 8 %s\n" % ("float" if binary else "double"))
    w.values("f" if binary else "d", [c for i in range(8) for c in corner(i)])
    n, conn = len(cells), sum(len(c) for c, _ in cells)
    if v51:
        w.text("CELLS %d %d\nOFFSETS vtktypeint64\n" % (n + 1, conn))
        offs, o = [0], 0
        for c, _ in cells:
            o += len(c)
            offs.append(o)
        w.values("l", offs)
        w.text("CONNECTIVITY vtktypeint64\n")
        w.values("l", [v for c, _ in cells for v in c])
    else:
        w.text("CELLS %d %d\n" % (n, n + conn))
        w.values("i", [x for c, _ in cells for x in [len(c)] + c])
    w.text("CELL_TYPES %d\n" % n)
    w.values("i", [t for _, t in cells])
    w.text("CELL_DATA %d\n" % n)
    if extras:
        w.text("SCALARS pressure float 2\nLOOKUP_TABLE default\n")
        w.values("f", [0.25 * c for c in range(2 * n)])
    w.text("SCALARS %s %s 1\nLOOKUP_TABLE default\n"
           % ("elemTag" if v51 else "region", "short" if binary else "int"))
    w.values("s" if binary else "i", region)
    if fibers:
        vals = [x for c in range(n) for x in (fiber(c) if c < 6 else (0, 0, 0))]
        if extras:
            w.text("FIELD FieldData 2\nflags 1 %d unsigned_char\n" % n)
            w.values("c", [c % 3 for c in range(n)])
            w.text("Fibres 3 %d %s\n" % (n, "float" if binary else "double"))
        else:
            w.text("VECTORS fiber %s\n" % ("float" if binary else "double"))
        w.values("f" if binary else "d", vals)
    if extras:
        w.text("POINT_DATA 8\nSCALARS phi float\nLOOKUP_TABLE default\n")
        w.values("f", [0.1 * i for i in range(8)])
        w.text("VECTORS fiber double\n")
        w.values("d", [0.0] * 24)
    return w.out


def vtk_quadratic():
    pts = QT + [mid(a, b) for a, b in VTK_EDGES]
    w = Vtk(False)
    w.text("# vtk DataFile Version 3.0\nquadratic tet\nASCII\nDATASET UNSTRUCTURED_GRID\n")
    w.text("POINTS 10 double\n")
    w.values("d", [c for p in pts for c in p])
    w.text("CELLS 1 11\n")
    w.values("i", [10] + list(range(10)))
    w.text("CELL_TYPES 1\n")
    w.values("i", [24])
    return w.out


def seeds_vtk():
    hexa = vtk_cube(fibers=False).split(b"CELLS")[0] + \
        b"CELLS 1 9\n8 0 1 3 2 4 5 7 6\nCELL_TYPES 1\n12\n"
    return {
        "cube_ascii.vtk": vtk_cube(),
        "cube_binary.vtk": vtk_cube(binary=True),
        "cube_ascii_extras.vtk": vtk_cube(extras=True),
        "cube_binary_extras.vtk": vtk_cube(binary=True, extras=True),
        "cube_ascii_51.vtk": vtk_cube(v51=True, fibers=False),
        "cube_binary_51.vtk": vtk_cube(binary=True, v51=True),
        "cube_reversed.vtk": vtk_cube(fibers=False, reverse=True),
        "one_inverted.vtk": vtk_cube(binary=True, fibers=False, reverse="one"),
        "quadratic_tet.vtk": vtk_quadratic(),
        "bad_hexahedron.vtk": hexa,
        "bad_polydata.vtk": b"# vtk DataFile Version 3.0\nx\nASCII\nDATASET POLYDATA\n",
    }


NAMES = ('$PhysicalNames\n4\n2 1 "base"\n2 2 "epi surface"\n3 1 "myocardium"\n3 2 "scar"\n'
         '$EndPhysicalNames\n')
ORDER = [7, 6, 5, -1, 4, 3, 2, 1, 0]  # cube corner at each file position; -1 an unused point


def tag(pos):
    return 1000 - 37 * pos


def node_xyz(pos):
    return corner(ORDER[pos]) if ORDER[pos] >= 0 else (5, 5, 5)


def tags(corners_):
    return " ".join(str(tag(ORDER.index(c))) for c in corners_)


def msh22():
    s = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Comments\nanything $Nodes\n$EndComments\n" + NAMES
    s += "$Nodes\n9\n" + "".join("%d %g %g %g\n" % (tag(p), *node_xyz(p)) for p in range(9))
    s += "$EndNodes\n$Elements\n13\n"
    s += "1 15 2 0 1 %d\n2 1 2 0 3 %d %d\n" % (tag(3), tag(0), tag(8))
    i = 3
    for t, lab in zip(TRIS, TRI_LABEL):
        s += "%d 2 2 %d %d %s\n" % (i, lab, 10 + i, tags(t))
        i += 1
    s += "%d 2 0 %s\n" % (i, tags((0, 1, 5)))
    i += 1
    for e, t in enumerate(TETS):
        s += "%d 4 2 %d 5 %s\n" % (i, 1 if e < 3 else 2, tags(t))
        i += 1
    s += "$EndElements\n$NodeData\n1\n\"phi\"\n1\n0.0\n3\n0\n1\n0\n$EndNodeData\n"
    return s.encode()


def msh4(minor):
    blocks = [(3, 1, [0, 1, 2]), (0, 7, [3]), (3, 2, [4, 5, 6, 7, 8])]
    s = "$MeshFormat\n4.%d 0 8\n$EndMeshFormat\n" % minor + NAMES
    s += "$Entities\n1 1 3 2\n" + ("7 5 5 5 0\n" if minor else "7 5 5 5 5 5 5 0\n")
    s += "4 0 0 0 1 0 0 0 2 7 -7\n"
    s += "1 0 0 0 1 1 0 1 1 0\n2 0 0 1 1 1 1 2 2 3 0\n3 0 0 0 1 0 1 0 0\n"
    s += "1 0 0 0 1 1 1 1 1 0\n2 0 0 0 1 1 1 1 2 0\n$EndEntities\n"
    s += "$Nodes\n3 9 %d %d\n" % (tag(8), tag(0)) if minor else "$Nodes\n3 9\n"
    for dim, ent, pos in blocks:
        if minor:
            s += "%d %d 0 %d\n" % (dim, ent, len(pos))
            s += "".join("%d\n" % tag(p) for p in pos)
            s += "".join("%g %g %g\n" % node_xyz(p) for p in pos)
        else:
            s += "%d %d 0 %d\n" % (ent, dim, len(pos))
            s += "".join("%d %g %g %g\n" % (tag(p), *node_xyz(p)) for p in pos)
    s += "$EndNodes\n$Elements\n" + ("6 12 1 12\n" if minor else "6 12\n")

    def block(dim, ent, typ, n):
        return "%d %d %d %d\n" % (((dim, ent) if minor else (ent, dim)) + (typ, n))
    i = 1
    s += block(0, 7, 15, 1) + "%d %d\n" % (i, tag(3))
    i += 1
    for k in range(2):
        s += block(2, k + 1, 2, 2)
        for t in TRIS[2 * k:2 * k + 2]:
            s += "%d %s\n" % (i, tags(t))
            i += 1
    s += block(2, 3, 2, 1) + "%d %s\n" % (i, tags((0, 1, 5)))
    i += 1
    for v in range(2):
        s += block(3, v + 1, 4, 3)
        for t in TETS[3 * v:3 * v + 3]:
            s += "%d %s\n" % (i, tags(t))
            i += 1
    return (s + "$EndElements\n").encode()


def msh22_quadratic():
    pts = QT + [mid(a, b) for a, b in GMSH_EDGES]
    s = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n10\n"
    s += "".join("%d %g %g %g\n" % (i + 1, *p) for i, p in enumerate(pts))
    s += "$EndNodes\n$Elements\n1\n1 11 2 1 1 %s\n$EndElements\n" % " ".join(
        str(i + 1) for i in range(10))
    return s.encode()


def seeds_gmsh():
    return {
        "cube22.msh": msh22(),
        "cube41.msh": msh4(1),
        "cube40.msh": msh4(0),
        "quadratic_tet22.msh": msh22_quadratic(),
        "bad_binary.msh": b"$MeshFormat\n2.2 1 8\n$EndMeshFormat\n",
        "bad_prism.msh": msh22().replace(b"4 2 1 5 ", b"6 2 1 5 ", 1),
        "bad_node_tag.msh": msh22().replace(b"%d 4 2 1 5 %d" % (8, tag(ORDER.index(0))),
                                            b"8 4 2 1 5 4242", 1),
    }


def seeds_opencarp():
    # points in um as openCARP writes them, an unused point last
    pts = "9\n" + "".join("%g %g %g\n" % tuple(1000 * c for c in corner(i)) for i in range(8))
    pts += "7000 7000 7000\n"
    elem = "6\n" + "".join("Tt %d %d %d %d %d\n" % (*t, 1 if e < 3 else 2)
                           for e, t in enumerate(TETS))
    rev = "6\n" + "".join("Tt %d %d %d %d\n" % (t[0], t[1], t[3], t[2]) for t in TETS)

    def lon(layout):
        s = "%d\n" % layout if layout else ""
        return s + "".join("%.17g %.17g %.17g%s\n" % (*fiber(e), " 0 0 1" if layout == 2 else "")
                           for e in range(6))

    def carp(p, e, lo=None):
        b = p.encode() + SEP + e.encode()
        return b if lo is None else b + SEP + lo.encode()
    return {
        "cube_lon1": carp(pts, elem, lon(1)),
        "cube_lon2": carp(pts, elem, lon(2)),
        "cube_lon_headerless": carp(pts, elem, lon(0)),
        "cube_no_lon": carp(pts, elem),
        "cube_reversed": carp(pts, rev),
        "bad_element_type": carp(pts, elem.replace("Tt 0 2 6 7", "Hx 0 2 6 7 1 3 4 5", 1)),
        "bad_node_range": carp(pts, elem.replace("Tt 0 4 7 6", "Tt 0 4 7 9", 1)),
        "bad_lon_zero": carp(pts, elem, lon(1).replace(lon(1).splitlines()[3], "0 0 0")),
        "bad_lon_short": carp(pts, elem, "\n".join(lon(1).splitlines()[:4]) + "\n"),
    }


def main():
    corpora = seeds_surface()
    corpora.update(vtk=seeds_vtk(), gmsh=seeds_gmsh(), opencarp=seeds_opencarp())
    for target, files in corpora.items():
        d = os.path.join(HERE, "corpus", target)
        os.makedirs(d, exist_ok=True)
        for name, data in files.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        print("corpus/%s: %d files" % (target, len(files)))


if __name__ == "__main__":
    main()
