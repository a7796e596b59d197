"""ParaView opens the series of a real heartsim run.

usage: pvpython pv_run_check.py RUN.vtk.series N_FRAMES
Checks: N_FRAMES timesteps equal to the index times; at each time the point arrays phi, V and
activation and the cell arrays r and fiber exist with one tuple per point/cell; V = 100 phi - 80
(ranges); the last frame has activated nodes (activation >= 0) and phi above 0.5 somewhere.
"""
import json
import sys

from paraview import servermanager
from paraview.simple import OpenDataFile, UpdatePipeline

series, nframes = sys.argv[1], int(sys.argv[2])
fails = []


def check(c, m):
    if not c:
        fails.append(m)
        sys.stderr.write("pv_run_check: " + m + "\n")


times = [f["time"] for f in json.load(open(series))["files"]]
check(len(times) == nframes, "index has %d frames, want %d" % (len(times), nframes))
r = OpenDataFile(series)
check(r is not None, "no reader for " + series)
if r is not None:
    tv = list(r.TimestepValues) if hasattr(r.TimestepValues, "__len__") else [r.TimestepValues]
    check(tv == times, "reader times %s != index times %s" % (tv, times))
    for t in times:
        UpdatePipeline(time=t, proxy=r)
        d = servermanager.Fetch(r)
        npts, ncells = d.GetNumberOfPoints(), d.GetNumberOfCells()
        check(npts > 0 and ncells > 0, "t=%g: empty dataset" % t)
        pd, cd = d.GetPointData(), d.GetCellData()
        for name in ("phi", "V", "activation"):
            a = pd.GetArray(name)
            check(a is not None and a.GetNumberOfTuples() == npts, "t=%g: point array %s" % (t, name))
        for name, nc in (("r", 1), ("fiber", 3)):
            a = cd.GetArray(name)
            check(a is not None and a.GetNumberOfTuples() == ncells and a.GetNumberOfComponents() == nc,
                  "t=%g: cell array %s" % (t, name))
        if pd.GetArray("phi") and pd.GetArray("V"):
            p0, p1 = pd.GetArray("phi").GetRange()
            v0, v1 = pd.GetArray("V").GetRange()
            check(abs(v0 - (100 * p0 - 80)) < 1e-9 and abs(v1 - (100 * p1 - 80)) < 1e-9, "t=%g: V != 100 phi - 80" % t)
    last = servermanager.Fetch(r)
    a = last.GetPointData().GetArray("activation")
    p = last.GetPointData().GetArray("phi")
    if a is not None and p is not None:
        check(a.GetRange()[1] >= 0.0, "no node activated by the last frame")
        check(p.GetRange()[1] > 0.5, "phi never above 0.5")
sys.exit(1 if fails else 0)
