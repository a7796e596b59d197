#!/usr/bin/env bash
# `heartsim cell` on every model generated from CellML (and each preset): under solver.scheme = "auto"
# these models run the splitting scheme's nodal reaction (hs_cell_react = hs_split_react_node, what
# every node of a tissue run does), and its trace must equal cell_ap's, the nodal form stepped by the
# test itself (tests/fem/models/cell_ap.c, the program test_cellml_0d checks against myokit's CVODES
# integration of the CellML file). Both start from the model's initial state and pace 2 beats at
# BCL 1000 ms with the CellML file's stimulus (docs/models.md), dt = 0.02 ms; the second beat's V at
# every step must agree within 1e-6 mV: the two evaluate the same operations, so what remains is the
# printing (heartsim's CSV holds 10 significant digits, 5e-9 mV at 90 mV; cell_ap's 7 decimals,
# 5e-8 mV). The first line must say the splitting scheme ran, and each beat must print an APD90.
# usage: test_cellml_cell.sh CELL_AP   (HEARTSIM from hs_add_script_test)
set -euo pipefail
cell_ap=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hs_cellml_cell_XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
# model preset stimulus (mV/ms) duration (ms)
while read -r model preset stim dur; do
  name="${model}_${preset}"
  pset=""
  [ "$preset" = "-" ] || pset="preset = \"$preset\"; "
  cat > "$tmp/$name.cfg" <<CFG
model = { type = "$model"; ${pset}};
time = { dt = 0.02; t_end = 2000.0; };
stimulus = ( { min = [0.0, 0.0, 0.0]; max = [1.0, 1.0, 1.0]; start = 0.0; duration = $dur; strength = $stim;
               period = 1000.0; count = 2; } );
output = { prefix = "$name"; };
CFG
  if ! "$HEARTSIM" cell "$tmp/$name.cfg" --out "$tmp/out" > "$tmp/$name.out" 2> "$tmp/$name.err"; then
    echo "FAIL: heartsim cell $name:"; cat "$tmp/$name.err"; fails=$((fails + 1)); continue
  fi
  grep -q "^cell: $model.*scheme splitting" "$tmp/$name.out" ||
    { echo "FAIL: $name: the first line does not say the splitting scheme ran:"; head -1 "$tmp/$name.out"; fails=$((fails + 1)); }
  nb=$(awk '$1 ~ /^[12]$/ && NF == 5 && $4 > 100' "$tmp/$name.out" | wc -l)
  [ "$nb" -eq 2 ] || { echo "FAIL: $name: expected 2 beats with an APD90:"; cat "$tmp/$name.out"; fails=$((fails + 1)); }
  "$cell_ap" "$model" "$preset" 0.02 1000 2 "$stim" "$dur" > "$tmp/$name.ap"
  if ! python3 - "$tmp/out/${name}_cell.csv" "$tmp/$name.ap" "$name" <<'PY'
import csv, sys
ref = {}
for line in open(sys.argv[2]):
    p = line.split()
    if len(p) == 2:
        ref[round(float(p[0]), 6)] = float(p[1])
n, worst = 0, (0.0, None)
for r in list(csv.reader(open(sys.argv[1])))[1:]:
    t = round(float(r[0]), 6)
    if t in ref:
        n += 1
        d = abs(float(r[1]) - ref[t])
        if d > worst[0]:
            worst = (d, t)
if n < 49000 or worst[0] > 1e-6:
    print('FAIL: %s: %d common samples, largest |V_cell - V_cell_ap| %.3g mV at t = %s ms' % (sys.argv[3], n, worst[0], worst[1]))
    sys.exit(1)
PY
  then fails=$((fails + 1)); fi
done <<'LIST'
ten_tusscher_2006_epi - 52 1
ten_tusscher_2006_endo - 52 1
ten_tusscher_2006_m - 52 1
ohara_rudy_2011 endo 80 0.5
ohara_rudy_2011 epi 80 0.5
ohara_rudy_2011 M 80 0.5
courtemanche_1998 - 20 2
LIST
if [ "$fails" -ne 0 ]; then echo "$fails check(s) failed"; exit 1; fi
exit 0
