"""Numerical integration (the paper's ``VECAMPFIT_NUMERIC_INTEGRATION``).

* :func:`simpson` and :func:`simpson_samples`: one-dimensional composite
  Simpson rule.
* :func:`genz_malik`: adaptive multidimensional integration over a
  rectangular box with the Genz-Malik degree-7 rule and its embedded
  degree-5 error estimate (A. C. Genz and A. A. Malik, J. Comput. Appl.
  Math. 6 (1980) 295), returning an :class:`IntegrationResult`.
* :func:`gauss_legendre`: Gauss-Legendre nodes and weights on
  :math:`[-1, 1]`; :func:`gauss_legendre_intervals`: composite rules over
  several intervals.
* :func:`product_grid`, :func:`dalitz_grid` and
  :func:`dalitz_grid_boundary`: integration grids for the paper's grid
  normalization (section "Grid integration"): points in the invariant
  masses :math:`(m_{ab}, m_{bc})` of a three-body decay
  :math:`M \\to a b c`, with weights
  :math:`w_j = w_j^\\text{(integration)} w_j^\\text{(Jacobian)}` such that
  :math:`\\sum_j w_j f_j \\approx \\int f \\, dm_{ab}^2 \\, dm_{bc}^2` over
  the Dalitz plot.
* :func:`dalitz_range` and :func:`dalitz_area`: the kinematic limits of the
  Dalitz plot.

Masses are in any one unit (GeV in vecampfit's examples); squared masses
and areas are in that unit squared or to the fourth power.
"""

import heapq
import math
import numbers
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from . import arbitrary_precision
from . import _kinematics

__all__ = [
    "simpson", "simpson_samples",
    "IntegrationResult", "genz_malik",
    "gauss_legendre", "Interval", "gauss_legendre_intervals",
    "dalitz_range", "dalitz_area", "Grid", "product_grid", "dalitz_grid", "dalitz_grid_boundary",
    "fold_grid",
]


# ---------------------------------------------------------------------------
# Simpson
# ---------------------------------------------------------------------------

def _finite_float(x, name):
    try:
        v = float(x)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name}: expected a real number, got {x!r}") from exc
    if not math.isfinite(v):
        raise ValueError(f"{name}: expected a finite number, got {x!r}")
    return v


def _positive_int(n, name, minimum=1):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"{name}: expected an integer, got {n!r}")
    if n < minimum:
        raise ValueError(f"{name}: expected an integer >= {minimum}, got {n}")
    return int(n)


def simpson_samples(y, h):
    """Composite Simpson rule over equally spaced samples.

    .. math::

        \\int_{x_0}^{x_{2m}} f\\,dx \\approx \\frac{h}{3}\\left[f_0 + 4 f_1 + 2 f_2
        + 4 f_3 + \\dots + 4 f_{2m-1} + f_{2m}\\right],

    exact for polynomials of degree up to 3; the error is
    :math:`-(x_{2m} - x_0) h^4 f^{(4)}(\\xi) / 180`.

    Parameters
    ----------
    y : array_like, shape (2m + 1,)
        Samples :math:`f_k = f(x_0 + k h)`; an odd number, at least 3.
    h : float
        Spacing, in the units of :math:`x` (negative for a reversed interval).

    Returns
    -------
    float
        The integral, in units of :math:`f` times units of :math:`x`.

    Raises
    ------
    ValueError
        An even number of samples, fewer than 3, or non-finite ``h``.
    """
    y = np.asarray(y, dtype=np.float64)
    h = _finite_float(h, "h")
    if y.ndim != 1:
        raise ValueError(f"y: expected a one-dimensional array, got shape {y.shape}")
    if y.shape[0] < 3 or y.shape[0] % 2 == 0:
        raise ValueError(f"y: Simpson's rule needs an odd number (>= 3) of samples, got {y.shape[0]}")
    return float(h / 3 * (y[0] + y[-1] + 4 * np.sum(y[1:-1:2]) + 2 * np.sum(y[2:-1:2])))


def simpson(f, a, b, n):
    """Composite Simpson integration of :math:`f` over :math:`[a, b]` with ``n`` subintervals.

    :math:`h = (b - a) / n`, samples at :math:`x_k = a + k h`,
    :math:`k = 0, \\dots, n`, combined as in :func:`simpson_samples`.

    Parameters
    ----------
    f : callable
        Vectorized function: ``f(x)`` with ``x`` a float64 array of shape
        ``(n + 1,)`` returns values of the same shape.
    a, b : float
        Integration limits (``b < a`` gives the negative integral).
    n : int
        Number of subintervals: even, at least 2.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        Odd or too small ``n``, non-finite limits, a result of ``f`` of the
        wrong shape or with non-finite values.
    """
    a = _finite_float(a, "a")
    b = _finite_float(b, "b")
    n = _positive_int(n, "n", 2)
    if n % 2:
        raise ValueError(f"n: Simpson's rule needs an even number of subintervals, got {n}")
    h = (b - a) / n
    x = a + h * np.arange(n + 1)
    x[-1] = b
    y = np.asarray(f(x), dtype=np.float64)
    if y.shape != x.shape:
        raise ValueError(f"f: expected {x.shape[0]} values, got shape {y.shape}")
    if not np.all(np.isfinite(y)):
        raise ValueError("f: returned non-finite values")
    return simpson_samples(y, h)


# ---------------------------------------------------------------------------
# Genz-Malik
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class IntegrationResult:
    """Result of an adaptive integration.

    Attributes
    ----------
    value : float
        Estimate of the integral.
    error : float
        Estimate of its absolute error (sum over subregions of
        :math:`|R_7 - R_5|`, the difference of the degree-7 and degree-5
        rules).
    n_evaluations : int
        Number of integrand evaluations (points).
    converged : bool
        ``error <= max(atol, rtol * |value|)`` was reached within the
        evaluation budget.
    n_regions : int
        Number of subregions at the end.
    message : str
        Why the integration stopped.
    """

    value: float
    error: float
    n_evaluations: int
    converged: bool
    n_regions: int
    message: str


class _GenzMalikRule:
    """Genz-Malik points on the cube [-1, 1]^n and the weights of the degree-7 and -5 rules."""

    def __init__(self, n):
        l2 = math.sqrt(9 / 70)
        l3 = math.sqrt(9 / 10)
        l4 = math.sqrt(9 / 10)
        l5 = math.sqrt(9 / 19)
        self.ratio = (l2 / l3) ** 2
        pts = [np.zeros((1, n))]
        eye = np.eye(n)
        pts.append(np.concatenate([l2 * eye, -l2 * eye]))       # 2n, ordered +e_i then -e_i
        pts.append(np.concatenate([l3 * eye, -l3 * eye]))       # 2n
        pairs = []
        for i in range(n):
            for j in range(i + 1, n):
                for si in (1, -1):
                    for sj in (1, -1):
                        p = np.zeros(n)
                        p[i], p[j] = si * l4, sj * l4
                        pairs.append(p)
        pts.append(np.array(pairs).reshape(-1, n))              # 2n(n-1)
        corners = ((np.arange(2 ** n)[:, None] >> np.arange(n)) & 1) * -2 + 1
        pts.append(l5 * corners)                                 # 2^n
        self.points = np.concatenate(pts)
        self.n_points = self.points.shape[0]
        n2 = n * n
        w7 = [(12824 - 9120 * n + 400 * n2) / 19683, 980 / 6561, (1820 - 400 * n) / 19683, 200 / 19683,
              6859 / 19683 / 2 ** n]
        w5 = [(729 - 950 * n + 50 * n2) / 729, 245 / 486, (265 - 100 * n) / 1458, 25 / 729, 0.0]
        counts = [1, 2 * n, 2 * n, 2 * n * (n - 1), 2 ** n]
        self.w7 = np.repeat(w7, counts)
        self.w5 = np.repeat(w5, counts)
        self.n = n

    def apply(self, f, centers, half_widths):
        """Evaluate regions: (R7, R5, split dimension) per region."""
        m, n = centers.shape
        x = centers[:, None, :] + self.points[None, :, :] * half_widths[:, None, :]
        y = np.asarray(f(x.reshape(-1, n)), dtype=np.float64)
        if y.shape != (m * self.n_points,):
            raise ValueError(f"f: expected {m * self.n_points} values for points of shape "
                             f"{(m * self.n_points, n)}, got shape {y.shape}")
        if not np.all(np.isfinite(y)):
            bad = x.reshape(-1, n)[~np.isfinite(y)][0]
            raise ValueError(f"f: returned a non-finite value, e.g. at {bad.tolist()}")
        y = y.reshape(m, self.n_points)
        volume = np.prod(2 * half_widths, axis=1)
        r7 = volume * (y @ self.w7)
        r5 = volume * (y @ self.w5)
        # Fourth differences along each axis.
        c = y[:, :1]
        a2 = y[:, 1:1 + n] + y[:, 1 + n:1 + 2 * n] - 2 * c
        a3 = y[:, 1 + 2 * n:1 + 3 * n] + y[:, 1 + 3 * n:1 + 4 * n] - 2 * c
        diff = np.abs(a2 - self.ratio * a3)
        # Ties (to rounding): split the widest of the tied axes.
        tied = diff >= diff.max(axis=1, keepdims=True) * (1 - 1e-5)
        split = np.argmax(np.where(tied, half_widths, -1.0), axis=1)
        return r7, r5, split


def genz_malik(f, lower, upper, *, rtol=1e-8, atol=0.0, max_evaluations=1_000_000):
    """Adaptive Genz-Malik integration of :math:`f` over a box.

    The box :math:`\\prod_i [a_i, b_i]` (dimension :math:`n \\ge 2`) is
    integrated by the Genz-Malik rule of degree 7 (:math:`2^n + 2n^2 + 2n +
    1` points); the embedded rule of degree 5 gives the error estimate
    :math:`|R_7 - R_5|`.  While the total error estimate exceeds
    :math:`\\max(\\mathrm{atol}, \\mathrm{rtol} |I|)`, the subregions with the
    largest errors are halved along the axis with the largest fourth
    difference

    .. math::

        D_i = \\left| f(c + \\lambda_2 e_i) + f(c - \\lambda_2 e_i) - 2 f(c)
        - \\frac{\\lambda_2^2}{\\lambda_3^2} \\left[f(c + \\lambda_3 e_i) +
        f(c - \\lambda_3 e_i) - 2 f(c)\\right] \\right|,

    :math:`\\lambda_2 = \\sqrt{9/70}`, :math:`\\lambda_3 = \\sqrt{9/10}` (in
    units of the half-widths), and both halves are integrated again.  Several
    regions are split per step (the worst ones, as many as needed to cover
    the excess error), so that ``f`` sees large batches.

    Parameters
    ----------
    f : callable
        Vectorized integrand: ``f(x)`` with ``x`` of shape ``(m, n)``
        returns ``m`` finite values.
    lower, upper : array_like, shape (n,)
        Finite limits; ``upper < lower`` in an axis changes the sign of the
        integral.
    rtol, atol : float, optional
        Requested relative and absolute accuracy (non-negative, not both
        zero).
    max_evaluations : int, optional
        Budget of integrand evaluations (points).

    Returns
    -------
    IntegrationResult
        ``converged`` is false (and ``message`` says why) when the budget
        was exhausted before the tolerance was met; ``value`` and ``error``
        are then the best estimates reached.

    Raises
    ------
    ValueError
        Dimension below 2, limits of different lengths or not finite, bad
        tolerances, a budget smaller than one rule evaluation, or ``f``
        returning non-finite values or the wrong number of values.
    """
    lower = np.asarray(lower, dtype=np.float64)
    upper = np.asarray(upper, dtype=np.float64)
    if lower.ndim != 1 or lower.shape != upper.shape:
        raise ValueError(f"lower, upper: expected two one-dimensional arrays of one length, got shapes "
                         f"{lower.shape} and {upper.shape}")
    n = lower.shape[0]
    if n < 2:
        raise ValueError(f"the Genz-Malik rule needs dimension >= 2, got {n} (use simpson or gauss_legendre)")
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))):
        raise ValueError("lower, upper: the limits must be finite")
    if not (rtol >= 0 and atol >= 0) or (rtol == 0 and atol == 0):
        raise ValueError(f"rtol, atol: expected non-negative tolerances, not both zero, got {rtol}, {atol}")
    max_evaluations = _positive_int(max_evaluations, "max_evaluations")
    rule = _GenzMalikRule(n)
    if max_evaluations < rule.n_points:
        raise ValueError(f"max_evaluations: {max_evaluations} is below one rule evaluation "
                         f"({rule.n_points} points in {n} dimensions)")
    sign = float(np.prod(np.sign(upper - lower)))
    lo = np.minimum(lower, upper)
    hi = np.maximum(lower, upper)
    if sign == 0:
        return IntegrationResult(0.0, 0.0, 0, True, 0, "empty box")
    centers = ((lo + hi) / 2)[None, :]
    halves = ((hi - lo) / 2)[None, :]
    r7, r5, split = rule.apply(f, centers, halves)
    n_eval = rule.n_points
    # Regions: arrays (grown as needed); a heap of (-error, index) for the active ones.
    values = [float(r7[0])]
    errors = [abs(float(r7[0] - r5[0]))]
    region_c = [centers[0]]
    region_h = [halves[0]]
    region_split = [int(split[0])]
    heap = [(-errors[0], 0)]
    total = values[0]
    total_err = errors[0]
    message = "converged"
    converged = True
    while True:
        tol = max(atol, rtol * abs(total))
        if total_err <= tol:
            break
        # Regions to split: the worst ones until their errors cover the excess.
        budget = (max_evaluations - n_eval) // (2 * rule.n_points)
        if budget < 1:
            converged = False
            message = (f"the evaluation budget ({max_evaluations}) is exhausted: error estimate "
                       f"{total_err:.3g} > tolerance {tol:.3g}")
            break
        chosen = []
        covered = 0.0
        while heap and len(chosen) < budget and covered < total_err - tol:
            e, k = heapq.heappop(heap)
            chosen.append(k)
            covered += -e
        c = np.array([region_c[k] for k in chosen])
        h = np.array([region_h[k] for k in chosen])
        axis = np.array([region_split[k] for k in chosen])
        rows = np.arange(len(chosen))
        h[rows, axis] /= 2
        c_left = c.copy()
        c_right = c.copy()
        c_left[rows, axis] -= h[rows, axis]
        c_right[rows, axis] += h[rows, axis]
        new_c = np.concatenate([c_left, c_right])
        new_h = np.concatenate([h, h])
        r7, r5, split = rule.apply(f, new_c, new_h)
        n_eval += new_c.shape[0] * rule.n_points
        for k in chosen:
            total -= values[k]
            total_err -= errors[k]
        for j in range(new_c.shape[0]):
            idx = len(values)
            values.append(float(r7[j]))
            errors.append(abs(float(r7[j] - r5[j])))
            region_c.append(new_c[j])
            region_h.append(new_h[j])
            region_split.append(int(split[j]))
            heapq.heappush(heap, (-errors[idx], idx))
        # Re-sum (accurately) to avoid drift from the running updates.
        active = [k for _, k in heap]
        total = math.fsum(values[k] for k in active)
        total_err = math.fsum(errors[k] for k in active)
    return IntegrationResult(sign * total, total_err, n_eval, converged, len(heap), message)


# ---------------------------------------------------------------------------
# Gauss-Legendre
# ---------------------------------------------------------------------------

def _gauss_legendre_reference(n, dtype):
    """Nodes and weights on [-1, 1] (increasing nodes) in ``dtype``: the one source of them here."""
    return arbitrary_precision.gauss_legendre(n, dtype)


def gauss_legendre(n, dtype=np.float64):
    """Gauss-Legendre nodes and weights on :math:`[-1, 1]`.

    The nodes :math:`x_k` are the roots of the Legendre polynomial
    :math:`P_n`, the weights :math:`w_k = 2 / [(1 - x_k^2) P_n'(x_k)^2]`;
    :math:`\\sum_k w_k f(x_k)` integrates polynomials of degree up to
    :math:`2n - 1` over :math:`[-1, 1]` exactly.  Both are computed in
    arbitrary precision (:func:`vecampfit.arbitrary_precision.gauss_legendre`)
    and correctly rounded to ``dtype`` (cached).

    Parameters
    ----------
    n : int
        Number of nodes, at least 1.
    dtype : numpy dtype, optional
        float32 or float64 (default).

    Returns
    -------
    nodes, weights : numpy.ndarray, shape (n,)
        Nodes in increasing order.

    Raises
    ------
    TypeError, ValueError
        ``n`` not a positive integer; an unsupported dtype.
    """
    n = _positive_int(n, "n")
    dt = np.dtype(dtype)
    if dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(f"dtype: expected float32 or float64, got {dt}")
    x, w = _gauss_legendre_reference(n, dt)
    return np.array(x, dtype=dt), np.array(w, dtype=dt)


@dataclass(frozen=True)
class Interval:
    """An integration interval :math:`[\\mathrm{lower}, \\mathrm{upper}]` of a grid axis.

    Give either ``points`` (one Gauss-Legendre rule with that many nodes over
    the whole interval) or ``spacing`` (the interval is split into
    :math:`\\lceil (\\mathrm{upper} - \\mathrm{lower}) / (\\mathrm{order}\\,
    \\mathrm{spacing}) \\rceil` equal subintervals with an ``order``-point
    rule each, so that the mean distance between nodes is at most
    ``spacing``).  A tuple ``(lower, upper, points)`` is accepted wherever an
    interval is expected.

    Attributes
    ----------
    lower, upper : float
        Limits, ``lower < upper`` (mass units).
    points : int, optional
        Number of Gauss-Legendre nodes in the interval.
    spacing : float, optional
        Largest mean node spacing (mass units).
    order : int
        Nodes per subinterval when ``spacing`` is given (default 8).
    """

    lower: float
    upper: float
    points: int = None
    spacing: float = None
    order: int = 8

    def __post_init__(self):
        lo = _finite_float(self.lower, "lower")
        hi = _finite_float(self.upper, "upper")
        if not hi > lo:
            raise ValueError(f"interval: expected lower < upper, got [{lo}, {hi}]")
        if (self.points is None) == (self.spacing is None):
            raise ValueError("interval: give exactly one of points and spacing")
        if self.points is not None:
            _positive_int(self.points, "points")
        else:
            sp = _finite_float(self.spacing, "spacing")
            if not sp > 0:
                raise ValueError(f"spacing: expected a positive number, got {self.spacing!r}")
        _positive_int(self.order, "order")

    def subintervals(self):
        """Number of subintervals and nodes per subinterval."""
        if self.points is not None:
            return 1, int(self.points)
        k = math.ceil((self.upper - self.lower) / (self.order * self.spacing) * (1 - 1e-12))
        return max(k, 1), int(self.order)


def _interval_list(intervals):
    """A list of Interval from an Interval, a tuple (lower, upper, points), or a sequence of them."""
    if isinstance(intervals, Interval):
        return [intervals]
    if isinstance(intervals, tuple) and len(intervals) == 3 and isinstance(intervals[0], numbers.Real):
        return [_as_interval(intervals)]
    try:
        items = list(intervals)
    except TypeError as exc:
        raise TypeError(f"expected intervals, got {intervals!r}") from exc
    return [_as_interval(iv) for iv in items]


def _as_interval(x):
    if isinstance(x, Interval):
        return x
    try:
        lo, hi, pts = x
    except (TypeError, ValueError) as exc:
        raise TypeError(f"expected an Interval or a tuple (lower, upper, points), got {x!r}") from exc
    return Interval(lo, hi, points=pts)


def gauss_legendre_intervals(intervals, dtype=np.float64):
    """Composite Gauss-Legendre rule over non-overlapping intervals.

    On a (sub)interval :math:`[a, b]` the nodes are
    :math:`\\frac{b - a}{2} x_k + \\frac{a + b}{2}` and the weights
    :math:`\\frac{b - a}{2} w_k` (the paper's integration weights).

    Parameters
    ----------
    intervals : Interval, tuple, or a sequence of them
        The intervals (see :class:`Interval`); they must not overlap.
    dtype : numpy dtype, optional
        float32 or float64.

    Returns
    -------
    nodes, weights : numpy.ndarray
        Nodes in increasing order and their weights (units of the limits).

    Raises
    ------
    TypeError, ValueError
        Malformed or overlapping intervals.
    """
    ivs = sorted(_interval_list(intervals), key=lambda iv: iv.lower)
    if not ivs:
        raise ValueError("intervals: at least one interval is needed")
    for a, b in zip(ivs, ivs[1:]):
        if b.lower < a.upper:
            raise ValueError(f"intervals [{a.lower}, {a.upper}] and [{b.lower}, {b.upper}] overlap")
    xs, ws = [], []
    for iv in ivs:
        k, m = iv.subintervals()
        x, w = gauss_legendre(m, np.float64)
        edges = np.linspace(iv.lower, iv.upper, k + 1)
        half = (edges[1:] - edges[:-1]) / 2
        mid = (edges[1:] + edges[:-1]) / 2
        xs.append((mid[:, None] + half[:, None] * x[None, :]).ravel())
        ws.append((half[:, None] * w[None, :]).ravel())
    dt = np.dtype(dtype)
    return np.concatenate(xs).astype(dt), np.concatenate(ws).astype(dt)


# ---------------------------------------------------------------------------
# Dalitz plot
# ---------------------------------------------------------------------------

def _masses(mother_mass, mass_a, mass_b, mass_c):
    ms = [_finite_float(m, name) for m, name in ((mother_mass, "mother_mass"), (mass_a, "mass_a"),
                                                 (mass_b, "mass_b"), (mass_c, "mass_c"))]
    if min(ms[1:]) < 0:
        raise ValueError(f"masses must be non-negative, got {ms[1:]}")
    if not ms[0] > ms[1] + ms[2] + ms[3]:
        raise ValueError(f"mother_mass {ms[0]} is not above the sum of the final masses {sum(ms[1:])}")
    return ms


def dalitz_range(m_ab_squared, mother_mass, mass_a, mass_b, mass_c):
    """Range of :math:`m_{bc}^2` at given :math:`m_{ab}^2` in the decay :math:`M \\to a b c`.

    With the energies of :math:`b` and :math:`c` in the :math:`ab` rest frame,
    :math:`E_b^* = (m_{ab}^2 - m_a^2 + m_b^2) / (2 m_{ab})` and
    :math:`E_c^* = (M^2 - m_{ab}^2 - m_c^2) / (2 m_{ab})`, and momenta
    :math:`p^* = \\sqrt{E^{*2} - m^2}`,

    .. math::

        (m_{bc}^2)_{\\min,\\max} = (E_b^* + E_c^*)^2 - (p_b^* \\pm p_c^*)^2.

    Parameters
    ----------
    m_ab_squared : array_like
        :math:`m_{ab}^2` (mass units squared).
    mother_mass, mass_a, mass_b, mass_c : float
        :math:`M > m_a + m_b + m_c`, and :math:`m_a, m_b, m_c \\ge 0`.

    Returns
    -------
    lower, upper : numpy.ndarray
        The limits; NaN where :math:`m_{ab}^2` is outside
        :math:`[(m_a + m_b)^2, (M - m_c)^2]`.

    Raises
    ------
    ValueError
        Masses that do not allow the decay.
    """
    big_m, ma, mb, mc = _masses(mother_mass, mass_a, mass_b, mass_c)
    s = np.asarray(m_ab_squared, dtype=np.float64)
    flat = np.ascontiguousarray(s).ravel()
    lower, upper = np.empty_like(flat), np.empty_like(flat)
    # The block routine of vecampfit.kinematics: the limits as sums of
    # non-negative terms (no cancellation between (E_b + E_c)^2 and (p_b + p_c)^2,
    # which lost all digits of the lower limit of light particles), the range of
    # m_ab^2 decided exactly, NaN outside it.
    _kinematics.dalitz_m23_squared_range_kernel(flat, big_m, ma, mb, mc, lower, upper)
    return lower.reshape(s.shape), upper.reshape(s.shape)


def dalitz_area(mother_mass, mass_a, mass_b, mass_c, n=64):
    """Area of the Dalitz plot in :math:`(m_{ab}^2, m_{bc}^2)` (mass units to the fourth power).

    :math:`A = \\int [(m_{bc}^2)_{\\max} - (m_{bc}^2)_{\\min}]\\, dm_{ab}^2`,
    with :math:`(m_{bc}^2)_{\\max} - (m_{bc}^2)_{\\min} = 4 p_b^* p_c^*`,
    integrated by Gauss-Legendre quadrature after the substitution
    :math:`m_{ab} = \\bar m - \\Delta \\cos\\theta` that removes the
    square-root behaviour at both ends (accurate to rounding for
    :math:`n = 64`).

    Parameters
    ----------
    mother_mass, mass_a, mass_b, mass_c : float
        As in :func:`dalitz_range`.
    n : int, optional
        Number of nodes.

    Returns
    -------
    float
    """
    g = dalitz_grid_boundary(mother_mass, mass_a, mass_b, mass_c, n, 1)
    return float(math.fsum(g.weights))


class Grid(NamedTuple):
    """Integration points and weights of a grid in the Dalitz plot.

    :math:`\\sum_j w_j f(m_{ab,j}, m_{bc,j})` approximates
    :math:`\\int f\\, dm_{ab}^2\\, dm_{bc}^2` over the part of the Dalitz
    plot that the grid covers.
    """

    #: :math:`m_{ab}` of the points (mass units).
    m_ab: np.ndarray
    #: :math:`m_{bc}` of the points.
    m_bc: np.ndarray
    #: :math:`m_{ab}^2` of the points (mass units squared).
    m_ab_squared: np.ndarray
    #: :math:`m_{bc}^2` of the points.
    m_bc_squared: np.ndarray
    #: :math:`w_j = w_j^\text{(integration)} w_j^\text{(Jacobian)}` (mass units to the fourth power).
    weights: np.ndarray


_VARIABLES = ("mass", "mass_squared")


def product_grid(ab, bc, dtype=np.float64):
    """Product Gauss-Legendre grid over a rectangle (or a union of rectangles' axes).

    :math:`w_{j_1 j_2} = w_{j_1} w_{j_2}` with the composite rules of
    :func:`gauss_legendre_intervals` on each axis; no Jacobian, no cut.

    Parameters
    ----------
    ab, bc : Interval, tuple or sequence of them
        Intervals of the first and second coordinate.
    dtype : numpy dtype, optional

    Returns
    -------
    x, y, weights : numpy.ndarray
        Flattened points (first coordinate varies slowest) and weights.
    """
    x, wx = gauss_legendre_intervals(ab, np.float64)
    y, wy = gauss_legendre_intervals(bc, np.float64)
    dt = np.dtype(dtype)
    xx, yy = np.meshgrid(x, y, indexing="ij")
    ww = wx[:, None] * wy[None, :]
    return xx.ravel().astype(dt), yy.ravel().astype(dt), ww.ravel().astype(dt)


def _inside(s_ab, s_bc, masses):
    lower, upper = dalitz_range(s_ab, *masses)
    with np.errstate(invalid="ignore"):
        return (s_bc >= lower) & (s_bc <= upper)


def _make_grid(u, v, w, variables, dtype):
    if variables == "mass":
        m_ab, m_bc = u, v
        s_ab, s_bc = u * u, v * v
        w = w * 4 * u * v
    else:
        s_ab, s_bc = u, v
        m_ab, m_bc = np.sqrt(u), np.sqrt(v)
    dt = np.dtype(dtype)
    return Grid(*(a.astype(dt) for a in (m_ab, m_bc, s_ab, s_bc, w)))


def _check_variables(variables):
    if variables not in _VARIABLES:
        raise ValueError(f"variables: expected 'mass' or 'mass_squared', got {variables!r}")


def dalitz_grid(mother_mass, mass_a, mass_b, mass_c, regions, variables="mass", dtype=np.float64,
                fold=False):
    """Gauss-Legendre grid over rectangles in the invariant masses, cut to the Dalitz plot.

    The paper's grid integration: on each rectangle
    :math:`[u_{\\min}, u_{\\max}] \\times [v_{\\min}, v_{\\max}]` a product
    Gauss-Legendre rule with

    .. math::

        w_{j_1 j_2}^\\text{(integration)} = \\frac{u_{\\max} - u_{\\min}}{2}
        \\frac{v_{\\max} - v_{\\min}}{2} w_{j_1}^\\text{(GL)} w_{j_2}^\\text{(GL)}

    (per subinterval, see :class:`Interval`) and, for a grid in the masses
    :math:`u = m_{ab}`, :math:`v = m_{bc}`,

    .. math::

        w^\\text{(Jacobian)} = \\frac{\\partial m_{ab}^2}{\\partial m_{ab}}
        \\frac{\\partial m_{bc}^2}{\\partial m_{bc}} = 4 m_{ab} m_{bc}

    (1 for a grid in the squared masses), so that
    :math:`\\sum_j w_j f_j \\approx \\int f\\, dm_{ab}^2\\, dm_{bc}^2`.
    Points outside the Dalitz plot of :math:`M \\to a b c` are dropped: the
    integral then converges like the cell size where the boundary crosses
    cells; put a finer region along a narrow resonance and wherever the
    integrand is large near the boundary, or use
    :func:`dalitz_grid_boundary`.

    Parameters
    ----------
    mother_mass, mass_a, mass_b, mass_c : float
        :math:`M`, :math:`m_a`, :math:`m_b`, :math:`m_c` (mass units).
    regions : list or tuple
        A list of rectangles, or one rectangle given as a tuple.  A
        rectangle is a tuple ``(ab_intervals, bc_intervals)``; each is an
        :class:`Interval`, a tuple ``(lower, upper, points)``, or a list of
        them (in the grid variables).  Rectangles must not overlap.
    variables : {"mass", "mass_squared"}, optional
        Grid coordinates: the masses :math:`(m_{ab}, m_{bc})` (as in the
        paper; default) or their squares.
    dtype : numpy dtype, optional
        Precision of the returned arrays.
    fold : bool, optional
        For a decay with two identical particles ``a`` and ``c`` and
        regions that are the same on both axes: keep half of the grid
        (:func:`fold_grid`), which integrates functions symmetric under
        :math:`m_{ab} \\leftrightarrow m_{bc}` with half the points.

    Returns
    -------
    Grid
        Points inside the Dalitz plot and their weights.

    Raises
    ------
    ValueError, TypeError
        Masses that do not allow the decay, malformed or overlapping
        regions, unknown ``variables``; with ``fold``, different masses of
        ``a`` and ``c`` or regions that are not symmetric.
    """
    masses = _masses(mother_mass, mass_a, mass_b, mass_c)
    if fold and mass_a != mass_c:
        raise ValueError(f"fold: the grid can be folded onto m_ab <= m_bc only when particles a "
                         f"and c have the same mass, got {mass_a!r} and {mass_c!r}")
    _check_variables(variables)
    if isinstance(regions, tuple):
        regions = [regions]
    regions = list(regions)
    if not regions:
        raise ValueError("regions: at least one rectangle is needed")
    boxes = []
    us, vs, ws = [], [], []
    for r in regions:
        try:
            ab, bc = r
        except (TypeError, ValueError) as exc:
            raise TypeError(f"regions: expected pairs (ab_intervals, bc_intervals), got {r!r}") from exc
        u, v, w = product_grid(ab, bc)
        ab_l = _interval_list(ab)
        bc_l = _interval_list(bc)
        box = (min(i.lower for i in ab_l), max(i.upper for i in ab_l),
               min(i.lower for i in bc_l), max(i.upper for i in bc_l))
        for other in boxes:
            if box[0] < other[1] and other[0] < box[1] and box[2] < other[3] and other[2] < box[3]:
                raise ValueError(f"regions: rectangles {box} and {other} overlap")
        boxes.append(box)
        us.append(u)
        vs.append(v)
        ws.append(w)
    u, v, w = np.concatenate(us), np.concatenate(vs), np.concatenate(ws)
    if variables == "mass":
        if np.any(u < 0) or np.any(v < 0):
            raise ValueError("regions: masses must be non-negative")
        keep = _inside(u * u, v * v, masses)
    else:
        keep = _inside(u, v, masses)
    if fold:
        return fold_grid(_make_grid(u[keep], v[keep], w[keep], variables, np.float64), dtype)
    return _make_grid(u[keep], v[keep], w[keep], variables, dtype)


def fold_grid(grid, dtype=None):
    """Half of a grid that is symmetric under :math:`m_{ab} \\leftrightarrow m_{bc}`.

    For a decay :math:`M \\to a b c` with identical particles ``a`` and
    ``c`` the functions to integrate (densities symmetrized in the two)
    obey :math:`f(m_{ab}, m_{bc}) = f(m_{bc}, m_{ab})`.  On a grid whose
    mirror image is itself (every point :math:`(u, v)` has a partner
    :math:`(v, u)` of the same weight) the points with
    :math:`m_{ab} < m_{bc}` are kept with twice their weight and those on
    the diagonal with theirs:

    .. math::

        \\sum_j w_j f_j = \\sum_{u_j < v_j} 2 w_j f_j + \\sum_{u_j = v_j} w_j f_j .

    Parameters
    ----------
    grid : Grid
        A symmetric grid (:func:`dalitz_grid` with the same intervals on
        both axes).
    dtype : numpy dtype, optional
        Precision of the returned arrays (default: the grid's).

    Returns
    -------
    Grid
        The points with :math:`m_{ab} \\le m_{bc}`, in the order of
        ``grid``.

    Raises
    ------
    ValueError
        The grid is not symmetric (a point without its mirror image, or
        mirror images of different weights, relative :math:`10^{-12}`).
    """
    a, b, w = (np.asarray(x) for x in (grid.m_ab, grid.m_bc, grid.weights))
    order, mirror = np.lexsort((b, a)), np.lexsort((a, b))
    if not (np.array_equal(a[order], b[mirror]) and np.array_equal(b[order], a[mirror])
            and np.allclose(w[order], w[mirror], rtol=1e-12, atol=0)):
        raise ValueError("fold: the grid is not symmetric under m_ab <-> m_bc (give the same "
                         "intervals on both axes of a decay with identical particles a and c)")
    lower = a < b
    keep = lower | (a == b)
    w = np.where(lower, 2 * w, w)
    dt = np.dtype(dtype) if dtype is not None else w.dtype
    return Grid(*(np.asarray(x)[keep].astype(dt)
                  for x in (grid.m_ab, grid.m_bc, grid.m_ab_squared, grid.m_bc_squared, w)))


def dalitz_grid_boundary(mother_mass, mass_a, mass_b, mass_c, n_ab, n_bc, variables="mass", dtype=np.float64):
    """Gauss-Legendre grid that follows the Dalitz-plot boundary.

    The outer coordinate :math:`u` (:math:`m_{ab}` or :math:`m_{ab}^2`) runs
    over the full kinematic range :math:`[u_0, u_1]` through
    :math:`u = \\bar u - \\Delta \\cos\\theta`, :math:`\\theta \\in [0, \\pi]`
    (an ``n_ab``-point rule in :math:`\\theta`, Jacobian
    :math:`\\Delta \\sin\\theta`), which removes the square-root behaviour
    of the boundary at both ends; at each outer node an ``n_bc``-point rule
    covers the exact range :math:`[v_{\\min}(u), v_{\\max}(u)]` of the inner
    coordinate.  Weights include :math:`4 m_{ab} m_{bc}` for mass
    coordinates.  Smooth integrands converge fast, without the cell-size
    error of :func:`dalitz_grid`; the points are not on a product grid.

    Parameters
    ----------
    mother_mass, mass_a, mass_b, mass_c : float
        As in :func:`dalitz_grid`.
    n_ab, n_bc : int
        Nodes of the outer and the inner rule.
    variables : {"mass", "mass_squared"}, optional
    dtype : numpy dtype, optional

    Returns
    -------
    Grid

    Raises
    ------
    ValueError, TypeError
        As in :func:`dalitz_grid`.
    """
    big_m, ma, mb, mc = _masses(mother_mass, mass_a, mass_b, mass_c)
    _check_variables(variables)
    n_ab = _positive_int(n_ab, "n_ab")
    n_bc = _positive_int(n_bc, "n_bc")
    t, wt = gauss_legendre(n_ab, np.float64)
    theta = (t + 1) * (math.pi / 2)
    wtheta = wt * (math.pi / 2)
    if variables == "mass":
        u0, u1 = ma + mb, big_m - mc
    else:
        u0, u1 = (ma + mb) ** 2, (big_m - mc) ** 2
    mid, half = (u0 + u1) / 2, (u1 - u0) / 2
    u = mid - half * np.cos(theta)
    wu = wtheta * half * np.sin(theta)
    s_ab = u * u if variables == "mass" else u
    lower, upper = dalitz_range(s_ab, big_m, ma, mb, mc)
    if variables == "mass":
        lower, upper = np.sqrt(lower), np.sqrt(upper)
    x, wx = gauss_legendre(n_bc, np.float64)
    vmid, vhalf = (lower + upper) / 2, (upper - lower) / 2
    v = vmid[:, None] + vhalf[:, None] * x[None, :]
    w = wu[:, None] * vhalf[:, None] * wx[None, :]
    uu = np.broadcast_to(u[:, None], v.shape)
    return _make_grid(uu.ravel(), v.ravel(), w.ravel(), variables, dtype)
