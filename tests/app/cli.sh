#!/usr/bin/env bash
# heartsim as a user meets it: exit codes and messages for bad input, a real run whose frames
# ParaView opens, a Newton failure that keeps what was computed, check's output loading again.
# Environment: HEARTSIM (the binary), HS_SOURCE_DIR (the source tree).
set -u
hs=${HEARTSIM:?}
src=${HS_SOURCE_DIR:?}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hs_cli_XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
# expect RC PATTERN -- command...: the exit code and a pattern of the combined output
expect() {
  local want=$1 pat=$2; shift 3
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -qE -- "$pat" <<<"$out"; then
    echo "FAIL: $* -> rc $rc (want $want), output lacks /$pat/:"; echo "$out" | tail -5; fails=$((fails+1))
  fi
}
quick="$src/configs/quick_slab.cfg"

expect 0 "heartsim [0-9]" -- "$hs" --version
expect 0 "usage: heartsim" -- "$hs" --help
expect 1 "unknown command \"frobnicate\"" -- "$hs" frobnicate
expect 1 "needs a config file" -- "$hs" run
expect 1 "unknown option \"--bogus\"" -- "$hs" run "$quick" --bogus
expect 2 "cannot read config file \"$tmp/none.cfg\"" -- "$hs" run "$tmp/none.cfg"
expect 2 "unknown key \"model.alhpa\"; did you mean \"model.alpha\"" -- "$hs" check "$quick" --set model.alhpa=0.1
expect 2 "solver.spmv: unknown kernel \"ellwarp\"; available: auto, csr_scalar" -- "$hs" check "$quick" --set solver.spmv=ellwarp
expect 2 "time.dt = 6 ms makes the Newton tangent indefinite" -- "$hs" check "$quick" --set time.dt=6
# the device's Newton loops run Jacobi-CG only: another solver is refused by name, not swapped silently
expect 2 "solver.step = \"graph\" runs Jacobi-preconditioned CG" -- "$hs" check "$quick" \
  --set solver.step=graph --set solver.precond=fsai
expect 2 "solver.step = \"persistent\" runs Jacobi-preconditioned CG" -- "$hs" check "$quick" \
  --set solver.step=persistent --set solver.krylov=bicgstab --set solver.precond=sai
expect 0 "is valid" -- "$hs" check "$quick" --set solver.step=graph --set solver.precond=jacobi
# an unwritable output directory is found before any work (a path below a regular file)
touch "$tmp/file"
expect 4 "$tmp/file/out" -- "$hs" run "$quick" --out "$tmp/file/out" -q
# no CUDA device here (CI) or no CUDA in the build: a clear device error, never a silent fallback
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  expect 6 "solver.backend = \"cuda\"" -- "$hs" run "$quick" --set solver.backend=cuda --out "$tmp/cu" -q
fi
# check prints a configuration that loads again to the same thing
"$hs" check "$quick" > "$tmp/resolved.cfg" 2>/dev/null
expect 0 "is valid" -- "$hs" check "$tmp/resolved.cfg"
"$hs" check "$tmp/resolved.cfg" > "$tmp/resolved2.cfg" 2>/dev/null
cmp -s <(grep -v '^#' "$tmp/resolved.cfg") <(grep -v '^#' "$tmp/resolved2.cfg") || { echo "FAIL: check output does not round-trip"; fails=$((fails+1)); }

# a real run: 4 frames at 0, 1, 2, 3 ms, the summary, the backend named
expect 0 "summary: 30 steps" -- "$hs" run "$quick" --set time.t_end=3 --set solver.backend=cpu --out "$tmp/q"
series="$tmp/q/slab.vtk.series"
[ -f "$series" ] && [ "$(grep -c '"name"' "$series")" -eq 4 ] || { echo "FAIL: $series lacks 4 frames"; fails=$((fails+1)); }
ls "$tmp/q" | grep -q '\.tmp$' && { echo "FAIL: temporary files left in $tmp/q"; fails=$((fails+1)); }

# Newton failure (one iteration allowed, tight tolerance): stops with diagnostics after the steps at
# rest, writes the last converged state as the final frame and exits 5
expect 5 "Newton did not converge at t = 1.2 ms" -- "$hs" run "$quick" --set time.t_end=3 --set output.interval=0.5 \
  --set 'stimulus.[0].start=1.25' --set solver.newton_max_iter=1 --set solver.backend=cpu --out "$tmp/fail" -q
fs="$tmp/fail/slab.vtk.series"
if [ -f "$fs" ]; then
  last=$(grep -o '"time" *: *[0-9.e+-]*' "$fs" | tail -1 | grep -o '[0-9.e+-]*$')
  n=$(grep -c '"name"' "$fs")
  [ "$n" -eq 4 ] && awk -v t="$last" 'BEGIN{exit !(t > 1.19 && t < 1.21)}' || { echo "FAIL: failed run kept $n frames, last at $last (want 4, last 1.2)"; fails=$((fails+1)); }
else
  echo "FAIL: failed run left no series"; fails=$((fails+1))
fi

# ParaView opens the run's series: every frame, the times, the arrays
if command -v pvpython >/dev/null; then
  if ! QT_QPA_PLATFORM=offscreen pvpython "$src/tests/app/pv_run_check.py" "$series" 4 >"$tmp/pv.log" 2>&1; then
    echo "FAIL: pvpython check of $series:"; tail -10 "$tmp/pv.log"; fails=$((fails+1))
  fi
else
  echo "note: pvpython not found, the ParaView check of a real run was not made (output_pvpython covers the format)"
fi
# bench spmv: argument errors first; then the files (a missing matrix is named as such, GPU or
# not); without a CUDA device (or without CUDA in the build), the kernels' CPU references, checked
# and timed, with a plain "no GPU found"
expect 1 "bench spmv needs a config file or --matrix FILE.mtx" -- "$hs" bench spmv
expect 1 "bench spmv takes a config file or --matrix FILE.mtx, not both" -- "$hs" bench spmv "$quick" --matrix "$tmp/a.mtx"
expect 3 "cannot open Matrix Market file '$tmp/none.mtx'" -- "$hs" bench spmv --matrix "$tmp/none.mtx" --kernels csr_scalar
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n1 1 4\n2 1 -1\n2 2 4\n3 2 -1\n3 3 4\n' >"$tmp/k.mtx"
  expect 0 "no GPU found .*CPU references" -- "$hs" bench spmv --matrix "$tmp/k.mtx" --reps 3
  out=$("$hs" bench spmv --matrix "$tmp/k.mtx" --reps 3 2>/dev/null)
  for k in csr_scalar ellwarp_k1 pcsr_hegao aligned_coo; do
    grep -qE "^\| $k \| ok " <<<"$out" || { echo "FAIL: bench spmv CPU table lacks a checked row for $k:"; echo "$out"; fails=$((fails+1)); }
  done
  expect 0 "\| ellwarp_k2r \| ok" -- "$hs" bench spmv "$quick" --set mesh.h=0.5 --reps 2 --kernels ellwarp_k2r
  # bench cg is GPU-only: said before any mesh is built, solver.backend = cpu or not
  out=$("$hs" bench cg "$quick" --set solver.backend=cpu 2>&1); rc=$?
  { [ "$rc" -eq 6 ] && grep -qE "bench cg measures the CG iteration on a GPU, and (no GPU was found|this heartsim was built without CUDA)" <<<"$out" &&
    ! grep -q "^mesh:" <<<"$out" && ! grep -q 'set solver.backend = "cpu"' <<<"$out"; } ||
    { echo "FAIL: bench cg without a GPU (rc $rc):"; echo "$out" | tail -5; fails=$((fails+1)); }
fi

# bench solve (issue 13): the CPU table without a GPU; errors of the matrix in words
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n1 1 4\n2 1 -1\n2 2 4\n3 2 -1\n3 3 4\n' >"$tmp/s.mtx"
  out=$("$hs" bench solve --matrix "$tmp/s.mtx" --reps 2 2>&1); rc=$?
  for m in jacobi-cg fsai-cg sai-bicgstab jacobi-bicgstab; do
    { [ "$rc" -eq 0 ] && grep -qE "^\| $m \| [0-9.]+ \| [0-9.]+ \| [0-9]+ \| .* \| converged \|$" <<<"$out"; } ||
      { echo "FAIL: bench solve CPU table lacks a converged row for $m (rc $rc):"; echo "$out" | tail -6; fails=$((fails+1)); }
  done
  printf '1\n2\n3\n' >"$tmp/b.txt"
  expect 0 "right-hand side: $tmp/b.txt" -- "$hs" bench solve --matrix "$tmp/s.mtx" --rhs "$tmp/b.txt" --reps 1
  printf '%%%%MatrixMarket matrix array real general\n%% b\n3 1\n1\n2\n3\n' >"$tmp/b.mtx"
  expect 0 "\| sai-bicgstab \| .* \| converged \|" -- "$hs" bench solve --matrix "$tmp/s.mtx" --rhs "$tmp/b.mtx" --reps 1
  printf '%%%%MatrixMarket matrix array real general\n2 1\n1\n2\n' >"$tmp/b3.mtx"
  expect 3 "b3.mtx:2: size line: expected \"3 1\"" -- "$hs" bench solve --matrix "$tmp/s.mtx" --rhs "$tmp/b3.mtx"
  expect 3 "b2.txt: 2 values; the matrix has 3 rows" -- sh -c "printf '1 2\n' >'$tmp/b2.txt'; '$hs' bench solve --matrix '$tmp/s.mtx' --rhs '$tmp/b2.txt'"
  printf '%%%%MatrixMarket matrix coordinate real general\n2 3 2\n1 1 4\n2 2 4\n' >"$tmp/rect.mtx"
  expect 3 "rect.mtx: the matrix is 2 x 3; a linear system A x = b needs a square matrix" -- "$hs" bench solve --matrix "$tmp/rect.mtx"
  # column 2 zero: singular. Jacobi names the zero diagonal, SAI the rank-deficient column; nothing converges
  printf '%%%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 4\n2 1 1\n3 3 4\n' >"$tmp/sing.mtx"
  out=$("$hs" bench solve --matrix "$tmp/sing.mtx" --reps 1 2>&1); rc=$?
  { [ "$rc" -eq 5 ] && grep -q "diagonal entry of row 2 (1-based) is missing" <<<"$out" &&
    grep -qE "sai-bicgstab .*least-squares problem of column [0-9]+ \(1-based\) is rank deficient: the matrix is singular" <<<"$out" &&
    grep -q "no method reached the tolerance" <<<"$out"; } ||
    { echo "FAIL: bench solve of a singular matrix (rc $rc):"; echo "$out" | tail -6; fails=$((fails+1)); }
  expect 0 "\| fsai-cg \| .* \| converged \|" -- "$hs" bench solve "$quick" --set mesh.h=0.5 --reps 1
fi
expect 1 "bench solve takes a config file or --matrix FILE.mtx, not both" -- "$hs" bench solve "$quick" --matrix "$tmp/a.mtx"
expect 1 "--sai-level needs 1 or 2" -- "$hs" bench solve --matrix "$tmp/a.mtx" --sai-level 3
expect 2 "solver.precond: unknown preconditioner \"spai\"; available: jacobi, sai, fsai" -- "$hs" check "$quick" --set solver.precond=spai
expect 2 "solver.precond = \"sai\" is not symmetric, so solver.krylov = \"cg\" cannot use it: use solver.precond = \"fsai\"" -- "$hs" check "$quick" --set solver.precond=sai

# every command has --help: usage, options, an example, exit 0 (stdout)
for c in run check mesh "bench step" "bench spmv" "bench cg" "bench solve" kernels config-reference; do
  # shellcheck disable=SC2086
  out=$("$hs" $c --help 2>/dev/null); rc=$?
  { [ "$rc" -eq 0 ] && grep -q "^usage: heartsim $c" <<<"$out" && grep -q "^example:" <<<"$out"; } ||
    { echo "FAIL: heartsim $c --help (rc $rc):"; echo "$out" | head -3; fails=$((fails+1)); }
done
expect 0 "usage: heartsim run CONFIG" -- "$hs" run "$quick" -h
expect 0 "usage: heartsim bench step\|spmv\|cg" -- "$hs" bench --help
# heartsim kernels: a table within 100 columns; where a kernel runs said in words
out=$("$hs" kernels)
[ "$(awk '{ if (length($0) > w) w = length($0) } END { print w }' <<<"$out")" -le 100 ] || { echo "FAIL: heartsim kernels is wider than 100 columns"; fails=$((fails+1)); }
grep -qE "^csr_scalar +cpu, gpu +f64, f32 +CSR" <<<"$out" && grep -qE "^pcsr_hegao +cpu, gpu +f64 +PCSR" <<<"$out" && ! grep -qE "^[a-z_0-9]+ +only " <<<"$out" && grep -q "doi:10.1002/nme.4865" <<<"$out" &&
  grep -qE "^fsai +factorised sparse approximate inverse" <<<"$out" && grep -qE "^bicgstab +BiCGStab" <<<"$out" ||
  { echo "FAIL: heartsim kernels table:"; echo "$out" | head -4; fails=$((fails+1)); }
# a run with probes and a pseudo-ECG plots them: PNG signature and 800 x 500 (IHDR) for each
if "$hs" run "$src/configs/scar_slab.cfg" --set mesh.h=0.5 --set solver.backend=cpu --out "$tmp/scar" -q 2>"$tmp/scar.log"; then
  for f in slab_probes slab_ecg; do
    [ -s "$tmp/scar/$f.csv" ] || { echo "FAIL: scar_slab wrote no $f.csv"; fails=$((fails+1)); }
    hdr=$(od -An -tx1 -N24 "$tmp/scar/$f.png" 2>/dev/null | tr -d ' \n')
    [ "$hdr" = "89504e470d0a1a0a0000000d4948445200000320000001f4" ] ||
      { echo "FAIL: $f.png is not an 800 x 500 PNG: $hdr"; fails=$((fails+1)); }
  done
else
  echo "FAIL: scar_slab.cfg did not run:"; tail -3 "$tmp/scar.log"; fails=$((fails+1))
fi
if [ "$fails" -ne 0 ]; then echo "$fails check(s) failed"; exit 1; fi
exit 0
