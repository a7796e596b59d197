#!/usr/bin/env bash
# The legacy formats of a distributed run streamed through rank 0 (issue 26): heartsim under mpirun
# with output.format = "vtk" and "xdmf", two beats (frames, the maps file and the per-beat maps), while
# rank 0 cannot allocate an array of the whole-mesh gather that the files were written from before
# (HS_INJECT_ALLOC_FAIL in rank 0's environment alone): "gathered frame" and "gathered mesh" (the
# frames' arrays and connectivity: before, the run failed at its first frame), "gathered data set" (the
# whole data set hs_series_part_write_one still gathers for other callers, which the maps no longer
# use). Then rank 0's disk fills up in the middle of a file, the other ranks in the gather. Box partition,
# mesh.reorder = "none": 1 rank writes the serial run's files byte for byte, 2 and 3 ranks within the
# round-off bound (tests/parallel/mpi_study.sh): after N steps V within 100 N 1e-8 mV, activation and
# repolarisation within 2 N 1e-8 ms (N = 1000 here); the xdmf frames are float32, so each value also
# within the rounding of the larger of the two (2^-24 of it, on both sides); the mesh files, the
# region markers and the indexes byte for byte.
# Usage: mpi_stream.sh MPIEXEC (HEARTSIM, HS_SOURCE_DIR from ctest).
set -uo pipefail
mpiexec=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1
here=$(dirname "$0")
close=$HS_SOURCE_DIR/tests/app/vtk_fields_close.py
cfg=$HS_SOURCE_DIR/configs/quick_slab.cfg
fail() { echo "FAIL: $*"; [ -f "$tmp/log" ] && cat "$tmp/log"; exit 1; }
LAUNCH_TIMEOUT=200
source "$here/mpi_one_rank_env.sh" # launch

# two beats (tests/parallel/mpi_rank_faults.sh's slab: 9 x 3 x 3 nodes), stimulated at 0 and 450 ms
sets=(--set mesh.lx=2 --set mesh.ly=0.5 --set mesh.lz=0.5 --set mesh.h=0.25 --set time.dt=0.5 --set time.t_end=500
      --set 'stimulus.[0].max=[0.3, 2.0, 2.0]' --set 'stimulus.[0].count=2' --set 'stimulus.[0].period=450'
      --set output.interval=25 --set solver.backend=cpu --set 'mesh.reorder="none"'
      --set 'output.fields=["V", "activation"]' --set output.checkpoint_interval=0)
n=1000
tol_v=$(python3 -c "print(100 * $n * 1e-8)")
tol_a=$(python3 -c "print(2 * $n * 1e-8)")

vtk_same() { # REF OUT: frames, the maps file and the per-beat maps within the bounds, the index exactly
  local f
  for f in slab_000000.vtk slab_000010.vtk slab_000020.vtk; do
    python3 "$close" "$1/$f" "$2/$f" "V:$tol_v" "activation:$tol_a" || fail "$2/$f"
  done
  cmp -s "$1/slab.vtk.series" "$2/slab.vtk.series" || fail "$2: series index differs"
}
maps_same() { # REF OUT
  python3 "$close" "$1/slab_maps.vtk" "$2/slab_maps.vtk" "activation:$tol_a" || fail "$2: maps"
  for k in 1 2; do
    python3 "$close" "$1/slab_maps_beat$k.vtk" "$2/slab_maps_beat$k.vtk" "activation:$tol_a" \
      "repolarisation:$tol_a" "apd:$(python3 -c "print(2 * $tol_a)")" || fail "$2: beat $k"
  done
}
xdmf_same() { # REF OUT: mesh files and index byte for byte, frames (float32 V then activation) within bounds
  local f
  for f in slab.xdmf slab_mesh_xyz.bin slab_mesh_tets.bin; do cmp -s "$1/$f" "$2/$f" || fail "$2/$f differs"; done
  python3 - "$1" "$2" "$tol_v" "$tol_a" <<'PY' || fail "$2: xdmf frames"
import glob, os, struct, sys
ref, out, tv, ta = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
frames = sorted(glob.glob(os.path.join(ref, "slab_0*.bin")))
assert len(frames) == 21, len(frames)
for f in frames:
    a, b = open(f, "rb").read(), open(os.path.join(out, os.path.basename(f)), "rb").read()
    assert len(a) == len(b) and len(a) % 8 == 0, f
    n = len(a) // 8  # V [n] then activation [n], float32 little-endian
    x, y = struct.unpack("<%df" % (2 * n), a), struct.unpack("<%df" % (2 * n), b)
    for i in range(2 * n):
        tol = (tv if i < n else ta) + 2.0 ** -24 * 2 * max(abs(x[i]), abs(y[i]))
        assert abs(x[i] - y[i]) <= tol, (f, i, x[i], y[i], tol)
PY
}

for fmt in vtk xdmf; do
  s=$tmp/serial_$fmt
  "$HEARTSIM" run "$cfg" "${sets[@]}" --set output.format=$fmt --out "$s" -q > "$tmp/log" 2>&1 || fail "serial $fmt"
  [ -s "$s/slab_maps_beat2.vtk" ] || fail "serial $fmt: no per-beat maps"
  np=0
  for label in "gathered frame" "gathered data set" "gathered mesh"; do
    np=$((np + 1))
    o=$tmp/np${np}_$fmt
    launch "$np" 0 "HS_INJECT_ALLOC_FAIL=$label" run "$cfg" "${sets[@]}" --set output.format=$fmt \
      --set parallel.partition=box --out "$o"
    rc=$?
    [ "$rc" = 0 ] || fail "$fmt on $np ranks, rank 0 without \"$label\": exit $rc"
    grep -q "^partition: box over $np ranks" "$tmp/log" || fail "$fmt on $np ranks: no box partition"
    if [ "$np" = 1 ]; then
      diff -r -q "$s" "$o" || fail "$fmt on 1 rank: not the serial run's bytes"
    else
      if [ "$fmt" = vtk ]; then vtk_same "$s" "$o"; else xdmf_same "$s" "$o"; fi
      maps_same "$s" "$o"
    fi
  done
done

# rank 0's disk fills up while it writes the xdmf mesh's connectivity, the other ranks in the gather: one
# agreed message (the I/O error's exit code), no rank left waiting, no file or temporary file of it
o=$tmp/full
launch 3 0 "HS_INJECT_DISK_FULL_AFTER=3000" run "$cfg" "${sets[@]}" --set output.format=xdmf \
  --set parallel.partition=box --out "$o"
rc=$?
one_error 4 "cannot write XDMF mesh file $o/slab_mesh_tets.bin: .*No space left on device"
[ -s "$o/slab_mesh_xyz.bin" ] && [ ! -e "$o/slab_mesh_tets.bin" ] || fail "disk full: the mesh files"
[ -z "$(find "$o" -name '.*tmp*')" ] || fail "disk full: temporary files left: $(find "$o" -name '.*tmp*')"
exit 0
