#!/usr/bin/env bash
# scripts/cellml/tissue_beats.sh in miniature on the cpu backend (issue 29's 20 beats in tissue run on
# the GPU, docs/verification.md): ten Tusscher 2006 epi on the Niederer slab at h = 1 mm, dt = 0.05 ms,
# 2 beats at BCL 1000 ms as a plane wave along the fibres: the run succeeds, every frame is finite and
# every node counts 2 beats and activates in each (beats_check.py), and the check does fail on a run
# that asks for a beat more than was paced. About 25 s on two cores. Run by hs_add_script_test.
set -euo pipefail
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hs_tissue_beats_XXXXXX")
trap 'rm -rf "$tmp"' EXIT
BEATS=2 DT=0.05 H=1.0 BACKEND=cpu bash "$HS_SOURCE_DIR/scripts/cellml/tissue_beats.sh" "$HEARTSIM" "$tmp" \
  ten_tusscher_2006_epi > "$tmp/out.txt" 2>&1 || { cat "$tmp/out.txt"; exit 1; }
grep -q '^ten_tusscher_2006_epi: result: every frame finite, every node 2 beats$' "$tmp/out.txt" ||
  { cat "$tmp/out.txt"; exit 1; }
if python3 "$HS_SOURCE_DIR/scripts/cellml/beats_check.py" "$tmp/ten_tusscher_2006_epi" niederer_tp06 --beats 3 \
     > "$tmp/three.txt" 2>&1; then
  echo "beats_check.py accepted 3 beats of a 2-beat run:"; cat "$tmp/three.txt"; exit 1
fi
exit 0
