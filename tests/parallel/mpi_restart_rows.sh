#!/usr/bin/env bash
# A restart under mpirun reads each rank's rows (issue 26): no rank reads the checkpoint whole or holds
# a whole-mesh state or history (sim/checkpoint.c hs_checkpoint_load_part, hs_checkpoint_read_rows).
#  1. a 108K-node slab's checkpoint written on 2 ranks (version 4, metis where built: ghosts scattered,
#     arrays of several checksum segments) continues on 3 ranks and on 1 with
#     HS_INJECT_ALLOC_FAIL="checkpoint history (whole file)" in rank 1's environment (on 1 rank: its own): the
#     label of the whole-mesh history the whole-file reader allocates (hs_checkpoint_read), which a
#     rank reading its rows never allocates. Before, every rank read the whole file: rank 1 ran out of
#     memory there. The frames equal the uninterrupted serial run's (bound of mpi_run.sh: after N steps
#     V within 100 N 1e-8 mV, activation within 2 N 1e-8 ms);
#  2. a serial run's checkpoint (version 3: one checksum over the payload, hashed by rank 0 in chunks)
#     continues on 3 ranks, the same hook on rank 1, to the serial result;
#  3. a damaged checkpoint (a flipped byte: version 4 and version 3; truncated) ends every rank with one
#     message naming the file (agreed: no MPI_Abort, no message per rank); in a directory the damaged
#     newest one is skipped with one warning for the one before it;
#  4. a restart into an output directory without the checkpoint's frames (rank 0 looks) ends every rank
#     with that one message; 5. so does a restart with nothing to run (every rank judges alike).
# Usage: mpi_restart_rows.sh MPIEXEC HAS_METIS (HEARTSIM, HS_SOURCE_DIR from ctest).
set -uo pipefail
mpiexec=$1
has_metis=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1
cfg=$HS_SOURCE_DIR/configs/quick_slab.cfg
vclose=$HS_SOURCE_DIR/tests/app/vtk_fields_close.py
part=rows
[ "$has_metis" = 1 ] && part=metis
big=(--set mesh.h=0.1 --set solver.backend=cpu --set output.interval=0.1 --set output.checkpoint_interval=0.1
     --set 'output.fields=["V", "activation"]' --set parallel.partition=$part)
fail() { echo "FAIL: $*"; [ -f "$tmp/log" ] && cat "$tmp/log"; exit 1; }

LAUNCH_TIMEOUT=120
source "$(dirname "$0")/mpi_one_rank_env.sh" # launch, one_error
# close A B STEPS: the last frames of runs A and B within the bound after STEPS steps
close() {
  local f
  f=$(basename "$(ls "$1"/slab_0*.vtk | tail -1)")
  [ "$f" = "$(basename "$(ls "$2"/slab_0*.vtk | tail -1)")" ] || fail "$2: last frame $f expected"
  python3 "$vclose" "$1/$f" "$2/$f" "V:$(python3 -c "print(100 * $3 * 1e-8)")" \
    "activation:$(python3 -c "print(2 * $3 * 1e-8)")" || fail "$2: frames differ from the serial run's"
}
hook="HS_INJECT_ALLOC_FAIL=checkpoint history (whole file)"

# 1. 2 ranks to 0.2 ms, then 3 ranks and 1 rank to 0.4 ms; the serial run to 0.4 ms as reference. The
# restarts write no checkpoint (output.checkpoint_interval = 0): a distributed run's checkpoint writer
# allocates its rank's history under the same label
"$HEARTSIM" run "$cfg" "${big[@]}" --set time.t_end=0.4 --out "$tmp/serial" -q || fail "serial reference"
launch 2 9 X=0 run "$cfg" "${big[@]}" --set time.t_end=0.2 --out "$tmp/big" || fail "2 ranks to 0.2 ms"
ck=$(ls "$tmp"/big/slab_ckpt_*.hsck | tail -1)
[ "$(od -A n -t u8 -j 8 -N 8 "$ck" | tr -d ' ')" = 4 ] || fail "$ck: not a version 4 checkpoint"
cp -r "$tmp/big" "$tmp/big1"
launch 3 1 "$hook" run "$cfg" "${big[@]}" --set time.t_end=0.4 --set output.checkpoint_interval=0 --out "$tmp/big" \
  --restart "$tmp/big" || fail "restart on 3 ranks, rank 1 without memory for a whole-mesh history"
grep -q "^restart: from .*t = 0.2 ms" "$tmp/log" || fail "3 ranks: no restart from 0.2 ms"
close "$tmp/serial" "$tmp/big" 4
launch 1 0 "$hook" run "$cfg" "${big[@]}" --set time.t_end=0.4 --set output.checkpoint_interval=0 --out "$tmp/big1" \
  --restart "$tmp/big1" || fail "restart on 1 rank without memory for a whole-mesh history"
close "$tmp/serial" "$tmp/big1" 4

# 2. a serial run's checkpoint (version 3) continued on 3 ranks
small=(--set mesh.h=0.5 --set solver.backend=cpu --set output.interval=1 --set output.checkpoint_interval=1
       --set 'output.fields=["V", "activation"]' --set parallel.partition=rows)
"$HEARTSIM" run "$cfg" "${small[@]}" --set time.t_end=3 --out "$tmp/s3" -q || fail "serial reference, 3 ms"
"$HEARTSIM" run "$cfg" "${small[@]}" --set time.t_end=2 --out "$tmp/v3" -q || fail "serial run to 2 ms"
ck3=$(ls "$tmp"/v3/slab_ckpt_*.hsck | tail -1)
[ "$(od -A n -t u8 -j 8 -N 8 "$ck3" | tr -d ' ')" = 3 ] || fail "$ck3: not a version 3 checkpoint"
cp "$ck3" "$tmp/v3.hsck"
launch 3 1 "$hook" run "$cfg" "${small[@]}" --set time.t_end=3 --set output.checkpoint_interval=0 --out "$tmp/v3" \
  --restart "$tmp/v3" ||
  fail "serial checkpoint restarted on 3 ranks"
close "$tmp/s3" "$tmp/v3" 30

# 3. damage: one flipped payload byte (version 4, version 3), a truncated file; one agreed message each
flip() { cp "$1" "$2"; printf '\x7f' | dd of="$2" bs=1 seek=$(( $(stat -c %s "$1") / 2 )) conv=notrunc status=none; }
flip "$ck" "$tmp/d4.hsck"
launch 3 9 X=0 run "$cfg" "${big[@]}" --set time.t_end=0.4 --out "$tmp/d" --restart "$tmp/d4.hsck"
rc=$?
one_error 4 "checkpoint $tmp/d4.hsck is damaged: payload checksum mismatch"
flip "$tmp/v3.hsck" "$tmp/d3.hsck"
launch 3 9 X=0 run "$cfg" "${small[@]}" --set time.t_end=3 --out "$tmp/d" --restart "$tmp/d3.hsck"
rc=$?
one_error 4 "checkpoint $tmp/d3.hsck is damaged: payload checksum mismatch"
head -c $(( $(stat -c %s "$ck") - 8 )) "$ck" > "$tmp/t4.hsck"
launch 2 9 X=0 run "$cfg" "${big[@]}" --set time.t_end=0.4 --out "$tmp/d" --restart "$tmp/t4.hsck"
rc=$?
one_error 4 "checkpoint $tmp/t4.hsck is truncated: "
# the newest checkpoint of a directory damaged: one warning, the one before it restarts
mkdir "$tmp/dir"
cp "$tmp"/big1/slab.vtk.series "$tmp"/big1/slab_0*.vtk "$tmp/dir/"
cp "$tmp/big1/slab_ckpt_000000001.hsck" "$tmp/dir/" || fail "no checkpoint at step 1"
flip "$tmp/big1/slab_ckpt_000000002.hsck" "$tmp/dir/slab_ckpt_000000002.hsck"
launch 3 9 X=0 run "$cfg" "${big[@]}" --set time.t_end=0.4 --out "$tmp/dir" --restart "$tmp/dir" ||
  fail "a directory whose newest checkpoint is damaged"
[ "$(grep -c "^heartsim: warning: checkpoint .*slab_ckpt_000000002.hsck is damaged: payload checksum mismatch; trying the one before it" "$tmp/log")" = 1 ] ||
  fail "not one warning for the damaged newest checkpoint"
grep -q "^restart: from .*t = 0.1 ms" "$tmp/log" || fail "directory: no restart from 0.1 ms"
close "$tmp/serial" "$tmp/dir" 4

# 4. a restart into an output directory that lacks the checkpoint's frames: rank 0 (the writer) finds
# them missing, every rank stops with its one message (before: rank 0 alone returned, MPI_Abort)
mkdir "$tmp/empty"
launch 3 9 X=0 run "$cfg" "${big[@]}" --set time.t_end=0.4 --out "$tmp/empty" --restart "$ck"
rc=$?
one_error 4 "--restart: checkpoint $ck continues a run of [0-9]* frames, but output.dir $tmp/empty lacks"
# 5. a restart with nothing to run (time.t_end not past the checkpoint): every rank judges alike, one message
launch 3 9 X=0 run "$cfg" "${big[@]}" --set time.t_end=0.1 --out "$tmp/big1" --restart "$ck"
rc=$?
one_error 2 "--restart: checkpoint $ck is at t = 0.2 ms (step 2), and time.t_end = 0.1 ms is not later"
exit 0
