#!/usr/bin/env bash
# Faults of a distributed run (ctest label mpi). Usage: mpi_faults.sh MPIEXEC (HEARTSIM,
# HS_SOURCE_DIR from ctest).
#  1. a rank killed (SIGKILL) mid-run ends the job, non-zero, with a message naming the rank;
#  2. a numerical failure every rank sees is reported once (rank 0), exit code 5;
#  3. an error of rank 0 alone (unwritable output directory) ends every rank with one message;
#  4. SIGTERM to mpirun stops every rank at the same step with a checkpoint (one message) and a
#     resume hint with mpirun's own options that runs as printed; the run continues from it on
#     another rank count (3) to the serial result (bound of mpi_run.sh).
set -uo pipefail
mpiexec=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1
cfg=$HS_SOURCE_DIR/configs/quick_slab.cfg
sets=(--set mesh.h=0.5 --set solver.backend=cpu --set parallel.partition=rows --set 'output.fields=["V", "activation"]')
run() { timeout 120 "$mpiexec" --oversubscribe --allow-run-as-root "$@" < /dev/null; }
fail() { echo "FAIL: $*"; exit 1; }

# 1. kill rank 1 once the run is under way
"$mpiexec" --oversubscribe --allow-run-as-root -np 2 "$HEARTSIM" run "$cfg" "${sets[@]}" --set time.t_end=2000 \
  --out "$tmp/kill" < /dev/null > "$tmp/kill.log" 2>&1 &
job=$!
for _ in $(seq 600); do [ -e "$tmp/kill/slab_000002.vtk" ] && break; sleep 0.1; done
[ -e "$tmp/kill/slab_000002.vtk" ] || { kill $job; fail "the run to kill did not start"; }
victim=""
for p in $(pgrep -f "$HEARTSIM run $cfg"); do
  if tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1'; then victim=$p; fi
done
[ -n "$victim" ] || { kill $job; fail "rank 1 not found"; }
kill -KILL "$victim"
wait $job
rc=$?
[ $rc -ne 0 ] || fail "job with a killed rank exited 0"
grep -q "rank 1" "$tmp/kill.log" && grep -qi "signal 9\|killed" "$tmp/kill.log" || { cat "$tmp/kill.log"; fail "no message naming rank 1 and the signal"; }

# 2. Newton cannot converge in one iteration at this tolerance: every rank fails alike
run -np 2 "$HEARTSIM" run "$cfg" "${sets[@]}" --set time.t_end=1 --set solver.newton_max_iter=1 \
  --out "$tmp/newton" > "$tmp/newton.log" 2>&1
rc=$?
[ $rc -eq 5 ] || { cat "$tmp/newton.log"; fail "Newton failure: exit $rc, expected 5"; }
[ "$(grep -c '^heartsim: error' "$tmp/newton.log")" = 1 ] || { cat "$tmp/newton.log"; fail "Newton failure: not one message"; }
grep -q "Newton did not converge" "$tmp/newton.log" || { cat "$tmp/newton.log"; fail "Newton failure: message"; }

# 3. rank 0 alone fails (its output directory is a file): one message, every rank ends
touch "$tmp/notadir"
run -np 2 "$HEARTSIM" run "$cfg" "${sets[@]}" --set time.t_end=1 --out "$tmp/notadir/x" > "$tmp/io.log" 2>&1
rc=$?
[ $rc -ne 0 ] || fail "unwritable output: exit 0"
[ "$(grep -c '^heartsim: error on rank 0 of 2' "$tmp/io.log")" = 1 ] || { cat "$tmp/io.log"; fail "unwritable output: not one message from rank 0"; }

# 4. SIGTERM, checkpoint, continue on 3 ranks; the serial run to the same time as reference
# mpirun itself in the background (not through timeout or a function), so the signal reaches it
"$mpiexec" --oversubscribe --allow-run-as-root -np 2 "$HEARTSIM" run "$cfg" "${sets[@]}" --set time.t_end=2000 \
  --out "$tmp/term" < /dev/null > "$tmp/term.log" 2>&1 &
job=$!
for _ in $(seq 600); do [ -e "$tmp/term/slab_000002.vtk" ] && break; sleep 0.1; done
kill -TERM $job
wait $job
rc=$?
# the ranks exit 8; mpirun, signalled itself, reports its own non-zero status (Open MPI: 1)
[ $rc -ne 0 ] || { cat "$tmp/term.log"; fail "SIGTERM: exit 0"; }
[ "$(grep -c '^heartsim: error' "$tmp/term.log")" = 1 ] || { cat "$tmp/term.log"; fail "SIGTERM: not one message"; }
# the resume hint keeps the launcher's own words (issue 30: "mpirun -np 2" alone fails as root)
grep -q "interrupted by SIGTERM.*resume with: $mpiexec --oversubscribe --allow-run-as-root -np 2 $HEARTSIM run " "$tmp/term.log" \
  || { cat "$tmp/term.log"; fail "SIGTERM: message (the resume hint without the launcher's options)"; }
hint=$(sed -n 's/.*; resume with: //p' "$tmp/term.log")
ls "$tmp"/term/*.ckpt > /dev/null 2>&1 || ls "$tmp"/term/ | grep -qi ckpt || { ls "$tmp/term"; fail "SIGTERM: no checkpoint"; }
last=$(ls "$tmp"/term/slab_0*.vtk | tail -1)
n_frames=$(ls "$tmp"/term/slab_0*.vtk | wc -l)
t_end=$((n_frames + 2)) # ms: beyond the checkpoint (frames every ms)
# the hint as printed, through the shell (a later --set wins: to 1 ms beyond the checkpoint), then
# on 3 ranks from the checkpoint it left at its end
(eval "timeout 120 $hint --set time.t_end=$((t_end - 1))" < /dev/null) > "$tmp/hint.log" 2>&1 \
  || { cat "$tmp/hint.log"; fail "the resume hint as printed failed: $hint"; }
run -np 3 "$HEARTSIM" run "$cfg" "${sets[@]}" --set time.t_end=$t_end --out "$tmp/term" --restart "$tmp/term" \
  > "$tmp/restart.log" 2>&1 || { cat "$tmp/restart.log"; fail "restart on 3 ranks"; }
"$HEARTSIM" run "$cfg" "${sets[@]}" --set time.t_end=$t_end --out "$tmp/serial" -q || fail "serial reference"
f=$(basename "$(ls "$tmp"/serial/slab_0*.vtk | tail -1)")
steps=$((t_end * 10))
python3 "$HS_SOURCE_DIR/tests/app/vtk_fields_close.py" "$tmp/serial/$f" "$tmp/term/$f" \
  "V:$(python3 -c "print(100 * $steps * 1e-8)")" "activation:$(python3 -c "print(2 * $steps * 1e-8)")" || fail "restart result"
: "$last"
exit 0
