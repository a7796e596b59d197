#!/usr/bin/env bash
# A real run with output.format = "xdmf_h5": restarted from a checkpoint it appends to the same
# .h5 and ends with the same frames and maps file as the uninterrupted run; ParaView opens the
# series (every frame, every array, the restarted run's values equal to the uninterrupted one's)
# and the maps file alone, with the activation array equal to the last frame's.
# Environment: HEARTSIM (the binary), HS_SOURCE_DIR (the source tree). Exit 77 (skipped) when the
# build has no HDF5; the ParaView part is skipped (with a note) when pvpython is absent.
set -u
hs=${HEARTSIM:?}
src=${HS_SOURCE_DIR:?}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hs_h5run_XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
q="$src/configs/quick_slab.cfg"
run() { "$hs" run "$q" --set mesh.h=0.5 --set solver.backend=cpu --set output.format=xdmf_h5 \
          --set output.checkpoint_interval=1 "$@"; }

out=$(run --set time.t_end=1 --out "$tmp/probe" -q 2>&1)
if grep -q "built without HDF5" <<<"$out"; then echo "skipped: $out"; exit 77; fi

run --set time.t_end=4 --out "$tmp/full" -q || fail "full run"
run --set time.t_end=2 --out "$tmp/half" -q || fail "half run"
run --set time.t_end=4 --out "$tmp/half" --restart "$tmp/half" -q || fail "restarted run"
for d in full half; do
  for f in slab.xdmf slab.h5 slab_maps.vtk; do [ -f "$tmp/$d/$f" ] || fail "$d: no $f"; done
  ls "$tmp/$d" | grep -q '^slab_0' && fail "$d: files per frame: $(ls "$tmp/$d")"
  ls -A "$tmp/$d" | grep -q '\.tmp$' && fail "$d: temporary files left"
done
cmp -s "$tmp/full/slab_maps.vtk" "$tmp/half/slab_maps.vtk" || fail "maps files differ after the restart"
[ "$(grep -c '<Grid GridType="Uniform"' "$tmp/half/slab.xdmf")" -eq 5 ] || fail "restarted index: not 5 frames"
cmp -s "$tmp/full/slab.xdmf" "$tmp/half/slab.xdmf" || fail "the restarted index differs from the uninterrupted one"

if command -v pvpython >/dev/null; then
  QT_QPA_PLATFORM=offscreen pvpython "$src/tests/output/pv_h5_run_check.py" "$tmp/full" "$tmp/half" 5 \
    >"$tmp/pv.log" 2>&1 || { fail "pvpython check"; cat "$tmp/pv.log"; }
else
  echo "note: pvpython not found, the ParaView check of the run was not made"
fi
[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
