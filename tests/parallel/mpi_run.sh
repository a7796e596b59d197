#!/usr/bin/env bash
# mpirun -np N heartsim run = the serial run, for N = 1, 2, 3 and each partitioner (ctest label mpi).
# Usage: mpi_run.sh MPIEXEC HAS_METIS [HAS_PTSCOTCH] (HEARTSIM, HS_SOURCE_DIR from ctest).
#
# Bound: both runs accept a step only when dt max_I |R_I| / m_I <= solver.newton_tol_residual
# (1e-8, potential units) and the update is below newton_tol_update (1e-8); they differ only in the
# order of sums (dot products over ranks, the rows' columns in local numbering), so each step's phi
# differs by a small multiple of 1e-8 and after N steps by at most N * 1e-8 (the backward-Euler step
# is a contraction at these dt; the argument of tests/sim/test_inexact_newton.c). In mV (V = 100 phi
# - 80): 100 N 1e-8. Activation times move by |phi diff| / (dphi/dt), the upstroke slope >= 0.5 /ms
# in the front: 2 N 1e-8 ms. N = 30 steps here.
set -euo pipefail
mpiexec=$1
has_metis=$2
has_ptscotch=${3:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1
cfg=$HS_SOURCE_DIR/configs/quick_slab.cfg
sets=(--set mesh.h=0.5 --set time.t_end=3 --set output.interval=1 --set solver.backend=cpu
      --set 'output.fields=["V", "activation"]')
close=$HS_SOURCE_DIR/tests/app/vtk_fields_close.py
"$HEARTSIM" run "$cfg" "${sets[@]}" --out "$tmp/serial" -q
tol_v=$(python3 -c 'print(100 * 30 * 1e-8)')
tol_a=$(python3 -c 'print(2 * 30 * 1e-8)')
parts="rows nonzeros"
[ "$has_metis" = 1 ] && parts="metis $parts"
[ "$has_ptscotch" = 1 ] && parts="$parts ptscotch"
for np in 1 2 3; do
  for part in $parts; do
    out=$tmp/np$np-$part
    if ! timeout 120 "$mpiexec" --oversubscribe --allow-run-as-root -np "$np" "$HEARTSIM" run "$cfg" "${sets[@]}" \
         --set parallel.partition=$part --out "$out" < /dev/null > "$out.log" 2>&1; then
      echo "mpirun -np $np, $part: failed"; cat "$out.log"; exit 1
    fi
    grep -q "partition: $part over $np ranks" "$out.log" || { echo "np $np $part: no partition report"; cat "$out.log"; exit 1; }
    # one summary: only rank 0 talks
    [ "$(grep -c '^summary:' "$out.log")" = 1 ] || { echo "np $np $part: not one summary"; cat "$out.log"; exit 1; }
    for f in slab_000000.vtk slab_000003.vtk; do
      python3 "$close" "$tmp/serial/$f" "$out/$f" "V:$tol_v" "activation:$tol_a"
    done
    python3 "$close" "$tmp/serial/slab_maps.vtk" "$out/slab_maps.vtk" "activation:$tol_a"
    cmp -s "$tmp/serial/slab.vtk.series" "$out/slab.vtk.series" || { echo "np $np $part: series index differs"; exit 1; }
  done
done

# solver.cg under mpirun (issue 25: a partition runs the cpu backend's own CG, the serial code with the
# MPI comm): each variant the distributed run offers is the one it runs. On one rank the partition is
# the whole mesh in its own order, every row interior, so the run is the serial run's arithmetic: the
# same bytes (before, the distributed run solved with Chronopoulos-Gear whatever solver.cg said). On 2
# ranks, the serial run of the same variant within the bound above.
# The same for an SpMV format other than csr_scalar that splits its rows (csr_vector: interior rows
# while the halo travels, then the boundary rows; before, only csr_scalar ran distributed).
for cg in classic chronopoulos sstep pipelined csr_vector; do
  cgset=(--set "solver.cg=\"$cg\"")
  [ $cg = csr_vector ] && cgset=(--set "solver.spmv=\"$cg\"")
  "$HEARTSIM" run "$cfg" "${sets[@]}" "${cgset[@]}" --out "$tmp/serial-$cg" -q
  for np in 1 2; do
    out=$tmp/cg-$cg-np$np
    timeout 120 "$mpiexec" --oversubscribe --allow-run-as-root -np "$np" "$HEARTSIM" run "$cfg" "${sets[@]}" \
      "${cgset[@]}" --set parallel.partition=nonzeros --out "$out" < /dev/null > "$out.log" 2>&1 ||
      { cat "$out.log"; echo "mpirun -np $np, ${cgset[1]}: failed"; exit 1; }
    if [ "$np" = 1 ]; then
      diff -r -q "$tmp/serial-$cg" "$out" || { echo "mpirun -np 1, ${cgset[1]}: not the serial run's bytes"; exit 1; }
    else
      for f in slab_000000.vtk slab_000003.vtk; do
        python3 "$close" "$tmp/serial-$cg/$f" "$out/$f" "V:$tol_v" "activation:$tol_a"
      done
    fi
  done
done

# a build without PT-Scotch refuses parallel.partition = "ptscotch" under mpirun, once, saying how to get it
if [ "$has_ptscotch" != 1 ]; then
  out=$tmp/noscotch.log
  if timeout 120 "$mpiexec" --oversubscribe --allow-run-as-root -np 2 "$HEARTSIM" run "$cfg" --set mesh.h=0.5 \
       --set time.t_end=0.2 --set solver.backend=cpu --set parallel.partition=ptscotch --out "$tmp/noscotch" \
       < /dev/null > "$out" 2>&1; then
    cat "$out"; echo "ptscotch without PT-Scotch: not refused"; exit 1
  fi
  [ "$(grep -c 'partitioner "ptscotch" is not in this build (it needs PT-Scotch and MPI: install libptscotch-dev' "$out")" = 1 ] ||
    { cat "$out"; echo "ptscotch without PT-Scotch: not one message saying how to get it"; exit 1; }
fi

# what runs on one rank only is refused under mpirun, once (rank 0), naming the key
for bad in 'solver.precond="fsai"' 'solver.krylov="bicgstab"'; do
  key=${bad%%=*}
  out=$tmp/refused.log
  if timeout 120 "$mpiexec" --oversubscribe --allow-run-as-root -np 2 "$HEARTSIM" run "$cfg" --set mesh.h=0.5 \
       --set time.t_end=0.2 --set solver.backend=cpu --set "$bad" --out "$tmp/refused" < /dev/null > "$out" 2>&1; then
    cat "$out"; echo "mpirun with $bad: not refused"; exit 1
  fi
  [ "$(grep -c "$key: .*one rank only" "$out")" = 1 ] || { cat "$out"; echo "mpirun with $bad: not one message naming $key"; exit 1; }
done

# bench scale on 2 ranks: both tables, rows for 1 and 2 ranks, the weak slab twice as long
out=$tmp/scale.md
timeout 120 "$mpiexec" --oversubscribe --allow-run-as-root -np 2 "$HEARTSIM" bench scale "$cfg" --set mesh.h=0.5 \
  --reps 2 --warm 0.2 -q < /dev/null > "$out" 2>&1 || { cat "$out"; echo "bench scale failed"; exit 1; }
grep -q '^strong scaling' "$out" && grep -q '^weak scaling' "$out" || { cat "$out"; echo "bench scale: tables"; exit 1; }
grep -q '^| 1 | 1155 | 1155 |' "$out" && grep -q '^| 2 | 1155 | 577 |' "$out" && grep -q '^| 2 | 2255 | 1127 |' "$out" \
  || { cat "$out"; echo "bench scale: rows"; exit 1; }
# --strong: the strong-scaling table alone (no weak rows are run); --weak refused on a file mesh
timeout 120 "$mpiexec" --oversubscribe --allow-run-as-root -np 2 "$HEARTSIM" bench scale "$cfg" --set mesh.h=0.5 \
  --reps 2 --warm 0.2 --strong -q < /dev/null > "$out" 2>&1 || { cat "$out"; echo "bench scale --strong failed"; exit 1; }
grep -q '^strong scaling' "$out" && ! grep -q '^weak scaling' "$out" && ! grep -q '^| 2 | 2255 |' "$out" \
  || { cat "$out"; echo "bench scale --strong: tables"; exit 1; }
# --transports: the tables once per transport named, in one job (the cpu backend's ranks use MPI either
# way); an unknown name is refused by name
out=$tmp/scale_tr.md
timeout 120 "$mpiexec" --oversubscribe --allow-run-as-root -np 2 "$HEARTSIM" bench scale "$cfg" --set mesh.h=0.5 \
  --reps 1 --warm 0.1 --transports auto,mpi -q < /dev/null > "$out" 2>&1 || { cat "$out"; echo "bench scale --transports failed"; exit 1; }
[ "$(grep -c '^strong scaling.*parallel.transport = "auto"' "$out")" = 1 ] && \
  [ "$(grep -c '^strong scaling.*parallel.transport = "mpi"' "$out")" = 1 ] && [ "$(grep -c '^| 2 | 1155 | 577 |' "$out")" = 2 ] \
  || { cat "$out"; echo "bench scale --transports: a table per transport"; exit 1; }
if timeout 60 "$mpiexec" --oversubscribe --allow-run-as-root -np 2 "$HEARTSIM" bench scale "$cfg" --set mesh.h=0.5 \
  --reps 1 --transports nccl,shm -q < /dev/null > "$out" 2>&1 || ! grep -q 'unknown transport "shm"; available: auto, nccl, ipc, mpi' "$out"; then
  cat "$out"; echo "bench scale --transports shm: not refused by name"; exit 1
fi

# solver.backend = "auto" under mpirun: the backend auto picks here (cpu without a GPU, cuda with one)
# on every rank, inside the distributed backend; a named device step is replaced, and the log says so once
out=$tmp/auto.log
timeout 120 "$mpiexec" --oversubscribe --allow-run-as-root -np 2 "$HEARTSIM" run "$cfg" --set mesh.h=0.5 \
  --set time.t_end=0.2 --set solver.backend=auto --set solver.step=graph --set parallel.partition=rows \
  --out "$tmp/auto" < /dev/null > "$out" 2>&1 ||
  { cat "$out"; echo "mpirun with solver.backend = auto failed"; exit 1; }
[ "$(grep -c '^step: graph -> kernels (a distributed run' "$out")" = 1 ] ||
  { cat "$out"; echo "mpirun with solver.step = graph: not one plan line saying it runs kernels"; exit 1; }
picked=$(sed -n 's/^backend: auto -> \([a-z]*\).*/\1/p' "$out" | head -1)
[ -n "$picked" ] && grep -q "^backend: mpi (2 ranks, rows partition.*) of $picked (" "$out" ||
  { cat "$out"; echo "mpirun with solver.backend = auto: not the distributed $picked backend"; exit 1; }
