"""Mathematical functions: vectorized exp, log, floor and power, Gaussians with tails, Chebyshev polynomials.

The paper's ``VECAMPFIT_MATHEMATICAL_FUNCTIONS_VECTOR_#LENGTH#`` (block
routines, declared in ``vecampfit/mathematical_functions.pxd`` for users'
Cython densities) and ``VECAMPFIT_MATHEMATICAL_FUNCTIONS`` (the ``*_scalar``
versions).  The functions here work on numpy arrays of any shape, float32 or
float64 (the result has the precision of the array arguments; Python numbers
adapt to it, and mixing float32 and float64 arrays raises :class:`TypeError`).

**exp, log, power.** The C library's ``exp`` and ``log`` keep a block loop
from vectorizing unless everything is compiled with ``-ffast-math``, so
vecampfit has its own, written so that gcc vectorizes the lane loops:

* ``exp(x)``: :math:`x = k \\ln 2 + r`, :math:`|r| \\le \\ln 2 / 2`, with
  :math:`k` rounded by the "magic number" :math:`1.5 \\cdot 2^{52}` and
  :math:`\\ln 2` split as ``LN_2_HI + LN_2_LO`` (Cody-Waite, ``k LN_2_HI``
  exact); :math:`e^r` by its Taylor series with the build-time coefficients
  :math:`1/k!` up to :math:`r^{14}` (float64) or :math:`r^8` (float32);
  :math:`2^k` by writing the exponent bits, as two factors so that results
  between the smallest normal number and 0 underflow gradually.
* ``log(x)``: :math:`x = 2^e m`, :math:`m \\in [\\sqrt{2}/2, \\sqrt{2})` from
  the bit pattern, :math:`f = m - 1`, :math:`s = f/(2 + f)`,
  :math:`\\log m = 2\\,\\mathrm{atanh}\\, s = s \\sum_k c_k s^{2k}` with the
  build-time coefficients :math:`c_k = 2/(2k+1)`, arranged as
  :math:`f - (f^2/2 - s (f^2/2 + R))` so that the leading term is exact.
* ``power(x, y)``: :math:`x^y = e^{y \\log x}` with :math:`\\log x` in
  double-double arithmetic (relative error below :math:`2^{-66}`), the product
  :math:`y \\log x` as a double-double, and exp of a double-double.  float32
  power goes through the float64 log and exp.

Accuracy (tests/test_mathematical_functions.py measures it against mpmath):
below 1 ulp of the exact value for finite results in the normal range, in
both precisions, so the result is the correctly rounded value or one of its
neighbours.  Results in the subnormal range are rounded once more (error
below one unit of the subnormal spacing).

Ranges and special values (float64; float32 in parentheses):

=================  ===========================================================
``exp(x)``         :math:`x > 709.78` (88.72): inf; :math:`x < -745.13`
                   (-103.97): +0; subnormal results below -708.40 (-87.34);
                   exp(-inf) = 0, exp(inf) = inf, exp(NaN) = NaN.
``log(x)``         defined for :math:`x > 0`, subnormal x included;
                   log(0) = log(-0) = -inf, log(x < 0) = NaN, log(inf) = inf,
                   log(NaN) = NaN, log(1) = 0 exactly.
``power(x, y)``    domain :math:`x > 0` (also for integer y: a negative x gives
                   NaN); x^0 = 1 and 1^y = 1 for every y, even NaN; 0^y = 0
                   for y > 0 and inf for y < 0; inf^y = inf for y > 0 and 0 for
                   y < 0; x^(+-inf) = inf or 0 as the limit; NaN otherwise
                   propagates; overflow and underflow as exp(y log x).
``floor(x)``       exact; floor(-0.0) = -0.0; inf and NaN unchanged.
=================  ===========================================================

**Gaussians.**  With :math:`u` the distance from the mean in units of the
sigma of that side, all shapes are :math:`e^{g(u)}` with peak value 1 at the
mean; every piece of :math:`g` continues the value and the first derivative
of the previous one, so the shapes are continuous with a continuous first
derivative.  The ``*_integral`` functions return the integral over the real
line (divide by it to normalize), and ``normalized=True`` does that.
"""

import math
import numbers

import numpy as np

from ._arguments import apply_kernel as _apply, float64_array as _float64_array, real_arrays as _arrays
from . import _mathematical_functions as _k

__all__ = [
    "exp", "log", "floor", "power", "logistic", "kallen_lambda",
    "exp_scalar", "log_scalar", "floor_scalar", "power_scalar", "logistic_scalar",
    "kallen_lambda_scalar",
    "gaussian", "gaussian_unnormalized", "asymmetric_gaussian", "asymmetric_gaussian_unnormalized",
    "asymmetric_gaussian_exponential_tail", "asymmetric_gaussian_power_law_tail",
    "asymmetric_gaussian_exponential_power_law_tail",
    "asymmetric_gaussian_power_law_exponential_tail",
    "asymmetric_gaussian_exponential_tail_integral", "asymmetric_gaussian_power_law_tail_integral",
    "asymmetric_gaussian_exponential_power_law_tail_integral",
    "asymmetric_gaussian_power_law_exponential_tail_integral",
    "chebyshev_basis", "chebyshev_series",
]


# ---------------------------------------------------------------------------
# Argument handling
# ---------------------------------------------------------------------------

def _real(value, name, positive=False, finite=True):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    value = float(value)
    if finite and not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if positive and not value > 0:
        raise ValueError(f"{name} must be positive, got {value!r}")
    return value


def _unary(x, kernel):
    (x,), shape, dtype = _arrays(x=x)
    out = np.empty_like(x)
    kernel(x, out)
    return out.reshape(shape)


def _scalar(kind, *args):
    for i, a in enumerate(args):
        if isinstance(a, bool) or not isinstance(a, numbers.Real):
            raise TypeError(f"argument {i + 1} must be a real number, got {a!r}")
    if any(isinstance(a, np.float32) for a in args):
        if not all(isinstance(a, (np.float32, int, np.integer)) for a in args):
            raise TypeError("mixed precisions: convert every argument to numpy.float32 or none")
        return np.float32(_k.scalar32(kind, *args))
    return _k.scalar64(kind, *(float(a) for a in args))


# ---------------------------------------------------------------------------
# Elementary functions
# ---------------------------------------------------------------------------

def exp(x):
    """Exponential :math:`e^x`, vectorized (see the module description for the method).

    Parameters
    ----------
    x : array_like
        Exponent (dimensionless), float32 or float64.

    Returns
    -------
    numpy.ndarray
        :math:`e^x` with error below 1 ulp; inf above 709.78 (88.72 in
        float32), 0 below -745.13 (-103.97), gradual underflow in between.

    Raises
    ------
    TypeError
        If ``x`` is not real (e.g. an int32 or complex array).
    """
    return _unary(x, _k.exp_kernel)


def log(x):
    """Natural logarithm :math:`\\log x`, vectorized.

    Parameters
    ----------
    x : array_like
        Argument, :math:`x > 0` (subnormal numbers included).

    Returns
    -------
    numpy.ndarray
        :math:`\\log x` with error below 1 ulp; -inf at 0, NaN for
        :math:`x < 0`, inf at inf.

    Raises
    ------
    TypeError
        If ``x`` is not real.
    """
    return _unary(x, _k.log_kernel)


def floor(x):
    """Floor :math:`\\lfloor x \\rfloor`, the largest integer not above ``x`` (exact).

    Parameters
    ----------
    x : array_like
        Argument.

    Returns
    -------
    numpy.ndarray
        :math:`\\lfloor x \\rfloor`; -0.0, inf and NaN are returned unchanged.

    Raises
    ------
    TypeError
        If ``x`` is not real.
    """
    return _unary(x, _k.floor_kernel)


def power(x, y):
    """Power :math:`x^y = e^{y \\log x}` for :math:`x > 0`, vectorized.

    Parameters
    ----------
    x : array_like
        Base, :math:`x > 0`; a negative base gives NaN even for an integer
        exponent (see the module description for all special values).
    y : array_like
        Exponent; broadcast against ``x``.

    Returns
    -------
    numpy.ndarray
        :math:`x^y` with error below 1 ulp (``log x`` is carried in
        double-double precision so that :math:`|y \\log x|` up to 745 keeps
        the accuracy).

    Raises
    ------
    TypeError
        If an argument is not real or the arrays mix float32 and float64.
    ValueError
        If the shapes do not broadcast.
    """
    (x, y), shape, dtype = _arrays(x=x, y=y)
    out = np.empty_like(x)
    _k.power_kernel(x, y, out)
    return out.reshape(shape)


def logistic(x):
    """Logistic function :math:`1 / (1 + e^{-x})`.

    Evaluated as :math:`1/(1 + e^{-x})` for :math:`x \\ge 0` and as
    :math:`e^{x} / (1 + e^{x})` for :math:`x < 0`, so that nothing overflows
    and small values keep their relative accuracy (a few ulp).

    Parameters
    ----------
    x : array_like
        Argument.

    Returns
    -------
    numpy.ndarray
        Values in [0, 1].

    Raises
    ------
    TypeError
        If ``x`` is not real.
    """
    return _unary(x, _k.logistic_kernel)


def kallen_lambda(x, y, z):
    """Kallen (triangle) function :math:`\\lambda(x, y, z) = x^2 + y^2 + z^2 - 2xy - 2xz - 2yz`.

    Evaluated as :math:`(x - y - z)^2 - 4yz`.  For a two-body decay of a
    particle of mass :math:`M` into masses :math:`m_1, m_2`,
    :math:`\\lambda(M^2, m_1^2, m_2^2) = (M^2 - (m_1+m_2)^2)(M^2 - (m_1-m_2)^2)`
    (GeV^4) vanishes at threshold, where the terms cancel: the absolute error
    is below about :math:`4 \\epsilon (|x| + |y| + |z|)^2` (:math:`\\epsilon`
    the machine epsilon) whatever the size of the result, so close to
    threshold the relative error grows; with masses at hand, the factorized
    form is accurate there.

    Parameters
    ----------
    x, y, z : array_like
        Arguments (typically squared masses, GeV^2); broadcast together.

    Returns
    -------
    numpy.ndarray
        :math:`\\lambda(x, y, z)`.

    Raises
    ------
    TypeError
        If an argument is not real or the arrays mix precisions.
    ValueError
        If the shapes do not broadcast.
    """
    (x, y, z), shape, dtype = _arrays(x=x, y=y, z=z)
    out = np.empty_like(x)
    _k.kallen_lambda_kernel(x, y, z, out)
    return out.reshape(shape)


def exp_scalar(x):
    """:func:`exp` of one number (the same code as one lane of the block routine).

    Parameters
    ----------
    x : float or numpy.float32
        Exponent; a ``numpy.float32`` is computed in float32.

    Returns
    -------
    float or numpy.float32
        :math:`e^x`.

    Raises
    ------
    TypeError
        If ``x`` is not a real number.
    """
    return _scalar(0, x)


def log_scalar(x):
    """:func:`log` of one number.

    Parameters
    ----------
    x : float or numpy.float32
        Argument, :math:`x > 0`.

    Returns
    -------
    float or numpy.float32
        :math:`\\log x`.

    Raises
    ------
    TypeError
        If ``x`` is not a real number.
    """
    return _scalar(1, x)


def floor_scalar(x):
    """:func:`floor` of one number.

    Parameters
    ----------
    x : float or numpy.float32
        Argument.

    Returns
    -------
    float or numpy.float32
        :math:`\\lfloor x \\rfloor`.

    Raises
    ------
    TypeError
        If ``x`` is not a real number.
    """
    return _scalar(2, x)


def logistic_scalar(x):
    """:func:`logistic` of one number.

    Parameters
    ----------
    x : float or numpy.float32
        Argument.

    Returns
    -------
    float or numpy.float32
        :math:`1/(1 + e^{-x})`.

    Raises
    ------
    TypeError
        If ``x`` is not a real number.
    """
    return _scalar(3, x)


def power_scalar(x, y):
    """:func:`power` of one pair of numbers.

    Parameters
    ----------
    x, y : float or numpy.float32
        Base (:math:`x > 0`) and exponent; both ``numpy.float32`` (or
        integers) for float32.

    Returns
    -------
    float or numpy.float32
        :math:`x^y`.

    Raises
    ------
    TypeError
        If an argument is not a real number or the precisions are mixed.
    """
    return _scalar(4, x, y)


def kallen_lambda_scalar(x, y, z):
    """:func:`kallen_lambda` of one triple of numbers.

    Parameters
    ----------
    x, y, z : float or numpy.float32
        Arguments.

    Returns
    -------
    float or numpy.float32
        :math:`(x - y - z)^2 - 4yz`.

    Raises
    ------
    TypeError
        If an argument is not a real number or the precisions are mixed.
    """
    return _scalar(5, x, y, z)


# ---------------------------------------------------------------------------
# Gaussians
# ---------------------------------------------------------------------------

# The kernel of each shape and which of (mean, sigma_left, sigma_right,
# alpha_left, alpha_right, beta_left, beta_right, n_left, n_right) it takes.
_GAUSSIAN_KERNELS = {
    "gaussian": (_k.gaussian_kernel, [0, 1]),
    "gaussian_unnormalized": (_k.gaussian_unnormalized_kernel, [0, 1]),
    "asymmetric": (_k.asymmetric_gaussian_kernel, [0, 1, 2]),
    "asymmetric_unnormalized": (_k.asymmetric_gaussian_unnormalized_kernel, [0, 1, 2]),
    "exponential": (_k.asymmetric_gaussian_exponential_tail_kernel, [0, 1, 2, 3, 4]),
    "power_law": (_k.asymmetric_gaussian_power_law_tail_kernel, [0, 1, 2, 3, 4, 7, 8]),
    "exponential_power_law": (_k.asymmetric_gaussian_exponential_power_law_tail_kernel,
                              list(range(9))),
    "power_law_exponential": (_k.asymmetric_gaussian_power_law_exponential_tail_kernel,
                              list(range(9))),
}


def _gaussian_family(x, kind, mean, sigma_left, sigma_right, alpha_left=1.0, alpha_right=1.0,
                     beta_left=2.0, beta_right=2.0, n_left=2.0, n_right=2.0):
    (x,), shape, dtype = _arrays(x=x)
    p = np.array([mean, sigma_left, sigma_right, alpha_left, alpha_right, beta_left, beta_right,
                  n_left, n_right], dtype=dtype)
    out = np.empty_like(x)
    kernel, arguments = _GAUSSIAN_KERNELS[kind]
    kernel(x, *p[arguments], out)
    return out.reshape(shape)


def _check_sides(mean, sigma_left, sigma_right):
    return (_real(mean, "mean"), _real(sigma_left, "sigma_left", positive=True),
            _real(sigma_right, "sigma_right", positive=True))


def _check_tail(alpha_left, alpha_right, beta_left=None, beta_right=None, n_left=None,
                n_right=None, n_above_one=False):
    al = _real(alpha_left, "alpha_left", positive=True)
    ar = _real(alpha_right, "alpha_right", positive=True)
    out = [al, ar]
    if beta_left is not None:
        bl = _real(beta_left, "beta_left")
        br = _real(beta_right, "beta_right")
        if not bl > al:
            raise ValueError(f"beta_left must be larger than alpha_left, got {bl!r} <= {al!r}")
        if not br > ar:
            raise ValueError(f"beta_right must be larger than alpha_right, got {br!r} <= {ar!r}")
        out += [bl, br]
    if n_left is not None:
        nl = _real(n_left, "n_left", positive=True)
        nr = _real(n_right, "n_right", positive=True)
        if n_above_one and not (nl > 1 and nr > 1):
            raise ValueError("a power-law tail is integrable only for n > 1, got "
                             f"n_left={nl!r}, n_right={nr!r}")
        out += [nl, nr]
    return out


def gaussian(x, mean, sigma):
    """Normalized Gaussian :math:`\\frac{1}{\\sqrt{2\\pi}\\sigma} e^{-(x-\\mu)^2/(2\\sigma^2)}`.

    Parameters
    ----------
    x : array_like
        Variable (any unit; ``mean`` and ``sigma`` in the same unit).
    mean : float
        :math:`\\mu`.
    sigma : float
        :math:`\\sigma > 0`.

    Returns
    -------
    numpy.ndarray
        The density (unit: 1/unit of x), integral 1.

    Raises
    ------
    TypeError
        If an argument is not real.
    ValueError
        If ``sigma`` is not positive or a parameter is not finite.
    """
    mean, sigma, _ = _check_sides(mean, sigma, sigma)
    return _gaussian_family(x, "gaussian", mean, sigma, sigma)


def gaussian_unnormalized(x, mean, sigma):
    """Gaussian shape :math:`e^{-(x-\\mu)^2/(2\\sigma^2)}` (peak value 1).

    Parameters
    ----------
    x : array_like
        Variable.
    mean : float
        :math:`\\mu`.
    sigma : float
        :math:`\\sigma > 0`.

    Returns
    -------
    numpy.ndarray
        The shape; its integral is :math:`\\sqrt{2\\pi}\\sigma`.

    Raises
    ------
    TypeError
        If an argument is not real.
    ValueError
        If ``sigma`` is not positive or a parameter is not finite.
    """
    mean, sigma, _ = _check_sides(mean, sigma, sigma)
    return _gaussian_family(x, "gaussian_unnormalized", mean, sigma, sigma)


def asymmetric_gaussian(x, mean, sigma_left, sigma_right):
    """Normalized asymmetric Gaussian.

    .. math::

        f(x) = \\frac{2}{\\sqrt{2\\pi}(\\sigma_L + \\sigma_R)}
        \\begin{cases} e^{-(x-\\mu)^2/(2\\sigma_L^2)} & x < \\mu \\\\
        e^{-(x-\\mu)^2/(2\\sigma_R^2)} & x \\ge \\mu \\end{cases}

    Each half is half a Gaussian of its own width, so the integral is 1 and
    the function and its first derivative are continuous at the mean.

    Parameters
    ----------
    x : array_like
        Variable.
    mean : float
        :math:`\\mu` (the mode).
    sigma_left, sigma_right : float
        :math:`\\sigma_L, \\sigma_R > 0`.

    Returns
    -------
    numpy.ndarray
        The density.

    Raises
    ------
    TypeError
        If an argument is not real.
    ValueError
        If a sigma is not positive or a parameter is not finite.
    """
    mean, sl, sr = _check_sides(mean, sigma_left, sigma_right)
    return _gaussian_family(x, "asymmetric", mean, sl, sr)


def asymmetric_gaussian_unnormalized(x, mean, sigma_left, sigma_right):
    """Asymmetric Gaussian shape with peak value 1.

    :math:`e^{-(x-\\mu)^2/(2\\sigma^2)}` with :math:`\\sigma = \\sigma_L` for
    :math:`x < \\mu` and :math:`\\sigma_R` otherwise; its integral is
    :math:`\\sqrt{\\pi/2}(\\sigma_L + \\sigma_R)`.

    Parameters
    ----------
    x : array_like
        Variable.
    mean : float
        :math:`\\mu`.
    sigma_left, sigma_right : float
        :math:`\\sigma_L, \\sigma_R > 0`.

    Returns
    -------
    numpy.ndarray
        The shape.

    Raises
    ------
    TypeError
        If an argument is not real.
    ValueError
        If a sigma is not positive or a parameter is not finite.
    """
    mean, sl, sr = _check_sides(mean, sigma_left, sigma_right)
    return _gaussian_family(x, "asymmetric_unnormalized", mean, sl, sr)


def _maybe_normalize(values, normalized, integral):
    if normalized:
        return values / values.dtype.type(integral)
    return values


def asymmetric_gaussian_exponential_tail(x, mean, sigma_left, sigma_right, alpha_left, alpha_right,
                                         normalized=False):
    """Asymmetric Gaussian with exponential tails.

    With :math:`u = (\\mu - x)/\\sigma_L` for :math:`x < \\mu` and
    :math:`u = (x - \\mu)/\\sigma_R` otherwise, and :math:`a` the
    :math:`\\alpha` of that side,

    .. math::

        f(x) = \\begin{cases} e^{-u^2/2} & u \\le a \\\\
        e^{a^2/2 - a u} & u > a. \\end{cases}

    At :math:`u = a` both pieces are :math:`e^{-a^2/2}` with derivative
    :math:`-a e^{-a^2/2}` (in u).  Integral over the real line:
    :func:`asymmetric_gaussian_exponential_tail_integral`.

    Parameters
    ----------
    x : array_like
        Variable.
    mean : float
        :math:`\\mu`.
    sigma_left, sigma_right : float
        Core widths, positive.
    alpha_left, alpha_right : float
        Start of the tails in units of the core width, positive.
    normalized : bool
        Divide by the integral (default: peak value 1).

    Returns
    -------
    numpy.ndarray
        The shape (or density).

    Raises
    ------
    TypeError
        If an argument is not real.
    ValueError
        If a sigma or alpha is not positive or a parameter is not finite.
    """
    mean, sl, sr = _check_sides(mean, sigma_left, sigma_right)
    al, ar = _check_tail(alpha_left, alpha_right)
    v = _gaussian_family(x, "exponential", mean, sl, sr, al, ar)
    if normalized:
        return _maybe_normalize(v, True, asymmetric_gaussian_exponential_tail_integral(sl, sr, al, ar))
    return v


def asymmetric_gaussian_power_law_tail(x, mean, sigma_left, sigma_right, alpha_left, alpha_right,
                                       n_left, n_right, normalized=False):
    """Asymmetric Gaussian with power-law tails (Crystal Ball on both sides).

    With :math:`u` and :math:`a` as in :func:`asymmetric_gaussian_exponential_tail`
    and :math:`n` the exponent of that side,

    .. math::

        f(x) = \\begin{cases} e^{-u^2/2} & u \\le a \\\\
        e^{-a^2/2} \\left(1 + \\frac{a (u - a)}{n}\\right)^{-n} & u > a, \\end{cases}

    continuous with a continuous first derivative at :math:`u = a`; the tail
    falls like :math:`u^{-n}`.  Integral:
    :func:`asymmetric_gaussian_power_law_tail_integral` (needs :math:`n > 1`).

    Parameters
    ----------
    x : array_like
        Variable.
    mean : float
        :math:`\\mu`.
    sigma_left, sigma_right : float
        Core widths, positive.
    alpha_left, alpha_right : float
        Start of the tails in units of the core width, positive.
    n_left, n_right : float
        Power-law exponents, positive (above 1 for ``normalized=True``).
    normalized : bool
        Divide by the integral.

    Returns
    -------
    numpy.ndarray
        The shape (or density).

    Raises
    ------
    TypeError
        If an argument is not real.
    ValueError
        If a sigma, alpha or n is not positive (n not above 1 when
        normalizing) or a parameter is not finite.
    """
    mean, sl, sr = _check_sides(mean, sigma_left, sigma_right)
    al, ar, nl, nr = _check_tail(alpha_left, alpha_right, n_left=n_left, n_right=n_right,
                                 n_above_one=normalized)
    v = _gaussian_family(x, "power_law", mean, sl, sr, al, ar, n_left=nl, n_right=nr)
    if normalized:
        return _maybe_normalize(v, True, asymmetric_gaussian_power_law_tail_integral(
            sl, sr, al, ar, nl, nr))
    return v


def asymmetric_gaussian_exponential_power_law_tail(x, mean, sigma_left, sigma_right, alpha_left,
                                                   alpha_right, beta_left, beta_right, n_left,
                                                   n_right, normalized=False):
    """Asymmetric Gaussian with exponential tails that turn into power-law tails.

    With :math:`u` as in :func:`asymmetric_gaussian_exponential_tail` and
    :math:`a < b`, :math:`n` the parameters of that side,

    .. math::

        f(x) = \\begin{cases} e^{-u^2/2} & u \\le a \\\\
        e^{a^2/2 - a u} & a < u \\le b \\\\
        e^{a^2/2 - a b} \\left(1 + \\frac{a (u - b)}{n}\\right)^{-n} & u > b, \\end{cases}

    continuous with a continuous first derivative at :math:`u = a` and
    :math:`u = b` (the logarithmic slope is :math:`-a` on both sides of
    :math:`b`).  Integral: :func:`asymmetric_gaussian_exponential_power_law_tail_integral`
    (needs :math:`n > 1`).

    Parameters
    ----------
    x : array_like
        Variable.
    mean : float
        :math:`\\mu`.
    sigma_left, sigma_right : float
        Core widths, positive.
    alpha_left, alpha_right : float
        Start of the exponential tails in core widths, positive.
    beta_left, beta_right : float
        Start of the power-law tails in core widths, above alpha.
    n_left, n_right : float
        Power-law exponents, positive (above 1 for ``normalized=True``).
    normalized : bool
        Divide by the integral.

    Returns
    -------
    numpy.ndarray
        The shape (or density).

    Raises
    ------
    TypeError
        If an argument is not real.
    ValueError
        If a parameter is out of range (see above) or not finite.
    """
    mean, sl, sr = _check_sides(mean, sigma_left, sigma_right)
    al, ar, bl, br, nl, nr = _check_tail(alpha_left, alpha_right, beta_left, beta_right, n_left,
                                         n_right, n_above_one=normalized)
    v = _gaussian_family(x, "exponential_power_law", mean, sl, sr, al, ar, bl, br, nl, nr)
    if normalized:
        return _maybe_normalize(v, True, asymmetric_gaussian_exponential_power_law_tail_integral(
            sl, sr, al, ar, bl, br, nl, nr))
    return v


def asymmetric_gaussian_power_law_exponential_tail(x, mean, sigma_left, sigma_right, alpha_left,
                                                   alpha_right, beta_left, beta_right, n_left,
                                                   n_right, normalized=False):
    """Asymmetric Gaussian with power-law tails that turn into exponential tails.

    With :math:`u` as in :func:`asymmetric_gaussian_exponential_tail`,
    :math:`a < b`, :math:`n` the parameters of that side and
    :math:`w(u) = 1 + a (u - a)/n`,

    .. math::

        f(x) = \\begin{cases} e^{-u^2/2} & u \\le a \\\\
        e^{-a^2/2} w(u)^{-n} & a < u \\le b \\\\
        e^{-a^2/2} w(b)^{-n} e^{-(a / w(b)) (u - b)} & u > b, \\end{cases}

    continuous with a continuous first derivative at :math:`u = a` and
    :math:`u = b` (the logarithmic slope of the power law at :math:`b` is
    :math:`-a/w(b)`).  Integral:
    :func:`asymmetric_gaussian_power_law_exponential_tail_integral` (any
    :math:`n > 0`).

    Parameters
    ----------
    x : array_like
        Variable.
    mean : float
        :math:`\\mu`.
    sigma_left, sigma_right : float
        Core widths, positive.
    alpha_left, alpha_right : float
        Start of the power-law tails in core widths, positive.
    beta_left, beta_right : float
        Start of the exponential tails in core widths, above alpha.
    n_left, n_right : float
        Power-law exponents, positive.
    normalized : bool
        Divide by the integral.

    Returns
    -------
    numpy.ndarray
        The shape (or density).

    Raises
    ------
    TypeError
        If an argument is not real.
    ValueError
        If a parameter is out of range (see above) or not finite.
    """
    mean, sl, sr = _check_sides(mean, sigma_left, sigma_right)
    al, ar, bl, br, nl, nr = _check_tail(alpha_left, alpha_right, beta_left, beta_right, n_left,
                                         n_right)
    v = _gaussian_family(x, "power_law_exponential", mean, sl, sr, al, ar, bl, br, nl, nr)
    if normalized:
        return _maybe_normalize(v, True, asymmetric_gaussian_power_law_exponential_tail_integral(
            sl, sr, al, ar, bl, br, nl, nr))
    return v


def asymmetric_gaussian_exponential_tail_integral(sigma_left, sigma_right, alpha_left, alpha_right):
    """Integral over the real line of :func:`asymmetric_gaussian_exponential_tail`.

    Per side: :math:`\\sigma \\left(\\sqrt{\\pi/2}\\,\\mathrm{erf}(a/\\sqrt{2}) + e^{-a^2/2}/a\\right)`.

    Parameters
    ----------
    sigma_left, sigma_right, alpha_left, alpha_right : float
        As in :func:`asymmetric_gaussian_exponential_tail`.

    Returns
    -------
    float
        The integral (unit of x).

    Raises
    ------
    TypeError, ValueError
        For invalid parameters, as in the shape function.
    """
    _, sl, sr = _check_sides(0.0, sigma_left, sigma_right)
    al, ar = _check_tail(alpha_left, alpha_right)
    return _k.tail_integral(sl, sr, al, ar, 0.0, 0.0, 2.0, 2.0, 1)


def asymmetric_gaussian_power_law_tail_integral(sigma_left, sigma_right, alpha_left, alpha_right,
                                                n_left, n_right):
    """Integral over the real line of :func:`asymmetric_gaussian_power_law_tail`.

    Per side: :math:`\\sigma \\left(\\sqrt{\\pi/2}\\,\\mathrm{erf}(a/\\sqrt{2})
    + e^{-a^2/2} \\frac{n}{a (n - 1)}\\right)`, finite for :math:`n > 1`.

    Parameters
    ----------
    sigma_left, sigma_right, alpha_left, alpha_right, n_left, n_right : float
        As in :func:`asymmetric_gaussian_power_law_tail`; n above 1.

    Returns
    -------
    float
        The integral.

    Raises
    ------
    TypeError, ValueError
        For invalid parameters (including n <= 1).
    """
    _, sl, sr = _check_sides(0.0, sigma_left, sigma_right)
    al, ar, nl, nr = _check_tail(alpha_left, alpha_right, n_left=n_left, n_right=n_right,
                                 n_above_one=True)
    return _k.tail_integral(sl, sr, al, ar, 0.0, 0.0, nl, nr, 2)


def asymmetric_gaussian_exponential_power_law_tail_integral(sigma_left, sigma_right, alpha_left,
                                                            alpha_right, beta_left, beta_right,
                                                            n_left, n_right):
    """Integral over the real line of :func:`asymmetric_gaussian_exponential_power_law_tail`.

    Per side: :math:`\\sigma \\left(\\sqrt{\\pi/2}\\,\\mathrm{erf}(a/\\sqrt{2})
    + \\frac{e^{-a^2/2} - e^{a^2/2 - ab}}{a} + e^{a^2/2 - ab} \\frac{n}{a (n - 1)}\\right)`,
    finite for :math:`n > 1`.

    Parameters
    ----------
    sigma_left, sigma_right, alpha_left, alpha_right, beta_left, beta_right, n_left, n_right : float
        As in :func:`asymmetric_gaussian_exponential_power_law_tail`; n above 1.

    Returns
    -------
    float
        The integral.

    Raises
    ------
    TypeError, ValueError
        For invalid parameters (including n <= 1).
    """
    _, sl, sr = _check_sides(0.0, sigma_left, sigma_right)
    al, ar, bl, br, nl, nr = _check_tail(alpha_left, alpha_right, beta_left, beta_right, n_left,
                                         n_right, n_above_one=True)
    return _k.tail_integral(sl, sr, al, ar, bl, br, nl, nr, 3)


def asymmetric_gaussian_power_law_exponential_tail_integral(sigma_left, sigma_right, alpha_left,
                                                            alpha_right, beta_left, beta_right,
                                                            n_left, n_right):
    """Integral over the real line of :func:`asymmetric_gaussian_power_law_exponential_tail`.

    Per side, with :math:`w = 1 + a (b - a)/n`:
    :math:`\\sigma \\left(\\sqrt{\\pi/2}\\,\\mathrm{erf}(a/\\sqrt{2})
    + e^{-a^2/2} \\frac{n}{a (n - 1)} (1 - w^{1-n}) + e^{-a^2/2} \\frac{w^{1-n}}{a}\\right)`
    (the middle term is :math:`e^{-a^2/2} \\log(w)/a` for :math:`n = 1`).

    Parameters
    ----------
    sigma_left, sigma_right, alpha_left, alpha_right, beta_left, beta_right, n_left, n_right : float
        As in :func:`asymmetric_gaussian_power_law_exponential_tail`.

    Returns
    -------
    float
        The integral.

    Raises
    ------
    TypeError, ValueError
        For invalid parameters.
    """
    _, sl, sr = _check_sides(0.0, sigma_left, sigma_right)
    al, ar, bl, br, nl, nr = _check_tail(alpha_left, alpha_right, beta_left, beta_right, n_left,
                                         n_right)
    return _k.tail_integral(sl, sr, al, ar, bl, br, nl, nr, 4)


# ---------------------------------------------------------------------------
# Chebyshev polynomials
# ---------------------------------------------------------------------------

def _check_degree(degree):
    if isinstance(degree, bool) or not isinstance(degree, numbers.Integral) or degree < 0:
        raise ValueError(f"degree must be a non-negative integer, got {degree!r}")
    return int(degree)


def chebyshev_basis(x, degree):
    """Chebyshev polynomials of the first kind :math:`T_0(x), \\dots, T_n(x)`.

    :math:`T_0 = 1`, :math:`T_1 = x`, :math:`T_{k+1} = 2 x T_k - T_{k-1}`
    (:math:`T_k(\\cos\\theta) = \\cos k\\theta` on [-1, 1]).

    Parameters
    ----------
    x : array_like
        Arguments (usually in [-1, 1]).
    degree : int
        Highest degree :math:`n \\ge 0`.

    Returns
    -------
    numpy.ndarray
        Shape ``(degree + 1,) + x.shape``: row k holds :math:`T_k(x)`.

    Raises
    ------
    TypeError
        If ``x`` is not real.
    ValueError
        If ``degree`` is not a non-negative integer.
    """
    degree = _check_degree(degree)
    (x,), shape, dtype = _arrays(x=x)
    out = np.empty((degree + 1, x.shape[0]), dtype)
    work = np.empty((degree + 1) * 8, dtype)
    _k.chebyshev_basis_kernel(x, degree, work, out)
    return out.reshape((degree + 1,) + tuple(shape))


def chebyshev_series(x, coefficients):
    """Chebyshev series :math:`\\sum_{k=0}^{n} c_k T_k(x)` by Clenshaw's recurrence.

    :math:`b_{n+1} = b_{n+2} = 0`, :math:`b_k = c_k + 2 x b_{k+1} - b_{k+2}`,
    result :math:`c_0 + x b_1 - b_2` (stable on [-1, 1]).

    Parameters
    ----------
    x : array_like
        Arguments.
    coefficients : array_like
        :math:`c_0, \\dots, c_n` (one-dimensional, at least one); converted
        to the precision of ``x``.

    Returns
    -------
    numpy.ndarray
        The series at ``x``.

    Raises
    ------
    TypeError
        If ``x`` or the coefficients are not real, or they mix precisions.
    ValueError
        If the coefficients are not a non-empty one-dimensional sequence.
    """
    x_typed = isinstance(x, (np.ndarray, np.generic))
    (x,), shape, dtype = _arrays(x=x)
    c = coefficients
    if isinstance(c, (np.ndarray, np.generic)):
        if c.dtype not in (np.float32, np.float64):
            raise TypeError(f"coefficients: expected float32 or float64, got dtype {c.dtype}")
        if x_typed and c.dtype != dtype:
            raise TypeError(f"mixed precisions: x is {dtype}, coefficients are {c.dtype} "
                            "(convert the arguments to one precision)")
        if not x_typed:
            dtype = c.dtype
            x = x.astype(dtype)
    else:
        c = _float64_array(c, "coefficients")
    if c.ndim != 1 or c.shape[0] < 1:
        raise ValueError(f"coefficients must be a non-empty one-dimensional sequence, got shape {c.shape}")
    c = np.ascontiguousarray(c, dtype=dtype)
    out = np.empty_like(x)
    _k.chebyshev_series_kernel(x, c, out)
    return out.reshape(shape)
