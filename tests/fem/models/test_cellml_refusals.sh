#!/usr/bin/env bash
# The generator's refusals (scripts/cellml/generate.py, docs/models.md "What the generator refuses"):
# small CellML 1.0 files written here, each refused with exit 1 and the message of the docs' table,
# naming the file and the variable: an algebraic loop, an equation that depends on time once the
# stimulus is gone, no membrane potential, no time variable, a potential that is not a state, a
# potential whose units do not convert to mV, a derivative used inside another equation, two files
# given as presets whose equations differ (each accepted alone), a file that is not CellML, no file.
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
# the files of the other refusals
python3 - <<'PY'
HEAD = '''<?xml version="1.0"?>
<model name="%s" xmlns="http://www.cellml.org/cellml/1.0#" xmlns:cellml="http://www.cellml.org/cellml/1.0#" xmlns:cmeta="http://www.cellml.org/metadata/1.0#">
 <units name="ms"><unit prefix="milli" units="second"/></units>
 <units name="mV"><unit prefix="milli" units="volt"/></units>
 <units name="mV_per_ms"><unit units="mV"/><unit exponent="-1" units="ms"/></units>
 <component name="c">
%s
  <math xmlns="http://www.w3.org/1998/Math/MathML">
%s
  </math>
 </component>
%s</model>
'''
RDF = '''  <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:bqbiol="http://biomodels.net/biology-qualifiers/">
   <rdf:Description rdf:about="#V"><bqbiol:is rdf:resource="https://chaste.comlab.ox.ac.uk/cellml/ns/oxford-metadata#membrane_voltage"/></rdf:Description>
  </rdf:RDF>
'''
def ode(x, rhs): return '<apply><eq/><apply><diff/><bvar><ci>time</ci></bvar><ci>%s</ci></apply>%s</apply>' % (x, rhs)
def eq(x, rhs): return '<apply><eq/><ci>%s</ci>%s</apply>' % (x, rhs)
def cn(v, u): return '<cn cellml:units="%s">%s</cn>' % (u, v)
def decay(x, u): return '<apply><divide/><apply><minus/><apply><minus/><ci>%s</ci></apply>%s</apply>%s</apply>' % (x, cn(80, u), cn(10, 'ms'))
def write(name, variables, math, rdf=''): open(name + '.cellml', 'w').write(HEAD % (name, variables, math, rdf))
TV = '  <variable name="time" units="ms"/>\n  <variable name="V" units="mV" initial_value="-80"/>\n'
Y = '  <variable name="y" units="mV" initial_value="0"/>\n'
# nothing is integrated, so nothing is bound to time
write('no_time', '  <variable name="V" units="mV"/>', eq('V', cn(-80, 'mV')))
# V algebraic, y an ODE
write('v_algebraic', '  <variable name="time" units="ms"/>\n  <variable name="V" units="mV"/>\n' + Y,
      eq('V', cn(-80, 'mV')) + ode('y', decay('y', 'mV')))
# V in ampere, annotated as the membrane potential (oxmeta): its units are what is refused
write('v_ampere', '  <variable name="time" units="ms"/>\n  <variable name="V" cmeta:id="V" units="ampere" initial_value="-80"/>',
      ode('V', '<apply><divide/><apply><minus/><apply><minus/><ci>V</ci></apply>%s</apply>%s</apply>' % (cn(80, 'ampere'), cn(10, 'ms'))), RDF)
# V' = -(V + 80)/10 + a with a = dy/dt
write('derivative_used', TV + Y + '  <variable name="a" units="mV_per_ms"/>',
      ode('V', '<apply><plus/>%s<ci>a</ci></apply>' % decay('V', 'mV')) + ode('y', decay('y', 'mV')) +
      eq('a', '<apply><diff/><bvar><ci>time</ci></bvar><ci>y</ci></apply>'))
# presets: V' = -(V + 80)/10 against V' = -(V + 80)/10 - (V + 80)/20
write('base', TV, ode('V', decay('V', 'mV')))
write('other', TV, ode('V', '<apply><minus/>%s<apply><divide/><apply><plus/><ci>V</ci>%s</apply>%s</apply></apply>'
                       % (decay('V', 'mV'), cn(80, 'mV'), cn(20, 'ms'))))
open('not_cellml.cellml', 'w').write('<?xml version="1.0"?>\n<html><body>not a model</body></html>\n')
PY
fail=0
expect() { # "[OPTIONS] FILE" MESSAGE
  # shellcheck disable=SC2086 # $1 may hold options before the file
  if python3 "$src/scripts/cellml/generate.py" --id x --prefix x $1 >out.h 2>err.txt; then
    echo "$1: accepted, expected a refusal"; fail=1
  elif ! grep -qF "$2" err.txt; then
    echo "$1: message does not contain \"$2\":"; cat err.txt; fail=1
  fi
}
expect loop.cellml "generate.py: refused: loop.cellml: algebraic loop (a variable defined through itself; heartsim needs explicit equations): Cyclical reference found: (c."
expect time_dependent.cellml "generate.py: refused: time_dependent.cellml: the equations depend on c.time (bound to time) once the stimulus is removed: c.y"
expect no_potential.cellml "generate.py: refused: no_potential.cellml: no membrane potential found: annotate it with oxmeta \"membrane_voltage\""
expect missing.cellml "generate.py: refused: missing.cellml: no such file"
expect no_time.cellml 'generate.py: refused: no_time.cellml: no time variable (a variable bound to time: oxmeta "time", CellML the free variable)'
expect v_algebraic.cellml "generate.py: refused: v_algebraic.cellml: the membrane potential c.V is not a state variable"
expect v_ampere.cellml "generate.py: refused: v_ampere.cellml: the membrane potential c.V is in [A], which does not convert to mV: Unable to convert from [A] to [mV]"
expect derivative_used.cellml "generate.py: refused: derivative_used.cellml: c.a uses the derivative of c.y: not supported (write it through the derivative's right-hand side)"
expect not_cellml.cellml "generate.py: refused: not_cellml.cellml: myokit cannot read it as a CellML model: Unknown CellML version or not a CellML document"
for f in base other; do
  python3 "$src/scripts/cellml/generate.py" --id x --prefix x $f.cellml >out.h 2>err.txt || { echo "$f.cellml refused alone:"; cat err.txt; fail=1; }
done
expect "--preset a=base.cellml --preset b=other.cellml base.cellml" 'generate.py: refused: other.cellml: preset b: its equations differ from base.cellml (first difference: "const double dot_V = (-hs_u - 80.0) * 0.1 - (hs_u + 80.0) * 0.05;" against "const double dot_V = (-hs_u - 80.0) * 0.1;"); generate it as a model of its own'
exit $fail
