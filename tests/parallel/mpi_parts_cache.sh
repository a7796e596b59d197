#!/usr/bin/env bash
# mesh.cache_parts under mpirun (ctest label mpi): a file mesh read by rank 0, partitioned and scattered
# on 3 ranks stores each rank's part in the mesh cache; the rerun reads the parts (the summary says so,
# no rank reads, partitions or scatters) and writes the same bytes; a damaged, missing, misplaced or
# mixed part file, a changed mesh file and another rank count are rebuilt (with one warning naming the
# file and the reason where the entry was there but unusable), never used.
# Usage: mpi_parts_cache.sh MPIEXEC HAS_METIS HAS_PTSCOTCH (HEARTSIM, HS_SOURCE_DIR from ctest).
#
# Bounds: the first run against the serial one as mpi_run.sh (N = 30 steps: V 100 N 1e-8 mV,
# activation 2 N 1e-8 ms); a run from the cache computes on the same parts as the run that stored
# them, so its files are the same bytes.
set -euo pipefail
mpiexec=$1
has_metis=$2
has_ptscotch=${3:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1
cfg=$HS_SOURCE_DIR/configs/quick_slab.cfg
close=$HS_SOURCE_DIR/tests/app/vtk_fields_close.py
"$HEARTSIM" mesh "$cfg" --set mesh.h=0.5 --out "$tmp/mesh" -q > /dev/null 2>&1 || { echo "heartsim mesh failed"; exit 1; }
meshfile=$(ls "$tmp"/mesh/*_mesh.vtk | head -1)
[ -s "$meshfile" ] || { echo "no mesh file written"; exit 1; }
cache=$tmp/cache
sets=(--set mesh.source=file --set "mesh.file=\"$meshfile\"" --set time.t_end=3 --set output.interval=1
      --set solver.backend=cpu --set 'output.fields=["V", "activation"]' --set mesh.cache_parts=true
      --set "mesh.cache_dir=\"$cache\"")
"$HEARTSIM" run "$cfg" "${sets[@]}" --out "$tmp/serial" -q
tol_v=$(python3 -c 'print(100 * 30 * 1e-8)')
tol_a=$(python3 -c 'print(2 * 30 * 1e-8)')
part=rows
[ "$has_metis" = 1 ] && part=metis
[ "$has_ptscotch" = 1 ] && part=ptscotch

run() { # run NP NAME [--set ...]: mpirun -np NP into $tmp/NAME, log $tmp/NAME.log
  local np=$1 name=$2
  shift 2
  timeout 120 "$mpiexec" --oversubscribe --allow-run-as-root -np "$np" "$HEARTSIM" run "$cfg" "${sets[@]}" \
    --set parallel.partition=$part "$@" --out "$tmp/$name" < /dev/null > "$tmp/$name.log" 2>&1 ||
    { cat "$tmp/$name.log"; echo "mpirun -np $np ($name): failed"; exit 1; }
}
stored() { # stored NAME NP: the log says the parts were stored, none loaded, one summary
  grep -q "^mesh: each rank's part stored in the partitioned mesh cache .*_${part}_n$2 ($2 files, [0-9.]* s)" "$tmp/$1.log" &&
    grep -q "^mesh: rank 0 sent each of the other" "$tmp/$1.log" &&
    ! grep -q "part from the partitioned mesh cache" "$tmp/$1.log" &&
    [ "$(grep -c '^summary:' "$tmp/$1.log")" = 1 ] || { cat "$tmp/$1.log"; echo "$1: parts not stored"; exit 1; }
}
loaded() { # loaded NAME: the summary says each rank read its part; nothing was read or scattered
  grep -q "^  mesh: each rank's part from the partitioned mesh cache .*_${part}_n3 (not read, partitioned or scattered again)" \
    "$tmp/$1.log" && ! grep -q "^mesh: rank 0 sent" "$tmp/$1.log" && ! grep -q "^mesh: [0-9]* nodes" "$tmp/$1.log" ||
    { cat "$tmp/$1.log"; echo "$1: not from the partitioned cache"; exit 1; }
}
same() { # same NAME: the files of the first run, byte for byte
  for f in slab_000000.vtk slab_000003.vtk slab_maps.vtk slab.vtk.series; do
    cmp -s "$tmp/first/$f" "$tmp/$1/$f" || { echo "$1: $f differs from the first run's"; exit 1; }
  done
}
warned() { # warned NAME REGEX: one warning, matching, and the entry stored again
  [ "$(grep -c '^heartsim: warning: partitioned mesh cache: ' "$tmp/$1.log")" = 1 ] &&
    grep -q "^heartsim: warning: partitioned mesh cache: $2; rebuilding it" "$tmp/$1.log" ||
    { cat "$tmp/$1.log"; echo "$1: not one warning saying: $2"; exit 1; }
  stored "$1" 3
}

# stored, then read back
run 3 first
stored first 3
for f in slab_000000.vtk slab_000003.vtk; do
  python3 "$close" "$tmp/serial/$f" "$tmp/first/$f" "V:$tol_v" "activation:$tol_a"
done
python3 "$close" "$tmp/serial/slab_maps.vtk" "$tmp/first/slab_maps.vtk" "activation:$tol_a"
entry=$(ls -d "$cache"/mesh_*_${part}_n3)
[ "$(ls "$entry" | tr '\n' ' ')" = "part_0.hspart part_1.hspart part_2.hspart " ] || { ls -la "$entry"; echo "not 3 part files"; exit 1; }
run 3 again
loaded again
same again

# a damaged part (a payload byte flipped): rebuilt, with one warning naming the file
python3 - "$entry/part_1.hspart" <<'EOF'
import sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
b[-200] ^= 0x55
open(p, 'wb').write(bytes(b))
EOF
run 3 damaged
warned damaged ".*part_1.hspart is damaged: payload checksum mismatch"
same damaged
run 3 repaired
loaded repaired

# another rank's part in its place: its header says so
cp "$entry/part_0.hspart" "$entry/part_2.hspart"
run 3 misplaced
warned misplaced ".*part_2.hspart holds another part (mesh key [0-9a-f]*, rank 0 of 3; this run wants [0-9a-f]*, rank 2 of 3)"
same misplaced

# a part missing
rm "$entry/part_1.hspart"
run 3 missing
warned missing ".*part_1.hspart is missing"
same missing

# parts of two stores (each intact): the stamps differ
cp "$entry/part_2.hspart" "$tmp/old_part_2"
rm "$entry/part_0.hspart"
run 3 restore
warned restore ".*part_0.hspart is missing"
cp "$tmp/old_part_2" "$entry/part_2.hspart"
run 3 mixed
warned mixed ".*_${part}_n3 mixes the parts of different runs"
same mixed

# the mesh file changed (its title line only): another key, so another entry, stored anew
sed -i '2s/.*/heartsim mesh, the same points under another title/' "$meshfile"
run 3 changed
stored changed 3
grep -q "^mesh: not in the partitioned mesh cache (.*_${part}_n3: .*an input file that changed)" "$tmp/changed.log" ||
  { cat "$tmp/changed.log"; echo "changed file: no message that the entry is not there"; exit 1; }
[ "$(ls -d "$cache"/mesh_*_${part}_n3 | wc -l)" = 2 ] || { ls "$cache"; echo "changed file: not a new entry"; exit 1; }
same changed

# another rank count: its own entry
run 2 two
stored two 2
for f in slab_000000.vtk slab_000003.vtk; do
  python3 "$close" "$tmp/serial/$f" "$tmp/two/$f" "V:$tol_v" "activation:$tol_a"
done
run 2 two_again
grep -q "^  mesh: each rank's part from the partitioned mesh cache .*_${part}_n2 " "$tmp/two_again.log" ||
  { cat "$tmp/two_again.log"; echo "2 ranks: not from the partitioned cache"; exit 1; }

# regions are found on the whole mesh: the cache is not used, and the log says why
run 3 regions --set 'regions=({ name = "slow"; select = "box"; min = [7.0, -1.0, -1.0]; max = [8.0, 6.0, 3.0]; d_iso = 0.1; d_ani = 0.3; })'
grep -q "^mesh: mesh.cache_parts: not for this run: regions are found on the whole mesh" "$tmp/regions.log" &&
  ! grep -q "partitioned mesh cache" "$tmp/regions.log" || { cat "$tmp/regions.log"; echo "regions: cache not declined"; exit 1; }
