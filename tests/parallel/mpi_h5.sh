#!/usr/bin/env bash
# output.format = "xdmf_h5" under mpirun (issue 26): 1, 2 and 3 ranks write the serial run's frames
# (every rank its own nodes and elements, collectively, in a build with a parallel HDF5; streamed to
# rank 0 in chunks otherwise: scripts/test-h5serial.sh), by global index, for a partition into
# contiguous ranges (rows: one hyperslab per rank) and a graph partition (metis: the rows exchanged into
# one block per rank first); checkpoints written on 3 ranks together (version 4, no gather; a flipped
# byte found by its checksum) restart on 2, then 1, and on a serial run, continuing the same .h5, equal
# to the uninterrupted run.
# Usage: mpi_h5.sh MPIEXEC HAS_METIS H5_FRAMES_CLOSE HAS_HDF5_PARALLEL (HEARTSIM, HS_SOURCE_DIR from
# ctest). Exit 77 in a build without HDF5.
#
# Bound (tests/parallel/mpi_run.sh): after N steps a distributed run's phi is within N * 1e-8 of the
# serial run's (Newton and CG tolerances 1e-8, sums in another order), V = 100 phi - 80 within
# 100 N 1e-8 mV, activation within 2 N 1e-8 ms. Frames hold float32: add one unit in the last place
# of the largest value (V: |V| < 128 mV, 2^-16; phi < 2, 2^-23; activation < 4 ms, 2^-22). On one
# rank the partition is the whole mesh in its own order: the serial run's arithmetic, so every value
# is exactly the serial one's (tolerance 0). The mesh arrays (points, cells, region) are exact.
set -euo pipefail
mpiexec=$1
has_metis=$2
close=$3
collective=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1
cfg=$HS_SOURCE_DIR/configs/quick_slab.cfg
sets=(--set mesh.h=0.5 --set time.t_end=3 --set output.interval=1 --set solver.backend=cpu
      --set output.format=xdmf_h5 --set output.checkpoint_interval=1
      --set 'output.fields=["phi", "V", "activation", "region"]')
fail() { echo "FAIL: $*"; exit 1; }
mpi() { local np=$1; shift; timeout 120 "$mpiexec" --oversubscribe --allow-run-as-root -np "$np" "$HEARTSIM" "$@" < /dev/null; }

out=$("$HEARTSIM" run "$cfg" "${sets[@]}" --out "$tmp/serial" -q 2>&1) || {
  if grep -q "built without HDF5" <<<"$out"; then echo "skipped: $out"; exit 77; fi
  echo "$out"; fail "serial run"
}
n=30
tols=("V:$(python3 -c "print(100 * $n * 1e-8 + 2**-16)")" "phi:$(python3 -c "print($n * 1e-8 + 2**-23)")"
      "activation:$(python3 -c "print(2 * $n * 1e-8 + 2**-22)")")
tol_a=$(python3 -c "print(2 * $n * 1e-8)")
vclose=$HS_SOURCE_DIR/tests/app/vtk_fields_close.py

parts="rows"
[ "$has_metis" = 1 ] && parts="rows metis"
for np in 1 2 3; do
  for part in $parts; do
    o=$tmp/np$np-$part
    mpi "$np" run "$cfg" "${sets[@]}" --set parallel.partition=$part --out "$o" > "$o.log" 2>&1 ||
      { cat "$o.log"; fail "mpirun -np $np ($part): failed"; }
    if [ "$collective" = 1 ]; then # the rank's rows: one run for rows, many for metis beyond one rank
      want=hyperslabs; [ "$part" = metis ] && [ "$np" -gt 1 ] && want="exchanged into blocks"
      grep -q "^output: .*slab.h5 written collectively by $np ranks .*: $want\$" "$o.log" ||
        { cat "$o.log"; fail "np $np $part: not written collectively with $want"; }
    fi
    ls "$o" | grep -q '^slab_0' && fail "np $np $part: files per frame: $(ls "$o")"
    cmp -s "$tmp/serial/slab.xdmf" "$o/slab.xdmf" || fail "np $np $part: the index differs from the serial run's"
    if [ "$np" = 1 ]; then
      "$close" "$tmp/serial/slab.h5" "$o/slab.h5" || fail "np 1 $part: frames are not exactly the serial run's"
    else
      "$close" "$tmp/serial/slab.h5" "$o/slab.h5" "${tols[@]}" || fail "np $np $part: frames differ from the serial run's"
    fi
    python3 "$vclose" "$tmp/serial/slab_maps.vtk" "$o/slab_maps.vtk" "activation:$tol_a" || fail "np $np $part: maps"
  done
done

# checkpoints of 3 ranks restarted on 2, then on 1 (mpirun -np 1), each appending to the same .h5; and
# the 3-rank checkpoint restarted by a serial run
r=$tmp/restart
mpi 3 run "$cfg" "${sets[@]}" --set time.t_end=1 --out "$r" > "$r.1.log" 2>&1 || { cat "$r.1.log"; fail "3 ranks to 1 ms"; }
# the 3 ranks wrote their checkpoint together (version 4: every rank its values, no gather)
ck=$(ls "$r"/slab_ckpt_*.hsck | tail -1)
[ "$(od -A n -t u8 -j 8 -N 8 "$ck" | tr -d ' ')" = 4 ] || fail "$ck: not a version 4 checkpoint"
# one flipped byte in its payload (the last node's value of the last array) is found by its checksum
cp "$ck" "$tmp/damaged.hsck"
printf '\x7f' | dd of="$tmp/damaged.hsck" bs=1 seek=$(( $(stat -c %s "$ck") - 3 )) conv=notrunc status=none
if "$HEARTSIM" run "$cfg" "${sets[@]}" --out "$tmp/damaged" --restart "$tmp/damaged.hsck" > "$tmp/damaged.log" 2>&1; then
  fail "a damaged version 4 checkpoint was accepted"
fi
grep -q "payload checksum mismatch" "$tmp/damaged.log" || { cat "$tmp/damaged.log"; fail "damaged checkpoint: no checksum message"; }
cp -r "$r" "$r-serial"
mpi 2 run "$cfg" "${sets[@]}" --set time.t_end=2 --out "$r" --restart "$r" > "$r.2.log" 2>&1 ||
  { cat "$r.2.log"; fail "restart on 2 ranks"; }
grep -q "^restart: from .*t = 1 ms" "$r.2.log" || { cat "$r.2.log"; fail "2 ranks: no restart from 1 ms"; }
mpi 1 run "$cfg" "${sets[@]}" --out "$r" --restart "$r" > "$r.3.log" 2>&1 || { cat "$r.3.log"; fail "restart on 1 rank"; }
grep -q "^restart: from .*t = 2 ms" "$r.3.log" || { cat "$r.3.log"; fail "1 rank: no restart from 2 ms"; }
"$HEARTSIM" run "$cfg" "${sets[@]}" --out "$r-serial" --restart "$r-serial" > "$r.s.log" 2>&1 ||
  { cat "$r.s.log"; fail "serial restart of the 3-rank checkpoint"; }
for d in "$r" "$r-serial"; do
  cmp -s "$tmp/serial/slab.xdmf" "$d/slab.xdmf" || fail "$d: the restarted index differs from the uninterrupted one"
  "$close" "$tmp/serial/slab.h5" "$d/slab.h5" "${tols[@]}" || fail "$d: frames differ from the uninterrupted run's"
  python3 "$vclose" "$tmp/serial/slab_maps.vtk" "$d/slab_maps.vtk" "activation:$tol_a" || fail "$d: maps"
done
