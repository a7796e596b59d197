"""ParaView opens a real run's xdmf_h5 series and its maps file.

usage: pvpython pv_h5_run_check.py FULL_DIR RESTARTED_DIR N_FRAMES [NAME:TOL,...]
FULL_DIR and RESTARTED_DIR hold slab.xdmf, slab.h5 and slab_maps.vtk of the same run, the second
restarted from a checkpoint half-way. Checks, with Xdmf3ReaderT on each series: N_FRAMES
timesteps, the same in both; at each time phi, V, activation (points) and r (cells) with one
tuple per point or cell, and equal values in both runs (the CPU run is deterministic), or within
the absolute tolerance given for the array (a run distributed over MPI ranks: run_h5_maps.sh says
why each). The maps
file, opened alone (OpenDataFile), has the mesh's points and an "activation" array equal to the
last frame's activation to float32 rounding, with activated nodes (>= 0).
"""
import sys

from paraview import servermanager
from paraview import simple

fails = []


def check(c, m):
    if not c:
        fails.append(m)
        sys.stderr.write("pv_h5_run_check: " + m + "\n")
    return c


def leaf(obj):
    while obj is not None and obj.IsA("vtkMultiBlockDataSet"):
        obj = obj.GetBlock(0) if obj.GetNumberOfBlocks() else None
    return obj


def values(a):
    return [a.GetComponent(i, 0) for i in range(a.GetNumberOfTuples())]


def frames(index):
    r = simple.Xdmf3ReaderT(FileName=[index])
    r.UpdatePipelineInformation()
    tv = r.TimestepValues
    tv = list(tv) if hasattr(tv, "__len__") else [tv]
    out = []
    for t in tv:
        r.UpdatePipeline(t)
        d = leaf(servermanager.Fetch(r))
        arrays = {}
        if check(d is not None, "%s t=%r: no dataset" % (index, t)):
            for kind, name in (("p", "phi"), ("p", "V"), ("p", "activation"), ("c", "r")):
                data = d.GetPointData() if kind == "p" else d.GetCellData()
                n = d.GetNumberOfPoints() if kind == "p" else d.GetNumberOfCells()
                a = data.GetArray(name)
                if check(a is not None and a.GetNumberOfTuples() == n, "%s t=%r: %s missing or wrong size"
                         % (index, t, name)):
                    arrays[name] = values(a)
        out.append((t, d.GetNumberOfPoints() if d else -1, arrays))
    return out


full_dir, half_dir, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
tol = {}
if len(sys.argv) > 4:
    for spec in sys.argv[4].split(","):
        name, t = spec.split(":")
        tol[name] = float(t)
full = frames(full_dir + "/slab.xdmf")
half = frames(half_dir + "/slab.xdmf")
check(len(full) == n and len(half) == n, "frames: %d and %d, want %d" % (len(full), len(half), n))
check([f[0] for f in full] == [f[0] for f in half], "times differ: %r vs %r" % ([f[0] for f in full], [f[0] for f in half]))
for (t, _, a), (_, _, b) in zip(full, half):
    for name in a:
        other = b.get(name)
        tl = tol.get(name, 0.0)
        same = other is not None and len(other) == len(a[name]) and all(abs(x - y) <= tl for x, y in zip(a[name], other))
        check(same, "t=%r: %s differs between the full and the restarted run (tolerance %g)" % (t, name, tl))

maps = simple.OpenDataFile(full_dir + "/slab_maps.vtk")
if check(maps is not None, "no reader for the maps file"):
    maps.UpdatePipeline()
    d = leaf(servermanager.Fetch(maps))
    a = d.GetPointData().GetArray("activation") if d is not None else None
    if check(a is not None, "maps file: no point array activation") and full:
        act = values(a)
        last = full[-1][2].get("activation", [])
        check(d.GetNumberOfPoints() == full[-1][1] and len(act) == len(last), "maps file: %d points, series %d"
              % (d.GetNumberOfPoints(), full[-1][1]))
        check(all(abs(x - y) <= 1e-6 * max(1.0, abs(x)) for x, y in zip(act, last)),
              "maps activation differs from the last frame's")
        check(any(x >= 0 for x in act), "maps file: no node activated")
sys.exit(1 if fails else 0)
