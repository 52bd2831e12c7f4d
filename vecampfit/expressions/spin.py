"""Wigner small-d functions as expressions, for integer and half-integer spins.

The rotation matrix of spin :math:`j` about the :math:`y` axis by the angle
:math:`\\theta` has the elements (Wigner's formula, phases of Condon and
Shortley, the convention of the PDG's table)

.. math::

    d^j_{m_1 m_2}(\\theta) = \\sqrt{(j+m_1)!\\,(j-m_1)!\\,(j+m_2)!\\,(j-m_2)!}
    \\sum_k \\frac{(-1)^{k + m_1 - m_2}}{(j+m_2-k)!\\,k!\\,(m_1-m_2+k)!\\,(j-m_1-k)!}
    \\cos^{2j-2k+m_2-m_1}\\tfrac{\\theta}{2}\\,\\sin^{2k+m_1-m_2}\\tfrac{\\theta}{2},

the sum over every integer :math:`k` with non-negative factorial
arguments.  Each term is an exact rational number times the square root of
one integer (the square root is rounded once, correctly, to float64), so a
:math:`d` function is an expression of :math:`\\cos(\\theta/2)` and
:math:`\\sin(\\theta/2)` (:func:`wigner_small_d`) or, for
:math:`0 \\le \\theta \\le \\pi`, of :math:`\\cos\\theta` alone
(:func:`wigner_small_d_cos`, with :math:`\\cos^2(\\theta/2) = (1 +
\\cos\\theta)/2`).  Angles in radians; spins and projections are given as
numbers (``1``, ``0.5``, ``Fraction(3, 2)``) or strings (``"3/2"``).
"""

import decimal
import math
from fractions import Fraction
import numbers

from .nodes import ZERO, add, as_expr, mul, pos, power

__all__ = ["doubled_spin", "wigner_small_d_terms", "wigner_small_d", "wigner_small_d_cos"]


def doubled_spin(value, name="spin", allow_negative=True):
    """Twice an integer or half-integer number, as an int.

    Parameters
    ----------
    value : int, float, Fraction or str
        ``1``, ``1.5``, ``Fraction(3, 2)``, ``"3/2"``, ``"-1/2"``, ``"2"``.
    name : str
        What the value is, for the error message.
    allow_negative : bool
        Whether a negative value is accepted (a projection) or not (a spin).

    Returns
    -------
    int
        :math:`2 \\times` ``value``.

    Raises
    ------
    ValueError
        If the value is not a multiple of 1/2 (or negative where it may not be).
    """
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a multiple of 1/2, got {value!r}")
    if isinstance(value, str):
        text = value.strip()
        try:
            if "/" in text:
                num, den = text.split("/")
                frac = Fraction(int(num), int(den))
            else:
                frac = Fraction(int(text))
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"{name} must be a multiple of 1/2 such as '3/2' or '1', "
                             f"got {value!r}") from None
    elif isinstance(value, numbers.Rational):
        frac = Fraction(value)
    elif isinstance(value, numbers.Real) and math.isfinite(float(value)):
        frac = Fraction(float(value))
    else:
        raise ValueError(f"{name} must be a multiple of 1/2, got {value!r}")
    two = 2 * frac
    if two.denominator != 1:
        raise ValueError(f"{name} must be a multiple of 1/2, got {value!r}")
    if not allow_negative and two < 0:
        raise ValueError(f"{name} must not be negative, got {value!r}")
    return int(two)


def _check(two_j, two_m1, two_m2):
    if two_j < 0:
        raise ValueError(f"d function: j = {two_j}/2 is negative")
    for two_m in (two_m1, two_m2):
        if abs(two_m) > two_j or (two_j - two_m) % 2:
            raise ValueError(f"d function: projection {two_m}/2 is not one of j = {two_j}/2")


def _sqrt_fraction(x):
    """Correctly rounded float64 square root of a non-negative Fraction."""
    p, q = x.numerator, x.denominator
    rp, rq = math.isqrt(p), math.isqrt(q)
    if rp * rp == p and rq * rq == q:
        return rp / rq
    with decimal.localcontext() as ctx:
        ctx.prec = 50
        return float((decimal.Decimal(p) / decimal.Decimal(q)).sqrt())


def wigner_small_d_terms(j, m1, m2):
    """The terms of :math:`d^j_{m_1 m_2}(\\theta)`: exact coefficients and powers.

    Parameters
    ----------
    j, m1, m2 : int, float, Fraction or str
        Spin and projections (multiples of 1/2, :math:`|m_i| \\le j`).

    Returns
    -------
    list of (int, Fraction, int, int)
        ``(sign, square, a, b)`` per term: the term is
        :math:`\\mathrm{sign}\\,\\sqrt{\\mathrm{square}}\\,
        \\cos^a(\\theta/2)\\sin^b(\\theta/2)`, with :math:`a + b = 2j`.
    """
    two_j = doubled_spin(j, "j", allow_negative=False)
    two_m1, two_m2 = doubled_spin(m1, "m1"), doubled_spin(m2, "m2")
    _check(two_j, two_m1, two_m2)
    jp1, jm1 = (two_j + two_m1) // 2, (two_j - two_m1) // 2
    jp2, jm2 = (two_j + two_m2) // 2, (two_j - two_m2) // 2
    dm = (two_m1 - two_m2) // 2
    f = math.factorial
    root = f(jp1) * f(jm1) * f(jp2) * f(jm2)
    out = []
    for k in range(max(0, -dm), min(jp2, jm1) + 1):
        den = f(jp2 - k) * f(k) * f(dm + k) * f(jm1 - k)
        sign = -1 if (k + dm) % 2 else 1
        out.append((sign, Fraction(root, den * den), two_j - 2 * k - dm, 2 * k + dm))
    return out


def wigner_small_d(j, m1, m2, cos_half, sin_half):
    """:math:`d^j_{m_1 m_2}(\\theta)` as an expression of :math:`\\cos(\\theta/2)`, :math:`\\sin(\\theta/2)`.

    .. math::

        d^j_{m_1 m_2}(\\theta) = \\sum_k s_k \\sqrt{r_k}\\,
        c^{a_k} s^{b_k}, \\qquad c = \\cos\\tfrac{\\theta}{2},\\
        s = \\sin\\tfrac{\\theta}{2}

    (:func:`wigner_small_d_terms`); valid for any real :math:`\\theta`.

    Parameters
    ----------
    j, m1, m2 : int, float, Fraction or str
        Spin and projections.
    cos_half, sin_half : Expr or float
        :math:`\\cos(\\theta/2)` and :math:`\\sin(\\theta/2)` (dimensionless).

    Returns
    -------
    Expr
    """
    c, s = as_expr(cos_half), as_expr(sin_half)
    terms = [mul(sign * _sqrt_fraction(sq), power(c, a), power(s, b))
             for sign, sq, a, b in wigner_small_d_terms(j, m1, m2)]
    return add(*terms) if terms else ZERO


def wigner_small_d_cos(j, m1, m2, cos_theta, sign=1):
    """:math:`d^j_{m_1 m_2}(\\pm\\theta)` as an expression of :math:`\\cos\\theta`
    (:math:`0 \\le \\theta \\le \\pi`).

    .. math::

        d^j_{m_1 m_2}(\\theta) = \\sum_k s_k \\sqrt{r_k}
        \\Big(\\frac{1 + \\cos\\theta}{2}\\Big)^{a_k/2}
        \\Big(\\frac{1 - \\cos\\theta}{2}\\Big)^{b_k/2},
        \\qquad d^j_{m_1 m_2}(-\\theta) = (-1)^{m_1 - m_2} d^j_{m_1 m_2}(\\theta).

    The two bases are clipped at zero, so that a cosine rounded a little
    beyond :math:`\\pm 1` gives the value at :math:`\\pm 1`.

    Parameters
    ----------
    j, m1, m2 : int, float, Fraction or str
        Spin and projections.
    cos_theta : Expr or float
        :math:`\\cos\\theta` (dimensionless).
    sign : {1, -1}
        ``-1`` for the rotation by :math:`-\\theta`.

    Returns
    -------
    Expr
    """
    if sign not in (1, -1):
        raise ValueError(f"sign must be 1 or -1, got {sign!r}")
    x = as_expr(cos_theta)
    plus = pos(mul(0.5, add(1.0, x)))
    minus = pos(mul(0.5, add(1.0, mul(-1.0, x))))
    phase = 1
    if sign == -1 and (doubled_spin(m1, "m1") - doubled_spin(m2, "m2")) % 4 == 2:
        phase = -1
    terms = [mul(phase * sign_k * _sqrt_fraction(sq), power(plus, Fraction(a, 2)),
                 power(minus, Fraction(b, 2)))
             for sign_k, sq, a, b in wigner_small_d_terms(j, m1, m2)]
    return add(*terms) if terms else ZERO
