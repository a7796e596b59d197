#!/usr/bin/env bash
# `heartsim bench step --models` under solver.scheme = "splitting" (issue 29: "the nodal ODE kernel's
# bytes against its floor"): on the cpu backend (the cuda backend prints the same table from a GPU
# build: docs/benchmarks.md) it prints the reaction (nodal ODE) phase of every model of the list, the
# CellML ones included, each with its variable count and "MB moved" = the potential and the
# variables read and written once per node, 16 n (1 + vars) bytes (backends/cpu/diag_cpu.c,
# hs_nodal_bytes_per_node on cuda), equal here to the printed value within its rounding (0.05 MB),
# and "x floor" = median / floor within the rounding of the printed median and floor. Run by
# hs_add_script_test; about 3 s.
set -euo pipefail
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hs_bench_models_XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$HEARTSIM" bench step "$HS_SOURCE_DIR/configs/quick_slab.cfg" --reps 2 --warm 0.5 --models \
  --set 'solver.scheme="splitting"' --out "$tmp/bench" > "$tmp/out.txt" 2>&1 || { cat "$tmp/out.txt"; exit 1; }
python3 - "$tmp/out.txt" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
nodes = int(re.search(r'^mesh: (\d+) nodes', text, re.M).group(1))
if 'reaction (nodal ODE) phase per ionic model (cpu backend' not in text:
    print('no reaction table:\n' + text); sys.exit(1)
want = {'aliev_panfilov': 1, 'mitchell_schaeffer': 1, 'bueno_orovio': 3, 'ten_tusscher_2006_epi': 18,
        'ten_tusscher_2006_endo': 18, 'ten_tusscher_2006_m': 18, 'ohara_rudy_2011': 40, 'courtemanche_1998': 20}
bad = 0
for m, nv in want.items():
    r = re.search(r'^\| %s +\| +(\d+) \| +([\d.]+) \| +([\d.]+) \| +([\d.]+) \| +([\d.]+) \| +([\d.]+) \|$' % m, text, re.M)
    if not r:
        print('no row for %s' % m); bad += 1; continue
    vars_, med, mb, floor, xf = int(r.group(1)), float(r.group(3)), float(r.group(4)), float(r.group(5)), float(r.group(6))
    mb_want = 16.0 * nodes * (1 + nv) / 1e6
    if vars_ != nv or abs(mb - mb_want) > 0.05 + 1e-9:
        print('%s: vars %d (want %d), MB moved %.1f (want %.3f)' % (m, vars_, nv, mb, mb_want)); bad += 1
    # x floor from the printed median and floor, each rounded to 0.05 us
    lo, hi = (med - 0.05) / (floor + 0.05), (med + 0.05) / max(floor - 0.05, 1e-9)
    if not (med > 0 and lo * 0.995 - 0.005 <= xf <= hi * 1.005 + 0.005):
        print('%s: x floor %.2f outside [%.2f, %.2f] from median %.1f / floor %.1f' % (m, xf, lo, hi, med, floor)); bad += 1
if bad:
    print(text); sys.exit(1)
PY
