#!/usr/bin/env bash
# A rank that fails ends every rank with one message (issue 26), on the error paths of sim/ that
# returned on the failing rank alone before a collective the other ranks entered: the job then hung
# (a rank in the HDF5 file's collective close, the others in a gather) or ended through MPI_Abort with
# a message from each failing rank. Each case fails one rank through a test hook (docs/reliability.md:
# HS_INJECT_ALLOC_FAIL=WHAT in that rank's environment alone, or HS_INJECT_DISK_FULL_AFTER) and expects:
# mpirun returns the error's exit code within the timeout (no rank left waiting); one
# "heartsim: error" line, rank 0's "heartsim: error: [rank R of N: ]..." (every rank agreed on it:
# hs_par_agree), no MPI_Abort; the files written before the failure intact.
# Usage: mpi_rank_faults.sh MPIEXEC HAS_HDF5_PARALLEL CASE (HEARTSIM, HS_SOURCE_DIR from ctest). CASE:
#   maps        sim/run_output.c write_maps: rank 1 cannot allocate the maps file's fields (xdmf_h5
#               frames where HDF5 is parallel: before, a hang)
#   beats       sim/beats.c hs_beats_write: rank 1 cannot allocate a beat's APD map (two beats)
#   beats_grow  sim/beats.c hs_beats_update: rank 1 cannot allocate a new beat's maps during the run
#   decoupled   sim/mesh_part.c box regions: rank 1 cannot allocate its decoupled nodes (a scar)
#   counts      sim/mesh_part.c hs_mesh_part_root_build: rank 1 cannot allocate the mesh's counts
#   box         sim/mesh_part.c hs_mesh_part_box: refusals every rank makes alike (too many ranks for the
#               box; more nodes than 32 bits count)
#   csv         sim/samples.c: rank 0 cannot create the probes' CSV (a directory in its place)
#   frame_io    sim/run_output.c frames: rank 0's disk fills up at the fourth frame
#   backend     backends/mpi: rank 0, then rank 1, cannot allocate its probes' sample buffer; the
#               backend's agreement is hs_mpi_agree's, so rank 0's error reads as a serial run's (no
#               "rank 0 of 2: ", which the backend's own copy of the agreement put before it) and
#               rank 1's is named
#   step_failed sim/protocol.c step_failed: a NaN at step 25 on every rank, and rank 0's disk full at
#               the last converged state's frame (the fourth): every rank skips the checkpoint
#               together and says the step's error (exit 5) with why no checkpoint was written
set -uo pipefail
mpiexec=$1
h5=$2
case=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1
q=$HS_SOURCE_DIR/configs/quick_slab.cfg
scar=$HS_SOURCE_DIR/configs/scar_slab.cfg
fmt=vtk
[ "$h5" = 1 ] && fmt=xdmf_h5 # collective: a rank that left the gathers waited in H5Fclose
fail() { echo "FAIL ($case): $*"; [ -f "$tmp/log" ] && cat "$tmp/log"; exit 1; }

LAUNCH_TIMEOUT=90
source "$(dirname "$0")/mpi_one_rank_env.sh" # launch, one_error

# frames FILE-OR-DIR N: the series index lists N frames (the frames written before the failure)
frames() {
  local n
  if [ "$fmt" = xdmf_h5 ]; then n=$(grep -c '<Time Value' "$1/slab.xdmf"); else n=$(grep -c '"name"' "$1/slab.vtk.series"); fi
  [ "$n" = "$2" ] || fail "the index lists $n frames, $2 expected"
  [ "$fmt" = xdmf_h5 ] || for ((i = 0; i < $2; ++i)); do
    [ -s "$1/$(printf 'slab_%06d.vtk' "$i")" ] || fail "frame $i missing"
  done
}
no_tmp() { [ -z "$(find "$1" -name '.*tmp*')" ] || fail "temporary files left: $(find "$1" -name '.*tmp*')"; }

sets=(--set mesh.h=0.5 --set solver.backend=cpu --set parallel.partition=rows --set output.format=$fmt)
# two beats (tests/parallel/mpi_study.sh's slab), stimulated at 0 and 450 ms, frames every 25 ms
beats=(--set mesh.lx=2 --set mesh.ly=0.5 --set mesh.lz=0.5 --set mesh.h=0.25 --set time.dt=0.5 --set time.t_end=500
       --set 'stimulus.[0].max=[0.3, 2.0, 2.0]' --set 'stimulus.[0].count=2' --set 'stimulus.[0].period=450'
       --set output.interval=25 --set solver.backend=cpu --set parallel.partition=rows --set output.format=$fmt)
o=$tmp/out
case $case in
maps)
  launch 2 1 "HS_INJECT_ALLOC_FAIL=maps file" run "$q" "${sets[@]}" --set time.t_end=1 --out "$o"
  rc=$?
  one_error 7 "rank 1 of 2: out of memory allocating maps file"
  frames "$o" 2
  [ -s "$o/slab_ckpt_000000010.hsck" ] || fail "the end's checkpoint missing"
  ;;
beats)
  launch 2 1 "HS_INJECT_ALLOC_FAIL=beat APD map" run "$q" "${beats[@]}" --out "$o"
  rc=$?
  one_error 7 "rank 1 of 2: out of memory allocating beat APD map"
  frames "$o" 21
  [ -s "$o/slab_maps.vtk" ] || fail "the maps file (written before the per-beat maps) missing"
  ;;
beats_grow)
  launch 2 1 "HS_INJECT_ALLOC_FAIL=beat activation map" run "$q" "${beats[@]}" --out "$o"
  rc=$?
  one_error 7 "rank 1 of 2: out of memory allocating beat activation map"
  [ -s "$o/slab_maps.vtk" ] || fail "the maps file of the state reached missing"
  ;;
decoupled)
  launch 2 1 "HS_INJECT_ALLOC_FAIL=decoupled nodes of the part" run "$scar" --set mesh.h=0.5 --set time.t_end=1 \
    --set solver.backend=cpu --set parallel.partition=box --out "$o"
  rc=$?
  one_error 7 "rank 1 of 2: out of memory allocating decoupled nodes of the part"
  ;;
counts)
  launch 2 1 "HS_INJECT_ALLOC_FAIL=mesh counts" run "$q" "${sets[@]}" --set time.t_end=1 --out "$o"
  rc=$?
  one_error 7 "rank 1 of 2: out of memory allocating mesh counts"
  ;;
box)
  launch 3 0 "HS_UNUSED=1" run "$q" --set solver.backend=cpu --set parallel.partition=box --set mesh.lx=0.5 \
    --set mesh.ly=0.5 --set mesh.lz=0.5 --set mesh.h=0.5 --set time.t_end=1 --out "$o"
  rc=$?
  one_error 2 'parallel.partition = "box": 3 ranks do not fit a box of 2 x 2 x 2 nodes'
  launch 2 0 "HS_UNUSED=1" run "$q" --set solver.backend=cpu --set parallel.partition=box --set mesh.h=0.002 \
    --set time.t_end=1 --out "$o"
  rc=$?
  one_error 3 "box mesh of .* nodes and .* tetrahedra: more than the 2147483647 a 32-bit index allows"
  ;;
csv)
  mkdir -p "$o/slab_probes.csv"
  launch 2 0 "HS_UNUSED=1" run "$scar" --set mesh.h=0.5 --set time.t_end=1 --set solver.backend=cpu \
    --set parallel.partition=rows --out "$o"
  rc=$?
  one_error 4 "cannot write $o/slab_probes.csv"
  ;;
frame_io)
  # legacy VTK frames, gathered and written by rank 0: three fit (tests/app/reliability.sh)
  launch 2 0 "HS_INJECT_DISK_FULL_AFTER=1100000" run "$q" "${sets[@]}" --set output.format=vtk --set time.t_end=10 --out "$o"
  rc=$?
  one_error 4 "cannot write VTK frame $o/slab_000003.vtk: writing .*No space left on device"
  fmt=vtk frames "$o" 3
  no_tmp "$o"
  ;;
backend)
  launch 2 0 "HS_INJECT_ALLOC_FAIL=sample buffer" run "$scar" --set mesh.h=0.5 --set time.t_end=1 \
    --set solver.backend=cpu --set parallel.partition=rows --out "$o"
  rc=$?
  one_error 7 "out of memory allocating sample buffer"
  launch 2 1 "HS_INJECT_ALLOC_FAIL=sample buffer" run "$scar" --set mesh.h=0.5 --set time.t_end=1 \
    --set solver.backend=cpu --set parallel.partition=rows --out "$o"
  rc=$?
  one_error 7 "rank 1 of 2: out of memory allocating sample buffer"
  ;;
step_failed)
  # legacy VTK frames gathered to rank 0: three fit (frame_io above), the failed step's is the fourth
  export HS_INJECT_NAN_AT_STEP=25
  launch 2 0 "HS_INJECT_DISK_FULL_AFTER=1100000" run "$q" "${sets[@]}" --set output.format=vtk --set time.t_end=4 \
    --out "$o"
  rc=$?
  one_error 5 "step 25: at t = 2.5 ms .*; no checkpoint could be written: cannot write VTK frame $o/slab_000003.vtk: .*No space left on device"
  fmt=vtk frames "$o" 3
  no_tmp "$o"
  ;;
*)
  fail "unknown case"
  ;;
esac
exit 0
