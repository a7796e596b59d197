#!/usr/bin/env bash
# mpirun -np N heartsim run = the serial run under solver.scheme = "splitting" (Strang, theta 1/2), for
# N = 2, 3 with the rows partition (ctest label mpi). Usage: mpi_splitting.sh MPIEXEC (HEARTSIM,
# HS_SOURCE_DIR from ctest).
#
# Bound: both runs accept a diffusion solve when ||b - A u|| <= solver.cg_tol ||b|| (1e-8) and differ
# only in the order of sums (dot products over ranks, rows in local numbering); the reaction is the
# same arithmetic at every node. As in mpi_run.sh each step's phi moves by a small multiple of 1e-8 and
# after N steps by at most N * 1e-8: in mV (V = 100 phi - 80) 100 N 1e-8, activation 2 N 1e-8 ms (the
# upstroke's slope >= 0.5 /ms), r (its rate at most ~c |phi| ~ 10 per model time unit = 0.8 /ms)
# N 1e-8. N = 50 steps here.
set -euo pipefail
mpiexec=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1
cfg=$HS_SOURCE_DIR/configs/quick_slab.cfg
sets=(--set mesh.h=0.5 --set time.t_end=5 --set output.interval=1 --set solver.backend=cpu
      --set solver.scheme=splitting --set solver.splitting=strang --set solver.theta=0.5
      --set 'output.fields=["V", "activation", "r"]')
close=$HS_SOURCE_DIR/tests/app/vtk_fields_close.py
"$HEARTSIM" run "$cfg" "${sets[@]}" --out "$tmp/serial" -q
tol_v=$(python3 -c 'print(100 * 50 * 1e-8)')
tol_a=$(python3 -c 'print(2 * 50 * 1e-8)')
tol_r=$(python3 -c 'print(50 * 1e-8)')
for np in 2 3; do
  out=$tmp/np$np
  if ! timeout 120 "$mpiexec" --oversubscribe --allow-run-as-root -np "$np" "$HEARTSIM" run "$cfg" "${sets[@]}" \
       --set parallel.partition=rows --out "$out" < /dev/null > "$out.log" 2>&1; then
    echo "mpirun -np $np: failed"; cat "$out.log"; exit 1
  fi
  grep -q "splitting" "$out.log" || { echo "np $np: the backend line names no splitting"; cat "$out.log"; exit 1; }
  for f in slab_000001.vtk slab_000005.vtk; do
    python3 "$close" "$tmp/serial/$f" "$out/$f" "V:$tol_v" "activation:$tol_a" "r:$tol_r"
  done
  python3 "$close" "$tmp/serial/slab_maps.vtk" "$out/slab_maps.vtk" "activation:$tol_a"
done
exit 0
