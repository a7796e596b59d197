#!/usr/bin/env python3
"""The generator reads CellML 2.0 as it reads 1.0 (issue 29: "reads a CellML file (1.0 and 2.0)").

The ten Tusscher 2006 epi file (CellML 1.0) is written as CellML 2.0 by myokit's exporter (another
document: the 2.0 namespace, its own component order, no oxmeta RDF), and scripts/cellml/generate.py
turns each file into a header. The two headers must hold the same model: after the provenance lines
(command, checksum), the oxmeta notes of the descriptions (the 2.0 export drops the RDF that carries
them) and the order of the states and parameters (each file's component order) are set aside - the
state indices hs_s[i] etc. replaced by the state's name, the lines sorted - they must be equal line
for line: the same states with the same initial values and gate flags, the same parameters with
units and defaults, and the same right-hand side statements, written alike.

usage: test_cellml_v2.py SOURCE_DIR DATA_DIR   (exit 77: no myokit or no CellML files)
"""
import os
import re
import subprocess
import sys
import tempfile

src, data = sys.argv[1], sys.argv[2]
path = os.path.join(data, 'cellml', 'ten_tusscher_model_2006_epi.cellml')
try:
    import myokit
    import myokit.formats
except ImportError:
    print('skipped: python3 cannot import myokit')
    sys.exit(77)
if not os.path.isfile(path):
    print('skipped: no %s' % path)
    sys.exit(77)

gen = os.path.join(src, 'scripts', 'cellml', 'generate.py')


def generate(cellml):
    r = subprocess.run([sys.executable, gen, '--id', 'v2check', '--prefix', 'v2c', cellml],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if r.returncode != 0:
        print('generate.py failed on %s: %s' % (cellml, r.stderr))
        sys.exit(1)
    return r.stdout


def canonical(header):
    lines = header.split('\n')
    end = lines.index(' */')  # the provenance comment: command and checksums
    body = '\n'.join(lines[end + 1:])
    body = re.sub(r' \(oxmeta [^)]*\)', '', body)
    m = re.search(r'static const hs_model_var \w+\[[^\]]*\] = \{\n(.*?)\n\};', body, re.S)
    names = [re.match(r'\s*\{"([^"]+)"', l).group(1) for l in m.group(1).split('\n')]

    def state(mm):
        i = int(mm.group(2))
        return '%s[%s]' % (mm.group(1), names[i]) if i < len(names) else mm.group(0)
    return sorted(re.sub(r'\b(hs_\w+)\[(\d+)\]', state, l) for l in body.split('\n')), len(names)


with tempfile.TemporaryDirectory() as tmp:
    v2 = os.path.join(tmp, 'ten_tusscher_model_2006_epi_v2.cellml')
    myokit.formats.exporter('cellml2').model(v2, myokit.formats.importer('cellml').model(path))
    head = open(v2).read(400)
    if 'http://www.cellml.org/cellml/2.0#' not in head:
        print('the export is not CellML 2.0: %s' % head)
        sys.exit(1)
    a, na = canonical(generate(path))
    b, nb = canonical(generate(v2))

if na != 18 or nb != 18:
    print('expected 18 state variables besides V, got %d (CellML 1.0) and %d (2.0)' % (na, nb))
    sys.exit(1)
if a != b:
    only_a = [l for l in a if l not in b][:10]
    only_b = [l for l in b if l not in a][:10]
    print('the CellML 1.0 and 2.0 files give different models:\n1.0 only:\n  %s\n2.0 only:\n  %s'
          % ('\n  '.join(only_a), '\n  '.join(only_b)))
    sys.exit(1)
