#!/usr/bin/env bash
# The GPU suite in one device call.
#   scripts/gpu_suite.sh bundle   (here, no GPU needed) build for sm_90 and copy the binaries, the
#                                 shared libraries the GPU machine lacks (libconfig, libtet) and the
#                                 benchmark configs into .gpu-bundle/ (ignored by git; carry it)
#   scripts/gpu_suite.sh run      (on the GPU machine) every GPU test, compute-sanitizer memcheck
#                                 and racecheck over the suite, then `heartsim bench spmv` and
#                                 `heartsim bench step` on ~50K and ~1M nodes;
#                                 the benchmark tables come last.
# Device call: run(command="bash scripts/gpu_suite.sh run", carry=[".gpu-bundle"])
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
case "$mode" in
bundle)
  set -e
  export PATH="/usr/local/cuda/bin:$PATH"
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DHS_USE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
  cmake --build build-gpu -j"$(nproc)" >/dev/null
  rm -rf .gpu-bundle && mkdir -p .gpu-bundle
  cp build-gpu/bin/heartsim build-gpu/bin/test_gpu_* .gpu-bundle/
  for lib in libconfig.so.9 libtet.so.1.5 libgomp.so.1; do cp -L "/usr/lib/x86_64-linux-gnu/$lib" .gpu-bundle/; done
  cp configs/bench_*.cfg .gpu-bundle/
  du -sh .gpu-bundle
  ;;
run)
  cd .gpu-bundle || { echo "no .gpu-bundle: run 'scripts/gpu_suite.sh bundle' here and carry it"; exit 2; }
  export LD_LIBRARY_PATH="$PWD:${LD_LIBRARY_PATH:-}"
  export PATH="/usr/local/cuda/bin:$PATH"
  nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader
  pass=0; fail=0; skip=0
  for t in ./test_gpu_*; do
    start=$(date +%s.%N)
    out=$("$t" 2>&1); rc=$?
    dur=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')
    case $rc in 0) pass=$((pass+1)); s=Passed;; 77) skip=$((skip+1)); s=Skipped;; *) fail=$((fail+1)); s="FAILED (rc $rc)";; esac
    printf '%-24s %-16s %6.2f s\n' "$(basename "$t")" "$s" "$dur"
    [ "$rc" -ne 0 ] && echo "$out" | tail -20
    echo "$out" | grep -E "^CPU vs GPU|^cuda/" || true
  done
  if command -v compute-sanitizer >/dev/null; then
    # memcheck: out-of-bounds and misaligned accesses, leaks of device memory;
    # racecheck: shared-memory data races (the block reductions, PCSR and ALIGNED_COO kernels)
    for tool in memcheck racecheck; do
      for t in ./test_gpu_*; do
        if compute-sanitizer --tool $tool --error-exitcode 99 "$t" >/tmp/cs.log 2>&1; then
          printf '%-24s %s clean\n' "$(basename "$t")" $tool; pass=$((pass+1))
        else
          printf '%-24s %s FAILED\n' "$(basename "$t")" $tool; fail=$((fail+1)); tail -30 /tmp/cs.log
        fi
      done
    done
  else
    echo "compute-sanitizer not found: memcheck not run"
  fi
  echo "$pass passed, $fail failed, $skip skipped"
  # every SpMV kernel on the same matrices (checked against the CPU reference first), then the
  # whole time step on both backends with the kernel "auto" picks; CSV files come back in $OUT
  for cfg in bench_50k.cfg bench_1m.cfg; do
    [ -f "$cfg" ] || continue
    ./heartsim bench spmv "$cfg" --csv "${OUT:-/tmp}/spmv_${cfg%.cfg}.csv" -q || fail=$((fail+1))
  done
  for cfg in bench_50k.cfg bench_1m.cfg; do
    [ -f "$cfg" ] || continue
    ./heartsim bench step "$cfg" --reps 20 --warm 2 --set output.dir=\"/tmp/hs_bench\" || fail=$((fail+1))
  done
  [ "$fail" -eq 0 ]
  ;;
*)
  echo "usage: $0 bundle|run"; exit 2;;
esac
