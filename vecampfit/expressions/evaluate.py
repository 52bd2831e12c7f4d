"""The numpy form of an expression: the reference evaluation.

:func:`evaluate` walks the tree once (each shared node once) with numpy
operations in double precision; it is what the event buffer is filled with
(event-only nodes) and what the tests compare the generated Cython with.
"""

import numpy as np

from .nodes import ComplexExpr

__all__ = ["evaluate"]


def _prod(values):
    out = values[0]
    for v in values[1:]:
        out = out * v
    return out


def _power(x, n):
    if n == 0.5:
        return np.sqrt(x)
    if isinstance(n, int) and n < 0:
        return 1.0 / x ** (-n)
    return np.power(x, n)


_OPS = {
    "add": lambda node, a: sum(a[1:], a[0]),
    "mul": lambda node, a: _prod(a),
    "pow": lambda node, a: _power(a[0], node.data),
    "exp": lambda node, a: np.exp(a[0]),
    "log": lambda node, a: np.log(a[0]),
    "sin": lambda node, a: np.sin(a[0]),
    "cos": lambda node, a: np.cos(a[0]),
    "pos": lambda node, a: np.maximum(a[0], 0.0),
    "abs": lambda node, a: np.abs(a[0]),
    "group": lambda node, a: a[0],
    "step": lambda node, a: np.where(np.asarray(a[0]) > 0, 1.0, 0.0),
    "atan2": lambda node, a: np.arctan2(a[0], a[1]),
}


def evaluate(expr, values, memo=None):
    """Value of an expression in numpy (float64).

    Parameters
    ----------
    expr : Expr or ComplexExpr
    values : dict or callable
        Leaf name -> value (float or array), or a function of the leaf node.
        A missing name raises KeyError naming it.
    memo : dict, optional
        Shared between calls with the same ``values``.

    Returns
    -------
    float, ndarray or complex ndarray
        Complex for a :class:`ComplexExpr`.
    """
    memo = {} if memo is None else memo
    if isinstance(expr, ComplexExpr):
        re = evaluate(expr.re, values, memo)
        im = evaluate(expr.im, values, memo)
        return np.asarray(re, dtype=np.float64) + 1j * np.asarray(im, dtype=np.float64)
    lookup = values if callable(values) else None

    def leaf(node):
        if lookup is not None:
            return lookup(node)
        try:
            return values[node.data]
        except KeyError:
            raise KeyError(f"no value for the {dict(par='parameter', const='constant', event='event quantity')[node.op]} "
                           f"{node.data!r}") from None

    def walk(node):
        if node in memo:
            return memo[node]
        if node.op == "num":
            out = node.data
        elif node.op in ("par", "const", "event"):
            out = leaf(node)
        else:
            out = _OPS[node.op](node, [walk(a) for a in node.args])
        memo[node] = out
        return out

    with np.errstate(invalid="ignore", divide="ignore"):
        return walk(expr)
