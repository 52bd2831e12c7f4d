"""Expression nodes: real-valued trees in canonical form, and complex pairs.

Every amplitude piece (a lineshape, a form factor, a coupling) is written
once as an expression over

* numbers (``num``),
* fit parameters (``par``: real, varied by the minimizer),
* named model constants (``const``: real, fixed during a fit, inputs of
  the parameter-buffer fill and of the event buffer),
* event quantities (``event``: real, one value per event, such as the
  squared invariant mass of a pair),

combined by ``add``, ``mul``, ``pow`` (a number as exponent), ``exp``,
``log``, ``sin``, ``cos``, ``atan2``, ``abs``, ``pos`` (:math:`\\max(x, 0)`)
and ``step`` (:math:`1` for :math:`x > 0`, else :math:`0`).  Square roots are
powers :math:`x^{1/2}`.

Nodes are immutable and compared by content: two nodes with the same
operation, data and arguments are equal and hash alike (a 128-bit digest of
their content), so a common subexpression is one key of a dictionary in
every pass.  The constructors below keep a canonical form (sums and
products flattened, numbers folded, equal factors merged into powers, equal
terms merged into multiples, arguments in a fixed order), which is what lets
the derivative of a formula simplify without a general algebra system.

Complex values are pairs of real expressions (:class:`ComplexExpr`): complex
arithmetic is lowered to real arithmetic when it is written, so that every
pass works on real trees and parts that vanish (the real part of
:math:`i m_0 \\Gamma_0`) fold away.
"""

import hashlib
import math
import numbers

__all__ = ["Expr", "ComplexExpr", "num", "parameter", "constant", "event", "add", "mul",
           "power", "sqrt", "exp", "log", "sin", "cos", "atan2", "absolute", "pos", "step", "group",
           "as_expr",
           "as_complex", "I", "ZERO", "ONE"]

#: Operations of one argument that fold numbers with ``math``.
_UNARY = {
    "exp": math.exp,
    "log": lambda x: math.log(x) if x > 0 else math.nan,
    "sin": math.sin,
    "cos": math.cos,
    "pos": lambda x: max(x, 0.0),
    "abs": abs,
    "step": lambda x: 1.0 if x > 0 else 0.0,
}

#: Order of the dependency classes in sums and products (numbers first, then
#: constants and parameters, then events, then what mixes both).
_CLASS_ORDER = {"number": 0, "parameter": 1, "event": 2, "mixed": 3}


def _real_operators(combine):
    """A binary operator of :class:`Expr` and its reflected form.

    Parameters
    ----------
    combine : callable
        ``combine(x, y)`` of two :class:`Expr`, e.g. :math:`x + y`.

    Returns
    -------
    operator, reflected : function
        ``x <op> other`` gives ``combine(x, other)`` and ``other <op> x``
        gives ``combine(other, x)``, a number ``other`` as :func:`num`; the
        operator leaves a :class:`ComplexExpr` ``other`` to its reflected
        form in :class:`ComplexExpr` (``NotImplemented``).
    """
    def operator(self, other):
        if isinstance(other, ComplexExpr):
            return NotImplemented
        return combine(self, as_expr(other))

    def reflected(self, other):
        return combine(as_expr(other), self)

    return operator, reflected


class Expr:
    """A real-valued expression node (see the module description).

    Build nodes with the functions of this module (:func:`num`,
    :func:`parameter`, :func:`add`, ...) or with Python's operators
    (``+ - * / **``), not with this class directly: the functions keep the
    canonical form.

    Attributes
    ----------
    op : str
        ``num``, ``par``, ``const``, ``event``, ``add``, ``mul``, ``pow``,
        ``exp``, ``log``, ``sin``, ``cos``, ``atan2``, ``abs``, ``pos``, ``step`` or
        ``group`` (the identity, see :func:`group`).
    args : tuple of Expr
        The operands.
    data : float, str or None
        The number (``num``), the name (``par``, ``const``, ``event``) or
        the exponent (``pow``).
    """

    __slots__ = ("op", "args", "data", "digest", "_hash", "_parameters", "_kinds")

    def __init__(self, op, args=(), data=None):
        self.op = op
        self.args = tuple(args)
        self.data = data
        h = hashlib.blake2b(digest_size=16)
        h.update(op.encode())
        h.update(b"\0")
        h.update(repr(data).encode())
        for a in self.args:
            h.update(a.digest)
        self.digest = h.digest()
        self._hash = int.from_bytes(self.digest[:8], "little", signed=True)
        self._parameters = None
        self._kinds = None

    # -- identity ------------------------------------------------------------
    def __hash__(self):
        return self._hash

    def __eq__(self, other):
        return self is other or (isinstance(other, Expr) and self.digest == other.digest)

    def __ne__(self, other):
        return not self.__eq__(other)

    # -- dependencies ----------------------------------------------------------
    def _union_of_args(self, attribute):
        """The union of the arguments' ``attribute`` (a frozenset each)."""
        out = frozenset()
        for a in self.args:
            out |= getattr(a, attribute)
        return out

    @property
    def parameters(self):
        """Names of the fit parameters the node depends on (frozenset)."""
        if self._parameters is None:
            self._parameters = (frozenset((self.data,)) if self.op == "par"
                                else self._union_of_args("parameters"))
        return self._parameters

    @property
    def kinds(self):
        """Kinds of leaves below the node: a subset of {"par", "const", "event"}."""
        if self._kinds is None:
            self._kinds = (frozenset((self.op,)) if self.op in ("par", "const", "event")
                           else self._union_of_args("kinds"))
        return self._kinds

    @property
    def dependency(self):
        """The node's dependency class.

        ``"number"`` (no leaf but numbers), ``"parameter"`` (parameters and
        constants only: computed once per likelihood call in the
        parameter-buffer fill), ``"event"`` (events and constants only:
        computed once per event when the event buffer is filled) or
        ``"mixed"`` (computed per event and call).
        """
        k = self.kinds
        if "event" in k:
            return "mixed" if "par" in k else "event"
        return "parameter" if k else "number"

    @property
    def is_number(self):
        return self.op == "num"

    def sort_key(self):
        """Order of arguments in sums and products: by class, then content."""
        return (_CLASS_ORDER[self.dependency], self.digest)

    # -- Python operators --------------------------------------------------------
    __add__, __radd__ = _real_operators(lambda x, y: add(x, y))
    __sub__, __rsub__ = _real_operators(lambda x, y: add(x, mul(-1.0, y)))
    __mul__, __rmul__ = _real_operators(lambda x, y: mul(x, y))
    __truediv__, __rtruediv__ = _real_operators(lambda x, y: mul(x, power(y, -1)))

    def __neg__(self):
        return mul(-1.0, self)

    def __pos__(self):
        return self

    def __pow__(self, n):
        if isinstance(n, Expr):
            if n.is_number:
                n = n.data
            else:
                return exp(mul(n, log(self)))
        return power(self, n)

    def __repr__(self):
        from .printing import infix
        return f"Expr({infix(self)})"


def _number_value(x):
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"expected a real number, got {x!r}")
    return float(x)


def num(value):
    """A real number.

    Parameters
    ----------
    value : float

    Returns
    -------
    Expr
    """
    v = _number_value(value)
    if v == 0.0:
        v = 0.0  # one zero (no -0.0 in the canonical form)
    return Expr("num", data=v)


ZERO = num(0.0)
ONE = num(1.0)


def _name(name, what):
    if not isinstance(name, str) or not name:
        raise ValueError(f"{what}: a name must be a non-empty string, got {name!r}")
    return name


def parameter(name):
    """A fit parameter (real), by name."""
    return Expr("par", data=_name(name, "parameter"))


def constant(name):
    """A named model constant (real), by name."""
    return Expr("const", data=_name(name, "constant"))


def event(name):
    """An event quantity (real), by name."""
    return Expr("event", data=_name(name, "event"))


def as_expr(x):
    """``x`` as an :class:`Expr` (numbers become :func:`num`)."""
    if isinstance(x, Expr):
        return x
    if isinstance(x, ComplexExpr):
        raise TypeError("expected a real expression, got a complex one (take .re or .im)")
    return num(x)


def _coefficient(term):
    """(number, rest) of a term: 3 x y -> (3, x y)."""
    if term.op == "num":
        return term.data, ONE
    if term.op == "mul" and term.args[0].op == "num":
        rest = term.args[1:]
        return term.args[0].data, rest[0] if len(rest) == 1 else Expr("mul", rest)
    return 1.0, term


def _flattened(op, operands):
    """The operands as :class:`Expr`, each of operation ``op`` replaced by
    its arguments (a sum of sums is one sum, a product of products one
    product)."""
    flat = []
    for x in operands:
        x = as_expr(x)
        if x.op == op:
            flat.extend(x.args)
        else:
            flat.append(x)
    return flat


def add(*terms):
    """The sum of the terms, flattened, with equal terms merged (2 x + x = 3 x)."""
    flat = _flattened("add", terms)
    total = 0.0
    coefs = {}
    for t in flat:
        c, rest = _coefficient(t)
        if rest is ONE:
            total += c
        else:
            coefs[rest] = coefs.get(rest, 0.0) + c
    out = []
    for rest, c in coefs.items():
        if c == 0.0:
            continue
        out.append(rest if c == 1.0 else mul(c, rest))
    out.sort(key=Expr.sort_key)
    if total != 0.0 or not out:
        out.insert(0, num(total))
    if len(out) == 1:
        return out[0]
    return Expr("add", out)


def _base_exponent(f):
    if f.op == "pow":
        return f.args[0], f.data
    return f, 1


def _exponent(e):
    """An integral float exponent as int (so that 2.0 and 2 are one exponent)."""
    if isinstance(e, float) and e.is_integer():
        return int(e)
    return e


def mul(*factors):
    """The product of the factors, flattened, with equal bases merged into
    powers (x x^2 = x^3) and numbers folded into one leading coefficient."""
    flat = _flattened("mul", factors)
    coef = 1.0
    exps = {}
    for f in flat:
        if f.op == "num":
            coef *= f.data
            continue
        b, e = _base_exponent(f)
        exps[b] = _exponent(exps.get(b, 0) + e)
    if coef == 0.0:
        return ZERO
    out = []
    for b, e in exps.items():
        if e == 0:
            continue
        p = power(b, e)
        if p.op == "num":
            coef *= p.data
        elif p.op == "mul":
            # (x^(1/2))^2 style folds can return products: merge them in.
            return mul(coef, *[power(bb, ee) for bb, ee in exps.items() if bb is not b], p)
        else:
            out.append(p)
    out.sort(key=Expr.sort_key)
    if coef != 1.0 and len(out) == 1 and out[0].op == "add":
        # A number times a sum distributes (-(a + b) = -a - b), so that terms cancel.
        return add(*[mul(coef, t) for t in out[0].args])
    if coef != 1.0 or not out:
        out.insert(0, num(coef))
    if len(out) == 1:
        return out[0]
    return Expr("mul", out)


def power(x, n):
    """:math:`x^n` for a real number ``n``.

    Integer powers of products and powers distribute
    (:math:`(a b)^2 = a^2 b^2`, :math:`(x^a)^n = x^{a n}`); non-integer
    powers of products do not (their sign rules would change).
    """
    x = as_expr(x)
    n = _exponent(_number_value(n))
    if n == 0:
        return ONE
    if n == 1:
        return x
    if x.op == "num":
        v = x.data
        if isinstance(n, int) and v == 0.0 and n < 0:
            return num(math.inf)
        if v >= 0 or isinstance(n, int):
            try:
                return num(v ** n)
            except (OverflowError, ZeroDivisionError):
                pass
        return Expr("pow", (x,), n)
    if x.op == "pow":
        b, m = x.args[0], x.data
        if isinstance(n, int):
            return power(b, m * n)
        return Expr("pow", (x,), n)
    if x.op == "mul" and isinstance(n, int):
        return mul(*[power(f, n) for f in x.args])
    return Expr("pow", (x,), n)


def sqrt(x):
    """:math:`\\sqrt{x} = x^{1/2}` (real; NaN for :math:`x < 0`: use
    :func:`vecampfit.expressions.physics.sqrt_physical` for the physical sheet)."""
    return power(x, 0.5)


def _unary(op, x):
    x = as_expr(x)
    if x.op == "num":
        return num(_UNARY[op](x.data))
    return Expr(op, (x,))


def exp(x):
    """:math:`e^x`."""
    x = as_expr(x)
    if x.op == "log":
        return x.args[0]
    return _unary("exp", x)


def log(x):
    """Natural logarithm :math:`\\ln x` (real, :math:`x > 0`)."""
    x = as_expr(x)
    if x.op == "exp":
        return x.args[0]
    return _unary("log", x)


def sin(x):
    """:math:`\\sin x` (x in radians)."""
    return _unary("sin", x)


def cos(x):
    """:math:`\\cos x` (x in radians)."""
    return _unary("cos", x)


def pos(x):
    """:math:`\\max(x, 0)`."""
    return _unary("pos", x)


def group(x):
    """``x`` kept as one value: a product does not absorb its factors.

    The identity, for algebra the canonical form would undo: in
    :math:`1/(a + i b)` the imaginary part :math:`b` of a denominator is one
    value shared by :math:`|D|^2 = a^2 + b^2` and by the numerator
    :math:`-b/|D|^2`, instead of its factors spreading into the numerator's
    product (which would need an event field of their own).
    """
    x = as_expr(x)
    if x.op in ("num", "par", "const", "event", "group"):
        return x
    if x.op == "mul" and x.args[0].op == "num":
        # The number stays outside, where it meets the other numbers.
        return mul(x.args[0], group(mul(*x.args[1:])))
    return Expr("group", (x,))


def absolute(x):
    """:math:`|x|`."""
    return _unary("abs", x)


def step(x):
    """:math:`1` if :math:`x > 0`, else :math:`0` (the derivative of :func:`pos`)."""
    return _unary("step", x)


def atan2(y, x):
    """The angle of the point (x, y), in :math:`(-\\pi, \\pi]` radians."""
    y, x = as_expr(y), as_expr(x)
    if y.op == "num" and x.op == "num":
        return num(math.atan2(y.data, x.data))
    return Expr("atan2", (y, x))


class ComplexExpr:
    """A complex expression as a pair of real expressions ``re + i im``.

    Arithmetic with other complex expressions, real expressions and numbers
    (``complex`` included) is lowered to real arithmetic at once.  Division
    multiplies by the conjugate and one real reciprocal of
    :math:`|z|^2`, so that a per-event complex denominator costs one
    division.

    A complex value may carry a common real factor: :math:`z = s (a + i b)`
    (:meth:`scaled`).  Products with real factors multiply :math:`s` only,
    and the parts are formed as :math:`\\mathrm{Re} = S a`,
    :math:`\\mathrm{Im} = S b` with :math:`S` one value (:func:`group`): a
    lineshape :math:`N/D` then costs :math:`S = N/|D|^2` and two products,
    not two products of every factor of :math:`N`.

    Parameters
    ----------
    re, im : Expr or float
    """

    __slots__ = ("re", "im", "_parts", "quotient")

    def __init__(self, re, im=0.0):
        self.re = as_expr(re)
        self.im = as_expr(im)
        self._parts = None
        #: (numerator, denominator) where the value was formed as a quotient
        #: (kept through products with real factors): the derivative then
        #: takes the quotient rule dX = (dN - X dD) / D with complex products.
        self.quotient = None

    @classmethod
    def scaled(cls, a, b, scale):
        """:math:`s (a + i b)` with the real factor ``scale`` kept apart."""
        a, b, scale = as_expr(a), as_expr(b), as_expr(scale)
        if scale == ONE:
            return cls(a, b)
        s = group(scale)
        out = cls(mul(s, a), mul(s, b))
        out._parts = (a, b, scale)
        return out

    def parts(self):
        """(a, b, s) with the value :math:`s (a + i b)` (s = 1 unless :meth:`scaled`)."""
        return self._parts or (self.re, self.im, ONE)

    def is_real(self):
        """True if the imaginary part is the number zero."""
        return self.im == ZERO

    def __repr__(self):
        from .printing import infix
        return f"ComplexExpr({infix(self.re)}, {infix(self.im)})"

    def __eq__(self, other):
        other = as_complex(other)
        return self.re == other.re and self.im == other.im

    def __hash__(self):
        return hash((self.re, self.im))

    def conjugate(self):
        """:math:`\\bar z`."""
        a, b, s = self.parts()
        return ComplexExpr.scaled(a, -b, s)

    def abs2(self):
        """:math:`|z|^2` (real)."""
        return add(mul(self.re, self.re), mul(self.im, self.im))

    def __add__(self, other):
        other = as_complex(other)
        return ComplexExpr(add(self.re, other.re), add(self.im, other.im))

    __radd__ = __add__

    def __neg__(self):
        a, b, s = self.parts()
        return ComplexExpr.scaled(a, b, -s) if self._parts else ComplexExpr(-self.re, -self.im)

    def __sub__(self, other):
        return self + (-as_complex(other))

    def __rsub__(self, other):
        return as_complex(other) + (-self)

    def __mul__(self, other):
        o = as_complex(other)
        a, b, s = self.parts()
        c, d, t = o.parts()
        if o.is_real() and o._parts is None:
            out = ComplexExpr.scaled(a, b, mul(s, c))
            if self.quotient is not None:
                out.quotient = (self.quotient[0] * o, self.quotient[1])
            return out
        if self.is_real() and self._parts is None:
            out = ComplexExpr.scaled(c, d, mul(t, a))
            if o.quotient is not None:
                out.quotient = (o.quotient[0] * self, o.quotient[1])
            return out
        return ComplexExpr.scaled(add(mul(a, c), mul(-1.0, b, d)), add(mul(a, d), mul(b, c)),
                                  mul(s, t))

    __rmul__ = __mul__

    def reciprocal(self):
        """:math:`1/z = \\bar z / |z|^2`: one real division, the parts of
        :math:`z` kept whole (:func:`group`), the reciprocal of
        :math:`|z|^2` as the common real factor."""
        a, b, s = self.parts()
        a, b = group(a), group(b)
        r = power(add(mul(a, a), mul(b, b)), -1)
        return ComplexExpr.scaled(a, mul(-1.0, b), mul(power(s, -1), r))

    def __truediv__(self, other):
        o = as_complex(other)
        if o.is_real():
            return self * ComplexExpr(power(o.re, -1))
        out = self * o.reciprocal()
        out.quotient = (self, o)
        return out

    def __rtruediv__(self, other):
        return as_complex(other) / self

    def __pow__(self, n):
        if isinstance(n, bool) or not isinstance(n, numbers.Integral):
            raise ValueError("complex expressions take integer powers only (use exp/log)")
        if n < 0:
            return (self ** (-n)).reciprocal()
        out, base = ComplexExpr(1.0), self
        while n:
            if n & 1:
                out = out * base
            base = base * base
            n >>= 1
        return out


def as_complex(x):
    """``x`` as a :class:`ComplexExpr` (real expressions and numbers, ``complex`` included)."""
    if isinstance(x, ComplexExpr):
        return x
    if isinstance(x, complex):
        return ComplexExpr(num(x.real), num(x.imag))
    return ComplexExpr(as_expr(x), ZERO)


#: The imaginary unit.
I = ComplexExpr(ZERO, ONE)  # noqa: E741
