"""Mixed-sample goodness-of-fit test (the paper's ``VECAMPFIT_MIXED_SAMPLE``).

The test of M. F. Schilling (J. Am. Stat. Assoc. 81 (1986) 799) and
N. Henze (Ann. Stat. 16 (1988) 772) compares a data sample
(:math:`n_d` events) with a Monte Carlo sample generated from the fitted
model (:math:`n_m` events) without binning: the two samples are pooled
(:math:`N = n_d + n_m` points), and for every point its :math:`k` nearest
neighbours in the pooled sample are found (``scipy.spatial.cKDTree``).  The
statistic is the fraction of neighbours from the same sample as the point,

.. math::

    T = \\frac{1}{N k} \\sum_{i=1}^{N} \\sum_{r=1}^{k} I\\big(i, \\mathrm{nn}_r(i)\\big),

:math:`I = 1` if the point and its :math:`r`-th neighbour come from the same
sample.  If the model describes the data, the sample labels are exchangeable
and

.. math::

    E[T] = \\frac{n_d (n_d - 1) + n_m (n_m - 1)}{N (N - 1)};

larger values mean the samples separate (the model is wrong).  The variance
is computed exactly for the observed neighbour graph under random
relabelling (conditional on the pooled points; see
:func:`mixed_sample_test`), which is valid in any dimension; Henze's
asymptotic expression

.. math::

    \\sigma_T^2 \\approx \\frac{1}{N k}\\left(\\frac{n_d n_m}{N^2}
    + \\frac{4 n_d^2 n_m^2}{N^4}\\right)

is also reported.  The p-value is :math:`1 - \\Phi((T - E[T]) / \\sigma_T)`
(normal approximation) or, on request, from label permutations.

Phase-space variables have different units (masses, angles), so distances
are computed after dividing every coordinate by a scale: given by the user,
or the pooled standard deviation (``scale="std"``, the default).
"""

import math
from dataclasses import dataclass

import numpy as np
from scipy.spatial import cKDTree
from scipy.special import ndtr

__all__ = ["MixedSampleResult", "mixed_sample_statistic", "mixed_sample_test", "henze_variance"]


@dataclass(frozen=True)
class MixedSampleResult:
    """Result of :func:`mixed_sample_test`.

    Attributes
    ----------
    statistic : float
        :math:`T`, the fraction of same-sample neighbours.
    expectation : float
        :math:`E[T]` under the null hypothesis.
    standard_deviation : float
        :math:`\\sigma_T` under the null hypothesis (exact for the observed
        neighbour graph under random relabelling).
    henze_standard_deviation : float
        Henze's asymptotic :math:`\\sigma_T` (for comparison).
    z : float
        :math:`(T - E[T]) / \\sigma_T`.
    p_value : float
        Probability of a statistic at least as large under the null
        hypothesis: the normal approximation, or the permutation estimate
        if ``n_permutations`` was given.
    k : int
        Number of neighbours.
    n_data, n_mc : int
        Sample sizes.
    n_permutations : int
        Permutations used for ``p_value`` (0: normal approximation).
    """

    statistic: float
    expectation: float
    standard_deviation: float
    henze_standard_deviation: float
    z: float
    p_value: float
    k: int
    n_data: int
    n_mc: int
    n_permutations: int


def _sample(x, name):
    a = np.asarray(x, dtype=np.float64)
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2:
        raise ValueError(f"{name}: expected an array of shape (n_events, n_dimensions), got shape {a.shape}")
    if a.shape[0] == 0:
        raise ValueError(f"{name}: the sample is empty")
    if a.shape[1] == 0:
        raise ValueError(f"{name}: the events have no coordinates")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name}: the sample has non-finite coordinates")
    return a


def _prepare(data, mc, k, scale):
    d = _sample(data, "data")
    m = _sample(mc, "mc")
    if d.shape[1] != m.shape[1]:
        raise ValueError(f"data and mc have different dimensions ({d.shape[1]} and {m.shape[1]})")
    pooled = np.concatenate([d, m])
    n = pooled.shape[0]
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"k: expected an integer, got {k!r}")
    if not 1 <= k <= n - 1:
        raise ValueError(f"k: expected 1 <= k <= {n - 1} (pooled sample size - 1), got {k}")
    if isinstance(scale, str):
        if scale != "std":
            raise ValueError(f"scale: expected 'std', None or positive numbers, got {scale!r}")
        s = pooled.std(axis=0)
        if np.any(s == 0):
            raise ValueError("scale='std': a coordinate is constant in the pooled sample; give the scales")
    elif scale is None:
        s = np.ones(pooled.shape[1])
    else:
        s = np.broadcast_to(np.asarray(scale, dtype=np.float64), (pooled.shape[1],))
        if not (np.all(np.isfinite(s)) and np.all(s > 0)):
            raise ValueError(f"scale: expected positive finite numbers, got {scale!r}")
    return pooled / s, d.shape[0], m.shape[0]


def _neighbours(points, k, workers):
    """Indices (N, k) of the k nearest neighbours of every point, the point itself excluded."""
    n = points.shape[0]
    tree = cKDTree(points)
    _, idx = tree.query(points, k=k + 1, workers=workers)
    idx = idx.reshape(n, k + 1)
    # The point itself is normally first; with coincident points it may be anywhere (or absent):
    # move it to the end, then drop the last column.
    is_self = idx == np.arange(n)[:, None]
    order = np.argsort(is_self, axis=1, kind="stable")
    return np.take_along_axis(idx, order, axis=1)[:, :k]


def _same_counts(neighbours, labels):
    return labels[neighbours] == labels[:, None]


def _null_moments(neighbours, n_a, n_b):
    """Exact mean and variance of T under random relabelling, for a fixed directed neighbour graph."""
    n, k = neighbours.shape
    m = n * k
    p2 = (n_a * (n_a - 1) + n_b * (n_b - 1)) / (n * (n - 1))
    p3 = ((n_a * (n_a - 1) * (n_a - 2) + n_b * (n_b - 1) * (n_b - 2)) / (n * (n - 1) * (n - 2))) if n > 2 else 0.0
    if n > 3:
        p4 = ((n_a * (n_a - 1) * (n_a - 2) * (n_a - 3) + n_b * (n_b - 1) * (n_b - 2) * (n_b - 3)
               + 2 * n_a * (n_a - 1) * n_b * (n_b - 1)) / (n * (n - 1) * (n - 2) * (n - 3)))
    else:
        p4 = 0.0
    tails = np.repeat(np.arange(n), k)
    heads = neighbours.ravel()
    # Mutual edges i -> j and j -> i: ordered pairs of edges on the same two points.
    codes = np.sort(tails.astype(np.int64) * n + heads)
    reverse = heads.astype(np.int64) * n + tails
    mutual = int(np.count_nonzero(codes[np.clip(np.searchsorted(codes, reverse), 0, m - 1)] == reverse))
    in_degree = np.bincount(heads, minlength=n).astype(np.float64)
    degree = k + in_degree
    shared_one = float(np.sum(degree * (degree - 1))) - 2 * mutual
    disjoint = float(m) * m - m - mutual - shared_one
    second = m * p2 + mutual * p2 + shared_one * p3 + disjoint * p4
    mean_s = m * p2
    var_s = max(second - mean_s * mean_s, 0.0)
    return p2, var_s / (m * m)


def henze_variance(n_data, n_mc, k):
    """Henze's asymptotic variance of :math:`T`: :math:`\\frac{1}{N k}\\left(\\frac{n_d n_m}{N^2} + \\frac{4 n_d^2 n_m^2}{N^4}\\right)`.

    Parameters
    ----------
    n_data, n_mc : int
        Sample sizes (positive).
    k : int
        Number of neighbours.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        Non-positive sizes or ``k``.
    """
    if n_data < 1 or n_mc < 1 or k < 1:
        raise ValueError(f"expected positive sample sizes and k, got {n_data}, {n_mc}, {k}")
    n = n_data + n_mc
    q = n_data * n_mc / (n * n)
    return (q + 4 * q * q) / (n * k)


def mixed_sample_statistic(data, mc, k=10, scale="std", workers=1):
    """The mixed-sample statistic :math:`T` alone (see the module description).

    Parameters
    ----------
    data, mc : array_like, shape (n, d) or (n,)
        The two samples (events by coordinates).
    k : int, optional
        Number of nearest neighbours, ``1 <= k <= N - 1``.
    scale : "std", None or array_like, optional
        Coordinates are divided by these scales before distances are taken
        (Euclidean): the pooled standard deviations (default), none, or one
        positive number per coordinate (units of the coordinates).
    workers : int, optional
        Threads for the neighbour search (``-1``: all).

    Returns
    -------
    float

    Raises
    ------
    ValueError, TypeError
        Empty samples, different dimensions, non-finite coordinates, ``k``
        out of range, bad scales.
    """
    points, n_d, n_m = _prepare(data, mc, k, scale)
    nb = _neighbours(points, k, workers)
    labels = np.concatenate([np.zeros(n_d, np.int8), np.ones(n_m, np.int8)])
    return float(np.count_nonzero(_same_counts(nb, labels))) / (points.shape[0] * k)


def mixed_sample_test(data, mc, k=10, scale="std", n_permutations=0, seed=None, workers=1):
    """Mixed-sample goodness-of-fit test of a model (``mc``) against ``data``.

    Computes :math:`T`, its null expectation
    :math:`E[T] = [n_d(n_d - 1) + n_m(n_m - 1)] / [N(N - 1)]`, its null
    standard deviation and the one-sided p-value.  The variance is exact
    under random relabelling of the pooled points for the observed
    :math:`k`-nearest-neighbour graph: with :math:`S = N k T` a sum of
    :math:`m = N k` same-label indicators over directed edges,

    .. math::

        \\operatorname{Var} S = m p_2 + M p_2 + C p_3 + (m^2 - m - M - C) p_4 - m^2 p_2^2,

    :math:`M` the number of ordered pairs of mutual edges, :math:`C` the
    number of ordered edge pairs sharing one point, and :math:`p_2, p_3,
    p_4` the probabilities that two, three, or two disjoint pairs of four
    distinct points carry equal labels.

    Parameters
    ----------
    data, mc : array_like, shape (n, d) or (n,)
        Data events and events generated from the fitted model.
    k : int, optional
        Number of nearest neighbours (default 10), ``1 <= k <= N - 1``.
    scale : "std", None or array_like, optional
        Distance scales per coordinate (see :func:`mixed_sample_statistic`).
    n_permutations : int, optional
        If positive, the p-value is :math:`(1 + \\#\\{T_\\pi \\ge T\\}) /
        (1 + n_\\pi)` from random relabellings instead of the normal
        approximation.
    seed : int or numpy.random.Generator, optional
        For the permutations.
    workers : int, optional
        Threads for the neighbour search.

    Returns
    -------
    MixedSampleResult

    Raises
    ------
    ValueError, TypeError
        As in :func:`mixed_sample_statistic`; a negative ``n_permutations``.
    """
    if isinstance(n_permutations, bool) or not isinstance(n_permutations, (int, np.integer)) or n_permutations < 0:
        raise ValueError(f"n_permutations: expected a non-negative integer, got {n_permutations!r}")
    points, n_d, n_m = _prepare(data, mc, k, scale)
    n = points.shape[0]
    nb = _neighbours(points, k, workers)
    labels = np.concatenate([np.zeros(n_d, np.int8), np.ones(n_m, np.int8)])
    t = float(np.count_nonzero(_same_counts(nb, labels))) / (n * k)
    mean, var = _null_moments(nb, n_d, n_m)
    sd = math.sqrt(var)
    z = (t - mean) / sd if sd > 0 else (0.0 if t == mean else math.copysign(math.inf, t - mean))
    if n_permutations:
        rng = np.random.default_rng(seed)
        exceed = 0
        for _ in range(int(n_permutations)):
            perm = rng.permutation(labels)
            exceed += np.count_nonzero(_same_counts(nb, perm)) >= round(t * n * k)
        p = (1 + exceed) / (1 + int(n_permutations))
    else:
        p = float(1 - ndtr(z)) if math.isfinite(z) else (0.0 if z > 0 else 1.0)
    return MixedSampleResult(t, mean, sd, math.sqrt(henze_variance(n_d, n_m, k)), z, p, int(k), n_d, n_m,
                             int(n_permutations))
