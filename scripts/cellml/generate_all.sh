#!/usr/bin/env bash
# Regenerate every committed model generated from CellML (fem/models/*.h), from the repository root
# with the CellML files in ../shared/data/cellml (the Chaste collection: ../shared/data/README.md).
# tests/fem/models/test_cellml_regen.py checks the committed files against these commands.
set -euo pipefail
C=../shared/data/cellml
G="python3 scripts/cellml/generate.py"
TP="ten Tusscher & Panfilov 2006, Am. J. Physiol. Heart Circ. Physiol. 291:H1088-H1100"
# --d-default: model.d_iso,d_ani (mm^2/ms) for 0.6 / 0.3 m/s at h = 0.5 mm, dt = 0.1 ms under splitting,
# found by `heartsim tune-cv` (docs/config.md, "The default D depends on the model")
declare -A D=([epi]=0.03813,0.07650 [endo]=0.03903,0.07913 [M]=0.03988,0.08099)
for t in epi endo M; do
  l=$(echo "$t" | tr 'A-Z' 'a-z')
  $G --id ten_tusscher_2006_$l --prefix tp06$l --d-default ${D[$t]} \
     --summary "ten Tusscher-Panfilov 2006 human ventricular model, $t cell (19 states; generated from CellML)" \
     --reference "$TP" $C/ten_tusscher_model_2006_$t.cellml > fem/models/ten_tusscher_2006_$l.h
done
$G --id ohara_rudy_2011 --prefix ord --d-default 0.1001,0.1511 \
   --summary "O'Hara-Rudy 2011 human ventricular model (41 states; generated from CellML); presets endo, epi, M" \
   --reference "O'Hara, Virag, Varro & Rudy 2011, PLoS Comput. Biol. 7:e1002061" \
   --preset endo=$C/ohara_rudy_2011_endo.cellml --preset epi=$C/ohara_rudy_2011_epi.cellml \
   --preset M=$C/ohara_rudy_2011_endo.cellml --preset-set M:celltype=2 \
   --preset-meaning "endo=endocardial cell, celltype = 0 (the defaults)" \
   --preset-meaning "epi=epicardial cell, celltype = 1" \
   --preset-meaning "M=midmyocardial (M) cell, celltype = 2 (the constants of the endo file otherwise)" \
   $C/ohara_rudy_2011_endo.cellml > fem/models/ohara_rudy_2011.h
$G --id courtemanche_1998 --prefix crn --d-default 0.05438,0.1133 \
   --summary "Courtemanche-Ramirez-Nattel 1998 human atrial model (21 states; generated from CellML)" \
   --reference "Courtemanche, Ramirez & Nattel 1998, Am. J. Physiol. 275:H301-H321" \
   $C/courtemanche_ramirez_nattel_1998.cellml > fem/models/courtemanche_1998.h
