#!/usr/bin/env bash
# Byte-for-byte comparison of two heartsim builds on the CPU backend: every example config (the
# benchmark slabs shortened to a few steps) and quick_slab with every CPU SpMV kernel, with
# checkpoints every few ms, all kept. Frames, indexes and checkpoints must be identical files.
#   scripts/compare_outputs.sh OLD_HEARTSIM NEW_HEARTSIM WORKDIR
# Exit 0 when every file matches; the differing files are listed otherwise. Used for refactors
# that must not change behaviour (docs/verification.md). The old build's outputs are kept in
# WORKDIR/old and reused by later calls with the same WORKDIR (delete it to run them again).
set -uo pipefail
old=$1 new=$2 work=$3
src=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$work/new" && mkdir -p "$work/old"
cases=()
for c in "$src"/configs/*.cfg; do
  n=$(basename "$c" .cfg)
  case $n in
    bench_1m|bench_4m) cases+=("$n|$c|time.t_end=0.2") ;;
    bench_50k) cases+=("$n|$c|time.t_end=5.0") ;;
    *) cases+=("$n|$c|") ;;
  esac
done
for k in $("$new" kernels 2>/dev/null | awk '$2 ~ /cpu/ {print $1}'); do
  cases+=("quick_slab_$k|$src/configs/quick_slab.cfg|time.t_end=6.0 solver.spmv=$k output.fields=[\"phi\",\"V\",\"activation\",\"r\",\"fiber\",\"region\"]")
done
cases+=("quick_slab_xdmf|$src/configs/quick_slab.cfg|time.t_end=6.0 output.format=\"xdmf\" output.fields=[\"phi\",\"V\",\"activation\",\"r\",\"fiber\",\"region\"]")
fail=0
for cs in "${cases[@]}"; do
  IFS='|' read -r name cfg extra <<<"$cs"
  for side in old new; do
    bin=$old; [ $side = new ] && bin=$new
    out=$work/$side/$name
    [ $side = old ] && [ -e "$work/old/$name.done" ] && continue
    sets=(--set solver.backend=\"cpu\" --set output.checkpoint_interval=2.0 --set output.checkpoint_keep=1000)
    for e in $extra; do sets+=(--set "$e"); done
    (cd "$src" && "$bin" run "$cfg" "${sets[@]}" --out "$out" >"$work/$side.$name.log" 2>&1) || {
      echo "$name: $side run failed (see $work/$side.$name.log)"; fail=1; }
    [ $side = old ] && touch "$work/old/$name.done"
  done
  if ! diff -r -q "$work/old/$name" "$work/new/$name" >"$work/$name.diff" 2>&1; then
    echo "$name: DIFFERENT"; cat "$work/$name.diff"; fail=1
  else
    echo "$name: identical ($(find "$work/new/$name" -type f | wc -l) files)"
  fi
done
# A restart: the old build's checkpoints (quick_slab to 3 ms) continued to 6 ms by each build, so
# the new build must read the old one's checkpoints and continue exactly as the old one does.
ck=$work/restart_src
if [ ! -e "$work/old/restart.done" ]; then
  rm -rf "$ck"
  (cd "$src" && "$old" run configs/quick_slab.cfg --set solver.backend=\"cpu\" --set time.t_end=3.0 \
     --set output.checkpoint_interval=1.0 --out "$ck" >"$work/restart_src.log" 2>&1) || { echo "restart: source run failed"; fail=1; }
fi
for side in old new; do
  bin=$old; [ $side = new ] && bin=$new
  [ $side = old ] && [ -e "$work/old/restart.done" ] && continue
  rm -rf "$work/$side/restart" && cp -r "$ck" "$work/$side/restart"
  (cd "$src" && "$bin" run configs/quick_slab.cfg --set solver.backend=\"cpu\" --set time.t_end=6.0 \
     --set output.checkpoint_interval=1.0 --out "$work/$side/restart" --restart "$work/$side/restart" \
     >"$work/$side.restart.log" 2>&1) || { echo "restart: $side run failed (see $work/$side.restart.log)"; fail=1; }
  [ $side = old ] && touch "$work/old/restart.done"
done
if diff -r -q "$work/old/restart" "$work/new/restart" >"$work/restart.diff" 2>&1; then
  echo "restart: identical ($(find "$work/new/restart" -type f | wc -l) files)"
else
  echo "restart: DIFFERENT"; cat "$work/restart.diff"; fail=1
fi
exit $fail
