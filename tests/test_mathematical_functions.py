"""Tests of vecampfit.mathematical_functions against mpmath, numpy, scipy and sympy."""

import math
import os
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.integrate
import scipy.stats
import sympy

from vecampfit import mathematical_functions as mf
from vecampfit.model_compiler import compile_model

from numeric_checks import bad_input_test

mpmath.mp.prec = 256

FORMATS = {
    np.dtype(np.float64): dict(mant=52, emin=-1022, uint=np.uint64, sint=np.int64),
    np.dtype(np.float32): dict(mant=23, emin=-126, uint=np.uint32, sint=np.int32),
}


def ulp_of(exact, dtype):
    """The spacing of the floating-point numbers of ``dtype`` at the exact value (mpf)."""
    f = FORMATS[np.dtype(dtype)]
    if exact == 0:
        return mpmath.ldexp(1, f["emin"] - f["mant"])
    _, e = mpmath.frexp(exact)          # exact = m 2^e, 0.5 <= |m| < 1
    return mpmath.ldexp(1, max(int(e) - 1, f["emin"]) - f["mant"])


def correctly_rounded(exact, dtype):
    """The value of ``dtype`` nearest to the exact mpf (normal range)."""
    prec = FORMATS[np.dtype(dtype)]["mant"] + 1
    with mpmath.workprec(prec):
        r = +exact
    return np.dtype(dtype).type(float(r))


def ulps_between(a, b, dtype):
    """Number of representable values between a and b (same dtype, finite)."""
    f = FORMATS[np.dtype(dtype)]
    ia = np.array([a], dtype).view(f["sint"]).astype(np.int64)[0]
    ib = np.array([b], dtype).view(f["sint"]).astype(np.int64)[0]
    big = np.int64(np.iinfo(f["sint"]).min)
    ia = ia if ia >= 0 else big - ia
    ib = ib if ib >= 0 else big - ib
    return abs(int(ia) - int(ib))


def measure(computed, exact, dtype, smallest_normal=None):
    """Largest error in ulps of the exact value, and largest distance (in
    representable steps) from the correctly rounded value, over finite exact
    values; results below the smallest normal number count in units of the
    subnormal spacing and are left out of the second figure."""
    dtype = np.dtype(dtype)
    tiny = mpmath.mpf(float(np.finfo(dtype).tiny))
    worst, worst_at, steps = 0.0, None, 0
    for i, (c, e) in enumerate(zip(computed, exact)):
        err = float(abs(mpmath.mpf(float(c)) - e) / ulp_of(e, dtype))
        if err > worst:
            worst, worst_at = err, i
        if abs(e) >= tiny and np.isfinite(c):
            steps = max(steps, ulps_between(c, correctly_rounded(e, dtype), dtype))
    return worst, worst_at, steps


def sample_exp(dtype, n, rng):
    if dtype == np.float64:
        hi, lo, sub = 709.782712893384, -745.1332191019411, -708.3964185322641
    else:
        hi, lo, sub = 88.72283, -103.97208, -87.33655
    x = [rng.uniform(lo, hi, n), rng.uniform(-2, 2, n // 4),
         np.exp(rng.uniform(-40, 0, n // 8)) * rng.choice([-1, 1], n // 8),
         # around the range-reduction boundaries (k + 1/2) ln 2
         (rng.integers(-1000 if dtype == np.float64 else -140, 1000 if dtype == np.float64 else 120, n // 8)
          + 0.5) * math.log(2) + rng.normal(0, 1e-6, n // 8),
         rng.uniform(sub - 1, sub + 1, n // 16), rng.uniform(lo, lo + 0.5, n // 16),
         rng.uniform(hi - 0.5, hi, n // 16)]
    x = np.concatenate(x).astype(dtype)
    edges = np.array([hi, lo, sub], dtype)
    near = np.concatenate([np.nextafter(np.full(8, e, dtype), np.full(8, s, dtype)) for e in edges for s in (-np.inf, np.inf)])
    return np.concatenate([x, edges, near, np.array([0, -0.0, 1, -1, 1e-30, -1e-30], dtype)])


def sample_log(dtype, n, rng):
    f = FORMATS[np.dtype(dtype)]
    # Uniform bit patterns over all positive finite numbers (subnormals included).
    top = np.array([np.finfo(dtype).max], dtype).view(f["uint"])[0]
    bits = rng.integers(1, int(top), n, dtype=np.uint64).astype(f["uint"])
    x = [bits.view(dtype), np.exp(rng.uniform(-3, 3, n // 4)).astype(dtype),
         (1 + rng.normal(0, 1e-3, n // 8)).astype(dtype),
         (1 + rng.normal(0, 1e-12 if dtype == np.float64 else 1e-5, n // 8)).astype(dtype),
         (np.sqrt(0.5) * (1 + rng.normal(0, 1e-6, n // 8))).astype(dtype)]
    special = np.array([1, 2, 0.5, np.finfo(dtype).tiny, np.finfo(dtype).max,
                        np.finfo(dtype).smallest_subnormal, np.nextafter(dtype(1), dtype(2)),
                        np.nextafter(dtype(1), dtype(0))], dtype)
    return np.concatenate(x + [special])


def sample_power(dtype, n, rng):
    big = 709.0 if dtype == np.float64 else 88.0
    small = -744.0 if dtype == np.float64 else -103.0
    x = np.exp(rng.uniform(-200 if dtype == np.float64 else -40, 200 if dtype == np.float64 else 40, n))
    z = rng.uniform(small, big, n)
    y = z / np.log(x)
    # x near 1 with large exponents, integer and half-integer exponents, small x.
    x1 = 1 + rng.normal(0, 1e-6, n // 4)
    y1 = rng.uniform(small, big, n // 4) / np.log(x1)
    x2 = rng.uniform(0.01, 100, n // 4)
    y2 = rng.integers(-8, 9, n // 4) / 2
    # Close to the overflow threshold and into the subnormal range, from both
    # sides of 1, and with subnormal bases.
    if dtype == np.float64:
        x3 = np.array([2, 2, 10, 10, 0.5, 0.5, 1e-300, 1e-310, 5e-324, 7.0, 1 - 2**-53, 1 + 2**-52])
        y3 = np.array([1023.9999999, -1021.9999, 308.2547, -307.99, -1023.99999, 1021.5, -1.0237, 0.5, 0.98,
                       364.77, -2.0**62, 2.0**61])
    else:
        x3 = np.array([2, 2, 10, 10, 0.5, 1e-38, 1e-44, 7.0, 1 - 2**-24, 1 + 2**-23])
        y3 = np.array([127.99, -125.99, 38.5, -37.9, -127.99, -1.05, 0.9, 45.6, -2.0**30, 2.0**29])
    xs = np.concatenate([x, x1, x2, x3]).astype(dtype)
    ys = np.concatenate([y, y1, y2, y3]).astype(dtype)
    return xs, ys


N = {np.float64: 6000, np.float32: 4000}


def _computed_and_exact(name, sample, dtype, seed):
    """The points x = sample(dtype, N[dtype], rng) (rng seeded with seed), the library's
    function name at x (of the dtype of x) and mpmath's function of the same name at x."""
    x = sample(dtype, N[dtype], np.random.default_rng(seed))
    got = getattr(mf, name)(x)
    assert got.dtype == dtype
    exact = [getattr(mpmath, name)(mpmath.mpf(float(v))) for v in x]
    return x, got, exact


def _assert_correctly_rounded_within_one_ulp(name, x, got, exact, dtype, kept=None):
    """The values got of the function name at the points x, against the exact
    values (mpmath), at the indices kept (default all): the largest error is
    below 1 ulp and no value is more than one step from the correctly rounded
    one (printed with the point where the error is largest)."""
    kept = list(range(len(x)) if kept is None else kept)
    worst, at, steps = measure(got[kept], [exact[i] for i in kept], dtype)
    print(f"\n{np.dtype(dtype)} {name} over {len(x)} points: largest error {worst:.3f} ulp "
          f"(at x = {x[kept][at]!r}), largest distance from the correctly rounded value {steps}")
    assert worst < 1 and steps <= 1


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_exp_accuracy(dtype):
    x, got, exact = _computed_and_exact("exp", sample_exp, dtype, 1)
    finite = [i for i, e in enumerate(exact) if e <= float(np.finfo(dtype).max)]
    _assert_correctly_rounded_within_one_ulp("exp", x, got, exact, dtype, finite)
    overflow = [i for i, e in enumerate(exact) if e > float(np.finfo(dtype).max)]
    assert overflow and np.all(np.isposinf(got[overflow]))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_log_accuracy(dtype):
    x, got, exact = _computed_and_exact("log", sample_log, dtype, 2)
    _assert_correctly_rounded_within_one_ulp("log", x, got, exact, dtype)
    assert mf.log(np.array([1.0], dtype))[0] == 0


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_power_accuracy(dtype):
    x, y = sample_power(dtype, N[dtype], np.random.default_rng(3))
    got = mf.power(x, y)
    assert got.dtype == dtype
    exact = [mpmath.power(mpmath.mpf(float(a)), mpmath.mpf(float(b))) for a, b in zip(x, y)]
    keep = [i for i, e in enumerate(exact) if e <= float(np.finfo(dtype).max)]
    worst, at, steps = measure(got[keep], [exact[i] for i in keep], dtype)
    print(f"\n{np.dtype(dtype)} power over {len(keep)} points: largest error {worst:.3f} ulp "
          f"(at x = {x[keep][at]!r}, y = {y[keep][at]!r}), largest distance from the correctly "
          f"rounded value {steps}")
    assert worst < 1 and steps <= 1


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_special_values(dtype):
    t = np.dtype(dtype).type
    inf, nan = t(np.inf), t(np.nan)
    e = mf.exp(np.array([inf, -inf, nan, 1e4, -1e4, 1e300 if dtype == np.float64 else 1e30, 0, -0.0], dtype))
    assert np.isposinf(e[0]) and e[1] == 0 and np.isnan(e[2]) and np.isposinf(e[3]) and e[4] == 0
    assert np.isposinf(e[5]) and e[6] == 1 and e[7] == 1
    l = mf.log(np.array([0, -0.0, -1, -inf, inf, nan, 1], dtype))
    assert np.isneginf(l[0]) and np.isneginf(l[1]) and np.isnan(l[2]) and np.isnan(l[3])
    assert np.isposinf(l[4]) and np.isnan(l[5]) and l[6] == 0
    x = np.array([2, 0.5, 1, 1, 0, 0, 0, inf, inf, -2, -2, nan, nan, 2, 0.5, 2, 0.5, 3, nan], dtype)
    y = np.array([0, 0, nan, inf, 2, -2, 0, 2, -2, 2, 0.5, 0, 1, inf, inf, -inf, -inf, nan, nan], dtype)
    expected = [1, 1, 1, 1, 0, inf, 1, inf, 0, nan, nan, 1, nan, inf, 0, 0, inf, nan, nan]
    p = mf.power(x, y)
    np.testing.assert_array_equal(p, np.array(expected, dtype))
    for i in range(len(x)):
        s = mf.power_scalar(x[i], y[i])
        assert (np.isnan(s) and np.isnan(expected[i])) or s == expected[i]
    # Overflow and underflow thresholds of power.
    big = np.array([10, 10, 0.1], dtype)
    assert np.isposinf(mf.power(big, np.array([400 if dtype == np.float64 else 40, 1e6, 1e6], dtype))[:2]).all()
    assert mf.power(big, np.array([0, 0, 1e6], dtype))[2] == 0


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_subnormal_results(dtype):
    # exp and power into the subnormal range: error below one subnormal spacing.
    tiny = float(np.finfo(dtype).tiny)
    rng = np.random.default_rng(4)
    lo = math.log(float(np.finfo(dtype).smallest_subnormal))
    x = rng.uniform(lo, math.log(tiny), 2000).astype(dtype)
    got = mf.exp(x)
    spacing = mpmath.mpf(float(np.finfo(dtype).smallest_subnormal))
    worst = max(float(abs(mpmath.mpf(float(g)) - mpmath.exp(mpmath.mpf(float(v)))) / spacing)
                for g, v in zip(got, x))
    print(f"\n{np.dtype(dtype)} exp, subnormal results: largest error {worst:.3f} subnormal spacings")
    assert worst < 1
    got = mf.power(np.full(x.shape, 2, dtype), (x / np.log(2)).astype(dtype))
    worst = max(float(abs(mpmath.mpf(float(g)) - mpmath.power(2, mpmath.mpf(float(v)))) / spacing)
                for g, v in zip(got, (x / np.log(2)).astype(dtype)))
    print(f"{np.dtype(dtype)} power, subnormal results: largest error {worst:.3f} subnormal spacings")
    assert worst < 1


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_floor_bit_exact(dtype):
    rng = np.random.default_rng(5)
    big = 2.0 ** (52 if dtype == np.float64 else 23)
    x = np.concatenate([rng.uniform(-100, 100, 5000), rng.integers(-50, 50, 200) / 2.0,
                        rng.uniform(-4 * big, 4 * big, 500), rng.uniform(-1, 1, 500) * 1e-300,
                        [0.0, -0.0, 0.5, -0.5, 0.49999999999999994, -0.49999999999999994,
                         big - 0.5, -big + 0.5, big, -big, np.inf, -np.inf, np.nan]]).astype(dtype)
    got = mf.floor(x)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, np.floor(x))
    np.testing.assert_array_equal(np.signbit(got), np.signbit(np.floor(x)))
    assert mf.floor_scalar(-0.25) == -1 and math.copysign(1, mf.floor_scalar(-0.0)) == -1


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_scalar_versions_equal_blocks(dtype):
    rng = np.random.default_rng(6)
    x = rng.uniform(0.1, 20, 50).astype(dtype)
    y = rng.uniform(-5, 5, 50).astype(dtype)
    for block, scalar, args in ((mf.exp, mf.exp_scalar, (y,)), (mf.log, mf.log_scalar, (x,)),
                                (mf.floor, mf.floor_scalar, (y,)), (mf.logistic, mf.logistic_scalar, (y,)),
                                (mf.power, mf.power_scalar, (x, y)),
                                (mf.kallen_lambda, mf.kallen_lambda_scalar, (x, y, x))):
        b = block(*args)
        s = np.array([scalar(*(a[i] for a in args)) for i in range(len(x))])
        assert all(type(scalar(*(a[0] for a in args))) is (np.float32 if dtype == np.float32 else float)
                   for _ in [0])
        np.testing.assert_array_equal(b, s.astype(dtype))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_logistic(dtype):
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.uniform(-50, 50, 3000), rng.uniform(-740, 700, 500),
                        [0, -0.0, 1e-20, -1e-20]]).astype(dtype)
    got = mf.logistic(x)
    exact = [1 / (1 + mpmath.exp(-mpmath.mpf(float(v)))) for v in x]
    worst, at, _ = measure(got, exact, dtype)
    print(f"\n{np.dtype(dtype)} logistic: largest error {worst:.3f} ulp (at x = {x[at]!r})")
    assert worst < 3
    e = mf.logistic(np.array([np.inf, -np.inf, np.nan, 1e5, -1e5], dtype))
    assert e[0] == 1 and e[1] == 0 and np.isnan(e[2]) and e[3] == 1 and e[4] == 0


def test_kallen_lambda():
    x, y, z = sympy.symbols("x y z")
    lam = x**2 + y**2 + z**2 - 2 * x * y - 2 * x * z - 2 * y * z
    assert sympy.expand((x - y - z) ** 2 - 4 * y * z - lam) == 0
    M, m1, m2 = sympy.symbols("M m1 m2", positive=True)
    assert sympy.expand(lam.subs({x: M**2, y: m1**2, z: m2**2})
                        - (M**2 - (m1 + m2) ** 2) * (M**2 - (m1 - m2) ** 2)) == 0
    rng = np.random.default_rng(8)
    for dtype in (np.float64, np.float32):
        a, b, c = (rng.uniform(-3, 10, 3000).astype(dtype) for _ in range(3))
        # Near threshold: x = (sqrt y + sqrt z)^2 (1 + tiny).
        m1v, m2v = rng.uniform(0.1, 2, 500), rng.uniform(0.1, 2, 500)
        a = np.concatenate([a, ((m1v + m2v) ** 2 * (1 + rng.normal(0, 1e-6, 500))).astype(dtype)])
        b = np.concatenate([b, (m1v ** 2).astype(dtype)])
        c = np.concatenate([c, (m2v ** 2).astype(dtype)])
        got = mf.kallen_lambda(a, b, c)
        eps = float(np.finfo(dtype).eps)
        worst = 0.0
        for g, u, v, w in zip(got, a, b, c):
            u, v, w = Fraction(float(u)), Fraction(float(v)), Fraction(float(w))
            exact = u * u + v * v + w * w - 2 * u * v - 2 * u * w - 2 * v * w
            bound = eps * float((abs(u) + abs(v) + abs(w)) ** 2)
            worst = max(worst, abs(float(Fraction(float(g)) - exact)) / bound)
        print(f"{np.dtype(dtype)} kallen_lambda: largest error {worst:.3f} eps (|x|+|y|+|z|)^2")
        assert worst < 4


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_gaussians_against_scipy(dtype):
    x = np.linspace(-6, 8, 2001).astype(dtype)
    rtol = 4 * float(np.finfo(dtype).eps) * 60  # exp of arguments up to ~50: relative error ~ |arg| eps
    ref = scipy.stats.norm.pdf(x.astype(float), 0.7, 1.3)
    np.testing.assert_allclose(mf.gaussian(x, 0.7, 1.3), ref, rtol=rtol)
    np.testing.assert_allclose(mf.gaussian_unnormalized(x, 0.7, 1.3), ref * math.sqrt(2 * math.pi) * 1.3, rtol=rtol)
    sl, sr = 0.6, 1.9
    ref = np.where(x < 0.7, np.exp(-((x - 0.7) / sl) ** 2 / 2), np.exp(-((x - 0.7) / sr) ** 2 / 2))
    np.testing.assert_allclose(mf.asymmetric_gaussian_unnormalized(x, 0.7, sl, sr), ref, rtol=rtol)
    np.testing.assert_allclose(mf.asymmetric_gaussian(x, 0.7, sl, sr),
                               ref * 2 / (math.sqrt(2 * math.pi) * (sl + sr)), rtol=rtol)
    assert mf.asymmetric_gaussian(x, 0.7, sl, sr).dtype == dtype
    f = lambda t: float(mf.asymmetric_gaussian(np.array([t], dtype), 0.7, sl, sr)[0])  # noqa: E731
    integral = scipy.integrate.quad(f, -np.inf, 0.7)[0] + scipy.integrate.quad(f, 0.7, np.inf)[0]
    assert abs(integral - 1) < 1e-6


# The tails: (function, integral, parameters per side (alpha, beta, n), pieces of g(u) per side
# for sympy, junctions).
U = sympy.Symbol("u", positive=True)


def pieces(kind, a, b, n):
    """The pieces of g(u) (log of the shape) and the junctions, as sympy expressions."""
    a, b, n = sympy.nsimplify(a), sympy.nsimplify(b), sympy.nsimplify(n)
    g = -U**2 / 2
    if kind == "exponential":
        return [g, a**2 / 2 - a * U], [a]
    if kind == "power_law":
        return [g, -a**2 / 2 - n * sympy.log(1 + a * (U - a) / n)], [a]
    if kind == "exponential_power_law":
        return [g, a**2 / 2 - a * U, a**2 / 2 - a * b - n * sympy.log(1 + a * (U - b) / n)], [a, b]
    w = lambda t: 1 + a * (t - a) / n  # noqa: E731
    return [g, -a**2 / 2 - n * sympy.log(w(U)),
            -a**2 / 2 - n * sympy.log(w(b)) - (a / w(b)) * (U - b)], [a, b]


TAILS = {
    "exponential": (mf.asymmetric_gaussian_exponential_tail, mf.asymmetric_gaussian_exponential_tail_integral,
                    dict(alpha_left=1.2, alpha_right=0.8)),
    "power_law": (mf.asymmetric_gaussian_power_law_tail, mf.asymmetric_gaussian_power_law_tail_integral,
                  dict(alpha_left=1.1, alpha_right=1.7, n_left=3.0, n_right=2.5)),
    "exponential_power_law": (mf.asymmetric_gaussian_exponential_power_law_tail,
                              mf.asymmetric_gaussian_exponential_power_law_tail_integral,
                              dict(alpha_left=0.9, alpha_right=1.3, beta_left=2.1, beta_right=3.0,
                                   n_left=2.5, n_right=4.0)),
    "power_law_exponential": (mf.asymmetric_gaussian_power_law_exponential_tail,
                              mf.asymmetric_gaussian_power_law_exponential_tail_integral,
                              dict(alpha_left=1.0, alpha_right=1.5, beta_left=2.5, beta_right=4.0,
                                   n_left=1.5, n_right=0.7)),
}
MEAN, SL, SR = 0.3, 0.8, 1.4


def side_parameters(params, side):
    return (params[f"alpha_{side}"], params.get(f"beta_{side}", 0.0), params.get(f"n_{side}", 1.0))


@pytest.mark.parametrize("kind", list(TAILS))
def test_tails_formula_continuity_and_integral(kind):
    func, integral, params = TAILS[kind]
    for side, sigma, sign in (("left", SL, -1), ("right", SR, 1)):
        g_pieces, junctions = pieces(kind, *side_parameters(params, side))
        # Symbolically: value and first derivative agree at every junction.
        for j, u0 in enumerate(junctions):
            left, right = g_pieces[j], g_pieces[j + 1]
            assert sympy.simplify(left.subs(U, u0) - right.subs(U, u0)) == 0
            assert sympy.simplify(sympy.diff(left, U).subs(U, u0) - sympy.diff(right, U).subs(U, u0)) == 0
        # The implementation follows the formula, piece by piece.
        bounds = [0, *[float(j) for j in junctions], 8.0]
        for j, expr in enumerate(g_pieces):
            f = sympy.lambdify(U, sympy.exp(expr), "mpmath")
            us = np.linspace(bounds[j], bounds[j + 1], 41)[1:-1]
            xs = MEAN + sign * sigma * us
            got = func(xs, MEAN, SL, SR, **params)
            want = np.array([float(f(mpmath.mpf(float(u)))) for u in (xs - MEAN) * sign / sigma])
            np.testing.assert_allclose(got, want, rtol=2e-14)
        # Numerically: one-sided differences at each junction agree (value and slope).
        for u0 in [0.0, *[float(j) for j in junctions]]:
            x0 = MEAN + sign * sigma * u0
            h = 1e-6
            lo = func(np.array([x0 - 2 * h, x0 - h, x0]), MEAN, SL, SR, **params)
            hi = func(np.array([x0, x0 + h, x0 + 2 * h]), MEAN, SL, SR, **params)
            d_left = (3 * lo[2] - 4 * lo[1] + lo[0]) / (2 * h)
            d_right = (-3 * hi[0] + 4 * hi[1] - hi[2]) / (2 * h)
            step = abs(func(np.array([x0 - 1e-12]), MEAN, SL, SR, **params)[0]
                       - func(np.array([x0 + 1e-12]), MEAN, SL, SR, **params)[0])
            assert step < 1e-11, (kind, side, u0, step)
            assert abs(d_left - d_right) < 1e-6 * max(1, abs(d_left)), (kind, side, u0, d_left, d_right)
    # Integral over the real line against numerical quadrature; normalized=True divides by it.
    points = [MEAN] + [MEAN + s * sg * float(j) for side, sg, s in (("left", SL, -1), ("right", SR, 1))
                       for j in pieces(kind, *side_parameters(params, side))[1]]
    q = sum(scipy.integrate.quad(lambda t: func(np.array([t]), MEAN, SL, SR, **params)[0], lo, hi,
                                 limit=200, epsabs=0, epsrel=1e-11)[0]
            for lo, hi in zip([-np.inf] + sorted(points), sorted(points) + [np.inf]))
    value = integral(SL, SR, *params.values())   # the dicts list the parameters in signature order
    print(f"{kind}: integral {value!r}, quadrature {q!r}")
    assert abs(value / q - 1) < 1e-8
    x = np.linspace(-3, 3, 7)
    np.testing.assert_allclose(func(x, MEAN, SL, SR, normalized=True, **params),
                               func(x, MEAN, SL, SR, **params) / value, rtol=1e-15)
    assert func(x.astype(np.float32), MEAN, SL, SR, **params).dtype == np.float32


def test_power_law_exponential_tail_integral_n_equal_one():
    # n = 1 has its own closed form (log w instead of w^(1-n)).
    kw = dict(alpha_left=1.0, alpha_right=1.5, beta_left=2.5, beta_right=4.0, n_left=1.0, n_right=1.0)
    f = lambda t: mf.asymmetric_gaussian_power_law_exponential_tail(np.array([t]), MEAN, SL, SR, **kw)[0]  # noqa: E731
    edges = sorted([MEAN, MEAN - SL, MEAN - 2.5 * SL, MEAN + 1.5 * SR, MEAN + 4 * SR])
    q = sum(scipy.integrate.quad(f, lo, hi, epsabs=0, epsrel=1e-11)[0]
            for lo, hi in zip([-np.inf] + edges, edges + [np.inf]))
    value = mf.asymmetric_gaussian_power_law_exponential_tail_integral(SL, SR, *kw.values())
    assert abs(value / q - 1) < 1e-8


def tail_exponent_mp(kind, u, a, b, n):
    """g(u) of the tail shapes in mpmath (u beyond the Gaussian core)."""
    if kind == "power_law":
        return -a * a / 2 - n * mpmath.log(1 + a * (u - a) / n)
    if kind == "exponential_power_law":
        return a * (a / 2 - u) if u <= b else a * (a / 2 - b) - n * mpmath.log(1 + a * (u - b) / n)
    w = lambda t: 1 + a * (t - a) / n  # noqa: E731
    return -a * a / 2 - n * mpmath.log(w(u)) if u <= b else -a * a / 2 - n * mpmath.log(w(b)) - (a / w(b)) * (u - b)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("kind", ["power_law", "exponential_power_law", "power_law_exponential"])
def test_power_law_tails_with_large_n(kind, dtype):
    # n log(1 + t) with 1 + t rounded carried an error of n/2 ulps of the exponent
    # (about 900 ulps of the shape for n = 1000); log(1 + t) is now taken accurately.
    func = TAILS[kind][0]
    rng = np.random.default_rng(6)
    a, b, mean, sigma = 1.2, 2.0, 0.3, 1.3
    worst = 0
    for n in (50.0, 1000.0, 1e5):
        kw = dict(alpha_left=a, alpha_right=a, n_left=n, n_right=n)
        if kind != "power_law":
            kw.update(beta_left=b, beta_right=b)
        x = (mean + sigma * rng.uniform(a, 3.5, 400)).astype(dtype)
        got = func(x, mean, sigma, sigma, **kw)
        am, bm, nm = (mpmath.mpf(float(dtype(v))) for v in (a, b, n))
        for xi, v in zip(x, got):
            u = (mpmath.mpf(float(xi)) - mpmath.mpf(float(dtype(mean)))) / mpmath.mpf(float(dtype(sigma)))
            g = tail_exponent_mp(kind, u, am, bm, nm)
            # The rounding of u = (x - mean)/sigma alone moves g by about |u dg/du| ulps.
            worst = max(worst, float(abs(mpmath.mpf(float(v)) - mpmath.exp(g)) / ulp_of(mpmath.exp(g), dtype))
                        / (1 + float(abs(u * a))))
    print(f"\n{kind} {np.dtype(dtype)}: largest error {worst:.2f} ulp / (1 + a u)")
    assert worst < 3


def test_power_law_exponential_tail_integral_near_n_equal_one():
    # n/(n - 1) (1 - w^(1-n)) cancelled as n -> 1 (relative error 1e-2 at n = 1 + 4e-15);
    # it is now n log(w) expm1(t)/t with t = (1 - n) log w.
    def side(s, a, b, n):
        s, a, b, n = (mpmath.mpf(v) for v in (s, a, b, n))
        ea = mpmath.exp(-a * a / 2)
        w = 1 + a * (b - a) / n
        mid = ea * mpmath.log(w) / a if n == 1 else ea * n / (a * (n - 1)) * (1 - w ** (1 - n))
        return s * (mpmath.sqrt(mpmath.pi / 2) * mpmath.erf(a / mpmath.sqrt(2)) + mid + ea * w ** (1 - n) / a)
    worst = 0
    for k in range(8, 53, 4):
        for n in (1 + 2.0**-k, 1 - 2.0**-k, 1.0):
            args = (0.8, 1.4, 1.1, 0.6, 2.7, 3.5, n, 2.0 - n)
            got = mf.asymmetric_gaussian_power_law_exponential_tail_integral(*args)
            ref = side(0.8, 1.1, 2.7, n) + side(1.4, 0.6, 3.5, 2.0 - n)
            worst = max(worst, float(abs(got / ref - 1)) / np.finfo(np.float64).eps)
    print(f"\npower-law-exponential integral near n = 1: largest relative error {worst:.2f} eps")
    assert worst < 8


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_chebyshev_against_numpy(dtype):
    rng = np.random.default_rng(9)
    x = rng.uniform(-1, 1, 1003).astype(dtype)
    basis = mf.chebyshev_basis(x, 12)
    assert basis.shape == (13, 1003) and basis.dtype == dtype
    ref = np.polynomial.chebyshev.chebvander(x.astype(float), 12).T
    tol = 64 * float(np.finfo(dtype).eps)
    np.testing.assert_allclose(basis, ref, atol=tol)
    c = rng.normal(size=9)
    np.testing.assert_allclose(mf.chebyshev_series(x, c.astype(dtype)),
                               np.polynomial.chebyshev.chebval(x.astype(float), c), atol=tol * 4)
    assert mf.chebyshev_basis(x[:5].reshape(5, 1), 0).shape == (1, 5, 1)
    np.testing.assert_array_equal(mf.chebyshev_series(x, [2.5]), np.full(x.shape, 2.5, dtype))


test_bad_input = bad_input_test([
    (lambda: mf.exp(np.ones(3, np.int32)), TypeError, "dtype int32"),
    (lambda: mf.log(np.ones(3, np.complex128)), TypeError, "dtype complex128"),
    (lambda: mf.exp(["a"]), TypeError, "expected real numbers"),
    (lambda: mf.power(np.ones(3, np.float32), np.ones(3)), TypeError, "mixed precisions"),
    (lambda: mf.power(np.ones(3), np.ones(2)), ValueError, "do not broadcast"),
    (lambda: mf.kallen_lambda(np.ones(3), np.ones(3), np.ones(4)), ValueError, "do not broadcast"),
    (lambda: mf.gaussian(np.ones(3), 0, 0), ValueError, "sigma_left must be positive"),
    (lambda: mf.gaussian(np.ones(3), 0, -1.0), ValueError, "must be positive"),
    (lambda: mf.gaussian(np.ones(3), np.nan, 1.0), ValueError, "mean must be finite"),
    (lambda: mf.asymmetric_gaussian(np.ones(3), 0, 1.0, 0.0), ValueError, "sigma_right must be positive"),
    (lambda: mf.asymmetric_gaussian(np.ones(3), 0, "1", 1.0), TypeError, "sigma_left must be a real number"),
    (lambda: mf.asymmetric_gaussian_exponential_tail(np.ones(3), 0, 1, 1, -1, 1), ValueError, "alpha_left"),
    (lambda: mf.asymmetric_gaussian_power_law_tail_integral(1, 1, 1, 1, 1.0, 2), ValueError, "n > 1"),
    (lambda: mf.asymmetric_gaussian_exponential_power_law_tail(np.ones(3), 0, 1, 1, 1, 1, 0.5, 2, 2, 2),
     ValueError, "beta_left must be larger"),
    (lambda: mf.chebyshev_basis(np.ones(3), -1), ValueError, "degree"),
    (lambda: mf.chebyshev_series(np.ones(3), []), ValueError, "non-empty"),
    (lambda: mf.chebyshev_series(np.ones(3, np.float32), np.ones(2)), TypeError, "mixed precisions"),
    (lambda: mf.exp_scalar("1"), TypeError, "real number"),
    (lambda: mf.power_scalar(np.float32(1), 2.5), TypeError, "mixed precisions"),
])


def density_reference(x, pars, x0, w):
    amp = np.zeros(x.shape, complex)
    for k in range(len(pars) // 7):
        m, sl, sr, al, ar, cre, cim = pars[7 * k: 7 * k + 7]
        amp += (cre + 1j * cim) * mf.asymmetric_gaussian_exponential_tail(x, m, sl, sr, al, ar)
    return np.abs(amp) ** 2 / (1 + np.exp(-(x - x0) / w))


def test_user_model_outside_the_package(models_dir, model_cache):
    """A model compiled as a user's would be (native tuning) cimports
    mathematical_functions and complex_vector; its block exp, log and power keep
    the accuracy for every vector length."""
    lengths = (1, 4, 16)
    mods = compile_model(os.path.join(models_dir, "mathf_user_model.pyx"), lengths, build_dir=model_cache)
    rng = np.random.default_rng(10)
    x = rng.uniform(-3, 4, 1001)
    pars = np.array([0.0, 0.5, 0.9, 1.2, 1.6, 1.0, 0.0, 1.5, 0.3, 0.2, 0.7, 1.1, -0.4, 0.8])
    ref = density_reference(x, pars, 0.2, 0.7)
    xe = sample_exp(np.float64, 2000, rng)
    xl = sample_log(np.float64, 2000, rng)
    xp, yp = sample_power(np.float64, 2000, rng)
    exact_e = [mpmath.exp(mpmath.mpf(float(v))) for v in xe]
    keep_e = [i for i, e in enumerate(exact_e) if e <= float(np.finfo(float).max)]
    exact_l = [mpmath.log(mpmath.mpf(float(v))) for v in xl]
    exact_p = [mpmath.power(mpmath.mpf(float(a)), mpmath.mpf(float(b))) for a, b in zip(xp, yp)]
    keep_p = [i for i, e in enumerate(exact_p) if e <= float(np.finfo(float).max)]
    for length, mod in mods.items():
        np.testing.assert_allclose(mod.density(x, pars, 0.2, 0.7), ref, rtol=1e-13, atol=1e-300)
        d32 = mod.density(x.astype(np.float32), pars.astype(np.float32), np.float32(0.2), np.float32(0.7))
        assert d32.dtype == np.float32
        np.testing.assert_allclose(d32, ref, rtol=2e-5, atol=1e-6)
        results = []
        for name, function, args, exact, keep in (
                ("exp", 0, (xe,), exact_e, keep_e), ("log", 1, (xl,), exact_l, range(len(xl))),
                ("power", 2, (xp, yp), exact_p, keep_p)):
            n = len(args[0]) - len(args[0]) % length
            out = np.empty(n)
            ys = args[1][:n] if len(args) > 1 else args[0][:n]
            mod.apply(args[0][:n], ys, out, function)
            idx = [i for i in keep if i < n]
            worst, _, steps = measure(out[idx], [exact[i] for i in idx], np.float64)
            results.append(f"{name} {worst:.3f} ulp")
            assert worst < 1 and steps <= 1
        print(f"L = {length} (native): largest errors " + ", ".join(results))
