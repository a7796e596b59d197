#!/usr/bin/env bash
# solver.dt_retry under mpirun (issue 26: no rank gathers the whole state): a step that fails at time.dt
# converges in substeps on 2 and 3 ranks as in the serial run (the same steps retried, the frames within
# the serial run's bounds), each rank keeping its own local state and history for the retry. With the
# whole-state gather's buffer made to fail on every rank (HS_INJECT_ALLOC_FAIL="whole-state gather buffer") the runs
# still pass: before, a retry gathered the whole state onto every rank (backends/mpi get_state).
# Usage: mpi_retry.sh MPIEXEC (HEARTSIM, HS_SOURCE_DIR from ctest).
# Bounds as tests/parallel/mpi_box_study.sh: N = 20 steps (and their substeps, at most 4 each), each meeting
# the Newton tests at 1e-8: V within 100 x 4 N 1e-8 mV, activation within 2 x 4 N 1e-8 ms.
set -euo pipefail
mpiexec=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1
close=$HS_SOURCE_DIR/tests/app/vtk_fields_close.py
fail() { echo "FAIL: $*"; exit 1; }
cfg=$HS_SOURCE_DIR/configs/quick_slab.cfg
# a stimulus of 2/ms makes the first steps too hard for 3 Newton iterations at dt = 0.1 ms (tests/app/reliability.sh)
sets=(--set mesh.h=0.5 --set solver.backend=cpu --set time.t_end=2 --set output.interval=0.5 --set 'mesh.reorder="none"'
      --set solver.newton_max_iter=3 --set 'stimulus.[0].strength=2' --set solver.dt_retry=2)
n=80
tol_v=$(python3 -c "print(100 * $n * 1e-8)")
tol_a=$(python3 -c "print(2 * $n * 1e-8)")
"$HEARTSIM" run "$cfg" "${sets[@]}" --out "$tmp/serial" > "$tmp/serial.log" 2>&1 || { cat "$tmp/serial.log"; fail "serial"; }
retries=$(grep -c "retrying as 2 substeps" "$tmp/serial.log" || true)
[ "$retries" -gt 0 ] || { cat "$tmp/serial.log"; fail "the serial run retried no step"; }
prefix=slab # configs/quick_slab.cfg's output.prefix
for np in 2 3; do
  o=$tmp/np$np
  timeout 200 "$mpiexec" --oversubscribe --allow-run-as-root -x HS_INJECT_ALLOC_FAIL="whole-state gather buffer" -np "$np" \
    "$HEARTSIM" run "$cfg" "${sets[@]}" --set parallel.partition=box --out "$o" < /dev/null > "$o.log" 2>&1 ||
    { cat "$o.log"; fail "$np ranks"; }
  [ "$(grep -c "retrying as 2 substeps" "$o.log" || true)" = "$retries" ] ||
    { cat "$o.log"; fail "$np ranks retried other steps than the serial run's $retries"; }
  for f in "$tmp/serial/${prefix}"_0*.vtk; do
    python3 "$close" "$f" "$o/$(basename "$f")" "V:$tol_v" "activation:$tol_a" || fail "$np ranks: $(basename "$f")"
  done
done
exit 0
