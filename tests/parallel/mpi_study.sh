#!/usr/bin/env bash
# A study under mpirun -np 2, 3 (regions with a non-conducting scar, probes, pseudo-ECG:
# configs/scar_slab.cfg, 10 ms) = the serial run: frames, maps, probes and ECG files; per-beat maps
# of a two-beat run on 2 ranks = the serial ones; a study restarted from 2 on 3 ranks; and a refusal
# under mpirun is printed once, by rank 0, naming the config key, without MPI_Abort (ctest label mpi).
# Usage: mpi_study.sh MPIEXEC HAS_METIS (HEARTSIM, HS_SOURCE_DIR from ctest).
#
# Bounds (the argument of mpi_run.sh): the runs differ in the order of sums only and each accepted
# step meets the Newton tests at 1e-8, so after N steps max |u - u'| <= N 1e-8 (model units).
# V = 100 u - 80 (frames and probes): 100 N 1e-8 mV; activation: 2 N 1e-8 ms; region: exact. An
# electrode's phi_e = sum_n W_n u_n moves by at most ||W||_1 N 1e-8: ||W||_1 is what the run logs at -v.
# The CSVs hold %.10g, whose rounding csv_close.py adds. N = 100 steps here.
set -euo pipefail
mpiexec=$1
has_metis=$2
has_ptscotch=${3:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1
cfg=$HS_SOURCE_DIR/configs/scar_slab.cfg
sets=(--set time.t_end=10 --set solver.backend=cpu)
here=$(dirname "$0")
close=$HS_SOURCE_DIR/tests/app/vtk_fields_close.py
"$HEARTSIM" run "$cfg" "${sets[@]}" --out "$tmp/serial" -v > "$tmp/serial.log" 2>&1 || { cat "$tmp/serial.log"; exit 1; }
n=100
tol_v=$(python3 -c "print(100 * $n * 1e-8)")
tol_a=$(python3 -c "print(2 * $n * 1e-8)")
ecg_tols=()
for e in E_right E_left; do
  w=$(sed -n "s/^electrode $e: weights' 1-norm \([^ ]*\) mV.*/\1/p" "$tmp/serial.log")
  [ -n "$w" ] || { echo "no weight norm for $e in the serial log"; exit 1; }
  ecg_tols+=("$e:$(python3 -c "print($w * $n * 1e-8)")")
done
w1=${ecg_tols[0]#*:} w2=${ecg_tols[1]#*:}
# the lead E_right - E_left: the sum of the two norms
ecg_tols+=("E_right-E_left:$(python3 -c "print(${w1} + ${w2})")")
runs="2:rows 3:nonzeros"
[ "$has_metis" = 1 ] && runs="2:metis 3:nonzeros 3:rows"
[ "$has_ptscotch" = 1 ] && runs="$runs 3:ptscotch" # every rank holds the mesh here (probes, ECG): backends/mpi cuts it
for r in $runs; do
  np=${r%%:*} part=${r#*:}
  out=$tmp/np$np-$part
  if ! timeout 120 "$mpiexec" --oversubscribe --allow-run-as-root -np "$np" "$HEARTSIM" run "$cfg" "${sets[@]}" \
       --set parallel.partition=$part --out "$out" < /dev/null > "$out.log" 2>&1; then
    echo "mpirun -np $np, $part: failed"; cat "$out.log"; exit 1
  fi
  [ "$(grep -c '^summary:' "$out.log")" = 1 ] || { echo "np $np $part: not one summary"; cat "$out.log"; exit 1; }
  for f in slab_000000.vtk slab_000002.vtk slab_000005.vtk; do
    python3 "$close" "$tmp/serial/$f" "$out/$f" "V:$tol_v" "activation:$tol_a" "region:0"
  done
  python3 "$close" "$tmp/serial/slab_maps.vtk" "$out/slab_maps.vtk" "activation:$tol_a" "region:0"
  python3 "$here/csv_close.py" "$tmp/serial/slab_probes.csv" "$out/slab_probes.csv" "$tol_v"
  python3 "$here/csv_close.py" "$tmp/serial/slab_ecg.csv" "$out/slab_ecg.csv" 0 "${ecg_tols[@]}"
  for f in slab_probes.png slab_ecg.png slab.vtk.series; do
    [ -s "$out/$f" ] || { echo "np $np $part: no $f"; exit 1; }
  done
  cmp -s "$tmp/serial/slab.vtk.series" "$out/slab.vtk.series" || { echo "np $np $part: series index differs"; exit 1; }
done

# a study restarted on another rank count: 2 ranks to 5 ms (a checkpoint), then 3 ranks to 10 ms; the
# CSVs keep their rows up to the checkpoint and continue as the serial run's (the same bounds)
rs=$tmp/restart
timeout 120 "$mpiexec" --oversubscribe --allow-run-as-root -np 2 "$HEARTSIM" run "$cfg" --set solver.backend=cpu \
  --set time.t_end=5 --set output.checkpoint_interval=5 --out "$rs" < /dev/null > "$rs.1.log" 2>&1 ||
  { cat "$rs.1.log"; echo "study to 5 ms on 2 ranks: failed"; exit 1; }
timeout 120 "$mpiexec" --oversubscribe --allow-run-as-root -np 3 "$HEARTSIM" run "$cfg" "${sets[@]}" \
  --set output.checkpoint_interval=5 --out "$rs" --restart "$rs" < /dev/null > "$rs.2.log" 2>&1 ||
  { cat "$rs.2.log"; echo "study restarted on 3 ranks: failed"; exit 1; }
grep -q "^restart: from .*t = 5 ms" "$rs.2.log" || { cat "$rs.2.log"; echo "no restart from 5 ms"; exit 1; }
python3 "$here/csv_close.py" "$tmp/serial/slab_probes.csv" "$rs/slab_probes.csv" "$tol_v"
python3 "$here/csv_close.py" "$tmp/serial/slab_ecg.csv" "$rs/slab_ecg.csv" 0 "${ecg_tols[@]}"
python3 "$close" "$tmp/serial/slab_000005.vtk" "$rs/slab_000005.vtk" "V:$tol_v" "activation:$tol_a" "region:0"

# per-beat maps (sim/beats.c: read from the gathered state on every rank, written by rank 0): the slab
# of tests/sim/test_readouts.c stimulated at 0 and 450 ms, 1800 steps; activation within 2 N 1e-8 ms
bsets=(--set mesh.lx=2 --set mesh.ly=0.5 --set mesh.lz=0.5 --set mesh.h=0.25 --set time.dt=0.5 --set time.t_end=900
       --set 'stimulus.[0].max=[0.3, 2.0, 2.0]' --set 'stimulus.[0].count=2' --set 'stimulus.[0].period=450'
       --set output.interval=5 --set solver.backend=cpu)
qcfg=$HS_SOURCE_DIR/configs/quick_slab.cfg
"$HEARTSIM" run "$qcfg" "${bsets[@]}" --out "$tmp/beats_serial" -q
timeout 200 "$mpiexec" --oversubscribe --allow-run-as-root -np 2 "$HEARTSIM" run "$qcfg" "${bsets[@]}" \
  --set parallel.partition=rows --out "$tmp/beats_np2" < /dev/null > "$tmp/beats.log" 2>&1 ||
  { cat "$tmp/beats.log"; echo "mpirun -np 2, per-beat maps: failed"; exit 1; }
tol_b=$(python3 -c "print(2 * 1800 * 1e-8)")
for f in slab_maps_beat1.vtk slab_maps_beat2.vtk; do
  [ -s "$tmp/beats_serial/$f" ] || { echo "the serial run wrote no $f"; exit 1; }
  python3 "$close" "$tmp/beats_serial/$f" "$tmp/beats_np2/$f" "activation:$tol_b"
done

# a refusal (a format that multiplies whole matrices cannot split a rank's rows at the interior/boundary
# line): rank 0 alone prints it, naming the key,
# and every rank exits with the config error's code (2), no MPI_Abort
out=$tmp/refusal.log
rc=0
timeout 120 "$mpiexec" --oversubscribe --allow-run-as-root -np 2 "$HEARTSIM" run "$cfg" "${sets[@]}" \
  --set solver.spmv=aligned_coo --out "$tmp/refusal" < /dev/null > "$out" 2>&1 || rc=$?
[ "$rc" = 2 ] || { cat "$out"; echo "refusal: mpirun exit $rc, 2 expected"; exit 1; }
[ "$(grep -c '^heartsim: error' "$out")" = 1 ] && grep -q '^heartsim: error: solver.spmv: ' "$out" ||
  { cat "$out"; echo "refusal: not one message from rank 0 naming solver.spmv"; exit 1; }
! grep -q 'MPI_ABORT' "$out" || { cat "$out"; echo "refusal: MPI_Abort"; exit 1; }
# the same for an error in the config (time.dt) and for a backend this build or machine cannot run
# (solver.backend = "cuda": not built, exit 2, or no device, exit 6)
for set in time.dt=-1 solver.backend=cuda; do
  key=${set%%=*}
  rc=0
  timeout 120 "$mpiexec" --oversubscribe --allow-run-as-root -np 2 "$HEARTSIM" run "$cfg" --set time.t_end=1 \
    --set "$set" --out "$tmp/refusal2" < /dev/null > "$out" 2>&1 || rc=$?
  case "$key:$rc" in
    time.dt:2 | solver.backend:2 | solver.backend:6 | solver.backend:0) ;;
    *) cat "$out"; echo "$set: mpirun exit $rc"; exit 1 ;;
  esac
  [ "$rc" = 0 ] && continue # a machine with a GPU runs it
  [ "$(grep -c '^heartsim: error' "$out")" = 1 ] && grep -q "^heartsim: error: .*$key" "$out" ||
    { cat "$out"; echo "$set: not one message from rank 0 naming $key"; exit 1; }
  ! grep -q 'MPI_ABORT' "$out" || { cat "$out"; echo "$set: MPI_Abort"; exit 1; }
done
