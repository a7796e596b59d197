#!/usr/bin/env bash
# `heartsim tune-cv`: on a Mitchell-Schaeffer config given in S/m (intra- and extracellular), it reaches
# 0.5 and 0.25 m/s within 1% (the speeds it prints), prints the conductivities in both units and a
# snippet in S/m; that snippet pasted into the config conducts at the targets again within 1% (a
# fresh tune-cv accepts it in one simulation per direction), with the intra/extra ratio kept; the
# D snippet of an Aliev-Panfilov config does the same; bad options exit 1 and both D and sigma exit 2
# naming both keys. About 10 s on two cores.
# Environment: HEARTSIM (the binary).
set -u
hs=${HEARTSIM:?}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hs_tune_XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

cat > "$tmp/ms.cfg" <<'CFG'
model = { type = "mitchell_schaeffer"; };
tissue = { sigma_il = 0.6; sigma_it = 0.15; sigma_el = 1.2; sigma_et = 0.6; };
mesh = { h = 0.5; };
solver = { backend = "cpu"; };
CFG
"$hs" tune-cv "$tmp/ms.cfg" --cv-l 0.5 --cv-t 0.25 -q > "$tmp/out1.txt" 2>&1 || { cat "$tmp/out1.txt"; fail "tune-cv ms.cfg exited $?"; }
# the table's rows: | along | 0.5 | CV | D | sigma_m | sigma_i | sigma_e | n |
for dir in along across; do
  row=$(grep "^| $dir |" "$tmp/out1.txt")
  target=$(echo "$row" | awk -F'|' '{print $3}')
  cv=$(echo "$row" | awk -F'|' '{print $4}')
  awk -v c="$cv" -v t="$target" 'BEGIN { e = (c - t) / t; exit !(e <= 0.01 && e >= -0.01) }' ||
    fail "$dir: CV $cv not within 1% of $target"
  # sigma_i / sigma_e keeps the config's ratio (0.5 along, 0.25 across)
  si=$(echo "$row" | awk -F'|' '{print $7}'); se=$(echo "$row" | awk -F'|' '{print $8}')
  want=$([ "$dir" = along ] && echo 0.5 || echo 0.25)
  awk -v a="$si" -v b="$se" -v w="$want" 'BEGIN { r = a / b; exit !(r > w * (1 - 1e-4) && r < w * (1 + 1e-4)) }' ||
    fail "$dir: sigma_i/sigma_e = $si/$se, the config's ratio is $want"
done
grep -q "D \[mm^2/ms\] = 1000 sigma" "$tmp/out1.txt" || fail "no unit line"
snippet=$(grep "^tissue = {" "$tmp/out1.txt")
[ -n "$snippet" ] || fail "no S/m snippet"
{ echo 'model = { type = "mitchell_schaeffer"; };'; echo "$snippet"; echo 'mesh = { h = 0.5; };'; echo 'solver = { backend = "cpu"; };'; } > "$tmp/ms2.cfg"
"$hs" tune-cv "$tmp/ms2.cfg" --cv-l 0.5 --cv-t 0.25 --tol 0.01 -q > "$tmp/out2.txt" 2>&1 || { cat "$tmp/out2.txt"; fail "pasted snippet: tune-cv exited $?"; }
[ "$(grep -c '^| along | 0.5 | .* | 1 |$' "$tmp/out2.txt")" = 1 ] && [ "$(grep -c '^| across | 0.25 | .* | 1 |$' "$tmp/out2.txt")" = 1 ] ||
  { cat "$tmp/out2.txt"; fail "the pasted S/m snippet needed more than one simulation per direction"; }

# Aliev-Panfilov in mm^2/ms: the D snippet
printf 'solver = { backend = "cpu"; };\n' > "$tmp/ap.cfg"
"$hs" tune-cv "$tmp/ap.cfg" --cv-l 0.7 --cv-t 0.35 -q > "$tmp/out3.txt" 2>&1 || { cat "$tmp/out3.txt"; fail "tune-cv ap.cfg exited $?"; }
snippet=$(grep "^model = {" "$tmp/out3.txt")
{ echo "$snippet"; echo 'solver = { backend = "cpu"; };'; } > "$tmp/ap2.cfg"
"$hs" tune-cv "$tmp/ap2.cfg" --cv-l 0.7 --cv-t 0.35 --tol 0.01 -q > "$tmp/out4.txt" 2>&1 || fail "pasted D snippet: exited $?"
[ "$(grep -c '^| a[a-z]* | .* | 1 |$' "$tmp/out4.txt")" = 2 ] || { cat "$tmp/out4.txt"; fail "the pasted D snippet needed more than one simulation"; }

# errors
"$hs" tune-cv "$tmp/ap.cfg" --cv-l 0.2 --cv-t 0.3 -q > "$tmp/e1.txt" 2>&1; rc=$?
[ $rc = 1 ] && grep -q "below --cv-t" "$tmp/e1.txt" || fail "cv-l < cv-t: exit $rc, $(cat "$tmp/e1.txt")"
"$hs" tune-cv "$tmp/ap.cfg" --tol abc > "$tmp/e2.txt" 2>&1; rc=$?
[ $rc = 1 ] || fail "--tol abc: exit $rc"
"$hs" tune-cv "$tmp/ap.cfg" --set model.d_iso=0.2 --set tissue.sigma_il=0.2 --set tissue.sigma_it=0.1 > "$tmp/e3.txt" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "model.d_iso and tissue.sigma_il are both given" "$tmp/e3.txt" || fail "D and sigma: exit $rc, $(cat "$tmp/e3.txt")"
"$hs" tune-cv --help | grep -q "Costa et al. 2013" || fail "tune-cv --help"
[ $fails = 0 ] || { echo "$fails failures"; exit 1; }
