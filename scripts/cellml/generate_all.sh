#!/usr/bin/env bash
# Regenerate every committed model generated from CellML (fem/models/*.h), from the repository root
# with the CellML files in ../shared/data/cellml (the Chaste collection: ../shared/data/README.md).
# tests/fem/models/test_cellml_regen.py checks the committed files against these commands.
set -euo pipefail
C=../shared/data/cellml
G="python3 scripts/cellml/generate.py"
TP="ten Tusscher & Panfilov 2006, Am. J. Physiol. Heart Circ. Physiol. 291:H1088-H1100"
for t in epi endo M; do
  l=$(echo "$t" | tr 'A-Z' 'a-z')
  $G --id ten_tusscher_2006_$l --prefix tp06$l \
     --summary "ten Tusscher-Panfilov 2006 human ventricular model, $t cell (19 states; generated from CellML)" \
     --reference "$TP" $C/ten_tusscher_model_2006_$t.cellml > fem/models/ten_tusscher_2006_$l.h
done
$G --id ohara_rudy_2011 --prefix ord \
   --summary "O'Hara-Rudy 2011 human ventricular model (41 states; generated from CellML); presets endo, epi, M" \
   --reference "O'Hara, Virag, Varro & Rudy 2011, PLoS Comput. Biol. 7:e1002061" \
   --preset endo=$C/ohara_rudy_2011_endo.cellml --preset epi=$C/ohara_rudy_2011_epi.cellml \
   --preset M=$C/ohara_rudy_2011_endo.cellml --preset-set M:celltype=2 \
   --preset-meaning "endo=endocardial cell, celltype = 0 (the defaults)" \
   --preset-meaning "epi=epicardial cell, celltype = 1" \
   --preset-meaning "M=midmyocardial (M) cell, celltype = 2 (the constants of the endo file otherwise)" \
   $C/ohara_rudy_2011_endo.cellml > fem/models/ohara_rudy_2011.h
$G --id courtemanche_1998 --prefix crn \
   --summary "Courtemanche-Ramirez-Nattel 1998 human atrial model (21 states; generated from CellML)" \
   --reference "Courtemanche, Ramirez & Nattel 1998, Am. J. Physiol. 275:H301-H321" \
   $C/courtemanche_ramirez_nattel_1998.cellml > fem/models/courtemanche_1998.h
