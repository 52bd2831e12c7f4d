"""Formula strings parsed into expressions.

A formula is written as in a paper or a model file::

    1/(m0^2 - s - i*m0*(g1^2*rho(s, mK, mK) + g2^2*rho(s, mpi, mpi)))

Syntax: numbers, names, ``+ - * /``, powers ``^`` or ``**``, parentheses and
function calls.  ``i`` is the imaginary unit (unless a symbol of that name
is given), ``pi`` is :math:`\\pi`.  Functions: ``sqrt`` (a real argument of
either sign is taken on the physical sheet, :math:`i\\sqrt{-x}` below zero;
a complex one on the principal branch), ``exp``, ``log`` (real),
``sin``, ``cos`` (real), ``conj``, ``re``, ``im``, ``abs2``, and the
amplitude pieces ``rho(s, m1, m2)`` (two-body phase-space factor),
``breakup_momentum(s, m1, m2)``, ``breakup_momentum_squared(s, m1, m2)``,
``blatt_weisskopf(q2, r, l)``; more are passed by the caller.  Every other
name is looked up in ``symbols`` or, failing that, given to ``unknown`` (by
default it becomes a fit parameter of that name).
"""

import ast
import math
import numbers

from . import physics
from .nodes import ComplexExpr, as_complex, cos, exp, log, parameter, power, sin

__all__ = ["parse", "FUNCTIONS", "FormulaError"]


class FormulaError(ValueError):
    """A formula that cannot be parsed, naming the formula and the place.

    Attributes
    ----------
    column : int or None
        The 1-based column in the formula as written (characters), where
        known.
    """

    def __init__(self, message, column=None):
        super().__init__(message)
        self.column = column


def _real(z, what):
    z = as_complex(z)
    if not (z.im.is_number and z.im.data == 0.0):
        raise FormulaError(f"{what} takes a real argument")
    return z.re


def _sqrt(z):
    return physics.complex_sqrt(z)


def _int_arg(z, what):
    z = _real(z, what)
    if not (z.is_number and float(z.data).is_integer()):
        raise FormulaError(f"{what}: the orbital angular momentum must be an integer number")
    return int(z.data)


#: Functions known to every formula: name -> (number of arguments, function of ComplexExpr).
FUNCTIONS = {
    "sqrt": (1, _sqrt),
    "exp": (1, lambda z: ComplexExpr(exp(as_complex(z).re)) * ComplexExpr(
        cos(as_complex(z).im), sin(as_complex(z).im))),
    "log": (1, lambda z: ComplexExpr(log(_real(z, "log")))),
    "sin": (1, lambda z: ComplexExpr(sin(_real(z, "sin")))),
    "cos": (1, lambda z: ComplexExpr(cos(_real(z, "cos")))),
    "conj": (1, lambda z: as_complex(z).conjugate()),
    "re": (1, lambda z: ComplexExpr(as_complex(z).re)),
    "im": (1, lambda z: ComplexExpr(as_complex(z).im)),
    "abs2": (1, lambda z: ComplexExpr(as_complex(z).abs2())),
    "rho": (3, lambda s, a, b: physics.phase_space_factor(_real(s, "rho"), _real(a, "rho"),
                                                          _real(b, "rho"))),
    "breakup_momentum": (3, lambda s, a, b: physics.breakup_momentum(
        _real(s, "breakup_momentum"), _real(a, "breakup_momentum"),
        _real(b, "breakup_momentum"))),
    "breakup_momentum_squared": (3, lambda s, a, b: ComplexExpr(physics.breakup_momentum_squared(
        _real(s, "breakup_momentum_squared"), _real(a, "breakup_momentum_squared"),
        _real(b, "breakup_momentum_squared")))),
    "blatt_weisskopf": (3, lambda q2, r, l: ComplexExpr(physics.blatt_weisskopf(
        _real(q2, "blatt_weisskopf"), _real(r, "blatt_weisskopf"),
        _int_arg(l, "blatt_weisskopf")))),
}


def _power(base, exponent):
    e = as_complex(exponent)
    if not (e.im.is_number and e.im.data == 0.0 and e.re.is_number):
        raise FormulaError("an exponent must be a real number")
    n = e.re.data
    if float(n).is_integer():
        return as_complex(base) ** int(n)
    b = as_complex(base)
    if not (b.im.is_number and b.im.data == 0.0):
        raise FormulaError("a complex base takes integer exponents only")
    return ComplexExpr(power(b.re, n))


_BINARY = {
    ast.Add: lambda a, b: as_complex(a) + as_complex(b),
    ast.Sub: lambda a, b: as_complex(a) - as_complex(b),
    ast.Mult: lambda a, b: as_complex(a) * as_complex(b),
    ast.Div: lambda a, b: as_complex(a) / as_complex(b),
    ast.Pow: _power,
}


def parse(formula, symbols=None, functions=None, unknown=parameter):
    """A formula string as a complex expression.

    Parameters
    ----------
    formula : str
        The formula (see the module description).
    symbols : dict, optional
        Name -> value (number, :class:`~.nodes.Expr` or
        :class:`~.nodes.ComplexExpr`).
    functions : dict, optional
        Further functions: name -> (number of arguments, function of
        :class:`~.nodes.ComplexExpr` arguments).
    unknown : callable, optional
        ``unknown(name)`` for the other names (default: a fit parameter).

    Returns
    -------
    ComplexExpr

    Raises
    ------
    FormulaError
        Naming the formula and what is wrong where (a syntax error with its
        column, an unknown function, a wrong number of arguments, an
        operator the format does not have).
    """
    if not isinstance(formula, str):
        raise FormulaError(f"a formula must be a string, got {type(formula).__name__}")
    symbols = dict(symbols or {})
    table = dict(FUNCTIONS)
    table.update(functions or {})
    # Powers ^ become ** for Python's parser; the columns of its messages (in
    # characters for syntax errors, in UTF-8 bytes for nodes) are mapped back
    # to the formula as written.
    pieces, by_char, by_byte = [], [], []
    for n, ch in enumerate(formula):
        piece = "**" if ch == "^" else ch
        pieces.append(piece)
        by_char.extend([n + 1] * len(piece))
        by_byte.extend([n + 1] * len(piece.encode("utf-8")))
    text = "".join(pieces)
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as e:
        c = e.offset or 0
        c = by_char[c - 1] if 0 < c <= len(by_char) else c
        raise FormulaError(f"formula {formula!r}: syntax error at column {c}: {e.msg}",
                           column=c) from None

    def fail(node, msg):
        b = node.col_offset
        c = by_byte[b] if 0 <= b < len(by_byte) else b + 1
        raise FormulaError(f"formula {formula!r}, column {c}: {msg}", column=c)

    def wrapped(node, fn, *args):
        """fn(*args); an error without a place gets the node's (the innermost
        place is kept)."""
        try:
            return fn(*args)
        except FormulaError as e:
            if e.column is not None:
                raise
            fail(node, str(e))

    def walk(node):
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, bool) or not isinstance(v, (numbers.Real, complex)):
                fail(node, f"{v!r} is not a number")
            return as_complex(complex(v) if isinstance(v, complex) else float(v))
        if isinstance(node, ast.Name):
            name = node.id
            if name in symbols:
                return as_complex(symbols[name])
            if name == "i":
                return ComplexExpr(0.0, 1.0)
            if name == "pi":
                return as_complex(math.pi)
            if name in table:
                fail(node, f"{name} is a function: call it with arguments")
            out = unknown(name)
            return as_complex(out)
        if isinstance(node, ast.BinOp):
            op = _BINARY.get(type(node.op))
            if op is None:
                fail(node, f"operator {type(node.op).__name__} is not supported")
            left, right = walk(node.left), walk(node.right)
            return wrapped(node, op, left, right)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.USub):
                return -walk(node.operand)
            if isinstance(node.op, ast.UAdd):
                return walk(node.operand)
            fail(node, f"operator {type(node.op).__name__} is not supported")
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name):
                fail(node, "only named functions can be called")
            name = node.func.id
            if name not in table:
                fail(node, f"unknown function {name!r} (known: {', '.join(sorted(table))})")
            if node.keywords:
                fail(node, f"{name}: keyword arguments are not supported")
            count, fn = table[name]
            if len(node.args) != count:
                fail(node, f"{name} takes {count} argument(s), got {len(node.args)}")
            args = [walk(a) for a in node.args]
            return as_complex(wrapped(node, fn, *args))
        fail(node, f"{type(node).__name__} is not part of the formula syntax")

    return walk(tree)

