#!/usr/bin/env bash
# mpirun -np N heartsim run with solver.backend = "cuda" and solver.scheme = "splitting" (issue 28,
# backends/cuda/dist_split.cu) = the serial GPU run and = the cpu backend on the same ranks (ctest
# labels gpu, mpi). Exit 77 (skipped) without a usable GPU; ranks may share one.
# Usage: mpi_cuda_splitting.sh MPIEXEC (HEARTSIM, HS_SOURCE_DIR from ctest; or, from the GPU bundle,
# HS_CFG = quick_slab.cfg, HS_SCAR_CFG = scar_slab.cfg, HS_CLOSE = vtk_fields_close.py and
# HS_CSV_CLOSE = csv_close.py: scripts/gpu_suite.sh run mpi).
#
# Bound (as tests/parallel/mpi_splitting.sh): every run accepts a diffusion solve when
# ||B u* - A u|| <= solver.cg_tol ||B u*||; the runs differ in the order of sums (dot products per
# rank then across ranks, a row's products in local column order), the cpu and cuda backends also in
# the reaction (a few ulp per substep: test_gpu_nodal) and in where the CG stops within its
# tolerance. solver.cg_tol = 1e-12 here puts the last below the round-off argument of mpi_run.sh
# (test_gpu_split: 2 tol kappa(A) sqrt(n) ||u|| per step, kappa(A) ~ 10 for these meshes and dt), so
# each step moves phi apart by at most a small multiple of 1e-8 and N steps by N 1e-8: 100 N 1e-8 mV
# in V, 2 N 1e-8 ms in activation times (upstroke slope >= 0.5 /ms), ||W||_1 N 1e-8 in an ECG
# electrode (the weights' 1-norm from the serial log, as mpi_study.sh). Matrix values: the owned rows
# of a rank's A and B are the serial run's bit for bit (each value sums its elements in increasing
# global order: fem/splitting.c), so float32 values round them alike and the bound stays between the
# cuda runs. Not between the backends: the cpu solves A32 u = B u*, the cuda backend the correction
# A32 (u - u*) = (B - A) u* (backends/cuda/split.cu), which moves the fixed point by 2^-24 |A| |d|
# instead of 2^-24 |A| |u| per step (d the correction); the f32 case is compared with the serial run.
# Cases (quick_slab at h = 0.5 mm, 5 ms: N = 50; scar_slab, 10 ms: N = 100):
#   strang        Strang, theta 1/2, consistent mass, extrapolated guess: -np 1 (the serial code), 2, 3
#                 against the serial run, 2 and 3 against the cpu backend on as many ranks
#   lumped        Godunov, theta 1, lumped mass (B = diag(m)): -np 2, against both
#   noguess       Strang, theta 1, solver.extrapolate = 0: -np 3, against both
#   f32           csr_scalar (its interior rows multiplied while the halo travels), float32 values,
#                 Godunov, theta 1/2, lumped mass: -np 2, against the serial run (above)
#   kernels       strang with solver.step = "kernels" (the CG's iterations launched one by one): -np 2
#   models        every other model of the list (the CellML ones at solver.dt_ode = 0.02 ms), 3 ms:
#                 -np 2 against the serial run
#   study         scar_slab (a non-conducting scar: frozen nodes; a slower band: node region rows;
#                 probes; a pseudo-ECG): -np 2, 3 against the serial run, 3 against the cpu backend;
#                 2 ranks to 5 ms with a checkpoint, restarted on 3 to 10 ms
# a failing reaction named once; and solver.step = "persistent" (one device's cooperative kernel:
# split_persist.cu) refused on 2 ranks, naming the key.
set -euo pipefail
mpiexec=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1
cfg=${HS_CFG:-$HS_SOURCE_DIR/configs/quick_slab.cfg}
scfg=${HS_SCAR_CFG:-$HS_SOURCE_DIR/configs/scar_slab.cfg}
close=${HS_CLOSE:-$HS_SOURCE_DIR/tests/app/vtk_fields_close.py}
csv_close=${HS_CSV_CLOSE:-$HS_SOURCE_DIR/tests/parallel/csv_close.py}
base=(--set solver.scheme=splitting --set solver.cg_tol=1e-12 --set solver.matrix_values=float64)
quick=(--set mesh.h=0.5 --set time.t_end=5 --set output.interval=1 --set 'output.fields=["V", "activation"]')
tol() { python3 -c "print($1 * $2 * 1e-8)"; } # tol FACTOR N

# serial NAME BACKEND CONFIG [--set ...]: a serial run into $tmp/NAME
serial() {
  local name=$1 backend=$2 c=$3; shift 3
  if ! "$HEARTSIM" run "$c" "${base[@]}" "$@" --set solver.backend=$backend --out "$tmp/$name" -v \
       > "$tmp/$name.log" 2>&1; then
    if grep -q "no usable cuda device" "$tmp/$name.log"; then echo "no GPU: skipped"; exit 77; fi
    echo "serial $name ($backend): failed"; cat "$tmp/$name.log"; exit 1
  fi
}
# par NP BACKEND NAME CONFIG [--set ...]: mpirun -np NP into $tmp/NAME, its backend line checked
par() {
  local np=$1 backend=$2 name=$3 c=$4; shift 4
  local out=$tmp/$name
  if ! timeout 300 "$mpiexec" --oversubscribe --allow-run-as-root -np "$np" "$HEARTSIM" run "$c" "${base[@]}" "$@" \
       --set solver.backend=$backend --set parallel.partition=rows --out "$out" < /dev/null > "$out.log" 2>&1; then
    echo "mpirun -np $np, $backend ($name): failed"; cat "$out.log"; exit 1
  fi
  [ "$(grep -c '^summary:' "$out.log")" = 1 ] || { echo "$name: not one summary"; cat "$out.log"; exit 1; }
  grep -q "splitting" "$out.log" || { echo "$name: the log names no splitting"; cat "$out.log"; exit 1; }
  if [ "$backend" = cuda ] && [ "$np" = 1 ]; then
    grep -q "^backend: mpi (1 ranks, rows partition; one rank: the serial device solve) of cuda (" "$out.log" ||
      { echo "$name: not the serial device solve"; cat "$out.log"; exit 1; }
  elif [ "$backend" = cuda ]; then
    grep -q "^backend: mpi ($np ranks, rows partition; device CG[a-z0-9 ]*, .*) of cuda (" "$out.log" ||
      { echo "$name: not the distributed cuda backend"; cat "$out.log"; exit 1; }
  fi
}
# same A B N FRAME...: B's frames and maps = A's within the bounds of N steps
same() {
  local a=$1 b=$2 n=$3; shift 3
  for f in "$@"; do
    python3 "$close" "$tmp/$a/$f" "$tmp/$b/$f" "V:$(tol 100 "$n")" "activation:$(tol 2 "$n")" ||
      { echo "$b against $a: $f differs"; exit 1; }
  done
  python3 "$close" "$tmp/$a/slab_maps.vtk" "$tmp/$b/slab_maps.vtk" "activation:$(tol 2 "$n")" ||
    { echo "$b against $a: slab_maps.vtk differs"; exit 1; }
  echo "$b = $a"
}
frames=(slab_000001.vtk slab_000005.vtk)

# strang: -np 1, 2, 3 against the serial run; 2, 3 against the cpu backend
s=(--set solver.splitting=strang --set solver.theta=0.5)
serial strang cuda "$cfg" "${quick[@]}" "${s[@]}"
for np in 1 2 3; do
  par $np cuda strang_np$np "$cfg" "${quick[@]}" "${s[@]}"
  same strang strang_np$np 50 "${frames[@]}"
  [ $np = 1 ] && continue
  par $np cpu strang_cpu$np "$cfg" "${quick[@]}" "${s[@]}"
  same strang_cpu$np strang_np$np 50 "${frames[@]}"
done
par 2 cuda kernels_np2 "$cfg" "${quick[@]}" "${s[@]}" --set solver.step=kernels
same strang kernels_np2 50 "${frames[@]}"

# the other settings: against the serial run and the cpu backend on the same ranks
cases=("lumped:2:--set solver.splitting=godunov --set solver.theta=1 --set solver.mass=lumped"
       "noguess:3:--set solver.splitting=strang --set solver.theta=1 --set solver.extrapolate=0"
       "f32:2:--set solver.theta=0.5 --set solver.mass=lumped --set solver.spmv=csr_scalar --set solver.matrix_values=float32")
for c in "${cases[@]}"; do
  name=${c%%:*} rest=${c#*:}; np=${rest%%:*}; read -r -a s <<< "${rest#*:}"
  serial "$name" cuda "$cfg" "${quick[@]}" "${s[@]}"
  par "$np" cuda "${name}_np$np" "$cfg" "${quick[@]}" "${s[@]}"
  same "$name" "${name}_np$np" 50 "${frames[@]}"
  [ "$name" = f32 ] && continue # the backends round apart (header)
  par "$np" cpu "${name}_cpu$np" "$cfg" "${quick[@]}" "${s[@]}"
  same "${name}_cpu$np" "${name}_np$np" 50 "${frames[@]}"
done
# csr_scalar multiplies its interior rows while the halo travels, except inside the ipc transport's fused
# iteration (dist_pcg.cu: the rows are stored straight into the neighbours' ghosts; the line says so)
if grep -q "through CUDA IPC peer memory" "$tmp/f32_np2.log"; then
  grep -q "csr_scalar after the halo" "$tmp/f32_np2.log" || { echo "f32 (ipc): the backend line does not name csr_scalar after the halo"; exit 1; }
else
  grep -q "overlapping the halo" "$tmp/f32_np2.log" || { echo "f32: csr_scalar does not overlap the halo"; exit 1; }
fi

# every other model: 3 ms (N = 30), the CellML models' reaction in substeps of 0.02 ms
for m in mitchell_schaeffer bueno_orovio ten_tusscher_2006_epi ten_tusscher_2006_endo ten_tusscher_2006_m \
         ohara_rudy_2011 courtemanche_1998; do
  s=(--set model.type=$m --set time.t_end=3 --set solver.dt_ode=0.02)
  serial "$m" cuda "$cfg" "${quick[@]}" "${s[@]}"
  par 2 cuda "${m}_np2" "$cfg" "${quick[@]}" "${s[@]}"
  same "$m" "${m}_np2" 30 slab_000001.vtk slab_000003.vtk
done

# the study: frames, maps, probes, ECG; restarted from 2 on 3 ranks
st=(--set time.t_end=10 --set solver.splitting=strang --set solver.theta=0.5)
serial study cuda "$scfg" "${st[@]}"
n=100
ecg_tols=()
for e in E_right E_left; do
  w=$(sed -n "s/^electrode $e: weights' 1-norm \([^ ]*\) mV.*/\1/p" "$tmp/study.log")
  [ -n "$w" ] || { echo "no weight norm for $e in the serial log"; exit 1; }
  ecg_tols+=("$e:$(python3 -c "print($w * $n * 1e-8)")")
done
ecg_tols+=("E_right-E_left:$(python3 -c "print(${ecg_tols[0]#*:} + ${ecg_tols[1]#*:})")")
study_same() { # A B: frames, maps (region exact), probes, ECG
  for f in slab_000002.vtk slab_000005.vtk; do
    python3 "$close" "$tmp/$1/$f" "$tmp/$2/$f" "V:$(tol 100 $n)" "activation:$(tol 2 $n)" "region:0" ||
      { echo "$2 against $1: $f differs"; exit 1; }
  done
  python3 "$close" "$tmp/$1/slab_maps.vtk" "$tmp/$2/slab_maps.vtk" "activation:$(tol 2 $n)" "region:0" ||
    { echo "$2 against $1: slab_maps.vtk differs"; exit 1; }
  python3 "$csv_close" "$tmp/$1/slab_probes.csv" "$tmp/$2/slab_probes.csv" "$(tol 100 $n)"
  python3 "$csv_close" "$tmp/$1/slab_ecg.csv" "$tmp/$2/slab_ecg.csv" 0 "${ecg_tols[@]}"
  echo "$2 = $1 (frames, maps, probes, ECG)"
}
for np in 2 3; do
  par $np cuda study_np$np "$scfg" "${st[@]}"
  study_same study study_np$np
done
par 3 cpu study_cpu3 "$scfg" "${st[@]}"
study_same study_cpu3 study_np3
rs=$tmp/study_rs
par 2 cuda study_rs "$scfg" "${st[@]}" --set time.t_end=5 --set output.checkpoint_interval=5
par 3 cuda study_rs "$scfg" "${st[@]}" --set output.checkpoint_interval=5 --restart "$rs"
grep -q "^restart: from .*t = 5 ms" "$rs.log" || { cat "$rs.log"; echo "no restart from 5 ms"; exit 1; }
study_same study study_rs

# a reaction that fails (the cubic term overflows in its second substep): every rank stops at the
# same step, and rank 0 names the node once, as a serial run does (HS_ERR_NUMERIC)
out=$tmp/fail.log
rc=0
timeout 120 "$mpiexec" --oversubscribe --allow-run-as-root -np 2 "$HEARTSIM" run "$cfg" "${base[@]}" "${quick[@]}" \
  --set solver.backend=cuda --set 'stimulus.[0].strength=1e200' --set solver.dt_ode=0.05 --out "$tmp/fail" \
  < /dev/null > "$out" 2>&1 || rc=$?
[ "$rc" != 0 ] && [ "$(grep -c "^heartsim: error: .*model's ODEs became non-finite at node [0-9]* in the reaction" \
  "$out")" = 1 ] || { echo "a failing reaction on 2 ranks (mpirun exit $rc): not one message naming the node"; cat "$out"; exit 1; }
echo "a failing reaction on 2 ranks: stopped, the node named once"

# what a serial run refuses, several ranks refuse too, once, naming the key and its value
out=$tmp/refusal.log
if timeout 120 "$mpiexec" --oversubscribe --allow-run-as-root -np 2 "$HEARTSIM" run "$cfg" "${base[@]}" "${quick[@]}" \
     --set solver.backend=cuda --set solver.step=persistent --out "$tmp/refusal" < /dev/null > "$out" 2>&1; then
  echo "solver.step = persistent under splitting on 2 ranks: ran (expected a refusal)"; cat "$out"; exit 1
fi
[ "$(grep -c '^heartsim: error: .*solver.step = "persistent"' "$out")" = 1 ] ||
  { echo "solver.step = persistent: not one refusal naming the key"; cat "$out"; exit 1; }
echo "solver.step = persistent under splitting on 2 ranks: refused once, naming the key"
