#!/usr/bin/env bash
# The mesh cache (sim/hs_mesh_cache.h): a second run with the same mesh.* and fibers.* loads the
# mesh instead of meshing it, says so, and computes the same frames; another mesh key, another
# input file content or other fibres mesh anew; damaged entries are reported and rebuilt; an
# unwritable cache is a warning. And `heartsim mesh`'s run-ready copy (PREFIX_mesh.msh + fibres)
# runs with the same labels and fibres as the run that built the mesh.
# Environment: HEARTSIM (the binary), HS_SOURCE_DIR (the source tree).
set -u
hs=${HEARTSIM:?}
src=${HS_SOURCE_DIR:?}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hs_mesh_cache_XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=2 XDG_CACHE_HOME="$tmp/xdg"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
# expect RC PATTERN -- command...: the exit code and a pattern of the combined output, its lines
# joined by spaces (so ".*" may span lines)
expect() {
  local want=$1 pat=$2; shift 3
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [ "$rc" -ne "$want" ] || ! tr '\n' ' ' <<<"$out" | grep -qE -- "$pat"; then
    fail "$* -> rc $rc (want $want), output lacks /$pat/:"; echo "$out" | tail -5
  fi
}
lv="$src/configs/lv_ellipsoid.cfg"
run() { "$hs" run "$lv" --set mesh.h=2.5 --set time.t_end=2 --set solver.backend=cpu "$@"; }
cache="$tmp/xdg/heartsim"

# 1. the first run meshes and stores; the second loads, says so in the log and the summary, and
# writes the same frames byte for byte (the same mesh, numbering and fibres)
expect 0 "mesh: stored in the cache $cache/mesh_[0-9a-f]{16}\.hsmesh" -- run --out "$tmp/a"
[ "$(ls "$cache" | grep -c '\.hsmesh$')" -eq 1 ] || fail "one cache entry expected in $cache: $(ls -A "$cache")"
ls -A "$cache" | grep -q '\.tmp$' && fail "temporary file left in $cache"
expect 0 "mesh: from the cache $cache/mesh_[0-9a-f]{16}\.hsmesh \(meshing skipped.*  mesh: from the mesh cache" -- run --out "$tmp/b"
for f in "$tmp/a"/*.vtk; do cmp -s "$f" "$tmp/b/$(basename "$f")" || fail "$(basename "$f") differs with the cached mesh"; done
expect 0 "time: .* to load the mesh from the mesh cache" -- "$hs" mesh "$lv" --set mesh.h=2.5 --out "$tmp/m"
# output and solver keys are not part of the key; mesh.cache = false neither reads nor writes
expect 0 "mesh: from the cache" -- run --set time.dt=0.05 --set output.interval=0.5 --out "$tmp/c"
out=$(run --set mesh.cache=false --out "$tmp/d" 2>&1)
grep -qE "^mesh: (from|stored in) the cache" <<<"$out" && fail "mesh.cache = false used the cache: $out"
grep -q "  mesh: built in .* not cached)" <<<"$out" || fail "mesh.cache = false: the summary does not say 'not cached'"

# 2. another mesh, other fibres: meshed and stored anew
expect 0 "mesh: stored in the cache" -- run --set mesh.h=3 --out "$tmp/e"
expect 0 "mesh: stored in the cache" -- run --set fibers.helix_endo=50 --out "$tmp/e"
[ "$(ls "$cache" | grep -c '\.hsmesh$')" -eq 3 ] || fail "three cache entries expected: $(ls "$cache")"
# mesh.cache_dir puts it elsewhere
expect 0 "mesh: stored in the cache $tmp/mine/mesh_" -- run --set "mesh.cache_dir=\"$tmp/mine\"" --out "$tmp/e"

# 3. the input file's content is part of the key: the same path with another surface is another mesh
cube() { # cube SIZE: a closed OFF cube of edge SIZE mm
  local s=$1
  printf 'OFF\n8 6 0\n0 0 0\n%s 0 0\n%s %s 0\n0 %s 0\n0 0 %s\n%s 0 %s\n%s %s %s\n0 %s %s\n' \
    "$s" "$s" "$s" "$s" "$s" "$s" "$s" "$s" "$s" "$s" "$s" "$s" >"$tmp/cube.off"
  printf '4 0 3 2 1\n4 4 5 6 7\n4 0 1 5 4\n4 1 2 6 5\n4 2 3 7 6\n4 3 0 4 7\n' >>"$tmp/cube.off"
}
srun() { "$hs" mesh "$src/configs/surface_example.cfg" --set "mesh.file=\"$tmp/cube.off\"" --set mesh.scale=1 \
  --set mesh.h=2 --out "$tmp/s" "$@"; }
cube 6;  expect 0 "mesh: stored in the cache.*volume: +216 mm\^3" -- srun
expect 0 "mesh: from the cache.*volume: +216 mm\^3" -- srun
cube 8;  expect 0 "mesh: stored in the cache.*volume: +512 mm\^3" -- srun

# 4. damaged entries are never trusted: reported with the reason, rebuilt, and good again after
# each kind on its own entry of the LV at h = 2.5 (the entry of run 1)
key=$(run --out "$tmp/k" 2>&1 | sed -n 's/.*from the cache \(.*\.hsmesh\).*/\1/p' | head -1)
[ -n "$key" ] || fail "no cache entry found for the LV run"
if [ -n "$key" ]; then
  printf '\125' | dd of="$key" bs=1 seek=5000 conv=notrunc 2>/dev/null
  expect 0 "warning: mesh cache entry $key is damaged: payload checksum mismatch; rebuilding it.*mesh: stored in the cache" -- run --out "$tmp/f"
  for f in "$tmp/a"/*.vtk; do cmp -s "$f" "$tmp/f/$(basename "$f")" || fail "rebuilt after damage: $(basename "$f") differs"; done
  head -c 3000 "$key" >"$tmp/cut" && cp "$tmp/cut" "$key"
  expect 0 "mesh cache entry $key is truncated: 3000 bytes, expected [0-9]+; rebuilding it" -- run --out "$tmp/f"
  printf 'HSMESH1' >"$key"
  expect 0 "mesh cache entry $key is truncated.*rebuilding it" -- run --out "$tmp/f"
  printf 'something else entirely, longer than the ninety-six bytes of a header, so it is read as one: xxxxxxxxxxxxxxxxxxxxxxx' >"$key"
  expect 0 "$key is not a heartsim mesh cache entry.*rebuilding it" -- run --out "$tmp/f"
  expect 0 "mesh: from the cache $key" -- run --out "$tmp/f"
  # an entry that is a directory is said to be one (issue 30: was "truncated: 4096 bytes"); the
  # store that follows cannot replace it, which is a warning too
  rm -f "$key" && mkdir "$key"
  expect 0 "warning: mesh cache entry $key is a directory, not a file: remove it.*rebuilding it.*warning: mesh cache: .*the run goes on" -- run --out "$tmp/f"
  rmdir "$key"
fi

# 5. a cache that cannot be written is a warning; the run goes on
touch "$tmp/file"
expect 0 "warning: mesh cache: mesh cache directory $tmp/file/c cannot be created: .*the run goes on" -- run --set "mesh.cache_dir=\"$tmp/file/c\"" --out "$tmp/g"
# the cache directory is called the cache directory, never the output directory (issue 30)
out=$(run --set "mesh.cache_dir=\"$tmp/file/c\"" --out "$tmp/g" 2>&1)
grep -q "output directory" <<<"$out" && fail "the mesh cache's directory is called \"output directory\": $(grep 'output directory' <<<"$out")"

# 6. heartsim mesh's run-ready copy: the same labels (the stimulus by the label "endo"), regions
# and fibres; in its numbering (mesh.reorder = "none") the run computes what the original run did,
# to rounding (the fibres are normalised again on reading: last-bit differences)
out=$("$hs" mesh "$lv" --set mesh.h=2.5 --out "$tmp/exp" 2>/dev/null)
grep -q "^run on it:  mesh = { source = \"file\"; file = \"$tmp/exp/lv_mesh.msh\"; reorder = \"none\"; }; fibers = { type = \"file\"; file = \"$tmp/exp/lv_fibers.txt\"; location = \"element\"; };" <<<"$out" ||
  fail "heartsim mesh does not give the run-ready copy: $(grep -A1 '^files' <<<"$out")"
run --set time.t_end=5 --out "$tmp/orig" -q || fail "run on the generated mesh"
run --set time.t_end=5 --set 'mesh.source="file"' --set "mesh.file=\"$tmp/exp/lv_mesh.msh\"" --set 'mesh.reorder="none"' \
  --set 'fibers.type="file"' --set "fibers.file=\"$tmp/exp/lv_fibers.txt\"" --set 'fibers.location="element"' \
  --out "$tmp/copy" 2>"$tmp/copy.log" || { fail "run on the exported mesh:"; tail -3 "$tmp/copy.log"; }
grep -q "labels: endo, epi, base" "$tmp/copy.log" || fail "the exported mesh lost its label names"
if command -v python3 >/dev/null; then
  n=0
  for f in "$tmp/orig"/lv_[0-9]*.vtk; do
    n=$((n+1))
    python3 "$src/tests/app/vtk_fields_close.py" "$f" "$tmp/copy/$(basename "$f")" fiber:1e-15 V:1e-6 activation:1e-6 ||
      fail "the run on the exported mesh differs ($(basename "$f"))"
  done
  [ "$n" -ge 2 ] || fail "the run on the generated mesh wrote $n frames"
else
  echo "note: python3 not found; the frames of the run on the exported mesh were not compared"
fi

# 7. --export opencarp: the copy as openCARP files (um, regions as tags), the fibres in a .lon where
# they vary; the scar slab (regions by sphere and box, constant fibres: no .lon) run on its copy
# computes what the original run did, to rounding (coordinates in um: the last bit or two)
slab="$src/configs/scar_slab.cfg"
out=$("$hs" mesh "$slab" --set mesh.h=0.5 --set 'mesh.reorder="none"' --export opencarp --out "$tmp/oc" 2>/dev/null) ||
  fail "heartsim mesh --export opencarp"
grep -q "^run on it:  mesh = { source = \"file\"; file = \"$tmp/oc/slab_mesh.pts\"; scale = 0.001; reorder = \"none\"; }; fibers = { type = \"constant\"; direction = \[1, 0, 0\]; };" <<<"$out" ||
  fail "--export opencarp: no run-ready line: $(grep -A2 '^files' <<<"$out")"
[ ! -e "$tmp/oc/slab_mesh.lon" ] || fail "--export opencarp wrote a .lon for constant fibres"
"$hs" run "$slab" --set mesh.h=0.5 --set 'mesh.reorder="none"' --set time.t_end=4 --set solver.backend=cpu \
  --out "$tmp/oc_orig" -q || fail "the scar slab"
"$hs" run "$slab" --set 'mesh.source="file"' --set "mesh.file=\"$tmp/oc/slab_mesh.pts\"" --set mesh.scale=0.001 \
  --set 'mesh.reorder="none"' --set time.t_end=4 --set solver.backend=cpu --out "$tmp/oc_copy" -q ||
  fail "the scar slab on its openCARP copy"
if command -v python3 >/dev/null; then
  for f in "$tmp/oc_orig"/slab_[0-9]*.vtk; do
    python3 "$src/tests/app/vtk_fields_close.py" "$f" "$tmp/oc_copy/$(basename "$f")" V:1e-6 activation:1e-6 region:0 ||
      fail "the run on the openCARP copy differs ($(basename "$f"))"
  done
fi
# the ventricle's helix fibres go to a .lon, one per tetrahedron after its header
out=$("$hs" mesh "$lv" --set mesh.h=2.5 --export opencarp --out "$tmp/oclv" 2>/dev/null) || fail "--export opencarp, lv"
ne=$(head -1 "$tmp/oclv/lv_mesh.elem")
[ "$(wc -l < "$tmp/oclv/lv_mesh.lon")" = "$((ne + 1))" ] || fail "--export opencarp: the .lon has not one fibre per tetrahedron"
"$hs" mesh "$lv" --export vtu > /dev/null 2>&1 && fail "--export vtu was taken"

if [ "$fails" -ne 0 ]; then echo "$fails check(s) failed"; exit 1; fi
exit 0
