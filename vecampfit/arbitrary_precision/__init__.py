"""Arbitrary-precision integer, real and complex arithmetic with guaranteed rounding.

This is the paper's ``vecampfit-arbitrary-precision``: the build of vecampfit
computes its mathematical constants, the series coefficients of the
vectorized exponential and logarithm, and Gauss-Legendre quadrature data with
it.  It is built on the rounding arithmetic of :mod:`mpmath` (``mpmath.libmp``),
not on a big-number implementation of its own.

Numbers
    :class:`Real` is a binary floating-point number ``m * 2**e`` with a
    precision of ``p`` bits (``p`` a positive multiple of 64, as in the paper)
    and a rounding mode; :class:`Complex` is a pair of them.  The exponent is
    unbounded (no overflow, underflow or subnormals) and zero is unsigned;
    ``inf``, ``-inf`` and ``nan`` exist.

Rounding
    Five modes, named in :data:`ROUNDING_MODES`: ``"nearest"`` (to nearest,
    ties to even), ``"toward_zero"``, ``"away_from_zero"``,
    ``"toward_plus_infinity"`` and ``"toward_minus_infinity"``.

Guarantees
    ``add``, ``subtract``, ``multiply``, ``divide`` and ``sqrt`` are correctly
    rounded: the result is the exact result rounded once in the requested
    mode, bit for bit what GNU MPFR returns.  ``exp``, ``log``, ``power``,
    ``erf`` and ``pi`` are evaluated at a higher working precision and
    rounded once when the rounding is decided (Ziv's strategy: the working
    precision grows until the interval that contains the exact value rounds to
    a single number).  They are correctly rounded whenever mpmath's own error
    at the working precision stays below ``2**8`` units in its last place
    (mpmath's elementary functions are accurate to about one unit); if the
    rounding is still undecided at ``p + 2048`` bits, the result is the
    working value rounded once, within one unit in the last place (ulp) of
    the result in directed modes and ``0.5 + 2**-2000`` ulp to nearest.
"""

import fractions as _fractions
import functools as _functools
import math as _math
import numbers as _numbers
import threading as _threading

import mpmath as _mpmath
from mpmath import libmp as _lib

__all__ = [
    "ROUNDING_MODES",
    "FORMATS",
    "Real",
    "Complex",
    "add",
    "subtract",
    "multiply",
    "divide",
    "sqrt",
    "exp",
    "log",
    "power",
    "erf",
    "pi",
    "integer_divide",
    "remainder",
    "to_float",
    "to_bits",
    "from_bits",
    "to_hex",
    "gauss_legendre_mp",
    "gauss_legendre",
]

#: Names of the rounding modes, with their meaning:
#: ``"nearest"`` (to the nearest number, ties to the even mantissa),
#: ``"toward_zero"`` (truncation), ``"away_from_zero"``,
#: ``"toward_plus_infinity"`` (ceiling) and ``"toward_minus_infinity"`` (floor).
ROUNDING_MODES = (
    "nearest",
    "toward_zero",
    "away_from_zero",
    "toward_plus_infinity",
    "toward_minus_infinity",
)

# mpmath.libmp's letters for the modes.
_RND = {
    "nearest": "n",
    "toward_zero": "d",
    "away_from_zero": "u",
    "toward_plus_infinity": "c",
    "toward_minus_infinity": "f",
}

#: Binary interchange formats that :func:`to_bits`, :func:`from_bits` and
#: :func:`to_hex` know, as ``name: (p, emin, emax)``: ``p`` bits of
#: significand (including the leading bit), normal numbers in
#: ``[2**emin, 2**(emax + 1))``, subnormals below.  ``"x87_extended"`` is the
#: 80-bit format of the x87 unit (64-bit significand with an explicit
#: integer bit), which is C's ``long double`` and numpy's ``longdouble`` on
#: x86-64 Linux; ``"binary128"`` is IEEE quadruple precision, which numpy has
#: no native type for there.
FORMATS = {
    "float32": (24, -126, 127),
    "float64": (53, -1022, 1023),
    "x87_extended": (64, -16382, 16383),
    "binary128": (113, -16382, 16383),
}

_FZERO, _FONE, _FINF, _FNINF, _FNAN = _lib.fzero, _lib.fone, _lib.finf, _lib.fninf, _lib.fnan


def _check_precision(precision):
    if isinstance(precision, bool) or not isinstance(precision, _numbers.Integral):
        raise TypeError(f"precision must be an integer number of bits, got {precision!r}")
    precision = int(precision)
    if precision <= 0 or precision % 64:
        raise ValueError(f"precision must be a positive multiple of 64 bits, got {precision}")
    return precision


def _check_rounding(rounding):
    if rounding not in _RND:
        raise ValueError(
            f"unknown rounding mode {rounding!r}; valid modes: {', '.join(ROUNDING_MODES)}"
        )
    return rounding


def _is_finite(raw):
    return bool(raw[1]) or raw == _FZERO


def _exact_raw(value):
    """Exact raw mpf of ``value``; TypeError if it is not a binary number."""
    if isinstance(value, Real):
        return value._raw
    if isinstance(value, bool):
        return _lib.from_int(int(value))
    if isinstance(value, _numbers.Integral):
        return _lib.from_int(int(value))
    if isinstance(value, _mpmath.mpf):
        return value._mpf_
    if isinstance(value, float):
        if value != value:
            return _FNAN
        if value in (_math.inf, -_math.inf):
            return _FINF if value > 0 else _FNINF
        return _lib.from_float(float(value))
    if isinstance(value, _numbers.Real) and hasattr(value, "as_integer_ratio") \
            and not isinstance(value, _fractions.Fraction):
        # numpy.float32, numpy.longdouble, ...: exact through their ratio
        try:
            num, den = value.as_integer_ratio()
        except (OverflowError, ValueError):
            if value != value:
                return _FNAN
            return _FINF if value > 0 else _FNINF
        return _dyadic(num, den, value)
    if isinstance(value, _fractions.Fraction):
        return _dyadic(value.numerator, value.denominator, value)
    raise TypeError(f"cannot use {value!r} (type {type(value).__name__}) as an exact binary number")


def _dyadic(num, den, value):
    if den & (den - 1):
        raise TypeError(
            f"{value!r} is not a binary fraction; convert it with Real(value, precision, rounding)"
        )
    return _lib.from_man_exp(int(num), -(int(den).bit_length() - 1))


def _round_value(value, precision, rnd):
    """Raw mpf of ``value`` rounded to ``precision`` bits in mode letter ``rnd``."""
    if isinstance(value, str):
        s = value.strip().lower()
        if s in ("inf", "+inf", "infinity", "+infinity"):
            return _FINF
        if s in ("-inf", "-infinity"):
            return _FNINF
        if s == "nan":
            return _FNAN
        try:
            value = _fractions.Fraction(s)
        except ValueError:
            raise ValueError(f"cannot parse {value!r} as a real number") from None
    if isinstance(value, _fractions.Fraction):
        return _lib.from_rational(value.numerator, value.denominator, precision, rnd)
    return _lib.mpf_pos(_exact_raw(value), precision, rnd)


def _new(raw, precision, rounding):
    r = Real.__new__(Real)
    r._raw = raw
    r._precision = precision
    r._rounding = rounding
    return r


# ---- correctly rounded arithmetic on raw mpf values ------------------------
def _add_raw(a, b, p, rnd):
    return _lib.mpf_add(a, b, p, rnd)


def _sub_raw(a, b, p, rnd):
    return _lib.mpf_sub(a, b, p, rnd)


def _mul_raw(a, b, p, rnd):
    return _lib.mpf_mul(a, b, p, rnd)


def _div_raw(a, b, p, rnd):
    if b == _FZERO:
        if a == _FZERO or a == _FNAN:
            return _FNAN
        if _is_finite(a):
            return _FNINF if a[0] else _FINF
        return a
    return _lib.mpf_div(a, b, p, rnd)


def _arithmetic(op):
    """An arithmetic operator and its reflected form, by the class's ``_binary(other, op, reflected)``."""
    def forward(self, other):
        return self._binary(other, op)

    def reflected(self, other):
        return self._binary(other, op, True)
    return forward, reflected


def _comparison(test):
    """A comparison operator: ``test`` of the sign that ``_compare`` gives (False with a NaN)."""
    def compare(self, other):
        c = self._compare(other)
        return c if c is NotImplemented else (c is not None and test(c))
    return compare


class Real:
    """Binary floating-point number with a precision and a rounding mode.

    The value is ``(-1)**s * m * 2**e`` with an integer mantissa ``m`` of at
    most ``precision`` bits; the exponent is unbounded.

    Parameters
    ----------
    value : int, float, numpy floating scalar, fractions.Fraction, str, Real or mpmath.mpf
        The number; it is rounded once to ``precision`` bits in the given
        mode (a ``str`` is read exactly as a decimal number first, so that
        ``Real("0.1", 128)`` is 1/10 correctly rounded).
    precision : int
        Precision in bits, a positive multiple of 64 (default 64).
    rounding : str
        Rounding mode of this number and of the results of operations where
        it is the left operand; one of :data:`ROUNDING_MODES`.

    Raises
    ------
    ValueError
        If ``precision`` is not a positive multiple of 64, the rounding mode
        is unknown, or a string is not a number.
    TypeError
        If ``value`` has an unsupported type.

    Notes
    -----
    Operators ``+ - * /`` and ``**`` and :func:`abs` are correctly rounded
    (``**`` as :func:`power`); the result has the larger precision of the two
    operands and the rounding mode of the :class:`Real` operand (of the left
    one if both are). Python ``int`` and ``float`` operands are used exactly.
    """

    __slots__ = ("_raw", "_precision", "_rounding")

    def __init__(self, value=0, precision=64, rounding="nearest"):
        self._precision = _check_precision(precision)
        self._rounding = _check_rounding(rounding)
        self._raw = _round_value(value, self._precision, _RND[rounding])

    # ---- properties -------------------------------------------------------
    @property
    def precision(self):
        """int: Precision in bits (a multiple of 64)."""
        return self._precision

    @property
    def rounding(self):
        """str: Rounding mode of results where this number is the left operand."""
        return self._rounding

    @property
    def mpf(self):
        """mpmath.mpf: The exact value as an mpmath number (no rounding)."""
        return _mpmath.mpf(self._raw)

    @property
    def sign_bit(self):
        """int: 1 if the number is negative (or ``-inf``), else 0."""
        return int(self._raw[0]) if self._raw != _FNAN else 0

    def mantissa_exponent(self):
        """Return the exact value as ``(m, e)`` with ``value = m * 2**e``.

        Returns
        -------
        tuple of int
            Signed odd mantissa ``m`` (or 0) and exponent ``e``.

        Raises
        ------
        ValueError
            If the number is infinite or NaN.
        """
        if not _is_finite(self._raw):
            raise ValueError(f"{self!r} has no mantissa and exponent")
        sign, man, exp, _bc = self._raw
        return (-int(man) if sign else int(man)), int(exp)

    def is_finite(self):
        """Return True unless the number is infinite or NaN."""
        return _is_finite(self._raw)

    def is_nan(self):
        """Return True if the number is NaN."""
        return self._raw == _FNAN

    def is_infinite(self):
        """Return True if the number is ``inf`` or ``-inf``."""
        return self._raw in (_FINF, _FNINF)

    def to_fraction(self):
        """Return the exact value as a :class:`fractions.Fraction`.

        Raises
        ------
        ValueError
            If the number is infinite or NaN.
        """
        m, e = self.mantissa_exponent()
        return _fractions.Fraction(m * 2 ** e) if e >= 0 else _fractions.Fraction(m, 2 ** -e)

    def with_precision(self, precision, rounding=None):
        """Return this number rounded to another precision (and mode).

        Parameters
        ----------
        precision : int
            New precision in bits, a positive multiple of 64.
        rounding : str, optional
            Mode used for the rounding and carried by the result; default:
            this number's mode.
        """
        rounding = self._rounding if rounding is None else _check_rounding(rounding)
        p = _check_precision(precision)
        return _new(_lib.mpf_pos(self._raw, p, _RND[rounding]), p, rounding)

    # ---- Python protocol --------------------------------------------------
    def __repr__(self):
        return f"Real({self.__str__()!r}, precision={self._precision}, rounding={self._rounding!r})"

    def __str__(self):
        digits = int(self._precision * 0.30103) + 2
        return _lib.to_str(self._raw, digits)

    def __float__(self):
        return _lib.to_float(self._raw, rnd="n")

    def __hash__(self):
        return hash(self.mpf)

    def _compare(self, other):
        """-1, 0, 1, None (NaN involved) or NotImplemented; exact, also for any Fraction."""
        if isinstance(other, _fractions.Fraction) and other.denominator & (other.denominator - 1):
            if self._raw == _FNAN:
                return None
            if not _is_finite(self._raw):
                return 1 if self._raw == _FINF else -1
            f = self.to_fraction()
            return (f > other) - (f < other)
        try:
            o = _exact_raw(other)
        except TypeError:
            return NotImplemented
        if self._raw == _FNAN or o == _FNAN:
            return None
        return _lib.mpf_cmp(self._raw, o)

    __eq__ = _comparison(lambda c: c == 0)
    __lt__ = _comparison(lambda c: c < 0)
    __le__ = _comparison(lambda c: c <= 0)
    __gt__ = _comparison(lambda c: c > 0)
    __ge__ = _comparison(lambda c: c >= 0)

    def __neg__(self):
        return _new(_lib.mpf_neg(self._raw), self._precision, self._rounding)

    def __pos__(self):
        return self

    def __abs__(self):
        return _new(_lib.mpf_abs(self._raw), self._precision, self._rounding)

    def _binary(self, other, op, reflected=False):
        if not isinstance(other, (Real, _numbers.Real, _mpmath.mpf)):
            return NotImplemented
        o = _exact_raw(other)
        p = max(self._precision, other._precision) if isinstance(other, Real) else self._precision
        rounding = self._rounding
        if isinstance(other, Real) and reflected:
            rounding = other._rounding
        a, b = (o, self._raw) if reflected else (self._raw, o)
        return _new(op(a, b, p, _RND[rounding]), p, rounding)

    __add__, __radd__ = _arithmetic(_add_raw)
    __sub__, __rsub__ = _arithmetic(_sub_raw)
    __mul__, __rmul__ = _arithmetic(_mul_raw)
    __truediv__, __rtruediv__ = _arithmetic(_div_raw)

    # _pow_raw is defined with the elementary functions, below.
    def __pow__(self, other):
        return self._binary(other, _pow_raw)

    def __rpow__(self, other):
        return self._binary(other, _pow_raw, True)


def _operands(args, precision, rounding):
    """Exact raw values of ``args``; the result precision and rounding mode."""
    raws = [_exact_raw(a) for a in args]
    reals = [a for a in args if isinstance(a, Real)]
    if precision is None:
        precision = max((a._precision for a in reals), default=64)
    if rounding is None:
        rounding = reals[0]._rounding if reals else "nearest"
    return raws, _check_precision(precision), _check_rounding(rounding)


_PARAMS_DOC = """
    precision : int, optional
        Precision of the result in bits, a positive multiple of 64; default:
        the largest precision of the :class:`Real` arguments (64 if none).
    rounding : str, optional
        Rounding mode, one of :data:`ROUNDING_MODES`; default: the mode of
        the first :class:`Real` argument (``"nearest"`` if none).

    Returns
    -------
    Real
        The result, carrying ``precision`` and ``rounding``.

    Raises
    ------
    ValueError
        If the precision is not a positive multiple of 64 or the rounding
        mode is unknown.
    TypeError
        If an argument is not an exact binary number (int, float,
        binary Fraction, mpmath.mpf or Real)."""


def _binary_function(name, op, doc):
    def f(x, y, precision=None, rounding=None):
        (a, b), p, r = _operands((x, y), precision, rounding)
        return _new(op(a, b, p, _RND[r]), p, r)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc + """

    Parameters
    ----------
    x, y : Real or int or float
        Operands, used exactly.""" + _PARAMS_DOC
    return f


add = _binary_function("add", _add_raw, """Correctly rounded sum ``x + y``.""")
subtract = _binary_function("subtract", _sub_raw, """Correctly rounded difference ``x - y``.""")
multiply = _binary_function("multiply", _mul_raw, """Correctly rounded product ``x * y``.""")
divide = _binary_function("divide", _div_raw, """Correctly rounded quotient ``x / y``.

    ``x / 0`` is ``inf`` with the sign of ``x`` (zero is unsigned), ``0 / 0``
    is NaN.""")


# ---- functions: Ziv's strategy ---------------------------------------------
_REL_ERROR_BITS = 8      # assumed bound of mpmath's error: 2**8 ulp at working precision
_GUARD_BITS = 32
_MAX_EXTRA_BITS = 2048


def _ziv(compute, p, rnd):
    """Round ``compute(wp)`` (relative error below 2**(8 - wp)) once to ``p`` bits."""
    wp = p + _GUARD_BITS
    while True:
        v = compute(wp)
        if not v[1]:
            return _lib.mpf_pos(v, p, rnd)
        _s, _m, e, bc = v
        err = (0, 1, int(e) + int(bc) + _REL_ERROR_BITS - wp, 1)
        lo = _lib.mpf_pos(_lib.mpf_sub(v, err), p, rnd)
        hi = _lib.mpf_pos(_lib.mpf_add(v, err), p, rnd)
        if lo == hi:
            return lo
        if wp >= p + _MAX_EXTRA_BITS:
            return _lib.mpf_pos(v, p, rnd)
        wp = min(wp + max(wp // 2, 64), p + _MAX_EXTRA_BITS)


def _unary_function(name, raw_function, doc):
    def f(x, precision=None, rounding=None):
        (a,), p, r = _operands((x,), precision, rounding)
        return _new(raw_function(a, p, _RND[r]), p, r)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc + """

    Parameters
    ----------
    x : Real or int or float
        Argument, used exactly.""" + _PARAMS_DOC
    return f


def _sqrt_raw(a, p, rnd):
    if a == _FNAN or a[0]:
        return _FZERO if a == _FZERO else _FNAN
    if a == _FINF:
        return _FINF
    return _lib.mpf_sqrt(a, p, rnd)


def _exp_raw(a, p, rnd):
    special = {_FZERO: _FONE, _FNAN: _FNAN, _FINF: _FINF, _FNINF: _FZERO}.get(a)
    if special is not None:
        return special
    return _ziv(lambda wp: _lib.mpf_exp(a, wp, "n"), p, rnd)


def _log_raw(a, p, rnd):
    if a == _FONE:
        return _FZERO
    if a == _FZERO:
        return _FNINF
    if a == _FNAN or a[0]:
        return _FNAN
    if a == _FINF:
        return _FINF
    d = _lib.mpf_sub(a, _FONE)
    # Near 1 the logarithm is small: work with the bits that cancel as well.
    extra = max(0, -(int(d[2]) + int(d[3]))) + 8 if d[1] else 0
    return _ziv(lambda wp: _lib.mpf_log(a, wp + extra, "n"), p, rnd)


def _erf_raw(a, p, rnd):
    special = {_FZERO: _FZERO, _FNAN: _FNAN, _FINF: _FONE, _FNINF: _lib.mpf_neg(_FONE)}.get(a)
    if special is not None:
        return special
    sign = a[0]
    ax = _lib.mpf_abs(a)
    # Directed modes flip for negative arguments: erf is odd.
    rnd_abs = {"c": "f", "f": "c"}.get(rnd, rnd) if sign else rnd
    x2 = _lib.mpf_mul(ax, ax)
    if _lib.mpf_ge(x2, _lib.from_int((p + 16) * 7 // 10 + 1)):
        # erfc(x) <= exp(-x**2) < 2**-(p + 16): the value lies strictly between
        # 1 - 2**-(p + 16) and 1, where no number of p bits lies.
        r = _lib.mpf_pos(_lib.mpf_sub(_FONE, (0, 1, -(p + 16), 1)), p, rnd_abs)
    elif _lib.mpf_lt(ax, _FONE):
        r = _ziv(lambda wp: _lib.mpf_erf(ax, wp, "n"), p, rnd_abs)
    else:
        r = _ziv(lambda wp: _lib.mpf_sub(_FONE, _lib.mpf_erfc(ax, wp, "n"), wp, "n"), p, rnd_abs)
    return _lib.mpf_neg(r) if sign else r


def _pi_raw(p, rnd):
    return _ziv(lambda wp: _lib.mpf_pi(wp, "n"), p, rnd)


def _is_integer_raw(a):
    return a == _FZERO or (bool(a[1]) and int(a[2]) >= 0)


def _exact_root(man, exp, k):
    """Exact (man', exp') with (man' * 2**exp')**(2**k) == man * 2**exp, or None."""
    for _ in range(k):
        if exp & 1:
            man <<= 1
            exp -= 1
        r = _math.isqrt(man)
        if r * r != man:
            return None
        man, exp = r, exp // 2
    return man, exp


_EXACT_POWER_BITS = 1 << 16


def _pow_raw(a, b, p, rnd):
    # Special values (C99 pow conventions).
    if b == _FZERO or a == _FONE:
        return _FONE
    if a == _FNAN or b == _FNAN:
        return _FNAN
    b_int = _is_integer_raw(b)
    b_odd = b_int and bool(b[1]) and int(b[2]) == 0
    if not _is_finite(b) or not _is_finite(a) or a == _FZERO:
        if not _is_finite(b):
            ax = _lib.mpf_abs(a)
            if ax == _FONE:
                return _FONE
            big = _lib.mpf_gt(ax, _FONE)
            return _FINF if (big == (b == _FINF)) else _FZERO
        # a is zero or infinite, b finite and nonzero
        positive_b = not b[0]
        small = a == _FZERO
        mag = _FZERO if small == positive_b else _FINF
        if a[0] and b_odd:
            return _lib.mpf_neg(mag)
        return mag
    if a[0] and not b_int:
        return _FNAN
    sign = bool(a[0]) and b_odd
    ax = _lib.mpf_abs(a)
    rnd_abs = {"c": "f", "f": "c"}.get(rnd, rnd) if sign else rnd
    r = _pow_positive(ax, b, p, rnd_abs)
    return _lib.mpf_neg(r) if sign else r


def _pow_positive(ax, b, p, rnd):
    _s, man, exp, _bc = ax
    man, exp = int(man), int(exp)
    bs, bman, bexp, _bbc = b
    bman, bexp = int(bman), int(bexp)
    # Exact cases: the result is rational only if b = n / 2**k and ax is a
    # perfect 2**k-th power (n odd); compute it exactly and round once.
    if man == 1:
        # ax = 2**exp: the result is 2**(exp * b)
        t = _lib.mpf_mul(_lib.from_int(exp), b)
        if _is_integer_raw(t):
            return _lib.mpf_pos(_lib.from_man_exp(1, int(_lib.to_int(t))), p, rnd)
    else:
        k = -bexp if bexp < 0 else 0
        n = bman << bexp if bexp >= 0 else bman
        if k <= man.bit_length():
            root = _exact_root(man, exp, k)
            if root is not None and root[0].bit_length() * n <= _EXACT_POWER_BITS:
                rm, re_ = root
                value = _lib.from_man_exp(rm ** n, re_ * n)
                if bs:
                    return _lib.mpf_div(_FONE, value, p, rnd)
                return _lib.mpf_pos(value, p, rnd)
    # Irrational result, or a rational one too large to write down (then far
    # from any rounding boundary of p bits in practice).
    def compute(wp):
        lx = _lib.mpf_log(ax, wp + 32, "n")
        # |b log x| carries extra bits into the exponential's argument.
        mag = max(0, int(lx[2]) + int(lx[3]) + int(b[2]) + int(b[3])) if lx[1] else 0
        return _lib.mpf_pow(ax, b, wp + mag, "n")
    return _ziv(compute, p, rnd)


sqrt = _unary_function("sqrt", _sqrt_raw, """Correctly rounded square root.

    ``sqrt`` of a negative number is NaN.""")
exp = _unary_function("exp", _exp_raw, """Exponential function ``e**x``.

    Rounded as described in the module documentation (correctly rounded,
    within 1 ulp in the worst case).""")
log = _unary_function("log", _log_raw, """Natural logarithm ``ln x``.

    ``log(0)`` is ``-inf``, the logarithm of a negative number is NaN.
    Rounded as described in the module documentation (correctly rounded,
    within 1 ulp in the worst case).""")
erf = _unary_function("erf", _erf_raw, """Error function ``erf(x) = 2/sqrt(pi) * integral_0^x exp(-t**2) dt``.

    Rounded as described in the module documentation (correctly rounded,
    within 1 ulp in the worst case).""")


def power(x, y, precision=None, rounding=None):
    """Power ``x**y``.

    Exact results (``y`` an integer, or ``x`` a perfect ``2**k``-th power and
    ``y = n / 2**k``) are computed exactly and rounded once; other results
    as described in the module documentation (correctly rounded, within 1
    ulp in the worst case).  A negative ``x`` with a non-integer ``y`` gives
    NaN; zeros and infinities follow C99 ``pow``.

    Parameters
    ----------
    x, y : Real or int or float
        Base and exponent, used exactly."""
    (a, b), p, r = _operands((x, y), precision, rounding)
    return _new(_pow_raw(a, b, p, _RND[r]), p, r)


power.__doc__ += _PARAMS_DOC


# The precision and rounding parameters of the functions that take them
# explicitly (their docstrings have a line %(precision_rounding)s for them).
_FIXED_PRECISION_DOC = {"precision_rounding": """precision : int
        Precision in bits, a positive multiple of 64.
    rounding : str
        One of :data:`ROUNDING_MODES`."""}


def pi(precision=64, rounding="nearest"):
    """The number pi, rounded to ``precision`` bits.

    Parameters
    ----------
    %(precision_rounding)s

    Returns
    -------
    Real
        pi, correctly rounded (within 1 ulp in the worst case, see the module
        documentation).

    Raises
    ------
    ValueError
        If the precision or the rounding mode is invalid.
    """
    p = _check_precision(precision)
    r = _check_rounding(rounding)
    return _new(_pi_raw(p, _RND[r]), p, r)


pi.__doc__ %= _FIXED_PRECISION_DOC


# ---- integer arithmetic ----------------------------------------------------
def _check_int(name, v):
    if isinstance(v, bool) or not isinstance(v, _numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {v!r}")
    return int(v)


def _round_quotient(a, b, rounding):
    r = _RND[_check_rounding(rounding)]
    if b == 0:
        raise ZeroDivisionError("integer division by zero")
    q, rem = divmod(a, b)        # floor quotient, rem has the sign of b
    if rem == 0 or r == "f":
        return q
    # exact quotient lies in (q, q + 1)
    if r == "c":
        return q + 1
    negative = (a < 0) != (b < 0)
    if r == "d":
        return q + 1 if negative else q
    if r == "u":
        return q if negative else q + 1
    twice = 2 * abs(rem)
    if twice > abs(b) or (twice == abs(b) and q & 1):
        return q + 1
    return q


# Appended to the docstrings of the integer functions (which end in "\n    ").
_INTEGER_RAISES = """
    Raises
    ------
    ZeroDivisionError
        If ``b`` is zero.
    TypeError
        If ``a`` or ``b`` is not an integer.
    ValueError
        If the rounding mode is unknown."""


def integer_divide(a, b, rounding="toward_zero"):
    """Integer quotient ``a / b`` rounded in a rounding mode.

    Parameters
    ----------
    a, b : int
        Dividend and divisor (Python integers of any size).
    rounding : str
        One of :data:`ROUNDING_MODES` (default ``"toward_zero"``, as in C and
        Fortran; ``"toward_minus_infinity"`` is Python's ``//``).

    Returns
    -------
    int
        The exact quotient rounded to an integer.
    """
    return _round_quotient(_check_int("a", a), _check_int("b", b), rounding)


integer_divide.__doc__ += _INTEGER_RAISES


def remainder(a, b, rounding="toward_zero"):
    """Remainder ``a - b * q`` with ``q = integer_divide(a, b, rounding)``.

    With ``"toward_zero"`` the remainder has the sign of ``a`` (C ``%``,
    Fortran ``MOD``), with ``"toward_minus_infinity"`` the sign of ``b``
    (Python ``%``, Fortran ``MODULO``), with ``"nearest"`` it is at most
    ``|b| / 2`` in magnitude (IEEE remainder).

    Parameters
    ----------
    a, b : int
        Dividend and divisor.
    rounding : str
        Rounding mode of the quotient, one of :data:`ROUNDING_MODES`.

    Returns
    -------
    int
        The remainder.
    """
    a, b = _check_int("a", a), _check_int("b", b)
    return a - b * _round_quotient(a, b, rounding)


remainder.__doc__ += _INTEGER_RAISES


# ---- complex numbers -------------------------------------------------------
def _cadd(a, b, p, rnd):
    return _lib.mpf_add(a[0], b[0], p, rnd), _lib.mpf_add(a[1], b[1], p, rnd)


def _csub(a, b, p, rnd):
    return _lib.mpf_sub(a[0], b[0], p, rnd), _lib.mpf_sub(a[1], b[1], p, rnd)


def _cmul(a, b, p, rnd):
    m = _lib.mpf_mul
    re = _lib.mpf_sub(m(a[0], b[0]), m(a[1], b[1]), p, rnd)
    im = _lib.mpf_add(m(a[0], b[1]), m(a[1], b[0]), p, rnd)
    return re, im


def _cdiv(a, b, p, rnd):
    m = _lib.mpf_mul
    den = _lib.mpf_add(m(b[0], b[0]), m(b[1], b[1]))
    nre = _lib.mpf_add(m(a[0], b[0]), m(a[1], b[1]))
    nim = _lib.mpf_sub(m(a[1], b[0]), m(a[0], b[1]))
    return _div_raw(nre, den, p, rnd), _div_raw(nim, den, p, rnd)


class Complex:
    """Complex number with real and imaginary parts of one precision.

    Parameters
    ----------
    real : Real, int, float, complex, fractions.Fraction or str
        Real part (or the whole number if it is a Python ``complex`` and
        ``imag`` is omitted).
    imag : Real, int, float, fractions.Fraction or str
        Imaginary part (default 0).
    precision : int
        Precision of each part in bits, a positive multiple of 64.
    rounding : str
        Rounding mode, one of :data:`ROUNDING_MODES`.

    Raises
    ------
    ValueError
        If the precision or the rounding mode is invalid.

    Notes
    -----
    ``+``, ``-``, ``*`` and ``/`` round each part of the result correctly
    (once, from its exact value): for ``(a + ib)(c + id)`` the real part is
    ``ac - bd`` computed exactly and rounded once, and the quotient's parts
    are ``(ac + bd) / (c**2 + d**2)`` and ``(bc - ad) / (c**2 + d**2)`` from
    exact numerators and denominator, rounded once.
    """

    __slots__ = ("real", "imag")

    def __init__(self, real=0, imag=None, precision=64, rounding="nearest"):
        if isinstance(real, complex) and imag is None:
            real, imag = real.real, real.imag
        if imag is None:
            imag = 0
        p = _check_precision(precision)
        _check_rounding(rounding)
        self.real = real.with_precision(p, rounding) if isinstance(real, Real) else Real(real, p, rounding)
        self.imag = imag.with_precision(p, rounding) if isinstance(imag, Real) else Real(imag, p, rounding)

    @classmethod
    def _from_raw(cls, re, im, p, rounding):
        z = cls.__new__(cls)
        z.real = _new(re, p, rounding)
        z.imag = _new(im, p, rounding)
        return z

    @property
    def precision(self):
        """int: Precision of each part in bits."""
        return self.real._precision

    @property
    def rounding(self):
        """str: Rounding mode of results where this number is the left operand."""
        return self.real._rounding

    def __repr__(self):
        return (f"Complex({str(self.real)!r}, {str(self.imag)!r}, precision={self.precision}, "
                f"rounding={self.rounding!r})")

    def __complex__(self):
        return complex(float(self.real), float(self.imag))

    def __eq__(self, other):
        o = self._coerce(other)
        if o is None:
            return NotImplemented
        return self.real == _new(o[0], 64, "nearest") and self.imag == _new(o[1], 64, "nearest")

    def __hash__(self):
        return hash((self.real, self.imag))

    @staticmethod
    def _coerce(other):
        if isinstance(other, Complex):
            return other.real._raw, other.imag._raw
        if isinstance(other, complex):
            return _exact_raw(other.real), _exact_raw(other.imag)
        try:
            return _exact_raw(other), _FZERO
        except TypeError:
            return None

    def _binary(self, other, op, reflected=False):
        o = self._coerce(other)
        if o is None:
            return NotImplemented
        p = max(self.precision, other.precision) if isinstance(other, Complex) else self.precision
        rounding = self.rounding
        a, b = (self.real._raw, self.imag._raw), o
        if reflected:
            a, b = b, a
        re, im = op(a, b, p, _RND[rounding])
        return Complex._from_raw(re, im, p, rounding)

    __add__, __radd__ = _arithmetic(_cadd)
    __sub__, __rsub__ = _arithmetic(_csub)
    __mul__, __rmul__ = _arithmetic(_cmul)
    __truediv__, __rtruediv__ = _arithmetic(_cdiv)

    def __neg__(self):
        return Complex._from_raw(_lib.mpf_neg(self.real._raw), _lib.mpf_neg(self.imag._raw),
                                 self.precision, self.rounding)

    def conjugate(self):
        """Return the complex conjugate (exact)."""
        return Complex._from_raw(self.real._raw, _lib.mpf_neg(self.imag._raw), self.precision,
                                 self.rounding)

    def __abs__(self):
        """Correctly rounded modulus ``sqrt(re**2 + im**2)`` as a :class:`Real`."""
        re, im = self.real._raw, self.imag._raw
        s = _lib.mpf_add(_lib.mpf_mul(re, re), _lib.mpf_mul(im, im))
        return _new(_sqrt_raw(s, self.precision, _RND[self.rounding]), self.precision, self.rounding)


# ---- conversion to binary interchange formats ------------------------------
def _check_format(fmt):
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; valid formats: {', '.join(FORMATS)}")
    return FORMATS[fmt]


def _round_to_format(raw, fmt, rnd):
    """Round exactly; return ('nan',), ('inf', sign), or ('finite', sign, q, e), value q * 2**e."""
    p, emin, emax = _check_format(fmt)
    if raw == _FNAN:
        return ("nan",)
    if raw in (_FINF, _FNINF):
        return ("inf", int(raw[0]))
    sign, man, exp, bc = raw
    sign, man, exp, bc = int(sign), int(man), int(exp), int(bc)
    if man == 0:
        return ("finite", 0, 0, 0)
    top = exp + bc - 1                       # value in [2**top, 2**(top + 1))
    quantum = max(top, emin) - p + 1
    if exp >= quantum:
        q = man << (exp - quantum)
    else:
        shift = quantum - exp
        q, r = divmod(man, 1 << shift)
        if r:
            half = 1 << (shift - 1)
            if rnd == "n":
                up = r > half or (r == half and q & 1)
            elif rnd == "d":
                up = False
            elif rnd == "u":
                up = True
            elif rnd == "c":
                up = not sign
            else:
                up = bool(sign)
            q += up
    if q >> p:                              # carry into a new binade
        q >>= 1
        quantum += 1
    if q and q.bit_length() + quantum - 1 > emax:
        overflow_to_inf = rnd in "nu" or (rnd == "c" and not sign) or (rnd == "f" and sign)
        if overflow_to_inf:
            return ("inf", sign)
        return ("finite", sign, (1 << p) - 1, emax - p + 1)
    return ("finite", sign, q, quantum)


def _encode(rounded, fmt):
    p, emin, _emax = FORMATS[fmt]
    explicit = fmt == "x87_extended"
    ebits = 15 if fmt in ("x87_extended", "binary128") else (8 if fmt == "float32" else 11)
    fbits = p if explicit else p - 1        # stored significand bits
    emask = (1 << ebits) - 1
    bias = emask >> 1
    total = 1 + ebits + fbits
    if rounded[0] == "nan":
        frac = (3 << (fbits - 2)) if explicit else (1 << (fbits - 1))
        return (emask << fbits) | frac
    if rounded[0] == "inf":
        frac = (1 << (fbits - 1)) if explicit else 0
        return (rounded[1] << (total - 1)) | (emask << fbits) | frac
    _k, sign, q, e = rounded
    if q == 0:
        return sign << (total - 1)
    if q >> (p - 1):                        # normal
        biased = e + p - 1 + bias
        frac = q if explicit else q - (1 << (p - 1))
    else:                                   # subnormal: e == emin - p + 1
        biased = 0
        frac = q
    return (sign << (total - 1)) | (biased << fbits) | frac


def _conversion_rounding(x, rounding):
    if rounding is None:
        rounding = x._rounding if isinstance(x, Real) else "nearest"
    return _RND[_check_rounding(rounding)]


# The rounding parameter of the conversions (their docstrings have a line
# %(rounding_of_x)s for it).
_CONVERSION_DOC = {"rounding_of_x": """rounding : str, optional
        One of :data:`ROUNDING_MODES`; default: the mode of ``x`` if it is a
        :class:`Real`, else ``"nearest"``."""}


def to_bits(x, format="float64", rounding=None):
    """Round ``x`` to a binary interchange format and return its bit pattern.

    Rounding is correct in every mode, including subnormal results and
    overflow (to ``inf`` in the modes that round away from the finite
    range, to the largest finite number otherwise).

    Parameters
    ----------
    x : Real or int or float
        The value, used exactly.
    format : str
        One of :data:`FORMATS`: ``"float32"``, ``"float64"``,
        ``"x87_extended"`` (80 bits: sign, 15-bit exponent, 64-bit
        significand with an explicit integer bit) or ``"binary128"`` (IEEE
        quadruple: sign, 15-bit exponent, 112-bit fraction).
    %(rounding_of_x)s

    Returns
    -------
    int
        The unsigned bit pattern (32, 64, 80 or 128 bits). NaN becomes the
        default quiet NaN.  Zero results take the sign of ``x`` (zero itself
        is unsigned here and gives ``+0``).

    Raises
    ------
    ValueError
        If the format or the rounding mode is unknown.
    """
    rnd = _conversion_rounding(x, rounding)
    return _encode(_round_to_format(_exact_raw(x), format, rnd), format)


to_bits.__doc__ %= _CONVERSION_DOC


def from_bits(bits, format="float64", precision=128):
    """Exact value of a bit pattern of a binary interchange format.

    Parameters
    ----------
    bits : int
        The unsigned bit pattern.
    format : str
        One of :data:`FORMATS`.
    precision : int
        Precision of the returned :class:`Real` (a multiple of 64 and at
        least the format's significand width, so that the value is exact).

    Returns
    -------
    Real
        The value (``-0`` becomes ``0``; NaN payloads are not kept).

    Raises
    ------
    ValueError
        If the format is unknown, ``bits`` does not fit, or ``precision`` is
        too small to hold the value exactly.
    """
    p, emin, _emax = _check_format(format)
    precision = _check_precision(precision)
    if precision < p:
        raise ValueError(f"precision {precision} is too small to hold a {format} value exactly")
    explicit = format == "x87_extended"
    ebits = 15 if format in ("x87_extended", "binary128") else (8 if format == "float32" else 11)
    fbits = p if explicit else p - 1
    total = 1 + ebits + fbits
    bits = _check_int("bits", bits)
    if bits < 0 or bits >> total:
        raise ValueError(f"bit pattern {bits:#x} does not fit in {total} bits ({format})")
    sign = bits >> (total - 1)
    biased = (bits >> fbits) & ((1 << ebits) - 1)
    frac = bits & ((1 << fbits) - 1)
    bias = (1 << (ebits - 1)) - 1
    if biased == (1 << ebits) - 1:
        payload = frac & ((1 << (fbits - 1)) - 1) if explicit else frac
        raw = _FNAN if payload else (_FNINF if sign else _FINF)
    elif biased == 0:
        raw = _lib.from_man_exp(-frac if sign else frac, emin - p + 1)
    else:
        q = frac if explicit else frac | (1 << (p - 1))
        raw = _lib.from_man_exp(-q if sign else q, biased - bias - p + 1)
    return _new(raw, precision, "nearest")


def _longdouble_format():
    import numpy as np

    nmant = np.finfo(np.longdouble).nmant
    return {63: "x87_extended", 112: "binary128", 52: "float64"}[nmant]


def to_float(x, dtype="float64", rounding=None):
    """Round ``x`` to a numpy floating-point scalar.

    Parameters
    ----------
    x : Real or int or float
        The value, used exactly.
    dtype : numpy dtype or str
        ``float32``, ``float64`` or ``longdouble``.  numpy's ``longdouble`` on
        x86-64 Linux is the x87 80-bit extended format (64-bit significand);
        where it is IEEE binary128 or float64, that format is used.
    %(rounding_of_x)s

    Returns
    -------
    numpy.float32, numpy.float64 or numpy.longdouble
        ``x`` correctly rounded, subnormals and overflow included (see
        :func:`to_bits`).

    Raises
    ------
    ValueError
        If the dtype is not one of these or the rounding mode is unknown.
    """
    import numpy as np

    dt = np.dtype(dtype)
    if dt == np.float32:
        return np.array(to_bits(x, "float32", rounding), dtype=np.uint32).view(np.float32)[()]
    if dt == np.float64:
        return np.array(to_bits(x, "float64", rounding), dtype=np.uint64).view(np.float64)[()]
    if dt == np.longdouble:
        fmt = _longdouble_format()
        bits = to_bits(x, fmt, rounding)
        nbytes = dt.itemsize
        data = bits.to_bytes(nbytes, "little") if np.little_endian else bits.to_bytes(nbytes, "big")
        return np.frombuffer(data, dtype=np.longdouble)[0]
    raise ValueError(f"dtype must be float32, float64 or longdouble, got {dt}")


to_float.__doc__ %= _CONVERSION_DOC


def to_hex(x, format="float64", rounding=None):
    """C99 hexadecimal literal of ``x`` rounded to a binary format.

    Parameters
    ----------
    x : Real or int or float
        The value, used exactly.
    format : str
        One of :data:`FORMATS`.
    %(rounding_of_x)s

    Returns
    -------
    str
        ``"0x1.<hex digits>p<exponent>"`` (with a leading ``-`` for negative
        values), exactly the rounded value; ``"0x0p+0"`` for zero, ``"inf"``,
        ``"-inf"`` or ``"nan"`` otherwise.  No type suffix.

    Raises
    ------
    ValueError
        If the format or the rounding mode is unknown.
    """
    rnd = _conversion_rounding(x, rounding)
    r = _round_to_format(_exact_raw(x), format, rnd)
    if r[0] == "nan":
        return "nan"
    if r[0] == "inf":
        return "-inf" if r[1] else "inf"
    _k, sign, q, e = r
    s = "-" if sign else ""
    if q == 0:
        return s + "0x0p+0"
    top = q.bit_length() - 1
    frac = q - (1 << top)
    ndig = (top + 3) // 4
    e += top
    digits = f"{frac << (4 * ndig - top):0{ndig}x}".rstrip("0") if ndig else ""
    return f"{s}0x1{'.' + digits if digits else ''}p{e:+d}"


to_hex.__doc__ %= _CONVERSION_DOC


# ---- Gauss-Legendre quadrature ---------------------------------------------
def _legendre_fixed(x, n, wp):
    """P_n(x) and P_{n-1}(x) for a fixed-point x (integer scaled by 2**wp)."""
    one = 1 << wp
    p0, p1 = one, x
    for k in range(1, n):
        p0, p1 = p1, ((2 * k + 1) * ((x * p1) >> wp) - k * p0) // (k + 1)
    return p1, p0


def _gauss_legendre_fixed(n, wp):
    """Positive nodes (descending... by k) and weights as fixed-point integers."""
    one = 1 << wp
    nodes, weights = [], []
    tol_bits = wp - 8 - 2 * n.bit_length()
    for k in range(1, n // 2 + 1):
        # Tricomi's asymptotic starting value (accurate to O(n**-4)).
        theta = _math.pi * (4 * k - 1) / (4 * n + 2)
        s2 = _math.sin(theta) ** 2
        x0 = (1 - (n - 1) / (8.0 * n ** 3) - (39 - 28 / s2) / (384.0 * n ** 4)) * _math.cos(theta)
        x = int(round(x0 * 2.0 ** 60)) << (wp - 60) if wp >= 60 else int(round(x0 * 2.0 ** wp))
        converged = 0
        for _it in range(200):
            pn, pn1 = _legendre_fixed(x, n, wp)
            # Newton: dx = P_n / P_n' with P_n' = n (x P_n - P_{n-1}) / (x**2 - 1)
            x2m1 = ((x * x) >> wp) - one
            dnum = n * (((x * pn) >> wp) - pn1)
            if dnum == 0:
                break
            dx = (pn * x2m1) // dnum
            x -= dx
            if abs(dx) <= (1 << max(0, wp - tol_bits)):
                converged += 1
                if converged >= 2:
                    break
        else:
            raise ArithmeticError(f"Gauss-Legendre Newton iteration did not converge (n={n})")
        pn, pn1 = _legendre_fixed(x, n, wp)
        w = (2 * (one - ((x * x) >> wp)) << (2 * wp)) // (n * n * pn1 * pn1 >> 0)
        nodes.append(x)
        weights.append(w)
    return nodes, weights


_gl_lock = _threading.Lock()


@_functools.lru_cache(maxsize=64)
def _gauss_legendre_cached(n, precision, rnd):
    wp = precision + _GUARD_BITS + 2 * n.bit_length()
    pos_nodes, pos_weights = _gauss_legendre_fixed(n, wp)
    nodes, weights = [], []
    for x, w in zip(pos_nodes, pos_weights):          # x descending: -x ascending
        nodes.append(_lib.from_man_exp(-x, -wp, precision, rnd))
        weights.append(_lib.from_man_exp(w, -wp, precision, rnd))
    if n % 2:
        # Middle node 0: weight 2 / P_n'(0)**2 = 2 / (n P_{n-1}(0))**2, exactly.
        c = _fractions.Fraction(1)
        for k in range(1, n, 2):                         # |P_{n-1}(0)| = prod (k/(k+1)) over odd k
            c *= _fractions.Fraction(k, k + 1)
        wmid = 2 / (n * n * c * c)
        mid_w = _lib.from_rational(wmid.numerator, wmid.denominator, precision, rnd)
    nodes_all = nodes + ([_FZERO] if n % 2 else []) + [_lib.mpf_neg(v) for v in reversed(nodes)]
    weights_all = weights + ([mid_w] if n % 2 else []) + list(reversed(weights))
    return tuple(nodes_all), tuple(weights_all)


def gauss_legendre_mp(n, precision=128, rounding="nearest"):
    """Gauss-Legendre nodes and weights in arbitrary precision.

    The ``n`` nodes are the roots of the Legendre polynomial ``P_n`` on
    ``[-1, 1]``; with weights ``w_i = 2 / ((1 - x_i**2) P_n'(x_i)**2)`` the rule
    ``sum_i w_i f(x_i)`` integrates polynomials of degree ``2n - 1`` over
    ``[-1, 1]`` exactly.  The roots are found by Newton's method in fixed-point
    integer arithmetic with ``precision + 32 + 2 * bit_length(n)`` bits,
    started from Tricomi's asymptotic values
    ``(1 - (n-1)/(8n**3) - (39 - 28/sin(t)**2)/(384 n**4)) cos t``,
    ``t = pi (4k - 1)/(4n + 2)``, and iterated to convergence; every node and
    weight is then rounded once.  Error: within 1 ulp of ``precision`` in any
    mode (to nearest: 0.5 ulp plus far less than ``2**-20`` ulp).  Results
    are cached.

    Parameters
    ----------
    n : int
        Number of nodes, at least 1.
    %(precision_rounding)s

    Returns
    -------
    nodes, weights : list of Real
        Nodes in increasing order (symmetric: ``nodes[i] == -nodes[n-1-i]``)
        and their weights.

    Raises
    ------
    ValueError
        If ``n < 1``, or the precision or the rounding mode is invalid.
    TypeError
        If ``n`` is not an integer.
    """
    n = _check_int("n", n)
    if n < 1:
        raise ValueError(f"the number of Gauss-Legendre nodes must be at least 1, got {n}")
    p = _check_precision(precision)
    r = _check_rounding(rounding)
    with _gl_lock:
        nodes, weights = _gauss_legendre_cached(n, p, _RND[r])
    return [_new(x, p, r) for x in nodes], [_new(w, p, r) for w in weights]


gauss_legendre_mp.__doc__ %= _FIXED_PRECISION_DOC


@_functools.lru_cache(maxsize=256)
def _gauss_legendre_float(n, dtype_str):
    import numpy as np

    dt = np.dtype(dtype_str)
    fmt = {np.dtype(np.float32): "float32", np.dtype(np.float64): "float64"}.get(dt)
    if fmt is None:
        fmt = _longdouble_format()
    p = FORMATS[fmt][0]
    precision = 64 * ((p + 64 + 63) // 64)
    nodes, weights = gauss_legendre_mp(n, precision, "nearest")
    x = np.array([to_float(v, dt, "nearest") for v in nodes], dtype=dt)
    w = np.array([to_float(v, dt, "nearest") for v in weights], dtype=dt)
    x.flags.writeable = False
    w.flags.writeable = False
    return x, w


def gauss_legendre(n, dtype="float64"):
    """Gauss-Legendre nodes and weights rounded to a numpy floating type.

    Computed by :func:`gauss_legendre_mp` with at least 64 extra bits and
    rounded once to nearest, so that each node and weight is the correctly
    rounded value (the rounding could differ only if the exact value lay
    within ``2**-64`` ulp of a rounding boundary).  Results are cached.

    Parameters
    ----------
    n : int
        Number of nodes, at least 1.
    dtype : numpy dtype or str
        ``float32``, ``float64`` or ``longdouble`` (x87 extended on x86-64).

    Returns
    -------
    nodes, weights : numpy.ndarray
        Nodes in increasing order on ``[-1, 1]`` and their weights, of
        ``dtype``; ``sum(weights * f(nodes))`` approximates the integral of
        ``f`` over ``[-1, 1]``.  For an interval ``[a, b]`` use nodes
        ``(b - a)/2 * x + (a + b)/2`` and weights ``(b - a)/2 * w``.

    Raises
    ------
    ValueError
        If ``n < 1`` or the dtype is not one of these.
    TypeError
        If ``n`` is not an integer.
    """
    import numpy as np

    n = _check_int("n", n)
    if n < 1:
        raise ValueError(f"the number of Gauss-Legendre nodes must be at least 1, got {n}")
    dt = np.dtype(dtype)
    if dt not in (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.longdouble)):
        raise ValueError(f"dtype must be float32, float64 or longdouble, got {dt}")
    x, w = _gauss_legendre_float(n, dt.str)
    return x.copy(), w.copy()
