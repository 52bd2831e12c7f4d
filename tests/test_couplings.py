"""Tests of vecampfit.couplings: the canonical form of complex couplings.

References: the coupling itself (a e^{i phi} must not change), the interval
[-180, 180) (or [-pi, pi)), brute-force wrapping by repeated shifts of one
period, and the invariance of the canonical form under a common complex
factor of all couplings.
"""

import math

import numpy as np
import pytest

from vecampfit import couplings as cp


def shift_into_range(x, period):
    """Wrap one phase by adding or subtracting whole periods one at a time."""
    half = period / 2
    while x >= half:
        x -= period
    while x < -half:
        x += period
    return x


@pytest.mark.parametrize("degrees, period", [(True, 360.0), (False, 2 * math.pi)])
def test_wrap_phase_interval_and_shift(degrees, period):
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.uniform(-5 * period, 5 * period, 2000),
                        [period / 2, -period / 2, 0.0, -0.0, period, -period, 3 * period / 2,
                         np.nextafter(period / 2, 0), np.nextafter(-period / 2, -np.inf)]])
    y = cp.wrap_phase(x, degrees=degrees)
    assert y.shape == x.shape and y.dtype == np.float64
    assert np.all((y >= -period / 2) & (y < period / 2))
    # A whole number of periods apart.
    k = (x - y) / period
    np.testing.assert_allclose(k, np.round(k), atol=1e-12)
    # The same phase as shifting one period at a time (at the ends of the
    # interval the two may round to opposite ends: compare modulo the period).
    d = y - np.array([shift_into_range(v, period) for v in x])
    np.testing.assert_allclose(d - period * np.round(d / period), 0, atol=1e-12 * period)
    # Values inside are returned bit for bit.
    inside = (x >= -period / 2) & (x < period / 2)
    np.testing.assert_array_equal(y[inside], x[inside])
    assert cp.wrap_phase(period / 2, degrees=degrees) == -period / 2


def test_wrap_phase_examples_and_bad_input():
    assert cp.wrap_phase([180.0, -190.0, 725.0, 10.0]).tolist() == [-180.0, 170.0, 5.0, 10.0]
    assert isinstance(cp.wrap_phase(190.0), np.float64) and cp.wrap_phase(190.0) == -170.0
    assert cp.wrap_phase(np.pi, degrees=False) == -np.pi
    with pytest.raises(ValueError, match="finite"):
        cp.wrap_phase([0.0, np.nan])
    with pytest.raises(TypeError, match="degrees must be a bool"):
        cp.wrap_phase(1.0, degrees="yes")


@pytest.mark.parametrize("degrees", [True, False])
def test_canonical_polar_keeps_the_coupling(degrees):
    rng = np.random.default_rng(2)
    unit = 360.0 if degrees else 2 * math.pi
    a = rng.normal(0, 2, 3000)
    a[:5] = 0.0
    phi = rng.uniform(-3 * unit, 3 * unit, 3000)
    b, psi = cp.canonical_polar(a, phi, degrees=degrees)
    assert np.all(b >= 0) and np.all((psi >= -unit / 2) & (psi < unit / 2))
    rad = (lambda x: np.radians(x)) if degrees else (lambda x: x)
    np.testing.assert_allclose(b * np.exp(1j * rad(psi)), a * np.exp(1j * rad(phi)), atol=1e-12)
    np.testing.assert_array_equal(b, np.abs(a))
    # Already canonical: unchanged, bit for bit.
    b2, psi2 = cp.canonical_polar(b, psi, degrees=degrees)
    np.testing.assert_array_equal(b2, b)
    np.testing.assert_array_equal(psi2, psi)


def test_canonical_polar_examples():
    assert tuple(map(float, cp.canonical_polar(-0.5, 30.0))) == (0.5, -150.0)
    assert tuple(map(float, cp.canonical_polar(-0.5, -30.0))) == (0.5, 150.0)
    assert tuple(map(float, cp.canonical_polar(2.0, 540.0))) == (2.0, -180.0)
    a, phi = cp.canonical_polar([1.0, -1.0], 0.0)
    assert a.tolist() == [1.0, 1.0] and phi.tolist() == [0.0, -180.0]
    with pytest.raises(ValueError, match="finite"):
        cp.canonical_polar(np.inf, 0.0)


def test_canonical_couplings_relative_to_a_reference():
    rng = np.random.default_rng(3)
    c = rng.normal(size=6) + 1j * rng.normal(size=6)
    mag, phase = cp.canonical_couplings(c, reference=2)
    r = c / c[2]
    np.testing.assert_allclose(mag, np.abs(r), rtol=1e-15)
    np.testing.assert_allclose(mag * np.exp(1j * np.radians(phase)), r, rtol=1e-14)
    assert mag[2] == 1.0 and phase[2] == 0.0
    assert np.all((phase >= -180) & (phase < 180))
    # A common complex factor of all couplings drops out.
    factor = -0.7 * np.exp(2.3j)
    mag2, phase2 = cp.canonical_couplings(c * factor, reference=2)
    np.testing.assert_allclose(mag2, mag, rtol=1e-14)
    np.testing.assert_allclose(cp.wrap_phase(phase2 - phase + 1e-9), 1e-9, atol=1e-11)
    # Without a reference: |c| and arg c; radians on request.
    mag3, phase3 = cp.canonical_couplings(c.reshape(2, 3), degrees=False)
    assert mag3.shape == (2, 3)
    np.testing.assert_allclose(mag3 * np.exp(1j * phase3), c.reshape(2, 3), rtol=1e-14)
    # A negative real coupling has phase -180 (not +180).
    assert cp.canonical_couplings([1.0, -2.0])[1].tolist() == [0.0, -180.0]


def test_canonical_couplings_of_a_mapping_and_bad_input():
    out = cp.canonical_couplings({"RHO": 2.0, "KST": -0.6 + 0j, "NR": 1j}, reference="RHO")
    assert out == {"RHO": (1.0, 0.0), "KST": (0.3, -180.0), "NR": (0.5, 90.0)}
    with pytest.raises(KeyError, match="OMEGA"):
        cp.canonical_couplings({"RHO": 1.0}, reference="OMEGA")
    with pytest.raises(ValueError, match="reference coupling RHO is zero"):
        cp.canonical_couplings({"RHO": 0j, "KST": 1.0}, reference="RHO")
    with pytest.raises(ValueError, match="reference coupling 1 is zero"):
        cp.canonical_couplings([1.0, 0.0], reference=1)
    with pytest.raises(ValueError, match="finite"):
        cp.canonical_couplings([1.0, complex(np.nan, 0)])
    with pytest.raises(IndexError):
        cp.canonical_couplings([1.0, 2.0], reference=5)
