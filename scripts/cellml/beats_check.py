#!/usr/bin/env python3
"""A paced run's frames and maps, checked for issue 29's "no NaN or runaway concentrations over 20 beats".

  python3 scripts/cellml/beats_check.py DIR PREFIX --beats 20 [--fields V,nai,cai,ki]

reads DIR/PREFIX_NNNNNN.vtk (the frames, legacy VTK as `output.format = "vtk"` writes them; each frame's
time from the .vtk.series file next to them when there is one), prints per frame the range of each
field over the mesh, and reads DIR/PREFIX_maps.vtk (written at the end of every run with output:
`beats`, the beats each node counted) and DIR/PREFIX_maps_beatK.vtk (the per-beat activation maps,
docs/output.md; with --beats 1 the maps file's own activation). Exit 1 when a frame holds a non-finite value, when a node did not count --beats beats,
or when a per-beat map has a node that did not activate in that beat; else 0. The tolerance-free
checks are the point: NaN and a missed beat are failures, the concentrations' drift is printed for the
reader (docs/verification.md's table of O'Hara-Rudy over 20 beats was made from such a listing).
"""
import argparse
import glob
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests', 'app'))
from hs_vtk_legacy import arrays  # noqa: E402


def fmt(v):
    return '%.5g' % v


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('dir')
    ap.add_argument('prefix')
    ap.add_argument('--beats', type=int, required=True, help='the beats every node must count')
    ap.add_argument('--fields', default='V', help='comma-separated frame fields to list (default V)')
    a = ap.parse_args()
    fields = [f for f in a.fields.split(',') if f]
    bad = 0
    frames = sorted(glob.glob(os.path.join(a.dir, a.prefix + '_[0-9][0-9][0-9][0-9][0-9][0-9].vtk')))
    times = {}
    series = os.path.join(a.dir, a.prefix + '.vtk.series')
    if os.path.isfile(series):
        for f in json.load(open(series)).get('files', []):
            times[f['name']] = f['time']
    if not frames:
        print('no frames %s_NNNNNN.vtk in %s' % (a.prefix, a.dir))
        bad += 1
    print('| frame | t (ms) | ' + ' | '.join('%s min .. max' % f for f in fields) + ' | finite |')
    print('|---|---|' + '---|' * len(fields) + '---|')
    for path in frames:
        arr = arrays(path)
        cells, finite = [], True
        for f in fields:
            if f not in arr:
                print('%s: no field %s (fields: %s)' % (path, f, ', '.join(sorted(arr))))
                return 1
            v = arr[f]
            finite = finite and all(math.isfinite(x) for x in v)
            fin = [x for x in v if math.isfinite(x)] or [float('nan')]
            cells.append('%s .. %s' % (fmt(min(fin)), fmt(max(fin))))
        if not finite:
            bad += 1
        name = os.path.basename(path)
        print('| %s | %s | %s | %s |' % (re.sub(r'\.vtk$', '', name), times.get(name, '-'), ' | '.join(cells),
                                         'yes' if finite else 'NO'))
    maps = os.path.join(a.dir, a.prefix + '_maps.vtk')
    if not os.path.isfile(maps):
        print('no %s' % maps)
        return 1
    beats = arrays(maps)['beats']
    short = sum(1 for b in beats if b != a.beats)
    print('beats counted per node (%s): %s .. %s over %d nodes; %d nodes not at %d' % (
        os.path.basename(maps), fmt(min(beats)), fmt(max(beats)), len(beats), short, a.beats))
    if short:
        bad += 1
    # per-beat maps exist when a node counted more than one beat; one beat is the maps file's own
    for k in range(1, a.beats + 1):
        path = os.path.join(a.dir, '%s_maps_beat%d.vtk' % (a.prefix, k)) if a.beats > 1 else maps
        if not os.path.isfile(path):
            print('beat %d: no %s' % (k, os.path.basename(path)))
            bad += 1
            continue
        act = arrays(path)['activation']
        missed = sum(1 for x in act if not x >= 0.0)
        print('beat %d: activation %s .. %s ms, %d nodes without one' % (
            k, fmt(min(x for x in act if x >= 0.0) if missed < len(act) else -1), fmt(max(act)), missed))
        if missed:
            bad += 1
    print('result: %s' % ('every frame finite, every node %d beats' % a.beats if not bad else '%d problem(s)' % bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
