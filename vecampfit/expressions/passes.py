"""Passes over expressions: substitution, derivatives, hoisting.

Each pass is one function that walks the tree once (memoized by node, so a
shared subexpression is visited once):

* :func:`substitute` replaces leaves (a lineshape's roles by the model's
  parameters and constants, a pair's generic invariant by its own);
* :func:`derivative` differentiates by one parameter, with the rules of
  :data:`DERIVATIVE_RULES` (one per operation); the result goes through the
  canonical constructors, so it simplifies like any expression;
* :func:`hoist` splits every per-event sum and product into its
  parameter-only part, its event-only part and the rest: the first becomes
  one parameter-buffer slot (filled once per call), the second one event
  field (filled once, when the events are loaded), and only the rest is
  computed per event.
"""

from .nodes import (ONE, ZERO, ComplexExpr, Expr, absolute, add, atan2, cos, exp, group, log, mul,
                    pos, power, sin, step)

__all__ = ["substitute", "derivative", "complex_derivative", "hoist", "DERIVATIVE_RULES",
           "leaves"]

_REBUILD = {
    "add": lambda node, args: add(*args),
    "mul": lambda node, args: mul(*args),
    "pow": lambda node, args: power(args[0], node.data),
    "exp": lambda node, args: exp(args[0]),
    "log": lambda node, args: log(args[0]),
    "sin": lambda node, args: sin(args[0]),
    "cos": lambda node, args: cos(args[0]),
    "pos": lambda node, args: pos(args[0]),
    "abs": lambda node, args: absolute(args[0]),
    "group": lambda node, args: group(args[0]),
    "step": lambda node, args: step(args[0]),
    "atan2": lambda node, args: atan2(args[0], args[1]),
}


def substitute(expr, mapping, memo=None):
    """``expr`` with leaves replaced.

    Parameters
    ----------
    expr : Expr or ComplexExpr
    mapping : dict or callable
        Leaf -> replacement (an :class:`Expr`), or a function of a leaf
        returning its replacement or None (kept).
    memo : dict, optional
        Shared between calls that substitute the same mapping.

    Returns
    -------
    Expr or ComplexExpr
    """
    if isinstance(expr, ComplexExpr):
        memo = {} if memo is None else memo
        if expr.quotient is not None:
            num, den = expr.quotient
            return substitute(num, mapping, memo) / substitute(den, mapping, memo)
        # A common real factor stays apart (ComplexExpr.scaled).
        return ComplexExpr.scaled(*(substitute(x, mapping, memo) for x in expr.parts()))
    memo = {} if memo is None else memo
    lookup = mapping if callable(mapping) else mapping.get

    def walk(node):
        if node in memo:
            return memo[node]
        if node.op in ("par", "const", "event"):
            out = lookup(node)
            out = node if out is None else out
        elif node.op == "num":
            out = node
        else:
            out = _REBUILD[node.op](node, [walk(a) for a in node.args])
        memo[node] = out
        return out
    return walk(expr)


def leaves(expr):
    """The leaves (parameters, constants, events) below ``expr``, in first-visit order."""
    seen, out = set(), []
    roots = [expr.re, expr.im] if isinstance(expr, ComplexExpr) else [expr]
    stack = list(reversed(roots))
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if node.op in ("par", "const", "event"):
            out.append(node)
        stack.extend(reversed(node.args))
    return out


# ---------------------------------------------------------------------------
# Derivatives: one rule per operation, d(node) from the node, its arguments
# and the arguments' derivatives.
# ---------------------------------------------------------------------------

def _d_add(node, d):
    return add(*d)


def _d_mul(node, d):
    terms = []
    for k, dk in enumerate(d):
        if dk != ZERO:
            terms.append(mul(dk, *(node.args[:k] + node.args[k + 1:])))
    return add(*terms)


def _d_pow(node, d):
    n = node.data
    return mul(n, power(node.args[0], n - 1), d[0])


DERIVATIVE_RULES = {
    "add": _d_add,
    "mul": _d_mul,
    "pow": _d_pow,
    "exp": lambda node, d: mul(node, d[0]),
    "log": lambda node, d: mul(power(node.args[0], -1), d[0]),
    "sin": lambda node, d: mul(cos(node.args[0]), d[0]),
    "cos": lambda node, d: mul(-1.0, sin(node.args[0]), d[0]),
    "pos": lambda node, d: mul(step(node.args[0]), d[0]),
    "step": lambda node, d: ZERO,
    "group": lambda node, d: d[0],
    # d|x| = sgn(x) dx, sgn(x) = 2 [x > 0] - 1 away from zero
    "abs": lambda node, d: mul(add(mul(2.0, step(node.args[0])), -1.0), d[0]),
    # d atan2(y, x) = (x dy - y dx) / (x^2 + y^2)
    "atan2": lambda node, d: mul(add(mul(node.args[1], d[0]), mul(-1.0, node.args[0], d[1])),
                                 power(add(mul(node.args[0], node.args[0]),
                                           mul(node.args[1], node.args[1])), -1)),
}
"""The derivative rule of each operation: ``rule(node, [d arg])`` -> d node.

``pos``, ``abs`` and ``step`` are differentiated as functions of their argument
away from zero (:math:`\\partial \\max(x, 0) = [x > 0]\\,\\partial x`).
"""


def derivative(expr, name, memo=None):
    """:math:`\\partial\\, \\mathrm{expr} / \\partial\\, \\mathrm{name}`.

    Parameters
    ----------
    expr : Expr or ComplexExpr
    name : str
        A parameter name (constants and events have zero derivatives).
    memo : dict, optional
        Shared between calls with the same ``name`` (a subexpression common
        to several outputs is differentiated once).

    Returns
    -------
    Expr or ComplexExpr
    """
    if isinstance(expr, ComplexExpr):
        memo = {} if memo is None else memo
        if expr.quotient is not None:
            # X = N/D: dX = dN Z - (X Z) dD, Z = 1/D, with X Z one complex
            # value shared by every parameter (complex products, no
            # derivative of |D|^2).
            num, den = expr.quotient
            dden = derivative(den, name, memo)
            z = den.reciprocal()
            out = derivative(num, name, memo) * z
            if dden.re != ZERO or dden.im != ZERO:
                y = expr * z
                y = ComplexExpr(group(y.re), group(y.im))
                out = out - y * dden
            return out
        return ComplexExpr(derivative(expr.re, name, memo), derivative(expr.im, name, memo))
    memo = {} if memo is None else memo

    def walk(node):
        if name not in node.parameters:
            return ZERO
        if node.op == "par":
            return ONE
        if node in memo:
            return memo[node]
        out = DERIVATIVE_RULES[node.op](node, [walk(a) for a in node.args])
        memo[node] = out
        return out
    return walk(expr)


def complex_derivative(expr, name, memo=None):
    """The derivative of a complex expression (alias of :func:`derivative`,
    which handles both)."""
    return derivative(expr, name, memo)


# ---------------------------------------------------------------------------
# Hoisting
# ---------------------------------------------------------------------------

def _group(op, args):
    if not args:
        return None
    if len(args) == 1:
        return args[0]
    return add(*args) if op == "add" else mul(*args)


def _split(term):
    """(parameter part, rest) of a product: the numbers and parameter-only
    factors, and the factors that depend on the event."""
    factors = term.args if term.op == "mul" else (term,)
    head = [f for f in factors if f.dependency in ("number", "parameter")]
    rest = [f for f in factors if f.dependency not in ("number", "parameter")]
    return mul(*head), mul(*rest)


def _collect(node):
    """A per-event sum with the terms that share their per-event factors
    collected: p1 R + p2 R = (p1 + p2) R, the parameter sum one slot."""
    groups = {}
    for t in node.args:
        p, rest = _split(t)
        groups.setdefault(rest, []).append(p)
    if len(groups) == len(node.args):
        return node
    terms = [mul(add(*ps), rest) if len(ps) > 1 else mul(ps[0], rest)
             for rest, ps in groups.items()]
    if len(terms) == 1:
        return terms[0]
    return Expr("add", terms)


def hoist(expr, memo=None):
    """Regroup per-event sums and products by dependency class.

    Terms of a sum that share their per-event factors are collected
    (:math:`p_1 R + p_2 R = (p_1 + p_2) R`).  A sum or product that depends on parameters and events is rebuilt as
    ``[parameter part] op [event part] op mixed...``, each part one node
    (the printer puts the first in the parameter buffer and the second in
    the event buffer).  The result is for printing only: its regrouped
    nodes are not in canonical form.

    Parameters
    ----------
    expr : Expr
    memo : dict, optional
        Shared by the outputs of one function (so shared nodes stay shared).

    Returns
    -------
    Expr
    """
    memo = {} if memo is None else memo

    def walk(node):
        if node.dependency != "mixed":
            return node
        if node in memo:
            return memo[node]
        if node.op == "add":
            node = _collect(node)
            if node.op != "add":
                out = walk(node)
                memo[node] = out
                return out
        if node.op in ("add", "mul"):
            groups = {"number": [], "parameter": [], "event": [], "mixed": []}
            for a in node.args:
                groups[a.dependency].append(a)
            head = groups["number"] + groups["parameter"]
            parts = [_group(node.op, head), _group(node.op, groups["event"])]
            parts = [p for p in parts if p is not None] + [walk(a) for a in groups["mixed"]]
            out = parts[0] if len(parts) == 1 else Expr(node.op, parts)
        else:
            out = Expr(node.op, [walk(a) for a in node.args], node.data)
        memo[node] = out
        return out
    return walk(expr)
