"""Cython source of a helicity-amplitude model, printed from the expression layer.

The generated module follows the fitter's model protocol
(``docs/fitter.rst``): ``PARAMETERS``, ``EVENT_FIELDS``, ``CONSTANTS``, the
``cdef enum`` counts, ``fill_parameter_buffer``, ``density``,
``density_gradient_sum`` (the gradient added, times a factor per event, to
the fitter's sums), ``density_gradient`` (made from it) and
``vecampfit_model()``; and ``components`` with
``component_functions()``: the amplitude :math:`X_{kh}` of every component
in every reference channel without its coupling, for the fitter's cached
evaluation.

How the pieces of :class:`~vecampfit.amplitudes.AmplitudeModel` are printed:

* every expression first goes through :func:`fieldify`: its event-only
  parts that cost more than a few multiplications (square roots, quotients,
  functions of the event variables) become event fields, filled once when
  the events are loaded; an event-only half-integer power :math:`x^{n/2}`
  becomes the :math:`n`-th power of the field :math:`\\sqrt{x}`, so that a
  Wigner :math:`d` function of any spin costs a few multiplications per
  event from two fields per angle;
* then through :func:`~vecampfit.expressions.hoist`: the parameter-only
  parts of per-event sums and products become parameter-buffer slots,
  filled once per call in double precision (the couplings :math:`c_k` and
  their derivatives among them);
* the per-event code is the structure of the model: per group the vector
  :math:`B_{h'} = \\sum_k (c_k F_k)\\, a_k(h')`, the rotations applied one
  particle at a time, :math:`A_h` summed over the groups, the intensity;
  the gradient applies the transposed rotations to :math:`G` and forms
  :math:`T_k = \\sum_{h'} a_k(h') \\overline{\\hat G_{h'}}` once per
  component (see :mod:`vecampfit.amplitudes.model`).
"""

import json

from ..expressions import passes
from ..expressions.evaluate import evaluate
from ..expressions.nodes import ComplexExpr, event, power
from ..expressions.printing import (GRADIENT_FROM_SUM, GRADIENT_SUM_HEAD, CythonPrinter,
                                    LANE_PIECE, density_cimport, infix, lane_halves)

__all__ = ["generate", "fieldify"]

# The library's own vectorizable exp, log and power; libm's others.
_LANE_MATH = {"exp": "exp_scalar", "log": "log_scalar", "pow": "power_scalar", "sqrt": "_sqrt",
              "fabs": "_fabs", "atan2": "_atan2", "fmax": "_fmax", "sin": "_sin", "cos": "_cos"}


class Layout:
    """Names, event fields and parameter-buffer slots of one generated module.

    Attributes
    ----------
    parameters : list of str
    constants : dict
    fields : dict
        Field name -> the expression whose value it holds (a record variable
        for the event variables themselves).
    slots : dict
        Slot name -> index in the parameter buffer.
    """

    def __init__(self, model):
        self.model = model
        self.parameters = model.parameter_names()
        self.constants = dict(model.constants)
        self.fields = {}
        self.slots = {}
        self.expression_slots = {}
        self._field_of = {}
        self._fieldify_memo = {}

    # -- event fields --------------------------------------------------------------
    def _field_leaf(self, expr):
        """The event leaf of a field holding the value of the event-only ``expr``."""
        if expr.op == "event":
            self.fields.setdefault(expr.data, expr)
            return expr
        if expr not in self._field_of:
            name = f"x{len(self._field_of)}"
            self._field_of[expr] = event(name)
            self.fields[name] = expr
        return self._field_of[expr]

    def fieldify(self, expr):
        """See :func:`fieldify`."""
        return fieldify(expr, self._field_leaf, self._fieldify_memo)

    def field_text(self, name):
        return f"ev[F_{name} * VECTOR_LENGTH + i]"

    def field_values(self, records, constants):
        """The event fields' values (dict name -> float64 array) from event records."""
        consts = dict(self.constants)
        consts.update(constants or {})
        memo = {}
        read = self.model.event_reader(records, consts)
        generated = {leaf.data for leaf in self._field_of.values()}
        done = {}

        def value(node):
            if node.op == "event":
                if node.data in generated:
                    # a field whose expression reads another field
                    return field(node.data)
                return read(node.data)
            if node.op == "const":
                return consts[node.data]
            raise ValueError(f"parameter {node.data!r} in an event field")

        def field(name):
            if name not in done:
                done[name] = evaluate(self.fields[name], value, memo)
            return done[name]
        return {name: field(name) for name in self.fields}

    # -- parameter buffer ------------------------------------------------------------
    def slot(self, name):
        if name not in self.slots:
            self.slots[name] = len(self.slots)
        return f"pb[PB_{name}]"

    def expression_slot(self, expr):
        if expr not in self.expression_slots:
            name = f"X{len(self.expression_slots)}"
            self.expression_slots[expr] = name
            self.slot(name)
        return f"pb[PB_{self.expression_slots[expr]}]"

    def lane_leaf(self, node):
        """How a block function reads a node it does not compute: an event
        leaf from its field, a parameter-only node from its slot."""
        if node.op == "event":
            self._field_leaf(node)
            return self.field_text(node.data)
        if node.dependency == "parameter":
            return self.expression_slot(node)
        return None


def fieldify(expr, field_leaf, memo=None):
    """``expr`` with its costly event-only parts replaced by event fields.

    Parameters
    ----------
    expr : Expr or ComplexExpr
    field_leaf : callable
        ``field_leaf(node) -> Expr``: the event leaf of a field holding the
        value of the event-only ``node``.
    memo : dict, optional

    Returns
    -------
    Expr or ComplexExpr
        Event-only sums, products and positive integer powers are kept (and
        computed per event from fields); :math:`x^{n/2}` becomes
        :math:`(\\sqrt{x})^n` and :math:`x^{-n/2}` becomes
        :math:`(1/\\sqrt{x})^n` with the root a field; any other event-only
        node (a quotient, a function) is a field.
    """
    memo = {} if memo is None else memo
    if isinstance(expr, ComplexExpr):
        parts = (expr.re, expr.im)
        if all(x.dependency in ("event", "number") for x in parts):
            # Wholly event-only (a lineshape of fixed mass and width): its
            # real and imaginary parts are the fields.
            return ComplexExpr(*(x if x.dependency == "number" or x.op == "event"
                                 else field_leaf(x) for x in parts))
        if expr.quotient is not None:
            num, den = expr.quotient
            return fieldify(num, field_leaf, memo) / fieldify(den, field_leaf, memo)
        return ComplexExpr.scaled(*(fieldify(x, field_leaf, memo) for x in expr.parts()))

    def walk(node):
        if node in memo:
            return memo[node]
        dep = node.dependency
        if dep in ("number", "parameter") or node.op in ("event", "num"):
            out = node
        elif dep == "mixed":
            out = passes._REBUILD[node.op](node, [walk(a) for a in node.args]) \
                if node.args else node
        elif node.op in ("add", "mul"):
            out = passes._REBUILD[node.op](node, [walk(a) for a in node.args])
        elif node.op == "pow":
            base, n = node.args[0], node.data
            if float(n).is_integer() and n > 0:
                out = power(walk(base), int(n))
            elif float(2 * n).is_integer():
                root = field_leaf(power(base, 0.5 if n > 0 else -0.5))
                out = power(root, int(abs(2 * n)))
            elif float(n).is_integer():
                out = power(field_leaf(power(base, -1)), int(-n))
            else:
                out = field_leaf(node)
        elif node.op == "pos":
            # A clipped base (of a Wigner d function): its square root is the
            # field, since its half-integer powers are what the code needs.
            out = power(field_leaf(power(node, 0.5)), 2)
        else:
            out = field_leaf(node)
        memo[node] = out
        return out
    return walk(expr)


class _Body:
    """One function body: its lines, locals and expression printer."""

    def __init__(self, layout, ctype, leaf, math=None):
        self.layout = layout
        self.lines = []
        self.locals = {}
        counter = iter(range(1 << 30))
        self.printer = CythonPrinter(leaf, lambda hint: self.var(f"{hint}_{next(counter)}"),
                                     self.emit, ctype=ctype, math=math)

    def emit(self, *lines):
        self.lines.extend(lines)

    def var(self, name):
        self.locals.setdefault(name, None)
        return name

    def new(self, name, rhs):
        self.emit(f"{self.var(name)} = {rhs}")
        return name

    def declare(self, ctype):
        names = list(self.locals)
        return [f"    cdef {ctype} " + ", ".join(names[k:k + 8]) for k in range(0, len(names), 8)]


def _sum(terms):
    return " + ".join(terms) if terms else "0"


def _times(a, b):
    if a == "1":
        return b
    if b == "1":
        return a
    return f"{a} * {b}"


def _chan(h):
    return "_".join(("m" if x < 0 else "p") + str(abs(x)) for x in h)


class _Printed:
    """The hoisted, fieldified expressions of the model, printed on demand."""

    def __init__(self, layout, body):
        self.layout, self.body = layout, body
        self.memo = {}

    def prepare(self, *exprs):
        self.body.printer.prepare(*exprs)

    def real(self, expr, hint="t"):
        e = passes.hoist(self.layout.fieldify(expr), self.memo)
        self.prepare(e)
        return self.body.printer.code(e, hint)

    def complex(self, expr, hint="t"):
        z = self.layout.fieldify(expr)
        re, im = passes.hoist(z.re, self.memo), passes.hoist(z.im, self.memo)
        self.prepare(re, im)
        return self.body.printer.code(re, hint), self.body.printer.code(im, hint)


def _rotate_text(body, vec, position, matrix, printed, tag, back=False):
    """Apply a rotation (or its transpose with ``back``) to a vector of
    (re, im) texts; returns the new vector."""
    terms = {}
    for h, (vr, vi) in vec.items():
        for (r, f), m in matrix.items():
            src, dst = (r, f) if back else (f, r)
            if h[position] != src or (m.op == "num" and m.data == 0.0):
                continue
            key = h[:position] + (dst,) + h[position + 1:]
            mt = printed.real(m, "d")
            terms.setdefault(key, []).append((mt, vr, vi))
    out = {}
    for key, ts in terms.items():
        name = f"{tag}_{_chan(key)}"
        out[key] = (body.new(f"{name}_re", _sum([_times(m, vr) for m, vr, _ in ts])),
                    body.new(f"{name}_im", _sum([_times(m, vi) for m, _, vi in ts])))
    return out


def _transform_text(body, vec, position, transform, printed, tag):
    """Apply a complex matrix of the event, new[h] = sum_a U[h_pos, a] vec[h with
    a at ``position``], to a vector of (re, im) texts; returns the new vector."""
    terms = {}
    for h, (vr, vi) in vec.items():
        for (row, col), u in transform.items():
            if h[position] != col:
                continue
            ur, ui = printed.complex(u, "u")
            key = h[:position] + (row,) + h[position + 1:]
            terms.setdefault(key, []).append((ur, ui, vr, vi))
    out = {}
    for key, ts in terms.items():
        name = f"{tag}_{_chan(key)}"
        re = [_times(ur, vr) for ur, _, vr, _ in ts] + \
            [f"-({_times(ui, vi)})" for _, ui, _, vi in ts if ui != "0"]
        im = [_times(ur, vi) for ur, _, _, vi in ts] + \
            [_times(ui, vr) for _, ui, vr, _ in ts if ui != "0"]
        out[key] = (body.new(f"{name}_re", _sum(re)), body.new(f"{name}_im", _sum(im)))
    return out


def _coupling_slots(layout, k):
    return layout.slot(f"C{k}_RE"), layout.slot(f"C{k}_IM")


def _lane_function(layout, kind):
    model = layout.model
    body = _Body(layout, "floating", layout.lane_leaf, _LANE_MATH)
    printed = _Printed(layout, body)
    comps = model.components
    index = {id(c): k for k, c in enumerate(comps)}
    # Everything this body prints, prepared first (shared reciprocals).
    derivs = {}
    for c in comps:
        printed.prepare(*layout.fieldify(c.factor).parts())
        if kind == "gradient":
            derivs[id(c)] = {p: passes.derivative(layout.fieldify(c.factor), p)
                             for p in c.parameter_names()}
    amps = {}
    factors = {}
    for g in model.groups.values():
        body.emit(f"# group {g.name}")
        terms = {}
        for c in g.components:
            k = index[id(c)]
            body.emit(f"# component {c.name}")
            fr, fi = printed.complex(c.factor, f"f{k}")
            cr, ci = _coupling_slots(layout, k)
            ur = body.new(f"u{k}_re", f"{cr} * {fr} - {ci} * {fi}")
            ui = body.new(f"u{k}_im", f"{cr} * {fi} + {ci} * {fr}")
            factors[id(c)] = (fr, fi)
            for h, a in c.angular.items():
                if a.op == "num" and a.data == 0.0:
                    continue
                at = printed.real(a, "a")
                terms.setdefault(h, []).append((at, ur, ui))
        vec = {}
        gi = list(model.groups).index(g.name)
        for h, ts in terms.items():
            name = f"b{gi}_{_chan(h)}"
            vec[h] = (body.new(f"{name}_re", _sum([_times(a, r) for a, r, _ in ts])),
                      body.new(f"{name}_im", _sum([_times(a, i) for a, _, i in ts])))
        for n, (p, m) in enumerate(g.rotations):
            vec = _rotate_text(body, vec, p, m, printed, f"r{gi}_{n}")
        for h, v in vec.items():
            if h not in model.channels:
                raise ValueError(f"group {g.name!r} gives the channel {h}, which is not one of "
                                 f"the model's")
            amps.setdefault(h, []).append(v)
    total = {}
    for h in model.channels:
        if h in amps:
            total[h] = (body.new(f"A_{_chan(h)}_re", _sum([v[0] for v in amps[h]])),
                        body.new(f"A_{_chan(h)}_im", _sum([v[1] for v in amps[h]])))
    body.emit("# the intensity")
    rho = None
    if model.density_matrix is None:
        s = [f"{r} * {r} + {i} * {i}" for r, i in total.values()]
    else:
        position, matrix = model.density_matrix
        rho = {key: printed.complex(v, "rho") for key, v in matrix.items()}
        s = []
        for (a, b), (pr, pi) in rho.items():
            for h, (ar, ai) in total.items():
                if h[position] != a:
                    continue
                other = h[:position] + (b,) + h[position + 1:]
                if other not in total:
                    continue
                br, bi = total[other]
                # Re[rho A_a conj(A_b)]
                s.append(f"{pr} * ({ar} * {br} + {ai} * {bi}) - {pi} * ({ai} * {br} - {ar} * {bi})")
    body.emit(f"out[i] = {_sum(s)}")
    second = None
    if kind == "gradient":
        stored, kept = _gradient_lines(layout, body, printed, total, rho, factors, derivs, index)
        if stored:
            second = (_factor_derivative_loop(layout, stored, kept, derivs, index), len(stored))
    return body, second


def _gradient_lines(layout, body, printed, total, rho, factors, derivs, index):
    """dS/dp for every parameter: each row of the first loop added to the
    sums after its last contribution, the rows of the parameters the second
    loop adds to kept in g[PAR_p * L + i].  Returns the components whose T_k
    the second loop reads and the kept parameters."""
    model = layout.model
    contributions = {p: [] for p in layout.parameters}
    stored = []
    order = [c for g in model.groups.values() for c in g.components]
    # Where each row is complete: after the last component whose coupling
    # depends on the parameter; the rows of the factors' parameters (masses,
    # widths, ...) wait in g for the second loop.
    last = {}
    for position, c in enumerate(order):
        for p in _coupling_derivative_slots(layout, index[id(c)], c):
            last[p] = position
    late = {p for c in order for p in derivs[id(c)]}
    kept, done = set(), set()

    def complete(p):
        terms = [t for t in contributions[p] if t]
        done.add(p)
        if not terms:
            return
        if p in late:
            body.emit(f"g[PAR_{p} * VECTOR_LENGTH + i] = " + " + ".join(terms))
            kept.add(p)
        else:
            body.emit(_add_row(p, " + ".join(terms)))
    # G = 2 conj(rho) A (the 2 of dS = 2 Re[...] taken in once: exact, and
    # one multiplication per channel instead of one per row)
    body.emit("# gradient: G = 2 conj(rho) A, back through the rotations")
    if rho is None:
        gvec = {h: (body.new(f"G_{_chan(h)}_re", f"2 * {ar}"),
                    body.new(f"G_{_chan(h)}_im", f"2 * {ai}"))
                for h, (ar, ai) in total.items()}
    else:
        position = model.density_matrix[0]
        parts = {}
        for (a, b), (pr, pi) in rho.items():
            for h, (br, bi) in total.items():
                if h[position] != b:
                    continue
                key = h[:position] + (a,) + h[position + 1:]
                # conj(rho_ab) A_b
                parts.setdefault(key, []).append((f"{pr} * {br} + {pi} * {bi}",
                                                  f"{pr} * {bi} - {pi} * {br}"))
        gvec = {h: (body.new(f"G_{_chan(h)}_re", f"2 * ({_sum([x for x, _ in ps])})"),
                    body.new(f"G_{_chan(h)}_im", f"2 * ({_sum([y for _, y in ps])})"))
                for h, ps in parts.items()}
        # Derivatives of the density matrix: Re[d rho_ab A_a conj(A_b)].
        for (a, b), z in model.density_matrix[1].items():
            fz = layout.fieldify(z)
            for p in sorted({n for x in fz.parts() for n in x.parameters}):
                dr, di = printed.complex(passes.derivative(fz, p), "drho")
                for h, (ar, ai) in total.items():
                    if h[position] != a:
                        continue
                    other = h[:position] + (b,) + h[position + 1:]
                    if other in total:
                        br, bi = total[other]
                        contributions[p].append(
                            f"{dr} * ({ar} * {br} + {ai} * {bi}) - {di} * ({ai} * {br} - {ar} * {bi})")
        for p in layout.parameters:
            if contributions[p] and p not in last:
                complete(p)
    position = -1
    for gi, g in enumerate(model.groups.values()):
        vec = {h: v for h, v in gvec.items()}
        for n, (p, m) in reversed(list(enumerate(g.rotations))):
            vec = _rotate_text(body, vec, p, m, printed, f"q{gi}_{n}", back=True)
        for c in g.components:
            k = index[id(c)]
            position += 1
            tr = [(printed.real(a, "a"), vec[h]) for h, a in c.angular.items()
                  if h in vec and not (a.op == "num" and a.data == 0.0)]
            if not tr:
                continue
            # T = sum a conj(G^)
            t_re = body.new(f"t{k}_re", _sum([_times(a, v[0]) for a, v in tr]))
            t_im = body.new(f"t{k}_im", "-(" + _sum([_times(a, v[1]) for a, v in tr]) + ")")
            fr, fi = factors[id(c)]
            dcs = _coupling_derivative_slots(layout, k, c)
            if dcs:
                ftr = body.new(f"ft{k}_re", f"{fr} * {t_re} - {fi} * {t_im}")
                fti = body.new(f"ft{k}_im", f"{fr} * {t_im} + {fi} * {t_re}")
                for p, (dr, di) in dcs.items():
                    parts = ([_times(dr, ftr)] if dr != "0" else []) + \
                        ([f"- {_times(di, fti)}"] if di != "0" else [])
                    if parts:
                        contributions[p].append(" ".join(parts))
                for p in dcs:
                    if last[p] == position:
                        complete(p)
            if derivs[id(c)]:
                # T, kept per lane for the second loop (the factor's derivatives;
                # T rather than c T: the compiler then vectorizes this loop)
                n = len(stored)
                body.emit(f"t[{2 * n} * VECTOR_LENGTH + i] = {t_re}",
                          f"t[{2 * n + 1} * VECTOR_LENGTH + i] = {t_im}")
                stored.append((c, n))
    for p in layout.parameters:
        if p not in done:
            complete(p)
    if not stored:
        # no second loop: what waits in g is added here
        for p in layout.parameters:
            if p in kept:
                body.emit(_add_row(p, f"g[PAR_{p} * VECTOR_LENGTH + i]"))
    return stored, kept


def _add_row(p, row):
    """The statement that adds f times a row of the gradient to the sums, as
    the fitter adds a weighted term (add_product)."""
    at = f"sums[PAR_{p} * VECTOR_LENGTH + i]"
    return f"{at} = add_product({at}, f[i], {row})"


def _factor_derivative_loop(layout, stored, kept, derivs, index):
    """The second loop of the gradient: dF/dp of each factor's parameters
    (lineshape masses, widths, ...) times the sum of c_k T_k over the chains
    with that factor (T_k stored by the first loop), added to the sums with
    what the first loop kept in g for them (``kept``).  Apart from the first
    loop, so that each loop stays small enough for the compiler to vectorize
    it."""
    body = _Body(layout, "floating", layout.lane_leaf, _LANE_MATH)
    printed = _Printed(layout, body)
    rows = {}
    # Chains with the same factor (one resonance, several couplings) share
    # its derivatives: sum c_k T_k over them first.
    shared = {}
    for c, n in stored:
        shared.setdefault(tuple(derivs[id(c)].items()), []).append((c, n))
    for chains in shared.values():
        c0 = chains[0][0]
        k0 = index[id(c0)]
        printed.prepare(*(x for d in derivs[id(c0)].values() for x in d.parts()))
        ctr, cti = [], []
        for c, n in chains:
            cr, ci = _coupling_slots(layout, index[id(c)])
            tr, ti = f"t[{2 * n} * VECTOR_LENGTH + i]", f"t[{2 * n + 1} * VECTOR_LENGTH + i]"
            ctr.append(f"{cr} * {tr} - {ci} * {ti}")
            cti.append(f"{cr} * {ti} + {ci} * {tr}")
        sr = body.new(f"ct{k0}_re", " + ".join(ctr))
        si = body.new(f"ct{k0}_im", " + ".join(cti))
        for p, d in derivs[id(c0)].items():
            dr, di = printed.complex(d, f"df{k0}")
            rows.setdefault(p, []).append(f"{dr} * {sr} - {di} * {si}")
    for p in layout.parameters:
        terms = ([f"g[PAR_{p} * VECTOR_LENGTH + i]"] if p in kept else []) + rows.get(p, [])
        if terms:
            body.emit(_add_row(p, " + ".join(terms)))
    return body


def _coupling_derivative_slots(layout, k, comp):
    """{parameter: (re text, im text)} of dc_k/dp: literals where the
    derivative is a number (a Cartesian coupling), slots otherwise."""
    out = {}
    for p in comp.coupling_parameters():
        d = passes.derivative(comp.coupling, p)
        texts = []
        for part, what in ((d.re, "RE"), (d.im, "IM")):
            if part.op == "num":
                texts.append(repr(part.data) if not part.data.is_integer()
                             else str(int(part.data)))
            else:
                texts.append(layout.slot(f"DC{k}_{p}_{what}"))
        out[p] = tuple(texts)
    return out


def _fill_function(layout):
    model = layout.model
    counter = iter(range(1 << 30))
    lines, locals_ = [], {}

    def local(hint):
        name = f"{hint}_{next(counter)}"
        locals_.setdefault(name, None)
        return name

    def leaf(node):
        if node.op == "par":
            return f"par[PAR_{node.data}]"
        if node.op == "const":
            return f"constants[C_{node.data}]"
        if node.op == "event":
            raise ValueError(f"event variable {node.data!r} in a parameter-buffer slot")
        return None
    printer = CythonPrinter(leaf, local, lines.append, ctype="double")
    for k, c in enumerate(model.components):
        lines.append(f"# {c.name}: coupling")
        cr, ci = _coupling_slots(layout, k)
        printer.prepare(*c.coupling.parts())
        lines.append(f"{cr} = {printer.code(c.coupling.re, 'c')}")
        lines.append(f"{ci} = {printer.code(c.coupling.im, 'c')}")
        for p in c.coupling_parameters():
            d = passes.derivative(c.coupling, p)
            for part, what in ((d.re, "RE"), (d.im, "IM")):
                name = f"DC{k}_{p}_{what}"
                if name in layout.slots:
                    lines.append(f"pb[PB_{name}] = {printer.code(part, 'dc')}")
    if layout.expression_slots:
        lines.append("# parameter-only subexpressions")
        printer.prepare(*layout.expression_slots)
        for expr, name in layout.expression_slots.items():
            lines.append(f"# {name} = {infix(expr)}")
            lines.append(f"pb[PB_{name}] = {printer.code(expr, 'f')}")
    head = ["cdef void fill_parameter_buffer(floating *pb, const floating *par,",
            "                                const double *constants) noexcept nogil:",
            '    """The parameter buffer from the parameters and constants (in double precision)."""']
    names = list(locals_)
    decl = ["    cdef double " + ", ".join(names[k:k + 8]) for k in range(0, len(names), 8)]
    return head + decl + ["    " + x for x in lines]


_HEAD = {
    "density": ["cdef void density(floating *out, const void *event_block, const floating *params,",
                "                  const void *parameter_buffer) noexcept nogil:",
                '    """The intensity S for the L events of one block."""'],
    "gradient": GRADIENT_SUM_HEAD,
}


def _function(layout, kind):
    body, second = _lane_function(layout, kind)
    head = list(_HEAD[kind])
    head += ["    cdef const floating *ev = <const floating *> event_block",
             "    cdef const floating *pb = <const floating *> parameter_buffer"]
    if kind == "gradient":
        head += ["    # Rows are added to the sums where they are complete (the sums are",
                 "    # restrict-qualified: the loops may go on reading the buffers); a row",
                 "    # the second loop completes waits in g.",
                 "    cdef floating g[N_PARAMETERS * VECTOR_LENGTH]",
                 "    cdef double f[VECTOR_LENGTH]"]
    if second is not None:
        head += [f"    cdef floating t[{2 * second[1]} * VECTOR_LENGTH]"]
        for name in second[0].locals:
            body.var(name)
    lines = (["f[i] = factor[i]"] if kind == "gradient" else []) + body.lines
    if kind != "gradient":
        head += body.declare("floating") + ["    cdef int i", "    for i in range(VECTOR_LENGTH):"]
        return head + ["        " + x for x in lines]
    head += body.declare("floating") + ["    cdef int i, h, piece"] + LANE_PIECE
    if second is None:
        # One long loop (couplings and the density matrix): in pieces of 32
        # bytes it needs half the register width per value, and ran 20 %
        # faster on the Lambda_c model (27 against 22 ns per event, AMD EPYC
        # with AVX-512, benchmarks/results/dpd_lc.md).  Where a second loop
        # reads what the first stored, the loops keep the whole block: the
        # pieces then made the masses-free model 30 % slower.
        out = head + lane_halves(lines)
    else:
        out = head + ["    for i in range(VECTOR_LENGTH):"] + ["        " + x for x in lines]
        out += ["    for i in range(VECTOR_LENGTH):"] + ["        " + x for x in second[0].lines]
    return out + ["", ""] + GRADIENT_FROM_SUM


def _components_function(layout):
    """The block function of the components without their couplings: X_kh,
    component k's amplitude in reference channel h (the model's channel
    order), written to out[2 (k H + h) L + i] (real part) and
    out[(2 (k H + h) + 1) L + i] (imaginary part), for the fitter's cached
    evaluation (vecampfit.fitter.components with H channels).  With a
    density matrix given as weights and an event transform U
    (AmplitudeModel.density_factors), the amplitudes are U X: the
    intensity is then a form with the same weights at every event."""
    model = layout.model
    body = _Body(layout, "floating", layout.lane_leaf, _LANE_MATH)
    printed = _Printed(layout, body)
    channel = {h: n for n, h in enumerate(model.channels)}
    n_channels = len(model.channels)
    factors = model.density_factors()
    transform = None if factors is None else factors[1]
    for c in model.components:
        printed.prepare(*layout.fieldify(c.factor).parts())
    if transform is not None:
        for u in transform.values():
            printed.prepare(*layout.fieldify(u).parts())
    k = 0
    for g in model.groups.values():
        for c in g.components:
            body.emit(f"# component {c.name}")
            fr, fi = printed.complex(c.factor, f"f{k}")
            vec = {}
            for h, a in c.angular.items():
                if a.op == "num" and a.data == 0.0:
                    continue
                at = printed.real(a, "a")
                vec[h] = (body.new(f"v{k}_{_chan(h)}_re", _times(at, fr)),
                          body.new(f"v{k}_{_chan(h)}_im", _times(at, fi)))
            for n, (position, matrix) in enumerate(g.rotations):
                vec = _rotate_text(body, vec, position, matrix, printed, f"w{k}_{n}")
            if transform is not None:
                vec = _transform_text(body, vec, model.density_matrix[0], transform, printed,
                                      f"o{k}")
            for h in model.channels:
                j = k * n_channels + channel[h]
                re, im = vec.get(h, ("0", "0"))
                body.emit(f"out[{2 * j} * VECTOR_LENGTH + i] = {re}",
                          f"out[{2 * j + 1} * VECTOR_LENGTH + i] = {im}")
            k += 1
    head = ["cdef void components(floating *out, const void *event_block, const floating *params,",
            "                     const void *parameter_buffer) noexcept nogil:",
            '    """X_kh of every component k and channel h, without the coupling."""',
            "    cdef const floating *ev = <const floating *> event_block",
            "    cdef const floating *pb = <const floating *> parameter_buffer"]
    head += body.declare("floating") + ["    cdef int i", "    for i in range(VECTOR_LENGTH):"]
    return head + ["        " + x for x in body.lines]


def _enum(title, names, count_name):
    lines = [f"# {title}", "cdef enum:"]
    lines += [f"    {n} = {k}" for k, n in enumerate(names)]
    lines.append(f"    {count_name} = {len(names)}")
    return lines


_TAIL = '''
def vecampfit_model():
    """Parameters, event fields, constants, buffer sizes and functions of this model."""
    desc = model_description(PARAMETERS, EVENT_FIELDS, CONSTANTS,
                             N_PARAMETERS, N_EVENT_FIELDS, PARAMETER_BUFFER_SIZE, N_CONSTANTS,
                             density[double], density[float],
                             density_gradient[double], density_gradient[float],
                             fill_parameter_buffer[double], fill_parameter_buffer[float])
    desc["gradient_sums"] = gradient_sum_functions(density_gradient_sum[double],
                                                   density_gradient_sum[float])
    return desc


def component_functions():
    """The block function of the components X_kh (without couplings), by precision."""
    return single_component_functions(components[double], components[float])


def fill(floating[::1] params, const double[::1] constants, floating[::1] buffer):
    """Fill ``buffer`` (PARAMETER_BUFFER_SIZE elements) from the parameters and constants."""
    if (params.shape[0] != max(N_PARAMETERS, 1) or constants.shape[0] != max(N_CONSTANTS, 1)
            or buffer.shape[0] != max(PARAMETER_BUFFER_SIZE, 1)):
        raise ValueError("fill: wrong sizes of params, constants or buffer")
    fill_parameter_buffer(&buffer[0], &params[0], &constants[0])
'''


def generate(model):
    """Cython source of the model's block density (see the module description).

    Returns
    -------
    source : str
    layout : Layout
    """
    model.check()
    for name in list(model.parameters) + list(model.constants) + list(model.events):
        if not name.isidentifier():
            raise ValueError(f"model {model.name!r}: {name!r} is not a valid name in generated "
                             "code (letters, digits and underscores, not starting with a digit)")
    layout = Layout(model)
    functions = []
    for kind in ("density", "gradient"):
        functions += [""] + _function(layout, kind) + [""]
    functions += [""] + _components_function(layout) + [""]
    fill = _fill_function(layout)
    out = [f"# Generated by vecampfit.amplitudes from the model {model.name!r}: edit the model,",
           "# not this file (AmplitudeModel.source() writes it again).",
           "#"]
    out += [f"#   group {g.name}: " + ", ".join(c.name for c in g.components)
            for g in model.groups.values()]
    out += ["",
            "from cython cimport floating",
            "from libc.math cimport INFINITY, NAN, atan2, cos, exp, fabs, fmax, log, pow, sin, sqrt",
            "",
            "from vecampfit._libm cimport _atan2, _cos, _fabs, _fmax, _sin, _sqrt",
            "from vecampfit.block cimport VECTOR_LENGTH",
            *density_cimport(),
            "from vecampfit.mathematical_functions cimport exp_scalar, log_scalar, power_scalar",
            "",
            f"PARAMETERS = {tuple(layout.parameters)!r}",
            f"EVENT_FIELDS = {tuple(layout.fields)!r}",
            f"CONSTANTS = {json.dumps(layout.constants)}",
            ""]
    out += _enum("Parameters (params[])", [f"PAR_{p}" for p in layout.parameters],
                 "N_PARAMETERS") + [""]
    out += _enum("Event fields, real vectors of L lanes (ev[F * L + i])",
                 [f"F_{f}" for f in layout.fields], "N_EVENT_FIELDS") + [""]
    out += _enum("Constants (constants[])", [f"C_{c}" for c in layout.constants],
                 "N_CONSTANTS") + [""]
    out += _enum("Parameter buffer (pb[])", [f"PB_{s}" for s in layout.slots],
                 "PARAMETER_BUFFER_SIZE") + [""]
    out += [""] + fill + functions + _TAIL.split("\n")
    return "\n".join(out) + "\n", layout
