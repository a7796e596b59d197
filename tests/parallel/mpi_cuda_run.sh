#!/usr/bin/env bash
# mpirun -np N heartsim run with solver.backend = "cuda" = the serial GPU run (issue 14, layer 3;
# ctest labels gpu, mpi). Exit 77 (skipped) without a usable GPU.
# Usage: mpi_cuda_run.sh MPIEXEC HAS_NCCL (HEARTSIM, HS_SOURCE_DIR from ctest; or HS_CFG, the
# quick_slab config, and HS_CLOSE, tests/app/vtk_fields_close.py: scripts/gpu_suite.sh run mpi runs
# this script from the bundle with the carried Open MPI).
#
# Bound (as tests/parallel/mpi_run.sh): both runs accept a step only when the Newton residual and
# update are below 1e-8 (potential units); they differ only in the order of sums (the distributed
# CG's dot products per rank then across ranks, its SpMV of the owned rows against the serial run's
# whole matrix), so after N steps phi differs by at most N 1e-8: 100 N 1e-8 mV in V, 2 N 1e-8 ms in
# activation times (upstroke slope >= 0.5 /ms). Both runs store float64 matrix values
# (solver.matrix_values: float32 values of a rank's locally assembled rows may round apart from the
# serial run's by an ulp of float, beyond this bound; test_gpu_dist_cg checks float32 on a partition);
# N = 30 steps.
#   -np 1: one rank runs the serial plan and the serial device Newton iteration (the backend line says
#          "one rank: the serial device solve"); no exchange.
#   -np 2, 3, and every GPU count above 3 the machine has (nvidia-smi -L): the device CG on each rank's
#          rows; parallel.transport = "auto": on a machine with fewer GPUs than ranks they share
#          devices and the exchange goes through MPI (with a warning); with one GPU per rank the ipc
#          transport (CUDA IPC peer memory, one node) carries it, else NCCL when the build has it and
#          libnccl.so.2 loads. At 2 ranks each transport is also named (ipc and mpi always, nccl where
#          it can run): each run equals the serial one within the bound. "auto" takes the serial default kernel there (cusparse_sell with these
#          float64 values: multiplied whole after the halo); at 2 ranks also solver.spmv = "csr_scalar"
#          (its interior rows multiplied while the halo travels). solver.step = "graph" (the default)
#          runs the Newton loop on the device (backends/cuda/dist_newton.cu: the backend line says
#          "device Newton loop", "in graphs" where ipc or NCCL >= 2.9 carries the exchange), "kernels" on
#          the host around the device CG ("device CG"): at 2 and 3 ranks both run, and the device loop
#          must take the host loop's Newton and CG iterations, one for one, and its potential (the same
#          kernels in the same order; the sums the Newton test reads are exact).
set -euo pipefail
mpiexec=$1
has_nccl=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1
cfg=${HS_CFG:-$HS_SOURCE_DIR/configs/quick_slab.cfg}
close=${HS_CLOSE:-$HS_SOURCE_DIR/tests/app/vtk_fields_close.py}
sets=(--set mesh.h=0.5 --set time.t_end=3 --set output.interval=1 --set solver.matrix_values=float64
      --set 'output.fields=["V", "activation"]')
if ! "$HEARTSIM" run "$cfg" "${sets[@]}" --set solver.backend=cuda --out "$tmp/serial" > "$tmp/serial.log" 2>&1; then
  if grep -q "no usable cuda device" "$tmp/serial.log"; then echo "no GPU: skipped"; exit 77; fi
  cat "$tmp/serial.log"; exit 1
fi
tol_v=$(python3 -c 'print(100 * 30 * 1e-8)')
tol_a=$(python3 -c 'print(2 * 30 * 1e-8)')
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
counts="1 2 3"
[ "${ngpu:-0}" -gt 3 ] && counts="$counts $ngpu"
run_np() { # np backend name [--set ...]: run, check the backend line and transport, compare with the serial run
  local np=$1 backend=$2 name=$3; shift 3
  local out=$tmp/np$np-$name
  if ! timeout 300 "$mpiexec" --oversubscribe --allow-run-as-root -np "$np" "$HEARTSIM" run "$cfg" "${sets[@]}" \
       --set solver.backend=$backend --set parallel.partition=rows "$@" --out "$out" < /dev/null > "$out.log" 2>&1; then
    echo "mpirun -np $np, backend $backend ($name): failed"; cat "$out.log"; exit 1
  fi
  grep -E "^backend:" "$out.log" || { echo "np $np: no backend line"; cat "$out.log"; exit 1; }
  if [ "$np" = 1 ]; then
    grep -q "^backend: mpi (1 ranks, rows partition; one rank: the serial device solve) of cuda (" "$out.log" ||
      { echo "np 1 ($backend): not the serial device solve"; cat "$out.log"; exit 1; }
  else
    grep -q "^backend: mpi ($np ranks, rows partition; device [A-Za-z ]*, .* the halo, halo and sums through .*) of cuda (" "$out.log" ||
      { echo "np $np ($backend): not the distributed cuda backend"; cat "$out.log"; exit 1; }
    # who runs the Newton loop: the device with solver.step = graph (auto), the host with kernels
    if [ "$name" = kernels ]; then
      grep -q "; device CG, " "$out.log" || { echo "np $np ($name): expected the host Newton loop"; cat "$out.log"; exit 1; }
    else
      grep -q "; device Newton loop" "$out.log" || { echo "np $np ($name): expected the device Newton loop"; cat "$out.log"; exit 1; }
    fi
    # the transport (TR: what parallel.transport names, auto by default): auto takes ipc where each
    # rank has its own device (one node), else NCCL where it can run, else MPI
    local want=mpi
    case "${TR:-auto}" in
      auto) if [ "${ngpu:-0}" -ge "$np" ] && ! grep -q "CUDA IPC could not be set up" "$out.log"; then want=ipc
            elif [ "$has_nccl" = 1 ] && [ "${ngpu:-0}" -ge "$np" ] && ! grep -q "NCCL could not be" "$out.log"; then want=nccl
            fi ;;
      ipc) want=ipc ;;
      nccl) grep -q "NCCL could not be" "$out.log" || want=nccl ;;
    esac
    case $want in
      ipc) grep -q "through CUDA IPC peer memory" "$out.log" || { echo "np $np: expected the ipc transport"; cat "$out.log"; exit 1; } ;;
      nccl) grep -q "through NCCL" "$out.log" || { echo "np $np: expected the NCCL transport"; cat "$out.log"; exit 1; } ;;
      *) grep -q "through MPI via host buffers" "$out.log" || { echo "np $np: expected the MPI transport"; cat "$out.log"; exit 1; } ;;
    esac
    # solver.step = graph (auto) with ipc or NCCL >= 2.9: the device Newton loop replayed from CUDA graphs
    if [ "$want" != mpi ] && [ "$name" != kernels ] && ! grep -q "capturable from 2.9" "$out.log"; then
      grep -q "device Newton loop in graphs, " "$out.log" || { echo "np $np: expected the Newton loop in graphs"; cat "$out.log"; exit 1; }
    fi
  fi
  [ "$(grep -c '^summary:' "$out.log")" = 1 ] || { echo "np $np: not one summary"; cat "$out.log"; exit 1; }
  for f in slab_000000.vtk slab_000003.vtk; do
    python3 "$close" "$tmp/serial/$f" "$out/$f" "V:$tol_v" "activation:$tol_a"
  done
  python3 "$close" "$tmp/serial/slab_maps.vtk" "$out/slab_maps.vtk" "activation:$tol_a"
  echo "mpirun -np $np, solver.backend = $backend ($name): equals the serial GPU run ($(grep -o 'through [A-Z][A-Za-z0-9. ]*' "$out.log" | head -1))"
}
iters() { grep -o "iterations: [0-9]* Newton ([0-9.]* per step), [0-9]* CG" "$1"; }
for np in $counts; do
  run_np "$np" cuda default
  [ "$np" = 1 ] && run_np 1 auto default
  [ "$np" = 2 ] && run_np 2 cuda csr_scalar --set solver.spmv=csr_scalar
  if [ "$np" = 2 ] || [ "$np" = 3 ]; then
    run_np "$np" cuda kernels --set solver.step=kernels # the Newton loop on the host (the reference)
    # the device Newton loop against the host one on the same partition: the same iterations, the
    # same potential (the bound above, as against the serial run)
    a=$(iters "$tmp/np$np-default.log"); b=$(iters "$tmp/np$np-kernels.log")
    [ -n "$a" ] && [ "$a" = "$b" ] || { echo "np $np: device Newton loop '$a', host loop '$b'"; exit 1; }
    for f in slab_000003.vtk slab_maps.vtk; do
      python3 "$close" "$tmp/np$np-kernels/$f" "$tmp/np$np-default/$f" "activation:$tol_a"
    done
    python3 "$close" "$tmp/np$np-kernels/slab_000003.vtk" "$tmp/np$np-default/slab_000003.vtk" "V:$tol_v"
    echo "mpirun -np $np: the device Newton loop took the host loop's iterations ($a) and potential"
  fi
  if [ "$np" = 2 ]; then # each transport named (ipc works on a shared device too, slowly)
    TR=ipc run_np 2 cuda ipc --set parallel.transport=ipc
    TR=mpi run_np 2 cuda mpi --set parallel.transport=mpi
    if [ "$has_nccl" = 1 ] && [ "${ngpu:-0}" -ge 2 ]; then TR=nccl run_np 2 cuda nccl --set parallel.transport=nccl; fi
  fi
done
# the device Newton loop fails as the host loop does, with the same words and numbers (its test on the
# device: the iteration limit with the residual, its global node and history; a CG stopped at its
# iteration limit, shorter than a poll, with the residual before the solve), and the same exit code
fail_np2() { # name [--set ...]
  local name=$1 step rc; shift
  for step in graph kernels; do
    local out=$tmp/fail-$name-$step
    rc=0
    rm -rf "$tmp/fail" # one output directory: the message names its checkpoint
    timeout 120 "$mpiexec" --oversubscribe --allow-run-as-root -np 2 "$HEARTSIM" run "$cfg" "${sets[@]}" \
      --set solver.backend=cuda --set parallel.partition=rows --set solver.dt_retry=0 --set solver.step=$step "$@" \
      --out "$tmp/fail" < /dev/null > "$out.log" 2>&1 || rc=$?
    [ "$rc" != 0 ] && [ "$rc" != 124 ] || { echo "np 2, $name ($step): rc $rc (expected a failure)"; cat "$out.log"; exit 1; }
    { echo "rc $rc"; grep "^heartsim: error" "$out.log"; } > "$out.err" ||
      { echo "np 2, $name ($step): no error line"; cat "$out.log"; exit 1; }
  done
  cmp -s "$tmp/fail-$name-graph.err" "$tmp/fail-$name-kernels.err" ||
    { echo "np 2, $name: the device loop's failure differs from the host loop's"; diff "$tmp/fail-$name-graph.err" \
        "$tmp/fail-$name-kernels.err"; exit 1; }
  echo "mpirun -np 2, $name: the device Newton loop fails as the host loop: $(tail -1 "$tmp/fail-$name-graph.err" | cut -c1-90)"
}
fail_np2 newton_max_iter --set solver.newton_max_iter=1
fail_np2 cg_max_iter --set solver.cg_max_iter=2
# a CG variant the partition's device CG does not run (several ranks) is refused by its key, once
# (rank 0), not replaced by Chronopoulos-Gear in silence
out=$tmp/np2-classic
if timeout 120 "$mpiexec" --oversubscribe --allow-run-as-root -np 2 "$HEARTSIM" run "$cfg" "${sets[@]}" \
     --set solver.backend=cuda --set solver.cg=classic --out "$out" < /dev/null > "$out.log" 2>&1; then
  echo "mpirun -np 2, solver.cg = classic with cuda: ran (expected a refusal)"; cat "$out.log"; exit 1
fi
[ "$(grep -c 'solver.cg: a distributed run with the cuda backend solves with Chronopoulos-Gear' "$out.log")" = 1 ] ||
  { echo "mpirun -np 2, solver.cg = classic with cuda: not one refusal naming solver.cg"; cat "$out.log"; exit 1; }
echo "mpirun -np 2, solver.cg = classic with cuda: refused once, naming solver.cg"
# one rank runs the serial code: what a serial run accepts (here solver.cg = classic) is not refused
out=$tmp/np1-classic
if ! timeout 120 "$mpiexec" --oversubscribe --allow-run-as-root -np 1 "$HEARTSIM" run "$cfg" "${sets[@]}" \
     --set solver.backend=cuda --set solver.cg=classic --out "$out" < /dev/null > "$out.log" 2>&1; then
  echo "mpirun -np 1, solver.cg = classic with cuda: failed (one rank runs the serial solve)"; cat "$out.log"; exit 1
fi
grep -q "one rank: the serial device solve" "$out.log" ||
  { echo "mpirun -np 1, solver.cg = classic: not the serial device solve"; cat "$out.log"; exit 1; }
echo "mpirun -np 1, solver.cg = classic with cuda: runs (the serial solve)"
# a rank whose cuda backend cannot be created (out of memory) ends both ranks with one agreed message:
# before the ranks agreed ahead of the partition's bind (backend_mpi.c create_local), the other rank
# waited in the transport's set-up for good (measured on an H200: killed by the timeout)
out=$tmp/np2-nobackend
rc=0
timeout 120 "$mpiexec" --oversubscribe --allow-run-as-root -np 1 "$HEARTSIM" run "$cfg" "${sets[@]}" \
  --set solver.backend=cuda --out "$out" : -np 1 env HS_INJECT_ALLOC_FAIL="cuda backend" "$HEARTSIM" run "$cfg" \
  "${sets[@]}" --set solver.backend=cuda --out "$out" < /dev/null > "$out.log" 2>&1 || rc=$?
[ "$rc" = 7 ] && [ "$(grep -c '^heartsim: error' "$out.log")" = 1 ] &&
  grep -q '^heartsim: error: rank 1 of 2: out of memory allocating cuda backend' "$out.log" ||
  { echo "mpirun -np 2, rank 1's cuda backend not created: exit $rc (7 and one agreed message expected)"; cat "$out.log"; exit 1; }
echo "mpirun -np 2, rank 1's cuda backend not created: one agreed message, exit 7"
