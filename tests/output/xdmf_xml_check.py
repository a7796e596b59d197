"""heartsim's XDMF index is well-formed XML that describes exactly the binary files beside it.

usage: python3 xdmf_xml_check.py DIR/PREFIX.xdmf DIR/expected.json

Parses the index with Python's XML parser (so entities, quoting and nesting must be right), then
checks the structure ParaView's readers need: Xdmf > Domain > one temporal Collection of Uniform
grids, each with a Time equal to the written time, a Tetrahedron Topology and an XYZ Geometry of
the right sizes, and the attributes phi, V, activation (Node) and r, fiber, region (Cell). Every
DataItem is read independently (struct, little-endian) from its file at its Seek: the files must
be long enough, each frame file exactly as long as its fields, and the value ranges exactly those
in expected.json. Exit status: 0 when every check passes, 1 otherwise (one line per failure).
"""
import json
import os
import struct
import sys
import xml.etree.ElementTree as ET

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        sys.stderr.write("xdmf_xml_check: " + msg + "\n")
    return cond


FORMATS = {("Float", "8"): "d", ("Float", "4"): "f", ("Int", "4"): "i"}


def read_item(base, item, where):
    """Values of a Binary DataItem as a flat list, its dimensions, and its file; None on failure."""
    a = item.attrib
    if not check(a.get("Format") == "Binary" and a.get("Endian") == "Little",
                 "%s: Format %s Endian %s" % (where, a.get("Format"), a.get("Endian"))):
        return None
    code = FORMATS.get((a.get("NumberType"), a.get("Precision")))
    if not check(code is not None, "%s: type %s%s" % (where, a.get("NumberType"), a.get("Precision"))):
        return None
    dims = [int(d) for d in a["Dimensions"].split()]
    count = 1
    for d in dims:
        count *= d
    name = item.text.strip()
    check("/" not in name, "%s: file %s is not beside the index" % (where, name))
    path = os.path.join(base, name)
    seek = int(a.get("Seek", "0"))
    size = struct.calcsize("<" + code)
    if not check(os.path.exists(path), "%s: %s missing" % (where, path)):
        return None
    if not check(os.path.getsize(path) >= seek + count * size, "%s: %s has %d bytes, needs %d"
                 % (where, path, os.path.getsize(path), seek + count * size)):
        return None
    with open(path, "rb") as f:
        f.seek(seek)
        values = struct.unpack("<%d%s" % (count, code), f.read(count * size))
    return values, dims, name, seek, count * size


def main(index_path, expected_path):
    with open(expected_path) as f:
        exp = json.load(f)
    base = os.path.dirname(index_path)
    check(os.path.basename(index_path) == exp["index"],
          "index %s, expected.json says %s" % (index_path, exp["index"]))
    root = ET.parse(index_path).getroot()  # raises on malformed XML: reported by the caller
    check(root.tag == "Xdmf", "root element %s" % root.tag)
    domains = root.findall("Domain")
    if not check(len(domains) == 1, "%d Domain elements" % len(domains)):
        return
    colls = domains[0].findall("Grid")
    if not check(len(colls) == 1, "%d top-level grids" % len(colls)):
        return
    coll = colls[0]
    check(coll.get("GridType") == "Collection" and coll.get("CollectionType") == "Temporal",
          "top-level grid is %s/%s" % (coll.get("GridType"), coll.get("CollectionType")))
    grids = coll.findall("Grid")
    check(all(g.get("GridType") == "Uniform" for g in grids), "non-Uniform grid in the collection")
    times = [float(g.find("Time").get("Value")) for g in grids]
    check(times == exp["times"], "times %r, expected %r" % (times, exp["times"]))
    npts, ncells = exp["n_points"], exp["n_cells"]

    wanted = {"phi": ("Node", 1), "V": ("Node", 1), "activation": ("Node", 1),
              "r": ("Cell", 1), "fiber": ("Cell", 3), "region": ("Cell", 1)}
    for k, (g, fexp) in enumerate(zip(grids, exp["frames"])):
        where = "frame %d" % k
        topo = g.find("Topology")
        check(topo is not None and topo.get("TopologyType") == "Tetrahedron"
              and topo.get("NumberOfElements") == str(ncells), "%s: topology %r" % (where, topo and topo.attrib))
        t = read_item(base, topo.find("DataItem"), where + " topology")
        if t:
            check(t[1] == [ncells, 4], "%s: topology dims %r" % (where, t[1]))
            check(min(t[0]) == 0 and max(t[0]) == npts - 1, "%s: node indices %d..%d" % (where, min(t[0]), max(t[0])))
        geo = g.find("Geometry")
        check(geo is not None and geo.get("GeometryType") == "XYZ", "%s: geometry" % where)
        x = read_item(base, geo.find("DataItem"), where + " geometry")
        if x:
            check(x[1] == [npts, 3], "%s: geometry dims %r" % (where, x[1]))

        attrs = {a.get("Name"): a for a in g.findall("Attribute")}
        check(set(attrs) == set(wanted), "%s: attributes %s" % (where, sorted(attrs)))
        frame_bytes = {}
        for name, (center, ncomp) in wanted.items():
            a = attrs.get(name)
            if a is None:
                continue
            check(a.get("Center") == center, "%s: %s Center %s" % (where, name, a.get("Center")))
            check(a.get("AttributeType") == ("Vector" if ncomp == 3 else "Scalar"),
                  "%s: %s AttributeType %s" % (where, name, a.get("AttributeType")))
            got = read_item(base, a.find("DataItem"), "%s %s" % (where, name))
            if not got:
                continue
            values, dims, fname, seek, nbytes = got
            n = npts if center == "Node" else ncells
            check(dims == ([n] if ncomp == 1 else [n, ncomp]), "%s: %s dims %r" % (where, name, dims))
            if "_mesh_" not in fname:
                frame_bytes.setdefault(fname, []).append((seek, nbytes))
            rng = [[min(values[c::ncomp]), max(values[c::ncomp])] for c in range(ncomp)]
            want = fexp[name] if ncomp > 1 else [fexp[name]]
            check(rng == want, "%s: %s range %r, expected %r" % (where, name, rng, want))
        # one frame file per frame, its arrays back to back with nothing else
        check(len(frame_bytes) == 1, "%s: fields in %d files" % (where, len(frame_bytes)))
        for fname, parts in frame_bytes.items():
            parts.sort()
            end = 0
            for seek, nbytes in parts:
                check(seek == end, "%s: %s has a gap or overlap at byte %d" % (where, fname, seek))
                end = seek + nbytes
            size = os.path.getsize(os.path.join(base, fname))
            check(size == end, "%s: %s has %d bytes, its fields %d" % (where, fname, size, end))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.stderr.write("usage: python3 xdmf_xml_check.py INDEX EXPECTED_JSON\n")
        sys.exit(2)
    try:
        main(sys.argv[1], sys.argv[2])
    except Exception as e:  # a parse error must fail the test, not end it quietly
        check(False, "exception: %r" % (e,))
    sys.exit(1 if failures else 0)
