"""Tests of vecampfit.mixed_sample: exact null moments, p-value uniformity, power, metric scaling."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from vecampfit import mixed_sample as ms

from numeric_checks import bad_input_test


def test_null_moments_exact_by_enumeration():
    # All labelings of 10 points with 4 data and 6 MC: mean and variance of T over them.
    rng = np.random.default_rng(1)
    points = rng.normal(size=(10, 2))
    k = 3
    values = []
    for data_idx in itertools.combinations(range(10), 4):
        mask = np.zeros(10, bool)
        mask[list(data_idx)] = True
        values.append(ms.mixed_sample_statistic(points[mask], points[~mask], k=k, scale=None))
    values = np.array(values)
    r = ms.mixed_sample_test(points[:4], points[4:], k=k, scale=None)
    print(f"enumeration: mean {values.mean():.6f} var {values.var():.6e}; formula: mean {r.expectation:.6f} "
          f"var {r.standard_deviation ** 2:.6e}; Henze asymptotic var {r.henze_standard_deviation ** 2:.6e}")
    assert r.expectation == pytest.approx(values.mean(), rel=1e-12)
    assert r.standard_deviation ** 2 == pytest.approx(values.var(), rel=1e-10)
    assert r.expectation == pytest.approx((4 * 3 + 6 * 5) / (10 * 9), rel=1e-15)


def test_p_values_uniform_under_the_null():
    rng = np.random.default_rng(2)
    p = []
    ratio = []
    for _ in range(300):
        # A 3-dimensional "Dalitz-like" density with different units per coordinate.
        def sample(n):
            x = np.column_stack([rng.normal(1.0, 0.2, n), rng.exponential(0.05, n), rng.uniform(-np.pi, np.pi, n)])
            return x
        r = ms.mixed_sample_test(sample(150), sample(450), k=8)
        p.append(r.p_value)
        ratio.append(r.standard_deviation / r.henze_standard_deviation)
    ks = stats.kstest(p, "uniform")
    print(f"null hypothesis: KS p-value of the p-values {ks.pvalue:.3f} (statistic {ks.statistic:.3f}); "
          f"sigma_T / Henze's asymptotic sigma_T: {np.mean(ratio):.3f}")
    assert ks.pvalue > 0.01


def test_small_p_value_for_a_wrong_model():
    rng = np.random.default_rng(3)
    data = rng.normal(size=(500, 2))
    mc = rng.normal(size=(1500, 2)) * [1.0, 1.5] + [0.4, 0.0]
    r = ms.mixed_sample_test(data, mc, k=10)
    print(f"wrong model: T = {r.statistic:.4f}, E[T] = {r.expectation:.4f}, z = {r.z:.1f}, p = {r.p_value:.2e}")
    assert r.p_value < 1e-6
    good = ms.mixed_sample_test(data, rng.normal(size=(1500, 2)), k=10)
    assert good.p_value > 1e-3


def test_permutation_p_value_agrees_with_the_normal_approximation():
    rng = np.random.default_rng(4)
    data = rng.normal(size=(200, 2))
    mc = rng.normal(size=(400, 2)) + [0.15, 0.0]
    r = ms.mixed_sample_test(data, mc, k=5)
    rp = ms.mixed_sample_test(data, mc, k=5, n_permutations=2000, seed=5)
    print(f"p-value: normal approximation {r.p_value:.4f}, 2000 permutations {rp.p_value:.4f}")
    assert rp.statistic == r.statistic and rp.n_permutations == 2000
    assert abs(rp.p_value - r.p_value) < 0.03 + 0.3 * r.p_value


def test_metric_scaling():
    rng = np.random.default_rng(6)
    data = rng.normal(size=(300, 2))
    mc = rng.normal(size=(600, 2))
    base = ms.mixed_sample_statistic(data, mc, k=6)
    stretched = [1000.0, 1.0]
    # Default scale="std" makes the statistic independent of the units of each coordinate.
    assert ms.mixed_sample_statistic(data * stretched, mc * stretched, k=6) == base
    # Without scaling the stretched coordinate dominates the distances.
    unscaled = ms.mixed_sample_statistic(data * stretched, mc * stretched, k=6, scale=None)
    explicit = ms.mixed_sample_statistic(data * stretched, mc * stretched, k=6, scale=stretched)
    assert explicit == ms.mixed_sample_statistic(data, mc, k=6, scale=None)
    assert unscaled != explicit
    # One-dimensional samples and coincident points (the point itself is excluded from its neighbours).
    x = np.repeat(np.arange(20.0), 3)
    r = ms.mixed_sample_test(x[::2], x[1::2], k=2, scale=None)
    assert 0 <= r.statistic <= 1 and math.isfinite(r.z)


test_bad_input = bad_input_test([
    (lambda: ms.mixed_sample_test(np.zeros((0, 2)), np.ones((5, 2))), ValueError, "data: the sample is empty"),
    (lambda: ms.mixed_sample_test(np.ones((5, 2)), np.zeros((0, 2))), ValueError, "mc: the sample is empty"),
    (lambda: ms.mixed_sample_test(np.ones((5, 2)), np.ones((5, 3))), ValueError, "different dimensions"),
    (lambda: ms.mixed_sample_test(np.random.rand(5, 2), np.random.rand(5, 2), k=10), ValueError, "1 <= k <= 9"),
    (lambda: ms.mixed_sample_test(np.random.rand(5, 2), np.random.rand(5, 2), k=0), ValueError, "1 <= k"),
    (lambda: ms.mixed_sample_test(np.random.rand(5, 2), np.random.rand(5, 2), k=2.5), TypeError, "integer"),
    (lambda: ms.mixed_sample_test([[np.nan, 1]], [[1, 2], [3, 4]], k=1), ValueError, "non-finite"),
    (lambda: ms.mixed_sample_test(np.random.rand(5, 2), np.random.rand(5, 2), k=2, scale=[1, -1]),
     ValueError, "positive"),
    (lambda: ms.mixed_sample_test(np.ones((5, 2)), np.ones((5, 2)), k=2), ValueError, "constant"),
    (lambda: ms.mixed_sample_test(np.random.rand(5, 2), np.random.rand(5, 2), k=2, scale="mad"),
     ValueError, "scale"),
    (lambda: ms.mixed_sample_test(np.random.rand(5, 2), np.random.rand(5, 2), k=2, n_permutations=-1),
     ValueError, "n_permutations"),
    (lambda: ms.mixed_sample_test(np.random.rand(5, 2, 2), np.random.rand(5, 2), k=2), ValueError, "shape"),
])
