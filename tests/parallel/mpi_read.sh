#!/usr/bin/env bash
# A file mesh that every rank reads a block of (parallel.read = "ranks", issue 26): no rank holds the
# whole mesh; the ranks partition the rows they read (ptscotch where built, and rows), drop the nodes no
# element uses and swap a wholly negative mesh's orientation as the serial reader does, and run the
# study of configs/scar_slab.cfg (regions by sphere and box, probes, pseudo-ECG) equal to the serial run
# on the same file with mesh.reorder = "none": frames, the maps file, probe and ECG CSVs.
# Meshes (written below): the scar slab's lattice at h = 0.5 (21 x 11 x 2 nodes, 1200 tetrahedra) as
# openCARP files (um: mesh.scale = 0.001; region tags; a .lon fibre per element that turns with x), and
# as TetGen files numbered from 1 with the nodes shuffled, one node no element uses and every element
# negatively oriented. On the shuffled mesh mesh.reorder = "rcm" orders each rank's rows by local RCM:
# the frames still list the file's nodes (within the bounds of the serial run without reordering).
# A bad line in the middle of a file and a file that ends early are refused with the serial run's
# message, said once; runs the block read cannot take are refused naming parallel.read.
# A checkpoint of 2 ranks reading blocks continues on 3 and serially; with HDF5, xdmf_h5 frames.
# Usage: mpi_read.sh MPIEXEC HAS_PTSCOTCH HAS_HDF5 (HEARTSIM, HS_SOURCE_DIR from ctest; HS_BACKEND=cuda runs
# every run on the GPUs instead of the cpu backend: the GPU machine's check, not a ctest).
#
# Bounds as tests/parallel/mpi_box_study.sh: N = 80 steps, each meeting the Newton tests at 1e-8; V within
# 100 N 1e-8 mV, activation within 2 N 1e-8 ms, region exact, an electrode within ||W||_1 N 1e-8.
set -euo pipefail
mpiexec=$1
has_ptscotch=$2
has_hdf5=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1
here=$(dirname "$0")
close=$HS_SOURCE_DIR/tests/app/vtk_fields_close.py
fail() { echo "FAIL: $*"; exit 1; }
mpi() { local np=$1; shift; timeout 200 "$mpiexec" --oversubscribe --allow-run-as-root -np "$np" "$HEARTSIM" "$@" < /dev/null; }
n=80
tol_v=$(python3 -c "print(100 * $n * 1e-8)")
tol_a=$(python3 -c "print(2 * $n * 1e-8)")

python3 - "$tmp" <<'PY'
import math, random, sys
d = sys.argv[1]
nx, ny, nz, h = 21, 11, 2, 0.5
idx = lambda i, j, k: i + nx * (j + ny * k)
xyz = [(i * h, j * h, k * h) for k in range(nz) for j in range(ny) for i in range(nx)]
# 6 tetrahedra per cube around the diagonal 0-7 (Kuhn)
paths = [(1, 3), (1, 5), (2, 3), (2, 6), (4, 5), (4, 6)]
tets = []
for k in range(nz - 1):
    for j in range(ny - 1):
        for i in range(nx - 1):
            c = [idx(i + (b & 1), j + (b >> 1 & 1), k + (b >> 2 & 1)) for b in range(8)]
            for a, b in paths:
                tets.append([c[0], c[a], c[a | b], c[7]])
def det(t):
    a, b, c, e = (xyz[v] for v in t)
    u = [b[q] - a[q] for q in range(3)]; v = [c[q] - a[q] for q in range(3)]; w = [e[q] - a[q] for q in range(3)]
    return u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) + u[2] * (v[0] * w[1] - v[1] * w[0])
tets = [t if det(t) > 0 else [t[0], t[1], t[3], t[2]] for t in tets]
cen = lambda t: [sum(xyz[v][q] for v in t) / 4 for q in range(3)]
tag = [1 if cen(t)[0] < 5.0 else 2 for t in tets]
# openCARP, um
with open(f"{d}/slab.pts", "w") as f:
    f.write(f"{len(xyz)}\n")
    for p in xyz: f.write("%.17g %.17g %.17g\n" % tuple(1000 * c for c in p))
with open(f"{d}/slab.elem", "w") as f:
    f.write(f"{len(tets)}\n")
    for t, g in zip(tets, tag): f.write("Tt %d %d %d %d %d\n" % (*t, g))
with open(f"{d}/slab.lon", "w") as f:
    f.write("1\n")
    for t in tets:
        a = 0.05 * cen(t)[0]
        f.write("%.17g %.17g 0\n" % (math.cos(a), math.sin(a)))
# TetGen, numbered from 1: nodes shuffled, one unused node, every element negative
rnd = random.Random(26)
perm = list(range(len(xyz))); rnd.shuffle(perm)          # perm[new] = old
inv = [0] * len(xyz)
for new, old in enumerate(perm): inv[old] = new
unused = len(xyz) // 2                                     # file position of the unused node
pos = lambda new: new + (new >= unused)                    # file position of node new
with open(f"{d}/shuf.node", "w") as f:
    f.write(f"{len(xyz) + 1} 3 0 0\n")
    for q in range(len(xyz) + 1):
        if q == unused: f.write("%d 50 50 50\n" % (q + 1)); continue
        old = perm[q - (q > unused)]
        f.write("%d %.17g %.17g %.17g\n" % (q + 1, *xyz[old]))
with open(f"{d}/shuf.ele", "w") as f:
    f.write(f"{len(tets)} 4 1\n")
    for e, (t, g) in enumerate(zip(tets, tag)):
        v = [pos(inv[x]) + 1 for x in (t[0], t[1], t[3], t[2])]
        f.write("%d %d %d %d %d %d\n" % (e + 1, *v, g))
PY

# the study on a file mesh: the scar slab's config with mesh and fibres replaced
mkcfg() { # OUT MESHBLOCK FIBERBLOCK
  python3 - "$HS_SOURCE_DIR/configs/scar_slab.cfg" "$2" "$3" > "$1" <<'PY'
import re, sys
c = open(sys.argv[1]).read()
c = re.sub(r"mesh = \{.*?\};", sys.argv[2], c, flags=re.S)
c = re.sub(r"fibers = \{.*?\};", sys.argv[3], c, flags=re.S)
print(c)
PY
}
mkcfg "$tmp/carp.cfg" "mesh = { source = \"file\"; file = \"$tmp/slab.pts\"; scale = 0.001; reorder = \"none\"; };" \
  'fibers = { type = "auto"; };'
mkcfg "$tmp/tg.cfg" "mesh = { source = \"tetgen\"; file = \"$tmp/shuf\"; reorder = \"none\"; };" \
  'fibers = { type = "constant"; direction = [1.0, 0.0, 0.0]; };'
sets=(--set time.t_end=8 --set output.interval=1 --set solver.backend="${HS_BACKEND:-cpu}"
      --set 'output.fields=["V", "activation", "region", "fiber"]'
      --set 'probes.points.[0].at=[3.25, 0.25, 0.25]' --set 'probes.points.[1].at=[5.25, 0.25, 0.25]')

# study_ref CFG OUT [sets...]: the serial run and its ECG bounds
source "$here/mpi_study_ref.sh"
same_geometry() { # A B: the frames' POINTS, CELLS and CELL_TYPES sections, byte for byte (the nodes in the
  # file's numbering, the tetrahedra with their orientation, whoever read and wrote them)
  python3 - "$1" "$2" <<'PY' || fail "$2: other geometry than $1"
import sys
def geometry(path):
    d = open(path, "rb").read()
    i = d.find(b"\nPOINTS ")
    j = min(k for k in (d.find(b"\nPOINT_DATA "), d.find(b"\nCELL_DATA "), len(d)) if k >= 0)
    assert i >= 0, path
    return d[i:j]
sys.exit(0 if geometry(sys.argv[1]) == geometry(sys.argv[2]) else 1)
PY
}
study_same() { # REF OUT [h5]: the run's files within the bounds of the serial run's, the same probe nodes
  local r=$1 o=$2
  if [ "${3:-}" != h5 ]; then
    for f in slab_000000.vtk slab_000004.vtk slab_000008.vtk; do
      python3 "$close" "$r/$f" "$o/$f" "V:$tol_v" "activation:$tol_a" "region:0" "fiber:1e-15" || fail "$o/$f"
      same_geometry "$r/$f" "$o/$f"
    done
    cmp -s "$r/slab.vtk.series" "$o/slab.vtk.series" || fail "$o: series index differs"
  else
    [ -s "$o/slab.xdmf" ] && [ -s "$o/slab.h5" ] || fail "$o: no xdmf_h5 series"
  fi
  python3 "$close" "$r/slab_maps.vtk" "$o/slab_maps.vtk" "activation:$tol_a" "region:0" || fail "$o: maps"
  python3 "$here/csv_close.py" "$r/slab_probes.csv" "$o/slab_probes.csv" "$tol_v" || fail "$o: probes"
  # shellcheck disable=SC2046
  python3 "$here/csv_close.py" "$r/slab_ecg.csv" "$o/slab_ecg.csv" 0 $(cat "$r.tols") || fail "$o: ECG"
  diff <(grep '^probe ' "$r.log") <(grep '^probe ' "$o.log") > /dev/null || {
    grep '^probe ' "$r.log" "$o.log"; fail "$o: other probe nodes than the serial run's"; }
  diff <(grep '^regions\|^region ' "$r.log") <(grep '^regions\|^region ' "$o.log") > /dev/null ||
    { grep '^regions\|^region ' "$r.log" "$o.log"; fail "$o: other region counts"; }
}
read_by_ranks() { # LOG NP [PART]: every rank read its block; with ptscotch none held the whole mesh (the rows
  # partitions of this two-layer slab cut between the layers: every node of a part is then owned or a ghost)
  grep -q "^mesh: .* read by $2 ranks, each its block of the files" "$1" || { cat "$1"; fail "$1: not read by $2 ranks in blocks"; }
  [ "$2" = 1 ] || [ "${3:-ptscotch}" != ptscotch ] || grep -q "^  whole mesh: held by 0 of $2 ranks during set-up" "$1" ||
    { cat "$1"; fail "$1: a rank held the whole mesh"; }
}

parts=(rows nonzeros)
[ "$has_ptscotch" = 1 ] && parts+=(ptscotch)
auto_part=rows # parallel.partition = "auto" with parallel.read = "ranks"
[ "$has_ptscotch" = 1 ] && auto_part=ptscotch
for m in carp tg; do
  study_ref "$tmp/$m.cfg" "$tmp/${m}_serial" "${sets[@]}"
  for part in "${parts[@]}"; do
    for np in 1 2 3; do
      [ "$np" = 1 ] && [ "$part" != rows ] && continue
      o=$tmp/${m}_${part}_$np
      mpi "$np" run "$tmp/$m.cfg" "${sets[@]}" --set parallel.read=ranks --set parallel.partition=$part \
        --out "$o" -v > "$o.log" 2>&1 || { cat "$o.log"; fail "$m on $np ranks, $part"; }
      read_by_ranks "$o.log" "$np" "$part"
      study_same "$tmp/${m}_serial" "$o"
    done
  done
done
# the serial reader's notes, said once for the whole file by the ranks
for note in "1 of 463 nodes belong to no tetrahedron and were dropped" "every tetrahedron is negatively oriented"; do
  grep -q "$note" "$tmp/tg_serial.log" || fail "serial TetGen run: no note '$note'"
  [ "$(grep -c "$note" "$tmp/tg_rows_3.log")" = 1 ] || { cat "$tmp/tg_rows_3.log"; fail "3 ranks: note '$note' not once"; }
done

# a checkpoint of 2 ranks reading blocks (at 4 ms) continued on 3 ranks reading blocks, and serially
o=$tmp/ck2
mpi 2 run "$tmp/carp.cfg" "${sets[@]}" --set time.t_end=4 --set output.checkpoint_interval=2 --set parallel.read=ranks \
  --out "$o" -v > "$o.log" 2>&1 || { cat "$o.log"; fail "2 ranks to 4 ms"; }
cp -r "$o" "$tmp/ck3"; cp -r "$o" "$tmp/ck1"
mpi 3 run "$tmp/carp.cfg" "${sets[@]}" --set parallel.read=ranks --out "$tmp/ck3" --restart "$tmp/ck3" -v \
  > "$tmp/ck3.log" 2>&1 || { cat "$tmp/ck3.log"; fail "restart on 3 ranks"; }
grep -q "^restart: from .*t = 4 ms" "$tmp/ck3.log" || { cat "$tmp/ck3.log"; fail "3 ranks: no restart from 4 ms"; }
"$HEARTSIM" run "$tmp/carp.cfg" "${sets[@]}" --out "$tmp/ck1" --restart "$tmp/ck1" -v > "$tmp/ck1.log" 2>&1 ||
  { cat "$tmp/ck1.log"; fail "serial restart of the 2 ranks' checkpoint"; }
for o in ck3 ck1; do
  for f in slab_000006.vtk slab_000008.vtk; do
    python3 "$close" "$tmp/carp_serial/$f" "$tmp/$o/$f" "V:$tol_v" "activation:$tol_a" "region:0" || fail "$o/$f"
  done
  python3 "$here/csv_close.py" "$tmp/carp_serial/slab_probes.csv" "$tmp/$o/slab_probes.csv" "$tol_v" || fail "$o: probes"
done

# xdmf_h5 frames (collective with a parallel HDF5), the maps file and the CSVs as with vtk frames
if [ "$has_hdf5" = 1 ]; then
  o=$tmp/h5
  mpi 3 run "$tmp/carp.cfg" "${sets[@]}" --set output.format=xdmf_h5 --set parallel.read=ranks --out "$o" -v \
    > "$o.log" 2>&1 || { cat "$o.log"; fail "3 ranks, xdmf_h5"; }
  study_same "$tmp/carp_serial" "$o" h5
fi

# local RCM: the shuffled mesh with mesh.reorder = "rcm" on 3 ranks lists the file's nodes, each rank's
# rows in RCM order of its part
o=$tmp/tg_rcm
mpi 3 run "$tmp/tg.cfg" "${sets[@]}" --set parallel.read=ranks --set 'mesh.reorder="rcm"' --out "$o" -v > "$o.log" 2>&1 ||
  { cat "$o.log"; fail "tetgen, rcm, 3 ranks"; }
read_by_ranks "$o.log" 3 "$auto_part"
grep -q "local RCM" "$o.log" || { cat "$o.log"; fail "no local RCM"; }
study_same "$tmp/tg_serial" "$o"

# auto: blocks where the numbering the frames list stays the serial run's (mesh.reorder = "none"), else rank 0
o=$tmp/auto_none
mpi 2 run "$tmp/carp.cfg" "${sets[@]}" --set output.enabled=false --out "$o" -v > "$o.log" 2>&1 || { cat "$o.log"; fail "auto"; }
read_by_ranks "$o.log" 2 "$auto_part"
o=$tmp/auto_rcm
mpi 2 run "$tmp/carp.cfg" "${sets[@]}" --set 'mesh.reorder="rcm"' --set output.enabled=false --out "$o" -v > "$o.log" 2>&1 ||
  { cat "$o.log"; fail "auto, rcm"; }
grep -q "^mesh: rank 0 sent each of the other 1 ranks its part" "$o.log" || { cat "$o.log"; fail "auto with rcm: not read by rank 0"; }

# bad files: the serial run's message, once (naming the rank that found it)
same_error() { # CFG WHAT: serial and 3 ranks refuse with the same one message
  local o=$tmp/bad
  if "$HEARTSIM" run "$1" "${sets[@]}" --out "$o" > "$o.log" 2>&1; then cat "$o.log"; fail "serial took $2"; fi
  local want; want=$(grep '^heartsim: error' "$o.log")
  [ -n "$want" ] || { cat "$o.log"; fail "serial $2: no error"; }
  if mpi 3 run "$1" "${sets[@]}" --set parallel.read=ranks --out "$o" > "$o.log3" 2>&1; then cat "$o.log3"; fail "3 ranks took $2"; fi
  # the agreed message names the rank that read the line (hs_par_agree: "rank K of N: ")
  local got; got=$(grep '^heartsim: error' "$o.log3" | sed 's/^heartsim: error: rank [0-9]* of 3: /heartsim: error: /')
  [ "$(grep -c '^heartsim: error' "$o.log3")" = 1 ] && [ "$got" = "$want" ] ||
    { cat "$o.log3"; echo "serial: $want"; fail "3 ranks, $2"; }
}
cp "$tmp/slab.pts" "$tmp/slab.pts.good"; cp "$tmp/slab.elem" "$tmp/slab.elem.good"
sed -i '900s/.*/Tt 1 2 3/' "$tmp/slab.elem"          # a short line in the last rank's block
same_error "$tmp/carp.cfg" "a short element line"
cp "$tmp/slab.elem.good" "$tmp/slab.elem"
sed -i '$d' "$tmp/slab.pts"                            # the count says one point more than the file has
same_error "$tmp/carp.cfg" "a truncated .pts"
cp "$tmp/slab.pts.good" "$tmp/slab.pts"

# runs the blocks cannot take: refused once, naming the key
refused() { # WHAT WANT [sets...]
  local what=$1 want=$2; shift 2
  local o=$tmp/ref
  if mpi 2 run "$tmp/carp.cfg" "${sets[@]}" --set parallel.read=ranks "$@" --out "$o" > "$o.log" 2>&1; then
    cat "$o.log"; fail "took $what"; fi
  [ "$(grep -c '^heartsim: error' "$o.log")" = 1 ] && grep -q "^heartsim: error.*$want" "$o.log" || { cat "$o.log"; fail "$what"; }
}
refused "metis" 'parallel.read = "ranks": the ranks partition the rows they read' --set parallel.partition=metis
touch "$tmp/x"
refused "a fibre file" 'parallel.read = "ranks": fibers.type = "file"' --set 'fibers.type="file"' --set "fibers.file=\"$tmp/x\""
exit 0
