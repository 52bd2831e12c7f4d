"""Cython source of an isobar model, printed from the expression layer.

The generated module follows the fitter's model protocol
(``docs/fitter.rst``): ``PARAMETERS``, ``EVENT_FIELDS``, ``CONSTANTS``, the
``cdef enum`` counts, ``fill_parameter_buffer``, ``density``,
``density_gradient_sum`` (each row of the gradient added, times a factor
per event, to the fitter's sums where it is formed), ``density_gradient``
(made from it) and ``vecampfit_model()``; and it adds
``component_amplitudes`` (the complex amplitude :math:`X_k` of every
component, without its coupling, at each event of a block), offered as a
capsule (``component_kernel``) and over many blocks from Python
(``evaluate_components``).

Composition, per component :math:`k` with coupling :math:`c_k`:
:math:`X_k = \\sum_{terms} L(m_{AB}) \\prod_j R_j`, one term per ordered
daughter triple (two for a pair with an identical particle), ``L`` the
lineshape (complex), ``R_j`` the real factors (parent form factor, spin
factor).  Each term is one expression of :mod:`vecampfit.expressions`
(:func:`bind_term` binds the pieces' generic leaves to the term): its
parameter-only subexpressions become parameter-buffer slots (printed by the
fill function), its event-only ones event fields, the rest per-event code,
and :math:`\\partial X_k/\\partial p` and :math:`\\partial c_k/\\partial p` are
derived by the layer.  The amplitude is :math:`A = \\sum_k c_k X_k`, the
density :math:`S = |A|^2`, and

.. math::

    \\frac{\\partial S}{\\partial p} = \\mathrm{Re}\\Big[\\overline{2A}
        \\sum_k \\Big(c_k \\frac{\\partial X_k}{\\partial p}
        + \\frac{\\partial c_k}{\\partial p} X_k\\Big)\\Big].

A lineshape of the user's own written as a Cython block routine
(``UserLineshape``) keeps its own value and gradient; the generator then
composes it with the real factors by the product rule.
"""

import json

import numpy as np

from vecampfit import expressions as _expressions
from vecampfit.expressions.printing import number_literal
from vecampfit import high_energy_physics as hep

# Functions of the expression printer in block functions: the library's own
# vectorizable exp, log and power (mathematical_functions), libm's others.
_LANE_MATH = {"exp": "exp_scalar", "log": "log_scalar", "pow": "power_scalar", "sqrt": "_sqrt",
              "fabs": "_fabs", "atan2": "_atan2", "fmax": "_fmax", "sin": "_sin", "cos": "_cos"}


class Layout:
    """What the generated functions share: names, enums, fields, slots.

    ``basis``: event-only expression nodes that get event fields before any
    function is printed, in this order (see :func:`field_basis`).
    """

    def __init__(self, model, basis=()):
        self.model = model
        self.parameters = model.parameter_names()
        self.constants = model.constant_defaults()
        self.fields = {}
        self.slots = {}
        self.math_imports = set()
        self.support = {}
        # The expression layer's hoisted nodes: parameter-only ones fill slots
        # (printed by the fill function), event-only ones fill event fields.
        self.expression_slots = {}
        self.expression_fields = {}
        self.event_leaves = {}
        for node in basis:
            self.expression_field(node)

    def field(self, name, fn):
        if name not in self.fields:
            self.fields[name] = fn
        return f"ev[F_{name} * VECTOR_LENGTH + i]"

    def slot(self, comp, what):
        name = f"PB_{comp.key}_{what}"
        if name not in self.slots:
            self.slots[name] = len(self.slots)
        return f"pb[{name}]"

    def expression_slot(self, expr):
        """The parameter-buffer slot of a parameter-only expression node,
        one per distinct node (filled by the fill function)."""
        if expr not in self.expression_slots:
            name = f"PB_X{len(self.expression_slots)}"
            self.slots[name] = len(self.slots)
            self.expression_slots[expr] = name
        return f"pb[{self.expression_slots[expr]}]"

    def event_leaf(self, name, fn):
        """Declare an event quantity of the expression layer by its numpy
        function ``fn(kin, values)``; it becomes an event field of that name
        only if a block function reads it alone."""
        self.event_leaves.setdefault(name, fn)

    def expression_field(self, expr):
        """The event field of an event-only expression node, one per distinct
        node (filled with the expression's numpy value when events are loaded)."""
        if expr not in self.expression_fields:
            leaves = self.event_leaves

            def fn(kin, values, expr=expr):
                def value(node):
                    if node.op == "event":
                        return leaves[node.data](kin, values)
                    return values[node.data]
                return _expressions.evaluate(expr, value)
            self.expression_fields[expr] = self.field(f"x{len(self.expression_fields)}", fn)
        return self.expression_fields[expr]

    def expression_leaf(self, node):
        """How a block function reads an expression node it does not compute:
        parameter-only nodes from the parameter buffer, event-only nodes from
        the event buffer; None for what is computed per event.

        The event buffer is read from memory at every call, so an event-only
        node becomes a field of its own only where the fields that exist
        cannot give it with a few multiplications: a polynomial in event
        quantities of at most :data:`POLYNOMIAL_OPERATIONS` operations
        (:math:`s_{AC} - s_{BC}`, the bachelor momentum
        :math:`p^2 = (s - (M + m_c)^2)(s - (M - m_c)^2) / 4M^2`) is computed
        per event, and a product is read as a product of existing fields and
        their integer powers (:math:`q^3/m = (q/m)\\, q^2`) where they cover
        it.
        """
        dep = node.dependency
        if dep == "parameter":
            return self.expression_slot(node)
        if dep != "event":
            return None
        if node.op == "event":
            return self.field(node.data, self.event_leaves[node.data])
        if node in self.expression_fields:
            return self.expression_fields[node]
        operations = _polynomial_operations(node)
        if operations is not None and operations <= POLYNOMIAL_OPERATIONS:
            return None
        if node.op == "mul" and len(node.args) == 2 and node.args[0].op == "num":
            if node.args[1].op == "event" or node.args[1] in self.expression_fields:
                return None
        if node.op in ("mul", "pow"):
            parts = self._existing_fields(node)
            if parts is not None:
                return parts
        return self.expression_field(node)

    def _candidate_fields(self):
        """(factors {base: exponent}, text) of the event fields that exist,
        largest first."""
        out = []
        for expr, text in self.expression_fields.items():
            out.append((_factors(expr), text))
        for name in self.fields:
            if name in self.event_leaves:
                out.append(({_expressions.event(name): 1}, self.field(name, None)))
        out.sort(key=lambda c: -len(c[0]))
        return out

    def _existing_fields(self, node):
        """An event-only product as a product of integer powers of event
        fields that exist already (and one new field for what they leave), or
        None if none of them divides it."""
        want = _factors(node)
        texts = []
        for have, text in self._candidate_fields():
            k = None
            for b, e in have.items():
                w = want.get(b, 0)
                if w == 0 or (w > 0) != (e > 0) or abs(w) < abs(e):
                    k = 0
                    break
                ratio = int(w / e)
                k = ratio if k is None else min(k, ratio)
            if not k:
                continue
            texts += [text] * k
            for b, e in have.items():
                want[b] = _exponent(want[b] - k * e)
                if want[b] == 0:
                    del want[b]
            if not want:
                break
        if not texts:
            return None
        if want:
            rest = _expressions.mul(*(_expressions.power(b, e) for b, e in want.items()))
            texts.append(self.expression_leaf(rest) or self.expression_field(rest))
        if node.op == "mul" and node.args[0].op == "num":
            texts.insert(0, number_literal(node.args[0].data, "floating"))
        return "(" + " * ".join(texts) + ")"


def _size(expr):
    """How much of a product an event field holds: (factors, sum of the
    exponents' magnitudes); a field of smaller size may divide a larger one."""
    f = _factors(expr)
    return len(f), sum(abs(e) for e in f.values())


def field_basis(layout):
    """The event-only nodes that need fields of their own, from a first
    generation's ``layout``.

    A field is created when a function first needs its node, so one that
    could be read as a product of fields created later (:math:`q^3/m = (q/m)
    q^2`) gets a field of its own.  Here the nodes that got fields are taken
    from the largest (:func:`_size`) down, and one leaves the basis where the
    rest of the basis (and the event quantities) give it, and every node left
    out before, with a few multiplications (:meth:`Layout.expression_leaf`,
    without a new field).  A second generation with this basis reads fewer
    fields per event: the event buffer is read from memory at every call.
    """
    basis = list(layout.expression_fields)
    left_out = []
    for node in sorted(basis, key=_size, reverse=True):
        rest = [b for b in basis if b is not node]
        trial = Layout(layout.model, rest)
        trial.event_leaves = layout.event_leaves
        for name, fn in layout.fields.items():
            if name in layout.event_leaves:
                trial.field(name, fn)
        n_fields = len(trial.expression_fields)
        for n in [node] + left_out:
            trial.expression_leaf(n)
            if len(trial.expression_fields) > n_fields:
                break
        else:
            basis = rest
            left_out.append(node)
    return basis


def _factors(expr):
    """{base: exponent} of a product (or a single factor)."""
    out = {}
    for f in (expr.args if expr.op == "mul" else (expr,)):
        if f.op == "num":
            continue
        b, e = (f.args[0], f.data) if f.op == "pow" else (f, 1)
        out[b] = _exponent(out.get(b, 0) + e)
    return out


def _exponent(e):
    return int(e) if float(e).is_integer() else e


#: The most additions and multiplications per event with which an event-only
#: polynomial is computed in the block functions rather than read from an
#: event field of its own.  A field costs 8 bytes (float64) of memory traffic
#: per event and call, about as long as 16 such operations on eight lanes.
POLYNOMIAL_OPERATIONS = 8


def _polynomial_operations(node):
    """Additions and multiplications per event of an event-only node that is
    a polynomial in event quantities (numbers and constants come from the
    parameter buffer), or None where it is not one (a division, a root, a
    function)."""
    if node.dependency in ("number", "parameter") or node.op == "event":
        return 0
    if node.op in ("add", "mul"):
        parts = [_polynomial_operations(a) for a in node.args]
        if None in parts:
            return None
        return sum(parts) + len(parts) - 1
    if node.op == "pow" and isinstance(node.data, int) and 2 <= node.data <= 4:
        base = _polynomial_operations(node.args[0])
        return None if base is None else base + node.data - 1
    return None


class Context:
    """Where a template writes: one function body (the filler or a lane loop)."""

    def __init__(self, layout, kind):
        self.layout = layout
        self.kind = kind
        self.lines = []
        self.vars = {}
        self._printer = None
        self.hoist_memo = {}

    # -- writing ----------------------------------------------------------
    def emit(self, *lines):
        self.lines.extend(lines)

    def var(self, name):
        self.vars.setdefault(name, None)
        return name

    def array(self, name, size):
        """A local array of ``size`` elements (declared with the locals)."""
        self.vars.setdefault(f"{name}[{size}]", None)
        return name

    def support(self, name, code):
        self.layout.support.setdefault(name, code)

    def expressions(self):
        """The expression printer of this function body (one per body, so that
        a node common to several pieces is computed once)."""
        if self._printer is None:
            counter = iter(range(1 << 30))
            self._printer = _expressions.CythonPrinter(
                self.layout.expression_leaf, lambda hint: self.var(f"{hint}_{next(counter)}"),
                self.emit, ctype="floating", math=_LANE_MATH)
            self.layout.math_imports.update(("exp_scalar", "log_scalar", "power_scalar"))
        return self._printer

    # -- reading ----------------------------------------------------------
    def q(self, quantity):
        """Value of a quantity in the filler: a parameter or a constant."""
        if quantity.kind == "parameter":
            return f"par[PAR_{quantity.name}]"
        return f"constants[C_{quantity.name}]"

    def slot(self, comp, what):
        return self.layout.slot(comp, what)

    def field(self, name, fn):
        return self.layout.field(name, fn)

    def field_m(self, a, b):
        """The pair's invariant mass (GeV) as an event field (for lineshapes of
        the user's own)."""
        return self.field(f"m_{self.layout.model.pair_label(a, b)}",
                          lambda kin, values: kin.m(a, b))


# ---------------------------------------------------------------------------
# Per term and per component
# ---------------------------------------------------------------------------

def _static_fns(comp):
    """numpy functions of the term's event-only real factors."""
    return [f.numpy for f in comp.static_factors]


def _static_product(comp, inst):
    """numpy function of the product of a term's event-only factors."""
    fns = _static_fns(comp)

    def compute(kin, values):
        out = 1.0
        for f in fns:
            out = out * f(kin, comp, inst, values)
        return out
    return compute


def _static_field(ctx, comp, inst, n):
    """The event field holding the product of a term's event-only factors."""
    return ctx.field(f"w_{comp.key}_{n}", _static_product(comp, inst))


def static_leaf(layout, comp, inst):
    """The product of a term's event-only factors as an event quantity of the
    expression layer (None if the term has none): a lineshape written on the
    layer multiplies it in, so that it joins the lineshape's own event-only
    factors in one event field."""
    if not _static_fns(comp):
        return None
    name = f"w_{comp.key}_{comp.instances.index(inst)}"
    layout.event_leaf(name, _static_product(comp, inst))
    return _expressions.event(name)


def bind_term(layout, comp, inst, expr, static=False):
    """A generic piece of a resonance term bound to one ordered triple
    (A, B, C) of the model.

    The generic leaves of lineshapes and factors (``event("s")`` or
    ``"s_ab"``, ``"s_ac"``, ``"s_bc"``, ``"p2"``, ``"pcov2_<J>"``,
    ``constant("ma")``, ``"mb"``, ``"mc"``, ``"mp"`` and the roles
    ``parameter(role)``) become the pair's event quantities (declared with
    their numpy functions), the model's mass constants and the resonance's
    parameters and constants.  With ``static``, the product of the term's
    event-only factors multiplies the result (:func:`static_leaf`).
    """
    a, b, c = inst
    model = layout.model

    def pair(i, j):
        name = f"s_{model.pair_label(i, j)}"
        layout.event_leaf(name, lambda kin, values: kin.s_pair(i, j))
        return _expressions.event(name)
    ab = model.pair_label(a, b)
    layout.event_leaf(f"p2_{ab}", lambda kin, values: kin.p(a, b) ** 2)
    j = comp.spin
    if j:
        layout.event_leaf(f"pcov2_{j}_{ab}", lambda kin, values: (
            kin.p(a, b) * hep.covariant_factor_j(kin.covariant_factor(a, b), j)
            ** (1.0 / j)) ** 2)
    ev, const = _expressions.event, _expressions.constant
    mapping = {ev("s"): pair(a, b), ev("s_ab"): pair(a, b), ev("s_ac"): pair(a, c),
               ev("s_bc"): pair(b, c), ev("p2"): ev(f"p2_{ab}"),
               ev(f"pcov2_{j}"): ev(f"pcov2_{j}_{ab}"),
               const("ma"): const(model.mass_constant(a).name),
               const("mb"): const(model.mass_constant(b).name),
               const("mc"): const(model.mass_constant(c).name),
               const("mp"): const(model.mass_constant("parent").name)}
    for role, q in comp.quantities.items():
        mapping[_expressions.parameter(role)] = _leaf(q)
    out = _expressions.substitute(expr, mapping)
    w = static_leaf(layout, comp, inst) if static else None
    return out if w is None else out * w


def evaluate_term(kin, comp, inst, expr, values):
    """A generic piece of a resonance term (leaves as in :func:`bind_term`)
    evaluated in numpy at the events of ``kin`` (the reference form), with
    ``values`` the model's quantity values by name."""
    a, b, c = inst
    j = comp.spin
    events = {"s": lambda: kin.s_pair(a, b), "s_ab": lambda: kin.s_pair(a, b),
              "s_ac": lambda: kin.s_pair(a, c), "s_bc": lambda: kin.s_pair(b, c),
              "p2": lambda: kin.p(a, b) ** 2,
              f"pcov2_{j}": lambda: (kin.p(a, b) * hep.covariant_factor_j(
                  kin.covariant_factor(a, b), j) ** (1.0 / j)) ** 2}
    masses = {"ma": kin.masses[a], "mb": kin.masses[b], "mc": kin.masses[c], "mp": kin.M}

    def value(node):
        if node.op == "event":
            return events[node.data]()
        if node.op == "const" and node.data in masses:
            return masses[node.data]
        return values[comp.quantities[node.data].name]
    out = _expressions.evaluate(expr, value)
    return np.asarray(out) * np.ones_like(kin.s_pair(a, b))


def _static_reals(ctx, comp, inst, n):
    """The static field for the term's real factors, unless the lineshape
    multiplies it in itself (written on the expression layer)."""
    if _static_fns(comp) and not getattr(comp.lineshape, "includes_static_factors", False):
        return [_static_field(ctx, comp, inst, n)]
    return []


def _whole_term(comp):
    """True if the lineshape writes the whole term (itself times every real
    factor) on the expression layer."""
    return getattr(comp.lineshape, "includes_factors", lambda c: False)(comp)


def _product(names):
    return " * ".join(names)


def _term_value(ctx, comp, inst, n):
    """Lines for X of one term; returns its (re, im) texts."""
    tag = f"{comp.key}_{n}"
    if _whole_term(comp):
        return comp.lineshape.value(ctx, comp, inst, tag)
    reals = [f.value(ctx, comp, inst, f"{tag}_r{j}") for j, f in enumerate(comp.dynamic_factors)]
    reals += _static_reals(ctx, comp, inst, n)
    re, im = comp.lineshape.value(ctx, comp, inst, f"{tag}_l")
    if not reals:
        return re, im
    w, xr, xi = ctx.var(f"{tag}_w"), ctx.var(f"{tag}_xr"), ctx.var(f"{tag}_xi")
    ctx.emit(f"{w} = {_product(reals)}", f"{xr} = {re} * {w}", f"{xi} = {im} * {w}")
    return xr, xi


def _term_gradient(ctx, comp, inst, n):
    """Lines for X of one term and dX/dp for each parameter p it depends on;
    returns (xr, xi), {p: (dre, dim)}.  A term written whole on the expression
    layer is differentiated there; otherwise (a lineshape of the user's own)
    by the product rule over the lineshape and the real factors."""
    tag = f"{comp.key}_{n}"
    if _whole_term(comp):
        x, dl = comp.lineshape.gradient(ctx, comp, inst, tag)
        return x, _role_derivatives(ctx, comp, dl, tag)
    (re, im), dl = comp.lineshape.gradient(ctx, comp, inst, f"{tag}_l")
    reals, dreals = [], []
    for j, f in enumerate(comp.dynamic_factors):
        v, dv = f.gradient(ctx, comp, inst, f"{tag}_r{j}")
        reals.append(v)
        dreals.append(dv)
    for field in _static_reals(ctx, comp, inst, n):
        reals.append(field)
        dreals.append({})
    if reals:
        w, xr, xi = ctx.var(f"{tag}_w"), ctx.var(f"{tag}_xr"), ctx.var(f"{tag}_xi")
        ctx.emit(f"{w} = {_product(reals)}", f"{xr} = {re} * {w}", f"{xi} = {im} * {w}")
    else:
        w, xr, xi = None, re, im
    out = {}
    for p in comp.parameter_names():
        roles = [r for r, q in comp.quantities.items() if q.kind == "parameter" and q.name == p]
        lre = [dl[r][0] for r in roles if r in dl]
        lim = [dl[r][1] for r in roles if r in dl]
        # d(prod R_j)/dp = sum_j dR_j/dp prod_{l != j} R_l
        parts = []
        for j, dv in enumerate(dreals):
            d = [dv[r] for r in roles if r in dv]
            if d:
                others = reals[:j] + reals[j + 1:]
                dj = d[0] if len(d) == 1 else "(" + " + ".join(d) + ")"
                parts.append(_product([dj] + others))
        if not lre and not parts:
            continue
        dre, dim = ctx.var(f"{tag}_d{p}_re"), ctx.var(f"{tag}_d{p}_im")
        t_re = [f"{x} * {w}" if w else x for x in lre]
        t_im = [f"{x} * {w}" if w else x for x in lim]
        if parts:
            u = ctx.var(f"{tag}_u{p}")
            ctx.emit(f"{u} = {' + '.join(parts)}")
            t_re.append(f"{re} * {u}")
            t_im.append(f"{im} * {u}")
        ctx.emit(f"{dre} = {' + '.join(t_re)}", f"{dim} = {' + '.join(t_im)}")
        out[p] = (dre, dim)
    return (xr, xi), out


def _role_derivatives(ctx, comp, dl, tag):
    """{parameter: (dre, dim)} from the lineshape's {role: (dre, dim)}."""
    out = {}
    for p in comp.parameter_names():
        parts = [dl[r] for r, q in comp.quantities.items()
                 if q.kind == "parameter" and q.name == p and r in dl]
        if len(parts) == 1:
            out[p] = parts[0]
        elif parts:
            dre, dim = ctx.var(f"{tag}_d{p}_re"), ctx.var(f"{tag}_d{p}_im")
            ctx.emit(f"{dre} = {' + '.join(d[0] for d in parts)}",
                     f"{dim} = {' + '.join(d[1] for d in parts)}")
            out[p] = (dre, dim)
    return out


def _component(ctx, comp, gradient):
    """X of a component (summed over its terms) and with ``gradient`` its derivatives."""
    ctx.emit(f"# {comp.describe()}")
    if comp.lineshape is None:
        return ("1", "0"), {}
    terms = [(_term_gradient if gradient else _term_value)(ctx, comp, inst, n)
             for n, inst in enumerate(comp.instances)]
    if not gradient:
        terms = [(t, {}) for t in terms]
    if len(terms) == 1:
        return terms[0]
    xr, xi = ctx.var(f"{comp.key}_xr"), ctx.var(f"{comp.key}_xi")
    ctx.emit(f"{xr} = {' + '.join(t[0][0] for t in terms)}",
             f"{xi} = {' + '.join(t[0][1] for t in terms)}")
    out = {}
    for p in comp.parameter_names():
        parts = [t[1][p] for t in terms if p in t[1]]
        if parts:
            dre, dim = ctx.var(f"{comp.key}_d{p}_re"), ctx.var(f"{comp.key}_d{p}_im")
            ctx.emit(f"{dre} = {' + '.join(x[0] for x in parts)}",
                     f"{dim} = {' + '.join(x[1] for x in parts)}")
            out[p] = (dre, dim)
    return (xr, xi), out


def _accumulate(ctx, comp, x):
    cr, ci = ctx.slot(comp, "C_RE"), ctx.slot(comp, "C_IM")
    xr, xi = x
    if xr == "1":
        ctx.emit(f"are = are + {cr}", f"aim = aim + {ci}")
    else:
        ctx.emit(f"are = are + {cr} * {xr} - {ci} * {xi}",
                 f"aim = aim + {cr} * {xi} + {ci} * {xr}")


# ---------------------------------------------------------------------------
# Couplings (the coupling forms' value and derivative rules)
# ---------------------------------------------------------------------------

def _leaf(quantity):
    """A model quantity as an expression leaf (parameter or constant)."""
    if quantity.kind == "parameter":
        return _expressions.parameter(quantity.name)
    return _expressions.constant(quantity.name)


def _fill_coupling(ctx, comp, printer):
    """c and dc/dp of one component, from the coupling form's expression
    (:meth:`vecampfit.isobar.Polar.expression`, ...) and its derivatives."""
    q = comp.coupling_quantities
    c = comp.coupling.expression({r: _leaf(x) for r, x in q.items()},
                                 None if comp.scale is None else _leaf(comp.scale))
    s = lambda what: ctx.slot(comp, what)  # noqa: E731
    ctx.emit(f"# {comp.key}: coupling ({comp.coupling.form})")
    if comp.scale is not None:
        ctx.emit(f"{s('SCALE')} = {printer.code(_leaf(comp.scale), 'c')}")
    ctx.emit(f"{s('C_RE')} = {printer.code(c.re, 'c')}", f"{s('C_IM')} = {printer.code(c.im, 'c')}")
    done = set()
    for role, x in q.items():
        if x.kind != "parameter":
            continue
        d = (_expressions.derivative(c, x.name) if x.name not in done
             else _expressions.ComplexExpr(0.0))
        done.add(x.name)
        ctx.emit(f"{s(f'DC_{role}_RE')} = {printer.code(d.re, 'c')}",
                 f"{s(f'DC_{role}_IM')} = {printer.code(d.im, 'c')}")


def _coupling_derivatives(comp):
    """{parameter: [role, ...]} of the coupling."""
    out = {}
    for role, q in comp.coupling_quantities.items():
        if q.kind == "parameter":
            out.setdefault(q.name, []).append(role)
    return out


# ---------------------------------------------------------------------------
# Functions
# ---------------------------------------------------------------------------

def _declare(ctx, ctype, extra=()):
    return _declaration(list(extra) + [v for v in ctx.vars if v not in extra], ctype)


def _declaration(names, ctype):
    """``cdef ctype a, b, ...`` lines (eight names a line) of a function body."""
    return [f"    cdef {ctype} " + ", ".join(names[k:k + 8]) for k in range(0, len(names), 8)]


def _indent(lines, n):
    return [" " * n + line if line else line for line in lines]


def _fill_printer(ctx):
    """The expression printer of the fill function (double precision,
    parameters and constants read from their arrays)."""
    counter = iter(range(1 << 30))

    def leaf(node):
        if node.op == "par":
            return f"par[PAR_{node.data}]"
        if node.op == "const":
            return f"constants[C_{node.data}]"
        if node.op == "event":
            raise ValueError(f"event quantity {node.data!r} in a parameter-buffer slot")
        return None
    return _expressions.CythonPrinter(leaf, lambda hint: ctx.var(f"{hint}_{next(counter)}"),
                                      ctx.emit, ctype="double")


def _fill_expressions(ctx, layout, printer):
    """The parameter-buffer slots of the expression layer's parameter-only
    nodes, in double precision, each shared subexpression computed once."""
    if not layout.expression_slots:
        return
    ctx.emit("# expression layer: parameter-only subexpressions")
    for expr, name in layout.expression_slots.items():
        ctx.emit(f"# {name} = {_expressions.infix(expr)}")
        ctx.emit(f"pb[{name}] = {printer.code(expr, 'f')}")


def _fill_function(layout):
    ctx = Context(layout, "fill")
    printer = _fill_printer(ctx)
    for comp in layout.model.components:
        if comp.lineshape is not None and not _whole_term(comp):
            ctx.emit(f"# {comp.describe()}")
            comp.lineshape.fill(ctx, comp)
            for f in comp.dynamic_factors:
                f.fill(ctx, comp)
        _fill_coupling(ctx, comp, printer)
    _fill_expressions(ctx, layout, printer)
    head = ["cdef void fill_parameter_buffer(floating *pb, const floating *par,",
            "                                const double *constants) noexcept nogil:",
            '    """The parameter buffer from the parameters and constants (in double precision)."""']
    return head + _declare(ctx, "double") + _indent(ctx.lines, 4)


_LANE_HEAD = {
    "density": ["cdef void density(floating *out, const void *event_block, const floating *params,",
                "                  const void *parameter_buffer) noexcept nogil:",
                '    """S = |A|^2 for the L events of one block."""'],
    "components": ["cdef void component_amplitudes(floating *out, const void *event_block,",
                   "                               const floating *params,",
                   "                               const void *parameter_buffer) noexcept nogil:",
                   '    """X_k of every component k, without its coupling but with the',
                   "    coupling's constant scale: out[(2 k) L + i] = Re, out[(2 k + 1) L + i] = Im.\"\"\""],
}


def _gradient_sum_function(layout):
    """density_gradient_sum in two loops over the lanes.  The first is the
    density's: A and S, and 2A kept per lane.  The second forms each
    component's X_k and dX_k/dp and adds its rows at once, f dS/dp with
    dS/dp = Re(conj(2A) (c_k dX_k + dc_k X_k)), through h_k = conj(2A) c_k
    and u_k = conj(2A) X_k: nothing but 2A passes from one loop to the
    other, so that few values outlive a component.  A parameter shared by
    several components is added once, after its last one, as the sum of its
    rows.  A row is added as the fitter adds a weighted term (add_product),
    so that the sums are the same to the bit as the fitter's from
    density_gradient."""
    comps = layout.model.components
    first = Context(layout, "lane")
    first.emit("are = 0", "aim = 0")
    for comp in comps:
        _accumulate(first, comp, _component(first, comp, False)[0])
    first.emit("out[i] = are * are + aim * aim",
               "g[i] = 2 * are", "g[VECTOR_LENGTH + i] = 2 * aim",
               "f[i] = factor[i]")
    second = Context(layout, "lane")
    second.emit("gr = g[i]", "gi = g[VECTOR_LENGTH + i]")
    pieces = []          # (lines of component k, {parameter: [row, ...]})
    doubles = ["gr", "gi"]
    for k, comp in enumerate(comps):
        start = len(second.lines)
        x, dx = _component(second, comp, True)
        rows = {}
        dcs = _coupling_derivatives(comp)
        if dx:
            cr, ci = second.slot(comp, "C_RE"), second.slot(comp, "C_IM")
            h_re, h_im = f"h{k}_re", f"h{k}_im"
            doubles += [h_re, h_im]
            second.emit(f"{h_re} = gr * {cr} + gi * {ci}", f"{h_im} = gr * {ci} - gi * {cr}")
            for p, (dr, di) in dx.items():
                rows.setdefault(p, []).append(f"{h_re} * {dr} - {h_im} * {di}")
        if dcs:
            if x == ("1", "0"):
                ur, ui = "gr", "(-gi)"
            else:
                ur, ui = f"u{k}_re", f"u{k}_im"
                doubles += [ur, ui]
                second.emit(f"{ur} = gr * {x[0]} + gi * {x[1]}",
                            f"{ui} = gr * {x[1]} - gi * {x[0]}")
            for p, roles in dcs.items():
                for role in roles:
                    rows.setdefault(p, []).append(
                        f"{ur} * {second.slot(comp, f'DC_{role}_RE')} - "
                        f"{ui} * {second.slot(comp, f'DC_{role}_IM')}")
        pieces.append((second.lines[start:], rows))
        del second.lines[start:]
    last = {}
    for k, (_, rows) in enumerate(pieces):
        for p in rows:
            last[p] = k
    collected = {}
    for k, (lines, rows) in enumerate(pieces):
        second.emit(*lines)
        for p, r in rows.items():
            collected.setdefault(p, []).extend(r)
        for p in layout.parameters:
            if last.get(p) == k:
                expr = "(" + "\n        + ".join(collected[p]) + ")"
                at = f"sums[PAR_{p} * VECTOR_LENGTH + i]"
                second.emit(f"{at} = add_product({at}, f[i], {expr})")
    head = list(_expressions.printing.GRADIENT_SUM_HEAD)
    head += ["    cdef const floating *ev = <const floating *> event_block",
             "    cdef const floating *pb = <const floating *> parameter_buffer",
             "    cdef double g[2 * VECTOR_LENGTH]",
             "    cdef double f[VECTOR_LENGTH]"]
    head += _declaration(doubles, "double")
    # The two loops share the names of their intermediate values.
    head += _declaration(list(dict.fromkeys(["are", "aim", *first.vars, *second.vars])),
                         "floating") + ["    cdef int i"]
    body = head + ["    for i in range(VECTOR_LENGTH):"] + _indent(first.lines, 8)
    body += ["    for i in range(VECTOR_LENGTH):"] + _indent(second.lines, 8)
    body += [""] + [""] + list(_expressions.printing.GRADIENT_FROM_SUM)
    return body


def _lane_function(layout, kind):
    """``density`` (kind "density") or ``component_amplitudes`` ("components"):
    one loop over the lanes of a block."""
    ctx = Context(layout, "lane")
    comps = layout.model.components
    if kind == "density":
        ctx.emit("are = 0", "aim = 0")
    for k, comp in enumerate(comps):
        x, _ = _component(ctx, comp, False)
        if kind == "components":
            n = f" * {ctx.slot(comp, 'SCALE')}" if comp.scale is not None else ""
            ctx.emit(f"o[{2 * k} * VECTOR_LENGTH + i] = {x[0]}{n}",
                     f"o[{2 * k + 1} * VECTOR_LENGTH + i] = {x[1]}{n}")
        else:
            _accumulate(ctx, comp, x)
    if kind == "density":
        ctx.emit("out[i] = are * are + aim * aim")
    head = list(_LANE_HEAD[kind])
    head += ["    cdef const floating *ev = <const floating *> event_block",
             "    cdef const floating *pb = <const floating *> parameter_buffer"]
    if kind == "components":
        head += ["    # Formed in a local array (which cannot overlap the parameter buffer).",
                 "    cdef floating o[2 * N_COMPONENTS * VECTOR_LENGTH]"]
    extra = () if kind == "components" else ("are", "aim")
    head += _declare(ctx, "floating", extra) + ["    cdef int i", "    for i in range(VECTOR_LENGTH):"]
    body = head + _indent(ctx.lines, 8)
    if kind == "components":
        body += ["    for i in range(2 * N_COMPONENTS * VECTOR_LENGTH):", "        out[i] = o[i]"]
    return body


def _single_component_function(layout, k):
    """X_k of component ``k`` alone (the fitter's partial recomputation)."""
    ctx = Context(layout, "lane")
    comp = layout.model.components[k]
    x, _ = _component(ctx, comp, False)
    n = f" * {ctx.slot(comp, 'SCALE')}" if comp.scale is not None else ""
    ctx.emit(f"o[i] = {x[0]}{n}", f"o[VECTOR_LENGTH + i] = {x[1]}{n}")
    head = [f"cdef void component_amplitude_{k}(floating *out, const void *event_block,",
            "                               const floating *params,",
            "                               const void *parameter_buffer) noexcept nogil:",
            f'    """X of component {k} ({comp.key}) as component_amplitudes writes it, in',
            '    out[i] (Re) and out[L + i] (Im)."""',
            "    cdef const floating *ev = <const floating *> event_block",
            "    cdef const floating *pb = <const floating *> parameter_buffer",
            "    cdef floating o[2 * VECTOR_LENGTH]"]
    head += _declare(ctx, "floating") + ["    cdef int i", "    for i in range(VECTOR_LENGTH):"]
    return head + _indent(ctx.lines, 8) + ["    for i in range(2 * VECTOR_LENGTH):",
                                           "        out[i] = o[i]"]


def component_dependencies(model):
    """Per component, the parameters its :math:`X_k` depends on: those of
    its lineshape and factors (a coupling's scale is a constant)."""
    return tuple(tuple(comp.parameter_names()) for comp in model.components)


def _enum(title, names, count_name, count=None):
    lines = [f"# {title}", "cdef enum:"]
    lines += [f"    {n} = {k}" for k, n in enumerate(names)]
    lines.append(f"    {count_name} = {len(names) if count is None else count}")
    return lines


_TAIL = '''
def vecampfit_model():
    """Parameters, event fields, constants, buffer sizes and functions of this
    model, and its components for cached fits (when every coupling is made of
    parameters)."""
    desc = model_description(PARAMETERS, EVENT_FIELDS, CONSTANTS,
                             N_PARAMETERS, N_EVENT_FIELDS, PARAMETER_BUFFER_SIZE, N_CONSTANTS,
                             density[double], density[float],
                             density_gradient[double], density_gradient[float],
                             fill_parameter_buffer[double], fill_parameter_buffer[float])
    desc["gradient_sums"] = gradient_sum_functions(density_gradient_sum[double],
                                                   density_gradient_sum[float])
    if COMPONENT_COUPLINGS is not None:
        desc["components"] = component_description(
            COMPONENTS, COMPONENT_COUPLINGS, N_COMPONENTS, component_amplitudes[double],
            component_amplitudes[float], COMPONENT_DEPENDS, _single_components())
    return desc


def component_kernel(precision="float64"):
    """The block function component_amplitudes as a capsule, named by its C signature."""
    if precision == "float64":
        return PyCapsule_New(<void *> component_amplitudes[double],
                             b"void (double *, void const *, double const *, void const *)", NULL)
    if precision == "float32":
        return PyCapsule_New(<void *> component_amplitudes[float],
                             b"void (float *, void const *, float const *, void const *)", NULL)
    raise ValueError(f"precision must be 'float64' or 'float32', got {precision!r}")


def fill(floating[::1] params, const double[::1] constants, floating[::1] buffer):
    """Fill ``buffer`` (PARAMETER_BUFFER_SIZE elements) from the parameters and constants."""
    if (params.shape[0] != N_PARAMETERS or constants.shape[0] != max(N_CONSTANTS, 1)
            or buffer.shape[0] != max(PARAMETER_BUFFER_SIZE, 1)):
        raise ValueError("fill: wrong sizes of params, constants or buffer")
    fill_parameter_buffer(&buffer[0], &params[0], &constants[0])


def evaluate_components(floating[:, :, ::1] blocks, floating[::1] buffer, floating[:, :, ::1] out):
    """X_k of every component over blocks (n_blocks, N_EVENT_FIELDS, L) into
    out (n_blocks, 2 N_COMPONENTS, L) (real and imaginary parts)."""
    cdef Py_ssize_t b
    if (blocks.shape[1] != N_EVENT_FIELDS or blocks.shape[2] != VECTOR_LENGTH
            or out.shape[0] != blocks.shape[0] or out.shape[1] != 2 * N_COMPONENTS
            or out.shape[2] != VECTOR_LENGTH or buffer.shape[0] < PARAMETER_BUFFER_SIZE):
        raise ValueError("evaluate_components: wrong shapes")
    with nogil:
        for b in range(blocks.shape[0]):
            component_amplitudes(&out[b, 0, 0], &blocks[b, 0, 0], &buffer[0], &buffer[0])
'''


def component_couplings(model):
    """Per component ``(form, first, second)`` in the form of
    ``vecampfit.fitter.components``, or None if a coupling has a constant part."""
    out = []
    for comp in model.components:
        q = comp.coupling_quantities
        if any(x.kind != "parameter" for x in q.values()):
            return None
        if comp.coupling.form == "polar":
            out.append(("polar_degrees", q["magnitude"].name, q["phase"].name))
        else:
            out.append(("cartesian", q["re"].name, q["im"].name))
    return tuple(out)


def _functions(model, layout):
    """(layout, lines of the block functions) printed with ``layout``."""
    functions = []
    for kind in ("density", "gradient", "components"):
        functions += [""] + (_gradient_sum_function(layout) if kind == "gradient"
                             else _lane_function(layout, kind)) + [""]
    for k in range(len(model.components)):
        functions += [""] + _single_component_function(layout, k) + [""]
    return layout, functions


def generate(model):
    """Cython source of the model's block density (see the module description).

    Returns
    -------
    source : str
    layout : Layout
        Names, fields (with their numpy functions) and buffer slots.
    """
    layout = _functions(model, Layout(model))[0]
    layout, functions = _functions(model, Layout(model, field_basis(layout)))
    single = ["def _single_components():",

              '    """Per component, its function alone (float64 and float32)."""',
              "    return ["]
    single += [f"        single_component_functions(component_amplitude_{k}[double], "
               f"component_amplitude_{k}[float])," for k in range(len(model.components))]
    single += ["    ]", ""]
    fill = _fill_function(layout)
    comps = [c.key for c in model.components]
    out = [f"# Generated by vecampfit.isobar from the model {model.name!r}: edit the model, not this",
           "# file (vecampfit.isobar.IsobarModel.source() writes it again).",
           "#",
           f"# {model.decay_description()}"]
    out += [f"#   {c.describe()}" for c in model.components]
    out += ["",
            "from cpython.pycapsule cimport PyCapsule_New",
            "from cython cimport floating",
            "from libc.math cimport M_PI, atan2, cos, exp, fabs, fmax, log, pow, sin, sqrt",
            "",
            "from vecampfit._libm cimport _atan2, _cos, _fabs, _fmax, _sin, _sqrt",
            "from vecampfit.block cimport VECTOR_LENGTH",
            *_expressions.printing.density_cimport("component_description")]
    if layout.math_imports:
        out += ["from vecampfit.mathematical_functions cimport ("]
        out += [f"    {name}," for name in sorted(layout.math_imports)] + [")"]
    out += ["",
            f"PARAMETERS = {tuple(layout.parameters)!r}",
            f"EVENT_FIELDS = {tuple(layout.fields)!r}",
            f"CONSTANTS = {json.dumps(layout.constants)}",
            f"COMPONENTS = {tuple(comps)!r}",
            "# The couplings for the fitter's cached evaluation (vecampfit.fitter.components);",
            "# None if a coupling has a constant part.  X_k there includes the constant scale.",
            f"COMPONENT_COUPLINGS = {component_couplings(model)!r}",
            "# Per component, the parameters X_k depends on (the fitter recomputes only",
            "# the components whose parameters moved).",
            f"COMPONENT_DEPENDS = {component_dependencies(model)!r}",
            ""]
    out += _enum("Parameters (params[])", [f"PAR_{p}" for p in layout.parameters],
                 "N_PARAMETERS") + [""]
    out += _enum("Event fields, real vectors of L lanes (ev[F * L + i])",
                 [f"F_{f}" for f in layout.fields], "N_EVENT_FIELDS") + [""]
    out += _enum("Constants (constants[])", [f"C_{c}" for c in layout.constants],
                 "N_CONSTANTS") + [""]
    out += _enum("Parameter buffer (pb[])", list(layout.slots), "PARAMETER_BUFFER_SIZE") + [""]
    out += ["cdef enum:", f"    N_COMPONENTS = {len(comps)}", ""]
    for code in layout.support.values():
        out += code.strip("\n").split("\n") + ["", ""]
    out += [""] + fill + functions + single + _TAIL.split("\n")
    return "\n".join(out) + "\n", layout
