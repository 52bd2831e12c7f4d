"""Quantum mechanics: Wigner d functions, Clebsch-Gordan coefficients and orbital angular momenta.

The paper's ``VECAMPFIT_QUANTUM_MECHANICS``.  :func:`d_function` and
:func:`d_function_cos_theta` work on numpy arrays of any shape (float32 or
float64; the result has the precision of the angle) and run the block
routines of ``vecampfit/quantum_mechanics.pxd``, which users' Cython
densities cimport (``from vecampfit.quantum_mechanics cimport d_function``);
there, angular momenta are passed doubled as ints (``two_j = 2 j``) and the
angle as ``cos(theta/2)``, ``sin(theta/2)`` or as ``cos theta``.

Angular momenta are in units of :math:`\\hbar`; integers and half-integers
are accepted as ``int``, as ``float`` (``0.5``, ``1.5``) or as
:class:`fractions.Fraction`.  Angles are in radians.

Wigner's small d function (paper, section "Physical subprograms") is

.. math::

    d^j_{m_1 m_2}(\\theta) = \\langle j\\, m_1 | e^{-i \\theta J_y} | j\\, m_2 \\rangle
    = \\sqrt{(j+m_1)!\\,(j-m_1)!\\,(j+m_2)!\\,(j-m_2)!}
    \\sum_{k = \\max(0,\\, m_2 - m_1)}^{\\min(j - m_1,\\, j + m_2)}
    \\frac{(-1)^k \\left(\\cos\\frac{\\theta}{2}\\right)^{2j + m_2 - m_1 - 2k}
    \\left(-\\sin\\frac{\\theta}{2}\\right)^{m_1 - m_2 + 2k}}
    {(j - m_1 - k)!\\,(j + m_2 - k)!\\,(k + m_1 - m_2)!\\,k!},

the convention of Wigner, Rose and the PDG's table of d functions
(:math:`d^1_{10} = -\\sin\\theta/\\sqrt{2}`,
:math:`d^{1/2}_{1/2,-1/2} = -\\sin(\\theta/2)`).  The summation runs over
every ``k`` for which all factorials have non-negative arguments; the paper
prints the limits with a typo.

Clebsch-Gordan coefficients :math:`\\langle j_1 m_1\\, j_2 m_2 | J M \\rangle`
(:func:`clebsch_gordan`, exact in rational arithmetic by Racah's formula) and
Wigner 3j symbols (:func:`wigner_3j`) follow the Condon-Shortley phase
convention, that of the PDG's tables of Clebsch-Gordan coefficients and of
d functions, so that they combine with the d functions above (as in
helicity amplitudes built from partial waves).
"""

import functools
import math
import numbers
from fractions import Fraction

import numpy as np

from . import _quantum_mechanics as _k
from ._arguments import fill_doc as _fill_doc, float64_array as _float64_array

__all__ = [
    "d_function",
    "d_function_cos_theta",
    "angular_momentum_range",
    "clebsch_gordan",
    "clebsch_gordan_signed_square",
    "wigner_3j",
    "D_FUNCTION_SUM_MAX_J",
]

# Raises section of the functions that take their arguments as clebsch_gordan does.
_COUPLING_RAISES = """Raises
------
ValueError, TypeError
    As :func:`clebsch_gordan`."""


#: Largest j for which :func:`d_function` evaluates the paper's sum formula
#: (``method="auto"``); above it, the recurrence in j.
D_FUNCTION_SUM_MAX_J = 6

# Method -> the block routine of quantum_mechanics.pxd that computes it.
_METHODS = {"auto": "d_function", "sum": "d_function_sum", "recurrence": "d_function_recurrence"}


def _doubled(value, name):
    """2 * value as an int, for an integer or half-integer value (else an exception naming ``name``)."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer or half-integer number, got {value!r}")
    if isinstance(value, numbers.Integral):
        return 2 * int(value)
    if isinstance(value, numbers.Rational):
        two = 2 * Fraction(value)
        if two.denominator != 1:
            raise ValueError(f"{name} must be an integer or half-integer, got {value}")
        return int(two)
    if isinstance(value, numbers.Real):
        v = float(value)
        if not math.isfinite(v):
            raise ValueError(f"{name} must be an integer or half-integer, got {value!r}")
        two = 2 * v
        if two != math.floor(two):
            raise ValueError(f"{name} must be an integer or half-integer, got {value!r}")
        return int(two)
    raise TypeError(f"{name} must be an integer or half-integer number, got {value!r}")


def _fmt(two):
    """Doubled angular momentum as text: 3 -> '3/2', 4 -> '2'."""
    return str(two // 2) if two % 2 == 0 else f"{two}/2"


def _spin(value, name):
    two = _doubled(value, name)
    if two < 0:
        raise ValueError(f"{name} must be non-negative, got {_fmt(two)}")
    return two


def _quantum_numbers(j, m1, m2):
    """Validate (j, m1, m2) for d^j_{m1 m2}; return them doubled."""
    two_j = _spin(j, "j")
    two_m = {}
    for name, value in (("m1", m1), ("m2", m2)):
        two = _doubled(value, name)
        if (two - two_j) % 2:
            kind_m = "an integer" if two % 2 == 0 else "a half-integer"
            kind_j = "an integer" if two_j % 2 == 0 else "a half-integer"
            raise ValueError(f"{name} = {_fmt(two)} is {kind_m} but j = {_fmt(two_j)} is {kind_j}: "
                             "j, m1 and m2 must be all integers or all half-integers")
        if abs(two) > two_j:
            raise ValueError(f"|{name}| must not exceed j: {name} = {_fmt(two)}, j = {_fmt(two_j)}")
        two_m[name] = two
    return two_j, two_m["m1"], two_m["m2"]


def _real_array(value, name):
    """A float32 or float64 array (float64 for Python numbers and non-float arrays of real numbers)."""
    if isinstance(value, (np.ndarray, np.generic)):
        if value.dtype in (np.float32, np.float64):
            return np.asarray(value)
        if value.dtype.kind not in "iu":
            raise TypeError(f"{name}: expected a float32 or float64 array, got dtype {value.dtype}")
    return _float64_array(value, name)


def _method(method):
    try:
        return _METHODS[method]
    except (KeyError, TypeError):
        raise ValueError(f"method must be one of {', '.join(map(repr, _METHODS))}, got {method!r}") from None


def d_function(j, m1, m2, theta, method="auto"):
    """Wigner small d function :math:`d^j_{m_1 m_2}(\\theta)` (paper's ``D_FUNCTION``).

    .. math::

        d^j_{m_1 m_2}(\\theta) = \\langle j\\, m_1 | e^{-i \\theta J_y} | j\\, m_2 \\rangle,

    evaluated with the sum formula of the module description for
    :math:`j \\le` :data:`D_FUNCTION_SUM_MAX_J` and, above, with the stable
    three-term recurrence in :math:`j` at fixed :math:`m_1, m_2` (that of the
    Jacobi polynomials),

    .. math::

        j \\sqrt{((j+1)^2 - m_1^2)((j+1)^2 - m_2^2)}\\, d^{j+1}
        = (2j+1)\\,(j(j+1)\\cos\\theta - m_1 m_2)\\, d^j
        - (j+1) \\sqrt{(j^2 - m_1^2)(j^2 - m_2^2)}\\, d^{j-1},

    started from the single-term value at :math:`j_0 = \\max(|m_1|, |m_2|)`.
    The sum has alternating terms, so its rounding error grows with ``j``
    like its largest term (largest absolute error in float64 about
    5 eps at ``j = 6``, 50 eps at ``j = 10``, :math:`2 \\cdot 10^4` eps at
    ``j = 20``); the recurrence's error grows about linearly in ``j``
    (about 50 eps at ``j = 20``).  Values below the
    floating-point range (large ``j``, :math:`\\sin(\\theta/2)^{|m_1 - m_2|}`
    tiny) come out as 0.

    Parameters
    ----------
    j : int, float or fractions.Fraction
        Angular momentum, a non-negative integer or half-integer.
    m1, m2 : int, float or fractions.Fraction
        Projections, :math:`|m| \\le j`, of the same kind (integer or
        half-integer) as ``j``.
    theta : array_like
        Rotation angle (rad), any real value; float32 arrays compute in
        float32, anything else in float64.
    method : {"auto", "sum", "recurrence"}, optional
        Evaluation: the default chooses as described above; ``"sum"`` and
        ``"recurrence"`` force one of them (for cross-checks; the sum is
        inaccurate for large ``j``).

    Returns
    -------
    numpy.ndarray or numpy.floating
        :math:`d^j_{m_1 m_2}(\\theta)` (dimensionless), of the shape and
        precision of ``theta`` (a numpy scalar for a scalar ``theta``).

    Raises
    ------
    ValueError
        ``j`` negative, a value that is neither integer nor half-integer,
        ``m1`` or ``m2`` of another kind than ``j`` or with :math:`|m| > j`,
        an unknown ``method``.
    TypeError
        Non-numeric quantum numbers or angles.

    Notes
    -----
    The block routines (``quantum_mechanics.pxd``) are ``d_function``,
    ``d_function_sum``, ``d_function_recurrence`` (angle as cosine and sine
    of ``theta/2``), ``d_function_cos_theta`` and the scalar
    ``d_function_scalar``; they take ``2j, 2m1, 2m2`` as ints and give NaN
    for invalid quantum numbers.

    Examples
    --------
    >>> from vecampfit.quantum_mechanics import d_function
    >>> float(d_function(1, 1, 0, 0.5))  # -sin(0.5) / sqrt(2)
    -0.33900504942104487
    >>> float(d_function(0.5, 0.5, -0.5, 0.5))  # -sin(0.25)
    -0.24740395925452294
    """
    two_j, two_m1, two_m2 = _quantum_numbers(j, m1, m2)
    routine = _method(method)
    theta = _real_array(theta, "theta")
    shape, dtype = theta.shape, theta.dtype
    if shape == () and dtype == np.float64 and routine == "d_function":
        t = float(theta)
        return np.float64(_k.d_function_scalar_kernel(two_j, two_m1, two_m2, math.cos(t / 2), math.sin(t / 2)))
    half = np.ascontiguousarray(theta, dtype=dtype).ravel() * dtype.type(0.5)
    c = np.cos(half)
    s = np.sin(half)
    out = np.empty_like(c)
    getattr(_k, routine + "_kernel")(two_j, two_m1, two_m2, c, s, out)
    return out.reshape(shape)[()]


def d_function_cos_theta(j, m1, m2, cos_theta):
    """Wigner small d function from :math:`\\cos\\theta`, for :math:`0 \\le \\theta \\le \\pi`.

    :math:`d^j_{m_1 m_2}(\\theta)` with :math:`\\cos(\\theta/2) = \\sqrt{(1 + \\cos\\theta)/2}`
    and :math:`\\sin(\\theta/2) = \\sqrt{(1 - \\cos\\theta)/2}`, as needed with the
    helicity-angle cosines of :func:`vecampfit.kinematics.dalitz_cos_helicity_angle`.
    Same evaluation as :func:`d_function`.

    Parameters
    ----------
    j, m1, m2 : int, float or fractions.Fraction
        As in :func:`d_function`.
    cos_theta : array_like
        :math:`\\cos\\theta`, in [-1, 1]; values outside by a few rounding
        errors are taken as -1 or 1.

    Returns
    -------
    numpy.ndarray or numpy.floating
        :math:`d^j_{m_1 m_2}(\\theta)`, of the shape and precision of ``cos_theta``.

    Raises
    ------
    ValueError
        Invalid quantum numbers (see :func:`d_function`), or
        :math:`|\\cos\\theta| > 1` beyond rounding, or NaN.
    """
    two_j, two_m1, two_m2 = _quantum_numbers(j, m1, m2)
    x = _real_array(cos_theta, "cos_theta")
    shape, dtype = x.shape, x.dtype
    x = np.ascontiguousarray(x, dtype=dtype).ravel()
    bad = ~(np.abs(x) <= 1 + 8 * np.finfo(dtype).eps)
    if np.any(bad):
        raise ValueError(f"cos_theta must lie in [-1, 1], got {x[bad][0]!r}")
    out = np.empty_like(x)
    _k.d_function_cos_theta_kernel(two_j, two_m1, two_m2, x, out)
    return out.reshape(shape)[()]


def _parity(value, name):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value not in (1, -1):
        raise ValueError(f"{name} must be +1 or -1, got {value!r}")
    return int(value)


def angular_momentum_range(j0, p0, j1, p1, j2, p2, parity_conserved=True):
    """Orbital angular momenta allowed in the two-body decay :math:`0 \\to 1 + 2`.

    The paper's ``ANGULAR_MOMENTUM_RANGE``.  ``L`` is allowed if, for some
    total spin :math:`S` of the daughters with
    :math:`|j_1 - j_2| \\le S \\le j_1 + j_2`, the triangle rule
    :math:`|S - L| \\le j_0 \\le S + L` holds (angular-momentum
    conservation, :math:`\\vec{j}_0 = \\vec{L} + \\vec{S}`), and, if parity is
    conserved, :math:`P_0 = P_1 P_2 (-1)^L`.  The allowed values form the
    range

    * ``l_min, l_min + 1, ..., l_max`` if parity is not conserved, with
      :math:`l_{max} = j_0 + j_1 + j_2` and :math:`l_{min}` the distance of
      :math:`j_0` from the interval :math:`[|j_1 - j_2|, j_1 + j_2]`;
    * ``l_min, l_min + 2, ..., l_max`` if it is conserved (the values of the
      range above with the parity :math:`(-1)^L = P_0 P_1 P_2`).

    Only spins and parities enter: identical-particle symmetry (e.g.
    :math:`\\pi^0\\pi^0`), C parity, isospin and the helicity restrictions of
    massless daughters are not taken into account.

    Parameters
    ----------
    j0, j1, j2 : int, float or fractions.Fraction
        Spins of the mother and the daughters, non-negative integers or
        half-integers (:math:`\\hbar`).
    p0, p1, p2 : int
        Intrinsic parities, +1 or -1 (needed also when parity is not
        conserved, for a uniform call).
    parity_conserved : bool, optional
        Whether the decay conserves parity (strong and electromagnetic
        decays) or not (weak decays).  Default True.

    Returns
    -------
    tuple of int or None
        ``(l_min, l_max)``, or ``None`` if no ``L`` is allowed: when
        :math:`j_0 + j_1 + j_2` is not an integer (a half-integer spin on one
        side only), or when parity conservation excludes every ``L`` of the
        range.

    Raises
    ------
    ValueError
        A spin that is negative or neither integer nor half-integer, a
        parity other than +1 or -1.
    TypeError
        Non-numeric spins, or ``parity_conserved`` not a bool.

    Examples
    --------
    >>> from vecampfit.quantum_mechanics import angular_momentum_range
    >>> angular_momentum_range(1, -1, 0, -1, 0, -1)  # rho -> pi pi
    (1, 1)
    >>> angular_momentum_range(1, 1, 1, -1, 0, -1)  # a1 -> rho pi: S and D waves
    (0, 2)
    >>> angular_momentum_range(1, -1, 0.5, 1, 0.5, -1)  # J/psi -> p pbar
    (0, 2)
    """
    two_j0, two_j1, two_j2 = _spin(j0, "j0"), _spin(j1, "j1"), _spin(j2, "j2")
    p0, p1, p2 = _parity(p0, "p0"), _parity(p1, "p1"), _parity(p2, "p2")
    if not isinstance(parity_conserved, (bool, np.bool_)):
        raise TypeError(f"parity_conserved must be a bool, got {parity_conserved!r}")
    if (two_j0 + two_j1 + two_j2) % 2:
        return None
    two_s_min, two_s_max = abs(two_j1 - two_j2), two_j1 + two_j2
    # S runs over two_s_min, two_s_min + 2, ...; j0 - S is an integer, so the
    # smallest |j0 - S| is the distance of j0 from the interval of S.
    two_l_min = max(two_s_min - two_j0, two_j0 - two_s_max, 0)
    l_min, l_max = two_l_min // 2, (two_j0 + two_s_max) // 2
    if parity_conserved:
        parity_l = p0 * p1 * p2  # (-1)^L
        want = 0 if parity_l == 1 else 1
        if l_min % 2 != want:
            l_min += 1
        if l_max % 2 != want:
            l_max -= 1
        if l_min > l_max:
            return None
    return l_min, l_max


# ---------------------------------------------------------------------------
# Clebsch-Gordan coefficients and Wigner 3j symbols
# ---------------------------------------------------------------------------

@functools.lru_cache(maxsize=4096)
def _racah(two_j1, two_m1, two_j2, two_m2, two_j, two_m):
    """Racah's formula in integer arithmetic: ``(sign, square)`` of <j1 m1 j2 m2 | j m>.

    Arguments are doubled angular momenta (ints, spins non-negative); any
    selection rule that fails gives ``(0, Fraction(0))``.
    """
    for two_ji, two_mi in ((two_j1, two_m1), (two_j2, two_m2), (two_j, two_m)):
        if abs(two_mi) > two_ji or (two_ji - two_mi) % 2:
            return 0, Fraction(0)
    if (two_m1 + two_m2 != two_m or (two_j1 + two_j2 + two_j) % 2
            or not abs(two_j1 - two_j2) <= two_j <= two_j1 + two_j2):
        return 0, Fraction(0)
    f = math.factorial
    # Integers (all differences of doubled values below are even).
    a = (two_j1 + two_j2 - two_j) // 2          # j1 + j2 - J
    b = (two_j1 - two_m1) // 2                  # j1 - m1
    c = (two_j2 + two_m2) // 2                  # j2 + m2
    d = (two_j - two_j2 + two_m1) // 2          # J - j2 + m1
    e = (two_j - two_j1 - two_m2) // 2          # J - j1 - m2
    denominators = []
    for k in range(max(0, -d, -e), min(a, b, c) + 1):
        denominators.append((k, f(k) * f(a - k) * f(b - k) * f(c - k) * f(d + k) * f(e + k)))
    if not denominators:
        return 0, Fraction(0)
    lcm = math.lcm(*(den for _, den in denominators))
    total = sum((-1) ** k * (lcm // den) for k, den in denominators)
    if total == 0:
        return 0, Fraction(0)
    numerator = ((two_j + 1) * f((two_j + two_j1 - two_j2) // 2) * f((two_j - two_j1 + two_j2) // 2)
                 * f(a) * f((two_j + two_m) // 2) * f((two_j - two_m) // 2)
                 * f((two_j1 - two_m1) // 2) * f((two_j1 + two_m1) // 2)
                 * f((two_j2 - two_m2) // 2) * f((two_j2 + two_m2) // 2))
    denominator = f((two_j1 + two_j2 + two_j) // 2 + 1)
    return (1 if total > 0 else -1), Fraction(numerator * total * total, denominator * lcm * lcm)


def _signed_sqrt(sign, square):
    """sign * sqrt(square) for a Fraction ``square``, rounded to the nearest float64.

    The square root is taken in integers to about 80 significant bits
    (``math.isqrt``), and ``float(Fraction)`` rounds that correctly.
    """
    if sign == 0:
        return 0.0
    n, d = square.numerator, square.denominator
    shift = max(0, 80 - (n * d).bit_length() // 2)
    root = math.isqrt((n * d) << (2 * shift))
    return sign * float(Fraction(root, d << shift))


def _coupling_arguments(j1, m1, j2, m2, j, m, names=("j1", "m1", "j2", "m2", "j", "m")):
    """The six quantum numbers doubled (spins checked non-negative); ``names`` for messages."""
    return (_spin(j1, names[0]), _doubled(m1, names[1]), _spin(j2, names[2]), _doubled(m2, names[3]),
            _spin(j, names[4]), _doubled(m, names[5]))


@_fill_doc(raises=_COUPLING_RAISES)
def clebsch_gordan_signed_square(j1, m1, j2, m2, j, m):
    """Exact Clebsch-Gordan coefficient as its signed square, :math:`\\mathrm{sign}(c)\\, c^2`.

    The notation of the PDG's table of Clebsch-Gordan coefficients ("a
    square-root sign is to be understood over every coefficient": ``-1/3``
    stands for :math:`-\\sqrt{1/3}`): ``c = sign(r) * sqrt(abs(r))`` for the
    returned ``r``.  The square of every Clebsch-Gordan coefficient is
    rational, so ``r`` is exact; see :func:`clebsch_gordan` for the formula,
    the phase convention and the selection rules.

    Parameters
    ----------
    j1, m1, j2, m2, j, m : int, float or fractions.Fraction
        As in :func:`clebsch_gordan`.

    Returns
    -------
    fractions.Fraction
        :math:`\\mathrm{sign}(c)\\, c^2` (dimensionless), in [-1, 1]; 0 where
        a selection rule forbids the coupling.

    %(raises)s

    Examples
    --------
    >>> from vecampfit.quantum_mechanics import clebsch_gordan_signed_square
    >>> clebsch_gordan_signed_square(1, 0, 0.5, 0.5, 0.5, 0.5)  # PDG: 1 x 1/2, J = 1/2
    Fraction(-1, 3)
    """
    sign, square = _racah(*_coupling_arguments(j1, m1, j2, m2, j, m))
    return sign * square


def clebsch_gordan(j1, m1, j2, m2, j, m):
    """Clebsch-Gordan coefficient :math:`\\langle j_1 m_1\\, j_2 m_2 | J M \\rangle` (``J = j``, ``M = m``).

    The coefficient of :math:`|j_1 m_1\\rangle |j_2 m_2\\rangle` in the
    coupled state :math:`|J M\\rangle` (real), from Racah's formula:

    .. math::

        \\langle j_1 m_1\\, j_2 m_2 | J M \\rangle = \\delta_{M,\\, m_1 + m_2}
        \\sqrt{\\frac{(2J+1)\\,(J+j_1-j_2)!\\,(J-j_1+j_2)!\\,(j_1+j_2-J)!}{(j_1+j_2+J+1)!}}
        \\sqrt{(J+M)!\\,(J-M)!\\,(j_1-m_1)!\\,(j_1+m_1)!\\,(j_2-m_2)!\\,(j_2+m_2)!}

        \\times \\sum_k \\frac{(-1)^k}{k!\\,(j_1+j_2-J-k)!\\,(j_1-m_1-k)!\\,(j_2+m_2-k)!\\,
        (J-j_2+m_1+k)!\\,(J-j_1-m_2+k)!},

    the sum over every integer ``k`` for which all factorials have
    non-negative arguments.  Phases are those of Condon and Shortley:
    the coefficients are real and
    :math:`\\langle j_1 j_1\\, j_2 (J - j_1) | J J \\rangle > 0`; hence
    :math:`\\langle j_1 m_1\\, j_2 m_2 | J M \\rangle = (-1)^{j_1 + j_2 - J}
    \\langle j_2 m_2\\, j_1 m_1 | J M \\rangle`, as in the PDG's table.

    The sum is evaluated exactly in integers (see
    :func:`clebsch_gordan_signed_square`) and the square root of the exact
    square is rounded once: the result is the exact coefficient rounded to
    the nearest float64 value (relative error at most :math:`2^{-53}`; the
    integer square root carries 80 bits, so only a value within
    :math:`2^{-80}` of a rounding boundary could round the other way).

    Parameters
    ----------
    j1, j2 : int, float or fractions.Fraction
        Spins coupled (:math:`\\hbar`), non-negative integers or half-integers.
    m1, m2 : int, float or fractions.Fraction
        Their projections (:math:`\\hbar`), integers or half-integers.
    j, m : int, float or fractions.Fraction
        Total angular momentum ``J`` (non-negative) and its projection ``M``.

    Returns
    -------
    float
        The coefficient (dimensionless).  It is 0, not an error, where a
        selection rule forbids the coupling, so that sums may run over wider
        ranges: :math:`m_1 + m_2 \\ne M`, the triangle rule
        :math:`|j_1 - j_2| \\le J \\le j_1 + j_2` violated or
        :math:`j_1 + j_2 + J` not an integer, a projection with
        :math:`|m_i| > j_i` or of the other kind (integer, half-integer) than
        its spin.

    Raises
    ------
    ValueError
        A value that is neither an integer nor a half-integer, or a negative
        spin.
    TypeError
        Non-numeric arguments.

    See Also
    --------
    wigner_3j : the symmetric form.

    Examples
    --------
    >>> from vecampfit.quantum_mechanics import clebsch_gordan
    >>> clebsch_gordan(0.5, 0.5, 0.5, -0.5, 1, 0)  # sqrt(1/2)
    0.7071067811865476
    >>> clebsch_gordan(1, 1, 1, -1, 1, 0)  # rho0 -> pi+ pi-: sqrt(1/2)
    0.7071067811865476
    >>> clebsch_gordan(1, 0, 0.5, 0.5, 0.5, 0.5)  # -sqrt(1/3)
    -0.5773502691896257
    """
    return _signed_sqrt(*_racah(*_coupling_arguments(j1, m1, j2, m2, j, m)))


@_fill_doc(raises=_COUPLING_RAISES)
def wigner_3j(j1, j2, j3, m1, m2, m3):
    """Wigner 3j symbol :math:`\\begin{pmatrix} j_1 & j_2 & j_3 \\\\ m_1 & m_2 & m_3 \\end{pmatrix}`.

    .. math::

        \\begin{pmatrix} j_1 & j_2 & j_3 \\\\ m_1 & m_2 & m_3 \\end{pmatrix}
        = \\frac{(-1)^{j_1 - j_2 - m_3}}{\\sqrt{2 j_3 + 1}}
        \\langle j_1 m_1\\, j_2 m_2 | j_3\\, {-m_3} \\rangle,

    with the Clebsch-Gordan coefficient of :func:`clebsch_gordan`
    (Condon-Shortley phases; the convention of Edmonds and of sympy's
    ``wigner_3j``).  Exact square, rounded once to float64 as in
    :func:`clebsch_gordan`.

    Parameters
    ----------
    j1, j2, j3 : int, float or fractions.Fraction
        Spins (:math:`\\hbar`), non-negative integers or half-integers.
    m1, m2, m3 : int, float or fractions.Fraction
        Projections (:math:`\\hbar`).

    Returns
    -------
    float
        The symbol (dimensionless); 0 where a selection rule forbids it
        (:math:`m_1 + m_2 + m_3 \\ne 0`, the triangle rule, :math:`|m_i| > j_i`,
        ...; see :func:`clebsch_gordan`).

    %(raises)s

    Examples
    --------
    >>> from vecampfit.quantum_mechanics import wigner_3j
    >>> wigner_3j(1, 1, 0, 1, -1, 0)  # sqrt(1/3)
    0.5773502691896257
    """
    two_j1, two_m1, two_j2, two_m2, two_j3, two_m3 = _coupling_arguments(
        j1, m1, j2, m2, j3, m3, names=("j1", "m1", "j2", "m2", "j3", "m3"))
    sign, square = _racah(two_j1, two_m1, two_j2, two_m2, two_j3, -two_m3)
    if sign == 0:
        return 0.0
    # (-1)^(j1 - j2 - m3): the exponent is an integer when the coefficient is allowed.
    if ((two_j1 - two_j2 - two_m3) // 2) % 2:
        sign = -sign
    return _signed_sqrt(sign, square / (two_j3 + 1))
