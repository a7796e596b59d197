#!/usr/bin/env bash
# Build the libFuzzer harnesses (tests/fuzz/fuzz_main.c, one per entry point of
# tests/fuzz/fuzz_targets.h; clang, CPU only, ASan+UBSan) and run each for SECONDS (default 60),
# starting from the committed seed corpus and, where tests/fuzz/dict/<target>.dict exists, with
# that dictionary of the format's keywords. `scripts/fuzz.sh --help` prints the usage.
# The targets are read from HS_FUZZ_TARGETS in tests/fuzz/fuzz_targets.h, the one list (CMake
# reads it too). Output under fuzz-out/ (git-ignored): <target>/corpus/ (the grown corpus),
# <target>/crashes/ (crash-*, leak-*, timeout-*, oom-* inputs) and <target>/log. A found input is
# fixed in the reader and then copied to tests/fuzz/regressions/<target>/, which ctest replays in
# every build (test_fuzz_regressions). Exit status: 1 when any target found something, 2 on a
# usage error or a missing clang.
set -euo pipefail
cd "$(dirname "$0")/.."
# X(name) entries between "#define HS_FUZZ_TARGETS(X)" and the first line without a backslash
all_targets=($(sed -n '/^#define HS_FUZZ_TARGETS(X)/,/[^\\]$/p' tests/fuzz/fuzz_targets.h |
               grep -o 'X([a-z_0-9]*)' | sed 's/^X(//; s/)$//'))

usage() {
  cat <<USAGE
usage: scripts/fuzz.sh [SECONDS] [TARGET...]

Build the libFuzzer harnesses (clang, ASan+UBSan, in \$FUZZ_BUILD, default build-fuzz) and fuzz
each TARGET for SECONDS (a positive whole number, default 60), starting from the seed corpus in
tests/fuzz/corpus/TARGET; findings go to \$FUZZ_OUT/TARGET/crashes (default fuzz-out).

targets (default: all): ${all_targets[*]}

environment: FUZZ_JOBS (targets run at once, default the number of cores, at most 3; use 1 on a
shared machine), FUZZ_BUILD, FUZZ_OUT.
exit status: 0 nothing found, 1 findings, 2 usage error or no clang with libFuzzer.

example: FUZZ_JOBS=1 scripts/fuzz.sh 120 vtk vtu
USAGE
}

for a in "$@"; do
  case $a in -h|--help) usage; exit 0 ;; esac
done
if [ ${#all_targets[@]} -eq 0 ]; then
  echo "fuzz.sh: no targets found in tests/fuzz/fuzz_targets.h (HS_FUZZ_TARGETS)" >&2
  exit 2
fi
secs=60
if [ $# -gt 0 ]; then
  if [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -gt 0 ]; then
    secs=$1
    shift
  elif [[ $1 == -* || $1 =~ ^[0-9.+-] ]]; then
    echo "fuzz.sh: SECONDS must be a positive whole number of seconds, not \"$1\" (scripts/fuzz.sh --help)" >&2
    exit 2
  fi
fi
targets=("$@")
for t in ${targets[@]+"${targets[@]}"}; do
  case " ${all_targets[*]} " in
    *" $t "*) ;;
    *) echo "fuzz.sh: unknown target \"$t\"; available: ${all_targets[*]} (scripts/fuzz.sh --help)" >&2
       exit 2 ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
if [ -n "${FUZZ_JOBS:-}" ] && ! [[ $FUZZ_JOBS =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz.sh: FUZZ_JOBS must be a positive whole number, not \"$FUZZ_JOBS\"" >&2
  exit 2
fi
build=${FUZZ_BUILD:-build-fuzz}
outdir=${FUZZ_OUT:-fuzz-out}

if ! echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' |
     clang -x c -fsanitize=fuzzer,address - -o /tmp/hs_fuzz_probe.$$ 2>/dev/null; then
  echo "fuzz.sh: clang with libFuzzer is needed: apt-get install -y clang libclang-rt-14-dev" >&2
  exit 2
fi
rm -f /tmp/hs_fuzz_probe.$$

CC=clang CXX=clang++ cmake -S . -B "$build" -DHS_USE_CUDA=OFF -DHS_FUZZ=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=ON > /dev/null
cmake --build "$build" -j"$(nproc)" --target $(printf 'fuzz_%s ' "${targets[@]}")

jobs=${FUZZ_JOBS:-$(nproc)}
[ "$jobs" -le 3 ] || jobs=3
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
# libconfig 1.5 leaks a string on some syntax errors (upstream bug, see the file); nothing of ours.
export LSAN_OPTIONS="suppressions=$PWD/tests/fuzz/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

run_one() {
  local t=$1 out=$outdir/$1 dict=()
  mkdir -p "$out/corpus" "$out/crashes"
  [ -f tests/fuzz/dict/"$t".dict ] && dict=(-dict=tests/fuzz/dict/"$t".dict)
  # -rss_limit_mb: the readers must refuse a huge declared size, not allocate it.
  # -timeout: one input taking 10 s is a hang. Seeds stay read-only: new inputs go to $out/corpus.
  "$build"/bin/fuzz_"$t" "$out/corpus" tests/fuzz/corpus/"$t" ${dict[@]+"${dict[@]}"} \
    -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -max_len=8192 \
    -artifact_prefix="$out/crashes/" -print_final_stats=1 > "$out/log" 2>&1 || true
  local execs found
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/log" | grep -o '[0-9]*$' || echo '?')
  found=$(find "$out/crashes" -type f | wc -l)
  echo "fuzz $t: up to ${secs} s (libFuzzer stops at the first finding), ${execs} executions, $(find "$out/corpus" -type f | wc -l) corpus files, ${found} findings in $out/crashes"
}

pids=()
for t in "${targets[@]}"; do
  run_one "$t" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$jobs" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p"; done

if find "${targets[@]/#/$outdir/}" -path '*/crashes/*' -type f 2>/dev/null | grep -q .; then
  echo "fuzz.sh: findings (reproduce: $build/bin/fuzz_TARGET FILE):" >&2
  for t in "${targets[@]}"; do find "$outdir/$t/crashes" -type f; done >&2
  exit 1
fi
