#!/usr/bin/env python3
"""Activation times of the Niederer et al. (2011) benchmark points from a run's probes CSV
(configs/niederer_tp06.cfg: probes P1-P9, V in mV every step): the time V first crosses 0 mV
upwards, linearly interpolated between samples; '-' when it never does.

usage: niederer_activation.py PROBES.csv [--label TEXT] [--header]   (prints one markdown table row)"""
import csv
import sys


def activation_times(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    head, data = rows[0], [[float(x) for x in r] for r in rows[1:] if r]
    out = {}
    for j in range(1, len(head)):
        t = None
        for i in range(1, len(data)):
            a, b = data[i - 1][j], data[i][j]
            if a < 0.0 <= b:
                t = data[i - 1][0] + (0.0 - a) / (b - a) * (data[i][0] - data[i - 1][0])
                break
        out[head[j]] = t
    return out


def main(argv):
    if not argv or argv[0] in ('-h', '--help'):
        print(__doc__)
        return 0 if argv else 2
    label = argv[argv.index('--label') + 1] if '--label' in argv else argv[0]
    act = activation_times(argv[0])
    names = ['P%d' % k for k in range(1, 10)]
    if '--header' in argv:
        print('| case | ' + ' | '.join(names) + ' |')
        print('|---' * (len(names) + 1) + '|')
    print('| %s | %s |' % (label, ' | '.join('-' if act.get(n) is None else '%.2f' % act[n] for n in names)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
