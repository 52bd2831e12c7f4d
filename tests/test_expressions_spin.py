"""Wigner small-d functions of vecampfit.expressions.spin against sympy."""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from vecampfit.expressions import evaluate, event
from vecampfit.expressions.spin import (doubled_spin, wigner_small_d, wigner_small_d_cos,
                                        wigner_small_d_terms)

sympy = pytest.importorskip("sympy")
from sympy.physics.quantum.spin import Rotation  # noqa: E402

ANGLES = (0.0, 0.37, 1.3, 2.2, math.pi - 1e-3, math.pi)


_BETA = None
_SYMPY_CACHE = {}


def _sympy_d(two_j, two_m1, two_m2, theta):
    """sympy's d^j_{m1 m2}(theta), built symbolically once per (j, m1, m2), at 30 digits."""
    global _BETA
    if _BETA is None:
        _BETA = sympy.Symbol("beta", real=True)
    key = (two_j, two_m1, two_m2)
    if key not in _SYMPY_CACHE:
        half = sympy.Rational(1, 2)
        expr = Rotation.d(two_j * half, two_m1 * half, two_m2 * half, _BETA).doit()
        _SYMPY_CACHE[key] = sympy.lambdify(_BETA, expr, "mpmath")
    with mpmath.workdps(30):
        return float(mpmath.re(_SYMPY_CACHE[key](mpmath.mpf(theta))))


def _cases(max_two_j=9):
    for two_j in range(0, max_two_j + 1):
        for a in range(-two_j, two_j + 1, 2):
            for b in range(-two_j, two_j + 1, 2):
                yield two_j, a, b


def _compared():
    """Every element for j <= 5/2; for j = 3 .. 9/2 the elements with m1 >= |m2| (the others
    follow by the symmetries tested in test_symmetries), to keep sympy's time down."""
    return [(two_j, a, b) for two_j, a, b in _cases() if two_j <= 5 or a >= abs(b)]


def _max_deviation(d_of):
    """Largest |d_of(...) - sympy| over j <= 9/2 (see _compared) and ANGLES."""
    worst = 0.0
    for two_j, a, b in _compared():
        for theta in ANGLES:
            ref = _sympy_d(two_j, a, b, theta)
            worst = max(worst, abs(d_of(two_j, a, b, theta) - ref))
    return worst


def _ours_cos(two_j, a, b, theta):
    return float(evaluate(wigner_small_d_cos(Fraction(two_j, 2), Fraction(a, 2), Fraction(b, 2),
                                             math.cos(theta)), {}))


def _ours_half(two_j, a, b, theta):
    return float(evaluate(wigner_small_d(Fraction(two_j, 2), Fraction(a, 2), Fraction(b, 2),
                                         math.cos(theta / 2), math.sin(theta / 2)), {}))


def test_wigner_d_of_cos_theta_against_sympy_up_to_nine_halves():
    worst = _max_deviation(_ours_cos)
    print(f"max |d - sympy| (cos theta form, j <= 9/2): {worst:.2e}")
    # (1 - cos theta)/2 near theta = 0 and (1 + cos theta)/2 near pi carry the
    # rounding of cos theta itself: a few 1e-14 absolute at theta = pi - 1e-3.
    assert worst < 5e-14


def test_wigner_d_of_half_angles_against_sympy_up_to_nine_halves():
    worst = _max_deviation(_ours_half)
    print(f"max |d - sympy| (half-angle form, j <= 9/2): {worst:.2e}")
    assert worst < 1e-14


def test_the_comparison_fails_for_broken_d_functions():
    # Projections swapped (d_{m2 m1} = (-1)^(m1-m2) d_{m1 m2}) and one term's sign flipped.
    def swapped(two_j, a, b, theta):
        return _ours_cos(two_j, b, a, theta)

    def wrong_sign(two_j, a, b, theta):
        v = _ours_cos(two_j, a, b, theta)
        return -v if (two_j, a, b) == (9, 7, -3) else v

    assert _max_deviation(swapped) > 1e-3
    assert _max_deviation(wrong_sign) > 1e-3


def test_negative_angle_and_variable_cosine():
    values = {"x": np.array([-0.9, -0.2, 0.4, 1.0])}
    x = event("x")
    for two_j, a, b in _cases(7):
        plus = evaluate(wigner_small_d_cos(two_j / 2, a / 2, b / 2, x), values)
        minus = evaluate(wigner_small_d_cos(two_j / 2, a / 2, b / 2, x, sign=-1), values)
        assert np.allclose(minus, (-1) ** ((a - b) // 2) * plus, atol=1e-15)
    # unitarity: sum_m d_{m a} d_{m b} = delta_ab
    for two_j in range(0, 10):
        ms = range(-two_j, two_j + 1, 2)
        d = np.array([[float(evaluate(wigner_small_d_cos(two_j / 2, a / 2, b / 2, 0.3), {}))
                       for b in ms] for a in ms])
        assert np.allclose(d.T @ d, np.eye(len(ms)), atol=1e-14)


def test_terms_are_exact_and_cosine_rounding_is_clipped():
    # d^{1/2}_{1/2,-1/2} = -sin(theta/2)
    assert wigner_small_d_terms("1/2", "1/2", "-1/2") == [(-1, Fraction(1), 0, 1)]
    # cos theta a little beyond 1 gives the value at theta = 0
    assert float(evaluate(wigner_small_d_cos(2, 1, 1, 1 + 2e-16), {})) == pytest.approx(1.0, abs=1e-15)


@pytest.mark.parametrize("bad", ["1/3", "0.25", 0.3, "x", True])
def test_spin_not_a_multiple_of_one_half(bad):
    with pytest.raises(ValueError, match="multiple of 1/2"):
        doubled_spin(bad, "spin")


def test_projection_outside_the_spin():
    with pytest.raises(ValueError, match="projection"):
        wigner_small_d_cos(1, 2, 0, 0.5)
    with pytest.raises(ValueError, match="projection"):
        wigner_small_d_cos("3/2", 1, 0, 0.5)
    assert doubled_spin("-3/2") == -3 and doubled_spin(Fraction(5, 2)) == 5
    with pytest.raises(ValueError, match="negative"):
        doubled_spin("-1/2", allow_negative=False)


def test_symmetries():
    """d_{m1 m2} = (-1)^(m1 - m2) d_{m2 m1} = d_{-m2, -m1}, every element up to j = 9/2."""
    for two_j, a, b in _cases():
        for theta in ANGLES:
            d = _ours_cos(two_j, a, b, theta)
            assert _ours_cos(two_j, b, a, theta) * (-1) ** ((a - b) // 2) == pytest.approx(d, abs=1e-15)
            assert _ours_cos(two_j, -b, -a, theta) == pytest.approx(d, abs=1e-15)
