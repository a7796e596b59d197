#!/usr/bin/env bash
# scripts/fuzz.sh's command line (issue 30, item 5): --help prints the usage and the targets of
# tests/fuzz/fuzz_targets.h without building anything; a SECONDS that is not a positive whole
# number and an unknown target are refused (exit 2) before any build, naming what was expected.
# Before the fix --help went to libFuzzer as its time limit after a full build and ran forever:
# `timeout` turns that into a failure here.
set -u
src=${HS_SOURCE_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export FUZZ_BUILD=$tmp/build FUZZ_OUT=$tmp/out
fail=0
bad() { echo "FAIL: $*"; fail=1; }

out=$(timeout 30 bash "$src/scripts/fuzz.sh" --help 2>&1); rc=$?
[ $rc -eq 0 ] || bad "--help: exit $rc, expected 0: $out"
grep -q '^usage: scripts/fuzz.sh \[SECONDS\] \[TARGET...\]' <<<"$out" || bad "--help: no usage line: $out"
# the targets it lists are the header's, each with a seed corpus
listed=$(sed -n 's/^targets (default: all): //p' <<<"$out")
header=$(sed -n '/^#define HS_FUZZ_TARGETS(X)/,/[^\\]$/p' "$src/tests/fuzz/fuzz_targets.h" |
         grep -o 'X([a-z_0-9]*)' | sed 's/^X(//; s/)$//' | tr '\n' ' ' | sed 's/ $//')
[ -n "$header" ] && [ "$listed" = "$header" ] || bad "--help lists \"$listed\", the header \"$header\""
for t in $listed; do [ -d "$src/tests/fuzz/corpus/$t" ] || bad "target $t has no tests/fuzz/corpus/$t"; done
out=$(timeout 30 bash "$src/scripts/fuzz.sh" -h 2>&1) || bad "-h: exit $?"

for arg in 1.5 -3 0 10s; do
  out=$(timeout 30 bash "$src/scripts/fuzz.sh" "$arg" 2>&1); rc=$?
  [ $rc -eq 2 ] || bad "SECONDS \"$arg\": exit $rc, expected 2: $out"
  want="SECONDS must be a positive whole number of seconds, not \"$arg\""
  grep -qF "$want" <<<"$out" || bad "SECONDS \"$arg\": message: $out"
done
out=$(timeout 30 bash "$src/scripts/fuzz.sh" 5 vtk nosuch 2>&1); rc=$?
[ $rc -eq 2 ] || bad "unknown target: exit $rc, expected 2"
grep -qF 'fuzz.sh: unknown target "nosuch"; available: config ' <<<"$out" || bad "unknown target: message: $out"
[ ! -e "$tmp/build" ] || bad "a refused command line configured $FUZZ_BUILD"
exit $fail
