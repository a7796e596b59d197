#!/usr/bin/env bash
# `heartsim tune-cv` on the shipped CellML example (configs/niederer_tp06.cfg: the Niederer benchmark's
# tissue in S/m, its 35.7 mV/ms stimulus, splitting, h = 0.5 mm, dt = 0.05 ms) with each generated
# model family: ten Tusscher 2006 epi (the config's model), O'Hara-Rudy 2011 (endo) and Courtemanche
# 1998 reach 0.6 m/s along and 0.3 m/s across the fibre within 1% (the speeds tune-cv prints in its
# table, each the measurement of its last simulation), and the snippet it prints is in S/m (the
# config's form) with the sigma_i / sigma_e pairs. About 20 s on two cores. Run by hs_add_script_test.
set -euo pipefail
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hs_cellml_tune_XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
for model in ten_tusscher_2006_epi ohara_rudy_2011 courtemanche_1998; do
  if ! "$HEARTSIM" tune-cv "$HS_SOURCE_DIR/configs/niederer_tp06.cfg" --set "model.type=\"$model\"" --cv-l 0.6 --cv-t 0.3 \
       --tol 0.005 -q > "$tmp/$model.out" 2>&1; then
    echo "FAIL: tune-cv $model:"; tail -5 "$tmp/$model.out"; fails=$((fails + 1)); continue
  fi
  for dir in along across; do
    row=$(grep "^| $dir |" "$tmp/$model.out" || true)
    target=$(echo "$row" | awk -F'|' '{print $3}')
    cv=$(echo "$row" | awk -F'|' '{print $4}')
    if [ -z "$row" ] || ! awk -v c="$cv" -v t="$target" 'BEGIN { e = (c - t) / t; exit !(t > 0 && e <= 0.01 && e >= -0.01) }'; then
      echo "FAIL: $model $dir: CV '$cv' not within 1% of '$target':"; cat "$tmp/$model.out"; fails=$((fails + 1))
    fi
  done
  grep -Eq '^tissue = \{ sigma_il = [0-9.e-]+; sigma_it = [0-9.e-]+; sigma_el = [0-9.e-]+; sigma_et = [0-9.e-]+; chi = 1400; c_m = 1; \};' \
    "$tmp/$model.out" || { echo "FAIL: $model: no S/m snippet:"; cat "$tmp/$model.out"; fails=$((fails + 1)); }
done
if [ "$fails" -ne 0 ]; then echo "$fails check(s) failed"; exit 1; fi
exit 0
