#!/usr/bin/env bash
# output.format = "xdmf_h5" under mpirun in a build with a serial HDF5 (issue 26): rank 0 writes the .h5
# through the serial HDF5 API as every rank's rows arrive in chunks (create_stream, output/part_gather.c),
# so it holds no whole-mesh array. Box partition (no rank holds the whole mesh), mesh.reorder = "none":
#   - 1, 2 and 3 ranks while rank 0 cannot allocate an array of the whole-mesh gather that wrote the file
#     before (HS_INJECT_ALLOC_FAIL in rank 0's environment alone: "gathered mesh", then "gathered frame"):
#     the log says the file is streamed, the index is the serial run's byte for byte, the .h5's datasets
#     and attributes on 1 rank exactly the serial run's (its arithmetic; the bytes of two .h5 files differ
#     in the objects' modification times), on 2 and 3 ranks every dataset at every global index within the
#     bound of tests/parallel/mpi_h5.sh (N = 30 steps: V 100 N 1e-8 + 2^-16, phi N 1e-8 + 2^-23,
#     activation 2 N 1e-8 + 2^-22; the mesh arrays, region included, exactly);
#   - the checkpoint at 1 ms of a 3-rank run to 3 ms restarted on 2 ranks to 2 ms: the frames past the
#     restart point are deleted from the .h5 (frame 3 gone, frame 2 written again), and the file and index
#     are those of an uninterrupted serial run to 2 ms;
#   - rank 0's file cannot grow past 64 KiB (ulimit -f, SIGXFSZ ignored: the write fails with EFBIG in the
#     middle of the mesh's coordinates, the other ranks in the gather): one agreed message, the I/O
#     error's exit code (4), no rank left waiting, no MPI_Abort.
# Usage: mpi_h5_stream.sh MPIEXEC H5_FRAMES_CLOSE HAS_HDF5 HAS_HDF5_PARALLEL (HEARTSIM, HS_SOURCE_DIR from
# ctest). Exit 77 unless the build has a serial HDF5 (a parallel one writes collectively: mpi_h5.sh);
# scripts/test-h5serial.sh builds such a build and runs this.
set -uo pipefail
mpiexec=$1
close=$2
if [ "$3" != 1 ] || [ "$4" = 1 ]; then echo "skipped: not a build with a serial HDF5"; exit 77; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1
here=$(dirname "$0")
cfg=$HS_SOURCE_DIR/configs/quick_slab.cfg
fail() { echo "FAIL: $*"; [ -f "$tmp/log" ] && cat "$tmp/log"; exit 1; }
LAUNCH_TIMEOUT=120
source "$here/mpi_one_rank_env.sh" # launch, one_error

sets=(--set mesh.h=0.5 --set time.t_end=3 --set output.interval=1 --set solver.backend=cpu
      --set output.format=xdmf_h5 --set 'mesh.reorder="none"' --set output.checkpoint_interval=1
      --set output.checkpoint_keep=10 --set 'output.fields=["phi", "V", "activation", "region"]')
n=30
tols=("V:$(python3 -c "print(100 * $n * 1e-8 + 2**-16)")" "phi:$(python3 -c "print($n * 1e-8 + 2**-23)")"
      "activation:$(python3 -c "print(2 * $n * 1e-8 + 2**-22)")")

s=$tmp/serial
"$HEARTSIM" run "$cfg" "${sets[@]}" --out "$s" -q > "$tmp/log" 2>&1 || fail "serial run"
"$HEARTSIM" run "$cfg" "${sets[@]}" --set time.t_end=2 --out "$s-2" -q > "$tmp/log" 2>&1 || fail "serial run to 2 ms"

labels=("" "gathered mesh" "gathered frame" "gathered mesh")
for np in 1 2 3; do
  o=$tmp/np$np
  launch "$np" 0 "HS_INJECT_ALLOC_FAIL=${labels[$np]}" run "$cfg" "${sets[@]}" --set parallel.partition=box --out "$o"
  rc=$?
  [ "$rc" = 0 ] || fail "$np ranks, rank 0 without \"${labels[$np]}\": exit $rc"
  grep -q "^partition: box over $np ranks" "$tmp/log" || fail "$np ranks: no box partition"
  grep -q "^output: $o/slab.h5 written by rank 0 (a serial HDF5), every rank's rows streamed to it in chunks$" \
    "$tmp/log" || fail "$np ranks: not streamed"
  cmp -s "$s/slab.xdmf" "$o/slab.xdmf" || fail "$np ranks: the index differs from the serial run's"
  if [ "$np" = 1 ]; then
    "$close" "$s/slab.h5" "$o/slab.h5" || fail "1 rank: the frames are not exactly the serial run's"
  else
    "$close" "$s/slab.h5" "$o/slab.h5" "${tols[@]}" || fail "$np ranks: the frames differ from the serial run's"
  fi
done

# the 3-rank run's checkpoint at 1 ms (step 10) restarted on 2 ranks to 2 ms: frame 3 deleted, 2 rewritten
r=$tmp/np3
launch 2 0 "HS_INJECT_ALLOC_FAIL=gathered frame" run "$cfg" "${sets[@]}" --set time.t_end=2 \
  --set parallel.partition=box --out "$r" --restart "$r/slab_ckpt_000000010.hsck"
rc=$?
[ "$rc" = 0 ] || fail "restart on 2 ranks: exit $rc"
grep -q "^restart: from .*t = 1 ms" "$tmp/log" || fail "2 ranks: no restart from 1 ms"
cmp -s "$s-2/slab.xdmf" "$r/slab.xdmf" || fail "restart: the index differs from the serial run's to 2 ms"
"$close" "$s-2/slab.h5" "$r/slab.h5" "${tols[@]}" || fail "restart: not the frames of the serial run to 2 ms"

# rank 0's file cannot grow past 64 KiB (h = 0.25: 7749 nodes, whose coordinates, 186 KB, are one chunk
# of the gather): the limit is rank 0's alone, its shared memory with the other ranks left out of it (tcp)
o=$tmp/full
run=(run "$cfg" "${sets[@]}" --set mesh.h=0.25 --set output.checkpoint_interval=0 --set parallel.partition=box
     --out "$o")
timeout "$LAUNCH_TIMEOUT" "$mpiexec" --oversubscribe --allow-run-as-root --mca btl self,tcp \
  -np 1 bash -c 'trap "" XFSZ; ulimit -f 64; exec "$@"' rank0 "$HEARTSIM" "${run[@]}" : \
  -np 2 "$HEARTSIM" "${run[@]}" < /dev/null > "$tmp/log" 2>&1
rc=$?
one_error 4 "HDF5 series $o/slab.h5: cannot write rows .0, 7749) of dataset /mesh/points: "
grep -q "shared memory" "$tmp/log" && fail "rank 0's file size limit reached MPI's shared memory"
exit 0
