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

from ._arguments import BROADCAST_RAISES as _BROADCAST_RAISES
from ._arguments import apply_kernel as _apply
from ._arguments import documented as _documented
from ._arguments import float64_array as _float64_array
from ._arguments import numpydoc as _numpydoc
from ._arguments import public_function as _public_function
from ._arguments import real_arrays as _arrays
from ._arguments import sections as _sections
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

def _elementwise(name, summary, argument, value, details="", raises="If ``x`` is not real."):
    """The public ``name(x)``: the block routine ``name`` applied to each element of ``x``.

    ``argument`` and ``value`` describe ``x`` and the result in the docstring.
    """
    kernel = getattr(_k, name + "_kernel")

    def function(x):
        return _apply(kernel, x=x)

    doc = _numpydoc(summary, details, parameters=[("x : array_like", argument)],
                    returns=[("numpy.ndarray", value)], raises=[("TypeError", raises)])
    return _public_function(function, name, __name__, doc)


def _scalar_function(name, kind, summary, arguments, argument, value, raises="If ``x`` is not a real number."):
    """The public ``name`` of one number (or pair or triple): ``_k.scalar64``/``scalar32`` routine ``kind``.

    ``arguments`` is ``"x"``, ``"x, y"`` or ``"x, y, z"``; ``argument`` and
    ``value`` describe them and the result in the docstring.
    """
    if arguments == "x":
        def function(x):
            return _scalar(kind, x)
    elif arguments == "x, y":
        def function(x, y):
            return _scalar(kind, x, y)
    else:
        def function(x, y, z):
            return _scalar(kind, x, y, z)
    doc = _numpydoc(summary, parameters=[(f"{arguments} : float or numpy.float32", argument)],
                    returns=[("float or numpy.float32", value)], raises=[("TypeError", raises)])
    return _public_function(function, name, __name__, doc)


exp = _elementwise(
    "exp", "Exponential :math:`e^x`, vectorized (see the module description for the method).",
    "Exponent (dimensionless), float32 or float64.",
    ":math:`e^x` with error below 1 ulp; inf above 709.78 (88.72 in\n"
    "float32), 0 below -745.13 (-103.97), gradual underflow in between.",
    raises="If ``x`` is not real (e.g. an int32 or complex array).")
log = _elementwise(
    "log", "Natural logarithm :math:`\\log x`, vectorized.",
    "Argument, :math:`x > 0` (subnormal numbers included).",
    ":math:`\\log x` with error below 1 ulp; -inf at 0, NaN for\n"
    ":math:`x < 0`, inf at inf.")
floor = _elementwise(
    "floor", "Floor :math:`\\lfloor x \\rfloor`, the largest integer not above ``x`` (exact).",
    "Argument.", ":math:`\\lfloor x \\rfloor`; -0.0, inf and NaN are returned unchanged.")


@_documented(
    "Power :math:`x^y = e^{y \\log x}` for :math:`x > 0`, vectorized.",
    parameters=[("x : array_like",
                 "Base, :math:`x > 0`; a negative base gives NaN even for an integer\n"
                 "exponent (see the module description for all special values)."),
                ("y : array_like", "Exponent; broadcast against ``x``.")],
    returns=[("numpy.ndarray",
              ":math:`x^y` with error below 1 ulp (``log x`` is carried in\n"
              "double-double precision so that :math:`|y \\log x|` up to 745 keeps\n"
              "the accuracy).")],
    raises=_BROADCAST_RAISES)
def power(x, y):
    return _apply(_k.power_kernel, x=x, y=y)


logistic = _elementwise(
    "logistic", "Logistic function :math:`1 / (1 + e^{-x})`.", "Argument.", "Values in [0, 1].",
    details="Evaluated as :math:`1/(1 + e^{-x})` for :math:`x \\ge 0` and as\n"
            ":math:`e^{x} / (1 + e^{x})` for :math:`x < 0`, so that nothing overflows\n"
            "and small values keep their relative accuracy (a few ulp).")


@_documented(
    "Kallen (triangle) function :math:`\\lambda(x, y, z) = x^2 + y^2 + z^2 - 2xy - 2xz - 2yz`.",
    "Evaluated as :math:`(x - y - z)^2 - 4yz`.  For a two-body decay of a\n"
    "particle of mass :math:`M` into masses :math:`m_1, m_2`,\n"
    ":math:`\\lambda(M^2, m_1^2, m_2^2) = (M^2 - (m_1+m_2)^2)(M^2 - (m_1-m_2)^2)`\n"
    "(GeV^4) vanishes at threshold, where the terms cancel: the absolute error\n"
    "is below about :math:`4 \\epsilon (|x| + |y| + |z|)^2` (:math:`\\epsilon`\n"
    "the machine epsilon) whatever the size of the result, so close to\n"
    "threshold the relative error grows; with masses at hand, the factorized\n"
    "form is accurate there.",
    parameters=[("x, y, z : array_like", "Arguments (typically squared masses, GeV^2); broadcast together.")],
    returns=[("numpy.ndarray", ":math:`\\lambda(x, y, z)`.")],
    raises=[("TypeError", "If an argument is not real or the arrays mix precisions."),
            ("ValueError", "If the shapes do not broadcast.")])
def kallen_lambda(x, y, z):
    return _apply(_k.kallen_lambda_kernel, x=x, y=y, z=z)


exp_scalar = _scalar_function(
    "exp_scalar", 0, ":func:`exp` of one number (the same code as one lane of the block routine).", "x",
    "Exponent; a ``numpy.float32`` is computed in float32.", ":math:`e^x`.")
log_scalar = _scalar_function("log_scalar", 1, ":func:`log` of one number.", "x",
                              "Argument, :math:`x > 0`.", ":math:`\\log x`.")
floor_scalar = _scalar_function("floor_scalar", 2, ":func:`floor` of one number.", "x",
                                "Argument.", ":math:`\\lfloor x \\rfloor`.")
logistic_scalar = _scalar_function("logistic_scalar", 3, ":func:`logistic` of one number.", "x",
                                   "Argument.", ":math:`1/(1 + e^{-x})`.")
power_scalar = _scalar_function(
    "power_scalar", 4, ":func:`power` of one pair of numbers.", "x, y",
    "Base (:math:`x > 0`) and exponent; both ``numpy.float32`` (or\n"
    "integers) for float32.", ":math:`x^y`.",
    raises="If an argument is not a real number or the precisions are mixed.")
kallen_lambda_scalar = _scalar_function(
    "kallen_lambda_scalar", 5, ":func:`kallen_lambda` of one triple of numbers.", "x, y, z",
    "Arguments.", ":math:`(x - y - z)^2 - 4yz`.",
    raises="If an argument is not a real number or the precisions are mixed.")


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


# Docstring entries shared by the Gaussians.
_VARIABLE = ("x : array_like", "Variable.")
_MEAN = ("mean : float", ":math:`\\mu`.")
_SIGMA = ("sigma : float", ":math:`\\sigma > 0`.")
_SIGMAS = ("sigma_left, sigma_right : float", ":math:`\\sigma_L, \\sigma_R > 0`.")
_CORE_WIDTHS = ("sigma_left, sigma_right : float", "Core widths, positive.")
_EXPONENTS = ("n_left, n_right : float", "Power-law exponents, positive (above 1 for ``normalized=True``).")
_NORMALIZED = ("normalized : bool", "Divide by the integral.")
_SHAPE = ("numpy.ndarray", "The shape (or density).")
_INTEGRAL = ("float", "The integral.")
_NOT_REAL = ("TypeError", "If an argument is not real.")
_SIGMA_RAISES = [_NOT_REAL, ("ValueError", "If ``sigma`` is not positive or a parameter is not finite.")]
_SIGMAS_RAISES = [_NOT_REAL, ("ValueError", "If a sigma is not positive or a parameter is not finite.")]
_RANGE_RAISES = [_NOT_REAL, ("ValueError", "If a parameter is out of range (see above) or not finite.")]
_INVALID_N = [("TypeError, ValueError", "For invalid parameters (including n <= 1).")]


def _core_gaussian(name, kind, summary, details, parameters, result, asymmetric):
    """The public Gaussian ``name`` without tails, by the kernel ``_GAUSSIAN_KERNELS[kind]``.

    Its parameters are ``(x, mean, sigma)`` or, if ``asymmetric``,
    ``(x, mean, sigma_left, sigma_right)``.
    """
    if asymmetric:
        def function(x, mean, sigma_left, sigma_right):
            mean, sl, sr = _check_sides(mean, sigma_left, sigma_right)
            return _gaussian_family(x, kind, mean, sl, sr)
        raises = _SIGMAS_RAISES
    else:
        def function(x, mean, sigma):
            mean, sigma, _ = _check_sides(mean, sigma, sigma)
            return _gaussian_family(x, kind, mean, sigma, sigma)
        raises = _SIGMA_RAISES
    doc = _numpydoc(summary, details, parameters=parameters, returns=[("numpy.ndarray", result)], raises=raises)
    return _public_function(function, name, __name__, doc)


gaussian = _core_gaussian(
    "gaussian", "gaussian",
    "Normalized Gaussian :math:`\\frac{1}{\\sqrt{2\\pi}\\sigma} e^{-(x-\\mu)^2/(2\\sigma^2)}`.", "",
    [("x : array_like", "Variable (any unit; ``mean`` and ``sigma`` in the same unit)."), _MEAN, _SIGMA],
    "The density (unit: 1/unit of x), integral 1.", asymmetric=False)
gaussian_unnormalized = _core_gaussian(
    "gaussian_unnormalized", "gaussian_unnormalized",
    "Gaussian shape :math:`e^{-(x-\\mu)^2/(2\\sigma^2)}` (peak value 1).", "",
    [_VARIABLE, _MEAN, _SIGMA], "The shape; its integral is :math:`\\sqrt{2\\pi}\\sigma`.", asymmetric=False)
asymmetric_gaussian = _core_gaussian(
    "asymmetric_gaussian", "asymmetric", "Normalized asymmetric Gaussian.",
    ".. math::\n"
    "\n"
    "    f(x) = \\frac{2}{\\sqrt{2\\pi}(\\sigma_L + \\sigma_R)}\n"
    "    \\begin{cases} e^{-(x-\\mu)^2/(2\\sigma_L^2)} & x < \\mu \\\\\n"
    "    e^{-(x-\\mu)^2/(2\\sigma_R^2)} & x \\ge \\mu \\end{cases}\n"
    "\n"
    "Each half is half a Gaussian of its own width, so the integral is 1 and\n"
    "the function and its first derivative are continuous at the mean.",
    [_VARIABLE, ("mean : float", ":math:`\\mu` (the mode)."), _SIGMAS], "The density.", asymmetric=True)
asymmetric_gaussian_unnormalized = _core_gaussian(
    "asymmetric_gaussian_unnormalized", "asymmetric_unnormalized", "Asymmetric Gaussian shape with peak value 1.",
    ":math:`e^{-(x-\\mu)^2/(2\\sigma^2)}` with :math:`\\sigma = \\sigma_L` for\n"
    ":math:`x < \\mu` and :math:`\\sigma_R` otherwise; its integral is\n"
    ":math:`\\sqrt{\\pi/2}(\\sigma_L + \\sigma_R)`.",
    [_VARIABLE, _MEAN, _SIGMAS], "The shape.", asymmetric=True)


def _tailed(x, kind, integral, normalized, mean, sigma_left, sigma_right, alpha_left, alpha_right,
            beta_left=None, beta_right=None, n_left=None, n_right=None, n_above_one=False):
    """The Gaussian with tails ``kind`` (of ``_GAUSSIAN_KERNELS``) at ``x``, after the checks.

    The tail parameters that are not None are checked and passed on; with
    ``normalized`` the values are divided by ``integral(sigma_left,
    sigma_right, *tail parameters)``.
    """
    mean, sl, sr = _check_sides(mean, sigma_left, sigma_right)
    tail = _check_tail(alpha_left, alpha_right, beta_left, beta_right, n_left, n_right, n_above_one)
    names = ["alpha_left", "alpha_right"] + (["beta_left", "beta_right"] if beta_left is not None else []) \
        + (["n_left", "n_right"] if n_left is not None else [])
    v = _gaussian_family(x, kind, mean, sl, sr, **dict(zip(names, tail)))
    if normalized:
        return v / v.dtype.type(integral(sl, sr, *tail))
    return v


def _tail_integral(kind, sigma_left, sigma_right, alpha_left, alpha_right, beta_left=None,
                   beta_right=None, n_left=None, n_right=None, n_above_one=False):
    """Integral of the Gaussian with tails of kind ``kind`` of ``_k.tail_integral``, after the checks."""
    _, sl, sr = _check_sides(0.0, sigma_left, sigma_right)
    tail = _check_tail(alpha_left, alpha_right, beta_left, beta_right, n_left, n_right, n_above_one)
    al, ar = tail[:2]
    bl, br = tail[2:4] if beta_left is not None else (0.0, 0.0)
    nl, nr = tail[-2:] if n_left is not None else (2.0, 2.0)
    return _k.tail_integral(sl, sr, al, ar, bl, br, nl, nr, kind)


@_sections(
    parameters=[_VARIABLE, _MEAN, _CORE_WIDTHS,
                ("alpha_left, alpha_right : float",
                 "Start of the tails in units of the core width, positive."),
                ("normalized : bool", "Divide by the integral (default: peak value 1).")],
    returns=[_SHAPE],
    raises=[_NOT_REAL, ("ValueError", "If a sigma or alpha is not positive or a parameter is not finite.")])
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
    """
    return _tailed(x, "exponential", asymmetric_gaussian_exponential_tail_integral, normalized, mean,
                   sigma_left, sigma_right, alpha_left, alpha_right)


@_sections(
    parameters=[_VARIABLE, _MEAN, _CORE_WIDTHS,
                ("alpha_left, alpha_right : float",
                 "Start of the tails in units of the core width, positive."),
                _EXPONENTS, _NORMALIZED],
    returns=[_SHAPE],
    raises=[_NOT_REAL,
            ("ValueError",
             "If a sigma, alpha or n is not positive (n not above 1 when\n"
             "normalizing) or a parameter is not finite.")])
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
    """
    return _tailed(x, "power_law", asymmetric_gaussian_power_law_tail_integral, normalized, mean,
                   sigma_left, sigma_right, alpha_left, alpha_right, n_left=n_left, n_right=n_right,
                   n_above_one=normalized)


@_sections(
    parameters=[_VARIABLE, _MEAN, _CORE_WIDTHS,
                ("alpha_left, alpha_right : float",
                 "Start of the exponential tails in core widths, positive."),
                ("beta_left, beta_right : float",
                 "Start of the power-law tails in core widths, above alpha."),
                _EXPONENTS, _NORMALIZED],
    returns=[_SHAPE],
    raises=_RANGE_RAISES)
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
    """
    return _tailed(x, "exponential_power_law", asymmetric_gaussian_exponential_power_law_tail_integral,
                   normalized, mean, sigma_left, sigma_right, alpha_left, alpha_right, beta_left,
                   beta_right, n_left, n_right, n_above_one=normalized)


@_sections(
    parameters=[_VARIABLE, _MEAN, _CORE_WIDTHS,
                ("alpha_left, alpha_right : float",
                 "Start of the power-law tails in core widths, positive."),
                ("beta_left, beta_right : float",
                 "Start of the exponential tails in core widths, above alpha."),
                ("n_left, n_right : float", "Power-law exponents, positive."), _NORMALIZED],
    returns=[_SHAPE],
    raises=_RANGE_RAISES)
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
    """
    # Integrable for every n > 0: n is not checked against 1.
    return _tailed(x, "power_law_exponential", asymmetric_gaussian_power_law_exponential_tail_integral,
                   normalized, mean, sigma_left, sigma_right, alpha_left, alpha_right, beta_left,
                   beta_right, n_left, n_right)


@_sections(
    parameters=[("sigma_left, sigma_right, alpha_left, alpha_right : float",
                 "As in :func:`asymmetric_gaussian_exponential_tail`.")],
    returns=[("float", "The integral (unit of x).")],
    raises=[("TypeError, ValueError", "For invalid parameters, as in the shape function.")])
def asymmetric_gaussian_exponential_tail_integral(sigma_left, sigma_right, alpha_left, alpha_right):
    """Integral over the real line of :func:`asymmetric_gaussian_exponential_tail`.

    Per side: :math:`\\sigma \\left(\\sqrt{\\pi/2}\\,\\mathrm{erf}(a/\\sqrt{2}) + e^{-a^2/2}/a\\right)`.
    """
    return _tail_integral(1, sigma_left, sigma_right, alpha_left, alpha_right)


@_sections(
    parameters=[("sigma_left, sigma_right, alpha_left, alpha_right, n_left, n_right : float",
                 "As in :func:`asymmetric_gaussian_power_law_tail`; n above 1.")],
    returns=[_INTEGRAL],
    raises=_INVALID_N)
def asymmetric_gaussian_power_law_tail_integral(sigma_left, sigma_right, alpha_left, alpha_right,
                                                n_left, n_right):
    """Integral over the real line of :func:`asymmetric_gaussian_power_law_tail`.

    Per side: :math:`\\sigma \\left(\\sqrt{\\pi/2}\\,\\mathrm{erf}(a/\\sqrt{2})
    + e^{-a^2/2} \\frac{n}{a (n - 1)}\\right)`, finite for :math:`n > 1`.
    """
    return _tail_integral(2, sigma_left, sigma_right, alpha_left, alpha_right, n_left=n_left,
                          n_right=n_right, n_above_one=True)


@_sections(
    parameters=[("sigma_left, sigma_right, alpha_left, alpha_right, beta_left, beta_right, n_left, n_right : float",
                 "As in :func:`asymmetric_gaussian_exponential_power_law_tail`; n above 1.")],
    returns=[_INTEGRAL],
    raises=_INVALID_N)
def asymmetric_gaussian_exponential_power_law_tail_integral(sigma_left, sigma_right, alpha_left,
                                                            alpha_right, beta_left, beta_right,
                                                            n_left, n_right):
    """Integral over the real line of :func:`asymmetric_gaussian_exponential_power_law_tail`.

    Per side: :math:`\\sigma \\left(\\sqrt{\\pi/2}\\,\\mathrm{erf}(a/\\sqrt{2})
    + \\frac{e^{-a^2/2} - e^{a^2/2 - ab}}{a} + e^{a^2/2 - ab} \\frac{n}{a (n - 1)}\\right)`,
    finite for :math:`n > 1`.
    """
    return _tail_integral(3, sigma_left, sigma_right, alpha_left, alpha_right, beta_left, beta_right,
                          n_left, n_right, n_above_one=True)


@_sections(
    parameters=[("sigma_left, sigma_right, alpha_left, alpha_right, beta_left, beta_right, n_left, n_right : float",
                 "As in :func:`asymmetric_gaussian_power_law_exponential_tail`.")],
    returns=[_INTEGRAL],
    raises=[("TypeError, ValueError", "For invalid parameters.")])
def asymmetric_gaussian_power_law_exponential_tail_integral(sigma_left, sigma_right, alpha_left,
                                                            alpha_right, beta_left, beta_right,
                                                            n_left, n_right):
    """Integral over the real line of :func:`asymmetric_gaussian_power_law_exponential_tail`.

    Per side, with :math:`w = 1 + a (b - a)/n`:
    :math:`\\sigma \\left(\\sqrt{\\pi/2}\\,\\mathrm{erf}(a/\\sqrt{2})
    + e^{-a^2/2} \\frac{n}{a (n - 1)} (1 - w^{1-n}) + e^{-a^2/2} \\frac{w^{1-n}}{a}\\right)`
    (the middle term is :math:`e^{-a^2/2} \\log(w)/a` for :math:`n = 1`).
    """
    return _tail_integral(4, sigma_left, sigma_right, alpha_left, alpha_right, beta_left, beta_right,
                          n_left, n_right)


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
