#!/usr/bin/env python3
"""The generator's faster forms (scripts/cellml/generate.py, CWriter; issue 29): pow() with a constant
exponent -1, +-0.5, 1.5 or 2..8 is written without pow, and a division by a literal constant as a
multiplication by its reciprocal; each emitted expression is evaluated here (its C is also Python) at
x over 1e-4..1e4 and compared with the written form, pow(x, e) or x / c, evaluated once (one rounding).

Bound, derived: the emitted form takes m roundings (m = 1 for 1/x and sqrt, 2 for 1/sqrt(x), x sqrt(x)
and x * fl(1/c), k - 1 for x^k: the products of its tree counted with multiplicity, since the squaring
of 5..8 multiplies a computed x^4 by itself and so doubles its error), each a relative error of at most
u = 2^-53, and the written form one more (libm's pow is within 1 ulp = 2u): the two
differ by at most (m + 2) u relative (first order; m u^2 terms are far below). Usage:
test_cellml_codegen.py SOURCE_DIR; exit 77 without myokit.
"""
import math
import os
import random
import sys

try:
    import myokit
except ImportError:
    print('skipped: python3 cannot import myokit')
    sys.exit(77)

sys.path.insert(0, os.path.join(sys.argv[1], 'scripts', 'cellml'))
import generate  # noqa: E402

U = 2.0 ** -53
model = myokit.parse_model('[[model]]\nc.x = 1\n[engine]\ntime = 0 bind time\n[c]\ndot(x) = -x\n')
x = model.get('c.x')
w = generate.CWriter()
w.set_lhs_function(lambda e: 'x')
fails = 0
rng = random.Random(29)
xs = [10.0 ** rng.uniform(-4, 4) for _ in range(2000)]
env = {'sqrt': math.sqrt, 'exp': math.exp}
cases = []
for ev, m in ((-1.0, 1), (0.5, 1), (-0.5, 2), (1.5, 2), (2.0, 1), (3.0, 2), (4.0, 3), (5.0, 4), (6.0, 5), (7.0, 6),
              (8.0, 7)):
    ex = myokit.PrefixMinus(myokit.Number(-ev)) if ev < 0 else myokit.Number(ev)  # CellML writes -1 as minus(1)
    cases.append(('pow(x, %g)' % ev, myokit.Power(myokit.Name(x), ex), lambda v, ev=ev: math.pow(v, ev), m))
for c in (3.7, 0.2154, 18.34, 6.086, 1e-15):
    cases.append(('x / %g' % c, myokit.Divide(myokit.Name(x), myokit.Number(c)), lambda v, c=c: v / c, 2))
for what, e, ref, m in cases:
    code = w.ex(e)
    if 'pow(' in code or ('/' in what and '/' in code):
        print('%s: written as %s (a pow or a division remains)' % (what, code))
        fails += 1
        continue
    worst = 0.0
    for v in xs:
        got = eval(code, dict(env, x=v))
        want = ref(v)
        err = abs(got - want) / abs(want)
        worst = max(worst, err / U)
        if err > (m + 2) * U:
            print('%s = %s at x = %.17g: %.17g against %.17g, %.3g u > %d u' % (what, code, v, got, want, err / U, m + 2))
            fails += 1
            break
    if len(sys.argv) > 2:
        print('%-14s -> %-60s largest difference %.2f u (bound %d u)' % (what, code[:60], worst, m + 2))
sys.exit(1 if fails else 0)
