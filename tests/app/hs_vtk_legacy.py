"""The arrays of a heartsim legacy VTK frame (BINARY, big-endian), by name: arrays(path) -> {name: tuple}."""
import struct


def arrays(path):
    data = open(path, "rb").read()
    out, pos, section_n = {}, 0, {}
    n_points = n_cells = 0
    while True:
        nl = data.find(b"\n", pos)
        if nl < 0:
            break
        line = data[pos:nl].decode("latin-1").split()
        pos = nl + 1
        if not line:
            continue
        key = line[0]
        if key == "POINTS":
            n_points = int(line[1])
            pos += 8 * 3 * n_points if line[2] == "double" else 4 * 3 * n_points
        elif key == "CELLS":
            pos += 4 * int(line[2])
        elif key == "CELL_TYPES":
            pos += 4 * int(line[1])
        elif key in ("POINT_DATA", "CELL_DATA"):
            section_n = int(line[1])
        elif key in ("SCALARS", "VECTORS"):
            name, ncomp = line[1], (int(line[3]) if key == "SCALARS" and len(line) > 3 else (3 if key == "VECTORS" else 1))
            if key == "SCALARS":
                pos = data.find(b"\n", pos) + 1  # LOOKUP_TABLE line
            size = 8 if line[2] == "double" else 4
            fmt = ">%d%s" % (section_n * ncomp, "d" if size == 8 else ("f" if line[2] == "float" else "i"))
            out[name] = struct.unpack_from(fmt, data, pos)
            pos += size * section_n * ncomp
    return out


def points(path):
    """The node coordinates of a heartsim legacy VTK file: a list of (x, y, z)."""
    data = open(path, "rb").read()
    i = data.find(b"\nPOINTS ") + 1
    nl = data.find(b"\n", i)
    _, n, typ = data[i:nl].decode("latin-1").split()
    n = int(n)
    flat = struct.unpack_from(">%d%s" % (3 * n, "d" if typ == "double" else "f"), data, nl + 1)
    return [flat[3 * k:3 * k + 3] for k in range(n)]
