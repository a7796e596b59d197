#!/usr/bin/env python3
"""0D verification of the models generated from CellML (docs/models.md): each model paced at BCL
from the CellML file's initial state, integrated two ways:
  - heartsim's nodal form (tests/fem/models/cell_ap.c: Rush-Larsen gates, forward Euler for the
    rest, V by forward Euler, at dt), the splitting scheme's reaction step at one point;
  - myokit's Simulation (CVODES, BDF with Newton, rel_tol 1e-8, abs_tol 1e-10) of the same CellML
    file, with its embedded stimulus moved into a myokit protocol of the same amplitude and length:
    an independent integration that uses none of the generated code.
Both start from the same state and get the same pulses. Printed (markdown): APD90 and resting
potential of the last beat, and the differences of the last beat's trace, |dV| sampled every
0.1 ms (max over the beat after the first 10 ms; the upstroke is steep enough that any time
shift dominates there) and the APD90 difference, at dt, dt/2, dt/4: a first-order method halves
them with dt.

usage: verify_0d.py CELL_AP [--beats N] [--dts 0.02,0.01,0.005] [--only ID[/PRESET]] [--s1s2]
                    [--data DIR] [--check]
--check: exit 1 unless every difference halves with dt (ratio of successive differences within
[1.6, 2.5] for the APD90 and the trace, when the difference at the coarsest dt is above the
sampling floor) and the finest dt's APD90 is within 1 ms of CVODES (what test_cellml_0d runs).
"""
import argparse
import os
import subprocess
import sys

import numpy as np

import myokit
import myokit.lib.guess

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, '..', '..', '..', 'shared', 'data', 'cellml'))

# (model.type, preset or '-', CellML file, constant overrides for myokit)
CASES = [
    ('ten_tusscher_2006_epi', '-', 'ten_tusscher_model_2006_epi.cellml', {}),
    ('ten_tusscher_2006_endo', '-', 'ten_tusscher_model_2006_endo.cellml', {}),
    ('ten_tusscher_2006_m', '-', 'ten_tusscher_model_2006_M.cellml', {}),
    ('ohara_rudy_2011', 'endo', 'ohara_rudy_2011_endo.cellml', {}),
    ('ohara_rudy_2011', 'epi', 'ohara_rudy_2011_epi.cellml', {}),
    ('ohara_rudy_2011', 'M', 'ohara_rudy_2011_endo.cellml', {'celltype': 2.0}),
    ('courtemanche_1998', '-', 'courtemanche_ramirez_nattel_1998.cellml', {}),
]


def apd90(t, v, t0):
    """APD90 of the beat starting at t0, as hs_cell_beats: v_rest = v just before t0, v90 = peak -
    0.9 (peak - v_rest), time between the upward and the next downward crossing of v90."""
    i0 = np.searchsorted(t, t0)
    vr = v[max(i0 - 1, 0)] if i0 > 0 else v[0]
    pk = v[i0:].max()
    v90 = pk - 0.9 * (pk - vr)
    up = dn = None
    for i in range(max(i0, 1), len(t)):
        if up is None and v[i - 1] < v90 <= v[i]:
            up = t[i - 1] + (v90 - v[i - 1]) / (v[i] - v[i - 1]) * (t[i] - t[i - 1])
        elif up is not None and v[i - 1] >= v90 > v[i]:
            dn = t[i - 1] + (v90 - v[i - 1]) / (v[i] - v[i - 1]) * (t[i] - t[i - 1])
            break
    return (dn - up) if up is not None and dn is not None else float('nan'), vr, pk


def myokit_model(path, overrides):
    m = myokit.formats.importer('cellml').model(path)
    for k, x in overrides.items():
        v = [w for w in m.variables(deep=True) if w.name() == k][0]
        v.set_rhs(x)
    proto = myokit.lib.guess.remove_embedded_protocol(m)
    if proto is None:
        raise SystemExit('%s: myokit.lib.guess finds no embedded stimulus to move into a protocol' % path)
    ev = proto.events()[0]
    vm = myokit.lib.guess.membrane_potential(m)
    # heartsim's stimulus drives V only; the CellML files also let it carry ions (ten Tusscher's
    # K_i includes i_Stim), which the generated model drops with the stimulus: so does the reference
    stim = myokit.lib.guess.stimulus_current(m)
    zero = {myokit.Name(stim): myokit.Number(0, stim.unit())}
    for user in list(stim.refs_by()):
        if user is not vm:
            user.set_rhs(user.rhs().clone(subst=zero))
    i = [s.qname() for s in m.states()].index(vm.qname())
    d1 = m.evaluate_derivatives(inputs={'pace': 1.0})[i]
    d0 = m.evaluate_derivatives(inputs={'pace': 0.0})[i]
    return m, vm, d1 - d0, ev.duration()


def run_myokit(m, vm, dur, bcl, beats, s2=None):
    """The last beat (and the S2 beat) at 0.1 ms, times from the first pulse. myokit's pre() restarts
    the clock at 0, so the last pulses get a protocol of their own."""
    s = myokit.Simulation(m)
    s.set_tolerance(abs_tol=1e-10, rel_tol=1e-8)
    s.set_max_step_size(1.0)
    t_last = (beats - 1) * bcl
    if beats > 1:
        p = myokit.Protocol()
        p.schedule(1.0, 0.0, dur, bcl, beats - 1)
        s.set_protocol(p)
        s.pre(t_last)
    p = myokit.Protocol()
    p.schedule(1.0, 0.0, dur)
    if s2:
        p.schedule(1.0, s2, dur)
    s.set_protocol(p)
    n = int(round(((s2 or 0.0) + bcl) / 0.1))
    times = 0.1 * np.arange(n + 1)
    # CVODES output at exact times (from its own interpolating polynomial, to its tolerance)
    d = s.run((s2 or 0.0) + bcl + 0.05, log=[vm.qname()], log_times=times)
    return t_last + times, np.array(d[vm.qname()])


def run_c(cell_ap, model, preset, dt, bcl, beats, stim, dur, s2=None):
    args = [cell_ap, model, preset, repr(dt), repr(bcl), str(beats), repr(stim), repr(dur)]
    if s2:
        args.append(repr(s2))
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    a = np.array([list(map(float, line.split())) for line in out.splitlines()])
    return a[:, 0], a[:, 1]


def sample(t, v, times):
    """C values at the reference times (t is a multiple of 0.1 ms there: no interpolation)."""
    idx = np.rint((times - t[0]) / (t[1] - t[0])).astype(int)
    return v[idx]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('cell_ap')
    ap.add_argument('--beats', type=int, default=100)
    ap.add_argument('--bcl', type=float, default=1000.0)
    ap.add_argument('--dts', default='0.02,0.01,0.005')
    ap.add_argument('--only', action='append', default=[])
    ap.add_argument('--data', default=DATA)
    ap.add_argument('--s1s2', action='store_true', help='TP06 epi S1-S2 restitution table instead')
    ap.add_argument('--check', action='store_true')
    a = ap.parse_args()
    dts = [float(x) for x in a.dts.split(',')]
    ok = True
    if a.s1s2:
        return s1s2(a, dts)
    print('| model | preset | dt (ms) | APD90 heartsim (ms) | APD90 CVODES (ms) | dAPD90 (ms) | V_rest heartsim / CVODES (mV) | '
          'max dV after 10 ms (mV) |')
    print('|---|---|---|---|---|---|---|---|')
    for model, preset, f, ov in CASES:
        if a.only and model not in a.only and '%s/%s' % (model, preset) not in a.only:
            continue
        m, vm, stim, dur = myokit_model(os.path.join(a.data, f), ov)
        tr, vr = run_myokit(m, vm, dur, a.bcl, a.beats)
        t0 = (a.beats - 1) * a.bcl
        apd_r, rest_r, _ = apd90(tr, vr, t0)
        dapd, dv = [], []
        for dt in dts:
            tc, vc = run_c(a.cell_ap, model, preset, dt, a.bcl, a.beats, stim, dur)
            apd_c, rest_c, _ = apd90(tc, vc, t0)
            vs = sample(tc, vc, tr)
            late = tr >= t0 + 10.0
            dapd.append(apd_c - apd_r)
            dv.append(np.abs(vs - vr)[late].max())
            print('| %s | %s | %g | %.2f | %.2f | %+.3f | %.2f / %.2f | %.3f |' % (
                model, preset, dt, apd_c, apd_r, apd_c - apd_r, rest_c, rest_r, dv[-1]))
        for k in range(1, len(dts)):
            ra = abs(dapd[k - 1]) / max(abs(dapd[k]), 1e-12)
            rv = dv[k - 1] / max(dv[k], 1e-12)
            print('|  | ratio dt %g / %g | | | | %.2f | | %.2f |' % (dts[k - 1], dts[k], ra, rv))
            if a.check:
                if abs(dapd[k - 1]) > 0.05 and not 1.6 <= ra <= 2.5:
                    print('%s/%s: APD90 difference does not halve: %g -> %g' % (model, preset, dapd[k - 1], dapd[k]))
                    ok = False
                if dv[k - 1] > 0.05 and not 1.6 <= rv <= 2.5:
                    print('%s/%s: trace difference does not halve: %g -> %g' % (model, preset, dv[k - 1], dv[k]))
                    ok = False
        if a.check and abs(dapd[-1]) > 1.0:
            print('%s/%s: APD90 %g ms from CVODES at dt %g' % (model, preset, dapd[-1], dts[-1]))
            ok = False
        sys.stdout.flush()
    return 0 if ok else 1


def s1s2(a, dts):
    """ten Tusscher & Panfilov 2006 epi: S1-S2 restitution (their Fig. 3A protocol: 10 S1 at 1000 ms,
    then S2); APD90 of the S2 beat against the S2 diastolic interval."""
    m, vm, stim, dur = myokit_model(os.path.join(a.data, 'ten_tusscher_model_2006_epi.cellml'), {})
    beats = a.beats
    t0 = (beats - 1) * a.bcl
    dt = dts[-1]
    print('| S1-S2 interval (ms) | DI (ms) | APD90 S2 heartsim dt %g (ms) | APD90 S2 CVODES (ms) | difference (ms) | '
          'S2 peak heartsim / CVODES (mV) |' % dt)
    print('|---|---|---|---|---|---|')
    for s2 in (1000, 800, 600, 500, 450, 400, 375, 350, 340, 330, 325, 320):
        tr, vr = run_myokit(m, vm, dur, a.bcl, beats, s2)
        apd1, _, _ = apd90(tr, vr, t0)
        apd_r, _, pk_r = apd90(tr, vr, t0 + s2)
        tc, vc = run_c(a.cell_ap, 'ten_tusscher_2006_epi', '-', dt, a.bcl, beats, stim, dur, s2)
        apd_c, _, pk_c = apd90(tc, vc, t0 + s2)
        print('| %d | %.1f | %.2f | %.2f | %+.3f | %.1f / %.1f |' % (s2, s2 - apd1, apd_c, apd_r, apd_c - apd_r, pk_c, pk_r))
        sys.stdout.flush()
    return 0


if __name__ == '__main__':
    sys.exit(main())
