#!/usr/bin/env bash
# The GPU suite in one device call.
#   scripts/gpu_suite.sh bundle   (here, no GPU needed) build for sm_90 and copy the binaries, the
#                                 shared libraries the GPU machine lacks (libconfig, libtet) and the
#                                 benchmark configs into .gpu-bundle/ (ignored by git; carry it)
#   scripts/gpu_suite.sh run [all|tests|bench|spmv]
#                                 (on the GPU machine) tests: every GPU test, compute-sanitizer
#                                 memcheck and racecheck over the suite, the GPU restart check;
#                                 bench: `heartsim bench cg` at ~50K, 1M and 4M rows, `heartsim bench
#                                 step` at ~50K (with --models) and 1M nodes, and the cost of output at one frame per
#                                 ms in a real run; spmv: `heartsim bench spmv` on both slabs.
#                                 all (default) = tests + bench + spmv; the tables come last.
#   scripts/gpu_suite.sh run solve
#                                 (on the GPU machine, not in "all") issue 13: `heartsim bench solve`
#                                 (Jacobi/FSAI-PCG, SAI/Jacobi-BiCGStab, cuSPARSE baselines) on the
#                                 tangents of bench_50k, bench_1m and the benchmark ventricle, then
#                                 runs of 10 ms on bench_1m and bench_lv with solver.precond jacobi,
#                                 fsai (values every solve) and fsai reused over 10 solves: iterations
#                                 per solve, preconditioner set-up and time per step (the break-even).
#   scripts/gpu_suite.sh run mpi  (on the GPU machine) the Open MPI carried in .gpu-bundle/mpi launches
#                                 heartsim: mpirun -np 1 and 2 equal the serial run (cpu backend),
#                                 and with solver.backend = cuda on 1, 2 and as many ranks as the
#                                 machine has GPUs the serial GPU run (NCCL or MPI); the splitting
#                                 scheme on 1, 2, 3 cuda ranks (tests/parallel/mpi_cuda_splitting.sh)
#   scripts/gpu_suite.sh run scale
#                                 (on the GPU machine, not in "all") `heartsim bench step bench_1m.cfg`
#                                 (cuda) and `mpirun -np <GPUs> heartsim bench scale bench_1m.cfg`:
#                                 the 1-rank ratio (scale's first row over step's) and the scaling;
#                                 then bench scale with solver.step = kernels (the host Newton loop)
#   scripts/gpu_suite.sh run compare BASE
#                                 (on the GPU machine) `bench cg` and `bench step` at ~50K and 1M rows
#                                 and `bench spmv` at 1M with this bundle and with BASE, another
#                                 bundle (e.g. of the previous commit, carried as .gpu-bundle-base),
#                                 alternating new, base, new, base, so both see the same machine.
# Device call: run(command="bash scripts/gpu_suite.sh run > $OUT/suite.log 2>&1", carry=[".gpu-bundle"])
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
  # the shared libraries the GPU machine lacks (libconfig, TetGen, OpenMP, HDF5 and what they pull in):
  # every library the binaries load from the system's library folders, except the C/C++ runtime
  ldd build-gpu/bin/heartsim build-gpu/bin/test_gpu_* | awk '$3 ~ /^\/(usr\/)?lib/ {print $3}' | sort -u |
    grep -vE '/(libc|libm|libpthread|libdl|librt|libresolv|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so' |
    while read -r lib; do cp -L "$lib" .gpu-bundle/; done
  cp configs/bench_*.cfg configs/quick_slab.cfg configs/scar_slab.cfg configs/lv_ellipsoid.cfg .gpu-bundle/
  # the Open MPI runtime (the GPU machine has none) for `run mpi`: docs/parallel.md
  if grep -q "HS_HAS_MPI 1" build-gpu/generated/hs_build_config.h; then
    scripts/mpi_bundle.sh .gpu-bundle/mpi build-gpu/bin/heartsim >/dev/null
    # the libraries already beside heartsim need no second copy (the device tool carries 64 MiB in
    # all; env.sh's library path ends where `run` puts the bundle itself first)
    for f in .gpu-bundle/mpi/lib/*.so*; do
      b=.gpu-bundle/$(basename "$f"); [ -f "$b" ] && cmp -s "$f" "$b" && rm -f "$f"
    done
    cp tests/app/vtk_fields_close.py tests/app/hs_vtk_legacy.py tests/parallel/mpi_cuda_run.sh \
       tests/parallel/mpi_cuda_splitting.sh tests/parallel/csv_close.py .gpu-bundle/
    grep -q "HS_HAS_NCCL 1" build-gpu/generated/hs_build_config.h && echo 1 > .gpu-bundle/has_nccl || echo 0 > .gpu-bundle/has_nccl
  fi
  du -sh .gpu-bundle
  ;;
run)
  what=${2:-all}
  cd .gpu-bundle || { echo "no .gpu-bundle: run 'scripts/gpu_suite.sh bundle' here and carry it"; exit 2; }
  export LD_LIBRARY_PATH="$PWD:${LD_LIBRARY_PATH:-}"
  export PATH="/usr/local/cuda/bin:$PATH"
  nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader
  pass=0; fail=0; skip=0; skipped="" # tests that skip here (exit 77) are not run under the sanitizers either
  if [ "$what" = all ] || [ "$what" = tests ]; then
  for t in ./test_gpu_*; do
    case $t in ./test_gpu_dist_cg*) continue;; esac # MPI programs: `run mpi` launches them
    start=$(date +%s.%N)
    out=$("$t" 2>&1); rc=$?
    dur=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')
    case $rc in 0) pass=$((pass+1)); s=Passed;; 77) skip=$((skip+1)); s=Skipped; skipped="$skipped $t";; *) fail=$((fail+1)); s="FAILED (rc $rc)";; esac
    printf '%-24s %-16s %6.2f s\n' "$(basename "$t")" "$s" "$dur"
    [ "$rc" -ne 0 ] && echo "$out" | tail -20
    echo "$out" | grep -E "^CPU vs GPU|^cuda/|^model " || true
  done
  if command -v compute-sanitizer >/dev/null; then
    # memcheck: out-of-bounds and misaligned accesses, leaks of device memory (the whole suite).
    # racecheck: shared-memory races (block reductions, PCSR, ALIGNED_COO, shuffles), on the SpMV test
    # and a short run of the backend test (racecheck makes every launch slow: the full backend test
    # needs more than 10 minutes). cuSPARSE's own kernels are excluded: racecheck reports hazards
    # inside cusparse::csrmv_v3_kernel (vendor code we cannot change; see docs/reliability.md).
    for t in ./test_gpu_*; do
      case $t in ./test_gpu_dist_cg*) continue;; esac
      case " $skipped " in *" $t "*) continue;; esac
      if compute-sanitizer --tool memcheck --error-exitcode 99 "$t" >/tmp/cs.log 2>&1; then
        printf '%-24s memcheck clean\n' "$(basename "$t")"; pass=$((pass+1))
      else
        printf '%-24s memcheck FAILED\n' "$(basename "$t")"; fail=$((fail+1)); tail -30 /tmp/cs.log
      fi
    done
    # racecheck cannot run CUDA graphs with conditional nodes nor cooperative launches (the test
    # process dies under it with no hazard reported; memcheck runs them fine), so it checks the
    # same kernels launched one by one: HS_TEST_NO_GRAPH=1 (docs/reliability.md)
    for t in ./test_gpu_*; do
      case $t in ./test_gpu_dist_cg*) continue;; esac
      case " $skipped " in *" $t "*) continue;; esac
      if HS_TEST_QUICK=1 HS_TEST_NO_GRAPH=1 compute-sanitizer --tool racecheck --kernel-name-exclude kns=cusparse \
           --error-exitcode 99 "$t" >/tmp/cs.log 2>&1; then
        printf '%-24s racecheck clean\n' "$(basename "$t")"; pass=$((pass+1))
      else
        printf '%-24s racecheck FAILED\n' "$(basename "$t")"; fail=$((fail+1)); tail -30 /tmp/cs.log
      fi
    done
  else
    echo "compute-sanitizer not found: memcheck not run"
  fi
  # restart on the GPU: a run to 4 ms against a run to 2 ms restarted from its checkpoint; frames
  # compared byte for byte (the reductions are deterministic, so equality is expected on one GPU)
  common=(--set solver.backend=cuda --set solver.spmv=csr_scalar --set output.checkpoint_interval=1 -q)
  rm -rf /tmp/hs_rs_full /tmp/hs_rs_half
  if ./heartsim run quick_slab.cfg "${common[@]}" --set time.t_end=4 --out /tmp/hs_rs_full &&
     ./heartsim run quick_slab.cfg "${common[@]}" --set time.t_end=2 --out /tmp/hs_rs_half &&
     ./heartsim run quick_slab.cfg "${common[@]}" --set time.t_end=4 --out /tmp/hs_rs_half --restart /tmp/hs_rs_half; then
    same=1
    for f in /tmp/hs_rs_full/*.vtk; do cmp -s "$f" "/tmp/hs_rs_half/$(basename "$f")" || { same=0; echo "differs: $(basename "$f")"; }; done
    if [ "$same" = 1 ]; then echo "gpu restart              bit-identical frames ($(ls /tmp/hs_rs_full/*.vtk | wc -l) frames)"; pass=$((pass+1));
    else echo "gpu restart              FAILED (frames differ)"; fail=$((fail+1)); fi
  else
    echo "gpu restart              FAILED (a run failed)"; fail=$((fail+1))
  fi
  echo "$pass passed, $fail failed, $skip skipped"
  fi
  if [ "$what" = all ] || [ "$what" = bench ]; then
    # CG iterations: naive cuSPARSE + cuBLAS, classic, Chronopoulos-Gear; stream, graph, persistent;
    # with the kernel auto picks (timed with the CG's dot product) and with fused ELL-WARP K1
    for cfg in bench_50k.cfg bench_1m.cfg bench_4m.cfg; do
      [ -f "$cfg" ] || continue
      ./heartsim bench cg "$cfg" --reps 20 -q || fail=$((fail+1))
      ./heartsim bench cg "$cfg" --reps 20 -q --set solver.spmv=\"ellwarp_k1\" | grep -E "^\|" || fail=$((fail+1))
    done
    # whole time steps on the GPU (the CPU columns: `bench step` without --no-cpu)
    for cfg in bench_50k.cfg bench_1m.cfg; do
      [ -f "$cfg" ] || continue
      models=""; [ "$cfg" = bench_50k.cfg ] && models="--models"   # the element phase of every ionic model
      ./heartsim bench step "$cfg" --reps 20 --warm 2 --no-cpu $models --set output.dir=\"/tmp/hs_bench\" \
        --set output.format=\"xdmf\" || fail=$((fail+1))
    done
    # issue 18: the time step with s-step CG and with the Newton loop as one graph (bench step prints the
    # other solver.step beside the configured one), and 1 s of simulated time at 50K nodes and on the
    # benchmark ventricle (h = 1 mm), output off: wall time per simulated second from the summary
    for s in 2 4 8; do
      [ -f bench_50k.cfg ] || continue
      ./heartsim bench step bench_50k.cfg --reps 20 --warm 2 --no-cpu --set solver.cg=\"sstep\" --set solver.cg_s=$s \
        --set output.enabled=false | grep -E "^\||^  \(a step|^backend" || fail=$((fail+1))
    done
    for cfg in bench_50k.cfg lv_ellipsoid.cfg; do
      [ -f "$cfg" ] || continue
      for v in "chronopoulos kernels" "chronopoulos graph" "sstep kernels" "sstep graph"; do
        set -- $v
        echo "== run $cfg, t_end 1000 ms, output off, solver.cg $1, solver.step $2"
        ./heartsim run "$cfg" --set time.t_end=1000 --set output.enabled=false --set solver.backend=\"cuda\" \
          --set solver.cg=\"$1\" --set solver.step=\"$2\" 2>&1 | grep -E "^(spmv|backend|summary|  )" || fail=$((fail+1))
      done
    done
    # output at one frame per simulated ms, in a real run of 40 ms: with and without frames
    for cfg in bench_50k.cfg bench_1m.cfg; do
      [ -f "$cfg" ] || continue
      for out in off xdmf xdmf-V-activation vtk; do
        [ "$out" = vtk ] && [ "$cfg" = bench_1m.cfg ] && continue # 0.35 s per frame: see docs/output.md
        rm -rf /tmp/hs_out
        case $out in
        off) set -- --set output.enabled=false;;
        xdmf-V-activation) set -- --set output.format=\"xdmf\" --set 'output.fields=["V","activation"]' --out /tmp/hs_out;;
        *) set -- --set output.format=\"$out\" --out /tmp/hs_out;;
        esac
        echo "== run $cfg, output $out, t_end 40 ms"
        ./heartsim run "$cfg" --set time.t_end=40 --set solver.backend=\"cuda\" "$@" 2>&1 | grep -E "^(spmv|output|summary|  )" || fail=$((fail+1))
      done
    done
  fi
  if [ "$what" = compare ]; then
    base=${3:-}
    [ -x "../$base/heartsim" ] || { echo "compare: no bundle ../$base/heartsim"; exit 2; }
    for round in 1 2; do
      for side in new base; do
        bin=./heartsim; lib=$PWD
        [ $side = base ] && bin=../$base/heartsim && lib=$(cd "../$base" && pwd)
        for cfg in bench_50k.cfg bench_1m.cfg; do
          echo "== round $round, $side: bench cg $cfg"
          LD_LIBRARY_PATH="$lib" "$bin" bench cg "$cfg" --reps 20 -q | grep -E "^\|" || fail=$((fail+1))
          echo "== round $round, $side: bench step $cfg"
          LD_LIBRARY_PATH="$lib" "$bin" bench step "$cfg" --reps 20 --warm 2 --no-cpu -q \
            --set output.dir=\"/tmp/hs_bench\" --set output.format=\"xdmf\" | grep -E "^\||a step" || fail=$((fail+1))
        done
        echo "== round $round, $side: bench spmv bench_1m.cfg"
        LD_LIBRARY_PATH="$lib" "$bin" bench spmv bench_1m.cfg --reps 100 -q | grep -E "^\|" || fail=$((fail+1))
      done
    done
  fi
  if [ "$what" = solve ]; then
    for cfg in bench_50k.cfg bench_1m.cfg bench_lv.cfg; do
      [ -f "$cfg" ] || continue
      echo "== bench solve $cfg"
      ./heartsim bench solve "$cfg" --reps 3 -q || fail=$((fail+1))
    done
    for cfg in bench_1m.cfg bench_lv.cfg; do
      [ -f "$cfg" ] || continue
      for pc in jacobi fsai fsai-reuse10; do
        case $pc in
        jacobi) set -- --set 'solver.precond="jacobi"';;
        fsai) set -- --set 'solver.precond="fsai"';;
        fsai-reuse10) set -- --set 'solver.precond="fsai"' --set solver.precond_reuse=10;;
        esac
        echo "== run $cfg, $pc, t_end 10 ms"
        ./heartsim run "$cfg" --set time.t_end=10 --set solver.backend=\"cuda\" --set output.enabled=false "$@" 2>&1 |
          grep -E "^(backend|summary|  )" || fail=$((fail+1))
      done
    done
  fi
  if [ "$what" = all ] || [ "$what" = spmv ]; then
    # every SpMV kernel on the same matrices (checked against the CPU reference first); CSV in $OUT
    for cfg in bench_50k.cfg bench_1m.cfg; do
      [ -f "$cfg" ] || continue
      ./heartsim bench spmv "$cfg" --csv "${OUT:-/tmp}/spmv_${cfg%.cfg}.csv" -q || fail=$((fail+1))
    done
  fi
  if [ "$what" = mpi ]; then
    # the carried Open MPI launches heartsim on this machine: mpirun -np 1 and 2 (cpu backend, the
    # distributed path) equal the serial run within 100 N 1e-8 mV (docs/parallel.md); then the same
    # with the cuda backend on each rank
    [ -f mpi/env.sh ] || { echo "no mpi/ in the bundle (build without MPI)"; exit 2; }
    ( source mpi/env.sh
      s=(--set solver.backend=cpu --set time.t_end=5 --set 'output.fields=["V", "activation"]')
      ./heartsim run quick_slab.cfg "${s[@]}" --out /tmp/hs_mpi/serial -q || exit 1
      for np in 1 2; do
        mpirun -np $np ./heartsim run quick_slab.cfg "${s[@]}" --out /tmp/hs_mpi/np$np 2>&1 | grep -E "^partition|^summary" || exit 1
        python3 vtk_fields_close.py /tmp/hs_mpi/serial/slab_000005.vtk /tmp/hs_mpi/np$np/slab_000005.vtk \
          V:5e-5 activation:1e-6 && echo "mpirun -np $np: equals the serial run" || exit 1
      done
      # the cuda backend per rank: -np 1 (the serial device path), 2, 3 and as many ranks as GPUs here
      # (nvidia-smi -L; NCCL where each rank has its own GPU and libnccl.so.2 loads, else MPI via host
      # buffers) equal the serial GPU run, the device Newton loop (solver.step = graph) the host one
      # (kernels) iteration for iteration (tests/parallel/mpi_cuda_run.sh); first the partition's device
      # CG and every SpMV format on a partition against the host (tests/backends/cuda/test_gpu_dist_cg.cu)
      ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
      counts="1 2"; [ "${ngpu:-0}" -gt 2 ] && counts="$counts $ngpu"
      for np in $counts; do mpirun -np $np ./test_gpu_dist_cg || exit 1; done
      # the ipc transport fused into the CG iteration and the device Newton loop's test and update = the
      # kernel sequences, bit for bit (2 ranks and as many as GPUs here, a GPU each; it exits 77 with
      # fewer GPUs), and their time per call at bench_1m's size
      for np in $(echo 2 "${ngpu:-0}" | tr ' ' '\n' | awk '$1 >= 2' | sort -un); do
        mpirun -np $np ./test_gpu_dist_cg_ipc; rc=$?; [ $rc = 0 ] || [ $rc = 77 ] || exit 1
      done
      HEARTSIM=./heartsim HS_CFG=quick_slab.cfg HS_CLOSE=vtk_fields_close.py bash mpi_cuda_run.sh mpirun "$(cat has_nccl)" || exit 1
      # the splitting scheme on cuda partitions (-np 1, 2, 3): = the serial GPU run and the cpu backend's ranks
      HEARTSIM=./heartsim HS_CFG=quick_slab.cfg HS_SCAR_CFG=scar_slab.cfg HS_CLOSE=vtk_fields_close.py \
        HS_CSV_CLOSE=csv_close.py bash mpi_cuda_splitting.sh mpirun
    ) || fail=$((fail+1))
  fi
  if [ "$what" = scale ]; then
    # issues 25/26: the serial step of the cuda backend on bench_1m (bench step), then `bench scale` under
    # mpirun with as many ranks as GPUs here (its first row is mpirun -np 1: the 1-rank ratio is that
    # row's ms/step over bench step's cuda ms/step), all in this one call on this one machine
    [ -f mpi/env.sh ] || { echo "no mpi/ in the bundle (build without MPI)"; exit 2; }
    ( source mpi/env.sh
      ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
      ./heartsim bench step bench_1m.cfg --no-cpu --set solver.backend=cuda || exit 1
      mpirun -np "${ngpu:-1}" ./heartsim bench scale bench_1m.cfg --set solver.backend=cuda 2>&1 | grep -v pmix || exit 1
      # the Newton loop on the host around the device CG (the reference of the device loop above)
      mpirun -np "${ngpu:-1}" ./heartsim bench scale bench_1m.cfg --set solver.backend=cuda --set solver.step=kernels \
        2>&1 | grep -v pmix || exit 1
    ) || fail=$((fail+1))
  fi
  [ "$fail" -eq 0 ]
  ;;
*)
  echo "usage: $0 bundle|run"; exit 2;;
esac
