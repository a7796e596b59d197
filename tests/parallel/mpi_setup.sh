#!/usr/bin/env bash
# A distributed run's set-up (issue 26): no rank holds the serial run's problem, and the summary
# reports each set-up phase and the peak memory per rank (ctest label mpi).
# Usage: mpi_setup.sh MPIEXEC (HEARTSIM, HS_SOURCE_DIR from ctest).
#
# Before: every rank built the whole problem (element geometry, gather maps, K_D of all elements)
# and then its local one, so each rank's peak resident memory exceeded the serial run's. Now a rank
# holds the global mesh and pattern (until the partition is made) and its local problem only. On
# this 139k-node slab the serial run peaks at ~0.31 GB; 2 ranks at ~0.26 GB each, 3 at ~0.20 GB:
# the bounds below are the serial peak itself (2 ranks) and 3/4 of it (3 ranks), which the old
# set-up (> the serial peak on every rank) cannot meet.
set -euo pipefail
mpiexec=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1
cfg=$HS_SOURCE_DIR/configs/quick_slab.cfg
sets=(--set solver.backend=cpu --set time.t_end=0.2 --set output.enabled=false --set mesh.lx=16 --set mesh.ly=16
      --set mesh.lz=8 --set parallel.partition=rows)
"$HEARTSIM" run "$cfg" "${sets[@]}" > "$tmp/serial.log" 2>&1 || { cat "$tmp/serial.log"; exit 1; }
serial=$(sed -n 's/^  memory: peak resident (VmHWM) \([0-9.]*\) GB at the end of set-up.*/\1/p' "$tmp/serial.log")
[ -n "$serial" ] || { cat "$tmp/serial.log"; echo "serial run: no memory line in the summary"; exit 1; }
for np in 2 3; do
  log=$tmp/np$np.log
  timeout 120 "$mpiexec" --oversubscribe --allow-run-as-root -np "$np" "$HEARTSIM" run "$cfg" "${sets[@]}" \
    < /dev/null > "$log" 2>&1 || { cat "$log"; echo "mpirun -np $np: failed"; exit 1; }
  line=$(grep '^  memory per rank: ' "$log") || { cat "$log"; echo "np $np: no per-rank memory line"; exit 1; }
  max=$(sed -n 's/.*at the end of set-up \([0-9.]*\) GB max, \([0-9.]*\) GB summed over \([0-9]*\) ranks.*/\1/p' <<< "$line")
  sum=$(sed -n 's/.*at the end of set-up \([0-9.]*\) GB max, \([0-9.]*\) GB summed over \([0-9]*\) ranks.*/\2/p' <<< "$line")
  ranks=$(sed -n 's/.*GB summed over \([0-9]*\) ranks.*/\1/p' <<< "$line")
  [ "$ranks" = "$np" ] || { echo "np $np: the memory line counts $ranks ranks"; exit 1; }
  frac=1.0; [ "$np" = 3 ] && frac=0.75
  python3 - "$np" "$serial" "$max" "$sum" "$frac" <<'PY' || { cat "$log"; exit 1; }
import sys
np_, serial, mx, sm, frac = int(sys.argv[1]), *map(float, sys.argv[2:])
if not (0 < mx <= sm <= np_ * mx + 1e-3):
    sys.exit(f"np {np_}: max {mx} GB and sum {sm} GB are not a max and a sum over {np_} ranks")
if not mx < frac * serial:
    sys.exit(f"np {np_}: a rank peaks at {mx} GB, not below {frac} x the serial run's {serial} GB: "
             "a rank holds the whole problem")
PY
  # every set-up phase of the distributed run, max and sum
  grep -q '^  set-up per rank (max / sum over '"$np"' ranks): mesh .* partition .* scatter .* maps .* upload ' "$log" ||
    { cat "$log"; echo "np $np: no per-rank set-up phases"; exit 1; }
done
