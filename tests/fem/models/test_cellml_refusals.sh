#!/usr/bin/env bash
# The generator's refusals (scripts/cellml/generate.py, docs/models.md): three small CellML 1.0 files
# written here, each refused with exit 1 and a message naming the variable: an algebraic loop, an
# equation that depends on time once the stimulus is gone, no membrane potential.
# usage: test_cellml_refusals.sh SOURCE_DIR   (exit 77 = skipped: python3 cannot import myokit)
set -euo pipefail
src=$1
python3 -c 'import myokit' 2>/dev/null || { echo "skipped: python3 cannot import myokit"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
python3 - <<'PY'
T = '''<?xml version="1.0"?>
<model name="%s" xmlns="http://www.cellml.org/cellml/1.0#" xmlns:cellml="http://www.cellml.org/cellml/1.0#" xmlns:cmeta="http://www.cellml.org/metadata/1.0#">
 <units name="ms"><unit prefix="milli" units="second"/></units>
 <units name="mV"><unit prefix="milli" units="volt"/></units>
 <units name="mV_per_ms"><unit units="mV"/><unit exponent="-1" units="ms"/></units>
 <component name="c">
  <variable name="time" units="ms"%s/>
  <variable name="V" units="mV" initial_value="-80"%s/>
  <variable name="a" units="mV_per_ms"/>
  <variable name="b" units="mV_per_ms"/>
  <math xmlns="http://www.w3.org/1998/Math/MathML">
   <apply><eq/><apply><diff/><bvar><ci>time</ci></bvar><ci>V</ci></apply><apply><plus/><ci>a</ci><ci>b</ci></apply></apply>
   %s
  </math>
 </component>
</model>
'''
ann_t = ' cmeta:id="time"'
ann_v = ' cmeta:id="V"'
rdf = ''
# the ordinary pieces: a = -(V + 80)/10 mV/ms, b = 0
A = '<apply><eq/><ci>a</ci><apply><divide/><apply><minus/><apply><minus/><ci>V</ci></apply><cn cellml:units="mV">80</cn></apply><cn cellml:units="ms">10</cn></apply></apply>'
B0 = '<apply><eq/><ci>b</ci><cn cellml:units="mV_per_ms">0</cn></apply>'
loop = '<apply><eq/><ci>a</ci><ci>b</ci></apply><apply><eq/><ci>b</ci><apply><plus/><ci>a</ci><cn cellml:units="mV_per_ms">1</cn></apply></apply>'
tdep = A + B0 + '<apply><eq/><apply><diff/><bvar><ci>time</ci></bvar><ci>y</ci></apply><apply><divide/><ci>time</ci><cn cellml:units="ms">1000</cn></apply></apply>'
open('loop.cellml', 'w').write(T % ('loop', '', '', loop))
open('time_dependent.cellml', 'w').write((T % ('tdep', '', '', tdep)).replace('<variable name="a"', '<variable name="y" units="dimensionless" initial_value="0"/>\n  <variable name="a"'))
open('no_potential.cellml', 'w').write((T % ('nov', '', '', A + B0)).replace('name="V" units="mV"', 'name="x" units="dimensionless"').replace('<ci>V</ci>', '<ci>x</ci>').replace('units="mV_per_ms"', 'units="dimensionless"').replace('cellml:units="mV"', 'cellml:units="dimensionless"').replace('cellml:units="ms"', 'cellml:units="dimensionless"').replace('cellml:units="mV_per_ms"', 'cellml:units="dimensionless"'))
PY
fail=0
expect() { # FILE MESSAGE
  if python3 "$src/scripts/cellml/generate.py" --id x --prefix x "$1" >out.h 2>err.txt; then
    echo "$1: accepted, expected a refusal"; fail=1
  elif ! grep -qF "$2" err.txt; then
    echo "$1: message does not contain \"$2\":"; cat err.txt; fail=1
  fi
}
expect loop.cellml "generate.py: refused: loop.cellml: algebraic loop (a variable defined through itself; heartsim needs explicit equations): Cyclical reference found: (c."
expect time_dependent.cellml "generate.py: refused: time_dependent.cellml: the equations depend on c.time (bound to time) once the stimulus is removed: c.y"
expect no_potential.cellml "generate.py: refused: no_potential.cellml: no membrane potential found: annotate it with oxmeta \"membrane_voltage\""
expect missing.cellml "generate.py: refused: missing.cellml: no such file"
exit $fail
