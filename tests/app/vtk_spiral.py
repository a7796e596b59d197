#!/usr/bin/env python3
"""vtk_spiral.py MAPS CX CY R_IN R_OUT MIN_BEATS FRACTION: a re-entrant wave rotated around (CX, CY)
(mm): in the maps file of a run (its `beats` field: activations per node), every node at a distance
in [R_IN, R_OUT] from the point has at least MIN_BEATS activations, and at least FRACTION of them
one more. After S1 and an S2 that only reaches part of the ring, a node on a ring around the core
activates once per turn of the spiral: MIN_BEATS = 3 means two turns at least. Exit 1 otherwise."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hs_vtk_legacy import arrays, points  # noqa: E402

path = sys.argv[1]
cx, cy, r_in, r_out = (float(a) for a in sys.argv[2:6])
min_beats, frac_more = int(sys.argv[6]), float(sys.argv[7])
beats = arrays(path)["beats"]
ring = [b for b, p in zip(beats, points(path)) if r_in ** 2 <= (p[0] - cx) ** 2 + (p[1] - cy) ** 2 <= r_out ** 2]
if not ring:
    sys.exit("no node on the ring")
low = min(ring)
more = sum(b >= min_beats + 1 for b in ring) / len(ring)
print("ring of %d nodes around (%g, %g): %g to %g activations, %.0f%% with %d or more"
      % (len(ring), cx, cy, low, max(ring), 100 * more, min_beats + 1))
if low < min_beats:
    sys.exit("a node on the ring activated only %d times (want %d: the wave did not keep rotating)" % (low, min_beats))
if more < frac_more:
    sys.exit("only %.0f%% of the ring activated %d times (want %.0f%%)" % (100 * more, min_beats + 1, 100 * frac_more))
