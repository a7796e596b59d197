"""ParaView's XDMF readers read heartsim's XDMF series as the writer meant it.

usage: pvpython pvpython_xdmf_check.py DIR/PREFIX.xdmf DIR/expected.json

Opens the index with each of ParaView's XDMF readers -- Xdmf3ReaderS, Xdmf3ReaderT (the XDMF 3
readers) and XDMFReader (the legacy XDMF 2 one) -- and with OpenDataFile (whichever ParaView
picks for .xdmf). For each: the timesteps are exactly the times written, and at each time the
point and cell counts are right, the point arrays phi, V, activation and the cell arrays r,
fiber, region exist with the right number of tuples and components, and their ranges are exactly
those in expected.json (float32 values for the fields, float64/int32 for the mesh arrays; the
values are copied, never computed, so ranges match bit for bit); where expected.json lists a
frame's "values", every value of phi, V, activation and r is compared too, exactly. The same
script checks "xdmf" (raw binary) and "xdmf_h5" (HDF5) series: the index is read the same way.
Nothing is rendered.
Exit status: 0 when every check passes, 1 otherwise (one line per failed check on stderr).
"""
import json
import sys

from paraview import servermanager
from paraview import simple

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        sys.stderr.write("pvpython_xdmf_check: " + msg + "\n")
    return cond


def make_readers(path):
    """(label, proxy) for each XDMF reader; the legacy one takes FileNames, the others FileName."""
    return [
        ("Xdmf3ReaderS", lambda: simple.Xdmf3ReaderS(FileName=[path])),
        ("Xdmf3ReaderT", lambda: simple.Xdmf3ReaderT(FileName=[path])),
        ("XDMFReader", lambda: simple.XDMFReader(FileNames=[path])),
        ("OpenDataFile", lambda: simple.OpenDataFile(path)),
    ]


def first_dataset(obj):
    """The unstructured grid itself, or the first leaf of a multiblock."""
    while obj is not None and obj.IsA("vtkMultiBlockDataSet"):
        obj = obj.GetBlock(0) if obj.GetNumberOfBlocks() else None
    return obj


ARRAYS = [  # (point or cell, name, components, key in expected.json)
    ("point", "phi", 1, "phi"),
    ("point", "V", 1, "V"),
    ("point", "activation", 1, "activation"),
    ("cell", "r", 1, "r"),
    ("cell", "fiber", 3, "fiber"),
    ("cell", "region", 1, "region"),
]


def check_reader(label, reader, exp):
    if not check(reader is not None, "%s: no reader" % label):
        return
    reader.UpdatePipelineInformation()
    steps = reader.TimestepValues
    steps = list(steps) if hasattr(steps, "__len__") else [steps]
    check(steps == exp["times"], "%s: TimestepValues %r != expected %r" % (label, steps, exp["times"]))
    for t, fexp in zip(exp["times"], exp["frames"]):
        where = "%s t=%r" % (label, t)
        reader.UpdatePipeline(t)
        d = first_dataset(servermanager.Fetch(reader))
        if not check(d is not None, "%s: no dataset" % where):
            continue
        check(d.GetNumberOfPoints() == exp["n_points"],
              "%s: %d points, expected %d" % (where, d.GetNumberOfPoints(), exp["n_points"]))
        check(d.GetNumberOfCells() == exp["n_cells"],
              "%s: %d cells, expected %d" % (where, d.GetNumberOfCells(), exp["n_cells"]))
        check(d.GetNumberOfCells() == 0 or d.GetCellType(0) == 10,  # VTK_TETRA
              "%s: cell type %d" % (where, d.GetCellType(0)))
        for kind, name, ncomp, key in ARRAYS:
            data = d.GetPointData() if kind == "point" else d.GetCellData()
            n = exp["n_points"] if kind == "point" else exp["n_cells"]
            a = data.GetArray(name)
            if not check(a is not None, "%s: no %s array %s" % (where, kind, name)):
                continue
            check(a.GetNumberOfTuples() == n,
                  "%s: %s has %d tuples, expected %d" % (where, name, a.GetNumberOfTuples(), n))
            check(a.GetNumberOfComponents() == ncomp, "%s: %s has %d components, expected %d"
                  % (where, name, a.GetNumberOfComponents(), ncomp))
            want = fexp[key] if ncomp > 1 else [fexp[key]]
            for c in range(min(ncomp, a.GetNumberOfComponents())):
                got = list(a.GetRange(c))
                check(got == want[c], "%s: %s[%d] range %r, expected %r" % (where, name, c, got, want[c]))
            values = fexp.get("values", {}).get(key)
            if values is not None and a.GetNumberOfTuples() == len(values):
                bad = [i for i, v in enumerate(values) if a.GetComponent(i, 0) != v]
                check(not bad, "%s: %s: %d values differ, first at %s: %r != %r"
                      % (where, name, len(bad), bad[:1], bad and a.GetComponent(bad[0], 0), bad and values[bad[0]]))


def main(index, expected_path):
    with open(expected_path) as f:
        exp = json.load(f)
    for label, make in make_readers(index):
        try:
            check_reader(label, make(), exp)
        except Exception as e:  # a reader error must fail the test, not end it quietly
            check(False, "%s: exception: %r" % (label, e))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.stderr.write("usage: pvpython pvpython_xdmf_check.py INDEX EXPECTED_JSON\n")
        sys.exit(2)
    main(sys.argv[1], sys.argv[2])
    sys.exit(1 if failures else 0)
