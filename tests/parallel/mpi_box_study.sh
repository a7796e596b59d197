#!/usr/bin/env bash
# A study (regions with a non-conducting scar and a slow band, probes, pseudo-ECG: configs/scar_slab.cfg)
# and per-beat maps on ranks that never hold the whole mesh (issue 26): parallel.partition = "box"
# (each rank generates its block) on 1, 2, 3 ranks, and a file mesh that rank 0 reads and sends in parts
# (metis, or rows in a build without METIS) on 2 and 3 ranks, equal to the serial run: frames, the maps
# file, the probe and ECG CSVs, the per-beat maps. The probes sit where 8 nodes are equally near (ties:
# the smallest global number, as serially), one of them across the blocks of 2 ranks, the other across
# those of 3; each run names the serial run's nodes. The summary counts the ranks that held the whole
# mesh during set-up: none with box, rank 0 alone when it reads the file. An electrode inside the tissue
# and a probe outside it are refused on the blocks with the serial run's message.
# With HDF5, the study on 3 box ranks and the two beats on 2 with xdmf_h5 frames (written collectively with
# a parallel HDF5): the CSVs, the maps file and the per-beat maps (legacy VTK, gathered on their own) too.
# Usage: mpi_box_study.sh MPIEXEC HAS_METIS HAS_HDF5 (HEARTSIM, HS_SOURCE_DIR from ctest).
#
# Bounds (tests/parallel/mpi_study.sh): the runs differ in the order of sums only and each accepted
# step meets the Newton tests at 1e-8, so after N steps max |u - u'| <= N 1e-8 (model units): V
# (frames, probes) within 100 N 1e-8 mV, activation within 2 N 1e-8 ms, region exact, an electrode
# within ||W||_1 N 1e-8 (the serial run logs ||W||_1 at -v), a lead within the sum of its two. N = 80
# here, 1800 for the per-beat maps. mpirun -np 1 with box is the serial run (mesh.reorder = "none")
# byte for byte.
set -euo pipefail
mpiexec=$1
has_metis=$2
has_hdf5=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1
here=$(dirname "$0")
close=$HS_SOURCE_DIR/tests/app/vtk_fields_close.py
fail() { echo "FAIL: $*"; exit 1; }
mpi() { local np=$1; shift; timeout 200 "$mpiexec" --oversubscribe --allow-run-as-root -np "$np" "$HEARTSIM" "$@" < /dev/null; }
cfg=$HS_SOURCE_DIR/configs/scar_slab.cfg
# 21 x 11 x 2 nodes; blocks of 2 ranks split x at nodes 10 | 11 (x = 5, 5.5 mm), of 3 at 6 | 7 (3, 3.5 mm)
sets=(--set mesh.h=0.5 --set time.t_end=8 --set output.interval=1 --set solver.backend=cpu --set 'mesh.reorder="none"'
      --set 'probes.points.[0].at=[3.25, 0.25, 0.25]' --set 'probes.points.[1].at=[5.25, 0.25, 0.25]')
n=80
tol_v=$(python3 -c "print(100 * $n * 1e-8)")
tol_a=$(python3 -c "print(2 * $n * 1e-8)")

# the serial run's files and bounds
study_ref() { # CFG OUT [sets...]: the serial run, its ECG bounds in $OUT.tols
  local c=$1 o=$2; shift 2
  "$HEARTSIM" run "$c" "$@" --out "$o" -v > "$o.log" 2>&1 || { cat "$o.log"; fail "serial $c"; }
  local t=() w
  for e in E_right E_left; do
    w=$(sed -n "s/^electrode $e: weights' 1-norm \([^ ]*\) mV.*/\1/p" "$o.log")
    [ -n "$w" ] || fail "no weight norm for $e in the serial log"
    t+=("$e:$(python3 -c "print($w * $n * 1e-8)")")
  done
  t+=("E_right-E_left:$(python3 -c "print(${t[0]#*:} + ${t[1]#*:})")")
  echo "${t[@]}" > "$o.tols"
}
study_same() { # REF OUT [h5]: the run's files within the bounds of the serial run's, the same probe nodes
  local r=$1 o=$2
  if [ "${3:-}" != h5 ]; then
    for f in slab_000000.vtk slab_000004.vtk slab_000008.vtk; do
      python3 "$close" "$r/$f" "$o/$f" "V:$tol_v" "activation:$tol_a" "region:0" || fail "$o/$f"
    done
    cmp -s "$r/slab.vtk.series" "$o/slab.vtk.series" || fail "$o: series index differs"
  else
    [ -s "$o/slab.xdmf" ] && [ -s "$o/slab.h5" ] || fail "$o: no xdmf_h5 series"
  fi
  python3 "$close" "$r/slab_maps.vtk" "$o/slab_maps.vtk" "activation:$tol_a" "region:0" || fail "$o: maps"
  python3 "$here/csv_close.py" "$r/slab_probes.csv" "$o/slab_probes.csv" "$tol_v" || fail "$o: probes"
  # shellcheck disable=SC2046
  python3 "$here/csv_close.py" "$r/slab_ecg.csv" "$o/slab_ecg.csv" 0 $(cat "$r.tols") || fail "$o: ECG"
  for f in slab_probes.png slab_ecg.png; do [ -s "$o/$f" ] || fail "$o: no $f"; done
  diff <(grep '^probe ' "$r.log") <(grep '^probe ' "$o.log") > /dev/null || {
    grep '^probe ' "$r.log" "$o.log"; fail "$o: other probe nodes than the serial run's"; }
  # the front's foot reaches both probes by 8 ms (V rises by more than 5 mV): a neighbouring node, 0.5 mm
  # nearer or farther, would differ by millivolts, far beyond the bound
  python3 - "$o/slab_probes.csv" <<'PY' || fail "$o: a probe stays at rest"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))[1:]
assert all(max(float(r[j]) for r in rows) - min(float(r[j]) for r in rows) > 5.0 for j in (1, 2))
PY
}
held() { # LOG NP K: the summary says K of NP ranks held the whole mesh
  grep -q "^  whole mesh: held by $3 of $2 ranks during set-up" "$1" || { cat "$1"; fail "$1: not held by $3 of $2"; }
}

# box: each rank its block, regions by centroid, probes and electrodes found on the blocks
study_ref "$cfg" "$tmp/serial" "${sets[@]}"
for np in 1 2 3; do
  o=$tmp/box$np
  mpi "$np" run "$cfg" "${sets[@]}" --set parallel.partition=box --out "$o" -v > "$o.log" 2>&1 ||
    { cat "$o.log"; fail "box on $np ranks"; }
  grep -q "^mesh: box of 462 nodes, 1200 tetrahedra, generated by $np ranks" "$o.log" ||
    { cat "$o.log"; fail "np $np: the ranks did not generate their blocks"; }
  [ "$np" = 1 ] || held "$o.log" "$np" 0 # one rank's block is the whole box
  # the regions' counts over the blocks, as the serial run logs them
  diff <(grep '^regions' "$tmp/serial.log") <(grep '^regions' "$o.log") > /dev/null ||
    { grep '^regions' "$tmp/serial.log" "$o.log"; fail "np $np: other region counts"; }
  if [ "$np" = 1 ]; then
    diff -r -q "$tmp/serial" "$o" || fail "mpirun -np 1 box: not the serial run's bytes"
  else
    study_same "$tmp/serial" "$o"
  fi
done

# xdmf_h5 frames: the maps file and the CSVs as with vtk frames
if [ "$has_hdf5" = 1 ]; then
  o=$tmp/box3h5
  mpi 3 run "$cfg" "${sets[@]}" --set output.format=xdmf_h5 --set parallel.partition=box --out "$o" -v > "$o.log" 2>&1 ||
    { cat "$o.log"; fail "box on 3 ranks, xdmf_h5"; }
  study_same "$tmp/serial" "$o" h5
fi

# found on the blocks, refused as serially, said once with the serial run's numbers: an electrode inside
# the tissue (its element, depth and size: minima over the blocks) and a probe outside it (its distance
# and the longest edge)
for bad in 'ecg.electrodes.[0].at=[5.1, 2.6, 0.25]' 'probes.points.[1].at=[5.25, 7.0, 0.25]'; do
  o=$tmp/refused
  if "$HEARTSIM" run "$cfg" "${sets[@]}" --set "$bad" --out "$o" > "$o.log" 2>&1; then cat "$o.log"; fail "serial $bad"; fi
  want=$(grep '^heartsim: error' "$o.log")
  [ -n "$want" ] || { cat "$o.log"; fail "serial $bad: no error"; }
  for np in 2 3; do
    if mpi "$np" run "$cfg" "${sets[@]}" --set "$bad" --set parallel.partition=box --out "$o$np" > "$o$np.log" 2>&1; then
      cat "$o$np.log"; fail "box on $np ranks took $bad"
    fi
    [ "$(grep '^heartsim: error' "$o$np.log")" = "$want" ] || { cat "$o$np.log"; echo "serial: $want"; fail "box on $np ranks: $bad"; }
  done
done

# a file mesh (the exported scar_slab box, fibres from a file) read by rank 0 and sent in parts
"$HEARTSIM" mesh "$cfg" --set mesh.h=0.5 --out "$tmp/me" > "$tmp/me.log" 2>&1 || { cat "$tmp/me.log"; fail "heartsim mesh"; }
fcfg=$tmp/file.cfg
python3 - "$cfg" "$tmp/me" > "$fcfg" <<'PY'
import re, sys
c = open(sys.argv[1]).read()
c = re.sub(r"mesh = \{.*?\};", 'mesh = { source = "file"; file = "%s/slab_mesh.msh"; reorder = "none"; };' % sys.argv[2], c, flags=re.S)
c = re.sub(r"fibers = \{.*?\};", 'fibers = { type = "file"; file = "%s/slab_fibers.txt"; location = "element"; };' % sys.argv[2], c, flags=re.S)
print(c)
PY
fsets=("${sets[@]:2}") # without mesh.h
study_ref "$fcfg" "$tmp/fserial" "${fsets[@]}"
part=rows; [ "$has_metis" = 1 ] && part=metis
for np in 2 3; do
  o=$tmp/file$np
  mpi "$np" run "$fcfg" "${fsets[@]}" --set parallel.partition=$part --out "$o" -v > "$o.log" 2>&1 ||
    { cat "$o.log"; fail "file mesh on $np ranks, $part"; }
  grep -q "^mesh: rank 0 sent each of the other $((np - 1)) ranks its part" "$o.log" ||
    { cat "$o.log"; fail "file mesh, np $np: not sent in parts"; }
  held "$o.log" "$np" 1
  study_same "$tmp/fserial" "$o"
done

# per-beat maps (two beats: the slab of tests/parallel/mpi_study.sh stimulated at 0 and 450 ms, 1800
# steps), written from each rank's owned nodes: box on 2 ranks (vtk, and xdmf_h5 frames), sent in parts on 3
bsets=(--set mesh.lx=2 --set mesh.ly=0.5 --set mesh.lz=0.5 --set mesh.h=0.25 --set time.dt=0.5 --set time.t_end=900
       --set 'stimulus.[0].max=[0.3, 2.0, 2.0]' --set 'stimulus.[0].count=2' --set 'stimulus.[0].period=450'
       --set output.interval=5 --set solver.backend=cpu --set 'mesh.reorder="none"')
qcfg=$HS_SOURCE_DIR/configs/quick_slab.cfg
"$HEARTSIM" run "$qcfg" "${bsets[@]}" --out "$tmp/beats" -q || fail "serial two beats"
tol_b=$(python3 -c "print(2 * 1800 * 1e-8)")
runs="2:box:vtk 3:$part:vtk"
[ "$has_hdf5" = 1 ] && runs="$runs 2:box:xdmf_h5"
for r in $runs; do
  np=${r%%:*} p=${r#*:} fmt=${r##*:}
  p=${p%%:*}
  o=$tmp/beats$np$p$fmt
  mpi "$np" run "$qcfg" "${bsets[@]}" --set output.format=$fmt --set parallel.partition=$p --out "$o" > "$o.log" 2>&1 ||
    { cat "$o.log"; fail "two beats on $np ranks, $p"; }
  held "$o.log" "$np" "$([ "$p" = box ] && echo 0 || echo 1)"
  for f in slab_maps_beat1.vtk slab_maps_beat2.vtk; do
    [ -s "$tmp/beats/$f" ] || fail "the serial run wrote no $f"
    python3 "$close" "$tmp/beats/$f" "$o/$f" "activation:$tol_b" "repolarisation:$tol_b" "apd:$(python3 -c "print(2 * $tol_b)")" ||
      fail "$o/$f"
  done
  python3 "$close" "$tmp/beats/slab_maps.vtk" "$o/slab_maps.vtk" "activation:$tol_b" || fail "$o: maps"
done
