"""Tests of vecampfit.geometry against mpmath."""

import math
import os

import mpmath
import numpy as np
import pytest

from vecampfit import geometry
from vecampfit.model_compiler import compile_model

mpmath.mp.prec = 256


def reduce_exact(d, dtype):
    """The difference d (a float64 or an mpf) reduced exactly to [-pi, pi), then rounded
    to dtype; a result equal to the dtype's pi maps to -pi (the documented interval)."""
    pi = mpmath.pi
    r = mpmath.mpf(d) if isinstance(d, mpmath.mpf) else mpmath.mpf(float(d))
    r = r - 2 * pi * mpmath.floor((r + pi) / (2 * pi))
    v = np.dtype(dtype).type(float(r)) if dtype == np.float64 else np.float32(float(r))
    pi_t = np.dtype(dtype).type(np.pi)
    return -pi_t if v >= pi_t else v


def ulp_distance(a, b, dtype):
    ints = np.int64 if dtype == np.float64 else np.int32
    ia, ib = (int(np.array([v], dtype).view(ints)[0]) for v in (a, b))
    big = int(np.iinfo(ints).min)
    ia = ia if ia >= 0 else big - ia
    ib = ib if ib >= 0 else big - ib
    return abs(ia - ib)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_against_exact_reduction(dtype):
    rng = np.random.default_rng(1)
    n = 4000
    phi1 = np.concatenate([rng.uniform(-np.pi, np.pi, n), rng.uniform(-1e3, 1e3, n // 2),
                           rng.uniform(-1e8, 1e8, n // 4) if dtype == np.float64 else
                           rng.uniform(-1e5, 1e5, n // 4)]).astype(dtype)
    phi2 = np.concatenate([rng.uniform(-np.pi, np.pi, n), rng.uniform(-1e3, 1e3, n // 2),
                           rng.uniform(-10, 10, n // 4)]).astype(dtype)
    got = geometry.azimuthal_angle_difference(phi1, phi2)
    assert got.dtype == dtype
    pi_t = np.dtype(dtype).type(np.pi)
    assert np.all(got >= -pi_t) and np.all(got < pi_t)
    # The exact difference of the two angles, reduced.
    worst = 0
    for g, a, b in zip(got, phi1, phi2):
        worst = max(worst, ulp_distance(g, reduce_exact(mpmath.mpf(float(a)) - mpmath.mpf(float(b)), dtype), dtype))
    print(f"\n{np.dtype(dtype)}: largest distance from the correctly rounded reduction: {worst} ulp")
    assert worst <= 1


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_boundaries_and_wrap_arounds(dtype):
    t = np.dtype(dtype).type
    pi = t(np.pi)
    cases = {
        # float64: PI < pi, so +-PI is in [-pi, pi) and PI maps to -PI only by the
        # documented convention; float32: PI > pi, so +PI reduces to PI - 2 pi.
        (pi, 0): reduce_exact(float(pi), dtype), (0, pi): reduce_exact(-float(pi), dtype), (-pi, 0): reduce_exact(-float(pi), dtype),
        (0, -pi): reduce_exact(float(pi), dtype), (pi, -pi): None,
        (0, 0): 0, (t(1), t(1)): 0,
        (np.nextafter(pi, t(0)), t(0)): np.nextafter(pi, t(0)),
        (np.nextafter(-pi, t(0)), t(0)): np.nextafter(-pi, t(0)),
    }
    for (a, b), want in cases.items():
        got = geometry.azimuthal_angle_difference(np.array([a], dtype), np.array([b], dtype))[0]
        scalar = geometry.azimuthal_angle_difference_scalar(t(a), t(b))
        assert got == scalar
        assert -pi <= got < pi
        if want is not None:
            assert got == want, (a, b, got, want)
    # 2 PI (the float) minus 2 pi is tiny: below zero in float64, above in float32.
    got = geometry.azimuthal_angle_difference(np.array([2 * pi], dtype), np.array([0], dtype))[0]
    assert got == reduce_exact(2 * float(pi), dtype) and abs(got) < 1e-6
    # Many wrap-arounds: phi + 2 pi k for k up to 10^6 (float64) or 10^3 (float32).
    rng = np.random.default_rng(2)
    kmax = 10**6 if dtype == np.float64 else 10**3
    base = rng.uniform(-3.1, 3.1, 300)
    k = rng.integers(-kmax, kmax, 300)
    phi = np.array([float(mpmath.mpf(float(b)) + 2 * mpmath.pi * int(kk)) for b, kk in zip(base, k)]).astype(dtype)
    got = geometry.azimuthal_angle_difference(phi, np.zeros_like(phi))
    tol = 2 * np.spacing(np.abs(phi).astype(dtype)) + 2 * np.spacing(dtype(np.pi))
    assert np.all(np.abs(got - base.astype(dtype)) <= tol)
    # inf and NaN give NaN.
    bad = geometry.azimuthal_angle_difference(np.array([np.inf, np.nan, 0], dtype), np.array([0, 0, -np.inf], dtype))
    assert np.all(np.isnan(bad))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_angles_of_different_magnitudes(dtype):
    # phi1 - phi2 is not rounded before the reduction: with |phi1| ~ 1e8 and a small
    # phi2 the rounded float64 difference was off by up to 7e8 ulps of the result.
    rng = np.random.default_rng(4)
    n = 3000
    phi1 = (rng.uniform(-1, 1, n) * np.exp(rng.uniform(-5, math.log(4e8), n))).astype(dtype)
    phi2 = (rng.uniform(-1, 1, n) * np.exp(rng.uniform(-40, 3, n))).astype(dtype)
    got = geometry.azimuthal_angle_difference(phi1, phi2)
    worst = max(ulp_distance(g, reduce_exact(mpmath.mpf(float(a)) - mpmath.mpf(float(b)), dtype), dtype)
                for g, a, b in zip(got, phi1, phi2))
    print(f"\n{np.dtype(dtype)}: angles of different magnitudes: largest distance {worst} ulp")
    assert worst <= 1
    # Beyond 2^26 2 pi the reduction would not be exact: NaN (it was a value far
    # outside [-pi, pi) for 1e20).
    big = geometry.azimuthal_angle_difference(np.array([4.3e8, 1e20, -1e30], dtype), np.zeros(3, dtype))
    assert np.all(np.isnan(big))
    assert not np.isnan(geometry.azimuthal_angle_difference(np.array([4.2e8], dtype), np.zeros(1, dtype))[0])


def test_broadcasting_and_bad_input():
    phi = np.linspace(-10, 10, 12).reshape(3, 4)
    got = geometry.azimuthal_angle_difference(phi, 0.5)
    assert got.shape == (3, 4)
    np.testing.assert_allclose(np.cos(got), np.cos(phi - 0.5), atol=1e-14)
    with pytest.raises(TypeError, match="mixed precisions"):
        geometry.azimuthal_angle_difference(np.ones(3, np.float32), np.ones(3))
    with pytest.raises(TypeError, match="dtype int64"):
        geometry.azimuthal_angle_difference(np.ones(3, np.int64), np.ones(3))
    with pytest.raises(ValueError, match="do not broadcast"):
        geometry.azimuthal_angle_difference(np.ones(3), np.ones(4))
    with pytest.raises(TypeError, match="phi2 must be a real number"):
        geometry.azimuthal_angle_difference_scalar(1.0, "x")
    with pytest.raises(TypeError, match="mixed precisions"):
        geometry.azimuthal_angle_difference_scalar(np.float32(1), 2.0)
    assert isinstance(geometry.azimuthal_angle_difference_scalar(7.0, 0), float)
    assert math.isclose(geometry.azimuthal_angle_difference_scalar(7.0, 0), 7 - 2 * math.pi)


def test_user_model_outside_the_package(models_dir, model_cache):
    """The block routine from a user's model (cimport vecampfit.geometry), every length."""
    mods = compile_model(os.path.join(models_dir, "mathf_user_model.pyx"), (1, 4, 16), build_dir=model_cache)
    rng = np.random.default_rng(3)
    phi1 = rng.uniform(-50, 50, 1001)
    phi2 = rng.uniform(-50, 50, 1001)
    for length, mod in mods.items():
        for dtype in (np.float64, np.float32):
            a, b = phi1.astype(dtype), phi2.astype(dtype)
            got = mod.angle_difference(a, b)
            assert got.dtype == dtype
            np.testing.assert_array_equal(got, geometry.azimuthal_angle_difference(a, b))
