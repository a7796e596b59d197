#!/usr/bin/env bash
# Messages a new user met (issue 30, items 10 and 11), each checked by its text:
#  - a missing @include names the file, the line of the directive and where it was looked for;
#  - TetGen's self-intersection refusal names the surface file;
#  - a garbage .vtk is quoted as printable text (\xNN), never as raw bytes;
#  - mesh.quadratic = "linearize" says the mid-edge nodes are not part of a linear mesh (not that
#    nodes were "dropped" as if the file were broken);
#  - config-reference names a model's parameter once ("bueno_orovio: bueno_orovio:" was printed);
#  - a .vtp whose labels are in an array of another name ("class") says which arrays it found and
#    which names are read; mesh.label_array names the array; a wrong name lists the arrays;
#  - an ECG electrode inside the tissue is refused, naming its key and depth (item 3).
# Environment: HEARTSIM (the binary), HS_SOURCE_DIR (the source tree).
set -u
hs=${HEARTSIM:?}
src=${HS_SOURCE_DIR:?}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hs_messages_XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
# expect RC PATTERN -- command...: the exit code and a fixed string in the combined output
expect() {
  local want=$1 pat=$2; shift 3
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -qF -- "$pat" <<<"$out"; then
    fail "$* -> rc $rc (want $want), output lacks \"$pat\":"; echo "$out" | tail -5
  fi
}
base='time = { dt = 0.1; t_end = 0.2; };
fibers = { type = "constant"; direction = [1.0, 0.0, 0.0]; };'

# @include: the main file's directive and a nested one
mkdir -p "$tmp/inc"
printf '%s\n@include "nosuch.cfg"\n' "$base" > "$tmp/inc/a.cfg"
expect 2 "$tmp/inc/a.cfg:3: @include \"nosuch.cfg\": cannot open $tmp/inc/nosuch.cfg: No such file or directory" -- \
  "$hs" check "$tmp/inc/a.cfg"
printf 'mesh = { source = "box"; };\n@include "sub/deeper.cfg"\n' > "$tmp/inc/inner.cfg"
printf '# outer\n@include "inner.cfg"\n' > "$tmp/inc/b.cfg"
expect 2 "$tmp/inc/inner.cfg:2: @include \"sub/deeper.cfg\": cannot open $tmp/inc/sub/deeper.cfg" -- \
  "$hs" check "$tmp/inc/b.cfg"

# self-intersection: two overlapping cubes
{
  echo "OFF"; echo "16 24 0"
  for o in 0 5; do for i in 0 1 2 3 4 5 6 7; do
    echo "$((o + 10 * (i & 1))) $((o + 10 * ((i >> 1) & 1))) $((o + 10 * ((i >> 2) & 1)))"
  done; done
  for o in 0 8; do
    for q in "0 2 3 1" "4 5 7 6" "0 1 5 4" "2 6 7 3" "0 4 6 2" "1 3 7 5"; do
      set -- $q; echo "3 $(($1 + o)) $(($2 + o)) $(($3 + o))"; echo "3 $(($1 + o)) $(($3 + o)) $(($4 + o))"
    done
  done
} > "$tmp/two.off"
printf 'mesh = { source = "surface"; file = "two.off"; h = 2.0; cache = false; };\n%s\n' "$base" > "$tmp/si.cfg"
expect 3 "heartsim: error: $tmp/two.off: the surface intersects itself" -- "$hs" mesh "$tmp/si.cfg" --out "$tmp/si" -q

# a garbage .vtk: the message quotes it escaped, and nothing but printable ASCII reaches the terminal
printf '# vtk DataFile Version 3.0\n\x01\x02\xff\xfe garbage \x1b[31m red\nASCII\nDATASET \x89PNG\x1b[2J\n' > "$tmp/garbage.vtk"
# a PNG image renamed (the 8-byte signature, an IHDR chunk, a tab and a terminal title sequence)
printf '\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x1b]0;x\x07\t\xc3\xa9\xff' > "$tmp/png.vtk"
printf '\xe2\x94\x80 \x1b[1m\tbold\xc0\xaf' > "$tmp/utf8.vtk"
for g in garbage png utf8; do
  printf 'mesh = { source = "file"; file = "%s.vtk"; };\n%s\n' "$g" "$base" > "$tmp/$g.cfg"
  out=$("$hs" mesh "$tmp/$g.cfg" --out "$tmp/g" -q 2>&1); rc=$?
  [ $rc -eq 3 ] || fail "$g.vtk: exit $rc, expected 3: $out"
  LC_ALL=C grep -q '[^[:print:]]' <<<"$out" && fail "$g.vtk: raw bytes in the message: $(od -c <<<"$out" | head -3)"
  grep -qF '\x' <<<"$out" || fail "$g.vtk: no escaped bytes in: $out"
done
expect 3 "garbage.vtk:4: DATASET \\x89PNG\\x1b[2J is not read" -- "$hs" mesh "$tmp/garbage.cfg" --out "$tmp/g" -q

# quadratic tetrahedra read as linear: the mid-edge nodes are said to be that, not "dropped"
for q in vtk/quadratic_tet.vtk gmsh/quadratic_tet22.msh; do
  printf 'mesh = { source = "file"; file = "%s"; quadratic = "linearize"; };\n%s\n' "$src/tests/fuzz/corpus/$q" "$base" > "$tmp/q.cfg"
  out=$("$hs" mesh "$tmp/q.cfg" --out "$tmp/q" 2>&1) || fail "$q: heartsim mesh failed: $out"
  grep -qF "1 quadratic tetrahedra read as linear ones on their corners (mesh.quadratic = \"linearize\"): the linear mesh uses 4 of the 10 nodes; the other 6 are the mid-edge nodes" <<<"$out" ||
    fail "$q: no note on the mid-edge nodes: $(head -2 <<<"$out")"
  grep -q "dropped" <<<"$out" && fail "$q: says nodes were dropped: $(grep dropped <<<"$out")"
done

# config-reference: a model's name once before its parameter's meaning
out=$("$hs" config-reference 2>&1) || fail "config-reference failed"
grep -qE '([a-z_]+): \1:' <<<"$out" && fail "config-reference repeats a prefix: $(grep -E '([a-z_]+): \1:' <<<"$out" | head -2)"
grep -qF '| `model.u_o` |' <<<"$out" && ! grep -qF 'bueno_orovio: potential of the outward' <<<"$out" &&
  fail "config-reference lost bueno_orovio's prefix"

# a .vtp with its labels in "class" (and a 3-component array beside it)
cat > "$tmp/tet.vtp" <<'VTP'
<?xml version="1.0"?>
<VTKFile type="PolyData" version="0.1" byte_order="LittleEndian">
  <PolyData>
    <Piece NumberOfPoints="4" NumberOfVerts="0" NumberOfLines="0" NumberOfStrips="0" NumberOfPolys="4">
      <Points>
        <DataArray type="Float64" NumberOfComponents="3" format="ascii">0 0 0  10 0 0  0 10 0  0 0 10</DataArray>
      </Points>
      <Polys>
        <DataArray type="Int32" Name="connectivity" format="ascii">0 2 1  0 1 3  0 3 2  1 2 3</DataArray>
        <DataArray type="Int32" Name="offsets" format="ascii">3 6 9 12</DataArray>
      </Polys>
      <CellData>
        <DataArray type="Float32" Name="normals" NumberOfComponents="3" format="ascii">0 0 -1 0 -1 0 -1 0 0 1 1 1</DataArray>
        <DataArray type="Int32" Name="class" format="ascii">1 1 1 2</DataArray>
      </CellData>
    </Piece>
  </PolyData>
</VTKFile>
VTP
printf 'mesh = { source = "surface"; file = "tet.vtp"; h = 2.0; cache = false; };\n%s\n' "$base" > "$tmp/vtp.cfg"
expect 0 "warning: $tmp/tet.vtp: no facet labels read: its CellData arrays are \"normals\" (Float32, 3 components), \"class\" (Int32, 1 component); labels are read from a 1-component integer array named region, regions, tag, material, elemTag, gmsh:physical, CellEntityIds (any case), or from the one mesh.label_array names (e.g. mesh.label_array = \"class\")" -- \
  "$hs" mesh "$tmp/vtp.cfg" --out "$tmp/v"
out=$("$hs" mesh "$tmp/vtp.cfg" --set 'mesh.label_array="class"' --out "$tmp/v" 2>&1) || fail "mesh.label_array = class: $out"
grep -qE '^labels: +[0-9]+ boundary triangles' <<<"$out" && grep -qE '^  2 +[0-9]+ triangles, area 86.60' <<<"$out" ||
  fail "mesh.label_array = \"class\": labels not read: $(grep -A2 '^labels' <<<"$out")"
grep -q "warning" <<<"$out" && fail "mesh.label_array = \"class\": still warns: $(grep warning <<<"$out")"
expect 3 "$tmp/tet.vtp: mesh.label_array = \"klass\": the file has no CellData array of that name; its CellData arrays: \"normals\" (Float32, 3 components), \"class\" (Int32, 1 component)" -- \
  "$hs" mesh "$tmp/vtp.cfg" --set 'mesh.label_array="klass"' --out "$tmp/v" -q
expect 3 "mesh.label_array = \"normals\": the array has 3 components" -- \
  "$hs" mesh "$tmp/vtp.cfg" --set 'mesh.label_array="normals"' --out "$tmp/v" -q
expect 2 "mesh.label_array = \"class\": $tmp/two.off is a .off file, which has no named cell arrays" -- \
  "$hs" mesh "$tmp/si.cfg" --set 'mesh.label_array="class"' --out "$tmp/v" -q
expect 2 "mesh.label_array = \"class\" applies to .vtp surfaces (mesh.source = \"surface\"); this mesh is \"box\"" -- \
  "$hs" check "$tmp/vtp.cfg" --set 'mesh.source="box"' --set 'mesh.label_array="class"'
# an ECG electrode inside the tissue (issue 30, item 3): refused before the run, by its key and depth
expect 2 "heartsim: error: ecg.electrodes.[0].at: electrode \"E_right\" at [5, 2.5, 0.25] mm lies inside the tissue, 0.25 mm from its surface" -- \
  "$hs" run "$src/configs/scar_slab.cfg" --set 'ecg.electrodes.[0].at=[5.0, 2.5, 0.25]' --set time.t_end=1 --out "$tmp/ecg" -q
exit $((fails > 0))
