#!/usr/bin/env bash
# `heartsim cell`: a paced Mitchell-Schaeffer cell (3 pulses every 300 ms) and a Bueno-Orovio cell
# (preset endo, Rush-Larsen gates, 2 pulses every 600 ms). The APD90 and peak printed for each beat
# equal the ones computed here from the written CSV, independently (python3: the same definition,
# V90 = peak - 0.9 (peak - rest), linear interpolation between rows), within 1e-3 ms / 1e-3 mV; the
# CSV has a row per step with the model's variables; the PNG is a PNG of the default size; a paced
# MS cell's APD shortens after the first beat (its gate has not recovered: restitution); bad input
# (no stimulus, an unknown preset) exits 2 naming the key. And `bench step --models` prints a row per
# ionic model.
# Environment: HEARTSIM (the binary), HS_SOURCE_DIR (the source tree). Needs python3 (else skipped).
set -u
hs=${HEARTSIM:?}
src=${HS_SOURCE_DIR:?}
command -v python3 >/dev/null || { echo "python3 not found: skipped"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hs_cell_XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
cat > "$tmp/ms.cfg" <<'CFG'
model = { type = "mitchell_schaeffer"; tau_close = 100.0; };
time = { dt = 0.05; t_end = 900.0; };
stimulus = ( { min = [0.0, 0.0, 0.0]; max = [1.0, 1.0, 1.0]; start = 5.0; duration = 1.0; strength = 0.5;
               period = 300.0; count = 3; } );
output = { prefix = "ms"; };
CFG
cat > "$tmp/bo.cfg" <<'CFG'
model = { type = "bueno_orovio"; preset = "endo"; gates = "rush_larsen"; };
time = { dt = 0.02; t_end = 1000.0; };
stimulus = ( { min = [0.0, 0.0, 0.0]; max = [1.0, 1.0, 1.0]; start = 10.0; duration = 1.0; strength = 0.5;
               period = 600.0; count = 2; } );
output = { prefix = "bo"; };
CFG
cat > "$tmp/check.py" <<'PY'
import csv, re, struct, sys
out, csvp, png, nvars, nbeats, starts = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), [float(x) for x in sys.argv[6].split(',')]
rows = list(csv.reader(open(csvp)))
head, data = rows[0], [[float(x) for x in r] for r in rows[1:]]
assert len(head) == 3 + nvars, head
t = [r[0] for r in data]; v = [r[1] for r in data]
printed = []
for line in open(out):
    m = re.match(r'\s*(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(-?[\d.]+)\s*$', line)
    if m: printed.append([float(m.group(i)) for i in range(2, 6)])
assert len(printed) == nbeats, "printed %d beats: %s" % (len(printed), printed)
for b, s0 in enumerate(starts):
    s1 = starts[b + 1] if b + 1 < len(starts) else 1e300
    i0 = next(i for i in range(len(t)) if t[i] >= s0)
    rest = v[i0 - 1]
    win = [i for i in range(i0, len(t)) if t[i] < s1]
    ip = max(win, key=lambda i: v[i]); peak = v[ip]
    v90 = peak - 0.9 * (peak - rest)
    up = next(t[i-1] + (t[i]-t[i-1]) * (v90 - v[i-1]) / (v[i] - v[i-1]) for i in range(i0, ip + 1) if v[i-1] < v90 <= v[i])
    dn = next(t[i-1] + (t[i]-t[i-1]) * (v[i-1] - v90) / (v[i-1] - v[i]) for i in range(ip + 1, len(t)) if v[i-1] >= v90 > v[i])
    p = printed[b]
    assert abs(p[0] - s0) < 1e-9, (b, p, s0)
    assert abs(p[1] - up) < 1e-3, ("activation", b, p[1], up)
    assert abs(p[2] - (dn - up)) < 1e-3, ("APD90", b, p[2], dn - up)
    assert abs(p[3] - peak) < 1e-2, ("peak", b, p[3], peak)
with open(png, 'rb') as f:
    sig = f.read(24)
assert sig[:8] == b'\x89PNG\r\n\x1a\n' and struct.unpack('>II', sig[16:24]) == (800, 500), sig
print(' '.join('%.3f' % p[2] for p in printed))
PY
run_cell() { # NAME NVARS NBEATS STARTS
  local name=$1
  if ! "$hs" cell "$tmp/$name.cfg" --out "$tmp/out" > "$tmp/$name.out" 2> "$tmp/$name.err"; then
    echo "FAIL: heartsim cell $name.cfg:"; cat "$tmp/$name.err"; fails=$((fails+1)); return
  fi
  if ! python3 "$tmp/check.py" "$tmp/$name.out" "$tmp/out/${name}_cell.csv" "$tmp/out/${name}_cell.png" "$2" "$3" "$4" \
       > "$tmp/$name.apd" 2>&1; then
    echo "FAIL: $name: printed beats do not match the CSV:"; cat "$tmp/$name.apd"; cat "$tmp/$name.out"; fails=$((fails+1))
  fi
}
run_cell ms 1 3 5,305,605
run_cell bo 3 2 10,610
# restitution: the MS cell's second APD is shorter than its first
if [ -s "$tmp/ms.apd" ] && ! python3 -c "import sys; a = [float(x) for x in open('$tmp/ms.apd').read().split()]; sys.exit(0 if a[1] < a[0] - 10 else 1)"; then
  echo "FAIL: MS APDs $(cat "$tmp/ms.apd"): no shortening at 300 ms"; fails=$((fails+1))
fi
# rows: one per step (t_end/dt + 1) plus the header
rows=$(wc -l < "$tmp/out/ms_cell.csv" 2>/dev/null || echo 0)
[ "$rows" -eq 18002 ] || { echo "FAIL: ms_cell.csv has $rows lines, expected 18002"; fails=$((fails+1)); }
# bad input
expect_err() { # WHAT MESSAGE CFG-TEXT
  printf '%s\n' "$3" > "$tmp/bad.cfg"
  "$hs" cell "$tmp/bad.cfg" --out "$tmp/bad" > /dev/null 2> "$tmp/bad.err"; local rc=$?
  if [ $rc -ne 2 ] || ! grep -qF "$2" "$tmp/bad.err"; then
    echo "FAIL: $1: exit $rc, stderr: $(cat "$tmp/bad.err")"; fails=$((fails+1))
  fi
}
expect_err "no stimulus" "heartsim cell needs at least one stimulus entry" 'model = { type = "mitchell_schaeffer"; };'
expect_err "unknown preset" 'model.preset: unknown parameter set "epy" of model bueno_orovio' \
  'model = { type = "bueno_orovio"; preset = "epy"; };'
expect_err "period" 'stimulus.[0].period = 0.5 ms must be longer than stimulus.[0].duration = 1 ms' \
  'stimulus = ( { min = [0.0, 0.0, 0.0]; max = [1.0, 1.0, 1.0]; duration = 1.0; period = 0.5; count = 2; } );'
# the shipped example's epicardial cell (its model.preset is the mid wall's; the epi layer is a region):
# 3 beats at 600 ms, each an action potential of 200-400 ms (EPI)
if "$hs" cell "$src/configs/lv_paced.cfg" --set 'model.preset="epi"' --out "$tmp/lvcell" > "$tmp/lvcell.out" 2>&1; then
  n=$(grep -Ec '^ +[123] +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.-]+ *$' "$tmp/lvcell.out")
  bad=$(awk '$1 ~ /^[123]$/ && NF == 5 && ($4 < 200 || $4 > 400)' "$tmp/lvcell.out")
  [ "$n" -eq 3 ] && [ -z "$bad" ] || { echo "FAIL: lv_paced cell:"; cat "$tmp/lvcell.out"; fails=$((fails+1)); }
else
  echo "FAIL: heartsim cell configs/lv_paced.cfg:"; tail -3 "$tmp/lvcell.out"; fails=$((fails+1))
fi
# bench step --models: a row per ionic model with its element time against the floor
if "$hs" bench step "$src/configs/quick_slab.cfg" --reps 2 --warm 0.5 --models --set mesh.h=1.0 --out "$tmp/bench" \
     > "$tmp/bench.out" 2>&1; then
  for m in aliev_panfilov mitchell_schaeffer bueno_orovio; do
    grep -Eq "^\| $m +\| +[0-9]+ \| +[0-9.]+ \| +[0-9.]+ \| +[0-9.]+ \| +[0-9.]+ \| +[0-9.]+ \|$" "$tmp/bench.out" ||
      { echo "FAIL: bench step --models: no row for $m"; cat "$tmp/bench.out"; fails=$((fails+1)); }
  done
else
  echo "FAIL: bench step --models:"; tail -5 "$tmp/bench.out"; fails=$((fails+1))
fi
if [ "$fails" -ne 0 ]; then echo "$fails check(s) failed"; exit 1; fi
exit 0
