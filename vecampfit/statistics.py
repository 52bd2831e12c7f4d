"""Statistics: asymmetric-Gaussian likelihoods and Feldman-Cousins intervals (the paper's ``VECAMPFIT_STATISTICS``).

Asymmetric Gaussian
-------------------
A result quoted as :math:`\\hat x^{+\\sigma_+}_{-\\sigma_-}` has the
likelihood, as a function of the true value :math:`\\mu`,

.. math::

    -2 \\ln L(\\mu) = \\left(\\frac{\\mu - \\hat x}{\\sigma(\\mu)}\\right)^2, \\qquad
    \\sigma(\\mu) = \\begin{cases} \\sigma_- & \\mu < \\hat x, \\\\
                                 \\sigma_+ & \\mu \\ge \\hat x, \\end{cases}

the form of the paper's prior likelihoods :math:`C_l`
(:func:`asymmetric_gaussian_prior`).  The corresponding distribution of a
measurement :math:`x` for a true value :math:`\\mu` is

.. math::

    p(x \\mid \\mu) = \\sqrt{\\frac{2}{\\pi}} \\frac{1}{\\sigma_- + \\sigma_+}
    \\exp\\left[-\\frac{(x - \\mu)^2}{2 s^2}\\right], \\qquad
    s = \\begin{cases} \\sigma_+ & x < \\mu, \\\\ \\sigma_- & x \\ge \\mu \\end{cases}

(a measurement below the truth is off by the upward error of the result),
whose normalization does not depend on :math:`\\mu`, so that
:math:`p(\\hat x \\mid \\mu) \\propto L(\\mu)`.

Feldman-Cousins intervals
-------------------------
G. J. Feldman and R. D. Cousins, Phys. Rev. D 57 (1998) 3873, order the
measurements for each :math:`\\mu` by the likelihood ratio
:math:`R(x) = p(x \\mid \\mu) / p(x \\mid \\mu_\\text{best}(x))`, with
:math:`\\mu_\\text{best} = \\max(x, \\mu_\\text{min})` the best physically
allowed value (:math:`\\mu \\ge \\mu_\\text{min}`, e.g. a non-negative
signal).  The acceptance region :math:`[x_1(\\mu), x_2(\\mu)]` has
:math:`R(x_1) = R(x_2)` and probability CL; the confidence interval for a
measured :math:`x_0` is :math:`\\{\\mu \\ge \\mu_\\text{min} : x_1(\\mu) \\le x_0
\\le x_2(\\mu)\\}`.  :func:`feldman_cousins_interval` generalizes the
paper's Gaussian case (their Table X: :math:`\\sigma_- = \\sigma_+ = 1`,
:math:`\\mu_\\text{min} = 0`) to the asymmetric Gaussian above, solving the
conditions to about :math:`10^{-10}\\sigma` (no discretization).
"""

import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import ndtr, ndtri as norm_ppf

from ._arguments import sections as _sections

__all__ = [
    "asymmetric_gaussian_prior", "asymmetric_gaussian_pdf", "asymmetric_gaussian_cdf",
    "feldman_cousins_acceptance", "feldman_cousins_interval",
]


def _sigmas(sigma_low, sigma_high):
    sl = float(sigma_low)
    sh = float(sigma_high)
    if not (math.isfinite(sl) and math.isfinite(sh) and sl > 0 and sh > 0):
        raise ValueError(f"sigma_low, sigma_high: expected positive finite standard deviations, "
                         f"got {sigma_low!r}, {sigma_high!r}")
    return sl, sh


def _true_value(mu):
    m = float(mu)
    if not math.isfinite(m):
        raise ValueError(f"mu: expected a finite true value, got {mu!r}")
    return m


def _measurement(x, mu, sigma_low, sigma_high):
    """The checked arguments of the density and distribution function (``x`` as a float64 array)."""
    sl, sh = _sigmas(sigma_low, sigma_high)
    mu = _true_value(mu)
    return np.asarray(x, dtype=np.float64), mu, sl, sh


# Docstring entries shared by the density and the distribution function.
_MEASURED = ("x : array_like", "Measured values.")
_TRUE_VALUE = ("mu : float", "True value.")
_MEASUREMENT_RAISES = [("ValueError", "Non-positive or non-finite standard deviations, a non-finite ``mu``.")]


def asymmetric_gaussian_prior(x, mean, sigma_low, sigma_high):
    """Asymmetric-Gaussian prior likelihood :math:`C(x)` (a :math:`-2 \\ln L` term) and :math:`dC/dx`.

    .. math::

        C(x) = \\left(\\frac{x - x_0}{\\sigma_-}\\right)^2 \\ (x < x_0), \\qquad
        C(x) = \\left(\\frac{x - x_0}{\\sigma_+}\\right)^2 \\ (x \\ge x_0),

        \\frac{dC}{dx} = \\frac{2 (x - x_0)}{\\sigma^2}

    (the paper's :math:`C_l`, continuous with a continuous derivative).

    Parameters
    ----------
    x : array_like
        Parameter values.
    mean : float or array_like
        Central value :math:`x_0` (units of ``x``).
    sigma_low, sigma_high : float or array_like
        Negative-side and positive-side standard deviations
        :math:`\\sigma_-`, :math:`\\sigma_+` (positive, units of ``x``).

    Returns
    -------
    value, derivative : numpy.ndarray or float
        :math:`C` (dimensionless) and :math:`dC/dx` (per unit of ``x``),
        broadcast over the arguments (floats for scalar arguments).

    Raises
    ------
    ValueError
        Non-positive or non-finite standard deviations, a non-finite mean.
    """
    x = np.asarray(x, dtype=np.float64)
    mean = np.asarray(mean, dtype=np.float64)
    sl = np.asarray(sigma_low, dtype=np.float64)
    sh = np.asarray(sigma_high, dtype=np.float64)
    if not (np.all(np.isfinite(sl)) and np.all(np.isfinite(sh)) and np.all(sl > 0) and np.all(sh > 0)):
        raise ValueError("sigma_low, sigma_high: expected positive finite standard deviations")
    if not np.all(np.isfinite(mean)):
        raise ValueError("mean: expected a finite central value")
    s = np.where(x < mean, sl, sh)
    d = (x - mean) / s
    value = d * d
    derivative = 2 * d / s
    if value.ndim == 0:
        return float(value), float(derivative)
    return value, derivative


@_sections(
    parameters=[_MEASURED, _TRUE_VALUE,
                ("sigma_low, sigma_high : float",
                 ":math:`\\sigma_-`, :math:`\\sigma_+` of the quoted result (positive).")],
    returns=[("numpy.ndarray", "Per unit of ``x``.")],
    raises=_MEASUREMENT_RAISES)
def asymmetric_gaussian_pdf(x, mu, sigma_low, sigma_high):
    """Density :math:`p(x \\mid \\mu)` of a measurement with asymmetric errors (see the module description)."""
    x, mu, sl, sh = _measurement(x, mu, sigma_low, sigma_high)
    s = np.where(x < mu, sh, sl)
    return math.sqrt(2 / math.pi) / (sl + sh) * np.exp(-0.5 * ((x - mu) / s) ** 2)


@_sections(
    parameters=[_MEASURED, _TRUE_VALUE,
                ("sigma_low, sigma_high : float", ":math:`\\sigma_-`, :math:`\\sigma_+` (positive).")],
    returns=[("numpy.ndarray", "")],
    raises=_MEASUREMENT_RAISES)
def asymmetric_gaussian_cdf(x, mu, sigma_low, sigma_high):
    """Distribution function :math:`F(x \\mid \\mu) = \\int_{-\\infty}^x p(t \\mid \\mu)\\,dt`.

    .. math::

        F = \\frac{2 \\sigma_+}{\\sigma_- + \\sigma_+} \\Phi\\left(\\frac{x - \\mu}{\\sigma_+}\\right) \\ (x < \\mu),
        \\qquad
        F = 1 - \\frac{2 \\sigma_-}{\\sigma_- + \\sigma_+} \\Phi\\left(\\frac{\\mu - x}{\\sigma_-}\\right) \\ (x \\ge \\mu).
    """
    x, mu, sl, sh = _measurement(x, mu, sigma_low, sigma_high)
    below = 2 * sh / (sl + sh) * ndtr((x - mu) / sh)
    above = 1 - 2 * sl / (sl + sh) * ndtr((mu - x) / sl)
    return np.where(x < mu, below, above)


def _cdf(x, mu, sl, sh):
    if x < mu:
        return 2 * sh / (sl + sh) * float(ndtr((x - mu) / sh))
    return 1 - 2 * sl / (sl + sh) * float(ndtr((mu - x) / sl))


def _left_end(x2, mu, sl, sh, bound):
    """x1 < mu with R(x1) = R(x2), for x2 >= mu (and mu >= bound)."""
    if mu <= bound:
        return -math.inf
    t = (x2 - mu) / sl
    x1 = mu - sh * t
    if x1 >= bound:
        return x1
    c = -0.5 * t * t
    return (mu + bound) / 2 + c * sh * sh / (mu - bound)


def _check_cl(cl):
    cl = float(cl)
    if not 0 < cl < 1:
        raise ValueError(f"cl: expected a confidence level in (0, 1), got {cl!r}")
    return cl


def _interval_arguments(value, name, sigma_low, sigma_high, cl, lower_bound):
    """The checked ``value`` (``mu`` or ``x``), standard deviations, confidence level and boundary."""
    sl, sh = _sigmas(sigma_low, sigma_high)
    cl = _check_cl(cl)
    value = float(value)
    bound = float(lower_bound)
    if not (math.isfinite(value) and math.isfinite(bound)):
        raise ValueError(f"{name}, lower_bound: expected finite values, got {value!r}, {bound!r}")
    return value, sl, sh, cl, bound


# Docstring entries shared by the Feldman-Cousins functions.
_CL = ("cl : float, optional", "Confidence level in (0, 1), default 0.9.")
_LOWER_BOUND = ("lower_bound : float, optional", "Physical boundary :math:`\\mu_\\text{min}` (default 0).")


@_sections(
    parameters=[("mu : float", "True value, :math:`\\mu \\ge \\mu_\\text{min}`."),
                ("sigma_low, sigma_high : float",
                 ":math:`\\sigma_-`, :math:`\\sigma_+` of a quoted result (positive)."),
                _CL, _LOWER_BOUND],
    returns=[("x1, x2 : float", "")],
    raises=[("ValueError",
             ":math:`\\mu` below the boundary or not finite, bad standard\n"
             "deviations or confidence level.")])
def feldman_cousins_acceptance(mu, sigma_low, sigma_high, cl=0.9, lower_bound=0.0):
    """Acceptance region :math:`[x_1, x_2]` of measurements for the true value :math:`\\mu`.

    Likelihood-ratio ordering (see the module description): with
    :math:`\\ln R(x) = \\ln p(x \\mid \\mu) - \\ln p(x \\mid \\max(x, \\mu_\\text{min}))`,
    :math:`R(x_1) = R(x_2)`, :math:`x_1 < \\mu < x_2`, and
    :math:`F(x_2 \\mid \\mu) - F(x_1 \\mid \\mu) = \\mathrm{CL}`.  For
    :math:`\\mu = \\mu_\\text{min}` every :math:`x < \\mu_\\text{min}` has
    :math:`R = 1`; the region returned there is the limit from above:
    :math:`x_1 = -\\infty` if :math:`P(x < \\mu) = \\sigma_+ / (\\sigma_- +
    \\sigma_+) < \\mathrm{CL}`, else :math:`[x_1, \\mu]`.
    """
    mu, sl, sh, cl, bound = _interval_arguments(mu, "mu", sigma_low, sigma_high, cl, lower_bound)
    if mu < bound:
        raise ValueError(f"mu: {mu} is below the physical boundary {bound}")
    return _acceptance(mu, sl, sh, cl, bound)


def _acceptance(mu, sl, sh, cl, bound):
    """[x1, x2] for mu >= bound; at mu = bound, the limit of the regions from above."""
    if mu <= bound:
        below = sh / (sl + sh)     # probability of x < mu
        if below >= cl:
            # R is 1 on the whole of x < mu: the limit from above keeps the part just below mu.
            return mu + sh * float(norm_ppf((below - cl) / (2 * below))), mu
        return -math.inf, mu + sl * float(norm_ppf(1 - (1 - cl) * (sl + sh) / (2 * sl)))

    def excess(x2):
        return _cdf(x2, mu, sl, sh) - _cdf(_left_end(x2, mu, sl, sh, bound), mu, sl, sh) - cl

    hi = mu + sl
    while excess(hi) < 0:
        hi = mu + 2 * (hi - mu)
    x2 = brentq(excess, mu, hi, xtol=1e-13 * max(sl, sh), rtol=1e-15, maxiter=200)
    return _left_end(x2, mu, sl, sh, bound), x2


@_sections(
    parameters=[("x : float", "Measured value :math:`\\hat x` (may lie outside the physical region)."),
                ("sigma_low, sigma_high : float",
                 "Its negative-side and positive-side errors :math:`\\sigma_-`,\n"
                 ":math:`\\sigma_+` (positive)."),
                _CL, _LOWER_BOUND],
    returns=[("lower, upper : float",
              ":math:`\\mu_1 \\ge \\mu_\\text{min}` and :math:`\\mu_2`.  When\n"
              ":math:`\\sigma_+ / (\\sigma_- + \\sigma_+) > \\mathrm{CL}` a measurement far\n"
              "below the boundary is accepted only at :math:`\\mu_\\text{min}` itself,\n"
              "and the interval is :math:`[\\mu_\\text{min}, \\mu_\\text{min}]`.")],
    raises=[("ValueError",
             "Non-finite ``x`` or boundary, bad standard deviations or confidence\n"
             "level.")])
def feldman_cousins_interval(x, sigma_low, sigma_high, cl=0.9, lower_bound=0.0):
    """Feldman-Cousins confidence interval for the true value, given a measurement with asymmetric errors.

    The interval :math:`[\\mu_1, \\mu_2] = \\{\\mu \\ge \\mu_\\text{min} :
    x_1(\\mu) \\le x \\le x_2(\\mu)\\}` of the acceptance regions of
    :func:`feldman_cousins_acceptance`: :math:`\\mu_2` solves
    :math:`x_1(\\mu_2) = x`, and :math:`\\mu_1 = \\mu_\\text{min}` if
    :math:`x \\le x_2(\\mu_\\text{min})` (an upper limit), else
    :math:`x_2(\\mu_1) = x`.  With :math:`\\sigma_- = \\sigma_+ = 1` and
    :math:`\\mu_\\text{min} = 0` this is Feldman and Cousins' Gaussian with a
    boundary at the origin.
    """
    x, sl, sh, cl, bound = _interval_arguments(x, "x", sigma_low, sigma_high, cl, lower_bound)
    scale = max(sl, sh)
    tol = 1e-11 * scale

    # Upper end: x1(mu) = x, x1 increasing from -inf at the boundary.
    def g_up(mu):
        return _acceptance(mu, sl, sh, cl, bound)[0] - x

    x1_bound, x2_bound = _acceptance(bound, sl, sh, cl, bound)
    if x1_bound > x:
        # Only mu = mu_min (where every x < mu_min ties at R = 1) can accept x.
        return bound, bound
    lo = bound if math.isfinite(x1_bound) else bound + 1e-9 * scale
    while g_up(lo) > 0:
        lo = bound + (lo - bound) / 10
    hi = max(x, bound) + scale
    while g_up(hi) < 0:
        hi = hi + 2 * (hi - bound)
    upper = brentq(g_up, lo, hi, xtol=tol, rtol=1e-15, maxiter=200)
    # Lower end.
    if x <= x2_bound:
        return bound, upper

    def g_low(mu):
        return _acceptance(mu, sl, sh, cl, bound)[1] - x

    lower = brentq(g_low, bound, x, xtol=tol, rtol=1e-15, maxiter=200)
    return lower, upper
