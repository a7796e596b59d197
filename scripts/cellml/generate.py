#!/usr/bin/env python3
"""Turn a CellML cell model into a heartsim ionic model: fem/models/<id>.h with the nodal form of
the operator-splitting scheme (fem/models/hs_model_ode.h) and the model's descriptor (hs_model.h).

  python3 scripts/cellml/generate.py --id my_model --prefix mym my_model.cellml > fem/models/my_model.h

then one line `HS_MODEL_NODAL(my_model)` (and its #include) in fem/models/hs_model_list.h; docs/models.md
tells the rest. The CellML file (1.0, 1.1 or 2.0) is read by myokit (PyPI, pinned in
scripts/setup-debian.sh --cellml); docs/models.md says why myokit rather than libcellml.

What the generator does:
  - finds the time variable (bound to time), the membrane potential (oxmeta `membrane_voltage`, else
    myokit.lib.guess's heuristics) and the model's own stimulus current (oxmeta
    `membrane_stimulus_current`, else guess); converts time to ms and the potential to mV with
    myokit's unit system and checks that dV/dt is then in mV/ms; sets the stimulus to 0 (heartsim's
    stimuli drive the model);
  - every literal constant the equations use becomes a parameter (config key model.<prefix>_<name>)
    with its unit and default; derived constants are computed inside the right-hand side;
  - a state whose equation has the form (x_inf - x)/tau_x or alpha (1 - x) - beta x (myokit.lib.hh's
    shapes; here x_inf, tau_x, alpha, beta may depend on other states but not on x) is a gate,
    stepped by Rush-Larsen with (x_inf, tau_x), or (alpha/(alpha+beta), 1/(alpha+beta)); any other
    state is stepped by forward Euler with its derivative;
  - refuses, naming the variable: no time or membrane-potential annotation, a potential that is not
    a state, units that do not convert, equations that depend on time once the stimulus is gone,
    algebraic loops (cyclic definitions), a derivative used inside another equation.
With --preset NAME=FILE (repeatable) the same equations are read from several files that differ
only in constants (the ten Tusscher epi/endo/M files): one model, one preset per file, the first
preset's values the defaults; a file whose equations differ is refused. --preset-set NAME:VAR=VALUE
changes one constant of a preset (O'Hara-Rudy's celltype = 2 gives its M cell).
"""
import argparse
import hashlib
import math
import os
import re
import shlex
import sys

try:
    import myokit
    import myokit.formats
    import myokit.formats.ansic
    import myokit.lib.guess
except ImportError:  # pragma: no cover
    sys.stderr.write('generate.py: needs myokit (pip install myokit==1.39.2; scripts/setup-debian.sh --cellml)\n')
    sys.exit(2)

C_RESERVED = set('''auto break case char const continue default do double else enum extern float for goto if inline
int long register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while
exp log log10 pow sqrt fabs floor ceil sin cos tan asin acos atan sinh cosh tanh fmin fmax isfinite INFINITY NAN
M_PI main'''.split())


class Refusal(Exception):
    """A CellML file the generator cannot turn into a heartsim model; the message says why."""


def refuse(path, msg):
    raise Refusal('%s: %s' % (path, msg))


def sha256(path):
    with open(path, 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()


def unit_str(u):
    if u is None:
        return '1'
    s = str(u)
    return s[1:-1] if s.startswith('[') and s.endswith(']') else s


def c_number(x):
    s = myokit.float.str(float(x)).strip()
    if re.fullmatch(r'-?\d+', s):
        s += '.0'
    return s


def c_string(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'


def int_power(b, n):
    """b**n (n >= 2) as products by repeated squaring: x^8 = ((x^2)^2)^2, the repeated factors written out
    (the compiler evaluates an expression once; 2, 3 and 4 are b*b, b*b*b, b*b*b*b as before)."""
    if n <= 4:
        return '(' + '*'.join([b] * n) + ')'
    half = int_power(b, n // 2)
    sq = '(' + half + '*' + half + ')'
    return '(' + sq + '*' + b + ')' if n % 2 else sq


class CWriter(myokit.formats.ansic.AnsiCExpressionWriter):
    """myokit's C writer, with what a GPU evaluates faster (issue 29; each at most a few roundings from
    the written form, docs/models.md): pow() with constant exponents 2..8 as products, -1 as a
    division, +-0.5 and 1.5 through sqrt (pow is about a hundred instructions on a GPU); a division
    by a literal constant as a multiplication by its reciprocal (a double division is a reciprocal
    seed, Newton steps and a slow-path branch)."""

    def _ex_power(self, e):
        base, ex = e[0], e[1]
        if ex.is_literal():  # a number, or one with a sign (the CellML files write -1 as minus(1))
            v = float(ex.eval())
            if v in (-1.0, 0.5, -0.5, 1.5) or (v == int(v) and 2 <= v <= 8):
                b = self.ex(base)
                if not re.fullmatch(r'[A-Za-z_][A-Za-z_0-9\[\]]*|\d+(\.\d*)?', b):
                    b = '(' + b + ')'
                if v == -1.0:
                    return '(1.0 / ' + b + ')'
                if v == 0.5:
                    return 'sqrt(' + b + ')'
                if v == -0.5:
                    return '(1.0 / sqrt(' + b + '))'
                if v == 1.5:
                    return '(' + b + ' * sqrt(' + b + '))'
                return int_power(b, int(v))
        return super()._ex_power(e)

    def _ex_divide(self, e):
        d = e[1]
        if isinstance(d, myokit.Number):
            c = float(d.eval())
            if c != 0.0 and math.isfinite(c) and math.isfinite(1.0 / c):
                return self.ex(myokit.Multiply(e[0], myokit.Number(1.0 / c)))
        # (exp(z) - 1)/(exp(z) + 1), tanh written out (Bueno-Orovio's CellML), as tanh(z/2): the quotient
        # is inf/inf = NaN once exp(z) overflows (z > 709), tanh is not
        n, d = e[0], e[1]
        z = expm1_arg(n)
        if z is not None and isinstance(n[0], myokit.Exp) and isinstance(d, myokit.Plus) and \
                isinstance(d[0], myokit.Exp) and isinstance(d[1], myokit.Number) and float(d[1].eval()) == 1.0 and \
                d[0][0] == z:
            return 'tanh(0.5 * (' + self.ex(z) + '))'
        return super()._ex_divide(e)

    def _ex_minus(self, e):
        # exp(z) - 1 as expm1(z): accurate near z = 0, where GHK-type currents divide by it
        if isinstance(e[0], myokit.Exp) and isinstance(e[1], myokit.Number) and float(e[1].eval()) == 1.0:
            return 'expm1(' + self.ex(e[0][0]) + ')'
        if isinstance(e[1], myokit.Exp) and isinstance(e[0], myokit.Number) and float(e[0].eval()) == 1.0:
            return '(-expm1(' + self.ex(e[1][0]) + '))'
        return super()._ex_minus(e)


def expm1_arg(d):
    """z when d is exp(z) - 1 or 1 - exp(z), else None."""
    if isinstance(d, myokit.Minus):
        if isinstance(d[0], myokit.Exp) and isinstance(d[1], myokit.Number) and float(d[1].eval()) == 1.0:
            return d[0][0]
        if isinstance(d[1], myokit.Exp) and isinstance(d[0], myokit.Number) and float(d[0].eval()) == 1.0:
            return d[1][0]
    return None


def singular_points(eqs, vm):
    """Potentials where an unguarded x/(exp(z) - 1), z linear in V, divides 0 by 0 (GHK currents at
    V = 0 in O'Hara-Rudy): {root: [variable names]}. Divisions inside a piecewise are taken as guarded
    by the model (Courtemanche's and ten Tusscher's CellML files guard theirs)."""
    found = {}

    def walk(e, guarded, owner):
        if isinstance(e, (myokit.If, myokit.Piecewise)):
            guarded = True
        if isinstance(e, myokit.Divide) and not guarded:
            z = expm1_arg(e[1])
            if z is not None:
                try:
                    zx = z.clone(expand=True, retain=(vm,))
                    vals = [float(zx.clone(subst={myokit.Name(vm): myokit.Number(x)}).eval()) for x in (0.0, 1.0, 2.0)]
                except Exception:
                    vals = None
                if vals and vals[1] != vals[0] and abs((vals[2] - vals[1]) - (vals[1] - vals[0])) <= \
                        1e-9 * abs(vals[1] - vals[0]):
                    root = -vals[0] / (vals[1] - vals[0])
                    found.setdefault(round(root, 9) + 0.0, []).append(owner)
        for c in e:
            walk(c, guarded, owner)

    for eq in eqs:
        walk(eq.rhs, False, eq.lhs.var().name())
    return found


def state_deps(expr, memo):
    """The states an expression depends on (through any chain of intermediate variables)."""
    out = set()
    for ref in expr.references():
        if isinstance(ref, myokit.Derivative):
            out.add(('dot', ref.var()))
            continue
        v = ref.var()
        if v.is_state() or v.is_bound():
            out.add(v)
            continue
        if v not in memo:
            memo[v] = set()  # cycles are refused before this
            memo[v] = state_deps(v.rhs(), memo)
        out |= memo[v]
    return out


def gate_form(x, memo):
    """(kind, e1, e2): ('inf_tau', x_inf, tau) or ('alpha_beta', alpha, beta), or None."""
    rhs = x.rhs()
    xn = myokit.Name(x)
    form = None
    if isinstance(rhs, myokit.Divide) and isinstance(rhs[0], myokit.Minus) and rhs[0][1] == xn:
        form = ('inf_tau', rhs[0][0], rhs[1])
    elif isinstance(rhs, myokit.Minus) and isinstance(rhs[0], myokit.Multiply) and isinstance(rhs[1], myokit.Multiply):
        a, b = rhs
        one_minus = myokit.Minus(myokit.Number(1), xn)
        alpha = a[1] if a[0] == one_minus else a[0] if a[1] == one_minus else None
        beta = b[1] if b[0] == xn else b[0] if b[1] == xn else None
        if alpha is not None and beta is not None:
            form = ('alpha_beta', alpha, beta)
    if form is None:
        return None
    for e in form[1:]:
        d = state_deps(e, memo)
        if x in d or any(isinstance(t, tuple) for t in d):
            return None
    return form


def load(path, overrides=()):
    """Read and prepare one CellML file; returns a dict describing the model."""
    if not os.path.isfile(path):
        refuse(path, 'no such file')
    try:
        model = myokit.formats.importer('cellml').model(path)
    except Exception as e:  # myokit's own message names the construct
        refuse(path, 'myokit cannot read it as a CellML model: %s' % e)
    if model.time() is None:  # before validate(), whose message for this case names no CellML concept
        refuse(path, 'no time variable (a variable bound to time: oxmeta "time", CellML the free variable)')
    try:
        model.validate()
    except myokit.CyclicalDependencyError as e:
        refuse(path, 'algebraic loop (a variable defined through itself; heartsim needs explicit equations): %s' % e)
    except myokit.IntegrityError as e:
        refuse(path, 'not a valid model: %s' % e)

    for spec in overrides:
        name, value = spec
        var = find_var(model, name)
        if var is None or not var.is_literal():
            refuse(path, '--preset-set: %s is not a constant of this model' % name)
        var.set_rhs(myokit.Number(float(value), var.unit()))

    time = model.time()
    vm = myokit.lib.guess.membrane_potential(model)
    if vm is None:
        refuse(path, 'no membrane potential found: annotate it with oxmeta "membrane_voltage" '
               '(or name it V, Vm or membrane_potential)')
    if not vm.is_state():
        refuse(path, 'the membrane potential %s is not a state variable' % vm.qname())
    for var, unit, what in ((time, 'ms', 'time'), (vm, 'mV', 'membrane potential')):
        if var.unit() is None:
            refuse(path, 'the %s %s has no units (heartsim needs %s)' % (what, var.qname(), unit))
        try:
            if var.unit() != myokit.parse_unit(unit):
                var.convert_unit(unit)
        except myokit.IncompatibleUnitError as e:
            refuse(path, 'the %s %s is in %s, which does not convert to %s: %s' % (what, var.qname(),
                                                                                 var.unit(), unit, e))
    stim = myokit.lib.guess.stimulus_current(model)
    stim_name = None
    if stim is not None:
        stim_name = stim.qname()
        zero = {myokit.Name(stim): myokit.Number(0, stim.unit())}
        for user in list(stim.refs_by()):
            user.set_rhs(user.rhs().clone(subst=zero))
    dvdt_unit = vm.rhs().eval_unit(myokit.UNIT_TOLERANT)
    want = myokit.parse_unit('mV/ms')
    if dvdt_unit is not None and not myokit.Unit.can_convert(dvdt_unit, want):
        refuse(path, 'dV/dt of %s is in %s, not in mV/ms (a current density over the capacitance)' % (vm.qname(), dvdt_unit))
    if dvdt_unit is not None and abs(myokit.Unit.conversion_factor(dvdt_unit, want).value() - 1.0) > 1e-12:
        refuse(path, 'dV/dt of %s is in %s: a factor %s from mV/ms' % (vm.qname(), dvdt_unit,
                                                                    myokit.Unit.conversion_factor(dvdt_unit, want)))
    unit_warning = None
    try:
        model.check_units(myokit.UNIT_TOLERANT)
    except myokit.IncompatibleUnitError as e:
        unit_warning = str(e).splitlines()[0]

    states = list(model.states())
    eqs, args = model.expressions_for(*states)
    for a in args:
        a = a.var() if isinstance(a, myokit.Name) else a
        if a.is_bound() and not a.is_state():
            users = [eq.lhs.var().qname() for eq in eqs if any(r.var() is a for r in eq.rhs.references()
                                                              if isinstance(r, myokit.Name))]
            refuse(path, 'the equations depend on %s (bound to %s) once the stimulus is removed: %s; heartsim\'s '
                   'nodal form is autonomous (the stimulus comes from the config)' % (a.qname(), a.binding(),
                                                                                  ', '.join(users) or '?'))
    for eq in eqs:
        for r in eq.rhs.references():
            if isinstance(r, myokit.Derivative):
                refuse(path, '%s uses the derivative of %s: not supported (write it through the derivative\'s '
                       'right-hand side)' % (eq.lhs.var().qname(), r.var().qname()))
        for op in eq.rhs.walk():
            if isinstance(op, (myokit.PartialDerivative, myokit.InitialValue)):
                refuse(path, '%s: unsupported construct %s' % (eq.lhs.var().qname(), type(op).__name__))

    memo = {}
    gates = {}
    for x in states:
        if x is vm:
            continue
        g = gate_form(x, memo)
        if g is not None:
            gates[x] = g
    return dict(path=path, model=model, vm=vm, time=time, stim=stim_name, states=states, eqs=eqs, gates=gates,
                unit_warning=unit_warning)


def find_var(model, name):
    if '.' in name:
        try:
            return model.get(name)
        except KeyError:
            return None
    found = [v for v in model.variables(deep=True) if v.name() == name]
    return found[0] if len(found) == 1 else None


def meaning_of(var):
    ox = var.meta.get('oxmeta') if hasattr(var, 'meta') else None
    return var.qname() + (' (oxmeta %s)' % ox if ox else '')


def build(info, prefix, model_id):
    """Names, parameters, the C body. Everything that must agree between presets is in 'body'."""
    model, vm, states, eqs, gates = info['model'], info['vm'], info['states'], info['eqs'], info['gates']
    # C names of the locals: the CellML name, or component_name where two components share it
    counts = {}
    for eq in eqs:
        if isinstance(eq.lhs, myokit.Name):
            counts[eq.lhs.var().name()] = counts.get(eq.lhs.var().name(), 0) + 1
    cname = {}
    taken = set()
    for eq in eqs:
        if not isinstance(eq.lhs, myokit.Name):
            continue
        v = eq.lhs.var()
        n = v.name() if counts[v.name()] == 1 else v.parent().name() + '_' + v.name()
        n = re.sub(r'[^A-Za-z0-9_]', '_', n)
        if n in C_RESERVED or n.startswith('hs_') or n in taken:
            n = 'v_' + n
        while n in taken:
            n += '_'
        taken.add(n)
        cname[v] = n
    # parameters: the literal constants the equations use, in the order they appear
    params = []
    pkeys = {}
    lower_taken = set()
    for eq in eqs:
        if isinstance(eq.lhs, myokit.Name) and eq.lhs.var().is_literal() and eq.lhs.var().is_constant():
            v = eq.lhs.var()
            key = prefix + '_' + re.sub(r'[^a-z0-9_]', '_', v.name().lower())
            if key in lower_taken:
                key = prefix + '_' + re.sub(r'[^a-z0-9_]', '_', (v.parent().name() + '_' + v.name()).lower())
            while key in lower_taken:
                key += '_'
            lower_taken.add(key)
            pkeys[v] = key
            params.append(v)
    sidx = {}
    k = 0
    for x in states:
        if x is not vm:
            sidx[x] = k
            k += 1
    enum_of = {v: 'HS_%s_%s' % (prefix.upper(), re.sub(r'[^A-Za-z0-9]', '_', pkeys[v][len(prefix) + 1:]).upper())
               for v in params}

    def lhs(e):
        v = e.var()
        if isinstance(e, myokit.Derivative):
            raise AssertionError
        if v is vm:
            return 'hs_v' if roots else 'hs_u'
        if v in sidx:
            return 'hs_s[%d]' % sidx[v]
        return cname[v]

    roots = singular_points(eqs, vm)
    w = CWriter()
    w.set_lhs_function(lhs)

    # Every local is a named item (its C line and the items it reads); the outputs pull them in on
    # demand (order_items): a local is written just before its first use, so few values are live at
    # once. The C statements have no side effects, so the order changes no result; on the GPU it
    # decides the registers the nodal kernel needs (docs/benchmarks.md, issue 29).
    items = {}
    item_order = []

    def deps_of(*exprs):
        out = []
        for e in exprs:
            for ref in e.references():
                v = ref.var()
                n = 'hs_v' if (v is vm and roots) else cname.get(v) if v not in sidx and v is not vm else None
                if n is not None and n not in out:
                    out.append(n)
        return sorted(out, key=item_order.index)  # references() is a set: the equations' order, not its

    def add_item(name, line, deps):
        items[name] = (line, deps)
        item_order.append(name)

    if roots:
        add_item('hs_v', ['    /* x/(exp(z) - 1) with z = 0 at V = %s mV (%s): evaluated 1e-10 mV away there */' % (
            ', '.join(c_number(r) for r in sorted(roots)), ', '.join(sorted(set(sum(roots.values(), []))))),
            '    const double hs_v = (%s) ? hs_u + 1e-10 : hs_u;' % ' || '.join(
                'hs_u == %s' % c_number(r) for r in sorted(roots))], [])
    for v in params:
        add_item(cname[v], ['    const double %s = hs_p[%s];' % (cname[v], enum_of[v])], [])
    dot = {}
    for eq in eqs:
        if isinstance(eq.lhs, myokit.Derivative):
            x = eq.lhs.var()
            if x in gates:
                continue
            dot[x] = 'dot_' + (cname.get(x) or re.sub(r'[^A-Za-z0-9_]', '_', x.name()))
            add_item(dot[x], ['    const double %s = %s;' % (dot[x], w.ex(eq.rhs))], deps_of(eq.rhs))
        else:
            v = eq.lhs.var()
            if v in pkeys:
                continue
            add_item(cname[v], ['    const double %s = %s;' % (cname[v], w.ex(eq.rhs))], deps_of(eq.rhs))
    # outputs: (deps, lines of the nodal form hs_model_rhs_<id>, lines of the fused substep hs_model_substep_<id>)
    # in this order: dV/dt (it needs every current), the other variables' derivatives (the currents again,
    # which then die), the gates one by one (steady state, time constant, update: mostly of V alone)
    outputs = [([dot[vm]], ['    *hs_f = %s;' % dot[vm]], ['    *hs_f = %s;' % dot[vm]])]
    for x in states:
        if x is vm or x in gates:
            continue
        k = sidx[x]
        outputs.append(([dot[x]], ['    hs_a[%d] = %s; /* d%s/dt */' % (k, dot[x], x.name()), '    hs_tau[%d] = 0.0;' % k],
                        ['    hs_sn[%d] = hs_s[%d] + hs_h * %s; /* %s */' % (k, k, dot[x], x.name())]))
    for x in states:
        if x is vm or x not in gates:
            continue
        k = sidx[x]
        kind, e1, e2 = gates[x]
        if kind == 'inf_tau':
            ea, et = w.ex(e1), w.ex(e2)
            rhs = ['    hs_a[%d] = %s; /* %s: steady state */' % (k, ea, x.name()), '    hs_tau[%d] = %s;' % (k, et)]
        else:
            ea = '(%s) / ((%s) + (%s))' % (w.ex(e1), w.ex(e1), w.ex(e2))
            et = '1.0 / ((%s) + (%s))' % (w.ex(e1), w.ex(e2))
            rhs = ['    hs_a[%d] = %s; /* %s: alpha/(alpha+beta) */' % (k, ea, x.name()), '    hs_tau[%d] = %s;' % (k, et)]
        # hs_model_ode_vars's expression, word for word (a gate whose tau is not > 0 is stepped as it steps it)
        sub = ['    { /* %s: Rush-Larsen */' % x.name(),
               '        const double hs_ak = %s;' % ea,
               '        const double hs_tk = %s;' % et,
               '        hs_sn[%d] = hs_tk > 0.0 ? hs_ak + (hs_s[%d] - hs_ak) * exp(-hs_h / hs_tk) : hs_s[%d] + hs_h * hs_ak;'
               % (k, k, k),
               '    }']
        outputs.append((deps_of(e1, e2), rhs, sub))

    def order_items():
        done = set()
        seq = []

        def need(n):
            if n in done:
                return
            done.add(n)
            for d in items[n][1]:
                need(d)
            seq.append(n)

        per_output = []
        for deps, _, _ in outputs:
            first = len(seq)
            for d in deps:
                need(d)
            per_output.append(seq[first:])
        return per_output

    body, substep = [], []
    for (deps, rhs_lines, sub_lines), locals_ in zip(outputs, order_items()):
        for n in locals_:
            body.extend(items[n][0])
            substep.extend(items[n][0])
        body.extend(rhs_lines)
        substep.extend(sub_lines)
    # variables: names unique within the model, not V nor a read-out
    vnames = []
    vcount = {}
    for x in states:
        vcount[x.name()] = vcount.get(x.name(), 0) + 1
    for x in states:
        if x is vm:
            continue
        n = x.name() if vcount[x.name()] == 1 else x.parent().name() + '_' + x.name()
        n = re.sub(r'[^A-Za-z0-9_]', '_', n)
        if n in ('V', 'activation', 'apd', 'repolarisation', 'ecg') or n in vnames:
            n = x.parent().name() + '_' + n
        if len(n) >= 32:
            n = n[:31]
        vnames.append(n)
    return dict(params=params, pkeys=pkeys, enum_of=enum_of, body=body, substep=substep, vnames=vnames, sidx=sidx)


def describe_value(v):
    return float(v.rhs().eval())


def main(argv):
    ap = argparse.ArgumentParser(
        prog='scripts/cellml/generate.py',
        description='Write a heartsim ionic model (fem/models/<id>.h, the splitting scheme\'s nodal form) from a '
                    'CellML file. The header goes to standard output.',
        epilog='Example: python3 scripts/cellml/generate.py --id my_model --prefix mym my.cellml > '
               'fem/models/my_model.h; then add HS_MODEL_NODAL(my_model) and #include "my_model.h" to '
               'fem/models/hs_model_list.h (docs/models.md).')
    ap.add_argument('source', help='the CellML file (1.0, 1.1 or 2.0) whose constants are the defaults')
    ap.add_argument('--id', required=True, help='model.type value and file name: lower_snake, < 32 characters')
    ap.add_argument('--prefix', required=True, help='prefix of the parameters\' config keys (model.<prefix>_<name>)')
    ap.add_argument('--summary', default=None, help='one line for the model list')
    ap.add_argument('--reference', default=None, help='the paper (cited in the descriptor)')
    ap.add_argument('--preset', action='append', default=[], metavar='NAME=FILE',
                    help='a preset from FILE (same equations, other constants); the first must be SOURCE')
    ap.add_argument('--preset-set', action='append', default=[], metavar='NAME:VAR=VALUE',
                    help='set constant VAR (name or component.name) of preset NAME')
    ap.add_argument('--preset-meaning', action='append', default=[], metavar='NAME=TEXT',
                    help='one line describing preset NAME')
    ap.add_argument('--d-default', default=None, metavar='D_ISO,D_ANI',
                    help='the model\'s default diffusion (mm^2/ms; hs_model.d_default): the model.d_iso and d_ani '
                         'that `heartsim tune-cv` finds for 0.6 / 0.3 m/s at h = 0.5 mm and the default time.dt '
                         '(docs/config.md); without it the model has none (the shared 0.3 / 0.9, with a warning)')
    a = ap.parse_args(argv)
    if not re.fullmatch(r'[a-z][a-z0-9_]{0,30}', a.id):
        ap.error('--id: lower_snake, at most 31 characters')
    if not re.fullmatch(r'[a-z][a-z0-9]{0,9}', a.prefix):
        ap.error('--prefix: lower case letters and digits, at most 10')

    d_default = None
    if a.d_default is not None:
        try:
            d_default = [float(x) for x in a.d_default.split(',')]
        except ValueError:
            d_default = []
        if len(d_default) != 2 or not all(x > 0 and math.isfinite(x) for x in d_default):
            ap.error('--d-default %s: expected D_ISO,D_ANI, two numbers > 0 (mm^2/ms)' % a.d_default)
    a.d_default = d_default

    presets = []
    for p in a.preset:
        if '=' not in p:
            ap.error('--preset %s: expected NAME=FILE' % p)
        presets.append(p.split('=', 1))
    sets = {}
    for s in a.preset_set:
        m = re.fullmatch(r'([^:]+):([^=]+)=(.+)', s)
        if not m:
            ap.error('--preset-set %s: expected NAME:VAR=VALUE' % s)
        sets.setdefault(m.group(1), []).append((m.group(2), m.group(3)))
    meanings = dict(p.split('=', 1) for p in a.preset_meaning)
    for n in list(sets) + list(meanings):
        if n not in [p[0] for p in presets]:
            ap.error('preset %s is not given by --preset' % n)
    if presets and (presets[0][1] != a.source or presets[0][0] in sets):
        ap.error('the first --preset must be SOURCE itself, unchanged (the defaults are the first preset)')

    try:
        info = load(a.source)
        b = build(info, a.prefix, a.id)
        preset_values = []
        for name, path in presets:
            pi = load(path, sets.get(name, ()))
            pb = build(pi, a.prefix, a.id)
            if pb['body'] != b['body'] or [pb['pkeys'][v] for v in pb['params']] != [b['pkeys'][v] for v in b['params']]:
                diff = next((x, y) for x, y in zip(pb['body'] + [''], b['body'] + ['']) if x != y)
                refuse(path, 'preset %s: its equations differ from %s (first difference: "%s" against "%s"); '
                       'generate it as a model of its own' % (name, a.source, diff[0].strip(), diff[1].strip()))
            preset_values.append((name, path, [describe_value(v) for v in pb['params']], sets.get(name, ())))
    except Refusal as e:
        sys.stderr.write('generate.py: refused: %s\n' % e)
        return 1
    for inf in [info]:
        if inf['unit_warning']:
            sys.stderr.write('generate.py: warning: %s: myokit\'s unit check (tolerant) fails elsewhere in the model '
                             '(not in V, time or dV/dt): %s\n' % (inf['path'], inf['unit_warning']))
    sys.stdout.write(render(a, argv, info, b, preset_values, meanings))
    return 0


def render(a, argv, info, b, preset_values, meanings):
    model, vm, states, gates = info['model'], info['vm'], info['states'], info['gates']
    P = a.prefix.upper()
    files = [a.source] + [p[1] for p in preset_values if p[1] != a.source]
    cmd = 'python3 scripts/cellml/generate.py ' + ' '.join(shlex.quote(x) for x in argv) + \
        ' > fem/models/%s.h' % a.id
    out = []
    o = out.append
    o('/* Generated by scripts/cellml/generate.py (myokit %s); do not edit: regenerate.' % myokit.__version__)
    o(' * Command (from the repository root):')
    o(' *   %s' % cmd)
    for f in files:
        o(' * SHA-256 of %s: %s' % (os.path.basename(f), sha256(f)))
    o(' */')
    o('/**')
    o(' * @file %s.h' % a.id)
    o(' * @brief %s (CellML model "%s"), the nodal form for the operator-splitting scheme' % (
        a.reference or a.id, model.name()))
    o(' * (fem/models/hs_model_ode.h): potential V in mV (%s), time in ms, %d variables, %d of them gates' % (
        vm.qname(), len(states) - 1, len(gates)))
    o(' * (Rush-Larsen), %d parameters (config keys model.%s_*).' % (len(b['params']), a.prefix))
    o(' * The model\'s own stimulus (%s) is set to 0: heartsim\'s stimuli drive it.' % (info['stim'] or 'none found'))
    o(' * Derived constants are computed inside hs_model_rhs_%s from the parameters.' % a.id)
    if preset_values:
        o(' * Presets (same equations, other constants): %s; the defaults are the first.' % ', '.join(
            p[0] for p in preset_values))
        o(' * Initial values of the variables are those of %s.' % os.path.basename(a.source))
    o(' */')
    guard = 'HS_MODEL_%s_H' % a.id.upper()
    o('#ifndef %s' % guard)
    o('#define %s' % guard)
    o('')
    o('#include <math.h>')
    o('')
    o('#include "hs_hd.h"')
    o('#include "hs_model.h"')
    o('')
    o('/** Variables besides the potential (its descriptor\'s n_vars). */')
    o('#define HS_MODEL_NVARS_%s %d' % (a.id, len(states) - 1))
    o('')
    o('/** Positions of the parameters in hs_model_params.v. */')
    o('enum {')
    for v in b['params']:
        o('    %s, /* %s */' % (b['enum_of'][v], v.qname()))
    o('    HS_%s_N_PARAMS' % P)
    o('};')
    o('#define HS_MODEL_NPARAMS_%s HS_%s_N_PARAMS' % (a.id, P))
    o('')
    o('/** The nodal form (fem/models/hs_model_ode.h): hs_f = dV/dt without stimulus (mV/ms); per variable k,')
    o(' *  a gate\'s steady state hs_a[k] and time constant hs_tau[k] > 0 (ms), or hs_a[k] = ds_k/dt and hs_tau[k] = 0. */')
    o('HS_HD void hs_model_rhs_%s(const double *hs_p, double hs_u, const double *hs_s, double *hs_f, double *hs_a,'
      % a.id)
    o('    double *hs_tau)')
    o('{')
    out.extend(b['body'])
    o('}')
    o('')
    o('/** One substep of the nodal form fused with the variables\' update (the fast path of the GPU nodal kernel,')
    o(' *  backends/cuda/hs_nodal_ct.cuh): hs_f = dV/dt without stimulus as hs_model_rhs_%s gives it, and' % a.id)
    o(' *  hs_sn[k] the variable k after a substep hs_h (ms) from hs_s, by the expression of hs_model_ode_vars')
    o(' *  (fem/models/hs_model_ode.h) from the same steady states, time constants and derivatives: each variable')
    o(' *  is updated as soon as its terms are known, so few values are live at once. hs_sn must not alias hs_s;')
    o(' *  the potential\'s update u += hs_h (f + stim) is the caller\'s. */')
    o('HS_HD void hs_model_substep_%s(const double *hs_p, double hs_u, const double *hs_s, double hs_h, double *hs_f,'
      % a.id)
    o('    double *hs_sn)')
    o('{')
    out.extend(b['substep'])
    o('}')
    o('')
    o('/** No bound of the implicit scheme applies (the model runs under the splitting scheme only). */')
    o('static inline double hs_%s_dt_max(const double *p)' % a.prefix)
    o('{')
    o('    (void)p;')
    o('    return INFINITY;')
    o('}')
    o('')
    o('#ifdef HS_MODEL_DEFINE')
    o('static const hs_model_param hs_%s_params[HS_%s_N_PARAMS] = {' % (a.prefix, P))
    for v in b['params']:
        d = describe_value(v)
        u = unit_str(v.unit())
        voltage = v.unit() is not None and myokit.Unit.can_convert(v.unit(), myokit.units.V)
        bounds = '0, 0, 0' if d < 0 or voltage else 'HS_PARAM_MIN_CLOSED, 0, 0'
        o('    {%s, HS_PARAM_REAL, %s, %s, %s, %s},' % (
            c_string(b['pkeys'][v]), c_string(u), c_number(d), bounds, c_string('%s: %s' % (a.id, meaning_of(v)))))
    o('};')
    for name, path, vals, sets in preset_values:
        o('static const double hs_%s_preset_%s[HS_%s_N_PARAMS] = {' % (a.prefix, name.lower(), P))
        line = '   '
        for x in vals:
            s = ' ' + c_number(x) + ','
            if len(line) + len(s) > 116:
                o(line)
                line = '   '
            line += s
        o(line)
        o('};')
    if preset_values:
        o('static const hs_model_preset hs_%s_presets[] = {' % a.prefix)
        for name, path, vals, sets in preset_values:
            text = meanings.get(name) or 'the constants of %s' % os.path.basename(path)
            if sets and name not in meanings:
                text += ' with ' + ', '.join('%s = %s' % s for s in sets)
            o('    {%s, %s, hs_%s_preset_%s},' % (c_string(name), c_string(text), a.prefix, name.lower()))
        o('};')
    o('static const hs_model_var hs_%s_vars[HS_MODEL_NVARS_%s] = {' % (a.prefix, a.id))
    for x in states:
        if x is vm:
            continue
        k = b['sidx'][x]
        o('    {%s, %s, HS_AT_IP, %s, %s, %d},' % (c_string(b['vnames'][k]), c_string(unit_str(x.unit())),
                                                  c_number(x.initial_value(as_float=True)),
                                                  c_string(meaning_of(x)), 1 if x in gates else 0))
    o('};')
    o('const hs_model hs_model_%s = {' % a.id)
    o('    .name = %s,' % c_string(a.id))
    o('    .summary = %s,' % c_string(a.summary or 'generated from CellML %s' % model.name()))
    o('    .reference = %s,' % c_string(a.reference or model.name()))
    o('    .id = HS_MODEL_ID_%s,' % a.id)
    o('    .n_params = HS_%s_N_PARAMS,' % P)
    o('    .params = hs_%s_params,' % a.prefix)
    o('    .n_vars = HS_MODEL_NVARS_%s,' % a.id)
    o('    .vars = hs_%s_vars,' % a.prefix)
    o('    .potential_name = "V",')
    o('    .potential_unit = "mV",')
    o('    .potential_rest = %s,' % c_number(vm.initial_value(as_float=True)))
    o('    .mv_scale = 1.0,')
    o('    .mv_offset = 0.0,')
    o('    .time_unit_default = 1.0,')
    if a.d_default:
        o('    .d_default = {%s, %s}, /* 0.6 / 0.3 m/s at h = 0.5 mm, dt = 0.1 ms (tune-cv; docs/config.md) */'
          % (c_number(a.d_default[0]), c_number(a.d_default[1])))
    o('    .dt_max = hs_%s_dt_max,' % a.prefix)
    o('    .has_gates = %d,' % (1 if gates else 0))
    if preset_values:
        o('    .n_presets = (int)(sizeof hs_%s_presets / sizeof hs_%s_presets[0]),' % (a.prefix, a.prefix))
        o('    .presets = hs_%s_presets,' % a.prefix)
    else:
        o('    .n_presets = 0,')
        o('    .presets = 0,')
    o('    .schemes = HS_MODEL_SCHEME_SPLITTING,')
    o('};')
    o('#endif')
    o('')
    o('#endif')
    return '\n'.join(out) + '\n'


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
