#!/usr/bin/env bash
# Checkpoint/restart, signals, numerical and I/O failures (docs/reliability.md): a restarted run
# reproduces the uninterrupted one bit for bit (CPU); SIGTERM leaves a complete checkpoint and a
# valid index; damaged or foreign checkpoints are refused with the reason; an injected NaN stops
# with diagnostics and a checkpoint that resumes; a full disk fails cleanly.
# Environment: HEARTSIM (the binary), HS_SOURCE_DIR (the source tree).
set -u
hs=${HEARTSIM:?}
src=${HS_SOURCE_DIR:?}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hs_rel_XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
# expect RC PATTERN -- command...: the exit code and a pattern of the combined output
expect() {
  local want=$1 pat=$2; shift 3
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -qE -- "$pat" <<<"$out"; then
    fail "$* -> rc $rc (want $want), output lacks /$pat/:"; echo "$out" | tail -5
  fi
}
# same_frames A B: every frame of A and the index are byte-identical in B
same_frames() {
  local f n=0
  for f in "$1"/*.vtk "$1"/*.vtk.series; do
    n=$((n+1))
    cmp -s "$f" "$2/$(basename "$f")" || { fail "$2/$(basename "$f") differs from $f"; return; }
  done
  [ "$n" -ge 2 ] || fail "no frames in $1"
}
no_tmp() { ls -A "$1" | grep -q '\.tmp$' && fail "temporary files left in $1: $(ls -A "$1" | grep '\.tmp$')"; return 0; }
# valid_series DIR: every entry names an existing frame (and JSON parses, when python3 is here)
valid_series() {
  local s="$1/slab.vtk.series" name
  [ -f "$s" ] || { fail "$s missing"; return; }
  if command -v python3 >/dev/null; then
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["files"]' "$s" || fail "$s is not valid JSON"
  fi
  for name in $(grep -o '"name" : "[^"]*"' "$s" | cut -d'"' -f4); do [ -f "$1/$name" ] || fail "$s lists missing $name"; done
}
# started FILE: wait (up to 20 s) until a run in the background has written FILE: the loop is running
# (a fixed sleep raced the run's end on an idle machine: 300 ms of the slab take 1.4 s on two cores)
started() { for _ in $(seq 200); do [ -e "$1" ] && return 0; sleep 0.1; done; fail "no $1 after 20 s"; }
q="$src/configs/quick_slab.cfg"
run() { "$hs" run "$q" --set mesh.h=0.5 --set solver.backend=cpu "$@"; }

# 1. restart reproduces the uninterrupted run bit for bit: T = 4 vs T = 2 then restarted to 4
run --set time.t_end=4 --set output.checkpoint_interval=1 --out "$tmp/full" -q || fail "full run"
run --set time.t_end=2 --set output.checkpoint_interval=1 --out "$tmp/half" -q || fail "half run"
[ -f "$tmp/half/slab_ckpt_000000020.hsck" ] || fail "no end-of-run checkpoint at step 20"
expect 0 "restart: from .*slab_ckpt_000000020.hsck \(t = 2 ms, step 20, 3 frames" -- \
  run --set time.t_end=4 --set output.checkpoint_interval=1 --out "$tmp/half" --restart "$tmp/half"
same_frames "$tmp/full" "$tmp/half"
cmp -s "$tmp/full/slab_ckpt_000000040.hsck" "$tmp/half/slab_ckpt_000000040.hsck" || fail "final checkpoints differ"
# output.checkpoint_keep = 2: only the two newest stay
[ "$(ls "$tmp/full" | grep -c '\.hsck$')" -eq 2 ] || fail "checkpoint_keep 2 kept: $(ls "$tmp/full" | grep '\.hsck$')"
# a FILE, an older one, into another directory holding the frames so far; a later frame on disk is dropped
mkdir -p "$tmp/file" && cp "$tmp/full"/slab_00000[0-2].vtk "$tmp/full/slab_000004.vtk" "$tmp/file/"
run --set time.t_end=2 --set output.checkpoint_interval=0.5 --set output.checkpoint_keep=5 --out "$tmp/k5" -q
[ "$(ls "$tmp/k5" | grep -c '\.hsck$')" -eq 4 ] || fail "checkpoint_keep 5 after 4 checkpoints: $(ls "$tmp/k5")"
run --set time.t_end=4 --out "$tmp/file" --restart "$tmp/k5/slab_ckpt_000000015.hsck" -q || fail "restart from a FILE"
same_frames "$tmp/full" "$tmp/file"

# 2. refused checkpoints: the file and the reason
expect 2 "checkpoint .*slab_ckpt_000000040.hsck was written with a different configuration: mesh.\* differs" -- \
  run --set time.t_end=5 --set mesh.lx=12 --out "$tmp/x" --restart "$tmp/full"
expect 2 "different configuration: model.\* differs" -- run --set time.t_end=5 --set model.alpha=0.02 --out "$tmp/x" --restart "$tmp/full"
expect 2 "time.dt differs; time.dt was 0.1 ms, now 0.05 ms" -- run --set time.dt=0.05 --out "$tmp/x" --restart "$tmp/full"
ck="$tmp/full/slab_ckpt_000000040.hsck"
head -c 30000 "$ck" > "$tmp/trunc.hsck"
expect 4 "checkpoint $tmp/trunc.hsck is truncated: 30000 bytes, expected [0-9]+" -- run --out "$tmp/x" --restart "$tmp/trunc.hsck"
head -c 100 "$ck" > "$tmp/short.hsck"
expect 4 "checkpoint $tmp/short.hsck is truncated" -- run --out "$tmp/x" --restart "$tmp/short.hsck"
cp "$ck" "$tmp/flip.hsck"; printf '\125' | dd of="$tmp/flip.hsck" bs=1 seek=5000 conv=notrunc 2>/dev/null
expect 4 "checkpoint $tmp/flip.hsck is damaged: payload checksum mismatch" -- run --out "$tmp/x" --restart "$tmp/flip.hsck"
expect 4 "$tmp/full/slab_000001.vtk is not a heartsim checkpoint" -- run --out "$tmp/x" --restart "$tmp/full/slab_000001.vtk"
expect 4 "no checkpoint slab_ckpt_\*.hsck in that directory \(a run writes one every output.checkpoint_interval ms" -- run --out "$tmp/x" --restart "$tmp/x"
# the default: a checkpoint every 100 ms of simulated time and one at the end, said in the log; 0: none, said too
expect 0 "checkpoints: every 100 ms of simulated time and at the end, the newest 2 kept in $tmp/dflt \(output.checkpoint_interval" -- \
  run --set time.t_end=1 --out "$tmp/dflt"
[ "$(ls "$tmp/dflt" | grep '\.hsck$')" = "slab_ckpt_000000010.hsck" ] || fail "default checkpoints: $(ls "$tmp/dflt" | grep hsck)"
expect 0 "checkpoints: none \(output.checkpoint_interval = 0\)" -- run --set time.t_end=1 --set output.checkpoint_interval=0 --out "$tmp/nock"
ls "$tmp/nock" | grep -q '\.hsck$' && fail "output.checkpoint_interval = 0 wrote a checkpoint"
# a directory whose newest checkpoint is cut short (as a crash without the atomic rename would
# leave it): skipped with a warning, the one before it is used
mkdir -p "$tmp/dir" && cp "$tmp/full"/*.vtk "$tmp/full/slab_ckpt_000000030.hsck" "$tmp/dir/"
head -c 20000 "$ck" > "$tmp/dir/slab_ckpt_000000040.hsck"
expect 0 "slab_ckpt_000000040.hsck is truncated.*trying the one before it" -- run --set time.t_end=4 --out "$tmp/dir" --restart "$tmp/dir"
same_frames "$tmp/full" "$tmp/dir"

# 3. SIGTERM: finishes the step, writes the checkpoint and the frames due, exits 8
"$hs" run "$q" --set mesh.h=0.5 --set solver.backend=cpu --set time.t_end=300 --set output.interval=5 \
  --out "$tmp/sig" -q 2>"$tmp/sig.log" & pid=$!
started "$tmp/sig/slab_000001.vtk"; kill -TERM "$pid"; wait "$pid"; rc=$?
[ "$rc" -eq 8 ] || fail "SIGTERM: exit $rc, want 8"
grep -qE "interrupted by SIGTERM at t = .* \(step [0-9]+ of 3000\); the state is in checkpoint .*slab_ckpt_[0-9]+\.hsck" "$tmp/sig.log" || { fail "SIGTERM message"; cat "$tmp/sig.log"; }
no_tmp "$tmp/sig"; valid_series "$tmp/sig"
ckpt=$(ls "$tmp/sig" | grep '\.hsck$' | tail -1)
if [ -n "$ckpt" ]; then
  step=$((10#$(sed 's/.*_ckpt_\([0-9]*\)\.hsck/\1/' <<<"$ckpt")))
  t2=$(( (step / 10) + 6 ))   # ms, a little past the interruption
  run --set time.t_end=$t2 --set output.interval=5 --out "$tmp/sig" --restart "$tmp/sig" -q || fail "restart after SIGTERM"
  run --set time.t_end=$t2 --set output.interval=5 --out "$tmp/sigref" -q || fail "reference run to $t2 ms"
  same_frames "$tmp/sigref" "$tmp/sig"
else
  fail "SIGTERM left no checkpoint"
fi

# the resume hint is a command that works as printed: program, config, every --set (quoted: the
# brackets of a stimulus key, a value with a space), --out with the run's directory (a space in it)
sd="$tmp/sig dir"
"$hs" run "$q" --set mesh.h=0.5 --set solver.backend=cpu --set time.t_end=200 --set output.interval=5 \
  --set 'stimulus.[0].start=0.5' --set 'output.prefix = "slab"' --out "$sd" -q 2>"$tmp/sig2.log" & pid=$!
started "$sd/slab_000001.vtk"; kill -TERM "$pid"; wait "$pid"; rc=$?
[ "$rc" -eq 8 ] || fail "SIGTERM (hint run): exit $rc, want 8"
hint=$(sed -n 's/.*; resume with: //p' "$tmp/sig2.log")
case "$hint" in
  *"'stimulus.[0].start=0.5'"*"--out '$sd' --restart '$sd'") ;;
  *) fail "resume hint lacks the --set options or --out: '$hint'" ;;
esac
if [ -n "$hint" ]; then
  (eval "$hint") >"$tmp/hint.log" 2>&1 || { fail "the resume hint as printed failed: $hint"; tail -3 "$tmp/hint.log"; }
  "$hs" run "$q" --set mesh.h=0.5 --set solver.backend=cpu --set time.t_end=200 --set output.interval=5 \
    --set 'stimulus.[0].start=0.5' --out "$tmp/hintref" -q || fail "reference run for the hint"
  same_frames "$tmp/hintref" "$sd"
  [ "$(grep -c '"name"' "$sd/slab.vtk.series")" -eq 41 ] || fail "resumed run's index does not list 41 frames"
fi
# a restart into a directory without the run's frames (the hint without --out): an error naming
# what is missing, before any work; nothing written there
expect 4 "lacks 3 of them \(first missing: slab_000000.vtk\); restart into the output directory" -- \
  run --set time.t_end=4 --out "$tmp/elsewhere" --restart "$tmp/k5/slab_ckpt_000000020.hsck"
[ -e "$tmp/elsewhere/slab.vtk.series" ] && fail "a refused restart wrote an index"
# a format that keeps all frames in files of its own (xdmf_h5, when this build has HDF5): its index
if "$hs" check "$q" --set 'output.format="xdmf_h5"' >/dev/null 2>&1; then
  run --set time.t_end=2 --set 'output.format="xdmf_h5"' --set output.checkpoint_interval=1 --out "$tmp/h5" -q || fail "xdmf_h5 run"
  expect 4 "continues a run of 3 frames, but output.dir $tmp/h5b lacks its index $tmp/h5b/slab.xdmf" -- \
    run --set time.t_end=3 --set 'output.format="xdmf_h5"' --out "$tmp/h5b" --restart "$tmp/h5"
  expect 0 "restart: from" -- run --set time.t_end=3 --set 'output.format="xdmf_h5"' --out "$tmp/h5" --restart "$tmp/h5"
fi
# a restart whose time.t_end is not beyond the checkpoint's time: exit 2 saying what to set
expect 2 "is at t = 2 ms \(step 20\), and time.t_end = 2 ms is not later: nothing to run; set time.t_end beyond 2 ms" -- \
  run --set time.t_end=2 --out "$tmp/k5" --restart "$tmp/k5/slab_ckpt_000000020.hsck"
expect 2 "time.t_end = 1 ms is not later" -- run --set time.t_end=1 --out "$tmp/k5" --restart "$tmp/k5/slab_ckpt_000000020.hsck"
# a dt whose step count overflows: refused by validation, naming the keys
expect 2 "time.t_end / time.dt = 30 / 1e-20 ms is 3e\+21 steps: at most 999999999 steps" -- run --set time.dt=1e-20 --out "$tmp/x"
expect 2 "time.t_end / output.interval = 30 / 1e-05 ms is 3e\+06 frames" -- run --set output.interval=1e-5 --set time.dt=1e-5 --out "$tmp/x"

# one run per output directory: a second run into it is refused before any work (exit 4), naming the
# running one; the lock dies with its process, so after SIGKILL the directory can be used again
"$hs" run "$q" --set mesh.h=0.5 --set solver.backend=cpu --set time.t_end=300 --out "$tmp/busy" -q & pid=$!
started "$tmp/busy/slab_000000.vtk"
out=$(run --set time.t_end=1 --out "$tmp/busy" 2>&1); rc=$?
[ "$rc" -eq 4 ] || fail "second run into a busy directory: exit $rc, want 4"
grep -qE "output.dir $tmp/busy is in use by another heartsim run: pid $pid on host .*, started .* UTC, command: .*quick_slab.cfg .*--out $tmp/busy" <<<"$out" \
  || { fail "the refusal does not name the running run:"; echo "$out" | tail -3; }
grep -q "^backend:" <<<"$out" && fail "the refused run built its simulation before refusing"
kill -KILL "$pid"; wait "$pid" 2>/dev/null
expect 0 "output: 2 frames" -- run --set time.t_end=1 --out "$tmp/busy"
[ -e "$tmp/busy/.heartsim.lock" ] && fail "a finished run left its lock file"

# 4. an injected NaN: exit 5 naming step, iteration and element/node; checkpoint of the last good step
expect 5 "step 25: at t = 2.5 ms \(step to 2.6 ms\), Newton iteration 0: .*(element|node) [0-9]+.*checkpoint .*slab_ckpt_000000025.hsck" -- \
  env HS_INJECT_NAN_AT_STEP=25 "$hs" run "$q" --set mesh.h=0.5 --set solver.backend=cpu --set time.t_end=4 --out "$tmp/nan"
no_tmp "$tmp/nan"
expect 0 "restart: from .*slab_ckpt_000000025.hsck" -- run --set time.t_end=4 --out "$tmp/nan" --restart "$tmp/nan"
# the resumed frames at 3 and 4 ms hold what the uninterrupted run computed (frame 3 is the extra
# frame at 2.5 ms the failure wrote, so numbers shift by one; the title line differs only in it)
cmp -s -i 64 "$tmp/full/slab_000003.vtk" "$tmp/nan/slab_000004.vtk" || fail "resumed frame at 3 ms differs"
cmp -s -i 64 "$tmp/full/slab_000004.vtk" "$tmp/nan/slab_000005.vtk" || fail "resumed frame at 4 ms differs"
# solver.dt_retry: a step that fails at time.dt converges in substeps (logged); a stimulus of 2/ms
# (four times the example's) makes the first steps hard enough for 3 Newton iterations to fail
expect 5 "Newton did not converge" -- run --set time.t_end=1 --set solver.newton_max_iter=3 --set 'stimulus.[0].strength=2' --out "$tmp/retry0"
expect 0 "retrying as 2 substeps of 0.05 ms" -- run --set time.t_end=1 --set solver.newton_max_iter=3 --set 'stimulus.[0].strength=2' --set solver.dt_retry=2 --out "$tmp/retry"
expect 5 "failed also as 4 substeps: solver.dt_retry = 2" -- \
  env HS_INJECT_NAN_AT_STEP=3 "$hs" run "$q" --set mesh.h=0.5 --set solver.backend=cpu --set time.t_end=1 --set solver.dt_retry=2 --out "$tmp/retry2"

# 5. a disk that fills up after three frames (injected ENOSPC): exit 4 naming the file, the
# frames before it and the index intact, no temporary file left
expect 4 "cannot write VTK frame $tmp/disk/slab_000003.vtk: writing .*No space left on device" -- \
  env HS_INJECT_DISK_FULL_AFTER=1100000 "$hs" run "$q" --set mesh.h=0.5 --set solver.backend=cpu --set time.t_end=10 --out "$tmp/disk"
no_tmp "$tmp/disk"; valid_series "$tmp/disk"
[ "$(grep -c '"name"' "$tmp/disk/slab.vtk.series")" -eq 3 ] || fail "full disk: index does not list the 3 complete frames"
for i in 0 1 2; do cmp -s "$tmp/full/slab_00000$i.vtk" "$tmp/disk/slab_00000$i.vtk" || fail "full disk: frame $i damaged"; done
[ -e "$tmp/disk/slab_000003.vtk" ] && fail "full disk: partial frame 3 left"
# a checkpoint that no longer fits: named as such
expect 4 "cannot write checkpoint .*slab_ckpt_000000005.hsck.*No space left on device" -- \
  env HS_INJECT_DISK_FULL_AFTER=350000 "$hs" run "$q" --set mesh.h=0.5 --set solver.backend=cpu --set time.t_end=10 \
  --set output.checkpoint_interval=0.5 --out "$tmp/disk2"
no_tmp "$tmp/disk2"
# RLIMIT_FSIZE: heartsim ignores SIGXFSZ itself, so the limit is a write error (EFBIG), not a kill
expect 4 "cannot write VTK frame .*slab_000000.vtk: writing .*File too large" -- \
  bash -c 'ulimit -f 100; exec "$0" "$@"' "$hs" run "$q" --set mesh.h=0.5 --set solver.backend=cpu --set time.t_end=1 --out "$tmp/fsize"
no_tmp "$tmp/fsize"

if [ "$fails" -ne 0 ]; then echo "$fails check(s) failed"; exit 1; fi
exit 0
