#!/usr/bin/env python3
"""csv_close.py A.csv B.csv TOL [COLUMN:TOL ...]: two heartsim sample CSVs (probes, ECG) have the same
header and times, and every value agrees within its column's absolute tolerance (TOL for a column not
named) plus the rounding of the files' %.10g (5e-10 of each value); exit 1 naming the first column
that does not, 0 otherwise."""
import csv
import sys

def read(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    return rows[0], [[float(x) for x in r] for r in rows[1:]]

ha, ra = read(sys.argv[1])
hb, rb = read(sys.argv[2])
if ha != hb:
    sys.exit("%s: header %s, %s has %s" % (sys.argv[2], hb, sys.argv[1], ha))
if len(ra) != len(rb) or len(ra) == 0:
    sys.exit("%s: %d rows, %s has %d" % (sys.argv[2], len(rb), sys.argv[1], len(ra)))
tol = {name: float(sys.argv[3]) for name in ha}
for spec in sys.argv[4:]:
    name, t = spec.rsplit(":", 1)
    if name not in tol:
        sys.exit("no column %s in %s" % (name, sys.argv[1]))
    tol[name] = float(t)
for x, y in zip(ra, rb):
    if x[0] != y[0]:
        sys.exit("%s: row at t = %g, %s has t = %g" % (sys.argv[2], y[0], sys.argv[1], x[0]))
    for j, name in enumerate(ha[1:], 1):
        bound = tol[name] + 5e-10 * (abs(x[j]) + abs(y[j]))
        if not abs(x[j] - y[j]) <= bound:
            sys.exit("%s: %s at t = %g: %.10g, %s has %.10g (bound %g)" % (sys.argv[2], name, x[0], y[j], sys.argv[1],
                                                                          x[j], bound))
