#!/usr/bin/env python3
"""vtk_activation_time.py LO_MS HI_MS FRAME: every node of FRAME has an activation time (>= 0) and the
latest one, the total activation time, lies in [LO_MS, HI_MS]. Prints it; exit 1 otherwise."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hs_vtk_legacy import arrays  # noqa: E402

lo, hi, frame = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
act = arrays(frame)["activation"]
left = sum(a < 0 for a in act)
if left:
    sys.exit("%d of %d nodes not activated" % (left, len(act)))
t = max(act)
print("total activation time %.2f ms (allowed [%g, %g])" % (t, lo, hi))
if not lo <= t <= hi:
    sys.exit("total activation time %.2f ms outside [%g, %g] ms" % (t, lo, hi))
