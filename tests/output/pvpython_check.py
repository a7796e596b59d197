"""ParaView reads heartsim's legacy VTK series as the writer meant it.

usage: pvpython pvpython_check.py DIR/heart.vtk.series DIR/expected.json

Opens the .vtk.series index with paraview.simple.OpenDataFile (ParaView picks its legacy VTK
reader, wrapped in a file-series reader), checks that the reader's timesteps are the times
written, and for each time updates the pipeline and checks the point and cell counts, the TIME
field, and that the point arrays phi, V, activation and the cell arrays r, fiber, region exist
with the right number of tuples and components and exactly the ranges in expected.json (the
values are copied, not computed, so ranges match bit for bit). Nothing is rendered.
Exit status: 0 when every check passes, 1 otherwise (one line per failed check on stderr).
"""
import json
import sys

from paraview import servermanager
from paraview.simple import OpenDataFile

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        sys.stderr.write("pvpython_check: " + msg + "\n")
    return cond


def main(series_path, expected_path):
    with open(expected_path) as f:
        exp = json.load(f)
    # ParaView's reader is lenient; the index must also be strict JSON for other tools.
    with open(series_path) as f:
        index = json.load(f)
    check(index.get("file-series-version") == "1.0", "index lacks file-series-version 1.0")
    check([e["time"] for e in index["files"]] == exp["times"],
          "index times %s != %s" % ([e["time"] for e in index["files"]], exp["times"]))

    reader = OpenDataFile(series_path)
    if not check(reader is not None, "OpenDataFile(%s) found no reader" % series_path):
        return
    steps = reader.TimestepValues
    # A single time comes back as a bare float.
    steps = list(steps) if hasattr(steps, "__len__") else [steps]
    check(steps == exp["times"], "TimestepValues %r != expected %r" % (steps, exp["times"]))

    arrays = [  # (attribute, name, components, key in expected.json)
        ("POINTS", "phi", 1, "phi"),
        ("POINTS", "V", 1, "V"),
        ("POINTS", "activation", 1, "activation"),
        ("CELLS", "r", 1, "r"),
        ("CELLS", "fiber", 3, "fiber"),
        ("CELLS", "region", 1, "region"),
    ]
    for t, fexp in zip(exp["times"], exp["frames"]):
        reader.UpdatePipeline(t)
        info = reader.GetDataInformation()
        where = "t=%r" % t
        check(info.GetNumberOfPoints() == exp["n_points"],
              "%s: %d points, expected %d" % (where, info.GetNumberOfPoints(), exp["n_points"]))
        check(info.GetNumberOfCells() == exp["n_cells"],
              "%s: %d cells, expected %d" % (where, info.GetNumberOfCells(), exp["n_cells"]))

        field = reader.FieldData
        if check("TIME" in field.keys(), "%s: no TIME field data (have %s)" % (where, field.keys())):
            check(field["TIME"].GetRange(0) == (t, t),
                  "%s: TIME field %r" % (where, field["TIME"].GetRange(0)))

        for attr, name, ncomp, key in arrays:
            data = reader.PointData if attr == "POINTS" else reader.CellData
            n = exp["n_points"] if attr == "POINTS" else exp["n_cells"]
            if not check(name in data.keys(), "%s: no %s array %s (have %s)"
                         % (where, attr.lower()[:-1], name, data.keys())):
                continue
            a = data[name]
            check(a.GetNumberOfTuples() == n,
                  "%s: %s has %d tuples, expected %d" % (where, name, a.GetNumberOfTuples(), n))
            check(a.GetNumberOfComponents() == ncomp, "%s: %s has %d components, expected %d"
                  % (where, name, a.GetNumberOfComponents(), ncomp))
            want = fexp[key] if ncomp > 1 else [fexp[key]]
            for c in range(min(ncomp, a.GetNumberOfComponents())):
                got = a.GetRange(c)
                check(list(got) == want[c], "%s: %s[%d] range %r, expected %r"
                      % (where, name, c, got, want[c]))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.stderr.write("usage: pvpython pvpython_check.py SERIES EXPECTED_JSON\n")
        sys.exit(2)
    try:
        main(sys.argv[1], sys.argv[2])
    except Exception as e:  # a reader error must fail the test, not end it quietly
        check(False, "exception: %r" % (e,))
    sys.exit(1 if failures else 0)
