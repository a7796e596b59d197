#!/usr/bin/env python3
"""vtk_fields_close.py A.vtk B.vtk NAME:TOL ...: the named arrays of two heartsim legacy VTK frames
(BINARY, big-endian doubles) agree within the absolute tolerance given for each; exit 1 naming the
first array that does not (or is missing), 0 otherwise."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hs_vtk_legacy import arrays  # noqa: E402

a, b = arrays(sys.argv[1]), arrays(sys.argv[2])
for spec in sys.argv[3:]:
    name, tol = spec.split(":")
    if name not in a or name not in b or len(a[name]) != len(b[name]):
        sys.exit("%s: array %s missing or of another length" % (sys.argv[2], name))
    worst = max(abs(x - y) for x, y in zip(a[name], b[name]))
    if not worst <= float(tol):
        sys.exit("%s: %s differs from %s by %g (tolerance %s)" % (sys.argv[2], name, sys.argv[1], worst, tol))
