#!/usr/bin/env python3
"""vtk_excitation.py VMAX_MV MIN_FRACTION FRAME...: the stimulus of a run excites without overshoot: V
(mV) never exceeds VMAX_MV in any frame given, and in the last frame at least MIN_FRACTION of the
nodes are activated (activation >= 0: the wave has left the stimulated site). Prints the peak and the
activated fraction; exit 1 when either fails."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hs_vtk_legacy import arrays  # noqa: E402

vmax_allowed, min_frac, frames = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3:]
peak = max(max(arrays(f)["V"]) for f in frames)
act = arrays(frames[-1])["activation"]
frac = sum(a >= 0 for a in act) / len(act)
print("peak V %.2f mV (allowed %g), %.1f%% of the nodes activated at the last frame" % (peak, vmax_allowed, 100 * frac))
if not peak <= vmax_allowed:
    sys.exit("overshoot: V reaches %.2f mV" % peak)
if not frac >= min_frac:
    sys.exit("only %.1f%% of the nodes activated (want %.1f%%): the stimulus does not excite" % (100 * frac, 100 * min_frac))
