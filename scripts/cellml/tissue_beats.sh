#!/usr/bin/env bash
# Issue 29's "no NaN or runaway concentrations over 20 beats on the GPU in float64", for each model given:
# the Niederer benchmark's slab and tissue (configs/niederer_tp06.cfg: 20 x 7 x 3 mm, sigma in S/m,
# splitting) paced BEATS times at BCL 1000 ms by a plane wave along the fibres (the stimulus box
# widened to the whole x <= 0.5 mm face, 100 mV/ms for 2 ms: the transverse direction needs h <= 0.1 mm
# for O'Hara-Rudy with these conductivities, docs/models.md, a plane wave does not), frames every
# 1000 ms (the state before each pulse), probes every 1 ms. Then scripts/cellml/beats_check.py: every
# frame finite, every node counted BEATS beats and activated in each (the per-beat maps), and the
# concentrations' range per frame (the table of docs/verification.md).
#
#   scripts/cellml/tissue_beats.sh HEARTSIM OUTDIR MODEL [MODEL ...]
#
# Environment: BEATS (20), DT (0.02 ms), H (0.2 mm), BACKEND ("cuda"). The runs' frames stay in
# OUTDIR/MODEL/ (about 2.5 MB per frame at h = 0.2 mm); OUTDIR/MODEL.log is heartsim's output and
# OUTDIR/MODEL.txt the check's. Exit 1 if any model's run or check failed.
set -u
hs=$1 outdir=$2
shift 2
src=$(cd "$(dirname "$0")/../.." && pwd)
beats=${BEATS:-20} dt=${DT:-0.02} h=${H:-0.2} backend=${BACKEND:-cuda}
fails=0
mkdir -p "$outdir"
for m in "$@"; do
  case "$m" in
    ten_tusscher_2006_*) fields="V,Na_i,K_i,Ca_i,Ca_SR" ;;
    ohara_rudy_2011) fields="V,nai,ki,cai,cajsr" ;;
    courtemanche_1998) fields="V,Na_i,K_i,Ca_i,Ca_rel" ;;
    *) fields="V" ;;
  esac
  ofields=$(echo "$fields,activation" | sed 's/[^,]*/"&"/g')
  if ! "$hs" run "$src/configs/niederer_tp06.cfg" --set "model.type=\"$m\"" --set "mesh.h=$h" --set "time.dt=$dt" \
       --set "time.t_end=$((beats * 1000))" --set 'stimulus.[0].max=[0.5, 7.01, 3.01]' --set "stimulus.[0].count=$beats" \
       --set 'stimulus.[0].period=1000' --set 'stimulus.[0].strength=100' --set "solver.backend=\"$backend\"" \
       --set probes.interval=1.0 --set output.interval=1000 --set 'output.format="vtk"' \
       --set "output.fields=[$ofields]" --out "$outdir/$m" > "$outdir/$m.log" 2>&1; then
    echo "$m: the run failed:"; tail -5 "$outdir/$m.log"; fails=$((fails + 1)); continue
  fi
  grep -E '^summary|wall time|iterations' "$outdir/$m.log" | sed "s/^/$m: /"
  if python3 "$src/scripts/cellml/beats_check.py" "$outdir/$m" niederer_tp06 --beats "$beats" --fields "$fields" \
       > "$outdir/$m.txt" 2>&1; then
    echo "$m: $(tail -1 "$outdir/$m.txt")"
  else
    echo "$m: check failed:"; grep -v '^| niederer' "$outdir/$m.txt" | tail -25; fails=$((fails + 1))
  fi
done
exit $((fails != 0))
