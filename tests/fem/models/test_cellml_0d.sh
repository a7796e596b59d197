#!/usr/bin/env bash
# usage: test_cellml_0d.sh CELL_AP SOURCE_DIR DATA_DIR (exit 77 = skipped: no myokit, no CVODES or no CellML files)
set -euo pipefail
cell_ap=$1 src=$2 data=$3
[ -d "$data/cellml" ] || { echo "skipped: no CellML files in $data/cellml"; exit 77; }
python3 - <<'PY' >/dev/null 2>&1 || { echo "skipped: myokit's Simulation (CVODES: libsundials-dev) does not run here"; exit 77; }
import myokit
m = myokit.parse_model('[[model]]\nc.x = 1\n[engine]\ntime = 0 bind time\n[c]\ndot(x) = -x')
myokit.Simulation(m).run(1)
PY
out=$(python3 "$src/scripts/cellml/verify_0d.py" "$cell_ap" --beats 2 --dts 0.02,0.01 --data "$data/cellml" --check) || {
  echo "$out"; exit 1; }
